//! Viridis, the perceptually uniform colormap of matplotlib, for colouring by a scalar.
use super::canvas::Rgb;

/// Viridis sampled at 17 evenly spaced points of [0, 1] (from matplotlib's table).
pub const VIRIDIS: [Rgb; 17] = [
    [68, 1, 84],
    [72, 24, 106],
    [71, 45, 123],
    [66, 64, 134],
    [59, 82, 139],
    [51, 99, 141],
    [44, 114, 142],
    [38, 130, 142],
    [33, 145, 140],
    [31, 160, 136],
    [40, 174, 128],
    [63, 188, 115],
    [94, 201, 98],
    [132, 212, 75],
    [173, 220, 48],
    [216, 226, 25],
    [253, 231, 37],
];

/// The viridis colour of `t` in [0, 1] (clamped; NaN maps to 0), linearly interpolated
/// between the control points.
pub fn viridis(t: f64) -> Rgb {
    let t = if t.is_nan() { 0.0 } else { t.clamp(0.0, 1.0) };
    let s = t * (VIRIDIS.len() - 1) as f64;
    let i = (s.floor() as usize).min(VIRIDIS.len() - 2);
    let f = s - i as f64;
    let (a, b) = (VIRIDIS[i], VIRIDIS[i + 1]);
    std::array::from_fn(|k| (a[k] as f64 + f * (b[k] as f64 - a[k] as f64)).round() as u8)
}

/// Whether `c` is a viridis colour, within `tol` per channel of the interpolated curve.
pub fn is_viridis(c: Rgb, tol: f64) -> bool {
    VIRIDIS.windows(2).any(|w| {
        // Closest point on the segment w[0]..w[1] in RGB space.
        let (a, b) = (w[0].map(f64::from), w[1].map(f64::from));
        let d: [f64; 3] = std::array::from_fn(|k| b[k] - a[k]);
        let p: [f64; 3] = std::array::from_fn(|k| c[k] as f64 - a[k]);
        let dd: f64 = d.iter().map(|x| x * x).sum();
        let f = (p.iter().zip(&d).map(|(x, y)| x * y).sum::<f64>() / dd).clamp(0.0, 1.0);
        (0..3).all(|k| (p[k] - f * d[k]).abs() <= tol)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ends_and_midpoint_match_matplotlib() {
        assert_eq!(viridis(0.0), [68, 1, 84]);
        assert_eq!(viridis(1.0), [253, 231, 37]);
        assert_eq!(viridis(0.5), [33, 145, 140]);
        assert_eq!(viridis(-3.0), viridis(0.0));
        assert_eq!(viridis(f64::NAN), viridis(0.0));
        // Between two control points the colour lies between them.
        let c = viridis(1.5 / 16.0);
        assert_eq!(c, [72, 35, 115]);
    }

    #[test]
    fn is_viridis_accepts_the_curve_and_rejects_others() {
        for i in 0..=100 {
            assert!(is_viridis(viridis(i as f64 / 100.0), 1.0));
        }
        assert!(!is_viridis([255, 255, 255], 3.0));
        assert!(!is_viridis([200, 60, 40], 3.0));
    }
}
