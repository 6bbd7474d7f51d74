//! The size and CRC-32 of every file a run writes whole (frames) or grows (tables), as the
//! manifest records them ([`FileSum`]), and the check of a file on disk against its record
//! ([`FileSum::check`]) that `--resume` makes before it goes on. Computed once per written
//! file from the bytes already in memory: nothing per step.
use serde::{Deserialize, Serialize};
use std::io::Read;
use std::path::Path;

/// A file's length and CRC-32, as the manifest records them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileSum {
    /// Length in bytes.
    pub bytes: u64,
    /// CRC-32 (IEEE) of those bytes, 8 hex digits.
    #[serde(with = "hex32")]
    pub crc32: u32,
}

/// What is wrong with a file checked against its [`FileSum`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Damage {
    /// The file is not there.
    Missing,
    /// The file is shorter than recorded.
    Truncated {
        /// Its length now.
        bytes: u64,
    },
    /// The file has the recorded length (or more, for a table) but other bytes.
    Changed,
}

impl std::fmt::Display for Damage {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Damage::Missing => write!(f, "missing"),
            Damage::Truncated { bytes } => write!(f, "truncated to {bytes} bytes"),
            Damage::Changed => write!(f, "changed (checksum mismatch)"),
        }
    }
}

impl FileSum {
    /// The sum of `bytes`.
    pub fn of(bytes: &[u8]) -> FileSum {
        FileSum {
            bytes: bytes.len() as u64,
            crc32: crc32fast::hash(bytes),
        }
    }

    /// Check the file at `path` against this record: a frame must match it exactly; a table
    /// (`prefix`) may have grown past it, and only its first `self.bytes` bytes are compared.
    pub fn check(&self, path: &Path, prefix: bool) -> Result<(), Damage> {
        let Ok(file) = std::fs::File::open(path) else {
            return Err(Damage::Missing);
        };
        let len = file.metadata().map_err(|_| Damage::Missing)?.len();
        if len < self.bytes {
            return Err(Damage::Truncated { bytes: len });
        }
        if len > self.bytes && !prefix {
            return Err(Damage::Changed);
        }
        match crc_of_prefix(file, self.bytes) {
            Some(c) if c == self.crc32 => Ok(()),
            _ => Err(Damage::Changed),
        }
    }
}

/// CRC-32 of the first `len` bytes of `file` (`None` when they cannot all be read).
pub fn crc_of_prefix(file: std::fs::File, len: u64) -> Option<u32> {
    let mut h = crc32fast::Hasher::new();
    let mut r = file.take(len);
    let mut buf = vec![0u8; 1 << 16];
    let mut read = 0u64;
    loop {
        let n = r.read(&mut buf).ok()?;
        if n == 0 {
            break;
        }
        h.update(&buf[..n]);
        read += n as u64;
    }
    (read == len).then(|| h.finalize())
}

/// A `u32` as 8 hex digits in JSON.
mod hex32 {
    use serde::{Deserialize, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(v: &u32, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&format!("{v:08x}"))
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<u32, D::Error> {
        let s = String::deserialize(d)?;
        u32::from_str_radix(&s, 16).map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_is_checked_against_its_sum() {
        let tmp = tempfile::tempdir().unwrap();
        let p = tmp.path().join("f");
        let sum = FileSum::of(b"hello world");
        assert_eq!(sum.crc32, 0x0d4a_1185);
        assert_eq!(sum.check(&p, false), Err(Damage::Missing));
        std::fs::write(&p, b"hello world").unwrap();
        assert_eq!(sum.check(&p, false), Ok(()));
        std::fs::write(&p, b"hello").unwrap();
        assert_eq!(sum.check(&p, false), Err(Damage::Truncated { bytes: 5 }));
        std::fs::write(&p, b"hello World").unwrap();
        assert_eq!(sum.check(&p, false), Err(Damage::Changed));
        std::fs::write(&p, b"hello world, and more").unwrap();
        assert_eq!(sum.check(&p, false), Err(Damage::Changed));
        assert_eq!(sum.check(&p, true), Ok(()));
        let json = serde_json::to_string(&sum).unwrap();
        assert_eq!(json, r#"{"bytes":11,"crc32":"0d4a1185"}"#);
        assert_eq!(serde_json::from_str::<FileSum>(&json).unwrap(), sum);
    }
}
