//! Primitive solids (box, sphere, cylinder, cone, ellipsoid), each with its centre of mass on
//! the origin: closed-form mass properties, inside test, outward normals and a surface mesh.
use super::mass_properties::{self as mp, MassProperties};
use super::mesh::{TriMesh, box_mesh};
use glam::{DMat3, DQuat, DVec2, DVec3};
use std::f64::consts::PI;

/// A primitive solid centred on its centre of mass; cylinder and cone axes lie along z.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Primitive {
    /// Box with full extents `size`.
    Box {
        /// Full extents along x, y, z.
        size: DVec3,
    },
    /// Sphere of radius `radius`.
    Sphere {
        /// Radius.
        radius: f64,
    },
    /// Cylinder of radius `radius` and height `height` along z.
    Cylinder {
        /// Radius.
        radius: f64,
        /// Height along z.
        height: f64,
    },
    /// Cone with base radius `radius` and height `height` along z; base at z = -h/4, apex at
    /// z = 3h/4 (so that the centre of mass is the origin).
    Cone {
        /// Base radius.
        radius: f64,
        /// Height along z.
        height: f64,
    },
    /// Ellipsoid with semi-axes `radii`.
    Ellipsoid {
        /// Semi-axes along x, y, z.
        radii: DVec3,
    },
}

/// Segments around the circumference of round primitives' output meshes.
const SEGMENTS: usize = 48;

impl Primitive {
    /// Check that every dimension is positive and finite; `what` names the body in the message.
    pub fn check(&self, what: &str) -> crate::Result<()> {
        let dims: Vec<f64> = match *self {
            Primitive::Box { size } => size.to_array().to_vec(),
            Primitive::Sphere { radius } => vec![radius],
            Primitive::Cylinder { radius, height } | Primitive::Cone { radius, height } => {
                vec![radius, height]
            }
            Primitive::Ellipsoid { radii } => radii.to_array().to_vec(),
        };
        if dims.iter().all(|d| d.is_finite() && *d > 0.0) {
            Ok(())
        } else {
            Err(crate::Error::input(format!(
                "{what}: every dimension of a {} must be a positive number, got {dims:?}; fix: give positive dimensions in m",
                self.kind()
            )))
        }
    }

    /// The primitive's name as used in scene files.
    pub fn kind(&self) -> &'static str {
        match self {
            Primitive::Box { .. } => "box",
            Primitive::Sphere { .. } => "sphere",
            Primitive::Cylinder { .. } => "cylinder",
            Primitive::Cone { .. } => "cone",
            Primitive::Ellipsoid { .. } => "ellipsoid",
        }
    }

    /// Exact (closed-form) mass properties at uniform `density`.
    pub fn mass_properties(&self, density: f64) -> MassProperties {
        match *self {
            Primitive::Box { size } => mp::box_mass_properties(size, density),
            Primitive::Sphere { radius } => mp::sphere_mass_properties(radius, density),
            Primitive::Cylinder { radius, height } => {
                mp::cylinder_mass_properties(radius, height, density)
            }
            Primitive::Cone { radius, height } => mp::cone_mass_properties(radius, height, density),
            Primitive::Ellipsoid { radii } => mp::ellipsoid_mass_properties(radii, density),
        }
    }

    /// Axis-aligned bounds (min, max).
    pub fn bounds(&self) -> (DVec3, DVec3) {
        let (lo, hi) = match *self {
            Primitive::Box { size } => (-size * 0.5, size * 0.5),
            Primitive::Sphere { radius } => (DVec3::splat(-radius), DVec3::splat(radius)),
            Primitive::Cylinder { radius, height } => (
                DVec3::new(-radius, -radius, -height / 2.0),
                DVec3::new(radius, radius, height / 2.0),
            ),
            Primitive::Cone { radius, height } => (
                DVec3::new(-radius, -radius, -height / 4.0),
                DVec3::new(radius, radius, 0.75 * height),
            ),
            Primitive::Ellipsoid { radii } => (-radii, radii),
        };
        (lo, hi)
    }

    /// Exact axis-aligned bounds (min, max) of the solid turned by `q` about its origin.
    pub fn rotated_bounds(&self, q: DQuat) -> (DVec3, DVec3) {
        let m = DMat3::from_quat(q);
        // Half extent along world axis i of a disc of radius r whose normal is n: r sqrt(1 - n_i^2).
        let disc = |r: f64, n: DVec3| (DVec3::ONE - n * n).max(DVec3::ZERO).map(f64::sqrt) * r;
        match *self {
            Primitive::Box { size } => {
                let half = m.abs() * (size * 0.5);
                (-half, half)
            }
            Primitive::Sphere { radius } => (DVec3::splat(-radius), DVec3::splat(radius)),
            Primitive::Ellipsoid { radii } => {
                // Support of an ellipsoid along e_i: |M diag(radii) row i|.
                let rows = m.transpose();
                let half = DVec3::new(
                    (rows.x_axis * radii).length(),
                    (rows.y_axis * radii).length(),
                    (rows.z_axis * radii).length(),
                );
                (-half, half)
            }
            Primitive::Cylinder { radius, height } => {
                let axis = m.z_axis;
                let half = (axis * (height / 2.0)).abs() + disc(radius, axis);
                (-half, half)
            }
            Primitive::Cone { radius, height } => {
                let axis = m.z_axis;
                let (base, apex) = (axis * (-height / 4.0), axis * (0.75 * height));
                let r = disc(radius, axis);
                ((base - r).min(apex), (base + r).max(apex))
            }
        }
    }

    /// Whether `p` lies strictly inside the solid.
    pub fn contains(&self, p: DVec3) -> bool {
        match *self {
            Primitive::Box { size } => (p.abs() * 2.0).cmplt(size).all(),
            Primitive::Sphere { radius } => p.length_squared() < radius * radius,
            Primitive::Cylinder { radius, height } => {
                p.x * p.x + p.y * p.y < radius * radius && p.z.abs() < height / 2.0
            }
            Primitive::Cone { radius, height } => {
                let rz = radius * (0.75 * height - p.z) / height;
                p.z > -height / 4.0 && rz > 0.0 && p.x * p.x + p.y * p.y < rz * rz
            }
            Primitive::Ellipsoid { radii } => (p / radii).length_squared() < 1.0,
        }
    }

    /// Outward unit normal of the surface nearest to the interior point `p`.
    pub fn outward_normal(&self, p: DVec3) -> DVec3 {
        let radial = |p: DVec3| DVec2::new(p.x, p.y).normalize_or(DVec2::X);
        match *self {
            Primitive::Box { size } => {
                let gap = size * 0.5 - p.abs();
                let axis = if gap.x <= gap.y && gap.x <= gap.z {
                    0
                } else if gap.y <= gap.z {
                    1
                } else {
                    2
                };
                let mut n = DVec3::ZERO;
                n[axis] = if p[axis] < 0.0 { -1.0 } else { 1.0 };
                n
            }
            Primitive::Sphere { .. } => p.normalize_or(DVec3::Z),
            Primitive::Ellipsoid { radii } => (p / (radii * radii)).normalize_or(DVec3::Z),
            Primitive::Cylinder { radius, height } => {
                let rho = (p.x * p.x + p.y * p.y).sqrt();
                if radius - rho < height / 2.0 - p.z.abs() {
                    radial(p).extend(0.0)
                } else {
                    DVec3::new(0.0, 0.0, p.z.signum())
                }
            }
            Primitive::Cone { radius, height } => {
                let rho = (p.x * p.x + p.y * p.y).sqrt();
                let len = (height * height + radius * radius).sqrt();
                let side = -((rho - radius) * height + (p.z + height / 4.0) * radius) / len;
                if side < p.z + height / 4.0 {
                    (radial(p) * height).extend(radius) / len
                } else {
                    DVec3::NEG_Z
                }
            }
        }
    }

    /// A closed, outward-oriented triangle mesh of the surface (round shapes are tessellated,
    /// for output only; mass properties stay exact).
    pub fn surface_mesh(&self) -> TriMesh {
        match *self {
            Primitive::Box { size } => box_mesh(size),
            Primitive::Sphere { radius } => uv_sphere(DVec3::splat(radius)),
            Primitive::Ellipsoid { radii } => uv_sphere(radii),
            Primitive::Cylinder { radius, height } => lathe(&[
                (0.0, -height / 2.0),
                (radius, -height / 2.0),
                (radius, height / 2.0),
                (0.0, height / 2.0),
            ]),
            Primitive::Cone { radius, height } => lathe(&[
                (0.0, -height / 4.0),
                (radius, -height / 4.0),
                (0.0, 0.75 * height),
            ]),
        }
    }
}

/// Surface of revolution about z of a profile (rho, z) that starts and ends on the axis
/// (rho = 0), going up the outside from the bottom.
fn lathe(profile: &[(f64, f64)]) -> TriMesh {
    let n = SEGMENTS;
    let mut vertices = Vec::new();
    // Ring index for each profile point (axis points get a single vertex).
    let mut first = Vec::new();
    for &(rho, z) in profile {
        first.push(vertices.len() as u32);
        if rho == 0.0 {
            vertices.push(DVec3::new(0.0, 0.0, z));
        } else {
            for s in 0..n {
                let a = 2.0 * PI * s as f64 / n as f64;
                vertices.push(DVec3::new(rho * a.cos(), rho * a.sin(), z));
            }
        }
    }
    let mut triangles = Vec::new();
    let n32 = n as u32;
    for k in 0..profile.len() - 1 {
        let (a, b) = (first[k], first[k + 1]);
        let (axis_a, axis_b) = (profile[k].0 == 0.0, profile[k + 1].0 == 0.0);
        for s in 0..n32 {
            let t = (s + 1) % n32;
            match (axis_a, axis_b) {
                (true, false) => triangles.push([a, b + t, b + s]),
                (false, true) => triangles.push([a + s, a + t, b]),
                (false, false) => {
                    triangles.push([a + s, a + t, b + t]);
                    triangles.push([a + s, b + t, b + s]);
                }
                (true, true) => {}
            }
        }
    }
    TriMesh::new(vertices, triangles)
}

/// A latitude-longitude tessellation of an ellipsoid with semi-axes `radii`.
fn uv_sphere(radii: DVec3) -> TriMesh {
    let rings = SEGMENTS / 2;
    let profile: Vec<(f64, f64)> = (0..=rings)
        .map(|i| {
            let th = PI * i as f64 / rings as f64;
            let (rho, z) = if i == 0 || i == rings {
                (0.0, -th.cos())
            } else {
                (th.sin(), -th.cos())
            };
            (rho, z)
        })
        .collect();
    let mut m = lathe(&profile);
    for v in &mut m.vertices {
        *v *= radii;
    }
    m
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rigid::mass_properties::mesh_mass_properties;

    fn all() -> Vec<Primitive> {
        vec![
            Primitive::Box {
                size: DVec3::new(1.0, 2.0, 3.0),
            },
            Primitive::Sphere { radius: 0.7 },
            Primitive::Cylinder {
                radius: 0.5,
                height: 2.0,
            },
            Primitive::Cone {
                radius: 0.6,
                height: 1.5,
            },
            Primitive::Ellipsoid {
                radii: DVec3::new(0.5, 1.0, 1.5),
            },
        ]
    }

    #[test]
    fn surface_meshes_are_closed_and_approach_the_closed_forms() {
        for p in all() {
            let mut m = p.surface_mesh();
            let v = m.validate(p.kind()).unwrap();
            assert!(!v.flipped, "{} mesh is inside out", p.kind());
            let exact = p.mass_properties(1.0);
            let tess = mesh_mass_properties(&m, 1.0);
            // 48 segments: the inscribed tessellation loses O((pi/24)^2) ~ 1% of the volume, and
            // inertia (~ r^5) a little more; boxes are exact.
            let (dv, di) = (
                (tess.volume / exact.volume - 1.0).abs(),
                tess.inertia_relative_difference(&exact),
            );
            let tol = if p.kind() == "box" { 1e-12 } else { 0.015 };
            assert!(
                dv < tol && di < tol,
                "{}: volume {dv:e}, inertia {di:e}",
                p.kind()
            );
            assert!(tess.com.length() < 0.01, "{} com {}", p.kind(), tess.com);
        }
    }

    #[test]
    fn rotated_bounds_hold_the_turned_surface_tightly() {
        let turns = [
            DQuat::IDENTITY,
            DQuat::from_axis_angle(DVec3::Y, 0.25 * PI),
            DQuat::from_axis_angle(DVec3::new(1.0, 2.0, -0.5).normalize(), 1.1),
        ];
        for p in all() {
            let mesh = p.surface_mesh();
            for q in turns {
                let (lo, hi) = p.rotated_bounds(q);
                let (mlo, mhi) = mesh
                    .vertices
                    .iter()
                    .fold((DVec3::INFINITY, DVec3::NEG_INFINITY), |(a, b), v| {
                        (a.min(q * *v), b.max(q * *v))
                    });
                // The tessellation is inscribed: inside the exact bounds, and within
                // 1 - cos(pi / 48) ~ 0.2% of the size of them (boxes: exactly on them).
                let size = (hi - lo).max_element();
                let tol = if p.kind() == "box" {
                    1e-12
                } else {
                    0.005 * size
                };
                for (exact, tess, out) in [(lo, mlo, -1.0), (hi, mhi, 1.0)] {
                    let gap = (exact - tess) * out;
                    assert!(
                        gap.min_element() > -1e-12 && gap.max_element() < tol,
                        "{} turned {q}: exact {exact}, tessellated {tess}",
                        p.kind()
                    );
                }
                if q == DQuat::IDENTITY {
                    assert_eq!((lo, hi), p.bounds(), "{}", p.kind());
                }
            }
        }
    }

    #[test]
    fn normals_point_out_of_the_nearest_face() {
        let c = Primitive::Cone {
            radius: 1.0,
            height: 1.0,
        };
        assert_eq!(c.outward_normal(DVec3::new(0.0, 0.0, -0.2)), DVec3::NEG_Z);
        let n = c.outward_normal(DVec3::new(0.6, 0.0, 0.0));
        assert!((n - DVec3::new(1.0, 0.0, 1.0).normalize()).length() < 1e-12);
        let b = Primitive::Box {
            size: DVec3::new(1.0, 2.0, 3.0),
        };
        assert_eq!(b.outward_normal(DVec3::new(0.0, -0.95, 0.0)), DVec3::NEG_Y);
        assert!(c.contains(DVec3::new(0.0, 0.0, 0.7)) && !c.contains(DVec3::new(0.5, 0.0, 0.6)));
    }
}
