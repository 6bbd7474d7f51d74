//! Liquid that starts inside a body: found at setup (a liquid particle's centre lies in the
//! lattice cell of one of the body's particles) and removed; and liquid that starts next to a
//! body, which the settling before time 0 holds still.
use crate::liquid::Particles;
use crate::rigid::RigidBody;
use glam::DVec3;
use rayon::prelude::*;
use rstar::RTree;

/// For every liquid slot, whether its centre lies inside one of `bodies`.
pub fn inside_bodies(p: &Particles, bodies: &[RigidBody]) -> Vec<bool> {
    near_bodies(p, bodies, 0.0)
}

/// For every liquid slot, whether its centre lies within `margin` (m) of one of `bodies`: in
/// the lattice cell of one of its particles grown by `margin` on every side.
pub fn near_bodies(p: &Particles, bodies: &[RigidBody], margin: f64) -> Vec<bool> {
    let mut inside = vec![false; p.len()];
    for body in bodies {
        let c = &body.clump;
        let tree = RTree::bulk_load(c.positions.iter().map(|x| x.to_array()).collect());
        let half = c.spacing / 2.0 + margin;
        // A point in a particle's cell is within half a cell diagonal of its centre.
        let r2 = 3.0 * half * half * (1.0 + 1e-9);
        let (com, rot_t) = (body.state.x, body.rotation().transpose());
        inside
            .par_iter_mut()
            .zip(p.pos.par_iter())
            .for_each(|(flag, x)| {
                if *flag {
                    return;
                }
                let xb = rot_t * (DVec3::new(x.x as f64, x.y as f64, x.z as f64) - com);
                *flag = tree.locate_within_distance(xb.to_array(), r2).any(|q| {
                    let d = xb - DVec3::from_array(*q);
                    d.abs().max_element() < half
                });
            });
    }
    inside
}

/// Remove the liquid inside `bodies`, renumbering the remaining ids 0..n in their old order.
/// Returns how many particles were removed.
pub fn remove_liquid_inside(p: &mut Particles, bodies: &[RigidBody]) -> usize {
    if bodies.is_empty() || p.is_empty() {
        return 0;
    }
    let inside = inside_bodies(p, bodies);
    let removed = inside.iter().filter(|&&f| f).count();
    if removed > 0 {
        p.retain(|k| !inside[k]);
    }
    removed
}
