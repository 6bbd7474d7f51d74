//! Tests that reach into the crate below the simulation: the GPU passes against their CPU twins,
//! the GPU backend's memory, timing and choice, particles edited between steps on the GPU and
//! the CPU backend, the coupled LCP step, debris in a tank, the surface worker and shaped
//! liquid blocks.
mod common;
mod debris;
mod gpu_backend;
mod gpu_contact_passes;
mod gpu_edits;
mod gpu_passes;
mod lcp_step;
mod liquid_shapes;
mod surfaces;
