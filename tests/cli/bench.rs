//! `sphrigid bench` and `check` on scenes with bodies and at chosen sizes: the coupling's
//! phases beside the liquid's, the measured memory per particle, and clear errors for bad
//! sizes.
use crate::common;

use std::path::Path;

fn floating_box() -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("scenes/floating_box.toml")
        .display()
        .to_string()
}

#[test]
fn bench_from_a_frame_reports_the_coupling_phases_and_their_total() {
    let scene = floating_box();
    let r = common::sphrigid(&[
        "bench",
        &scene,
        "--from-frame",
        "1",
        "--steps",
        "3",
        "--json",
    ]);
    assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
    let v: serde_json::Value = serde_json::from_slice(&r.stdout).unwrap();
    assert_eq!(v["bodies"], 1, "{v}");
    assert_eq!(v["from_frame"], 1, "{v}");
    let ms = |k: &str| {
        v["phase_ms"][k]
            .as_f64()
            .unwrap_or_else(|| panic!("no phase_ms.{k} in {v}"))
    };
    // The box floats in the liquid: it has contacts, boundary sums and frames to write.
    for k in ["contacts", "boundary", "assemble", "rigid_output", "output"] {
        assert!(ms(k) > 0.0, "{k}: {v}");
    }
    for k in ["lcp", "correction", "joints", "bodies"] {
        assert!(ms(k) >= 0.0, "{k}: {v}");
    }
    let parts: f64 = [
        "boundary",
        "contacts",
        "assemble",
        "lcp",
        "correction",
        "joints",
        "bodies",
    ]
    .iter()
    .map(|k| ms(k))
    .sum();
    assert!(
        (ms("coupling") - parts).abs() <= 1e-9 * parts,
        "coupling {} vs its phases {parts}",
        ms("coupling")
    );
    let liquid: f64 = [
        "grid",
        "integrate",
        "viscosity",
        "density",
        "relaxation",
        "collisions",
    ]
    .iter()
    .map(|k| ms(k))
    .sum();
    let liquid_ms = v["liquid_ms"].as_f64().unwrap();
    assert!((liquid_ms - liquid).abs() <= 1e-9 * liquid, "{v}");
    let ratio = v["coupling_over_liquid"].as_f64().unwrap();
    assert!(
        (ratio - ms("coupling") / liquid).abs() <= 1e-9 * ratio,
        "{v}"
    );
    // The phases are parts of the step: together no more than the timed wall clock.
    assert!(liquid + ms("coupling") <= v["ms_per_step"].as_f64().unwrap() * 1.01);
    if Path::new("/proc/self/status").exists() {
        // Particles, neighbour lists, grid and scratch: hundreds of bytes each.
        let b = v["cpu_bytes_per_particle"].as_f64().unwrap();
        assert!((100.0..100_000.0).contains(&b), "{b} B per particle");
    }
}

#[test]
fn bench_runs_the_particle_counts_asked_for() {
    let dir = tempfile::tempdir().unwrap();
    let scene = dir.path().join("column.toml");
    std::fs::write(
        &scene,
        "[time]\nfps = 30\nframes = 1\n[container]\nmin = [0, 0, 0]\nmax = [0.3, 0.3, 0.1]\n\
         [[liquid]]\nmin = [0, 0, 0]\nmax = [0.1, 0.1, 0.1]\nspacing = 0.01\n",
    )
    .unwrap();
    let r = common::sphrigid(&[
        "bench",
        scene.to_str().unwrap(),
        "--particles",
        "3000,8000",
        "--steps",
        "1",
        "--json",
    ]);
    assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
    let v: serde_json::Value = serde_json::from_slice(&r.stdout).unwrap();
    let results = v["results"].as_array().unwrap();
    assert_eq!(results.len(), 2, "{v}");
    for (r, want) in results.iter().zip([3000.0, 8000.0]) {
        let n = r["particles"].as_f64().unwrap();
        // A cubic lattice rounds each side to whole spacings.
        assert!(
            (0.75..1.33).contains(&(n / want)),
            "{n} particles for {want}"
        );
        assert_eq!(r["bodies"], 0);
    }
}

#[test]
fn bad_sizes_are_one_clear_error() {
    let scene = floating_box();
    for (args, want) in [
        (
            &["--particles", "1000,lots"][..],
            "'lots' is not a positive whole number",
        ),
        (
            &["--particles", "0"][..],
            "'0' is not a positive whole number",
        ),
        (
            &["--particles", "1000", "--sizes"][..],
            "--sizes and --particles",
        ),
    ] {
        let mut all = vec!["bench", scene.as_str()];
        all.extend_from_slice(args);
        let r = common::sphrigid(&all);
        let err = String::from_utf8_lossy(&r.stderr);
        assert_eq!(r.status.code(), Some(2), "{args:?}: {err}");
        assert!(
            err.contains(want) && err.contains("fix:"),
            "{args:?}: {err}"
        );
        assert!(!err.contains("panicked"), "{err}");
    }
}

#[test]
fn check_reports_the_measured_memory_per_particle() {
    let scene = floating_box();
    let r = common::sphrigid(&["check", &scene]);
    assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
    let out = String::from_utf8_lossy(&r.stdout);
    let line = out
        .lines()
        .find(|l| l.trim_start().starts_with("memory measured"))
        .unwrap_or_else(|| panic!("no memory line in\n{out}"));
    if !Path::new("/proc/self/status").exists() {
        assert!(line.contains("none per particle"), "{line}");
        return;
    }
    let bytes: f64 = line
        .split("CPU: ")
        .nth(1)
        .and_then(|s| s.split(' ').next())
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| panic!("no bytes per particle in {line}"));
    assert!((100.0..100_000.0).contains(&bytes), "{line}");
}

#[test]
fn check_reports_the_gpu_memory_a_scene_needs() {
    let scene = floating_box();
    let r = common::sphrigid(&["check", &scene]);
    assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
    let out = String::from_utf8_lossy(&r.stdout);
    let field = |key: &str| -> f64 {
        let line = out
            .lines()
            .find(|l| l.trim_start().starts_with(key))
            .unwrap_or_else(|| panic!("no {key} line in\n{out}"));
        line.trim_start()[key.len()..]
            .split_whitespace()
            .next()
            .and_then(|s| s.parse().ok())
            .unwrap_or_else(|| panic!("no figure in {line}"))
    };
    let (mib, n) = (field("GPU memory"), field("particles"));
    let line = out.lines().find(|l| l.contains("GPU memory")).unwrap();
    let per_particle: f64 = line
        .split('(')
        .nth(1)
        .and_then(|s| s.split(' ').next())
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| panic!("no bytes per particle in {line}"));
    // 80 B of particle arrays and about 8 B of grid cells per particle: at most 96 B.
    assert!((80.0..=96.0).contains(&per_particle), "{line}");
    // The total is the same count (to the MiB figure's rounding).
    let total = per_particle * n / (1 << 20) as f64;
    assert!((total - mib).abs() <= 0.051, "{total} MiB vs {line}");
}
