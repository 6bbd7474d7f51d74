//! The fast exact solver for the structured form: Newton (block principal pivoting) on the
//! 6B body-velocity unknowns, with the Dantzig rows solved exactly inside every step.
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
use super::boxed::{boxed_fixed, boxed_solve};
use super::dantzig::{Warm, dantzig_unchecked, dantzig_warm};
use super::matrix::{Cholesky, DenseMatrix, dot};
use super::options::Options;
use super::problem::{DenseProblem, effective_bounds};
use super::solution::{Outcome, Residuals, Solution};
use super::structured::StructuredProblem;

/// Above this many rows a failed Newton solve is not retried by dense pivoting.
const DENSE_FALLBACK_ROWS: usize = 3000;

/// Solve a structured LCP exactly. Errors only on malformed problems.
pub fn solve_structured(problem: &StructuredProblem, options: &Options) -> crate::Result<Solution> {
    problem.validate().map_err(crate::Error::Input)?;
    let mut sol = Newton::new(problem).solve(options);
    if sol.outcome != Outcome::Solved && problem.len() <= DENSE_FALLBACK_ROWS {
        // The guard of last resort: single-index pivoting on the densified problem.
        let dense = dantzig_unchecked(&problem.to_dense(), options);
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

/// Liquid rows in flat arrays.
struct Liquid {
    row: Vec<usize>,
    nb: Vec<u8>,
    body: Vec<[usize; 2]>,
    j: Vec<[f64; 12]>,
    d: Vec<f64>,
    q: Vec<f64>,
}

/// A Newton model: the active set it was built for, f0, `Y = H^-1 J_R^T`, S and q_eff.
struct Model {
    active: Vec<bool>,
    f0: Vec<f64>,
    y: Vec<Vec<f64>>,
    s: DenseMatrix,
    qe: Vec<f64>,
}

struct Newton<'a> {
    p: &'a StructuredProblem,
    dim: usize,
    /// blockdiag(W_b^-1).
    minv: Vec<[f64; 36]>,
    liq: Liquid,
    /// Exact rows (indices into the problem).
    exact: Vec<usize>,
    /// D among the exact rows (dense, small).
    d_exact: DenseMatrix,
    /// For each exact row, the exact-row position of its friction normal (friction normals are
    /// always exact rows), so friction is solved inside the small Dantzig problem.
    local_friction: Vec<Option<usize>>,
}

impl<'a> Newton<'a> {
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
        let mut liq = Liquid {
            row: vec![],
            nb: vec![],
            body: vec![],
            j: vec![],
            d: vec![],
            q: vec![],
        };
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
            let t = r.particle.as_ref().expect("liquid row");
            let mut js = [0.0; 12];
            let mut bs = [0usize; 2];
            let mut k = 0;
            for bt in r.body_terms() {
                bs[k] = bt.body;
                js[6 * k..6 * k + 6].copy_from_slice(&bt.j);
                k += 1;
            }
            liq.row.push(i);
            liq.nb.push(k as u8);
            liq.body.push(bs);
            liq.j.push(js);
            liq.d
                .push(dot(&t.n, &t.n) * p.particle_inv_mass[t.particle]);
            liq.q.push(r.q);
        }
        let ne = exact.len();
        let mut d_exact = DenseMatrix::zeros(ne, ne);
        for a in 0..ne {
            for b in 0..ne {
                let (ra, rb) = (&p.rows[exact[a]], &p.rows[exact[b]]);
                if let (Some(pa), Some(pb)) = (&ra.particle, &rb.particle)
                    && pa.particle == pb.particle
                {
                    d_exact[(a, b)] = dot(&pa.n, &pb.n) * p.particle_inv_mass[pa.particle];
                }
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
        Newton {
            p,
            dim: 6 * nb,
            minv,
            liq,
            exact,
            d_exact,
            local_friction,
        }
    }

    /// `J_i f` for liquid row l.
    fn jl_f(&self, l: usize, f: &[f64]) -> f64 {
        let mut s = 0.0;
        for k in 0..self.liq.nb[l] as usize {
            let b = self.liq.body[l][k];
            s += dot(&self.liq.j[l][6 * k..6 * k + 6], &f[6 * b..6 * b + 6]);
        }
        s
    }

    /// `J_r f` for problem row i.
    fn j_f(&self, i: usize, f: &[f64]) -> f64 {
        self.p.rows[i]
            .body_terms()
            .map(|t| dot(&t.j, &f[6 * t.body..6 * t.body + 6]))
            .sum()
    }

    /// Liquid v = J f + q into `v`.
    fn liquid_v(&self, f: &[f64], v: &mut [f64]) {
        for (l, vl) in v.iter_mut().enumerate() {
            *vl = self.jl_f(l, f) + self.liq.q[l];
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

    /// The exact rows' part of the dual, `sum h_r(v_r)` at f, for fixed bounds. Rows with an
    /// infinite bound contribute 0 (every iterate after the first keeps them feasible).
    fn exact_value(&self, f: &[f64], lo: &[f64], hi: &[f64]) -> f64 {
        let ne = self.exact.len();
        let mut total = 0.0;
        let mut grouped = vec![false; ne];
        for a in 0..ne {
            if grouped[a] {
                continue;
            }
            let i = self.exact[a];
            match self.p.rows[i].particle {
                None => {
                    let v = self.j_f(i, f) + self.p.rows[i].q;
                    let b = if v > 0.0 { lo[i] } else { hi[i] };
                    if b.is_finite() {
                        total += b * v;
                    }
                }
                Some(t) => {
                    // min over the box of z^T D z / 2 + v^T z for this particle's rows.
                    let members: Vec<usize> = (a..ne)
                        .filter(|&c| {
                            self.p.rows[self.exact[c]]
                                .particle
                                .is_some_and(|u| u.particle == t.particle)
                        })
                        .collect();
                    let k = members.len();
                    let mut dm = DenseMatrix::zeros(k, k);
                    let mut v = vec![0.0; k];
                    let (mut l, mut h) = (vec![0.0; k], vec![0.0; k]);
                    for (x, &c) in members.iter().enumerate() {
                        grouped[c] = true;
                        let ic = self.exact[c];
                        v[x] = self.j_f(ic, f) + self.p.rows[ic].q;
                        l[x] = lo[ic];
                        h[x] = hi[ic];
                        for (y, &e) in members.iter().enumerate() {
                            dm[(x, y)] = self.d_exact[(c, e)];
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
            }
        }
        total
    }

    /// The dual objective and the liquid v at f.
    fn psi(&self, f: &[f64], v: &mut [f64], lo: &[f64], hi: &[f64]) -> f64 {
        self.liquid_v(f, v);
        let mut s = -0.5 * self.kinetic(f);
        for (l, &vl) in v.iter().enumerate() {
            if vl < 0.0 {
                s -= vl * vl / (2.0 * self.liq.d[l]);
            }
        }
        s + self.exact_value(f, lo, hi)
    }

    /// The Newton model for the active set of `v`: `H = W^-1 + J_A^T D_A^-1 J_A` factored,
    /// `f0 = -H^-1 J_A^T D_A^-1 q_A`, and the exact rows' Schur complement.
    fn build_model(&self, v: &[f64]) -> Result<Model, Outcome> {
        let dim = self.dim;
        let nbod = self.minv.len();
        // Single-body rows accumulate into per-body 6x6 blocks; two-body rows go to H directly.
        let mut blocks = vec![[0.0f64; 36]; nbod];
        let mut h = DenseMatrix::zeros(dim, dim);
        let mut g = vec![0.0; dim];
        for (l, &vl) in v.iter().enumerate() {
            if vl >= 0.0 {
                continue;
            }
            let inv_d = 1.0 / self.liq.d[l];
            let nb = self.liq.nb[l] as usize;
            let j = &self.liq.j[l];
            let q = self.liq.q[l];
            if nb == 1 {
                let b = self.liq.body[l][0];
                let blk = &mut blocks[b];
                for r in 0..6 {
                    let jr = j[r] * inv_d;
                    g[6 * b + r] -= jr * q;
                    for c in 0..6 {
                        blk[r * 6 + c] += jr * j[c];
                    }
                }
                continue;
            }
            for a in 0..nb {
                let ba = self.liq.body[l][a];
                for r in 0..6 {
                    let jr = j[6 * a + r] * inv_d;
                    g[6 * ba + r] -= jr * q;
                    for c in 0..nb {
                        let bc = self.liq.body[l][c];
                        let row = h.row_mut(6 * ba + r);
                        for s in 0..6 {
                            row[6 * bc + s] += jr * j[6 * c + s];
                        }
                    }
                }
            }
        }
        for (b, m) in self.minv.iter().enumerate() {
            for r in 0..6 {
                for c in 0..6 {
                    h[(6 * b + r, 6 * b + c)] += m[r * 6 + c] + blocks[b][r * 6 + c];
                }
            }
        }
        let Some(ch) = Cholesky::new(&h, 1e-14) else {
            return Err(Outcome::Singular);
        };
        let mut f0 = g;
        ch.solve_in_place(&mut f0);
        let ne = self.exact.len();
        // Y = H^-1 J_R^T, S = D_RR + J_R Y, q_eff = q_R + J_R f0.
        let mut y = vec![vec![0.0; dim]; ne];
        for (a, &i) in self.exact.iter().enumerate() {
            for t in self.p.rows[i].body_terms() {
                y[a][6 * t.body..6 * t.body + 6].copy_from_slice(&t.j);
            }
            ch.solve_in_place(&mut y[a]);
        }
        // S = D_RR + J_R Y from each row's body terms (one or two 6-blocks), so an entry costs
        // 6 or 12 products; S is symmetric, so only its upper triangle is computed.
        let terms: Vec<Vec<(usize, [f64; 6])>> = self
            .exact
            .iter()
            .map(|&i| {
                self.p.rows[i]
                    .body_terms()
                    .map(|t| (6 * t.body, t.j))
                    .collect()
            })
            .collect();
        let jr_dot = |a: usize, x: &[f64]| -> f64 {
            terms[a].iter().map(|(o, j)| dot(j, &x[*o..*o + 6])).sum()
        };
        let mut s = self.d_exact.clone();
        let mut qe = vec![0.0; ne];
        for a in 0..ne {
            qe[a] = self.p.rows[self.exact[a]].q + jr_dot(a, &f0);
            for b in a..ne {
                let v = jr_dot(a, &y[b]);
                s[(a, b)] += v;
                if b != a {
                    s[(b, a)] += v;
                }
            }
        }
        Ok(Model {
            active: v.iter().map(|&x| x < 0.0).collect(),
            f0,
            y,
            s,
            qe,
        })
    }

    /// The maximiser of a model for these bounds: f* and the exact rows' z, or the Dantzig
    /// sub-solve's failure.
    fn model_step(
        &self,
        model: &Model,
        lo: &[f64],
        hi: &[f64],
        options: &Options,
        pivots: &mut usize,
        warm: &mut Option<Warm>,
    ) -> Result<(Vec<f64>, Vec<f64>), Outcome> {
        let ne = self.exact.len();
        if ne == 0 {
            return Ok((model.f0.clone(), vec![]));
        }
        let (zr, out) = if self.local_friction.iter().any(Option::is_some) {
            // Friction bounds follow their normals: solved exactly in the small problem, with
            // the rows' own coefficients.
            let sub = DenseProblem {
                m: model.s.clone(),
                q: model.qe.clone(),
                lo: self.exact.iter().map(|&i| self.p.rows[i].lo).collect(),
                hi: self.exact.iter().map(|&i| self.p.rows[i].hi).collect(),
                friction: self.local_friction.clone(),
            };
            let (sol, next) = dantzig_warm(&sub, options, warm.as_ref());
            *warm = Some(next);
            *pivots += sol.pivots;
            (sol.z, sol.outcome)
        } else {
            let l: Vec<f64> = self.exact.iter().map(|&i| lo[i]).collect();
            let h: Vec<f64> = self.exact.iter().map(|&i| hi[i]).collect();
            let limit = options.pivot_limit_for(ne);
            let (z, out, state) = boxed_solve(
                &model.s,
                &model.qe,
                &l,
                &h,
                options.tolerance,
                limit,
                pivots,
                warm.as_ref().map(|w| (w.0.as_slice(), w.1.as_slice())),
                true,
            );
            *warm = Some((z.clone(), state));
            (z, out)
        };
        if out != Outcome::Solved {
            return Err(out);
        }
        let mut f = model.f0.clone();
        for (a, &za) in zr.iter().enumerate() {
            if za != 0.0 {
                for (fk, yk) in f.iter_mut().zip(&model.y[a]) {
                    *fk += za * yk;
                }
            }
        }
        Ok((f, zr))
    }

    fn solve(&self, options: &Options) -> Solution {
        let n = self.p.len();
        let nl = self.liq.row.len();
        let lo0: Vec<f64> = self.p.rows.iter().map(|r| r.lo).collect();
        let hi0: Vec<f64> = self.p.rows.iter().map(|r| r.hi).collect();
        let fr: Vec<Option<usize>> = self.p.rows.iter().map(|r| r.friction).collect();
        let has_friction = fr.iter().any(Option::is_some);
        let mut f = vec![0.0; self.dim];
        let mut v = vec![0.0; nl];
        let mut vt = vec![0.0; nl];
        self.liquid_v(&f, &mut v);
        // The exact rows' latest values, for the friction bounds the merit uses.
        let mut zbar = vec![0.0; n];
        let mut zr: Vec<f64> = vec![0.0; self.exact.len()];
        let mut pivots = 0;
        let mut iterations = 0;
        let mut model: Option<Model> = None;
        // The exact rows' index sets from the previous step: a warm start for the next.
        let mut warm: Option<Warm> = None;
        let (mut lo, mut hi) = effective_bounds(&lo0, &hi0, &fr, &zbar);
        let outcome = loop {
            if iterations >= options.max_newton_iterations {
                break Outcome::PivotLimit;
            }
            iterations += 1;
            // Rebuild the model only when the active set has changed.
            let same_model = model
                .as_ref()
                .is_some_and(|m| v.iter().zip(&m.active).all(|(&x, &a)| (x < 0.0) == a));
            if !same_model {
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
                for (a, &i) in self.exact.iter().enumerate() {
                    zbar[i] = zrs[a];
                }
                (lo, hi) = effective_bounds(&lo0, &hi0, &fr, &zbar);
            }
            let d: Vec<f64> = fstar.iter().zip(&f).map(|(a, b)| a - b).collect();
            // A full step that keeps the active set is the exact solution: take it.
            self.liquid_v(&fstar, &mut vt);
            let repeats = vt.iter().zip(&m.active).all(|(&x, &a)| (x < 0.0) == a);
            let t = if iterations == 1 || repeats {
                1.0
            } else {
                match self.line_search(&f, &fstar, &v, (&lo, &hi), &mut vt) {
                    Some(t) => t,
                    None => break Outcome::Singular,
                }
            };
            for (fk, dk) in f.iter_mut().zip(&d) {
                *fk += t * dk;
            }
            zr = zrs;
            if repeats {
                // t = 1 here, and vt holds v at f*.
                std::mem::swap(&mut v, &mut vt);
                break Outcome::Solved;
            }
            self.liquid_v(&f, &mut v);
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

    /// Backtracking on the dual: the largest `t = 2^-k` with
    /// `Psi(f + t d) >= Psi(f) + 1e-4 t Delta`, `Delta = grad_s . d + h(f*) - h(f)`
    /// (proximal Newton's sufficient increase). None if t falls below 1e-12.
    fn line_search(
        &self,
        f: &[f64],
        fstar: &[f64],
        v: &[f64],
        (lo, hi): (&[f64], &[f64]),
        scratch: &mut [f64],
    ) -> Option<f64> {
        let d: Vec<f64> = fstar.iter().zip(f).map(|(a, b)| a - b).collect();
        let psi0 = self.psi(f, scratch, lo, hi);
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
        let mut t = 1.0;
        loop {
            let ft: Vec<f64> = f.iter().zip(&d).map(|(a, b)| a + t * b).collect();
            if self.psi(&ft, scratch, lo, hi) >= psi0 + 1e-4 * t * delta - slack {
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
        outcome,
        z,
        w,
        pivots,
        iterations,
        residuals,
    }
}
