//! The boundary's gathers over the liquid's own grid and particles (the grid as the
//! `boundary::Cells` the liquid implements).
use super::grid::Grid;
use super::particles::Particles;
use crate::boundary::wall_kernel::lattice_kernel_sums;
use crate::boundary::{
    BodyImages, BoundaryGrid, BoundaryParticles, Masses, WallKernel, WallLoads, WallPairs, Walls,
    add_ghost_pressure,
};
use glam::Vec3A;

#[test]
fn gathered_body_sums_match_a_sum_over_every_body_particle() {
    // A pseudo-random cloud of liquid particles and of body particles, some of these far
    // outside the liquid's grid (clamped into its border cells).
    let mut rng = crate::rng::XorShift::new(0x2545_f491);
    let mut next = move || rng.unit() as f32;
    let h = 0.02;
    let mut p = Particles::default();
    for _ in 0..2000 {
        let x = Vec3A::new(next(), next(), next()) * 0.1;
        p.push(x, Vec3A::ZERO, 0);
    }
    let mut b = BoundaryParticles::default();
    for k in 0..600 {
        let x = Vec3A::new(next(), next(), next()) * 0.14 - Vec3A::splat(0.02);
        b.pos.push(if k % 50 == 0 { x * 10.0 } else { x });
        b.weight.push(k as f32);
    }
    let mut grid = Grid::new(h);
    grid.build(&mut p).unwrap();
    let mut bins = BoundaryGrid::default();
    bins.build(&grid, &b);
    // Order (cell, index): the weights are the indices.
    let key = |j: usize| (grid.cell_index(bins.sorted.pos[j]), bins.sorted.weight[j]);
    assert!(
        (1..b.len()).all(|j| key(j - 1) < key(j)),
        "not in (cell, index) order"
    );
    assert_eq!(bins.cell_start.len(), grid.cells() + 1);
    let mut near = 0;
    for (i, &x) in p.pos.iter().enumerate() {
        let got = bins.sums(&grid, grid.cell_of[i], x, h);
        let (mut s, mut sn) = (0.0f64, 0.0f64);
        for (xb, w) in b.pos.iter().zip(&b.weight) {
            let q = 1.0 - (*xb - x).length() as f64 / h as f64;
            if q > 0.0 {
                s += *w as f64 * q * q;
                sn += *w as f64 * q * q * q;
            }
        }
        near += (s > 0.0) as usize;
        assert!((got[0] as f64 - s).abs() <= 1e-5 * s.max(1.0), "slot {i}");
        assert!((got[1] as f64 - sn).abs() <= 1e-5 * sn.max(1.0), "slot {i}");
    }
    assert!(
        near > 1000,
        "only {near} liquid particles near a body particle"
    );
    bins.build(&grid, &BoundaryParticles::default());
    assert!(bins.is_empty() && bins.cell_start.is_empty());
}

#[test]
fn near_a_body_the_walls_push_with_the_ghosts_that_stand_for_liquid() {
    let (d, h) = (0.01f32, 0.02f32);
    let k = WallKernel::new(d, h);
    let walls = Walls::bare(Vec3A::splat(0.005), Vec3A::splat(0.095));
    // A body filling x in [0.03, 0.07], y above 0.05 and the slab in z, and one on the floor
    // around x = 0.085 (its particles on the lattice, a liquid particle's volume each).
    let mut b = BoundaryParticles::default();
    for i in 0..10 {
        for j in 0..10 {
            for l in 0..10 {
                let x = Vec3A::new(i as f32, j as f32, l as f32) * d + Vec3A::splat(0.005);
                let upper = (0.03..0.07).contains(&x.x) && x.y > 0.05;
                let lower = x.x > 0.075 && x.y > 0.01 && x.y < 0.04;
                if upper || lower {
                    b.pos.push(x);
                    b.weight.push(1.0);
                }
            }
        }
    }
    // The test's slots: at the front wall under the upper body (a spacing below it), on
    // the floor under the lower one (a film), and at the front wall far from both; with
    // the box's corners, so that the grid spans the container.
    let mut p = Particles::default();
    let slots = [
        Vec3A::new(0.045, 0.045, 0.005),
        Vec3A::new(0.085, 0.005, 0.05),
        Vec3A::new(0.015, 0.025, 0.005),
    ];
    for x in slots
        .iter()
        .chain(&[Vec3A::splat(0.005), Vec3A::splat(0.095)])
    {
        p.push(*x, Vec3A::ZERO, 0);
    }
    let mut grid = Grid::new(h);
    grid.build(&mut p).unwrap();
    let mut bodies = BoundaryGrid::default();
    bodies.build(&grid, &b);
    let rho0 = lattice_kernel_sums(2.0).0 as f32;
    let images = BodyImages {
        grid: &grid,
        bodies: &bodies,
        inside: 0.5 * rho0,
        h,
    };
    let n = p.len();
    let press = vec![[50.0, 5.0]; n];
    let g = Vec3A::new(0.0, -9.81, 0.0);
    let at = |x: Vec3A| p.pos.iter().position(|y| *y == x).unwrap();
    let mut body = vec![0.0; n];
    for &x in &slots[..2] {
        body[at(x)] = 0.3;
    }
    // The slots lie two spacings or more apart, beyond each other's kernel, so each has
    // only its own pair sums.
    let sums: Vec<Vec3A> = press.iter().map(|&pr| WallPairs::own(pr)).collect();
    let mut dx = vec![Vec3A::ZERO; n];
    add_ghost_pressure(
        &p.pos, &press, &body, &walls, &k, 0.005, g, 1e-3, &sums, images, &mut dx, None,
    );
    // Gathering the walls' loads changes no displacement, and the loads are the opposite of
    // the momentum the pushes give the particles (mass 0.2 kg each, `dx / dt` each).
    let mut loads = WallLoads::new(&walls, 0.0025);
    let mut dx_loaded = vec![Vec3A::ZERO; n];
    let phase = vec![0u32; n];
    let masses = Masses {
        phase: &phase,
        mass: &[0.2],
    };
    add_ghost_pressure(
        &p.pos,
        &press,
        &body,
        &walls,
        &k,
        0.005,
        g,
        1e-3,
        &sums,
        images,
        &mut dx_loaded,
        Some((&mut loads, masses)),
    );
    assert_eq!(dx_loaded, dx);
    let total: glam::DVec3 = loads.impulses().iter().map(|l| l.0).sum();
    let momentum: glam::DVec3 = dx.iter().map(|d| d.as_dvec3() * 0.2 / 1e-3).sum();
    assert!(
        (total + momentum).length() <= 1e-6 * momentum.length(),
        "walls' loads {total} against the pushes' momentum {momentum}"
    );
    let dt2 = 1e-3f32 * 1e-3;
    let all = |x: Vec3A| k.push(&walls, 0.005, x, [50.0, 5.0], 50.0, 0.0, g) * dt2;
    // Under the upper body: the ghosts whose mirror images lie in it (above the slot) are
    // left out, so the wall pushes the slot away from itself and up, more than all of its
    // ghosts do.
    let (under, x) = (dx[at(slots[0])], slots[0]);
    let liquid = |m: Vec3A| images.liquid_at(x + m);
    let want = k.push_where(&walls, 0.005, x, [50.0, 5.0], 50.0, 0.0, g, 0, liquid) * dt2;
    assert_eq!(under, want);
    assert!(
        under.z > 0.0 && under.y > all(x).y + 1e-9,
        "{under} against {}",
        all(x)
    );
    assert!(images.films(&walls, 0.005, x, d) == 0);
    // On the floor under the lower body: the slot is in a film between the body and the
    // floor (`boundary::film` passes its pressure), and the floor does not push it.
    let film = slots[1];
    assert_eq!(images.films(&walls, 0.005, film, d), 1 << 2);
    assert_eq!(dx[at(film)], Vec3A::ZERO);
    assert!(all(film).y > 1e-9);
    // Far from the bodies: all of its ghosts.
    assert_eq!(dx[at(slots[2])], all(slots[2]));
}
