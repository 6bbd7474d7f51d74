//! The reference problems of ../shared/reference/lcp_problems.md, Murty's family and
//! degenerate problems that need the lexicographic ratio test.
use sphrigid::lcp::{DenseMatrix, DenseProblem, Options, Outcome, TieBreak, dantzig, lemke};

fn problem(m: &[&[f64]], q: &[f64]) -> DenseProblem {
    let rows: Vec<Vec<f64>> = m.iter().map(|r| r.to_vec()).collect();
    DenseProblem::standard(DenseMatrix::from_rows(&rows), q.to_vec())
}

fn assert_close(a: &[f64], b: &[f64], tol: f64) {
    assert_eq!(a.len(), b.len());
    for (x, y) in a.iter().zip(b) {
        assert!((x - y).abs() <= tol, "{a:?} != {b:?}");
    }
}

fn murty(n: usize) -> DenseProblem {
    let mut m = DenseMatrix::zeros(n, n);
    for i in 0..n {
        m[(i, i)] = 1.0;
        for j in i + 1..n {
            m[(i, j)] = 2.0;
        }
    }
    let q = (1..=n)
        .map(|i| (1u64 << i) as f64 - (1u64 << (n + 1)) as f64)
        .collect();
    DenseProblem::standard(m, q)
}

#[test]
fn trivial_pd_diagonal_gives_reciprocals() {
    let n = 9;
    let mut m = DenseMatrix::zeros(n, n);
    for i in 0..n {
        m[(i, i)] = (i + 1) as f64;
    }
    let p = DenseProblem::standard(m, vec![-1.0; n]);
    let expect: Vec<f64> = (1..=n).map(|i| 1.0 / i as f64).collect();
    for s in [
        lemke(&p, &Options::default()).unwrap(),
        dantzig(&p, &Options::default()).unwrap(),
    ] {
        assert_eq!(s.outcome, Outcome::Solved);
        assert_close(&s.z, &expect, 1e-14);
        assert!(s.residuals.relative() < 1e-14);
    }
}

#[test]
fn deudeu_is_solved_with_w_zero() {
    let p = problem(&[&[2.0, 1.0], &[1.0, 2.0]], &[-5.0, -6.0]);
    for s in [
        lemke(&p, &Options::default()).unwrap(),
        dantzig(&p, &Options::default()).unwrap(),
    ] {
        assert_eq!(s.outcome, Outcome::Solved);
        assert_close(&s.z, &[4.0 / 3.0, 7.0 / 3.0], 1e-14);
        assert_close(&s.w, &[0.0, 0.0], 1e-14);
    }
}

#[test]
fn nonsymmetric_three_by_three() {
    let p = problem(
        &[&[0.0, -1.0, 2.0], &[2.0, 0.0, -2.0], &[-1.0, 1.0, 0.0]],
        &[-3.0, 6.0, -1.0],
    );
    let s = lemke(&p, &Options::default()).unwrap();
    assert_eq!(s.outcome, Outcome::Solved);
    assert_close(&s.z, &[0.0, 1.0, 3.0], 1e-13);
    assert!(s.residuals.relative() < 1e-14);
}

#[test]
fn psd_with_many_solutions_gives_one_on_the_segment() {
    let p = problem(&[&[1.0, 1.0], &[1.0, 1.0]], &[-1.0, -1.0]);
    for s in [
        lemke(&p, &Options::default()).unwrap(),
        dantzig(&p, &Options::default()).unwrap(),
    ] {
        assert_eq!(s.outcome, Outcome::Solved);
        assert!(s.z.iter().all(|&z| z >= 0.0));
        assert!((s.z[0] + s.z[1] - 1.0).abs() < 1e-14, "{:?}", s.z);
    }
}

#[test]
fn infeasible_problems_ray_terminate() {
    for p in [
        problem(&[&[-1.0]], &[-1.0]),
        problem(&[&[2.0, -1.0], &[0.0, -2.0]], &[-1.0, -2.0]),
    ] {
        let s = lemke(&p, &Options::default()).unwrap();
        assert_eq!(s.outcome, Outcome::Ray);
        assert!(!s.is_solved());
        // The reported iterate is not passed off as a solution.
        assert!(s.residuals.sign > 0.0);
    }
}

#[test]
fn solvable_upper_triangular() {
    let p = problem(&[&[2.0, 1.0], &[0.0, 2.0]], &[-1.0, -2.0]);
    let s = lemke(&p, &Options::default()).unwrap();
    assert_eq!(s.outcome, Outcome::Solved);
    assert_close(&s.z, &[0.0, 1.0], 1e-14);
}

#[test]
fn nonnegative_q_returns_zero_without_a_pivot() {
    let p = problem(
        &[&[-3.0, 7.0, 1.0], &[2.0, -5.0, 0.0], &[1.0, 1.0, -9.0]],
        &[1.0, 2.0, 3.0],
    );
    let s = lemke(&p, &Options::default()).unwrap();
    assert_eq!(s.outcome, Outcome::Solved);
    assert_eq!(s.pivots, 0);
    assert_eq!(s.z, vec![0.0; 3]);
    assert_eq!(s.w, vec![1.0, 2.0, 3.0]);
}

#[test]
fn murty_family_takes_two_to_the_n_pivots() {
    for n in 1..=10 {
        let s = lemke(&murty(n), &Options::default()).unwrap();
        assert_eq!(s.outcome, Outcome::Solved, "n = {n}");
        assert_eq!(s.pivots, 1 << n, "n = {n}");
        let mut expect = vec![0.0; n];
        expect[n - 1] = (1u64 << n) as f64;
        assert_close(&s.z, &expect, 1e-9);
    }
    // Murty n = 3 from the table.
    let s = lemke(&murty(3), &Options::default()).unwrap();
    assert_eq!(murty(3).q, vec![-14.0, -12.0, -8.0]);
    assert_close(&s.z, &[0.0, 0.0, 8.0], 1e-12);
}

#[test]
fn pivot_limit_is_reported() {
    let opts = Options {
        pivot_limit: Some(100),
        ..Options::default()
    };
    let s = lemke(&murty(10), &opts).unwrap();
    assert_eq!(s.outcome, Outcome::PivotLimit);
    assert_eq!(s.pivots, 100);
}

#[test]
fn degenerate_problems_need_the_lexicographic_rule() {
    // Found by search: ties in the ratio test (equal or zero entries of q) on which the
    // first-index rule takes a wrong branch and ray-terminates.
    let cases = [
        problem(&[&[0.0, 2.0], &[2.0, 1.0]], &[-1.0, -1.0]),
        problem(
            &[&[-2.0, -2.0, 2.0], &[1.0, 1.0, 2.0], &[1.0, -2.0, 0.0]],
            &[0.0, -1.0, 0.0],
        ),
        problem(
            &[&[0.0, 0.0, 2.0], &[-1.0, 1.0, 1.0], &[-1.0, 1.0, 1.0]],
            &[-2.0, 0.0, 0.0],
        ),
    ];
    let first = Options {
        tie_break: TieBreak::FirstIndex,
        ..Options::default()
    };
    for p in &cases {
        let bad = lemke(p, &first).unwrap();
        assert_ne!(bad.outcome, Outcome::Solved, "{:?}", p.q);
        let good = lemke(p, &Options::default()).unwrap();
        assert_eq!(good.outcome, Outcome::Solved, "{:?}", p.q);
        assert!(good.residuals.relative() < 1e-14);
        assert!(good.z.iter().all(|&z| z >= 0.0));
        let w = p.w(&good.z);
        assert!(w.iter().all(|&x| x >= -1e-14));
    }
}

#[test]
fn lemke_rejects_boxed_problems() {
    let mut p = problem(&[&[1.0]], &[-1.0]);
    p.hi[0] = 0.5;
    assert!(matches!(
        lemke(&p, &Options::default()),
        Err(sphrigid::Error::Input(_))
    ));
    let s = dantzig(&p, &Options::default()).unwrap();
    assert_eq!(s.outcome, Outcome::Solved);
    assert_close(&s.z, &[0.5], 0.0);
}
