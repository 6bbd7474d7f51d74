//! The penalty coupling, for comparison with the exact LCP: every contact is a spring on its
//! penetration and a damper on its normal velocity, `f = max(0, k d - c v_n)`, with Coulomb
//! friction capped at `mu f`. It is explicit: forces from this step's overlaps move this step's
//! velocities, and nothing is corrected at position level.
use super::body_contacts::BodyContact;
use super::liquid_body::sum_by_slot;
use super::touches::LiquidTouch;
use crate::rigid::RigidBody;
use glam::DVec3;

/// Spring and damper settings of the penalty coupling.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PenaltyParams {
    /// Stiffness per contact, N/m; `None`: from each contact's effective mass and
    /// `contact_steps`.
    pub stiffness: Option<f64>,
    /// Steps per undamped contact period when the stiffness is automatic.
    pub contact_steps: f64,
    /// Damping as a fraction of critical damping.
    pub damping: f64,
    /// Coulomb friction between liquid and bodies.
    pub liquid_friction: f64,
}

impl PenaltyParams {
    /// Stiffness and damping coefficient of a contact of effective mass `m` at step `dt`.
    fn spring(&self, m: f64, dt: f64) -> (f64, f64) {
        let k = self.stiffness.unwrap_or_else(|| {
            let w = 2.0 * std::f64::consts::PI / (self.contact_steps * dt);
            m * w * w
        });
        (k, 2.0 * self.damping * (k * m).sqrt())
    }
}

/// `1 / m_eff` of a dynamic body at world point `at` along unit `n`: `1/M + (r x n).I^-1 (r x n)`.
fn body_compliance(body: &RigidBody, at: DVec3, n: DVec3) -> f64 {
    if !body.dynamic {
        return 0.0;
    }
    let rn = (at - body.state.x).cross(n);
    body.inverse_mass() + rn.dot(body.world_inverse_inertia() * rn)
}

/// The normal impulse of one contact over `dt` and the tangential impulse (a vector in the
/// tangent plane) that Coulomb friction `mu` allows against the tangential velocity `v_t`.
fn contact_impulse(
    params: &PenaltyParams,
    inv_mass: f64,
    depth: f64,
    v_n: f64,
    v_t: DVec3,
    mu: f64,
    dt: f64,
) -> (f64, DVec3) {
    if inv_mass <= 0.0 {
        return (0.0, DVec3::ZERO);
    }
    let m = 1.0 / inv_mass;
    let (k, c) = params.spring(m, dt);
    let f = (k * depth - c * v_n).max(0.0);
    let jn = f * dt;
    // Friction stops the sliding within the step at most.
    let speed = v_t.length();
    let jt = if mu > 0.0 && speed > 0.0 {
        -v_t / speed * (mu * jn).min(m * speed)
    } else {
        DVec3::ZERO
    };
    (jn, jt)
}

/// Apply the penalty impulses of one step: to the bodies directly, and to the liquid as
/// velocity changes returned per touching slot (summed over the bodies a particle touches).
/// The liquid's impulse and angular impulse on each body (dynamic or not) are added to `loads`.
pub fn apply_penalty(
    params: &PenaltyParams,
    bodies: &mut [RigidBody],
    liquid: &[LiquidTouch],
    solid: &[BodyContact],
    dt: f64,
    loads: &mut [(DVec3, DVec3)],
) -> Vec<(u32, DVec3)> {
    let mut dv: Vec<(u32, DVec3)> = Vec::with_capacity(liquid.len());
    for t in liquid {
        let c = &t.contact;
        let body = &bodies[c.body as usize];
        let rel = t.vel - body.point_velocity(c.point);
        let v_n = rel.dot(c.normal);
        let v_t = rel - c.normal * v_n;
        let inv_mass = t.inv_mass + body_compliance(body, c.point, c.normal);
        let (jn, jt) = contact_impulse(
            params,
            inv_mass,
            c.depth,
            v_n,
            v_t,
            params.liquid_friction,
            dt,
        );
        let j = c.normal * jn + jt;
        if j == DVec3::ZERO {
            continue;
        }
        let r = c.point - body.state.x;
        bodies[c.body as usize].apply_impulse(-j, c.point);
        let load = &mut loads[c.body as usize];
        load.0 -= j;
        load.1 -= r.cross(j);
        dv.push((c.slot, j * t.inv_mass));
    }
    for c in solid {
        let a = c.a as usize;
        let (ra, rb) = (&bodies[a], c.b.map(|b| &bodies[b as usize]));
        let (e_mu, inv_b) = match rb {
            Some(b) => (
                (ra.friction * b.friction).sqrt(),
                body_compliance(b, c.point, c.normal),
            ),
            None => (ra.friction, 0.0),
        };
        let rel =
            ra.point_velocity(c.point) - rb.map_or(DVec3::ZERO, |b| b.point_velocity(c.point));
        let v_n = rel.dot(c.normal);
        let v_t = rel - c.normal * v_n;
        let inv_mass = body_compliance(ra, c.point, c.normal) + inv_b;
        let (jn, jt) = contact_impulse(params, inv_mass, c.depth, v_n, v_t, e_mu, dt);
        let j = c.normal * jn + jt;
        bodies[a].apply_impulse(j, c.point);
        if let Some(b) = c.b {
            bodies[b as usize].apply_impulse(-j, c.point);
        }
    }
    sum_by_slot(dv)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn automatic_stiffness_gives_the_chosen_contact_period() {
        let p = PenaltyParams {
            stiffness: None,
            contact_steps: 10.0,
            damping: 0.0,
            liquid_friction: 0.0,
        };
        let (m, dt) = (0.25, 1e-3);
        let (k, c) = p.spring(m, dt);
        let period = 2.0 * std::f64::consts::PI * (m / k).sqrt();
        assert!((period - 10.0 * dt).abs() < 1e-12, "period {period}");
        assert_eq!(c, 0.0);
    }

    #[test]
    fn friction_never_reverses_the_sliding() {
        let p = PenaltyParams {
            stiffness: Some(1e6),
            contact_steps: 10.0,
            damping: 0.0,
            liquid_friction: 0.0,
        };
        // A deep contact with a slow slide: friction stops it exactly, not beyond.
        let v_t = DVec3::new(0.01, 0.0, 0.0);
        let (jn, jt) = contact_impulse(&p, 2.0, 0.01, 0.0, v_t, 1.0, 1e-3);
        assert!(jn > 0.0);
        assert!((jt - DVec3::new(-0.005, 0.0, 0.0)).length() < 1e-15, "{jt}");
        // A shallow one: Coulomb's cap holds.
        let (jn, jt) = contact_impulse(&p, 2.0, 1e-7, 0.0, DVec3::X, 0.5, 1e-3);
        assert!((jt.length() - 0.5 * jn).abs() < 1e-15);
    }
}
