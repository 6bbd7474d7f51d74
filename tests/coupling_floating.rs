//! Floating bodies in a thin-slab tank (liquid spacing 2.5 mm, five particles deep between the
//! front and back walls, a box 0.04 x 0.02 m spanning the slab, frictionless against the
//! walls): a buoyant box on a film of one liquid layer over the floor is held up by it (it no
//! longer sinks through the film at the closing speed of a wedged row), and a floating box
//! released below its equilibrium overshoots it and oscillates, with the period that its
//! added mass gives. No liquid leaks into the box at any frame.
mod common;

use sphrigid::backend::Backend;
use sphrigid::coupling::leak::LeakCheck;
use sphrigid::sim::Simulation;

/// The liquid's spacing, m.
const D: f64 = 0.0025;
/// The slab's depth between its front and back walls (five layers), m.
const SLAB: f64 = 5.0 * D;
/// The box's width and height, m.
const B: f64 = 0.04;
const H: f64 = 0.02;
/// The tank's width and the liquid's initial depth, m.
const TANK: f64 = 0.12;
const DEPTH: f64 = 0.052;
const RHO: f64 = 1000.0;
const G: f64 = 9.81;

/// The box's centre height after every frame (60 fps) of a slab tank holding a box of density
/// ratio `s` whose centre starts at `y0`.
fn heights(s: f64, y0: f64, frames: u32) -> Vec<f64> {
    let text = format!(
        r#"
[time]
fps = 60
frames = {frames}
[container]
min = [0, 0, 0]
max = [{TANK}, 0.08, {SLAB}]
[[liquid]]
min = [0, 0, 0]
max = [{TANK}, {DEPTH}, {SLAB}]
spacing = {D}
viscosity = {{ sigma = 10.0 }}
[[body]]
name = "box"
shape = {{ type = "box", size = [{B}, {H}, {SLAB}] }}
position = [{x}, {y0}, {z}]
density = {rho}
friction = 0.0
"#,
        x = TANK / 2.0,
        z = SLAB / 2.0,
        rho = s * RHO
    );
    let loaded = common::scene(&text);
    let mut sim = Simulation::setup(&loaded, Backend::Cpu).expect("it sets up");
    let check = LeakCheck::new(&sim.bodies);
    let mut ys = Vec::new();
    for frame in 1..=frames {
        sim.advance_frame().expect("the frame runs");
        if let Some(leak) = check.deepest(sim.particles(), &sim.bodies) {
            assert!(
                leak.depth <= 0.1 * D,
                "frame {frame}: liquid particle {} lies {:.3} spacings inside the box",
                leak.id,
                leak.depth / D
            );
        }
        ys.push(sim.bodies[0].state.x.y);
    }
    ys
}

#[test]
#[ignore = "validation tier: cargo test -- --include-ignored"]
fn a_buoyant_box_on_a_film_one_layer_thick_is_held_up_by_it() {
    // Density ratio 0.8, its underside one spacing above the floor: one layer of liquid
    // under it. Before, the rows through that layer (the floor holds its particles) let the
    // box close on it at 1% of 2 g dt a step, and it sank through the film at 3.5e-5 m/s.
    let start = D + H / 2.0;
    let ys = heights(0.8, start, 30);
    let low = ys.iter().copied().fold(f64::MAX, f64::min);
    let high = ys.iter().copied().fold(f64::MIN, f64::max);
    eprintln!(
        "over 0.5 s the box's underside stays between {:+.2e} and {:+.2e} m of one layer",
        low - start,
        high - start
    );
    // Sinking at the old rate would take it 1.7e-5 m lower by the end.
    assert!(
        low - start > -1e-6,
        "the box sinks through the film by {:.2e} m",
        start - low
    );
}

#[test]
#[ignore = "validation tier: cargo test -- --include-ignored"]
fn a_floating_box_released_below_its_equilibrium_oscillates_about_it() {
    // Density ratio 0.5, released at rest with its underside two Archimedes drafts below the
    // surface (one draft deeper than Archimedes' equilibrium).
    let s = 0.5;
    let frames = 54;
    let start = DEPTH - 2.0 * s * H + H / 2.0;
    let ys = heights(s, start, frames);
    // The run's own equilibrium: the mean height after the first rise (frames 10 to 54).
    let tail = &ys[9..];
    let eq = tail.iter().sum::<f64>() / tail.len() as f64;
    let offset = eq - start;
    let peak = ys.iter().copied().fold(f64::MIN, f64::max);
    let overshoot = (peak - eq) / offset;
    // Crossings of the equilibrium, at frame times linearly interpolated.
    let crossings: Vec<f64> = ys
        .windows(2)
        .enumerate()
        .filter(|(_, w)| (w[0] - eq) * (w[1] - eq) < 0.0)
        .map(|(i, w)| (i as f64 + 1.0 + (eq - w[0]) / (w[1] - w[0])) / 60.0)
        .collect();
    // The extremes between crossings, as distances from the equilibrium: their decay is the
    // damping (the energy left after each half swing is the square of their ratio).
    let mut swings = Vec::new();
    let mut k = 0;
    while k < ys.len() {
        let side = (ys[k] - eq).signum();
        let end = (k..ys.len())
            .find(|&j| (ys[j] - eq).signum() != side)
            .unwrap_or(ys.len());
        let far = ys[k..end]
            .iter()
            .map(|y| (y - eq).abs())
            .fold(0.0, f64::max);
        swings.push(far * 1e3);
        k = end;
    }
    eprintln!("swings about the equilibrium, mm: {swings:.2?}");
    let oscillations = (crossings.len().saturating_sub(1)) as f64 / 2.0;
    let period =
        2.0 * (crossings[crossings.len() - 1] - crossings[0]) / (crossings.len() - 1) as f64;
    // Heave of a wall-sided box: stiffness rho g B Z, mass m plus the added mass of a flat
    // plate of width B at a free surface, rho pi B^2 Z / 8 (half a plate's in open liquid).
    let m = s * RHO * B * H * SLAB;
    let added = RHO * std::f64::consts::PI * B * B * SLAB / 8.0;
    let k = RHO * G * B * SLAB;
    let expected = 2.0 * std::f64::consts::PI * ((m + added) / k).sqrt();
    eprintln!(
        "equilibrium {eq:.5} m ({:.3} of Archimedes' draft below the initial surface, which the liquid removed from the submerged box lowers), offset \
         {offset:.5} m, overshoot {:.0}% of it, {oscillations} oscillations, period {period:.3} s \
         (added-mass estimate {expected:.3} s, added mass {:.2} m)",
        (DEPTH - (eq - H / 2.0)) / (s * H),
        overshoot * 100.0,
        added / m
    );
    assert!(offset > 0.0, "the box does not rise from where it starts");
    assert!(
        overshoot >= 0.15,
        "the box overshoots its equilibrium by only {:.0}% of the offset",
        overshoot * 100.0
    );
    assert!(
        oscillations >= 2.0,
        "only {oscillations} oscillations about the equilibrium"
    );
    assert!(
        (period / expected - 1.0).abs() < 0.15,
        "period {period:.3} s, the added-mass estimate {expected:.3} s"
    );
}
