//! `sphrigid sweep`: a parameter study over the Cartesian product of `--vary` values, written
//! as work for GNU parallel (`jobs.txt`) and Slurm (`sweep.slurm`), or run here with `--jobs`.
use crate::output::sweep_files::{self, SweepDir, SweepSpec};
use crate::sim::build;
use crate::sweep::{self, SweepRequest, Vary};
use crate::{Error, Result};
use indicatif::{ProgressBar, ProgressStyle};
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

/// Arguments of `sphrigid sweep`.
#[derive(Debug, clap::Args)]
pub struct SweepArgs {
    /// The scene file (TOML).
    pub scene: PathBuf,
    /// A scene value to vary and its values, e.g. --vary liquid.0.viscosity.sigma=0.5,20,200;
    /// repeat for more keys (every combination is run).
    #[arg(long = "vary", value_name = "KEY=V1,V2,...")]
    pub vary: Vec<String>,
    /// Frames every run simulates (default: the scene's time.frames).
    #[arg(long)]
    pub frames: Option<u32>,
    /// Compute backend of every run: auto, cpu or gpu (default: run's own, auto).
    #[arg(long)]
    pub backend: Option<String>,
    /// The sweep directory: jobs.txt, sweep.json, sweep.slurm, and the runs under runs/.
    #[arg(long)]
    pub out: PathBuf,
    /// Run the jobs here, N at a time, instead of only writing them.
    #[arg(long, value_name = "N")]
    pub jobs: Option<usize>,
}

/// The checks `sphrigid check` makes beyond the scene file's own: bodies (meshes, sampling)
/// and joints build.
fn check_builds(loaded: &crate::scene::LoadedScene) -> Result<()> {
    let spacing = loaded.scene.liquid.first().map(|b| b.spacing);
    let bodies = build::bodies(loaded, spacing)?;
    crate::sim::joint_setup::joints(loaded, &bodies)?;
    Ok(())
}

/// Run `sphrigid sweep`.
pub fn run(args: SweepArgs) -> Result<()> {
    if let Some(b) = args.backend.as_deref()
        && !["auto", "cpu", "gpu"].contains(&b)
    {
        return Err(Error::input(format!(
            "--backend {b}: unknown backend; fix: use auto, cpu or gpu"
        )));
    }
    if args.jobs == Some(0) {
        return Err(Error::input(
            "--jobs 0: no run could start; fix: give the number of runs to run at once, e.g. --jobs 2",
        ));
    }
    let varies = args
        .vary
        .iter()
        .map(|v| Vary::parse(v, &args.scene))
        .collect::<Result<Vec<_>>>()?;
    let req = SweepRequest {
        scene: &args.scene,
        varies: &varies,
        frames: args.frames,
        backend: args.backend.clone(),
    };
    let spec = sweep::plan(&req, &mut check_builds)?;
    let dir = SweepDir::new(&args.out);
    sweep_files::write(&dir, &spec)?;
    let n = spec.runs.len();
    eprintln!(
        "sweep: {n} runs of {} written to {} (jobs.txt, sweep.json, sweep.slurm)",
        args.scene.display(),
        dir.path().display()
    );
    let Some(jobs) = args.jobs else {
        eprintln!(
            "run them with `cd {0} && parallel -j 4 < jobs.txt` (GNU parallel) or `cd {0} && sbatch sweep.slurm` (Slurm), then `sphrigid collect {0}`",
            dir.path().display()
        );
        return Ok(());
    };
    run_here(&dir, &spec, jobs)?;
    eprintln!(
        "all {n} runs complete; summarise them with `sphrigid collect {}`",
        dir.path().display()
    );
    Ok(())
}

/// The threads each of `jobs` runs side by side gets on `cores` cores: an equal share, at
/// least one.
fn threads_per_run(cores: usize, jobs: usize) -> usize {
    (cores / jobs.max(1)).max(1)
}

/// Run every job of the sweep with this program, `jobs` at a time, each one's output into
/// `logs/<name>.log`, under one progress bar; failed runs are an error listing them.
///
/// Each run gets its share of the cores for its threads (`RAYON_NUM_THREADS`, unless it is set
/// already): runs side by side that each spread over every core spend their time waiting on
/// one another (on two cores, two runs of one thread each take about a tenth less CPU time
/// than two of two threads).
fn run_here(dir: &SweepDir, spec: &SweepSpec, jobs: usize) -> Result<()> {
    let exe = std::env::current_exe().map_err(|e| Error::io("sphrigid (this program)", e))?;
    let n = spec.runs.len();
    let cores = std::thread::available_parallelism().map_or(1, |c| c.get());
    let threads = std::env::var_os("RAYON_NUM_THREADS")
        .is_none()
        .then(|| threads_per_run(cores, jobs.min(n)));
    let bar = ProgressBar::new(n as u64);
    bar.set_style(
        ProgressStyle::with_template(
            "{bar:30} run {pos}/{len}  {msg}  elapsed {elapsed}  eta {eta}",
        )
        .expect("the progress template is valid"),
    );
    bar.set_message(format!("{} at a time", jobs.min(n)));
    let next = AtomicUsize::new(0);
    let failed: Mutex<Vec<String>> = Mutex::new(Vec::new());
    let io_error: Mutex<Option<Error>> = Mutex::new(None);
    std::thread::scope(|s| {
        for _ in 0..jobs.min(n) {
            s.spawn(|| {
                loop {
                    let i = next.fetch_add(1, Ordering::SeqCst);
                    let Some(run) = spec.runs.get(i) else { break };
                    let log_path = dir.log(&run.name);
                    let status = std::fs::File::create(&log_path)
                        .and_then(|log| {
                            let err = log.try_clone()?;
                            let mut run_cmd = Command::new(&exe);
                            if let Some(t) = threads {
                                run_cmd.env("RAYON_NUM_THREADS", t.to_string());
                            }
                            run_cmd
                                .args(spec.run_args(run))
                                .current_dir(dir.path())
                                .stdin(Stdio::null())
                                .stdout(log)
                                .stderr(err)
                                .status()
                        })
                        .map_err(|e| Error::io(&log_path, e));
                    match status {
                        Ok(st) if st.success() => {}
                        Ok(st) => {
                            let mut f = failed.lock().expect("no worker panics");
                            f.push(format!(
                                "{} (exit status {}, log {})",
                                run.name,
                                st.code().map_or("none".into(), |c| c.to_string()),
                                log_path.display()
                            ));
                            bar.set_message(format!("{} failed", f.len()));
                        }
                        Err(e) => {
                            io_error.lock().expect("no worker panics").get_or_insert(e);
                        }
                    }
                    bar.inc(1);
                }
            });
        }
    });
    bar.finish_and_clear();
    if let Some(e) = io_error.into_inner().expect("no worker panics") {
        return Err(e);
    }
    let failed = failed.into_inner().expect("no worker panics");
    if !failed.is_empty() {
        return Err(Error::Run(format!(
            "{} of {n} runs failed: {}; the others are intact, and `sphrigid collect {}` lists every run",
            failed.len(),
            failed.join(", "),
            dir.path().display()
        )));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::threads_per_run;

    #[test]
    fn runs_side_by_side_share_the_cores() {
        assert_eq!(threads_per_run(2, 2), 1);
        assert_eq!(threads_per_run(16, 4), 4);
        // Uneven shares round down; more runs than cores still get a thread each.
        assert_eq!(threads_per_run(16, 3), 5);
        assert_eq!(threads_per_run(2, 4), 1);
        assert_eq!(threads_per_run(8, 1), 8);
    }
}
