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
use std::path::{Path, PathBuf};

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
        Claim::Refuse => Err(earlier_run(run, &files)),
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

/// The input error for a directory that holds an earlier run's `files` (not empty).
fn earlier_run(run: &RunDir, files: &[PathBuf]) -> Error {
    Error::input(format!(
        "{}: holds the output of an earlier run ({} files, e.g. {}); fix: add --resume to continue it, --overwrite to replace it ({}), or choose another --out",
        run.path().display(),
        files.len(),
        files[0]
            .strip_prefix(run.path())
            .unwrap_or(&files[0])
            .display(),
        removal(run, files)
    ))
}

/// What `--overwrite` would remove of `files` (an earlier run's, in `run`), in words:
/// "removes frames 0..4 (10 files in fluid/ and rigid/), 3 tables, the checkpoint and the
/// manifest".
pub fn removal(run: &RunDir, files: &[PathBuf]) -> String {
    let in_dir = |d: &Path| files.iter().filter(|f| f.parent() == Some(d)).count();
    let (fluid, rigid, surface) = (
        in_dir(&run.fluid_dir()),
        in_dir(&run.rigid_dir()),
        in_dir(&run.surface_dir()),
    );
    let is = |name: &str| files.iter().any(|f| f == &run.join(name));
    let count = |n: usize, one: &str, many: &str| {
        if n == 1 {
            format!("1 {one}")
        } else {
            format!("{n} {many}")
        }
    };
    let mut parts = Vec::new();
    let frame_files = fluid + rigid + surface;
    if frame_files > 0 {
        let folders: Vec<&str> = [(fluid, "fluid/"), (rigid, "rigid/"), (surface, "surface/")]
            .into_iter()
            .filter(|(n, _)| *n > 0)
            .map(|(_, d)| d)
            .collect();
        let indexes: Vec<u32> = files
            .iter()
            .filter(|f| f.parent() == Some(&run.fluid_dir()))
            .filter_map(|f| f.file_stem()?.to_str()?.rsplit_once('_')?.1.parse().ok())
            .collect();
        let frames = match (indexes.iter().min(), indexes.iter().max()) {
            (Some(a), Some(b)) if a == b => format!("frame {a}"),
            (Some(a), Some(b)) => format!("frames {a}..{b}"),
            _ => "the frames".to_string(),
        };
        parts.push(format!(
            "{frames} ({} in {})",
            count(frame_files, "file", "files"),
            folders.join(" and ")
        ));
    }
    let tables = [
        super::run_dir::RIGID_STATES,
        super::run_dir::JOINT_ERRORS,
        super::run_dir::RUN_METRICS,
        super::run_dir::GAUGES,
        super::run_dir::BODY_LOADS,
        super::run_dir::WALL_LOADS,
    ]
    .into_iter()
    .filter(|t| is(t))
    .count();
    if tables > 0 {
        parts.push(count(tables, "table", "tables"));
    }
    let failed = files
        .iter()
        .filter(|f| {
            f.parent() == Some(run.path())
                && f.file_name()
                    .and_then(|n| n.to_str())
                    .is_some_and(|n| n.starts_with("failed_lcp_"))
        })
        .count();
    if failed > 0 {
        parts.push(count(
            failed,
            "failed contact problem",
            "failed contact problems",
        ));
    }
    let vtk = run.vtk_dir();
    let exports = files
        .iter()
        .filter(|f| f.starts_with(&vtk) || f == &&run.usd_stage())
        .count();
    if exports > 0 {
        parts.push(count(exports, "exported file", "exported files"));
    }
    if is(super::run_dir::CHECKPOINT) {
        parts.push("the checkpoint".into());
    }
    if is(super::run_dir::MANIFEST) {
        parts.push("the manifest".into());
    }
    let listed: usize = frame_files + tables + failed + exports;
    let others = files.len().saturating_sub(
        listed
            + usize::from(is(super::run_dir::CHECKPOINT))
            + usize::from(is(super::run_dir::MANIFEST)),
    );
    if others > 0 {
        parts.push(count(others, "temporary file", "temporary files"));
    }
    let last = parts.pop().unwrap_or_default();
    if parts.is_empty() {
        format!("removes {last}")
    } else {
        format!("removes {} and {last}", parts.join(", "))
    }
}

/// Before a new run prints anything: refuse a directory `run` that holds an earlier run's
/// files, as [`claim`] with [`Claim::Refuse`] would, and say, when they are a complete run
/// of the same scene (`scene_hash`, as the manifest records it), how to keep,
/// replace or extend it.
pub fn refuse_earlier(run: &RunDir, scene_file: &Path, scene_hash: u32) -> Result<()> {
    let files = run.own_files();
    if files.is_empty() {
        return Ok(());
    }
    // A run still writing there is named by [`lock`], which comes next.
    if let Ok(f) = File::open(run.lock())
        && matches!(f.try_lock(), Err(TryLockError::WouldBlock))
    {
        return Ok(());
    }
    let Some(m) = super::manifest::read_for_resume(run)
        .filter(|m| m.complete && m.scene_hash == format!("{scene_hash:08x}"))
    else {
        return Err(earlier_run(run, &files));
    };
    let finished = std::fs::metadata(run.manifest())
        .and_then(|m| m.modified())
        .map_or(String::new(), |t| format!(", finished {}", utc(t)));
    Err(Error::input(format!(
        "{} already holds a complete run of {} ({}{finished}). To keep it, choose another --out; to replace it, add --overwrite ({}); to extend it, add --resume with a larger --frames",
        run.path().display(),
        scene_file.display(),
        match m.frames.len().saturating_sub(1) {
            1 => "1 frame".to_string(),
            n => format!("{n} frames"),
        },
        removal(run, &files)
    )))
}

/// A time as `2026-12-06 20:15 UTC`.
fn utc(t: std::time::SystemTime) -> String {
    let secs = t
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs()) as i64;
    let (days, rest) = (secs.div_euclid(86_400), secs.rem_euclid(86_400));
    // Howard Hinnant's civil_from_days.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!(
        "{y:04}-{m:02}-{d:02} {:02}:{:02} UTC",
        rest / 3600,
        rest % 3600 / 60
    )
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

    #[test]
    fn an_earlier_run_is_refused_early_unless_a_live_run_holds_it() {
        let tmp = tempfile::tempdir().unwrap();
        let run = RunDir::new(tmp.path());
        let scene = Path::new("s.toml");
        refuse_earlier(&run, scene, 7).unwrap();
        std::fs::write(run.manifest(), br#"{"complete": true, "scene_hash": "00000007", "frames": [{"index": 0}, {"index": 1}]}"#).unwrap();
        let e = refuse_earlier(&run, scene, 7).unwrap_err();
        assert_eq!(e.exit_code(), 2);
        assert!(
            e.to_string()
                .contains("already holds a complete run of s.toml (1 frame, finished"),
            "{e}"
        );
        let e = refuse_earlier(&run, scene, 8).unwrap_err().to_string();
        assert!(e.contains("holds the output of an earlier run"), "{e}");
        let held = lock(&run).unwrap();
        refuse_earlier(&run, scene, 7).unwrap();
        drop(held);
    }

    #[test]
    fn the_removal_is_described_and_dates_are_utc() {
        let tmp = tempfile::tempdir().unwrap();
        let run = RunDir::new(tmp.path());
        std::fs::create_dir_all(run.fluid_dir()).unwrap();
        std::fs::create_dir_all(run.rigid_dir()).unwrap();
        for i in 0..3 {
            std::fs::write(run.fluid_frame(i), b"x").unwrap();
            std::fs::write(run.body_frame("box", i), b"x").unwrap();
        }
        for f in [
            run.manifest(),
            run.checkpoint(),
            run.run_metrics(),
            run.rigid_states(),
        ] {
            std::fs::write(f, b"x").unwrap();
        }
        assert_eq!(
            removal(&run, &run.own_files()),
            "removes frames 0..2 (6 files in fluid/ and rigid/), 2 tables, the checkpoint and the manifest"
        );
        let t = std::time::UNIX_EPOCH + std::time::Duration::from_secs(1_796_581_500);
        assert_eq!(utc(t), "2026-12-06 18:25 UTC");
        assert_eq!(utc(std::time::UNIX_EPOCH), "1970-01-01 00:00 UTC");
    }
}
