//! The post-projection: after a step (and the contacts' position push-out), the bodies are
//! moved at position level so that the joints hold again, to round-off, without touching the
//! velocities.
use super::joint::{Joint, Pose};
use super::rows::{moves, rows_at};
use crate::lcp::block_pivot::BlockPivotSolver;
use crate::lcp::{self, StructuredProblem, body_inverse_mass};
use crate::rigid::RigidBody;
use glam::{DQuat, DVec3};

/// Move the bodies at position level so that the joints hold again after the step (the
/// post-projection): each joint's error C left by the step, its rows' linearisation and the
/// contacts' push-out, is taken to `(1 - beta) C`, beta its `stabilization`, by the
/// mass-weighted least correction `dx = W J^T lambda` (limits only where overshot),
/// Newton-iterated until it is within `PROJECTION_TOLERANCE`. Velocities are left as they are.
/// Returns false when a solve fails (the positions are then left for the next step's rows).
pub fn project(bodies: &mut [RigidBody], joints: &[Joint]) -> bool {
    project_with(bodies, joints, &mut Projection::default())
}

/// The buffers of [`project_with`] (its problem and solver among them), kept between steps.
#[derive(Debug, Clone, Default)]
pub struct Projection {
    dyn_index: Vec<usize>,
    dyn_bodies: Vec<usize>,
    now: Vec<Pose>,
    prob: StructuredProblem,
    errors: Vec<f64>,
    keep: Vec<f64>,
    target: Vec<f64>,
    solver: BlockPivotSolver,
    imp: Vec<f64>,
    dx: Vec<f64>,
}

/// [`project`] with the buffers of `buf`.
pub fn project_with(bodies: &mut [RigidBody], joints: &[Joint], buf: &mut Projection) -> bool {
    if !joints
        .iter()
        .any(|j| moves(j, bodies) && j.stabilization > 0.0)
    {
        return true;
    }
    let (dyn_index, dyn_bodies) = (&mut buf.dyn_index, &mut buf.dyn_bodies);
    dyn_index.clear();
    dyn_index.resize(bodies.len(), usize::MAX);
    dyn_bodies.clear();
    for (b, body) in bodies.iter().enumerate() {
        if body.dynamic {
            dyn_index[b] = dyn_bodies.len();
            dyn_bodies.push(b);
        }
    }
    // Each row's target, (1 - beta) C at the start (rows in the order built below).
    let mut has_target = false;
    let options = lcp::Options::default();
    for _ in 0..PROJECTION_ITERATIONS {
        Pose::of_all_into(bodies, &mut buf.now);
        let prob = &mut buf.prob;
        prob.body_inv_mass.clear();
        prob.particle_inv_mass.clear();
        prob.rows.clear();
        for &b in dyn_bodies.iter() {
            let inv = bodies[b].world_inverse_inertia().to_cols_array();
            prob.body_inv_mass
                .push(body_inverse_mass(bodies[b].mass(), inv));
        }
        let (errors, keep) = (&mut buf.errors, &mut buf.keep);
        errors.clear();
        keep.clear();
        for joint in joints
            .iter()
            .filter(|j| moves(j, bodies) && j.stabilization > 0.0)
        {
            let (c_now, _) = rows_at(
                joint,
                bodies,
                dyn_index.as_slice(),
                &buf.now,
                &mut prob.rows,
            );
            for &c in c_now.iter() {
                errors.push(c);
                keep.push(1.0 - joint.stabilization);
            }
        }
        // A limit row's error is the room left to its limit: only an overshoot (C < 0) is a
        // target to take back; inside the range the row holds C >= 0.
        if !has_target {
            has_target = true;
            buf.target.clear();
            buf.target.extend(
                (prob.rows.iter().zip(errors.iter()).zip(keep.iter()))
                    .map(|((row, c), k)| k * if row.lo == 0.0 { c.min(0.0) } else { *c }),
            );
        }
        let mut worst = 0.0f64;
        for ((row, c), t) in prob
            .rows
            .iter_mut()
            .zip(errors.iter())
            .zip(buf.target.iter())
        {
            row.q = c - t;
            let off = if row.lo == 0.0 { -row.q } else { row.q.abs() };
            worst = worst.max(off);
        }
        if worst <= PROJECTION_TOLERANCE {
            break;
        }
        let Ok(sol) = buf.solver.solve(prob, &options) else {
            return false;
        };
        if !sol.is_solved() {
            return false;
        }
        prob.body_velocity_into(&sol.z, &mut buf.imp, &mut buf.dx);
        let dx = &buf.dx;
        for (d, &b) in dyn_bodies.iter().enumerate() {
            let s = &dx[6 * d..6 * d + 6];
            let body = &mut bodies[b];
            body.state.x += DVec3::new(s[0], s[1], s[2]);
            let turn = DQuat::from_scaled_axis(DVec3::new(s[3], s[4], s[5]));
            body.state.q = (turn * body.state.q).normalize();
        }
    }
    true
}

/// Newton iterations of the position projection at most.
const PROJECTION_ITERATIONS: usize = 4;

/// The projection stops once every row is within this of its target (m, or rad for angular rows).
const PROJECTION_TOLERANCE: f64 = 1e-12;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::joints::JointKind;
    use crate::rigid::{Primitive, Shape};

    /// A bar hinged to the world about x at its top, knocked 1 cm off its anchor and 0.02 rad
    /// out of line, with its velocities set.
    fn knocked(stabilization: f64) -> (Vec<RigidBody>, Joint) {
        let shape = Shape::Primitive(Primitive::Box {
            size: DVec3::new(0.05, 0.3, 0.05),
        });
        let mut bar = RigidBody::new("bar", &shape, 1000.0, 0.025).unwrap();
        bar.state.x = DVec3::new(0.01, -0.15, 0.0);
        bar.state.q = DQuat::from_rotation_y(0.02);
        bar.set_velocity(DVec3::new(0.0, 0.0, 0.3));
        bar.set_angular_velocity(DVec3::new(2.0, 0.0, 0.0));
        let joint = Joint {
            name: "hinge".into(),
            kind: JointKind::Hinge { limits: None },
            ends: [Some(0), None],
            anchors: [DVec3::new(0.0, 0.15, 0.0), DVec3::ZERO],
            axes: [DVec3::X, DVec3::X],
            reference: DQuat::IDENTITY,
            stabilization,
        };
        (vec![bar], joint)
    }

    #[test]
    fn the_projection_takes_out_its_share_of_the_error_and_leaves_the_velocities() {
        for beta in [1.0, 0.5] {
            let (mut bodies, joint) = knocked(beta);
            let before = joint.error(&Pose::of_all(&bodies));
            let (p, l) = (bodies[0].state.p, bodies[0].state.l);
            assert!(project(&mut bodies, std::slice::from_ref(&joint)));
            let after = joint.error(&Pose::of_all(&bodies));
            let keep = 1.0 - beta;
            // To first order the error scales by 1 - beta; the Newton iterations make it exact
            // for the rows, and the norms follow to the second order of the 1 cm knock.
            assert!(
                (after.separation - keep * before.separation).abs() < 1e-4 * before.separation,
                "beta {beta}: separation {} -> {}",
                before.separation,
                after.separation
            );
            assert!(
                (after.misalignment - keep * before.misalignment).abs()
                    < 1e-3 * before.misalignment,
                "beta {beta}: misalignment {} -> {}",
                before.misalignment,
                after.misalignment
            );
            if beta == 1.0 {
                assert!(after.separation < 1e-12 && after.misalignment < 1e-12);
            }
            assert_eq!((bodies[0].state.p, bodies[0].state.l), (p, l));
        }
        // With stabilization 0 nothing moves.
        let (mut bodies, joint) = knocked(0.0);
        let x = bodies[0].state.x;
        assert!(project(&mut bodies, &[joint]));
        assert_eq!(bodies[0].state.x, x);
    }
}
