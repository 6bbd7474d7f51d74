//! Scatter and sort by (cell, id) (shaders/gpu/scatter.wgsl): atomic slots within each cell
//! (each cell's count counted down to zero, which clears the counts for the next build), then
//! per cell an insertion sort by id, so the order is exactly the CPU grid's, and a gather of
//! the predicted state into that order (predicted positions, and the velocities into the
//! start-of-step buffer, where the relaxation adds its displacements over dt to them).
use super::kernel::Access::{self, Read as R, ReadWrite as RW};
use super::kernel::Kernel;
use super::split::{SplitArray, SplitArrays};
use crate::liquid::Particles;
use crate::liquid::grid::Grid;
use glam::Vec3A;

/// How the pass uses its storage buffers, binding 1 on (shaders/gpu/scatter.wgsl).
pub(crate) const ACCESS: &[Access] = &[RW, R, RW, RW, R, R, R, RW, RW, RW];

/// The arrays of the pass bound in two parts (shaders/gpu/split.wgsl).
pub(crate) const SPLIT: &[SplitArray] = &[
    SplitArray::u32("cell_of", 1),
    SplitArray::u32("perm", 4),
    SplitArray::u32("id_in", 5),
    SplitArray::vec4("pos_in", 6),
    SplitArray::vec4("vel_in", 7),
    SplitArray::vec4("pos_out", 8),
    SplitArray::vec4("vel_out", 9),
    SplitArray::u32("id_out", 10),
];

/// The pass's pipelines (`scatter`, `sort_gather`).
#[derive(Debug)]
pub struct Scatter {
    /// Its kernel, with the bind groups it keeps (binding.rs).
    pub kernel: Kernel,
}

/// The buffers the scatter reads and writes.
#[derive(Debug)]
pub struct ScatterBuffers<'a> {
    /// Cell of each unsorted particle (of each slot afterwards).
    pub cell_of: &'a wgpu::Buffer,
    /// Cell starts.
    pub cell_start: &'a wgpu::Buffer,
    /// The cells' counts, counted down to zero as cursors.
    pub cursor: &'a wgpu::Buffer,
    /// Permutation.
    pub perm: &'a wgpu::Buffer,
    /// Ids before the sort.
    pub id_in: &'a wgpu::Buffer,
    /// Positions before the step.
    pub pos_in: &'a wgpu::Buffer,
    /// Velocities before the sort (the prediction's).
    pub vel_in: &'a wgpu::Buffer,
    /// Sorted predicted positions `x + v dt`.
    pub pos_out: &'a wgpu::Buffer,
    /// Sorted velocities.
    pub vel_out: &'a wgpu::Buffer,
    /// Sorted ids.
    pub id_out: &'a wgpu::Buffer,
}

impl Scatter {
    /// Compile the pass, its per-particle arrays in two parts each when `two_parts`.
    pub fn new(device: &wgpu::Device, two_parts: bool) -> Scatter {
        let src = include_str!("../../shaders/gpu/scatter.wgsl");
        Scatter {
            kernel: Kernel::new(
                device,
                "scatter",
                src,
                true,
                ACCESS,
                SplitArrays {
                    arrays: SPLIT,
                    two_parts,
                },
                &["scatter", "sort_gather"],
            ),
        }
    }

    /// Make the pass's bind groups, one per set of buffers in `sets` (binding.rs: one per
    /// cursor state), replacing those it held.
    pub fn bind<'a>(
        &mut self,
        device: &wgpu::Device,
        params: &wgpu::Buffer,
        sets: impl IntoIterator<Item = ScatterBuffers<'a>>,
    ) {
        let lists = sets.into_iter().map(|b| {
            vec![
                b.cell_of,
                b.cell_start,
                b.cursor,
                b.perm,
                b.id_in,
                b.pos_in,
                b.vel_in,
                b.pos_out,
                b.vel_out,
                b.id_out,
            ]
        });
        self.kernel.rebind(device, params, lists);
    }

    /// Record the scatter, then per cell the sort and the gather, with the kept bind group
    /// `group`.
    pub fn dispatch(&self, pass: &mut wgpu::ComputePass<'_>, group: usize, n: u32, ncells: u32) {
        let (k, g) = (&self.kernel, self.kernel.group(group));
        k.dispatch(pass, "scatter", g, n);
        k.dispatch(pass, "sort_gather", g, ncells);
    }
}

/// CPU twin of the whole grid build (prediction, cells, counts, prefix sum, scatter, sort by
/// (cell, id)): `prev` takes the positions, `pos` the predicted ones, then the CPU grid's
/// counting sort over the same origin and dimensions reorders everything. (The GPU gathers
/// the velocities into its start-of-step buffer, the twin's `vel`.)
#[cfg_attr(not(test), allow(dead_code))]
pub fn cpu_twin(p: &mut Particles, dt: f32, grid: &mut Grid) {
    p.prev.clone_from(&p.pos);
    for (x, v) in p.pos.iter_mut().zip(&p.vel) {
        *x += *v * dt;
    }
    let (origin, dims): (Vec3A, [u32; 3]) = (grid.origin(), grid.dims());
    grid.build_in(p, origin, dims);
}
