//! The bodies' solids as the liquid meets them: [`SurfaceIndex`], the union of each body's
//! particles' cells, and its queries; every liquid particle that overlaps a body's solid gives
//! one contact per body ([`LiquidBodyContact`]), with the normal of the solid's nearest surface
//! point and the overlap. The candidates the liquid's backends find near the bodies are
//! [`NearBody`].
use crate::rigid::RigidBody;
use crate::rigid::occupancy::Occupancy;
use glam::{DVec3, Vec3A};
use rayon::prelude::*;

/// A liquid particle near a body, with its state: a candidate for a liquid/body contact.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct NearBody {
    /// The body's index.
    pub body: u32,
    /// The particle's slot until the next grid build (where impulses and push-outs go).
    pub slot: u32,
    /// The particle's id (stable across steps, unlike its slot).
    pub id: u32,
    /// The particle's position, m.
    pub pos: Vec3A,
    /// The particle's velocity, m/s.
    pub vel: Vec3A,
    /// The particle's phase (liquid block).
    pub phase: u32,
    /// The particle's kernel sum of the last relaxation pass (its density over the mass).
    pub rho: f32,
}

/// One contact between a liquid particle and a body.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LiquidBodyContact {
    /// The liquid particle's slot.
    pub slot: u32,
    /// The body's index.
    pub body: u32,
    /// Unit normal, world frame, pointing out of the body into the liquid.
    pub normal: DVec3,
    /// The contact point: the liquid particle's centre, world frame.
    pub point: DVec3,
    /// Overlap of the liquid particle with the body's solid, m (> 0).
    pub depth: f64,
}

/// How far from a body particle's centre a liquid particle of radius `liquid_radius` may lie
/// and still touch the body (the corner of the particle's cell plus the radius), for a body
/// of particle radius `body_radius`: the search radius for candidate pairs.
pub fn search_radius(body_radius: f64, liquid_radius: f64) -> f64 {
    liquid_radius + body_radius * 3f64.sqrt()
}

/// The solids of every body in its own frame: the union of its particles' cells, whose faces
/// are exact planes (so a flat face pushes flat, and liquid does not settle into the hollows
/// between the clump's spheres) and whose edges are sharp. Bodies are rigid, so the cells are
/// found once and queried in each body's frame.
#[derive(Debug, Clone)]
pub struct SurfaceIndex {
    cells: Vec<Occupancy>,
    /// Per body: the largest distance of a cell corner from the centre of mass, m.
    reach: Vec<f64>,
}

impl SurfaceIndex {
    /// Find the cells of `bodies`.
    pub fn new(bodies: &[RigidBody]) -> SurfaceIndex {
        let cells = bodies.iter().map(|b| Occupancy::new(&b.clump)).collect();
        let reach = bodies.iter().map(|b| b.clump.cell_reach()).collect();
        SurfaceIndex { cells, reach }
    }

    /// Per body: its centre of mass and the distance from it within which the centre of a
    /// sphere of radius `radius` can touch the body (the balls of `liquid::BodyReach`), into
    /// `out` (cleared first).
    pub fn balls_into(&self, bodies: &[RigidBody], radius: f64, out: &mut Vec<(DVec3, f64)>) {
        out.clear();
        out.extend(
            bodies
                .iter()
                .zip(&self.reach)
                .map(|(b, &reach)| (b.state.x, reach + radius)),
        );
    }

    /// Whether a sphere of `radius` at world point `xw` can reach body `bi` at all (its centre
    /// within the body's ball): a cheap test before [`SurfaceIndex::touch`].
    pub fn may_touch(&self, bodies: &[RigidBody], bi: usize, xw: DVec3, radius: f64) -> bool {
        let r = self.reach[bi] + radius;
        (xw - bodies[bi].state.x).length_squared() <= r * r
    }

    /// Contacts of the liquid particles at `pos` (radius `liquid_radius`) with every body, in
    /// order of body, then slot.
    #[cfg_attr(not(test), allow(dead_code))]
    pub fn liquid_contacts(
        &self,
        bodies: &[RigidBody],
        pos: &[Vec3A],
        liquid_radius: f64,
    ) -> Vec<LiquidBodyContact> {
        (0..bodies.len())
            .flat_map(|bi| self.contacts_with(bodies, bi, pos, liquid_radius))
            .collect()
    }

    /// Contacts of the spheres at `pos` (radius `radius`) with body `bi`, in slot order.
    #[cfg_attr(not(test), allow(dead_code))]
    pub fn contacts_with(
        &self,
        bodies: &[RigidBody],
        bi: usize,
        pos: &[Vec3A],
        radius: f64,
    ) -> Vec<LiquidBodyContact> {
        let (mut found, mut out) = (Vec::new(), Vec::new());
        self.contacts_with_into(bodies, bi, pos, radius, &mut found, &mut out);
        out
    }

    /// [`SurfaceIndex::contacts_with`] appended to `out`, each sphere tested in parallel into
    /// `found` (a buffer kept between calls) and gathered in slot order.
    pub fn contacts_with_into(
        &self,
        bodies: &[RigidBody],
        bi: usize,
        pos: &[Vec3A],
        radius: f64,
        found: &mut Vec<Option<LiquidBodyContact>>,
        out: &mut Vec<LiquidBodyContact>,
    ) {
        let body = &bodies[bi];
        let bound = self.reach[bi] + radius;
        let com = body.state.x;
        found.clear();
        found.resize(pos.len(), None);
        found
            .par_iter_mut()
            .zip(pos.par_iter())
            .enumerate()
            .for_each(|(slot, (f, x))| {
                let xw = DVec3::new(x.x as f64, x.y as f64, x.z as f64);
                *f = if (xw - com).length_squared() > bound * bound {
                    None
                } else {
                    self.touch(bodies, bi, xw, radius)
                        .map(|(normal, depth)| LiquidBodyContact {
                            slot: slot as u32,
                            body: bi as u32,
                            normal,
                            point: xw,
                            depth,
                        })
                };
            });
        out.extend(found.iter().flatten());
    }

    /// Whether a sphere of radius `radius` centred at world point `xw` overlaps body `bi`: the
    /// outward normal (world frame) at the body's nearest surface point and the overlap.
    pub fn touch(
        &self,
        bodies: &[RigidBody],
        bi: usize,
        xw: DVec3,
        radius: f64,
    ) -> Option<(DVec3, f64)> {
        let body = &bodies[bi];
        let rot = body.rotation();
        let xb = rot.transpose() * (xw - body.state.x);
        let (n, dist) = self.cells[bi].nearest_surface(xb, radius)?;
        let depth = radius - dist;
        (depth > 0.0).then(|| (rot * n, depth))
    }
}
