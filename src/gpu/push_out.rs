//! Position correction coming back from the CPU's coupling (shaders/gpu/push_out.wgsl): each
//! listed liquid particle moves by `dx` out of the body it overlaps; velocities are untouched.
use super::GpuLiquidSolver;
use super::impulses::upload_slots;
use super::kernel::Kernel;
use crate::Result;
use crate::liquid::Particles;
use glam::Vec3A;

/// The pass's pipeline.
#[derive(Debug)]
pub struct PushOut {
    /// Its kernel.
    pub kernel: Kernel,
}

impl PushOut {
    /// Compile the pass.
    pub fn new(device: &wgpu::Device) -> PushOut {
        let src = include_str!("../../shaders/gpu/push_out.wgsl");
        PushOut {
            kernel: Kernel::new(device, "push_out", src, true, 3, &["main"]),
        }
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

/// CPU twin: the same moves applied to particles in the same slots.
pub fn cpu_twin(p: &mut Particles, dx: &[(u32, Vec3A)]) {
    for &(s, d) in dx {
        p.pos[s as usize] += d;
    }
}
