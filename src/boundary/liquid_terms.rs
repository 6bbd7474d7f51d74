//! Boundary kernel sums: the part of a liquid particle's kernel sums that the matter beyond a
//! wall or inside a body would give if it were liquid. Without them a particle next to a
//! boundary misses that part, its pressure clamps to zero, and it passes on only half the
//! pressure it should (buoyancy comes out too weak, the first row on the floor crowds in).
//!
//! Walls: the sums of a cubic lattice of ghost particles filling the half-space beyond the
//! wall, laterally aligned with the particle, tabulated by the particle's distance from the
//! wall plane. An interior particle of the initial lattice next to a wall then sums exactly to
//! the rest density. The ghosts also push in the relaxation ([`WallKernel::push`]): each
//! carries the particle's own near pressure and the walls' pressure (the liquid's around the
//! particle, extrapolated to it) plus the hydrostatic difference to its place (Adami et al.
//! 2012 style), so a particle at a wall gets the displacement that the same liquid at rest
//! beyond the wall would give, and a row at a wall is held as an interior row is, along the
//! wall as well as across it. Bodies: their particles within the kernel radius, weighted by
//! their volume relative to a liquid particle's, binned into the liquid grid's cells
//! ([`BoundaryGrid`]) and gathered by each liquid particle from the 27 cells around it.
use super::Cells;
use super::body_grid::BoundaryGrid;
use super::params::Walls;
use super::wall_loads::{CHUNK, Masses, WallLoads};
use crate::boundary::wall_kernel::{WallKernel, plane_distances};
use glam::Vec3A;
use rayon::prelude::*;

/// Add the bodies' and the walls' sums to the liquid's kernel sums `rho`, `rho_near` of every
/// slot of `grid` at its current position (`h` the kernel radius); the walls' ghost by ghost
/// ([`WallKernel::sums_once`]) with `ghost_pressure`, else from their table. The
/// bodies' part of `rho` alone goes into `body` (zero away from every body), which says where
/// the walls push with the ghosts that stand for liquid alone ([`add_ghost_pressure`]).
#[allow(clippy::too_many_arguments)]
pub fn add_boundary_sums<G: Cells>(
    pos: &[Vec3A],
    grid: &G,
    h: f32,
    walls: Option<(&Walls, &WallKernel)>,
    ghost_pressure: bool,
    half_spacing: f32,
    bodies: &BoundaryGrid,
    rho: &mut [f32],
    rho_near: &mut [f32],
    body: &mut [f32],
) {
    if walls.is_none() && bodies.is_empty() {
        body.par_iter_mut().for_each(|b| *b = 0.0);
        return;
    }
    rho.par_iter_mut()
        .zip(rho_near.par_iter_mut())
        .zip(body.par_iter_mut())
        .enumerate()
        .for_each(|(i, ((r, n), bs))| {
            let mut b = if bodies.is_empty() {
                [0.0; 2]
            } else {
                bodies.sums(grid, grid.cell_of_slot(i), pos[i], h)
            };
            *bs = b[0];
            if let Some((w, k)) = walls {
                let s = if ghost_pressure {
                    k.sums_once(w, half_spacing, pos[i])
                } else {
                    k.sums(w, half_spacing, pos[i])
                };
                b[0] += s[0];
                b[1] += s[1];
            }
            *r += b[0];
            *n += b[1];
        });
}

/// How far inside the walls `x` lies: its least distance to a wall (a container's face, half
/// a spacing beyond the plane that particle centres are held to).
#[inline(always)]
pub fn wall_depth(walls: &Walls, half_spacing: f32, x: Vec3A) -> f32 {
    (x - walls.lo)
        .min_element()
        .min((walls.hi - x).min_element())
        + half_spacing
}

/// What the relaxation's pair loops need to gather the walls' pressure sums of
/// [`add_ghost_pressure`] on their way: which rows gather them and the hydrostatic gradient.
#[derive(Debug, Clone, Copy)]
pub struct WallPairs<'a> {
    /// The walls.
    pub walls: &'a Walls,
    /// Half the lattice spacing.
    pub half_spacing: f32,
    /// The kernel radius.
    pub h: f32,
    /// `grad gravity` ([`WallKernel::grad`] times the part of gravity one pass balances).
    pub grad: Vec3A,
}

impl<'a> WallPairs<'a> {
    /// The pair sums for `walls` with the ghosts of `kernel`, `gravity` the part of gravity
    /// one relaxation pass balances.
    pub fn new(
        walls: &'a Walls,
        kernel: &WallKernel,
        half_spacing: f32,
        gravity: Vec3A,
    ) -> WallPairs<'a> {
        WallPairs {
            walls,
            half_spacing,
            h: kernel.h,
            grad: gravity * kernel.grad,
        }
    }

    /// Whether the row of a slot at `x` gathers the sums over its pairs: a neighbour of a slot
    /// farther from every wall than `2h` is not within `h` of one (a rounding margin aside),
    /// so neither needs the other's weight.
    #[inline(always)]
    pub fn gathers(&self, x: Vec3A) -> bool {
        wall_depth(self.walls, self.half_spacing, x) < 2.002 * self.h
    }

    /// A slot's sums before its pairs are added: itself, with weight 1.
    #[inline(always)]
    pub fn own(press: [f32; 2]) -> Vec3A {
        Vec3A::new(press[0], 1.0, 0.0)
    }
}

/// The bodies as the walls' push sees them ([`add_ghost_pressure`]): a ghost whose mirror
/// image lies inside a body stands for the body's image, not for liquid.
#[derive(Debug)]
pub struct BodyImages<'a, G: Cells> {
    /// The liquid grid the bodies' particles are binned on.
    pub grid: &'a G,
    /// The bodies' particles.
    pub bodies: &'a BoundaryGrid,
    /// The bodies' kernel sum above which a point lies inside a body: half the liquid's rest
    /// kernel sum (a point on a flat face of a body has about half a full kernel's matter).
    pub inside: f32,
    /// The kernel radius, m.
    pub h: f32,
}

// By hand: a derive would ask the grid itself to be `Clone` and `Copy`.
impl<G: Cells> Clone for BodyImages<'_, G> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<G: Cells> Copy for BodyImages<'_, G> {}

impl<G: Cells> BodyImages<'_, G> {
    /// Whether the point `x` lies outside every body (their kernel sum there at most
    /// [`BodyImages::inside`]). A point farther than half a kernel radius (at least three
    /// quarters of a spacing) beyond the box around the bodies' particles has the matter of
    /// less than half a kernel on one side of it, short of `inside`, and is liquid without a
    /// gather (the GPU gathers there too and finds the same).
    #[inline]
    pub fn liquid_at(&self, x: Vec3A) -> bool {
        if !self.bodies.near_bounds(x, 0.5 * self.h) {
            return true;
        }
        let c = self.grid.cell_index(x);
        self.bodies.sums(self.grid, c, x, self.h)[0] <= self.inside
    }

    /// The walls (bit `e` for wall `e`: x lo, x hi, y lo, y hi, z lo, z hi) within `h` of a
    /// particle at `x` that a body faces across it: the point a spacing `d` from the particle
    /// away from the wall lies inside a body. The particle is then in a film between the body
    /// and that wall, whose pressure `boundary::film` passes to the body.
    #[inline]
    pub fn films(&self, walls: &Walls, half_spacing: f32, x: Vec3A, d: f32) -> u32 {
        let y = plane_distances(walls, half_spacing, x);
        let mut shut = 0;
        for (e, &ye) in y.iter().enumerate() {
            if ye < self.h {
                let mut p = x;
                p[e / 2] += if e.is_multiple_of(2) { d } else { -d };
                if !self.liquid_at(p) {
                    shut |= 1 << e;
                }
            }
        }
        shut
    }
}

/// Add the walls' push ([`WallKernel::push`]) times `dt^2` to the relaxation displacements
/// `dx` of every slot at `pos` within `h` of a wall, with pressures `press`, `gravity` the part
/// of gravity one relaxation pass balances. The walls' pressure is the liquid's around the
/// particle extrapolated to it, `P_w = sum_j w_j (P_j - grad g . r_ij) / sum_j w_j` with
/// `w = (1-q)^2` (the particle itself with weight 1), as Adami et al. 2012 take a wall
/// particle's from the fluid's: mirroring the particle's own pressure instead made a row at
/// the wall answer its own pressure twice as hard as an interior row and kept a still box
/// stirring. Those sums come in `sums` (`x`: the weighted pressures, `y`: the weights, `z`: the
/// liquid's moment), gathered by the relaxation's pair loops ([`WallPairs`],
/// [`super::relaxation::displacements`]) over the rows of the slots within `2h` of a wall.
///
/// A slot within `h` of a body (its bodies' kernel sum `body` above zero) is pushed by the
/// ghosts that stand for liquid alone ([`WallKernel::push_where`], [`BodyImages`]): not those
/// whose mirror image lies inside a body (they stand for the body's image, which pushes
/// through the coupling's contacts as the body does), and none of a wall that a body faces
/// across the slot ([`BodyImages::films`]: the slot is in a film, whose pressure
/// `boundary::film` passes to the body; pushed by the wall, it pressed up against the body,
/// and a block tipping over water that runs under its heel slid on its toe by 1.8 mm). Where
/// the walls did not push within `h` of a body at all, the liquid beside and under a box that
/// spans a slab lacked the walls' support that the liquid away from it has, and the box floated
/// 10 to 12% deep by the weight it displaced; with every ghost pushing there, as deep.
///
/// With `loads`, the impulse each wall's ghosts give each slot (its mass times its push over
/// `dt`, as the displacement enters its velocity) goes to the walls' loads
/// ([`WallLoads::gather`]); the displacements are the same with or without.
#[allow(clippy::too_many_arguments)]
pub fn add_ghost_pressure<G: Cells>(
    pos: &[Vec3A],
    press: &[[f32; 2]],
    body: &[f32],
    walls: &Walls,
    kernel: &WallKernel,
    half_spacing: f32,
    gravity: Vec3A,
    dt: f32,
    sums: &[Vec3A],
    images: BodyImages<'_, G>,
    dx: &mut [Vec3A],
    loads: Option<(&mut WallLoads, Masses<'_>)>,
) {
    let dt2 = dt * dt;
    let ghosts = GhostPush {
        pos,
        press,
        body,
        walls,
        kernel,
        half_spacing,
        gravity,
        sums,
        images,
    };
    // On a thread of the pool, so that the loop starts from inside it (`liquid`'s `in_pool`).
    rayon::scope(|_| match loads {
        None => dx.par_iter_mut().enumerate().for_each(|(i, d)| {
            let mut out = Vec3A::ZERO;
            if ghosts.at(i, |_, f| out += f) {
                *d += out * dt2;
            }
        }),
        Some((loads, masses)) => loads.gather(dx.par_chunks_mut(CHUNK), |first, ds, sink| {
            for (k, d) in ds.iter_mut().enumerate() {
                let i = first + k;
                let (mut out, mut per_wall) = (Vec3A::ZERO, [Vec3A::ZERO; 6]);
                let pushed = ghosts.at(i, |w, f| {
                    out += f;
                    per_wall[w] += f;
                });
                if pushed {
                    *d += out * dt2;
                    let scale = masses.of(i) * dt;
                    for (w, f) in per_wall.iter().enumerate() {
                        if *f != Vec3A::ZERO {
                            sink.add(w, pos[i], *f * scale);
                        }
                    }
                }
            }
        }),
    });
}

/// What the walls' push of [`add_ghost_pressure`] reads.
struct GhostPush<'a, G: Cells> {
    pos: &'a [Vec3A],
    press: &'a [[f32; 2]],
    body: &'a [f32],
    walls: &'a Walls,
    kernel: &'a WallKernel,
    half_spacing: f32,
    gravity: Vec3A,
    sums: &'a [Vec3A],
    images: BodyImages<'a, G>,
}

impl<G: Cells> GhostPush<'_, G> {
    /// Slot `i`'s push per dt^2, ghost by ghost into `each(w, push)` (`w` the ghost's wall);
    /// false for a slot beyond the walls' reach.
    #[inline]
    fn at(&self, i: usize, each: impl FnMut(usize, Vec3A)) -> bool {
        let (walls, hs) = (self.walls, self.half_spacing);
        let x = self.pos[i];
        if wall_depth(walls, hs, x) >= self.kernel.h {
            return false;
        }
        let [num, den, moment] = self.sums[i].to_array();
        let (pw, p) = (num / den, self.press[i]);
        let k = self.kernel;
        if self.body[i] > 0.0 {
            let shut = self.images.films(walls, hs, x, 2.0 * hs);
            let liquid = |m: Vec3A| self.images.liquid_at(x + m);
            k.push_each(
                walls,
                hs,
                x,
                p,
                pw,
                moment,
                self.gravity,
                shut,
                liquid,
                each,
            );
        } else {
            k.push_each(walls, hs, x, p, pw, moment, self.gravity, 0, |_| true, each);
        }
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::boundary::wall_kernel::{ghost_sums, lattice_kernel_sums, lattice_moment};

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
            let [g, gn, ..] = ghost_sums(0.5 * d, d, h);
            // The ghosts' moments and the particle's own half's make up the full lattice's.
            let [.., mz, mt] = ghost_sums(0.5 * d, d, h);
            let c = lattice_moment(d, h);
            let (mut own_z, mut own_t) = (0.0, 0.0);
            for i in -n..=n {
                for j in -n..=n {
                    for k in 0..=n {
                        let r = ((i * i + j * j + k * k) as f64).sqrt();
                        if r > 0.0 && r < ratio {
                            own_z += (1.0 - r / ratio) * (k * k) as f64 / r;
                            own_t += (1.0 - r / ratio) * (i * i) as f64 / r;
                        }
                    }
                }
            }
            assert!((own_z + mz - c).abs() < 1e-9 * c, "ratio {ratio}");
            assert!((own_t + mt - c).abs() < 1e-9 * c, "ratio {ratio}");
            assert!((own + g - full).abs() < 1e-12, "ratio {ratio}");
            assert!((own_near + gn - full_near).abs() < 1e-12, "ratio {ratio}");
        }
    }

    #[test]
    fn ghost_push_balances_the_row_above_at_uniform_pressure() {
        // A first-row lattice particle at uniform pressure: the ghosts push it away from the
        // wall exactly as hard as its own liquid's layers above push it towards the wall.
        for ratio in [1.5f64, 2.0, 2.5, 3.0] {
            let n = ratio.ceil() as i64;
            let (mut up, mut up_near) = (0.0, 0.0);
            for i in -n..=n {
                for j in -n..=n {
                    for k in 1..=n {
                        let r = ((i * i + j * j + k * k) as f64).sqrt();
                        let a = 1.0 - r / ratio;
                        if a > 0.0 {
                            up += a * k as f64 / r;
                            up_near += a * a * k as f64 / r;
                        }
                    }
                }
            }
            let [_, _, g, gn, ..] = ghost_sums(0.5, 1.0, ratio);
            assert!(up > 0.1, "ratio {ratio}: no layer above");
            assert!((g - up).abs() < 1e-12, "ratio {ratio}: {g} vs {up}");
            assert!(
                (gn - up_near).abs() < 1e-12,
                "ratio {ratio}: {gn} vs {up_near}"
            );
        }
        // At uniform pressure and no gravity the explicit ghost loop gives the tabulated push
        // sums along the wall's inward normal, and nothing beyond h.
        let (d, h) = (0.01f32, 0.02f32);
        let k = WallKernel::new(d, h);
        let walls = Walls::bare(Vec3A::splat(0.005), Vec3A::splat(0.095));
        let none = Vec3A::ZERO;
        for y in [0.0f32, 0.003, 0.005, 0.0123] {
            let [_, _, g, gn, ..] = ghost_sums(y as f64, d as f64, h as f64);
            let x = Vec3A::new(y, 0.05, 0.05);
            let lo = k.push(&walls, 0.005, x, [1.0, 0.5], 1.0, 0.0, none);
            let want = (g + 0.5 * gn) as f32;
            assert!((lo.x - want).abs() < 1e-5 * want, "{y}: {lo} vs {want}");
            assert!(lo.y.abs() < 1e-5 * want && lo.z.abs() < 1e-5 * want, "{lo}");
            let x = Vec3A::new(0.05, 0.095 + 0.005 - y, 0.05);
            let hi = k.push(&walls, 0.005, x, [1.0, 0.5], 1.0, 0.0, none);
            assert!((hi.y + want).abs() < 1e-5 * want, "{y}: {hi} vs {want}");
        }
        let g = Vec3A::new(0.0, -9.81, 0.0);
        let mid = k.push(&walls, 0.005, Vec3A::splat(0.05), [1.0, 1.0], 1.0, 0.0, g);
        assert_eq!(mid, Vec3A::ZERO);
        // Under gravity at zero pressure, with the liquid's moment of the lattice's first row
        // (the lattice's C less the ghosts'): the floor's ghosts give a first-row particle
        // their share of the hydrostatic support, M_z g (M_z their moment over the lattice's);
        // a side wall's ghosts only those below it (the ones above are clamped at zero).
        let [.., mz, mt] = ghost_sums(0.005, d as f64, h as f64);
        let c = lattice_moment(d as f64, h as f64);
        let g2 = (g * k.grad).length_squared();
        let lattice = |m: f64| ((c - m) as f32) * g2;
        let push_at = |x: Vec3A, moment: f32| k.push(&walls, 0.005, x, [0.0, 0.0], 0.0, moment, g);
        let side_x = Vec3A::new(0.005, 0.05, 0.05);
        let floor = push_at(Vec3A::new(0.05, 0.005, 0.05), lattice(mz));
        let side = push_at(side_x, lattice(mt));
        let (want_floor, want_side) = ((mz / c) as f32 * 9.81, (0.5 * mt / c) as f32 * 9.81);
        assert!(want_side > 0.02 * 9.81, "{want_side}");
        assert!((floor.y - want_floor).abs() < 1e-4 * want_floor, "{floor}");
        assert!((side.y - want_side).abs() < 1e-4 * want_side, "{side}");
        assert!(side.x > 0.0, "{side}");
        // Liquid packed closer than the lattice (its moment half the ghosts' above the
        // lattice's) leaves the ghosts half the difference; packed as the whole lattice, none;
        // sparser than the lattice (a free surface above), the mirror image still.
        let half = push_at(side_x, lattice(0.5 * mt));
        assert!(
            (half.y - 0.5 * want_side).abs() < 1e-3 * want_side,
            "{half}"
        );
        assert_eq!(push_at(side_x, lattice(0.0)), Vec3A::ZERO);
        assert_eq!(push_at(side_x, 0.0), side);
    }

    #[test]
    fn a_closed_lattice_at_hydrostatic_pressure_stays_put_at_every_wall() {
        // A 7 x 8 x 6 lattice filling a closed box, its pressure rising linearly with depth at
        // the gradient that holds it against gravity (all ghosts' pressure positive) and a
        // uniform near pressure: the ghosts' share of the hydrostatic difference comes out 1
        // (the mirror image: the liquid's moment and the ghosts' make the lattice's) and
        // every particle, in the corners and along the edges too (where two or three walls'
        // ghosts overlap), gets a relaxation displacement that cancels gravity's, and kernel
        // sums of the full lattice.
        for ratio in [1.5f32, 2.0, 2.5] {
            let (d, hs) = (0.01f32, 0.005f32);
            let h = ratio * d;
            let k = WallKernel::new(d, h);
            let (nx, ny, nz) = (7, 8, 6);
            let walls = Walls::bare(
                Vec3A::splat(hs),
                Vec3A::new(nx as f32, ny as f32, nz as f32) * d - Vec3A::splat(hs),
            );
            let g = Vec3A::new(0.0, -9.81, 0.0);
            let mut pos = Vec::new();
            for i in 0..nx {
                for j in 0..ny {
                    for l in 0..nz {
                        pos.push(Vec3A::new(i as f32, j as f32, l as f32) * d + Vec3A::splat(hs));
                    }
                }
            }
            let top = walls.hi.y + h;
            let press: Vec<[f32; 2]> = pos
                .iter()
                .map(|x| [k.grad * 9.81 * (top - x.y), 3.0])
                .collect();
            let (full, full_near) = lattice_kernel_sums(ratio as f64);
            let (mut worst, mut worst_sum) = (0.0f32, 0.0f64);
            let grad = g * k.grad;
            for (i, &xi) in pos.iter().enumerate() {
                let mut acc = Vec3A::ZERO;
                let [mut s, mut sn] = k.sums_once(&walls, hs, xi);
                let mut moment = 0.0;
                for (j, &xj) in pos.iter().enumerate() {
                    let r = xj - xi;
                    let len = r.length();
                    let q = 1.0 - len / h;
                    if j != i && q > 0.0 {
                        let (p, n) = (press[i][0] + press[j][0], press[i][1] + press[j][1]);
                        acc -= r * (0.5 * (p * q + n * q * q) / len);
                        s += q * q;
                        sn += q * q * q;
                        moment += q * grad.dot(r).powi(2) / len;
                    }
                }
                acc += k.push(&walls, hs, xi, press[i], press[i][0], moment, g);
                worst = worst.max((acc + g).length());
                // The kernel sums too: the real neighbours and the ghosts make the full lattice.
                worst_sum = worst_sum
                    .max((s as f64 - full).abs() / full)
                    .max((sn as f64 - full_near).abs() / full_near);
            }
            assert!(worst < 1e-3 * 9.81, "ratio {ratio}: off by {worst} m/s^2");
            assert!(
                worst_sum < 1e-5,
                "ratio {ratio}: kernel sums off by {worst_sum}"
            );
        }
    }

    #[test]
    fn a_side_wall_supports_what_a_closer_packing_leaves_out() {
        // A lattice squeezed to 0.9 spacing across (x and z) in a closed box, its pressure
        // rising at the lattice's hydrostatic gradient: the liquid around a particle at a side
        // wall (away from the floor and the lid) has more moment than the lattice's, so the
        // mirror image holds it up too hard; with the ghosts' share (support_share) its
        // vertical displacement cancels gravity's.
        let (d, hs, ratio, squeeze) = (0.01f32, 0.005f32, 2.0f32, 0.9f32);
        let h = ratio * d;
        let k = WallKernel::new(d, h);
        let (nx, ny, nz) = (6, 8, 6);
        let across = |i: i32| hs + i as f32 * d * squeeze;
        let walls = Walls::bare(
            Vec3A::splat(hs),
            Vec3A::new(across(nx - 1), hs + (ny - 1) as f32 * d, across(nz - 1)),
        );
        let mut pos = Vec::new();
        for i in 0..nx {
            for j in 0..ny {
                for l in 0..nz {
                    pos.push(Vec3A::new(across(i), hs + j as f32 * d, across(l)));
                }
            }
        }
        let g = Vec3A::new(0.0, -9.81, 0.0);
        let grad = g * k.grad;
        let top = walls.hi.y + h;
        let press = |x: Vec3A| [k.grad * 9.81 * (top - x.y), 3.0];
        let (mut worst, mut mirror_least, mut checked) = (0.0f32, f32::INFINITY, 0);
        for &xi in &pos {
            let row = ((xi.y - hs) / d).round() as i32;
            let at_side = xi.x < hs + 0.5 * d || xi.x > walls.hi.x - 0.5 * d;
            if !(2..ny - 2).contains(&row) || !at_side {
                continue;
            }
            let pi = press(xi);
            let (mut acc, mut moment) = (Vec3A::ZERO, 0.0);
            for &xj in &pos {
                let r = xj - xi;
                let len = r.length();
                let q = 1.0 - len / h;
                if len > 0.0 && q > 0.0 {
                    let pj = press(xj);
                    acc -= r * (0.5 * ((pi[0] + pj[0]) * q + (pi[1] + pj[1]) * q * q) / len);
                    moment += q * grad.dot(r).powi(2) / len;
                }
            }
            let shared = acc + k.push(&walls, hs, xi, pi, pi[0], moment, g);
            let mirror = acc + k.push(&walls, hs, xi, pi, pi[0], 0.0, g);
            worst = worst.max((shared.y + g.y).abs());
            mirror_least = mirror_least.min(mirror.y + g.y);
            checked += 1;
        }
        assert!(checked >= 40, "{checked} particles checked");
        assert!(worst < 1e-3 * 9.81, "off by {worst} m/s^2 with the share");
        assert!(
            mirror_least > 0.02 * 9.81,
            "the mirror image holds up by only {mirror_least} m/s^2"
        );
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
