//! Liquid-particle / body-particle contacts: every liquid particle closer to a body's surface
//! particles than the sum of radii gives one contact per body, with the body's surface normal.
//! Over a flat face the distance is measured along the face normal, so the face is a plane and
//! liquid does not settle into the hollows between the clump's spheres.
use crate::rigid::RigidBody;
use glam::{DVec3, Vec3A};
use rayon::prelude::*;
use rstar::RTree;
use rstar::primitives::GeomWithData;

/// One contact between a liquid particle and a body.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LiquidBodyContact {
    /// The liquid particle's slot.
    pub slot: u32,
    /// The body's index.
    pub body: u32,
    /// Unit normal, world frame, pointing out of the body into the liquid.
    pub normal: DVec3,
    /// The contact point: the liquid particle's centre, world frame.
    pub point: DVec3,
    /// Overlap of the deepest touching particle pair, m (> 0).
    pub depth: f64,
}

type SurfacePoint = GeomWithData<[f64; 3], u32>;

/// How far from a body particle's centre a liquid particle may touch, for a sum of radii
/// `reach_sum`: over a face, a particle within the 45-degree cone of the face normal touches
/// when its distance along the normal is below `reach_sum`, so up to `sqrt(2) reach_sum` away.
pub fn search_radius(reach_sum: f64) -> f64 {
    reach_sum * std::f64::consts::SQRT_2
}

/// The surface particles of every body in its own frame, indexed for radius queries. Bodies
/// are rigid, so the index is built once and queried in each body's frame.
#[derive(Debug, Clone)]
pub struct SurfaceIndex {
    trees: Vec<RTree<SurfacePoint>>,
    /// Per body: the largest distance of a particle centre from the centre of mass, m.
    reach: Vec<f64>,
}

impl SurfaceIndex {
    /// Index the surface particles of `bodies`.
    pub fn new(bodies: &[RigidBody]) -> SurfaceIndex {
        let trees = bodies
            .iter()
            .map(|b| {
                let c = &b.clump;
                let pts = (0..c.len())
                    .filter(|&k| c.surface[k])
                    .map(|k| GeomWithData::new(c.positions[k].to_array(), k as u32))
                    .collect();
                RTree::bulk_load(pts)
            })
            .collect();
        let reach = bodies
            .iter()
            .map(|b| {
                b.clump
                    .positions
                    .iter()
                    .map(|p| p.length())
                    .fold(0.0, f64::max)
            })
            .collect();
        SurfaceIndex { trees, reach }
    }

    /// Contacts of the liquid particles at `pos` (radius `liquid_radius`) with every body, in
    /// order of body, then slot.
    pub fn liquid_contacts(
        &self,
        bodies: &[RigidBody],
        pos: &[Vec3A],
        liquid_radius: f64,
    ) -> Vec<LiquidBodyContact> {
        (0..bodies.len())
            .flat_map(|bi| self.contacts_with(bodies, bi, pos, liquid_radius))
            .collect()
    }

    /// Contacts of the spheres at `pos` (radius `radius`) with body `bi`, in slot order.
    pub fn contacts_with(
        &self,
        bodies: &[RigidBody],
        bi: usize,
        pos: &[Vec3A],
        radius: f64,
    ) -> Vec<LiquidBodyContact> {
        let body = &bodies[bi];
        let reach_sum = body.clump.radius + radius;
        let bound = self.reach[bi] + reach_sum;
        let (com, rot) = (body.state.x, body.rotation());
        let rot_t = rot.transpose();
        let tree = &self.trees[bi];
        let c = &body.clump;
        pos.par_iter()
            .enumerate()
            .filter_map(|(slot, x)| {
                let xw = DVec3::new(x.x as f64, x.y as f64, x.z as f64);
                if (xw - com).length_squared() > bound * bound {
                    return None;
                }
                let xb = rot_t * (xw - com);
                let r = search_radius(reach_sum);
                let near = tree.locate_within_distance(xb.to_array(), r * r);
                let (n, depth) = merge_touching(c, xb, reach_sum, near.map(|p| p.data as usize))?;
                Some(LiquidBodyContact {
                    slot: slot as u32,
                    body: bi as u32,
                    normal: rot * n,
                    point: xw,
                    depth,
                })
            })
            .collect()
    }
}

/// Merge the clump particles `ks` that a sphere at body-frame `xb` may touch (`reach_sum` the
/// sum of radii) into one contact: the overlap-weighted normal (body frame) and the deepest
/// overlap, or `None` when none overlaps. Within 45 degrees of a surface particle's normal the
/// face holds: its normal, and the overlap measured along it, so a flat face pushes flat and is
/// flat (a sphere between four face particles is as far out as one above a particle). Beyond
/// it the sphere sits round an edge or corner and the pair's own direction and distance hold,
/// following the clump's rounded shape. `ks` must hold every particle within
/// [`search_radius`] of `xb`.
pub fn merge_touching(
    c: &crate::rigid::Clump,
    xb: DVec3,
    reach_sum: f64,
    ks: impl Iterator<Item = usize>,
) -> Option<(DVec3, f64)> {
    let mut normal = DVec3::ZERO;
    let mut depth = 0.0f64;
    let mut nearest = (f64::INFINITY, DVec3::ZERO);
    for k in ks {
        let r = xb - c.positions[k];
        let d = r.length();
        let dir = r / d.max(f64::MIN_POSITIVE);
        let face = c.normals[k];
        let (n, overlap) = if dir.dot(face) >= std::f64::consts::FRAC_1_SQRT_2 {
            (face, reach_sum - r.dot(face))
        } else {
            (dir, reach_sum - d)
        };
        if overlap <= 0.0 {
            continue;
        }
        normal += n * overlap;
        depth = depth.max(overlap);
        if d < nearest.0 {
            nearest = (d, n);
        }
    }
    (depth > 0.0).then(|| (normal.try_normalize().unwrap_or(nearest.1), depth))
}

/// Sum the entries that share a slot (a particle touching two bodies has two), in the order of
/// each slot's first entry.
pub fn sum_by_slot(entries: Vec<(u32, DVec3)>) -> Vec<(u32, DVec3)> {
    let mut first: std::collections::HashMap<u32, usize> =
        std::collections::HashMap::with_capacity(entries.len());
    let mut out: Vec<(u32, DVec3)> = Vec::with_capacity(entries.len());
    for (slot, d) in entries {
        match first.get(&slot) {
            Some(&k) => out[k].1 += d,
            None => {
                first.insert(slot, out.len());
                out.push((slot, d));
            }
        }
    }
    out
}
