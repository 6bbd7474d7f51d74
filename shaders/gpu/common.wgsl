// Shared by every pass: the step's parameters and the per-phase constants.
struct Params {
    origin: vec3<f32>,
    cell: f32,
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
    has_walls: u32,
    uniform_mass: u32,
    n_body: u32,
    half_spacing: f32,
    n_boundary: u32,
    wall_samples: u32,
    pad0: u32,
}

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
    let c = floor((x - P.origin) / P.cell);
    let hi = vec3<f32>(P.dims - vec3<u32>(1u));
    return vec3<u32>(min(max(c, vec3<f32>(0.0)), hi));
}

fn linear_cell(c: vec3<u32>) -> u32 {
    return (c.z * P.dims.y + c.y) * P.dims.x + c.x;
}
