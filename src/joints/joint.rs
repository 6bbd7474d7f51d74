//! A joint between two bodies (or a body and the static world): its kind, where it holds each
//! body, and how far the bodies have drifted from it.
use crate::rigid::RigidBody;
use glam::{DQuat, DVec3};

/// What a joint holds.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum JointKind {
    /// The anchors keep a fixed distance, m (one row).
    Distance {
        /// The distance held between the two anchors, m.
        length: f64,
    },
    /// The anchors coincide (three rows).
    Ball,
    /// The anchors coincide and the two axes stay aligned (five rows), with optional limits on
    /// the angle about the axis, rad, relative to the starting pose (one unilateral row each).
    Hinge {
        /// `(lowest, highest)` angle, rad, or none.
        limits: Option<(f64, f64)>,
    },
}

impl JointKind {
    /// The name used in scene files.
    pub fn name(&self) -> &'static str {
        match self {
            JointKind::Distance { .. } => "distance",
            JointKind::Ball => "ball",
            JointKind::Hinge { .. } => "hinge",
        }
    }

    /// The number of LCP rows the joint adds to every solve.
    pub fn rows(&self) -> usize {
        match self {
            JointKind::Distance { .. } => 1,
            JointKind::Ball => 3,
            JointKind::Hinge { limits: None } => 5,
            JointKind::Hinge { limits: Some(_) } => 7,
        }
    }
}

/// A joint ready to simulate: body indices, anchors and axes in each end's own frame.
#[derive(Debug, Clone, PartialEq)]
pub struct Joint {
    /// Name (used in `joint_errors.csv`).
    pub name: String,
    /// What the joint holds.
    pub kind: JointKind,
    /// The two ends: an index into the bodies, or `None` for the static world.
    pub ends: [Option<usize>; 2],
    /// The anchor of each end in that end's frame (world coordinates for the world).
    pub anchors: [DVec3; 2],
    /// The hinge axis of each end in that end's frame (unit; unused by other kinds).
    pub axes: [DVec3; 2],
    /// The relative orientation `q_1^-1 q_0` of the two ends at the start (the hinge's zero angle).
    pub reference: DQuat,
    /// Baumgarte factor: the fraction of the position error removed per step, 0..1.
    pub stabilization: f64,
}

/// How far a joint is from holding, at one instant.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct JointError {
    /// Distance between the anchors (ball, hinge), or the error of their distance from the
    /// joint's length (distance joint), m.
    pub separation: f64,
    /// Angle between the two ends' hinge axes, rad (0 for other kinds).
    pub misalignment: f64,
    /// The hinge angle about its axis relative to the starting pose, rad (0 for other kinds).
    pub angle: f64,
}

impl JointError {
    /// The larger of two errors, entry by entry (the angle is taken from `other`).
    pub fn peak(self, other: JointError) -> JointError {
        JointError {
            separation: self.separation.max(other.separation),
            misalignment: self.misalignment.max(other.misalignment),
            angle: other.angle,
        }
    }
}

/// The largest error of every joint over the steps since the last [`ErrorPeaks::take`].
#[derive(Debug, Clone, Default)]
pub struct ErrorPeaks {
    peaks: Vec<JointError>,
    /// The poses observed (a buffer kept between steps).
    poses: Vec<Pose>,
}

impl ErrorPeaks {
    /// Fold the joints' errors now into the peaks.
    pub fn observe(&mut self, joints: &[Joint], bodies: &[RigidBody]) {
        self.peaks.resize(joints.len(), JointError::default());
        Pose::of_all_into(bodies, &mut self.poses);
        for (p, j) in self.peaks.iter_mut().zip(joints) {
            *p = p.peak(j.error(&self.poses));
        }
    }

    /// The peaks so far (one per joint observed), kept (for a checkpoint).
    pub fn peaks(&self) -> &[JointError] {
        &self.peaks
    }

    /// Peaks as [`ErrorPeaks::peaks`] gave them (from a checkpoint).
    pub fn from_peaks(peaks: Vec<JointError>) -> ErrorPeaks {
        ErrorPeaks {
            peaks,
            poses: Vec::new(),
        }
    }

    /// The peaks so far (one per joint observed), and start over.
    pub fn take(&mut self) -> Vec<JointError> {
        std::mem::take(&mut self.peaks)
    }
}

/// The twist angle of the rotation `d` about the unit axis `u`, in (-pi, pi].
pub fn twist_angle(d: DQuat, u: DVec3) -> f64 {
    let d = if d.w < 0.0 { -d } else { d };
    2.0 * DVec3::new(d.x, d.y, d.z).dot(u).atan2(d.w)
}

/// Where a body is: its centre of mass and orientation (body to world).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Pose {
    /// World position of the centre of mass.
    pub x: DVec3,
    /// Orientation.
    pub q: DQuat,
}

impl Pose {
    /// The static world's frame.
    pub const WORLD: Pose = Pose {
        x: DVec3::ZERO,
        q: DQuat::IDENTITY,
    };

    /// Every body's current pose.
    pub fn of_all(bodies: &[RigidBody]) -> Vec<Pose> {
        let mut out = Vec::new();
        Pose::of_all_into(bodies, &mut out);
        out
    }

    /// [`Pose::of_all`] into `out` (cleared first).
    pub fn of_all_into(bodies: &[RigidBody], out: &mut Vec<Pose>) {
        out.clear();
        out.extend(bodies.iter().map(|b| Pose {
            x: b.state.x,
            q: b.state.q,
        }));
    }
}

impl Joint {
    /// The pose of end `k` among `poses` (one per body; the world's frame for the world).
    pub fn pose(&self, k: usize, poses: &[Pose]) -> Pose {
        self.ends[k].map_or(Pose::WORLD, |b| poses[b])
    }

    /// The world position of end `k`'s anchor.
    pub fn anchor_world(&self, k: usize, poses: &[Pose]) -> DVec3 {
        let p = self.pose(k, poses);
        p.x + p.q * self.anchors[k]
    }

    /// The world direction of end `k`'s hinge axis.
    pub fn axis_world(&self, k: usize, poses: &[Pose]) -> DVec3 {
        self.pose(k, poses).q * self.axes[k]
    }

    /// Whether the joint links bodies `a` and `b` (in either order).
    pub fn links(&self, a: usize, b: usize) -> bool {
        self.ends == [Some(a), Some(b)] || self.ends == [Some(b), Some(a)]
    }

    /// The hinge angle about the axis relative to the starting pose, rad, in (-pi, pi].
    pub fn angle(&self, poses: &[Pose]) -> f64 {
        let rel = self.pose(1, poses).q.conjugate() * self.pose(0, poses).q;
        twist_angle(rel * self.reference.conjugate(), self.axes[1])
    }

    /// The joint's error with the bodies at `poses`.
    pub fn error(&self, poses: &[Pose]) -> JointError {
        let gap = self.anchor_world(0, poses) - self.anchor_world(1, poses);
        match self.kind {
            JointKind::Distance { length } => JointError {
                separation: (gap.length() - length).abs(),
                ..JointError::default()
            },
            JointKind::Ball => JointError {
                separation: gap.length(),
                ..JointError::default()
            },
            JointKind::Hinge { .. } => {
                let (a, b) = (self.axis_world(0, poses), self.axis_world(1, poses));
                JointError {
                    separation: gap.length(),
                    misalignment: a.cross(b).length().atan2(a.dot(b)),
                    angle: self.angle(poses),
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn twist_angle_reads_the_rotation_about_the_axis() {
        let u = DVec3::new(1.0, 2.0, -0.5).normalize();
        for a in [-3.0, -1.0, -0.1, 0.0, 0.4, 2.5, 3.1] {
            let q = DQuat::from_axis_angle(u, a);
            assert!((twist_angle(q, u) - a).abs() < 1e-12, "{a}");
            assert!((twist_angle(-q, u) - a).abs() < 1e-12, "{a} (other sign)");
            // A swing about a perpendicular axis, before or after, does not change the twist.
            let s = DQuat::from_axis_angle(u.any_orthonormal_vector(), 0.3);
            assert!((twist_angle(q * s, u) - a).abs() < 1e-12, "{a} with swing");
            assert!((twist_angle(s * q, u) - a).abs() < 1e-12, "{a} after swing");
        }
    }
}
