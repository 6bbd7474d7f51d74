//! The solid a clump fills: the union of its particles' lattice cells, and how deep a point
//! lies inside it. The cells' outer faces are the clump's flat faces, where liquid particle
//! centres are held one radius out.
use super::Clump;
use glam::DVec3;
use std::collections::HashSet;

/// Cells searched around a point for the nearest empty one: depths up to this many spacings
/// are exact, deeper points report this many.
pub const DEPTH_REACH_CELLS: i64 = 2;

/// The lattice cells occupied by a clump's particles, in the clump's (body) frame.
#[derive(Debug, Clone, PartialEq)]
pub struct Occupancy {
    cells: HashSet<[i64; 3]>,
    origin: DVec3,
    spacing: f64,
}

impl Occupancy {
    /// The cells of `clump`'s particles.
    pub fn new(clump: &Clump) -> Occupancy {
        let origin = clump.positions.first().copied().unwrap_or(DVec3::ZERO);
        let mut occ = Occupancy {
            cells: HashSet::with_capacity(clump.len()),
            origin,
            spacing: clump.spacing,
        };
        for &p in &clump.positions {
            let c = occ.cell_of(p);
            occ.cells.insert(c);
        }
        occ
    }

    /// The lattice cell holding body-frame point `p`.
    pub fn cell_of(&self, p: DVec3) -> [i64; 3] {
        let l = ((p - self.origin) / self.spacing).round();
        [l.x as i64, l.y as i64, l.z as i64]
    }

    /// Whether cell `c` holds a particle.
    pub fn contains(&self, c: [i64; 3]) -> bool {
        self.cells.contains(&c)
    }

    /// The nearest point of the occupied cells' surface to body-frame point `p`, searched over
    /// the cells within `reach` of it: the outward unit normal there and the signed distance
    /// of `p` from it (positive outside, negative inside). `None` when no surface lies within
    /// `reach`. Faces are exact planes, edges and corners sharp.
    pub fn nearest_surface(&self, p: DVec3, reach: f64) -> Option<(DVec3, f64)> {
        let c = self.cell_of(p);
        let inside = self.contains(c);
        let k = (reach / self.spacing + 0.5).ceil() as i64;
        let half = DVec3::splat(self.spacing / 2.0);
        let mut best: Option<(f64, DVec3)> = None;
        for i in -k..=k {
            for j in -k..=k {
                for l in -k..=k {
                    let e = [c[0] + i, c[1] + j, c[2] + l];
                    // Outside, the nearest occupied cell; inside, the nearest empty one.
                    if self.contains(e) == inside {
                        continue;
                    }
                    let centre = self.origin
                        + DVec3::new(e[0] as f64, e[1] as f64, e[2] as f64) * self.spacing;
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
        if !self.contains(c) {
            return 0.0;
        }
        let k = DEPTH_REACH_CELLS;
        let mut best = k as f64 * self.spacing;
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
}
