//! `sphrigid surface`: the liquid's surface mesh of every frame of a finished (or stopped)
//! run, written to `RUN_DIR/surface/surface_NNNNN.ply` and listed in its manifest.
use crate::figure::frame_list;
use crate::output::manifest::{self, FrameRef};
use crate::output::{RunDir, lock};
use crate::sim::surfaces::{build_frames, container_of};
use crate::surface::SurfaceParams;
use crate::{Error, Result};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};

/// Arguments of `sphrigid surface`.
#[derive(Debug, clap::Args)]
pub struct SurfaceArgs {
    /// The run's output directory (holding manifest.json).
    pub run_dir: PathBuf,
    /// Frames to build, e.g. 0,10,20 or 0:45:5 (default: every frame of the run).
    #[arg(long, value_name = "LIST")]
    pub frames: Option<String>,
    /// Frames built side by side, each on one thread (default: one per core).
    #[arg(long, value_name = "N")]
    pub jobs: Option<usize>,
    /// Kernel smoothing length in particle radii; the support is twice it [default: the
    /// run's kernel radius in spacings, kept between 1.75 and 2].
    #[arg(long, value_name = "X")]
    pub smoothing_length: Option<f64>,
    /// Marching cubes cell size in particle radii [default: 0.75].
    #[arg(long, value_name = "X")]
    pub cube_size: Option<f64>,
    /// Iso value relative to the rest density [default: 0.6].
    #[arg(long, value_name = "X")]
    pub threshold: Option<f64>,
    /// Laplacian smoothing iterations on the mesh [default: 5].
    #[arg(long, value_name = "N")]
    pub smooth: Option<u32>,
}

/// Run `sphrigid surface`: build the frames asked for, print the files written, record them
/// in the manifest.
pub fn run(args: SurfaceArgs) -> Result<()> {
    let run = RunDir::open(&args.run_dir)?;
    let _lock = lock::lock(&run)?;
    let m = manifest::read(&run)?;
    let mut params = SurfaceParams::for_run(m.particle_radius, m.kernel_radius.unwrap_or(f64::NAN));
    if let Some(x) = args.smoothing_length {
        params.smoothing_length = x;
    }
    if let Some(x) = args.cube_size {
        params.cube_size = x;
    }
    if let Some(x) = args.threshold {
        params.threshold = x;
    }
    if let Some(n) = args.smooth {
        params.smooth_iterations = n;
    }
    params.validate().map_err(|e| {
        // The settings' own names, as this command's options.
        let e = [
            ("surface.smoothing_length", "--smoothing-length"),
            ("surface.cube_size", "--cube-size"),
            ("surface.threshold", "--threshold"),
            ("surface.smooth_iterations", "--smooth"),
        ]
        .iter()
        .fold(e, |e, (key, option)| e.replace(key, option));
        Error::input(format!(
            "{}: {e}; fix: pass a valid value for that option",
            args.run_dir.display()
        ))
    })?;
    let available: Vec<u32> = m.frames.iter().map(|f| f.index).collect();
    let frames: Vec<&FrameRef> = match &args.frames {
        Some(spec) => {
            let chosen = frame_list::parse(spec, &available)?;
            m.frames
                .iter()
                .filter(|f| chosen.contains(&f.index))
                .collect()
        }
        None => m.frames.iter().collect(),
    };
    let jobs = match args.jobs {
        Some(0) => {
            return Err(Error::input(
                "--jobs 0: no thread to work on; fix: give --jobs 1 or more".to_string(),
            ));
        }
        Some(n) => n,
        None => std::thread::available_parallelism().map_or(1, |n| n.get()),
    };
    let container = container_of(&m.scene);
    let bar = progress_bar(frames.len() as u64);
    let triangles = AtomicUsize::new(0);
    let results = build_frames(&run, &frames, container, &params, jobs, &|_, r| {
        if let Ok(t) = r {
            triangles.fetch_add(*t, Ordering::Relaxed);
        }
        bar.inc(1);
    });
    bar.finish_and_clear();
    let built: Vec<u32> = results
        .iter()
        .filter(|(_, r)| r.is_ok())
        .map(|(i, _)| *i)
        .collect();
    let settings = serde_json::to_value(&params).expect("settings serialise");
    manifest::record_surfaces(&run, settings, &built)?;
    let listing: String = built
        .iter()
        .map(|&i| format!("{}\n", run.surface_frame(i).display()))
        .collect();
    super::print_out(&listing)?;
    eprintln!(
        "built the surface of {} of {} frames ({} triangles) in {}",
        built.len(),
        frames.len(),
        triangles.load(Ordering::Relaxed),
        run.surface_dir().display()
    );
    match results.into_iter().find_map(|(_, r)| r.err()) {
        Some(e) => Err(e),
        None => Ok(()),
    }
}

/// A bar on a terminal, nothing otherwise.
fn progress_bar(len: u64) -> ProgressBar {
    use std::io::IsTerminal;
    if !std::io::stderr().is_terminal() {
        return ProgressBar::with_draw_target(Some(len), ProgressDrawTarget::hidden());
    }
    let bar = ProgressBar::new(len);
    if let Ok(style) = ProgressStyle::with_template("surfaces {bar:40} {pos}/{len} frames, {eta}") {
        bar.set_style(style);
    }
    bar
}
