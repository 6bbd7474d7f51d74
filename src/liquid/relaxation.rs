//! Double-density relaxation (Clavet et al. 2005, section 4) in the gather (Jacobi) form:
//! each particle sums its own displacement from symmetric pair terms.
use super::lanes::{self, LANES, LaneSums};
use super::neighbours::{NeighbourLists, has_avx2};
use super::params::LiquidParams;
use glam::Vec3A;
use rayon::prelude::*;

/// Kernel sums `rho = sum (1-q)^2` and `rho_near = sum (1-q)^3` of every slot over its
/// neighbours closer than `h`, entry `e` of a row in lane `e % 8` ([`LaneSums`]).
pub fn densities(
    pos: &[Vec3A],
    lists: &NeighbourLists,
    h: f32,
    rho: &mut [f32],
    rho_near: &mut [f32],
) {
    let inv_h = 1.0 / h;
    rho.par_iter_mut()
        .zip(rho_near.par_iter_mut())
        .enumerate()
        .for_each(|(i, (r_out, n_out))| {
            let xi = pos[i];
            let mut sums = LaneSums::default();
            for (e, &j) in lists.of(i).iter().enumerate() {
                sums.add(e % LANES, 1.0 - (pos[j as usize] - xi).length() * inv_h);
            }
            [*r_out, *n_out] = sums.total();
        });
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
    if built_here {
        displacements_with::<true>(pos, phase, lists, params, press, dt, dx);
    } else {
        displacements_with::<false>(pos, phase, lists, params, press, dt, dx);
    }
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
    if phases.len() == 1 {
        let avx2 = has_avx2();
        dx.par_iter_mut().enumerate().for_each(|(i, out)| {
            let (js, ds) = (lists.of(i), lists.dist_of(i));
            let acc = if avx2 {
                // SAFETY: the processor has AVX2 (checked by `has_avx2`).
                unsafe { uniform_row_avx2::<STORED>(pos, press, js, ds, i, inv_h) }
            } else {
                row::<STORED>(pos, press, js, ds, i, inv_h, |_| 0.5)
            };
            *out = acc * dt2;
        });
        return;
    }
    dx.par_iter_mut().enumerate().for_each(|(i, out)| {
        let mi = phases[phase[i] as usize].mass;
        let (js, ds) = (lists.of(i), lists.dist_of(i));
        let acc = row::<STORED>(pos, press, js, ds, i, inv_h, |j| {
            let mj = phases[phase[j as usize] as usize].mass;
            mj / (mi + mj)
        });
        *out = acc * dt2;
    });
}

/// The displacement of slot `i` over `dt^2` from its neighbours `js`, lane by lane (entry `e`
/// in lane `e % 8`): per pair with `a = 1 - d/h > 0` and `d > 0`, the term
/// `r ((P_i+P_j) a + (Pn_i+Pn_j) a^2) w / d`; the negated sum of the terms. `STORED`: the
/// distances are the lists' own `ds` rather than computed from `pos`.
#[inline(always)]
fn row<const STORED: bool>(
    pos: &[Vec3A],
    press: &[[f32; 2]],
    js: &[u32],
    ds: &[f32],
    i: usize,
    inv_h: f32,
    weight: impl Fn(u32) -> f32,
) -> Vec3A {
    let xi = pos[i];
    let [pi, ni] = press[i];
    let mut acc = [[0.0f32; LANES]; 3];
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
            let mag = (pi + pj[k]) * a + (ni + nj[k]) * a * a;
            let s = mag * weight(idx[k]) / d;
            let keep = (a > 0.0) & (d > 0.0);
            acc[0][k] += if keep { rx * s } else { 0.0 };
            acc[1][k] += if keep { ry * s } else { 0.0 };
            acc[2][k] += if keep { rz * s } else { 0.0 };
        }
    }
    -Vec3A::new(
        lanes::reduce(acc[0]),
        lanes::reduce(acc[1]),
        lanes::reduce(acc[2]),
    )
}

/// [`row`] for one phase (`w = 1/2`), 8 pairs at a time in AVX2 registers (the same
/// operations).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn uniform_row_avx2<const STORED: bool>(
    pos: &[Vec3A],
    press: &[[f32; 2]],
    js: &[u32],
    ds: &[f32],
    i: usize,
    inv_h: f32,
) -> Vec3A {
    use std::arch::x86_64::*;
    let xi = pos[i];
    let [pi, ni] = press[i];
    let (bx, by, bz) = (
        _mm256_set1_ps(xi.x),
        _mm256_set1_ps(xi.y),
        _mm256_set1_ps(xi.z),
    );
    let (bp, bn) = (_mm256_set1_ps(pi), _mm256_set1_ps(ni));
    let (vinv_h, w) = (_mm256_set1_ps(inv_h), _mm256_set1_ps(0.5));
    let (one, zero) = (_mm256_set1_ps(1.0), _mm256_setzero_ps());
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
        let s = _mm256_div_ps(_mm256_mul_ps(mag, w), d);
        let keep = _mm256_and_ps(
            _mm256_cmp_ps::<_CMP_GT_OQ>(a, zero),
            _mm256_cmp_ps::<_CMP_GT_OQ>(d, zero),
        );
        // SAFETY: the processor has AVX2 (this function's promise).
        unsafe { lanes::avx2::add_masked(&mut acc, (rx, ry, rz), s, keep) };
    }
    // SAFETY: as above.
    unsafe { -lanes::avx2::reduce3(acc) }
}

/// [`row`] where there is no AVX2 build.
#[cfg(not(target_arch = "x86_64"))]
unsafe fn uniform_row_avx2<const STORED: bool>(
    pos: &[Vec3A],
    press: &[[f32; 2]],
    js: &[u32],
    ds: &[f32],
    i: usize,
    inv_h: f32,
) -> Vec3A {
    row::<STORED>(pos, press, js, ds, i, inv_h, |_| 0.5)
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
}

impl RelaxationBuffers {
    /// Size every array for `n` particles.
    pub fn resize(&mut self, n: usize) {
        self.rho_near.resize(n, 0.0);
        self.press.resize(n, [0.0; 2]);
        self.dx.resize(n, Vec3A::ZERO);
        self.body.resize(n, 0.0);
    }
}

/// Apply the displacements computed by [`displacements`].
pub fn apply_displacements(pos: &mut [Vec3A], dx: &[Vec3A]) {
    pos.par_iter_mut()
        .zip(dx.par_iter())
        .for_each(|(x, d)| *x += *d);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::liquid::grid::Grid;
    use crate::liquid::params::Phase;
    use crate::liquid::particles::Particles;

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
            let mut moved = 0;
            for (i, d) in dx.iter().enumerate() {
                let (js, ds) = (lists.of(i), lists.dist_of(i));
                let want = if stored {
                    row::<true>(&p.pos, &press, js, ds, i, 1.0 / h, |_| 0.5)
                } else {
                    row::<false>(&p.pos, &press, js, ds, i, 1.0 / h, |_| 0.5)
                } * (dt * dt);
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
}
