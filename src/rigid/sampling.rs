//! Filling a shape with particles on a cubic lattice: inside tests (exact winding numbers for
//! meshes, convex or not), surface marking, normals and mass scaling.
use super::clump::Clump;
use super::mass_properties::points_mass_properties;
use super::mesh::TriMesh;
use super::shape::Shape;
use crate::{Error, Result};
use glam::{DQuat, DVec2, DVec3};

/// Most lattice points a sampling may visit (about 70 bytes each at the peak: `inertia
/// meshes/cube.obj --spacing 0.00014`, 45 million points, reached 3.1 GB).
pub const MAX_LATTICE_POINTS: usize = 20_000_000;

/// Peak bytes per lattice point of a sampling, measured as above.
const BYTES_PER_LATTICE_POINT: f64 = 70.0;

/// A cubic lattice of `dims` points at `spacing` starting at `origin`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Lattice {
    /// Position of point (0, 0, 0).
    pub origin: DVec3,
    /// Distance between neighbouring points.
    pub spacing: f64,
    /// Number of points along x, y, z.
    pub dims: [usize; 3],
}

impl Lattice {
    /// The cell-centred lattice covering the box [lo, hi], centred on it: a box whose extents
    /// are multiples of the spacing gets one point at the centre of every cell.
    pub fn covering(lo: DVec3, hi: DVec3, spacing: f64) -> Lattice {
        let centre = (lo + hi) * 0.5;
        let ext = hi - lo;
        let n = |e: f64| ((e / spacing - 1e-9).ceil() as usize).max(1);
        let dims = [n(ext.x), n(ext.y), n(ext.z)];
        let half = DVec3::new(
            (dims[0] - 1) as f64,
            (dims[1] - 1) as f64,
            (dims[2] - 1) as f64,
        ) * (0.5 * spacing);
        Lattice {
            origin: centre - half,
            spacing,
            dims,
        }
    }

    /// Total number of points.
    pub fn len(&self) -> usize {
        self.dims[0] * self.dims[1] * self.dims[2]
    }

    /// Linear index of point (i, j, k), x fastest.
    pub fn index(&self, i: usize, j: usize, k: usize) -> usize {
        i + self.dims[0] * (j + self.dims[1] * k)
    }

    /// Position of point (i, j, k).
    pub fn point(&self, i: usize, j: usize, k: usize) -> DVec3 {
        self.origin + DVec3::new(i as f64, j as f64, k as f64) * self.spacing
    }
}

/// Which lattice points lie inside a closed, outward-oriented mesh.
///
/// For every lattice row along x, the signed crossings of the row's line with the triangles
/// give the winding number of each point on it (exits +1, entries -1), so the test is exact for
/// non-convex meshes. A line through an edge or a vertex is decided by a symbolic perturbation
/// of the line, applied identically to both faces of every edge, so no crossing is counted
/// twice or missed. Cost: O(triangles + crossings + points).
pub fn mesh_inside(mesh: &TriMesh, lat: &Lattice) -> Vec<bool> {
    let [nx, ny, nz] = lat.dims;
    let mut rows: Vec<Vec<(f64, i32)>> = vec![Vec::new(); ny * nz];
    let s = lat.spacing;
    let yz = |v: DVec3| DVec2::new(v.y, v.z);
    for tri in &mesh.triangles {
        let [ia, ib, ic] = *tri;
        let (pa, pb, pc) = (
            mesh.vertices[ia as usize],
            mesh.vertices[ib as usize],
            mesh.vertices[ic as usize],
        );
        let area = (yz(pb) - yz(pa)).perp_dot(yz(pc) - yz(pa));
        if area == 0.0 {
            continue; // parallel to the rows: a perturbed row never hits it
        }
        let sign = if area > 0.0 { 1 } else { -1 };
        // Vertices ordered counter-clockwise in the (y, z) projection.
        let ccw = if area > 0.0 {
            [(ia, pa), (ib, pb), (ic, pc)]
        } else {
            [(ia, pa), (ic, pc), (ib, pb)]
        };
        let lo = yz(pa).min(yz(pb)).min(yz(pc));
        let hi = yz(pa).max(yz(pb)).max(yz(pc));
        let j0 = ((lo.x - lat.origin.y) / s).ceil().max(0.0) as usize;
        let j1 = ((hi.x - lat.origin.y) / s).floor();
        let k0 = ((lo.y - lat.origin.z) / s).ceil().max(0.0) as usize;
        let k1 = ((hi.y - lat.origin.z) / s).floor();
        if j1 < 0.0 || k1 < 0.0 {
            continue;
        }
        let j1 = (j1 as usize).min(ny - 1);
        let k1 = (k1 as usize).min(nz - 1);
        for k in k0..=k1 {
            for j in j0..=j1 {
                let q = yz(lat.point(0, j, k));
                let mut w = [0.0; 3];
                let mut inside = true;
                for e in 0..3 {
                    let (iu, u) = ccw[e];
                    let (iv, v) = ccw[(e + 1) % 3];
                    // The same number for both faces of an edge: compute from the lower index.
                    let f = if iu < iv {
                        edge_function(yz(u), yz(v), q)
                    } else {
                        -edge_function(yz(v), yz(u), q)
                    };
                    let d = yz(v) - yz(u);
                    // Perturb q by (eps, eps^2): f changes by d.x eps^2 - d.y eps.
                    let owns = f > 0.0 || (f == 0.0 && (d.y < 0.0 || (d.y == 0.0 && d.x > 0.0)));
                    if !owns {
                        inside = false;
                        break;
                    }
                    // Weight of the vertex opposite edge e.
                    w[(e + 2) % 3] = f;
                }
                if !inside {
                    continue;
                }
                let sum = w[0] + w[1] + w[2];
                let x = if sum != 0.0 {
                    (w[0] * ccw[0].1.x + w[1] * ccw[1].1.x + w[2] * ccw[2].1.x) / sum
                } else {
                    (ccw[0].1.x + ccw[1].1.x + ccw[2].1.x) / 3.0
                };
                rows[j + ny * k].push((x, sign));
            }
        }
    }
    let mut inside = vec![false; lat.len()];
    for k in 0..nz {
        for j in 0..ny {
            let row = &mut rows[j + ny * k];
            if row.is_empty() {
                continue;
            }
            row.sort_by(|a, b| a.0.total_cmp(&b.0));
            // Winding number of a point = sum of the signs of crossings ahead of it (+x).
            let mut ahead: i32 = row.iter().map(|c| c.1).sum();
            let mut next = 0;
            for i in 0..nx {
                let x = lat.point(i, j, k).x;
                while next < row.len() && row[next].0 <= x {
                    ahead -= row[next].1;
                    next += 1;
                }
                inside[lat.index(i, j, k)] = ahead != 0;
            }
        }
    }
    inside
}

/// `(v - u) x (q - u)` in 2D.
fn edge_function(u: DVec2, v: DVec2, q: DVec2) -> f64 {
    (v - u).perp_dot(q - u)
}

/// Which lattice points lie inside `shape`.
pub fn shape_inside(shape: &Shape, lat: &Lattice) -> Vec<bool> {
    posed_inside(shape, DQuat::IDENTITY, DVec3::ZERO, lat)
}

/// Which lattice points lie inside `shape` turned by `rotation` about its origin and moved by
/// `position` (a mesh is moved into the lattice's frame, so its winding numbers stay exact).
pub fn posed_inside(shape: &Shape, rotation: DQuat, position: DVec3, lat: &Lattice) -> Vec<bool> {
    match shape {
        Shape::Mesh(m) if rotation == DQuat::IDENTITY && position == DVec3::ZERO => {
            mesh_inside(&m.mesh, lat)
        }
        Shape::Mesh(m) => {
            let mut mesh = m.mesh.clone();
            mesh.transform(DVec3::ONE, rotation, position);
            mesh_inside(&mesh, lat)
        }
        Shape::Primitive(p) => {
            let back = rotation.inverse();
            let mut inside = vec![false; lat.len()];
            for k in 0..lat.dims[2] {
                for j in 0..lat.dims[1] {
                    for i in 0..lat.dims[0] {
                        inside[lat.index(i, j, k)] =
                            p.contains(back * (lat.point(i, j, k) - position));
                    }
                }
            }
            inside
        }
    }
}

/// The points at `spacing` inside `shape` turned by `rotation` about its origin and moved to
/// `position`, on the cell-centred lattice covering its world bounds `lo`..`hi` (as
/// [`Lattice::covering`]), x fastest, then y, then z.
pub fn posed_points(
    shape: &Shape,
    rotation: DQuat,
    position: DVec3,
    (lo, hi): (DVec3, DVec3),
    spacing: f64,
) -> Vec<DVec3> {
    let lat = Lattice::covering(lo, hi, spacing);
    let inside = posed_inside(shape, rotation, position, &lat);
    inside_points(&inside, &lat).collect()
}

/// Fill `shape` with particles on a cubic lattice at `spacing`.
///
/// The lattice is the cell-centred one centred on the shape's bounds, or that one shifted by
/// half a spacing along some axes: of these eight phases the one whose clump best matches the
/// exact inertia and centre of mass is kept (ties keep the centred lattice, so symmetric
/// shapes keep a symmetric clump).
///
/// Particles whose lattice neighbour (along any axis) is outside are marked as surface and get
/// the outward normal of the nearest surface. Each particle's mass is `density` times the
/// shape's exact volume divided by the particle count, so the clump has the exact mass.
/// `source` names the shape in error messages.
pub fn sample(shape: &Shape, spacing: f64, density: f64, source: &str) -> Result<Clump> {
    if !(spacing.is_finite() && spacing > 0.0) {
        return Err(Error::input(format!(
            "{source}: particle spacing must be a positive number, got {spacing}; fix: give a spacing in m"
        )));
    }
    let (lo, hi) = shape.bounds();
    let ext = hi - lo;
    if spacing > ext.min_element() {
        return Err(Error::input(format!(
            "{source}: particle spacing {spacing} is larger than the body's smallest extent {}; fix: use a smaller spacing",
            ext.min_element()
        )));
    }
    let points = (ext / spacing + 1.0).to_array().iter().product::<f64>();
    if points > MAX_LATTICE_POINTS as f64 {
        return Err(Error::input(format!(
            "{source}: spacing {spacing} would need about {points:.0} lattice points, about {:.0} MiB (limit {MAX_LATTICE_POINTS}); fix: use a larger spacing",
            points * BYTES_PER_LATTICE_POINT / 1048576.0
        )));
    }
    let exact = shape.mass_properties(density);
    let base = Lattice::covering(lo, hi, spacing);
    // Score each phase from its inside points alone; only the best one is filled.
    let mut best: Option<(f64, Lattice, Vec<bool>)> = None;
    for shift in 0..8 {
        let mut lat = base;
        for axis in 0..3 {
            if shift & (1 << axis) != 0 {
                lat.origin[axis] -= 0.5 * spacing;
                lat.dims[axis] += 1;
            }
        }
        let inside = shape_inside(shape, &lat);
        let n = inside.iter().filter(|&&b| b).count();
        if n == 0 {
            continue;
        }
        let m = exact.mass / n as f64;
        let mp = points_mass_properties(
            || inside_points(&inside, &lat).map(|p| (p, m)),
            spacing / 2.0,
            spacing.powi(3),
        );
        let score =
            mp.inertia_relative_difference(&exact) + (mp.com - exact.com).length() / ext.length();
        if best.as_ref().is_none_or(|(b, _, _)| score < *b) {
            best = Some((score, lat, inside));
        }
    }
    let Some((_, lat, inside)) = best else {
        return Err(Error::input(format!(
            "{source}: spacing {spacing} is too coarse, no lattice point falls inside the body (extents {:?}); fix: use a smaller spacing",
            ext.to_array()
        )));
    };
    let (positions, surface) = fill(&inside, &lat);
    let n = positions.len();
    let mut clump = Clump {
        particle_mass: exact.mass / n as f64,
        positions,
        spacing,
        radius: spacing / 2.0,
        surface,
        normals: vec![DVec3::ZERO; n],
    };
    for ((p, s), n) in clump
        .positions
        .iter()
        .zip(&clump.surface)
        .zip(clump.normals.iter_mut())
    {
        if *s {
            *n = shape.outward_normal(*p);
        }
    }
    Ok(clump)
}

/// The lattice points marked `inside`, in lattice order (x fastest), as [`fill`] lists them.
fn inside_points<'a>(inside: &'a [bool], lat: &'a Lattice) -> impl Iterator<Item = DVec3> + 'a {
    let [nx, ny, _] = lat.dims;
    inside
        .iter()
        .enumerate()
        .filter(|(_, b)| **b)
        .map(move |(l, _)| lat.point(l % nx, (l / nx) % ny, l / (nx * ny)))
}

/// The lattice points marked `inside` and whether each is on the surface (a lattice
/// neighbour along some axis is outside), in lattice order.
fn fill(inside: &[bool], lat: &Lattice) -> (Vec<DVec3>, Vec<bool>) {
    let [nx, ny, nz] = lat.dims;
    let is_in = |i: isize, j: isize, k: isize| {
        i >= 0
            && j >= 0
            && k >= 0
            && (i as usize) < nx
            && (j as usize) < ny
            && (k as usize) < nz
            && inside[lat.index(i as usize, j as usize, k as usize)]
    };
    let mut positions = Vec::new();
    let mut surface = Vec::new();
    for k in 0..nz {
        for j in 0..ny {
            for i in 0..nx {
                if !inside[lat.index(i, j, k)] {
                    continue;
                }
                let (a, b, c) = (i as isize, j as isize, k as isize);
                let on_surface = !(is_in(a - 1, b, c)
                    && is_in(a + 1, b, c)
                    && is_in(a, b - 1, c)
                    && is_in(a, b + 1, c)
                    && is_in(a, b, c - 1)
                    && is_in(a, b, c + 1));
                positions.push(lat.point(i, j, k));
                surface.push(on_surface);
            }
        }
    }
    (positions, surface)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rigid::mesh::box_mesh;

    #[test]
    fn box_mesh_lattice_counts_cells_exactly() {
        let m = box_mesh(DVec3::new(1.0, 2.0, 3.0));
        let lat = Lattice::covering(
            DVec3::new(-0.5, -1.0, -1.5),
            DVec3::new(0.5, 1.0, 1.5),
            0.25,
        );
        assert_eq!(lat.dims, [4, 8, 12]);
        let inside = mesh_inside(&m, &lat);
        assert_eq!(inside.iter().filter(|b| **b).count(), 4 * 8 * 12);
    }

    #[test]
    fn rows_through_vertices_and_edges_count_once() {
        // A lattice whose rows pass exactly through the box's edges and its diagonal edges.
        let m = box_mesh(DVec3::splat(2.0));
        let lat = Lattice {
            origin: DVec3::splat(-1.5),
            spacing: 0.5,
            dims: [7, 7, 7],
        };
        let inside = mesh_inside(&m, &lat);
        for k in 0..7 {
            for j in 0..7 {
                for i in 0..7 {
                    let p = lat.point(i, j, k);
                    let strictly = p.abs().max_element() < 1.0;
                    let outside = p.abs().max_element() > 1.0;
                    let got = inside[lat.index(i, j, k)];
                    if strictly {
                        assert!(got, "{p} should be inside");
                    }
                    if outside {
                        assert!(!got, "{p} should be outside");
                    }
                }
            }
        }
    }
}
