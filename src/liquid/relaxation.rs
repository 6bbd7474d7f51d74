//! Double-density relaxation (Clavet et al. 2005, section 4) in the Jacobi form: every
//! displacement from the same positions, each pair's symmetric term computed once and added to
//! both particles ([`NeighbourLists::scatter`]).
use super::lanes::{self, LANES};
use super::neighbours::{NeighbourLists, add_kernel_row, has_avx2, in_pool};
use super::params::LiquidParams;
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
#[allow(clippy::too_many_arguments)]
pub fn displacements(
    pos: &[Vec3A],
    phase: &[u32],
    lists: &NeighbourLists,
    params: &LiquidParams,
    press: &[[f32; 2]],
    dt: f32,
    built_here: bool,
    dx: &mut [Vec3A],
) {
    in_pool(|| {
        if built_here {
            displacements_with::<true>(pos, phase, lists, params, press, dt, dx);
        } else {
            displacements_with::<false>(pos, phase, lists, params, press, dt, dx);
        }
    })
}

fn displacements_with<const STORED: bool>(
    pos: &[Vec3A],
    phase: &[u32],
    lists: &NeighbourLists,
    params: &LiquidParams,
    press: &[[f32; 2]],
    dt: f32,
    dx: &mut [Vec3A],
) {
    let inv_h = 1.0 / params.h;
    let dt2 = dt * dt;
    let phases = &params.phases;
    // A pair term moves each of its particles by at most a tenth of a spacing (`mag w` with
    // `w = dt^2 / 2` for equal masses), unless it is wild (see [`cap_pair`]).
    let cap = [0.2 * params.spacing / dt2, 20.0 * params.h / dt2];
    dx.par_iter_mut().for_each(|d| *d = Vec3A::ZERO);
    if phases.len() == 1 {
        let avx2 = has_avx2();
        let w = 0.5 * dt2;
        lists.scatter(dx, |i, first, win| {
            let (js, ds) = lists.later_of(i);
            if avx2 {
                // SAFETY: the processor has AVX2 (checked by `has_avx2`).
                unsafe {
                    uniform_row_avx2::<STORED>(pos, press, js, ds, i, inv_h, w, cap, first, win)
                }
            } else {
                row::<STORED>(pos, press, js, ds, i, inv_h, cap, first, win, |_| [w, w]);
            }
        });
        return;
    }
    lists.scatter(dx, |i, first, win| {
        let mi = phases[phase[i] as usize].mass;
        let (js, ds) = lists.later_of(i);
        row::<STORED>(pos, press, js, ds, i, inv_h, cap, first, win, |j| {
            let mj = phases[phase[j as usize] as usize].mass;
            [dt2 * (mj / (mi + mj)), dt2 * (mi / (mi + mj))]
        });
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

/// The displacements of slot `i` and its later neighbours `js` (the window `win` from slot
/// `first`), lane by lane (entry `e` in lane `e % 8`): per pair with `a = 1 - d/h > 0` and
/// `d > 0`, the term `t = r ((P_i+P_j) a + (Pn_i+Pn_j) a^2) / d`; slot `j` moves by `t w_j`
/// in lane order, then slot `i` by minus the sum of `t w_i`, where `weight(j)` is
/// `[w_i, w_j]` (`dt^2` times the mass ratios). `STORED`: the distances are the lists' own
/// `ds` rather than computed from `pos`.
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
    weight: impl Fn(u32) -> [f32; 2],
) {
    let xi = pos[i];
    let [pi, ni] = press[i];
    let mut terms = lanes::PairTerms::default();
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
        }
        terms.scatter(js, first, win);
    }
    terms.finish(i, first, win);
}

/// [`row`] for one phase (`w_i = w_j = w`), 8 pairs at a time in AVX2 registers (the same
/// operations).
#[allow(clippy::too_many_arguments)]
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn uniform_row_avx2<const STORED: bool>(
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
    let mut acc = (zero, zero, zero);
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
    }
    // SAFETY: as above.
    win[i - first] -= unsafe { lanes::avx2::reduce3(acc) };
}

/// [`row`] where there is no AVX2 build.
#[allow(clippy::too_many_arguments)]
#[cfg(not(target_arch = "x86_64"))]
unsafe fn uniform_row_avx2<const STORED: bool>(
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
) {
    row::<STORED>(pos, press, js, ds, i, inv_h, cap, first, win, |_| [w, w])
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
    /// Per slot, the walls' weighted pressure, weight and the liquid's moment (a scatter over
    /// the neighbour lists; `boundary::add_wall_push`).
    pub pairs: Vec<[f32; 3]>,
    /// Per slot, the kernel sums of a later pass in double precision (a scatter over the
    /// neighbour lists).
    pub kernel: Vec<[f64; 2]>,
}

impl RelaxationBuffers {
    /// Size every array for `n` particles.
    pub fn resize(&mut self, n: usize) {
        self.rho_near.resize(n, 0.0);
        self.press.resize(n, [0.0; 2]);
        self.dx.resize(n, Vec3A::ZERO);
        self.body.resize(n, 0.0);
        self.pairs.resize(n, [0.0; 3]);
        self.kernel.resize(n, [0.0; 2]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::liquid::grid::Grid;
    use crate::liquid::params::Phase;
    use crate::liquid::particles::Particles;

    #[test]
    fn a_pair_term_above_the_cap_is_capped_unless_it_is_wild() {
        let cap = [2.0, 40.0];
        assert_eq!(cap_pair(1.5, cap), 1.5);
        assert_eq!(cap_pair(2.0, cap), 2.0);
        assert_eq!(cap_pair(3.0, cap), 2.0);
        assert_eq!(cap_pair(40.0, cap), 2.0);
        assert_eq!(cap_pair(41.0, cap), 41.0);
        assert_eq!(cap_pair(-5.0, cap), -5.0);
    }

    #[test]
    fn lane_path_gives_the_scalar_path_bit_for_bit() {
        let mut rng = crate::rng::XorShift::new(0x2a17);
        let mut next = move || rng.unit() as f32 - 0.5;
        let s = 0.01f32;
        let mut p = Particles::default();
        for k in 0..343 {
            let lattice = Vec3A::new((k % 7) as f32, (k / 7 % 7) as f32, (k / 49) as f32) * s;
            p.push(
                lattice + Vec3A::new(next(), next(), next()) * (0.4 * s),
                Vec3A::ZERO,
                0,
            );
        }
        let h = 2.0 * s;
        let mut grid = Grid::new(h);
        grid.build(&mut p).unwrap();
        let mut lists = NeighbourLists::default();
        lists.build(&p.pos, &grid, h);
        let n = p.len();
        let press: Vec<[f32; 2]> = (0..n).map(|_| [1.0 + next(), 0.5 + next()]).collect();
        let params = LiquidParams {
            spacing: s,
            h,
            rho0: 6.0,
            gravity: Vec3A::ZERO,
            walls: None,
            wall_push: false,
            passes: 1,
            phases: vec![Phase {
                mass: 1e-3,
                rest_density: 1000.0,
                k_eff: 1.0,
                k_near_eff: 1.0,
                cohesion: false,
                sigma: 0.0,
                beta: 0.0,
            }],
        };
        let dt = 0.002;
        for stored in [true, false] {
            let mut dx = vec![Vec3A::ZERO; n];
            displacements(
                &p.pos, &p.phase, &lists, &params, &press, dt, stored, &mut dx,
            );
            let w = 0.5 * dt * dt;
            let cap = [
                0.2 * params.spacing / (dt * dt),
                20.0 * params.h / (dt * dt),
            ];
            let mut want = vec![Vec3A::ZERO; n];
            lists.scatter(&mut want, |i, first, win| {
                let (js, ds) = lists.later_of(i);
                if stored {
                    row::<true>(&p.pos, &press, js, ds, i, 1.0 / h, cap, first, win, |_| {
                        [w, w]
                    });
                } else {
                    row::<false>(&p.pos, &press, js, ds, i, 1.0 / h, cap, first, win, |_| {
                        [w, w]
                    });
                }
            });
            let mut moved = 0;
            for (i, (d, want)) in dx.iter().zip(&want).enumerate() {
                for a in 0..3 {
                    assert_eq!(
                        d[a].to_bits(),
                        want[a].to_bits(),
                        "slot {i} (stored: {stored})"
                    );
                }
                moved += (d.length() > 1e-9) as usize;
            }
            assert!(moved > n / 2, "only {moved} of {n} slots moved");
        }
    }

    /// Every pair once, scattered to both slots, gives each slot's gathered sum over all its
    /// neighbours (in double precision), with two phases of different masses.
    #[test]
    fn scattered_pairs_give_the_gathered_displacements() {
        let mut rng = crate::rng::XorShift::new(0x77);
        let mut next = move || rng.unit() as f32 - 0.5;
        let s = 0.01f32;
        let mut p = Particles::default();
        for k in 0..1000u32 {
            let lattice = Vec3A::new((k % 10) as f32, (k / 10 % 10) as f32, (k / 100) as f32) * s;
            let x = lattice + Vec3A::new(next(), next(), next()) * (0.4 * s);
            p.push(x, Vec3A::ZERO, k % 3 / 2);
        }
        let h = 2.0 * s;
        let mut grid = Grid::new(h);
        grid.build(&mut p).unwrap();
        let mut lists = NeighbourLists::default();
        lists.build(&p.pos, &grid, h);
        let n = p.len();
        let press: Vec<[f32; 2]> = (0..n).map(|_| [1.0 + next(), 0.5 + next()]).collect();
        let phase = |mass: f32| Phase {
            mass,
            rest_density: 1000.0,
            k_eff: 1.0,
            k_near_eff: 1.0,
            cohesion: false,
            sigma: 0.0,
            beta: 0.0,
        };
        let params = LiquidParams {
            spacing: s,
            h,
            rho0: 6.0,
            gravity: Vec3A::ZERO,
            walls: None,
            wall_push: false,
            passes: 1,
            phases: vec![phase(1e-3), phase(3e-3)],
        };
        let dt = 0.002;
        // Move the particles off the lists' positions, as a second pass sees them.
        let moved: Vec<Vec3A> = p
            .pos
            .iter()
            .map(|&x| x + Vec3A::new(next(), next(), next()) * (0.05 * s))
            .collect();
        for (pos, stored) in [(&p.pos, true), (&moved, false)] {
            let mut dx = vec![Vec3A::ZERO; n];
            displacements(pos, &p.phase, &lists, &params, &press, dt, stored, &mut dx);
            // Every slot's whole neighbour list, from the half lists.
            let mut all = vec![Vec::new(); n];
            for i in 0..n {
                for &j in lists.later_of(i).0 {
                    all[i].push(j);
                    all[j as usize].push(i as u32);
                }
            }
            let (mut worst, mut biggest) = (0.0f64, 0.0f64);
            for i in 0..n {
                let mi = params.phases[p.phase[i] as usize].mass as f64;
                let mut want = [0.0f64; 3];
                for &j in &all[i] {
                    let j = j as usize;
                    let mj = params.phases[p.phase[j] as usize].mass as f64;
                    let r = (pos[j] - pos[i]).as_dvec3();
                    let d = r.length();
                    let a = 1.0 - d / h as f64;
                    if a <= 0.0 {
                        continue;
                    }
                    let pp = (press[i][0] + press[j][0]) as f64;
                    let pn = (press[i][1] + press[j][1]) as f64;
                    let f = (pp * a + pn * a * a) * mj / (mi + mj) / d * (dt * dt) as f64;
                    for c in 0..3 {
                        want[c] -= r[c] * f;
                    }
                }
                for c in 0..3 {
                    worst = worst.max((dx[i][c] as f64 - want[c]).abs());
                    biggest = biggest.max(want[c].abs());
                }
            }
            assert!(biggest > 1e-7, "displacements too small to test: {biggest}");
            assert!(
                worst <= 1e-5 * biggest,
                "{worst} off (largest {biggest}, stored: {stored})"
            );
        }
    }
}
