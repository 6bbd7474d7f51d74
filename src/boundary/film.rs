//! The pressure a thin film of liquid between a body and a wall passes to the body.
//!
//! A liquid particle pressed by a body against a wall (a *film*: it lies within a spacing of
//! the wall and less than `TOUCH_GAP` spacings clear of the body, the body's surface faces the
//! wall head-on there, and the gap between them holds the particle) cannot pass the liquid's
//! pressure on by moving: the wall holds it, and that wall's ghosts do not push it
//! (`boundary::add_ghost_pressure`: the point a spacing from it away from the wall lies in
//! the body). On its own the body then rests on the film as on the floor, however buoyant it
//! is. A film that connects to the liquid around it
//! carries that liquid's pressure, as a wet floor does under a block: each film particle here
//! takes the pressure `k (rho - rho0) rest / rho0` of the liquid within a kernel radius of it
//! that is not a film, extrapolated hydrostatically, carried into the film's inside by Jacobi
//! sweeps over the film's pairs (until converged, at most `SWEEPS`), and passes it to the body over its column's area (a spacing
//! squared) along the wall's normal. A film that no liquid reaches (sealed under the body)
//! passes nothing. Once a body has lifted off by `TOUCH_GAP` the next layer fits under it,
//! and its particles carry the pressure by their contacts.
//!
//! Both backends' candidates (`liquid::Liquid::near_bodies`, searched [`reach`]
//! beyond touching near the walls) hold every particle within a kernel radius of a film, and
//! the films and their sums are taken from those alone, so this runs on the CPU for either
//! and gives both the same impulses.
use super::gap::{self, MIN_GAP, TOUCH_GAP};
use super::solids::{NearBody, SurfaceIndex};
use super::wall_kernel::lattice_moment;
use super::{LiquidSettings, Walls, to_d, wall_depth};
use crate::rigid::RigidBody;
use glam::DVec3;

/// The body's surface must face the wall within this cosine (26 degrees) for a particle
/// against it to be a film.
const HEAD_ON: f64 = 0.9;

/// Jacobi sweeps that carry the films' pressure from their edges into their inside (each moves
/// it up to a kernel radius).
const SWEEPS: usize = 50;

/// One film particle: its candidate's index, its wall's outward normal, the body's surface
/// (outward normal, distance) and its pressure.
#[derive(Debug, Clone, Copy, Default)]
struct Film {
    near: usize,
    outward: DVec3,
    normal: DVec3,
    to_body: f64,
    /// The liquid's pressure at the particle, Pa (NaN: not reached yet).
    press: f64,
    /// Whether the pressure comes from liquid that is not a film (kept by the sweeps).
    fixed: bool,
}

/// The buffers of [`film_impulses`], kept between steps.
#[derive(Debug, Clone, Default)]
pub struct FilmBuffers {
    /// The candidates within a spacing and a kernel radius of a wall: (body, grid cell's
    /// key, candidate's index, film's index or `NOT_FILM`), sorted.
    zone: Vec<(u32, u64, u32, u32)>,
    films: Vec<Film>,
    /// Film pairs within the kernel radius: (film, film, weight, hydrostatic difference).
    pairs: Vec<(u32, u32, f64, f64)>,
    next: Vec<(f64, f64)>,
    /// Per body, the box its surface spans ([`gap::span`]), once a film on it needs it.
    spans: gap::Spans,
}

/// The zone entry of a candidate that is not a film.
const NOT_FILM: u32 = u32::MAX;

/// Bits per axis of a grid cell's key (cells of a kernel radius, offset by half the range).
const KEY_BITS: u32 = 21;

/// The key of grid cell `c` (kernel-radius cells): z, then y, then x, so that the cells of a
/// row in x are consecutive keys.
fn cell_key(c: [i64; 3]) -> u64 {
    let bias = 1i64 << (KEY_BITS - 1);
    let mask = (1u64 << KEY_BITS) - 1;
    let k = |v: i64| ((v + bias) as u64) & mask;
    (k(c[2]) << (2 * KEY_BITS)) | (k(c[1]) << KEY_BITS) | k(c[0])
}

/// The kernel-radius cell of `x`.
fn cell_of(x: DVec3, h: f64) -> [i64; 3] {
    let c = (x / h).floor();
    [c.x as i64, c.y as i64, c.z as i64]
}

/// How far beyond touching a body [`film_impulses`] needs its candidates: a film lies up to
/// `TOUCH_GAP` spacings clear of the body, and its neighbours within a kernel radius of it.
pub fn reach(params: &impl LiquidSettings) -> f64 {
    params.h() as f64 + TOUCH_GAP * params.spacing() as f64
}

/// The liquid's pressure of a particle of `phase` with kernel sum `rho`, Pa:
/// `k (rho - rho0) rest / rho0`, the relaxation's `k_eff (rho - rho0)` times `rest C / 2` (`C`
/// the lattice's moment `moment`), clamped at zero.
pub(super) fn pressure(params: &impl LiquidSettings, moment: f64, phase: u32, rho: f32) -> f64 {
    let p = params.k_eff(phase) as f64 * (rho as f64 - params.rho0() as f64);
    (p * params.rest_density(phase) as f64 * moment / 2.0).max(0.0)
}

/// The wall that a particle at `x`, `to_body` from a body's surface whose outward normal
/// there is `n`, is pressed against as a film: the wall's outward normal, or `None`.
fn film_wall(walls: &Walls, spacing: f64, x: DVec3, n: DVec3, to_body: f64) -> Option<DVec3> {
    let r = spacing / 2.0;
    for a in 0..3 {
        for (face, sign) in [
            (walls.lo[a] as f64 - r, -1.0),
            (walls.hi[a] as f64 + r, 1.0),
        ] {
            let from_wall = (x[a] - face) * -sign;
            let mut outward = DVec3::ZERO;
            outward[a] = sign;
            if from_wall < spacing
                && n.dot(outward) >= HEAD_ON
                && from_wall + to_body * n.dot(outward) >= MIN_GAP * spacing
            {
                return Some(outward);
            }
        }
    }
    None
}

/// The impulses (N s) and angular impulses about each body's centre that the films among
/// `near` (the candidates of one step's liquid/body contacts, in order of body, then slot,
/// searched [`reach`] beyond touching for the bodies `near_wall` marks) pass to `bodies` over
/// `dt`, into `out` (one entry per
/// body, zero where no film presses); the number of films. Nothing without walls.
#[allow(clippy::too_many_arguments)]
pub fn film_impulses(
    near: &[NearBody],
    near_wall: &[bool],
    index: &SurfaceIndex,
    params: &impl LiquidSettings,
    bodies: &[RigidBody],
    dt: f64,
    buf: &mut FilmBuffers,
    out: &mut Vec<(DVec3, DVec3)>,
) -> usize {
    out.clear();
    out.resize(bodies.len(), (DVec3::ZERO, DVec3::ZERO));
    let Some(walls) = params.boundary().walls.as_ref() else {
        return 0;
    };
    let (s, h) = (params.spacing() as f64, params.h() as f64);
    let g = to_d(params.gravity());
    // The candidates a film or its neighbours can be, and the films among them.
    buf.zone.clear();
    buf.films.clear();
    let touch_reach = s * (0.5 + TOUCH_GAP);
    for (k, n) in near.iter().enumerate() {
        if !near_wall[n.body as usize] {
            continue;
        }
        let x = to_d(n.pos);
        let from_wall = wall_depth(walls, (s / 2.0) as f32, n.pos) as f64;
        if from_wall >= s + h {
            continue;
        }
        let mut film = NOT_FILM;
        if from_wall < s
            && index.may_touch(bodies, n.body as usize, x, touch_reach)
            && let Some((normal, depth)) = index.touch(bodies, n.body as usize, x, touch_reach)
            && let Some(outward) = film_wall(walls, s, x, normal, touch_reach - depth)
        {
            film = buf.films.len() as u32;
            buf.films.push(Film {
                near: k,
                outward,
                normal,
                to_body: touch_reach - depth,
                press: f64::NAN,
                fixed: false,
            });
        }
        buf.zone
            .push((n.body, cell_key(cell_of(x, h)), k as u32, film));
    }
    if buf.films.is_empty() {
        return 0;
    }
    buf.zone.sort_unstable();
    let moment = lattice_moment(s, h);
    let rest = |n: &NearBody| params.rest_density(n.phase) as f64;
    let weight = |a: DVec3, b: DVec3| {
        let q = 1.0 - (b - a).length() / h;
        (q > 0.0).then_some(q * q)
    };
    // Each film's pressure extrapolated from the candidates of its body within a kernel
    // radius that are not films, and its pairs with the other films of its body, over the 27
    // cells around it (nine runs of consecutive keys).
    buf.pairs.clear();
    let (films, zone) = (&mut buf.films, &buf.zone);
    for fi in 0..films.len() {
        let nf = &near[films[fi].near];
        let (xf, body) = (to_d(nf.pos), nf.body);
        let c = cell_of(xf, h);
        let (mut sum, mut wsum) = (0.0, 0.0);
        for dz in -1..=1 {
            for dy in -1..=1 {
                let lo = (body, cell_key([c[0] - 1, c[1] + dy, c[2] + dz]));
                let hi = (body, cell_key([c[0] + 1, c[1] + dy, c[2] + dz]));
                let first = zone.partition_point(|e| (e.0, e.1) < lo);
                for &(_, _, k, film) in zone[first..].iter().take_while(|e| (e.0, e.1) <= hi) {
                    let n = &near[k as usize];
                    let x = to_d(n.pos);
                    let Some(w) = weight(xf, x) else {
                        continue;
                    };
                    if film == NOT_FILM {
                        sum += w
                            * (pressure(params, moment, n.phase, n.rho) + rest(nf) * g.dot(xf - x));
                        wsum += w;
                    } else if film as usize > fi {
                        buf.pairs
                            .push((fi as u32, film, w, rest(nf) * g.dot(xf - x)));
                    }
                }
            }
        }
        if wsum > 0.0 {
            films[fi].press = sum / wsum;
            films[fi].fixed = true;
        }
    }
    // Jacobi over the films' pairs: a film not fixed takes the weighted mean of the pressures
    // its reached neighbours give it, until converged.
    for _ in 0..SWEEPS {
        buf.next.clear();
        buf.next.resize(films.len(), (0.0, 0.0));
        for &(i, j, w, dp) in &buf.pairs {
            let (i, j) = (i as usize, j as usize);
            if !films[j].press.is_nan() {
                buf.next[i].0 += w * (films[j].press + dp);
                buf.next[i].1 += w;
            }
            if !films[i].press.is_nan() {
                buf.next[j].0 += w * (films[i].press - dp);
                buf.next[j].1 += w;
            }
        }
        // Converged: no film's pressure moves by a millionth of the largest.
        let mut change = 0.0f64;
        let mut largest = 0.0f64;
        for (f, &(sum, wsum)) in films.iter_mut().zip(&buf.next) {
            if !f.fixed && wsum > 0.0 {
                let p = sum / wsum;
                if !f.press.is_nan() {
                    change = change.max((p - f.press).abs());
                } else {
                    change = f64::INFINITY;
                }
                f.press = p;
            }
            if !f.press.is_nan() {
                largest = largest.max(f.press.abs());
            }
        }
        if change <= 1e-6 * largest {
            break;
        }
    }
    // Each film's pressure at the body's surface over its column's area, along the wall's
    // normal into the body.
    let area = s * s;
    buf.spans.reset(bodies.len());
    for f in films.iter().filter(|f| !f.press.is_nan()) {
        let n = &near[f.near];
        let (b, x) = (n.body as usize, to_d(n.pos));
        let surface = x - f.normal * f.to_body;
        let p = (f.press + rest(n) * g.dot(surface - x)).max(0.0);
        // Over the part of its column the body covers (see [`gap`]).
        let covered = gap::covered_share(walls, s, x, f.normal, buf.spans.of(b, &bodies[b]));
        let j = -f.outward * (p * area * covered * dt);
        out[b].0 += j;
        out[b].1 += (surface - bodies[b].state.x).cross(j);
    }
    films.len()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::boundary::BoundaryParams;
    use crate::rigid::{Primitive, Shape};
    use glam::Vec3A;

    const S: f64 = 0.005;
    const REST: f64 = 1000.0;
    const K_EFF: f64 = 1000.0;

    /// The liquid's settings that the films read, for one phase.
    struct Settings {
        spacing: f32,
        h: f32,
        rho0: f32,
        gravity: Vec3A,
        boundary: BoundaryParams,
        rest_density: f32,
        k_eff: f32,
    }

    impl LiquidSettings for Settings {
        fn spacing(&self) -> f32 {
            self.spacing
        }
        fn h(&self) -> f32 {
            self.h
        }
        fn rho0(&self) -> f32 {
            self.rho0
        }
        fn gravity(&self) -> Vec3A {
            self.gravity
        }
        fn boundary(&self) -> &BoundaryParams {
            &self.boundary
        }
        fn k_eff(&self, _phase: u32) -> f32 {
            self.k_eff
        }
        fn rest_density(&self, _phase: u32) -> f32 {
            self.rest_density
        }
    }

    /// Liquid at spacing 0.005 (kernel radius two spacings) in a unit container, with
    /// `gravity`.
    fn params(gravity: f64) -> Settings {
        let r = (S / 2.0) as f32;
        Settings {
            spacing: S as f32,
            h: (2.0 * S) as f32,
            rho0: 2.673,
            gravity: Vec3A::new(0.0, -gravity as f32, 0.0),
            boundary: BoundaryParams::new(
                Some(Walls::bare(Vec3A::splat(r), Vec3A::splat(1.0 - r))),
                true,
            ),
            rest_density: REST as f32,
            k_eff: K_EFF as f32,
        }
    }

    /// A box of 0.04 x 0.02 x 0.04 m whose underside lies one liquid layer above the floor.
    fn box_on_a_film() -> RigidBody {
        let shape = Shape::Primitive(Primitive::Box {
            size: DVec3::new(0.04, 0.02, 0.04),
        });
        let mut b = RigidBody::new("box", &shape, 800.0, S).unwrap();
        b.state.x = DVec3::new(0.5, S + 0.01, 0.5);
        b
    }

    /// The kernel sum that gives pressure `p` (Pa).
    fn rho_for(params: &Settings, p: f64) -> f32 {
        let c = lattice_moment(S, 2.0 * S);
        (params.rho0 as f64 + p / (K_EFF * REST * c / 2.0)) as f32
    }

    /// Lattice particles 0.1 m around the box up to `depth`, outside its solid (the layer
    /// under it included unless `sealed`, which keeps that layer alone), at pressure
    /// `press(y)`.
    fn liquid(
        params: &Settings,
        depth: f64,
        sealed: bool,
        press: impl Fn(f64) -> f64,
    ) -> Vec<NearBody> {
        liquid_from(params, depth, sealed, (0.4, 40), &box_on_a_film(), press)
    }

    /// As [`liquid`], around `body`, over `z.1` lattice columns in z from `z.0`.
    fn liquid_from(
        params: &Settings,
        depth: f64,
        sealed: bool,
        z: (f64, usize),
        body: &RigidBody,
        press: impl Fn(f64) -> f64,
    ) -> Vec<NearBody> {
        let c = body.state.x;
        let mut out = Vec::new();
        for i in 0..40 {
            for j in 0..(depth / S).round() as i32 {
                for k in 0..z.1 {
                    let x = DVec3::new(0.4 + (i as f64 + 0.5) * S, (j as f64 + 0.5) * S, z.0)
                        + DVec3::Z * (k as f64 + 0.5) * S;
                    let under = (x.x - c.x).abs() < 0.02 && (x.z - c.z).abs() < 0.02;
                    if (under && x.y > S) || (sealed && !(under && x.y < S)) {
                        continue;
                    }
                    out.push(NearBody {
                        body: 0,
                        slot: out.len() as u32,
                        id: out.len() as u32,
                        pos: Vec3A::new(x.x as f32, x.y as f32, x.z as f32),
                        vel: Vec3A::ZERO,
                        phase: 0,
                        rho: rho_for(params, press(x.y)),
                    });
                }
            }
        }
        out
    }

    fn impulses(params: &Settings, near: &[NearBody]) -> (usize, DVec3, DVec3) {
        impulses_on(box_on_a_film(), params, near)
    }

    /// The films among `near` under `body`, and the impulse and angular impulse they pass
    /// to it over 1 ms.
    fn impulses_on(body: RigidBody, params: &Settings, near: &[NearBody]) -> (usize, DVec3, DVec3) {
        let bodies = [body];
        let index = SurfaceIndex::new(&bodies);
        let mut out = Vec::new();
        let films = film_impulses(
            near,
            &[true],
            &index,
            params,
            &bodies,
            1e-3,
            &mut FilmBuffers::default(),
            &mut out,
        );
        (films, out[0].0, out[0].1)
    }

    #[test]
    fn a_film_at_uniform_pressure_pushes_the_body_with_that_pressure_over_its_footprint() {
        let params = params(0.0);
        let near = liquid(&params, 0.05, false, |_| 300.0);
        let (films, j, l) = impulses(&params, &near);
        // One film particle under each of the footprint's 8 x 8 columns.
        assert_eq!(films, 64);
        let want = 300.0 * 0.04 * 0.04 * 1e-3;
        // The kernel sums are f32: the pressure rounds at 1e-5 of itself.
        assert!((j.y - want).abs() < 1e-4 * want, "{j} against {want}");
        assert!(j.x.abs() + j.z.abs() < 1e-9 * want, "{j}");
        // Symmetric: no turning.
        assert!(l.length() < 1e-9, "{l}");
    }

    #[test]
    fn a_film_under_still_water_carries_the_hydrostatic_pressure_at_the_underside() {
        // Water 0.05 m deep: the pressure at the box's underside (one spacing up) is
        // rho g (0.05 - 0.005), extrapolated exactly from the linear field around the box.
        let g = 9.81;
        let params = params(g);
        let near = liquid(&params, 0.05, false, |y| REST * g * (0.05 - y));
        let (films, j, _) = impulses(&params, &near);
        assert_eq!(films, 64);
        let want = REST * g * (0.05 - S) * 0.04 * 0.04 * 1e-3;
        assert!((j.y - want).abs() < 1e-3 * want, "{} against {want}", j.y);
    }

    #[test]
    fn a_film_under_a_body_short_of_a_side_wall_presses_on_the_part_it_covers() {
        // The box's front face a tenth of a spacing from the front wall (a gap no particle
        // fits in): the film's column against that wall is nine tenths under the box.
        let params = params(0.0);
        let mut b = box_on_a_film();
        b.state.x.z = 0.1 * S + 0.02;
        let near = liquid_from(&params, 0.05, false, (0.0, 20), &b, |_| 300.0);
        let (films, j, _) = impulses_on(b, &params, &near);
        assert_eq!(films, 64);
        // Over the box's own footprint, 0.04 by 0.04 less the gap's tenth of a spacing, not
        // over the columns' 0.04 by 0.04.
        let want = 300.0 * 0.04 * (0.04 - 0.1 * S) * 1e-3;
        assert!((j.y - want).abs() < 1e-4 * want, "{} against {want}", j.y);
    }

    #[test]
    fn a_sealed_film_passes_nothing() {
        // Only the layer under the box: no liquid around it to connect to.
        let params = params(9.81);
        let near = liquid(&params, 0.05, true, |_| 300.0);
        let (films, j, l) = impulses(&params, &near);
        assert_eq!(films, 64);
        assert_eq!((j, l), (DVec3::ZERO, DVec3::ZERO));
    }

    #[test]
    fn without_walls_there_are_no_films() {
        let mut params = params(0.0);
        let near = liquid(&params, 0.05, false, |_| 300.0);
        params.boundary.walls = None;
        assert_eq!(impulses(&params, &near).0, 0);
    }
}
