//! Joint rows in the structured solver: free rows (a hinge to the world, a ball joint between
//! two bodies) and a hinge's limit rows beside liquid rows pressing on the same bodies. The
//! structured block-pivoting solve must give the same impulses as dense Dantzig pivoting on
//! the same problem, with every free row's w at zero.
use glam::{DQuat, DVec3};
use sphrigid::joints::{self, Joint, JointKind};
use sphrigid::lcp::{self, Options, StructuredProblem, StructuredRow, body_inverse_mass};
use sphrigid::rigid::{Primitive, RigidBody, Shape};

fn body(size: DVec3, x: DVec3, v: DVec3, w: DVec3) -> RigidBody {
    let shape = Shape::Primitive(Primitive::Box { size });
    let mut b = RigidBody::new("b", &shape, 600.0, 0.02).unwrap();
    b.state.x = x;
    b.state.q = DQuat::from_rotation_z(0.2);
    b.set_velocity(v);
    b.set_angular_velocity(w);
    b
}

#[test]
fn free_and_limit_rows_solve_like_dense_pivoting_beside_liquid_rows() {
    let bodies = vec![
        body(
            DVec3::new(0.04, 0.3, 0.2),
            DVec3::new(0.0, -0.15, 0.0),
            DVec3::new(0.3, 0.1, 0.0),
            DVec3::new(0.0, 0.5, 2.0),
        ),
        body(
            DVec3::new(0.1, 0.1, 0.1),
            DVec3::new(0.05, -0.4, 0.02),
            DVec3::new(-0.2, 0.0, 0.4),
            DVec3::new(1.0, -1.0, 0.0),
        ),
    ];
    let hinge = Joint {
        name: "hinge".into(),
        kind: JointKind::Hinge {
            limits: Some((-0.3, 0.4)),
        },
        ends: [Some(0), None],
        anchors: [
            DVec3::new(0.0, 0.15, 0.0),
            bodies[0].world_point(DVec3::new(0.0, 0.15, 0.0)),
        ],
        axes: [DQuat::from_rotation_z(-0.2) * DVec3::Z, DVec3::Z],
        reference: DQuat::from_rotation_z(0.2),
        stabilization: 1.0,
    };
    // The ball joint sits at the bar's foot, near the box's top.
    let foot = bodies[0].world_point(DVec3::new(0.0, -0.15, 0.0));
    let ball = Joint {
        name: "ball".into(),
        kind: JointKind::Ball,
        ends: [Some(0), Some(1)],
        anchors: [
            DVec3::new(0.0, -0.15, 0.0),
            bodies[1].state.q.conjugate() * (foot - bodies[1].state.x),
        ],
        axes: [DVec3::Z; 2],
        reference: DQuat::IDENTITY,
        stabilization: 1.0,
    };
    let mut prob = StructuredProblem::default();
    for b in &bodies {
        let inv = b.world_inverse_inertia().to_cols_array();
        prob.body_inv_mass.push(body_inverse_mass(b.mass(), inv));
    }
    // Liquid rows: 40 particles striking the bar's face (normal -x, the face at x = -0.02 in
    // its frame) at 1 m/s, each with its own particle term.
    let n = bodies[0].state.q * DVec3::NEG_X;
    for k in 0..40 {
        let local = DVec3::new(
            -0.02,
            -0.14 + 0.007 * k as f64,
            0.08 * ((k % 5) as f64 - 2.0) / 2.0,
        );
        let p = bodies[0].world_point(local);
        let r = p - bodies[0].state.x;
        let v_n = (DVec3::new(1.0, 0.0, 0.0) - bodies[0].point_velocity(p)).dot(-n);
        let a = r.cross(n);
        prob.particle_inv_mass.push(1.0 / 1e-3);
        prob.rows.push(
            StructuredRow::contact(-v_n.abs())
                .with_particle(k, n.to_array())
                .with_body(0, [n.x, n.y, n.z, a.x, a.y, a.z].map(|v| -v)),
        );
    }
    let liquid_rows = prob.rows.len();
    joints::append_rows(&mut prob, &bodies, &[0, 1], &[hinge, ball], 1e-3);
    assert_eq!(prob.rows.len(), liquid_rows + 7 + 3);
    let free: Vec<usize> = (liquid_rows..prob.rows.len())
        .filter(|&i| prob.rows[i].lo == f64::NEG_INFINITY)
        .collect();
    assert_eq!(free.len(), 8, "5 hinge rows and 3 ball rows are free");

    let s = lcp::block_pivot(&prob, &Options::default()).unwrap();
    let d = lcp::dantzig(&prob.to_dense(), &Options::default()).unwrap();
    assert!(
        s.is_solved() && d.is_solved(),
        "{:?} {:?}",
        s.outcome,
        d.outcome
    );
    let scale = d.z.iter().fold(0.0f64, |m, z| m.max(z.abs()));
    let diff =
        s.z.iter()
            .zip(&d.z)
            .fold(0.0f64, |m, (a, b)| m.max((a - b).abs()));
    let w = prob.w(&s.z);
    let w_free = free.iter().fold(0.0f64, |m, &i| m.max(w[i].abs()));
    let q_scale = prob.q().iter().fold(0.0f64, |m, q| m.max(q.abs()));
    eprintln!(
        "{} rows: structured and dense impulses differ by {:.2e} of the largest ({scale:.3e}); free rows' |w| up to {w_free:.2e} (q up to {q_scale:.2e}); residual {:.2e}",
        prob.rows.len(),
        diff / scale,
        s.residuals.relative()
    );
    assert!(diff <= 1e-8 * scale, "impulses differ by {diff:.3e}");
    assert!(w_free <= 1e-10 * q_scale, "free rows hold to {w_free:.3e}");
    // The liquid pushes: some liquid rows carry impulse, and the joints hold against it.
    assert!(s.z[..liquid_rows].iter().any(|&z| z > 0.0));
    assert!(free.iter().any(|&i| s.z[i].abs() > 1e-3 * scale));
}
