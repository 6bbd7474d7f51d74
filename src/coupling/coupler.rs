//! One coupling step (docs/design.md, steps 6-10): predicted body velocities, contacts, their
//! resolution (the exact LCP in the structured form `D + J W J^T`, or penalty springs),
//! impulses on the liquid and the bodies, body poses, and a position-level correction of what
//! still overlaps. The liquid is driven through its [`Liquid`] interface, whichever backend
//! runs it: only the touching particles enter the solve.
use super::assemble::{Contacts, apply, assemble, dynamic_index};
use super::body_contacts::{BodyContact, body_body_contacts, wall_contacts};
use super::correction::{correct_bodies, push_out};
use super::liquid_body::{LiquidBodyContact, SlotLookup, SurfaceIndex, first_of_slot};
use super::params::{CouplingMethod, CouplingParams, LcpSolverChoice, OnLcpFailure};
use super::penalty::{PenaltyParams, apply_penalty};
use super::touches::{LiquidTouch, to_f, touches};
use crate::joints::{self, Joint};
use crate::lcp::{self, StructuredProblem};
use crate::liquid::Liquid;
use crate::liquid::params::LiquidParams;
use crate::rigid::RigidBody;
use crate::timing::{Phase, PhaseTimes};
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
    /// LCP rows (contacts, friction, walls under touching liquid).
    pub rows: usize,
    /// Solver iterations.
    pub iterations: usize,
    /// Rows that bounced (restitution) in the problem first solved.
    pub bounced: usize,
    /// Whether the step's bounce was withdrawn: Newton's restitution on the simultaneous
    /// contacts would have raised the kinetic energy, or could not be met by all of them at
    /// once (no solution), so the step was solved inelastic.
    pub inelastic: bool,
}

/// A step's impulses may raise the kinetic energy of what they touch by this fraction of it
/// (rounding) before the bounce is withdrawn.
const ENERGY_RISE_TOL: f64 = 1e-9;

/// The coupling between the liquid, the bodies and the walls.
#[derive(Debug, Clone)]
pub struct Coupler {
    index: SurfaceIndex,
    options: lcp::Options,
    method: CouplingMethod,
    solver: LcpSolverChoice,
    on_failure: OnLcpFailure,
    penalty: PenaltyParams,
    /// The liquid's restitution against bodies.
    liquid_restitution: f64,
    /// (body, liquid id) of the last step's liquid contacts, sorted: those contacts are
    /// pressed, not new, and do not bounce.
    touching: Vec<(u32, u32)>,
    /// What the last step did.
    pub report: CouplingReport,
    /// The problem of a step whose solve failed, for `sphrigid lcp solve` to replay.
    pub failure: Option<Box<CouplingFailure>>,
    /// The unsolved problem of the last step when it fell back to penalty (the runner logs
    /// it and writes it out).
    pub fallback: Option<Box<CouplingFailure>>,
    /// Joints between the bodies: their rows join the contacts' in every solve, and bodies
    /// they link do not collide with each other.
    pub joints: Vec<Joint>,
}

impl Coupler {
    /// A coupler for these bodies (their surface particles are indexed once), resolving
    /// contacts as `params` say.
    pub fn new(bodies: &[RigidBody], params: &CouplingParams) -> Coupler {
        Coupler {
            index: SurfaceIndex::new(bodies),
            options: lcp::Options::default(),
            method: params.method,
            solver: params.solver,
            on_failure: params.on_failure,
            penalty: params.penalty,
            liquid_restitution: params.liquid_restitution,
            touching: Vec::new(),
            report: CouplingReport::default(),
            failure: None,
            fallback: None,
            joints: Vec::new(),
        }
    }

    /// The (body, liquid id) pairs of the last step's liquid contacts, sorted: what the next
    /// step carries over (for a checkpoint).
    pub fn touching(&self) -> Vec<[u32; 2]> {
        let mut pairs: Vec<[u32; 2]> = self.touching.iter().map(|&(b, id)| [b, id]).collect();
        pairs.sort_unstable();
        pairs
    }

    /// Put back the pairs that [`Coupler::touching`] gave.
    pub fn set_touching(&mut self, pairs: &[[u32; 2]]) {
        self.touching = pairs.iter().map(|&[b, id]| (b, id)).collect();
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

    /// The end of a step at position level: bodies out of walls and each other (and off walls
    /// where liquid is caught, `shifts`), then what is left of the joints' errors.
    fn correct(
        &self,
        params: &LiquidParams,
        bodies: &mut [RigidBody],
        shifts: &[DVec3],
        times: &mut PhaseTimes,
    ) {
        times.time(Phase::Correction, || {
            correct_bodies(params, bodies, self.unlinked_contacts(bodies), shifts)
        });
        // What the step and the push-out left of the joints' errors is projected out.
        times.time(Phase::Joints, || joints::project(bodies, &self.joints));
    }

    /// Whether contacts are also corrected at position level (the LCP coupling; the penalty
    /// coupling resolves overlap by force alone).
    fn projects_positions(&self) -> bool {
        self.method == CouplingMethod::Lcp
    }

    /// Advance the bodies by `dt` together with the contacts of the liquid with them, on
    /// whichever backend it runs: the backend finds the particles near the bodies and hands
    /// over only them (with their positions and velocities); only the impulses and the
    /// position corrections go back. The liquid has already taken its own step. A failed
    /// solve is an error, with the problem kept in `failure`.
    pub fn step(
        &mut self,
        liquid: &mut dyn Liquid,
        bodies: &mut [RigidBody],
        gravity: DVec3,
        dt: f64,
    ) -> Result<()> {
        self.step_timed(liquid, bodies, gravity, dt, &mut PhaseTimes::default())
    }

    /// [`Coupler::step`], each part's time added to its coupling phase in `times`.
    pub fn step_timed(
        &mut self,
        liquid: &mut dyn Liquid,
        bodies: &mut [RigidBody],
        gravity: DVec3,
        dt: f64,
        times: &mut PhaseTimes,
    ) -> Result<()> {
        let params = liquid.params().clone();
        let params = &params;
        let found = times.time(Phase::Contacts, || {
            touches(&self.index, liquid, params, bodies)
        })?;
        let dv = self.solve(found, params, bodies, gravity, dt, times)?;
        times.time(Phase::Bodies, || {
            let dv: Vec<(u32, Vec3A)> = dv.into_iter().map(|(s, d)| (s, to_f(d))).collect();
            liquid.apply_impulses(&dv, dt as f32)
        })?;
        if self.projects_positions() {
            let after: Vec<LiquidBodyContact> = times.time(Phase::Contacts, || {
                touches(&self.index, liquid, params, bodies)
                    .map(|t| t.into_iter().map(|t| t.contact).collect())
            })?;
            let shifts = times.time(Phase::Correction, || {
                let mut push = Vec::new();
                let shifts = self.push_liquid_out(&after, params, bodies.len(), |slot, d| {
                    push.push((slot, d));
                });
                liquid.push_out(&push).map(|_| shifts)
            })?;
            self.correct(params, bodies, &shifts, times);
        }
        Ok(())
    }

    /// Hand every liquid push-out to `apply` (slot, displacement); returns the body shifts
    /// that walls blocking a push ask for.
    fn push_liquid_out(
        &self,
        after: &[LiquidBodyContact],
        params: &LiquidParams,
        bodies: usize,
        mut apply: impl FnMut(u32, Vec3A),
    ) -> Vec<DVec3> {
        let (pushes, shifts) = push_out(after, params, bodies);
        for (slot, d) in pushes {
            apply(slot, to_f(d));
        }
        shifts
    }

    /// Steps 6 to 10 for the bodies: predicted velocities, the contacts' resolution, body
    /// impulses and poses. Returns the liquid's velocity changes, one per touching slot.
    fn solve(
        &mut self,
        mut liquid: Vec<LiquidTouch>,
        params: &LiquidParams,
        bodies: &mut [RigidBody],
        gravity: DVec3,
        dt: f64,
        times: &mut PhaseTimes,
    ) -> Result<Vec<(u32, DVec3)>> {
        let r_l = params.spacing as f64 / 2.0;
        let v_rest = 2.0 * gravity.length() * dt;
        let t_contacts = std::time::Instant::now();
        for t in &mut liquid {
            t.new = self
                .touching
                .binary_search(&(t.contact.body, t.id))
                .is_err();
        }
        self.touching.clear();
        self.touching
            .extend(liquid.iter().map(|t| (t.contact.body, t.id)));
        self.touching.sort_unstable();
        let mut solid = self.unlinked_contacts(bodies);
        if let Some(w) = &params.walls {
            solid.extend(wall_contacts(bodies, w, r_l));
        }
        times.add(Phase::Contacts, t_contacts.elapsed());
        let t_bodies = std::time::Instant::now();
        let mut touched = vec![false; bodies.len()];
        for t in &liquid {
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
        // Bodies in contact or in a joint take gravity as an impulse now (predicted
        // velocities); the rest integrate it exactly below.
        for (b, body) in bodies.iter_mut().enumerate() {
            if touched[b] && body.dynamic {
                let weight = gravity * body.mass();
                body.apply_impulse(weight * dt, body.state.x);
            }
        }
        times.add(Phase::Bodies, t_bodies.elapsed());
        self.report = CouplingReport {
            liquid_contacts: liquid.len(),
            body_contacts: solid.len(),
            rows: 0,
            iterations: 0,
            bounced: 0,
            inelastic: false,
        };
        self.fallback = None;
        let contacts = Contacts {
            liquid: &liquid,
            solid: &solid,
            walls: params.walls.as_ref(),
            spacing: params.spacing as f64,
            v_rest,
            liquid_friction: self.penalty.liquid_friction,
            liquid_restitution: self.liquid_restitution,
            bounce: true,
        };
        let pen = self.penalty;
        let penalty = |bodies: &mut [RigidBody], times: &mut PhaseTimes| {
            times.time(Phase::Lcp, || {
                apply_penalty(&pen, bodies, &liquid, &solid, dt)
            })
        };
        let dv = match self.method {
            CouplingMethod::Penalty => penalty(bodies, times),
            CouplingMethod::Lcp => match self.solve_lcp(bodies, &contacts, dt, times) {
                Ok(dv) => dv,
                Err(e) if self.on_failure == OnLcpFailure::Penalty => {
                    self.fallback = Some(self.failure.take().ok_or(e)?);
                    penalty(bodies, times)
                }
                Err(e) => return Err(e),
            },
        };
        times.time(Phase::Bodies, || {
            for (b, body) in bodies.iter_mut().enumerate() {
                if touched[b] {
                    body.step(dt, DVec3::ZERO, DVec3::ZERO);
                } else {
                    body.step(dt, gravity * body.mass(), DVec3::ZERO);
                }
            }
        });
        Ok(dv)
    }

    /// The contacts' LCP: assembled, solved by the scene's solver, its impulses applied to the
    /// bodies. Returns the liquid's velocity changes; an unsolved problem is kept in `failure`.
    ///
    /// Newton's restitution applied to many contacts at once can add energy (a body bouncing
    /// on a dozen liquid particles can fling one of them faster than anything in the scene):
    /// a step whose impulses raise the kinetic energy of the bodies and particles they touch
    /// is solved again without bounce, which cannot add energy (`z.w <= 0` on every row). So
    /// is a step whose bounces the contacts cannot all meet at once (a body that a wall sends
    /// back into liquid wedged behind it): the problem with bounce has no solution.
    fn solve_lcp(
        &mut self,
        bodies: &mut [RigidBody],
        contacts: &Contacts,
        dt: f64,
        times: &mut PhaseTimes,
    ) -> Result<Vec<(u32, DVec3)>> {
        let before = momenta(bodies);
        match self.solve_and_apply(bodies, contacts, dt, times) {
            // Only a step with bounces can add energy: the others skip the check.
            Ok(dv) if self.report.bounced == 0 => return Ok(dv),
            Ok(dv) => {
                let t = std::time::Instant::now();
                let energy_after = kinetic_energy(bodies, contacts.liquid, &dv);
                let after = momenta(bodies);
                set_momenta(bodies, &before);
                let energy_before = kinetic_energy(bodies, contacts.liquid, &[]);
                times.add(Phase::Assemble, t.elapsed());
                if energy_after - energy_before <= ENERGY_RISE_TOL * energy_before {
                    set_momenta(bodies, &after);
                    return Ok(dv);
                }
            }
            Err(e) if self.report.bounced == 0 => return Err(e),
            // Nothing was applied; the retry's outcome replaces this failure.
            Err(_) => self.failure = None,
        }
        self.report.inelastic = true;
        let inelastic = Contacts {
            bounce: false,
            ..*contacts
        };
        self.solve_and_apply(bodies, &inelastic, dt, times)
    }

    /// Assemble, solve and apply one contact problem (see [`Coupler::solve_lcp`]); counts the
    /// rows that bounce in the report.
    fn solve_and_apply(
        &mut self,
        bodies: &mut [RigidBody],
        contacts: &Contacts,
        dt: f64,
        times: &mut PhaseTimes,
    ) -> Result<Vec<(u32, DVec3)>> {
        let (mut problem, slots, bounced) =
            times.time(Phase::Assemble, || assemble(bodies, contacts));
        if contacts.bounce {
            self.report.bounced = bounced;
        }
        times.time(Phase::Joints, || {
            joints::append_rows(
                &mut problem,
                bodies,
                &dynamic_index(bodies),
                &self.joints,
                dt,
            )
        });
        self.report.rows = problem.rows.len();
        if problem.rows.is_empty() {
            return Ok(Vec::new());
        }
        let sol = times.time(Phase::Lcp, || match self.solver {
            LcpSolverChoice::BlockPivot => lcp::block_pivot(&problem, &self.options),
            LcpSolverChoice::Dantzig => lcp::dantzig(&problem.to_dense(), &self.options),
            LcpSolverChoice::Lemke => lcp::lemke(&problem.to_dense(), &self.options),
        });
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
        Ok(times.time(Phase::Assemble, || apply(bodies, &problem, &slots, &sol.z)))
    }
}

/// Each body's linear and angular momentum.
fn momenta(bodies: &[RigidBody]) -> Vec<(DVec3, DVec3)> {
    bodies.iter().map(|b| (b.state.p, b.state.l)).collect()
}

/// Set each body's linear and angular momentum (the impulses change nothing else).
fn set_momenta(bodies: &mut [RigidBody], momenta: &[(DVec3, DVec3)]) {
    for (b, &(p, l)) in bodies.iter_mut().zip(momenta) {
        b.state.p = p;
        b.state.l = l;
    }
}

/// The kinetic energy of the bodies and of the touching liquid particles, these with the
/// velocity changes `dv` (by slot) added.
fn kinetic_energy(bodies: &[RigidBody], liquid: &[LiquidTouch], dv: &[(u32, DVec3)]) -> f64 {
    let slots: Vec<u32> = liquid.iter().map(|t| t.contact.slot).collect();
    let first = first_of_slot(&slots);
    let changes = SlotLookup::new(dv.iter().copied());
    let particles: f64 = liquid
        .iter()
        .enumerate()
        .filter(|&(i, _)| first[i] == i)
        .map(|(_, t)| {
            let v = t.vel + changes.get(t.contact.slot).unwrap_or(DVec3::ZERO);
            0.5 * v.length_squared() / t.inv_mass
        })
        .sum();
    particles
        + bodies
            .iter()
            .filter(|b| b.dynamic)
            .map(RigidBody::kinetic_energy)
            .sum::<f64>()
}
