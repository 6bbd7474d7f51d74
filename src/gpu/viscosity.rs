//! Viscosity impulses (shaders/gpu/viscosity.wgsl), gathered per particle into the other
//! velocity buffer; its `tiled` entry points read the neighbours through workgroup memory
//! (tile.rs) in the same order.
use super::kernel::Kernel;
use super::split::{SplitArray, SplitArrays};
use super::tile;
use crate::liquid::grid::Grid;
use crate::liquid::neighbours::NeighbourLists;
use crate::liquid::{LiquidParams, Particles, viscosity};
use glam::Vec3A;

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
    /// Its kernel.
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
                6,
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
    /// (tile.rs) where given.
    #[allow(clippy::too_many_arguments)]
    pub fn dispatch(
        &self,
        device: &wgpu::Device,
        pass: &mut wgpu::ComputePass<'_>,
        entry: &str,
        params: &wgpu::Buffer,
        pos: &wgpu::Buffer,
        cell_of: &wgpu::Buffer,
        cell_start: &wgpu::Buffer,
        phases: &wgpu::Buffer,
        vel: &wgpu::Buffer,
        vel_out: &wgpu::Buffer,
        n: u32,
        tiled: Option<u32>,
    ) {
        let g = self.kernel.bind(
            device,
            params,
            &[pos, cell_of, cell_start, phases, vel, vel_out],
        );
        match (tiled, entry) {
            (Some(groups), "main") => self.kernel.dispatch_groups(pass, "tiled", &g, groups),
            (Some(groups), _) => {
                self.kernel
                    .dispatch_groups(pass, "tiled_with_gravity", &g, groups)
            }
            (None, _) => self.kernel.dispatch(pass, entry, &g, n),
        }
    }
}

/// CPU twin: the CPU backend's viscosity impulses over the same grid, applied.
pub fn cpu_twin(p: &Particles, grid: &Grid, params: &LiquidParams, dt: f32) -> Vec<Vec3A> {
    let mut lists = NeighbourLists::default();
    lists.build(&p.pos, grid, params.h);
    let mut dv = vec![Vec3A::ZERO; p.len()];
    viscosity::viscosity_dv(p, &lists, params, dt, &mut dv);
    p.vel.iter().zip(&dv).map(|(v, d)| *v + *d).collect()
}
