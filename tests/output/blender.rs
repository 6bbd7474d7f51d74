//! The Blender add-on (integrations/blender/sphrigid_blender.py) run in Blender 5.0.1's `bpy`
//! from pip: frame 5 of a small dam break and of a dropped block loads with the PLY's point
//! count, positions, velocity vectors, integer ids and body pose; a 64x48 Cycles render of it
//! is not blank; a directory without a manifest is refused in one line. Blender's own USD
//! importer reads `sphrigid export --to usd` as the same points. A dam break with its liquid
//! surface (`sphrigid surface`) loads as one surface object whose mesh is each frame's PLY
//! (vertices, triangles, normals, velocity; its topology changing from frame 0 to 5), in water
//! and in the camera's view, and a render shows it (the pixels it covers change when it is
//! hidden); Blender's USD importer reads the surface mesh with each frame's topology.
use crate::common;
use std::path::Path;

#[test]
fn the_addon_loads_frame_5_and_renders_it() {
    let Some(python) = common::python_with(&["bpy", "numpy"]) else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let (dam, block) = (dir.path().join("dam"), dir.path().join("block"));
    common::small_run("dam_break.toml", &[], &dam);
    let r = common::sphrigid(&["export", dam.to_str().unwrap(), "--to", "usd"]);
    assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
    // Dropped from 7 cm above its resting height, so that its pose changes by frame 5.
    common::small_run(
        "toppling_block.toml",
        &["body.0.position=[0.5, 0.15, 0.05]"],
        &block,
    );
    // The same dam break with its liquid surface, exported to USD.
    let surf = dir.path().join("surface");
    common::small_run("dam_break.toml", &[], &surf);
    for args in [
        vec!["surface", surf.to_str().unwrap()],
        vec!["export", surf.to_str().unwrap(), "--to", "usd"],
    ] {
        let r = common::sphrigid(&args);
        assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let png = dir.path().join("block.png");
    let out = common::run_python(
        &python,
        &root.join("tests/python/check_blender.py"),
        &[
            root.join("integrations/blender").to_str().unwrap(),
            dam.to_str().unwrap(),
            block.to_str().unwrap(),
            "block",
            "5",
            png.to_str().unwrap(),
            surf.to_str().unwrap(),
        ],
    );
    println!("{out}");
    for line in [
        "fluid frame 5: 1500 points",
        "usd stage in Blender, frame 5: 1500 points at the PLY positions",
        "body block frame 5: 8 vertices at the PLY pose",
        "render of frame 5: 64x48",
        "a directory without manifest.json: exit 2, one line",
        "a missing fluid frame: one line, frame 5 still loads, exit 2",
        "surface frame 5: ",
        "render of the surface at frame 5: 64x48, all its vertices in view",
        "--points loads the particles of a run with a surface, exit 0",
        "usd surface in Blender: frames 0 and 5 have the PLYs'",
    ] {
        assert!(out.contains(line), "{line} not in\n{out}");
    }
    assert!(png.metadata().unwrap().len() > 1000);
    assert!(
        dir.path()
            .join("block_surface.png")
            .metadata()
            .unwrap()
            .len()
            > 1000
    );
}
