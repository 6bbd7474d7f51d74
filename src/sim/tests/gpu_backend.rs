//! The GPU backend's own parts: its memory per particle, how `auto` chooses it, and its timing
//! modes, which change no result.
use super::common;
use super::common::gpu as gpu_common;
use super::common::gpu::DAM;
use crate::backend::Backend;
use crate::gpu::GpuLiquidSolver;
use crate::gpu::context::{AdapterKind, adapters};
use crate::sim::Simulation;

#[test]
fn gpu_memory_is_at_most_96_bytes_per_particle() {
    let _serial = gpu_common::serial();
    let Some(ctx) = gpu_common::context() else {
        return;
    };
    let scene = common::scene(&std::fs::read_to_string("scenes/dam_break.toml").unwrap());
    let sim = Simulation::new(&scene.scene);
    let params = sim.liquid.params().clone();
    let gpu = GpuLiquidSolver::new(ctx, params, sim.particles()).unwrap();
    let n = sim.particles().len() as u64;
    // Counted from the buffers allocated: at least the 80 bytes of per-particle arrays, and
    // as much as `check` reports without a device.
    assert_eq!(
        GpuLiquidSolver::bytes_needed(sim.liquid.params(), sim.particles()).unwrap(),
        gpu.bytes_allocated()
    );
    assert!(
        gpu.bytes_allocated() >= 80 * n,
        "{} bytes",
        gpu.bytes_allocated()
    );
    let bpp = gpu.bytes_per_particle();
    eprintln!("{n} particles: {bpp:.1} GPU bytes per particle");
    assert!(bpp <= 96.0, "{bpp} bytes per particle");
}

#[test]
fn auto_takes_a_hardware_gpu_only_and_says_which() {
    let _serial = gpu_common::serial();
    let (backend, why) = Backend::choose("auto").unwrap();
    eprintln!("{why}");
    if adapters(AdapterKind::Hardware).is_empty() {
        assert_eq!(backend, Backend::Cpu, "{why}");
        assert!(why.starts_with("backend: cpu (auto:"), "{why}");
    } else {
        assert_eq!(backend, Backend::Gpu, "{why}");
    }
}

#[test]
fn timing_modes_time_every_phase_and_change_no_result() {
    let _serial = gpu_common::serial();
    if gpu_common::context().is_none() {
        return;
    }
    use crate::gpu::Timing;
    use crate::output::fluid_frames::encode_fluid;
    use crate::timing::Phase;
    let scene = common::scene(DAM);
    let mut frames = Vec::new();
    for timing in [Timing::Off, Timing::Wall, Timing::Timestamps] {
        let mut sim = Simulation::setup(&scene, Backend::Gpu).unwrap();
        sim.gpu_timing = timing;
        for _ in 0..5 {
            sim.step().unwrap();
        }
        sim.sync_particles().unwrap();
        if timing != Timing::Off {
            // Gravity rides in the viscosity pass and the velocity update in the walls' pass:
            // no pass of its own is left to integrate.
            assert_eq!(sim.times.get(Phase::Integrate).as_nanos(), 0, "{timing:?}");
            for ph in [
                Phase::Grid,
                Phase::Viscosity,
                Phase::Density,
                Phase::Relaxation,
                Phase::Collisions,
            ] {
                assert!(
                    sim.times.get(ph).as_nanos() > 0,
                    "{timing:?}: no time in {}",
                    ph.name()
                );
            }
        }
        frames.push(encode_fluid(
            sim.particles(),
            sim.liquid.params(),
            1,
            sim.time,
        ));
    }
    assert!(
        frames[0] == frames[1],
        "timing each phase changed the result"
    );
    assert!(frames[0] == frames[2], "timestamps changed the result");
}
