//! The Newton model of one active set and its maximiser.
//!
//! `H = W^-1 + J_A^T D_A^-1 J_A` couples two bodies only through an active liquid row on
//! both, so it is block diagonal over the groups of bodies such rows join (one body a group
//! when every liquid row touches one body), and each group is factored on its own. An exact
//! row touches at most two groups, so `Y = H^-1 J_R^T` is kept by group, and the Schur
//! complement `S = D_RR + J_R Y` has an entry only where two rows share a particle or a group:
//! each costs 6 or 12 products, and S is exactly symmetric by construction.
use super::Newton;
use crate::lcp::boxed::{MatrixFacts, boxed_solve};
use crate::lcp::dantzig::{Warm, dantzig_warm};
use crate::lcp::matrix::{Cholesky, DenseMatrix, dot};
use crate::lcp::options::Options;
use crate::lcp::problem::DenseProblem;
use crate::lcp::solution::Outcome;

/// `H^-1 J_R^T` on one group of bodies: the group's coordinates in f, the exact rows that
/// touch it, and their columns (rows.len() x coords.len(), row-major).
struct GroupColumns {
    coords: Vec<usize>,
    rows: Vec<usize>,
    y: Vec<f64>,
}

/// A Newton model: the active set it was built for, f0, `Y = H^-1 J_R^T` by group, and the
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
fn body_groups(nt: &Newton, v: &[f64]) -> (Vec<usize>, Vec<Vec<usize>>) {
    let nbod = nt.minv.len();
    let mut parent: Vec<usize> = (0..nbod).collect();
    fn root(parent: &mut [usize], mut b: usize) -> usize {
        while parent[b] != b {
            parent[b] = parent[parent[b]];
            b = parent[b];
        }
        b
    }
    for (l, &vl) in v.iter().enumerate() {
        if vl < 0.0 && nt.liq.nb[l] == 2 {
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

impl Newton<'_> {
    /// The Newton model for the active set of `v` (rows with v < 0): H factored by group,
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
        // Single-body rows accumulate into per-body 6x6 blocks; two-body rows go to H directly.
        let mut blocks = vec![[0.0f64; 36]; nbod];
        let mut g = vec![0.0; self.dim];
        for (l, &vl) in v.iter().enumerate() {
            // Rows on no dynamic body (a static one) add nothing to H.
            if vl >= 0.0 || self.liq.nb[l] == 0 {
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
            let hg = &mut h[group[self.liq.body[l][0]]];
            for a in 0..nb {
                let ba = self.liq.body[l][a];
                for r in 0..6 {
                    let jr = j[6 * a + r] * inv_d;
                    g[6 * ba + r] -= jr * q;
                    for c in 0..nb {
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
            for r in 0..6 {
                for c in 0..6 {
                    hg[(o + r, o + c)] += m[r * 6 + c] + blocks[b][r * 6 + c];
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
        // The exact rows touching each group, with their body terms there (group offset, j).
        let ne = self.exact.len();
        let mut rows: Vec<Vec<usize>> = vec![Vec::new(); members.len()];
        let mut terms: Vec<Vec<(usize, [f64; 6])>> = vec![Vec::new(); members.len()];
        let mut term_start: Vec<Vec<usize>> = vec![vec![0]; members.len()];
        for (a, &i) in self.exact.iter().enumerate() {
            for t in self.p.rows[i].body_terms() {
                let c = group[t.body];
                if rows[c].last() != Some(&a) {
                    if !rows[c].is_empty() {
                        term_start[c].push(terms[c].len());
                    }
                    rows[c].push(a);
                }
                terms[c].push((offset[t.body], t.j));
            }
        }
        for c in 0..members.len() {
            if !rows[c].is_empty() {
                term_start[c].push(terms[c].len());
            }
        }
        // Y = H^-1 J_R^T by group, then S = D_RR + J_R Y over the pairs that share a group.
        let mut s = DenseMatrix::zeros(ne, ne);
        for group_rows in &self.particle_groups {
            for &a in group_rows {
                for &b in group_rows {
                    s[(a, b)] += self.d_entry(a, b);
                }
            }
        }
        let mut y = Vec::with_capacity(members.len());
        for c in 0..members.len() {
            let dc = coords[c].len();
            let (rs, ts, st) = (&rows[c], &terms[c], &term_start[c]);
            let mut yc = vec![0.0; rs.len() * dc];
            for x in 0..rs.len() {
                let col = &mut yc[x * dc..(x + 1) * dc];
                for (o, j) in &ts[st[x]..st[x + 1]] {
                    col[*o..*o + 6].copy_from_slice(j);
                }
                chol[c].solve_in_place(col);
            }
            for x in 0..rs.len() {
                let col = &yc[x * dc..(x + 1) * dc];
                for k in x..rs.len() {
                    let e: f64 = ts[st[k]..st[k + 1]]
                        .iter()
                        .map(|(o, j)| dot(j, &col[*o..*o + 6]))
                        .sum();
                    s[(rs[x], rs[k])] += e;
                    if k != x {
                        s[(rs[k], rs[x])] += e;
                    }
                }
            }
            y.push(GroupColumns {
                coords: coords[c].clone(),
                rows: rs.clone(),
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
            let (sol, next) = dantzig_warm(&model.sub, options, warm.as_ref(), Some(model.facts));
            *warm = Some(next);
            *pivots += sol.pivots;
            (sol.z, sol.outcome)
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
