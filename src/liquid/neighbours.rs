//! Half neighbour lists gathered from the grid once a step: each slot keeps only its later
//! neighbours (those after it in slot order, in its own cell and the 13 cells after it), so
//! that the kernel sums, the relaxation and the viscosity compute every pair once and add it
//! to both particles ([`NeighbourLists::scatter`]).
//!
//! The gather keeps each pair's distance and the kernel sums at the positions it was built
//! from, so that the first relaxation pass needs neither a separate density sweep nor a square
//! root per pair. Every list is in the grid's fixed order, and the scatter's order is fixed by
//! the lists alone, so every sum is the same at any thread count.
use super::candidates::{CellCandidates, gather};
use super::grid::Grid;
use super::lanes::has_avx2;
use super::lanes::{LANES, LaneSums};
use super::pair_scatter;
pub use super::pair_scatter::in_pool;
use glam::Vec3A;
use rayon::prelude::*;

/// Neighbour lists without their reserve: what a checkpoint keeps of them.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PackedLists {
    /// The entries reserved per slot.
    pub stride: usize,
    /// Each slot's neighbour count.
    pub count: Vec<u32>,
    /// The neighbours of one slot after another.
    pub packed: Vec<u32>,
}

impl PackedLists {
    /// Whether the parts fit together: no count above the stride, as many neighbours as
    /// counted.
    pub fn fits(&self) -> bool {
        let total: usize = self.count.iter().map(|&c| c as usize).sum();
        total == self.packed.len() && self.count.iter().all(|&c| c as usize <= self.stride)
    }
}

/// The later neighbour slots of every slot, in grid order, `stride` entries reserved per
/// particle.
#[derive(Debug, Clone, Default)]
pub struct NeighbourLists {
    stride: usize,
    count: Vec<u32>,
    idx: Vec<u32>,
    /// The distance of each entry at the positions the lists were built from.
    dist: Vec<f32>,
    /// Kernel sums `(sum (1-q)^2, sum (1-q)^3)` of each slot at those positions, added up in
    /// double precision.
    sums: Vec<[f64; 2]>,
    /// The farthest any slot's last neighbour lies after it, in slots.
    reach: usize,
}

impl NeighbourLists {
    /// The neighbours of slot `i` that come after it in slot order (all it keeps), with their
    /// distances at the positions the lists were built from: every pair once, from its lower
    /// slot.
    #[inline(always)]
    pub fn later_of(&self, i: usize) -> (&[u32], &[f32]) {
        let s = i * self.stride;
        let e = s + self.count[i] as usize;
        (&self.idx[s..e], &self.dist[s..e])
    }

    /// Every slot's whole neighbour list, from the half lists (for tests that gather).
    #[cfg_attr(not(test), allow(dead_code))]
    pub(crate) fn whole(&self) -> Vec<Vec<u32>> {
        let mut all = vec![Vec::new(); self.len()];
        for i in 0..self.len() {
            for &j in self.later_of(i).0 {
                all[i].push(j);
                all[j as usize].push(i as u32);
            }
        }
        all
    }

    /// Slots per chunk of [`Self::scatter`] ([`pair_scatter::chunk_len`] at the lists'
    /// reach): a slot's later neighbours lie in its own chunk or the next.
    pub fn chunk(&self) -> usize {
        pair_scatter::chunk_len(self.len(), self.reach)
    }

    /// Run `row(i, first, window)` once for every slot `i`, where `window` holds the
    /// accumulators `acc[first..]` of the slots from `i`'s chunk's first to the end of the next
    /// chunk: `row` adds slot `i`'s pair terms over [`Self::later_of`] into the entries of `i`
    /// and of each later neighbour `j` (at `j - first`).
    ///
    /// The slots are cut into chunks of [`Self::chunk`] slots; the even chunks run in parallel,
    /// then the odd ones, each in slot order. No two windows of a phase overlap, and the order
    /// of the additions into every accumulator is fixed by the lists alone (not by the number
    /// of threads): every pair is computed once, without atomics or locks.
    pub fn scatter<T: Send>(&self, acc: &mut [T], row: impl Fn(usize, usize, &mut [T]) + Sync) {
        let n = acc.len().min(self.len());
        pair_scatter::scatter_chunks(&mut acc[..n], self.chunk(), row);
    }

    /// [`Self::scatter`] over two accumulator arrays of the slots at once: `row(i, first,
    /// window_a, window_b)`, the windows of both from the same slot `first`.
    pub fn scatter2<A: Send, B: Send>(
        &self,
        a: &mut [A],
        b: &mut [B],
        row: impl Fn(usize, usize, &mut [A], &mut [B]) + Sync,
    ) {
        let n = a.len().min(b.len()).min(self.len());
        pair_scatter::scatter_chunks2(&mut a[..n], &mut b[..n], self.chunk(), row);
    }

    /// The lists' reach, from the lists.
    fn find_reach(&mut self) {
        let (stride, idx) = (self.stride, &self.idx);
        self.reach = self
            .count
            .par_iter()
            .enumerate()
            .map(|(i, &c)| {
                let row = &idx[i * stride..i * stride + c as usize];
                row.last().map_or(0, |&j| (j as usize).saturating_sub(i))
            })
            .max()
            .unwrap_or(0);
    }

    /// The kernel sums `(sum (1-q)^2, sum (1-q)^3)` of every slot over its neighbours at the
    /// positions the lists were built from (what [`super::relaxation::densities`] gives there).
    pub fn sums(&self) -> &[[f64; 2]] {
        &self.sums
    }

    /// Drop the lists (their memory kept): the next step builds them afresh.
    pub fn clear(&mut self) {
        self.count.clear();
        self.sums.clear();
        self.reach = 0;
    }

    /// Set aside room for lists of `n` particles at the current stride (at least 32).
    pub fn reserve(&mut self, n: usize) {
        let wide = n * self.stride.max(32);
        self.count.reserve(n.saturating_sub(self.count.len()));
        self.sums.reserve(n.saturating_sub(self.sums.len()));
        self.idx.reserve(wide.saturating_sub(self.idx.len()));
        self.dist.reserve(wide.saturating_sub(self.dist.len()));
    }

    /// Number of particles the lists cover.
    pub fn len(&self) -> usize {
        self.count.len()
    }

    /// The largest neighbour count.
    #[cfg_attr(not(test), allow(dead_code))]
    pub fn max_count(&self) -> usize {
        self.count.iter().copied().max().unwrap_or(0) as usize
    }

    /// The lists packed for a checkpoint. The distances and kernel sums are left out: the
    /// next step rebuilds them before it reads them (only the viscosity walks the old lists).
    pub fn pack(&self) -> PackedLists {
        let mut packed = Vec::with_capacity(self.count.iter().map(|&c| c as usize).sum());
        for i in 0..self.len() {
            packed.extend_from_slice(self.later_of(i).0);
        }
        PackedLists {
            stride: self.stride,
            count: self.count.clone(),
            packed,
        }
    }

    /// The lists that [`NeighbourLists::pack`] gave these parts of; `None` when the parts do
    /// not fit together (a count above the stride, or not as many neighbours as counted).
    pub fn unpack(lists: PackedLists) -> Option<NeighbourLists> {
        if !lists.fits() {
            return None;
        }
        let PackedLists {
            stride,
            count,
            packed,
        } = lists;
        let mut idx = vec![0u32; count.len() * stride];
        let mut at = 0;
        for (i, &c) in count.iter().enumerate() {
            let c = c as usize;
            idx[i * stride..i * stride + c].copy_from_slice(&packed[at..at + c]);
            at += c;
        }
        let (dist, sums) = (vec![0.0; idx.len()], vec![[0.0; 2]; count.len()]);
        let mut lists = NeighbourLists {
            stride,
            count,
            idx,
            dist,
            sums,
            reach: 0,
        };
        lists.find_reach();
        Some(lists)
    }

    /// Gather, for every slot, the later slots closer than `h`, in the grid's fixed order,
    /// with their distances, then every slot's kernel sums over all its neighbours (each pair
    /// added to both, [`Self::scatter`]).
    ///
    /// Slots are taken in blocks; within a block, the particles of one cell share one copy of
    /// their own and the later cells' positions in a structure-of-arrays buffer
    /// ([`CellCandidates`]), which every particle of the cell tests 16 at a time from its own
    /// slot on. A neighbourhood too dense for the buffer falls back to the row-by-row gather.
    /// Both give the same entries in the same order with the same distances.
    pub fn build(&mut self, pos: &[Vec3A], grid: &Grid, h: f32) {
        in_pool(|| self.build_here(pos, grid, h))
    }

    /// [`Self::build`] on the calling thread.
    fn build_here(&mut self, pos: &[Vec3A], grid: &Grid, h: f32) {
        let n = pos.len();
        // A multiple of 16 (the compressing gather copies whole vectors of 16).
        self.stride = self.stride.max(32).next_multiple_of(16);
        self.count.resize(n, 0);
        self.sums.resize(n, [0.0; 2]);
        loop {
            let stride = self.stride;
            self.idx.resize(n * stride, 0);
            self.dist.resize(n * stride, 0.0);
            let (overflow, reach) = self
                .idx
                .par_chunks_mut(stride * BLOCK)
                .zip(self.dist.par_chunks_mut(stride * BLOCK))
                .zip(self.count.par_chunks_mut(BLOCK))
                .enumerate()
                .map_init(CellCandidates::new, |cand, (b, ((slots, dist), count))| {
                    let (mut most, mut reach) = (0, 0);
                    for k in 0..count.len() {
                        let i = b * BLOCK + k;
                        let (slots, dist) = (
                            &mut slots[k * stride..(k + 1) * stride],
                            &mut dist[k * stride..(k + 1) * stride],
                        );
                        let c = if cand.load(pos, grid, grid.cell_of[i]) {
                            cand.gather(i, pos[i], h * h, slots, dist)
                        } else {
                            gather(pos, grid, i, h, slots, dist)
                        };
                        count[k] = c.min(stride) as u32;
                        most = most.max(c);
                    }
                    // The reach once the block is gathered: read just after a row's gather,
                    // its last entry waits on the row's stores.
                    for (k, &m) in count.iter().enumerate() {
                        let last = slots[k * stride..k * stride + m as usize].last();
                        reach = reach.max(last.map_or(0, |&j| j as usize - (b * BLOCK + k)));
                    }
                    (most, reach)
                })
                .reduce(|| (0, 0), |a, b| (a.0.max(b.0), a.1.max(b.1)));
            if overflow <= stride {
                self.reach = reach;
                break;
            }
            // A compressed region holds more neighbours than reserved: widen and gather again.
            self.stride = overflow.next_multiple_of(16);
        }
        let mut sums = std::mem::take(&mut self.sums);
        sums.par_iter_mut().for_each(|s| *s = [0.0; 2]);
        let (inv_h, avx2) = (1.0 / h, has_avx2());
        self.scatter(&mut sums, |i, first, w| {
            let (js, ds) = self.later_of(i);
            if avx2 {
                // SAFETY: the processor has AVX2 (checked by `has_avx2`).
                unsafe { add_kernel_row_avx2(i, js, ds, inv_h, first, w) }
            } else {
                add_kernel_row(i, js, first, w, |e, _| ds[e] * inv_h);
            }
        });
        self.sums = sums;
    }
}

/// [`add_kernel_row`] at the distances `ds`, 8 entries at a time in AVX2 registers (the same
/// operations, and the same additions into every accumulator in the same order).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn add_kernel_row_avx2(
    i: usize,
    js: &[u32],
    ds: &[f32],
    inv_h: f32,
    first: usize,
    w: &mut [[f64; 2]],
) {
    use std::arch::x86_64::*;
    let (vinv_h, one, zero) = (
        _mm256_set1_ps(inv_h),
        _mm256_set1_ps(1.0),
        _mm256_setzero_ps(),
    );
    let (mut rho, mut near) = (zero, zero);
    for (js, ds) in js.chunks(LANES).zip(ds.chunks(LANES)) {
        // Padding past the row at an infinite distance: a zero kernel, which adds +0.
        let dk = super::lanes::chunk(ds, f32::INFINITY);
        // SAFETY: `dk` holds 8 floats.
        let d = unsafe { _mm256_loadu_ps(dk.as_ptr()) };
        let a = _mm256_sub_ps(one, _mm256_mul_ps(d, vinv_h));
        let a = _mm256_and_ps(_mm256_cmp_ps::<_CMP_GT_OQ>(a, zero), a);
        let a2 = _mm256_mul_ps(a, a);
        let a3 = _mm256_mul_ps(a2, a);
        rho = _mm256_add_ps(rho, a2);
        near = _mm256_add_ps(near, a3);
        // Entry k's pair (a2, a3) in the low half of `pairs[k / 2]` (k even) or its high half.
        let (lo, hi) = (_mm256_unpacklo_ps(a2, a3), _mm256_unpackhi_ps(a2, a3));
        let pairs = [
            _mm256_castps256_ps128(lo),
            _mm256_castps256_ps128(hi),
            _mm256_extractf128_ps::<1>(lo),
            _mm256_extractf128_ps::<1>(hi),
        ];
        for (k, &j) in js.iter().enumerate() {
            let p = pairs[k / 2];
            let p = if k % 2 == 0 { p } else { _mm_movehl_ps(p, p) };
            // Both sums at once: the same two additions in double precision.
            let s: *mut [f64; 2] = &mut w[j as usize - first];
            // SAFETY: `s` points at two f64 of the window.
            unsafe {
                _mm_storeu_pd(
                    s.cast(),
                    _mm_add_pd(_mm_loadu_pd(s.cast()), _mm_cvtps_pd(p)),
                )
            };
        }
    }
    // SAFETY: the processor has AVX2 (this function's requirement).
    let (r, n) = unsafe {
        (
            super::lanes::avx2::reduce(rho),
            super::lanes::avx2::reduce(near),
        )
    };
    let s = &mut w[i - first];
    s[0] += r as f64;
    s[1] += n as f64;
}

/// [`add_kernel_row`] where there is no AVX2 build.
#[cfg(not(target_arch = "x86_64"))]
unsafe fn add_kernel_row_avx2(
    i: usize,
    js: &[u32],
    ds: &[f32],
    inv_h: f32,
    first: usize,
    w: &mut [[f64; 2]],
) {
    add_kernel_row(i, js, first, w, |e, _| ds[e] * inv_h);
}

/// Add the kernel sums `((1-q)^2, (1-q)^3)` of slot `i`'s pairs with its later neighbours `js`
/// to the accumulators of the window `w` (from slot `first`): each neighbour's in entry order,
/// then slot `i`'s, entry `e` in lane `e % 8` ([`LaneSums`]); `q(e, j)` is entry `e`'s
/// distance over `h`.
#[inline(always)]
pub fn add_kernel_row(
    i: usize,
    js: &[u32],
    first: usize,
    w: &mut [[f64; 2]],
    q: impl Fn(usize, u32) -> f32,
) {
    let mut sums = LaneSums::default();
    for (e, &j) in js.iter().enumerate() {
        let a = sums.add(e % LANES, 1.0 - q(e, j));
        let s = &mut w[j as usize - first];
        s[0] += a[0] as f64;
        s[1] += a[1] as f64;
    }
    let [r, n] = sums.total();
    let s = &mut w[i - first];
    s[0] += r as f64;
    s[1] += n as f64;
}

/// Slots per parallel block of [`NeighbourLists::build`].
const BLOCK: usize = 128;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::liquid::particles::Particles;
    use crate::liquid::relaxation;

    /// A pseudo-random cloud in a 0.1 m box, with a dense clump that overflows the first
    /// reserved length.
    fn cloud() -> Particles {
        let mut rng = crate::rng::XorShift::new(0x9e37_79b9);
        let mut next = move || rng.unit() as f32;
        let mut p = Particles::default();
        for _ in 0..3000 {
            p.push(Vec3A::new(next(), next(), next()) * 0.1, Vec3A::ZERO, 0);
        }
        for _ in 0..100 {
            let x = Vec3A::splat(0.05) + Vec3A::new(next(), next(), next()) * 0.002;
            p.push(x, Vec3A::ZERO, 0);
        }
        p
    }

    #[test]
    fn compressing_gather_gives_the_mask_walk_entries() {
        let h = 0.012;
        let mut p = cloud();
        let mut grid = Grid::new(h);
        grid.build(&mut p).unwrap();
        let mut walk = Box::new(CellCandidates::new());
        walk.avx512 = false;
        let mut fast = Box::new(CellCandidates::new());
        let (mut checked, mut found, mut overflowed) = (0, 0, 0);
        for i in 0..p.len() {
            let c = grid.cell_of[i];
            if !(walk.load(&p.pos, &grid, c) && fast.load(&p.pos, &grid, c)) {
                continue;
            }
            let (mut sa, mut da) = (vec![0u32; 256], vec![0.0f32; 256]);
            let (mut sb, mut db) = (vec![0u32; 256], vec![0.0f32; 256]);
            let na = walk.gather(i, p.pos[i], h * h, &mut sa, &mut da);
            let nb = fast.gather(i, p.pos[i], h * h, &mut sb, &mut db);
            assert_eq!(na, nb, "slot {i}");
            let m = na.min(256);
            assert_eq!(sa[..m], sb[..m], "slot {i}");
            let bits = |d: &[f32]| d[..m].iter().map(|x| x.to_bits()).collect::<Vec<_>>();
            assert_eq!(bits(&da), bits(&db), "slot {i}");
            // Rows shorter than the count keep its first entries.
            let (mut sc, mut dc) = (vec![0u32; 16], vec![0.0f32; 16]);
            assert_eq!(fast.gather(i, p.pos[i], h * h, &mut sc, &mut dc), na);
            let k = na.min(16);
            assert_eq!(sc[..k], sa[..k], "slot {i}");
            for e in 0..k {
                assert_eq!(dc[e].to_bits(), da[e].to_bits(), "slot {i}, entry {e}");
            }
            overflowed += usize::from(na > 16);
            checked += 1;
            found += na;
        }
        assert!(
            checked > 2000 && found > 7 * checked && overflowed > 50,
            "{checked} slots, {found} entries, {overflowed} past 16"
        );
    }

    #[test]
    fn scatter_visits_every_pair_once_in_an_order_fixed_at_any_thread_count() {
        let h = 0.012;
        let mut p = cloud();
        let mut grid = Grid::new(h);
        grid.build(&mut p).unwrap();
        let mut lists = NeighbourLists::default();
        lists.build(&p.pos, &grid, h);
        let n = p.len();
        let chunk = lists.chunk();
        // Four equal chunks here (a multiple of four, each at least the reach).
        assert!(
            chunk >= lists.reach && n.div_ceil(chunk) == 4 && chunk * 4 - n < 4,
            "chunk {chunk} of {n} slots, reach {}",
            lists.reach
        );
        let mut seen = vec![0usize; n];
        lists.scatter(&mut seen, |i, first, w| {
            let (js, ds) = lists.later_of(i);
            assert_eq!(js.len(), ds.len());
            w[i - first] += js.len();
            for &j in js {
                assert!(j as usize > i);
                w[j as usize - first] += 1;
            }
        });
        for (i, &s) in seen.iter().enumerate() {
            let want = (0..n)
                .filter(|&j| j != i && (p.pos[j] - p.pos[i]).length_squared() < h * h)
                .count();
            assert_eq!(s, want, "slot {i}");
        }
        // An order-sensitive fold into every slot's accumulator, at 1, 2 and 5 threads.
        let fold = |threads: usize| {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap();
            let mut acc = vec![0u64; n];
            pool.install(|| {
                lists.scatter(&mut acc, |i, first, w| {
                    let mix = |a: u64| a.wrapping_mul(0x9e37_79b9_7f4a_7c15).wrapping_add(i as u64);
                    w[i - first] = mix(w[i - first]);
                    for &j in lists.later_of(i).0 {
                        w[j as usize - first] = mix(w[j as usize - first]);
                    }
                })
            });
            acc
        };
        let one = fold(1);
        assert_eq!(fold(2), one);
        assert_eq!(fold(5), one);
    }

    #[test]
    fn lists_hold_every_neighbour_in_slot_order_with_distances_and_sums() {
        let h = 0.012;
        // A grid over the particles' bounds, and a small one that clamps most of them into
        // its border cells (as a grid with fixed bounds does).
        for clamped in [false, true] {
            let mut p = cloud();
            let mut grid = Grid::new(h);
            if clamped {
                grid.build_in(&mut p, Vec3A::splat(0.02), [4, 4, 4]);
            } else {
                grid.build(&mut p).unwrap();
            }
            let mut lists = NeighbourLists::default();
            lists.build(&p.pos, &grid, h);
            assert!(lists.max_count() >= 99, "the clump is missing");
            let n = p.len();
            let mut pairs = 0;
            for i in 0..n {
                let want: Vec<u32> = (i + 1..n)
                    .filter(|&j| (p.pos[j] - p.pos[i]).length_squared() < h * h)
                    .map(|j| j as u32)
                    .collect();
                let (js, ds) = lists.later_of(i);
                assert_eq!(js, &want[..], "slot {i} (clamped: {clamped})");
                for (&j, &d) in js.iter().zip(ds) {
                    let r = (p.pos[j as usize] - p.pos[i]).length();
                    assert_eq!(d.to_bits(), r.to_bits(), "slot {i}, neighbour {j}");
                }
                pairs += want.len();
            }
            assert!(pairs > 10 * n, "only {pairs} pairs");
            let (mut rho, mut near) = (vec![0.0; n], vec![0.0; n]);
            relaxation::densities(
                &p.pos,
                &lists,
                h,
                &mut rho,
                &mut near,
                &mut vec![[0.0; 2]; n],
            );
            for (i, s) in lists.sums().iter().enumerate() {
                assert_eq!((s[0] as f32).to_bits(), rho[i].to_bits(), "slot {i}");
                assert_eq!((s[1] as f32).to_bits(), near[i].to_bits(), "slot {i}");
                // Every pair once, added to both: the sums over all neighbours.
                let mut want = [0.0f64; 2];
                for j in (0..n).filter(|&j| j != i) {
                    let a = 1.0 - (p.pos[j] - p.pos[i]).as_dvec3().length() / h as f64;
                    if a > 0.0 {
                        want[0] += a * a;
                        want[1] += a * a * a;
                    }
                }
                for k in 0..2 {
                    let err = (s[k] - want[k]).abs();
                    assert!(
                        err <= 1e-5 * want[k].max(1.0),
                        "slot {i}: {s:?} vs {want:?}"
                    );
                }
            }
        }
    }
}
