//! `sphrigid sweep` and `collect` end to end on a tiny scene (a 75-particle block of liquid
//! and a box, 3 frames): the 4 runs of a 2 x 2 sweep run through GNU parallel and through the
//! Slurm script give the same bytes; `collect`'s CSV agrees with each run's own files; bad
//! `--vary` values exit 2 with one line naming the file, the key and the fix.
//!
//! GNU parallel (Debian's `parallel`) is installed by `scripts/test.sh`; there
//! (`SPHRIGID_REQUIRE_PARALLEL` or `CI` set) a missing `parallel` fails the test, elsewhere the
//! test skips, saying why.
use crate::common;
use glam::{DQuat, DVec3};
use sphrigid::backend::Backend;
use sphrigid::scene;
use sphrigid::sim::LeakCheck;
use sphrigid::sim::Simulation;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

const SCENE: &str = r#"
[time]
fps = 30
frames = 10

[container]
min = [0, 0, 0]
max = [0.3, 0.2, 0.06]

[[liquid]]
min = [0, 0, 0]
max = [0.1, 0.1, 0.06]
spacing = 0.02

[[body]]
name = "box"
shape = { type = "box", size = [0.04, 0.08, 0.04] }
position = [0.16, 0.04, 0.03]
density = 500
"#;

/// The sweep's `--vary` arguments: 2 x 2 runs.
const VARY: [&str; 4] = [
    "--vary",
    "liquid.0.viscosity.sigma=0,5",
    "--vary",
    "body.0.density=300,2000",
];

/// The run names the sweep gives, in the order of jobs.txt.
const NAMES: [&str; 4] = [
    "sigma-0_density-300",
    "sigma-0_density-2000",
    "sigma-5_density-300",
    "sigma-5_density-2000",
];

/// Write the scene into `dir` and return its path.
fn scene_file(dir: &Path) -> PathBuf {
    let p = dir.join("tiny.toml");
    std::fs::write(&p, SCENE).unwrap();
    p
}

/// `sphrigid sweep` of the tiny scene into `out`, with `extra` arguments; asserts success.
fn sweep(scene: &Path, out: &Path, extra: &[&str]) {
    let mut args = vec!["sweep", scene.to_str().unwrap()];
    args.extend(VARY);
    args.extend([
        "--frames",
        "3",
        "--backend",
        "cpu",
        "--out",
        out.to_str().unwrap(),
    ]);
    args.extend(extra);
    let o = common::sphrigid(&args);
    assert!(
        o.status.success(),
        "sweep failed: {}",
        String::from_utf8_lossy(&o.stderr)
    );
}

/// PATH with the directory of the built `sphrigid` first, so that jobs.txt's `sphrigid` is it.
fn path_with_sphrigid() -> String {
    let bin = Path::new(env!("CARGO_BIN_EXE_sphrigid")).parent().unwrap();
    format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    )
}

/// Every file under `dir` (relative path to bytes), except each run's records: the manifest
/// and the checkpoint (they record the wall-clock time) and the lock (the process id).
fn files(dir: &Path, rel: &str, out: &mut BTreeMap<String, Vec<u8>>) {
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        let name = p.file_name().unwrap().to_string_lossy().into_owned();
        let r = format!("{rel}/{name}");
        if p.is_dir() {
            files(&p, &r, out);
        } else if !["manifest.json", "checkpoint.bin", ".sphrigid.lock"].contains(&name.as_str()) {
            out.insert(r, std::fs::read(&p).unwrap());
        }
    }
}

/// Is GNU parallel here? In CI it must be.
fn have_parallel() -> bool {
    let ok = Command::new("parallel")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success() && o.stdout.starts_with(b"GNU parallel"));
    if !ok {
        let required = ["SPHRIGID_REQUIRE_PARALLEL", "CI"]
            .iter()
            .any(|v| std::env::var_os(v).is_some_and(|x| !x.is_empty() && x != "0"));
        assert!(
            !required,
            "GNU parallel is not installed, and CI needs it: `apt-get install parallel` (`bash scripts/test.sh` does)"
        );
        eprintln!("skipped: GNU parallel is not installed (`bash scripts/test.sh` installs it)");
    }
    ok
}

#[test]
fn gnu_parallel_and_the_slurm_array_write_the_same_runs() {
    if !have_parallel() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let scene = scene_file(tmp.path());
    let (a, b) = (tmp.path().join("a"), tmp.path().join("b"));
    sweep(&scene, &a, &[]);
    sweep(&scene, &b, &[]);
    let jobs = std::fs::read_to_string(a.join("jobs.txt")).unwrap();
    assert_eq!(jobs.lines().count(), 4, "{jobs}");
    assert_eq!(jobs, std::fs::read_to_string(b.join("jobs.txt")).unwrap());
    let slurm = std::fs::read_to_string(b.join("sweep.slurm")).unwrap();
    assert!(slurm.contains("#SBATCH --array=0-3\n"), "{slurm}");

    // GNU parallel, as the README says: cd DIR && parallel -j 2 < jobs.txt.
    let jobs_in = std::fs::File::open(a.join("jobs.txt")).unwrap();
    let o = Command::new("parallel")
        .args(["--will-cite", "-j", "2"])
        .stdin(jobs_in)
        .current_dir(&a)
        .env("PATH", path_with_sphrigid())
        .output()
        .unwrap();
    assert!(
        o.status.success(),
        "parallel: {}",
        String::from_utf8_lossy(&o.stderr)
    );

    // The Slurm array: each task runs the script with the variables Slurm sets, from the
    // submit directory (sbatch is not needed to run it).
    for task in 0..4 {
        let o = Command::new("bash")
            .arg("sweep.slurm")
            .current_dir(&b)
            .env("PATH", path_with_sphrigid())
            .env("SLURM_ARRAY_TASK_ID", task.to_string())
            .env("SLURM_ARRAY_TASK_COUNT", "4")
            .env("SLURM_ARRAY_TASK_MIN", "0")
            .env("SLURM_ARRAY_TASK_MAX", "3")
            .env("SLURM_ARRAY_JOB_ID", "4242")
            .env("SLURM_JOB_ID", (4243 + task).to_string())
            .env("SLURM_SUBMIT_DIR", &b)
            .output()
            .unwrap();
        assert!(
            o.status.success(),
            "task {task}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
    }
    // Task 4 of a 4-run array does not exist: the script says so and fails.
    let o = Command::new("bash")
        .arg("sweep.slurm")
        .current_dir(&b)
        .env("SLURM_ARRAY_TASK_ID", "4")
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("jobs.txt has no line 5"));

    let (mut fa, mut fb) = (BTreeMap::new(), BTreeMap::new());
    files(&a.join("runs"), "runs", &mut fa);
    files(&b.join("runs"), "runs", &mut fb);
    for name in NAMES {
        for f in [
            "fluid/fluid_00003.ply",
            "rigid/box_00003.ply",
            "rigid_states.csv",
            "run_metrics.csv",
        ] {
            assert!(
                fa.contains_key(&format!("runs/{name}/{f}")),
                "{name}/{f} missing"
            );
        }
        let m = common::read_manifest(&a.join("runs").join(name));
        assert_eq!(m["complete"], true, "{name}");
    }
    // Per run: 4 fluid and 4 rigid frames, rigid_states.csv and run_metrics.csv, and the
    // liquid's loads, body_loads.csv and wall_loads.csv.
    assert_eq!(fa.len(), 4 * (4 + 4 + 2 + 2), "{:?}", fa.keys());
    assert_eq!(fa.keys().collect::<Vec<_>>(), fb.keys().collect::<Vec<_>>());
    for (k, v) in &fa {
        assert!(fb[k] == *v, "{k} differs between parallel and Slurm");
    }
    // The values reached the runs: every run's last frame differs from every other's.
    let last = |n: &str| &fa[&format!("runs/{n}/fluid/fluid_00003.ply")];
    for (i, a) in NAMES.iter().enumerate() {
        for b in &NAMES[..i] {
            assert!(last(a) != last(b), "{a} = {b}");
        }
    }
    // And a plain `sphrigid run` of one combination writes the same frames.
    let single = tmp.path().join("single");
    let o = common::sphrigid(&[
        "run",
        scene.to_str().unwrap(),
        "--set",
        "liquid.0.viscosity.sigma=5",
        "--set",
        "body.0.density=300",
        "--frames",
        "3",
        "--backend",
        "cpu",
        "--quiet",
        "--out",
        single.to_str().unwrap(),
    ]);
    assert!(o.status.success());
    let mut fs = BTreeMap::new();
    files(&single, "runs/sigma-5_density-300", &mut fs);
    for (k, v) in &fs {
        assert!(fa[k] == *v, "{k} differs from the single run");
    }
}

/// Parse a simple CSV line (no quoted fields in these files).
fn fields(line: &str) -> Vec<&str> {
    line.split(',').collect()
}

#[test]
fn collect_writes_one_row_per_run_from_the_runs_own_files() {
    let tmp = tempfile::tempdir().unwrap();
    let scene = scene_file(tmp.path());
    let dir = tmp.path().join("s");
    sweep(&scene, &dir, &["--jobs", "2"]);
    for name in NAMES {
        assert!(
            dir.join("logs").join(format!("{name}.log")).is_file(),
            "{name} has no log"
        );
    }
    // One run goes missing, one is cut short (its manifest says so, as a killed run's does).
    std::fs::remove_dir_all(dir.join("runs").join(NAMES[3])).unwrap();
    let cut = dir.join("runs").join(NAMES[2]).join("manifest.json");
    let text = std::fs::read_to_string(&cut).unwrap();
    std::fs::write(
        &cut,
        text.replace("\"complete\": true", "\"complete\": false"),
    )
    .unwrap();

    let before_csv = std::fs::read(dir.join("sweep.csv")).ok();
    let o = common::sphrigid(&["collect", dir.to_str().unwrap()]);
    let err = String::from_utf8_lossy(&o.stderr);
    // A missing run fails the command (exit 1), after the table of the others is written.
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(
        err.contains("1 of 4 runs are missing or unreadable") && err.contains("fix:"),
        "{err}"
    );
    assert_ne!(before_csv, std::fs::read(dir.join("sweep.csv")).ok());
    assert!(err.contains("4 runs, 2 complete"), "{err}");
    assert!(
        err.contains(&format!("{}: missing", NAMES[3])),
        "the missing run is listed: {err}"
    );
    assert!(
        err.contains(&format!("{}: incomplete", NAMES[2])),
        "the incomplete run is listed: {err}"
    );

    let csv = std::fs::read_to_string(dir.join("sweep.csv")).unwrap();
    let mut lines = csv.lines();
    let header = fields(lines.next().unwrap());
    assert_eq!(
        header,
        [
            "name",
            "liquid.0.viscosity.sigma",
            "body.0.density",
            "complete",
            "frames",
            "wall_seconds",
            "steps",
            "deepest_leak_spacings",
            "largest_energy_rise",
            "lcp_fallbacks",
            "lcp_unsolved",
            "final_tilt_deg.box",
        ]
    );
    let rows: Vec<Vec<&str>> = lines.map(fields).collect();
    assert_eq!(rows.len(), 4);
    let col = |r: &Vec<&str>, c: &str| -> String {
        r[header.iter().position(|h| *h == c).unwrap()].to_string()
    };
    let num = |r: &Vec<&str>, c: &str| -> f64 { col(r, c).parse().unwrap() };
    let values = [("0", "300"), ("0", "2000"), ("5", "300"), ("5", "2000")];
    for (i, r) in rows.iter().enumerate() {
        assert_eq!(col(r, "name"), NAMES[i]);
        assert_eq!(col(r, "liquid.0.viscosity.sigma"), values[i].0);
        assert_eq!(col(r, "body.0.density"), values[i].1);
    }
    let missing = &rows[3];
    assert_eq!(col(missing, "complete"), "missing");
    assert!(missing[4..].iter().all(|f| f.is_empty()), "{missing:?}");
    assert_eq!(col(&rows[2], "complete"), "false");

    // Every other value against the run's own files, read here without sphrigid's readers.
    for (i, r) in rows.iter().enumerate().take(3) {
        let run = dir.join("runs").join(NAMES[i]);
        let m = common::read_manifest(&run);
        if i < 2 {
            assert_eq!(col(r, "complete"), "true");
        }
        assert_eq!(num(r, "frames"), 3.0);
        assert_eq!(m["frames"].as_array().unwrap().len(), 4);
        let substeps = m["substeps"].as_u64().unwrap();
        assert_eq!(num(r, "steps"), (3 * substeps) as f64);
        assert_eq!(m["steps"].as_u64().unwrap(), 3 * substeps);
        let wall = m["wall_seconds"].as_f64().unwrap();
        assert!(wall > 0.0 && (num(r, "wall_seconds") - wall).abs() <= 5e-4);
        assert_eq!(num(r, "lcp_fallbacks"), 0.0);
        assert_eq!(num(r, "lcp_unsolved"), 0.0);

        let spacing = 2.0 * m["particle_radius"].as_f64().unwrap();
        let metrics = std::fs::read_to_string(run.join("run_metrics.csv")).unwrap();
        let mrows: Vec<Vec<&str>> = metrics.lines().skip(1).map(fields).collect();
        assert_eq!(mrows.len(), 4);
        let energy: Vec<f64> = mrows.iter().map(|f| f[4].parse().unwrap()).collect();
        let rise = energy
            .iter()
            .map(|e| (e - energy[0]) / energy[0].abs())
            .fold(0.0, f64::max);
        assert_eq!(num(r, "largest_energy_rise"), rise);
        let deepest = mrows
            .iter()
            .map(|f| f[5].parse::<f64>().unwrap())
            .fold(0.0, f64::max);
        assert_eq!(num(r, "deepest_leak_spacings"), deepest / spacing);

        let states = std::fs::read_to_string(run.join("rigid_states.csv")).unwrap();
        let last = fields(states.lines().last().unwrap());
        assert_eq!((last[0], last[2]), ("3", "box"));
        let q: Vec<f64> = last[6..10].iter().map(|v| v.parse().unwrap()).collect();
        let up = DQuat::from_xyzw(q[1], q[2], q[3], q[0]).normalize() * DVec3::Y;
        let tilt = up.x.hypot(up.z).atan2(up.y).to_degrees();
        assert!(
            (num(r, "final_tilt_deg.box") - tilt).abs() < 1e-9,
            "{} vs {tilt}",
            col(r, "final_tilt_deg.box")
        );
    }
}

#[test]
fn run_metrics_hold_the_energy_and_leak_check_of_every_frame() {
    // The figures run_metrics.csv records are the simulation's own energy and leak check at
    // each written frame, to the last bit.
    let tmp = tempfile::tempdir().unwrap();
    let scene = scene_file(tmp.path());
    let out = tmp.path().join("run");
    let o = common::sphrigid(&[
        "run",
        scene.to_str().unwrap(),
        "--frames",
        "3",
        "--backend",
        "cpu",
        "--quiet",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let text = std::fs::read_to_string(out.join("run_metrics.csv")).unwrap();
    let mut lines = text.lines();
    assert_eq!(
        lines.next(),
        Some(
            "frame,time,kinetic,potential,energy,leak_depth,leak_body,leak_particle,lcp_unsolved,lcp_residual,particles,emitted,removed,liquid_mass"
        )
    );
    let loaded = scene::load(&scene, &[]).unwrap();
    let mut sim = Simulation::setup(&loaded, Backend::Cpu).unwrap();
    sim.liquid.update_densities().unwrap();
    let check = LeakCheck::new(&sim.bodies);
    for frame in 0..=3u32 {
        if frame > 0 {
            sim.advance_frame().unwrap();
        }
        let f = fields(lines.next().unwrap());
        assert_eq!(f[0], frame.to_string());
        let e = sim.energy();
        assert_eq!(f[2].parse::<f64>().unwrap(), e.kinetic, "frame {frame}");
        assert_eq!(f[3].parse::<f64>().unwrap(), e.potential, "frame {frame}");
        assert_eq!(f[4].parse::<f64>().unwrap(), e.kinetic + e.potential);
        let leak = check.deepest(sim.particles(), &sim.bodies);
        assert_eq!(f[5].parse::<f64>().unwrap(), leak.map_or(0.0, |l| l.depth));
        assert_eq!(f[6], leak.map_or("", |_| "box"));
        assert_eq!(f[7], leak.map_or(String::new(), |l| l.id.to_string()));
        // No emitter or outlet: every particle of time 0, none added or removed.
        assert_eq!(f[10], sim.particles().len().to_string());
        assert_eq!((f[11], f[12]), ("0", "0"));
        assert_eq!(f[13].parse::<f64>().unwrap(), sim.liquid_mass());
    }
    assert!(lines.next().is_none());
}

/// `sphrigid sweep` with `vary`; asserts exit status 2, one line naming the file, `key` and
/// the fix, and that nothing was written.
fn bad_vary(vary: &str, key: &str) {
    let tmp = tempfile::tempdir().unwrap();
    let scene = scene_file(tmp.path());
    let out = tmp.path().join("s");
    let o = common::sphrigid(&[
        "sweep",
        scene.to_str().unwrap(),
        "--vary",
        "time.frames=1,2",
        "--vary",
        vary,
        "--out",
        out.to_str().unwrap(),
    ]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "--vary {vary}: {err}");
    assert!(!err.contains("panicked"), "{err}");
    assert_eq!(err.trim().lines().count(), 1, "one line: {err}");
    for word in ["tiny.toml", key, "fix:"] {
        assert!(
            err.contains(word),
            "--vary {vary}: should name {word:?}: {err}"
        );
    }
    assert!(!out.exists(), "--vary {vary}: nothing may be written");
}

#[test]
fn a_bad_vary_exits_2_naming_the_file_the_key_and_the_fix() {
    // An unknown key.
    bad_vary("liquid.0.viscocity=1,2", "viscocity");
    // A wrong type: a density is a number.
    bad_vary("body.0.density=300,heavy", "body.0.density=heavy");
    // An empty list, and an empty entry.
    bad_vary("body.0.density=", "body.0.density");
    bad_vary("body.0.density=300,,2000", "body.0.density");
    // A value the scene's checks refuse, in the second combination: named, with its line.
    bad_vary("liquid.0.spacing=0.02,-0.01", "liquid[0].spacing");
}
