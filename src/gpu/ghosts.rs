//! The walls' ghost lattices walked one ghost at a time in WGSL (shaders/gpu/ghosts.wgsl),
//! appended to the density and relaxation passes for their sums and push under ghost pressure;
//! the CPU twins are `WallKernel::sums_once` and `WallKernel::push`, held to them by the
//! passes' tests in src/sim/tests/gpu_passes.rs.

/// The ghost walk every pass that sums or pushes with the walls' ghosts appends.
pub const WGSL: &str = include_str!("../../shaders/gpu/ghosts.wgsl");
