//! The run's CSV tables (`rigid_states.csv`, `joint_errors.csv`, `run_metrics.csv`): the one
//! reader (a header line that must match, then rows of exactly as many comma-separated fields)
//! and the one writer, [`AppendTable`], which appends each frame's rows in one write.
use super::run_dir::not_a_run;
use crate::{Error, Result};
use std::fs::{File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};

/// A CSV table that grows by whole frames: each frame's rows go out in one `write` of a
/// complete buffer, so a reader never sees a torn row, and nothing already written is
/// rewritten (a run of F frames writes O(F) bytes, not O(F^2)).
#[derive(Debug)]
pub struct AppendTable {
    path: PathBuf,
    file: Option<File>,
    header: String,
    len: u64,
    /// CRC-32 of the bytes written so far, grown with each frame's rows.
    crc: crc32fast::Hasher,
}

impl AppendTable {
    /// A table at `path` that starts with `header` (the file is created, replacing any older
    /// one, with the first frame's rows).
    pub fn new(path: PathBuf, header: &str) -> AppendTable {
        AppendTable {
            path,
            file: None,
            header: format!("{header}\n"),
            len: 0,
            crc: crc32fast::Hasher::new(),
        }
    }

    /// The table at `path` as a checkpoint left it: cut back to its first `len` bytes (the
    /// rows of the frames before the checkpoint), then appended to.
    pub fn resume(path: PathBuf, header: &str, len: u64) -> Result<AppendTable> {
        let mut t = AppendTable::new(path, header);
        if len == 0 {
            return Ok(t);
        }
        let file = OpenOptions::new()
            .append(true)
            .open(&t.path)
            .map_err(|e| Error::io(&t.path, e))?;
        let on_disk = file.metadata().map_err(|e| Error::io(&t.path, e))?.len();
        if on_disk < len {
            return Err(Error::input(format!(
                "{}: {on_disk} bytes, shorter than the {len} the checkpoint recorded; fix: start over with --overwrite",
                t.path.display()
            )));
        }
        file.set_len(len).map_err(|e| Error::io(&t.path, e))?;
        let kept = File::open(&t.path).map_err(|e| Error::io(&t.path, e))?;
        let crc = super::checksum::crc_of_prefix(kept, len).ok_or_else(|| {
            Error::io(
                &t.path,
                std::io::Error::new(std::io::ErrorKind::UnexpectedEof, "cut short while read"),
            )
        })?;
        t.crc = crc32fast::Hasher::new_with_initial_len(crc, len);
        t.file = Some(file);
        t.len = len;
        Ok(t)
    }

    /// Bytes written so far (what a checkpoint records).
    pub fn len(&self) -> u64 {
        self.len
    }

    /// Length and CRC-32 of what is written so far.
    pub fn sum(&self) -> super::checksum::FileSum {
        super::checksum::FileSum {
            bytes: self.len,
            crc32: self.crc.clone().finalize(),
        }
    }

    /// Whether nothing has been written yet.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Append one frame's `rows` (whole lines, each ending in a newline) in one write, after
    /// the header when the file is new.
    pub fn append(&mut self, rows: &str) -> Result<()> {
        let path = &self.path;
        let buf = if self.file.is_none() {
            let f = File::create(path).map_err(|e| Error::io(path, e))?;
            self.file = Some(f);
            format!("{}{rows}", self.header)
        } else {
            rows.to_string()
        };
        let f = self.file.as_mut().expect("opened above");
        f.write_all(buf.as_bytes())
            .and_then(|()| f.flush())
            .map_err(|e| Error::io(path, e))?;
        self.len += buf.len() as u64;
        self.crc.update(buf.as_bytes());
        Ok(())
    }
}

/// The bytes of `text` (a table with header `head`) up to and including its last complete row
/// whose first column is at most `last` (a step or a frame), after the header: what a run
/// resumed there keeps of a table that is cut by its first column rather than by a length a
/// checkpoint recorded. The header alone when no row is that early; an error when the first
/// line is not `head`.
pub fn kept_bytes(text: &str, head: &str, last: u64) -> std::result::Result<u64, String> {
    let Some(rest) = text.strip_prefix(head).and_then(|r| r.strip_prefix('\n')) else {
        return Err(format!("its first line is not the header '{head}'"));
    };
    let mut keep = text.len() - rest.len();
    for line in rest.split_inclusive('\n') {
        let first = line
            .split(',')
            .next()
            .and_then(|s| s.parse::<u64>().ok())
            .filter(|_| line.ends_with('\n'));
        match first {
            Some(s) if s <= last => keep += line.len(),
            _ => break,
        }
    }
    Ok(keep as u64)
}

/// Parse `text`: the first line must be `header`; every further line must have as many fields
/// as the header and be accepted by `row`, else the error names the line.
pub fn parse<T>(
    text: &str,
    header: &str,
    row: impl Fn(&[&str]) -> Option<T>,
) -> std::result::Result<Vec<T>, String> {
    let mut lines = text.lines();
    if lines.next() != Some(header) {
        return Err(format!("first line is not the header '{header}'"));
    }
    let width = header.split(',').count();
    lines
        .enumerate()
        .map(|(i, line)| {
            let fields: Vec<&str> = line.split(',').collect();
            (fields.len() == width)
                .then(|| row(&fields))
                .flatten()
                .ok_or_else(|| format!("line {}: cannot parse '{line}'", i + 2))
        })
        .collect()
}

/// Read and parse the table at `path` like [`parse`]; an absent file reads as no rows.
pub fn read<T>(path: &Path, header: &str, row: impl Fn(&[&str]) -> Option<T>) -> Result<Vec<T>> {
    if !path.exists() {
        return Ok(Vec::new());
    }
    let text = std::fs::read_to_string(path)
        .map_err(|e| not_a_run(path, &format!("cannot read it ({e})")))?;
    parse(&text, header, row).map_err(|e| {
        Error::input(format!(
            "{}: {e}; fix: rerun the scene to rewrite the file",
            path.display()
        ))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tables_append_whole_frames_and_resume_cut_back() {
        let tmp = tempfile::tempdir().unwrap();
        let path = tmp.path().join("t.csv");
        let mut t = AppendTable::new(path.clone(), "a,b");
        t.append("0,1\n0,2\n").unwrap();
        let after_first = t.len();
        assert_eq!(after_first, "a,b\n0,1\n0,2\n".len() as u64);
        t.append("1,3\n").unwrap();
        assert_eq!(
            std::fs::read_to_string(&path).unwrap(),
            "a,b\n0,1\n0,2\n1,3\n"
        );
        drop(t);
        let mut r = AppendTable::resume(path.clone(), "a,b", after_first).unwrap();
        r.append("1,4\n").unwrap();
        assert_eq!(
            std::fs::read_to_string(&path).unwrap(),
            "a,b\n0,1\n0,2\n1,4\n"
        );
        let e = AppendTable::resume(path, "a,b", 1000)
            .unwrap_err()
            .to_string();
        assert!(e.contains("shorter than the 1000"), "{e}");
    }

    #[test]
    fn rows_need_the_header_and_its_width() {
        let row = |f: &[&str]| f[1].parse::<f64>().ok();
        assert_eq!(parse("a,b\n1,2.5\n3,4\n", "a,b", row).unwrap(), [2.5, 4.0]);
        assert_eq!(
            parse("a,c\n", "a,b", row).unwrap_err(),
            "first line is not the header 'a,b'"
        );
        assert_eq!(
            parse("a,b\n1,2\n1,2,3\n", "a,b", row).unwrap_err(),
            "line 3: cannot parse '1,2,3'"
        );
        assert_eq!(
            parse("a,b\n1,x\n", "a,b", row).unwrap_err(),
            "line 2: cannot parse '1,x'"
        );
    }
}
