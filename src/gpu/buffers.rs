//! The liquid's GPU buffers in structure-of-arrays layout, sized and checked against the
//! adapter's limits (the per-particle arrays against two storage bindings each, see
//! `split`), and the memory they take per particle.
use super::context::GpuContext;
use super::{split, wall_gather};
use crate::{Error, Result};

/// `vec4<f32>` per particle.
pub const VEC4: u64 = 16;

/// Bit of [`GpuParams::flags`]: there are walls (`WALLS` in common.wgsl).
pub const FLAG_WALLS: u32 = 1;
/// Bit of [`GpuParams::flags`]: the walls' ghosts push in the relaxation (`[container]
/// ghost_pressure`; `GHOST_PRESSURE` in common.wgsl).
pub const FLAG_GHOST_PRESSURE: u32 = 2;

/// The step's parameters as the shaders see them (`Params` in common.wgsl).
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, bytemuck::Pod, bytemuck::Zeroable)]
pub struct GpuParams {
    /// Grid corner.
    pub origin: [f32; 3],
    /// 1 / cell size (1 / h): positions are binned by a product, as the CPU grid bins them.
    pub inv_cell: f32,
    /// Cells along x, y, z.
    pub dims: [u32; 3],
    /// Particles.
    pub n: u32,
    /// Gravity times dt.
    pub gravity_dt: [f32; 3],
    /// Kernel radius.
    pub h: f32,
    /// Lowest particle centre the walls allow.
    pub wall_lo: [f32; 3],
    /// Wall restitution.
    pub restitution: f32,
    /// Highest particle centre the walls allow.
    pub wall_hi: [f32; 3],
    /// Wall friction.
    pub friction: f32,
    /// Step.
    pub dt: f32,
    /// 1 / step.
    pub inv_dt: f32,
    /// 1 / h.
    pub inv_h: f32,
    /// Rest kernel sum.
    pub rho0: f32,
    /// Number of cells.
    pub ncells: u32,
    /// [`FLAG_WALLS`]: there are walls; [`FLAG_GHOST_PRESSURE`]: their ghosts push in the
    /// relaxation (`[container] ghost_pressure`).
    pub flags: u32,
    /// 1 when every particle has the same mass (pair weight 1/2).
    pub uniform_mass: u32,
    /// Body particles (contacts pass).
    pub n_body: u32,
    /// Half the liquid spacing (the walls' ghost lattice starts this far beyond their planes).
    pub half_spacing: f32,
    /// Body boundary particles binned into the grid (0: none, the density pass skips them).
    pub n_boundary: u32,
    /// Intervals of the walls' kernel-sum table (its entries less one).
    pub wall_samples: u32,
    /// Split point of the per-particle arrays bound in two parts (`split::split_point`).
    pub split: u32,
    /// The walls' viscous friction's peak rate, 1/s (0: none).
    pub drag: f32,
    /// How far from the walls' planes their viscous friction reaches, m.
    pub drag_reach: f32,
    /// The contacts pass's rows of grid cells per body particle: the side of the widest
    /// body particle's block of cells, squared (0 outside that pass).
    pub search_rows: u32,
    /// Padding to 16 bytes.
    pub pad: f32,
}

/// Per-phase constants (`Phase` in common.wgsl).
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, bytemuck::Pod, bytemuck::Zeroable)]
pub struct GpuPhase {
    /// Mass.
    pub mass: f32,
    /// Pressure factor.
    pub k_eff: f32,
    /// Near-pressure factor.
    pub k_near_eff: f32,
    /// 1 with cohesion, else 0.
    pub cohesion: f32,
    /// Linear viscosity.
    pub sigma: f32,
    /// Quadratic viscosity.
    pub beta: f32,
    /// Padding.
    pub pad: [f32; 2],
}

/// Every buffer the liquid step keeps on the GPU. Pairs are ping-pong buffers.
#[derive(Debug)]
pub struct LiquidBuffers {
    /// Positions (w: phase index), two buffers.
    pub pos: [wgpu::Buffer; 2],
    /// Velocities and start-of-step positions, the cursor's `vel` naming the velocities' (w:
    /// the kernel sum of the last density pass), the other the start-of-step positions in grid
    /// order. During a step the velocity buffer holds, in turn, the velocities, the predicted
    /// positions (from the cell-index pass to the gather) and the pressures (from the density
    /// pass to the velocity update).
    pub vel: [wgpu::Buffer; 2],
    /// Particle ids, two buffers.
    pub id: [wgpu::Buffer; 2],
    /// Cell of each particle (unsorted during the sort, then of each slot).
    pub cell_of: wgpu::Buffer,
    /// Sorting permutation: slot -> unsorted index.
    pub perm: wgpu::Buffer,
    /// Counts per cell (and the scatter's cursors, which count them back to zero), ncells + 1.
    pub cell_count: wgpu::Buffer,
    /// Exclusive prefix sum of the counts, ncells + 1.
    pub cell_start: wgpu::Buffer,
    /// Error flags: bit 0 non-finite position, bit 1 outside the grid.
    pub flags: wgpu::Buffer,
    /// Per-phase constants.
    pub phases: wgpu::Buffer,
    /// The walls' kernel-sum table, then the push's hydrostatic factor, `[f32; 2]` per entry
    /// (16 bytes unused without walls).
    pub wall_table: wgpu::Buffer,
    /// The walls' loads: per workgroup slot of the passes that change velocities at the walls,
    /// per wall, the impulse they gave the liquid and its moment (`wall_gather`), 192 bytes a
    /// slot (16 bytes unused without walls).
    pub wall_partials: wgpu::Buffer,
    /// The walls' loads over the frame's steps (`wall_loads`): per wall the summed impulse and
    /// angular impulse, the largest step force and torque (16 bytes unused without walls).
    pub wall_tally: wgpu::Buffer,
    /// The uniform `Params`.
    pub params: wgpu::Buffer,
    /// Bytes allocated in all of the above.
    pub bytes: u64,
}

/// Bytes of the walls' tally on the device (with walls).
pub const WALL_TALLY_BYTES: u64 = super::wall_loads::TALLY_VEC4S as u64 * VEC4;

/// Bytes of the walls' tally for `wall_slots` slots of partial sums (none without walls).
fn wall_tally_bytes(wall_slots: u64) -> u64 {
    if wall_slots > 0 { WALL_TALLY_BYTES } else { 0 }
}

/// The size a [`storage`] buffer of `size` bytes takes.
pub fn storage_size(size: u64) -> u64 {
    size.max(16).next_multiple_of(4)
}

/// Bytes that [`LiquidBuffers::new`] allocates for `n` particles, `ncells` cells, `phases`
/// phases, a walls' table of `wall_entries` entries and `wall_slots` slots of the walls' partial
/// sums (the accounting `check` reports).
pub fn liquid_bytes(n: u64, ncells: u64, phases: u64, wall_entries: u64, wall_slots: u64) -> u64 {
    let cells = (ncells + 1) * 4;
    [
        n * VEC4,
        n * VEC4,
        n * VEC4,
        n * VEC4,
        n * 4,
        n * 4,
        n * 4,
        n * 4,
        cells,
        cells,
        16,
        phases * std::mem::size_of::<GpuPhase>() as u64,
        wall_entries * 8,
        wall_slots * wall_gather::SLOT_BYTES,
        wall_tally_bytes(wall_slots),
    ]
    .iter()
    .map(|&b| storage_size(b))
    .sum::<u64>()
        + std::mem::size_of::<GpuParams>() as u64
}

/// Check that a buffer of `size` bytes fits one storage binding of this device.
pub fn check_fits(ctx: &GpuContext, what: &str, size: u64) -> Result<()> {
    let binding = ctx.limits.max_storage_buffer_binding_size;
    let max = binding.min(ctx.limits.max_buffer_size);
    if size > max {
        return Err(Error::input(format!(
            "the scene is too large for the GPU {}: its {what} buffer needs {size} bytes, \
             more than one storage binding holds ({max} bytes); fix: use fewer particles \
             (a larger spacing), a smaller container, or --backend cpu",
            ctx.info.name
        )));
    }
    Ok(())
}

/// Check that a per-particle array of `n` elements of `element` bytes fits one buffer of this
/// device and at most [`split::MAX_PARTS`] storage bindings of it (split at the device's split
/// point).
pub fn check_parts(ctx: &GpuContext, what: &str, n: u64, element: u64) -> Result<()> {
    let size = n * element;
    let max = ctx.limits.max_buffer_size;
    let binding = ctx.limits.max_storage_buffer_binding_size;
    let parts = split::parts(n, split::split_point(binding));
    let problem = if size > max {
        format!(", more than one buffer holds ({max} bytes)")
    } else if parts > split::MAX_PARTS {
        format!(
            " in {parts} storage bindings of at most {binding} bytes, more than the {} the \
             GPU backend splits an array into",
            split::MAX_PARTS
        )
    } else {
        return Ok(());
    };
    Err(Error::input(format!(
        "the scene is too large for the GPU {}: its {what} buffer needs {size} bytes\
         {problem}; fix: use fewer particles (a larger spacing), a smaller container, or \
         --backend cpu",
        ctx.info.name
    )))
}

/// A storage buffer of `size` bytes (at least 16), counted into `bytes`.
pub fn storage(ctx: &GpuContext, label: &str, size: u64, bytes: &mut u64) -> Result<wgpu::Buffer> {
    check_fits(ctx, label, size)?;
    unchecked_storage(ctx, label, size, bytes)
}

/// A per-particle storage buffer of `n` elements of `element` bytes, bound in up to
/// [`split::MAX_PARTS`] parts, counted into `bytes`.
pub fn particle_storage(
    ctx: &GpuContext,
    label: &str,
    n: u64,
    element: u64,
    bytes: &mut u64,
) -> Result<wgpu::Buffer> {
    check_parts(ctx, label, n, element)?;
    unchecked_storage(ctx, label, n * element, bytes)
}

fn unchecked_storage(
    ctx: &GpuContext,
    label: &str,
    size: u64,
    bytes: &mut u64,
) -> Result<wgpu::Buffer> {
    let size = storage_size(size);
    *bytes += size;
    Ok(ctx.device.create_buffer(&wgpu::BufferDescriptor {
        label: Some(label),
        size,
        usage: wgpu::BufferUsages::STORAGE
            | wgpu::BufferUsages::COPY_SRC
            | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    }))
}

impl LiquidBuffers {
    /// Allocate the buffers for `n` particles, `ncells` cells, `phases` phases, a walls' table
    /// of `wall_entries` entries and `wall_slots` slots of the walls' partial sums.
    pub fn new(
        ctx: &GpuContext,
        n: u64,
        ncells: u64,
        phases: u64,
        wall_entries: u64,
        wall_slots: u64,
    ) -> Result<LiquidBuffers> {
        let mut b = 0u64;
        let cells = (ncells + 1) * 4;
        let buffers = LiquidBuffers {
            pos: [
                particle_storage(ctx, "position", n, VEC4, &mut b)?,
                particle_storage(ctx, "position", n, VEC4, &mut b)?,
            ],
            vel: [
                particle_storage(ctx, "velocity", n, VEC4, &mut b)?,
                particle_storage(ctx, "velocity", n, VEC4, &mut b)?,
            ],
            id: [
                particle_storage(ctx, "id", n, 4, &mut b)?,
                particle_storage(ctx, "id", n, 4, &mut b)?,
            ],
            cell_of: particle_storage(ctx, "cell index", n, 4, &mut b)?,
            perm: particle_storage(ctx, "permutation", n, 4, &mut b)?,
            cell_count: storage(ctx, "cell count", cells, &mut b)?,
            cell_start: storage(ctx, "cell start", cells, &mut b)?,
            flags: storage(ctx, "flags", 16, &mut b)?,
            phases: storage(
                ctx,
                "phases",
                phases * std::mem::size_of::<GpuPhase>() as u64,
                &mut b,
            )?,
            wall_table: storage(ctx, "wall table", wall_entries * 8, &mut b)?,
            wall_partials: storage(
                ctx,
                "wall partial sums",
                wall_slots * wall_gather::SLOT_BYTES,
                &mut b,
            )?,
            wall_tally: storage(ctx, "wall tally", wall_tally_bytes(wall_slots), &mut b)?,
            params: {
                let size = std::mem::size_of::<GpuParams>() as u64;
                b += size;
                ctx.device.create_buffer(&wgpu::BufferDescriptor {
                    label: Some("params"),
                    size,
                    usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
                    mapped_at_creation: false,
                })
            },
            bytes: 0,
        };
        assert_eq!(b, liquid_bytes(n, ncells, phases, wall_entries, wall_slots));
        Ok(LiquidBuffers {
            bytes: b,
            ..buffers
        })
    }
}

/// The body boundary particles' buffers: what the CPU uploads each step, their bins in the
/// liquid grid's cells and their uniform (the step's `Params` with `n` their number). Their
/// counts borrow the liquid's count buffer, free once the liquid's scatter is done.
#[derive(Debug)]
pub struct BoundaryBuffers {
    /// Particles the buffers hold.
    pub capacity: u64,
    /// World positions (w: weight) in the CPU's order (body, then particle).
    pub input: wgpu::Buffer,
    /// Cell of each uploaded particle.
    pub cell_of: wgpu::Buffer,
    /// Sorting permutation: slot -> uploaded index.
    pub perm: wgpu::Buffer,
    /// Positions (w: weight) in (cell, index) order.
    pub sorted: wgpu::Buffer,
    /// Exclusive prefix sum of the particles per cell, ncells + 1 (16 bytes when empty).
    pub cell_start: wgpu::Buffer,
    /// The uniform `Params` with `n` the number of boundary particles.
    pub params: wgpu::Buffer,
    /// Bytes allocated in all of the above.
    pub bytes: u64,
}

/// Bytes that [`BoundaryBuffers::new`] allocates for `capacity` particles over `ncells`
/// cells.
pub fn boundary_bytes(capacity: u64, ncells: u64) -> u64 {
    let cells = if capacity == 0 { 0 } else { (ncells + 1) * 4 };
    [
        capacity * VEC4,
        capacity * 4,
        capacity * 4,
        capacity * VEC4,
        cells,
    ]
    .iter()
    .map(|&b| storage_size(b))
    .sum::<u64>()
        + std::mem::size_of::<GpuParams>() as u64
}

impl BoundaryBuffers {
    /// Buffers for `capacity` particles over `ncells` cells; with no particles, 16-byte
    /// placeholders that the density pass binds but never reads.
    pub fn new(ctx: &GpuContext, capacity: u64, ncells: u64) -> Result<BoundaryBuffers> {
        let mut b = 0u64;
        let cells = if capacity == 0 { 0 } else { (ncells + 1) * 4 };
        let size = std::mem::size_of::<GpuParams>() as u64;
        let buffers = BoundaryBuffers {
            capacity,
            input: storage(ctx, "boundary particle", capacity * VEC4, &mut b)?,
            cell_of: storage(ctx, "boundary cell index", capacity * 4, &mut b)?,
            perm: storage(ctx, "boundary permutation", capacity * 4, &mut b)?,
            sorted: storage(ctx, "sorted boundary particle", capacity * VEC4, &mut b)?,
            cell_start: storage(ctx, "boundary cell start", cells, &mut b)?,
            params: ctx.device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("boundary params"),
                size,
                usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
                mapped_at_creation: false,
            }),
            bytes: 0,
        };
        assert_eq!(b + size, boundary_bytes(capacity, ncells));
        Ok(BoundaryBuffers {
            bytes: b + size,
            ..buffers
        })
    }
}

/// Read `len` values of `T` from the start of a GPU buffer (through a staging buffer).
pub fn read<T: bytemuck::Pod>(ctx: &GpuContext, buf: &wgpu::Buffer, len: usize) -> Result<Vec<T>> {
    let size = (len * std::mem::size_of::<T>()) as u64;
    if size == 0 {
        return Ok(Vec::new());
    }
    let staging = ctx.device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("download"),
        size: size.next_multiple_of(4),
        usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    });
    let mut enc = ctx
        .device
        .create_command_encoder(&wgpu::CommandEncoderDescriptor {
            label: Some("download"),
        });
    enc.copy_buffer_to_buffer(buf, 0, &staging, 0, size.next_multiple_of(4));
    ctx.queue.submit([enc.finish()]);
    map_read(ctx, &staging, size.next_multiple_of(4), |bytes| {
        bytemuck::pod_collect_to_vec::<u8, T>(&bytes[..size as usize])
    })
}

/// Wait for the submitted work, map the first `size` bytes of the `MAP_READ` buffer
/// `staging`, hand them to `read`, and unmap.
pub fn map_read<T>(
    ctx: &GpuContext,
    staging: &wgpu::Buffer,
    size: u64,
    read: impl FnOnce(&[u8]) -> T,
) -> Result<T> {
    let (tx, rx) = std::sync::mpsc::channel();
    staging.map_async(wgpu::MapMode::Read, ..size, move |r| {
        let _ = tx.send(r);
    });
    ctx.wait()?;
    rx.recv()
        .map_err(|_| Error::Run("the GPU download never completed".into()))?
        .map_err(|e| Error::Run(format!("mapping a GPU buffer failed: {e}")))?;
    let view = staging
        .get_mapped_range(..size)
        .map_err(|e| Error::Run(format!("reading a GPU buffer failed: {e:?}")))?;
    let out = read(&view);
    drop(view);
    staging.unmap();
    Ok(out)
}
