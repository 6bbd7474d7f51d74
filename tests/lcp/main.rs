//! The linear complementarity solvers: random, structured and boxed problems, reference solutions,
//! and contact problems replayed from runs.
//! One test binary per area, so the crate is linked a few times rather than once per file.
mod boxed;
mod cli;
#[path = "../common/mod.rs"]
mod common;
mod contact_failures;
mod dam_block;
mod random;
mod reference;
mod structured;
