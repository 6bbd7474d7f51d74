//! Liquid at rest in a box settles: the particles come to rest, the free surface is flat, the
//! count is conserved and no particle leaves the container.
use crate::common;
use sphrigid::sim::Simulation;

#[test]
fn liquid_in_a_box_settles_flat_and_stays_inside() {
    // The lattice's rest density: the bulk packs closer than it was filled (docs/src/validation.md).
    let off = settle_box(false);
    assert!(
        off.abs() < 0.5,
        "the free surface is {off:+.3} spacings from the height its volume gives"
    );
}

#[test]
fn with_the_packed_rest_density_still_water_keeps_its_volume() {
    // `[solver] packed_rest`: the rest density of the packing the liquid settles into.
    let off = settle_box(true);
    assert!(
        off.abs() < 0.1,
        "the free surface is {off:+.3} spacings from the height its volume gives"
    );
}

/// Settle 15 x 7 x 15 particles, 4 mm apart, in a 6 cm box for 2 s (a little viscosity damps
/// the sloshing), assert that they stay inside, come to rest and lie flat, and return the free
/// surface's distance from the height the volume gives, in spacings.
fn settle_box(packed_rest: bool) -> f32 {
    let scene = common::scene(&format!(
        r#"
        [time]
        fps = 50
        [solver]
        packed_rest = {packed_rest}
        [container]
        min = [0, 0, 0]
        max = [0.06, 0.06, 0.06]
        [[liquid]]
        min = [0, 0, 0]
        max = [0.06, 0.028, 0.06]
        spacing = 0.004
        viscosity = {{ sigma = 20 }}
        "#
    ));
    let mut sim = Simulation::new(&scene.scene);
    let n = sim.particles().len();
    assert_eq!(n, 15 * 7 * 15);
    let s = sim.liquid.params().spacing;
    let r = s / 2.0;
    for _frame in 0..100 {
        sim.advance_frame().unwrap();
        for x in &sim.particles().pos {
            // Particle centres keep a radius from every wall (f32 rounding allowed).
            assert!(
                x.min_element() >= r - 1e-6 && x.max_element() <= 0.06 - r + 1e-6,
                "{x} left the box"
            );
        }
    }
    assert_eq!(sim.particles().len(), n);
    let p = sim.particles();
    // At rest: the fastest particle moves below 3% of the gravity-wave speed sqrt(g H).
    let vmax = p.vel.iter().map(|v| v.length()).fold(0.0f32, f32::max);
    let wave = (9.81f32 * 0.028).sqrt();
    assert!(
        vmax < 0.03 * wave,
        "max speed {vmax} m/s after 2 s (limit {})",
        0.03 * wave
    );
    // Flat: the top particle of each 1 cm x 1 cm column lies within half a spacing of the mean.
    let mut tops = std::collections::BTreeMap::new();
    for x in &p.pos {
        let key = ((x.x / 0.01) as i32, (x.z / 0.01) as i32);
        let top = tops.entry(key).or_insert(f32::MIN);
        *top = top.max(x.y);
    }
    let mean = tops.values().sum::<f32>() / tops.len() as f32;
    let worst = tops
        .values()
        .map(|t| (t - mean).abs())
        .fold(0.0f32, f32::max);
    assert!(
        worst < 0.5 * s,
        "surface height varies by {worst} m around {mean} m"
    );
    // The liquid's level matches its volume within two spacings (no gas-like expansion).
    assert!(
        (mean - 0.028).abs() < 2.0 * s,
        "surface at {mean} m, expected near 0.028 m"
    );
    // The free surface, the top layer's mean height plus a particle radius, against the height
    // its volume gives (n s^3 over the box's floor).
    let mut y: Vec<f32> = p.pos.iter().map(|x| x.y).collect();
    y.sort_by(|a, b| b.total_cmp(a));
    let layer = 15 * 15;
    let surface = y[..layer].iter().sum::<f32>() / layer as f32 + r;
    let volume_height = n as f32 * s.powi(3) / (0.06 * 0.06);
    let off = (surface - volume_height) / s;
    eprintln!(
        "packed_rest = {packed_rest}: free surface {off:+.3} spacings from the height its volume gives"
    );
    off
}
