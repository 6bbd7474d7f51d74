//! Reading back what a run wrote, looking for non-finite numbers.
use std::path::{Path, PathBuf};

/// Every file under `dir`, depth first.
pub fn files_under(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in entries.flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

/// The first non-finite number in a file a run wrote, as `file: what`: a NaN or infinite
/// float of a binary PLY's vertices, a JSON file that is not JSON (a bare `NaN` token; its
/// strings are words, such as the manifest's reason for a failure), or a `NaN`/`inf` token of
/// another text file (CSV). Other binary files (those holding a zero byte: the checkpoint) are
/// not read as text, where their bytes would make tokens by chance (a "nAN" between two
/// non-letters in `checkpoint.bin` once failed a run that had no NaN); the state they hold is
/// the frames' and is read back by the resume tests.
pub fn first_non_finite(path: &Path) -> Option<String> {
    let bytes = std::fs::read(path).ok()?;
    let name = path.display();
    if path.extension().is_some_and(|e| e == "ply") {
        return ply_non_finite(&bytes).map(|w| format!("{name}: {w}"));
    }
    if path.extension().is_some_and(|e| e == "json") {
        return serde_json::from_slice::<serde_json::Value>(&bytes)
            .err()
            .map(|e| format!("{name}: not JSON ({e})"));
    }
    if bytes.contains(&0) {
        return None;
    }
    let text = String::from_utf8_lossy(&bytes);
    text.split(|c: char| !(c.is_ascii_alphanumeric() || c == '.' || c == '-' || c == '+'))
        .find(|t| {
            let t = t.trim_start_matches(['-', '+']);
            t.eq_ignore_ascii_case("nan")
                || t.eq_ignore_ascii_case("inf")
                || t.eq_ignore_ascii_case("infinity")
        })
        .map(|t| format!("{name}: token {t}"))
}

/// The first non-finite float of a binary little-endian PLY's first element (its vertices).
fn ply_non_finite(bytes: &[u8]) -> Option<String> {
    let end = bytes.windows(11).position(|w| w == b"end_header\n")? + 11;
    let header = String::from_utf8_lossy(&bytes[..end]);
    let mut count = 0usize;
    let mut props: Vec<(String, String)> = Vec::new();
    let mut in_first = false;
    for line in header.lines() {
        let words: Vec<&str> = line.split_whitespace().collect();
        match words.as_slice() {
            ["element", _, n] if count == 0 && !in_first => {
                count = n.parse().ok()?;
                in_first = true;
            }
            ["element", ..] => in_first = false,
            ["property", ty, name] if in_first => props.push((ty.to_string(), name.to_string())),
            _ => {}
        }
    }
    let size = |ty: &str| match ty {
        "char" | "uchar" | "int8" | "uint8" => 1,
        "short" | "ushort" | "int16" | "uint16" => 2,
        "double" | "float64" => 8,
        _ => 4,
    };
    let row: usize = props.iter().map(|(t, _)| size(t)).sum();
    for v in 0..count {
        let mut at = end + v * row;
        for (ty, name) in &props {
            let b = bytes.get(at..at + size(ty))?;
            let x = match ty.as_str() {
                "float" | "float32" => f32::from_le_bytes(b.try_into().ok()?) as f64,
                "double" | "float64" => f64::from_le_bytes(b.try_into().ok()?),
                _ => 0.0,
            };
            if !x.is_finite() {
                return Some(format!("vertex {v} {name} = {x}"));
            }
            at += size(ty);
        }
    }
    None
}

/// The first non-finite number in any file under `dir`.
pub fn non_finite_under(dir: &Path) -> Option<String> {
    files_under(dir).iter().find_map(|f| first_non_finite(f))
}
