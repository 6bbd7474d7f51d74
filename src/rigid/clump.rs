//! A clump: the equal sphere particles a rigid body is made of.
use super::mass_properties::{MassProperties, clump_mass_properties};
use glam::DVec3;

/// Sphere particles on a lattice that fill a body, with their surface flags and normals.
#[derive(Debug, Clone, PartialEq)]
pub struct Clump {
    /// Particle centres (in the frame of the sampled shape; in a body, the body frame).
    pub positions: Vec<DVec3>,
    /// Lattice spacing.
    pub spacing: f64,
    /// Particle radius, half the spacing.
    pub radius: f64,
    /// Mass of each particle: the body's exact mass divided evenly.
    pub particle_mass: f64,
    /// Whether each particle lies on the surface (a lattice neighbour is outside the body).
    pub surface: Vec<bool>,
    /// Outward unit normal of the nearest surface for surface particles, zero inside.
    pub normals: Vec<DVec3>,
}

impl Clump {
    /// Number of particles.
    pub fn len(&self) -> usize {
        self.positions.len()
    }

    /// Whether the clump has no particles.
    pub fn is_empty(&self) -> bool {
        self.positions.is_empty()
    }

    /// Total mass.
    pub fn mass(&self) -> f64 {
        self.particle_mass * self.len() as f64
    }

    /// Number of surface particles.
    pub fn surface_count(&self) -> usize {
        self.surface.iter().filter(|s| **s).count()
    }

    /// Mass properties of the clump as spheres: `sum_i (2/5 m_i L^2 1 + m_i ((r.r) 1 - r r^T))`
    /// about its own centre of mass, with L the particle radius.
    pub fn mass_properties(&self) -> MassProperties {
        let masses = vec![self.particle_mass; self.len()];
        clump_mass_properties(&self.positions, &masses, self.radius, self.spacing.powi(3))
    }

    /// The largest distance of a particle centre from the body frame's origin, m.
    pub fn farthest(&self) -> f64 {
        self.positions
            .iter()
            .map(|p| p.length())
            .fold(0.0, f64::max)
    }

    /// The largest distance of a particle cell's corner from the body frame's origin, m: how
    /// far the solid the contacts see (the union of the particles' cells) reaches.
    pub fn cell_reach(&self) -> f64 {
        self.farthest() + self.radius * 3f64.sqrt()
    }

    /// Move every particle by `offset`.
    pub fn translate(&mut self, offset: DVec3) {
        for p in &mut self.positions {
            *p += offset;
        }
    }
}
