//! Position-level correction at the end of a step (docs/design.md, step 10): what still overlaps is
//! pushed apart to within a small slop, liquid out of bodies and bodies out of walls and each
//! other, so that errors do not accumulate.
use super::body_contacts::{BodyContact, wall_contacts};
use super::liquid_body::{LiquidBodyContact, SlotLookup, sum_by_slot};
use crate::liquid::params::LiquidParams;
use crate::rigid::RigidBody;
use glam::DVec3;

/// Liquid particles overlapping a body by more than this fraction of the spacing are pushed out
/// to it at the end of a step.
pub const LIQUID_SLOP: f64 = 0.05;

/// Bodies overlapping a wall or each other by more than this fraction of their spacing are
/// pushed apart.
pub const BODY_SLOP: f64 = 0.01;

/// The position corrections of liquid particles that overlap a body by more than the slop:
/// along the body's normal, to within the slop, but never through a wall. What a wall blocks
/// moves the body instead: the returned per-body shifts (a particle caught between a body and a
/// wall holds the body off the wall).
pub fn push_out(
    contacts: &[LiquidBodyContact],
    params: &LiquidParams,
    bodies: usize,
) -> (Vec<(u32, DVec3)>, Vec<DVec3>) {
    let slop = LIQUID_SLOP * params.spacing as f64;
    let mut shift = vec![DVec3::ZERO; bodies];
    let pushes = sum_by_slot(
        contacts
            .iter()
            .filter(|c| c.depth > slop)
            .map(|c| (c.slot, c.normal * (c.depth - slop)))
            .collect(),
    );
    let Some(w) = &params.walls else {
        return (pushes, shift);
    };
    let (lo, hi) = (w.lo.as_dvec3(), w.hi.as_dvec3());
    let point = SlotLookup::new(contacts.iter().map(|c| (c.slot, (c.point, c.body))));
    let pushes = pushes
        .into_iter()
        .map(|(slot, d)| {
            let (x, body) = point.get(slot).expect("a pushed slot has a contact");
            let to = (x + d).clamp(lo, hi.max(lo));
            let blocked = x + d - to;
            if let Some(n) = blocked.try_normalize() {
                raise_along(&mut shift[body as usize], -n, blocked.length());
            }
            (slot, to - x)
        })
        .collect();
    (pushes, shift)
}

/// Make the component of `shift` along the unit vector `n` at least `amount`.
pub fn raise_along(shift: &mut DVec3, n: DVec3, amount: f64) {
    let have = shift.dot(n);
    if amount > have {
        *shift += n * (amount - have);
    }
}

/// Push bodies out of the walls and apart from each other (shared by inverse mass) to within a
/// small slop, together with the shifts `extra` that liquid caught against walls asks for.
/// `solid` holds the body/body contacts; the wall contacts are found here.
pub fn correct_bodies(
    params: &LiquidParams,
    bodies: &mut [RigidBody],
    mut solid: Vec<BodyContact>,
    extra: &[DVec3],
) {
    let r_l = params.spacing as f64 / 2.0;
    let mut shift = extra.to_vec();
    shift.resize(bodies.len(), DVec3::ZERO);
    if let Some(w) = &params.walls {
        solid.extend(wall_contacts(bodies, w, r_l));
    }
    for c in &solid {
        let a = c.a as usize;
        let depth = c.depth - BODY_SLOP * bodies[a].clump.spacing;
        if depth <= 0.0 {
            continue;
        }
        let ia = bodies[a].inverse_mass();
        let ib = c.b.map_or(0.0, |b| bodies[b as usize].inverse_mass());
        if ia + ib == 0.0 {
            continue;
        }
        // The deepest contact along each direction sets the push (no double counting of
        // the corners of one patch).
        raise_along(&mut shift[a], c.normal, depth * ia / (ia + ib));
        if let Some(b) = c.b {
            raise_along(&mut shift[b as usize], -c.normal, depth * ib / (ia + ib));
        }
    }
    for (body, s) in bodies.iter_mut().zip(shift) {
        if body.dynamic {
            body.state.x += s;
        }
    }
}
