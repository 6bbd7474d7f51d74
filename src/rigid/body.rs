//! A rigid body: its clump, mass properties and state (position, orientation, momenta).
use super::clump::Clump;
use super::integrators::{self, Integrator};
use super::mass_properties::MassProperties;
use super::mesh::TriMesh;
use super::motion::Prescribed;
use super::sampling;
use super::shape::Shape;
use super::state::{BodyState, Inertia};
use crate::Result;
use glam::{DMat3, DVec3};

/// A rigid body made of sphere particles. The body frame has its origin at the exact centre of
/// mass and the axes of the shape's own coordinates.
#[derive(Debug, Clone)]
pub struct RigidBody {
    /// Name (used for output file names).
    pub name: String,
    /// The solid in the body frame.
    pub shape: Shape,
    /// Surface mesh in the body frame, for output.
    pub surface: TriMesh,
    /// Particles in the body frame.
    pub clump: Clump,
    /// Exact mass and inertia of the solid (the clump carries the same mass).
    pub mass_properties: MassProperties,
    /// Body-frame inertia tensor about the centre of mass, and its inverse.
    pub inertia: Inertia,
    /// Current state.
    pub state: BodyState,
    /// Whether the body moves (static and kinematic bodies ignore forces and impulses).
    pub dynamic: bool,
    /// A kinematic body's prescribed motion (the body is not dynamic).
    pub motion: Option<Prescribed>,
    /// Coefficient of restitution for contacts.
    pub restitution: f64,
    /// Coulomb friction coefficient for contacts.
    pub friction: f64,
    /// How the state is advanced.
    pub integrator: Integrator,
}

impl RigidBody {
    /// Build a body from a shape (in its own coordinates), a density and a particle spacing.
    ///
    /// The body frame is the shape's frame moved to the exact centre of mass; the body starts at
    /// rest at the origin with the identity orientation. `name` appears in error messages.
    pub fn new(name: &str, shape: &Shape, density: f64, spacing: f64) -> Result<RigidBody> {
        if !(density.is_finite() && density > 0.0) {
            return Err(crate::Error::input(format!(
                "body '{name}': density must be a positive number, got {density}; fix: give a density in kg/m^3"
            )));
        }
        let exact = shape.mass_properties(density);
        let shape = shape.centred_on(exact.com);
        let mass_properties = MassProperties {
            com: DVec3::ZERO,
            ..exact
        };
        let clump = sampling::sample(&shape, spacing, density, &format!("body '{name}'"))?;
        let body = mass_properties.inertia;
        Ok(RigidBody {
            name: name.to_string(),
            surface: shape.surface_mesh(),
            shape,
            clump,
            inertia: Inertia {
                mass: exact.mass,
                body,
                body_inv: body.inverse(),
            },
            mass_properties,
            state: BodyState::default(),
            dynamic: true,
            motion: None,
            restitution: 0.5,
            friction: 0.5,
            integrator: Integrator::default(),
        })
    }

    /// Mass.
    pub fn mass(&self) -> f64 {
        self.inertia.mass
    }

    /// Inverse mass, zero for a static body.
    pub fn inverse_mass(&self) -> f64 {
        if self.dynamic {
            1.0 / self.inertia.mass
        } else {
            0.0
        }
    }

    /// Rotation matrix of the current orientation.
    pub fn rotation(&self) -> DMat3 {
        DMat3::from_quat(self.state.q)
    }

    /// World-frame inertia `R I R^T`.
    pub fn world_inertia(&self) -> DMat3 {
        let r = self.rotation();
        r * self.inertia.body * r.transpose()
    }

    /// World-frame inverse inertia `R I^-1 R^T`, zero for a static body.
    pub fn world_inverse_inertia(&self) -> DMat3 {
        if !self.dynamic {
            return DMat3::ZERO;
        }
        let r = self.rotation();
        r * self.inertia.body_inv * r.transpose()
    }

    /// Linear velocity of the centre of mass.
    pub fn velocity(&self) -> DVec3 {
        self.state.p / self.inertia.mass
    }

    /// World-frame angular velocity `I_world^-1 L`.
    pub fn angular_velocity(&self) -> DVec3 {
        let r = self.rotation();
        r * self.inertia.body_inv * r.transpose() * self.state.l
    }

    /// Set the linear velocity.
    pub fn set_velocity(&mut self, v: DVec3) {
        self.state.p = v * self.inertia.mass;
    }

    /// Set the world-frame angular velocity.
    pub fn set_angular_velocity(&mut self, w: DVec3) {
        self.state.l = self.world_inertia() * w;
    }

    /// Kinetic energy, translational plus rotational.
    pub fn kinetic_energy(&self) -> f64 {
        0.5 * self.state.p.length_squared() / self.inertia.mass
            + 0.5 * self.state.l.dot(self.angular_velocity())
    }

    /// World position of a body-frame point.
    pub fn world_point(&self, body_point: DVec3) -> DVec3 {
        self.state.x + self.state.q * body_point
    }

    /// World velocity of the material point at world position `p`.
    pub fn point_velocity(&self, p: DVec3) -> DVec3 {
        self.velocity() + self.angular_velocity().cross(p - self.state.x)
    }

    /// World positions of all particles.
    pub fn world_particle_positions(&self) -> Vec<DVec3> {
        self.clump
            .positions
            .iter()
            .map(|p| self.world_point(*p))
            .collect()
    }

    /// World-frame outward normals of the particles (zero for interior particles).
    pub fn world_particle_normals(&self) -> Vec<DVec3> {
        self.clump
            .normals
            .iter()
            .map(|n| self.state.q * *n)
            .collect()
    }

    /// Put a kinematic body where its motion has it at time `t`, moving at the velocities that
    /// take it to its pose at `t + dt` (what its contacts over that step see; at rest for a
    /// `dt` of 0); other bodies are left as they are.
    pub fn follow_motion(&mut self, t: f64, dt: f64) {
        let Some(m) = &self.motion else {
            return;
        };
        let (x, q) = m.motion.pose(t, m.x0, m.q0);
        let (v, w) = if dt > 0.0 {
            m.motion.step_velocities(t, dt, m.x0, m.q0)
        } else {
            (DVec3::ZERO, DVec3::ZERO)
        };
        self.state.x = x;
        self.state.q = q;
        self.set_velocity(v);
        self.set_angular_velocity(w);
    }

    /// Apply an impulse `j` at world point `at`; static bodies do not move.
    pub fn apply_impulse(&mut self, j: DVec3, at: DVec3) {
        if self.dynamic {
            self.state.p += j;
            self.state.l += (at - self.state.x).cross(j);
        }
    }

    /// Apply an angular impulse (a torque times a duration) about the centre of mass.
    pub fn apply_angular_impulse(&mut self, h: DVec3) {
        if self.dynamic {
            self.state.l += h;
        }
    }

    /// Advance the state by `dt` under a world-frame `force` through the centre of mass and a
    /// `torque` about it, with the body's integrator. Static bodies do not move.
    pub fn step(&mut self, dt: f64, force: DVec3, torque: DVec3) {
        if self.dynamic {
            self.state = integrators::step(
                self.integrator,
                &self.state,
                &self.inertia,
                dt,
                force,
                torque,
            );
        }
    }

    /// The surface mesh posed at the current state (world coordinates).
    pub fn posed_surface(&self) -> TriMesh {
        let mut m = self.surface.clone();
        for v in &mut m.vertices {
            *v = self.state.x + self.state.q * *v;
        }
        m
    }
}
