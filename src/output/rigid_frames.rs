//! `OUT/rigid/<body>_NNNNN.ply`: each body's surface mesh posed for the frame, written through
//! a temporary file and a rename by [`RigidFrameWriter`] and read back by [`read_body`].
use super::checksum::FileSum;
use super::mesh_files::read_ply;
use super::ply::{PlyBuilder, Scalar};
use super::run_dir::RunDir;
use super::{create_dir, write_atomic};
use crate::rigid::RigidBody;
use crate::{Error, Result};
use std::collections::BTreeMap;
use std::path::Path;

/// The PLY bytes of a body's surface mesh posed at its current state: vertices `x y z` as
/// float, faces as `uchar int` index lists.
pub fn encode_posed_mesh(body: &RigidBody, frame: u32, time: f64) -> Vec<u8> {
    let mesh = body.posed_surface();
    let xyz: Vec<[f32; 3]> = mesh
        .vertices
        .iter()
        .map(|v| [v.x as f32, v.y as f32, v.z as f32])
        .collect();
    let mut b = PlyBuilder::new(&[
        format!(
            "sphrigid {} rigid body {} frame {frame}",
            env!("CARGO_PKG_VERSION"),
            body.name
        ),
        format!("time {time:.9}"),
    ]);
    b.vertex_element(
        xyz.len(),
        &[
            ("x", Scalar::Float),
            ("y", Scalar::Float),
            ("z", Scalar::Float),
        ],
    )
    .face_element(mesh.triangles.len())
    .push(&xyz)
    .push_triangles(&mesh.triangles);
    b.finish()
}

/// Writes the bodies' frames.
#[derive(Debug)]
pub struct RigidFrameWriter {
    run: RunDir,
}

impl RigidFrameWriter {
    /// Prepare the run's `rigid/` folder for the bodies' frames.
    pub fn new(run: &RunDir) -> Result<RigidFrameWriter> {
        create_dir(&run.rigid_dir())?;
        Ok(RigidFrameWriter { run: run.clone() })
    }

    /// Write every body's posed mesh for frame `index`; returns the manifest entries of the
    /// frame (`"rigid": {body: file}`) and each file's size and CRC-32.
    pub fn write_frame(
        &mut self,
        bodies: &[RigidBody],
        index: u32,
        time: f64,
    ) -> Result<(
        BTreeMap<String, serde_json::Value>,
        BTreeMap<String, FileSum>,
    )> {
        let mut sums = BTreeMap::new();
        for b in bodies {
            let name = RunDir::body_frame_name(&b.name, index);
            let bytes = encode_posed_mesh(b, index, time);
            write_atomic(&self.run.join(&name), &bytes)?;
            sums.insert(name, FileSum::of(&bytes));
        }
        Ok((manifest_entries(bodies, index), sums))
    }
}

/// The manifest entries of the bodies' files of frame `index` (`"rigid": {body: file}`).
pub fn manifest_entries(bodies: &[RigidBody], index: u32) -> BTreeMap<String, serde_json::Value> {
    let files = bodies
        .iter()
        .map(|b| {
            let name = RunDir::body_frame_name(&b.name, index);
            (b.name.clone(), serde_json::Value::String(name))
        })
        .collect();
    BTreeMap::from([("rigid".to_string(), serde_json::Value::Object(files))])
}

/// A body's posed surface in one frame, as read back.
#[derive(Debug, Clone, PartialEq)]
pub struct BodyMesh {
    /// Vertex positions, m.
    pub vertices: Vec<[f64; 3]>,
    /// Triangles as vertex indices.
    pub triangles: Vec<[u32; 3]>,
}

/// Read a body's frame PLY; a vertex that is not finite is an input error naming the file.
pub fn read_body(path: &Path) -> Result<BodyMesh> {
    if let Err(e) = std::fs::metadata(path) {
        return Err(Error::input(format!(
            "{}: cannot read the body frame ({e}); fix: rerun the scene to rewrite the frame",
            path.display()
        )));
    }
    let mesh = read_ply(path)?;
    if let Some(i) = mesh.vertices.iter().position(|v| !v.is_finite()) {
        return Err(Error::input(format!(
            "{}: vertex {i} is {}, not finite; fix: rerun the scene to rewrite the frame",
            path.display(),
            mesh.vertices[i]
        )));
    }
    Ok(BodyMesh {
        vertices: mesh.vertices.iter().map(|v| v.to_array()).collect(),
        triangles: mesh.triangles,
    })
}
