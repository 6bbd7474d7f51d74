//! `OUT/fluid/fluid_NNNNN.ply`: the liquid particles of each frame, written by [`FrameWriter`]
//! (which records every frame in the manifest) and read back by [`read_fluid`].
use super::checksum::FileSum;
use super::manifest::{FrameEntry, Manifest};
use super::ply::{FLUID_PROPERTIES, FluidVertex, PlyBuilder};
use super::run_dir::RunDir;
use super::{create_dir, write_atomic};
use crate::liquid::{LiquidParams, Particles};
use crate::{Error, Result};
use ply_rs_bw::ply::{PropertyAccess, PropertyAccessResult};
use rayon::prelude::*;
use std::path::Path;

/// The PLY bytes of one fluid frame, particles in id order.
pub fn encode_fluid(p: &Particles, params: &LiquidParams, frame: u32, time: f64) -> Vec<u8> {
    let slots = p.slots_by_id();
    let records: Vec<FluidVertex> = slots
        .par_iter()
        .map(|&k| {
            let k = k as usize;
            let (x, v) = (p.pos[k], p.vel[k]);
            let phase = &params.phases[p.phase[k] as usize];
            FluidVertex {
                xyz_v: [x.x, x.y, x.z, v.x, v.y, v.z],
                density: phase.rest_density * p.rho[k] / params.rho0,
                id: p.id[k] as i32,
            }
        })
        .collect();
    let mut b = PlyBuilder::new(&[
        format!("sphrigid {} fluid frame {frame}", env!("CARGO_PKG_VERSION")),
        format!("time {time:.9}"),
    ]);
    b.vertex_element(records.len(), &FLUID_PROPERTIES)
        .push(&records);
    b.finish()
}

/// Writes fluid frames into a run directory and keeps its manifest current.
#[derive(Debug)]
pub struct FrameWriter {
    run: RunDir,
    /// The manifest as written so far.
    pub manifest: Manifest,
}

impl FrameWriter {
    /// Create the run directory (and `fluid/`) and write the empty manifest.
    pub fn new(run: &RunDir, manifest: Manifest) -> Result<FrameWriter> {
        create_dir(&run.fluid_dir())?;
        let w = FrameWriter {
            run: run.clone(),
            manifest,
        };
        w.manifest.write(&w.run)?;
        Ok(w)
    }

    /// The run directory.
    pub fn run(&self) -> &RunDir {
        &self.run
    }

    /// Write one frame's fluid file and record it in the manifest.
    pub fn write_frame(
        &mut self,
        p: &Particles,
        params: &LiquidParams,
        index: u32,
        time: f64,
    ) -> Result<()> {
        self.write_frame_with(p, params, index, time, Default::default())
    }

    /// Write one frame's fluid file and record it in the manifest together with the frame's
    /// other files (`extra`, e.g. the rigid bodies' frames, already written).
    pub fn write_frame_with(
        &mut self,
        p: &Particles,
        params: &LiquidParams,
        index: u32,
        time: f64,
        extra: std::collections::BTreeMap<String, serde_json::Value>,
    ) -> Result<()> {
        self.write_frame_files(p, params, index, time, extra, Default::default())?;
        self.manifest.write(&self.run)
    }

    /// Write one frame's fluid file and list it in the manifest in memory (not yet written,
    /// see [`FrameWriter::write_manifest`]) with the frame's other files (`extra`) and their
    /// sums (`sums`), the fluid file's sum added.
    pub fn write_frame_files(
        &mut self,
        p: &Particles,
        params: &LiquidParams,
        index: u32,
        time: f64,
        extra: std::collections::BTreeMap<String, serde_json::Value>,
        mut sums: std::collections::BTreeMap<String, FileSum>,
    ) -> Result<()> {
        let name = RunDir::fluid_frame_name(index);
        let bytes = encode_fluid(p, params, index, time);
        write_atomic(&self.run.join(&name), &bytes)?;
        sums.insert(name.clone(), FileSum::of(&bytes));
        self.manifest.frames.push(FrameEntry {
            index,
            time,
            fluid: name,
            particles: p.len(),
            extra,
            checksums: sums,
        });
        Ok(())
    }

    /// Write the manifest as it stands.
    pub fn write_manifest(&self) -> Result<()> {
        self.manifest.write(&self.run)
    }

    /// Mark the run complete (or not) and rewrite the manifest.
    pub fn finish(&mut self, complete: bool) -> Result<()> {
        self.manifest.complete = complete;
        self.manifest.write(&self.run)
    }
}

/// The particles a fluid PLY lists, read off its header (`element vertex N`); 0 when the
/// header does not say (the frame's sums are checked elsewhere).
pub fn particle_count(path: &Path) -> usize {
    use std::io::Read;
    let mut head = [0u8; 512];
    let n = std::fs::File::open(path)
        .and_then(|mut f| f.read(&mut head))
        .unwrap_or(0);
    String::from_utf8_lossy(&head[..n])
        .lines()
        .find_map(|l| l.strip_prefix("element vertex "))
        .and_then(|c| c.trim().parse().ok())
        .unwrap_or(0)
}

/// Liquid particles of one frame, as read back.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct FluidFrame {
    /// Positions, m.
    pub pos: Vec<[f32; 3]>,
    /// Speeds |v|, m/s.
    pub speed: Vec<f32>,
}

/// Every property of the particles of one frame, as read back (in file order, which is id
/// order).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct FluidPoints {
    /// Positions, m.
    pub pos: Vec<[f32; 3]>,
    /// Velocities, m/s.
    pub vel: Vec<[f32; 3]>,
    /// Densities, kg/m^3.
    pub density: Vec<f32>,
    /// Particle ids.
    pub id: Vec<i32>,
}

/// One fluid vertex as read: position, velocity, density, id and which of them were present.
#[derive(Debug, Clone, Copy, Default)]
struct FluidVertexIn {
    xv: [f32; 7],
    id: i32,
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
            "density" => 6,
            _ => return PropertyAccessResult::Ignored,
        };
        self.xv[k] = value;
        self.seen |= 1 << k;
        PropertyAccessResult::Set
    }

    fn set_int(&mut self, name: &str, value: i32) -> PropertyAccessResult {
        if name != "id" {
            return PropertyAccessResult::Ignored;
        }
        self.id = value;
        self.seen |= 1 << 7;
        PropertyAccessResult::Set
    }
}

/// Read a fluid PLY: positions and speeds of its particles.
pub fn read_fluid(path: &Path) -> Result<FluidFrame> {
    let points = read_fluid_points(path)?;
    let speed = points
        .vel
        .iter()
        .map(|[vx, vy, vz]| (vx * vx + vy * vy + vz * vz).sqrt())
        .collect();
    Ok(FluidFrame {
        pos: points.pos,
        speed,
    })
}

/// Read a fluid PLY with every property of its particles; a vertex without `x y z vx vy vz`,
/// or with a non-finite value, is an input error naming the file and the particle (density
/// and id read as 0 where absent).
pub fn read_fluid_points(path: &Path) -> Result<FluidPoints> {
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
    let n = verts.len();
    let mut out = FluidPoints {
        pos: Vec::with_capacity(n),
        vel: Vec::with_capacity(n),
        density: Vec::with_capacity(n),
        id: Vec::with_capacity(n),
    };
    for (i, v) in verts.iter().enumerate() {
        if v.seen & 0b11_1111 != 0b11_1111 {
            return Err(bad(format!(
                "vertex {i} lacks one of the float properties x y z vx vy vz"
            )));
        }
        if let Some(k) = v.xv.iter().position(|c| !c.is_finite()) {
            let name = ["x", "y", "z", "vx", "vy", "vz", "density"][k];
            return Err(bad(format!(
                "particle {i} (vertex {i}) has {name} = {}, not a finite number",
                v.xv[k]
            )));
        }
        let [x, y, z, vx, vy, vz, density] = v.xv;
        out.pos.push([x, y, z]);
        out.vel.push([vx, vy, vz]);
        out.density.push(density);
        out.id.push(v.id);
    }
    Ok(out)
}
