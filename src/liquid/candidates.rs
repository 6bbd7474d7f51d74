//! The candidates of a slot's later neighbours, found from the grid: the particles of a cell
//! and the later cells around it loaded once as coordinate arrays ([`CellCandidates`]) and
//! tested 32 at a time against the kernel radius, with AVX2 and AVX-512's compressing store
//! where the processor has them, or the grid's rows walked one at a time ([`gather`]) where a
//! neighbourhood is too dense for the arrays. Every path gives the same entries in the grid's
//! order.
use super::grid::Grid;
use super::lanes::has_avx2;
use glam::Vec3A;

/// The most candidates [`CellCandidates`] holds (a multiple of [`WIDTH`]).
const CAPACITY: usize = 1024;

/// Candidates tested together, one bit each in a mask.
const WIDTH: usize = 32;

/// The positions and slots of the particles in one cell and the later cells of the 27 around
/// it (those of higher index: the cell's own first), in the grid's order, as separate
/// coordinate arrays (padded with positions at infinity for [`WIDTH`] past the last).
pub(super) struct CellCandidates {
    /// The cell loaded, `u32::MAX` when none.
    cell: u32,
    /// Whether the cell's neighbourhood fit.
    fits: bool,
    len: usize,
    /// The cell's first slot (at the buffer's start).
    start: usize,
    x: [f32; CAPACITY + WIDTH],
    y: [f32; CAPACITY + WIDTH],
    z: [f32; CAPACITY + WIDTH],
    slot: [u32; CAPACITY + WIDTH],
    r2: [f32; CAPACITY + WIDTH],
    masks: [u32; CAPACITY / WIDTH + 1],
    /// Whether the processor has AVX-512 (the compressing gather).
    pub(super) avx512: bool,
}

impl CellCandidates {
    pub(super) fn new() -> CellCandidates {
        CellCandidates {
            cell: u32::MAX,
            fits: false,
            len: 0,
            start: 0,
            x: [0.0; CAPACITY + WIDTH],
            y: [0.0; CAPACITY + WIDTH],
            z: [0.0; CAPACITY + WIDTH],
            slot: [0; CAPACITY + WIDTH],
            r2: [0.0; CAPACITY + WIDTH],
            masks: [0; CAPACITY / WIDTH + 1],
            avx512: has_avx512(),
        }
    }

    /// Load the later neighbourhood of cell `c` (kept when it is the one loaded); whether it
    /// fit.
    #[inline(always)]
    pub(super) fn load(&mut self, pos: &[Vec3A], grid: &Grid, c: u32) -> bool {
        if c == self.cell {
            return self.fits;
        }
        self.cell = c;
        self.start = grid.cell_start[c as usize] as usize;
        let mut len = 0usize;
        let mut fits = true;
        grid.for_each_row_near(c, |first, end| {
            // The rows before the cell's own hold only earlier slots; its own row starts at it.
            let start = (grid.cell_start[first] as usize).max(self.start);
            let end = grid.cell_start[end] as usize;
            if start >= end {
                return;
            }
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
            // A gather from any offset reads whole vectors of up to WIDTH past the last.
            self.x[len..len + WIDTH].fill(f32::INFINITY);
            self.y[len..len + WIDTH].fill(f32::INFINITY);
            self.z[len..len + WIDTH].fill(f32::INFINITY);
            self.len = len;
        }
        fits
    }

    /// As [`gather`], over the loaded candidates after slot `i` (which lies in the loaded
    /// cell): the same entries, order and distances (the square roots of `(dx dx + dy dy) +
    /// dz dz`, as `Vec3A::length_squared` rounds). `slots` and `dist` hold a multiple of 16
    /// entries.
    #[inline(always)]
    pub(super) fn gather(
        &mut self,
        i: usize,
        xi: Vec3A,
        h2: f32,
        slots: &mut [u32],
        dist: &mut [f32],
    ) -> usize {
        let from = i + 1 - self.start;
        #[cfg(target_arch = "x86_64")]
        if self.avx512 {
            assert!(slots.len() == dist.len() && slots.len().is_multiple_of(16));
            // SAFETY: the processor has AVX-512F (checked in `new`); `from <= len`, and the
            // arrays hold WIDTH (>= 16) entries past `len`; the row lengths were checked.
            return unsafe { self.compress_avx512(from, xi, h2, slots, dist) };
        }
        let padded = (self.len - from).next_multiple_of(WIDTH);
        within(
            &self.x[from..from + padded],
            &self.y[from..from + padded],
            &self.z[from..from + padded],
            xi,
            h2,
            &mut self.r2[..padded],
            &mut self.masks,
        );
        let mut c = 0usize;
        for (lane, &mask) in self.masks[..padded / WIDTH].iter().enumerate() {
            let mut mask = mask;
            while mask != 0 {
                let b = mask.trailing_zeros() as usize;
                mask &= mask - 1;
                let e = lane * WIDTH + b;
                if c < slots.len() {
                    slots[c] = self.slot[from + e];
                    dist[c] = self.r2[e].sqrt();
                }
                c += 1;
            }
        }
        c
    }

    /// The gather's entries into `slots` and `dist` with AVX-512, 16 candidates at a time
    /// from candidate `from` on: the lanes closer than `h` compressed in order straight into
    /// the row while a whole vector fits, then their distances' square roots taken 16 at a
    /// time (correctly rounded, as `f32::sqrt`). Returns how many there are (entries past the
    /// row's length are counted but not kept).
    ///
    /// # Safety
    /// The processor must have AVX-512F, `from` be at most the loaded length, the candidate
    /// arrays hold 16 entries past it (they hold [`WIDTH`]), and `slots` and `dist` the same
    /// multiple of 16 entries.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx512f,popcnt")]
    unsafe fn compress_avx512(
        &mut self,
        from: usize,
        xi: Vec3A,
        h2: f32,
        slots: &mut [u32],
        dist: &mut [f32],
    ) -> usize {
        use std::arch::x86_64::*;
        let (px, py, pz) = (
            _mm512_set1_ps(xi.x),
            _mm512_set1_ps(xi.y),
            _mm512_set1_ps(xi.z),
        );
        let ph2 = _mm512_set1_ps(h2);
        let len = slots.len();
        let mut c = 0usize;
        for k in (from..self.len).step_by(16) {
            // SAFETY: k < len and the arrays hold len + WIDTH >= k + 16 entries.
            let (d, slot) = unsafe {
                let dx = _mm512_sub_ps(_mm512_loadu_ps(self.x.as_ptr().add(k)), px);
                let dy = _mm512_sub_ps(_mm512_loadu_ps(self.y.as_ptr().add(k)), py);
                let dz = _mm512_sub_ps(_mm512_loadu_ps(self.z.as_ptr().add(k)), pz);
                let d = _mm512_add_ps(
                    _mm512_add_ps(_mm512_mul_ps(dx, dx), _mm512_mul_ps(dy, dy)),
                    _mm512_mul_ps(dz, dz),
                );
                (d, _mm512_loadu_si512(self.slot.as_ptr().add(k).cast()))
            };
            let m = _mm512_cmp_ps_mask::<_CMP_LT_OQ>(d, ph2);
            let (found, found_d) = (
                _mm512_maskz_compress_epi32(m, slot),
                _mm512_maskz_compress_ps(m, d),
            );
            let n = m.count_ones() as usize;
            if c + 16 <= len {
                // SAFETY: c + 16 <= len entries of both rows.
                unsafe {
                    _mm512_storeu_si512(slots.as_mut_ptr().add(c).cast(), found);
                    _mm512_storeu_ps(dist.as_mut_ptr().add(c), found_d);
                }
            } else if c < len {
                // The first `keep` lanes only, by a masked store (a copy through a buffer
                // called memcpy for every vector past a long row's 16th entry).
                let keep = n.min(len - c);
                let first_keep = ((1u32 << keep) - 1) as __mmask16;
                // SAFETY: c + keep <= len entries of both rows; masked-off lanes are not
                // written.
                unsafe {
                    _mm512_mask_storeu_epi32(slots.as_mut_ptr().add(c).cast(), first_keep, found);
                    _mm512_mask_storeu_ps(dist.as_mut_ptr().add(c), first_keep, found_d);
                }
            }
            c += n;
        }
        // The square roots, 16 at a time over the whole vectors that hold the entries (what
        // lies past the count is never read).
        for k in (0..c.min(len)).step_by(16) {
            // SAFETY: k + 16 <= len, a multiple of 16.
            unsafe {
                let p = dist.as_mut_ptr().add(k);
                _mm512_storeu_ps(p, _mm512_sqrt_ps(_mm512_loadu_ps(p)));
            }
        }
        c
    }
}

/// `r2[k] = |x_k - xi|^2` over coordinate arrays (their length a multiple of [`WIDTH`]),
/// rounded as `Vec3A::length_squared` (`(dx dx + dy dy) + dz dz`, no fused multiply-add),
/// and bit `b` of `masks[c]` set where `r2[c WIDTH + b] < h2`; with AVX where the processor
/// has it.
#[inline(always)]
fn within(x: &[f32], y: &[f32], z: &[f32], xi: Vec3A, h2: f32, r2: &mut [f32], masks: &mut [u32]) {
    let n = r2.len();
    assert!(n.is_multiple_of(WIDTH) && x.len() >= n && y.len() >= n && z.len() >= n);
    assert!(masks.len() >= n / WIDTH);
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
    for (c, m) in masks[..n / WIDTH].iter_mut().enumerate() {
        let mut bits = 0u32;
        for b in 0..WIDTH {
            let k = c * WIDTH + b;
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
/// the lengths: `r2.len()` a multiple of [`WIDTH`], no longer than `x`, `y`, `z`, and
/// `masks` one entry per [`WIDTH`].
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
    for (c, m) in masks[..n / WIDTH].iter_mut().enumerate() {
        let mut bits = 0u32;
        for q in 0..WIDTH / 8 {
            let k = c * WIDTH + q * 8;
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

/// Append the later slots closer than `h` to slot `i` to `slots`, their distances to `dist`,
/// in the grid's order over the cells around it; returns how many there are (entries past the
/// reserved length are counted but not kept).
#[inline(always)]
pub(super) fn gather(
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
        // Only the slots after i: rows before its own hold none.
        let start = (grid.cell_start[first] as usize).max(i + 1);
        let end = grid.cell_start[end] as usize;
        for (k, &xj) in pos[start..end.max(start)].iter().enumerate() {
            let j = start + k;
            let r2 = (xj - xi).length_squared();
            if r2 < h2 {
                if c < slots.len() {
                    slots[c] = j as u32;
                    dist[c] = r2.sqrt();
                }
                c += 1;
            }
        }
    });
    c
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn within_gives_the_same_bits_on_every_path() {
        let mut rng = crate::rng::XorShift::new(7);
        let mut next = move || rng.unit() as f32 * 0.03;
        let n = 4 * WIDTH;
        let x: Vec<f32> = (0..n).map(|_| next()).collect();
        let y: Vec<f32> = (0..n).map(|_| next()).collect();
        let z: Vec<f32> = (0..n).map(|_| next()).collect();
        let xi = Vec3A::new(0.015, 0.014, 0.016);
        let h2 = 0.012f32 * 0.012;
        let (mut r2a, mut ma) = (vec![0.0; n], vec![0; n / WIDTH]);
        let (mut r2b, mut mb) = (vec![0.0; n], vec![0; n / WIDTH]);
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
            assert_eq!(ma[k / WIDTH] >> (k % WIDTH) & 1 == 1, want < h2, "lane {k}");
        }
    }
}
