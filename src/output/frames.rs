//! Writing a run's frames: `fluid/fluid_NNNNN.ply` per frame and the manifest after each.
use super::manifest::{FrameEntry, Manifest};
use super::ply::{FLUID_PROPERTIES, FluidVertex, PlyBuilder};
use super::{create_dir, write_atomic};
use crate::Result;
use crate::liquid::{LiquidParams, Particles};
use rayon::prelude::*;
use std::path::{Path, PathBuf};

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

/// The file name of fluid frame `index`.
pub fn fluid_name(index: u32) -> String {
    format!("fluid/fluid_{index:05}.ply")
}

/// Writes frames into an output directory and keeps its manifest current.
#[derive(Debug)]
pub struct FrameWriter {
    dir: PathBuf,
    /// The manifest as written so far.
    pub manifest: Manifest,
}

impl FrameWriter {
    /// Create the output directory (and `fluid/`) and write the empty manifest.
    pub fn new(dir: &Path, manifest: Manifest) -> Result<FrameWriter> {
        create_dir(&dir.join("fluid"))?;
        let w = FrameWriter {
            dir: dir.to_path_buf(),
            manifest,
        };
        w.write_manifest()?;
        Ok(w)
    }

    /// The output directory.
    pub fn dir(&self) -> &Path {
        &self.dir
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
        let name = fluid_name(index);
        write_atomic(&self.dir.join(&name), &encode_fluid(p, params, index, time))?;
        self.manifest.frames.push(FrameEntry {
            index,
            time,
            fluid: name,
            extra,
        });
        self.write_manifest()
    }

    /// Mark the run complete (or not) and rewrite the manifest.
    pub fn finish(&mut self, complete: bool) -> Result<()> {
        self.manifest.complete = complete;
        self.write_manifest()
    }

    fn write_manifest(&self) -> Result<()> {
        let json = serde_json::to_vec_pretty(&self.manifest).expect("the manifest serialises");
        write_atomic(&self.dir.join("manifest.json"), &json)
    }
}
