//! The liquid's surface, in one test binary: the reconstruction on lattices whose surface is
//! known (`mesh.rs`), and surfaces in runs, from `sphrigid surface`, `run --surface` and
//! `--resume` (`run.rs`).
#[path = "../common/mod.rs"]
mod common;
mod mesh;
mod run;
