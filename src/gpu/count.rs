//! Cell counts (shaders/gpu/count.wgsl): an atomic increment per particle into counts that
//! the last scatter left clear.
use super::kernel::Access::{self, Read as R, ReadWrite as RW};
use super::kernel::Kernel;
use super::split::SplitArrays;

/// How the pass uses its storage buffers, binding 1 on (shaders/gpu/count.wgsl).
pub(crate) const ACCESS: &[Access] = &[R, RW];

/// The pass's pipeline.
#[derive(Debug)]
pub struct Count {
    /// Its kernel, with the bind groups it keeps (binding.rs).
    pub kernel: Kernel,
}

impl Count {
    /// Compile the pass.
    pub fn new(device: &wgpu::Device) -> Count {
        let src = include_str!("../../shaders/gpu/count.wgsl");
        Count {
            kernel: Kernel::new(
                device,
                "count",
                src,
                true,
                ACCESS,
                SplitArrays::NONE,
                &["main"],
            ),
        }
    }

    /// Record the count of `n` particles per cell into `count` (which must be clear), with the
    /// kept bind group (binding.rs: the body boundary particles' cells).
    pub fn dispatch(&self, pass: &mut wgpu::ComputePass<'_>, n: u32) {
        let k = &self.kernel;
        k.dispatch(pass, "main", k.group(0), n);
    }
}

/// CPU twin: particles per cell, with one trailing zero (the GPU array's length).
#[cfg_attr(not(test), allow(dead_code))]
pub fn cpu_twin(cell_of: &[u32], ncells: usize) -> Vec<u32> {
    let mut c = vec![0u32; ncells + 1];
    for &k in cell_of {
        c[k as usize] += 1;
    }
    c
}
