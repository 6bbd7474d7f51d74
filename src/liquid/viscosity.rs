//! Viscosity impulses between liquid neighbours (Clavet et al. 2005, section 5.3), gathered per
//! particle (Jacobi) so that every pair's impulse is equal and opposite.
use super::neighbours::NeighbourLists;
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
fn viscosity_dv_with<const UNIFORM: bool>(
    p: &Particles,
    lists: &NeighbourLists,
    phases: &[Phase],
    h: f32,
    dt: f32,
    dv: &mut [Vec3A],
) {
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
                // One phase: the pair's constants are the phase's own (the same numbers).
                let pj = if UNIFORM {
                    pi
                } else {
                    phases[p.phase[j] as usize]
                };
                let sigma = 0.5 * (pi.sigma + pj.sigma);
                let beta = 0.5 * (pi.beta + pj.beta);
                let w = pj.mass / (pi.mass + pj.mass);
                acc -= rhat * (dt * (1.0 - q) * (sigma * u + beta * u * u) * w);
            }
        }
        *out = acc;
    });
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
