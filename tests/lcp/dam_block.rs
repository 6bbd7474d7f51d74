//! Contact problems of issue 22, dumped before its fix: a heavy block (0.1 x 0.3 m, 2.5 times
//! the liquid's density) on the floor of a tank exactly its depth, a column of liquid against
//! one face (H = 0.26, 0.28, 0.30, 0.34 m with friction 1; 0.30 m with friction 0.5; 0.30 m
//! with the block 1 mm narrower than the tank, whose clump still fills it).
//! The block touches the floor and both side walls. The block-pivoting solver called every one
//! a ray (its warm start downdated a near-singular clamped inverse), and Dantzig's friction
//! rounds walked along the continuum of solutions until their limit. Both methods must now end
//! `solved`, with residuals within the tolerance. With friction the answer is not unique
//! here (the two methods give different w at friction 0.5), so only each one's residuals are
//! asserted.
use crate::common;

use sphrigid::lcp::io::{ProblemFile, load};
use sphrigid::lcp::{Options, Outcome, StructuredProblem, block_pivot, dantzig};
use std::path::{Path, PathBuf};

/// Residuals allowed, relative to the data's scale.
const RESIDUAL: f64 = 1e-9;

fn files() -> Vec<PathBuf> {
    let files = common::json_files("tests/data/lcp_failures/dam_block");
    assert_eq!(files.len(), 6);
    files
}

fn structured(path: &Path) -> StructuredProblem {
    match load(path).expect("a readable problem file") {
        ProblemFile::Structured(p) => p,
        ProblemFile::Dense(_) => panic!("{}: expected the structured form", path.display()),
    }
}

fn max_abs(v: &[f64]) -> f64 {
    v.iter().fold(0.0, |m, x| m.max(x.abs()))
}

#[test]
fn every_dam_block_problem_is_solved_by_both_methods() {
    let opts = Options::default();
    for path in files() {
        let file = path.file_name().unwrap().to_string_lossy().into_owned();
        let p = structured(&path);
        let s = block_pivot(&p, &opts).expect("a valid problem");
        let d = dantzig(&p.to_dense(), &opts).expect("a valid problem");
        let q = p.q();
        let qscale = max_abs(&q);
        for (method, sol) in [("block_pivot", &s), ("dantzig", &d)] {
            assert_eq!(sol.outcome, Outcome::Solved, "{file} {method}");
            let r = sol.residuals;
            assert!(r.relative() <= RESIDUAL, "{file} {method}: residuals {r:?}");
            // Against the data itself, not only the solver's report.
            let w = p.w(&sol.z);
            let wscale = qscale.max(max_abs(&w));
            let dw: Vec<f64> = w.iter().zip(&sol.w).map(|(a, b)| a - b).collect();
            assert!(max_abs(&dw) <= 1e-12 * wscale, "{file} {method}");
            println!(
                "{file} {method}: {} pivots, residual {:.1e}",
                sol.pivots,
                r.relative()
            );
        }
    }
}
