//! Linear complementarity solvers: dense Lemke and Dantzig, and block pivoting on the
//! structured contact form.
//!
//! The module knows nothing of particles: it takes a matrix (dense, or structured as
//! `A = D + J W J^T`), a vector q and bounds, and returns a typed [`Solution`]. The coupling
//! calls [`block_pivot`] each step; a failing step can be dumped with [`io::save`] and
//! replayed with `sphrigid lcp solve`.
pub mod block_pivot;
mod boxed;
pub mod dantzig;
mod fixed_point;
pub mod io;
pub mod lemke;
pub mod matrix;
pub mod options;
pub mod pgs;
pub mod problem;
pub mod sample;
pub mod solution;
pub(crate) mod standard_form;
pub mod structured;

pub use block_pivot::block_pivot;
pub use dantzig::dantzig;
pub use lemke::lemke;
pub use matrix::DenseMatrix;
pub use options::{Options, TieBreak};
pub use problem::DenseProblem;
pub use solution::{Outcome, Residuals, Solution};
pub use structured::{BodyTerm, ParticleTerm, StructuredProblem, StructuredRow, body_inverse_mass};
