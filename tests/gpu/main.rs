//! The GPU backend (lavapipe where there is no GPU): each pass against its CPU twin, whole runs
//! against the CPU backend (an emitting one too), split dispatches.
//! One test binary per area, so the crate is linked a few times rather than once per file.
mod backend;
#[path = "../common/mod.rs"]
mod common;
mod sources;
mod split;
