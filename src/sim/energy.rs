//! Mechanical energy of a simulation: kinetic and gravitational, of the liquid and the bodies;
//! and the liquid's mass.
use super::Simulation;
use glam::DVec3;

/// Kinetic and potential energy, J (potential `-m g.x`, zero at the origin).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Energy {
    /// Kinetic energy of liquid particles and bodies (translation and rotation), J.
    pub kinetic: f64,
    /// Gravitational potential energy, J.
    pub potential: f64,
}

impl Energy {
    /// Kinetic plus potential, J.
    pub fn total(&self) -> f64 {
        self.kinetic + self.potential
    }
}

impl Simulation {
    /// The mechanical energy now (of `particles` as last synced on the GPU backend).
    pub fn energy(&self) -> Energy {
        let g = self.gravity;
        let p = self.particles();
        let phases = &self.liquid.params().phases;
        let mut e = Energy::default();
        for k in 0..p.len() {
            let m = phases[p.phase[k] as usize].mass as f64;
            let (x, v) = (p.pos[k], p.vel[k]);
            let x = DVec3::new(x.x as f64, x.y as f64, x.z as f64);
            let v = DVec3::new(v.x as f64, v.y as f64, v.z as f64);
            e.kinetic += 0.5 * m * v.length_squared();
            e.potential -= m * g.dot(x);
        }
        for b in self.bodies.iter().filter(|b| b.dynamic) {
            e.kinetic += b.kinetic_energy();
            e.potential -= b.mass() * g.dot(b.state.x);
        }
        e
    }

    /// The liquid's mass now, kg (of `particles` as last synced on the GPU backend).
    pub fn liquid_mass(&self) -> f64 {
        let phases = &self.liquid.params().phases;
        let p = self.particles();
        p.phase
            .iter()
            .map(|&k| phases[k as usize].mass as f64)
            .sum()
    }
}
