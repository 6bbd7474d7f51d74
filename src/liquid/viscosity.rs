//! Viscosity impulses between liquid neighbours (Clavet et al. 2005, section 5.3), gathered per
//! particle (Jacobi) so that every pair's impulse is equal and opposite.
use super::neighbours::{NeighbourLists, has_avx2};
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
    if phases.len() == 1 {
        viscosity_dv_with::<true>(p, lists, phases, h, dt, dv);
    } else {
        viscosity_dv_with::<false>(p, lists, phases, h, dt, dv);
    }
}

/// [`viscosity_dv`] for one phase (`UNIFORM`) or several.
///
/// One phase takes the lane-wise path ([`uniform_row`]): the same operations on each pair,
/// [`LANES`] pairs at a time, summed in list order (the same numbers).
fn viscosity_dv_with<const UNIFORM: bool>(
    p: &Particles,
    lists: &NeighbourLists,
    phases: &[Phase],
    h: f32,
    dt: f32,
    dv: &mut [Vec3A],
) {
    if UNIFORM {
        let ph = phases[0];
        let c = PairConstants {
            h,
            dt,
            sigma: 0.5 * (ph.sigma + ph.sigma),
            beta: 0.5 * (ph.beta + ph.beta),
            w: ph.mass / (ph.mass + ph.mass),
        };
        let avx2 = has_avx2();
        dv.par_iter_mut().enumerate().for_each(|(i, out)| {
            *out = if avx2 {
                // SAFETY: the processor has AVX2 (checked by `has_avx2`).
                unsafe { uniform_row_avx2(p, lists.of(i), i, &c) }
            } else {
                uniform_row(p, lists.of(i), i, &c)
            };
        });
        return;
    }
    dv.par_iter_mut().enumerate().for_each(|(i, out)| {
        let pi = phases[p.phase[i] as usize];
        let (xi, vi) = (p.pos[i], p.vel[i]);
        let mut acc = Vec3A::ZERO;
        for &j in lists.of(i) {
            let j = j as usize;
            let r = p.pos[j] - xi;
            let d = r.length();
            let q = d / h;
            if q >= 1.0 || d <= 0.0 {
                continue;
            }
            let rhat = r / d;
            let u = (vi - p.vel[j]).dot(rhat);
            if u > 0.0 {
                let pj = phases[p.phase[j] as usize];
                let sigma = 0.5 * (pi.sigma + pj.sigma);
                let beta = 0.5 * (pi.beta + pj.beta);
                let w = pj.mass / (pi.mass + pj.mass);
                acc -= rhat * (dt * (1.0 - q) * (sigma * u + beta * u * u) * w);
            }
        }
        *out = acc;
    });
}

/// Pairs of one list computed together.
const LANES: usize = 8;

/// The constants of every pair of one phase.
struct PairConstants {
    h: f32,
    dt: f32,
    sigma: f32,
    beta: f32,
    w: f32,
}

/// [`uniform_row`] compiled for AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn uniform_row_avx2(p: &Particles, js: &[u32], i: usize, c: &PairConstants) -> Vec3A {
    uniform_row(p, js, i, c)
}

/// [`uniform_row`] where there is no AVX2 build.
#[cfg(not(target_arch = "x86_64"))]
unsafe fn uniform_row_avx2(p: &Particles, js: &[u32], i: usize, c: &PairConstants) -> Vec3A {
    uniform_row(p, js, i, c)
}

/// The velocity change of slot `i` from its neighbours `js` (one phase): each pair's impulse
/// rounded exactly as the scalar form (`Vec3A::length` is `sqrt((x x + y y) + z z)`, `dot` is
/// `(x x' + y y') + z z'`, no fused multiply-add), subtracted in list order.
#[inline(always)]
fn uniform_row(p: &Particles, js: &[u32], i: usize, c: &PairConstants) -> Vec3A {
    let (xi, vi) = (p.pos[i], p.vel[i]);
    let mut acc = Vec3A::ZERO;
    for js in js.chunks(LANES) {
        // Unused lanes hold r = 0, which the test d > 0 drops.
        let (mut r, mut u) = ([[0.0f32; LANES]; 3], [[0.0f32; LANES]; 3]);
        for (k, &j) in js.iter().enumerate() {
            let rj = p.pos[j as usize] - xi;
            let uj = vi - p.vel[j as usize];
            (r[0][k], r[1][k], r[2][k]) = (rj.x, rj.y, rj.z);
            (u[0][k], u[1][k], u[2][k]) = (uj.x, uj.y, uj.z);
        }
        let mut out = [[0.0f32; LANES]; 3];
        for k in 0..LANES {
            let (rx, ry, rz) = (r[0][k], r[1][k], r[2][k]);
            let d = (rx * rx + ry * ry + rz * rz).sqrt();
            let q = d / c.h;
            let (hx, hy, hz) = (rx / d, ry / d, rz / d);
            let uu = u[0][k] * hx + u[1][k] * hy + u[2][k] * hz;
            let s = c.dt * (1.0 - q) * (c.sigma * uu + c.beta * uu * uu) * c.w;
            let skip = (q >= 1.0) | (d <= 0.0);
            let keep = !skip & (uu > 0.0);
            // A dropped pair adds +0, which leaves every sum as it is.
            out[0][k] = if keep { hx * s } else { 0.0 };
            out[1][k] = if keep { hy * s } else { 0.0 };
            out[2][k] = if keep { hz * s } else { 0.0 };
        }
        let [ox, oy, oz] = &out;
        for ((&x, &y), &z) in ox.iter().zip(oy).zip(oz).take(js.len()) {
            acc -= Vec3A::new(x, y, z);
        }
    }
    acc
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
        let mut p = Particles::default();
        for k in 0..101 {
            let lattice = Vec3A::new((k % 5) as f32, (k / 5 % 5) as f32, (k / 25) as f32) * s;
            let jitter = Vec3A::new(next(), next(), next()) * (0.4 * s);
            p.push(lattice + jitter, Vec3A::new(next(), next(), next()), 0);
        }
        let params = LiquidParams {
            spacing: s,
            h: 2.0 * s,
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
}
