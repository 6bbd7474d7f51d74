//! One coupling step through the LCP (DESIGN.md steps 6-10): predicted body velocities,
//! contacts, Baraff's A in the structured form `D + J W J^T`, an exact solve, impulses on the
//! liquid and the bodies, body poses, and a position-level correction of what still overlaps.
//! The liquid may live on the CPU ([`Coupler::step`]) or on the GPU ([`Coupler::step_gpu`]):
//! either way only the touching particles enter the solve.
use super::body_contacts::{BodyContact, body_body_contacts, wall_contacts};
use super::liquid_body::{LiquidBodyContact, SurfaceIndex, merge_touching};
use crate::gpu::GpuLiquidSolver;
use crate::gpu::contacts::{BodyParticle, Contact};
use crate::joints::{self, Joint};
use crate::lcp::{self, StructuredProblem, StructuredRow, body_inverse_mass};
use crate::liquid::Particles;
use crate::liquid::params::LiquidParams;
use crate::rigid::RigidBody;
use crate::{Error, Result};
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

/// A liquid particle's side of one liquid/body contact: the contact, the particle's velocity
/// and its inverse mass.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LiquidTouch {
    /// The contact (slot, body, normal, point, depth).
    pub contact: LiquidBodyContact,
    /// The liquid particle's velocity, m/s.
    pub vel: DVec3,
    /// The liquid particle's inverse mass, 1/kg.
    pub inv_mass: f64,
}

/// The coupling between the liquid, the bodies and the walls.
#[derive(Debug, Clone)]
pub struct Coupler {
    index: SurfaceIndex,
    options: lcp::Options,
    /// What the last step did.
    pub report: CouplingReport,
    /// The problem of a step whose solve failed, for `sphrigid lcp solve` to replay.
    pub failure: Option<Box<CouplingFailure>>,
    /// Joints between the bodies: their rows join the contacts' in every solve, and bodies
    /// they link do not collide with each other.
    pub joints: Vec<Joint>,
}

fn j_row(n: DVec3, r: DVec3, sign: f64) -> [f64; 6] {
    let a = r.cross(n);
    [n.x, n.y, n.z, a.x, a.y, a.z].map(|v| v * sign)
}

fn to_d(v: Vec3A) -> DVec3 {
    DVec3::new(v.x as f64, v.y as f64, v.z as f64)
}

fn to_f(v: DVec3) -> Vec3A {
    Vec3A::new(v.x as f32, v.y as f32, v.z as f32)
}

/// The q of a contact row: the approaching normal velocity, plus the bounce `e v_n` when the
/// approach is faster than `v_rest` (so that resting contacts do not jitter).
fn contact_q(v_n: f64, e: f64, v_rest: f64) -> f64 {
    if v_n < -v_rest { (1.0 + e) * v_n } else { v_n }
}

/// Liquid particles overlapping a body by more than this fraction of the spacing are pushed out
/// to it at the end of a step.
pub const LIQUID_SLOP: f64 = 0.05;

impl Coupler {
    /// A coupler for these bodies (their surface particles are indexed once).
    pub fn new(bodies: &[RigidBody]) -> Coupler {
        Coupler {
            index: SurfaceIndex::new(bodies),
            options: lcp::Options::default(),
            report: CouplingReport::default(),
            failure: None,
            joints: Vec::new(),
        }
    }

    /// Advance the bodies by `dt` together with the contacts of the CPU liquid `p` with them.
    /// The liquid has already taken its own step; its velocities and positions get the contact
    /// impulses. A failed solve is an error, with the problem kept in `failure`.
    pub fn step(
        &mut self,
        p: &mut Particles,
        params: &LiquidParams,
        bodies: &mut [RigidBody],
        gravity: DVec3,
        dt: f64,
    ) -> Result<()> {
        let r_l = params.spacing as f64 / 2.0;
        let touches: Vec<LiquidTouch> = if p.is_empty() {
            Vec::new()
        } else {
            self.index
                .liquid_contacts(bodies, &p.pos, r_l)
                .into_iter()
                .map(|c| LiquidTouch {
                    contact: c,
                    vel: to_d(p.vel[c.slot as usize]),
                    inv_mass: 1.0 / params.phases[p.phase[c.slot as usize] as usize].mass as f64,
                })
                .collect()
        };
        let dv = self.solve(&touches, params, bodies, gravity, dt)?;
        for (slot, d) in dv {
            let d = to_f(d);
            p.vel[slot as usize] += d;
            p.pos[slot as usize] += d * dt as f32;
        }
        if !p.is_empty() {
            let after = self.index.liquid_contacts(bodies, &p.pos, r_l);
            for (slot, d) in push_out(&after, params) {
                p.pos[slot as usize] += to_f(d);
            }
        }
        self.correct_bodies(params, bodies);
        Ok(())
    }

    /// The same step with the liquid on the GPU: the GPU finds the liquid/body particle pairs
    /// and sends down only them (with the touching particles' positions and velocities); only
    /// the impulses and the position corrections go back up.
    pub fn step_gpu(
        &mut self,
        gpu: &mut GpuLiquidSolver,
        params: &LiquidParams,
        bodies: &mut [RigidBody],
        gravity: DVec3,
        dt: f64,
    ) -> Result<()> {
        let touches = self.gpu_touches(gpu, params, bodies)?;
        let dv = self.solve(&touches, params, bodies, gravity, dt)?;
        let dv: Vec<(u32, Vec3A)> = dv.into_iter().map(|(s, d)| (s, to_f(d))).collect();
        gpu.apply_impulses(&dv, dt as f32)?;
        let after: Vec<LiquidBodyContact> = self
            .gpu_touches(gpu, params, bodies)?
            .into_iter()
            .map(|t| t.contact)
            .collect();
        let push: Vec<(u32, Vec3A)> = push_out(&after, params)
            .into_iter()
            .map(|(s, d)| (s, to_f(d)))
            .collect();
        gpu.push_out(&push)?;
        self.correct_bodies(params, bodies);
        Ok(())
    }

    /// The liquid/body contacts of the GPU liquid, merged from the GPU's particle pairs.
    fn gpu_touches(
        &self,
        gpu: &mut GpuLiquidSolver,
        params: &LiquidParams,
        bodies: &[RigidBody],
    ) -> Result<Vec<LiquidTouch>> {
        // Every body's surface particles, in body then particle order.
        let mut spheres = Vec::new();
        let mut owner = Vec::new();
        for (bi, b) in bodies.iter().enumerate() {
            let c = &b.clump;
            for k in (0..c.len()).filter(|&k| c.surface[k]) {
                spheres.push(BodyParticle {
                    pos: to_f(b.world_point(c.positions[k])),
                    radius: c.radius as f32,
                });
                owner.push((bi, k));
            }
        }
        let pairs: Vec<Contact> = gpu.find_contacts(&spheres)?;
        let r_l = params.spacing as f64 / 2.0;
        let mut out = Vec::new();
        // Pairs come sorted by liquid id, then body particle (so by body): one run per contact.
        let mut start = 0;
        while start < pairs.len() {
            let (id, body) = (
                pairs[start].liquid_id,
                owner[pairs[start].body_particle as usize].0,
            );
            let mut end = start + 1;
            while end < pairs.len()
                && pairs[end].liquid_id == id
                && owner[pairs[end].body_particle as usize].0 == body
            {
                end += 1;
            }
            let run = &pairs[start..end];
            let b = &bodies[body];
            let xw = to_d(run[0].pos);
            let xb = b.rotation().transpose() * (xw - b.state.x);
            let ks = run.iter().map(|p| owner[p.body_particle as usize].1);
            if let Some((n, depth)) = merge_touching(&b.clump, xb, b.clump.radius + r_l, ks) {
                out.push(LiquidTouch {
                    contact: LiquidBodyContact {
                        slot: run[0].slot,
                        body: body as u32,
                        normal: b.rotation() * n,
                        point: xw,
                        depth,
                    },
                    vel: to_d(run[0].vel),
                    inv_mass: 1.0 / params.phases[run[0].phase as usize].mass as f64,
                });
            }
            start = end;
        }
        // The CPU path orders contacts by body, then slot; so does this one.
        out.sort_by_key(|t| (t.contact.body, t.contact.slot));
        Ok(out)
    }

    /// Steps 6 to 10 for the bodies: predicted velocities, the solve, body impulses and poses.
    /// Returns the liquid's velocity changes, one per touching slot.
    fn solve(
        &mut self,
        liquid: &[LiquidTouch],
        params: &LiquidParams,
        bodies: &mut [RigidBody],
        gravity: DVec3,
        dt: f64,
    ) -> Result<Vec<(u32, DVec3)>> {
        let r_l = params.spacing as f64 / 2.0;
        let v_rest = 2.0 * gravity.length() * dt;
        let mut solid = self.unlinked_contacts(bodies);
        if let Some(w) = &params.walls {
            solid.extend(wall_contacts(bodies, w, r_l));
        }
        let mut touched = vec![false; bodies.len()];
        for t in liquid {
            touched[t.contact.body as usize] = true;
        }
        for c in &solid {
            touched[c.a as usize] = true;
            if let Some(b) = c.b {
                touched[b as usize] = true;
            }
        }
        for b in self
            .joints
            .iter()
            .flat_map(|j| j.ends.into_iter().flatten())
        {
            touched[b] = true;
        }
        // Bodies in contact or in a joint take gravity as an impulse now (predicted velocities); the rest
        // integrate it exactly below.
        for (b, body) in bodies.iter_mut().enumerate() {
            if touched[b] && body.dynamic {
                let weight = gravity * body.mass();
                body.apply_impulse(weight * dt, body.state.x);
            }
        }
        let (mut problem, slots) = assemble(bodies, liquid, &solid, v_rest);
        let dyn_index = dynamic_index(bodies);
        joints::append_rows(&mut problem, bodies, &dyn_index, &self.joints, dt);
        self.report = CouplingReport {
            liquid_contacts: liquid.len(),
            body_contacts: solid.len(),
            rows: problem.rows.len(),
            iterations: 0,
        };
        let mut dv = Vec::new();
        if !problem.rows.is_empty() {
            let sol = lcp::solve_structured(&problem, &self.options);
            let outcome = match &sol {
                Ok(s) if s.is_solved() => None,
                Ok(s) => Some(s.outcome.name().to_string()),
                Err(e) => Some(e.to_string()),
            };
            if let Some(outcome) = outcome {
                let msg = format!(
                    "the contact LCP ({} rows) ended with outcome '{outcome}'",
                    problem.rows.len()
                );
                self.failure = Some(Box::new(CouplingFailure {
                    outcome,
                    rows: problem.rows.len(),
                    problem,
                }));
                return Err(Error::Run(msg));
            }
            let sol = sol.expect("checked above");
            self.report.iterations = sol.iterations;
            dv = apply(bodies, &problem, &slots, &sol.z);
        }
        for (b, body) in bodies.iter_mut().enumerate() {
            if touched[b] {
                body.step(dt, DVec3::ZERO, DVec3::ZERO);
            } else {
                body.step(dt, gravity * body.mass(), DVec3::ZERO);
            }
        }
        Ok(dv)
    }

    /// Body/body contacts, except between bodies that a joint links.
    fn unlinked_contacts(&self, bodies: &[RigidBody]) -> Vec<BodyContact> {
        let mut solid = body_body_contacts(bodies, &self.index);
        if !self.joints.is_empty() {
            solid.retain(|c| {
                c.b.is_none_or(|b| !joints::linked(&self.joints, c.a as usize, b as usize))
            });
        }
        solid
    }

    /// Push bodies out of the walls and apart from each other (shared by inverse mass) to
    /// within a small slop, so that errors do not accumulate.
    fn correct_bodies(&self, params: &LiquidParams, bodies: &mut [RigidBody]) {
        let r_l = params.spacing as f64 / 2.0;
        let mut shift = vec![DVec3::ZERO; bodies.len()];
        let mut solid = self.unlinked_contacts(bodies);
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
        // What the step and the push-out left of the joints' errors is projected out.
        joints::project(bodies, &self.joints);
    }
}

/// The position corrections of liquid particles that overlap a body by more than the slop:
/// along the body's normal, to within the slop.
fn push_out(contacts: &[LiquidBodyContact], params: &LiquidParams) -> Vec<(u32, DVec3)> {
    let slop = LIQUID_SLOP * params.spacing as f64;
    let mut out: Vec<(u32, DVec3)> = Vec::new();
    for c in contacts.iter().filter(|c| c.depth > slop) {
        let d = c.normal * (c.depth - slop);
        match out.iter_mut().find(|(s, _)| *s == c.slot) {
            Some(e) => e.1 += d,
            None => out.push((c.slot, d)),
        }
    }
    out
}

/// Baraff's A in the structured form, one row per liquid contact and per body contact (plus
/// two friction rows where there is friction). Also returns the slot of each particle term.
fn assemble(
    bodies: &[RigidBody],
    liquid: &[LiquidTouch],
    solid: &[BodyContact],
    v_rest: f64,
) -> (StructuredProblem, Vec<u32>) {
    let mut prob = StructuredProblem::default();
    let mut slots = Vec::new();
    let mut particle_of: std::collections::HashMap<u32, usize> = std::collections::HashMap::new();
    let mut dyn_index = vec![usize::MAX; bodies.len()];
    for (b, body) in bodies.iter().enumerate() {
        if body.dynamic {
            dyn_index[b] = prob.body_inv_mass.len();
            // to_cols_array of a symmetric matrix is also its row-major form.
            let inv = body.world_inverse_inertia().to_cols_array();
            prob.body_inv_mass.push(body_inverse_mass(body.mass(), inv));
        }
    }
    for t in liquid {
        let c = &t.contact;
        let k = *particle_of.entry(c.slot).or_insert_with(|| {
            slots.push(c.slot);
            prob.particle_inv_mass.push(t.inv_mass);
            slots.len() - 1
        });
        let body = &bodies[c.body as usize];
        let r = c.point - body.state.x;
        let v_n = (t.vel - body.point_velocity(c.point)).dot(c.normal);
        let mut row = StructuredRow::contact(contact_q(v_n, body.restitution, v_rest))
            .with_particle(k, c.normal.to_array());
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
                row = row.with_body(dyn_index[c.a as usize], j_row(d, c.point - a.state.x, 1.0));
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

/// Each body's index among the dynamic bodies (the problem's bodies), `usize::MAX` for static ones.
fn dynamic_index(bodies: &[RigidBody]) -> Vec<usize> {
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

/// Make the component of `shift` along the unit vector `n` at least `amount`.
fn raise_along(shift: &mut DVec3, n: DVec3, amount: f64) {
    let have = shift.dot(n);
    if amount > have {
        *shift += n * (amount - have);
    }
}

/// Apply the impulses `z` of `prob` to the bodies (momentum changes `z J`) and return the liquid
/// particles' velocity changes `z n / m`, one per slot of `slots`.
fn apply(
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
