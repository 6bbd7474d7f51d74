// Double-density relaxation in gather (Jacobi) form: each particle sums its own displacement
// dx_i = -dt^2 sum_j m_j/(m_i+m_j) [(P_i+P_j)(1-q) + (Pn_i+Pn_j)(1-q)^2] r_hat_ij (pressures
// as the density pass leaves them: x and y of a vec4).
@group(0) @binding(0) var<uniform> P: Params;
// pos: binding 1, in two parts (split.wgsl).
// cell_of: binding 2, in two parts (split.wgsl).
@group(0) @binding(3) var<storage, read_write> cell_start: array<u32>;
@group(0) @binding(4) var<storage, read_write> phases: array<Phase>;
// press: binding 5, in two parts (split.wgsl).
// pos_out: binding 6, in two parts (split.wgsl).

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
    pos_out_set(i, vec4<f32>(xi + acc * (P.dt * P.dt), pi.w));
}
