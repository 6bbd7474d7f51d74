//! Bad input gets one clear error naming the file, the key and the line, exit status 2 and no
//! panic; frames already written stay intact.
mod bounded_inputs;
mod sources;
use crate::common;
use std::path::Path;

const GOOD: &str = "[time]\nfps = 50\nframes = 1\n\n[container]\nmin = [0, 0, 0]\nmax = [0.1, 0.1, 0.1]\n\n[[liquid]]\nmin = [0, 0, 0]\nmax = [0.04, 0.04, 0.04]\nspacing = 0.01\n";

fn check_bad(dir: &Path, text: &str, must_name: &[&str]) {
    let scene = dir.join("bad.toml");
    std::fs::write(&scene, text).unwrap();
    let r = common::sphrigid(&["check", scene.to_str().unwrap()]);
    let err = String::from_utf8_lossy(&r.stderr);
    assert_eq!(
        r.status.code(),
        Some(2),
        "exit status for:\n{text}\nstderr: {err}"
    );
    assert!(!err.contains("panicked"), "{err}");
    assert_eq!(err.trim().lines().count(), 1, "one line: {err}");
    for word in must_name.iter().chain(&["bad.toml", "fix:"]) {
        assert!(
            err.contains(word),
            "the message should name {word:?}: {err}"
        );
    }
}

#[test]
fn an_unknown_key_is_named_with_its_line() {
    let dir = tempfile::tempdir().unwrap();
    check_bad(
        dir.path(),
        &GOOD.replace("spacing = 0.01", "spacing = 0.01\nviscocity = 1"),
        &["viscocity", "bad.toml:13"],
    );
}

#[test]
fn a_wrong_type_is_named_with_its_line() {
    let dir = tempfile::tempdir().unwrap();
    check_bad(
        dir.path(),
        &GOOD.replace("fps = 50", "fps = \"fast\""),
        &["bad.toml:2", "string"],
    );
}

#[test]
fn a_negative_spacing_is_named_with_its_line() {
    let dir = tempfile::tempdir().unwrap();
    check_bad(
        dir.path(),
        &GOOD.replace("spacing = 0.01", "spacing = -0.01"),
        &["liquid[0].spacing", "bad.toml:12"],
    );
}

#[test]
fn a_nan_density_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    check_bad(
        dir.path(),
        &GOOD.replace("spacing = 0.01", "spacing = 0.01\ndensity = nan"),
        &["liquid[0].density", "bad.toml:13"],
    );
}

#[test]
fn a_negative_viscous_friction_is_named_with_its_line() {
    let dir = tempfile::tempdir().unwrap();
    check_bad(
        dir.path(),
        &GOOD.replace(
            "max = [0.1, 0.1, 0.1]",
            "max = [0.1, 0.1, 0.1]\nviscous_friction = -0.02",
        ),
        &["container.viscous_friction", "bad.toml:8", "-0.02"],
    );
}

#[test]
fn a_liquid_restitution_outside_0_1_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    check_bad(
        dir.path(),
        &format!("{GOOD}\n[coupling]\nliquid_restitution = 1.5\n"),
        &["coupling.liquid_restitution", "bad.toml:15", "1.5"],
    );
}

#[test]
fn a_block_outside_the_container_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    check_bad(
        dir.path(),
        &GOOD.replace("max = [0.04, 0.04, 0.04]", "max = [0.04, 0.2, 0.04]"),
        &["liquid[0]", "container", "bad.toml:10"],
    );
}

/// GOOD with its block a sphere of liquid given by `shape`, `extra` lines after it.
fn shaped(shape: &str, extra: &str) -> String {
    GOOD.replace(
        "min = [0, 0, 0]\nmax = [0.04, 0.04, 0.04]\n",
        &format!("shape = {shape}\nposition = [0.05, 0.05, 0.05]\n{extra}"),
    )
}

#[test]
fn a_block_with_both_a_box_and_a_shape_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    check_bad(
        dir.path(),
        &shaped(
            "{ type = \"sphere\", radius = 0.02 }",
            "min = [0, 0, 0]\nmax = [0.04, 0.04, 0.04]\n",
        ),
        &["liquid[0].shape", "bad.toml:10", "not both"],
    );
}

#[test]
fn a_liquid_shape_from_an_open_mesh_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    // A tetrahedron with one face missing.
    std::fs::write(
        dir.path().join("open.obj"),
        "v 0 0 0\nv 0.02 0 0\nv 0 0.02 0\nv 0 0 0.02\nf 1 3 2\nf 1 2 4\nf 1 4 3\n",
    )
    .unwrap();
    check_bad(
        dir.path(),
        &shaped("{ type = \"mesh\", path = \"open.obj\" }", ""),
        &[
            "liquid[0].shape.path",
            "open.obj",
            "not closed",
            "bad.toml:10",
        ],
    );
}

#[test]
fn a_liquid_shape_outside_the_container_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    check_bad(
        dir.path(),
        &shaped("{ type = \"sphere\", radius = 0.06 }", ""),
        &["liquid[0].position", "container", "bad.toml:11"],
    );
}

#[test]
fn thousands_of_unclosed_inline_tables_are_refused_not_a_stack_overflow() {
    // 20,000 bodies whose `shape = {` is never closed (2.4 MB): the TOML parser's error
    // recovery nested one call per open table and overflowed the stack of a release build;
    // the first unclosed table is named instead.
    let dir = tempfile::tempdir().unwrap();
    let body = "[[body]]\nshape = { type = \"box\", size = [0.01, 0.01, 0.01]\nposition = [0.05, 0.05, 0.05]\n\n";
    check_bad(
        dir.path(),
        &format!("{GOOD}\n{}", body.repeat(20_000)),
        &["bad.toml:15:9", "inline table is not closed", "`}`"],
    );
}

#[test]
fn a_missing_scene_file_exits_2() {
    let r = common::sphrigid(&["run", "no/such/scene.toml"]);
    let err = String::from_utf8_lossy(&r.stderr);
    assert_eq!(r.status.code(), Some(2));
    assert!(
        err.contains("no/such/scene.toml") && err.contains("fix:") && !err.contains("panicked"),
        "{err}"
    );
}

#[test]
fn an_unwritable_output_directory_exits_2() {
    let dir = tempfile::tempdir().unwrap();
    let scene = dir.path().join("s.toml");
    std::fs::write(&scene, GOOD).unwrap();
    // A regular file where the output directory should go cannot be made a directory, even by root.
    let blocker = dir.path().join("file");
    std::fs::write(&blocker, "x").unwrap();
    let out = blocker.join("out");
    let r = common::sphrigid(&[
        "run",
        scene.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--quiet",
    ]);
    let err = String::from_utf8_lossy(&r.stderr);
    assert_eq!(r.status.code(), Some(2), "{err}");
    assert!(
        err.contains("cannot create output directory")
            && err.contains("--out")
            && !err.contains("panicked"),
        "{err}"
    );
}

#[test]
fn a_bad_set_override_exits_2() {
    let dir = tempfile::tempdir().unwrap();
    let scene = dir.path().join("s.toml");
    std::fs::write(&scene, GOOD).unwrap();
    for set in [
        "liquid.3.spacing=0.1",
        "time.fpz=3",
        "liquid.0.spacing=-1",
        "nokeyvalue",
    ] {
        let r = common::sphrigid(&["check", scene.to_str().unwrap(), "--set", set]);
        let err = String::from_utf8_lossy(&r.stderr);
        assert_eq!(r.status.code(), Some(2), "--set {set}: {err}");
        assert!(
            !err.contains("panicked") && err.contains("fix") || err.contains("--set"),
            "--set {set}: {err}"
        );
    }
}

#[test]
fn a_run_that_blows_up_keeps_its_frames() {
    // A step far too large for the stiffness and no walls to hold the liquid: it explodes, and
    // the run stops with the frames so far intact (not settled first: that would explode
    // before time 0).
    let dir = tempfile::tempdir().unwrap();
    let scene = dir.path().join("s.toml");
    let text = GOOD
        .replace(
            "frames = 1",
            "frames = 400\nsubsteps = 1\n\n[solver]\nsettle = false",
        )
        .replace(
            "spacing = 0.01",
            "spacing = 0.01\nstiffness = 1e9\nnear_stiffness = 1e9",
        );
    let text = text.replace("[container]\nmin = [0, 0, 0]\nmax = [0.1, 0.1, 0.1]\n", "");
    std::fs::write(&scene, text).unwrap();
    let out = dir.path().join("out");
    let r = common::sphrigid(&[
        "run",
        scene.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--quiet",
    ]);
    let err = String::from_utf8_lossy(&r.stderr);
    assert_eq!(r.status.code(), Some(1), "{err}");
    assert!(
        err.contains("stopped at step") && !err.contains("panicked"),
        "{err}"
    );
    let m: serde_json::Value = common::read_manifest(&out);
    assert_eq!(m["complete"], false);
    for f in m["frames"].as_array().unwrap() {
        common::read_fluid_ply(&out.join(f["fluid"].as_str().unwrap()));
    }
}

#[test]
fn a_scene_step_past_the_cfl_bound_warns_and_strict_cfl_refuses_it() {
    let dir = tempfile::tempdir().unwrap();
    let scene = dir.path().join("fast.toml");
    let text = GOOD
        .replace("frames = 1\n", "frames = 1\nsubsteps = 1\n")
        .replace(
            "spacing = 0.01\n",
            "spacing = 0.01\nstiffness = 1e5\nvelocity = [0, -50, 0]\n",
        );
    std::fs::write(&scene, text).unwrap();
    let out = dir.path().join("out");
    let run = |strict: bool| {
        let mut args = vec![
            "run",
            scene.to_str().unwrap(),
            "--backend",
            "cpu",
            "--quiet",
            "--out",
            out.to_str().unwrap(),
        ];
        if strict {
            args.push("--strict-cfl");
        }
        common::sphrigid(&args)
    };
    let r = run(true);
    let err = String::from_utf8_lossy(&r.stderr);
    assert_eq!(r.status.code(), Some(2), "{err}");
    assert!(
        err.contains("fast.toml:4: time.substeps:")
            && err.contains("CFL number")
            && err.contains("fix: use time.substeps = "),
        "{err}"
    );
    assert!(!out.exists(), "a refused run writes nothing");
    // The stable substeps it names are what the scene gets without its own step.
    let stable: u32 = err
        .split("fix: use time.substeps = ")
        .nth(1)
        .and_then(|s| s.split_whitespace().next())
        .and_then(|n| n.parse().ok())
        .expect("the fix names a number");
    let auto = dir.path().join("auto.toml");
    std::fs::write(
        &auto,
        std::fs::read_to_string(&scene)
            .unwrap()
            .replace("substeps = 1\n", ""),
    )
    .unwrap();
    let c = common::sphrigid(&["check", auto.to_str().unwrap()]);
    let summary = String::from_utf8_lossy(&c.stdout);
    assert!(
        summary.contains(&format!(", {stable} per frame")),
        "{summary}"
    );
    let r = run(false);
    let err = String::from_utf8_lossy(&r.stderr);
    assert!(r.status.success(), "{err}");
    assert!(
        err.contains("warning:") && err.contains("CFL number"),
        "{err}"
    );
}

#[test]
fn a_place_past_a_thousand_km_is_refused() {
    // 1e300 is finite, but the frames' f32 coordinates would hold it as infinity.
    let dir = tempfile::tempdir().unwrap();
    check_bad(
        dir.path(),
        &GOOD.replace("max = [0.1, 0.1, 0.1]", "max = [0.1, 0.1, 1e300]"),
        &["container.max", "thousand km", "bad.toml:7"],
    );
}
