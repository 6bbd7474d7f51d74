//! Torque-free tumbling near the intermediate axis (the "Dzhanibekov" flip) against the Jacobi
//! elliptic solution of Landau & Lifshitz section 37, and the conservation properties of the
//! three integrators.
//!
//! The flip period is the time between successive sign changes of the angular-velocity
//! component along the intermediate principal axis; it is half the Jacobi period,
//! `2 K(k) / lambda`.
//!
//! Figures for docs/src/validation.md: `cargo test --test bodies -- free_rotation:: --nocapture`.
use glam::DVec3;
use sphrigid::rigid::free_rotation::jacobi_motion;
use sphrigid::rigid::{Integrator, Primitive, RigidBody, Shape};

/// A 1 x 2 x 3 box of density 1: principal moments (6.5, 5, 2.5), intermediate axis y.
fn body(integrator: Integrator) -> RigidBody {
    let shape = Shape::Primitive(Primitive::Box {
        size: DVec3::new(1.0, 2.0, 3.0),
    });
    let mut b = RigidBody::new("box", &shape, 1.0, 0.25).unwrap();
    b.integrator = integrator;
    // Spin about the intermediate axis, slightly off it.
    b.set_angular_velocity(OMEGA0);
    b
}

const OMEGA0: DVec3 = DVec3::new(0.02, 1.0, 0.01);

/// Body-frame angular velocity.
fn omega_body(b: &RigidBody) -> DVec3 {
    b.inertia.body_inv * (b.state.q.conjugate() * b.state.l)
}

struct Run {
    /// Times of sign changes of the intermediate component (linear interpolation).
    crossings: Vec<f64>,
    /// Largest relative deviation of the kinetic energy from its initial value.
    energy_drift: f64,
    /// Largest relative deviation of |L|.
    momentum_drift: f64,
    /// Final relative deviation of the kinetic energy.
    final_energy_drift: f64,
}

fn simulate(integrator: Integrator, dt: f64, t_end: f64) -> Run {
    let mut b = body(integrator);
    let e0 = b.kinetic_energy();
    let l0 = b.state.l.length();
    let mut crossings = Vec::new();
    let (mut energy_drift, mut momentum_drift) = (0.0f64, 0.0f64);
    let mut t = 0.0;
    let mut w_prev = omega_body(&b).y;
    let steps = (t_end / dt).round() as usize;
    for _ in 0..steps {
        b.step(dt, DVec3::ZERO, DVec3::ZERO);
        t += dt;
        let w = omega_body(&b).y;
        if w_prev != 0.0 && w.signum() != w_prev.signum() {
            crossings.push(t - dt + dt * w_prev / (w_prev - w));
        }
        w_prev = w;
        energy_drift = energy_drift.max((b.kinetic_energy() / e0 - 1.0).abs());
        momentum_drift = momentum_drift.max((b.state.l.length() / l0 - 1.0).abs());
    }
    Run {
        crossings,
        energy_drift,
        momentum_drift,
        final_energy_drift: b.kinetic_energy() / e0 - 1.0,
    }
}

fn analytic() -> f64 {
    // Body frame = principal frame for the box; moments along x, y, z.
    let b = body(Integrator::Rk4);
    let moments = DVec3::new(
        b.inertia.body.x_axis.x,
        b.inertia.body.y_axis.y,
        b.inertia.body.z_axis.z,
    );
    jacobi_motion(moments, OMEGA0).unwrap().flip_period
}

#[test]
fn rk4_flip_period_matches_the_jacobi_solution() {
    let flip = analytic();
    let dt = 0.02;
    assert!(flip / dt > 500.0 && flip / dt < 5000.0, "flip {flip}");
    let run = simulate(Integrator::Rk4, dt, 8.5 * flip);
    let c = &run.crossings;
    // The first crossing is half a flip after the start (w2 ~ sn passes zero mid-flip when it
    // starts near its maximum); measure whole intervals only.
    assert!(
        c.len() >= 8,
        "only {} flips seen in {} s",
        c.len(),
        8.5 * flip
    );
    let intervals: Vec<f64> = c.windows(2).map(|w| w[1] - w[0]).collect();
    let worst = intervals
        .iter()
        .map(|i| (i / flip - 1.0).abs())
        .fold(0.0, f64::max);
    let mean = (c[c.len() - 1] - c[0]) / (c.len() - 1) as f64;
    println!(
        "RK4 dt={dt}: analytic flip period {flip:.6} s, measured mean {mean:.6} s over {} flips, \
         relative error mean {:.2e}, worst interval {worst:.2e}",
        intervals.len(),
        (mean / flip - 1.0).abs()
    );
    assert!(worst < 0.01, "worst interval error {worst}");
    // Full Jacobi period: every other crossing.
    let full = c[2] - c[0];
    assert!((full / (2.0 * flip) - 1.0).abs() < 0.01);
}

#[test]
fn implicit_midpoint_keeps_energy_and_momentum_over_100_flips() {
    let flip = analytic();
    let run = simulate(Integrator::ImplicitMidpoint, 0.02, 100.5 * flip);
    println!(
        "implicit midpoint dt=0.02 over {} flips: max relative drift of kinetic energy {:.2e}, of |L| {:.2e}",
        run.crossings.len(),
        run.energy_drift,
        run.momentum_drift
    );
    assert!(run.crossings.len() >= 100, "{} flips", run.crossings.len());
    assert!(run.energy_drift < 1e-6, "energy drift {}", run.energy_drift);
    assert!(
        run.momentum_drift < 1e-6,
        "|L| drift {}",
        run.momentum_drift
    );
    // It also keeps the flip period (second order in dt).
    let c = &run.crossings;
    let mean = (c[c.len() - 1] - c[0]) / (c.len() - 1) as f64;
    assert!(
        (mean / flip - 1.0).abs() < 0.01,
        "mean flip {mean} vs {flip}"
    );
}

#[test]
fn explicit_euler_drift_is_measured_and_exceeds_the_conservative_one() {
    let flip = analytic();
    let t_end = 100.5 * flip;
    let euler = simulate(Integrator::ExplicitEuler, 0.02, t_end);
    let rk4 = simulate(Integrator::Rk4, 0.02, t_end);
    let mid = simulate(Integrator::ImplicitMidpoint, 0.02, t_end);
    for (name, r) in [
        ("explicit euler", &euler),
        ("rk4", &rk4),
        ("implicit midpoint", &mid),
    ] {
        println!(
            "{name:18} dt=0.02, {:.0} s (100 analytic flips): kinetic energy drift max {:.3e}, final {:+.3e}; |L| drift {:.3e}; {} sign changes of w2",
            t_end,
            r.energy_drift,
            r.final_energy_drift,
            r.momentum_drift,
            r.crossings.len()
        );
    }
    // Over one flip and at a ten times smaller step: first order, so the drift shrinks ~10x.
    let one = simulate(Integrator::ExplicitEuler, 0.02, flip);
    let fine = simulate(Integrator::ExplicitEuler, 0.002, flip);
    println!(
        "explicit euler over one flip ({flip:.2} s): kinetic energy drift {:.3e} at dt=0.02, {:.3e} at dt=0.002",
        one.energy_drift, fine.energy_drift
    );
    let ratio = one.energy_drift / fine.energy_drift;
    assert!(
        ratio > 5.0 && ratio < 50.0,
        "drift does not shrink like a first-order method: ratio {ratio}"
    );
    // Baraff's explicit Euler keeps L exactly (torque-free) but its energy grows.
    assert!(euler.momentum_drift < 1e-12);
    assert!(euler.final_energy_drift > 0.0);
    assert!(euler.energy_drift > 1e3 * mid.energy_drift.max(1e-15));
    assert!(euler.energy_drift > rk4.energy_drift);
}
