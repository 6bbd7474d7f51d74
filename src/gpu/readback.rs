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
    #[cfg_attr(not(test), allow(dead_code))]
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

    /// [`GpuLiquidSolver::download`] into `out`, its arrays reused (no allocation once they
    /// hold the capacity), through one staging buffer kept from call to call: one submission
    /// and one wait, however often the particles come down (each edit of the particles, each
    /// frame). On a flagged step it fails and leaves `out` as it was.
    pub fn download_into(&mut self, out: &mut Particles) -> Result<()> {
        let n = self.n as u64;
        // The flags, then the positions, start-of-step positions, velocities and ids.
        let size = |n: u64| 16 + n * (3 * buffers::VEC4 + 4);
        if self.staging.is_none() {
            self.staging = Some(self.ctx.device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("particle download"),
                size: size(self.capacity as u64),
                usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
                mapped_at_creation: false,
            }));
        }
        let staging = self.staging.as_ref().expect("made above");
        let b = &self.bufs;
        let c = self.cur;
        let mut enc = self.ctx.device.create_command_encoder(&Default::default());
        enc.copy_buffer_to_buffer(&b.flags, 0, staging, 0, 16);
        let parts = [
            (&b.pos[c.pos], buffers::VEC4),
            (&b.vel[1 - c.vel], buffers::VEC4),
            (&b.vel[c.vel], buffers::VEC4),
            (&b.id[c.id], 4),
        ];
        let mut at = 16;
        for (buf, element) in parts {
            if n > 0 {
                enc.copy_buffer_to_buffer(buf, 0, staging, at, n * element);
            }
            at += n * element;
        }
        self.ctx.queue.submit([enc.finish()]);
        let flags = buffers::map_read(&self.ctx, staging, size(n), |bytes| {
            let (flags, rest) = bytes.split_at(16);
            let flags = bytemuck::pod_read_unaligned::<u32>(&flags[..4]);
            if self.flag_error(flags).is_err() {
                // `out` keeps the particles it held.
                return flags;
            }
            let n = n as usize;
            let (pos, rest) = rest.split_at(n * 16);
            let (prev, rest) = rest.split_at(n * 16);
            let (vel, id) = rest.split_at(n * 16);
            let vec4 = |b: &[u8]| bytemuck::pod_read_unaligned::<[f32; 4]>(b);
            let xyz = |v: [f32; 4]| Vec3A::new(v[0], v[1], v[2]);
            out.pos.clear();
            out.phase.clear();
            for v in pos.chunks_exact(16).map(vec4) {
                out.pos.push(xyz(v));
                out.phase.push(v[3] as u32);
            }
            out.prev.clear();
            out.prev.extend(prev.chunks_exact(16).map(|b| xyz(vec4(b))));
            out.vel.clear();
            out.rho.clear();
            for v in vel.chunks_exact(16).map(vec4) {
                out.vel.push(xyz(v));
                out.rho.push(v[3]);
            }
            out.id.clear();
            out.id
                .extend(id.chunks_exact(4).map(bytemuck::pod_read_unaligned::<u32>));
            flags
        })?;
        self.flag_error(flags)
    }

    /// Fail if a pass flagged a non-finite position or (without a container) a particle
    /// outside the grid.
    #[cfg_attr(not(test), allow(dead_code))]
    pub fn check_flags(&self) -> Result<()> {
        let f: Vec<u32> = buffers::read(&self.ctx, &self.bufs.flags, 1)?;
        self.flag_error(f[0])
    }

    /// The error the flags `f` raise, if any.
    fn flag_error(&self, f: u32) -> Result<()> {
        if f & 1 != 0 {
            return Err(Error::Run(
                "a liquid particle's position is not finite (NaN or infinity): the step is \
                 unstable; lower time.substeps' step (raise substeps) or the stiffness"
                    .into(),
            ));
        }
        if f & 2 != 0 && !self.grid.container {
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
