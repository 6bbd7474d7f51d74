//! Coupling the liquid and the bodies: contacts between liquid, bodies and walls, and the LCP
//! step that resolves them.
pub mod body_contacts;
pub mod inside;
pub mod kernel_boundary;
pub mod lcp_step;
pub mod liquid_body;

pub use body_contacts::BodyContact;
pub use liquid_body::{LiquidBodyContact, SurfaceIndex};
