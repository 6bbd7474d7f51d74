//! Liquid against the container's walls: project particle centres back inside and set the
//! velocity the step will report, with restitution and Coulomb friction.
use super::params::Walls;
use super::particles::Particles;
use glam::Vec3A;
use rayon::prelude::*;

/// Resolve one particle against the walls. `x` is projected inside; `prev` is moved so that
/// `(x - prev)/dt` is the post-collision velocity.
#[inline]
pub fn collide(walls: &Walls, x: &mut Vec3A, prev: &mut Vec3A, dt: f32) {
    let inside = x.cmpge(walls.lo) & x.cmple(walls.hi);
    if inside.all() {
        return;
    }
    let mut v = (*x - *prev) / dt;
    for a in 0..3 {
        let (wall, sign) = if x[a] < walls.lo[a] {
            (walls.lo[a], 1.0)
        } else if x[a] > walls.hi[a] {
            (walls.hi[a], -1.0)
        } else {
            continue;
        };
        x[a] = wall;
        let vn = v[a] * sign; // < 0 when moving into the wall
        if vn < 0.0 {
            let dvn = -(1.0 + walls.restitution) * vn; // > 0
            v[a] += sign * dvn;
            // Coulomb: the tangential impulse is at most friction * normal impulse.
            let mut vt = v;
            vt[a] = 0.0;
            let speed = vt.length();
            if speed > 0.0 && walls.friction > 0.0 {
                let scale = (1.0 - walls.friction * dvn / speed).max(0.0);
                let vnew = vt * scale;
                for b in 0..3 {
                    if b != a {
                        v[b] = vnew[b];
                    }
                }
            }
        }
    }
    *prev = *x - v * dt;
}

/// Resolve every particle against the walls.
pub fn apply_walls(p: &mut Particles, walls: &Walls, dt: f32) {
    p.pos
        .par_iter_mut()
        .zip(p.prev.par_iter_mut())
        .for_each(|(x, prev)| collide(walls, x, prev, dt));
}
