//! The leak check: how deep the liquid's particle centres lie inside the bodies. The coupling
//! holds centres one radius outside a body's faces, so a centre inside a body is liquid that
//! has leaked in.
use crate::liquid::Particles;
use crate::rigid::RigidBody;
use crate::rigid::occupancy::Occupancy;
use glam::DVec3;
use rayon::prelude::*;

/// The deepest liquid particle inside a body.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Leak {
    /// The particle's id.
    pub id: u32,
    /// The body's index.
    pub body: usize,
    /// How deep its centre lies inside the body, m.
    pub depth: f64,
}

/// Measures how deep liquid lies inside bodies (their occupied cells are found once).
#[derive(Debug, Clone)]
pub struct LeakCheck {
    cells: Vec<Occupancy>,
}

impl LeakCheck {
    /// A check for these bodies.
    pub fn new(bodies: &[RigidBody]) -> LeakCheck {
        LeakCheck {
            cells: bodies.iter().map(|b| Occupancy::new(&b.clump)).collect(),
        }
    }

    /// The deepest liquid particle inside any body at the bodies' current poses, or `None`
    /// when every centre lies outside.
    pub fn deepest(&self, p: &Particles, bodies: &[RigidBody]) -> Option<Leak> {
        let mut worst: Option<Leak> = None;
        for (bi, (body, occ)) in bodies.iter().zip(&self.cells).enumerate() {
            let (com, rot_t) = (body.state.x, body.rotation().transpose());
            let found = p
                .pos
                .par_iter()
                .zip(p.id.par_iter())
                .map(|(x, &id)| {
                    let xb = rot_t * (DVec3::new(x.x as f64, x.y as f64, x.z as f64) - com);
                    (occ.depth(xb), id)
                })
                .filter(|(d, _)| *d > 0.0)
                .reduce_with(|a, b| {
                    if b.0 > a.0 || (b.0 == a.0 && b.1 < a.1) {
                        b
                    } else {
                        a
                    }
                });
            if let Some((depth, id)) = found
                && worst.is_none_or(|w| depth > w.depth)
            {
                worst = Some(Leak {
                    id,
                    body: bi,
                    depth,
                });
            }
        }
        worst
    }
}
