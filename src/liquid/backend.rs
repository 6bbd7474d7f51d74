//! The one liquid interface: [`Liquid`], the trait that the simulation and the coupling drive
//! the liquid through, whichever backend runs it (the CPU solver, [`super::cpu::CpuLiquid`],
//! or the GPU one in `gpu/`). It owns what both backends share with their callers: the step,
//! the host copy of the particles that frames are written from, the body boundary particles,
//! the search for liquid particles near the bodies, and the coupling's impulses and
//! push-outs. Nothing here knows a backend; backends import this module, not the reverse.
use super::neighbours::PackedLists;
use super::params::LiquidParams;
use super::particles::Particles;
use crate::Result;
use crate::boundary::LoadTally;
use crate::boundary::body_grid::BoundaryParticles;
pub use crate::boundary::solids::NearBody;
use crate::timing::{PhaseTimes, Timing};
use glam::{DVec3, Vec3A};

/// A sphere of a rigid body's clump.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BodyParticle {
    /// Centre, m.
    pub pos: Vec3A,
    /// Radius, m.
    pub radius: f32,
}

/// Where liquid can touch the bodies, in the two forms the backends search by: the CPU tests
/// every particle against each body's ball; the GPU pairs the particles on its grid with the
/// bodies' surface particles.
pub struct BodyReach<'a> {
    /// Per body, in body order: a ball (centre, radius, m) that holds the centre of every
    /// liquid particle that can touch the body.
    pub balls: &'a [(DVec3, f64)],
    /// The bodies' surface particles, pushed onto the second list, with the body each
    /// belongs to, pushed onto the first, in body order: the centre of a liquid particle that
    /// touches a body lies within one of them, its radius grown by half a liquid spacing.
    /// Built on demand (only the GPU searches by them), into the caller's lists.
    pub surface: &'a dyn Fn(&mut Vec<u32>, &mut Vec<BodyParticle>),
}

/// What a liquid backend carries from one step to the next besides the particles.
#[derive(Debug, Clone, Default)]
pub enum Carried {
    /// Nothing: the next step builds what it needs.
    #[default]
    Nothing,
    /// The CPU's neighbour lists of the last step's relaxation, which viscosity reuses.
    Lists(PackedLists),
    /// A device's grid of the last step: each slot's cell and each cell's first slot (one
    /// more than the cells), which viscosity walks.
    Grid {
        /// The cell of each slot.
        cell_of: Vec<u32>,
        /// The first slot of each cell, and the particle count last.
        cell_start: Vec<u32>,
    },
}

/// What a backend on a device reports about itself (for `sphrigid bench`).
#[derive(Debug, Clone, PartialEq)]
pub struct DeviceReport {
    /// The adapter, in words.
    pub adapter: String,
    /// Whether the adapter has GPU timestamps (else phases are timed by the wall clock).
    pub timestamps: bool,
    /// Device memory allocated per liquid particle, bytes.
    pub bytes_per_particle: f64,
    /// Compute dispatches recorded so far.
    pub dispatches: u64,
    /// The step's paths on the device, in words (e.g. `tiled, subgroups`).
    pub path: String,
}

/// A liquid solver together with its particles: the interface of every backend.
pub trait Liquid: std::fmt::Debug + Send {
    /// The parameters derived from the scene.
    fn params(&self) -> &LiquidParams;

    /// Number of particles.
    fn len(&self) -> usize;

    /// Whether there are no particles.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The particles on the host: the state itself on the CPU, as of the last
    /// [`Liquid::sync`] on a device.
    fn particles(&self) -> &Particles;

    /// The particles on the host, to change before the first step (a device takes them up
    /// then; later changes reach only the CPU backend).
    fn particles_mut(&mut self) -> &mut Particles;

    /// The most particles the backend holds without growing a buffer (set at setup).
    fn capacity(&self) -> usize;

    /// Set aside room for `capacity` particles, so that emission up to it grows no buffer in
    /// a step (the CPU's arrays; a device backend is built for its capacity).
    fn reserve(&mut self, _capacity: usize) {}

    /// Change the particles between steps (emitters add and steer, outlets remove): `edit`
    /// gets the particles on the host (brought up to date first on a device) and may change,
    /// remove and append them, each appended one with an id no particle has held, and says
    /// whether it removed or appended any. The next step takes the result up; after a removal
    /// or an append it rebuilds what it carried from the last step (a slot may now hold
    /// another particle), as a resumed run would. Fails if the result holds more than
    /// [`Liquid::capacity`] particles.
    fn edit_particles(&mut self, edit: &mut dyn FnMut(&mut Particles) -> bool) -> Result<()>;

    /// Bring [`Liquid::particles`] up to date (a download from a device; nothing on the CPU).
    fn sync(&mut self) -> Result<()>;

    /// Bin the particles and compute their kernel sums without moving them (for frame 0,
    /// before the first step).
    fn update_densities(&mut self) -> Result<()>;

    /// Place this step's body boundary particles (`place` fills them) for the next step's
    /// kernel sums.
    fn place_boundary(&mut self, place: &mut dyn FnMut(&mut BoundaryParticles)) -> Result<()>;

    /// Advance the particles by `dt` seconds, adding each phase's time to `times` (`timing`
    /// says how a device times its phases; the CPU uses the wall clock).
    fn step(&mut self, dt: f32, timing: Timing, times: &mut PhaseTimes) -> Result<()>;

    /// The particles near the bodies into `out` (cleared first; the caller keeps it between
    /// steps), one entry per (body, particle) that may touch, in order of body, then slot, on
    /// the current positions.
    fn near_bodies(&mut self, reach: &BodyReach<'_>, out: &mut Vec<NearBody>) -> Result<()>;

    /// Add the velocity changes `dv` (slot, m/s; each slot at most once) to the particles,
    /// and move them by `dv dt`.
    fn apply_impulses(&mut self, dv: &[(u32, Vec3A)], dt: f32) -> Result<()>;

    /// Move the particles by `dx` (slot, m; each slot at most once).
    fn push_out(&mut self, dx: &[(u32, Vec3A)]) -> Result<()>;

    /// What the next step's viscosity reuses from the last step besides the particles (the
    /// CPU's neighbour lists, a device's grid): a checkpoint saves it so that a resumed run
    /// steps exactly as an unbroken one.
    fn carried(&self) -> Result<Carried> {
        Ok(Carried::Nothing)
    }

    /// Put back what [`Liquid::carried`] gave, for the particles as they were then (after
    /// they are uploaded, on a device); what another backend carried is ignored, and the
    /// first step rebuilds it.
    fn restore_carried(&mut self, _carried: Carried) -> Result<()> {
        Ok(())
    }

    /// Wait until the work submitted so far has finished (nothing to wait for on the CPU).
    fn wait(&self) -> Result<()> {
        Ok(())
    }

    /// The device, on a device backend (`None` on the CPU).
    fn device(&self) -> Option<DeviceReport> {
        None
    }

    /// Whether the backend gathers the liquid's loads on the container's walls (a scene with
    /// walls): then [`Liquid::wall_loads`] gives them.
    fn has_wall_loads(&self) -> bool {
        false
    }

    /// Close the last step (of `dt` s) into the walls' tally of the frame. The CPU backend adds
    /// the step's impulses here; the GPU backend has added them on its device within the step
    /// (its sums and peaks stay there) and counts the time only.
    fn tally_wall_loads(&mut self, _dt: f64) {}

    /// Per container wall (x lo, x hi, y lo, y hi, z lo, z hi), the liquid's loads since the
    /// tally last started over: its impulse on the wall (N s) and angular impulse about the
    /// wall's centre (N m s) summed over the steps, with the step force and torque of the
    /// largest magnitude: what its ghosts' push, its collisions and its viscous friction gave
    /// the particles, reversed. `None` without walls, or on a backend that does not gather
    /// them. On a device, one download (a frame's, or a checkpoint's).
    fn wall_loads(&self) -> Result<Option<LoadTally>> {
        Ok(None)
    }

    /// [`Liquid::wall_loads`], and start the tally over (a frame is written).
    fn take_wall_loads(&mut self) -> Result<Option<LoadTally>> {
        Ok(None)
    }

    /// Put back the walls' tally that [`Liquid::wall_loads`] gave (a checkpoint's).
    fn restore_wall_loads(&mut self, _tally: LoadTally) -> Result<()> {
        Ok(())
    }
}
