//! Mesh files a scene names: PLY and OBJ readers into a [`TriMesh`] (the physics reads no
//! file format itself), and the validation of what they read as a closed solid.
use crate::rigid::mesh::{TriMesh, Validation};
use crate::{Error, Result, bounded_read};
use glam::DVec3;
use std::path::Path;

/// Read a PLY or OBJ file (chosen by extension) and validate it as a closed solid.
pub fn load(path: &Path) -> Result<(TriMesh, Validation)> {
    let mut mesh = read(path)?;
    let v = mesh.validate(&path.display().to_string())?;
    Ok((mesh, v))
}

/// The note on a mesh file whose faces all point inward: it was flipped.
pub fn flipped_note(path: &Path) -> String {
    format!(
        "mesh {} faces inward; it was flipped (fix, to silence this: turn its normals outward, e.g. Blender: Mesh > Normals > Recalculate Outside)",
        path.display()
    )
}

fn unreadable(path: &Path, e: std::io::Error) -> Error {
    Error::input(format!(
        "{}: cannot read the mesh file ({e}); fix: check the path (relative paths in a scene are relative to the scene file)",
        path.display()
    ))
}

/// The largest mesh file read, bytes.
pub const MAX_MESH_BYTES: u64 = bounded_read::MESH.bytes;

/// Read a PLY or OBJ file, chosen by its extension, without validating it. A device
/// (`/dev/zero`) or a huge file would be read until memory runs out: both go through the
/// bounded reader.
pub fn read(path: &Path) -> Result<TriMesh> {
    let ext = path
        .extension()
        .and_then(|e| e.to_str())
        .map(|e| e.to_ascii_lowercase());
    match ext.as_deref() {
        Some("ply") => read_ply(path),
        Some("obj") => read_obj(path),
        _ => Err(Error::input(format!(
            "{}: unknown mesh format; fix: use a .ply or .obj file",
            path.display()
        ))),
    }
}

/// Read the vertices and faces of a PLY file (ASCII or binary); polygons are fanned into triangles.
pub fn read_ply(path: &Path) -> Result<TriMesh> {
    use ply_rs_bw::parser::Parser;
    use ply_rs_bw::ply::{DefaultElement, Property};
    let file = bounded_read::open_with(path, &bounded_read::MESH, |e| unreadable(path, e))?;
    let mut reader = std::io::BufReader::new(file);
    let ply = Parser::<DefaultElement>::new()
        .read_ply(&mut reader)
        .map_err(|e| {
            Error::input(format!(
                "{}: not a readable PLY file ({e}); fix: export it again as PLY with vertex and face elements",
                path.display()
            ))
        })?;
    let name = path.display();
    let missing = |what: &str| {
        Error::input(format!(
            "{name}: PLY file has no {what}; fix: export the mesh with its faces"
        ))
    };
    let verts = ply
        .payload
        .get("vertex")
        .ok_or_else(|| missing("'vertex' element"))?;
    let faces = ply
        .payload
        .get("face")
        .ok_or_else(|| missing("'face' element"))?;
    let scalar = |p: &Property| -> Option<f64> {
        Some(match *p {
            Property::Char(v) => v as f64,
            Property::UChar(v) => v as f64,
            Property::Short(v) => v as f64,
            Property::UShort(v) => v as f64,
            Property::Int(v) => v as f64,
            Property::UInt(v) => v as f64,
            Property::Float(v) => v as f64,
            Property::Double(v) => v,
            _ => return None,
        })
    };
    let mut vertices = Vec::with_capacity(verts.len());
    for (i, v) in verts.iter().enumerate() {
        let mut p = [0.0; 3];
        for (k, key) in ["x", "y", "z"].iter().enumerate() {
            p[k] = v.get(*key).and_then(scalar).ok_or_else(|| {
                Error::input(format!(
                    "{name}: vertex {i} has no numeric '{key}' property; fix: give x, y, z per vertex"
                ))
            })?;
        }
        vertices.push(DVec3::from_array(p));
    }
    let mut triangles = Vec::with_capacity(faces.len());
    for (i, f) in faces.iter().enumerate() {
        let list = f
            .get("vertex_indices")
            .or_else(|| f.get("vertex_index"))
            .and_then(|p| p.to_u32_list())
            .ok_or_else(|| {
                Error::input(format!(
                    "{name}: face {i} has no integer 'vertex_indices' list; fix: export faces as index lists"
                ))
            })?;
        fan(&list, &mut triangles).map_err(|m| Error::input(format!("{name}: face {i} {m}")))?;
    }
    Ok(TriMesh::new(vertices, triangles))
}

/// Triangulate a polygon given as vertex indices by a fan from its first vertex.
fn fan(poly: &[u32], out: &mut Vec<[u32; 3]>) -> std::result::Result<(), String> {
    if poly.len() < 3 {
        return Err(format!(
            "has {} vertices; fix: give every face at least three",
            poly.len()
        ));
    }
    for k in 1..poly.len() - 1 {
        out.push([poly[0], poly[k], poly[k + 1]]);
    }
    Ok(())
}

/// Read the `v` and `f` records of a Wavefront OBJ file (other records are ignored);
/// polygons are fanned into triangles, negative (relative) indices are supported.
pub fn read_obj(path: &Path) -> Result<TriMesh> {
    let text = bounded_read::read_bytes_with(path, &bounded_read::MESH, |e| unreadable(path, e))?;
    let text = String::from_utf8(text).map_err(|_| {
        Error::input(format!(
            "{}: not a text OBJ file (invalid UTF-8); fix: export it again as OBJ",
            path.display()
        ))
    })?;
    parse_obj(&text, &path.display().to_string())
}

/// Parse OBJ text; `source` names it in error messages.
pub fn parse_obj(text: &str, source: &str) -> Result<TriMesh> {
    let mut vertices = Vec::new();
    let mut triangles = Vec::new();
    for (ln, line) in text.lines().enumerate() {
        let ln = ln + 1;
        let line = line.split('#').next().unwrap_or("").trim();
        let mut it = line.split_whitespace();
        match it.next() {
            Some("v") => {
                let mut p = [0.0; 3];
                for c in &mut p {
                    *c = it
                        .next()
                        .and_then(|s| s.parse::<f64>().ok())
                        .ok_or_else(|| {
                            Error::input(format!(
                                "{source}:{ln}: vertex needs three numbers 'v x y z'; fix: correct the line"
                            ))
                        })?;
                }
                vertices.push(DVec3::from_array(p));
            }
            Some("f") => {
                let mut poly = Vec::new();
                for tok in it {
                    let idx = tok.split('/').next().unwrap_or("");
                    let i: i64 = idx.parse().map_err(|_| {
                        Error::input(format!(
                            "{source}:{ln}: face index '{tok}' is not an integer; fix: correct the line"
                        ))
                    })?;
                    let n = vertices.len() as i64;
                    let abs = if i > 0 { i - 1 } else { n + i };
                    if i == 0 || abs < 0 || abs >= n {
                        return Err(Error::input(format!(
                            "{source}:{ln}: face index {i} refers to no vertex defined before it; fix: correct the index"
                        )));
                    }
                    poly.push(abs as u32);
                }
                fan(&poly, &mut triangles)
                    .map_err(|m| Error::input(format!("{source}:{ln}: face {m}")))?;
            }
            _ => {}
        }
    }
    if triangles.is_empty() {
        return Err(Error::input(format!(
            "{source}: OBJ file has no faces ('f' records); fix: export the mesh with its faces"
        )));
    }
    Ok(TriMesh::new(vertices, triangles))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn obj_with_slashes_negative_indices_and_quads() {
        let text = "v 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nf 1/1/1 2//2 3 -1\n";
        let m = parse_obj(text, "q.obj").unwrap();
        assert_eq!(m.triangles, vec![[0, 1, 2], [0, 2, 3]]);
        let e = parse_obj("v 0 0 0\nf 1 2 3\n", "bad.obj")
            .unwrap_err()
            .to_string();
        assert!(e.contains("bad.obj:2"), "{e}");
    }
}
