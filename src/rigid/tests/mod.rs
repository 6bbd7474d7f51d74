//! Tests of the bodies' sampling (the inside test, lattices and clump inertia), and a helper the
//! coupling's tests share.
mod sampling;

use super::RigidBody;
use glam::DVec3;

/// The body-frame position of `b`'s top-layer particle nearest to `(x, z)`.
pub(crate) fn top_particle(b: &RigidBody, x: f64, z: f64) -> DVec3 {
    let top = b
        .clump
        .positions
        .iter()
        .map(|p| p.y)
        .fold(f64::MIN, f64::max);
    *b.clump
        .positions
        .iter()
        .filter(|p| (p.y - top).abs() < 1e-12)
        .min_by(|a, c| {
            let da = (a.x - x).hypot(a.z - z);
            let dc = (c.x - x).hypot(c.z - z);
            da.total_cmp(&dc)
        })
        .unwrap()
}
