//! A warm start for the boxed drive: the index sets of an earlier solve of a nearby problem
//! (other bounds, or another q and M), repaired so that every row keeping its old state meets
//! its conditions. The rest go back to waiting, and the drive pivots only on them; with no
//! such row the start is the solution. The drive keeps every processed row feasible, so a
//! repaired start ends on a solution exactly as a cold one does.
use super::{BoxedWork, Singular, State};
use crate::lcp::matrix::{DenseMatrix, dot};

/// The drive's starting point from an earlier solve's `zprev` and `prev` states, into `work`:
/// z, w, the states (`Waiting` for rows still to drive) and the clamped set's inverse. Clamped rows are
/// re-solved with w = 0; a clamped row that leaves its bounds waits at the nearest bound and
/// the rest are re-solved; a row on a bound whose w has the wrong sign, or a parked row whose
/// w is no longer zero, waits where it is. Waiting rows sit inside their bounds.
#[allow(clippy::too_many_arguments)]
pub(super) fn repair(
    work: &mut BoxedWork,
    m: &DenseMatrix,
    q: &[f64],
    lo: &[f64],
    hi: &[f64],
    zprev: &[f64],
    prev: &[State],
    stol: Singular,
    wtol: f64,
) {
    let n = q.len();
    let BoxedWork {
        z,
        state,
        w,
        cl,
        r,
        out,
        keep,
        ..
    } = work;
    z.clear();
    z.resize(n, 0.0);
    state.clear();
    state.resize(n, State::Waiting);
    cl.clear();
    for i in 0..n {
        let inside = if zprev[i].is_finite() {
            zprev[i].clamp(lo[i], hi[i])
        } else {
            0.0f64.clamp(lo[i], hi[i])
        };
        (z[i], state[i]) = if lo[i] == hi[i] {
            (lo[i], State::Fixed)
        } else {
            match prev[i] {
                State::AtLo if lo[i].is_finite() => (lo[i], State::AtLo),
                State::AtHi if hi[i].is_finite() => (hi[i], State::AtHi),
                State::Clamped | State::Parked if cl.add(m, i, stol) => (inside, State::Clamped),
                State::Clamped | State::Parked if lo[i] < inside && inside < hi[i] => {
                    (inside, State::Parked)
                }
                _ => (inside, State::Waiting),
            }
        };
    }
    // z_C = -M_CC^-1 (q_C + M_CN z_N); clamped rows that leave their bounds wait on them.
    loop {
        let k = cl.k();
        for &c in &cl.idx {
            z[c] = 0.0;
        }
        r.clear();
        r.extend(cl.idx.iter().map(|&c| q[c] + dot(m.row(c), z)));
        for (a, &c) in cl.idx.iter().enumerate() {
            z[c] = -dot(&cl.inv[a * k..(a + 1) * k], r);
        }
        out.clear();
        out.extend((0..k).filter(|&a| {
            let c = cl.idx[a];
            !(z[c] >= lo[c] && z[c] <= hi[c])
        }));
        if out.is_empty() {
            break;
        }
        for &a in out.iter() {
            let c = cl.idx[a];
            z[c] = if z[c].is_nan() {
                0.0f64.clamp(lo[c], hi[c])
            } else {
                z[c].clamp(lo[c], hi[c])
            };
            state[c] = State::Waiting;
        }
        // The rest are bordered in afresh rather than the leaving rows removed from the
        // inverse: the old set may have been all but singular (contact corners whose rows
        // depend on each other up to f32 rounding, with a Schur complement just above the
        // limit), and removing rows from such an inverse cancels away every digit. The stale
        // inverse gave clamped rows a w far from zero, and a row that depends on them (the
        // opposite wall's) a w the drive could not move: a false ray.
        keep.clear();
        keep.extend(
            cl.idx
                .iter()
                .copied()
                .filter(|&c| state[c] != State::Waiting),
        );
        cl.clear();
        for &c in keep.iter() {
            // A row that no longer borders in took its value from the near-singular solve:
            // it waits from the cold start's value.
            if !cl.add(m, c, stol) {
                z[c] = 0.0f64.clamp(lo[c], hi[c]);
                state[c] = State::Waiting;
            }
        }
    }
    // Rows on a bound or parked keep their state only while their w allows it.
    m.mul_vec_into(z, w);
    for (wi, qi) in w.iter_mut().zip(q) {
        *wi += qi;
    }
    for &c in &cl.idx {
        w[c] = 0.0;
    }
    for i in 0..n {
        let holds = match state[i] {
            State::AtLo => w[i] >= -wtol,
            State::AtHi => w[i] <= wtol,
            State::Parked => w[i].abs() <= wtol,
            _ => true,
        };
        if !holds {
            state[i] = State::Waiting;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::{BoxedWork, MatrixFacts, State, boxed_solve, boxed_solve_in};
    use crate::lcp::matrix::DenseMatrix;
    use crate::lcp::solution::Outcome;
    use crate::rng::XorShift;

    /// A deterministic stream in [-1, 1).
    fn stream(seed: u64) -> impl FnMut() -> f64 {
        let mut r = XorShift::new(seed);
        move || r.sym()
    }

    /// `B B^T + shift I`, B n x rank.
    fn gram(n: usize, rank: usize, shift: f64, rnd: &mut impl FnMut() -> f64) -> DenseMatrix {
        let b: Vec<f64> = (0..n * rank).map(|_| rnd()).collect();
        let mut m = DenseMatrix::zeros(n, n);
        for i in 0..n {
            for j in 0..=i {
                let v: f64 = (0..rank).map(|k| b[i * rank + k] * b[j * rank + k]).sum();
                m[(i, j)] = v;
                m[(j, i)] = v;
            }
            m[(i, i)] += shift;
        }
        m
    }

    fn w_of(m: &DenseMatrix, q: &[f64], z: &[f64]) -> Vec<f64> {
        m.mul_vec(z).iter().zip(q).map(|(a, b)| a + b).collect()
    }

    /// Every row's boxed conditions, to an absolute tolerance.
    fn assert_solves(m: &DenseMatrix, q: &[f64], lo: &[f64], hi: &[f64], z: &[f64], tol: f64) {
        let w = w_of(m, q, z);
        for i in 0..z.len() {
            assert!(
                z[i] >= lo[i] - tol && z[i] <= hi[i] + tol,
                "row {i} out of bounds"
            );
            let at_lo = (z[i] - lo[i]).abs() <= tol;
            let at_hi = (hi[i] - z[i]).abs() <= tol;
            if !at_lo && !at_hi {
                assert!(w[i].abs() <= tol, "row {i} inside with w = {}", w[i]);
            } else if at_lo && !at_hi {
                assert!(w[i] >= -tol, "row {i} at lo with w = {}", w[i]);
            } else if at_hi && !at_lo {
                assert!(w[i] <= tol, "row {i} at hi with w = {}", w[i]);
            }
        }
    }

    /// Random bounds: free, finite boxes, one-sided, and fixed rows; all finite when `boxed`.
    fn bounds(n: usize, boxed: bool, rnd: &mut impl FnMut() -> f64) -> (Vec<f64>, Vec<f64>) {
        let (mut lo, mut hi) = (vec![0.0; n], vec![f64::INFINITY; n]);
        for i in 0..n {
            let k = if boxed {
                1
            } else {
                (rnd().abs() * 5.0) as usize
            };
            (lo[i], hi[i]) = match k {
                0 => (f64::NEG_INFINITY, f64::INFINITY),
                1 => (-0.1 - rnd().abs(), 0.1 + rnd().abs()),
                2 => (0.0, 0.2 + rnd().abs()),
                3 if i % 7 == 0 => (0.3, 0.3),
                _ => (0.0, f64::INFINITY),
            };
        }
        (lo, hi)
    }

    /// Solve, perturb q, M and the bounds, and solve the perturbed problem both cold and from
    /// the first solve's z and states: the repaired warm start must reach the same answer
    /// (z for a positive definite M, w for a semi-definite one), and pivot less.
    #[test]
    fn a_repaired_warm_start_matches_a_cold_solve() {
        let (mut cold_pivots, mut warm_pivots, mut repaired, mut exact) = (0, 0, 0, 0);
        for seed in 0..60u64 {
            let mut rnd = stream(seed);
            let n = 4 + (seed as usize * 13) % 70;
            // Even seeds: positive definite with mixed bounds; odd: rank-deficient, all boxed.
            let definite = seed % 2 == 0;
            let rank = if definite { n } else { 1 + n / 3 };
            let m = gram(n, rank, if definite { 0.05 } else { 0.0 }, &mut rnd);
            let q: Vec<f64> = (0..n).map(|_| 3.0 * rnd()).collect();
            let (lo, hi) = bounds(n, !definite, &mut rnd);
            let mut piv = 0;
            let (z0, out0, st0) = boxed_solve(
                &m,
                &q,
                &lo,
                &hi,
                1e-12,
                10_000,
                &mut piv,
                None,
                MatrixFacts::of(&m),
            );
            assert_eq!(out0, Outcome::Solved, "seed {seed}");
            assert!(st0.iter().all(|s| *s != State::Waiting));
            // A nearby problem: every third seed only moves the bounds a little.
            let size = if seed % 3 == 0 { 0.0 } else { 0.2 };
            let dm = gram(n, 2, 0.0, &mut rnd);
            let mut m2 = m.clone();
            for i in 0..n {
                for j in 0..n {
                    m2[(i, j)] += size * dm[(i, j)];
                }
            }
            let q2: Vec<f64> = q.iter().map(|v| v + size * rnd()).collect();
            let grow = 1.0 + 0.3 * rnd();
            let lo2: Vec<f64> = lo.iter().map(|v| v * grow).collect();
            let hi2: Vec<f64> = hi.iter().map(|v| v * grow).collect();
            let (mut pc, mut pw) = (0, 0);
            let (zc, oc, _) = boxed_solve(
                &m2,
                &q2,
                &lo2,
                &hi2,
                1e-12,
                10_000,
                &mut pc,
                None,
                MatrixFacts::of(&m2),
            );
            let warm = Some((z0.as_slice(), st0.as_slice()));
            let (zw, ow, sw) = boxed_solve(
                &m2,
                &q2,
                &lo2,
                &hi2,
                1e-12,
                10_000,
                &mut pw,
                warm,
                MatrixFacts::of(&m2),
            );
            assert_eq!(oc, Outcome::Solved, "seed {seed}");
            assert_eq!(ow, Outcome::Solved, "seed {seed}");
            assert!(sw.iter().all(|s| *s != State::Waiting));
            let zs = zc.iter().fold(1.0f64, |a, v| a.max(v.abs()));
            assert_solves(&m2, &q2, &lo2, &hi2, &zc, 1e-9 * zs);
            assert_solves(&m2, &q2, &lo2, &hi2, &zw, 1e-9 * zs);
            let (a, b) = if definite {
                (zc, zw)
            } else {
                (w_of(&m2, &q2, &zc), w_of(&m2, &q2, &zw))
            };
            let scale = a.iter().fold(1.0f64, |s, v| s.max(v.abs()));
            for i in 0..n {
                assert!((a[i] - b[i]).abs() <= 1e-9 * scale, "seed {seed} row {i}");
            }
            cold_pivots += pc;
            warm_pivots += pw;
            if pw > 0 {
                repaired += 1;
            } else {
                exact += 1;
            }
        }
        // Both paths ran: starts that needed repair, and starts that were already the answer.
        assert!(
            repaired > 10 && exact > 3,
            "repaired {repaired}, exact {exact}"
        );
        assert!(
            2 * warm_pivots < cold_pivots,
            "{warm_pivots} vs {cold_pivots}"
        );
    }

    /// A start whose states are all wrong (every row on the wrong side) still ends solved.
    #[test]
    fn a_start_with_every_state_wrong_is_repaired() {
        let mut rnd = stream(7);
        let n = 30;
        let m = gram(n, n, 0.1, &mut rnd);
        let q: Vec<f64> = (0..n).map(|_| 2.0 * rnd()).collect();
        let (lo, hi) = (vec![-0.5; n], vec![0.5; n]);
        let mut piv = 0;
        let (zc, _, sc) = boxed_solve(
            &m,
            &q,
            &lo,
            &hi,
            1e-12,
            10_000,
            &mut piv,
            None,
            MatrixFacts::of(&m),
        );
        let flipped: Vec<State> = sc
            .iter()
            .map(|s| match s {
                State::AtLo => State::AtHi,
                State::AtHi => State::Clamped,
                _ => State::AtLo,
            })
            .collect();
        let zbad: Vec<f64> = zc.iter().map(|v| -v).collect();
        let warm = Some((zbad.as_slice(), flipped.as_slice()));
        let (zw, ow, _) = boxed_solve(
            &m,
            &q,
            &lo,
            &hi,
            1e-12,
            10_000,
            &mut piv,
            warm,
            MatrixFacts::of(&m),
        );
        assert_eq!(ow, Outcome::Solved);
        for i in 0..n {
            assert!(
                (zc[i] - zw[i]).abs() <= 1e-10,
                "row {i}: {} vs {}",
                zc[i],
                zw[i]
            );
        }
    }

    /// One workspace reused across problems of different sizes, cold and warm-started, gives
    /// bit for bit what a fresh one gives (no stale buffer leaks into a solve).
    #[test]
    fn a_reused_workspace_solves_as_a_fresh_one() {
        let mut work = BoxedWork::default();
        let mut prev: Option<(Vec<f64>, Vec<State>)> = None;
        let mut warmed = 0;
        for seed in 0..30u64 {
            let mut rnd = stream(100 + seed);
            // Pairs of one size: the second of each is warm-started from the first.
            let n = 3 + (seed as usize / 2 * 17) % 40;
            let m = gram(
                n,
                1 + n / 2 + seed as usize % 3,
                0.02 * (seed % 2) as f64,
                &mut rnd,
            );
            let q: Vec<f64> = (0..n).map(|_| 2.0 * rnd()).collect();
            let (lo, hi) = bounds(n, seed % 3 == 0, &mut rnd);
            let facts = MatrixFacts::of(&m);
            let warm = prev
                .as_ref()
                .filter(|_| seed % 2 == 1)
                .map(|(z, s)| (z.as_slice(), s.as_slice()));
            let (mut pf, mut pr) = (0, 0);
            let (z, out, st) = boxed_solve(&m, &q, &lo, &hi, 1e-12, 10_000, &mut pf, warm, facts);
            let o = boxed_solve_in(
                &mut work, &m, &q, &lo, &hi, 1e-12, 10_000, &mut pr, warm, facts,
            );
            assert_eq!(o, out, "seed {seed}");
            assert_eq!(pr, pf, "seed {seed}");
            assert_eq!(work.z, z, "seed {seed}");
            assert_eq!(work.state, st, "seed {seed}");
            warmed += usize::from(warm.is_some() && pr > 0);
            prev = Some((z, st));
        }
        assert!(warmed >= 5, "{warmed} repaired warm starts");
    }
}
