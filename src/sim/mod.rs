//! A simulation: the scene's particles and solvers advanced frame by frame.
pub mod runner;
pub mod timing;

use crate::backend::Backend;
use crate::gpu::context::{AdapterKind, GpuContext};
use crate::gpu::{GpuLiquidSolver, Timing};
use crate::liquid::{LiquidParams, LiquidSolver, Particles};
use crate::scene::Scene;
use crate::{Error, Result};
use timing::PhaseTimes;

/// The state of a run: particles, solvers, clock.
#[derive(Debug)]
pub struct Simulation {
    /// The liquid particles.
    pub particles: Particles,
    /// The liquid solver.
    pub liquid: LiquidSolver,
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
    /// The GPU liquid solver when the backend is `gpu`: it holds the particles between
    /// frames, and [`Simulation::sync_particles`] copies them back into `particles`.
    pub gpu: Option<GpuLiquidSolver>,
    /// How GPU steps are timed.
    pub gpu_timing: Timing,
}

impl Simulation {
    /// Set up a validated scene at time zero.
    pub fn new(scene: &Scene) -> Simulation {
        let params = LiquidParams::from_scene(scene);
        let substeps = LiquidParams::substeps(scene);
        let dt = 1.0 / (scene.time.fps * substeps as f64);
        Simulation {
            particles: Particles::from_blocks(&scene.liquid),
            liquid: LiquidSolver::new(params),
            dt,
            substeps,
            time: 0.0,
            steps: 0,
            times: PhaseTimes::default(),
            gpu: None,
            gpu_timing: Timing::Off,
        }
    }

    /// Set up a validated scene at time zero on a backend (the GPU one opens the best adapter).
    pub fn with_backend(scene: &Scene, backend: Backend) -> Result<Simulation> {
        let mut sim = Simulation::new(scene);
        if backend == Backend::Gpu {
            let ctx = GpuContext::new(AdapterKind::Any)?.ok_or_else(|| {
                Error::input("--backend gpu: no GPU adapter found; fix: use --backend cpu or auto")
            })?;
            sim.gpu = Some(GpuLiquidSolver::new(
                ctx,
                sim.liquid.params.clone(),
                &sim.particles,
            )?);
        }
        Ok(sim)
    }

    /// The backend the liquid steps on.
    pub fn backend(&self) -> Backend {
        if self.gpu.is_some() {
            Backend::Gpu
        } else {
            Backend::Cpu
        }
    }

    /// Bring `particles` up to date (a download from the GPU backend; nothing on the CPU).
    pub fn sync_particles(&mut self) -> Result<()> {
        if let Some(g) = &self.gpu {
            self.particles = g.download()?;
        }
        Ok(())
    }

    /// Take one step.
    pub fn step(&mut self) -> Result<()> {
        if let Some(g) = self.gpu.as_mut() {
            if !g.is_uploaded() {
                g.upload(&self.particles)?;
            }
            g.step(self.dt as f32, self.gpu_timing, &mut self.times)?;
        } else {
            self.liquid
                .step(&mut self.particles, self.dt as f32, &mut self.times)?;
        }
        self.steps += 1;
        self.time = self.steps as f64 * self.dt;
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
