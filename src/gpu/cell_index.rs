//! Prediction, cell index and count (shaders/gpu/cell_index.wgsl): `x* = x + v dt` (after
//! `v += g dt`, in place, at `with_gravity`), the grid cell of `x*` and its count, one
//! invocation per particle.
use super::kernel::Kernel;
use super::split::{SplitArray, SplitArrays};
use crate::liquid::grid::Grid;
use glam::Vec3A;

/// The arrays of the pass bound in two parts (shaders/gpu/split.wgsl).
const SPLIT: &[SplitArray] = &[
    SplitArray::vec4("pos", 1),
    SplitArray::vec4("vel", 2),
    SplitArray::u32("cell_of", 3),
];

/// The pass's pipeline.
#[derive(Debug)]
pub struct CellIndex {
    /// Its kernel.
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
                5,
                SplitArrays {
                    arrays: SPLIT,
                    two_parts,
                },
                &["main", "with_gravity"],
            ),
        }
    }

    /// Record the pass: predicted positions over `vel`, cells into `cell_of`.
    #[allow(clippy::too_many_arguments)]
    pub fn dispatch(
        &self,
        device: &wgpu::Device,
        pass: &mut wgpu::ComputePass<'_>,
        entry: &str,
        params: &wgpu::Buffer,
        pos: &wgpu::Buffer,
        vel: &wgpu::Buffer,
        cell_of: &wgpu::Buffer,
        flags: &wgpu::Buffer,
        count: &wgpu::Buffer,
        n: u32,
    ) {
        let g = self
            .kernel
            .bind(device, params, &[pos, vel, cell_of, flags, count]);
        self.kernel.dispatch(pass, entry, &g, n);
    }
}

/// CPU twin: the predicted positions and their cells in `grid` (whose origin and dimensions
/// are the GPU grid's).
pub fn cpu_twin(pos: &[Vec3A], vel: &[Vec3A], dt: f32, grid: &Grid) -> (Vec<Vec3A>, Vec<u32>) {
    let pred: Vec<Vec3A> = pos.iter().zip(vel).map(|(x, v)| *x + *v * dt).collect();
    let cells = pred.iter().map(|&x| grid.cell_index(x)).collect();
    (pred, cells)
}
