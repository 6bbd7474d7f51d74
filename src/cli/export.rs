//! `sphrigid export`: a finished run as VTK files for ParaView (`--to vtk`) or as one USD
//! stage for Blender and Houdini's Solaris (`--to usd`).
use crate::Result;
use crate::output::{RunDir, usd, vtk};
use std::path::PathBuf;

/// The formats `export` writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// fluid.pvd over fluid/fluid_NNNNN.vtu, and <body>.pvd over rigid/<body>_NNNNN.vtu.
    Vtk,
    /// One USD text stage (.usda) with the fluid points and the body meshes.
    Usd,
}

/// Arguments of `sphrigid export`.
#[derive(Debug, clap::Args)]
pub struct ExportArgs {
    /// The run's output directory (holding manifest.json).
    pub run_dir: PathBuf,
    /// The format to write.
    #[arg(long = "to", value_enum)]
    pub to: Format,
    /// Where to write: a folder for vtk [default: RUN_DIR/vtk], a file for usd
    /// [default: RUN_DIR/run.usda].
    #[arg(short = 'o', long = "out")]
    pub out: Option<PathBuf>,
}

/// Run `sphrigid export`: write what is complete, print the files written, and end with one
/// input-error line (exit 2) when a file was missing or the run unfinished.
pub fn run(args: ExportArgs) -> Result<()> {
    let run = RunDir::open(&args.run_dir)?;
    let (out, report) = match args.to {
        Format::Vtk => {
            let out = args.out.unwrap_or_else(|| run.vtk_dir());
            let r = vtk::export(&run, &out)?;
            (out, r)
        }
        Format::Usd => {
            let out = args.out.unwrap_or_else(|| run.usd_stage());
            if out.is_dir() {
                return Err(crate::Error::input(format!(
                    "-o {}: is a directory; fix: give the stage's file name, e.g. {}",
                    out.display(),
                    out.join("run.usda").display()
                )));
            }
            let r = usd::export(&run, &out)?;
            (out, r)
        }
    };
    let listing: String = report
        .files
        .iter()
        .map(|f| format!("{}\n", f.display()))
        .collect();
    super::print_out(&listing)?;
    eprintln!(
        "exported {} of {} frames to {}",
        report.frames,
        report.frames_listed,
        out.display()
    );
    report.into_result(run.path(), &out).map(|_| ())
}
