// Double-density relaxation in gather (Jacobi) form: each particle sums its own displacement
// dx_i = -dt^2 sum_j m_j/(m_i+m_j) [(P_i+P_j)(1-q) + (Pn_i+Pn_j)(1-q)^2] r_hat_ij (pressures
// as the density pass leaves them: x and y of a vec4), plus the walls' push: their ghosts carry
// the particle's own pressures and the hydrostatic difference (WallKernel::push).
@group(0) @binding(0) var<uniform> P: Params;
// pos: binding 1, in two parts (split.wgsl).
// cell_of: binding 2, in two parts (split.wgsl).
@group(0) @binding(3) var<storage, read_write> cell_start: array<u32>;
@group(0) @binding(4) var<storage, read_write> phases: array<Phase>;
// press: binding 5, in two parts (split.wgsl).
// pos_out: binding 6, in two parts (split.wgsl).
@group(0) @binding(7) var<storage, read_write> wall_table: array<vec2<f32>>;

// The walls' push per dt^2 (as WallKernel::push): the pair terms with the ghosts of every wall
// within h, each carrying the particle's near pressure and the walls' pressure pw plus the
// hydrostatic difference to its place (gradient grad), clamped at zero; one beyond two walls
// counts in the first's lattice.
fn wall_push(xi: vec3<f32>, pr: vec2<f32>, pw: f32, grad: vec3<f32>) -> vec3<f32> {
    let hs = P.half_spacing;
    let d = 2.0 * hs;
    var y = array<f32, 6>(
        xi.x - P.wall_lo.x + hs,
        P.wall_hi.x + hs - xi.x,
        xi.y - P.wall_lo.y + hs,
        P.wall_hi.y + hs - xi.y,
        xi.z - P.wall_lo.z + hs,
        P.wall_hi.z + hs - xi.z,
    );
    let n = i32(ceil(P.h / d));
    var out = vec3<f32>(0.0);
    for (var w = 0u; w < 6u; w = w + 1u) {
        if (y[w] >= P.h) {
            continue;
        }
        let a = w / 2u;
        var side = 1.0;
        if ((w & 1u) == 0u) {
            side = -1.0;
        }
        let b = (a + 1u) % 3u;
        let c = (a + 2u) % 3u;
        for (var k = 0u; ; k = k + 1u) {
            let z = y[w] + (f32(k) + 0.5) * d;
            if (z >= P.h) {
                break;
            }
            for (var i = -n; i <= n; i = i + 1) {
                for (var j = -n; j <= n; j = j + 1) {
                    var r = vec3<f32>(0.0);
                    r[a] = side * z;
                    r[b] = f32(i) * d;
                    r[c] = f32(j) * d;
                    let len = length(r);
                    let q = 1.0 - len / P.h;
                    if (q <= 0.0) {
                        continue;
                    }
                    var counted = false;
                    for (var e = 0u; e < w; e = e + 1u) {
                        let lo = (e & 1u) == 0u;
                        let ra = r[e / 2u];
                        if ((lo && ra < -y[e]) || (!lo && ra > y[e])) {
                            counted = true;
                        }
                    }
                    if (counted) {
                        continue;
                    }
                    let pg = max(pw + dot(grad, r), 0.0);
                    out = out - r * ((0.5 * (pr.x + pg) * q + pr.y * q * q) / len);
                }
            }
        }
    }
    return out;
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
    // Within h of a wall that pushes: the walls' pressure, the liquid's around the particle
    // extrapolated to it, weighted (1-q)^2 (itself with weight 1), as add_wall_push. The entry
    // after the walls' kernel sums holds 2 / C over the relaxation passes.
    let near = min(min(xi.x - P.wall_lo.x, P.wall_hi.x - xi.x), min(min(xi.y - P.wall_lo.y,
        P.wall_hi.y - xi.y), min(xi.z - P.wall_lo.z, P.wall_hi.z - xi.z))) + P.half_spacing;
    let pushed = (P.has_walls & 2u) != 0u && near < P.h;
    var grad = vec3<f32>(0.0);
    if (pushed) {
        grad = P.gravity_dt * P.inv_dt * wall_table[P.wall_samples + 1u].x;
    }
    var pw_sum = pr.x;
    var pw_weight = 1.0;
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
            if (pushed && a > 0.0) {
                let w2 = a * a;
                pw_sum = pw_sum + w2 * (press_get(j).x - dot(grad, r));
                pw_weight = pw_weight + w2;
            }
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
    if (pushed) {
        dx = dx + wall_push(xi, pr, pw_sum / pw_weight, grad) * (P.dt * P.dt);
    }
    pos_out_set(i, vec4<f32>(xi + dx, pi.w));
}
