//! A scene larger than one storage binding is split across two bindings of each per-particle
//! buffer. The testing knob SPHRIGID_GPU_MAX_BINDING caps the binding size so that a small dam
//! break is split as a large scene is on a real GPU: its frames are the unsplit run's bytes,
//! its memory and dispatches the same, and a scene that needs more than two parts is refused.
use crate::common::gpu as gpu_common;

use crate::common::gpu::DAM;

use std::path::Path;
use std::process::{Command, Output};

/// A binding of 1,024 `vec4`: the dam break's arrays go in two parts (1,024 + 176).
const TWO_PARTS: &str = "16384";

/// A binding of 512 `vec4`: three parts, more than the backend splits into.
const THREE_PARTS: &str = "8192";

/// The binary with the binding capped at `cap` bytes (`None`: the adapter's own limit).
fn sphrigid(cap: Option<&str>, args: &[&str]) -> Output {
    let mut c = Command::new(env!("CARGO_BIN_EXE_sphrigid"));
    c.args(args);
    match cap {
        Some(v) => c.env("SPHRIGID_GPU_MAX_BINDING", v),
        None => c.env_remove("SPHRIGID_GPU_MAX_BINDING"),
    };
    c.output().expect("the binary runs")
}

fn ok(r: &Output) -> String {
    assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
    String::from_utf8_lossy(&r.stdout).into_owned()
}

fn run(cap: Option<&str>, scene: &Path, out: &Path) -> Output {
    sphrigid(cap, &gpu_common::gpu_run_args(scene, out, "3"))
}

#[test]
fn a_dam_break_split_across_two_bindings_writes_the_unsplit_frames() {
    let _serial = gpu_common::serial();
    if gpu_common::context().is_none() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let scene = dir.path().join("dam.toml");
    std::fs::write(&scene, DAM).unwrap();
    let s = scene.to_str().unwrap();
    // `check` says how many parts.
    let parts = |cap| {
        let out = ok(&sphrigid(cap, &["check", s]));
        out.lines()
            .find(|l| l.trim_start().starts_with("GPU bindings"))
            .unwrap_or_else(|| panic!("no GPU bindings line in\n{out}"))
            .to_string()
    };
    assert!(
        parts(None).contains(" 1 part per particle array"),
        "{}",
        parts(None)
    );
    let split = parts(Some(TWO_PARTS));
    assert!(split.contains(" 2 parts per particle array"), "{split}");
    // The frames, byte for byte.
    let outs = ["whole", "split", "split_tiled"].map(|o| dir.path().join(o));
    ok(&run(None, &scene, &outs[0]));
    ok(&run(Some(TWO_PARTS), &scene, &outs[1]));
    // Split with the neighbour passes asked tiled (the default on a hardware GPU, not on
    // lavapipe). With walls, the tiled relaxation keeps a slot of the walls' partial sums per
    // segment (216 of 192 bytes here), more than this capped binding holds: the passes run
    // untiled (`wall_gather::WallPartials::tiles_fit`), still the same bytes. Tiled runs with
    // walls are held to the untiled ones uncapped (backend.rs, passes.rs).
    let mut tiled = Command::new(env!("CARGO_BIN_EXE_sphrigid"));
    tiled
        .args(gpu_common::gpu_run_args(&scene, &outs[2], "3"))
        .env("SPHRIGID_GPU_MAX_BINDING", TWO_PARTS)
        .env("SPHRIGID_GPU_TILES", "on");
    ok(&tiled.output().unwrap());
    for f in 0..=3 {
        let name = format!("fluid/fluid_{f:05}.ply");
        let a = std::fs::read(outs[0].join(&name)).unwrap();
        for out in &outs[1..] {
            let b = std::fs::read(out.join(&name)).unwrap();
            assert!(
                a == b,
                "{name} differs between the unsplit run and {}",
                out.display()
            );
        }
    }
    let f0 = std::fs::read(outs[1].join("fluid/fluid_00000.ply")).unwrap();
    let f3 = std::fs::read(outs[1].join("fluid/fluid_00003.ply")).unwrap();
    assert!(f0 != f3, "the split run did not move");
    // The same memory and the same dispatches per step.
    let bench = |cap| -> serde_json::Value {
        let out = ok(&sphrigid(
            cap,
            &["bench", s, "--backend", "gpu", "--steps", "3", "--json"],
        ));
        serde_json::from_str(&out).unwrap()
    };
    let (whole, split) = (bench(None), bench(Some(TWO_PARTS)));
    for key in [
        "gpu_bytes_per_particle",
        "gpu_dispatches_per_step",
        "particles",
    ] {
        let (a, b) = (&whole[key], &split[key]);
        assert!(a.as_f64().is_some_and(|v| v > 0.0), "{key}: {whole}");
        assert_eq!(a, b, "{key}: unsplit {whole}\nsplit {split}");
    }
}

#[test]
fn a_scene_needing_three_bindings_or_a_bad_cap_is_refused_clearly() {
    let _serial = gpu_common::serial();
    if gpu_common::context().is_none() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let scene = dir.path().join("dam.toml");
    std::fs::write(&scene, DAM).unwrap();
    let out = dir.path().join("out");
    let r = run(Some(THREE_PARTS), &scene, &out);
    let err = String::from_utf8_lossy(&r.stderr);
    assert_eq!(r.status.code(), Some(2), "{err}");
    assert!(
        err.contains("too large for the GPU")
            && err.contains("in 3 storage bindings of at most 8192 bytes")
            && err.contains("fix:"),
        "{err}"
    );
    assert!(!out.join("fluid/fluid_00000.ply").exists());
    let r = run(Some("lots"), &scene, &out);
    let err = String::from_utf8_lossy(&r.stderr);
    assert_eq!(r.status.code(), Some(2), "{err}");
    assert!(
        err.contains("SPHRIGID_GPU_MAX_BINDING: \"lots\" is not a byte count")
            && err.contains("fix:"),
        "{err}"
    );
    assert!(!err.contains("panicked"), "{err}");
}
