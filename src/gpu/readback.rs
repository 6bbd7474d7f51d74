//! Reading the GPU liquid back: the particles (with the flags a pass raises when a position is
//! not finite or leaves the grid), and for the tests the grid, the body boundary bins, the
//! counts and the pressures as their CPU types.
use super::GpuLiquidSolver;
use super::buffers;
use crate::boundary::body_grid::{BoundaryGrid, BoundaryParticles};
use crate::liquid::Particles;
use crate::liquid::grid::Grid;
use crate::{Error, Result};
use glam::Vec3A;

impl GpuLiquidSolver {
    /// The body boundary particles' bins as a CPU [`BoundaryGrid`] (empty when there are none).
    #[cfg_attr(not(test), allow(dead_code))]
    pub fn download_boundary_grid(&self) -> Result<BoundaryGrid> {
        let nb = self.n_boundary as usize;
        if nb == 0 {
            return Ok(BoundaryGrid::default());
        }
        let b = &self.boundary;
        let cell_start = buffers::read(&self.ctx, &b.cell_start, self.ncells as usize + 1)?;
        let sorted: Vec<[f32; 4]> = buffers::read(&self.ctx, &b.sorted, nb)?;
        Ok(BoundaryGrid::from_parts(
            cell_start,
            BoundaryParticles {
                pos: sorted
                    .iter()
                    .map(|v| Vec3A::new(v[0], v[1], v[2]))
                    .collect(),
                weight: sorted.iter().map(|v| v[3]).collect(),
            },
        ))
    }

    /// The grid of the last build, for a checkpoint: each slot's cell (in the order of the
    /// particles that [`GpuLiquidSolver::download`] gives) and each cell's first slot; `None`
    /// before the first build.
    pub fn download_grid_state(&self) -> Result<Option<(Vec<u32>, Vec<u32>)>> {
        if !self.has_grid || self.n == 0 {
            return Ok(None);
        }
        let b = &self.bufs;
        let cell_of = buffers::read(&self.ctx, &b.cell_of, self.n as usize)?;
        let cell_start = buffers::read(&self.ctx, &b.cell_start, self.ncells as usize + 1)?;
        Ok(Some((cell_of, cell_start)))
    }

    /// Copy the particles back, in grid order, with their kernel sums (w of the velocities);
    /// fails when a position
    /// became non-finite, or (without a container) left the grid.
    pub fn download(&self) -> Result<Particles> {
        self.check_flags()?;
        let n = self.n as usize;
        let b = &self.bufs;
        let pos: Vec<[f32; 4]> = buffers::read(&self.ctx, &b.pos[self.cur.pos], n)?;
        let prev: Vec<[f32; 4]> = buffers::read(&self.ctx, &b.vel[1 - self.cur.vel], n)?;
        let vel: Vec<[f32; 4]> = buffers::read(&self.ctx, &b.vel[self.cur.vel], n)?;
        let id: Vec<u32> = buffers::read(&self.ctx, &b.id[self.cur.id], n)?;
        let xyz = |v: &[f32; 4]| Vec3A::new(v[0], v[1], v[2]);
        Ok(Particles {
            pos: pos.iter().map(xyz).collect(),
            prev: prev.iter().map(xyz).collect(),
            vel: vel.iter().map(xyz).collect(),
            phase: pos.iter().map(|v| v[3] as u32).collect(),
            id,
            rho: vel.iter().map(|v| v[3]).collect(),
        })
    }

    /// Fail if a pass flagged a non-finite position or (without a container) a particle
    /// outside the grid.
    pub fn check_flags(&self) -> Result<()> {
        let f: Vec<u32> = buffers::read(&self.ctx, &self.bufs.flags, 1)?;
        if f[0] & 1 != 0 {
            return Err(Error::Run(
                "a liquid particle's position is not finite (NaN or infinity): the step is \
                 unstable; lower time.substeps' step (raise substeps) or the stiffness"
                    .into(),
            ));
        }
        if f[0] & 2 != 0 && !self.grid.container {
            return Err(Error::Run(format!(
                "the liquid left the GPU grid ({:.3?} m to {:.3?} m), which a scene without a \
                 container fixes from the initial extent; give the scene a container, or use \
                 --backend cpu",
                self.grid.origin,
                self.grid.origin
                    + Vec3A::from_array(self.grid.dims.map(|d| d as f32)) * self.params.h
            )));
        }
        Ok(())
    }

    /// The current grid as a CPU [`Grid`] (cell starts and the cell of each slot).
    #[cfg_attr(not(test), allow(dead_code))]
    pub fn download_grid(&self) -> Result<Grid> {
        let start: Vec<u32> =
            buffers::read(&self.ctx, &self.bufs.cell_start, self.ncells as usize + 1)?;
        let cell_of: Vec<u32> = buffers::read(&self.ctx, &self.bufs.cell_of, self.n as usize)?;
        Ok(Grid::from_parts(
            self.params.h,
            self.grid.origin,
            self.grid.dims,
            start,
            cell_of,
        ))
    }

    /// An empty CPU grid with the GPU grid's bounds (for the twins).
    #[cfg_attr(not(test), allow(dead_code))]
    pub fn empty_grid(&self) -> Grid {
        Grid::from_parts(
            self.params.h,
            self.grid.origin,
            self.grid.dims,
            Vec::new(),
            Vec::new(),
        )
    }

    /// The cell counts (after a grid build or a binning of body boundary particles, zero: the
    /// scatter counts them down).
    #[cfg_attr(not(test), allow(dead_code))]
    pub fn download_counts(&self) -> Result<Vec<u32>> {
        buffers::read(&self.ctx, &self.bufs.cell_count, self.ncells as usize + 1)
    }

    /// Pressures and near pressures of the last density pass (before the velocity update,
    /// which overwrites them).
    #[cfg_attr(not(test), allow(dead_code))]
    pub fn download_press(&self) -> Result<Vec<[f32; 2]>> {
        let v: Vec<[f32; 4]> =
            buffers::read(&self.ctx, &self.bufs.vel[self.cur.vel], self.n as usize)?;
        Ok(v.iter().map(|p| [p[0], p[1]]).collect())
    }

    /// The bodies' part of the kernel sums that the last density pass left with the pressures
    /// (zero away from every body), in slot order.
    #[cfg_attr(not(test), allow(dead_code))]
    pub fn download_body_sums(&self) -> Result<Vec<f32>> {
        let v: Vec<[f32; 4]> =
            buffers::read(&self.ctx, &self.bufs.vel[self.cur.vel], self.n as usize)?;
        Ok(v.iter().map(|p| p[2]).collect())
    }
}
