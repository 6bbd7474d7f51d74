//! One coupling step through the LCP (DESIGN.md steps 6-10): predicted body velocities,
//! contacts, Baraff's A in the structured form `D + J W J^T`, an exact solve, impulses on the
//! liquid and the bodies, body poses, and a position-level correction of what still overlaps.
use super::body_contacts::{BodyContact, body_body_contacts, wall_contacts};
use super::liquid_body::{LiquidBodyContact, SurfaceIndex};
use crate::lcp::{self, StructuredProblem, StructuredRow, body_inverse_mass};
use crate::liquid::Particles;
use crate::liquid::params::LiquidParams;
use crate::rigid::RigidBody;
use glam::{DVec3, Vec3A};

/// Why a coupling step did not finish: the solver's outcome and the problem it was given.
#[derive(Debug, Clone)]
pub struct CouplingFailure {
    /// The solver's outcome, e.g. "ray" or "pivot_limit".
    pub outcome: String,
    /// Number of contact rows.
    pub rows: usize,
    /// The problem, for `sphrigid lcp solve` to replay.
    pub problem: StructuredProblem,
}

/// What the last coupling step did.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct CouplingReport {
    /// Liquid/body contacts.
    pub liquid_contacts: usize,
    /// Body/wall and body/body contacts.
    pub body_contacts: usize,
    /// LCP rows (contacts and friction).
    pub rows: usize,
    /// Solver iterations.
    pub iterations: usize,
}

/// The coupling between the liquid, the bodies and the walls.
#[derive(Debug, Clone)]
pub struct Coupler {
    index: SurfaceIndex,
    options: lcp::Options,
    /// What the last step did.
    pub report: CouplingReport,
}

fn j_row(n: DVec3, r: DVec3, sign: f64) -> [f64; 6] {
    let a = r.cross(n);
    [n.x, n.y, n.z, a.x, a.y, a.z].map(|v| v * sign)
}

fn to_d(v: Vec3A) -> DVec3 {
    DVec3::new(v.x as f64, v.y as f64, v.z as f64)
}

/// The q of a contact row: the approaching normal velocity, plus the bounce `e v_n` when the
/// approach is faster than `v_rest` (so that resting contacts do not jitter).
fn contact_q(v_n: f64, e: f64, v_rest: f64) -> f64 {
    if v_n < -v_rest { (1.0 + e) * v_n } else { v_n }
}

impl Coupler {
    /// A coupler for these bodies (their surface particles are indexed once).
    pub fn new(bodies: &[RigidBody]) -> Coupler {
        Coupler {
            index: SurfaceIndex::new(bodies),
            options: lcp::Options::default(),
            report: CouplingReport::default(),
        }
    }

    /// Advance the bodies by `dt` together with the liquid's contacts with them. The liquid
    /// has already taken its own step; its velocities and positions get the contact impulses.
    pub fn step(
        &mut self,
        p: &mut Particles,
        params: &LiquidParams,
        bodies: &mut [RigidBody],
        gravity: DVec3,
        dt: f64,
    ) -> Result<(), Box<CouplingFailure>> {
        let r_l = params.spacing as f64 / 2.0;
        let v_rest = 2.0 * gravity.length() * dt;
        let liquid = if p.is_empty() {
            Vec::new()
        } else {
            self.index.liquid_contacts(bodies, &p.pos, r_l)
        };
        let mut solid: Vec<BodyContact> = body_body_contacts(bodies, &self.index);
        if let Some(w) = &params.walls {
            solid.extend(wall_contacts(bodies, w, r_l));
        }
        let mut touched = vec![false; bodies.len()];
        for c in &liquid {
            touched[c.body as usize] = true;
        }
        for c in &solid {
            touched[c.a as usize] = true;
            if let Some(b) = c.b {
                touched[b as usize] = true;
            }
        }
        // Bodies in contact take gravity as an impulse now (predicted velocities); the rest
        // integrate it exactly below.
        for (b, body) in bodies.iter_mut().enumerate() {
            if touched[b] && body.dynamic {
                let weight = gravity * body.mass();
                body.apply_impulse(weight * dt, body.state.x);
            }
        }
        let (problem, slots) = self.assemble(p, params, bodies, &liquid, &solid, v_rest);
        self.report = CouplingReport {
            liquid_contacts: liquid.len(),
            body_contacts: solid.len(),
            rows: problem.rows.len(),
            iterations: 0,
        };
        if !problem.rows.is_empty() {
            let fail = |outcome: String, problem: StructuredProblem| {
                Box::new(CouplingFailure {
                    outcome,
                    rows: problem.rows.len(),
                    problem,
                })
            };
            let sol = match lcp::solve_structured(&problem, &self.options) {
                Ok(s) => s,
                Err(e) => return Err(fail(e.to_string(), problem)),
            };
            if !sol.is_solved() {
                return Err(fail(sol.outcome.name().to_string(), problem));
            }
            self.report.iterations = sol.iterations;
            apply(p, bodies, &problem, &slots, &sol.z, dt);
        }
        for (b, body) in bodies.iter_mut().enumerate() {
            if touched[b] {
                body.step(dt, DVec3::ZERO, DVec3::ZERO);
            } else {
                body.step(dt, gravity * body.mass(), DVec3::ZERO);
            }
        }
        self.correct_positions(p, params, bodies);
        Ok(())
    }

    fn assemble(
        &self,
        p: &Particles,
        params: &LiquidParams,
        bodies: &[RigidBody],
        liquid: &[LiquidBodyContact],
        solid: &[BodyContact],
        v_rest: f64,
    ) -> (StructuredProblem, Vec<usize>) {
        let mut prob = StructuredProblem::default();
        let mut slots = Vec::new();
        let mut dyn_index = vec![usize::MAX; bodies.len()];
        for (b, body) in bodies.iter().enumerate() {
            if body.dynamic {
                dyn_index[b] = prob.body_inv_mass.len();
                let inv = body.world_inverse_inertia().to_cols_array();
                // to_cols_array of a symmetric matrix is also its row-major form.
                prob.body_inv_mass.push(body_inverse_mass(body.mass(), inv));
            }
        }
        let mut particle_index = vec![usize::MAX; p.len()];
        for c in liquid {
            let slot = c.slot as usize;
            if particle_index[slot] == usize::MAX {
                particle_index[slot] = prob.particle_inv_mass.len();
                slots.push(slot);
                prob.particle_inv_mass
                    .push(1.0 / params.phases[p.phase[slot] as usize].mass as f64);
            }
            let body = &bodies[c.body as usize];
            let r = c.point - body.state.x;
            let v_n = (to_d(p.vel[slot]) - body.point_velocity(c.point)).dot(c.normal);
            let mut row = StructuredRow::contact(contact_q(v_n, body.restitution, v_rest))
                .with_particle(particle_index[slot], c.normal.to_array());
            if body.dynamic {
                row = row.with_body(dyn_index[c.body as usize], j_row(c.normal, r, -1.0));
            }
            prob.rows.push(row);
        }
        for c in solid {
            let a = &bodies[c.a as usize];
            let b = c.b.map(|b| &bodies[b as usize]);
            let (e, mu) = match b {
                Some(b) => (
                    (a.restitution * b.restitution).sqrt(),
                    (a.friction * b.friction).sqrt(),
                ),
                None => (a.restitution, a.friction),
            };
            let rel_v = |d: DVec3| {
                let va = a.point_velocity(c.point).dot(d);
                va - b.map_or(0.0, |b| b.point_velocity(c.point).dot(d))
            };
            let with_bodies = |mut row: StructuredRow, d: DVec3| {
                if a.dynamic {
                    row =
                        row.with_body(dyn_index[c.a as usize], j_row(d, c.point - a.state.x, 1.0));
                }
                if let Some(bb) = b.filter(|bb| bb.dynamic) {
                    let bi = c.b.expect("b is some") as usize;
                    row = row.with_body(dyn_index[bi], j_row(d, c.point - bb.state.x, -1.0));
                }
                row
            };
            let normal_row = prob.rows.len();
            prob.rows.push(with_bodies(
                StructuredRow::contact(contact_q(rel_v(c.normal), e, v_rest)),
                c.normal,
            ));
            if mu > 0.0 {
                let (t1, t2) = c.normal.any_orthonormal_pair();
                for t in [t1, t2] {
                    let row = StructuredRow::contact(rel_v(t)).with_friction(normal_row, -mu, mu);
                    prob.rows.push(with_bodies(row, t));
                }
            }
        }
        (prob, slots)
    }

    /// Push out what still overlaps after the bodies moved: liquid particles along the body's
    /// normal, bodies out of the walls and apart from each other (shared by inverse mass), each
    /// to within a small slop, so that errors do not accumulate into leaks.
    fn correct_positions(
        &self,
        p: &mut Particles,
        params: &LiquidParams,
        bodies: &mut [RigidBody],
    ) {
        let r_l = params.spacing as f64 / 2.0;
        if !p.is_empty() {
            let slop = 0.05 * params.spacing as f64;
            for c in self.index.liquid_contacts(bodies, &p.pos, r_l) {
                if c.depth > slop {
                    let d = c.normal * (c.depth - slop);
                    p.pos[c.slot as usize] += Vec3A::new(d.x as f32, d.y as f32, d.z as f32);
                }
            }
        }
        let mut shift = vec![DVec3::ZERO; bodies.len()];
        let mut solid = body_body_contacts(bodies, &self.index);
        if let Some(w) = &params.walls {
            solid.extend(wall_contacts(bodies, w, r_l));
        }
        for c in &solid {
            let a = c.a as usize;
            let slop = 0.01 * bodies[a].clump.spacing;
            let depth = c.depth - slop;
            if depth <= 0.0 {
                continue;
            }
            let ia = bodies[a].inverse_mass();
            let ib = c.b.map_or(0.0, |b| bodies[b as usize].inverse_mass());
            if ia + ib == 0.0 {
                continue;
            }
            // The deepest contact along each direction sets the push (no double counting of
            // the corners of one patch).
            raise_along(&mut shift[a], c.normal, depth * ia / (ia + ib));
            if let Some(b) = c.b {
                raise_along(&mut shift[b as usize], -c.normal, depth * ib / (ia + ib));
            }
        }
        for (body, s) in bodies.iter_mut().zip(shift) {
            if body.dynamic {
                body.state.x += s;
            }
        }
    }
}

/// Make the component of `shift` along the unit vector `n` at least `amount`.
fn raise_along(shift: &mut DVec3, n: DVec3, amount: f64) {
    let have = shift.dot(n);
    if amount > have {
        *shift += n * (amount - have);
    }
}

/// Apply the impulses `z` of `prob`: liquid particles change velocity by `z n / m` and move by
/// that change times `dt`; bodies change momentum by `z J`.
fn apply(
    p: &mut Particles,
    bodies: &mut [RigidBody],
    prob: &StructuredProblem,
    slots: &[usize],
    z: &[f64],
    dt: f64,
) {
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
    for (k, &slot) in slots.iter().enumerate() {
        let d = Vec3A::new(dv[k].x as f32, dv[k].y as f32, dv[k].z as f32);
        p.vel[slot] += d;
        p.pos[slot] += d * dt as f32;
    }
}
