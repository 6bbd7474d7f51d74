//! The scene-file reference (`docs/src/guide/scene-files.md`) against the scene parser, in
//! both directions: every key the parser accepts has a row in the reference under its table,
//! and every row of the reference is a key its table accepts.
//!
//! The parser's keys come from the parser itself, not from a list kept here: a scene with an
//! unknown key `zz_not_a_key` in a table goes through `sphrigid::scene::parse`, whose error
//! (serde's `deny_unknown_fields`) names every key that table accepts. Each accepted key is
//! probed in turn with a table of its own; where that is again rejected for the unknown key,
//! the key is a nested table (`[[liquid]] viscosity`, `[[body]] orientation`) and is probed
//! the same way. A table tagged by one of its keys (`[[body]] shape`) says so by naming the
//! tag as a missing field; a bad tag value then names every variant, and each variant is
//! probed as a table of its own (`[[body]] shape: box`, ...).
//!
//! The reference's tables are its `## ` sections whose heading is `Top level` or starts with
//! `[`, each followed by a Markdown table whose first column holds one key in backticks.
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use toml::{Table, Value};

/// The scene-file reference, from the repository root.
const REFERENCE: &str = "docs/src/guide/scene-files.md";
/// A key no table accepts.
const BOGUS_KEY: &str = "zz_not_a_key";
/// A value no tag accepts.
const BOGUS_VARIANT: &str = "zz_not_a_variant";
/// The heading of the root table's section.
const ROOT: &str = "Top level";

/// One step from the scene's root to a table.
#[derive(Clone, Debug)]
enum Step {
    /// `key = { ... }`, with `fixed` entries (a tag and its value) put in first.
    Table {
        key: String,
        fixed: Option<(String, String)>,
    },
    /// `[[key]]`: an array holding one table.
    Array(String),
}

/// The scene whose table at `path` holds `inner`.
fn scene_with(path: &[Step], inner: Table) -> Table {
    let Some((last, outer)) = path.split_last() else {
        return inner;
    };
    let mut wrap = Table::new();
    match last {
        Step::Table { key, fixed } => {
            let mut t = Table::new();
            if let Some((tag, variant)) = fixed {
                t.insert(tag.clone(), Value::String(variant.clone()));
            }
            t.extend(inner);
            wrap.insert(key.clone(), Value::Table(t));
        }
        Step::Array(key) => {
            wrap.insert(key.clone(), Value::Array(vec![Value::Table(inner)]));
        }
    }
    scene_with(outer, wrap)
}

/// What the scene parser says about the scene whose table at `path` holds `inner`: its error
/// message, or `None` when it takes the scene.
fn parser_says(path: &[Step], inner: Table) -> Option<String> {
    let text = toml::to_string(&scene_with(path, inner)).expect("a probe scene serialises");
    match sphrigid::scene::parse(text.clone(), Path::new("probe.toml"), &[]) {
        Ok(_) => None,
        Err(e) => Some(format!("{e}\n(probe scene:\n{text})")),
    }
}

/// The table holding only the bogus key.
fn bogus() -> Table {
    let mut t = Table::new();
    t.insert(BOGUS_KEY.into(), Value::Integer(1));
    t
}

/// The names serde lists after `lead` in `message` ("expected `a`", "expected `a` or `b`",
/// "expected one of `a`, `b`, `c`", or "there are no fields"), up to the end of the clause.
fn names_after(message: &str, lead: &str) -> Option<Vec<String>> {
    let rest = &message[message.find(lead)? + lead.len()..];
    if rest.starts_with(", there are no fields") || rest.starts_with(", there are no variants") {
        return Some(Vec::new());
    }
    let rest = rest.strip_prefix(", expected ")?;
    let clause = rest.split([';', '\n']).next().unwrap_or("");
    Some(
        clause
            .split('`')
            .skip(1)
            .step_by(2)
            .map(str::to_string)
            .collect(),
    )
}

/// The keys a table accepts, as its error for the bogus key lists them.
fn accepted_keys(message: &str) -> Option<Vec<String>> {
    names_after(message, &format!("unknown field `{BOGUS_KEY}`"))
}

/// The tag a tagged table misses when it holds only the bogus key.
fn missing_tag(message: &str) -> Option<String> {
    let rest = &message[message.find("missing field `")? + "missing field `".len()..];
    Some(rest.split('`').next()?.to_string())
}

/// A table of the parser: its section heading in the reference and the keys it accepts.
#[derive(Debug)]
struct ParserTable {
    heading: String,
    keys: BTreeSet<String>,
}

/// The heading of the table at `key` under the section `parent`.
fn child_heading(parent: &str, key: &str, step: &Step) -> String {
    match (parent == ROOT, step) {
        (true, Step::Array(_)) => format!("[[{key}]]"),
        (true, Step::Table { .. }) => format!("[{key}]"),
        (false, Step::Array(_)) => format!("{parent} [[{key}]]"),
        (false, Step::Table { fixed: None, .. }) => format!("{parent} {key}"),
        (
            false,
            Step::Table {
                fixed: Some((_, v)),
                ..
            },
        ) => format!("{parent} {key}: {v}"),
    }
}

/// Probe the table at `path` (its section `heading`, `tag` the key that tags it, if any), and
/// every table nested in it, into `found`.
fn probe(heading: &str, path: &[Step], tag: Option<&str>, found: &mut Vec<ParserTable>) {
    let said = parser_says(path, bogus());
    let keys = said.as_deref().and_then(accepted_keys).unwrap_or_else(|| {
        panic!(
            "the scene parser did not reject the unknown key `{BOGUS_KEY}` in the table \
             `{heading}` (a table without deny_unknown_fields, or serde's message changed; \
             fix src/scene/ or this test): {said:?}"
        )
    });
    let mut keys: BTreeSet<String> = keys.into_iter().collect();
    if let Some(t) = tag {
        keys.insert(t.to_string());
    }
    found.push(ParserTable {
        heading: heading.to_string(),
        keys: keys.clone(),
    });
    for key in keys.iter().filter(|k| Some(k.as_str()) != tag) {
        let table = Step::Table {
            key: key.clone(),
            fixed: None,
        };
        let child: Vec<Step> = path.iter().cloned().chain([table.clone()]).collect();
        let said = parser_says(&child, bogus()).unwrap_or_default();
        if accepted_keys(&said).is_some() {
            probe(&child_heading(heading, key, &table), &child, None, found);
            continue;
        }
        if let Some(tag) = missing_tag(&said) {
            let mut t = Table::new();
            t.insert(tag.clone(), Value::String(BOGUS_VARIANT.into()));
            let said = parser_says(&child, t).unwrap_or_default();
            let variants = names_after(&said, &format!("unknown variant `{BOGUS_VARIANT}`"))
                .unwrap_or_else(|| {
                    panic!(
                        "`{key}` in `{heading}` misses `{tag}` but does not name its \
                         variants for a bad `{tag}`: {said}"
                    )
                });
            for v in variants {
                let step = Step::Table {
                    key: key.clone(),
                    fixed: Some((tag.clone(), v)),
                };
                let child: Vec<Step> = path.iter().cloned().chain([step.clone()]).collect();
                probe(
                    &child_heading(heading, key, &step),
                    &child,
                    Some(&tag),
                    found,
                );
            }
            continue;
        }
        let array = Step::Array(key.clone());
        let child: Vec<Step> = path.iter().cloned().chain([array.clone()]).collect();
        let said = parser_says(&child, bogus()).unwrap_or_default();
        if accepted_keys(&said).is_some() {
            probe(&child_heading(heading, key, &array), &child, None, found);
        }
    }
}

/// Every table of the scene parser, from the root down.
fn parser_tables() -> Vec<ParserTable> {
    let mut found = Vec::new();
    probe(ROOT, &[], None, &mut found);
    found
}

/// A row of the reference: its key and its line.
#[derive(Debug)]
struct Row {
    key: String,
    line: usize,
}

/// The reference's table sections: heading -> (the heading's line, its table's rows).
type Sections = BTreeMap<String, (usize, Vec<Row>)>;

/// The reference's table sections, and the problems with its layout.
fn reference_tables(text: &str) -> (Sections, Vec<String>) {
    let mut tables = Sections::new();
    let mut problems = Vec::new();
    // The section whose table is being read, and whether its table has started and ended.
    let mut current: Option<String> = None;
    let (mut started, mut ended, mut in_code) = (false, false, false);
    let mut table_line = 0;
    for (n, line) in text.lines().enumerate() {
        let line_no = n + 1;
        if line.trim_start().starts_with("```") {
            in_code = !in_code;
            continue;
        }
        if in_code {
            continue;
        }
        if let Some(h) = line.strip_prefix("## ") {
            let h = h.replace('`', "").trim().to_string();
            current = None;
            if h == ROOT || h.starts_with('[') {
                if tables.contains_key(&h) {
                    problems.push(format!(
                        "{REFERENCE}:{line_no}: a second section `## {h}`: merge it with the first"
                    ));
                } else {
                    tables.insert(h.clone(), (line_no, Vec::new()));
                    current = Some(h);
                }
            }
            (started, ended) = (false, false);
            continue;
        }
        let Some(h) = &current else { continue };
        let is_row = line.trim_start().starts_with('|');
        if !is_row {
            ended |= started;
            continue;
        }
        if ended {
            continue;
        }
        if !started {
            started = true;
            table_line = line_no;
        }
        // The header row and the row of dashes under it hold no key.
        if line_no < table_line + 2 {
            continue;
        }
        let first = line.trim_start()[1..]
            .split('|')
            .next()
            .unwrap_or("")
            .trim();
        let parts: Vec<&str> = first.split('`').collect();
        if parts.len() != 3 || !parts[0].is_empty() || !parts[2].is_empty() || parts[1].is_empty() {
            problems.push(format!(
                "{REFERENCE}:{line_no}: the first column of a row under `## {h}` is `{first}`, \
                 not one key in backticks: write one key per row, e.g. | `fps` | 60 | ..."
            ));
            continue;
        }
        tables
            .get_mut(h)
            .expect("the section was entered")
            .1
            .push(Row {
                key: parts[1].to_string(),
                line: line_no,
            });
    }
    (tables, problems)
}

#[test]
fn every_scene_key_is_in_the_reference_and_every_key_there_is_accepted() {
    let root = env!("CARGO_MANIFEST_DIR");
    let text = std::fs::read_to_string(Path::new(root).join(REFERENCE))
        .unwrap_or_else(|e| panic!("cannot read {REFERENCE}: {e}"));
    let parser = parser_tables();
    let (reference, mut problems) = reference_tables(&text);
    let headings: Vec<&str> = parser.iter().map(|t| t.heading.as_str()).collect();
    for table in &parser {
        let Some((line, rows)) = reference.get(&table.heading) else {
            problems.push(format!(
                "{REFERENCE}: no section `## {}` for a table the scene parser reads (keys: {}): \
                 add the section with a row per key",
                table.heading,
                table.keys.iter().cloned().collect::<Vec<_>>().join(", ")
            ));
            continue;
        };
        let mut listed = BTreeSet::new();
        for row in rows {
            if !listed.insert(row.key.as_str()) {
                problems.push(format!(
                    "{REFERENCE}:{}: `{}` is listed twice under `## {}`: keep one row",
                    row.line, row.key, table.heading
                ));
            }
            if !table.keys.contains(&row.key) {
                problems.push(format!(
                    "{REFERENCE}:{}: `## {}` lists `{}`, which the scene parser rejects in that \
                     table (it accepts {}): fix or remove the row in {REFERENCE}, or add the key \
                     to the parser (src/scene/)",
                    row.line,
                    table.heading,
                    row.key,
                    table.keys.iter().cloned().collect::<Vec<_>>().join(", ")
                ));
            }
        }
        for key in &table.keys {
            if !listed.contains(key.as_str()) {
                problems.push(format!(
                    "{REFERENCE}:{line}: the scene parser accepts `{key}` in `{}`, but its \
                     section has no row for it: add a row | `{key}` | default | unit | range | \
                     meaning | to the table under `## {}` in {REFERENCE}",
                    table.heading, table.heading
                ));
            }
        }
    }
    for (h, (line, _)) in &reference {
        if !headings.contains(&h.as_str()) {
            problems.push(format!(
                "{REFERENCE}:{line}: `## {h}` names no table of the scene parser (its tables: \
                 {}): rename or remove the section in {REFERENCE}",
                headings.join(", ")
            ));
        }
    }
    assert!(
        problems.is_empty(),
        "the scene-file reference and the scene parser disagree:\n{}",
        problems.join("\n")
    );
}

#[test]
fn the_probe_reads_the_parsers_tables() {
    // The probe itself: the root has keys and nested tables are found, so an empty result
    // cannot pass the test above unnoticed.
    let parser = parser_tables();
    let root = parser.iter().find(|t| t.heading == ROOT).expect("the root");
    assert!(!root.keys.is_empty(), "{parser:?}");
    assert!(parser.len() > 1, "no nested table found: {parser:?}");
    assert!(
        parser.iter().any(|t| t.heading.contains(": ")),
        "no tagged table (a body's shape) found: {parser:?}"
    );
}
