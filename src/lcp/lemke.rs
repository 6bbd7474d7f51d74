//! Lemke's complementary pivoting method with a lexicographic minimum-ratio test: the
//! reference solver for standard LCPs.
//!
//! The basis inverse is kept explicitly (revised form), so a pivot costs O(n^2); the final
//! basis is refactorised by LU so that z is as exact as the basis allows.
use super::matrix::{DenseMatrix, Lu};
use super::options::{Options, TieBreak};
use super::problem::DenseProblem;
use super::solution::{Outcome, Residuals, Solution};

/// Solve the standard LCP `z >= 0, w = M z + q >= 0, z.w = 0` by Lemke's method with the
/// covering vector of ones. Errors only if the problem is boxed or malformed.
pub fn lemke(problem: &DenseProblem, options: &Options) -> crate::Result<Solution> {
    problem.validate().map_err(crate::Error::Input)?;
    if !problem.is_standard() {
        return Err(crate::Error::Input(
            "Lemke's method solves standard LCPs only (lo = 0, hi = inf, no friction); use dantzig"
                .into(),
        ));
    }
    Ok(lemke_standard(&problem.m, &problem.q, options))
}

/// Lemke on `(M, q)` without validation (shapes must agree).
pub(crate) fn lemke_standard(m: &DenseMatrix, q: &[f64], options: &Options) -> Solution {
    lemke_perturbed(m, q, options, Perturbation::NONE)
}

/// A perturbation of q that makes a degenerate problem non-degenerate (Lemke's path then
/// has no ties and cannot cycle in floating point), and the relative width of a tie in the
/// ratio test.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Perturbation {
    /// Each `q_i` is raised by `size * max|q|` times a factor in [0.5, 1.5), distinct per row.
    pub(crate) size: f64,
    /// Ratios within this fraction of the smallest (or of the data's scale) are tied.
    pub(crate) tie: f64,
}

impl Perturbation {
    /// No perturbation, ties within 1e-9: the plain lexicographic method.
    pub(crate) const NONE: Perturbation = Perturbation {
        size: 0.0,
        tie: 1e-9,
    };
}

/// Lemke on `(M, q + delta)` with `delta` from `perturb`; the final basis is solved with the
/// original q, so the returned z and residuals are the unperturbed problem's. The basis
/// inverse is refactorised every n pivots, so its rounding does not build up along a long
/// path.
pub(crate) fn lemke_perturbed(
    m: &DenseMatrix,
    q: &[f64],
    options: &Options,
    perturb: Perturbation,
) -> Solution {
    let n = q.len();
    if q.iter().all(|&v| v >= 0.0) {
        return finish(m, q, vec![0.0; n], Outcome::Solved, 0);
    }
    let limit = options.pivot_limit_for(n);
    let tol = options.tolerance;
    let z0 = 2 * n;
    // The perturbed q: distinct factors from the golden ratio's multiples, so the result is
    // the same on every run.
    let qmax = q.iter().fold(0.0f64, |s, v| s.max(v.abs()));
    let qp: Vec<f64> = q
        .iter()
        .enumerate()
        .map(|(i, &v)| {
            let frac = (i as f64 * 0.618_033_988_749_894_9).fract();
            v + perturb.size * qmax * (0.5 + frac)
        })
        .collect();
    // Basis: row r holds variable basis[r] (0..n: w, n..2n: z, 2n: z0).
    let mut basis: Vec<usize> = (0..n).collect();
    let mut binv = DenseMatrix::identity(n);
    let mut x: Vec<f64> = qp.clone();
    let mut a = vec![0.0; n];

    // First pivot: z0 enters with column -1; the row with the most negative q leaves.
    a.iter_mut().for_each(|v| *v = -1.0);
    let r = {
        // x(t) = q + t 1 stays >= 0 down to t = -min q: the row of the minimum q leaves.
        let minv = x.iter().copied().fold(f64::INFINITY, f64::min);
        let scale = x.iter().fold(0.0f64, |s, v| s.max(v.abs()));
        let tied: Vec<usize> = (0..n)
            .filter(|&i| x[i] <= minv + 1e-9 * scale.max(f64::MIN_POSITIVE))
            .collect();
        match options.tie_break {
            TieBreak::FirstIndex => tied[0],
            // Lexicographic maximum of -(x_i, e_i): among ties, the largest index.
            TieBreak::Lexicographic => *tied.last().expect("at least one row"),
        }
    };
    pivot(&mut binv, &mut x, &a, r);
    let mut leaving = basis[r];
    basis[r] = z0;
    let mut pivots = 1;
    let mut entering = leaving + n; // complement of w_r is z_r

    let outcome = loop {
        if pivots >= limit {
            break Outcome::PivotLimit;
        }
        if perturb.size > 0.0
            && pivots % n.max(20) == 0
            && !refactor(m, &basis, &qp, &mut binv, &mut x)
        {
            break Outcome::Singular;
        }
        // Entering column in the current basis.
        column(m, &binv, entering, n, &mut a);
        if a.iter().any(|v| !v.is_finite()) {
            break Outcome::Singular;
        }
        let amax = a.iter().fold(0.0f64, |s, v| s.max(v.abs()));
        let ptol = tol * amax.max(f64::MIN_POSITIVE);
        let cand: Vec<usize> = (0..n).filter(|&i| a[i] > ptol).collect();
        if cand.is_empty() {
            break Outcome::Ray;
        }
        let rule = options.tie_break;
        let Some(r) = ratio_test(&cand, &x, &a, &binv, &basis, z0, (rule, perturb.tie)) else {
            break Outcome::Singular;
        };
        pivot(&mut binv, &mut x, &a, r);
        leaving = basis[r];
        basis[r] = entering;
        pivots += 1;
        if leaving == z0 {
            break Outcome::Solved;
        }
        entering = if leaving < n {
            leaving + n
        } else {
            leaving - n
        };
    };

    // Read z from the basis; when solved, refactorise the basis for an exact z.
    let mut z = vec![0.0; n];
    let mut outcome = outcome;
    if outcome == Outcome::Solved {
        match Lu::new(&basis_matrix(m, &basis), 1e-14) {
            Some(lu) => x = lu.solve(q),
            None => outcome = Outcome::Singular,
        }
    }
    for (r, &v) in basis.iter().enumerate() {
        if (n..2 * n).contains(&v) {
            z[v - n] = x[r];
        }
    }
    finish(m, q, z, outcome, pivots)
}

/// The basis matrix: the column of w_j is e_j, of z_j is -M[:, j], of z0 is -1.
fn basis_matrix(m: &DenseMatrix, basis: &[usize]) -> DenseMatrix {
    let n = basis.len();
    let mut b = DenseMatrix::zeros(n, n);
    for (c, &v) in basis.iter().enumerate() {
        for i in 0..n {
            b[(i, c)] = if v < n {
                if i == v { 1.0 } else { 0.0 }
            } else if v < 2 * n {
                -m[(i, v - n)]
            } else {
                -1.0
            };
        }
    }
    b
}

/// Recompute `B^-1` and `x = B^-1 q` from the basis by LU; false if the basis is singular.
fn refactor(
    m: &DenseMatrix,
    basis: &[usize],
    q: &[f64],
    binv: &mut DenseMatrix,
    x: &mut Vec<f64>,
) -> bool {
    let n = basis.len();
    let Some(lu) = Lu::new(&basis_matrix(m, basis), 1e-14) else {
        return false;
    };
    let mut e = vec![0.0; n];
    let mut col = Vec::with_capacity(n);
    for j in 0..n {
        e[j] = 1.0;
        lu.solve_into(&e, &mut col);
        e[j] = 0.0;
        for (i, v) in col.iter().enumerate() {
            binv[(i, j)] = *v;
        }
    }
    lu.solve_into(q, x);
    true
}

/// `a = B^-1 col(var)`: the column of w_j is e_j, of z_j is -M[:, j], of z0 is -1.
fn column(m: &DenseMatrix, binv: &DenseMatrix, var: usize, n: usize, a: &mut [f64]) {
    if var < n {
        for (i, ai) in a.iter_mut().enumerate() {
            *ai = binv[(i, var)];
        }
    } else {
        let j = var - n;
        let col: Vec<f64> = (0..n).map(|k| -m[(k, j)]).collect();
        for (i, ai) in a.iter_mut().enumerate() {
            *ai = super::matrix::dot(binv.row(i), &col);
        }
    }
}

/// The leaving row among candidates (a_i > 0): minimum ratio x_i / a_i; z0 leaves when it is
/// tied; other ties by the chosen rule.
fn ratio_test(
    cand: &[usize],
    x: &[f64],
    a: &[f64],
    binv: &DenseMatrix,
    basis: &[usize],
    z0: usize,
    (rule, tie): (TieBreak, f64),
) -> Option<usize> {
    let ratio = |i: usize| x[i] / a[i];
    let minr = cand.iter().map(|&i| ratio(i)).fold(f64::INFINITY, f64::min);
    if !minr.is_finite() {
        return None;
    }
    let amax = cand.iter().fold(0.0f64, |s, &i| s.max(a[i]));
    let xmax = x.iter().fold(0.0f64, |s, v| s.max(v.abs()));
    let ttol = tie * minr.abs().max(xmax / amax);
    let mut tied: Vec<usize> = cand
        .iter()
        .copied()
        .filter(|&i| ratio(i) <= minr + ttol)
        .collect();
    if tied.len() == 1 {
        return Some(tied[0]);
    }
    if let Some(&r) = tied.iter().find(|&&i| basis[i] == z0) {
        return Some(r);
    }
    match rule {
        TieBreak::FirstIndex => tied.first().copied(),
        TieBreak::Lexicographic => {
            let n = binv.cols();
            for j in 0..n {
                let v = |i: usize| binv[(i, j)] / a[i];
                let minv = tied.iter().map(|&i| v(i)).fold(f64::INFINITY, f64::min);
                let vmax = tied.iter().fold(0.0f64, |s, &i| s.max(v(i).abs()));
                let vtol = 1e-9 * vmax;
                tied.retain(|&i| v(i) <= minv + vtol);
                if tied.len() == 1 {
                    break;
                }
            }
            tied.first().copied()
        }
    }
}

/// Pivot on row r with entering column a: update B^-1 and x.
fn pivot(binv: &mut DenseMatrix, x: &mut [f64], a: &[f64], r: usize) {
    let n = x.len();
    let ar = a[r];
    x[r] /= ar;
    for v in binv.row_mut(r) {
        *v /= ar;
    }
    let xr = x[r];
    let rowr: Vec<f64> = binv.row(r).to_vec();
    for i in 0..n {
        if i == r || a[i] == 0.0 {
            continue;
        }
        let f = a[i];
        x[i] -= f * xr;
        for (b, &br) in binv.row_mut(i).iter_mut().zip(&rowr) {
            *b -= f * br;
        }
    }
}

/// Build the solution: w from z, residuals against [0, inf).
fn finish(m: &DenseMatrix, q: &[f64], z: Vec<f64>, outcome: Outcome, pivots: usize) -> Solution {
    let n = q.len();
    let mut w = m.mul_vec(&z);
    for (wi, qi) in w.iter_mut().zip(q) {
        *wi += qi;
    }
    let residuals = Residuals::compute(
        &z,
        &w,
        &vec![0.0; n],
        &vec![f64::INFINITY; n],
        w_scale(m, q, &z),
    );
    Solution {
        outcome: outcome.judged(&residuals),
        z,
        w,
        pivots,
        iterations: 0,
        residuals,
    }
}

/// The scale of w: max(|q|_inf, |M|_inf |z|_inf).
pub(crate) fn w_scale(m: &DenseMatrix, q: &[f64], z: &[f64]) -> f64 {
    let qn = q.iter().fold(0.0f64, |s, v| s.max(v.abs()));
    let zn = z.iter().fold(0.0f64, |s, v| s.max(v.abs()));
    qn.max(m.norm_inf() * zn)
}
