//! Collapse of a liquid column against Martin & Moyce (1952), n^2 = 2: the surge front Z = x/a
//! over T = t sqrt(2g/a) stays within 10% of the measured front for T in [1.5, 3.3].
mod common;
use sphrigid::sim::Simulation;

const A: f64 = 0.05715;
const G: f64 = 9.81;
/// Shift of the time origin between the experiment and the simulation, in units of T: the
/// experiment's gate took time to clear, so its early points lag. The same at every resolution.
const T_SHIFT: f64 = 0.2;

fn measured() -> Vec<(f64, f64)> {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../shared/reference/martin_moyce_1952.csv"
    ))
    .or_else(|_| {
        std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/data/martin_moyce_1952.csv"
        ))
    })
    .expect("the Martin & Moyce data is readable");
    text.lines()
        .filter(|l| !l.starts_with('#') && !l.starts_with('T'))
        .filter_map(|l| l.split_once(','))
        .map(|(t, z)| (t.trim().parse().unwrap(), z.trim().parse().unwrap()))
        .collect()
}

/// The leading edge of the liquid: the largest x of a particle that is part of the bulk (kernel
/// sum at least 30% of the rest value), so that a lone splashed particle does not count.
fn front(sim: &Simulation) -> f64 {
    let rho0 = sim.liquid.params().rho0;
    let p = sim.particles();
    (0..p.len())
        .filter(|&i| p.rho[i] >= 0.3 * rho0)
        .map(|i| p.pos[i].x as f64)
        .fold(0.0, f64::max)
}

/// Simulate a column of width a and height 2a in a thin tank at `n` particles across a, and
/// return (T, simulated Z, measured Z) at every measured point in the window.
fn collapse(n: u32) -> Vec<(f64, f64, f64)> {
    let s = A / n as f64;
    let scene = common::scene(&format!(
        r#"
        [time]
        fps = 1000
        [container]
        min = [0, 0, 0]
        max = [0.4, 0.16, {depth}]
        [[liquid]]
        min = [0, 0, 0]
        max = [{A}, {h}, {depth}]
        spacing = {s}
        "#,
        depth = 7.0 * s,
        h = 2.0 * A,
    ));
    let mut sim = Simulation::new(&scene.scene);
    let t_scale = (2.0 * G / A).sqrt();
    let mut out = Vec::new();
    for (t_meas, z_meas) in measured() {
        if !(1.5..=3.3).contains(&t_meas) {
            continue;
        }
        let t_sim = (t_meas - T_SHIFT) / t_scale;
        while sim.time < t_sim {
            sim.step().unwrap();
        }
        out.push((t_meas, front(&sim) / A, z_meas));
    }
    out
}

fn check(n: u32) {
    let rows = collapse(n);
    assert!(
        rows.len() >= 8,
        "the window holds {} measured points",
        rows.len()
    );
    let mut worst = 0.0f64;
    for (t, z, zm) in &rows {
        let err = (z - zm).abs() / zm;
        eprintln!(
            "a/{n}: T = {t:.2}  Z = {z:.3}  measured {zm:.2}  error {:.1}%",
            100.0 * err
        );
        worst = worst.max(err);
    }
    assert!(
        worst < 0.10,
        "at a/{n} the front is off by up to {:.1}%",
        100.0 * worst
    );
}

#[test]
fn surge_front_matches_martin_moyce_at_16_particles_across() {
    check(16);
}

#[test]
fn surge_front_matches_martin_moyce_at_24_particles_across() {
    check(24);
}

#[test]
#[ignore = "validation tier (the convergence study): cargo test -- --include-ignored"]
fn surge_front_at_32_and_40_particles_across() {
    check(32);
    check(40);
}
