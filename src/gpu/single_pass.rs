//! Each phase of the GPU step run on its own and waited for: the hooks the per-pass tests
//! (src/sim/tests/gpu_passes.rs) hold against the CPU twins, and the grid build before a first step.
use super::GpuLiquidSolver;
use super::solver::Cursor;
use crate::{Error, Result};

impl GpuLiquidSolver {
    /// Run one recorded phase on its own and wait for it (for the per-pass tests).
    #[cfg_attr(not(test), allow(dead_code))]
    fn run_alone(
        &mut self,
        dt: f32,
        f: impl FnOnce(&Self, &mut wgpu::ComputePass<'_>) -> Option<Cursor>,
    ) -> Result<()> {
        if !self.uploaded {
            return Err(Error::Run(
                "GPU solver: upload particles before running a pass".into(),
            ));
        }
        self.ensure_dt(dt);
        let mut enc = self.ctx.device.create_command_encoder(&Default::default());
        let next = {
            let mut pass = enc.begin_compute_pass(&Default::default());
            f(self, &mut pass)
        };
        self.ctx.queue.submit([enc.finish()]);
        self.ctx.wait()?;
        if let Some(c) = next {
            self.cur = c;
        }
        Ok(())
    }

    /// Gravity alone: `v += g dt`.
    #[cfg_attr(not(test), allow(dead_code))]
    pub fn pass_gravity(&mut self, dt: f32) -> Result<()> {
        self.run_alone(dt, |s, p| {
            s.rec_velocity(p, "gravity");
            None
        })
    }

    /// Viscosity alone, on the current grid.
    #[cfg_attr(not(test), allow(dead_code))]
    pub fn pass_viscosity(&mut self, dt: f32) -> Result<()> {
        self.run_alone(dt, |s, p| Some(s.rec_viscosity(p, "main")))
    }

    /// The grid build alone: prediction by `dt`, cells and counts, prefix sum, scatter, sort
    /// and gather.
    #[cfg_attr(not(test), allow(dead_code))]
    pub fn pass_grid(&mut self, dt: f32) -> Result<()> {
        self.run_alone(dt, |s, p| Some(s.rec_grid(p, "main")))?;
        self.has_grid = true;
        Ok(())
    }

    /// Kernel sums and pressures alone (binning the body boundary particles first if they
    /// changed).
    #[cfg_attr(not(test), allow(dead_code))]
    pub fn pass_density(&mut self) -> Result<()> {
        let dt = self.dt;
        self.run_alone(dt, |s, p| {
            if !s.boundary_binned {
                s.rec_boundary_grid(p);
            }
            s.rec_density(p);
            None
        })?;
        self.boundary_binned = true;
        Ok(())
    }

    /// The binning of the body boundary particles alone.
    #[cfg_attr(not(test), allow(dead_code))]
    pub fn pass_boundary_grid(&mut self) -> Result<()> {
        let dt = self.dt;
        self.run_alone(dt, |s, p| {
            s.rec_boundary_grid(p);
            None
        })?;
        self.boundary_binned = true;
        Ok(())
    }

    /// Relaxation displacements alone (on the last pressures).
    #[cfg_attr(not(test), allow(dead_code))]
    pub fn pass_relaxation(&mut self, dt: f32) -> Result<()> {
        self.run_alone(dt, |s, p| Some(s.rec_relaxation(p)))
    }

    /// Wall collisions alone.
    #[cfg_attr(not(test), allow(dead_code))]
    pub fn pass_walls(&mut self, dt: f32) -> Result<()> {
        self.run_alone(dt, |s, p| {
            s.rec_walls(p, "main");
            None
        })
    }

    /// Wall collisions and the velocity update, fused as a step ends them.
    #[cfg_attr(not(test), allow(dead_code))]
    pub fn pass_walls_update(&mut self, dt: f32) -> Result<()> {
        self.run_alone(dt, |s, p| {
            s.rec_walls(p, "with_update");
            None
        })
    }

    /// The walls' viscous friction alone.
    #[cfg_attr(not(test), allow(dead_code))]
    pub fn pass_wall_friction(&mut self, dt: f32) -> Result<()> {
        self.run_alone(dt, |s, p| {
            s.rec_velocity(p, "wall_friction");
            None
        })
    }

    /// The walls' loads alone: the partial sums reduced into the tally (step `dt`) and cleared.
    #[cfg_attr(not(test), allow(dead_code))]
    pub fn pass_wall_loads(&mut self, dt: f32) -> Result<()> {
        self.run_alone(dt, |s, p| {
            s.rec_wall_loads(p);
            None
        })
    }

    /// Velocity update alone.
    #[cfg_attr(not(test), allow(dead_code))]
    pub fn pass_velocity(&mut self, dt: f32) -> Result<()> {
        self.run_alone(dt, |s, p| {
            s.rec_velocity(p, "update");
            None
        })
    }
}
