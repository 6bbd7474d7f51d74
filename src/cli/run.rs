//! `sphrigid run`: simulate a scene and write its frames, with a progress bar.
use crate::backend::Backend;
use crate::sim::footprint::{self, Footprint};
use crate::sim::runner::{self, Progress, RunOptions};
use crate::{Result, scene};
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
    /// Compute backend: auto, cpu or gpu.
    #[arg(long, default_value = "auto")]
    pub backend: String,
    /// Override a scene value by its dotted path, e.g. --set liquid.0.viscosity.sigma=0.5.
    #[arg(long = "set", value_name = "KEY=VALUE")]
    pub set: Vec<String>,
    /// No progress bar: one log line per 10% of the frames, for log files (the default when
    /// stderr is not a terminal).
    #[arg(long)]
    pub quiet: bool,
    /// Refuse a scene whose estimated memory exceeds this, e.g. 4G (default: the memory
    /// available).
    #[arg(long, value_name = "SIZE", value_parser = footprint::parse_size)]
    pub max_memory: Option<u64>,
}

/// Run `sphrigid run`.
pub fn run(args: RunArgs) -> Result<()> {
    let loaded = scene::load(&args.scene, &args.set)?;
    let (backend, why) = Backend::choose(&args.backend)?;
    Footprint::of(&loaded.scene).guard(&args.scene, backend, args.max_memory)?;
    let out = loaded.output_dir(args.out.as_deref());
    eprintln!(
        "{}: {why}; writing to {}",
        args.scene.display(),
        out.display()
    );
    let opts = RunOptions {
        out,
        frames: args.frames,
        backend,
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
