//! The liquid solver's parameters: kernel radius, measured rest density, per-phase constants
//! and walls (`sim::build` derives them from the scene).
use glam::Vec3A;

/// Constants of the particles that came from one liquid block.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Phase {
    /// Particle mass, kg (density * spacing^3).
    pub mass: f32,
    /// Rest density of the block, kg/m^3 (only used to report a physical density).
    pub rest_density: f32,
    /// Pressure factor: `P = k_eff (rho - rho0)` in m/s^2, `k_eff = k / (rho0 h)`.
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

/// An axis-aligned box of walls that particle centres keep a radius away from.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Walls {
    /// Lowest allowed particle centre.
    pub lo: Vec3A,
    /// Highest allowed particle centre.
    pub hi: Vec3A,
    /// Normal restitution.
    pub restitution: f32,
    /// Coulomb friction coefficient.
    pub friction: f32,
}

/// Everything the liquid step needs besides the particles.
#[derive(Debug, Clone, PartialEq)]
pub struct LiquidParams {
    /// Lattice spacing, m.
    pub spacing: f32,
    /// Kernel radius h, m.
    pub h: f32,
    /// Rest kernel sum `sum (1-q)^2` of an interior lattice particle (dimensionless).
    pub rho0: f32,
    /// Gravity, m/s^2.
    pub gravity: Vec3A,
    /// Container walls, if any.
    pub walls: Option<Walls>,
    /// Whether the walls' ghosts push in the relaxation (`[container] ghost_pressure`).
    pub wall_push: bool,
    /// Jacobi relaxation passes per step.
    pub passes: u32,
    /// One entry per liquid block.
    pub phases: Vec<Phase>,
}

/// The kernel sums `(sum (1-q)^2, sum (1-q)^3)` of an interior particle of a simple cubic
/// lattice whose kernel radius is `ratio` spacings.
pub fn lattice_kernel_sums(ratio: f64) -> (f64, f64) {
    let n = ratio.ceil() as i64;
    let (mut rho, mut near) = (0.0, 0.0);
    for i in -n..=n {
        for j in -n..=n {
            for k in -n..=n {
                if i == 0 && j == 0 && k == 0 {
                    continue;
                }
                let q = ((i * i + j * j + k * k) as f64).sqrt() / ratio;
                if q < 1.0 {
                    rho += (1.0 - q).powi(2);
                    near += (1.0 - q).powi(3);
                }
            }
        }
    }
    (rho, near)
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
}
