//! The pressure profile of liquid at rest (`sphrigid figure --profile FRAMES`): the rows of
//! particles by height, each row's mean reported pressure `k (density - rest density)` over
//! the given frames, against the hydrostatic `rho0 g d` at its depth below the top row, as
//! `tests/liquid/walls.rs` measures its still tank.
use crate::output::fluid_frames::FluidPoints;

/// Header of `profile.csv`.
pub const HEADER: &str = "row,height_m,depth_m,pressure_pa,hydrostatic_pa";

/// One row of particles, averaged over the frames.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Row {
    /// Row index from the floor.
    pub row: u32,
    /// Mean height of its particles, m.
    pub height: f64,
    /// Depth below the top row's mean height, m.
    pub depth: f64,
    /// Mean pressure `k (density - rest density)` of its particles away from the side walls, Pa.
    pub pressure: f64,
    /// `rest density g depth`, Pa.
    pub hydrostatic: f64,
}

/// How to measure.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Setup {
    /// Particles in a row: the container's floor area over the spacing squared for liquid that
    /// covers the floor (at rest the rows stay layered).
    pub per_row: usize,
    /// The pressure is averaged over particles with x in this range (two spacings from the
    /// side walls).
    pub x_range: (f64, f64),
    /// Rest density, kg/m^3.
    pub rest_density: f64,
    /// Stiffness `k`, m^2/s^2.
    pub stiffness: f64,
    /// Gravity's magnitude, m/s^2.
    pub g: f64,
}

/// The rows of `frames`: in each frame the particles ranked by height, `per_row` to a row from
/// the floor up, each row's height and pressure averaged over the frames. A last row less than
/// full is left out; the top row is the last full one.
pub fn rows(frames: &[FluidPoints], setup: &Setup) -> Vec<Row> {
    let per_row = setup.per_row.max(1);
    let count = frames.iter().map(|f| f.pos.len()).min().unwrap_or(0);
    let n = count / per_row;
    let (mut y, mut p, mut np) = (vec![0.0f64; n], vec![0.0f64; n], vec![0usize; n]);
    for f in frames {
        let mut order: Vec<usize> = (0..f.pos.len()).collect();
        order.sort_by(|&a, &b| f.pos[a][1].total_cmp(&f.pos[b][1]));
        for (rank, &i) in order.iter().take(n * per_row).enumerate() {
            let r = rank / per_row;
            y[r] += f.pos[i][1] as f64;
            let x = f.pos[i][0] as f64;
            if x > setup.x_range.0 && x < setup.x_range.1 {
                p[r] += setup.stiffness * (f.density[i] as f64 - setup.rest_density);
                np[r] += 1;
            }
        }
    }
    let samples = (frames.len() * per_row).max(1) as f64;
    let heights: Vec<f64> = y.iter().map(|y| y / samples).collect();
    let top = heights.last().copied().unwrap_or(0.0);
    (0..n)
        .map(|r| {
            let depth = top - heights[r];
            Row {
                row: r as u32,
                height: heights[r],
                depth,
                pressure: if np[r] > 0 { p[r] / np[r] as f64 } else { 0.0 },
                hydrostatic: setup.rest_density * setup.g * depth,
            }
        })
        .collect()
}

/// The rows as CSV under [`HEADER`].
pub fn to_csv(rows: &[Row]) -> String {
    let mut s = format!("{HEADER}\n");
    for r in rows {
        s += &format!(
            "{},{:.6},{:.6},{:.3},{:.3}\n",
            r.row, r.height, r.depth, r.pressure, r.hydrostatic
        );
    }
    s
}

/// The least-squares slope of the pressure over depth through the rows from the second (the
/// floor row left out) to the eighth from the top (the free surface's skin left out), over
/// `rest density g`: 1 for a hydrostatic column (the still-tank test's measure); `None` with
/// fewer than three such rows.
pub fn slope(rows: &[Row], rest_density: f64, g: f64) -> Option<f64> {
    let bulk = rows.get(1..rows.len().checked_sub(7)?)?;
    if bulk.len() < 3 {
        return None;
    }
    let n = bulk.len() as f64;
    let mx = bulk.iter().map(|r| r.depth).sum::<f64>() / n;
    let my = bulk.iter().map(|r| r.pressure).sum::<f64>() / n;
    let sxy: f64 = bulk
        .iter()
        .map(|r| (r.depth - mx) * (r.pressure - my))
        .sum();
    let sxx: f64 = bulk.iter().map(|r| (r.depth - mx).powi(2)).sum();
    Some(sxy / sxx / (rest_density * g))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_hydrostatic_column_gives_rows_on_the_line_and_a_slope_of_one() {
        // Twelve rows of four particles on the lattice, listed top row first, their density
        // hydrostatic below the top row; the particles at the walls (x = 0) read nothing.
        let (s, rho0, k, g) = (0.01, 1000.0, 100.0, 9.81);
        let mut f = FluidPoints::default();
        for r in (0..12).rev() {
            let y = (r as f64 + 0.5) * s;
            let depth = (11 - r) as f64 * s;
            for x in [0.0, 0.05, 0.06, 0.07] {
                let d = if x == 0.0 {
                    0.0
                } else {
                    rho0 + rho0 * g * depth / k
                };
                f.pos.push([x as f32, y as f32, 0.0]);
                f.density.push(d as f32);
            }
        }
        // Two more: not a full row, left out.
        f.pos.extend([[0.05, 0.125, 0.0], [0.06, 0.14, 0.0]]);
        f.density.extend([900.0, 900.0]);
        let setup = Setup {
            per_row: 4,
            x_range: (0.02, 1.0),
            rest_density: rho0,
            stiffness: k,
            g,
        };
        let rows = rows(&[f.clone(), f], &setup);
        assert_eq!(rows.len(), 12);
        for r in &rows {
            assert!((r.pressure - r.hydrostatic).abs() < 0.05, "{r:?}");
            assert!((r.height - (r.row as f64 + 0.5) * s).abs() < 1e-6, "{r:?}");
        }
        assert!((rows[0].depth - 0.11).abs() < 1e-6);
        assert!((slope(&rows, rho0, g).unwrap() - 1.0).abs() < 1e-4);
        assert!(to_csv(&rows).starts_with(HEADER));
    }
}
