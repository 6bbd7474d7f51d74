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
    /// Plot a collapsing column's surge front, Z = x/a over T = t sqrt(2g/a), for the column
    /// width A in metres (x from the container's low-x wall; the farthest particle of at least
    /// 0.3 of rest density): front.png and front.csv.
    #[arg(long, value_name = "A")]
    pub front: Option<f64>,
    /// A CSV of measured T,Z points (e.g. tests/data/martin_moyce_1952.csv) to draw with the
    /// front and compare it with in front_reference.csv (needs --front).
    #[arg(long, value_name = "CSV")]
    pub reference: Option<PathBuf>,
    /// Added to the simulated T before it is drawn and compared (the experiment's later time
    /// origin; tests/liquid/martin_moyce.rs uses 0.2).
    #[arg(
        long,
        value_name = "DT",
        default_value_t = 0.0,
        allow_negative_numbers = true
    )]
    pub time_shift: f64,
    /// Plot the pressure k (rho - rho0) of each row of particles (ranked by height, the
    /// container's floor area over the spacing squared to a row) against rho0 g d, d the depth
    /// below the top row, averaged over these frames (same syntax as --frames): profile.png (the
    /// top row, in the free surface, left out) and profile.csv.
    #[arg(long, value_name = "FRAMES")]
    pub profile: Option<String>,
    /// Plot the liquid's mean velocity (x, y, z) over every frame: velocity.png and
    /// velocity.csv.
    #[arg(long)]
    pub velocity: bool,
}

/// Run `sphrigid figure`: draw, write, and print one line per file written.
pub fn run(args: FigureArgs) -> Result<()> {
    let written = figure::make(&FigureOptions {
        run_dir: args.run_dir,
        frames: args.frames,
        body: args.body,
        out: args.out,
        front: args.front,
        reference: args.reference,
        time_shift: args.time_shift,
        profile: args.profile,
        velocity: args.velocity,
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
