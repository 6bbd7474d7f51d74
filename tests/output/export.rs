//! `sphrigid export`: the VTK and USD files of a small run read back, by sphrigid's own reader
//! and by independent ones (meshio and usd-core from pip), as the run's PLY values, the liquid
//! surface's too (`sphrigid surface`: `surface.pvd` and `/run/fluid_surface` with each frame's
//! topology); a run with a missing frame or surface exports the rest and says so in one line
//! with exit 2; the manifest states its conventions.
use crate::common;
use sphrigid::output::vtk::read_vtu;
use std::path::{Path, PathBuf};

/// A small toppling block (coarse liquid, 6 frames) run into `dir/run`.
fn small_run(dir: &Path) -> PathBuf {
    let out = dir.join("run");
    let r = common::small_run("toppling_block.toml", &[], &out);
    // stderr is a pipe here, not a terminal: the run logs as --quiet does, up to the last frame.
    let log = String::from_utf8_lossy(&r.stderr);
    assert!(
        log.contains("frame 0/6") && log.contains("frame 6/6"),
        "{log}"
    );
    out
}

fn export(run: &Path, to: &str) -> std::process::Output {
    common::sphrigid(&["export", run.to_str().unwrap(), "--to", to])
}

/// The one `error:` line of a command that must end with exit 2.
fn one_error_line(r: &std::process::Output) -> String {
    let err = String::from_utf8_lossy(&r.stderr);
    assert_eq!(r.status.code(), Some(2), "{err}");
    let error_lines: Vec<&str> = err.lines().filter(|l| l.starts_with("error:")).collect();
    assert_eq!(error_lines.len(), 1, "{err}");
    error_lines[0].to_string()
}

#[test]
fn the_manifest_states_up_axis_frame_start_and_frames_run() {
    let dir = tempfile::tempdir().unwrap();
    let run = small_run(dir.path());
    let m = common::read_manifest(&run);
    assert_eq!(m["up_axis"], "y");
    assert_eq!(m["frame_start"], 0);
    assert_eq!(
        m["scene"]["time"]["frames"], 6,
        "--frames shows in the scene echo"
    );
    assert_eq!(m["frames"].as_array().unwrap().len(), 7);
}

#[test]
fn vtk_and_usd_exports_hold_the_ply_values() {
    let dir = tempfile::tempdir().unwrap();
    let run = small_run(dir.path());
    let r = common::sphrigid(&["surface", run.to_str().unwrap()]);
    assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
    for to in ["vtk", "usd"] {
        let r = export(&run, to);
        assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
    }
    // The series lists every frame at its time.
    let pvd = std::fs::read_to_string(run.join("vtk/fluid.pvd")).unwrap();
    for k in 0..=6 {
        let t = k as f64 / 30.0;
        let line =
            format!("timestep=\"{t}\" group=\"\" part=\"0\" file=\"fluid/fluid_{k:05}.vtu\"");
        assert!(pvd.contains(&line), "{line} not in\n{pvd}");
    }
    assert!(
        std::fs::read_to_string(run.join("vtk/block.pvd"))
            .unwrap()
            .contains("rigid/block_00006.vtu")
    );
    // The surface's series and stage prim, frame 5 as its PLY.
    let pvd = std::fs::read_to_string(run.join("vtk/surface.pvd")).unwrap();
    assert_eq!(pvd.matches("<DataSet").count(), 7, "{pvd}");
    let surface =
        sphrigid::output::surface_frames::read_surface(&run.join("surface/surface_00005.ply"))
            .unwrap();
    let vtu = read_vtu(&run.join("vtk/surface/surface_00005.vtu")).unwrap();
    assert_eq!(vtu.points.len(), surface.vertices.len());
    assert!(!surface.triangles.is_empty());
    assert!(vtu.cell_types.iter().all(|&t| t == 5), "triangles");
    let flat: Vec<u32> = surface.triangles.iter().flatten().copied().collect();
    assert_eq!(vtu.connectivity, flat);
    let names: Vec<&str> = vtu.point_data.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(names, ["Normals", "Velocity"]);
    let usd = std::fs::read_to_string(run.join("run.usda")).unwrap();
    assert!(usd.contains("def Mesh \"fluid_surface\""));
    assert!(usd.contains("int[] faceVertexCounts.timeSamples = {"));
    // Frame 5 read back by sphrigid's reader equals the PLY read by ply-rs-bw.
    let ply = common::read_fluid_ply(&run.join("fluid/fluid_00005.ply"));
    let vtu = read_vtu(&run.join("vtk/fluid/fluid_00005.vtu")).unwrap();
    assert_eq!(vtu.points.len(), ply.len());
    let (vel, density, id) = (
        &vtu.point_data[0].1,
        &vtu.point_data[1].1,
        &vtu.point_data[2].1,
    );
    for (k, (vals, pid)) in ply.iter().enumerate() {
        assert_eq!(vtu.points[k], [0, 1, 2].map(|c| vals[c] as f64));
        assert_eq!(vel[3 * k..3 * k + 3], [3, 4, 5].map(|c| vals[c] as f64));
        assert_eq!((density[k], id[k]), (vals[6] as f64, *pid as f64));
    }
    // And by meshio and usd-core.
    if let Some(python) = common::python_with(&["meshio", "pxr", "numpy"]) {
        let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/python/check_exports.py");
        let out = common::run_python(&python, &script, &[run.to_str().unwrap(), "5", "block"]);
        println!("{out}");
        assert_eq!(out.lines().count(), 6, "{out}");
        assert!(out.contains("usd surface frame 5: "), "{out}");
    }
    // A surface the manifest lists but that is gone: the rest is exported, one line, exit 2.
    std::fs::remove_file(run.join("surface/surface_00002.ply")).unwrap();
    for to in ["vtk", "usd"] {
        let r = export(&run, to);
        let err = String::from_utf8_lossy(&r.stderr);
        assert_eq!(r.status.code(), Some(2), "{err}");
        let lines: Vec<&str> = err.lines().filter(|l| l.starts_with("error:")).collect();
        assert_eq!(lines.len(), 1, "{err}");
        assert!(
            lines[0].contains("surface_00002.ply") && lines[0].contains("7 of 7 listed frames"),
            "{err}"
        );
    }
    let pvd = std::fs::read_to_string(run.join("vtk/surface.pvd")).unwrap();
    assert_eq!(pvd.matches("<DataSet").count(), 6, "{pvd}");
}

#[test]
fn a_missing_frame_is_one_line_and_exit_2_and_the_rest_is_exported() {
    let dir = tempfile::tempdir().unwrap();
    let run = small_run(dir.path());
    std::fs::remove_file(run.join("fluid/fluid_00003.ply")).unwrap();
    std::fs::remove_file(run.join("rigid/block_00004.ply")).unwrap();
    for to in ["vtk", "usd"] {
        let line = one_error_line(&export(&run, to));
        assert!(
            line.contains("fluid_00003.ply")
                && line.contains("(and 1 more)")
                && line.contains("6 of 7 listed frames")
                && line.contains("fix:"),
            "{line}"
        );
    }
    let pvd = std::fs::read_to_string(run.join("vtk/fluid.pvd")).unwrap();
    assert_eq!(pvd.matches("<DataSet").count(), 6);
    assert!(!pvd.contains("fluid_00003"));
    assert_eq!(
        std::fs::read_to_string(run.join("vtk/block.pvd"))
            .unwrap()
            .matches("<DataSet")
            .count(),
        6
    );
    let usd = std::fs::read_to_string(run.join("run.usda")).unwrap();
    assert!(usd.contains("            6: [(") && !usd.contains("            3: [("));
    // A run that stopped early says so first, after exporting what it has.
    let manifest = run.join("manifest.json");
    let text = std::fs::read_to_string(&manifest).unwrap();
    std::fs::write(
        &manifest,
        text.replace("\"complete\": true", "\"complete\": false"),
    )
    .unwrap();
    let r = export(&run, "vtk");
    let err = String::from_utf8_lossy(&r.stderr);
    assert_eq!(r.status.code(), Some(2), "{err}");
    assert!(
        err.contains("error: ")
            && err.contains("the run is incomplete")
            && err.contains("(and 2 more)"),
        "{err}"
    );
    // Not a run at all: one line, exit 2.
    let r = export(dir.path(), "vtk");
    assert_eq!(r.status.code(), Some(2));
    let err = String::from_utf8_lossy(&r.stderr);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.contains("manifest.json") && err.contains("fix:"),
        "{err}"
    );
}

#[test]
fn a_non_finite_value_is_refused_by_export_and_figure_naming_the_file_and_particle() {
    let dir = tempfile::tempdir().unwrap();
    let run = small_run(dir.path());
    // Plant a NaN in particle 0's x (the first float after the binary header) of frame 3.
    let frame = run.join("fluid/fluid_00003.ply");
    let mut bytes = std::fs::read(&frame).unwrap();
    let header = String::from_utf8_lossy(&bytes[..400]).into_owned();
    assert!(
        header.contains("binary_little_endian") && header.contains("property float x\n"),
        "{header}"
    );
    let first_property = header[header.find("element vertex").unwrap()..]
        .lines()
        .nth(1)
        .unwrap()
        .to_string();
    assert_eq!(first_property, "property float x");
    let at = header.find("end_header\n").unwrap() + "end_header\n".len();
    bytes[at..at + 4].copy_from_slice(&f32::NAN.to_le_bytes());
    std::fs::write(&frame, &bytes).unwrap();
    let planted = std::fs::read(&frame).unwrap();

    let line = one_error_line(&export(&run, "vtk"));
    assert!(
        line.contains("fluid_00003.ply")
            && line.contains("particle 0")
            && line.contains("x = NaN")
            && line.contains("6 of 7 listed frames"),
        "{line}"
    );
    // The frame is left out, and no exported file holds the NaN.
    assert!(!run.join("vtk/fluid/fluid_00003.vtu").exists());
    let pvd = std::fs::read_to_string(run.join("vtk/fluid.pvd")).unwrap();
    assert_eq!(pvd.matches("<DataSet").count(), 6);
    for f in common::scan::files_under(&run.join("vtk")) {
        if f.extension().is_some_and(|e| e == "vtu") {
            let v = read_vtu(&f).unwrap();
            assert!(
                v.point_data
                    .iter()
                    .all(|(_, a)| a.iter().all(|x| x.is_finite()))
                    && v.points.iter().flatten().all(|x| x.is_finite()),
                "{} holds a non-finite value",
                f.display()
            );
        }
    }

    // `figure` on that frame: exit 2, the file and the particle named, no picture of it.
    let fig = dir.path().join("fig");
    let r = common::sphrigid(&[
        "figure",
        run.to_str().unwrap(),
        "--frames",
        "3",
        "-o",
        fig.to_str().unwrap(),
    ]);
    let err = String::from_utf8_lossy(&r.stderr);
    assert_eq!(r.status.code(), Some(2), "{err}");
    assert!(
        err.contains("fluid_00003.ply") && err.contains("particle 0") && err.contains("fix:"),
        "{err}"
    );
    assert!(!err.contains("panicked"), "{err}");
    // The planted frame itself is untouched.
    assert_eq!(std::fs::read(&frame).unwrap(), planted);
}
