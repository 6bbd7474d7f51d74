// Viscosity impulses (Clavet et al. 2005, 5.3) gathered per particle: for each approaching
// neighbour, v_i -= dt (1-q) (sigma u + beta u^2) m_j/(m_i+m_j) r_hat.
@group(0) @binding(0) var<uniform> P: Params;
// pos: binding 1, in two parts (split.wgsl).
// cell_of: binding 2, in two parts (split.wgsl).
@group(0) @binding(3) var<storage, read_write> cell_start: array<u32>;
@group(0) @binding(4) var<storage, read_write> phases: array<Phase>;
// vel: binding 5, in two parts (split.wgsl).
// vel_out: binding 6, in two parts (split.wgsl).

// The impulses on particle i, on velocities v + g (g: zero, or the step's g dt).
fn viscosity(i: u32, g: vec3<f32>) {
    let pi = pos_get(i);
    let xi = pi.xyz;
    let vi = vel_get(i).xyz + g;
    let phi = phases[u32(pi.w)];
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
            let q = d / P.h;
            if (q >= 1.0 || d <= 0.0) {
                continue;
            }
            let rhat = r / d;
            let u = dot(vi - (vel_get(j).xyz + g), rhat);
            if (u > 0.0) {
                let phj = phases[u32(pos_get(j).w)];
                let sigma = 0.5 * (phi.sigma + phj.sigma);
                let beta = 0.5 * (phi.beta + phj.beta);
                let w = phj.mass / (phi.mass + phj.mass);
                acc = acc - rhat * (P.dt * (1.0 - q) * (sigma * u + beta * u * u) * w);
            }
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
