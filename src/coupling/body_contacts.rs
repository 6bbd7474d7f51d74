//! Contacts of bodies with the container's walls and with each other, from their surface
//! particles, reduced to at most four points per pair (the corners of the touching patch).
use super::liquid_body::{LiquidBodyContact, SurfaceIndex};
use crate::boundary::Walls;
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
/// corners and the contact set stays small and well conditioned. Of those, a point on the
/// segment between two others, or inside the triangle of three, is dropped: a rigid body's
/// forces there equal a blend of the others' (same normal, same friction cone), and the rows
/// it would add are linearly dependent (a block rocking on its toe line has three in a row).
#[cfg_attr(not(test), allow(dead_code))]
pub fn reduce_patch(points: &[(DVec3, f64)], normal: DVec3) -> Vec<(DVec3, f64)> {
    let mut out = Vec::new();
    reduce_patch_each(points, normal, |p| out.push(p));
    out
}

/// [`reduce_patch`], each kept point handed to `keep_point` in order (nothing allocated).
pub fn reduce_patch_each(
    points: &[(DVec3, f64)],
    normal: DVec3,
    mut keep_point: impl FnMut((DVec3, f64)),
) {
    let (t1, t2) = normal.any_orthonormal_pair();
    // At most four indices, in increasing order.
    let mut keep = [0usize; 4];
    let mut len = 0;
    if points.len() <= 4 {
        len = points.len();
        for (k, i) in keep.iter_mut().zip(0..len) {
            *k = i;
        }
    } else {
        let dirs = [t1 + t2, t1 - t2, -t1 - t2, -t1 + t2];
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
            if !keep[..len].contains(&best) {
                keep[len] = best;
                len += 1;
            }
        }
        keep[..len].sort_unstable();
    }
    // Tangent-plane coordinates, and a tolerance of a thousandth of the patch's size.
    let uv = |i: usize| {
        let p = points[i].0;
        (p.dot(t1), p.dot(t2))
    };
    let extent = keep[..len]
        .iter()
        .flat_map(|&i| keep[..len].iter().map(move |&j| (i, j)))
        .map(|(i, j)| (points[i].0 - points[j].0).length())
        .fold(0.0, f64::max);
    let tol = 1e-3 * extent;
    // Drop one redundant point at a time, the highest index first, until none is left.
    while let Some(pos) = (0..len)
        .rev()
        .find(|&a| redundant(uv(keep[a]), &keep[..len], a, &uv, tol))
    {
        keep.copy_within(pos + 1..len, pos);
        len -= 1;
    }
    for &i in &keep[..len] {
        keep_point(points[i]);
    }
}

/// Whether point `p` (the `skip`th of `keep`) lies within `tol` of the hull of the others:
/// on a point, on the segment between two, or inside the triangle of three.
fn redundant(
    p: (f64, f64),
    keep: &[usize],
    skip: usize,
    uv: &dyn Fn(usize) -> (f64, f64),
    tol: f64,
) -> bool {
    let mut others = [(0.0, 0.0); 3];
    let mut n = 0;
    for (k, &i) in keep.iter().enumerate() {
        if k != skip && n < others.len() {
            others[n] = uv(i);
            n += 1;
        }
    }
    let dist = |a: (f64, f64), b: (f64, f64)| ((a.0 - b.0).powi(2) + (a.1 - b.1).powi(2)).sqrt();
    let on_segment = |a: (f64, f64), b: (f64, f64)| {
        let (dx, dy) = (b.0 - a.0, b.1 - a.1);
        let len2 = dx * dx + dy * dy;
        let t = if len2 > 0.0 {
            (((p.0 - a.0) * dx + (p.1 - a.1) * dy) / len2).clamp(0.0, 1.0)
        } else {
            0.0
        };
        dist(p, (a.0 + t * dx, a.1 + t * dy)) <= tol
    };
    let cross = |u: (f64, f64), v: (f64, f64), w: (f64, f64)| {
        (v.0 - u.0) * (w.1 - u.1) - (v.1 - u.1) * (w.0 - u.0)
    };
    for i in 0..n {
        if dist(p, others[i]) <= tol {
            return true;
        }
        for j in i + 1..n {
            if on_segment(others[i], others[j]) {
                return true;
            }
            for k in j + 1..n {
                let (a, b, c) = (others[i], others[j], others[k]);
                // A flat triangle holds only its segments, tested above.
                let side = dist(a, b).max(dist(b, c)).max(dist(c, a));
                if cross(a, b, c).abs() <= tol * side {
                    continue;
                }
                let (s1, s2, s3) = (cross(a, b, p), cross(b, c, p), cross(c, a, p));
                if (s1 >= 0.0 && s2 >= 0.0 && s3 >= 0.0) || (s1 <= 0.0 && s2 <= 0.0 && s3 <= 0.0) {
                    return true;
                }
            }
        }
    }
    false
}

/// Contacts of every dynamic body's surface particles with the container's walls. `walls`
/// holds the liquid's particle-centre bounds (the container shrunk by `liquid_radius`); bodies
/// keep their own particle radius from the container's faces.
#[cfg_attr(not(test), allow(dead_code))]
pub fn wall_contacts(bodies: &[RigidBody], walls: &Walls, liquid_radius: f64) -> Vec<BodyContact> {
    let mut out = Vec::new();
    wall_contacts_into(
        bodies,
        walls,
        liquid_radius,
        &mut ContactBuffers::default(),
        &mut out,
    );
    out
}

/// The scratch buffers of the body contacts' search, kept between steps.
#[derive(Debug, Clone, Default)]
pub struct ContactBuffers {
    patch: Vec<(DVec3, f64)>,
    reach: Vec<f64>,
    /// Bodies by the low x of their bounding spheres, and the pairs whose x-ranges overlap.
    order: Vec<usize>,
    pairs: Vec<(usize, usize)>,
    pos: Vec<glam::Vec3A>,
    found: Vec<Option<LiquidBodyContact>>,
    contacts: Vec<LiquidBodyContact>,
}

/// [`wall_contacts`] appended to `out`, with the scratch buffers of `buf`.
pub fn wall_contacts_into(
    bodies: &[RigidBody],
    walls: &Walls,
    liquid_radius: f64,
    buf: &mut ContactBuffers,
    out: &mut Vec<BodyContact>,
) {
    let lo = DVec3::new(walls.lo.x as f64, walls.lo.y as f64, walls.lo.z as f64)
        - DVec3::splat(liquid_radius);
    let hi = DVec3::new(walls.hi.x as f64, walls.hi.y as f64, walls.hi.z as f64)
        + DVec3::splat(liquid_radius);
    for (bi, body) in bodies.iter().enumerate() {
        if !body.dynamic {
            continue;
        }
        let c = &body.clump;
        let (com, rot) = (body.state.x, body.rotation());
        for (n, offset) in wall_planes(lo, hi) {
            buf.patch.clear();
            buf.patch
                .extend((0..c.len()).filter(|&k| c.surface[k]).filter_map(|k| {
                    let x = com + rot * c.positions[k];
                    let depth = c.radius - (n.dot(x) - offset);
                    (depth > 0.0).then(|| (x - n * (c.radius - depth), depth))
                }));
            reduce_patch_each(&buf.patch, n, |(point, depth)| {
                out.push(BodyContact {
                    a: bi as u32,
                    b: None,
                    point,
                    normal: n,
                    depth,
                })
            });
        }
    }
}

/// Contacts between pairs of bodies (at least one dynamic): `a`'s surface particles against
/// `b`'s, merged per particle of `a` with `b`'s surface normal, then reduced per pair.
#[cfg_attr(not(test), allow(dead_code))]
pub fn body_body_contacts(bodies: &[RigidBody], index: &SurfaceIndex) -> Vec<BodyContact> {
    let mut out = Vec::new();
    body_body_contacts_into(
        bodies,
        index,
        |_, _| false,
        &mut ContactBuffers::default(),
        &mut out,
    );
    out
}

/// [`body_body_contacts`] appended to `out`, skipping the pairs `(a, b)` (a < b) for which
/// `skip` holds, with the scratch buffers of `buf`.
pub fn body_body_contacts_into(
    bodies: &[RigidBody],
    index: &SurfaceIndex,
    skip: impl Fn(usize, usize) -> bool,
    buf: &mut ContactBuffers,
    out: &mut Vec<BodyContact>,
) {
    buf.reach.clear();
    buf.reach
        .extend(bodies.iter().map(|b| b.clump.farthest() + b.clump.radius));
    let reach = &buf.reach;
    // Broad phase: sweep and prune along x over the bounding spheres, then the pairs in
    // (a, b) order, so the contacts come out as a loop over every pair would give them.
    let lo = |i: usize| bodies[i].state.x.x - reach[i];
    buf.order.clear();
    buf.order.extend(0..bodies.len());
    buf.order
        .sort_unstable_by(|&i, &j| lo(i).total_cmp(&lo(j)).then(i.cmp(&j)));
    buf.pairs.clear();
    for (k, &i) in buf.order.iter().enumerate() {
        let hi = bodies[i].state.x.x + reach[i];
        for &j in &buf.order[k + 1..] {
            if lo(j) > hi {
                break;
            }
            buf.pairs.push((i.min(j), i.max(j)));
        }
    }
    buf.pairs.sort_unstable();
    for &(a, b) in &buf.pairs {
        let (ba, bb) = (&bodies[a], &bodies[b]);
        if !ba.dynamic && !bb.dynamic {
            continue;
        }
        // Broad phase: bounding spheres about the centres of mass.
        if (ba.state.x - bb.state.x).length() > reach[a] + reach[b] {
            continue;
        }
        if skip(a, b) {
            continue;
        }
        let ca = &ba.clump;
        buf.pos.clear();
        buf.pos
            .extend((0..ca.len()).filter(|&k| ca.surface[k]).map(|k| {
                let x = ba.state.x + ba.rotation() * ca.positions[k];
                glam::Vec3A::new(x.x as f32, x.y as f32, x.z as f32)
            }));
        buf.contacts.clear();
        index.contacts_with_into(
            bodies,
            b,
            &buf.pos,
            ca.radius,
            &mut buf.found,
            &mut buf.contacts,
        );
        let found = &buf.contacts;
        if found.is_empty() {
            continue;
        }
        let mean = found
            .iter()
            .map(|c| c.normal)
            .sum::<DVec3>()
            .normalize_or(DVec3::Y);
        buf.patch.clear();
        buf.patch.extend(
            found
                .iter()
                .map(|c| (c.point - c.normal * ca.radius, c.depth)),
        );
        reduce_patch_each(&buf.patch, mean, |(point, depth)| {
            out.push(BodyContact {
                a: a as u32,
                b: Some(b as u32),
                point,
                normal: mean,
                depth,
            })
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pts(v: &[[f64; 3]]) -> Vec<(DVec3, f64)> {
        v.iter().map(|&p| (DVec3::from(p), 1e-4)).collect()
    }

    #[test]
    fn a_toe_line_keeps_its_two_ends() {
        // Three contacts in a row along z under a block rocking on its toe.
        let line = pts(&[[0.02, 0.0, -0.004], [0.02, 0.0, 0.0], [0.02, 0.0, 0.004]]);
        let kept = reduce_patch(&line, DVec3::Y);
        assert_eq!(kept, vec![line[0], line[2]]);
        // Four in a row, listed out of order: the two ends.
        let line = pts(&[
            [0.0, 0.0, 0.002],
            [0.0, 0.0, -0.006],
            [0.0, 0.0, 0.006],
            [0.0, 0.0, -0.002],
        ]);
        let kept = reduce_patch(&line, DVec3::Y);
        assert_eq!(kept, vec![line[1], line[2]]);
    }

    #[test]
    fn a_face_keeps_its_corners_and_drops_what_lies_inside() {
        let square = pts(&[
            [0.0, 0.0, 0.0],
            [0.01, 0.0, 0.0],
            [0.0, 0.0, 0.01],
            [0.01, 0.0, 0.01],
        ]);
        assert_eq!(reduce_patch(&square, DVec3::Y), square);
        // A triangle with a point inside it, and one within a thousandth of an edge.
        let tri = pts(&[
            [0.0, 0.0, 0.0],
            [0.01, 0.0, 0.0],
            [0.0, 0.0, 0.01],
            [0.002, 0.0, 0.003],
        ]);
        assert_eq!(reduce_patch(&tri, DVec3::Y), tri[..3].to_vec());
        let tri = pts(&[
            [0.0, 0.0, 0.0],
            [0.01, 0.0, 0.0],
            [0.005, 0.0, 0.000_005],
            [0.0, 0.0, 0.01],
        ]);
        assert_eq!(reduce_patch(&tri, DVec3::Y), vec![tri[0], tri[1], tri[3]]);
        // Two coincident points: one.
        let twin = pts(&[[0.0, 0.0, 0.0], [0.0, 0.0, 0.0]]);
        assert_eq!(reduce_patch(&twin, DVec3::Y), vec![twin[0]]);
    }
}
