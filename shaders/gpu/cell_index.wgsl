// Prediction and cell index: x* = x + v dt (written over the velocity, which the step
// recomputes from positions at its end), and the grid cell of x*.
@group(0) @binding(0) var<uniform> P: Params;
@group(0) @binding(1) var<storage, read_write> pos: array<vec4<f32>>;
@group(0) @binding(2) var<storage, read_write> vel: array<vec4<f32>>;
@group(0) @binding(3) var<storage, read_write> cell_of: array<u32>;
@group(0) @binding(4) var<storage, read_write> flags: array<atomic<u32>>;

@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let k = linear_id(gid, nwg);
    if (k >= P.n) {
        return;
    }
    let p = pos[k];
    let x = p.xyz + vel[k].xyz * P.dt;
    vel[k] = vec4<f32>(x, p.w);
    // Not finite (NaN or infinite): x != x catches NaN, the bound catches infinities.
    let big = vec3<f32>(3.0e38);
    if (any(x != x) || any(abs(x) > big)) {
        atomicOr(&flags[0], 1u);
    }
    let c = floor((x - P.origin) / P.cell);
    if (any(c < vec3<f32>(0.0)) || any(c >= vec3<f32>(P.dims))) {
        atomicOr(&flags[0], 2u);
    }
    cell_of[k] = linear_cell(cell_coords(x));
}
