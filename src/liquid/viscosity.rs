//! Viscosity impulses between liquid neighbours (Clavet et al. 2005, section 5.3): each pair's
//! impulse computed once, from its lower slot, and added to both particles (equal and
//! opposite) through [`NeighbourLists::scatter`].
use super::lanes::has_avx2;
use super::lanes::{self, LANES};
use super::neighbours::{NeighbourLists, in_pool};
use super::params::{LiquidParams, Phase};
use super::particles::Particles;
use glam::Vec3A;
use rayon::prelude::*;

/// The velocity change of every slot from the viscosity impulses of one step.
///
/// For each pair approaching along `r_hat` (from i to j) with `u = (v_i - v_j).r_hat > 0`:
/// `I = dt (1-q) (sigma u + beta u^2) r_hat`, `v_i -= I m_j/(m_i+m_j)`, `v_j += I m_i/(m_i+m_j)`.
pub fn viscosity_dv(
    p: &Particles,
    lists: &NeighbourLists,
    params: &LiquidParams,
    dt: f32,
    dv: &mut [Vec3A],
) {
    let h = params.h;
    let phases = &params.phases;
    in_pool(|| {
        if phases.len() == 1 {
            viscosity_dv_with::<true>(p, lists, phases, h, dt, dv);
        } else {
            viscosity_dv_with::<false>(p, lists, phases, h, dt, dv);
        }
    })
}

/// [`viscosity_dv`] for one phase (`UNIFORM`) or several.
///
/// Both paths compute the same operations on each pair, entry `e` of a slot's later
/// neighbours in lane `e % 8`, add the lanes of its own change up in the fixed order of
/// [`lanes::reduce`] and the neighbours' changes one by one in lane order (the same numbers);
/// one phase takes the AVX2 build where the processor has it.
fn viscosity_dv_with<const UNIFORM: bool>(
    p: &Particles,
    lists: &NeighbourLists,
    phases: &[Phase],
    h: f32,
    dt: f32,
    dv: &mut [Vec3A],
) {
    let inv_h = 1.0 / h;
    dv.par_iter_mut().for_each(|d| *d = Vec3A::ZERO);
    if UNIFORM {
        let ph = phases[0];
        let c = PairConstants {
            inv_h,
            sigma: 0.5 * (ph.sigma + ph.sigma),
            beta: 0.5 * (ph.beta + ph.beta),
            dt,
            wi: ph.mass / (ph.mass + ph.mass),
            wj: ph.mass / (ph.mass + ph.mass),
        };
        let avx2 = has_avx2();
        lists.scatter(dv, |i, first, w| {
            let js = lists.later_of(i).0;
            if avx2 {
                // SAFETY: the processor has AVX2 (checked by `has_avx2`).
                unsafe { uniform_row_avx2(&p.pos, &p.vel, js, i, &c, first, w) }
            } else {
                row(&p.pos, &p.vel, js, i, first, w, |_| c)
            }
        });
        return;
    }
    lists.scatter(dv, |i, first, w| {
        let pi = phases[p.phase[i] as usize];
        row(&p.pos, &p.vel, lists.later_of(i).0, i, first, w, |j| {
            let pj = phases[p.phase[j as usize] as usize];
            PairConstants {
                inv_h,
                sigma: 0.5 * (pi.sigma + pj.sigma),
                beta: 0.5 * (pi.beta + pj.beta),
                dt,
                wi: pj.mass / (pi.mass + pj.mass),
                wj: pi.mass / (pi.mass + pj.mass),
            }
        });
    });
}

/// The constants of one pair.
#[derive(Debug, Clone, Copy)]
struct PairConstants {
    inv_h: f32,
    sigma: f32,
    beta: f32,
    dt: f32,
    /// The lower slot's share of the impulse, `m_j/(m_i+m_j)`.
    wi: f32,
    /// The later slot's share, `m_i/(m_i+m_j)`.
    wj: f32,
}

/// The velocity changes of slot `i` and its later neighbours `js` (the window `w` from slot
/// `first`), lane by lane: per pair `r = x_j - x_i`, `d = |r|`, `u = ((v_i - v_j).r) / d`,
/// and where `d < h`, `d > 0`, `u > 0`, the term `t = r (dt (1-q) (sigma u + beta u^2) / d)`
/// (one division per pair); `v_j` gains `t w_j` in lane order, then `v_i` loses the sum of
/// `t w_i`.
#[inline(always)]
fn row(
    pos: &[Vec3A],
    vel: &[Vec3A],
    js: &[u32],
    i: usize,
    first: usize,
    w: &mut [Vec3A],
    pair: impl Fn(u32) -> PairConstants,
) {
    let (xi, vi) = (pos[i], vel[i]);
    let mut terms = lanes::PairTerms::default();
    for js in js.chunks(LANES) {
        let idx = lanes::chunk(js, i as u32);
        let [px, py, pz] = lanes::load_xyz(pos, &idx);
        let [wx, wy, wz] = lanes::load_xyz(vel, &idx);
        for k in 0..LANES {
            let c = pair(idx[k]);
            let (rx, ry, rz) = (px[k] - xi.x, py[k] - xi.y, pz[k] - xi.z);
            let (ux, uy, uz) = (vi.x - wx[k], vi.y - wy[k], vi.z - wz[k]);
            let d = (rx * rx + ry * ry + rz * rz).sqrt();
            let inv = 1.0 / d;
            let q = d * c.inv_h;
            let uu = (ux * rx + uy * ry + uz * rz) * inv;
            let s = c.dt * (1.0 - q) * (c.sigma * uu + c.beta * uu * uu) * inv;
            let keep = (q < 1.0) & (d > 0.0) & (uu > 0.0);
            // A dropped pair adds +0, which leaves every sum as it is.
            let (si, sj) = if keep {
                (s * c.wi, s * c.wj)
            } else {
                (0.0, 0.0)
            };
            terms.add(k, [rx, ry, rz], si, sj);
        }
        terms.scatter(js, first, w);
    }
    terms.finish(i, first, w);
}

/// [`row`] for one phase (`w_i = w_j`), 8 pairs at a time in AVX2 registers (the same
/// operations).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn uniform_row_avx2(
    pos: &[Vec3A],
    vel: &[Vec3A],
    js: &[u32],
    i: usize,
    c: &PairConstants,
    first: usize,
    w: &mut [Vec3A],
) {
    use std::arch::x86_64::*;
    let (xi, vi) = (pos[i], vel[i]);
    let (bx, by, bz) = (
        _mm256_set1_ps(xi.x),
        _mm256_set1_ps(xi.y),
        _mm256_set1_ps(xi.z),
    );
    let (bvx, bvy, bvz) = (
        _mm256_set1_ps(vi.x),
        _mm256_set1_ps(vi.y),
        _mm256_set1_ps(vi.z),
    );
    let (inv_h, sigma, beta, dt, wi) = (
        _mm256_set1_ps(c.inv_h),
        _mm256_set1_ps(c.sigma),
        _mm256_set1_ps(c.beta),
        _mm256_set1_ps(c.dt),
        _mm256_set1_ps(c.wi),
    );
    let (one, zero) = (_mm256_set1_ps(1.0), _mm256_setzero_ps());
    let mut acc = (zero, zero, zero);
    for js in js.chunks(LANES) {
        let idx = lanes::chunk(js, i as u32);
        // SAFETY: the processor has AVX2 (this function's requirement).
        let ((px, py, pz), (wx, wy, wz)) = unsafe {
            (
                lanes::avx2::load_xyz(pos, &idx),
                lanes::avx2::load_xyz(vel, &idx),
            )
        };
        let (rx, ry, rz) = (
            _mm256_sub_ps(px, bx),
            _mm256_sub_ps(py, by),
            _mm256_sub_ps(pz, bz),
        );
        let (ux, uy, uz) = (
            _mm256_sub_ps(bvx, wx),
            _mm256_sub_ps(bvy, wy),
            _mm256_sub_ps(bvz, wz),
        );
        let r2 = _mm256_add_ps(
            _mm256_add_ps(_mm256_mul_ps(rx, rx), _mm256_mul_ps(ry, ry)),
            _mm256_mul_ps(rz, rz),
        );
        let d = _mm256_sqrt_ps(r2);
        let inv = _mm256_div_ps(one, d);
        let q = _mm256_mul_ps(d, inv_h);
        let ur = _mm256_add_ps(
            _mm256_add_ps(_mm256_mul_ps(ux, rx), _mm256_mul_ps(uy, ry)),
            _mm256_mul_ps(uz, rz),
        );
        let uu = _mm256_mul_ps(ur, inv);
        let law = _mm256_add_ps(
            _mm256_mul_ps(sigma, uu),
            _mm256_mul_ps(_mm256_mul_ps(beta, uu), uu),
        );
        let s = _mm256_mul_ps(
            _mm256_mul_ps(_mm256_mul_ps(dt, _mm256_sub_ps(one, q)), law),
            inv,
        );
        let keep = _mm256_and_ps(
            _mm256_and_ps(
                _mm256_cmp_ps::<_CMP_LT_OQ>(q, one),
                _mm256_cmp_ps::<_CMP_GT_OQ>(d, zero),
            ),
            _mm256_cmp_ps::<_CMP_GT_OQ>(uu, zero),
        );
        let s = _mm256_and_ps(keep, _mm256_mul_ps(s, wi));
        // SAFETY: the processor has AVX2 (this function's promise).
        unsafe { lanes::avx2::scatter_add(&mut acc, (rx, ry, rz), s, js, first, w) };
    }
    // SAFETY: as above.
    w[i - first] -= unsafe { lanes::avx2::reduce3(acc) };
}

/// [`row`] where there is no AVX2 build.
#[cfg(not(target_arch = "x86_64"))]
unsafe fn uniform_row_avx2(
    pos: &[Vec3A],
    vel: &[Vec3A],
    js: &[u32],
    i: usize,
    c: &PairConstants,
    first: usize,
    w: &mut [Vec3A],
) {
    row(pos, vel, js, i, first, w, |_| *c)
}

/// Whether any phase has viscosity at all.
pub fn any_viscosity(params: &LiquidParams) -> bool {
    params
        .phases
        .iter()
        .any(|ph| ph.sigma != 0.0 || ph.beta != 0.0)
}

/// Apply one step of viscosity impulses to the velocities.
pub fn apply_viscosity(
    p: &mut Particles,
    lists: &NeighbourLists,
    params: &LiquidParams,
    dt: f32,
    scratch: &mut Vec<Vec3A>,
) {
    if !any_viscosity(params) {
        return;
    }
    scratch.resize(p.len(), Vec3A::ZERO);
    viscosity_dv(p, lists, params, dt, scratch);
    p.vel
        .par_iter_mut()
        .zip(scratch.par_iter())
        .for_each(|(v, d)| *v += *d);
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A jittered lattice with random velocities (101 particles, not a multiple of
    /// [`LANES`]), its lists, and the scene parameters of one phase with viscosity.
    fn cloud() -> (Particles, NeighbourLists, LiquidParams) {
        use crate::liquid::grid::Grid;
        let mut rng = crate::rng::XorShift::new(0x51ed);
        let mut next = move || rng.unit() as f32 - 0.5;
        let s = 0.01f32;
        let mut p = Particles::jittered_lattice(101, 5, s, &mut next);
        for v in &mut p.vel {
            *v = Vec3A::new(next(), next(), next());
        }
        let params = LiquidParams {
            spacing: s,
            h: 2.0 * s,
            rho0: 6.0,
            gravity: Vec3A::ZERO,
            boundary: crate::boundary::BoundaryParams::default(),
            relaxation_passes: 1,
            phases: vec![Phase {
                mass: 1e-3,
                rest_density: 1000.0,
                k_eff: 1.0,
                k_near_eff: 1.0,
                cohesion: false,
                sigma: 0.7,
                beta: 0.3,
            }],
        };
        let mut grid = Grid::new(params.h);
        grid.build(&mut p).unwrap();
        let mut lists = NeighbourLists::default();
        lists.build(&p.pos, &grid, params.h);
        // Move the particles off the positions the lists were built from, as a step does.
        for x in p.pos.iter_mut() {
            *x += Vec3A::new(next(), next(), next()) * (0.2 * s);
        }
        (p, lists, params)
    }

    #[test]
    fn lane_path_gives_the_scalar_path_bit_for_bit() {
        let (p, lists, params) = cloud();
        let n = p.len();
        let (mut lanes, mut scalar) = (vec![Vec3A::ZERO; n], vec![Vec3A::ZERO; n]);
        let dt = 0.002;
        viscosity_dv_with::<true>(&p, &lists, &params.phases, params.h, dt, &mut lanes);
        viscosity_dv_with::<false>(&p, &lists, &params.phases, params.h, dt, &mut scalar);
        let mut moved = 0;
        for i in 0..n {
            for a in 0..3 {
                assert_eq!(lanes[i][a].to_bits(), scalar[i][a].to_bits(), "slot {i}");
            }
            moved += (scalar[i].length() > 1e-6) as usize;
        }
        assert!(moved > n / 2, "only {moved} of {n} slots felt viscosity");
    }

    /// Every pair once, scattered to both slots, gives each slot's gathered impulse sum over
    /// all its neighbours (in double precision), with two phases of different masses.
    #[test]
    fn scattered_pairs_give_the_gathered_velocity_changes() {
        let (mut p, lists, mut params) = cloud();
        let mut heavy = params.phases[0];
        (heavy.mass, heavy.sigma, heavy.beta) = (3e-3, 0.2, 0.9);
        params.phases.push(heavy);
        for (k, ph) in p.phase.iter_mut().enumerate() {
            *ph = (k % 3 == 1) as u32;
        }
        let n = p.len();
        let dt = 0.002;
        let mut dv = vec![Vec3A::ZERO; n];
        viscosity_dv(&p, &lists, &params, dt, &mut dv);
        let all = lists.whole();
        let (mut worst, mut biggest) = (0.0f64, 0.0f64);
        for (i, got) in dv.iter().enumerate() {
            let pi = params.phases[p.phase[i] as usize];
            let mut want = glam::DVec3::ZERO;
            for &j in &all[i] {
                let j = j as usize;
                let pj = params.phases[p.phase[j] as usize];
                let r = (p.pos[j] - p.pos[i]).as_dvec3();
                let d = r.length();
                let q = d / params.h as f64;
                let u = (p.vel[i] - p.vel[j]).as_dvec3().dot(r) / d;
                if q >= 1.0 || u <= 0.0 {
                    continue;
                }
                let sigma = 0.5 * (pi.sigma + pj.sigma) as f64;
                let beta = 0.5 * (pi.beta + pj.beta) as f64;
                let w = (pj.mass / (pi.mass + pj.mass)) as f64;
                want -= r / d * (dt as f64 * (1.0 - q) * (sigma * u + beta * u * u) * w);
            }
            worst = worst.max((got.as_dvec3() - want).abs().max_element());
            biggest = biggest.max(want.abs().max_element());
        }
        assert!(biggest > 1e-4, "impulses too small to test: {biggest}");
        assert!(worst <= 1e-5 * biggest, "{worst} off (largest {biggest})");
    }
}
