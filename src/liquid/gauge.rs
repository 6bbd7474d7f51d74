//! What a gauge reads from the particles: the liquid's surface height on a vertical line and
//! its pressure at a point, each through a Wendland C2 kernel two spacings wide (as
//! DualSPHysics's MeasureTool and most SPH probes do). The height is where the liquid's volume
//! fraction `sum V_j W` on the line falls through one half, the highest such point, with the
//! particles near a side wall mirrored across it (so that a gauge on a wall reads the liquid
//! against it, not half of it); the pressure is the Shepard-normalised `sum P_j W / sum W` of
//! the particles' pressures.
use super::particles::Particles;
use glam::Vec3A;

/// The Wendland C2 kernel in 3D with support `h`, at squared distance `r2`:
/// `21 / (2 pi h^3) (1 - q)^4 (1 + 4 q)`, `q = r / h` (its integral over space is 1).
fn wendland(r2: f32, h: f32) -> f32 {
    let q = r2.sqrt() / h;
    if q >= 1.0 {
        return 0.0;
    }
    let a = 1.0 - q;
    21.0 / (2.0 * std::f32::consts::PI * h * h * h) * a * a * a * a * (1.0 + 4.0 * q)
}

/// Reads gauges from particles of lattice spacing `spacing`; keeps the particles near the
/// line or point it last read, so that reading every step allocates nothing once warm.
#[derive(Debug, Clone)]
pub struct GaugeReader {
    spacing: f32,
    /// The side walls' `(x, z)` planes, low and high, when there is a container.
    walls: Option<([f32; 2], [f32; 2])>,
    near: Vec<Vec3A>,
}

impl GaugeReader {
    /// A reader for a liquid of lattice spacing `spacing`, m, in a container whose side walls
    /// stand at `walls` (`[x, z]` low and high), if any.
    pub fn new(spacing: f32, walls: Option<([f32; 2], [f32; 2])>) -> GaugeReader {
        GaugeReader {
            spacing,
            walls,
            near: Vec::new(),
        }
    }

    /// The kernel's support, m: two spacings.
    fn support(&self) -> f32 {
        2.0 * self.spacing
    }

    /// The height of the liquid's surface on the vertical line through `(x, z)`, between
    /// `floor` and `top` (the container's), m: the highest point of the line where the volume
    /// fraction (each particle a lattice cell, `spacing^3`) reaches one half; `floor` where the
    /// line is dry.
    pub fn surface_height(&mut self, pos: &[Vec3A], x: f32, z: f32, floor: f32, top: f32) -> f32 {
        let h = self.support();
        self.near.clear();
        let mut highest = f32::MIN;
        let h2 = h * h;
        for p in pos {
            let (dx, dz) = (p.x - x, p.z - z);
            if dx.abs() >= 2.0 * h || dz.abs() >= 2.0 * h {
                continue;
            }
            // The particle and, within a kernel radius of a side wall, its mirror images.
            let mut xs = [p.x; 2];
            let mut zs = [p.z; 2];
            if let Some((lo, hi)) = self.walls {
                for (c, k) in [(&mut xs, 0), (&mut zs, 1)] {
                    if c[0] - lo[k] < h {
                        c[1] = 2.0 * lo[k] - c[0];
                    } else if hi[k] - c[0] < h {
                        c[1] = 2.0 * hi[k] - c[0];
                    }
                }
            }
            for (i, &px) in xs.iter().enumerate() {
                for (j, &pz) in zs.iter().enumerate() {
                    let mirrored_twice = (i == 1 && xs[1] == xs[0]) || (j == 1 && zs[1] == zs[0]);
                    let (dx, dz) = (px - x, pz - z);
                    if !mirrored_twice && dx * dx + dz * dz < h2 {
                        self.near.push(Vec3A::new(dx, p.y, dz));
                        highest = highest.max(p.y);
                    }
                }
            }
        }
        if self.near.is_empty() {
            return floor;
        }
        let v = self.spacing.powi(3);
        let near = &self.near;
        let fraction = |y: f32| -> f32 {
            near.iter()
                .map(|d| {
                    let dy = d.y - y;
                    v * wendland(d.x * d.x + dy * dy + d.z * d.z, h)
                })
                .sum()
        };
        // Walk down from a kernel radius above the highest particle (where the fraction is 0)
        // in quarter spacings to the first point at or above one half, then bisect.
        let step = self.spacing / 4.0;
        let mut above = (highest + h).min(top);
        if fraction(above) >= 0.5 {
            return above;
        }
        loop {
            let below = above - step;
            if below <= floor {
                return if fraction(floor) >= 0.5 {
                    bisect(&fraction, floor, above)
                } else {
                    floor
                };
            }
            if fraction(below) >= 0.5 {
                return bisect(&fraction, below, above);
            }
            above = below;
        }
    }

    /// The liquid's pressure at `point`, Pa: `sum P_j W / sum W` over the particles within two
    /// spacings, each particle's pressure `factor[phase] (rho_j - rho0)` (clamped at zero
    /// where `clamp[phase]`, as the relaxation clamps it); 0 where no particle is that near.
    pub fn pressure(
        &mut self,
        particles: &Particles,
        point: Vec3A,
        rho0: f32,
        factor: &[f32],
        clamp: &[bool],
    ) -> f32 {
        let h = self.support();
        let (mut num, mut den) = (0.0f64, 0.0f64);
        for (i, p) in particles.pos.iter().enumerate() {
            let r2 = (*p - point).length_squared();
            if r2 >= h * h {
                continue;
            }
            let w = wendland(r2, h) as f64;
            let ph = particles.phase[i] as usize;
            let mut pressure = factor[ph] * (particles.rho[i] - rho0);
            if clamp[ph] {
                pressure = pressure.max(0.0);
            }
            num += pressure as f64 * w;
            den += w;
        }
        if den > 0.0 { (num / den) as f32 } else { 0.0 }
    }
}

/// The point between `lo` (fraction at least one half) and `hi` (below it) where `f` crosses
/// one half, to a thousandth of the interval.
fn bisect(f: &impl Fn(f32) -> f32, mut lo: f32, mut hi: f32) -> f32 {
    for _ in 0..10 {
        let mid = 0.5 * (lo + hi);
        if f(mid) >= 0.5 {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    0.5 * (lo + hi)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::liquid::particles::LatticeBlock;

    /// A block of liquid on the lattice, `nx x ny x nz` cells of spacing `s` from the origin.
    fn block(n: [usize; 3], s: f64) -> Particles {
        let max = [n[0] as f64 * s, n[1] as f64 * s, n[2] as f64 * s];
        Particles::from_blocks(
            &[LatticeBlock {
                min: [0.0; 3],
                max,
                velocity: [0.0; 3],
            }],
            s,
        )
    }

    #[test]
    fn the_kernel_integrates_to_one() {
        let (h, n) = (1.0f32, 60);
        let d = 2.0 * h / n as f32;
        let mut sum = 0.0f64;
        for i in 0..n {
            for j in 0..n {
                for k in 0..n {
                    let c = |a: usize| -h + (a as f32 + 0.5) * d;
                    let r2 = c(i).powi(2) + c(j).powi(2) + c(k).powi(2);
                    sum += (wendland(r2, h) * d * d * d) as f64;
                }
            }
        }
        assert!((sum - 1.0).abs() < 1e-3, "{sum}");
    }

    #[test]
    fn a_lattice_block_reads_its_filled_height_within_a_tenth_of_a_spacing() {
        // 12 x 20 x 12 cells of 1 cm: the block's top face is at 0.2 m, every particle a cell.
        let s = 0.01;
        let p = block([12, 20, 12], s);
        let mut r = GaugeReader::new(s as f32, None);
        let y = r.surface_height(&p.pos, 0.06, 0.06, 0.0, 1.0);
        assert!((y - 0.2).abs() < 0.1 * s as f32, "read {y}");
        // Off the block the line is dry: the floor.
        assert_eq!(r.surface_height(&p.pos, 0.5, 0.06, 0.0, 1.0), 0.0);
        // On the block's side face (half the kernel dry) it reads low without walls, and the
        // filled height with the block's faces as walls, on a face and in a corner.
        assert!(r.surface_height(&p.pos, 0.0, 0.06, 0.0, 1.0) < 0.15);
        let mut walled = GaugeReader::new(s as f32, Some(([0.0, 0.0], [0.12, 0.12])));
        for (x, z) in [
            (0.0, 0.06),
            (0.12, 0.06),
            (0.06, 0.12),
            (0.0, 0.0),
            (0.12, 0.12),
        ] {
            let y = walled.surface_height(&p.pos, x, z, 0.0, 1.0);
            assert!((y - 0.2).abs() < 0.1 * s as f32, "at ({x}, {z}) read {y}");
        }
    }

    #[test]
    fn pressure_is_the_kernel_average_of_the_particles_pressures() {
        let s = 0.01;
        let mut p = block([10, 10, 10], s);
        // rho0 = 2, each particle's rho = 2 + y: the pressure 1000 (rho - rho0) = 1000 y is
        // linear in y, which the symmetric kernel average reproduces inside the block.
        for i in 0..p.len() {
            p.rho[i] = 2.0 + p.pos[i].y;
        }
        let mut r = GaugeReader::new(s as f32, None);
        let read = r.pressure(&p, Vec3A::new(0.05, 0.05, 0.05), 2.0, &[1000.0], &[true]);
        assert!((read - 50.0).abs() < 0.01, "read {read}");
        // Clamped where the phase clamps; nothing near: 0.
        for i in 0..p.len() {
            p.rho[i] = 1.0;
        }
        assert_eq!(
            r.pressure(&p, Vec3A::splat(0.05), 2.0, &[1000.0], &[true]),
            0.0
        );
        assert!(r.pressure(&p, Vec3A::splat(0.05), 2.0, &[1000.0], &[false]) < -999.0);
        assert_eq!(
            r.pressure(&p, Vec3A::splat(5.0), 2.0, &[1000.0], &[true]),
            0.0
        );
    }
}
