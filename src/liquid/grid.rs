//! Uniform neighbour grid with cell size h: counting sort of the particles by (cell, id), so that
//! every neighbour sum runs in the same order on every run. (Cells of h/2 with a 5x5x5 search
//! visit fewer candidates but measured twice as slow here: 25 short rows instead of 9.)
use super::particles::Particles;
use crate::{Error, Result};
use glam::Vec3A;
use rayon::prelude::*;

/// The most cells a grid may have before the liquid is judged to have spread out of bounds.
pub const MAX_CELLS: usize = 1 << 27;

/// Cells of size h over the particles' bounding box, particles sorted by cell.
#[derive(Debug, Clone, Default)]
pub struct Grid {
    /// Cell edge length (the kernel radius h), m.
    pub cell: f32,
    origin: Vec3A,
    dims: [u32; 3],
    /// `cell_start[c]..cell_start[c+1]` are the slots of the particles in cell `c`.
    pub cell_start: Vec<u32>,
    /// The linear cell index of each slot.
    pub cell_of: Vec<u32>,
    scratch: Vec<u32>,
    /// How far a position may lie past its cell's faces by rounding, m.
    margin: f32,
    /// The cell of each slot before the sort.
    unsorted: Vec<u32>,
    /// The sort's permutation: slot `k` takes what slot `perm[k]` held.
    perm: Vec<u32>,
    /// The particles' vectors' scratch for their reordering (one array at a time).
    wide: Vec<Vec3A>,
}

impl Grid {
    /// An empty grid with the given cell size.
    pub fn new(cell: f32) -> Grid {
        Grid {
            cell,
            ..Default::default()
        }
    }

    /// Set aside room for `n` particles in the per-slot arrays.
    pub fn reserve(&mut self, n: usize) {
        for v in [
            &mut self.cell_of,
            &mut self.scratch,
            &mut self.unsorted,
            &mut self.perm,
        ] {
            v.reserve(n.saturating_sub(v.len()));
        }
        self.wide.reserve(n.saturating_sub(self.wide.len()));
    }

    /// Set aside room for `cells` cells (and the count after them).
    pub fn reserve_cells(&mut self, cells: usize) {
        self.cell_start
            .reserve((cells + 1).saturating_sub(self.cell_start.len()));
    }

    /// A grid over given bounds with particles already sorted by (cell, id): `cell_start` has
    /// one entry per cell and one more, `cell_of` one per slot (as a GPU grid downloads).
    #[cfg_attr(not(test), allow(dead_code))]
    pub fn from_parts(
        cell: f32,
        origin: Vec3A,
        dims: [u32; 3],
        cell_start: Vec<u32>,
        cell_of: Vec<u32>,
    ) -> Grid {
        let mut g = Grid {
            cell,
            origin,
            dims,
            cell_start,
            cell_of,
            ..Default::default()
        };
        g.set_margin();
        g
    }

    /// Set the rounding margin for the grid's origin, cell and dimensions: a few units in the
    /// last place of the largest coordinate, and a thousandth of a cell.
    fn set_margin(&mut self) {
        let far = self.origin.abs() + Vec3A::from_array(self.dims.map(|d| d as f32)) * self.cell;
        self.margin = self.cell * 1e-3 + far.max_element() * 1e-6;
    }

    /// The grid's lowest corner.
    #[cfg_attr(not(test), allow(dead_code))]
    pub fn origin(&self) -> Vec3A {
        self.origin
    }

    /// Grid dimensions (cells along x, y, z).
    #[cfg_attr(not(test), allow(dead_code))]
    pub fn dims(&self) -> [u32; 3] {
        self.dims
    }

    /// Number of cells.
    pub fn cells(&self) -> usize {
        self.dims.iter().map(|&d| d as usize).product()
    }

    /// A product by the reciprocal, not a quotient: a GPU's division may be 2.5 ulp off (the
    /// Vulkan limit), which moves a position on a cell face into the next cell; a product is
    /// correctly rounded everywhere, so the shaders (`cell_coords` in common.wgsl) bin alike.
    fn cell_coords(&self, p: Vec3A) -> [u32; 3] {
        let c = ((p - self.origin) * (1.0 / self.cell)).floor();
        [
            (c.x.max(0.0) as u32).min(self.dims[0] - 1),
            (c.y.max(0.0) as u32).min(self.dims[1] - 1),
            (c.z.max(0.0) as u32).min(self.dims[2] - 1),
        ]
    }

    /// The linear cell index of a position (clamped into the grid).
    pub fn cell_index(&self, p: Vec3A) -> u32 {
        self.linear(self.cell_coords(p))
    }

    fn linear(&self, c: [u32; 3]) -> u32 {
        (c[2] * self.dims[1] + c[1]) * self.dims[0] + c[0]
    }

    /// Bin the particles and reorder them in place by (cell, id).
    pub fn build(&mut self, p: &mut Particles) -> Result<()> {
        let n = p.len();
        if n == 0 {
            self.dims = [1, 1, 1];
            self.cell_start = vec![0, 0];
            self.cell_of.clear();
            return Ok(());
        }
        let (lo, hi) = p
            .pos
            .par_iter()
            .fold(
                || (Vec3A::splat(f32::INFINITY), Vec3A::splat(f32::NEG_INFINITY)),
                |(lo, hi), &x| (lo.min(x), hi.max(x)),
            )
            .reduce(
                || (Vec3A::splat(f32::INFINITY), Vec3A::splat(f32::NEG_INFINITY)),
                |a, b| (a.0.min(b.0), a.1.max(b.1)),
            );
        if !lo.is_finite() || !hi.is_finite() {
            return Err(Error::Run(
                "a liquid particle's position is not finite (NaN or infinity): the step is \
                 unstable; lower time.substeps' step (raise substeps) or the stiffness"
                    .into(),
            ));
        }
        let span = ((hi - lo) / self.cell).floor() + Vec3A::ONE;
        let cells = span.x as f64 * span.y as f64 * span.z as f64;
        if cells > MAX_CELLS as f64 {
            return Err(Error::Run(format!(
                "the liquid has spread over {:.3?} m ({cells:.0} grid cells), out of any \
                 container: the step is unstable; raise time.substeps or lower the stiffness \
                 (and give the scene a [container] if it has none)",
                hi - lo
            )));
        }
        self.build_in(p, lo, [span.x as u32, span.y as u32, span.z as u32]);
        Ok(())
    }

    /// Bin the particles into the cells of a grid with the given lowest corner and dimensions
    /// (positions outside are clamped into the border cells) and reorder them by (cell, id).
    pub fn build_in(&mut self, p: &mut Particles, origin: Vec3A, dims: [u32; 3]) {
        let n = p.len();
        self.origin = origin;
        self.dims = dims;
        self.set_margin();
        let ncells = self.cells();

        // Cell of every particle, counts, exclusive prefix sum, stable scatter.
        let mut cell_of = std::mem::take(&mut self.unsorted);
        cell_of.resize(n, 0);
        cell_of
            .par_iter_mut()
            .zip(p.pos.par_iter())
            .for_each(|(c, &x)| *c = self.linear(self.cell_coords(x)));
        self.cell_start.clear();
        self.cell_start.resize(ncells + 1, 0);
        for &c in &cell_of {
            self.cell_start[c as usize + 1] += 1;
        }
        for c in 0..ncells {
            self.cell_start[c + 1] += self.cell_start[c];
        }
        self.scratch.clear();
        self.scratch.extend_from_slice(&self.cell_start[..ncells]);
        let perm = &mut self.perm;
        perm.resize(n, 0);
        for (k, &c) in cell_of.iter().enumerate() {
            let slot = &mut self.scratch[c as usize];
            perm[*slot as usize] = k as u32;
            *slot += 1;
        }
        // Within a cell, order by id (insertion sort: cells are small and nearly sorted).
        for c in 0..ncells {
            let s = &mut perm[self.cell_start[c] as usize..self.cell_start[c + 1] as usize];
            for a in 1..s.len() {
                let mut b = a;
                while b > 0 && p.id[s[b - 1] as usize] > p.id[s[b] as usize] {
                    s.swap(b - 1, b);
                    b -= 1;
                }
            }
        }
        self.cell_of.resize(n, 0);
        self.cell_of
            .par_iter_mut()
            .zip(perm.par_iter())
            .for_each(|(c, &k)| *c = cell_of[k as usize]);
        // The cells before the sort are read no more: their array is the 4-byte fields' scratch.
        p.permute_through(perm, &mut self.wide, &mut cell_of);
        self.unsorted = cell_of;
    }

    /// Call `f(first, end)` for each of the (up to) 9 rows of cells around cell `c`, z then y
    /// outermost: the cells `first..end` of a row are contiguous (x fastest), clamped to the
    /// grid. Any array binned into these cells gathers over the 27 cells in this order.
    #[inline(always)]
    pub fn for_each_row_near(&self, c: u32, mut f: impl FnMut(usize, usize)) {
        let (nx, ny) = (self.dims[0], self.dims[1]);
        let cx = c % nx;
        let cy = (c / nx) % ny;
        let cz = c / (nx * ny);
        let x0 = cx.saturating_sub(1);
        let x1 = (cx + 1).min(nx - 1);
        for z in cz.saturating_sub(1)..=(cz + 1).min(self.dims[2] - 1) {
            for y in cy.saturating_sub(1)..=(cy + 1).min(ny - 1) {
                let row = (z * ny + y) * nx;
                f((row + x0) as usize, (row + x1) as usize + 1);
            }
        }
    }

    /// As [`Self::for_each_row_near`] for a position `x` in cell `c`, but only over the cells
    /// that can hold a particle closer than `h` to `x` (by its distances to the faces of its
    /// cell, less a rounding margin): a row's first and last cell, or the whole row, are left
    /// out where they lie farther. A position clamped into a border cell lies beyond its face,
    /// farther from every other cell; the order is unchanged.
    #[inline(always)]
    pub fn for_each_row_within(&self, c: u32, x: Vec3A, h: f32, mut f: impl FnMut(usize, usize)) {
        let (nx, ny, nz) = (self.dims[0], self.dims[1], self.dims[2]);
        let cx = c % nx;
        let cy = (c / nx) % ny;
        let cz = c / (nx * ny);
        let face = self.origin + Vec3A::new(cx as f32, cy as f32, cz as f32) * self.cell;
        let m = Vec3A::splat(self.margin);
        // Least distance along each axis to the cells below and above.
        let below = (x - face - m).max(Vec3A::ZERO);
        let above = (face + Vec3A::splat(self.cell) - x - m).max(Vec3A::ZERO);
        let (below, above) = (below * below, above * above);
        let h2 = h * h;
        let z0 = if cz > 0 && below.z < h2 { cz - 1 } else { cz };
        let z1 = if cz + 1 < nz && above.z < h2 {
            cz + 1
        } else {
            cz
        };
        let y0 = if cy > 0 && below.y < h2 { cy - 1 } else { cy };
        let y1 = if cy + 1 < ny && above.y < h2 {
            cy + 1
        } else {
            cy
        };
        for z in z0..=z1 {
            let gz = if z < cz {
                below.z
            } else if z > cz {
                above.z
            } else {
                0.0
            };
            for y in y0..=y1 {
                let gy = if y < cy {
                    below.y
                } else if y > cy {
                    above.y
                } else {
                    0.0
                };
                let g = gz + gy;
                if g >= h2 {
                    continue;
                }
                let x0 = if cx > 0 && below.x + g < h2 {
                    cx - 1
                } else {
                    cx
                };
                let x1 = if cx + 1 < nx && above.x + g < h2 {
                    cx + 1
                } else {
                    cx
                };
                let row = (z * ny + y) * nx;
                f((row + x0) as usize, (row + x1) as usize + 1);
            }
        }
    }
}

impl crate::boundary::Cells for Grid {
    #[inline(always)]
    fn cells(&self) -> usize {
        Grid::cells(self)
    }

    #[inline(always)]
    fn cell_index(&self, x: Vec3A) -> u32 {
        Grid::cell_index(self, x)
    }

    #[inline(always)]
    fn cell_of_slot(&self, i: usize) -> u32 {
        self.cell_of[i]
    }

    #[inline(always)]
    fn for_each_row_near(&self, c: u32, f: impl FnMut(usize, usize)) {
        Grid::for_each_row_near(self, c, f)
    }
}
