//! The GPU backend of the [`Liquid`] interface: the [`GpuLiquidSolver`] with a host copy of
//! the particles. Before the first step the host copy is the state (frame 0's kernel sums are
//! computed there by the CPU solver, as the CPU backend does); the first step uploads it, and
//! [`Liquid::sync`] downloads it again.
use super::GpuLiquidSolver;
use super::contacts::Contact;
use super::context::{self, GpuContext};
use super::wall_loads;
use crate::Result;
use crate::boundary::LoadTally;
use crate::boundary::body_grid::BoundaryParticles;
use crate::liquid::backend::{BodyParticle, BodyReach, Carried, DeviceReport, Liquid, NearBody};
use crate::liquid::{CpuLiquid, LiquidParams, Particles};
use crate::timing::{PhaseTimes, Timing};
use glam::Vec3A;

/// The liquid on the GPU, with the host copy of its particles.
#[derive(Debug)]
pub struct GpuLiquid {
    /// The solver on the device.
    pub solver: GpuLiquidSolver,
    /// The host side: the particles as of the last download (the state before the first
    /// step), and a CPU solver for frame 0's kernel sums and the body boundary particles.
    host: CpuLiquid,
    /// A grid from a checkpoint, to put up with the particles before the first step.
    pending_grid: Option<(Vec<u32>, Vec<u32>)>,
    /// The bodies' surface particles and their pairs with the liquid, kept from step to step.
    near: NearScratch,
    /// The time the walls' tally on the device covers, s (its sums and peaks stay there).
    wall_time: f64,
}

/// What [`Liquid::near_bodies`] reuses from step to step.
#[derive(Debug, Default)]
struct NearScratch {
    owner: Vec<u32>,
    spheres: Vec<BodyParticle>,
    pairs: Vec<Contact>,
}

impl GpuLiquid {
    /// The liquid of `particles` on the device of `ctx`, for `params`, with room for
    /// `capacity` particles (at least as many as `particles` holds) set aside on the device
    /// and in the host copy: [`Liquid::edit_particles`] may grow it that far.
    pub fn with_capacity(
        ctx: GpuContext,
        params: LiquidParams,
        mut particles: Particles,
        capacity: usize,
    ) -> Result<GpuLiquid> {
        let solver = GpuLiquidSolver::with_capacity(ctx, params.clone(), &particles, capacity)?;
        particles.reserve(solver.capacity() - particles.len());
        Ok(GpuLiquid {
            solver,
            host: CpuLiquid::new(params, particles),
            pending_grid: None,
            near: NearScratch::default(),
            wall_time: 0.0,
        })
    }
}

impl Liquid for GpuLiquid {
    fn params(&self) -> &LiquidParams {
        &self.solver.params
    }

    /// The device's count once it holds the particles, the host copy's before.
    fn len(&self) -> usize {
        if self.solver.is_uploaded() {
            self.solver.len()
        } else {
            self.host.particles.len()
        }
    }

    fn particles(&self) -> &Particles {
        &self.host.particles
    }

    fn particles_mut(&mut self) -> &mut Particles {
        &mut self.host.particles
    }

    fn capacity(&self) -> usize {
        self.solver.capacity()
    }

    /// Before the first step, the host copy is edited (the first step uploads it). After, the
    /// particles come down into the host copy, are edited there and go up again (into the
    /// buffers made at setup). After a removal or an append the grid of the last step (which
    /// viscosity would walk) and a checkpoint's grid still pending are dropped, so the next
    /// step builds its grid afresh, as the first step after an upload does; an edit that only
    /// moved particles keeps the grid (as the CPU keeps its lists). The host copy stays the
    /// state as of the edit. Past the capacity it fails (the host copy edited, the device's
    /// particles as they were).
    fn edit_particles(&mut self, edit: &mut dyn FnMut(&mut Particles) -> bool) -> Result<()> {
        let uploaded = self.solver.is_uploaded();
        if uploaded {
            self.sync()?;
        }
        let changed = edit(&mut self.host.particles);
        if changed {
            // Whatever the host solver kept for frame 0's sums is for the particles before.
            self.host.solver.lists.clear();
            self.pending_grid = None;
        }
        let (n, capacity) = (self.host.particles.len(), self.solver.capacity());
        if n > capacity {
            return Err(crate::Error::Run(format!(
                "the liquid grew to {n} particles, past the {capacity} set aside at setup"
            )));
        }
        if uploaded {
            let grid = if changed {
                None
            } else {
                self.solver.download_grid_state()?
            };
            self.solver.upload(&self.host.particles)?;
            if let Some((cell_of, cell_start)) = grid {
                self.solver.upload_grid(&cell_of, &cell_start)?;
            }
        }
        Ok(())
    }

    fn sync(&mut self) -> Result<()> {
        self.solver.download_into(&mut self.host.particles)
    }

    /// On the host, before the first step uploads the particles.
    fn update_densities(&mut self) -> Result<()> {
        self.host.update_densities()
    }

    fn place_boundary(&mut self, place: &mut dyn FnMut(&mut BoundaryParticles)) -> Result<()> {
        self.host.place_boundary(place)?;
        self.solver.set_boundary(&self.host.solver.boundary)
    }

    fn step(&mut self, dt: f32, timing: Timing, times: &mut PhaseTimes) -> Result<()> {
        if !self.solver.is_uploaded() {
            self.solver.upload(&self.host.particles)?;
            if let Some((cell_of, cell_start)) = self.pending_grid.take() {
                self.solver.upload_grid(&cell_of, &cell_start)?;
            }
        }
        self.solver.step(dt, timing, times)
    }

    /// The grid of the last step, downloaded (nothing before the first step, which builds
    /// its own).
    fn carried(&self) -> Result<Carried> {
        Ok(match self.solver.download_grid_state()? {
            Some((cell_of, cell_start)) => Carried::Grid {
                cell_of,
                cell_start,
            },
            None => Carried::Nothing,
        })
    }

    /// A grid goes up with the particles, before the first step.
    fn restore_carried(&mut self, carried: Carried) -> Result<()> {
        if let Carried::Grid {
            cell_of,
            cell_start,
        } = carried
        {
            self.pending_grid = Some((cell_of, cell_start));
        }
        Ok(())
    }

    /// The GPU pairs the particles with the bodies' surface particles and sends down each
    /// particle about once per body that reaches it (every pair of a particle carries the
    /// same state); each (particle, body) is kept once.
    fn near_bodies(&mut self, reach: &BodyReach<'_>, out: &mut Vec<NearBody>) -> Result<()> {
        let NearScratch {
            owner,
            spheres,
            pairs,
        } = &mut self.near;
        owner.clear();
        spheres.clear();
        (reach.surface)(owner, spheres);
        self.solver.find_contacts_unsorted(spheres, owner, pairs)?;
        out.clear();
        out.extend(pairs.iter().map(|c| NearBody {
            body: owner[c.body_particle as usize],
            slot: c.slot,
            id: c.liquid_id,
            pos: c.pos,
            vel: c.vel,
            phase: c.phase,
            rho: c.rho,
        }));
        // The CPU backend orders them by body, then slot; so does this one. A particle that
        // two bodies reach can come more than once for one of them (their claims on the GPU
        // interleave); the sort brings the repeats together to drop them.
        out.sort_unstable_by_key(|n| (n.body, n.slot));
        out.dedup_by_key(|n| (n.body, n.slot));
        Ok(())
    }

    fn has_wall_loads(&self) -> bool {
        self.solver.has_wall_loads()
    }

    /// The step added its loads on the device; the time is counted here.
    fn tally_wall_loads(&mut self, dt: f64) {
        if self.solver.has_wall_loads() {
            self.wall_time += dt;
        }
    }

    fn wall_loads(&self) -> Result<Option<LoadTally>> {
        Ok(self
            .solver
            .download_wall_tally()?
            .map(|t| wall_loads::to_tally(&t, self.wall_time)))
    }

    fn take_wall_loads(&mut self) -> Result<Option<LoadTally>> {
        let out = self.wall_loads()?;
        self.solver
            .upload_wall_tally(&[[0.0; 4]; wall_loads::TALLY_VEC4S]);
        self.wall_time = 0.0;
        Ok(out)
    }

    fn restore_wall_loads(&mut self, tally: LoadTally) -> Result<()> {
        self.solver
            .upload_wall_tally(&wall_loads::from_tally(&tally));
        self.wall_time = tally.time();
        Ok(())
    }

    fn apply_impulses(&mut self, dv: &[(u32, Vec3A)], dt: f32) -> Result<()> {
        self.solver.apply_impulses(dv, dt)
    }

    fn push_out(&mut self, dx: &[(u32, Vec3A)]) -> Result<()> {
        self.solver.push_out(dx)
    }

    fn wait(&self) -> Result<()> {
        self.solver.ctx.wait()
    }

    fn device(&self) -> Option<DeviceReport> {
        Some(DeviceReport {
            adapter: context::describe(&self.solver.ctx.info),
            timestamps: self.solver.ctx.timestamps,
            bytes_per_particle: self.solver.bytes_per_particle(),
            dispatches: self.solver.dispatches(),
            path: self.solver.path(),
        })
    }
}
