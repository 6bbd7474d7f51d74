//! The liquid solver's parameters: kernel radius, measured rest density, per-phase constants
//! and the boundary's settings (`sim::build` derives them from the scene).
use crate::boundary::wall_kernel::lattice_kernel_sums;
use crate::boundary::{BoundaryParams, LiquidSettings};
use glam::Vec3A;

/// Constants of the particles that came from one liquid block.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Phase {
    /// Particle mass, kg (density * spacing^3).
    pub mass: f32,
    /// Rest density of the block, kg/m^3 (only used to report a physical density).
    pub rest_density: f32,
    /// Pressure factor: `P = k_eff (rho - rho0)` in m/s^2, `k_eff = 2 k / (rho0 C)` (`C` the
    /// lattice moment of `wall_kernel::lattice_moment`), so the reported pressure grows at `rho g`.
    pub k_eff: f32,
    /// Near-pressure factor: `P_near = k_near_eff rho_near`.
    pub k_near_eff: f32,
    /// Whether negative pressures are kept (cohesion) or clamped at zero.
    pub cohesion: bool,
    /// Linear viscosity sigma, 1/s.
    pub sigma: f32,
    /// Quadratic viscosity beta, 1/m.
    pub beta: f32,
}

/// Everything the liquid step needs besides the particles.
#[derive(Debug, Clone, PartialEq)]
pub struct LiquidParams {
    /// Lattice spacing, m.
    pub spacing: f32,
    /// Kernel radius h, m.
    pub h: f32,
    /// Rest kernel sum `sum (1-q)^2` of an interior particle ([`rest_kernel_sum`]:
    /// dimensionless).
    pub rho0: f32,
    /// Gravity, m/s^2.
    pub gravity: Vec3A,
    /// What the liquid meets besides the bodies: the container's walls and their ghost pressure.
    pub boundary: BoundaryParams,
    /// Jacobi relaxation passes per step.
    pub relaxation_passes: u32,
    /// One entry per liquid block.
    pub phases: Vec<Phase>,
}

impl LiquidSettings for LiquidParams {
    fn spacing(&self) -> f32 {
        self.spacing
    }
    fn h(&self) -> f32 {
        self.h
    }
    fn rho0(&self) -> f32 {
        self.rho0
    }
    fn gravity(&self) -> Vec3A {
        self.gravity
    }
    fn boundary(&self) -> &BoundaryParams {
        &self.boundary
    }
    fn k_eff(&self, phase: u32) -> f32 {
        self.phases[phase as usize].k_eff
    }
    fn rest_density(&self, phase: u32) -> f32 {
        self.phases[phase as usize].rest_density
    }
}

/// The kernel sum `sum (1-q)^2` of a particle in the face-centred cubic packing at the simple
/// cubic lattice's number density (one particle per spacing^3), kernel radius `ratio`
/// spacings: the rest kernel sum rho0 with `[solver] packed_rest`. The filled lattice is not
/// the liquid's rest state: under gravity the relaxation shears it into a closer,
/// face-centred-like packing (docs/src/design.md, *Pressure, rest density and near pressure*), whose kernel sum at
/// the same volume is 3.3% lower at 2 spacings, so the lattice's rest value packs the bulk 3
/// to 4% tighter than it was filled.
pub fn packed_kernel_sum(ratio: f64) -> f64 {
    // Cube edge a = 4^(1/3) spacings holds the 4 sites of the FCC cell.
    let a = 4f64.powf(1.0 / 3.0);
    let n = (ratio / a).ceil() as i64 + 1;
    let sites = [
        [0.0, 0.0, 0.0],
        [0.5, 0.5, 0.0],
        [0.5, 0.0, 0.5],
        [0.0, 0.5, 0.5],
    ];
    let mut rho = 0.0;
    for i in -n..=n {
        for j in -n..=n {
            for k in -n..=n {
                for c in &sites {
                    let v = [
                        (i as f64 + c[0]) * a,
                        (j as f64 + c[1]) * a,
                        (k as f64 + c[2]) * a,
                    ];
                    let d = (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]).sqrt();
                    let q = d / ratio;
                    if d > 0.0 && q < 1.0 {
                        rho += (1.0 - q).powi(2);
                    }
                }
            }
        }
    }
    rho
}

/// The upward near-pressure sum `S = sum_j (n_i + n_j)/2 (1-q)^2 r_y/r` on a particle of the
/// top layer of a filled lattice (kernel radius `ratio` spacings) from the layers below it,
/// `n` the near sums `sum (1-q)^3` of the half-filled lattice at each particle's depth: with
/// `P_near = k_near_eff n` the near pressure lifts the top layer by `k_near_eff S`.
pub fn surface_near_sum(ratio: f64) -> f64 {
    let n = ratio.ceil() as i64;
    // The near sum of a particle `depth` layers below the top layer.
    let near_at = |depth: i64| {
        let mut near = 0.0;
        for i in -n..=n {
            for j in -n..=depth.min(n) {
                for k in -n..=n {
                    let q = ((i * i + j * j + k * k) as f64).sqrt() / ratio;
                    if (i, j, k) != (0, 0, 0) && q < 1.0 {
                        near += (1.0 - q).powi(3);
                    }
                }
            }
        }
        near
    };
    let top = near_at(0);
    let mut s = 0.0;
    for i in -n..=n {
        for j in 1..=n {
            for k in -n..=n {
                let d = ((i * i + j * j + k * k) as f64).sqrt();
                let q = d / ratio;
                if q < 1.0 {
                    s += 0.5 * (top + near_at(j)) * (1.0 - q).powi(2) * j as f64 / d;
                }
            }
        }
    }
    s
}

/// The default near stiffness `k_near = g h rho0 / (2 S)` ([`surface_near_sum`]) for gravity
/// `g` (standard gravity where there is none), spacing `spacing`, kernel radius `ratio`
/// spacings and rest kernel sum `rho0`. The top layer of a free surface has no pressure (its
/// kernel sum is short of rho0); the hydrostatic pressure of the layers below holds half its
/// weight (its pairs below are half of a bulk particle's, whose pressure gradient holds all of
/// it), and the near pressure holds the other half, `k_near_eff S = g / 2` with
/// `k_near_eff = k_near / (rho0 h)`, so the top layer rests at its lattice height, pushed with
/// the same fraction of g at every spacing (2.63 g h at 2 spacings on the lattice's rho0).
pub fn default_near_stiffness(g: f64, spacing: f64, ratio: f64, rho0: f64) -> f64 {
    let g = if g > 0.0 { g } else { 9.81 };
    g * spacing * ratio * rho0 / (2.0 * surface_near_sum(ratio))
}

/// The rest kernel sum rho0 at kernel radius `ratio` spacings: the filled lattice's
/// ([`lattice_kernel_sums`]), or with `packed` the face-centred packing's
/// ([`packed_kernel_sum`], `[solver] packed_rest`).
pub fn rest_kernel_sum(ratio: f64, packed: bool) -> f64 {
    if packed {
        packed_kernel_sum(ratio)
    } else {
        lattice_kernel_sums(ratio).0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kernel_sum_at_two_spacings_counts_26_neighbours() {
        // Neighbours at |v| = 1 (6), sqrt 2 (12), sqrt 3 (8); |v| = 2 lies on the boundary.
        let (rho, _) = lattice_kernel_sums(2.0);
        let expect = 6.0 * 0.25
            + 12.0 * (1.0 - 2f64.sqrt() / 2.0).powi(2)
            + 8.0 * (1.0 - 3f64.sqrt() / 2.0).powi(2);
        assert!((rho - expect).abs() < 1e-12);
    }

    #[test]
    fn the_packed_sum_at_two_spacings_is_the_fcc_shells() {
        // FCC at one particle per spacing^3: nearest distance d = 2^(1/6) spacings, shells of
        // 12 at d, 6 at sqrt(2) d and 24 at sqrt(3) d inside 2 spacings.
        let d = 2f64.powf(1.0 / 6.0);
        let w = |r: f64| (1.0 - r / 2.0).powi(2);
        let expect = 12.0 * w(d) + 6.0 * w(2f64.sqrt() * d) + 24.0 * w(3f64.sqrt() * d);
        assert!((packed_kernel_sum(2.0) - expect).abs() < 1e-12);
        // 3.3% below the simple cubic lattice's sum.
        let ratio = packed_kernel_sum(2.0) / lattice_kernel_sums(2.0).0;
        assert!((ratio - 0.9668).abs() < 1e-4, "{ratio}");
    }

    #[test]
    fn the_default_near_stiffness_holds_half_the_top_layer_at_2_63_g_h() {
        // The top layer at 2 spacings: S = 0.50909, rho0 = 2.67303, k_near = 2.625 g h; the
        // packed rho0 2.58428 gives 2.538 g h, the same k_near_eff = k_near / (rho0 h).
        assert!((surface_near_sum(2.0) - 0.50909).abs() < 1e-5);
        let rho0 = rest_kernel_sum(2.0, false);
        let k = default_near_stiffness(9.81, 0.01, 2.0, rho0);
        let packed = default_near_stiffness(9.81, 0.01, 2.0, rest_kernel_sum(2.0, true));
        assert!((packed / (9.81 * 0.02) - 2.538).abs() < 1e-3);
        assert!(
            (k / (9.81 * 0.02) - 2.625).abs() < 1e-3,
            "{}",
            k / (9.81 * 0.02)
        );
        // It scales with the spacing and with gravity; without gravity standard g stands in.
        assert!((default_near_stiffness(9.81, 0.005, 2.0, rho0) - k / 2.0).abs() < 1e-12);
        assert_eq!(default_near_stiffness(0.0, 0.01, 2.0, rho0), k);
    }
}
