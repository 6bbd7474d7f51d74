//! Runs that survive: a run killed (`kill -9`) or stopped by SIGINT and then resumed with
//! `--resume` writes the same bytes as an unbroken run; an output directory belongs to one run
//! (a lock, and an earlier run's files refused unless `--resume` or `--overwrite`).
#![cfg(unix)]
use crate::common;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// Files that differ between an unbroken and a resumed run by design: the manifest (wall
/// time), the checkpoint (wall time) and the lock (the process id).
const RUN_RECORDS: [&str; 3] = ["manifest.json", "checkpoint.bin", ".sphrigid.lock"];

fn scene(name: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("scenes")
        .join(format!("{name}.toml"))
        .display()
        .to_string()
}

fn run_args<'a>(scene: &'a str, out: &'a Path, frames: &'a str) -> Vec<&'a str> {
    vec![
        "run",
        scene,
        "--backend",
        "cpu",
        "--quiet",
        "--frames",
        frames,
        "--out",
        out.to_str().unwrap(),
    ]
}

fn spawn(args: &[&str]) -> Child {
    Command::new(env!("CARGO_BIN_EXE_sphrigid"))
        .args(args)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary starts")
}

/// Every file under `dir` (relative path -> bytes), files named in `skip` left out.
fn files_except(dir: &Path, skip: &[&str]) -> BTreeMap<String, Vec<u8>> {
    fn walk(dir: &Path, rel: &str, skip: &[&str], out: &mut BTreeMap<String, Vec<u8>>) {
        for e in std::fs::read_dir(dir).unwrap() {
            let p = e.unwrap().path();
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            let r = format!("{rel}{name}");
            if p.is_dir() {
                walk(&p, &format!("{r}/"), skip, out);
            } else if !skip.contains(&name.as_str()) {
                out.insert(r, std::fs::read(&p).unwrap());
            }
        }
    }
    let mut out = BTreeMap::new();
    walk(dir, "", skip, &mut out);
    out
}

/// Every file under `dir` (relative path -> bytes), the run records left out.
fn contents(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    files_except(dir, &RUN_RECORDS)
}

fn assert_same_files(unbroken: &Path, resumed: &Path) {
    let (a, b) = (contents(unbroken), contents(resumed));
    assert_eq!(
        a.keys().collect::<Vec<_>>(),
        b.keys().collect::<Vec<_>>(),
        "the resumed run wrote other files"
    );
    for (f, bytes) in &a {
        assert!(bytes == &b[f], "{f} differs after the resume");
    }
    let frames = |d: &Path| common::read_manifest(d)["frames"].as_array().unwrap().len();
    assert_eq!(frames(unbroken), frames(resumed));
    assert_eq!(common::read_manifest(resumed)["complete"], true);
}

/// The frames the manifest in `out` lists (0 while there is none).
fn listed(out: &Path) -> usize {
    std::fs::read(out.join("manifest.json"))
        .ok()
        .and_then(|b| serde_json::from_slice::<serde_json::Value>(&b).ok())
        .and_then(|m| m["frames"].as_array().map(Vec::len))
        .unwrap_or(0)
}

/// Wait until the run writing `out` has listed `frames` frames.
fn wait_for(child: &mut Child, out: &Path, frames: usize) {
    let start = Instant::now();
    while listed(out) < frames {
        assert!(
            child.try_wait().unwrap().is_none(),
            "the run ended before frame {frames}"
        );
        assert!(start.elapsed() < Duration::from_secs(120), "no progress");
        std::thread::sleep(Duration::from_millis(2));
    }
}

/// Run `name` unbroken, and again interrupted by `interrupt` once `at` frames are listed,
/// then resumed; both directories end up with the same bytes.
fn interrupted_then_resumed(
    name: &str,
    frames: &str,
    at: usize,
    interrupt: impl FnOnce(&mut Child) -> Option<i32>,
) {
    let tmp = tempfile::tempdir().unwrap();
    let file = scene(name);
    let (unbroken, resumed) = (tmp.path().join("unbroken"), tmp.path().join("resumed"));
    let o = common::sphrigid(&run_args(&file, &unbroken, frames));
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let mut child = spawn(&run_args(&file, &resumed, frames));
    wait_for(&mut child, &resumed, at);
    let want = interrupt(&mut child);
    let status = child.wait().unwrap();
    let mut err = String::new();
    std::io::Read::read_to_string(child.stderr.as_mut().unwrap(), &mut err).unwrap();
    assert_eq!(status.code(), want, "{err}");
    assert_eq!(common::read_manifest(&resumed)["complete"], false);
    let mut args = run_args(&file, &resumed, frames);
    args.push("--resume");
    let o = common::sphrigid(&args);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{err}");
    assert!(
        err.contains("resumed from the checkpoint at frame"),
        "{err}"
    );
    assert_same_files(&unbroken, &resumed);
}

fn kill9(child: &mut Child) -> Option<i32> {
    child.kill().unwrap();
    None
}

fn sigint(child: &mut Child) -> Option<i32> {
    // SAFETY: kill(2) with the pid of a child this test started and has not yet waited for.
    assert_eq!(unsafe { libc::kill(child.id() as i32, libc::SIGINT) }, 0);
    Some(130)
}

#[test]
fn kill_9_then_resume_is_byte_identical_with_liquid_and_a_body() {
    interrupted_then_resumed("toppling_block", "4", 2, kill9);
}

#[test]
fn kill_9_then_resume_is_byte_identical_with_joints() {
    interrupted_then_resumed("chain", "120", 4, kill9);
}

#[test]
fn kill_9_then_resume_is_byte_identical_with_an_emitter() {
    // The tap lets in a layer every few steps and holds its newest layers: the checkpoint
    // carries the emitter's layers, held layers and next id.
    interrupted_then_resumed("tap", "12", 6, kill9);
}

#[test]
fn the_manifest_records_each_frames_particle_count_as_the_emitter_adds_them() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("out");
    let o = common::sphrigid(&run_args(&scene("tap"), &out, "6"));
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let m = common::read_manifest(&out);
    let mut last = 0;
    for f in m["frames"].as_array().unwrap() {
        let ply = common::read_fluid_ply(&out.join(f["fluid"].as_str().unwrap()));
        let n = f["particles"].as_u64().unwrap() as usize;
        assert_eq!(n, ply.len(), "frame {}", f["index"]);
        // In id order, each id once.
        assert!(ply.windows(2).all(|w| w[0].1 < w[1].1));
        assert!(n >= last);
        last = n;
    }
    assert!(last > 0, "the tap has let liquid in by frame 6");
}

#[test]
fn sigint_stops_with_130_and_resumes_byte_identical() {
    interrupted_then_resumed("toppling_block", "4", 2, sigint);
}

#[test]
fn sigint_writes_the_reason_and_how_to_resume() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("out");
    let file = scene("chain");
    let mut child = spawn(&run_args(&file, &out, "100000"));
    wait_for(&mut child, &out, 2);
    sigint(&mut child);
    let status = child.wait().unwrap();
    let mut err = String::new();
    std::io::Read::read_to_string(child.stderr.as_mut().unwrap(), &mut err).unwrap();
    assert_eq!(status.code(), Some(130), "{err}");
    assert!(
        err.contains("SIGINT") && err.contains("--frames 100000 --backend cpu --resume"),
        "{err}"
    );
    let m = common::read_manifest(&out);
    assert_eq!(m["complete"], false);
    assert!(m["stopped"].as_str().unwrap().starts_with("SIGINT at step"));
    // Every frame on disk is one the manifest lists, and the checkpoint holds the last step.
    let on_disk = std::fs::read_dir(out.join("rigid")).unwrap().count();
    assert_eq!(on_disk, 6 * m["frames"].as_array().unwrap().len());
    assert_eq!(m["checkpoint_step"], m["steps"]);
}

#[test]
fn sigterm_stops_with_143_and_a_checkpoint() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("out");
    let mut child = spawn(&run_args(&scene("chain"), &out, "100000"));
    wait_for(&mut child, &out, 2);
    // SAFETY: kill(2) with the pid of a child this test started and has not yet waited for.
    assert_eq!(unsafe { libc::kill(child.id() as i32, libc::SIGTERM) }, 0);
    assert_eq!(child.wait().unwrap().code(), Some(143));
    let m = common::read_manifest(&out);
    assert!(
        m["stopped"]
            .as_str()
            .unwrap()
            .starts_with("SIGTERM at step")
    );
    assert!(out.join("checkpoint.bin").exists());
}

fn frames_on_disk(out: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(out.join("fluid"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    v.sort();
    v
}

#[test]
fn an_earlier_run_is_refused_or_overwritten_never_mixed() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("out");
    let file = scene("dam_break");
    let sets = ["--set", "liquid.0.spacing=0.02"];
    let with = |frames: &str, extra: &[&str]| {
        let mut a = run_args(&file, &out, frames);
        a.extend_from_slice(&sets);
        a.extend_from_slice(extra);
        common::sphrigid(&a)
    };
    assert!(with("4", &[]).status.success());
    std::fs::write(out.join("notes.txt"), "mine").unwrap();
    let o = with("2", &[]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(
        err.contains("already holds a complete run") && err.contains("--overwrite"),
        "{err}"
    );
    assert_eq!(
        frames_on_disk(&out).len(),
        5,
        "a refused run touches nothing"
    );
    let o = with("2", &["--overwrite"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(frames_on_disk(&out).len(), 3, "no stale frame is left");
    assert_eq!(
        common::read_manifest(&out)["frames"]
            .as_array()
            .unwrap()
            .len(),
        3
    );
    assert_eq!(
        std::fs::read_to_string(out.join("notes.txt")).unwrap(),
        "mine"
    );
    // A resume with another scene value is refused, naming it; --frames may grow.
    let o = with("3", &["--resume", "--set", "liquid.0.viscosity.sigma=3"]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains("liquid.0.viscosity.sigma"), "{err}");
    let o = with("3", &["--resume"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(frames_on_disk(&out).len(), 4);
    let o = with("1", &["--resume"]);
    assert_eq!(o.status.code(), Some(2));
}

#[test]
fn a_locked_directory_is_refused_naming_the_holder() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("out");
    std::fs::create_dir_all(&out).unwrap();
    let lock = std::fs::OpenOptions::new()
        .create(true)
        .truncate(true)
        .write(true)
        .open(out.join(".sphrigid.lock"))
        .unwrap();
    lock.try_lock().unwrap();
    std::fs::write(out.join(".sphrigid.lock"), "pid 4242 on testhost\n").unwrap();
    let file = scene("chain");
    let o = common::sphrigid(&run_args(&file, &out, "1"));
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(
        err.contains("another sphrigid run") && err.contains("pid 4242 on testhost"),
        "{err}"
    );
    assert!(!out.join("manifest.json").exists());
    drop(lock);
    let o = common::sphrigid(&run_args(&file, &out, "1"));
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
}

/// Every file under `dir` (relative path -> bytes), the lock file left out: what a refused
/// command must leave as it was.
fn snapshot(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    files_except(dir, &[".sphrigid.lock"])
}

/// Run `args`, expecting exit 2 with every one of `want` in its stderr and `out` untouched.
fn refused(args: &[&str], out: &Path, want: &[&str]) -> String {
    let before = snapshot(out);
    let o = common::sphrigid(args);
    let err = String::from_utf8_lossy(&o.stderr).into_owned();
    assert_eq!(o.status.code(), Some(2), "{err}");
    for w in want {
        assert!(err.contains(w), "{w}: {err}");
    }
    assert!(
        snapshot(out) == before,
        "a refused run changed files: {err}"
    );
    err
}

fn edit_manifest(out: &Path, edit: impl FnOnce(&mut serde_json::Value)) {
    let mut m = common::read_manifest(out);
    edit(&mut m);
    std::fs::write(
        out.join("manifest.json"),
        serde_json::to_vec_pretty(&m).unwrap(),
    )
    .unwrap();
}

#[test]
fn a_resume_over_damaged_frames_or_tables_names_them_and_writes_nothing() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("out");
    let file = scene("toppling_block");
    let o = common::sphrigid(&run_args(&file, &out, "3"));
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let m = common::read_manifest(&out);
    let sum = &m["frames"][1]["checksums"]["fluid/fluid_00001.ply"];
    let bytes = std::fs::read(out.join("fluid/fluid_00001.ply")).unwrap();
    assert_eq!(sum["bytes"], bytes.len());
    assert_eq!(
        sum["crc32"],
        format!("{:08x}", crc32fast::hash(&bytes)),
        "the manifest records each frame's CRC-32"
    );
    assert!(m["tables"]["run_metrics.csv"]["bytes"].as_u64().unwrap() > 0);
    let mut resume = run_args(&file, &out, "4");
    resume.push("--resume");
    let keep = snapshot(&out);
    // A deleted frame, a truncated body frame and a changed table, all named.
    std::fs::remove_file(out.join("fluid/fluid_00001.ply")).unwrap();
    let body = out.join("rigid/block_00002.ply");
    std::fs::write(&body, &keep["rigid/block_00002.ply"][..100]).unwrap();
    let metrics = out.join("run_metrics.csv");
    let mut table = keep["run_metrics.csv"].clone();
    let at = table.len() - 3;
    table[at] ^= 1;
    std::fs::write(&metrics, &table).unwrap();
    refused(
        &resume,
        &out,
        &[
            "3 of the earlier run's files are damaged",
            "fluid/fluid_00001.ply (missing)",
            "rigid/block_00002.ply (truncated to 100 bytes)",
            "run_metrics.csv (changed (checksum mismatch))",
            "The first damaged frame is 1",
            "--overwrite",
        ],
    );
    assert_eq!(common::read_manifest(&out)["complete"], true);
    // Whole again: the resume goes on.
    for (f, b) in &keep {
        std::fs::write(out.join(f), b).unwrap();
    }
    let o = common::sphrigid(&resume);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let m = common::read_manifest(&out);
    assert_eq!(m["complete"], true);
    assert_eq!(m["frames"].as_array().unwrap().len(), 5);
    assert!(m["frames"][1]["checksums"] == keep_sum(&keep, 1));
}

/// The sums a manifest records for frame `i` of the toppling block, from the files' bytes.
fn keep_sum(files: &BTreeMap<String, Vec<u8>>, i: u32) -> serde_json::Value {
    let mut out = serde_json::Map::new();
    for name in [
        format!("fluid/fluid_{i:05}.ply"),
        format!("rigid/block_{i:05}.ply"),
    ] {
        let b = &files[&name];
        out.insert(
            name,
            serde_json::json!({"bytes": b.len(), "crc32": format!("{:08x}", crc32fast::hash(b))}),
        );
    }
    serde_json::Value::Object(out)
}

#[test]
fn a_manifest_without_checksums_resumes_after_a_presence_check() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("out");
    let file = scene("toppling_block");
    let o = common::sphrigid(&run_args(&file, &out, "2"));
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    // As an older sphrigid wrote it: no sums.
    edit_manifest(&out, |m| {
        m.as_object_mut().unwrap().remove("tables");
        for f in m["frames"].as_array_mut().unwrap() {
            f.as_object_mut().unwrap().remove("checksums");
        }
    });
    let mut resume = run_args(&file, &out, "3");
    resume.push("--resume");
    let body = out.join("rigid/block_00001.ply");
    let kept = std::fs::read(&body).unwrap();
    std::fs::remove_file(&body).unwrap();
    refused(&resume, &out, &["rigid/block_00001.ply (missing)"]);
    std::fs::write(&body, kept).unwrap();
    let o = common::sphrigid(&resume);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{err}");
    assert!(err.contains("checked for presence only"), "{err}");
    // The resumed manifest records every frame's sums, the earlier ones included.
    let m = common::read_manifest(&out);
    let files = snapshot(&out);
    for i in 0..=3 {
        assert!(
            m["frames"][i]["checksums"] == keep_sum(&files, i as u32),
            "{i}"
        );
    }
}

#[test]
fn a_resume_on_another_backend_is_refused_unless_named_then_recorded() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("out");
    let file = scene("toppling_block");
    let o = common::sphrigid(&run_args(&file, &out, "2"));
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    // As if the earlier run had been computed on the GPU; this machine's default is the CPU
    // (no GPU backend is named: `auto`).
    edit_manifest(&out, |m| m["backend"] = "gpu".into());
    let auto = [
        "run",
        &file,
        "--quiet",
        "--frames",
        "3",
        "--resume",
        "--backend",
        "auto",
        "--out",
        out.to_str().unwrap(),
    ];
    let err = refused(
        &auto,
        &out,
        &[
            "the earlier run computed on the gpu backend",
            "--backend gpu to continue",
            "--backend cpu to switch",
        ],
    );
    assert!(err.contains("on the cpu backend"), "{err}");
    // Without --backend at all: the same.
    refused(&[&auto[..6], &auto[8..]].concat(), &out, &["gpu backend"]);
    let mut named = run_args(&file, &out, "3");
    named.push("--resume");
    let o = common::sphrigid(&named);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let m = common::read_manifest(&out);
    assert_eq!(m["backend"], "cpu");
    assert_eq!(
        m["backend_segments"],
        serde_json::json!([
            {"from_frame": 0, "backend": "gpu"},
            {"from_frame": 2, "backend": "cpu"}
        ])
    );
}

#[test]
fn a_damaged_checkpoint_header_is_damage_not_a_version() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("out");
    let file = scene("toppling_block");
    let o = common::sphrigid(&run_args(&file, &out, "1"));
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let ck = out.join("checkpoint.bin");
    let mut bytes = std::fs::read(&ck).unwrap();
    bytes[10] ^= 1; // the version field: 65539 when read as is
    std::fs::write(&ck, &bytes).unwrap();
    let mut resume = run_args(&file, &out, "2");
    resume.push("--resume");
    let err = refused(
        &resume,
        &out,
        &[
            "checkpoint.bin is damaged (header checksum mismatch)",
            "fix: start the run over with --overwrite",
        ],
    );
    assert!(!err.contains("version"), "{err}");
}

#[test]
fn a_full_disk_names_the_intact_frames_and_the_resume_continues_exactly() {
    let tmp = tempfile::tempdir().unwrap();
    let file = scene("toppling_block");
    let (unbroken, full) = (tmp.path().join("unbroken"), tmp.path().join("full"));
    let o = common::sphrigid(&run_args(&file, &unbroken, "3"));
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let o = Command::new(env!("CARGO_BIN_EXE_sphrigid"))
        .args(run_args(&file, &full, "3"))
        .env("SPHRIGID_TEST_DISK_FULL_AFTER_FRAME", "1")
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    for want in [
        "checkpoint.bin",
        "(the disk is full)",
        "frames 0..1 in",
        "are intact",
        "fix: free disk space, then continue from the checkpoint at frame 1 with: sphrigid run",
        "--frames 3 --backend cpu --resume",
    ] {
        assert!(err.contains(want), "{want}: {err}");
    }
    // The manifest names only the checkpoint on disk: frame 1's.
    let m = common::read_manifest(&full);
    assert_eq!(m["frames"].as_array().unwrap().len(), 2);
    assert_eq!(m["checkpoint_step"], m["steps"]);
    assert_eq!(m["complete"], false);
    let mut resume = run_args(&file, &full, "3");
    resume.push("--resume");
    let o = common::sphrigid(&resume);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("resumed from the checkpoint at frame 1"),
        "{err}"
    );
    assert_same_files(&unbroken, &full);
}

#[test]
fn the_same_command_twice_says_how_to_keep_replace_or_extend_the_run() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("out");
    let file = scene("toppling_block");
    let args = run_args(&file, &out, "2");
    let o = common::sphrigid(&args);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let err = refused(
        &args,
        &out,
        &[
            "already holds a complete run of",
            "toppling_block.toml (2 frames, finished 20",
            "UTC). To keep it, choose another --out; to replace it, add --overwrite (removes frames 0..2 (6 files in fluid/ and rigid/), 4 tables, the checkpoint and the manifest); to extend it, add --resume",
        ],
    );
    // Nothing is printed before it.
    assert!(err.starts_with("error: "), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    // Another scene's run there is refused as before, also before anything is printed.
    let mut other = args.clone();
    other.extend(["--set", "body.0.density=500"]);
    let err = refused(
        &other,
        &out,
        &["holds the output of an earlier run", "removes frames 0..2"],
    );
    assert!(err.starts_with("error: "), "{err}");
}
