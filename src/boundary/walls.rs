//! Liquid against the container's walls: project particle centres back inside and set the
//! velocity the step will report, with restitution and Coulomb friction.
use super::Motion;
use super::params::Walls;
use glam::Vec3A;
use rayon::prelude::*;

/// Resolve one particle against the walls, its velocity `v` given: `x` is projected inside
/// and `v` becomes the post-collision velocity. Returns whether the particle was outside.
#[inline]
pub fn collide_velocity(walls: &Walls, x: &mut Vec3A, v: &mut Vec3A) -> bool {
    if is_inside(walls, *x) {
        return false;
    }
    reflect(walls, x, v);
    true
}

#[inline]
fn is_inside(walls: &Walls, x: Vec3A) -> bool {
    (x.cmpge(walls.lo) & x.cmple(walls.hi)).all()
}

/// Project `x` onto the walls it lies beyond and take the normal part of `v` into each of
/// them with restitution, the tangential part with Coulomb friction.
#[inline]
fn reflect(walls: &Walls, x: &mut Vec3A, v: &mut Vec3A) {
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
            let mut vt = *v;
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
}

/// Resolve every particle against the walls from the step's velocities (the CPU step's): the
/// velocities become the post-collision ones, and `prev` of a particle that collided moves so
/// that `(x - prev)/dt` is its velocity. (The GPU's walls pass does the same on its step's
/// velocity.)
pub fn apply_walls_to_velocity(p: &mut impl Motion, walls: &Walls, dt: f32) {
    let (pos, vel, prev) = p.motion();
    pos.par_iter_mut()
        .zip(vel.par_iter_mut())
        .zip(prev.par_iter_mut())
        .for_each(|((x, v), prev)| {
            if collide_velocity(walls, x, v) {
                *prev = *x - *v * dt;
            }
        });
}
