//! Position-level correction at the end of a step (docs/src/design.md, step 10): what still overlaps is
//! pushed apart to within a small slop, liquid out of bodies and bodies out of walls and each
//! other, so that errors do not accumulate.
use super::body_contacts::{BodyContact, ContactBuffers, wall_contacts_into};
use super::liquid_body::{LiquidBodyContact, SlotLookup, SlotSums, sum_by_slot_into};
use crate::liquid::params::LiquidParams;
use crate::rigid::RigidBody;
use glam::DVec3;

/// Liquid particles overlapping a body by more than this fraction of the spacing are pushed out
/// to it at the end of a step.
pub const LIQUID_SLOP: f64 = 0.05;

/// Bodies overlapping a wall or each other by more than this fraction of their spacing are
/// pushed apart.
pub const BODY_SLOP: f64 = 0.01;

/// The scratch buffers of [`push_out`], kept between steps.
#[derive(Debug, Clone, Default)]
pub struct PushBuffers {
    entries: Vec<(u32, DVec3)>,
    sums: SlotSums,
    point: SlotLookup<(DVec3, u32)>,
    pushed: SlotLookup<DVec3>,
}

/// A contact whose particle's summed push leaves it deeper than the slop by more than this
/// fraction of the slop moves its body by the rest.
const MISSED: f64 = 1e-6;

/// The position corrections of liquid particles that overlap a body by more than the slop:
/// along the body's normal, to within the slop, but never through a wall. What a wall blocks,
/// or what the summed push of a particle pressed by two bodies leaves short, moves the body
/// instead: the per-body shifts (a particle caught between a body and a wall, or squeezed
/// between two bodies, holds them apart). Into `pushes` and `shift` (both cleared first; `buf` holds
/// the scratch buffers, all kept between steps).
pub fn push_out(
    contacts: &[LiquidBodyContact],
    params: &LiquidParams,
    bodies: usize,
    buf: &mut PushBuffers,
    pushes: &mut Vec<(u32, DVec3)>,
    shift: &mut Vec<DVec3>,
) {
    let slop = LIQUID_SLOP * params.spacing as f64;
    shift.clear();
    shift.resize(bodies, DVec3::ZERO);
    buf.entries.clear();
    buf.entries.extend(
        contacts
            .iter()
            .filter(|c| c.depth > slop)
            .map(|c| (c.slot, c.normal * (c.depth - slop))),
    );
    sum_by_slot_into(&buf.entries, &mut buf.sums, pushes);
    // A particle pressed by two bodies from opposite sides (liquid squeezed between them) is
    // pushed by the sum, which leaves it short of where each contact wants it: what a contact
    // misses moves its body instead, as a wall's block does. A particle touching one body
    // misses nothing (the threshold keeps rounding out).
    buf.pushed.refill(pushes.iter().copied());
    for c in contacts.iter().filter(|c| c.depth > slop) {
        let got = buf.pushed.get(c.slot).map_or(0.0, |d| d.dot(c.normal));
        let missed = c.depth - slop - got;
        if missed > MISSED * slop {
            raise_along(&mut shift[c.body as usize], -c.normal, missed);
        }
    }
    let Some(w) = &params.boundary.walls else {
        return;
    };
    let (lo, hi) = (w.lo.as_dvec3(), w.hi.as_dvec3());
    buf.point
        .refill(contacts.iter().map(|c| (c.slot, (c.point, c.body))));
    for (slot, d) in pushes.iter_mut() {
        let (x, body) = buf.point.get(*slot).expect("a pushed slot has a contact");
        let to = (x + *d).clamp(lo, hi.max(lo));
        let blocked = x + *d - to;
        if let Some(n) = blocked.try_normalize() {
            raise_along(&mut shift[body as usize], -n, blocked.length());
        }
        *d = to - x;
    }
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
/// `solid` holds the body/body contacts (the wall contacts are found here and appended to it),
/// `shift` takes the shifts and `buf` is the wall search's scratch: buffers kept between steps.
pub fn correct_bodies(
    params: &LiquidParams,
    bodies: &mut [RigidBody],
    solid: &mut Vec<BodyContact>,
    extra: &[DVec3],
    buf: &mut ContactBuffers,
    shift: &mut Vec<DVec3>,
) {
    let r_l = params.spacing as f64 / 2.0;
    shift.clear();
    shift.extend_from_slice(extra);
    shift.resize(bodies.len(), DVec3::ZERO);
    if let Some(w) = &params.boundary.walls {
        wall_contacts_into(bodies, w, r_l, buf, solid);
    }
    for c in solid.iter() {
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
    for (body, s) in bodies.iter_mut().zip(shift.iter()) {
        if body.dynamic {
            body.state.x += *s;
        }
    }
}
