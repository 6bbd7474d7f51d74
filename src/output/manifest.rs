//! `OUT/manifest.json`: what a run wrote, rewritten after every frame.
use serde::Serialize;
use std::collections::BTreeMap;

/// One written frame.
#[derive(Debug, Clone, Serialize)]
pub struct FrameEntry {
    /// Frame index (0 is the initial state).
    pub index: u32,
    /// Simulated time, s.
    pub time: f64,
    /// The fluid PLY, relative to the output directory.
    pub fluid: String,
    /// Further files of this frame (rigid bodies), by kind.
    #[serde(flatten)]
    pub extra: BTreeMap<String, serde_json::Value>,
}

/// A step whose contact LCP fell back to penalty.
#[derive(Debug, Clone, Serialize)]
pub struct FallbackEntry {
    /// The step, numbered from 1.
    pub step: u64,
    /// Simulated time at its end, s.
    pub time: f64,
    /// Contact rows of its LCP.
    pub rows: usize,
    /// The solver's outcome.
    pub outcome: String,
    /// Its problem, relative to the output directory, for `sphrigid lcp solve`.
    pub problem: String,
}

/// Units of every quantity in the outputs.
#[derive(Debug, Clone, Serialize)]
pub struct Units {
    /// Length unit.
    pub length: &'static str,
    /// Time unit.
    pub time: &'static str,
    /// Velocity unit.
    pub velocity: &'static str,
    /// Density unit.
    pub density: &'static str,
}

/// The whole manifest.
#[derive(Debug, Clone, Serialize)]
pub struct Manifest {
    /// The program that wrote it.
    pub program: &'static str,
    /// Its version.
    pub version: &'static str,
    /// The scene file.
    pub scene_file: String,
    /// The scene as run (after `--set` and defaults).
    pub scene: serde_json::Value,
    /// Units.
    pub units: Units,
    /// The compute backend used.
    pub backend: String,
    /// Number of liquid particles.
    pub particles: usize,
    /// Liquid particles removed at setup because they started inside a body.
    pub removed_inside_bodies: usize,
    /// Liquid particle radius, m (half the spacing).
    pub particle_radius: f64,
    /// Kernel radius h, m.
    pub kernel_radius: f64,
    /// Rest kernel sum measured on the initial lattice.
    pub rest_kernel_sum: f64,
    /// Frames per second.
    pub fps: f64,
    /// Step size, s.
    pub dt: f64,
    /// Steps per frame.
    pub substeps: u32,
    /// Whether the run finished every frame it was asked for.
    pub complete: bool,
    /// Steps whose contact LCP was not solved and fell back to penalty (`coupling.on_failure`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub lcp_fallbacks: Vec<FallbackEntry>,
    /// The frames written so far.
    pub frames: Vec<FrameEntry>,
}

impl Manifest {
    /// The standard units.
    pub fn si_units() -> Units {
        Units {
            length: "m",
            time: "s",
            velocity: "m/s",
            density: "kg/m^3",
        }
    }
}
