//! Recording each phase of the GPU step into a compute pass: which kernel, which of its kept
//! bind groups (binding.rs: the one over the ping-pong buffers the cursor names; the velocity
//! buffer the cursor does not name holds, from the scatter to the step's end, the step's
//! velocity, the predicted velocity plus the relaxation's displacements over dt, and between
//! steps the start-of-step positions), how many invocations; the phases that swap a buffer
//! return the cursor after them. Recording makes no bind group.
use super::GpuLiquidSolver;
use super::solver::Cursor;

impl GpuLiquidSolver {
    /// The velocity kernel at one of its entry points: `"gravity"` (`v += g dt`),
    /// `"wall_friction"` or `"update"` (the step's velocity into `v`).
    pub(super) fn rec_velocity(&self, pass: &mut wgpu::ComputePass<'_>, entry: &str) {
        let g = self.cur.index();
        self.passes.velocity.dispatch(pass, entry, g, self.n);
    }

    /// Viscosity at `entry` (`main`, or `with_gravity` adding the step's gravity first), into
    /// the other velocity buffer.
    pub(super) fn rec_viscosity(&self, pass: &mut wgpu::ComputePass<'_>, entry: &str) -> Cursor {
        let c = self.cur;
        self.passes
            .viscosity
            .dispatch(pass, entry, c.index(), self.n, self.tiled);
        Cursor {
            vel: 1 - c.vel,
            ..c
        }
    }

    /// The grid build of a step: the cell-index pass at `entry` (`main`, or `with_gravity`)
    /// counts the cells of the predicted positions, then the prefix sum, the scatter and per
    /// cell the sort and gather, which takes the predicted positions into the other position
    /// buffer and the velocities into the other velocity buffer (the step's velocity).
    pub(super) fn rec_grid(&self, pass: &mut wgpu::ComputePass<'_>, entry: &str) -> Cursor {
        let c = self.cur;
        let p = &self.passes;
        p.cell_index.dispatch(pass, entry, c.index(), self.n);
        p.prefix.dispatch(pass);
        p.scatter.dispatch(pass, c.index(), self.n, self.ncells);
        Cursor {
            pos: 1 - c.pos,
            id: 1 - c.id,
            vel: c.vel,
        }
    }

    /// Bin the body boundary particles (their counts in the liquid's count buffer, which the
    /// liquid's scatter leaves clear and theirs clears again).
    pub(super) fn rec_boundary_grid(&self, pass: &mut wgpu::ComputePass<'_>) {
        let (Some(prefix), nb) = (&self.boundary_prefix, self.n_boundary) else {
            return;
        };
        if nb == 0 {
            return;
        }
        let p = &self.passes;
        p.boundary_grid.dispatch_cells(pass, nb);
        p.count.dispatch(pass, nb);
        prefix.dispatch(pass);
        p.boundary_grid.dispatch_sort(pass, nb, self.ncells);
    }

    pub(super) fn rec_density(&self, pass: &mut wgpu::ComputePass<'_>) {
        let g = self.cur.index();
        self.passes.density.dispatch(pass, g, self.n, self.tiled);
    }

    pub(super) fn rec_relaxation(&self, pass: &mut wgpu::ComputePass<'_>) -> Cursor {
        let c = self.cur;
        self.passes
            .relaxation
            .dispatch(pass, c.index(), self.n, self.tiled);
        Cursor {
            pos: 1 - c.pos,
            ..c
        }
    }

    /// The walls' loads of the step: the partial sums reduced into the frame's tally (with
    /// walls).
    pub(super) fn rec_wall_loads(&self, pass: &mut wgpu::ComputePass<'_>) {
        if self.wall_slots > 0 {
            self.passes.wall_loads.dispatch(pass);
        }
    }

    /// The walls at `entry` (`main`, or `with_update` setting the velocities after).
    pub(super) fn rec_walls(&self, pass: &mut wgpu::ComputePass<'_>, entry: &str) {
        let g = self.cur.index();
        self.passes.walls.dispatch(pass, entry, g, self.n);
    }
}
