//! The liquid: Clavet et al. 2005 double-density relaxation SPH on the CPU, one module per
//! phase of the step, and the [`Liquid`] interface that every backend (this CPU solver,
//! [`CpuLiquid`], and the GPU one in `gpu/`) implements. It imports no backend.
pub mod backend;
#[cfg(test)]
mod boundary_tests;
pub mod candidates;
pub mod cpu;
pub mod gauge;
pub mod grid;
pub mod lanes;
pub mod neighbours;
pub mod pair_scatter;
pub mod params;
pub mod particles;
pub mod relaxation;
pub mod step;
pub mod viscosity;

pub use backend::{BodyParticle, BodyReach, Carried, DeviceReport, Liquid, NearBody};
pub use cpu::CpuLiquid;
pub use params::LiquidParams;
pub use particles::{LatticeBlock, Particles};
pub use step::LiquidSolver;
