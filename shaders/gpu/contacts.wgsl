// Contact candidates between body particles and liquid particles: one invocation per body
// particle and row of grid cells around it (as many cells on each side as its reach needs:
// one where it reaches at most a cell, h; more for a search grown near the walls for the
// films; P.search_rows rows for each body particle, the widest one's), which appends every
// liquid particle of its row closer than the reach (w of the body particle) to a compact
// list: per contact three vec4 words, (liquid id, body particle, distance, slot), the liquid
// particle's position (w = phase) and its velocity, so that only contacts go down to the CPU.
// Rows, not body particles, spread over the GPU: a body of a few hundred surface particles
// searching several cells out is thousands of rows. A liquid particle is listed once per body
// that reaches it (`owner`, the body of each body particle): the first body particle of a
// body to claim it (`claimed`, per liquid slot, one more than the body; cleared before each
// search) lists it, the others of that body skip it. Where two bodies' claims on one particle
// interleave, it is listed again each time, and the CPU drops the repeats.
@group(0) @binding(0) var<uniform> P: Params;
// pos: binding 1, in two parts (split.wgsl).
// id: binding 2, in two parts (split.wgsl).
@group(0) @binding(3) var<storage, read> cell_start: array<u32>;
@group(0) @binding(4) var<storage, read> body: array<vec4<f32>>;
@group(0) @binding(5) var<storage, read_write> count: array<atomic<u32>>;
// vel: binding 6, in two parts (split.wgsl).
@group(0) @binding(7) var<storage, read_write> pairs: array<vec4<u32>>;
@group(0) @binding(8) var<storage, read_write> claimed: array<atomic<u32>>;
@group(0) @binding(9) var<storage, read> owner: array<u32>;

@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let t = linear_id(gid, nwg);
    let b = t / P.search_rows;
    if (b >= P.n_body) {
        return;
    }
    let xb = body[b].xyz;
    let reach = body[b].w;
    let c = cell_coords(xb);
    let k = max(u32(ceil(reach * P.inv_cell)), 1u);
    let blk = Block(c - min(c, vec3<u32>(k)), min(c + vec3<u32>(k), P.dims - vec3<u32>(1u)));
    // This invocation's row of the block, if the block (cut by the grid's faces, or narrower
    // than the widest) has it.
    let row = t % P.search_rows;
    if (row >= block_rows(blk)) {
        return;
    }
    let cap = arrayLength(&pairs) / 3u;
    let cells = block_row(blk, row);
    let mine = owner[b] + 1u;
    let start = cell_start[cells.x];
    let end = cell_start[cells.y];
    for (var j = start; j < end; j = j + 1u) {
        let r = pos_get(j).xyz - xb;
        let d = sqrt(dot(r, r));
        if (d < reach && atomicExchange(&claimed[j], mine) != mine) {
            let k = atomicAdd(&count[0], 1u);
            if (k < cap) {
                pairs[3u * k] = vec4<u32>(id_get(j), b, bitcast<u32>(d), j);
                pairs[3u * k + 1u] = bitcast<vec4<u32>>(pos_get(j));
                pairs[3u * k + 2u] = bitcast<vec4<u32>>(vel_get(j));
            }
        }
    }
}
