// Liquid against the container walls: project centres inside and take the step's velocity
// (which the step keeps in `prev` from the scatter on: the predicted velocity plus the
// relaxation's displacements over dt) to the one after restitution and Coulomb friction, as
// the CPU's walls::apply_walls_to_velocity. `main` leaves it there; `with_update` ends the step
// as the velocity pass's `update` (v into `vel`, keeping w; prev = x - v dt), in one pass. Each
// wall's impulse on a particle (its mass times the velocity change, at its projected place)
// goes to the walls' loads (wall_gather.wgsl), as walls::apply_walls_to_velocity's.
@group(0) @binding(0) var<uniform> P: Params;
// pos: binding 1, in two parts (split.wgsl).
// prev: binding 2, in two parts (split.wgsl).
// vel: binding 3, in two parts (split.wgsl).
@group(0) @binding(4) var<storage, read> phases: array<Phase>;
@group(0) @binding(5) var<storage, read_write> wall_partials: array<vec4<f32>>;

// The step's velocity of particle i after the walls (its position projected inside), each
// wall's impulse on it added to `loads`.
fn collide(i: u32, loads: ptr<function, WallImpulses>) -> vec3<f32> {
    let p = pos_get(i);
    var x = p.xyz;
    var v = prev_get(i).xyz;
    if (all(x >= P.wall_lo) && all(x <= P.wall_hi)) {
        return v;
    }
    // Per axis, the velocity change of the wall it met (bit a of `hit`).
    var dv = array<vec3<f32>, 3>();
    var wall_of = array<u32, 3>();
    var hit = 0u;
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
        wall_of[a] = 2u * a + u32(sgn < 0.0);
        let before = v;
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
            dv[a] = v - before;
            hit = hit | (1u << a);
        }
    }
    pos_set(i, vec4<f32>(x, p.w));
    let m = phases[u32(p.w)].mass;
    for (var a = 0u; a < 3u; a = a + 1u) {
        if ((hit & (1u << a)) != 0u) {
            wall_impulse_add(loads, wall_of[a], x, dv[a] * m);
        }
    }
    return v;
}

@compute @workgroup_size(256)
fn main(
    @builtin(global_invocation_id) gid: vec3<u32>,
    @builtin(num_workgroups) nwg: vec3<u32>,
    @builtin(local_invocation_index) li: u32,
    @builtin(workgroup_id) wid: vec3<u32>,
) {
    let i = linear_id(gid, nwg);
    var loads = wall_impulses_none();
    if (i < P.n) {
        let v = collide(i, &loads);
        prev_set(i, vec4<f32>(v, prev_get(i).w));
    }
    wall_gather(li, wid.x + wid.y * nwg.x, &loads);
}

@compute @workgroup_size(256)
fn with_update(
    @builtin(global_invocation_id) gid: vec3<u32>,
    @builtin(num_workgroups) nwg: vec3<u32>,
    @builtin(local_invocation_index) li: u32,
    @builtin(workgroup_id) wid: vec3<u32>,
) {
    let i = linear_id(gid, nwg);
    var loads = wall_impulses_none();
    if (i < P.n) {
        let v = collide(i, &loads);
        end_step(i, v);
    }
    wall_gather(li, wid.x + wid.y * nwg.x, &loads);
}

// The step's end: the velocity v into `vel` (keeping w, the kernel sum) and the start-of-step
// position x - v dt into `prev` (for a checkpoint; the next scatter overwrites it).
fn end_step(i: u32, v: vec3<f32>) {
    let p = pos_get(i);
    vel_set(i, vec4<f32>(v, vel_get(i).w));
    prev_set(i, vec4<f32>(p.xyz - v * P.dt, p.w));
}
