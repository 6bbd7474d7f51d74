//! `OUT/rigid_states.csv`: one row per body and frame with its pose and velocities, appended
//! frame by frame; written by [`StatesWriter`], read back by [`read`].
use super::csv::{self, AppendTable};
use super::run_dir::RunDir;
use crate::Result;
use crate::rigid::RigidBody;
use glam::{DQuat, DVec3};

/// The header line (without newline).
pub const HEADER: &str = "frame,time,body,x,y,z,qw,qx,qy,qz,vx,vy,vz,wx,wy,wz";

/// One row (without newline): the centre of mass, the orientation quaternion (body to world),
/// the linear velocity and the world-frame angular velocity, each in the shortest decimal
/// form that reads back exactly.
pub fn row(frame: u32, time: f64, body: &RigidBody) -> String {
    let (x, q, v, w) = (
        body.state.x,
        body.state.q,
        body.velocity(),
        body.angular_velocity(),
    );
    let mut s = format!("{frame},{},{}", num(time), body.name);
    for c in [
        x.x, x.y, x.z, q.w, q.x, q.y, q.z, v.x, v.y, v.z, w.x, w.y, w.z,
    ] {
        s.push(',');
        s.push_str(&num(c));
    }
    s
}

/// The shortest decimal that reads back as exactly `v`: plain for moderate magnitudes,
/// scientific (`1.5e-7`) for tiny and huge ones.
fn num(v: f64) -> String {
    if v == 0.0 || (1e-4..1e7).contains(&v.abs()) {
        format!("{v}")
    } else {
        format!("{v:e}")
    }
}

/// A parsed row of the file.
#[derive(Debug, Clone, PartialEq)]
pub struct StateRow {
    /// Frame index.
    pub frame: u32,
    /// Time, s.
    pub time: f64,
    /// Body name.
    pub body: String,
    /// x y z qw qx qy qz vx vy vz wx wy wz.
    pub values: [f64; 13],
}

impl StateRow {
    /// The orientation (body to world), normalised.
    pub fn orientation(&self) -> DQuat {
        let v = &self.values;
        DQuat::from_xyzw(v[4], v[5], v[6], v[3]).normalize()
    }

    /// The body's tilt in this row, degrees (see [`tilt_deg`]).
    pub fn tilt_deg(&self) -> f64 {
        tilt_deg(self.orientation())
    }
}

/// The tilt, degrees: the angle between the body's up axis in the world, `R ŷ`, and the
/// vertical `ŷ`. The body frame is the frame of the shape in the scene file (moved to the
/// centre of mass), so a block set up with `orientation` 30 degrees about z starts at 30.
pub fn tilt_deg(q: DQuat) -> f64 {
    let up = q * DVec3::Y;
    up.cross(DVec3::Y)
        .length()
        .atan2(up.dot(DVec3::Y))
        .to_degrees()
}

/// Parse the file's text (header checked); rows that do not parse are an error naming the line.
pub fn parse(text: &str) -> std::result::Result<Vec<StateRow>, String> {
    csv::parse(text, HEADER, parse_row)
}

/// Read the run's `rigid_states.csv`; a run without bodies (no file) has no rows.
pub fn read(run: &RunDir) -> Result<Vec<StateRow>> {
    csv::read(&run.rigid_states(), HEADER, parse_row)
}

fn parse_row(cols: &[&str]) -> Option<StateRow> {
    let mut values = [0.0; 13];
    for (v, c) in values.iter_mut().zip(&cols[3..]) {
        *v = c.parse().ok()?;
    }
    Some(StateRow {
        frame: cols[0].parse().ok()?,
        time: cols[1].parse().ok()?,
        body: cols[2].to_string(),
        values,
    })
}

/// Keeps `rigid_states.csv` current: every frame appends its bodies' rows in one write.
#[derive(Debug)]
pub struct StatesWriter {
    table: AppendTable,
}

impl StatesWriter {
    /// A writer for the run's `rigid_states.csv` (written with the first frame).
    pub fn new(run: &RunDir) -> StatesWriter {
        StatesWriter {
            table: AppendTable::new(run.rigid_states(), HEADER),
        }
    }

    /// The writer of a resumed run: the file cut back to the `len` bytes a checkpoint recorded.
    pub fn resume(run: &RunDir, len: u64) -> Result<StatesWriter> {
        Ok(StatesWriter {
            table: AppendTable::resume(run.rigid_states(), HEADER, len)?,
        })
    }

    /// Bytes written so far.
    pub fn len(&self) -> u64 {
        self.table.len()
    }

    /// Length and CRC-32 of what is written so far (what the manifest records).
    pub fn sum(&self) -> super::checksum::FileSum {
        self.table.sum()
    }

    /// Whether nothing has been written yet.
    pub fn is_empty(&self) -> bool {
        self.table.is_empty()
    }

    /// Append every body's row for frame `index`.
    pub fn write_frame(&mut self, bodies: &[RigidBody], index: u32, time: f64) -> Result<()> {
        let mut rows = String::new();
        for b in bodies {
            rows.push_str(&row(index, time, b));
            rows.push('\n');
        }
        self.table.append(&rows)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rigid::{Primitive, Shape};
    use glam::{DQuat, DVec3};

    #[test]
    fn row_round_trips_through_parse() {
        let shape = Shape::Primitive(Primitive::Sphere { radius: 0.5 });
        let mut b = RigidBody::new("ball", &shape, 1000.0, 0.1).unwrap();
        b.state.x = DVec3::new(1.0, -2.5, 1e-7);
        assert!(row(0, 0.0, &b).contains(",1e-7,"));
        b.state.q = DQuat::from_rotation_y(0.3);
        b.set_velocity(DVec3::new(0.1, 0.2, 0.3));
        b.set_angular_velocity(DVec3::new(-1.0, 0.0, 2.0));
        let text = format!("{HEADER}\n{}\n", row(7, 0.125, &b));
        let rows = parse(&text).unwrap();
        assert_eq!(rows.len(), 1);
        let r = &rows[0];
        assert_eq!((r.frame, r.time, r.body.as_str()), (7, 0.125, "ball"));
        assert_eq!(r.values[0..3], [1.0, -2.5, 1e-7]);
        assert_eq!(r.values[3], b.state.q.w);
        assert!(
            (DVec3::from_slice(&r.values[10..13]) - DVec3::new(-1.0, 0.0, 2.0)).length() < 1e-12
        );
        assert!(parse("frame,time\n").is_err());
    }

    #[test]
    fn writer_output_reads_back_through_the_run_dir() {
        let tmp = tempfile::tempdir().unwrap();
        let run = RunDir::new(tmp.path());
        assert!(read(&run).unwrap().is_empty());
        let shape = Shape::Primitive(Primitive::Sphere { radius: 0.5 });
        let b = RigidBody::new("ball", &shape, 1000.0, 0.1).unwrap();
        let mut w = StatesWriter::new(&run);
        w.write_frame(std::slice::from_ref(&b), 0, 0.0).unwrap();
        w.write_frame(std::slice::from_ref(&b), 1, 0.5).unwrap();
        let rows = read(&run).unwrap();
        assert_eq!(rows.iter().map(|r| r.frame).collect::<Vec<_>>(), [0, 1]);
        std::fs::write(run.rigid_states(), "frame\n").unwrap();
        let e = read(&run).unwrap_err().to_string();
        assert!(
            e.contains("rigid_states.csv: first line is not the header"),
            "{e}"
        );
    }
}
