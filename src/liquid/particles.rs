//! Liquid particles in structure-of-arrays layout, and filling blocks on a cubic lattice.
use glam::Vec3A;

/// All liquid particles. Arrays are kept in neighbour-grid order (by cell, then id); `id` says
/// which particle each slot holds.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Particles {
    /// Positions, m.
    pub pos: Vec<Vec3A>,
    /// Positions at the start of the step, m.
    pub prev: Vec<Vec3A>,
    /// Velocities, m/s.
    pub vel: Vec<Vec3A>,
    /// Stable particle ids, 0..n.
    pub id: Vec<u32>,
    /// Index of the liquid block (phase) each particle came from.
    pub phase: Vec<u32>,
    /// Kernel sum `sum (1-q)^2` of the last relaxation pass (dimensionless).
    pub rho: Vec<f32>,
}

/// The fewest slots a thread moves at a time in [`Particles::permute_with`].
const PERMUTE_BLOCK: usize = 4096;

/// A box to fill with particles on a cubic lattice, and their initial velocity.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LatticeBlock {
    /// Lower corner of the region filled, m.
    pub min: [f64; 3],
    /// Upper corner of the region filled, m.
    pub max: [f64; 3],
    /// Initial velocity, m/s.
    pub velocity: [f64; 3],
}

/// Number of lattice sites at `spacing` along each axis of a block, and the offset that
/// centres them.
pub fn lattice_dims(block: &LatticeBlock, spacing: f64) -> ([usize; 3], [f64; 3]) {
    let mut n = [0usize; 3];
    let mut offset = [0.0; 3];
    for a in 0..3 {
        let extent = block.max[a] - block.min[a];
        n[a] = (extent / spacing + 1e-6).floor() as usize;
        offset[a] = block.min[a] + 0.5 * (extent - n[a] as f64 * spacing);
    }
    (n, offset)
}

impl Particles {
    /// Number of particles.
    pub fn len(&self) -> usize {
        self.pos.len()
    }

    /// Whether there are no particles.
    pub fn is_empty(&self) -> bool {
        self.pos.is_empty()
    }

    /// Fill every block with particles at cell centres of its lattice of `spacing`, ids in
    /// block order; a block's index is its particles' phase.
    pub fn from_blocks(blocks: &[LatticeBlock], spacing: f64) -> Particles {
        let mut p = Particles::default();
        for (phase, b) in blocks.iter().enumerate() {
            p.fill_block(b, spacing, phase as u32);
        }
        p
    }

    /// Append the particles of one block at cell centres of its lattice of `spacing` (x
    /// fastest, then y, then z), of phase `phase`, with the next ids.
    pub fn fill_block(&mut self, b: &LatticeBlock, spacing: f64, phase: u32) {
        let (n, offset) = lattice_dims(b, spacing);
        let v = Vec3A::from_array(b.velocity.map(|x| x as f32));
        for k in 0..n[2] {
            for j in 0..n[1] {
                for i in 0..n[0] {
                    let x = [i, j, k].map(|c| c as f64 + 0.5);
                    let pos = Vec3A::new(
                        (offset[0] + x[0] * spacing) as f32,
                        (offset[1] + x[1] * spacing) as f32,
                        (offset[2] + x[2] * spacing) as f32,
                    );
                    self.push(pos, v, phase);
                }
            }
        }
    }

    /// Append one particle with the next id.
    pub fn push(&mut self, pos: Vec3A, vel: Vec3A, phase: u32) {
        self.push_with_id(self.pos.len() as u32, pos, vel, phase);
    }

    /// Set aside room for `extra` more particles in every array.
    pub fn reserve(&mut self, extra: usize) {
        self.pos.reserve(extra);
        self.prev.reserve(extra);
        self.vel.reserve(extra);
        self.id.reserve(extra);
        self.phase.reserve(extra);
        self.rho.reserve(extra);
    }

    /// The number of ids handed out so far if ids are dense (one more than the largest).
    pub fn next_id(&self) -> u32 {
        self.id.iter().max().map_or(0, |&m| m + 1)
    }

    /// Append one particle with id `id` (one no particle holds), its kernel sum 0.
    pub fn push_with_id(&mut self, id: u32, pos: Vec3A, vel: Vec3A, phase: u32) {
        self.id.push(id);
        self.pos.push(pos);
        self.prev.push(pos);
        self.vel.push(vel);
        self.phase.push(phase);
        self.rho.push(0.0);
    }

    /// For tests: `count` particles at rest on a cubic lattice `side` particles wide at
    /// spacing `s`, each moved by `next()` times 0.4 spacing along each axis (`next` uniform on
    /// [-0.5, 0.5)), all of phase 0.
    #[cfg(test)]
    pub(crate) fn jittered_lattice(
        count: u32,
        side: u32,
        s: f32,
        next: &mut impl FnMut() -> f32,
    ) -> Particles {
        let mut p = Particles::default();
        for k in 0..count {
            let (i, j, l) = (k % side, k / side % side, k / (side * side));
            let lattice = Vec3A::new(i as f32, j as f32, l as f32) * s;
            p.push(
                lattice + Vec3A::new(next(), next(), next()) * (0.4 * s),
                Vec3A::ZERO,
                0,
            );
        }
        p
    }

    /// Reorder every array so that slot `k` holds what slot `perm[k]` held (`perm` may be
    /// shorter than the arrays, which then shrink to its length).
    pub fn permute(&mut self, perm: &[u32]) {
        fn gather<T: Copy + Send + Sync + Default>(v: &mut Vec<T>, perm: &[u32]) {
            let mut out = Vec::new();
            gather_into(&mut out, v, perm, |x| x);
            *v = out;
        }
        gather(&mut self.pos, perm);
        gather(&mut self.prev, perm);
        gather(&mut self.vel, perm);
        gather(&mut self.id, perm);
        gather(&mut self.phase, perm);
        gather(&mut self.rho, perm);
    }

    /// Reorder as [`Self::permute`] does, one array at a time through two scratch arrays
    /// (`wide` for the vectors, `narrow` for the 4-byte fields), each gathered into and swapped
    /// in: 20 bytes of scratch per particle where a second set of arrays took 60, and nothing
    /// allocated once the scratch has held as many particles.
    pub fn permute_through(&mut self, perm: &[u32], wide: &mut Vec<Vec3A>, narrow: &mut Vec<u32>) {
        use rayon::prelude::*;
        for v in [&mut self.pos, &mut self.prev, &mut self.vel] {
            gather_into(wide, v, perm, |x| x);
            std::mem::swap(v, wide);
        }
        for v in [&mut self.id, &mut self.phase] {
            gather_into(narrow, v, perm, |x| x);
            std::mem::swap(v, narrow);
        }
        // The kernel sums' bits through the same scratch, copied back in place.
        gather_into(narrow, &self.rho, perm, f32::to_bits);
        self.rho.truncate(perm.len());
        self.rho
            .par_iter_mut()
            .zip(narrow.par_iter())
            .with_min_len(PERMUTE_BLOCK)
            .for_each(|(r, &w)| *r = f32::from_bits(w));
    }

    /// Remove the particles whose position satisfies `gone`, keeping the others' order and
    /// ids (in place: nothing is allocated).
    pub fn remove_where(&mut self, gone: impl Fn(Vec3A) -> bool) {
        let mut kept = 0;
        for k in 0..self.len() {
            if gone(self.pos[k]) {
                continue;
            }
            if kept != k {
                self.pos[kept] = self.pos[k];
                self.prev[kept] = self.prev[k];
                self.vel[kept] = self.vel[k];
                self.id[kept] = self.id[k];
                self.phase[kept] = self.phase[k];
                self.rho[kept] = self.rho[k];
            }
            kept += 1;
        }
        self.pos.truncate(kept);
        self.prev.truncate(kept);
        self.vel.truncate(kept);
        self.id.truncate(kept);
        self.phase.truncate(kept);
        self.rho.truncate(kept);
    }

    /// Keep the slots for which `keep(slot)` holds, and renumber the ids of those kept to
    /// 0..n in their old id order.
    pub fn retain(&mut self, keep: impl Fn(usize) -> bool) {
        let kept: Vec<u32> = (0..self.len() as u32)
            .filter(|&k| keep(k as usize))
            .collect();
        self.permute(&kept);
        let mut order: Vec<u32> = (0..kept.len() as u32).collect();
        order.sort_by_key(|&k| self.id[k as usize]);
        for (new_id, &k) in order.iter().enumerate() {
            self.id[k as usize] = new_id as u32;
        }
    }

    /// The slots in order of their particles' ids: for ids 0..n (no particle removed or
    /// emitted), slot `k` of the result holds id `k`.
    pub fn slots_by_id(&self) -> Vec<u32> {
        let n = self.len();
        if self.id.iter().all(|&id| (id as usize) < n) {
            let mut slot = vec![0u32; n];
            for (k, &id) in self.id.iter().enumerate() {
                slot[id as usize] = k as u32;
            }
            return slot;
        }
        let mut slots: Vec<u32> = (0..n as u32).collect();
        slots.sort_unstable_by_key(|&k| self.id[k as usize]);
        slots
    }
}

/// `out[k] = f(src[perm[k]])` for every `k` of `perm` (`out` resized to it), in parallel.
fn gather_into<S: Copy + Sync, T: Send + Default + Clone>(
    out: &mut Vec<T>,
    src: &[S],
    perm: &[u32],
    f: impl Fn(S) -> T + Sync,
) {
    use rayon::prelude::*;
    out.resize(perm.len(), T::default());
    out.par_iter_mut()
        .zip(perm.par_iter())
        .with_min_len(PERMUTE_BLOCK)
        .for_each(|(w, &k)| *w = f(src[k as usize]));
}

impl crate::boundary::Motion for Particles {
    fn motion_and_phase(&mut self) -> (&mut [Vec3A], &mut [Vec3A], &mut [Vec3A], &[u32]) {
        (&mut self.pos, &mut self.vel, &mut self.prev, &self.phase)
    }
}
