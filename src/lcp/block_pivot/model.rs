//! The block-pivoting model of one active set (a proximal Newton model) and its maximiser.
//!
//! `H = W^-1 + J_A^T D_A^-1 J_A` couples two bodies only through an active liquid row on
//! both, so it is block diagonal over the groups of bodies such rows join (one body a group
//! when every liquid row touches one body), and each group is factored on its own. An exact
//! row touches at most two groups, so `Y = H^-1 J_R^T` is kept by group, and the Schur
//! complement `S = D_RR + J_R Y` has an entry only where two rows share a particle or a group:
//! each costs 6 or 12 products, and S is exactly symmetric by construction.
use super::BlockPivot;
use crate::lcp::boxed::{MatrixFacts, boxed_solve};
use crate::lcp::dantzig::{Warm, dantzig_warm, guarded_options};
use crate::lcp::matrix::{Cholesky, DenseMatrix, dot, dot6, six};
use crate::lcp::options::Options;
use crate::lcp::problem::DenseProblem;
use crate::lcp::solution::Outcome;
use crate::lcp::standard_form::lemke_boxed;

/// `H^-1 J_R^T` on one group of bodies: the group's coordinates in f, the exact rows that
/// touch it, and their columns (rows.len() x coords.len(), row-major).
struct GroupColumns {
    coords: Vec<usize>,
    rows: Vec<usize>,
    y: Vec<f64>,
}

/// A block-pivoting model: the active set it was built for, f0, `Y = H^-1 J_R^T` by group, and the
/// exact rows' problem (S, q_eff, their own bounds and friction coupling).
pub(super) struct Model {
    pub(super) active: Vec<bool>,
    pub(super) f0: Vec<f64>,
    y: Vec<GroupColumns>,
    sub: DenseProblem,
    facts: MatrixFacts,
}

/// The groups of bodies that active liquid rows on two bodies join (union-find); the group of
/// each body and the bodies of each group.
fn body_groups(nt: &BlockPivot, v: &[f64]) -> (Vec<usize>, Vec<Vec<usize>>) {
    let nbod = nt.minv.len();
    let mut parent: Vec<usize> = (0..nbod).collect();
    fn root(parent: &mut [usize], mut b: usize) -> usize {
        while parent[b] != b {
            parent[b] = parent[parent[b]];
            b = parent[b];
        }
        b
    }
    for l in nt.liq.two_body.clone() {
        if v[l] < 0.0 {
            let (a, b) = (
                root(&mut parent, nt.liq.body[l][0]),
                root(&mut parent, nt.liq.body[l][1]),
            );
            parent[a.max(b)] = a.min(b);
        }
    }
    let mut group = vec![usize::MAX; nbod];
    let mut bodies: Vec<Vec<usize>> = Vec::new();
    for b in 0..nbod {
        let r = root(&mut parent, b);
        if group[r] == usize::MAX {
            group[r] = bodies.len();
            bodies.push(Vec::new());
        }
        group[b] = group[r];
        bodies[group[b]].push(b);
    }
    (group, bodies)
}

impl BlockPivot<'_> {
    /// The model for the active set of `v` (rows with v < 0): H factored by group,
    /// `f0 = -H^-1 J_A^T D_A^-1 q_A`, and the exact rows' Schur complement.
    pub(super) fn build_model(&self, v: &[f64]) -> Result<Model, Outcome> {
        let nbod = self.minv.len();
        let (group, members) = body_groups(self, v);
        // Each body's offset inside its group's coordinates.
        let mut offset = vec![0usize; nbod];
        for bodies in &members {
            for (k, &b) in bodies.iter().enumerate() {
                offset[b] = 6 * k;
            }
        }
        let mut h: Vec<DenseMatrix> = members
            .iter()
            .map(|b| DenseMatrix::zeros(6 * b.len(), 6 * b.len()))
            .collect();
        // Single-body rows accumulate into per-body sums (the upper triangle of `j j^T / d`,
        // 21 numbers, and `j q / d`) in one run a body; two-body rows go to their group's H
        // directly; rows on no dynamic body (a static one) add nothing.
        let mut upper = vec![[0.0f64; 21]; nbod];
        let mut gb = vec![[0.0f64; 6]; nbod];
        let mut g = vec![0.0; self.dim];
        for (b, run) in self.liq.single.iter().enumerate() {
            let (mut u, mut gg) = ([0.0f64; 21], [0.0f64; 6]);
            for l in run.clone() {
                // An inactive row adds zero: no branch to mispredict.
                let w = if v[l] < 0.0 { self.liq.inv_d[l] } else { 0.0 };
                let j = six(&self.liq.j[l], 0);
                let wq = w * self.liq.q[l];
                let mut k = 0;
                for r in 0..6 {
                    let jr = j[r] * w;
                    gg[r] -= j[r] * wq;
                    for jc in &j[r..] {
                        u[k] += jr * jc;
                        k += 1;
                    }
                }
            }
            upper[b] = u;
            gb[b] = gg;
        }
        for l in self.liq.two_body.clone() {
            if v[l] >= 0.0 {
                continue;
            }
            let inv_d = self.liq.inv_d[l];
            let j = &self.liq.j[l];
            let q = self.liq.q[l];
            let hg = &mut h[group[self.liq.body[l][0]]];
            for a in 0..2 {
                let ba = self.liq.body[l][a];
                for r in 0..6 {
                    let jr = j[6 * a + r] * inv_d;
                    g[6 * ba + r] -= jr * q;
                    for c in 0..2 {
                        let oc = offset[self.liq.body[l][c]];
                        let row = hg.row_mut(offset[ba] + r);
                        for s in 0..6 {
                            row[oc + s] += jr * j[6 * c + s];
                        }
                    }
                }
            }
        }
        for (b, m) in self.minv.iter().enumerate() {
            let (hg, o) = (&mut h[group[b]], offset[b]);
            let mut k = 0;
            for r in 0..6 {
                g[6 * b + r] += gb[b][r];
                for c in r..6 {
                    hg[(o + r, o + c)] += m[r * 6 + c] + upper[b][k];
                    if c != r {
                        hg[(o + c, o + r)] += m[c * 6 + r] + upper[b][k];
                    }
                    k += 1;
                }
            }
        }
        let mut chol = Vec::with_capacity(h.len());
        for hg in &h {
            chol.push(Cholesky::new(hg, 1e-14).ok_or(Outcome::Singular)?);
        }
        // f0 = H^-1 g, group by group.
        let coords: Vec<Vec<usize>> = members
            .iter()
            .map(|bodies| bodies.iter().flat_map(|&b| 6 * b..6 * b + 6).collect())
            .collect();
        let mut f0 = vec![0.0; self.dim];
        for (ch, cs) in chol.iter().zip(&coords) {
            let mut x: Vec<f64> = cs.iter().map(|&k| g[k]).collect();
            ch.solve_in_place(&mut x);
            for (&k, xk) in cs.iter().zip(x) {
                f0[k] = xk;
            }
        }
        // The exact rows touching each group, and their Jacobian there (rows x group coords).
        let ne = self.exact.len();
        let mut rows: Vec<Vec<usize>> = vec![Vec::new(); members.len()];
        let mut jac: Vec<Vec<f64>> = vec![Vec::new(); members.len()];
        for (a, &i) in self.exact.iter().enumerate() {
            for t in self.p.rows[i].body_terms() {
                let c = group[t.body];
                let dc = coords[c].len();
                if rows[c].last() != Some(&a) {
                    rows[c].push(a);
                    let len = jac[c].len();
                    jac[c].resize(len + dc, 0.0);
                }
                let at = jac[c].len() - dc + offset[t.body];
                jac[c][at..at + 6].copy_from_slice(&t.j);
            }
        }
        // Y = H^-1 J_R^T by group, then S = D_RR + J_R Y over the pairs that share a group.
        let mut s = DenseMatrix::zeros(ne, ne);
        for group_rows in self.groups() {
            for &a in group_rows {
                for &b in group_rows {
                    s[(a, b)] += self.d_entry(a, b);
                }
            }
        }
        let mut y = Vec::with_capacity(members.len());
        for (c, (rs, jc)) in rows.into_iter().zip(jac).enumerate() {
            let dc = coords[c].len();
            let mut yc = jc.clone();
            for col in yc.chunks_exact_mut(dc) {
                chol[c].solve_in_place(col);
            }
            // The group's block of S, one product a pair and mirrored (so S stays exactly
            // symmetric), then added to S row by row.
            let nr = rs.len();
            let mut blk = vec![0.0; nr * nr];
            for (x, yx) in yc.chunks_exact(dc).enumerate() {
                for (k, jk) in jc.chunks_exact(dc).enumerate().skip(x) {
                    let e = if dc == 6 {
                        dot6(six(jk, 0), six(yx, 0))
                    } else {
                        dot(jk, yx)
                    };
                    blk[x * nr + k] = e;
                    blk[k * nr + x] = e;
                }
            }
            for (&a, bx) in rs.iter().zip(blk.chunks_exact(nr.max(1))) {
                let row = s.row_mut(a);
                for (&b, e) in rs.iter().zip(bx) {
                    row[b] += e;
                }
            }
            y.push(GroupColumns {
                coords: coords[c].clone(),
                rows: rs,
                y: yc,
            });
        }
        let qe = self
            .exact
            .iter()
            .map(|&i| self.p.rows[i].q + self.j_f(i, &f0))
            .collect();
        Ok(Model {
            active: v.iter().map(|&x| x < 0.0).collect(),
            f0,
            y,
            facts: MatrixFacts::symmetric_psd(&s),
            sub: DenseProblem {
                m: s,
                q: qe,
                lo: self.exact.iter().map(|&i| self.p.rows[i].lo).collect(),
                hi: self.exact.iter().map(|&i| self.p.rows[i].hi).collect(),
                friction: self.local_friction.clone(),
            },
        })
    }

    /// The maximiser of a model for these bounds of the exact rows (by position among them):
    /// f* and the exact rows' z, or the Dantzig sub-solve's failure.
    pub(super) fn model_step(
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
            // Rounds that do not settle are handed to Lemke on the standard form.
            let short = guarded_options(options, ne);
            let (sol, next) =
                dantzig_warm(&model.sub, &short, warm.as_ref(), Some(model.facts), true);
            *warm = Some(next);
            *pivots += sol.pivots;
            match sol.outcome {
                Outcome::Solved | Outcome::Ray => (sol.z, sol.outcome),
                _ => match lemke_boxed(&model.sub, options) {
                    Some(l) => {
                        *pivots += l.pivots;
                        (l.z, l.outcome)
                    }
                    None => (sol.z, sol.outcome),
                },
            }
        } else {
            let limit = options.pivot_limit_for(ne);
            let (z, out, state) = boxed_solve(
                &model.sub.m,
                &model.sub.q,
                lo,
                hi,
                options.tolerance,
                limit,
                pivots,
                warm.as_ref().map(|w| (w.0.as_slice(), w.1.as_slice())),
                model.facts,
            );
            *warm = Some((z.clone(), state));
            (z, out)
        };
        if out != Outcome::Solved {
            return Err(out);
        }
        let mut f = model.f0.clone();
        for gc in &model.y {
            let dc = gc.coords.len();
            for (x, &a) in gc.rows.iter().enumerate() {
                let za = zr[a];
                if za != 0.0 {
                    for (&k, yk) in gc.coords.iter().zip(&gc.y[x * dc..(x + 1) * dc]) {
                        f[k] += za * yk;
                    }
                }
            }
        }
        Ok((f, zr))
    }
}
