// The walls' loads gathered on the device (src/gpu/wall_gather.rs), appended to the passes that
// change velocities at the walls (walls.wgsl's collisions, velocity.wgsl's wall_friction,
// relaxation.wgsl's ghost push). Each invocation adds the impulses the walls (x lo, x hi, y lo,
// y hi, z lo, z hi) gave its particles into a WallImpulses, with their moments about each
// wall's centre; `wall_gather` sums them over the workgroup in a fixed order, wall by wall (only
// the walls some invocation met), and one invocation adds the sums to the workgroup's own slot
// of `wall_partials` (WALL_SLOT vec4 per slot: per wall the impulse on the liquid, then its
// moment), which the wall_loads pass reduces once a step, in slot order. One owner per slot and
// fixed orders: the sums repeat bit for bit. The pass declares `wall_partials`
// (`array<vec4<f32>>`, read_write) and runs workgroups of at most WG invocations.

const WALL_SLOT: u32 = 12u;

// Runs of the workgroup's entries summed in parallel, each in order, then in order.
const WALL_RUNS: u32 = 16u;

// The impulses the walls gave one invocation's particles: per wall the impulse (N s) and its
// moment about the wall's centre (N m s); bit w of `walls` set when wall w gave one.
struct WallImpulses {
    j: array<vec3<f32>, 6>,
    m: array<vec3<f32>, 6>,
    walls: u32,
}

// No impulse yet.
fn wall_impulses_none() -> WallImpulses {
    return WallImpulses(array<vec3<f32>, 6>(), array<vec3<f32>, 6>(), 0u);
}

// The centre of wall w: the middle of the container's face, half a spacing beyond the plane
// that holds the particle centres (boundary::WallLoads).
fn wall_centre(w: u32) -> vec3<f32> {
    let lo = P.wall_lo - vec3<f32>(P.half_spacing);
    let hi = P.wall_hi + vec3<f32>(P.half_spacing);
    var c = 0.5 * (lo + hi);
    let a = w / 2u;
    if ((w & 1u) == 0u) {
        c[a] = lo[a];
    } else {
        c[a] = hi[a];
    }
    return c;
}

// Add the impulse j that wall w gave a particle at x.
fn wall_impulse_add(acc: ptr<function, WallImpulses>, w: u32, x: vec3<f32>, j: vec3<f32>) {
    (*acc).j[w] = (*acc).j[w] + j;
    (*acc).m[w] = (*acc).m[w] + cross(x - wall_centre(w), j);
    (*acc).walls = (*acc).walls | (1u << w);
}

var<workgroup> wall_sum_j: array<vec4<f32>, WG>;
var<workgroup> wall_sum_m: array<vec4<f32>, WG>;
var<workgroup> wall_seen: atomic<u32>;
var<workgroup> wall_seen_all: u32;

// Add the workgroup's impulses (`own` the invocation's, `li` its index) to slot `slot` of
// `wall_partials`. Called once per dispatch by every invocation of the workgroup, in uniform
// control flow. A workgroup no wall touched writes nothing.
fn wall_gather(li: u32, slot: u32, own: ptr<function, WallImpulses>) {
    atomicOr(&wall_seen, (*own).walls);
    workgroupBarrier();
    if (li == 0u) {
        wall_seen_all = atomicLoad(&wall_seen);
    }
    let seen = workgroupUniformLoad(&wall_seen_all);
    if (seen == 0u) {
        return;
    }
    // In a workgroup smaller than WG, the entries past it keep the zeros workgroup memory
    // starts with: they add nothing. Per wall: every invocation's entry, then WALL_RUNS
    // invocations each sum a run of WG / WALL_RUNS entries in order (into the run's first),
    // then one sums the runs in order: three barriers a wall, few on the critical path.
    let run = WG / WALL_RUNS;
    for (var w = 0u; w < 6u; w = w + 1u) {
        if ((seen & (1u << w)) == 0u) {
            continue;
        }
        workgroupBarrier();
        wall_sum_j[li] = vec4<f32>((*own).j[w], 0.0);
        wall_sum_m[li] = vec4<f32>((*own).m[w], 0.0);
        workgroupBarrier();
        if (li < WALL_RUNS) {
            var j = vec4<f32>(0.0);
            var m = vec4<f32>(0.0);
            for (var k = li * run; k < (li + 1u) * run; k = k + 1u) {
                j = j + wall_sum_j[k];
                m = m + wall_sum_m[k];
            }
            wall_sum_j[li * run] = j;
            wall_sum_m[li * run] = m;
        }
        workgroupBarrier();
        if (li == 0u) {
            var j = vec4<f32>(0.0);
            var m = vec4<f32>(0.0);
            for (var r = 0u; r < WALL_RUNS; r = r + 1u) {
                j = j + wall_sum_j[r * run];
                m = m + wall_sum_m[r * run];
            }
            let k = slot * WALL_SLOT + 2u * w;
            wall_partials[k] = wall_partials[k] + j;
            wall_partials[k + 1u] = wall_partials[k + 1u] + m;
        }
    }
}
