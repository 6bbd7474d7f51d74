//! With no walls and no gravity, relaxation and viscosity exchange momentum between particles
//! only: the total changes by no more than float round-off.
mod common;
use glam::DVec3;
use sphrigid::sim::Simulation;

/// Every particle's velocity, in id order.
fn velocities_by_id(sim: &Simulation) -> Vec<glam::Vec3A> {
    let p = sim.particles();
    p.slots_by_id().iter().map(|&k| p.vel[k as usize]).collect()
}

#[test]
fn relaxation_and_viscosity_conserve_momentum() {
    // A block squeezed to 80% spacing (large pressures), with cohesion (negative pressures too),
    // strong viscosity and a shear flow plus a swirl so that every term is active.
    let scene = common::scene(
        r#"
        gravity = [0, 0, 0]
        [time]
        fps = 100
        substeps = 20
        [[liquid]]
        min = [0, 0, 0]
        max = [0.08, 0.08, 0.08]
        spacing = 0.008
        stiffness = 200
        near_stiffness = 20
        cohesion = true
        viscosity = { sigma = 5, beta = 2 }
        "#,
    );
    let mut sim = Simulation::new(&scene.scene);
    let p = sim.liquid.particles_mut();
    for i in 0..p.len() {
        let x = p.pos[i];
        p.pos[i] = x * 0.8;
        p.vel[i] = glam::Vec3A::new(
            x.y * 10.0 - 0.4,
            -x.x * 10.0 + 0.4,
            (x.x - 0.04) * (x.y - 0.04) * 300.0,
        );
    }
    let mass = sim.liquid.params().phases[0].mass as f64;
    let momentum = |s: &Simulation| -> DVec3 {
        s.particles()
            .vel
            .iter()
            .map(|v| DVec3::new(v.x as f64, v.y as f64, v.z as f64) * mass)
            .sum()
    };
    let start = momentum(&sim);
    let mut exchanged = 0.0f64; // sum over steps and particles of m |dv|
    for _ in 0..100 {
        let before = velocities_by_id(&sim);
        sim.step().unwrap();
        let after = velocities_by_id(&sim);
        exchanged += before
            .iter()
            .zip(&after)
            .map(|(a, b)| (*b - *a).length() as f64 * mass)
            .sum::<f64>();
    }
    let drift = (momentum(&sim) - start).length();
    // f32 round-off: each particle's change carries a relative error of a few ulps per term.
    let bound = 1e-5 * exchanged;
    assert!(
        exchanged > 1e-3,
        "the test must exchange momentum (exchanged {exchanged})"
    );
    assert!(
        drift <= bound,
        "momentum drifted by {drift:e} kg m/s; round-off bound {bound:e}"
    );
}
