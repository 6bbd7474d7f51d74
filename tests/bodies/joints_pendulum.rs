//! A body on a hinge is a physical pendulum: it swings with the small-angle period
//! `T = 2 pi sqrt(I_axis / (m g d))`, its energy stays bounded over 100 periods, and the hinge
//! holds to round-off; a hinge with limits stops the swing at them.
use glam::{DMat3, DQuat, DVec3};
use sphrigid::backend::Backend;
use sphrigid::joints::Pose;
use sphrigid::sim::Simulation;
use std::f64::consts::PI;

use crate::common;

const G: f64 = 9.81;
/// The bar: 0.05 x 0.3 x 0.05 m, hinged at the middle of its top face.
const SIZE: [f64; 3] = [0.05, 0.3, 0.05];
const PIVOT_BODY: DVec3 = DVec3::new(0.0, 0.15, 0.0);

/// A scene with the bar hinged to the world at the origin about z, turned `tilt` about its own
/// long axis first (so that its principal axes are off the hinge axis) and then swung out by
/// `theta0` about the hinge; `extra` is added to the joint's table and `velocity` is the
/// bar's initial angular velocity about z.
fn scene(theta0: f64, tilt: f64, omega: f64, extra: &str) -> String {
    let q = DQuat::from_rotation_z(theta0) * DQuat::from_rotation_x(tilt);
    let x = -(q * PIVOT_BODY);
    let v = DVec3::Z.cross(-PIVOT_BODY) * omega;
    format!(
        r#"gravity = [0, -{G}, 0]
[time]
fps = 100
frames = 100
substeps = 10        # dt = 1 ms
[[body]]
name = "bar"
shape = {{ type = "box", size = [{}, {}, {}] }}
spacing = 0.025
position = [{}, {}, {}]
orientation = {{ quaternion = [{}, {}, {}, {}] }}
velocity = [{}, {}, 0]
angular_velocity = [0, 0, {omega}]
[[joint]]
name = "pivot"
type = "hinge"
bodies = ["bar", "world"]
anchor = [0, 0, 0]
axis = [0, 0, 1]
{extra}
"#,
        SIZE[0], SIZE[1], SIZE[2], x.x, x.y, x.z, q.w, q.x, q.y, q.z, v.x, v.y
    )
}

fn setup(text: &str) -> Simulation {
    let loaded = common::scene(text);
    Simulation::setup(&loaded, Backend::Cpu).expect("it sets up")
}

/// What one pendulum run measured.
struct Swing {
    period: f64,
    analytic: f64,
    max_separation: f64,
    max_misalignment: f64,
    /// Largest |E - E0| over the run, with the potential taken at the middle of each step (the
    /// instant the velocity of a kick-then-drift step belongs to), over the swing energy.
    energy_error: f64,
    /// The same with the potential at the end of the step.
    energy_error_end: f64,
    /// The mean of that error over the last period minus its mean over the first.
    energy_trend: f64,
}

fn swing(theta0: f64, tilt: f64, periods: f64) -> Swing {
    let mut sim = setup(&scene(theta0, tilt, 0.0, ""));
    let b0 = sim.bodies[0].clone();
    let m = b0.mass();
    // At rest the bar hangs with the pivot straight above its centre of mass, at distance d
    // from the hinge line; its moment of inertia about the hinge line, by parallel axes.
    let rest = DMat3::from_quat(DQuat::from_rotation_x(tilt));
    let arm = rest * PIVOT_BODY;
    let d = DVec3::new(arm.x, arm.y, 0.0).length();
    let i_axis = (rest * b0.inertia.body * rest.transpose()).z_axis.z + m * d * d;
    let analytic = 2.0 * PI * (i_axis / (m * G * d)).sqrt();
    let swing_energy = m * G * d * (1.0 - theta0.cos());
    let energy = |sim: &Simulation, y: f64| sim.bodies[0].kinetic_energy() + m * G * y;
    let e0 = energy(&sim, b0.state.x.y);
    let steps = (periods * analytic / sim.dt) as usize;
    let per_period = (analytic / sim.dt) as usize;
    let (mut crossings, mut errors) = (Vec::new(), Vec::with_capacity(steps));
    let (mut max_separation, mut max_misalignment, mut energy_error_end) = (0.0f64, 0.0f64, 0.0f64);
    let mut prev = (theta0, b0.state.x.y);
    for k in 0..steps {
        sim.step().expect("the step runs");
        let poses = Pose::of_all(&sim.bodies);
        let e = sim.joints()[0].error(&poses);
        max_separation = max_separation.max(e.separation);
        max_misalignment = max_misalignment.max(e.misalignment);
        // The hinge angle is measured from the starting pose.
        let angle = e.angle + theta0;
        if prev.0 * angle <= 0.0 && prev.0 != 0.0 {
            crossings.push((k as f64 + prev.0 / (prev.0 - angle)) * sim.dt);
        }
        let y = sim.bodies[0].state.x.y;
        errors.push((energy(&sim, 0.5 * (y + prev.1)) - e0) / swing_energy);
        energy_error_end = energy_error_end.max((energy(&sim, y) - e0).abs() / swing_energy);
        prev = (angle, y);
    }
    let n = crossings.len();
    let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len() as f64;
    Swing {
        period: 2.0 * (crossings[n - 1] - crossings[0]) / (n - 1) as f64,
        analytic,
        max_separation,
        max_misalignment,
        energy_error: errors.iter().fold(0.0, |a, e| a.max(e.abs())),
        energy_error_end,
        energy_trend: mean(&errors[steps - per_period..]) - mean(&errors[..per_period]),
    }
}

#[test]
fn a_hinged_bar_swings_with_the_period_of_the_physical_pendulum() {
    let theta0 = 3f64.to_radians();
    // Hung straight, and turned 30 degrees about its long axis so that the hinge rows must
    // hold its principal axes off the hinge axis against the gyroscopic torque.
    for tilt in [0.0, 30f64.to_radians()] {
        let s = swing(theta0, tilt, 100.0);
        let err = s.period / s.analytic - 1.0;
        // The finite amplitude lengthens the period by theta0^2 / 16 + 11 theta0^4 / 3072.
        let amplitude = 1.0 + theta0.powi(2) / 16.0 + 11.0 * theta0.powi(4) / 3072.0;
        let err_amp = s.period / (s.analytic * amplitude) - 1.0;
        eprintln!(
            "tilt {:.0} deg: T = {:.6} s over 100 periods, analytic small-angle {:.6} s: error {err:.2e} ({err_amp:.2e} against the finite-amplitude period); energy error {:.2e} of the swing energy (end-of-step potential {:.2e}), trend over 100 periods {:.2e}; anchor separation {:.2e} m, axis misalignment {:.2e} rad",
            tilt.to_degrees(),
            s.period,
            s.analytic,
            s.energy_error,
            s.energy_error_end,
            s.energy_trend,
            s.max_separation,
            s.max_misalignment
        );
        assert!(err.abs() < 0.01, "period error {err:.3e}");
        // The step is 1/900 of a period: the scheme's own error is O((omega dt)^2), ~1e-5.
        assert!(
            err_amp.abs() < 1e-4,
            "finite-amplitude period error {err_amp:.3e}"
        );
        assert!(s.energy_error < 1e-3, "energy error {:.3e}", s.energy_error);
        assert!(
            s.energy_error_end < 1e-2,
            "energy error {:.3e}",
            s.energy_error_end
        );
        assert!(
            s.energy_trend.abs() < 1e-4,
            "energy trend {:.3e}",
            s.energy_trend
        );
        assert!(
            s.max_separation < 1e-9,
            "separation {:.3e}",
            s.max_separation
        );
        assert!(
            s.max_misalignment < 1e-9,
            "misalignment {:.3e}",
            s.max_misalignment
        );
    }
}

#[test]
fn a_hinge_stops_the_swing_at_its_limits() {
    // Thrown at 8 rad/s, the bar would swing past 90 degrees; its limits stop it at 30 and,
    // on the way back, at -20 (the stop is inelastic: it falls back from the limit at rest).
    let (lo, hi) = (-20f64.to_radians(), 30f64.to_radians());
    let mut sim = setup(&scene(0.0, 0.0, 8.0, "limits = [-20, 30]"));
    let (mut min, mut max) = (0.0f64, 0.0f64);
    let (mut max_separation, mut max_misalignment) = (0.0f64, 0.0f64);
    let mut hits = [0usize; 2];
    for _ in 0..3000 {
        sim.step().unwrap();
        let e = sim.joints()[0].error(&Pose::of_all(&sim.bodies));
        min = min.min(e.angle);
        max = max.max(e.angle);
        max_separation = max_separation.max(e.separation);
        max_misalignment = max_misalignment.max(e.misalignment);
        hits[0] += usize::from((e.angle - lo).abs() < 1e-9);
        hits[1] += usize::from((e.angle - hi).abs() < 1e-9);
    }
    eprintln!(
        "angle from {:.9} to {:.9} deg (limits -20, 30); steps at the limits {hits:?}; separation {max_separation:.2e} m, misalignment {max_misalignment:.2e} rad",
        min.to_degrees(),
        max.to_degrees()
    );
    assert!(max <= hi + 1e-9 && max > hi - 1e-9, "highest angle {max}");
    assert!(min >= lo - 1e-9 && min < lo + 1e-9, "lowest angle {min}");
    assert!(hits[0] > 0 && hits[1] > 0);
    assert!(max_separation < 1e-9 && max_misalignment < 1e-9);
}
