// Exclusive prefix sum in levels: each workgroup scans 256 entries and writes its total to
// the next level; once that level is scanned, its entries are added back. A block is scanned
// through workgroup memory, or with subgroup operations where the device has them:
// src/gpu/prefix_sum.rs keeps one of the two `scan_block` sections below (the text from `// scan: workgroup memory` to
// `// scan: subgroups` is the first, from there to `// scan: end` the second).
struct ScanParams {
    n: u32,
    pad0: u32,
    pad1: u32,
    pad2: u32,
}

@group(0) @binding(0) var<uniform> S: ScanParams;
@group(0) @binding(1) var<storage, read> src: array<u32>;
@group(0) @binding(2) var<storage, read_write> dst: array<u32>;
@group(0) @binding(3) var<storage, read_write> sums: array<u32>;

var<workgroup> tmp: array<u32, 256>;

// scan: workgroup memory
@compute @workgroup_size(256)
fn scan_block(
    @builtin(local_invocation_index) li: u32,
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(num_workgroups) nwg: vec3<u32>,
) {
    let block = wid.x + wid.y * nwg.x;
    let i = block * 256u + li;
    var v = 0u;
    if (i < S.n) {
        v = src[i];
    }
    tmp[li] = v;
    workgroupBarrier();
    for (var off = 1u; off < 256u; off = off * 2u) {
        var t = 0u;
        if (li >= off) {
            t = tmp[li - off];
        }
        workgroupBarrier();
        tmp[li] = tmp[li] + t;
        workgroupBarrier();
    }
    if (i < S.n) {
        dst[i] = tmp[li] - v;
    }
    // A 2-D dispatch may run blocks past the end: they must not write (a clamped index
    // would overwrite the last total).
    if (li == 255u && block * 256u < S.n) {
        sums[block] = tmp[255];
    }
}

// scan: subgroups
// Each subgroup scans its entries at once; the subgroups' totals go through workgroup memory.
// The entries are laid out by subgroup (subgroup s holds s * size ..), which covers the block
// whatever invocations a subgroup holds, as long as the subgroups are full.
@compute @workgroup_size(256)
fn scan_block(
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(num_workgroups) nwg: vec3<u32>,
    @builtin(subgroup_id) sg: u32,
    @builtin(subgroup_size) sg_size: u32,
    @builtin(subgroup_invocation_id) lane: u32,
) {
    let block = wid.x + wid.y * nwg.x;
    let li = sg * sg_size + lane;
    let i = block * 256u + li;
    var v = 0u;
    if (i < S.n) {
        v = src[i];
    }
    let inclusive = subgroupInclusiveAdd(v);
    if (lane == sg_size - 1u) {
        tmp[sg] = inclusive;
    }
    workgroupBarrier();
    // The totals of the subgroups before this one (at most 64 of them, of 4 lanes or more).
    var before = 0u;
    for (var k = 0u; k < sg; k = k + 1u) {
        before = before + tmp[k];
    }
    if (i < S.n) {
        dst[i] = before + inclusive - v;
    }
    // As in the workgroup-memory scan: blocks past the end write no total.
    if (li == 255u && block * 256u < S.n) {
        sums[block] = before + inclusive;
    }
}
// scan: end

@compute @workgroup_size(256)
fn add_block(
    @builtin(local_invocation_index) li: u32,
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(num_workgroups) nwg: vec3<u32>,
) {
    let block = wid.x + wid.y * nwg.x;
    let i = block * 256u + li;
    if (i < S.n) {
        dst[i] = dst[i] + sums[block];
    }
}
