//! The body API the coupling uses: frames, particles, impulses and stepping.
use glam::{DMat3, DQuat, DVec2, DVec3};
use sphrigid::rigid::mesh::extrude_polygon;
use sphrigid::rigid::{Integrator, MeshSolid, Primitive, RigidBody, Shape};

fn l_shape_body() -> RigidBody {
    // An L prism whose centre of mass is off its mesh origin.
    let poly = [
        (0.0, 0.0),
        (2.0, 0.0),
        (2.0, 0.5),
        (0.5, 0.5),
        (0.5, 1.5),
        (0.0, 1.5),
    ]
    .map(|(x, y)| DVec2::new(x, y));
    let mut m = extrude_polygon(&poly, 0.4).unwrap();
    m.validate("L").unwrap();
    RigidBody::new("L", &Shape::Mesh(MeshSolid::new(m)), 800.0, 0.05).unwrap()
}

#[test]
fn body_frame_is_centred_on_the_exact_centre_of_mass() {
    let b = l_shape_body();
    // Areas: 2 x 0.5 = 1 at (1, 0.25) and 0.5 x 1 = 0.5 at (0.25, 1) -> com (0.75, 0.5).
    assert!((b.mass() - 800.0 * 1.5 * 0.4).abs() < 1e-9);
    assert!((b.clump.mass() - b.mass()).abs() < 1e-9 * b.mass());
    let (lo, hi) = b.surface.bounds();
    assert!(
        (lo - DVec3::new(-0.75, -0.5, -0.2)).length() < 1e-12,
        "{lo}"
    );
    assert!((hi - DVec3::new(1.25, 1.0, 0.2)).length() < 1e-12, "{hi}");
    // The clump's own centre of mass lies within a fraction of the spacing of the origin.
    let c = b.clump.mass_properties();
    assert!(
        c.com.length() < 0.25 * b.clump.spacing,
        "clump com {}",
        c.com
    );
    // The inverse inertia is the inverse, and the L has a product of inertia.
    let prod = b.inertia.body * b.inertia.body_inv;
    assert!((prod - DMat3::IDENTITY).abs_diff_eq(DMat3::ZERO, 1e-12));
    assert!(
        b.inertia.body.y_axis.x.abs() > 1.0,
        "L has a product of inertia"
    );
}

#[test]
fn world_quantities_follow_the_pose() {
    let mut b = l_shape_body();
    let q = DQuat::from_axis_angle(DVec3::new(1.0, 2.0, 3.0).normalize(), 0.7);
    b.state.q = q;
    b.state.x = DVec3::new(1.0, -2.0, 3.0);
    let r = DMat3::from_quat(q);
    let world = b.world_particle_positions();
    for (w, p) in world.iter().zip(&b.clump.positions) {
        assert!((*w - (b.state.x + r * *p)).length() < 1e-12);
    }
    let iw = b.world_inertia();
    assert!((iw - r * b.inertia.body * r.transpose()).abs_diff_eq(DMat3::ZERO, 1e-9));
    assert!((iw * b.world_inverse_inertia() - DMat3::IDENTITY).abs_diff_eq(DMat3::ZERO, 1e-12));
    let w = DVec3::new(0.3, -1.0, 2.0);
    b.set_angular_velocity(w);
    assert!((b.angular_velocity() - w).length() < 1e-12);
    let normals = b.world_particle_normals();
    for ((n, s), nb) in normals.iter().zip(&b.clump.surface).zip(&b.clump.normals) {
        if *s {
            assert!((*n - r * *nb).length() < 1e-12 && (n.length() - 1.0).abs() < 1e-12);
        }
    }
}

#[test]
fn impulse_at_a_point_changes_linear_and_angular_velocity() {
    let mut b = l_shape_body();
    b.state.q = DQuat::from_rotation_z(0.4);
    let at = b.state.x + DVec3::new(0.5, 0.2, -0.1);
    let j = DVec3::new(0.0, 3.0, 1.0);
    let (v0, w0) = (b.velocity(), b.angular_velocity());
    let pv0 = b.point_velocity(at);
    b.apply_impulse(j, at);
    assert!((b.velocity() - v0 - j / b.mass()).length() < 1e-12);
    let dw = b.world_inverse_inertia() * (at - b.state.x).cross(j);
    assert!((b.angular_velocity() - w0 - dw).length() < 1e-12);
    // The point's velocity change is K j with K = 1/m + [r]^T I^-1 [r] (positive definite).
    let dv = b.point_velocity(at) - pv0;
    assert!(dv.dot(j) > 0.0);
    // A static body ignores impulses and steps.
    b.dynamic = false;
    let s = b.state;
    b.apply_impulse(j, at);
    b.step(0.1, DVec3::new(0.0, 0.0, -9.81), DVec3::X);
    assert_eq!(b.state, s);
    assert_eq!(b.inverse_mass(), 0.0);
    assert_eq!(b.world_inverse_inertia(), DMat3::ZERO);
}

#[test]
fn free_fall_is_exact_for_rk4_and_midpoint_and_first_order_for_euler() {
    let g = DVec3::new(0.0, 0.0, -9.81);
    let (dt, n) = (0.01, 100);
    let t = dt * n as f64;
    let v0 = DVec3::new(1.0, 0.5, 2.0);
    let expect = v0 * t + 0.5 * g * t * t;
    for integ in Integrator::ALL {
        let mut b = l_shape_body();
        b.integrator = integ;
        b.set_velocity(v0);
        for _ in 0..n {
            let f = g * b.mass();
            b.step(dt, f, DVec3::ZERO);
        }
        let err = (b.state.x - expect).length();
        assert!((b.velocity() - (v0 + g * t)).length() < 1e-12);
        match integ {
            Integrator::ExplicitEuler => {
                // x uses the old velocity: error g t dt / 2.
                assert!((err - 9.81 * t * dt / 2.0).abs() < 1e-9, "{err}")
            }
            _ => assert!(err < 1e-12, "{integ:?}: {err}"),
        }
    }
}

#[test]
fn spin_about_a_principal_axis_rotates_the_body_at_that_rate() {
    let shape = Shape::Primitive(Primitive::Cylinder {
        radius: 0.3,
        height: 1.0,
    });
    let w = 2.0;
    let (dt, n) = (0.005, 400);
    for integ in Integrator::ALL {
        let mut b = RigidBody::new("c", &shape, 1000.0, 0.05).unwrap();
        b.integrator = integ;
        let q0 = DQuat::from_axis_angle(DVec3::new(1.0, 1.0, 0.0).normalize(), 0.5);
        b.state.q = q0;
        // Spin about the body z axis (the symmetry axis), a principal axis.
        b.set_angular_velocity(q0 * DVec3::new(0.0, 0.0, w));
        for _ in 0..n {
            b.step(dt, DVec3::ZERO, DVec3::ZERO);
        }
        let expect = q0 * DQuat::from_rotation_z(w * dt * n as f64);
        let err = b.state.q.angle_between(expect);
        // Midpoint (Cayley) lags by (w dt)^2/12 per radian: 1e-5 of 4 rad; Euler's per-step
        // normalisation loses (w dt)^2/3 per radian.
        let tol = match integ {
            Integrator::Rk4 => 1e-10,
            Integrator::ImplicitMidpoint => 1e-4,
            Integrator::ExplicitEuler => 1e-3,
        };
        assert!(err < tol, "{integ:?}: {err}");
        assert!(
            (b.angular_velocity() - q0 * DVec3::new(0.0, 0.0, w)).length() < 1e-9
                || integ == Integrator::ExplicitEuler
        );
    }
}

#[test]
fn torque_impulse_gives_the_expected_angular_velocity() {
    let shape = Shape::Primitive(Primitive::Box {
        size: DVec3::new(1.0, 2.0, 3.0),
    });
    let mut b = RigidBody::new("b", &shape, 1.0, 0.25).unwrap();
    b.apply_angular_impulse(DVec3::new(0.0, 5.0, 0.0));
    // I_yy = 5 for the 1 x 2 x 3 box of density 1.
    assert!((b.angular_velocity() - DVec3::Y).length() < 1e-12);
    // A constant torque over a step adds N dt to L: exactly for Euler and the midpoint rule
    // (torque as half impulses), to RK4's truncation error (it integrates in the body frame).
    for integ in Integrator::ALL {
        let mut c = b.clone();
        c.integrator = integ;
        c.step(0.01, DVec3::ZERO, DVec3::new(0.0, 0.0, 2.0));
        let tol = if integ == Integrator::Rk4 {
            1e-9
        } else {
            1e-14
        };
        assert!(
            (c.state.l - DVec3::new(0.0, 5.0, 0.02)).length() < tol,
            "{integ:?} {}",
            c.state.l
        );
    }
}

#[test]
fn midpoint_splits_steps_too_large_for_its_fixed_point_and_still_conserves() {
    let shape = Shape::Primitive(Primitive::Box {
        size: DVec3::new(1.0, 2.0, 3.0),
    });
    let mut b = RigidBody::new("b", &shape, 1.0, 0.25).unwrap();
    b.integrator = Integrator::ImplicitMidpoint;
    b.set_angular_velocity(DVec3::new(3.0, 10.0, -4.0));
    let (e0, l0) = (b.kinetic_energy(), b.state.l);
    // dt |w| = 5.4: one step of 0.5 s needs splitting.
    for _ in 0..20 {
        b.step(0.5, DVec3::ZERO, DVec3::ZERO);
    }
    assert!((b.kinetic_energy() / e0 - 1.0).abs() < 1e-12);
    assert!((b.state.l - l0).length() < 1e-12 * l0.length());
    assert!(b.state.q.is_normalized());
}
