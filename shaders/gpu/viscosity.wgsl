// Viscosity impulses (Clavet et al. 2005, 5.3) gathered per particle: for each approaching
// neighbour, v_i -= dt (1-q) (sigma u + beta u^2) m_j/(m_i+m_j) r_hat.
@group(0) @binding(0) var<uniform> P: Params;
// pos: binding 1, in two parts (split.wgsl).
// cell_of: binding 2, in two parts (split.wgsl).
@group(0) @binding(3) var<storage, read> cell_start: array<u32>;
@group(0) @binding(4) var<storage, read> phases: array<Phase>;
// vel: binding 5, in two parts (split.wgsl).
// vel_out: binding 6, in two parts (split.wgsl).

// The pair term: the impulse of neighbour j at pj (w: phase) with velocity vj (before g) on
// particle i at xi with velocity vi (g added) and phase phi, added to `acc` when j is within h
// and approaching.
fn viscosity_pair(
    xi: vec3<f32>,
    vi: vec3<f32>,
    phi: Phase,
    pj: vec4<f32>,
    vj: vec3<f32>,
    g: vec3<f32>,
    acc: ptr<function, vec3<f32>>,
) {
    let r = pj.xyz - xi;
    let r2 = dot(r, r);
    if (r2 >= P.h * P.h) {
        return;
    }
    let d = sqrt(r2);
    let q = d / P.h;
    if (q >= 1.0 || d <= 0.0) {
        return;
    }
    let rhat = r / d;
    let u = dot(vi - (vj + g), rhat);
    if (u > 0.0) {
        let phj = phases[u32(pj.w)];
        let sigma = 0.5 * (phi.sigma + phj.sigma);
        let beta = 0.5 * (phi.beta + phj.beta);
        let w = phj.mass / (phi.mass + phj.mass);
        *acc = *acc - rhat * (P.dt * (1.0 - q) * (sigma * u + beta * u * u) * w);
    }
}

// The impulses on particle i, on velocities v + g (g: zero, or the step's g dt).
fn viscosity(i: u32, g: vec3<f32>) {
    let pi = pos_get(i);
    let xi = pi.xyz;
    let vi = vel_get(i).xyz + g;
    let phi = phases[u32(pi.w)];
    var acc = vec3<f32>(0.0);
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
            viscosity_pair(xi, vi, phi, pos_get(j), vel_get(j).xyz, g, &acc);
        }
    }
    vel_out_set(i, vec4<f32>(vi + acc, vel_get(i).w));
}

@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let i = linear_id(gid, nwg);
    if (i >= P.n) {
        return;
    }
    viscosity(i, vec3<f32>(0.0));
}

// Gravity first (v += g dt, as its own pass would add it to every velocity), then viscosity.
@compute @workgroup_size(256)
fn with_gravity(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let i = linear_id(gid, nwg);
    if (i >= P.n) {
        return;
    }
    viscosity(i, P.gravity_dt);
}

// The neighbours' positions and velocities, one chunk of a row at a time (tile.wgsl).
var<workgroup> viscosity_pos: array<vec4<f32>, TILE>;
var<workgroup> viscosity_vel: array<vec4<f32>, TILE>;

// The tiled walk of the segment of workgroup `wid` (tile.wgsl), on velocities v + g: the same
// pairs in the same order as `viscosity`.
fn viscosity_tiled(li: u32, wid: vec3<u32>, nwg: vec3<u32>, g: vec3<f32>) {
    let seg = tile_segment(li, wid, nwg);
    let rows = block_rows(seg.blk);
    for (var first = seg.slots.x; first < seg.slots.y; first = first + TILE_WG) {
        let i = first + li;
        let live = i < seg.slots.y;
        var pi = vec4<f32>(0.0);
        var vi4 = vec4<f32>(0.0);
        var phi = phases[0];
        var own = seg.blk;
        if (live) {
            pi = pos_get(i);
            vi4 = vel_get(i);
            phi = phases[u32(pi.w)];
            own = block_around_cell(cell_of_get(i));
        }
        let vi = vi4.xyz + g;
        var acc = vec3<f32>(0.0);
        for (var k = 0u; k < rows; k = k + 1u) {
            let run = tile_row(k);
            let mine = tile_mine(live, own, k);
            for (var c0 = run.x; c0 < run.y; c0 = c0 + TILE) {
                let count = min(run.y - c0, TILE);
                for (var t = li; t < count; t = t + TILE_WG) {
                    viscosity_pos[t] = pos_get(c0 + t);
                    viscosity_vel[t] = vel_get(c0 + t);
                }
                workgroupBarrier();
                let end = min(mine.y, c0 + TILE);
                for (var j = max(mine.x, c0); j < end; j = j + 1u) {
                    if (j == i) {
                        continue;
                    }
                    let t = j - c0;
                    viscosity_pair(pi.xyz, vi, phi, viscosity_pos[t], viscosity_vel[t].xyz, g, &acc);
                }
                workgroupBarrier();
            }
        }
        if (live) {
            vel_out_set(i, vec4<f32>(vi + acc, vi4.w));
        }
    }
}

// Tiled `main`.
@compute @workgroup_size(64)
fn tiled(
    @builtin(local_invocation_index) li: u32,
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(num_workgroups) nwg: vec3<u32>,
) {
    viscosity_tiled(li, wid, nwg, vec3<f32>(0.0));
}

// Tiled `with_gravity`.
@compute @workgroup_size(64)
fn tiled_with_gravity(
    @builtin(local_invocation_index) li: u32,
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(num_workgroups) nwg: vec3<u32>,
) {
    viscosity_tiled(li, wid, nwg, P.gravity_dt);
}
