//! Checks on a parsed scene: every value in range, every block inside its container.
use super::locate::{KeyPath, line_of};
use super::schema::Scene;
use crate::{Error, Result};
use std::path::Path;

/// Where a scene came from, so that errors can name the file and the line.
pub struct Origin<'a> {
    /// The scene file.
    pub file: &'a Path,
    /// Its text.
    pub text: &'a str,
}

impl Origin<'_> {
    /// An input error about the value at `path`, naming the file, the line and the fix.
    pub fn error(&self, path: &KeyPath, problem: &str, fix: &str) -> Error {
        let place = match line_of(self.text, path) {
            Some(line) => format!("{}:{line}", self.file.display()),
            None => format!("{} (value from a default or --set)", self.file.display()),
        };
        Error::input(format!("{place}: {path}: {problem}; fix: {fix}"))
    }
}

fn finite3(v: &[f64; 3]) -> bool {
    v.iter().all(|x| x.is_finite())
}

/// Check every value of the scene; the first problem found is returned as an input error.
pub fn validate(scene: &Scene, origin: &Origin) -> Result<()> {
    let root = KeyPath::new();
    let err = |path: KeyPath, problem: String, fix: &str| Err(origin.error(&path, &problem, fix));
    if !finite3(&scene.gravity) {
        return err(
            root.key("gravity"),
            format!("{:?} is not finite", scene.gravity),
            "give three numbers in m/s^2",
        );
    }
    let t = &scene.time;
    if !(t.fps.is_finite() && t.fps > 0.0) {
        return err(
            root.key("time").key("fps"),
            format!("{} is not a positive number", t.fps),
            "use a frame rate such as 60",
        );
    }
    if t.substeps == Some(0) {
        return err(
            root.key("time").key("substeps"),
            "0 steps per frame".into(),
            "use 1 or more, or leave it out to choose from the CFL number",
        );
    }
    if let Some(dt) = t.dt {
        let p = root.key("time").key("dt");
        if !(dt.is_finite() && dt > 0.0) {
            return err(
                p,
                format!("{dt} is not a positive time"),
                "give the largest step in seconds, e.g. 0.0005",
            );
        }
        if dt * t.fps > 1.0 + 1e-12 {
            return err(
                p,
                format!("{dt} s is longer than a frame (1/{} s)", t.fps),
                "use a step no longer than 1/fps",
            );
        }
        if let Some(n) = t.substeps
            && (dt * t.fps * n as f64 - 1.0).abs() > 1e-9
        {
            return err(
                p,
                format!("{dt} s disagrees with substeps = {n} at {} fps", t.fps),
                "give either time.dt or time.substeps, not both",
            );
        }
    }
    let s = &scene.solver;
    if s.relaxation_passes == 0 {
        return err(
            root.key("solver").key("relaxation_passes"),
            "0 passes".into(),
            "use 1 or more",
        );
    }
    if !(s.cfl.is_finite() && s.cfl > 0.0 && s.cfl <= 2.0) {
        return err(
            root.key("solver").key("cfl"),
            format!("{} is outside (0, 2]", s.cfl),
            "use a Courant number such as 0.4",
        );
    }
    if let Some(c) = &scene.container {
        let p = root.key("container");
        if !finite3(&c.min) || !finite3(&c.max) || (0..3).any(|a| c.min[a] >= c.max[a]) {
            return err(
                p.key("max"),
                format!("min {:?} / max {:?} is not a box", c.min, c.max),
                "give finite corners with min < max on every axis",
            );
        }
        if !(c.restitution.is_finite() && (0.0..=1.0).contains(&c.restitution)) {
            return err(
                p.key("restitution"),
                format!("{} is outside [0, 1]", c.restitution),
                "use a value between 0 and 1",
            );
        }
        if !(c.friction.is_finite() && c.friction >= 0.0) {
            return err(
                p.key("friction"),
                format!("{} is negative or not finite", c.friction),
                "use a friction coefficient >= 0",
            );
        }
    }
    for (i, b) in scene.liquid.iter().enumerate() {
        let p = root.key("liquid").index(i);
        if !(b.spacing.is_finite() && b.spacing > 0.0) {
            return err(
                p.key("spacing"),
                format!("{} is not a positive length", b.spacing),
                "give the particle spacing in m, for example 0.01",
            );
        }
        if !finite3(&b.min) || !finite3(&b.max) || (0..3).any(|a| b.max[a] - b.min[a] < b.spacing) {
            return err(
                p.key("max"),
                format!(
                    "min {:?} / max {:?} holds no particle at spacing {}",
                    b.min, b.max, b.spacing
                ),
                "give finite corners at least one spacing apart on every axis",
            );
        }
        let positive = [
            (
                "density",
                b.density,
                "a rest density in kg/m^3, for example 1000",
            ),
            (
                "kernel_radius",
                b.kernel_radius - 1.0,
                "a kernel radius above 1 spacing, for example 2",
            ),
        ];
        for (key, v, fix) in positive {
            if !(v.is_finite() && v > 0.0) {
                let shown = if key == "kernel_radius" { v + 1.0 } else { v };
                return err(p.key(key), format!("{shown} is out of range"), fix);
            }
        }
        let non_negative = [
            (p.key("stiffness"), b.stiffness),
            (p.key("near_stiffness"), b.near_stiffness),
            (p.key("viscosity").key("sigma"), b.viscosity.sigma),
            (p.key("viscosity").key("beta"), b.viscosity.beta),
        ];
        for (path, v) in non_negative {
            if !(v.is_finite() && v >= 0.0) {
                return err(
                    path,
                    format!("{v} is negative or not finite"),
                    "use a value >= 0",
                );
            }
        }
        if !finite3(&b.velocity) {
            return err(
                p.key("velocity"),
                format!("{:?} is not finite", b.velocity),
                "give three numbers in m/s",
            );
        }
        if let Some(c) = &scene.container {
            let tol = 1e-9
                * (1.0
                    + c.max
                        .iter()
                        .chain(c.min.iter())
                        .fold(0.0f64, |m, x| m.max(x.abs())));
            if (0..3).any(|a| b.min[a] < c.min[a] - tol || b.max[a] > c.max[a] + tol) {
                return err(
                    p.key("min"),
                    format!(
                        "the block {:?}..{:?} is not inside the container {:?}..{:?}",
                        b.min, b.max, c.min, c.max
                    ),
                    "move the block inside the container or enlarge the container",
                );
            }
        }
        let first = &scene.liquid[0];
        if b.spacing != first.spacing || b.kernel_radius != first.kernel_radius {
            return err(
                p.key("spacing"),
                format!(
                    "spacing {} and kernel_radius {} differ from liquid[0]'s {} and {}",
                    b.spacing, b.kernel_radius, first.spacing, first.kernel_radius
                ),
                "give every liquid block the same spacing and kernel_radius",
            );
        }
    }
    validate_coupling(scene, origin)?;
    let mut names = std::collections::HashSet::new();
    for (i, b) in scene.body.iter().enumerate() {
        let p = root.key("body").index(i);
        if let Err(problem) = b.check() {
            let path = problem.key.split('.').fold(p, |path, k| path.key(k));
            return err(path, problem.problem, &problem.fix);
        }
        if !names.insert(b.name.as_str()) {
            return err(
                p.key("name"),
                format!("a second body is named '{}'", b.name),
                "give every body its own name (it names the output files)",
            );
        }
    }
    let mut joint_names = std::collections::HashSet::new();
    for (i, j) in scene.joint.iter().enumerate() {
        let p = root.key("joint").index(i);
        if let Err(problem) = j.check(&scene.body) {
            let path = problem
                .key
                .split('.')
                .fold(p, crate::joints::spec::key_with_index);
            return err(path, problem.problem, &problem.fix);
        }
        if !joint_names.insert(j.name_or_default(i)) {
            return err(
                p.key("name"),
                format!("a second joint is named '{}'", j.name_or_default(i)),
                "give every joint its own name (it names the joint's rows in joint_errors.csv)",
            );
        }
    }
    Ok(())
}

/// Check the `[coupling]` table: values in range, and a reference solver that can take the
/// scene's rows (Lemke solves standard LCPs only, so no friction).
fn validate_coupling(scene: &Scene, origin: &Origin) -> Result<()> {
    let c = &scene.coupling;
    let p = KeyPath::new().key("coupling");
    let err = |path: KeyPath, problem: String, fix: &str| Err(origin.error(&path, &problem, fix));
    if !(c.liquid_friction.is_finite() && c.liquid_friction >= 0.0) {
        return err(
            p.key("liquid_friction"),
            format!("{} is negative or not finite", c.liquid_friction),
            "use a friction coefficient >= 0",
        );
    }
    if !(c.liquid_restitution.is_finite() && (0.0..=1.0).contains(&c.liquid_restitution)) {
        return err(
            p.key("liquid_restitution"),
            format!("{} is outside [0, 1]", c.liquid_restitution),
            "use a restitution between 0 (no bounce) and 1 (elastic)",
        );
    }
    if let Some(k) = c.penalty_stiffness
        && !(k.is_finite() && k > 0.0)
    {
        return err(
            p.key("penalty_stiffness"),
            format!("{k} is not a positive stiffness"),
            "give N/m per contact, or leave it out for a stiffness from penalty_contact_steps",
        );
    }
    if !(c.penalty_contact_steps.is_finite() && c.penalty_contact_steps >= 4.0) {
        return err(
            p.key("penalty_contact_steps"),
            format!("{} is below 4 steps", c.penalty_contact_steps),
            "use 4 or more steps per contact period (explicit springs are unstable below pi)",
        );
    }
    if !(c.penalty_damping.is_finite() && (0.0..=1.0).contains(&c.penalty_damping)) {
        return err(
            p.key("penalty_damping"),
            format!("{} is outside [0, 1]", c.penalty_damping),
            "give a fraction of critical damping between 0 and 1",
        );
    }
    if c.method == super::CouplingMethod::Penalty && !scene.joint.is_empty() {
        return err(
            p.key("method"),
            "joints hold only in the LCP, but the coupling is \"penalty\"".into(),
            "use method = \"lcp\" in a scene with joints",
        );
    }
    if c.method == super::CouplingMethod::Lcp && c.solver == super::LcpSolverChoice::Lemke {
        let rough = scene.body.iter().position(|b| b.friction > 0.0);
        if c.liquid_friction > 0.0 || rough.is_some() {
            let place = match rough {
                Some(i) => format!("body[{i}] has friction {}", scene.body[i].friction),
                None => format!("liquid_friction is {}", c.liquid_friction),
            };
            return err(
                p.key("solver"),
                format!("Lemke solves contacts without friction, but {place}"),
                "use solver = \"dantzig\" or \"structured\", or set every friction to 0",
            );
        }
    }
    Ok(())
}
