//! SPH interpolation of the particles' fields at the surface's vertices in one pass over a
//! cell grid: the Shepard-normalised velocity and the direction of the density gradient (the
//! same sums as splashsurf's `SphInterpolator`, with its cubic spline kernel, without its
//! R-tree, which took a third of a frame's time).
use rayon::prelude::*;
use splashsurf_lib::kernel::{CubicSplineKernel, SymmetricKernel3d};

/// Bits per axis of a packed cell key.
const BITS: u32 = 21;

/// What the particles say at one point.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PointFields {
    /// Shepard-normalised velocity; `None` where no particle reaches the point.
    pub velocity: Option<[f32; 3]>,
    /// Outward direction: minus the gradient of the SPH density (not normalised; zero where no
    /// particle reaches).
    pub outward: [f32; 3],
}

/// Particles sorted into cubic cells of the kernel's support radius.
pub struct CellGrid {
    origin: [f32; 3],
    cell: f32,
    /// Occupied cells' packed keys, ascending.
    keys: Vec<u64>,
    /// Start of each occupied cell's run in `order` (one more entry than `keys`).
    starts: Vec<u32>,
    /// Particle indices sorted by cell.
    order: Vec<u32>,
}

impl CellGrid {
    /// Sort `positions` into cells of edge `cell`.
    pub fn new(positions: &[[f32; 3]], cell: f32) -> Self {
        let mut origin = [f32::INFINITY; 3];
        for p in positions {
            for a in 0..3 {
                origin[a] = origin[a].min(p[a]);
            }
        }
        // One cell of margin below, so that neighbouring cells of a point have no negative
        // coordinate.
        let origin = origin.map(|o| o - cell);
        let mut grid = CellGrid {
            origin,
            cell,
            keys: Vec::new(),
            starts: Vec::new(),
            order: Vec::new(),
        };
        let mut keyed: Vec<(u64, u32)> = positions
            .par_iter()
            .enumerate()
            .map(|(i, p)| (grid.key(grid.coords(p)), i as u32))
            .collect();
        keyed.par_sort_unstable();
        grid.order = keyed.iter().map(|&(_, i)| i).collect();
        for (n, &(k, _)) in keyed.iter().enumerate() {
            if grid.keys.last() != Some(&k) {
                grid.keys.push(k);
                grid.starts.push(n as u32);
            }
        }
        grid.starts.push(keyed.len() as u32);
        grid
    }

    /// Integer cell coordinates of a point, clamped to the packable range.
    fn coords(&self, p: &[f32; 3]) -> [u64; 3] {
        let max = ((1u64 << BITS) - 2) as f32;
        [0, 1, 2].map(|a| {
            ((p[a] - self.origin[a]) / self.cell)
                .floor()
                .clamp(0.0, max) as u64
        })
    }

    fn key(&self, c: [u64; 3]) -> u64 {
        (c[0] << (2 * BITS)) | (c[1] << BITS) | c[2]
    }

    /// Call `f` with the index of every particle in the 27 cells around `p`.
    fn for_each_near(&self, p: &[f32; 3], mut f: impl FnMut(usize)) {
        let c = self.coords(p);
        for i in c[0].saturating_sub(1)..=c[0] + 1 {
            for j in c[1].saturating_sub(1)..=c[1] + 1 {
                // A row of three cells along z is one contiguous range of keys.
                let first = self.key([i, j, c[2].saturating_sub(1)]);
                let last = self.key([i, j, c[2] + 1]);
                let mut n = self.keys.partition_point(|&k| k < first);
                while n < self.keys.len() && self.keys[n] <= last {
                    for &q in &self.order[self.starts[n] as usize..self.starts[n + 1] as usize] {
                        f(q as usize);
                    }
                    n += 1;
                }
            }
        }
    }
}

/// The fields at each of `points` from particles at `positions` with SPH volumes `volumes`
/// and velocities `velocities`, with the cubic spline kernel of compact support `support`.
pub fn interpolate(
    positions: &[[f32; 3]],
    volumes: &[f32],
    velocities: &[[f32; 3]],
    points: &[[f32; 3]],
    support: f32,
) -> Vec<PointFields> {
    let grid = CellGrid::new(positions, support);
    let kernel = CubicSplineKernel::new(support);
    let support2 = support * support;
    points
        .par_iter()
        .map(|x| {
            let mut weight = 0.0f32;
            let mut vel = [0.0f32; 3];
            let mut grad = [0.0f32; 3];
            grid.for_each_near(x, |j| {
                let p = positions[j];
                let d = [p[0] - x[0], p[1] - x[1], p[2] - x[2]];
                let r2 = d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
                if r2 >= support2 {
                    return;
                }
                let r = r2.sqrt();
                let w = volumes[j] * kernel.evaluate(r);
                weight += w;
                for a in 0..3 {
                    vel[a] += w * velocities[j][a];
                }
                if r > 0.0 {
                    // Gradient of W(|x - p|) with respect to x: -d/r * dW/dr.
                    let g = volumes[j] * kernel.evaluate_gradient_norm(r) / r;
                    for a in 0..3 {
                        grad[a] -= g * d[a];
                    }
                }
            });
            PointFields {
                velocity: (weight > 0.0).then(|| vel.map(|v| v / weight)),
                outward: grad.map(|g| -g),
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_grid_finds_exactly_the_particles_within_the_support() {
        let mut pos = Vec::new();
        for i in 0..10 {
            for j in 0..10 {
                for k in 0..10 {
                    pos.push([i as f32 * 0.1, j as f32 * 0.1, k as f32 * 0.1]);
                }
            }
        }
        let grid = CellGrid::new(&pos, 0.25);
        let x = [0.43f32, 0.51, 0.12];
        let mut near = Vec::new();
        grid.for_each_near(&x, |j| {
            let d: f32 = (0..3).map(|a| (pos[j][a] - x[a]).powi(2)).sum();
            if d < 0.25 * 0.25 {
                near.push(j);
            }
        });
        near.sort();
        let brute: Vec<usize> = (0..pos.len())
            .filter(|&j| (0..3).map(|a| (pos[j][a] - x[a]).powi(2)).sum::<f32>() < 0.0625)
            .collect();
        assert_eq!(near, brute);
    }

    #[test]
    fn the_outward_direction_points_away_from_a_lone_particle() {
        let f = interpolate(
            &[[0.0; 3]],
            &[1.0],
            &[[1.0, 2.0, 3.0]],
            &[[0.1, 0.0, 0.0]],
            0.5,
        );
        assert_eq!(f[0].velocity, Some([1.0, 2.0, 3.0]));
        assert!(f[0].outward[0] > 0.0 && f[0].outward[1] == 0.0);
    }
}
