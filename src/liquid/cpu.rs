//! The CPU backend of the [`Liquid`] interface: the rayon solver ([`LiquidSolver`]) with the
//! particles it steps, which live on the host.
use super::backend::{BodyReach, Carried, Liquid, NearBody};
use super::boundary::BoundaryParticles;
use super::neighbours::NeighbourLists;
use super::params::LiquidParams;
use super::particles::Particles;
use super::step::LiquidSolver;
use crate::timing::{PhaseTimes, Timing};
use crate::{Error, Result};
use glam::{DVec3, Vec3A};
use rayon::prelude::*;

/// The liquid on the CPU: the solver and its particles.
#[derive(Debug, Clone)]
pub struct CpuLiquid {
    /// The solver.
    pub solver: LiquidSolver,
    /// The particles.
    pub particles: Particles,
}

impl CpuLiquid {
    /// The liquid of `particles` with a solver for `params`.
    pub fn new(params: LiquidParams, particles: Particles) -> CpuLiquid {
        CpuLiquid {
            solver: LiquidSolver::new(params),
            particles,
        }
    }
}

impl Liquid for CpuLiquid {
    fn params(&self) -> &LiquidParams {
        &self.solver.params
    }

    fn len(&self) -> usize {
        self.particles.len()
    }

    fn particles(&self) -> &Particles {
        &self.particles
    }

    fn particles_mut(&mut self) -> &mut Particles {
        &mut self.particles
    }

    fn sync(&mut self) -> Result<()> {
        Ok(())
    }

    fn update_densities(&mut self) -> Result<()> {
        self.solver.update_densities(&mut self.particles)
    }

    fn place_boundary(&mut self, place: &mut dyn FnMut(&mut BoundaryParticles)) -> Result<()> {
        place(&mut self.solver.boundary);
        Ok(())
    }

    fn step(&mut self, dt: f32, _timing: Timing, times: &mut PhaseTimes) -> Result<()> {
        self.solver.step(&mut self.particles, dt, times)
    }

    /// Every particle whose centre lies in a body's ball, body by body, in slot order.
    fn near_bodies(&mut self, reach: &BodyReach<'_>) -> Result<Vec<NearBody>> {
        let p = &self.particles;
        Ok(reach
            .balls
            .iter()
            .enumerate()
            .flat_map(|(bi, &(centre, radius))| {
                p.pos
                    .par_iter()
                    .enumerate()
                    .filter_map(|(slot, x)| {
                        let xw = DVec3::new(x.x as f64, x.y as f64, x.z as f64);
                        if (xw - centre).length_squared() > radius * radius {
                            return None;
                        }
                        Some(NearBody {
                            body: bi as u32,
                            slot: slot as u32,
                            id: p.id[slot],
                            pos: *x,
                            vel: p.vel[slot],
                            phase: p.phase[slot],
                        })
                    })
                    .collect::<Vec<_>>()
            })
            .collect())
    }

    fn carried(&self) -> Result<Carried> {
        Ok(Carried::Lists(self.solver.lists.pack()))
    }

    fn restore_carried(&mut self, carried: Carried) -> Result<()> {
        if let Carried::Lists(lists) = carried {
            self.solver.lists = NeighbourLists::unpack(lists).ok_or_else(|| {
                Error::Run("the checkpoint's neighbour lists do not fit together".into())
            })?;
        }
        Ok(())
    }

    fn apply_impulses(&mut self, dv: &[(u32, Vec3A)], dt: f32) -> Result<()> {
        let p = &mut self.particles;
        for &(slot, d) in dv {
            p.vel[slot as usize] += d;
            p.pos[slot as usize] += d * dt;
        }
        Ok(())
    }

    fn push_out(&mut self, dx: &[(u32, Vec3A)]) -> Result<()> {
        for &(slot, d) in dx {
            self.particles.pos[slot as usize] += d;
        }
        Ok(())
    }
}
