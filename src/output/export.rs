//! What the exporters (`vtk`, `usd`) share: the report of what they wrote and what they found
//! missing, which becomes one input-error line when anything was.
use super::manifest::{FrameRef, ManifestRead};
use crate::{Error, Result};
use std::path::{Path, PathBuf};

/// What an export wrote and what it could not read.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ExportReport {
    /// The main files written (the time series or the stage).
    pub files: Vec<PathBuf>,
    /// Frames exported.
    pub frames: usize,
    /// Frames the manifest lists.
    pub frames_listed: usize,
    /// Each missing or unreadable part, as one message (the run being incomplete among them).
    pub missing: Vec<String>,
}

impl ExportReport {
    /// A report for the frames of `manifest`, noting a run that did not finish.
    pub fn for_run(manifest: &ManifestRead) -> ExportReport {
        let mut r = ExportReport {
            frames_listed: manifest.frames.len(),
            ..Default::default()
        };
        if !manifest.complete {
            r.missing.push(format!(
                "the run is incomplete (manifest says \"complete\": false; frames 0..{} written)",
                manifest.frames.last().map_or(0, |f| f.index)
            ));
        }
        r
    }

    /// Record a part that could not be read.
    pub fn missing(&mut self, e: &Error) {
        self.missing.push(e.to_string());
    }

    /// Ok when nothing was missing; otherwise one input-error line saying what was missing,
    /// what was exported to `out` and the fix.
    pub fn into_result(self, run: &Path, out: &Path) -> Result<ExportReport> {
        if self.missing.is_empty() {
            return Ok(self);
        }
        let first = &self.missing[0];
        let more = match self.missing.len() {
            1 => String::new(),
            n => format!(" (and {} more)", n - 1),
        };
        Err(Error::input(format!(
            "{}: {first}{more}; exported the {} of {} listed frames that are complete to {}; fix: rerun the scene (`sphrigid run`) to finish the run or rewrite its missing files",
            run.display(),
            self.frames,
            self.frames_listed,
            out.display()
        )))
    }
}

/// The bodies named in any frame of the manifest, in name order.
pub fn body_names(frames: &[FrameRef]) -> Vec<String> {
    let mut names: Vec<String> = frames
        .iter()
        .flat_map(|f| f.rigid.keys().cloned())
        .collect();
    names.sort();
    names.dedup();
    names
}
