//! The one reader of input files (scenes, problem files, meshes, sweep files, reference data):
//! a size limit per kind of file, special files (devices, FIFOs, sockets, directories) refused
//! before they are opened, and never more than the limit and one byte read, so that neither
//! `/dev/zero` nor a file that lies about its size can take the machine's memory.
use crate::{Error, Result};
use std::io::Read;
use std::path::Path;

/// A kind of input file: what it is called in messages and how large it may be.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limit {
    /// The kind, as a message names it ("a scene file").
    pub what: &'static str,
    /// The most bytes a file of this kind may hold.
    pub bytes: u64,
    /// How to make a file of this kind smaller, for the message that refuses a large one.
    pub fix: &'static str,
}

/// A scene file (TOML).
pub const SCENE: Limit = Limit {
    what: "a scene file",
    bytes: 16 << 20,
    fix: "a scene is a short TOML file; put large data (meshes) in files the scene names",
};

/// An LCP problem file (`sphrigid lcp solve FILE`, a run's `failed_lcp_<step>.json`).
pub const LCP_PROBLEM: Limit = Limit {
    what: "an LCP problem file",
    bytes: 1 << 30,
    fix: "give a smaller problem (a run's failed_lcp file of 2,000 variables is far smaller)",
};

/// A mesh file (PLY or OBJ) that a scene names.
pub const MESH: Limit = Limit {
    what: "a mesh file",
    bytes: 512 << 20,
    fix: "decimate the mesh (a body's particles need far fewer triangles)",
};

/// A sweep directory's own files (`sweep.json`, `sweep.csv`).
pub const SWEEP_FILE: Limit = Limit {
    what: "a sweep file",
    bytes: 64 << 20,
    fix: "give the --out directory of a `sphrigid sweep`",
};

/// A kinematic body's keyframe CSV (`motion = { type = "keyframes", file = ... }`).
pub const KEYFRAMES: Limit = Limit {
    what: "a keyframe file",
    bytes: 64 << 20,
    fix: "give fewer keyframes (rows t,x,y,z,qw,qx,qy,qz; the motion is interpolated between them)",
};

/// A CSV of measured reference points (`figure front --reference`).
pub const REFERENCE: Limit = Limit {
    what: "a reference CSV",
    bytes: 16 << 20,
    fix: "give a CSV of T,Z lines such as tests/data/martin_moyce_1952.csv",
};

/// A run's checkpoint (`checkpoint.bin`), read by `--resume`.
pub const CHECKPOINT: Limit = Limit {
    what: "a checkpoint",
    bytes: 16 << 30,
    fix: "start the run over with --overwrite (a checkpoint this large was not written by sphrigid)",
};

/// A run's manifest (`manifest.json`), read by `--resume`, `export`, `figure` and `collect`.
pub const MANIFEST: Limit = Limit {
    what: "a run's manifest",
    bytes: 1 << 30,
    fix: "give the output directory of a `sphrigid run`",
};

/// The longest `--set KEY=VALUE` argument, bytes.
pub const MAX_SET_BYTES: usize = 64 << 10;

/// `bytes` for a message: `512 B`, `16.0 MiB`, `30.0 GiB`.
pub fn size(bytes: u64) -> String {
    const UNITS: [&str; 4] = ["KiB", "MiB", "GiB", "TiB"];
    if bytes < 1024 {
        return format!("{bytes} B");
    }
    let mut v = bytes as f64 / 1024.0;
    let mut unit = 0;
    while v >= 1024.0 && unit + 1 < UNITS.len() {
        v /= 1024.0;
        unit += 1;
    }
    format!("{v:.1} {}", UNITS[unit])
}

/// What a file that is not a regular file is, in words; `None` for a regular file.
fn special(meta: &std::fs::Metadata) -> Option<&'static str> {
    let t = meta.file_type();
    if t.is_file() {
        return None;
    }
    if t.is_dir() {
        return Some("a directory");
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if t.is_char_device() {
            return Some("a character device");
        }
        if t.is_block_device() {
            return Some("a block device");
        }
        if t.is_fifo() {
            return Some("a FIFO");
        }
        if t.is_socket() {
            return Some("a socket");
        }
    }
    Some("a special file")
}

fn not_regular(path: &Path, kind: &str, limit: &Limit) -> Error {
    Error::input(format!(
        "{}: is not a regular file ({kind}); fix: give the path of {}",
        path.display(),
        limit.what
    ))
}

fn too_large(path: &Path, len: u64, limit: &Limit) -> Error {
    Error::input(format!(
        "{}: is {}; {} may be at most {}; fix: {}",
        path.display(),
        if len > limit.bytes {
            size(len)
        } else {
            format!("more than {}", size(limit.bytes))
        },
        limit.what,
        size(limit.bytes),
        limit.fix
    ))
}

/// Open `path` for reading at most `limit.bytes + 1` bytes, after refusing a special file
/// (before it is opened: opening a FIFO would wait for a writer) or one larger than the limit;
/// `on_io` turns a failure to open it (a missing file) into the caller's error.
pub fn open_with(
    path: &Path,
    limit: &Limit,
    on_io: impl FnOnce(std::io::Error) -> Error,
) -> Result<std::io::Take<std::fs::File>> {
    let meta = std::fs::metadata(path).map_err(on_io)?;
    if let Some(kind) = special(&meta) {
        return Err(not_regular(path, kind, limit));
    }
    if meta.len() > limit.bytes {
        return Err(too_large(path, meta.len(), limit));
    }
    let file = std::fs::File::open(path).map_err(|e| Error::io(path, e))?;
    // The path may have been swapped between the two looks: check what was opened.
    let meta = file.metadata().map_err(|e| Error::io(path, e))?;
    if let Some(kind) = special(&meta) {
        return Err(not_regular(path, kind, limit));
    }
    Ok(file.take(limit.bytes + 1))
}

/// The bytes of `path`, refused as [`open_with`] says, and refused too when more than the limit
/// turns up while reading (a file that grows, or one whose size is not its length);
/// `on_io` turns a failure to open it into the caller's error.
pub fn read_bytes_with(
    path: &Path,
    limit: &Limit,
    on_io: impl FnOnce(std::io::Error) -> Error,
) -> Result<Vec<u8>> {
    let mut reader = open_with(path, limit, on_io)?;
    let mut bytes = Vec::new();
    reader
        .read_to_end(&mut bytes)
        .map_err(|e| Error::io(path, e))?;
    if bytes.len() as u64 > limit.bytes {
        return Err(too_large(path, bytes.len() as u64, limit));
    }
    Ok(bytes)
}

/// The bytes of `path`, at most `limit.bytes` ([`read_bytes_with`]); an I/O failure is an
/// [`Error::Io`] naming the path.
#[cfg_attr(not(test), allow(dead_code))]
pub fn read_bytes(path: &Path, limit: &Limit) -> Result<Vec<u8>> {
    read_bytes_with(path, limit, |e| Error::io(path, e))
}

/// The text of `path`, at most `limit.bytes` ([`read_bytes_with`]); bytes that are not UTF-8
/// are an input error naming the file.
pub fn read_text_with(
    path: &Path,
    limit: &Limit,
    on_io: impl FnOnce(std::io::Error) -> Error,
) -> Result<String> {
    String::from_utf8(read_bytes_with(path, limit, on_io)?).map_err(|e| {
        Error::input(format!(
            "{}: byte {} is not UTF-8 text; fix: save {} as UTF-8 text",
            path.display(),
            e.utf8_error().valid_up_to(),
            limit.what
        ))
    })
}

/// The text of `path` ([`read_text_with`]); an I/O failure is an [`Error::Io`] naming the path.
pub fn read_text(path: &Path, limit: &Limit) -> Result<String> {
    read_text_with(path, limit, |e| Error::io(path, e))
}

#[cfg(test)]
mod tests {
    use super::*;

    const TINY: Limit = Limit {
        what: "a tiny file",
        bytes: 8,
        fix: "write less",
    };

    fn temp(name: &str) -> std::path::PathBuf {
        let dir = std::env::temp_dir().join(format!("sphrigid_bounded_{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        dir.join(name)
    }

    #[test]
    fn a_file_within_the_limit_is_read_whole_and_one_past_it_is_refused() {
        let p = temp("eight");
        std::fs::write(&p, "12345678").unwrap();
        assert_eq!(read_text(&p, &TINY).unwrap(), "12345678");
        std::fs::write(&p, "123456789").unwrap();
        let e = read_bytes(&p, &TINY).unwrap_err();
        assert_eq!(e.exit_code(), 2);
        let msg = e.to_string();
        assert!(
            msg.contains("is 9 B; a tiny file may be at most 8 B; fix: write less"),
            "{msg}"
        );
        std::fs::write(&p, [0xff, 0xfe]).unwrap();
        let msg = read_text(&p, &TINY).unwrap_err().to_string();
        assert!(msg.contains("byte 0 is not UTF-8"), "{msg}");
    }

    #[test]
    fn devices_and_directories_are_refused_before_reading() {
        let msg = read_bytes(Path::new("/dev/zero"), &SCENE)
            .unwrap_err()
            .to_string();
        assert!(
            msg.starts_with("/dev/zero: is not a regular file (a character device)"),
            "{msg}"
        );
        let dir = temp("d");
        std::fs::create_dir_all(&dir).unwrap();
        let msg = read_bytes(&dir, &SCENE).unwrap_err().to_string();
        assert!(
            msg.contains("(a directory); fix: give the path of a scene file"),
            "{msg}"
        );
        // A missing file is the caller's to word.
        let e = read_bytes_with(&temp("missing"), &SCENE, |_| Error::input("gone")).unwrap_err();
        assert_eq!(e.to_string(), "gone");
    }

    #[test]
    fn sizes_are_written_in_binary_units() {
        assert_eq!(size(512), "512 B");
        assert_eq!(size(16 << 20), "16.0 MiB");
        assert_eq!(size(30 << 30), "30.0 GiB");
    }
}
