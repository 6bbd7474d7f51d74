//! The surface worker of a run: a frame whose surface cannot be built is reported and the
//! others go on.
use crate::backend::Backend;
use crate::output::manifest::FrameRef;
use crate::output::{Claim, RunDir};
use crate::sim::surfaces::SurfaceWorker;
use crate::sim::{RunOptions, run};
use crate::surface::SurfaceParams;
use std::path::Path;

/// Run `scenes/dam_break.toml` for one frame on a coarse lattice (0.02 m) into `out`, as
/// `sphrigid run SCENE --backend cpu --frames 1 --set liquid.0.spacing=0.02` does.
fn run_one_frame(out: &Path) {
    let scene = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenes/dam_break.toml");
    let sets = ["liquid.0.spacing=0.02".to_string()];
    let loaded = crate::scene::load(&scene, &sets).expect("the scene loads");
    let opts = RunOptions {
        out: out.to_path_buf(),
        frames: Some(1),
        backend: Backend::Cpu,
        backend_explicit: true,
        command: "sphrigid run dam_break.toml".into(),
        claim: Claim::Refuse,
        checkpoint_every: 0,
        stop: None,
    };
    run(&loaded, &opts, &mut |_| {}, &mut |_| {}).expect("the run succeeds");
}

#[test]
fn a_frame_whose_surface_fails_is_reported_and_the_rest_go_on() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("run");
    run_one_frame(&out);
    let rd = RunDir::new(&out);
    let frame = |index: u32| FrameRef {
        index,
        time: 0.0,
        fluid: rd.fluid_frame(index),
        rigid: Default::default(),
        surface: None,
    };
    let mut w = SurfaceWorker::start(&rd, None, SurfaceParams::for_run(0.01, 0.04));
    let mut done = w.submit(frame(0)).unwrap();
    done.extend(w.submit(frame(7)).unwrap());
    done.extend(w.submit(frame(1)).unwrap());
    done.extend(w.finish().unwrap());
    done.sort();
    assert_eq!(done, [0, 1]);
    assert_eq!(w.failures.len(), 1);
    let (index, e) = &w.failures[0];
    assert_eq!(*index, 7);
    assert!(e.to_string().contains("fluid_00007.ply"), "{e}");
    assert!(rd.surface_frame(1).is_file() && !rd.surface_frame(7).exists());
}
