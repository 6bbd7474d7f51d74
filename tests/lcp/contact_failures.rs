//! Contact problems dumped from failing simulation steps (tests/data/lcp_failures/): rank-
//! deficient, degenerate PSD problems with friction boxes. Every file is either solved by both
//! the structured and the Dantzig method, with the unique parts of the answer (w and the body
//! velocity change) agreeing, or proven infeasible by a Farkas certificate that both methods
//! report as a ray.
use crate::common;

use sphrigid::lcp::io::{ProblemFile, load};
use sphrigid::lcp::{Options, Outcome, Solution, StructuredProblem, block_pivot, dantzig};
use std::path::{Path, PathBuf};

/// Residuals allowed, relative to the data's scale (sign, complementarity, bounds).
const RESIDUAL: f64 = 1e-9;

/// Files whose contact assembly contradicts itself, with the rows of a certificate: one-sided
/// rows whose combination y >= 0 has `M y = 0` (forces and torques on the body, and each
/// liquid particle's impulses, balance) while `q . y < 0` (the gaps close on net). Bodies held
/// from both sides in z by liquid wedged against the walls, with velocities rounded apart.
const INFEASIBLE: &[(&str, &[usize])] = &[
    ("topple_ray_28rows.json", &[0, 4, 14, 16, 17, 20]),
    ("topple_dense_ray_163rows.json", &[7, 11, 131, 142]),
    ("topple_wedged_z_ray_111rows.json", &[15, 21, 108, 110]),
];

/// Pivots allowed on n rows, enough for a path without cycles (the cycling seen before took
/// 80 pivots a row): Dantzig 4 a row; the structured solver re-drives its few exact rows in
/// every friction round and Newton step, so 8 a row. A problem that reaches the standard
/// form's guard (many bodies resting on each other with friction) may also spend its capped
/// plain Lemke attempt (3 pivots a variable) before a perturbed one: 15 and 20 a row.
fn budget(method: &str, n: usize, guarded: bool) -> usize {
    match (method == "dantzig", guarded) {
        (true, false) => 4 * n,
        (false, false) => 8 * n,
        (true, true) => 15 * n,
        (false, true) => 20 * n,
    }
}

/// Files whose problems reach the standard form's guard.
const GUARDED: &[&str] = &["box27_friction_pivot_limit_67rows.json"];

fn files() -> Vec<PathBuf> {
    let files = common::json_files("tests/data/lcp_failures");
    assert!(files.len() >= 5, "{} files", files.len());
    files
}

fn structured(path: &Path) -> StructuredProblem {
    match load(path).expect("a readable problem file") {
        ProblemFile::Structured(p) => p,
        ProblemFile::Dense(_) => panic!("{}: expected the structured form", path.display()),
    }
}

fn name(path: &Path) -> String {
    path.file_name().unwrap().to_string_lossy().into_owned()
}

fn max_abs(v: &[f64]) -> f64 {
    v.iter().fold(0.0, |m, x| m.max(x.abs()))
}

/// Solve by both methods.
fn both(p: &StructuredProblem) -> (Solution, Solution) {
    let opts = Options::default();
    let s = block_pivot(p, &opts).expect("a valid problem");
    let d = dantzig(&p.to_dense(), &opts).expect("a valid problem");
    (s, d)
}

/// The weights of a certificate on the given rows: the null vector of `M_SS` with the last
/// weight 1, from the other rows' equations (Gaussian elimination with partial pivoting).
fn null_weights(p: &StructuredProblem, rows: &[usize]) -> Vec<f64> {
    let k = rows.len() - 1;
    let mut a: Vec<Vec<f64>> = (0..k)
        .map(|r| {
            let mut row: Vec<f64> = (0..k).map(|c| p.entry(rows[r], rows[c])).collect();
            row.push(-p.entry(rows[r], rows[k]));
            row
        })
        .collect();
    for c in 0..k {
        let piv = (c..k)
            .max_by(|&x, &y| a[x][c].abs().total_cmp(&a[y][c].abs()))
            .unwrap();
        a.swap(c, piv);
        let (top, rest) = a.split_at_mut(c + 1);
        let pivot_row = &top[c];
        for row in rest.iter_mut() {
            let f = row[c] / pivot_row[c];
            for (x, p) in row.iter_mut().zip(pivot_row).skip(c) {
                *x -= f * p;
            }
        }
    }
    let mut y = vec![0.0; k + 1];
    y[k] = 1.0;
    for c in (0..k).rev() {
        let s: f64 = (c + 1..k).map(|j| a[c][j] * y[j]).sum();
        y[c] = (a[c][k] - s) / a[c][c];
    }
    y
}

#[test]
fn every_failure_is_solved_or_proven_infeasible() {
    for path in files() {
        let file = name(&path);
        let p = structured(&path);
        let n = p.len();
        let (s, d) = both(&p);
        let q = p.q();
        let qscale = max_abs(&q);
        if let Some((_, rows)) = INFEASIBLE.iter().find(|(f, _)| *f == file) {
            // The certificate: one-sided rows, y >= 0, M y = 0 to rounding, q . y < 0 well
            // beyond it, so no z gives w >= 0 on these rows.
            let y_rows = null_weights(&p, rows);
            let mut y = vec![0.0; n];
            for (&r, &v) in rows.iter().zip(&y_rows) {
                assert!(p.rows[r].lo == 0.0 && p.rows[r].hi == f64::INFINITY);
                assert!(v > 0.0, "{file}: weight {v} on row {r}");
                y[r] = v;
            }
            let my: Vec<f64> = (0..n)
                .map(|i| rows.iter().map(|&r| p.entry(i, r) * y[r]).sum())
                .collect();
            let mscale = (0..n).map(|i| p.entry(i, i)).fold(0.0, f64::max);
            let qy: f64 = q.iter().zip(&y).map(|(a, b)| a * b).sum();
            let ys = max_abs(&y);
            assert!(
                max_abs(&my) <= 1e-11 * mscale * ys,
                "{file}: |M y| = {:e}",
                max_abs(&my)
            );
            assert!(qy < -1e-8 * qscale * ys, "{file}: q.y = {qy:e}");
            for (method, sol) in [("block_pivot", &s), ("dantzig", &d)] {
                assert_eq!(sol.outcome, Outcome::Ray, "{file} {method}");
                assert!(
                    sol.pivots <= 4 * n,
                    "{file} {method}: {} pivots",
                    sol.pivots
                );
            }
            continue;
        }
        for (method, sol) in [("block_pivot", &s), ("dantzig", &d)] {
            assert_eq!(sol.outcome, Outcome::Solved, "{file} {method}");
            let r = sol.residuals;
            assert!(r.relative() <= RESIDUAL, "{file} {method}: residuals {r:?}");
            // The residuals against the data itself, not only the solver's report.
            let w = p.w(&sol.z);
            let wscale = qscale.max(max_abs(&w));
            assert!(
                max_abs(&w.iter().zip(&sol.w).map(|(a, b)| a - b).collect::<Vec<_>>())
                    <= 1e-12 * wscale
            );
            assert!(
                sol.pivots <= budget(method, n, GUARDED.contains(&file.as_str())),
                "{file} {method}: {} pivots",
                sol.pivots
            );
        }
        // Rank-deficient: z may differ, but w and the bodies' velocity change are unique.
        let wscale = qscale.max(max_abs(&s.w)).max(max_abs(&d.w));
        for i in 0..n {
            assert!(
                (s.w[i] - d.w[i]).abs() <= 1e-6 * wscale,
                "{file}: w[{i}] {} vs {}",
                s.w[i],
                d.w[i]
            );
        }
        let (fs, fd) = (p.body_velocity(&s.z), p.body_velocity(&d.z));
        let fscale = max_abs(&fs).max(max_abs(&fd)).max(f64::MIN_POSITIVE);
        for i in 0..fs.len() {
            assert!(
                (fs[i] - fd[i]).abs() <= 1e-6 * fscale,
                "{file}: f[{i}] {} vs {}",
                fs[i],
                fd[i]
            );
        }
    }
}

/// Contact problems of a hundred bodies piled up against the far wall by a dam break, friction
/// 0.5 (issue 49; tests/data/lcp_failures/piles/): one component of 381 exact rows whose
/// friction rounds do not settle from a cold start, and one of 567 whose rounds settle too
/// slowly once warm. The first ended at the pivot limit (residual 4.5e-9) and the second was
/// left to the last resort, both their standard forms being past the guard's size then.
#[test]
fn piles_of_bodies_with_friction_are_solved_exactly() {
    let files = common::json_files("tests/data/lcp_failures/piles");
    assert_eq!(files.len(), 2);
    for path in files {
        let file = name(&path);
        let p = structured(&path);
        let n = p.len();
        let s = block_pivot(&p, &Options::default()).expect("a valid problem");
        assert_eq!(s.outcome, Outcome::Solved, "{file}");
        let r = s.residuals;
        assert!(r.relative() <= RESIDUAL, "{file}: residuals {r:?}");
        let w = p.w(&s.z);
        let wscale = max_abs(&p.q()).max(max_abs(&w));
        let off = max_abs(&w.iter().zip(&s.w).map(|(a, b)| a - b).collect::<Vec<_>>());
        assert!(off <= 1e-12 * wscale, "{file}: w off by {off:e}");
        assert!(
            s.pivots <= budget("block_pivot", n, true),
            "{file}: {} pivots",
            s.pivots
        );
    }
}
