//! The CPU backend of the [`Liquid`] interface: the rayon solver ([`LiquidSolver`]) with the
//! particles it steps, which live on the host.
use super::backend::{BodyReach, Carried, Liquid, NearBody};
use super::neighbours::NeighbourLists;
use super::params::LiquidParams;
use super::particles::Particles;
use super::step::LiquidSolver;
use crate::boundary::LoadTally;
use crate::boundary::body_grid::BoundaryParticles;
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
    /// Per particle, whether it lies in some body's ball (`near_bodies`'s buffer, kept
    /// between steps).
    near: Vec<bool>,
    /// The bodies' balls binned on a uniform grid (`near_bodies`'s broad phase).
    balls: BallGrid,
    /// The liquid's loads on the walls since the last frame written (with walls).
    wall_tally: LoadTally,
    /// The most particles set aside for ([`Liquid::reserve`]; 0: as many as it holds).
    capacity: usize,
}

/// The bodies' balls binned on a uniform grid of cells about as large as the largest ball, so
/// that a particle is tested only against the balls whose bounding boxes overlap its cell,
/// and the hits found, then sorted by body (buffers kept between steps).
#[derive(Debug, Clone, Default)]
struct BallGrid {
    /// The grid's lower corner, inverse cell size, and cells along each axis.
    origin: DVec3,
    inv_cell: f64,
    dims: [usize; 3],
    /// Cell c's balls are `ball[start[c]..start[c + 1]]`, in body order.
    start: Vec<u32>,
    ball: Vec<u32>,
    /// Per ball, its range of cells (lowest and highest along each axis).
    range: Vec<([usize; 3], [usize; 3])>,
    /// The hits (body, slot), in slot order, then their places in body order.
    hits: Vec<(u32, u32)>,
    count: Vec<usize>,
}

impl BallGrid {
    /// At most this many cells per ball (the cell grows for bodies spread far apart).
    const CELLS_PER_BALL: usize = 64;

    /// Bin `balls` (centre, radius).
    fn build(&mut self, balls: &[(DVec3, f64)]) {
        self.start.clear();
        self.ball.clear();
        self.range.clear();
        self.dims = [0; 3];
        if balls.is_empty() {
            return;
        }
        // Boxes padded a little, so that a centre that passes the ball's test lies inside.
        let pad = |r: f64| r * (1.0 + 1e-9) + 1e-12;
        let (mut lo, mut hi) = (DVec3::splat(f64::INFINITY), DVec3::splat(f64::NEG_INFINITY));
        let mut size = 0.0f64;
        for &(c, r) in balls {
            lo = lo.min(c - DVec3::splat(pad(r)));
            hi = hi.max(c + DVec3::splat(pad(r)));
            size = size.max(2.0 * pad(r));
        }
        let extent = hi - lo;
        let max_cells = (Self::CELLS_PER_BALL * balls.len()).max(1) as f64;
        let mut cell = size.max(extent.max_element() * 1e-6).max(f64::MIN_POSITIVE);
        while ((extent / cell).floor() + DVec3::ONE).element_product() > max_cells {
            cell *= 2.0;
        }
        self.origin = lo;
        self.inv_cell = 1.0 / cell;
        let at = |g: &Self, x: DVec3| {
            let k = ((x - g.origin) * g.inv_cell).floor();
            [
                k.x.max(0.0) as usize,
                k.y.max(0.0) as usize,
                k.z.max(0.0) as usize,
            ]
        };
        let top = at(self, hi);
        self.dims = [top[0] + 1, top[1] + 1, top[2] + 1];
        let ncells = self.dims[0] * self.dims[1] * self.dims[2];
        self.start.resize(ncells + 1, 0);
        for &(c, r) in balls {
            let (a, b) = (
                at(self, c - DVec3::splat(pad(r))),
                at(self, c + DVec3::splat(pad(r))),
            );
            self.range.push((a, b));
        }
        // Counted, then placed, ball by ball (so each cell lists its balls in body order).
        for &(a, b) in &self.range {
            for z in a[2]..=b[2] {
                for y in a[1]..=b[1] {
                    for x in a[0]..=b[0] {
                        self.start[(z * self.dims[1] + y) * self.dims[0] + x + 1] += 1;
                    }
                }
            }
        }
        for c in 0..ncells {
            self.start[c + 1] += self.start[c];
        }
        self.ball.resize(self.start[ncells] as usize, 0);
        let mut next = std::mem::take(&mut self.count);
        next.clear();
        next.extend(self.start[..ncells].iter().map(|&s| s as usize));
        for (bi, &(a, b)) in self.range.iter().enumerate() {
            for z in a[2]..=b[2] {
                for y in a[1]..=b[1] {
                    for x in a[0]..=b[0] {
                        let c = (z * self.dims[1] + y) * self.dims[0] + x;
                        self.ball[next[c]] = bi as u32;
                        next[c] += 1;
                    }
                }
            }
        }
        self.count = next;
    }

    /// The balls whose boxes overlap the cell of `x` (none outside the grid).
    fn candidates(&self, x: DVec3) -> &[u32] {
        if self.start.is_empty() {
            return &[];
        }
        // The cell's coordinates by truncation, which floors the non-negative ones (those of
        // any cell): no call to the C library's `floor` per particle, the same cell.
        let k = (x - self.origin) * self.inv_cell;
        let d = self.dims;
        if k.min_element() < 0.0 || k.x >= d[0] as f64 || k.y >= d[1] as f64 || k.z >= d[2] as f64 {
            return &[];
        }
        let c = (k.z as usize * d[1] + k.y as usize) * d[0] + k.x as usize;
        &self.ball[self.start[c] as usize..self.start[c + 1] as usize]
    }
}

impl CpuLiquid {
    /// The liquid of `particles` with a solver for `params`.
    pub fn new(params: LiquidParams, particles: Particles) -> CpuLiquid {
        CpuLiquid {
            solver: LiquidSolver::new(params),
            particles,
            near: Vec::new(),
            balls: BallGrid::default(),
            wall_tally: LoadTally::default(),
            capacity: 0,
        }
    }
}

impl Liquid for CpuLiquid {
    fn has_wall_loads(&self) -> bool {
        self.solver.wall_impulses().is_some()
    }

    fn tally_wall_loads(&mut self, dt: f64) {
        if let Some(w) = self.solver.wall_impulses() {
            self.wall_tally.add(&w, dt);
        }
    }

    fn wall_loads(&self) -> Result<Option<LoadTally>> {
        Ok(self.has_wall_loads().then(|| self.wall_tally.clone()))
    }

    fn take_wall_loads(&mut self) -> Result<Option<LoadTally>> {
        let out = self.wall_loads()?;
        self.wall_tally.clear();
        Ok(out)
    }

    fn restore_wall_loads(&mut self, tally: LoadTally) -> Result<()> {
        self.wall_tally = tally;
        Ok(())
    }

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

    /// The particles and the solver's buffers.
    fn reserve(&mut self, capacity: usize) {
        self.capacity = capacity.max(self.capacity);
        let extra = self.capacity.saturating_sub(self.particles.len());
        self.particles.reserve(extra);
        self.near
            .reserve(self.capacity.saturating_sub(self.near.len()));
        self.solver.reserve(self.capacity);
    }

    fn capacity(&self) -> usize {
        self.capacity.max(self.particles.len())
    }

    /// After a removal or an append the lists of the last step are dropped (a slot may now
    /// hold another particle): the next step builds them afresh, as a step after a resume does.
    fn edit_particles(&mut self, edit: &mut dyn FnMut(&mut Particles) -> bool) -> Result<()> {
        if edit(&mut self.particles) {
            self.solver.lists.clear();
        }
        let n = self.particles.len();
        if n > self.capacity() {
            return Err(Error::Run(format!(
                "the liquid grew to {n} particles, past the {} set aside at setup",
                self.capacity()
            )));
        }
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
        // The balls binned on a grid; each particle tested, in parallel, against the balls of
        // its cell into a flag (a buffer kept between steps); the flagged ones' hits gathered
        // in slot order, then placed body by body.
        let (p, near, grid) = (&self.particles, &mut self.near, &mut self.balls);
        grid.build(reach.balls);
        let balls = reach.balls;
        let inside = |x: &Vec3A, b: u32| {
            let xw = DVec3::new(x.x as f64, x.y as f64, x.z as f64);
            let (centre, radius) = balls[b as usize];
            (xw - centre).length_squared() <= radius * radius
        };
        near.clear();
        near.resize(p.pos.len(), false);
        {
            let grid = &*grid;
            near.par_iter_mut()
                .zip(p.pos.par_iter())
                .for_each(|(f, x)| {
                    let xw = DVec3::new(x.x as f64, x.y as f64, x.z as f64);
                    *f = grid.candidates(xw).iter().any(|&b| inside(x, b));
                });
        }
        let mut hits = std::mem::take(&mut grid.hits);
        hits.clear();
        for (slot, _) in near.iter().enumerate().filter(|&(_, &f)| f) {
            let x = &p.pos[slot];
            let xw = DVec3::new(x.x as f64, x.y as f64, x.z as f64);
            for &b in grid.candidates(xw) {
                if inside(x, b) {
                    hits.push((b, slot as u32));
                }
            }
        }
        // A counting sort by body keeps slot order within each body.
        let count = &mut grid.count;
        count.clear();
        count.resize(balls.len() + 1, 0);
        for &(b, _) in &hits {
            count[b as usize + 1] += 1;
        }
        for b in 0..balls.len() {
            count[b + 1] += count[b];
        }
        let empty = NearBody {
            body: 0,
            slot: 0,
            id: 0,
            pos: Vec3A::ZERO,
            vel: Vec3A::ZERO,
            phase: 0,
            rho: 0.0,
        };
        out.clear();
        out.resize(hits.len(), empty);
        for &(b, slot) in &hits {
            let s = slot as usize;
            out[count[b as usize]] = NearBody {
                body: b,
                slot,
                id: p.id[s],
                pos: p.pos[s],
                vel: p.vel[s],
                phase: p.phase[s],
                rho: p.rho[s],
            };
            count[b as usize] += 1;
        }
        grid.hits = hits;
        Ok(())
    }

    /// The lists, unless an edit dropped them (the next step builds them afresh).
    fn carried(&self) -> Result<Carried> {
        if self.solver.lists.len() != self.particles.len() {
            return Ok(Carried::Nothing);
        }
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_ball_grid_lists_every_ball_that_holds_a_point() {
        // Balls of mixed sizes, one far from the rest (the grid's cells grow), and points
        // everywhere around them, some exactly on a ball's surface: every ball that holds a
        // point is among its cell's candidates.
        let mut seed = 12345u64;
        let mut next = || {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (seed >> 11) as f64 / (1u64 << 53) as f64
        };
        let mut balls: Vec<(DVec3, f64)> = (0..40)
            .map(|_| {
                let c = DVec3::new(next(), next() * 0.5, next() * 0.3);
                (c, 0.005 + 0.05 * next())
            })
            .collect();
        balls.push((DVec3::new(30.0, -2.0, 5.0), 0.2));
        let mut grid = BallGrid::default();
        grid.build(&balls);
        let mut points: Vec<DVec3> = (0..20_000)
            .map(|_| DVec3::new(next() * 1.2 - 0.1, next() * 0.7 - 0.1, next() * 0.5 - 0.1))
            .collect();
        for &(c, r) in &balls {
            points.push(c + DVec3::X * r);
            points.push(c - DVec3::Y * r);
        }
        let mut hits = 0;
        for x in points {
            let cand = grid.candidates(x);
            for (b, &(c, r)) in balls.iter().enumerate() {
                if (x - c).length_squared() <= r * r {
                    hits += 1;
                    assert!(cand.contains(&(b as u32)), "ball {b} missing at {x}");
                }
            }
        }
        assert!(hits > 100, "{hits} hits");
    }
}
