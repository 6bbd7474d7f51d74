// Double-density relaxation in gather (Jacobi) form: each particle sums its own displacement
// dx_i = -dt^2 sum_j m_j/(m_i+m_j) [(P_i+P_j)(1-q) + (Pn_i+Pn_j)(1-q)^2] r_hat_ij (pressures
// as the density pass leaves them: x and y of a vec4), plus the walls' push: their ghosts carry
// the particle's own pressures and the hydrostatic gradient (WallKernel::push).
@group(0) @binding(0) var<uniform> P: Params;
// pos: binding 1, in two parts (split.wgsl).
// cell_of: binding 2, in two parts (split.wgsl).
@group(0) @binding(3) var<storage, read_write> cell_start: array<u32>;
@group(0) @binding(4) var<storage, read_write> phases: array<Phase>;
// press: binding 5, in two parts (split.wgsl).
// pos_out: binding 6, in two parts (split.wgsl).
@group(0) @binding(7) var<storage, read_write> wall_table: array<vec2<f32>>;

// Part `part` of the walls' table at distance y from a wall plane: 1 the push sums, 2 the
// hydrostatic sums, each wall_samples + 1 entries after the kernel sums (as WallKernel::push_at,
// WallKernel::moment_at).
fn wall_part_at(part: u32, y: f32) -> vec2<f32> {
    let t = (max(y, 0.0) / P.h) * f32(P.wall_samples);
    if (t >= f32(P.wall_samples)) {
        return vec2<f32>(0.0);
    }
    let k = part * (P.wall_samples + 1u) + u32(t);
    let f = t - f32(u32(t));
    let a = wall_table[k];
    let b = wall_table[k + 1u];
    return a + (b - a) * f;
}

@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let i = linear_id(gid, nwg);
    if (i >= P.n) {
        return;
    }
    let pi = pos_get(i);
    let xi = pi.xyz;
    let pr = press_get(i).xy;
    let mi = phases[u32(pi.w)].mass;
    var acc = vec3<f32>(0.0);
    let blk = block_around_cell(cell_of_get(i));
    let rows = block_rows(blk);
    let h2 = P.h * P.h;
    for (var row = 0u; row < rows; row = row + 1u) {
        // The cells of a row are contiguous: one run of slots.
        let cells = block_row(blk, row);
        let start = cell_start[cells.x];
        let end = cell_start[cells.y];
        for (var j = start; j < end; j = j + 1u) {
            if (j == i) {
                continue;
            }
            let r = pos_get(j).xyz - xi;
            let r2 = dot(r, r);
            if (r2 >= h2) {
                continue;
            }
            let d = sqrt(r2);
            let a = 1.0 - d / P.h;
            if (a <= 0.0 || d <= 0.0) {
                continue;
            }
            let pj = press_get(j).xy;
            var w = 0.5;
            if (P.uniform_mass == 0u) {
                let mj = phases[u32(pos_get(j).w)].mass;
                w = mj / (mi + mj);
            }
            let mag = (pr.x + pj.x) * a + (pr.y + pj.y) * a * a;
            acc = acc - r * (mag * w / d);
        }
    }
    var dx = acc * (P.dt * P.dt);
    if ((P.has_walls & 2u) != 0u) {
        var push = vec3<f32>(0.0);
        let grav = P.gravity_dt * P.inv_dt;
        for (var ax = 0u; ax < 3u; ax = ax + 1u) {
            let ylo = xi[ax] - P.wall_lo[ax] + P.half_spacing;
            if (ylo < P.h) {
                let g = wall_part_at(1u, ylo);
                let m = wall_part_at(2u, ylo);
                var mv = vec3<f32>(m.y);
                mv[ax] = m.x;
                push[ax] = push[ax] + (pr.x * g.x + pr.y * g.y);
                push = push - mv * grav;
            }
            let yhi = P.wall_hi[ax] + P.half_spacing - xi[ax];
            if (yhi < P.h) {
                let g = wall_part_at(1u, yhi);
                let m = wall_part_at(2u, yhi);
                var mv = vec3<f32>(m.y);
                mv[ax] = m.x;
                push[ax] = push[ax] - (pr.x * g.x + pr.y * g.y);
                push = push - mv * grav;
            }
        }
        dx = dx + push * (P.dt * P.dt);
    }
    pos_out_set(i, vec4<f32>(xi + dx, pi.w));
}
