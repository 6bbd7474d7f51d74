//! One coupling step (docs/src/design.md, steps 6-10): predicted body velocities, contacts, their
//! resolution (the exact LCP in the structured form `D + J W J^T`, or penalty springs),
//! impulses on the liquid and the bodies, body poses, and a position-level correction of what
//! still overlaps. The liquid is driven through its [`Liquid`] interface, whichever backend
//! runs it: only the touching particles enter the solve.
use super::assemble::{AssembleBuffers, Contacts, apply, assemble};
use super::body_contacts::{
    BodyContact, ContactBuffers, body_body_contacts_into, wall_contacts_into,
};
use super::correction::{PushBuffers, correct_bodies, push_out};
use super::energy_check::EnergyCheck;
use super::liquid_body::{LiquidBodyContact, SurfaceIndex};
use super::params::{CouplingMethod, CouplingParams, LcpSolverChoice, OnLcpFailure};
use super::penalty::{PenaltyParams, apply_penalty};
use super::touches::{LiquidTouch, TouchBuffers, to_f, touches};
use crate::boundary::film::{self, FilmBuffers, film_impulses};
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
    /// Liquid particles pressed between a body and a wall that passed their liquid's
    /// pressure to the body (`boundary::film`).
    pub films: usize,
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
    /// The relative residual of the contact LCP whose impulses were applied (0 without one).
    pub residual: f64,
}

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
    /// Whether films between bodies and walls pass their liquid's pressure to the bodies.
    film_pressure: bool,
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
    /// The problem of the last step when its solve missed the tolerance and the step went on
    /// with the closest answer (`on_failure = "continue"`; the runner logs it); its outcome
    /// names the residual reached.
    pub unsolved: Option<Box<CouplingFailure>>,
    /// Joints between the bodies: their rows join the contacts' in every solve, and bodies
    /// they link do not collide with each other.
    pub joints: Vec<Joint>,
    /// Per body, the impulse (N s) and the angular impulse about its centre of mass (N m s)
    /// that the liquid gave it in the last step, dynamic, static and kinematic bodies alike:
    /// its contact impulses and its films' pressure.
    pub loads: Vec<(DVec3, DVec3)>,
    /// The step's buffers, kept between steps.
    buf: StepBuffers,
}

/// A step's buffers, cleared and refilled each step: once they have grown to the scene's
/// high-water mark, a step allocates nothing.
#[derive(Debug, Clone, Default)]
struct StepBuffers {
    touch: TouchBuffers,
    /// The liquid's contacts at the start of the step.
    liquid: Vec<LiquidTouch>,
    /// Body/body and body/wall contacts at the start of the step.
    solid: Vec<BodyContact>,
    /// Per body, whether anything touches it (or a joint holds it).
    touched: Vec<bool>,
    /// The liquid's contacts after the impulses, and their contact part.
    after: Vec<LiquidTouch>,
    after_contacts: Vec<LiquidBodyContact>,
    body: ContactBuffers,
    push: PushBuffers,
    pushes: Vec<(u32, DVec3)>,
    /// Pushes and velocity changes as the liquid takes them.
    to_liquid: Vec<(u32, Vec3A)>,
    /// The body shifts that walls blocking a push ask for, and the correction's.
    shifts: Vec<DVec3>,
    shift: Vec<DVec3>,
    /// Body/body and body/wall contacts at the end of the step.
    solid_after: Vec<BodyContact>,
    projection: joints::Projection,
    lcp: LcpBuffers,
    film: FilmBuffers,
    /// Per body, the impulse and angular impulse of the films' pressure.
    film_impulses: Vec<(DVec3, DVec3)>,
}

/// The contact problem's buffers.
#[derive(Debug, Clone, Default)]
struct LcpBuffers {
    assemble: AssembleBuffers,
    problem: StructuredProblem,
    slots: Vec<u32>,
    /// The liquid's velocity changes, one per touching slot.
    dv: Vec<(u32, DVec3)>,
    energy: EnergyCheck,
    solver: lcp::block_pivot::BlockPivotSolver,
    joints: joints::JointBuffers,
    /// The last solution of a dense solver (Dantzig, Lemke).
    dense: Option<lcp::Solution>,
    /// Per body, the liquid's impulse and angular impulse of the solution applied.
    loads: Vec<(DVec3, DVec3)>,
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
            film_pressure: params.film_pressure,
            touching: Vec::new(),
            report: CouplingReport::default(),
            failure: None,
            fallback: None,
            unsolved: None,
            joints: Vec::new(),
            loads: Vec::new(),
            buf: StepBuffers::default(),
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

    /// Body/body contacts, except between bodies that a joint links, appended to `out`.
    fn unlinked_contacts(
        &self,
        bodies: &[RigidBody],
        buf: &mut ContactBuffers,
        out: &mut Vec<BodyContact>,
    ) {
        let joints = &self.joints;
        body_body_contacts_into(
            bodies,
            &self.index,
            |a, b| joints::linked(joints, a, b),
            buf,
            out,
        );
    }

    /// The end of a step at position level: bodies out of walls and each other (and off walls
    /// where liquid is caught, `buf.shifts`), then what is left of the joints' errors.
    fn correct(
        &self,
        params: &LiquidParams,
        bodies: &mut [RigidBody],
        buf: &mut StepBuffers,
        times: &mut PhaseTimes,
    ) {
        times.time(Phase::Correction, || {
            buf.solid_after.clear();
            self.unlinked_contacts(bodies, &mut buf.body, &mut buf.solid_after);
            correct_bodies(
                params,
                bodies,
                &mut buf.solid_after,
                &buf.shifts,
                &mut buf.body,
                &mut buf.shift,
            )
        });
        // What the step and the push-out left of the joints' errors is projected out.
        times.time(Phase::Joints, || {
            joints::project_with(bodies, &self.joints, &mut buf.projection)
        });
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
        let mut buf = std::mem::take(&mut self.buf);
        let result = self.step_with(&mut buf, liquid, bodies, gravity, dt, times);
        self.buf = buf;
        result
    }

    /// [`Coupler::step_timed`] with the step's buffers.
    fn step_with(
        &mut self,
        buf: &mut StepBuffers,
        liquid: &mut dyn Liquid,
        bodies: &mut [RigidBody],
        gravity: DVec3,
        dt: f64,
        times: &mut PhaseTimes,
    ) -> Result<()> {
        // Films need the liquid within a kernel radius of them, beyond the touching particles.
        let film_reach = match liquid.params() {
            p if self.film_pressure && p.boundary.walls.is_some() => film::reach(p),
            _ => 0.0,
        };
        self.loads.clear();
        self.loads.resize(bodies.len(), (DVec3::ZERO, DVec3::ZERO));
        times.time(Phase::Contacts, || {
            touches(
                &self.index,
                liquid,
                bodies,
                film_reach,
                &mut buf.touch,
                &mut buf.liquid,
            )
        })?;
        let mut films = 0;
        if self.film_pressure && !liquid.is_empty() {
            films = times.time(Phase::Contacts, || {
                film_impulses(
                    buf.touch.candidates(),
                    buf.touch.near_wall(),
                    &self.index,
                    liquid.params(),
                    bodies,
                    dt,
                    &mut buf.film,
                    &mut buf.film_impulses,
                )
            });
            for ((body, &(j, l)), load) in bodies
                .iter_mut()
                .zip(&buf.film_impulses)
                .zip(&mut self.loads)
            {
                if body.dynamic {
                    body.state.p += j;
                    body.state.l += l;
                }
                load.0 += j;
                load.1 += l;
            }
        }
        self.solve(buf, liquid.params(), bodies, gravity, dt, times)?;
        for (load, &(j, l)) in self.loads.iter_mut().zip(&buf.lcp.loads) {
            load.0 += j;
            load.1 += l;
        }
        self.report.films = films;
        times.time(Phase::Bodies, || {
            buf.to_liquid.clear();
            buf.to_liquid
                .extend(buf.lcp.dv.iter().map(|&(s, d)| (s, to_f(d))));
            liquid.apply_impulses(&buf.to_liquid, dt as f32)
        })?;
        if self.projects_positions() {
            times.time(Phase::Contacts, || {
                touches(
                    &self.index,
                    liquid,
                    bodies,
                    0.0,
                    &mut buf.touch,
                    &mut buf.after,
                )
            })?;
            buf.after_contacts.clear();
            buf.after_contacts
                .extend(buf.after.iter().map(|t| t.contact));
            times.time(Phase::Correction, || {
                push_out(
                    &buf.after_contacts,
                    liquid.params(),
                    bodies.len(),
                    &mut buf.push,
                    &mut buf.pushes,
                    &mut buf.shifts,
                );
                buf.to_liquid.clear();
                buf.to_liquid
                    .extend(buf.pushes.iter().map(|&(s, d)| (s, to_f(d))));
                liquid.push_out(&buf.to_liquid)
            })?;
            self.correct(liquid.params(), bodies, buf, times);
        }
        Ok(())
    }

    /// Steps 6 to 10 for the bodies: predicted velocities, the contacts' resolution, body
    /// impulses and poses, for the liquid's contacts in `buf.liquid`. Gives the liquid's
    /// velocity changes in `buf.lcp.dv`, one per touching slot.
    fn solve(
        &mut self,
        buf: &mut StepBuffers,
        params: &LiquidParams,
        bodies: &mut [RigidBody],
        gravity: DVec3,
        dt: f64,
        times: &mut PhaseTimes,
    ) -> Result<()> {
        let r_l = params.spacing as f64 / 2.0;
        let v_rest = 2.0 * gravity.length() * dt;
        let t_contacts = std::time::Instant::now();
        let (liquid, solid, touched) = (&mut buf.liquid, &mut buf.solid, &mut buf.touched);
        for t in liquid.iter_mut() {
            t.new = self
                .touching
                .binary_search(&(t.contact.body, t.id))
                .is_err();
        }
        self.touching.clear();
        self.touching
            .extend(liquid.iter().map(|t| (t.contact.body, t.id)));
        self.touching.sort_unstable();
        solid.clear();
        self.unlinked_contacts(bodies, &mut buf.body, solid);
        if let Some(w) = &params.boundary.walls {
            wall_contacts_into(bodies, w, r_l, &mut buf.body, solid);
        }
        times.add(Phase::Contacts, t_contacts.elapsed());
        let t_bodies = std::time::Instant::now();
        touched.clear();
        touched.resize(bodies.len(), false);
        for t in liquid.iter() {
            touched[t.contact.body as usize] = true;
        }
        for c in solid.iter() {
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
            films: 0,
            rows: 0,
            iterations: 0,
            bounced: 0,
            inelastic: false,
            residual: 0.0,
        };
        self.fallback = None;
        self.unsolved = None;
        let (liquid, solid, touched) = (&buf.liquid, &buf.solid, &buf.touched);
        let lcp = &mut buf.lcp;
        lcp.loads.clear();
        lcp.loads.resize(bodies.len(), (DVec3::ZERO, DVec3::ZERO));
        // The joints travel with the contacts (their hinges clamp bodies, their rows join the
        // problem); taken out of `self` for the solve, a move, and put back after it.
        let joint_list = std::mem::take(&mut self.joints);
        let contacts = Contacts {
            liquid,
            solid,
            walls: params.boundary.walls.as_ref(),
            spacing: params.spacing as f64,
            v_rest,
            liquid_friction: self.penalty.liquid_friction,
            liquid_restitution: self.liquid_restitution,
            bounce: true,
            joints: &joint_list,
        };
        let pen = self.penalty;
        let penalty = |bodies: &mut [RigidBody], times: &mut PhaseTimes, lcp: &mut LcpBuffers| {
            lcp.loads.fill((DVec3::ZERO, DVec3::ZERO));
            lcp.dv = times.time(Phase::Lcp, || {
                apply_penalty(&pen, bodies, liquid, solid, dt, &mut lcp.loads)
            });
        };
        let solved = match self.method {
            CouplingMethod::Penalty => {
                penalty(bodies, times, lcp);
                Ok(())
            }
            CouplingMethod::Lcp => match self.solve_lcp(bodies, &contacts, dt, times, lcp) {
                Err(e) if self.on_failure == OnLcpFailure::Penalty => match self.failure.take() {
                    Some(failure) => {
                        self.fallback = Some(failure);
                        penalty(bodies, times, lcp);
                        Ok(())
                    }
                    None => Err(e),
                },
                solved => solved,
            },
        };
        self.joints = joint_list;
        solved?;
        times.time(Phase::Bodies, || {
            for (b, body) in bodies.iter_mut().enumerate() {
                if touched[b] {
                    body.step(dt, DVec3::ZERO, DVec3::ZERO);
                } else {
                    body.step(dt, gravity * body.mass(), DVec3::ZERO);
                }
            }
        });
        Ok(())
    }

    /// The contacts' LCP: assembled, solved by the scene's solver, its impulses applied to the
    /// bodies. Gives the liquid's velocity changes in `lcp.dv`; an unsolved problem is kept in
    /// `failure`.
    ///
    /// A step whose impulses raise the kinetic energy of the bodies and particles they touch
    /// ([`EnergyCheck`]) is solved again without bounce, which cannot add energy (`z.w <= 0`
    /// on every row). So is a step whose bounces the contacts cannot all meet at once (a body
    /// that a wall sends back into liquid wedged behind it): the problem with bounce has no
    /// solution.
    fn solve_lcp(
        &mut self,
        bodies: &mut [RigidBody],
        contacts: &Contacts,
        dt: f64,
        times: &mut PhaseTimes,
        lcp: &mut LcpBuffers,
    ) -> Result<()> {
        lcp.energy.before(bodies);
        match self.solve_and_apply(bodies, contacts, dt, times, lcp) {
            // Only a step with bounces can add energy: the others skip the check.
            Ok(()) if self.report.bounced == 0 => return Ok(()),
            Ok(()) => {
                let t = std::time::Instant::now();
                let kept = lcp.energy.keeps_energy(bodies, contacts.liquid, &lcp.dv);
                times.add(Phase::Assemble, t.elapsed());
                if kept {
                    return Ok(());
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
        self.solve_and_apply(bodies, &inelastic, dt, times, lcp)
    }

    /// Assemble, solve and apply one contact problem (see [`Coupler::solve_lcp`]); counts the
    /// rows that bounce in the report.
    fn solve_and_apply(
        &mut self,
        bodies: &mut [RigidBody],
        contacts: &Contacts,
        dt: f64,
        times: &mut PhaseTimes,
        lcp: &mut LcpBuffers,
    ) -> Result<()> {
        // A retry without bounce replaces the first solve's loads with its own.
        lcp.loads.fill((DVec3::ZERO, DVec3::ZERO));
        let bounced = times.time(Phase::Assemble, || {
            assemble(
                bodies,
                contacts,
                &mut lcp.problem,
                &mut lcp.slots,
                &mut lcp.assemble,
            )
        });
        if contacts.bounce {
            self.report.bounced = bounced;
        }
        let problem = &mut lcp.problem;
        times.time(Phase::Joints, || {
            joints::append_rows_with(
                problem,
                bodies,
                &lcp.assemble.dyn_index,
                contacts.joints,
                dt,
                &mut lcp.joints,
            )
        });
        self.report.rows = problem.rows.len();
        if problem.rows.is_empty() {
            lcp.dv.clear();
            return Ok(());
        }
        let (options, dense) = (&self.options, &mut lcp.dense);
        let t_lcp = std::time::Instant::now();
        let sol = match self.solver {
            LcpSolverChoice::BlockPivot => lcp.solver.solve(problem, options),
            LcpSolverChoice::Dantzig => {
                lcp::dantzig(&problem.to_dense(), options).map(|s| &*dense.insert(s))
            }
            LcpSolverChoice::Lemke => {
                lcp::lemke(&problem.to_dense(), options).map(|s| &*dense.insert(s))
            }
        };
        times.add(Phase::Lcp, t_lcp.elapsed());
        let outcome = match &sol {
            Ok(s) if s.is_solved() => None,
            Ok(s) => Some(s.outcome.name().to_string()),
            Err(e) => Some(e.to_string()),
        };
        // With `on_failure = "continue"` an unsolved step goes on with the closest answer the
        // solvers reached, unless a retry without bounce is still to come.
        let retry = contacts.bounce && bounced > 0;
        if let (Some(outcome), Ok(s)) = (&outcome, &sol)
            && self.on_failure == OnLcpFailure::Continue
            && !retry
            && s.z.iter().all(|v| v.is_finite())
        {
            self.unsolved = Some(Box::new(CouplingFailure {
                outcome: format!(
                    "{outcome}, relative residual {:.3e}",
                    s.residuals.relative()
                ),
                rows: problem.rows.len(),
                problem: problem.clone(),
            }));
        } else if let Some(outcome) = outcome {
            let msg = format!(
                "the contact LCP ({} rows) ended with outcome '{outcome}'",
                problem.rows.len()
            );
            self.failure = Some(Box::new(CouplingFailure {
                outcome,
                rows: problem.rows.len(),
                problem: std::mem::take(problem),
            }));
            return Err(Error::Run(msg));
        }
        let sol = sol.expect("checked above");
        self.report.iterations = sol.iterations;
        self.report.residual = sol.residuals.relative();
        times.time(Phase::Assemble, || {
            apply(
                bodies,
                problem,
                &lcp.slots,
                &sol.z,
                &mut lcp.assemble,
                &mut lcp.dv,
                &mut lcp.loads,
            )
        });
        Ok(())
    }
}
