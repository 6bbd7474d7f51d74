//! The walls' ghost matter: the kernel sums of a cubic lattice of ghost particles filling the
//! half-space beyond each wall, tabulated by the particle's distance from the wall plane, and
//! the ghosts' push in the relaxation (pressure mirroring with Adami et al. 2012's
//! extrapolation, the hydrostatic difference at the share [`support_share`] that completes the
//! liquid's own support), walked ghost by ghost; the GPU twin is shaders/gpu/ghosts.wgsl (the
//! push's in shaders/gpu/relaxation.wgsl).
use super::ghost_batch::{GhostBatch, span_thresholds};
use super::params::Walls;
use glam::Vec3A;
/// Table entries of [`WallKernel`] over distances `[0, h]`.
pub const WALL_TABLE_SAMPLES: usize = 64;
/// Ghosts [`WallKernel::push`] keeps from its first walk for its second (beyond, it walks twice).
const PUSH_GHOSTS: usize = 64;

/// The kernel sums `(sum (1-q)^2, sum (1-q)^3)` of the ghost matter beyond a wall, tabulated by
/// the distance of the particle's centre from the wall plane, and the hydrostatic factor of
/// the ghosts' push ([`WallKernel::push`]).
#[derive(Debug, Clone, PartialEq)]
pub struct WallKernel {
    /// Kernel sums at distances `k h / WALL_TABLE_SAMPLES`, `k = 0..=WALL_TABLE_SAMPLES`.
    pub table: Vec<[f32; 2]>,
    /// `2 / C`, `C` the interior lattice's `sum (1-q) r_y^2/r` ([`lattice_moment`]): the
    /// relaxation's pressure gradient that holds a liquid at rest is this times gravity.
    pub grad: f32,
    /// Lattice spacing, m.
    pub spacing: f32,
    /// `C`, the interior lattice's moment `sum (1-q) r_y^2/r` ([`lattice_moment`]), m.
    pub moment: f32,
    /// Kernel radius, m.
    pub h: f32,
    /// `spans[m - 1]`: the least `rest` whose disc reaches `m` spacings out, i.e. where
    /// `(sqrt(max(rest, 0)) / spacing) as i32 >= m` first holds in f32, for `m = 1..=ceil(h /
    /// spacing)` ([`span_thresholds`]): the walk's row spans by comparison, the same integers.
    spans: Vec<f32>,
}

/// The ghost lattice's sums at distance `y` from the wall plane for spacing `d`, radius `h`:
/// layers at `y + (k + 1/2) d`, each a square lattice centred under the particle. Returns the
/// kernel sums `(sum (1-q)^2, sum (1-q)^3)`, the push sums `(sum (1-q) z/r, sum (1-q)^2 z/r)`
/// and the moments `(sum (1-q) z^2/r, sum (1-q) t^2/r)` (`t` the offset along one wall axis).
pub fn ghost_sums(y: f64, d: f64, h: f64) -> [f64; 6] {
    let n = (h / d).ceil() as i64;
    let (mut s, mut sn, mut g, mut gn, mut mz, mut mt) = (0.0, 0.0, 0.0, 0.0, 0.0, 0.0);
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
                    g += a * z / r;
                    gn += a * a * z / r;
                    mz += a * z * z / r;
                    mt += a * (i * i) as f64 * d * d / r;
                }
            }
        }
        k += 1;
    }
    [s, sn, g, gn, mz, mt]
}

/// `sum (1-q) r_y^2 / r` over the neighbours of an interior particle of the simple cubic
/// lattice of spacing `d` (kernel radius `h`): a pressure gradient `G` displaces it by
/// `-dt^2 C G / 2` in the relaxation, so the hydrostatic gradient is `2 g / C`.
pub fn lattice_moment(d: f64, h: f64) -> f64 {
    kernel_moment(d, h, 1)
}

/// `sum (1-q)^2 r_y^2 / r` over the neighbours of an interior particle of the simple cubic
/// lattice of spacing `d`, kernel radius `h`: the near pressure's [`lattice_moment`], m.
pub fn lattice_near_moment(d: f64, h: f64) -> f64 {
    kernel_moment(d, h, 2)
}

/// `sum (1-q)^power r_y^2 / r` over the neighbours of an interior lattice particle.
fn kernel_moment(d: f64, h: f64, power: i32) -> f64 {
    let n = (h / d).ceil() as i64;
    let mut c = 0.0;
    for i in -n..=n {
        for j in -n..=n {
            for k in -n..=n {
                let r = ((i * i + j * j + k * k) as f64).sqrt() * d;
                let a = 1.0 - r / h;
                if r > 0.0 && a > 0.0 {
                    c += a.powi(power) * (j * j) as f64 * d * d / r;
                }
            }
        }
    }
    c
}

/// The share of the hydrostatic difference the walls' ghosts carry at a particle: a pressure
/// gradient `G` moves a particle by `-dt^2 G . M / 2` (`M` the moment `sum (1-q) (G . r)^2 /
/// r / |G|^2` of its neighbours), so a particle needs the bulk's gradient (`M = C`, the
/// lattice's `lattice_moment`) when the ghosts carry `s = (C - M_liquid) / M_ghosts` of it.
/// Arguments are the moments times `|G|^2`: `full` = `C |G|^2`, `liquid` the liquid's around
/// the particle, `ghosts` the ghosts'. On the lattice `M_liquid + M_ghosts = C` and `s` is 1 (the
/// mirror image). Clamped to `[0, 1]`: where the liquid's moment falls short of the
/// lattice's, the part above a free surface is missing, which no ghost stands in for; 1 where
/// there is no gradient or no ghost.
#[inline]
pub fn support_share(full: f32, liquid: f32, ghosts: f32) -> f32 {
    if full > 0.0 && ghosts > 0.0 {
        ((full - liquid) / ghosts).clamp(0.0, 1.0)
    } else {
        1.0
    }
}

impl WallKernel {
    /// The table for liquid spacing `spacing` and kernel radius `h`.
    pub fn new(spacing: f32, h: f32) -> WallKernel {
        let table = (0..=WALL_TABLE_SAMPLES)
            .map(|k| {
                let y = h as f64 * k as f64 / WALL_TABLE_SAMPLES as f64;
                let s = ghost_sums(y, spacing as f64, h as f64);
                [s[0] as f32, s[1] as f32]
            })
            .collect();
        let c = lattice_moment(spacing as f64, h as f64);
        WallKernel {
            table,
            grad: (2.0 / c) as f32,
            spacing,
            moment: c as f32,
            h,
            spans: span_thresholds(spacing, (h / spacing).ceil() as i32),
        }
    }

    /// The kernel sums at distance `y` from the wall plane (linear between table entries; a
    /// particle past the plane counts as on it).
    #[inline]
    pub fn at(&self, y: f32) -> [f32; 2] {
        self.lookup(&self.table, y)
    }

    #[inline]
    fn lookup(&self, table: &[[f32; 2]], y: f32) -> [f32; 2] {
        let t = (y.max(0.0) / self.h) * WALL_TABLE_SAMPLES as f32;
        if t >= WALL_TABLE_SAMPLES as f32 {
            return [0.0; 2];
        }
        let k = t as usize;
        let f = t - k as f32;
        let (a, b) = (table[k], table[k + 1]);
        [a[0] + (b[0] - a[0]) * f, a[1] + (b[1] - a[1]) * f]
    }

    /// Visit the walls' ghosts within `h` of a particle at `x` (the lattices of
    /// [`ghost_sums`]), `f(r, |r|, 1 - |r|/h)` with `r` the ghost's offset from the particle. A
    /// ghost beyond two walls (an edge or a corner) is visited once, in the first wall's
    /// lattice (walls in the order x lo, x hi, y lo, y hi, z lo, z hi).
    #[inline]
    pub fn for_each_ghost(
        &self,
        walls: &Walls,
        half_spacing: f32,
        x: Vec3A,
        mut f: impl FnMut(Vec3A, f32, f32),
    ) {
        self.for_each_wall_ghost(walls, half_spacing, x, |_, r, len, q| f(r, len, q));
    }

    /// [`WallKernel::for_each_ghost`] with the wall whose lattice each ghost belongs to,
    /// `f(w, r, |r|, 1 - |r|/h)` (walls in the order of [`plane_distances`]).
    #[inline]
    pub fn for_each_wall_ghost(
        &self,
        walls: &Walls,
        half_spacing: f32,
        x: Vec3A,
        mut f: impl FnMut(usize, Vec3A, f32, f32),
    ) {
        let (h, d) = (self.h, self.spacing);
        let y = plane_distances(walls, half_spacing, x);
        let beyond = |e: usize, r: Vec3A| beyond_plane(&y, e, r);
        // Only the rows and columns of the disc `|r| < h` of a layer are walked: a ghost
        // outside `(i d)^2 + (j d)^2 + z^2 <= h^2 (1 + 1e-4)` has `|r| > h` well beyond
        // rounding, so `q <= 0` and it is never visited; the kept ghosts go in the same order.
        // A row's reach `min((sqrt(max(rest, 0)) / d) as i32, ceil(h / d))` is read off the
        // thresholds: the same integers without a square root or a division per row.
        let h2 = h * h * (1.0 + 1e-4);
        let span = |rest: f32| self.spans.iter().take_while(|&&t| rest >= t).count() as i32;
        // Walls a ghost within h can lie beyond: a plane farther than h (with a rounding
        // margin) from the particle has none of them past it, so it needs no test.
        let mut close = 0u32;
        for (e, &ye) in y.iter().enumerate() {
            if ye < h * (1.0 + 1e-3) {
                close |= 1 << e;
            }
        }
        if close == 0 {
            // No wall within `h` (each `yw >= h`): no ghost to visit.
            return;
        }
        let mut batch = GhostBatch::default();
        for (w, &yw) in y.iter().enumerate() {
            if yw >= h {
                continue;
            }
            let (a, side) = (w / 2, if w.is_multiple_of(2) { -1.0 } else { 1.0 });
            let earlier = close & ((1 << w) - 1);
            // A batch's ghosts in order, those within `h` and beyond no earlier wall.
            let mut visit = |batch: &mut GhostBatch| {
                batch.measure(h);
                for c in 0..batch.count {
                    let (r, len, q) = batch.ghost(c);
                    if q > 0.0
                        && (earlier == 0
                            || !(0..w).any(|e| earlier & (1 << e) != 0 && beyond(e, r)))
                    {
                        f(w, r, len, q);
                    }
                }
                batch.count = 0;
            };
            let mut k = 0;
            loop {
                let z = yw + (k as f32 + 0.5) * d;
                if z >= h {
                    break;
                }
                let layer = h2 - z * z;
                let ni = span(layer);
                for i in -ni..=ni {
                    let id = i as f32 * d;
                    let nj = span(layer - id * id);
                    for j in -nj..=nj {
                        let (sz, jd) = (side * z, j as f32 * d);
                        // `r[a] = side z`, `r[b] = i d`, `r[c] = j d`, built without indexing.
                        let r = match a {
                            0 => [sz, id, jd],
                            1 => [jd, sz, id],
                            _ => [id, jd, sz],
                        };
                        if batch.push(r) {
                            visit(&mut batch);
                        }
                    }
                }
                k += 1;
            }
            if batch.count > 0 {
                visit(&mut batch);
            }
        }
    }

    /// The walls' kernel sums `(sum (1-q)^2, sum (1-q)^3)` at `x` ghost by ghost
    /// ([`WallKernel::for_each_ghost`]): as [`WallKernel::sums`] but an edge's or a corner's
    /// ghosts counted once, as the push counts them.
    #[inline]
    pub fn sums_once(&self, walls: &Walls, half_spacing: f32, x: Vec3A) -> [f32; 2] {
        let (mut s, mut sn) = (0.0f32, 0.0f32);
        self.for_each_ghost(walls, half_spacing, x, |_, _, q| {
            let q2 = q * q;
            s += q2;
            sn += q2 * q;
        });
        [s, sn]
    }

    /// The walls' push on a particle at `x` with pressure and near pressure `press` under
    /// gravity `gravity`, per `dt^2`: the relaxation's pair terms with the walls' ghosts
    /// ([`WallKernel::for_each_ghost`]), each ghost carrying the particle's near pressure and
    /// the walls' pressure at the particle `wall_press` plus the share `s` of the hydrostatic
    /// difference to the ghost's place, `P_g = max(P_w + s grad gravity . r, 0)` (Adami et al.
    /// 2012's extrapolation with gravity, clamped as the liquid's pressure is: a ghost beside
    /// the surface would otherwise pull the particle up). `s` is [`support_share`] of
    /// `liquid_moment`, the liquid's `sum_j (1-q) (G . r)^2 / r` around the particle (`G` =
    /// `grad gravity`), and the ghosts' same moment: 1 (the mirror image) where the liquid
    /// lies on the lattice. `gravity` is the part of gravity one relaxation pass balances
    /// (gravity over the passes).
    #[allow(clippy::too_many_arguments)]
    #[inline]
    #[cfg_attr(not(test), allow(dead_code))]
    pub fn push(
        &self,
        walls: &Walls,
        half_spacing: f32,
        x: Vec3A,
        press: [f32; 2],
        wall_press: f32,
        liquid_moment: f32,
        gravity: Vec3A,
    ) -> Vec3A {
        self.push_where(
            walls,
            half_spacing,
            x,
            press,
            wall_press,
            liquid_moment,
            gravity,
            0,
            |_| true,
        )
    }

    /// [`WallKernel::push`] from the ghosts that stand for liquid only: a ghost is the mirror
    /// image of the point of the liquid's side it reflects to across the ghost planes it lies
    /// beyond ([`mirror_offset`]), and `liquid(m)` says whether that point, at offset `m` from
    /// the particle, is liquid. Where it lies inside a body, the ghost stands for the body's
    /// image, which pushes through the coupling's contacts as the body does, not with the
    /// liquid's pressure. The ghosts beyond the walls of the bit mask `shut` (bit `e` for wall
    /// `e` in the order of [`plane_distances`]) are left out too. The share `s` counts the kept
    /// ghosts alone.
    #[allow(clippy::too_many_arguments)]
    #[inline]
    #[cfg_attr(not(test), allow(dead_code))]
    pub fn push_where(
        &self,
        walls: &Walls,
        half_spacing: f32,
        x: Vec3A,
        press: [f32; 2],
        wall_press: f32,
        liquid_moment: f32,
        gravity: Vec3A,
        shut: u32,
        liquid: impl Fn(Vec3A) -> bool,
    ) -> Vec3A {
        let mut out = Vec3A::ZERO;
        self.push_each(
            walls,
            half_spacing,
            x,
            press,
            wall_press,
            liquid_moment,
            gravity,
            shut,
            liquid,
            |_, push| out += push,
        );
        out
    }

    /// [`WallKernel::push_where`] ghost by ghost: `each(w, push)` for every kept ghost, in
    /// order, with the wall `w` whose lattice it belongs to (what the walls' loads add up per
    /// wall); the pushes add up to [`WallKernel::push_where`]'s, bit for bit.
    #[allow(clippy::too_many_arguments)]
    #[inline]
    pub fn push_each(
        &self,
        walls: &Walls,
        half_spacing: f32,
        x: Vec3A,
        press: [f32; 2],
        wall_press: f32,
        liquid_moment: f32,
        gravity: Vec3A,
        shut: u32,
        liquid: impl Fn(Vec3A) -> bool,
        mut each: impl FnMut(usize, Vec3A),
    ) {
        let grad = gravity * self.grad;
        let y = plane_distances(walls, half_spacing, x);
        let kept_ghost = |r: Vec3A| {
            (shut == 0 || (0..6).all(|e| shut & (1 << e) == 0 || !beyond_plane(&y, e, r)))
                && liquid(mirror_offset(&y, r))
        };
        // The ghosts of the first walk, kept on the stack for the second (the share needs
        // all of them first); a particle with more walks them twice.
        let mut kept = [(0usize, Vec3A::ZERO, 0.0f32, 0.0f32); PUSH_GHOSTS];
        let mut count = 0usize;
        let mut ghost_moment = 0.0f32;
        self.for_each_wall_ghost(walls, half_spacing, x, |w, r, len, q| {
            if !kept_ghost(r) {
                return;
            }
            let g = grad.dot(r);
            ghost_moment += q * g * g / len;
            if count < PUSH_GHOSTS {
                kept[count] = (w, r, len, q);
            }
            count += 1;
        });
        let s = support_share(
            self.moment * grad.length_squared(),
            liquid_moment,
            ghost_moment,
        );
        let mut add = |w: usize, r: Vec3A, len: f32, q: f32| {
            let pg = (wall_press + s * grad.dot(r)).max(0.0);
            each(
                w,
                -(r * ((0.5 * (press[0] + pg) * q + press[1] * q * q) / len)),
            );
        };
        if count <= PUSH_GHOSTS {
            for &(w, r, len, q) in &kept[..count] {
                add(w, r, len, q);
            }
        } else {
            self.for_each_wall_ghost(walls, half_spacing, x, |w, r, len, q| {
                if kept_ghost(r) {
                    add(w, r, len, q)
                }
            });
        }
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

/// Distance of a particle at `x` from each wall's ghost plane (half a spacing beyond the plane
/// that centres are held to), in the order -x, +x, -y, +y, -z, +z.
#[inline]
pub fn plane_distances(walls: &Walls, half_spacing: f32, x: Vec3A) -> [f32; 6] {
    [
        x.x - walls.lo.x + half_spacing,
        walls.hi.x + half_spacing - x.x,
        x.y - walls.lo.y + half_spacing,
        walls.hi.y + half_spacing - x.y,
        x.z - walls.lo.z + half_spacing,
        walls.hi.z + half_spacing - x.z,
    ]
}

/// The mirror image of the ghost at offset `r` from a particle with plane distances `y`
/// ([`plane_distances`]): reflected across the ghost plane of each wall it lies beyond (one,
/// or two or three at an edge or a corner), the point on the liquid's side that it stands for,
/// as an offset from the particle.
#[inline]
pub fn mirror_offset(y: &[f32; 6], r: Vec3A) -> Vec3A {
    let mut m = r;
    for (e, &ye) in y.iter().enumerate() {
        if beyond_plane(y, e, r) {
            let side = if e.is_multiple_of(2) { -1.0 } else { 1.0 };
            m[e / 2] = 2.0 * side * ye - r[e / 2];
        }
    }
    m
}

/// Whether the offset `r` from a particle with plane distances `y` lies beyond wall `e`.
#[inline]
fn beyond_plane(y: &[f32; 6], e: usize, r: Vec3A) -> bool {
    if e.is_multiple_of(2) {
        r[e / 2] < -y[e]
    } else {
        r[e / 2] > y[e]
    }
}

/// The kernel sums `(sum (1-q)^2, sum (1-q)^3)` of an interior particle of a simple cubic
/// lattice whose kernel radius is `ratio` spacings.
pub fn lattice_kernel_sums(ratio: f64) -> (f64, f64) {
    let n = ratio.ceil() as i64;
    let (mut rho, mut near) = (0.0, 0.0);
    for i in -n..=n {
        for j in -n..=n {
            for k in -n..=n {
                if i == 0 && j == 0 && k == 0 {
                    continue;
                }
                let q = ((i * i + j * j + k * k) as f64).sqrt() / ratio;
                if q < 1.0 {
                    rho += (1.0 - q).powi(2);
                    near += (1.0 - q).powi(3);
                }
            }
        }
    }
    (rho, near)
}

#[cfg(test)]
#[path = "wall_kernel_tests.rs"]
mod tests;
