//! The check that a contact step's bounces add no kinetic energy: Newton's restitution applied
//! to many contacts at once can raise it (a body bouncing on a dozen liquid particles can fling
//! one of them faster than anything in the scene), and such a step is solved again without
//! bounce.
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
        let after = self.kinetic_energy(bodies, liquid, dv);
        momenta(bodies, &mut self.after);
        set_momenta(bodies, &self.before);
        let before = self.kinetic_energy(bodies, liquid, &[]);
        let kept = after - before <= ENERGY_RISE_TOL * before;
        if kept {
            set_momenta(bodies, &self.after);
        }
        kept
    }

    /// The kinetic energy of the bodies and of the touching liquid particles, these with the
    /// velocity changes `dv` (by slot) added.
    fn kinetic_energy(
        &mut self,
        bodies: &[RigidBody],
        liquid: &[LiquidTouch],
        dv: &[(u32, DVec3)],
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
                let v = t.vel + changes.get(t.contact.slot).unwrap_or(DVec3::ZERO);
                0.5 * v.length_squared() / t.inv_mass
            })
            .sum();
        particles
            + bodies
                .iter()
                .filter(|b| b.dynamic)
                .map(RigidBody::kinetic_energy)
                .sum::<f64>()
    }
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
