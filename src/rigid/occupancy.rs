//! The solid a clump fills: the union of its particles' lattice cells, and how deep a point
//! lies inside it. The cells' outer faces are the clump's flat faces, where liquid particle
//! centres are held one radius out.
//!
//! The cells are a dense grid over the clump's bounding box (padded), built once: a query
//! reads array entries, never a hash table. Each grid cell also keeps how many cells away
//! (Chebyshev distance, capped) the nearest cell of the other kind lies, so that a point far
//! from the surface, inside or out, is answered from its own cell.
use super::Clump;
use glam::DVec3;

/// Cells searched around a point for the nearest empty one: depths up to this many spacings
/// are exact, deeper points report this many.
pub const DEPTH_REACH_CELLS: i64 = 2;

/// Distances to the other kind of cell are kept exactly up to this many cells; beyond, they
/// read `FAR + 1` ("farther").
const FAR: i64 = 4;

/// Empty cells padding the grid beyond the occupied ones on every side: every cell within
/// `FAR + 1` of an occupied cell lies in the grid.
const PAD: i64 = FAR + 1;

/// The lattice cells occupied by a clump's particles, in the clump's (body) frame.
#[derive(Debug, Clone, PartialEq)]
pub struct Occupancy {
    origin: DVec3,
    spacing: f64,
    /// The lattice cell of grid entry 0 (the padded box's lowest corner).
    lo: [i64; 3],
    /// Grid extent in cells along x, y, z.
    dims: [i64; 3],
    /// Per grid cell (x fastest): whether a particle occupies it.
    occupied: Vec<bool>,
    /// Per grid cell: the Chebyshev distance, in cells, to the nearest cell of the other kind
    /// (empty for an occupied cell, occupied for an empty one), at most `FAR + 1`.
    other: Vec<u8>,
}

/// Per cell of a grid of `dims` cells, the Chebyshev distance in cells to the nearest cell
/// where `mask` is true, capped at `cap`: three separable passes, one per axis, each a
/// window of `cap` cells either side (`max` distributes over `min`).
fn chebyshev(mask: &[bool], dims: [i64; 3], cap: i64) -> Vec<u8> {
    let cap = cap.clamp(0, u8::MAX as i64) as u8;
    let mut d: Vec<u8> = mask.iter().map(|&m| if m { 0 } else { cap }).collect();
    let n = dims.map(|v| v.max(0) as usize);
    let stride = [1, n[0], n[0] * n[1]];
    let mut next = vec![0u8; d.len()];
    for a in 0..3 {
        let (len, step) = (n[a], stride[a]);
        // Cells in memory order, each one's coordinate along `a` from the loop counters.
        let mut i = 0;
        for k in 0..n[2] {
            for j in 0..n[1] {
                for x in 0..n[0] {
                    let coord = [x, j, k][a];
                    let mut best = d[i];
                    // A neighbour `o` cells away offers at least `o`: past `best`, none helps.
                    let mut o = 1;
                    while (o as u8) < best {
                        if coord >= o {
                            best = best.min((o as u8).max(d[i - o * step]));
                        }
                        if coord + o < len {
                            best = best.min((o as u8).max(d[i + o * step]));
                        }
                        o += 1;
                    }
                    next[i] = best;
                    i += 1;
                }
            }
        }
        std::mem::swap(&mut d, &mut next);
    }
    d
}

impl Occupancy {
    /// The cells of `clump`'s particles.
    pub fn new(clump: &Clump) -> Occupancy {
        let origin = clump.positions.first().copied().unwrap_or(DVec3::ZERO);
        let mut occ = Occupancy {
            origin,
            spacing: clump.spacing,
            lo: [0; 3],
            dims: [0; 3],
            occupied: Vec::new(),
            other: Vec::new(),
        };
        let cells: Vec<[i64; 3]> = clump.positions.iter().map(|&p| occ.cell_of(p)).collect();
        let (mut lo, mut hi) = ([0i64; 3], [-1i64; 3]);
        if let Some(&first) = cells.first() {
            (lo, hi) = (first, first);
            for c in &cells {
                for a in 0..3 {
                    lo[a] = lo[a].min(c[a]);
                    hi[a] = hi[a].max(c[a]);
                }
            }
        }
        for a in 0..3 {
            occ.lo[a] = lo[a] - PAD;
            occ.dims[a] = hi[a] - lo[a] + 1 + 2 * PAD;
        }
        let n = occ.dims.iter().product::<i64>() as usize;
        occ.occupied = vec![false; n];
        for c in &cells {
            let i = occ.index(*c).expect("a clump cell lies in its grid");
            occ.occupied[i] = true;
        }
        let empty: Vec<bool> = occ.occupied.iter().map(|&o| !o).collect();
        let to_empty = chebyshev(&empty, occ.dims, FAR + 1);
        let to_occupied = chebyshev(&occ.occupied, occ.dims, FAR + 1);
        occ.other = (0..n)
            .map(|i| {
                if occ.occupied[i] {
                    to_empty[i]
                } else {
                    to_occupied[i]
                }
            })
            .collect();
        occ
    }

    /// The lattice cell holding body-frame point `p`.
    pub fn cell_of(&self, p: DVec3) -> [i64; 3] {
        let l = ((p - self.origin) / self.spacing).round();
        [l.x as i64, l.y as i64, l.z as i64]
    }

    /// The grid entry of cell `c`, `None` outside the grid (where every cell is empty).
    #[inline]
    fn index(&self, c: [i64; 3]) -> Option<usize> {
        let mut i = 0;
        for a in (0..3).rev() {
            if c[a] < self.lo[a] || c[a] >= self.lo[a] + self.dims[a] {
                return None;
            }
            i = i * self.dims[a] + (c[a] - self.lo[a]);
        }
        Some(i as usize)
    }

    /// Whether cell `c` holds a particle.
    #[inline]
    pub fn contains(&self, c: [i64; 3]) -> bool {
        self.index(c).is_some_and(|i| self.occupied[i])
    }

    /// Whether cell `c` is occupied, and whether a cell of the other kind lies within `k`
    /// cells of it (Chebyshev distance); always true for `k` beyond the distances kept.
    #[inline]
    fn kind_and_near(&self, c: [i64; 3], k: i64) -> (bool, bool) {
        match self.index(c) {
            Some(i) => (self.occupied[i], k > FAR || self.other[i] as i64 <= k),
            // Outside the grid every occupied cell lies more than `PAD` cells away.
            None => (false, k > FAR),
        }
    }

    /// The nearest point of the occupied cells' surface to body-frame point `p`, searched over
    /// the cells within `reach` of it: the outward unit normal there and the signed distance
    /// of `p` from it (positive outside, negative inside). `None` when no surface lies within
    /// `reach`. Faces are exact planes, edges and corners sharp.
    pub fn nearest_surface(&self, p: DVec3, reach: f64) -> Option<(DVec3, f64)> {
        let c = self.cell_of(p);
        if reach.is_nan() {
            return None;
        }
        // `p` lies within half a spacing of its cell's centre on every axis, so a cell `j`
        // cells away (Chebyshev) lies at least `(j - 1)` spacings from it: those with
        // `(j - 1) s > reach` cannot be within reach. (The margin keeps a reach a rounding
        // short of whole spacings on the safe side.)
        let k = (reach / self.spacing * (1.0 + 1e-9)).floor() as i64 + 1;
        let (inside, near) = self.kind_and_near(c, k);
        if !near {
            // No cell of the other kind among those searched below.
            return None;
        }
        // The distance from `p` to a cell's box is separable: per axis, `p` clamped to the
        // cell's extent and the squared gap, summed x, y, z as a vector's length would be.
        let half = self.spacing / 2.0;
        let axis = |a: usize, e: i64| {
            let centre = self.origin[a] + e as f64 * self.spacing;
            let q = p[a].max(centre - half).min(centre + half);
            let d = p[a] - q;
            (q, d * d)
        };
        // Grid coordinate along axis `a` of cell `e`, `None` outside the grid (every cell there
        // is empty).
        let grid = |a: usize, e: i64| {
            let g = e - self.lo[a];
            (0..self.dims[a]).contains(&g).then_some(g as usize)
        };
        let (nx, ny) = (self.dims[0] as usize, self.dims[1] as usize);
        // A cell whose partial sum already reaches the best cannot beat it: the terms added
        // later are never negative.
        let beaten =
            |best: &Option<(f64, DVec3)>, partial: f64| best.is_some_and(|(b, _)| partial >= b);
        let mut best: Option<(f64, DVec3)> = None;
        for i in -k..=k {
            let ex = c[0] + i;
            let (qx, ax) = axis(0, ex);
            if beaten(&best, ax) {
                continue;
            }
            let gx = grid(0, ex);
            for j in -k..=k {
                let ey = c[1] + j;
                let (qy, ay) = axis(1, ey);
                let axy = ax + ay;
                if beaten(&best, axy) {
                    continue;
                }
                let gxy = gx.zip(grid(1, ey)).map(|(x, y)| x + y * nx);
                for l in -k..=k {
                    let ez = c[2] + l;
                    // Outside, the nearest occupied cell; inside, the nearest empty one.
                    let occupied = gxy
                        .zip(grid(2, ez))
                        .is_some_and(|(xy, z)| self.occupied[xy + z * nx * ny]);
                    if occupied == inside {
                        continue;
                    }
                    let (qz, az) = axis(2, ez);
                    let d2 = axy + az;
                    if best.is_none_or(|(b, _)| d2 < b) {
                        best = Some((d2, DVec3::new(qx, qy, qz)));
                    }
                }
            }
        }
        let (d2, q) = best?;
        let dist = d2.sqrt();
        if dist > reach {
            return None;
        }
        let n = if inside { q - p } else { p - q };
        let n = n
            .try_normalize()
            .unwrap_or_else(|| self.face_normal(p, c, inside));
        Some((n, if inside { -dist } else { dist }))
    }

    /// The outward normal at a point lying exactly on the surface of cell `c`: towards the
    /// empty neighbour (outside: away from the occupied one) whose shared face is nearest.
    fn face_normal(&self, p: DVec3, c: [i64; 3], inside: bool) -> DVec3 {
        let centre = self.origin + DVec3::new(c[0] as f64, c[1] as f64, c[2] as f64) * self.spacing;
        let off = (p - centre) / self.spacing;
        let mut best = (f64::MIN, DVec3::Y);
        for a in 0..3 {
            for sgn in [-1.0f64, 1.0] {
                let mut e = c;
                e[a] += sgn as i64;
                if self.contains(e) == inside {
                    continue;
                }
                let score = off[a] * sgn;
                if score > best.0 {
                    let mut n = DVec3::ZERO;
                    n[a] = if inside { sgn } else { -sgn };
                    best = (score, n);
                }
            }
        }
        best.1
    }

    /// How deep body-frame point `p` lies inside the occupied cells: the distance to the
    /// nearest empty cell, 0 outside, and `DEPTH_REACH_CELLS` spacings at most.
    pub fn depth(&self, p: DVec3) -> f64 {
        let c = self.cell_of(p);
        let k = DEPTH_REACH_CELLS;
        let (inside, near) = self.kind_and_near(c, k);
        if !inside {
            return 0.0;
        }
        let mut best = k as f64 * self.spacing;
        if !near {
            // No empty cell among those searched below.
            return best;
        }
        for i in -k..=k {
            for j in -k..=k {
                for l in -k..=k {
                    let e = [c[0] + i, c[1] + j, c[2] + l];
                    if self.contains(e) {
                        continue;
                    }
                    // Distance from p to the empty cell's box.
                    let centre = self.origin
                        + DVec3::new(e[0] as f64, e[1] as f64, e[2] as f64) * self.spacing;
                    let gap =
                        ((p - centre).abs() - DVec3::splat(self.spacing / 2.0)).max(DVec3::ZERO);
                    best = best.min(gap.length());
                }
            }
        }
        best
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rigid::{Primitive, RigidBody, Shape};

    #[test]
    fn depth_is_the_distance_to_the_nearest_face() {
        let shape = Shape::Primitive(Primitive::Box {
            size: DVec3::new(0.1, 0.06, 0.08),
        });
        let b = RigidBody::new("b", &shape, 1000.0, 0.01).unwrap();
        let occ = Occupancy::new(&b.clump);
        // The clump fills the box exactly: faces at +-0.05, +-0.03, +-0.04.
        assert_eq!(occ.depth(DVec3::new(0.0, 0.031, 0.0)), 0.0);
        assert!((occ.depth(DVec3::new(0.0, 0.029, 0.0)) - 0.001).abs() < 1e-12);
        assert!((occ.depth(DVec3::new(0.045, 0.0, 0.0)) - 0.005).abs() < 1e-12);
        // Near an edge, the nearer face counts.
        assert!((occ.depth(DVec3::new(0.048, 0.027, 0.0)) - 0.002).abs() < 1e-12);
        // Deep inside: capped at the reach.
        assert!((occ.depth(DVec3::ZERO) - 0.02).abs() < 1e-12);
    }

    #[test]
    fn the_nearest_surface_is_flat_on_faces_and_sharp_at_edges() {
        let shape = Shape::Primitive(Primitive::Box {
            size: DVec3::new(0.1, 0.06, 0.08),
        });
        let b = RigidBody::new("b", &shape, 1000.0, 0.01).unwrap();
        let occ = Occupancy::new(&b.clump);
        // Above the top face, over a particle or between four: the same plane.
        for (x, z) in [(0.0, 0.0), (0.005, 0.005), (0.0049, -0.0137)] {
            let (n, d) = occ.nearest_surface(DVec3::new(x, 0.034, z), 0.01).unwrap();
            assert!((n - DVec3::Y).length() < 1e-12 && (d - 0.004).abs() < 1e-12);
        }
        // Round the edge at x = 0.05, y = 0.03: away from the edge line.
        let p = DVec3::new(0.053, 0.034, 0.0);
        let (n, d) = occ.nearest_surface(p, 0.01).unwrap();
        assert!((n - DVec3::new(0.6, 0.8, 0.0)).length() < 1e-12, "{n}");
        assert!((d - 0.005).abs() < 1e-12);
        // Inside, just under the top face: out through it.
        let (n, d) = occ
            .nearest_surface(DVec3::new(0.01, 0.028, 0.0), 0.01)
            .unwrap();
        assert!((n - DVec3::Y).length() < 1e-12 && (d + 0.002).abs() < 1e-12);
        // Too far: nothing.
        assert!(
            occ.nearest_surface(DVec3::new(0.0, 0.045, 0.0), 0.01)
                .is_none()
        );
    }

    /// The queries as first written, over a hash set of the cells searched cell by cell: the
    /// dense grid must give bit-identical answers.
    struct Reference {
        cells: std::collections::HashSet<[i64; 3]>,
        origin: DVec3,
        spacing: f64,
    }

    impl Reference {
        fn new(clump: &Clump) -> Reference {
            let origin = clump.positions.first().copied().unwrap_or(DVec3::ZERO);
            let cell = |p: DVec3| {
                let l = ((p - origin) / clump.spacing).round();
                [l.x as i64, l.y as i64, l.z as i64]
            };
            Reference {
                cells: clump.positions.iter().map(|&p| cell(p)).collect(),
                origin,
                spacing: clump.spacing,
            }
        }

        fn centre(&self, e: [i64; 3]) -> DVec3 {
            self.origin + DVec3::new(e[0] as f64, e[1] as f64, e[2] as f64) * self.spacing
        }

        fn nearest(&self, occ: &Occupancy, p: DVec3, reach: f64) -> Option<(DVec3, f64)> {
            let c = occ.cell_of(p);
            let inside = self.cells.contains(&c);
            let k = (reach / self.spacing + 0.5).ceil() as i64;
            let half = DVec3::splat(self.spacing / 2.0);
            let mut best: Option<(f64, DVec3)> = None;
            for i in -k..=k {
                for j in -k..=k {
                    for l in -k..=k {
                        let e = [c[0] + i, c[1] + j, c[2] + l];
                        if self.cells.contains(&e) == inside {
                            continue;
                        }
                        let centre = self.centre(e);
                        let q = p.clamp(centre - half, centre + half);
                        let d2 = (p - q).length_squared();
                        if best.is_none_or(|(b, _)| d2 < b) {
                            best = Some((d2, q));
                        }
                    }
                }
            }
            let (d2, q) = best?;
            let dist = d2.sqrt();
            if dist > reach {
                return None;
            }
            let n = if inside { q - p } else { p - q };
            let n = n
                .try_normalize()
                .unwrap_or_else(|| occ.face_normal(p, c, inside));
            Some((n, if inside { -dist } else { dist }))
        }

        fn depth(&self, occ: &Occupancy, p: DVec3) -> f64 {
            let c = occ.cell_of(p);
            if !self.cells.contains(&c) {
                return 0.0;
            }
            let k = DEPTH_REACH_CELLS;
            let mut best = k as f64 * self.spacing;
            for i in -k..=k {
                for j in -k..=k {
                    for l in -k..=k {
                        let e = [c[0] + i, c[1] + j, c[2] + l];
                        if self.cells.contains(&e) {
                            continue;
                        }
                        let gap = ((p - self.centre(e)).abs() - DVec3::splat(self.spacing / 2.0))
                            .max(DVec3::ZERO);
                        best = best.min(gap.length());
                    }
                }
            }
            best
        }
    }

    #[test]
    fn the_dense_grid_answers_bit_for_bit_as_a_search_of_every_cell() {
        // A sphere's clump with one particle in 211 taken out (holes and pockets inside).
        let shape = Shape::Primitive(Primitive::Sphere { radius: 0.05 });
        let b = RigidBody::new("s", &shape, 1000.0, 0.01).unwrap();
        let mut clump = b.clump.clone();
        let keep: Vec<DVec3> = clump
            .positions
            .iter()
            .enumerate()
            .filter(|(k, _)| k % 211 != 3)
            .map(|(_, &p)| p)
            .collect();
        clump.positions = keep;
        let occ = Occupancy::new(&clump);
        let reference = Reference::new(&clump);
        // A small linear congruential sequence: points over the clump and well beyond it.
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        let mut unit = move || {
            state = state
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            (state >> 11) as f64 / (1u64 << 53) as f64
        };
        let (mut hits, mut deep, mut inner) = (0, 0, 0);
        for n in 0..40_000 {
            let p = DVec3::new(unit(), unit(), unit()) * 0.2 - DVec3::splat(0.1);
            // Some points exactly on cell faces and corners.
            let p = if n % 5 == 0 {
                (p / 0.005).round() * 0.005
            } else {
                p
            };
            // Reaches of 0.8 and 1.95 spacings: the search stops a shell short of the
            // reference's, whose last shell lies beyond the reach.
            for reach in [0.004, 0.005, 0.008, 0.012, 0.0195, 0.06] {
                let got = occ.nearest_surface(p, reach);
                let want = reference.nearest(&occ, p, reach);
                assert_eq!(got, want, "{p} reach {reach}");
                hits += got.is_some() as usize;
                inner += got.is_some_and(|(_, d)| d < 0.0) as usize;
            }
            let d = occ.depth(p);
            assert_eq!(d.to_bits(), reference.depth(&occ, p).to_bits(), "{p}");
            deep += (d == 0.02) as usize;
        }
        assert!(
            hits > 10_000 && inner > 1_000 && deep > 50,
            "{hits} {inner} {deep}"
        );
    }
}
