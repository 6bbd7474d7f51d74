//! Limits on scene values beyond their types: sizes that would take too long or too much
//! memory before anything is allocated (blocks, bodies, kernel radius in spacings, substeps,
//! relaxation passes), physical ranges (frame rate, densities, stiffness, initial speeds, places within a thousand
//! km of the origin),
//! bodies placed inside the container, at least one thing to simulate, and arrays written with
//! exactly the length their key reads.
use super::locate::KeyPath;
use super::problem::{Checked, fail};
use super::schema::Scene;

/// The most `[[liquid]]` blocks a scene may have.
pub const MAX_LIQUID_BLOCKS: usize = 1024;
/// The most `[[body]]` tables a scene may have.
pub const MAX_BODIES: usize = 1024;
/// The largest kernel radius, in particle spacings (the neighbour count grows with its cube).
pub const MAX_KERNEL_RADIUS: f64 = 8.0;
/// The most solver steps per frame, given or implied by `time.dt`.
pub const MAX_SUBSTEPS: u32 = 100_000;
/// The most relaxation passes per step.
pub const MAX_RELAXATION_PASSES: u32 = 100;
/// Frame rates accepted, frames per second.
pub const FPS_RANGE: (f64, f64) = (1e-3, 1e6);
/// Densities accepted for liquid and bodies, kg/m^3.
pub const DENSITY_RANGE: (f64, f64) = (1e-2, 1e6);
/// The largest pressure stiffness, m^2/s^2 (a speed of sound of 100 km/s).
pub const MAX_STIFFNESS: f64 = 1e10;
/// The largest initial speed of liquid or a body, m/s.
pub const MAX_SPEED: f64 = 1e5;
/// The largest initial angular speed of a body, rad/s.
pub const MAX_ANGULAR_SPEED: f64 = 1e6;
/// The largest gravity, m/s^2 (a hundred thousand g; more overflows a body's step).
pub const MAX_GRAVITY: f64 = 1e6;
/// The largest coordinate of a place in a scene, m (a thousand km: far past any tank, and
/// well inside what the frames' f32 coordinates hold).
pub const MAX_COORDINATE: f64 = 1e6;

fn norm(v: &[f64; 3]) -> f64 {
    v.iter().map(|x| x * x).sum::<f64>().sqrt()
}

fn in_range(v: f64, (lo, hi): (f64, f64)) -> bool {
    v.is_finite() && v >= lo && v <= hi
}

/// A density, of liquid or a body at `p`, within [`DENSITY_RANGE`]; `fix` says what to give.
fn density(p: &KeyPath, density: f64, fix: &str) -> Checked {
    if !in_range(density, DENSITY_RANGE) {
        return fail(
            p.key("density"),
            format!(
                "{} kg/m^3 is outside [{}, {}]",
                Shown(density),
                Shown(DENSITY_RANGE.0),
                Shown(DENSITY_RANGE.1)
            ),
            fix,
        );
    }
    Ok(())
}

/// An initial velocity, of liquid or a body at `p`, no faster than [`MAX_SPEED`].
fn initial_speed(p: &KeyPath, velocity: &[f64; 3]) -> Checked {
    if norm(velocity) > MAX_SPEED {
        return fail(
            p.key("velocity"),
            format!("{:?} is faster than {MAX_SPEED:e} m/s", velocity.map(Shown)),
            "give a velocity in m/s",
        );
    }
    Ok(())
}

/// A place at `p` (a corner, a position) no farther than [`MAX_COORDINATE`] from the origin
/// along any axis.
fn place(p: KeyPath, at: &[f64]) -> Checked {
    if at.iter().any(|x| x.abs() > MAX_COORDINATE) {
        return fail(
            p,
            format!(
                "{:?} lies more than {MAX_COORDINATE:e} m from the origin",
                at.iter().map(|&x| Shown(x)).collect::<Vec<_>>()
            ),
            "give places in m within a thousand km of the origin",
        );
    }
    Ok(())
}

/// Every place the scene names within [`MAX_COORDINATE`] of the origin.
fn places(scene: &Scene, root: &KeyPath) -> Checked {
    if let Some(c) = &scene.container {
        place(root.key("container").key("min"), &c.min)?;
        place(root.key("container").key("max"), &c.max)?;
    }
    for (i, b) in scene.liquid.iter().enumerate() {
        let p = root.key("liquid").index(i);
        for (key, v) in [
            ("min", b.min),
            ("max", b.max),
            ("position", Some(b.position)),
        ] {
            if let Some(v) = v {
                place(p.key(key), &v)?;
            }
        }
    }
    for (i, b) in scene.body.iter().enumerate() {
        place(root.key("body").index(i).key("position"), &b.position)?;
    }
    for (i, e) in scene.emitter.iter().enumerate() {
        place(root.key("emitter").index(i).key("position"), &e.position)?;
    }
    for (i, o) in scene.outlet.iter().enumerate() {
        let p = root.key("outlet").index(i);
        for (key, v) in [("min", o.min), ("max", o.max)] {
            if let Some(v) = v {
                place(p.key(key), &v)?;
            }
        }
    }
    for (i, g) in scene.gauge.iter().enumerate() {
        place(root.key("gauge").index(i).key("at"), &g.at)?;
    }
    Ok(())
}

/// Check the limits of a scene whose tables have passed their own checks.
pub fn check(scene: &Scene) -> Checked {
    let root = KeyPath::new();
    places(scene, &root)?;
    if scene.liquid.is_empty() && scene.body.is_empty() {
        return fail(
            root.key("liquid"),
            "the scene has no [[liquid]] block and no [[body]]: there is nothing to simulate",
            "add a [[liquid]] block or a [[body]] (see docs/src/guide/scene-files.md)",
        );
    }
    if norm(&scene.gravity) > MAX_GRAVITY {
        return fail(
            root.key("gravity"),
            format!("{:?} is stronger than {MAX_GRAVITY:e} m/s^2", scene.gravity),
            "give gravity in m/s^2, e.g. [0, -9.81, 0]",
        );
    }
    let t = &scene.time;
    if !in_range(t.fps, FPS_RANGE) {
        return fail(
            root.key("time").key("fps"),
            format!(
                "{} is outside [{}, {}] frames per second",
                Shown(t.fps),
                Shown(FPS_RANGE.0),
                Shown(FPS_RANGE.1)
            ),
            "use a frame rate such as 30 or 60",
        );
    }
    if let Some(n) = t.substeps
        && n > MAX_SUBSTEPS
    {
        return fail(
            root.key("time").key("substeps"),
            format!("{n} steps per frame is more than {MAX_SUBSTEPS}"),
            "use fewer substeps, or write more frames per second",
        );
    }
    if let Some(dt) = t.dt {
        let steps = 1.0 / (t.fps * dt);
        if steps > MAX_SUBSTEPS as f64 {
            return fail(
                root.key("time").key("dt"),
                format!(
                    "{} s at {} fps takes {steps:.3e} steps per frame, more than {MAX_SUBSTEPS}",
                    Shown(dt),
                    Shown(t.fps)
                ),
                format!(
                    "use a step of at least {:.3e} s",
                    1.0 / (t.fps * MAX_SUBSTEPS as f64)
                ),
            );
        }
    }
    let passes = scene.solver.relaxation_passes;
    if passes > MAX_RELAXATION_PASSES {
        return fail(
            root.key("solver").key("relaxation_passes"),
            format!("{passes} passes is more than {MAX_RELAXATION_PASSES}"),
            "use 1 to 4 passes; raise time.substeps for a stiffer liquid",
        );
    }
    if scene.liquid.len() > MAX_LIQUID_BLOCKS {
        return fail(
            root.key("liquid"),
            format!(
                "{} [[liquid]] blocks is more than {MAX_LIQUID_BLOCKS}",
                scene.liquid.len()
            ),
            "merge neighbouring blocks into larger boxes",
        );
    }
    if scene.body.len() > MAX_BODIES {
        return fail(
            root.key("body"),
            format!("{} bodies is more than {MAX_BODIES}", scene.body.len()),
            "simulate fewer bodies",
        );
    }
    for (i, b) in scene.liquid.iter().enumerate() {
        let p = root.key("liquid").index(i);
        if b.kernel_radius > MAX_KERNEL_RADIUS {
            return fail(
                p.key("kernel_radius"),
                format!(
                    "{} spacings is more than {MAX_KERNEL_RADIUS}",
                    Shown(b.kernel_radius)
                ),
                "use a kernel radius of 2 to 3 spacings",
            );
        }
        density(
            &p,
            b.density,
            "give a rest density in kg/m^3, for example 1000",
        )?;
        for (key, v) in [
            ("stiffness", b.stiffness.unwrap_or(0.0)),
            ("near_stiffness", b.near_stiffness.unwrap_or(0.0)),
        ] {
            if v > MAX_STIFFNESS {
                return fail(
                    p.key(key),
                    format!("{} m^2/s^2 is more than {MAX_STIFFNESS:e}", Shown(v)),
                    "use a stiffness of 10 to 1e5 m^2/s^2 (the squared speed of sound)",
                );
            }
        }
        initial_speed(&p, &b.velocity)?;
    }
    check_overlaps(scene)?;
    for (i, b) in scene.body.iter().enumerate() {
        let p = root.key("body").index(i);
        density(&p, b.density, "give a density in kg/m^3, e.g. 1000")?;
        initial_speed(&p, &b.velocity)?;
        if norm(&b.angular_velocity) > MAX_ANGULAR_SPEED {
            return fail(
                p.key("angular_velocity"),
                format!(
                    "{:?} is faster than {MAX_ANGULAR_SPEED:e} rad/s",
                    b.angular_velocity.map(Shown)
                ),
                "give an angular velocity in rad/s",
            );
        }
        if let Some(c) = &scene.container {
            let x = b.position;
            if (0..3).any(|a| x[a] < c.min[a] || x[a] > c.max[a]) {
                return fail(
                    p.key("position"),
                    format!(
                        "{:?} is outside the container {:?}..{:?}",
                        x.map(Shown),
                        c.min.map(Shown),
                        c.max.map(Shown)
                    ),
                    "place the body inside the container, or enlarge the container",
                );
            }
        }
    }
    Ok(())
}

/// Check that no two liquid blocks overlap: their boxes (a shaped block's world bounds once
/// posed) may share faces only.
pub fn check_overlaps(scene: &Scene) -> Checked {
    let boxes: Vec<_> = scene.liquid.iter().map(|b| b.bounds()).collect();
    for (i, (lo, hi)) in boxes.iter().enumerate() {
        // Overlapping blocks put particles on top of each other: forces blow up and every
        // neighbour list grows by the overlap's multiplicity.
        if let Some(j) = boxes[..i]
            .iter()
            .position(|(a, b)| (0..3).all(|k| a[k].max(lo[k]) < b[k].min(hi[k]) - 1e-9))
        {
            return fail(
                KeyPath::new()
                    .key("liquid")
                    .index(i)
                    .key(if scene.liquid[i].shape.is_some() {
                        "position"
                    } else {
                        "min"
                    }),
                format!(
                    "the block overlaps liquid[{j}]: their particles would sit on top of each other"
                ),
                "make the liquid blocks disjoint (they may share faces; a shape's bounding box counts)",
            );
        }
    }
    Ok(())
}

/// A number shown as a user writes it: `9`, `0.01`, and `1e-300` rather than 300 digits.
#[derive(Clone, Copy)]
struct Shown(f64);

impl std::fmt::Debug for Shown {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let plain = format!("{}", self.0);
        if plain.len() > 12 {
            write!(f, "{:e}", self.0)
        } else {
            f.write_str(&plain)
        }
    }
}

impl std::fmt::Display for Shown {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Debug::fmt(self, f)
    }
}

/// Check that every array the scene text writes (`written`, after `--set`) has the length its
/// key reads in the parsed `scene`: serde reads the first three numbers of `[1, 2, 3, 4]` into
/// a position and would drop the fourth without a word.
pub fn check_array_lengths(written: &toml::Table, scene: &Scene) -> Checked {
    let read = serde_json::to_value(scene).expect("a scene serialises");
    let mut path = KeyPath::new();
    compare_table(written, &read, &mut path)
}

fn compare_table(written: &toml::Table, read: &serde_json::Value, at: &mut KeyPath) -> Checked {
    for (key, value) in written {
        if let Some(r) = read.get(key) {
            at.0.push(super::locate::PathPart::Key(key.clone()));
            compare(value, r, at)?;
            at.0.pop();
        }
    }
    Ok(())
}

fn compare(written: &toml::Value, read: &serde_json::Value, at: &mut KeyPath) -> Checked {
    match (written, read) {
        (toml::Value::Table(t), serde_json::Value::Object(_)) => compare_table(t, read, at),
        (toml::Value::Array(w), serde_json::Value::Array(r)) => {
            if w.len() != r.len() {
                return fail(
                    at.clone(),
                    format!("{written} has {} entries", w.len()),
                    format!("give exactly {} entries", r.len()),
                );
            }
            for (k, (wv, rv)) in w.iter().zip(r).enumerate() {
                at.0.push(super::locate::PathPart::Index(k));
                compare(wv, rv, at)?;
                at.0.pop();
            }
            Ok(())
        }
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scene(text: &str) -> (toml::Table, Scene) {
        (toml::from_str(text).unwrap(), toml::from_str(text).unwrap())
    }

    #[test]
    fn gravity_beyond_a_million_metres_per_second_squared_is_refused() {
        let liquid = "[[liquid]]\nmin = [0, 0, 0]\nmax = [1, 1, 1]\n";
        let (_, s) = scene(&format!("gravity = [0, 0, -1e300]\n{liquid}"));
        let p = check(&s).unwrap_err();
        assert_eq!(p.path.to_string(), "gravity");
        let (_, s) = scene(&format!("gravity = [0, -1e6, 0]\n{liquid}"));
        assert!(check(&s).is_ok());
    }

    #[test]
    fn a_fourth_number_is_found_at_its_path() {
        let text = "gravity = [0, -9.81, 0, 5]\n[[liquid]]\nmin = [0, 0, 0]\nmax = [1, 1, 1]\n";
        let (t, s) = scene(text);
        let p = check_array_lengths(&t, &s).unwrap_err();
        assert_eq!(p.path.to_string(), "gravity");
        assert!(p.problem.contains("4 entries"), "{}", p.problem);
        assert!(p.fix.contains("exactly 3"), "{}", p.fix);
        let good = "[[liquid]]\nmin = [0, 0, 0]\nmax = [1, 1, 1]\n";
        let (t, s) = scene(good);
        assert!(check_array_lengths(&t, &s).is_ok());
        let nested = "[[liquid]]\nmin = [0, 0, 0]\nmax = [1, 1, 1, 1]\n";
        let (t, s) = scene(nested);
        let p = check_array_lengths(&t, &s).unwrap_err();
        assert_eq!(p.path.to_string(), "liquid[0].max");
    }

    #[test]
    fn limits_name_the_key() {
        let base = "[[liquid]]\nmin = [0, 0, 0]\nmax = [1, 1, 1]\n";
        let (_, s) = scene(base);
        assert!(check(&s).is_ok());
        let cases = [
            ("[time]\nfps = 1e-300\n", "time.fps"),
            ("[time]\nsubsteps = 4000000000\n", "time.substeps"),
            ("[time]\ndt = 1e-12\n", "time.dt"),
            (
                "[solver]\nrelaxation_passes = 1000000\n",
                "solver.relaxation_passes",
            ),
        ];
        for (head, key) in cases {
            let (_, s) = scene(&format!("{head}{base}"));
            assert_eq!(check(&s).unwrap_err().path.to_string(), key, "{head}");
        }
        let (_, s) = scene(&format!("{base}kernel_radius = 1000\n"));
        assert_eq!(
            check(&s).unwrap_err().path.to_string(),
            "liquid[0].kernel_radius"
        );
        let (_, s) = scene(&format!("{base}stiffness = 1e30\n"));
        assert_eq!(
            check(&s).unwrap_err().path.to_string(),
            "liquid[0].stiffness"
        );
        let (_, s) = scene("");
        assert_eq!(check(&s).unwrap_err().path.to_string(), "liquid");
    }
}
