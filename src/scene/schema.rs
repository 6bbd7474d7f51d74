//! The scene file's root table: its top-level keys and one field per table (`[time]`,
//! `[solver]`, `[container]`, `[output]`, `[[liquid]]`, `[[body]]`, `[coupling]`, `[[joint]]`, `[[gauge]]`, `[[emitter]]`, `[[outlet]]`), each table's
//! type living in the module named after it.
use super::body::BodySpec;
use super::coupling::CouplingSpec;
use super::gauge::GaugeSpec;
use super::joint::JointSpec;
use super::liquid::{Container, LiquidBlock, SolverSpec};
use super::output::OutputSpec;
use super::sources::{EmitterSpec, OutletSpec};
use super::time::TimeSpec;
use serde::{Deserialize, Serialize};

/// A whole scene, as read from a TOML file. Unknown keys are rejected.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Scene {
    /// Where the run writes (`output = "dir"`) and what besides the frames (`[output]`
    /// with `dir` and `surface`); see `scene::output`.
    #[serde(default, skip_serializing_if = "OutputSpec::is_default")]
    pub output: OutputSpec,
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
    /// Water-height and pressure gauges (`[[gauge]]` tables); see `scene::gauge`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub gauge: Vec<GaugeSpec>,
    /// Nozzles that let liquid in (`[[emitter]]` tables); see `scene::sources`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub emitter: Vec<EmitterSpec>,
    /// Regions whose liquid leaves the run (`[[outlet]]` tables); see `scene::sources`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub outlet: Vec<OutletSpec>,
}

fn default_gravity() -> [f64; 3] {
    [0.0, -9.81, 0.0]
}
