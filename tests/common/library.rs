//! Helpers that need only the library, no binary: shared with the crate's own unit tests, which
//! include this file (`src/sim/tests/common.rs`), where `sphrigid` names the crate itself.
use sphrigid::scene::{self, LoadedScene};
use std::path::Path;

/// Parse and validate scene text as if it came from `test.toml`.
pub fn scene(text: &str) -> LoadedScene {
    scene::parse(text.to_string(), Path::new("test.toml"), &[]).expect("the test scene is valid")
}

/// The project's generator drawn in f32 for particle positions and velocities.
pub struct Rng(pub sphrigid::rng::XorShift);

impl Rng {
    /// A generator for `seed`.
    pub fn new(seed: u64) -> Rng {
        Rng(sphrigid::rng::XorShift::new(seed))
    }

    /// Uniform in [0, 1).
    pub fn next(&mut self) -> f32 {
        self.0.unit() as f32
    }

    /// Uniform in [-a, a).
    pub fn sym(&mut self, a: f32) -> f32 {
        (2.0 * self.next() - 1.0) * a
    }
}
