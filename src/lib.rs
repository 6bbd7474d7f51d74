//! sphrigid: liquid (Clavet et al. 2005 SPH) and rigid bodies made of particles, coupled through
//! an exact linear complementarity solve, written as PLY frame sequences.
//!
//! The public API is what the `sphrigid` binary, the integrations and an embedding program
//! need: [`scene`] reads and validates a scene, [`sim::Simulation`] steps it (or [`sim::run`]
//! runs it into a run directory as `sphrigid run` does), [`output`] reads a run's files back
//! and exports them, and [`lcp`], [`rigid`], [`joints`] and [`surface`] serve as libraries on
//! their own. Everything else is private; docs/src/design.md ("Public API") lists it.
//!
//! ```no_run
//! use sphrigid::backend::Backend;
//! use sphrigid::sim::Simulation;
//! use std::path::Path;
//!
//! let loaded = sphrigid::scene::load(Path::new("scenes/dam_break.toml"), &[])?;
//! let mut sim = Simulation::setup(&loaded, Backend::Cpu)?;
//! for _ in 0..10 {
//!     sim.advance_frame()?;
//! }
//! println!("{} particles at t = {} s", sim.particles().len(), sim.time);
//! # Ok::<(), sphrigid::Error>(())
//! ```
#![deny(missing_docs)]
pub mod backend;
mod boundary;
mod bounded_read;
pub mod cli;
mod coupling;
mod error;
mod figure;
mod gpu;
pub mod joints;
pub mod lcp;
mod liquid;
pub mod output;
pub mod rigid;
pub mod rng;
pub mod scene;
pub mod sim;
pub mod surface;
mod sweep;
mod timing;

pub use error::{Error, Result};

// The crate's unit tests share helper files with the integration tests (`tests/common/`), which
// name the crate `sphrigid`.
#[cfg(test)]
extern crate self as sphrigid;

/// Not API: the few internals that the integration tests which drive the binary also check
/// against (a GPU device, the figure's colours and sizes). Unstable, hidden.
#[doc(hidden)]
pub mod internals {
    /// The GPU device and its limits.
    pub mod gpu {
        pub use crate::gpu::buffers::check_fits;
        pub use crate::gpu::context::{AdapterKind, GpuContext, adapters, describe};
        pub use crate::liquid::grid::MAX_CELLS;
    }
    /// The figure's colour map.
    pub mod colormap {
        pub use crate::figure::colormap::is_viridis;
    }
    /// The figure's plots.
    pub mod plot {
        pub use crate::figure::plot::{HEIGHT, WIDTH};
    }
    /// The figure's frame strips.
    pub mod strip {
        pub use crate::figure::strip::{BACKGROUND, COLORBAR_W, GAP, View, body_color};
    }
}
