//! `OUT/joint_errors.csv`: one row per joint and frame with its constraint error at the frame
//! and the largest error over the steps since the previous frame, appended frame by frame like
//! `rigid_states.csv`; written by [`JointErrorWriter`], read back by [`read`].
use super::csv::{self, AppendTable};
use super::run_dir::RunDir;
use crate::Result;
use crate::joints::{ErrorPeaks, Joint, JointError, Pose};
use crate::rigid::RigidBody;

/// The header line (without newline).
pub const HEADER: &str =
    "frame,time,joint,type,separation,misalignment,angle,max_separation,max_misalignment";

/// One row (without newline): the error now and the peak since the last frame.
pub fn row(frame: u32, time: f64, joint: &Joint, now: JointError, peak: JointError) -> String {
    format!(
        "{frame},{time},{},{},{:e},{:e},{},{:e},{:e}",
        joint.name,
        joint.kind.name(),
        now.separation,
        now.misalignment,
        now.angle,
        peak.separation.max(now.separation),
        peak.misalignment.max(now.misalignment)
    )
}

/// A parsed row of the file.
#[derive(Debug, Clone, PartialEq)]
pub struct ErrorRow {
    /// Frame index.
    pub frame: u32,
    /// Time, s.
    pub time: f64,
    /// Joint name.
    pub joint: String,
    /// Joint type.
    pub kind: String,
    /// The error at the frame.
    pub now: JointError,
    /// The largest separation over the steps since the previous frame, m.
    pub max_separation: f64,
    /// The largest misalignment over the steps since the previous frame, rad.
    pub max_misalignment: f64,
}

/// Parse the file's text (header checked); a row that does not parse is an error naming its line.
pub fn parse(text: &str) -> std::result::Result<Vec<ErrorRow>, String> {
    csv::parse(text, HEADER, parse_row)
}

/// Read the run's `joint_errors.csv`; a run without joints (no file) has no rows.
pub fn read(run: &RunDir) -> Result<Vec<ErrorRow>> {
    csv::read(&run.joint_errors(), HEADER, parse_row)
}

fn parse_row(c: &[&str]) -> Option<ErrorRow> {
    let num = |s: &str| s.parse::<f64>().ok();
    Some(ErrorRow {
        frame: c[0].parse().ok()?,
        time: num(c[1])?,
        joint: c[2].to_string(),
        kind: c[3].to_string(),
        now: JointError {
            separation: num(c[4])?,
            misalignment: num(c[5])?,
            angle: num(c[6])?,
        },
        max_separation: num(c[7])?,
        max_misalignment: num(c[8])?,
    })
}

/// Keeps `joint_errors.csv` current.
#[derive(Debug)]
pub struct JointErrorWriter {
    table: AppendTable,
}

impl JointErrorWriter {
    /// A writer for the run's `joint_errors.csv` (written with the first frame).
    pub fn new(run: &RunDir) -> JointErrorWriter {
        JointErrorWriter {
            table: AppendTable::new(run.joint_errors(), HEADER),
        }
    }

    /// The writer of a resumed run: the file cut back to the `len` bytes a checkpoint recorded.
    pub fn resume(run: &RunDir, len: u64) -> Result<JointErrorWriter> {
        Ok(JointErrorWriter {
            table: AppendTable::resume(run.joint_errors(), HEADER, len)?,
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

    /// Append every joint's row for frame `index` (peaks from `peaks`, which starts over) in
    /// one write.
    pub fn write_frame(
        &mut self,
        joints: &[Joint],
        bodies: &[RigidBody],
        peaks: &mut ErrorPeaks,
        index: u32,
        time: f64,
    ) -> Result<()> {
        let peak = peaks.take();
        let poses = Pose::of_all(bodies);
        let mut rows = String::new();
        for (k, j) in joints.iter().enumerate() {
            let now = j.error(&poses);
            let p = peak.get(k).copied().unwrap_or(now);
            rows.push_str(&row(index, time, j, now, p));
            rows.push('\n');
        }
        self.table.append(&rows)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::joints::JointKind;
    use glam::{DQuat, DVec3};

    #[test]
    fn rows_round_trip_through_parse() {
        let j = Joint {
            name: "gate".into(),
            kind: JointKind::Hinge { limits: None },
            ends: [None, None],
            anchors: [DVec3::ZERO, DVec3::new(1e-7, 0.0, 0.0)],
            axes: [DVec3::Z, DVec3::Z],
            reference: DQuat::IDENTITY,
            stabilization: 1.0,
        };
        let now = j.error(&[]);
        assert_eq!(now.separation, 1e-7);
        let peak = JointError {
            separation: 3e-6,
            misalignment: 2e-4,
            angle: 0.0,
        };
        let text = format!("{HEADER}\n{}\n", row(4, 0.125, &j, now, peak));
        let r = &parse(&text).unwrap()[0];
        assert_eq!((r.frame, r.time, r.joint.as_str()), (4, 0.125, "gate"));
        assert_eq!(r.kind, "hinge");
        assert_eq!(r.now, now);
        assert_eq!((r.max_separation, r.max_misalignment), (3e-6, 2e-4));
        assert!(parse("frame\n").is_err());
        assert!(parse(&format!("{HEADER}\n1,2,3\n")).is_err());
    }

    #[test]
    fn writer_output_reads_back_through_the_run_dir() {
        let tmp = tempfile::tempdir().unwrap();
        let run = RunDir::new(tmp.path());
        assert!(read(&run).unwrap().is_empty());
        let j = Joint {
            name: "pin".into(),
            kind: JointKind::Ball,
            ends: [None, None],
            anchors: [DVec3::ZERO, DVec3::new(0.0, 2e-6, 0.0)],
            axes: [DVec3::Z, DVec3::Z],
            reference: DQuat::IDENTITY,
            stabilization: 1.0,
        };
        let joints = [j];
        let mut peaks = ErrorPeaks::default();
        peaks.observe(&joints, &[]);
        let mut w = JointErrorWriter::new(&run);
        w.write_frame(&joints, &[], &mut peaks, 3, 0.25).unwrap();
        let rows = read(&run).unwrap();
        assert_eq!(rows.len(), 1);
        assert_eq!((rows[0].frame, rows[0].joint.as_str()), (3, "pin"));
        assert_eq!(rows[0].max_separation, 2e-6);
    }
}
