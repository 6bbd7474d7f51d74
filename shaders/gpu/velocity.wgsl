// Velocities: gravity at the start of the step, the walls' viscous friction after the
// viscosity (boundary::wall_friction), and at the step's end `update`: the step's velocity, which
// `prev` holds from the scatter on (the predicted velocity plus the relaxation's displacements
// over dt), into `vel`, and x - v dt into `prev`. All keep w (the kernel sum of the last
// density pass). The walls' friction gives each wall's impulse to the walls' loads
// (wall_gather.wgsl), as wall_friction::apply_wall_friction's.
@group(0) @binding(0) var<uniform> P: Params;
// pos: binding 1, in two parts (split.wgsl).
// prev: binding 2, in two parts (split.wgsl).
// vel: binding 3, in two parts (split.wgsl).
@group(0) @binding(4) var<storage, read> phases: array<Phase>;
@group(0) @binding(5) var<storage, read_write> wall_partials: array<vec4<f32>>;

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
    let v = prev_get(i).xyz;
    let p = pos_get(i);
    vel_set(i, vec4<f32>(v, vel_get(i).w));
    prev_set(i, vec4<f32>(p.xyz - v * P.dt, p.w));
}

// The walls' viscous friction on the velocity v of a particle at x: each wall within reach
// (1.5 spacings) adds the rate drag w(d) to the axes along it, w the hat
// 1 - |3 d - reach| / (2 reach) (boundary::wall_friction::weight); v / (1 + rate dt), axis by axis.
// Each wall's share of the change (each axis's shared among the walls in proportion to the
// rates they add to it, wall_friction::slow_each), times the mass m, goes to `loads`.
fn slow(x: vec3<f32>, v: vec3<f32>, m: f32, loads: ptr<function, WallImpulses>) -> vec3<f32> {
    let reach = P.drag_reach;
    let dw = min(x - P.wall_lo, P.wall_hi - x);
    if (min(min(dw.x, dw.y), dw.z) >= reach) {
        return v;
    }
    var rate = vec3<f32>(0.0);
    var wall_rate = array<f32, 6>();
    for (var a = 0u; a < 3u; a = a + 1u) {
        for (var side = 0u; side < 2u; side = side + 1u) {
            var d = x[a] - P.wall_lo[a];
            if (side == 1u) {
                d = P.wall_hi[a] - x[a];
            }
            if (d < reach) {
                let w = max(1.0 - abs(3.0 * max(d, 0.0) - reach) / (2.0 * reach), 0.0);
                let r = P.drag * w;
                wall_rate[2u * a + side] = r;
                for (var b = 0u; b < 3u; b = b + 1u) {
                    if (b != a) {
                        rate[b] = rate[b] + r;
                    }
                }
            }
        }
    }
    let out = v / (vec3<f32>(1.0) + rate * P.dt);
    let dv = out - v;
    for (var w = 0u; w < 6u; w = w + 1u) {
        let r = wall_rate[w];
        if (r > 0.0) {
            var share = vec3<f32>(0.0);
            for (var b = 0u; b < 3u; b = b + 1u) {
                if (b != w / 2u && rate[b] > 0.0) {
                    share[b] = dv[b] * (r / rate[b]);
                }
            }
            wall_impulse_add(loads, w, x, share * m);
        }
    }
    return out;
}

@compute @workgroup_size(256)
fn wall_friction(
    @builtin(global_invocation_id) gid: vec3<u32>,
    @builtin(num_workgroups) nwg: vec3<u32>,
    @builtin(local_invocation_index) li: u32,
    @builtin(workgroup_id) wid: vec3<u32>,
) {
    let i = linear_id(gid, nwg);
    var loads = wall_impulses_none();
    if (i < P.n) {
        let v = vel_get(i);
        let p = pos_get(i);
        let m = phases[u32(p.w)].mass;
        vel_set(i, vec4<f32>(slow(p.xyz, v.xyz, m, &loads), v.w));
    }
    wall_gather(li, wid.x + wid.y * nwg.x, &loads);
}
