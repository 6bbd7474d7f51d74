//! The surge front of a collapsing liquid column (`sphrigid figure --front A`): its leading
//! edge `Z = x / a` over `T = t sqrt(2 g / a)`, measured as `tests/liquid/martin_moyce.rs`
//! measures it, and measured points (such as `tests/data/martin_moyce_1952.csv`) to compare.
use crate::output::fluid_frames::FluidPoints;
use crate::{Error, Result};
use std::path::Path;

/// The kernel sum over rest (the frames' density over the rest density) from which a particle
/// counts as part of the bulk: a lone splashed particle does not move the front.
pub const BULK: f64 = 0.3;

/// Header of `front.csv`.
pub const HEADER: &str = "frame,time,T,Z";

/// Header of `front_reference.csv`.
pub const REFERENCE_HEADER: &str = "T,Z_measured,Z,error";

/// The front at one frame.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FrontSample {
    /// Frame index.
    pub frame: u32,
    /// Simulated time, s.
    pub time: f64,
    /// Dimensionless time `t sqrt(2 g / a)` plus the time shift.
    pub t: f64,
    /// Dimensionless front `x / a`, x from the container's low x wall.
    pub z: f64,
}

/// The largest `x - x0` of a particle whose density is at least [`BULK`] of `rest_density`;
/// `None` when no particle is.
pub fn leading_edge(points: &FluidPoints, rest_density: f64, x0: f64) -> Option<f64> {
    points
        .pos
        .iter()
        .zip(&points.density)
        .filter(|(_, d)| **d as f64 >= BULK * rest_density)
        .map(|(p, _)| p[0] as f64 - x0)
        .reduce(f64::max)
}

/// `sqrt(2 g / a)`: the factor from time to the dimensionless `T`.
pub fn time_scale(g: f64, a: f64) -> f64 {
    (2.0 * g / a).sqrt()
}

/// Measured `(T, Z)` points of a CSV: lines that start with `#` and lines that do not begin
/// with two numbers (a header) are skipped; at least two points are needed.
pub fn read_reference(path: &Path) -> Result<Vec<[f64; 2]>> {
    let bad = |what: String| {
        Error::input(format!(
            "--reference {}: {what}; fix: give a CSV of T,Z lines such as tests/data/martin_moyce_1952.csv",
            path.display()
        ))
    };
    let text = crate::bounded_read::read_text_with(path, &crate::bounded_read::REFERENCE, |e| {
        bad(format!("cannot read it ({e})"))
    })?;
    let points: Vec<[f64; 2]> = text
        .lines()
        .filter(|l| !l.trim_start().starts_with('#'))
        .filter_map(|l| {
            let mut cols = l.split(',').map(|c| c.trim().parse::<f64>());
            match (cols.next(), cols.next()) {
                (Some(Ok(t)), Some(Ok(z))) if t.is_finite() && z.is_finite() => Some([t, z]),
                _ => None,
            }
        })
        .collect();
    if points.len() < 2 {
        return Err(bad(format!(
            "{} T,Z points, 2 or more needed",
            points.len()
        )));
    }
    Ok(points)
}

/// The front's `Z` at `t`, linear between the samples (ascending in `t`); `None` outside them.
pub fn at(samples: &[FrontSample], t: f64) -> Option<f64> {
    samples.windows(2).find_map(|w| {
        let (a, b) = (w[0], w[1]);
        let f = if b.t > a.t {
            (t - a.t) / (b.t - a.t)
        } else {
            0.0
        };
        (a.t..=b.t).contains(&t).then_some(a.z + (b.z - a.z) * f)
    })
}

/// Each measured point within the samples' span of `T`, with the simulated `Z` there and its
/// relative error: `(T, Z measured, Z, Z / Z measured - 1)`.
pub fn compare(samples: &[FrontSample], reference: &[[f64; 2]]) -> Vec<[f64; 4]> {
    reference
        .iter()
        .filter_map(|&[t, zm]| at(samples, t).map(|z| [t, zm, z, z / zm - 1.0]))
        .collect()
}

/// The samples as CSV under [`HEADER`].
pub fn to_csv(samples: &[FrontSample]) -> String {
    let mut s = format!("{HEADER}\n");
    for f in samples {
        s += &format!("{},{:.9},{:.6},{:.6}\n", f.frame, f.time, f.t, f.z);
    }
    s
}

/// [`compare`]'s rows as CSV under [`REFERENCE_HEADER`].
pub fn comparison_csv(rows: &[[f64; 4]]) -> String {
    let mut s = format!("{REFERENCE_HEADER}\n");
    for [t, zm, z, e] in rows {
        s += &format!("{t},{zm},{z:.6},{e:.6}\n");
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_edge_skips_thin_particles_and_is_taken_from_the_wall() {
        let points = FluidPoints {
            pos: vec![[0.25, 0.0, 0.0], [0.5, 0.0, 0.0], [0.75, 0.0, 0.0]],
            vel: vec![[0.0; 3]; 3],
            density: vec![1000.0, 301.0, 299.0],
            id: vec![0, 1, 2],
        };
        assert_eq!(leading_edge(&points, 1000.0, 0.25), Some(0.25));
        assert_eq!(leading_edge(&points, 2000.0, 0.0), Some(0.25));
        assert_eq!(leading_edge(&points, 1e6, 0.0), None);
    }

    #[test]
    fn the_front_is_interpolated_between_frames_and_compared() {
        let s = |frame, t, z| FrontSample {
            frame,
            time: t / 10.0,
            t,
            z,
        };
        let samples = [s(0, 1.0, 1.0), s(1, 2.0, 2.0), s(2, 3.0, 4.0)];
        assert_eq!(at(&samples, 2.5), Some(3.0));
        assert_eq!(at(&samples, 0.5), None);
        let rows = compare(&samples, &[[0.5, 1.0], [1.5, 1.25], [3.0, 5.0], [3.5, 4.0]]);
        let want = [[1.5, 1.25, 1.5, 0.2], [3.0, 5.0, 4.0, -0.2]];
        assert_eq!(rows.len(), want.len());
        for (r, w) in rows.iter().zip(&want) {
            assert!(r.iter().zip(w).all(|(a, b)| (a - b).abs() < 1e-12), "{r:?}");
        }
        assert!(to_csv(&samples).starts_with("frame,time,T,Z\n0,0.100000000,1.000000,1.000000\n"));
    }
}
