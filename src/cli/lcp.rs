//! `sphrigid lcp`: solve a linear complementarity problem from a JSON file, or write a sample.
use crate::lcp::io::{self, ProblemFile};
use crate::lcp::sample::{SampleSpec, liquid_on_boxes};
use crate::lcp::{Options, Solution, block_pivot, dantzig, lemke};
use crate::{Error, Result};
use std::path::PathBuf;

/// Arguments of `sphrigid lcp`.
#[derive(Debug, clap::Args)]
pub struct LcpArgs {
    #[command(subcommand)]
    command: LcpCommand,
}

/// The `lcp` subcommands.
#[derive(Debug, clap::Subcommand)]
enum LcpCommand {
    /// Solve a problem file (dense or structured JSON) and print z, w, outcome and residuals.
    Solve(SolveArgs),
    /// Write a sample structured problem: liquid particles pressing on boxes.
    Sample(SampleArgs),
}

/// Which solver to use.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum Method {
    /// Structured files: block pivoting; dense: Lemke if standard, else Dantzig.
    Auto,
    /// Lemke's method (standard problems only).
    Lemke,
    /// Dantzig/Baraff boxed pivoting.
    Dantzig,
    /// Block pivoting (structured files only); `structured` is its former name.
    #[value(name = "block_pivot", alias = "structured")]
    BlockPivot,
}

/// Arguments of `sphrigid lcp solve`.
#[derive(Debug, clap::Args)]
struct SolveArgs {
    /// The problem file.
    file: PathBuf,
    /// The solver.
    #[arg(long, value_enum, default_value_t = Method::Auto)]
    method: Method,
    /// Print one JSON object instead of text.
    #[arg(long)]
    json: bool,
    /// Most pivots (default: 50 n + 1000).
    #[arg(long)]
    pivot_limit: Option<usize>,
}

/// Arguments of `sphrigid lcp sample`.
#[derive(Debug, clap::Args)]
struct SampleArgs {
    /// Where to write the problem.
    out: PathBuf,
    /// Liquid contacts.
    #[arg(long, default_value_t = 1000)]
    contacts: usize,
    /// Dynamic bodies.
    #[arg(long, default_value_t = 4)]
    bodies: usize,
    /// Rigid (stacking) contacts.
    #[arg(long, default_value_t = 0)]
    rigid: usize,
    /// Two friction rows per rigid contact.
    #[arg(long)]
    friction: bool,
    /// Random seed.
    #[arg(long, default_value_t = 1)]
    seed: u64,
}

/// Run `sphrigid lcp`.
pub fn run(args: LcpArgs) -> Result<()> {
    match args.command {
        LcpCommand::Solve(a) => solve(a),
        LcpCommand::Sample(a) => {
            let p = liquid_on_boxes(&SampleSpec {
                liquid_contacts: a.contacts,
                bodies: a.bodies,
                rigid_contacts: a.rigid,
                friction: a.friction,
                shared_particles: 0,
                seed: a.seed,
            });
            io::save(&a.out, &ProblemFile::Structured(p))
        }
    }
}

fn solve(a: SolveArgs) -> Result<()> {
    let problem = io::load(&a.file)?;
    let options = Options {
        pivot_limit: a.pivot_limit,
        ..Options::default()
    };
    let file = a.file.display();
    let (method, sol) = match (&problem, a.method) {
        (ProblemFile::Structured(s), Method::Auto | Method::BlockPivot) => {
            ("block_pivot", block_pivot(s, &options)?)
        }
        (ProblemFile::Dense(_), Method::BlockPivot) => {
            return Err(Error::Input(format!(
                "{file}: --method block_pivot needs a structured problem (key \"rows\")"
            )));
        }
        (p, m) => {
            let dense = match p {
                ProblemFile::Dense(d) => d.clone(),
                ProblemFile::Structured(s) => {
                    // The dense matrix takes n^2 numbers: refuse one past the memory at hand.
                    let need = (s.len() as f64).powi(2) * 8.0;
                    let have = crate::sim::footprint::mem_available().map_or(8e9, |b| b as f64);
                    if need > 0.5 * have {
                        return Err(Error::Input(format!(
                            "{file}: Lemke and Dantzig need the dense matrix of {} rows, {:.1} \
                             GiB, more than half the memory available ({:.1} GiB); fix: use \
                             --method block_pivot (or auto) for a structured problem",
                            s.len(),
                            need / f64::from(1u32 << 30),
                            have / f64::from(1u32 << 30)
                        )));
                    }
                    s.to_dense()
                }
            };
            let use_lemke = m == Method::Lemke || (m == Method::Auto && dense.is_standard());
            if use_lemke {
                if !dense.is_standard() {
                    return Err(Error::Input(format!(
                        "{file}: Lemke solves standard problems only (lo 0, hi inf, no \
                         friction); use --method dantzig"
                    )));
                }
                ("lemke", lemke(&dense, &options)?)
            } else {
                ("dantzig", dantzig(&dense, &options)?)
            }
        }
    };
    if a.json {
        super::print_out(&format!("{}\n", report_json(method, &sol)))?;
    } else {
        super::print_out(&report_text(method, &sol))?;
    }
    if sol.is_solved() {
        Ok(())
    } else {
        Err(Error::Run(format!(
            "{file}: the {method} solver ended with outcome \"{}\"",
            sol.outcome
        )))
    }
}

/// The solution as one JSON object.
fn report_json(method: &str, s: &Solution) -> String {
    let r = &s.residuals;
    serde_json::json!({
        "outcome": s.outcome.name(),
        "method": method,
        "pivots": s.pivots,
        "iterations": s.iterations,
        "z": s.z,
        "w": s.w,
        "residuals": {
            "lower": r.lower,
            "upper": r.upper,
            "sign": r.sign,
            "complementarity": r.complementarity,
            "relative": r.relative(),
        },
    })
    .to_string()
}

/// The solution as text.
fn report_text(method: &str, s: &Solution) -> String {
    let r = &s.residuals;
    let list = |v: &[f64]| {
        v.iter()
            .map(|x| format!("{x:.12e}"))
            .collect::<Vec<_>>()
            .join(" ")
    };
    format!(
        "outcome: {}\nmethod: {method}\npivots: {}\niterations: {}\n\
         residuals: lower {:.3e}, upper {:.3e}, sign {:.3e}, complementarity {:.3e}, \
         relative {:.3e}\nz: {}\nw: {}\n",
        s.outcome,
        s.pivots,
        s.iterations,
        r.lower,
        r.upper,
        r.sign,
        r.complementarity,
        r.relative(),
        list(&s.z),
        list(&s.w)
    )
}
