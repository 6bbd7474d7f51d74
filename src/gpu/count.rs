//! Cell counts (shaders/gpu/count.wgsl): an atomic increment per particle into counts that
//! the last scatter left clear.
use super::kernel::Kernel;
use super::split::SplitArrays;

/// The pass's pipeline.
#[derive(Debug)]
pub struct Count {
    /// Its kernel.
    pub kernel: Kernel,
}

impl Count {
    /// Compile the pass.
    pub fn new(device: &wgpu::Device) -> Count {
        let src = include_str!("../../shaders/gpu/count.wgsl");
        Count {
            kernel: Kernel::new(device, "count", src, true, 2, SplitArrays::NONE, &["main"]),
        }
    }

    /// Record the count of particles per cell into `count` (which must be clear).
    pub fn dispatch(
        &self,
        device: &wgpu::Device,
        pass: &mut wgpu::ComputePass<'_>,
        params: &wgpu::Buffer,
        cell_of: &wgpu::Buffer,
        count: &wgpu::Buffer,
        n: u32,
    ) {
        let g = self.kernel.bind(device, params, &[cell_of, count]);
        self.kernel.dispatch(pass, "main", &g, n);
    }
}

/// CPU twin: particles per cell, with one trailing zero (the GPU array's length).
pub fn cpu_twin(cell_of: &[u32], ncells: usize) -> Vec<u32> {
    let mut c = vec![0u32; ncells + 1];
    for &k in cell_of {
        c[k as usize] += 1;
    }
    c
}
