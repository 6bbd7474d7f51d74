//! Dantzig/Baraff principal pivoting for a boxed LCP with constant bounds: each row in turn is
//! driven until its w reaches zero or its z a bound, taking the largest step that keeps every
//! processed row feasible. The clamped set's inverse is kept up to date by bordering. A warm
//! start (module `warm`) begins the drive from an earlier solve's index sets.
use super::matrix::{DenseMatrix, Lu, dot};
use super::solution::Outcome;

mod warm;

/// Where a row ended: the index sets of the principal pivoting.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum State {
    Waiting,
    Clamped,
    AtLo,
    AtHi,
    Fixed,
    /// Strictly inside its bounds with w = 0, but its column depends on C's numerically: it
    /// stays put while its w stays zero, and joins C as soon as a step would change its w.
    Parked,
}

/// What the drive needs to know of M, found once a matrix rather than once a solve: whether
/// it equals its transpose exactly (else its columns are copied out for `dw = M dz`) and its
/// largest entry, the scale of the pivot tolerances.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct MatrixFacts {
    pub(crate) symmetric: bool,
    pub(crate) scale: f64,
}

impl MatrixFacts {
    /// Measured from the entries: O(n^2).
    pub(crate) fn of(m: &DenseMatrix) -> Self {
        Self {
            symmetric: m.is_exactly_symmetric(),
            scale: m.max_abs().max(f64::MIN_POSITIVE),
        }
    }

    /// For a matrix built exactly symmetric and positive semi-definite, whose largest entry
    /// lies on its diagonal (`|m_ij| <= sqrt(m_ii m_jj)`): O(n).
    pub(crate) fn symmetric_psd(m: &DenseMatrix) -> Self {
        debug_assert!(m.is_exactly_symmetric());
        let diag = (0..m.rows()).fold(0.0f64, |s, i| s.max(m[(i, i)].abs()));
        Self {
            symmetric: true,
            scale: diag.max(f64::MIN_POSITIVE),
        }
    }
}

/// When a column counts as dependent on the clamped set's: its Schur complement is at most
/// `rel` times its diagonal entry plus `floor`. Contact data rounded to f32 leaves dependent
/// columns a relative 1e-7 apart, whose Schur complements are some 1e-14 of the diagonal;
/// adding such a column makes C's matrix singular in all but name and sends z along M's null
/// space.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Singular {
    rel: f64,
    floor: f64,
}

impl Singular {
    /// The largest Schur complement of row i that still counts as zero.
    fn limit(self, m: &DenseMatrix, i: usize) -> f64 {
        self.rel * m[(i, i)].abs() + self.floor
    }
}

/// What stops a drive step.
#[derive(Debug, Clone, Copy)]
enum Block {
    DriveZero,
    DriveBound(bool),
    ClampedBound(usize, bool),
    Unclamp(usize),
}

/// The inverse of M restricted to the clamped set, kept up to date by bordering (with scratch
/// buffers, so that a bordering allocates only when the set outgrows them).
#[derive(Debug, Clone, Default)]
struct ClampedInverse {
    idx: Vec<usize>,
    inv: Vec<f64>,
    b: Vec<f64>,
    r: Vec<f64>,
    u: Vec<f64>,
    v: Vec<f64>,
    /// The next inverse, swapped with `inv`.
    next: Vec<f64>,
    /// A refactoring's matrix, its factorisation, unit vector and solution.
    sub: DenseMatrix,
    lu: Lu,
    e: Vec<f64>,
    x: Vec<f64>,
}

impl ClampedInverse {
    fn k(&self) -> usize {
        self.idx.len()
    }

    /// Empty the clamped set, keeping the buffers.
    fn clear(&mut self) {
        self.idx.clear();
        self.inv.clear();
    }

    /// Add row/column i; false if its Schur complement says it depends on C's (see
    /// [`Singular`]).
    fn add(&mut self, m: &DenseMatrix, i: usize, tol: Singular) -> bool {
        let k = self.k();
        let (b, r, u, v) = (&mut self.b, &mut self.r, &mut self.u, &mut self.v);
        b.clear();
        b.extend(self.idx.iter().map(|&c| m[(c, i)]));
        r.clear();
        r.extend(self.idx.iter().map(|&c| m[(i, c)]));
        let old = &self.inv;
        u.clear();
        u.extend((0..k).map(|a| dot(&old[a * k..(a + 1) * k], b)));
        // v = r^T old, accumulated row by row (contiguous rows, not strided columns), each
        // entry summed in the same order and from the same -0.0 as an iterator's sum.
        v.clear();
        v.resize(k, -0.0);
        for (&ra, row) in r.iter().zip(old.chunks_exact(k.max(1))) {
            for (vc, &o) in v.iter_mut().zip(row) {
                *vc += ra * o;
            }
        }
        let s = m[(i, i)] - dot(r, u);
        if s.abs() <= tol.limit(m, i) || !s.is_finite() {
            return false;
        }
        let k1 = k + 1;
        let inv = &mut self.next;
        inv.clear();
        inv.resize(k1 * k1, 0.0);
        for a in 0..k {
            for c in 0..k {
                inv[a * k1 + c] = self.inv[a * k + c] + u[a] * v[c] / s;
            }
            inv[a * k1 + k] = -u[a] / s;
            inv[k * k1 + a] = -v[a] / s;
        }
        inv[k * k1 + k] = 1.0 / s;
        std::mem::swap(&mut self.inv, &mut self.next);
        self.idx.push(i);
        true
    }

    /// Recompute the inverse from M's entries (bordering updates drift on near-singular sets);
    /// false, inverse unchanged, if `M_CC` is numerically singular.
    fn refactor(&mut self, m: &DenseMatrix) -> bool {
        let k = self.k();
        let (sub, lu, e, x) = (&mut self.sub, &mut self.lu, &mut self.e, &mut self.x);
        sub.reset(k, k);
        for (a, &r) in self.idx.iter().enumerate() {
            for (c, &col) in self.idx.iter().enumerate() {
                sub[(a, c)] = m[(r, col)];
            }
        }
        if !lu.refactor(sub, 1e-14) {
            return false;
        }
        e.clear();
        e.resize(k, 0.0);
        for c in 0..k {
            e[c] = 1.0;
            lu.solve_into(e, x);
            e[c] = 0.0;
            for (a, &xa) in x.iter().enumerate() {
                self.inv[a * k + c] = xa;
            }
        }
        true
    }

    /// Remove the clamped entry at position p.
    fn remove(&mut self, p: usize) {
        let k = self.k();
        let piv = self.inv[p * k + p];
        let (old, inv) = (&self.inv, &mut self.next);
        inv.clear();
        for a in (0..k).filter(|&a| a != p) {
            for c in (0..k).filter(|&c| c != p) {
                inv.push(old[a * k + c] - old[a * k + p] * old[p * k + c] / piv);
            }
        }
        std::mem::swap(&mut self.inv, &mut self.next);
        self.idx.remove(p);
    }
}

/// Boxed LCP with constant bounds. Returns z and the outcome; `pivots` is incremented by the
/// number of drive steps. Free rows are processed first, then the rest in order.
pub(crate) fn boxed_fixed(
    m: &DenseMatrix,
    q: &[f64],
    lo: &[f64],
    hi: &[f64],
    tol: f64,
    limit: usize,
    pivots: &mut usize,
) -> (Vec<f64>, Outcome) {
    let facts = MatrixFacts::of(m);
    let (z, outcome, _) = boxed_solve(m, q, lo, hi, tol, limit, pivots, None, facts);
    (z, outcome)
}

/// The buffers of a boxed drive, kept between solves by whoever solves again (the
/// block-pivoting solver's sub-solves), so that a drive allocates only where a problem
/// outgrows the largest before it. A solve leaves its z and final states here.
#[derive(Debug, Clone, Default)]
pub(crate) struct BoxedWork {
    /// The last solve's z.
    pub(crate) z: Vec<f64>,
    /// The last solve's final states.
    pub(crate) state: Vec<State>,
    w: Vec<f64>,
    cl: ClampedInverse,
    order: Vec<usize>,
    dz: Vec<f64>,
    dw: Vec<f64>,
    mcd: Vec<f64>,
    skip: Vec<usize>,
    /// The polish's system, its factorisation, right-hand side and solution.
    sub: DenseMatrix,
    lu: Lu,
    rhs: Vec<f64>,
    x: Vec<f64>,
    /// The warm start's repair: the clamped rows' residuals, those that leave their bounds,
    /// and those that stay.
    r: Vec<f64>,
    out: Vec<usize>,
    keep: Vec<usize>,
}

/// `boxed_fixed`, optionally warm-started from an earlier solve's z and final states (of the
/// same length): rows whose old state still holds keep it, and only the others are driven.
/// `facts` are M's (see [`MatrixFacts`]).
/// Also returns the final states.
#[allow(clippy::too_many_arguments)]
pub(crate) fn boxed_solve(
    m: &DenseMatrix,
    q: &[f64],
    lo: &[f64],
    hi: &[f64],
    tol: f64,
    limit: usize,
    pivots: &mut usize,
    warm: Option<(&[f64], &[State])>,
    facts: MatrixFacts,
) -> (Vec<f64>, Outcome, Vec<State>) {
    let mut work = BoxedWork::default();
    let outcome = boxed_solve_in(&mut work, m, q, lo, hi, tol, limit, pivots, warm, facts);
    (work.z, outcome, work.state)
}

/// [`boxed_solve`] with the buffers of `work`, where it leaves z and the final states.
#[allow(clippy::too_many_arguments)]
pub(crate) fn boxed_solve_in(
    work: &mut BoxedWork,
    m: &DenseMatrix,
    q: &[f64],
    lo: &[f64],
    hi: &[f64],
    tol: f64,
    limit: usize,
    pivots: &mut usize,
    warm: Option<(&[f64], &[State])>,
    facts: MatrixFacts,
) -> Outcome {
    debug_assert_eq!(facts.symmetric, m.is_exactly_symmetric());
    let n = q.len();
    let mscale = facts.scale;
    let qscale = q.iter().fold(0.0f64, |s, v| s.max(v.abs()));
    let wtol = 1e-12 * qscale.max(f64::MIN_POSITIVE);
    // A driven row whose column depends on C's (its w no longer moves) is accepted when its w
    // is this close to zero: what is left is the data's inconsistency (q rounded along a null
    // direction of M), no larger than the residual a solve is judged by.
    let wdep = DEPENDENT_W * qscale.max(f64::MIN_POSITIVE);
    let stol = Singular {
        rel: SINGULAR_SCHUR,
        floor: tol.max(1e-14) * 10.0 * mscale,
    };
    let warm = warm.filter(|(z, s)| z.len() == n && s.len() == n);
    match warm {
        Some((zprev, prev)) => warm::repair(work, m, q, lo, hi, zprev, prev, stol, wtol),
        None => {
            work.z.clear();
            work.z.extend((0..n).map(|i| 0.0f64.clamp(lo[i], hi[i])));
            m.mul_vec_into(&work.z, &mut work.w);
            for (wi, qi) in work.w.iter_mut().zip(q) {
                *wi += qi;
            }
            work.state.clear();
            work.state.resize(n, State::Waiting);
            work.cl.clear();
        }
    }
    let BoxedWork {
        z,
        state,
        w,
        cl,
        order,
        dz,
        dw,
        mcd,
        skip,
        sub,
        lu,
        rhs,
        x,
        ..
    } = work;
    // M's columns as contiguous rows, for the direction's dw = M dz.
    let transposed = (!facts.symmetric).then(|| m.transpose());
    let column = |c: usize| transposed.as_ref().map_or(m.row(c), |t| t.row(c));
    let free = |i: usize| lo[i] == f64::NEG_INFINITY && hi[i] == f64::INFINITY;
    order.clear();
    order.extend((0..n).filter(|&i| free(i)));
    order.extend((0..n).filter(|&i| !free(i)));
    dz.clear();
    dz.resize(n, 0.0);
    dw.clear();
    dw.resize(n, 0.0);
    let start = *pivots;
    for &d in order.iter() {
        if state[d] != State::Waiting {
            continue;
        }
        if lo[d] == hi[d] {
            z[d] = lo[d];
            state[d] = State::Fixed;
            continue;
        }
        // Rows whose joining C proved numerically singular during this drive: in exact
        // arithmetic their dw is zero (their column lies in the span of C's), so they never block.
        skip.clear();
        // The row the last step moved into C from a bound, and whether C's inverse has been
        // refactored since: in exact arithmetic such a row moves into its interior next.
        let mut joined: Option<usize> = None;
        let mut refactored = false;
        loop {
            let wd = w[d];
            if z[d] <= lo[d] && wd >= -wtol {
                state[d] = State::AtLo;
                break;
            }
            if z[d] >= hi[d] && wd <= wtol {
                state[d] = State::AtHi;
                break;
            }
            if wd.abs() <= wtol && z[d] > lo[d] && z[d] < hi[d] {
                state[d] = if cl.add(m, d, stol) {
                    State::Clamped
                } else {
                    State::Parked
                };
                break;
            }
            if *pivots - start >= limit {
                return Outcome::PivotLimit;
            }
            *pivots += 1;
            let s = if wd < 0.0 { 1.0 } else { -1.0 };
            // Direction: dz_d = s, dz_C = -inv M_Cd s, dw = M dz.
            let k = cl.k();
            mcd.clear();
            mcd.extend(cl.idx.iter().map(|&c| m[(c, d)]));
            dz.iter_mut().for_each(|v| *v = 0.0);
            dz[d] = s;
            for a in 0..k {
                dz[cl.idx[a]] = -s * dot(&cl.inv[a * k..(a + 1) * k], mcd);
            }
            dw.iter_mut().for_each(|v| *v = 0.0);
            axpy(dw, s, column(d));
            for &c in &cl.idx {
                axpy(dw, dz[c], column(c));
            }
            for &c in &cl.idx {
                dw[c] = 0.0;
            }
            // dw_d s is d's Schur complement: at or below the singular limit d's column depends
            // on C's and its w does not move (Baraff's dw_d = 0). Then d is done if its w is
            // zero to the data's accuracy; otherwise only another row can limit the step.
            let dependent = dw[d] * s <= stol.limit(m, d);
            if dependent && wd.abs() <= wdep {
                state[d] = resting(z[d], lo[d], hi[d]);
                break;
            }
            // Largest step.
            let mut best = f64::INFINITY;
            let mut block = None;
            // The driven row's own events come first and win ties: a tie lost to an unclamp
            // can leave d's w at zero with its column dependent on C's.
            let mut consider = |t: f64, b: Block| {
                let t = t.max(0.0);
                if t < best && (best == f64::INFINITY || t < best * (1.0 - 1e-12)) {
                    best = t;
                    block = Some(b);
                }
            };
            let dz_norm: f64 = std::iter::once(d)
                .chain(cl.idx.iter().copied())
                .map(|c| dz[c].abs())
                .sum();
            let dwtol = 1e-12 * mscale * dz_norm;
            if !dependent && dw[d] * s > dwtol {
                consider(-wd / dw[d], Block::DriveZero);
            }
            if s > 0.0 && hi[d].is_finite() {
                consider(hi[d] - z[d], Block::DriveBound(true));
            }
            if s < 0.0 && lo[d].is_finite() {
                consider(z[d] - lo[d], Block::DriveBound(false));
            }
            let dztol = 1e-13 * dz_norm;
            for (p, &c) in cl.idx.iter().enumerate() {
                if dz[c] < -dztol && lo[c].is_finite() {
                    consider((lo[c] - z[c]) / dz[c], Block::ClampedBound(p, false));
                }
                if dz[c] > dztol && hi[c].is_finite() {
                    consider((hi[c] - z[c]) / dz[c], Block::ClampedBound(p, true));
                }
            }
            for i in 0..n {
                if skip.contains(&i) {
                    continue;
                }
                match state[i] {
                    State::AtLo if dw[i] < -dwtol => consider(-w[i] / dw[i], Block::Unclamp(i)),
                    State::AtHi if dw[i] > dwtol => consider(-w[i] / dw[i], Block::Unclamp(i)),
                    State::Parked if dw[i].abs() > dwtol => consider(0.0, Block::Unclamp(i)),
                    _ => {}
                }
            }
            let Some(block) = block else {
                // Nothing limits the step: d with C gives a direction in which z grows without
                // bound and d's w never reaches zero, a certificate that the problem (with the
                // rows processed so far, and so the whole of it) is infeasible.
                return Outcome::Ray;
            };
            // A row that just joined C from a bound must move into its interior (its w was
            // falling, and its Schur complement is positive). A degenerate step that throws it
            // straight back out is rounding in C's inverse: refactor once, and if it persists
            // treat the row as dependent on C (its dw is zero in exact arithmetic), so that
            // the two never cycle.
            if let (Block::ClampedBound(p, up), Some(j)) = (block, joined)
                && cl.idx[p] == j
                && best <= DEGENERATE_STEP * (z[j].abs() + dz[j].abs())
            {
                if !refactored && cl.refactor(m) {
                    refactored = true;
                    continue;
                }
                cl.remove(p);
                z[j] = if up { hi[j] } else { lo[j] };
                state[j] = if up { State::AtHi } else { State::AtLo };
                skip.push(j);
                joined = None;
                continue;
            }
            joined = None;
            let t = best;
            z[d] += t * s;
            for &c in &cl.idx {
                z[c] += t * dz[c];
            }
            for i in 0..n {
                w[i] += t * dw[i];
            }
            match block {
                Block::DriveZero => {
                    w[d] = 0.0;
                    state[d] = if cl.add(m, d, stol) {
                        State::Clamped
                    } else {
                        State::Parked
                    };
                    break;
                }
                Block::DriveBound(up) => {
                    z[d] = if up { hi[d] } else { lo[d] };
                    state[d] = if up { State::AtHi } else { State::AtLo };
                    break;
                }
                Block::ClampedBound(p, up) => {
                    let c = cl.idx[p];
                    z[c] = if up { hi[c] } else { lo[c] };
                    state[c] = if up { State::AtHi } else { State::AtLo };
                    cl.remove(p);
                }
                Block::Unclamp(i) => {
                    w[i] = 0.0;
                    if cl.add(m, i, stol) {
                        state[i] = State::Clamped;
                        joined = Some(i);
                        refactored = false;
                    } else {
                        skip.push(i);
                    }
                }
            }
        }
    }
    polish(m, q, &cl.idx, z, sub, lu, rhs, x);
    Outcome::Solved
}

/// The largest |w| (relative to q's scale) a driven row whose column depends on the clamped
/// set's may keep: the residual a Dantzig solve is judged by.
const DEPENDENT_W: f64 = 1e-9;

/// The relative size of a Schur complement below which a column counts as dependent.
const SINGULAR_SCHUR: f64 = 1e-9;

/// A step at most this fraction of a row's scale counts as degenerate (length zero).
const DEGENERATE_STEP: f64 = 1e-12;

/// The state of a row whose w is (to tolerance) zero and that stays out of C.
fn resting(z: f64, lo: f64, hi: f64) -> State {
    if z <= lo {
        State::AtLo
    } else if z >= hi {
        State::AtHi
    } else {
        State::Parked
    }
}

/// `y += a x`.
fn axpy(y: &mut [f64], a: f64, x: &[f64]) {
    for (yi, xi) in y.iter_mut().zip(x) {
        *yi += a * xi;
    }
}

/// Re-solve the clamped rows exactly: `M_CC z_C = -(q_C + M_CN z_N)` (in the buffers `sub`,
/// `lu`, `rhs` and `x`).
#[allow(clippy::too_many_arguments)]
fn polish(
    m: &DenseMatrix,
    q: &[f64],
    idx: &[usize],
    z: &mut [f64],
    sub: &mut DenseMatrix,
    lu: &mut Lu,
    rhs: &mut Vec<f64>,
    x: &mut Vec<f64>,
) {
    let k = idx.len();
    if k == 0 {
        return;
    }
    sub.reset(k, k);
    rhs.clear();
    rhs.resize(k, 0.0);
    for (a, &i) in idx.iter().enumerate() {
        let mut r = -q[i];
        for (j, &zj) in z.iter().enumerate() {
            r -= m[(i, j)] * zj;
        }
        for (b, &c) in idx.iter().enumerate() {
            sub[(a, b)] = m[(i, c)];
            r += m[(i, c)] * z[c];
        }
        rhs[a] = r;
    }
    if lu.refactor(sub, 1e-14) {
        lu.solve_into(rhs, x);
        for (a, &i) in idx.iter().enumerate() {
            z[i] = x[a];
        }
    }
}
