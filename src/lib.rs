//! sphrigid: liquid (Clavet et al. 2005 SPH) and rigid bodies made of particles, coupled through
//! an exact linear complementarity solve, written as PLY frame sequences.
pub mod backend;
pub mod boundary;
pub mod bounded_read;
pub mod cli;
pub mod coupling;
pub mod error;
pub mod figure;
pub mod gpu;
pub mod joints;
pub mod lcp;
pub mod liquid;
pub mod output;
pub mod rigid;
pub mod rng;
pub mod scene;
pub mod sim;
pub mod surface;
pub mod sweep;
pub mod timing;

pub use error::{Error, Result};
