//! Eight-lane pieces of the pair loops: a neighbour row taken 8 entries at a time, the
//! particles' arrays loaded for those entries as x, y, z lanes (AVX2 where the processor has
//! it), kernel sums kept per lane, and the one fixed order in which lanes are added up.
//!
//! Entry `e` of a row always lands in lane `e % 8`, and the lanes are added up as
//! `((l0 + l1) + (l2 + l3)) + ((l4 + l5) + (l6 + l7))`, on every path and at any thread count.
use glam::Vec3A;

/// Whether the processor has AVX2, for the 8-lane builds of the pair loops (the neighbour
/// lists', the relaxation's and the viscosity's) and the candidates' 8-lane distance test.
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

/// Entries of a neighbour row computed together.
pub const LANES: usize = 8;

/// One chunk of a neighbour row (at most [`LANES`] entries), padded with `pad` (for slots the
/// row's own, whose zero distance every pair loop drops; for distances zero).
#[inline(always)]
pub fn chunk<T: Copy>(xs: &[T], pad: T) -> [T; LANES] {
    if let Ok(full) = <[T; LANES]>::try_from(xs) {
        return full;
    }
    // A fixed-length loop (a loop over `xs` calls memcpy for the short copy).
    let mut out = [pad; LANES];
    for (k, o) in out.iter_mut().enumerate() {
        if k < xs.len() {
            *o = xs[k];
        }
    }
    out
}

/// The lanes added up in the fixed order `((l0 + l1) + (l2 + l3)) + ((l4 + l5) + (l6 + l7))`.
#[inline(always)]
pub fn reduce(l: [f32; LANES]) -> f32 {
    ((l[0] + l[1]) + (l[2] + l[3])) + ((l[4] + l[5]) + (l[6] + l[7]))
}

/// Kernel sums `(sum (1-q)^2, sum (1-q)^3)` kept per lane.
#[derive(Debug, Clone, Copy, Default)]
pub struct LaneSums {
    rho: [f32; LANES],
    near: [f32; LANES],
}

impl LaneSums {
    /// Add `a = 1 - q` in lane `lane` (nothing where `a <= 0`); returns what it added,
    /// `[a^2, a^3]`.
    #[inline(always)]
    pub fn add(&mut self, lane: usize, a: f32) -> [f32; 2] {
        let a = if a > 0.0 { a } else { 0.0 };
        let a2 = a * a;
        let a3 = a2 * a;
        self.rho[lane] += a2;
        self.near[lane] += a3;
        [a2, a3]
    }

    /// The two sums, lanes added up in the fixed order.
    #[inline(always)]
    pub fn total(&self) -> [f32; 2] {
        [reduce(self.rho), reduce(self.near)]
    }
}

/// The vector terms of one chunk of a scalar pair row, per lane: each pair's `r s_i` into the
/// row's own lane sums (kept across chunks), its `r s_j` out to the neighbour.
#[derive(Debug, Clone, Copy, Default)]
pub struct PairTerms {
    acc: [[f32; LANES]; 3],
    out: [[f32; LANES]; 3],
}

impl PairTerms {
    /// Lane `k`'s pair at `r = x_j - x_i`: `r si` into the row's lane sum, `r sj` kept for
    /// neighbour `j` (a dropped pair passes `si = sj = 0`, which adds +0).
    #[inline(always)]
    pub fn add(&mut self, k: usize, r: [f32; 3], si: f32, sj: f32) {
        for ((acc, out), r) in self.acc.iter_mut().zip(&mut self.out).zip(r) {
            acc[k] += r * si;
            out[k] = r * sj;
        }
    }

    /// The chunk's neighbours `js` gain their terms, in entry order, in the window `w` (from
    /// slot `first`).
    #[inline(always)]
    pub fn scatter(&self, js: &[u32], first: usize, w: &mut [Vec3A]) {
        for (k, &j) in js.iter().enumerate() {
            w[j as usize - first] += Vec3A::new(self.out[0][k], self.out[1][k], self.out[2][k]);
        }
    }

    /// Slot `i` loses the row's lane sums, added up in the fixed order.
    #[inline(always)]
    pub fn finish(&self, i: usize, first: usize, w: &mut [Vec3A]) {
        w[i - first] -= Vec3A::new(
            reduce(self.acc[0]),
            reduce(self.acc[1]),
            reduce(self.acc[2]),
        );
    }
}

/// `v[idx[k]]` for the 8 lanes as separate x, y, z lanes.
#[inline(always)]
pub fn load_xyz(v: &[Vec3A], idx: &[u32; LANES]) -> [[f32; LANES]; 3] {
    let mut out = [[0.0; LANES]; 3];
    for (k, &j) in idx.iter().enumerate() {
        let x = v[j as usize];
        (out[0][k], out[1][k], out[2][k]) = (x.x, x.y, x.z);
    }
    out
}

/// `v[idx[k]]` for the 8 lanes as two lanes of their first and second entries.
#[inline(always)]
pub fn load_pairs(v: &[[f32; 2]], idx: &[u32; LANES]) -> [[f32; LANES]; 2] {
    let mut out = [[0.0; LANES]; 2];
    for (k, &j) in idx.iter().enumerate() {
        [out[0][k], out[1][k]] = v[j as usize];
    }
    out
}

/// AVX2 builds of the loads (the same values as [`load_xyz`] and [`load_pairs`]).
#[cfg(target_arch = "x86_64")]
pub(crate) mod avx2 {
    use super::LANES;
    use glam::Vec3A;
    use std::arch::x86_64::*;

    /// [`super::load_xyz`] as three 8-lane vectors: eight 4-float loads and a transpose.
    /// Inlined into the AVX2 builds of the pair loops (it has no build of its own).
    ///
    /// # Safety
    /// The processor must have AVX2.
    #[inline(always)]
    pub unsafe fn load_xyz(v: &[Vec3A], idx: &[u32; LANES]) -> (__m256, __m256, __m256) {
        // Bounds are checked by the indexing; a Vec3A is four f32 (the fourth unused).
        #[inline(always)]
        fn at(v: &[Vec3A], j: u32) -> __m128 {
            let p: *const Vec3A = &v[j as usize];
            // SAFETY: `p` points at 16 readable bytes (a Vec3A is 16 bytes).
            unsafe { _mm_loadu_ps(p.cast::<f32>()) }
        }
        let at = |k: usize| at(v, idx[k]);
        // SAFETY: the processor has AVX2 (the caller's promise).
        unsafe {
            let a0 = _mm256_insertf128_ps::<1>(_mm256_castps128_ps256(at(0)), at(4));
            let a1 = _mm256_insertf128_ps::<1>(_mm256_castps128_ps256(at(1)), at(5));
            let a2 = _mm256_insertf128_ps::<1>(_mm256_castps128_ps256(at(2)), at(6));
            let a3 = _mm256_insertf128_ps::<1>(_mm256_castps128_ps256(at(3)), at(7));
            let t0 = _mm256_unpacklo_ps(a0, a1);
            let t1 = _mm256_unpackhi_ps(a0, a1);
            let t2 = _mm256_unpacklo_ps(a2, a3);
            let t3 = _mm256_unpackhi_ps(a2, a3);
            (
                _mm256_shuffle_ps::<0b01_00_01_00>(t0, t2),
                _mm256_shuffle_ps::<0b11_10_11_10>(t0, t2),
                _mm256_shuffle_ps::<0b01_00_01_00>(t1, t3),
            )
        }
    }

    /// [`super::load_pairs`] as two 8-lane vectors.
    ///
    /// # Safety
    /// The processor must have AVX2.
    #[inline(always)]
    pub unsafe fn load_pairs(v: &[[f32; 2]], idx: &[u32; LANES]) -> (__m256, __m256) {
        #[inline(always)]
        fn at(v: &[[f32; 2]], j: u32) -> __m128 {
            let p: *const [f32; 2] = &v[j as usize];
            // SAFETY: `p` points at 8 readable bytes.
            unsafe { _mm_castpd_ps(_mm_load_sd(p.cast::<f64>())) }
        }
        let at = |k: usize| at(v, idx[k]);
        // SAFETY: the processor has AVX2 (the caller's promise).
        unsafe {
            let a01 = _mm_movelh_ps(at(0), at(1));
            let a23 = _mm_movelh_ps(at(2), at(3));
            let a45 = _mm_movelh_ps(at(4), at(5));
            let a67 = _mm_movelh_ps(at(6), at(7));
            let a = _mm256_insertf128_ps::<1>(_mm256_castps128_ps256(a01), a45);
            let b = _mm256_insertf128_ps::<1>(_mm256_castps128_ps256(a23), a67);
            (
                _mm256_shuffle_ps::<0b10_00_10_00>(a, b),
                _mm256_shuffle_ps::<0b11_01_11_01>(a, b),
            )
        }
    }

    /// The pair loops' scatter: the terms `t = r s` (a dropped lane's `s` is zero) added to
    /// the three lane sums `acc` of the row's own slot, and each lane's term added, in lane
    /// order, to the accumulator of its neighbour `js[k]` in the window `w` that starts at
    /// slot `first` (lanes past `js.len()` are padding and go nowhere).
    ///
    /// # Safety
    /// The processor must have AVX2.
    #[inline(always)]
    pub unsafe fn scatter_add(
        acc: &mut (__m256, __m256, __m256),
        r: (__m256, __m256, __m256),
        s: __m256,
        js: &[u32],
        first: usize,
        w: &mut [Vec3A],
    ) {
        // SAFETY: the processor has AVX2 (the caller's promise).
        unsafe {
            let (tx, ty, tz) = (
                _mm256_mul_ps(r.0, s),
                _mm256_mul_ps(r.1, s),
                _mm256_mul_ps(r.2, s),
            );
            acc.0 = _mm256_add_ps(acc.0, tx);
            acc.1 = _mm256_add_ps(acc.1, ty);
            acc.2 = _mm256_add_ps(acc.2, tz);
            scatter_lanes((tx, ty, tz), js, first, w);
        }
    }

    /// Lane `k` of the three vectors `t`, as `(t.0[k], t.1[k], t.2[k])`, added in lane order
    /// to the accumulator of its neighbour `js[k]` in the window `w` that starts at slot
    /// `first` (lanes past `js.len()` are padding and go nowhere).
    ///
    /// # Safety
    /// The processor must have AVX2.
    #[inline(always)]
    pub unsafe fn scatter_lanes(
        t: (__m256, __m256, __m256),
        js: &[u32],
        first: usize,
        w: &mut [Vec3A],
    ) {
        // SAFETY: the processor has AVX2 (the caller's promise).
        let t = unsafe { transpose(t) };
        for (&j, t) in js.iter().zip(t) {
            w[j as usize - first] += Vec3A::from(t);
        }
    }

    /// Lane `k` of the three vectors `t` as `(t.0[k], t.1[k], t.2[k], 0)`: the inverse of
    /// [`load_xyz`]'s transpose.
    ///
    /// # Safety
    /// The processor must have AVX2.
    #[inline(always)]
    pub unsafe fn transpose((tx, ty, tz): (__m256, __m256, __m256)) -> [__m128; LANES] {
        // SAFETY: the processor has AVX2 (the caller's promise).
        unsafe {
            let zero = _mm256_setzero_ps();
            let t0 = _mm256_unpacklo_ps(tx, ty);
            let t1 = _mm256_unpackhi_ps(tx, ty);
            let t2 = _mm256_unpacklo_ps(tz, zero);
            let t3 = _mm256_unpackhi_ps(tz, zero);
            let v0 = _mm256_shuffle_ps::<0b01_00_01_00>(t0, t2);
            let v1 = _mm256_shuffle_ps::<0b11_10_11_10>(t0, t2);
            let v2 = _mm256_shuffle_ps::<0b01_00_01_00>(t1, t3);
            let v3 = _mm256_shuffle_ps::<0b11_10_11_10>(t1, t3);
            [
                _mm256_castps256_ps128(v0),
                _mm256_castps256_ps128(v1),
                _mm256_castps256_ps128(v2),
                _mm256_castps256_ps128(v3),
                _mm256_extractf128_ps::<1>(v0),
                _mm256_extractf128_ps::<1>(v1),
                _mm256_extractf128_ps::<1>(v2),
                _mm256_extractf128_ps::<1>(v3),
            ]
        }
    }

    /// The three sums, each added up in the fixed order ([`reduce`]), as a vector.
    ///
    /// # Safety
    /// The processor must have AVX2.
    #[inline(always)]
    pub unsafe fn reduce3(acc: (__m256, __m256, __m256)) -> Vec3A {
        // SAFETY: the processor has AVX2 (the caller's promise).
        unsafe { Vec3A::new(reduce(acc.0), reduce(acc.1), reduce(acc.2)) }
    }

    /// The 8 lanes of `v` added up in the fixed order ([`super::reduce`]).
    ///
    /// # Safety
    /// The processor must have AVX2.
    #[inline(always)]
    pub unsafe fn reduce(v: __m256) -> f32 {
        let mut l = [0.0f32; LANES];
        // SAFETY: `l` holds 8 floats; the processor has AVX2 (the caller's promise).
        unsafe { _mm256_storeu_ps(l.as_mut_ptr(), v) };
        super::reduce(l)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lane_loads_give_the_scalar_loads() {
        if !has_avx2() {
            return;
        }
        let v: Vec<Vec3A> = (0..20)
            .map(|k| Vec3A::new(k as f32, 100.0 + k as f32, -(k as f32)))
            .collect();
        let p: Vec<[f32; 2]> = (0..20).map(|k| [k as f32, 0.5 - k as f32]).collect();
        let idx = [3, 19, 0, 7, 7, 12, 5, 1];
        let want = load_xyz(&v, &idx);
        let want_p = load_pairs(&p, &idx);
        #[cfg(target_arch = "x86_64")]
        {
            use std::arch::x86_64::*;
            #[target_feature(enable = "avx2")]
            fn loads(v: &[Vec3A], p: &[[f32; 2]], idx: &[u32; LANES]) -> [[f32; LANES]; 5] {
                let mut out = [[0.0f32; LANES]; 5];
                // SAFETY: the processor has AVX2 (this function's requirement); every row of
                // `out` holds 8 floats.
                unsafe {
                    let (x, y, z) = avx2::load_xyz(v, idx);
                    let (a, b) = avx2::load_pairs(p, idx);
                    for (o, l) in out.iter_mut().zip([x, y, z, a, b]) {
                        _mm256_storeu_ps(o.as_mut_ptr(), l);
                    }
                }
                out
            }
            // SAFETY: the processor has AVX2 (checked above).
            let [x, y, z, a, b] = unsafe { loads(&v, &p, &idx) };
            let pairs = [
                (x, want[0]),
                (y, want[1]),
                (z, want[2]),
                (a, want_p[0]),
                (b, want_p[1]),
            ];
            for (got, want) in pairs {
                assert_eq!(got, want);
            }
        }
        assert_eq!(want[1][1], 119.0);
        assert_eq!(want_p[1][2], 0.5);
    }

    #[test]
    fn lane_sums_put_entry_e_in_lane_e_mod_8() {
        let dist: Vec<f32> = (0..21).map(|k| 0.05 * k as f32).collect();
        let mut s = LaneSums::default();
        for (e, &d) in dist.iter().enumerate() {
            s.add(e % LANES, 1.0 - d);
        }
        let mut want = [[0.0f32; LANES]; 2];
        for (e, &d) in dist.iter().enumerate() {
            let a = (1.0 - d).max(0.0);
            want[0][e % LANES] += a * a;
            want[1][e % LANES] += a * a * a;
        }
        assert_eq!(s.total(), [reduce(want[0]), reduce(want[1])]);
        assert!(s.total()[0] > 5.0, "{:?}", s.total());
    }
}
