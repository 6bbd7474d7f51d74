//! The GPU's body-contact passes against their CPU twins on the same input: the contact
//! search's pairs exactly, each contact's liquid state bit for bit, the impulses and the
//! push-out (the liquid passes' fixtures from [`super::gpu_passes`]).
use super::common::gpu as gpu_common;
use super::gpu_passes::{DT, max_abs_diff, setup_grid};
use crate::gpu::contacts::{self, BodyParticle};
use glam::Vec3A;

#[test]
fn contacts_match_their_cpu_twin() {
    let _serial = gpu_common::serial();
    let Some((mut gpu, s, grid, params)) = setup_grid(true) else {
        return;
    };
    // A ball of body particles (radius 0.3 spacing) inside the first block.
    let r = 0.3 * params.spacing;
    let c = Vec3A::new(0.04, 0.04, 0.03);
    let mut body = Vec::new();
    for i in -6..=6 {
        for j in -6..=6 {
            for k in -6..=6 {
                let x = c + Vec3A::new(i as f32, j as f32, k as f32) * (2.0 * r);
                if (x - c).length() < 0.015 {
                    body.push(BodyParticle { pos: x, radius: r });
                }
            }
        }
    }
    let got = gpu.find_contacts(&body).unwrap();
    let want = contacts::cpu_twin(&s, &grid, params.spacing / 2.0, &body);
    assert!(want.len() > 100, "only {} contacts", want.len());
    let key = |v: &[contacts::Contact]| -> Vec<(u32, u32)> {
        v.iter().map(|c| (c.liquid_id, c.body_particle)).collect()
    };
    assert_eq!(key(&got), key(&want), "contact pairs differ");
    for (a, b) in got.iter().zip(&want) {
        assert!(
            (a.distance - b.distance).abs() <= 1e-7,
            "distance {a:?} vs {b:?}"
        );
        // Each contact carries the liquid particle's state, bit for bit.
        assert_eq!(
            (a.slot, a.pos, a.vel, a.phase, a.rho.to_bits()),
            (b.slot, b.pos, b.vel, b.phase, b.rho.to_bits())
        );
    }
    // A search reaching several cells (as the films' near the walls) finds the same pairs.
    let wide: Vec<BodyParticle> = body
        .iter()
        .step_by(40)
        .map(|b| BodyParticle {
            pos: b.pos,
            radius: 2.5 * params.h,
        })
        .collect();
    let got = gpu.find_contacts(&wide).unwrap();
    let want = contacts::cpu_twin(&s, &grid, params.spacing / 2.0, &wide);
    assert!(want.len() > 200, "only {} pairs", want.len());
    assert_eq!(key(&got), key(&want), "wide pairs differ");
    // Too large a body particle for the grid search is refused, not missed.
    let big = [BodyParticle {
        pos: c,
        radius: 4.0 * params.h,
    }];
    assert!(gpu.find_contacts(&big).is_err());
}

/// The search keeps its buffers from call to call and brings down only about as many pairs
/// as the last searches found: a list that outgrows its buffer, or the part brought down,
/// must still come down whole, and a short list after a long one must not keep stale pairs.
#[test]
fn contact_searches_of_changing_size_each_find_every_pair() {
    let _serial = gpu_common::serial();
    let Some((mut gpu, s, grid, params)) = setup_grid(true) else {
        return;
    };
    let c = Vec3A::new(0.04, 0.04, 0.03);
    let ring = |n: usize, radius: f32| -> Vec<BodyParticle> {
        (0..n)
            .map(|i| {
                let a = i as f32 * 0.7;
                BodyParticle {
                    pos: c + 0.01 * Vec3A::new(a.cos(), a.sin(), (0.3 * a).sin()),
                    radius,
                }
            })
            .collect()
    };
    let tiny = ring(2, 0.3 * params.spacing);
    // Each body particle reaches 2.5 kernel radii: hundreds of pairs each, far past the 4
    // per body particle (at least 1,024 in all) the first buffer holds.
    let wide = ring(40, 2.5 * params.h);
    let half = ring(20, 2.5 * params.h);
    let key = |v: &[contacts::Contact]| -> Vec<(u32, u32, u32)> {
        v.iter()
            .map(|c| (c.liquid_id, c.body_particle, c.slot))
            .collect()
    };
    let count = |b: &[BodyParticle]| contacts::cpu_twin(&s, &grid, params.spacing / 2.0, b).len();
    let (n_tiny, n_wide, n_half) = (count(&tiny), count(&wide), count(&half));
    assert!(n_tiny > 0, "the tiny search finds nothing");
    assert!(
        n_wide > 1024.max(4 * wide.len()),
        "only {n_wide} wide pairs"
    );
    assert!(
        n_half > 2 * n_tiny + 1024,
        "the half search ({n_half} pairs) fits what two tiny ones bring down"
    );
    for (what, body) in [
        ("tiny, first", &tiny),
        ("wide, outgrowing the buffer", &wide),
        ("tiny after wide", &tiny),
        ("tiny again", &tiny),
        ("half, past what is brought down", &half),
        ("wide again", &wide),
    ] {
        let got = gpu.find_contacts(body).unwrap();
        let want = contacts::cpu_twin(&s, &grid, params.spacing / 2.0, body);
        assert_eq!(key(&got), key(&want), "{what}: pairs differ");
    }
}

/// With the bodies' particles grouped into bodies, each liquid particle that one body reaches
/// comes down once (one that two reach can come more often, as their claims interleave), and
/// together they are exactly the (particle, body) pairs of the CPU twin's pairs.
#[test]
fn contacts_come_once_per_liquid_particle_and_body() {
    let _serial = gpu_common::serial();
    let Some((mut gpu, s, grid, params)) = setup_grid(true) else {
        return;
    };
    // Two overlapping balls of body particles, each particle reaching a kernel radius: most
    // liquid particles near them are reached by many particles of one body, some by both.
    let mut body = Vec::new();
    let mut owner = Vec::new();
    for (o, c) in [Vec3A::new(0.040, 0.04, 0.03), Vec3A::new(0.052, 0.04, 0.03)]
        .into_iter()
        .enumerate()
    {
        for i in -4..=4 {
            for j in -4..=4 {
                for k in -4..=4 {
                    let x = c + Vec3A::new(i as f32, j as f32, k as f32) * params.spacing;
                    if (x - c).length() < 0.008 {
                        body.push(BodyParticle {
                            pos: x,
                            radius: params.h - params.spacing / 2.0,
                        });
                        owner.push(o as u32);
                    }
                }
            }
        }
    }
    let mut got = Vec::new();
    gpu.find_contacts_unsorted(&body, &owner, &mut got).unwrap();
    let pairs = contacts::cpu_twin(&s, &grid, params.spacing / 2.0, &body);
    let mut want: Vec<(u32, u32)> = pairs
        .iter()
        .map(|c| (c.liquid_id, owner[c.body_particle as usize]))
        .collect();
    want.sort_unstable();
    want.dedup();
    let both = want.windows(2).filter(|w| w[0].0 == w[1].0).count();
    assert!(both > 10, "only {both} particles near both bodies");
    assert!(
        pairs.len() > 3 * want.len(),
        "{} pairs for {} (particle, body): too few repeats to test",
        pairs.len(),
        want.len()
    );
    let mut seen: Vec<(u32, u32)> = got
        .iter()
        .map(|c| (c.liquid_id, owner[c.body_particle as usize]))
        .collect();
    seen.sort_unstable();
    let listed = seen.len();
    seen.dedup();
    assert_eq!(seen, want, "the (particle, body) pairs differ");
    // A particle that one body alone reaches is listed exactly once; repeats come only from
    // particles both bodies reach, whose claims can interleave on a parallel device.
    let near_one = |id: u32| want.iter().filter(|w| w.0 == id).count() == 1;
    let mut ids: Vec<u32> = got.iter().map(|c| c.liquid_id).collect();
    ids.sort_unstable();
    for run in ids.chunk_by(|a, b| a == b) {
        if near_one(run[0]) {
            assert_eq!(
                run.len(),
                1,
                "particle {} listed {} times",
                run[0],
                run.len()
            );
        }
    }
    assert!(
        listed < pairs.len(),
        "{listed} listed, as many as the {} pairs",
        pairs.len()
    );
    // Each listed pair carries its liquid particle's state, and a body particle of its body
    // that reaches it.
    for c in &got {
        let b = &body[c.body_particle as usize];
        let j = c.slot as usize;
        assert_eq!((c.liquid_id, c.pos), (s.id[j], s.pos[j]));
        assert!((c.pos - b.pos).length() < b.radius + params.spacing / 2.0);
    }
}

#[test]
fn contact_impulses_match_their_cpu_twin() {
    let _serial = gpu_common::serial();
    let Some((mut gpu, s, _, params)) = setup_grid(true) else {
        return;
    };
    // Contacts with one body particle, then one summed impulse per touched liquid slot
    // (pushing it away from the body particle), as the LCP would send up.
    let c = Vec3A::new(0.04, 0.04, 0.03);
    let body = [BodyParticle {
        pos: c,
        radius: 0.5 * params.spacing,
    }];
    let found = gpu.find_contacts(&body).unwrap();
    assert!(found.len() >= 2, "only {} contacts", found.len());
    let dv: Vec<(u32, Vec3A)> = found
        .iter()
        .map(|k| {
            let n = (s.pos[k.slot as usize] - c).normalize();
            assert_eq!(s.id[k.slot as usize], k.liquid_id, "slot and id disagree");
            (k.slot, n * 0.1)
        })
        .collect();
    gpu.apply_impulses(&dv, DT).unwrap();
    let g = gpu.download().unwrap();
    let mut cpu = s.clone();
    crate::gpu::impulses::cpu_twin(&mut cpu, &dv, DT);
    assert_eq!(g.vel, cpu.vel, "velocities after the impulses differ");
    let d = max_abs_diff(&g.pos, &cpu.pos);
    assert!(d <= 1e-7, "positions after the impulses differ by {d} m");
    assert_ne!(g.pos, s.pos, "the impulses moved nothing");
    // An impulse given twice for one slot is refused.
    let twice = [(dv[0].0, Vec3A::X), (dv[0].0, Vec3A::Y)];
    assert!(gpu.apply_impulses(&twice, DT).is_err());
}

#[test]
fn push_out_matches_its_cpu_twin() {
    let _serial = gpu_common::serial();
    let Some((mut gpu, s, _, params)) = setup_grid(true) else {
        return;
    };
    // Move every third particle by a slot-dependent offset; velocities must not change.
    let dx: Vec<(u32, Vec3A)> = (0..s.len() as u32)
        .step_by(3)
        .map(|k| {
            (
                k,
                Vec3A::new(0.1, -0.2, 0.05) * params.spacing * (k % 7) as f32,
            )
        })
        .collect();
    gpu.push_out(&dx).unwrap();
    let g = gpu.download().unwrap();
    let mut cpu = s.clone();
    crate::gpu::push_out::cpu_twin(&mut cpu, &dx);
    assert_eq!(g.vel, s.vel, "push-out changed velocities");
    assert_eq!(g.pos, cpu.pos, "positions after the push-out differ");
    assert_ne!(g.pos, s.pos, "the push-out moved nothing");
    let twice = [(dx[0].0, Vec3A::X), (dx[0].0, Vec3A::Y)];
    assert!(gpu.push_out(&twice).is_err());
}
