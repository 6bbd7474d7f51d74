//! Tests that reach into the crate below the simulation: the GPU passes against their CPU twins,
//! the GPU backend's memory, timing and choice, the coupled LCP step and debris in a tank.
mod common;
mod debris;
mod gpu_backend;
mod gpu_passes;
mod lcp_step;
