//! `OUT/gauges.csv`: the scene's `[[gauge]]` readings, one row per step at which any gauge
//! was read (every frame, or every `every` steps), written by [`GaugeWriter`] a frame's rows
//! at a time and read back by [`read`].
//!
//! Columns: `step,time,` then one per gauge, named as the scene names it: a height gauge's
//! surface height (m, the world's y), a pressure gauge's pressure (Pa); a gauge not read at
//! that step leaves its cell empty.
use super::csv::AppendTable;
use super::run_dir::{RunDir, not_a_run};
use crate::{Error, Result};
use std::fmt::Write as _;

/// The header line (without newline) for gauges named `names`.
pub fn header(names: &[String]) -> String {
    let mut h = String::from("step,time");
    for n in names {
        h.push(',');
        h.push_str(n);
    }
    h
}

/// Keeps `gauges.csv` current: rows gather in memory as the steps read them and go out with
/// each frame in one write.
#[derive(Debug)]
pub struct GaugeWriter {
    table: AppendTable,
    rows: String,
}

impl GaugeWriter {
    /// A writer for the run's `gauges.csv` with one column per gauge in `names`.
    pub fn new(run: &RunDir, names: &[String]) -> GaugeWriter {
        GaugeWriter {
            table: AppendTable::new(run.gauges(), &header(names)),
            rows: String::new(),
        }
    }

    /// The writer of a run resumed at step `steps`: the file cut back after its last row of a
    /// step up to `steps` (the rows of later steps belong to the abandoned run).
    pub fn resume(run: &RunDir, names: &[String], steps: u64) -> Result<GaugeWriter> {
        let path = run.gauges();
        let head = header(names);
        let keep = match std::fs::read_to_string(&path) {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => 0,
            Err(e) => return Err(Error::io(&path, e)),
            Ok(text) => super::csv::kept_bytes(&text, &head, steps).map_err(|why| {
                Error::input(format!(
                    "{}: {why}; fix: resume with the scene the run was started with, or start over with --overwrite",
                    path.display()
                ))
            })?,
        };
        Ok(GaugeWriter {
            table: AppendTable::resume(path, &head, keep)?,
            rows: String::new(),
        })
    }

    /// Add the row of `step` at `time`: each gauge's reading, or `None` where it was not read.
    pub fn push(&mut self, step: u64, time: f64, values: &[Option<f32>]) {
        let _ = write!(self.rows, "{step},{time}");
        for v in values {
            self.rows.push(',');
            if let Some(v) = v {
                let _ = write!(self.rows, "{v:e}");
            }
        }
        self.rows.push('\n');
    }

    /// Write the rows gathered since the last flush in one write.
    pub fn flush(&mut self) -> Result<()> {
        if self.rows.is_empty() {
            return Ok(());
        }
        self.table.append(&self.rows)?;
        self.rows.clear();
        Ok(())
    }

    /// Length and CRC-32 of what is written so far (what the manifest records).
    pub fn sum(&self) -> super::checksum::FileSum {
        self.table.sum()
    }
}

/// The readings of a run's `gauges.csv`: the gauges' names, and per row the step, the time and
/// each gauge's reading (`None` where it was not read).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct GaugeTable {
    /// The gauges, in the scene's order.
    pub names: Vec<String>,
    /// `(step, time, readings)` per row.
    pub rows: Vec<(u64, f64, Vec<Option<f64>>)>,
}

impl GaugeTable {
    /// The `(time, reading)` series of gauge `name`, leaving out rows where it was not read.
    pub fn series(&self, name: &str) -> Option<Vec<(f64, f64)>> {
        let k = self.names.iter().position(|n| n == name)?;
        Some(
            self.rows
                .iter()
                .filter_map(|(_, t, v)| v[k].map(|v| (*t, v)))
                .collect(),
        )
    }
}

/// Parse a `gauges.csv`; what is wrong names the line.
pub fn parse(text: &str) -> std::result::Result<GaugeTable, String> {
    let mut lines = text.lines();
    let head = lines.next().ok_or("it is empty")?;
    let names: Vec<String> = match head.strip_prefix("step,time") {
        Some("") => Vec::new(),
        Some(rest) if rest.starts_with(',') => rest[1..].split(',').map(str::to_string).collect(),
        _ => {
            return Err(format!(
                "first line '{head}' is not a gauges header 'step,time,...'"
            ));
        }
    };
    let mut rows = Vec::new();
    for (i, line) in lines.enumerate() {
        let bad = || format!("line {}: cannot parse '{line}'", i + 2);
        let f: Vec<&str> = line.split(',').collect();
        if f.len() != names.len() + 2 {
            return Err(bad());
        }
        let step = f[0].parse().map_err(|_| bad())?;
        let time = f[1].parse().map_err(|_| bad())?;
        let values = f[2..]
            .iter()
            .map(|c| {
                if c.is_empty() {
                    Ok(None)
                } else {
                    c.parse::<f64>().map(Some).map_err(|_| bad())
                }
            })
            .collect::<std::result::Result<_, _>>()?;
        rows.push((step, time, values));
    }
    Ok(GaugeTable { names, rows })
}

/// Read the run's `gauges.csv`; a run without gauges has none (no names, no rows).
pub fn read(run: &RunDir) -> Result<GaugeTable> {
    let path = run.gauges();
    if !path.exists() {
        return Ok(GaugeTable::default());
    }
    let text = std::fs::read_to_string(&path)
        .map_err(|e| not_a_run(&path, &format!("cannot read it ({e})")))?;
    parse(&text).map_err(|e| {
        Error::input(format!(
            "{}: {e}; fix: rerun the scene to rewrite the file",
            path.display()
        ))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names() -> Vec<String> {
        vec!["h1".into(), "p1".into()]
    }

    #[test]
    fn rows_read_back_and_a_resume_keeps_the_rows_up_to_its_step() {
        let dir = tempfile::tempdir().unwrap();
        let run = RunDir::new(dir.path());
        let mut w = GaugeWriter::new(&run, &names());
        w.push(0, 0.0, &[Some(0.25), Some(1000.5)]);
        w.push(5, 0.01, &[None, Some(999.0)]);
        w.flush().unwrap();
        w.push(10, 0.02, &[Some(0.24), Some(998.0)]);
        w.flush().unwrap();
        let t = read(&run).unwrap();
        assert_eq!(t.names, names());
        assert_eq!(t.rows.len(), 3);
        assert_eq!(t.rows[1], (5, 0.01, vec![None, Some(999.0)]));
        assert_eq!(t.series("h1").unwrap(), vec![(0.0, 0.25), (0.02, 0.24)]);
        let whole = std::fs::read(run.gauges()).unwrap();
        // Resumed at step 5: the row of step 10 goes, the next row follows the kept ones.
        let mut r = GaugeWriter::resume(&run, &names(), 5).unwrap();
        r.push(10, 0.02, &[Some(0.24), Some(998.0)]);
        r.flush().unwrap();
        assert_eq!(std::fs::read(run.gauges()).unwrap(), whole);
        // A scene whose gauges differ is named.
        let e = GaugeWriter::resume(&run, &["other".to_string()], 5).unwrap_err();
        assert!(e.to_string().contains("not the header"), "{e}");
    }

    #[test]
    fn a_torn_or_foreign_file_is_named_by_line() {
        assert!(
            parse("step,time,a\n1,0.1,2\n2,0.2\n")
                .unwrap_err()
                .contains("line 3")
        );
        assert!(
            parse("frame,time\n")
                .unwrap_err()
                .contains("not a gauges header")
        );
        assert_eq!(
            super::super::csv::kept_bytes("step,time,a\n1,0,2\n2,0,3", "step,time,a", 9),
            Ok(18)
        );
    }
}
