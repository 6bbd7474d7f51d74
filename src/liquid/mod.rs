//! The liquid: Clavet et al. 2005 double-density relaxation SPH on the CPU, one module per
//! phase of the step.
pub mod boundary;
pub mod grid;
pub mod neighbours;
pub mod params;
pub mod particles;
pub mod relaxation;
pub mod step;
pub mod viscosity;
pub mod walls;

pub use params::LiquidParams;
pub use particles::{LatticeBlock, Particles};
pub use step::LiquidSolver;
