//! Scene files: every serde type of a scene (one module per table: time, liquid, body, joint, gauge,
//! coupling, under the root in `schema`), every check of its values (each table's own, walked
//! by `validate`, all reporting one [`Problem`] type), reading the TOML (its bracket depth
//! bounded first, `nesting`) and applying `--set`
//! overrides. Nothing here imports the physics except `rigid::Integrator`, whose names a body
//! table is checked against, and the solids `liquid_shape` makes of `shape` tables (meshes
//! read through `output::mesh_files`; a shaped liquid block is posed, and its bounds checked,
//! as the scene is loaded); `sim::build` turns a loaded scene into physics input.
pub(crate) mod body;
pub(crate) mod coupling;
pub(crate) mod gauge;
pub(crate) mod joint;
pub(crate) mod keyframe_file;
pub(crate) mod limits;
pub(crate) mod liquid;
pub(crate) mod liquid_shape;
pub(crate) mod locate;
pub(crate) mod motion;
pub(crate) mod nesting;
pub(crate) mod output;
pub(crate) mod overrides;
pub(crate) mod problem;
pub(crate) mod schema;
pub(crate) mod sources;
pub(crate) mod stiffness;
pub(crate) mod time;
pub(crate) mod validate;

pub use body::{BodySpec, OrientationSpec, Scale, ShapeSpec};
pub use coupling::{CouplingMethod, CouplingSpec, LcpSolverChoice, OnLcpFailure};
pub use gauge::{GaugeSpec, GaugeType};
pub use joint::{JointSpec, JointType};
pub use liquid::{Container, LiquidBlock, SolverSpec, Viscosity};
pub use output::OutputSpec;
pub use overrides::Override;
pub use problem::Problem;
pub use schema::Scene;
pub use sources::{EmitterSpec, Face, NozzleSpec, OutletSpec};
pub use time::TimeSpec;

use crate::{Error, Result, bounded_read};
use locate::{line_col, path_at};
use serde::Deserialize;
use std::path::{Path, PathBuf};

/// A scene read from a file, with the file's name and text kept for messages.
#[derive(Debug, Clone)]
pub struct LoadedScene {
    /// The parsed, overridden and validated scene.
    pub scene: Scene,
    /// The scene file.
    pub file: PathBuf,
    /// The file's text.
    pub text: String,
}

impl LoadedScene {
    /// The directory that relative paths inside the scene (meshes) are resolved against.
    pub fn base_dir(&self) -> PathBuf {
        self.file
            .parent()
            .map(Path::to_path_buf)
            .unwrap_or_default()
    }

    /// The output directory: `--out`, else the scene's `output`, else `out/<file stem>`.
    pub fn output_dir(&self, out: Option<&Path>) -> PathBuf {
        if let Some(o) = out {
            return o.to_path_buf();
        }
        if let Some(o) = &self.scene.output.dir {
            return o.clone();
        }
        let stem = self
            .file
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned());
        Path::new("out").join(stem.unwrap_or_else(|| "scene".into()))
    }
}

fn toml_error(file: &Path, text: &str, e: &toml::de::Error, fix: &str) -> Error {
    let place = match e.span() {
        Some(span) => {
            let (line, col) = line_col(text, span.start);
            match path_at(text, span.start) {
                Some(path) => format!("{}:{line}:{col}: {path}", file.display()),
                None => format!("{}:{line}:{col}", file.display()),
            }
        }
        None => file.display().to_string(),
    };
    Error::input(format!("{place}: {}; fix: {fix}", e.message().trim()))
}

/// The text of a scene file, through the bounded reader: a special file, one past
/// `bounded_read::SCENE`'s size or one that is not UTF-8 is refused, naming the file.
pub fn read(file: &Path) -> Result<String> {
    bounded_read::read_text_with(file, &bounded_read::SCENE, |e| {
        Error::input(format!(
            "cannot read scene file {}: {e}; fix: check the path (scenes live in scenes/, e.g. scenes/dam_break.toml)",
            file.display()
        ))
    })
}

/// Read, override and validate a scene file.
///
/// ```no_run
/// use std::path::Path;
///
/// // As `sphrigid run scenes/dam_break.toml --set liquid.0.spacing=0.02`.
/// let sets = ["liquid.0.spacing=0.02".to_string()];
/// let loaded = sphrigid::scene::load(Path::new("scenes/dam_break.toml"), &sets)?;
/// println!("{} frames at {} fps", loaded.scene.time.frames, loaded.scene.time.fps);
/// # Ok::<(), sphrigid::Error>(())
/// ```
pub fn load(file: &Path, sets: &[String]) -> Result<LoadedScene> {
    let text = read(file)?;
    parse(text, file, sets)
}

/// Parse, override and validate scene text; `file` names it in messages and anchors relative
/// paths.
pub fn parse(text: String, file: &Path, sets: &[String]) -> Result<LoadedScene> {
    let fix = "see docs/src/guide/scene-files.md for every key and its type";
    nesting::check(&text, file)?;
    let mut scene: Scene = toml::from_str(&text).map_err(|e| toml_error(file, &text, &e, fix))?;
    let mut table: toml::Table =
        toml::from_str(&text).map_err(|e| toml_error(file, &text, &e, fix))?;
    if !sets.is_empty() {
        for s in sets {
            Override::parse(s)?.apply(&mut table)?;
        }
        scene = Scene::deserialize(toml::Value::Table(table.clone())).map_err(|e| {
            Error::input(format!(
                "{} with --set {}: {}; fix: {fix}",
                file.display(),
                sets.join(" --set "),
                e.message().trim()
            ))
        })?;
    }
    // A problem with a value that a --set gave is blamed on the --set, not the file's line.
    let blame = |p: Problem| match sets
        .iter()
        .filter_map(|s| Override::parse(s).ok())
        .find(|o| o.path == p.path)
    {
        Some(o) => Error::input(format!(
            "{} with --set {}: {}: {}; fix: {}",
            file.display(),
            o.text,
            p.path,
            p.problem,
            p.fix
        )),
        None => p.to_error(file, &text),
    };
    limits::check_array_lengths(&table, &scene).map_err(blame)?;
    validate::validate(&scene).map_err(blame)?;
    let base = file.parent().map(Path::to_path_buf).unwrap_or_default();
    liquid_shape::resolve(&mut scene, &base).map_err(blame)?;
    scene.resolve_stiffness();
    Ok(LoadedScene {
        scene,
        file: file.to_path_buf(),
        text,
    })
}
