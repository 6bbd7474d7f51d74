// Velocities: gravity at the start of the step, v = (x - x_prev)/dt at its end. Both keep w
// (the kernel sum of the last density pass).
@group(0) @binding(0) var<uniform> P: Params;
@group(0) @binding(1) var<storage, read_write> pos: array<vec4<f32>>;
@group(0) @binding(2) var<storage, read_write> prev: array<vec4<f32>>;
@group(0) @binding(3) var<storage, read_write> vel: array<vec4<f32>>;

@compute @workgroup_size(256)
fn gravity(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let i = linear_id(gid, nwg);
    if (i >= P.n) {
        return;
    }
    vel[i] = vec4<f32>(vel[i].xyz + P.gravity_dt, vel[i].w);
}

@compute @workgroup_size(256)
fn update(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let i = linear_id(gid, nwg);
    if (i >= P.n) {
        return;
    }
    vel[i] = vec4<f32>((pos[i].xyz - prev[i].xyz) * P.inv_dt, vel[i].w);
}
