//! Side views of frames: liquid particles as discs coloured by speed, bodies as filled
//! triangles, framed by the container, one panel per frame, and the strip of panels with a
//! colour bar.
use super::canvas::{BLACK, Canvas, Rgb, WHITE};
use super::colormap::viridis;
use super::plot::{nice_ticks, tick_label};
use crate::output::fluid_frames::FluidFrame;
use crate::output::rigid_frames::BodyMesh;

/// Largest width of a panel's drawing area, px.
pub const MAX_PLOT_W: f64 = 420.0;
/// Largest height of a panel's drawing area, px.
pub const MAX_PLOT_H: f64 = 320.0;
/// Margin between a panel's edge and its drawing area, px.
pub const PAD: f64 = 8.0;
/// Height of the band above the drawing area that holds the frame time, px.
pub const TITLE_H: f64 = 34.0;
/// Gap between panels of the strip, px.
pub const GAP: u32 = 12;
/// Width of the colour bar area right of the strip, px.
pub const COLORBAR_W: u32 = 170;
/// Background colour.
pub const BACKGROUND: Rgb = WHITE;
/// Colour of the container outline.
pub const CONTAINER: Rgb = [90, 90, 90];
/// Body colours, by body number (repeating); none is close to viridis.
pub const BODY_COLORS: [Rgb; 5] = [
    [238, 102, 34],
    [214, 39, 40],
    [227, 80, 170],
    [140, 86, 75],
    [127, 127, 127],
];

/// The colour of body number `k`.
pub fn body_color(k: usize) -> Rgb {
    BODY_COLORS[k % BODY_COLORS.len()]
}

/// The darker outline colour of body number `k`.
pub fn body_outline(k: usize) -> Rgb {
    body_color(k).map(|c| (c as f64 * 0.5) as u8)
}

/// The orthographic side view (looking along -z: x to the right, y up) shared by all panels.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct View {
    /// Lower-left corner of the framed region, m (x, y).
    pub lo: [f64; 2],
    /// Upper-right corner of the framed region, m (x, y).
    pub hi: [f64; 2],
    /// Pixels per metre.
    pub scale: f64,
}

impl View {
    /// The view that frames the region [lo, hi] as large as the panel allows.
    pub fn new(lo: [f64; 2], hi: [f64; 2]) -> View {
        let w = (hi[0] - lo[0]).max(1e-9);
        let h = (hi[1] - lo[1]).max(1e-9);
        View {
            lo,
            hi,
            scale: (MAX_PLOT_W / w).min(MAX_PLOT_H / h),
        }
    }

    /// Size of the drawing area, px.
    pub fn plot_size(&self) -> (u32, u32) {
        (
            ((self.hi[0] - self.lo[0]) * self.scale).round() as u32,
            ((self.hi[1] - self.lo[1]) * self.scale).round() as u32,
        )
    }

    /// Size of a panel image, px.
    pub fn panel_size(&self) -> (u32, u32) {
        let (w, h) = self.plot_size();
        (w + 2 * PAD as u32, h + 2 * PAD as u32 + TITLE_H as u32)
    }

    /// Where world point (x, y) falls in a panel image, px (continuous coordinates: pixel
    /// (i, j) covers [i, i+1) x [j, j+1)).
    pub fn to_panel(&self, x: f64, y: f64) -> [f64; 2] {
        [
            PAD + (x - self.lo[0]) * self.scale,
            TITLE_H + PAD + (self.hi[1] - y) * self.scale,
        ]
    }
}

/// What a panel shows: one frame's liquid and bodies.
#[derive(Debug, Clone, PartialEq)]
pub struct PanelFrame {
    /// Frame index.
    pub index: u32,
    /// Time, s.
    pub time: f64,
    /// The liquid.
    pub fluid: FluidFrame,
    /// The bodies with their body numbers (for their colours).
    pub bodies: Vec<(usize, BodyMesh)>,
}

/// The x-y bounds of everything in `frames`, widened by `radius`.
pub fn data_bounds(frames: &[PanelFrame], radius: f64) -> ([f64; 2], [f64; 2]) {
    let (mut lo, mut hi) = ([f64::MAX; 2], [f64::MIN; 2]);
    let mut add = |x: f64, y: f64| {
        if x.is_finite() && y.is_finite() {
            lo = [lo[0].min(x - radius), lo[1].min(y - radius)];
            hi = [hi[0].max(x + radius), hi[1].max(y + radius)];
        }
    };
    for f in frames {
        for p in &f.fluid.pos {
            add(p[0] as f64, p[1] as f64);
        }
        for (_, b) in &f.bodies {
            for v in &b.vertices {
                add(v[0], v[1]);
            }
        }
    }
    if lo[0] > hi[0] {
        ([0.0; 2], [1.0; 2])
    } else {
        (lo, hi)
    }
}

/// The fastest particle speed in `frames`, m/s (1 when all are at rest, so that the colour
/// range is never empty).
pub fn speed_range(frames: &[PanelFrame]) -> f64 {
    let m = frames
        .iter()
        .flat_map(|f| f.fluid.speed.iter())
        .filter(|s| s.is_finite())
        .fold(0f32, |a, &s| a.max(s)) as f64;
    if m > 0.0 { m } else { 1.0 }
}

/// Whether a triangle's edge (`a`, `b`) is drawn as outline: where the surface folds by more
/// than 30 degrees, turns from facing the viewer to facing away, or ends.
fn outline_edges(mesh: &BodyMesh) -> Vec<Vec<(u32, u32)>> {
    use std::collections::HashMap;
    let normal = |t: &[u32; 3]| {
        let p = |i: u32| glam::DVec3::from_array(mesh.vertices[i as usize]);
        (p(t[1]) - p(t[0]))
            .cross(p(t[2]) - p(t[0]))
            .normalize_or_zero()
    };
    let normals: Vec<glam::DVec3> = mesh.triangles.iter().map(normal).collect();
    let mut by_edge: HashMap<(u32, u32), Vec<usize>> = HashMap::new();
    for (k, t) in mesh.triangles.iter().enumerate() {
        for e in 0..3 {
            let (a, b) = (t[e], t[(e + 1) % 3]);
            by_edge.entry((a.min(b), a.max(b))).or_default().push(k);
        }
    }
    mesh.triangles
        .iter()
        .enumerate()
        .map(|(k, t)| {
            (0..3)
                .map(|e| (t[e], t[(e + 1) % 3]))
                .filter(|&(a, b)| {
                    let tris = &by_edge[&(a.min(b), a.max(b))];
                    let Some(&o) = tris.iter().find(|&&o| o != k) else {
                        return true;
                    };
                    let (n, m) = (normals[k], normals[o]);
                    n.dot(m) < 30f64.to_radians().cos() || n.z * m.z < -1e-12
                })
                .collect()
        })
        .collect()
}

enum Item {
    Particle(usize),
    Triangle(usize, usize),
}

/// Draw one frame as a panel: its time above, the container (or data) frame, then particles
/// and body triangles back to front.
pub fn panel(view: &View, frame: &PanelFrame, radius: f64, vmax: f64, boxed: bool) -> Canvas {
    let (w, h) = view.panel_size();
    let mut cv = Canvas::new(w, h, BACKGROUND);
    let title = format!("frame {}   t = {:.3} s", frame.index, frame.time);
    cv.text_centred(w as i64 / 2, 10, &title, 2, BLACK);
    let r_px = (radius * view.scale).max(1.0);
    let mut items: Vec<(f64, Item)> = Vec::with_capacity(frame.fluid.pos.len());
    for (i, p) in frame.fluid.pos.iter().enumerate() {
        items.push((p[2] as f64, Item::Particle(i)));
    }
    let outlines: Vec<Vec<Vec<(u32, u32)>>> =
        frame.bodies.iter().map(|(_, m)| outline_edges(m)).collect();
    for (b, (_, mesh)) in frame.bodies.iter().enumerate() {
        for (t, tri) in mesh.triangles.iter().enumerate() {
            let z = tri
                .iter()
                .map(|&i| mesh.vertices[i as usize][2])
                .sum::<f64>()
                / 3.0;
            items.push((z, Item::Triangle(b, t)));
        }
    }
    items.sort_by(|a, b| a.0.total_cmp(&b.0));
    for (_, item) in &items {
        match *item {
            Item::Particle(i) => {
                let p = frame.fluid.pos[i];
                let c = view.to_panel(p[0] as f64, p[1] as f64);
                let color = viridis(frame.fluid.speed[i] as f64 / vmax);
                cv.fill_circle(c[0], c[1], r_px, color);
            }
            Item::Triangle(b, t) => {
                let (k, mesh) = &frame.bodies[b];
                let px = |i: u32| {
                    let v = mesh.vertices[i as usize];
                    view.to_panel(v[0], v[1])
                };
                let tri = mesh.triangles[t];
                cv.fill_triangle(px(tri[0]), px(tri[1]), px(tri[2]), body_color(*k));
                for &(a, e) in &outlines[b][t] {
                    cv.line(px(a), px(e), 1.5, body_outline(*k));
                }
            }
        }
    }
    // The frame goes on last, so that nothing hides it; a data frame is lighter.
    let a = view.to_panel(view.lo[0], view.hi[1]);
    let b = view.to_panel(view.hi[0], view.lo[1]);
    let color = if boxed { CONTAINER } else { [200, 200, 200] };
    cv.stroke_rect(
        a[0].floor() as i64 - 1,
        a[1].floor() as i64 - 1,
        b[0].ceil() as i64,
        b[1].ceil() as i64,
        color,
    );
    cv
}

/// `panels` side by side with a colour bar for speeds 0 to `vmax` m/s at the right.
pub fn strip(panels: &[Canvas], view: &View, vmax: f64) -> Canvas {
    let (pw, ph) = view.panel_size();
    let n = panels.len() as u32;
    let w = n * pw + n.saturating_sub(1) * GAP + COLORBAR_W;
    let mut cv = Canvas::new(w, ph, BACKGROUND);
    for (i, p) in panels.iter().enumerate() {
        cv.blit(p, i as i64 * (pw + GAP) as i64, 0);
    }
    colorbar(
        &mut cv,
        (n * pw + n.saturating_sub(1) * GAP) as i64 + 10,
        view,
        vmax,
    );
    cv
}

/// A panel with the colour bar beside it.
pub fn panel_with_colorbar(panel: &Canvas, view: &View, vmax: f64) -> Canvas {
    let mut cv = Canvas::new(panel.width() + COLORBAR_W, panel.height(), BACKGROUND);
    cv.blit(panel, 0, 0);
    colorbar(&mut cv, panel.width() as i64 + 10, view, vmax);
    cv
}

/// Draw the vertical viridis bar for 0..`vmax` m/s with its ticks and title, left edge at `x`,
/// spanning the height of the drawing area.
fn colorbar(cv: &mut Canvas, x: i64, view: &View, vmax: f64) {
    let top = view.to_panel(view.lo[0], view.hi[1])[1];
    let bottom = view.to_panel(view.lo[0], view.lo[1])[1];
    let bar_w = 22.0;
    let n = (bottom - top).max(1.0);
    for j in 0..n as i64 {
        let t = 1.0 - (j as f64 + 0.5) / n;
        cv.fill_block(x, top as i64 + j, bar_w as u32, 1, viridis(t));
    }
    cv.stroke_rect(
        x - 1,
        top as i64 - 1,
        x + bar_w as i64,
        bottom as i64,
        BLACK,
    );
    let (ticks, step) = nice_ticks(0.0, vmax, 4);
    let xe = x as f64 + bar_w;
    let mut label = |v: f64, text: &str| {
        let y = bottom - v / vmax * (bottom - top);
        cv.line([xe, y], [xe + 5.0, y], 1.0, BLACK);
        cv.text(xe as i64 + 9, y as i64 - 8, text, 2, BLACK);
    };
    // Round ticks, except those crowding the top end, which is labelled with the range's end.
    for v in ticks.into_iter().filter(|v| *v <= vmax * 0.85) {
        label(v, &tick_label(v, step));
    }
    label(vmax, &tick_label(vmax, step / 10.0));
    cv.text(x - 2, 10, "|v| (m/s)", 2, BLACK);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn block_frame() -> PanelFrame {
        // A unit square in the plane z = 0.5 (two triangles) and one particle behind it, one
        // in front of it, one beside it.
        let mesh = BodyMesh {
            vertices: vec![
                [0.4, 0.4, 0.5],
                [0.6, 0.4, 0.5],
                [0.6, 0.6, 0.5],
                [0.4, 0.6, 0.5],
            ],
            triangles: vec![[0, 1, 2], [0, 2, 3]],
        };
        PanelFrame {
            index: 3,
            time: 0.1,
            fluid: FluidFrame {
                pos: vec![[0.45, 0.45, 0.2], [0.55, 0.55, 0.9], [0.1, 0.1, 0.5]],
                speed: vec![0.0, 2.0, 1.0],
            },
            bodies: vec![(0, mesh)],
        }
    }

    #[test]
    fn painter_order_and_colours() {
        let view = View::new([0.0, 0.0], [1.0, 1.0]);
        assert_eq!(view.scale, MAX_PLOT_H);
        let f = block_frame();
        let cv = panel(&view, &f, 0.02, speed_range(std::slice::from_ref(&f)), true);
        assert_eq!((cv.width(), cv.height()), view.panel_size());
        let at = |x: f64, y: f64| {
            let p = view.to_panel(x, y);
            cv.get(p[0] as i64, p[1] as i64).unwrap()
        };
        assert_eq!(
            at(0.45, 0.45),
            body_color(0),
            "the body hides the particle behind it"
        );
        assert_eq!(at(0.55, 0.55), viridis(1.0), "the particle in front shows");
        assert_eq!(at(0.1, 0.1), viridis(0.5));
        assert_eq!(at(0.5, 0.45), body_color(0));
        assert_eq!(at(0.8, 0.8), BACKGROUND);
        // The square's border is outlined; its diagonal (a flat fold) is not.
        let sum = |c: Rgb| c.iter().map(|&v| v as u32).sum::<u32>();
        assert!(
            sum(at(0.4, 0.5)) + 100 < sum(body_color(0)),
            "{:?}",
            at(0.4, 0.5)
        );
        assert_eq!(at(0.5, 0.5), body_color(0));
        // Container frame just outside the drawing area.
        let corner = view.to_panel(0.0, 1.0);
        assert_eq!(
            cv.get(corner[0] as i64 - 1, corner[1] as i64 - 1),
            Some(CONTAINER)
        );
    }

    #[test]
    fn bounds_strip_and_colorbar() {
        let f = block_frame();
        let (lo, hi) = data_bounds(std::slice::from_ref(&f), 0.05);
        assert!((lo[0] - 0.05).abs() < 1e-6 && (lo[1] - 0.05).abs() < 1e-6);
        assert!((hi[0] - 0.65).abs() < 1e-6 && (hi[1] - 0.65).abs() < 1e-6);
        let view = View::new(lo, hi);
        let p = panel(&view, &f, 0.01, 2.0, false);
        let s = strip(&[p.clone(), p.clone()], &view, 2.0);
        let (pw, ph) = view.panel_size();
        assert_eq!((s.width(), s.height()), (2 * pw + GAP + COLORBAR_W, ph));
        // The colour bar holds viridis' ends at its bottom and top.
        let x = (2 * pw + GAP) as i64 + 20;
        let top = view.to_panel(lo[0], hi[1])[1] as i64;
        let bottom = view.to_panel(lo[0], lo[1])[1] as i64;
        let (t, b) = (s.get(x, top + 1).unwrap(), s.get(x, bottom - 2).unwrap());
        assert!(
            t[0] > 240 && t[1] > 220 && t[2] < 60,
            "top {t:?} is not yellow"
        );
        assert!(
            b[0] < 80 && b[1] < 15 && b[2] > 80,
            "bottom {b:?} is not purple"
        );
        assert_eq!(speed_range(&[]), 1.0);
    }
}
