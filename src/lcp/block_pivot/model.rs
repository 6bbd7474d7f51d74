//! The block-pivoting model of one active set (a proximal Newton model) and its maximiser.
//!
//! `H = W^-1 + J_A^T D_A^-1 J_A` couples two bodies only through an active liquid row on
//! both, so it is block diagonal over the groups of bodies such rows join (one body a group
//! when every liquid row touches one body), and each group is factored on its own. An exact
//! row touches at most two groups, so `Y = H^-1 J_R^T` is kept by group, and the Schur
//! complement `S = D_RR + J_R Y` has an entry only where two rows share a particle or a group:
//! each costs 6 or 12 products, and S is exactly symmetric by construction.
use super::BlockPivot;
use super::islands::{Islands, root};
use crate::lcp::boxed::{BoxedWork, MatrixFacts, State, boxed_solve_in};
use crate::lcp::dantzig::{DantzigWork, dantzig_warm_in, guarded_options};
use crate::lcp::fixed_point::states_of;
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
    /// The exact rows' connected components (rows that S, their friction or a shared body
    /// group couples): component c is `comp_rows[comp_start[c]..comp_start[c + 1]]`, positions
    /// among the exact rows in increasing order, components in the order of their first row.
    /// S is block diagonal over them, so each is solved on its own.
    comp_rows: Vec<usize>,
    comp_start: Vec<usize>,
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
            sub: empty_problem(),
            facts: MatrixFacts {
                symmetric: true,
                scale: f64::MIN_POSITIVE,
            },
            comp_rows: Vec::new(),
            comp_start: Vec::new(),
            work: ModelWork::default(),
        }
    }
}

/// A problem with no rows, whose buffers grow as it is refilled.
fn empty_problem() -> DenseProblem {
    DenseProblem {
        m: DenseMatrix::zeros(0, 0),
        q: Vec::new(),
        lo: Vec::new(),
        hi: Vec::new(),
        friction: Vec::new(),
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
    /// The exact rows' union-find and component labels.
    row_parent: Vec<usize>,
    label: Vec<usize>,
}

/// The exact rows' sub-solves of a block-pivoting solve: their buffers, the warm start each
/// step hands the next, and the last step's z, kept between solves.
#[derive(Debug, Clone)]
pub(super) struct SubSolve {
    dantzig: DantzigWork,
    boxed: BoxedWork,
    /// Whether `warm_z` and `warm_state` hold the previous step's z and final states.
    pub(super) warm: bool,
    warm_z: Vec<f64>,
    warm_state: Vec<State>,
    /// The exact rows' z of the last step.
    pub(super) z: Vec<f64>,
    /// One component's problem, bounds in force, and warm start, gathered from the whole.
    part: DenseProblem,
    part_lo: Vec<f64>,
    part_hi: Vec<f64>,
    part_warm_z: Vec<f64>,
    part_warm_state: Vec<State>,
    part_z: Vec<f64>,
}

impl Default for SubSolve {
    fn default() -> Self {
        Self {
            dantzig: DantzigWork::default(),
            boxed: BoxedWork::default(),
            warm: false,
            warm_z: Vec::new(),
            warm_state: Vec::new(),
            z: Vec::new(),
            part: empty_problem(),
            part_lo: Vec::new(),
            part_hi: Vec::new(),
            part_warm_z: Vec::new(),
            part_warm_state: Vec::new(),
            part_z: Vec::new(),
        }
    }
}

/// The groups of bodies that active liquid rows on two bodies join (union-find): the group of
/// each body into `w.group`, the bodies of each group into `w.members`; returns the number of
/// groups.
fn body_groups(nt: &BlockPivot, v: &[f64], w: &mut ModelWork) -> usize {
    let nbod = nt.minv.len();
    let parent = &mut w.parent;
    parent.clear();
    parent.extend(0..nbod);
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
        // The exact rows' components: rows on one particle, on one group of bodies, or a friction
        // row and its normal are joined.
        let mut islands = Islands {
            parent: &mut w.row_parent,
            label: &mut w.label,
            start: &mut model.comp_start,
            rows: &mut model.comp_rows,
        };
        islands.reset(ne);
        for rows in self.groups() {
            islands.join_all(rows);
        }
        for gc in ys.iter() {
            islands.join_all(&gc.rows);
        }
        for (a, n) in self.local_friction.iter().enumerate() {
            if let Some(n) = *n {
                islands.join(a, n);
            }
        }
        islands.finish();
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
        let ncomp = model.comp_start.len().saturating_sub(1);
        let out = if ncomp <= 1 {
            // One component: the whole problem, in place.
            let warm = sub
                .warm
                .then_some((sub.warm_z.as_slice(), sub.warm_state.as_slice()));
            let (out, by_dantzig) = solve_part(
                &model.sub,
                model.facts,
                (lo, hi),
                options,
                pivots,
                (&mut sub.dantzig, &mut sub.boxed),
                warm,
                &mut sub.z,
            );
            let (wz, ws) = match by_dantzig {
                true => (&sub.dantzig.z, &sub.dantzig.state),
                false => (&sub.boxed.z, &sub.boxed.state),
            };
            sub.warm_z.clone_from(wz);
            sub.warm_state.clone_from(ws);
            out
        } else {
            // Components one by one, each gathered into a small problem of its own: S is
            // block diagonal over them, and a drive costs the square of its problem's size.
            let was_warm = sub.warm;
            if !was_warm {
                sub.warm_z.clear();
                sub.warm_z.resize(ne, 0.0);
                sub.warm_state.clear();
                sub.warm_state.resize(ne, State::Waiting);
            }
            sub.z.resize(ne, 0.0);
            let mut out = Outcome::Solved;
            for c in 0..ncomp {
                let rows = &model.comp_rows[model.comp_start[c]..model.comp_start[c + 1]];
                let facts = gather_part(model, rows, (lo, hi), sub);
                let warm = was_warm
                    .then_some((sub.part_warm_z.as_slice(), sub.part_warm_state.as_slice()));
                let (o, by_dantzig) = solve_part(
                    &sub.part,
                    facts,
                    (&sub.part_lo, &sub.part_hi),
                    options,
                    pivots,
                    (&mut sub.dantzig, &mut sub.boxed),
                    warm,
                    &mut sub.part_z,
                );
                let (wz, ws) = match by_dantzig {
                    true => (&sub.dantzig.z, &sub.dantzig.state),
                    false => (&sub.boxed.z, &sub.boxed.state),
                };
                for (k, &a) in rows.iter().enumerate() {
                    sub.z[a] = sub.part_z[k];
                    sub.warm_z[a] = wz[k];
                    sub.warm_state[a] = ws[k];
                }
                if o != Outcome::Solved {
                    out = o;
                    break;
                }
            }
            out
        };
        sub.warm = true;
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

/// Gather into `sub.part` the exact rows' problem restricted to the component `rows`
/// (positions among the exact rows): S's block, q, own bounds and friction (renumbered within
/// the component), the bounds in force into `sub.part_lo`/`part_hi`, and the warm start into
/// `sub.part_warm_z`/`part_warm_state`. Returns the block's facts.
fn gather_part(
    model: &Model,
    rows: &[usize],
    (lo, hi): (&[f64], &[f64]),
    sub: &mut SubSolve,
) -> MatrixFacts {
    let k = rows.len();
    let (whole, part) = (&model.sub, &mut sub.part);
    part.m.reset(k, k);
    for (x, &a) in rows.iter().enumerate() {
        let src = whole.m.row(a);
        let dst = part.m.row_mut(x);
        for (d, &b) in dst.iter_mut().zip(rows) {
            *d = src[b];
        }
    }
    part.q.clear();
    part.q.extend(rows.iter().map(|&a| whole.q[a]));
    part.lo.clear();
    part.lo.extend(rows.iter().map(|&a| whole.lo[a]));
    part.hi.clear();
    part.hi.extend(rows.iter().map(|&a| whole.hi[a]));
    // A friction row's normal is in its component (they were joined): its place there.
    part.friction.clear();
    part.friction.extend(rows.iter().map(|&a| {
        whole.friction[a].map(|n| {
            rows.binary_search(&n)
                .expect("a friction row's normal is in its component")
        })
    }));
    sub.part_lo.clear();
    sub.part_lo.extend(rows.iter().map(|&a| lo[a]));
    sub.part_hi.clear();
    sub.part_hi.extend(rows.iter().map(|&a| hi[a]));
    sub.part_warm_z.clear();
    sub.part_warm_z.extend(rows.iter().map(|&a| sub.warm_z[a]));
    sub.part_warm_state.clear();
    sub.part_warm_state
        .extend(rows.iter().map(|&a| sub.warm_state[a]));
    MatrixFacts::symmetric_psd(&part.m)
}

/// Solve one exact-row problem `prob` (bounds in force `lo`, `hi`), warm-started from `warm`:
/// with friction rows by Dantzig on the rows' own coefficients (rounds that do not settle
/// handed to Lemke on the standard form), else by the boxed drive. Its z is written to `z`;
/// returns the outcome and whether the Dantzig work (else the boxed one) holds the final z
/// and states for the next warm start.
#[allow(clippy::too_many_arguments)]
fn solve_part(
    prob: &DenseProblem,
    facts: MatrixFacts,
    (lo, hi): (&[f64], &[f64]),
    options: &Options,
    pivots: &mut usize,
    (d, b): (&mut DantzigWork, &mut BoxedWork),
    warm: Option<(&[f64], &[State])>,
    z: &mut Vec<f64>,
) -> (Outcome, bool) {
    let ne = prob.len();
    z.clear();
    if prob.friction.iter().any(Option::is_some) {
        // Friction bounds follow their normals: solved exactly in the small problem, with
        // the rows' own coefficients.
        // Rounds that do not settle are handed to Lemke on the standard form.
        let short = guarded_options(options, ne);
        let c = dantzig_warm_in(d, prob, &short, warm, Some(facts), true);
        *pivots += c.pivots;
        let out = match c.outcome {
            Outcome::Solved | Outcome::Ray => {
                z.extend_from_slice(&d.z);
                c.outcome
            }
            _ => match lemke_boxed(prob, options) {
                Some(l) => {
                    *pivots += l.pivots;
                    z.extend_from_slice(&l.z);
                    if l.outcome == Outcome::Solved {
                        // The solution's index sets start the next solve (whose fixed point
                        // they give at once while the contacts hold), not the failed drive's.
                        d.z.clone_from(&l.z);
                        d.state = states_of(prob, &l.z);
                    }
                    l.outcome
                }
                None => {
                    z.extend_from_slice(&d.z);
                    c.outcome
                }
            },
        };
        (out, true)
    } else {
        let limit = options.pivot_limit_for(ne);
        let out = boxed_solve_in(
            b,
            &prob.m,
            &prob.q,
            lo,
            hi,
            options.tolerance,
            limit,
            pivots,
            warm,
            facts,
        );
        z.extend_from_slice(&b.z);
        (out, false)
    }
}
