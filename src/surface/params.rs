//! [`SurfaceParams`]: the settings of a surface reconstruction (splashsurf's, relative to the
//! particle radius), their defaults for a run and their validation.
use serde::{Deserialize, Serialize};

/// Largest smoothing length accepted, in particle radii (a support of 20 radii = 10 spacings
/// already blurs every feature of the liquid and visits ~4,000 neighbours per particle).
pub const MAX_SMOOTHING_LENGTH: f64 = 5.0;
/// Smallest cube size accepted, in particle radii (below it the grid outgrows memory long before
/// the surface gains detail).
pub const MIN_CUBE_SIZE: f64 = 0.05;
/// Largest mesh smoothing iteration count accepted.
pub const MAX_SMOOTH_ITERATIONS: u32 = 1000;

/// Settings of the liquid surface reconstruction.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SurfaceParams {
    /// Particle radius, m: half the lattice spacing (a particle's volume is (2 r)^3).
    pub particle_radius: f64,
    /// Smoothing length in particle radii; the kernel's compact support radius is
    /// `2 * smoothing_length * particle_radius` (splashsurf's convention).
    pub smoothing_length: f64,
    /// Edge length of the marching cubes grid in particle radii.
    pub cube_size: f64,
    /// Iso value of the surface relative to the rest density.
    pub threshold: f64,
    /// Laplacian smoothing iterations applied to the mesh (0 = none).
    pub smooth_iterations: u32,
}

impl SurfaceParams {
    /// Defaults for a run with particles of radius `particle_radius` (m, half the spacing) and a
    /// liquid kernel radius `kernel_radius` (m).
    ///
    /// The compact support is the liquid's kernel radius (the surface resolves what the
    /// simulation resolves) kept between 1.75 and 2 spacings, where the iso value 0.6 keeps a
    /// still block's and a ball's volume within 1% (2 spacings, smoothing length 2, for the
    /// default kernel radius; a shorter support at 0.6 loses volume, 3.5% at 1.5 spacings,
    /// and a longer one gains it, 2.7% at 2.5). Cubes of 0.75 radii: 1.0 is twice as fast with
    /// the same volume but coarser triangles, 0.5 three times slower for no measurable gain.
    /// Five Laplacian iterations (weight 0.5) smooth the marching cubes' facets (a ball's
    /// largest radius error falls from 0.39 to 0.32 spacings) for under 5% of the time and
    /// 0.4% of a small ball's volume. Measurements: tests/output/surface/mesh.rs, benches/surface.rs.
    pub fn for_run(particle_radius: f64, kernel_radius: f64) -> Self {
        let spacing = 2.0 * particle_radius;
        let support = if kernel_radius.is_finite() && kernel_radius > 0.0 {
            kernel_radius.clamp(1.75 * spacing, 2.0 * spacing)
        } else {
            2.0 * spacing
        };
        SurfaceParams {
            particle_radius,
            smoothing_length: support / (2.0 * particle_radius),
            cube_size: 0.75,
            threshold: 0.6,
            smooth_iterations: 5,
        }
    }

    /// Compact support radius of the kernel, m.
    pub fn compact_support_radius(&self) -> f64 {
        2.0 * self.smoothing_length * self.particle_radius
    }

    /// Edge length of the marching cubes grid, m.
    pub fn cube_length(&self) -> f64 {
        self.cube_size * self.particle_radius
    }

    /// Check every setting; the message names the key and the fix.
    pub fn validate(&self) -> Result<(), String> {
        let positive = |key: &str, v: f64, example: &str| {
            if v.is_finite() && v > 0.0 {
                Ok(())
            } else {
                Err(format!(
                    "surface.{key} = {v} is not a positive number; give one, for example {example}"
                ))
            }
        };
        positive("particle_radius", self.particle_radius, "0.005 (m)")?;
        positive("smoothing_length", self.smoothing_length, "2.0")?;
        positive("cube_size", self.cube_size, "0.75")?;
        positive("threshold", self.threshold, "0.6")?;
        if self.smoothing_length < 1.0 || self.smoothing_length > MAX_SMOOTHING_LENGTH {
            return Err(format!(
                "surface.smoothing_length = {} is outside 1 to {MAX_SMOOTHING_LENGTH} particle radii (a smaller kernel \
                 does not reach the next particle, a larger one blurs the liquid); use 2.0",
                self.smoothing_length
            ));
        }
        if self.cube_size < MIN_CUBE_SIZE || self.cube_size > self.smoothing_length * 2.0 {
            return Err(format!(
                "surface.cube_size = {} is outside {MIN_CUBE_SIZE} to 2 * smoothing_length = {} particle radii \
                 (cubes larger than the kernel's support miss the liquid); use 0.5 to 1.0",
                self.cube_size,
                self.smoothing_length * 2.0
            ));
        }
        if self.threshold >= 1.0 {
            return Err(format!(
                "surface.threshold = {} is not below 1 (the rest density): no surface would enclose \
                 the liquid; use 0.6",
                self.threshold
            ));
        }
        if self.smooth_iterations > MAX_SMOOTH_ITERATIONS {
            return Err(format!(
                "surface.smooth_iterations = {} is more than {MAX_SMOOTH_ITERATIONS}; use 0 to 20",
                self.smooth_iterations
            ));
        }
        Ok(())
    }
}
