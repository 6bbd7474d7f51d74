//! Viscosity impulses (shaders/gpu/viscosity.wgsl), gathered per particle into the other
//! velocity buffer; its `tiled` entry points read the neighbours through workgroup memory
//! (tile.rs) in the same order.
use super::kernel::Access::{self, Read as R, ReadWrite as RW};
use super::kernel::Kernel;
use super::split::{SplitArray, SplitArrays};
use super::tile;
use crate::liquid::grid::Grid;
use crate::liquid::neighbours::NeighbourLists;
use crate::liquid::{LiquidParams, Particles, viscosity};
use glam::Vec3A;

/// How the pass uses its storage buffers, binding 1 on (shaders/gpu/viscosity.wgsl).
pub(crate) const ACCESS: &[Access] = &[R, R, R, R, R, RW];

/// The arrays of the pass bound in two parts (shaders/gpu/split.wgsl).
pub(crate) const SPLIT: &[SplitArray] = &[
    SplitArray::vec4("pos", 1),
    SplitArray::u32("cell_of", 2),
    SplitArray::vec4("vel", 5),
    SplitArray::vec4("vel_out", 6),
];

/// The pass's shader: its file with the tiles' segment helpers (tile.wgsl) appended.
pub fn source() -> String {
    format!(
        "{}\n{}",
        include_str!("../../shaders/gpu/viscosity.wgsl"),
        tile::WGSL
    )
}

/// The pass's pipeline.
#[derive(Debug)]
pub struct Viscosity {
    /// Its kernel, with the bind groups it keeps (binding.rs).
    pub kernel: Kernel,
}

impl Viscosity {
    /// Compile the pass, its per-particle arrays in two parts each when `two_parts`.
    pub fn new(device: &wgpu::Device, two_parts: bool) -> Viscosity {
        let src = source();
        Viscosity {
            kernel: Kernel::new(
                device,
                "viscosity",
                &src,
                true,
                ACCESS,
                SplitArrays {
                    arrays: SPLIT,
                    two_parts,
                },
                &["main", "with_gravity", "tiled", "tiled_with_gravity"],
            ),
        }
    }

    /// Record the pass at `entry`: `vel_out = vel + dv` (`main`), or with the step's gravity
    /// added to every velocity first (`with_gravity`); tiled over `tiled` segment workgroups
    /// (tile.rs) where given; with the kept bind group `group` (binding.rs: the buffers of a
    /// cursor state).
    pub fn dispatch(
        &self,
        pass: &mut wgpu::ComputePass<'_>,
        entry: &str,
        group: usize,
        n: u32,
        tiled: Option<u32>,
    ) {
        let (k, g) = (&self.kernel, self.kernel.group(group));
        match (tiled, entry) {
            (Some(groups), "main") => k.dispatch_groups(pass, "tiled", g, groups),
            (Some(groups), _) => k.dispatch_groups(pass, "tiled_with_gravity", g, groups),
            (None, _) => k.dispatch(pass, entry, g, n),
        }
    }
}

/// CPU twin: the CPU backend's viscosity impulses over the same grid, applied.
#[cfg_attr(not(test), allow(dead_code))]
pub fn cpu_twin(p: &Particles, grid: &Grid, params: &LiquidParams, dt: f32) -> Vec<Vec3A> {
    let mut lists = NeighbourLists::default();
    lists.build(&p.pos, grid, params.h);
    let mut dv = vec![Vec3A::ZERO; p.len()];
    viscosity::viscosity_dv(p, &lists, params, dt, &mut dv);
    p.vel.iter().zip(&dv).map(|(v, d)| *v + *d).collect()
}
