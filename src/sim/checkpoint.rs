//! A running simulation in and out of a [`Checkpoint`]: what the next step depends on, taken
//! from a [`Simulation`] ([`capture`]) and put back into one set up afresh from the same scene
//! ([`restore`]); and the scene's identity that a resumed run must keep ([`scene_hash`],
//! [`changed_keys`]): the scene as run, except `time.frames`, which may grow.
use super::Simulation;
use super::loads::LoadTally;
use crate::joints::ErrorPeaks;
use crate::liquid::Carried;
use crate::output::Checkpoint;
use crate::output::manifest::FallbackEntry;
use crate::scene::Scene;
use crate::{Error, Result};
use serde_json::Value;

/// The scene as run, as JSON, without `time.frames` and `output.surface`.
fn identity(scene: &Scene) -> Value {
    let mut v = serde_json::to_value(scene).expect("a scene serialises");
    strip_frames(&mut v);
    v
}

/// Drop what a resumed run may change: `time.frames` (which may grow) and `output.surface`
/// (surfaces do not change the simulation); the output directory stays as it was written.
fn strip_frames(v: &mut Value) {
    if let Some(time) = v.get_mut("time").and_then(Value::as_object_mut) {
        time.remove("frames");
    }
    let Some(root) = v.as_object_mut() else {
        return;
    };
    if let Some(Value::Object(output)) = root.get("output") {
        match output.get("dir").cloned() {
            Some(dir) => root.insert("output".into(), dir),
            None => root.remove("output"),
        };
    }
}

/// CRC-32 of the scene as run without `time.frames` (its JSON, keys in order).
pub fn scene_hash(scene: &Scene) -> u32 {
    crc32fast::hash(identity(scene).to_string().as_bytes())
}

/// The dotted keys (`liquid.0.viscosity.sigma`) at which the scene echo `old` (a manifest's
/// `scene`) and the scene `now` differ, `time.frames` aside.
pub fn changed_keys(old: &Value, now: &Scene) -> Vec<String> {
    let mut old = old.clone();
    strip_frames(&mut old);
    let mut out = Vec::new();
    diff(&old, &identity(now), "", &mut out);
    out
}

fn diff(a: &Value, b: &Value, at: &str, out: &mut Vec<String>) {
    let key = |k: &str| {
        if at.is_empty() {
            k.to_string()
        } else {
            format!("{at}.{k}")
        }
    };
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            let keys: std::collections::BTreeSet<&String> = x.keys().chain(y.keys()).collect();
            for k in keys {
                match (x.get(k), y.get(k)) {
                    (Some(p), Some(q)) => diff(p, q, &key(k), out),
                    _ => out.push(key(k)),
                }
            }
        }
        (Value::Array(x), Value::Array(y)) if x.len() == y.len() => {
            for (i, (p, q)) in x.iter().zip(y).enumerate() {
                diff(p, q, &key(&i.to_string()), out);
            }
        }
        _ if a != b => out.push(if at.is_empty() {
            "(the scene)".into()
        } else {
            at.into()
        }),
        _ => {}
    }
}

/// The checkpoint of `sim` after frame `frame`, with what the run's outputs add: the scene's
/// hash, the wall-clock time so far, the tables' lengths and the fallbacks recorded. The
/// particles are read from the host copy, so a device backend syncs first (its grid is
/// downloaded here).
pub fn capture(
    sim: &Simulation,
    frame: u32,
    scene_hash: u32,
    wall_seconds: f64,
    tables: [u64; 3],
    fallbacks: Vec<FallbackEntry>,
) -> Result<Checkpoint> {
    Ok(Checkpoint {
        scene_hash,
        steps: sim.steps,
        frame,
        wall_seconds,
        tables,
        particles: sim.particles().clone(),
        carried: sim.liquid.carried()?,
        bodies: sim.bodies.iter().map(|b| b.state).collect(),
        touching: sim.coupler.as_ref().map_or(Vec::new(), |c| c.touching()),
        peaks: sim.joint_peaks.peaks().to_vec(),
        fallbacks,
        loads: [
            sim.body_loads.save(),
            sim.liquid.wall_loads()?.map_or(Vec::new(), |t| t.save()),
        ],
        sources: if sim.sources.is_empty() {
            Vec::new()
        } else {
            sim.sources.state.save()
        },
    })
}

/// Put the state of checkpoint `c` into `sim`, set up afresh (on the CPU) from the scene the
/// checkpoint was taken of; a checkpoint that does not fit the scene (particle or body
/// counts) is an input error. Returns what the liquid's next step reuses, for the backend
/// the liquid then moves to ([`crate::liquid::Liquid::restore_carried`]).
pub fn restore(sim: &mut Simulation, c: Checkpoint) -> Result<Carried> {
    let mismatch = |what: &str, saved: usize, now: usize| {
        Error::input(format!(
            "checkpoint.bin: it holds {saved} {what}, the scene sets up {now}; fix: start the run over with --overwrite"
        ))
    };
    // With emitters or outlets the count changes as the run goes; the state says how.
    if sim.sources.is_empty() && c.particles.len() != sim.liquid.len() {
        return Err(mismatch(
            "liquid particles",
            c.particles.len(),
            sim.liquid.len(),
        ));
    }
    if c.bodies.len() != sim.bodies.len() {
        return Err(mismatch("bodies", c.bodies.len(), sim.bodies.len()));
    }
    if c.peaks.len() > sim.joints().len() {
        return Err(mismatch("joints", c.peaks.len(), sim.joints().len()));
    }
    if !sim.sources.is_empty() && sim.sources.state.restore(&c.sources).is_none() {
        return Err(Error::input(
            "checkpoint.bin: its emitters' and outlets' state does not fit the scene's; fix: start the run over with --overwrite",
        ));
    }
    *sim.liquid.particles_mut() = c.particles;
    for (b, s) in sim.bodies.iter_mut().zip(c.bodies) {
        b.state = s;
    }
    if let Some(coupler) = sim.coupler.as_mut() {
        coupler.set_touching(&c.touching);
    }
    sim.joint_peaks = ErrorPeaks::from_peaks(c.peaks);
    let [body_loads, wall_loads] = &c.loads;
    let fits = |saved: &[f64], n: usize, what: &str| {
        LoadTally::restore(saved)
            .filter(|t| t.is_empty() || t.len() == n)
            .ok_or_else(|| {
                Error::input(format!(
                    "checkpoint.bin: its loads since the last frame do not fit the scene's {n} {what}; fix: start the run over with --overwrite"
                ))
            })
    };
    sim.body_loads = fits(body_loads, sim.bodies.len(), "bodies")?;
    let wall_loads = fits(wall_loads, 6, "walls")?;
    if sim.liquid.has_wall_loads() {
        sim.liquid.restore_wall_loads(wall_loads)?;
    }
    sim.steps = c.steps;
    sim.time = c.steps as f64 * sim.dt;
    Ok(c.carried)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scene(extra: &str) -> Scene {
        let text = format!(
            "[time]\nfps = 30\nframes = 4\n[[liquid]]\nmin = [0.0, 0.0, 0.0]\nmax = [0.05, 0.05, 0.05]\nspacing = 0.01\n{extra}"
        );
        crate::scene::parse(text, std::path::Path::new("t.toml"), &[])
            .unwrap()
            .scene
    }

    #[test]
    fn the_hash_ignores_frames_and_the_diff_names_the_keys() {
        let a = scene("");
        let mut more = a.clone();
        more.time.frames = 400;
        assert_eq!(scene_hash(&a), scene_hash(&more));
        let b = scene("viscosity = { sigma = 3.0 }\n");
        assert_ne!(scene_hash(&a), scene_hash(&b));
        let old = serde_json::to_value(&more).unwrap();
        assert!(changed_keys(&old, &a).is_empty());
        assert_eq!(changed_keys(&old, &b), ["liquid.0.viscosity.sigma"]);
    }
}
