//! The scene file's root table: its top-level keys and one field per table (`[time]`,
//! `[solver]`, `[container]`, `[[liquid]]`, `[[body]]`, `[coupling]`, `[[joint]]`), each table's
//! type living in the module named after it.
use super::body::BodySpec;
use super::coupling::CouplingSpec;
use super::joint::JointSpec;
use super::liquid::{Container, LiquidBlock, SolverSpec};
use super::time::TimeSpec;
use serde::{Deserialize, Serialize};
use std::path::PathBuf;

/// A whole scene, as read from a TOML file. Unknown keys are rejected.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Scene {
    /// Output directory; `out/<scene file stem>` when absent. `--out` overrides it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output: Option<PathBuf>,
    /// Gravity in m/s^2.
    #[serde(default = "default_gravity")]
    pub gravity: [f64; 3],
    /// Frames, frame rate and time stepping.
    #[serde(default)]
    pub time: TimeSpec,
    /// Solver settings shared by all liquid blocks.
    #[serde(default)]
    pub solver: SolverSpec,
    /// The axis-aligned box that holds everything; none means no walls.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub container: Option<Container>,
    /// Liquid blocks, each filled with particles on a cubic lattice.
    #[serde(default)]
    pub liquid: Vec<LiquidBlock>,
    /// Rigid bodies (`[[body]]` tables), each a clump of particles; see `scene::body`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub body: Vec<BodySpec>,
    /// How contacts between liquid, bodies and walls are resolved.
    #[serde(default)]
    pub coupling: CouplingSpec,
    /// Joints between bodies (`[[joint]]` tables); see `scene::joint`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub joint: Vec<JointSpec>,
}

fn default_gravity() -> [f64; 3] {
    [0.0, -9.81, 0.0]
}
