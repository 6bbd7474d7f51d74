//! Exact mass properties: triangle meshes by signed tetrahedra, closed forms for primitives,
//! and the particle clump sum.
use super::mesh::TriMesh;
use glam::{DMat3, DQuat, DVec3};

/// Volume, mass, centre of mass and inertia tensor (about the centre of mass) of a body.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MassProperties {
    /// Volume of the solid (for a clump: number of particles times spacing cubed).
    pub volume: f64,
    /// Mass.
    pub mass: f64,
    /// Centre of mass.
    pub com: DVec3,
    /// Inertia tensor about the centre of mass, in the frame of the input coordinates.
    pub inertia: DMat3,
}

impl MassProperties {
    /// The same body rotated by `q` about the origin and then translated by `t`.
    pub fn transformed(&self, q: DQuat, t: DVec3) -> MassProperties {
        let r = DMat3::from_quat(q);
        MassProperties {
            com: q * self.com + t,
            inertia: r * self.inertia * r.transpose(),
            ..*self
        }
    }

    /// Relative difference of the inertia tensors, `|I - I_ref|_F / |I_ref|_F`.
    pub fn inertia_relative_difference(&self, reference: &MassProperties) -> f64 {
        frobenius(self.inertia - reference.inertia) / frobenius(reference.inertia)
    }
}

/// Frobenius norm of a 3x3 matrix.
pub fn frobenius(m: DMat3) -> f64 {
    (m.x_axis.length_squared() + m.y_axis.length_squared() + m.z_axis.length_squared()).sqrt()
}

/// `a b^T`.
fn outer(a: DVec3, b: DVec3) -> DMat3 {
    DMat3::from_cols(a * b.x, a * b.y, a * b.z)
}

/// Inertia tensor `tr(C) 1 - C` from a second-moment (covariance) matrix `C = int x x^T dm`.
fn inertia_from_covariance(c: DMat3) -> DMat3 {
    let tr = c.x_axis.x + c.y_axis.y + c.z_axis.z;
    DMat3::from_diagonal(DVec3::splat(tr)) - c
}

/// Exact mass properties of a closed, outward-oriented triangle mesh of uniform density.
///
/// Each face and the reference point (the bounding-box centre, to limit cancellation) span a
/// tetrahedron with signed volume `det/6`; the signed sums of volume, first and second moments
/// are exact for any closed mesh, convex or not.
pub fn mesh_mass_properties(mesh: &TriMesh, density: f64) -> MassProperties {
    let (lo, hi) = mesh.bounds();
    let o = (lo + hi) * 0.5;
    let mut vol = 0.0;
    let mut first = DVec3::ZERO;
    let mut cov = DMat3::ZERO;
    for t in 0..mesh.triangles.len() {
        let [a, b, c] = mesh.corners(t).map(|p| p - o);
        let det = a.dot(b.cross(c));
        let s = a + b + c;
        vol += det / 6.0;
        first += s * (det / 24.0);
        // int over tet(0,a,b,c) of x x^T = det/120 (a a^T + b b^T + c c^T + s s^T)
        cov += (outer(a, a) + outer(b, b) + outer(c, c) + outer(s, s)) * (det / 120.0);
    }
    let mass = density * vol;
    let com_local = first / vol;
    let cov_com = (cov - outer(com_local, com_local) * vol) * density;
    MassProperties {
        volume: vol,
        mass,
        com: com_local + o,
        inertia: inertia_from_covariance(cov_com),
    }
}

/// Mass properties of a clump of equal spheres of radius `radius` at `positions` with the
/// given per-particle `masses`: `sum_i (2/5 m_i L^2 1 + m_i ((r.r) 1 - r r^T))` about the
/// clump's centre of mass. `volume` is the particle count times `cell_volume`.
pub fn clump_mass_properties(
    positions: &[DVec3],
    masses: &[f64],
    radius: f64,
    cell_volume: f64,
) -> MassProperties {
    points_mass_properties(
        || positions.iter().copied().zip(masses.iter().copied()),
        radius,
        cell_volume,
    )
}

/// [`clump_mass_properties`] of the (position, mass) pairs `points()` yields (called twice:
/// the same pairs in the same order each time), with no array of them made.
pub fn points_mass_properties<I: Iterator<Item = (DVec3, f64)>>(
    points: impl Fn() -> I,
    radius: f64,
    cell_volume: f64,
) -> MassProperties {
    let (mut count, mut mass, mut moment) = (0usize, -0.0, DVec3::ZERO);
    for (p, m) in points() {
        count += 1;
        mass += m;
        moment += p * m;
    }
    let com = moment / mass;
    let mut inertia = DMat3::ZERO;
    for (p, m) in points() {
        let r = p - com;
        let sphere = 0.4 * m * radius * radius;
        inertia += DMat3::from_diagonal(DVec3::splat(sphere + m * r.dot(r))) - outer(r, r) * m;
    }
    MassProperties {
        volume: count as f64 * cell_volume,
        mass,
        com,
        inertia,
    }
}

/// Closed-form mass properties of a solid box with full extents `size`, centred on the origin.
pub fn box_mass_properties(size: DVec3, density: f64) -> MassProperties {
    let volume = size.x * size.y * size.z;
    let m = density * volume;
    let s2 = size * size;
    diag(
        volume,
        m,
        DVec3::new(s2.y + s2.z, s2.x + s2.z, s2.x + s2.y) * (m / 12.0),
    )
}

/// Closed-form mass properties of a solid sphere of radius `r` centred on the origin.
pub fn sphere_mass_properties(r: f64, density: f64) -> MassProperties {
    let volume = 4.0 / 3.0 * std::f64::consts::PI * r.powi(3);
    let m = density * volume;
    diag(volume, m, DVec3::splat(0.4 * m * r * r))
}

/// Closed-form mass properties of a solid ellipsoid with semi-axes `radii` centred on the origin.
pub fn ellipsoid_mass_properties(radii: DVec3, density: f64) -> MassProperties {
    let volume = 4.0 / 3.0 * std::f64::consts::PI * radii.x * radii.y * radii.z;
    let m = density * volume;
    let r2 = radii * radii;
    diag(
        volume,
        m,
        DVec3::new(r2.y + r2.z, r2.x + r2.z, r2.x + r2.y) * (m / 5.0),
    )
}

/// Closed-form mass properties of a solid cylinder (radius `r`, height `h`, axis z) centred on
/// the origin.
pub fn cylinder_mass_properties(r: f64, h: f64, density: f64) -> MassProperties {
    let volume = std::f64::consts::PI * r * r * h;
    let m = density * volume;
    let ixx = m * (3.0 * r * r + h * h) / 12.0;
    diag(volume, m, DVec3::new(ixx, ixx, 0.5 * m * r * r))
}

/// Closed-form mass properties of a solid cone (base radius `r`, height `h`, axis z) placed with
/// its centre of mass on the origin: base at z = -h/4, apex at z = 3h/4.
pub fn cone_mass_properties(r: f64, h: f64, density: f64) -> MassProperties {
    let volume = std::f64::consts::PI * r * r * h / 3.0;
    let m = density * volume;
    let ixx = m * (3.0 / 20.0 * r * r + 3.0 / 80.0 * h * h);
    diag(volume, m, DVec3::new(ixx, ixx, 0.3 * m * r * r))
}

fn diag(volume: f64, mass: f64, d: DVec3) -> MassProperties {
    MassProperties {
        volume,
        mass,
        com: DVec3::ZERO,
        inertia: DMat3::from_diagonal(d),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rigid::mesh::box_mesh;

    #[test]
    fn clump_of_one_sphere_is_a_sphere() {
        let mp = clump_mass_properties(&[DVec3::new(1.0, 2.0, 3.0)], &[2.0], 0.5, 1.0);
        assert_eq!(mp.com, DVec3::new(1.0, 2.0, 3.0));
        let expect = 0.4 * 2.0 * 0.25;
        assert!(
            (mp.inertia - DMat3::from_diagonal(DVec3::splat(expect)))
                .abs_diff_eq(DMat3::ZERO, 1e-15)
        );
    }

    #[test]
    fn mesh_box_matches_closed_form() {
        let size = DVec3::new(0.3, 1.7, 2.2);
        let a = mesh_mass_properties(&box_mesh(size), 7.0);
        let b = box_mass_properties(size, 7.0);
        assert!((a.mass - b.mass).abs() < 1e-12 * b.mass);
        assert!(a.inertia_relative_difference(&b) < 1e-12);
    }
}
