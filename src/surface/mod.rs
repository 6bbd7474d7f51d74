//! Liquid surfaces: triangle meshes reconstructed from the particles of a frame with
//! splashsurf (SPH density field, marching cubes), drawn onto the container's walls and kept
//! out of the bodies, with per-vertex normals and velocities.
pub(crate) mod bodies;
pub(crate) mod container;
pub(crate) mod interpolate;
pub(crate) mod mesh;
pub(crate) mod obstacles;
pub(crate) mod params;
pub(crate) mod reconstruct;

pub use mesh::SurfaceMesh;
pub use obstacles::Obstacles;
pub use params::SurfaceParams;
pub use reconstruct::reconstruct;
