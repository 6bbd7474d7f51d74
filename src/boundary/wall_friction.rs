//! The walls' viscous friction (`[container] viscous_friction`): liquid within 1.5 spacings of
//! a wall's plane (the kernel radius of the wall itself at 2 spacings) is slowed along it, so that the wall exerts the shear stress `rho f u` of
//! Navier's slip law on the liquid beside it, the same at any resolution; a velocity pass after
//! the viscosity impulses (the GPU twin is the `wall_friction` entry of
//! shaders/gpu/velocity.wgsl).
use super::Motion;
use super::params::Walls;
use super::wall_loads::{CHUNK, Masses, WallLoads};
use glam::Vec3A;
use rayon::prelude::*;

/// The walls' viscous friction for the friction velocity `f` (m/s) at `spacing`: the rate at
/// the weight's peak, `f / spacing` (1/s), and its reach, `1.5 spacing` (m). A particle at `d`
/// from the plane that centres are held to feels the rate `f w(d) / spacing` on its velocity
/// along the wall, `w` the hat `1 - |d - spacing/2| / spacing` (0 beyond the reach): its values
/// on any two rows a spacing apart sum to 1, so a column of liquid moving at `u` whose first
/// row sits anywhere within half a spacing of the plane feels the wall's shear stress `rho f u`,
/// at any resolution and kernel radius.
pub fn drag(f: f64, spacing: f64) -> (f32, f32) {
    ((f / spacing) as f32, (1.5 * spacing) as f32)
}

/// The hat weight `w(d)` of the walls' viscous friction at `d` from a plane, for the reach
/// `reach` (1.5 spacings): 1/2 on the plane, 1 at half a spacing, 0 at the reach.
#[inline]
pub fn weight(d: f32, reach: f32) -> f32 {
    (1.0 - (3.0 * d.max(0.0) - reach).abs() / (2.0 * reach)).max(0.0)
}

/// Whether the walls have viscous friction.
pub fn has_friction(walls: Option<&Walls>) -> bool {
    walls.is_some_and(|w| w.drag > 0.0)
}

/// The walls' viscous friction on the velocity `v` of a particle at `x` over `dt`: each wall
/// within reach adds the rate `drag w(d)` (`weight`) to the axes along it, and each axis's
/// velocity is divided by `1 + rate dt` (implicit, so stable at any rate: it slows the flow
/// towards rest and never reverses it). The velocity normal to a wall is untouched.
#[inline]
pub fn slow(walls: &Walls, x: Vec3A, v: Vec3A, dt: f32) -> Vec3A {
    slow_each(walls, x, v, dt, |_, _| {})
}

/// [`slow`], with `each(w, dv)` for each wall `w` (x lo, x hi, y lo, y hi, z lo, z hi) within
/// reach: its share of the velocity change, each axis's change shared among the walls in
/// proportion to the rates they add to it.
#[inline]
pub fn slow_each(
    walls: &Walls,
    x: Vec3A,
    v: Vec3A,
    dt: f32,
    mut each: impl FnMut(usize, Vec3A),
) -> Vec3A {
    let near = (x - walls.lo).min(walls.hi - x).min_element() < walls.drag_reach;
    if !near {
        return v;
    }
    let reach = walls.drag_reach;
    let mut rate = Vec3A::ZERO;
    let mut wall_rate = [0.0f32; 6];
    for a in 0..3 {
        for (side, d) in [x[a] - walls.lo[a], walls.hi[a] - x[a]]
            .into_iter()
            .enumerate()
        {
            if d < reach {
                let r = walls.drag * weight(d, reach);
                wall_rate[2 * a + side] = r;
                for b in 0..3 {
                    if b != a {
                        rate[b] += r;
                    }
                }
            }
        }
    }
    let out = v / (Vec3A::ONE + rate * dt);
    let dv = out - v;
    for (w, &r) in wall_rate.iter().enumerate() {
        if r > 0.0 {
            let mut share = Vec3A::ZERO;
            for b in 0..3 {
                if b != w / 2 && rate[b] > 0.0 {
                    share[b] = dv[b] * (r / rate[b]);
                }
            }
            each(w, share);
        }
    }
    out
}

/// Slow every particle within reach of a wall by the walls' viscous friction over `dt`. With
/// `loads`, each wall's impulse on each particle (its mass times its share of the velocity
/// change; `mass` per phase, kg) goes to the walls' loads.
pub fn apply_wall_friction(
    p: &mut impl Motion,
    walls: &Walls,
    dt: f32,
    loads: Option<(&mut WallLoads, &[f32])>,
) {
    let (pos, vel, _, phase) = p.motion_and_phase();
    let Some((loads, mass)) = loads else {
        vel.par_iter_mut()
            .zip(pos.par_iter())
            .for_each(|(v, x)| *v = slow(walls, *x, *v, dt));
        return;
    };
    let masses = Masses { phase, mass };
    let chunks = vel.par_chunks_mut(CHUNK).zip(pos.par_chunks(CHUNK));
    loads.gather(chunks, |first, (vs, xs), sink| {
        for (k, (v, x)) in vs.iter_mut().zip(xs).enumerate() {
            let m = masses.of(first + k);
            *v = slow_each(walls, *x, *v, dt, |w, dv| sink.add(w, *x, dv * m));
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Walls of the unit box for spacing `s` with viscous friction `f`.
    fn walls(s: f32, f: f32) -> Walls {
        let (drag, drag_reach) = drag(f as f64, s as f64);
        Walls {
            lo: Vec3A::splat(s / 2.0),
            hi: Vec3A::splat(1.0 - s / 2.0),
            restitution: 0.0,
            friction: 0.0,
            drag,
            drag_reach,
        }
    }

    /// The shear stress (rho = 1) that a column of particles on rows `off, off + s, ...` from
    /// the floor's plane, moving along the floor at `u` (and towards it at `w`), loses in one
    /// short step, over `f u`.
    fn column_stress(s: f32, off: f32, f: f32) -> f64 {
        let (u, w, dt) = (0.4f32, -0.3f32, 3e-5f32);
        let wl = walls(s, f);
        let mut lost = 0.0f64;
        for k in 0..4 {
            let d = off + k as f32 * s;
            let v = slow(
                &wl,
                Vec3A::new(0.5, wl.lo.y + d, 0.5),
                Vec3A::new(u, w, 0.0),
                dt,
            );
            assert_eq!(v.y, w, "normal velocity");
            assert!(v.x > 0.0 && v.x <= u);
            if d >= 1.5 * s {
                assert_eq!(v.x, u, "row {k} lies beyond the reach");
            }
            lost += ((u - v.x) * s * s * s) as f64;
        }
        lost / (dt as f64 * (s * s) as f64) / (f * u) as f64
    }

    #[test]
    fn a_column_feels_the_shear_stress_rho_f_u_wherever_its_first_row_sits() {
        // Wherever the column's first row sits within half a spacing of the plane, the
        // momentum it loses in one short step is f u dt per unit area, whatever the spacing, up
        // to the implicit update's relative 1/(1 + rate dt) (rate dt < 2e-4 here).
        let f = 0.05f32;
        for s in [0.01f32, 0.0025, 0.005] {
            for off in [0.0f32, 0.06, 0.14, 0.3, 0.5] {
                let r = column_stress(s, off * s, f);
                assert!(
                    (r - 1.0).abs() < 2e-3,
                    "spacing {s}, first row {off} spacings off the plane: stress / (f u) = {r}"
                );
            }
            // Further off, the first row leaves the hat's peak: less stress, never more.
            let r = column_stress(s, 0.75 * s, f);
            assert!(
                (r - 0.75).abs() < 2e-3,
                "spacing {s}, 0.75 spacings off: {r}"
            );
        }
    }

    #[test]
    fn the_viscous_friction_slows_towards_rest_and_stays_off_far_from_walls() {
        let (s, dt) = (0.01f32, 0.01f32);
        // A huge rate: the implicit update slows the particle towards rest, never past it.
        let wl = walls(s, 1e4);
        let v = slow(
            &wl,
            Vec3A::new(0.5, s / 2.0, 0.5),
            Vec3A::new(1.0, -2.0, -0.5),
            dt,
        );
        assert!(v.x > 0.0 && v.x < 1e-3 && v.z < 0.0 && v.z > -1e-3, "{v}");
        assert_eq!(v.y, -2.0, "the velocity towards the floor");
        // A corner: both walls slow the axis along both.
        let v = slow(&wl, Vec3A::splat(s / 2.0), Vec3A::new(1.0, 1.0, 1.0), dt);
        assert!(v.max_element() < 1e-3 && v.min_element() > 0.0, "{v}");
        // Beyond the reach of every wall (1.5 spacings), the velocity is untouched.
        let v0 = Vec3A::new(0.3, -0.2, 0.1);
        assert_eq!(slow(&wl, Vec3A::new(0.5, 2.0 * s, 0.5), v0, dt), v0);
    }
}
