//! A piston wave maker against linear wave-maker theory (R. G. Dean and R. A. Dalrymple,
//! *Water Wave Mechanics for Engineers and Scientists*, 1991, section 6.2): a paddle of stroke
//! `S` (twice its amplitude) moving as a piston with period `T` in water of depth `d` makes
//! progressive waves of height
//!
//! `H / S = 2 (cosh 2kd - 1) / (sinh 2kd + 2kd)`,
//!
//! `k` from the dispersion relation `omega^2 = g k tanh kd` (solved by Newton's method here).
//! The test runs `sphrigid run` on a long thin flume, reads a gauge array 2 depths from the
//! paddle from `gauges.csv`, and asserts the mean crest-to-trough height within 10% of the
//! theory's and the mean period between zero crossings within 3% of the paddle's.
//!
//! **The flume** (every number follows from the constants below):
//!
//! - spacing 0.02 m, depth `d` = 0.32 m (16 particles), 3 particles across (0.06 m: a slab,
//!   the flow two-dimensional), the liquid's defaults (no viscosity, stiffness 100 m^2/s^2,
//!   ghost pressure). The paddle: a kinematic box 2 spacings thick spanning the flume's width,
//!   twice the depth tall and standing on the floor (`allow_overlap`), with a spacing of air
//!   behind it at its farthest back;
//! - `T` = 2 s: `kd` = 0.600 (intermediate depth), wave length `L` = 3.35 m = 10.5 `d`, phase
//!   speed 1.68 m/s, group velocity `cg` = 1.50 m/s (the long-wave speed `sqrt(g d)` is
//!   1.77 m/s);
//! - stroke `S` = 0.08 m: the theory's `H` = 0.598 `S` = 0.048 m, a steepness `H/L` = 1.4%,
//!   `H/d` = 0.15, Ursell number `H L^2 / d^3` = 16: weakly nonlinear, and the crest-to-trough
//!   height is blind to second order (a second harmonic, bound or free, raises a crest and the
//!   trough half a period later alike);
//! - the paddle's swing grows over one period (`ramp` = `T`), then runs at the full stroke;
//! - the gauge: 15 height gauges 2 `d` (0.64 m) from the paddle's mean face, on 5 lines a
//!   spacing apart along the flume (2 `d` +- 2 spacings: +- 4 degrees of phase) times the 3
//!   across, averaged reading by reading, which takes the particles' surface noise (about 0.1
//!   spacing at one gauge) down. Each is read every 20 steps, about 80 times a period. The
//!   paddle's evanescent modes decay as `exp(-k1 x)`, `k1 d` = 3.04 at this `kd`: by a factor
//!   of 430 at 2 `d`;
//! - the window: from half a period after the end of the ramp reaches the gauge at `cg`
//!   (`T + 2d / cg` = 2.43 s), 2.5 periods long: 3.43 s to 8.43 s, 2 crests and 2 troughs.
//!   The linear transient of this ramp at the gauge (the paddle's spectrum times the theory's
//!   `H/S` and `exp(-i k x)`, summed over frequencies) is within 1% of its steady height over
//!   the window;
//! - the far wall: the waves come back from it, the first of them the start of the ramp,
//!   leaving the paddle at time 0 and travelling at `cg`, at the gauge at `(2 D - 2d) / cg`,
//!   `D` the paddle's mean face's distance to the far wall. `D` = 7.42 m puts that at
//!   9.43 s, half a period after the window closes (only the ramp's small low-frequency part
//!   runs ahead of `cg`, at up to `sqrt(g d)`). The flume holds 17,800 particles for 8.5 s
//!   (6,650 steps): 90 to 106 s on a shared two-core machine.
//!
//! **Today** H/S = 0.576 against the theory's 0.598 (-3.7%), the period 2.002 s (+0.1%).
//!
//! **What the model does.** The waves' period is the paddle's, their length 3.6% short of the
//! theory's (from the phase along the flume), no liquid gets past the paddle (it keeps half a
//! spacing from its face throughout), and the velocity under the waves has the theory's
//! `cosh` profile (checked at kd = 1). But their height falls with the distance from the
//! paddle, the faster the shorter the wave. The mean of sine fits over one-period windows
//! from half a period after the ramp's end arrives to the reflection, one gauge, in flumes
//! long enough, against the theory:
//!
//! | kd | 1 d | 2 d | 3 d | 4 d | 6 d |
//! |---|---|---|---|---|---|
//! | 0.6 (d = 0.16 m, 0.32 m) | 0.98-1.00 | 0.95 | 0.90-0.92 | 0.88-0.89 | 0.83-0.87 |
//! | 0.8 (d = 0.16 m) | 0.94 | 0.93 | 0.87 | 0.87 | 0.82 |
//! | 1.0 (d = 0.16 m) | 0.96 | 0.88 | 0.82 | 0.81 | 0.73 |
//!
//! At kd = 1 the same with four times the stiffness (2 d: 0.91, 4 d: 0.77), restitution 0
//! against the paddle (0.91, 0.78), half the stroke (0.86, 0.82), half the spacing (32
//! particles deep: 0.86, 0.81); half the step (`solver.cfl` = 0.2) and two relaxation
//! passes gave the same in shorter runs. A flume 6 particles across does worse (kd = 1:
//! 0.87 at 1 d, 0.80 at 2 d, 0.74 at 4 d). So this test measures a long wave (kd = 0.6) at the
//! near end of the range (2 d), where the model is within 5%; at kd = 1, or 4 depths away, it
//! is not within 10%.
use crate::common::sphrigid;
use std::f64::consts::PI;
use std::path::Path;

const G: f64 = 9.81;
/// Particle spacing, m.
const SPACING: f64 = 0.02;
/// Still-water depth, m: 16 particles.
const DEPTH: f64 = 16.0 * SPACING;
/// The flume's width, m: 3 particles.
const WIDTH: f64 = 3.0 * SPACING;
/// The paddle's period, s.
const PERIOD: f64 = 2.0;
/// The paddle's stroke (twice its amplitude), m.
const STROKE: f64 = 0.08;
/// The time over which the paddle's swing grows to the full stroke, s.
const RAMP: f64 = PERIOD;
/// The gauge array's distance from the paddle's mean face, m.
const GAUGE_AT: f64 = 2.0 * DEPTH;
/// The length of the measuring window, in periods.
const WINDOW_PERIODS: f64 = 2.5;
/// Steps between two readings of a gauge.
const EVERY: u32 = 20;

/// The wave number of angular frequency `omega` in water of depth `d`: the root of
/// `omega^2 = g k tanh(k d)` by Newton's method, from the larger of the deep-water and the
/// shallow-water wave numbers (both lie below the root).
fn wave_number(omega: f64, d: f64) -> f64 {
    let mut k = (omega * omega / G).max(omega / (G * d).sqrt());
    for _ in 0..50 {
        let f = G * k * (k * d).tanh() - omega * omega;
        let df = G * (k * d).tanh() + G * k * d / (k * d).cosh().powi(2);
        let step = f / df;
        k -= step;
        if step.abs() < 1e-15 * k {
            break;
        }
    }
    k
}

/// Linear piston wave-maker theory: wave height over stroke at `kd`.
fn height_over_stroke(kd: f64) -> f64 {
    2.0 * ((2.0 * kd).cosh() - 1.0) / ((2.0 * kd).sinh() + 2.0 * kd)
}

/// The wave the paddle makes in linear theory: `k`, the group velocity.
fn linear_wave() -> (f64, f64) {
    let omega = 2.0 * PI / PERIOD;
    let k = wave_number(omega, DEPTH);
    let kd = k * DEPTH;
    let cg = 0.5 * (1.0 + 2.0 * kd / (2.0 * kd).sinh()) * omega / k;
    (k, cg)
}

/// The measuring window `(t0, t1)`, s: from half a period after the end of the ramp reaches
/// the gauge, at the group velocity, for `WINDOW_PERIODS` periods.
fn window(cg: f64) -> (f64, f64) {
    let t0 = RAMP + GAUGE_AT / cg + 0.5 * PERIOD;
    (t0, t0 + WINDOW_PERIODS * PERIOD)
}

/// The paddle's distance to the far wall, m: the start of the ramp, reflected there, reaches
/// the gauge again at `(2 D - x) / cg`, half a period after the window closes.
fn flume_length(cg: f64) -> f64 {
    let (_, t1) = window(cg);
    let d = (cg * (t1 + 0.5 * PERIOD) + GAUGE_AT) / 2.0;
    (d / SPACING).ceil() * SPACING
}

/// The gauges of the array: name and `[x, z]`, `face` the paddle's mean face.
fn gauges(face: f64) -> Vec<(String, [f64; 2])> {
    let mut out = Vec::new();
    for i in -2i32..=2 {
        for j in 0..3 {
            let x = face + GAUGE_AT + f64::from(i) * SPACING;
            let z = (f64::from(j) + 0.5) * SPACING;
            out.push((format!("a{}{j}", i + 2), [x, z]));
        }
    }
    out
}

/// The flume's scene, and the paddle's mean face.
fn scene(cg: f64, end_time: f64) -> (String, f64) {
    let amplitude = STROKE / 2.0;
    // The paddle's centre: one spacing of air between its back face and the wall at its
    // farthest back.
    let centre = SPACING + amplitude + SPACING;
    let face = centre + SPACING;
    let far = face + flume_length(cg);
    let fps = 2.0;
    let frames = (end_time * fps).ceil();
    let mut s = format!(
        r#"
        [time]
        fps = {fps}
        frames = {frames}
        [container]
        min = [0, 0, 0]
        max = [{far}, {top}, {WIDTH}]
        [[liquid]]
        min = [{face}, 0, 0]
        max = [{far}, {DEPTH}, {WIDTH}]
        spacing = {SPACING}
        [[body]]
        name = "paddle"
        shape = {{ type = "box", size = [{thick}, {top}, {WIDTH}] }}
        position = [{centre}, {DEPTH}, {half_width}]
        dynamic = false
        allow_overlap = true
        motion = {{ type = "oscillate", axis = [1, 0, 0], amplitude = {amplitude}, period = {PERIOD}, ramp = {RAMP} }}
        "#,
        top = 2.0 * DEPTH,
        thick = 2.0 * SPACING,
        half_width = WIDTH / 2.0,
    );
    for (name, [x, z]) in gauges(face) {
        s += &format!(
            "[[gauge]]\nname = \"{name}\"\ntype = \"height\"\nat = [{x}, {z}]\nevery = {EVERY}\n"
        );
    }
    (s, face)
}

/// A gauge record's waves over a window: the crests' and troughs' heights above the window's
/// mean level, m, and the times of the zero crossings upward and downward, s.
struct Waves {
    crests: Vec<f64>,
    troughs: Vec<f64>,
    up: Vec<f64>,
    down: Vec<f64>,
}

/// The waves of `series` (`(t, eta)`) over `[t0, t1]`: `eta` less its mean over the window,
/// cut at its zero crossings (linear between readings); each half wave wholly inside the
/// window gives its highest reading (a crest) or its lowest (a trough).
fn waves(series: &[(f64, f64)], t0: f64, t1: f64) -> Waves {
    let inside: Vec<(f64, f64)> = series
        .iter()
        .copied()
        .filter(|&(t, _)| (t0..=t1).contains(&t))
        .collect();
    let mean = inside.iter().map(|r| r.1).sum::<f64>() / inside.len() as f64;
    let e: Vec<(f64, f64)> = inside.iter().map(|&(t, y)| (t, y - mean)).collect();
    // (index of the last reading before the crossing, time, upward)
    let mut crossings = Vec::new();
    for i in 0..e.len().saturating_sub(1) {
        let ((ta, a), (tb, b)) = (e[i], e[i + 1]);
        if (a < 0.0) != (b < 0.0) {
            crossings.push((i, ta + (tb - ta) * (-a) / (b - a), b >= 0.0));
        }
    }
    let mut w = Waves {
        crests: Vec::new(),
        troughs: Vec::new(),
        up: crossings.iter().filter(|c| c.2).map(|c| c.1).collect(),
        down: crossings.iter().filter(|c| !c.2).map(|c| c.1).collect(),
    };
    for pair in crossings.windows(2) {
        let ((i, _, upward), (j, _, _)) = (pair[0], pair[1]);
        let half = e[i + 1..=j].iter().map(|r| r.1);
        if upward {
            w.crests.push(half.fold(f64::MIN, f64::max));
        } else {
            w.troughs.push(half.fold(f64::MAX, f64::min));
        }
    }
    w
}

/// The mean interval between successive crossings the same way, over both ways.
fn mean_period(w: &Waves) -> f64 {
    let (mut span, mut n) = (0.0, 0);
    for times in [&w.up, &w.down] {
        if times.len() >= 2 {
            span += times[times.len() - 1] - times[0];
            n += times.len() - 1;
        }
    }
    span / n as f64
}

fn mean(v: &[f64]) -> f64 {
    v.iter().sum::<f64>() / v.len() as f64
}

/// Run the flume, and return the array's mean height against time.
fn run_flume(dir: &Path, cg: f64, end_time: f64) -> Vec<(f64, f64)> {
    let (text, face) = scene(cg, end_time);
    let path = dir.join("flume.toml");
    std::fs::write(&path, text).unwrap();
    let out = dir.join("out");
    let o = sphrigid(&[
        "run",
        path.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--backend",
        "cpu",
        "--quiet",
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let text = std::fs::read_to_string(out.join("gauges.csv")).expect("gauges.csv is written");
    let table = sphrigid::output::gauges::parse(&text).expect("gauges.csv parses");
    let names: Vec<String> = gauges(face).into_iter().map(|g| g.0).collect();
    let columns: Vec<usize> = names
        .iter()
        .map(|n| {
            table
                .names
                .iter()
                .position(|m| m == n)
                .expect("every gauge has a column")
        })
        .collect();
    table
        .rows
        .iter()
        .map(|(_, t, v)| {
            let read: Vec<f64> = columns
                .iter()
                .map(|&k| v[k].expect("read together"))
                .collect();
            (*t, mean(&read))
        })
        .collect()
}

#[test]
#[ignore = "validation tier (the piston wave maker): cargo test -- --include-ignored"]
fn a_piston_wave_maker_makes_the_wave_height_of_linear_theory() {
    let (k, cg) = linear_wave();
    let kd = k * DEPTH;
    let theory = height_over_stroke(kd);
    let (t0, t1) = window(cg);
    let dir = tempfile::tempdir().unwrap();
    let series = run_flume(dir.path(), cg, t1);
    let w = waves(&series, t0, t1);
    let height = mean(&w.crests) - mean(&w.troughs);
    let period = mean_period(&w);
    let measured = height / STROKE;
    eprintln!(
        "piston wave maker: d = {DEPTH} m, T = {PERIOD} s, S = {STROKE} m: kd = {kd:.4}, \
         L = {:.3} m, cg = {cg:.3} m/s, flume {:.2} m; gauge array at {GAUGE_AT} m",
        2.0 * PI / k,
        flume_length(cg)
    );
    eprintln!(
        "window {t0:.2} s to {t1:.2} s: {} crests {:?} mm, {} troughs {:?} mm",
        w.crests.len(),
        w.crests
            .iter()
            .map(|c| (c * 1e4).round() / 10.0)
            .collect::<Vec<_>>(),
        w.troughs.len(),
        w.troughs
            .iter()
            .map(|c| (c * 1e4).round() / 10.0)
            .collect::<Vec<_>>(),
    );
    eprintln!(
        "H/S = {measured:.4} (H = {:.2} mm), theory {theory:.4} ({:+.1}%); period {period:.4} s \
         against {PERIOD} s ({:+.2}%)",
        height * 1e3,
        100.0 * (measured / theory - 1.0),
        100.0 * (period / PERIOD - 1.0)
    );
    assert!(
        w.crests.len() >= 2 && w.troughs.len() >= 2,
        "the window holds {} crests and {} troughs",
        w.crests.len(),
        w.troughs.len()
    );
    assert!(
        (measured / theory - 1.0).abs() < 0.10,
        "H/S = {measured:.4} is {:+.1}% off linear wave-maker theory's {theory:.4}",
        100.0 * (measured / theory - 1.0)
    );
    assert!(
        (period / PERIOD - 1.0).abs() < 0.03,
        "the waves' period {period:.4} s is {:+.2}% off the paddle's {PERIOD} s",
        100.0 * (period / PERIOD - 1.0)
    );
}

#[test]
fn the_wave_number_solves_the_dispersion_relation() {
    for (omega, d) in [(PI, DEPTH), (0.5, 1.0), (20.0, 0.1), (1.0, 100.0)] {
        let k = wave_number(omega, d);
        let residual = G * k * (k * d).tanh() / (omega * omega) - 1.0;
        assert!(residual.abs() < 1e-12, "omega {omega}, d {d}: {residual:e}");
    }
    // Shallow and deep limits of the theory: H/S -> kd and -> 2.
    assert!((height_over_stroke(1e-3) / 1e-3 - 1.0).abs() < 1e-3);
    assert!((height_over_stroke(20.0) - 2.0).abs() < 1e-12);
}
