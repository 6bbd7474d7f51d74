//! What the coupling exchanges with the GPU liquid: the liquid/body particle pairs found on the
//! device (the `contacts` pass), and the contact impulses and push-outs sent back up (the
//! `impulses` and `push_out` passes), each as a list of slots.
use super::GpuLiquidSolver;
use super::buffers::{self, check_fits};
use super::contacts::{BodyParticle, Contact, sort};
use crate::{Error, Result};
use glam::Vec3A;

/// The farthest a body particle's search reaches, in kernel radii (grid cells): the contact
/// search walks that many cells on each side.
pub const MAX_REACH_CELLS: f32 = 4.0;

/// Check that every contact distance fits the grid search (at most `MAX_REACH_CELLS` cells).
fn check_reach(body: &[BodyParticle], liquid_radius: f32, h: f32) -> Result<()> {
    let limit = MAX_REACH_CELLS * h;
    if let Some(b) = body.iter().find(|b| b.radius + liquid_radius > limit) {
        return Err(Error::input(format!(
            "a body particle of radius {} m reaches {} m, beyond {limit} m ({MAX_REACH_CELLS} \
             kernel radii), which the contact search covers; fix: sample bodies with particles \
             no larger than the liquid's kernel radius",
            b.radius,
            b.radius + liquid_radius
        )));
    }
    Ok(())
}

impl GpuLiquidSolver {
    /// Liquid/body particle pairs closer than the sum of radii, on the current positions and
    /// grid, sorted by (liquid id, body particle). Only the pairs come down.
    pub fn find_contacts(&mut self, body: &[BodyParticle]) -> Result<Vec<Contact>> {
        let liquid_radius = self.params.spacing / 2.0;
        check_reach(body, liquid_radius, self.params.h)?;
        if body.is_empty() || self.n == 0 {
            return Ok(Vec::new());
        }
        if !self.has_grid {
            self.rebuild_grid()?;
        }
        let device = &self.ctx.device;
        let kernel = &self.passes.contacts.kernel;
        let nb = body.len() as u32;
        let mut params: buffers::GpuParams = self.gp;
        params.n_body = nb;
        let uniform = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("contact params"),
            size: std::mem::size_of::<buffers::GpuParams>() as u64,
            usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        self.ctx
            .queue
            .write_buffer(&uniform, 0, bytemuck::bytes_of(&params));
        let spheres: Vec<[f32; 4]> = body
            .iter()
            .map(|b| [b.pos.x, b.pos.y, b.pos.z, b.radius + liquid_radius])
            .collect();
        let mut scratch = 0u64;
        let body_buf = buffers::storage(&self.ctx, "body particles", nb as u64 * 16, &mut scratch)?;
        self.ctx
            .queue
            .write_buffer(&body_buf, 0, bytemuck::cast_slice(&spheres));
        let count = buffers::storage(&self.ctx, "contact count", 4, &mut scratch)?;
        let mut capacity = (nb as u64 * 16).max(1024);
        loop {
            check_fits(&self.ctx, "contact", capacity * 48)?;
            let pairs = buffers::storage(&self.ctx, "contacts", capacity * 48, &mut scratch)?;
            self.ctx.queue.write_buffer(&count, 0, &[0u8; 4]);
            let b = &self.bufs;
            let g = kernel.bind(
                device,
                &uniform,
                &[
                    &b.pos[self.cur.pos],
                    &b.id[self.cur.id],
                    &b.cell_start,
                    &body_buf,
                    &count,
                    &b.vel[self.cur.vel],
                    &pairs,
                ],
            );
            let mut enc = device.create_command_encoder(&Default::default());
            {
                let mut pass = enc.begin_compute_pass(&Default::default());
                kernel.dispatch(&mut pass, "main", &g, nb);
            }
            self.ctx.queue.submit([enc.finish()]);
            let found = buffers::read::<u32>(&self.ctx, &count, 1)?[0] as u64;
            if found > capacity {
                capacity = found;
                continue;
            }
            let raw: Vec<[u32; 4]> = buffers::read(&self.ctx, &pairs, 3 * found as usize)?;
            let f = |w: [u32; 4]| {
                Vec3A::new(
                    f32::from_bits(w[0]),
                    f32::from_bits(w[1]),
                    f32::from_bits(w[2]),
                )
            };
            let mut out: Vec<Contact> = raw
                .chunks_exact(3)
                .map(|c| Contact {
                    liquid_id: c[0][0],
                    body_particle: c[0][1],
                    distance: f32::from_bits(c[0][2]),
                    slot: c[0][3],
                    pos: f(c[1]),
                    phase: f32::from_bits(c[1][3]) as u32,
                    vel: f(c[2]),
                    rho: f32::from_bits(c[2][3]),
                })
                .collect();
            sort(&mut out);
            return Ok(out);
        }
    }
}

/// Upload `(slot, vector)` entries as a vec4 buffer and a slot buffer, with a uniform whose
/// `n_body` is the entry count and `dt` the given step.
fn upload_slots(
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

impl GpuLiquidSolver {
    /// Move the listed slots (each at most once) by `dx`: `x += dx`.
    pub fn push_out(&mut self, dx: &[(u32, Vec3A)]) -> Result<()> {
        if dx.is_empty() {
            return Ok(());
        }
        let (uniform, dx_buf, slot_buf) = upload_slots(self, "push out", dx, 0.0)?;
        let device = &self.ctx.device;
        let kernel = &self.passes.push_out.kernel;
        let g = kernel.bind(
            device,
            &uniform,
            &[&self.bufs.pos[self.cur.pos], &dx_buf, &slot_buf],
        );
        let mut enc = device.create_command_encoder(&Default::default());
        {
            let mut pass = enc.begin_compute_pass(&Default::default());
            kernel.dispatch(&mut pass, "main", &g, dx.len() as u32);
        }
        self.ctx.queue.submit([enc.finish()]);
        Ok(())
    }
}
