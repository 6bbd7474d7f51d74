//! `OUT/body_loads.csv` and `OUT/wall_loads.csv`: per frame, the force and torque the liquid
//! put on each body and on each of the container's walls, written by [`LoadWriter`] a frame's
//! rows at a time and read back by [`read`].
//!
//! Columns: `frame,time,body` (or `wall`), the force `fx,fy,fz` (N) and the torque `tx,ty,tz`
//! (N m, about the body's centre of mass or the wall's centre) averaged over the frame's steps
//! (the impulses summed over the frame, divided by the frame's time), then the step force of
//! the largest magnitude over those steps, `fx_peak,fy_peak,fz_peak`, and the step torque of
//! the largest magnitude, `tx_peak,ty_peak,tz_peak`. A frame's row covers the steps since the
//! previous frame, so frame 0 has none.
use super::csv::{self, AppendTable};
use super::run_dir::RunDir;
use crate::{Error, Result};
use glam::DVec3;
use std::fmt::Write as _;
use std::path::PathBuf;

/// The loads on one body or wall over one frame's steps.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Load {
    /// The mean force, N.
    pub force: DVec3,
    /// The mean torque, N m.
    pub torque: DVec3,
    /// The step force of the largest magnitude, N.
    pub peak_force: DVec3,
    /// The step torque of the largest magnitude, N m.
    pub peak_torque: DVec3,
}

/// Which table: the bodies' or the walls'.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LoadTable {
    /// `body_loads.csv`, one row per body.
    Bodies,
    /// `wall_loads.csv`, one row per wall.
    Walls,
}

impl LoadTable {
    /// The header line (without newline).
    pub fn header(self) -> &'static str {
        match self {
            LoadTable::Bodies => {
                "frame,time,body,fx,fy,fz,tx,ty,tz,fx_peak,fy_peak,fz_peak,tx_peak,ty_peak,tz_peak"
            }
            LoadTable::Walls => {
                "frame,time,wall,fx,fy,fz,tx,ty,tz,fx_peak,fy_peak,fz_peak,tx_peak,ty_peak,tz_peak"
            }
        }
    }

    /// The file's path in `run`.
    pub fn path(self, run: &RunDir) -> PathBuf {
        match self {
            LoadTable::Bodies => run.body_loads(),
            LoadTable::Walls => run.wall_loads(),
        }
    }
}

/// The container's walls as `wall_loads.csv` names them, in the order x low, x high, y low,
/// y high, z low, z high.
pub const WALL_NAMES: [&str; 6] = ["x_min", "x_max", "y_min", "y_max", "z_min", "z_max"];

/// One row (without newline).
pub fn row(frame: u32, time: f64, name: &str, load: &Load) -> String {
    let mut s = format!("{frame},{time},{name}");
    for v in [load.force, load.torque, load.peak_force, load.peak_torque] {
        for c in v.to_array() {
            let _ = write!(s, ",{c:e}");
        }
    }
    s
}

/// A parsed row.
#[derive(Debug, Clone, PartialEq)]
pub struct LoadRow {
    /// Frame index.
    pub frame: u32,
    /// Time, s.
    pub time: f64,
    /// The body's or the wall's name.
    pub name: String,
    /// The loads.
    pub load: Load,
}

fn parse_row(c: &[&str]) -> Option<LoadRow> {
    let mut v = [0.0f64; 12];
    for (x, s) in v.iter_mut().zip(&c[3..]) {
        *x = s.parse().ok()?;
    }
    let vec = |k: usize| DVec3::new(v[k], v[k + 1], v[k + 2]);
    Some(LoadRow {
        frame: c[0].parse().ok()?,
        time: c[1].parse().ok()?,
        name: c[2].to_string(),
        load: Load {
            force: vec(0),
            torque: vec(3),
            peak_force: vec(6),
            peak_torque: vec(9),
        },
    })
}

/// Parse a loads table's text (header checked); a row that does not parse is an error naming
/// its line.
pub fn parse(text: &str, table: LoadTable) -> std::result::Result<Vec<LoadRow>, String> {
    csv::parse(text, table.header(), parse_row)
}

/// Read the run's table; a run without one (no bodies, no container) has no rows.
pub fn read(run: &RunDir, table: LoadTable) -> Result<Vec<LoadRow>> {
    csv::read(&table.path(run), table.header(), parse_row)
}

/// Keeps a loads table current: every frame appends its rows in one write.
#[derive(Debug)]
pub struct LoadWriter {
    table: AppendTable,
}

impl LoadWriter {
    /// A writer for `table` in `run` (written with the first frame that has loads).
    pub fn new(run: &RunDir, table: LoadTable) -> LoadWriter {
        LoadWriter {
            table: AppendTable::new(table.path(run), table.header()),
        }
    }

    /// The writer of a run resumed at frame `frame`: the file cut back after its rows of that
    /// frame (later rows belong to the abandoned run).
    pub fn resume(run: &RunDir, table: LoadTable, frame: u32) -> Result<LoadWriter> {
        let path = table.path(run);
        let head = table.header();
        let keep = match std::fs::read_to_string(&path) {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => 0,
            Err(e) => return Err(Error::io(&path, e)),
            Ok(text) => csv::kept_bytes(&text, head, u64::from(frame)).map_err(|why| {
                Error::input(format!(
                    "{}: {why}; fix: start the run over with --overwrite",
                    path.display()
                ))
            })?,
        };
        Ok(LoadWriter {
            table: AppendTable::resume(path, head, keep)?,
        })
    }

    /// Length and CRC-32 of what is written so far (what the manifest records).
    pub fn sum(&self) -> super::checksum::FileSum {
        self.table.sum()
    }

    /// Append frame `frame`'s rows: `loads[k]` for the body or wall `names[k]`.
    pub fn write_frame<S: AsRef<str>>(
        &mut self,
        names: &[S],
        loads: &[Load],
        frame: u32,
        time: f64,
    ) -> Result<()> {
        let mut rows = String::new();
        for (name, load) in names.iter().zip(loads) {
            rows.push_str(&row(frame, time, name.as_ref(), load));
            rows.push('\n');
        }
        self.table.append(&rows)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_round_trip_and_a_resume_keeps_the_frames_before_it() {
        let load = Load {
            force: DVec3::new(1.5, -2.25e-7, 3e5),
            torque: DVec3::new(0.1, 0.2, -0.3),
            peak_force: DVec3::new(2.0, 0.0, -1e-12),
            peak_torque: DVec3::splat(7.0),
        };
        let tmp = tempfile::tempdir().unwrap();
        let run = RunDir::new(tmp.path());
        let mut w = LoadWriter::new(&run, LoadTable::Bodies);
        for frame in 1..=3 {
            w.write_frame(
                &["a", "b"],
                &[load, Load::default()],
                frame,
                0.1 * frame as f64,
            )
            .unwrap();
        }
        let rows = read(&run, LoadTable::Bodies).unwrap();
        assert_eq!(rows.len(), 6);
        assert_eq!(rows[0].load, load);
        assert_eq!((rows[5].frame, rows[5].name.as_str()), (3, "b"));
        drop(w);
        let mut w = LoadWriter::resume(&run, LoadTable::Bodies, 2).unwrap();
        w.write_frame(&["a", "b"], &[Load::default(), load], 3, 0.3)
            .unwrap();
        let rows = read(&run, LoadTable::Bodies).unwrap();
        assert_eq!(rows.len(), 6);
        assert_eq!(rows[5].load, load);
        assert_eq!(
            w.sum().bytes,
            std::fs::metadata(run.body_loads()).unwrap().len()
        );
        // The walls' table is another file with its own header.
        assert!(read(&run, LoadTable::Walls).unwrap().is_empty());
        let e = parse("frame,time,body\n", LoadTable::Walls).unwrap_err();
        assert!(e.contains("not the header"), "{e}");
    }
}
