//! The bodies as boundary for the liquid's kernel sums: the particles of each body within the
//! kernel radius of its surface, placed in the world every step (see `boundary::liquid_terms`).
use super::body_grid::BoundaryParticles;
use crate::rigid::RigidBody;
use glam::{DVec3, Vec3A};
use std::collections::HashSet;

/// Per body, the body-frame positions of its particles that liquid can reach with its kernel.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct BodyBoundary {
    /// (body index, body-frame positions, weight: particle volume over a liquid particle's).
    parts: Vec<(usize, Vec<DVec3>, f32)>,
}

/// The clump particles of `body` less than `depth` inside its surface: those with a lattice
/// point missing from the clump within `depth` plus one spacing.
fn near_surface(body: &RigidBody, depth: f64) -> Vec<DVec3> {
    let c = &body.clump;
    let Some(&p0) = c.positions.first() else {
        return Vec::new();
    };
    let key = |p: DVec3| {
        let l = ((p - p0) / c.spacing).round();
        [l.x as i64, l.y as i64, l.z as i64]
    };
    let occupied: HashSet<[i64; 3]> = c.positions.iter().map(|&p| key(p)).collect();
    let reach = depth / c.spacing + 1.0;
    let n = reach.ceil() as i64;
    let mut offsets = Vec::new();
    for i in -n..=n {
        for j in -n..=n {
            for k in -n..=n {
                if ((i * i + j * j + k * k) as f64) <= reach * reach {
                    offsets.push([i, j, k]);
                }
            }
        }
    }
    c.positions
        .iter()
        .copied()
        .filter(|&p| {
            let l = key(p);
            offsets
                .iter()
                .any(|o| !occupied.contains(&[l[0] + o[0], l[1] + o[1], l[2] + o[2]]))
        })
        .collect()
}

impl BodyBoundary {
    /// Select the particles within the kernel radius `h` of each body's surface, for a liquid
    /// of spacing `liquid_spacing`.
    pub fn new(bodies: &[RigidBody], liquid_spacing: f64, h: f64) -> BodyBoundary {
        let parts = bodies
            .iter()
            .enumerate()
            .map(|(b, body)| {
                let w = (body.clump.spacing / liquid_spacing).powi(3) as f32;
                (b, near_surface(body, h), w)
            })
            .collect();
        BodyBoundary { parts }
    }

    /// Number of boundary particles over all bodies.
    pub fn len(&self) -> usize {
        self.parts.iter().map(|p| p.1.len()).sum()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Their world positions and weights for the bodies' current poses.
    pub fn place(&self, bodies: &[RigidBody], out: &mut BoundaryParticles) {
        out.pos.clear();
        out.weight.clear();
        for (b, local, w) in &self.parts {
            let body = &bodies[*b];
            for &x in local {
                let p = body.world_point(x);
                out.pos.push(Vec3A::new(p.x as f32, p.y as f32, p.z as f32));
                out.weight.push(*w);
            }
        }
    }
}
