//! A kinematic body's keyframe CSV: rows `t,x,y,z,qw,qx,qy,qz` (a header line first is
//! allowed), read through the bounded reader and checked as the scene's inline keyframes are.
use super::motion::check_keyframes;
use crate::{Error, Result, bounded_read};
use std::path::Path;

/// The rows of the keyframe file at `path`; what is wrong names the file, the line and the fix.
pub fn read(path: &Path) -> Result<Vec<[f64; 8]>> {
    let text = bounded_read::read_text_with(path, &bounded_read::KEYFRAMES, |e| {
        Error::input(format!(
            "{}: cannot read the keyframe file ({e}); fix: give the path of a CSV of rows t,x,y,z,qw,qx,qy,qz, relative to the scene file",
            path.display()
        ))
    })?;
    parse(&text).map_err(|(line, why)| {
        Error::input(format!(
            "{}:{line}: {why}; fix: give rows t,x,y,z,qw,qx,qy,qz of finite numbers at strictly increasing times, with a nonzero quaternion",
            path.display()
        ))
    })
}

/// Parse keyframe CSV text; the line (from 1) of the first problem and what it is.
pub fn parse(text: &str) -> std::result::Result<Vec<[f64; 8]>, (usize, String)> {
    let mut rows = Vec::new();
    let mut lines_of_rows = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let fields: Vec<&str> = line.split(',').map(str::trim).collect();
        let numbers: std::result::Result<Vec<f64>, _> = fields.iter().map(|f| f.parse()).collect();
        match numbers {
            Ok(v) if v.len() == 8 => {
                rows.push([v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7]]);
                lines_of_rows.push(i + 1);
            }
            Ok(v) => return Err((i + 1, format!("{} numbers, not 8", v.len()))),
            // A header before the first row.
            Err(_) if rows.is_empty() && lines_of_rows.is_empty() && i == 0 => {}
            Err(_) => return Err((i + 1, format!("cannot read '{line}' as numbers"))),
        }
    }
    check_keyframes(&rows).map_err(|(k, why)| (lines_of_rows.get(k).copied().unwrap_or(1), why))?;
    Ok(rows)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_are_read_and_problems_named_by_line() {
        let rows = parse("t,x,y,z,qw,qx,qy,qz\n0,0,0,0,1,0,0,0\n1,0,0.5,0,1,0,0,0\n").unwrap();
        assert_eq!(rows.len(), 2);
        assert_eq!(rows[1][2], 0.5);
        assert_eq!(
            parse("0,0,0,0,1,0,0,0\n0,1,0,0,1,0,0,0\n").unwrap_err().0,
            2
        );
        assert_eq!(parse("0,0,0,0,1,0,0,0\n1,1,0,0\n").unwrap_err().0, 2);
        assert_eq!(
            parse("0,0,0,0,1,0,0,0\nx,1,0,0,1,0,0,0\n").unwrap_err().0,
            2
        );
        assert!(parse("t,x\n").unwrap_err().1.contains("no keyframes"));
    }
}
