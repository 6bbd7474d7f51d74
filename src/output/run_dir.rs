//! The run directory and the name of every file in it. `sphrigid run` writes, and `figure`
//! reads, a run only through paths that [`RunDir`] gives:
//!
//! | file | written by |
//! |---|---|
//! | `manifest.json` | [`super::manifest`] |
//! | `fluid/fluid_NNNNN.ply` | [`super::fluid_frames`] |
//! | `rigid/<body>_NNNNN.ply` | [`super::rigid_frames`] |
//! | `rigid_states.csv` | [`super::rigid_states`] |
//! | `joint_errors.csv` | [`super::joint_errors`] |
//! | `failed_lcp_<step>.json` | [`super::failed_lcp`] |
//! | `run_metrics.csv` | [`super::run_metrics`] |
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
/// The bodies' states table.
pub const RIGID_STATES: &str = "rigid_states.csv";
/// The joints' errors table.
pub const JOINT_ERRORS: &str = "joint_errors.csv";
/// The per-frame energy and leak table.
pub const RUN_METRICS: &str = "run_metrics.csv";
/// The default folder of the VTK export.
pub const VTK_DIR: &str = "vtk";
/// The fluid's time series in a VTK export folder.
pub const VTK_FLUID_SERIES: &str = "fluid.pvd";
/// The default USD stage of the run.
pub const USD_STAGE: &str = "run.usda";

/// A run's output directory: where each of its files lies.
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
        assert_eq!(run.failed_lcp(42), Path::new("out/failed_lcp_42.json"));
        assert_eq!(run.manifest(), Path::new("out/manifest.json"));
        assert_eq!(run.rigid_states(), Path::new("out/rigid_states.csv"));
        assert_eq!(run.joint_errors(), Path::new("out/joint_errors.csv"));
        assert_eq!(run.run_metrics(), Path::new("out/run_metrics.csv"));
    }
}
