//! Dantzig/Baraff principal pivoting for boxed LCPs with symmetric positive semi-definite M
//! (the drive itself lives in `boxed.rs`). Friction bounds that follow a normal row are
//! made exact by fixed-point rounds over the bounds.
use super::boxed::{BoxedWork, MatrixFacts, State, boxed_solve_in};
use super::fixed_point::{FixedPointWork, fixed_point_in, index_set_pivoting, polish};
use super::lemke::w_scale;
use super::options::Options;
use super::problem::{DenseProblem, effective_bounds_into};
use super::solution::{Outcome, Residuals, SOLVED_RESIDUAL, Solution};
use super::standard_form::lemke_boxed;

/// Solve a boxed LCP (standard ones included) by Dantzig/Baraff pivoting. M should be
/// symmetric positive semi-definite. On strongly rank-deficient M rounding can stall the
/// drive (pivot limit, singular clamped set); a standard problem that fails so is re-solved
/// by Lemke, and the pivots of both are counted. Errors only on malformed problems.
pub fn dantzig(problem: &DenseProblem, options: &Options) -> crate::Result<Solution> {
    problem.validate().map_err(crate::Error::Input)?;
    Ok(dantzig_guarded(problem, options))
}

/// A damped round whose bounds moved more than this fraction of the last round's move made
/// no headway; two such in a row end a guarded solve's rounds (an oscillation that damping
/// does not kill, as when the normals jump between two active sets).
const STALL_RATIO: f64 = 0.9;

/// The relative residual at which friction rounds whose bounds still move stop: z solves the
/// problem with the bounds it sets itself. Stricter than [`SOLVED_RESIDUAL`], because a
/// sub-problem's residual grows when the block-pivoting solver maps it back to its problem.
const ROUNDS_AT_A_SOLUTION: f64 = 1e-12;

/// Pivots a row a guarded solve's drive may take before it turns to the standard form: a
/// drive without cycles needs about one a row.
const GUARDED_DRIVE: usize = 2;

/// The most steps of index-set pivoting after guarded rounds that did not settle: each solves
/// one linear system of the clamped rows, where the guard behind (Lemke on the standard form)
/// costs thousands of pivots on a pile of bodies.
const INDEX_SET_STEPS: usize = 40;

/// Options for a first attempt that has a guard behind it: a shorter drive (never longer than
/// `options` allow); such an attempt also ends its friction rounds on a stall.
pub(crate) fn guarded_options(options: &Options, n: usize) -> Options {
    Options {
        pivot_limit: Some(options.pivot_limit_for(n).min(GUARDED_DRIVE * n + 10)),
        ..options.clone()
    }
}

/// Dantzig without validation, guarded: a short attempt that fails to settle (pivot limit,
/// singular clamped set) is retried by Lemke on the problem's standard form, and only when
/// that fails too by the full attempt. The pivots of every attempt are counted.
pub(crate) fn dantzig_guarded(problem: &DenseProblem, options: &Options) -> Solution {
    let n = problem.len();
    let sol = dantzig_warm(problem, &guarded_options(options, n), None, None, true).0;
    if matches!(sol.outcome, Outcome::Solved | Outcome::Ray) {
        return sol;
    }
    let mut pivots = sol.pivots;
    let mut iterations = sol.iterations;
    if let Some(l) = lemke_boxed(problem, options) {
        pivots += l.pivots;
        // A ray of the standard form proves a standard problem infeasible; with friction it
        // may be rounding's (z0 all but zero): the point's index sets, solved exactly, may
        // still be a solution, and otherwise the full attempt decides.
        if l.outcome != Outcome::Solved
            && !problem.is_standard()
            && let Some(p) = polish(problem, &l.z)
        {
            return Solution {
                pivots,
                iterations,
                ..p
            };
        }
        if l.outcome == Outcome::Solved || (l.outcome == Outcome::Ray && problem.is_standard()) {
            return Solution {
                pivots,
                iterations,
                ..l
            };
        }
    }
    let full = dantzig_unchecked(problem, options);
    pivots += full.pivots;
    iterations += full.iterations;
    Solution {
        pivots,
        iterations,
        ..full
    }
}

/// Dantzig without validation.
pub(crate) fn dantzig_unchecked(problem: &DenseProblem, options: &Options) -> Solution {
    dantzig_warm(problem, options, None, None, false).0
}

/// A warm start: z and the final index sets of a solve of a nearby problem.
pub(crate) type Warm = (Vec<f64>, Vec<State>);

/// The buffers of [`dantzig_warm_in`], kept between solves by whoever solves again (the
/// block-pivoting solver's sub-solves). A solve leaves z, w and the final states here.
#[derive(Debug, Clone, Default)]
pub(crate) struct DantzigWork {
    /// The last solve's z.
    pub(crate) z: Vec<f64>,
    /// The last solve's w.
    pub(crate) w: Vec<f64>,
    /// The last solve's final states (empty if no drive ran).
    pub(crate) state: Vec<State>,
    boxed: BoxedWork,
    zbar: Vec<f64>,
    zlast: Vec<f64>,
    lo: Vec<f64>,
    hi: Vec<f64>,
    fixed: FixedPointWork,
}

/// What a solve of [`dantzig_warm_in`] counted and found besides its z and w.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Counts {
    pub(crate) outcome: Outcome,
    pub(crate) pivots: usize,
    pub(crate) rounds: usize,
    pub(crate) residuals: Residuals,
}

/// Dantzig without validation, optionally warm-started and told M's facts (else they are
/// measured); also returns the final warm start. `guarded`: a guard stands behind this
/// attempt, so rounds that stall end it (outcome pivot limit) rather than run on.
pub(crate) fn dantzig_warm(
    problem: &DenseProblem,
    options: &Options,
    warm: Option<&Warm>,
    facts: Option<MatrixFacts>,
    guarded: bool,
) -> (Solution, Warm) {
    let mut work = DantzigWork::default();
    let warm = warm.map(|w| (w.0.as_slice(), w.1.as_slice()));
    let c = dantzig_warm_in(&mut work, problem, options, warm, facts, guarded);
    let sol = Solution {
        outcome: c.outcome,
        z: work.z.clone(),
        w: work.w,
        pivots: c.pivots,
        iterations: c.rounds,
        residuals: c.residuals,
    };
    (sol, (work.z, work.state))
}

/// [`dantzig_warm`] with the buffers of `work`, where it leaves z, w and the final states.
pub(crate) fn dantzig_warm_in(
    work: &mut DantzigWork,
    problem: &DenseProblem,
    options: &Options,
    warm: Option<(&[f64], &[State])>,
    facts: Option<MatrixFacts>,
    guarded: bool,
) -> Counts {
    let n = problem.len();
    let limit = options.pivot_limit_for(n);
    let mut pivots = 0;
    let has_friction = problem.friction.iter().any(Option::is_some);
    let facts = facts.unwrap_or_else(|| MatrixFacts::of(&problem.m));
    let DantzigWork {
        z,
        w,
        state: last_state,
        boxed,
        zbar,
        zlast,
        lo,
        hi,
        fixed,
    } = work;
    z.clear();
    z.resize(n, 0.0);
    // Whether w holds w at z, when the fixed point found it already.
    let mut w_known = false;
    // The normal values the friction bounds are taken from (relaxed after a few rounds, so that
    // a two-state oscillation dies out).
    zbar.clear();
    match warm {
        Some((zw, _)) => zbar.extend_from_slice(zw),
        None => zbar.resize(n, 0.0),
    }
    let mut rounds = 0;
    let mut damped = false;
    // Damped rounds in a row that made no headway.
    let mut stalls = 0;
    // Later rounds move the bounds only a little: start from the last round's index sets.
    last_state.clear();
    let mut has_state = false;
    if let Some((_, s)) = warm {
        last_state.extend_from_slice(s);
        has_state = true;
    }
    let mut last_change = f64::INFINITY;
    // The values rows the index sets leave untouched (parked rows) keep between rounds.
    zlast.clone_from(zbar);
    let outcome = loop {
        // Once the index sets are right, the fixed point of the rounds solves one linear
        // system: friction rows on a bound move with their normal's value.
        if has_friction && has_state && fixed_point_in(problem, last_state, zlast, fixed) {
            std::mem::swap(z, &mut fixed.a);
            std::mem::swap(w, &mut fixed.w);
            w_known = true;
            break Outcome::Solved;
        }
        rounds += 1;
        effective_bounds_into(&problem.lo, &problem.hi, &problem.friction, zbar, lo, hi);
        let outcome = boxed_solve_in(
            boxed,
            &problem.m,
            &problem.q,
            lo,
            hi,
            options.tolerance,
            limit,
            &mut pivots,
            has_state.then_some((zlast.as_slice(), last_state.as_slice())),
            facts,
        );
        z.clone_from(&boxed.z);
        zlast.clone_from(z);
        last_state.clone_from(&boxed.state);
        has_state = true;
        if outcome != Outcome::Solved || !has_friction {
            break outcome;
        }
        let change = bounds_change(problem, zbar, z);
        let zs = z.iter().fold(0.0f64, |s, v| s.max(v.abs()));
        if change <= 1e-13 * zs.max(f64::MIN_POSITIVE) {
            break Outcome::Solved;
        }
        // The bounds may still move while z already solves the problem with the bounds it
        // sets itself: a body pressed between two walls, or held in a corner by friction of
        // coefficient 1, has a continuum of solutions (a squeeze, or a loop of friction and
        // normal forces, adds impulses that cancel on the body), and the rounds can walk along
        // it for ever. Such a z is the answer.
        problem.w_into(z, w);
        effective_bounds_into(&problem.lo, &problem.hi, &problem.friction, z, lo, hi);
        if Residuals::compute(z, w, lo, hi, w_scale(&problem.m, &problem.q, z)).relative()
            <= ROUNDS_AT_A_SOLUTION
        {
            w_known = true;
            break Outcome::Solved;
        }
        if rounds >= options.max_friction_rounds {
            break Outcome::PivotLimit;
        }
        // Full steps while the bounds settle; half steps once they stop shrinking fast (an
        // oscillation), which a Krasnoselskii-Mann iteration damps.
        damped |= change > 0.7 * last_change;
        if damped && change > STALL_RATIO * last_change {
            stalls += 1;
            if guarded && stalls >= 2 {
                break Outcome::PivotLimit;
            }
        } else {
            stalls = 0;
        }
        last_change = change;
        relax_normals(zbar, z, if damped { 0.5 } else { 1.0 });
    };
    // Guarded rounds that did not settle: their last index sets, pivoted to those of a fixed
    // point (a few linear systems), before the guard behind takes the problem.
    let outcome = match outcome {
        Outcome::PivotLimit | Outcome::Singular if guarded && has_friction && has_state => {
            match index_set_pivoting(problem, z, last_state, INDEX_SET_STEPS, fixed) {
                Some(s) => {
                    *z = s.z;
                    *w = s.w;
                    w_known = true;
                    Outcome::Solved
                }
                None => outcome,
            }
        }
        _ => outcome,
    };
    if !w_known {
        problem.w_into(z, w);
    }
    effective_bounds_into(&problem.lo, &problem.hi, &problem.friction, z, lo, hi);
    let residuals = Residuals::compute(z, w, lo, hi, w_scale(&problem.m, &problem.q, z));
    // Rounding on a rank-deficient clamped set can end the drive on a point that is not a
    // solution: never call that solved.
    let outcome = if outcome == Outcome::Solved && residuals.relative() > SOLVED_RESIDUAL {
        Outcome::Singular
    } else {
        outcome
    };
    Counts {
        outcome,
        pivots,
        rounds,
        residuals,
    }
}

/// Move the normal values behind the friction bounds a fraction omega towards the new solution.
fn relax_normals(zbar: &mut [f64], z: &[f64], omega: f64) {
    for (b, &x) in zbar.iter_mut().zip(z) {
        *b += omega * (x - *b);
    }
}

/// The largest change of a friction bound between two iterates (the bounds in force at each,
/// compared row by row without building them).
fn bounds_change(p: &DenseProblem, a: &[f64], b: &[f64]) -> f64 {
    (0..a.len())
        .filter_map(|i| p.friction[i].map(|j| (i, j)))
        .map(|(i, j)| {
            let (sa, sb) = (a[j].max(0.0), b[j].max(0.0));
            let (la, ha) = (p.lo[i] * sa, p.hi[i] * sa);
            let (lb, hb) = (p.lo[i] * sb, p.hi[i] * sb);
            (la - lb).abs().max((ha - hb).abs())
        })
        .fold(0.0, f64::max)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lcp::sample::{SampleSpec, liquid_on_boxes};

    /// One workspace reused across problems of different sizes, cold and warm-started, gives
    /// bit for bit what a fresh one gives: z, w, the states, the outcome and the pivots (no
    /// stale buffer leaks into a solve).
    #[test]
    fn a_reused_workspace_solves_as_a_fresh_one() {
        let mut work = DantzigWork::default();
        let options = Options::default();
        let (mut warm_fixed_points, mut solved) = (0, 0);
        for seed in 0..12u64 {
            let p = liquid_on_boxes(&SampleSpec {
                liquid_contacts: 10 + (seed as usize * 7) % 30,
                bodies: 1 + seed as usize % 3,
                rigid_contacts: 1 + seed as usize % 4,
                friction: true,
                shared_particles: seed as usize % 3,
                seed,
            })
            .to_dense();
            let (fresh, next) = dantzig_warm(&p, &options, None, None, false);
            let c = dantzig_warm_in(&mut work, &p, &options, None, None, false);
            assert_eq!(c.outcome, fresh.outcome, "seed {seed}");
            assert_eq!(c.pivots, fresh.pivots, "seed {seed}");
            assert_eq!(work.z, fresh.z, "seed {seed}");
            assert_eq!(work.w, fresh.w, "seed {seed}");
            assert_eq!(work.state, next.1, "seed {seed}");
            solved += usize::from(fresh.outcome == Outcome::Solved);
            // Warm-started from the solution: the fixed point settles it at once.
            let (again, _) = dantzig_warm(&p, &options, Some(&next), None, false);
            let warm = Some((next.0.as_slice(), next.1.as_slice()));
            let c = dantzig_warm_in(&mut work, &p, &options, warm, None, false);
            assert_eq!(c.outcome, again.outcome, "seed {seed}");
            assert_eq!(work.z, again.z, "seed {seed}");
            assert_eq!(work.w, again.w, "seed {seed}");
            warm_fixed_points += usize::from(c.rounds == 0);
        }
        assert!(solved >= 10, "{solved} solved");
        assert!(
            warm_fixed_points >= 5,
            "{warm_fixed_points} warm fixed points"
        );
    }
}
