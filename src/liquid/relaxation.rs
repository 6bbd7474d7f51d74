//! Double-density relaxation (Clavet et al. 2005, section 4) in the gather (Jacobi) form:
//! each particle sums its own displacement from symmetric pair terms.
use super::neighbours::NeighbourLists;
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
    let h = params.h;
    let dt2 = dt * dt;
    let phases = &params.phases;
    let uniform = phases.len() == 1;
    dx.par_iter_mut().enumerate().for_each(|(i, out)| {
        let xi = pos[i];
        let [pi, ni] = press[i];
        let mi = phases[phase[i] as usize].mass;
        let mut acc = Vec3A::ZERO;
        let (js, ds) = (lists.of(i), lists.dist_of(i));
        for (e, &j) in js.iter().enumerate() {
            let j = j as usize;
            let r = pos[j] - xi;
            let d = if STORED { ds[e] } else { r.length() };
            let a = 1.0 - d / h;
            if a <= 0.0 || d <= 0.0 {
                continue;
            }
            let [pj, nj] = press[j];
            let w = if uniform {
                0.5
            } else {
                let mj = phases[phase[j] as usize].mass;
                mj / (mi + mj)
            };
            let mag = (pi + pj) * a + (ni + nj) * a * a;
            acc -= r * (mag * w / d);
        }
        *out = acc * dt2;
    });
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
