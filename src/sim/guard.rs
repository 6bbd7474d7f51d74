//! The state check of a running simulation, once per frame before it is written: every liquid
//! particle and every body must be finite, no faster than a bound derived from the scene and
//! not far outside the container. A run that fails it stops with the particle or body, the
//! quantity and its value named, and no NaN reaches a file.
use super::Simulation;
use crate::rigid::RigidBody;
use crate::scene::Scene;
use glam::{DVec3, Vec3A};
use rayon::prelude::*;

/// How many times the fastest speed the scene can explain a speed may reach before the state
/// counts as runaway.
const SPEED_FACTOR: f64 = 10.0;

/// The bounds a run's state must keep, fixed at setup.
#[derive(Debug, Clone, Copy)]
pub struct StateGuard {
    /// The fastest speed the scene explains, m/s: initial speeds (a body's rim included) plus
    /// the speed of a fall through the container's largest extent, times [`SPEED_FACTOR`].
    speed: f64,
    /// Gravity's magnitude, m/s^2, when there is no container to stop a fall (the bound
    /// grows by `g t`); 0 with a container.
    free_fall: f64,
    /// The container grown by its largest extent on every side, where there is one.
    region: Option<(DVec3, DVec3)>,
}

/// A body's reach from its shape's origin, m: the farther corner of its bounding box.
fn reach(b: &RigidBody) -> f64 {
    let (lo, hi) = b.shape.bounds();
    lo.length().max(hi.length())
}

/// A body's fastest point speed, m/s.
fn rim_speed(b: &RigidBody) -> f64 {
    b.velocity().length() + b.angular_velocity().length() * reach(b)
}

impl StateGuard {
    /// The bounds for `sim` as set up from `scene` (bodies at their initial states).
    pub fn new(scene: &Scene, sim: &Simulation) -> StateGuard {
        let g = DVec3::from_array(scene.gravity).length();
        let mut v0 = scene
            .liquid
            .iter()
            .map(|b| DVec3::from_array(b.velocity).length())
            .fold(0.0, f64::max);
        for e in &scene.emitter {
            v0 = v0.max(e.speed);
        }
        for b in sim.bodies.iter().filter(|b| b.dynamic) {
            v0 = v0.max(rim_speed(b));
        }
        let (fall, free_fall, region) = match &scene.container {
            Some(c) => {
                let (lo, hi) = (DVec3::from_array(c.min), DVec3::from_array(c.max));
                let size = (hi - lo).max_element();
                (
                    (2.0 * g * size).sqrt(),
                    0.0,
                    Some((lo - DVec3::splat(size), hi + DVec3::splat(size))),
                )
            }
            None => (0.0, g, None),
        };
        StateGuard {
            speed: SPEED_FACTOR * (v0 + fall) + 1.0,
            free_fall,
            region,
        }
    }

    /// The speed bound at time `t`, m/s.
    pub fn speed_bound(&self, t: f64) -> f64 {
        self.speed + SPEED_FACTOR * self.free_fall * t
    }

    /// Check the state of `sim` after its last step: `Err` names the first particle (lowest
    /// slot) or body that is not finite, runs away or has left the container far behind.
    pub fn check(&self, sim: &Simulation) -> Result<(), String> {
        let bound = self.speed_bound(sim.time);
        let p = sim.particles();
        let b2 = (bound * bound) as f32;
        let region = self
            .region
            .map(|(lo, hi)| (Vec3A::from(lo.as_vec3()), Vec3A::from(hi.as_vec3())));
        let bad = (0..p.len()).into_par_iter().position_first(|i| {
            let (x, v) = (p.pos[i], p.vel[i]);
            !x.is_finite()
                || !v.is_finite()
                || v.length_squared() > b2
                || region.is_some_and(|(lo, hi)| x.cmplt(lo).any() || x.cmpgt(hi).any())
        });
        if let Some(i) = bad {
            let (x, v) = (p.pos[i], p.vel[i]);
            let what = if !x.is_finite() {
                format!("position {:?} is not finite", x.to_array())
            } else if !v.is_finite() {
                format!("velocity {:?} is not finite", v.to_array())
            } else if v.length_squared() > b2 {
                format!(
                    "speed {:.4e} m/s is above the bound of {bound:.4e} m/s the scene explains",
                    v.length()
                )
            } else {
                format!("position {:?} is far outside the container", x.to_array())
            };
            return Err(format!(
                "liquid particle {}: {what}; the step is unstable: raise time.substeps \
                 or lower the stiffness",
                p.id[i]
            ));
        }
        for b in sim.bodies.iter().filter(|b| b.dynamic) {
            let s = &b.state;
            let what = if !s.x.is_finite() {
                Some(format!("position {:?} is not finite", s.x.to_array()))
            } else if !s.q.is_finite() {
                Some(format!("orientation {:?} is not finite", s.q.to_array()))
            } else if !s.p.is_finite() {
                Some(format!(
                    "velocity {:?} is not finite",
                    b.velocity().to_array()
                ))
            } else if !s.l.is_finite() || !b.angular_velocity().is_finite() {
                Some(format!(
                    "angular momentum {:?} is not finite",
                    s.l.to_array()
                ))
            } else if rim_speed(b) > bound {
                Some(format!(
                    "speed {:.4e} m/s (centre {:.4e}, angular {:.4e} rad/s) is above the bound of \
                     {bound:.4e} m/s the scene explains",
                    rim_speed(b),
                    b.velocity().length(),
                    b.angular_velocity().length()
                ))
            } else if self
                .region
                .is_some_and(|(lo, hi)| s.x.cmplt(lo).any() || s.x.cmpgt(hi).any())
            {
                Some(format!(
                    "centre of mass {:?} is far outside the container",
                    s.x.to_array()
                ))
            } else {
                None
            };
            if let Some(what) = what {
                return Err(format!(
                    "body '{}': {what}; the step is unstable: raise time.substeps, lower \
                     coupling.penalty_stiffness or the initial speeds, or use integrator = \
                     \"implicit_midpoint\"",
                    b.name
                ));
            }
        }
        Ok(())
    }
}
