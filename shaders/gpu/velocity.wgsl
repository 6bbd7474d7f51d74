// Velocities: gravity at the start of the step, v = (x - x_prev)/dt at its end. Both keep w
// (the kernel sum of the last density pass).
@group(0) @binding(0) var<uniform> P: Params;
// pos: binding 1, in two parts (split.wgsl).
// prev: binding 2, in two parts (split.wgsl).
// vel: binding 3, in two parts (split.wgsl).

@compute @workgroup_size(256)
fn gravity(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let i = linear_id(gid, nwg);
    if (i >= P.n) {
        return;
    }
    vel_set(i, vec4<f32>(vel_get(i).xyz + P.gravity_dt, vel_get(i).w));
}

@compute @workgroup_size(256)
fn update(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let i = linear_id(gid, nwg);
    if (i >= P.n) {
        return;
    }
    vel_set(i, vec4<f32>((pos_get(i).xyz - prev_get(i).xyz) * P.inv_dt, vel_get(i).w));
}
