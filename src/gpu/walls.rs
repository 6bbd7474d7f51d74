//! Wall collisions (shaders/gpu/walls.wgsl): projection inside the container with restitution
//! and Coulomb friction on the step's velocity (kept in the start-of-step buffer during a
//! step), in place; at the end of a step fused with the velocity update.
use super::kernel::Kernel;
use super::split::{SplitArray, SplitArrays};
use crate::liquid::params::Walls;
use crate::liquid::{Particles, walls};

/// The arrays of the pass bound in two parts (shaders/gpu/split.wgsl).
const SPLIT: &[SplitArray] = &[
    SplitArray::vec4("pos", 1),
    SplitArray::vec4("prev", 2),
    SplitArray::vec4("vel", 3),
];

/// The pass's pipeline.
#[derive(Debug)]
pub struct WallsPass {
    /// Its kernel.
    pub kernel: Kernel,
}

impl WallsPass {
    /// Compile the pass, its per-particle arrays in two parts each when `two_parts`.
    pub fn new(device: &wgpu::Device, two_parts: bool) -> WallsPass {
        let src = include_str!("../../shaders/gpu/walls.wgsl");
        WallsPass {
            kernel: Kernel::new(
                device,
                "walls",
                src,
                true,
                3,
                SplitArrays {
                    arrays: SPLIT,
                    two_parts,
                },
                &["main", "with_update"],
            ),
        }
    }

    /// Record the pass at `entry`: the collisions on the step's velocity in `prev` (`main`), or
    /// the collisions and then the velocity update into `vel` (`with_update`).
    #[allow(clippy::too_many_arguments)]
    pub fn dispatch(
        &self,
        device: &wgpu::Device,
        pass: &mut wgpu::ComputePass<'_>,
        entry: &str,
        params: &wgpu::Buffer,
        pos: &wgpu::Buffer,
        prev: &wgpu::Buffer,
        vel: &wgpu::Buffer,
        n: u32,
    ) {
        let g = self.kernel.bind(device, params, &[pos, prev, vel]);
        self.kernel.dispatch(pass, entry, &g, n);
    }
}

/// CPU twin: the CPU step's wall collisions on the step's velocities `p.vel` (which the GPU
/// keeps in the start-of-step buffer during a step).
pub fn cpu_twin(p: &mut Particles, w: &Walls, dt: f32) {
    walls::apply_walls_to_velocity(p, w, dt);
}
