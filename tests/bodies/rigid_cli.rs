//! `sphrigid inertia` end to end: PLY and OBJ meshes written here, JSON parsed, bad meshes.
#![allow(clippy::needless_range_loop)] // 3x3 index loops read as the maths
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn run(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_sphrigid"))
        .arg("inertia")
        .args(args)
        .output()
        .expect("run sphrigid")
}

/// Box 1 x 2 x 3 with its minimum corner at (10, 20, 30): vertices and outward quads.
fn box_data() -> (Vec<[f64; 3]>, Vec<Vec<u32>>) {
    let v = (0..8)
        .map(|i| {
            [
                10.0 + (i & 1) as f64,
                20.0 + 2.0 * ((i >> 1) & 1) as f64,
                30.0 + 3.0 * ((i >> 2) & 1) as f64,
            ]
        })
        .collect();
    let f = vec![
        vec![0, 4, 6, 2],
        vec![1, 3, 7, 5],
        vec![0, 1, 5, 4],
        vec![2, 6, 7, 3],
        vec![0, 2, 3, 1],
        vec![4, 5, 7, 6],
    ];
    (v, f)
}

fn write_ascii_ply(path: &Path, v: &[[f64; 3]], f: &[Vec<u32>]) {
    let mut s = format!(
        "ply\nformat ascii 1.0\ncomment test\nelement vertex {}\nproperty float x\nproperty float y\nproperty float z\nelement face {}\nproperty list uchar int vertex_indices\nend_header\n",
        v.len(),
        f.len()
    );
    for p in v {
        s += &format!("{} {} {}\n", p[0], p[1], p[2]);
    }
    for face in f {
        s += &format!("{}", face.len());
        for i in face {
            s += &format!(" {i}");
        }
        s += "\n";
    }
    std::fs::write(path, s).unwrap();
}

fn write_binary_ply(path: &Path, v: &[[f64; 3]], f: &[Vec<u32>]) {
    let mut b = format!(
        "ply\nformat binary_little_endian 1.0\nelement vertex {}\nproperty double x\nproperty double y\nproperty double z\nelement face {}\nproperty list uchar uint vertex_indices\nend_header\n",
        v.len(),
        f.len()
    )
    .into_bytes();
    for p in v {
        for c in p {
            b.extend_from_slice(&c.to_le_bytes());
        }
    }
    for face in f {
        b.push(face.len() as u8);
        for i in face {
            b.extend_from_slice(&i.to_le_bytes());
        }
    }
    std::fs::write(path, b).unwrap();
}

fn write_obj(path: &Path, v: &[[f64; 3]], f: &[Vec<u32>]) {
    let mut s = String::from("# test\no thing\n");
    for p in v {
        s += &format!("v {} {} {}\n", p[0], p[1], p[2]);
    }
    for face in f {
        s += "f";
        for i in face {
            s += &format!(" {}/{}", i + 1, i + 1);
        }
        s += "\n";
    }
    std::fs::write(path, s).unwrap();
}

fn json(path: &Path, extra: &[&str]) -> serde_json::Value {
    let p = path.to_str().unwrap();
    let mut args = vec![p, "--json"];
    args.extend_from_slice(extra);
    let out = run(&args);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("one JSON object")
}

fn num(v: &serde_json::Value) -> f64 {
    v.as_f64().expect("number")
}

fn matrix(v: &serde_json::Value) -> [[f64; 3]; 3] {
    let rows = v.as_array().expect("3 rows");
    assert_eq!(rows.len(), 3);
    let mut m = [[0.0; 3]; 3];
    for (r, row) in rows.iter().enumerate() {
        let row = row.as_array().expect("3 numbers");
        assert_eq!(row.len(), 3);
        for c in 0..3 {
            m[r][c] = num(&row[c]);
        }
    }
    m
}

fn check_box(j: &serde_json::Value, density: f64) {
    assert!((num(&j["volume"]) - 6.0).abs() < 1e-9);
    assert!((num(&j["mass"]) - 6.0 * density).abs() < 1e-9 * density);
    let com: Vec<f64> = j["com"].as_array().unwrap().iter().map(num).collect();
    assert_eq!(com.len(), 3);
    for (a, b) in com.iter().zip([10.5, 21.0, 31.5]) {
        assert!((a - b).abs() < 1e-9, "com {com:?}");
    }
    let i = matrix(&j["inertia"]);
    let expect = [6.5 * density, 5.0 * density, 2.5 * density];
    for r in 0..3 {
        for c in 0..3 {
            let e = if r == c { expect[r] } else { 0.0 };
            // Float PLY coordinates near 10..33 are exact in f32 for this box.
            assert!(
                (i[r][c] - e).abs() < 1e-9 * density,
                "I[{r}][{c}] = {}",
                i[r][c]
            );
        }
    }
    let clump = &j["clump"];
    for key in ["volume", "mass", "com", "inertia"] {
        assert!(!clump[key].is_null(), "clump.{key} missing");
    }
    assert!((num(&clump["mass"]) - 6.0 * density).abs() < 1e-9 * density);
    let ci = matrix(&clump["inertia"]);
    let fro = |m: [[f64; 3]; 3]| m.iter().flatten().map(|x| x * x).sum::<f64>().sqrt();
    let mut d = [[0.0; 3]; 3];
    for r in 0..3 {
        for c in 0..3 {
            d[r][c] = ci[r][c] - i[r][c];
        }
    }
    let rel = fro(d) / fro(i);
    assert!(
        rel < 0.02 && rel > 0.0,
        "clump inertia relative difference {rel}"
    );
    assert!((num(&j["relative_difference"]["inertia"]) - rel).abs() < 1e-9);
}

#[test]
fn inertia_json_for_ascii_and_binary_ply_and_obj_boxes() {
    let dir = tempfile::tempdir().unwrap();
    let (v, f) = box_data();
    let a = dir.path().join("box_ascii.ply");
    let b = dir.path().join("box_binary.ply");
    let o = dir.path().join("box.obj");
    write_ascii_ply(&a, &v, &f);
    write_binary_ply(&b, &v, &f);
    write_obj(&o, &v, &f);
    check_box(&json(&a, &["--density", "1"]), 1.0);
    let jb = json(&b, &["--density", "2.5", "--spacing", "0.1"]);
    check_box(&jb, 2.5);
    // 10 x 20 x 30 cells exactly.
    assert_eq!(jb["clump"]["particles"].as_u64(), Some(6000));
    assert!((num(&jb["clump"]["volume"]) - 6.0).abs() < 1e-9);
    // Default density is 1000.
    check_box(&json(&o, &[]), 1000.0);
}

#[test]
fn inertia_table_reports_the_relative_difference() {
    let dir = tempfile::tempdir().unwrap();
    let (v, f) = box_data();
    let o = dir.path().join("box.obj");
    write_obj(&o, &v, &f);
    let out = run(&[o.to_str().unwrap(), "--spacing", "0.25"]);
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.contains("exact solid") && text.contains("clump: 384 particles"),
        "{text}"
    );
    assert!(text.contains("relative difference"), "{text}");
}

#[test]
fn inside_out_mesh_is_flipped_with_a_note() {
    let dir = tempfile::tempdir().unwrap();
    let (v, mut f) = box_data();
    for face in &mut f {
        face.reverse();
    }
    let p = dir.path().join("inverted.obj");
    write_obj(&p, &v, &f);
    let j = json(&p, &["--density", "1"]);
    check_box(&j, 1.0);
    assert_eq!(j["flipped"], serde_json::Value::Bool(true));
    let out = run(&[p.to_str().unwrap()]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success() && err.contains("inverted.obj") && err.contains("flipped"),
        "{err}"
    );
}

fn assert_bad(path: &Path, words: &[&str]) {
    let out = run(&[path.to_str().unwrap(), "--json"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "stderr: {err}");
    assert!(!err.contains("panicked"), "{err}");
    assert!(out.stdout.is_empty());
    let name = path.file_name().unwrap().to_str().unwrap();
    assert!(err.contains(name), "error does not name the file: {err}");
    assert!(err.contains("fix:"), "error gives no fix: {err}");
    for w in words {
        assert!(err.contains(w), "error lacks '{w}': {err}");
    }
}

#[test]
fn bad_meshes_exit_2_naming_the_file_and_the_problem() {
    let dir = tempfile::tempdir().unwrap();
    let d = |n: &str| -> PathBuf { dir.path().join(n) };
    let (v, f) = box_data();

    let mut open = f.clone();
    open.pop();
    write_ascii_ply(&d("open.ply"), &v, &open);
    assert_bad(&d("open.ply"), &["not closed", "fill the holes"]);

    let mut flipped = f.clone();
    flipped[2].reverse();
    write_obj(&d("one_face_flipped.obj"), &v, &flipped);
    assert_bad(
        &d("one_face_flipped.obj"),
        &["inconsistently oriented", "Recalculate"],
    );

    // A closed but flat mesh: two triangles back to back.
    let flat_v = vec![[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]];
    write_obj(&d("flat.obj"), &flat_v, &[vec![0, 1, 2], vec![0, 2, 1]]);
    assert_bad(&d("flat.obj"), &["zero volume"]);

    std::fs::write(d("garbage.ply"), b"this is not a ply file\n\x00\x01").unwrap();
    assert_bad(&d("garbage.ply"), &["not a readable PLY"]);

    std::fs::write(d("binary.obj"), [0xffu8, 0xfe, 0x00, 0x41]).unwrap();
    assert_bad(&d("binary.obj"), &["not a text OBJ"]);

    std::fs::write(d("index.obj"), "v 0 0 0\nv 1 0 0\nf 1 2 7\n").unwrap();
    assert_bad(&d("index.obj"), &["index.obj:3", "refers to no vertex"]);

    assert_bad(
        &d("missing.ply"),
        &[
            "cannot read the mesh file",
            "No such file",
            "fix: check the path",
        ],
    );

    std::fs::write(d("mesh.stl"), "solid x\n").unwrap();
    assert_bad(&d("mesh.stl"), &["unknown mesh format", ".ply or .obj"]);

    // A non-manifold mesh: the box with one face duplicated.
    let mut dup = f.clone();
    dup.push(f[0].clone());
    write_obj(&d("duplicate_face.obj"), &v, &dup);
    assert_bad(&d("duplicate_face.obj"), &["not a manifold"]);
}

#[test]
fn bad_arguments_exit_2() {
    let dir = tempfile::tempdir().unwrap();
    let (v, f) = box_data();
    let o = dir.path().join("box.obj");
    write_obj(&o, &v, &f);
    let p = o.to_str().unwrap();
    for args in [
        vec![p, "--density", "-1"],
        vec![p, "--spacing", "0"],
        vec![p, "--spacing", "5"],
        vec![p, "--density", "abc"],
    ] {
        let out = run(&args);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(!err.contains("panicked"), "{err}");
    }
}
