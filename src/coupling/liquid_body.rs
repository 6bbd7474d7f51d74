//! Liquid-particle / body contacts by slot: the contacts themselves and the bodies' solids
//! they are found in live in the boundary ([`crate::boundary::solids`], re-exported here); this
//! keeps the coupling's sums and lookups of entries that share a liquid particle's slot.
pub use crate::boundary::solids::{LiquidBodyContact, SurfaceIndex, search_radius};
use glam::DVec3;

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
