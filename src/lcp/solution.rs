//! What a solver returns: the outcome, z, w, the work done, and residuals computed afterwards.

/// How a solve ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Outcome {
    /// z satisfies the complementarity conditions.
    Solved,
    /// The pivoting path left along a ray: no solution was found on it.
    Ray,
    /// The pivot or iteration limit was reached first.
    PivotLimit,
    /// A required pivot or factorisation was numerically singular.
    Singular,
}

impl Outcome {
    /// The outcome a solve reports for its final point: `Solved` whenever the residuals meet
    /// `SOLVED_RESIDUAL`, whatever the drive ended with (a pivot limit, a cycle or a ray
    /// reached at a solution), and otherwise `self`.
    pub fn judged(self, residuals: &Residuals) -> Outcome {
        if residuals.relative() <= SOLVED_RESIDUAL {
            Outcome::Solved
        } else {
            self
        }
    }

    /// The lower-case name used in JSON and on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Outcome::Solved => "solved",
            Outcome::Ray => "ray",
            Outcome::PivotLimit => "pivot_limit",
            Outcome::Singular => "singular",
        }
    }
}

impl std::fmt::Display for Outcome {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// The largest relative residual a pivoting result may have and still be reported as solved.
pub const SOLVED_RESIDUAL: f64 = 1e-9;

/// Violations of the (boxed) complementarity conditions, computed from z and w after a solve.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Residuals {
    /// max(lo - z, 0): max(-z) for a standard LCP.
    pub lower: f64,
    /// max(z - hi, 0).
    pub upper: f64,
    /// Sign violation of w: max(-w) on rows without an upper bound, max(w) on rows without a
    /// lower bound, |w| on free rows.
    pub sign: f64,
    /// Complementarity: |(z - lo) w| where w >= 0, |(hi - z) w| where w < 0 (max|z w| for a
    /// standard LCP).
    pub complementarity: f64,
    /// The scale of z (max |z|, at least the smallest positive f64).
    pub z_scale: f64,
    /// The scale of w (max of |q| and |M| |z|).
    pub w_scale: f64,
}

impl Residuals {
    /// Compute the residuals of z, w against the bounds in force; `w_scale` is the data's scale
    /// for w (e.g. max(|q|, |M| |z|)).
    pub fn compute(z: &[f64], w: &[f64], lo: &[f64], hi: &[f64], w_scale: f64) -> Self {
        let mut r = Residuals {
            z_scale: z.iter().fold(0.0f64, |m, v| m.max(v.abs())),
            w_scale,
            ..Default::default()
        };
        for i in 0..z.len() {
            let (zi, wi, l, h) = (z[i], w[i], lo[i], hi[i]);
            r.lower = r.lower.max(l - zi);
            r.upper = r.upper.max(zi - h);
            if h == f64::INFINITY {
                r.sign = r.sign.max(-wi);
            }
            if l == f64::NEG_INFINITY {
                r.sign = r.sign.max(wi);
            }
            let c = if wi >= 0.0 {
                if l.is_finite() {
                    ((zi - l) * wi).abs()
                } else {
                    0.0
                }
            } else if h.is_finite() {
                ((h - zi) * wi).abs()
            } else if l.is_finite() {
                ((zi - l) * wi).abs()
            } else {
                0.0
            };
            r.complementarity = r.complementarity.max(c);
        }
        r.lower = r.lower.max(0.0);
        r.upper = r.upper.max(0.0);
        r.sign = r.sign.max(0.0);
        r
    }

    /// The worst violation relative to the data's scale: bound violations over the scale of z,
    /// sign violations over the scale of w, complementarity over the product.
    pub fn relative(&self) -> f64 {
        let zs = self.z_scale.max(f64::MIN_POSITIVE);
        let ws = self.w_scale.max(f64::MIN_POSITIVE);
        (self.lower / zs)
            .max(self.upper / zs)
            .max(self.sign / ws)
            .max(self.complementarity / (zs * ws))
    }
}

/// The result of a solve.
#[derive(Debug, Clone, PartialEq)]
pub struct Solution {
    /// How the solve ended.
    pub outcome: Outcome,
    /// The unknowns (the last iterate when the outcome is not `Solved`).
    pub z: Vec<f64>,
    /// `w = M z + q`, recomputed from z.
    pub w: Vec<f64>,
    /// Single-index pivots performed (Lemke, Dantzig, and Dantzig sub-solves).
    pub pivots: usize,
    /// Outer iterations: block-pivoting steps, friction rounds of Dantzig
    /// (at least 1); Lemke has none (0), so 0 from `dantzig` means it fell back to Lemke.
    pub iterations: usize,
    /// Residuals of z and w, computed after the solve.
    pub residuals: Residuals,
}

impl Solution {
    /// True when the outcome is `Solved`.
    pub fn is_solved(&self) -> bool {
        self.outcome == Outcome::Solved
    }
}
