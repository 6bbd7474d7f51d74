//! Command-line parsing and dispatch: one module per subcommand.
use clap::{Parser, Subcommand};
use std::process::ExitCode;

pub(crate) mod bench;
pub(crate) mod check;
pub(crate) mod collect;
pub(crate) mod export;
pub(crate) mod figure;
pub(crate) mod inertia;
pub(crate) mod lcp;
pub(crate) mod memory;
pub(crate) mod run;
pub(crate) mod signals;
pub(crate) mod surface;
pub(crate) mod sweep;

/// Liquid and rigid bodies, coupled exactly, written as PLY frame sequences.
#[derive(Debug, Parser)]
#[command(name = "sphrigid", version, about)]
pub struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Simulate a scene and write its frames.
    Run(run::RunArgs),
    /// Validate a scene and summarise it without running it.
    Check(check::CheckArgs),
    /// Write a parameter study (jobs.txt for GNU parallel, sweep.slurm for Slurm), or run it.
    Sweep(sweep::SweepArgs),
    /// Summarise the runs of a sweep into DIR/sweep.csv.
    Collect(collect::CollectArgs),
    /// Draw a finished run: side views of frames, a body's tilt and position, the surge front,
    /// the pressure profile and the mean velocity over time.
    Figure(figure::FigureArgs),
    /// Build the liquid's surface mesh of each frame of a run (surface/surface_NNNNN.ply).
    Surface(surface::SurfaceArgs),
    /// Export a finished run as VTK (ParaView) or USD (Blender, Houdini Solaris).
    Export(export::ExportArgs),
    /// Time the step of a scene, phase by phase.
    Bench(bench::BenchArgs),
    /// Solve or inspect linear complementarity problems.
    Lcp(lcp::LcpArgs),
    /// Mass properties of a mesh: the exact solid and its particle clump.
    Inertia(inertia::InertiaArgs),
}

/// Write `text` to standard output. A closed pipe (`sphrigid check ... | head -1`) ends the
/// output quietly; any other failure (a full disk, `> /dev/full`) is an error, exit status 2.
pub fn print_out(text: &str) -> crate::Result<()> {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        Err(e) => Err(crate::Error::input(format!(
            "standard output: {e}; fix: write the output where there is room (another disk or \
             file), or read it through a pipe"
        ))),
    }
}

/// Parse the command line, run the command and map errors to exit statuses.
pub fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            // clap prints help/version to stdout with success, usage errors to stderr.
            let _ = e.print();
            return if e.use_stderr() {
                ExitCode::from(2)
            } else {
                ExitCode::SUCCESS
            };
        }
    };
    let result = match cli.command {
        Command::Run(args) => run::run(args),
        Command::Check(args) => check::run(args),
        Command::Sweep(args) => sweep::run(args),
        Command::Collect(args) => collect::run(args),
        Command::Figure(args) => figure::run(args),
        Command::Surface(args) => surface::run(args),
        Command::Export(args) => export::run(args),
        Command::Bench(args) => bench::run(args),
        Command::Lcp(args) => lcp::run(args),
        Command::Inertia(args) => inertia::run(args),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e @ crate::Error::Stopped { .. }) => {
            eprintln!("stopped: {e}");
            ExitCode::from(e.exit_code())
        }
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(e.exit_code())
        }
    }
}
