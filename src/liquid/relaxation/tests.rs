//! The relaxation's tests: the pair terms' cap, the lane path against the scalar path, the
//! walls' pressure sums gathered in the pair loops and the scattered pairs against a gather.
use super::*;
use crate::boundary::BoundaryParams;
use crate::liquid::grid::Grid;
use crate::liquid::params::Phase;
use crate::liquid::particles::Particles;

/// A phase of mass `mass` with unit stiffnesses, for the tests' parameters.
fn phase(mass: f32) -> Phase {
    Phase {
        mass,
        rest_density: 1000.0,
        k_eff: 1.0,
        k_near_eff: 1.0,
        cohesion: false,
        sigma: 0.0,
        beta: 0.0,
    }
}

#[test]
fn a_pair_term_above_the_cap_is_capped_unless_it_is_wild() {
    let cap = [2.0, 40.0];
    assert_eq!(cap_pair(1.5, cap), 1.5);
    assert_eq!(cap_pair(2.0, cap), 2.0);
    assert_eq!(cap_pair(3.0, cap), 2.0);
    assert_eq!(cap_pair(40.0, cap), 2.0);
    assert_eq!(cap_pair(41.0, cap), 41.0);
    assert_eq!(cap_pair(-5.0, cap), -5.0);
}

/// The scalar rows of one phase (`w` both particles' weight) over every slot of `lists`,
/// into `out`: the oracle of the lane paths.
fn scalar_rows<const STORED: bool>(
    pos: &[Vec3A],
    press: &[[f32; 2]],
    lists: &NeighbourLists,
    h: f32,
    cap: [f32; 2],
    w: f32,
    out: &mut [Vec3A],
) {
    lists.scatter(out, |i, first, win| {
        let (js, ds) = lists.later_of(i);
        row::<STORED>(
            pos,
            press,
            js,
            ds,
            i,
            1.0 / h,
            cap,
            first,
            win,
            None,
            |_| [w, w],
        );
    });
}

/// The particles `p` (spacing `s`, kernel radius two spacings) binned, their neighbour lists,
/// random pressures from `next` and the parameters of `phases` without walls or gravity.
fn pairs_of(
    p: &mut Particles,
    s: f32,
    phases: Vec<Phase>,
    next: &mut impl FnMut() -> f32,
) -> (NeighbourLists, Vec<[f32; 2]>, LiquidParams) {
    let h = 2.0 * s;
    let mut grid = Grid::new(h);
    grid.build(p).unwrap();
    let mut lists = NeighbourLists::default();
    lists.build(&p.pos, &grid, h);
    let press = (0..p.len()).map(|_| [1.0 + next(), 0.5 + next()]).collect();
    let params = LiquidParams {
        spacing: s,
        h,
        rho0: 6.0,
        gravity: Vec3A::ZERO,
        boundary: BoundaryParams::default(),
        relaxation_passes: 1,
        phases,
    };
    (lists, press, params)
}

#[test]
fn lane_path_gives_the_scalar_path_bit_for_bit() {
    let mut rng = crate::rng::XorShift::new(0x2a17);
    let mut next = move || rng.unit() as f32 - 0.5;
    let s = 0.01f32;
    let mut p = Particles::jittered_lattice(343, 7, s, &mut next);
    let (lists, press, params) = pairs_of(&mut p, s, vec![phase(1e-3)], &mut next);
    let n = p.len();
    let h = params.h;
    let dt = 0.002;
    for stored in [true, false] {
        let mut dx = vec![Vec3A::ZERO; n];
        displacements(
            &p.pos, &p.phase, &lists, &params, &press, dt, stored, None, &mut dx,
        );
        let w = 0.5 * dt * dt;
        let cap = [
            0.2 * params.spacing / (dt * dt),
            20.0 * params.h / (dt * dt),
        ];
        let mut want = vec![Vec3A::ZERO; n];
        if stored {
            scalar_rows::<true>(&p.pos, &press, &lists, h, cap, w, &mut want);
        } else {
            scalar_rows::<false>(&p.pos, &press, &lists, h, cap, w, &mut want);
        }
        let mut moved = 0;
        for (i, (d, want)) in dx.iter().zip(&want).enumerate() {
            for a in 0..3 {
                assert_eq!(
                    d[a].to_bits(),
                    want[a].to_bits(),
                    "slot {i} (stored: {stored})"
                );
            }
            moved += (d.length() > 1e-9) as usize;
        }
        assert!(moved > n / 2, "only {moved} of {n} slots moved");
    }
}

/// The walls' pressure sums gathered in the relaxation's pair loops: the separate scalar
/// walk over the same pairs that `add_ghost_pressure` made before (kept here as the oracle)
/// gives the same sums bit for bit, on the AVX2 path and the scalar one (one phase and
/// two), at the lists' positions and moved off them; and the displacements are those
/// without the walls' sums, bit for bit.
#[test]
fn pair_loops_gather_the_walls_pressure_sums() {
    use crate::boundary::Walls;
    use crate::boundary::wall_depth;
    use crate::boundary::wall_kernel::WallKernel;
    let mut rng = crate::rng::XorShift::new(0x51de);
    let mut next = move || rng.unit() as f32 - 0.5;
    let (s, hs) = (0.01f32, 0.005f32);
    let h = 2.0 * s;
    let m = 9u32;
    let walls = Walls::bare(Vec3A::splat(hs), Vec3A::splat(hs + (m - 1) as f32 * s));
    let kernel = WallKernel::new(s, h);
    let g = Vec3A::new(0.0, -9.81, 0.0);
    let grad = g * kernel.grad;
    let mut p = Particles::default();
    for k in 0..m * m * m {
        let lattice = Vec3A::new((k % m) as f32, (k / m % m) as f32, (k / m / m) as f32);
        let x = lattice * s + Vec3A::splat(hs) + Vec3A::new(next(), next(), next()) * 0.3 * s;
        p.push(x.clamp(walls.lo, walls.hi), Vec3A::ZERO, k % 3 / 2);
    }
    let mut grid = Grid::new(h);
    grid.build(&mut p).unwrap();
    let mut lists = NeighbourLists::default();
    lists.build(&p.pos, &grid, h);
    let n = p.len();
    let top = walls.hi.y + h;
    let press: Vec<[f32; 2]> = p
        .pos
        .iter()
        .map(|x| {
            [
                kernel.grad * 9.81 * (top - x.y) + 5.0 * next(),
                3.0 + next(),
            ]
        })
        .collect();
    let moved: Vec<Vec3A> = p
        .pos
        .iter()
        .map(|&x| x + Vec3A::new(next(), next(), next()) * (0.05 * s))
        .collect();
    // The former separate walk: each pair of a row within 2h of a wall, scalar, in the
    // scatter's order.
    let oracle = |pos: &[Vec3A]| {
        let mut sums: Vec<[f32; 3]> = press.iter().map(|p| [p[0], 1.0, 0.0]).collect();
        lists.scatter(&mut sums, |i, first, s| {
            let x = pos[i];
            if wall_depth(&walls, hs, x) >= 2.002 * h {
                return;
            }
            for &j in lists.later_of(i).0 {
                let r = pos[j as usize] - x;
                let len = r.length();
                let a = 1.0 - len / h;
                if a > 0.0 {
                    let (w, g) = (a * a, grad.dot(r));
                    let m = a * g * g / len;
                    let (si, sj) = (i - first, j as usize - first);
                    let [pi, wi, mi] = s[si];
                    s[si] = [pi + w * (press[j as usize][0] - g), wi + w, mi + m];
                    let [pj, wj, mj] = s[sj];
                    s[sj] = [pj + w * (press[i][0] + g), wj + w, mj + m];
                }
            }
        });
        sums
    };
    let dt = 0.002;
    for phases in [vec![phase(1e-3)], vec![phase(1e-3), phase(3e-3)]] {
        let params = LiquidParams {
            spacing: s,
            h,
            rho0: 6.0,
            gravity: g,
            boundary: BoundaryParams::new(Some(walls), true),
            relaxation_passes: 1,
            phases,
        };
        for (pos, stored) in [(&p.pos, true), (&moved, false)] {
            let want = oracle(pos);
            let mut plain = vec![Vec3A::ZERO; n];
            displacements(
                pos, &p.phase, &lists, &params, &press, dt, stored, None, &mut plain,
            );
            let (mut dx, mut sums) = (vec![Vec3A::ZERO; n], vec![Vec3A::ZERO; n]);
            let wp = WallPairs::new(&walls, &kernel, hs, g);
            displacements(
                pos,
                &p.phase,
                &lists,
                &params,
                &press,
                dt,
                stored,
                Some((wp, &mut sums)),
                &mut dx,
            );
            let label = format!("{} phases, stored: {stored}", params.phases.len());
            for (i, (d, e)) in dx.iter().zip(&plain).enumerate() {
                assert_eq!(d.to_array(), e.to_array(), "slot {i} ({label})");
            }
            let mut gathered = 0;
            for (i, (got, want)) in sums.iter().zip(&want).enumerate() {
                assert_eq!(got.to_array(), *want, "slot {i} ({label})");
                gathered += (want[1] > 1.5) as usize;
            }
            assert!(gathered > n / 2, "only {gathered} of {n} slots gathered");
            if params.phases.len() > 1 {
                continue;
            }
            // The scalar row's sums, bit for bit.
            let cap = [0.2 * s / (dt * dt), 20.0 * h / (dt * dt)];
            let w = 0.5 * dt * dt;
            let (mut dx_row, mut sums_row) = (vec![Vec3A::ZERO; n], vec![Vec3A::ZERO; n]);
            for (s, p) in sums_row.iter_mut().zip(&press) {
                *s = WallPairs::own(*p);
            }
            lists.scatter2(&mut dx_row, &mut sums_row, |i, first, win, swin| {
                let (js, ds) = lists.later_of(i);
                let wall = wp.gathers(pos[i]).then_some((grad, h, swin));
                let inv_h = 1.0 / h;
                if stored {
                    row::<true>(pos, &press, js, ds, i, inv_h, cap, first, win, wall, |_| {
                        [w, w]
                    });
                } else {
                    row::<false>(pos, &press, js, ds, i, inv_h, cap, first, win, wall, |_| {
                        [w, w]
                    });
                }
            });
            for (i, (a, b)) in sums.iter().zip(&sums_row).enumerate() {
                assert_eq!(a.to_array(), b.to_array(), "slot {i} ({label})");
            }
            for (i, (a, b)) in dx.iter().zip(&dx_row).enumerate() {
                assert_eq!(a.to_array(), b.to_array(), "slot {i} ({label})");
            }
        }
    }
}

/// Every pair once, scattered to both slots, gives each slot's gathered sum over all its
/// neighbours (in double precision), with two phases of different masses.
#[test]
fn scattered_pairs_give_the_gathered_displacements() {
    let mut rng = crate::rng::XorShift::new(0x77);
    let mut next = move || rng.unit() as f32 - 0.5;
    let s = 0.01f32;
    let mut p = Particles::jittered_lattice(1000, 10, s, &mut next);
    for (k, ph) in p.phase.iter_mut().enumerate() {
        *ph = (k % 3 / 2) as u32;
    }
    let (lists, press, params) = pairs_of(&mut p, s, vec![phase(1e-3), phase(3e-3)], &mut next);
    let n = p.len();
    let h = params.h;
    let dt = 0.002;
    // Move the particles off the lists' positions, as a second pass sees them.
    let moved: Vec<Vec3A> = p
        .pos
        .iter()
        .map(|&x| x + Vec3A::new(next(), next(), next()) * (0.05 * s))
        .collect();
    for (pos, stored) in [(&p.pos, true), (&moved, false)] {
        let mut dx = vec![Vec3A::ZERO; n];
        displacements(
            pos, &p.phase, &lists, &params, &press, dt, stored, None, &mut dx,
        );
        let all = lists.whole();
        let (mut worst, mut biggest) = (0.0f64, 0.0f64);
        for i in 0..n {
            let mi = params.phases[p.phase[i] as usize].mass as f64;
            let mut want = [0.0f64; 3];
            for &j in &all[i] {
                let j = j as usize;
                let mj = params.phases[p.phase[j] as usize].mass as f64;
                let r = (pos[j] - pos[i]).as_dvec3();
                let d = r.length();
                let a = 1.0 - d / h as f64;
                if a <= 0.0 {
                    continue;
                }
                let pp = (press[i][0] + press[j][0]) as f64;
                let pn = (press[i][1] + press[j][1]) as f64;
                let f = (pp * a + pn * a * a) * mj / (mi + mj) / d * (dt * dt) as f64;
                for c in 0..3 {
                    want[c] -= r[c] * f;
                }
            }
            for c in 0..3 {
                worst = worst.max((dx[i][c] as f64 - want[c]).abs());
                biggest = biggest.max(want[c].abs());
            }
        }
        assert!(biggest > 1e-7, "displacements too small to test: {biggest}");
        assert!(
            worst <= 1e-5 * biggest,
            "{worst} off (largest {biggest}, stored: {stored})"
        );
    }
}
