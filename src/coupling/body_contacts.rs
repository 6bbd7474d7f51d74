//! Contacts of bodies with the container's walls and with each other, from their surface
//! particles, reduced to at most four points per pair (the corners of the touching patch).
use super::liquid_body::SurfaceIndex;
use crate::liquid::params::Walls;
use crate::rigid::RigidBody;
use glam::DVec3;

/// A contact between body `a` and body `b`, or the static world (walls) when `b` is `None`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BodyContact {
    /// The first body.
    pub a: u32,
    /// The second body, or `None` for a wall.
    pub b: Option<u32>,
    /// Contact point, world frame.
    pub point: DVec3,
    /// Unit normal, world frame, pointing from `b` (or the wall) into `a`.
    pub normal: DVec3,
    /// Overlap, m (> 0).
    pub depth: f64,
}

/// The container's six walls as (inward normal, offset): a point `x` is inside when
/// `n.x >= offset`.
fn wall_planes(walls_lo: DVec3, walls_hi: DVec3) -> [(DVec3, f64); 6] {
    [
        (DVec3::X, walls_lo.x),
        (DVec3::Y, walls_lo.y),
        (DVec3::Z, walls_lo.z),
        (DVec3::NEG_X, -walls_hi.x),
        (DVec3::NEG_Y, -walls_hi.y),
        (DVec3::NEG_Z, -walls_hi.z),
    ]
}

/// Keep at most four of `points` (each `(point, depth)`): the extremes of the patch along the
/// two diagonals of a tangent frame of `normal`, so that a face resting on a plane keeps its
/// corners and the contact set stays small and well conditioned.
pub fn reduce_patch(points: &[(DVec3, f64)], normal: DVec3) -> Vec<(DVec3, f64)> {
    if points.len() <= 4 {
        return points.to_vec();
    }
    let (t1, t2) = normal.any_orthonormal_pair();
    let dirs = [t1 + t2, t1 - t2, -t1 - t2, -t1 + t2];
    let mut keep: Vec<usize> = Vec::with_capacity(4);
    for d in dirs {
        let best = (0..points.len())
            .max_by(|&i, &j| {
                points[i]
                    .0
                    .dot(d)
                    .total_cmp(&points[j].0.dot(d))
                    .then(j.cmp(&i))
            })
            .expect("points is not empty");
        if !keep.contains(&best) {
            keep.push(best);
        }
    }
    keep.sort_unstable();
    keep.into_iter().map(|i| points[i]).collect()
}

/// Contacts of every dynamic body's surface particles with the container's walls. `walls`
/// holds the liquid's particle-centre bounds (the container shrunk by `liquid_radius`); bodies
/// keep their own particle radius from the container's faces.
pub fn wall_contacts(bodies: &[RigidBody], walls: &Walls, liquid_radius: f64) -> Vec<BodyContact> {
    let lo = DVec3::new(walls.lo.x as f64, walls.lo.y as f64, walls.lo.z as f64)
        - DVec3::splat(liquid_radius);
    let hi = DVec3::new(walls.hi.x as f64, walls.hi.y as f64, walls.hi.z as f64)
        + DVec3::splat(liquid_radius);
    let mut out = Vec::new();
    for (bi, body) in bodies.iter().enumerate() {
        if !body.dynamic {
            continue;
        }
        let c = &body.clump;
        let (com, rot) = (body.state.x, body.rotation());
        for (n, offset) in wall_planes(lo, hi) {
            let touching: Vec<(DVec3, f64)> = (0..c.len())
                .filter(|&k| c.surface[k])
                .filter_map(|k| {
                    let x = com + rot * c.positions[k];
                    let depth = c.radius - (n.dot(x) - offset);
                    (depth > 0.0).then(|| (x - n * (c.radius - depth), depth))
                })
                .collect();
            for (point, depth) in reduce_patch(&touching, n) {
                out.push(BodyContact {
                    a: bi as u32,
                    b: None,
                    point,
                    normal: n,
                    depth,
                });
            }
        }
    }
    out
}

/// Contacts between pairs of bodies (at least one dynamic): `a`'s surface particles against
/// `b`'s, merged per particle of `a` with `b`'s surface normal, then reduced per pair.
pub fn body_body_contacts(bodies: &[RigidBody], index: &SurfaceIndex) -> Vec<BodyContact> {
    let mut out = Vec::new();
    let reach: Vec<f64> = bodies
        .iter()
        .map(|b| {
            b.clump
                .positions
                .iter()
                .map(|p| p.length())
                .fold(0.0, f64::max)
                + b.clump.radius
        })
        .collect();
    for a in 0..bodies.len() {
        for b in a + 1..bodies.len() {
            let (ba, bb) = (&bodies[a], &bodies[b]);
            if !ba.dynamic && !bb.dynamic {
                continue;
            }
            // Broad phase: bounding spheres about the centres of mass.
            if (ba.state.x - bb.state.x).length() > reach[a] + reach[b] {
                continue;
            }
            let ca = &ba.clump;
            let pos: Vec<glam::Vec3A> = (0..ca.len())
                .filter(|&k| ca.surface[k])
                .map(|k| {
                    let x = ba.state.x + ba.rotation() * ca.positions[k];
                    glam::Vec3A::new(x.x as f32, x.y as f32, x.z as f32)
                })
                .collect();
            let found = index.contacts_with(bodies, b, &pos, ca.radius);
            if found.is_empty() {
                continue;
            }
            let mean = found
                .iter()
                .map(|c| c.normal)
                .sum::<DVec3>()
                .normalize_or(DVec3::Y);
            let patch: Vec<(DVec3, f64)> = found
                .iter()
                .map(|c| (c.point - c.normal * ca.radius, c.depth))
                .collect();
            for (point, depth) in reduce_patch(&patch, mean) {
                out.push(BodyContact {
                    a: a as u32,
                    b: Some(b as u32),
                    point,
                    normal: mean,
                    depth,
                });
            }
        }
    }
    out
}
