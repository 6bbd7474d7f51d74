//! Putting the liquid's state on the device: the particles (any number up to the solver's
//! capacity, which sets the count the next steps run), a checkpoint's grid, and each step's
//! body boundary particles. Uploads write into the buffers made at setup; only the body
//! boundary particles' buffers grow, when more of them come than were ever uploaded.
use super::GpuLiquidSolver;
use super::buffers::BoundaryBuffers;
use super::prefix_sum;
use super::solver::Cursor;
use crate::boundary::body_grid::BoundaryParticles;
use crate::liquid::Particles;
use crate::{Error, Result};

impl GpuLiquidSolver {
    /// Copy particles to the GPU (in any order; the next grid build sorts them): any number
    /// up to the capacity, which becomes the solver's count. No buffer is made: the next step
    /// builds its grid afresh, as the first step does.
    pub fn upload(&mut self, p: &Particles) -> Result<()> {
        if p.len() > self.capacity as usize {
            return Err(Error::Run(format!(
                "the liquid grew to {} particles, past the {} the GPU solver set aside at setup",
                p.len(),
                self.capacity
            )));
        }
        let n = p.len() as u32;
        if n != self.n {
            self.n = n;
            self.write_params(self.dt);
        }
        self.cur = Cursor::default();
        // Each array through one host scratch buffer kept from upload to upload (the queue
        // copies what it is given at once).
        let (q, b, host) = (&self.ctx.queue, &self.bufs, &mut self.host_vec4);
        let mut put = |buf: &wgpu::Buffer, v: &mut dyn Iterator<Item = [f32; 4]>| {
            host.clear();
            host.extend(v);
            if !host.is_empty() {
                q.write_buffer(buf, 0, bytemuck::cast_slice(host));
            }
        };
        let xw = |(x, &ph): (&glam::Vec3A, &u32)| [x.x, x.y, x.z, ph as f32];
        put(&b.pos[0], &mut p.pos.iter().zip(&p.phase).map(xw));
        put(&b.vel[1], &mut p.prev.iter().zip(&p.phase).map(xw));
        put(
            &b.vel[0],
            &mut p
                .vel
                .iter()
                .zip(&p.rho)
                .map(|(v, &rho)| [v.x, v.y, v.z, rho]),
        );
        if n > 0 {
            q.write_buffer(&b.id[0], 0, bytemuck::cast_slice(&p.id));
        }
        q.write_buffer(&b.flags, 0, &[0u8; 16]);
        self.has_grid = false;
        self.uploaded = true;
        Ok(())
    }

    /// Put up a grid that [`GpuLiquidSolver::download_grid_state`] gave, for the particles just
    /// uploaded in the order it gave them: the next step's viscosity walks it instead of a
    /// grid rebuilt from the current positions, as an unbroken run does.
    pub fn upload_grid(&mut self, cell_of: &[u32], cell_start: &[u32]) -> Result<()> {
        if cell_of.len() != self.n as usize || cell_start.len() != self.ncells as usize + 1 {
            return Err(Error::input(format!(
                "checkpoint.bin: its GPU grid has {} particles and {} cells, the scene {} and {}; fix: start the run over with --overwrite",
                cell_of.len(),
                cell_start.len().saturating_sub(1),
                self.n,
                self.ncells
            )));
        }
        if self.n > 0 {
            let q = &self.ctx.queue;
            q.write_buffer(&self.bufs.cell_of, 0, bytemuck::cast_slice(cell_of));
            q.write_buffer(&self.bufs.cell_start, 0, bytemuck::cast_slice(cell_start));
            self.has_grid = true;
        }
        Ok(())
    }

    /// Upload this step's body boundary particles (world positions and weights, in the CPU's
    /// order); the next density pass bins them first. Buffers are allocated on the first
    /// upload of any, so a scene without bodies has none.
    pub fn set_boundary(&mut self, b: &BoundaryParticles) -> Result<()> {
        let nb = u32::try_from(b.len())
            .map_err(|_| Error::input("more than 2^32 body boundary particles"))?;
        let grown = nb as u64 > self.boundary.capacity;
        if grown {
            self.boundary = BoundaryBuffers::new(&self.ctx, nb as u64, self.ncells as u64)?;
            self.boundary_prefix = Some(prefix_sum::PrefixSum::new(
                &self.ctx,
                &self.bufs.cell_count,
                &self.boundary.cell_start,
                self.ncells + 1,
            )?);
            self.bind_boundary();
        }
        if nb > 0 {
            let data: Vec<[f32; 4]> = b
                .pos
                .iter()
                .zip(&b.weight)
                .map(|(x, &w)| [x.x, x.y, x.z, w])
                .collect();
            self.ctx
                .queue
                .write_buffer(&self.boundary.input, 0, bytemuck::cast_slice(&data));
        }
        if grown || nb != self.n_boundary {
            self.n_boundary = nb;
            self.write_params(self.dt);
        }
        self.boundary_binned = nb == 0;
        Ok(())
    }
}
