// Shared by every pass: the step's parameters and the per-phase constants.
struct Params {
    origin: vec3<f32>,
    inv_cell: f32,
    dims: vec3<u32>,
    n: u32,
    gravity_dt: vec3<f32>,
    h: f32,
    wall_lo: vec3<f32>,
    restitution: f32,
    wall_hi: vec3<f32>,
    friction: f32,
    dt: f32,
    inv_dt: f32,
    inv_h: f32,
    rho0: f32,
    ncells: u32,
    // WALLS: there are walls; GHOST_PRESSURE: their ghosts push in the relaxation.
    flags: u32,
    uniform_mass: u32,
    n_body: u32,
    half_spacing: f32,
    n_boundary: u32,
    wall_samples: u32,
    // Indices below it are in the first part of a split array (split.wgsl).
    split: u32,
    // The walls' viscous friction: its rate at the planes (0: none) and its reach.
    drag: f32,
    drag_reach: f32,
    // The contacts pass's rows of cells per body particle (its widest search's side, squared).
    search_rows: u32,
    pad1: f32,
}

// Bits of P.flags (FLAG_WALLS, FLAG_GHOST_PRESSURE in gpu/buffers.rs).
const WALLS: u32 = 1u;
const GHOST_PRESSURE: u32 = 2u;

struct Phase {
    mass: f32,
    k_eff: f32,
    k_near_eff: f32,
    cohesion: f32,
    sigma: f32,
    beta: f32,
    pad0: f32,
    pad1: f32,
}

const WG: u32 = 256u;

// The linear index of an invocation in a dispatch of (x, y) workgroups of WG.
fn linear_id(gid: vec3<u32>, nwg: vec3<u32>) -> u32 {
    return gid.x + gid.y * nwg.x * WG;
}

// Cell coordinates of a position, clamped into the grid (as the CPU grid does).
fn cell_coords(x: vec3<f32>) -> vec3<u32> {
    let c = floor((x - P.origin) * P.inv_cell);
    let hi = vec3<f32>(P.dims - vec3<u32>(1u));
    return vec3<u32>(min(max(c, vec3<f32>(0.0)), hi));
}

fn linear_cell(c: vec3<u32>) -> u32 {
    return (c.z * P.dims.y + c.y) * P.dims.x + c.x;
}

// The neighbour block of a cell: the 3 x 3 x 3 cells around it, clamped into the grid. Every
// neighbour pass walks it as at most 9 rows of x-contiguous cells, z then y (the CPU grid's
// order), so each row's slots are one run start[r.x]..start[r.y] of a cell-start table.
struct Block {
    lo: vec3<u32>,
    hi: vec3<u32>,
}

// The block around the cell at coordinates c.
fn block_around(c: vec3<u32>) -> Block {
    let lo = select(c - vec3<u32>(1u), vec3<u32>(0u), c == vec3<u32>(0u));
    let hi = min(c + vec3<u32>(1u), P.dims - vec3<u32>(1u));
    return Block(lo, hi);
}

// The block around the cell of linear index c.
fn block_around_cell(c: u32) -> Block {
    let nx = P.dims.x;
    let ny = P.dims.y;
    return block_around(vec3<u32>(c % nx, (c / nx) % ny, c / (nx * ny)));
}

// Number of rows of the block.
fn block_rows(b: Block) -> u32 {
    return (b.hi.y - b.lo.y + 1u) * (b.hi.z - b.lo.z + 1u);
}

// Row k of the block (z, then y): its first cell and one past its last.
fn block_row(b: Block, k: u32) -> vec2<u32> {
    let ny = b.hi.y - b.lo.y + 1u;
    let y = b.lo.y + k % ny;
    let z = b.lo.z + k / ny;
    let row = (z * P.dims.y + y) * P.dims.x;
    return vec2<u32>(row + b.lo.x, row + b.hi.x + 1u);
}
