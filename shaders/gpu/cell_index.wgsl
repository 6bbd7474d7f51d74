// Prediction, cell index and cell count: the grid cell of x* = x + v dt (the scatter's gather
// computes x* again, by the same expression) and one atomic increment of that cell's count.
// `with_gravity` first adds g dt to the velocity, in place (the step's gravity, when no
// viscosity pass has added it already).
@group(0) @binding(0) var<uniform> P: Params;
// pos: binding 1, in two parts (split.wgsl).
// vel: binding 2, in two parts (split.wgsl).
// cell_of: binding 3, in two parts (split.wgsl).
@group(0) @binding(4) var<storage, read_write> flags: array<atomic<u32>>;
@group(0) @binding(5) var<storage, read_write> count: array<atomic<u32>>;

fn predict(k: u32, v: vec3<f32>) {
    let p = pos_get(k);
    let x = p.xyz + v * P.dt;
    // Not finite (NaN or infinite): x != x catches NaN, the bound catches infinities.
    let big = vec3<f32>(3.0e38);
    if (any(x != x) || any(abs(x) > big)) {
        atomicOr(&flags[0], 1u);
    }
    let c = floor((x - P.origin) * P.inv_cell);
    if (any(c < vec3<f32>(0.0)) || any(c >= vec3<f32>(P.dims))) {
        atomicOr(&flags[0], 2u);
    }
    let cell = linear_cell(cell_coords(x));
    cell_of_set(k, cell);
    atomicAdd(&count[cell], 1u);
}

@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let k = linear_id(gid, nwg);
    if (k >= P.n) {
        return;
    }
    predict(k, vel_get(k).xyz);
}

@compute @workgroup_size(256)
fn with_gravity(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let k = linear_id(gid, nwg);
    if (k >= P.n) {
        return;
    }
    let v = vel_get(k);
    let vg = v.xyz + P.gravity_dt;
    vel_set(k, vec4<f32>(vg, v.w));
    predict(k, vg);
}
