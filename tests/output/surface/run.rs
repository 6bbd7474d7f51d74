//! Surfaces in a run: `[output] surface = true` (or `run --surface`) builds each
//! frame's surface as the frame is written and lists it in the manifest; `sphrigid surface`
//! builds the same bytes afterwards; a resumed run ends with every frame's surface, the same
//! as an unbroken run's; bad options are one clear error. (A frame whose surface fails is
//! tested beside the surface worker, `src/sim/tests/surfaces.rs`.)
use crate::common::{read_manifest, sphrigid};
use sphrigid::output::surface_frames::read_surface;
use std::path::Path;

const SPACING: f64 = 0.02;

fn run(out: &Path, frames: &str, extra: &[&str]) {
    let scene = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenes/dam_break.toml");
    let mut args = vec![
        "run",
        scene.to_str().unwrap(),
        "--backend",
        "cpu",
        "--quiet",
        "--frames",
        frames,
        "--set",
        "liquid.0.spacing=0.02",
        "--out",
        out.to_str().unwrap(),
    ];
    args.extend(extra);
    let r = sphrigid(&args);
    assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
}

/// Each surface file's name and CRC-32.
fn surfaces(out: &Path) -> Vec<(String, u32)> {
    let mut names: Vec<String> = std::fs::read_dir(out.join("surface"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
        .into_iter()
        .map(|n| {
            let bytes = std::fs::read(out.join("surface").join(&n)).unwrap();
            (n, crc32fast::hash(&bytes))
        })
        .collect()
}

fn listed(out: &Path) -> Vec<String> {
    read_manifest(out)["frames"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["surface"].as_str().unwrap_or("").to_string())
        .collect()
}

#[test]
fn a_run_builds_every_frames_surface_and_the_command_builds_the_same() {
    let tmp = tempfile::tempdir().unwrap();
    let inline = tmp.path().join("inline");
    run(&inline, "3", &["--set", "output.surface=true"]);
    let want: Vec<String> = (0..=3)
        .map(|i| format!("surface/surface_{i:05}.ply"))
        .collect();
    assert_eq!(listed(&inline), want);
    let m = read_manifest(&inline);
    assert_eq!(m["surface"]["threshold"], 0.6);
    assert_eq!(m["scene"]["output"]["surface"], true);

    // Frame 0 is the still column in the tank's corner: 10 x 15 x 10 particles against the
    // floor and three walls. Its surface holds the particles' volume and lies on the walls.
    let s = read_surface(&inline.join(&want[0])).unwrap();
    assert_eq!(s.open_edges(), 0);
    let volume = 10.0 * 15.0 * 10.0 * SPACING.powi(3);
    let rel = (s.enclosed_volume() - volume).abs() / volume;
    assert!(
        rel < 0.03,
        "volume {} vs {volume}: {rel}",
        s.enclosed_volume()
    );
    let lo = |k: usize| {
        s.vertices
            .iter()
            .map(|v| v[k] as f64)
            .fold(f64::MAX, f64::min)
    };
    let hi = |k: usize| {
        s.vertices
            .iter()
            .map(|v| v[k] as f64)
            .fold(f64::MIN, f64::max)
    };
    for (what, gap) in [
        ("floor y = 0", lo(1)),
        ("wall x = 0", lo(0)),
        ("wall z = 0", lo(2)),
        ("wall z = 0.2", 0.2 - hi(2)),
    ] {
        assert!(
            (-1e-6..=SPACING / 4.0).contains(&gap),
            "{what}: the surface keeps {gap} m off it"
        );
    }
    // The free faces stay near the column's faces x = 0.2 and y = 0.3.
    assert!(
        (hi(0) - 0.2).abs() < SPACING / 2.0,
        "front at x = {}",
        hi(0)
    );
    assert!((hi(1) - 0.3).abs() < SPACING / 2.0, "top at y = {}", hi(1));

    // `sphrigid surface` on the same run writes the same bytes.
    let post = tmp.path().join("post");
    run(&post, "3", &[]);
    assert!(listed(&post).iter().all(String::is_empty));
    let r = sphrigid(&["surface", post.to_str().unwrap()]);
    assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
    assert_eq!(String::from_utf8_lossy(&r.stdout).lines().count(), 4);
    assert_eq!(listed(&post), want);
    assert_eq!(surfaces(&post), surfaces(&inline));
    assert_eq!(read_manifest(&post)["surface"], m["surface"]);
}

#[test]
fn a_resumed_run_ends_with_the_surfaces_of_an_unbroken_one() {
    let tmp = tempfile::tempdir().unwrap();
    let whole = tmp.path().join("whole");
    run(&whole, "4", &["--surface"]);
    // Stopped after frame 2 with surfaces, then resumed to frame 4.
    let resumed = tmp.path().join("resumed");
    run(&resumed, "2", &["--surface"]);
    run(&resumed, "4", &["--surface", "--resume"]);
    // Run without surfaces, then resumed with them: the earlier frames get theirs too.
    let late = tmp.path().join("late");
    run(&late, "2", &[]);
    run(&late, "4", &["--surface", "--resume"]);
    let want: Vec<String> = (0..=4)
        .map(|i| format!("surface/surface_{i:05}.ply"))
        .collect();
    for out in [&whole, &resumed, &late] {
        assert_eq!(listed(out), want, "{}", out.display());
    }
    assert_eq!(surfaces(&resumed), surfaces(&whole));
    assert_eq!(surfaces(&late), surfaces(&whole));
    // A frame whose surface was lost (a run killed while building it) is built on resume.
    std::fs::remove_file(resumed.join(&want[4])).unwrap();
    run(&resumed, "5", &["--surface", "--resume"]);
    assert_eq!(surfaces(&resumed)[..5], surfaces(&whole)[..]);
}

#[test]
fn bad_surface_options_are_one_clear_error() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("run");
    run(&out, "1", &[]);
    let dir = out.to_str().unwrap();
    for (args, says) in [
        (vec!["--cube-size=-1"], "--cube-size"),
        (vec!["--smoothing-length", "nan"], "--smoothing-length"),
        (vec!["--frames", "7"], "no frame 7"),
        (vec!["--jobs", "0"], "--jobs 0"),
    ] {
        let mut all = vec!["surface", dir];
        all.extend(args.iter());
        let r = sphrigid(&all);
        let err = String::from_utf8_lossy(&r.stderr);
        assert_eq!(r.status.code(), Some(2), "{args:?}: {err}");
        assert!(
            err.contains(says) && err.contains("fix:"),
            "{args:?}: {err}"
        );
        assert!(!err.contains("panicked"), "{err}");
    }
    let r = sphrigid(&["surface", tmp.path().join("none").to_str().unwrap()]);
    assert_eq!(r.status.code(), Some(2));
    assert!(!out.join("surface").exists());
}
