//! Coupling the liquid and the bodies: contact detection (and, to come, the contact LCP).
pub mod inside;
pub mod liquid_body;

pub use liquid_body::{LiquidBodyContact, SurfaceIndex};
