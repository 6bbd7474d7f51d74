//! Liquid against the container's walls: project particle centres back inside and set the
//! velocity the step will report, with restitution and Coulomb friction; and the walls a
//! particle centre rests on ([`walls_under`]), which the coupling's wedged rows read.
use super::Motion;
use super::params::Walls;
use super::wall_loads::{CHUNK, Masses, WallLoads};
use glam::{DVec3, Vec3A};
use rayon::prelude::*;

/// Resolve one particle against the walls, its velocity `v` given: `x` is projected inside
/// and `v` becomes the post-collision velocity. Returns whether the particle was outside.
#[inline]
pub fn collide_velocity(walls: &Walls, x: &mut Vec3A, v: &mut Vec3A) -> bool {
    collide_each(walls, x, v, |_, _| {})
}

/// [`collide_velocity`], with `hit(w, dv)` for each wall `w` (x lo, x hi, y lo, y hi, z lo,
/// z hi) that changed the velocity, by `dv`.
#[inline]
pub fn collide_each(
    walls: &Walls,
    x: &mut Vec3A,
    v: &mut Vec3A,
    hit: impl FnMut(usize, Vec3A),
) -> bool {
    if is_inside(walls, *x) {
        return false;
    }
    reflect(walls, x, v, hit);
    true
}

#[inline]
fn is_inside(walls: &Walls, x: Vec3A) -> bool {
    (x.cmpge(walls.lo) & x.cmple(walls.hi)).all()
}

/// Project `x` onto the walls it lies beyond and take the normal part of `v` into each of
/// them with restitution, the tangential part with Coulomb friction; `hit(w, dv)` for each
/// wall that changed `v`.
#[inline]
fn reflect(walls: &Walls, x: &mut Vec3A, v: &mut Vec3A, mut hit: impl FnMut(usize, Vec3A)) {
    for a in 0..3 {
        let (wall, sign, w) = if x[a] < walls.lo[a] {
            (walls.lo[a], 1.0, 2 * a)
        } else if x[a] > walls.hi[a] {
            (walls.hi[a], -1.0, 2 * a + 1)
        } else {
            continue;
        };
        let before = *v;
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
            hit(w, *v - before);
        }
    }
}

/// Resolve every particle against the walls from the step's velocities (the CPU step's): the
/// velocities become the post-collision ones, and `prev` of a particle that collided moves so
/// that `(x - prev)/dt` is its velocity. (The GPU's walls pass does the same on its step's
/// velocity.) With `loads`, each wall's impulse on each particle (its mass times the velocity
/// change; `mass` per phase, kg) goes to the walls' loads, at the particle's place on the wall.
pub fn apply_walls_to_velocity(
    p: &mut impl Motion,
    walls: &Walls,
    dt: f32,
    loads: Option<(&mut WallLoads, &[f32])>,
) {
    let (pos, vel, prev, phase) = p.motion_and_phase();
    let Some((loads, mass)) = loads else {
        pos.par_iter_mut()
            .zip(vel.par_iter_mut())
            .zip(prev.par_iter_mut())
            .for_each(|((x, v), prev)| {
                if collide_velocity(walls, x, v) {
                    *prev = *x - *v * dt;
                }
            });
        return;
    };
    let masses = Masses { phase, mass };
    let chunks = pos
        .par_chunks_mut(CHUNK)
        .zip(vel.par_chunks_mut(CHUNK))
        .zip(prev.par_chunks_mut(CHUNK));
    loads.gather(chunks, |first, ((xs, vs), prevs), sink| {
        for (k, ((x, v), prev)) in xs.iter_mut().zip(vs).zip(prevs).enumerate() {
            let m = masses.of(first + k);
            let mut hits = [(0usize, Vec3A::ZERO); 3];
            let mut n = 0;
            if collide_each(walls, x, v, |w, dv| {
                hits[n] = (w, dv);
                n += 1;
            }) {
                *prev = *x - *v * dt;
                for &(w, dv) in &hits[..n] {
                    sink.add(w, *x, dv * m);
                }
            }
        }
    });
}

/// Liquid particle centres within this fraction of a spacing of a wall's bound rest on it.
pub const ON_WALL: f64 = 0.05;

/// The inward normals of the walls that the particle centre `x` rests on (within
/// `ON_WALL` spacings of the bound that the liquid step holds centres to).
pub fn walls_under(x: DVec3, walls: &Walls, spacing: f64) -> WallNormals {
    let tol = ON_WALL * spacing;
    let mut out = WallNormals::default();
    for a in 0..3 {
        let mut n = DVec3::ZERO;
        if x[a] <= walls.lo[a] as f64 + tol {
            n[a] = 1.0;
            out.push(n);
        } else if x[a] >= walls.hi[a] as f64 - tol {
            n[a] = -1.0;
            out.push(n);
        }
    }
    out
}

/// Up to three wall normals (one a axis), held inline.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct WallNormals {
    normals: [DVec3; 3],
    len: usize,
}

impl WallNormals {
    /// Add a normal (at most three).
    pub fn push(&mut self, n: DVec3) {
        self.normals[self.len] = n;
        self.len += 1;
    }

    /// Keep only the normals for which `keep` holds, in order.
    pub fn retain(&mut self, keep: impl Fn(&DVec3) -> bool) {
        let mut k = 0;
        for i in 0..self.len {
            if keep(&self.normals[i]) {
                self.normals[k] = self.normals[i];
                k += 1;
            }
        }
        self.len = k;
    }
}

impl std::ops::Deref for WallNormals {
    type Target = [DVec3];

    fn deref(&self) -> &[DVec3] {
        &self.normals[..self.len]
    }
}
