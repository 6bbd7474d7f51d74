//! `sphrigid lcp solve` end to end: text and JSON output, exit statuses, bad input.
use std::path::Path;
use std::process::{Command, Output};

fn run(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_sphrigid"))
        .args(args)
        .output()
        .expect("run sphrigid")
}

fn write(dir: &Path, name: &str, text: &str) -> String {
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p.display().to_string()
}

fn json(out: &Output) -> serde_json::Value {
    serde_json::from_slice(&out.stdout).expect("one JSON object on stdout")
}

#[test]
fn solves_a_dense_file_in_text_and_json() {
    let dir = tempfile::tempdir().unwrap();
    let f = write(
        dir.path(),
        "deudeu.json",
        r#"{"M": [[2,1],[1,2]], "q": [-5,-6]}"#,
    );
    let out = run(&["lcp", "solve", &f]);
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("outcome: solved"), "{text}");
    assert!(text.contains("1.333333333333e0"), "{text}");
    assert!(text.contains("residuals:"), "{text}");
    for method in ["lemke", "dantzig"] {
        let out = run(&["lcp", "solve", &f, "--json", "--method", method]);
        assert_eq!(out.status.code(), Some(0));
        let v = json(&out);
        assert_eq!(v["outcome"], "solved");
        assert_eq!(v["method"], method);
        let z: Vec<f64> = serde_json::from_value(v["z"].clone()).unwrap();
        assert!((z[0] - 4.0 / 3.0).abs() < 1e-14 && (z[1] - 7.0 / 3.0).abs() < 1e-14);
        assert!(v["pivots"].as_u64().unwrap() > 0);
        assert!(v["w"].as_array().unwrap().len() == 2);
        assert!(v["residuals"]["complementarity"].as_f64().unwrap() < 1e-14);
    }
}

#[test]
fn a_ray_is_printed_and_exits_one() {
    let dir = tempfile::tempdir().unwrap();
    let f = write(
        dir.path(),
        "ray.json",
        r#"{"M": [[2,-1],[0,-2]], "q": [-1,-2]}"#,
    );
    let out = run(&["lcp", "solve", &f, "--json"]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(json(&out)["outcome"], "ray");
    let f = write(
        dir.path(),
        "murty.json",
        r#"{"M": [[1,2,2],[0,1,2],[0,0,1]], "q": [-14,-12,-8]}"#,
    );
    let out = run(&["lcp", "solve", &f, "--json", "--pivot-limit", "3"]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(json(&out)["outcome"], "pivot_limit");
    let out = run(&["lcp", "solve", &f, "--json"]);
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(json(&out)["pivots"], 8);
}

#[test]
fn boxed_dense_files_go_to_dantzig() {
    let dir = tempfile::tempdir().unwrap();
    let f = write(
        dir.path(),
        "boxed.json",
        r#"{"M": [[2,0],[0,1]], "q": [-4,3], "lo": [0,null], "hi": [1,null]}"#,
    );
    let out = run(&["lcp", "solve", &f, "--json"]);
    assert_eq!(out.status.code(), Some(0));
    let v = json(&out);
    assert_eq!(v["method"], "dantzig");
    assert_eq!(v["z"], serde_json::json!([1.0, -3.0]));
    let out = run(&["lcp", "solve", &f, "--method", "lemke"]);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn a_sample_structured_file_is_solved_by_every_method() {
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("s.json").display().to_string();
    let out = run(&[
        "lcp",
        "sample",
        &f,
        "--contacts",
        "40",
        "--bodies",
        "2",
        "--rigid",
        "3",
    ]);
    assert_eq!(out.status.code(), Some(0));
    let mut ws = vec![];
    // `structured` is the block-pivoting solver's former name and still selects it.
    for method in ["block_pivot", "structured", "lemke", "dantzig"] {
        let out = run(&["lcp", "solve", &f, "--json", "--method", method]);
        assert_eq!(out.status.code(), Some(0), "{method}");
        let v = json(&out);
        if method == "structured" {
            assert_eq!(v["method"], "block_pivot");
        }
        assert_eq!(v["outcome"], "solved");
        assert!(v["residuals"]["relative"].as_f64().unwrap() < 1e-9);
        let w: Vec<f64> = serde_json::from_value(v["w"].clone()).unwrap();
        assert_eq!(w.len(), 43);
        ws.push(w);
    }
    for other in &ws[1..] {
        for (a, b) in ws[0].iter().zip(other) {
            assert!((a - b).abs() < 1e-9);
        }
    }
}

#[test]
fn bad_input_exits_two_naming_the_file_and_place() {
    let dir = tempfile::tempdir().unwrap();
    let cases = [
        (
            "broken.json",
            r#"{"M": [[1,2],[3,4]], "q": [1,2],"#,
            "line 1",
        ),
        ("ragged.json", r#"{"M": [[1,2],[3]], "q": [1,2]}"#, "M[1]"),
        (
            "dims.json",
            r#"{"M": [[1,2],[3,4]], "q": [1,2,3]}"#,
            "q has 3",
        ),
        (
            "bounds.json",
            r#"{"M": [[1,0],[0,1]], "q": [1,2], "lo": [0, 2], "hi": [1, 1]}"#,
            "lo[1]",
        ),
        ("nan.json", r#"{"M": [[NaN]], "q": [1]}"#, "not valid JSON"),
        ("other.json", r#"{"A": 1}"#, "neither"),
        (
            "body.json",
            r#"{"bodies": [], "rows": [{"q": -1, "bodies": [{"body": 0, "j": [1,0,0,0,0,0]}]}]}"#,
            "rows[0]",
        ),
    ];
    for (name, text, place) in cases {
        let f = write(dir.path(), name, text);
        let out = run(&["lcp", "solve", &f]);
        assert_eq!(out.status.code(), Some(2), "{name}");
        let err = String::from_utf8(out.stderr).unwrap();
        assert!(err.contains(name), "{name}: {err}");
        assert!(err.contains(place), "{name}: {err}");
        assert!(!err.contains("panicked"), "{name}: {err}");
    }
    let out = run(&["lcp", "solve", "/nonexistent/problem.json"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        String::from_utf8(out.stderr)
            .unwrap()
            .contains("/nonexistent/problem.json")
    );
}
