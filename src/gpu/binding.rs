//! The passes' bind groups, made when the solver is set up and kept: a pass that binds the
//! ping-pong buffers keeps one bind group per state of the cursor ([`Cursor::index`], the
//! same buffers in the order its shader declares them); the passes that bind the body boundary
//! particles' buffers make theirs again when [`GpuLiquidSolver::set_boundary`] replaces those
//! buffers, and the coupling's passes when the exchange's buffers grow (exchange.rs, by their
//! generations). Recording a step makes none: it picks the kept group of the current cursor.
use super::GpuLiquidSolver;
use super::density::DensityBuffers;
use super::scatter::ScatterBuffers;
use super::solver::Cursor;
use super::{boundary_grid, kernel::Kernel};

impl Cursor {
    /// The states a cursor takes: each of its three buffers in one of two.
    pub(super) const STATES: usize = 8;

    /// The cursor of state `k` (below [`Cursor::STATES`]).
    pub(super) fn of(k: usize) -> Cursor {
        Cursor {
            pos: k & 1,
            vel: (k >> 1) & 1,
            id: (k >> 2) & 1,
        }
    }

    /// This cursor's state: the index of the bind groups that bind its buffers.
    pub(super) fn index(self) -> usize {
        self.pos | (self.vel << 1) | (self.id << 2)
    }
}

/// Make `kernel`'s bind groups with `uniform`, one per cursor state, over the storage buffers
/// `buffers` gives for each cursor (in binding order).
pub(super) fn per_cursor<'a>(
    kernel: &mut Kernel,
    device: &wgpu::Device,
    uniform: &wgpu::Buffer,
    buffers: impl Fn(Cursor) -> Vec<&'a wgpu::Buffer>,
) {
    kernel.rebind(
        device,
        uniform,
        (0..Cursor::STATES).map(|k| buffers(Cursor::of(k))),
    );
}

impl GpuLiquidSolver {
    /// Make every liquid pass's bind groups (the solver's setup, and again when the walls'
    /// partial sums grow for the tiled passes), then those over the body boundary particles'
    /// buffers.
    pub(super) fn bind_passes(&mut self) {
        let (d, b, p) = (&self.ctx.device, &self.bufs, &mut self.passes);
        let u = &b.params;
        // The velocity pass (walls' viscous friction) and the walls pass bind alike: both
        // change velocities at the walls and add the walls' impulses to the partial sums.
        let at_walls = |c: Cursor| {
            vec![
                &b.pos[c.pos],
                &b.vel[1 - c.vel],
                &b.vel[c.vel],
                &b.phases,
                &b.wall_partials,
            ]
        };
        per_cursor(&mut p.velocity.kernel, d, u, at_walls);
        per_cursor(&mut p.walls.kernel, d, u, at_walls);
        p.wall_loads
            .kernel
            .rebind(d, u, [vec![&b.wall_partials, &b.wall_tally]]);
        per_cursor(&mut p.viscosity.kernel, d, u, |c| {
            vec![
                &b.pos[c.pos],
                &b.cell_of,
                &b.cell_start,
                &b.phases,
                &b.vel[c.vel],
                &b.vel[1 - c.vel],
            ]
        });
        per_cursor(&mut p.cell_index.kernel, d, u, |c| {
            vec![
                &b.pos[c.pos],
                &b.vel[c.vel],
                &b.cell_of,
                &b.flags,
                &b.cell_count,
            ]
        });
        let scatter = (0..Cursor::STATES).map(|k| {
            let c = Cursor::of(k);
            ScatterBuffers {
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
            }
        });
        p.scatter.bind(d, u, scatter);
        self.bind_boundary();
    }

    /// Make the bind groups of the passes that bind the body boundary particles' buffers
    /// (their binning and count, the density and relaxation passes): at setup, and again each
    /// time [`GpuLiquidSolver::set_boundary`] replaces those buffers.
    pub(super) fn bind_boundary(&mut self) {
        let (d, b, p, bb) = (
            &self.ctx.device,
            &self.bufs,
            &mut self.passes,
            &self.boundary,
        );
        let grid = boundary_grid::BoundaryGridBuffers {
            input: &bb.input,
            cell_of: &bb.cell_of,
            cell_start: &bb.cell_start,
            cursor: &b.cell_count,
            perm: &bb.perm,
            sorted: &bb.sorted,
        };
        p.boundary_grid.bind(d, &bb.params, &grid);
        p.count
            .kernel
            .rebind(d, &bb.params, [vec![&bb.cell_of, &b.cell_count]]);
        let density = (0..Cursor::STATES).map(|k| {
            let c = Cursor::of(k);
            DensityBuffers {
                pos: &b.pos[c.pos],
                cell_of: &b.cell_of,
                cell_start: &b.cell_start,
                phases: &b.phases,
                press: &b.vel[c.vel],
                wall_table: &b.wall_table,
                boundary_start: &bb.cell_start,
                boundary: &bb.sorted,
            }
        });
        p.density.bind(d, &b.params, density);
        per_cursor(&mut p.relaxation.kernel, d, &b.params, |c| {
            vec![
                &b.pos[c.pos],
                &b.cell_of,
                &b.cell_start,
                &b.phases,
                &b.vel[c.vel],
                &b.pos[1 - c.pos],
                &b.wall_table,
                &b.vel[1 - c.vel],
                &bb.cell_start,
                &bb.sorted,
                &b.wall_partials,
            ]
        });
    }
}
