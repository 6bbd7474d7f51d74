//! The walls' settings, as `sim::build` derives them from the scene's `[container]`.
use glam::Vec3A;

/// An axis-aligned box of walls that particle centres keep a radius away from.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Walls {
    /// Lowest allowed particle centre.
    pub lo: Vec3A,
    /// Highest allowed particle centre.
    pub hi: Vec3A,
    /// Normal restitution.
    pub restitution: f32,
    /// Coulomb friction coefficient.
    pub friction: f32,
    /// The viscous friction's peak rate, 1/s (`wall_friction::drag`; 0: none).
    pub drag: f32,
    /// How far from the planes above the viscous friction reaches, m (1.5 spacings).
    pub drag_reach: f32,
}

impl Walls {
    /// Walls from `lo` to `hi` without restitution or friction of either kind.
    pub fn bare(lo: Vec3A, hi: Vec3A) -> Walls {
        Walls {
            lo,
            hi,
            restitution: 0.0,
            friction: 0.0,
            drag: 0.0,
            drag_reach: 0.0,
        }
    }
}
