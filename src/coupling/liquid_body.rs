//! Liquid-particle / body contacts: every liquid particle that overlaps a body's solid (the
//! union of its particles' cells) gives one contact per body, with the normal of the solid's
//! nearest surface point and the overlap.
use crate::rigid::RigidBody;
use crate::rigid::occupancy::Occupancy;
use glam::{DVec3, Vec3A};
use rayon::prelude::*;

/// One contact between a liquid particle and a body.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LiquidBodyContact {
    /// The liquid particle's slot.
    pub slot: u32,
    /// The body's index.
    pub body: u32,
    /// Unit normal, world frame, pointing out of the body into the liquid.
    pub normal: DVec3,
    /// The contact point: the liquid particle's centre, world frame.
    pub point: DVec3,
    /// Overlap of the liquid particle with the body's solid, m (> 0).
    pub depth: f64,
}

/// How far from a body particle's centre a liquid particle of radius `liquid_radius` may lie
/// and still touch the body (the corner of the particle's cell plus the radius), for a body
/// of particle radius `body_radius`: the search radius for candidate pairs.
pub fn search_radius(body_radius: f64, liquid_radius: f64) -> f64 {
    liquid_radius + body_radius * 3f64.sqrt()
}

/// The solids of every body in its own frame: the union of its particles' cells, whose faces
/// are exact planes (so a flat face pushes flat, and liquid does not settle into the hollows
/// between the clump's spheres) and whose edges are sharp. Bodies are rigid, so the cells are
/// found once and queried in each body's frame.
#[derive(Debug, Clone)]
pub struct SurfaceIndex {
    cells: Vec<Occupancy>,
    /// Per body: the largest distance of a cell corner from the centre of mass, m.
    reach: Vec<f64>,
}

impl SurfaceIndex {
    /// Find the cells of `bodies`.
    pub fn new(bodies: &[RigidBody]) -> SurfaceIndex {
        let cells = bodies.iter().map(|b| Occupancy::new(&b.clump)).collect();
        let reach = bodies.iter().map(|b| b.clump.cell_reach()).collect();
        SurfaceIndex { cells, reach }
    }

    /// Per body: its centre of mass and the distance from it within which the centre of a
    /// sphere of radius `radius` can touch the body (the balls of [`crate::liquid::BodyReach`]).
    #[allow(
        dead_code,
        reason = "the allocating form of the `_into` one the step uses"
    )]
    pub fn balls(&self, bodies: &[RigidBody], radius: f64) -> Vec<(DVec3, f64)> {
        let mut out = Vec::new();
        self.balls_into(bodies, radius, &mut out);
        out
    }

    /// [`SurfaceIndex::balls`] into `out` (cleared first).
    pub fn balls_into(&self, bodies: &[RigidBody], radius: f64, out: &mut Vec<(DVec3, f64)>) {
        out.clear();
        out.extend(
            bodies
                .iter()
                .zip(&self.reach)
                .map(|(b, &reach)| (b.state.x, reach + radius)),
        );
    }

    /// Whether a sphere of `radius` at world point `xw` can reach body `bi` at all (its centre
    /// within the body's ball): a cheap test before [`SurfaceIndex::touch`].
    pub fn may_touch(&self, bodies: &[RigidBody], bi: usize, xw: DVec3, radius: f64) -> bool {
        let r = self.reach[bi] + radius;
        (xw - bodies[bi].state.x).length_squared() <= r * r
    }

    /// Contacts of the liquid particles at `pos` (radius `liquid_radius`) with every body, in
    /// order of body, then slot.
    #[cfg_attr(not(test), allow(dead_code))]
    pub fn liquid_contacts(
        &self,
        bodies: &[RigidBody],
        pos: &[Vec3A],
        liquid_radius: f64,
    ) -> Vec<LiquidBodyContact> {
        (0..bodies.len())
            .flat_map(|bi| self.contacts_with(bodies, bi, pos, liquid_radius))
            .collect()
    }

    /// Contacts of the spheres at `pos` (radius `radius`) with body `bi`, in slot order.
    #[cfg_attr(not(test), allow(dead_code))]
    pub fn contacts_with(
        &self,
        bodies: &[RigidBody],
        bi: usize,
        pos: &[Vec3A],
        radius: f64,
    ) -> Vec<LiquidBodyContact> {
        let (mut found, mut out) = (Vec::new(), Vec::new());
        self.contacts_with_into(bodies, bi, pos, radius, &mut found, &mut out);
        out
    }

    /// [`SurfaceIndex::contacts_with`] appended to `out`, each sphere tested in parallel into
    /// `found` (a buffer kept between calls) and gathered in slot order.
    pub fn contacts_with_into(
        &self,
        bodies: &[RigidBody],
        bi: usize,
        pos: &[Vec3A],
        radius: f64,
        found: &mut Vec<Option<LiquidBodyContact>>,
        out: &mut Vec<LiquidBodyContact>,
    ) {
        let body = &bodies[bi];
        let bound = self.reach[bi] + radius;
        let com = body.state.x;
        found.clear();
        found.resize(pos.len(), None);
        found
            .par_iter_mut()
            .zip(pos.par_iter())
            .enumerate()
            .for_each(|(slot, (f, x))| {
                let xw = DVec3::new(x.x as f64, x.y as f64, x.z as f64);
                *f = if (xw - com).length_squared() > bound * bound {
                    None
                } else {
                    self.touch(bodies, bi, xw, radius)
                        .map(|(normal, depth)| LiquidBodyContact {
                            slot: slot as u32,
                            body: bi as u32,
                            normal,
                            point: xw,
                            depth,
                        })
                };
            });
        out.extend(found.iter().flatten());
    }

    /// Whether a sphere of radius `radius` centred at world point `xw` overlaps body `bi`: the
    /// outward normal (world frame) at the body's nearest surface point and the overlap.
    pub fn touch(
        &self,
        bodies: &[RigidBody],
        bi: usize,
        xw: DVec3,
        radius: f64,
    ) -> Option<(DVec3, f64)> {
        let body = &bodies[bi];
        let rot = body.rotation();
        let xb = rot.transpose() * (xw - body.state.x);
        let (n, dist) = self.cells[bi].nearest_surface(xb, radius)?;
        let depth = radius - dist;
        (depth > 0.0).then(|| (rot * n, depth))
    }
}

/// For each of `slots` (in order), the index of the first entry with the same slot: a sort by
/// (slot, index), not a hash table.
#[cfg_attr(not(test), allow(dead_code))]
pub fn first_of_slot(slots: &[u32]) -> Vec<usize> {
    let (mut order, mut first) = (Vec::new(), Vec::new());
    first_of_slot_into(slots, &mut order, &mut first);
    first
}

/// [`first_of_slot`] into `first`, with `order` as scratch (both buffers kept between calls).
pub fn first_of_slot_into(slots: &[u32], order: &mut Vec<usize>, first: &mut Vec<usize>) {
    order.clear();
    order.extend(0..slots.len());
    order.sort_unstable_by_key(|&i| (slots[i], i));
    first.clear();
    first.resize(slots.len(), 0);
    let mut lead = 0;
    for (k, &i) in order.iter().enumerate() {
        if k == 0 || slots[i] != slots[order[k - 1]] {
            lead = i;
        }
        first[i] = lead;
    }
}

/// Entries keyed by slot, looked up by binary search; where a slot has several entries, the
/// last one counts (as a map filled in order would keep).
#[derive(Debug, Clone, Default)]
pub struct SlotLookup<T> {
    /// (slot, entry index, value), sorted by slot then index.
    sorted: Vec<(u32, usize, T)>,
}

impl<T: Copy> SlotLookup<T> {
    /// Index `entries`.
    #[cfg_attr(not(test), allow(dead_code))]
    pub fn new(entries: impl Iterator<Item = (u32, T)>) -> SlotLookup<T> {
        let mut lookup = SlotLookup { sorted: Vec::new() };
        lookup.refill(entries);
        lookup
    }

    /// Index `entries` instead of what was indexed (the buffer is kept).
    pub fn refill(&mut self, entries: impl Iterator<Item = (u32, T)>) {
        self.sorted.clear();
        self.sorted
            .extend(entries.enumerate().map(|(i, (s, v))| (s, i, v)));
        self.sorted.sort_unstable_by_key(|e| (e.0, e.1));
    }

    /// The last entry's value for `slot`.
    pub fn get(&self, slot: u32) -> Option<T> {
        let end = self.sorted.partition_point(|e| e.0 <= slot);
        (end > 0 && self.sorted[end - 1].0 == slot).then(|| self.sorted[end - 1].2)
    }
}

/// Sum the entries that share a slot (a particle touching two bodies has two), in the order of
/// each slot's first entry.
pub fn sum_by_slot(entries: Vec<(u32, DVec3)>) -> Vec<(u32, DVec3)> {
    let mut out = Vec::new();
    sum_by_slot_into(&entries, &mut SlotSums::default(), &mut out);
    out
}

/// The scratch buffers of [`sum_by_slot_into`], kept between calls.
#[derive(Debug, Clone, Default)]
pub struct SlotSums {
    slots: Vec<u32>,
    order: Vec<usize>,
    first: Vec<usize>,
    at: Vec<usize>,
}

/// [`sum_by_slot`] into `out` (cleared first), with the scratch buffers of `sums`.
pub fn sum_by_slot_into(
    entries: &[(u32, DVec3)],
    sums: &mut SlotSums,
    out: &mut Vec<(u32, DVec3)>,
) {
    sums.slots.clear();
    sums.slots.extend(entries.iter().map(|e| e.0));
    first_of_slot_into(&sums.slots, &mut sums.order, &mut sums.first);
    let first = &sums.first;
    // Where each first entry's sum sits in `out`.
    sums.at.clear();
    sums.at.resize(entries.len(), 0);
    out.clear();
    for (i, &(slot, d)) in entries.iter().enumerate() {
        if first[i] == i {
            sums.at[i] = out.len();
            out.push((slot, d));
        } else {
            out[sums.at[first[i]]].1 += d;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    #[test]
    fn slot_sums_and_lookups_match_a_map_filled_in_order() {
        // Slots repeating in no order, with values that do not add associatively.
        let entries: Vec<(u32, DVec3)> = (0..500u32)
            .map(|i| {
                let slot = (i * 7919) % 61;
                (
                    slot,
                    DVec3::new(1.0 / (i + 1) as f64, 1e16 * (i % 3) as f64, -0.1),
                )
            })
            .collect();
        let mut first: HashMap<u32, usize> = HashMap::new();
        let mut want: Vec<(u32, DVec3)> = Vec::new();
        for &(slot, d) in &entries {
            match first.get(&slot) {
                Some(&k) => want[k].1 += d,
                None => {
                    first.insert(slot, want.len());
                    want.push((slot, d));
                }
            }
        }
        assert_eq!(sum_by_slot(entries.clone()), want);
        assert_eq!(want.len(), 61);
        let slots: Vec<u32> = entries.iter().map(|e| e.0).collect();
        let firsts = first_of_slot(&slots);
        for (i, &s) in slots.iter().enumerate() {
            assert_eq!(firsts[i], slots.iter().position(|&t| t == s).unwrap());
        }
        let map: HashMap<u32, DVec3> = entries.iter().copied().collect();
        let lookup = SlotLookup::new(entries.iter().copied());
        for slot in 0..70 {
            assert_eq!(lookup.get(slot), map.get(&slot).copied(), "slot {slot}");
        }
    }
}
