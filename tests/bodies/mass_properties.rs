//! Exact mass properties of meshes and primitives.
use glam::{DMat3, DQuat, DVec2, DVec3};
use proptest::prelude::*;
use sphrigid::rigid::mass_properties::{frobenius, mesh_mass_properties};
use sphrigid::rigid::mesh::{box_mesh, extrude_polygon};
use sphrigid::rigid::{Primitive, TriMesh};

fn rel(a: DMat3, b: DMat3) -> f64 {
    frobenius(a - b) / frobenius(b)
}

/// A T-handle: a 3 x 0.6 bar on top of a 0.6 x 2.4 stem, 0.5 deep (non-convex).
fn t_handle() -> TriMesh {
    let poly = [
        (-0.3, -1.2),
        (0.3, -1.2),
        (0.3, 1.2),
        (1.5, 1.2),
        (1.5, 1.8),
        (-1.5, 1.8),
        (-1.5, 1.2),
        (-0.3, 1.2),
    ]
    .map(|(x, y)| DVec2::new(x, y));
    let mut m = extrude_polygon(&poly, 0.5).unwrap();
    m.validate("T").unwrap();
    m
}

#[test]
fn box_1x2x3_mesh_has_inertia_diag_6_5_5_2_5() {
    let m = box_mesh(DVec3::new(1.0, 2.0, 3.0));
    let mp = mesh_mass_properties(&m, 1.0);
    assert!((mp.volume - 6.0).abs() <= 1e-12 * 6.0);
    assert!((mp.mass - 6.0).abs() <= 1e-12 * 6.0);
    assert!(mp.com.length() < 1e-14);
    let expect = DMat3::from_diagonal(DVec3::new(6.5, 5.0, 2.5));
    for c in 0..3 {
        for r in 0..3 {
            let (a, b) = (mp.inertia.col(c)[r], expect.col(c)[r]);
            assert!(
                (a - b).abs() <= 1e-12 * 6.5,
                "I[{r}][{c}] = {a}, expected {b}"
            );
        }
    }
}

#[test]
fn translated_rotated_box_gives_the_rotated_tensor() {
    let q = DQuat::from_axis_angle(DVec3::new(1.0, -2.0, 0.5).normalize(), 0.83);
    let t = DVec3::new(3.0, -7.0, 11.0);
    let mut m = box_mesh(DVec3::new(1.0, 2.0, 3.0));
    m.transform(DVec3::ONE, q, t);
    let mp = mesh_mass_properties(&m, 1.0);
    let r = DMat3::from_quat(q);
    let expect = r * DMat3::from_diagonal(DVec3::new(6.5, 5.0, 2.5)) * r.transpose();
    assert!(
        rel(mp.inertia, expect) < 1e-12,
        "{}",
        rel(mp.inertia, expect)
    );
    assert!((mp.com - t).length() < 1e-12 * t.length());
    assert!((mp.volume - 6.0).abs() < 1e-12 * 6.0);
}

#[test]
fn t_handle_matches_the_sum_of_its_two_boxes() {
    // Bar 3 x 0.6 x 0.5 centred at y = 1.5, stem 0.6 x 2.4 x 0.5 centred at y = 0.
    let mp = mesh_mass_properties(&t_handle(), 2.0);
    let parts = [
        (DVec3::new(3.0, 0.6, 0.5), DVec3::new(0.0, 1.5, 0.0)),
        (DVec3::new(0.6, 2.4, 0.5), DVec3::ZERO),
    ];
    let mass: f64 = parts.iter().map(|(s, _)| 2.0 * s.x * s.y * s.z).sum();
    let com = parts
        .iter()
        .map(|(s, c)| *c * (2.0 * s.x * s.y * s.z))
        .sum::<DVec3>()
        / mass;
    let mut inertia = DMat3::ZERO;
    for (s, c) in parts {
        let b = Primitive::Box { size: s }.mass_properties(2.0);
        let d = c - com;
        let shift = DMat3::from_diagonal(DVec3::splat(d.dot(d)))
            - DMat3::from_cols(d * d.x, d * d.y, d * d.z);
        inertia += b.inertia + shift * b.mass;
    }
    assert!((mp.mass - mass).abs() < 1e-12 * mass);
    assert!((mp.com - com).length() < 1e-12);
    assert!(
        rel(mp.inertia, inertia) < 1e-12,
        "{}",
        rel(mp.inertia, inertia)
    );
}

#[test]
fn tessellated_cylinder_and_cone_match_polygon_closed_forms() {
    // Cone and cylinder: the closed form against the mesh of a 48-gon lathe, whose error is
    // known analytically for the cylinder: area of an inscribed n-gon = n/2 sin(2 pi/n) r^2.
    let (r, h) = (0.4, 1.3);
    let cyl = Primitive::Cylinder {
        radius: r,
        height: h,
    };
    let mesh = mesh_mass_properties(&cyl.surface_mesh(), 1.0);
    let n = 48.0;
    let ratio = n / 2.0 * (2.0 * std::f64::consts::PI / n).sin() / std::f64::consts::PI;
    let exact = cyl.mass_properties(1.0);
    assert!((mesh.volume / (exact.volume * ratio) - 1.0).abs() < 1e-12);
    // Izz of the n-gon prism: h times the polar moment of a regular n-gon of circumradius r,
    // n r^4 / 12 sin(2 pi/n) (2 + cos(2 pi/n)).
    let polar = r.powi(4) * n / 12.0
        * (2.0 * std::f64::consts::PI / n).sin()
        * (2.0 + (2.0 * std::f64::consts::PI / n).cos());
    let izz = polar * h;
    assert!(
        (mesh.inertia.z_axis.z / izz - 1.0).abs() < 1e-12,
        "{} {}",
        mesh.inertia.z_axis.z,
        izz
    );
    // The cone's centre of mass is on the origin by construction (base at -h/4).
    let cone = Primitive::Cone {
        radius: r,
        height: h,
    };
    let cm = mesh_mass_properties(&cone.surface_mesh(), 1.0);
    assert!(cm.com.length() < 1e-12, "cone com {}", cm.com);
    assert!((cm.volume / (cone.mass_properties(1.0).volume * ratio) - 1.0).abs() < 1e-12);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]
    #[test]
    fn mass_properties_transform_with_the_mesh(
        ax in -1.0f64..1.0, ay in -1.0f64..1.0, az in 0.1f64..1.0, angle in -3.0f64..3.0,
        tx in -50.0f64..50.0, ty in -50.0f64..50.0, tz in -50.0f64..50.0,
    ) {
        let q = DQuat::from_axis_angle(DVec3::new(ax, ay, az).normalize(), angle);
        let t = DVec3::new(tx, ty, tz);
        let base = t_handle();
        let a = mesh_mass_properties(&base, 3.0);
        let mut moved = base.clone();
        moved.transform(DVec3::ONE, q, t);
        let b = mesh_mass_properties(&moved, 3.0);
        let expect = a.transformed(q, t);
        prop_assert!((b.mass - a.mass).abs() < 1e-12 * a.mass);
        prop_assert!((b.com - expect.com).length() < 1e-11 * (1.0 + t.length()));
        prop_assert!(rel(b.inertia, expect.inertia) < 1e-10, "{}", rel(b.inertia, expect.inertia));
    }
}
