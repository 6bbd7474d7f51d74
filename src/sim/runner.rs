//! Running a scene to the end: set up, step, write every frame, report progress.
use super::Simulation;
use crate::backend::Backend;
use crate::coupling::leak::LeakCheck;
use crate::output::{
    FallbackEntry, FrameWriter, JointErrorWriter, Manifest, MetricsRow, MetricsWriter,
    RigidFrameWriter, RunDir, StatesWriter, failed_lcp,
};
use crate::scene::LoadedScene;
use crate::{Error, Result};
use std::path::PathBuf;
use std::time::{Duration, Instant};

/// What `sphrigid run` was asked to do beyond the scene itself.
#[derive(Debug, Clone)]
pub struct RunOptions {
    /// Output directory.
    pub out: PathBuf,
    /// Frames to simulate (overrides `time.frames`).
    pub frames: Option<u32>,
    /// The backend chosen.
    pub backend: Backend,
}

/// Where a run stands, reported after every frame.
#[derive(Debug, Clone, Copy)]
pub struct Progress {
    /// Frames done.
    pub frame: u32,
    /// Frames to do.
    pub frames: u32,
    /// Simulated time, s.
    pub time: f64,
    /// Liquid particles.
    pub particles: usize,
    /// Steps taken.
    pub steps: u64,
    /// Wall-clock time since the first step.
    pub elapsed: Duration,
}

impl Progress {
    /// Particle-steps per wall-clock second so far.
    pub fn particle_steps_per_s(&self) -> f64 {
        self.particles as f64 * self.steps as f64 / self.elapsed.as_secs_f64().max(1e-9)
    }
}

/// The outcome of a finished run.
#[derive(Debug, Clone)]
pub struct RunSummary {
    /// The last progress report.
    pub last: Progress,
    /// The output directory.
    pub out: PathBuf,
    /// Liquid particles removed at setup because they started inside a body.
    pub removed_inside_bodies: usize,
}

/// The manifest of a run of `frames` frames before its first frame. Its scene echo is the
/// scene as run: `--frames` shows as `time.frames`.
pub fn initial_manifest(
    loaded: &LoadedScene,
    sim: &Simulation,
    backend: Backend,
    frames: u32,
) -> Manifest {
    let params = sim.liquid.params();
    let mut scene = loaded.scene.clone();
    scene.time.frames = frames;
    Manifest {
        program: "sphrigid",
        version: env!("CARGO_PKG_VERSION"),
        scene_file: loaded.file.display().to_string(),
        scene: serde_json::to_value(&scene).expect("a scene serialises"),
        units: Manifest::si_units(),
        up_axis: "y",
        frame_start: 0,
        backend: backend.name().to_string(),
        particles: sim.particles().len(),
        removed_inside_bodies: sim.removed_inside_bodies,
        particle_radius: params.spacing as f64 / 2.0,
        kernel_radius: params.h as f64,
        rest_kernel_sum: params.rho0 as f64,
        fps: loaded.scene.time.fps,
        dt: sim.dt,
        substeps: sim.substeps,
        complete: false,
        steps: 0,
        wall_seconds: 0.0,
        lcp_fallbacks: Vec::new(),
        frames: Vec::new(),
    }
}

/// Write out the problems of the steps that fell back to penalty since the last frame, record
/// them in the manifest (written with the next frame) and tell `log` one line each.
fn record_fallbacks(
    sim: &mut Simulation,
    writer: &mut FrameWriter,
    log: &mut dyn FnMut(&str),
) -> Result<()> {
    for (step, failure) in sim.fallbacks.drain(..) {
        let name = RunDir::failed_lcp_name(step);
        let (rows, outcome) = (failure.rows, failure.outcome.clone());
        let path = failed_lcp::write(writer.run(), step, failure.problem)?;
        log(&format!(
            "step {step}: the contact LCP ({rows} rows) ended with outcome '{outcome}'; \
             this step's contacts were resolved by penalty (coupling.on_failure). \
             Replay with: sphrigid lcp solve {}",
            path.display()
        ));
        writer.manifest.lcp_fallbacks.push(FallbackEntry {
            step,
            time: step as f64 * sim.dt,
            rows,
            outcome,
            problem: name,
        });
    }
    Ok(())
}

/// Run a loaded scene, calling `progress` after every frame written and `log` with every
/// notice (a step that fell back to penalty).
pub fn run(
    loaded: &LoadedScene,
    opts: &RunOptions,
    progress: &mut dyn FnMut(&Progress),
    log: &mut dyn FnMut(&str),
) -> Result<RunSummary> {
    let scene = &loaded.scene;
    let frames = opts.frames.unwrap_or(scene.time.frames);
    let mut sim = Simulation::setup(loaded, opts.backend)?;
    let guard = super::guard::StateGuard::new(scene, &sim);
    sim.liquid.update_densities()?;
    let run_dir = RunDir::new(&opts.out);
    let mut writer = FrameWriter::new(
        &run_dir,
        initial_manifest(loaded, &sim, opts.backend, frames),
    )?;
    let mut rigid = if sim.bodies.is_empty() {
        None
    } else {
        Some((
            RigidFrameWriter::new(&run_dir)?,
            StatesWriter::new(&run_dir),
        ))
    };
    let mut joint_errors = (!sim.joints().is_empty()).then(|| JointErrorWriter::new(&run_dir));
    // The health figures of every frame (energy, leaks), for `collect` and for plots: one pass
    // over the particles each, once a frame.
    let leak_check = LeakCheck::new(&sim.bodies);
    let mut metrics = MetricsWriter::new(&run_dir);
    let mut write = |writer: &mut FrameWriter, sim: &mut Simulation, frame: u32, time: f64| {
        let energy = sim.energy();
        let leak = leak_check.deepest(sim.particles(), &sim.bodies);
        metrics.write_frame(&MetricsRow {
            frame,
            time,
            kinetic: energy.kinetic,
            potential: energy.potential,
            leak_depth: leak.map_or(0.0, |l| l.depth),
            leak: leak.map(|l| (sim.bodies[l.body].name.clone(), l.id)),
        })?;
        let extra = match rigid.as_mut() {
            Some((meshes, states)) => {
                let extra = meshes.write_frame(&sim.bodies, frame, time)?;
                states.write_frame(&sim.bodies, frame, time)?;
                extra
            }
            None => Default::default(),
        };
        if let Some(j) = joint_errors.as_mut() {
            let joints = sim.coupler.as_ref().map_or(&[][..], |c| &c.joints);
            j.write_frame(joints, &sim.bodies, &mut sim.joint_peaks, frame, time)?;
        }
        writer.write_frame_with(sim.particles(), sim.liquid.params(), frame, time, extra)
    };
    write(&mut writer, &mut sim, 0, 0.0)?;
    let start = Instant::now();
    let mut last = Progress {
        frame: 0,
        frames,
        time: 0.0,
        particles: sim.particles().len(),
        steps: 0,
        elapsed: Duration::ZERO,
    };
    progress(&last);
    for frame in 1..=frames {
        // A failed step names the step it failed in; a failed state check the last step taken.
        let result = (sim.advance_frame().and_then(|_| sim.sync_particles()))
            .map_err(|e| (sim.steps + 1, e))
            .and_then(|()| guard.check(&sim).map_err(|e| (sim.steps, Error::Run(e))));
        record_fallbacks(&mut sim, &mut writer, log)?;
        writer.manifest.steps = sim.steps;
        writer.manifest.wall_seconds = start.elapsed().as_secs_f64();
        if let Err((step, e)) = result {
            writer.finish(false)?;
            let mut replay = String::new();
            if let Some(failure) = sim.failed_lcp.take() {
                let path = failed_lcp::write(&run_dir, sim.steps + 1, failure.problem)?;
                replay = format!(
                    " Replay the contact problem with: sphrigid lcp solve {}",
                    path.display()
                );
            }
            return Err(Error::Run(format!(
                "stopped at step {step} (t = {:.6} s, frame {frame}): {e}. Frames 0..{} in {} are intact.{replay}",
                sim.time,
                frame - 1,
                opts.out.display()
            )));
        }
        let time = frame as f64 / scene.time.fps;
        let t0 = Instant::now();
        write(&mut writer, &mut sim, frame, time).map_err(|e| match e {
            // A full disk or a vanished directory: say what to do and what was kept.
            Error::Io { .. } => Error::input(format!(
                "{e}; fix: free disk space or write elsewhere (--out). Frames 0..{} in {} are \
                 intact",
                frame - 1,
                opts.out.display()
            )),
            other => other,
        })?;
        sim.times.add(crate::timing::Phase::Output, t0.elapsed());
        last = Progress {
            frame,
            frames,
            time,
            particles: sim.particles().len(),
            steps: sim.steps,
            elapsed: start.elapsed(),
        };
        progress(&last);
    }
    writer.manifest.wall_seconds = start.elapsed().as_secs_f64();
    writer.finish(true)?;
    Ok(RunSummary {
        last,
        out: opts.out.clone(),
        removed_inside_bodies: sim.removed_inside_bodies,
    })
}
