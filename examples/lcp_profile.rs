//! Solve one of the LCP benchmark's sample problems a fixed number of times, for profilers
//! that count instructions (`valgrind --tool=callgrind`), which criterion's timed loop does not
//! suit. Usage: `cargo run --example lcp_profile -- LIQUID BODIES RIGID [REPEATS]`; rigid
//! contacts carry friction, as in the benchmark.
use sphrigid::lcp::sample::{SampleSpec, liquid_on_boxes};
use sphrigid::lcp::{Options, block_pivot};
use std::time::Instant;

fn main() {
    let args: Vec<usize> = std::env::args()
        .skip(1)
        .map(|a| a.parse().expect("arguments are counts"))
        .collect();
    let arg = |i: usize, default: usize| args.get(i).copied().unwrap_or(default);
    let (liquid, bodies, rigid, repeats) = (arg(0, 10_000), arg(1, 4), arg(2, 100), arg(3, 10));
    let p = liquid_on_boxes(&SampleSpec {
        liquid_contacts: liquid,
        bodies,
        rigid_contacts: rigid,
        friction: rigid > 0,
        shared_particles: 0,
        seed: 3,
    });
    let repeats = repeats.max(1);
    let mut best = f64::INFINITY;
    let mut last = None;
    for _ in 0..repeats {
        let t = Instant::now();
        let s = block_pivot(&p, &Options::default()).expect("a valid sample");
        best = best.min(t.elapsed().as_secs_f64());
        last = Some(s);
    }
    let s = last.expect("at least one solve");
    println!(
        "{} rows: {}, {} block pivots, {} single pivots, residual {:.1e}; best of {repeats}: {:.3} ms",
        p.len(),
        s.outcome,
        s.iterations,
        s.pivots,
        s.residuals.relative(),
        best * 1e3
    );
}
