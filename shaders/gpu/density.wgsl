// Kernel sums rho = sum (1-q)^2 and rho_near = sum (1-q)^3 over the 27 cells around each
// particle, plus the boundary's: the body boundary particles binned in the same cells (weighted
// by their volume), and the six walls' ghost lattice from its table; then the particle's
// pressure and near pressure (pressure clamped at zero without cohesion). They go out as one
// vec4 (P, P_near, the bodies' kernel sum, kernel sum) into the velocity buffer, free between
// the grid build's gather and the velocity update (which keeps w, the kernel sum, for the
// download); the relaxation gives the walls' push only where the bodies' sum is zero.
@group(0) @binding(0) var<uniform> P: Params;
// pos: binding 1, in two parts (split.wgsl).
// cell_of: binding 2, in two parts (split.wgsl).
@group(0) @binding(3) var<storage, read> cell_start: array<u32>;
@group(0) @binding(4) var<storage, read> phases: array<Phase>;
// press: binding 5, in two parts (split.wgsl).
@group(0) @binding(6) var<storage, read> wall_table: array<vec2<f32>>;
@group(0) @binding(7) var<storage, read> boundary_start: array<u32>;
@group(0) @binding(8) var<storage, read> boundary: array<vec4<f32>>;

// The walls' table at distance y from a wall plane (linear between entries; a particle past
// the plane counts as on it), as WallKernel::at.
fn wall_at(y: f32) -> vec2<f32> {
    let t = (max(y, 0.0) / P.h) * f32(P.wall_samples);
    if (t >= f32(P.wall_samples)) {
        return vec2<f32>(0.0);
    }
    let k = u32(t);
    let f = t - f32(k);
    let a = wall_table[k];
    let b = wall_table[k + 1u];
    return a + (b - a) * f;
}

// The walls' kernel sums ghost by ghost (as WallKernel::sums_once, with ghost pressure): the
// ghost lattice of every wall within h, a ghost beyond two walls counted in the first's.
fn wall_sums_once(xi: vec3<f32>) -> vec2<f32> {
    var g = ghost_walk(xi);
    var out = vec2<f32>(0.0);
    loop {
        let ghost = ghost_next(&g);
        if (ghost.w < 0.0) {
            break;
        }
        let q = ghost.w;
        out = out + vec2<f32>(q * q, q * q * q);
    }
    return out;
}

// The pair term of the liquid's kernel sums: (1-q)^2 and (1-q)^3 of the neighbour at xj,
// added to `sums` when it is within h.
fn density_pair(xi: vec3<f32>, xj: vec3<f32>, sums: ptr<function, vec2<f32>>) {
    let r = xj - xi;
    let r2 = dot(r, r);
    if (r2 >= P.h * P.h) {
        return;
    }
    let a = 1.0 - sqrt(r2) * P.inv_h;
    if (a > 0.0) {
        let a2 = a * a;
        *sums = *sums + vec2<f32>(a2, a2 * a);
    }
}

// The boundary's sums added to the liquid's `sums` of particle i at pi, then its pressures.
fn density_end(i: u32, pi: vec4<f32>, sums: vec2<f32>) {
    let xi = pi.xyz;
    let blk = block_around_cell(cell_of_get(i));
    // The boundary's sums, in the CPU's order: bodies (over the same rows), then the walls
    // lo x, hi x, lo y, hi y, lo z, hi z, added to the liquid's at the end.
    var b = vec2<f32>(0.0);
    if (P.n_boundary > 0u) {
        b = body_sums(xi, blk);
    }
    let body = b.x;
    if ((P.flags & GHOST_PRESSURE) != 0u) {
        b = b + wall_sums_once(xi);
    } else if ((P.flags & WALLS) != 0u) {
        var w = vec2<f32>(0.0);
        for (var ax = 0u; ax < 3u; ax = ax + 1u) {
            let ylo = xi[ax] - P.wall_lo[ax] + P.half_spacing;
            if (ylo < P.h) {
                w = w + wall_at(ylo);
            }
            let yhi = P.wall_hi[ax] + P.half_spacing - xi[ax];
            if (yhi < P.h) {
                w = w + wall_at(yhi);
            }
        }
        b = b + w;
    }
    let s = sums.x + b.x;
    let sn = sums.y + b.y;
    let ph = phases[u32(pi.w)];
    var p = ph.k_eff * (s - P.rho0);
    if (ph.cohesion == 0.0) {
        p = max(p, 0.0);
    }
    press_set(i, vec4<f32>(p, ph.k_near_eff * sn, body, s));
}

// Untiled: one invocation per particle, reading its neighbours from the buffers.
@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let i = linear_id(gid, nwg);
    if (i >= P.n) {
        return;
    }
    let pi = pos_get(i);
    var sums = vec2<f32>(0.0);
    let blk = block_around_cell(cell_of_get(i));
    let rows = block_rows(blk);
    for (var row = 0u; row < rows; row = row + 1u) {
        // The cells of a row are contiguous: one run of slots.
        let cells = block_row(blk, row);
        let start = cell_start[cells.x];
        let end = cell_start[cells.y];
        for (var j = start; j < end; j = j + 1u) {
            if (j == i) {
                continue;
            }
            density_pair(pi.xyz, pos_get(j).xyz, &sums);
        }
    }
    density_end(i, pi, sums);
}

// The neighbours' positions, one chunk of a row at a time (tile.wgsl).
var<workgroup> density_tile: array<vec4<f32>, TILE>;

// Tiled: one workgroup per segment of a grid row, the neighbours read through workgroup
// memory (tile.wgsl); the same pairs in the same order as `main`.
@compute @workgroup_size(64)
fn tiled(
    @builtin(local_invocation_index) li: u32,
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(num_workgroups) nwg: vec3<u32>,
) {
    let seg = tile_segment(li, wid, nwg);
    let rows = block_rows(seg.blk);
    for (var first = seg.slots.x; first < seg.slots.y; first = first + TILE_WG) {
        let i = first + li;
        let live = i < seg.slots.y;
        var pi = vec4<f32>(0.0);
        var own = seg.blk;
        if (live) {
            pi = pos_get(i);
            own = block_around_cell(cell_of_get(i));
        }
        var sums = vec2<f32>(0.0);
        for (var k = 0u; k < rows; k = k + 1u) {
            let run = tile_row(k);
            let mine = tile_mine(live, own, k);
            for (var c0 = run.x; c0 < run.y; c0 = c0 + TILE) {
                let count = min(run.y - c0, TILE);
                for (var t = li; t < count; t = t + TILE_WG) {
                    density_tile[t] = pos_get(c0 + t);
                }
                workgroupBarrier();
                let end = min(mine.y, c0 + TILE);
                for (var j = max(mine.x, c0); j < end; j = j + 1u) {
                    if (j == i) {
                        continue;
                    }
                    density_pair(pi.xyz, density_tile[j - c0].xyz, &sums);
                }
                workgroupBarrier();
            }
        }
        if (live) {
            density_end(i, pi, sums);
        }
    }
}
