//! [`SurfaceMesh`]: a liquid surface as triangles with per-vertex normals and velocities, the
//! one type the reconstruction produces and the output writers and exporters read.

/// A closed triangle mesh of the liquid's surface in one frame.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SurfaceMesh {
    /// Vertex positions, m.
    pub vertices: Vec<[f32; 3]>,
    /// Unit outward normals per vertex.
    pub normals: Vec<[f32; 3]>,
    /// Liquid velocity at each vertex, m/s (interpolated from the particles).
    pub velocities: Vec<[f32; 3]>,
    /// Triangles as vertex indices, counter-clockwise seen from outside.
    pub triangles: Vec<[u32; 3]>,
}

impl SurfaceMesh {
    /// Volume enclosed by the mesh (divergence theorem; exact for a closed mesh), m^3.
    pub fn enclosed_volume(&self) -> f64 {
        let p = |i: u32| {
            let v = self.vertices[i as usize];
            [v[0] as f64, v[1] as f64, v[2] as f64]
        };
        self.triangles
            .iter()
            .map(|t| {
                let (a, b, c) = (p(t[0]), p(t[1]), p(t[2]));
                (a[0] * (b[1] * c[2] - b[2] * c[1]) - a[1] * (b[0] * c[2] - b[2] * c[0])
                    + a[2] * (b[0] * c[1] - b[1] * c[0]))
                    / 6.0
            })
            .sum()
    }

    /// Edges used by a number of triangles other than two (0 for a closed manifold mesh).
    pub fn open_edges(&self) -> usize {
        let mut edges: Vec<(u32, u32)> = self
            .triangles
            .iter()
            .flat_map(|t| [(t[0], t[1]), (t[1], t[2]), (t[2], t[0])])
            .map(|(a, b)| (a.min(b), a.max(b)))
            .collect();
        edges.sort_unstable();
        let mut bad = 0;
        let mut i = 0;
        while i < edges.len() {
            let mut j = i;
            while j < edges.len() && edges[j] == edges[i] {
                j += 1;
            }
            if j - i != 2 {
                bad += 1;
            }
            i = j;
        }
        bad
    }
}
