//! Writing the bodies of a run: `OUT/rigid/<body>_NNNNN.ply` (the surface mesh posed for the
//! frame) and `OUT/rigid_states.csv`, each through a temporary file and a rename.
use super::body::RigidBody;
use super::states_csv;
use crate::Result;
use crate::output::ply::{PlyBuilder, Scalar};
use crate::output::{create_dir, write_atomic};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The file name of body `name`'s frame `index`, relative to the output directory.
pub fn body_frame_name(name: &str, index: u32) -> String {
    format!("rigid/{name}_{index:05}.ply")
}

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

/// Writes the bodies' frames and keeps `rigid_states.csv` current.
#[derive(Debug)]
pub struct RigidWriter {
    dir: PathBuf,
    csv: String,
}

impl RigidWriter {
    /// Prepare `dir/rigid/` for the bodies' frames.
    pub fn new(dir: &Path) -> Result<RigidWriter> {
        create_dir(&dir.join("rigid"))?;
        Ok(RigidWriter {
            dir: dir.to_path_buf(),
            csv: format!("{}\n", states_csv::HEADER),
        })
    }

    /// Write every body's posed mesh for frame `index`, add their rows to the CSV and rewrite
    /// it; returns the manifest entries of the frame (`"rigid": {body: file}`).
    pub fn write_frame(
        &mut self,
        bodies: &[RigidBody],
        index: u32,
        time: f64,
    ) -> Result<BTreeMap<String, serde_json::Value>> {
        let mut files = serde_json::Map::new();
        for b in bodies {
            let name = body_frame_name(&b.name, index);
            write_atomic(&self.dir.join(&name), &encode_posed_mesh(b, index, time))?;
            files.insert(b.name.clone(), serde_json::Value::String(name));
            self.csv.push_str(&states_csv::row(index, time, b));
            self.csv.push('\n');
        }
        write_atomic(&self.dir.join("rigid_states.csv"), self.csv.as_bytes())?;
        let mut extra = BTreeMap::new();
        extra.insert("rigid".to_string(), serde_json::Value::Object(files));
        Ok(extra)
    }
}
