//! The surface meets the container's walls: particles touching a wall are mirrored across it into
//! ghost particles before the reconstruction, so that the density field continues through the
//! wall instead of falling off half a spacing before it, and the vertices the mirrored liquid
//! puts beyond a wall are then clamped onto it (the mesh stays closed; the part of it in a
//! wall's plane is the liquid's contact face).

/// Ghost particles: each particle whose centre lies inside the box (`lo`, `hi`) within `reach`
/// of one or more walls is mirrored across each of those walls, and across each pair and triple
/// of them at edges and corners. Returns the ghosts' positions and, for each, the index of the
/// particle it mirrors. Particles outside the box have no ghosts.
pub fn mirror_ghosts(
    pos: &[[f32; 3]],
    lo: [f64; 3],
    hi: [f64; 3],
    reach: f64,
) -> (Vec<[f32; 3]>, Vec<u32>) {
    let mut ghosts = Vec::new();
    let mut source = Vec::new();
    for (i, p) in pos.iter().enumerate() {
        // Per axis: the coordinate itself and its mirror images across the walls within reach.
        let mut options: [[f64; 3]; 3] = [[0.0; 3]; 3];
        let mut counts = [1usize; 3];
        let mut inside = true;
        for a in 0..3 {
            let x = p[a] as f64;
            options[a][0] = x;
            let (d_lo, d_hi) = (x - lo[a], hi[a] - x);
            if d_lo < 0.0 || d_hi < 0.0 {
                inside = false;
                break;
            }
            if d_lo < reach {
                options[a][counts[a]] = 2.0 * lo[a] - x;
                counts[a] += 1;
            }
            if d_hi < reach {
                options[a][counts[a]] = 2.0 * hi[a] - x;
                counts[a] += 1;
            }
        }
        if !inside || counts == [1, 1, 1] {
            continue;
        }
        for ix in 0..counts[0] {
            for iy in 0..counts[1] {
                for iz in 0..counts[2] {
                    if ix + iy + iz == 0 {
                        continue;
                    }
                    ghosts.push([
                        options[0][ix] as f32,
                        options[1][iy] as f32,
                        options[2][iz] as f32,
                    ]);
                    source.push(i as u32);
                }
            }
        }
    }
    (ghosts, source)
}

/// Clamp every vertex into the box (`lo`, `hi`); returns for each vertex whether it moved.
pub fn clamp_into(vertices: &mut [[f32; 3]], lo: [f64; 3], hi: [f64; 3]) -> Vec<bool> {
    let (lo, hi) = (lo.map(|x| x as f32), hi.map(|x| x as f32));
    vertices
        .iter_mut()
        .map(|v| {
            let c = [0, 1, 2].map(|a| v[a].clamp(lo[a], hi[a]));
            let moved = c != *v;
            *v = c;
            moved
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_corner_particle_has_seven_ghosts_and_a_central_one_none() {
        let (g, s) = mirror_ghosts(&[[0.1, 0.1, 0.1], [0.5, 0.5, 0.5]], [0.0; 3], [1.0; 3], 0.2);
        assert_eq!(g.len(), 7);
        assert!(s.iter().all(|&i| i == 0));
        assert!(g.contains(&[-0.1, -0.1, -0.1]));
        assert!(g.contains(&[-0.1, 0.1, 0.1]));
    }

    #[test]
    fn clamping_moves_only_outside_vertices_onto_the_walls() {
        let mut v = [[0.5, -0.2, 0.5], [0.5, 0.5, 0.5], [1.5, 0.5, 2.0]];
        let moved = clamp_into(&mut v, [0.0; 3], [1.0; 3]);
        assert_eq!(moved, [true, false, true]);
        assert_eq!(v, [[0.5, 0.0, 0.5], [0.5, 0.5, 0.5], [1.0, 0.5, 1.0]]);
    }
}
