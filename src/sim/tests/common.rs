//! Helpers of the unit tests: the integration tests' helpers that need no binary, included from
//! `tests/common/` (where `sphrigid` names this crate).
#![allow(dead_code)]
#[path = "../../../tests/common/gpu.rs"]
pub(super) mod gpu;
#[path = "../../../tests/common/library.rs"]
mod library;

pub use library::{Rng, scene};
