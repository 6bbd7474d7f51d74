//! Run outputs: PLY frames, the manifest, all written atomically.
pub mod atomic;
pub mod frames;
pub mod manifest;
pub mod ply;

pub use atomic::{create_dir, write_atomic};
pub use frames::FrameWriter;
pub use manifest::{FallbackEntry, FrameEntry, Manifest};
