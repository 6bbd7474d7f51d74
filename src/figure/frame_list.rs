//! The `--frames` list: which frames of a run to draw.
use crate::{Error, Result};

/// How many frames the strip shows when no list is given.
pub const DEFAULT_COUNT: usize = 5;

/// Parse a list such as `0,10,20`, `0:60:15` (start:stop:step, stop included) or `5:8`
/// (step 1), or a mix separated by commas, and check every frame against `available` (the
/// frame indices of the run, ascending). Duplicates are dropped; the order is kept.
pub fn parse(spec: &str, available: &[u32]) -> Result<Vec<u32>> {
    parse_option("--frames", spec, available)
}

/// [`parse`] for the list given to `option`, which its errors name.
pub fn parse_option(option: &str, spec: &str, available: &[u32]) -> Result<Vec<u32>> {
    let bad = |what: String| {
        Error::input(format!(
            "{option} '{spec}': {what}; fix: give frame indices like 0,10,20 or start:stop:step like 0:60:15"
        ))
    };
    let num = |s: &str| -> Result<u32> {
        s.trim()
            .parse::<u32>()
            .map_err(|_| bad(format!("'{}' is not a frame index", s.trim())))
    };
    let mut out: Vec<u32> = Vec::new();
    for item in spec.split(',') {
        let parts: Vec<&str> = item.split(':').collect();
        let list: Vec<u32> = match parts.as_slice() {
            [one] => vec![num(one)?],
            [a, b] | [a, b, _] => {
                let (start, stop) = (num(a)?, num(b)?);
                let step = if parts.len() == 3 { num(parts[2])? } else { 1 };
                if step == 0 {
                    return Err(bad("the step is 0".into()));
                }
                if stop < start {
                    return Err(bad(format!("range {start}:{stop} runs backwards")));
                }
                // Checked before the range is listed: 0:1000000000 must not fill memory.
                if let Some(&last) = available.last()
                    && stop > last
                {
                    return Err(bad(format!(
                        "the run has no frame {stop} (its frames: {} to {last})",
                        available[0]
                    )));
                }
                (start..=stop).step_by(step as usize).collect()
            }
            _ => return Err(bad(format!("'{item}' has too many ':'"))),
        };
        for f in list {
            if !out.contains(&f) {
                out.push(f);
            }
        }
    }
    if let Some(missing) = out.iter().find(|f| !available.contains(f)) {
        let range = match (available.first(), available.last()) {
            (Some(a), Some(b)) => format!("{a} to {b}"),
            _ => "none".into(),
        };
        return Err(bad(format!(
            "the run has no frame {missing} (its frames: {range})"
        )));
    }
    Ok(out)
}

/// `count` frames evenly spaced from the first to the last of `available` (fewer when the run
/// has fewer frames).
pub fn evenly_spaced(available: &[u32], count: usize) -> Vec<u32> {
    let n = available.len();
    if n <= count {
        return available.to_vec();
    }
    let mut out: Vec<u32> = (0..count)
        .map(|i| available[(i * (n - 1) + (count - 1) / 2) / (count - 1)])
        .collect();
    out.dedup();
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lists_ranges_and_mixes() {
        let all: Vec<u32> = (0..=60).collect();
        assert_eq!(parse("0,10,20", &all).unwrap(), vec![0, 10, 20]);
        assert_eq!(parse("0:60:15", &all).unwrap(), vec![0, 15, 30, 45, 60]);
        assert_eq!(parse("5:8", &all).unwrap(), vec![5, 6, 7, 8]);
        assert_eq!(parse("3, 0:4:2,3", &all).unwrap(), vec![3, 0, 2, 4]);
    }

    #[test]
    fn bad_lists_say_what_and_how() {
        let all: Vec<u32> = (0..=6).collect();
        for (spec, says) in [
            ("x", "'x' is not a frame index"),
            ("1:2:0", "step is 0"),
            ("4:1", "backwards"),
            ("1:2:3:4", "too many"),
            ("0,7", "no frame 7 (its frames: 0 to 6)"),
            ("", "'' is not a frame index"),
        ] {
            let e = parse(spec, &all).unwrap_err().to_string();
            assert!(
                e.contains(says) && e.contains("--frames") && e.contains("fix:"),
                "{e}"
            );
        }
    }

    #[test]
    fn evenly_spaced_spans_first_to_last() {
        let all: Vec<u32> = (0..=20).collect();
        assert_eq!(evenly_spaced(&all, 5), vec![0, 5, 10, 15, 20]);
        let odd: Vec<u32> = (0..=6).collect();
        assert_eq!(evenly_spaced(&odd, 5), vec![0, 2, 3, 5, 6]);
        assert_eq!(evenly_spaced(&[0, 1], 5), vec![0, 1]);
    }
}
