//! The CPU liquid solver and its step, in the order of docs/src/design.md (steps 1-5): gravity,
//! viscosity (and the walls' viscous friction), prediction, relaxation, walls, velocity update
//! (the GPU step follows the same order).
use super::grid::Grid;
use super::neighbours::{NeighbourLists, in_pool};
use super::params::LiquidParams;
use super::particles::Particles;
use super::relaxation::{self, RelaxationBuffers};
use super::viscosity;
use crate::Result;
use crate::boundary::{
    self, BodyImages, BoundaryGrid, BoundaryParticles, WallKernel, WallLoads, WallPairs,
    wall_friction, walls,
};
use crate::timing::{Phase, PhaseTimes};
use glam::Vec3A;
use rayon::prelude::*;

/// The CPU (rayon) liquid solver: its grid, neighbour lists and scratch buffers.
#[derive(Debug, Clone)]
pub struct LiquidSolver {
    /// Parameters derived from the scene.
    pub params: LiquidParams,
    /// The neighbour grid, rebuilt once a step after prediction.
    pub grid: Grid,
    /// Neighbour lists gathered from the grid.
    pub lists: NeighbourLists,
    /// Body particles that lend their kernel sums to the liquid this step (world positions).
    pub boundary: BoundaryParticles,
    boundary_grid: BoundaryGrid,
    wall_kernel: Option<WallKernel>,
    /// The liquid's loads on the walls in the last step (with walls).
    wall_loads: Option<WallLoads>,
    /// Per phase, a particle's mass, kg.
    masses: Vec<f32>,
    buffers: RelaxationBuffers,
}

impl LiquidSolver {
    /// A solver for the given parameters.
    pub fn new(params: LiquidParams) -> LiquidSolver {
        let grid = Grid::new(params.h);
        let wall_kernel = params
            .boundary
            .walls
            .as_ref()
            .map(|_| WallKernel::new(params.spacing, params.h));
        let wall_loads = params
            .boundary
            .walls
            .as_ref()
            .map(|w| WallLoads::new(w, params.spacing / 2.0));
        LiquidSolver {
            masses: params.phases.iter().map(|p| p.mass).collect(),
            params,
            grid,
            lists: NeighbourLists::default(),
            boundary: BoundaryParticles::default(),
            boundary_grid: BoundaryGrid::default(),
            wall_kernel,
            wall_loads,
            buffers: RelaxationBuffers::default(),
        }
    }

    /// Per wall (x lo, x hi, y lo, y hi, z lo, z hi), the liquid's impulse on it (N s) and its
    /// angular impulse about the wall's centre (N m s) in the last step; `None` without walls.
    pub fn wall_impulses(&self) -> Option<[(glam::DVec3, glam::DVec3); 6]> {
        self.wall_loads.as_ref().map(WallLoads::impulses)
    }

    /// Set aside room for `n` particles in the grid, the lists and the scratch buffers, and
    /// for the grid's cells over the whole container (liquid that comes in spreads there).
    pub fn reserve(&mut self, n: usize) {
        self.grid.reserve(n);
        if let Some(w) = &self.params.boundary.walls {
            let span = ((w.hi - w.lo) / self.params.h).floor() + Vec3A::ONE;
            // In f64 and bounded before it becomes a count: a vast container (a step refused
            // later) must not overflow it.
            let cells = (span.x as f64 * span.y as f64 * span.z as f64 + 1.0)
                .min(super::grid::MAX_CELLS as f64);
            self.grid.reserve_cells(cells as usize);
        }
        self.lists.reserve(n);
        self.buffers.reserve(n);
    }

    /// Sort the particles into the grid and gather their neighbour lists (and bin the body
    /// boundary particles into the same cells).
    pub fn rebuild_neighbours(&mut self, p: &mut Particles) -> Result<()> {
        self.rebuild_timed(p, &mut PhaseTimes::default())
    }

    /// [`LiquidSolver::rebuild_neighbours`], the grid and lists timed as `Grid`, the body
    /// boundary's bins as `Boundary`.
    fn rebuild_timed(&mut self, p: &mut Particles, times: &mut PhaseTimes) -> Result<()> {
        times.time(Phase::Grid, || -> Result<()> {
            self.grid.build(p)?;
            self.lists.build(&p.pos, &self.grid, self.params.h);
            Ok(())
        })?;
        times.time(Phase::Boundary, || {
            self.boundary_grid.build(&self.grid, &self.boundary)
        });
        Ok(())
    }

    /// Kernel sums, boundary included, of every slot into `p.rho` and the near buffer;
    /// `built_here`: the particles have not moved since the lists were built, which then hold
    /// the liquid's part already. Timed as `Density`, but the boundary's pass as `Boundary`
    /// where there are bodies (the walls' table lookups ride in the same pass).
    fn kernel_sums(&mut self, p: &mut Particles, built_here: bool, times: &mut PhaseTimes) {
        let params = &self.params;
        let b = &mut self.buffers;
        times.time(Phase::Density, || {
            if built_here {
                p.rho
                    .par_iter_mut()
                    .zip(b.rho_near.par_iter_mut())
                    .zip(self.lists.sums().par_iter())
                    .for_each(|((r, n), s)| (*r, *n) = (s[0] as f32, s[1] as f32));
            } else {
                relaxation::densities(
                    &p.pos,
                    &self.lists,
                    params.h,
                    &mut p.rho,
                    &mut b.rho_near,
                    &mut b.kernel,
                );
            }
        });
        let phase = if self.boundary_grid.is_empty() {
            Phase::Density
        } else {
            Phase::Boundary
        };
        times.time(phase, || {
            boundary::add_boundary_sums(
                &p.pos,
                &self.grid,
                params.h,
                params
                    .boundary
                    .walls
                    .as_ref()
                    .zip(self.wall_kernel.as_ref()),
                params.boundary.ghost_pressure,
                params.spacing / 2.0,
                &self.boundary_grid,
                &mut p.rho,
                &mut b.rho_near,
                &mut b.body,
            )
        });
    }

    /// Bin the particles and compute their kernel sums without moving them (for frame 0).
    pub fn update_densities(&mut self, p: &mut Particles) -> Result<()> {
        self.rebuild_neighbours(p)?;
        self.buffers.resize(p.len());
        self.kernel_sums(p, true, &mut PhaseTimes::default());
        Ok(())
    }

    /// Advance the particles by `dt` seconds.
    ///
    /// Viscosity runs before prediction on the neighbour lists of the previous step's
    /// relaxation (pairs filtered by their current distance); the grid and the lists are
    /// rebuilt once, after prediction, for the relaxation.
    pub fn step(&mut self, p: &mut Particles, dt: f32, times: &mut PhaseTimes) -> Result<()> {
        // On a thread of the pool: the step's parallel loops then start without queueing a job
        // each.
        in_pool(|| self.step_here(p, dt, times))
    }

    /// [`LiquidSolver::step`] on the calling thread.
    fn step_here(&mut self, p: &mut Particles, dt: f32, times: &mut PhaseTimes) -> Result<()> {
        if p.is_empty() {
            return Ok(());
        }
        if self.lists.len() != p.len() {
            self.rebuild_timed(p, times)?;
        }
        let g = self.params.gravity * dt;
        if let Some(l) = self.wall_loads.as_mut() {
            l.clear();
        }
        times.time(Phase::Integrate, || {
            p.vel.par_iter_mut().for_each(|v| *v += g)
        });
        times.time(Phase::Viscosity, || {
            // The displacements' array is free until the relaxation: the velocity changes go
            // there.
            viscosity::apply_viscosity(p, &self.lists, &self.params, dt, &mut self.buffers.dx);
            if let Some(w) = self.params.boundary.walls.as_ref().filter(|w| w.drag > 0.0) {
                let loads = self.wall_loads.as_mut().map(|l| (l, &self.masses[..]));
                wall_friction::apply_wall_friction(p, w, dt, loads);
            }
        });
        times.time(Phase::Integrate, || {
            // The previous positions kept in the same parallel pass (a serial copy before).
            p.pos
                .par_iter_mut()
                .zip(p.prev.par_iter_mut())
                .zip(p.vel.par_iter())
                .for_each(|((x, x0), v)| {
                    *x0 = *x;
                    *x += *v * dt;
                });
        });
        self.rebuild_timed(p, times)?;
        self.buffers.resize(p.len());
        let inv_dt = 1.0 / dt;
        for pass in 0..self.params.relaxation_passes {
            let built_here = pass == 0;
            self.kernel_sums(p, built_here, times);
            times.time(Phase::Density, || {
                let b = &mut self.buffers;
                relaxation::pressures(&p.phase, &self.params, &p.rho, &b.rho_near, &mut b.press);
            });
            let params = &self.params;
            let b = &mut self.buffers;
            times.time(Phase::Relaxation, || {
                let hs = params.spacing / 2.0;
                let g = params.gravity / params.relaxation_passes as f32;
                let walls = params.boundary.pushing_walls();
                let walls = walls.zip(self.wall_kernel.as_ref());
                relaxation::displacements(
                    &p.pos,
                    &p.phase,
                    &self.lists,
                    params,
                    &b.press,
                    dt,
                    built_here,
                    walls.map(|(w, k)| (WallPairs::new(w, k, hs, g), &mut b.pairs[..])),
                    &mut b.dx,
                );
                if let Some((w, k)) = walls {
                    let images = BodyImages {
                        grid: &self.grid,
                        bodies: &self.boundary_grid,
                        inside: 0.5 * params.rho0,
                        h: params.h,
                    };
                    let masses = boundary::Masses {
                        phase: &p.phase,
                        mass: &self.masses,
                    };
                    let loads = self.wall_loads.as_mut().map(|l| (l, masses));
                    boundary::add_ghost_pressure(
                        &p.pos, &b.press, &b.body, w, k, hs, g, dt, &b.pairs, images, &mut b.dx,
                        loads,
                    );
                }
                displace(&mut p.pos, &mut p.vel, &b.dx, inv_dt);
            });
        }
        if let Some(w) = &self.params.boundary.walls {
            let loads = self.wall_loads.as_mut().map(|l| (l, &self.masses[..]));
            times.time(Phase::Collisions, || {
                walls::apply_walls_to_velocity(p, w, dt, loads)
            });
        }
        Ok(())
    }
}

/// Move every particle by its displacement `dx` and add `dx / dt` to its velocity (`inv_dt`
/// is `1/dt`; the GPU's relaxation pass does the same), so that the step's velocity is the predicted one plus the relaxation's
/// displacements over `dt`.
///
/// Not `(x - x_prev) / dt` from the f32 positions: each position is rounded to its own ulp,
/// which grows with its distance from the origin, and a displacement below half an ulp is
/// dropped. A pair's equal and opposite terms then lose more on the particle farther from the
/// origin, every step, one-sidedly: a free blob at 0.2 m/s lost 1.4% of its momentum in 0.5 s
/// (the front of an expanding blob lies farther out than its back). The velocity kept here
/// rounds at the ulp of the velocity instead, and the pairs' terms cancel in it.
pub fn displace(pos: &mut [Vec3A], vel: &mut [Vec3A], dx: &[Vec3A], inv_dt: f32) {
    pos.par_iter_mut()
        .zip(vel.par_iter_mut())
        .zip(dx.par_iter())
        .for_each(|((x, v), d)| {
            *x += *d;
            *v += *d * inv_dt;
        });
}
