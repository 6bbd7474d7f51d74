//! Liquid surface reconstruction on lattices whose surface is known: a still block resting in a
//! container (closed, its volume, its free surface, drawn onto the floor and walls), a ball of
//! particles (its radius), a block moving uniformly (vertex velocities), a block with a body in
//! it (no vertex inside the body), normals, and the refusal of nonsense settings.
use glam::DVec3;
use sphrigid::Error;
use sphrigid::rigid::mesh::{TriMesh, box_mesh};
use sphrigid::surface::{Obstacles, SurfaceMesh, SurfaceParams, reconstruct};

const S: f64 = 0.01;

/// Particle centres of an nx x ny x nz lattice whose cells start at `origin`.
fn lattice(n: [usize; 3], origin: [f64; 3]) -> Vec<[f32; 3]> {
    let mut p = Vec::new();
    for i in 0..n[0] {
        for j in 0..n[1] {
            for k in 0..n[2] {
                p.push([
                    (origin[0] + (i as f64 + 0.5) * S) as f32,
                    (origin[1] + (j as f64 + 0.5) * S) as f32,
                    (origin[2] + (k as f64 + 0.5) * S) as f32,
                ]);
            }
        }
    }
    p
}

fn params() -> SurfaceParams {
    // The default kernel radius: 2 spacings.
    SurfaceParams::for_run(S / 2.0, 2.0 * S)
}

fn still(n: usize) -> Vec<[f32; 3]> {
    vec![[0.0; 3]; n]
}

/// The block of the container tests: 20 x 15 x 20 cells from the origin, in a container whose
/// floor and walls are the lattice's outer cell faces, open (high) above.
const BLOCK: [usize; 3] = [20, 15, 20];
const BOX_HI: [f64; 3] = [0.2, 0.4, 0.2];

fn block_in_container() -> (Vec<[f32; 3]>, Obstacles, SurfaceMesh) {
    let pos = lattice(BLOCK, [0.0; 3]);
    let obstacles = Obstacles {
        container: Some(([0.0; 3], BOX_HI)),
        bodies: Vec::new(),
    };
    let mesh = reconstruct(&pos, &still(pos.len()), &params(), &obstacles).unwrap();
    (pos, obstacles, mesh)
}

fn axis_range(mesh: &SurfaceMesh, a: usize) -> (f64, f64) {
    mesh.vertices
        .iter()
        .fold((f64::MAX, f64::MIN), |(lo, hi), v| {
            (lo.min(v[a] as f64), hi.max(v[a] as f64))
        })
}

#[test]
fn a_still_block_in_a_container_is_closed_holds_its_volume_and_meets_floor_and_walls() {
    let (pos, _, mesh) = block_in_container();
    assert!(!mesh.triangles.is_empty());
    assert_eq!(mesh.open_edges(), 0, "the surface is closed");
    let v0 = pos.len() as f64 * S.powi(3);
    let v = mesh.enclosed_volume();
    assert!(
        ((v - v0) / v0).abs() < 0.03,
        "enclosed volume {v:e} vs N s^3 = {v0:e}"
    );
    // Every vertex inside the container (f32 rounding allowed).
    let eps = 1e-6;
    for v in &mesh.vertices {
        for a in 0..3 {
            assert!(
                v[a] as f64 >= -eps && v[a] as f64 <= BOX_HI[a] + eps,
                "{v:?}"
            );
        }
    }
    // The mesh reaches the floor and the four walls: its lowest y and its extreme x and z lie
    // within a quarter spacing of those planes.
    let (y_lo, y_hi) = axis_range(&mesh, 1);
    let (x_lo, x_hi) = axis_range(&mesh, 0);
    let (z_lo, z_hi) = axis_range(&mesh, 2);
    for (got, wall) in [
        (y_lo, 0.0),
        (x_lo, 0.0),
        (x_hi, 0.2),
        (z_lo, 0.0),
        (z_hi, 0.2),
    ] {
        assert!(
            (got - wall).abs() <= S / 4.0,
            "mesh extreme {got} vs wall {wall}"
        );
    }
    // The free surface: the top of the lattice's cells, y = 0.15. Its vertices (outward normal
    // within 25 degrees of up) lie within half a spacing of it, and so does the highest vertex.
    let top = BLOCK[1] as f64 * S;
    assert!(
        (y_hi - top).abs() <= S / 2.0,
        "highest vertex {y_hi} vs {top}"
    );
    let mut n_top = 0;
    let mut worst = 0.0f64;
    for (v, n) in mesh.vertices.iter().zip(&mesh.normals) {
        if n[1] > 0.9 {
            n_top += 1;
            worst = worst.max((v[1] as f64 - top).abs());
        }
    }
    assert!(n_top > 100, "{n_top} vertices face up");
    assert!(
        worst <= S / 2.0,
        "top vertex {worst} m off the free surface"
    );
    // The ghosts mirrored across the floor and walls leave the free surface where it is: the
    // top above the block's centre is the same as without a container, to a hundredth of a
    // spacing.
    let free = reconstruct(&pos, &still(pos.len()), &params(), &Obstacles::default()).unwrap();
    let centre_top = |m: &SurfaceMesh| {
        m.vertices
            .iter()
            .filter(|v| (v[0] - 0.1).abs() < 0.02 && (v[2] - 0.1).abs() < 0.02 && v[1] > 0.1)
            .map(|v| v[1] as f64)
            .fold(f64::MIN, f64::max)
    };
    let (with, without) = (centre_top(&mesh), centre_top(&free));
    assert!(
        (with - without).abs() < 0.01 * S,
        "top at the centre {with} in the container, {without} without"
    );
    println!(
        "block: {} vertices, {} triangles, volume {:+.3}%, top off by at most {:.3} spacings",
        mesh.vertices.len(),
        mesh.triangles.len(),
        100.0 * (v - v0) / v0,
        worst / S
    );
}

/// The points of a 20 x 20 x 20 lattice within `spacings` spacings of `c`.
fn ball(c: [f64; 3], spacings: f64) -> Vec<[f32; 3]> {
    lattice([20, 20, 20], [0.0; 3])
        .into_iter()
        .filter(|p| {
            (0..3)
                .map(|a| (p[a] as f64 - c[a]).powi(2))
                .sum::<f64>()
                .sqrt()
                < spacings * S
        })
        .collect()
}

#[test]
fn a_ball_of_particles_has_the_radius_of_a_sphere_of_its_volume() {
    // Lattice points within 9.3 spacings of the centre; R is the radius of the sphere whose
    // volume is N s^3.
    let c = [0.1f64; 3];
    let pos = ball(c, 9.3);
    let r = (3.0 * pos.len() as f64 / (4.0 * std::f64::consts::PI)).cbrt() * S;
    let mesh = reconstruct(&pos, &still(pos.len()), &params(), &Obstacles::default()).unwrap();
    assert_eq!(mesh.open_edges(), 0);
    let mut worst = 0.0f64;
    for v in &mesh.vertices {
        let d = (0..3)
            .map(|a| (v[a] as f64 - c[a]).powi(2))
            .sum::<f64>()
            .sqrt();
        worst = worst.max((d - r).abs());
    }
    println!(
        "ball: N {}, R {r}, worst |d - R| {:.3} spacings",
        pos.len(),
        worst / S
    );
    assert!(worst <= S / 2.0, "a vertex lies {worst} m off the sphere");
}

#[test]
fn a_uniformly_moving_block_gives_every_vertex_its_velocity() {
    let pos = lattice([12, 10, 8], [0.0; 3]);
    let v = [0.3f32, -0.2, 0.1];
    let vel = vec![v; pos.len()];
    let mesh = reconstruct(&pos, &vel, &params(), &Obstacles::default()).unwrap();
    assert_eq!(mesh.velocities.len(), mesh.vertices.len());
    let speed = (v.iter().map(|x| x * x).sum::<f32>()).sqrt();
    for u in &mesh.velocities {
        let err = (0..3).map(|a| (u[a] - v[a]).powi(2)).sum::<f32>().sqrt();
        assert!(err <= 0.01 * speed, "vertex velocity {u:?} vs {v:?}");
    }
}

/// How deep `p` lies inside the axis-aligned box (lo, hi); 0 outside.
fn depth_in_box(p: [f32; 3], lo: DVec3, hi: DVec3) -> f64 {
    let p = DVec3::new(p[0] as f64, p[1] as f64, p[2] as f64);
    let d = (p - lo).min(hi - p);
    d.min_element().max(0.0)
}

#[test]
fn the_surface_does_not_cut_into_a_body() {
    // A 6 x 6 x 6 cm box across the block's top edge at x = 0.2 (half in the liquid), its faces
    // a quarter cell off the lattice: the liquid whose centres lie inside it is removed, as the
    // simulation does, so the naive surface bulges into it by up to half a spacing.
    let (lo, hi) = (
        DVec3::new(0.1725, 0.1225, 0.0725),
        DVec3::new(0.2325, 0.1825, 0.1325),
    );
    let mut body: TriMesh = box_mesh(hi - lo);
    body.transform(DVec3::ONE, glam::DQuat::IDENTITY, (lo + hi) * 0.5);
    let pos: Vec<[f32; 3]> = lattice(BLOCK, [0.0; 3])
        .into_iter()
        .filter(|&p| depth_in_box(p, lo, hi) == 0.0)
        .collect();
    let container = Some(([0.0; 3], [0.3, 0.4, 0.2]));
    let naive = reconstruct(
        &pos,
        &still(pos.len()),
        &params(),
        &Obstacles {
            container,
            bodies: Vec::new(),
        },
    )
    .unwrap();
    let deepest = |m: &SurfaceMesh| {
        m.vertices
            .iter()
            .map(|&v| depth_in_box(v, lo, hi))
            .fold(0.0f64, f64::max)
    };
    let obstacles = Obstacles {
        container,
        bodies: vec![body],
    };
    let mesh = reconstruct(&pos, &still(pos.len()), &params(), &obstacles).unwrap();
    println!(
        "body: naive surface {:.3} spacings deep, pushed {:.3}",
        deepest(&naive) / S,
        deepest(&mesh) / S
    );
    assert!(
        deepest(&naive) > S / 4.0,
        "the test needs a surface that cuts in"
    );
    assert!(deepest(&mesh) <= S / 4.0);
    assert_eq!(mesh.open_edges(), 0);
}

#[test]
fn normals_are_unit_and_outward() {
    let c = [0.1f64; 3];
    let ball = ball(c, 8.0);
    let ball_mesh =
        reconstruct(&ball, &still(ball.len()), &params(), &Obstacles::default()).unwrap();
    let (_, _, block_mesh) = block_in_container();
    let block_c = [0.1, 0.075, 0.1];
    for (mesh, c) in [(&ball_mesh, c), (&block_mesh, block_c)] {
        assert_eq!(mesh.normals.len(), mesh.vertices.len());
        for (v, n) in mesh.vertices.iter().zip(&mesh.normals) {
            let len = n.iter().map(|x| x * x).sum::<f32>().sqrt();
            assert!((len - 1.0).abs() < 1e-5, "normal {n:?}");
            let out: f64 = (0..3).map(|a| n[a] as f64 * (v[a] as f64 - c[a])).sum();
            assert!(out > 0.0, "normal {n:?} at {v:?} points inward");
        }
    }
}

#[test]
fn nonsense_settings_are_refused() {
    let good = params();
    assert_eq!(good.validate(), Ok(()));
    // Defaults for any liquid kernel radius are valid, with a support of 1.75 to 2 spacings.
    for kernel in [0.1 * S, 1.8 * S, 2.0 * S, 3.0 * S, f64::NAN] {
        let p = SurfaceParams::for_run(S / 2.0, kernel);
        assert_eq!(p.validate(), Ok(()));
        let support = p.compact_support_radius() / S;
        assert!((1.75 - 1e-12..=2.0 + 1e-12).contains(&support), "{support}");
    }
    let json = serde_json::to_string(&good).unwrap();
    assert_eq!(serde_json::from_str::<SurfaceParams>(&json).unwrap(), good);
    let bad = [
        SurfaceParams {
            particle_radius: 0.0,
            ..good.clone()
        },
        SurfaceParams {
            particle_radius: f64::NAN,
            ..good.clone()
        },
        SurfaceParams {
            smoothing_length: -2.0,
            ..good.clone()
        },
        SurfaceParams {
            smoothing_length: 1e6,
            ..good.clone()
        },
        SurfaceParams {
            cube_size: f64::INFINITY,
            ..good.clone()
        },
        SurfaceParams {
            cube_size: 1e-9,
            ..good.clone()
        },
        SurfaceParams {
            threshold: 0.0,
            ..good.clone()
        },
        SurfaceParams {
            threshold: 1.5,
            ..good.clone()
        },
        SurfaceParams {
            smooth_iterations: u32::MAX,
            ..good.clone()
        },
    ];
    for p in &bad {
        let msg = p.validate().unwrap_err();
        assert!(msg.contains("surface."), "{msg}");
        let e = reconstruct(&[[0.0; 3]], &[[0.0; 3]], p, &Obstacles::default()).unwrap_err();
        assert!(matches!(e, Error::Input(_)), "{e}");
    }
    // Cubes of a tenth of a particle radius over a 100 m cloud: far more than 2e9 cells.
    let fine = SurfaceParams {
        cube_size: 0.1,
        ..good.clone()
    };
    let far = [[0.0f32; 3], [100.0, 100.0, 100.0]];
    let e = reconstruct(&far, &still(2), &fine, &Obstacles::default()).unwrap_err();
    assert!(
        matches!(&e, Error::Input(m) if m.contains("surface.cube_size")),
        "{e}"
    );
    // Mismatched velocities and a non-finite position.
    assert!(matches!(
        reconstruct(&far, &still(1), &good, &Obstacles::default()),
        Err(Error::Input(_))
    ));
    assert!(matches!(
        reconstruct(&[[f32::NAN; 3]], &still(1), &good, &Obstacles::default()),
        Err(Error::Input(_))
    ));
    // No particles: an empty mesh.
    let empty = reconstruct(&[], &[], &good, &Obstacles::default()).unwrap();
    assert!(empty.vertices.is_empty() && empty.triangles.is_empty());
}

/// Twice the signed area vector of triangle `t`.
fn winding(mesh: &SurfaceMesh, t: [u32; 3]) -> DVec3 {
    let p = t.map(|i| {
        let v = mesh.vertices[i as usize];
        DVec3::new(v[0] as f64, v[1] as f64, v[2] as f64)
    });
    (p[1] - p[0]).cross(p[2] - p[0])
}

#[test]
fn liquid_near_a_wall_but_off_it_leaves_no_folded_faces_on_the_wall() {
    // A layer resting on the floor, and a ball of liquid whose nearest particles are 1.5
    // spacings off the wall x = 0 (within the kernel's reach of it, but not touching it): the layer meets the floor; the ball must not put a mirrored
    // image of itself, folded flat, onto the wall (faces there winding into the liquid, which
    // renderers draw black).
    let mut pos = lattice([20, 3, 20], [0.0; 3]);
    let c = [0.064, 0.12, 0.1];
    let ball = lattice([20, 20, 20], [0.0; 3]).into_iter().filter(|p| {
        (0..3)
            .map(|a| (p[a] as f64 - c[a]).powi(2))
            .sum::<f64>()
            .sqrt()
            < 5.0 * S
    });
    pos.extend(ball);
    let nearest = pos
        .iter()
        .filter(|p| p[1] as f64 > 0.05)
        .map(|p| p[0] as f64)
        .fold(f64::MAX, f64::min);
    assert!(
        (nearest / S - 1.2).abs() < 0.31,
        "the ball's nearest centre is {nearest}"
    );
    let obstacles = Obstacles {
        container: Some(([0.0; 3], BOX_HI)),
        bodies: Vec::new(),
    };
    let mesh = reconstruct(&pos, &still(pos.len()), &params(), &obstacles).unwrap();
    assert_eq!(mesh.open_edges(), 0);
    let on = |t: [u32; 3], a: usize, x: f64| {
        t.iter()
            .all(|&i| (mesh.vertices[i as usize][a] as f64 - x).abs() < 1e-6)
    };
    let (mut floor, mut inward) = (0.0, 0.0);
    for &t in &mesh.triangles {
        let w = winding(&mesh, t);
        for a in 0..3 {
            if on(t, a, 0.0) {
                if w[a] > 0.0 {
                    inward += w[a] / 2.0;
                } else if a == 1 {
                    floor -= w[a] / 2.0;
                }
            }
            if on(t, a, BOX_HI[a]) && w[a] < 0.0 {
                inward -= w[a] / 2.0;
            }
        }
    }
    println!("floor contact {floor:.5} m^2, faces winding into the liquid {inward:.2e} m^2");
    // The layer's whole bottom lies on the floor (0.2 x 0.2 m).
    assert!((floor - 0.04).abs() < 0.04 * 0.01, "floor contact {floor}");
    assert!(
        inward < 1e-3 * 0.04,
        "{inward} m^2 of faces on the walls wind into the liquid"
    );
}
