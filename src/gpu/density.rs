//! Kernel sums and pressures (shaders/gpu/density.wgsl), looping the 27 cells around each
//! particle with the x-rows contiguous, as the CPU grid does; the boundary's sums (body
//! boundary particles gathered from their own bins in the same cells, and the walls' table)
//! are added in the CPU's order. Its `tiled` entry point reads the liquid's neighbours through
//! workgroup memory (tile.rs) in the same order.
use super::kernel::Access::{self, Read as R, ReadWrite as RW};
use super::kernel::Kernel;
use super::split::{SplitArray, SplitArrays};
use super::{bodies, ghosts, tile};
use crate::boundary;
use crate::boundary::body_grid::{BoundaryGrid, BoundaryParticles};
use crate::boundary::wall_kernel::WallKernel;
use crate::liquid::grid::Grid;
use crate::liquid::neighbours::NeighbourLists;
use crate::liquid::{LiquidParams, relaxation};
use glam::Vec3A;

/// How the pass uses its storage buffers, binding 1 on (shaders/gpu/density.wgsl).
pub(crate) const ACCESS: &[Access] = &[R, R, R, R, RW, R, R, R];

/// The arrays of the pass bound in two parts (shaders/gpu/split.wgsl).
pub(crate) const SPLIT: &[SplitArray] = &[
    SplitArray::vec4("pos", 1),
    SplitArray::u32("cell_of", 2),
    SplitArray::vec4("press", 5),
];

/// The pass's shader: its file with the tiles' segment helpers (tile.wgsl) and the walls' ghost
/// walk (ghosts.wgsl) appended.
pub fn source() -> String {
    format!(
        "{}\n{}\n{}\n{}",
        include_str!("../../shaders/gpu/density.wgsl"),
        tile::WGSL,
        ghosts::WGSL,
        bodies::WGSL
    )
}

/// The pass's pipeline.
#[derive(Debug)]
pub struct Density {
    /// Its kernel, with the bind groups it keeps (binding.rs).
    pub kernel: Kernel,
}

/// The buffers the density pass reads and writes.
#[derive(Debug)]
pub struct DensityBuffers<'a> {
    /// Positions (w: phase).
    pub pos: &'a wgpu::Buffer,
    /// Cell of each slot.
    pub cell_of: &'a wgpu::Buffer,
    /// The liquid's cell starts.
    pub cell_start: &'a wgpu::Buffer,
    /// Per-phase constants.
    pub phases: &'a wgpu::Buffer,
    /// Pressure, near pressure, 0 and kernel sum per particle (out).
    pub press: &'a wgpu::Buffer,
    /// The walls' kernel-sum table (`wall_samples + 1` pairs).
    pub wall_table: &'a wgpu::Buffer,
    /// The body boundary particles' cell starts.
    pub boundary_start: &'a wgpu::Buffer,
    /// The body boundary particles in (cell, index) order (w: weight).
    pub boundary: &'a wgpu::Buffer,
}

impl Density {
    /// Compile the pass, its per-particle arrays in two parts each when `two_parts`.
    pub fn new(device: &wgpu::Device, two_parts: bool) -> Density {
        let src = source();
        Density {
            kernel: Kernel::new(
                device,
                "density",
                &src,
                true,
                ACCESS,
                SplitArrays {
                    arrays: SPLIT,
                    two_parts,
                },
                &["main", "tiled"],
            ),
        }
    }

    /// Make the pass's bind groups, one per set of buffers in `sets` (binding.rs: one per
    /// cursor state), replacing those it held.
    pub fn bind<'a>(
        &mut self,
        device: &wgpu::Device,
        params: &wgpu::Buffer,
        sets: impl IntoIterator<Item = DensityBuffers<'a>>,
    ) {
        let lists = sets.into_iter().map(|b| {
            vec![
                b.pos,
                b.cell_of,
                b.cell_start,
                b.phases,
                b.press,
                b.wall_table,
                b.boundary_start,
                b.boundary,
            ]
        });
        self.kernel.rebind(device, params, lists);
    }

    /// Record the pass with the kept bind group `group`: `press` (pressures and kernel sum) of
    /// every slot; tiled over `tiled` segment workgroups (tile.rs) where given.
    pub fn dispatch(
        &self,
        pass: &mut wgpu::ComputePass<'_>,
        group: usize,
        n: u32,
        tiled: Option<u32>,
    ) {
        let (k, g) = (&self.kernel, self.kernel.group(group));
        match tiled {
            Some(groups) => k.dispatch_groups(pass, "tiled", g, groups),
            None => k.dispatch(pass, "main", g, n),
        }
    }
}

/// CPU twin: the CPU backend's kernel sums (boundary included: walls, and `bodies` binned into
/// the same grid) and pressures over the same grid (neighbour lists gathered from it in the
/// same order).
#[cfg_attr(not(test), allow(dead_code))]
pub fn cpu_twin(
    pos: &[Vec3A],
    phase: &[u32],
    grid: &Grid,
    params: &LiquidParams,
    bodies: &BoundaryParticles,
) -> (Vec<f32>, Vec<[f32; 2]>) {
    let n = pos.len();
    let mut lists = NeighbourLists::default();
    lists.build(pos, grid, params.h);
    let mut bins = BoundaryGrid::default();
    bins.build(grid, bodies);
    let table = WallKernel::new(params.spacing, params.h);
    let (mut rho, mut near, mut press) = (vec![0.0; n], vec![0.0; n], vec![[0.0; 2]; n]);
    relaxation::densities(
        pos,
        &lists,
        params.h,
        &mut rho,
        &mut near,
        &mut vec![[0.0; 2]; n],
    );
    boundary::add_boundary_sums(
        pos,
        grid,
        params.h,
        params.boundary.walls.as_ref().map(|w| (w, &table)),
        params.boundary.ghost_pressure,
        params.spacing / 2.0,
        &bins,
        &mut rho,
        &mut near,
        &mut vec![0.0; n],
    );
    relaxation::pressures(phase, params, &rho, &near, &mut press);
    (rho, press)
}
