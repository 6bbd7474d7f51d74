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
    /// Gravity, m/s^2 (the scene's; standard gravity along -y when the manifest lacks it).
    pub gravity: [f64; 3],
    /// The first liquid block's rest density (kg/m^3) and stiffness `k` (m^2/s^2), when the
    /// scene has liquid.
    pub liquid: Option<LiquidConstants>,
    /// The scene's gauges: `(name, type)` of each `[[gauge]]` table.
    pub gauges: Vec<(String, String)>,
}

/// The constants of a liquid block that the plots of `sphrigid figure` need.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LiquidConstants {
    /// Rest density, kg/m^3 (the frames' `density` of a particle at its rest kernel sum).
    pub rest_density: f64,
    /// Stiffness `k`, m^2/s^2: the reported pressure is `k (density - rest_density)`.
    pub stiffness: f64,
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
        let gravity = m
            .scene
            .get("gravity")
            .and_then(|g| {
                let v: Vec<f64> = g.as_array()?.iter().filter_map(|x| x.as_f64()).collect();
                v.try_into().ok()
            })
            .unwrap_or([0.0, -9.81, 0.0]);
        let liquid = m.scene.get("liquid").and_then(|l| l.get(0)).and_then(|b| {
            Some(LiquidConstants {
                rest_density: b.get("density")?.as_f64()?,
                stiffness: b.get("stiffness")?.as_f64()?,
            })
        });
        let gauges = m
            .scene
            .get("gauge")
            .and_then(|g| g.as_array())
            .map(|all| {
                all.iter()
                    .filter_map(|g| {
                        let name = g.get("name")?.as_str()?;
                        let kind = g.get("type")?.as_str()?;
                        Some((name.to_string(), kind.to_string()))
                    })
                    .collect()
            })
            .unwrap_or_default();
        Ok(RunData {
            dir: run,
            particle_radius: m.particle_radius,
            container,
            frames: m.frames,
            states,
            gravity,
            liquid,
            gauges,
        })
    }

    /// The type (`"height"`, `"pressure"`) of the gauge named `name`.
    pub fn gauge_kind(&self, name: &str) -> Option<&str> {
        self.gauges
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, k)| k.as_str())
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
