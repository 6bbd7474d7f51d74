//! Boxed problems: finite bounds, free rows (joints) and friction bounds that follow a normal.
use sphrigid::lcp::io::{ProblemFile, parse, to_json};
use sphrigid::lcp::sample::{SampleSpec, liquid_on_boxes};
use sphrigid::lcp::{DenseMatrix, DenseProblem, Options, Outcome, block_pivot, dantzig};
use sphrigid::rng::XorShift;

fn stream(seed: u64) -> impl FnMut() -> f64 {
    let mut r = XorShift::new(seed);
    move || r.sym()
}

fn spd(n: usize, rank: usize, shift: f64, rnd: &mut impl FnMut() -> f64) -> DenseMatrix {
    let b: Vec<f64> = (0..n * rank).map(|_| rnd()).collect();
    let mut m = DenseMatrix::zeros(n, n);
    for i in 0..n {
        for j in 0..n {
            m[(i, j)] = (0..rank).map(|k| b[i * rank + k] * b[j * rank + k]).sum();
        }
        m[(i, i)] += shift;
    }
    m
}

/// Every row's boxed conditions, checked directly with an absolute tolerance.
fn check_boxed(p: &DenseProblem, z: &[f64], tol: f64) {
    let w = p.w(z);
    let (lo, hi) = p.bounds_at(z);
    for i in 0..z.len() {
        assert!(
            z[i] >= lo[i] - tol && z[i] <= hi[i] + tol,
            "row {i}: {} not in [{}, {}]",
            z[i],
            lo[i],
            hi[i]
        );
        let at_lo = (z[i] - lo[i]).abs() <= tol;
        let at_hi = (hi[i] - z[i]).abs() <= tol;
        if !at_lo && !at_hi {
            assert!(w[i].abs() <= tol, "row {i} strictly inside, w = {}", w[i]);
        } else if at_lo && !at_hi {
            assert!(w[i] >= -tol, "row {i} at lo, w = {}", w[i]);
        } else if at_hi && !at_lo {
            assert!(w[i] <= tol, "row {i} at hi, w = {}", w[i]);
        }
    }
}

#[test]
fn finite_bounds_and_free_rows_hold() {
    for seed in 0..20 {
        let mut rnd = stream(seed);
        let n = 5 + (seed as usize * 7) % 60;
        let m = spd(n, n, 0.05, &mut rnd);
        let q: Vec<f64> = (0..n).map(|_| 5.0 * rnd()).collect();
        let mut lo = vec![0.0; n];
        let mut hi = vec![f64::INFINITY; n];
        for i in 0..n {
            match i % 4 {
                0 => {
                    lo[i] = f64::NEG_INFINITY;
                    hi[i] = f64::INFINITY;
                }
                1 => {
                    lo[i] = -0.3;
                    hi[i] = 0.2;
                }
                2 => hi[i] = 0.5,
                _ => {}
            }
        }
        let p = DenseProblem::boxed(m, q, lo, hi);
        let s = dantzig(&p, &Options::default()).unwrap();
        assert_eq!(s.outcome, Outcome::Solved, "seed {seed}");
        assert!(s.residuals.relative() < 1e-9, "{:?}", s.residuals);
        check_boxed(&p, &s.z, 1e-9);
        // Free rows end with w = 0.
        for i in (0..n).step_by(4) {
            assert!(s.w[i].abs() < 1e-9);
        }
        // Some rows must sit on their finite bounds for the test to mean anything.
        let on_bounds = (0..n)
            .filter(|&i| i % 4 == 1 && (s.z[i] == 0.2 || s.z[i] == -0.3))
            .count();
        if n > 20 {
            assert!(on_bounds > 0, "seed {seed}");
        }
    }
}

#[test]
fn friction_bounds_follow_the_normal() {
    for seed in 0..20 {
        let mut rnd = stream(100 + seed);
        let contacts = 2 + seed as usize % 6;
        let n = 3 * contacts;
        let m = spd(n, n, 0.05, &mut rnd);
        let mut q = vec![0.0; n];
        let mut lo = vec![0.0; n];
        let mut hi = vec![f64::INFINITY; n];
        let mut friction = vec![None; n];
        for c in 0..contacts {
            q[3 * c] = -1.0 - rnd().abs();
            for k in 1..3 {
                q[3 * c + k] = 3.0 * rnd();
                lo[3 * c + k] = -0.4;
                hi[3 * c + k] = 0.4;
                friction[3 * c + k] = Some(3 * c);
            }
        }
        let p = DenseProblem {
            m,
            q,
            lo,
            hi,
            friction,
        };
        let s = dantzig(&p, &Options::default()).unwrap();
        assert_eq!(s.outcome, Outcome::Solved, "seed {seed}");
        assert!(s.residuals.relative() < 1e-9, "{:?}", s.residuals);
        check_boxed(&p, &s.z, 1e-9);
        for c in 0..contacts {
            for k in 1..3 {
                assert!(s.z[3 * c + k].abs() <= 0.4 * s.z[3 * c] + 1e-9);
            }
        }
    }
}

#[test]
fn structured_friction_matches_dense_dantzig() {
    let mut total_sliding = 0;
    for (liquid, bodies, rigid) in [(80, 2, 5), (120, 3, 9), (160, 4, 16)] {
        for seed in 0..2 {
            let p = liquid_on_boxes(&SampleSpec {
                liquid_contacts: liquid,
                bodies,
                rigid_contacts: rigid,
                friction: true,
                shared_particles: 5,
                seed,
            });
            let s = block_pivot(&p, &Options::default()).unwrap();
            let d = p.to_dense();
            let g = dantzig(&d, &Options::default()).unwrap();
            assert_eq!(s.outcome, Outcome::Solved);
            assert_eq!(g.outcome, Outcome::Solved);
            assert!(s.residuals.relative() < 1e-9, "{:?}", s.residuals);
            let zs = s.z.iter().fold(0.0f64, |m, x| m.max(x.abs()));
            check_boxed(&d, &s.z, 1e-9 * zs.max(1.0));
            // Sliding happens: some friction row sits on its cone bound.
            let (lo, hi) = d.bounds_at(&s.z);
            let sliding = (0..d.len())
                .filter(|&i| d.friction[i].is_some() && s.z[i] != 0.0)
                .filter(|&i| {
                    s.z[i] == lo[i]
                        || s.z[i] == hi[i]
                        || (s.z[i] - hi[i]).abs() < 1e-9 * zs
                        || (s.z[i] - lo[i]).abs() < 1e-9 * zs
                })
                .count();
            total_sliding += sliding;
            assert!(g.residuals.relative() < 1e-9, "{:?}", g.residuals);
        }
    }
    // Some contacts slide: friction rows on their cone bounds.
    assert!(total_sliding > 0);
}

#[test]
fn boxed_json_round_trips_with_infinite_bounds() {
    let p = DenseProblem {
        m: DenseMatrix::from_rows(&[
            vec![2.0, 0.5, 0.0],
            vec![0.5, 1.0, 0.0],
            vec![0.0, 0.0, 1.0],
        ]),
        q: vec![-1.0, 0.3, 2.0],
        lo: vec![0.0, -0.5, f64::NEG_INFINITY],
        hi: vec![f64::INFINITY, 0.5, f64::INFINITY],
        friction: vec![None, Some(0), None],
    };
    let text = to_json(&ProblemFile::Dense(p.clone()));
    assert_eq!(parse(&text, "mem").unwrap(), ProblemFile::Dense(p.clone()));
    let s = dantzig(&p, &Options::default()).unwrap();
    assert_eq!(s.outcome, Outcome::Solved);
    check_boxed(&p, &s.z, 1e-12);
}
