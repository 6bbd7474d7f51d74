//! The boundary's settings, [`BoundaryParams`]: the walls ([`Walls`]) and whether their ghosts
//! push, as `sim::build` derives them from the scene's `[container]`. The liquid carries them
//! (`LiquidParams::boundary`) and every reader, CPU, GPU and coupling, reads them there.
use glam::Vec3A;

/// Everything the boundary needs besides the bodies: the walls and how they act on the liquid.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct BoundaryParams {
    /// Container walls, if any (with their restitution and both kinds of friction).
    pub walls: Option<Walls>,
    /// Whether the walls' ghosts push in the relaxation (`[container] ghost_pressure`).
    pub ghost_pressure: bool,
}

impl BoundaryParams {
    /// Walls (or none) whose ghosts push with `ghost_pressure`.
    pub fn new(walls: Option<Walls>, ghost_pressure: bool) -> BoundaryParams {
        BoundaryParams {
            walls,
            ghost_pressure,
        }
    }

    /// The walls whose ghosts push in the relaxation: the walls with `ghost_pressure`, else
    /// none.
    pub fn pushing_walls(&self) -> Option<&Walls> {
        self.walls.as_ref().filter(|_| self.ghost_pressure)
    }
}

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
