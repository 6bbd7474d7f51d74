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
use super::dantzig::{Warm, dantzig_guarded};
use super::matrix::{Cholesky, DenseMatrix, dot, dot6, six};
use super::options::Options;
use super::problem::effective_bounds;
use super::solution::{Outcome, Residuals, Solution};
use super::structured::StructuredProblem;
use model::Model;
use std::collections::HashSet;

mod model;

/// Above this many rows a failed block-pivoting solve is not retried by dense pivoting.
const DENSE_FALLBACK_ROWS: usize = 3000;

/// Solve a structured LCP exactly by block pivoting. Errors only on malformed problems.
pub fn block_pivot(problem: &StructuredProblem, options: &Options) -> crate::Result<Solution> {
    problem.validate().map_err(crate::Error::Input)?;
    let mut sol = BlockPivot::new(problem).solve(options);
    if sol.outcome != Outcome::Solved && problem.len() <= DENSE_FALLBACK_ROWS {
        // The guard of last resort: single-index pivoting on the densified problem.
        let dense = dantzig_guarded(&problem.to_dense(), options);
        if dense.outcome == Outcome::Solved {
            sol = finish(
                problem,
                dense.z,
                Outcome::Solved,
                sol.pivots + dense.pivots,
                sol.iterations,
            );
        }
    }
    Ok(sol)
}

/// Liquid rows in flat arrays: the problem row, the number of bodies, the bodies, their
/// Jacobian rows, `D_ii` and its inverse, and q.
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

struct BlockPivot<'a> {
    p: &'a StructuredProblem,
    dim: usize,
    /// blockdiag(W_b^-1).
    minv: Vec<[f64; 36]>,
    liq: Liquid,
    /// Exact rows (indices into the problem).
    exact: Vec<usize>,
    /// Exact rows (positions among them) that share a liquid particle, one list a particle:
    /// D is non-zero only within these.
    particle_groups: Vec<Vec<usize>>,
    /// For each exact row, the exact-row position of its friction normal (friction normals are
    /// always exact rows), so friction is solved inside the small Dantzig problem.
    local_friction: Vec<Option<usize>>,
}

impl<'a> BlockPivot<'a> {
    fn new(p: &'a StructuredProblem) -> Self {
        let nb = p.body_inv_mass.len();
        let minv = p
            .body_inv_mass
            .iter()
            .map(|w| {
                let m = DenseMatrix::from_row_major(6, 6, w.to_vec());
                let ch = Cholesky::new(&m, 1e-13).expect("validated positive definite");
                let mut out = [0.0; 36];
                for c in 0..6 {
                    let mut e = [0.0; 6];
                    e[c] = 1.0;
                    ch.solve_in_place(&mut e);
                    for r in 0..6 {
                        out[r * 6 + c] = e[r];
                    }
                }
                out
            })
            .collect();
        let mut count = vec![0usize; p.particle_inv_mass.len()];
        for r in &p.rows {
            if let Some(t) = &r.particle {
                count[t.particle] += 1;
            }
        }
        let is_friction_target: Vec<bool> = {
            let mut v = vec![false; p.len()];
            for r in &p.rows {
                if let Some(j) = r.friction {
                    v[j] = true;
                }
            }
            v
        };
        // Liquid rows in the order single-body rows body by body, then two-body rows, then rows
        // on no dynamic body, so that the model sums each body's rows in one run.
        let mut key = vec![usize::MAX; p.len()];
        let mut exact = vec![];
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
        let mut start = vec![0usize; nb + 3];
        for &k in key.iter().filter(|&&k| k != usize::MAX) {
            start[k + 1] += 1;
        }
        for k in 0..nb + 2 {
            start[k + 1] += start[k];
        }
        let single = (0..nb).map(|b| start[b]..start[b + 1]).collect();
        let two_body = start[nb]..start[nb + 1];
        let nl = start[nb + 2];
        let mut order = vec![0usize; nl];
        let mut next = start.clone();
        for (i, &k) in key.iter().enumerate().filter(|(_, k)| **k != usize::MAX) {
            order[next[k]] = i;
            next[k] += 1;
        }
        let mut liq = Liquid {
            row: Vec::with_capacity(nl),
            nb: Vec::with_capacity(nl),
            body: Vec::with_capacity(nl),
            j: Vec::with_capacity(nl),
            d: Vec::with_capacity(nl),
            inv_d: Vec::with_capacity(nl),
            q: Vec::with_capacity(nl),
            single,
            two_body,
        };
        for i in order {
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
        let mut group_of = vec![usize::MAX; p.particle_inv_mass.len()];
        let mut particle_groups: Vec<Vec<usize>> = Vec::new();
        for (a, &i) in exact.iter().enumerate() {
            if let Some(t) = &p.rows[i].particle {
                if group_of[t.particle] == usize::MAX {
                    group_of[t.particle] = particle_groups.len();
                    particle_groups.push(Vec::new());
                }
                particle_groups[group_of[t.particle]].push(a);
            }
        }
        let mut pos = vec![usize::MAX; p.len()];
        for (a, &i) in exact.iter().enumerate() {
            pos[i] = a;
        }
        let local_friction = exact
            .iter()
            .map(|&i| p.rows[i].friction.map(|j| pos[j]))
            .collect();
        BlockPivot {
            p,
            dim: 6 * nb,
            minv,
            liq,
            exact,
            particle_groups,
            local_friction,
        }
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
        for members in &self.particle_groups {
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

    fn solve(&self, options: &Options) -> Solution {
        let n = self.p.len();
        let ne = self.exact.len();
        // The exact rows' own bounds (coefficients for friction rows).
        let lo0: Vec<f64> = self.exact.iter().map(|&i| self.p.rows[i].lo).collect();
        let hi0: Vec<f64> = self.exact.iter().map(|&i| self.p.rows[i].hi).collect();
        let has_friction = self.local_friction.iter().any(Option::is_some);
        // At f = 0 the liquid rows' v is their q.
        let mut f = vec![0.0; self.dim];
        let mut v = self.liq.q.clone();
        let mut vt = vec![0.0; v.len()];
        let mut zr: Vec<f64> = vec![0.0; ne];
        let mut pivots = 0;
        let mut iterations = 0;
        let mut model: Option<Model> = None;
        // The exact rows' index sets from the previous step: a warm start for the next.
        let mut warm: Option<Warm> = None;
        // The exact rows' bounds in force (friction rows follow their normal's latest value).
        let (mut lo, mut hi) = effective_bounds(&lo0, &hi0, &self.local_friction, &zr);
        // The liquid active sets models were built on (kept only with friction).
        let mut visited: HashSet<Vec<bool>> = HashSet::new();
        let outcome = loop {
            if iterations >= options.max_block_pivot_steps {
                break Outcome::PivotLimit;
            }
            iterations += 1;
            // Rebuild the model only when the active set has changed.
            let same_model = model
                .as_ref()
                .is_some_and(|m| v.iter().zip(&m.active).all(|(&x, &a)| (x < 0.0) == a));
            if !same_model {
                // With friction the dual is no merit function and the steps can cycle between
                // active sets; a problem small enough for the dense guard is handed to it.
                if has_friction && self.p.len() <= DENSE_FALLBACK_ROWS {
                    let active: Vec<bool> = v.iter().map(|&x| x < 0.0).collect();
                    if !visited.insert(active) {
                        break Outcome::PivotLimit;
                    }
                }
                model = match self.build_model(&v) {
                    Ok(m) => Some(m),
                    Err(o) => break o,
                };
            }
            let m = model.as_ref().expect("model built");
            let (fstar, zrs) = match self.model_step(m, &lo, &hi, options, &mut pivots, &mut warm) {
                Ok(x) => x,
                Err(o) => break o,
            };
            if has_friction {
                (lo, hi) = effective_bounds(&lo0, &hi0, &self.local_friction, &zrs);
            }
            // A full step that keeps the active set is the exact solution: take it.
            self.liquid_v(&fstar, &mut vt);
            let repeats = vt.iter().zip(&m.active).all(|(&x, &a)| (x < 0.0) == a);
            let t = if iterations == 1 || repeats {
                1.0
            } else {
                match self.line_search(&f, &v, &fstar, &vt, (&lo, &hi)) {
                    Some(t) => t,
                    None => break Outcome::Singular,
                }
            };
            zr = zrs;
            if t == 1.0 {
                // vt holds v at f*.
                f = fstar;
                std::mem::swap(&mut v, &mut vt);
            } else {
                for (fk, sk) in f.iter_mut().zip(&fstar) {
                    *fk += t * (sk - *fk);
                }
                self.liquid_v(&f, &mut v);
            }
            if repeats {
                break Outcome::Solved;
            }
        };
        let mut z = vec![0.0; n];
        for (l, &vl) in v.iter().enumerate() {
            z[self.liq.row[l]] = (-vl / self.liq.d[l]).max(0.0);
        }
        for (a, &i) in self.exact.iter().enumerate() {
            z[i] = zr[a];
        }
        finish(self.p, z, outcome, pivots, iterations)
    }

    /// Backtracking on the dual from f (liquid v there: `v`) towards f* (`vstar`): the
    /// largest `t = 2^-k` with `Psi(f + t d) >= Psi(f) + 1e-4 t Delta`,
    /// `Delta = grad_s . d + h(f*) - h(f)` (proximal Newton's sufficient increase). None if t
    /// falls below 1e-12.
    fn line_search(
        &self,
        f: &[f64],
        v: &[f64],
        fstar: &[f64],
        vstar: &[f64],
        (lo, hi): (&[f64], &[f64]),
    ) -> Option<f64> {
        let d: Vec<f64> = fstar.iter().zip(f).map(|(a, b)| a - b).collect();
        let psi0 = self.psi(f, v, lo, hi);
        let mut grad = vec![0.0; self.dim];
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
        let delta = (dot(&grad, &d) + h1 - h0).max(0.0);
        let slack = 1e-12 * (psi0.abs() + self.kinetic(f).abs());
        if self.psi(fstar, vstar, lo, hi) >= psi0 + 1e-4 * delta - slack {
            return Some(1.0);
        }
        let mut vt = vec![0.0; v.len()];
        let mut t = 0.5;
        loop {
            let ft: Vec<f64> = f.iter().zip(&d).map(|(a, b)| a + t * b).collect();
            self.liquid_v(&ft, &mut vt);
            if self.psi(&ft, &vt, lo, hi) >= psi0 + 1e-4 * t * delta - slack {
                return Some(t);
            }
            t *= 0.5;
            if t < 1e-12 {
                return None;
            }
        }
    }
}

/// Build the solution: w recomputed structurally from z, residuals against the bounds in force.
fn finish(
    p: &StructuredProblem,
    z: Vec<f64>,
    outcome: Outcome,
    pivots: usize,
    iterations: usize,
) -> Solution {
    let w = p.w(&z);
    let lo0: Vec<f64> = p.rows.iter().map(|r| r.lo).collect();
    let hi0: Vec<f64> = p.rows.iter().map(|r| r.hi).collect();
    let fr: Vec<Option<usize>> = p.rows.iter().map(|r| r.friction).collect();
    let (lo, hi) = effective_bounds(&lo0, &hi0, &fr, &z);
    // Scale of w: the larger of |q| and |A z|.
    let scale = p
        .rows
        .iter()
        .zip(&w)
        .fold(0.0f64, |s, (r, &wi)| s.max(r.q.abs()).max((wi - r.q).abs()));
    let residuals = Residuals::compute(&z, &w, &lo, &hi, scale);
    Solution {
        outcome: outcome.judged(&residuals),
        z,
        w,
        pivots,
        iterations,
        residuals,
    }
}
