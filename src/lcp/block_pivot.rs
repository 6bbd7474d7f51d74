//! The block-pivoting solver, the fast exact solver for the structured form: block principal
//! pivoting on the 6B body-velocity unknowns, with the Dantzig rows solved exactly inside every step.
//!
//! With `f = W J^T z`, a liquid row on a particle with no other row has
//! `z_i = max(0, -v_i / D_ii)`, `v_i = J_i f + q_i`. Every other row ("exact rows": body/body,
//! walls, friction, joints, particles with several rows) goes to Dantzig on its Schur
//! complement `S = D_RR + J_R H^-1 J_R^T`, where `H = W^-1 + J_A^T D_A^-1 J_A` over the active
//! liquid rows A. The step is a proximal Newton step on the concave dual
//! `Psi(f) = -f^T W^-1 f / 2 + sum_L psi_i(v_i) + sum_R h_r(v_r)`, guarded by a backtracking
//! line search on Psi; the solve ends, exactly complementary, once a full step leaves the
//! active set unchanged. Friction bounds that follow a normal row live among the exact rows
//! and are made consistent inside the Dantzig sub-solve. A solve that still fails is retried
//! by dense Dantzig pivoting when the problem is small enough to densify.
use super::dantzig::dantzig_guarded;
use super::matrix::{Cholesky, DenseMatrix};
use super::options::Options;
use super::pgs::{self, PgsWork, pgs_into};
use super::problem::effective_bounds_into;
use super::solution::{Outcome, Residuals, SOLVED_RESIDUAL, Solution};
use super::structured::{StructuredProblem, StructuredScratch};
use model::{Model, SubSolve};

mod dual;
mod islands;
mod layout;
mod model;

/// Above this many rows a failed block-pivoting solve is not retried by dense pivoting (whose
/// pivots cost the square of the rows each): the last resort takes it.
const DENSE_FALLBACK_ROWS: usize = 600;

/// Solve a structured LCP exactly by block pivoting. Errors only on malformed problems.
pub fn block_pivot(problem: &StructuredProblem, options: &Options) -> crate::Result<Solution> {
    let mut solver = BlockPivotSolver::default();
    solver.solve(problem, options)?;
    Ok(solver.solution)
}

/// The block-pivoting solver with its buffers, kept between solves (the coupling keeps one), so
/// that a solve allocates only where a problem outgrows the largest one before it.
#[derive(Debug, Clone)]
pub struct BlockPivotSolver {
    parts: Parts,
    scratch: Scratch,
    solution: Solution,
    /// The last resort's buffers and its z.
    pgs: (PgsWork, Vec<f64>),
}

impl Default for BlockPivotSolver {
    fn default() -> Self {
        Self {
            parts: Parts::default(),
            scratch: Scratch::default(),
            solution: Solution {
                outcome: Outcome::Solved,
                z: Vec::new(),
                w: Vec::new(),
                pivots: 0,
                iterations: 0,
                residuals: Residuals::default(),
            },
            pgs: Default::default(),
        }
    }
}

impl BlockPivotSolver {
    /// Solve a structured LCP exactly by block pivoting (as [`block_pivot`]); the solution
    /// lives until the next solve. Errors only on malformed problems.
    pub fn solve(
        &mut self,
        problem: &StructuredProblem,
        options: &Options,
    ) -> crate::Result<&Solution> {
        problem
            .validate_with(&mut self.scratch.structured)
            .map_err(crate::Error::Input)?;
        let bp = BlockPivot::new(problem, std::mem::take(&mut self.parts), &mut self.scratch);
        bp.solve(options, &mut self.scratch, &mut self.solution);
        self.parts = bp.into_parts();
        let sol = &mut self.solution;
        if sol.outcome != Outcome::Solved && problem.len() <= DENSE_FALLBACK_ROWS {
            // The guard of last resort: single-index pivoting on the densified problem, with
            // a drive and friction rounds short enough that a problem it cannot finish costs
            // little before the last resort takes it.
            let n = problem.len();
            let short = Options {
                pivot_limit: Some(options.pivot_limit_for(n).min(10 * n + 100)),
                max_friction_rounds: options.max_friction_rounds.min(60),
                ..options.clone()
            };
            let dense = dantzig_guarded(&problem.to_dense(), &short);
            if dense.outcome == Outcome::Solved {
                sol.z = dense.z;
                finish(
                    problem,
                    Outcome::Solved,
                    sol.pivots + dense.pivots,
                    sol.iterations,
                    &mut self.scratch,
                    sol,
                );
            }
        }
        if sol.outcome != Outcome::Solved {
            // The last resort: projected Gauss-Seidel from the pivoting's point, kept if it
            // comes closer to a solution (it may even meet the tolerance).
            let (work, z) = &mut self.pgs;
            z.clone_from(&sol.z);
            let sweeps = pgs_into(problem, z, pgs::MAX_SWEEPS, 1e-15, work);
            let before = sol.clone();
            std::mem::swap(&mut sol.z, z);
            let (pivots, iterations) = (sol.pivots, sol.iterations + sweeps);
            finish(
                problem,
                before.outcome,
                pivots,
                iterations,
                &mut self.scratch,
                sol,
            );
            if sol.residuals.relative() >= before.residuals.relative() {
                *sol = before;
            }
        }
        Ok(&self.solution)
    }
}

/// Liquid rows in flat arrays: the problem row, the number of bodies, the bodies, their
/// Jacobian rows, `D_ii` and its inverse, and q.
#[derive(Debug, Clone, Default)]
struct Liquid {
    row: Vec<usize>,
    nb: Vec<u8>,
    body: Vec<[usize; 2]>,
    j: Vec<[f64; 12]>,
    d: Vec<f64>,
    inv_d: Vec<f64>,
    q: Vec<f64>,
    /// The runs of rows on one body, body by body.
    single: Vec<std::ops::Range<usize>>,
    /// The run of rows on two bodies.
    two_body: std::ops::Range<usize>,
}

/// A solver's description of one problem, kept between solves for its buffers.
#[derive(Debug, Clone, Default)]
struct Parts {
    minv: Vec<[f64; 36]>,
    liq: Liquid,
    exact: Vec<usize>,
    particle_groups: Vec<Vec<usize>>,
    local_friction: Vec<Option<usize>>,
}

/// A solve's scratch buffers, kept between solves.
#[derive(Debug, Clone)]
struct Scratch {
    structured: StructuredScratch,
    m6: DenseMatrix,
    ch6: Cholesky,
    count: Vec<usize>,
    is_friction_target: Vec<bool>,
    key: Vec<usize>,
    start: Vec<usize>,
    next: Vec<usize>,
    order: Vec<usize>,
    group_of: Vec<usize>,
    pos: Vec<usize>,
    lo0: Vec<f64>,
    hi0: Vec<f64>,
    lo: Vec<f64>,
    hi: Vec<f64>,
    f: Vec<f64>,
    v: Vec<f64>,
    vt: Vec<f64>,
    zr: Vec<f64>,
    active: Vec<bool>,
    /// The liquid active sets models were built on, one after the other.
    visited: Vec<bool>,
    /// The model of the current active set.
    model: Model,
    /// The model's maximiser f*.
    fstar: Vec<f64>,
    /// The exact rows' sub-solves.
    sub: SubSolve,
    /// The line search's direction, gradient, and trial point with its liquid v.
    search: [Vec<f64>; 4],
}

impl Default for Scratch {
    fn default() -> Self {
        Self {
            structured: StructuredScratch::default(),
            m6: DenseMatrix::zeros(0, 0),
            ch6: Cholesky::empty(),
            count: Vec::new(),
            is_friction_target: Vec::new(),
            key: Vec::new(),
            start: Vec::new(),
            next: Vec::new(),
            order: Vec::new(),
            group_of: Vec::new(),
            pos: Vec::new(),
            lo0: Vec::new(),
            hi0: Vec::new(),
            lo: Vec::new(),
            hi: Vec::new(),
            f: Vec::new(),
            v: Vec::new(),
            vt: Vec::new(),
            zr: Vec::new(),
            active: Vec::new(),
            visited: Vec::new(),
            model: Model::default(),
            fstar: Vec::new(),
            sub: SubSolve::default(),
            search: Default::default(),
        }
    }
}

/// One problem laid out for the solve ([`layout`]), its dual ([`dual`]) and its models
/// ([`model`]).
struct BlockPivot<'a> {
    p: &'a StructuredProblem,
    dim: usize,
    /// blockdiag(W_b^-1).
    minv: Vec<[f64; 36]>,
    liq: Liquid,
    /// Exact rows (indices into the problem).
    exact: Vec<usize>,
    /// Exact rows (positions among them) that share a liquid particle, one list a particle:
    /// D is non-zero only within these (the first `groups` lists; the rest are spare).
    particle_groups: Vec<Vec<usize>>,
    groups: usize,
    /// For each exact row, the exact-row position of its friction normal (friction normals are
    /// always exact rows), so friction is solved inside the small Dantzig problem.
    local_friction: Vec<Option<usize>>,
}

impl BlockPivot<'_> {
    /// Solve into `sol`, with the buffers of `s`.
    fn solve(&self, options: &Options, s: &mut Scratch, sol: &mut Solution) {
        let n = self.p.len();
        let ne = self.exact.len();
        // The exact rows' own bounds (coefficients for friction rows).
        s.lo0.clear();
        s.lo0.extend(self.exact.iter().map(|&i| self.p.rows[i].lo));
        s.hi0.clear();
        s.hi0.extend(self.exact.iter().map(|&i| self.p.rows[i].hi));
        let has_friction = self.local_friction.iter().any(Option::is_some);
        // At f = 0 the liquid rows' v is their q.
        let (f, v, vt, zr) = (&mut s.f, &mut s.v, &mut s.vt, &mut s.zr);
        f.clear();
        f.resize(self.dim, 0.0);
        v.clear();
        v.extend_from_slice(&self.liq.q);
        vt.clear();
        vt.resize(v.len(), 0.0);
        zr.clear();
        zr.resize(ne, 0.0);
        let mut pivots = 0;
        let mut iterations = 0;
        // Whether `s.model` holds this solve's model.
        let mut built = false;
        // The exact rows' index sets from the previous step: a warm start for the next.
        s.sub.warm = false;
        // The exact rows' bounds in force (friction rows follow their normal's latest value).
        let (lo, hi) = (&mut s.lo, &mut s.hi);
        effective_bounds_into(&s.lo0, &s.hi0, &self.local_friction, zr, lo, hi);
        // The liquid active sets models were built on (kept only with friction), one after
        // the other.
        let nl = v.len();
        s.visited.clear();
        let outcome = loop {
            if iterations >= options.max_block_pivot_steps {
                break Outcome::PivotLimit;
            }
            iterations += 1;
            // Rebuild the model only when the active set has changed.
            let same_model = built && v.iter().zip(&s.model.active).all(|(&x, &a)| (x < 0.0) == a);
            if !same_model {
                // With friction the dual is no merit function and the steps can cycle between
                // active sets; a problem small enough for the dense guard is handed to it.
                if has_friction && self.p.len() <= DENSE_FALLBACK_ROWS {
                    s.active.clear();
                    s.active.extend(v.iter().map(|&x| x < 0.0));
                    let seen = nl > 0 && s.visited.chunks_exact(nl).any(|a| a == s.active)
                        || nl == 0 && !s.visited.is_empty();
                    if seen {
                        break Outcome::PivotLimit;
                    }
                    s.visited.extend_from_slice(&s.active);
                    if nl == 0 {
                        // The empty set, visited: a marker.
                        s.visited.push(true);
                    }
                }
                match self.build_model(v, &mut s.model) {
                    Ok(()) => built = true,
                    Err(o) => break o,
                }
            }
            let m = &s.model;
            let fstar = &mut s.fstar;
            if let Err(o) = self.model_step(m, lo, hi, options, &mut pivots, &mut s.sub, fstar) {
                break o;
            }
            let zrs = &s.sub.z;
            if has_friction {
                effective_bounds_into(&s.lo0, &s.hi0, &self.local_friction, zrs, lo, hi);
            }
            // A full step that keeps the active set is the exact solution: take it.
            self.liquid_v(fstar, vt);
            let repeats = vt.iter().zip(&m.active).all(|(&x, &a)| (x < 0.0) == a);
            let t = if iterations == 1 || repeats {
                1.0
            } else {
                match self.line_search(f, v, fstar, vt, (lo, hi), &mut s.search) {
                    Some(t) => t,
                    None => break Outcome::Singular,
                }
            };
            zr.clear();
            zr.extend_from_slice(zrs);
            if t == 1.0 {
                // vt holds v at f*.
                std::mem::swap(f, fstar);
                std::mem::swap(v, vt);
            } else {
                for (fk, sk) in f.iter_mut().zip(fstar.iter()) {
                    *fk += t * (sk - *fk);
                }
                self.liquid_v(f, v);
            }
            if repeats {
                break Outcome::Solved;
            }
        };
        let z = &mut sol.z;
        z.clear();
        z.resize(n, 0.0);
        for (l, &vl) in v.iter().enumerate() {
            z[self.liq.row[l]] = (-vl / self.liq.d[l]).max(0.0);
        }
        for (a, &i) in self.exact.iter().enumerate() {
            z[i] = zr[a];
        }
        finish(self.p, outcome, pivots, iterations, s, sol);
    }
}

/// Finish the solution whose z is `sol.z`: w recomputed structurally from z, residuals against
/// the bounds in force (with the buffers of `s`).
fn finish(
    p: &StructuredProblem,
    outcome: Outcome,
    pivots: usize,
    iterations: usize,
    s: &mut Scratch,
    sol: &mut Solution,
) {
    p.w_into(&sol.z, &mut s.structured, &mut sol.w);
    p.columns_into(&mut s.structured);
    let st = &s.structured;
    effective_bounds_into(&st.lo, &st.hi, &st.fr, &sol.z, &mut s.lo, &mut s.hi);
    // Scale of w: the larger of |q| and |A z|.
    let scale = p
        .rows
        .iter()
        .zip(&sol.w)
        .fold(0.0f64, |s, (r, &wi)| s.max(r.q.abs()).max((wi - r.q).abs()));
    let residuals = Residuals::compute(&sol.z, &sol.w, &s.lo, &s.hi, scale);
    // A drive that ended on a point its residuals reject solved nothing.
    let outcome = if outcome == Outcome::Solved && residuals.relative() > SOLVED_RESIDUAL {
        Outcome::Singular
    } else {
        outcome
    };
    sol.outcome = outcome.judged(&residuals);
    sol.pivots = pivots;
    sol.iterations = iterations;
    sol.residuals = residuals;
}
