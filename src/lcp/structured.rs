//! The structured contact form `A = D + J W J^T`, never stored as an n x n matrix.
//!
//! D comes from liquid particles: rows i, j on the same particle k give
//! `D_ij = n_i.n_j / m_k`. J has at most two 6-vectors a row, one per dynamic body, and
//! `W = blockdiag(M_b^-1)`. Rows without a particle term (body/body, body/wall, friction,
//! joints) are the "Dantzig rows".
use super::matrix::{Cholesky, DenseMatrix, dot, dot6, six};
use super::problem::{DenseProblem, check_rows};

/// A row's coupling to one dynamic body: the body's index and the 6 Jacobian numbers
/// (`[n; r x n]` for a contact).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BodyTerm {
    /// Index into `StructuredProblem::body_inv_mass`.
    pub body: usize,
    /// The row of J for this body: linear part then angular part.
    pub j: [f64; 6],
}

/// A row's liquid-particle term: the particle and the contact direction.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ParticleTerm {
    /// Index into `StructuredProblem::particle_inv_mass`.
    pub particle: usize,
    /// The direction n: rows i, j on this particle couple through `n_i.n_j / m`.
    pub n: [f64; 3],
}

/// One row of a structured LCP.
#[derive(Debug, Clone, PartialEq)]
pub struct StructuredRow {
    /// The liquid-particle term, if any (rows with one are "liquid rows").
    pub particle: Option<ParticleTerm>,
    /// Up to two body couplings.
    pub bodies: [Option<BodyTerm>; 2],
    /// The row's q (relative velocity, restitution included).
    pub q: f64,
    /// Lower bound (or friction coefficient); 0 for a contact.
    pub lo: f64,
    /// Upper bound (or friction coefficient); +inf for a contact.
    pub hi: f64,
    /// For friction rows: the normal row whose value scales the bounds.
    pub friction: Option<usize>,
}

impl StructuredRow {
    /// A contact row `[0, inf)` with this q and no terms yet.
    pub fn contact(q: f64) -> Self {
        Self {
            particle: None,
            bodies: [None, None],
            q,
            lo: 0.0,
            hi: f64::INFINITY,
            friction: None,
        }
    }

    /// Set the liquid-particle term.
    pub fn with_particle(mut self, particle: usize, n: [f64; 3]) -> Self {
        self.particle = Some(ParticleTerm { particle, n });
        self
    }

    /// Add a body coupling (at most two); panics on a third.
    pub fn with_body(mut self, body: usize, j: [f64; 6]) -> Self {
        let slot = self
            .bodies
            .iter_mut()
            .find(|s| s.is_none())
            .expect("a row couples at most two bodies");
        *slot = Some(BodyTerm { body, j });
        self
    }

    /// Set constant bounds.
    pub fn with_bounds(mut self, lo: f64, hi: f64) -> Self {
        self.lo = lo;
        self.hi = hi;
        self
    }

    /// Make this a friction row: bounds `[lo z_normal, hi z_normal]`.
    pub fn with_friction(mut self, normal: usize, lo: f64, hi: f64) -> Self {
        self.friction = Some(normal);
        self.lo = lo;
        self.hi = hi;
        self
    }

    /// The body couplings present.
    pub fn body_terms(&self) -> impl Iterator<Item = &BodyTerm> {
        self.bodies.iter().flatten()
    }
}

/// A structured LCP: `w = (D + J W J^T) z + q` with per-row bounds.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct StructuredProblem {
    /// Each dynamic body's 6x6 inverse mass (row-major, symmetric positive definite):
    /// `diag(1/m) I3` and `I_world^-1` for a rigid body.
    pub body_inv_mass: Vec<[f64; 36]>,
    /// Each liquid particle's inverse mass 1/m_k (positive).
    pub particle_inv_mass: Vec<f64>,
    /// The rows.
    pub rows: Vec<StructuredRow>,
}

/// The buffers of a structured problem's checks and products, kept between solves.
#[derive(Debug, Clone)]
pub struct StructuredScratch {
    /// The rows' q, lo, hi and friction (see [`StructuredProblem::columns_into`]).
    pub(crate) q: Vec<f64>,
    /// The rows' lower bounds.
    pub(crate) lo: Vec<f64>,
    /// The rows' upper bounds.
    pub(crate) hi: Vec<f64>,
    /// The rows' friction normals.
    pub(crate) fr: Vec<Option<usize>>,
    m: DenseMatrix,
    ch: Cholesky,
    imp: Vec<f64>,
    f: Vec<f64>,
    pv: Vec<f64>,
}

impl Default for StructuredScratch {
    fn default() -> Self {
        Self {
            q: Vec::new(),
            lo: Vec::new(),
            hi: Vec::new(),
            fr: Vec::new(),
            m: DenseMatrix::zeros(0, 0),
            ch: Cholesky::empty(),
            imp: Vec::new(),
            f: Vec::new(),
            pv: Vec::new(),
        }
    }
}

/// A rigid body's 6x6 inverse mass from its mass and world inverse inertia (row-major 3x3).
pub fn body_inverse_mass(mass: f64, inv_inertia: [f64; 9]) -> [f64; 36] {
    let mut w = [0.0; 36];
    for i in 0..3 {
        w[i * 6 + i] = 1.0 / mass;
        for j in 0..3 {
            w[(i + 3) * 6 + j + 3] = inv_inertia[i * 3 + j];
        }
    }
    w
}

impl StructuredProblem {
    /// The number of rows.
    pub fn len(&self) -> usize {
        self.rows.len()
    }

    /// True for a problem with no rows.
    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }

    /// The q vector.
    pub fn q(&self) -> Vec<f64> {
        self.rows.iter().map(|r| r.q).collect()
    }

    /// Check indices, finiteness, symmetry and bounds; the message names the place.
    pub fn validate(&self) -> Result<(), String> {
        self.validate_with(&mut StructuredScratch::default())
    }

    /// [`StructuredProblem::validate`] with the buffers of `s`.
    pub fn validate_with(&self, s: &mut StructuredScratch) -> Result<(), String> {
        for (b, w) in self.body_inv_mass.iter().enumerate() {
            if w.iter().any(|v| !v.is_finite()) {
                return Err(format!("bodies[{b}]: inverse mass has a non-finite entry"));
            }
            let scale = w.iter().fold(0.0f64, |s, v| s.max(v.abs()));
            for i in 0..6 {
                for j in 0..i {
                    if (w[i * 6 + j] - w[j * 6 + i]).abs() > 1e-9 * scale {
                        return Err(format!("bodies[{b}]: inverse mass is not symmetric"));
                    }
                }
            }
            s.m.set_row_major(6, 6, w);
            if !s.ch.refactor(&s.m, 1e-13) {
                return Err(format!(
                    "bodies[{b}]: inverse mass is not positive definite"
                ));
            }
        }
        for (k, &im) in self.particle_inv_mass.iter().enumerate() {
            if !im.is_finite() || im <= 0.0 {
                return Err(format!("particles[{k}]: inverse mass {im} is not positive"));
            }
        }
        for (i, r) in self.rows.iter().enumerate() {
            if let Some(p) = &r.particle {
                if p.particle >= self.particle_inv_mass.len() {
                    return Err(format!("rows[{i}]: particle {} does not exist", p.particle));
                }
                if p.n.iter().any(|v| !v.is_finite()) {
                    return Err(format!("rows[{i}]: particle direction is not finite"));
                }
            }
            let mut seen = None;
            for t in r.body_terms() {
                if t.body >= self.body_inv_mass.len() {
                    return Err(format!("rows[{i}]: body {} does not exist", t.body));
                }
                if seen == Some(t.body) {
                    return Err(format!("rows[{i}]: body {} coupled twice", t.body));
                }
                seen = Some(t.body);
                if t.j.iter().any(|v| !v.is_finite()) {
                    return Err(format!("rows[{i}]: body Jacobian is not finite"));
                }
            }
        }
        self.columns_into(s);
        check_rows(&s.q, &s.lo, &s.hi, &s.fr).map_err(|e| format!("rows: {e}"))
    }

    /// The rows' q, lo, hi and friction into the buffers of `s`.
    pub(crate) fn columns_into(&self, s: &mut StructuredScratch) {
        s.q.clear();
        s.q.extend(self.rows.iter().map(|r| r.q));
        s.lo.clear();
        s.lo.extend(self.rows.iter().map(|r| r.lo));
        s.hi.clear();
        s.hi.extend(self.rows.iter().map(|r| r.hi));
        s.fr.clear();
        s.fr.extend(self.rows.iter().map(|r| r.friction));
    }

    /// `f = W J^T z`: the velocity change of every body (6 numbers each).
    pub fn body_velocity(&self, z: &[f64]) -> Vec<f64> {
        let mut f = Vec::new();
        self.body_velocity_into(z, &mut Vec::new(), &mut f);
        f
    }

    /// [`StructuredProblem::body_velocity`] into `f`, with `imp` as scratch.
    pub fn body_velocity_into(&self, z: &[f64], imp: &mut Vec<f64>, f: &mut Vec<f64>) {
        let nb = self.body_inv_mass.len();
        imp.clear();
        imp.resize(6 * nb, 0.0);
        for (r, &zi) in self.rows.iter().zip(z) {
            for t in r.body_terms() {
                for c in 0..6 {
                    imp[6 * t.body + c] += t.j[c] * zi;
                }
            }
        }
        f.clear();
        f.resize(6 * nb, 0.0);
        for b in 0..nb {
            let w = &self.body_inv_mass[b];
            for i in 0..6 {
                f[6 * b + i] = dot(&w[i * 6..i * 6 + 6], &imp[6 * b..6 * b + 6]);
            }
        }
    }

    /// The velocity change of every particle: `sum n_i z_i / m_k` (3 numbers each).
    pub fn particle_velocity(&self, z: &[f64]) -> Vec<f64> {
        let mut v = Vec::new();
        self.particle_velocity_into(z, &mut v);
        v
    }

    /// [`StructuredProblem::particle_velocity`] into `v`.
    fn particle_velocity_into(&self, z: &[f64], v: &mut Vec<f64>) {
        v.clear();
        v.resize(3 * self.particle_inv_mass.len(), 0.0);
        for (r, &zi) in self.rows.iter().zip(z) {
            if let Some(p) = &r.particle {
                let im = self.particle_inv_mass[p.particle];
                for c in 0..3 {
                    v[3 * p.particle + c] += p.n[c] * zi * im;
                }
            }
        }
    }

    /// `w = A z + q`, computed in O(n) through the body and particle velocities.
    pub fn w(&self, z: &[f64]) -> Vec<f64> {
        let mut w = Vec::new();
        self.w_into(z, &mut StructuredScratch::default(), &mut w);
        w
    }

    /// [`StructuredProblem::w`] into `out` (cleared first), with the buffers of `s`.
    pub fn w_into(&self, z: &[f64], s: &mut StructuredScratch, out: &mut Vec<f64>) {
        self.body_velocity_into(z, &mut s.imp, &mut s.f);
        self.particle_velocity_into(z, &mut s.pv);
        let (f, pv) = (&s.f, &s.pv);
        out.clear();
        out.extend(self.rows.iter().map(|r| {
            let mut w = r.q;
            if let Some(p) = &r.particle {
                w += dot(&p.n, &pv[3 * p.particle..3 * p.particle + 3]);
            }
            for t in r.body_terms() {
                w += dot6(&t.j, six(f, 6 * t.body));
            }
            w
        }));
    }

    /// The matrix entry `A_ij`.
    pub fn entry(&self, i: usize, j: usize) -> f64 {
        let (ri, rj) = (&self.rows[i], &self.rows[j]);
        let mut a = 0.0;
        if let (Some(pi), Some(pj)) = (&ri.particle, &rj.particle)
            && pi.particle == pj.particle
        {
            a += dot(&pi.n, &pj.n) * self.particle_inv_mass[pi.particle];
        }
        for ti in ri.body_terms() {
            for tj in rj.body_terms() {
                if ti.body == tj.body {
                    let w = &self.body_inv_mass[ti.body];
                    for r in 0..6 {
                        a += ti.j[r] * dot(&w[r * 6..r * 6 + 6], &tj.j);
                    }
                }
            }
        }
        a
    }

    /// The dense form of the same problem (n x n; for tests, small problems and replay).
    pub fn to_dense(&self) -> DenseProblem {
        let n = self.len();
        let mut m = DenseMatrix::zeros(n, n);
        for i in 0..n {
            for j in i..n {
                let a = self.entry(i, j);
                m[(i, j)] = a;
                m[(j, i)] = a;
            }
        }
        DenseProblem {
            m,
            q: self.q(),
            lo: self.rows.iter().map(|r| r.lo).collect(),
            hi: self.rows.iter().map(|r| r.hi).collect(),
            friction: self.rows.iter().map(|r| r.friction).collect(),
        }
    }
}
