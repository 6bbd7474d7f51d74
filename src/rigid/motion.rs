//! Prescribed motions of kinematic bodies: a body of infinite mass whose pose is a function of
//! time. [`Motion::pose`] gives the centre of mass and orientation at a time; over a step the
//! body moves from one pose to the next at the constant velocities [`Motion::step_velocities`]
//! gives, which are what its contacts see.
use glam::{DQuat, DVec3};

/// A prescribed motion, relative to the body's pose at time 0 (`x0`, `q0`) except keyframes,
/// which are absolute.
#[derive(Debug, Clone, PartialEq)]
pub enum Motion {
    /// Constant velocities between `start` and `stop`, at rest before and after.
    Linear {
        /// Velocity of the centre of mass, m/s.
        velocity: DVec3,
        /// Angular velocity about the centre of mass, world frame, rad/s.
        angular_velocity: DVec3,
        /// When the motion starts, s.
        start: f64,
        /// When it stops, s (infinity: never).
        stop: f64,
    },
    /// `s(t) = A (r(t) sin(w t + phase) - r(0) sin(phase))`, `r` a half-cosine ramp from 0 to 1
    /// over `ramp` seconds (1 throughout when `ramp` is 0): a translation by `s` along `axis`,
    /// or a rotation by `s` radians about `axis` through `pivot`.
    Oscillate {
        /// Unit axis of the translation or rotation.
        axis: DVec3,
        /// Amplitude `A`, m (translation) or rad (rotation).
        amplitude: f64,
        /// Angular frequency `w = 2 pi / period`, rad/s.
        omega: f64,
        /// Phase, rad.
        phase: f64,
        /// Ramp time, s.
        ramp: f64,
        /// The rotation's pivot, world frame; `None`: a translation.
        pivot: Option<DVec3>,
    },
    /// Poses at increasing times, linear in the centre of mass and spherical-linear in the
    /// orientation between them, held before the first and after the last.
    Keyframes {
        /// Times, s, strictly increasing.
        times: Vec<f64>,
        /// Centre of mass at each time, world frame, m.
        positions: Vec<DVec3>,
        /// Orientation at each time (unit quaternions).
        orientations: Vec<DQuat>,
    },
}

/// A kinematic body's motion with its pose at time 0.
#[derive(Debug, Clone, PartialEq)]
pub struct Prescribed {
    /// The motion.
    pub motion: Motion,
    /// The centre of mass at time 0, m.
    pub x0: DVec3,
    /// The orientation at time 0.
    pub q0: DQuat,
}

impl Motion {
    /// The centre of mass and orientation at time `t` of a body that stood at `x0`, `q0` at
    /// time 0.
    pub fn pose(&self, t: f64, x0: DVec3, q0: DQuat) -> (DVec3, DQuat) {
        match self {
            Motion::Linear {
                velocity,
                angular_velocity,
                start,
                stop,
            } => {
                let tau = (t.min(*stop) - start).max(0.0);
                (
                    x0 + *velocity * tau,
                    (DQuat::from_scaled_axis(*angular_velocity * tau) * q0).normalize(),
                )
            }
            Motion::Oscillate {
                axis,
                amplitude,
                omega,
                phase,
                ramp,
                pivot,
            } => {
                let ramp_at = |t: f64| {
                    if *ramp > 0.0 && t < *ramp {
                        0.5 * (1.0 - (std::f64::consts::PI * t / ramp).cos())
                    } else {
                        1.0
                    }
                };
                let s = amplitude
                    * (ramp_at(t) * (omega * t + phase).sin() - ramp_at(0.0) * phase.sin());
                match pivot {
                    None => (x0 + *axis * s, q0),
                    Some(p) => {
                        let r = DQuat::from_axis_angle(*axis, s);
                        (*p + r * (x0 - *p), (r * q0).normalize())
                    }
                }
            }
            Motion::Keyframes {
                times,
                positions,
                orientations,
            } => {
                let last = times.len() - 1;
                if t <= times[0] {
                    return (positions[0], orientations[0]);
                }
                if t >= times[last] {
                    return (positions[last], orientations[last]);
                }
                // The segment [times[k], times[k + 1]) holding t.
                let k = times.partition_point(|&tk| tk <= t) - 1;
                let u = (t - times[k]) / (times[k + 1] - times[k]);
                let (a, mut b) = (orientations[k], orientations[k + 1]);
                if a.dot(b) < 0.0 {
                    b = -b;
                }
                (
                    positions[k].lerp(positions[k + 1], u),
                    a.slerp(b, u).normalize(),
                )
            }
        }
    }

    /// The constant velocity and world angular velocity that take the body from its pose at
    /// `t` to its pose at `t + dt`.
    pub fn step_velocities(&self, t: f64, dt: f64, x0: DVec3, q0: DQuat) -> (DVec3, DVec3) {
        let (xa, qa) = self.pose(t, x0, q0);
        let (xb, mut qb) = self.pose(t + dt, x0, q0);
        if qa.dot(qb) < 0.0 {
            qb = -qb;
        }
        let turn = (qb * qa.inverse()).normalize();
        ((xb - xa) / dt, turn.to_scaled_axis() / dt)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::f64::consts::PI;

    const X0: DVec3 = DVec3::new(0.1, 0.2, 0.3);

    #[test]
    fn a_linear_motion_moves_between_start_and_stop_only() {
        let m = Motion::Linear {
            velocity: DVec3::new(0.0, 0.5, 0.0),
            angular_velocity: DVec3::new(0.0, 0.0, PI),
            start: 1.0,
            stop: 3.0,
        };
        let q0 = DQuat::IDENTITY;
        assert_eq!(m.pose(0.5, X0, q0).0, X0);
        let (x, q) = m.pose(2.0, X0, q0);
        assert!((x - (X0 + DVec3::new(0.0, 0.5, 0.0))).length() < 1e-15);
        assert!(q.angle_between(DQuat::from_rotation_z(PI)) < 1e-12);
        let (x, _) = m.pose(10.0, X0, q0);
        assert!((x.y - (0.2 + 1.0)).abs() < 1e-15);
        let (v, w) = m.step_velocities(2.0, 1e-3, X0, q0);
        assert!((v - DVec3::new(0.0, 0.5, 0.0)).length() < 1e-10);
        assert!((w - DVec3::new(0.0, 0.0, PI)).length() < 1e-9);
        // A step across the stop moves for the part before it.
        let (v, _) = m.step_velocities(3.0 - 5e-4, 1e-3, X0, q0);
        assert!((v.y - 0.25).abs() < 1e-9, "{v}");
    }

    #[test]
    fn an_oscillation_starts_at_rest_and_swings_with_its_amplitude_and_period() {
        let m = Motion::Oscillate {
            axis: DVec3::X,
            amplitude: 0.05,
            omega: 2.0 * PI / 2.0,
            phase: 0.0,
            ramp: 0.0,
            pivot: None,
        };
        let q0 = DQuat::IDENTITY;
        assert_eq!(m.pose(0.0, X0, q0).0, X0);
        assert!((m.pose(0.5, X0, q0).0.x - (0.1 + 0.05)).abs() < 1e-15);
        assert!((m.pose(2.0, X0, q0).0.x - 0.1).abs() < 1e-15);
        // The peak speed A w at t = 0 (no ramp), over a short step.
        let (v, _) = m.step_velocities(-5e-7, 1e-6, X0, q0);
        assert!((v.x - 0.05 * PI).abs() < 1e-6, "{v}");
        // With a ramp it leaves at rest; with a phase it still starts where it was placed.
        let ramped = Motion::Oscillate {
            axis: DVec3::X,
            amplitude: 0.05,
            omega: PI,
            phase: 0.7,
            ramp: 1.0,
            pivot: None,
        };
        assert_eq!(ramped.pose(0.0, X0, q0).0, X0);
        assert!(ramped.step_velocities(0.0, 1e-6, X0, q0).0.length() < 1e-6);
        // A flap: a rotation about a pivot below the body keeps its distance to the pivot.
        let flap = Motion::Oscillate {
            axis: DVec3::Z,
            amplitude: 0.3,
            omega: 2.0 * PI,
            phase: 0.0,
            ramp: 0.0,
            pivot: Some(DVec3::new(0.1, 0.0, 0.3)),
        };
        let (x, q) = flap.pose(0.25, X0, q0);
        assert!(((x - DVec3::new(0.1, 0.0, 0.3)).length() - 0.2).abs() < 1e-15);
        assert!((q.angle_between(q0) - 0.3).abs() < 1e-12);
    }

    #[test]
    fn keyframes_are_met_exactly_and_interpolated_between() {
        let q1 = DQuat::from_rotation_y(PI / 2.0);
        let m = Motion::Keyframes {
            times: vec![0.0, 1.0, 3.0],
            positions: vec![X0, X0 + DVec3::X, X0 + DVec3::X],
            orientations: vec![DQuat::IDENTITY, DQuat::IDENTITY, q1],
        };
        let q0 = DQuat::IDENTITY;
        assert_eq!(m.pose(1.0, X0, q0), (X0 + DVec3::X, DQuat::IDENTITY));
        assert!((m.pose(0.25, X0, q0).0 - (X0 + 0.25 * DVec3::X)).length() < 1e-15);
        let (_, q) = m.pose(2.0, X0, q0);
        assert!((q.angle_between(DQuat::IDENTITY) - PI / 4.0).abs() < 1e-12);
        assert_eq!(m.pose(5.0, X0, q0).1, q1);
        let (v, w) = m.step_velocities(0.5, 1e-3, X0, q0);
        assert!((v - DVec3::X).length() < 1e-9);
        assert!(w.length() < 1e-12);
        let (_, w) = m.step_velocities(2.0, 1e-3, X0, q0);
        assert!((w - DVec3::new(0.0, PI / 4.0, 0.0)).length() < 1e-9, "{w}");
    }
}
