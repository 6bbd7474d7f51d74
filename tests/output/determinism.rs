//! The same scene gives byte-identical frames, run twice and on any number of threads.
use crate::common;
use sphrigid::backend::Backend;
use sphrigid::output::fluid_frames::encode_fluid;
use sphrigid::sim::Simulation;

const SCENE: &str = r#"
    [time]
    fps = 100
    [container]
    min = [0, 0, 0]
    max = [0.2, 0.1, 0.05]
    [[liquid]]
    min = [0, 0, 0]
    max = [0.05, 0.08, 0.05]
    spacing = 0.005
    viscosity = { sigma = 1, beta = 0.5 }
"#;

fn frames_on(threads: usize) -> Vec<Vec<u8>> {
    let scene = common::scene(SCENE);
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .unwrap();
    pool.install(|| {
        let mut sim = Simulation::new(&scene.scene);
        (0..6)
            .map(|f| {
                sim.advance_frame().unwrap();
                encode_fluid(sim.particles(), sim.liquid.params(), f, sim.time)
            })
            .collect()
    })
}

#[test]
fn frames_are_identical_on_one_and_three_threads() {
    let a = frames_on(1);
    let b = frames_on(3);
    assert_eq!(a.len(), b.len());
    for (k, (x, y)) in a.iter().zip(&b).enumerate() {
        assert!(x == y, "frame {k} differs between 1 and 3 threads");
    }
}

/// A box floating on the liquid: the bodies' boundary kernel sums and the coupling take part.
const SCENE_WITH_BODY: &str = r#"
    [time]
    fps = 100
    [container]
    min = [0, 0, 0]
    max = [0.1, 0.1, 0.05]
    [[liquid]]
    min = [0, 0, 0]
    max = [0.1, 0.05, 0.05]
    spacing = 0.005
    [[body]]
    name = "box"
    shape = { type = "box", size = [0.04, 0.02, 0.03] }
    position = [0.05, 0.055, 0.025]
    density = 500
"#;

#[test]
fn frames_with_a_body_are_identical_on_one_and_three_threads() {
    let scene = common::scene(SCENE_WITH_BODY);
    let run = |threads: usize| {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        pool.install(|| {
            let mut sim = Simulation::setup(&scene, Backend::Cpu).unwrap();
            assert!(!sim.body_boundary.is_empty(), "no body boundary particles");
            (0..4)
                .map(|f| {
                    sim.advance_frame().unwrap();
                    let b = &sim.bodies[0].state;
                    (
                        encode_fluid(sim.particles(), sim.liquid.params(), f, sim.time),
                        b.x.to_array(),
                        b.q.to_array(),
                    )
                })
                .collect::<Vec<_>>()
        })
    };
    let (a, b) = (run(1), run(3));
    for (k, (x, y)) in a.iter().zip(&b).enumerate() {
        assert!(x.0 == y.0, "frame {k} differs between 1 and 3 threads");
        assert_eq!((x.1, x.2), (y.1, y.2), "body state of frame {k} differs");
    }
    // The box moved: the frames test a running coupling.
    assert_ne!(a[0].1, a[3].1);
}

#[test]
fn two_runs_of_the_binary_write_identical_files() {
    let dir = tempfile::tempdir().unwrap();
    let scene = dir.path().join("s.toml");
    std::fs::write(&scene, SCENE).unwrap();
    let outs = ["a", "b"].map(|o| dir.path().join(o));
    for out in &outs {
        let r = common::sphrigid(&[
            "run",
            scene.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
            "--frames",
            "5",
            "--quiet",
        ]);
        assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
    }
    for f in 0..=5 {
        let name = format!("fluid/fluid_{f:05}.ply");
        let a = std::fs::read(outs[0].join(&name)).unwrap();
        let b = std::fs::read(outs[1].join(&name)).unwrap();
        assert!(a == b, "{name} differs between the two runs");
    }
}
