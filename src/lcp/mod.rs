//! Linear complementarity solvers: dense Lemke and Dantzig, and the structured contact form.
pub mod dantzig;
pub mod lemke;
pub mod matrix;
pub mod options;
pub mod problem;
pub mod solution;

pub use dantzig::dantzig;
pub use lemke::lemke;
pub use matrix::DenseMatrix;
pub use options::{Options, TieBreak};
pub use problem::DenseProblem;
pub use solution::{Outcome, Residuals, Solution};
pub mod block_pivot;
pub mod structured;
pub use block_pivot::solve_structured;
pub use structured::{BodyTerm, ParticleTerm, StructuredProblem, StructuredRow, body_inverse_mass};
pub mod io;
pub mod sample;
