//! The body boundary particles binned into the liquid grid's cells (shaders/gpu/boundary_grid.wgsl):
//! their cells, then the liquid's `count` and `prefix_sum` passes into a cell-start buffer of
//! their own, then a scatter, a per-cell sort by index and a gather, so the order is (cell,
//! index) exactly as the CPU's [`BoundaryGrid`]. The density pass gathers from it.
use super::kernel::Access::{self, Read as R, ReadWrite as RW};
use super::kernel::Kernel;
use super::split::SplitArrays;
use crate::boundary::body_grid::{BoundaryGrid, BoundaryParticles};
use crate::liquid::grid::Grid;

/// How the pass uses its storage buffers, binding 1 on (shaders/gpu/boundary_grid.wgsl).
pub(crate) const ACCESS: &[Access] = &[R, RW, R, RW, RW, RW];

/// The pass's pipelines (`cell_index`, `scatter`, `sort_cells`, `gather`).
#[derive(Debug)]
pub struct BoundaryGridPass {
    /// Its kernel, with the bind groups it keeps (binding.rs).
    pub kernel: Kernel,
}

/// The buffers the binning reads and writes.
#[derive(Debug)]
pub struct BoundaryGridBuffers<'a> {
    /// Positions (w: weight) as uploaded.
    pub input: &'a wgpu::Buffer,
    /// Cell of each uploaded particle.
    pub cell_of: &'a wgpu::Buffer,
    /// Cell starts (the prefix sum of the counts).
    pub cell_start: &'a wgpu::Buffer,
    /// The cells' counts, counted down to zero as cursors by the scatter.
    pub cursor: &'a wgpu::Buffer,
    /// Permutation: slot -> uploaded index.
    pub perm: &'a wgpu::Buffer,
    /// Positions and weights in (cell, index) order.
    pub sorted: &'a wgpu::Buffer,
}

impl BoundaryGridPass {
    /// Compile the pass.
    pub fn new(device: &wgpu::Device) -> BoundaryGridPass {
        let src = include_str!("../../shaders/gpu/boundary_grid.wgsl");
        BoundaryGridPass {
            kernel: Kernel::new(
                device,
                "boundary_grid",
                src,
                true,
                ACCESS,
                SplitArrays::NONE,
                &["cell_index", "scatter", "sort_cells", "gather"],
            ),
        }
    }

    /// Make the pass's bind group over `b` with the uniform `params`, replacing the one it held
    /// (when the solver is set up, and when the body boundary particles' buffers grow).
    pub fn bind(
        &mut self,
        device: &wgpu::Device,
        params: &wgpu::Buffer,
        b: &BoundaryGridBuffers<'_>,
    ) {
        let list = vec![b.input, b.cell_of, b.cell_start, b.cursor, b.perm, b.sorted];
        self.kernel.rebind(device, params, [list]);
    }

    /// Record the cell of each of the `n` particles (`params.n` must be `n`).
    pub fn dispatch_cells(&self, pass: &mut wgpu::ComputePass<'_>, n: u32) {
        let k = &self.kernel;
        k.dispatch(pass, "cell_index", k.group(0), n);
    }

    /// Record scatter, per-cell sort and gather (after the counts' prefix sum).
    pub fn dispatch_sort(&self, pass: &mut wgpu::ComputePass<'_>, n: u32, ncells: u32) {
        let (k, g) = (&self.kernel, self.kernel.group(0));
        k.dispatch(pass, "scatter", g, n);
        k.dispatch(pass, "sort_cells", g, ncells);
        k.dispatch(pass, "gather", g, n);
    }
}

/// CPU twin: the CPU backend's binning into a grid with the GPU grid's bounds.
#[cfg_attr(not(test), allow(dead_code))]
pub fn cpu_twin(grid: &Grid, boundary: &BoundaryParticles) -> BoundaryGrid {
    let mut b = BoundaryGrid::default();
    b.build(grid, boundary);
    b
}
