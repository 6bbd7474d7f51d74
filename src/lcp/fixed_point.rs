//! Exact solutions of a boxed LCP with friction for given index sets: the fixed point of the
//! friction rounds solved directly, the polish that turns an approximate solution into an
//! exact one by solving its index sets, and the index-set pivoting that searches for the sets
//! of a solution from nearby ones.
use super::boxed::State;
use super::lemke::w_scale;
use super::matrix::{DenseMatrix, Lu};
use super::problem::{DenseProblem, effective_bounds_into};
use super::solution::{Outcome, Residuals, SOLVED_RESIDUAL, Solution};

/// A solved Solution from the index sets an approximate solution `z` suggests (rows at a
/// bound with w pushing outwards stay there, all others are clamped), solved exactly by
/// `fixed_point`; None when those sets do not give a solution.
pub(crate) fn polish(p: &DenseProblem, z: &[f64]) -> Option<Solution> {
    let n = p.len();
    if z.len() != n || z.iter().any(|v| !v.is_finite()) {
        return None;
    }
    let state = states_of(p, z);
    let (z, w) = fixed_point(p, &state, z)?;
    let (lo, hi) = p.bounds_at(&z);
    let residuals = Residuals::compute(&z, &w, &lo, &hi, w_scale(&p.m, &p.q, &z));
    (residuals.relative() <= SOLVED_RESIDUAL).then_some(Solution {
        outcome: Outcome::Solved,
        z,
        w,
        pivots: 0,
        iterations: 0,
        residuals,
    })
}

/// Block principal pivoting on the friction problem's index sets, from `states` and the values
/// `z` their parked rows keep: each step solves the fixed point of its sets (one linear system)
/// and moves rows that break their condition to the state that mends it. All of them move while
/// that lowers the count of broken rows; a step that does not goes back to the best sets and
/// moves only the larger half of their breaks (by size), then a quarter, down to one, after
/// which the broken row of largest index moves every step (Murty's rule, as Judice and Pires
/// guard the method against cycling). Clamped rows whose columns depend on the others' are
/// parked. A solved Solution with its index sets left in `states`, or None (and `states`
/// unchanged) after `steps` steps or on a system it cannot solve.
pub(crate) fn index_set_pivoting(
    p: &DenseProblem,
    z: &[f64],
    states: &mut [State],
    steps: usize,
    work: &mut FixedPointWork,
) -> Option<Solution> {
    let n = p.len();
    if z.len() != n || states.len() != n || z.iter().any(|v| !v.is_finite()) {
        return None;
    }
    let mut search = std::mem::take(&mut work.search);
    let found = search.run(p, z, states, steps, work);
    work.search = search;
    found
}

/// The buffers of [`index_set_pivoting`]: the sets and parked values of the step, of the best
/// step so far, and their broken rows (row, mending state, size of the break).
#[derive(Debug, Clone, Default)]
struct IndexSetSearch {
    state: Vec<State>,
    z: Vec<f64>,
    best_state: Vec<State>,
    best_z: Vec<f64>,
    broken: Vec<(usize, State, f64)>,
    best_broken: Vec<(usize, State, f64)>,
}

impl IndexSetSearch {
    /// [`index_set_pivoting`] with these buffers.
    fn run(
        &mut self,
        p: &DenseProblem,
        z: &[f64],
        states: &mut [State],
        steps: usize,
        work: &mut FixedPointWork,
    ) -> Option<Solution> {
        let n = p.len();
        self.state.clear();
        self.state.extend_from_slice(states);
        // Rows a drive left waiting (it stopped short) take the states z suggests.
        if self.state.contains(&State::Waiting) {
            let suggested = states_of(p, z);
            for (s, &t) in self.state.iter_mut().zip(&suggested) {
                if *s == State::Waiting {
                    *s = t;
                }
            }
        }
        self.z.clear();
        self.z.extend_from_slice(z);
        let mut best = usize::MAX;
        // How many of the best sets' breaks the next step mends; past halving, Murty's rule.
        let mut take = 0;
        let mut murty = false;
        // Steps under Murty's rule since the count of broken rows last fell.
        let mut idle = 0;
        for step in 0..steps {
            if !fixed_point_system(p, &self.state, &self.z, SINGULAR, work) {
                // Clamped rows whose columns depend on the others' are parked where they are
                // (a consistent system leaves their w at zero; the next step checks it).
                if !work.singular {
                    return None;
                }
                let dependent = dependent_columns(&work.sys, DEPENDENT);
                if dependent.is_empty() {
                    return None;
                }
                for u in dependent {
                    self.state[work.clamped[u]] = State::Parked;
                }
                continue;
            }
            self.z.copy_from_slice(&work.a);
            let (zt, wt) = tolerances(p, &work.a);
            p.w_into(&work.a, &mut work.w);
            let FixedPointWork { a, w, lo, hi, .. } = &*work;
            let state = &self.state;
            self.broken.clear();
            self.broken.extend((0..n).filter_map(|i| {
                z_violation(state[i], a[i], lo[i], hi[i], zt)
                    .or_else(|| w_violation(state[i], w[i], lo[i], hi[i], wt))
                    .map(|(size, s)| (i, s, size))
            }));
            if self.broken.is_empty() {
                let residuals = Residuals::compute(a, w, lo, hi, w_scale(&p.m, &p.q, a));
                if residuals.relative() > SOLVED_RESIDUAL {
                    return None;
                }
                states.copy_from_slice(state);
                return Some(Solution {
                    outcome: Outcome::Solved,
                    z: a.clone(),
                    w: w.clone(),
                    pivots: 0,
                    iterations: step + 1,
                    residuals,
                });
            }
            if murty {
                // Murty's rule cannot cycle on a P-matrix, but these are not: a run of steps
                // that finds no better sets ends the search.
                if self.broken.len() < best {
                    best = self.broken.len();
                    idle = 0;
                } else {
                    idle += 1;
                    if idle > MURTY_IDLE {
                        return None;
                    }
                }
                let &(i, s, _) = self.broken.last().expect("a broken row");
                self.state[i] = s;
                continue;
            }
            if self.broken.len() < best {
                best = self.broken.len();
                self.best_state.clone_from(&self.state);
                self.best_z.clone_from(&self.z);
                std::mem::swap(&mut self.best_broken, &mut self.broken);
                self.best_broken
                    .sort_by(|a, b| b.2.total_cmp(&a.2).then(a.0.cmp(&b.0)));
                take = self.best_broken.len();
            } else {
                self.state.clone_from(&self.best_state);
                self.z.clone_from(&self.best_z);
                take /= 2;
                if take == 0 {
                    murty = true;
                    let &(i, s, _) = self
                        .best_broken
                        .iter()
                        .max_by_key(|b| b.0)
                        .expect("a broken row");
                    self.state[i] = s;
                    continue;
                }
            }
            for &(i, s, _) in &self.best_broken[..take] {
                self.state[i] = s;
            }
        }
        None
    }
}

/// Steps under Murty's rule without a fall in the count of broken rows after which
/// [`index_set_pivoting`] gives up.
const MURTY_IDLE: usize = 8;

/// A pivot of the fixed point's system below this fraction of its largest entry makes it
/// singular.
const SINGULAR: f64 = 1e-14;

/// A column of the fixed point's system whose pivot under complete pivoting falls below this
/// fraction of the largest entry depends on the others.
const DEPENDENT: f64 = 1e-11;

/// The columns of a square `a` that Gaussian elimination with complete pivoting leaves without
/// a pivot of at least `rel_tol` times the largest entry: those that depend on the others.
fn dependent_columns(a: &DenseMatrix, rel_tol: f64) -> Vec<usize> {
    let k = a.rows();
    let mut m = a.clone();
    let tol = rel_tol * a.max_abs().max(f64::MIN_POSITIVE);
    let (mut rows, mut cols): (Vec<usize>, Vec<usize>) = ((0..k).collect(), (0..k).collect());
    for s in 0..k {
        // The largest entry of the remaining block.
        let (mut br, mut bc, mut big) = (s, s, 0.0f64);
        for (ri, &r) in rows.iter().enumerate().skip(s) {
            let row = m.row(r);
            for (ci, &c) in cols.iter().enumerate().skip(s) {
                if row[c].abs() > big {
                    (br, bc, big) = (ri, ci, row[c].abs());
                }
            }
        }
        if big <= tol || !big.is_finite() {
            return cols[s..].to_vec();
        }
        rows.swap(s, br);
        cols.swap(s, bc);
        let (pr, pc) = (rows[s], cols[s]);
        let prow: Vec<f64> = m.row(pr).to_vec();
        for &r in &rows[s + 1..] {
            let f = m[(r, pc)] / prow[pc];
            if f != 0.0 {
                for (x, &y) in m.row_mut(r).iter_mut().zip(&prow) {
                    *x -= f * y;
                }
            }
        }
    }
    Vec::new()
}

/// The index sets an approximate solution `z` suggests: rows at a bound (to 1e-8 of z's
/// size) with w pushing outwards stay there, rows with equal bounds are fixed, all others are
/// clamped. A warm start for the next solve of a nearby problem.
pub(crate) fn states_of(p: &DenseProblem, z: &[f64]) -> Vec<State> {
    let n = p.len();
    let w = p.w(z);
    let (lo, hi) = p.bounds_at(z);
    let zs = z.iter().fold(0.0f64, |s, v| s.max(v.abs()));
    let tol = 1e-8 * zs.max(f64::MIN_POSITIVE);
    (0..n)
        .map(|i| {
            if hi[i] - lo[i] <= tol && p.friction[i].is_none() {
                State::Fixed
            } else if z[i] <= lo[i] + tol && w[i] >= 0.0 {
                State::AtLo
            } else if z[i] >= hi[i] - tol && w[i] <= 0.0 {
                State::AtHi
            } else {
                State::Clamped
            }
        })
        .collect()
}

/// The fixed point of the friction rounds for given index sets, solved directly: clamped rows
/// are unknowns with w = 0, rows on a bound sit on it (a friction row's bound is its
/// coefficient times its normal's value, substituted into the system), parked rows keep their
/// values from `zprev`. Some(z) only if every condition holds to rounding against the bounds
/// in force at z itself, so z is a solution of the friction problem; w comes with it.
fn fixed_point(p: &DenseProblem, state: &[State], zprev: &[f64]) -> Option<(Vec<f64>, Vec<f64>)> {
    let mut work = FixedPointWork::default();
    fixed_point_in(p, state, zprev, &mut work).then_some((work.a, work.w))
}

/// The buffers of [`fixed_point_in`]; a fixed point found leaves z in `a` and w in `w`.
#[derive(Debug, Clone, Default)]
pub(crate) struct FixedPointWork {
    pos: Vec<usize>,
    clamped: Vec<usize>,
    /// The fixed point's z.
    pub(crate) a: Vec<f64>,
    coef: Vec<Option<(usize, f64)>>,
    sys: DenseMatrix,
    lu: Lu,
    rhs: Vec<f64>,
    x: Vec<f64>,
    lo: Vec<f64>,
    hi: Vec<f64>,
    /// The fixed point's w.
    pub(crate) w: Vec<f64>,
    /// Whether the last system failed for being singular.
    singular: bool,
    /// The buffers of [`index_set_pivoting`].
    search: IndexSetSearch,
}

/// [`fixed_point`] with the buffers of `work`: true, with z in `work.a` and w in `work.w`, when
/// the fixed point solves the friction problem.
pub(crate) fn fixed_point_in(
    p: &DenseProblem,
    state: &[State],
    zprev: &[f64],
    work: &mut FixedPointWork,
) -> bool {
    if !fixed_point_system(p, state, zprev, SINGULAR, work) {
        return false;
    }
    let (zt, wt) = tolerances(p, &work.a);
    let (z, w, lo, hi) = (&work.a, &mut work.w, &work.lo, &work.hi);
    let z_ok = (0..p.len()).all(|i| z_violation(state[i], z[i], lo[i], hi[i], zt).is_none());
    if !z_ok {
        return false;
    }
    // Only if those on z hold, those on w (which cost a product with M).
    p.w_into(z, w);
    (0..p.len()).all(|i| w_violation(state[i], w[i], lo[i], hi[i], wt).is_none())
}

/// The tolerances of the fixed point's conditions on z and on w: 1e-12 of the sizes of z and q.
fn tolerances(p: &DenseProblem, z: &[f64]) -> (f64, f64) {
    let zs = z
        .iter()
        .fold(0.0f64, |s, v| s.max(v.abs()))
        .max(f64::MIN_POSITIVE);
    let ws =
        p.q.iter()
            .fold(0.0f64, |s, v| s.max(v.abs()))
            .max(f64::MIN_POSITIVE);
    (1e-12 * zs, 1e-12 * ws)
}

/// How far a row's z breaks its state's condition (bounds `lo`, `hi` in force), and the state
/// that would mend it; None when it holds to `zt`.
fn z_violation(state: State, z: f64, lo: f64, hi: f64, zt: f64) -> Option<(f64, State)> {
    match state {
        State::AtLo => ((z - lo).abs() > zt).then_some(((z - lo).abs(), State::Clamped)),
        State::AtHi => ((z - hi).abs() > zt).then_some(((z - hi).abs(), State::Clamped)),
        State::Fixed => ((hi - lo).abs() > zt || (z - lo).abs() > zt)
            .then_some(((hi - lo).abs().max((z - lo).abs()), State::Clamped)),
        _ if z < lo - zt => Some((lo - z, State::AtLo)),
        _ if z > hi + zt => Some((z - hi, State::AtHi)),
        _ => None,
    }
}

/// How far a row's w breaks its state's condition, and the state that would mend it (a row
/// whose bounds in force meet goes to the bound its w pushes it to); None when it holds to `wt`.
fn w_violation(state: State, w: f64, lo: f64, hi: f64, wt: f64) -> Option<(f64, State)> {
    let toward = if w > 0.0 { State::AtLo } else { State::AtHi };
    let mend = if hi > lo { State::Clamped } else { toward };
    match state {
        State::AtLo => (w < -wt).then_some((-w, mend)),
        State::AtHi => (w > wt).then_some((w, mend)),
        State::Fixed => None,
        // A parked row that w moves joins the system.
        State::Parked => (w.abs() > wt).then_some((w.abs(), State::Clamped)),
        _ => {
            let bound = if w > 0.0 { lo } else { hi };
            let mend = if bound.is_finite() { toward } else { state };
            (w.abs() > wt).then_some((w.abs(), mend))
        }
    }
}

/// The fixed point's linear system for the index sets `state`, solved: z into `work.a`, the
/// bounds in force at z into `work.lo`/`work.hi`. False when a state is one the system does not
/// cover or the system is singular.
fn fixed_point_system(
    p: &DenseProblem,
    state: &[State],
    zprev: &[f64],
    singular_below: f64,
    work: &mut FixedPointWork,
) -> bool {
    let n = p.len();
    if state.len() != n {
        return false;
    }
    let FixedPointWork {
        pos,
        clamped,
        a,
        coef,
        sys,
        lu,
        rhs,
        x,
        lo,
        hi,
        w: _,
        singular,
        search: _,
    } = work;
    *singular = false;
    // Position of each clamped row among the unknowns.
    pos.clear();
    pos.resize(n, usize::MAX);
    clamped.clear();
    for (i, s) in state.iter().enumerate() {
        if *s == State::Clamped {
            pos[i] = clamped.len();
            clamped.push(i);
        }
    }
    // Every other row's value as a + b x_u (u an unknown's position, or none).
    a.clear();
    a.resize(n, 0.0);
    coef.clear();
    coef.resize(n, None);
    for i in 0..n {
        let bound = match state[i] {
            State::Clamped => continue,
            State::Parked => {
                a[i] = zprev[i];
                continue;
            }
            State::Waiting => return false,
            State::AtLo | State::Fixed => p.lo[i],
            State::AtHi => p.hi[i],
        };
        if !bound.is_finite() {
            return false;
        }
        match p.friction[i] {
            None => a[i] = bound,
            Some(j) => match state[j] {
                State::Clamped => coef[i] = Some((pos[j], bound)),
                State::AtLo | State::AtHi | State::Fixed if p.friction[j].is_none() => {
                    let zj = if state[j] == State::AtHi {
                        p.hi[j]
                    } else {
                        p.lo[j]
                    };
                    a[i] = bound * zj.max(0.0);
                }
                State::Parked if p.friction[j].is_none() => a[i] = bound * zprev[j].max(0.0),
                _ => return false,
            },
        }
    }
    let k = clamped.len();
    sys.reset(k, k);
    rhs.clear();
    rhs.resize(k, 0.0);
    for (r, &c) in clamped.iter().enumerate() {
        let row = p.m.row(c);
        let mut b = -p.q[c];
        for j in 0..n {
            if let Some((u, f)) = coef[j] {
                sys[(r, u)] += f * row[j];
            } else if pos[j] != usize::MAX {
                sys[(r, pos[j])] += row[j];
            } else {
                b -= row[j] * a[j];
            }
        }
        rhs[r] = b;
    }
    let z = a;
    if k > 0 {
        if !lu.refactor(sys, singular_below) {
            *singular = true;
            return false;
        }
        lu.solve_into(rhs, x);
        for (r, &c) in clamped.iter().enumerate() {
            z[c] = x[r];
        }
    }
    for i in 0..n {
        if let Some((u, f)) = coef[i] {
            z[i] = f * z[clamped[u]].max(0.0);
        }
    }
    effective_bounds_into(&p.lo, &p.hi, &p.friction, z, lo, hi);
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A unit cube of mass 1 sliding along x at 1 m/s onto the floor at 1 m/s, on its four
    /// bottom corners: for each corner a normal row (z) and friction rows along x and y with
    /// mu = 0.5. M = J W J^T has rank 6 with 12 rows, and its four normals alone rank 3.
    fn sliding_cube() -> DenseProblem {
        let inv_mass = [1.0, 1.0, 1.0, 6.0, 6.0, 6.0];
        let mut rows: Vec<[f64; 6]> = Vec::new();
        let mut q = Vec::new();
        let (mut lo, mut hi, mut friction) = (Vec::new(), Vec::new(), Vec::new());
        for (x, y) in [(-0.5, -0.5), (0.5, -0.5), (-0.5, 0.5), (0.5, 0.5)] {
            let r = glam::DVec3::new(x, y, -0.5);
            let normal = rows.len();
            for (dir, v) in [
                (glam::DVec3::Z, -1.0),
                (glam::DVec3::X, 1.0),
                (glam::DVec3::Y, 0.0),
            ] {
                let t = r.cross(dir);
                rows.push([dir.x, dir.y, dir.z, t.x, t.y, t.z]);
                q.push(v);
                let own = rows.len() - 1 == normal;
                lo.push(if own { 0.0 } else { -0.5 });
                hi.push(if own { f64::INFINITY } else { 0.5 });
                friction.push((!own).then_some(normal));
            }
        }
        let n = rows.len();
        let mut m = DenseMatrix::zeros(n, n);
        for i in 0..n {
            for j in 0..n {
                m[(i, j)] = (0..6).map(|k| rows[i][k] * inv_mass[k] * rows[j][k]).sum();
            }
        }
        DenseProblem {
            m,
            q,
            lo,
            hi,
            friction,
        }
    }

    #[test]
    fn index_set_pivoting_finds_the_sliding_cubes_solution_from_rest() {
        // From every row at zero on its lower bound (the normals' pushes all missing), the
        // search reaches a solution: residual at rounding, and, since 1 m/s of sliding is more
        // than friction can stop, every corner's x friction on its bound against the motion
        // (the total friction is mu times the total normal impulse).
        let p = sliding_cube();
        let z0 = vec![0.0; p.len()];
        let mut states = vec![State::AtLo; p.len()];
        let mut work = FixedPointWork::default();
        let s = index_set_pivoting(&p, &z0, &mut states, 40, &mut work).expect("a solution");
        assert_eq!(s.outcome, Outcome::Solved);
        assert!(s.residuals.relative() < 1e-12, "{:?}", s.residuals);
        let normal: f64 = (0..4).map(|c| s.z[3 * c]).sum();
        let along_x: f64 = (0..4).map(|c| s.z[3 * c + 1]).sum();
        assert!(normal > 0.5, "total normal impulse {normal}");
        assert!(
            (along_x + 0.5 * normal).abs() < 1e-12 * normal,
            "friction {along_x} against mu N = {}",
            0.5 * normal
        );
        // The states it ends on are a solution's: the fixed point of those sets is one.
        assert!(fixed_point_in(&p, &states, &s.z, &mut work));
        // Four normals on a rank-3 block: one was parked.
        assert!(states.contains(&State::Parked) || (0..4).any(|c| states[3 * c] != State::Clamped));
    }

    #[test]
    fn dependent_columns_are_found_by_complete_pivoting() {
        // Column 2 is column 0 plus column 1; the rest are independent.
        let a = DenseMatrix::from_rows(&[
            vec![2.0, 1.0, 3.0],
            vec![1.0, 3.0, 4.0],
            vec![0.0, 1.0, 1.0],
        ]);
        assert_eq!(dependent_columns(&a, 1e-11).len(), 1);
        assert!(dependent_columns(&DenseMatrix::identity(3), 1e-11).is_empty());
    }
}
