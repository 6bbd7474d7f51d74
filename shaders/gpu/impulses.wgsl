// Contact impulses from the CPU's LCP, one entry per liquid slot: v += dv and x += dv dt.
@group(0) @binding(0) var<uniform> P: Params;
// pos: binding 1, in two parts (split.wgsl).
// vel: binding 2, in two parts (split.wgsl).
@group(0) @binding(3) var<storage, read> dv: array<vec4<f32>>;
@group(0) @binding(4) var<storage, read> slots: array<u32>;

@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let k = linear_id(gid, nwg);
    if (k >= P.n_body) {
        return;
    }
    let s = slots[k];
    let d = dv[k].xyz;
    vel_set(s, vec4<f32>(vel_get(s).xyz + d, vel_get(s).w));
    let p = pos_get(s);
    pos_set(s, vec4<f32>(p.xyz + d * P.dt, p.w));
}
