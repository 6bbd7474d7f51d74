//! Lattice sampling: inside tests for non-convex meshes, surface marking, mass scaling, and the
//! convergence of the clump's inertia to the exact solid's.
use crate::rigid::mesh::{box_mesh, extrude_polygon};
use crate::rigid::sampling::{Lattice, mesh_inside, sample};
use crate::rigid::{MeshSolid, Primitive, Shape, TriMesh};
use glam::{DQuat, DVec2, DVec3};

const T_POLY: [(f64, f64); 8] = [
    (-0.3, -1.2),
    (0.3, -1.2),
    (0.3, 1.2),
    (1.5, 1.2),
    (1.5, 1.8),
    (-1.5, 1.8),
    (-1.5, 1.2),
    (-0.3, 1.2),
];
const T_DEPTH: f64 = 0.5;

fn t_handle() -> TriMesh {
    let mut m = extrude_polygon(&T_POLY.map(|(x, y)| DVec2::new(x, y)), T_DEPTH).unwrap();
    m.validate("T").unwrap();
    m
}

/// Analytic inside test of the T-handle (union of two boxes).
fn in_t(p: DVec3) -> bool {
    let in_box = |c: DVec3, h: DVec3| ((p - c).abs() - h).max_element() < 0.0;
    p.z.abs() < T_DEPTH / 2.0
        && (in_box(DVec3::new(0.0, 0.0, 0.0), DVec3::new(0.3, 1.2, 1.0))
            || in_box(DVec3::new(0.0, 1.5, 0.0), DVec3::new(1.5, 0.3, 1.0)))
}

/// Distance-like margin of p from the T's boundary (small means "too close to call").
fn t_margin(p: DVec3) -> f64 {
    let mut d = (p.z.abs() - T_DEPTH / 2.0).abs();
    for v in [
        p.x - 0.3,
        p.x + 0.3,
        p.x - 1.5,
        p.x + 1.5,
        p.y - 1.2,
        p.y + 1.2,
        p.y - 1.8,
    ] {
        d = d.min(v.abs());
    }
    d
}

#[test]
fn winding_inside_test_matches_analytic_t_handle_under_rotation() {
    let q = DQuat::from_axis_angle(DVec3::new(0.3, 1.0, -0.4).normalize(), 1.1);
    let t = DVec3::new(0.25, -0.5, 2.0);
    let mut m = t_handle();
    m.transform(DVec3::ONE, q, t);
    let (lo, hi) = m.bounds();
    let lat = Lattice::covering(lo, hi, 0.031);
    let inside = mesh_inside(&m, &lat);
    let (mut checked, mut n_in) = (0, 0);
    for k in 0..lat.dims[2] {
        for j in 0..lat.dims[1] {
            for i in 0..lat.dims[0] {
                let p = lat.point(i, j, k);
                let local = q.conjugate() * (p - t);
                if t_margin(local) < 1e-9 {
                    continue;
                }
                checked += 1;
                let expect = in_t(local);
                n_in += expect as usize;
                assert_eq!(
                    inside[lat.index(i, j, k)],
                    expect,
                    "point {p} (local {local})"
                );
            }
        }
    }
    assert!(checked > 100_000 && n_in > 10_000, "{checked} {n_in}");
}

#[test]
fn lattice_through_t_handle_edges_and_corners_is_exact() {
    // Axis-aligned T and a lattice whose rows pass exactly through its edges and inner corners:
    // the cell-centred count must equal the T's volume in cells.
    let m = t_handle();
    let lat = Lattice {
        origin: DVec3::new(-1.5, -1.2, -0.25),
        spacing: 0.05,
        dims: [61, 61, 11],
    };
    let inside = mesh_inside(&m, &lat);
    for k in 0..lat.dims[2] {
        for j in 0..lat.dims[1] {
            for i in 0..lat.dims[0] {
                let p = lat.point(i, j, k);
                if t_margin(p) > 1e-9 {
                    assert_eq!(inside[lat.index(i, j, k)], in_t(p), "{p}");
                }
            }
        }
    }
}

fn clump_error(shape: &Shape, across: f64) -> (f64, usize) {
    let (lo, hi) = shape.bounds();
    let spacing = (hi - lo).min_element() / across;
    let c = sample(shape, spacing, 1000.0, "test").unwrap();
    let exact = shape.mass_properties(1000.0);
    let mp = c.mass_properties();
    assert!(
        (mp.mass - exact.mass).abs() < 1e-9 * exact.mass,
        "clump mass is scaled to the exact mass"
    );
    (mp.inertia_relative_difference(&exact), c.len())
}

fn assert_converges(name: &str, shape: &Shape) {
    let errs: Vec<(f64, usize)> = [5.0, 10.0, 20.0, 40.0]
        .iter()
        .map(|&n| clump_error(shape, n))
        .collect();
    println!("{name}: clump inertia relative error at 5/10/20/40 across: {errs:?}");
    assert!(errs[2].0 < 0.02, "{name}: {} at 20 across", errs[2].0);
    assert!(errs[3].0 < errs[1].0, "{name}: no convergence {errs:?}");
    assert!(errs[3].0 < 0.01, "{name}: {} at 40 across", errs[3].0);
}

#[test]
fn clump_inertia_converges_for_a_box() {
    // Size 1 x 1.3 x 1.7: not a multiple of most spacings, so the lattice does not fit exactly.
    let shape = Shape::Mesh(MeshSolid::new(box_mesh(DVec3::new(1.0, 1.3, 1.7))));
    assert_converges("box", &shape);
}

#[test]
fn clump_inertia_converges_for_a_sphere() {
    assert_converges(
        "sphere",
        &Shape::Primitive(Primitive::Sphere { radius: 0.8 }),
    );
}

#[test]
fn clump_inertia_converges_for_a_non_convex_mesh() {
    // The T rotated off the lattice axes.
    let mut m = t_handle();
    m.transform(
        DVec3::ONE,
        DQuat::from_axis_angle(DVec3::new(1.0, 1.0, 0.2).normalize(), 0.6),
        DVec3::ZERO,
    );
    assert_converges("T-handle", &Shape::Mesh(MeshSolid::new(m)));
}

#[test]
fn clump_inertia_converges_for_other_primitives() {
    for p in [
        Primitive::Cylinder {
            radius: 0.5,
            height: 1.2,
        },
        Primitive::Cone {
            radius: 0.6,
            height: 1.4,
        },
        Primitive::Ellipsoid {
            radii: DVec3::new(0.5, 0.8, 1.1),
        },
        Primitive::Box {
            size: DVec3::new(0.7, 1.0, 1.9),
        },
    ] {
        assert_converges(p.kind(), &Shape::Primitive(p));
    }
}

#[test]
fn box_surface_particles_are_the_outer_shell_with_face_normals() {
    let shape = Shape::Mesh(MeshSolid::new(box_mesh(DVec3::new(1.0, 2.0, 3.0))));
    let c = sample(&shape, 0.1, 500.0, "box").unwrap();
    assert_eq!(c.len(), 10 * 20 * 30);
    assert_eq!(c.len() - c.surface_count(), 8 * 18 * 28);
    assert_eq!(c.radius, 0.05);
    assert!((c.mass() - 500.0 * 6.0).abs() < 1e-9);
    for ((p, s), n) in c.positions.iter().zip(&c.surface).zip(&c.normals) {
        if *s {
            // The normal is the axis of the nearest face, pointing away from the centre.
            let gap = DVec3::new(0.5, 1.0, 1.5) - p.abs();
            assert!((n.length() - 1.0).abs() < 1e-12);
            let axis = n.abs().max_position();
            assert!((gap[axis] - gap.min_element()).abs() < 1e-12, "{p} {n}");
            assert!(n[axis] * p[axis] > 0.0);
        } else {
            assert_eq!(*n, DVec3::ZERO);
        }
    }
}

#[test]
fn sphere_surface_normals_are_radial() {
    let c = sample(
        &Shape::Primitive(Primitive::Sphere { radius: 1.0 }),
        0.1,
        1.0,
        "s",
    )
    .unwrap();
    let mut count = 0;
    for ((p, s), n) in c.positions.iter().zip(&c.surface).zip(&c.normals) {
        if *s {
            count += 1;
            assert!((*n - p.normalize()).length() < 1e-12);
            assert!(
                p.length() > 1.0 - 2.0 * 0.1 * 3f64.sqrt(),
                "surface particle deep inside: {p}"
            );
        }
    }
    assert!(count > 500, "{count}");
}

#[test]
fn too_coarse_spacing_is_an_input_error() {
    let e = sample(
        &Shape::Primitive(Primitive::Sphere { radius: 0.1 }),
        5.0,
        1.0,
        "pebble",
    )
    .unwrap_err();
    assert_eq!(e.exit_code(), 2);
    assert!(
        e.to_string().contains("pebble") && e.to_string().contains("smaller spacing"),
        "{e}"
    );
}

#[test]
fn hollow_shell_and_disjoint_parts_are_classified_by_winding_number() {
    // Outer box 2 x 2 x 2 outward, inner box 1 x 1 x 1 inward (a cavity), plus a separate
    // cube at x = 3: one mesh, three closed components.
    let mut outer = box_mesh(DVec3::splat(2.0));
    let mut inner = box_mesh(DVec3::splat(1.0));
    inner.flip();
    let mut far = box_mesh(DVec3::splat(1.0));
    far.transform(DVec3::ONE, DQuat::IDENTITY, DVec3::new(3.0, 0.0, 0.0));
    for part in [&mut inner, &mut far] {
        let n = outer.vertices.len() as u32;
        outer.vertices.extend_from_slice(&part.vertices);
        outer
            .triangles
            .extend(part.triangles.iter().map(|t| t.map(|i| i + n)));
    }
    outer.validate("shell").unwrap();
    let (lo, hi) = outer.bounds();
    let lat = Lattice::covering(lo, hi, 0.1);
    let inside = mesh_inside(&outer, &lat);
    for k in 0..lat.dims[2] {
        for j in 0..lat.dims[1] {
            for i in 0..lat.dims[0] {
                let p = lat.point(i, j, k);
                let a = p.abs().max_element();
                let f = (p - DVec3::new(3.0, 0.0, 0.0)).abs().max_element();
                let expect = (a < 1.0 && a > 0.5) || f < 0.5;
                assert_eq!(inside[lat.index(i, j, k)], expect, "{p}");
            }
        }
    }
    // Exact mass properties subtract the cavity: 8 - 1 + 1.
    let mp = crate::rigid::mass_properties::mesh_mass_properties(&outer, 1.0);
    assert!((mp.volume - 8.0).abs() < 1e-12);
}
