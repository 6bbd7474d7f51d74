//! The surface does not cut into bodies: vertices found inside a body's closed mesh are moved
//! to the closest point of its surface. Inside or outside is decided by the sign against the
//! angle-weighted pseudo-normal of the closest feature (face, edge or vertex; Baerentzen and
//! Aanaes 2005), which is exact for a closed mesh at sharp edges and corners too.
use crate::rigid::mesh::TriMesh;
use crate::rigid::shape::{MeshSolid, TriangleFeature as Feature, closest_feature};
use glam::DVec3;
use rayon::prelude::*;
use std::collections::HashMap;

/// A body's closed mesh indexed for closest-point and inside queries.
pub struct BodySolid {
    solid: MeshSolid,
    lo: DVec3,
    hi: DVec3,
    face_normals: Vec<DVec3>,
    edge_normals: HashMap<(u32, u32), DVec3>,
    vertex_normals: Vec<DVec3>,
}

impl BodySolid {
    /// Index a closed, outward-oriented mesh (coincident vertices are welded first so that
    /// faces written with split corners share their edges and corners).
    pub fn new(mesh: &TriMesh) -> Self {
        let mut mesh = mesh.clone();
        mesh.weld_exact();
        let (lo, hi) = mesh.bounds();
        let mut face_normals = Vec::with_capacity(mesh.triangles.len());
        let mut edge_normals: HashMap<(u32, u32), DVec3> = HashMap::new();
        let mut vertex_normals = vec![DVec3::ZERO; mesh.vertices.len()];
        for (t, tri) in mesh.triangles.iter().enumerate() {
            let corners = mesh.corners(t);
            let n = mesh.face_normal(t);
            face_normals.push(n);
            for k in 0..3 {
                let (i, j) = (tri[k], tri[(k + 1) % 3]);
                *edge_normals.entry((i.min(j), i.max(j))).or_default() += n;
                let e1 = corners[(k + 1) % 3] - corners[k];
                let e2 = corners[(k + 2) % 3] - corners[k];
                let angle = e1.angle_between(e2);
                if angle.is_finite() {
                    vertex_normals[tri[k] as usize] += n * angle;
                }
            }
        }
        BodySolid {
            solid: MeshSolid::new(mesh),
            lo,
            hi,
            face_normals,
            edge_normals,
            vertex_normals,
        }
    }

    /// When `p` lies inside the solid, the closest point of its surface.
    pub fn inside(&self, p: DVec3) -> Option<DVec3> {
        if p.cmplt(self.lo).any() || p.cmpgt(self.hi).any() {
            return None;
        }
        let mesh = &self.solid.mesh;
        if mesh.triangles.is_empty() {
            return None;
        }
        let face = self.solid.nearest_face(p);
        let [a, b, c] = mesh.corners(face);
        let (q, feature) = closest_feature(p, a, b, c);
        let tri = mesh.triangles[face];
        let normal = match feature {
            Feature::Face => self.face_normals[face],
            Feature::Vertex(k) => self.vertex_normals[tri[k] as usize],
            Feature::Edge(k) => {
                let (i, j) = (tri[k], tri[(k + 1) % 3]);
                self.edge_normals[&(i.min(j), i.max(j))]
            }
        };
        ((p - q).dot(normal) < 0.0).then_some(q)
    }
}

/// Move every vertex that lies inside one of `bodies` to the closest point of that body's
/// surface; returns for each vertex whether it moved.
pub fn push_out(vertices: &mut [[f32; 3]], bodies: &[BodySolid]) -> Vec<bool> {
    vertices
        .par_iter_mut()
        .map(|v| {
            let mut moved = false;
            for body in bodies {
                let p = DVec3::new(v[0] as f64, v[1] as f64, v[2] as f64);
                if let Some(q) = body.inside(p) {
                    *v = [q.x as f32, q.y as f32, q.z as f32];
                    moved = true;
                }
            }
            moved
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rigid::mesh::box_mesh;

    #[test]
    fn a_point_inside_a_box_goes_to_its_nearest_face_and_outside_points_stay() {
        let solid = BodySolid::new(&box_mesh(DVec3::new(2.0, 1.0, 1.0)));
        let q = solid.inside(DVec3::new(0.9, 0.1, 0.0)).unwrap();
        assert!((q - DVec3::new(1.0, 0.1, 0.0)).length() < 1e-12);
        // Outside near an edge and a corner, where the faces' own normals disagree.
        assert!(solid.inside(DVec3::new(1.01, 0.51, 0.0)).is_none());
        assert!(solid.inside(DVec3::new(1.01, 0.51, 0.51)).is_none());
        assert!(solid.inside(DVec3::new(0.99, 0.49, 0.49)).is_some());
    }
}
