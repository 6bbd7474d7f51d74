//! A boxed LCP rewritten as one standard LCP, for Lemke: the guard when the friction rounds
//! or the boxed drive do not settle.
//!
//! A row with bounds `[lo, hi]` around zero splits its value as `z = x+ - x-` (`x+ >= 0` only
//! when `hi > 0`, `x- >= 0` only when `lo < 0`), with complementary rows `w+ = w + l+` and
//! `w- = -w + l-`. A finite upper bound adds a cap row `s+ = hi - x+ >= 0` complementary to
//! `l+ >= 0` (likewise `s- = -lo - x-` for `l-`); a friction row's caps are `hi z_n - x+` and
//! `-lo z_n - x-` for its normal `z_n`, which stay linear because the normal is a standard
//! row. Every solution of the standard LCP is a solution of the boxed one whose friction
//! bounds are those of its own normals (Stewart and Trinkle's form of Coulomb friction), so no
//! fixed point over the normals is needed; Lemke's lexicographic rule cannot cycle.
use super::fixed_point::polish;
use super::lemke::{Perturbation, lemke_perturbed, w_scale};
use super::matrix::DenseMatrix;
use super::options::Options;
use super::problem::DenseProblem;
use super::solution::{Outcome, Residuals, SOLVED_RESIDUAL, Solution};

/// One variable of the standard form: a problem row and the sign it enters with.
#[derive(Debug, Clone, Copy)]
struct Part {
    row: usize,
    sign: f64,
}

/// One cap row: the variables it caps (their sum), its constant bound and, for friction,
/// the normal's variable and coefficient.
#[derive(Debug, Clone)]
struct Cap {
    vars: Vec<usize>,
    bound: f64,
    normal: Option<(usize, f64)>,
}

/// Solve `problem` through its standard form by Lemke. None when the problem has a row the
/// form does not cover (constant bounds that exclude zero, or a friction row whose normal row
/// is not `[0, inf)`) or its form is larger than [`LARGEST`]. The attempts of [`LADDER`] run
/// in turn until one solves the problem; the pivots of all are counted; the residuals are
/// measured on the boxed problem against the bounds that the returned z implies.
pub(crate) fn lemke_boxed(problem: &DenseProblem, options: &Options) -> Option<Solution> {
    let n = problem.len();
    let (lo, hi, fr) = (&problem.lo, &problem.hi, &problem.friction);
    let standard = |i: usize| lo[i] == 0.0 && hi[i] == f64::INFINITY && fr[i].is_none();
    // The variable of each row's positive part (friction normals are standard rows).
    let mut plus = vec![usize::MAX; n];
    let mut parts: Vec<Part> = Vec::new();
    let mut caps: Vec<Cap> = Vec::new();
    for i in 0..n {
        if let Some(j) = fr[i]
            && !standard(j)
        {
            return None;
        }
        if lo[i] > 0.0 || hi[i] < 0.0 {
            return None;
        }
        for (sign, bound) in [(1.0, hi[i]), (-1.0, -lo[i])] {
            if bound <= 0.0 {
                continue;
            }
            let var = parts.len();
            if sign > 0.0 {
                plus[i] = var;
            }
            parts.push(Part { row: i, sign });
            if fr[i].is_some() {
                // A symmetric friction row's two parts share one cap (the sliding speed).
                if sign < 0.0 && lo[i] == -hi[i] && hi[i] > 0.0 {
                    caps.last_mut()
                        .expect("the positive part's cap")
                        .vars
                        .push(var);
                } else {
                    caps.push(Cap {
                        vars: vec![var],
                        bound: 0.0,
                        normal: fr[i].map(|j| (j, bound)),
                    });
                }
            } else if bound.is_finite() {
                caps.push(Cap {
                    vars: vec![var],
                    bound,
                    normal: None,
                });
            }
        }
    }
    let (nv, nc) = (parts.len(), caps.len());
    let size = nv + nc;
    if size > LARGEST {
        return None;
    }
    let mut m = DenseMatrix::zeros(size, size);
    let mut q = vec![0.0; size];
    for (a, pa) in parts.iter().enumerate() {
        let row = problem.m.row(pa.row);
        for (b, pb) in parts.iter().enumerate() {
            m[(a, b)] = pa.sign * pb.sign * row[pb.row];
        }
        q[a] = pa.sign * problem.q[pa.row];
    }
    for (c, cap) in caps.iter().enumerate() {
        let r = nv + c;
        for &var in &cap.vars {
            m[(var, r)] = 1.0;
            m[(r, var)] = -1.0;
        }
        if let Some((j, coef)) = cap.normal {
            m[(r, plus[j])] += coef;
        }
        q[r] = cap.bound;
    }
    let mut pivots = 0;
    let mut last = None;
    // A path of Lemke's method takes about one or two pivots a variable; every attempt stops
    // well short of a long cycle.
    let cap = |k: usize| Options {
        pivot_limit: Some(options.pivot_limit_for(size).min(k * size + 50)),
        ..options.clone()
    };
    let (first, short) = (cap(3), cap(5));
    for (k, perturb) in LADDER.into_iter().enumerate() {
        // The plain method cycles on most large degenerate problems (piles of bodies with
        // friction), where each of its pivots costs the square of the size: they start
        // perturbed.
        if k == 0 && size > PLAIN_UP_TO {
            continue;
        }
        let opts = if k == 0 { &first } else { &short };
        let sol = lemke_perturbed(&m, &q, opts, perturb);
        pivots += sol.pivots;
        let mut z = vec![0.0; n];
        for (p, x) in parts.iter().zip(&sol.z) {
            z[p.row] += p.sign * x;
        }
        let w = problem.w(&z);
        let (blo, bhi) = problem.bounds_at(&z);
        let scale = w_scale(&problem.m, &problem.q, &z);
        let residuals = Residuals::compute(&z, &w, &blo, &bhi, scale);
        if residuals.relative() <= SOLVED_RESIDUAL {
            return Some(Solution {
                outcome: Outcome::Solved,
                z,
                w,
                pivots,
                iterations: 0,
                residuals,
            });
        }
        // The path's index sets solved exactly (a perturbed path ends near, not at, the
        // solution of the problem itself).
        if let Some(p) = polish(problem, &z) {
            return Some(Solution { pivots, ..p });
        }
        // Lemke's final basis refactored on rank-deficient data can give a z that is no
        // solution: never call that solved.
        let outcome = if sol.outcome == Outcome::Solved {
            Outcome::Singular
        } else {
            sol.outcome
        };
        last = Some(Solution {
            outcome,
            z,
            w,
            pivots,
            iterations: 0,
            residuals,
        });
    }
    last
}

/// The largest standard form the guard takes on: each pivot streams the square of its size
/// through memory, and a path takes one to three pivots a variable (about 2 s at 1,000 on two
/// cores, 15 s at 2,000). Past it the last resort takes the problem.
const LARGEST: usize = 2000;

/// The largest standard form that the ladder's plain attempt runs on.
const PLAIN_UP_TO: usize = 300;

/// The attempts, in order: the plain lexicographic method, then paths on ever so slightly
/// perturbed q (no ties, so no cycling in floating point), each with a tie width well below
/// its perturbation. Every attempt is judged on the problem itself.
const LADDER: [Perturbation; 6] = [
    Perturbation::NONE,
    Perturbation {
        size: 1e-9,
        tie: 1e-12,
    },
    Perturbation {
        size: 1e-10,
        tie: 1e-14,
    },
    Perturbation {
        size: 1e-8,
        tie: 1e-12,
    },
    Perturbation {
        size: 1e-11,
        tie: 1e-14,
    },
    Perturbation {
        size: 1e-7,
        tie: 1e-12,
    },
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sliding_contact_ends_on_its_own_bound() {
        // One normal row and one friction row with mu = 0.5, sliding: w_t = 1 + ... > 0 at rest.
        let m = DenseMatrix::from_rows(&[vec![1.0, 0.2], vec![0.2, 1.0]]);
        let p = DenseProblem {
            m,
            q: vec![-1.0, 2.0],
            lo: vec![0.0, -0.5],
            hi: vec![f64::INFINITY, 0.5],
            friction: vec![None, Some(0)],
        };
        let s = lemke_boxed(&p, &Options::default()).expect("a covered problem");
        assert_eq!(s.outcome, Outcome::Solved);
        assert!(s.residuals.relative() < 1e-12, "{:?}", s.residuals);
        assert!((s.z[1] + 0.5 * s.z[0]).abs() < 1e-12, "{:?}", s.z);
    }

    #[test]
    fn bounds_that_exclude_zero_are_not_covered() {
        let p = DenseProblem::boxed(DenseMatrix::identity(1), vec![1.0], vec![0.5], vec![1.0]);
        assert!(lemke_boxed(&p, &Options::default()).is_none());
    }
}
