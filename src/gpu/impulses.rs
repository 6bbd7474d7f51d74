//! Contact impulses coming back from the CPU's LCP (shaders/gpu/impulses.wgsl): each liquid
//! particle's velocity change `dv = p n / m` is added to its velocity and moves it by `dv dt`.
//! Only the impulses go up; the particles stay on the GPU.
use super::kernel::Access::{self, Read as R, ReadWrite as RW};
use super::kernel::Kernel;
use super::split::{SplitArray, SplitArrays};
use crate::liquid::Particles;
use glam::Vec3A;

/// How the pass uses its storage buffers, binding 1 on (shaders/gpu/impulses.wgsl).
pub(crate) const ACCESS: &[Access] = &[RW, RW, R, R];

/// The arrays of the pass bound in two parts (shaders/gpu/split.wgsl).
pub(crate) const SPLIT: &[SplitArray] = &[SplitArray::vec4("pos", 1), SplitArray::vec4("vel", 2)];

/// The pass's pipeline.
#[derive(Debug)]
pub struct Impulses {
    /// Its kernel, with the bind groups it keeps (binding.rs).
    pub kernel: Kernel,
}

impl Impulses {
    /// Compile the pass, its per-particle arrays in two parts each when `two_parts`.
    pub fn new(device: &wgpu::Device, two_parts: bool) -> Impulses {
        let src = include_str!("../../shaders/gpu/impulses.wgsl");
        Impulses {
            kernel: Kernel::new(
                device,
                "impulses",
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

/// CPU twin: the same velocity changes applied to particles in the same slot order.
#[cfg_attr(not(test), allow(dead_code))]
pub fn cpu_twin(p: &mut Particles, dv: &[(u32, Vec3A)], dt: f32) {
    for &(s, d) in dv {
        let s = s as usize;
        p.vel[s] += d;
        p.pos[s] += d * dt;
    }
}
