//! Double-density relaxation (Clavet et al. 2005, section 4) in the gather (Jacobi) form:
//! each particle sums its own displacement from symmetric pair terms.
use super::neighbours::{NeighbourLists, has_avx2};
use super::params::LiquidParams;
use glam::Vec3A;
use rayon::prelude::*;

/// Kernel sums `rho = sum (1-q)^2` and `rho_near = sum (1-q)^3` of every slot over its
/// neighbours closer than `h`.
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
            let (mut r, mut n) = (0.0f32, 0.0f32);
            for &j in lists.of(i) {
                let a = 1.0 - (pos[j as usize] - xi).length() * inv_h;
                if a > 0.0 {
                    let a2 = a * a;
                    r += a2;
                    n += a2 * a;
                }
            }
            *r_out = r;
            *n_out = n;
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
    let at = Slots {
        pos,
        phase,
        press,
        params,
    };
    let dt2 = dt * dt;
    let avx2 = has_avx2();
    dx.par_iter_mut().enumerate().for_each(|(i, out)| {
        let (js, ds) = (lists.of(i), lists.dist_of(i));
        let acc = if avx2 {
            // SAFETY: the processor has AVX2 (checked by `has_avx2`).
            unsafe { displacement_row_avx2::<STORED>(&at, i, js, ds) }
        } else {
            displacement_row::<STORED>(&at, i, js, ds)
        };
        *out = acc * dt2;
    });
}

/// Pairs of one list computed together.
const LANES: usize = 8;

/// What a displacement row reads of every slot.
struct Slots<'a> {
    pos: &'a [Vec3A],
    phase: &'a [u32],
    press: &'a [[f32; 2]],
    params: &'a LiquidParams,
}

/// [`displacement_row`] compiled for AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn displacement_row_avx2<const STORED: bool>(
    at: &Slots<'_>,
    i: usize,
    js: &[u32],
    ds: &[f32],
) -> Vec3A {
    displacement_row::<STORED>(at, i, js, ds)
}

/// [`displacement_row`] where there is no AVX2 build.
#[cfg(not(target_arch = "x86_64"))]
unsafe fn displacement_row_avx2<const STORED: bool>(
    at: &Slots<'_>,
    i: usize,
    js: &[u32],
    ds: &[f32],
) -> Vec3A {
    displacement_row::<STORED>(at, i, js, ds)
}

/// `sum_j m_j/(m_i+m_j) [(P_i+P_j)(1-q) + (Pn_i+Pn_j)(1-q)^2] r_ij / |r_ij|` over the
/// neighbours `js` of slot `i` (their stored distances `ds` when `STORED`), the pairs
/// computed [`LANES`] at a time with the scalar form's rounding (`Vec3A::length` is
/// `sqrt((x x + y y) + z z)`, no fused multiply-add) and summed in list order.
#[inline(always)]
fn displacement_row<const STORED: bool>(at: &Slots<'_>, i: usize, js: &[u32], ds: &[f32]) -> Vec3A {
    let h = at.params.h;
    let phases = &at.params.phases;
    let uniform = phases.len() == 1;
    let xi = at.pos[i];
    let [pi, ni] = at.press[i];
    let mi = phases[at.phase[i] as usize].mass;
    let mut acc = Vec3A::ZERO;
    for (c, js) in js.chunks(LANES).enumerate() {
        // Unused lanes hold d = 0, which the test d > 0 drops.
        let mut r = [[0.0f32; LANES]; 3];
        let (mut d, mut pj, mut nj, mut w) =
            ([0.0f32; LANES], [0.0; LANES], [0.0; LANES], [0.0; LANES]);
        for (k, &j) in js.iter().enumerate() {
            let j = j as usize;
            let rj = at.pos[j] - xi;
            (r[0][k], r[1][k], r[2][k]) = (rj.x, rj.y, rj.z);
            if STORED {
                d[k] = ds[c * LANES + k];
            }
            [pj[k], nj[k]] = at.press[j];
            w[k] = if uniform {
                0.5
            } else {
                let mj = phases[at.phase[j] as usize].mass;
                mj / (mi + mj)
            };
        }
        let mut out = [[0.0f32; LANES]; 3];
        for k in 0..LANES {
            let (rx, ry, rz) = (r[0][k], r[1][k], r[2][k]);
            let d = if STORED {
                d[k]
            } else {
                (rx * rx + ry * ry + rz * rz).sqrt()
            };
            let a = 1.0 - d / h;
            let skip = (a <= 0.0) | (d <= 0.0);
            let mag = (pi + pj[k]) * a + (ni + nj[k]) * a * a;
            let s = mag * w[k] / d;
            // A dropped pair adds +0, which leaves every sum as it is.
            out[0][k] = if skip { 0.0 } else { rx * s };
            out[1][k] = if skip { 0.0 } else { ry * s };
            out[2][k] = if skip { 0.0 } else { rz * s };
        }
        for k in 0..js.len() {
            acc -= Vec3A::new(out[0][k], out[1][k], out[2][k]);
        }
    }
    acc
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
}

impl RelaxationBuffers {
    /// Size every array for `n` particles.
    pub fn resize(&mut self, n: usize) {
        self.rho_near.resize(n, 0.0);
        self.press.resize(n, [0.0; 2]);
        self.dx.resize(n, Vec3A::ZERO);
    }
}

/// Apply the displacements computed by [`displacements`].
pub fn apply_displacements(pos: &mut [Vec3A], dx: &[Vec3A]) {
    pos.par_iter_mut()
        .zip(dx.par_iter())
        .for_each(|(x, d)| *x += *d);
}
