//! Where the GPU grid lies: its origin, cell counts and whether the container bounds it.
use crate::liquid::grid::MAX_CELLS;
use crate::liquid::{LiquidParams, Particles};
use crate::{Error, Result};
use glam::Vec3A;

/// Where the grid lies: the container (one cell of margin), or without one the initial extent
/// with a wide margin, which the liquid must not leave.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GridSpec {
    /// Lowest corner.
    pub origin: Vec3A,
    /// Cells along x, y, z.
    pub dims: [u32; 3],
    /// Whether the bounds are the container's (particles outside are clamped into border
    /// cells, which stays correct) or a fixed box the liquid must stay in.
    pub container: bool,
}

impl GridSpec {
    /// The grid for these parameters and initial particles.
    pub fn new(params: &LiquidParams, p: &Particles) -> Result<GridSpec> {
        let h = params.h;
        let (lo, hi, container) = match &params.boundary.walls {
            Some(w) => (w.lo - Vec3A::splat(h), w.hi + Vec3A::splat(h), true),
            None => {
                let (mut lo, mut hi) =
                    (Vec3A::splat(f32::INFINITY), Vec3A::splat(f32::NEG_INFINITY));
                for &x in &p.pos {
                    lo = lo.min(x);
                    hi = hi.max(x);
                }
                if p.is_empty() {
                    (lo, hi) = (Vec3A::ZERO, Vec3A::ZERO);
                }
                let margin = ((hi - lo) * 0.5).max(Vec3A::splat(8.0 * h));
                (lo - margin, hi + margin, false)
            }
        };
        let span = ((hi - lo) / h).floor() + Vec3A::ONE;
        let cells = span.x as f64 * span.y as f64 * span.z as f64;
        if cells > MAX_CELLS as f64 {
            return Err(Error::input(format!(
                "the GPU grid over {:.3?} m would have {cells:.0} cells of {h} m (at most {MAX_CELLS}); \
                 fix: a smaller container or a larger spacing",
                hi - lo
            )));
        }
        Ok(GridSpec {
            origin: lo,
            dims: [span.x as u32, span.y as u32, span.z as u32],
            container,
        })
    }

    /// Number of cells.
    pub fn cells(&self) -> u32 {
        self.dims[0] * self.dims[1] * self.dims[2]
    }
}
