//! Kernel sums and pressures (shaders/gpu/density.wgsl), looping the 27 cells around each
//! particle with the x-rows contiguous, as the CPU grid does.
use super::kernel::Kernel;
use crate::liquid::grid::Grid;
use crate::liquid::neighbours::NeighbourLists;
use crate::liquid::{LiquidParams, relaxation};
use glam::Vec3A;

/// The pass's pipeline.
#[derive(Debug)]
pub struct Density {
    /// Its kernel.
    pub kernel: Kernel,
}

impl Density {
    /// Compile the pass.
    pub fn new(device: &wgpu::Device) -> Density {
        let src = include_str!("../../shaders/gpu/density.wgsl");
        Density {
            kernel: Kernel::new(device, "density", src, true, 6, &["main"]),
        }
    }

    /// Record the pass: `rho` and `press` of every slot.
    #[allow(clippy::too_many_arguments)]
    pub fn dispatch(
        &self,
        device: &wgpu::Device,
        pass: &mut wgpu::ComputePass<'_>,
        params: &wgpu::Buffer,
        pos: &wgpu::Buffer,
        cell_of: &wgpu::Buffer,
        cell_start: &wgpu::Buffer,
        phases: &wgpu::Buffer,
        rho: &wgpu::Buffer,
        press: &wgpu::Buffer,
        n: u32,
    ) {
        let g = self.kernel.bind(
            device,
            params,
            &[pos, cell_of, cell_start, phases, rho, press],
        );
        self.kernel.dispatch(pass, "main", &g, n);
    }
}

/// CPU twin: the CPU backend's kernel sums and pressures over the same grid (neighbour lists
/// gathered from it in the same order).
pub fn cpu_twin(
    pos: &[Vec3A],
    phase: &[u32],
    grid: &Grid,
    params: &LiquidParams,
) -> (Vec<f32>, Vec<[f32; 2]>) {
    let n = pos.len();
    let mut lists = NeighbourLists::default();
    lists.build(pos, grid, params.h);
    let (mut rho, mut near, mut press) = (vec![0.0; n], vec![0.0; n], vec![[0.0; 2]; n]);
    relaxation::densities(pos, &lists, params.h, &mut rho, &mut near);
    relaxation::pressures(phase, params, &rho, &near, &mut press);
    (rho, press)
}
