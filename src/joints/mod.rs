//! Joints between bodies: distance, ball and hinge (with optional angle limits), each linking
//! two bodies or a body and the static world. Their rows enter the coupling's boxed LCP beside
//! the contacts (free rows for what a joint holds, unilateral rows for limits), aimed at the
//! position error a trial step would leave; a post-projection takes out what the step still
//! leaves. [`ErrorPeaks`] keeps each joint's largest error between frames for
//! `joint_errors.csv` (written by output/joint_errors.rs).
pub(crate) mod joint;
pub(crate) mod projection;
pub(crate) mod rows;

pub use joint::{ErrorPeaks, Joint, JointError, JointKind, Pose};
pub use projection::{Projection, project, project_with};
pub use rows::{JointBuffers, append_rows, append_rows_with};

/// Whether any of `joints` links bodies `a` and `b`; such bodies do not collide with each other.
pub fn linked(joints: &[Joint], a: usize, b: usize) -> bool {
    joints.iter().any(|j| j.links(a, b))
}
