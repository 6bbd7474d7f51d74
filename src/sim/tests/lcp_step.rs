//! The LCP coupling step: restitution is exact, impulses conserve momentum, and a body resting
//! on the floor stays at rest.
use super::common;
use crate::boundary::{BoundaryParams, Walls};
use crate::coupling::Coupler;
use crate::liquid::params::{LiquidParams, Phase};
use crate::liquid::{CpuLiquid, Particles};
use crate::rigid::tests::top_particle;
use crate::rigid::{Primitive, RigidBody, Shape};
use crate::sim::build;
use glam::{DQuat, DVec3, Vec3A};

const S: f64 = 0.01;

fn params(walls: Option<Walls>) -> LiquidParams {
    LiquidParams {
        spacing: S as f32,
        h: 2.0 * S as f32,
        rho0: 2.67,
        gravity: Vec3A::ZERO,
        boundary: BoundaryParams::new(walls, false),
        relaxation_passes: 1,
        phases: vec![Phase {
            mass: 1e-3,
            rest_density: 1000.0,
            k_eff: 0.0,
            k_near_eff: 0.0,
            cohesion: false,
            sigma: 0.0,
            beta: 0.0,
        }],
    }
}

fn block(dynamic: bool, restitution: f64) -> RigidBody {
    block_of_density(dynamic, restitution, 500.0)
}

fn block_of_density(dynamic: bool, restitution: f64, density: f64) -> RigidBody {
    let mut b = RigidBody::new(
        "b",
        &Shape::Primitive(Primitive::Box {
            size: DVec3::new(0.1, 0.06, 0.08),
        }),
        density,
        S,
    )
    .unwrap();
    b.dynamic = dynamic;
    b.restitution = restitution;
    b
}

/// One liquid particle overlapping by 5% of a spacing the top-face particle of `b` nearest to
/// `(x, z)`, moving with `v`.
fn particle_on_top(b: &RigidBody, x: f64, z: f64, v: Vec3A) -> Particles {
    let under = top_particle(b, x, z);
    let p = b.state.x + b.state.q * (under + DVec3::Y * 0.95 * S);
    let mut parts = Particles::default();
    parts.push(Vec3A::new(p.x as f32, p.y as f32, p.z as f32), v, 0);
    parts
}

#[test]
fn a_particle_bounces_off_a_static_face_with_its_restitution() {
    // The contact's restitution is the geometric mean of the body's and the liquid's.
    for (e_body, e_liquid) in [
        (0.0f64, 1.0),
        (0.5, 0.5),
        (1.0, 1.0),
        (1.0, 0.25),
        (1.0, 0.0),
    ] {
        let e = (e_body * e_liquid).sqrt();
        let mut bodies = [block(false, e_body)];
        let p = particle_on_top(&bodies[0], 0.0, 0.0, Vec3A::new(0.3, -2.0, 0.0));
        let spec = crate::scene::CouplingSpec {
            liquid_restitution: e_liquid,
            ..Default::default()
        };
        let mut c = Coupler::new(&bodies, &build::coupling(&spec));
        let mut liquid = CpuLiquid::new(params(None), p);
        c.step(&mut liquid, &mut bodies, DVec3::ZERO, 1e-3).unwrap();
        let v = liquid.particles.vel[0];
        assert!(
            (v.y - 2.0 * e as f32).abs() < 1e-5,
            "e = {e}: normal velocity {}",
            v.y
        );
        assert!(
            (v.x - 0.3).abs() < 1e-6 && v.z.abs() < 1e-6,
            "tangential velocity kept: {v}"
        );
        assert_eq!(c.report.liquid_contacts, 1);
    }
}

/// Kinetic energy of the particles (mass `m` each) and the body.
fn kinetic(p: &Particles, b: &RigidBody, m: f64) -> f64 {
    let particles: f64 = p
        .vel
        .iter()
        .map(|v| 0.5 * m * v.length_squared() as f64)
        .sum();
    particles + b.kinetic_energy()
}

#[test]
fn elastic_impacts_on_many_contacts_at_once_never_add_energy() {
    // A light spinning block (its mass that of five particles) struck by a dozen particles at
    // once, all elastic. Newton's
    // restitution on simultaneous contacts can add energy; the coupling then withdraws the
    // bounce for that step. Either way the energy may not rise (f32 velocities: 1e-6).
    let mut rng = common::Rng::new(0x9e37_79b9_7f4a_7c15);
    let mut rand = move || f64::from(rng.sym(0.5));
    let spec = crate::scene::CouplingSpec {
        liquid_restitution: 1.0,
        ..Default::default()
    };
    let m = 1e-3;
    let mut withdrawn = 0;
    for _ in 0..40 {
        let mut b = block_of_density(true, 1.0, 10.0);
        b.state.p = DVec3::new(rand(), rand(), rand()) * b.mass();
        b.set_angular_velocity(DVec3::new(rand(), rand(), rand()) * 40.0);
        let mut bodies = [b];
        let mut p = Particles::default();
        for _ in 0..12 {
            let v = Vec3A::new(rand() as f32, (4.0 * rand() - 1.0) as f32, rand() as f32);
            let one = particle_on_top(&bodies[0], rand() * 0.09, rand() * 0.07, v);
            p.push(one.pos[0], one.vel[0], 0);
        }
        let e0 = kinetic(&p, &bodies[0], m);
        let mut c = Coupler::new(&bodies, &build::coupling(&spec));
        let mut liquid = CpuLiquid::new(params(None), p);
        c.step(&mut liquid, &mut bodies, DVec3::ZERO, 0.0).unwrap();
        let e1 = kinetic(&liquid.particles, &bodies[0], m);
        assert!(
            e1 <= e0 * (1.0 + 1e-6),
            "the impacts raised the energy from {e0:.6e} J to {e1:.6e} J"
        );
        withdrawn += usize::from(c.report.inelastic);
    }
    eprintln!("bounce withdrawn in {withdrawn} of 40 impacts");
}

#[test]
fn impulses_between_liquid_and_a_free_body_conserve_momentum() {
    let mut b = block(true, 0.5);
    b.state.q = DQuat::from_rotation_z(0.3);
    let mut bodies = [b];
    // Particles hitting off-centre, so the body also spins.
    let mut p = Particles::default();
    for (x, z) in [(0.03, 0.0), (0.04, 0.02), (-0.01, -0.03)] {
        let one = particle_on_top(&bodies[0], x, z, Vec3A::new(0.5, -3.0, 0.2));
        p.push(one.pos[0], one.vel[0], 0);
    }
    let m = 1e-3;
    let momentum = |p: &Particles, b: &RigidBody| -> (DVec3, DVec3) {
        let mut lin = b.state.p;
        let mut ang = b.state.l + b.state.x.cross(b.state.p);
        for k in 0..p.len() {
            let v = DVec3::new(p.vel[k].x as f64, p.vel[k].y as f64, p.vel[k].z as f64) * m;
            let x = DVec3::new(p.pos[k].x as f64, p.pos[k].y as f64, p.pos[k].z as f64);
            lin += v;
            ang += x.cross(v);
        }
        (lin, ang)
    };
    let (lin0, ang0) = momentum(&p, &bodies[0]);
    let mut c = Coupler::new(&bodies, &build::coupling(&Default::default()));
    // Measure right after the impulses: a zero step moves nothing.
    let mut liquid = CpuLiquid::new(params(None), p);
    c.step(&mut liquid, &mut bodies, DVec3::ZERO, 0.0).unwrap();
    let (lin1, ang1) = momentum(&liquid.particles, &bodies[0]);
    assert_eq!(c.report.liquid_contacts, 3);
    assert!(
        bodies[0].state.l.length() > 0.0,
        "the off-centre hits spin the body"
    );
    // f32 particle velocities: the exchange is exact to f32 rounding of ~1e-3 kg m/s.
    assert!(
        (lin1 - lin0).length() < 1e-8,
        "linear momentum changed by {}",
        (lin1 - lin0).length()
    );
    assert!(
        (ang1 - ang0).length() < 1e-9,
        "angular momentum changed by {}",
        (ang1 - ang0).length()
    );
}

#[test]
fn a_box_resting_on_the_floor_stays_at_rest_for_1000_steps() {
    let r = (S / 2.0) as f32;
    let walls = Walls {
        lo: Vec3A::splat(r),
        hi: Vec3A::splat(1.0 - r),
        restitution: 0.0,
        friction: 0.0,
        drag: 0.0,
        drag_reach: 0.0,
    };
    let mut b = block(true, 0.5);
    b.friction = 0.5;
    // Resting exactly on the floor: the bottom particles' spheres touch y = 0.
    let bottom = b
        .clump
        .positions
        .iter()
        .map(|p| p.y)
        .fold(f64::MAX, f64::min);
    b.state.x = DVec3::new(0.5, -bottom + S / 2.0, 0.5);
    let start = b.state.x;
    let mut bodies = [b];
    let mut liquid = CpuLiquid::new(params(Some(walls)), Particles::default());
    let mut c = Coupler::new(&bodies, &build::coupling(&Default::default()));
    let g = DVec3::new(0.0, -9.81, 0.0);
    let dt = 1e-3;
    let mut worst = 0.0f64;
    for _ in 0..1000 {
        c.step(&mut liquid, &mut bodies, g, dt).unwrap();
        worst = worst.max((bodies[0].state.x - start).length());
    }
    let b = &bodies[0];
    // No drift: within 1% of a particle spacing; no jitter: the speed stays below what gravity
    // gives in one step.
    assert!(worst < 0.01 * S, "the box moved up to {worst} m");
    assert!(
        b.velocity().length() < 9.81 * dt,
        "speed {}",
        b.velocity().length()
    );
    assert!(
        b.angular_velocity().length() < 1e-6,
        "spin {}",
        b.angular_velocity().length()
    );
}
