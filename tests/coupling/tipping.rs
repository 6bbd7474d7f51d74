//! A block held back by a static water column tips exactly when the moment balance about its
//! dry toe says it should.
//!
//! A block of width `b`, height `h` and density ratio `s` stands on the floor of a thin tank
//! with a column of water of depth `H` against one face and none against the other. Its base
//! is sealed (it stands on the floor, no water under it), and friction 1 keeps it from
//! sliding (the push `rho g H^2 / 2` is at most 0.65 of the weight `s rho g b h` here). About
//! the dry toe the water's moment is `rho g H^3 / 6` and the weight's `s rho g b^2 h / 2`, so
//! the block tips above `H* = (3 s b^2 h)^(1/3)`. With `b` = 0.04 m, `h` = 0.16 m and `s` =
//! 2.5, `H*` = 0.124 m; the columns are 15% below (0.106 m) and above (0.143 m, still below
//! the top), at 8 and 10 particles across the block (spacings 0.005 and 0.004).
//!
//! The tank is 2D-like: four particle spacings deep, the block one spacing shallower than the
//! tank so that it touches neither side wall (side walls would add friction moments that the
//! plane balance has no place for) while no particle fits through the half-spacing gaps; the
//! water pushes it over its own depth (`boundary::gap`), as the plane balance assumes. The block is held
//! in place while the column settles from its lattice start (its start-up compression would
//! otherwise rock the block), then released and watched for one second.
//!
//! Bounds. Below the threshold the restoring moment is 1.6 times the water's: the block may
//! rock by the compliance of its contacts and the liquid's pressure noise, a fraction of a
//! degree, so it must stay under 2 degrees. Above it the water's moment is 1.5 times the
//! weight's; as the block tilts the weight's arm shrinks and water runs under the lifted heel,
//! so nothing stops it: it must pass 20 degrees within the second (the unopposed net moment
//! alone would take it there in about a quarter of a second).
use crate::common;

use glam::DVec3;
use sphrigid::backend::Backend;
use sphrigid::sim::Simulation;

/// Block width (along the push), m.
const B: f64 = 0.04;
/// Block height, m.
const H_BLOCK: f64 = 0.16;
/// Block density over the liquid's.
const S: f64 = 2.5;
/// Length of the water column, m.
const COLUMN: f64 = 0.15;
/// Frames per second of the runs.
const FPS: u32 = 50;
/// Frames the block is held while the column settles.
const HOLD_FRAMES: u32 = 15;
/// Frames watched after the release.
const WATCH_FRAMES: u32 = 50;
/// Largest tilt, degrees, of a block that stands.
const STANDS_BELOW: f64 = 2.0;
/// Tilt, degrees, a block that tips must pass.
const TIPS_PAST: f64 = 20.0;

/// The tipping depth of the moment balance about the dry toe, sealed base.
fn tipping_depth() -> f64 {
    (3.0 * S * B * B * H_BLOCK).cbrt()
}

/// What one run measured.
struct Run {
    /// Depth of the column when the block was released: mean height of the highest particle
    /// of each column of the lattice away from the block, plus half a spacing, m.
    settled_depth: f64,
    /// Tilt after every frame after the release, degrees.
    tilts: Vec<f64>,
    /// Largest horizontal travel of the dry toe (the bottom edge it tips about) while the
    /// tilt is below [`TIPS_PAST`], m: tipping about it, not sliding, keeps it near zero.
    toe_slide: f64,
    /// The error that stopped the run early, if any (with the path of its dumped problem).
    error: Option<String>,
}

/// Hold the block while a column of depth `depth` settles at `spacing`, release it and watch.
fn run(spacing: f64, depth: f64) -> Run {
    let d = 4.0 * spacing;
    let text = format!(
        r#"
gravity = [0, -9.81, 0]
[time]
fps = {FPS}
frames = {frames}
[container]
min = [0, 0, 0]
max = [{xmax}, 0.3, {d}]
[[liquid]]
min = [0, 0, 0]
max = [{COLUMN}, {depth}, {d}]
spacing = {spacing}
viscosity = {{ sigma = 0.5, beta = 0.0 }}
[[body]]
name = "block"
shape = {{ type = "box", size = [{B}, {H_BLOCK}, {bd}] }}
position = [{bx}, {by}, {bz}]
density = {density}
friction = 1.0
restitution = 0.0
"#,
        frames = HOLD_FRAMES + WATCH_FRAMES,
        xmax = COLUMN + B + H_BLOCK + 0.05,
        bd = d - spacing,
        bx = COLUMN + B / 2.0,
        by = H_BLOCK / 2.0,
        bz = d / 2.0,
        density = S * 1000.0,
    );
    let loaded = common::scene(&text);
    let mut sim = Simulation::setup(&loaded, Backend::Cpu).expect("it sets up");
    let held = sim.bodies[0].state;
    for _ in 0..HOLD_FRAMES * sim.substeps {
        sim.step().expect("the step runs");
        sim.bodies[0].state = held;
    }
    let settled_depth = surface(&sim, spacing);
    let toe = DVec3::new(B / 2.0, -H_BLOCK / 2.0, 0.0);
    let toe0 = sim.bodies[0].world_point(toe).x;
    let mut tilts = Vec::new();
    let mut toe_slide = 0.0f64;
    let mut error = None;
    for _ in 0..WATCH_FRAMES {
        if let Err(e) = sim.advance_frame() {
            let mut msg = format!("step {}: {e}", sim.steps + 1);
            if let Some(f) = sim.failed_lcp.take() {
                let path = std::env::temp_dir().join(format!(
                    "coupling_tipping_{spacing}_{depth:.4}_failed_lcp_{}.json",
                    sim.steps + 1
                ));
                let file = sphrigid::lcp::io::ProblemFile::Structured(f.problem);
                if sphrigid::lcp::io::save(&path, &file).is_ok() {
                    msg += &format!(" (problem in {})", path.display());
                }
            }
            error = Some(msg);
            break;
        }
        let b = &sim.bodies[0];
        let tilt = b.rotation().y_axis.y.clamp(-1.0, 1.0).acos().to_degrees();
        tilts.push(tilt);
        if tilt < TIPS_PAST {
            toe_slide = toe_slide.max((b.world_point(toe).x - toe0).abs());
        }
    }
    Run {
        settled_depth,
        tilts,
        toe_slide,
        error,
    }
}

/// Mean top of the liquid over the lattice columns in the middle half of the column (away from
/// the far wall and the block), plus half a spacing.
fn surface(sim: &Simulation, spacing: f64) -> f64 {
    let (lo, hi) = (0.25 * COLUMN, 0.75 * COLUMN);
    let mut tops: std::collections::BTreeMap<(i64, i64), f64> = Default::default();
    for p in &sim.particles().pos {
        let (x, y, z) = (p.x as f64, p.y as f64, p.z as f64);
        if x < lo || x > hi {
            continue;
        }
        let key = ((x / spacing).floor() as i64, (z / spacing).floor() as i64);
        let top = tops.entry(key).or_insert(f64::MIN);
        *top = top.max(y);
    }
    tops.values().sum::<f64>() / tops.len() as f64 + 0.5 * spacing
}

#[test]
#[ignore = "validation tier: cargo test -- --include-ignored"]
fn the_block_stands_below_the_tipping_depth_and_tips_above_it() {
    let hs = tipping_depth();
    let mut failures = Vec::new();
    for spacing in [0.005, 0.004] {
        for (factor, tips) in [(0.85, false), (1.15, true)] {
            let depth = factor * hs;
            let r = run(spacing, depth);
            let max = r.tilts.iter().copied().fold(0.0, f64::max);
            // Frames after the release are counted from 1.
            let past = r.tilts.iter().position(|&t| t > TIPS_PAST).map(|i| i + 1);
            eprintln!(
                "spacing {spacing} m, H = {depth:.4} m ({factor} H*, H* = {hs:.4} m), settled \
                 {:.4} m: max tilt {max:.2} deg, past {TIPS_PAST} deg at frame {past:?} \
                 after the release, toe slide {:.5} m; tilts {:.1?}",
                r.settled_depth, r.toe_slide, r.tilts
            );
            let at = format!("spacing {spacing}, {factor} H*");
            if let Some(e) = r.error {
                failures.push(format!("{at}: the run stopped at {e}"));
                continue;
            }
            if tips && past.is_none() {
                failures.push(format!("{at}: the block tilts to only {max:.2} degrees"));
            }
            if !tips && max >= STANDS_BELOW {
                failures.push(format!("{at}: the block tilts to {max:.2} degrees"));
            }
            // Tipping, not sliding: the toe stays within a quarter spacing until the block is
            // well over.
            if r.toe_slide > 0.25 * spacing {
                failures.push(format!("{at}: the toe slides {:.5} m", r.toe_slide));
            }
        }
    }
    assert!(failures.is_empty(), "{failures:#?}");
}
