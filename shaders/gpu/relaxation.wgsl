// Double-density relaxation in gather (Jacobi) form: each particle sums its own displacement
// dx_i = -dt^2 sum_j m_j/(m_i+m_j) [(P_i+P_j)(1-q) + (Pn_i+Pn_j)(1-q)^2] r_hat_ij (pressures
// as the density pass leaves them: x and y of a vec4), plus the walls' push: their ghosts carry
// the particle's near pressure and the walls' pressure plus the hydrostatic difference
// (WallKernel::push); within h of a body (the bodies' kernel sum, z of the pressures, above
// zero) only the ghosts that stand for liquid push (WallKernel::push_where, add_ghost_pressure).
// The displacement moves the particle (into the other position buffer) and adds itself over dt
// to the step's velocity `vel` (as the CPU step's `displace`). Each wall's push on a particle
// (its mass times the push over dt, as the displacement enters its velocity) goes to the walls'
// loads (wall_gather.wgsl), as add_ghost_pressure's.
@group(0) @binding(0) var<uniform> P: Params;
// pos: binding 1, in two parts (split.wgsl).
// cell_of: binding 2, in two parts (split.wgsl).
@group(0) @binding(3) var<storage, read> cell_start: array<u32>;
@group(0) @binding(4) var<storage, read> phases: array<Phase>;
// press: binding 5, in two parts (split.wgsl).
// pos_out: binding 6, in two parts (split.wgsl).
@group(0) @binding(7) var<storage, read> wall_table: array<vec2<f32>>;
// vel: binding 8, in two parts (split.wgsl).
@group(0) @binding(9) var<storage, read> boundary_start: array<u32>;
@group(0) @binding(10) var<storage, read> boundary: array<vec4<f32>>;
@group(0) @binding(11) var<storage, read_write> wall_partials: array<vec4<f32>>;

// Apply the displacement acc dt^2 of particle i at pi: into the other position buffer, and
// over dt into the step's velocity.
fn displace(i: u32, pi: vec4<f32>, acc: vec3<f32>) {
    let d = acc * (P.dt * P.dt);
    pos_out_set(i, vec4<f32>(pi.xyz + d, pi.w));
    let v = vel_get(i);
    vel_set(i, vec4<f32>(v.xyz + d * P.inv_dt, v.w));
}

// Whether the point x lies outside every body: the bodies' kernel sum there is at most half
// the liquid's rest kernel sum (BodyImages::liquid_at).
fn liquid_at(x: vec3<f32>) -> bool {
    return body_sums(x, block_around(cell_coords(x))).x <= 0.5 * P.rho0;
}

// The walls (bit e for wall e) within h of the particle at xi (plane distances y) that a body
// faces across it: the point a spacing from it away from the wall lies in a body
// (BodyImages::films).
fn film_walls(xi: vec3<f32>, y: array<f32, 6>) -> u32 {
    var yy = y;
    var shut = 0u;
    for (var e = 0u; e < 6u; e = e + 1u) {
        if (yy[e] < P.h) {
            var p = xi;
            let a = e / 2u;
            if ((e & 1u) == 0u) {
                p[a] = p[a] + 2.0 * P.half_spacing;
            } else {
                p[a] = p[a] - 2.0 * P.half_spacing;
            }
            if (!liquid_at(p)) {
                shut = shut | (1u << e);
            }
        }
    }
    return shut;
}

// Whether the ghost at offset r from the particle at xi (plane distances y) stands for liquid:
// it lies beyond no wall of `shut`, and its mirror image across the walls it lies beyond
// (wall_kernel::mirror_offset) is outside every body.
fn ghost_kept(xi: vec3<f32>, y: array<f32, 6>, r: vec3<f32>, shut: u32) -> bool {
    var yy = y;
    var m = r;
    for (var e = 0u; e < 6u; e = e + 1u) {
        let a = e / 2u;
        let lo = (e & 1u) == 0u;
        if ((lo && r[a] < -yy[e]) || (!lo && r[a] > yy[e])) {
            if ((shut & (1u << e)) != 0u) {
                return false;
            }
            var side = 1.0;
            if (lo) {
                side = -1.0;
            }
            m[a] = 2.0 * side * yy[e] - r[a];
        }
    }
    return liquid_at(xi + m);
}

// The walls' push per dt^2 (as WallKernel::push): the pair terms with the ghosts of every wall
// within h, each carrying the particle's near pressure and the walls' pressure pw.x / pw.y plus
// the share s of the hydrostatic difference to its place (gradient grad), clamped at zero; one
// beyond two walls counts in the first's lattice. s completes the liquid's moment pw.z to the
// lattice's C (after the kernel sums' table) with the ghosts' (wall_kernel::support_share).
// Within h of a body (`body` above zero), the ghosts that do not stand for liquid are left out
// (ghost_kept, WallKernel::push_where). Each wall's part of the push (its ghosts come one
// after another, WallKernel::push_each), times `scale`, goes to `loads` at xi.
fn ghost_pressure(xi: vec3<f32>, pr: vec2<f32>, pw: vec3<f32>, grad: vec3<f32>,
    body: f32, scale: f32, loads: ptr<function, WallImpulses>) -> vec3<f32> {
    var g = ghost_walk(xi);
    let y = g.y;
    let near_body = body > 0.0;
    var shut = 0u;
    if (near_body) {
        shut = film_walls(xi, y);
    }
    var ghosts = 0.0;
    loop {
        let ghost = ghost_next(&g);
        if (ghost.w < 0.0) {
            break;
        }
        if (near_body && !ghost_kept(xi, y, ghost.xyz, shut)) {
            continue;
        }
        let gr = dot(grad, ghost.xyz);
        ghosts = ghosts + ghost.w * gr * gr / length(ghost.xyz);
    }
    let full = wall_table[P.wall_samples + 1u].y * dot(grad, grad);
    var s = 1.0;
    if (full > 0.0 && ghosts > 0.0) {
        s = clamp((full - pw.z) / ghosts, 0.0, 1.0);
    }
    let wall_press = pw.x / pw.y;
    g = ghost_walk(xi);
    var out = vec3<f32>(0.0);
    // The push of the wall whose ghosts the walk is on, so far.
    var wall = 0u;
    var pushed = vec3<f32>(0.0);
    loop {
        let ghost = ghost_next(&g);
        if (ghost.w < 0.0) {
            break;
        }
        if (near_body && !ghost_kept(xi, y, ghost.xyz, shut)) {
            continue;
        }
        // The walk stands on the ghost's wall until it moves to the next.
        let w = g.w;
        if (w != wall) {
            wall_load(loads, wall, xi, pushed * scale);
            wall = w;
            pushed = vec3<f32>(0.0);
        }
        let r = ghost.xyz;
        let q = ghost.w;
        let pg = max(wall_press + s * dot(grad, r), 0.0);
        let push = -(r * ((0.5 * (pr.x + pg) * q + pr.y * q * q) / length(r)));
        out = out + push;
        pushed = pushed + push;
    }
    wall_load(loads, wall, xi, pushed * scale);
    return out;
}

// Add wall w's impulse j on the particle at x to `loads`, unless it is zero (as
// add_ghost_pressure leaves out a wall whose ghosts did not push).
fn wall_load(loads: ptr<function, WallImpulses>, w: u32, x: vec3<f32>, j: vec3<f32>) {
    if (any(j != vec3<f32>(0.0))) {
        wall_impulse_add(loads, w, x, j);
    }
}

// Within h of a wall that pushes (x: 1, else 0), the hydrostatic gradient (yzw): the entry
// after the walls' kernel sums holds 2 / C over the relaxation passes.
fn wall_setup(xi: vec3<f32>) -> vec4<f32> {
    let near = min(min(xi.x - P.wall_lo.x, P.wall_hi.x - xi.x), min(min(xi.y - P.wall_lo.y,
        P.wall_hi.y - xi.y), min(xi.z - P.wall_lo.z, P.wall_hi.z - xi.z))) + P.half_spacing;
    if ((P.flags & GHOST_PRESSURE) == 0u || near >= P.h) {
        return vec4<f32>(0.0);
    }
    let grad = P.gravity_dt * P.inv_dt * wall_table[P.wall_samples + 1u].x;
    return vec4<f32>(1.0, grad);
}

// The walls' pressure at xi, the liquid's around it extrapolated to it, weighted (1-q)^2 (the
// particle itself with weight 1), as add_ghost_pressure: neighbour at xj with pressure pj added to
// the sums `pw` (weighted pressure, weight, the liquid's moment (1-q) (grad . r)^2 / |r|).
fn wall_pressure_pair(xi: vec3<f32>, xj: vec3<f32>, pj: f32, grad: vec3<f32>,
    pw: ptr<function, vec3<f32>>) {
    let r = xj - xi;
    let r2 = dot(r, r);
    if (r2 >= P.h * P.h) {
        return;
    }
    let a = 1.0 - sqrt(r2) / P.h;
    if (a > 0.0) {
        let w2 = a * a;
        let gr = dot(grad, r);
        *pw = *pw + vec3<f32>(w2 * (pj - gr), w2, a * gr * gr / sqrt(r2));
    }
}

// The pair term: neighbour j at pj (w: phase) with pressures prj, added to the displacement
// sum `acc` of particle i at xi (pressures pri, mass mi) when it is within h.
fn relaxation_pair(
    xi: vec3<f32>,
    pri: vec2<f32>,
    mi: f32,
    pj: vec4<f32>,
    prj: vec2<f32>,
    acc: ptr<function, vec3<f32>>,
) {
    let r = pj.xyz - xi;
    let r2 = dot(r, r);
    if (r2 >= P.h * P.h) {
        return;
    }
    let d = sqrt(r2);
    let a = 1.0 - d / P.h;
    if (a <= 0.0 || d <= 0.0) {
        return;
    }
    var w = 0.5;
    if (P.uniform_mass == 0u) {
        let mj = phases[u32(pj.w)].mass;
        w = mj / (mi + mj);
    }
    var mag = (pri.x + prj.x) * a + (pri.y + prj.y) * a * a;
    // As relaxation::cap_pair: at most a tenth of a spacing a particle, unless wild (ten radii).
    let dt2 = P.dt * P.dt;
    let cap = 0.4 * P.half_spacing / dt2;
    if (mag > cap && mag <= 20.0 * P.h / dt2) {
        mag = cap;
    }
    *acc = *acc - r * (mag * w / d);
}

// The walls' ghost pressure on particle i at pi (its mass mi, pressures pri, the walls'
// pressure sums pw, the hydrostatic gradient grad), per dt^2; each wall's impulse goes to
// `loads`.
fn walls_ghost_pressure(pi: vec4<f32>, pri: vec3<f32>, mi: f32, pw: vec3<f32>, grad: vec3<f32>,
    loads: ptr<function, WallImpulses>) -> vec3<f32> {
    return ghost_pressure(pi.xyz, pri.xy, pw, grad, pri.z, mi * P.dt, loads);
}

// Whether the walls push, so that their loads are gathered (uniform).
fn walls_push() -> bool {
    return (P.flags & GHOST_PRESSURE) != 0u;
}

// Untiled: one invocation per particle, reading its neighbours from the buffers.
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
        relax(i, &loads);
    }
    if (walls_push()) {
        wall_gather(li, wid.x + wid.y * nwg.x, &loads);
    }
}

// The untiled relaxation of particle i.
fn relax(i: u32, loads: ptr<function, WallImpulses>) {
    let pi = pos_get(i);
    let pri = press_get(i);
    let pr = pri.xy;
    let mi = phases[u32(pi.w)].mass;
    var acc = vec3<f32>(0.0);
    let wall = wall_setup(pi.xyz);
    var pw = vec3<f32>(pr.x, 1.0, 0.0);
    let blk = block_around_cell(cell_of_get(i));
    let rows = block_rows(blk);
    for (var row = 0u; row < rows; row = row + 1u) {
        // The cells of a row are contiguous: one run of slots.
        let cells = block_row(blk, row);
        let start = cell_start[cells.x];
        let end = cell_start[cells.y];
        for (var j = start; j < end; j = j + 1u) {
            if (j == i) {
                continue;
            }
            relaxation_pair(pi.xyz, pr, mi, pos_get(j), press_get(j).xy, &acc);
            if (wall.x != 0.0) {
                wall_pressure_pair(pi.xyz, pos_get(j).xyz, press_get(j).x, wall.yzw, &pw);
            }
        }
    }
    if (wall.x != 0.0) {
        acc = acc + walls_ghost_pressure(pi, pri.xyz, mi, pw, wall.yzw, loads);
    }
    displace(i, pi, acc);
}

// The neighbours' positions and pressures, one chunk of a row at a time (tile.wgsl).
var<workgroup> relaxation_pos: array<vec4<f32>, TILE>;
var<workgroup> relaxation_press: array<vec2<f32>, TILE>;

// Tiled: one workgroup per segment of a grid row, the neighbours read through workgroup
// memory (tile.wgsl); the same pairs in the same order as `main`.
@compute @workgroup_size(64)
fn tiled(
    @builtin(local_invocation_index) li: u32,
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(num_workgroups) nwg: vec3<u32>,
) {
    let seg = tile_segment(li, wid, nwg);
    let rows = block_rows(seg.blk);
    var loads = wall_impulses_none();
    for (var first = seg.slots.x; first < seg.slots.y; first = first + TILE_WG) {
        let i = first + li;
        let live = i < seg.slots.y;
        var pi = vec4<f32>(0.0);
        var pr = vec2<f32>(0.0);
        var mi = 0.0;
        var pri = vec4<f32>(0.0);
        var own = seg.blk;
        if (live) {
            pi = pos_get(i);
            pri = press_get(i);
            pr = pri.xy;
            mi = phases[u32(pi.w)].mass;
            own = block_around_cell(cell_of_get(i));
        }
        var acc = vec3<f32>(0.0);
        var wall = vec4<f32>(0.0);
        if (live) {
            wall = wall_setup(pi.xyz);
        }
        var pw = vec3<f32>(pr.x, 1.0, 0.0);
        for (var k = 0u; k < rows; k = k + 1u) {
            let run = tile_row(k);
            let mine = tile_mine(live, own, k);
            for (var c0 = run.x; c0 < run.y; c0 = c0 + TILE) {
                let count = min(run.y - c0, TILE);
                for (var t = li; t < count; t = t + TILE_WG) {
                    relaxation_pos[t] = pos_get(c0 + t);
                    relaxation_press[t] = press_get(c0 + t).xy;
                }
                workgroupBarrier();
                let end = min(mine.y, c0 + TILE);
                for (var j = max(mine.x, c0); j < end; j = j + 1u) {
                    if (j == i) {
                        continue;
                    }
                    let t = j - c0;
                    relaxation_pair(pi.xyz, pr, mi, relaxation_pos[t], relaxation_press[t], &acc);
                    if (wall.x != 0.0) {
                        wall_pressure_pair(pi.xyz, relaxation_pos[t].xyz, relaxation_press[t].x,
                            wall.yzw, &pw);
                    }
                }
                workgroupBarrier();
            }
        }
        if (live) {
            if (wall.x != 0.0) {
                acc = acc + walls_ghost_pressure(pi, pri.xyz, mi, pw, wall.yzw, &loads);
            }
            displace(i, pi, acc);
        }
    }
    // Slot: the segment's (one per tiled workgroup).
    if (walls_push()) {
        wall_gather(li, wid.x + wid.y * nwg.x, &loads);
    }
}
