// Liquid against the container walls: project centres inside and take the step's velocity
// (which the step keeps in `prev` from the scatter on: the predicted velocity plus the
// relaxation's displacements over dt) to the one after restitution and Coulomb friction, as
// the CPU's walls::apply_walls_to_velocity. `main` leaves it there; `with_update` ends the step
// as the velocity pass's `update` (v into `vel`, keeping w; prev = x - v dt), in one pass.
@group(0) @binding(0) var<uniform> P: Params;
// pos: binding 1, in two parts (split.wgsl).
// prev: binding 2, in two parts (split.wgsl).
// vel: binding 3, in two parts (split.wgsl).

// The step's velocity of particle i after the walls (its position projected inside).
fn collide(i: u32) -> vec3<f32> {
    let p = pos_get(i);
    var x = p.xyz;
    var v = prev_get(i).xyz;
    if (all(x >= P.wall_lo) && all(x <= P.wall_hi)) {
        return v;
    }
    for (var a = 0u; a < 3u; a = a + 1u) {
        var wall = 0.0;
        var sgn = 0.0;
        if (x[a] < P.wall_lo[a]) {
            wall = P.wall_lo[a];
            sgn = 1.0;
        } else if (x[a] > P.wall_hi[a]) {
            wall = P.wall_hi[a];
            sgn = -1.0;
        } else {
            continue;
        }
        x[a] = wall;
        let vn = v[a] * sgn;
        if (vn < 0.0) {
            let dvn = -(1.0 + P.restitution) * vn;
            v[a] = v[a] + sgn * dvn;
            var vt = v;
            vt[a] = 0.0;
            let speed = length(vt);
            if (speed > 0.0 && P.friction > 0.0) {
                let scale = max(1.0 - P.friction * dvn / speed, 0.0);
                let vnew = vt * scale;
                for (var b = 0u; b < 3u; b = b + 1u) {
                    if (b != a) {
                        v[b] = vnew[b];
                    }
                }
            }
        }
    }
    pos_set(i, vec4<f32>(x, p.w));
    return v;
}

@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let i = linear_id(gid, nwg);
    if (i >= P.n) {
        return;
    }
    let v = collide(i);
    prev_set(i, vec4<f32>(v, prev_get(i).w));
}

@compute @workgroup_size(256)
fn with_update(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let i = linear_id(gid, nwg);
    if (i >= P.n) {
        return;
    }
    let v = collide(i);
    end_step(i, v);
}

// The step's end: the velocity v into `vel` (keeping w, the kernel sum) and the start-of-step
// position x - v dt into `prev` (for a checkpoint; the next scatter overwrites it).
fn end_step(i: u32, v: vec3<f32>) {
    let p = pos_get(i);
    vel_set(i, vec4<f32>(v, vel_get(i).w));
    prev_set(i, vec4<f32>(p.xyz - v * P.dt, p.w));
}
