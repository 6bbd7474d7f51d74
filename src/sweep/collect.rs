//! `sphrigid collect`: one row per run of a sweep, read from each run's own files through
//! the output readers (manifest, `run_metrics.csv`, `rigid_states.csv`).
use crate::Result;
use crate::output::sweep_files::{SweepDir, SweepSpec};
use crate::output::{RunDir, manifest, rigid_states, run_metrics};

/// How far a run got.
#[derive(Debug, Clone, PartialEq)]
pub enum Status {
    /// Its manifest says it finished every frame.
    Complete,
    /// It started but did not finish (still running, stopped, or killed).
    Incomplete,
    /// Its directory or manifest does not exist: it never started.
    Missing,
    /// Its files could not be read; the message says why.
    Unreadable(String),
}

impl Status {
    /// The `complete` column: `true`, `false`, `missing` or `unreadable`.
    pub fn column(&self) -> &'static str {
        match self {
            Status::Complete => "true",
            Status::Incomplete => "false",
            Status::Missing => "missing",
            Status::Unreadable(_) => "unreadable",
        }
    }
}

/// What one run's files say.
#[derive(Debug, Clone, PartialEq)]
pub struct RunSummary {
    /// How far it got.
    pub status: Status,
    /// The last frame written (frames after frame 0).
    pub frames: Option<u32>,
    /// Wall-clock seconds.
    pub wall_seconds: Option<f64>,
    /// Steps taken.
    pub steps: Option<u64>,
    /// The deepest liquid centre inside a body over the frames, in particle spacings.
    pub deepest_leak_spacings: Option<f64>,
    /// The largest rise of the mechanical energy above frame 0's, a fraction of it.
    pub largest_energy_rise: Option<f64>,
    /// Steps whose contact LCP fell back to penalty.
    pub lcp_fallbacks: Option<usize>,
    /// Steps whose contact LCP missed the residual tolerance and went on.
    pub lcp_unsolved: Option<u64>,
    /// Each body's tilt at the last frame, degrees, in the order of `rigid_states.csv`.
    pub final_tilt_deg: Vec<(String, f64)>,
}

impl RunSummary {
    fn empty(status: Status) -> RunSummary {
        RunSummary {
            status,
            frames: None,
            wall_seconds: None,
            steps: None,
            deepest_leak_spacings: None,
            largest_energy_rise: None,
            lcp_fallbacks: None,
            lcp_unsolved: None,
            final_tilt_deg: Vec::new(),
        }
    }
}

/// Summarise the run in `run` from its manifest, `run_metrics.csv` and `rigid_states.csv`.
pub fn summarise(run: &RunDir) -> RunSummary {
    if !run.manifest().exists() {
        return RunSummary::empty(Status::Missing);
    }
    match read_run(run) {
        Ok(s) => s,
        Err(e) => RunSummary::empty(Status::Unreadable(e.to_string())),
    }
}

fn read_run(run: &RunDir) -> Result<RunSummary> {
    let m = manifest::read(run)?;
    let metrics = run_metrics::read(run)?;
    let states = rigid_states::read(run)?;
    let spacing = 2.0 * m.particle_radius;
    let mut tilts: Vec<(String, f64)> = Vec::new();
    for r in &states {
        match tilts.iter_mut().find(|(b, _)| *b == r.body) {
            Some(t) => t.1 = r.tilt_deg(),
            None => tilts.push((r.body.clone(), r.tilt_deg())),
        }
    }
    Ok(RunSummary {
        status: if m.complete {
            Status::Complete
        } else {
            Status::Incomplete
        },
        frames: m.frames.last().map(|f| f.index),
        wall_seconds: m.wall_seconds,
        steps: m.steps,
        deepest_leak_spacings: (!metrics.is_empty()).then(|| {
            metrics.iter().map(|r| r.leak_depth).fold(0.0, f64::max)
                / spacing.max(f64::MIN_POSITIVE)
        }),
        largest_energy_rise: run_metrics::largest_energy_rise(&metrics),
        lcp_fallbacks: Some(m.lcp_fallbacks),
        lcp_unsolved: Some(metrics.iter().map(|r| u64::from(r.lcp_unsolved)).sum()),
        final_tilt_deg: tilts,
    })
}

/// The table `collect` writes: the header, one row per run in the sweep's order, and the runs
/// that are not complete with their status.
#[derive(Debug, Clone)]
pub struct Collected {
    /// Column names.
    pub header: Vec<String>,
    /// One row per run.
    pub rows: Vec<Vec<String>>,
    /// The runs that are not complete, by name.
    pub unfinished: Vec<(String, Status)>,
}

/// The fixed columns after the name and the keys.
pub const COLUMNS: [&str; 8] = [
    "complete",
    "frames",
    "wall_seconds",
    "steps",
    "deepest_leak_spacings",
    "largest_energy_rise",
    "lcp_fallbacks",
    "lcp_unsolved",
];

/// Summarise every run of the sweep in `dir`: columns `name`, each varied key (by its dotted
/// path), [`COLUMNS`], then `final_tilt_deg.<body>` for every body of any run. Values a run
/// does not have (a missing run has none) are empty.
pub fn collect(dir: &SweepDir, spec: &SweepSpec) -> Collected {
    let summaries: Vec<RunSummary> = spec
        .runs
        .iter()
        .map(|r| summarise(&dir.run(&r.name)))
        .collect();
    let mut bodies: Vec<String> = Vec::new();
    for s in &summaries {
        for (b, _) in &s.final_tilt_deg {
            if !bodies.contains(b) {
                bodies.push(b.clone());
            }
        }
    }
    let mut header = vec!["name".to_string()];
    header.extend(spec.keys.iter().cloned());
    header.extend(COLUMNS.iter().map(|c| c.to_string()));
    header.extend(bodies.iter().map(|b| format!("final_tilt_deg.{b}")));
    let opt = |v: Option<String>| v.unwrap_or_default();
    let mut rows = Vec::new();
    let mut unfinished = Vec::new();
    for (run, s) in spec.runs.iter().zip(summaries) {
        let mut row = vec![run.name.clone()];
        row.extend(run.values.iter().cloned());
        row.push(s.status.column().to_string());
        row.push(opt(s.frames.map(|v| v.to_string())));
        row.push(opt(s.wall_seconds.map(|v| format!("{v:.3}"))));
        row.push(opt(s.steps.map(|v| v.to_string())));
        row.push(opt(s.deepest_leak_spacings.map(|v| v.to_string())));
        row.push(opt(s.largest_energy_rise.map(|v| v.to_string())));
        row.push(opt(s.lcp_fallbacks.map(|v| v.to_string())));
        row.push(opt(s.lcp_unsolved.map(|v| v.to_string())));
        for b in &bodies {
            let t = s.final_tilt_deg.iter().find(|(n, _)| n == b);
            row.push(opt(t.map(|(_, v)| v.to_string())));
        }
        rows.push(row);
        if s.status != Status::Complete {
            unfinished.push((run.name.clone(), s.status));
        }
    }
    Collected {
        header,
        rows,
        unfinished,
    }
}
