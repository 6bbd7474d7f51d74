//! What a gauge reads from the particles: the liquid's surface height on a vertical line and
//! its mechanical pressure at a point, each through a Wendland C2 kernel (as DualSPHysics's
//! MeasureTool and most SPH probes do), two spacings wide for the height and three for the
//! pressure.
//!
//! The height is where the liquid's volume fraction `sum V_j W` on the line falls through one
//! half, the highest such point, with the particles near a side wall mirrored across it (so
//! that a gauge on a wall reads the liquid against it, not half of it).
//!
//! The pressure is the Shepard-normalised `sum Pi_j W / sum W` of the particles' mechanical
//! pressures `Pi_j` ([`PressureModel`]), the pressure that the relaxation's pair terms carry.
//! Per pass the relaxation moves particle `i` by `-dt^2/2 sum_j [(P_i + P_j)(1-q) + (Pn_i +
//! Pn_j)(1-q)^2] r_hat_ij` (equal masses), with the pressure `P = k_eff (rho - rho0)` (clamped
//! at zero without cohesion) and the near pressure `Pn = k_near_eff rho_near` (`rho_near =
//! sum (1-q)^3`, the walls' ghosts included). Across a plane through liquid whose pressures
//! are smooth over a kernel radius, these terms push the particles on one side with
//! `rho_b (C P + M Pn) / 2` per unit area (`rho_b` the block's density), `C = sum (1-q) r_y^2
//! / r` and `M = sum (1-q)^2 r_y^2 / r` over an interior particle's neighbours on the lattice:
//! `C` is the moment that `k_eff` is scaled by, and `M / C` is 0.326 at a kernel radius of two
//! spacings (1/3 in the continuum limit, `int (1-q)^2 q^3 dq / int (1-q) q^3 dq`). In still
//! liquid that push holds the weight of the liquid above the plane; with several relaxation
//! passes each pass holds its share, so the pressure is the passes times it. The near pressure
//! varies only in the surface skin, but a uniform pressure pushes across a plane as much as
//! any: at the default `k_near` it is about `0.56 rho g s` (`s` the spacing) all through the
//! bulk, which the pressure `P` alone misses (it read 0.6 spacings of depth low).
//!
//! The settled packing is disordered and nearly frozen in still liquid, so the particles'
//! pressures scatter from place to place about the smooth field; a kernel two spacings wide
//! (some 30 particles) passes that on as 2% of the pressure at 12 spacings deep (one standard
//! deviation), three spacings wide (some 110) as 0.7% (`tests/liquid/gauges.rs`).
use super::params::LiquidParams;
use super::particles::Particles;
use crate::boundary::Walls;
use crate::boundary::wall_kernel::{WallKernel, lattice_moment, lattice_near_moment};
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
    /// The particles near the line or point last read (relative to the line, for a height).
    near: Vec<Vec3A>,
    /// The particles within the kernel of the point last read: index into `near`, slot.
    inner: Vec<(u32, u32)>,
}

impl GaugeReader {
    /// A reader for a liquid of lattice spacing `spacing`, m, in a container whose side walls
    /// stand at `walls` (`[x, z]` low and high), if any.
    pub fn new(spacing: f32, walls: Option<([f32; 2], [f32; 2])>) -> GaugeReader {
        GaugeReader {
            spacing,
            walls,
            near: Vec::new(),
            inner: Vec::new(),
        }
    }

    /// The height kernel's support, m: two spacings.
    fn support(&self) -> f32 {
        2.0 * self.spacing
    }

    /// The pressure kernel's support, m: three spacings (see the module doc).
    fn pressure_support(&self) -> f32 {
        3.0 * self.spacing
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

    /// The liquid's mechanical pressure at `point`, Pa: `sum Pi_j W / sum W` over the particles
    /// within three spacings, each particle's `Pi_j` of `model` ([`PressureModel::particle`])
    /// with its near sum over the particles within a kernel radius of it and the walls' ghosts,
    /// as the relaxation takes it (a body's part left out: the host keeps none); 0 where no
    /// particle is that near.
    pub fn pressure(&mut self, particles: &Particles, point: Vec3A, model: &PressureModel) -> f32 {
        let h = self.pressure_support();
        let reach = h + model.h;
        self.near.clear();
        self.inner.clear();
        for (i, p) in particles.pos.iter().enumerate() {
            let r2 = (*p - point).length_squared();
            if r2 >= reach * reach {
                continue;
            }
            if r2 < h * h {
                self.inner.push((self.near.len() as u32, i as u32));
            }
            self.near.push(*p);
        }
        let (mut num, mut den) = (0.0f64, 0.0f64);
        for &(k, i) in &self.inner {
            let x = self.near[k as usize];
            let w = wendland((x - point).length_squared(), h) as f64;
            let near = model.near_sum(&self.near, k as usize);
            let i = i as usize;
            let pressure = model.particle(particles.phase[i], particles.rho[i], near);
            num += pressure as f64 * w;
            den += w;
        }
        if den > 0.0 { (num / den) as f32 } else { 0.0 }
    }
}

/// How a particle's kernel sums make the liquid's mechanical pressure, Pa, as the relaxation
/// of [`LiquidParams`] applies them (the module doc derives it).
#[derive(Debug, Clone)]
pub struct PressureModel {
    /// The rest kernel sum.
    rho0: f32,
    /// The liquid's kernel radius, m.
    h: f32,
    /// Per phase: Pa per unit of `rho - rho0` and per unit of near sum, and whether the
    /// pressure is clamped at zero.
    phases: Vec<([f32; 2], bool)>,
    /// The container's walls and their ghosts' kernel table, and whether the ghosts of an
    /// edge or a corner count once (with ghost pressure), as the solver adds their sums.
    walls: Option<(Walls, WallKernel, bool)>,
}

impl PressureModel {
    /// The mechanical pressure of the liquid of `params`: a particle of phase `b` carries
    /// `Pi = n rho_b (C P + M Pn) / 2`, Pa (`n` the relaxation passes, `rho_b` the phase's rest
    /// density, `C` and `M` the lattice's moments of the pressure's and the near pressure's
    /// kernels), that is `n (k rho_b / rho0 (rho - rho0) + rho_b M k_near_eff rho_near / 2)`.
    pub fn new(params: &LiquidParams) -> PressureModel {
        let (s, h) = (params.spacing as f64, params.h as f64);
        let (c, m) = (lattice_moment(s, h), lattice_near_moment(s, h));
        let passes = params.relaxation_passes as f64;
        PressureModel {
            rho0: params.rho0,
            h: params.h,
            phases: params
                .phases
                .iter()
                .map(|ph| {
                    let scale = passes * ph.rest_density as f64 / 2.0;
                    (
                        [
                            (scale * c * ph.k_eff as f64) as f32,
                            (scale * m * ph.k_near_eff as f64) as f32,
                        ],
                        !ph.cohesion,
                    )
                })
                .collect(),
            walls: params.boundary.walls.map(|w| {
                (
                    w,
                    WallKernel::new(params.spacing, params.h),
                    params.boundary.ghost_pressure,
                )
            }),
        }
    }

    /// The mechanical pressure, Pa, of a particle of phase `phase` with kernel sum `rho` and
    /// near sum `near`: its pressure (clamped at zero where the phase clamps it) and its near
    /// pressure, each weighted by its kernel's moment.
    pub fn particle(&self, phase: u32, rho: f32, near: f32) -> f32 {
        let ([pressure, near_pressure], clamp) = self.phases[phase as usize];
        let p = pressure * (rho - self.rho0);
        (if clamp { p.max(0.0) } else { p }) + near_pressure * near
    }

    /// The near sum `sum (1-q)^3` of the particle `pos[k]` over the others of `pos` within a
    /// kernel radius and the walls' ghosts (the solver's sum, the bodies' part aside).
    fn near_sum(&self, pos: &[Vec3A], k: usize) -> f32 {
        let x = pos[k];
        let (h2, inv_h) = (self.h * self.h, 1.0 / self.h);
        let mut near = 0.0f64;
        for (j, p) in pos.iter().enumerate() {
            let r2 = (*p - x).length_squared();
            if j != k && r2 < h2 {
                let a = 1.0 - r2.sqrt() * inv_h;
                near += (a * a * a) as f64;
            }
        }
        let walls = self.walls.as_ref().map_or(0.0, |(w, kernel, once)| {
            let hs = kernel.spacing / 2.0;
            if *once {
                kernel.sums_once(w, hs, x)[1]
            } else {
                kernel.sums(w, hs, x)[1]
            }
        });
        near as f32 + walls
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

    /// A model of pressure factor `factor` (Pa per unit of `rho - rho0`, clamped where
    /// `clamp`) and near factor `near` (Pa per unit near sum), `rho0` = 2, kernel radius `h`.
    fn model(factor: f32, near: f32, clamp: bool, h: f32) -> PressureModel {
        PressureModel {
            rho0: 2.0,
            h,
            phases: vec![([factor, near], clamp)],
            walls: None,
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
        let m = model(1000.0, 0.0, true, 0.02);
        let read = r.pressure(&p, Vec3A::new(0.05, 0.05, 0.05), &m);
        assert!((read - 50.0).abs() < 0.01, "read {read}");
        // Clamped where the phase clamps; nothing near: 0.
        for i in 0..p.len() {
            p.rho[i] = 1.0;
        }
        assert_eq!(r.pressure(&p, Vec3A::splat(0.05), &m), 0.0);
        let unclamped = model(1000.0, 0.0, false, 0.02);
        assert!(r.pressure(&p, Vec3A::splat(0.05), &unclamped) < -999.0);
        assert_eq!(r.pressure(&p, Vec3A::splat(5.0), &m), 0.0);
    }

    #[test]
    fn near_pressure_adds_the_particles_near_sums() {
        // Inside a lattice block every particle near the point has the interior lattice's near
        // sum; at rest density the pressure is the near pressure alone.
        let s = 0.01;
        let mut p = block([12, 12, 12], s);
        p.rho.iter_mut().for_each(|r| *r = 2.0);
        let near = crate::boundary::wall_kernel::lattice_kernel_sums(2.0).1 as f32;
        let mut r = GaugeReader::new(s as f32, None);
        let read = r.pressure(&p, Vec3A::splat(0.06), &model(1000.0, 10.0, true, 0.02));
        assert!((read - 10.0 * near).abs() < 1e-3 * near, "read {read}");
        // At a wall of a container whose walls hold the block, the ghosts complete each
        // particle's near sum to the interior one: a gauge on the floor reads the same.
        let walls = Walls::bare(Vec3A::splat(0.005), Vec3A::splat(0.115));
        let m = PressureModel {
            walls: Some((walls, WallKernel::new(s as f32, 0.02), true)),
            ..model(1000.0, 10.0, true, 0.02)
        };
        for point in [Vec3A::new(0.06, 0.0, 0.06), Vec3A::splat(0.0)] {
            let read = r.pressure(&p, point, &m);
            assert!(
                (read - 10.0 * near).abs() < 1e-3 * near,
                "at {point}: {read}"
            );
        }
        // Warm, a read keeps its buffers: no allocation.
        let kept = (
            r.near.as_ptr(),
            r.near.capacity(),
            r.inner.as_ptr(),
            r.inner.capacity(),
        );
        r.pressure(&p, Vec3A::splat(0.0), &m);
        let now = (
            r.near.as_ptr(),
            r.near.capacity(),
            r.inner.as_ptr(),
            r.inner.capacity(),
        );
        assert_eq!(now, kept);
        // Without the walls' ghosts the floor's particles miss part of their near sums.
        let read = r.pressure(
            &p,
            Vec3A::new(0.06, 0.0, 0.06),
            &model(1000.0, 10.0, true, 0.02),
        );
        assert!(read < 0.9 * 10.0 * near, "read {read}");
    }

    #[test]
    fn the_model_weights_each_pressure_by_its_kernels_moment() {
        // `k rho_b / rho0` per unit of `rho - rho0` (as `k_eff = 2 k / (rho0 C)` makes it) and
        // `rho_b M k_near_eff / 2` per unit near sum, both times the passes.
        let (s, h, rho0, k, rest) = (0.005f32, 0.01f32, 2.673f32, 20.0f32, 1000.0f32);
        let c = lattice_moment(s as f64, h as f64) as f32;
        let m = lattice_near_moment(s as f64, h as f64) as f32;
        let mut params = LiquidParams {
            spacing: s,
            h,
            rho0,
            gravity: Vec3A::new(0.0, -9.81, 0.0),
            boundary: crate::boundary::BoundaryParams::default(),
            relaxation_passes: 1,
            phases: vec![super::super::params::Phase {
                mass: rest * s * s * s,
                rest_density: rest,
                k_eff: 2.0 * k / (rho0 * c),
                k_near_eff: 7.0,
                cohesion: false,
                sigma: 0.0,
                beta: 0.0,
            }],
        };
        let one = PressureModel::new(&params);
        let [f, n] = one.phases[0].0;
        assert!((f / (k * rest / rho0) - 1.0).abs() < 1e-5, "{f}");
        assert!((n / (rest * m * 7.0 / 2.0) - 1.0).abs() < 1e-5, "{n}");
        assert!(one.phases[0].1 && one.walls.is_none());
        params.relaxation_passes = 3;
        let three = PressureModel::new(&params);
        assert!(
            (three.particle(0, rho0 + 0.1, 1.0) / one.particle(0, rho0 + 0.1, 1.0) - 3.0).abs()
                < 1e-5
        );
        // The near kernel's moment is a third of the pressure kernel's in the continuum
        // (int (1-q)^2 q^3 dq = 1/60 against int (1-q) q^3 dq = 1/20); 0.326 on the lattice at
        // two spacings.
        assert!((m / c - 0.3261).abs() < 1e-4, "{}", m / c);
        let fine = lattice_near_moment(1.0, 12.0) / lattice_moment(1.0, 12.0);
        assert!((fine - 1.0 / 3.0).abs() < 2e-3, "{fine}");
    }
}
