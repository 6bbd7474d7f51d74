//! Contact impulses coming back from the CPU's LCP (shaders/gpu/impulses.wgsl): each liquid
//! particle's velocity change `dv = p n / m` is added to its velocity and moves it by `dv dt`.
//! Only the impulses go up; the particles stay on the GPU.
use super::GpuLiquidSolver;
use super::buffers;
use super::kernel::Kernel;
use crate::liquid::Particles;
use crate::{Error, Result};
use glam::Vec3A;

/// The pass's pipeline.
#[derive(Debug)]
pub struct Impulses {
    /// Its kernel.
    pub kernel: Kernel,
}

impl Impulses {
    /// Compile the pass.
    pub fn new(device: &wgpu::Device) -> Impulses {
        let src = include_str!("../../shaders/gpu/impulses.wgsl");
        Impulses {
            kernel: Kernel::new(device, "impulses", src, true, 4, &["main"]),
        }
    }
}

/// Upload `(slot, vector)` entries as a vec4 buffer and a slot buffer, with a uniform whose
/// `n_body` is the entry count and `dt` the given step.
pub(crate) fn upload_slots(
    s: &GpuLiquidSolver,
    what: &str,
    entries: &[(u32, Vec3A)],
    dt: f32,
) -> Result<(wgpu::Buffer, wgpu::Buffer, wgpu::Buffer)> {
    check_slots(entries, s.n as usize)?;
    let device = &s.ctx.device;
    let mut params = s.gp;
    params.n_body = entries.len() as u32;
    params.dt = dt;
    let uniform = device.create_buffer(&wgpu::BufferDescriptor {
        label: Some(what),
        size: std::mem::size_of::<buffers::GpuParams>() as u64,
        usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    });
    s.ctx
        .queue
        .write_buffer(&uniform, 0, bytemuck::bytes_of(&params));
    let mut scratch = 0;
    let n = entries.len() as u64;
    let vec_buf = buffers::storage(&s.ctx, what, n * 16, &mut scratch)?;
    let slot_buf = buffers::storage(&s.ctx, what, n * 4, &mut scratch)?;
    let d: Vec<[f32; 4]> = entries.iter().map(|(_, v)| [v.x, v.y, v.z, 0.0]).collect();
    let sl: Vec<u32> = entries.iter().map(|(s, _)| *s).collect();
    s.ctx
        .queue
        .write_buffer(&vec_buf, 0, bytemuck::cast_slice(&d));
    s.ctx
        .queue
        .write_buffer(&slot_buf, 0, bytemuck::cast_slice(&sl));
    Ok((uniform, vec_buf, slot_buf))
}

/// Check that every slot is in range and appears once (sum a particle's impulses first).
fn check_slots(dv: &[(u32, Vec3A)], n: usize) -> Result<()> {
    let mut seen = vec![false; n];
    for &(s, _) in dv {
        let s = s as usize;
        if s >= n || std::mem::replace(&mut seen[s], true) {
            return Err(Error::Run(format!(
                "contact impulse for slot {s}: out of range or given twice (sum a particle's \
                 impulses into one entry)"
            )));
        }
    }
    Ok(())
}

impl GpuLiquidSolver {
    /// Apply velocity changes `(slot, dv)` (slots as [`super::contacts::Contact::slot`] gave
    /// them, each at most once) after a step of `dt`: `v += dv`, `x += dv dt`.
    pub fn apply_impulses(&mut self, dv: &[(u32, Vec3A)], dt: f32) -> Result<()> {
        if dv.is_empty() {
            return check_slots(dv, self.n as usize);
        }
        let (uniform, dv_buf, slot_buf) = upload_slots(self, "impulses", dv, dt)?;
        let device = &self.ctx.device;
        let b = &self.bufs;
        let kernel = &self.passes.impulses.kernel;
        let g = kernel.bind(
            device,
            &uniform,
            &[
                &b.pos[self.cur.pos],
                &b.vel[self.cur.vel],
                &dv_buf,
                &slot_buf,
            ],
        );
        let mut enc = device.create_command_encoder(&Default::default());
        {
            let mut pass = enc.begin_compute_pass(&Default::default());
            kernel.dispatch(&mut pass, "main", &g, dv.len() as u32);
        }
        self.ctx.queue.submit([enc.finish()]);
        Ok(())
    }
}

/// CPU twin: the same velocity changes applied to particles in the same slot order.
pub fn cpu_twin(p: &mut Particles, dv: &[(u32, Vec3A)], dt: f32) {
    for &(s, d) in dv {
        let s = s as usize;
        p.vel[s] += d;
        p.pos[s] += d * dt;
    }
}
