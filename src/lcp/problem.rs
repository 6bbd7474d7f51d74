//! The dense (boxed) LCP: `w = M z + q`, `lo <= z <= hi`, with friction bounds that follow
//! another row's value.
use super::matrix::DenseMatrix;

/// A dense linear complementarity problem, standard or boxed.
///
/// Row i has bounds `[lo_i, hi_i]` (infinite allowed). When `friction[i] = Some(j)` the
/// bounds are `[lo_i * z_j, hi_i * z_j]` instead (ODE's findex: `lo_i = -mu`, `hi_i = mu`).
/// The conditions are: `z_i = lo_i` and `w_i >= 0`, or `z_i = hi_i` and `w_i <= 0`, or
/// `lo_i < z_i < hi_i` and `w_i = 0`.
#[derive(Debug, Clone, PartialEq)]
pub struct DenseProblem {
    /// The square matrix M.
    pub m: DenseMatrix,
    /// The vector q.
    pub q: Vec<f64>,
    /// Lower bounds (or friction coefficients), -inf allowed.
    pub lo: Vec<f64>,
    /// Upper bounds (or friction coefficients), +inf allowed.
    pub hi: Vec<f64>,
    /// For friction rows, the index of the row whose value scales the bounds.
    pub friction: Vec<Option<usize>>,
}

impl DenseProblem {
    /// The standard LCP `z >= 0, w = M z + q >= 0, z.w = 0`.
    pub fn standard(m: DenseMatrix, q: Vec<f64>) -> Self {
        let n = q.len();
        Self {
            m,
            q,
            lo: vec![0.0; n],
            hi: vec![f64::INFINITY; n],
            friction: vec![None; n],
        }
    }

    /// A boxed LCP with constant bounds.
    pub fn boxed(m: DenseMatrix, q: Vec<f64>, lo: Vec<f64>, hi: Vec<f64>) -> Self {
        let n = q.len();
        Self {
            m,
            q,
            lo,
            hi,
            friction: vec![None; n],
        }
    }

    /// The number of rows.
    pub fn len(&self) -> usize {
        self.q.len()
    }

    /// True for a problem with no rows.
    pub fn is_empty(&self) -> bool {
        self.q.is_empty()
    }

    /// True when every row has bounds `[0, inf)` and no friction coupling.
    pub fn is_standard(&self) -> bool {
        (0..self.len())
            .all(|i| self.lo[i] == 0.0 && self.hi[i] == f64::INFINITY && self.friction[i].is_none())
    }

    /// `w = M z + q`.
    pub fn w(&self, z: &[f64]) -> Vec<f64> {
        let mut w = Vec::new();
        self.w_into(z, &mut w);
        w
    }

    /// [`DenseProblem::w`] into `w` (a buffer kept by the caller).
    pub fn w_into(&self, z: &[f64], w: &mut Vec<f64>) {
        self.m.mul_vec_into(z, w);
        for (wi, qi) in w.iter_mut().zip(&self.q) {
            *wi += qi;
        }
    }

    /// The bounds in force at `z` (friction rows scaled by their normal row's value).
    pub fn bounds_at(&self, z: &[f64]) -> (Vec<f64>, Vec<f64>) {
        effective_bounds(&self.lo, &self.hi, &self.friction, z)
    }

    /// Check shapes, finiteness, bounds order and friction indices; the message names the place.
    pub fn validate(&self) -> Result<(), String> {
        let n = self.q.len();
        if self.m.rows() != n || self.m.cols() != n {
            return Err(format!(
                "M is {}x{} but q has {} entries",
                self.m.rows(),
                self.m.cols(),
                n
            ));
        }
        if self.lo.len() != n || self.hi.len() != n || self.friction.len() != n {
            return Err(format!("lo, hi and friction must have {n} entries"));
        }
        for i in 0..n {
            for j in 0..n {
                if !self.m[(i, j)].is_finite() {
                    return Err(format!("M[{i}][{j}] is not a finite number"));
                }
            }
        }
        check_rows(&self.q, &self.lo, &self.hi, &self.friction)
    }
}

/// Check q, bounds and friction indices of a problem's rows; shared by both forms.
pub(crate) fn check_rows(
    q: &[f64],
    lo: &[f64],
    hi: &[f64],
    friction: &[Option<usize>],
) -> Result<(), String> {
    let n = q.len();
    for i in 0..n {
        if !q[i].is_finite() {
            return Err(format!("q[{i}] is not a finite number"));
        }
        if lo[i].is_nan() || hi[i].is_nan() {
            return Err(format!("lo[{i}] or hi[{i}] is NaN"));
        }
        if lo[i] > hi[i] {
            return Err(format!("lo[{i}] = {} exceeds hi[{i}] = {}", lo[i], hi[i]));
        }
        if lo[i] == f64::INFINITY || hi[i] == f64::NEG_INFINITY {
            return Err(format!("row {i}: lo cannot be +inf nor hi -inf"));
        }
        if let Some(j) = friction[i] {
            if j >= n || j == i {
                return Err(format!("friction[{i}] = {j} is not another row"));
            }
            if friction[j].is_some() {
                return Err(format!(
                    "friction[{i}] = {j} points at a row that is itself a friction row"
                ));
            }
            if !lo[i].is_finite() || !hi[i].is_finite() {
                return Err(format!("friction row {i} needs finite coefficients lo, hi"));
            }
        }
    }
    Ok(())
}

/// The bounds in force at `z`: friction rows get `[lo_i z_j, hi_i z_j]`.
pub(crate) fn effective_bounds(
    lo: &[f64],
    hi: &[f64],
    friction: &[Option<usize>],
    z: &[f64],
) -> (Vec<f64>, Vec<f64>) {
    let (mut l, mut h) = (Vec::new(), Vec::new());
    effective_bounds_into(lo, hi, friction, z, &mut l, &mut h);
    (l, h)
}

/// [`effective_bounds`] into `l` and `h` (buffers kept by the caller).
pub(crate) fn effective_bounds_into(
    lo: &[f64],
    hi: &[f64],
    friction: &[Option<usize>],
    z: &[f64],
    l: &mut Vec<f64>,
    h: &mut Vec<f64>,
) {
    l.clear();
    l.extend_from_slice(lo);
    h.clear();
    h.extend_from_slice(hi);
    for (i, f) in friction.iter().enumerate() {
        if let Some(j) = *f {
            let s = z[j].max(0.0);
            l[i] = lo[i] * s;
            h[i] = hi[i] * s;
        }
    }
}
