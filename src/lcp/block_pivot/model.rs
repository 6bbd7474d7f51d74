//! The block-pivoting model of one active set (a proximal Newton model) and its maximiser.
//!
//! `H = W^-1 + J_A^T D_A^-1 J_A` couples two bodies only through an active liquid row on
//! both, so it is block diagonal over the groups of bodies such rows join (one body a group
//! when every liquid row touches one body), and each group is factored on its own. An exact
//! row touches at most two groups, so `Y = H^-1 J_R^T` is kept by group, and the Schur
//! complement `S = D_RR + J_R Y` has an entry only where two rows share a particle or a group:
//! each costs 6 or 12 products, and S is exactly symmetric by construction.
use super::BlockPivot;
use crate::lcp::boxed::{BoxedWork, MatrixFacts, State, boxed_solve_in};
use crate::lcp::dantzig::{DantzigWork, dantzig_warm_in, guarded_options};
use crate::lcp::matrix::{Cholesky, DenseMatrix, dot, dot6, six};
use crate::lcp::options::Options;
use crate::lcp::problem::DenseProblem;
use crate::lcp::solution::Outcome;
use crate::lcp::standard_form::lemke_boxed;

/// `H^-1 J_R^T` on one group of bodies: the group's coordinates in f, the exact rows that
/// touch it, and their columns (rows.len() x coords.len(), row-major).
#[derive(Debug, Clone, Default)]
struct GroupColumns {
    coords: Vec<usize>,
    rows: Vec<usize>,
    y: Vec<f64>,
}

/// A block-pivoting model: the active set it was built for, f0, `Y = H^-1 J_R^T` by group, and the
/// exact rows' problem (S, q_eff, their own bounds and friction coupling). Rebuilt in place, so
/// that its buffers serve the next model.
#[derive(Debug, Clone)]
pub(super) struct Model {
    pub(super) active: Vec<bool>,
    pub(super) f0: Vec<f64>,
    /// The groups' columns (the first `groups`; the rest are spare).
    y: Vec<GroupColumns>,
    groups: usize,
    sub: DenseProblem,
    facts: MatrixFacts,
    /// Scratch of the build.
    work: ModelWork,
}

impl Default for Model {
    fn default() -> Self {
        Self {
            active: Vec::new(),
            f0: Vec::new(),
            y: Vec::new(),
            groups: 0,
            sub: DenseProblem {
                m: DenseMatrix::zeros(0, 0),
                q: Vec::new(),
                lo: Vec::new(),
                hi: Vec::new(),
                friction: Vec::new(),
            },
            facts: MatrixFacts {
                symmetric: true,
                scale: f64::MIN_POSITIVE,
            },
            work: ModelWork::default(),
        }
    }
}

/// The scratch buffers of a model's build; per group lists keep their buffers (the first
/// `groups` are in use).
#[derive(Debug, Clone, Default)]
struct ModelWork {
    parent: Vec<usize>,
    group: Vec<usize>,
    members: Vec<Vec<usize>>,
    offset: Vec<usize>,
    h: Vec<DenseMatrix>,
    upper: Vec<[f64; 21]>,
    gb: Vec<[f64; 6]>,
    g: Vec<f64>,
    chol: Vec<Cholesky>,
    x: Vec<f64>,
    jac: Vec<Vec<f64>>,
    blk: Vec<f64>,
}

/// The exact rows' sub-solves of a block-pivoting solve: their buffers, the warm start each
/// step hands the next, and the last step's z, kept between solves.
#[derive(Debug, Clone, Default)]
pub(super) struct SubSolve {
    dantzig: DantzigWork,
    boxed: BoxedWork,
    /// Whether `warm_z` and `warm_state` hold the previous step's z and final states.
    pub(super) warm: bool,
    warm_z: Vec<f64>,
    warm_state: Vec<State>,
    /// The exact rows' z of the last step.
    pub(super) z: Vec<f64>,
}

/// The groups of bodies that active liquid rows on two bodies join (union-find): the group of
/// each body into `w.group`, the bodies of each group into `w.members`; returns the number of
/// groups.
fn body_groups(nt: &BlockPivot, v: &[f64], w: &mut ModelWork) -> usize {
    let nbod = nt.minv.len();
    let parent = &mut w.parent;
    parent.clear();
    parent.extend(0..nbod);
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
                root(parent, nt.liq.body[l][0]),
                root(parent, nt.liq.body[l][1]),
            );
            parent[a.max(b)] = a.min(b);
        }
    }
    let group = &mut w.group;
    group.clear();
    group.resize(nbod, usize::MAX);
    let mut groups = 0;
    for b in 0..nbod {
        let r = root(parent, b);
        if group[r] == usize::MAX {
            group[r] = groups;
            if groups == w.members.len() {
                w.members.push(Vec::new());
            }
            w.members[groups].clear();
            groups += 1;
        }
        group[b] = group[r];
        w.members[group[b]].push(b);
    }
    groups
}

impl BlockPivot<'_> {
    /// Build into `model` the model for the active set of `v` (rows with v < 0): H factored
    /// by group, `f0 = -H^-1 J_A^T D_A^-1 q_A`, and the exact rows' Schur complement.
    pub(super) fn build_model(&self, v: &[f64], model: &mut Model) -> Result<(), Outcome> {
        let nbod = self.minv.len();
        let w = &mut model.work;
        let ngroups = body_groups(self, v, w);
        let members = &w.members[..ngroups];
        let group = &w.group;
        // Each body's offset inside its group's coordinates.
        let offset = &mut w.offset;
        offset.clear();
        offset.resize(nbod, 0);
        for bodies in members {
            for (k, &b) in bodies.iter().enumerate() {
                offset[b] = 6 * k;
            }
        }
        while w.h.len() < ngroups {
            w.h.push(DenseMatrix::zeros(0, 0));
        }
        let h = &mut w.h[..ngroups];
        for (hg, b) in h.iter_mut().zip(members) {
            hg.reset(6 * b.len(), 6 * b.len());
        }
        // Single-body rows accumulate into per-body sums (the upper triangle of `j j^T / d`,
        // 21 numbers, and `j q / d`) in one run a body; two-body rows go to their group's H
        // directly; rows on no dynamic body (a static one) add nothing.
        let (upper, gb, g) = (&mut w.upper, &mut w.gb, &mut w.g);
        upper.clear();
        upper.resize(nbod, [0.0f64; 21]);
        gb.clear();
        gb.resize(nbod, [0.0f64; 6]);
        g.clear();
        g.resize(self.dim, 0.0);
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
        while w.chol.len() < ngroups {
            w.chol.push(Cholesky::empty());
        }
        let chol = &mut w.chol[..ngroups];
        for (ch, hg) in chol.iter_mut().zip(h.iter()) {
            if !ch.refactor(hg, 1e-14) {
                return Err(Outcome::Singular);
            }
        }
        // The group's coordinates in f.
        while model.y.len() < ngroups {
            model.y.push(GroupColumns::default());
        }
        model.groups = ngroups;
        for (gc, bodies) in model.y.iter_mut().zip(members) {
            gc.coords.clear();
            gc.coords
                .extend(bodies.iter().flat_map(|&b| 6 * b..6 * b + 6));
            gc.rows.clear();
        }
        let ys = &mut model.y[..ngroups];
        // f0 = H^-1 g, group by group.
        let f0 = &mut model.f0;
        f0.clear();
        f0.resize(self.dim, 0.0);
        let x = &mut w.x;
        for (ch, gc) in chol.iter().zip(ys.iter()) {
            x.clear();
            x.extend(gc.coords.iter().map(|&k| g[k]));
            ch.solve_in_place(x);
            for (&k, &xk) in gc.coords.iter().zip(x.iter()) {
                f0[k] = xk;
            }
        }
        // The exact rows touching each group, and their Jacobian there (rows x group coords).
        let ne = self.exact.len();
        while w.jac.len() < ngroups {
            w.jac.push(Vec::new());
        }
        let jac = &mut w.jac[..ngroups];
        for j in jac.iter_mut() {
            j.clear();
        }
        for (a, &i) in self.exact.iter().enumerate() {
            for t in self.p.rows[i].body_terms() {
                let c = group[t.body];
                let dc = ys[c].coords.len();
                let rows = &mut ys[c].rows;
                if rows.last() != Some(&a) {
                    rows.push(a);
                    let len = jac[c].len();
                    jac[c].resize(len + dc, 0.0);
                }
                let at = jac[c].len() - dc + offset[t.body];
                jac[c][at..at + 6].copy_from_slice(&t.j);
            }
        }
        // Y = H^-1 J_R^T by group, then S = D_RR + J_R Y over the pairs that share a group.
        let s = &mut model.sub.m;
        s.reset(ne, ne);
        for group_rows in self.groups() {
            for &a in group_rows {
                for &b in group_rows {
                    s[(a, b)] += self.d_entry(a, b);
                }
            }
        }
        let blk = &mut w.blk;
        for (c, (gc, jc)) in ys.iter_mut().zip(jac.iter()).enumerate() {
            let dc = gc.coords.len();
            let yc = &mut gc.y;
            yc.clear();
            yc.extend_from_slice(jc);
            for col in yc.chunks_exact_mut(dc) {
                chol[c].solve_in_place(col);
            }
            // The group's block of S, one product a pair and mirrored (so S stays exactly
            // symmetric), then added to S row by row.
            let rs = &gc.rows;
            let nr = rs.len();
            blk.clear();
            blk.resize(nr * nr, 0.0);
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
        }
        let sub = &mut model.sub;
        sub.q.clear();
        sub.q.extend(
            self.exact
                .iter()
                .map(|&i| self.p.rows[i].q + self.j_f(i, f0)),
        );
        model.active.clear();
        model.active.extend(v.iter().map(|&x| x < 0.0));
        model.facts = MatrixFacts::symmetric_psd(&sub.m);
        sub.lo.clear();
        sub.lo.extend(self.exact.iter().map(|&i| self.p.rows[i].lo));
        sub.hi.clear();
        sub.hi.extend(self.exact.iter().map(|&i| self.p.rows[i].hi));
        sub.friction.clear();
        sub.friction.extend_from_slice(&self.local_friction);
        Ok(())
    }

    /// The maximiser of a model for these bounds of the exact rows (by position among them):
    /// f* (into `f`) and the exact rows' z (into `sub.z`, warm-started from the step before
    /// while `sub.warm`), or the Dantzig sub-solve's failure.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn model_step(
        &self,
        model: &Model,
        lo: &[f64],
        hi: &[f64],
        options: &Options,
        pivots: &mut usize,
        sub: &mut SubSolve,
        f: &mut Vec<f64>,
    ) -> Result<(), Outcome> {
        let ne = self.exact.len();
        f.clear();
        f.extend_from_slice(&model.f0);
        sub.z.clear();
        if ne == 0 {
            return Ok(());
        }
        let warm = sub
            .warm
            .then_some((sub.warm_z.as_slice(), sub.warm_state.as_slice()));
        let out = if self.local_friction.iter().any(Option::is_some) {
            // Friction bounds follow their normals: solved exactly in the small problem, with
            // the rows' own coefficients.
            // Rounds that do not settle are handed to Lemke on the standard form.
            let short = guarded_options(options, ne);
            let d = &mut sub.dantzig;
            let c = dantzig_warm_in(d, &model.sub, &short, warm, Some(model.facts), true);
            sub.warm_z.clone_from(&d.z);
            sub.warm_state.clone_from(&d.state);
            sub.warm = true;
            *pivots += c.pivots;
            match c.outcome {
                Outcome::Solved | Outcome::Ray => {
                    sub.z.extend_from_slice(&d.z);
                    c.outcome
                }
                _ => match lemke_boxed(&model.sub, options) {
                    Some(l) => {
                        *pivots += l.pivots;
                        sub.z.extend_from_slice(&l.z);
                        l.outcome
                    }
                    None => {
                        sub.z.extend_from_slice(&d.z);
                        c.outcome
                    }
                },
            }
        } else {
            let limit = options.pivot_limit_for(ne);
            let b = &mut sub.boxed;
            let out = boxed_solve_in(
                b,
                &model.sub.m,
                &model.sub.q,
                lo,
                hi,
                options.tolerance,
                limit,
                pivots,
                warm,
                model.facts,
            );
            sub.warm_z.clone_from(&b.z);
            sub.warm_state.clone_from(&b.state);
            sub.warm = true;
            sub.z.extend_from_slice(&b.z);
            out
        };
        if out != Outcome::Solved {
            return Err(out);
        }
        let zr = &sub.z;
        for gc in &model.y[..model.groups] {
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
        Ok(())
    }
}
