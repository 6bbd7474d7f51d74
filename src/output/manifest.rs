//! `OUT/manifest.json`: what a run wrote, rewritten after every frame ([`Manifest::write`]),
//! and the part of it that readers of a run need ([`read`]).
use super::checksum::FileSum;
use super::run_dir::{RunDir, not_a_run};
use super::write_atomic;
use crate::Result;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// One written frame.
#[derive(Debug, Clone, Serialize)]
pub struct FrameEntry {
    /// Frame index (0 is the initial state).
    pub index: u32,
    /// Simulated time, s.
    pub time: f64,
    /// The fluid PLY, relative to the output directory.
    pub fluid: String,
    /// The liquid particles in it (emitters and outlets change the count from frame to frame).
    #[serde(default)]
    pub particles: usize,
    /// Further files of this frame (rigid bodies), by kind.
    #[serde(flatten)]
    pub extra: BTreeMap<String, serde_json::Value>,
    /// Size and CRC-32 of the frame's fluid and body files, by name relative to the output
    /// directory (`--resume` checks them).
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub checksums: BTreeMap<String, FileSum>,
}

/// A stretch of a run computed on one backend (listed once a resume changed the backend).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BackendSegment {
    /// The first frame computed on it (0, or the checkpoint's frame the run resumed from).
    pub from_frame: u32,
    /// The backend's name.
    pub backend: String,
}

/// A step whose contact LCP fell back to penalty.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FallbackEntry {
    /// The step, numbered from 1.
    pub step: u64,
    /// Simulated time at its end, s.
    pub time: f64,
    /// Contact rows of its LCP.
    pub rows: usize,
    /// The solver's outcome.
    pub outcome: String,
    /// Its problem, relative to the output directory, for `sphrigid lcp solve`.
    pub problem: String,
}

/// Units of every quantity in the outputs.
#[derive(Debug, Clone, Serialize)]
pub struct Units {
    /// Length unit.
    pub length: &'static str,
    /// Time unit.
    pub time: &'static str,
    /// Velocity unit.
    pub velocity: &'static str,
    /// Density unit.
    pub density: &'static str,
}

/// The whole manifest.
#[derive(Debug, Clone, Serialize)]
pub struct Manifest {
    /// The program that wrote it.
    pub program: &'static str,
    /// Its version.
    pub version: &'static str,
    /// The scene file.
    pub scene_file: String,
    /// The scene as run (after `--set` and defaults).
    pub scene: serde_json::Value,
    /// CRC-32 of the scene as run without `time.frames` (hex): a resumed run must match it.
    pub scene_hash: String,
    /// Units.
    pub units: Units,
    /// The up axis of every position in the run: always `"y"` (gravity points along -y).
    pub up_axis: &'static str,
    /// The index of the first frame (the initial state): always 0; Blender and Houdini start
    /// at 1 by default.
    pub frame_start: u32,
    /// The compute backend used (by the latest process, when a resume changed it).
    pub backend: String,
    /// The backends of a run resumed with another `--backend`, in order; empty when one
    /// backend computed every frame.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub backend_segments: Vec<BackendSegment>,
    /// Number of liquid particles.
    pub particles: usize,
    /// Liquid particles removed at setup because they started inside a body.
    pub removed_inside_bodies: usize,
    /// Liquid particle radius, m (half the spacing).
    pub particle_radius: f64,
    /// Kernel radius h, m.
    pub kernel_radius: f64,
    /// Rest kernel sum measured on the initial lattice.
    pub rest_kernel_sum: f64,
    /// Frames per second.
    pub fps: f64,
    /// Step size, s.
    pub dt: f64,
    /// Steps per frame.
    pub substeps: u32,
    /// Whether the run finished every frame it was asked for.
    pub complete: bool,
    /// Why an incomplete run stopped, when it was stopped on purpose (a signal).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stopped: Option<String>,
    /// Why an incomplete run failed (a step that could not be taken, a state past its bounds).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub failed: Option<String>,
    /// The step of the last checkpoint (`checkpoint.bin`), which `--resume` continues from.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub checkpoint_step: Option<u64>,
    /// Steps taken so far.
    pub steps: u64,
    /// Wall-clock seconds since the first step, as of the last frame written.
    pub wall_seconds: f64,
    /// Steps whose contact LCP was not solved and fell back to penalty (`coupling.on_failure`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub lcp_fallbacks: Vec<FallbackEntry>,
    /// The settings of the liquid's surfaces (`surface/`), when the run builds them.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub surface: Option<serde_json::Value>,
    /// Size and CRC-32 of each table (`rigid_states.csv`, ...) as of the last frame listed.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub tables: BTreeMap<String, FileSum>,
    /// The frames written so far.
    pub frames: Vec<FrameEntry>,
}

impl Manifest {
    /// List frame `index`'s surface (`surface/surface_NNNNN.ply`) in its entry.
    pub fn add_surface(&mut self, index: u32) {
        if let Some(f) = self.frames.iter_mut().find(|f| f.index == index) {
            f.extra
                .insert("surface".into(), RunDir::surface_frame_name(index).into());
        }
    }

    /// The standard units.
    pub fn si_units() -> Units {
        Units {
            length: "m",
            time: "s",
            velocity: "m/s",
            density: "kg/m^3",
        }
    }

    /// Write the manifest into the run directory (through a temporary file and a rename).
    pub fn write(&self, run: &RunDir) -> Result<()> {
        let json = serde_json::to_vec_pretty(self).expect("the manifest serialises");
        write_atomic(&run.manifest(), &json)
    }
}

/// The scene echo and its hash of the manifest in `run`, as an earlier run wrote them (for a
/// resumed run to compare with); `None` when there is no readable manifest.
pub fn read_scene(run: &RunDir) -> Option<(serde_json::Value, Option<String>)> {
    #[derive(Deserialize)]
    struct SceneIn {
        scene: serde_json::Value,
        #[serde(default)]
        scene_hash: Option<String>,
    }
    let text =
        crate::bounded_read::read_text(&run.manifest(), &crate::bounded_read::MANIFEST).ok()?;
    let m: SceneIn = serde_json::from_str(&text).ok()?;
    Some((m.scene, m.scene_hash))
}

/// What `--resume` checks of an earlier run's manifest: its backend, the files of every
/// frame with their sums (absent from manifests written before sums were recorded) and the
/// tables' sums.
#[derive(Debug, Clone, Default, Deserialize)]
pub struct ResumeRecord {
    /// The backend the earlier run used last.
    #[serde(default)]
    pub backend: String,
    /// Its backend segments (see [`Manifest::backend_segments`]).
    #[serde(default)]
    pub backend_segments: Vec<BackendSegment>,
    /// Whether it finished.
    #[serde(default)]
    pub complete: bool,
    /// Its scene's hash (see [`Manifest::scene_hash`]).
    #[serde(default)]
    pub scene_hash: String,
    /// Its scene file.
    #[serde(default)]
    pub scene_file: String,
    /// The frames it lists.
    #[serde(default)]
    pub frames: Vec<ResumeFrame>,
    /// The tables' sums as of its last frame.
    #[serde(default)]
    pub tables: BTreeMap<String, FileSum>,
}

/// One frame of a [`ResumeRecord`].
#[derive(Debug, Clone, Deserialize)]
pub struct ResumeFrame {
    /// Frame index.
    pub index: u32,
    /// The files' sums (empty in older manifests).
    #[serde(default)]
    pub checksums: BTreeMap<String, FileSum>,
}

/// The manifest of `run` as `--resume` checks it; `None` when there is no readable one.
pub fn read_for_resume(run: &RunDir) -> Option<ResumeRecord> {
    let text =
        crate::bounded_read::read_text(&run.manifest(), &crate::bounded_read::MANIFEST).ok()?;
    serde_json::from_str(&text).ok()
}

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
    /// The liquid's surface mesh of the frame, when one was built.
    pub surface: Option<PathBuf>,
}

/// A finished run's manifest as read back: what readers of the run use of it.
#[derive(Debug, Clone)]
pub struct ManifestRead {
    /// Liquid particle radius, m.
    pub particle_radius: f64,
    /// Kernel radius h, m (absent from the oldest manifests).
    pub kernel_radius: Option<f64>,
    /// Frames per second of simulated time.
    pub fps: f64,
    /// Whether the run finished every frame it was asked for.
    pub complete: bool,
    /// The scene as run (null when the manifest has none).
    pub scene: serde_json::Value,
    /// The frames listed, in order (at least one).
    pub frames: Vec<FrameRef>,
    /// Steps taken (absent from manifests written before it was recorded).
    pub steps: Option<u64>,
    /// Wall-clock seconds of the run (absent likewise).
    pub wall_seconds: Option<f64>,
    /// How many steps fell back to penalty.
    pub lcp_fallbacks: usize,
}

#[derive(Deserialize)]
struct ManifestIn {
    particle_radius: f64,
    #[serde(default)]
    kernel_radius: Option<f64>,
    fps: f64,
    #[serde(default = "finished")]
    complete: bool,
    #[serde(default)]
    scene: serde_json::Value,
    frames: Vec<FrameIn>,
    #[serde(default)]
    steps: Option<u64>,
    #[serde(default)]
    wall_seconds: Option<f64>,
    #[serde(default)]
    lcp_fallbacks: Vec<serde::de::IgnoredAny>,
}

/// Manifests written before `complete` existed were finished runs.
fn finished() -> bool {
    true
}

#[derive(Deserialize)]
struct FrameIn {
    index: u32,
    time: f64,
    fluid: String,
    #[serde(default)]
    rigid: BTreeMap<String, String>,
    #[serde(default)]
    surface: Option<String>,
}

/// The text of the manifest at `path`, through the bounded reader; a missing or unreadable
/// one is an input error naming it.
fn read_manifest_text(path: &Path) -> Result<String> {
    crate::bounded_read::read_text_with(path, &crate::bounded_read::MANIFEST, |e| {
        not_a_run(path, &format!("cannot read the manifest ({e})"))
    })
}

/// Read the manifest of the run in `run`; a missing, unparsable or frameless manifest is an
/// input error naming the file.
pub fn read(run: &RunDir) -> Result<ManifestRead> {
    let manifest_path = run.manifest();
    let text = read_manifest_text(&manifest_path)?;
    let m: ManifestIn = serde_json::from_str(&text)
        .map_err(|e| not_a_run(&manifest_path, &format!("not a sphrigid manifest ({e})")))?;
    if m.frames.is_empty() {
        return Err(not_a_run(&manifest_path, "the manifest lists no frames"));
    }
    let frames = m
        .frames
        .into_iter()
        .map(|f| FrameRef {
            index: f.index,
            time: f.time,
            fluid: run.join(&f.fluid),
            rigid: f
                .rigid
                .into_iter()
                .map(|(k, v)| (k, run.join(&v)))
                .collect(),
            surface: f.surface.map(|s| run.join(&s)),
        })
        .collect();
    Ok(ManifestRead {
        particle_radius: m.particle_radius,
        kernel_radius: m.kernel_radius,
        fps: m.fps,
        complete: m.complete,
        scene: m.scene,
        frames,
        steps: m.steps,
        wall_seconds: m.wall_seconds,
        lcp_fallbacks: m.lcp_fallbacks.len(),
    })
}

/// Record in the manifest of `run` the surfaces of frames `built` (each entry gains
/// `surface`) and the settings they were built with (`surface` at the top).
pub fn record_surfaces(run: &RunDir, settings: serde_json::Value, built: &[u32]) -> Result<()> {
    let path = run.manifest();
    let text = read_manifest_text(&path)?;
    let mut m: serde_json::Value = serde_json::from_str(&text)
        .map_err(|e| not_a_run(&path, &format!("not a sphrigid manifest ({e})")))?;
    let Some(root) = m.as_object_mut() else {
        return Err(not_a_run(&path, "the manifest is not a JSON object"));
    };
    root.insert("surface".into(), settings);
    if let Some(frames) = root
        .get_mut("frames")
        .and_then(serde_json::Value::as_array_mut)
    {
        for f in frames {
            let index = f.get("index").and_then(serde_json::Value::as_u64);
            if let (Some(i), Some(entry)) = (index, f.as_object_mut())
                && built.contains(&(i as u32))
            {
                entry.insert(
                    "surface".into(),
                    RunDir::surface_frame_name(i as u32).into(),
                );
            }
        }
    }
    let json = serde_json::to_vec_pretty(&m).expect("the manifest serialises");
    write_atomic(&path, &json)
}
