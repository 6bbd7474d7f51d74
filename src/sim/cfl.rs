//! The CFL check of a scene's own step: a scene that sets `time.substeps` or `time.dt` takes
//! that step even where it is longer than the CFL bound (`solver.cfl`), and its frames are then
//! garbage. [`check`] finds such a step and says how many substeps would be stable; `run` and
//! `check` warn with it, and `--strict-cfl` makes it an error.
use super::build::Stepping;
use crate::Error;
use crate::scene::locate::KeyPath;
use crate::scene::{LoadedScene, Problem};

/// A scene step longer than the CFL bound.
#[derive(Debug, Clone, PartialEq)]
pub struct CflExcess {
    /// The key that sets the step: `time.substeps` or `time.dt`.
    pub key: &'static str,
    /// The step taken, s.
    pub dt: f64,
    /// The CFL number of that step (`solver.cfl` scaled by the step over the stable step).
    pub cfl: f64,
    /// The bound, `solver.cfl`.
    pub limit: f64,
    /// Steps per frame taken.
    pub substeps: u32,
    /// The fewest steps per frame within the bound.
    pub stable_substeps: u32,
}

/// The excess of the scene's own step over the CFL bound; `None` when the step is within it,
/// or when the scene leaves the step to the bound (the scene's stepping alone: no particle is
/// made).
pub fn check(loaded: &LoadedScene, liquid: &Stepping) -> Option<CflExcess> {
    let scene = &loaded.scene;
    let key = if scene.time.substeps.is_some() {
        "time.substeps"
    } else if scene.time.dt.is_some() {
        "time.dt"
    } else {
        return None;
    };
    let stable = liquid.stable_dt;
    if !(stable.is_finite() && stable > 0.0) || liquid.dt <= stable * (1.0 + 1e-9) {
        return None;
    }
    let limit = scene.solver.cfl;
    Some(CflExcess {
        key,
        dt: liquid.dt,
        cfl: limit * liquid.dt / stable,
        limit,
        substeps: liquid.substeps,
        stable_substeps: (1.0 / (scene.time.fps * stable)).ceil().min(1e6) as u32,
    })
}

impl CflExcess {
    /// The finding as an input error naming the scene file, the line of the key and the fix.
    pub fn to_error(&self, loaded: &LoadedScene) -> Error {
        Problem::new(
            KeyPath::parse_dotted(self.key),
            format!(
                "a step of {:.3e} s ({} per frame) has CFL number {:.3}, above the bound solver.cfl = {}",
                self.dt, self.substeps, self.cfl, self.limit
            ),
            format!(
                "use time.substeps = {} or more (or leave time.substeps and time.dt out to follow the bound)",
                self.stable_substeps
            ),
        )
        .to_error(&loaded.file, &loaded.text)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::build;

    fn loaded(time: &str) -> LoadedScene {
        let text = format!(
            "[time]\nfps = 30\n{time}\n[[liquid]]\nmin = [0.0, 0.0, 0.0]\nmax = [0.1, 0.1, 0.1]\nspacing = 0.01\nstiffness = 1e5\nvelocity = [0.0, -50.0, 0.0]\n"
        );
        crate::scene::parse(text, std::path::Path::new("t.toml"), &[]).unwrap()
    }

    #[test]
    fn a_scene_step_past_the_bound_is_found_with_the_stable_substeps() {
        let l = loaded("substeps = 1");
        let setup = build::stepping(&l.scene);
        let e = check(&l, &setup).expect("one step a frame is far past the bound");
        assert_eq!((e.key, e.substeps), ("time.substeps", 1));
        assert!(e.cfl > 10.0 * e.limit, "{e:?}");
        // The substeps it names are within the bound, and one fewer is not.
        let stable = setup.stable_dt;
        let frame = 1.0 / 30.0;
        assert!(frame / e.stable_substeps as f64 <= stable * (1.0 + 1e-9));
        assert!(frame / (e.stable_substeps - 1) as f64 > stable);
        let ok = loaded(&format!("substeps = {}", e.stable_substeps));
        assert_eq!(check(&ok, &build::stepping(&ok.scene)), None);
        // A step left to the bound is never past it.
        let auto = loaded("");
        assert_eq!(check(&auto, &build::stepping(&auto.scene)), None);
        let msg = e.to_error(&l).to_string();
        assert!(
            msg.starts_with("t.toml:3: time.substeps:") && msg.contains("fix: use time.substeps"),
            "{msg}"
        );
    }
}
