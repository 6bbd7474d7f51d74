//! Exact solutions of a boxed LCP with friction for given index sets: the fixed point of the
//! friction rounds solved directly, and the polish that turns an approximate solution into an
//! exact one by solving its index sets.
use super::boxed::State;
use super::lemke::w_scale;
use super::matrix::{DenseMatrix, Lu};
use super::problem::{DenseProblem, effective_bounds_into};
use super::solution::{Outcome, Residuals, SOLVED_RESIDUAL, Solution};

/// A solved Solution from the index sets an approximate solution `z` suggests (rows at a
/// bound with w pushing outwards stay there, all others are clamped), solved exactly by
/// `fixed_point`; None when those sets do not give a solution.
pub(crate) fn polish(p: &DenseProblem, z: &[f64]) -> Option<Solution> {
    let n = p.len();
    if z.len() != n || z.iter().any(|v| !v.is_finite()) {
        return None;
    }
    let state = states_of(p, z);
    let (z, w) = fixed_point(p, &state, z)?;
    let (lo, hi) = p.bounds_at(&z);
    let residuals = Residuals::compute(&z, &w, &lo, &hi, w_scale(&p.m, &p.q, &z));
    (residuals.relative() <= SOLVED_RESIDUAL).then_some(Solution {
        outcome: Outcome::Solved,
        z,
        w,
        pivots: 0,
        iterations: 0,
        residuals,
    })
}

/// The index sets an approximate solution `z` suggests: rows at a bound (to 1e-8 of z's
/// size) with w pushing outwards stay there, rows with equal bounds are fixed, all others are
/// clamped. A warm start for the next solve of a nearby problem.
pub(crate) fn states_of(p: &DenseProblem, z: &[f64]) -> Vec<State> {
    let n = p.len();
    let w = p.w(z);
    let (lo, hi) = p.bounds_at(z);
    let zs = z.iter().fold(0.0f64, |s, v| s.max(v.abs()));
    let tol = 1e-8 * zs.max(f64::MIN_POSITIVE);
    (0..n)
        .map(|i| {
            if hi[i] - lo[i] <= tol && p.friction[i].is_none() {
                State::Fixed
            } else if z[i] <= lo[i] + tol && w[i] >= 0.0 {
                State::AtLo
            } else if z[i] >= hi[i] - tol && w[i] <= 0.0 {
                State::AtHi
            } else {
                State::Clamped
            }
        })
        .collect()
}

/// The fixed point of the friction rounds for given index sets, solved directly: clamped rows
/// are unknowns with w = 0, rows on a bound sit on it (a friction row's bound is its
/// coefficient times its normal's value, substituted into the system), parked rows keep their
/// values from `zprev`. Some(z) only if every condition holds to rounding against the bounds
/// in force at z itself, so z is a solution of the friction problem; w comes with it.
fn fixed_point(p: &DenseProblem, state: &[State], zprev: &[f64]) -> Option<(Vec<f64>, Vec<f64>)> {
    let mut work = FixedPointWork::default();
    fixed_point_in(p, state, zprev, &mut work).then_some((work.a, work.w))
}

/// The buffers of [`fixed_point_in`]; a fixed point found leaves z in `a` and w in `w`.
#[derive(Debug, Clone, Default)]
pub(crate) struct FixedPointWork {
    pos: Vec<usize>,
    clamped: Vec<usize>,
    /// The fixed point's z.
    pub(crate) a: Vec<f64>,
    coef: Vec<Option<(usize, f64)>>,
    sys: DenseMatrix,
    lu: Lu,
    rhs: Vec<f64>,
    x: Vec<f64>,
    lo: Vec<f64>,
    hi: Vec<f64>,
    /// The fixed point's w.
    pub(crate) w: Vec<f64>,
}

/// [`fixed_point`] with the buffers of `work`: true, with z in `work.a` and w in `work.w`, when
/// the fixed point solves the friction problem.
pub(crate) fn fixed_point_in(
    p: &DenseProblem,
    state: &[State],
    zprev: &[f64],
    work: &mut FixedPointWork,
) -> bool {
    let n = p.len();
    if state.len() != n {
        return false;
    }
    let FixedPointWork {
        pos,
        clamped,
        a,
        coef,
        sys,
        lu,
        rhs,
        x,
        lo,
        hi,
        w,
    } = work;
    // Position of each clamped row among the unknowns.
    pos.clear();
    pos.resize(n, usize::MAX);
    clamped.clear();
    for (i, s) in state.iter().enumerate() {
        if *s == State::Clamped {
            pos[i] = clamped.len();
            clamped.push(i);
        }
    }
    // Every other row's value as a + b x_u (u an unknown's position, or none).
    a.clear();
    a.resize(n, 0.0);
    coef.clear();
    coef.resize(n, None);
    for i in 0..n {
        let bound = match state[i] {
            State::Clamped => continue,
            State::Parked => {
                a[i] = zprev[i];
                continue;
            }
            State::Waiting => return false,
            State::AtLo | State::Fixed => p.lo[i],
            State::AtHi => p.hi[i],
        };
        if !bound.is_finite() {
            return false;
        }
        match p.friction[i] {
            None => a[i] = bound,
            Some(j) => match state[j] {
                State::Clamped => coef[i] = Some((pos[j], bound)),
                State::AtLo | State::AtHi | State::Fixed if p.friction[j].is_none() => {
                    let zj = if state[j] == State::AtHi {
                        p.hi[j]
                    } else {
                        p.lo[j]
                    };
                    a[i] = bound * zj.max(0.0);
                }
                State::Parked if p.friction[j].is_none() => a[i] = bound * zprev[j].max(0.0),
                _ => return false,
            },
        }
    }
    let k = clamped.len();
    sys.reset(k, k);
    rhs.clear();
    rhs.resize(k, 0.0);
    for (r, &c) in clamped.iter().enumerate() {
        let row = p.m.row(c);
        let mut b = -p.q[c];
        for j in 0..n {
            if let Some((u, f)) = coef[j] {
                sys[(r, u)] += f * row[j];
            } else if pos[j] != usize::MAX {
                sys[(r, pos[j])] += row[j];
            } else {
                b -= row[j] * a[j];
            }
        }
        rhs[r] = b;
    }
    let z = a;
    if k > 0 {
        if !lu.refactor(sys, 1e-14) {
            return false;
        }
        lu.solve_into(rhs, x);
        for (r, &c) in clamped.iter().enumerate() {
            z[c] = x[r];
        }
    }
    for i in 0..n {
        if let Some((u, f)) = coef[i] {
            z[i] = f * z[clamped[u]].max(0.0);
        }
    }
    // Check every condition against the bounds in force at z: first those on z alone, then,
    // only if they hold, those on w (which costs a product with M).
    effective_bounds_into(&p.lo, &p.hi, &p.friction, z, lo, hi);
    let zs = z
        .iter()
        .fold(0.0f64, |s, v| s.max(v.abs()))
        .max(f64::MIN_POSITIVE);
    let ws =
        p.q.iter()
            .fold(0.0f64, |s, v| s.max(v.abs()))
            .max(f64::MIN_POSITIVE);
    let (zt, wt) = (1e-12 * zs, 1e-12 * ws);
    let z_ok = (0..n).all(|i| {
        let (z, l, h) = (z[i], lo[i], hi[i]);
        match state[i] {
            State::AtLo => (z - l).abs() <= zt,
            State::AtHi => (z - h).abs() <= zt,
            State::Fixed => (h - l).abs() <= zt && (z - l).abs() <= zt,
            _ => z >= l - zt && z <= h + zt,
        }
    });
    if !z_ok {
        return false;
    }
    p.w_into(z, w);
    (0..n).all(|i| match state[i] {
        State::AtLo => w[i] >= -wt,
        State::AtHi => w[i] <= wt,
        State::Fixed => true,
        _ => w[i].abs() <= wt,
    })
}
