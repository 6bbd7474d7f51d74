//! Reading a finished run: its manifest, fluid and body frames, and `rigid_states.csv`.
use crate::rigid::mesh::read_ply;
use crate::rigid::states_csv::{self, StateRow};
use crate::{Error, Result};
use ply_rs_bw::ply::{PropertyAccess, PropertyAccessResult};
use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// One frame listed in the manifest, its paths made absolute.
#[derive(Debug, Clone, PartialEq)]
pub struct FrameRef {
    /// Frame index.
    pub index: u32,
    /// Simulated time, s.
    pub time: f64,
    /// The fluid PLY.
    pub fluid: PathBuf,
    /// Body meshes of the frame by body name.
    pub rigid: BTreeMap<String, PathBuf>,
}

/// What `sphrigid figure` needs of a run directory.
#[derive(Debug, Clone)]
pub struct RunData {
    /// The run directory.
    pub dir: PathBuf,
    /// Liquid particle radius, m.
    pub particle_radius: f64,
    /// The container box (min, max) when the scene has one.
    pub container: Option<([f64; 3], [f64; 3])>,
    /// The frames in the manifest, in order.
    pub frames: Vec<FrameRef>,
    /// The rows of `rigid_states.csv` (empty when the run has no bodies).
    pub states: Vec<StateRow>,
}

#[derive(Deserialize)]
struct ManifestIn {
    particle_radius: f64,
    #[serde(default)]
    scene: serde_json::Value,
    frames: Vec<FrameIn>,
}

#[derive(Deserialize)]
struct FrameIn {
    index: u32,
    time: f64,
    fluid: String,
    #[serde(default)]
    rigid: BTreeMap<String, String>,
}

/// Liquid particles of one frame.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct FluidFrame {
    /// Positions, m.
    pub pos: Vec<[f32; 3]>,
    /// Speeds |v|, m/s.
    pub speed: Vec<f32>,
}

/// One fluid vertex as read: position, velocity and which of the six were present.
#[derive(Debug, Clone, Copy, Default)]
struct FluidVertexIn {
    xv: [f32; 6],
    seen: u8,
}

impl PropertyAccess for FluidVertexIn {
    fn new() -> Self {
        Self::default()
    }

    fn set_float(&mut self, name: &str, value: f32) -> PropertyAccessResult {
        let k = match name {
            "x" => 0,
            "y" => 1,
            "z" => 2,
            "vx" => 3,
            "vy" => 4,
            "vz" => 5,
            _ => return PropertyAccessResult::Ignored,
        };
        self.xv[k] = value;
        self.seen |= 1 << k;
        PropertyAccessResult::Set
    }
}

fn not_a_run(dir: &Path, what: &str) -> Error {
    Error::input(format!(
        "{}: {what}; fix: give the output directory of a finished `sphrigid run` (the one holding manifest.json)",
        dir.display()
    ))
}

impl RunData {
    /// Read the manifest and `rigid_states.csv` of the run in `dir`.
    pub fn open(dir: &Path) -> Result<RunData> {
        if !dir.is_dir() {
            return Err(not_a_run(dir, "no such run directory"));
        }
        let manifest_path = dir.join("manifest.json");
        let text = std::fs::read_to_string(&manifest_path)
            .map_err(|e| not_a_run(&manifest_path, &format!("cannot read the manifest ({e})")))?;
        let m: ManifestIn = serde_json::from_str(&text)
            .map_err(|e| not_a_run(&manifest_path, &format!("not a sphrigid manifest ({e})")))?;
        if m.frames.is_empty() {
            return Err(not_a_run(&manifest_path, "the manifest lists no frames"));
        }
        let container = m.scene.get("container").and_then(|c| {
            let v3 = |k: &str| -> Option<[f64; 3]> {
                let a = c.get(k)?.as_array()?;
                (a.len() == 3).then_some(())?;
                let v: Vec<f64> = a.iter().filter_map(|x| x.as_f64()).collect();
                v.try_into().ok()
            };
            Some((v3("min")?, v3("max")?))
        });
        let frames = m
            .frames
            .into_iter()
            .map(|f| FrameRef {
                index: f.index,
                time: f.time,
                fluid: dir.join(f.fluid),
                rigid: f.rigid.into_iter().map(|(k, v)| (k, dir.join(v))).collect(),
            })
            .collect();
        let states_path = dir.join("rigid_states.csv");
        let states = if states_path.exists() {
            let text = std::fs::read_to_string(&states_path)
                .map_err(|e| not_a_run(&states_path, &format!("cannot read it ({e})")))?;
            states_csv::parse(&text).map_err(|e| {
                Error::input(format!(
                    "{}: {e}; fix: rerun the scene to rewrite the file",
                    states_path.display()
                ))
            })?
        } else {
            Vec::new()
        };
        Ok(RunData {
            dir: dir.to_path_buf(),
            particle_radius: m.particle_radius,
            container,
            frames,
            states,
        })
    }

    /// Body names in the order they first appear in `rigid_states.csv`, else in the manifest.
    pub fn bodies(&self) -> Vec<String> {
        let mut names: Vec<String> = Vec::new();
        let from_manifest = self.frames.iter().flat_map(|f| f.rigid.keys());
        for n in self.states.iter().map(|r| &r.body).chain(from_manifest) {
            if !names.contains(n) {
                names.push(n.clone());
            }
        }
        names
    }

    /// The frame with index `index`.
    pub fn frame(&self, index: u32) -> Option<&FrameRef> {
        self.frames.iter().find(|f| f.index == index)
    }
}

/// Read a fluid PLY: positions and speeds of its particles.
pub fn read_fluid(path: &Path) -> Result<FluidFrame> {
    let bad = |what: String| {
        Error::input(format!(
            "{}: {what}; fix: rerun the scene to rewrite the frame",
            path.display()
        ))
    };
    let file =
        std::fs::File::open(path).map_err(|e| bad(format!("cannot read the frame ({e})")))?;
    let mut reader = std::io::BufReader::new(file);
    let ply = ply_rs_bw::parser::Parser::<FluidVertexIn>::new()
        .read_ply(&mut reader)
        .map_err(|e| bad(format!("not a readable PLY file ({e})")))?;
    let verts = ply.payload.get("vertex").map(Vec::as_slice).unwrap_or(&[]);
    let mut out = FluidFrame {
        pos: Vec::with_capacity(verts.len()),
        speed: Vec::with_capacity(verts.len()),
    };
    for (i, v) in verts.iter().enumerate() {
        if v.seen != 0b11_1111 {
            return Err(bad(format!(
                "vertex {i} lacks one of the float properties x y z vx vy vz"
            )));
        }
        let [x, y, z, vx, vy, vz] = v.xv;
        out.pos.push([x, y, z]);
        out.speed.push((vx * vx + vy * vy + vz * vz).sqrt());
    }
    Ok(out)
}

/// A body's posed surface in one frame.
#[derive(Debug, Clone, PartialEq)]
pub struct BodyMesh {
    /// Vertex positions, m.
    pub vertices: Vec<[f64; 3]>,
    /// Triangles as vertex indices.
    pub triangles: Vec<[u32; 3]>,
}

/// Read a body's frame PLY.
pub fn read_body(path: &Path) -> Result<BodyMesh> {
    if let Err(e) = std::fs::metadata(path) {
        return Err(Error::input(format!(
            "{}: cannot read the body frame ({e}); fix: rerun the scene to rewrite the frame",
            path.display()
        )));
    }
    let mesh = read_ply(path)?;
    Ok(BodyMesh {
        vertices: mesh.vertices.iter().map(|v| v.to_array()).collect(),
        triangles: mesh.triangles,
    })
}
