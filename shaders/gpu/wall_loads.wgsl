// The walls' loads of a step (src/gpu/wall_loads.rs): the partial sums the passes that change
// velocities at the walls left, one slot per workgroup (wall_gather.wgsl), reduced in a fixed
// order into the step's six totals (each of LOADS_WG invocations sums the slots it strides
// over, in order, then a tree), and the partials cleared. The step's load on each wall (the
// opposite of what it gave the liquid) goes into the frame's tally: the sums, and the step
// force and torque of the largest magnitude (as LoadTally::add).
@group(0) @binding(0) var<uniform> P: Params;
// Per workgroup slot, per wall (x lo, x hi, y lo, y hi, z lo, z hi): the impulse on the liquid
// (N s) and its moment about the wall's centre (N m s).
@group(0) @binding(1) var<storage, read_write> wall_partials: array<vec4<f32>>;
// Per wall: the load's impulse (N s) and angular impulse (N m s) summed over the frame's
// steps, the largest step force (N) and the largest step torque (N m).
@group(0) @binding(2) var<storage, read_write> wall_tally: array<vec4<f32>>;

const LOADS_WG: u32 = 64u;
const SLOT: u32 = 12u;

var<workgroup> loads_sums: array<array<vec4<f32>, 12>, LOADS_WG>;

@compute @workgroup_size(64)
fn main(@builtin(local_invocation_index) li: u32) {
    let slots = arrayLength(&wall_partials) / SLOT;
    var acc = array<vec4<f32>, 12>();
    for (var s = li; s < slots; s = s + LOADS_WG) {
        for (var k = 0u; k < SLOT; k = k + 1u) {
            acc[k] = acc[k] + wall_partials[s * SLOT + k];
            wall_partials[s * SLOT + k] = vec4<f32>(0.0);
        }
    }
    loads_sums[li] = acc;
    for (var s = LOADS_WG / 2u; s > 0u; s = s / 2u) {
        workgroupBarrier();
        if (li < s) {
            for (var k = 0u; k < SLOT; k = k + 1u) {
                loads_sums[li][k] = loads_sums[li][k] + loads_sums[li + s][k];
            }
        }
    }
    workgroupBarrier();
    if (li < 6u) {
        let j = -loads_sums[0][2u * li].xyz;
        let m = -loads_sums[0][2u * li + 1u].xyz;
        let t = 4u * li;
        wall_tally[t] = vec4<f32>(wall_tally[t].xyz + j, 0.0);
        wall_tally[t + 1u] = vec4<f32>(wall_tally[t + 1u].xyz + m, 0.0);
        let f = j * P.inv_dt;
        let peak_f = wall_tally[t + 2u].xyz;
        if (dot(f, f) > dot(peak_f, peak_f)) {
            wall_tally[t + 2u] = vec4<f32>(f, 0.0);
        }
        let tq = m * P.inv_dt;
        let peak_t = wall_tally[t + 3u].xyz;
        if (dot(tq, tq) > dot(peak_t, peak_t)) {
            wall_tally[t + 3u] = vec4<f32>(tq, 0.0);
        }
    }
}
