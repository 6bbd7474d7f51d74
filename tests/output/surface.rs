//! The liquid's surface: the reconstruction on lattices whose surface is
//! known (`mesh.rs`), and surfaces in runs, from `sphrigid surface`, `run --surface` and
//! `--resume` (`run.rs`).
mod mesh;
mod run;
