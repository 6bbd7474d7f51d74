//! Running a scene to the end: set up (or take up a checkpoint), step, write every frame and
//! checkpoint, report progress, and stop cleanly when asked (a signal) at the end of a step.
use super::Simulation;
use super::checkpoint::{self, changed_keys, scene_hash};
use super::outputs::{RunOutputs, SurfaceOutput};
use crate::backend::Backend;
use crate::output::manifest::{BackendSegment, ResumeRecord};
use crate::output::{
    Checkpoint, Claim, FallbackEntry, FrameWriter, Manifest, RunDir, failed_lcp, lock, resume_check,
};
use crate::scene::LoadedScene;
use crate::surface::SurfaceParams;
use crate::{Error, Result};
use std::path::PathBuf;
use std::sync::atomic::{AtomicI32, Ordering};
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
    /// Whether `--backend` named it (cpu or gpu): only then may a resumed run change backend.
    pub backend_explicit: bool,
    /// The command that runs this scene into `out` again, as the user would type it, without
    /// `--resume` or `--overwrite` (for the fixes that messages name).
    pub command: String,
    /// What to do with an earlier run's files in `out`: refuse them, resume that run from its
    /// checkpoint, or remove them first.
    pub claim: Claim,
    /// Write a checkpoint after every this many frames (0: only when stopped by a signal);
    /// the last frame always gets one.
    pub checkpoint_every: u32,
    /// A signal's number, set asynchronously, asks the run to stop at the end of its step.
    pub stop: Option<&'static AtomicI32>,
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
    /// Steps taken before this process took the run up (from a checkpoint; 0 for a new run).
    pub resumed_steps: u64,
    /// Wall-clock time since this process took its first step.
    pub elapsed: Duration,
}

impl Progress {
    /// Particle-steps per wall-clock second so far (of this process).
    pub fn particle_steps_per_s(&self) -> f64 {
        let steps = self.steps - self.resumed_steps;
        self.particles as f64 * steps as f64 / self.elapsed.as_secs_f64().max(1e-9)
    }
}

/// The outcome of a run that ended without an error.
#[derive(Debug, Clone)]
pub struct RunSummary {
    /// The last progress report.
    pub last: Progress,
    /// The output directory.
    pub out: PathBuf,
    /// Liquid particles removed at setup because they started inside a body.
    pub removed_inside_bodies: usize,
    /// The frame of the checkpoint the run took up, when it resumed one.
    pub resumed_from: Option<u32>,
    /// The signal that stopped the run before its last frame (its checkpoint and manifest are
    /// written), if one did.
    pub stopped: Option<i32>,
}

/// The name of a stop signal.
pub fn signal_name(signal: i32) -> String {
    match signal {
        2 => "SIGINT".into(),
        15 => "SIGTERM".into(),
        n => format!("signal {n}"),
    }
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
        scene_hash: format!("{:08x}", scene_hash(&scene)),
        units: Manifest::si_units(),
        up_axis: "y",
        frame_start: 0,
        backend: backend.name().to_string(),
        backend_segments: Vec::new(),
        particles: sim.particles().len(),
        removed_inside_bodies: sim.removed_inside_bodies,
        particle_radius: params.spacing as f64 / 2.0,
        kernel_radius: params.h as f64,
        rest_kernel_sum: params.rho0 as f64,
        fps: loaded.scene.time.fps,
        dt: sim.dt,
        substeps: sim.substeps,
        complete: false,
        stopped: None,
        failed: None,
        checkpoint_step: None,
        steps: 0,
        wall_seconds: 0.0,
        lcp_fallbacks: Vec::new(),
        surface: None,
        tables: Default::default(),
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

/// Problems of unsolved steps written out per run (the first ones); later unsolved steps are
/// logged and counted only.
const UNSOLVED_FILES: usize = 10;

/// Log the steps since the last frame whose contact LCP missed the tolerance and went on with
/// the closest answer (`coupling.on_failure = "continue"`), one line each; the first
/// [`UNSOLVED_FILES`] problems of the run are written out for `sphrigid lcp solve`.
fn record_unsolved(
    sim: &mut Simulation,
    run: &RunDir,
    written: &mut usize,
    log: &mut dyn FnMut(&str),
) -> Result<()> {
    for (step, failure) in sim.unsolved.drain(..) {
        let (rows, outcome) = (failure.rows, failure.outcome.clone());
        let replay = if *written < UNSOLVED_FILES {
            *written += 1;
            let path = failed_lcp::write(run, step, failure.problem)?;
            format!(" Replay with: sphrigid lcp solve {}", path.display())
        } else {
            String::new()
        };
        log(&format!(
            "step {step}: the contact LCP ({rows} rows) ended with outcome '{outcome}'; \
             the step went on with that answer (coupling.on_failure = \"continue\"; \
             counted in run_metrics.csv's lcp_unsolved).{replay}"
        ));
    }
    Ok(())
}

/// The checkpoint a resumed run takes up from `run`, checked against the scene, the frames
/// asked for and the backend, with the earlier manifest; `None` for a directory without a
/// run in it.
fn take_up(
    run: &RunDir,
    loaded: &LoadedScene,
    frames: u32,
    opts: &RunOptions,
) -> Result<Option<(Checkpoint, ResumeRecord)>> {
    let Some(c) = crate::output::checkpoint::read(run)? else {
        if run.own_files().is_empty() {
            return Ok(None);
        }
        return Err(Error::input(format!(
            "{}: --resume: the earlier run left no checkpoint; fix: start over with --overwrite",
            run.path().display()
        )));
    };
    let hash = scene_hash(&loaded.scene);
    if c.scene_hash != hash {
        let changed = crate::output::manifest::read_scene(run)
            .map(|(old, _)| changed_keys(&old, &loaded.scene))
            .filter(|k| !k.is_empty())
            .map_or("the scene".to_string(), |k| k.join(", "));
        return Err(Error::input(format!(
            "{}: --resume: the scene differs from the checkpoint's in {changed} (scene hash {hash:08x}, checkpoint {:08x}); fix: run the same scene and --set values (only --frames may grow), or start over with --overwrite",
            loaded.file.display(),
            c.scene_hash
        )));
    }
    if frames < c.frame {
        return Err(Error::input(format!(
            "--frames {frames}: the checkpoint in {} is at frame {}; fix: give --frames {} or more, or start over with --overwrite",
            run.path().display(),
            c.frame,
            c.frame
        )));
    }
    let record = crate::output::manifest::read_for_resume(run).unwrap_or_default();
    let now = opts.backend.name();
    if !record.backend.is_empty() && record.backend != now && !opts.backend_explicit {
        return Err(Error::input(format!(
            "{}: --resume: the earlier run computed on the {} backend, and this one would on the {now} backend; fix: add --backend {} to continue as before, or --backend {now} to switch (the manifest then records both)",
            run.path().display(),
            record.backend,
            record.backend
        )));
    }
    Ok(Some((c, record)))
}

/// The backend segments of a run resumed at `frame` on `now` after `record`: unchanged when
/// the backend is the one before, else the earlier ones and a new one from `frame`.
fn segments(record: &ResumeRecord, frame: u32, now: &str) -> Vec<BackendSegment> {
    let mut out = record.backend_segments.clone();
    if record.backend.is_empty() || record.backend == now {
        return out;
    }
    if out.is_empty() {
        out.push(BackendSegment {
            from_frame: 0,
            backend: record.backend.clone(),
        });
    }
    out.retain(|s| s.from_frame < frame);
    out.push(BackendSegment {
        from_frame: frame,
        backend: now.to_string(),
    });
    out
}

/// The error for a frame or checkpoint that could not be written (`e`, at frame `frame`),
/// saying what is intact and what to do: after a full disk, free space and resume from the
/// last checkpoint (`checkpoint_frame`) with the exact command.
fn write_failed(e: Error, frame: u32, checkpoint_frame: Option<u32>, opts: &RunOptions) -> Error {
    let Error::Io { source, .. } = &e else {
        return e;
    };
    let intact = match frame {
        0 => format!("no frame was written in {}", opts.out.display()),
        1 => format!("frame 0 in {} is intact", opts.out.display()),
        n => format!("frames 0..{} in {} are intact", n - 1, opts.out.display()),
    };
    let resume = match checkpoint_frame {
        Some(c) => format!(
            "then continue from the checkpoint at frame {c} with: {} --resume",
            opts.command
        ),
        None => format!("then start over with: {} --overwrite", opts.command),
    };
    if source.kind() == std::io::ErrorKind::StorageFull {
        Error::input(format!(
            "{e} (the disk is full); {intact}; fix: free disk space, {resume}"
        ))
    } else {
        Error::input(format!(
            "{e}; {intact}; fix: free disk space or make the directory writable, {resume}, or write elsewhere (--out)"
        ))
    }
}

/// Run a loaded scene, calling `progress` after every frame written and `log` with every
/// notice (a step that fell back to penalty). The output directory is locked for the run;
/// `opts.claim` says what to do with an earlier run's files there.
///
/// ```no_run
/// use sphrigid::backend::Backend;
/// use sphrigid::output::Claim;
/// use sphrigid::sim::{RunOptions, run};
/// use std::path::{Path, PathBuf};
///
/// let loaded = sphrigid::scene::load(Path::new("scenes/dam_break.toml"), &[])?;
/// let opts = RunOptions {
///     out: PathBuf::from("out/dam_break"),
///     frames: Some(30),
///     backend: Backend::Cpu,
///     backend_explicit: true,
///     command: "my-program".into(),
///     claim: Claim::Refuse,
///     checkpoint_every: 0,
///     stop: None,
/// };
/// let summary = run(&loaded, &opts, &mut |p| eprintln!("frame {}/{}", p.frame, p.frames), &mut |note| {
///     eprintln!("{note}")
/// })?;
/// println!("wrote {}", summary.out.display());
/// # Ok::<(), sphrigid::Error>(())
/// ```
pub fn run(
    loaded: &LoadedScene,
    opts: &RunOptions,
    progress: &mut dyn FnMut(&Progress),
    log: &mut dyn FnMut(&str),
) -> Result<RunSummary> {
    let scene = &loaded.scene;
    let frames = opts.frames.unwrap_or(scene.time.frames);
    let run_dir = RunDir::new(&opts.out);
    let _lock = lock::lock(&run_dir)?;
    lock::claim(&run_dir, opts.claim)?;
    let resumed = match opts.claim {
        Claim::Resume => take_up(&run_dir, loaded, frames, opts)?,
        _ => None,
    };
    let hash = scene_hash(scene);
    let at = resumed
        .as_ref()
        .map(|(c, _)| (c.frame, c.steps, c.wall_seconds));
    // Set up for the frames asked for (the emitters' particles are made room for up to the
    // run's end).
    let resized;
    let sized = if frames == scene.time.frames {
        loaded
    } else {
        let mut l = loaded.clone();
        l.scene.time.frames = frames;
        resized = l;
        &resized
    };
    let mut sim =
        Simulation::setup_from(sized, opts.backend, resumed.as_ref().map(|r| r.0.clone()))?;
    let guard = super::guard::StateGuard::new(scene, &sim);
    let mut manifest = initial_manifest(loaded, &sim, opts.backend, frames);
    // Every frame and table the resumed run keeps is checked before anything is written.
    let kept = match &resumed {
        Some((c, record)) => {
            let bodies: Vec<String> = sim.bodies.iter().map(|b| b.name.clone()).collect();
            manifest.backend_segments = segments(record, c.frame, opts.backend.name());
            let rerun = format!("{} --overwrite", opts.command);
            Some(resume_check::check(
                &run_dir, record, c.frame, &bodies, c.tables, &rerun,
            )?)
        }
        None => None,
    };
    let surface = scene.output.surface.then(|| SurfaceOutput {
        params: SurfaceParams::for_run(manifest.particle_radius, manifest.kernel_radius),
        container: scene.container.as_ref().map(|c| (c.min, c.max)),
    });
    let mut out = RunOutputs::open(
        &run_dir,
        &sim,
        manifest,
        scene.time.fps,
        resumed.as_ref().map(|(c, _)| c).zip(kept),
        surface,
        super::gauges::Gauges::new(scene, sim.liquid.params(), sim.substeps),
    )?;
    drop(resumed);
    let (first_frame, resumed_steps, wall_before) = at.unwrap_or((0, 0, 0.0));
    let mut checkpoint_frame = at.map(|a| a.0);
    let mut unsolved_files = 0;
    let checkpoint_due = |frame: u32| {
        frame == frames
            || (opts.checkpoint_every > 0 && frame.is_multiple_of(opts.checkpoint_every))
    };
    let save = |sim: &Simulation, out: &RunOutputs, frame: u32| -> Result<()> {
        let m = &out.writer.manifest;
        let c = checkpoint::capture(
            sim,
            frame,
            hash,
            m.wall_seconds,
            out.tables(),
            m.lcp_fallbacks.clone(),
        )?;
        crate::output::checkpoint::write(&run_dir, &c)
    };
    // A frame's files, then (when due) its checkpoint, then the manifest that lists them:
    // the manifest names a checkpoint step only once that checkpoint is on disk.
    let mut finish_frame =
        |sim: &mut Simulation, out: &mut RunOutputs, frame: u32, time: f64, due: bool| {
            (|| {
                out.write_frame(sim, frame, time)?;
                if due {
                    save(sim, out, frame)?;
                    out.writer.manifest.checkpoint_step = Some(sim.steps);
                    checkpoint_frame = Some(frame);
                }
                out.writer.write_manifest()
            })()
            .map_err(|e| write_failed(e, frame, checkpoint_frame, opts))
        };
    if at.is_none() {
        sim.liquid.update_densities()?;
        finish_frame(&mut sim, &mut out, 0, 0.0, checkpoint_due(0))?;
    }
    let start = Instant::now();
    let mut last = Progress {
        frame: first_frame,
        frames,
        time: first_frame as f64 / scene.time.fps,
        particles: sim.particles().len(),
        steps: sim.steps,
        resumed_steps,
        elapsed: Duration::ZERO,
    };
    progress(&last);
    let substeps = u64::from(sim.substeps);
    for frame in first_frame + 1..=frames {
        let mut stop = None;
        let mut result = Ok(());
        while sim.steps < u64::from(frame) * substeps {
            result = sim.step().and_then(|()| out.after_step(&mut sim));
            if result.is_err() {
                break;
            }
            stop = opts
                .stop
                .map(|s| s.load(Ordering::SeqCst))
                .filter(|&s| s != 0);
            if stop.is_some() {
                break;
            }
        }
        // A failed step names the step it failed in; a failed state check the last step taken.
        let result = result
            .and_then(|_| sim.sync_particles())
            .map_err(|e| (sim.steps + 1, e))
            .and_then(|()| guard.check(&sim).map_err(|e| (sim.steps, Error::Run(e))));
        record_fallbacks(&mut sim, &mut out.writer, log)?;
        record_unsolved(&mut sim, &run_dir, &mut unsolved_files, log)?;
        out.writer.manifest.steps = sim.steps;
        out.writer.manifest.wall_seconds = wall_before + start.elapsed().as_secs_f64();
        if let Err((step, e)) = result {
            out.writer.manifest.failed = Some(format!("step {step}: {e}"));
            out.finish(false)?;
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
        let whole = sim.steps == u64::from(frame) * substeps;
        if whole {
            let time = frame as f64 / scene.time.fps;
            let due = checkpoint_due(frame) || stop.is_some();
            let t0 = Instant::now();
            finish_frame(&mut sim, &mut out, frame, time, due)?;
            for line in out.surface_failures() {
                log(&line);
            }
            sim.times.add(crate::timing::Phase::Output, t0.elapsed());
            last = Progress {
                frame,
                frames,
                time,
                particles: sim.particles().len(),
                steps: sim.steps,
                resumed_steps,
                elapsed: start.elapsed(),
            };
            progress(&last);
        }
        if let Some(signal) = stop.filter(|_| !whole || frame < frames) {
            let written = if whole { frame } else { frame - 1 };
            if !whole {
                out.flush_gauges()?;
                save(&sim, &out, written)?;
                out.writer.manifest.checkpoint_step = Some(sim.steps);
            }
            out.writer.manifest.stopped = Some(format!(
                "{} at step {} (frame {written} written)",
                signal_name(signal),
                sim.steps
            ));
            out.finish(false)?;
            return Ok(RunSummary {
                last,
                out: opts.out.clone(),
                removed_inside_bodies: sim.removed_inside_bodies,
                resumed_from: at.map(|a| a.0),
                stopped: Some(signal),
            });
        }
    }
    out.writer.manifest.wall_seconds = wall_before + start.elapsed().as_secs_f64();
    out.finish(true)?;
    for line in out.surface_failures() {
        log(&line);
    }
    Ok(RunSummary {
        last,
        out: opts.out.clone(),
        removed_inside_bodies: sim.removed_inside_bodies,
        resumed_from: at.map(|a| a.0),
        stopped: None,
    })
}
