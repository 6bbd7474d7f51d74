//! scenes/chain.toml, six boxes on ball joints hanging from the world: over 10,000 steps the
//! joints hold (anchor separation far below 1e-4 m) and the energy stays bounded; with the
//! drift correction turned off they drift apart; a run writes every joint's error per frame.
use sphrigid::backend::Backend;
use sphrigid::joints::Pose;
use sphrigid::output::joint_errors;
use sphrigid::sim::Simulation;
use std::path::{Path, PathBuf};

use crate::common;

fn chain() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("scenes/chain.toml")
}

/// Energy of the bodies: kinetic plus potential in gravity along -y.
fn energy(sim: &Simulation) -> f64 {
    let g = -sim.gravity.y;
    sim.bodies
        .iter()
        .map(|b| b.kinetic_energy() + b.mass() * g * b.state.x.y)
        .sum()
}

/// Step the chain `steps` times with the overrides `sets`; returns the largest anchor
/// separation after any step, the energies after every step, and the largest kinetic energy.
fn run(sets: &[String], steps: usize) -> (f64, Vec<f64>, f64) {
    let file = chain();
    let loaded = sphrigid::scene::load(&file, sets).expect("the scene loads");
    let mut sim = Simulation::setup(&loaded, Backend::Cpu).expect("it sets up");
    assert_eq!(sim.joints().len(), 6);
    let (mut worst, mut energies, mut kinetic) = (0.0f64, Vec::new(), 0.0f64);
    for _ in 0..steps {
        sim.step().expect("the step runs");
        let poses = Pose::of_all(&sim.bodies);
        for j in sim.joints() {
            worst = worst.max(j.error(&poses).separation);
        }
        energies.push(energy(&sim));
        kinetic = kinetic.max(sim.bodies.iter().map(|b| b.kinetic_energy()).sum());
    }
    (worst, energies, kinetic)
}

#[test]
fn the_chain_holds_together_over_10000_steps() {
    let (worst, e, kinetic) = run(&[], 10_000);
    // The first step projects the push given to the last link onto what the joints allow;
    // from then on nothing but round-off and the scheme's O(dt) energy oscillation.
    let e1 = e[0];
    let swing = e.iter().fold(0.0f64, |m, x| m.max((x - e1).abs()));
    let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len() as f64;
    let trend = mean(&e[9000..]) - mean(&e[..1000]);
    eprintln!(
        "chain, 10,000 steps: largest anchor separation {worst:.2e} m; energy within {swing:.2e} J of the first step's (largest kinetic energy {kinetic:.3} J), trend {trend:.2e} J"
    );
    assert!(worst < 1e-4, "separation {worst:.3e} m");
    assert!(
        worst < 1e-9,
        "separation {worst:.3e} m, far above round-off"
    );
    assert!(swing < 0.02 * kinetic, "energy strays by {swing:.3e} J");
    assert!(trend.abs() < 0.005 * kinetic, "energy trend {trend:.3e} J");
}

#[test]
fn without_drift_correction_the_joints_drift_apart() {
    let off: Vec<String> = (0..6)
        .map(|j| format!("joint.{j}.stabilization=0"))
        .collect();
    let (worst_off, _, _) = run(&off, 10_000);
    let (worst_on, _, _) = run(&[], 10_000);
    eprintln!(
        "largest anchor separation over 10,000 steps: {worst_off:.2e} m with stabilization = 0, {worst_on:.2e} m with 1"
    );
    // The rows aim at the end-of-step error, so what is left per step is second order in the
    // miss of the guessed impulses; uncorrected, it adds up step after step.
    assert!(worst_off > 1e-6, "{worst_off:.3e}");
    assert!(worst_on < 1e-6 * worst_off, "{worst_on:.3e}");
}

#[test]
fn a_run_writes_every_joint_error_per_frame() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("chain");
    let file = chain();
    let r = common::sphrigid(&[
        "run",
        file.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--frames",
        "10",
        "--quiet",
    ]);
    assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
    let text = std::fs::read_to_string(out.join("joint_errors.csv")).unwrap();
    let rows = joint_errors::parse(&text).unwrap();
    assert_eq!(rows.len(), 11 * 6, "six joints at frames 0..=10");
    let names = ["hook", "ball01", "ball12", "ball23", "ball34", "ball45"];
    for (i, r) in rows.iter().enumerate() {
        assert_eq!(r.frame as usize, i / 6);
        assert_eq!(r.joint, names[i % 6]);
        assert_eq!(r.kind, "ball");
        assert!((r.time - r.frame as f64 / 50.0).abs() < 1e-12);
        assert!(r.max_separation >= r.now.separation);
        assert!(r.max_separation < 1e-9, "{r:?}");
        assert_eq!(r.now.misalignment, 0.0);
    }
    // The chain moved: the last link is not where it started.
    let states = std::fs::read_to_string(out.join("rigid_states.csv")).unwrap();
    let s = sphrigid::output::rigid_states::parse(&states).unwrap();
    let last: Vec<_> = s.iter().filter(|r| r.body == "link5").collect();
    let moved = (0..3)
        .map(|k| (last[10].values[k] - last[0].values[k]).powi(2))
        .sum::<f64>()
        .sqrt();
    assert!(moved > 0.05, "the last link moved {moved} m");
}
