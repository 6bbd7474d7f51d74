// Body boundary particles binned into the liquid grid's cells, sorted by (cell, index), so that
// the density pass gathers their kernel sums in a fixed order. P.n is the number of boundary
// particles here; the counts (count.wgsl) and their prefix sum run between `cell_index` and
// `scatter`, into `cell_start`; the scatter counts each cell's cursor (its count) down to zero,
// which leaves the counts clear for the next build.
@group(0) @binding(0) var<uniform> P: Params;
@group(0) @binding(1) var<storage, read> input: array<vec4<f32>>;
@group(0) @binding(2) var<storage, read_write> cell_of: array<u32>;
@group(0) @binding(3) var<storage, read> cell_start: array<u32>;
@group(0) @binding(4) var<storage, read_write> cursor: array<atomic<u32>>;
@group(0) @binding(5) var<storage, read_write> perm: array<u32>;
@group(0) @binding(6) var<storage, read_write> sorted: array<vec4<f32>>;

// The cell of each particle as uploaded (positions outside clamped into the border cells).
@compute @workgroup_size(256)
fn cell_index(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let k = linear_id(gid, nwg);
    if (k >= P.n) {
        return;
    }
    cell_of[k] = linear_cell(cell_coords(input[k].xyz));
}

// perm[slot] = k, slots of a cell in arbitrary order (counting the cell's cursor down).
@compute @workgroup_size(256)
fn scatter(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let k = linear_id(gid, nwg);
    if (k >= P.n) {
        return;
    }
    let c = cell_of[k];
    perm[cell_start[c] + atomicSub(&cursor[c], 1u) - 1u] = k;
}

// One invocation per cell: insertion sort of its slots by index.
@compute @workgroup_size(256)
fn sort_cells(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let c = linear_id(gid, nwg);
    if (c >= P.ncells) {
        return;
    }
    let s = cell_start[c];
    let e = cell_start[c + 1u];
    for (var a = s + 1u; a < e; a = a + 1u) {
        let k = perm[a];
        var b = a;
        loop {
            if (b <= s || perm[b - 1u] <= k) {
                break;
            }
            perm[b] = perm[b - 1u];
            b = b - 1u;
        }
        perm[b] = k;
    }
}

// Slot s takes particle perm[s] (position, w = weight).
@compute @workgroup_size(256)
fn gather(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let s = linear_id(gid, nwg);
    if (s >= P.n) {
        return;
    }
    sorted[s] = input[perm[s]];
}
