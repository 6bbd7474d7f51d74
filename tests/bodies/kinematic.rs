//! Kinematic bodies (`motion`): each follows its prescribed motion exactly (a linear motion
//! with a turn, a piston, a flap and keyframes from a file, checked at every frame of
//! `rigid_states.csv` against the motion written out here, on the CPU and the GPU backend);
//! a paddle moving at a set speed strikes a box with the speed contact with an infinitely
//! heavy body gives; a resumed run repeats the frames; bad motions exit 2 naming the key.
use crate::common::{gpu as gpu_common, sphrigid};
use glam::{DQuat, DVec3};
use std::f64::consts::PI;
use std::path::Path;

/// A small tank of liquid with four kinematic bodies moving through it and around it.
const SCENE: &str = r#"
[time]
fps = 30
frames = 12

[container]
min = [0, 0, 0]
max = [0.6, 0.4, 0.1]

[[liquid]]
min = [0, 0, 0]
max = [0.6, 0.08, 0.1]
spacing = 0.01

[[body]]
name = "gate"
shape = { type = "box", size = [0.01, 0.1, 0.1] }
position = [0.1, 0.05, 0.05]
dynamic = false
allow_overlap = true
motion = { type = "linear", velocity = [0, 0.4, 0], angular_velocity = [0, 0, 0.5], start = 0.05, stop = 0.3 }

[[body]]
name = "piston"
shape = { type = "box", size = [0.02, 0.1, 0.1] }
position = [0.03, 0.05, 0.05]
dynamic = false
allow_overlap = true
motion = { type = "oscillate", axis = [1, 0, 0], amplitude = 0.01, period = 0.25, phase = 30, ramp = 0.1 }

[[body]]
name = "flap"
shape = { type = "box", size = [0.01, 0.1, 0.1] }
position = [0.5, 0.05, 0.05]
dynamic = false
allow_overlap = true
motion = { type = "oscillate", axis = [0, 0, 1], amplitude = 12, period = 0.3, rotation = true, pivot = [0.5, 0.0, 0.05] }

[[body]]
name = "keyed"
shape = { type = "sphere", radius = 0.02 }
position = [0.3, 0.2, 0.05]
dynamic = false
motion = { type = "keyframes", file = "keyed.csv" }
"#;

/// The keyframes of body "keyed": a rise, a turn about y, a move along x.
const KEYS: &str = "t,x,y,z,qw,qx,qy,qz\n\
0,0.3,0.2,0.05,1,0,0,0\n\
0.1,0.3,0.25,0.05,1,0,0,0\n\
0.25,0.3,0.25,0.05,0.7071067811865476,0,0.7071067811865476,0\n\
0.4,0.4,0.22,0.05,0.7071067811865476,0,0.7071067811865476,0\n";

/// The centre of mass and orientation each motion gives at time `t`, written out again here
/// from the scene's numbers.
fn expected(body: &str, t: f64) -> (DVec3, DQuat) {
    match body {
        "gate" => {
            let tau = (t.min(0.3) - 0.05).max(0.0);
            (
                DVec3::new(0.1, 0.05 + 0.4 * tau, 0.05),
                DQuat::from_rotation_z(0.5 * tau),
            )
        }
        "piston" => {
            let r = |t: f64| {
                if t < 0.1 {
                    0.5 * (1.0 - (PI * t / 0.1).cos())
                } else {
                    1.0
                }
            };
            let phase = 30f64.to_radians();
            let s = 0.01 * (r(t) * (2.0 * PI * t / 0.25 + phase).sin() - r(0.0) * phase.sin());
            (DVec3::new(0.03 + s, 0.05, 0.05), DQuat::IDENTITY)
        }
        "flap" => {
            let a = 12f64.to_radians() * (2.0 * PI * t / 0.3).sin();
            let q = DQuat::from_rotation_z(a);
            let pivot = DVec3::new(0.5, 0.0, 0.05);
            (pivot + q * (DVec3::new(0.5, 0.05, 0.05) - pivot), q)
        }
        "keyed" => {
            let keys: [(f64, DVec3, DQuat); 4] = [
                (0.0, DVec3::new(0.3, 0.2, 0.05), DQuat::IDENTITY),
                (0.1, DVec3::new(0.3, 0.25, 0.05), DQuat::IDENTITY),
                (
                    0.25,
                    DVec3::new(0.3, 0.25, 0.05),
                    DQuat::from_rotation_y(PI / 2.0),
                ),
                (
                    0.4,
                    DVec3::new(0.4, 0.22, 0.05),
                    DQuat::from_rotation_y(PI / 2.0),
                ),
            ];
            if t >= 0.4 {
                return (keys[3].1, keys[3].2);
            }
            let k = keys.iter().rposition(|key| key.0 <= t).unwrap();
            let u = (t - keys[k].0) / (keys[k + 1].0 - keys[k].0);
            (
                keys[k].1.lerp(keys[k + 1].1, u),
                keys[k].2.slerp(keys[k + 1].2, u),
            )
        }
        other => panic!("no body {other}"),
    }
}

/// Every frame's row of every body in `rigid_states.csv`: (time, body, position, orientation).
fn states(out: &Path) -> Vec<(f64, String, DVec3, DQuat)> {
    let text = std::fs::read_to_string(out.join("rigid_states.csv")).unwrap();
    text.lines()
        .skip(1)
        .map(|l| {
            let f: Vec<&str> = l.split(',').collect();
            let n = |i: usize| f[i].parse::<f64>().unwrap();
            (
                n(1),
                f[2].to_string(),
                DVec3::new(n(3), n(4), n(5)),
                DQuat::from_xyzw(n(7), n(8), n(9), n(6)),
            )
        })
        .collect()
}

/// Run the scene in `dir` into `out` on `backend` for `frames` frames (`extra` arguments
/// after).
fn run(dir: &Path, out: &str, backend: &str, frames: &str, extra: &[&str]) {
    let scene = dir.join("kinematic.toml");
    let out = dir.join(out);
    let mut args = vec![
        "run",
        scene.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--backend",
        backend,
        "--frames",
        frames,
        "--quiet",
    ];
    args.extend(extra);
    let o = sphrigid(&args);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
}

fn write_scene(dir: &Path) {
    std::fs::write(dir.join("kinematic.toml"), SCENE).unwrap();
    std::fs::write(dir.join("keyed.csv"), KEYS).unwrap();
}

#[test]
fn kinematic_bodies_follow_their_motions_on_both_backends_and_resume_exactly() {
    let dir = tempfile::tempdir().unwrap();
    write_scene(dir.path());
    run(dir.path(), "cpu", "cpu", "12", &[]);
    let mut backends = vec!["cpu"];
    let has_gpu = {
        let _serial = gpu_common::serial();
        gpu_common::context().is_some()
    };
    if has_gpu {
        run(dir.path(), "gpu", "gpu", "12", &[]);
        backends.push("gpu");
    }
    for backend in backends {
        let rows = states(&dir.path().join(backend));
        assert_eq!(rows.len(), 13 * 4, "{backend}: a row per body and frame");
        let (mut dx, mut da) = (0.0f64, 0.0f64);
        for (t, body, x, q) in &rows {
            let (ex, eq) = expected(body, *t);
            dx = dx.max((*x - ex).length());
            da = da.max(q.angle_between(eq));
        }
        eprintln!("{backend}: poses within {dx:.2e} m and {da:.2e} rad of the motions");
        assert!(
            dx < 1e-9,
            "{backend}: a position is {dx:.2e} m off its motion"
        );
        assert!(
            da < 1e-9,
            "{backend}: an orientation is {da:.2e} rad off its motion"
        );
    }
    // Stopped at frame 5 and resumed to 12: the same frames and states, byte for byte.
    run(dir.path(), "parts", "cpu", "5", &[]);
    run(dir.path(), "parts", "cpu", "12", &["--resume"]);
    let (whole, parts) = (dir.path().join("cpu"), dir.path().join("parts"));
    for file in [
        "rigid_states.csv".to_string(),
        "fluid/fluid_00012.ply".to_string(),
        "rigid/flap_00012.ply".to_string(),
    ] {
        assert_eq!(
            std::fs::read(whole.join(&file)).unwrap(),
            std::fs::read(parts.join(&file)).unwrap(),
            "{file} differs after the resume"
        );
    }
}

/// A paddle of infinite mass moving at `V` along x strikes a resting box on a frictionless
/// floor, both of restitution `e`: the box leaves at `(1 + e) V`.
#[test]
fn a_paddle_at_a_set_speed_strikes_a_box_with_the_speed_an_infinite_mass_gives() {
    const V: f64 = 0.5;
    for e in [0.0, 0.5] {
        let dir = tempfile::tempdir().unwrap();
        let scene = format!(
            r#"
            [time]
            fps = 100
            frames = 20
            [container]
            min = [0, 0, 0]
            max = [1, 0.3, 0.2]
            friction = 0
            [[body]]
            name = "paddle"
            shape = {{ type = "box", size = [0.02, 0.1, 0.1] }}
            position = [0.1, 0.06, 0.1]
            dynamic = false
            restitution = {e}
            friction = 0
            motion = {{ type = "linear", velocity = [{V}, 0, 0] }}
            [[body]]
            name = "box"
            shape = {{ type = "box", size = [0.05, 0.05, 0.05] }}
            position = [0.2, 0.025, 0.1]
            density = 500
            spacing = 0.005
            restitution = {e}
            friction = 0
            "#
        );
        let path = dir.path().join("paddle.toml");
        std::fs::write(&path, scene).unwrap();
        let out = dir.path().join("out");
        let o = sphrigid(&[
            "run",
            path.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
            "--quiet",
        ]);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let text = std::fs::read_to_string(out.join("rigid_states.csv")).unwrap();
        // The box's speed along x at the last frame (the paddle reaches it at 0.13 s).
        let vx: f64 = text
            .lines()
            .rfind(|l| l.split(',').nth(2) == Some("box"))
            .and_then(|l| l.split(',').nth(10)?.parse().ok())
            .unwrap();
        eprintln!(
            "e = {e}: the box leaves at {vx:.4} m/s, (1 + e) V = {:.4}",
            (1.0 + e) * V
        );
        assert!(
            (vx - (1.0 + e) * V).abs() < 0.02 * (1.0 + e) * V,
            "e = {e}: the box leaves at {vx} m/s, not (1 + e) V = {}",
            (1.0 + e) * V
        );
    }
}

#[test]
fn bad_motions_exit_2_naming_the_key_and_the_fix() {
    let dir = tempfile::tempdir().unwrap();
    let cases = [
        (
            "motion = { type = \"oscillate\", axis = [1, 0, 0], amplitude = 0.01 }",
            "",
            "period",
        ),
        (
            "motion = { type = \"keyframes\", file = \"keys.csv\" }",
            "0,0,0,0,1,0,0,0\n0.5,0,0,0,1,0,0,0\n0.2,0,0,0,1,0,0,0\n",
            "keys.csv:3",
        ),
        (
            "motion = { type = \"linear\", velocity = [0, 1, 0], start = 1, stop = 0.5 }",
            "",
            "body[0].motion.stop",
        ),
    ];
    for (motion, keys, named) in cases {
        let scene = format!(
            "[container]\nmin = [0, 0, 0]\nmax = [1, 1, 1]\n[[body]]\nname = \"b\"\n\
             shape = {{ type = \"sphere\", radius = 0.1 }}\nposition = [0.5, 0.5, 0.5]\n\
             dynamic = false\n{motion}\n"
        );
        let path = dir.path().join("bad.toml");
        std::fs::write(&path, scene).unwrap();
        std::fs::write(dir.path().join("keys.csv"), keys).unwrap();
        let o = sphrigid(&[
            "run",
            path.to_str().unwrap(),
            "--out",
            dir.path().join("out").to_str().unwrap(),
        ]);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{motion}: {err}");
        assert!(
            err.contains(named) && err.contains("fix"),
            "{motion}: {err}"
        );
        assert!(!err.contains("panicked"), "{err}");
    }
    // A dynamic body given a motion is told to be kinematic.
    let scene = "[[body]]\nname = \"b\"\nshape = { type = \"sphere\", radius = 0.1 }\n\
                 motion = { type = \"linear\", velocity = [1, 0, 0] }\n";
    let path = dir.path().join("dynamic.toml");
    std::fs::write(&path, scene).unwrap();
    let o = sphrigid(&["check", path.to_str().unwrap()]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(
        err.contains("body[0].motion") && err.contains("dynamic = false"),
        "{err}"
    );
}
