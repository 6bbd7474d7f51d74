//! Per-particle neighbour lists gathered from the grid once a step, so that the kernel sums,
//! the relaxation and the viscosity visit only real neighbours.
//!
//! The gather visits only the cells that can hold a neighbour, and while the lists are hot it
//! keeps each pair's distance and the kernel sums at the positions it was built from, so that
//! the first relaxation pass needs neither a separate density sweep nor a square root per
//! pair. Every list is in the grid's fixed order, so every sum over it is too.
use super::grid::Grid;
use super::lanes::LaneSums;
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

/// Neighbour slots of every slot, in grid order, `stride` entries reserved per particle.
#[derive(Debug, Clone, Default)]
pub struct NeighbourLists {
    stride: usize,
    count: Vec<u32>,
    idx: Vec<u32>,
    /// The distance of each entry at the positions the lists were built from.
    dist: Vec<f32>,
    /// Kernel sums `(sum (1-q)^2, sum (1-q)^3)` of each slot at those positions.
    sums: Vec<[f32; 2]>,
}

impl NeighbourLists {
    /// The neighbours of slot `i`.
    #[inline(always)]
    pub fn of(&self, i: usize) -> &[u32] {
        let s = i * self.stride;
        &self.idx[s..s + self.count[i] as usize]
    }

    /// The distances to the neighbours of slot `i` (in the order of [`Self::of`]) at the
    /// positions the lists were built from.
    #[inline(always)]
    pub fn dist_of(&self, i: usize) -> &[f32] {
        let s = i * self.stride;
        &self.dist[s..s + self.count[i] as usize]
    }

    /// The kernel sums `(sum (1-q)^2, sum (1-q)^3)` of every slot over its neighbours at the
    /// positions the lists were built from (what [`super::relaxation::densities`] gives there).
    pub fn sums(&self) -> &[[f32; 2]] {
        &self.sums
    }

    /// Number of particles the lists cover.
    pub fn len(&self) -> usize {
        self.count.len()
    }

    /// Whether the lists cover no particle.
    pub fn is_empty(&self) -> bool {
        self.count.is_empty()
    }

    /// The largest neighbour count.
    pub fn max_count(&self) -> usize {
        self.count.iter().copied().max().unwrap_or(0) as usize
    }

    /// The lists packed for a checkpoint. The distances and kernel sums are left out: the
    /// next step rebuilds them before it reads them (only the viscosity walks the old lists).
    pub fn pack(&self) -> PackedLists {
        let mut packed = Vec::with_capacity(self.count.iter().map(|&c| c as usize).sum());
        for i in 0..self.len() {
            packed.extend_from_slice(self.of(i));
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
        Some(NeighbourLists {
            stride,
            count,
            idx,
            dist,
            sums,
        })
    }

    /// Gather, for every slot, the other slots closer than `h`, in the grid's fixed order,
    /// with their distances and the slot's kernel sums.
    ///
    /// Slots are taken in blocks; within a block, the particles of one cell share one copy of
    /// their 27 cells' positions in a structure-of-arrays buffer ([`CellCandidates`]), which
    /// every particle of the cell tests 8 or 16 at a time. A neighbourhood too dense for the
    /// buffer falls back to the row-by-row gather. Both give the same entries in the same
    /// order with the same distances.
    pub fn build(&mut self, pos: &[Vec3A], grid: &Grid, h: f32) {
        let n = pos.len();
        // A multiple of 16 (the compressing gather copies whole vectors of 16).
        self.stride = self.stride.max(48).next_multiple_of(16);
        self.count.resize(n, 0);
        self.sums.resize(n, [0.0; 2]);
        loop {
            let stride = self.stride;
            self.idx.resize(n * stride, 0);
            self.dist.resize(n * stride, 0.0);
            let overflow = self
                .idx
                .par_chunks_mut(stride * BLOCK)
                .zip(self.dist.par_chunks_mut(stride * BLOCK))
                .zip(
                    self.count
                        .par_chunks_mut(BLOCK)
                        .zip(self.sums.par_chunks_mut(BLOCK)),
                )
                .enumerate()
                .map(|(b, ((slots, dist), (count, sums)))| {
                    let mut cand = CellCandidates::new();
                    let mut most = 0;
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
                        let m = c.min(stride);
                        count[k] = m as u32;
                        sums[k] = kernel_sums(&mut dist[..m], 1.0 / h);
                        most = most.max(c);
                    }
                    most
                })
                .max()
                .unwrap_or(0);
            if overflow <= stride {
                return;
            }
            // A compressed region holds more neighbours than reserved: widen and gather again.
            self.stride = overflow.next_multiple_of(16);
        }
    }
}

/// Slots per parallel block of [`NeighbourLists::build`].
const BLOCK: usize = 128;

/// The most candidates [`CellCandidates`] holds (a multiple of [`LANES`]).
const CAPACITY: usize = 1024;

/// Candidates tested together, one bit each in a mask.
const LANES: usize = 32;

/// The positions and slots of the particles in the 27 cells around one cell, in the grid's
/// order, as separate coordinate arrays (padded to [`LANES`] with positions at infinity).
struct CellCandidates {
    /// The cell loaded, `u32::MAX` when none.
    cell: u32,
    /// Whether the cell's neighbourhood fit.
    fits: bool,
    len: usize,
    x: [f32; CAPACITY],
    y: [f32; CAPACITY],
    z: [f32; CAPACITY],
    slot: [u32; CAPACITY],
    r2: [f32; CAPACITY],
    masks: [u32; CAPACITY / LANES],
    /// Whether the processor has AVX-512 (the compressing gather).
    avx512: bool,
    /// The entries found by the compressing gather, with room for one vector past the last.
    found: [u32; CAPACITY + 16],
    found_r2: [f32; CAPACITY + 16],
}

impl CellCandidates {
    fn new() -> CellCandidates {
        CellCandidates {
            cell: u32::MAX,
            fits: false,
            len: 0,
            x: [0.0; CAPACITY],
            y: [0.0; CAPACITY],
            z: [0.0; CAPACITY],
            slot: [0; CAPACITY],
            r2: [0.0; CAPACITY],
            masks: [0; CAPACITY / LANES],
            avx512: has_avx512(),
            found: [0; CAPACITY + 16],
            found_r2: [0.0; CAPACITY + 16],
        }
    }

    /// Load the neighbourhood of cell `c` (kept when it is the one loaded); whether it fit.
    #[inline(always)]
    fn load(&mut self, pos: &[Vec3A], grid: &Grid, c: u32) -> bool {
        if c == self.cell {
            return self.fits;
        }
        self.cell = c;
        let mut len = 0usize;
        let mut fits = true;
        grid.for_each_row_near(c, |first, end| {
            let start = grid.cell_start[first] as usize;
            let end = grid.cell_start[end] as usize;
            if !fits || len + (end - start) > CAPACITY {
                fits = false;
                return;
            }
            for (k, x) in pos[start..end].iter().enumerate() {
                self.x[len + k] = x.x;
                self.y[len + k] = x.y;
                self.z[len + k] = x.z;
                self.slot[len + k] = (start + k) as u32;
            }
            len += end - start;
        });
        self.fits = fits;
        if fits {
            let padded = len.next_multiple_of(LANES);
            self.x[len..padded].fill(f32::INFINITY);
            self.y[len..padded].fill(f32::INFINITY);
            self.z[len..padded].fill(f32::INFINITY);
            self.len = len;
        }
        fits
    }

    /// As [`gather`], over the loaded candidates: the same entries, order and squared
    /// distances (`(dx dx + dy dy) + dz dz`, as `Vec3A::length_squared` rounds).
    #[inline(always)]
    fn gather(
        &mut self,
        i: usize,
        xi: Vec3A,
        h2: f32,
        slots: &mut [u32],
        dist: &mut [f32],
    ) -> usize {
        let padded = self.len.next_multiple_of(LANES);
        #[cfg(target_arch = "x86_64")]
        if self.avx512 {
            // SAFETY: the processor has AVX-512F (checked in `new`); `padded` is a multiple
            // of 16 within the arrays, and `found` has room for 16 entries past `padded`.
            let c = unsafe { self.compress_avx512(padded, i as u32, xi, h2) };
            // Whole vectors of 16 (the rows' reserve is a multiple of 16; what lies past
            // the count is never read).
            let m = c.min(slots.len());
            for k in (0..m).step_by(16) {
                slots[k..k + 16].copy_from_slice(&self.found[k..k + 16]);
                dist[k..k + 16].copy_from_slice(&self.found_r2[k..k + 16]);
            }
            return c;
        }
        within(
            &self.x,
            &self.y,
            &self.z,
            xi,
            h2,
            &mut self.r2[..padded],
            &mut self.masks,
        );
        let mut c = 0usize;
        for (lane, &mask) in self.masks[..padded / LANES].iter().enumerate() {
            let mut mask = mask;
            while mask != 0 {
                let b = mask.trailing_zeros() as usize;
                mask &= mask - 1;
                let e = lane * LANES + b;
                let j = self.slot[e];
                if j as usize == i {
                    continue;
                }
                if c < slots.len() {
                    slots[c] = j;
                    dist[c] = self.r2[e];
                }
                c += 1;
            }
        }
        c
    }

    /// The gather's entries into `found` and `found_r2` with AVX-512, 16 candidates at a
    /// time: the lanes closer than `h` (other than slot `i`) compressed in order. Returns how
    /// many there are.
    ///
    /// # Safety
    /// The processor must have AVX-512F, and `padded` be a multiple of 16, at most
    /// [`CAPACITY`].
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx512f,popcnt")]
    unsafe fn compress_avx512(&mut self, padded: usize, i: u32, xi: Vec3A, h2: f32) -> usize {
        use std::arch::x86_64::*;
        let (px, py, pz) = (
            _mm512_set1_ps(xi.x),
            _mm512_set1_ps(xi.y),
            _mm512_set1_ps(xi.z),
        );
        let (ph2, pi) = (_mm512_set1_ps(h2), _mm512_set1_epi32(i as i32));
        let mut c = 0usize;
        for k in (0..padded).step_by(16) {
            // SAFETY: k + 16 <= padded <= CAPACITY, the length of the candidate arrays, and
            // c <= k, so that c + 16 fits in `found` (CAPACITY + 16).
            unsafe {
                let dx = _mm512_sub_ps(_mm512_loadu_ps(self.x.as_ptr().add(k)), px);
                let dy = _mm512_sub_ps(_mm512_loadu_ps(self.y.as_ptr().add(k)), py);
                let dz = _mm512_sub_ps(_mm512_loadu_ps(self.z.as_ptr().add(k)), pz);
                let d = _mm512_add_ps(
                    _mm512_add_ps(_mm512_mul_ps(dx, dx), _mm512_mul_ps(dy, dy)),
                    _mm512_mul_ps(dz, dz),
                );
                let slot = _mm512_loadu_si512(self.slot.as_ptr().add(k).cast());
                let m =
                    _mm512_cmp_ps_mask::<_CMP_LT_OQ>(d, ph2) & _mm512_cmpneq_epi32_mask(slot, pi);
                _mm512_storeu_si512(
                    self.found.as_mut_ptr().add(c).cast(),
                    _mm512_maskz_compress_epi32(m, slot),
                );
                _mm512_storeu_ps(
                    self.found_r2.as_mut_ptr().add(c),
                    _mm512_maskz_compress_ps(m, d),
                );
                c += m.count_ones() as usize;
            }
        }
        c
    }
}

/// `r2[k] = |x_k - xi|^2` over coordinate arrays (their length a multiple of [`LANES`]),
/// rounded as `Vec3A::length_squared` (`(dx dx + dy dy) + dz dz`, no fused multiply-add),
/// and bit `b` of `masks[c]` set where `r2[c LANES + b] < h2`; with AVX where the processor
/// has it.
#[inline(always)]
fn within(x: &[f32], y: &[f32], z: &[f32], xi: Vec3A, h2: f32, r2: &mut [f32], masks: &mut [u32]) {
    let n = r2.len();
    assert!(n.is_multiple_of(LANES) && x.len() >= n && y.len() >= n && z.len() >= n);
    assert!(masks.len() >= n / LANES);
    #[cfg(target_arch = "x86_64")]
    {
        if has_avx2() {
            // SAFETY: the processor has AVX2 (checked just above); the lengths were checked.
            unsafe { within_avx2(x, y, z, xi, h2, r2, masks) };
            return;
        }
    }
    within_any(x, y, z, xi, h2, r2, masks);
}

/// [`within`] one lane at a time, on any processor.
fn within_any(
    x: &[f32],
    y: &[f32],
    z: &[f32],
    xi: Vec3A,
    h2: f32,
    r2: &mut [f32],
    masks: &mut [u32],
) {
    let n = r2.len();
    for (c, m) in masks[..n / LANES].iter_mut().enumerate() {
        let mut bits = 0u32;
        for b in 0..LANES {
            let k = c * LANES + b;
            let dx = x[k] - xi.x;
            let dy = y[k] - xi.y;
            let dz = z[k] - xi.z;
            let d = dx * dx + dy * dy + dz * dz;
            r2[k] = d;
            bits |= ((d < h2) as u32) << b;
        }
        *m = bits;
    }
}

/// Whether the processor has AVX2, for the 8-lane builds of the pair loops (this one's and
/// the viscosity's).
pub fn has_avx2() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        std::arch::is_x86_feature_detected!("avx2")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

/// Whether the processor has AVX-512F, for the compressing gather.
pub fn has_avx512() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        std::arch::is_x86_feature_detected!("avx512f")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

/// [`within`] 8 lanes at a time (the same operations in the same order). The caller checks
/// the lengths: `r2.len()` a multiple of [`LANES`], no longer than `x`, `y`, `z`, and
/// `masks` one entry per [`LANES`].
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn within_avx2(
    x: &[f32],
    y: &[f32],
    z: &[f32],
    xi: Vec3A,
    h2: f32,
    r2: &mut [f32],
    masks: &mut [u32],
) {
    use std::arch::x86_64::*;
    let n = r2.len();
    let (px, py, pz) = (
        _mm256_set1_ps(xi.x),
        _mm256_set1_ps(xi.y),
        _mm256_set1_ps(xi.z),
    );
    let ph2 = _mm256_set1_ps(h2);
    for (c, m) in masks[..n / LANES].iter_mut().enumerate() {
        let mut bits = 0u32;
        for q in 0..LANES / 8 {
            let k = c * LANES + q * 8;
            // SAFETY: k + 8 <= n, and every array holds at least n entries.
            let (dx, dy, dz) = unsafe {
                (
                    _mm256_sub_ps(_mm256_loadu_ps(x.as_ptr().add(k)), px),
                    _mm256_sub_ps(_mm256_loadu_ps(y.as_ptr().add(k)), py),
                    _mm256_sub_ps(_mm256_loadu_ps(z.as_ptr().add(k)), pz),
                )
            };
            let d = _mm256_add_ps(
                _mm256_add_ps(_mm256_mul_ps(dx, dx), _mm256_mul_ps(dy, dy)),
                _mm256_mul_ps(dz, dz),
            );
            // SAFETY: as above.
            unsafe { _mm256_storeu_ps(r2.as_mut_ptr().add(k), d) };
            let lt = _mm256_cmp_ps::<_CMP_LT_OQ>(d, ph2);
            bits |= (_mm256_movemask_ps(lt) as u32) << (q * 8);
        }
        *m = bits;
    }
}

/// Append the slots closer than `h` to slot `i` (itself excluded) to `slots`, their squared
/// distances to `dist`, in the grid's order over the cells around it; returns how many there
/// are (entries past the reserved length are counted but not kept).
#[inline(always)]
fn gather(
    pos: &[Vec3A],
    grid: &Grid,
    i: usize,
    h: f32,
    slots: &mut [u32],
    dist: &mut [f32],
) -> usize {
    let xi = pos[i];
    let h2 = h * h;
    let mut c = 0usize;
    grid.for_each_row_within(grid.cell_of[i], xi, h, |first, end| {
        let start = grid.cell_start[first] as usize;
        let end = grid.cell_start[end] as usize;
        for (k, &xj) in pos[start..end].iter().enumerate() {
            let j = start + k;
            let r2 = (xj - xi).length_squared();
            if r2 < h2 && j != i {
                if c < slots.len() {
                    slots[c] = j as u32;
                    dist[c] = r2;
                }
                c += 1;
            }
        }
    });
    c
}

/// Turn the squared distances into distances in place and return the kernel sums
/// `(sum (1-q)^2, sum (1-q)^3)` over them, entry `e` in lane `e % 8` ([`LaneSums`]).
#[inline(always)]
fn kernel_sums(dist: &mut [f32], inv_h: f32) -> [f32; 2] {
    for d in dist.iter_mut() {
        *d = d.sqrt();
    }
    let mut sums = LaneSums::default();
    sums.add_row(dist, inv_h);
    sums.total()
}

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
    fn within_gives_the_same_bits_on_every_path() {
        let mut rng = crate::rng::XorShift::new(7);
        let mut next = move || rng.unit() as f32 * 0.03;
        let n = 4 * LANES;
        let x: Vec<f32> = (0..n).map(|_| next()).collect();
        let y: Vec<f32> = (0..n).map(|_| next()).collect();
        let z: Vec<f32> = (0..n).map(|_| next()).collect();
        let xi = Vec3A::new(0.015, 0.014, 0.016);
        let h2 = 0.012f32 * 0.012;
        let (mut r2a, mut ma) = (vec![0.0; n], vec![0; n / LANES]);
        let (mut r2b, mut mb) = (vec![0.0; n], vec![0; n / LANES]);
        within(&x, &y, &z, xi, h2, &mut r2a, &mut ma);
        within_any(&x, &y, &z, xi, h2, &mut r2b, &mut mb);
        assert_eq!(ma, mb);
        let inside = ma.iter().map(|m| m.count_ones()).sum::<u32>();
        assert!(
            inside > 4 && inside < n as u32 - 4,
            "{inside} of {n} inside"
        );
        for k in 0..n {
            let want = (Vec3A::new(x[k], y[k], z[k]) - xi).length_squared();
            assert_eq!(r2a[k].to_bits(), want.to_bits(), "lane {k}");
            assert_eq!(r2b[k].to_bits(), want.to_bits(), "lane {k}");
            assert_eq!(ma[k / LANES] >> (k % LANES) & 1 == 1, want < h2, "lane {k}");
        }
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
        let (mut checked, mut found) = (0, 0);
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
            checked += 1;
            found += na;
        }
        assert!(
            checked > 2000 && found > 15 * checked,
            "{checked} slots, {found} entries"
        );
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
                let want: Vec<u32> = (0..n)
                    .filter(|&j| j != i && (p.pos[j] - p.pos[i]).length_squared() < h * h)
                    .map(|j| j as u32)
                    .collect();
                assert_eq!(lists.of(i), &want[..], "slot {i} (clamped: {clamped})");
                for (&j, &d) in lists.of(i).iter().zip(lists.dist_of(i)) {
                    let r = (p.pos[j as usize] - p.pos[i]).length();
                    assert_eq!(d.to_bits(), r.to_bits(), "slot {i}, neighbour {j}");
                }
                pairs += want.len();
            }
            assert!(pairs > 20 * n, "only {pairs} pairs");
            let (mut rho, mut near) = (vec![0.0; n], vec![0.0; n]);
            relaxation::densities(&p.pos, &lists, h, &mut rho, &mut near);
            for (i, s) in lists.sums().iter().enumerate() {
                assert_eq!(s[0].to_bits(), rho[i].to_bits(), "slot {i}");
                assert_eq!(s[1].to_bits(), near[i].to_bits(), "slot {i}");
            }
        }
    }
}
