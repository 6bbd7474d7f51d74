//! The liquid: Clavet et al. 2005 double-density relaxation SPH on the CPU, one module per
//! phase of the step, and the [`Liquid`] interface that every backend (this CPU solver,
//! [`CpuLiquid`], and the GPU one in `gpu/`) implements. It imports no backend.
pub(crate) mod backend;
#[cfg(test)]
mod boundary_tests;
pub(crate) mod candidates;
pub(crate) mod cpu;
pub(crate) mod gauge;
pub(crate) mod grid;
pub(crate) mod lanes;
pub(crate) mod neighbours;
pub(crate) mod pair_scatter;
pub(crate) mod params;
pub(crate) mod particles;
pub(crate) mod relaxation;
pub(crate) mod step;
pub(crate) mod viscosity;

pub use backend::{BodyParticle, BodyReach, Carried, Liquid, NearBody};
pub use cpu::CpuLiquid;
pub use params::LiquidParams;
pub use particles::{LatticeBlock, Particles};
