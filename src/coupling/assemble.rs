//! Baraff's contact problem in the structured form `D + J W J^T` (docs/design.md, step 8), and the
//! impulses of its solution applied back (step 9).
use super::body_contacts::BodyContact;
use super::liquid_body::first_of_slot;
use super::touches::{LiquidTouch, walls_under};
use crate::lcp::{StructuredProblem, StructuredRow, body_inverse_mass};
use crate::liquid::params::Walls;
use crate::rigid::RigidBody;
use glam::DVec3;

/// The Jacobian row `sign [n, r x n]` of a body at lever arm `r` along `n`.
fn j_row(n: DVec3, r: DVec3, sign: f64) -> [f64; 6] {
    let a = r.cross(n);
    [n.x, n.y, n.z, a.x, a.y, a.z].map(|v| v * sign)
}

/// The q of a contact row: the approaching normal velocity, plus the bounce `e v_n` when
/// `bounce` and the approach is faster than `v_rest` (so that resting contacts do not jitter).
fn contact_q(v_n: f64, e: f64, v_rest: f64, bounce: bool) -> f64 {
    if bounces(v_n, e, v_rest, bounce) {
        (1.0 + e) * v_n
    } else {
        v_n
    }
}

/// Whether a contact row approaching at `v_n` bounces (see [`contact_q`]).
fn bounces(v_n: f64, e: f64, v_rest: f64, bounce: bool) -> bool {
    bounce && e > 0.0 && v_n < -v_rest
}

/// A body presses a liquid particle into a wall it rests on when the contact normal points
/// into the wall by more than this cosine.
pub const WEDGE_COS: f64 = 0.1;

/// A wedged particle's share of a row (the row's direction along the walls) below this
/// squared length is dropped, and the walls hold the particle entirely: a direction within
/// 6 degrees of a wall's normal. A sliver of a share would make the particle take an impulse
/// a hundred times the body's to resolve a speed rounding left in its row, an ill-conditioned
/// row for no physics.
const PARTICLE_SHARE_MIN: f64 = 0.01;

/// A row through a particle the walls hold entirely lets the body close on it at this
/// fraction of the resting speed. Such rows on opposite faces of a body in a gap one film
/// wide ask for an exact rigid clamp, which the smoothed normals at edges and rounding make
/// infeasible by a hair (a ray); the position correction takes the slop out (a step closes
/// at most `0.02 g dt^2`, about 1e-7 m at the scenes' time steps).
const WEDGE_SLOP: f64 = 0.01;

/// Each body's index among the dynamic bodies (the problem's bodies), `usize::MAX` for static
/// ones.
pub fn dynamic_index(bodies: &[RigidBody]) -> Vec<usize> {
    let mut next = 0;
    bodies
        .iter()
        .map(|b| {
            if b.dynamic {
                next += 1;
                next - 1
            } else {
                usize::MAX
            }
        })
        .collect()
}

/// What goes into one step's problem besides the bodies.
#[derive(Debug, Clone, Copy)]
pub struct Contacts<'a> {
    /// Liquid/body contacts.
    pub liquid: &'a [LiquidTouch],
    /// Body/body and body/wall contacts.
    pub solid: &'a [BodyContact],
    /// The container's walls (particle-centre bounds), if any.
    pub walls: Option<&'a Walls>,
    /// The liquid's spacing, m.
    pub spacing: f64,
    /// Approaches slower than this do not bounce, m/s.
    pub v_rest: f64,
    /// Coulomb friction between liquid and bodies.
    pub liquid_friction: f64,
    /// The liquid's restitution against bodies (a contact's is the geometric mean of this and
    /// the body's).
    pub liquid_restitution: f64,
    /// Whether newly approaching contacts bounce with their restitution (false: the step is
    /// solved perfectly inelastic).
    pub bounce: bool,
}

/// Baraff's A in the structured form, one row per liquid contact and per body contact (plus
/// two friction rows where there is friction: `liquid_friction` on liquid contacts, the
/// bodies' own on body contacts). Also returns the slot of each particle term and the number
/// of rows that bounce.
pub fn assemble(bodies: &[RigidBody], c: &Contacts) -> (StructuredProblem, Vec<u32>, usize) {
    let mut prob = StructuredProblem::default();
    let mut bounced = 0;
    let mut slots = Vec::new();
    // Each particle's term: numbered in order of its slot's first contact.
    let slot_list: Vec<u32> = c.liquid.iter().map(|t| t.contact.slot).collect();
    let first = first_of_slot(&slot_list);
    let mut term = vec![0; first.len()];
    let dyn_index = dynamic_index(bodies);
    for body in bodies.iter().filter(|b| b.dynamic) {
        // to_cols_array of a symmetric matrix is also its row-major form.
        let inv = body.world_inverse_inertia().to_cols_array();
        prob.body_inv_mass.push(body_inverse_mass(body.mass(), inv));
    }
    for (i, t) in c.liquid.iter().enumerate() {
        let lc = &t.contact;
        if first[i] == i {
            term[i] = slots.len();
            slots.push(lc.slot);
            prob.particle_inv_mass.push(t.inv_mass);
        }
        let k = term[first[i]];
        let body = &bodies[lc.body as usize];
        let r = lc.point - body.state.x;
        let with_body = |row: StructuredRow, d: DVec3| {
            if body.dynamic {
                row.with_body(dyn_index[lc.body as usize], j_row(d, r, -1.0))
            } else {
                row
            }
        };
        // A particle resting on a wall that the body presses it towards cannot move into the
        // wall: its share of the row is the part of the direction along the wall, and the
        // wall takes the rest (a particle caught between a body and a wall holds the body off
        // the wall instead of being pushed into either).
        let walls: Vec<DVec3> = c.walls.map_or_else(Vec::new, |w| {
            walls_under(lc.point, w, c.spacing)
                .into_iter()
                .filter(|n| lc.normal.dot(*n) < -WEDGE_COS && t.vel.dot(*n) <= 0.0)
                .collect()
        });
        let along_walls = |d: DVec3| walls.iter().fold(d, |d, n| d - *n * d.dot(*n));
        // Where the walls leave the particle no share (the body presses it straight into a
        // wall), the row holds the body against the wall through the particle alone.
        let share = |d: DVec3| {
            let n = along_walls(d);
            (n.length_squared() > PARTICLE_SHARE_MIN).then_some(n)
        };
        let with_particle = |row: StructuredRow, d: DVec3| match share(d) {
            Some(n) => row.with_particle(k, n.to_array()),
            None => row,
        };
        // The relative velocity along `d` counts the particle's velocity only along its share:
        // the walls hold the rest. A body whose wedged rows have no particle share is then
        // asked for nothing a rigid motion at rest would not give (were the particle's speed
        // counted, rows on opposite faces could ask the body to move both ways at once).
        let body_v = body.point_velocity(lc.point);
        let rel = |d: DVec3| share(d).map_or(0.0, |n| n.dot(t.vel)) - body_v.dot(d);
        let normal_row = prob.rows.len();
        // A film of liquid between a body and a wall does not bounce: a body in a gap filled
        // from both sides cannot move away from both walls at once.
        let bounce = c.bounce && t.new && walls.is_empty();
        let slop = if share(lc.normal).is_none() {
            WEDGE_SLOP * c.v_rest
        } else {
            0.0
        };
        let v_n = rel(lc.normal);
        let e = (body.restitution * c.liquid_restitution).sqrt();
        bounced += usize::from(bounces(v_n, e, c.v_rest, bounce));
        let q = contact_q(v_n, e, c.v_rest, bounce) + slop;
        let row = with_body(
            with_particle(StructuredRow::contact(q), lc.normal),
            lc.normal,
        );
        if row.particle.is_none() && row.body_terms().next().is_none() {
            // Caught between a static body and a wall: nothing can move; the position
            // correction keeps it out of both.
            continue;
        }
        prob.rows.push(row);
        if c.liquid_friction > 0.0 {
            let (t1, t2) = lc.normal.any_orthonormal_pair();
            for d in [t1, t2] {
                let row = with_particle(StructuredRow::contact(rel(d)), d).with_friction(
                    normal_row,
                    -c.liquid_friction,
                    c.liquid_friction,
                );
                prob.rows.push(with_body(row, d));
            }
        }
    }
    for sc in c.solid {
        let a = &bodies[sc.a as usize];
        let b = sc.b.map(|b| &bodies[b as usize]);
        let (e, mu) = match b {
            Some(b) => (
                (a.restitution * b.restitution).sqrt(),
                (a.friction * b.friction).sqrt(),
            ),
            None => (a.restitution, a.friction),
        };
        let rel_v = |d: DVec3| {
            let va = a.point_velocity(sc.point).dot(d);
            va - b.map_or(0.0, |b| b.point_velocity(sc.point).dot(d))
        };
        let with_bodies = |mut row: StructuredRow, d: DVec3| {
            if a.dynamic {
                row = row.with_body(
                    dyn_index[sc.a as usize],
                    j_row(d, sc.point - a.state.x, 1.0),
                );
            }
            if let Some(bb) = b.filter(|bb| bb.dynamic) {
                let bi = sc.b.expect("b is some") as usize;
                row = row.with_body(dyn_index[bi], j_row(d, sc.point - bb.state.x, -1.0));
            }
            row
        };
        let normal_row = prob.rows.len();
        let v_n = rel_v(sc.normal);
        bounced += usize::from(bounces(v_n, e, c.v_rest, c.bounce));
        prob.rows.push(with_bodies(
            StructuredRow::contact(contact_q(v_n, e, c.v_rest, c.bounce)),
            sc.normal,
        ));
        if mu > 0.0 {
            let (t1, t2) = sc.normal.any_orthonormal_pair();
            for t in [t1, t2] {
                let row = StructuredRow::contact(rel_v(t)).with_friction(normal_row, -mu, mu);
                prob.rows.push(with_bodies(row, t));
            }
        }
    }
    (prob, slots, bounced)
}

/// Apply the impulses `z` of `prob` to the bodies (momentum changes `z J`) and return the liquid
/// particles' velocity changes `z n / m`, one per slot of `slots`.
pub fn apply(
    bodies: &mut [RigidBody],
    prob: &StructuredProblem,
    slots: &[u32],
    z: &[f64],
) -> Vec<(u32, DVec3)> {
    let dyn_bodies: Vec<usize> = (0..bodies.len()).filter(|&b| bodies[b].dynamic).collect();
    let mut dv = vec![DVec3::ZERO; slots.len()];
    for (row, &zi) in prob.rows.iter().zip(z) {
        if zi == 0.0 {
            continue;
        }
        if let Some(t) = &row.particle {
            dv[t.particle] += DVec3::from_array(t.n) * zi * prob.particle_inv_mass[t.particle];
        }
        for t in row.body_terms() {
            let body = &mut bodies[dyn_bodies[t.body]];
            body.state.p += DVec3::new(t.j[0], t.j[1], t.j[2]) * zi;
            body.state.l += DVec3::new(t.j[3], t.j[4], t.j[5]) * zi;
        }
    }
    slots.iter().copied().zip(dv).collect()
}
