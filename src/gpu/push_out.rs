//! Position correction coming back from the CPU's coupling (shaders/gpu/push_out.wgsl): each
//! listed liquid particle moves by `dx` out of the body it overlaps; velocities are untouched.
use super::kernel::Access::{self, Read as R, ReadWrite as RW};
use super::kernel::Kernel;
use super::split::{SplitArray, SplitArrays};
use crate::liquid::Particles;
use glam::Vec3A;

/// How the pass uses its storage buffers, binding 1 on (shaders/gpu/push_out.wgsl).
pub(crate) const ACCESS: &[Access] = &[RW, R, R];

/// The arrays of the pass bound in two parts (shaders/gpu/split.wgsl).
pub(crate) const SPLIT: &[SplitArray] = &[SplitArray::vec4("pos", 1)];

/// The pass's pipeline.
#[derive(Debug)]
pub struct PushOut {
    /// Its kernel, with the bind groups it keeps (binding.rs).
    pub kernel: Kernel,
}

impl PushOut {
    /// Compile the pass, its per-particle arrays in two parts each when `two_parts`.
    pub fn new(device: &wgpu::Device, two_parts: bool) -> PushOut {
        let src = include_str!("../../shaders/gpu/push_out.wgsl");
        PushOut {
            kernel: Kernel::new(
                device,
                "push_out",
                src,
                true,
                ACCESS,
                SplitArrays {
                    arrays: SPLIT,
                    two_parts,
                },
                &["main"],
            ),
        }
    }
}

/// CPU twin: the same moves applied to particles in the same slots.
#[cfg_attr(not(test), allow(dead_code))]
pub fn cpu_twin(p: &mut Particles, dx: &[(u32, Vec3A)]) {
    for &(s, d) in dx {
        p.pos[s as usize] += d;
    }
}
