//! `sphrigid figure`: pictures of a finished run.
use crate::Result;
use crate::figure::{self, FigureOptions};
use std::io::Write;
use std::path::PathBuf;

/// Arguments of `sphrigid figure`.
#[derive(Debug, clap::Args)]
pub struct FigureArgs {
    /// The run's output directory (holding manifest.json).
    pub run_dir: PathBuf,
    /// Frames to draw: indices like 0,10,20 or start:stop:step like 0:60:15 (stop included)
    /// [default: 5 evenly spaced from the first to the last].
    #[arg(long)]
    pub frames: Option<String>,
    /// The body whose tilt and position are plotted [default: the first in rigid_states.csv].
    #[arg(long)]
    pub body: Option<String>,
    /// Directory for the pictures and CSV (created if missing).
    #[arg(short = 'o', long = "out", value_name = "DIR")]
    pub out: PathBuf,
}

/// Run `sphrigid figure`: draw, write, and print one line per file written.
pub fn run(args: FigureArgs) -> Result<()> {
    let written = figure::make(&FigureOptions {
        run_dir: args.run_dir,
        frames: args.frames,
        body: args.body,
        out: args.out,
    })?;
    // A closed stdout (`| head`) ends the listing, not the program: the files are written.
    let mut stdout = std::io::stdout().lock();
    for w in written {
        if writeln!(stdout, "{}  ({})", w.path.display(), w.what).is_err() {
            break;
        }
    }
    Ok(())
}
