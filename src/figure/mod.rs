//! `sphrigid figure`: pictures of a finished run — a strip of side views of chosen frames and
//! plots of a body's tilt and position over time, with the plotted data as CSV.
pub mod canvas;
pub mod colormap;
pub mod font;
pub mod frame_list;
pub mod motion;
pub mod plot;
pub mod png_file;
pub mod run_data;
pub mod strip;

use crate::output::fluid_frames::read_fluid;
use crate::output::rigid_frames::read_body;
use crate::output::write_atomic;
use crate::{Error, Result};
use rayon::prelude::*;
use run_data::RunData;
use std::path::{Path, PathBuf};
use strip::{PanelFrame, View};

/// What to draw and where.
#[derive(Debug, Clone, PartialEq)]
pub struct FigureOptions {
    /// The run directory (output of `sphrigid run`).
    pub run_dir: PathBuf,
    /// The `--frames` list, if given.
    pub frames: Option<String>,
    /// The body to plot, if given.
    pub body: Option<String>,
    /// The output directory.
    pub out: PathBuf,
}

/// One written file and what it holds.
#[derive(Debug, Clone, PartialEq)]
pub struct Written {
    /// The file.
    pub path: PathBuf,
    /// A few words on its contents.
    pub what: String,
}

/// Colours of the x, y, z lines of the position plot.
const XYZ_COLORS: [canvas::Rgb; 3] = [[31, 119, 180], [214, 39, 40], [44, 160, 44]];

fn create_out(dir: &Path) -> Result<()> {
    std::fs::create_dir_all(dir).map_err(|e| {
        Error::input(format!(
            "cannot create output directory {}: {e}; fix: choose a writable directory with -o DIR",
            dir.display()
        ))
    })
}

fn write_text(path: &Path, text: &str) -> Result<()> {
    write_atomic(path, text.as_bytes()).map_err(|e| match e {
        Error::Io { path, source } => Error::input(format!(
            "cannot write {}: {source}; fix: choose a writable directory with -o DIR",
            path.display()
        )),
        other => other,
    })
}

/// Draw the figures of a run and write them into `opts.out`; returns the files written.
pub fn make(opts: &FigureOptions) -> Result<Vec<Written>> {
    let run = RunData::open(&opts.run_dir)?;
    let available: Vec<u32> = run.frames.iter().map(|f| f.index).collect();
    let chosen = match &opts.frames {
        Some(spec) => frame_list::parse(spec, &available)?,
        None => frame_list::evenly_spaced(&available, frame_list::DEFAULT_COUNT),
    };
    let bodies = run.bodies();
    let body = match (&opts.body, bodies.first()) {
        (Some(b), _) if bodies.contains(b) => Some(b.clone()),
        (Some(b), None) => {
            return Err(Error::input(format!(
                "--body {b}: the run in {} has no bodies; fix: leave out --body",
                run.dir.path().display()
            )));
        }
        (Some(b), Some(_)) => {
            return Err(Error::input(format!(
                "--body {b}: the run in {} has no body of that name; fix: use one of: {}",
                run.dir.path().display(),
                bodies.join(", ")
            )));
        }
        (None, first) => first.cloned(),
    };
    create_out(&opts.out)?;

    // Read in parallel, but report the first bad frame in order (a parallel short-circuit
    // would name whichever failed first).
    let frames: Vec<Result<PanelFrame>> = chosen
        .par_iter()
        .map(|&i| {
            let f = run
                .frame(i)
                .expect("the frame list was checked against the run");
            let fluid = read_fluid(&f.fluid)?;
            let bodies = f
                .rigid
                .iter()
                .map(|(name, path)| {
                    let k = bodies.iter().position(|b| b == name).unwrap_or(0);
                    Ok((k, read_body(path)?))
                })
                .collect::<Result<Vec<_>>>()?;
            Ok(PanelFrame {
                index: f.index,
                time: f.time,
                fluid,
                bodies,
            })
        })
        .collect();
    let frames: Vec<PanelFrame> = frames.into_iter().collect::<Result<_>>()?;
    let view = match run.container {
        Some((lo, hi)) => View::new([lo[0], lo[1]], [hi[0], hi[1]]),
        None => {
            let (lo, hi) = strip::data_bounds(&frames, run.particle_radius);
            View::new(lo, hi)
        }
    };
    let vmax = strip::speed_range(&frames);
    let panels: Vec<canvas::Canvas> = frames
        .par_iter()
        .map(|f| strip::panel(&view, f, run.particle_radius, vmax, run.container.is_some()))
        .collect();

    let mut written = Vec::new();
    let path = opts.out.join("frames.png");
    png_file::write(&path, &strip::strip(&panels, &view, vmax))?;
    let list: Vec<String> = chosen.iter().map(u32::to_string).collect();
    written.push(Written {
        path,
        what: format!(
            "side views of frames {}, speed 0 to {vmax:.3} m/s",
            list.join(", ")
        ),
    });
    for (f, p) in frames.iter().zip(&panels) {
        let path = opts.out.join(format!("frame_{:05}.png", f.index));
        png_file::write(&path, &strip::panel_with_colorbar(p, &view, vmax))?;
        written.push(Written {
            path,
            what: format!("side view of frame {} (t = {:.4} s)", f.index, f.time),
        });
    }

    if let Some(name) = body {
        written.extend(body_figures(&run, &name, &opts.out)?);
    }
    Ok(written)
}

/// The tilt and position plots of body `name` and its motion CSV.
fn body_figures(run: &RunData, name: &str, out: &Path) -> Result<Vec<Written>> {
    let samples = motion::of_body(&run.states, name);
    if samples.is_empty() {
        return Err(Error::input(format!(
            "{}: no rows for body {name}; fix: rerun the scene to rewrite rigid_states.csv",
            run.dir.rigid_states().display()
        )));
    }
    let mut written = Vec::new();
    let tilt = plot::LinePlot {
        title: format!("{name}: tilt from vertical"),
        x_label: "time (s)".into(),
        y_label: "tilt (degrees)".into(),
        series: vec![plot::Series {
            name: "tilt".into(),
            color: XYZ_COLORS[0],
            points: samples.iter().map(|m| [m.time, m.tilt_deg]).collect(),
        }],
        y_from_zero: true,
    };
    let path = out.join(format!("{name}_tilt.png"));
    png_file::write(&path, &plot::render(&tilt))?;
    let max_tilt = samples.iter().map(|m| m.tilt_deg).fold(0.0, f64::max);
    written.push(Written {
        path,
        what: format!("tilt of {name} over time (largest {max_tilt:.2} degrees)"),
    });
    let position = plot::LinePlot {
        title: format!("{name}: centre of mass"),
        x_label: "time (s)".into(),
        y_label: "position (m)".into(),
        series: (0..3)
            .map(|k| plot::Series {
                name: ["x", "y", "z"][k].into(),
                color: XYZ_COLORS[k],
                points: samples.iter().map(|m| [m.time, m.com[k]]).collect(),
            })
            .collect(),
        y_from_zero: false,
    };
    let path = out.join(format!("{name}_position.png"));
    png_file::write(&path, &plot::render(&position))?;
    written.push(Written {
        path,
        what: format!("x, y, z of {name}'s centre of mass over time"),
    });
    let path = out.join(format!("{name}_motion.csv"));
    write_text(&path, &motion::to_csv(&samples))?;
    written.push(Written {
        path,
        what: format!("{} rows: {}", samples.len(), motion::HEADER),
    });
    Ok(written)
}
