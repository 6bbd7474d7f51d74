//! A simulation: the scene's particles and solvers advanced frame by frame.
pub mod runner;
pub mod timing;

use crate::Result;
use crate::liquid::{LiquidParams, LiquidSolver, Particles};
use crate::scene::Scene;
use timing::PhaseTimes;

/// The state of a run: particles, solvers, clock.
#[derive(Debug, Clone)]
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
        }
    }

    /// Take one step.
    pub fn step(&mut self) -> Result<()> {
        self.liquid
            .step(&mut self.particles, self.dt as f32, &mut self.times)?;
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
