//! Relaxation displacements (shaders/gpu/relaxation.wgsl), gathered per particle (Jacobi) into
//! the other position buffer; its `tiled` entry point reads the neighbours through workgroup
//! memory (tile.rs) in the same order; both add the walls' push (their ghosts,
//! WallKernel::push), and add the displacement over dt to the step's velocity; each wall's push
//! goes to the walls' loads (`wall_gather`).
use super::kernel::Access::{self, Read as R, ReadWrite as RW};
use super::kernel::Kernel;
use super::split::{SplitArray, SplitArrays};
use super::{bodies, ghosts, tile, wall_gather};
use crate::boundary::body_grid::BoundaryGrid;
use crate::boundary::wall_kernel::WallKernel;
use crate::boundary::{self, BodyImages, WallLoads, WallPairs};
use crate::liquid::grid::Grid;
use crate::liquid::neighbours::NeighbourLists;
use crate::liquid::{LiquidParams, relaxation, step};
use glam::Vec3A;

/// How the pass uses its storage buffers, binding 1 on (shaders/gpu/relaxation.wgsl).
pub(crate) const ACCESS: &[Access] = &[R, R, R, R, R, RW, R, RW, R, R, RW];

/// The arrays of the pass bound in two parts (shaders/gpu/split.wgsl).
pub(crate) const SPLIT: &[SplitArray] = &[
    SplitArray::vec4("pos", 1),
    SplitArray::u32("cell_of", 2),
    SplitArray::vec4("press", 5),
    SplitArray::vec4("pos_out", 6),
    SplitArray::vec4("vel", 8),
];

/// The pass's shader: its file with the tiles' segment helpers (tile.wgsl), the walls' ghost
/// walk (ghosts.wgsl), the bodies' gather (bodies.wgsl) and the walls' loads gather
/// (wall_gather.wgsl) appended.
pub fn source() -> String {
    format!(
        "{}\n{}\n{}\n{}\n{}",
        include_str!("../../shaders/gpu/relaxation.wgsl"),
        tile::WGSL,
        ghosts::WGSL,
        bodies::WGSL,
        wall_gather::WGSL
    )
}

/// The pass's pipeline.
#[derive(Debug)]
pub struct Relaxation {
    /// Its kernel, with the bind groups it keeps (binding.rs).
    pub kernel: Kernel,
}

impl Relaxation {
    /// Compile the pass, its per-particle arrays in two parts each when `two_parts`.
    pub fn new(device: &wgpu::Device, two_parts: bool) -> Relaxation {
        let src = source();
        Relaxation {
            kernel: Kernel::new(
                device,
                "relaxation",
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

    /// Record the pass: `pos_out = pos + dx` and `vel += dx / dt` (the step's velocity, in
    /// place), with the kept bind group `group` (binding.rs: the buffers of a cursor state, in
    /// the order of shaders/gpu/relaxation.wgsl); tiled over `tiled` segment workgroups
    /// (tile.rs) where given.
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

/// CPU twin: the CPU backend's displacements over the same grid, the walls' push added (where
/// the bodies' kernel sum `body` is above zero, from the ghosts whose mirror image lies outside
/// the bodies `bodies` binned on `grid`), applied as the CPU step applies them: the positions
/// moved and the step's velocities `vel` (moved by `dx / dt`) returned. With `loads`, each
/// wall's push on each particle goes to the walls' loads, as the CPU step gathers them.
#[allow(clippy::too_many_arguments)]
#[cfg_attr(not(test), allow(dead_code))]
pub fn cpu_twin(
    pos: &[Vec3A],
    vel: &[Vec3A],
    phase: &[u32],
    grid: &Grid,
    params: &LiquidParams,
    press: &[[f32; 2]],
    body: &[f32],
    bodies: &BoundaryGrid,
    dt: f32,
    loads: Option<&mut WallLoads>,
) -> (Vec<Vec3A>, Vec<Vec3A>) {
    let mut lists = NeighbourLists::default();
    lists.build(pos, grid, params.h);
    let mut dx = vec![Vec3A::ZERO; pos.len()];
    let walls = params.boundary.pushing_walls();
    let k = WallKernel::new(params.spacing, params.h);
    let hs = params.spacing / 2.0;
    let g = params.gravity / params.relaxation_passes.max(1) as f32;
    let mut sums = vec![Vec3A::ZERO; pos.len()];
    let pairs = walls.map(|w| (WallPairs::new(w, &k, hs, g), &mut sums[..]));
    relaxation::displacements(pos, phase, &lists, params, press, dt, true, pairs, &mut dx);
    if let Some(w) = walls {
        let images = BodyImages {
            grid,
            bodies,
            inside: 0.5 * params.rho0,
            h: params.h,
        };
        let mass: Vec<f32> = params.phases.iter().map(|p| p.mass).collect();
        let masses = boundary::Masses { phase, mass: &mass };
        let loads = loads.map(|l| (l, masses));
        boundary::add_ghost_pressure(
            pos, press, body, w, &k, hs, g, dt, &sums, images, &mut dx, loads,
        );
    }
    let (mut out, mut v) = (pos.to_vec(), vel.to_vec());
    step::displace(&mut out, &mut v, &dx, 1.0 / dt);
    (out, v)
}
