//! Time integrators for a rigid body's state: explicit Euler, RK4 on Euler's equations, and
//! an implicit midpoint rule that conserves kinetic energy and angular momentum.
use super::state::{BodyState, Inertia};
use glam::{DMat3, DQuat, DVec3};
use std::str::FromStr;

/// How a body's state is advanced over one step.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Integrator {
    /// The classic state-vector update (Baraff): x += v dt, q += 1/2 (0, w) q dt, P += F dt,
    /// L += N dt, all from the state at the start of the step. First order; its kinetic energy
    /// drifts.
    ExplicitEuler,
    /// Classic fourth-order Runge-Kutta on the orientation and Euler's equations in the body
    /// frame, `dw/dt = I^-1 (N - w x I w)`.
    Rk4,
    /// Implicit midpoint on the body-frame angular momentum with a Cayley (quaternion
    /// `(1, w dt/2)`) rotation update: conserves the kinetic energy and the world angular
    /// momentum of free rotation to round-off; torques enter as half impulses (Strang).
    #[default]
    ImplicitMidpoint,
}

impl Integrator {
    /// The name used in scene files.
    pub fn name(&self) -> &'static str {
        match self {
            Integrator::ExplicitEuler => "euler",
            Integrator::Rk4 => "rk4",
            Integrator::ImplicitMidpoint => "implicit_midpoint",
        }
    }

    /// All integrators, in the order of their names.
    pub const ALL: [Integrator; 3] = [
        Integrator::ExplicitEuler,
        Integrator::Rk4,
        Integrator::ImplicitMidpoint,
    ];
}

impl FromStr for Integrator {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Integrator::ALL
            .into_iter()
            .find(|i| i.name() == s)
            .ok_or_else(|| {
                format!(
                    "unknown integrator '{s}'; use one of \"euler\", \"rk4\", \"implicit_midpoint\""
                )
            })
    }
}

/// Advance `s` by `dt` under a constant world-frame `force` and `torque` (about the centre of mass).
pub fn step(
    method: Integrator,
    s: &BodyState,
    inertia: &Inertia,
    dt: f64,
    force: DVec3,
    torque: DVec3,
) -> BodyState {
    match method {
        Integrator::ExplicitEuler => euler(s, inertia, dt, force, torque),
        Integrator::Rk4 => rk4(s, inertia, dt, force, torque),
        Integrator::ImplicitMidpoint => implicit_midpoint(s, inertia, dt, force, torque),
    }
}

fn euler(s: &BodyState, m: &Inertia, dt: f64, force: DVec3, torque: DVec3) -> BodyState {
    let r = DMat3::from_quat(s.q);
    let omega = r * m.body_inv * r.transpose() * s.l;
    let qdot = DQuat::from_xyzw(omega.x, omega.y, omega.z, 0.0) * s.q * 0.5;
    BodyState {
        x: s.x + s.p / m.mass * dt,
        q: (s.q + qdot * dt).normalize(),
        p: s.p + force * dt,
        l: s.l + torque * dt,
    }
}

/// Translation under a constant force, exact: P += F dt, x += (P + F dt/2) dt / m.
fn translate(s: &BodyState, m: &Inertia, dt: f64, force: DVec3) -> (DVec3, DVec3) {
    let x = s.x + (s.p + force * (0.5 * dt)) / m.mass * dt;
    (x, s.p + force * dt)
}

fn rk4(s: &BodyState, m: &Inertia, dt: f64, force: DVec3, torque: DVec3) -> BodyState {
    // State: orientation q and body-frame angular velocity w.
    let deriv = |q: DQuat, w: DVec3| -> (DQuat, DVec3) {
        let n_body = q.conjugate() * torque;
        let dw = m.body_inv * (n_body - w.cross(m.body * w));
        let dq = q * DQuat::from_xyzw(w.x, w.y, w.z, 0.0) * 0.5;
        (dq, dw)
    };
    let q0 = s.q;
    let w0 = m.body_inv * (q0.conjugate() * s.l);
    let (k1q, k1w) = deriv(q0, w0);
    let (k2q, k2w) = deriv(q0 + k1q * (dt / 2.0), w0 + k1w * (dt / 2.0));
    let (k3q, k3w) = deriv(q0 + k2q * (dt / 2.0), w0 + k2w * (dt / 2.0));
    let (k4q, k4w) = deriv(q0 + k3q * dt, w0 + k3w * dt);
    let q = (q0 + (k1q + k2q * 2.0 + k3q * 2.0 + k4q) * (dt / 6.0)).normalize();
    let w = w0 + (k1w + k2w * 2.0 + k3w * 2.0 + k4w) * (dt / 6.0);
    let (x, p) = translate(s, m, dt, force);
    BodyState {
        x,
        q,
        p,
        l: q * (m.body * w),
    }
}

fn implicit_midpoint(
    s: &BodyState,
    m: &Inertia,
    dt: f64,
    force: DVec3,
    torque: DVec3,
) -> BodyState {
    let (x, p) = translate(s, m, dt, force);
    // Half torque impulse, free rotation, half torque impulse.
    let l_world = s.l + torque * (0.5 * dt);
    let lb0 = s.q.conjugate() * l_world;
    // The fixed point converges for dt |w| well below 1; larger steps are split.
    let mut parts = 1u32;
    let (q, lb) = loop {
        match free_rotation_substeps(s.q, lb0, m, dt, parts) {
            Some(done) => break done,
            None if parts < 1 << 16 => parts *= 2,
            // Only a non-finite or absurd spin rate gets here.
            None => return rk4(s, m, dt, force, torque),
        }
    };
    BodyState {
        x,
        q,
        p,
        l: q * lb + torque * (0.5 * dt),
    }
}

/// `parts` implicit midpoint steps of `dt / parts` of torque-free rotation from orientation `q`
/// and body-frame angular momentum `lb`; `None` if one of them does not converge.
fn free_rotation_substeps(
    mut q: DQuat,
    mut lb: DVec3,
    m: &Inertia,
    dt: f64,
    parts: u32,
) -> Option<(DQuat, DVec3)> {
    let h = dt / parts as f64;
    for _ in 0..parts {
        let (lb1, omega_mid) = free_rotation_midpoint(lb, m, h)?;
        let half = omega_mid * (0.5 * h);
        let dq = DQuat::from_xyzw(half.x, half.y, half.z, 1.0).normalize();
        q = (q * dq).normalize();
        lb = lb1;
    }
    Some((q, lb))
}

/// Solve the implicit midpoint step of torque-free Euler equations for the body-frame angular
/// momentum, `L1 = L0 + dt Lm x (I^-1 Lm)` with `Lm = (L0 + L1)/2`, by fixed-point iteration
/// to round-off; returns L1 and the midpoint angular velocity, or `None` when the iteration
/// does not converge (the step is too large for the spin rate).
pub fn free_rotation_midpoint(l0: DVec3, m: &Inertia, dt: f64) -> Option<(DVec3, DVec3)> {
    let mut l1 = l0;
    let scale = l0.length();
    if scale == 0.0 {
        return Some((l0, DVec3::ZERO));
    }
    let mut last_change = f64::INFINITY;
    for it in 0..100 {
        let lm = (l0 + l1) * 0.5;
        let next = l0 + lm.cross(m.body_inv * lm) * dt;
        let change = (next - l1).length();
        l1 = next;
        if change <= 2.0 * f64::EPSILON * scale {
            let lm = (l0 + l1) * 0.5;
            return Some((l1, m.body_inv * lm));
        }
        if it > 3 && change > 0.9 * last_change && change > 1e-12 * scale {
            return None; // not contracting
        }
        last_change = change;
    }
    // Round-off may keep the last bits oscillating: accept a tiny residual.
    let lm = (l0 + l1) * 0.5;
    (last_change <= 1e-13 * scale).then(|| (l1, m.body_inv * lm))
}
