//! The scene file's structure: every key a scene may hold, with its default.
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
    /// Rigid bodies (`[[body]]` tables), each a clump of particles; see `rigid::spec`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub body: Vec<crate::rigid::BodySpec>,
    /// How contacts between liquid, bodies and walls are resolved.
    #[serde(default)]
    pub coupling: CouplingSpec,
    /// Joints between bodies (`[[joint]]` tables); see `joints::spec`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub joint: Vec<crate::joints::JointSpec>,
}

/// How contacts are resolved: exactly through the LCP, or by penalty springs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CouplingMethod {
    /// Every contact of a step in one linear complementarity problem, solved exactly.
    #[default]
    Lcp,
    /// A spring and a damper on each contact's penetration (for comparison).
    Penalty,
}

/// Which solver the LCP coupling uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LcpSolverChoice {
    /// Block pivoting on the structured form (fast, exact).
    #[default]
    Structured,
    /// Dantzig principal pivoting on the dense matrix (reference; boxed rows allowed).
    Dantzig,
    /// Lemke's method on the dense matrix (reference; no friction).
    Lemke,
}

/// What a step does when its contact LCP is not solved.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum OnLcpFailure {
    /// Stop the run, keep the frames so far and write the problem for `sphrigid lcp solve`.
    #[default]
    Stop,
    /// Resolve that step's contacts by penalty instead, and log it.
    Penalty,
}

/// The `[coupling]` table.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CouplingSpec {
    /// `"lcp"` or `"penalty"`.
    #[serde(default)]
    pub method: CouplingMethod,
    /// LCP solver: `"structured"`, `"dantzig"` or `"lemke"`.
    #[serde(default)]
    pub solver: LcpSolverChoice,
    /// What an unsolved LCP does: `"stop"` or `"penalty"`.
    #[serde(default)]
    pub on_failure: OnLcpFailure,
    /// Coulomb friction between liquid particles and bodies.
    #[serde(default)]
    pub liquid_friction: f64,
    /// The liquid's restitution against bodies, 0..1 (a contact's is the geometric mean of
    /// this and the body's).
    #[serde(default = "default_liquid_restitution")]
    pub liquid_restitution: f64,
    /// Penalty spring stiffness per contact, N/m; absent: each contact's effective mass times
    /// `(2 pi / (penalty_contact_steps dt))^2`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub penalty_stiffness: Option<f64>,
    /// Steps per contact oscillation period when the stiffness is automatic.
    #[serde(default = "default_penalty_contact_steps")]
    pub penalty_contact_steps: f64,
    /// Penalty damping as a fraction of critical damping.
    #[serde(default = "default_penalty_damping")]
    pub penalty_damping: f64,
}

impl Default for CouplingSpec {
    fn default() -> Self {
        CouplingSpec {
            method: CouplingMethod::default(),
            solver: LcpSolverChoice::default(),
            on_failure: OnLcpFailure::default(),
            liquid_friction: 0.0,
            liquid_restitution: default_liquid_restitution(),
            penalty_stiffness: None,
            penalty_contact_steps: default_penalty_contact_steps(),
            penalty_damping: default_penalty_damping(),
        }
    }
}

fn default_liquid_restitution() -> f64 {
    0.5
}

fn default_penalty_contact_steps() -> f64 {
    10.0
}
fn default_penalty_damping() -> f64 {
    0.5
}

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

/// Solver settings shared by all liquid blocks.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SolverSpec {
    /// Jacobi passes of double-density relaxation per step.
    #[serde(default = "default_relaxation_passes")]
    pub relaxation_passes: u32,
    /// Courant number used to choose substeps when `time.substeps` is absent.
    #[serde(default = "default_cfl")]
    pub cfl: f64,
}

/// An axis-aligned box of static walls.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Container {
    /// Lower corner, m.
    pub min: [f64; 3],
    /// Upper corner, m.
    pub max: [f64; 3],
    /// Normal restitution of liquid against the walls, 0..1.
    #[serde(default)]
    pub restitution: f64,
    /// Coulomb friction coefficient of liquid against the walls.
    #[serde(default)]
    pub friction: f64,
}

/// A box of liquid and the parameters of its particles.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LiquidBlock {
    /// Lower corner of the region filled, m.
    pub min: [f64; 3],
    /// Upper corner of the region filled, m.
    pub max: [f64; 3],
    /// Lattice spacing between particles, m (the particle diameter).
    #[serde(default = "default_spacing")]
    pub spacing: f64,
    /// Rest density, kg/m^3; a particle's mass is density * spacing^3.
    #[serde(default = "default_density")]
    pub density: f64,
    /// Pressure stiffness k in m^2/s^2 (about the squared speed of sound).
    #[serde(default = "default_stiffness")]
    pub stiffness: f64,
    /// Near-pressure stiffness k_near in m^2/s^2 (keeps particles apart, gives surface tension).
    #[serde(default = "default_near_stiffness")]
    pub near_stiffness: f64,
    /// Kernel radius h as a multiple of the spacing.
    #[serde(default = "default_kernel_radius")]
    pub kernel_radius: f64,
    /// Keep negative pressures (Clavet's cohesion and surface tension, for goo and drops);
    /// off clamps the pressure at zero, as water at these scales needs.
    #[serde(default)]
    pub cohesion: bool,
    /// Initial velocity, m/s.
    #[serde(default)]
    pub velocity: [f64; 3],
    /// Viscosity impulses.
    #[serde(default)]
    pub viscosity: Viscosity,
}

/// Clavet's viscosity impulse coefficients.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Viscosity {
    /// Linear coefficient sigma, 1/s.
    #[serde(default)]
    pub sigma: f64,
    /// Quadratic coefficient beta, 1/m.
    #[serde(default)]
    pub beta: f64,
}

fn default_gravity() -> [f64; 3] {
    [0.0, -9.81, 0.0]
}
fn default_fps() -> f64 {
    60.0
}
fn default_frames() -> u32 {
    60
}
fn default_relaxation_passes() -> u32 {
    1
}
fn default_cfl() -> f64 {
    0.4
}
fn default_spacing() -> f64 {
    0.01
}
fn default_density() -> f64 {
    1000.0
}
fn default_stiffness() -> f64 {
    100.0
}
fn default_near_stiffness() -> f64 {
    1.0
}
fn default_kernel_radius() -> f64 {
    2.0
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

impl Default for SolverSpec {
    fn default() -> Self {
        SolverSpec {
            relaxation_passes: default_relaxation_passes(),
            cfl: default_cfl(),
        }
    }
}
