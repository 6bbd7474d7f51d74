//! Bodies in scenes and runs: `[[body]]` keys, stepping with gravity, `OUT/rigid/*.ply`,
//! `OUT/rigid_states.csv`, and the wrench scene's flip.
use glam::{DQuat, DVec3};
use sphrigid::output::mesh_files::read_obj;
use sphrigid::output::rigid_states::{self, StateRow};
use sphrigid::rigid::free_rotation::jacobi_motion;
use sphrigid::sim::Simulation;
use std::path::{Path, PathBuf};

use crate::common;
use crate::common::sphrigid;

fn repo(p: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(p)
}

fn run_scene(scene: &Path, out: &Path, extra: &[&str]) {
    let mut args = vec![
        "run",
        scene.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--quiet",
    ];
    args.extend_from_slice(extra);
    let r = sphrigid(&args);
    assert!(
        r.status.success(),
        "run failed: {}",
        String::from_utf8_lossy(&r.stderr)
    );
}

fn rows_of(out: &Path, body: &str) -> Vec<StateRow> {
    let text = std::fs::read_to_string(out.join("rigid_states.csv")).unwrap();
    rigid_states::parse(&text)
        .unwrap()
        .into_iter()
        .filter(|r| r.body == body)
        .collect()
}

fn pose(r: &StateRow) -> (DVec3, DQuat) {
    let v = &r.values;
    (
        DVec3::new(v[0], v[1], v[2]),
        DQuat::from_xyzw(v[4], v[5], v[6], v[3]),
    )
}

#[test]
fn wrench_scene_flips_with_the_jacobi_period() {
    let scene = repo("scenes/wrench_in_space.toml");
    let dir = tempfile::tempdir().unwrap();
    run_scene(&scene, dir.path(), &[]);
    let rows = rows_of(dir.path(), "wrench");
    assert_eq!(rows.len(), 721, "one row per frame 0..=720");

    // The analytic flip period from the body as the scene builds it.
    let loaded = sphrigid::scene::load(&scene, &[]).unwrap();
    let sim = Simulation::setup(&loaded, sphrigid::backend::Backend::Cpu).unwrap();
    let b = &sim.bodies[0];
    let ib = b.inertia.body;
    let off_diagonal = ib.x_axis.y.abs() + ib.x_axis.z.abs() + ib.y_axis.z.abs();
    assert!(
        off_diagonal < 1e-12 * ib.x_axis.x,
        "mesh axes are principal"
    );
    let moments = DVec3::new(ib.x_axis.x, ib.y_axis.y, ib.z_axis.z);
    let w0 = b.inertia.body_inv * (b.state.q.conjugate() * b.state.l);
    let flip = jacobi_motion(moments, w0).unwrap().flip_period;

    // Body-frame angular velocity from the CSV; sign changes of its intermediate (x) part.
    let (e0, l0) = {
        let w = DVec3::new(8.0, 0.05, 0.05);
        (w.dot(moments * w), (moments * w).length())
    };
    let mut crossings = Vec::new();
    let mut prev: Option<(f64, f64)> = None;
    for r in &rows {
        let (_, q) = pose(r);
        let w_world = DVec3::from_slice(&r.values[10..13]);
        let w = q.conjugate() * w_world;
        // Energy and |L| read back from the file: conserved by the implicit midpoint rule.
        assert!(
            (w.dot(moments * w) / e0 - 1.0).abs() < 1e-6,
            "energy at t = {}",
            r.time
        );
        assert!(
            ((moments * w).length() / l0 - 1.0).abs() < 1e-6,
            "|L| at t = {}",
            r.time
        );
        if let Some((t0, x0)) = prev
            && x0.signum() != w.x.signum()
        {
            crossings.push(t0 + (r.time - t0) * x0 / (x0 - w.x));
        }
        prev = Some((r.time, w.x));
    }
    assert!(crossings.len() >= 4, "{} flips in 12 s", crossings.len());
    let intervals: Vec<f64> = crossings.windows(2).map(|p| p[1] - p[0]).collect();
    println!(
        "wrench: Jacobi flip period {flip:.5} s, measured from rigid_states.csv {intervals:.5?}"
    );
    for pair in crossings.windows(2) {
        let measured = pair[1] - pair[0];
        assert!(
            (measured / flip - 1.0).abs() < 0.01,
            "flip took {measured} s, Jacobi says {flip} s"
        );
    }
    // The body really turns over: its x axis points the other way between crossings.
    let mid = ((crossings[0] + crossings[1]) / 2.0 * 60.0).round() as usize;
    let x_axis_mid = pose(&rows[mid]).1 * DVec3::X;
    assert!(
        x_axis_mid.x < -0.9,
        "x axis at the middle of the first flip: {x_axis_mid}"
    );
}

#[test]
fn rigid_frames_are_the_posed_mesh_and_listed_in_the_manifest() {
    let scene = repo("scenes/wrench_in_space.toml");
    let dir = tempfile::tempdir().unwrap();
    run_scene(&scene, dir.path(), &["--frames", "30"]);
    let rows = rows_of(dir.path(), "wrench");
    assert_eq!(rows.len(), 31);
    let mesh = read_obj(&repo("scenes/meshes/t_handle.obj")).unwrap();
    let com = DVec3::new(0.0, 0.04, 0.0);
    for frame in [0usize, 17, 30] {
        let path = dir.path().join(format!("rigid/wrench_{frame:05}.ply"));
        use ply_rs_bw::parser::Parser;
        use ply_rs_bw::ply::{DefaultElement, Property};
        let mut f = std::fs::File::open(&path).unwrap();
        let ply = Parser::<DefaultElement>::new().read_ply(&mut f).unwrap();
        let verts = &ply.payload["vertex"];
        let faces = &ply.payload["face"];
        assert_eq!(verts.len(), mesh.vertices.len());
        assert_eq!(faces.len(), mesh.triangles.len());
        let (x, q) = pose(&rows[frame]);
        for (v, m) in verts.iter().zip(&mesh.vertices) {
            let get = |k: &str| match v[k] {
                Property::Float(f) => f as f64,
                ref o => panic!("{k} is {o:?}"),
            };
            let got = DVec3::new(get("x"), get("y"), get("z"));
            let expect = x + q * (*m - com);
            assert!(
                (got - expect).length() < 1e-6,
                "frame {frame}: {got} vs {expect}"
            );
        }
        for (f, t) in faces.iter().zip(&mesh.triangles) {
            let idx = f["vertex_indices"].to_u32_list().unwrap();
            assert_eq!(idx.len(), 3);
            // Same triangles (a quad of the OBJ is fanned into two).
            assert_eq!(idx, t.to_vec());
        }
    }
    let manifest: serde_json::Value = common::read_manifest(dir.path());
    let frames = manifest["frames"].as_array().unwrap();
    assert_eq!(frames.len(), 31);
    assert_eq!(frames[17]["rigid"]["wrench"], "rigid/wrench_00017.ply");
    assert_eq!(manifest["scene"]["body"][0]["name"], "wrench");
    // No temporary files are left behind.
    for entry in std::fs::read_dir(dir.path().join("rigid")).unwrap() {
        let name = entry.unwrap().file_name().into_string().unwrap();
        assert!(
            name.starts_with("wrench_") && name.ends_with(".ply"),
            "{name}"
        );
    }
}

const FALL: &str = r#"
gravity = [0, -9.81, 0]
[time]
fps = 30
frames = 30
substeps = 3

[[body]]
name = "ball"
shape = { type = "sphere", radius = 0.1 }
density = 500
position = [0, 10, 0]
velocity = [1, 2, 0]
integrator = "rk4"

[[body]]
name = "slab"
shape = { type = "box", size = [2, 0.1, 2] }
position = [0, -1, 0]
orientation = { axis = [1, 0, 0], degrees = 10 }
dynamic = false

[[body]]
name = "cone"
shape = { type = "cone", radius = 0.2, height = 0.5 }
position = [3, 0, 0]
angular_velocity = [0, 0, 2]
integrator = "euler"
"#;

#[test]
fn bodies_fall_under_gravity_and_static_bodies_stay() {
    let dir = tempfile::tempdir().unwrap();
    let scene = dir.path().join("fall.toml");
    std::fs::write(&scene, FALL).unwrap();
    let out = dir.path().join("out");
    run_scene(&scene, &out, &[]);
    let ball = rows_of(&out, "ball");
    assert_eq!(ball.len(), 31);
    for r in &ball {
        let t = r.time;
        let (x, _) = pose(r);
        let expect = DVec3::new(t, 10.0 + 2.0 * t - 0.5 * 9.81 * t * t, 0.0);
        assert!((x - expect).length() < 1e-9, "t = {t}: {x} vs {expect}");
        let v = DVec3::from_slice(&r.values[7..10]);
        assert!((v - DVec3::new(1.0, 2.0 - 9.81 * t, 0.0)).length() < 1e-9);
    }
    let slab = rows_of(&out, "slab");
    let q10 = DQuat::from_rotation_x(10f64.to_radians());
    for r in &slab {
        let (x, q) = pose(r);
        assert_eq!(x, DVec3::new(0.0, -1.0, 0.0));
        assert!(q.angle_between(q10) < 1e-12);
        assert_eq!(&r.values[7..13], &[0.0; 6], "a static body has no velocity");
    }
    // The cone spins about its symmetry axis (a principal axis) at 2 rad/s.
    let cone = rows_of(&out, "cone");
    let last = cone.last().unwrap();
    let (_, q) = pose(last);
    let expect = DQuat::from_rotation_z(2.0 * last.time);
    assert!(
        q.angle_between(expect) < 1e-2,
        "euler cone drifts little in 1 s"
    );
    assert!(std::fs::metadata(out.join("rigid/slab_00030.ply")).is_ok());
}

#[test]
fn body_spacing_defaults_to_the_liquid_spacing() {
    let text = r#"
        [container]
        min = [0, 0, 0]
        max = [1, 1, 1]
        [[liquid]]
        min = [0, 0, 0]
        max = [0.2, 0.2, 0.2]
        spacing = 0.02
        [[body]]
        name = "crate"
        shape = { type = "box", size = [0.2, 0.2, 0.2] }
        position = [0.5, 0.5, 0.5]
    "#;
    let loaded = sphrigid::scene::parse(text.into(), Path::new("t.toml"), &[]).unwrap();
    let mut sim = Simulation::setup(&loaded, sphrigid::backend::Backend::Cpu).unwrap();
    let b = &sim.bodies[0];
    assert_eq!(b.clump.spacing, 0.02);
    assert_eq!(b.clump.len(), 1000);
    assert_eq!(b.clump.radius, 0.01);
    // The liquid and the body step together (no contact yet): the body falls freely.
    sim.advance_frame().unwrap();
    let t = sim.time;
    let y = sim.bodies[0].state.x.y;
    assert!((y - (0.5 - 0.5 * 9.81 * t * t)).abs() < 1e-12, "{y}");
}

fn check_fails(dir: &Path, name: &str, text: &str, words: &[&str]) {
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    for cmd in ["check", "run"] {
        let mut args = vec![cmd, path.to_str().unwrap()];
        let out = dir.join("out");
        if cmd == "run" {
            args.extend_from_slice(&["--out", out.to_str().unwrap()]);
        }
        let r = sphrigid(&args);
        let err = String::from_utf8_lossy(&r.stderr);
        assert_eq!(r.status.code(), Some(2), "{name} {cmd}: {err}");
        assert!(!err.contains("panicked"), "{err}");
        for w in words {
            assert!(err.contains(w), "{name} {cmd}: error lacks '{w}': {err}");
        }
    }
}

#[test]
fn bad_body_keys_and_meshes_exit_2_with_the_place_and_the_fix() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let body = |extra: &str| {
        format!(
            "gravity = [0, 0, 0]\n\n[[body]]\nname = \"b\"\nshape = {{ type = \"sphere\", radius = 0.5 }}\n{extra}\n"
        )
    };
    check_fails(
        d,
        "restitution.toml",
        &body("restitution = 2"),
        &["restitution.toml:6", "body[0].restitution", "fix:"],
    );
    check_fails(
        d,
        "friction.toml",
        &body("friction = -1"),
        &["friction.toml:6", "body[0].friction"],
    );
    check_fails(
        d,
        "density.toml",
        &body("density = 0"),
        &["density.toml:6", "body[0].density"],
    );
    check_fails(
        d,
        "integrator.toml",
        &body("integrator = \"verlet\""),
        &["body[0].integrator", "rk4"],
    );
    check_fails(
        d,
        "orient.toml",
        &body("orientation = { axis = [0, 0, 1] }"),
        &["body[0].orientation", "degrees"],
    );
    check_fails(
        d,
        "quat.toml",
        &body("orientation = { quaternion = [1, 1, 0, 0] }"),
        &["body[0].orientation.quaternion"],
    );
    check_fails(
        d,
        "colour.toml",
        &body("colour = \"red\""),
        &["colour.toml:6", "colour"],
    );
    check_fails(
        d,
        "radius.toml",
        "[[body]]\nname = \"b\"\nshape = { type = \"sphere\", radius = -2 }\n",
        &["radius.toml:3", "body[0].shape.radius"],
    );
    check_fails(
        d,
        "pyramid.toml",
        "[[body]]\nname = \"b\"\nshape = { type = \"pyramid\", size = 1 }\n",
        &["pyramid.toml:3", "pyramid"],
    );
    check_fails(
        d,
        "twins.toml",
        &format!(
            "{}{}",
            body(""),
            "[[body]]\nname = \"b\"\nshape = { type = \"box\", size = [1, 1, 1] }\n"
        ),
        &["body[1].name", "own name"],
    );
    check_fails(
        d,
        "name.toml",
        &body("").replace("\"b\"", "\"a/b\""),
        &["body[0].name"],
    );
    // Meshes: missing, open, inconsistently oriented.
    let mesh_scene = |file: &str| {
        format!("[[body]]\nname = \"m\"\nshape = {{ type = \"mesh\", path = \"{file}\" }}\n")
    };
    check_fails(
        d,
        "missing.toml",
        &mesh_scene("nowhere.obj"),
        &[
            "missing.toml",
            "body[0] 'm'",
            "nowhere.obj",
            "cannot read the mesh file",
        ],
    );
    let cube = "v 0 0 0\nv 1 0 0\nv 0 1 0\nv 1 1 0\nv 0 0 1\nv 1 0 1\nv 0 1 1\nv 1 1 1\n\
                f 1 5 7 3\nf 2 4 8 6\nf 1 2 6 5\nf 3 7 8 4\nf 1 3 4 2\n";
    std::fs::write(d.join("open.obj"), cube).unwrap();
    check_fails(
        d,
        "open.toml",
        &mesh_scene("open.obj"),
        &["open.obj", "not closed", "fix:"],
    );
    // The closed cube is `cube` plus its +z face "f 5 6 8 7"; here its -z face is reversed.
    let flipped = format!("{}f 5 6 8 7\n", cube.replace("f 1 3 4 2", "f 1 2 4 3"));
    std::fs::write(d.join("flipped.obj"), flipped).unwrap();
    check_fails(
        d,
        "flipped.toml",
        &mesh_scene("flipped.obj"),
        &["flipped.obj", "inconsistently oriented"],
    );
}

/// A scene with a 0.3 m container, a liquid block of spacing 0.01 and `bodies` (TOML text).
fn placed(bodies: &str) -> String {
    format!(
        "[container]\nmin = [0, 0, 0]\nmax = [0.3, 0.3, 0.3]\n[[liquid]]\nmin = [0, 0, 0]\nmax = [0.1, 0.1, 0.1]\nspacing = 0.01\n[time]\nframes = 1\n{bodies}"
    )
}

/// A 0.1 m box named `name` at `position`, with `extra` keys.
fn box_at(name: &str, position: &str, extra: &str) -> String {
    format!(
        "[[body]]\nname = \"{name}\"\nshape = {{ type = \"box\", size = [0.1, 0.1, 0.1] }}\nposition = [{position}]\n{extra}\n"
    )
}

#[test]
fn bodies_in_a_wall_in_each_other_or_too_big_for_the_container_exit_2_naming_the_overlap() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let cases = [
        (
            "in_wall.toml",
            box_at("b", "0.04, 0.2, 0.15", ""),
            vec!["body[0] 'b'", "0.0100 m into the container's wall at x = 0", "allow_overlap"],
        ),
        (
            "in_floor.toml",
            box_at("b", "0.2, 0, 0.15", ""),
            vec!["body[0] 'b'", "0.0500 m into the container's wall at y = 0", "move the body"],
        ),
        (
            "overlap.toml",
            format!(
                "{}{}",
                box_at("a", "0.15, 0.15, 0.15", ""),
                box_at("b", "0.24, 0.15, 0.15", "")
            ),
            vec!["body[1] 'b' overlaps body[0] 'a' by about 0.0100 m", "allow_overlap = true"],
        ),
        (
            "too_big.toml",
            "[[body]]\nname = \"big\"\nshape = { type = \"sphere\", radius = 1.0 }\nposition = [0.15, 0.15, 0.15]\n".to_string(),
            vec!["body[0] 'big' does not fit in the container", "2.0000 m", "0.3000 m"],
        ),
    ];
    for (name, bodies, words) in cases {
        let mut words = words;
        words.extend([name, "body[", "position", "fix:"]);
        check_fails(d, name, &placed(&bodies), &words);
        // The refused run wrote nothing: no manifest, no frame.
        let out = d.join("out");
        assert!(!out.join("manifest.json").exists(), "{name}");
        assert!(!out.join("fluid").exists(), "{name}");
    }
}

#[test]
fn an_allowed_overlap_and_bodies_resting_on_the_floor_and_on_each_other_pass() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let spheres = "[[body]]\nname = \"s\"\nshape = { type = \"sphere\", radius = 0.05 }\nposition = [0.2, 0.05, 0.15]\n\
                   [[body]]\nname = \"t\"\nshape = { type = \"sphere\", radius = 0.05 }\nposition = [0.2, 0.15, 0.15]\n\
                   [[body]]\nname = \"c\"\nshape = { type = \"cylinder\", radius = 0.03, height = 0.07 }\nposition = [0.2, 0.235, 0.15]\n";
    let turned = "[[body]]\nname = \"r\"\nshape = { type = \"box\", size = [0.1, 0.1, 0.1] }\nposition = [0.15, 0.0707107, 0.15]\norientation = { axis = [0, 0, 1], degrees = 45 }\n";
    for (name, bodies) in [
        (
            "allowed.toml",
            format!(
                "{}{}",
                box_at("a", "0.15, 0.15, 0.15", ""),
                box_at("b", "0.24, 0.15, 0.15", "allow_overlap = true")
            ),
        ),
        (
            "stacked.toml",
            format!(
                "{}{}",
                box_at("a", "0.2, 0.05, 0.15", ""),
                box_at("b", "0.2, 0.15, 0.15", "")
            ),
        ),
        ("round.toml", spheres.to_string()),
        ("turned.toml", turned.to_string()),
    ] {
        let path = d.join(name);
        std::fs::write(&path, placed(&bodies)).unwrap();
        let r = sphrigid(&["check", path.to_str().unwrap()]);
        assert!(
            r.status.success(),
            "{name}: {}",
            String::from_utf8_lossy(&r.stderr)
        );
    }
}

/// The T-handle mesh with every face's winding reversed, written into `dir`.
fn inward_mesh(dir: &Path) -> PathBuf {
    let text = std::fs::read_to_string(repo("scenes/meshes/t_handle.obj")).unwrap();
    let reversed: String = text
        .lines()
        .map(|l| match l.strip_prefix("f ") {
            Some(f) => format!(
                "f {}\n",
                f.split_whitespace().rev().collect::<Vec<_>>().join(" ")
            ),
            None => format!("{l}\n"),
        })
        .collect();
    let p = dir.join("inward.obj");
    std::fs::write(&p, reversed).unwrap();
    p
}

/// A scene of one T-handle mesh body (`file`, `scale`) in free flight for a frame.
fn mesh_body_scene(dir: &Path, name: &str, file: &str, scale: &str) -> PathBuf {
    let text = format!(
        "gravity = [0, 0, 0]\n[time]\nframes = 1\nsubsteps = 1\n[[body]]\nname = \"w\"\nshape = {{ type = \"mesh\", path = \"{file}\", scale = {scale} }}\nspacing = 0.01\n"
    );
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p
}

/// The mass and inertia diagonal `check` prints for the scene's body.
fn checked_body_line(scene: &Path) -> (String, String) {
    let r = sphrigid(&["check", scene.to_str().unwrap()]);
    assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
    let out = String::from_utf8_lossy(&r.stdout).to_string();
    let line = out
        .lines()
        .find(|l| l.trim_start().starts_with("body w"))
        .unwrap_or_else(|| panic!("no body line: {out}"))
        .to_string();
    (line, String::from_utf8_lossy(&r.stderr).to_string())
}

#[test]
fn an_inward_mesh_is_noted_by_check_run_and_inertia() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let mesh = inward_mesh(d);
    let note = "mesh ";
    let flipped = "inward.obj faces inward; it was flipped";
    let scene = mesh_body_scene(d, "inward.toml", "inward.obj", "1.0");
    let (_, err) = checked_body_line(&scene);
    assert!(
        err.contains("note: body[0] 'w': ") && err.contains(flipped),
        "check: {err}"
    );
    let out = d.join("out");
    let r = sphrigid(&[
        "run",
        scene.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--quiet",
    ]);
    let err = String::from_utf8_lossy(&r.stderr);
    assert!(r.status.success(), "{err}");
    assert!(
        err.contains("note: body[0] 'w': ") && err.contains(flipped),
        "run: {err}"
    );
    let r = sphrigid(&["inertia", mesh.to_str().unwrap()]);
    let err = String::from_utf8_lossy(&r.stderr);
    assert!(r.status.success(), "{err}");
    assert!(
        err.contains(note) && err.contains(flipped),
        "inertia: {err}"
    );
    // The shipped mesh, the right way out, gets no note.
    std::fs::copy(repo("scenes/meshes/t_handle.obj"), d.join("t.obj")).unwrap();
    let (_, err) = checked_body_line(&mesh_body_scene(d, "t.toml", "t.obj", "1.0"));
    assert!(!err.contains("note:"), "{err}");
}

#[test]
fn a_mirroring_scale_is_noted_and_keeps_the_mass_and_inertia() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::copy(repo("scenes/meshes/t_handle.obj"), d.join("t.obj")).unwrap();
    let (plain, err) = checked_body_line(&mesh_body_scene(d, "p.toml", "t.obj", "1.0"));
    assert!(!err.contains("mirrors"), "{err}");
    let (mirrored, err) = checked_body_line(&mesh_body_scene(d, "m.toml", "t.obj", "[-1, 1, 1]"));
    assert!(
        err.contains("note: body[0] 'w': scale [-1.0, 1.0, 1.0] mirrors the mesh"),
        "{err}"
    );
    assert!(!err.contains("faces inward"), "{err}");
    // The mass (density times the volume) and the inertia of the mirror image are the
    // original's: a mirror in x keeps the diagonal.
    assert_eq!(plain, mirrored);
    assert!(plain.contains("mass 0.576000 kg"), "{plain}");
    // A mirrored inward mesh gets both notes.
    inward_mesh(d);
    let (both, err) = checked_body_line(&mesh_body_scene(d, "b.toml", "inward.obj", "[1, -1, 1]"));
    assert!(
        err.contains("mirrors") && err.contains("faces inward"),
        "{err}"
    );
    assert_eq!(both, plain);
}

#[test]
fn mesh_bodies_overlapping_are_refused_and_touching_ones_pass() {
    // Two T-handles side by side: their cross bars (x from -0.12 to 0.12, non-convex solids)
    // overlap by 1 cm at 0.23 m apart and touch at 0.24 m.
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::copy(repo("scenes/meshes/t_handle.obj"), d.join("t.obj")).unwrap();
    let two = |dx: f64| {
        let body = |name: &str, x: f64| {
            format!(
                "[[body]]\nname = \"{name}\"\nshape = {{ type = \"mesh\", path = \"t.obj\" }}\nspacing = 0.005\nposition = [{x}, 0, 0]\n"
            )
        };
        format!("gravity = [0, 0, 0]\n{}{}", body("a", 0.0), body("b", dx))
    };
    check_fails(
        d,
        "meshes.toml",
        &two(0.23),
        &["body[1] 'b' overlaps body[0] 'a' by about 0.0100 m", "fix:"],
    );
    let path = d.join("touching.toml");
    std::fs::write(&path, two(0.24)).unwrap();
    let r = sphrigid(&["check", path.to_str().unwrap()]);
    assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
}
