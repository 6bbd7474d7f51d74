//! `OUT/surface/surface_NNNNN.ply`: the liquid's surface mesh of each frame, triangles with
//! per-vertex normals and velocities (binary little-endian PLY, `x y z nx ny nz vx vy vz` and
//! `vertex_indices`), encoded by [`encode_surface`] and read back by [`read_surface`].
use super::ply::{PlyBuilder, Scalar};
use crate::surface::mesh::SurfaceMesh;
use crate::{Error, Result};
use std::path::Path;

/// The vertex properties of a surface frame, in file order.
pub const SURFACE_PROPERTIES: [(&str, Scalar); 9] = [
    ("x", Scalar::Float),
    ("y", Scalar::Float),
    ("z", Scalar::Float),
    ("nx", Scalar::Float),
    ("ny", Scalar::Float),
    ("nz", Scalar::Float),
    ("vx", Scalar::Float),
    ("vy", Scalar::Float),
    ("vz", Scalar::Float),
];

/// The PLY bytes of one frame's surface.
pub fn encode_surface(mesh: &SurfaceMesh, frame: u32, time: f64) -> Vec<u8> {
    let n = mesh.vertices.len();
    let mut records: Vec<[f32; 9]> = Vec::with_capacity(n);
    for i in 0..n {
        let (x, nn, v) = (mesh.vertices[i], mesh.normals[i], mesh.velocities[i]);
        records.push([x[0], x[1], x[2], nn[0], nn[1], nn[2], v[0], v[1], v[2]]);
    }
    let mut b = PlyBuilder::new(&[
        format!(
            "sphrigid {} liquid surface frame {frame}",
            env!("CARGO_PKG_VERSION")
        ),
        format!("time {time:.9}"),
    ]);
    b.reserve(n * 36 + mesh.triangles.len() * 13);
    b.vertex_element(n, &SURFACE_PROPERTIES).push(&records);
    b.face_element(mesh.triangles.len())
        .push_triangles(&mesh.triangles);
    b.finish()
}

/// Read a surface frame written by [`encode_surface`]; a file of another layout, a short file,
/// a triangle naming a missing vertex or a non-finite value is an input error naming the file.
pub fn read_surface(path: &Path) -> Result<SurfaceMesh> {
    let bad = |what: String| {
        Error::input(format!(
            "{}: {what}; fix: rebuild it with `sphrigid surface RUN_DIR --frames N`",
            path.display()
        ))
    };
    let bytes =
        std::fs::read(path).map_err(|e| bad(format!("cannot read the surface frame ({e})")))?;
    let end = bytes
        .windows(11)
        .position(|w| w == b"end_header\n")
        .ok_or_else(|| bad("not a PLY file (no end_header)".into()))?;
    let header =
        std::str::from_utf8(&bytes[..end]).map_err(|_| bad("its PLY header is not text".into()))?;
    let (vertices, faces) = parse_header(header).map_err(bad)?;
    let body = &bytes[end + 11..];
    let vbytes = vertices
        .checked_mul(36)
        .filter(|&v| v <= body.len())
        .ok_or_else(|| bad(format!("shorter than its {vertices} vertices")))?;
    let records: Vec<[f32; 9]> = body[..vbytes]
        .chunks_exact(36)
        .map(bytemuck::pod_read_unaligned)
        .collect();
    if let Some((i, k)) = records
        .iter()
        .enumerate()
        .find_map(|(i, r)| r.iter().position(|c| !c.is_finite()).map(|k| (i, k)))
    {
        let name = ["x", "y", "z", "nx", "ny", "nz", "vx", "vy", "vz"][k];
        return Err(bad(format!(
            "vertex {i} has {name} = {}, not a finite number",
            records[i][k]
        )));
    }
    let fbody = &body[vbytes..];
    if faces.checked_mul(13) != Some(fbody.len()) {
        return Err(bad(format!(
            "holds {} bytes of faces where {faces} triangles take {}",
            fbody.len(),
            faces.saturating_mul(13)
        )));
    }
    let mut triangles = Vec::with_capacity(faces);
    for (k, c) in fbody.chunks_exact(13).enumerate() {
        if c[0] != 3 {
            return Err(bad(format!("face {k} has {} vertices, not 3", c[0])));
        }
        let mut t = [0u32; 3];
        for (j, slot) in t.iter_mut().enumerate() {
            let i = i32::from_le_bytes(c[1 + 4 * j..5 + 4 * j].try_into().expect("4 bytes"));
            if i < 0 || i as usize >= vertices {
                return Err(bad(format!("face {k} names vertex {i} of {vertices}")));
            }
            *slot = i as u32;
        }
        triangles.push(t);
    }
    Ok(SurfaceMesh {
        vertices: records.iter().map(|r| [r[0], r[1], r[2]]).collect(),
        normals: records.iter().map(|r| [r[3], r[4], r[5]]).collect(),
        velocities: records.iter().map(|r| [r[6], r[7], r[8]]).collect(),
        triangles,
    })
}

/// The vertex and face counts of a surface header, or what about it is not ours.
fn parse_header(header: &str) -> std::result::Result<(usize, usize), String> {
    let mut lines = header.lines().filter(|l| !l.starts_with("comment"));
    if lines.next() != Some("ply") || lines.next() != Some("format binary_little_endian 1.0") {
        return Err("not a binary little-endian PLY file".into());
    }
    let count = |line: Option<&str>, element: &str| -> std::result::Result<usize, String> {
        line.and_then(|l| l.strip_prefix(&format!("element {element} ")))
            .and_then(|n| n.trim().parse().ok())
            .ok_or_else(|| format!("its header lacks 'element {element} N' where expected"))
    };
    let vertices = count(lines.next(), "vertex")?;
    for (name, _) in SURFACE_PROPERTIES {
        if lines.next() != Some(format!("property float {name}").as_str()) {
            return Err(format!(
                "its vertices are not the surface layout (float {name} expected)"
            ));
        }
    }
    let faces = count(lines.next(), "face")?;
    if lines.next() != Some("property list uchar int vertex_indices") || lines.next().is_some() {
        return Err("its faces are not 'property list uchar int vertex_indices'".into());
    }
    Ok((vertices, faces))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tetrahedron() -> SurfaceMesh {
        SurfaceMesh {
            vertices: vec![
                [0.0, 0.0, 0.0],
                [1.0, 0.0, 0.0],
                [0.0, 1.0, 0.0],
                [0.0, 0.0, 1.0],
            ],
            normals: vec![
                [-0.577, -0.577, -0.577],
                [1.0, 0.0, 0.0],
                [0.0, 1.0, 0.0],
                [0.0, 0.0, 1.0],
            ],
            velocities: vec![[0.5, 0.0, 0.0]; 4],
            triangles: vec![[0, 2, 1], [0, 1, 3], [0, 3, 2], [1, 2, 3]],
        }
    }

    #[test]
    fn a_surface_reads_back_as_written() {
        let tmp = tempfile::tempdir().unwrap();
        let path = tmp.path().join("surface_00002.ply");
        std::fs::write(&path, encode_surface(&tetrahedron(), 2, 0.5)).unwrap();
        let back = read_surface(&path).unwrap();
        assert_eq!(back, tetrahedron());
        assert_eq!(back.open_edges(), 0);
        assert!((back.enclosed_volume() - 1.0 / 6.0).abs() < 1e-7);
        // The same file through a general PLY reader: the faces and positions agree.
        let mesh = crate::output::mesh_files::read_ply(&path).unwrap();
        assert_eq!(mesh.triangles, tetrahedron().triangles);
    }

    #[test]
    fn a_cut_or_foreign_file_is_an_input_error() {
        let tmp = tempfile::tempdir().unwrap();
        let path = tmp.path().join("s.ply");
        let bytes = encode_surface(&tetrahedron(), 0, 0.0);
        std::fs::write(&path, &bytes[..bytes.len() - 5]).unwrap();
        let e = read_surface(&path).unwrap_err().to_string();
        assert!(e.contains("s.ply") && e.contains("fix:"), "{e}");
        std::fs::write(&path, b"ply\nformat ascii 1.0\nend_header\n").unwrap();
        assert!(read_surface(&path).is_err());
        let mut b = bytes.clone();
        let at = b.len() - 4;
        b[at..].copy_from_slice(&9i32.to_le_bytes());
        std::fs::write(&path, &b).unwrap();
        let e = read_surface(&path).unwrap_err().to_string();
        assert!(e.contains("vertex 9 of 4"), "{e}");
    }
}
