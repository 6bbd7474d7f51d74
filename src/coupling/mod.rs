//! Coupling the liquid and the bodies: contacts between liquid, bodies and walls, and the step
//! that resolves them (the exact LCP, or penalty springs for comparison).
pub(crate) mod assemble;
pub(crate) mod body_contacts;
pub(crate) mod correction;
pub(crate) mod coupler;
pub(crate) mod energy_check;
pub(crate) mod inside;
pub(crate) mod leak;
pub(crate) mod liquid_body;
pub(crate) mod params;
pub(crate) mod penalty;
pub(crate) mod touches;
pub(crate) mod wedge;

pub use coupler::{Coupler, CouplingFailure};
#[cfg(test)]
pub use liquid_body::SurfaceIndex;
pub use params::{CouplingMethod, CouplingParams, LcpSolverChoice, OnLcpFailure};

#[cfg(test)]
mod tests;
