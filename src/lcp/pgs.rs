//! Projected Gauss-Seidel on the structured form: the last resort of a contact solve that no
//! pivoting method finished. It always ends with a point inside the bounds (friction bounds
//! following their normals) whose residual it reports; it is exact only in the limit.
//!
//! Each row in turn takes `z_i = clamp(z_i - w_i / A_ii)` with `w_i` from the running
//! body-velocity changes `f = W J^T z` and particle-velocity changes `g_k = sum n_i z_i / m_k`,
//! so a sweep costs O(rows) and A is never formed.
use super::matrix::dot6;
use super::structured::StructuredProblem;

/// Sweeps after which the solve stops whatever its progress.
pub const MAX_SWEEPS: usize = 2000;

/// The buffers of [`pgs_into`], kept by whoever solves again.
#[derive(Debug, Clone, Default)]
pub struct PgsWork {
    diag: Vec<f64>,
    f: Vec<[f64; 6]>,
    g: Vec<[f64; 3]>,
}

/// Run projected Gauss-Seidel on `p` from `z` (projected into its bounds first), in place,
/// until a sweep changes no row by more than `rel_tol` of the largest value or `sweeps` sweeps
/// have run. Returns the sweeps taken. Rows with no terms keep their bound nearest zero.
pub fn pgs_into(
    p: &StructuredProblem,
    z: &mut Vec<f64>,
    sweeps: usize,
    rel_tol: f64,
    work: &mut PgsWork,
) -> usize {
    let n = p.rows.len();
    z.resize(n, 0.0);
    for v in z.iter_mut() {
        if !v.is_finite() {
            *v = 0.0;
        }
    }
    let PgsWork { diag, f, g } = work;
    diag.clear();
    diag.extend(p.rows.iter().map(|r| {
        let mut d = 0.0;
        if let Some(pt) = r.particle {
            let nn = pt.n[0] * pt.n[0] + pt.n[1] * pt.n[1] + pt.n[2] * pt.n[2];
            d += nn * p.particle_inv_mass[pt.particle];
        }
        for b in r.body_terms() {
            let wj = mul6(&p.body_inv_mass[b.body], &b.j);
            d += dot6(&b.j, &wj);
        }
        d
    }));
    // Bounds for the starting point: friction rows follow their normals after the normals.
    for (zi, r) in z.iter_mut().zip(&p.rows) {
        if r.friction.is_none() {
            *zi = zi.clamp(r.lo, r.hi);
        }
    }
    for i in 0..n {
        if let Some(j) = p.rows[i].friction {
            let s = z[j].max(0.0);
            z[i] = z[i].clamp(p.rows[i].lo * s, p.rows[i].hi * s);
        }
    }
    f.clear();
    f.resize(p.body_inv_mass.len(), [0.0; 6]);
    g.clear();
    g.resize(p.particle_inv_mass.len(), [0.0; 3]);
    for (r, &zi) in p.rows.iter().zip(z.iter()) {
        add_row(p, r, zi, f, g);
    }
    let mut taken = 0;
    while taken < sweeps {
        taken += 1;
        let (mut change, mut size) = (0.0f64, 0.0f64);
        for i in 0..n {
            let r = &p.rows[i];
            if diag[i] <= 0.0 {
                continue;
            }
            let mut w = r.q;
            if let Some(pt) = r.particle {
                let gk = &g[pt.particle];
                w += pt.n[0] * gk[0] + pt.n[1] * gk[1] + pt.n[2] * gk[2];
            }
            for b in r.body_terms() {
                w += dot6(&b.j, &f[b.body]);
            }
            let (lo, hi) = match r.friction {
                Some(j) => {
                    let s = z[j].max(0.0);
                    (r.lo * s, r.hi * s)
                }
                None => (r.lo, r.hi),
            };
            let new = (z[i] - w / diag[i]).clamp(lo, hi);
            let dz = new - z[i];
            if dz != 0.0 {
                add_row(p, r, dz, f, g);
                z[i] = new;
            }
            change = change.max(dz.abs());
            size = size.max(new.abs());
        }
        if change <= rel_tol * size.max(f64::MIN_POSITIVE) {
            break;
        }
    }
    taken
}

/// Add row `r`'s impulse `dz` to the body and particle velocity changes.
fn add_row(
    p: &StructuredProblem,
    r: &super::structured::StructuredRow,
    dz: f64,
    f: &mut [[f64; 6]],
    g: &mut [[f64; 3]],
) {
    if let Some(pt) = r.particle {
        let s = dz * p.particle_inv_mass[pt.particle];
        for (gk, nk) in g[pt.particle].iter_mut().zip(pt.n) {
            *gk += s * nk;
        }
    }
    for b in r.body_terms() {
        let wj = mul6(&p.body_inv_mass[b.body], &b.j);
        for (fk, wk) in f[b.body].iter_mut().zip(wj) {
            *fk += dz * wk;
        }
    }
}

/// `M x` for a row-major 6x6 M.
fn mul6(m: &[f64; 36], x: &[f64; 6]) -> [f64; 6] {
    std::array::from_fn(|i| dot6(m[6 * i..6 * i + 6].try_into().expect("six"), x))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lcp::structured::StructuredRow;

    #[test]
    fn a_particle_on_a_box_with_friction_converges_to_the_pivoting_answer() {
        // A particle (mass 1) pressing on a free box (mass 2, unit inverse inertia) along y,
        // with a friction row along x (mu 0.5) and a tangential slide of 3.
        let mut minv = [0.0; 36];
        for k in 0..6 {
            minv[7 * k] = if k < 3 { 0.5 } else { 1.0 };
        }
        let p = StructuredProblem {
            body_inv_mass: vec![minv],
            particle_inv_mass: vec![1.0],
            rows: vec![
                StructuredRow::contact(-2.0)
                    .with_particle(0, [0.0, 1.0, 0.0])
                    .with_body(0, [0.0, -1.0, 0.0, 0.0, 0.0, 0.0]),
                StructuredRow::contact(3.0)
                    .with_particle(0, [1.0, 0.0, 0.0])
                    .with_body(0, [-1.0, 0.0, 0.0, 0.0, 0.0, 0.0])
                    .with_friction(0, -0.5, 0.5),
            ],
        };
        let mut z = Vec::new();
        let sweeps = pgs_into(&p, &mut z, MAX_SWEEPS, 1e-14, &mut PgsWork::default());
        assert!(sweeps < MAX_SWEEPS, "{sweeps} sweeps");
        // Normal: A_nn = 1 + 0.5 = 1.5, so z_n = 2 / 1.5 while the friction row slides at
        // its lower bound -0.5 z_n (its w stays positive); the rows do not couple (n_x.n_y = 0).
        let zn = 2.0 / 1.5;
        assert!((z[0] - zn).abs() < 1e-12, "{z:?}");
        assert!((z[1] + 0.5 * zn).abs() < 1e-12, "{z:?}");
    }
}
