//! Wall collisions (shaders/gpu/walls.wgsl): projection inside the container with restitution
//! and Coulomb friction on the step's velocity (kept in the start-of-step buffer during a
//! step), in place; at the end of a step fused with the velocity update. Each wall's impulse on
//! a particle goes to the walls' loads (`wall_gather`).
use super::kernel::Access::{self, Read as R, ReadWrite as RW};
use super::kernel::Kernel;
use super::split::{SplitArray, SplitArrays};
use crate::boundary::walls;
use crate::boundary::{WallLoads, Walls};
use crate::liquid::Particles;

/// How the pass uses its storage buffers, binding 1 on (shaders/gpu/walls.wgsl).
pub(crate) const ACCESS: &[Access] = &[RW, RW, RW, R, RW];

/// The arrays of the pass bound in two parts (shaders/gpu/split.wgsl).
pub(crate) const SPLIT: &[SplitArray] = &[
    SplitArray::vec4("pos", 1),
    SplitArray::vec4("prev", 2),
    SplitArray::vec4("vel", 3),
];

/// The pass's shader: its file with the walls' loads gather (wall_gather.wgsl) appended.
pub fn source() -> String {
    format!(
        "{}\n{}",
        include_str!("../../shaders/gpu/walls.wgsl"),
        super::wall_gather::WGSL
    )
}

/// The pass's pipeline.
#[derive(Debug)]
pub struct WallsPass {
    /// Its kernel, with the bind groups it keeps (binding.rs).
    pub kernel: Kernel,
}

impl WallsPass {
    /// Compile the pass, its per-particle arrays in two parts each when `two_parts`.
    pub fn new(device: &wgpu::Device, two_parts: bool) -> WallsPass {
        let src = source();
        WallsPass {
            kernel: Kernel::new(
                device,
                "walls",
                &src,
                true,
                ACCESS,
                SplitArrays {
                    arrays: SPLIT,
                    two_parts,
                },
                &["main", "with_update"],
            ),
        }
    }

    /// Record the pass at `entry`: the collisions on the step's velocity in `prev` (`main`), or
    /// the collisions and then the velocity update into `vel` (`with_update`), with the kept
    /// bind group `group` (binding.rs: the buffers of a cursor state, the phases and the walls'
    /// partial sums).
    pub fn dispatch(&self, pass: &mut wgpu::ComputePass<'_>, entry: &str, group: usize, n: u32) {
        let k = &self.kernel;
        k.dispatch(pass, entry, k.group(group), n);
    }
}

/// CPU twin: the CPU step's wall collisions on the step's velocities `p.vel` (which the GPU
/// keeps in the start-of-step buffer during a step); with `loads`, each wall's impulse on each
/// particle (`mass` per phase, kg) goes to the walls' loads, as the CPU step gathers them.
#[cfg_attr(not(test), allow(dead_code))]
pub fn cpu_twin(p: &mut Particles, w: &Walls, dt: f32, loads: Option<(&mut WallLoads, &[f32])>) {
    walls::apply_walls_to_velocity(p, w, dt, loads);
}
