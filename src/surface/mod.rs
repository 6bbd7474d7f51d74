//! Liquid surfaces: triangle meshes reconstructed from the particles of a frame with
//! splashsurf (SPH density field, marching cubes), drawn onto the container's walls and kept
//! out of the bodies, with per-vertex normals and velocities.
pub mod bodies;
pub mod container;
pub mod interpolate;
pub mod mesh;
pub mod obstacles;
pub mod params;
pub mod reconstruct;

pub use mesh::SurfaceMesh;
pub use obstacles::Obstacles;
pub use params::SurfaceParams;
pub use reconstruct::reconstruct;
