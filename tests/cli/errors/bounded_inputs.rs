//! Nothing unbounded (issue 57): every input file goes through one bounded reader (devices,
//! FIFOs and huge files refused before they are read), a long `--set` is refused, and step
//! counts a scene derives are held to the limit of typed ones, each with exit 2 within seconds,
//! naming the file or the key, and nothing written.
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

fn scene(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("scenes")
        .join(name)
}

/// Run sphrigid with `args`; fail the test (killing the child) if it takes more than `secs`.
fn within(secs: f64, args: &[&str]) -> (Option<i32>, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_sphrigid"))
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let t0 = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if t0.elapsed().as_secs_f64() > secs {
            let _ = child.kill();
            let _ = child.wait();
            panic!("sphrigid {} ran past {secs} s", args[..2].join(" "));
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let out: Output = child.wait_with_output().unwrap();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// `args` must stop with exit 2 within a few seconds, its one line holding every `names`.
fn refused(args: &[&str], names: &[&str]) {
    let (code, err) = within(10.0, args);
    assert_eq!(code, Some(2), "{args:?}: {err}");
    for n in names {
        assert!(err.contains(n), "{args:?}: no {n:?} in: {err}");
    }
    assert!(err.contains("fix:"), "{args:?}: {err}");
    assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
}

#[test]
fn devices_are_refused_before_they_are_read() {
    for args in [
        &["check", "/dev/zero"][..],
        &["run", "/dev/zero"],
        &["lcp", "solve", "/dev/zero"],
    ] {
        refused(
            args,
            &["/dev/zero: is not a regular file (a character device)"],
        );
    }
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("s");
    refused(
        &[
            "sweep",
            "/dev/zero",
            "--vary",
            "time.fps=30,60",
            "--out",
            out.to_str().unwrap(),
        ],
        &["/dev/zero: is not a regular file", "a scene file"],
    );
    assert!(!out.exists(), "the sweep wrote its directory");
    // A directory given as a scene.
    refused(
        &["check", dir.path().to_str().unwrap()],
        &["is not a regular file (a directory)"],
    );
}

#[test]
fn a_fifo_is_refused_without_waiting_for_a_writer() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("scene.toml");
    let made = Command::new("mkfifo").arg(&fifo).status().unwrap();
    assert!(made.success());
    let f = fifo.to_str().unwrap();
    refused(&["check", f], &[f, "(a FIFO)", "a scene file"]);
    refused(
        &["lcp", "solve", f],
        &[f, "(a FIFO)", "an LCP problem file"],
    );
}

#[test]
fn huge_files_are_refused_by_their_size_without_reading_them() {
    let dir = tempfile::tempdir().unwrap();
    // Sparse files: their size costs no disk, and reading them whole would take gigabytes.
    let sparse = |name: &str, len: u64| {
        let p = dir.path().join(name);
        std::fs::File::create(&p).unwrap().set_len(len).unwrap();
        p
    };
    let big = sparse("big.toml", 1 << 30);
    let b = big.to_str().unwrap();
    refused(
        &["check", b],
        &[b, "is 1.0 GiB; a scene file may be at most 16.0 MiB"],
    );
    let out = dir.path().join("out");
    refused(
        &["run", b, "--out", out.to_str().unwrap()],
        &["a scene file may be at most"],
    );
    assert!(!out.exists(), "the run wrote its directory");
    let lcp = sparse("big.json", 2 << 30);
    refused(
        &["lcp", "solve", lcp.to_str().unwrap()],
        &["is 2.0 GiB; an LCP problem file may be at most 1.0 GiB"],
    );
    // A mesh a scene names goes through the same reader.
    sparse("big.obj", 1 << 30);
    let with_mesh = dir.path().join("mesh.toml");
    std::fs::write(
        &with_mesh,
        "[[body]]\nname = \"m\"\nshape = { type = \"mesh\", path = \"big.obj\" }\n",
    )
    .unwrap();
    refused(
        &["check", with_mesh.to_str().unwrap()],
        &["big.obj: is 1.0 GiB; a mesh file may be at most 512.0 MiB"],
    );
}

#[test]
fn a_long_set_is_refused() {
    let long = format!("--set=time.fps={}", "1".repeat(100_000));
    let s = scene("dam_break.toml");
    refused(
        &["check", s.to_str().unwrap(), &long],
        &["--set time.fps=...: is 97.7 KiB; a --set argument may be at most 64.0 KiB"],
    );
}

#[test]
fn gravity_past_its_bound_is_refused_at_once_by_check_and_run() {
    let dir = tempfile::tempdir().unwrap();
    let s = scene("dam_break.toml");
    for g in ["-1e12", "-1e20", "-1e30"] {
        let set = format!("gravity=[0, {g}, 0]");
        refused(
            &["check", s.to_str().unwrap(), "--set", &set],
            &["gravity:", "stronger than"],
        );
        let out = dir.path().join(g);
        refused(
            &[
                "run",
                s.to_str().unwrap(),
                "--set",
                &set,
                "--out",
                out.to_str().unwrap(),
            ],
            &["gravity:", "stronger than"],
        );
        assert!(!out.exists(), "{g}: the run wrote its directory");
    }
}

#[test]
fn derived_step_counts_past_the_limit_are_refused_naming_the_key() {
    let dir = tempfile::tempdir().unwrap();
    let s = scene("dam_break.toml");
    let s = s.to_str().unwrap();
    let cases: [(&[&str], &str); 4] = [
        // The stiffest liquid: 4e5 steps a frame at 30 fps.
        (&["liquid.0.stiffness=1e10"], "liquid[0].stiffness:"),
        // A frame a thousand seconds long.
        (&["time.fps=0.001"], "time.fps:"),
        // A tiny block at a spacing of 1 um.
        (
            &[
                "liquid.0.spacing=1e-6",
                "liquid.0.max=[0.00001, 0.00001, 0.00001]",
            ],
            "liquid[0].spacing:",
        ),
        // Settling of a soft liquid in short steps.
        (
            &["time.substeps=100000", "liquid.0.stiffness=1"],
            "solver.settle:",
        ),
    ];
    for (i, (sets, key)) in cases.iter().enumerate() {
        let mut args = vec!["check", s];
        for set in *sets {
            args.extend(["--set", set]);
        }
        refused(&args, &[key, "more than the 100000"]);
        let out = dir.path().join(format!("run{i}"));
        args[0] = "run";
        args.extend(["--out", out.to_str().unwrap()]);
        refused(&args, &[key]);
        assert!(!out.exists(), "{sets:?}: the run wrote its directory");
    }
    // A shipped scene passes.
    let (code, err) = within(30.0, &["check", s]);
    assert_eq!(code, Some(0), "{err}");
}
