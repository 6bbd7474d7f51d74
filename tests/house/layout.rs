//! The house as the "Layout" table of docs/src/development.md draws it: every module of `src/` imports only the
//! modules its row allows (through `crate::...` paths), so dependencies point down and no two
//! folders import each other.
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Each top-level module of the crate and the modules it may import (besides `error`).
const ALLOWED: &[(&str, &[&str])] = &[
    (
        "cli",
        &[
            "sim",
            "sweep",
            "figure",
            "scene",
            "output",
            "surface",
            "backend",
            "coupling",
            "joints",
            "gpu",
            "liquid",
            "boundary",
            "rigid",
            "lcp",
            "rng",
            "timing",
            "bounded_read",
        ],
    ),
    (
        "sim",
        &[
            "scene",
            "coupling",
            "joints",
            "rigid",
            "liquid",
            "boundary",
            "gpu",
            "output",
            "surface",
            "backend",
            "timing",
            "bounded_read",
        ],
    ),
    ("sweep", &["scene", "output", "bounded_read"]),
    ("figure", &["output", "bounded_read"]),
    ("scene", &["rigid", "output", "bounded_read"]),
    (
        "output",
        &[
            "liquid",
            "rigid",
            "joints",
            "lcp",
            "surface",
            "bounded_read",
        ],
    ),
    ("surface", &["rigid"]),
    ("backend", &["gpu"]),
    (
        "coupling",
        &["liquid", "boundary", "rigid", "joints", "lcp", "timing"],
    ),
    ("joints", &["rigid", "lcp"]),
    ("gpu", &["liquid", "boundary", "timing"]),
    ("liquid", &["boundary", "rng", "timing"]),
    ("boundary", &["rigid"]),
    ("rigid", &[]),
    ("lcp", &["rng", "bounded_read"]),
    ("rng", &[]),
    ("bounded_read", &[]),
    ("timing", &[]),
    ("error", &[]),
];

/// The `.rs` files of a module: its folder's files, or its single file.
fn files(src: &Path, module: &str) -> Vec<PathBuf> {
    let dir = src.join(module);
    if !dir.is_dir() {
        return vec![src.join(format!("{module}.rs"))];
    }
    let mut out = Vec::new();
    let mut stack = vec![dir];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "rs") {
                out.push(p);
            }
        }
    }
    out
}

/// The top-level modules named by `crate::name` paths in `text` (also inside `crate::{a, b}`).
fn imports(text: &str, known: &BTreeSet<&str>) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let ident = |s: &str| -> String {
        s.chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect()
    };
    for (i, _) in text.match_indices("crate::") {
        let rest = &text[i + "crate::".len()..];
        if let Some(group) = rest.strip_prefix('{') {
            let group = &group[..group.find('}').unwrap_or(group.len())];
            for part in group.split(',') {
                out.insert(ident(part.trim()));
            }
        } else {
            out.insert(ident(rest));
        }
    }
    out.retain(|m| known.contains(m.as_str()));
    out
}

#[test]
fn every_module_imports_only_what_the_layout_table_allows() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let known: BTreeSet<&str> = ALLOWED.iter().map(|(m, _)| *m).collect();
    // Every module declared in lib.rs has a row, so a new module cannot slip past the table.
    let lib = std::fs::read_to_string(src.join("lib.rs")).unwrap();
    let mut declared = 0;
    for line in lib.lines() {
        let decl = ["pub mod ", "pub(crate) mod ", "mod "]
            .iter()
            .find_map(|p| line.strip_prefix(p));
        if let Some(m) = decl.and_then(|m| m.strip_suffix(';')) {
            assert!(known.contains(m), "src/{m} has no row in the layout table");
            declared += 1;
        }
    }
    assert!(
        declared > 10,
        "lib.rs declares {declared} modules: the reader missed them"
    );
    let mut uses: BTreeMap<&str, BTreeSet<String>> = BTreeMap::new();
    let mut wrong = Vec::new();
    for (module, allowed) in ALLOWED {
        for file in files(&src, module) {
            let text = std::fs::read_to_string(&file).unwrap();
            for used in imports(&text, &known) {
                if used != *module && used != "error" && !allowed.contains(&used.as_str()) {
                    wrong.push(format!("{} imports crate::{used}", file.display()));
                }
                uses.entry(module).or_default().insert(used);
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "imports outside the layout:\n{}",
        wrong.join("\n")
    );
    // The table itself points down: no two modules may import each other.
    for (a, allowed) in ALLOWED {
        for b in *allowed {
            let back = ALLOWED.iter().find(|(m, _)| m == b).unwrap().1;
            assert!(!back.contains(a), "{a} and {b} may import each other");
        }
    }
    // And the check reads real imports: the simulation uses the scene and the liquid, and the
    // liquid and the coupling the boundary below them.
    assert!(uses["sim"].contains("scene") && uses["sim"].contains("liquid"));
    assert!(uses["liquid"].contains("boundary") && uses["coupling"].contains("boundary"));
}

#[test]
fn the_import_reader_finds_plain_and_grouped_paths() {
    let known: BTreeSet<&str> = ["lcp", "rigid", "scene"].into_iter().collect();
    let got = imports(
        "use crate::lcp::Options;\nuse crate::{Result, scene};\nlet x = crate::rigid::f();",
        &known,
    );
    let want: BTreeSet<String> = ["lcp", "rigid", "scene"].map(String::from).into();
    assert_eq!(got, want);
}

#[test]
fn the_walls_ghost_pressure_has_one_name_from_the_scene_to_the_shaders() {
    // The switch and its pass are `ghost_pressure` from the scene key to the WGSL: the older
    // names (`wall_push`, `has_walls`) are gone from the code and the kernels.
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut found = Vec::new();
    let mut seen = 0;
    let mut stack = vec![root.join("src"), root.join("shaders")];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
                continue;
            }
            let text = std::fs::read_to_string(&path).unwrap_or_default();
            seen += text.matches("ghost_pressure").count();
            for old in ["wall_push", "has_walls"] {
                if text.contains(old) {
                    found.push(format!("{} uses `{old}`", path.display()));
                }
            }
        }
    }
    assert!(found.is_empty(), "{found:#?}");
    assert!(seen > 20, "`ghost_pressure` found {seen} times");
}
