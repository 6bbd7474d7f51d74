// Liquid against the container walls: project centres inside and move the start-of-step
// position so that (x - prev)/dt is the velocity after restitution and Coulomb friction.
// `with_update` then sets the velocity v = (x - prev)/dt (the velocity pass's `update`,
// keeping w), so that a step with walls ends in one pass.
@group(0) @binding(0) var<uniform> P: Params;
// pos: binding 1, in two parts (split.wgsl).
// prev: binding 2, in two parts (split.wgsl).
// vel: binding 3, in two parts (split.wgsl).

fn collide(i: u32) {
    let p = pos_get(i);
    var x = p.xyz;
    if (all(x >= P.wall_lo) && all(x <= P.wall_hi)) {
        return;
    }
    var v = (x - prev_get(i).xyz) / P.dt;
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
    prev_set(i, vec4<f32>(x - v * P.dt, p.w));
}

@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let i = linear_id(gid, nwg);
    if (i >= P.n) {
        return;
    }
    collide(i);
}

@compute @workgroup_size(256)
fn with_update(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let i = linear_id(gid, nwg);
    if (i >= P.n) {
        return;
    }
    collide(i);
    vel_set(i, vec4<f32>((pos_get(i).xyz - prev_get(i).xyz) * P.inv_dt, vel_get(i).w));
}
