//! The walls' viscous friction (`[container] viscous_friction`): liquid within the kernel
//! radius of a wall is slowed along it, so that the wall exerts the shear stress `rho f u` of
//! Navier's slip law on the liquid beside it, the same at any resolution; a velocity pass after
//! the viscosity impulses (the GPU twin is the `wall_friction` entry of
//! shaders/gpu/velocity.wgsl).
use super::params::Walls;
use super::particles::Particles;
use glam::Vec3A;
use rayon::prelude::*;

/// The thickness `L` of the layer that carries the walls' viscous friction, m: `spacing` times
/// the sum of the weights `(1 - d/reach)^2` over a lattice column's rows `d = 0, spacing, ...`
/// (`d` the distance from the plane that centres are held to, `reach = h - spacing/2`, so the
/// friction acts within the kernel radius of the wall). A particle at `d` feels the rate
/// `f (1 - d/reach)^2 / L` on its velocity along the wall, so that a column of liquid moving at
/// `u` feels the wall's shear stress `rho f u` at any resolution (`f` the friction velocity,
/// m/s).
pub fn drag_layer(spacing: f64, h: f64) -> f64 {
    let reach = h - spacing / 2.0;
    (0..)
        .map(|k| k as f64 * spacing)
        .take_while(|&d| d < reach)
        .map(|d| (1.0 - d / reach).powi(2))
        .sum::<f64>()
        * spacing
}

/// Whether the walls have viscous friction.
pub fn has_friction(walls: Option<&Walls>) -> bool {
    walls.is_some_and(|w| w.drag > 0.0)
}

/// The walls' viscous friction on the velocity `v` of a particle at `x` over `dt`: each wall
/// within reach adds the rate `drag (1 - d/reach)^2` to the axes along it, and each axis's
/// velocity is divided by `1 + rate dt` (implicit, so stable at any rate: it slows the flow
/// towards rest and never reverses it). The velocity normal to a wall is untouched.
#[inline]
pub fn slow(walls: &Walls, x: Vec3A, v: Vec3A, dt: f32) -> Vec3A {
    let near = (x - walls.lo).min(walls.hi - x).min_element() < walls.drag_reach;
    if !near {
        return v;
    }
    let reach = walls.drag_reach;
    let mut rate = Vec3A::ZERO;
    for a in 0..3 {
        for d in [x[a] - walls.lo[a], walls.hi[a] - x[a]] {
            if d < reach {
                let w = 1.0 - d.max(0.0) / reach;
                let r = walls.drag * w * w;
                for b in 0..3 {
                    if b != a {
                        rate[b] += r;
                    }
                }
            }
        }
    }
    v / (Vec3A::ONE + rate * dt)
}

/// Slow every particle within reach of a wall by the walls' viscous friction over `dt`.
pub fn apply_wall_friction(p: &mut Particles, walls: &Walls, dt: f32) {
    p.vel
        .par_iter_mut()
        .zip(p.pos.par_iter())
        .for_each(|(v, x)| *v = slow(walls, *x, *v, dt));
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Walls of the unit box for spacing `s` and kernel radius `h` with viscous friction `f`.
    fn walls(s: f32, h: f32, f: f32) -> Walls {
        Walls {
            lo: Vec3A::splat(s / 2.0),
            hi: Vec3A::splat(1.0 - s / 2.0),
            restitution: 0.0,
            friction: 0.0,
            drag: f / drag_layer(s as f64, h as f64) as f32,
            drag_reach: h - s / 2.0,
        }
    }

    #[test]
    fn a_lattice_column_feels_the_shear_stress_rho_f_u_at_any_resolution() {
        // A column of particles on the floor's lattice rows moving along the floor at u (and
        // towards it at w): the momentum it loses in one short step is f u dt per unit area
        // (rho = 1), whatever the spacing and kernel radius, up to the implicit update's
        // relative 1/(1 + rate dt) (rate dt < 6e-4 here); the normal velocity is untouched.
        let (f, u, w, dt) = (0.05f32, 0.4f32, -0.3f32, 3e-5f32);
        for (s, ratio) in [(0.01f32, 2.0f32), (0.0025, 2.0), (0.005, 3.0)] {
            let (h, wl) = (ratio * s, walls(s, ratio * s, f));
            let mut lost = 0.0f64;
            for k in 0..(2.0 * ratio) as usize {
                let x = Vec3A::new(0.5, wl.lo.y + k as f32 * s, 0.5);
                let v = slow(&wl, x, Vec3A::new(u, w, 0.0), dt);
                assert_eq!(v.y, w, "normal velocity");
                assert!(v.x > 0.0 && v.x <= u);
                if k as f32 * s >= h - s / 2.0 {
                    assert_eq!(v.x, u, "row {k} lies beyond the reach");
                }
                lost += ((u - v.x) * s * s * s) as f64;
            }
            let stress = lost / (dt as f64 * (s * s) as f64);
            let want = (f * u) as f64;
            assert!(
                (stress / want - 1.0).abs() < 2e-3,
                "spacing {s}, ratio {ratio}: stress {stress} against f u = {want}"
            );
        }
    }

    #[test]
    fn the_viscous_friction_slows_towards_rest_and_stays_off_far_from_walls() {
        let (s, h, dt) = (0.01f32, 0.02f32, 0.01f32);
        // A huge rate: the implicit update slows the particle towards rest, never past it.
        let wl = walls(s, h, 1e4);
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
        // Beyond the reach of every wall, the velocity is untouched.
        let v0 = Vec3A::new(0.3, -0.2, 0.1);
        assert_eq!(slow(&wl, Vec3A::new(0.5, h, 0.5), v0, dt), v0);
    }
}
