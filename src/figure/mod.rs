//! `sphrigid figure`: pictures of a finished run — a strip of side views of chosen frames,
//! plots of a body's tilt and position over time, a collapsing column's surge front over time,
//! a still liquid's pressure profile and the liquid's mean velocity, each with the plotted data
//! as CSV, and the gauges' readings over time when the scene has gauges.
pub(crate) mod canvas;
pub(crate) mod colormap;
pub(crate) mod font;
pub(crate) mod frame_list;
pub(crate) mod front;
pub(crate) mod gauges;
pub(crate) mod motion;
pub(crate) mod plot;
pub(crate) mod png_file;
pub(crate) mod profile;
pub(crate) mod run_data;
pub(crate) mod strip;

use crate::output::fluid_frames::{FluidPoints, read_fluid, read_fluid_points};
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
    /// Plot the surge front `Z = x / a` over `T = t sqrt(2 g / a)` for this column width `a`, m.
    pub front: Option<f64>,
    /// Measured `(T, Z)` points to draw with the front and compare it with.
    pub reference: Option<PathBuf>,
    /// Added to the simulated `T` (the experiment's later time origin).
    pub time_shift: f64,
    /// The `--profile` frame list: plot the pressure profile averaged over these frames.
    pub profile: Option<String>,
    /// Plot the liquid's mean velocity over every frame.
    pub velocity: bool,
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
    let averaged = match &opts.profile {
        Some(spec) => Some(frame_list::parse_option("--profile", spec, &available)?),
        None => None,
    };
    if (opts.front.is_some() || averaged.is_some() || opts.velocity) && run.liquid.is_none() {
        return Err(Error::input(format!(
            "the run in {} has no liquid to plot; fix: leave out --front, --profile and --velocity",
            run.dir.path().display()
        )));
    }
    if averaged.is_some() && run.container.is_none() {
        return Err(Error::input(format!(
            "--profile: the run in {} has no container, whose floor sets the rows; fix: leave out --profile",
            run.dir.path().display()
        )));
    }
    if let Some(a) = opts.front
        && (!a.is_finite() || a <= 0.0)
    {
        return Err(Error::input(format!(
            "--front {a}: the column width must be positive; fix: give it in metres, like --front 0.05715"
        )));
    }
    if opts.front.is_some() && run.gravity.iter().all(|g| *g == 0.0) {
        return Err(Error::input(format!(
            "--front: the run in {} has no gravity, so T = t sqrt(2g/a) is undefined; fix: leave out --front",
            run.dir.path().display()
        )));
    }
    let reference = match (&opts.reference, opts.front) {
        (Some(path), Some(_)) => Some(front::read_reference(path)?),
        (Some(_), None) => {
            return Err(Error::input(
                "--reference needs --front; fix: add --front A with the column width in metres",
            ));
        }
        (None, _) => None,
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
    if let Some(a) = opts.front {
        written.extend(front_figures(
            &run,
            a,
            reference.as_deref(),
            opts.time_shift,
            &opts.out,
        )?);
    }
    if let Some(frames) = averaged {
        written.extend(profile_figures(&run, &frames, &opts.out)?);
    }
    if opts.velocity {
        written.extend(velocity_figures(&run, &opts.out)?);
    }
    written.extend(gauges::figures(&run, &opts.out)?);
    Ok(written)
}

/// Header of `velocity.csv`.
pub const VELOCITY_HEADER: &str = "frame,time,vx,vy,vz";

/// The liquid's mean velocity over every frame: its plot and CSV.
fn velocity_figures(run: &RunData, out: &Path) -> Result<Vec<Written>> {
    let all: Vec<u32> = run.frames.iter().map(|f| f.index).collect();
    let points = read_points(run, &all)?;
    let means: Vec<(u32, f64, [f64; 3])> = run
        .frames
        .iter()
        .zip(&points)
        .map(|(f, p)| {
            let mut sum = [0.0f64; 3];
            for v in &p.vel {
                for (s, x) in sum.iter_mut().zip(v) {
                    *s += *x as f64;
                }
            }
            let n = p.vel.len().max(1) as f64;
            (f.index, f.time, sum.map(|s| s / n))
        })
        .collect();
    let chart = plot::LinePlot {
        title: "mean velocity of the liquid".into(),
        x_label: "time (s)".into(),
        y_label: "velocity (m/s)".into(),
        series: (0..3)
            .map(|k| plot::Series {
                name: ["vx", "vy", "vz"][k].into(),
                color: XYZ_COLORS[k],
                points: means.iter().map(|m| [m.1, m.2[k]]).collect(),
            })
            .collect(),
        y_from_zero: true,
    };
    let mut written = Vec::new();
    let path = out.join("velocity.png");
    png_file::write(&path, &plot::render(&chart))?;
    let last = means.last().map_or([0.0; 3], |m| m.2);
    written.push(Written {
        path,
        what: format!(
            "mean velocity over time (({:.5}, {:.5}, {:.5}) m/s at the last frame)",
            last[0], last[1], last[2]
        ),
    });
    let mut csv = format!("{VELOCITY_HEADER}\n");
    for (frame, time, v) in &means {
        csv += &format!("{frame},{time:.9},{:.9},{:.9},{:.9}\n", v[0], v[1], v[2]);
    }
    let path = out.join("velocity.csv");
    write_text(&path, &csv)?;
    written.push(Written {
        path,
        what: format!("{} rows: {VELOCITY_HEADER}", means.len()),
    });
    Ok(written)
}

/// Every listed frame's particles with their densities, read in parallel, errors in order.
fn read_points(run: &RunData, frames: &[u32]) -> Result<Vec<FluidPoints>> {
    let read: Vec<Result<FluidPoints>> = frames
        .par_iter()
        .map(|&i| {
            let f = run
                .frame(i)
                .expect("the frame list was checked against the run");
            read_fluid_points(&f.fluid)
        })
        .collect();
    read.into_iter().collect()
}

/// Colour of the simulated line of the front and profile plots.
const SIMULATED: canvas::Rgb = [31, 119, 180];
/// Colour of the measured or analytic line.
const REFERENCE: canvas::Rgb = [214, 39, 40];

/// The surge front's plot and CSV over every frame of the run, and its comparison with the
/// measured points when given.
fn front_figures(
    run: &RunData,
    a: f64,
    reference: Option<&[[f64; 2]]>,
    shift: f64,
    out: &Path,
) -> Result<Vec<Written>> {
    let liquid = run.liquid.expect("checked: the run has liquid");
    let all: Vec<u32> = run.frames.iter().map(|f| f.index).collect();
    let points = read_points(run, &all)?;
    let g = run.gravity.iter().map(|g| g * g).sum::<f64>().sqrt();
    let scale = front::time_scale(g, a);
    let x0 = run.container.map_or(0.0, |(lo, _)| lo[0]);
    let samples: Vec<front::FrontSample> = run
        .frames
        .iter()
        .zip(&points)
        .filter_map(|(f, p)| {
            let x = front::leading_edge(p, liquid.rest_density, x0)?;
            Some(front::FrontSample {
                frame: f.index,
                time: f.time,
                t: f.time * scale + shift,
                z: x / a,
            })
        })
        .collect();
    let mut series = vec![plot::Series {
        name: "simulated".into(),
        color: SIMULATED,
        points: samples.iter().map(|s| [s.t, s.z]).collect(),
    }];
    if let Some(r) = reference {
        series.push(plot::Series {
            name: "measured".into(),
            color: REFERENCE,
            points: r.to_vec(),
        });
    }
    let chart = plot::LinePlot {
        title: format!("surge front, a = {a} m"),
        x_label: if shift == 0.0 {
            "T = t sqrt(2g/a)".into()
        } else {
            format!("T = t sqrt(2g/a) + {shift}")
        },
        y_label: "Z = x/a".into(),
        series,
        y_from_zero: false,
    };
    let mut written = Vec::new();
    let path = out.join("front.png");
    png_file::write(&path, &plot::render(&chart))?;
    let last = samples.last().map_or(0.0, |s| s.z);
    written.push(Written {
        path,
        what: format!("surge front Z over T (Z = {last:.3} at the last frame)"),
    });
    let path = out.join("front.csv");
    write_text(&path, &front::to_csv(&samples))?;
    written.push(Written {
        path,
        what: format!("{} rows: {}", samples.len(), front::HEADER),
    });
    if let Some(r) = reference {
        let rows = front::compare(&samples, r);
        let path = out.join("front_reference.csv");
        write_text(&path, &front::comparison_csv(&rows))?;
        let worst = rows.iter().map(|r| r[3].abs()).fold(0.0, f64::max);
        written.push(Written {
            path,
            what: format!(
                "{} measured points within the run: {} (worst error {:.1}%)",
                rows.len(),
                front::REFERENCE_HEADER,
                100.0 * worst
            ),
        });
    }
    Ok(written)
}

/// The pressure profile's plot and CSV, averaged over `frames`.
fn profile_figures(run: &RunData, frames: &[u32], out: &Path) -> Result<Vec<Written>> {
    let liquid = run.liquid.expect("checked: the run has liquid");
    let points = read_points(run, frames)?;
    let spacing = 2.0 * run.particle_radius;
    let g = run.gravity.iter().map(|g| g * g).sum::<f64>().sqrt();
    let (lo, hi) = run.container.expect("checked: the run has a container");
    let setup = profile::Setup {
        per_row: ((hi[0] - lo[0]) * (hi[2] - lo[2]) / (spacing * spacing)).round() as usize,
        x_range: (lo[0] + 2.0 * spacing, hi[0] - 2.0 * spacing),
        rest_density: liquid.rest_density,
        stiffness: liquid.stiffness,
        g,
    };
    let rows = profile::rows(&points, &setup);
    // The top row lies in the free surface's skin, whose clamped kernel sums read far below
    // rest: it stays in the CSV but is left out of the chart, whose scale it would take.
    let drawn = &rows[..rows.len().saturating_sub(1)];
    let chart = plot::LinePlot {
        title: format!(
            "pressure by depth, frames {} to {}",
            frames[0],
            frames[frames.len() - 1]
        ),
        x_label: "depth below the top row (m)".into(),
        y_label: "pressure (Pa)".into(),
        series: vec![
            plot::Series {
                name: "k (rho - rho0)".into(),
                color: SIMULATED,
                points: drawn.iter().map(|r| [r.depth, r.pressure]).collect(),
            },
            plot::Series {
                name: "rho0 g d".into(),
                color: REFERENCE,
                points: drawn.iter().map(|r| [r.depth, r.hydrostatic]).collect(),
            },
        ],
        y_from_zero: true,
    };
    let mut written = Vec::new();
    let path = out.join("profile.png");
    png_file::write(&path, &plot::render(&chart))?;
    let slope = match profile::slope(&rows, liquid.rest_density, g) {
        Some(s) => format!(
            "slope {s:.3} rho0 g through rows 1 to {}",
            rows.len().saturating_sub(8)
        ),
        None => "too few rows for a slope".to_string(),
    };
    written.push(Written {
        path,
        what: format!(
            "pressure against rho0 g d over {} frames ({slope})",
            frames.len()
        ),
    });
    let path = out.join("profile.csv");
    write_text(&path, &profile::to_csv(&rows))?;
    written.push(Written {
        path,
        what: format!("{} rows: {}", rows.len(), profile::HEADER),
    });
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
