// Position correction from the CPU's coupling, one entry per liquid slot: x += dx (the velocity
// is left alone), so that no liquid stays inside a body.
@group(0) @binding(0) var<uniform> P: Params;
// pos: binding 1, in two parts (split.wgsl).
@group(0) @binding(2) var<storage, read> dx: array<vec4<f32>>;
@group(0) @binding(3) var<storage, read> slots: array<u32>;

@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let k = linear_id(gid, nwg);
    if (k >= P.n_body) {
        return;
    }
    let s = slots[k];
    let p = pos_get(s);
    pos_set(s, vec4<f32>(p.xyz + dx[k].xyz, p.w));
}
