//! LCP benchmarks: the structured solver on liquid contacts pressing on boxes, with and without
//! rigid contacts carrying friction, and dense Lemke.
use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use sphrigid::lcp::sample::{SampleSpec, liquid_on_boxes};
use sphrigid::lcp::{DenseMatrix, DenseProblem, Options, Outcome, block_pivot, lemke};
use sphrigid::rng::XorShift;
use std::hint::black_box;

fn spec(liquid: usize, bodies: usize, rigid: usize) -> SampleSpec {
    SampleSpec {
        liquid_contacts: liquid,
        bodies,
        rigid_contacts: rigid,
        friction: rigid > 0,
        shared_particles: 0,
        seed: 3,
    }
}

fn structured(c: &mut Criterion) {
    let mut g = c.benchmark_group("structured");
    for contacts in [1_000, 5_000, 10_000, 20_000] {
        for bodies in [1, 2, 4, 8] {
            let p = liquid_on_boxes(&spec(contacts, bodies, 0));
            let s = block_pivot(&p, &Options::default()).unwrap();
            assert_eq!(s.outcome, Outcome::Solved);
            assert!(s.residuals.relative() < 1e-9);
            g.bench_with_input(
                BenchmarkId::new(format!("{bodies}_bodies"), contacts),
                &p,
                |b, p| b.iter(|| block_pivot(black_box(p), &Options::default()).unwrap()),
            );
        }
    }
    g.finish();
}

fn structured_friction(c: &mut Criterion) {
    let mut g = c.benchmark_group("structured_friction");
    g.sample_size(20);
    for rigid in [10, 100] {
        let p = liquid_on_boxes(&spec(10_000, 4, rigid));
        let s = block_pivot(&p, &Options::default()).unwrap();
        assert_eq!(s.outcome, Outcome::Solved);
        assert!(s.residuals.relative() < 1e-9);
        g.bench_with_input(
            BenchmarkId::new("10000_liquid_4_bodies", rigid),
            &p,
            |b, p| b.iter(|| block_pivot(black_box(p), &Options::default()).unwrap()),
        );
    }
    g.finish();
}

/// A random symmetric positive definite problem with about half the rows active.
fn dense_problem(n: usize) -> DenseProblem {
    let mut r = XorShift::from_state(0x2545_F491_4F6C_DD1D);
    let mut rnd = move || r.sym();
    let k = n.min(64);
    let b: Vec<f64> = (0..n * k).map(|_| rnd()).collect();
    let mut m = DenseMatrix::zeros(n, n);
    for i in 0..n {
        for j in 0..=i {
            let v: f64 = (0..k).map(|c| b[i * k + c] * b[j * k + c]).sum();
            m[(i, j)] = v;
            m[(j, i)] = v;
        }
        m[(i, i)] += 1.0;
    }
    let q = (0..n).map(|_| 5.0 * rnd()).collect();
    DenseProblem::standard(m, q)
}

fn dense_lemke(c: &mut Criterion) {
    let mut g = c.benchmark_group("dense_lemke");
    for n in [100, 500, 2_000] {
        if n >= 500 {
            g.sample_size(10);
        }
        let p = dense_problem(n);
        let s = lemke(&p, &Options::default()).unwrap();
        assert_eq!(s.outcome, Outcome::Solved);
        g.bench_with_input(BenchmarkId::from_parameter(n), &p, |b, p| {
            b.iter(|| lemke(black_box(p), &Options::default()).unwrap())
        });
    }
    g.finish();
}

criterion_group!(benches, structured, structured_friction, dense_lemke);
criterion_main!(benches);
