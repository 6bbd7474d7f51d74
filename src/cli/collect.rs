//! `sphrigid collect`: summarise a sweep's runs into `DIR/sweep.csv`, one row per run.
use crate::Result;
use crate::output::sweep_files::{self, SweepDir};
use crate::sweep::collect::{self, Status};
use std::path::PathBuf;

/// Arguments of `sphrigid collect`.
#[derive(Debug, clap::Args)]
pub struct CollectArgs {
    /// The sweep directory (the --out of `sphrigid sweep`).
    pub dir: PathBuf,
}

/// Run `sphrigid collect`: write the table of every readable run, then fail (exit 1) when a
/// run is missing or unreadable.
pub fn run(args: CollectArgs) -> Result<()> {
    let dir = SweepDir::new(&args.dir);
    let spec = sweep_files::read_spec(&dir)?;
    let c = collect::collect(&dir, &spec);
    sweep_files::write_table(&dir, &c.header, &c.rows)?;
    let n = c.rows.len();
    eprintln!(
        "wrote {}: {n} runs, {} complete",
        dir.csv().display(),
        n - c.unfinished.len()
    );
    for (name, status) in &c.unfinished {
        let run = dir.run(name);
        let why = match status {
            Status::Incomplete => "incomplete (still running, stopped or killed)".to_string(),
            Status::Missing => "missing (never started)".to_string(),
            Status::Unreadable(e) => format!("unreadable: {e}"),
            Status::Complete => unreachable!("complete runs are not listed"),
        };
        eprintln!("  {name}: {why}; {}", run.path().display());
    }
    let lost = c
        .unfinished
        .iter()
        .filter(|(_, s)| matches!(s, Status::Missing | Status::Unreadable(_)))
        .count();
    if lost > 0 {
        return Err(crate::Error::Run(format!(
            "{}: {lost} of {n} runs are missing or unreadable (listed above); {} holds the other runs; fix: rerun the missing ones with `sphrigid sweep` on the same --out, then `sphrigid collect` again",
            dir.path().display(),
            dir.csv().display()
        )));
    }
    Ok(())
}
