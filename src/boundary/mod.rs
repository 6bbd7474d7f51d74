//! What the liquid meets: the container's walls and the bodies. Their part of the liquid's
//! kernel sums and the walls' ghost pressure in the relaxation ([`liquid_terms`], with the
//! ghost lattice's kernel in [`wall_kernel`], its walk measured in bulk in `ghost_batch` and the bodies' particles binned into the liquid's
//! grid in [`body_grid`], placed each step from [`bodies`]), the walls' collisions and friction
//! ([`walls`], [`wall_friction`]), the gaps between a body and a wall narrower than a
//! particle ([`gap`]), the bodies' solids and the liquid particles that touch them
//! ([`solids`]), and the pressure a film of liquid between a body and a wall passes to the
//! body ([`film`]); its settings are [`BoundaryParams`], the walls' [`Walls`] ([`params`]).
//!
//! The liquid step (and the GPU's CPU twins) and the coupling call the functions re-exported
//! here. The module sits below both: it reads the liquid's grid, particles and settings
//! through the [`Cells`], [`Motion`] and [`LiquidSettings`] traits that the liquid implements,
//! and imports only `rigid`.
pub(crate) mod bodies;
pub(crate) mod body_grid;
pub(crate) mod film;
pub(crate) mod gap;
mod ghost_batch;
pub(crate) mod liquid_terms;
pub(crate) mod load_tally;
pub(crate) mod params;
pub(crate) mod solids;
pub(crate) mod wall_friction;
pub(crate) mod wall_kernel;
pub(crate) mod wall_loads;
pub(crate) mod walls;

pub use body_grid::{BoundaryGrid, BoundaryParticles};
pub use liquid_terms::{BodyImages, WallPairs, add_boundary_sums, add_ghost_pressure, wall_depth};
pub use load_tally::LoadTally;
pub use params::{BoundaryParams, Walls};
pub use wall_kernel::WallKernel;
pub use wall_loads::{Masses, WallLoads};

use glam::{DVec3, Vec3A};

/// A CPU vector in f64.
pub(crate) fn to_d(v: Vec3A) -> DVec3 {
    DVec3::new(v.x as f64, v.y as f64, v.z as f64)
}

/// An f64 vector as a CPU vector.
pub(crate) fn to_f(v: DVec3) -> Vec3A {
    Vec3A::new(v.x as f32, v.y as f32, v.z as f32)
}

/// The liquid's grid as the boundary reads it: cells a kernel radius wide, the cell of each
/// slot, and the rows of cells around a cell (`liquid::grid::Grid` implements it).
pub trait Cells: Sync {
    /// Number of cells.
    fn cells(&self) -> usize;
    /// The linear cell index of a position (clamped into the grid).
    fn cell_index(&self, x: Vec3A) -> u32;
    /// The cell of the particle in slot `i` (as the grid was last built).
    fn cell_of_slot(&self, i: usize) -> u32;
    /// Call `f(first, end)` for each of the (up to) 9 rows of cells around cell `c`, z then y
    /// outermost: the cells `first..end` of a row are contiguous, clamped to the grid. Any
    /// array binned into these cells gathers over the 27 cells in this order.
    fn for_each_row_near(&self, c: u32, f: impl FnMut(usize, usize));
}

/// The liquid's particles as the walls move them.
pub trait Motion {
    /// Positions (m), velocities (m/s) and previous positions (m), one entry per slot.
    #[allow(
        dead_code,
        reason = "the allocating form of the `_into` one the step uses"
    )]
    fn motion(&mut self) -> (&mut [Vec3A], &mut [Vec3A], &mut [Vec3A]) {
        let (pos, vel, prev, _) = self.motion_and_phase();
        (pos, vel, prev)
    }
    /// [`Motion::motion`] and each slot's phase (liquid block).
    fn motion_and_phase(&mut self) -> (&mut [Vec3A], &mut [Vec3A], &mut [Vec3A], &[u32]);
}

/// The liquid's settings as the films read them ([`film`]; `liquid::params::LiquidParams`
/// implements it).
pub trait LiquidSettings {
    /// Lattice spacing, m.
    fn spacing(&self) -> f32;
    /// Kernel radius, m.
    fn h(&self) -> f32;
    /// Rest kernel sum `sum (1-q)^2` of an interior particle (dimensionless).
    fn rho0(&self) -> f32;
    /// Gravity, m/s^2.
    fn gravity(&self) -> Vec3A;
    /// The boundary's settings.
    fn boundary(&self) -> &BoundaryParams;
    /// The pressure factor `k_eff` of phase `phase` (`P = k_eff (rho - rho0)`, m/s^2).
    fn k_eff(&self, phase: u32) -> f32;
    /// The rest density of phase `phase`, kg/m^3.
    fn rest_density(&self, phase: u32) -> f32;
}
