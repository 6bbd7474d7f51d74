//! The walls' ghost walk's arithmetic in bulk ([`super::wall_kernel::WallKernel`]): a batch of
//! ghosts measured together on vector lanes, and the row spans' thresholds that replace a
//! square root and a division per row by comparisons; both give the scalar walk's numbers bit
//! for bit.
use glam::Vec3A;

/// Ghosts measured [`GHOST_BATCH`] at a time: their offsets as coordinate arrays, then their
/// lengths and `1 - |r| / h` in one loop the compiler runs on vector lanes, each rounded as
/// `Vec3A::length` and the scalar division round it (`sqrt((x x + y y) + z z)`, no fused
/// multiply-add).
pub(super) struct GhostBatch {
    x: [f32; GHOST_BATCH],
    y: [f32; GHOST_BATCH],
    z: [f32; GHOST_BATCH],
    len: [f32; GHOST_BATCH],
    q: [f32; GHOST_BATCH],
    /// Ghosts held.
    pub(super) count: usize,
}

/// Ghosts a [`GhostBatch`] holds.
const GHOST_BATCH: usize = 16;

impl Default for GhostBatch {
    fn default() -> GhostBatch {
        GhostBatch {
            x: [0.0; GHOST_BATCH],
            y: [0.0; GHOST_BATCH],
            z: [0.0; GHOST_BATCH],
            len: [0.0; GHOST_BATCH],
            q: [0.0; GHOST_BATCH],
            count: 0,
        }
    }
}

impl GhostBatch {
    /// Hold the ghost at offset `r`; whether the batch is now full.
    #[inline(always)]
    pub(super) fn push(&mut self, r: [f32; 3]) -> bool {
        let c = self.count;
        (self.x[c], self.y[c], self.z[c]) = (r[0], r[1], r[2]);
        self.count = c + 1;
        self.count == GHOST_BATCH
    }

    /// The lengths and `1 - |r| / h` of every lane (those past the count are never read).
    #[inline(always)]
    pub(super) fn measure(&mut self, h: f32) {
        for c in 0..GHOST_BATCH {
            let (x, y, z) = (self.x[c], self.y[c], self.z[c]);
            let len = ((x * x + y * y) + z * z).sqrt();
            self.len[c] = len;
            self.q[c] = 1.0 - len / h;
        }
    }

    /// Ghost `c`: its offset, length and `1 - |r| / h`.
    #[inline(always)]
    pub(super) fn ghost(&self, c: usize) -> (Vec3A, f32, f32) {
        (
            Vec3A::new(self.x[c], self.y[c], self.z[c]),
            self.len[c],
            self.q[c],
        )
    }
}

/// The thresholds of [`WallKernel`]'s row spans: for `m = 1..=n`, the least f32 `rest` with
/// `(sqrt(max(rest, 0)) / d) as i32 >= m`, found by bisection over the non-negative floats'
/// bit patterns (in which both correctly rounded operations are non-decreasing, so the
/// condition holds from one pattern on).
pub(super) fn span_thresholds(d: f32, n: i32) -> Vec<f32> {
    let reach = |rest: f32| (rest.max(0.0).sqrt() / d) as i32;
    (1..=n.max(0))
        .map(|m| {
            // The condition fails at `lo` and holds at `hi` (at infinity the reach saturates).
            let (mut lo, mut hi) = (0u32, f32::INFINITY.to_bits());
            if reach(0.0) >= m {
                return 0.0;
            }
            while hi - lo > 1 {
                let mid = lo + (hi - lo) / 2;
                if reach(f32::from_bits(mid)) >= m {
                    hi = mid;
                } else {
                    lo = mid;
                }
            }
            f32::from_bits(hi)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_span_thresholds_give_the_square_roots_reach_for_every_rest() {
        // Every float around each threshold, a sweep of the range and the odd values: the
        // comparisons give `min((sqrt(max(rest, 0)) / d) as i32, n)` exactly.
        for (d, ratio) in [(0.01f32, 2.0f32), (0.008, 2.5), (0.0055, 3.0), (0.02, 1.5)] {
            let h = ratio * d;
            let n = (h / d).ceil() as i32;
            let spans = span_thresholds(d, n);
            assert_eq!(spans.len(), n as usize);
            let by_sqrt = |rest: f32| ((rest.max(0.0).sqrt() / d) as i32).min(n);
            let by_table = |rest: f32| spans.iter().take_while(|&&t| rest >= t).count() as i32;
            let mut rests = vec![f32::NAN, -1.0, -0.0, 0.0, f32::MIN_POSITIVE, h * h * 2.0];
            for &t in &spans {
                for k in -3i32..=3 {
                    rests.push(f32::from_bits((t.to_bits() as i32 + k) as u32));
                }
            }
            rests.extend((0..=4000).map(|k| h * h * 1.0001 * k as f32 / 4000.0));
            for rest in rests {
                assert_eq!(by_table(rest), by_sqrt(rest), "d {d}, h {h}, rest {rest:e}");
            }
        }
    }
}
