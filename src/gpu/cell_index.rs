//! Prediction, cell index and count (shaders/gpu/cell_index.wgsl): `x* = x + v dt` (after
//! `v += g dt`, in place, at `with_gravity`), the grid cell of `x*` and its count, one
//! invocation per particle.
use super::kernel::Access::{self, Read as R, ReadWrite as RW};
use super::kernel::Kernel;
use super::split::{SplitArray, SplitArrays};
use crate::liquid::grid::Grid;
use glam::Vec3A;

/// How the pass uses its storage buffers, binding 1 on (shaders/gpu/cell_index.wgsl).
pub(crate) const ACCESS: &[Access] = &[R, RW, RW, RW, RW];

/// The arrays of the pass bound in two parts (shaders/gpu/split.wgsl).
pub(crate) const SPLIT: &[SplitArray] = &[
    SplitArray::vec4("pos", 1),
    SplitArray::vec4("vel", 2),
    SplitArray::u32("cell_of", 3),
];

/// The pass's pipeline.
#[derive(Debug)]
pub struct CellIndex {
    /// Its kernel, with the bind groups it keeps (binding.rs).
    pub kernel: Kernel,
}

impl CellIndex {
    /// Compile the pass, its per-particle arrays in two parts each when `two_parts`.
    pub fn new(device: &wgpu::Device, two_parts: bool) -> CellIndex {
        let src = include_str!("../../shaders/gpu/cell_index.wgsl");
        CellIndex {
            kernel: Kernel::new(
                device,
                "cell_index",
                src,
                true,
                ACCESS,
                SplitArrays {
                    arrays: SPLIT,
                    two_parts,
                },
                &["main", "with_gravity"],
            ),
        }
    }

    /// Record the pass at `entry`: predicted positions over `vel`, cells into `cell_of`, with
    /// the kept bind group `group` (binding.rs: the buffers of a cursor state).
    pub fn dispatch(&self, pass: &mut wgpu::ComputePass<'_>, entry: &str, group: usize, n: u32) {
        let k = &self.kernel;
        k.dispatch(pass, entry, k.group(group), n);
    }
}

/// CPU twin: the predicted positions and their cells in `grid` (whose origin and dimensions
/// are the GPU grid's).
#[cfg_attr(not(test), allow(dead_code))]
pub fn cpu_twin(pos: &[Vec3A], vel: &[Vec3A], dt: f32, grid: &Grid) -> (Vec<Vec3A>, Vec<u32>) {
    let pred: Vec<Vec3A> = pos.iter().zip(vel).map(|(x, v)| *x + *v * dt).collect();
    let cells = pred.iter().map(|&x| grid.cell_index(x)).collect();
    (pred, cells)
}
