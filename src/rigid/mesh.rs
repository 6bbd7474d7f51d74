//! Triangle meshes: validation of closed, consistently oriented solids, and the box and
//! extruded-polygon meshes of the primitives. Reading them from PLY and OBJ files belongs to
//! `output::mesh_files` (no file formats in the physics).
use crate::{Error, Result};
use glam::DVec3;
use std::collections::HashMap;

/// An indexed triangle mesh in f64.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct TriMesh {
    /// Vertex positions.
    pub vertices: Vec<DVec3>,
    /// Triangles as vertex indices, counter-clockwise seen from outside.
    pub triangles: Vec<[u32; 3]>,
}

/// What validation found and fixed in a mesh that is otherwise a valid closed solid.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Validation {
    /// Every face pointed inward (negative volume); all faces were flipped.
    pub flipped: bool,
    /// Number of exactly coincident vertices that were merged.
    pub welded: usize,
}

impl TriMesh {
    /// Build a mesh from vertices and triangles.
    pub fn new(vertices: Vec<DVec3>, triangles: Vec<[u32; 3]>) -> Self {
        TriMesh {
            vertices,
            triangles,
        }
    }

    /// Axis-aligned bounds (min, max) of the referenced vertices.
    pub fn bounds(&self) -> (DVec3, DVec3) {
        let mut lo = DVec3::splat(f64::INFINITY);
        let mut hi = DVec3::splat(f64::NEG_INFINITY);
        for t in &self.triangles {
            for &i in t {
                let p = self.vertices[i as usize];
                lo = lo.min(p);
                hi = hi.max(p);
            }
        }
        (lo, hi)
    }

    /// The three corners of triangle `t`.
    pub fn corners(&self, t: usize) -> [DVec3; 3] {
        let [a, b, c] = self.triangles[t];
        [
            self.vertices[a as usize],
            self.vertices[b as usize],
            self.vertices[c as usize],
        ]
    }

    /// Unit outward normal of triangle `t` (zero for a degenerate triangle).
    pub fn face_normal(&self, t: usize) -> DVec3 {
        let [a, b, c] = self.corners(t);
        (b - a).cross(c - a).normalize_or_zero()
    }

    /// Signed volume enclosed by the mesh (positive when faces point outward).
    pub fn signed_volume(&self) -> f64 {
        let (lo, hi) = self.bounds();
        let o = (lo + hi) * 0.5;
        (0..self.triangles.len())
            .map(|t| {
                let [a, b, c] = self.corners(t);
                (a - o).dot((b - o).cross(c - o)) / 6.0
            })
            .sum()
    }

    /// Reverse the winding of every triangle.
    pub fn flip(&mut self) {
        for t in &mut self.triangles {
            t.swap(1, 2);
        }
    }

    /// Apply `p -> rotation * (scale * p) + translation` to every vertex.
    pub fn transform(&mut self, scale: DVec3, rotation: glam::DQuat, translation: DVec3) {
        for v in &mut self.vertices {
            *v = rotation * (*v * scale) + translation;
        }
        if scale.x * scale.y * scale.z < 0.0 {
            self.flip();
        }
    }

    /// Merge vertices with identical coordinates so that faces written with duplicated
    /// vertices (split normals, per-face corners) share edges; returns how many were merged.
    pub fn weld_exact(&mut self) -> usize {
        let mut first: HashMap<[u64; 3], u32> = HashMap::new();
        let mut remap = Vec::with_capacity(self.vertices.len());
        let mut kept = Vec::with_capacity(self.vertices.len());
        for v in &self.vertices {
            // +0.0 and -0.0 are the same point.
            let key = [v.x + 0.0, v.y + 0.0, v.z + 0.0].map(f64::to_bits);
            let id = *first.entry(key).or_insert_with(|| {
                kept.push(*v);
                (kept.len() - 1) as u32
            });
            remap.push(id);
        }
        let merged = self.vertices.len() - kept.len();
        self.vertices = kept;
        for t in &mut self.triangles {
            for i in t.iter_mut() {
                *i = remap[*i as usize];
            }
        }
        merged
    }

    /// Check that the mesh is a closed, consistently oriented solid with non-zero volume.
    ///
    /// `source` names the mesh in error messages. Exactly coincident vertices are welded
    /// first. A mesh whose faces all point inward is flipped and reported in the returned
    /// [`Validation`]; a mesh with some faces flipped is an error.
    pub fn validate(&mut self, source: &str) -> Result<Validation> {
        let bad = |what: String, fix: &str| Error::input(format!("{source}: {what}; fix: {fix}"));
        if self.triangles.is_empty() {
            return Err(bad(
                "mesh has no faces".into(),
                "give a closed triangle mesh",
            ));
        }
        let n = self.vertices.len();
        for (t, tri) in self.triangles.iter().enumerate() {
            if let Some(i) = tri.iter().find(|&&i| i as usize >= n) {
                return Err(bad(
                    format!("face {t} refers to vertex {i} but there are only {n} vertices"),
                    "fix the face indices",
                ));
            }
        }
        if let Some((i, _)) = self
            .vertices
            .iter()
            .enumerate()
            .find(|(_, v)| !v.is_finite())
        {
            return Err(bad(
                format!("vertex {i} is not a finite number"),
                "fix the vertex coordinates",
            ));
        }
        let welded = self.weld_exact();
        for (t, tri) in self.triangles.iter().enumerate() {
            if tri[0] == tri[1] || tri[1] == tri[2] || tri[0] == tri[2] {
                return Err(bad(
                    format!("face {t} repeats a vertex (degenerate triangle)"),
                    "remove degenerate faces",
                ));
            }
        }
        // Directed edge counts: a closed, consistently oriented 2-manifold uses every directed
        // edge exactly once and its reverse exactly once.
        let mut directed: HashMap<(u32, u32), u32> = HashMap::new();
        for tri in &self.triangles {
            for k in 0..3 {
                *directed.entry((tri[k], tri[(k + 1) % 3])).or_default() += 1;
            }
        }
        let mut open = 0usize;
        let mut inconsistent = 0usize;
        let mut nonmanifold = 0usize;
        let mut example_open = None;
        let mut example_flip = None;
        let mut example_nm = None;
        for (&(a, b), &c) in &directed {
            let r = directed.get(&(b, a)).copied().unwrap_or(0);
            if c == 1 && r == 1 {
                continue;
            }
            if c + r > 2 {
                nonmanifold += 1;
                example_nm.get_or_insert((a, b));
            } else if c == 2 && r == 0 {
                inconsistent += 1;
                example_flip.get_or_insert((a, b));
            } else if c == 1 && r == 0 {
                open += 1;
                example_open.get_or_insert((a, b));
            }
        }
        if let Some((a, b)) = example_nm {
            return Err(bad(
                format!(
                    "mesh is not a manifold: {nonmanifold} edges (e.g. vertices {a}-{b}) are shared by more than two faces"
                ),
                "split the mesh into separate closed solids",
            ));
        }
        if let Some((a, b)) = example_flip {
            return Err(bad(
                format!(
                    "faces are inconsistently oriented: {inconsistent} edges (e.g. vertices {a}-{b}) are traversed in the same direction by both of their faces"
                ),
                "recompute consistent outward normals (e.g. Blender: Mesh > Normals > Recalculate Outside)",
            ));
        }
        if let Some((a, b)) = example_open {
            return Err(bad(
                format!(
                    "mesh is not closed: {open} edges (e.g. vertices {a}-{b}) belong to only one face"
                ),
                "fill the holes so that every edge is shared by exactly two faces",
            ));
        }
        let (lo, hi) = self.bounds();
        let ext = hi - lo;
        let volume = self.signed_volume();
        let scale = ext.x.max(ext.y).max(ext.z);
        if volume.is_nan() || volume.abs() <= 1e-12 * scale * scale * scale {
            return Err(bad(
                format!("mesh encloses zero volume (signed volume {volume:e})"),
                "give a solid with a non-zero interior",
            ));
        }
        let flipped = volume < 0.0;
        if flipped {
            self.flip();
        }
        Ok(Validation { flipped, welded })
    }
}

/// A closed box mesh with the given full extents, centred on the origin.
pub fn box_mesh(size: DVec3) -> TriMesh {
    let h = size * 0.5;
    let vertices = (0..8)
        .map(|i| {
            DVec3::new(
                if i & 1 == 0 { -h.x } else { h.x },
                if i & 2 == 0 { -h.y } else { h.y },
                if i & 4 == 0 { -h.z } else { h.z },
            )
        })
        .collect();
    // Quads as (v0, v1, v2, v3) counter-clockwise from outside.
    let quads = [
        [0, 4, 6, 2], // -x
        [1, 3, 7, 5], // +x
        [0, 1, 5, 4], // -y
        [2, 6, 7, 3], // +y
        [0, 2, 3, 1], // -z
        [4, 5, 7, 6], // +z
    ];
    let mut triangles = Vec::new();
    for q in quads {
        triangles.push([q[0], q[1], q[2]]);
        triangles.push([q[0], q[2], q[3]]);
    }
    TriMesh::new(vertices, triangles)
}

/// A closed prism: a simple polygon in the xy plane (counter-clockwise, any shape, convex or
/// not) extruded from z = -depth/2 to z = +depth/2.
pub fn extrude_polygon(polygon: &[glam::DVec2], depth: f64) -> Result<TriMesh> {
    let n = polygon.len();
    let caps = ear_clip(polygon)?;
    let mut vertices = Vec::with_capacity(2 * n);
    for &p in polygon {
        vertices.push(DVec3::new(p.x, p.y, -depth / 2.0));
    }
    for &p in polygon {
        vertices.push(DVec3::new(p.x, p.y, depth / 2.0));
    }
    let mut triangles = Vec::new();
    for [a, b, c] in caps {
        triangles.push([a + n as u32, b + n as u32, c + n as u32]); // top, CCW from +z
        triangles.push([a, c, b]); // bottom, CCW from -z
    }
    for i in 0..n as u32 {
        let j = (i + 1) % n as u32;
        let (ti, tj) = (i + n as u32, j + n as u32);
        triangles.push([i, j, tj]);
        triangles.push([i, tj, ti]);
    }
    Ok(TriMesh::new(vertices, triangles))
}

/// Triangulate a simple counter-clockwise polygon by ear clipping.
fn ear_clip(poly: &[glam::DVec2]) -> Result<Vec<[u32; 3]>> {
    let cross = |o: glam::DVec2, a: glam::DVec2, b: glam::DVec2| (a - o).perp_dot(b - o);
    let area: f64 = (0..poly.len())
        .map(|i| poly[i].perp_dot(poly[(i + 1) % poly.len()]))
        .sum();
    if poly.len() < 3 || area <= 0.0 {
        return Err(Error::input(
            "polygon needs at least three vertices in counter-clockwise order",
        ));
    }
    let mut idx: Vec<usize> = (0..poly.len()).collect();
    let mut out = Vec::new();
    while idx.len() > 3 {
        let m = idx.len();
        let ear = (0..m).find(|&k| {
            let (a, b, c) = (idx[(k + m - 1) % m], idx[k], idx[(k + 1) % m]);
            if cross(poly[a], poly[b], poly[c]) <= 0.0 {
                return false;
            }
            idx.iter().all(|&o| {
                o == a
                    || o == b
                    || o == c
                    || !(cross(poly[a], poly[b], poly[o]) >= 0.0
                        && cross(poly[b], poly[c], poly[o]) >= 0.0
                        && cross(poly[c], poly[a], poly[o]) >= 0.0)
            })
        });
        let k = ear.ok_or_else(|| Error::input("polygon is not simple (edges cross)"))?;
        let (a, b, c) = (idx[(k + m - 1) % m], idx[k], idx[(k + 1) % m]);
        out.push([a as u32, b as u32, c as u32]);
        idx.remove(k);
    }
    out.push([idx[0] as u32, idx[1] as u32, idx[2] as u32]);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use glam::DVec2;

    #[test]
    fn box_mesh_is_valid_with_exact_volume() {
        let mut m = box_mesh(DVec3::new(1.0, 2.0, 3.0));
        let v = m.validate("box").unwrap();
        assert!(!v.flipped);
        assert!((m.signed_volume() - 6.0).abs() < 1e-12);
    }

    #[test]
    fn one_flipped_face_is_reported() {
        let mut m = box_mesh(DVec3::ONE);
        m.triangles[3].swap(0, 1);
        let e = m.validate("flip.ply").unwrap_err().to_string();
        assert!(
            e.contains("flip.ply") && e.contains("inconsistently oriented"),
            "{e}"
        );
    }

    #[test]
    fn fully_inverted_mesh_is_flipped() {
        let mut m = box_mesh(DVec3::ONE);
        m.flip();
        let v = m.validate("inv").unwrap();
        assert!(v.flipped);
        assert!((m.signed_volume() - 1.0).abs() < 1e-12);
    }

    #[test]
    fn open_mesh_is_reported() {
        let mut m = box_mesh(DVec3::ONE);
        m.triangles.pop();
        let e = m.validate("open.obj").unwrap_err().to_string();
        assert!(e.contains("open.obj") && e.contains("not closed"), "{e}");
    }

    #[test]
    fn flat_closed_mesh_has_zero_volume() {
        // Two triangles back to back: closed and consistent but flat.
        let mut m = TriMesh::new(
            vec![DVec3::ZERO, DVec3::X, DVec3::Y],
            vec![[0, 1, 2], [0, 2, 1]],
        );
        let e = m.validate("flat").unwrap_err().to_string();
        assert!(e.contains("zero volume"), "{e}");
    }

    #[test]
    fn extruded_l_shape_is_closed_with_right_volume() {
        let l = [
            DVec2::new(0.0, 0.0),
            DVec2::new(2.0, 0.0),
            DVec2::new(2.0, 1.0),
            DVec2::new(1.0, 1.0),
            DVec2::new(1.0, 3.0),
            DVec2::new(0.0, 3.0),
        ];
        let mut m = extrude_polygon(&l, 0.5).unwrap();
        m.validate("L").unwrap();
        assert!((m.signed_volume() - 4.0 * 0.5).abs() < 1e-12);
    }

    #[test]
    fn per_face_vertices_are_welded_into_a_closed_mesh() {
        // Every triangle with its own three vertices, as STL-like exports write them.
        let b = box_mesh(DVec3::new(1.0, 2.0, 3.0));
        let mut soup = TriMesh::default();
        for t in 0..b.triangles.len() {
            let n = soup.vertices.len() as u32;
            soup.vertices.extend(b.corners(t));
            soup.triangles.push([n, n + 1, n + 2]);
        }
        let v = soup.validate("soup").unwrap();
        assert_eq!(v.welded, 36 - 8);
        assert!((soup.signed_volume() - 6.0).abs() < 1e-12);
    }
}
