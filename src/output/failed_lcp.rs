//! `OUT/failed_lcp_<step>.json`: the contact problem of a step whose LCP was not solved, in the
//! problem-file format of `sphrigid lcp solve` (lcp/io.rs), so that it can be replayed.
use super::run_dir::RunDir;
use crate::Result;
use crate::lcp::StructuredProblem;
use crate::lcp::io::{self, ProblemFile};
use std::path::PathBuf;

/// Write step `step`'s problem into the run directory; returns the file's path.
pub fn write(run: &RunDir, step: u64, problem: StructuredProblem) -> Result<PathBuf> {
    let path = run.failed_lcp(step);
    io::save(&path, &ProblemFile::Structured(problem))?;
    Ok(path)
}

/// Read step `step`'s problem back from the run directory.
pub fn read(run: &RunDir, step: u64) -> Result<ProblemFile> {
    io::load(&run.failed_lcp(step))
}
