//! The GPU liquid solver: its buffers and compiled passes, the upload of particles and body
//! boundary particles, and the step's orchestration (which phases run, in the CPU step's
//! order). Recording each phase is in `recording`, timing them in `timing`, reading results
//! back in `readback`, running one phase alone in `single_pass`.
use super::buffers::{self, BoundaryBuffers, GpuParams, GpuPhase, LiquidBuffers};
use super::context::GpuContext;
use super::grid_spec::GridSpec;
use super::timing::{Recorder, Stamps};
use super::{
    boundary_grid, cell_index, contacts, count, density, impulses, prefix_sum, push_out,
    relaxation, scatter, split, tile, velocity, viscosity, wall_gather, wall_loads, walls,
};
use crate::boundary::wall_kernel::{WALL_TABLE_SAMPLES, WallKernel};
use crate::liquid::{LiquidParams, Particles};
use crate::timing::{Phase, PhaseTimes, Timing};
use crate::{Error, Result};
use glam::Vec3A;
use std::time::Instant;

/// The compiled passes.
#[derive(Debug)]
pub(super) struct Passes {
    pub(super) cell_index: cell_index::CellIndex,
    pub(super) count: count::Count,
    pub(super) prefix: prefix_sum::PrefixSum,
    pub(super) scatter: scatter::Scatter,
    pub(super) boundary_grid: boundary_grid::BoundaryGridPass,
    pub(super) density: density::Density,
    pub(super) relaxation: relaxation::Relaxation,
    pub(super) viscosity: viscosity::Viscosity,
    pub(super) walls: walls::WallsPass,
    pub(super) velocity: velocity::Velocity,
    pub(super) contacts: contacts::Contacts,
    pub(super) impulses: impulses::Impulses,
    pub(super) push_out: push_out::PushOut,
    pub(super) wall_loads: wall_loads::WallLoadsPass,
}

/// Which of each pair of ping-pong buffers holds the current data.
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct Cursor {
    pub(super) pos: usize,
    pub(super) vel: usize,
    pub(super) id: usize,
}

/// The liquid solver on the GPU: buffers, pipelines and the step.
pub struct GpuLiquidSolver {
    /// The device.
    pub ctx: GpuContext,
    /// Parameters derived from the scene.
    pub params: LiquidParams,
    /// The grid's bounds.
    pub grid: GridSpec,
    pub(super) bufs: LiquidBuffers,
    pub(super) passes: Passes,
    pub(super) boundary: BoundaryBuffers,
    pub(super) boundary_prefix: Option<prefix_sum::PrefixSum>,
    pub(super) n_boundary: u32,
    pub(super) boundary_binned: bool,
    pub(super) cur: Cursor,
    /// Particles the step runs over now (at most [`GpuLiquidSolver::capacity`]; an upload
    /// sets it).
    pub(super) n: u32,
    /// Particles the buffers hold: every choice made at setup (the two-part split, the
    /// tiling, the walls' partial sums) holds for any count up to it.
    pub(super) capacity: u32,
    pub(super) ncells: u32,
    pub(super) dt: f32,
    pub(super) has_grid: bool,
    pub(super) uploaded: bool,
    pub(super) stamps: Option<Stamps>,
    pub(super) gp: GpuParams,
    /// The neighbour passes' tiled workgroups (one per segment, tile.rs), or `None` where
    /// they run untiled.
    pub(super) tiled: Option<u32>,
    /// The buffers of the exchange with the coupling, kept from step to step.
    pub(super) exchange: super::exchange::ExchangeBuffers,
    /// The host-visible buffer [`GpuLiquidSolver::download_into`] maps, made at its first
    /// call for the capacity and kept (host memory, not counted as the device's).
    pub(super) staging: Option<wgpu::Buffer>,
    /// The host scratch an upload fills each array into, kept from upload to upload.
    pub(super) host_vec4: Vec<[f32; 4]>,
    /// Slots of the walls' partial sums (0 without walls).
    pub(super) wall_slots: u64,
}

impl std::fmt::Debug for GpuLiquidSolver {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("GpuLiquidSolver")
            .field("ctx", &self.ctx)
            .field("particles", &self.n)
            .field("capacity", &self.capacity)
            .field("grid", &self.grid)
            .finish()
    }
}

/// A vector as the uniform's array.
pub(super) fn v3(v: Vec3A) -> [f32; 3] {
    [v.x, v.y, v.z]
}

impl GpuLiquidSolver {
    /// A solver for `params` sized for the particles `p` (uploaded before the first step).
    #[cfg_attr(not(test), allow(dead_code))]
    pub fn new(ctx: GpuContext, params: LiquidParams, p: &Particles) -> Result<GpuLiquidSolver> {
        GpuLiquidSolver::with_capacity(ctx, params, p, p.len())
    }

    /// A solver for `params` with the particles `p` (uploaded before the first step), its
    /// buffers sized for `capacity` particles (at least as many as `p` holds): any later upload
    /// of up to that many runs without a buffer or bind group made.
    pub fn with_capacity(
        ctx: GpuContext,
        params: LiquidParams,
        p: &Particles,
        capacity: usize,
    ) -> Result<GpuLiquidSolver> {
        let grid = GridSpec::new(&params, p)?;
        let n = count_of(p.len())?;
        let capacity = count_of(capacity.max(p.len()))?;
        let ncells = grid.cells();
        let wall_kernel = params
            .boundary
            .walls
            .as_ref()
            .map(|_| WallKernel::new(params.spacing, params.h));
        let walls = wall_kernel.is_some();
        let binding = binding_bytes(&ctx.limits);
        let tiled = (tile::enabled(&ctx.limits)?
            && wall_gather::WallPartials::tiles_fit(walls, capacity, grid.dims, binding))
        .then(|| tile::workgroups(grid.dims));
        let wall_slots = wall_gather::WallPartials::new(
            wall_kernel.is_some(),
            capacity,
            grid.dims,
            tiled.is_some(),
        )
        .slots;
        let bufs = LiquidBuffers::new(
            &ctx,
            capacity as u64,
            ncells as u64,
            params.phases.len().max(1) as u64,
            wall_kernel.as_ref().map_or(0, wall_entries),
            wall_slots,
        )?;
        if let Some(k) = &wall_kernel {
            ctx.queue
                .write_buffer(&bufs.wall_table, 0, bytemuck::cast_slice(&k.table));
            // The entry after the kernel sums: the push's hydrostatic factor, per pass, and the
            // lattice's moment C (the ghosts' share of the hydrostatic difference,
            // wall_kernel::support_share).
            let part = std::mem::size_of_val(k.table.as_slice()) as u64;
            let grad = k.grad / params.relaxation_passes.max(1) as f32;
            ctx.queue.write_buffer(
                &bufs.wall_table,
                part,
                bytemuck::bytes_of(&[grad, k.moment]),
            );
        }
        let boundary = BoundaryBuffers::new(&ctx, 0, 0)?;
        // The per-particle arrays go in two parts where they exceed one storage binding.
        let two = split::two_parts(capacity as u64, ctx.limits.max_storage_buffer_binding_size);
        if two {
            split::check_bindings(&ctx.limits, &ctx.info.name)?;
        }
        let device = &ctx.device;
        let prefix =
            prefix_sum::PrefixSum::new(&ctx, &bufs.cell_count, &bufs.cell_start, ncells + 1)?;
        let passes = Passes {
            cell_index: cell_index::CellIndex::new(device, two),
            count: count::Count::new(device),
            prefix,
            scatter: scatter::Scatter::new(device, two),
            boundary_grid: boundary_grid::BoundaryGridPass::new(device),
            density: density::Density::new(device, two),
            relaxation: relaxation::Relaxation::new(device, two),
            viscosity: viscosity::Viscosity::new(device, two),
            walls: walls::WallsPass::new(device, two),
            velocity: velocity::Velocity::new(device, two),
            contacts: contacts::Contacts::new(device, two),
            impulses: impulses::Impulses::new(device, two),
            push_out: push_out::PushOut::new(device, two),
            wall_loads: wall_loads::WallLoadsPass::new(device),
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
            capacity,
            ncells,
            dt: f32::NAN,
            has_grid: false,
            uploaded: false,
            stamps,
            gp: GpuParams::default(),
            tiled,
            exchange: super::exchange::ExchangeBuffers::new(),
            staging: None,
            host_vec4: Vec::new(),
            wall_slots,
        };
        s.bind_passes();
        s.write_params(0.0);
        Ok(s)
    }

    /// Bytes of GPU memory the liquid of `params` with the particles `p` needs (for tests: with
    /// room for just them); see [`GpuLiquidSolver::bytes_needed_for`].
    #[cfg(test)]
    pub fn bytes_needed(params: &LiquidParams, p: &Particles) -> Result<u64> {
        GpuLiquidSolver::bytes_needed_for(params, p, p.len())
    }

    /// Bytes of GPU memory the liquid of `params` with the particles `p` needs, with room for
    /// `capacity` particles (at least as many as `p` holds), before any body boundary
    /// particle: every buffer [`GpuLiquidSolver::with_capacity`] allocates (the body boundary
    /// particles' placeholders among them), counted as [`GpuLiquidSolver::bytes_allocated`]
    /// counts them, without a device (the walls' partial sums for the tiled passes where the
    /// knob asks for them).
    pub fn bytes_needed_for(params: &LiquidParams, p: &Particles, capacity: usize) -> Result<u64> {
        let capacity = capacity.max(p.len());
        let grid = GridSpec::new(params, p)?;
        let ncells = grid.cells();
        let walls = params.boundary.walls.is_some();
        let table = params.boundary.walls.as_ref().map_or(0, |_| {
            wall_entries(&WallKernel::new(params.spacing, params.h))
        });
        let n = u32::try_from(capacity).unwrap_or(u32::MAX);
        // Tiled where the knob asks and the partial sums fit a binding of wgpu's defaults.
        let limits = wgpu::Limits::default();
        let binding = split::binding_limit(limits.max_storage_buffer_binding_size)?;
        let tiled =
            tile::wanted()? && wall_gather::WallPartials::tiles_fit(walls, n, grid.dims, binding);
        let slots = wall_gather::WallPartials::new(walls, n, grid.dims, tiled).slots;
        Ok(buffers::liquid_bytes(
            capacity as u64,
            ncells as u64,
            params.phases.len().max(1) as u64,
            table,
            slots,
        ) + prefix_sum::bytes_for(ncells + 1)
            + buffers::boundary_bytes(0, 0))
    }

    /// Compute dispatches recorded so far (every pass's, the coupling's included).
    pub fn dispatches(&self) -> u64 {
        let p = &self.passes;
        [
            &p.cell_index.kernel,
            &p.count.kernel,
            &p.scatter.kernel,
            &p.boundary_grid.kernel,
            &p.density.kernel,
            &p.relaxation.kernel,
            &p.viscosity.kernel,
            &p.walls.kernel,
            &p.velocity.kernel,
            &p.contacts.kernel,
            &p.impulses.kernel,
            &p.push_out.kernel,
            &p.wall_loads.kernel,
        ]
        .iter()
        .map(|k| k.dispatched())
        .sum::<u64>()
            + p.prefix.dispatched()
            + self.boundary_prefix.as_ref().map_or(0, |b| b.dispatched())
    }

    /// Whether the neighbour passes run tiled through workgroup memory (tile.rs).
    pub fn is_tiled(&self) -> bool {
        self.tiled.is_some()
    }

    /// Run the neighbour passes tiled (`true`, where the device allows it) or untiled, from
    /// the next recorded pass on, whatever the knob says (tests compare the two paths).
    #[cfg_attr(not(test), allow(dead_code))]
    pub fn set_tiled(&mut self, on: bool) -> Result<()> {
        let walls = self.params.boundary.walls.is_some();
        let binding = binding_bytes(&self.ctx.limits);
        let fit =
            wall_gather::WallPartials::tiles_fit(walls, self.capacity, self.grid.dims, binding);
        self.tiled =
            (on && tile::fits(&self.ctx.limits) && fit).then(|| tile::workgroups(self.grid.dims));
        // The tiled relaxation gathers the walls' loads per segment: as many slots.
        let slots = wall_gather::WallPartials::new(
            walls,
            self.capacity,
            self.grid.dims,
            self.tiled.is_some(),
        );
        if slots.slots > self.wall_slots {
            let b = &mut self.bufs;
            b.bytes -= buffers::storage_size(b.wall_partials.size());
            b.wall_partials =
                buffers::storage(&self.ctx, "wall partial sums", slots.bytes(), &mut b.bytes)?;
            self.wall_slots = slots.slots;
            self.bind_passes();
        }
        Ok(())
    }

    /// Which paths the step takes: tiled or untiled neighbour passes, the prefix sum with
    /// subgroup operations or without (for `bench`).
    pub fn path(&self) -> String {
        format!(
            "{}, {}",
            if self.is_tiled() { "tiled" } else { "untiled" },
            if self.passes.prefix.subgroups {
                "subgroups"
            } else {
                "no subgroups"
            }
        )
    }

    /// Bytes of GPU memory allocated for the liquid (every persistent buffer).
    pub fn bytes_allocated(&self) -> u64 {
        self.bufs.bytes
            + self.passes.prefix.bytes
            + self.boundary.bytes
            + self.boundary_prefix.as_ref().map_or(0, |p| p.bytes)
            + self.exchange.bytes()
    }

    /// GPU bytes per liquid particle the buffers hold (per particle of the capacity).
    pub fn bytes_per_particle(&self) -> f64 {
        self.bytes_allocated() as f64 / (self.capacity.max(1)) as f64
    }

    /// Number of particles.
    pub fn len(&self) -> usize {
        self.n as usize
    }

    /// The most particles the buffers hold (set at setup).
    pub fn capacity(&self) -> usize {
        self.capacity as usize
    }

    /// Whether particles have been uploaded.
    pub fn is_uploaded(&self) -> bool {
        self.uploaded
    }

    pub(super) fn write_params(&mut self, dt: f32) {
        let (p, b) = (&self.params, &self.params.boundary);
        let (lo, hi, rest, fric, flags) = match &b.walls {
            Some(w) => (
                w.lo,
                w.hi,
                w.restitution,
                w.friction,
                buffers::FLAG_WALLS
                    | if b.ghost_pressure {
                        buffers::FLAG_GHOST_PRESSURE
                    } else {
                        0
                    },
            ),
            None => (Vec3A::ZERO, Vec3A::ZERO, 0.0, 0.0, 0),
        };
        let (drag, drag_reach) = b.walls.map_or((0.0, 0.0), |w| (w.drag, w.drag_reach));
        let inv_dt = if dt > 0.0 { 1.0 / dt } else { 0.0 };
        let gp = GpuParams {
            origin: v3(self.grid.origin),
            inv_cell: 1.0 / p.h,
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
            flags,
            uniform_mass: (p.phases.len() == 1) as u32,
            n_body: 0,
            half_spacing: p.spacing / 2.0,
            n_boundary: self.n_boundary,
            wall_samples: WALL_TABLE_SAMPLES as u32,
            split: split::split_point(self.ctx.limits.max_storage_buffer_binding_size),
            drag,
            drag_reach,
            search_rows: 0,
            pad: 0.0,
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

    pub(super) fn ensure_dt(&mut self, dt: f32) {
        if self.dt != dt {
            self.write_params(dt);
        }
    }

    /// Sort the particles into the grid without moving them (before the first step, whose
    /// viscosity needs a grid): the grid build with `dt = 0` (the prediction by 0 is the
    /// positions themselves) gathers the velocities (with their kernel sums) into the other
    /// velocity buffer, which becomes the velocities; the sorted positions are copied into the
    /// start-of-step buffer.
    pub fn rebuild_grid(&mut self) -> Result<()> {
        if !self.uploaded {
            return Err(Error::Run(
                "GPU solver: upload particles before building the grid".into(),
            ));
        }
        self.ensure_dt(0.0);
        let size = self.n as u64 * buffers::VEC4;
        let mut enc = self.ctx.device.create_command_encoder(&Default::default());
        let next = {
            let mut pass = enc.begin_compute_pass(&Default::default());
            self.rec_grid(&mut pass, "main")
        };
        let b = &self.bufs;
        enc.copy_buffer_to_buffer(&b.pos[next.pos], 0, &b.vel[next.vel], 0, size);
        self.ctx.queue.submit([enc.finish()]);
        self.ctx.wait()?;
        self.cur = Cursor {
            vel: 1 - next.vel,
            ..next
        };
        self.has_grid = true;
        Ok(())
    }

    /// Record one phase of a step with `rec` (`f` records it and returns the cursor after it,
    /// if it moves).
    fn phase(
        &mut self,
        rec: &mut Recorder,
        phase: Phase,
        f: impl FnOnce(&Self, &mut wgpu::ComputePass<'_>) -> Option<Cursor>,
    ) -> Result<()> {
        let next = rec.phase(&self.ctx, self.stamps.as_ref(), phase, |p| f(self, p))?;
        if let Some(c) = next {
            self.cur = c;
        }
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
        let friction =
            crate::boundary::wall_friction::has_friction(self.params.boundary.walls.as_ref());
        let mut rec = Recorder::new(&self.ctx, timing);
        // Gravity goes with the first pass that reads the velocities: the viscosity, or else
        // the prediction (where the walls' viscous friction comes between, gravity goes alone).
        let predict = if viscous {
            self.phase(&mut rec, Phase::Viscosity, |s, p| {
                Some(s.rec_viscosity(p, "with_gravity"))
            })?;
            "main"
        } else if friction {
            self.phase(&mut rec, Phase::Integrate, |s, p| {
                s.rec_velocity(p, "gravity");
                None
            })?;
            "main"
        } else {
            "with_gravity"
        };
        if friction {
            self.phase(&mut rec, Phase::Viscosity, |s, p| {
                s.rec_velocity(p, "wall_friction");
                None
            })?;
        }
        self.phase(&mut rec, Phase::Grid, |s, p| Some(s.rec_grid(p, predict)))?;
        if !self.boundary_binned {
            self.phase(&mut rec, Phase::Grid, |s, p| {
                s.rec_boundary_grid(p);
                None
            })?;
            self.boundary_binned = true;
        }
        for _ in 0..self.params.relaxation_passes {
            self.phase(&mut rec, Phase::Density, |s, p| {
                s.rec_density(p);
                None
            })?;
            self.phase(&mut rec, Phase::Relaxation, |s, p| {
                Some(s.rec_relaxation(p))
            })?;
        }
        // The velocity update ends the walls' pass when there are walls; the walls' loads of
        // the step go into the frame's tally.
        if self.params.boundary.walls.is_some() {
            self.phase(&mut rec, Phase::Collisions, |s, p| {
                s.rec_walls(p, "with_update");
                s.rec_wall_loads(p);
                None
            })?;
        } else {
            self.phase(&mut rec, Phase::Integrate, |s, p| {
                s.rec_velocity(p, "update");
                None
            })?;
        }
        rec.finish(&self.ctx, self.stamps.as_ref(), times)?;
        self.has_grid = true;
        Ok(())
    }
}

/// A particle count as the device counts them (below 2^32).
fn count_of(n: usize) -> Result<u32> {
    u32::try_from(n).map_err(|_| Error::input("more than 2^32 particles cannot run on the GPU"))
}

/// Bytes one storage buffer of the device with `limits` binds whole.
fn binding_bytes(limits: &wgpu::Limits) -> u64 {
    limits
        .max_storage_buffer_binding_size
        .min(limits.max_buffer_size)
}

/// Entries of the walls' GPU table: the kernel sums, then one holding the push's hydrostatic
/// factor ([`WallKernel::grad`] over the relaxation passes) and [`WallKernel::moment`].
fn wall_entries(k: &WallKernel) -> u64 {
    k.table.len() as u64 + 1
}
