//! The bodies' boundary particles gathered in WGSL (shaders/gpu/bodies.wgsl): their kernel
//! sums at a point over a block of the liquid grid's cells, appended to the density pass (the
//! bodies' share of each particle's sums) and the relaxation pass (where a wall's ghost stands
//! for a body's image); the CPU twin is `BoundaryGrid::sums`, held to it by the passes' tests
//! in src/sim/tests/gpu_passes.rs.

/// The gather every pass that sums the bodies' particles appends.
pub const WGSL: &str = include_str!("../../shaders/gpu/bodies.wgsl");
