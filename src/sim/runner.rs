//! Running a scene to the end: set up, step, write every frame, report progress.
use super::Simulation;
use crate::backend::Backend;
use crate::output::{FrameWriter, Manifest};
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
}

/// The manifest of a run before its first frame.
pub fn initial_manifest(loaded: &LoadedScene, sim: &Simulation, backend: Backend) -> Manifest {
    let params = &sim.liquid.params;
    Manifest {
        program: "sphrigid",
        version: env!("CARGO_PKG_VERSION"),
        scene_file: loaded.file.display().to_string(),
        scene: serde_json::to_value(&loaded.scene).expect("a scene serialises"),
        units: Manifest::si_units(),
        backend: backend.name().to_string(),
        particles: sim.particles.len(),
        particle_radius: params.spacing as f64 / 2.0,
        kernel_radius: params.h as f64,
        rest_kernel_sum: params.rho0 as f64,
        fps: loaded.scene.time.fps,
        dt: sim.dt,
        substeps: sim.substeps,
        complete: false,
        frames: Vec::new(),
    }
}

/// Run a loaded scene, calling `progress` after every frame written.
pub fn run(
    loaded: &LoadedScene,
    opts: &RunOptions,
    progress: &mut dyn FnMut(&Progress),
) -> Result<RunSummary> {
    let scene = &loaded.scene;
    let frames = opts.frames.unwrap_or(scene.time.frames);
    let mut sim = Simulation::with_backend(scene, opts.backend)?;
    sim.liquid.update_densities(&mut sim.particles)?;
    let mut writer = FrameWriter::new(&opts.out, initial_manifest(loaded, &sim, opts.backend))?;
    writer.write_frame(&sim.particles, &sim.liquid.params, 0, 0.0)?;
    let start = Instant::now();
    let mut last = Progress {
        frame: 0,
        frames,
        time: 0.0,
        particles: sim.particles.len(),
        steps: 0,
        elapsed: Duration::ZERO,
    };
    progress(&last);
    for frame in 1..=frames {
        if let Err(e) = sim.advance_frame().and_then(|_| sim.sync_particles()) {
            writer.finish(false)?;
            return Err(Error::Run(format!(
                "stopped at step {} (t = {:.6} s, frame {frame}): {e}. Frames 0..{} in {} are intact.",
                sim.steps,
                sim.time,
                frame - 1,
                opts.out.display()
            )));
        }
        let time = frame as f64 / scene.time.fps;
        sim.times.time(super::timing::Phase::Output, || {
            writer.write_frame(&sim.particles, &sim.liquid.params, frame, time)
        })?;
        last = Progress {
            frame,
            frames,
            time,
            particles: sim.particles.len(),
            steps: sim.steps,
            elapsed: start.elapsed(),
        };
        progress(&last);
    }
    writer.finish(true)?;
    Ok(RunSummary {
        last,
        out: opts.out.clone(),
    })
}
