//! What a run writes: frames an independent PLY reader reads back as the same particles, and a
//! manifest that lists every frame.
use crate::common;
use sphrigid::output::fluid_frames::encode_fluid;
use sphrigid::sim::Simulation;

const SCENE: &str = r#"
    [time]
    fps = 50
    frames = 3
    [container]
    min = [0, 0, 0]
    max = [0.1, 0.1, 0.1]
    [[liquid]]
    min = [0, 0, 0]
    max = [0.04, 0.06, 0.04]
    spacing = 0.005
    density = 998
"#;

#[test]
fn a_frame_read_by_ply_rs_bw_holds_the_same_particles() {
    let scene = common::scene(SCENE);
    let mut sim = Simulation::new(&scene.scene);
    sim.advance_frame().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("f.ply");
    std::fs::write(
        &path,
        encode_fluid(sim.particles(), sim.liquid.params(), 1, sim.time),
    )
    .unwrap();
    let read = common::read_fluid_ply(&path);
    let p = sim.particles();
    assert_eq!(read.len(), p.len());
    let slots = p.slots_by_id();
    for (k, (vals, id)) in read.iter().enumerate() {
        assert_eq!(*id as usize, k, "vertices are written in id order");
        let s = slots[k] as usize;
        let (x, v) = (p.pos[s], p.vel[s]);
        assert_eq!(&vals[..6], &[x.x, x.y, x.z, v.x, v.y, v.z]);
        let density = 998.0 * p.rho[s] / sim.liquid.params().rho0;
        assert_eq!(vals[6], density);
    }
    // Interior particles of a fresh block are near the rest density.
    let mean = read.iter().map(|r| r.0[6]).sum::<f32>() / read.len() as f32;
    assert!(mean > 500.0 && mean < 1100.0, "mean density {mean}");
}

#[test]
fn run_writes_frames_and_a_manifest_that_lists_them() {
    let dir = tempfile::tempdir().unwrap();
    let scene = dir.path().join("s.toml");
    std::fs::write(&scene, SCENE).unwrap();
    let out = dir.path().join("out");
    let r = common::sphrigid(&[
        "run",
        scene.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--quiet",
    ]);
    assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
    let m: serde_json::Value = common::read_manifest(&out);
    assert_eq!(m["complete"], true);
    assert_eq!(m["backend"], "cpu");
    assert_eq!(m["particles"], 8 * 12 * 8);
    assert_eq!(m["particle_radius"].as_f64().unwrap(), 0.0025f32 as f64);
    let frames = m["frames"].as_array().unwrap();
    assert_eq!(frames.len(), 4, "frame 0 and three more");
    for (k, f) in frames.iter().enumerate() {
        assert_eq!(f["index"], k);
        assert!((f["time"].as_f64().unwrap() - k as f64 / 50.0).abs() < 1e-12);
        let ply = out.join(f["fluid"].as_str().unwrap());
        assert_eq!(common::read_fluid_ply(&ply).len(), 8 * 12 * 8);
        // Each frame's size and CRC-32, as written.
        let bytes = std::fs::read(&ply).unwrap();
        let sum = &f["checksums"][f["fluid"].as_str().unwrap()];
        assert_eq!(sum["bytes"], bytes.len());
        assert_eq!(sum["crc32"], format!("{:08x}", crc32fast::hash(&bytes)));
    }
    // And each table's, as of the last frame.
    let metrics = std::fs::read(out.join("run_metrics.csv")).unwrap();
    assert_eq!(m["tables"]["run_metrics.csv"]["bytes"], metrics.len());
    assert_eq!(
        m["tables"]["run_metrics.csv"]["crc32"],
        format!("{:08x}", crc32fast::hash(&metrics))
    );
    // No temporary file is left behind.
    let leftovers: Vec<_> = std::fs::read_dir(out.join("fluid"))
        .unwrap()
        .filter(|e| {
            e.as_ref()
                .unwrap()
                .file_name()
                .to_string_lossy()
                .ends_with(".tmp")
        })
        .collect();
    assert!(leftovers.is_empty());
}

#[test]
fn set_overrides_a_scene_value_by_its_dotted_path() {
    let dir = tempfile::tempdir().unwrap();
    let scene = dir.path().join("s.toml");
    std::fs::write(&scene, SCENE).unwrap();
    let out = dir.path().join("out");
    let r = common::sphrigid(&[
        "run",
        scene.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--quiet",
        "--set",
        "liquid.0.viscosity.sigma=0.5",
        "--set",
        "time.frames=1",
    ]);
    assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
    let m: serde_json::Value = common::read_manifest(&out);
    assert_eq!(m["scene"]["liquid"][0]["viscosity"]["sigma"], 0.5);
    assert_eq!(m["frames"].as_array().unwrap().len(), 2);
}
