//! Velocities (shaders/gpu/velocity.wgsl): gravity at the start of the step (`gravity`), the
//! walls' viscous friction after the viscosity (`wall_friction`) and at its end (`update`)
//! the step's velocity (kept in the start-of-step buffer during the step: the predicted
//! velocity plus the relaxation's displacements over dt) into the velocities, with
//! `x_prev = x - v dt`. The walls' friction gives each wall's impulse to the walls' loads
//! (`wall_gather`).
use super::kernel::Access::{self, Read as R, ReadWrite as RW};
use super::kernel::Kernel;
use super::split::{SplitArray, SplitArrays};
use crate::boundary::wall_friction;
use crate::boundary::{WallLoads, Walls};
use crate::liquid::Particles;
use glam::Vec3A;

/// How the pass uses its storage buffers, binding 1 on (shaders/gpu/velocity.wgsl).
pub(crate) const ACCESS: &[Access] = &[R, RW, RW, R, RW];

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
        include_str!("../../shaders/gpu/velocity.wgsl"),
        super::wall_gather::WGSL
    )
}

/// The pass's pipelines.
#[derive(Debug)]
pub struct Velocity {
    /// Its kernel, with the bind groups it keeps (binding.rs).
    pub kernel: Kernel,
}

impl Velocity {
    /// Compile the pass, its per-particle arrays in two parts each when `two_parts`.
    pub fn new(device: &wgpu::Device, two_parts: bool) -> Velocity {
        let src = source();
        Velocity {
            kernel: Kernel::new(
                device,
                "velocity",
                &src,
                true,
                ACCESS,
                SplitArrays {
                    arrays: SPLIT,
                    two_parts,
                },
                &["gravity", "update", "wall_friction"],
            ),
        }
    }

    /// Record `entry` (`gravity`, `update` or `wall_friction`) with the kept bind group `group`
    /// (binding.rs: position, start-of-step and velocity buffers of a cursor state).
    pub fn dispatch(&self, pass: &mut wgpu::ComputePass<'_>, entry: &str, group: usize, n: u32) {
        let k = &self.kernel;
        k.dispatch(pass, entry, k.group(group), n);
    }
}

/// CPU twin of `gravity`: `v += g dt` (with `g dt` rounded once, as the CPU step does).
#[cfg_attr(not(test), allow(dead_code))]
pub fn cpu_twin_gravity(vel: &mut [Vec3A], gravity_dt: Vec3A) {
    for v in vel {
        *v += gravity_dt;
    }
}

/// CPU twin of `update`: the step's velocities `step_vel` become the velocities (as the CPU
/// step keeps them), and `x_prev = x - v dt` (which the GPU keeps for a checkpoint).
#[cfg_attr(not(test), allow(dead_code))]
pub fn cpu_twin_update(p: &mut Particles, step_vel: &[Vec3A], dt: f32) {
    p.vel.copy_from_slice(step_vel);
    for ((x0, x), v) in p.prev.iter_mut().zip(&p.pos).zip(&p.vel) {
        *x0 = *x - *v * dt;
    }
}

/// CPU twin of `wall_friction`: the CPU step's viscous friction of the walls; with `loads`,
/// each wall's impulse on each particle (`mass` per phase, kg) goes to the walls' loads.
#[cfg_attr(not(test), allow(dead_code))]
pub fn cpu_twin_wall_friction(
    p: &mut Particles,
    walls: &Walls,
    dt: f32,
    loads: Option<(&mut WallLoads, &[f32])>,
) {
    wall_friction::apply_wall_friction(p, walls, dt, loads);
}
