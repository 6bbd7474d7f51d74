//! Filling a posed solid with liquid particles: the cell-centred cubic lattice covering the
//! solid's world bounds (as a body's is), every point inside the solid kept.
use super::particles::Particles;
use crate::rigid::Shape;
use crate::rigid::sampling::{Lattice, posed_inside};
use glam::{DQuat, DVec3, Vec3A};

/// A solid turned by `rotation` about its origin and moved to `position`, with its world
/// bounds `lo`..`hi`.
#[derive(Debug, Clone, Copy)]
pub struct Posed<'a> {
    /// The solid in its own coordinates.
    pub shape: &'a Shape,
    /// Rotation about the solid's origin.
    pub rotation: DQuat,
    /// World position of the solid's origin, m.
    pub position: DVec3,
    /// Lower corner of the world bounds, m.
    pub lo: DVec3,
    /// Upper corner of the world bounds, m.
    pub hi: DVec3,
}

/// The lattice points at `spacing` inside the posed solid, x fastest, then y, then z.
pub fn points(solid: &Posed, spacing: f64) -> Vec<DVec3> {
    let lat = Lattice::covering(solid.lo, solid.hi, spacing);
    let inside = posed_inside(solid.shape, solid.rotation, solid.position, &lat);
    let mut out = Vec::with_capacity(inside.iter().filter(|&&b| b).count());
    for k in 0..lat.dims[2] {
        for j in 0..lat.dims[1] {
            for i in 0..lat.dims[0] {
                if inside[lat.index(i, j, k)] {
                    out.push(lat.point(i, j, k));
                }
            }
        }
    }
    out
}

/// Append the particles filling the posed solid at `spacing`, at `velocity`, of phase
/// `phase`, with the next ids.
pub fn fill(p: &mut Particles, solid: &Posed, spacing: f64, velocity: [f64; 3], phase: u32) {
    let v = Vec3A::from_array(velocity.map(|x| x as f32));
    for x in points(solid, spacing) {
        p.push(Vec3A::from(x.as_vec3()), v, phase);
    }
}
