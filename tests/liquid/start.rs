//! A column of liquid starts from rest: settled before time 0 (`[solver] settle`, on by
//! default), its top does not rise in the first 0.05 s, where the unsettled lattice's top
//! is thrown up by its free surface's near pressure when that is stiff (the old fixed
//! `near_stiffness = 1`, 14 g h here); the derived default does not throw it up either.
use crate::common;
use sphrigid::sim::Simulation;

/// Width of the column (Martin & Moyce's a), m; the column is 2a tall.
const A: f64 = 0.05715;
/// Particles across the column's width.
const ACROSS: usize = 16;

/// The column's top: the mean height of its highest layer over the back half (x < a/2), where
/// the collapse has not yet reached in 0.05 s.
fn top(sim: &Simulation) -> f32 {
    let mut y: Vec<f32> = sim
        .particles()
        .pos
        .iter()
        .filter(|x| (x.x as f64) < A / 2.0)
        .map(|x| x.y)
        .collect();
    y.sort_by(|a, b| b.total_cmp(a));
    let layer = (ACROSS / 2) * 7;
    y[..layer].iter().sum::<f32>() / layer as f32
}

/// The largest rise of the column's top above its height at time 0 over the first 0.05 s, in
/// spacings, for a slab dam break with `settle` on or off.
fn rise(settle: bool, near: Option<f64>) -> f32 {
    let near = near.map_or(String::new(), |k| format!("near_stiffness = {k}"));
    let s = A / ACROSS as f64;
    let scene = common::scene(&format!(
        r#"
        [time]
        fps = 1000
        [solver]
        settle = {settle}
        [container]
        min = [0, 0, 0]
        max = [0.4, 0.16, {depth}]
        [[liquid]]
        min = [0, 0, 0]
        max = [{A}, {h}, {depth}]
        spacing = {s}
        {near}
        "#,
        depth = 7.0 * s,
        h = 2.0 * A,
    ));
    let mut sim = Simulation::new(&scene.scene);
    let y0 = top(&sim);
    let mut rise = f32::MIN;
    while sim.time < 0.05 {
        sim.step().unwrap();
        rise = rise.max(top(&sim) - y0);
    }
    let rise = rise / s as f32;
    eprintln!("settle = {settle} {near}: the top rises {rise:.3} spacings in 0.05 s");
    rise
}

#[test]
fn a_settled_column_top_does_not_rise_but_an_unsettled_one_does() {
    for near in [None, Some(1.0)] {
        let settled = rise(true, near);
        assert!(
            settled <= 0.25,
            "the settled column's top rose {settled:.3} spacings (limit 0.25)"
        );
    }
    let raw = rise(false, Some(1.0));
    assert!(
        raw > 0.25,
        "the unsettled lattice's top rose only {raw:.3} spacings: the test no longer tells the two apart"
    );
    let raw = rise(false, None);
    assert!(
        raw <= 0.25,
        "with the derived near stiffness the unsettled lattice's top rose {raw:.3} spacings"
    );
}
