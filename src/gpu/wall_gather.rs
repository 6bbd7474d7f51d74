//! The walls' loads gathered where the GPU step changes velocities at the walls
//! (shaders/gpu/wall_gather.wgsl, appended to the walls pass, the velocity pass's
//! `wall_friction` and the relaxation's ghost push): each workgroup sums its particles' impulses
//! per wall in workgroup memory, in a fixed order, and adds the sums to its own slot of the
//! partial sums, [`WallPartials::slots`] of them, which the `wall_loads` pass reduces once a
//! step. The CPU twin is the CPU step's `boundary::WallLoads`, held to it by the passes' tests
//! in src/sim/tests/gpu_passes.rs.
use super::kernel::WORKGROUP;
use super::tile;

/// The gather every pass that changes velocities at the walls appends.
pub const WGSL: &str = include_str!("../../shaders/gpu/wall_gather.wgsl");

/// `vec4<f32>` per slot of the partial sums: per wall its impulse on the liquid and its moment
/// about the wall's centre (`WALL_SLOT` in the shader).
pub const SLOT_VEC4S: u64 = 12;

/// Bytes per slot of the partial sums.
pub const SLOT_BYTES: u64 = SLOT_VEC4S * 16;

/// How many slots of partial sums the passes need.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WallPartials {
    /// Slots: one per workgroup of the widest gathering dispatch.
    pub slots: u64,
}

impl WallPartials {
    /// The slots for `n` particles in workgroups of 256 (the walls, velocity and untiled
    /// relaxation passes), and the tiled relaxation's workgroups, one per segment of the grid
    /// of `dims` cells, where it runs tiled; none without walls.
    pub fn new(walls: bool, n: u32, dims: [u32; 3], tiled: bool) -> WallPartials {
        if !walls {
            return WallPartials { slots: 0 };
        }
        let per_particle = n.div_ceil(WORKGROUP).max(1) as u64;
        let segments = if tiled {
            tile::workgroups(dims) as u64
        } else {
            0
        };
        WallPartials {
            slots: per_particle.max(segments),
        }
    }

    /// Bytes of the partial sums.
    pub fn bytes(self) -> u64 {
        self.slots * SLOT_BYTES
    }

    /// Whether the neighbour passes may run tiled with walls on a device whose storage
    /// bindings hold `binding` bytes: the tiled relaxation's partial sums, a slot per segment
    /// (192 bytes per 8 grid cells), fit one binding. Where they do not (a grid far larger
    /// than its particles, or a binding capped small), the passes run untiled.
    pub fn tiles_fit(walls: bool, n: u32, dims: [u32; 3], binding: u64) -> bool {
        WallPartials::new(walls, n, dims, true).bytes() <= binding
    }
}
