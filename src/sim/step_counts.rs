//! The step counts a scene derives rather than types, held to the limit a typed one has: the
//! steps per frame that follow from the CFL bound, and the settling steps before time 0, are
//! refused past [`MAX_SUBSTEPS`] before anything is allocated or settled, naming the key that
//! drove them (a stiffness, a speed, gravity, the spacing, the frame rate) and the fix. Without
//! this, a step chosen for a stiff or fast liquid would silently run a million steps a frame.
use super::build::{self, Stepping};
use crate::Result;
use crate::scene::limits::MAX_SUBSTEPS;
use crate::scene::locate::KeyPath;
use crate::scene::{LoadedScene, Problem, Scene};
use glam::DVec3;

/// The most steps the liquid settles for before time 0: the limit of steps per frame.
pub const MAX_SETTLE_STEPS: u32 = MAX_SUBSTEPS;

/// A kernel radius and a speed of a usual scene (the dam break's), against which the key that
/// shortens a step most is told apart: a spacing far finer, or a speed far faster.
const USUAL_H: f64 = 0.02;
const USUAL_SPEED: f64 = 10.0;

/// Refuse a scene whose derived steps per frame or settling steps pass the limits, as an input
/// error naming the scene file, the key that drove the count and the fix.
pub fn check(loaded: &LoadedScene) -> Result<()> {
    problem(&loaded.scene, &build::stepping(&loaded.scene))
        .map_or(Ok(()), |p| Err(p.to_error(&loaded.file, &loaded.text)))
}

/// As [`check`], for a scene and its stepping; `None` when every count is within its limit.
pub fn problem(scene: &Scene, stepping: &Stepping) -> Option<Problem> {
    substeps_problem(scene, stepping).or_else(|| settle_problem(scene, stepping))
}

/// One term that bounds the stable step: the key it comes from, and what it is in words.
struct Term {
    dt: f64,
    key: KeyPath,
    what: String,
}

/// The term of the scene that sets its stable step (the smallest over blocks and terms).
fn limiting_term(scene: &Scene) -> Option<(Term, f64, f64)> {
    let first = scene.liquid.first()?;
    let (s, ratio) = (first.spacing, first.kernel_radius);
    let h = s * ratio;
    let cfl = scene.solver.cfl;
    let g = DVec3::from_array(scene.gravity).length();
    let root = KeyPath::new();
    let mut best: Option<(Term, f64, f64)> = None;
    for (i, b) in scene.liquid.iter().enumerate() {
        let at = root.key("liquid").index(i);
        let near = build::near_stiffness(scene, b, s, ratio);
        let (c, c_key, c_what) = if scene.stiffness(b) >= near {
            (
                scene.stiffness(b).sqrt(),
                at.key("stiffness"),
                "sound speed sqrt(stiffness)",
            )
        } else if b.near_stiffness.is_some() {
            (
                near.sqrt(),
                at.key("near_stiffness"),
                "near sound speed sqrt(near_stiffness)",
            )
        } else {
            (
                near.sqrt(),
                root.key("gravity"),
                "near sound speed of the default near_stiffness, which grows with gravity",
            )
        };
        let v0 = DVec3::from_array(b.velocity).length();
        let (min, max) = b.bounds();
        let v_fall = (2.0 * g * (max[1] - min[1]).abs()).sqrt();
        let speed = (c + v0 + v_fall).max(1e-12);
        let dt = cfl * h / speed;
        let (key, what) = if c >= v0 && c >= v_fall {
            (c_key, format!("{c:.3e} m/s, the {c_what}"))
        } else if v0 >= v_fall {
            (
                at.key("velocity"),
                format!("{v0:.3e} m/s, its initial speed"),
            )
        } else {
            (
                root.key("gravity"),
                format!(
                    "{v_fall:.3e} m/s, the speed of a fall through its {:.3} m under gravity",
                    (max[1] - min[1]).abs()
                ),
            )
        };
        let mut term = Term {
            dt,
            key,
            what: format!(
                "solver.cfl {cfl} x kernel radius {h:.3e} m / {speed:.3e} m/s, most of it {what}"
            ),
        };
        if b.viscosity.sigma > 0.0 && cfl / b.viscosity.sigma < dt {
            term = Term {
                dt: cfl / b.viscosity.sigma,
                key: at.key("viscosity").key("sigma"),
                what: format!("solver.cfl {cfl} / viscosity.sigma {}", b.viscosity.sigma),
            };
        }
        if best.as_ref().is_none_or(|(t, ..)| term.dt < t.dt) {
            best = Some((term, h, speed));
        }
    }
    best
}

/// The steps per frame that the CFL bound sets (no `time.substeps` or `time.dt` given), past
/// [`MAX_SUBSTEPS`].
fn substeps_problem(scene: &Scene, stepping: &Stepping) -> Option<Problem> {
    let t = &scene.time;
    if t.substeps.is_some() || t.dt.is_some() || !stepping.stable_dt.is_finite() {
        return None;
    }
    let steps = (1.0 / (t.fps * stepping.stable_dt)).ceil();
    if steps <= MAX_SUBSTEPS as f64 {
        return None;
    }
    let (term, h, speed) = limiting_term(scene)?;
    let what = format!(
        "the stable step of {:.3e} s ({}) takes {steps:.3e} steps per frame at {} fps, more \
         than the {MAX_SUBSTEPS} a scene may take",
        stepping.stable_dt, term.what, t.fps
    );
    // At the usual 60 fps the frame would fit: the long frame drove the count.
    if t.fps < 60.0 && 1.0 / (60.0 * stepping.stable_dt) <= MAX_SUBSTEPS as f64 {
        let fps = 1.0 / (MAX_SUBSTEPS as f64 * stepping.stable_dt);
        return Some(Problem::new(
            KeyPath::new().key("time").key("fps"),
            what,
            format!("write more frames per second (time.fps = {fps:.3e} or more)"),
        ));
    }
    if term.key.to_string().ends_with("sigma") {
        return Some(Problem::new(
            term.key,
            what,
            "lower the viscosity, or write more frames per second",
        ));
    }
    // A spacing much finer than usual, rather than a speed much faster, shortened the step.
    if USUAL_H / h > speed / USUAL_SPEED {
        return Some(Problem::new(
            KeyPath::new().key("liquid").index(0).key("spacing"),
            what,
            "raise liquid[0].spacing (the stable step grows with it), or write more frames per \
             second",
        ));
    }
    let key = term.key.to_string();
    Some(Problem::new(
        term.key,
        what,
        format!(
            "lower {key} (the stable step shrinks as the speed grows), raise liquid[0].spacing, \
             or write more frames per second"
        ),
    ))
}

/// Settling before time 0 that takes more than [`MAX_SETTLE_STEPS`] steps.
fn settle_problem(scene: &Scene, stepping: &Stepping) -> Option<Problem> {
    if !scene.solver.settle || stepping.settle.steps == 0 {
        return None;
    }
    // As the settling plan counts them, before its own cap: four crossings of the tallest
    // block at the stiffest block's sound speed.
    let down = DVec3::from_array(scene.gravity).try_normalize()?;
    let (mut height, mut tallest) = (0.0, 0);
    for (i, b) in scene.liquid.iter().enumerate() {
        let (min, max) = b.bounds();
        let extent = (DVec3::from_array(max) - DVec3::from_array(min))
            .abs()
            .dot(down.abs());
        if extent > height {
            (height, tallest) = (extent, i);
        }
    }
    let c = scene
        .liquid
        .iter()
        .map(|b| scene.stiffness(b).sqrt())
        .fold(0.0, f64::max);
    let steps = (4.0 * height / c / stepping.dt).ceil();
    if steps <= MAX_SETTLE_STEPS as f64 {
        return None;
    }
    Some(Problem::new(
        KeyPath::new().key("solver").key("settle"),
        format!(
            "the liquid would settle for {steps:.3e} steps before time 0 (four sound crossings \
             of liquid[{tallest}], {height:.3} m tall, at {c:.3e} m/s, in steps of {:.3e} s), \
             more than the {MAX_SETTLE_STEPS} a scene may take",
            stepping.dt
        ),
        "set solver.settle = false to start without settling, or make the liquid stiffer or \
         coarser (settling lasts 4 H / c, in steps of about solver.cfl h / c)",
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scene(extra: &str, liquid: &str) -> LoadedScene {
        let text = format!(
            "{extra}\n[[liquid]]\nmin = [0.0, 0.0, 0.0]\nmax = [0.1, 0.1, 0.1]\nspacing = 0.01\n{liquid}\n"
        );
        crate::scene::parse(text, std::path::Path::new("t.toml"), &[]).unwrap()
    }

    fn message(l: &LoadedScene) -> String {
        check(l).unwrap_err().to_string()
    }

    #[test]
    fn a_usual_scene_passes() {
        check(&scene("", "")).unwrap();
    }

    #[test]
    fn a_derived_step_count_past_the_limit_names_what_drove_it() {
        // The stiffest liquid at 30 fps: 1e5 m/s over a kernel radius of 2 cm.
        let m = message(&scene("[time]\nfps = 30", "stiffness = 1e10"));
        assert!(
            m.starts_with("t.toml:7: liquid[0].stiffness: the stable step")
                && m.contains("more than the 100000"),
            "{m}"
        );
        // A fast block.
        let m = message(&scene("", "velocity = [0.0, -9e4, 0.0]\nstiffness = 100.0"));
        assert!(m.contains(": liquid[0].velocity: "), "{m}");
        // A spacing a thousand times finer than usual.
        let text = "[[liquid]]\nmin = [0.0, 0.0, 0.0]\nmax = [1e-6, 1e-6, 1e-6]\nspacing = 1e-7\n";
        let l = crate::scene::parse(text.into(), std::path::Path::new("t.toml"), &[]).unwrap();
        let m = message(&l);
        assert!(m.contains(": liquid[0].spacing: "), "{m}");
        // A frame a thousand seconds long.
        let m = message(&scene("[time]\nfps = 0.001", ""));
        assert!(
            m.contains(": time.fps: ") && m.contains("write more frames"),
            "{m}"
        );
    }

    #[test]
    fn a_typed_step_is_left_to_the_typed_limits() {
        // time.substeps takes the CFL warning, not this refusal.
        check(&scene(
            "[time]\nfps = 30\nsubsteps = 10",
            "stiffness = 1e10",
        ))
        .unwrap();
    }

    #[test]
    fn settling_past_the_limit_is_refused_and_can_be_turned_off() {
        // A soft liquid in short steps: 4 H / c over dt.
        let l = scene("[time]\nfps = 1000\nsubsteps = 100000", "stiffness = 1.0");
        let m = message(&l);
        assert!(
            m.contains(": solver.settle: the liquid would settle for"),
            "{m}"
        );
        check(&scene(
            "[time]\nfps = 1000\nsubsteps = 100000\n[solver]\nsettle = false",
            "stiffness = 1.0",
        ))
        .unwrap();
    }
}
