//! The GPU backend: the liquid step as WGSL compute kernels through wgpu. Each pass has its
//! module here and its shader in `shaders/gpu/` under the same name, a `dispatch` and a CPU
//! twin that the tests hold it against.
//!
//! One step, in the CPU step's order: `velocity::gravity`; `viscosity` (on the previous
//! step's grid, as the CPU uses the previous step's lists); the grid build (`cell_index`
//! predicts `x + v dt` over the velocity buffer and bins it, `count`, `prefix_sum`, `scatter`
//! with a per-cell sort by id and a gather, so the order is the CPU grid's (cell, id)); with
//! bodies, `boundary_grid` bins this step's body boundary particles into the same cells,
//! sorted by (cell, index) (its counts and prefix sum are the `count` and `prefix_sum` passes
//! again, into a cell-start buffer of their own); per relaxation pass `density` (the liquid's
//! kernel sums, then the body boundary particles' from the 27 cells of their bins and the
//! walls' from their table, as the CPU adds them) then `relaxation` (ping-pong positions);
//! `walls`; `velocity::update`. No neighbour lists: every neighbour pass loops the 27 cells
//! around a particle as 9 contiguous x-rows. Sums are gathers in grid order, so a run repeats
//! bit for bit on the same device; the atomics only choose slots that the per-cell sort then
//! orders.
//!
//! Memory per particle (structure of arrays): positions 2 x 16 B (w = phase), velocities
//! 2 x 16 B, start-of-step positions 16 B, ids 2 x 4 B, cell 4 B, permutation 4 B, kernel sum
//! 4 B, pressures 8 B: 108 B, plus 8 B per grid cell (counts, starts), the prefix sum's level
//! totals and the walls' table (65 x 8 B). Bodies add, from the first upload of their boundary
//! particles, 40 B per boundary particle (uploaded position and weight 16 B, cell 4 B,
//! permutation 4 B, sorted copy 16 B; only the 16 B upload crosses the bus each step) and 4 B
//! per grid cell (their cell starts; their counts borrow the liquid's count buffer) with a
//! second prefix sum's level totals. All of it is counted by
//! [`GpuLiquidSolver::bytes_allocated`].
pub mod boundary_grid;
pub mod buffers;
pub mod cell_index;
pub mod contacts;
pub mod context;
pub mod count;
pub mod density;
pub mod impulses;
pub mod kernel;
pub mod liquid;
pub mod prefix_sum;
pub mod push_out;
pub mod relaxation;
pub mod scatter;
pub mod velocity;
pub mod viscosity;
pub mod walls;

use crate::liquid::boundary::{BoundaryGrid, BoundaryParticles, WALL_TABLE_SAMPLES, WallKernel};
use crate::liquid::grid::{Grid, MAX_CELLS};
use crate::liquid::{LiquidParams, Particles};
pub use crate::timing::Timing;
use crate::timing::{Phase, PhaseTimes};
use crate::{Error, Result};
use buffers::{BoundaryBuffers, GpuParams, GpuPhase, LiquidBuffers};
use context::GpuContext;
use glam::Vec3A;
pub use liquid::GpuLiquid;
use std::time::Instant;

/// The compiled passes.
#[derive(Debug)]
struct Passes {
    cell_index: cell_index::CellIndex,
    count: count::Count,
    prefix: prefix_sum::PrefixSum,
    scatter: scatter::Scatter,
    boundary_grid: boundary_grid::BoundaryGridPass,
    density: density::Density,
    relaxation: relaxation::Relaxation,
    viscosity: viscosity::Viscosity,
    walls: walls::WallsPass,
    velocity: velocity::Velocity,
    contacts: contacts::Contacts,
    impulses: impulses::Impulses,
    push_out: push_out::PushOut,
}

/// Where the grid lies: the container (one cell of margin), or without one the initial extent
/// with a wide margin, which the liquid must not leave.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GridSpec {
    /// Lowest corner.
    pub origin: Vec3A,
    /// Cells along x, y, z.
    pub dims: [u32; 3],
    /// Whether the bounds are the container's (particles outside are clamped into border
    /// cells, which stays correct) or a fixed box the liquid must stay in.
    pub container: bool,
}

impl GridSpec {
    /// The grid for these parameters and initial particles.
    pub fn new(params: &LiquidParams, p: &Particles) -> Result<GridSpec> {
        let h = params.h;
        let (lo, hi, container) = match &params.walls {
            Some(w) => (w.lo - Vec3A::splat(h), w.hi + Vec3A::splat(h), true),
            None => {
                let (mut lo, mut hi) =
                    (Vec3A::splat(f32::INFINITY), Vec3A::splat(f32::NEG_INFINITY));
                for &x in &p.pos {
                    lo = lo.min(x);
                    hi = hi.max(x);
                }
                if p.is_empty() {
                    (lo, hi) = (Vec3A::ZERO, Vec3A::ZERO);
                }
                let margin = ((hi - lo) * 0.5).max(Vec3A::splat(8.0 * h));
                (lo - margin, hi + margin, false)
            }
        };
        let span = ((hi - lo) / h).floor() + Vec3A::ONE;
        let cells = span.x as f64 * span.y as f64 * span.z as f64;
        if cells > MAX_CELLS as f64 {
            return Err(Error::input(format!(
                "the GPU grid over {:.3?} m would have {cells:.0} cells of {h} m (at most {MAX_CELLS}); \
                 fix: a smaller container or a larger spacing",
                hi - lo
            )));
        }
        Ok(GridSpec {
            origin: lo,
            dims: [span.x as u32, span.y as u32, span.z as u32],
            container,
        })
    }

    /// Number of cells.
    pub fn cells(&self) -> u32 {
        self.dims[0] * self.dims[1] * self.dims[2]
    }
}

/// Which of each pair of ping-pong buffers holds the current data.
#[derive(Debug, Clone, Copy, Default)]
struct Cursor {
    pos: usize,
    vel: usize,
    id: usize,
}

/// Timestamp queries of one step.
#[derive(Debug)]
struct Stamps {
    set: wgpu::QuerySet,
    resolve: wgpu::Buffer,
    capacity: u32,
}

/// The liquid solver on the GPU: buffers, pipelines and the step.
pub struct GpuLiquidSolver {
    /// The device.
    pub ctx: GpuContext,
    /// Parameters derived from the scene.
    pub params: LiquidParams,
    /// The grid's bounds.
    pub grid: GridSpec,
    bufs: LiquidBuffers,
    passes: Passes,
    boundary: BoundaryBuffers,
    boundary_prefix: Option<prefix_sum::PrefixSum>,
    n_boundary: u32,
    boundary_binned: bool,
    cur: Cursor,
    n: u32,
    ncells: u32,
    dt: f32,
    has_grid: bool,
    uploaded: bool,
    stamps: Option<Stamps>,
    gp: GpuParams,
}

impl std::fmt::Debug for GpuLiquidSolver {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("GpuLiquidSolver")
            .field("ctx", &self.ctx)
            .field("particles", &self.n)
            .field("grid", &self.grid)
            .finish()
    }
}

fn v3(v: Vec3A) -> [f32; 3] {
    [v.x, v.y, v.z]
}

impl GpuLiquidSolver {
    /// A solver for `params` sized for the particles `p` (uploaded before the first step).
    pub fn new(ctx: GpuContext, params: LiquidParams, p: &Particles) -> Result<GpuLiquidSolver> {
        let grid = GridSpec::new(&params, p)?;
        let n = u32::try_from(p.len())
            .map_err(|_| Error::input("more than 2^32 particles cannot run on the GPU"))?;
        let ncells = grid.cells();
        let wall_kernel = params
            .walls
            .as_ref()
            .map(|_| WallKernel::new(params.spacing, params.h));
        let bufs = LiquidBuffers::new(
            &ctx,
            n as u64,
            ncells as u64,
            params.phases.len().max(1) as u64,
            wall_kernel.as_ref().map_or(0, |k| k.table.len() as u64),
        )?;
        if let Some(k) = &wall_kernel {
            ctx.queue
                .write_buffer(&bufs.wall_table, 0, bytemuck::cast_slice(&k.table));
        }
        let boundary = BoundaryBuffers::new(&ctx, 0, 0)?;
        let device = &ctx.device;
        let prefix =
            prefix_sum::PrefixSum::new(&ctx, &bufs.cell_count, &bufs.cell_start, ncells + 1)?;
        let passes = Passes {
            cell_index: cell_index::CellIndex::new(device),
            count: count::Count::new(device),
            prefix,
            scatter: scatter::Scatter::new(device),
            boundary_grid: boundary_grid::BoundaryGridPass::new(device),
            density: density::Density::new(device),
            relaxation: relaxation::Relaxation::new(device),
            viscosity: viscosity::Viscosity::new(device),
            walls: walls::WallsPass::new(device),
            velocity: velocity::Velocity::new(device),
            contacts: contacts::Contacts::new(device),
            impulses: impulses::Impulses::new(device),
            push_out: push_out::PushOut::new(device),
        };
        let stamps = ctx.timestamps.then(|| {
            let capacity = 64;
            Stamps {
                set: device.create_query_set(&wgpu::QuerySetDescriptor {
                    label: Some("phase timestamps"),
                    ty: wgpu::QueryType::Timestamp,
                    count: capacity,
                }),
                resolve: device.create_buffer(&wgpu::BufferDescriptor {
                    label: Some("timestamps"),
                    size: capacity as u64 * 8,
                    usage: wgpu::BufferUsages::QUERY_RESOLVE | wgpu::BufferUsages::COPY_SRC,
                    mapped_at_creation: false,
                }),
                capacity,
            }
        });
        let phases: Vec<GpuPhase> = params
            .phases
            .iter()
            .map(|ph| GpuPhase {
                mass: ph.mass,
                k_eff: ph.k_eff,
                k_near_eff: ph.k_near_eff,
                cohesion: if ph.cohesion { 1.0 } else { 0.0 },
                sigma: ph.sigma,
                beta: ph.beta,
                pad: [0.0; 2],
            })
            .collect();
        if !phases.is_empty() {
            ctx.queue
                .write_buffer(&bufs.phases, 0, bytemuck::cast_slice(&phases));
        }
        let mut s = GpuLiquidSolver {
            ctx,
            params,
            grid,
            bufs,
            passes,
            boundary,
            boundary_prefix: None,
            n_boundary: 0,
            boundary_binned: true,
            cur: Cursor::default(),
            n,
            ncells,
            dt: f32::NAN,
            has_grid: false,
            uploaded: false,
            stamps,
            gp: GpuParams::default(),
        };
        s.write_params(0.0);
        Ok(s)
    }

    /// Bytes of GPU memory allocated for the liquid (every persistent buffer).
    pub fn bytes_allocated(&self) -> u64 {
        self.bufs.bytes
            + self.passes.prefix.bytes
            + self.boundary.bytes
            + self.boundary_prefix.as_ref().map_or(0, |p| p.bytes)
    }

    /// GPU bytes per liquid particle.
    pub fn bytes_per_particle(&self) -> f64 {
        self.bytes_allocated() as f64 / (self.n.max(1)) as f64
    }

    /// Number of particles.
    pub fn len(&self) -> usize {
        self.n as usize
    }

    /// Whether there are no particles.
    pub fn is_empty(&self) -> bool {
        self.n == 0
    }

    /// Whether particles have been uploaded.
    pub fn is_uploaded(&self) -> bool {
        self.uploaded
    }

    fn write_params(&mut self, dt: f32) {
        let p = &self.params;
        let (lo, hi, rest, fric, has) = match &p.walls {
            Some(w) => (w.lo, w.hi, w.restitution, w.friction, 1),
            None => (Vec3A::ZERO, Vec3A::ZERO, 0.0, 0.0, 0),
        };
        let inv_dt = if dt > 0.0 { 1.0 / dt } else { 0.0 };
        let gp = GpuParams {
            origin: v3(self.grid.origin),
            cell: p.h,
            dims: self.grid.dims,
            n: self.n,
            gravity_dt: v3(p.gravity * dt),
            h: p.h,
            wall_lo: v3(lo),
            restitution: rest,
            wall_hi: v3(hi),
            friction: fric,
            dt,
            inv_dt,
            inv_h: 1.0 / p.h,
            rho0: p.rho0,
            ncells: self.ncells,
            has_walls: has,
            uniform_mass: (p.phases.len() == 1) as u32,
            n_body: 0,
            half_spacing: p.spacing / 2.0,
            n_boundary: self.n_boundary,
            wall_samples: WALL_TABLE_SAMPLES as u32,
            pad: 0,
        };
        let q = &self.ctx.queue;
        q.write_buffer(&self.bufs.params, 0, bytemuck::bytes_of(&gp));
        if self.boundary.capacity > 0 {
            let bp = GpuParams {
                n: self.n_boundary,
                ..gp
            };
            q.write_buffer(&self.boundary.params, 0, bytemuck::bytes_of(&bp));
        }
        self.gp = gp;
        self.dt = dt;
    }

    /// Copy particles to the GPU (in any order; the next grid build sorts them).
    pub fn upload(&mut self, p: &Particles) -> Result<()> {
        if p.len() != self.n as usize {
            return Err(Error::Run(format!(
                "the GPU solver holds {} particles, not {}",
                self.n,
                p.len()
            )));
        }
        let q = &self.ctx.queue;
        let pos: Vec<[f32; 4]> = p
            .pos
            .iter()
            .zip(&p.phase)
            .map(|(x, &ph)| [x.x, x.y, x.z, ph as f32])
            .collect();
        let prev: Vec<[f32; 4]> = p
            .prev
            .iter()
            .zip(&p.phase)
            .map(|(x, &ph)| [x.x, x.y, x.z, ph as f32])
            .collect();
        let vel: Vec<[f32; 4]> = p.vel.iter().map(|v| [v.x, v.y, v.z, 0.0]).collect();
        self.cur = Cursor::default();
        if self.n > 0 {
            q.write_buffer(&self.bufs.pos[0], 0, bytemuck::cast_slice(&pos));
            q.write_buffer(&self.bufs.prev, 0, bytemuck::cast_slice(&prev));
            q.write_buffer(&self.bufs.vel[0], 0, bytemuck::cast_slice(&vel));
            q.write_buffer(&self.bufs.id[0], 0, bytemuck::cast_slice(&p.id));
            q.write_buffer(&self.bufs.rho, 0, bytemuck::cast_slice(&p.rho));
        }
        q.write_buffer(&self.bufs.flags, 0, &[0u8; 16]);
        self.has_grid = false;
        self.uploaded = true;
        Ok(())
    }

    /// Upload this step's body boundary particles (world positions and weights, in the CPU's
    /// order); the next density pass bins them first. Buffers are allocated on the first
    /// upload of any, so a scene without bodies has none.
    pub fn set_boundary(&mut self, b: &BoundaryParticles) -> Result<()> {
        let nb = u32::try_from(b.len())
            .map_err(|_| Error::input("more than 2^32 body boundary particles"))?;
        let grown = nb as u64 > self.boundary.capacity;
        if grown {
            self.boundary = BoundaryBuffers::new(&self.ctx, nb as u64, self.ncells as u64)?;
            self.boundary_prefix = Some(prefix_sum::PrefixSum::new(
                &self.ctx,
                &self.bufs.cell_count,
                &self.boundary.cell_start,
                self.ncells + 1,
            )?);
        }
        if nb > 0 {
            let data: Vec<[f32; 4]> = b
                .pos
                .iter()
                .zip(&b.weight)
                .map(|(x, &w)| [x.x, x.y, x.z, w])
                .collect();
            self.ctx
                .queue
                .write_buffer(&self.boundary.input, 0, bytemuck::cast_slice(&data));
        }
        if grown || nb != self.n_boundary {
            self.n_boundary = nb;
            self.write_params(self.dt);
        }
        self.boundary_binned = nb == 0;
        Ok(())
    }

    /// The body boundary particles' bins as a CPU [`BoundaryGrid`] (empty when there are none).
    pub fn download_boundary_grid(&self) -> Result<BoundaryGrid> {
        let nb = self.n_boundary as usize;
        if nb == 0 {
            return Ok(BoundaryGrid::default());
        }
        let b = &self.boundary;
        let cell_start = buffers::read(&self.ctx, &b.cell_start, self.ncells as usize + 1)?;
        let sorted: Vec<[f32; 4]> = buffers::read(&self.ctx, &b.sorted, nb)?;
        Ok(BoundaryGrid::from_parts(
            cell_start,
            BoundaryParticles {
                pos: sorted
                    .iter()
                    .map(|v| Vec3A::new(v[0], v[1], v[2]))
                    .collect(),
                weight: sorted.iter().map(|v| v[3]).collect(),
            },
        ))
    }

    /// Copy the particles back, in grid order, with their kernel sums; fails when a position
    /// became non-finite, or (without a container) left the grid.
    pub fn download(&self) -> Result<Particles> {
        self.check_flags()?;
        let n = self.n as usize;
        let b = &self.bufs;
        let pos: Vec<[f32; 4]> = buffers::read(&self.ctx, &b.pos[self.cur.pos], n)?;
        let prev: Vec<[f32; 4]> = buffers::read(&self.ctx, &b.prev, n)?;
        let vel: Vec<[f32; 4]> = buffers::read(&self.ctx, &b.vel[self.cur.vel], n)?;
        let id: Vec<u32> = buffers::read(&self.ctx, &b.id[self.cur.id], n)?;
        let rho: Vec<f32> = buffers::read(&self.ctx, &b.rho, n)?;
        let xyz = |v: &[f32; 4]| Vec3A::new(v[0], v[1], v[2]);
        Ok(Particles {
            pos: pos.iter().map(xyz).collect(),
            prev: prev.iter().map(xyz).collect(),
            vel: vel.iter().map(xyz).collect(),
            phase: pos.iter().map(|v| v[3] as u32).collect(),
            id,
            rho,
        })
    }

    /// Fail if a pass flagged a non-finite position or (without a container) a particle
    /// outside the grid.
    pub fn check_flags(&self) -> Result<()> {
        let f: Vec<u32> = buffers::read(&self.ctx, &self.bufs.flags, 1)?;
        if f[0] & 1 != 0 {
            return Err(Error::Run(
                "a liquid particle's position is not finite (NaN or infinity): the step is \
                 unstable; lower time.substeps' step (raise substeps) or the stiffness"
                    .into(),
            ));
        }
        if f[0] & 2 != 0 && !self.grid.container {
            return Err(Error::Run(format!(
                "the liquid left the GPU grid ({:.3?} m to {:.3?} m), which a scene without a \
                 container fixes from the initial extent; give the scene a container, or use \
                 --backend cpu",
                self.grid.origin,
                self.grid.origin
                    + Vec3A::from_array(self.grid.dims.map(|d| d as f32)) * self.params.h
            )));
        }
        Ok(())
    }

    /// The current grid as a CPU [`Grid`] (cell starts and the cell of each slot).
    pub fn download_grid(&self) -> Result<Grid> {
        let start: Vec<u32> =
            buffers::read(&self.ctx, &self.bufs.cell_start, self.ncells as usize + 1)?;
        let cell_of: Vec<u32> = buffers::read(&self.ctx, &self.bufs.cell_of, self.n as usize)?;
        Ok(Grid::from_parts(
            self.params.h,
            self.grid.origin,
            self.grid.dims,
            start,
            cell_of,
        ))
    }

    /// An empty CPU grid with the GPU grid's bounds (for the twins).
    pub fn empty_grid(&self) -> Grid {
        Grid::from_parts(
            self.params.h,
            self.grid.origin,
            self.grid.dims,
            Vec::new(),
            Vec::new(),
        )
    }

    /// The cell counts (after a grid build, they hold the scatter's cursors: the same counts;
    /// after a binning of body boundary particles, theirs).
    pub fn download_counts(&self) -> Result<Vec<u32>> {
        buffers::read(&self.ctx, &self.bufs.cell_count, self.ncells as usize + 1)
    }

    /// Pressures and near pressures of the last density pass.
    pub fn download_press(&self) -> Result<Vec<[f32; 2]>> {
        buffers::read(&self.ctx, &self.bufs.press, self.n as usize)
    }

    fn ensure_dt(&mut self, dt: f32) {
        if self.dt != dt {
            self.write_params(dt);
        }
    }

    // ----- Recording each phase -----

    fn rec_gravity(&self, pass: &mut wgpu::ComputePass<'_>) {
        let b = &self.bufs;
        self.passes.velocity.dispatch(
            &self.ctx.device,
            pass,
            "gravity",
            &b.params,
            &b.pos[self.cur.pos],
            &b.prev,
            &b.vel[self.cur.vel],
            self.n,
        );
    }

    fn rec_viscosity(&self, pass: &mut wgpu::ComputePass<'_>) -> Cursor {
        let b = &self.bufs;
        let c = self.cur;
        self.passes.viscosity.dispatch(
            &self.ctx.device,
            pass,
            &b.params,
            &b.pos[c.pos],
            &b.cell_of,
            &b.cell_start,
            &b.phases,
            &b.vel[c.vel],
            &b.vel[1 - c.vel],
            self.n,
        );
        Cursor {
            vel: 1 - c.vel,
            ..c
        }
    }

    fn rec_grid(&self, pass: &mut wgpu::ComputePass<'_>) -> Cursor {
        let b = &self.bufs;
        let c = self.cur;
        let d = &self.ctx.device;
        let p = &self.passes;
        p.cell_index.dispatch(
            d,
            pass,
            &b.params,
            &b.pos[c.pos],
            &b.vel[c.vel],
            &b.cell_of,
            &b.flags,
            self.n,
        );
        p.count
            .clear(d, pass, &b.params, &b.cell_of, &b.cell_count, self.ncells);
        p.count
            .dispatch(d, pass, &b.params, &b.cell_of, &b.cell_count, self.n);
        p.prefix.dispatch(pass);
        p.count
            .clear(d, pass, &b.params, &b.cell_of, &b.cell_count, self.ncells);
        let sb = scatter::ScatterBuffers {
            cell_of: &b.cell_of,
            cell_start: &b.cell_start,
            cursor: &b.cell_count,
            perm: &b.perm,
            id_in: &b.id[c.id],
            pos_in: &b.pos[c.pos],
            pred: &b.vel[c.vel],
            pos_out: &b.pos[1 - c.pos],
            prev_out: &b.prev,
            id_out: &b.id[1 - c.id],
        };
        p.scatter
            .dispatch(d, pass, &b.params, &sb, self.n, self.ncells);
        Cursor {
            pos: 1 - c.pos,
            id: 1 - c.id,
            vel: c.vel,
        }
    }

    /// Bin the body boundary particles (their counts in the liquid's count buffer, whose
    /// counts the liquid no longer needs once its scatter is done).
    fn rec_boundary_grid(&self, pass: &mut wgpu::ComputePass<'_>) {
        let (Some(prefix), nb) = (&self.boundary_prefix, self.n_boundary) else {
            return;
        };
        if nb == 0 {
            return;
        }
        let d = &self.ctx.device;
        let p = &self.passes;
        let b = &self.boundary;
        let count = &self.bufs.cell_count;
        let bb = boundary_grid::BoundaryGridBuffers {
            input: &b.input,
            cell_of: &b.cell_of,
            cell_start: &b.cell_start,
            cursor: count,
            perm: &b.perm,
            sorted: &b.sorted,
        };
        p.boundary_grid.dispatch_cells(d, pass, &b.params, &bb, nb);
        p.count
            .clear(d, pass, &b.params, &b.cell_of, count, self.ncells);
        p.count.dispatch(d, pass, &b.params, &b.cell_of, count, nb);
        prefix.dispatch(pass);
        p.count
            .clear(d, pass, &b.params, &b.cell_of, count, self.ncells);
        p.boundary_grid
            .dispatch_sort(d, pass, &b.params, &bb, nb, self.ncells);
    }

    fn rec_density(&self, pass: &mut wgpu::ComputePass<'_>) {
        let b = &self.bufs;
        let db = density::DensityBuffers {
            pos: &b.pos[self.cur.pos],
            cell_of: &b.cell_of,
            cell_start: &b.cell_start,
            phases: &b.phases,
            rho: &b.rho,
            press: &b.press,
            wall_table: &b.wall_table,
            boundary_start: &self.boundary.cell_start,
            boundary: &self.boundary.sorted,
        };
        self.passes
            .density
            .dispatch(&self.ctx.device, pass, &b.params, &db, self.n);
    }

    fn rec_relaxation(&self, pass: &mut wgpu::ComputePass<'_>) -> Cursor {
        let b = &self.bufs;
        let c = self.cur;
        self.passes.relaxation.dispatch(
            &self.ctx.device,
            pass,
            &b.params,
            &b.pos[c.pos],
            &b.cell_of,
            &b.cell_start,
            &b.phases,
            &b.press,
            &b.pos[1 - c.pos],
            self.n,
        );
        Cursor {
            pos: 1 - c.pos,
            ..c
        }
    }

    fn rec_walls(&self, pass: &mut wgpu::ComputePass<'_>) {
        let b = &self.bufs;
        self.passes.walls.dispatch(
            &self.ctx.device,
            pass,
            &b.params,
            &b.pos[self.cur.pos],
            &b.prev,
            self.n,
        );
    }

    fn rec_update(&self, pass: &mut wgpu::ComputePass<'_>) {
        let b = &self.bufs;
        self.passes.velocity.dispatch(
            &self.ctx.device,
            pass,
            "update",
            &b.params,
            &b.pos[self.cur.pos],
            &b.prev,
            &b.vel[self.cur.vel],
            self.n,
        );
    }

    /// Run one recorded phase on its own and wait for it (for the per-pass tests).
    fn run_alone(
        &mut self,
        dt: f32,
        f: impl FnOnce(&Self, &mut wgpu::ComputePass<'_>) -> Option<Cursor>,
    ) -> Result<()> {
        if !self.uploaded {
            return Err(Error::Run(
                "GPU solver: upload particles before running a pass".into(),
            ));
        }
        self.ensure_dt(dt);
        let mut enc = self.ctx.device.create_command_encoder(&Default::default());
        let next = {
            let mut pass = enc.begin_compute_pass(&Default::default());
            f(self, &mut pass)
        };
        self.ctx.queue.submit([enc.finish()]);
        self.ctx.wait()?;
        if let Some(c) = next {
            self.cur = c;
        }
        Ok(())
    }

    /// Gravity alone: `v += g dt`.
    pub fn pass_gravity(&mut self, dt: f32) -> Result<()> {
        self.run_alone(dt, |s, p| {
            s.rec_gravity(p);
            None
        })
    }

    /// Viscosity alone, on the current grid.
    pub fn pass_viscosity(&mut self, dt: f32) -> Result<()> {
        self.run_alone(dt, |s, p| Some(s.rec_viscosity(p)))
    }

    /// The grid build alone: prediction by `dt`, cells, counts, prefix sum, scatter, sort.
    pub fn pass_grid(&mut self, dt: f32) -> Result<()> {
        self.run_alone(dt, |s, p| Some(s.rec_grid(p)))?;
        self.has_grid = true;
        Ok(())
    }

    /// Kernel sums and pressures alone (binning the body boundary particles first if they
    /// changed).
    pub fn pass_density(&mut self) -> Result<()> {
        let dt = self.dt;
        self.run_alone(dt, |s, p| {
            if !s.boundary_binned {
                s.rec_boundary_grid(p);
            }
            s.rec_density(p);
            None
        })?;
        self.boundary_binned = true;
        Ok(())
    }

    /// The binning of the body boundary particles alone.
    pub fn pass_boundary_grid(&mut self) -> Result<()> {
        let dt = self.dt;
        self.run_alone(dt, |s, p| {
            s.rec_boundary_grid(p);
            None
        })?;
        self.boundary_binned = true;
        Ok(())
    }

    /// Relaxation displacements alone (on the last pressures).
    pub fn pass_relaxation(&mut self, dt: f32) -> Result<()> {
        self.run_alone(dt, |s, p| Some(s.rec_relaxation(p)))
    }

    /// Wall collisions alone.
    pub fn pass_walls(&mut self, dt: f32) -> Result<()> {
        self.run_alone(dt, |s, p| {
            s.rec_walls(p);
            None
        })
    }

    /// Velocity update alone.
    pub fn pass_velocity(&mut self, dt: f32) -> Result<()> {
        self.run_alone(dt, |s, p| {
            s.rec_update(p);
            None
        })
    }

    /// Sort the particles into the grid without moving them (before the first step, whose
    /// viscosity needs a grid): the velocities are kept in the other buffer while the
    /// prediction by `dt = 0` overwrites them.
    pub fn rebuild_grid(&mut self) -> Result<()> {
        let mut enc = self.ctx.device.create_command_encoder(&Default::default());
        let (a, b) = (self.cur.vel, 1 - self.cur.vel);
        let size = self.n as u64 * buffers::VEC4;
        enc.copy_buffer_to_buffer(&self.bufs.vel[a], 0, &self.bufs.vel[b], 0, size);
        self.ctx.queue.submit([enc.finish()]);
        self.pass_grid(0.0)?;
        self.cur.vel = b;
        Ok(())
    }

    /// Advance the particles by `dt`, in the CPU step's order. `timing` says how the phases
    /// are timed into `times`.
    pub fn step(&mut self, dt: f32, timing: Timing, times: &mut PhaseTimes) -> Result<()> {
        if self.n == 0 {
            return Ok(());
        }
        if !self.uploaded {
            return Err(Error::Run(
                "GPU solver: upload particles before stepping".into(),
            ));
        }
        if !self.has_grid {
            let t = Instant::now();
            self.rebuild_grid()?;
            times.add(Phase::Grid, t.elapsed());
        }
        self.ensure_dt(dt);
        let timing = match (timing, &self.stamps) {
            (Timing::Timestamps, None) => Timing::Wall,
            (t, _) => t,
        };
        let viscous = crate::liquid::viscosity::any_viscosity(&self.params);
        let mut rec = Recorder::new(self, timing);
        rec.phase(self, Phase::Integrate, |s, p| {
            s.rec_gravity(p);
            None
        })?;
        if viscous {
            rec.phase(self, Phase::Viscosity, |s, p| Some(s.rec_viscosity(p)))?;
        }
        rec.phase(self, Phase::Grid, |s, p| Some(s.rec_grid(p)))?;
        if !self.boundary_binned {
            rec.phase(self, Phase::Grid, |s, p| {
                s.rec_boundary_grid(p);
                None
            })?;
            self.boundary_binned = true;
        }
        for _ in 0..self.params.passes {
            rec.phase(self, Phase::Density, |s, p| {
                s.rec_density(p);
                None
            })?;
            rec.phase(self, Phase::Relaxation, |s, p| Some(s.rec_relaxation(p)))?;
        }
        if self.params.walls.is_some() {
            rec.phase(self, Phase::Collisions, |s, p| {
                s.rec_walls(p);
                None
            })?;
        }
        rec.phase(self, Phase::Integrate, |s, p| {
            s.rec_update(p);
            None
        })?;
        rec.finish(self, times)?;
        self.has_grid = true;
        Ok(())
    }
}

/// Records a step's phases: into one submission, or one submission per phase with wall
/// times, or with timestamp queries around each phase's compute pass.
struct Recorder {
    enc: Option<wgpu::CommandEncoder>,
    timing: Timing,
    stamped: Vec<Phase>,
    wall: Vec<(Phase, std::time::Duration)>,
}

impl Recorder {
    fn new(s: &GpuLiquidSolver, timing: Timing) -> Recorder {
        Recorder {
            enc: Some(s.ctx.device.create_command_encoder(&Default::default())),
            timing,
            stamped: Vec::new(),
            wall: Vec::new(),
        }
    }

    fn phase(
        &mut self,
        s: &mut GpuLiquidSolver,
        phase: Phase,
        f: impl FnOnce(&GpuLiquidSolver, &mut wgpu::ComputePass<'_>) -> Option<Cursor>,
    ) -> Result<()> {
        let t = Instant::now();
        let enc = self.enc.as_mut().expect("an open encoder");
        let next = {
            let stamps = match (self.timing, &s.stamps) {
                (Timing::Timestamps, Some(st))
                    if (self.stamped.len() as u32 + 1) * 2 <= st.capacity =>
                {
                    let k = self.stamped.len() as u32 * 2;
                    self.stamped.push(phase);
                    Some(wgpu::ComputePassTimestampWrites {
                        query_set: &st.set,
                        beginning_of_pass_write_index: Some(k),
                        end_of_pass_write_index: Some(k + 1),
                    })
                }
                _ => None,
            };
            let mut pass = enc.begin_compute_pass(&wgpu::ComputePassDescriptor {
                label: Some(phase.name()),
                timestamp_writes: stamps,
            });
            f(s, &mut pass)
        };
        if let Some(c) = next {
            s.cur = c;
        }
        if self.timing == Timing::Wall {
            let enc = self.enc.take().expect("an open encoder");
            s.ctx.queue.submit([enc.finish()]);
            s.ctx.wait()?;
            self.enc = Some(s.ctx.device.create_command_encoder(&Default::default()));
            // Wall time of this phase: recording, submission and execution.
            self.wall.push((phase, t.elapsed()));
        }
        Ok(())
    }

    fn finish(mut self, s: &GpuLiquidSolver, times: &mut PhaseTimes) -> Result<()> {
        let mut enc = self.enc.take().expect("an open encoder");
        let stamped = std::mem::take(&mut self.stamped);
        let resolved = match (&s.stamps, stamped.is_empty()) {
            (Some(st), false) => {
                let count = stamped.len() as u32 * 2;
                enc.resolve_query_set(&st.set, 0..count, &st.resolve, 0);
                Some((st, count))
            }
            _ => None,
        };
        s.ctx.queue.submit([enc.finish()]);
        for (phase, d) in self.wall.drain(..) {
            times.add(phase, d);
        }
        if let Some((st, count)) = resolved {
            let ticks: Vec<u64> = buffers::read(&s.ctx, &st.resolve, count as usize)?;
            let period = s.ctx.queue.get_timestamp_period() as f64;
            for (k, phase) in stamped.iter().enumerate() {
                let ns = ticks[2 * k + 1].saturating_sub(ticks[2 * k]) as f64 * period;
                times.add(*phase, std::time::Duration::from_nanos(ns as u64));
            }
        } else {
            let _ = s.ctx.device.poll(wgpu::PollType::Poll);
        }
        Ok(())
    }
}
