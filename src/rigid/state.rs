//! The state of a rigid body and the mass properties its motion needs.
use glam::{DMat3, DQuat, DVec3};

/// Position of the centre of mass, unit orientation quaternion (body to world), and world-frame
/// linear and angular momentum.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BodyState {
    /// World position of the centre of mass.
    pub x: DVec3,
    /// Orientation, rotating body-frame vectors into the world frame.
    pub q: DQuat,
    /// Linear momentum.
    pub p: DVec3,
    /// Angular momentum about the centre of mass, world frame.
    pub l: DVec3,
}

impl Default for BodyState {
    fn default() -> Self {
        BodyState {
            x: DVec3::ZERO,
            q: DQuat::IDENTITY,
            p: DVec3::ZERO,
            l: DVec3::ZERO,
        }
    }
}

/// Mass and body-frame inertia of a body, as the integrators need them.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Inertia {
    /// Mass.
    pub mass: f64,
    /// Inertia tensor in the body frame (about the centre of mass).
    pub body: DMat3,
    /// Its inverse.
    pub body_inv: DMat3,
}
