//! The `[time]` table: frames, frame rate and time stepping, and its checks.
use super::locate::KeyPath;
use super::problem::{Checked, fail};
use serde::{Deserialize, Serialize};

/// Frames, frame rate and time stepping.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TimeSpec {
    /// Frames written per simulated second.
    #[serde(default = "default_fps")]
    pub fps: f64,
    /// Number of frames to simulate after the initial frame 0.
    #[serde(default = "default_frames")]
    pub frames: u32,
    /// Solver steps per frame; when absent it follows from `dt`, else from the CFL number.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub substeps: Option<u32>,
    /// Largest time step, s; the step is shortened so that a whole number of steps fills a frame.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dt: Option<f64>,
}

fn default_fps() -> f64 {
    60.0
}
fn default_frames() -> u32 {
    60
}

impl Default for TimeSpec {
    fn default() -> Self {
        TimeSpec {
            fps: default_fps(),
            frames: default_frames(),
            substeps: None,
            dt: None,
        }
    }
}

impl TimeSpec {
    /// Check the table found at `at`: a positive frame rate, and a step and substeps that
    /// fill a frame.
    pub fn check(&self, at: &KeyPath) -> Checked {
        let t = self;
        if !(t.fps.is_finite() && t.fps > 0.0) {
            return fail(
                at.key("fps"),
                format!("{} is not a positive number", t.fps),
                "use a frame rate such as 60",
            );
        }
        if t.substeps == Some(0) {
            return fail(
                at.key("substeps"),
                "0 steps per frame",
                "use 1 or more, or leave it out to choose from the CFL number",
            );
        }
        if let Some(dt) = t.dt {
            let p = at.key("dt");
            if !(dt.is_finite() && dt > 0.0) {
                return fail(
                    p,
                    format!("{dt} is not a positive time"),
                    "give the largest step in seconds, e.g. 0.0005",
                );
            }
            if dt * t.fps > 1.0 + 1e-12 {
                return fail(
                    p,
                    format!("{dt} s is longer than a frame (1/{} s)", t.fps),
                    "use a step no longer than 1/fps",
                );
            }
            if let Some(n) = t.substeps
                && (dt * t.fps * n as f64 - 1.0).abs() > 1e-9
            {
                return fail(
                    p,
                    format!("{dt} s disagrees with substeps = {n} at {} fps", t.fps),
                    "give either time.dt or time.substeps, not both",
                );
            }
        }
        Ok(())
    }
}
