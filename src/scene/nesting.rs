//! The bracket depth of scene text, checked before the TOML parser sees it. The parser recurses
//! once per open inline table, and its error recovery has no depth limit: a scene whose inline
//! tables are never closed (`shape = { type = "box", size = [1, 1, 1]` repeated a few thousand
//! times) overflowed the main thread's stack and aborted. No scene value nests more than three
//! brackets deep, so text nested [`MAX_DEPTH`] deep is refused at its first unclosed bracket.
use super::locate::line_col;
use crate::{Error, Result};
use std::path::Path;

/// The deepest bracket nesting (`[` and `{`, outside strings and comments) a scene may have.
pub const MAX_DEPTH: usize = 32;

/// Refuse `text` (read from `file`) if its brackets nest deeper than [`MAX_DEPTH`], naming
/// the outermost bracket still open there.
pub fn check(text: &str, file: &Path) -> Result<()> {
    let Some(open) = too_deep(text.as_bytes()) else {
        return Ok(());
    };
    let (line, col) = line_col(text, open);
    let (close, what) = if text.as_bytes()[open] == b'{' {
        ('}', "inline table")
    } else {
        (']', "array")
    };
    Err(Error::input(format!(
        "{}:{line}:{col}: this {what} is not closed before brackets nest {MAX_DEPTH} deep; \
         fix: close it with `{close}` (scene values nest at most three brackets deep)",
        file.display()
    )))
}

/// The byte offset of the outermost bracket still open where the nesting first passes
/// [`MAX_DEPTH`]; `None` if it never does.
fn too_deep(t: &[u8]) -> Option<usize> {
    let mut open: Vec<usize> = Vec::with_capacity(MAX_DEPTH + 1);
    let mut i = 0;
    while i < t.len() {
        match t[i] {
            b'#' => i = end_of_line(t, i),
            b'"' | b'\'' if t[i..].starts_with(b"\"\"\"") || t[i..].starts_with(b"'''") => {
                let quote = &t[i..i + 3];
                i = find(t, i + 3, quote).map_or(t.len(), |j| {
                    // A closing delimiter may be followed by up to two more quotes of its own
                    // kind, which belong to the string.
                    let mut k = j + 3;
                    while k < t.len() && t[k] == quote[0] && k < j + 5 {
                        k += 1;
                    }
                    k
                });
            }
            b'"' => i = end_of_basic(t, i + 1),
            b'\'' => {
                let mut j = i + 1;
                while j < t.len() && t[j] != b'\'' && t[j] != b'\n' {
                    j += 1;
                }
                i = j + 1;
            }
            b'[' | b'{' => {
                open.push(i);
                if open.len() > MAX_DEPTH {
                    return Some(open[0]);
                }
                i += 1;
            }
            b']' | b'}' => {
                open.pop();
                i += 1;
            }
            _ => i += 1,
        }
    }
    None
}

/// The offset of the newline ending the line through `i` (or the text's end).
fn end_of_line(t: &[u8], i: usize) -> usize {
    t[i..]
        .iter()
        .position(|&c| c == b'\n')
        .map_or(t.len(), |p| i + p)
}

/// The offset just past a basic string's closing quote (or its line's end) from `i`, its
/// first character.
fn end_of_basic(t: &[u8], mut i: usize) -> usize {
    while i < t.len() {
        match t[i] {
            b'\\' => i += 2,
            b'"' => return i + 1,
            b'\n' => return i,
            _ => i += 1,
        }
    }
    t.len()
}

/// The first offset at or after `from` where `needle` starts.
fn find(t: &[u8], from: usize, needle: &[u8]) -> Option<usize> {
    t.get(from..)?
        .windows(needle.len())
        .position(|w| w == needle)
        .map(|p| from + p)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn message(text: &str) -> Option<String> {
        check(text, Path::new("t.toml"))
            .err()
            .map(|e| e.to_string())
    }

    #[test]
    fn shipped_scenes_pass() {
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/scenes");
        let mut seen = 0;
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.extension().is_some_and(|e| e == "toml") {
                let text = std::fs::read_to_string(&path).unwrap();
                assert_eq!(message(&text), None, "{}", path.display());
                seen += 1;
            }
        }
        assert!(seen >= 5, "only {seen} scenes found");
    }

    #[test]
    fn unclosed_inline_tables_are_refused_at_the_first() {
        let block = "[[body]]\nshape = { type = \"box\", size = [0.1, 0.1, 0.1]\ndensity = 400\n\n";
        let text = format!("gravity = [0, -9.81, 0]\n{}", block.repeat(40));
        let m = message(&text).expect("refused");
        assert!(
            m.starts_with("t.toml:3:9: this inline table is not closed before brackets nest 32"),
            "{m}"
        );
        assert!(m.contains("fix: close it with `}`"), "{m}");
        // Nested exactly to the limit is still TOML's to judge.
        let ok = format!("x = {}1{}", "[".repeat(MAX_DEPTH), "]".repeat(MAX_DEPTH));
        assert_eq!(message(&ok), None);
        let deep = format!(
            "x = {}1{}",
            "[".repeat(MAX_DEPTH + 1),
            "]".repeat(MAX_DEPTH + 1)
        );
        assert!(
            message(&deep)
                .unwrap()
                .starts_with("t.toml:1:5: this array")
        );
    }

    #[test]
    fn brackets_in_strings_and_comments_do_not_count() {
        let many = "[{".repeat(MAX_DEPTH);
        for text in [
            format!("name = \"{many}\"\n"),
            format!("name = \"a \\\" {many}\"\n"),
            format!("name = '{many}'\n"),
            format!("# {many}\nx = 1\n"),
            format!("name = \"\"\"\n{many}\n\"\"\"\n"),
            format!("name = '''\n{many}\n'''''\nx = [1]\n"),
        ] {
            assert_eq!(message(&text), None, "{text}");
        }
        // An unclosed basic string ends at its line; brackets after it count.
        let text = format!("name = \"a\n{}\n", "[".repeat(MAX_DEPTH + 1));
        assert!(
            message(&text)
                .unwrap()
                .starts_with("t.toml:2:1: this array")
        );
    }
}
