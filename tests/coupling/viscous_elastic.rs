//! scenes/viscous_elastic.toml: a block of restitution 0.95 drops onto the floor while a slab of
//! very viscous liquid (sigma = 200 1/s) falls onto it. The block's first bounce off the floor
//! keeps its restitution, no liquid leaks into it, and the energy of the whole never rises:
//! `cargo test --release --test coupling -- viscous_elastic:: --nocapture`.
use crate::common;

use sphrigid::backend::Backend;
use sphrigid::scene;
use sphrigid::sim::Simulation;
use std::path::Path;

/// The scene's block restitution.
const RESTITUTION: f64 = 0.95;

/// Set up the scene on the CPU backend.
fn setup() -> Simulation {
    let file = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenes/viscous_elastic.toml");
    let loaded = scene::load(&file, &[]).expect("the scene loads");
    Simulation::setup(&loaded, Backend::Cpu).expect("it sets up")
}

#[test]
fn the_block_bounces_off_the_floor_with_its_restitution() {
    let mut sim = setup();
    let g = sim.gravity.y.abs();
    let dt = sim.dt;
    let vy = |s: &Simulation| s.bodies[0].velocity().y;
    // Step until the block's vertical velocity turns from falling to rising: the impact.
    let mut before = vy(&sim);
    let mut bounce = None;
    for _ in 0..(sim.substeps as usize * 20) {
        sim.step().expect("the step runs");
        let now = vy(&sim);
        if before < -0.5 && now > 0.0 {
            bounce = Some((before, now));
            break;
        }
        before = now;
    }
    let (v_in, v_out) = bounce.expect("the block reaches the floor within 20 frames");
    // A body in contact takes the step's gravity as an impulse before the solve, so the
    // contact sees the approach |v_in| + g dt and sends the block back at e times that.
    let approach = -v_in + g * dt;
    let measured = v_out / approach;
    eprintln!(
        "impact at {:.4} s: in {v_in:.4} m/s, out {v_out:.4} m/s, restitution {measured:.4} \
         (scene {RESTITUTION})",
        sim.time
    );
    // Analytic: the block falls 0.1 m (0.13 m centre, 0.03 m half-height): 1.40 m/s.
    let free_fall = (2.0 * g * 0.1).sqrt();
    assert!(
        (-v_in - free_fall).abs() < 0.01 * free_fall,
        "approach {:.4} m/s, free fall gives {free_fall:.4}",
        -v_in
    );
    assert!(
        (measured - RESTITUTION).abs() < 0.01,
        "restitution {measured:.4}, the scene says {RESTITUTION}"
    );
}

#[test]
fn honey_on_an_elastic_block_neither_leaks_nor_gains_energy() {
    // The liquid's viscosity and the block's restitution below 1 only take energy out; the
    // position-level corrections may hand back a little. The allowance is 1% of the energy
    // the run has to lose (potential energy is zero on the floor).
    let mut e0 = None;
    let mut worst: f64 = f64::MIN;
    let mut last = 0.0;
    let sim = common::run_scene_without_leaks("viscous_elastic.toml", &[], 90, |sim, frame| {
        let e = sim.energy().total();
        let start = *e0.get_or_insert(e);
        let rise = (e - start) / start;
        worst = worst.max(rise);
        last = rise;
        assert!(
            rise < 0.01,
            "frame {frame}: energy {e:.4} J rose {:.2}% above its first frame's {start:.4} J",
            100.0 * rise
        );
    });
    eprintln!(
        "energy: largest rise over frame 1 {:.3}%, at the end {:.1}%",
        100.0 * worst,
        100.0 * last
    );
    // A dissipative system: by the end of 1.5 s it has lost energy.
    assert!(last < 0.0, "the energy ended {:.2}% up", 100.0 * last);
    let b = &sim.bodies[0];
    assert!(b.state.x.is_finite(), "the block's position is finite");
}
