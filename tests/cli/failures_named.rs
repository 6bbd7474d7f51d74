//! Every failure named (issue 21): runaway bodies stop the run with exit 1 and no NaN in a
//! file; absurd sizes are refused with exit 2 before anything large is allocated; malformed
//! scenes are refused; a closed or full stdout is no panic; adapter probing is quiet; the
//! memory estimate of `check` matches the peak memory of a run.
use crate::common;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;

fn scene(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("scenes")
        .join(name)
}

fn text(r: &std::process::Output) -> (String, String) {
    (
        String::from_utf8_lossy(&r.stdout).into_owned(),
        String::from_utf8_lossy(&r.stderr).into_owned(),
    )
}

/// A run that must stop with exit 1 naming `must_name`, keep its manifest (`complete:
/// false`, with the reason under `failed`) and frames, and write no NaN anywhere.
fn run_stops(scene_name: &str, sets: &[&str], frames: &str, must_name: &[&str]) {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let sc = scene(scene_name);
    let mut args = vec![
        "run",
        sc.to_str().unwrap(),
        "--frames",
        frames,
        "--backend",
        "cpu",
        "--quiet",
        "--out",
        out.to_str().unwrap(),
    ];
    for s in sets {
        args.extend(["--set", s]);
    }
    let r = common::sphrigid(&args);
    let (_, err) = text(&r);
    assert_eq!(r.status.code(), Some(1), "{sets:?}: {err}");
    assert!(!err.contains("panicked"), "{err}");
    for w in must_name.iter().chain(&["stopped at step", "are intact"]) {
        assert!(err.contains(w), "the message should name {w:?}: {err}");
    }
    let m = common::read_manifest(&out);
    assert_eq!(m["complete"], false);
    // The manifest keeps the reason, naming the same things as the message.
    let failed = m["failed"]
        .as_str()
        .expect("the manifest says why the run failed");
    for w in must_name {
        assert!(
            failed.contains(w),
            "the manifest should name {w:?}: {failed}"
        );
    }
    assert!(!m["frames"].as_array().unwrap().is_empty());
    if let Some(bad) = common::scan::non_finite_under(&out) {
        panic!("{sets:?} wrote a non-finite number: {bad}");
    }
}

#[test]
fn a_body_that_goes_nan_stops_the_run_and_names_it() {
    run_stops(
        "wrench_in_space.toml",
        &[
            "body.0.angular_velocity=[1e5,3e5,0]",
            "body.0.integrator=\"rk4\"",
        ],
        "3",
        &["body 'wrench'", "orientation", "not finite"],
    );
}

#[test]
fn a_penalty_blow_up_stops_the_run_and_names_the_body() {
    run_stops(
        "toppling_block.toml",
        &[
            "coupling.method=\"penalty\"",
            "coupling.penalty_stiffness=1e6",
            "liquid.0.spacing=0.02",
        ],
        "8",
        &["body 'block'"],
    );
}

#[test]
fn the_state_guard_passes_a_healthy_run() {
    let dir = tempfile::tempdir().unwrap();
    let r = common::small_run("hinged_gate.toml", &[], dir.path());
    let (_, err) = text(&r);
    assert!(err.contains("done:"), "{err}");
    assert_eq!(common::read_manifest(dir.path())["complete"], true);
}

/// `check` of a shipped scene with `sets` must end with exit 2, one line naming every word of
/// `must_name` and a fix, within 10 s.
fn refused(scene_name: &str, sets: &[&str], extra: &[&str], must_name: &[&str]) {
    let sc = scene(scene_name);
    let mut args = vec!["check", sc.to_str().unwrap()];
    for s in sets {
        args.extend(["--set", s]);
    }
    args.extend(extra);
    let t0 = Instant::now();
    let r = common::sphrigid(&args);
    let took = t0.elapsed().as_secs_f64();
    let (_, err) = text(&r);
    assert_eq!(r.status.code(), Some(2), "{sets:?}: {err}");
    assert!(took < 10.0, "{sets:?} took {took:.1} s");
    assert_eq!(err.trim().lines().count(), 1, "one line: {err}");
    for w in must_name.iter().chain(&["fix:"]) {
        assert!(
            err.contains(w),
            "{sets:?}: the message should name {w:?}: {err}"
        );
    }
}

#[test]
fn absurd_sizes_are_refused_before_allocating() {
    refused(
        "dam_break.toml",
        &["liquid.0.spacing=1e-4"],
        &[],
        &["particles", "liquid[0].spacing"],
    );
    refused(
        "toppling_block.toml",
        &["liquid.0.kernel_radius=1000"],
        &[],
        &["kernel_radius", "1000"],
    );
    refused(
        "dam_break.toml",
        &["time.dt=1e-12"],
        &[],
        &["time.dt", "1e-12"],
    );
    refused(
        "dam_break.toml",
        &["solver.relaxation_passes=1000000"],
        &[],
        &["relaxation_passes"],
    );
    refused(
        "dam_break.toml",
        &["time.substeps=4000000000"],
        &[],
        &["time.substeps"],
    );
    refused(
        "dam_break.toml",
        &["liquid.0.stiffness=1e30"],
        &[],
        &["liquid[0].stiffness", "1e30"],
    );
}

#[test]
fn out_of_range_values_are_refused() {
    refused(
        "toppling_block.toml",
        &["body.0.position=[9,9,9]"],
        &[],
        &["body[0].position", "[9, 9, 9]", "container"],
    );
    refused(
        "dam_break.toml",
        &["time.fps=1e-300"],
        &[],
        &["time.fps", "1e-300"],
    );
    refused(
        "toppling_block.toml",
        &["body.0.density=1e-300"],
        &[],
        &["body[0].density", "1e-300"],
    );
    refused(
        "wrench_in_space.toml",
        &["body.0.angular_velocity=[1e200,1e200,0]"],
        &[],
        &["body[0].angular_velocity"],
    );
}

#[test]
fn the_memory_guard_names_the_count_the_need_and_the_limit() {
    refused(
        "dam_break.toml",
        &[],
        &["--max-memory", "5M"],
        &["12000 particles", "MiB", "--max-memory (5.0 MiB)"],
    );
    let sc = scene("dam_break.toml");
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let r = common::sphrigid(&[
        "run",
        sc.to_str().unwrap(),
        "--backend",
        "cpu",
        "--max-memory",
        "5M",
        "--out",
        out.to_str().unwrap(),
    ]);
    let (_, err) = text(&r);
    assert_eq!(r.status.code(), Some(2), "{err}");
    assert!(err.contains("12000 particles"), "{err}");
    assert!(!out.exists(), "nothing is written before the guard");
}

fn check_text(name: &str, body: &str, must_name: &[&str]) {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join(name);
    std::fs::write(&file, body).unwrap();
    let r = common::sphrigid(&["check", file.to_str().unwrap()]);
    let (_, err) = text(&r);
    assert_eq!(r.status.code(), Some(2), "{body}: {err}");
    assert_eq!(err.trim().lines().count(), 1, "one line: {err}");
    for w in must_name.iter().chain(&[name, "fix:"]) {
        assert!(err.contains(w), "the message should name {w:?}: {err}");
    }
}

#[test]
fn malformed_scenes_are_refused() {
    let dam = std::fs::read_to_string(scene("dam_break.toml")).unwrap();
    let four = dam.replacen("gravity = [0, -9.81, 0]", "gravity = [0, -9.81, 0, 5]", 1);
    assert_ne!(four, dam);
    check_text(
        "g.toml",
        &four,
        &["gravity", "[0, -9.81, 0, 5]", "exactly 3"],
    );
    let tb = std::fs::read_to_string(scene("toppling_block.toml")).unwrap();
    let line = tb
        .lines()
        .find(|l| l.starts_with("position"))
        .expect("the block has a position");
    let pos = tb.replacen(line, "position = [0.3, 0.05, 0.05, 4]", 1);
    check_text("p.toml", &pos, &["body[0].position", "exactly 3"]);
    check_text("e.toml", "", &["nothing to simulate"]);
    check_text("c.toml", "# only a comment\n", &["nothing to simulate"]);
}

#[test]
fn a_closed_stdout_is_no_panic() {
    let sc = scene("chain.toml");
    let mut child = Command::new(env!("CARGO_BIN_EXE_sphrigid"))
        .args(["check", sc.to_str().unwrap()])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    let r = child.wait_with_output().unwrap();
    let (_, err) = text(&r);
    assert_eq!(r.status.code(), Some(0), "{err}");
    assert!(!err.contains("panicked"), "{err}");
    let full = std::fs::OpenOptions::new().write(true).open("/dev/full");
    if let Ok(full) = full {
        let r = Command::new(env!("CARGO_BIN_EXE_sphrigid"))
            .args(["check", sc.to_str().unwrap()])
            .stdout(full)
            .output()
            .unwrap();
        let (_, err) = text(&r);
        assert_eq!(r.status.code(), Some(2), "{err}");
        assert!(
            err.contains("standard output") && err.contains("fix:"),
            "{err}"
        );
        assert!(!err.contains("panicked"), "{err}");
    }
}

#[test]
fn adapter_probing_is_quiet() {
    let sc = scene("dam_break.toml");
    for backend in ["cpu", "auto"] {
        let dir = tempfile::tempdir().unwrap();
        let r = Command::new(env!("CARGO_BIN_EXE_sphrigid"))
            .args([
                "run",
                sc.to_str().unwrap(),
                "--frames",
                "1",
                "--set",
                "liquid.0.spacing=0.02",
                "--backend",
                backend,
                "--out",
                dir.path().to_str().unwrap(),
            ])
            .env_remove("XDG_RUNTIME_DIR")
            .output()
            .unwrap();
        let (_, err) = text(&r);
        assert!(r.status.success(), "{err}");
        assert!(
            !err.contains("XDG_RUNTIME_DIR"),
            "--backend {backend}: {err}"
        );
        // Only sphrigid's own lines: the backend, the progress log, the summary.
        for line in err.lines() {
            assert!(
                line.contains("backend:")
                    || line.starts_with("frame ")
                    || line.starts_with("done:"),
                "--backend {backend}: a line not from sphrigid: {line}"
            );
        }
    }
}

/// The number before `unit` after `label` in `text`, e.g. `12.0` of `memory estimate 12.0
/// MiB`.
fn number_after(text: &str, label: &str) -> f64 {
    let rest = &text[text
        .find(label)
        .unwrap_or_else(|| panic!("{label} in {text}"))
        + label.len()..];
    rest.split_whitespace()
        .next()
        .unwrap()
        .trim_end_matches(',')
        .parse()
        .unwrap_or_else(|e| panic!("{label} in {text}: {e}"))
}

#[test]
fn the_memory_estimate_is_within_20_percent_of_the_peak() {
    // 96,000 and 276,165 particles, so that the program's own few MiB (more threads on a
    // bigger machine) weigh little; 1000 fps makes the first frame a few steps, and the liquid
    // does not settle first (hundreds of steps that allocate nothing more).
    let sc = scene("dam_break.toml");
    for spacing in ["0.005", "0.0035"] {
        let set = format!("liquid.0.spacing={spacing}");
        let fps = "time.fps=1000";
        let r = common::sphrigid(&["check", sc.to_str().unwrap(), "--set", &set, "--set", fps]);
        let (out, err) = text(&r);
        assert!(r.status.success(), "{err}");
        let estimate = number_after(&out, "memory estimate");
        let dir = tempfile::tempdir().unwrap();
        let r = common::sphrigid(&[
            "run",
            sc.to_str().unwrap(),
            "--set",
            &set,
            "--set",
            fps,
            "--set",
            "solver.settle=false",
            "--frames",
            "1",
            "--backend",
            "cpu",
            "--quiet",
            "--out",
            dir.path().to_str().unwrap(),
        ]);
        let (_, err) = text(&r);
        assert!(r.status.success(), "{err}");
        let peak = number_after(&err, "peak memory");
        assert!(
            (estimate / peak - 1.0).abs() < 0.2,
            "spacing {spacing}: estimate {estimate} MiB, peak {peak} MiB"
        );
    }
}

#[test]
fn a_set_value_is_blamed_on_the_set_and_shown_as_typed() {
    let sc = scene("dam_break.toml");
    for (set, must) in [
        ("time.fps=nan", "NaN"),
        ("time.fps=1e400", "inf"),
        ("liquid.3.spacing=1", "index 3"),
    ] {
        let r = common::sphrigid(&["check", sc.to_str().unwrap(), "--set", set]);
        let (_, err) = text(&r);
        assert_eq!(r.status.code(), Some(2), "{set}: {err}");
        assert!(err.contains(set) && err.contains(must), "{set}: {err}");
        assert!(err.contains("fix:"), "{set}: {err}");
        assert!(
            !err.contains("dam_break.toml:"),
            "{set}: blamed on a line: {err}"
        );
    }
}

#[test]
fn unreadable_inputs_are_named_without_reading_them_whole() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    // A scene that is not UTF-8 text.
    std::fs::write(d.join("bin.toml"), b"gravity = [0, -9.81, 0]\n# \xff\xfe\n").unwrap();
    let r = common::sphrigid(&["check", d.join("bin.toml").to_str().unwrap()]);
    let (_, err) = text(&r);
    assert_eq!(r.status.code(), Some(2), "{err}");
    assert!(
        err.contains("UTF-8") && !err.contains("check the path"),
        "{err}"
    );
    // A mesh that is a device, read until memory runs out before.
    std::os::unix::fs::symlink("/dev/zero", d.join("zero.obj")).unwrap();
    std::fs::write(
        d.join("z.toml"),
        "[[body]]\nname = \"z\"\nshape = { type = \"mesh\", path = \"zero.obj\" }\n",
    )
    .unwrap();
    let t0 = Instant::now();
    let r = common::sphrigid(&["check", d.join("z.toml").to_str().unwrap()]);
    let (_, err) = text(&r);
    assert_eq!(r.status.code(), Some(2), "{err}");
    assert!(
        err.contains("not a regular file") && err.contains("fix:"),
        "{err}"
    );
    assert!(t0.elapsed().as_secs_f64() < 10.0);
}

#[test]
fn huge_frame_lists_and_dense_problems_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("run");
    common::small_run("dam_break.toml", &["time.frames=2"], &out);
    let r = common::sphrigid(&[
        "figure",
        out.to_str().unwrap(),
        "--frames",
        "0:1000000000:1",
        "-o",
        dir.path().join("fig").to_str().unwrap(),
    ]);
    let (_, err) = text(&r);
    assert_eq!(r.status.code(), Some(2), "{err}");
    assert!(
        err.contains("no frame 1000000000") && err.contains("fix:"),
        "{err}"
    );
    // 300,000 contacts: a dense matrix of 670 GiB, refused before it is made.
    let sample = dir.path().join("big.json");
    let r = common::sphrigid(&[
        "lcp",
        "sample",
        sample.to_str().unwrap(),
        "--contacts",
        "300000",
    ]);
    assert!(r.status.success(), "{}", text(&r).1);
    let r = common::sphrigid(&[
        "lcp",
        "solve",
        sample.to_str().unwrap(),
        "--method",
        "dantzig",
    ]);
    let (_, err) = text(&r);
    assert_eq!(r.status.code(), Some(2), "{err}");
    assert!(err.contains("GiB") && err.contains("block_pivot"), "{err}");
}

/// The scan that checks a run's files finds a NaN token in a text file and none in a binary
/// file whose bytes spell one by chance (the checkpoint is binary: "nAN" between two
/// non-letters once failed a run that had no NaN).
#[test]
fn the_scan_reads_text_files_for_nan_tokens_and_leaves_binary_files_alone() {
    let dir = tempfile::tempdir().unwrap();
    let csv = dir.path().join("rigid_states.csv");
    std::fs::write(&csv, "frame,x\n0,0.5\n1,NaN\n").unwrap();
    let found = common::scan::first_non_finite(&csv).expect("the CSV's NaN is found");
    assert!(found.ends_with("token NaN"), "{found}");
    std::fs::write(&csv, "frame,x\n0,0.5\n1,-inf\n").unwrap();
    assert!(
        common::scan::first_non_finite(&csv).is_some(),
        "the CSV's -inf"
    );
    std::fs::write(&csv, "frame,x\n0,0.5\n1,0.25\n").unwrap();
    assert_eq!(common::scan::first_non_finite(&csv), None);
    let bin = dir.path().join("checkpoint.bin");
    std::fs::write(&bin, [0x01, 0x00, 0x20, b'n', b'A', b'N', 0x07, 0x00]).unwrap();
    assert_eq!(common::scan::first_non_finite(&bin), None);
    assert_eq!(common::scan::non_finite_under(dir.path()), None);
}
