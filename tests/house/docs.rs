//! The docs held to the code: every repository path that README.md, CHANGELOG.md and docs/
//! name exists; every relative link and image resolves; every `sphrigid ...` line in a code
//! block parses with the CLI's own parser; the book's SUMMARY.md lists every page and only
//! pages that exist; no local git branch is cited; the README stays a newcomer's page.
//! (The scene-file reference is held to the scene parser in `tests/house/docs_scene_keys.rs`.)
use clap::Parser;
use std::path::{Path, PathBuf};

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// README.md, CHANGELOG.md and every Markdown file under docs/, relative to the root.
fn doc_files() -> Vec<PathBuf> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        let mut entries: Vec<_> = std::fs::read_dir(dir)
            .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
            .map(|e| e.unwrap().path())
            .collect();
        entries.sort();
        for p in entries {
            if p.is_dir() {
                // mdbook's output, if someone built the book here.
                if p.file_name().is_some_and(|n| n == "book") {
                    continue;
                }
                walk(&p, out);
            } else if p.extension().is_some_and(|e| e == "md") {
                out.push(p);
            }
        }
    }
    let mut files = vec![root().join("README.md"), root().join("CHANGELOG.md")];
    walk(&root().join("docs"), &mut files);
    files
}

fn read(p: &Path) -> String {
    std::fs::read_to_string(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

fn rel(p: &Path) -> String {
    p.strip_prefix(root()).unwrap_or(p).display().to_string()
}

/// One fenced code block: its language tag, its first line number and its lines.
struct Block {
    lang: String,
    line: usize,
    lines: Vec<String>,
}

/// The text outside code blocks (with line numbers) and the fenced code blocks of a file.
fn split_blocks(text: &str) -> (Vec<(usize, String)>, Vec<Block>) {
    let mut prose = Vec::new();
    let mut blocks = Vec::new();
    let mut open: Option<Block> = None;
    for (i, line) in text.lines().enumerate() {
        let t = line.trim_start();
        if t.starts_with("```") {
            match open.take() {
                Some(b) => blocks.push(b),
                None => {
                    open = Some(Block {
                        lang: t.trim_start_matches('`').trim().to_string(),
                        line: i + 1,
                        lines: Vec::new(),
                    })
                }
            }
        } else if let Some(b) = open.as_mut() {
            b.lines.push(line.to_string());
        } else {
            prose.push((i + 1, line.to_string()));
        }
    }
    assert!(open.is_none(), "an unclosed code block");
    (prose, blocks)
}

/// The top-level folders and files of the repository that a docs path may start with.
const TOP: [&str; 10] = [
    ".ci/",
    "src/",
    "tests/",
    "scenes/",
    "docs/",
    "shaders/",
    "benches/",
    "integrations/",
    "examples/",
    "scripts/",
];
const ROOT_FILES: [&str; 6] = [
    "Cargo.toml",
    "Cargo.lock",
    "README.md",
    "CHANGELOG.md",
    "LICENSE-MIT",
    "LICENSE-APACHE",
];

/// The words of a span that name a repository path (`src/lcp/mod.rs`, `scenes/x.toml:12`),
/// less placeholders and patterns (`frame_NNNNN.ply`, `src/gpu/*.rs`, `<name>`).
fn repo_paths(span: &str) -> Vec<String> {
    let mut out = Vec::new();
    for word in span.split(|c: char| c.is_whitespace() || c == '(' || c == '=' || c == '"') {
        let w = word.trim_matches(|c: char| ",;:)'`.".contains(c));
        let w = w.split(':').next().unwrap_or(w);
        let is_path = TOP.iter().any(|t| w.starts_with(t)) || ROOT_FILES.contains(&w);
        let placeholder = w.contains(['*', '<', '{', '$', '[', '?'])
            || w.contains("NNN")
            || w.contains("...")
            // An upper-case component is a placeholder: `scenes/SCENE.toml`.
            || w.split('/').any(|c| {
                let stem = c.split('.').next().unwrap_or(c);
                stem.len() > 1 && !stem.chars().any(|ch| ch.is_ascii_lowercase())
            });
        if is_path && !placeholder {
            out.push(w.trim_end_matches('/').to_string());
        }
    }
    out
}

/// The backticked spans of a line of prose.
fn code_spans(line: &str) -> Vec<&str> {
    line.split('`').skip(1).step_by(2).collect()
}

/// The targets of Markdown links and images on a line: `[x](target)`, `![x](target "title")`.
fn link_targets(line: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = line;
    while let Some(i) = rest.find("](") {
        let after = &rest[i + 2..];
        let Some(end) = after.find(')') else { break };
        let target = after[..end].split_whitespace().next().unwrap_or("");
        out.push(target.to_string());
        rest = &after[end..];
    }
    out
}

#[test]
fn every_repository_path_and_link_the_docs_name_exists() {
    let mut missing = Vec::new();
    let mut checked = 0;
    for file in doc_files() {
        let text = read(&file);
        let (prose, blocks) = split_blocks(&text);
        let mut lines: Vec<(usize, String)> = Vec::new();
        for (n, l) in &prose {
            for span in code_spans(l) {
                lines.push((*n, span.to_string()));
            }
        }
        for b in &blocks {
            for (k, l) in b.lines.iter().enumerate() {
                lines.push((b.line + 1 + k, l.clone()));
            }
        }
        for (n, span) in &lines {
            for p in repo_paths(span) {
                checked += 1;
                if !root().join(&p).exists() {
                    missing.push(format!(
                        "{}:{n}: `{p}` is not in the repository",
                        rel(&file)
                    ));
                }
            }
        }
        for (n, l) in &prose {
            for t in link_targets(l) {
                if t.is_empty()
                    || t.starts_with('#')
                    || t.contains("://")
                    || t.starts_with("mailto:")
                {
                    continue;
                }
                checked += 1;
                let path = t.split('#').next().unwrap();
                let target = file.parent().unwrap().join(path);
                if !target.exists() {
                    missing.push(format!(
                        "{}:{n}: link `{t}` resolves to nothing",
                        rel(&file)
                    ));
                }
            }
        }
    }
    assert!(
        checked > 100,
        "only {checked} paths and links found: is the scan broken?"
    );
    assert!(
        missing.is_empty(),
        "fix these names or links (README.md, CHANGELOG.md and docs/ name only what is in the tree):\n{}",
        missing.join("\n")
    );
}

/// Shell words of one command line, with quotes removed; `None` at an unclosed quote.
fn shell_words(line: &str) -> Option<Vec<String>> {
    let mut words = Vec::new();
    let mut cur = String::new();
    let mut in_word = false;
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\'' | '"' => {
                in_word = true;
                loop {
                    match chars.next() {
                        Some(q) if q == c => break,
                        Some('\\') if c == '"' => cur.extend(chars.next()),
                        Some(x) => cur.push(x),
                        None => return None,
                    }
                }
            }
            '\\' => {
                in_word = true;
                cur.extend(chars.next());
            }
            '|' | ';' | '&' | '>' | '<' | '(' | ')' => {
                if in_word {
                    words.push(std::mem::take(&mut cur));
                    in_word = false;
                }
                let mut op = c.to_string();
                while let Some(&n) = chars.peek() {
                    if "|&>".contains(n) {
                        op.push(n);
                        chars.next();
                    } else {
                        break;
                    }
                }
                words.push(op);
            }
            // A `#` that starts a word starts a comment, to the end of the line.
            '#' if !in_word => break,
            c if c.is_whitespace() => {
                if in_word {
                    words.push(std::mem::take(&mut cur));
                    in_word = false;
                }
            }
            c => {
                in_word = true;
                cur.push(c);
            }
        }
    }
    if in_word {
        words.push(cur);
    }
    Some(words)
}

fn is_operator(w: &str) -> bool {
    w.chars().all(|c| "|;&><()".contains(c))
}

/// The `sphrigid` invocations of a (continuation-joined) shell line: the words from `sphrigid`
/// (or `target/release/sphrigid`, or `cargo run --release --`) to the next operator.
fn invocations(line: &str) -> Option<Vec<Vec<String>>> {
    let words = shell_words(line)?;
    let mut out = Vec::new();
    let mut i = 0;
    let mut at_command = true;
    while i < words.len() {
        let w = &words[i];
        if is_operator(w) {
            at_command = true;
            i += 1;
            continue;
        }
        let start = if at_command && (w == "sphrigid" || w.ends_with("/sphrigid")) {
            Some(i + 1)
        } else if at_command && w == "cargo" && words.get(i + 1).is_some_and(|x| x == "run") {
            // `cargo run [...] -- ARGS` runs sphrigid unless it names an example or another bin.
            let dashes = words[i..].iter().position(|x| x == "--").map(|p| i + p);
            let other = dashes.is_some_and(|d| {
                words[i..d]
                    .windows(2)
                    .any(|p| p[0] == "--example" || (p[0] == "--bin" && p[1] != "sphrigid"))
            });
            dashes.filter(|_| !other).map(|d| d + 1)
        } else {
            None
        };
        at_command = false;
        if let Some(s) = start {
            let mut args = vec!["sphrigid".to_string()];
            let mut j = s;
            // `2>` and `1>` arrive as a word "2" before the operator.
            while j < words.len() && !is_operator(&words[j]) {
                let redirect = words[j].chars().all(|c| c.is_ascii_digit())
                    && words.get(j + 1).is_some_and(|n| n.starts_with('>'));
                if redirect {
                    break;
                }
                args.push(words[j].clone());
                j += 1;
            }
            out.push(args);
            i = j;
        } else {
            i += 1;
        }
    }
    Some(out)
}

#[test]
fn every_sphrigid_command_in_a_code_block_parses() {
    let mut bad = Vec::new();
    let mut parsed = 0;
    for file in doc_files() {
        let (_, blocks) = split_blocks(&read(&file));
        for b in blocks
            .iter()
            .filter(|b| b.lang != "text" && b.lang != "toml")
        {
            let mut joined = String::new();
            let mut first = b.line + 1;
            for (k, l) in b.lines.iter().enumerate() {
                if joined.is_empty() {
                    first = b.line + 1 + k;
                }
                let l = l.trim();
                let l = l.strip_prefix("$ ").unwrap_or(l);
                if l.starts_with('#') && joined.is_empty() {
                    continue;
                }
                if let Some(cont) = l.strip_suffix('\\') {
                    joined.push_str(cont);
                    joined.push(' ');
                    continue;
                }
                joined.push_str(l);
                let line = std::mem::take(&mut joined);
                let Some(calls) = invocations(&line) else {
                    bad.push(format!(
                        "{}:{first}: unclosed quote in `{line}`",
                        rel(&file)
                    ));
                    continue;
                };
                for args in calls {
                    parsed += 1;
                    if let Err(e) = sphrigid::cli::Cli::try_parse_from(&args) {
                        use clap::error::ErrorKind::*;
                        if !matches!(e.kind(), DisplayHelp | DisplayVersion) {
                            let msg = e.to_string();
                            let first_line = msg.lines().next().unwrap_or("");
                            bad.push(format!(
                                "{}:{first}: `{}`: {first_line}",
                                rel(&file),
                                args.join(" ")
                            ));
                        }
                    }
                }
            }
        }
    }
    assert!(
        parsed >= 20,
        "only {parsed} sphrigid commands found: is the scan broken?"
    );
    assert!(
        bad.is_empty(),
        "these commands do not parse with sphrigid's CLI (put usage synopses in a ```text block or a table):\n{}",
        bad.join("\n")
    );
}

#[test]
fn the_shell_scan_finds_what_a_shell_would_run() {
    let calls = invocations(
        "cargo install --path . --locked && sphrigid run scenes/dam_break.toml --set 'a.b=[1, 2]' 2>err | tail -n 3",
    )
    .unwrap();
    assert_eq!(
        calls,
        vec![vec![
            "sphrigid",
            "run",
            "scenes/dam_break.toml",
            "--set",
            "a.b=[1, 2]"
        ]]
    );
    let calls = invocations("cargo run --release -- check x.toml > out.txt # a#b").unwrap();
    assert_eq!(calls, vec![vec!["sphrigid", "check", "x.toml"]]);
    let calls = invocations("cargo run --release --example lcp_profile -- 10000 4").unwrap();
    assert!(calls.is_empty());
    assert!(sphrigid::cli::Cli::try_parse_from(["sphrigid", "run", "--no-such-flag"]).is_err());
    assert_eq!(
        repo_paths(
            "see src/lcp/mod.rs:12, out/x/frame_NNNNN.ply, scenes/SCENE.toml and src/gpu/*.rs"
        ),
        vec!["src/lcp/mod.rs"]
    );
}

#[test]
fn the_books_summary_lists_every_page_and_only_pages_that_exist() {
    let src = root().join("docs/src");
    let summary = read(&src.join("SUMMARY.md"));
    let mut listed: Vec<PathBuf> = Vec::new();
    for (n, line) in summary.lines().enumerate() {
        for t in link_targets(line) {
            let page = src.join(t.split('#').next().unwrap());
            assert!(
                page.is_file(),
                "docs/src/SUMMARY.md:{}: `{t}` is not a page",
                n + 1
            );
            listed.push(page);
        }
    }
    let pages: Vec<PathBuf> = doc_files()
        .into_iter()
        .filter(|p| p.starts_with(&src) && !p.ends_with("SUMMARY.md"))
        .collect();
    assert!(pages.len() >= 8, "the book has {} pages", pages.len());
    for p in &pages {
        assert!(
            listed.contains(p),
            "{} is not listed in docs/src/SUMMARY.md; add it there",
            rel(p)
        );
    }
    let book = read(&root().join("docs/book.toml"));
    assert!(
        book.contains("[book]"),
        "docs/book.toml has no [book] table"
    );
}

#[test]
fn no_local_branch_is_cited_and_the_readme_stays_short() {
    // Names of local branches that earlier notes cited; a fresh clone has none of them.
    let branches = [
        "d20", "d21", "kr25", "wr", "svs", "mp", "mm24", "mg20", "hvdiag", "fp", "bpush", "nt",
        "nt2", "bscale",
    ];
    let mut bad = Vec::new();
    for file in doc_files() {
        let text = read(&file);
        for (n, line) in text.lines().enumerate() {
            let lower = line.to_lowercase();
            for pat in ["branch `", "branches `", "local branch"] {
                if lower.contains(pat) {
                    bad.push(format!("{}:{}: {}", rel(&file), n + 1, line.trim()));
                }
            }
            for span in code_spans(line) {
                if branches.contains(&span) {
                    bad.push(format!("{}:{}: `{span}`", rel(&file), n + 1));
                }
            }
        }
    }
    assert!(
        bad.is_empty(),
        "the docs cite local branches, which a reader cannot check out:\n{}",
        bad.join("\n")
    );
    let readme = read(&root().join("README.md"));
    let n = readme.lines().count();
    assert!(
        n <= 250,
        "README.md has {n} lines; keep it to 250 and move the rest under docs/"
    );
    // The README opens with the two commands: the main job and the tests.
    let (_, blocks) = split_blocks(&readme);
    assert!(blocks.len() >= 2, "README.md opens with two code blocks");
    assert!(
        blocks[0]
            .lines
            .iter()
            .any(|l| l.contains("sphrigid run scenes/dam_break.toml")),
        "README.md's first code block runs the dam break"
    );
    assert!(
        blocks[1]
            .lines
            .iter()
            .any(|l| l.trim() == "bash scripts/test.sh"),
        "README.md's second code block is the test command"
    );
    let ci = read(&root().join(".ci/run"));
    assert!(
        ci.lines().any(|l| l.trim() == "bash scripts/test.sh"),
        ".ci/run calls the README's test command"
    );
}
