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

#[test]
#[ignore = "validation tier (a metre of water): cargo test -- --include-ignored"]
fn a_metre_tall_column_with_the_derived_stiffness_is_one_percent_dense_at_its_bottom() {
    // 10 x 50 x 10 particles at 2 cm, every other setting the default: the derived stiffness
    // (`scene::stiffness::default_stiffness`, here 100 g H = 981 m^2/s^2) compresses the bottom by
    // g H / k = 1%; the default 100 m^2/s^2 leaves 8% there and the surface 6% short.
    let scene = common::scene(
        r#"
        [time]
        fps = 20
        [solver]
        derived_stiffness = true
        [container]
        min = [0, 0, 0]
        max = [0.2, 1.2, 0.2]
        [[liquid]]
        min = [0, 0, 0]
        max = [0.2, 1.0, 0.2]
        spacing = 0.02
        viscosity = { sigma = 5 }
        "#,
    );
    assert!((scene.scene.liquid[0].stiffness.unwrap() - 981.0).abs() < 1e-9);
    let mut sim = Simulation::new(&scene.scene);
    let rho0 = sim.liquid.params().rho0 as f64;
    let s = sim.liquid.params().spacing;
    // Kernel sums over rho0 in the bottom three layers, and the top layer's mean height plus a
    // radius, averaged over the frames of the second half second.
    let (mut bottom, mut surface, mut frames) = (0.0f64, 0.0f64, 0);
    for frame in 0..20 {
        sim.advance_frame().unwrap();
        if frame < 10 {
            continue;
        }
        let p = sim.particles();
        let low: Vec<f64> = (p.pos.iter().zip(&p.rho))
            .filter(|(x, _)| x.y < 3.0 * s)
            .map(|(_, r)| *r as f64 / rho0)
            .collect();
        bottom += low.iter().sum::<f64>() / low.len() as f64;
        let mut y: Vec<f32> = p.pos.iter().map(|x| x.y).collect();
        y.sort_by(|a, b| b.total_cmp(a));
        surface += (y[..100].iter().sum::<f32>() / 100.0 + s / 2.0) as f64;
        frames += 1;
    }
    let (bottom, surface) = (bottom / frames as f64, surface / frames as f64);
    eprintln!("bottom density {bottom:.4} rho0, surface {surface:.4} m (filled to 1 m)");
    // The bottom three layers lie 0.95 to 1 m deep: 0.95% to 1% by g H / k.
    assert!(
        (bottom - 1.0).abs() < 0.015,
        "the bottom's density is {bottom:.4} rho0 (limit 1.5%)"
    );
    // Half the bottom's compression on average (0.5%), and the lattice's shear into a closer
    // packing (the rest density's open part of issue 54): 2.0% today; about 5% with 100 m^2/s^2.
    assert!(
        (surface - 1.0).abs() < 0.025,
        "the surface stands at {surface:.4} m, filled to 1 m (limit 2.5%)"
    );
}
