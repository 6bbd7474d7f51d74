// Workgroup-memory tiling of the neighbour passes (src/gpu/tile.rs), appended to a pass that
// binds `cell_start`. One workgroup of TILE_WG invocations takes a segment of TILE_SEG cells
// along x of one grid row (its particles are one run of slots, TILE_WG at a time). Every
// particle of a segment has the same 3 x 3 rows of neighbour cells (same y and z), only their
// x ranges differ; so the workgroup walks the segment's block (its cells widened by one each
// side, clamped) row by row in the order of the untiled walk, loads each row's slots in chunks
// of TILE into workgroup memory, and each particle sums the part of the chunk that lies in its
// own block. Same pairs in the same order as the untiled `main`: the same sums.
const TILE_WG: u32 = 64u;
const TILE: u32 = 128u;
const TILE_SEG: u32 = 8u;

// The slots of each row of the segment's block, and of the segment's own particles.
var<workgroup> tile_rows: array<vec2<u32>, 9>;
var<workgroup> tile_own: vec2<u32>;

// A segment: its block of neighbour cells, and its particles' slots (first, one past last).
struct Segment {
    blk: Block,
    slots: vec2<u32>,
}

// The segment of workgroup `wid` (in a dispatch of `nwg`), its rows' slots shared with the
// workgroup. Called by every invocation, in uniform control flow; `slots` is empty for a
// workgroup past the grid and for a segment without particles.
fn tile_segment(li: u32, wid: vec3<u32>, nwg: vec3<u32>) -> Segment {
    let s = wid.x + wid.y * nwg.x;
    let per_row = (P.dims.x + TILE_SEG - 1u) / TILE_SEG;
    let row = s / per_row;
    let x0 = (s % per_row) * TILE_SEG;
    let x1 = min(x0 + TILE_SEG, P.dims.x) - 1u;
    let y = row % P.dims.y;
    let z = min(row / P.dims.y, P.dims.z - 1u);
    let past = row >= P.dims.y * P.dims.z;
    let lo = block_around(vec3<u32>(x0, y, z));
    let hi = block_around(vec3<u32>(x1, y, z));
    let blk = Block(lo.lo, hi.hi);
    if (li < block_rows(blk) && !past) {
        let cells = block_row(blk, li);
        tile_rows[li] = vec2<u32>(cell_start[cells.x], cell_start[cells.y]);
    }
    if (li == 0u) {
        var own = vec2<u32>(0u);
        if (!past) {
            let first = linear_cell(vec3<u32>(x0, y, z));
            own = vec2<u32>(cell_start[first], cell_start[first + x1 + 1u - x0]);
        }
        tile_own = own;
    }
    let slots = workgroupUniformLoad(&tile_own);
    return Segment(blk, slots);
}

// The slots of row k of the segment's block (uniform across the workgroup).
fn tile_row(k: u32) -> vec2<u32> {
    return workgroupUniformLoad(&tile_rows[k]);
}

// The slots of row k of a particle's own block `own`, the part of the segment's run it sums
// (none when it is not `live`).
fn tile_mine(live: bool, own: Block, k: u32) -> vec2<u32> {
    if (!live) {
        return vec2<u32>(0u);
    }
    let cells = block_row(own, k);
    return vec2<u32>(cell_start[cells.x], cell_start[cells.y]);
}
