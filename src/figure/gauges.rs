//! The gauges' readings over time, from `gauges.csv`: one chart of the height gauges (m) and
//! one of the pressure gauges (Pa), each gauge a line, the kinds taken from the scene's
//! `[[gauge]]` tables in the manifest.
use super::canvas::Rgb;
use super::plot::{LinePlot, Series};
use super::run_data::RunData;
use super::{Written, png_file};
use crate::Result;
use crate::output::gauges;
use std::path::Path;

/// Line colours, in turn.
const COLORS: [Rgb; 6] = [
    [31, 119, 180],
    [214, 39, 40],
    [44, 160, 44],
    [148, 103, 189],
    [255, 127, 14],
    [23, 190, 207],
];

/// The charts of the run's gauges written into `out` (none when the run has no gauges).
pub fn figures(run: &RunData, out: &Path) -> Result<Vec<Written>> {
    let table = gauges::read(&run.dir)?;
    let mut written = Vec::new();
    for (kind, file, title, y_label) in [
        (
            "height",
            "gauges_height.png",
            "water height at the gauges",
            "surface height y (m)",
        ),
        (
            "pressure",
            "gauges_pressure.png",
            "pressure at the gauges",
            "pressure (Pa)",
        ),
    ] {
        let series: Vec<Series> = table
            .names
            .iter()
            .filter(|n| run.gauge_kind(n) == Some(kind))
            .enumerate()
            .map(|(k, n)| Series {
                name: n.clone(),
                color: COLORS[k % COLORS.len()],
                points: table
                    .series(n)
                    .unwrap_or_default()
                    .into_iter()
                    .map(|(t, v)| [t, v])
                    .collect(),
            })
            .filter(|s| !s.points.is_empty())
            .collect();
        if series.is_empty() {
            continue;
        }
        let names: Vec<&str> = series.iter().map(|s| s.name.as_str()).collect();
        let what = format!("{kind} gauges {} over time (gauges.csv)", names.join(", "));
        let chart = LinePlot {
            title: title.into(),
            x_label: "time (s)".into(),
            y_label: y_label.into(),
            series,
            y_from_zero: true,
        };
        let path = out.join(file);
        png_file::write(&path, &super::plot::render(&chart))?;
        written.push(Written { path, what });
    }
    Ok(written)
}
