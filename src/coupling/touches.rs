//! The liquid's side of the liquid/body contacts of a step: which particles touch which body,
//! with their velocity and mass, found on the CPU liquid or from the GPU's particle pairs.
use super::liquid_body::{LiquidBodyContact, SurfaceIndex, search_radius};
use crate::Result;
use crate::gpu::GpuLiquidSolver;
use crate::gpu::contacts::{BodyParticle, Contact};
use crate::liquid::Particles;
use crate::liquid::params::{LiquidParams, Walls};
use crate::rigid::RigidBody;
use glam::{DVec3, Vec3A};

/// A liquid particle's side of one liquid/body contact.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LiquidTouch {
    /// The contact (slot, body, normal, point, depth).
    pub contact: LiquidBodyContact,
    /// The particle's id (stable across steps, unlike its slot).
    pub id: u32,
    /// The liquid particle's velocity, m/s.
    pub vel: DVec3,
    /// The liquid particle's inverse mass, 1/kg.
    pub inv_mass: f64,
    /// Whether the contact is new this step, so that restitution may bounce it: a particle
    /// that touched the body the step before is pressed on it, not hitting it.
    pub new: bool,
}

/// A CPU vector in f64.
pub(crate) fn to_d(v: Vec3A) -> DVec3 {
    DVec3::new(v.x as f64, v.y as f64, v.z as f64)
}

/// An f64 vector as a CPU vector.
pub(crate) fn to_f(v: DVec3) -> Vec3A {
    Vec3A::new(v.x as f32, v.y as f32, v.z as f32)
}

/// The contacts of the CPU liquid `p` with the bodies, in order of body, then slot.
pub fn cpu_touches(
    index: &SurfaceIndex,
    bodies: &[RigidBody],
    p: &Particles,
    params: &LiquidParams,
) -> Vec<LiquidTouch> {
    if p.is_empty() {
        return Vec::new();
    }
    let r_l = params.spacing as f64 / 2.0;
    index
        .liquid_contacts(bodies, &p.pos, r_l)
        .into_iter()
        .map(|c| {
            let k = c.slot as usize;
            LiquidTouch {
                contact: c,
                id: p.id[k],
                vel: to_d(p.vel[k]),
                inv_mass: 1.0 / params.phases[p.phase[k] as usize].mass as f64,
                new: true,
            }
        })
        .collect()
}

/// The contacts of the GPU liquid with the bodies: the GPU finds the liquid particles near the
/// bodies' surface particles and sends down only them (with their state); each is then tested
/// against the body's solid here. In order of body, then slot.
pub fn gpu_touches(
    index: &SurfaceIndex,
    gpu: &mut GpuLiquidSolver,
    params: &LiquidParams,
    bodies: &[RigidBody],
) -> Result<Vec<LiquidTouch>> {
    // Every body's surface particles, in body then particle order, each searched out to the
    // distance at which liquid can still touch the body's solid (`search_radius`).
    let r_l = params.spacing as f64 / 2.0;
    let mut spheres = Vec::new();
    let mut owner = Vec::new();
    for (bi, b) in bodies.iter().enumerate() {
        let c = &b.clump;
        for k in (0..c.len()).filter(|&k| c.surface[k]) {
            spheres.push(BodyParticle {
                pos: to_f(b.world_point(c.positions[k])),
                radius: (search_radius(c.radius, r_l) - r_l) as f32,
            });
            owner.push(bi);
        }
    }
    let pairs: Vec<Contact> = gpu.find_contacts(&spheres)?;
    let mut out = Vec::new();
    // Pairs come sorted by liquid id, then body particle (so by body): one run per candidate.
    let mut start = 0;
    while start < pairs.len() {
        let (id, body) = (
            pairs[start].liquid_id,
            owner[pairs[start].body_particle as usize],
        );
        let mut end = start + 1;
        while end < pairs.len()
            && pairs[end].liquid_id == id
            && owner[pairs[end].body_particle as usize] == body
        {
            end += 1;
        }
        let first = &pairs[start];
        let xw = to_d(first.pos);
        if let Some((normal, depth)) = index.touch(bodies, body, xw, r_l) {
            out.push(LiquidTouch {
                contact: LiquidBodyContact {
                    slot: first.slot,
                    body: body as u32,
                    normal,
                    point: xw,
                    depth,
                },
                id,
                vel: to_d(first.vel),
                inv_mass: 1.0 / params.phases[first.phase as usize].mass as f64,
                new: true,
            });
        }
        start = end;
    }
    // The CPU path orders contacts by body, then slot; so does this one.
    out.sort_by_key(|t| (t.contact.body, t.contact.slot));
    Ok(out)
}

/// Liquid particle centres within this fraction of a spacing of a wall's bound rest on it.
pub const ON_WALL: f64 = 0.05;

/// The inward normals of the walls that the particle centre `x` rests on (within
/// `ON_WALL` spacings of the bound that the liquid step holds centres to).
pub fn walls_under(x: DVec3, walls: &Walls, spacing: f64) -> Vec<DVec3> {
    let tol = ON_WALL * spacing;
    let mut out = Vec::new();
    for a in 0..3 {
        let mut n = DVec3::ZERO;
        if x[a] <= walls.lo[a] as f64 + tol {
            n[a] = 1.0;
            out.push(n);
        } else if x[a] >= walls.hi[a] as f64 - tol {
            n[a] = -1.0;
            out.push(n);
        }
    }
    out
}
