//! Double-density relaxation (Clavet et al. 2005, section 4) in the Jacobi form: every
//! displacement from the same positions, each pair's symmetric term computed once and added to
//! both particles ([`NeighbourLists::scatter`]).
use super::lanes::has_avx2;
use super::lanes::{self, LANES};
use super::neighbours::{NeighbourLists, add_kernel_row, in_pool};
use super::params::LiquidParams;
use crate::boundary::WallPairs;
use glam::Vec3A;
use rayon::prelude::*;

/// Kernel sums `rho = sum (1-q)^2` and `rho_near = sum (1-q)^3` of every slot over its
/// neighbours closer than `h`: each pair once, added to both in double precision (in `sums`,
/// [`add_kernel_row`], in the order of [`NeighbourLists::scatter`]; at the positions the lists
/// were built from, the lists' own sums).
pub fn densities(
    pos: &[Vec3A],
    lists: &NeighbourLists,
    h: f32,
    rho: &mut [f32],
    rho_near: &mut [f32],
    sums: &mut [[f64; 2]],
) {
    let inv_h = 1.0 / h;
    in_pool(|| {
        sums.par_iter_mut().for_each(|s| *s = [0.0; 2]);
        lists.scatter(sums, |i, first, w| {
            let xi = pos[i];
            let js = lists.later_of(i).0;
            add_kernel_row(i, js, first, w, |_, j| {
                (pos[j as usize] - xi).length() * inv_h
            });
        });
        rho.par_iter_mut()
            .zip(rho_near.par_iter_mut())
            .zip(sums.par_iter())
            .for_each(|((r, n), s)| [*r, *n] = [s[0] as f32, s[1] as f32]);
    })
}

/// Pressure and near pressure of every slot from its kernel sums (pressure clamped at zero
/// unless the phase has cohesion).
pub fn pressures(
    phase: &[u32],
    params: &LiquidParams,
    rho: &[f32],
    rho_near: &[f32],
    press: &mut [[f32; 2]],
) {
    press.par_iter_mut().enumerate().for_each(|(i, out)| {
        let ph = params.phases[phase[i] as usize];
        let p = ph.k_eff * (rho[i] - params.rho0);
        *out = [
            if ph.cohesion { p } else { p.max(0.0) },
            ph.k_near_eff * rho_near[i],
        ];
    });
}

/// The displacement of every slot:
/// `dx_i = -dt^2 sum_j m_j/(m_i+m_j) [(P_i+P_j)(1-q) + (Pn_i+Pn_j)(1-q)^2] r_hat_ij`.
///
/// Each pair's term is computed once, from its lower slot, and added to both particles
/// through [`NeighbourLists::scatter`] (its order fixed by the lists alone).
///
/// `built_here` says that the lists were built from `pos` (the first pass of a step): the pair
/// distances are then the lists' own rather than computed again (the same numbers).
///
/// With `walls`, the same pair loops gather the walls' pressure sums of
/// [`crate::boundary::add_ghost_pressure`] into its array (one entry per slot): every slot
/// starts at [`WallPairs::own`], and each pair of a row whose slot is within `2h` of a wall
/// ([`WallPairs::gathers`]) with `a = 1 - |r|/h > 0` (`r = x_j - x_i`) adds, with `w = a^2`
/// and `g = grad . r`, `[w (P_j - g), w, a g^2 / |r|]` to slot `i` and `[w (P_i + g), w,
/// a g^2 / |r|]` to slot `j`, pair by pair in the rows' order: the sums of a separate scalar
/// walk over the same pairs, bit for bit.
#[allow(clippy::too_many_arguments)]
pub fn displacements(
    pos: &[Vec3A],
    phase: &[u32],
    lists: &NeighbourLists,
    params: &LiquidParams,
    press: &[[f32; 2]],
    dt: f32,
    built_here: bool,
    walls: Option<(WallPairs, &mut [Vec3A])>,
    dx: &mut [Vec3A],
) {
    in_pool(|| {
        if built_here {
            displacements_with::<true>(pos, phase, lists, params, press, dt, walls, dx);
        } else {
            displacements_with::<false>(pos, phase, lists, params, press, dt, walls, dx);
        }
    })
}

#[allow(clippy::too_many_arguments)]
fn displacements_with<const STORED: bool>(
    pos: &[Vec3A],
    phase: &[u32],
    lists: &NeighbourLists,
    params: &LiquidParams,
    press: &[[f32; 2]],
    dt: f32,
    walls: Option<(WallPairs, &mut [Vec3A])>,
    dx: &mut [Vec3A],
) {
    let inv_h = 1.0 / params.h;
    let dt2 = dt * dt;
    let phases = &params.phases;
    // A pair term moves each of its particles by at most a tenth of a spacing (`mag w` with
    // `w = dt^2 / 2` for equal masses), unless it is wild (see [`cap_pair`]).
    let cap = [0.2 * params.spacing / dt2, 20.0 * params.h / dt2];
    let one_phase = phases.len() == 1;
    let (avx2, w) = (has_avx2(), 0.5 * dt2);
    let weight = |i: usize, j: u32| {
        if one_phase {
            return [w, w];
        }
        let mi = phases[phase[i] as usize].mass;
        let mj = phases[phase[j as usize] as usize].mass;
        [dt2 * (mj / (mi + mj)), dt2 * (mi / (mi + mj))]
    };
    let Some((wp, sums)) = walls else {
        dx.par_iter_mut().for_each(|d| *d = Vec3A::ZERO);
        lists.scatter(dx, |i, first, win| {
            let (js, ds) = lists.later_of(i);
            if one_phase && avx2 {
                // SAFETY: the processor has AVX2 (checked by `has_avx2`).
                unsafe {
                    uniform_row_avx2::<STORED, false>(
                        pos,
                        press,
                        js,
                        ds,
                        i,
                        inv_h,
                        w,
                        cap,
                        first,
                        win,
                        (Vec3A::ZERO, 1.0),
                        &mut [],
                    )
                }
            } else {
                row::<STORED>(pos, press, js, ds, i, inv_h, cap, first, win, None, |j| {
                    weight(i, j)
                });
            }
        });
        return;
    };
    dx.par_iter_mut()
        .zip(sums.par_iter_mut())
        .zip(press.par_iter())
        .for_each(|((d, s), p)| (*d, *s) = (Vec3A::ZERO, WallPairs::own(*p)));
    lists.scatter2(dx, sums, |i, first, win, swin| {
        let (js, ds) = lists.later_of(i);
        let gathers = wp.gathers(pos[i]);
        let wall = (wp.grad, wp.h);
        if one_phase && avx2 {
            // SAFETY: the processor has AVX2 (checked by `has_avx2`).
            unsafe {
                if gathers {
                    uniform_row_avx2::<STORED, true>(
                        pos, press, js, ds, i, inv_h, w, cap, first, win, wall, swin,
                    )
                } else {
                    uniform_row_avx2::<STORED, false>(
                        pos, press, js, ds, i, inv_h, w, cap, first, win, wall, swin,
                    )
                }
            }
        } else {
            let wall = gathers.then_some((wp.grad, wp.h, swin));
            row::<STORED>(pos, press, js, ds, i, inv_h, cap, first, win, wall, |j| {
                weight(i, j)
            });
        }
    });
}

/// A pair's pressure term `mag` capped at `cap[0]` (a term that would move its particles more
/// than a tenth of a spacing), unless it is above `cap[1]` (ten kernel radii). At a CFL step a
/// pair's term moves its particles a small fraction of a spacing and the cap leaves it alone;
/// only a pair pressed far closer than the lattice asks for more, and taking it whole can
/// throw the pair across its kernel (the toppling block's stability sweep at twice the CFL
/// step gained 50 times its energy in its first frames with the half lists' summation order;
/// 13 times with the cap at half a spacing, 0.22% at a tenth). Both particles of the pair take the same capped term, so momentum is
/// still conserved. A term beyond the wild bound is no squeezed pair but a step far past its
/// stable size: it is taken whole, so that the run stops with its named error (a position not
/// finite) rather than going on capped.
#[inline(always)]
fn cap_pair(mag: f32, cap: [f32; 2]) -> f32 {
    if mag > cap[0] && mag <= cap[1] {
        cap[0]
    } else {
        mag
    }
}

/// The walls' pressure sums of a scalar pair row ([`displacements`]): slot `i`'s
/// `[w (P_j - g), w, m]` added pair by pair, in entry order, to its running sums `own`
/// (taken from its entry when the row starts, as the former separate walk added them), and
/// each chunk's `[w (P_i + g), w, m]` kept per lane for neighbour `j`. A dropped pair's terms
/// are -0, which leaves every sum as it is.
#[derive(Debug, Clone, Copy)]
struct WallTerms {
    own: Vec3A,
    out: [[f32; LANES]; 3],
}

impl WallTerms {
    /// The row of slot `i` in the window `s` (from slot `first`).
    #[inline(always)]
    fn start(i: usize, first: usize, s: &[Vec3A]) -> WallTerms {
        WallTerms {
            own: s[i - first],
            out: [[0.0; LANES]; 3],
        }
    }

    /// Lane `k`'s pair at `r = x_j - x_i` (distance `d`), slot `i`'s pressure `pi` and `j`'s
    /// `pj`, with `h` the kernel radius and `grad` the hydrostatic gradient: the former walk's
    /// arithmetic, `a = 1 - d/h`, `g = grad . r`, `w = a^2`, `m = a g g / d`.
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    fn add(&mut self, k: usize, r: [f32; 3], d: f32, h: f32, pi: f32, pj: f32, grad: Vec3A) {
        let a = 1.0 - d / h;
        let g = (r[0] * grad.x + r[1] * grad.y) + r[2] * grad.z;
        let (ti, tj) = if (a > 0.0) & (d > 0.0) {
            let (w, m) = (a * a, a * g * g / d);
            ([w * (pj - g), w, m], [w * (pi + g), w, m])
        } else {
            ([-0.0; 3], [-0.0; 3])
        };
        self.own += Vec3A::from_array(ti);
        for (out, t) in self.out.iter_mut().zip(tj) {
            out[k] = t;
        }
    }

    /// The chunk's neighbours `js` gain their sums, in entry order, in the window `s` (from
    /// slot `first`).
    #[inline(always)]
    fn scatter(&self, js: &[u32], first: usize, s: &mut [Vec3A]) {
        for (k, &j) in js.iter().enumerate() {
            s[j as usize - first] += Vec3A::new(self.out[0][k], self.out[1][k], self.out[2][k]);
        }
    }
}

/// The displacements of slot `i` and its later neighbours `js` (the window `win` from slot
/// `first`), lane by lane (entry `e` in lane `e % 8`): per pair with `a = 1 - d/h > 0` and
/// `d > 0`, the term `t = r ((P_i+P_j) a + (Pn_i+Pn_j) a^2) / d`; slot `j` moves by `t w_j`
/// in lane order, then slot `i` by minus the sum of `t w_i`, where `weight(j)` is
/// `[w_i, w_j]` (`dt^2` times the mass ratios). `STORED`: the distances are the lists' own
/// `ds` rather than computed from `pos`. With `wall` (the hydrostatic gradient, the kernel
/// radius and the window of the walls' pressure sums from `first`), the row's walls' sums too
/// ([`WallTerms`]).
#[allow(clippy::too_many_arguments)]
#[inline(always)]
fn row<const STORED: bool>(
    pos: &[Vec3A],
    press: &[[f32; 2]],
    js: &[u32],
    ds: &[f32],
    i: usize,
    inv_h: f32,
    cap: [f32; 2],
    first: usize,
    win: &mut [Vec3A],
    mut wall: Option<(Vec3A, f32, &mut [Vec3A])>,
    weight: impl Fn(u32) -> [f32; 2],
) {
    let xi = pos[i];
    let [pi, ni] = press[i];
    let mut terms = lanes::PairTerms::default();
    let mut wall_terms = wall.as_ref().map(|(_, _, s)| WallTerms::start(i, first, s));
    for (js, ds) in js.chunks(LANES).zip(ds.chunks(LANES)) {
        let idx = lanes::chunk(js, i as u32);
        let [px, py, pz] = lanes::load_xyz(pos, &idx);
        let [pj, nj] = lanes::load_pairs(press, &idx);
        let dk = lanes::chunk(ds, 0.0);
        for k in 0..LANES {
            let (rx, ry, rz) = (px[k] - xi.x, py[k] - xi.y, pz[k] - xi.z);
            let d = if STORED {
                dk[k]
            } else {
                (rx * rx + ry * ry + rz * rz).sqrt()
            };
            let a = 1.0 - d * inv_h;
            let mag = cap_pair((pi + pj[k]) * a + (ni + nj[k]) * a * a, cap);
            let [wi, wj] = weight(idx[k]);
            let keep = (a > 0.0) & (d > 0.0);
            let (si, sj) = if keep {
                (mag * wi / d, mag * wj / d)
            } else {
                (0.0, 0.0)
            };
            terms.add(k, [rx, ry, rz], si, sj);
            if let (Some(t), Some((grad, h, _))) = (&mut wall_terms, &wall) {
                t.add(k, [rx, ry, rz], d, *h, pi, pj[k], *grad);
            }
        }
        terms.scatter(js, first, win);
        if let (Some(t), Some((_, _, s))) = (&wall_terms, &mut wall) {
            t.scatter(js, first, s);
        }
    }
    terms.finish(i, first, win);
    if let (Some(t), Some((_, _, s))) = (&wall_terms, &mut wall) {
        s[i - first] = t.own;
    }
}

/// [`row`] for one phase (`w_i = w_j = w`), 8 pairs at a time in AVX2 registers (the same
/// operations); `WALL`: the walls' pressure sums too ([`WallTerms`], the same operations),
/// with the hydrostatic gradient `grad` and the kernel radius `h`, into the window `sums`
/// from `first`.
#[allow(clippy::too_many_arguments)]
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn uniform_row_avx2<const STORED: bool, const WALL: bool>(
    pos: &[Vec3A],
    press: &[[f32; 2]],
    js: &[u32],
    ds: &[f32],
    i: usize,
    inv_h: f32,
    w: f32,
    cap: [f32; 2],
    first: usize,
    win: &mut [Vec3A],
    (grad, h): (Vec3A, f32),
    sums: &mut [Vec3A],
) {
    use std::arch::x86_64::*;
    let xi = pos[i];
    let [pi, ni] = press[i];
    let (bx, by, bz) = (
        _mm256_set1_ps(xi.x),
        _mm256_set1_ps(xi.y),
        _mm256_set1_ps(xi.z),
    );
    let (bp, bn) = (_mm256_set1_ps(pi), _mm256_set1_ps(ni));
    let (vinv_h, w) = (_mm256_set1_ps(inv_h), _mm256_set1_ps(w));
    let (one, zero) = (_mm256_set1_ps(1.0), _mm256_setzero_ps());
    let (vcap, vwild) = (_mm256_set1_ps(cap[0]), _mm256_set1_ps(cap[1]));
    let (gx, gy, gz) = (
        _mm256_set1_ps(grad.x),
        _mm256_set1_ps(grad.y),
        _mm256_set1_ps(grad.z),
    );
    let (vh, minus_zero) = (_mm256_set1_ps(h), _mm256_set1_ps(-0.0));
    let mut acc = (zero, zero, zero);
    // The row's own walls' sums, from its entry (as `WallTerms::start`).
    let mut own = if WALL {
        let o: *const Vec3A = &sums[i - first];
        // SAFETY: `o` points at 16 readable bytes (a Vec3A).
        unsafe { _mm_loadu_ps(o.cast()) }
    } else {
        _mm_setzero_ps()
    };
    for (js, ds) in js.chunks(LANES).zip(ds.chunks(LANES)) {
        let idx = lanes::chunk(js, i as u32);
        // SAFETY: the processor has AVX2 (this function's requirement).
        let ((px, py, pz), (pj, nj)) = unsafe {
            (
                lanes::avx2::load_xyz(pos, &idx),
                lanes::avx2::load_pairs(press, &idx),
            )
        };
        let (rx, ry, rz) = (
            _mm256_sub_ps(px, bx),
            _mm256_sub_ps(py, by),
            _mm256_sub_ps(pz, bz),
        );
        let d = if STORED {
            let dk = lanes::chunk(ds, 0.0);
            // SAFETY: `dk` holds 8 floats.
            unsafe { _mm256_loadu_ps(dk.as_ptr()) }
        } else {
            _mm256_sqrt_ps(_mm256_add_ps(
                _mm256_add_ps(_mm256_mul_ps(rx, rx), _mm256_mul_ps(ry, ry)),
                _mm256_mul_ps(rz, rz),
            ))
        };
        let a = _mm256_sub_ps(one, _mm256_mul_ps(d, vinv_h));
        let mag = _mm256_add_ps(
            _mm256_mul_ps(_mm256_add_ps(bp, pj), a),
            _mm256_mul_ps(_mm256_mul_ps(_mm256_add_ps(bn, nj), a), a),
        );
        // As `cap_pair`: the cap where the term is above it and not above the wild bound.
        let mag = _mm256_blendv_ps(
            _mm256_min_ps(mag, vcap),
            mag,
            _mm256_cmp_ps::<_CMP_GT_OQ>(mag, vwild),
        );
        let s = _mm256_div_ps(_mm256_mul_ps(mag, w), d);
        let keep = _mm256_and_ps(
            _mm256_cmp_ps::<_CMP_GT_OQ>(a, zero),
            _mm256_cmp_ps::<_CMP_GT_OQ>(d, zero),
        );
        let s = _mm256_and_ps(keep, s);
        // SAFETY: the processor has AVX2 (this function's promise).
        unsafe { lanes::avx2::scatter_add(&mut acc, (rx, ry, rz), s, js, first, win) };
        if WALL {
            // As `WallTerms::add`.
            let a = _mm256_sub_ps(one, _mm256_div_ps(d, vh));
            let g = _mm256_add_ps(
                _mm256_add_ps(_mm256_mul_ps(rx, gx), _mm256_mul_ps(ry, gy)),
                _mm256_mul_ps(rz, gz),
            );
            let keep = _mm256_and_ps(
                _mm256_cmp_ps::<_CMP_GT_OQ>(a, zero),
                _mm256_cmp_ps::<_CMP_GT_OQ>(d, zero),
            );
            let ww = _mm256_mul_ps(a, a);
            let m = _mm256_div_ps(_mm256_mul_ps(_mm256_mul_ps(a, g), g), d);
            // A dropped pair's terms -0.
            let kept = |t: __m256| _mm256_blendv_ps(minus_zero, t, keep);
            let (ww, m) = (kept(ww), kept(m));
            let ti = (kept(_mm256_mul_ps(ww, _mm256_sub_ps(pj, g))), ww, m);
            let tj = (kept(_mm256_mul_ps(ww, _mm256_add_ps(bp, g))), ww, m);
            // SAFETY: as above.
            for t in unsafe { lanes::avx2::transpose(ti) } {
                own = _mm_add_ps(own, t);
            }
            // SAFETY: as above.
            unsafe { lanes::avx2::scatter_lanes(tj, js, first, sums) };
        }
    }
    // SAFETY: as above.
    win[i - first] -= unsafe { lanes::avx2::reduce3(acc) };
    if WALL {
        sums[i - first] = Vec3A::from(own);
    }
}

/// [`row`] where there is no AVX2 build.
#[allow(clippy::too_many_arguments)]
#[cfg(not(target_arch = "x86_64"))]
unsafe fn uniform_row_avx2<const STORED: bool, const WALL: bool>(
    pos: &[Vec3A],
    press: &[[f32; 2]],
    js: &[u32],
    ds: &[f32],
    i: usize,
    inv_h: f32,
    w: f32,
    cap: [f32; 2],
    first: usize,
    win: &mut [Vec3A],
    (grad, h): (Vec3A, f32),
    sums: &mut [Vec3A],
) {
    let wall = WALL.then_some((grad, h, sums));
    row::<STORED>(pos, press, js, ds, i, inv_h, cap, first, win, wall, |_| {
        [w, w]
    })
}

/// Scratch arrays for the relaxation passes.
#[derive(Debug, Default, Clone)]
pub struct RelaxationBuffers {
    /// Near kernel sums.
    pub rho_near: Vec<f32>,
    /// Pressure and near pressure.
    pub press: Vec<[f32; 2]>,
    /// Displacements.
    pub dx: Vec<Vec3A>,
    /// The bodies' part of the kernel sums (zero away from every body).
    pub body: Vec<f32>,
    /// Per slot, the walls' weighted pressure, weight and the liquid's moment (gathered by
    /// [`displacements`] for `boundary::add_ghost_pressure`).
    pub pairs: Vec<Vec3A>,
    /// Per slot, the kernel sums of a later pass in double precision (a scatter over the
    /// neighbour lists).
    pub kernel: Vec<[f64; 2]>,
}

impl RelaxationBuffers {
    /// Set aside room in every array for `n` particles.
    pub fn reserve(&mut self, n: usize) {
        fn more<T>(v: &mut Vec<T>, n: usize) {
            v.reserve(n.saturating_sub(v.len()));
        }
        more(&mut self.rho_near, n);
        more(&mut self.press, n);
        more(&mut self.dx, n);
        more(&mut self.body, n);
        more(&mut self.pairs, n);
        more(&mut self.kernel, n);
    }

    /// Size every array for `n` particles.
    pub fn resize(&mut self, n: usize) {
        self.rho_near.resize(n, 0.0);
        self.press.resize(n, [0.0; 2]);
        self.dx.resize(n, Vec3A::ZERO);
        self.body.resize(n, 0.0);
        self.pairs.resize(n, Vec3A::ZERO);
        self.kernel.resize(n, [0.0; 2]);
    }
}

#[cfg(test)]
mod tests;
