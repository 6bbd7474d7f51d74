//! With no walls and no gravity, relaxation and viscosity exchange momentum between particles
//! only: the total changes by no more than float round-off.
use crate::common;
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

#[test]
fn a_free_blob_in_flight_keeps_its_momentum() {
    // A blob with no container and no gravity, all of it moving at 0.2 m/s along x, spreads
    // (its pressure is clamped at zero, its near pressure pushes its surface out) while it
    // flies from x = 0 to past 0.125 m, where a position's ulp is 1.5e-8 m. The relaxation
    // moves the particles of a pair by equal and opposite sub-ulp amounts; velocities taken
    // from the rounded positions, (x - x_prev)/dt, lost those on the front (farther from the
    // origin, coarser ulp) more than on the back: the blob lost 1.4% of its speed in 0.5 s and
    // gained -3.7e-5 m/s across it, at any viscosity. Its momentum now changes by f32
    // round-off of its velocities only.
    let side = 0.02f64;
    let scene = common::scene(&format!(
        "gravity = [0, 0, 0]\n[time]\nfps = 100\n[solver]\nsettle = false\n[[liquid]]\n\
         min = [{}, 0, 0]\nmax = [{}, {side}, {side}]\nspacing = {}\n\
         viscosity = {{ sigma = 1000 }}\n",
        -2.0 * side,
        2.0 * side,
        side / 8.0
    ));
    let mut sim = Simulation::new(&scene.scene);
    let u0 = 0.2f32;
    for v in sim.liquid.particles_mut().vel.iter_mut() {
        v.x = u0;
    }
    let mean = |s: &Simulation| -> DVec3 {
        let p = s.particles();
        p.vel.iter().map(|v| v.as_dvec3()).sum::<DVec3>() / p.len() as f64
    };
    let steps = (0.5 / sim.dt).round() as usize;
    for _ in 0..steps {
        sim.step().unwrap();
    }
    let p = sim.particles();
    let (lo, hi) = p.pos.iter().fold((f32::MAX, f32::MIN), |(lo, hi), x| {
        (lo.min(x.x), hi.max(x.x))
    });
    let u = mean(&sim);
    eprintln!(
        "{} particles, {steps} steps: mean velocity ({:.7}, {:.2e}, {:.2e}) m/s; x from {lo:.4} to {hi:.4} m",
        p.len(),
        u.x,
        u.y,
        u.z
    );
    // The blob spread (to twice its length) and crossed into coarser binades.
    assert!(
        hi - lo > 1.5 * 4.0 * side as f32 && hi > 0.125,
        "x {lo}..{hi}"
    );
    assert!(
        (u.x / u0 as f64 - 1.0).abs() < 1e-4,
        "mean speed {} m/s after 0.5 s, from {u0}",
        u.x
    );
    assert!(
        u.y.abs().max(u.z.abs()) < 1e-6,
        "the blob gained a sideways velocity {u}"
    );
}
