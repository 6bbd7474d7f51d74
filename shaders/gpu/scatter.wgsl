// Counting-sort scatter, then per cell a sort by id so that the order is (cell, id) exactly as
// the CPU grid's and a gather of the predicted state into that order: the predicted position
// x + v dt (the cell-index pass's expression) and the velocity, which the relaxation passes
// then add their displacements over dt to. The scatter counts each
// cell's cursor down from its count, so the counts end at zero, clear for the next build.
@group(0) @binding(0) var<uniform> P: Params;
// cell_of: binding 1, in two parts (split.wgsl).
@group(0) @binding(2) var<storage, read> cell_start: array<u32>;
@group(0) @binding(3) var<storage, read_write> cursor: array<atomic<u32>>;
// perm: binding 4, in two parts (split.wgsl).
// id_in: binding 5, in two parts (split.wgsl).
// pos_in: binding 6, in two parts (split.wgsl).
// vel_in: binding 7, in two parts (split.wgsl).
// pos_out: binding 8, in two parts (split.wgsl).
// vel_out: binding 9, in two parts (split.wgsl).
// id_out: binding 10, in two parts (split.wgsl).

// perm[slot] = k, slots of a cell in arbitrary order.
@compute @workgroup_size(256)
fn scatter(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let k = linear_id(gid, nwg);
    if (k >= P.n) {
        return;
    }
    let c = cell_of_get(k);
    let slot = cell_start[c] + atomicSub(&cursor[c], 1u) - 1u;
    perm_set(slot, k);
}

// One invocation per cell: insertion sort of its slots by id; then each slot s of the cell
// takes particle perm[s] (predicted position, velocity, id) and records its cell.
@compute @workgroup_size(256)
fn sort_gather(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let c = linear_id(gid, nwg);
    if (c >= P.ncells) {
        return;
    }
    let s = cell_start[c];
    let e = cell_start[c + 1u];
    for (var a = s + 1u; a < e; a = a + 1u) {
        let k = perm_get(a);
        let key = id_in_get(k);
        var b = a;
        loop {
            if (b <= s) {
                break;
            }
            let kb = perm_get(b - 1u);
            if (id_in_get(kb) <= key) {
                break;
            }
            perm_set(b, kb);
            b = b - 1u;
        }
        perm_set(b, k);
    }
    for (var a = s; a < e; a = a + 1u) {
        let k = perm_get(a);
        let x = pos_in_get(k);
        let v = vel_in_get(k);
        pos_out_set(a, vec4<f32>(x.xyz + v.xyz * P.dt, x.w));
        vel_out_set(a, v);
        id_out_set(a, id_in_get(k));
        cell_of_set(a, c);
    }
}
