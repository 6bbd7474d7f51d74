//! The structured form against its densified matrix.
use sphrigid::lcp::io::{ProblemFile, parse, to_json};
use sphrigid::lcp::sample::{SampleSpec, liquid_on_boxes};
use sphrigid::lcp::{
    Options, Outcome, StructuredProblem, StructuredRow, block_pivot, body_inverse_mass, dantzig,
    lemke,
};

fn spec(liquid: usize, bodies: usize, rigid: usize, shared: usize, seed: u64) -> SampleSpec {
    SampleSpec {
        liquid_contacts: liquid,
        bodies,
        rigid_contacts: rigid,
        friction: false,
        shared_particles: shared,
        seed,
    }
}

fn max_abs(v: &[f64]) -> f64 {
    v.iter().fold(0.0, |m, x| m.max(x.abs()))
}

#[test]
fn structured_w_equals_dense_w() {
    let p = liquid_on_boxes(&spec(60, 3, 6, 5, 7));
    let d = p.to_dense();
    assert!(d.m.is_symmetric(1e-14));
    let z: Vec<f64> = (0..p.len()).map(|i| ((i * 37) % 11) as f64 * 0.1).collect();
    let ws = p.w(&z);
    let wd = d.w(&z);
    let scale = max_abs(&wd);
    for (a, b) in ws.iter().zip(&wd) {
        assert!((a - b).abs() <= 1e-12 * scale);
    }
}

#[test]
fn liquid_only_problems_match_dense_lemke() {
    for (liquid, bodies, shared) in [(150, 1, 0), (200, 2, 0), (300, 4, 10), (400, 8, 20)] {
        for seed in 0..3 {
            let p = liquid_on_boxes(&spec(liquid, bodies, 0, shared, seed));
            let s = block_pivot(&p, &Options::default()).unwrap();
            let l = lemke(&p.to_dense(), &Options::default()).unwrap();
            assert_eq!(s.outcome, Outcome::Solved);
            assert_eq!(l.outcome, Outcome::Solved);
            assert!(s.residuals.relative() < 1e-9, "{:?}", s.residuals);
            // D > 0 makes A positive definite: one solution.
            let scale = max_abs(&l.z);
            assert!(scale > 0.0);
            for (a, b) in s.z.iter().zip(&l.z) {
                assert!((a - b).abs() <= 1e-9 * scale, "{a} vs {b}");
            }
            // A non-trivial active set.
            let active = s.z.iter().filter(|&&z| z > 0.0).count();
            assert!(active > 0 && active < p.len());
        }
    }
}

#[test]
fn rigid_rows_are_coupled_exactly() {
    for (liquid, bodies, rigid, shared) in [(100, 1, 4, 0), (200, 3, 12, 10), (300, 4, 30, 0)] {
        for seed in 0..3 {
            let p = liquid_on_boxes(&spec(liquid, bodies, rigid, shared, seed));
            let s = block_pivot(&p, &Options::default()).unwrap();
            let d = p.to_dense();
            let l = lemke(&d, &Options::default()).unwrap();
            let g = dantzig(&d, &Options::default()).unwrap();
            assert_eq!(s.outcome, Outcome::Solved);
            assert_eq!(l.outcome, Outcome::Solved);
            assert_eq!(g.outcome, Outcome::Solved);
            // Verify against the dense matrix, not only the structured w.
            let w = d.w(&s.z);
            let r = sphrigid::lcp::Residuals::compute(
                &s.z,
                &w,
                &d.lo,
                &d.hi,
                max_abs(&d.q).max(d.m.norm_inf() * max_abs(&s.z)),
            );
            assert!(r.relative() < 1e-9, "{r:?}");
            // Rigid rows make A only semi-definite: compare w, and the body velocities,
            // which are unique.
            let ws = max_abs(&d.q);
            for (a, b) in w.iter().zip(&l.w) {
                assert!((a - b).abs() <= 1e-9 * ws, "{a} vs {b}");
            }
            let fs = p.body_velocity(&s.z);
            let fl = p.body_velocity(&l.z);
            let fg = p.body_velocity(&g.z);
            let fscale = max_abs(&fl).max(1e-300);
            for i in 0..fs.len() {
                assert!((fs[i] - fl[i]).abs() <= 1e-9 * fscale);
                assert!((fg[i] - fl[i]).abs() <= 1e-9 * fscale);
            }
        }
    }
}

/// Give every `every`-th liquid row on a body in `pairs` a second body term, so that it
/// couples two bodies (a particle squeezed between them): H then joins those bodies.
fn squeeze(p: &mut StructuredProblem, pairs: &[(usize, usize)], every: usize) -> Vec<usize> {
    let mut squeezed = vec![];
    for i in 0..p.len() {
        let row = &p.rows[i];
        let Some(first) = row.bodies[0] else { continue };
        if row.particle.is_none() || row.bodies[1].is_some() || i % every != 0 {
            continue;
        }
        let Some(&(_, other)) = pairs.iter().find(|(a, _)| *a == first.body) else {
            continue;
        };
        let j = first.j;
        let j2 = [-j[0], -j[1], -j[2], 0.3 * j[4], -0.2 * j[5], 0.1 * j[3]];
        p.rows[i] = row.clone().with_body(other, j2);
        squeezed.push(i);
    }
    squeezed
}

#[test]
fn liquid_rows_on_two_bodies_join_their_groups() {
    // Bodies 0-1 and 2-3 joined (two groups of two), or 0-1-2 (one group of three and one
    // alone), with and without rigid rows carrying friction.
    type Joined = &'static [(usize, usize)];
    let cases: [(Joined, usize, bool); 4] = [
        (&[(0, 1), (2, 3)], 0, false),
        (&[(0, 1), (1, 2)], 0, false),
        (&[(0, 1), (2, 3)], 8, false),
        (&[(1, 2), (2, 0)], 8, true),
    ];
    for (pairs, rigid, friction) in cases {
        for seed in 0..2 {
            let mut sp = spec(240, 4, rigid, 0, seed);
            sp.friction = friction;
            let mut p = liquid_on_boxes(&sp);
            let squeezed = squeeze(&mut p, pairs, 5);
            assert!(squeezed.len() > 10);
            let s = block_pivot(&p, &Options::default()).unwrap();
            assert_eq!(s.outcome, Outcome::Solved);
            assert!(s.residuals.relative() < 1e-9, "{:?}", s.residuals);
            assert!(
                squeezed.iter().any(|&i| s.z[i] > 0.0),
                "no squeezed row active"
            );
            let d = p.to_dense();
            let g = dantzig(&d, &Options::default()).unwrap();
            assert_eq!(g.outcome, Outcome::Solved);
            // w and the body velocities are unique even where z is not.
            let w = d.w(&s.z);
            let ws = max_abs(&d.q);
            for (a, b) in w.iter().zip(&g.w) {
                assert!((a - b).abs() <= 1e-9 * ws, "{a} vs {b}");
            }
            let fs = p.body_velocity(&s.z);
            let fg = p.body_velocity(&g.z);
            let fscale = max_abs(&fg).max(1e-300);
            for (a, b) in fs.iter().zip(&fg) {
                assert!((a - b).abs() <= 1e-9 * fscale, "{a} vs {b}");
            }
        }
    }
}

#[test]
fn ten_thousand_contacts_on_four_bodies_in_few_newton_steps() {
    let p = liquid_on_boxes(&spec(10_000, 4, 0, 0, 42));
    let s = block_pivot(&p, &Options::default()).unwrap();
    assert_eq!(s.outcome, Outcome::Solved);
    assert!(s.residuals.relative() < 1e-9, "{:?}", s.residuals);
    assert!(s.residuals.complementarity <= 1e-9 * s.residuals.z_scale * s.residuals.w_scale);
    assert!(s.iterations <= 10, "{} iterations", s.iterations);
    assert_eq!(s.pivots, 0);
}

#[test]
fn an_infeasible_structured_problem_is_reported() {
    // A joint row on a body with a wall row pushing it the other way: a free row with no
    // coupling at all cannot make w = 0 when q != 0.
    let mut p = StructuredProblem {
        body_inv_mass: vec![body_inverse_mass(
            2.0,
            [1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0],
        )],
        particle_inv_mass: vec![],
        rows: vec![StructuredRow::contact(-1.0).with_bounds(f64::NEG_INFINITY, f64::INFINITY)],
    };
    let s = block_pivot(&p, &Options::default()).unwrap();
    assert_ne!(s.outcome, Outcome::Solved);
    p.rows[0] = p.rows[0]
        .clone()
        .with_body(0, [1.0, 0.0, 0.0, 0.0, 0.0, 0.0]);
    let s = block_pivot(&p, &Options::default()).unwrap();
    assert_eq!(s.outcome, Outcome::Solved);
    assert!((s.z[0] - 2.0).abs() < 1e-14, "{:?}", s.z);
}

#[test]
fn bad_structured_input_names_the_place() {
    let mut p = liquid_on_boxes(&spec(5, 1, 0, 0, 1));
    p.rows[3].bodies[0].as_mut().unwrap().body = 9;
    let e = block_pivot(&p, &Options::default()).unwrap_err();
    assert!(matches!(e, sphrigid::Error::Input(_)));
    assert!(e.to_string().contains("rows[3]"), "{e}");
    let mut p = liquid_on_boxes(&spec(5, 1, 0, 0, 1));
    p.body_inv_mass[0][0] = -1.0;
    let e = block_pivot(&p, &Options::default()).unwrap_err();
    assert!(e.to_string().contains("bodies[0]"), "{e}");
}

#[test]
fn structured_json_round_trips() {
    let mut sp = spec(30, 2, 4, 3, 9);
    sp.friction = true;
    let p = liquid_on_boxes(&sp);
    let text = to_json(&ProblemFile::Structured(p.clone()));
    match parse(&text, "mem").unwrap() {
        ProblemFile::Structured(back) => assert_eq!(back, p),
        ProblemFile::Dense(_) => panic!("read back as dense"),
    }
}

#[test]
fn contacts_with_static_bodies_decouple() {
    // Liquid rows with no dynamic body: z_i = max(0, -q_i / D_ii).
    let p = StructuredProblem {
        body_inv_mass: vec![],
        particle_inv_mass: vec![2.0, 4.0, 8.0],
        rows: vec![
            StructuredRow::contact(-1.0).with_particle(0, [0.0, 0.0, 1.0]),
            StructuredRow::contact(0.5).with_particle(1, [1.0, 0.0, 0.0]),
            StructuredRow::contact(-3.0).with_particle(2, [0.0, 0.6, 0.8]),
        ],
    };
    let s = block_pivot(&p, &Options::default()).unwrap();
    assert_eq!(s.outcome, Outcome::Solved);
    assert_eq!(s.z, vec![0.5, 0.0, 3.0 / 8.0]);
    assert_eq!(s.w, vec![0.0, 0.5, 0.0]);
    let empty = block_pivot(&StructuredProblem::default(), &Options::default()).unwrap();
    assert_eq!(empty.outcome, Outcome::Solved);
    assert!(empty.z.is_empty());
}
