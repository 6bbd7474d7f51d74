//! Each GPU pass against its CPU twin on the same input: the grid order exactly, element-wise
//! updates exactly, neighbour sums within float tolerance.
use super::common;
use super::common::Rng;
use super::common::gpu as gpu_common;
use crate::boundary::BodyImages;
use crate::boundary::body_grid::{BoundaryGrid, BoundaryParticles};
use crate::boundary::wall_kernel::{WallKernel, mirror_offset, plane_distances};
use crate::boundary::{WallLoads, Walls};
use crate::gpu::{
    GpuLiquidSolver, boundary_grid, buffers, cell_index, count, density, prefix_sum, relaxation,
    scatter, velocity, viscosity, wall_loads, walls,
};
use crate::liquid::grid::Grid;
use crate::liquid::{LiquidParams, Particles};
use glam::Vec3A;

// Two phases (different masses, one with cohesion) so the pair weights m_j/(m_i+m_j) and both
// pressure branches run; walls with restitution, friction and ghost pressure.
const SCENE: &str = r#"
    [time]
    fps = 100
    [container]
    min = [0, 0, 0]
    max = [0.2, 0.12, 0.06]
    restitution = 0.3
    friction = 0.2
    ghost_pressure = true
    [[liquid]]
    min = [0, 0, 0]
    max = [0.08, 0.08, 0.06]
    spacing = 0.005
    viscosity = { sigma = 2, beta = 0.5 }
    [[liquid]]
    min = [0.1, 0, 0]
    max = [0.14, 0.05, 0.06]
    spacing = 0.005
    density = 700
    cohesion = true
    viscosity = { sigma = 1 }
"#;

pub(super) const DT: f32 = 2e-3;

/// Jittered lattice particles with random velocities, stored in a shuffled order.
fn setup() -> Option<(GpuLiquidSolver, Particles, LiquidParams)> {
    setup_path(true)
}

/// As [`setup`], the neighbour passes tiled through workgroup memory or not (the fallback).
fn setup_path(tiled: bool) -> Option<(GpuLiquidSolver, Particles, LiquidParams)> {
    setup_scene(SCENE, tiled)
}

/// As [`setup_path`], with the grid built: the solver, its particles in grid order and its
/// grid (both downloaded), and the parameters.
pub(super) fn setup_grid(tiled: bool) -> Option<(GpuLiquidSolver, Particles, Grid, LiquidParams)> {
    let (mut gpu, _, params) = setup_path(tiled)?;
    gpu.rebuild_grid().unwrap();
    let s = gpu.download().unwrap();
    let grid = gpu.download_grid().unwrap();
    Some((gpu, s, grid, params))
}

/// As [`setup_path`] for the scene `text`.
fn setup_scene(text: &str, tiled: bool) -> Option<(GpuLiquidSolver, Particles, LiquidParams)> {
    let ctx = gpu_common::context()?;
    let scene = common::scene(text);
    let liquid = crate::sim::build::liquid(&scene.scene);
    let (params, mut p) = (liquid.params, liquid.particles);
    let mut rng = Rng::new(0x9e37_79b9_7f4a_7c15);
    let s = params.spacing;
    for (x, v) in p.pos.iter_mut().zip(p.vel.iter_mut()) {
        *x += Vec3A::new(rng.sym(0.2 * s), rng.sym(0.2 * s), rng.sym(0.2 * s));
        *v = Vec3A::new(rng.sym(0.5), rng.sym(0.5), rng.sym(0.5));
    }
    p.prev.clone_from(&p.pos);
    // Fisher-Yates shuffle of the slots, ids travelling with their particles.
    let mut perm: Vec<u32> = (0..p.len() as u32).collect();
    for i in (1..perm.len()).rev() {
        let j = (rng.next() * (i + 1) as f32) as usize % (i + 1);
        perm.swap(i, j);
    }
    p.permute(&perm);
    let mut gpu = GpuLiquidSolver::new(ctx, params.clone(), &p).expect("the GPU solver");
    gpu.set_tiled(tiled).unwrap();
    assert_eq!(
        gpu.is_tiled(),
        tiled,
        "lavapipe and real GPUs take the tiles"
    );
    gpu.upload(&p).expect("upload");
    Some((gpu, p, params))
}

/// Body boundary particles in a shuffled order: a ball on a lattice of half the liquid's
/// spacing (weight 1/8) inside the first block, a row of larger ones (weight 1) along the
/// floor, and a few beyond the container, outside the grid (clamped into its border cells).
fn boundary(params: &LiquidParams) -> BoundaryParticles {
    let s = params.spacing;
    let mut b = BoundaryParticles::default();
    let c = Vec3A::new(0.04, 0.04, 0.03);
    for i in -6..=6 {
        for j in -6..=6 {
            for k in -6..=6 {
                let x = c + Vec3A::new(i as f32, j as f32, k as f32) * (0.5 * s);
                if (x - c).length() < 0.015 {
                    b.pos.push(x);
                    b.weight.push(0.125);
                }
            }
        }
    }
    for i in 0..30 {
        b.pos.push(Vec3A::new(0.003 + i as f32 * s, -0.5 * s, 0.02));
        b.weight.push(1.0);
    }
    for i in 0..5 {
        b.pos.push(Vec3A::new(-0.05, 0.01 * i as f32, 0.5));
        b.weight.push(0.5);
    }
    // A block against the left wall across the slab, inside the first block of liquid: the
    // walls' ghosts whose mirror images lie in it do not push.
    for i in 0..4 {
        for j in 0..4 {
            for k in 0..12 {
                let x = Vec3A::new(i as f32, 6.0 + j as f32, k as f32) * s;
                b.pos.push(x + Vec3A::splat(0.5 * s));
                b.weight.push(1.0);
            }
        }
    }
    let mut rng = Rng::new(5);
    for i in (1..b.len()).rev() {
        let j = (rng.next() * (i + 1) as f32) as usize % (i + 1);
        b.pos.swap(i, j);
        b.weight.swap(i, j);
    }
    b
}

pub(super) fn max_abs_diff(a: &[Vec3A], b: &[Vec3A]) -> f32 {
    a.iter()
        .zip(b)
        .map(|(x, y)| (*x - *y).abs().max_element())
        .fold(0.0, f32::max)
}

#[test]
fn grid_build_gives_the_cpu_grid_order_exactly() {
    let _serial = gpu_common::serial();
    let Some((mut gpu, p, _)) = setup() else {
        return;
    };
    gpu.pass_grid(DT).unwrap();
    let g = gpu.download().unwrap();
    let grid = gpu.download_grid().unwrap();
    // The twin: prediction, then the CPU grid's counting sort over the same bounds.
    let mut cpu = p.clone();
    let mut cg = gpu.empty_grid();
    scatter::cpu_twin(&mut cpu, DT, &mut cg);
    assert_ne!(
        p.id, cpu.id,
        "the input was not shuffled: the test sorts nothing"
    );
    assert_eq!(g.id, cpu.id, "particle order differs from (cell, id)");
    assert_eq!(grid.cell_of, cg.cell_of, "cell of each slot differs");
    assert_eq!(grid.cell_start, cg.cell_start, "cell starts differ");
    // The velocities go into the start-of-step buffer, the step's velocity from here on.
    assert_eq!(
        g.prev, cpu.vel,
        "velocities were not carried exactly into the step's velocity"
    );
    // x + v dt: a GPU may fuse the multiply-add, so allow one rounding.
    let d = max_abs_diff(&g.pos, &cpu.pos);
    assert!(d <= 1e-7, "predicted positions differ by {d} m");
    // The cell-index pass on its own: cells of the unsorted particles.
    let (_, cells) = cell_index::cpu_twin(&p.pos, &p.vel, DT, &cg);
    let by_id: Vec<u32> = {
        let mut v = vec![0u32; p.len()];
        for (k, &id) in p.id.iter().enumerate() {
            v[id as usize] = cells[k];
        }
        v
    };
    for (s, &id) in g.id.iter().enumerate() {
        assert_eq!(grid.cell_of[s], by_id[id as usize], "cell of particle {id}");
    }
    // Counts (the cell-index pass's) and their prefix sum; the scatter counted each cell's
    // cursor back down, so the counts end clear for the next build.
    let ncells = cg.cell_start.len() - 1;
    let counts = count::cpu_twin(&cells, ncells);
    assert_eq!(grid.cell_start, prefix_sum::cpu_twin(&counts));
    assert!(
        gpu.download_counts().unwrap().iter().all(|&c| c == 0),
        "the scatter left counts behind"
    );
    assert!(
        counts.iter().filter(|&&c| c > 1).count() > 100,
        "too few shared cells to test the per-cell sort"
    );
}

/// The scan of `n` random entries below `max` against the CPU's, with subgroup operations
/// where the adapter has them and then without (the fallback).
fn check_prefix_sum(n: usize, max: f32) {
    let Some(ctx) = gpu_common::context() else {
        return;
    };
    eprintln!("adapter subgroups: {}", ctx.subgroups);
    let with = ctx.subgroups;
    check_prefix_sum_on(ctx, n, max);
    if with {
        let mut ctx = gpu_common::context().unwrap();
        ctx.subgroups = false;
        check_prefix_sum_on(ctx, n, max);
    }
}

fn check_prefix_sum_on(ctx: crate::gpu::context::GpuContext, n: usize, max: f32) {
    let mut rng = Rng::new(7);
    let v: Vec<u32> = (0..n).map(|_| (rng.next() * max) as u32).collect();
    let mut bytes = 0;
    let src = buffers::storage(&ctx, "src", n as u64 * 4, &mut bytes).unwrap();
    let dst = buffers::storage(&ctx, "dst", n as u64 * 4, &mut bytes).unwrap();
    ctx.queue.write_buffer(&src, 0, bytemuck::cast_slice(&v));
    let scan = prefix_sum::PrefixSum::new(&ctx, &src, &dst, n as u32).unwrap();
    assert_eq!(scan.subgroups, ctx.subgroups);
    let mut enc = ctx.device.create_command_encoder(&Default::default());
    {
        let mut pass = enc.begin_compute_pass(&Default::default());
        scan.dispatch(&mut pass);
    }
    ctx.queue.submit([enc.finish()]);
    let got: Vec<u32> = buffers::read(&ctx, &dst, n).unwrap();
    let want = prefix_sum::cpu_twin(&v);
    if let Some(k) = (0..n).find(|&k| got[k] != want[k]) {
        panic!(
            "entry {k} of {n} (subgroups {}): {} vs {}",
            ctx.subgroups, got[k], want[k]
        );
    }
}

#[test]
fn prefix_sum_of_three_levels_matches_the_cpu_scan() {
    let _serial = gpu_common::serial();
    // 782 blocks, then 4, then 1: three levels.
    check_prefix_sum(200_000, 16.0);
}

#[test]
fn prefix_sum_past_65535_workgroups_matches_the_cpu_scan() {
    let _serial = gpu_common::serial();
    // More blocks than one dispatch dimension holds: the 2-D dispatch, whose last row runs
    // past the end, and four levels.
    check_prefix_sum(65_535 * 256 + 1000, 4.0);
}

#[test]
fn density_matches_its_cpu_twin() {
    let _serial = gpu_common::serial();
    check_density(true);
    check_density(false);
}

fn check_density(tiled: bool) {
    let Some((mut gpu, s, grid, params)) = setup_grid(tiled) else {
        return;
    };
    let bodies = boundary(&params);
    gpu.set_boundary(&bodies).unwrap();
    gpu.pass_density().unwrap();
    let rho = gpu.download().unwrap().rho;
    let press = gpu.download_press().unwrap();
    let (rho_c, press_c) = density::cpu_twin(&s.pos, &s.phase, &grid, &params, &bodies);
    // The boundary's sums take part: the walls' alone (no bodies) and the bodies' raise many
    // particles' sums by more than the tolerance.
    let (rho_w, _) = density::cpu_twin(
        &s.pos,
        &s.phase,
        &grid,
        &params,
        &BoundaryParticles::default(),
    );
    let mut liquid_only = params.clone();
    liquid_only.boundary.walls = None;
    let (rho_l, _) = density::cpu_twin(
        &s.pos,
        &s.phase,
        &grid,
        &liquid_only,
        &BoundaryParticles::default(),
    );
    let raised = |a: &[f32], b: &[f32]| a.iter().zip(b).filter(|(x, y)| **x > **y + 0.1).count();
    assert!(raised(&rho_w, &rho_l) > 200, "few particles near walls");
    assert!(raised(&rho_c, &rho_w) > 200, "few particles near bodies");
    // About 30 terms of size <= 1, each with a few f32 roundings (sqrt, products): the sums
    // agree to a few 1e-7 relative; 1e-5 leaves room for a GPU's 1-ulp sqrt and fused ops.
    for i in 0..rho.len() {
        let tol = 1e-5 * rho_c[i].max(1.0);
        assert!(
            (rho[i] - rho_c[i]).abs() <= tol,
            "rho[{i}] {} vs {} (tiled {tiled})",
            rho[i],
            rho_c[i]
        );
        let k = params.phases[s.phase[i] as usize];
        // P = k_eff (rho - rho0): the error of rho times k_eff, and a relative rounding.
        let tp = k.k_eff * tol + 1e-5 * press_c[i][0].abs();
        let tn = k.k_near_eff * tol + 1e-5 * press_c[i][1].abs();
        assert!((press[i][0] - press_c[i][0]).abs() <= tp, "P[{i}]");
        assert!((press[i][1] - press_c[i][1]).abs() <= tn, "P_near[{i}]");
    }
    assert!(
        rho_c.iter().any(|&r| r > params.rho0),
        "no compressed particle"
    );
}

#[test]
fn boundary_grid_matches_its_cpu_twin_exactly() {
    let _serial = gpu_common::serial();
    let Some((mut gpu, _, params)) = setup() else {
        return;
    };
    let bodies = boundary(&params);
    gpu.set_boundary(&bodies).unwrap();
    gpu.pass_boundary_grid().unwrap();
    let got = gpu.download_boundary_grid().unwrap();
    let want = boundary_grid::cpu_twin(&gpu.empty_grid(), &bodies);
    assert_eq!(got.cell_start, want.cell_start, "cell starts differ");
    assert_eq!(got.sorted, want.sorted, "order differs from (cell, index)");
    assert_ne!(want.sorted, bodies, "the input was sorted already");
    let shared = want
        .cell_start
        .windows(2)
        .filter(|w| w[1] - w[0] > 1)
        .count();
    assert!(shared > 20, "only {shared} cells hold several particles");
    // Again with fewer particles: the bins hold only this step's.
    let fewer = BoundaryParticles {
        pos: bodies.pos[..100].to_vec(),
        weight: bodies.weight[..100].to_vec(),
    };
    gpu.set_boundary(&fewer).unwrap();
    gpu.pass_boundary_grid().unwrap();
    let got = gpu.download_boundary_grid().unwrap();
    assert_eq!(got, boundary_grid::cpu_twin(&gpu.empty_grid(), &fewer));
}

#[test]
fn relaxation_matches_its_cpu_twin() {
    let _serial = gpu_common::serial();
    check_relaxation(true);
    check_relaxation(false);
}

fn check_relaxation(tiled: bool) {
    let Some((mut gpu, s, grid, params)) = setup_grid(tiled) else {
        return;
    };
    // Bodies along the floor and in the first block: where a body is within h (the bodies'
    // kernel sum above zero) the walls push with the ghosts whose mirror images lie outside
    // the bodies, none from a wall that a body faces across a film, and elsewhere with all.
    let bodies = boundary(&params);
    gpu.set_boundary(&bodies).unwrap();
    gpu.pass_density().unwrap();
    let press = gpu.download_press().unwrap();
    let body = gpu.download_body_sums().unwrap();
    let walls = params.boundary.walls.as_ref().unwrap();
    let at_wall = |x: &Vec3A| {
        (*x - walls.lo)
            .min_element()
            .min((walls.hi - *x).min_element())
            + 0.5 * params.spacing
            < params.h
    };
    let held = |near_body: bool| {
        s.pos
            .iter()
            .zip(&body)
            .filter(|(x, b)| at_wall(x) && (**b > 0.0) == near_body)
            .count()
    };
    assert!(
        held(true) > 50 && held(false) > 200,
        "{} particles at a wall near a body, {} away from bodies",
        held(true),
        held(false)
    );
    gpu.pass_relaxation(DT).unwrap();
    let after = gpu.download().unwrap();
    // The start-of-step buffer holds the step's velocity in a step (here the positions the
    // rebuild left there): the displacements over dt are added to it.
    let mut bins = BoundaryGrid::default();
    bins.build(&grid, &bodies);
    // The particles at a wall near a body some of whose ghosts stand for the body's image,
    // and those a body faces across a film.
    let images = BodyImages {
        grid: &grid,
        bodies: &bins,
        inside: 0.5 * params.rho0,
        h: params.h,
    };
    let hs = 0.5 * params.spacing;
    let k = WallKernel::new(params.spacing, params.h);
    let (mut imaged, mut films) = (0, 0);
    for (x, b) in s.pos.iter().zip(&body) {
        if !at_wall(x) || *b <= 0.0 {
            continue;
        }
        films += (images.films(walls, hs, *x, params.spacing) != 0) as usize;
        let y = plane_distances(walls, hs, *x);
        let mut any = false;
        k.for_each_ghost(walls, hs, *x, |r, _, _| {
            any |= !images.liquid_at(*x + mirror_offset(&y, r));
        });
        imaged += any as usize;
    }
    assert!(
        imaged > 50 && films > 20,
        "{imaged} particles with ghosts in a body's image, {films} in films"
    );
    let mut loads = WallLoads::new(walls, hs);
    let (twin, twin_vel) = relaxation::cpu_twin(
        &s.pos,
        &s.prev,
        &s.phase,
        &grid,
        &params,
        &press,
        &body,
        &bins,
        DT,
        Some(&mut loads),
    );
    // The walls' push on the liquid, per wall, as the CPU step gathers it.
    gpu.pass_wall_loads(DT).unwrap();
    check_wall_loads(&gpu, &loads, &format!("relaxation, tiled {tiled}"));
    let dx_gpu: Vec<Vec3A> = after.pos.iter().zip(&s.pos).map(|(a, b)| *a - *b).collect();
    let dx_cpu: Vec<Vec3A> = twin.iter().zip(&s.pos).map(|(a, b)| *a - *b).collect();
    let biggest = dx_cpu.iter().map(|d| d.length()).fold(0.0, f32::max);
    assert!(biggest > 1e-6, "the displacements are too small to test");
    // Displacements are sums of ~30 terms: 1e-5 of the largest, plus the rounding of x + dx
    // (one ulp of coordinates below 0.2 m, about 1.5e-8 m).
    let d = max_abs_diff(&dx_gpu, &dx_cpu);
    assert!(
        d <= 1e-5 * biggest + 3e-8,
        "displacements differ by {d} (largest {biggest}, tiled {tiled})"
    );
    // The step's velocity moved by dx / dt: the displacements' tolerance over dt, plus the
    // rounding of the sum.
    let dv_gpu: Vec<Vec3A> = after
        .prev
        .iter()
        .zip(&s.prev)
        .map(|(a, b)| *a - *b)
        .collect();
    let dv_cpu: Vec<Vec3A> = twin_vel.iter().zip(&s.prev).map(|(a, b)| *a - *b).collect();
    let fastest = dv_cpu.iter().map(|d| d.length()).fold(0.0, f32::max);
    assert!(
        (fastest - biggest / DT).abs() <= 1e-3 * fastest,
        "the velocity moved by {fastest}, not the largest displacement over dt {}",
        biggest / DT
    );
    let d = max_abs_diff(&dv_gpu, &dv_cpu);
    assert!(
        d <= (1e-5 * biggest + 3e-8) / DT + 3e-8,
        "velocity changes differ by {d} (largest {fastest}, tiled {tiled})"
    );
}

#[test]
fn viscosity_matches_its_cpu_twin() {
    let _serial = gpu_common::serial();
    check_viscosity(true);
    check_viscosity(false);
}

fn check_viscosity(tiled: bool) {
    let Some((mut gpu, s, grid, params)) = setup_grid(tiled) else {
        return;
    };
    gpu.pass_viscosity(DT).unwrap();
    let v = gpu.download().unwrap().vel;
    let twin = viscosity::cpu_twin(&s, &grid, &params, DT);
    let dv = max_abs_diff(&twin, &s.vel);
    assert!(dv > 1e-4, "the impulses are too small to test ({dv})");
    let d = max_abs_diff(&v, &twin);
    assert!(
        d <= 1e-5 * dv + 1e-7,
        "velocities differ by {d} m/s (largest change {dv}, tiled {tiled})"
    );
}

/// Particles with a third pushed through the walls, and step velocities moving them fast (the
/// GPU keeps the step's velocity in the start-of-step buffer: `prev` of the returned copy).
fn through_the_walls(p: &mut Particles, w: &Walls, seed: u64) -> Vec<Vec3A> {
    let mut rng = Rng::new(seed);
    let mut step_vel = Vec::with_capacity(p.len());
    for (k, x) in p.pos.iter_mut().enumerate() {
        if k % 3 == 0 {
            *x = Vec3A::new(rng.sym(0.05), rng.sym(0.03), rng.sym(0.02))
                + if k % 2 == 0 { w.lo } else { w.hi };
        }
        step_vel.push(Vec3A::new(rng.sym(0.01), rng.sym(0.01), rng.sym(0.01)) / DT);
    }
    p.prev.clone_from(&step_vel);
    step_vel
}

/// Per phase, a particle's mass, kg.
fn masses(params: &LiquidParams) -> Vec<f32> {
    params.phases.iter().map(|p| p.mass).collect()
}

/// The walls' tally on the device after one pass and the `wall_loads` reduction, against the
/// CPU step's gather of the same pass: per wall, the load (the sum of many particles'
/// impulses, in f32 on the device, in f64 on the CPU, each particle's impulse a few ulps
/// apart) within 1e-4 of the largest wall's, and the torque about the wall's centre within
/// 1e-5 of the largest load times the container's size (measured on lavapipe: 1e-7); the step's force and torque are the
/// peaks.
fn check_wall_loads(gpu: &GpuLiquidSolver, cpu: &WallLoads, what: &str) {
    let t = gpu.download_wall_tally().unwrap().expect("walls");
    let got = wall_loads::to_tally(&t, DT as f64);
    let want = cpu.impulses();
    let biggest = want.iter().map(|(j, _)| j.length()).fold(0.0, f64::max);
    assert!(biggest > 0.0, "{what}: no load on any wall");
    let size = 0.2;
    for (w, ((j, m), (cj, cm))) in got.sums().iter().zip(&want).enumerate() {
        let (dj, dm) = ((*j - *cj).length(), (*m - *cm).length());
        eprintln!(
            "{what}: wall {w}: load {j} vs {cj} (off {:.2e} of the largest), torque {m} vs {cm}",
            dj / biggest
        );
        assert!(dj <= 1e-5 * biggest, "{what}: wall {w}: load {j} vs {cj}");
        assert!(
            dm <= 1e-5 * biggest * size,
            "{what}: wall {w}: torque {m} vs {cm}"
        );
        let (f, tq) = got.peaks()[w];
        let inv_dt = 1.0 / DT as f64;
        assert!((f - *j * inv_dt).length() <= 1e-6 * f.length() + 1e-12);
        assert!((tq - *m * inv_dt).length() <= 1e-6 * tq.length() + 1e-12);
    }
}

#[test]
fn wall_loads_reduce_as_their_cpu_twin() {
    let _serial = gpu_common::serial();
    let Some((mut gpu, _, _)) = setup() else {
        return;
    };
    let slots = gpu.wall_slots() as usize;
    assert!(slots > 64, "only {slots} slots: the strides are not tested");
    let mut rng = Rng::new(11);
    let mut tally = [[0.0f32; 4]; wall_loads::TALLY_VEC4S];
    // Two steps, the second smaller on some walls and larger on others: the peaks hold the
    // larger of each.
    for step in 0..2 {
        let scale = [1.0, 3.0][step];
        let mut partials: Vec<[f32; 4]> = (0..slots * 12)
            .map(|k| {
                let s = if (k / 2) % 3 == step { 0.1 } else { scale };
                [rng.sym(s), rng.sym(s), rng.sym(s), 0.0]
            })
            .collect();
        gpu.upload_wall_partials(&partials).unwrap();
        gpu.pass_wall_loads(DT).unwrap();
        wall_loads::cpu_twin(&mut partials, &mut tally, 1.0 / DT);
        let got = gpu.download_wall_tally().unwrap().unwrap();
        // The same additions in the same order: the same sums; the peaks' comparisons of
        // squared lengths may fuse a multiply-add on a device.
        for (k, (a, b)) in got.iter().zip(&tally).enumerate() {
            for (x, y) in a.iter().zip(b) {
                assert!(
                    (x - y).abs() <= 1e-6 * y.abs(),
                    "step {step}: tally entry {k}: {a:?} vs {b:?}"
                );
            }
        }
        let cleared = gpu.download_wall_partials().unwrap();
        assert!(
            cleared.iter().all(|v| *v == [0.0; 4]),
            "partials not cleared"
        );
    }
}

#[test]
fn walls_match_their_cpu_twin() {
    let _serial = gpu_common::serial();
    let Some((mut gpu, mut p, params)) = setup() else {
        return;
    };
    let w = params.boundary.walls.unwrap();
    let step_vel = through_the_walls(&mut p, &w, 3);
    gpu.upload(&p).unwrap();
    gpu.pass_walls(DT).unwrap();
    let g = gpu.download().unwrap();
    let mut cpu = p.clone();
    cpu.vel.clone_from(&step_vel);
    let mut loads = WallLoads::new(&w, params.spacing / 2.0);
    walls::cpu_twin(&mut cpu, &w, DT, Some((&mut loads, &masses(&params))));
    gpu.pass_wall_loads(DT).unwrap();
    check_wall_loads(&gpu, &loads, "collisions");
    let moved = p.pos.iter().zip(&cpu.pos).filter(|(a, b)| a != b).count();
    assert!(moved > p.len() / 5, "only {moved} particles hit a wall");
    let turned = step_vel
        .iter()
        .zip(&cpu.vel)
        .filter(|(a, b)| a != b)
        .count();
    assert!(turned > p.len() / 10, "only {turned} velocities changed");
    // Projection is exact; the velocity with friction goes through a division and a sqrt.
    assert_eq!(g.pos, cpu.pos, "projected positions differ");
    for (a, b) in g.prev.iter().zip(&cpu.vel) {
        assert!(
            (*a - *b).length() <= 1e-6 * b.length(),
            "step velocity {a} vs {b}"
        );
    }
}

#[test]
fn wall_friction_matches_its_cpu_twin() {
    let _serial = gpu_common::serial();
    // A strong viscous friction, so that it slows particles within its reach by a lot.
    let scene = SCENE.replace(
        "friction = 0.2",
        "friction = 0.2\n    viscous_friction = 1.0",
    );
    let Some((mut gpu, p, params)) = setup_scene(&scene, true) else {
        return;
    };
    let w = params.boundary.walls.unwrap();
    assert!(w.drag > 0.0);
    gpu.pass_wall_friction(DT).unwrap();
    let g = gpu.download().unwrap();
    let mut cpu = p.clone();
    let mut loads = WallLoads::new(&w, params.spacing / 2.0);
    velocity::cpu_twin_wall_friction(&mut cpu, &w, DT, Some((&mut loads, &masses(&params))));
    gpu.pass_wall_loads(DT).unwrap();
    check_wall_loads(&gpu, &loads, "viscous friction");
    let slowed = (0..p.len())
        .filter(|&k| cpu.vel[k].length() < 0.9 * p.vel[k].length())
        .count();
    assert!(slowed > p.len() / 10, "only {slowed} of {} slowed", p.len());
    assert_eq!(g.pos, p.pos, "positions moved");
    // One division per axis of a sum of at most four rates: a few ulps of the velocity.
    for (a, b) in g.vel.iter().zip(&cpu.vel) {
        assert!(
            (*a - *b).length() <= 1e-6 * b.length(),
            "velocity {a} vs {b}"
        );
    }
    // The kernel sums ride along in the velocities' fourth component, untouched.
    assert_eq!(g.rho, p.rho, "kernel sums changed");
}

#[test]
fn a_grid_rebuild_carries_every_field_with_its_particle() {
    let _serial = gpu_common::serial();
    let Some((mut gpu, mut p, _)) = setup() else {
        return;
    };
    let mut rng = Rng::new(17);
    for r in &mut p.rho {
        *r = 1.0 + rng.next() * 30.0;
    }
    gpu.upload(&p).unwrap();
    gpu.rebuild_grid().unwrap();
    let g = gpu.download().unwrap();
    assert_ne!(g.id, p.id, "the rebuild sorted nothing");
    let mut slot_of = vec![0usize; p.len()];
    for (k, &id) in p.id.iter().enumerate() {
        slot_of[id as usize] = k;
    }
    for (s, &id) in g.id.iter().enumerate() {
        let k = slot_of[id as usize];
        assert_eq!(g.pos[s], p.pos[k], "position of particle {id}");
        assert_eq!(
            g.prev[s], p.pos[k],
            "start-of-step position of particle {id}"
        );
        assert_eq!(g.vel[s], p.vel[k], "velocity of particle {id}");
        assert_eq!(g.rho[s], p.rho[k], "kernel sum of particle {id}");
        assert_eq!(g.phase[s], p.phase[k], "phase of particle {id}");
    }
}

#[test]
fn walls_fused_with_the_velocity_update_match_their_cpu_twins() {
    let _serial = gpu_common::serial();
    let Some((mut gpu, mut p, params)) = setup() else {
        return;
    };
    let w = params.boundary.walls.unwrap();
    let step_vel = through_the_walls(&mut p, &w, 5);
    let mut rng = Rng::new(5);
    for r in &mut p.rho {
        *r = 1.0 + rng.next() * 30.0;
    }
    gpu.upload(&p).unwrap();
    gpu.pass_walls_update(DT).unwrap();
    let g = gpu.download().unwrap();
    let mut cpu = p.clone();
    cpu.vel.clone_from(&step_vel);
    walls::cpu_twin(&mut cpu, &w, DT, None);
    let after_walls = cpu.vel.clone();
    velocity::cpu_twin_update(&mut cpu, &after_walls, DT);
    let moved = p.pos.iter().zip(&cpu.pos).filter(|(a, b)| a != b).count();
    assert!(moved > p.len() / 5, "only {moved} particles hit a wall");
    assert_eq!(g.pos, cpu.pos, "projected positions differ");
    // The velocity with friction goes through a division and a sqrt: a relative rounding.
    for (a, b) in g.vel.iter().zip(&cpu.vel) {
        assert!(
            (*a - *b).length() <= 1e-6 * b.length(),
            "velocity {a} vs {b}"
        );
    }
    // x - v dt: the velocity's rounding times dt, and a position's rounding.
    let d = max_abs_diff(&g.prev, &cpu.prev);
    assert!(d <= 1e-7, "start-of-step positions differ by {d} m");
    // The kernel sums ride along in the velocities' fourth component, untouched.
    assert_eq!(g.rho, p.rho, "kernel sums changed");
}

#[test]
fn gravity_and_velocity_update_match_their_cpu_twins_exactly() {
    let _serial = gpu_common::serial();
    let Some((mut gpu, mut p, params)) = setup() else {
        return;
    };
    // The step's velocity, which the start-of-step buffer holds at the step's end.
    let mut rng = Rng::new(11);
    let step_vel: Vec<Vec3A> = p
        .vel
        .iter()
        .map(|v| *v + Vec3A::new(rng.sym(0.3), rng.sym(0.3), rng.sym(0.3)))
        .collect();
    p.prev.clone_from(&step_vel);
    gpu.upload(&p).unwrap();
    gpu.pass_gravity(DT).unwrap();
    let g = gpu.download().unwrap();
    let mut cpu = p.clone();
    velocity::cpu_twin_gravity(&mut cpu.vel, params.gravity * DT);
    assert_eq!(g.vel, cpu.vel, "v + g dt differs");
    gpu.pass_velocity(DT).unwrap();
    let g = gpu.download().unwrap();
    velocity::cpu_twin_update(&mut cpu, &step_vel, DT);
    assert_eq!(g.vel, cpu.vel, "the step's velocity was not taken exactly");
    assert_eq!(g.rho, p.rho, "kernel sums changed");
    // x - v dt: a GPU may fuse the multiply-add, so allow one rounding.
    let d = max_abs_diff(&g.prev, &cpu.prev);
    assert!(d <= 1e-7, "x - v dt differs by {d} m");
}

#[test]
fn tiled_and_untiled_steps_give_the_same_particles() {
    let _serial = gpu_common::serial();
    // Whole steps (viscosity, grid, density and relaxation passes, walls and velocity update)
    // with the neighbour passes tiled through workgroup memory and untiled: the same pairs in
    // the same order, so the same sums (bit for bit where the shader compiler rounds both
    // alike; within the twins' tolerance in any case).
    let (Some((mut tiled, ..)), Some((mut untiled, ..))) = (setup_path(true), setup_path(false))
    else {
        return;
    };
    let mut times = crate::timing::PhaseTimes::default();
    for _ in 0..5 {
        for gpu in [&mut tiled, &mut untiled] {
            gpu.step(DT, crate::timing::Timing::Off, &mut times)
                .unwrap();
        }
    }
    let (a, b) = (tiled.download().unwrap(), untiled.download().unwrap());
    assert_eq!(a.id, b.id, "the grids differ");
    let identical = a.pos == b.pos && a.vel == b.vel && a.rho == b.rho;
    let dx = max_abs_diff(&a.pos, &b.pos);
    let dv = max_abs_diff(&a.vel, &b.vel);
    eprintln!("tiled vs untiled after 5 steps: identical {identical}, |dx| {dx} m, |dv| {dv} m/s");
    let moved = max_abs_diff(&a.vel, &vec![Vec3A::ZERO; a.len()]);
    assert!(moved > 0.1, "the particles barely move ({moved} m/s)");
    assert!(
        dx <= 1e-6 && dv <= 1e-5 * moved,
        "tiled and untiled differ: {dx} m, {dv} m/s"
    );
}
