//! The figure: the block of scenes/toppling_block.toml, hit by the surge, tips past 60 degrees
//! and comes to lie on its side; the same block ten times denser stays standing; while a block
//! stands its tilt is a clean curve, with no jitter. No liquid leaks into the block at any frame.
use crate::common;

/// Frames of the scene (45 at 30 fps, 1.5 s).
const FRAMES: u32 = 45;

/// Frames the toppled block is followed for (3 s): the liquid that runs under it floats it (its
/// density is 400, its draft lying down 0.016 m, the liquid 0.047 m deep on average), so at
/// the scene's 1.5 s it still drifts and rocks with the sloshing liquid.
const SETTLED_FRAMES: u32 = 90;

/// Tilt in degrees (angle of the body's y axis from the world's), angular speed, and the
/// height of the body's lowest point in liquid spacings (the floor row's particles reach up to
/// one) after every frame of the toppling scene with the given overrides, for `frames` frames.
fn tilt_per_frame(sets: &[&str], frames: u32) -> Vec<(f64, f64, f64)> {
    let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
    let mut out = Vec::new();
    common::run_scene_without_leaks("toppling_block.toml", &sets, frames, |sim, _| {
        let b = &sim.bodies[0];
        let up = b.rotation().y_axis;
        let tilt = up.y.clamp(-1.0, 1.0).acos().to_degrees();
        let spacing = sim.liquid.params().spacing as f64;
        let lowest = b
            .posed_surface()
            .vertices
            .iter()
            .map(|v| v.y)
            .fold(f64::MAX, f64::min);
        out.push((tilt, b.angular_velocity().length(), lowest / spacing));
    });
    out
}

/// Largest frame-to-frame reversal of the tilt (a fall down then up again) while it stays below
/// `below` degrees: a clean curve rises without wobbling back.
fn jitter_below(tilts: &[f64], below: f64) -> f64 {
    tilts
        .windows(3)
        .filter(|w| w.iter().all(|&t| t < below))
        .map(|w| {
            let (a, b) = (w[1] - w[0], w[2] - w[1]);
            if a * b < 0.0 {
                a.abs().min(b.abs())
            } else {
                0.0
            }
        })
        .fold(0.0, f64::max)
}

#[test]
#[ignore = "validation tier: cargo test -- --include-ignored"]
fn the_block_topples_and_lies_on_its_side() {
    let frames = tilt_per_frame(&[], SETTLED_FRAMES);
    let tilts: Vec<f64> = frames.iter().map(|f| f.0).collect();
    let max = tilts[..FRAMES as usize].iter().copied().fold(0.0, f64::max);
    let (last, spin, lowest) = *frames.last().unwrap();
    eprintln!("tilt per frame: {tilts:.1?}");
    eprintln!("at the end: spin {spin:.3} rad/s, lowest point {lowest:.2} spacings");
    assert!(
        max > 60.0,
        "the block tips to only {max:.1} degrees within the scene's {FRAMES} frames"
    );
    // On its side: a quarter turn, give or take the liquid under it (a block of 0.04 m lying
    // on one layer of particles leans by atan(0.01 / 0.04), 14 degrees, at most), over the
    // last half second and not only at the end: it does not stand up again.
    for (i, &t) in tilts.iter().enumerate().skip(SETTLED_FRAMES as usize - 15) {
        assert!(
            (t - 90.0).abs() < 15.0,
            "the block is at {t:.1} degrees at frame {}, not on its side",
            i + 1
        );
    }
    assert!(
        (last - 90.0).abs() < 15.0,
        "the block ends at {last:.1} degrees, not on its side"
    );
    // A block resting on the floor row (its lowest point within half a spacing of the row's
    // top) lies still. One that the liquid floats (liquid under it, lifted by the returning
    // slosh) rocks with the liquid, which no settle time removes in a sloshing tank; for it the
    // check is the tilt above, within 15 degrees of 90 at every one of the last 15 frames.
    if lowest < 1.5 {
        assert!(
            spin < 0.5,
            "the block rests on the floor (lowest point {lowest:.2} spacings) but still turns at {spin:.2} rad/s"
        );
    } else {
        eprintln!(
            "the block floats at the end: lowest point {lowest:.2} spacings, spin {spin:.2} rad/s"
        );
    }
    // Before the surge arrives the block stands still: exactly upright, no wobble.
    let first_move = tilts.iter().position(|&t| t > 0.5).expect("it tips");
    assert!(
        first_move >= 3,
        "the block tilts at frame {first_move}, before the surge"
    );
    for &t in &tilts[..first_move] {
        assert!(t < 0.1, "the standing block wobbles to {t:.3} degrees");
    }
    // On the way over the curve rises cleanly: no reversal above 0.5 degrees until it lands.
    let j = jitter_below(&tilts, 60.0);
    assert!(
        j < 0.5,
        "the tilt reverses by {j:.2} degrees on the way over"
    );
}

#[test]
#[ignore = "validation tier: cargo test -- --include-ignored"]
fn the_block_ten_times_denser_stays_standing() {
    let frames = tilt_per_frame(&["body.0.density=4000"], FRAMES);
    let tilts: Vec<f64> = frames.iter().map(|f| f.0).collect();
    let max = tilts.iter().copied().fold(0.0, f64::max);
    eprintln!("tilt per frame: {tilts:.2?}");
    // Standing: the surge may rock it by a degree; tipping needs 14 (atan of 0.04 / 0.16).
    assert!(max < 2.0, "the dense block tilts to {max:.2} degrees");
    let j = jitter_below(&tilts, 90.0);
    assert!(
        j < 0.2,
        "the standing block's tilt jitters by {j:.3} degrees"
    );
    let (last, _, _) = *frames.last().unwrap();
    assert!(
        last < 1.0,
        "the dense block ends tilted by {last:.2} degrees"
    );
}
