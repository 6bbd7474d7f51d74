//! The solver's description of one problem: the body blocks' inverse masses, the liquid rows
//! gathered body by body into flat arrays, the exact rows, and the exact rows grouped by the
//! liquid particle they share.
use super::{BlockPivot, Parts, Scratch};
use crate::lcp::matrix::dot;
use crate::lcp::structured::StructuredProblem;

impl<'a> BlockPivot<'a> {
    /// The solver's description of `p`, in the buffers of `parts` and `s`.
    pub(super) fn new(p: &'a StructuredProblem, parts: Parts, s: &mut Scratch) -> Self {
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
    pub(super) fn into_parts(self) -> Parts {
        Parts {
            minv: self.minv,
            liq: self.liq,
            exact: self.exact,
            particle_groups: self.particle_groups,
            local_friction: self.local_friction,
        }
    }

    /// The exact rows that share a liquid particle, one list a particle.
    pub(super) fn groups(&self) -> &[Vec<usize>] {
        &self.particle_groups[..self.groups]
    }
}
