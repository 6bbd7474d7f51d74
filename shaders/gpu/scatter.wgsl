// Counting-sort scatter, then per cell a sort by id so that the order is (cell, id) exactly as
// the CPU grid's and a gather of the predicted state into that order. The scatter counts each
// cell's cursor down from its count, so the counts end at zero, clear for the next build.
@group(0) @binding(0) var<uniform> P: Params;
@group(0) @binding(1) var<storage, read_write> cell_of: array<u32>;
@group(0) @binding(2) var<storage, read_write> cell_start: array<u32>;
@group(0) @binding(3) var<storage, read_write> cursor: array<atomic<u32>>;
@group(0) @binding(4) var<storage, read_write> perm: array<u32>;
@group(0) @binding(5) var<storage, read_write> id_in: array<u32>;
@group(0) @binding(6) var<storage, read_write> pos_in: array<vec4<f32>>;
@group(0) @binding(7) var<storage, read_write> pred: array<vec4<f32>>;
@group(0) @binding(8) var<storage, read_write> pos_out: array<vec4<f32>>;
@group(0) @binding(9) var<storage, read_write> prev_out: array<vec4<f32>>;
@group(0) @binding(10) var<storage, read_write> id_out: array<u32>;

// perm[slot] = k, slots of a cell in arbitrary order.
@compute @workgroup_size(256)
fn scatter(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let k = linear_id(gid, nwg);
    if (k >= P.n) {
        return;
    }
    let c = cell_of[k];
    let slot = cell_start[c] + atomicSub(&cursor[c], 1u) - 1u;
    perm[slot] = k;
}

// One invocation per cell: insertion sort of its slots by id; then each slot s of the cell
// takes particle perm[s] (predicted position, start-of-step position, id) and records its cell.
@compute @workgroup_size(256)
fn sort_gather(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let c = linear_id(gid, nwg);
    if (c >= P.ncells) {
        return;
    }
    let s = cell_start[c];
    let e = cell_start[c + 1u];
    for (var a = s + 1u; a < e; a = a + 1u) {
        let k = perm[a];
        let key = id_in[k];
        var b = a;
        loop {
            if (b <= s) {
                break;
            }
            let kb = perm[b - 1u];
            if (id_in[kb] <= key) {
                break;
            }
            perm[b] = kb;
            b = b - 1u;
        }
        perm[b] = k;
    }
    for (var a = s; a < e; a = a + 1u) {
        let k = perm[a];
        pos_out[a] = pred[k];
        prev_out[a] = pos_in[k];
        id_out[a] = id_in[k];
        cell_of[a] = c;
    }
}
