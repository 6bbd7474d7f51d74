//! Coupling the liquid and the bodies: contacts between liquid, bodies and walls, and the step
//! that resolves them (the exact LCP, or penalty springs for comparison).
pub mod assemble;
pub mod body_contacts;
pub mod correction;
pub mod coupler;
pub mod energy_check;
pub mod inside;
pub mod leak;
pub mod liquid_body;
pub mod params;
pub mod penalty;
pub mod touches;
pub mod wedge;

pub use body_contacts::BodyContact;
pub use coupler::{Coupler, CouplingFailure, CouplingReport};
pub use liquid_body::{LiquidBodyContact, SurfaceIndex};
pub use params::{CouplingMethod, CouplingParams, LcpSolverChoice, OnLcpFailure};
