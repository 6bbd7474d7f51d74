//! Line charts of quantities over time: axes with ticks and numeric labels, axis titles, a
//! title, a legend when there is more than one line.
use super::canvas::{BLACK, Canvas, Rgb, WHITE};

/// Chart width, px.
pub const WIDTH: u32 = 900;
/// Chart height, px.
pub const HEIGHT: u32 = 560;
/// Text scale of titles and labels (8 px glyphs times this).
const TEXT: u32 = 2;
const GRID: Rgb = [225, 225, 225];
const AXIS: Rgb = [60, 60, 60];

/// One line of a chart.
#[derive(Debug, Clone, PartialEq)]
pub struct Series {
    /// Name shown in the legend.
    pub name: String,
    /// Line colour.
    pub color: Rgb,
    /// (x, y) points in order.
    pub points: Vec<[f64; 2]>,
}

/// A chart of one or more lines.
#[derive(Debug, Clone, PartialEq)]
pub struct LinePlot {
    /// Title above the chart.
    pub title: String,
    /// Title of the horizontal axis.
    pub x_label: String,
    /// Title of the vertical axis.
    pub y_label: String,
    /// The lines.
    pub series: Vec<Series>,
    /// Whether the vertical axis must include 0.
    pub y_from_zero: bool,
}

/// Tick values covering [lo, hi] at a step of 1, 2 or 5 times a power of ten, about `target`
/// intervals; returns the ticks (from a multiple of the step at or below `lo` to one at or
/// above `hi`) and the step.
pub fn nice_ticks(lo: f64, hi: f64, target: usize) -> (Vec<f64>, f64) {
    let (lo, hi) = if hi > lo {
        (lo, hi)
    } else {
        (lo - 0.5, lo + 0.5)
    };
    let raw = (hi - lo) / target.max(1) as f64;
    let mag = 10f64.powf(raw.log10().floor());
    let step = [1.0, 2.0, 5.0, 10.0]
        .iter()
        .map(|m| m * mag)
        .find(|s| *s >= raw * 0.999)
        .unwrap_or(10.0 * mag);
    let first = (lo / step + 1e-9).floor() as i64;
    let last = (hi / step - 1e-9).ceil() as i64;
    let ticks = (first..=last).map(|k| k as f64 * step).collect();
    (ticks, step)
}

/// A tick value written with as many decimals as the step needs.
pub fn tick_label(v: f64, step: f64) -> String {
    let decimals = (-step.log10().floor()).max(0.0) as usize;
    let s = format!("{v:.decimals$}");
    // No "-0" or "-0.00".
    if s.trim_start_matches('-')
        .chars()
        .all(|c| c == '0' || c == '.')
    {
        s.trim_start_matches('-').to_string()
    } else {
        s
    }
}

/// Draw `plot` on a `WIDTH` x `HEIGHT` canvas.
pub fn render(plot: &LinePlot) -> Canvas {
    let mut cv = Canvas::new(WIDTH, HEIGHT, WHITE);
    let pts = || plot.series.iter().flat_map(|s| s.points.iter());
    let (mut x0, mut x1, mut y0, mut y1) = (f64::MAX, f64::MIN, f64::MAX, f64::MIN);
    for p in pts().filter(|p| p[0].is_finite() && p[1].is_finite()) {
        (x0, x1) = (x0.min(p[0]), x1.max(p[0]));
        (y0, y1) = (y0.min(p[1]), y1.max(p[1]));
    }
    if x0 > x1 {
        (x0, x1, y0, y1) = (0.0, 1.0, 0.0, 1.0);
    }
    if plot.y_from_zero {
        (y0, y1) = (y0.min(0.0), y1.max(0.0));
    }
    if y1 - y0 <= 1e-12 * y0.abs().max(y1.abs()).max(1e-300) {
        let pad = if y0 == 0.0 { 1.0 } else { 0.1 * y0.abs() };
        (y0, y1) = (y0 - pad, y1 + pad);
    } else {
        let pad = 0.05 * (y1 - y0);
        (y0, y1) = (y0 - if y0 == 0.0 { 0.0 } else { pad }, y1 + pad);
    }
    let (xt, xstep) = nice_ticks(x0, x1, 8);
    let (yt, ystep) = nice_ticks(y0, y1, 6);
    let (ax0, ax1) = (xt[0], *xt.last().unwrap());
    let (ay0, ay1) = (yt[0], *yt.last().unwrap());
    let ylabels: Vec<String> = yt.iter().map(|v| tick_label(*v, ystep)).collect();
    let label_w = ylabels
        .iter()
        .map(|l| Canvas::text_width(l, TEXT))
        .max()
        .unwrap_or(0) as f64;
    let th = Canvas::text_height(TEXT) as f64;
    let legend = plot.series.len() > 1;
    let left = 20.0 + th + 12.0 + label_w + 10.0;
    let top = 20.0 + th + if legend { th + 24.0 } else { 0.0 } + 16.0;
    let (right, bottom) = (
        WIDTH as f64 - 30.0,
        HEIGHT as f64 - (20.0 + th + 12.0 + th + 10.0),
    );
    let px = |x: f64| left + (x - ax0) / (ax1 - ax0) * (right - left);
    let py = |y: f64| bottom - (y - ay0) / (ay1 - ay0) * (bottom - top);

    // Grid, ticks and tick labels.
    for (v, l) in yt.iter().zip(&ylabels) {
        let y = py(*v).round() + 0.5;
        cv.line([left, y], [right, y], 1.0, GRID);
        cv.line([left - 6.0, y], [left, y], 1.0, AXIS);
        let w = Canvas::text_width(l, TEXT) as f64;
        cv.text(
            (left - 10.0 - w) as i64,
            (y - th / 2.0) as i64,
            l,
            TEXT,
            BLACK,
        );
    }
    for v in &xt {
        let x = px(*v).round() + 0.5;
        cv.line([x, top], [x, bottom], 1.0, GRID);
        cv.line([x, bottom], [x, bottom + 6.0], 1.0, AXIS);
        cv.text_centred(
            x as i64,
            (bottom + 14.0) as i64,
            &tick_label(*v, xstep),
            TEXT,
            BLACK,
        );
    }
    // Lines, with dots when there are few points.
    for s in &plot.series {
        let p: Vec<[f64; 2]> = s.points.iter().map(|q| [px(q[0]), py(q[1])]).collect();
        cv.polyline(&p, 2.5, s.color);
        if p.len() <= 60 {
            for q in &p {
                cv.fill_circle(q[0], q[1], 4.0, s.color);
            }
        }
    }
    // Frame, titles, legend.
    let (l, t, r, b) = (
        left.round() as i64,
        top.round() as i64,
        right.round() as i64,
        bottom.round() as i64,
    );
    cv.stroke_rect(l, t, r, b, AXIS);
    cv.text_centred(((left + right) / 2.0) as i64, 20, &plot.title, TEXT, BLACK);
    cv.text_centred(
        ((left + right) / 2.0) as i64,
        HEIGHT as i64 - 10 - th as i64,
        &plot.x_label,
        TEXT,
        BLACK,
    );
    cv.text_vertical(
        20,
        ((top + bottom) / 2.0) as i64,
        &plot.y_label,
        TEXT,
        BLACK,
    );
    if legend {
        let item_w = |s: &Series| 40.0 + Canvas::text_width(&s.name, TEXT) as f64 + 30.0;
        let total: f64 = plot.series.iter().map(item_w).sum();
        let mut x = (left + right - total) / 2.0;
        let y = 20.0 + th + 16.0;
        for s in &plot.series {
            cv.line([x, y + th / 2.0], [x + 30.0, y + th / 2.0], 3.0, s.color);
            cv.text((x + 38.0) as i64, y as i64, &s.name, TEXT, BLACK);
            x += item_w(s);
        }
    }
    cv
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ticks_are_round_and_cover_the_range() {
        let (t, s) = nice_ticks(0.0, 0.2, 8);
        assert!((s - 0.02).abs() < 1e-12 || (s - 0.05).abs() < 1e-12, "{s}");
        assert!(t[0] <= 0.0 && *t.last().unwrap() >= 0.2 - 1e-12);
        let (t, s) = nice_ticks(-3.7, 41.0, 6);
        assert_eq!(s, 10.0);
        assert_eq!(t, vec![-10.0, 0.0, 10.0, 20.0, 30.0, 40.0, 50.0]);
        assert_eq!(tick_label(0.05, 0.05), "0.05");
        assert_eq!(tick_label(30.0, 5.0), "30");
        assert_eq!(tick_label(-1e-17, 0.01), "0.00");
        assert_eq!(tick_label(-0.5, 0.1), "-0.5");
    }

    #[test]
    fn lines_are_drawn_inside_the_frame_in_their_colours() {
        let red = [220, 30, 30];
        let blue = [30, 30, 220];
        let plot = LinePlot {
            title: "T".into(),
            x_label: "time (s)".into(),
            y_label: "y".into(),
            series: vec![
                Series {
                    name: "a".into(),
                    color: red,
                    points: vec![[0.0, 1.0], [1.0, 1.0]],
                },
                Series {
                    name: "b".into(),
                    color: blue,
                    points: vec![[0.0, 2.0], [1.0, 3.0]],
                },
            ],
            y_from_zero: true,
        };
        let cv = render(&plot);
        assert_eq!((cv.width(), cv.height()), (WIDTH, HEIGHT));
        // Both colours appear (legend and lines); a flat line covers a long horizontal run.
        assert!(cv.count(red) > 500 && cv.count(blue) > 500);
        let longest_red_row = (0..HEIGHT as i64)
            .map(|y| {
                (0..WIDTH as i64)
                    .filter(|&x| cv.get(x, y) == Some(red))
                    .count()
            })
            .max()
            .unwrap();
        assert!(longest_red_row > WIDTH as usize / 2, "{longest_red_row}");
        // Text is black somewhere, the corners are background.
        assert!(cv.count(BLACK) > 200);
        assert_eq!(cv.get(0, 0), Some(WHITE));
        assert_eq!(cv.get(WIDTH as i64 - 1, HEIGHT as i64 - 1), Some(WHITE));
    }
}
