//! The liquid's side of the liquid/body contacts of a step: which particles touch which body,
//! with their velocity and mass, from the candidates that the liquid's backend finds.
use super::liquid_body::{LiquidBodyContact, SurfaceIndex, search_radius};
use crate::Result;
use crate::boundary::gap;
use crate::boundary::wall_depth;
pub(crate) use crate::boundary::{to_d, to_f};
use crate::liquid::{BodyParticle, BodyReach, Liquid, NearBody};
use crate::rigid::RigidBody;
use glam::DVec3;
use rayon::prelude::*;

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
    /// The liquid particle's phase (liquid block).
    pub phase: u32,
    /// The liquid particle's kernel sum of the last relaxation pass.
    pub rho: f32,
    /// Whether the contact is new this step, so that restitution may bounce it: a particle
    /// that touched the body the step before is pressed on it, not hitting it.
    pub new: bool,
}

/// The buffers of [`touches`], kept between steps so that a step allocates nothing.
#[derive(Debug, Clone, Default)]
pub struct TouchBuffers {
    balls: Vec<(DVec3, f64)>,
    /// Per body, the squared radius of its ball for touching alone.
    reach: Vec<f64>,
    /// Per body, whether it comes within a film's reach of a wall (its search grown).
    near_wall: Vec<bool>,
    near: Vec<NearBody>,
    found: Vec<Option<LiquidTouch>>,
    inv_mass: Vec<f64>,
}

impl TouchBuffers {
    /// The candidates of the last search: every particle within its reach of a body, in
    /// order of body, then slot.
    pub fn candidates(&self) -> &[NearBody] {
        &self.near
    }

    /// Per body, whether the last search grew near a wall (where films can lie).
    pub fn near_wall(&self) -> &[bool] {
        &self.near_wall
    }
}

/// The contacts of the liquid with the bodies into `out` (cleared first), in order of body,
/// then slot: the liquid's backend finds the particles near each body
/// ([`Liquid::near_bodies`]); each is then tested against the body's solid here. Near the
/// walls the search reaches `extra` farther (the films' liquid, [`crate::boundary::film`]); those
/// candidates stay in [`TouchBuffers::candidates`].
pub fn touches(
    index: &SurfaceIndex,
    liquid: &mut dyn Liquid,
    bodies: &[RigidBody],
    extra: f64,
    buf: &mut TouchBuffers,
    out: &mut Vec<LiquidTouch>,
) -> Result<()> {
    out.clear();
    if liquid.is_empty() {
        return Ok(());
    }
    let params = liquid.params();
    let r_l = params.spacing as f64 / 2.0;
    buf.inv_mass.clear();
    buf.inv_mass
        .extend(params.phases.iter().map(|ph| 1.0 / ph.mass as f64));
    index.balls_into(bodies, r_l, &mut buf.balls);
    buf.reach.clear();
    buf.reach.extend(buf.balls.iter().map(|&(_, r)| r * r));
    // Farther for the bodies that come within a film's reach of a wall: a film lies within
    // a spacing of a wall and `TOUCH_GAP` of the body, so only a body particle within that
    // and its own search radius of a wall searches farther (and its body's ball grows).
    let walls = params.boundary.walls.filter(|_| extra > 0.0);
    let spacing = params.spacing as f64;
    let band = |x: DVec3, r: f64| {
        walls.is_some_and(|w| {
            (wall_depth(&w, r_l as f32, to_f(x)) as f64) < r + (1.0 + gap::TOUCH_GAP) * spacing
        })
    };
    buf.near_wall.clear();
    buf.near_wall.extend(bodies.iter().map(|b| {
        let c = &b.clump;
        let r = search_radius(c.radius, r_l);
        walls.is_some()
            && (0..c.len()).any(|k| c.surface[k] && band(b.world_point(c.positions[k]), r))
    }));
    for (ball, &near) in buf.balls.iter_mut().zip(&buf.near_wall) {
        if near {
            ball.1 += extra;
        }
    }
    // Every body's surface particles, in body then particle order, each searched out to the
    // distance at which liquid can still touch the body's solid (`search_radius`), or
    // `extra` farther near a wall.
    let surface = |owner: &mut Vec<u32>, spheres: &mut Vec<BodyParticle>| {
        for (bi, b) in bodies.iter().enumerate() {
            let c = &b.clump;
            for k in (0..c.len()).filter(|&k| c.surface[k]) {
                let x = b.world_point(c.positions[k]);
                let r = search_radius(c.radius, r_l);
                let grown = if band(x, r) { r + extra } else { r };
                owner.push(bi as u32);
                spheres.push(BodyParticle {
                    pos: to_f(x),
                    radius: (grown - r_l) as f32,
                });
            }
        }
    };
    liquid.near_bodies(
        &BodyReach {
            balls: &buf.balls,
            surface: &surface,
        },
        &mut buf.near,
    )?;
    // Each candidate tested in parallel, then gathered in the candidates' order.
    let (inv_mass, reach, balls) = (&buf.inv_mass, &buf.reach, &buf.balls);
    buf.found.clear();
    buf.found.resize(buf.near.len(), None);
    buf.found
        .par_iter_mut()
        .zip(buf.near.par_iter())
        .for_each(|(f, n)| {
            let xw = to_d(n.pos);
            let b = n.body as usize;
            // A candidate farther out is the films' only.
            if (xw - balls[b].0).length_squared() > reach[b] {
                *f = None;
                return;
            }
            *f = index
                .touch(bodies, n.body as usize, xw, r_l)
                .map(|(normal, depth)| LiquidTouch {
                    contact: LiquidBodyContact {
                        slot: n.slot,
                        body: n.body,
                        normal,
                        point: xw,
                        depth,
                    },
                    id: n.id,
                    vel: to_d(n.vel),
                    inv_mass: inv_mass[n.phase as usize],
                    phase: n.phase,
                    rho: n.rho,
                    new: true,
                });
        });
    out.extend(buf.found.iter().flatten());
    Ok(())
}
