//! A joint's rows in the coupling's boxed LCP: bilateral rows, bounds (-inf, inf), for what the
//! joint holds, and unilateral rows, bounds [0, inf), for a hinge's limits.
//!
//! The rows are position-level. A trial step moves the joint's bodies with their own
//! integrator at their predicted velocities (no impulses); `C_trial` is the error each row
//! would be left with. With `w = J (v' - v_pred) + q`, a free row's `w = 0` asks the impulses
//! to leave the error `C_trial + dt J (v' - v_pred)` = 0 at the end of the step, to first
//! order in the impulses, so the curvature of the motion (an anchor swinging on its arc, the
//! gyroscopic turn of a body) is taken out in the same solve instead of being left behind as
//! drift. The joint's `stabilization` beta is the fraction of the error already present that
//! is removed per step (Baumgarte): `q = (C_trial - (1 - beta) C_now) / dt`. A limit row is
//! speculative: while the hinge is inside its range, the row lets the angle reach the limit at
//! the end of the step and no further.
use super::joint::{Joint, JointKind, Pose};
use crate::lcp::{StructuredProblem, StructuredRow};
use crate::rigid::{RigidBody, integrators};
use glam::{DQuat, DVec3};

/// The direction of a row: along `n` at the two anchors, or a rotation about `n`.
#[derive(Debug, Clone, Copy)]
enum Direction {
    Point(DVec3),
    Angular(DVec3),
}

/// The pose a body would reach over `dt` at its current velocities, with no force or impulse.
fn trial_pose(body: &RigidBody, dt: f64) -> Pose {
    let s = if body.dynamic {
        integrators::step(
            body.integrator,
            &body.state,
            &body.inertia,
            dt,
            DVec3::ZERO,
            DVec3::ZERO,
        )
    } else if body.motion.is_some() {
        // A kinematic body moves at the velocities that take it to its next pose.
        return Pose {
            x: body.state.x + body.velocity() * dt,
            q: DQuat::from_scaled_axis(body.angular_velocity() * dt) * body.state.q,
        };
    } else {
        body.state
    };
    Pose { x: s.x, q: s.q }
}

/// A joint's rows: their directions (at the current poses), whether each is unilateral, and
/// the two directions normal to a hinge's axis, fixed in end 0's frame.
pub(crate) struct Layout {
    rows: [(Direction, bool); MAX_ROWS],
    len: usize,
    normals: [DVec3; 2],
}

/// The most rows a joint has (a hinge with limits: three for the anchors, two for the axis,
/// two for the limits).
const MAX_ROWS: usize = 7;

/// Up to [`MAX_ROWS`] numbers, held inline: a joint's row errors.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct RowErrors {
    c: [f64; MAX_ROWS],
    len: usize,
}

impl RowErrors {
    fn extend(&mut self, values: impl IntoIterator<Item = f64>) {
        for v in values {
            self.c[self.len] = v;
            self.len += 1;
        }
    }
}

impl std::ops::Deref for RowErrors {
    type Target = [f64];

    fn deref(&self) -> &[f64] {
        &self.c[..self.len]
    }
}

fn layout(joint: &Joint, now: &[Pose]) -> Layout {
    let gap = joint.anchor_world(0, now) - joint.anchor_world(1, now);
    let mut rows = Layout {
        rows: [(Direction::Point(DVec3::ZERO), false); MAX_ROWS],
        len: 0,
        normals: [DVec3::ZERO; 2],
    };
    let mut normals = [DVec3::ZERO; 2];
    match joint.kind {
        JointKind::Distance { .. } => {
            rows.push((Direction::Point(gap.normalize_or(DVec3::X)), false));
        }
        JointKind::Ball | JointKind::Hinge { .. } => {
            for e in [DVec3::X, DVec3::Y, DVec3::Z] {
                rows.push((Direction::Point(e), false));
            }
        }
    }
    if let JointKind::Hinge { limits } = joint.kind {
        // Axis 1 has no component along the two directions t_k normal to axis 0, fixed in end
        // 0's frame (so they never flip from one step to the next):
        // `d/dt (a_1 . t_k) = (w_0 - w_1) . (t_k x a_1)`.
        let a1 = joint.axis_world(1, now);
        let (s1, s2) = joint.axes[0].any_orthonormal_pair();
        normals = [s1, s2];
        let q0 = joint.pose(0, now).q;
        for s in normals {
            rows.push((Direction::Angular((q0 * s).cross(a1)), false));
        }
        if limits.is_some() {
            // `d/dt angle = (w_0 - w_1) . a_1`.
            rows.push((Direction::Angular(a1), true));
            rows.push((Direction::Angular(-a1), true));
        }
    }
    rows.normals = normals;
    rows
}

impl Layout {
    fn push(&mut self, row: (Direction, bool)) {
        self.rows[self.len] = row;
        self.len += 1;
    }

    fn rows(&self) -> &[(Direction, bool)] {
        &self.rows[..self.len]
    }
}

/// The error of each row of `layout` with the bodies at `poses` (zero when the joint holds; a
/// limit row's error is the room left to the limit, >= 0 inside the range).
fn errors(joint: &Joint, layout: &Layout, poses: &[Pose]) -> RowErrors {
    let gap = joint.anchor_world(0, poses) - joint.anchor_world(1, poses);
    let mut c = RowErrors {
        c: [0.0; MAX_ROWS],
        len: 0,
    };
    match joint.kind {
        JointKind::Distance { length } => c.extend([gap.length() - length]),
        JointKind::Ball | JointKind::Hinge { .. } => c.extend(gap.to_array()),
    }
    if let JointKind::Hinge { limits } = joint.kind {
        let a1 = joint.axis_world(1, poses);
        let q0 = joint.pose(0, poses).q;
        c.extend(layout.normals.map(|s| a1.dot(q0 * s)));
        if let Some((lo, hi)) = limits {
            let angle = joint.angle(poses);
            c.extend([angle - lo, hi - angle]);
        }
    }
    c
}

/// A joint's rows at the current poses `now`, coupled to its dynamic ends (`dyn_index` maps a
/// body to its index among the problem's dynamic bodies), each with its error at `now` and
/// whether it is unilateral; q is left at zero for the caller. The rows are appended to
/// `rows`; the errors are returned with the layout, for [`errors`] at other poses.
pub(crate) fn rows_at(
    joint: &Joint,
    bodies: &[RigidBody],
    dyn_index: &[usize],
    now: &[Pose],
    rows: &mut Vec<StructuredRow>,
) -> (RowErrors, Layout) {
    let layout = layout(joint, now);
    let c_now = errors(joint, &layout, now);
    for &(dir, unilateral) in layout.rows() {
        let lo = if unilateral { 0.0 } else { f64::NEG_INFINITY };
        let mut row = StructuredRow::contact(0.0).with_bounds(lo, f64::INFINITY);
        for (k, sign) in [(0, 1.0), (1, -1.0)] {
            let Some(b) = joint.ends[k] else {
                continue;
            };
            let body = &bodies[b];
            if !body.dynamic {
                continue;
            }
            let (lin, ang) = match dir {
                Direction::Point(n) => {
                    let r = joint.anchor_world(k, now) - now[b].x;
                    (n, r.cross(n))
                }
                Direction::Angular(n) => (DVec3::ZERO, n),
            };
            let j = [lin.x, lin.y, lin.z, ang.x, ang.y, ang.z].map(|v| v * sign);
            row = row.with_body(dyn_index[b], j);
        }
        rows.push(row);
    }
    (c_now, layout)
}

/// Whether a joint has a dynamic end (a joint between static ends holds nothing).
pub(crate) fn moves(joint: &Joint, bodies: &[RigidBody]) -> bool {
    joint.ends.iter().flatten().any(|&b| bodies[b].dynamic)
}

/// Append the rows of `joints` to `prob`. `dyn_index` maps a body to its index among the
/// problem's dynamic bodies; `dt` is the step. Joints whose ends are both static add nothing.
pub fn append_rows(
    prob: &mut StructuredProblem,
    bodies: &[RigidBody],
    dyn_index: &[usize],
    joints: &[Joint],
    dt: f64,
) {
    append_rows_with(
        prob,
        bodies,
        dyn_index,
        joints,
        dt,
        &mut JointBuffers::default(),
    );
}

/// The buffers of [`append_rows_with`], kept between steps.
#[derive(Debug, Clone, Default)]
pub struct JointBuffers {
    now: Vec<Pose>,
    trial: Vec<Pose>,
    stepped: Vec<bool>,
}

/// [`append_rows`] with the buffers of `buf`.
pub fn append_rows_with(
    prob: &mut StructuredProblem,
    bodies: &[RigidBody],
    dyn_index: &[usize],
    joints: &[Joint],
    dt: f64,
    buf: &mut JointBuffers,
) {
    if joints.is_empty() {
        return;
    }
    let (now, trial, stepped) = (&mut buf.now, &mut buf.trial, &mut buf.stepped);
    Pose::of_all_into(bodies, now);
    trial.clear();
    trial.extend_from_slice(now);
    stepped.clear();
    stepped.resize(bodies.len(), false);
    for b in joints.iter().flat_map(|j| j.ends.into_iter().flatten()) {
        if !stepped[b] {
            trial[b] = trial_pose(&bodies[b], dt);
            stepped[b] = true;
        }
    }
    for joint in joints.iter().filter(|j| moves(j, bodies)) {
        let start = prob.rows.len();
        let (c_now, layout) = rows_at(joint, bodies, dyn_index, now, &mut prob.rows);
        let c_trial = errors(joint, &layout, trial);
        let keep = 1.0 - joint.stabilization;
        for (i, row) in prob.rows[start..].iter_mut().enumerate() {
            // A limit's room may close entirely inside the range; an overshoot is taken back
            // like any other error.
            let already = if row.lo == 0.0 {
                c_now[i].min(0.0)
            } else {
                c_now[i]
            };
            row.q = (c_trial[i] - keep * already) / dt;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rigid::{Primitive, Shape};
    use glam::DQuat;

    fn body(size: DVec3, x: DVec3, q: DQuat, v: DVec3, w: DVec3) -> RigidBody {
        let shape = Shape::Primitive(Primitive::Box { size });
        let mut b = RigidBody::new("b", &shape, 700.0, size.min_element() / 2.0).unwrap();
        b.state.x = x;
        b.state.q = q;
        b.set_velocity(v);
        b.set_angular_velocity(w);
        b
    }

    /// The poses after moving every body rigidly for time `h` at its current velocities.
    fn moved(bodies: &[RigidBody], h: f64) -> Vec<Pose> {
        bodies
            .iter()
            .map(|b| Pose {
                x: b.state.x + b.velocity() * h,
                q: DQuat::from_scaled_axis(b.angular_velocity() * h) * b.state.q,
            })
            .collect()
    }

    /// Every row's `J v` (with the bodies' current velocities) equals the rate of change of
    /// its error, by central differences, for each kind of joint and for a body linked to the
    /// world, to another body, and to a static body.
    #[test]
    fn each_row_is_the_rate_of_its_error() {
        let bodies = vec![
            body(
                DVec3::new(0.2, 0.1, 0.05),
                DVec3::new(0.1, 0.5, -0.2),
                DQuat::from_axis_angle(DVec3::new(1.0, 2.0, 3.0).normalize(), 0.7),
                DVec3::new(0.3, -0.2, 0.5),
                DVec3::new(1.5, -2.0, 0.7),
            ),
            body(
                DVec3::new(0.1, 0.3, 0.1),
                DVec3::new(0.3, 0.45, -0.1),
                DQuat::from_axis_angle(DVec3::new(-1.0, 0.5, 0.2).normalize(), 1.9),
                DVec3::new(-0.4, 0.1, 0.2),
                DVec3::new(-0.5, 3.0, 1.1),
            ),
            {
                let mut s = body(
                    DVec3::splat(0.1),
                    DVec3::new(0.0, 0.7, 0.0),
                    DQuat::IDENTITY,
                    DVec3::ZERO,
                    DVec3::ZERO,
                );
                s.dynamic = false;
                s
            },
        ];
        let dyn_index = [0, 1, usize::MAX];
        let now = Pose::of_all(&bodies);
        // Anchors and axes off the centres of mass and off the principal axes. The hinge
        // without limits has its axes far out of line (its angular rows hold anywhere); the
        // one with limits has them in line, as a holding hinge does (the angle's rate is the
        // relative spin about the axis only there), and stands 0.5 rad from its reference.
        let kinds = [
            JointKind::Distance { length: 0.2 },
            JointKind::Ball,
            JointKind::Hinge { limits: None },
            JointKind::Hinge {
                limits: Some((-1.0, 2.0)),
            },
        ];
        for kind in kinds {
            for ends in [[Some(0), None], [Some(0), Some(1)], [Some(1), Some(2)]] {
                let mut joint = Joint {
                    name: "j".into(),
                    kind,
                    ends,
                    anchors: [DVec3::new(0.09, -0.04, 0.02), DVec3::new(-0.03, 0.14, 0.05)],
                    axes: [
                        DVec3::new(0.3, 0.2, 0.9).normalize(),
                        DVec3::new(-0.1, 0.8, 0.3).normalize(),
                    ],
                    reference: DQuat::from_axis_angle(DVec3::Y, 0.4),
                    stabilization: 1.0,
                };
                if let JointKind::Hinge { limits: Some(_) } = kind {
                    let axis = DVec3::new(0.2, -0.5, 0.8).normalize();
                    joint.axes = [0, 1].map(|k| joint.pose(k, &now).q.conjugate() * axis);
                    let rel = joint.pose(1, &now).q.conjugate() * joint.pose(0, &now).q;
                    joint.reference = DQuat::from_axis_angle(joint.axes[1], 0.5).conjugate() * rel;
                    assert!((joint.angle(&now) - 0.5).abs() < 1e-12);
                }
                let mut rows = Vec::new();
                let (c_now, layout) = rows_at(&joint, &bodies, &dyn_index, &now, &mut rows);
                assert_eq!(rows.len(), kind.rows(), "{}", kind.name());
                assert_eq!(c_now, errors(&joint, &layout, &now));
                let h = 1e-6;
                let ahead = errors(&joint, &layout, &moved(&bodies, h));
                let behind = errors(&joint, &layout, &moved(&bodies, -h));
                for (i, row) in rows.iter().enumerate() {
                    let jv: f64 = row
                        .body_terms()
                        .map(|t| {
                            let b = &bodies[[0, 1][t.body]];
                            let (v, w) = (b.velocity(), b.angular_velocity());
                            let u = [v.x, v.y, v.z, w.x, w.y, w.z];
                            t.j.iter().zip(u).map(|(a, c)| a * c).sum::<f64>()
                        })
                        .sum();
                    let rate = (ahead[i] - behind[i]) / (2.0 * h);
                    assert!(
                        (jv - rate).abs() < 1e-7 * (1.0 + rate.abs()),
                        "{} {ends:?} row {i}: J v = {jv}, dC/dt = {rate}",
                        kind.name()
                    );
                }
            }
        }
    }
}
