//! The bodies' particles as the liquid's boundary: their world positions and weights, binned
//! into the liquid grid's cells and sorted by (cell, index), so that every liquid particle
//! gathers their kernel sums from the 27 cells around it in one fixed order on the CPU and on
//! the GPU alike (`gpu::boundary_grid` is the GPU's twin of [`BoundaryGrid::build`]).
use super::Cells;
use glam::Vec3A;

/// Body particles that lend their kernel sums to the liquid: world positions and weights
/// (their volume over a liquid particle's).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct BoundaryParticles {
    /// World positions, m.
    pub pos: Vec<Vec3A>,
    /// Volume of each particle over a liquid particle's volume.
    pub weight: Vec<f32>,
}

impl BoundaryParticles {
    /// Number of particles.
    pub fn len(&self) -> usize {
        self.pos.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.pos.is_empty()
    }
}

/// The body boundary particles binned into the liquid grid's cells and sorted by (cell,
/// index): every liquid particle gathers their sums over the 27 cells around it in this order,
/// on the CPU and on the GPU alike (no scatter, so no float atomics and a fixed order).
#[derive(Debug, Clone, Default)]
pub struct BoundaryGrid {
    /// `cell_start[c]..cell_start[c+1]` are the sorted particles in cell `c` (one entry per
    /// cell and one more; empty when there are no particles).
    pub cell_start: Vec<u32>,
    /// The particles in (cell, index) order.
    pub sorted: BoundaryParticles,
    /// Their bounding box (lowest, highest corner).
    bounds: [Vec3A; 2],
    /// Per cell, whether any of the 27 cells around it holds a particle (empty: not known, as
    /// after [`BoundaryGrid::from_parts`]); a liquid particle in a cell without skips the gather.
    near: Vec<bool>,
}

/// Two binnings are equal when they hold the same particles in the same cells (the bounds
/// and the cells' flags follow from these).
impl PartialEq for BoundaryGrid {
    fn eq(&self, other: &Self) -> bool {
        self.cell_start == other.cell_start && self.sorted == other.sorted
    }
}

impl BoundaryGrid {
    /// The bins from their parts (as a GPU binning downloads).
    #[cfg_attr(not(test), allow(dead_code))]
    pub fn from_parts(cell_start: Vec<u32>, sorted: BoundaryParticles) -> BoundaryGrid {
        let mut b = BoundaryGrid {
            cell_start,
            sorted,
            bounds: [Vec3A::ZERO; 2],
            near: Vec::new(),
        };
        b.set_bounds();
        b
    }

    /// Set the bounding box (zero when there are no particles, as by default).
    fn set_bounds(&mut self) {
        if self.is_empty() {
            self.bounds = [Vec3A::ZERO; 2];
            return;
        }
        self.bounds = self.sorted.pos.iter().fold(
            [Vec3A::splat(f32::INFINITY), Vec3A::splat(f32::NEG_INFINITY)],
            |[lo, hi], &x| [lo.min(x), hi.max(x)],
        );
    }

    /// Bin `b` into the cells of `grid` (points outside are clamped into its border cells, as
    /// the liquid's are): a counting sort, stable in the particles' index.
    pub fn build<G: Cells>(&mut self, grid: &G, b: &BoundaryParticles) {
        self.cell_start.clear();
        self.sorted.pos.clear();
        self.sorted.weight.clear();
        self.near.clear();
        if b.is_empty() {
            self.set_bounds();
            return;
        }
        let ncells = grid.cells();
        // Each particle's cell is found twice (to count, then to scatter) rather than kept:
        // nothing is allocated once the buffers have held as many particles and cells.
        let cell_of = |k: usize| grid.cell_index(b.pos[k]);
        self.cell_start.resize(ncells + 1, 0);
        for k in 0..b.len() {
            self.cell_start[cell_of(k) as usize + 1] += 1;
        }
        for c in 0..ncells {
            self.cell_start[c + 1] += self.cell_start[c];
        }
        // Scatter with cell_start[c] as the cursor of cell c (it ends at the next cell's
        // start), then shift the starts back.
        self.sorted.pos.resize(b.len(), Vec3A::ZERO);
        self.sorted.weight.resize(b.len(), 0.0);
        for k in 0..b.len() {
            let slot = &mut self.cell_start[cell_of(k) as usize];
            self.sorted.pos[*slot as usize] = b.pos[k];
            self.sorted.weight[*slot as usize] = b.weight[k];
            *slot += 1;
        }
        self.cell_start.copy_within(0..ncells, 1);
        self.cell_start[0] = 0;
        self.set_bounds();
        // The cells within one of an occupied cell: the neighbourhood is symmetric, so these
        // are the cells whose 27 hold a particle.
        self.near.clear();
        self.near.resize(ncells, false);
        for c in 0..ncells {
            if self.cell_start[c + 1] > self.cell_start[c] {
                grid.for_each_row_near(c as u32, |first, end| self.near[first..end].fill(true));
            }
        }
    }

    /// Whether there are no particles.
    pub fn is_empty(&self) -> bool {
        self.sorted.is_empty()
    }

    /// Whether `x` lies within `margin` of the particles' bounding box.
    #[inline]
    pub fn near_bounds(&self, x: Vec3A, margin: f32) -> bool {
        let m = Vec3A::splat(margin);
        !self.is_empty() && x.cmpge(self.bounds[0] - m).all() && x.cmple(self.bounds[1] + m).all()
    }

    /// The particles' kernel sums `(sum w (1-q)^2, sum w (1-q)^3)` at `x`, a liquid particle
    /// in cell `c` of `grid` (the grid this was built on), over the 27 cells around it.
    #[inline]
    pub fn sums<G: Cells>(&self, grid: &G, c: u32, x: Vec3A, h: f32) -> [f32; 2] {
        let (h2, inv_h) = (h * h, 1.0 / h);
        let (mut s, mut sn) = (0.0f32, 0.0f32);
        // Most particles are far from every body: two kernel radii beyond the bounding box
        // (one would do but for rounding), no term can be non-zero, and the sums are exactly
        // the zeros the gather would give.
        let m = Vec3A::splat(2.0 * h);
        if x.cmplt(self.bounds[0] - m).any() || x.cmpgt(self.bounds[1] + m).any() {
            return [s, sn];
        }
        // Nor in a cell none of whose 27 holds a particle.
        if self.near.get(c as usize) == Some(&false) {
            return [s, sn];
        }
        grid.for_each_row_near(c, |first, end| {
            let (a, b) = (
                self.cell_start[first] as usize,
                self.cell_start[end] as usize,
            );
            for (xb, w) in self.sorted.pos[a..b].iter().zip(&self.sorted.weight[a..b]) {
                let r2 = (*xb - x).length_squared();
                if r2 < h2 {
                    let q = 1.0 - r2.sqrt() * inv_h;
                    if q > 0.0 {
                        let q2 = q * q;
                        s += w * q2;
                        sn += w * q2 * q;
                    }
                }
            }
        });
        [s, sn]
    }
}
