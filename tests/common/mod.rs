//! Helpers shared by the integration tests: scenes from text, running the binary.
#![allow(dead_code)]
pub mod gpu;
mod library;
pub mod scan;

#[allow(unused_imports)]
pub use library::{Rng, scene};

use sphrigid::scene;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// Run the `sphrigid` binary with the given arguments.
pub fn sphrigid(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_sphrigid"))
        .args(args)
        .output()
        .expect("the binary runs")
}

/// Read a fluid PLY written by sphrigid with an independent reader (ply-rs-bw): per vertex
/// `[x, y, z, vx, vy, vz, density]` and id.
pub fn read_fluid_ply(path: &Path) -> Vec<([f32; 7], i32)> {
    use ply_rs_bw::parser::Parser;
    use ply_rs_bw::ply::{DefaultElement, Property};
    let mut f = std::fs::File::open(path).expect("the frame exists");
    let ply = Parser::<DefaultElement>::new()
        .read_ply(&mut f)
        .expect("the frame parses as PLY");
    let names = ["x", "y", "z", "vx", "vy", "vz", "density"];
    ply.payload["vertex"]
        .iter()
        .map(|v| {
            let mut vals = [0f32; 7];
            for (k, n) in names.iter().enumerate() {
                vals[k] = match v[*n] {
                    Property::Float(x) => x,
                    ref other => panic!("{n} is {other:?}, not a float"),
                };
            }
            let id = match v["id"] {
                Property::Int(i) => i,
                ref other => panic!("id is {other:?}, not an int"),
            };
            (vals, id)
        })
        .collect()
}

/// The manifest of a run directory, parsed.
pub fn read_manifest(out: &Path) -> serde_json::Value {
    let bytes = std::fs::read(out.join("manifest.json")).expect("the run wrote a manifest");
    serde_json::from_slice(&bytes).expect("the manifest is JSON")
}

/// Set up a scene file of `scenes/` with `--set` overrides on the CPU backend and run it frame
/// by frame, calling `each(sim, frame)` after every frame (frame 1 first). At every frame no
/// liquid particle may lie inside a body deeper than 0.1 spacing: the leak check that every
/// test scene passes.
pub fn run_scene_without_leaks(
    name: &str,
    sets: &[String],
    frames: u32,
    mut each: impl FnMut(&sphrigid::sim::Simulation, u32),
) -> sphrigid::sim::Simulation {
    use sphrigid::sim::LeakCheck;
    let file = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("scenes")
        .join(name);
    let loaded = scene::load(&file, sets).expect("the scene loads");
    let mut sim = sphrigid::sim::Simulation::setup(&loaded, sphrigid::backend::Backend::Cpu)
        .expect("it sets up");
    let check = LeakCheck::new(&sim.bodies);
    let spacing = sim.liquid.params().spacing as f64;
    for frame in 1..=frames {
        sim.advance_frame().expect("the frame runs");
        if let Some(leak) = check.deepest(sim.particles(), &sim.bodies) {
            assert!(
                leak.depth <= 0.1 * spacing,
                "{name} {sets:?}, frame {frame}: liquid particle {} lies {:.3} spacings inside body {}",
                leak.id,
                leak.depth / spacing,
                leak.body
            );
        }
        each(&sim, frame);
    }
    sim
}

/// The Python that has `modules` (e.g. `["meshio", "pxr"]`): `SPHRIGID_PYTHON`, else the
/// venv `scripts/test.sh` makes (`target/pyenv`). Where neither imports them, `None` after printing
/// why, or a panic in CI (`CI` or `SPHRIGID_REQUIRE_PYTHON` set), where the test must run.
pub fn python_with(modules: &[&str]) -> Option<std::path::PathBuf> {
    let python = std::env::var_os("SPHRIGID_PYTHON")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("target/pyenv/bin/python"));
    let imports = format!("import {}", modules.join(", "));
    let ok = Command::new(&python)
        .args(["-c", &imports])
        .output()
        .is_ok_and(|o| o.status.success());
    if ok {
        return Some(python);
    }
    let why = format!(
        "{} cannot `{imports}`; run `bash scripts/test.sh` once (it makes target/pyenv) or set SPHRIGID_PYTHON to a python with them",
        python.display()
    );
    if std::env::var_os("CI").is_some() || std::env::var_os("SPHRIGID_REQUIRE_PYTHON").is_some() {
        panic!("{why}");
    }
    eprintln!("skipped: {why}");
    None
}

/// Run `python script args...`, failing the test with its output unless it exits 0; returns
/// its stdout.
pub fn run_python(python: &Path, script: &Path, args: &[&str]) -> String {
    let out = Command::new(python)
        .arg(script)
        .args(args)
        .output()
        .expect("python starts");
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "{} {args:?} failed:\n{stdout}\n{}",
        script.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    stdout
}

/// Run the shipped scene `scenes/<scene>` for 6 frames on a coarse lattice (liquid spacing
/// 0.02 m), with `sets` as further `--set`s, into `out`; the run must succeed.
pub fn small_run(scene: &str, sets: &[&str], out: &Path) -> Output {
    let scene = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("scenes")
        .join(scene);
    let mut args = vec![
        "run",
        scene.to_str().unwrap(),
        "--frames",
        "6",
        "--set",
        "liquid.0.spacing=0.02",
        "--out",
        out.to_str().unwrap(),
    ];
    for s in sets {
        args.extend(["--set", s]);
    }
    let r = sphrigid(&args);
    assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
    r
}

/// Run the scene file `scene` for `frames` frames into `out`, quietly (with `--resume` when
/// `resume`); the run must succeed.
pub fn run_frames(scene: &Path, out: &Path, frames: &str, resume: bool) {
    let mut args = vec![
        "run",
        scene.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--frames",
        frames,
        "--quiet",
    ];
    if resume {
        args.push("--resume");
    }
    let o = sphrigid(&args);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
}

/// The `.json` files in `dir` (relative to the crate root), sorted by name.
pub fn json_files(dir: &str) -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join(dir);
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.expect("a folder entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    files.sort();
    files
}
