//! Lemke's complementary pivoting method with a lexicographic minimum-ratio test: the
//! reference solver for standard LCPs.
//!
//! The basis inverse is kept explicitly (revised form), so a pivot costs O(n^2); the final
//! basis is refactorised by LU so that z is as exact as the basis allows.
use super::matrix::{DenseMatrix, Lu, sub_scaled};
use super::options::{Options, TieBreak};
use super::problem::DenseProblem;
use super::solution::{Outcome, Residuals, Solution};

/// Solve the standard LCP `z >= 0, w = M z + q >= 0, z.w = 0` by Lemke's method with the
/// covering vector of ones. Errors only if the problem is boxed or malformed.
///
/// ```
/// use sphrigid::lcp::{DenseMatrix, DenseProblem, Options, Outcome, lemke};
///
/// // M = [[2, 1], [1, 2]], q = [-5, -6]: both unknowns positive, w = 0.
/// let m = DenseMatrix::from_rows(&[vec![2.0, 1.0], vec![1.0, 2.0]]);
/// let problem = DenseProblem::standard(m, vec![-5.0, -6.0]);
/// let s = lemke(&problem, &Options::default())?;
/// assert_eq!(s.outcome, Outcome::Solved);
/// assert!((s.z[0] - 4.0 / 3.0).abs() < 1e-12 && (s.z[1] - 7.0 / 3.0).abs() < 1e-12);
/// # Ok::<(), sphrigid::Error>(())
/// ```
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
    // M's columns without their zeros (a contact problem's standard form is mostly zeros), the
    // pivot row's copy, and the basis's residual.
    let cols = SparseColumns::of(m);
    let mut rowr = vec![0.0; n];
    let mut drift = vec![0.0; n];
    let mut since_refactor = 0;

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
    pivot(&mut binv, &mut x, &a, r, &mut rowr);
    let mut leaving = basis[r];
    basis[r] = z0;
    let mut pivots = 1;
    let mut entering = leaving + n; // complement of w_r is z_r

    let outcome = loop {
        if pivots >= limit {
            break Outcome::PivotLimit;
        }
        // A perturbed path is long: its basis is refactorised (at the cost of n solves) once
        // the rounding of the updates shows in B x = q, checked every few pivots from n/2
        // pivots after the last refactorisation at the cost of one sparse product, and at
        // least every 4n pivots. A basis too close to singular to refactor keeps its updated
        // inverse (the final basis is refactorised and judged).
        since_refactor += 1;
        if perturb.size > 0.0
            && since_refactor >= n.max(20) / 2
            && since_refactor % DRIFT_CHECK == 0
            && (since_refactor >= 4 * n.max(20) || cols.drifted(&basis, &x, &qp, &mut drift))
        {
            since_refactor = 0;
            // A failed refactorisation leaves B^-1 and x as they were.
            let _ = refactor(m, &basis, &qp, &mut binv, &mut x);
        }
        // Entering column in the current basis.
        cols.column(&binv, entering, &mut a);
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
        pivot(&mut binv, &mut x, &a, r, &mut rowr);
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

/// Recompute `B^-1` and `x = B^-1 q` from the basis by LU; false (both untouched) if the basis
/// is singular.
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

/// Pivots between checks of a perturbed path's basis for rounding.
const DRIFT_CHECK: usize = 16;

/// The relative residual of `B x = q` past which a perturbed path's basis is refactorised.
const DRIFT: f64 = 1e-9;

/// M's columns without their zeros: column j's rows and values are
/// `row[start[j]..start[j + 1]]` and `val[..]`.
struct SparseColumns {
    n: usize,
    start: Vec<usize>,
    row: Vec<usize>,
    val: Vec<f64>,
}

impl SparseColumns {
    /// The columns of a square `m`.
    fn of(m: &DenseMatrix) -> Self {
        let n = m.rows();
        let mut count = vec![0usize; n + 1];
        for i in 0..n {
            for (j, &v) in m.row(i).iter().enumerate() {
                if v != 0.0 {
                    count[j + 1] += 1;
                }
            }
        }
        for j in 0..n {
            count[j + 1] += count[j];
        }
        let nnz = count[n];
        let mut next = count.clone();
        let (mut row, mut val) = (vec![0; nnz], vec![0.0; nnz]);
        for i in 0..n {
            for (j, &v) in m.row(i).iter().enumerate() {
                if v != 0.0 {
                    row[next[j]] = i;
                    val[next[j]] = v;
                    next[j] += 1;
                }
            }
        }
        Self {
            n,
            start: count,
            row,
            val,
        }
    }

    /// `a = B^-1 col(var)`: the column of w_j is e_j, of z_j is -M[:, j], of z0 is -1.
    fn column(&self, binv: &DenseMatrix, var: usize, a: &mut [f64]) {
        let n = self.n;
        if var < n {
            for (i, ai) in a.iter_mut().enumerate() {
                *ai = binv[(i, var)];
            }
        } else if var < 2 * n {
            let range = self.start[var - n]..self.start[var - n + 1];
            let (rows, vals) = (&self.row[range.clone()], &self.val[range]);
            for (i, ai) in a.iter_mut().enumerate() {
                let b = binv.row(i);
                *ai = -rows.iter().zip(vals).map(|(&k, &v)| b[k] * v).sum::<f64>();
            }
        } else {
            for (i, ai) in a.iter_mut().enumerate() {
                *ai = -binv.row(i).iter().sum::<f64>();
            }
        }
    }

    /// Whether `B x` strays from `q` by more than [`DRIFT`] of the larger of |q| and |B| |x|
    /// (with `r` for the product).
    fn drifted(&self, basis: &[usize], x: &[f64], q: &[f64], r: &mut [f64]) -> bool {
        let n = self.n;
        r.fill(0.0);
        let mut scale = q.iter().fold(0.0f64, |s, v| s.max(v.abs()));
        for (&var, &xc) in basis.iter().zip(x) {
            if var < n {
                r[var] += xc;
                scale = scale.max(xc.abs());
            } else if var < 2 * n {
                let j = var - n;
                for (&k, &v) in self.row[self.start[j]..self.start[j + 1]]
                    .iter()
                    .zip(&self.val[self.start[j]..self.start[j + 1]])
                {
                    r[k] -= v * xc;
                    scale = scale.max((v * xc).abs());
                }
            } else {
                r.iter_mut().for_each(|ri| *ri -= xc);
                scale = scale.max(xc.abs());
            }
        }
        let worst = r
            .iter()
            .zip(q)
            .fold(0.0f64, |s, (ri, qi)| s.max((ri - qi).abs()));
        worst > DRIFT * scale || !worst.is_finite()
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

/// Pivot on row r with entering column a: update B^-1 and x (`rowr` holds row r's copy).
/// Large bases update their rows on every core.
fn pivot(binv: &mut DenseMatrix, x: &mut [f64], a: &[f64], r: usize, rowr: &mut [f64]) {
    use rayon::prelude::*;
    let n = x.len();
    let ar = a[r];
    x[r] /= ar;
    for v in binv.row_mut(r) {
        *v /= ar;
    }
    let xr = x[r];
    rowr.copy_from_slice(binv.row(r));
    for (i, xi) in x.iter_mut().enumerate() {
        if i != r {
            *xi -= a[i] * xr;
        }
    }
    let update = |(i, row): (usize, &mut [f64])| {
        let f = a[i];
        if i != r && f != 0.0 {
            sub_scaled(row, f, rowr);
        }
    };
    if n >= PARALLEL_PIVOT {
        binv.data_mut()
            .par_chunks_mut(n)
            .with_min_len(PARALLEL_PIVOT / 4)
            .enumerate()
            .for_each(update);
    } else {
        binv.data_mut().chunks_mut(n).enumerate().for_each(update);
    }
}

/// The size from which a pivot's update of B^-1 runs on every core.
const PARALLEL_PIVOT: usize = 256;

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
