//! Linear complementarity solvers: dense Lemke and Dantzig, and block pivoting on the
//! structured contact form.
//!
//! The module knows nothing of particles: it takes a matrix (dense, or structured as
//! `A = D + J W J^T`), a vector q and bounds, and returns a typed [`Solution`]. The coupling
//! calls [`block_pivot`] each step; a failing step can be dumped with [`io::save`] and
//! replayed with `sphrigid lcp solve`.
pub(crate) mod block_pivot;
mod boxed;
pub(crate) mod dantzig;
mod fixed_point;
pub mod io;
pub(crate) mod lemke;
pub(crate) mod matrix;
pub(crate) mod options;
pub(crate) mod pgs;
pub(crate) mod problem;
pub mod sample;
pub(crate) mod solution;
pub(crate) mod standard_form;
pub(crate) mod structured;

pub use block_pivot::block_pivot;
pub use dantzig::dantzig;
pub use lemke::lemke;
pub use matrix::DenseMatrix;
pub use options::{Options, TieBreak};
pub use problem::DenseProblem;
pub use solution::{Outcome, Residuals, Solution};
pub use structured::{BodyTerm, ParticleTerm, StructuredProblem, StructuredRow, body_inverse_mass};
