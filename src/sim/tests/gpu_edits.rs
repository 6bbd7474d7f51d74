//! The particles changed between steps (emitters append, outlets remove, ids no longer 0..n)
//! on the GPU backend against the CPU backend; a capacity past the count changes no result and
//! no buffer is made for an edit; growing past the capacity is an error.
use super::common;
use super::common::gpu as gpu_common;
use crate::gpu::{GpuLiquid, GpuLiquidSolver};
use crate::liquid::{Carried, CpuLiquid, Liquid, LiquidParams, Particles};
use crate::timing::{PhaseTimes, Timing};
use glam::Vec3A;

// A column of 16 x 20 x 12 particles (3,840) in a tank with friction and viscosity.
const SCENE: &str = r#"
    gravity = [0, -9.81, 0]
    [time]
    fps = 100
    [container]
    min = [0, 0, 0]
    max = [0.2, 0.15, 0.06]
    friction = 0.2
    [[liquid]]
    min = [0, 0, 0]
    max = [0.08, 0.1, 0.06]
    spacing = 0.005
    viscosity = { sigma = 1, beta = 0.2 }
"#;

/// The scene's parameters, particles and step.
fn scene() -> (LiquidParams, Particles, f32) {
    let scene = common::scene(SCENE);
    let setup = crate::sim::build::liquid(&scene.scene);
    (setup.params, setup.particles, setup.dt as f32)
}

fn steps(liquids: &mut [&mut dyn Liquid], dt: f32, n: usize) {
    let mut times = PhaseTimes::default();
    for _ in 0..n {
        for l in liquids.iter_mut() {
            l.step(dt, Timing::Off, &mut times).unwrap();
        }
    }
}

/// The edit both backends get: the particles of ids `removed` go, every fifth id's velocity is
/// set, and two layers of particles with ids from `next` on are appended above the column.
fn edit(p: &mut Particles, removed: &[u32], next: u32, spacing: f32) {
    let kept: Vec<u32> = (0..p.len() as u32)
        .filter(|&k| removed.binary_search(&p.id[k as usize]).is_err())
        .collect();
    p.permute(&kept);
    for (v, &id) in p.vel.iter_mut().zip(&p.id) {
        if id % 5 == 0 {
            *v = Vec3A::new(0.3, 0.1, -0.2);
        }
    }
    let mut id = next;
    for layer in 0..2 {
        for i in 0..16 {
            for k in 0..12 {
                let x = Vec3A::new(
                    (i as f32 + 0.5) * spacing,
                    0.11 + layer as f32 * spacing,
                    (k as f32 + 0.5) * spacing,
                );
                p.push_with_id(id, x, Vec3A::new(0.0, -0.5, 0.0), 0);
                id += 1;
            }
        }
    }
}

/// Between the particles of the same id on the two backends (the ids must be the same): the
/// largest distance, in spacings, and the largest difference of velocity over the fastest
/// particle's speed; and that speed.
fn drift(a: &Particles, b: &Particles, spacing: f32) -> (f32, f32, f32) {
    let (sa, sb) = (a.slots_by_id(), b.slots_by_id());
    let ids = |p: &Particles, s: &[u32]| s.iter().map(|&k| p.id[k as usize]).collect::<Vec<_>>();
    assert_eq!(ids(a, &sa), ids(b, &sb), "the backends hold different ids");
    let (mut dx, mut dv) = (0.0f32, 0.0f32);
    for (&ka, &kb) in sa.iter().zip(&sb) {
        let (ka, kb) = (ka as usize, kb as usize);
        dx = dx.max((a.pos[ka] - b.pos[kb]).length() / spacing);
        dv = dv.max((a.vel[ka] - b.vel[kb]).length());
    }
    let fastest = a.vel.iter().map(|v| v.length()).fold(0.0, f32::max);
    (dx, dv / fastest, fastest)
}

#[test]
fn removed_and_emitted_particles_step_alike_on_the_gpu_and_the_cpu() {
    let _serial = gpu_common::serial();
    let Some(ctx) = gpu_common::context() else {
        return;
    };
    let (params, p, dt) = scene();
    let spacing = params.spacing;
    let capacity = p.len() + 1000;
    let mut cpu = CpuLiquid::new(params.clone(), p.clone());
    cpu.reserve(capacity);
    let mut gpu = GpuLiquid::with_capacity(ctx, params, p.clone(), capacity).unwrap();
    assert_eq!((cpu.capacity(), gpu.capacity()), (capacity, capacity));
    let bytes = gpu.solver.bytes_allocated();
    for l in [&mut cpu as &mut dyn Liquid, &mut gpu] {
        l.update_densities().unwrap();
        // Before the first step the GPU edits its host copy, which the first step uploads.
        l.edit_particles(&mut |p| {
            for (v, &id) in p.vel.iter_mut().zip(&p.id) {
                if id % 3 == 0 {
                    *v = Vec3A::new(-0.1, 0.0, 0.2);
                }
            }
            false
        })
        .unwrap();
    }
    steps(&mut [&mut cpu as &mut dyn Liquid, &mut gpu], dt, 5);
    // Which particles go is decided on the CPU's state (one at the region's edge could fall
    // either side on the two backends): those low in a slab across the column.
    let c = cpu.particles();
    let mut removed: Vec<u32> = (0..c.len())
        .filter(|&k| (0.03..0.05).contains(&c.pos[k].x) && c.pos[k].y < 0.03)
        .map(|k| c.id[k])
        .collect();
    removed.sort_unstable();
    assert!(removed.len() > 100, "only {} removed", removed.len());
    let next = c.next_id();
    let before = c.len();
    assert!(matches!(gpu.carried().unwrap(), Carried::Grid { .. }));
    // An edit that only changes velocities (an emitter steering its held layers) keeps the
    // grid on the device, as the CPU keeps its lists.
    for l in [&mut cpu as &mut dyn Liquid, &mut gpu] {
        l.edit_particles(&mut |p| {
            for (v, &id) in p.vel.iter_mut().zip(&p.id) {
                if id % 7 == 0 {
                    *v += Vec3A::new(0.05, 0.0, 0.0);
                }
            }
            false
        })
        .unwrap();
    }
    assert!(matches!(gpu.carried().unwrap(), Carried::Grid { .. }));
    for l in [&mut cpu as &mut dyn Liquid, &mut gpu] {
        l.edit_particles(&mut |p| {
            edit(p, &removed, next, spacing);
            true
        })
        .unwrap();
    }
    // The last step's grid is not carried past the edit (as the CPU drops its lists).
    assert!(matches!(gpu.carried().unwrap(), Carried::Nothing));
    let n = before - removed.len() + 2 * 16 * 12;
    assert_eq!((cpu.len(), gpu.len(), gpu.particles().len()), (n, n, n));
    assert!(gpu.particles().id.iter().any(|&id| id >= next));
    // The first step after the edit builds its grid afresh on both: the velocities agree to
    // a few roundings of the positions over dt (7e-6 of the fastest on lavapipe; viscosity
    // walking the last step's grid instead gave 1.7e-4).
    steps(&mut [&mut cpu as &mut dyn Liquid, &mut gpu], dt, 1);
    gpu.sync().unwrap();
    let (_, dv, _) = drift(cpu.particles(), gpu.particles(), spacing);
    eprintln!("the step after the edit: CPU/GPU velocities differ by {dv} of the fastest");
    assert!(dv <= 5e-5, "velocities differ by {dv} of the fastest");
    steps(&mut [&mut cpu as &mut dyn Liquid, &mut gpu], dt, 9);
    gpu.sync().unwrap();
    let (worst, _, fastest) = drift(cpu.particles(), gpu.particles(), spacing);
    eprintln!(
        "after an edit and 10 steps: CPU/GPU differ by at most {worst} spacings (fastest {fastest} m/s)"
    );
    assert!(fastest > 0.3, "the particles barely move ({fastest} m/s)");
    // The tolerance of the whole-run comparison (tests/gpu/backend.rs).
    assert!(
        worst < 0.01,
        "GPU and CPU differ by {worst} spacings after the edit"
    );
    // The kept staging buffer brings down what a fresh download does.
    let g = gpu.particles();
    assert!(*g == gpu.solver.download().unwrap(), "the downloads differ");
    // Slots in (cell, id) order on both: ids sorted within each run of one cell.
    let grid = gpu.solver.download_grid().unwrap();
    assert!(
        (1..g.len()).all(|s| grid.cell_of[s - 1] < grid.cell_of[s]
            || (grid.cell_of[s - 1] == grid.cell_of[s] && g.id[s - 1] < g.id[s])),
        "the GPU's slots are not in (cell, id) order"
    );
    assert_eq!(
        gpu.solver.bytes_allocated(),
        bytes,
        "an edit made a GPU buffer"
    );
}

#[test]
fn growing_past_the_capacity_is_an_error_and_an_empty_liquid_steps() {
    let _serial = gpu_common::serial();
    let Some(ctx) = gpu_common::context() else {
        return;
    };
    let (params, p, dt) = scene();
    let (n, params_spacing) = (p.len(), params.spacing);
    let mut gpu = GpuLiquid::with_capacity(ctx, params, p, n + 10).unwrap();
    let s = params_spacing;
    // `extra` particles with fresh ids on the column's lattice, layer by layer from the floor.
    let grow = |extra: usize| {
        move |p: &mut Particles| {
            let next = p.next_id();
            for k in 0..extra as u32 {
                let at = |i: u32| (i as f32 + 0.5) * s;
                let x = Vec3A::new(at(k % 16), at(k / 192), at(k / 16 % 12));
                p.push_with_id(next + k, x, Vec3A::ZERO, 0);
            }
            true
        }
    };
    // Before the first step and after one.
    for stepped in [false, true] {
        let e = gpu.edit_particles(&mut grow(11)).unwrap_err().to_string();
        assert!(
            e.contains(&(n + 11).to_string()) && e.contains(&(n + 10).to_string()),
            "{e}"
        );
        if !stepped {
            gpu.edit_particles(&mut |p| {
                p.permute(&(0..n as u32).collect::<Vec<_>>());
                true
            })
            .unwrap();
            steps(&mut [&mut gpu], dt, 1);
        }
    }
    gpu.sync().unwrap();
    assert_eq!(gpu.len(), n, "the failed edit reached the device");
    // Down to none, a step, and up to the capacity.
    gpu.edit_particles(&mut |p| {
        p.permute(&[]);
        true
    })
    .unwrap();
    steps(&mut [&mut gpu], dt, 1);
    assert_eq!(gpu.len(), 0);
    gpu.edit_particles(&mut grow(n + 10)).unwrap();
    steps(&mut [&mut gpu], dt, 2);
    gpu.sync().unwrap();
    assert_eq!(gpu.particles().len(), n + 10);
    assert!(gpu.particles().pos.iter().all(|x| x.is_finite()));
}

#[test]
fn a_solver_with_room_for_twice_its_particles_steps_as_one_without() {
    let _serial = gpu_common::serial();
    let (Some(ctx_a), Some(ctx_b)) = (gpu_common::context(), gpu_common::context()) else {
        return;
    };
    let (params, p, dt) = scene();
    let n = p.len();
    let mut exact = GpuLiquidSolver::new(ctx_a, params.clone(), &p).unwrap();
    let mut roomy = GpuLiquidSolver::with_capacity(ctx_b, params.clone(), &p, 2 * n).unwrap();
    assert_eq!((exact.capacity(), roomy.capacity()), (n, 2 * n));
    assert_eq!(roomy.len(), n);
    // Memory: counted per particle of the capacity, as `check` counts it without a device.
    for (gpu, cap) in [(&exact, n), (&roomy, 2 * n)] {
        assert_eq!(
            GpuLiquidSolver::bytes_needed_for(&params, &p, cap).unwrap(),
            gpu.bytes_allocated()
        );
        let bpp = gpu.bytes_allocated() as f64 / cap as f64;
        assert_eq!(gpu.bytes_per_particle(), bpp);
    }
    assert!(roomy.bytes_allocated() > exact.bytes_allocated() * 3 / 2);
    let mut times = PhaseTimes::default();
    for gpu in [&mut exact, &mut roomy] {
        gpu.upload(&p).unwrap();
        for _ in 0..5 {
            gpu.step(dt, Timing::Off, &mut times).unwrap();
        }
    }
    let (a, b) = (exact.download().unwrap(), roomy.download().unwrap());
    assert_eq!(a.id, b.id, "the grids differ");
    assert!(
        a.pos == b.pos && a.vel == b.vel && a.prev == b.prev && a.rho == b.rho,
        "the capacity changed the particles"
    );
    assert_eq!(
        exact.download_wall_tally().unwrap(),
        roomy.download_wall_tally().unwrap(),
        "the capacity changed the walls' loads"
    );
}
