//! The CPU backend of the [`Liquid`] interface: the rayon solver ([`LiquidSolver`]) with the
//! particles it steps, which live on the host.
use super::backend::{BodyReach, Carried, Liquid, NearBody};
use super::boundary_grid::BoundaryParticles;
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
    /// Per particle, whether it lies in the body's ball being searched (`near_bodies`'s
    /// buffer, kept between steps).
    near: Vec<bool>,
}

impl CpuLiquid {
    /// The liquid of `particles` with a solver for `params`.
    pub fn new(params: LiquidParams, particles: Particles) -> CpuLiquid {
        CpuLiquid {
            solver: LiquidSolver::new(params),
            particles,
            near: Vec::new(),
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
    fn near_bodies(&mut self, reach: &BodyReach<'_>, out: &mut Vec<NearBody>) -> Result<()> {
        // Each body's ball tested in parallel into a flag per particle (a buffer kept between
        // steps), then gathered in slot order.
        let (p, near) = (&self.particles, &mut self.near);
        near.clear();
        near.resize(p.pos.len(), false);
        out.clear();
        for (bi, &(centre, radius)) in reach.balls.iter().enumerate() {
            near.par_iter_mut()
                .zip(p.pos.par_iter())
                .for_each(|(f, x)| {
                    let xw = DVec3::new(x.x as f64, x.y as f64, x.z as f64);
                    *f = (xw - centre).length_squared() <= radius * radius;
                });
            out.extend(
                near.iter()
                    .enumerate()
                    .filter(|&(_, &f)| f)
                    .map(|(slot, _)| NearBody {
                        body: bi as u32,
                        slot: slot as u32,
                        id: p.id[slot],
                        pos: p.pos[slot],
                        vel: p.vel[slot],
                        phase: p.phase[slot],
                        rho: p.rho[slot],
                    }),
            );
        }
        Ok(())
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
