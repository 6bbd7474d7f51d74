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
use super::boxed::boxed_fixed;
use super::dantzig::dantzig_guarded;
use super::matrix::{Cholesky, DenseMatrix, dot, dot6, six};
use super::options::Options;
use super::problem::effective_bounds_into;
use super::solution::{Outcome, Residuals, Solution};
use super::structured::{StructuredProblem, StructuredScratch};
use model::{Model, SubSolve};

mod model;

/// Above this many rows a failed block-pivoting solve is not retried by dense pivoting.
const DENSE_FALLBACK_ROWS: usize = 3000;

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
            // The guard of last resort: single-index pivoting on the densified problem.
            let dense = dantzig_guarded(&problem.to_dense(), options);
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

impl<'a> BlockPivot<'a> {
    /// The solver's description of `p`, in the buffers of `parts` and `s`.
    fn new(p: &'a StructuredProblem, parts: Parts, s: &mut Scratch) -> Self {
        let Parts {
            mut minv,
            mut liq,
            mut exact,
            mut particle_groups,
            mut local_friction,
        } = parts;
        let nb = p.body_inv_mass.len();
        minv.clear();
        for w in &p.body_inv_mass {
            s.m6.set_row_major(6, 6, w);
            assert!(s.ch6.refactor(&s.m6, 1e-13), "validated positive definite");
            let mut out = [0.0; 36];
            for c in 0..6 {
                let mut e = [0.0; 6];
                e[c] = 1.0;
                s.ch6.solve_in_place(&mut e);
                for r in 0..6 {
                    out[r * 6 + c] = e[r];
                }
            }
            minv.push(out);
        }
        let count = &mut s.count;
        count.clear();
        count.resize(p.particle_inv_mass.len(), 0);
        for r in &p.rows {
            if let Some(t) = &r.particle {
                count[t.particle] += 1;
            }
        }
        let is_friction_target = &mut s.is_friction_target;
        is_friction_target.clear();
        is_friction_target.resize(p.len(), false);
        for r in &p.rows {
            if let Some(j) = r.friction {
                is_friction_target[j] = true;
            }
        }
        // Liquid rows in the order single-body rows body by body, then two-body rows, then rows
        // on no dynamic body, so that the model sums each body's rows in one run.
        let key = &mut s.key;
        key.clear();
        key.resize(p.len(), usize::MAX);
        exact.clear();
        for (i, r) in p.rows.iter().enumerate() {
            let liquid = r
                .particle
                .as_ref()
                .is_some_and(|t| count[t.particle] == 1 && dot(&t.n, &t.n) > 0.0)
                && r.lo == 0.0
                && r.hi == f64::INFINITY
                && r.friction.is_none()
                && !is_friction_target[i];
            if !liquid {
                exact.push(i);
                continue;
            }
            key[i] = match r.bodies {
                [Some(t), None] | [None, Some(t)] => t.body,
                [Some(_), Some(_)] => nb,
                [None, None] => nb + 1,
            };
        }
        let start = &mut s.start;
        start.clear();
        start.resize(nb + 3, 0);
        for &k in key.iter().filter(|&&k| k != usize::MAX) {
            start[k + 1] += 1;
        }
        for k in 0..nb + 2 {
            start[k + 1] += start[k];
        }
        liq.single.clear();
        liq.single.extend((0..nb).map(|b| start[b]..start[b + 1]));
        liq.two_body = start[nb]..start[nb + 1];
        let nl = start[nb + 2];
        let order = &mut s.order;
        order.clear();
        order.resize(nl, 0);
        let next = &mut s.next;
        next.clear();
        next.extend_from_slice(start);
        for (i, &k) in key.iter().enumerate().filter(|(_, k)| **k != usize::MAX) {
            order[next[k]] = i;
            next[k] += 1;
        }
        liq.row.clear();
        liq.nb.clear();
        liq.body.clear();
        liq.j.clear();
        liq.d.clear();
        liq.inv_d.clear();
        liq.q.clear();
        for &i in order.iter() {
            let r = &p.rows[i];
            let t = r.particle.as_ref().expect("liquid row");
            let mut js = [0.0; 12];
            let mut bs = [0usize; 2];
            let mut k = 0;
            for bt in r.body_terms() {
                bs[k] = bt.body;
                js[6 * k..6 * k + 6].copy_from_slice(&bt.j);
                k += 1;
            }
            let d = dot(&t.n, &t.n) * p.particle_inv_mass[t.particle];
            liq.row.push(i);
            liq.nb.push(k as u8);
            liq.body.push(bs);
            liq.j.push(js);
            liq.d.push(d);
            liq.inv_d.push(1.0 / d);
            liq.q.push(r.q);
        }
        let group_of = &mut s.group_of;
        group_of.clear();
        group_of.resize(p.particle_inv_mass.len(), usize::MAX);
        let mut groups = 0;
        for (a, &i) in exact.iter().enumerate() {
            if let Some(t) = &p.rows[i].particle {
                if group_of[t.particle] == usize::MAX {
                    group_of[t.particle] = groups;
                    if groups == particle_groups.len() {
                        particle_groups.push(Vec::new());
                    }
                    particle_groups[groups].clear();
                    groups += 1;
                }
                particle_groups[group_of[t.particle]].push(a);
            }
        }
        let pos = &mut s.pos;
        pos.clear();
        pos.resize(p.len(), usize::MAX);
        for (a, &i) in exact.iter().enumerate() {
            pos[i] = a;
        }
        local_friction.clear();
        local_friction.extend(exact.iter().map(|&i| p.rows[i].friction.map(|j| pos[j])));
        BlockPivot {
            p,
            dim: 6 * nb,
            minv,
            liq,
            exact,
            particle_groups,
            groups,
            local_friction,
        }
    }

    /// The buffers, for the next problem.
    fn into_parts(self) -> Parts {
        Parts {
            minv: self.minv,
            liq: self.liq,
            exact: self.exact,
            particle_groups: self.particle_groups,
            local_friction: self.local_friction,
        }
    }

    /// The exact rows that share a liquid particle, one list a particle.
    fn groups(&self) -> &[Vec<usize>] {
        &self.particle_groups[..self.groups]
    }

    /// `D_ab` between exact rows a and b (positions among them): `n_a.n_b / m` on a shared
    /// particle, else 0.
    fn d_entry(&self, a: usize, b: usize) -> f64 {
        let (ra, rb) = (&self.p.rows[self.exact[a]], &self.p.rows[self.exact[b]]);
        match (&ra.particle, &rb.particle) {
            (Some(pa), Some(pb)) if pa.particle == pb.particle => {
                dot(&pa.n, &pb.n) * self.p.particle_inv_mass[pa.particle]
            }
            _ => 0.0,
        }
    }

    /// `J_i f` for liquid row l.
    fn jl_f(&self, l: usize, f: &[f64]) -> f64 {
        let mut s = 0.0;
        for k in 0..self.liq.nb[l] as usize {
            let b = self.liq.body[l][k];
            s += dot6(six(&self.liq.j[l], 6 * k), six(f, 6 * b));
        }
        s
    }

    /// `J_r f` for problem row i.
    fn j_f(&self, i: usize, f: &[f64]) -> f64 {
        self.p.rows[i]
            .body_terms()
            .map(|t| dot6(&t.j, six(f, 6 * t.body)))
            .sum()
    }

    /// Liquid v = J f + q into `v`.
    fn liquid_v(&self, f: &[f64], v: &mut [f64]) {
        v.copy_from_slice(&self.liq.q);
        for (b, run) in self.liq.single.iter().enumerate() {
            let fb = six(f, 6 * b);
            for l in run.clone() {
                v[l] += dot6(six(&self.liq.j[l], 0), fb);
            }
        }
        for l in self.liq.two_body.clone() {
            v[l] += self.jl_f(l, f);
        }
    }

    /// `f^T W^-1 f`.
    fn kinetic(&self, f: &[f64]) -> f64 {
        let mut s = 0.0;
        for (b, m) in self.minv.iter().enumerate() {
            let fb = &f[6 * b..6 * b + 6];
            for r in 0..6 {
                s += fb[r] * dot(&m[r * 6..r * 6 + 6], fb);
            }
        }
        s
    }

    /// The exact rows' part of the dual, `sum h_r(v_r)` at f, for fixed bounds (`lo`, `hi` by
    /// position among the exact rows). Rows with an infinite bound contribute 0 (every iterate
    /// after the first keeps them feasible).
    fn exact_value(&self, f: &[f64], lo: &[f64], hi: &[f64]) -> f64 {
        let mut total = 0.0;
        for (a, &i) in self.exact.iter().enumerate() {
            if self.p.rows[i].particle.is_none() {
                let v = self.j_f(i, f) + self.p.rows[i].q;
                let b = if v > 0.0 { lo[a] } else { hi[a] };
                if b.is_finite() {
                    total += b * v;
                }
            }
        }
        // Rows on a particle: min over the box of z^T D z / 2 + v^T z for each particle's rows.
        for members in self.groups() {
            let k = members.len();
            let mut dm = DenseMatrix::zeros(k, k);
            let mut v = vec![0.0; k];
            let (mut l, mut h) = (vec![0.0; k], vec![0.0; k]);
            for (x, &c) in members.iter().enumerate() {
                let ic = self.exact[c];
                v[x] = self.j_f(ic, f) + self.p.rows[ic].q;
                l[x] = lo[c];
                h[x] = hi[c];
                for (y, &e) in members.iter().enumerate() {
                    dm[(x, y)] = self.d_entry(c, e);
                }
            }
            let mut piv = 0;
            let (z, out) = boxed_fixed(&dm, &v, &l, &h, 1e-12, 1000, &mut piv);
            if out != Outcome::Solved {
                return f64::NEG_INFINITY;
            }
            let dz = dm.mul_vec(&z);
            total += 0.5 * dot(&z, &dz) + dot(&v, &z);
        }
        total
    }

    /// The dual objective at f, given the liquid rows' v there.
    fn psi(&self, f: &[f64], v: &[f64], lo: &[f64], hi: &[f64]) -> f64 {
        let mut s = -0.5 * self.kinetic(f);
        for (&vl, &inv_d) in v.iter().zip(&self.liq.inv_d) {
            let a = vl.min(0.0);
            s -= 0.5 * a * a * inv_d;
        }
        s + self.exact_value(f, lo, hi)
    }

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

    /// Backtracking on the dual from f (liquid v there: `v`) towards f* (`vstar`): the
    /// largest `t = 2^-k` with `Psi(f + t d) >= Psi(f) + 1e-4 t Delta`,
    /// `Delta = grad_s . d + h(f*) - h(f)` (proximal Newton's sufficient increase). None if t
    /// falls below 1e-12. `buffers` hold the direction, the gradient and the trial point.
    fn line_search(
        &self,
        f: &[f64],
        v: &[f64],
        fstar: &[f64],
        vstar: &[f64],
        (lo, hi): (&[f64], &[f64]),
        buffers: &mut [Vec<f64>; 4],
    ) -> Option<f64> {
        let [d, grad, vt, ft] = buffers;
        d.clear();
        d.extend(fstar.iter().zip(f).map(|(a, b)| a - b));
        let psi0 = self.psi(f, v, lo, hi);
        grad.clear();
        grad.resize(self.dim, 0.0);
        for (l, &vl) in v.iter().enumerate() {
            if vl < 0.0 {
                let zl = -vl / self.liq.d[l];
                for k in 0..self.liq.nb[l] as usize {
                    let b = self.liq.body[l][k];
                    for c in 0..6 {
                        grad[6 * b + c] += self.liq.j[l][6 * k + c] * zl;
                    }
                }
            }
        }
        for (b, m) in self.minv.iter().enumerate() {
            for r in 0..6 {
                grad[6 * b + r] -= dot(&m[r * 6..r * 6 + 6], &f[6 * b..6 * b + 6]);
            }
        }
        let h0 = self.exact_value(f, lo, hi);
        let h1 = self.exact_value(fstar, lo, hi);
        let delta = (dot(grad, d) + h1 - h0).max(0.0);
        let slack = 1e-12 * (psi0.abs() + self.kinetic(f).abs());
        if self.psi(fstar, vstar, lo, hi) >= psi0 + 1e-4 * delta - slack {
            return Some(1.0);
        }
        vt.clear();
        vt.resize(v.len(), 0.0);
        let mut t = 0.5;
        loop {
            ft.clear();
            ft.extend(f.iter().zip(d.iter()).map(|(a, b)| a + t * b));
            self.liquid_v(ft, vt);
            if self.psi(ft, vt, lo, hi) >= psi0 + 1e-4 * t * delta - slack {
                return Some(t);
            }
            t *= 0.5;
            if t < 1e-12 {
                return None;
            }
        }
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
    sol.outcome = outcome.judged(&residuals);
    sol.pivots = pivots;
    sol.iterations = iterations;
    sol.residuals = residuals;
}
