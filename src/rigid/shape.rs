//! A body's solid: a primitive or a closed triangle mesh, with what sampling and output need.
use super::mass_properties::{MassProperties, mesh_mass_properties};
use super::mesh::TriMesh;
use super::primitives::Primitive;
use glam::DVec3;
use rstar::{AABB, PointDistance, RTree, RTreeObject};

/// The solid a body is made of.
#[derive(Debug, Clone)]
pub enum Shape {
    /// A primitive centred on its centre of mass.
    Primitive(Primitive),
    /// A validated closed, outward-oriented triangle mesh, with a spatial index of its faces.
    Mesh(MeshSolid),
}

/// A closed mesh with an R-tree over its triangles for nearest-face queries.
#[derive(Debug, Clone)]
pub struct MeshSolid {
    /// The mesh.
    pub mesh: TriMesh,
    tree: RTree<FaceRef>,
}

#[derive(Debug, Clone)]
struct FaceRef {
    corners: [DVec3; 3],
    index: usize,
}

impl RTreeObject for FaceRef {
    type Envelope = AABB<[f64; 3]>;
    fn envelope(&self) -> Self::Envelope {
        let [a, b, c] = self.corners;
        AABB::from_corners(a.min(b).min(c).to_array(), a.max(b).max(c).to_array())
    }
}

impl PointDistance for FaceRef {
    fn distance_2(&self, point: &[f64; 3]) -> f64 {
        let p = DVec3::from_array(*point);
        let [a, b, c] = self.corners;
        (closest_point_on_triangle(p, a, b, c) - p).length_squared()
    }
}

/// The part of a triangle that a closest point lies on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TriangleFeature {
    /// Corner 0, 1 or 2.
    Vertex(usize),
    /// The edge from corner k to corner (k + 1) % 3.
    Edge(usize),
    /// The interior.
    Face,
}

/// The point of triangle (a, b, c) closest to `p` (Ericson, Real-Time Collision Detection 5.1.5).
pub fn closest_point_on_triangle(p: DVec3, a: DVec3, b: DVec3, c: DVec3) -> DVec3 {
    closest_feature(p, a, b, c).0
}

/// The point of triangle (a, b, c) closest to `p` and the feature it lies on.
pub fn closest_feature(p: DVec3, a: DVec3, b: DVec3, c: DVec3) -> (DVec3, TriangleFeature) {
    let ab = b - a;
    let ac = c - a;
    let ap = p - a;
    let d1 = ab.dot(ap);
    let d2 = ac.dot(ap);
    if d1 <= 0.0 && d2 <= 0.0 {
        return (a, TriangleFeature::Vertex(0));
    }
    let bp = p - b;
    let d3 = ab.dot(bp);
    let d4 = ac.dot(bp);
    if d3 >= 0.0 && d4 <= d3 {
        return (b, TriangleFeature::Vertex(1));
    }
    let vc = d1 * d4 - d3 * d2;
    if vc <= 0.0 && d1 >= 0.0 && d3 <= 0.0 {
        return (a + ab * (d1 / (d1 - d3)), TriangleFeature::Edge(0));
    }
    let cp = p - c;
    let d5 = ab.dot(cp);
    let d6 = ac.dot(cp);
    if d6 >= 0.0 && d5 <= d6 {
        return (c, TriangleFeature::Vertex(2));
    }
    let vb = d5 * d2 - d1 * d6;
    if vb <= 0.0 && d2 >= 0.0 && d6 <= 0.0 {
        return (a + ac * (d2 / (d2 - d6)), TriangleFeature::Edge(2));
    }
    let va = d3 * d6 - d5 * d4;
    if va <= 0.0 && (d4 - d3) >= 0.0 && (d5 - d6) >= 0.0 {
        return (
            b + (c - b) * ((d4 - d3) / ((d4 - d3) + (d5 - d6))),
            TriangleFeature::Edge(1),
        );
    }
    let denom = 1.0 / (va + vb + vc);
    (
        a + ab * (vb * denom) + ac * (vc * denom),
        TriangleFeature::Face,
    )
}

impl MeshSolid {
    /// Index a mesh that has already been validated as a closed, outward-oriented solid.
    pub fn new(mesh: TriMesh) -> Self {
        let faces = (0..mesh.triangles.len())
            .map(|index| FaceRef {
                corners: mesh.corners(index),
                index,
            })
            .collect();
        MeshSolid {
            tree: RTree::bulk_load(faces),
            mesh,
        }
    }

    /// Index of the face nearest to `p`.
    pub fn nearest_face(&self, p: DVec3) -> usize {
        self.tree
            .nearest_neighbor(p.to_array())
            .map(|f| f.index)
            .unwrap_or(0)
    }
}

impl Shape {
    /// Exact mass properties at uniform `density`.
    pub fn mass_properties(&self, density: f64) -> MassProperties {
        match self {
            Shape::Primitive(p) => p.mass_properties(density),
            Shape::Mesh(m) => mesh_mass_properties(&m.mesh, density),
        }
    }

    /// Axis-aligned bounds (min, max).
    pub fn bounds(&self) -> (DVec3, DVec3) {
        match self {
            Shape::Primitive(p) => p.bounds(),
            Shape::Mesh(m) => m.mesh.bounds(),
        }
    }

    /// Exact axis-aligned bounds (min, max) of the solid turned by `q` about its origin.
    pub fn rotated_bounds(&self, q: glam::DQuat) -> (DVec3, DVec3) {
        match self {
            Shape::Primitive(p) => p.rotated_bounds(q),
            Shape::Mesh(m) => m
                .mesh
                .vertices
                .iter()
                .fold((DVec3::INFINITY, DVec3::NEG_INFINITY), |(lo, hi), v| {
                    (lo.min(q * *v), hi.max(q * *v))
                }),
        }
    }

    /// Outward unit normal of the surface nearest to the interior point `p`.
    pub fn outward_normal(&self, p: DVec3) -> DVec3 {
        match self {
            Shape::Primitive(prim) => prim.outward_normal(p),
            Shape::Mesh(m) => m.mesh.face_normal(m.nearest_face(p)),
        }
    }

    /// The surface as a closed triangle mesh (the mesh itself, or a tessellated primitive).
    pub fn surface_mesh(&self) -> TriMesh {
        match self {
            Shape::Primitive(p) => p.surface_mesh(),
            Shape::Mesh(m) => m.mesh.clone(),
        }
    }

    /// The same solid in coordinates whose origin is `centre` (the centre of mass): a mesh is
    /// moved by `-centre`; primitives already have their centre of mass on the origin.
    pub fn centred_on(&self, centre: DVec3) -> Shape {
        match self {
            Shape::Primitive(p) => Shape::Primitive(*p),
            Shape::Mesh(m) => {
                let mut mesh = m.mesh.clone();
                for v in &mut mesh.vertices {
                    *v -= centre;
                }
                Shape::Mesh(MeshSolid::new(mesh))
            }
        }
    }
}
