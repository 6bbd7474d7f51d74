//! The shipped scenes' output files, byte for byte: a short CPU run of each scene must write files
//! whose FNV-1a hashes match the table below. The table was taken from main before the module
//! restructuring of issue 18, so it holds refactors to "no change in behaviour". A change that
//! is meant to alter the physics or the file format updates the table in the same commit (the
//! failure message prints the new one).
use crate::common;
use std::collections::BTreeMap;
use std::path::Path;

/// (scene, frames) run with `--backend cpu`.
const RUNS: [(&str, u32); 7] = [
    ("dam_break", 2),
    ("toppling_block", 2),
    ("floating_box", 2),
    ("hinged_gate", 2),
    ("chain", 2),
    ("viscous_elastic", 2),
    ("wrench_in_space", 2),
];

/// (scene, file relative to the run directory, FNV-1a 64 of its bytes).
#[rustfmt::skip]
const EXPECTED: &[(&str, &str, &str)] = &[
    ("dam_break", "fluid/fluid_00000.ply", "a14d0f734adea706"),
    ("dam_break", "fluid/fluid_00001.ply", "eb464541b3a954c8"),
    ("dam_break", "fluid/fluid_00002.ply", "1d481d79448e624b"),
    ("dam_break", "wall_loads.csv", "c5d628bf707c150f"),
    ("toppling_block", "body_loads.csv", "4b52cad030b674e1"),
    ("toppling_block", "fluid/fluid_00000.ply", "53ebe48596e743cc"),
    ("toppling_block", "fluid/fluid_00001.ply", "fb22b27b91ed2f61"),
    ("toppling_block", "fluid/fluid_00002.ply", "500ce2761bf10a54"),
    ("toppling_block", "rigid/block_00000.ply", "9196b5115562d3a7"),
    ("toppling_block", "rigid/block_00001.ply", "0528a0169cba4eb0"),
    ("toppling_block", "rigid/block_00002.ply", "804b561736ced6d4"),
    ("toppling_block", "rigid_states.csv", "ad241cefb52d5ed5"),
    ("toppling_block", "wall_loads.csv", "b3f2dfee59fc64c1"),
    ("floating_box", "body_loads.csv", "e43d52e1323600f4"),
    ("floating_box", "fluid/fluid_00000.ply", "6e79a4a008c503d6"),
    ("floating_box", "fluid/fluid_00001.ply", "3cb21be234308434"),
    ("floating_box", "fluid/fluid_00002.ply", "c541e92c4ccdb404"),
    ("floating_box", "rigid/box_00000.ply", "23a2dc95444d8db7"),
    ("floating_box", "rigid/box_00001.ply", "66f0477bc0cfbeae"),
    ("floating_box", "rigid/box_00002.ply", "ed3361252ca2b3c9"),
    ("floating_box", "rigid_states.csv", "195dd372ab9043f7"),
    ("floating_box", "wall_loads.csv", "3f9d30055fe683e2"),
    ("hinged_gate", "body_loads.csv", "a66f1d63a89c9959"),
    ("hinged_gate", "fluid/fluid_00000.ply", "a14d0f734adea706"),
    ("hinged_gate", "fluid/fluid_00001.ply", "eb464541b3a954c8"),
    ("hinged_gate", "fluid/fluid_00002.ply", "1d481d79448e624b"),
    ("hinged_gate", "joint_errors.csv", "21b1152a8d62f9d8"),
    ("hinged_gate", "rigid/gate_00000.ply", "0c5d88f0523b00ef"),
    ("hinged_gate", "rigid/gate_00001.ply", "d7ce40604ae896bc"),
    ("hinged_gate", "rigid/gate_00002.ply", "7c3ce36e7380ba30"),
    ("hinged_gate", "rigid_states.csv", "9f48ee386546ce15"),
    ("hinged_gate", "wall_loads.csv", "c5d628bf707c150f"),
    ("chain", "fluid/fluid_00000.ply", "fd8d939d12ca3aa8"),
    ("chain", "fluid/fluid_00001.ply", "f376ef1e4440acc1"),
    ("chain", "fluid/fluid_00002.ply", "270f9f2daaabcae6"),
    ("chain", "joint_errors.csv", "c75043eacfe8276b"),
    ("chain", "rigid/link0_00000.ply", "1398c68bf69b128e"),
    ("chain", "rigid/link0_00001.ply", "19d5f4f2e49bd46e"),
    ("chain", "rigid/link0_00002.ply", "2b6905d952af9d08"),
    ("chain", "rigid/link1_00000.ply", "c18d3c85d99ef629"),
    ("chain", "rigid/link1_00001.ply", "c79c576bde9881fd"),
    ("chain", "rigid/link1_00002.ply", "412d55678d8e568d"),
    ("chain", "rigid/link2_00000.ply", "cf893dca88bded54"),
    ("chain", "rigid/link2_00001.ply", "bc9ee3e79ea1c3f7"),
    ("chain", "rigid/link2_00002.ply", "86ac0b77c7c776ff"),
    ("chain", "rigid/link3_00000.ply", "5b51afcb5f77ad2b"),
    ("chain", "rigid/link3_00001.ply", "d53aab1cf1afe79c"),
    ("chain", "rigid/link3_00002.ply", "55e7893bab489159"),
    ("chain", "rigid/link4_00000.ply", "f6c79c94418135ba"),
    ("chain", "rigid/link4_00001.ply", "72988cc186971ad8"),
    ("chain", "rigid/link4_00002.ply", "3de47dd3a93db4ad"),
    ("chain", "rigid/link5_00000.ply", "edb2bed25615f765"),
    ("chain", "rigid/link5_00001.ply", "cf46d47bfa1d0f68"),
    ("chain", "rigid/link5_00002.ply", "b60961d3ffcb2b9b"),
    ("chain", "rigid_states.csv", "c907870c6a14033b"),
    ("viscous_elastic", "body_loads.csv", "a61c65e3b2df2501"),
    ("viscous_elastic", "fluid/fluid_00000.ply", "67b6850e78d9dbf1"),
    ("viscous_elastic", "fluid/fluid_00001.ply", "f63f3a8c51ba47fa"),
    ("viscous_elastic", "fluid/fluid_00002.ply", "e0c2dbcb4d282b08"),
    ("viscous_elastic", "rigid/block_00000.ply", "68325f1801a001f3"),
    ("viscous_elastic", "rigid/block_00001.ply", "7254310c5635e334"),
    ("viscous_elastic", "rigid/block_00002.ply", "e95b10e150040bc9"),
    ("viscous_elastic", "rigid_states.csv", "1a1b0ca9646b37f5"),
    ("viscous_elastic", "wall_loads.csv", "8ad2cd352336df29"),
    ("wrench_in_space", "fluid/fluid_00000.ply", "fd8d939d12ca3aa8"),
    ("wrench_in_space", "fluid/fluid_00001.ply", "52613f0b274d9653"),
    ("wrench_in_space", "fluid/fluid_00002.ply", "e1902f424759727a"),
    ("wrench_in_space", "rigid/wrench_00000.ply", "e26e8720fb888ccd"),
    ("wrench_in_space", "rigid/wrench_00001.ply", "7da291f2bf1b41b5"),
    ("wrench_in_space", "rigid/wrench_00002.ply", "b157eab62e6ae6b5"),
    ("wrench_in_space", "rigid_states.csv", "b331b72bfd112220"),
];

fn fnv1a(bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in bytes {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

/// Files left out of the table: the manifest (it names the program version and the scene path,
/// and records the wall-clock time) and `run_metrics.csv` (added after the table was taken, by
/// issue 17; its energies and leak depths are figures computed from the frames, not part of
/// them, and `tests/output/sweep_jobs.rs` checks them against the simulation itself), the checkpoint
/// (issue 14: it records the wall-clock time; `tests/output/resume.rs` holds what it restores
/// to the frames' bytes) and the directory's lock file (it names the process).
const EXCLUDED: [&str; 4] = [
    "manifest.json",
    "run_metrics.csv",
    "checkpoint.bin",
    ".sphrigid.lock",
];

/// Every file under `dir`, relative to it, with '/' separators, except the [`EXCLUDED`] ones.
fn files(dir: &Path, rel: &str, out: &mut BTreeMap<String, u64>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .expect("the run directory exists")
        .map(|e| e.unwrap().path())
        .collect();
    entries.sort();
    for p in entries {
        let name = p.file_name().unwrap().to_string_lossy().into_owned();
        let r = if rel.is_empty() {
            name.clone()
        } else {
            format!("{rel}/{name}")
        };
        if p.is_dir() {
            files(&p, &r, out);
        } else if !EXCLUDED.contains(&name.as_str()) {
            out.insert(r, fnv1a(&std::fs::read(&p).unwrap()));
        }
    }
}

#[test]
fn shipped_scenes_write_the_same_bytes_as_before() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let tmp = tempfile::tempdir().unwrap();
    let mut got: Vec<(String, String, u64)> = Vec::new();
    for (scene, frames) in RUNS {
        let out = tmp.path().join(scene);
        let file = root.join("scenes").join(format!("{scene}.toml"));
        let o = common::sphrigid(&[
            "run",
            file.to_str().unwrap(),
            "--backend",
            "cpu",
            "--quiet",
            "--frames",
            &frames.to_string(),
            "--out",
            out.to_str().unwrap(),
        ]);
        assert!(
            o.status.success(),
            "{scene}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
        let mut map = BTreeMap::new();
        files(&out, "", &mut map);
        for (f, h) in map {
            got.push((scene.to_string(), f, h));
        }
    }
    let table: String = got
        .iter()
        .map(|(s, f, h)| format!("    (\"{s}\", \"{f}\", \"{h:016x}\"),\n"))
        .collect();
    let expected: Vec<(String, String, String)> = EXPECTED
        .iter()
        .map(|(s, f, h)| (s.to_string(), f.to_string(), h.to_string()))
        .collect();
    let actual: Vec<(String, String, String)> = got
        .iter()
        .map(|(s, f, h)| (s.clone(), f.clone(), format!("{h:016x}")))
        .collect();
    assert!(
        !expected.is_empty() && expected == actual,
        "the shipped scenes' files differ from the recorded bytes; the files now hash as:\n{table}"
    );
}
