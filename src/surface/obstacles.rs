//! [`Obstacles`]: what the liquid's surface must meet and must not cut into in one frame, the
//! container's walls and the bodies' solids.
use crate::rigid::mesh::TriMesh;

/// The solids around the liquid in one frame.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Obstacles {
    /// The container, an axis-aligned box (min, max) in m, when there is one: the surface is
    /// drawn onto the walls the liquid touches.
    pub container: Option<([f64; 3], [f64; 3])>,
    /// Closed, outward-oriented triangle meshes of the bodies in world coordinates for this
    /// frame: the surface is moved out of them.
    pub bodies: Vec<TriMesh>,
}
