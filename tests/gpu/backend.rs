//! The GPU backend as a whole: 50 steps of a dam break against the CPU backend, identical
//! frames from two GPU runs, the walls' loads against the CPU backend's and across a resume,
//! memory per particle, and how the backend is chosen.
use crate::common;
use crate::common::gpu as gpu_common;
use crate::common::gpu::DAM;
use sphrigid::backend::Backend;
use sphrigid::output::Claim;
use sphrigid::output::loads::{LoadRow, LoadTable, parse};
use sphrigid::sim::Simulation;
use sphrigid::sim::{Progress, RunOptions};
use std::sync::atomic::{AtomicI32, Ordering};

/// Largest per-particle distance between the CPU and GPU backends after `steps` steps, in
/// spacings, and the largest distance any particle moved.
fn drift(steps: u32) -> Option<(f32, f32)> {
    gpu_common::context()?;
    let scene = common::scene(DAM);
    let mut cpu = Simulation::setup(&scene, Backend::Cpu).unwrap();
    let mut gpu = Simulation::setup(&scene, Backend::Gpu).unwrap();
    let start = cpu.particles().clone();
    for _ in 0..steps {
        cpu.step().unwrap();
        gpu.step().unwrap();
    }
    gpu.sync_particles().unwrap();
    let (a, b) = (cpu.particles(), gpu.particles());
    let (sa, sb, s0) = (a.slots_by_id(), b.slots_by_id(), start.slots_by_id());
    let h = cpu.liquid.params().spacing;
    let mut worst = 0.0f32;
    let mut moved = 0.0f32;
    for id in 0..a.len() {
        let (xa, xb) = (a.pos[sa[id] as usize], b.pos[sb[id] as usize]);
        worst = worst.max((xa - xb).length() / h);
        moved = moved.max((xa - start.pos[s0[id] as usize]).length() / h);
    }
    eprintln!(
        "after {steps} steps: CPU/GPU differ by at most {worst} spacings; particles moved up to {moved} spacings"
    );
    Some((worst, moved))
}

#[test]
fn fifty_dam_break_steps_agree_with_the_cpu_backend() {
    let _serial = gpu_common::serial();
    let Some((worst, moved)) = drift(50) else {
        return;
    };
    assert!(
        moved > 0.5,
        "the column barely moved ({moved} spacings): nothing was tested"
    );
    assert!(
        worst < 0.01,
        "GPU and CPU differ by {worst} spacings after 50 steps"
    );
}

#[test]
fn two_gpu_runs_and_a_run_on_the_fallback_paths_write_identical_frames() {
    let _serial = gpu_common::serial();
    if gpu_common::context().is_none() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let scene = dir.path().join("dam.toml");
    std::fs::write(&scene, DAM).unwrap();
    let outs = ["a", "b", "fallback"].map(|o| dir.path().join(o));
    for out in &outs {
        let mut c = std::process::Command::new(env!("CARGO_BIN_EXE_sphrigid"));
        c.args(gpu_common::gpu_run_args(&scene, out, "3"));
        // The third run takes the fallbacks: untiled neighbour passes, the prefix sum
        // without subgroup operations.
        let knob = if out.ends_with("fallback") {
            "off"
        } else {
            "on"
        };
        c.env("SPHRIGID_GPU_TILES", knob)
            .env("SPHRIGID_GPU_SUBGROUPS", knob);
        let r = c.output().unwrap();
        assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
    }
    let manifest = std::fs::read_to_string(outs[0].join("manifest.json")).unwrap();
    assert!(manifest.contains("\"backend\": \"gpu\""), "{manifest}");
    for f in 0..=3 {
        let name = format!("fluid/fluid_{f:05}.ply");
        let a = std::fs::read(outs[0].join(&name)).unwrap();
        let b = std::fs::read(outs[1].join(&name)).unwrap();
        assert!(a == b, "{name} differs between the two GPU runs");
        // The same pairs in the same order either way: the same bytes (on lavapipe, as on
        // any device whose shader compiler rounds the two entry points' sums alike).
        let c = std::fs::read(outs[2].join(&name)).unwrap();
        assert!(a == c, "{name} differs between the tiled and untiled runs");
    }
    // The frames moved: the run did step on the GPU.
    let f0 = std::fs::read(outs[0].join("fluid/fluid_00000.ply")).unwrap();
    let f3 = std::fs::read(outs[0].join("fluid/fluid_00003.ply")).unwrap();
    assert!(f0 != f3);
}

#[test]
fn a_resumed_gpu_run_writes_the_frames_of_an_unbroken_one() {
    let _serial = gpu_common::serial();
    if gpu_common::context().is_none() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let scene = dir.path().join("dam.toml");
    std::fs::write(&scene, DAM).unwrap();
    let run = |out: &std::path::Path, frames: &str, resume: bool| {
        let mut args = gpu_common::gpu_run_args(&scene, out, frames);
        if resume {
            args.push("--resume");
        }
        let r = common::sphrigid(&args);
        assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
    };
    let (unbroken, resumed) = (dir.path().join("a"), dir.path().join("b"));
    run(&unbroken, "3", false);
    // Stopped after frame 1, then extended to 3 from the checkpoint, which holds the GPU's
    // grid that the next step's viscosity walks.
    run(&resumed, "1", false);
    run(&resumed, "3", true);
    for f in 1..=3 {
        let name = format!("fluid/fluid_{f:05}.ply");
        let a = std::fs::read(unbroken.join(&name)).unwrap();
        let b = std::fs::read(resumed.join(&name)).unwrap();
        assert!(a == b, "{name} differs after the resume");
    }
}

#[test]
fn backend_gpu_without_any_adapter_is_a_clear_input_error() {
    let _serial = gpu_common::serial();
    let dir = tempfile::tempdir().unwrap();
    let scene = dir.path().join("dam.toml");
    std::fs::write(&scene, DAM).unwrap();
    // Point the Vulkan loader at no driver and keep wgpu to Vulkan: no adapter at all.
    let r = std::process::Command::new(env!("CARGO_BIN_EXE_sphrigid"))
        .args(["run", scene.to_str().unwrap(), "--backend", "gpu", "--out"])
        .arg(dir.path().join("out"))
        .env("WGPU_BACKEND", "vulkan")
        .env("VK_ICD_FILENAMES", "/nonexistent/icd.json")
        .env("VK_DRIVER_FILES", "/nonexistent/icd.json")
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&r.stderr);
    assert_eq!(r.status.code(), Some(2), "{err}");
    assert!(err.contains("--backend gpu: no GPU adapter found"), "{err}");
    assert!(
        !dir.path().join("out").exists(),
        "an output directory was made"
    );
}

#[test]
fn a_grid_too_large_for_the_gpu_is_refused_clearly() {
    let _serial = gpu_common::serial();
    if gpu_common::context().is_none() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let scene = dir.path().join("big.toml");
    // 0.5 mm spacing (1 mm cells) over a 1 km container: far more cells than a grid may have.
    std::fs::write(
        &scene,
        r#"
        [container]
        min = [0, 0, 0]
        max = [1000, 1000, 1000]
        [[liquid]]
        min = [0, 0, 0]
        max = [0.005, 0.005, 0.005]
        spacing = 0.0005
        "#,
    )
    .unwrap();
    let r = common::sphrigid(&[
        "run",
        scene.to_str().unwrap(),
        "--backend",
        "gpu",
        "--out",
        dir.path().join("out").to_str().unwrap(),
    ]);
    let err = String::from_utf8_lossy(&r.stderr);
    assert_eq!(r.status.code(), Some(2), "{err}");
    assert!(err.contains("GPU grid") && err.contains("fix:"), "{err}");
}

#[test]
fn a_scene_larger_than_one_storage_binding_is_refused_clearly() {
    let _serial = gpu_common::serial();
    let Some(ctx) = gpu_common::context() else {
        return;
    };
    let limit = ctx
        .limits
        .max_storage_buffer_binding_size
        .min(ctx.limits.max_buffer_size);
    assert!(sphrigid::internals::gpu::check_fits(&ctx, "position", limit).is_ok());
    let err = sphrigid::internals::gpu::check_fits(&ctx, "position", limit + 4).unwrap_err();
    assert_eq!(err.exit_code(), 2);
    assert!(err.to_string().contains("storage binding"), "{err}");
    // Through the binary: a container whose cell-start buffer (4 bytes a cell) needs more than
    // one binding, while staying under the grid's cell limit.
    let cells_needed = limit / 4 + 1_000_000;
    if cells_needed > sphrigid::internals::gpu::MAX_CELLS as u64 {
        eprintln!("this adapter binds {limit} bytes: no grid within the cell limit exceeds it");
        return;
    }
    let side = (cells_needed as f64).cbrt().ceil() * 0.01; // cells of h = 0.01 m
    let dir = tempfile::tempdir().unwrap();
    let scene = dir.path().join("wide.toml");
    std::fs::write(
        &scene,
        format!(
            "[container]\nmin = [0, 0, 0]\nmax = [{side}, {side}, {side}]\n\
             [[liquid]]\nmin = [0, 0, 0]\nmax = [0.05, 0.05, 0.05]\nspacing = 0.005\n"
        ),
    )
    .unwrap();
    let r = common::sphrigid(&[
        "run",
        scene.to_str().unwrap(),
        "--backend",
        "gpu",
        "--out",
        dir.path().join("out").to_str().unwrap(),
    ]);
    let err = String::from_utf8_lossy(&r.stderr);
    assert_eq!(r.status.code(), Some(2), "{err}");
    assert!(
        err.contains("too large for the GPU") && err.contains("storage binding"),
        "{err}"
    );
}

#[test]
fn bench_runs_cpu_and_gpu_side_by_side_at_three_sizes() {
    let _serial = gpu_common::serial();
    let Some(ctx) = gpu_common::context() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let scene = dir.path().join("dam.toml");
    std::fs::write(&scene, DAM).unwrap();
    let r = common::sphrigid(&[
        "bench",
        scene.to_str().unwrap(),
        "--backend",
        "cpu,gpu",
        "--sizes",
        "--steps",
        "2",
        "--json",
    ]);
    assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
    let v: serde_json::Value = serde_json::from_slice(&r.stdout).unwrap();
    let results = v["results"].as_array().unwrap();
    assert_eq!(results.len(), 6, "{v}");
    let mut last = 0u64;
    for pair in results.chunks(2) {
        assert_eq!(pair[0]["backend"], "cpu");
        assert_eq!(pair[1]["backend"], "gpu");
        let n = pair[0]["particles"].as_u64().unwrap();
        assert_eq!(pair[1]["particles"].as_u64().unwrap(), n);
        // Each size has about twice the particles of the one before (lattice rounding aside).
        if last > 0 {
            let ratio = n as f64 / last as f64;
            assert!((1.5..2.6).contains(&ratio), "{last} then {n} particles");
        }
        last = n;
        for r in pair {
            assert_eq!(r["steps"], 2);
            assert!(r["particle_steps_per_s"].as_f64().unwrap() > 0.0);
            assert!(r["phase_ms"]["relaxation"].as_f64().unwrap() > 0.0, "{r}");
        }
        let bpp = pair[1]["gpu_bytes_per_particle"].as_f64().unwrap();
        assert!(bpp > 80.0 && bpp <= 96.0, "{bpp}");
        // A liquid-only step with walls and viscosity: viscosity, the grid build (cells,
        // the prefix sum's levels, scatter, sort), two passes per relaxation pass, walls.
        let dispatches = pair[1]["gpu_dispatches_per_step"].as_f64().unwrap();
        assert!(
            (8.0..=16.0).contains(&dispatches),
            "{dispatches} dispatches per step"
        );
        assert!(pair[0].get("gpu_dispatches_per_step").is_none());
        // By default the neighbour passes are untiled on every device (measured faster on
        // lavapipe and on an H200); the scan takes subgroups where the adapter has them.
        let tiles = "untiled";
        let sub = if ctx.subgroups {
            "subgroups"
        } else {
            "no subgroups"
        };
        assert_eq!(pair[1]["gpu_path"], format!("{tiles}, {sub}"));
        assert!(pair[0].get("gpu_path").is_none());
        let speedup = pair[1]["speedup_vs_cpu"].as_f64().unwrap();
        let ratio = pair[1]["particle_steps_per_s"].as_f64().unwrap()
            / pair[0]["particle_steps_per_s"].as_f64().unwrap();
        assert!((speedup - ratio).abs() <= 1e-9 * ratio);
    }
}

#[test]
fn liquid_leaving_the_grid_of_a_scene_without_container_is_a_clear_error() {
    let _serial = gpu_common::serial();
    if gpu_common::context().is_none() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let scene = dir.path().join("fall.toml");
    // No container: the GPU grid covers the initial extent and a margin of 8 cells (8 cm);
    // free fall leaves it after about 0.13 s.
    std::fs::write(
        &scene,
        "[time]\nfps = 30\n[[liquid]]\nmin = [0, 0, 0]\nmax = [0.05, 0.05, 0.05]\nspacing = 0.005\n",
    )
    .unwrap();
    let out = dir.path().join("out");
    let r = common::sphrigid(&[
        "run",
        scene.to_str().unwrap(),
        "--backend",
        "gpu",
        "--frames",
        "10",
        "--quiet",
        "--out",
        out.to_str().unwrap(),
    ]);
    let err = String::from_utf8_lossy(&r.stderr);
    assert_eq!(r.status.code(), Some(1), "{err}");
    assert!(err.contains("left the GPU grid"), "{err}");
    // The frames before are intact and listed.
    assert!(out.join("fluid/fluid_00001.ply").exists(), "{err}");
}

/// A box resting on a column of liquid: contacts from the first step.
const BOX_ON_LIQUID: &str = r#"
    gravity = [0, -9.81, 0]
    [time]
    fps = 60
    [container]
    min = [0, 0, 0]
    max = [0.2, 0.2, 0.05]
    [[liquid]]
    min = [0, 0, 0]
    max = [0.08, 0.1, 0.05]
    spacing = 0.005
    [[body]]
    name = "lid"
    shape = { type = "box", size = [0.04, 0.02, 0.04] }
    position = [0.03, 0.1105, 0.025]
    density = 500
"#;

#[test]
fn coupling_with_the_gpu_liquid_matches_the_cpu_backend() {
    let _serial = gpu_common::serial();
    if gpu_common::context().is_none() {
        return;
    }
    let scene = common::scene(BOX_ON_LIQUID);
    let mut cpu = Simulation::setup(&scene, Backend::Cpu).unwrap();
    let mut gpu = Simulation::setup(&scene, Backend::Gpu).unwrap();
    let mut touching = 0;
    for _ in 0..60 {
        cpu.step().unwrap();
        gpu.step().unwrap();
        let (a, b) = (
            cpu.coupler.as_ref().unwrap().report,
            gpu.coupler.as_ref().unwrap().report,
        );
        // The GPU finds the same liquid/body contacts as the CPU, step after step.
        assert_eq!(
            a.liquid_contacts, b.liquid_contacts,
            "contact counts differ at step {}",
            cpu.steps
        );
        touching += a.liquid_contacts;
    }
    // At least one contact a step on average (100 over the 60 steps since the liquid settles
    // before time 0).
    assert!(
        touching >= 60,
        "the box must rest on the liquid ({touching} contacts in all)"
    );
    let s = cpu.liquid.params().spacing as f64;
    let (xa, xb) = (cpu.bodies[0].state.x, gpu.bodies[0].state.x);
    let moved = (xa - glam::DVec3::from_array(scene.scene.body[0].position)).length();
    eprintln!(
        "body: CPU/GPU differ by {} spacings; it moved {} spacings",
        (xa - xb).length() / s,
        moved / s
    );
    assert!(
        (xa - xb).length() < 0.01 * s,
        "body positions differ by {} m",
        (xa - xb).length()
    );
    gpu.sync_particles().unwrap();
    let (pa, pb) = (cpu.particles(), gpu.particles());
    let (sa, sb) = (pa.slots_by_id(), pb.slots_by_id());
    let worst = (0..pa.len())
        .map(|id| (pa.pos[sa[id] as usize] - pb.pos[sb[id] as usize]).length())
        .fold(0.0f32, f32::max);
    assert!(
        (worst as f64) < 0.01 * s,
        "liquid positions differ by up to {worst} m"
    );
}

/// A buoyant box (density ratio 0.5) resting on one layer of liquid over the floor of a slab
/// tank 0.04 m deep: the film under it passes the liquid's pressure to it.
const BOX_ON_A_FILM: &str = r#"
    gravity = [0, -9.81, 0]
    [time]
    fps = 60
    [container]
    min = [0, 0, 0]
    max = [0.1, 0.08, 0.015]
    [[liquid]]
    min = [0, 0, 0]
    max = [0.1, 0.04, 0.015]
    spacing = 0.005
    [[body]]
    name = "box"
    shape = { type = "box", size = [0.04, 0.01, 0.015] }
    position = [0.05, 0.01, 0.0075]
    density = 500
    friction = 0.0
"#;

#[test]
fn films_lift_a_box_off_the_floor_alike_on_the_gpu_and_the_cpu_backend() {
    let _serial = gpu_common::serial();
    if gpu_common::context().is_none() {
        return;
    }
    let scene = common::scene(BOX_ON_A_FILM);
    let mut cpu = Simulation::setup(&scene, Backend::Cpu).unwrap();
    let mut gpu = Simulation::setup(&scene, Backend::Gpu).unwrap();
    let off = common::scene(&format!(
        "{BOX_ON_A_FILM}[coupling]\nfilm_pressure = false\n"
    ));
    let mut without = Simulation::setup(&off, Backend::Cpu).unwrap();
    let y0 = cpu.bodies[0].state.x.y;
    let mut films = 0;
    const STEPS: usize = 240;
    for _ in 0..STEPS {
        cpu.step().unwrap();
        gpu.step().unwrap();
        without.step().unwrap();
        let (a, b) = (
            cpu.coupler.as_ref().unwrap().report,
            gpu.coupler.as_ref().unwrap().report,
        );
        // The GPU's candidates, searched farther near the walls, give the same films.
        assert_eq!(
            (a.films, a.liquid_contacts),
            (b.films, b.liquid_contacts),
            "films and contacts differ at step {}",
            cpu.steps
        );
        films += a.films;
    }
    assert!(films >= STEPS, "only {films} films in {STEPS} steps");
    let s = cpu.liquid.params().spacing as f64;
    let (ya, yb) = (cpu.bodies[0].state.x.y, gpu.bodies[0].state.x.y);
    let yw = without.bodies[0].state.x.y;
    eprintln!(
        "in {:.3} s the box rose {:.3} spacings (CPU), {:.3} (GPU), {:.3} without films",
        cpu.time,
        (ya - y0) / s,
        (yb - y0) / s,
        (yw - y0) / s
    );
    // Lifted off the layer it rested on, alike on both backends; without the films' pressure
    // it stays on the layer.
    assert!(ya - yw > 0.05 * s, "the box rose only {} m", ya - yw);
    assert!(
        (ya - yb).abs() < 0.01 * s,
        "the box's heights differ by {} m",
        (ya - yb).abs()
    );
}

#[test]
fn bench_names_the_fallback_paths_and_a_bad_knob_is_one_clear_error() {
    let _serial = gpu_common::serial();
    if gpu_common::context().is_none() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let scene = dir.path().join("dam.toml");
    std::fs::write(&scene, DAM).unwrap();
    let bench = |tiles: &str, subgroups: &str| {
        std::process::Command::new(env!("CARGO_BIN_EXE_sphrigid"))
            .args(["bench", scene.to_str().unwrap(), "--backend", "gpu"])
            .args(["--steps", "1", "--json"])
            .env("SPHRIGID_GPU_TILES", tiles)
            .env("SPHRIGID_GPU_SUBGROUPS", subgroups)
            .output()
            .unwrap()
    };
    let r = bench("off", "off");
    assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
    let v: serde_json::Value = serde_json::from_slice(&r.stdout).unwrap();
    assert_eq!(v["gpu_path"], "untiled, no subgroups", "{v}");
    let r = bench("on", "auto");
    assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
    let v: serde_json::Value = serde_json::from_slice(&r.stdout).unwrap();
    assert!(
        v["gpu_path"].as_str().unwrap().starts_with("tiled, "),
        "{v}"
    );
    for (tiles, subgroups, var) in [
        ("maybe", "on", "SPHRIGID_GPU_TILES"),
        ("on", "yes", "SPHRIGID_GPU_SUBGROUPS"),
    ] {
        let r = bench(tiles, subgroups);
        let err = String::from_utf8_lossy(&r.stderr);
        assert_eq!(r.status.code(), Some(2), "{err}");
        assert!(
            err.contains(&format!("{var}: ")) && err.contains("is not auto, on or off; fix:"),
            "{err}"
        );
        assert!(!err.contains("panicked"), "{err}");
    }
}

#[test]
fn a_free_blob_on_the_gpu_keeps_its_momentum() {
    // tests/liquid/momentum.rs's free blob on the GPU: no gravity, all of it moving at 0.2 m/s
    // along x, spreading as it flies across x = 0.125 m (where a position's ulp doubles to
    // 1.5e-8 m), in a container clear of it (without one, the GPU grid ends near the initial
    // extent). The step's velocity is the predicted one plus the relaxation's displacements
    // over dt, as on the CPU: taken from the f32 positions' change, the sub-ulp displacements
    // were dropped more on the front than the back (the CPU step lost 1.4% so in 0.5 s).
    let _serial = gpu_common::serial();
    if gpu_common::context().is_none() {
        return;
    }
    let side = 0.02f32;
    let scene = common::scene(&format!(
        "gravity = [0, 0, 0]\n[time]\nfps = 100\n[solver]\nsettle = false\n\
         [container]\nmin = [0, {lo}, {lo}]\nmax = [{end}, {hi}, {hi}]\n[[liquid]]\n\
         min = [{}, 0, 0]\nmax = [{}, {side}, {side}]\nspacing = {}\n\
         viscosity = {{ sigma = 1000 }}\n",
        side,
        5.0 * side,
        side / 8.0,
        lo = -3.0 * side,
        hi = 4.0 * side,
        end = 11.0 * side,
    ));
    let mut sim = Simulation::setup(&scene, Backend::Gpu).unwrap();
    let u0 = 0.2f32;
    for v in sim.liquid.particles_mut().vel.iter_mut() {
        v.x = u0;
    }
    let steps = (0.3 / sim.dt).round() as usize;
    for _ in 0..steps {
        sim.step().unwrap();
    }
    sim.sync_particles().unwrap();
    let p = sim.particles();
    let u = p.vel.iter().map(|v| v.as_dvec3()).sum::<glam::DVec3>() / p.len() as f64;
    let (lo, hi) = p.pos.iter().fold((f32::MAX, f32::MIN), |(lo, hi), x| {
        (lo.min(x.x), hi.max(x.x))
    });
    let mid = 0.5 * side;
    let reach = p.pos.iter().fold(0.0f32, |m, x| {
        m.max((x.y - mid).abs()).max((x.z - mid).abs())
    });
    eprintln!(
        "{} particles, {steps} steps: mean velocity ({:.7}, {:.2e}, {:.2e}) m/s; x from {lo:.4} to {hi:.4} m, y and z up to {reach:.4} m from its axis",
        p.len(),
        u.x,
        u.y,
        u.z
    );
    // The blob straddles x = 0.125 m, and stayed clear of the walls (3.5 sides from its axis,
    // x = 0 and 0.22 m), which would change its momentum.
    assert!(lo < 0.125 && hi > 0.15, "x {lo}..{hi}");
    assert!(lo > 0.01 && hi < 0.21, "x {lo}..{hi} reaches the walls");
    assert!(reach < 3.0 * side, "the blob reached {reach} m sideways");
    assert!(
        (u.x / u0 as f64 - 1.0).abs() < 1e-5,
        "mean speed {} m/s after 0.3 s, from {u0}",
        u.x
    );
    assert!(
        u.y.abs().max(u.z.abs()) < 1e-6,
        "the blob gained a sideways velocity {u}"
    );
}

/// A still tank for the walls' loads: 2,000 particles, 0.1 m long, filled 0.05 m deep,
/// 0.05 m wide, with the walls' viscous friction so that every gathering pass runs.
const STILL_TANK: &str = r#"
    [time]
    fps = 60
    [container]
    min = [0, 0, 0]
    max = [0.1, 0.08, 0.05]
    viscous_friction = 0.5
    [[liquid]]
    min = [0, 0, 0]
    max = [0.1, 0.05, 0.05]
    spacing = 0.005
"#;

/// Frames of the walls' loads tests.
const LOAD_FRAMES: u32 = 3;

/// `wall_loads.csv` of the run in `out`.
fn wall_rows(out: &std::path::Path) -> Vec<LoadRow> {
    let text = std::fs::read_to_string(out.join("wall_loads.csv")).unwrap();
    parse(&text, LoadTable::Walls).unwrap()
}

/// Run the still tank on `backend` into `out` for `frames` frames, in this process; `stop`
/// raised once frame `stop_after` is written (a signal between frames: the run stops after
/// its next step, mid-frame, and writes a checkpoint); `resume` takes up the run in `out`.
fn run_tank(
    backend: Backend,
    out: &std::path::Path,
    stop_after: Option<u32>,
    resume: bool,
) -> sphrigid::sim::RunSummary {
    static STOP: AtomicI32 = AtomicI32::new(0);
    STOP.store(0, Ordering::SeqCst);
    let loaded = common::scene(STILL_TANK);
    let opts = RunOptions {
        out: out.to_path_buf(),
        frames: Some(LOAD_FRAMES),
        backend,
        backend_explicit: true,
        command: "sphrigid run tank.toml".into(),
        claim: if resume { Claim::Resume } else { Claim::Refuse },
        checkpoint_every: 0,
        stop: Some(&STOP),
    };
    let mut progress = |p: &Progress| {
        if Some(p.frame) == stop_after {
            STOP.store(2, Ordering::SeqCst);
        }
    };
    sphrigid::sim::run(&loaded, &opts, &mut progress, &mut |_| {}).unwrap()
}

#[test]
fn gpu_wall_loads_agree_with_the_cpu_backend() {
    let _serial = gpu_common::serial();
    if gpu_common::context().is_none() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let (cpu, gpu) = (dir.path().join("cpu"), dir.path().join("gpu"));
    let t = std::time::Instant::now();
    run_tank(Backend::Cpu, &cpu, None, false);
    run_tank(Backend::Gpu, &gpu, None, false);
    eprintln!("both runs: {:.1} s", t.elapsed().as_secs_f64());
    let (a, b) = (wall_rows(&cpu), wall_rows(&gpu));
    assert_eq!(a.len(), 6 * LOAD_FRAMES as usize);
    assert_eq!(b.len(), a.len());
    // The scale: the floor's mean load, the liquid's weight (2,000 particles of 0.125 g).
    let weight = 2000.0 * 1000.0 * 0.005f64.powi(3) * 9.81;
    let floor = a
        .iter()
        .filter(|r| r.name == "y_min")
        .map(|r| r.load.force.length())
        .fold(0.0, f64::max);
    assert!(
        floor > 0.5 * weight,
        "the floor takes {floor} N of {weight}"
    );
    let (mut mean, mut peak) = (0.0f64, 0.0f64);
    for (r, s) in a.iter().zip(&b) {
        assert_eq!((r.frame, &r.name), (s.frame, &s.name));
        let l = 0.1;
        mean = mean
            .max((r.load.force - s.load.force).length() / weight)
            .max((r.load.torque - s.load.torque).length() / (weight * l));
        peak = peak
            .max((r.load.peak_force - s.load.peak_force).length() / weight)
            .max((r.load.peak_torque - s.load.peak_torque).length() / (weight * l));
    }
    eprintln!(
        "CPU/GPU wall loads differ by at most {mean:.2e} (mean) and {peak:.2e} (peak) of the \
         liquid's weight (torques over its weight times 0.1 m)"
    );
    // The two backends' trajectories part by f32 rounding (the dam break's by 1e-3 spacings
    // over 50 steps), and the device sums its impulses in f32 where the CPU sums in f64 (the
    // passes' tests: 1e-7 of a step's load). Measured on lavapipe over the 3 frames of
    // settling from the lattice: 5.5e-7 of the weight for the frames' means, whose
    // steps' differences average out, and 1.4e-4 for the peaks, single steps of the settling's
    // ringing where a particle or two met a wall a step apart; asserted with a margin of 18
    // and 14.
    assert!(mean <= 1e-5, "mean loads differ by {mean} of the weight");
    assert!(peak <= 2e-3, "peak loads differ by {peak} of the weight");
}

#[test]
fn a_gpu_run_stopped_mid_frame_and_resumed_writes_the_same_wall_loads() {
    let _serial = gpu_common::serial();
    if gpu_common::context().is_none() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let (unbroken, resumed) = (dir.path().join("a"), dir.path().join("b"));
    run_tank(Backend::Gpu, &unbroken, None, false);
    // Stopped one step into frame 2: the checkpoint carries the device's tally of that step.
    let stopped = run_tank(Backend::Gpu, &resumed, Some(1), false);
    assert!(stopped.stopped.is_some());
    assert_eq!(stopped.last.frame, 1);
    let steps = common::read_manifest(&resumed)["steps"].as_u64().unwrap();
    assert_eq!(
        steps,
        stopped.last.steps + 1,
        "not stopped one step into frame 2"
    );
    let summary = run_tank(Backend::Gpu, &resumed, None, true);
    assert_eq!(summary.resumed_from, Some(1));
    let (a, b) = (
        std::fs::read(unbroken.join("wall_loads.csv")).unwrap(),
        std::fs::read(resumed.join("wall_loads.csv")).unwrap(),
    );
    assert_eq!(wall_rows(&unbroken).len(), 6 * LOAD_FRAMES as usize);
    assert!(a == b, "wall_loads.csv differs after the resume");
}
