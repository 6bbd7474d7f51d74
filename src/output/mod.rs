//! The run directory: every file a run writes, each kind in its own module that writes it and
//! reads it back. [`RunDir`] knows where each file lies; frames, the manifest and the
//! checkpoint are written atomically (temporary file and rename, [`write`]), the tables are
//! appended a frame at a time, and `RunLock` (`lock.rs`) keeps the directory to one run. Sits below the
//! simulation (sim/runner.rs drives the writers; figure/ and the commands read runs through
//! the readers) and above the physics data it serialises (liquid, rigid, joints, lcp);
//! nothing in the physics imports it.
pub(crate) mod checkpoint;
pub(crate) mod checksum;
pub(crate) mod csv;
pub mod export;
pub(crate) mod failed_lcp;
pub mod fluid_frames;
pub mod gauges;
pub mod joint_errors;
pub mod loads;
pub(crate) mod lock;
pub mod manifest;
pub mod mesh_files;
pub(crate) mod ply;
pub(crate) mod resume_check;
pub(crate) mod rigid_frames;
pub mod rigid_states;
pub(crate) mod run_dir;
pub mod run_metrics;
pub mod surface_frames;
pub(crate) mod sweep_files;
pub mod usd;
pub mod vtk;
pub(crate) mod write;

pub(crate) use checkpoint::Checkpoint;
pub use fluid_frames::FrameWriter;
pub use gauges::GaugeWriter;
pub use joint_errors::JointErrorWriter;
pub use loads::{Load, LoadTable, LoadWriter};
pub use lock::Claim;
pub use manifest::{FallbackEntry, FrameEntry, Manifest};
pub(crate) use rigid_frames::RigidFrameWriter;
pub use rigid_states::StatesWriter;
pub use run_dir::RunDir;
pub use run_metrics::{MetricsRow, MetricsWriter};
pub(crate) use write::{create_dir, write_atomic, write_durable};
