//! One run per output directory. [`RunLock`] holds an advisory lock (`flock`) on
//! `OUT/.sphrigid.lock` for as long as the run lasts, so a second run into the directory is
//! refused and named; the operating system drops the lock when the process ends, however it
//! ends, so a killed run never leaves the directory stuck. [`claim`] decides what a new run
//! may do with the files an earlier run left there.
use super::create_dir;
use super::run_dir::RunDir;
use crate::{Error, Result};
use std::fs::{File, OpenOptions, TryLockError};
use std::io::{Read, Seek, Write};

/// The lock on a run directory, held until dropped.
#[derive(Debug)]
pub struct RunLock {
    _file: File,
}

/// What a run does with a directory that holds another run's files.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Claim {
    /// Refuse it (exit 2): the default.
    Refuse,
    /// Continue the run whose checkpoint lies there (`--resume`).
    Resume,
    /// Remove that run's files first (`--overwrite`).
    Overwrite,
}

/// This machine's name, for the lock file.
#[cfg(not(unix))]
fn host_name() -> String {
    std::env::var("COMPUTERNAME").unwrap_or_else(|_| "unknown host".to_string())
}

/// This machine's name, for the lock file.
#[cfg(unix)]
fn host_name() -> String {
    let mut buf = [0u8; 256];
    // SAFETY: gethostname writes at most `buf.len()` bytes into the buffer it is given.
    let rc = unsafe { libc::gethostname(buf.as_mut_ptr().cast(), buf.len()) };
    if rc != 0 {
        return "unknown host".to_string();
    }
    let end = buf.iter().position(|&b| b == 0).unwrap_or(buf.len());
    String::from_utf8_lossy(&buf[..end]).into_owned()
}

/// Lock the run directory `run` (created if need be) for this process; a directory another
/// live run holds is an input error naming that run's process and host.
pub fn lock(run: &RunDir) -> Result<RunLock> {
    create_dir(run.path())?;
    let path = run.lock();
    let mut file = OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .open(&path)
        .map_err(|e| Error::io(&path, e))?;
    match file.try_lock() {
        Ok(()) => {}
        Err(TryLockError::WouldBlock) => {
            let mut holder = String::new();
            let _ = file.read_to_string(&mut holder);
            let holder = holder.trim();
            let holder = if holder.is_empty() {
                "another process".to_string()
            } else {
                holder.to_string()
            };
            return Err(Error::input(format!(
                "{}: another sphrigid run is writing into this directory ({holder}); fix: wait for it to end or stop it, or choose another --out",
                run.path().display()
            )));
        }
        Err(TryLockError::Error(e)) => return Err(Error::io(&path, e)),
    }
    let me = format!("pid {} on {}\n", std::process::id(), host_name());
    file.set_len(0)
        .and_then(|()| file.rewind())
        .and_then(|()| file.write_all(me.as_bytes()))
        .map_err(|e| Error::io(&path, e))?;
    Ok(RunLock { _file: file })
}

/// Make the locked directory `run` ready for a run as `claim` says: a directory without
/// another run's files is used as it is; one with them is refused (an input error that
/// names the fix) unless the run resumes (the files stay, for the checkpoint to take up) or
/// overwrites (they are removed first, and only they). Returns how many files were removed.
pub fn claim(run: &RunDir, claim: Claim) -> Result<usize> {
    let files = run.own_files();
    if files.is_empty() {
        return Ok(0);
    }
    match claim {
        Claim::Resume => Ok(0),
        Claim::Refuse => Err(Error::input(format!(
            "{}: holds the output of an earlier run ({} files, e.g. {}); fix: add --resume to continue it, --overwrite to replace it, or choose another --out",
            run.path().display(),
            files.len(),
            files[0]
                .strip_prefix(run.path())
                .unwrap_or(&files[0])
                .display()
        ))),
        Claim::Overwrite => {
            for f in &files {
                std::fs::remove_file(f).map_err(|e| Error::io(f, e))?;
            }
            // Folders the removal emptied go too; any holding other files stay.
            let vtk = run.vtk_dir();
            for d in [
                vtk.join(super::run_dir::FLUID_DIR),
                vtk.join(super::run_dir::RIGID_DIR),
                vtk,
            ] {
                let _ = std::fs::remove_dir(d);
            }
            Ok(files.len())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_second_lock_is_refused_and_names_the_holder() {
        let tmp = tempfile::tempdir().unwrap();
        let run = RunDir::new(&tmp.path().join("out"));
        let held = lock(&run).unwrap();
        let e = lock(&run).unwrap_err();
        assert_eq!(e.exit_code(), 2);
        let msg = e.to_string();
        assert!(
            msg.contains(&format!("pid {}", std::process::id())) && msg.contains("fix:"),
            "{msg}"
        );
        drop(held);
        lock(&run).expect("the lock is free once its holder is gone");
    }

    #[test]
    fn claims_refuse_keep_or_remove_only_run_files() {
        let tmp = tempfile::tempdir().unwrap();
        let run = RunDir::new(tmp.path());
        assert_eq!(claim(&run, Claim::Refuse).unwrap(), 0);
        std::fs::create_dir_all(run.fluid_dir()).unwrap();
        std::fs::write(run.fluid_frame(4), b"x").unwrap();
        std::fs::write(run.manifest(), b"{}").unwrap();
        std::fs::write(tmp.path().join("notes.txt"), b"mine").unwrap();
        let e = claim(&run, Claim::Refuse).unwrap_err().to_string();
        assert!(e.contains("--resume") && e.contains("--overwrite"), "{e}");
        assert_eq!(claim(&run, Claim::Resume).unwrap(), 0);
        assert!(run.fluid_frame(4).exists());
        assert_eq!(claim(&run, Claim::Overwrite).unwrap(), 2);
        assert!(!run.fluid_frame(4).exists() && !run.manifest().exists());
        assert!(tmp.path().join("notes.txt").exists());
        assert_eq!(claim(&run, Claim::Refuse).unwrap(), 0);
    }
}
