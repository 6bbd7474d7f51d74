//! Bad joint definitions get one clear error naming the file, the line, the key and the fix,
//! exit status 2 and no panic, from `sphrigid check` and `sphrigid run` alike; a run refused so
//! writes nothing.
use crate::common;
use std::path::Path;

/// A gate hinged to the world and a static post; the joint's keys start at line 17.
const GOOD: &str = r#"gravity = [0, -9.81, 0]
[time]
fps = 50
frames = 2
substeps = 10
[[body]]
name = "gate"
shape = { type = "box", size = [0.02, 0.2, 0.1] }
spacing = 0.01
position = [0, 0.1, 0]
[[body]]
name = "post"
shape = { type = "box", size = [0.05, 0.05, 0.05] }
dynamic = false
position = [0, 0.3, 0]
[[joint]]
type = "hinge"
bodies = ["gate", "world"]
anchor = [0, 0.2, 0]
axis = [0, 0, 1]
"#;

/// Run `sphrigid <command>` on `text` and check the error: exit status 2, one line, no panic,
/// naming the file and a fix and every word of `must_name`.
fn check_bad(command: &str, text: &str, must_name: &[&str]) {
    let dir = tempfile::tempdir().unwrap();
    let scene = dir.path().join("bad.toml");
    std::fs::write(&scene, text).unwrap();
    let out = dir.path().join("out");
    let mut args = vec![command, scene.to_str().unwrap()];
    if command == "run" {
        args.extend(["--out", out.to_str().unwrap(), "--quiet"]);
    }
    let r = common::sphrigid(&args);
    let err = String::from_utf8_lossy(&r.stderr);
    let err: Vec<&str> = err
        .lines()
        .filter(|l| !l.contains("XDG_RUNTIME_DIR"))
        .collect();
    let err = err.join("\n");
    assert_eq!(
        r.status.code(),
        Some(2),
        "{command}:\n{text}\nstderr: {err}"
    );
    assert!(!err.contains("panicked"), "{err}");
    let message: Vec<&str> = err.lines().filter(|l| l.starts_with("error")).collect();
    assert_eq!(message.len(), 1, "one error line: {err}");
    for word in must_name.iter().chain(&["bad.toml", "fix:"]) {
        assert!(
            message[0].contains(word),
            "the message should name {word:?}: {err}"
        );
    }
    if command == "run" {
        assert!(
            !out.join("manifest.json").exists(),
            "a refused run wrote frames"
        );
    }
}

#[test]
fn the_good_scene_checks_and_runs() {
    let dir = tempfile::tempdir().unwrap();
    let scene = dir.path().join("good.toml");
    std::fs::write(&scene, GOOD).unwrap();
    let r = common::sphrigid(&["check", scene.to_str().unwrap()]);
    let out = String::from_utf8_lossy(&r.stdout);
    assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
    assert!(
        out.contains("joint joint0") && out.contains("hinge linking gate and world, 5 rows"),
        "{out}"
    );
    let run = dir.path().join("run");
    let r = common::sphrigid(&[
        "run",
        scene.to_str().unwrap(),
        "--out",
        run.to_str().unwrap(),
        "--quiet",
    ]);
    assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
    assert!(Path::new(&run.join("joint_errors.csv")).exists());
}

#[test]
fn an_unknown_body_is_named_with_its_line() {
    for command in ["check", "run"] {
        check_bad(
            command,
            &GOOD.replace("[\"gate\", \"world\"]", "[\"gaet\", \"world\"]"),
            &[
                "bad.toml:18",
                "joint[0].bodies[0]",
                "no body named 'gaet'",
                "gate, post",
            ],
        );
    }
}

#[test]
fn a_zero_axis_is_named_with_its_line() {
    for command in ["check", "run"] {
        check_bad(
            command,
            &GOOD.replace("axis = [0, 0, 1]", "axis = [0, 0, 0]"),
            &[
                "bad.toml:20",
                "joint[0].axis",
                "not a direction",
                "non-zero axis",
            ],
        );
    }
}

#[test]
fn an_anchor_far_outside_its_body_is_named_with_its_line() {
    for command in ["check", "run"] {
        check_bad(
            command,
            &GOOD.replace("anchor = [0, 0.2, 0]", "anchor = [0, 2, 0]"),
            &[
                "bad.toml:19",
                "joint[0].anchor",
                "outside body 'gate'",
                "world coordinates at time 0",
            ],
        );
    }
    // A distance joint's second anchor, on the static post.
    check_bad(
        "check",
        &GOOD.replace(
            "type = \"hinge\"\nbodies = [\"gate\", \"world\"]\nanchor = [0, 0.2, 0]\naxis = [0, 0, 1]",
            "type = \"distance\"\nbodies = [\"gate\", \"post\"]\nanchors = [[0, 0.2, 0], [1, 0.3, 0]]",
        ),
        &["bad.toml:19", "joint[0].anchors[1]", "outside body 'post'"],
    );
}

#[test]
fn other_bad_joints_are_named_with_their_lines() {
    let cases: &[(&str, &str, &[&str])] = &[
        (
            "type = \"hinge\"",
            "type = \"slider\"",
            &["bad.toml:17", "slider"],
        ),
        (
            "axis = [0, 0, 1]",
            "axis = [0, 0, 1]\nlimits = [20, -20]",
            &["bad.toml:21", "joint[0].limits"],
        ),
        (
            "axis = [0, 0, 1]",
            "axis = [0, 0, 1]\nanchr = [0, 0, 0]",
            &["bad.toml:21", "anchr"],
        ),
        (
            "axis = [0, 0, 1]",
            "axis = [0, 0, 1]\nlength = 0.3",
            &[
                "bad.toml:21",
                "joint[0].length",
                "not a key of a hinge joint",
            ],
        ),
        (
            "anchor = [0, 0.2, 0]\n",
            "",
            &["bad.toml:16", "joint[0]: a hinge joint needs its anchor"],
        ),
        (
            "[\"gate\", \"world\"]",
            "[\"post\", \"world\"]",
            &[
                "bad.toml:18",
                "joint[0].bodies",
                "neither end is a dynamic body",
            ],
        ),
        (
            "[\"gate\", \"world\"]",
            "[\"gate\", \"gate\"]",
            &["bad.toml:18", "joint[0].bodies[1]", "itself"],
        ),
        (
            "axis = [0, 0, 1]",
            "axis = [0, 0, 1]\nstabilization = 2",
            &["bad.toml:21", "joint[0].stabilization", "outside [0, 1]"],
        ),
    ];
    for (from, to, words) in cases {
        check_bad("check", &GOOD.replace(from, to), words);
    }
    // Two joints of one name.
    let twice = format!(
        "{GOOD}[[joint]]\ntype = \"ball\"\nbodies = [\"gate\", \"post\"]\nanchor = [0, 0.2, 0]\nname = \"joint0\"\n"
    );
    check_bad(
        "check",
        &twice,
        &["bad.toml:25", "joint[1].name", "second joint"],
    );
}
