//! The check that a contact step's bounces add no kinetic energy: Newton's restitution applied
//! to many contacts at once can raise it (a body bouncing on a dozen liquid particles can fling
//! one of them faster than anything in the scene), and such a step is solved again without
//! bounce. A kinematic body moving at a set velocity feeds energy in: the energy is then
//! measured in its frame, where its bounces add none; with several moving kinematic bodies, or
//! one that turns, there is no such frame and the bounces stand as Newton's law gives them.
use super::liquid_body::{SlotLookup, first_of_slot_into};
use super::touches::LiquidTouch;
use crate::rigid::RigidBody;
use glam::DVec3;

/// A step's impulses may raise the kinetic energy of what they touch by this fraction of it
/// (rounding) before the bounce is withdrawn.
const ENERGY_RISE_TOL: f64 = 1e-9;

/// The bodies' momenta around a solve and the scratch buffers of the energy sums, kept between
/// steps so that a check allocates nothing once they have grown.
#[derive(Debug, Clone, Default)]
pub struct EnergyCheck {
    before: Vec<(DVec3, DVec3)>,
    after: Vec<(DVec3, DVec3)>,
    slots: Vec<u32>,
    order: Vec<usize>,
    first: Vec<usize>,
    changes: SlotLookup<DVec3>,
}

impl EnergyCheck {
    /// Keep the bodies' linear and angular momenta before the solve.
    pub fn before(&mut self, bodies: &[RigidBody]) {
        momenta(bodies, &mut self.before);
    }

    /// Whether the impulses applied since [`EnergyCheck::before`] (to the bodies, and `dv` by
    /// slot to the touching `liquid`) keep the kinetic energy of what they touch within
    /// rounding of what it was. If they do the bodies keep them; if not the bodies are set
    /// back to their momenta before (the impulses change nothing else).
    pub fn keeps_energy(
        &mut self,
        bodies: &mut [RigidBody],
        liquid: &[LiquidTouch],
        dv: &[(u32, DVec3)],
    ) -> bool {
        let Some(u) = frame(bodies) else {
            return true;
        };
        let after = self.kinetic_energy(bodies, liquid, dv, u);
        momenta(bodies, &mut self.after);
        set_momenta(bodies, &self.before);
        let before = self.kinetic_energy(bodies, liquid, &[], u);
        let kept = after - before <= ENERGY_RISE_TOL * before;
        if kept {
            set_momenta(bodies, &self.after);
        }
        kept
    }

    /// The kinetic energy of the bodies and of the touching liquid particles, these with the
    /// velocity changes `dv` (by slot) added, in the frame moving at `u`.
    fn kinetic_energy(
        &mut self,
        bodies: &[RigidBody],
        liquid: &[LiquidTouch],
        dv: &[(u32, DVec3)],
        u: DVec3,
    ) -> f64 {
        self.slots.clear();
        self.slots.extend(liquid.iter().map(|t| t.contact.slot));
        first_of_slot_into(&self.slots, &mut self.order, &mut self.first);
        let (first, changes) = (&self.first, &mut self.changes);
        changes.refill(dv.iter().copied());
        let particles: f64 = liquid
            .iter()
            .enumerate()
            .filter(|&(i, _)| first[i] == i)
            .map(|(_, t)| {
                let v = t.vel + changes.get(t.contact.slot).unwrap_or(DVec3::ZERO) - u;
                0.5 * v.length_squared() / t.inv_mass
            })
            .sum();
        particles
            + bodies
                .iter()
                .filter(|b| b.dynamic)
                .map(|b| {
                    if u == DVec3::ZERO {
                        b.kinetic_energy()
                    } else {
                        b.kinetic_energy() - b.state.p.dot(u) + 0.5 * b.mass() * u.length_squared()
                    }
                })
                .sum::<f64>()
    }
}

/// The frame whose kinetic energy the bounces may not raise: at rest, or moving with the one
/// kinematic body that moves (without turning); `None` when there is no such frame.
fn frame(bodies: &[RigidBody]) -> Option<DVec3> {
    let mut u = None;
    for b in bodies.iter().filter(|b| b.motion.is_some()) {
        let (v, w) = (b.velocity(), b.angular_velocity());
        if v == DVec3::ZERO && w == DVec3::ZERO {
            continue;
        }
        if u.is_some() || w != DVec3::ZERO {
            return None;
        }
        u = Some(v);
    }
    Some(u.unwrap_or(DVec3::ZERO))
}

/// Each body's linear and angular momentum, into `out` (cleared first).
fn momenta(bodies: &[RigidBody], out: &mut Vec<(DVec3, DVec3)>) {
    out.clear();
    out.extend(bodies.iter().map(|b| (b.state.p, b.state.l)));
}

/// Set each body's linear and angular momentum.
fn set_momenta(bodies: &mut [RigidBody], momenta: &[(DVec3, DVec3)]) {
    for (b, &(p, l)) in bodies.iter_mut().zip(momenta) {
        b.state.p = p;
        b.state.l = l;
    }
}
