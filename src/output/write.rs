//! Writing a file under a temporary name and renaming it, so that a killed run never leaves a
//! half-written file behind; creating the output directory.
use crate::{Error, Result};
use std::io::Write;
use std::path::{Path, PathBuf};

/// The temporary name beside `path` that `write_atomic` writes first.
pub fn temp_path(path: &Path) -> PathBuf {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    path.with_file_name(format!(".{name}.{}.tmp", std::process::id()))
}

/// Write `bytes` to `path` through a temporary file in the same directory and a rename.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<()> {
    let tmp = temp_path(path);
    let result = (|| {
        let mut f = std::fs::File::create(&tmp)?;
        f.write_all(bytes)?;
        f.flush()?;
        drop(f);
        std::fs::rename(&tmp, path)
    })();
    result.map_err(|e| {
        let _ = std::fs::remove_file(&tmp);
        Error::io(path, e)
    })
}

/// Write `bytes` to `path` like [`write_atomic`], and durably: the temporary file is flushed
/// to disk (`fsync`) before the rename, and the directory after it, so that a crash or a
/// power cut leaves either the old file or the whole new one.
pub fn write_durable(path: &Path, bytes: &[u8]) -> Result<()> {
    let tmp = temp_path(path);
    let result = (|| {
        let mut f = std::fs::File::create(&tmp)?;
        f.write_all(bytes)?;
        f.sync_all()?;
        drop(f);
        std::fs::rename(&tmp, path)?;
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::File::open(dir)?.sync_all()?;
        }
        Ok(())
    })();
    result.map_err(|e: std::io::Error| {
        let _ = std::fs::remove_file(&tmp);
        Error::io(path, e)
    })
}

/// Create `dir` and its parents, with an error that says how to fix an unwritable location.
pub fn create_dir(dir: &Path) -> Result<()> {
    std::fs::create_dir_all(dir).map_err(|e| {
        Error::input(format!(
            "cannot create output directory {}: {e}; fix: choose a writable directory with --out DIR",
            dir.display()
        ))
    })
}
