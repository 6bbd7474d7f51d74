//! What `sphrigid figure` takes of a finished run: its manifest and `rigid_states.csv`, read
//! through output/ (which also reads the fluid and body frames).
use crate::Result;
use crate::output::manifest::{self, FrameRef};
use crate::output::rigid_states::{self, StateRow};
use crate::output::run_dir::RunDir;
use std::path::Path;

/// What `sphrigid figure` needs of a run directory.
#[derive(Debug, Clone)]
pub struct RunData {
    /// The run directory.
    pub dir: RunDir,
    /// Liquid particle radius, m.
    pub particle_radius: f64,
    /// The container box (min, max) when the scene has one.
    pub container: Option<([f64; 3], [f64; 3])>,
    /// The frames in the manifest, in order.
    pub frames: Vec<FrameRef>,
    /// The rows of `rigid_states.csv` (empty when the run has no bodies).
    pub states: Vec<StateRow>,
}

impl RunData {
    /// Read the manifest and `rigid_states.csv` of the run in `dir`.
    pub fn open(dir: &Path) -> Result<RunData> {
        let run = RunDir::open(dir)?;
        let m = manifest::read(&run)?;
        let container = m.scene.get("container").and_then(|c| {
            let v3 = |k: &str| -> Option<[f64; 3]> {
                let a = c.get(k)?.as_array()?;
                (a.len() == 3).then_some(())?;
                let v: Vec<f64> = a.iter().filter_map(|x| x.as_f64()).collect();
                v.try_into().ok()
            };
            Some((v3("min")?, v3("max")?))
        });
        let states = rigid_states::read(&run)?;
        Ok(RunData {
            dir: run,
            particle_radius: m.particle_radius,
            container,
            frames: m.frames,
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
