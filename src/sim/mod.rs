//! A simulation: the scene's particles and solvers advanced frame by frame.
pub(crate) mod build;
pub(crate) mod cfl;
pub(crate) mod checkpoint;
pub(crate) mod energy;
pub(crate) mod footprint;
pub(crate) mod gauges;
pub(crate) mod guard;
pub(crate) mod joint_setup;
pub(crate) mod loads;
pub(crate) mod motion_setup;
pub(crate) mod outputs;
pub(crate) mod placement;
pub(crate) mod runner;
pub(crate) mod settle;
pub(crate) mod source_setup;
pub(crate) mod step_counts;
pub(crate) mod surfaces;

pub use crate::coupling::leak::{Leak, LeakCheck};
pub use build::{Stepping, stepping};
pub use runner::{Progress, RunOptions, RunSummary, run};

use crate::backend::Backend;
use crate::boundary::bodies::BodyBoundary;
use crate::coupling::{Coupler, CouplingFailure};
use crate::gpu::GpuLiquid;
use crate::gpu::context::{AdapterKind, GpuContext};
use crate::joints::{ErrorPeaks, Joint};
use crate::liquid::pair_scatter::in_pool;
use crate::liquid::sources::Sources;
use crate::liquid::{CpuLiquid, Liquid, Particles};
use crate::output::Checkpoint;
use crate::rigid::RigidBody;
use crate::scene::{LoadedScene, Scene};
use crate::timing::{Phase, PhaseTimes, Timing};
use crate::{Error, Result};
use build::LiquidSetup;
use glam::{DVec3, Vec3A};

/// The state of a run: particles, solvers, clock.
///
/// Set it up from a loaded scene ([`Simulation::setup`]), then advance it a step
/// ([`Simulation::step`]) or a frame ([`Simulation::advance_frame`]) at a time; nothing is
/// written to disk ([`run`] writes a run directory).
///
/// ```no_run
/// use sphrigid::backend::Backend;
/// use sphrigid::sim::Simulation;
/// use std::path::Path;
///
/// let loaded = sphrigid::scene::load(Path::new("scenes/floating_box.toml"), &[])?;
/// let mut sim = Simulation::setup(&loaded, Backend::Cpu)?;
/// sim.step()?;
/// sim.advance_frame()?;
/// for body in &sim.bodies {
///     println!("{} at {}", body.name, body.state.x);
/// }
/// # Ok::<(), sphrigid::Error>(())
/// ```
#[derive(Debug)]
pub struct Simulation {
    /// The liquid, its solver and particles, on the CPU or GPU backend (its particles on the
    /// host are those of the last [`Simulation::sync_particles`]).
    pub liquid: Box<dyn Liquid>,
    /// The rigid bodies (none until [`Simulation::setup`] builds them).
    pub bodies: Vec<RigidBody>,
    /// Liquid particles removed at setup because they started inside a body.
    pub removed_inside_bodies: usize,
    /// The coupling of liquid, bodies and walls (when there are bodies).
    pub coupler: Option<Coupler>,
    /// The body particles that lend their kernel sums to the liquid.
    pub body_boundary: BodyBoundary,
    /// The emitters and outlets, with what they have done.
    pub sources: Sources,
    /// The contact problem of a step whose solve failed, for `sphrigid lcp solve` to replay.
    pub failed_lcp: Option<Box<CouplingFailure>>,
    /// Steps (numbered from 1) whose LCP failed and fell back to penalty, with the problem,
    /// since the runner last took them.
    pub fallbacks: Vec<(u64, Box<CouplingFailure>)>,
    /// Steps (numbered from 1) whose LCP missed the tolerance and went on with the closest
    /// answer (`coupling.on_failure = "continue"`), since the runner last took them.
    pub unsolved: Vec<(u64, Box<CouplingFailure>)>,
    /// The contact solves since the last frame written: how many missed the tolerance, and
    /// the largest relative residual of those applied.
    pub lcp_tally: LcpTally,
    /// The joints' largest errors over the steps since the last frame written.
    pub joint_peaks: ErrorPeaks,
    /// The liquid's loads on each body over the steps since the last frame written.
    pub body_loads: loads::LoadTally,
    /// Gravity, m/s^2 (applied to dynamic bodies; the liquid has its own copy).
    pub gravity: DVec3,
    /// Step size, s.
    pub dt: f64,
    /// Steps per frame.
    pub substeps: u32,
    /// Simulated time, s.
    pub time: f64,
    /// Steps taken.
    pub steps: u64,
    /// Time spent per phase.
    pub times: PhaseTimes,
    /// How GPU steps are timed.
    pub gpu_timing: Timing,
}

/// What the contact solves of the steps since the last frame written came to.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct LcpTally {
    /// Steps whose contact LCP missed the residual tolerance (and went on).
    pub unsolved: u32,
    /// The largest relative residual of the contact LCPs applied.
    pub residual: f64,
}

impl Simulation {
    /// Set up a validated scene's liquid at time zero on the CPU, with its emitters and
    /// outlets but without its bodies, settled (unless the scene says `[solver] settle =
    /// false`).
    pub fn new(scene: &Scene) -> Simulation {
        let liquid = build::liquid(scene);
        let plan = liquid.settle;
        let mut sim = Simulation::with_liquid(liquid, scene);
        sim.set_up_sources(scene);
        sim.settle(scene, plan)
            .expect("the CPU liquid settles without failing");
        sim.reserve_for_sources(scene);
        sim
    }

    /// Let the liquid settle before time 0 ([`settle::settle`], as `plan` says), the bodies'
    /// boundary held where it is (placed now on the CPU) and the liquid within a kernel radius
    /// of a body held too, then give each block its velocity.
    fn settle(&mut self, scene: &Scene, plan: settle::SettlePlan) -> Result<()> {
        if plan.steps == 0 || self.liquid.is_empty() {
            return Ok(());
        }
        if !self.body_boundary.is_empty() {
            let (b, bodies) = (&self.body_boundary, &self.bodies);
            self.liquid
                .place_boundary(&mut |out| b.place(bodies, out))?;
        }
        let velocity: Vec<Vec3A> = scene
            .liquid
            .iter()
            .map(|b| Vec3A::from_array(b.velocity.map(|v| v as f32)))
            .collect();
        let radius = self.liquid.params().spacing as f64 / 2.0;
        let gates: Vec<settle::Gate> = scene
            .liquid
            .iter()
            .map(|b| {
                let (min, max) = b.bounds();
                settle::Gate::for_block(min, max, radius, scene.gravity)
            })
            .collect();
        let margin = self.liquid.params().h as f64;
        let held = crate::coupling::inside::near_bodies(self.particles(), &self.bodies, margin);
        let dt = self.dt as f32;
        settle::settle(self.liquid.as_mut(), dt, plan, &velocity, &gates, &held).map_err(|e| {
            Error::Run(format!(
                "while the liquid settled before time 0 ({} steps): {e} (or set [solver] settle = false)",
                plan.steps
            ))
        })
    }

    /// The scene's emitters and outlets, for the particles made so far (their ids below the
    /// emitters' first).
    fn set_up_sources(&mut self, scene: &Scene) {
        let p = self.liquid.params();
        let (s, h, next_id) = (p.spacing as f64, p.h as f64, self.particles().next_id());
        self.sources = source_setup::sources(scene, s, h, next_id);
    }

    /// Set aside room for every particle the emitters add by the end of the run (the scene's
    /// `time.frames`); the most particles the run holds.
    fn reserve_for_sources(&mut self, scene: &Scene) -> usize {
        let end = source_setup::end_time(scene, scene.time.frames);
        let to_come = self.sources.emitted_by(end) - self.sources.state.emitted;
        let capacity = self.liquid.len() + to_come as usize;
        self.liquid.reserve(capacity);
        capacity
    }

    /// Set up the built liquid of `scene` at time zero on the CPU, without its bodies.
    fn with_liquid(liquid: LiquidSetup, scene: &Scene) -> Simulation {
        let LiquidSetup {
            params,
            particles,
            substeps,
            dt,
            ..
        } = liquid;
        Simulation {
            liquid: Box::new(CpuLiquid::new(params, particles)),
            bodies: Vec::new(),
            removed_inside_bodies: 0,
            coupler: None,
            body_boundary: BodyBoundary::default(),
            sources: Sources::default(),
            failed_lcp: None,
            fallbacks: Vec::new(),
            unsolved: Vec::new(),
            lcp_tally: LcpTally::default(),
            joint_peaks: ErrorPeaks::default(),
            body_loads: loads::LoadTally::default(),
            gravity: DVec3::from_array(scene.gravity),
            dt,
            substeps,
            time: 0.0,
            steps: 0,
            times: PhaseTimes::default(),
            gpu_timing: Timing::Off,
        }
    }

    /// Set up a loaded scene at time zero with its rigid bodies, on a backend (the GPU one
    /// opens the best adapter). The scene's file anchors the bodies' mesh paths and, with its
    /// text, names the scene and the line in messages. Liquid that starts inside a body is
    /// removed (counted in `removed_inside_bodies`).
    pub fn setup(loaded: &LoadedScene, backend: Backend) -> Result<Simulation> {
        Simulation::setup_from(loaded, backend, None)
    }

    /// Set up a loaded scene like [`Simulation::setup`], then, given a checkpoint of a run of
    /// the same scene, continue from its state (before the particles go up to a device).
    pub fn setup_from(
        loaded: &LoadedScene,
        backend: Backend,
        checkpoint: Option<Checkpoint>,
    ) -> Result<Simulation> {
        Simulation::setup_with(loaded, backend, checkpoint, true)
    }

    /// Set up a loaded scene like [`Simulation::setup`] but without settling the liquid, for
    /// what needs only its buffers (the memory measure of `sphrigid check`).
    pub fn setup_unsettled(loaded: &LoadedScene, backend: Backend) -> Result<Simulation> {
        Simulation::setup_with(loaded, backend, None, false)
    }

    /// [`Simulation::setup_from`], the liquid settled only where `settle` says so (and the
    /// scene does not turn it off).
    fn setup_with(
        loaded: &LoadedScene,
        backend: Backend,
        checkpoint: Option<Checkpoint>,
        settle: bool,
    ) -> Result<Simulation> {
        let scene = &loaded.scene;
        // Before a particle is made or a step settled: counts past their limits.
        step_counts::check(loaded)?;
        let liquid = build::liquid(scene);
        let (spacing, plan) = (liquid.spacing, liquid.settle);
        let mut sim = Simulation::with_liquid(liquid, scene);
        sim.bodies = build::bodies(loaded, spacing)?;
        sim.removed_inside_bodies =
            crate::coupling::inside::remove_liquid_inside(sim.liquid.particles_mut(), &sim.bodies);
        sim.set_up_sources(scene);
        if !sim.bodies.is_empty() {
            let mut coupler = Coupler::new(&sim.bodies, &build::coupling(&scene.coupling));
            coupler.joints = crate::sim::joint_setup::joints(loaded, &sim.bodies)?;
            sim.coupler = Some(coupler);
            // The boundary lends the bodies' kernel sums to the liquid: without liquid (none at
            // time 0 and no emitter) there is nothing to lend them to (and a large static body
            // would take minutes to sift).
            if !sim.liquid.is_empty() || !sim.sources.emitters.is_empty() {
                let p = sim.liquid.params();
                sim.body_boundary = BodyBoundary::new(&sim.bodies, p.spacing as f64, p.h as f64);
            }
        }
        let carried = match checkpoint {
            Some(c) => checkpoint::restore(&mut sim, c)?,
            None => {
                if settle {
                    sim.settle(scene, plan)?;
                }
                Default::default()
            }
        };
        let capacity = sim.reserve_for_sources(scene);
        if backend == Backend::Gpu {
            let ctx = GpuContext::new(AdapterKind::Any)?.ok_or_else(|| {
                Error::input("--backend gpu: no GPU adapter found; fix: use --backend cpu or auto")
            })?;
            let particles = std::mem::take(sim.liquid.particles_mut());
            let params = sim.liquid.params().clone();
            // The walls' tally a checkpoint restored goes with the liquid to the device.
            let walls = sim.liquid.wall_loads()?;
            sim.liquid = Box::new(GpuLiquid::with_capacity(ctx, params, particles, capacity)?);
            if let Some(t) = walls {
                sim.liquid.restore_wall_loads(t)?;
            }
        }
        sim.liquid.restore_carried(carried)?;
        if !sim.body_boundary.is_empty() {
            let (b, bodies) = (&sim.body_boundary, &sim.bodies);
            sim.liquid.place_boundary(&mut |out| b.place(bodies, out))?;
        }
        Ok(sim)
    }

    /// The liquid particles (on the GPU backend, as of the last
    /// [`Simulation::sync_particles`]).
    pub fn particles(&self) -> &Particles {
        self.liquid.particles()
    }

    /// The joints between the bodies (none without bodies).
    pub fn joints(&self) -> &[Joint] {
        self.coupler.as_ref().map_or(&[], |c| &c.joints)
    }

    /// The backend the liquid steps on.
    pub fn backend(&self) -> Backend {
        if self.liquid.device().is_some() {
            Backend::Gpu
        } else {
            Backend::Cpu
        }
    }

    /// Bring `particles` up to date (a download from the GPU backend; nothing on the CPU).
    pub fn sync_particles(&mut self) -> Result<()> {
        self.liquid.sync()
    }

    /// Take one step.
    pub fn step(&mut self) -> Result<()> {
        // On a thread of the pool, so that the step's serial parts (the coupling) run there and
        // its parallel loops start from inside: started from outside, each loop wakes the pool
        // and the calling thread contends with the workers' spinning for the cores.
        in_pool(|| self.step_here())
    }

    /// [`Simulation::step`] on the calling thread.
    fn step_here(&mut self) -> Result<()> {
        // Kinematic bodies stand where their motions have them now, moving toward the next
        // step's poses.
        for b in &mut self.bodies {
            b.follow_motion(self.time, self.dt);
        }
        if !self.body_boundary.is_empty() {
            let (b, bodies) = (&self.body_boundary, &self.bodies);
            let liquid = &mut self.liquid;
            self.times.time(Phase::Boundary, || {
                liquid.place_boundary(&mut |out| b.place(bodies, out))
            })?;
        }
        self.liquid
            .step(self.dt as f32, self.gpu_timing, &mut self.times)?;
        self.liquid.tally_wall_loads(self.dt);
        // Bodies: contacts with the liquid, the walls and each other through the LCP, then
        // their motion.
        let (dt, g) = (self.dt, self.gravity);
        if let Some(coupler) = self.coupler.as_mut() {
            let (liquid, bodies) = (self.liquid.as_mut(), &mut self.bodies);
            let result = coupler.step_timed(liquid, bodies, g, dt, &mut self.times);
            if let Err(e) = result {
                self.failed_lcp = coupler.failure.take();
                return Err(e);
            }
            if let Some(f) = coupler.fallback.take() {
                self.fallbacks.push((self.steps + 1, f));
            }
            if let Some(f) = coupler.unsolved.take() {
                self.unsolved.push((self.steps + 1, f));
                self.lcp_tally.unsolved += 1;
            }
            let tally = &mut self.lcp_tally;
            tally.residual = tally.residual.max(coupler.report.residual);
            self.body_loads.add(&coupler.loads, dt);
            if !coupler.joints.is_empty() {
                let (peaks, bodies) = (&mut self.joint_peaks, &self.bodies);
                self.times
                    .time(Phase::Joints, || peaks.observe(&coupler.joints, bodies));
            }
        }
        self.steps += 1;
        self.time = self.steps as f64 * self.dt;
        if !self.sources.is_empty() && !self.sources.idle(self.time) {
            let (sources, t) = (&mut self.sources, self.time);
            self.times.time(Phase::Sources, || {
                self.liquid.edit_particles(&mut |p| sources.apply(p, t))
            })?;
        }
        for b in &mut self.bodies {
            b.follow_motion(self.time, self.dt);
        }
        Ok(())
    }

    /// Take one frame's worth of steps.
    pub fn advance_frame(&mut self) -> Result<()> {
        for _ in 0..self.substeps {
            self.step()?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests;
