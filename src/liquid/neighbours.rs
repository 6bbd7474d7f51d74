//! Per-particle neighbour lists gathered from the grid once a step, so that the kernel sums,
//! the relaxation and the viscosity visit only real neighbours.
use super::grid::Grid;
use glam::Vec3A;
use rayon::prelude::*;

/// Neighbour slots of every slot, in grid order, `stride` entries reserved per particle.
#[derive(Debug, Clone, Default)]
pub struct NeighbourLists {
    stride: usize,
    count: Vec<u32>,
    idx: Vec<u32>,
}

impl NeighbourLists {
    /// The neighbours of slot `i`.
    #[inline(always)]
    pub fn of(&self, i: usize) -> &[u32] {
        let s = i * self.stride;
        &self.idx[s..s + self.count[i] as usize]
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

    /// The lists packed for a checkpoint: the stride reserved, each slot's count, and the
    /// neighbours of one slot after another.
    pub fn pack(&self) -> (usize, Vec<u32>, Vec<u32>) {
        let packed = (0..self.len()).flat_map(|i| self.of(i).iter().copied());
        (self.stride, self.count.clone(), packed.collect())
    }

    /// The lists that [`NeighbourLists::pack`] gave these parts of; `None` when the parts do
    /// not fit together (a count above the stride, or not as many neighbours as counted).
    pub fn unpack(stride: usize, count: Vec<u32>, packed: &[u32]) -> Option<NeighbourLists> {
        let total: usize = count.iter().map(|&c| c as usize).sum();
        if total != packed.len() || count.iter().any(|&c| c as usize > stride) {
            return None;
        }
        let mut idx = vec![0u32; count.len() * stride];
        let mut at = 0;
        for (i, &c) in count.iter().enumerate() {
            let c = c as usize;
            idx[i * stride..i * stride + c].copy_from_slice(&packed[at..at + c]);
            at += c;
        }
        Some(NeighbourLists { stride, count, idx })
    }

    /// Gather, for every slot, the other slots closer than `h`, in the grid's fixed order.
    pub fn build(&mut self, pos: &[Vec3A], grid: &Grid, h: f32) {
        let n = pos.len();
        if self.stride == 0 {
            self.stride = 48;
        }
        loop {
            let stride = self.stride;
            self.count.resize(n, 0);
            self.idx.resize(n * stride, 0);
            let overflow = self
                .idx
                .par_chunks_mut(stride)
                .zip(self.count.par_iter_mut())
                .enumerate()
                .map(|(i, (slots, count))| {
                    let mut c = 0usize;
                    grid.for_each_neighbour(pos, i, h, |j, _, _| {
                        if c < stride {
                            slots[c] = j as u32;
                        }
                        c += 1;
                    });
                    *count = c.min(stride) as u32;
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
