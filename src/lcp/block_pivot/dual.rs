//! The concave dual `Psi(f)` that the block-pivoting steps climb: the products with the
//! Jacobian and `W^-1`, the exact rows' part, and the backtracking line search on it.
use super::BlockPivot;
use crate::lcp::boxed::boxed_fixed;
use crate::lcp::matrix::{DenseMatrix, dot, dot6, six};
use crate::lcp::solution::Outcome;

impl BlockPivot<'_> {
    /// `D_ab` between exact rows a and b (positions among them): `n_a.n_b / m` on a shared
    /// particle, else 0.
    pub(super) fn d_entry(&self, a: usize, b: usize) -> f64 {
        let (ra, rb) = (&self.p.rows[self.exact[a]], &self.p.rows[self.exact[b]]);
        match (&ra.particle, &rb.particle) {
            (Some(pa), Some(pb)) if pa.particle == pb.particle => {
                dot(&pa.n, &pb.n) * self.p.particle_inv_mass[pa.particle]
            }
            _ => 0.0,
        }
    }

    /// `J_i f` for liquid row l.
    pub(super) fn jl_f(&self, l: usize, f: &[f64]) -> f64 {
        let mut s = 0.0;
        for k in 0..self.liq.nb[l] as usize {
            let b = self.liq.body[l][k];
            s += dot6(six(&self.liq.j[l], 6 * k), six(f, 6 * b));
        }
        s
    }

    /// `J_r f` for problem row i.
    pub(super) fn j_f(&self, i: usize, f: &[f64]) -> f64 {
        self.p.rows[i]
            .body_terms()
            .map(|t| dot6(&t.j, six(f, 6 * t.body)))
            .sum()
    }

    /// Liquid v = J f + q into `v`.
    pub(super) fn liquid_v(&self, f: &[f64], v: &mut [f64]) {
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
    pub(super) fn kinetic(&self, f: &[f64]) -> f64 {
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
    pub(super) fn exact_value(&self, f: &[f64], lo: &[f64], hi: &[f64]) -> f64 {
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
    pub(super) fn psi(&self, f: &[f64], v: &[f64], lo: &[f64], hi: &[f64]) -> f64 {
        let mut s = -0.5 * self.kinetic(f);
        for (&vl, &inv_d) in v.iter().zip(&self.liq.inv_d) {
            let a = vl.min(0.0);
            s -= 0.5 * a * a * inv_d;
        }
        s + self.exact_value(f, lo, hi)
    }

    /// Backtracking on the dual from f (liquid v there: `v`) towards f* (`vstar`): the
    /// largest `t = 2^-k` with `Psi(f + t d) >= Psi(f) + 1e-4 t Delta`,
    /// `Delta = grad_s . d + h(f*) - h(f)` (proximal Newton's sufficient increase). None if t
    /// falls below 1e-12. `buffers` hold the direction, the gradient and the trial point.
    pub(super) fn line_search(
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
