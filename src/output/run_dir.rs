//! The run directory and the name of every file in it. `sphrigid run` writes, and `figure`
//! reads, a run only through paths that [`RunDir`] gives:
//!
//! | file | written by |
//! |---|---|
//! | `manifest.json` | [`super::manifest`] |
//! | `fluid/fluid_NNNNN.ply` | [`super::fluid_frames`] |
//! | `rigid/<body>_NNNNN.ply` | [`super::rigid_frames`] |
//! | `surface/surface_NNNNN.ply` (`sphrigid surface`, `[output] surface`) | [`super::surface_frames`] |
//! | `rigid_states.csv` | [`super::rigid_states`] |
//! | `joint_errors.csv` | [`super::joint_errors`] |
//! | `failed_lcp_<step>.json` | [`super::failed_lcp`] |
//! | `run_metrics.csv` | [`super::run_metrics`] |
//! | `gauges.csv` (`[[gauge]]`) | [`super::gauges`] |
//! | `body_loads.csv`, `wall_loads.csv` | [`super::loads`] |
//! | `checkpoint.bin` | [`super::checkpoint`] |
//! | `.sphrigid.lock` | [`super::lock`] |
//! | `vtk/` (`sphrigid export --to vtk`) | [`super::vtk`] |
//! | `run.usda` (`sphrigid export --to usd`) | [`super::usd`] |
use crate::{Error, Result};
use std::path::{Path, PathBuf};

/// The manifest's name in the run directory.
pub const MANIFEST: &str = "manifest.json";
/// The folder of the fluid frames.
pub const FLUID_DIR: &str = "fluid";
/// The folder of the bodies' frames.
pub const RIGID_DIR: &str = "rigid";
/// The folder of the liquid's surface meshes.
pub const SURFACE_DIR: &str = "surface";
/// The bodies' states table.
pub const RIGID_STATES: &str = "rigid_states.csv";
/// The joints' errors table.
pub const JOINT_ERRORS: &str = "joint_errors.csv";
/// The per-frame energy and leak table.
pub const RUN_METRICS: &str = "run_metrics.csv";
/// The gauges' readings table.
pub const GAUGES: &str = "gauges.csv";
/// The liquid's loads on the bodies.
pub const BODY_LOADS: &str = "body_loads.csv";
/// The liquid's loads on the container's walls.
pub const WALL_LOADS: &str = "wall_loads.csv";
/// The checkpoint a run resumes from.
pub const CHECKPOINT: &str = "checkpoint.bin";
/// The lock file of the run that owns the directory.
pub const LOCK: &str = ".sphrigid.lock";
/// The default folder of the VTK export.
pub const VTK_DIR: &str = "vtk";
/// The fluid's time series in a VTK export folder.
pub const VTK_FLUID_SERIES: &str = "fluid.pvd";
/// The liquid surface's time series in a VTK export folder.
pub const VTK_SURFACE_SERIES: &str = "surface.pvd";
/// The default USD stage of the run.
pub const USD_STAGE: &str = "run.usda";

/// A run's output directory: where each of its files lies. The readers of its files take it
/// (`output::rigid_states::read`, `gauges::read`, `loads::read`, `manifest::read`, ...).
///
/// ```no_run
/// use sphrigid::output::{RunDir, rigid_states};
/// use std::path::Path;
///
/// let run = RunDir::open(Path::new("out/floating_box"))?;
/// for row in rigid_states::read(&run)? {
///     println!("frame {} {}: tilt {:.1} deg", row.frame, row.body, row.tilt_deg());
/// }
/// println!("fluid frame 3: {}", run.fluid_frame(3).display());
/// # Ok::<(), sphrigid::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RunDir {
    dir: PathBuf,
}

impl RunDir {
    /// The run directory `dir` (nothing is created or checked).
    pub fn new(dir: &Path) -> RunDir {
        RunDir {
            dir: dir.to_path_buf(),
        }
    }

    /// An existing run directory to read; an input error when `dir` is not a directory.
    pub fn open(dir: &Path) -> Result<RunDir> {
        if !dir.is_dir() {
            return Err(not_a_run(dir, "no such run directory"));
        }
        Ok(RunDir::new(dir))
    }

    /// The directory itself.
    pub fn path(&self) -> &Path {
        &self.dir
    }

    /// A file given relative to the directory (as the manifest lists them).
    pub fn join(&self, relative: &str) -> PathBuf {
        self.dir.join(relative)
    }

    /// `OUT/manifest.json`.
    pub fn manifest(&self) -> PathBuf {
        self.dir.join(MANIFEST)
    }

    /// `OUT/fluid/`.
    pub fn fluid_dir(&self) -> PathBuf {
        self.dir.join(FLUID_DIR)
    }

    /// The name of fluid frame `index`, relative to the directory.
    pub fn fluid_frame_name(index: u32) -> String {
        format!("{FLUID_DIR}/fluid_{index:05}.ply")
    }

    /// `OUT/fluid/fluid_NNNNN.ply` of frame `index`.
    pub fn fluid_frame(&self, index: u32) -> PathBuf {
        self.dir.join(Self::fluid_frame_name(index))
    }

    /// `OUT/rigid/`.
    pub fn rigid_dir(&self) -> PathBuf {
        self.dir.join(RIGID_DIR)
    }

    /// The name of body `body`'s frame `index`, relative to the directory.
    pub fn body_frame_name(body: &str, index: u32) -> String {
        format!("{RIGID_DIR}/{body}_{index:05}.ply")
    }

    /// `OUT/rigid/<body>_NNNNN.ply` of frame `index`.
    pub fn body_frame(&self, body: &str, index: u32) -> PathBuf {
        self.dir.join(Self::body_frame_name(body, index))
    }

    /// `OUT/surface/`.
    pub fn surface_dir(&self) -> PathBuf {
        self.dir.join(SURFACE_DIR)
    }

    /// The name of frame `index`'s liquid surface, relative to the directory.
    pub fn surface_frame_name(index: u32) -> String {
        format!("{SURFACE_DIR}/surface_{index:05}.ply")
    }

    /// `OUT/surface/surface_NNNNN.ply` of frame `index`.
    pub fn surface_frame(&self, index: u32) -> PathBuf {
        self.dir.join(Self::surface_frame_name(index))
    }

    /// `OUT/rigid_states.csv`.
    pub fn rigid_states(&self) -> PathBuf {
        self.dir.join(RIGID_STATES)
    }

    /// `OUT/joint_errors.csv`.
    pub fn joint_errors(&self) -> PathBuf {
        self.dir.join(JOINT_ERRORS)
    }

    /// `OUT/run_metrics.csv`.
    pub fn run_metrics(&self) -> PathBuf {
        self.dir.join(RUN_METRICS)
    }

    /// `OUT/gauges.csv`.
    pub fn gauges(&self) -> PathBuf {
        self.dir.join(GAUGES)
    }

    /// `OUT/body_loads.csv`.
    pub fn body_loads(&self) -> PathBuf {
        self.dir.join(BODY_LOADS)
    }

    /// `OUT/wall_loads.csv`.
    pub fn wall_loads(&self) -> PathBuf {
        self.dir.join(WALL_LOADS)
    }

    /// `OUT/checkpoint.bin`.
    pub fn checkpoint(&self) -> PathBuf {
        self.dir.join(CHECKPOINT)
    }

    /// `OUT/.sphrigid.lock`.
    pub fn lock(&self) -> PathBuf {
        self.dir.join(LOCK)
    }

    /// The files of a run that lie in the directory now: manifest, tables, checkpoint, failed
    /// contact problems, fluid and body frames (the names above, nothing else), the temporary
    /// files a killed run left, and the exports made from them. The lock file is not among
    /// them.
    pub fn own_files(&self) -> Vec<PathBuf> {
        let mut out: Vec<PathBuf> = [
            MANIFEST,
            RIGID_STATES,
            JOINT_ERRORS,
            RUN_METRICS,
            GAUGES,
            BODY_LOADS,
            WALL_LOADS,
        ]
        .into_iter()
        .chain([CHECKPOINT, USD_STAGE])
        .map(|f| self.dir.join(f))
        .filter(|p| p.is_file())
        .collect();
        let frame = |stem: &str, ext: &str, name: &str| {
            name.strip_suffix(ext)
                .and_then(|n| n.rsplit_once('_'))
                .is_some_and(|(s, d)| {
                    (stem.is_empty() || s == stem)
                        && !s.is_empty()
                        && d.len() == 5
                        && d.bytes().all(|b| b.is_ascii_digit())
                })
        };
        let failed = |name: &str| {
            name.strip_prefix("failed_lcp_")
                .and_then(|n| n.strip_suffix(".json"))
                .is_some_and(|d| !d.is_empty() && d.bytes().all(|b| b.is_ascii_digit()))
        };
        let vtk = self.vtk_dir();
        let folders: [(PathBuf, &NamePredicate); 8] = [
            (self.dir.clone(), &|n| failed(n) || is_temp(n)),
            (self.fluid_dir(), &|n| {
                frame("fluid", ".ply", n) || is_temp(n)
            }),
            (self.rigid_dir(), &|n| frame("", ".ply", n) || is_temp(n)),
            (self.surface_dir(), &|n| {
                frame("surface", ".ply", n) || is_temp(n)
            }),
            (vtk.clone(), &|n| n.ends_with(".pvd")),
            (vtk.join(FLUID_DIR), &|n| frame("fluid", ".vtu", n)),
            (vtk.join(RIGID_DIR), &|n| frame("", ".vtu", n)),
            (vtk.join(SURFACE_DIR), &|n| frame("surface", ".vtu", n)),
        ];
        for (dir, own) in folders {
            let Ok(entries) = std::fs::read_dir(&dir) else {
                continue;
            };
            let mut names: Vec<PathBuf> = entries
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.is_file() && p.file_name().and_then(|n| n.to_str()).is_some_and(own))
                .collect();
            names.sort();
            out.extend(names);
        }
        out
    }

    /// The frames after `frame` and the failed contact problems after step `step` that lie in
    /// the directory, and the temporary files of a killed run: what a run resumed at that
    /// frame and step has not written yet.
    pub fn written_after(&self, frame: u32, step: u64) -> Vec<PathBuf> {
        let index = |p: &Path| -> Option<u64> {
            let name = p.file_name()?.to_str()?;
            let stem = name
                .strip_suffix(".ply")
                .or_else(|| name.strip_suffix(".json"))?;
            stem.rsplit_once('_')?.1.parse().ok()
        };
        self.own_files()
            .into_iter()
            .filter(|p| {
                let parent = p.parent().unwrap_or(&self.dir);
                if p.file_name().and_then(|n| n.to_str()).is_some_and(is_temp) {
                    return true;
                }
                let limit = if parent == self.fluid_dir()
                    || parent == self.rigid_dir()
                    || parent == self.surface_dir()
                {
                    u64::from(frame)
                } else if parent == self.dir && p.extension().is_some_and(|e| e == "json") {
                    step
                } else {
                    return false;
                };
                index(p).is_some_and(|i| i > limit)
            })
            .collect()
    }

    /// `OUT/vtk/`, where `sphrigid export --to vtk` writes by default.
    pub fn vtk_dir(&self) -> PathBuf {
        self.dir.join(VTK_DIR)
    }

    /// The VTK file of fluid frame `index`, relative to the VTK export folder.
    pub fn vtk_fluid_name(index: u32) -> String {
        format!("{FLUID_DIR}/fluid_{index:05}.vtu")
    }

    /// The time series of body `body`, relative to the VTK export folder.
    pub fn vtk_body_series(body: &str) -> String {
        format!("{body}.pvd")
    }

    /// The VTK file of body `body`'s frame `index`, relative to the VTK export folder.
    pub fn vtk_body_name(body: &str, index: u32) -> String {
        format!("{RIGID_DIR}/{body}_{index:05}.vtu")
    }

    /// The VTK file of frame `index`'s liquid surface, relative to the VTK export folder.
    pub fn vtk_surface_name(index: u32) -> String {
        format!("{SURFACE_DIR}/surface_{index:05}.vtu")
    }

    /// `OUT/run.usda`, where `sphrigid export --to usd` writes by default.
    pub fn usd_stage(&self) -> PathBuf {
        self.dir.join(USD_STAGE)
    }

    /// The name of the failed contact problem of step `step`, relative to the directory.
    pub fn failed_lcp_name(step: u64) -> String {
        format!("failed_lcp_{step}.json")
    }

    /// `OUT/failed_lcp_<step>.json`.
    pub fn failed_lcp(&self, step: u64) -> PathBuf {
        self.dir.join(Self::failed_lcp_name(step))
    }
}

/// A test on a file's name.
type NamePredicate<'a> = dyn Fn(&str) -> bool + 'a;

/// Whether `name` is a temporary file of [`super::write_atomic`] (`.NAME.PID.tmp`).
fn is_temp(name: &str) -> bool {
    name.strip_prefix('.')
        .and_then(|n| n.strip_suffix(".tmp"))
        .and_then(|n| n.rsplit_once('.'))
        .is_some_and(|(f, pid)| !f.is_empty() && pid.bytes().all(|b| b.is_ascii_digit()))
}

/// The input error for a path that is not (part of) a finished run, saying `what` is wrong.
pub fn not_a_run(path: &Path, what: &str) -> Error {
    Error::input(format!(
        "{}: {what}; fix: give the output directory of a finished `sphrigid run` (the one holding manifest.json)",
        path.display()
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_the_run_layout() {
        let run = RunDir::new(Path::new("out"));
        assert_eq!(run.fluid_frame(7), Path::new("out/fluid/fluid_00007.ply"));
        assert_eq!(
            run.body_frame("lid", 12),
            Path::new("out/rigid/lid_00012.ply")
        );
        assert_eq!(
            run.surface_frame(7),
            Path::new("out/surface/surface_00007.ply")
        );
        assert_eq!(run.failed_lcp(42), Path::new("out/failed_lcp_42.json"));
        assert_eq!(run.manifest(), Path::new("out/manifest.json"));
        assert_eq!(run.rigid_states(), Path::new("out/rigid_states.csv"));
        assert_eq!(run.joint_errors(), Path::new("out/joint_errors.csv"));
        assert_eq!(run.run_metrics(), Path::new("out/run_metrics.csv"));
        assert_eq!(run.checkpoint(), Path::new("out/checkpoint.bin"));
    }

    #[test]
    fn own_files_are_the_run_files_and_nothing_else() {
        let tmp = tempfile::tempdir().unwrap();
        let run = RunDir::new(tmp.path());
        for d in ["fluid", "rigid", "surface", "vtk/fluid", "notes"] {
            std::fs::create_dir_all(tmp.path().join(d)).unwrap();
        }
        let ours = [
            "manifest.json",
            "checkpoint.bin",
            "failed_lcp_42.json",
            "fluid/fluid_00003.ply",
            "fluid/.fluid_00004.ply.1234.tmp",
            "rigid/lid_00012.ply",
            "surface/surface_00003.ply",
            "vtk/fluid.pvd",
            "vtk/fluid/fluid_00001.vtu",
        ];
        let theirs = [
            "notes.txt",
            "failed_lcp_x.json",
            "fluid/fluid_3.ply",
            "fluid/render.ply",
            "rigid/_00001.ply",
            "surface/fluid_00001.ply",
            "notes/fluid_00001.ply",
            ".sphrigid.lock",
        ];
        for f in ours.iter().chain(&theirs) {
            std::fs::write(tmp.path().join(f), b"x").unwrap();
        }
        let mut got: Vec<String> = run
            .own_files()
            .iter()
            .map(|p| p.strip_prefix(tmp.path()).unwrap().display().to_string())
            .collect();
        got.sort();
        let mut want: Vec<String> = ours.iter().map(|s| s.to_string()).collect();
        want.sort();
        assert_eq!(got, want);
        std::fs::write(run.fluid_frame(2), b"x").unwrap();
        let after = |f, s| -> Vec<String> {
            run.written_after(f, s)
                .iter()
                .map(|p| p.strip_prefix(tmp.path()).unwrap().display().to_string())
                .collect()
        };
        assert_eq!(
            after(2, 42),
            [
                "fluid/.fluid_00004.ply.1234.tmp",
                "fluid/fluid_00003.ply",
                "rigid/lid_00012.ply",
                "surface/surface_00003.ply"
            ]
        );
        assert_eq!(
            after(12, 41),
            ["failed_lcp_42.json", "fluid/.fluid_00004.ply.1234.tmp"]
        );
    }
}
