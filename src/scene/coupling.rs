//! The `[coupling]` table: how contacts between liquid, bodies and walls are resolved, and
//! its checks (values in range, a method and solver that can take the scene's joints and
//! friction).
use super::body::BodySpec;
use super::locate::KeyPath;
use super::problem::{Checked, fail};
use serde::{Deserialize, Serialize};

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
    /// Block pivoting on the structured form (fast, exact); `"structured"` is its former name.
    #[default]
    #[serde(alias = "structured")]
    BlockPivot,
    /// Dantzig principal pivoting on the dense matrix (reference; boxed rows allowed).
    Dantzig,
    /// Lemke's method on the dense matrix (reference; no friction).
    Lemke,
}

/// What a step does when its contact LCP is not solved.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum OnLcpFailure {
    /// Go on with the closest answer the solvers reached, log its residual and count the
    /// step in `run_metrics.csv`.
    #[default]
    Continue,
    /// Stop the run, keep the frames so far and write the problem for `sphrigid lcp solve`.
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
    /// LCP solver: `"block_pivot"`, `"dantzig"` or `"lemke"`.
    #[serde(default)]
    pub solver: LcpSolverChoice,
    /// What an unsolved LCP does: `"continue"`, `"stop"` or `"penalty"`.
    #[serde(default)]
    pub on_failure: OnLcpFailure,
    /// Coulomb friction between liquid particles and bodies.
    #[serde(default)]
    pub liquid_friction: f64,
    /// The liquid's restitution against bodies, 0..1 (a contact's is the geometric mean of
    /// this and the body's).
    #[serde(default = "default_liquid_restitution")]
    pub liquid_restitution: f64,
    /// Whether a thin film of liquid between a body and a wall passes the pressure of the
    /// liquid it connects to on to the body (`boundary::film`).
    #[serde(default = "default_film_pressure")]
    pub film_pressure: bool,
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
            film_pressure: default_film_pressure(),
            penalty_stiffness: None,
            penalty_contact_steps: default_penalty_contact_steps(),
            penalty_damping: default_penalty_damping(),
        }
    }
}

fn default_film_pressure() -> bool {
    true
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

impl CouplingSpec {
    /// Check the table found at `at` against the scene's `bodies` and whether it has joints:
    /// values in range, and a reference solver that can take the scene's rows (Lemke solves
    /// standard LCPs only, so no friction).
    pub fn check(&self, at: &KeyPath, bodies: &[BodySpec], has_joints: bool) -> Checked {
        let (c, p) = (self, at);
        if !(c.liquid_friction.is_finite() && c.liquid_friction >= 0.0) {
            return fail(
                p.key("liquid_friction"),
                format!("{} is negative or not finite", c.liquid_friction),
                "use a friction coefficient >= 0",
            );
        }
        if !(c.liquid_restitution.is_finite() && (0.0..=1.0).contains(&c.liquid_restitution)) {
            return fail(
                p.key("liquid_restitution"),
                format!("{} is outside [0, 1]", c.liquid_restitution),
                "use a restitution between 0 (no bounce) and 1 (elastic)",
            );
        }
        if let Some(k) = c.penalty_stiffness
            && !(k.is_finite() && k > 0.0)
        {
            return fail(
                p.key("penalty_stiffness"),
                format!("{k} is not a positive stiffness"),
                "give N/m per contact, or leave it out for a stiffness from penalty_contact_steps",
            );
        }
        if !(c.penalty_contact_steps.is_finite() && c.penalty_contact_steps >= 4.0) {
            return fail(
                p.key("penalty_contact_steps"),
                format!("{} is below 4 steps", c.penalty_contact_steps),
                "use 4 or more steps per contact period (explicit springs are unstable below pi)",
            );
        }
        if !(c.penalty_damping.is_finite() && (0.0..=1.0).contains(&c.penalty_damping)) {
            return fail(
                p.key("penalty_damping"),
                format!("{} is outside [0, 1]", c.penalty_damping),
                "give a fraction of critical damping between 0 and 1",
            );
        }
        if c.method == CouplingMethod::Penalty && has_joints {
            return fail(
                p.key("method"),
                "joints hold only in the LCP, but the coupling is \"penalty\"",
                "use method = \"lcp\" in a scene with joints",
            );
        }
        if c.method == CouplingMethod::Lcp && c.solver == LcpSolverChoice::Lemke {
            let rough = bodies.iter().position(|b| b.friction > 0.0);
            if c.liquid_friction > 0.0 || rough.is_some() {
                let place = match rough {
                    Some(i) => format!("body[{i}] has friction {}", bodies[i].friction),
                    None => format!("liquid_friction is {}", c.liquid_friction),
                };
                return fail(
                    p.key("solver"),
                    format!("Lemke solves contacts without friction, but {place}"),
                    "use solver = \"dantzig\" or \"structured\", or set every friction to 0",
                );
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::LcpSolverChoice;
    use std::path::Path;

    fn solver(text: &str) -> LcpSolverChoice {
        let scene = format!(
            "[[liquid]]\nmin = [0, 0, 0]\nmax = [0.1, 0.1, 0.1]\nspacing = 0.01\n[coupling]\n{text}\n"
        );
        crate::scene::parse(scene, Path::new("s.toml"), &[])
            .expect("the scene parses")
            .scene
            .coupling
            .solver
    }

    #[test]
    fn the_block_pivoting_solver_is_read_by_its_name_and_its_former_name() {
        assert_eq!(solver(""), LcpSolverChoice::BlockPivot);
        assert_eq!(
            solver("solver = \"block_pivot\""),
            LcpSolverChoice::BlockPivot
        );
        assert_eq!(
            solver("solver = \"structured\""),
            LcpSolverChoice::BlockPivot
        );
        assert_eq!(solver("solver = \"dantzig\""), LcpSolverChoice::Dantzig);
    }
}
