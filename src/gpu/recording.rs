//! Recording each phase of the GPU step into a compute pass: which kernel, which buffers (the
//! ping-pong buffers the cursor names; the velocity buffer the cursor does not name holds,
//! from the scatter to the step's end, the step's velocity, the predicted velocity plus the
//! relaxation's displacements over dt, and between steps the start-of-step positions), how
//! many invocations; the phases that swap a buffer return the
//! cursor after them.
use super::solver::Cursor;
use super::{GpuLiquidSolver, boundary_grid, density, scatter};

impl GpuLiquidSolver {
    /// The velocity kernel at one of its entry points: `"gravity"` (`v += g dt`),
    /// `"wall_friction"` or `"update"` (the step's velocity into `v`).
    pub(super) fn rec_velocity(&self, pass: &mut wgpu::ComputePass<'_>, entry: &str) {
        let b = &self.bufs;
        self.passes.velocity.dispatch(
            &self.ctx.device,
            pass,
            entry,
            &b.params,
            &b.pos[self.cur.pos],
            &b.vel[1 - self.cur.vel],
            &b.vel[self.cur.vel],
            self.n,
        );
    }

    /// Viscosity at `entry` (`main`, or `with_gravity` adding the step's gravity first), into
    /// the other velocity buffer.
    pub(super) fn rec_viscosity(&self, pass: &mut wgpu::ComputePass<'_>, entry: &str) -> Cursor {
        let b = &self.bufs;
        let c = self.cur;
        self.passes.viscosity.dispatch(
            &self.ctx.device,
            pass,
            entry,
            &b.params,
            &b.pos[c.pos],
            &b.cell_of,
            &b.cell_start,
            &b.phases,
            &b.vel[c.vel],
            &b.vel[1 - c.vel],
            self.n,
            self.tiled,
        );
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
        let b = &self.bufs;
        let c = self.cur;
        let d = &self.ctx.device;
        let p = &self.passes;
        p.cell_index.dispatch(
            d,
            pass,
            entry,
            &b.params,
            &b.pos[c.pos],
            &b.vel[c.vel],
            &b.cell_of,
            &b.flags,
            &b.cell_count,
            self.n,
        );
        p.prefix.dispatch(pass);
        let sb = scatter::ScatterBuffers {
            cell_of: &b.cell_of,
            cell_start: &b.cell_start,
            cursor: &b.cell_count,
            perm: &b.perm,
            id_in: &b.id[c.id],
            pos_in: &b.pos[c.pos],
            vel_in: &b.vel[c.vel],
            pos_out: &b.pos[1 - c.pos],
            vel_out: &b.vel[1 - c.vel],
            id_out: &b.id[1 - c.id],
        };
        p.scatter
            .dispatch(d, pass, &b.params, &sb, self.n, self.ncells);
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
        let d = &self.ctx.device;
        let p = &self.passes;
        let b = &self.boundary;
        let count = &self.bufs.cell_count;
        let bb = boundary_grid::BoundaryGridBuffers {
            input: &b.input,
            cell_of: &b.cell_of,
            cell_start: &b.cell_start,
            cursor: count,
            perm: &b.perm,
            sorted: &b.sorted,
        };
        p.boundary_grid.dispatch_cells(d, pass, &b.params, &bb, nb);
        p.count.dispatch(d, pass, &b.params, &b.cell_of, count, nb);
        prefix.dispatch(pass);
        p.boundary_grid
            .dispatch_sort(d, pass, &b.params, &bb, nb, self.ncells);
    }

    pub(super) fn rec_density(&self, pass: &mut wgpu::ComputePass<'_>) {
        let b = &self.bufs;
        let db = density::DensityBuffers {
            pos: &b.pos[self.cur.pos],
            cell_of: &b.cell_of,
            cell_start: &b.cell_start,
            phases: &b.phases,
            press: &b.vel[self.cur.vel],
            wall_table: &b.wall_table,
            boundary_start: &self.boundary.cell_start,
            boundary: &self.boundary.sorted,
        };
        self.passes
            .density
            .dispatch(&self.ctx.device, pass, &b.params, &db, self.n, self.tiled);
    }

    pub(super) fn rec_relaxation(&self, pass: &mut wgpu::ComputePass<'_>) -> Cursor {
        let b = &self.bufs;
        let c = self.cur;
        self.passes.relaxation.dispatch(
            &self.ctx.device,
            pass,
            &b.params,
            &b.pos[c.pos],
            &b.cell_of,
            &b.cell_start,
            &b.phases,
            &b.vel[c.vel],
            &b.pos[1 - c.pos],
            &b.wall_table,
            &b.vel[1 - c.vel],
            &self.boundary.cell_start,
            &self.boundary.sorted,
            self.n,
            self.tiled,
        );
        Cursor {
            pos: 1 - c.pos,
            ..c
        }
    }

    /// The walls at `entry` (`main`, or `with_update` setting the velocities after).
    pub(super) fn rec_walls(&self, pass: &mut wgpu::ComputePass<'_>, entry: &str) {
        let (b, c) = (&self.bufs, self.cur);
        self.passes.walls.dispatch(
            &self.ctx.device,
            pass,
            entry,
            &b.params,
            &b.pos[c.pos],
            &b.vel[1 - c.vel],
            &b.vel[c.vel],
            self.n,
        );
    }
}
