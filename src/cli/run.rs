//! `sphrigid run`: simulate a scene and write its frames, with a progress bar.
use crate::backend::Backend;
use crate::output::Claim;
use crate::sim::footprint::{self, Footprint};
use crate::sim::runner::{self, Progress, RunOptions};
use crate::sim::{build, cfl, step_counts};
use crate::{Error, Result, scene};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io::IsTerminal;
use std::path::PathBuf;

/// Arguments of `sphrigid run`.
#[derive(Debug, clap::Args)]
pub struct RunArgs {
    /// The scene file (TOML).
    pub scene: PathBuf,
    /// Output directory (default: the scene's `output`, else out/<scene name>).
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Frames to simulate (default: the scene's time.frames).
    #[arg(long)]
    pub frames: Option<u32>,
    /// Compute backend: auto (the default), cpu or gpu. A resumed run keeps its backend
    /// unless this names another.
    #[arg(long)]
    pub backend: Option<String>,
    /// Override a scene value by its dotted path, e.g. --set liquid.0.viscosity.sigma=0.5.
    #[arg(long = "set", value_name = "KEY=VALUE")]
    pub set: Vec<String>,
    /// No progress bar: one log line per 10% of the frames, for log files (the default when
    /// stderr is not a terminal).
    #[arg(long)]
    pub quiet: bool,
    /// Continue the run in --out from its last checkpoint (the same scene and --set values;
    /// --frames may grow). Without a run there, start one.
    #[arg(long, conflicts_with = "overwrite")]
    pub resume: bool,
    /// Remove the files of an earlier run in --out (frames, manifest, tables, checkpoint)
    /// before running; without it such a directory is refused.
    #[arg(long)]
    pub overwrite: bool,
    /// Write a checkpoint after every N frames (0: only at the end and when stopped by a
    /// signal).
    #[arg(long, value_name = "N", default_value_t = 1)]
    pub checkpoint_every: u32,
    /// Refuse (exit 2) a scene whose own time.substeps or time.dt exceed the CFL bound,
    /// instead of warning.
    #[arg(long)]
    pub strict_cfl: bool,
    /// Refuse a scene whose estimated memory exceeds this, e.g. 4G (default: the memory
    /// available).
    #[arg(long, value_name = "SIZE", value_parser = footprint::parse_size)]
    pub max_memory: Option<u64>,
    /// Build the liquid's surface (surface/surface_NNNNN.ply) as each frame is written, as
    /// `[output] surface = true` does.
    #[arg(long)]
    pub surface: bool,
}

/// Run `sphrigid run`.
pub fn run(args: RunArgs) -> Result<()> {
    let mut loaded = scene::load(&args.scene, &args.set)?;
    loaded.scene.output.surface |= args.surface;
    let out = loaded.output_dir(args.out.as_deref());
    if !args.resume && !args.overwrite {
        // Refused before anything is printed: what is there and how to keep or replace it.
        let run = crate::output::RunDir::new(&out);
        let hash = crate::sim::checkpoint::scene_hash(&loaded.scene);
        crate::output::lock::refuse_earlier(&run, &args.scene, hash)?;
    }
    let (backend, why) = Backend::choose(args.backend.as_deref().unwrap_or("auto"))?;
    Footprint::of(&loaded.scene).guard(&args.scene, backend, args.max_memory)?;
    step_counts::check(&loaded)?;
    if let Some(excess) = cfl::check(&loaded, &build::stepping(&loaded.scene)) {
        let e = excess.to_error(&loaded);
        if args.strict_cfl {
            return Err(e);
        }
        eprintln!("warning: {e} (--strict-cfl makes this an error)");
    }
    for note in build::mesh_notes(&loaded) {
        eprintln!("note: {note}");
    }
    eprintln!(
        "{}: {why}; writing to {}",
        args.scene.display(),
        out.display()
    );
    let claim = if args.resume {
        Claim::Resume
    } else if args.overwrite {
        Claim::Overwrite
    } else {
        Claim::Refuse
    };
    let opts = RunOptions {
        command: command(&args, &out),
        out,
        frames: args.frames,
        backend,
        backend_explicit: matches!(args.backend.as_deref(), Some("cpu" | "gpu")),
        claim,
        checkpoint_every: args.checkpoint_every,
        stop: Some(super::signals::install()),
    };
    // A log file gets the log lines that --quiet gives, not a bar it cannot draw.
    let quiet = args.quiet || !std::io::stderr().is_terminal();
    let bar = ProgressBar::with_draw_target(
        None,
        if quiet {
            ProgressDrawTarget::hidden()
        } else {
            ProgressDrawTarget::stderr()
        },
    );
    bar.set_style(
        ProgressStyle::with_template("{bar:30} frame {pos}/{len}  {msg}  eta {eta}")
            .expect("the progress template is valid"),
    );
    let mut next_log = 0u32;
    let log_bar = bar.clone();
    // Whatever draws the bar (or none, with --quiet or without a terminal), the line shows.
    let mut log = move |line: &str| log_bar.suspend(|| eprintln!("warning: {line}"));
    let summary = runner::run(
        &loaded,
        &opts,
        &mut |p: &Progress| {
            bar.set_length(p.frames as u64);
            bar.set_position(p.frame as u64);
            bar.set_message(format!(
                "t = {:.3} s  {:.2}M particle-steps/s",
                p.time,
                p.particle_steps_per_s() / 1e6
            ));
            if quiet && p.frame >= next_log {
                eprintln!(
                    "frame {}/{}  t = {:.4} s  {} particles  {:.2}M particle-steps/s",
                    p.frame,
                    p.frames,
                    p.time,
                    p.particles,
                    p.particle_steps_per_s() / 1e6
                );
                next_log = p.frame + (p.frames / 10).max(1);
            }
        },
        &mut log,
    );
    bar.finish_and_clear();
    let s = summary?;
    if let Some(frame) = s.resumed_from {
        eprintln!("resumed from the checkpoint at frame {frame}");
    }
    if let Some(signal) = s.stopped {
        return Err(Error::Stopped {
            message: format!(
                "{}: frames 0..{} and a checkpoint are written in {}; resume with: {} --resume",
                runner::signal_name(signal),
                s.last.frame,
                s.out.display(),
                opts.command
            ),
            status: (128 + signal).clamp(0, 255) as u8,
        });
    }
    if s.removed_inside_bodies > 0 {
        eprintln!(
            "removed {} liquid particles that started inside bodies",
            s.removed_inside_bodies
        );
    }
    eprintln!(
        "done: {} frames, {} particles, {} steps in {:.1} s ({:.2}M particle-steps/s){}; frames in {}",
        s.last.frame,
        s.last.particles,
        s.last.steps,
        s.last.elapsed.as_secs_f64(),
        s.last.particle_steps_per_s() / 1e6,
        footprint::peak_resident().map_or(String::new(), |b| format!(
            ", peak memory {}",
            footprint::mib(b as f64)
        )),
        s.out.display()
    );
    Ok(())
}

/// The command that runs this scene into `out` again as asked, without `--resume` and
/// `--overwrite` (its `--out`, `--frames`, `--backend` and `--set` values kept).
fn command(args: &RunArgs, out: &std::path::Path) -> String {
    let mut c = format!(
        "sphrigid run {} --out {}",
        args.scene.display(),
        out.display()
    );
    if let Some(n) = args.frames {
        c += &format!(" --frames {n}");
    }
    if let Some(b) = &args.backend {
        c += &format!(" --backend {b}");
    }
    for kv in &args.set {
        c += &format!(" --set {kv}");
    }
    c
}
