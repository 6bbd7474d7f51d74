//! Liquid and bodies together: contacts, buoyancy, floating, tipping, toppling, debris and the
//! coupling's stability.
//! One test binary per area, so the crate is linked a few times rather than once per file.
mod buoyancy;
#[path = "../common/mod.rs"]
mod common;
mod floating;
mod loads;
mod stability_sweep;
mod tipping;
mod toppling;
mod viscous_elastic;
