//! The coupling's settings: how contacts are resolved, by which LCP solver, what an unsolved
//! LCP does, the liquid's restitution and the penalty springs (`sim::build` fills them from the
//! scene's `[coupling]` table).
use super::penalty::PenaltyParams;

/// How contacts are resolved: exactly through the LCP, or by penalty springs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum CouplingMethod {
    /// Every contact of a step in one linear complementarity problem, solved exactly.
    #[default]
    Lcp,
    /// A spring and a damper on each contact's penetration (for comparison).
    Penalty,
}

/// Which solver the LCP coupling uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum LcpSolverChoice {
    /// Block pivoting on the structured form (fast, exact).
    #[default]
    BlockPivot,
    /// Dantzig principal pivoting on the dense matrix (reference; boxed rows allowed).
    Dantzig,
    /// Lemke's method on the dense matrix (reference; no friction).
    Lemke,
}

/// What a step does when its contact LCP is not solved.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum OnLcpFailure {
    /// Go on with the closest answer the solvers reached, and report it.
    #[default]
    Continue,
    /// Stop the run, keep the frames so far and write the problem for `sphrigid lcp solve`.
    Stop,
    /// Resolve that step's contacts by penalty instead, and log it.
    Penalty,
}

/// Everything a [`super::Coupler`] is told besides the bodies.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CouplingParams {
    /// Exact LCP or penalty springs.
    pub method: CouplingMethod,
    /// The LCP solver.
    pub solver: LcpSolverChoice,
    /// What an unsolved LCP does.
    pub on_failure: OnLcpFailure,
    /// The liquid's restitution against bodies, 0..1 (a contact's is the geometric mean of
    /// this and the body's).
    pub liquid_restitution: f64,
    /// Whether films between bodies and walls pass their liquid's pressure to the bodies.
    pub film_pressure: bool,
    /// The penalty springs, and the friction between liquid and bodies.
    pub penalty: PenaltyParams,
}
