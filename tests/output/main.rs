//! What a run writes and what reads it back: frames, manifests, resume, exports, surfaces, figures,
//! sweeps, Blender, frame hashes and determinism.
//! One test binary per area, so the crate is linked a few times rather than once per file.
mod blender;
#[path = "../common/mod.rs"]
mod common;
mod determinism;
mod export;
mod figure;
mod files;
mod frame_hashes;
mod resume;
mod surface;
mod sweep_jobs;
