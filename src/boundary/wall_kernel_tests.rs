//! The walls' ghost lattice's tests: the walk against a walk of each layer's whole square,
//! the mirror images, the push.
use super::*;

/// The ghosts within `h` of `x` walked over each layer's whole square of offsets, with the
/// "beyond an earlier wall" rule tested against every earlier wall.
fn square_walk(k: &WallKernel, walls: &Walls, hs: f32, x: Vec3A) -> Vec<(Vec3A, f32, f32)> {
    let (h, d) = (k.h, k.spacing);
    let y = plane_distances(walls, hs, x);
    let beyond = |e: usize, r: Vec3A| beyond_plane(&y, e, r);
    let n = (h / d).ceil() as i32;
    let mut out = Vec::new();
    for (w, &yw) in y.iter().enumerate() {
        if yw >= h {
            continue;
        }
        let (a, side) = (w / 2, if w % 2 == 0 { -1.0 } else { 1.0 });
        let (b, c) = ((a + 1) % 3, (a + 2) % 3);
        let mut l = 0;
        loop {
            let z = yw + (l as f32 + 0.5) * d;
            if z >= h {
                break;
            }
            for i in -n..=n {
                for j in -n..=n {
                    let mut r = Vec3A::ZERO;
                    r[a] = side * z;
                    r[b] = i as f32 * d;
                    r[c] = j as f32 * d;
                    let len = r.length();
                    let q = 1.0 - len / h;
                    if q > 0.0 && !(0..w).any(|e| beyond(e, r)) {
                        out.push((r, len, q));
                    }
                }
            }
            l += 1;
        }
    }
    out
}

#[test]
fn a_ghosts_mirror_image_lies_as_far_inside_each_wall_it_is_beyond() {
    let (d, h) = (0.01f32, 0.025f32);
    let k = WallKernel::new(d, h);
    let walls = Walls::bare(Vec3A::splat(0.005), Vec3A::splat(0.095));
    let mut corner = 0;
    for x in [
        Vec3A::new(0.005, 0.0071, 0.013),
        Vec3A::new(0.093, 0.006, 0.0899),
        Vec3A::new(0.05, 0.05, 0.0052),
    ] {
        let y = plane_distances(&walls, 0.005, x);
        k.for_each_ghost(&walls, 0.005, x, |r, _, _| {
            let m = mirror_offset(&y, r);
            let (ghost, image) = (x + r, x + m);
            let mut beyond = 0;
            for a in 0..3 {
                // The container's faces, half a spacing beyond the centres' planes.
                let (lo, hi) = (0.0, 0.1);
                if ghost[a] < lo || ghost[a] > hi {
                    beyond += 1;
                    let past = (lo - ghost[a]).max(ghost[a] - hi);
                    let inside = (image[a] - lo).min(hi - image[a]);
                    assert!((past - inside).abs() < 1e-6, "{x} {r}: {past} {inside}");
                } else {
                    assert_eq!(m[a], r[a]);
                }
            }
            assert!(beyond >= 1, "{x} {r}");
            corner += (beyond > 1) as usize;
        });
    }
    assert!(corner > 0, "no ghost beyond two walls");
}

#[test]
fn ghost_walk_visits_the_square_walks_ghosts_in_its_order_and_the_push_matches_it() {
    let d = 0.01f32;
    let walls = Walls::bare(Vec3A::splat(0.005), Vec3A::splat(0.095));
    let gravity = Vec3A::new(0.3, -9.81, 0.1);
    let mut most = 0;
    for ratio in [1.5f32, 2.0, 2.5, 3.0] {
        let k = WallKernel::new(d, ratio * d);
        // Faces, edges and corners, on and off the lattice, both sides of each axis.
        let offs = [0.0f32, 0.0031, 0.005, 0.0117, 0.0199, 0.0263, 0.05];
        for &ox in &offs {
            for &oy in &offs {
                for &oz in &offs {
                    let x = Vec3A::new(0.005 + ox, 0.095 - oy, 0.005 + oz);
                    let want = square_walk(&k, &walls, 0.005, x);
                    let mut got = Vec::new();
                    k.for_each_ghost(&walls, 0.005, x, |r, len, q| got.push((r, len, q)));
                    assert_eq!(got, want, "ratio {ratio} at {x}");
                    most = most.max(want.len());
                    // The push: two walks of the square walk's ghosts, bit for bit.
                    let (press, wall_press, moment) = ([120.0, 35.0], 90.0, 2.5e-3);
                    let grad = gravity * k.grad;
                    let gm = want.iter().fold(0.0f32, |m, &(r, len, q)| {
                        let g = grad.dot(r);
                        m + q * g * g / len
                    });
                    let s = support_share(k.moment * grad.length_squared(), moment, gm);
                    let push = want.iter().fold(Vec3A::ZERO, |o, &(r, len, q)| {
                        let pg = (wall_press + s * grad.dot(r)).max(0.0);
                        o - r * ((0.5 * (press[0] + pg) * q + press[1] * q * q) / len)
                    });
                    let got = k.push(&walls, 0.005, x, press, wall_press, moment, gravity);
                    assert_eq!(got, push, "ratio {ratio} at {x}");
                }
            }
        }
    }
    // Some corner outgrows the push's stack buffer, so the twice-walked path ran too.
    assert!(most > PUSH_GHOSTS, "at most {most} ghosts");
}
