//! The one reader of the run's CSV tables (`rigid_states.csv`, `joint_errors.csv`): a header
//! line that must match, then rows of exactly as many comma-separated fields.
use super::run_dir::not_a_run;
use crate::{Error, Result};
use std::path::Path;

/// Parse `text`: the first line must be `header`; every further line must have as many fields
/// as the header and be accepted by `row`, else the error names the line.
pub fn parse<T>(
    text: &str,
    header: &str,
    row: impl Fn(&[&str]) -> Option<T>,
) -> std::result::Result<Vec<T>, String> {
    let mut lines = text.lines();
    if lines.next() != Some(header) {
        return Err(format!("first line is not the header '{header}'"));
    }
    let width = header.split(',').count();
    lines
        .enumerate()
        .map(|(i, line)| {
            let fields: Vec<&str> = line.split(',').collect();
            (fields.len() == width)
                .then(|| row(&fields))
                .flatten()
                .ok_or_else(|| format!("line {}: cannot parse '{line}'", i + 2))
        })
        .collect()
}

/// Read and parse the table at `path` like [`parse`]; an absent file reads as no rows.
pub fn read<T>(path: &Path, header: &str, row: impl Fn(&[&str]) -> Option<T>) -> Result<Vec<T>> {
    if !path.exists() {
        return Ok(Vec::new());
    }
    let text = std::fs::read_to_string(path)
        .map_err(|e| not_a_run(path, &format!("cannot read it ({e})")))?;
    parse(&text, header, row).map_err(|e| {
        Error::input(format!(
            "{}: {e}; fix: rerun the scene to rewrite the file",
            path.display()
        ))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_need_the_header_and_its_width() {
        let row = |f: &[&str]| f[1].parse::<f64>().ok();
        assert_eq!(parse("a,b\n1,2.5\n3,4\n", "a,b", row).unwrap(), [2.5, 4.0]);
        assert_eq!(
            parse("a,c\n", "a,b", row).unwrap_err(),
            "first line is not the header 'a,b'"
        );
        assert_eq!(
            parse("a,b\n1,2\n1,2,3\n", "a,b", row).unwrap_err(),
            "line 3: cannot parse '1,2,3'"
        );
        assert_eq!(
            parse("a,b\n1,x\n", "a,b", row).unwrap_err(),
            "line 2: cannot parse '1,x'"
        );
    }
}
