//! Boundary kernel sums: the part of a liquid particle's kernel sums that the matter beyond a
//! wall or inside a body would give if it were liquid. Without them a particle next to a
//! boundary misses that part, its pressure clamps to zero, and it passes on only half the
//! pressure it should (buoyancy comes out too weak, the first row on the floor crowds in).
//!
//! Walls: the sums of a cubic lattice of ghost particles filling the half-space beyond the
//! wall, laterally aligned with the particle, tabulated by the particle's distance from the
//! wall plane. An interior particle of the initial lattice next to a wall then sums exactly to
//! the rest density. Bodies: their particles within the kernel radius, weighted by their
//! volume relative to a liquid particle's.
use super::grid::Grid;
use super::params::Walls;
use glam::Vec3A;
use rayon::prelude::*;

/// Table entries of [`WallKernel`] over distances `[0, h]`.
pub const WALL_TABLE_SAMPLES: usize = 64;

/// The kernel sums `(sum (1-q)^2, sum (1-q)^3)` of the ghost matter beyond a wall, tabulated
/// by the distance of the particle's centre from the wall plane.
#[derive(Debug, Clone, PartialEq)]
pub struct WallKernel {
    /// Sums at distances `k h / WALL_TABLE_SAMPLES`, `k = 0..=WALL_TABLE_SAMPLES`.
    pub table: Vec<[f32; 2]>,
    /// Kernel radius, m.
    pub h: f32,
}

/// The ghost lattice's sums at distance `y` from the wall plane for spacing `d`, radius `h`:
/// layers at `y + (k + 1/2) d`, each a square lattice centred under the particle.
pub fn ghost_sums(y: f64, d: f64, h: f64) -> [f64; 2] {
    let n = (h / d).ceil() as i64;
    let (mut s, mut sn) = (0.0, 0.0);
    let mut k = 0;
    loop {
        let z = y + (k as f64 + 0.5) * d;
        if z >= h {
            break;
        }
        for i in -n..=n {
            for j in -n..=n {
                let r = ((i * i + j * j) as f64 * d * d + z * z).sqrt();
                let a = 1.0 - r / h;
                if a > 0.0 {
                    s += a * a;
                    sn += a * a * a;
                }
            }
        }
        k += 1;
    }
    [s, sn]
}

impl WallKernel {
    /// The table for liquid spacing `spacing` and kernel radius `h`.
    pub fn new(spacing: f32, h: f32) -> WallKernel {
        let table = (0..=WALL_TABLE_SAMPLES)
            .map(|k| {
                let y = h as f64 * k as f64 / WALL_TABLE_SAMPLES as f64;
                ghost_sums(y, spacing as f64, h as f64).map(|v| v as f32)
            })
            .collect();
        WallKernel { table, h }
    }

    /// The sums at distance `y` from the wall plane (linear between table entries; a particle
    /// past the plane counts as on it).
    #[inline]
    pub fn at(&self, y: f32) -> [f32; 2] {
        let t = (y.max(0.0) / self.h) * WALL_TABLE_SAMPLES as f32;
        if t >= WALL_TABLE_SAMPLES as f32 {
            return [0.0; 2];
        }
        let k = t as usize;
        let f = t - k as f32;
        let (a, b) = (self.table[k], self.table[k + 1]);
        [a[0] + (b[0] - a[0]) * f, a[1] + (b[1] - a[1]) * f]
    }

    /// The sums of all six walls at position `x`. `walls.lo`/`hi` are the planes that particle
    /// centres are held to, half a spacing inside the container.
    #[inline]
    pub fn sums(&self, walls: &Walls, half_spacing: f32, x: Vec3A) -> [f32; 2] {
        let (mut s, mut sn) = (0.0, 0.0);
        for a in 0..3 {
            for y in [
                x[a] - walls.lo[a] + half_spacing,
                walls.hi[a] + half_spacing - x[a],
            ] {
                if y < self.h {
                    let [r, n] = self.at(y);
                    s += r;
                    sn += n;
                }
            }
        }
        [s, sn]
    }
}

/// Body particles that lend their kernel sums to the liquid: world positions and weights
/// (their volume over a liquid particle's).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct BoundaryParticles {
    /// World positions, m.
    pub pos: Vec<Vec3A>,
    /// Volume of each particle over a liquid particle's volume.
    pub weight: Vec<f32>,
}

impl BoundaryParticles {
    /// Number of particles.
    pub fn len(&self) -> usize {
        self.pos.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.pos.is_empty()
    }
}

/// The body particles' kernel sums at every liquid slot, accumulated body particle by body
/// particle over the grid cells around each (the order the GPU's scatter pass uses).
pub fn body_sums(
    pos: &[Vec3A],
    grid: &Grid,
    h: f32,
    boundary: &BoundaryParticles,
) -> Vec<[f32; 2]> {
    let mut out = vec![[0.0f32; 2]; pos.len()];
    if boundary.is_empty() || pos.is_empty() {
        return out;
    }
    let inv_h = 1.0 / h;
    for (xb, w) in boundary.pos.iter().zip(&boundary.weight) {
        grid.for_each_near(pos, *xb, h, |j, r2| {
            let a = 1.0 - r2.sqrt() * inv_h;
            if a > 0.0 {
                let a2 = a * a;
                out[j][0] += w * a2;
                out[j][1] += w * a2 * a;
            }
        });
    }
    out
}

/// Add the walls' and the bodies' sums to the liquid's kernel sums `rho`, `rho_near`.
pub fn add_boundary_sums(
    pos: &[Vec3A],
    walls: Option<(&Walls, &WallKernel)>,
    half_spacing: f32,
    bodies: &[[f32; 2]],
    rho: &mut [f32],
    rho_near: &mut [f32],
) {
    rho.par_iter_mut()
        .zip(rho_near.par_iter_mut())
        .enumerate()
        .for_each(|(i, (r, n))| {
            let mut b = bodies.get(i).copied().unwrap_or([0.0; 2]);
            if let Some((w, k)) = walls {
                let s = k.sums(w, half_spacing, pos[i]);
                b[0] += s[0];
                b[1] += s[1];
            }
            *r += b[0];
            *n += b[1];
        });
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::liquid::params::lattice_kernel_sums;

    #[test]
    fn ghost_layer_completes_the_lattice_at_the_wall() {
        // A lattice particle in the first row (half a spacing from the wall) misses exactly
        // the layers beyond the wall.
        for ratio in [1.5, 2.0, 2.5, 3.0] {
            let (full, full_near) = lattice_kernel_sums(ratio);
            let d = 1.0;
            let h = ratio;
            // The particle's own half: all lattice points with k >= 0 (k = layer offset).
            let n = ratio.ceil() as i64;
            let (mut own, mut own_near) = (0.0, 0.0);
            for i in -n..=n {
                for j in -n..=n {
                    for k in 0..=n {
                        if i == 0 && j == 0 && k == 0 {
                            continue;
                        }
                        let q = ((i * i + j * j + k * k) as f64).sqrt() / ratio;
                        if q < 1.0 {
                            own += (1.0 - q).powi(2);
                            own_near += (1.0 - q).powi(3);
                        }
                    }
                }
            }
            let [g, gn] = ghost_sums(0.5 * d, d, h);
            assert!((own + g - full).abs() < 1e-12, "ratio {ratio}");
            assert!((own_near + gn - full_near).abs() < 1e-12, "ratio {ratio}");
        }
    }

    #[test]
    fn table_matches_the_sums_and_vanishes_beyond_h() {
        let k = WallKernel::new(0.01, 0.02);
        for y in [0.0, 0.001, 0.005, 0.0123, 0.019] {
            let exact = ghost_sums(y, 0.01, 0.02);
            let t = k.at(y as f32);
            // Linear interpolation over h/64: the second derivative is at most about
            // 12 / h^2 per ghost particle (18 in range), so the error stays below 1e-2.
            assert!(
                (t[0] as f64 - exact[0]).abs() < 1e-2 * exact[0].max(1e-3),
                "{y}"
            );
        }
        assert_eq!(k.at(0.02), [0.0, 0.0]);
        assert_eq!(k.at(0.015 + 1e-6), [0.0, 0.0]);
        assert!(k.at(-1.0) == k.at(0.0));
    }
}
