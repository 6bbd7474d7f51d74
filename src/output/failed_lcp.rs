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
#[cfg_attr(not(test), allow(dead_code))]
pub fn read(run: &RunDir, step: u64) -> Result<ProblemFile> {
    io::load(&run.failed_lcp(step))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_written_problem_reads_back() {
        let tmp = tempfile::tempdir().unwrap();
        let run = RunDir::new(tmp.path());
        let problem = StructuredProblem {
            particle_inv_mass: vec![2.0],
            ..Default::default()
        };
        let path = write(&run, 17, problem.clone()).unwrap();
        assert_eq!(path, tmp.path().join("failed_lcp_17.json"));
        match read(&run, 17).unwrap() {
            ProblemFile::Structured(p) => assert_eq!(p, problem),
            ProblemFile::Dense(_) => panic!("read back as dense"),
        }
    }
}
