// The walls' ghost lattices one ghost at a time (src/gpu/ghosts.rs; the CPU's
// WallKernel::sums_once and WallKernel::push walk them in the same order), appended to the
// passes that sum or push with them. Wall w (x lo, x hi, y lo, y hi, z lo, z hi) has a cubic
// lattice of ghosts at spacing d filling the half-space beyond it, layer k at depth
// y_w + (k + 1/2) d below the particle; a ghost beyond two walls belongs to the first's lattice.

// Where a particle is in its walk over the ghosts.
struct GhostWalk {
    // The particle's distance to each wall's ghost plane, plus half a spacing.
    y: array<f32, 6>,
    // The wall, layer and lattice column of the next ghost to look at.
    w: u32,
    k: u32,
    i: i32,
    j: i32,
    // Columns -n..=n each way along the wall.
    n: i32,
}

// The walk over the ghosts of every wall around the particle at xi.
fn ghost_walk(xi: vec3<f32>) -> GhostWalk {
    let hs = P.half_spacing;
    let n = i32(ceil(P.h / (2.0 * hs)));
    let y = array<f32, 6>(
        xi.x - P.wall_lo.x + hs,
        P.wall_hi.x + hs - xi.x,
        xi.y - P.wall_lo.y + hs,
        P.wall_hi.y + hs - xi.y,
        xi.z - P.wall_lo.z + hs,
        P.wall_hi.z + hs - xi.z,
    );
    return GhostWalk(y, 0u, 0u, -n, -n, n);
}

// The next ghost within h of the particle, counted once: its offset from the particle (xyz)
// and 1 - |r|/h (w); w is -1 when the walk is over.
fn ghost_next(g: ptr<function, GhostWalk>) -> vec4<f32> {
    let d = 2.0 * P.half_spacing;
    let n = (*g).n;
    loop {
        let w = (*g).w;
        if (w >= 6u) {
            return vec4<f32>(0.0, 0.0, 0.0, -1.0);
        }
        let yw = (*g).y[w];
        let z = yw + (f32((*g).k) + 0.5) * d;
        if (z >= P.h) {
            (*g).w = w + 1u;
            (*g).k = 0u;
            (*g).i = -n;
            (*g).j = -n;
            continue;
        }
        let i = (*g).i;
        let j = (*g).j;
        if (j < n) {
            (*g).j = j + 1;
        } else if (i < n) {
            (*g).i = i + 1;
            (*g).j = -n;
        } else {
            (*g).k = (*g).k + 1u;
            (*g).i = -n;
            (*g).j = -n;
        }
        let a = w / 2u;
        var r = vec3<f32>(0.0);
        if ((w & 1u) == 0u) {
            r[a] = -z;
        } else {
            r[a] = z;
        }
        r[(a + 1u) % 3u] = f32(i) * d;
        r[(a + 2u) % 3u] = f32(j) * d;
        let q = 1.0 - length(r) / P.h;
        if (q <= 0.0) {
            continue;
        }
        var counted = false;
        for (var e = 0u; e < w; e = e + 1u) {
            let ra = r[e / 2u];
            let ye = (*g).y[e];
            if (((e & 1u) == 0u && ra < -ye) || ((e & 1u) == 1u && ra > ye)) {
                counted = true;
            }
        }
        if (!counted) {
            return vec4<f32>(r, q);
        }
    }
    return vec4<f32>(0.0, 0.0, 0.0, -1.0);
}
