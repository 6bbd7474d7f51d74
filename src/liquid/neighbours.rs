//! Per-particle neighbour lists gathered from the grid once a step, so that the kernel sums,
//! the relaxation and the viscosity visit only real neighbours.
//!
//! The gather visits only the cells that can hold a neighbour, and while the lists are hot it
//! keeps each pair's distance and the kernel sums at the positions it was built from, so that
//! the first relaxation pass needs neither a separate density sweep nor a square root per
//! pair. Every list is in the grid's fixed order, so every sum over it is too.
use super::grid::Grid;
use glam::Vec3A;
use rayon::prelude::*;

/// Neighbour lists without their reserve: what a checkpoint keeps of them.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PackedLists {
    /// The entries reserved per slot.
    pub stride: usize,
    /// Each slot's neighbour count.
    pub count: Vec<u32>,
    /// The neighbours of one slot after another.
    pub packed: Vec<u32>,
}

impl PackedLists {
    /// Whether the parts fit together: no count above the stride, as many neighbours as
    /// counted.
    pub fn fits(&self) -> bool {
        let total: usize = self.count.iter().map(|&c| c as usize).sum();
        total == self.packed.len() && self.count.iter().all(|&c| c as usize <= self.stride)
    }
}

/// Neighbour slots of every slot, in grid order, `stride` entries reserved per particle.
#[derive(Debug, Clone, Default)]
pub struct NeighbourLists {
    stride: usize,
    count: Vec<u32>,
    idx: Vec<u32>,
    /// The distance of each entry at the positions the lists were built from.
    dist: Vec<f32>,
    /// Kernel sums `(sum (1-q)^2, sum (1-q)^3)` of each slot at those positions.
    sums: Vec<[f32; 2]>,
}

impl NeighbourLists {
    /// The neighbours of slot `i`.
    #[inline(always)]
    pub fn of(&self, i: usize) -> &[u32] {
        let s = i * self.stride;
        &self.idx[s..s + self.count[i] as usize]
    }

    /// The distances to the neighbours of slot `i` (in the order of [`Self::of`]) at the
    /// positions the lists were built from.
    #[inline(always)]
    pub fn dist_of(&self, i: usize) -> &[f32] {
        let s = i * self.stride;
        &self.dist[s..s + self.count[i] as usize]
    }

    /// The kernel sums `(sum (1-q)^2, sum (1-q)^3)` of every slot over its neighbours at the
    /// positions the lists were built from (what [`super::relaxation::densities`] gives there).
    pub fn sums(&self) -> &[[f32; 2]] {
        &self.sums
    }

    /// Number of particles the lists cover.
    pub fn len(&self) -> usize {
        self.count.len()
    }

    /// Whether the lists cover no particle.
    pub fn is_empty(&self) -> bool {
        self.count.is_empty()
    }

    /// The largest neighbour count.
    pub fn max_count(&self) -> usize {
        self.count.iter().copied().max().unwrap_or(0) as usize
    }

    /// The lists packed for a checkpoint. The distances and kernel sums are left out: the
    /// next step rebuilds them before it reads them (only the viscosity walks the old lists).
    pub fn pack(&self) -> PackedLists {
        let mut packed = Vec::with_capacity(self.count.iter().map(|&c| c as usize).sum());
        for i in 0..self.len() {
            packed.extend_from_slice(self.of(i));
        }
        PackedLists {
            stride: self.stride,
            count: self.count.clone(),
            packed,
        }
    }

    /// The lists that [`NeighbourLists::pack`] gave these parts of; `None` when the parts do
    /// not fit together (a count above the stride, or not as many neighbours as counted).
    pub fn unpack(lists: PackedLists) -> Option<NeighbourLists> {
        if !lists.fits() {
            return None;
        }
        let PackedLists {
            stride,
            count,
            packed,
        } = lists;
        let mut idx = vec![0u32; count.len() * stride];
        let mut at = 0;
        for (i, &c) in count.iter().enumerate() {
            let c = c as usize;
            idx[i * stride..i * stride + c].copy_from_slice(&packed[at..at + c]);
            at += c;
        }
        let (dist, sums) = (vec![0.0; idx.len()], vec![[0.0; 2]; count.len()]);
        Some(NeighbourLists {
            stride,
            count,
            idx,
            dist,
            sums,
        })
    }

    /// Gather, for every slot, the other slots closer than `h`, in the grid's fixed order,
    /// with their distances and the slot's kernel sums.
    pub fn build(&mut self, pos: &[Vec3A], grid: &Grid, h: f32) {
        let n = pos.len();
        if self.stride == 0 {
            self.stride = 48;
        }
        self.count.resize(n, 0);
        self.sums.resize(n, [0.0; 2]);
        loop {
            let stride = self.stride;
            self.idx.resize(n * stride, 0);
            self.dist.resize(n * stride, 0.0);
            let overflow = self
                .idx
                .par_chunks_mut(stride)
                .zip(self.dist.par_chunks_mut(stride))
                .zip(self.count.par_iter_mut().zip(self.sums.par_iter_mut()))
                .enumerate()
                .map(|(i, ((slots, dist), (count, sums)))| {
                    let c = gather(pos, grid, i, h, slots, dist);
                    let m = c.min(stride);
                    *count = m as u32;
                    *sums = kernel_sums(&mut dist[..m], 1.0 / h);
                    c
                })
                .max()
                .unwrap_or(0);
            if overflow <= stride {
                return;
            }
            // A compressed region holds more neighbours than reserved: widen and gather again.
            self.stride = overflow.next_multiple_of(16);
        }
    }
}

/// Append the slots closer than `h` to slot `i` (itself excluded) to `slots`, their squared
/// distances to `dist`, in the grid's order over the cells around it; returns how many there
/// are (entries past the reserved length are counted but not kept).
#[inline(always)]
fn gather(
    pos: &[Vec3A],
    grid: &Grid,
    i: usize,
    h: f32,
    slots: &mut [u32],
    dist: &mut [f32],
) -> usize {
    let xi = pos[i];
    let h2 = h * h;
    let mut c = 0usize;
    grid.for_each_row_within(grid.cell_of[i], xi, h, |first, end| {
        let start = grid.cell_start[first] as usize;
        let end = grid.cell_start[end] as usize;
        for (k, &xj) in pos[start..end].iter().enumerate() {
            let j = start + k;
            let r2 = (xj - xi).length_squared();
            if r2 < h2 && j != i {
                if c < slots.len() {
                    slots[c] = j as u32;
                    dist[c] = r2;
                }
                c += 1;
            }
        }
    });
    c
}

/// Turn the squared distances into distances in place and return the kernel sums
/// `(sum (1-q)^2, sum (1-q)^3)` over them, in order.
#[inline(always)]
fn kernel_sums(dist: &mut [f32], inv_h: f32) -> [f32; 2] {
    for d in dist.iter_mut() {
        *d = d.sqrt();
    }
    let (mut r, mut n) = (0.0f32, 0.0f32);
    for &d in dist.iter() {
        let a = 1.0 - d * inv_h;
        if a > 0.0 {
            let a2 = a * a;
            r += a2;
            n += a2 * a;
        }
    }
    [r, n]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::liquid::particles::Particles;
    use crate::liquid::relaxation;

    /// A pseudo-random cloud in a 0.1 m box, with a dense clump that overflows the first
    /// reserved length.
    fn cloud() -> Particles {
        let mut rng = crate::rng::XorShift::new(0x9e37_79b9);
        let mut next = move || rng.unit() as f32;
        let mut p = Particles::default();
        for _ in 0..3000 {
            p.push(Vec3A::new(next(), next(), next()) * 0.1, Vec3A::ZERO, 0);
        }
        for _ in 0..100 {
            let x = Vec3A::splat(0.05) + Vec3A::new(next(), next(), next()) * 0.002;
            p.push(x, Vec3A::ZERO, 0);
        }
        p
    }

    #[test]
    fn lists_hold_every_neighbour_in_slot_order_with_distances_and_sums() {
        let h = 0.012;
        // A grid over the particles' bounds, and a small one that clamps most of them into
        // its border cells (as a grid with fixed bounds does).
        for clamped in [false, true] {
            let mut p = cloud();
            let mut grid = Grid::new(h);
            if clamped {
                grid.build_in(&mut p, Vec3A::splat(0.02), [4, 4, 4]);
            } else {
                grid.build(&mut p).unwrap();
            }
            let mut lists = NeighbourLists::default();
            lists.build(&p.pos, &grid, h);
            assert!(lists.max_count() >= 99, "the clump is missing");
            let n = p.len();
            let mut pairs = 0;
            for i in 0..n {
                let want: Vec<u32> = (0..n)
                    .filter(|&j| j != i && (p.pos[j] - p.pos[i]).length_squared() < h * h)
                    .map(|j| j as u32)
                    .collect();
                assert_eq!(lists.of(i), &want[..], "slot {i} (clamped: {clamped})");
                for (&j, &d) in lists.of(i).iter().zip(lists.dist_of(i)) {
                    let r = (p.pos[j as usize] - p.pos[i]).length();
                    assert_eq!(d.to_bits(), r.to_bits(), "slot {i}, neighbour {j}");
                }
                pairs += want.len();
            }
            assert!(pairs > 20 * n, "only {pairs} pairs");
            let (mut rho, mut near) = (vec![0.0; n], vec![0.0; n]);
            relaxation::densities(&p.pos, &lists, h, &mut rho, &mut near);
            for (i, s) in lists.sums().iter().enumerate() {
                assert_eq!(s[0].to_bits(), rho[i].to_bits(), "slot {i}");
                assert_eq!(s[1].to_bits(), near[i].to_bits(), "slot {i}");
            }
        }
    }
}
