//! One liquid step at about 60,000 particles on the CPU backend.
use criterion::{Criterion, criterion_group, criterion_main};
use sphrigid::scene;
use sphrigid::sim::Simulation;
use std::path::Path;

const SCENE: &str = r#"
    [time]
    fps = 60
    [container]
    min = [0, 0, 0]
    max = [1.2, 0.6, 0.4]
    [[liquid]]
    min = [0, 0, 0]
    max = [0.4, 0.4, 0.4]
    spacing = 0.01
    viscosity = { sigma = 0.5 }
"#;

fn liquid_step(c: &mut Criterion) {
    let loaded = scene::parse(SCENE.into(), Path::new("bench.toml"), &[]).unwrap();
    let mut sim = Simulation::new(&loaded.scene);
    assert_eq!(sim.particles().len(), 64_000);
    // Let the column start to collapse so that the step sees a moving, non-lattice state.
    for _ in 0..20 {
        sim.step().unwrap();
    }
    let mut group = c.benchmark_group("liquid_step");
    group.sample_size(20);
    group.throughput(criterion::Throughput::Elements(sim.particles().len() as u64));
    group.bench_function("cpu_64k_particles", |b| b.iter(|| sim.step().unwrap()));
    group.finish();
}

criterion_group!(benches, liquid_step);
criterion_main!(benches);
