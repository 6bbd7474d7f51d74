//! A small RGB rasteriser: rectangles, discs, anti-aliased lines, filled triangles and bitmap
//! text, in pixel coordinates with (0, 0) at the top-left corner and y pointing down.
use super::font;

/// An 8-bit sRGB colour.
pub type Rgb = [u8; 3];

/// White.
pub const WHITE: Rgb = [255, 255, 255];
/// Black.
pub const BLACK: Rgb = [0, 0, 0];

/// An RGB image being drawn.
#[derive(Debug, Clone, PartialEq)]
pub struct Canvas {
    width: u32,
    height: u32,
    pixels: Vec<u8>,
}

impl Canvas {
    /// A `width` x `height` canvas filled with `background`.
    pub fn new(width: u32, height: u32, background: Rgb) -> Canvas {
        let pixels = background
            .iter()
            .copied()
            .cycle()
            .take(width as usize * height as usize * 3)
            .collect();
        Canvas {
            width,
            height,
            pixels,
        }
    }

    /// Width, px.
    pub fn width(&self) -> u32 {
        self.width
    }

    /// Height, px.
    pub fn height(&self) -> u32 {
        self.height
    }

    /// The pixels, row by row from the top, 3 bytes (R, G, B) each.
    pub fn pixels(&self) -> &[u8] {
        &self.pixels
    }

    fn index(&self, x: i64, y: i64) -> Option<usize> {
        (x >= 0 && y >= 0 && x < self.width as i64 && y < self.height as i64)
            .then(|| (y as usize * self.width as usize + x as usize) * 3)
    }

    /// The colour of pixel (`x`, `y`); None outside the canvas.
    pub fn get(&self, x: i64, y: i64) -> Option<Rgb> {
        self.index(x, y)
            .map(|i| [self.pixels[i], self.pixels[i + 1], self.pixels[i + 2]])
    }

    /// Set pixel (`x`, `y`); pixels outside the canvas are ignored.
    pub fn set(&mut self, x: i64, y: i64, c: Rgb) {
        if let Some(i) = self.index(x, y) {
            self.pixels[i..i + 3].copy_from_slice(&c);
        }
    }

    /// Mix `c` into pixel (`x`, `y`) with opacity `alpha` in [0, 1].
    pub fn blend(&mut self, x: i64, y: i64, c: Rgb, alpha: f64) {
        let a = alpha.clamp(0.0, 1.0);
        if let Some(i) = self.index(x, y) {
            for (px, &ck) in self.pixels[i..i + 3].iter_mut().zip(&c) {
                let old = *px as f64;
                *px = (old + a * (ck as f64 - old)).round() as u8;
            }
        }
    }

    /// Pixel index range [lo, hi) whose centres can lie in [a, b], clipped to `0..n`.
    fn span(a: f64, b: f64, n: u32) -> std::ops::Range<i64> {
        let lo = (a - 0.5).ceil().max(0.0);
        let hi = ((b - 0.5).floor() + 1.0).min(n as f64);
        if lo.is_nan() || hi.is_nan() || hi <= lo {
            0..0
        } else {
            lo as i64..hi as i64
        }
    }

    /// Fill the pixels whose centres lie in the rectangle [x0, x1] x [y0, y1].
    #[cfg_attr(not(test), allow(dead_code))]
    pub fn fill_rect(&mut self, x0: f64, y0: f64, x1: f64, y1: f64, c: Rgb) {
        let (xs, ys) = (
            Self::span(x0.min(x1), x0.max(x1), self.width),
            Self::span(y0.min(y1), y0.max(y1), self.height),
        );
        for y in ys {
            for x in xs.clone() {
                self.set(x, y, c);
            }
        }
    }

    /// Fill the `w` x `h` block of pixels whose top-left pixel is (`x`, `y`).
    pub fn fill_block(&mut self, x: i64, y: i64, w: u32, h: u32, c: Rgb) {
        for j in y..y + h as i64 {
            for i in x..x + w as i64 {
                self.set(i, j, c);
            }
        }
    }

    /// Draw the 1-px outline of the pixel block from (`x0`, `y0`) to (`x1`, `y1`), inclusive.
    pub fn stroke_rect(&mut self, x0: i64, y0: i64, x1: i64, y1: i64, c: Rgb) {
        for x in x0..=x1 {
            self.set(x, y0, c);
            self.set(x, y1, c);
        }
        for y in y0..=y1 {
            self.set(x0, y, c);
            self.set(x1, y, c);
        }
    }

    /// Fill the pixels whose centres lie within `r` of (`cx`, `cy`); a disc smaller than a
    /// pixel still sets the pixel holding its centre.
    pub fn fill_circle(&mut self, cx: f64, cy: f64, r: f64, c: Rgb) {
        let mut any = false;
        for y in Self::span(cy - r, cy + r, self.height) {
            for x in Self::span(cx - r, cx + r, self.width) {
                let (dx, dy) = (x as f64 + 0.5 - cx, y as f64 + 0.5 - cy);
                if dx * dx + dy * dy <= r * r {
                    self.set(x, y, c);
                    any = true;
                }
            }
        }
        if !any {
            self.set(cx.floor() as i64, cy.floor() as i64, c);
        }
    }

    /// An anti-aliased line segment `width` px wide with round ends.
    pub fn line(&mut self, a: [f64; 2], b: [f64; 2], width: f64, c: Rgb) {
        let h = width / 2.0;
        let (d, len2) = {
            let d = [b[0] - a[0], b[1] - a[1]];
            (d, d[0] * d[0] + d[1] * d[1])
        };
        let xs = Self::span(
            a[0].min(b[0]) - h - 1.0,
            a[0].max(b[0]) + h + 1.0,
            self.width,
        );
        let ys = Self::span(
            a[1].min(b[1]) - h - 1.0,
            a[1].max(b[1]) + h + 1.0,
            self.height,
        );
        for y in ys {
            for x in xs.clone() {
                let p = [x as f64 + 0.5 - a[0], y as f64 + 0.5 - a[1]];
                let t = if len2 > 0.0 {
                    ((p[0] * d[0] + p[1] * d[1]) / len2).clamp(0.0, 1.0)
                } else {
                    0.0
                };
                let dist = ((p[0] - t * d[0]).powi(2) + (p[1] - t * d[1]).powi(2)).sqrt();
                let coverage = (h + 0.5 - dist).clamp(0.0, 1.0);
                if coverage > 0.0 {
                    self.blend(x, y, c, coverage);
                }
            }
        }
    }

    /// Anti-aliased segments through `points`, in order.
    pub fn polyline(&mut self, points: &[[f64; 2]], width: f64, c: Rgb) {
        for w in points.windows(2) {
            self.line(w[0], w[1], width, c);
        }
    }

    /// Fill the pixels whose centres lie inside the triangle `a b c` (either winding).
    pub fn fill_triangle(&mut self, a: [f64; 2], b: [f64; 2], c: [f64; 2], color: Rgb) {
        let edge = |p: [f64; 2], q: [f64; 2], r: [f64; 2]| {
            (q[0] - p[0]) * (r[1] - p[1]) - (q[1] - p[1]) * (r[0] - p[0])
        };
        let area = edge(a, b, c);
        if area == 0.0 || !area.is_finite() {
            return;
        }
        let xs = Self::span(
            a[0].min(b[0]).min(c[0]),
            a[0].max(b[0]).max(c[0]),
            self.width,
        );
        let ys = Self::span(
            a[1].min(b[1]).min(c[1]),
            a[1].max(b[1]).max(c[1]),
            self.height,
        );
        for y in ys {
            for x in xs.clone() {
                let p = [x as f64 + 0.5, y as f64 + 0.5];
                let (w0, w1, w2) = (edge(b, c, p), edge(c, a, p), edge(a, b, p));
                let inside = if area > 0.0 {
                    w0 >= 0.0 && w1 >= 0.0 && w2 >= 0.0
                } else {
                    w0 <= 0.0 && w1 <= 0.0 && w2 <= 0.0
                };
                if inside {
                    self.set(x, y, color);
                }
            }
        }
    }

    /// Width of `text` drawn at integer `scale`, px.
    pub fn text_width(text: &str, scale: u32) -> u32 {
        text.chars().count() as u32 * font::CELL * scale
    }

    /// Height of a line of text at `scale`, px.
    pub fn text_height(scale: u32) -> u32 {
        font::CELL * scale
    }

    /// Draw `text` with its top-left corner at (`x`, `y`), each font pixel `scale` px square.
    pub fn text(&mut self, x: i64, y: i64, text: &str, scale: u32, c: Rgb) {
        let s = scale as i64;
        for (i, ch) in text.chars().enumerate() {
            let g = font::glyph(ch);
            let x0 = x + i as i64 * (font::CELL as i64) * s;
            for row in 0..font::CELL {
                for col in 0..font::CELL {
                    if font::inked(&g, col, row) {
                        let (px, py) = (x0 + col as i64 * s, y + row as i64 * s);
                        self.fill_block(px, py, scale, scale, c);
                    }
                }
            }
        }
    }

    /// Draw `text` centred horizontally on `cx`, top at `y`.
    pub fn text_centred(&mut self, cx: i64, y: i64, text: &str, scale: u32, c: Rgb) {
        let w = Self::text_width(text, scale) as i64;
        self.text(cx - w / 2, y, text, scale, c);
    }

    /// Draw `text` turned a quarter turn anticlockwise (reading bottom to top), centred
    /// vertically on `cy`, its left (top of the glyphs) at `x`.
    pub fn text_vertical(&mut self, x: i64, cy: i64, text: &str, scale: u32, c: Rgb) {
        let s = scale as i64;
        let len = Self::text_width(text, scale) as i64;
        let bottom = cy + len / 2;
        for (i, ch) in text.chars().enumerate() {
            let g = font::glyph(ch);
            let y0 = bottom - i as i64 * (font::CELL as i64) * s;
            for row in 0..font::CELL {
                for col in 0..font::CELL {
                    if font::inked(&g, col, row) {
                        let (px, py) = (x + row as i64 * s, y0 - (col as i64 + 1) * s);
                        self.fill_block(px, py, scale, scale, c);
                    }
                }
            }
        }
    }

    /// Copy `other` onto this canvas with its top-left corner at (`x`, `y`).
    pub fn blit(&mut self, other: &Canvas, x: i64, y: i64) {
        for j in 0..other.height as i64 {
            for i in 0..other.width as i64 {
                if let Some(c) = other.get(i, j) {
                    self.set(x + i, y + j, c);
                }
            }
        }
    }

    /// Number of pixels of exactly colour `c`.
    #[cfg_attr(not(test), allow(dead_code))]
    pub fn count(&self, c: Rgb) -> usize {
        self.pixels.chunks_exact(3).filter(|p| *p == c).count()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const RED: Rgb = [255, 0, 0];

    #[test]
    fn filled_triangle_covers_its_interior_and_not_its_outside() {
        for (a, b, c) in [
            ([10.0, 10.0], [90.0, 20.0], [30.0, 80.0]),
            ([10.0, 10.0], [30.0, 80.0], [90.0, 20.0]), // other winding
        ] {
            let mut cv = Canvas::new(100, 100, WHITE);
            cv.fill_triangle(a, b, c, RED);
            // Interior points, centroid included.
            for p in [[43.0, 36.0], [20.0, 15.0], [30.0, 70.0], [80.0, 21.0]] {
                assert_eq!(cv.get(p[0] as i64, p[1] as i64), Some(RED), "{p:?}");
            }
            // Points outside the triangle and beside its edges.
            for p in [
                [5.0, 5.0],
                [95.0, 95.0],
                [60.0, 70.0],
                [50.0, 10.0],
                [12.0, 60.0],
            ] {
                assert_eq!(cv.get(p[0] as i64, p[1] as i64), Some(WHITE), "{p:?}");
            }
            // Area: 0.5 |(b-a) x (c-a)| = 0.5 |80*70 - 10*20| = 2700 px.
            let n = cv.count(RED) as f64;
            assert!((n - 2700.0).abs() < 0.03 * 2700.0, "{n} px");
        }
    }

    #[test]
    fn circle_pixel_count_is_pi_r_squared() {
        for r in [5.0, 12.5, 30.0] {
            let mut cv = Canvas::new(80, 80, WHITE);
            cv.fill_circle(40.3, 39.7, r, RED);
            let n = cv.count(RED) as f64;
            let exact = std::f64::consts::PI * r * r;
            assert!(
                (n - exact).abs() < 0.04 * exact,
                "r = {r}: {n} px vs {exact}"
            );
            assert_eq!(cv.get(40, 39), Some(RED));
            assert_eq!(cv.get((40.3 + r + 2.0) as i64, 39), Some(WHITE));
        }
        // A disc smaller than a pixel still marks its pixel.
        let mut cv = Canvas::new(10, 10, WHITE);
        cv.fill_circle(3.9, 6.1, 0.1, RED);
        assert_eq!(cv.count(RED), 1);
        assert_eq!(cv.get(3, 6), Some(RED));
    }

    #[test]
    fn lines_rects_text_and_clipping() {
        let mut cv = Canvas::new(50, 40, WHITE);
        cv.line([5.0, 20.5], [45.0, 20.5], 1.0, BLACK);
        assert_eq!(cv.get(25, 20), Some(BLACK));
        assert_eq!(cv.get(25, 22), Some(WHITE));
        assert_eq!(cv.get(2, 20), Some(WHITE));
        // Off-canvas drawing is clipped, not a panic.
        cv.fill_rect(-10.0, -10.0, 100.0, 2.0, RED);
        cv.fill_circle(-5.0, 60.0, 8.0, RED);
        assert_eq!(cv.get(49, 1), Some(RED));
        assert_eq!(cv.get(0, 2), Some(WHITE));
        let mut t = Canvas::new(40, 20, WHITE);
        t.text(1, 1, "T", 2, BLACK);
        let ink: u32 = font::glyph('T').iter().map(|r| r.count_ones()).sum();
        assert_eq!(
            t.count(BLACK),
            4 * ink as usize,
            "every font pixel is a 2x2 block"
        );
        let mut v = Canvas::new(20, 40, WHITE);
        v.text_vertical(1, 20, "T", 2, BLACK);
        assert_eq!(v.count(BLACK), 4 * ink as usize);
        assert_eq!(Canvas::text_width("abc", 2), 48);
        // Nothing was drawn right of the one glyph.
        assert!((17..40).all(|x| (0..20).all(|y| t.get(x, y) == Some(WHITE))));
    }
}
