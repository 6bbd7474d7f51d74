//! Rigid bodies as clumps of sphere particles: mass properties, sampling, motion.
pub mod body;
pub mod clump;
pub mod free_rotation;
pub mod integrators;
pub mod mass_properties;
pub mod mesh;
pub mod motion;
pub mod occupancy;
pub mod primitives;
pub mod sampling;
pub mod shape;
pub mod state;

pub use body::RigidBody;
pub use clump::Clump;
pub use integrators::Integrator;
pub use mass_properties::MassProperties;
pub use mesh::TriMesh;
pub use primitives::Primitive;
pub use shape::{MeshSolid, Shape};
pub use state::{BodyState, Inertia};
