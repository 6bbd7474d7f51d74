//! Rigid bodies and joints: mass properties, sampling, free rotation, scenes with bodies, and the
//! distance, ball and hinge joints.
//! One test binary per area, so the crate is linked a few times rather than once per file.
#[path = "../common/mod.rs"]
mod common;
mod free_rotation;
mod joints_chain;
mod joints_cli;
mod joints_distance;
mod joints_gate;
mod joints_lcp_rows;
mod joints_pendulum;
mod kinematic;
mod mass_properties;
mod rigid_body;
mod rigid_cli;
mod scene;
mod wave_maker;
