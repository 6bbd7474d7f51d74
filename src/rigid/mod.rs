//! Rigid bodies as clumps of sphere particles: mass properties, sampling, motion.
pub(crate) mod body;
pub(crate) mod clump;
pub mod free_rotation;
pub(crate) mod integrators;
pub mod mass_properties;
pub mod mesh;
pub(crate) mod motion;
pub(crate) mod occupancy;
pub(crate) mod primitives;
pub(crate) mod sampling;
pub(crate) mod shape;
pub(crate) mod state;

pub use body::RigidBody;
pub use clump::Clump;
pub use integrators::Integrator;
pub use mass_properties::MassProperties;
pub use mesh::TriMesh;
pub use primitives::Primitive;
pub use shape::{MeshSolid, Shape};
pub use state::{BodyState, Inertia};

#[cfg(test)]
pub(crate) mod tests;
