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
}
