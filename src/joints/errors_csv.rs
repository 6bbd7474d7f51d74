//! `OUT/joint_errors.csv`: one row per joint and frame with its constraint error at the frame
//! and the largest error over the steps since the previous frame, rewritten atomically after
//! every frame like `rigid_states.csv`.
use super::joint::{Joint, JointError, Pose};
use crate::Result;
use crate::output::write_atomic;
use crate::rigid::RigidBody;
use std::path::{Path, PathBuf};

/// The header line (without newline).
pub const HEADER: &str =
    "frame,time,joint,type,separation,misalignment,angle,max_separation,max_misalignment";

/// The largest error of every joint over the steps since the last [`ErrorPeaks::take`].
#[derive(Debug, Clone, Default)]
pub struct ErrorPeaks {
    peaks: Vec<JointError>,
}

impl ErrorPeaks {
    /// Fold the joints' errors now into the peaks.
    pub fn observe(&mut self, joints: &[Joint], bodies: &[RigidBody]) {
        self.peaks.resize(joints.len(), JointError::default());
        let poses = Pose::of_all(bodies);
        for (p, j) in self.peaks.iter_mut().zip(joints) {
            *p = p.peak(j.error(&poses));
        }
    }

    /// The peaks so far (one per joint observed), and start over.
    pub fn take(&mut self) -> Vec<JointError> {
        std::mem::take(&mut self.peaks)
    }
}

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
    let mut lines = text.lines();
    if lines.next() != Some(HEADER) {
        return Err(format!("first line is not the header '{HEADER}'"));
    }
    lines
        .enumerate()
        .map(|(i, line)| {
            let bad = || format!("line {}: cannot parse '{line}'", i + 2);
            let c: Vec<&str> = line.split(',').collect();
            if c.len() != 9 {
                return Err(bad());
            }
            let num = |s: &str| s.parse::<f64>().map_err(|_| bad());
            Ok(ErrorRow {
                frame: c[0].parse().map_err(|_| bad())?,
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
        })
        .collect()
}

/// Keeps `joint_errors.csv` current.
#[derive(Debug)]
pub struct JointErrorWriter {
    path: PathBuf,
    csv: String,
}

impl JointErrorWriter {
    /// A writer for `dir/joint_errors.csv`.
    pub fn new(dir: &Path) -> JointErrorWriter {
        JointErrorWriter {
            path: dir.join("joint_errors.csv"),
            csv: format!("{HEADER}\n"),
        }
    }

    /// Add every joint's row for frame `index` (peaks from `peaks`, which starts over) and
    /// rewrite the file.
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
        for (k, j) in joints.iter().enumerate() {
            let now = j.error(&poses);
            let p = peak.get(k).copied().unwrap_or(now);
            self.csv.push_str(&row(index, time, j, now, p));
            self.csv.push('\n');
        }
        write_atomic(&self.path, self.csv.as_bytes())
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
}
