//! The command line: bench, bad input and its errors, failures named, and the scene fuzzer.
//! One test binary per area, so the crate is linked a few times rather than once per file.
mod bench;
#[path = "../common/mod.rs"]
mod common;
mod errors;
mod failures_named;
mod fuzz_scenes;
