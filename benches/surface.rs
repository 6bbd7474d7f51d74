//! Surface reconstruction of one frame with the default settings: an 80,000-particle
//! dam-break column and a 1,000,000-particle block, both resting against the container's floor
//! and walls, their particles jittered off the lattice by up to a tenth of a spacing. Each is
//! timed on one thread, as `sphrigid surface` and `run --surface` build a frame (the same bytes
//! every time; frames go side by side), and on every core, as one frame could be.
use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use sphrigid::rng::XorShift;
use sphrigid::surface::{Obstacles, SurfaceParams, reconstruct};
use std::hint::black_box;
use std::time::Instant;

const S: f64 = 0.01;

/// Jittered lattice of n cells from the origin.
fn block(n: [usize; 3]) -> Vec<[f32; 3]> {
    let mut r = XorShift::new(7);
    let mut p = Vec::with_capacity(n[0] * n[1] * n[2]);
    for i in 0..n[0] {
        for j in 0..n[1] {
            for k in 0..n[2] {
                let c = [i, j, k].map(|c| (c as f64 + 0.5) * S);
                p.push(c.map(|x| (x + 0.1 * S * r.sym()) as f32));
            }
        }
    }
    p
}

fn surface(c: &mut Criterion) {
    let params = SurfaceParams::for_run(S / 2.0, 2.0 * S);
    let mut g = c.benchmark_group("surface");
    g.sample_size(10);
    // A dam-break column 40 x 50 x 40 against the x = 0 wall of a tank 1.6 m long, and a 1 m
    // block filling the floor of a 1 m tank.
    for (name, n, hi) in [
        ("dam_break_80k", [40, 50, 40], [1.6, 0.8, 0.4]),
        ("block_1m", [100, 100, 100], [1.0, 1.5, 1.0]),
    ] {
        let pos = block(n);
        let vel = vec![[0.0f32; 3]; pos.len()];
        let obstacles = Obstacles {
            container: Some(([0.0; 3], hi)),
            bodies: Vec::new(),
        };
        let one = rayon::ThreadPoolBuilder::new()
            .num_threads(1)
            .build()
            .unwrap();
        let t = Instant::now();
        let mesh = one.install(|| reconstruct(&pos, &vel, &params, &obstacles).unwrap());
        println!(
            "{name}: {} particles -> {} vertices, {} triangles in {:.3} s on one thread (first frame)",
            pos.len(),
            mesh.vertices.len(),
            mesh.triangles.len(),
            t.elapsed().as_secs_f64()
        );
        g.bench_with_input(
            BenchmarkId::new(format!("{name}_one_thread"), pos.len()),
            &pos,
            |b, pos| {
                b.iter(|| {
                    one.install(|| reconstruct(black_box(pos), &vel, &params, &obstacles).unwrap())
                })
            },
        );
        g.bench_with_input(
            BenchmarkId::new(format!("{name}_all_threads"), pos.len()),
            &pos,
            |b, pos| b.iter(|| reconstruct(black_box(pos), &vel, &params, &obstacles).unwrap()),
        );
    }
    g.finish();
}

criterion_group!(benches, surface);
criterion_main!(benches);
