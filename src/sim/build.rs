//! The one step from a loaded scene to what the physics needs: liquid parameters, particles and
//! time step, rigid bodies (meshes read from disk) and coupling parameters; the joints are
//! built in `joint_setup`. Scene
//! types stop here: liquid/, rigid/, joints/ and coupling/ see only what this module makes.
use crate::boundary::wall_kernel::lattice_moment;
use crate::boundary::{BoundaryParams, Walls};
use crate::coupling::penalty::PenaltyParams;
use crate::coupling::{CouplingMethod, CouplingParams, LcpSolverChoice, OnLcpFailure};
use crate::liquid::params::{Phase, default_near_stiffness, rest_kernel_sum};
use crate::liquid::particles::lattice_dims;
use crate::liquid::{LatticeBlock, LiquidParams, Particles};
use crate::rigid::motion::Prescribed;
use crate::rigid::sampling::posed_points;
use crate::rigid::{RigidBody, Shape};
use crate::scene::body::{BodySpec, ShapeSpec};
use crate::scene::liquid_shape::{self, read_and_scale};
use crate::scene::locate::KeyPath;
use crate::scene::{self, CouplingSpec, LoadedScene, Scene};
use crate::sim::placement;
use crate::sim::settle::SettlePlan;
use crate::{Error, Result};
use glam::{DQuat, DVec3, Vec3A};
use std::path::Path;

/// The liquid of a scene, ready to step: its parameters, particles and steps per frame.
#[derive(Debug, Clone)]
pub struct LiquidSetup {
    /// The liquid's lattice spacing, m (read here once; `None` without liquid).
    pub spacing: Option<f64>,
    /// The solver's parameters.
    pub params: LiquidParams,
    /// The particles at time 0, every block filled.
    pub particles: Particles,
    /// The largest stable step by the CFL condition, s (infinite without liquid).
    pub stable_dt: f64,
    /// Steps per frame.
    pub substeps: u32,
    /// Step size, s.
    pub dt: f64,
    /// How the liquid settles before time 0 (no steps when `[solver] settle = false`).
    pub settle: SettlePlan,
}

/// The liquid of a validated scene: parameters, particles and time stepping.
pub fn liquid(scene: &Scene) -> LiquidSetup {
    // Every block has the first's spacing and kernel radius, as the scene's checks make sure.
    let first = scene.liquid.first();
    let spacing = first.map(|b| b.spacing);
    let (s, ratio) = (
        spacing.unwrap_or(0.01),
        first.map_or(2.0, |b| b.kernel_radius),
    );
    let params = liquid_params(scene, s, ratio);
    let particles = fill(scene, s);
    let Stepping {
        stable_dt,
        substeps,
        dt,
        settle,
    } = stepping(scene);
    LiquidSetup {
        spacing,
        params,
        particles,
        stable_dt,
        substeps,
        dt,
        settle,
    }
}

/// A box block as a lattice to fill (`None` for a shaped block).
fn lattice_block(b: &scene::LiquidBlock) -> Option<LatticeBlock> {
    let (Some(min), Some(max)) = (b.min, b.max) else {
        return None;
    };
    Some(LatticeBlock {
        min,
        max,
        velocity: b.velocity,
    })
}

/// The points of a shaped block's solid at `spacing` (`None` for a box block): the
/// cell-centred lattice covering its world bounds, the points inside it kept.
fn shaped_points(b: &scene::LiquidBlock, spacing: f64) -> Option<Vec<DVec3>> {
    b.solid
        .as_ref()
        .map(|s| posed_points(&s.shape, s.rotation, s.position, (s.lo, s.hi), spacing))
}

/// Every block of a loaded scene filled at `spacing`, ids in block order, a block's index its
/// particles' phase: a box on its lattice, a shape on the lattice covering its world bounds.
fn fill(scene: &Scene, spacing: f64) -> Particles {
    let mut p = Particles::default();
    for (phase, b) in scene.liquid.iter().enumerate() {
        if let Some(block) = lattice_block(b) {
            p.fill_block(&block, spacing, phase as u32);
        } else if let Some(points) = shaped_points(b, spacing) {
            let v = Vec3A::from_array(b.velocity.map(|x| x as f32));
            for x in points {
                p.push(Vec3A::from(x.as_vec3()), v, phase as u32);
            }
        }
    }
    p
}

/// The number of particles [`liquid`] fills the scene's blocks with, counted without making
/// them.
pub fn particle_count(scene: &Scene) -> usize {
    let Some(first) = scene.liquid.first() else {
        return 0;
    };
    scene
        .liquid
        .iter()
        .map(|b| match lattice_block(b) {
            Some(block) => lattice_dims(&block, first.spacing).0.iter().product(),
            None => shaped_points(b, first.spacing).map_or(0, |p| p.len()),
        })
        .sum()
}

/// A scene's time stepping, derived from the scene alone (nothing is allocated).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Stepping {
    /// The largest stable step by the CFL condition, s (infinite without liquid).
    pub stable_dt: f64,
    /// Steps per frame.
    pub substeps: u32,
    /// Step size, s.
    pub dt: f64,
    /// How the liquid settles before time 0 (no steps when `[solver] settle = false`).
    pub settle: SettlePlan,
}

/// The time stepping of a validated scene: its stable step, steps per frame, step and
/// settling, as [`liquid`] takes them, without making a particle.
pub fn stepping(scene: &Scene) -> Stepping {
    let first = scene.liquid.first();
    let (s, ratio) = (
        first.map_or(0.01, |b| b.spacing),
        first.map_or(2.0, |b| b.kernel_radius),
    );
    let stable_dt = stable_dt(scene, s, ratio);
    let substeps = substeps(&scene.time, stable_dt);
    let dt = 1.0 / (scene.time.fps * substeps as f64);
    let settle = if scene.solver.settle {
        settle_plan(scene, dt)
    } else {
        SettlePlan::default()
    };
    Stepping {
        stable_dt,
        substeps,
        dt,
        settle,
    }
}

/// The settling of the scene's tallest block along gravity, at the sound speed of its
/// stiffest block: [`SettlePlan::for_column`].
fn settle_plan(scene: &Scene, dt: f64) -> SettlePlan {
    let g = DVec3::from_array(scene.gravity);
    let Some(down) = g.try_normalize() else {
        return SettlePlan::default();
    };
    let height = scene
        .liquid
        .iter()
        .map(|b| {
            let (min, max) = b.bounds();
            (DVec3::from_array(max) - DVec3::from_array(min))
                .abs()
                .dot(down.abs())
        })
        .fold(0.0, f64::max);
    let c = scene
        .liquid
        .iter()
        .map(|b| scene.stiffness(b).sqrt())
        .fold(0.0, f64::max);
    SettlePlan::for_column(height, c, dt)
}

/// The solver's parameters for liquid at `spacing` with a kernel radius of `ratio` spacings.
fn liquid_params(scene: &Scene, spacing: f64, ratio: f64) -> LiquidParams {
    let h = spacing * ratio;
    let rho0 = rest_kernel_sum(ratio, scene.solver.packed_rest);
    // A pressure gradient G displaces an interior particle by -dt^2 C G / 2 (C the lattice's
    // sum (1-q) r_y^2 / r, in m), so the liquid at rest grows P = k_eff (rho - rho0) at 2 g / C
    // with depth; k_eff = 2 k / (rho0 C) makes k (rho - rho0) rho_rest / rho0 grow at rho_rest g.
    let c = lattice_moment(spacing, h);
    let phases = scene
        .liquid
        .iter()
        .map(|b| Phase {
            mass: (b.density * spacing.powi(3)) as f32,
            rest_density: b.density as f32,
            k_eff: (2.0 * scene.stiffness(b) / (rho0 * c)) as f32,
            k_near_eff: (near_stiffness(scene, b, spacing, ratio) / (rho0 * h)) as f32,
            cohesion: b.cohesion,
            sigma: b.viscosity.sigma as f32,
            beta: b.viscosity.beta as f32,
        })
        .collect();
    LiquidParams {
        spacing: spacing as f32,
        h: h as f32,
        rho0: rho0 as f32,
        gravity: Vec3A::from_array(scene.gravity.map(|v| v as f32)),
        boundary: boundary_params(scene, spacing),
        relaxation_passes: scene.solver.relaxation_passes,
        phases,
    }
}

/// The boundary's settings for liquid at `spacing`: the scene's `[container]` as walls a
/// particle radius inside it, with their restitution, friction and ghost pressure.
fn boundary_params(scene: &Scene, spacing: f64) -> BoundaryParams {
    let r = spacing / 2.0;
    let walls = scene.container.as_ref().map(|c| {
        let (drag, drag_reach) = crate::boundary::wall_friction::drag(c.viscous_friction, spacing);
        Walls {
            lo: Vec3A::from_array(c.min.map(|v| (v + r) as f32)),
            hi: Vec3A::from_array(c.max.map(|v| (v - r) as f32)),
            restitution: c.restitution as f32,
            friction: c.friction as f32,
            drag,
            drag_reach,
        }
    });
    BoundaryParams::new(
        walls,
        scene.container.as_ref().is_some_and(|c| c.ghost_pressure),
    )
}

/// A block's near stiffness: the scene's, else [`default_near_stiffness`] for the scene's
/// gravity and rest kernel sum at `spacing` and kernel radius `ratio` spacings.
pub fn near_stiffness(scene: &Scene, b: &scene::LiquidBlock, spacing: f64, ratio: f64) -> f64 {
    b.near_stiffness.unwrap_or_else(|| {
        let g = DVec3::from_array(scene.gravity).length();
        let rho0 = rest_kernel_sum(ratio, scene.solver.packed_rest);
        default_near_stiffness(g, spacing, ratio, rho0)
    })
}

/// The largest stable step by the CFL condition for spacing `s` and kernel radius `ratio`
/// spacings (`h = s ratio`): `cfl h / (c + |v0|)` with `c = sqrt(k)`, and no more than
/// `cfl / sigma` for the viscosity impulses.
fn stable_dt(scene: &Scene, s: f64, ratio: f64) -> f64 {
    let h = s * ratio;
    let mut dt = f64::INFINITY;
    for b in &scene.liquid {
        let c = scene
            .stiffness(b)
            .max(near_stiffness(scene, b, s, ratio))
            .sqrt();
        let v0 = b.velocity.iter().map(|v| v * v).sum::<f64>().sqrt();
        let g = scene.gravity.iter().map(|v| v * v).sum::<f64>().sqrt();
        let (min, max) = b.bounds();
        let v_fall = (2.0 * g * (max[1] - min[1]).abs()).sqrt();
        dt = dt.min(scene.solver.cfl * h / (c + v0 + v_fall).max(1e-12));
        if b.viscosity.sigma > 0.0 {
            dt = dt.min(scene.solver.cfl / b.viscosity.sigma);
        }
    }
    // An emitter's jet: its speed, and what it gains falling from the nozzle to the floor.
    for e in &scene.emitter {
        let Some(b) = scene.liquid.get(e.liquid) else {
            continue;
        };
        let c = scene
            .stiffness(b)
            .max(near_stiffness(scene, b, s, ratio))
            .sqrt();
        let g = scene.gravity.iter().map(|v| v * v).sum::<f64>().sqrt();
        let drop = scene
            .container
            .as_ref()
            .map_or(0.0, |k| e.position[1] - k.min[1]);
        let v = e.speed + (2.0 * g * drop.max(0.0)).sqrt();
        dt = dt.min(scene.solver.cfl * h / (c + v).max(1e-12));
    }
    dt
}

/// Steps per frame: the scene's `time.substeps`, else enough for `time.dt`, else enough for
/// the stable step.
fn substeps(time: &scene::TimeSpec, stable_dt: f64) -> u32 {
    if let Some(n) = time.substeps {
        return n;
    }
    let frame = 1.0 / time.fps;
    if let Some(dt) = time.dt {
        return (frame / dt - 1e-9).ceil().clamp(1.0, 1e6) as u32;
    }
    if stable_dt.is_finite() {
        (frame / stable_dt).ceil().clamp(1.0, 1e6) as u32
    } else {
        1
    }
}

/// The coupling's parameters from the scene's `[coupling]` table.
pub fn coupling(spec: &CouplingSpec) -> CouplingParams {
    CouplingParams {
        method: match spec.method {
            scene::CouplingMethod::Lcp => CouplingMethod::Lcp,
            scene::CouplingMethod::Penalty => CouplingMethod::Penalty,
        },
        solver: match spec.solver {
            scene::LcpSolverChoice::BlockPivot => LcpSolverChoice::BlockPivot,
            scene::LcpSolverChoice::Dantzig => LcpSolverChoice::Dantzig,
            scene::LcpSolverChoice::Lemke => LcpSolverChoice::Lemke,
        },
        on_failure: match spec.on_failure {
            scene::OnLcpFailure::Continue => OnLcpFailure::Continue,
            scene::OnLcpFailure::Stop => OnLcpFailure::Stop,
            scene::OnLcpFailure::Penalty => OnLcpFailure::Penalty,
        },
        liquid_restitution: spec.liquid_restitution,
        film_pressure: spec.film_pressure,
        penalty: PenaltyParams {
            stiffness: spec.penalty_stiffness,
            contact_steps: spec.penalty_contact_steps,
            damping: spec.penalty_damping,
            liquid_friction: spec.liquid_friction,
        },
    }
}

/// Every body of a loaded scene at its initial state; mesh paths are relative to the scene
/// file, and `default_spacing` (the liquid's spacing, if the scene has liquid) samples bodies
/// whose table gives none. Problems name the scene file and the body. Each body must fit in
/// the container and a dynamic one stay clear of its walls (checked before it is sampled),
/// and no two overlap ([`placement`]).
pub fn bodies(loaded: &LoadedScene, default_spacing: Option<f64>) -> Result<Vec<RigidBody>> {
    let base = loaded.base_dir();
    let bodies = loaded
        .scene
        .body
        .iter()
        .enumerate()
        .map(|(i, s)| {
            let named = |e: Error| match e {
                Error::Input(m) => Error::input(format!(
                    "{}: body[{i}] '{}': {m}",
                    loaded.file.display(),
                    s.name
                )),
                other => other,
            };
            let shape = shape(s, &base).map_err(named)?;
            let spacing = body_spacing(s, &shape, default_spacing);
            let q = orientation(s).map_err(named)?;
            let tol = placement::tolerance(default_spacing, spacing);
            placement::check_walls(loaded, i, s, &shape, q, tol)?;
            body_of_shape(s, &shape, spacing, &base).map_err(named)
        })
        .collect::<Result<Vec<_>>>()?;
    placement::check_pairs(loaded, &bodies, default_spacing)?;
    Ok(bodies)
}

/// The notes on the scene's mesh bodies, one line each: a mesh whose faces all point inward
/// (flipped), a scale that mirrors the mesh. A mesh that cannot be read gives none here (the
/// build says why).
pub fn mesh_notes(loaded: &LoadedScene) -> Vec<String> {
    let base = loaded.base_dir();
    let mut notes = Vec::new();
    for (i, s) in loaded.scene.body.iter().enumerate() {
        if let ShapeSpec::Mesh { path, scale } = &s.shape {
            let file = base.join(path);
            let who = format!("body[{i}] '{}'", s.name);
            let v = scale.vector();
            if v.x * v.y * v.z < 0.0 {
                notes.push(format!(
                    "{who}: scale {:?} mirrors the mesh {}; its mirror image is used (faces turned outward, mass properties those of the mirrored solid)",
                    v.to_array(),
                    file.display()
                ));
            }
            let Ok(mut mesh) = read_and_scale(&file, v) else {
                continue;
            };
            if mesh
                .validate(&file.display().to_string())
                .is_ok_and(|val| val.flipped)
            {
                notes.push(format!(
                    "{who}: {}",
                    crate::output::mesh_files::flipped_note(&file)
                ));
            }
        }
    }
    notes
}

/// The shape of a checked body table in its own coordinates; meshes are read relative to
/// `base_dir` and scaled.
pub fn shape(spec: &BodySpec, base_dir: &Path) -> Result<Shape> {
    liquid_shape::solid(&spec.shape, base_dir, &format!("body '{}'", spec.name))
}

/// A body's particle spacing: the table's, else `default_spacing` (the liquid's), else the
/// shape's smallest extent / 20.
fn body_spacing(spec: &BodySpec, shape: &Shape, default_spacing: Option<f64>) -> f64 {
    let (lo, hi) = shape.bounds();
    spec.spacing
        .or(default_spacing)
        .unwrap_or_else(|| (hi - lo).min_element() / 20.0)
}

/// A checked body table's initial orientation.
fn orientation(spec: &BodySpec) -> Result<DQuat> {
    match &spec.orientation {
        Some(o) => o
            .quat(&KeyPath::new().key("orientation"))
            .map_err(|p| Error::input(format!("body '{}': {}: {}", spec.name, p.path, p.problem))),
        None => Ok(DQuat::IDENTITY),
    }
}

/// A checked body table's body at its initial state. `default_spacing` is used when the
/// table gives none (the liquid's spacing); with neither, the spacing is the body's smallest
/// extent / 20.
#[cfg_attr(not(test), allow(dead_code))]
pub fn body(spec: &BodySpec, base_dir: &Path, default_spacing: Option<f64>) -> Result<RigidBody> {
    let shape = shape(spec, base_dir)?;
    let spacing = body_spacing(spec, &shape, default_spacing);
    body_of_shape(spec, &shape, spacing, base_dir)
}

/// A checked body table's body of `shape` sampled at `spacing`, at its initial state, with its
/// motion when it has one (a keyframe file read relative to `base_dir`).
fn body_of_shape(
    spec: &BodySpec,
    shape: &Shape,
    spacing: f64,
    base_dir: &Path,
) -> Result<RigidBody> {
    let mut body = RigidBody::new(&spec.name, shape, spec.density, spacing)?;
    let q = orientation(spec)?;
    // The shape's origin goes to `position`; the state tracks the centre of mass.
    let com = shape.mass_properties(spec.density).com;
    body.state.q = q;
    body.state.x = DVec3::from_array(spec.position) + q * com;
    body.dynamic = spec.dynamic;
    body.restitution = spec.restitution;
    body.friction = spec.friction;
    body.integrator = spec.integrator.parse().map_err(Error::input)?;
    if spec.dynamic {
        body.set_velocity(DVec3::from_array(spec.velocity));
        body.set_angular_velocity(DVec3::from_array(spec.angular_velocity));
        if let Some(h) = spec.torque_impulse {
            body.apply_angular_impulse(DVec3::from_array(h));
            // The spin it gives is held to the scene's limit on angular speed.
            let w = body.angular_velocity().length();
            if w.is_nan() || w > scene::limits::MAX_ANGULAR_SPEED {
                return Err(Error::input(format!(
                    "torque_impulse: {h:?} N m s spins the body at {w:e} rad/s, faster than {:e} rad/s; fix: give the angular impulse in N m s (the body's inertia times the spin wanted)",
                    scene::limits::MAX_ANGULAR_SPEED
                )));
            }
        }
    }
    if let Some(m) = &spec.motion {
        let motion = super::motion_setup::motion(spec, m, com, base_dir)?;
        let (x0, q0) = (body.state.x, body.state.q);
        body.motion = Some(Prescribed { motion, x0, q0 });
        // It starts where its motion has it at time 0 (a keyframe motion's first pose).
        body.follow_motion(0.0, 0.0);
    }
    Ok(body)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rigid::Integrator;

    #[test]
    fn primitive_body_with_pose_and_impulse() {
        let s: BodySpec = toml::from_str(
            r#"
            name = "brick"
            shape = { type = "box", size = [1.0, 2.0, 3.0] }
            density = 1.0
            spacing = 0.25
            position = [1, 2, 3]
            orientation = { axis = [0, 0, 1], degrees = 90 }
            angular_velocity = [0, 0, 1]
            torque_impulse = [0, 0, 5]
            integrator = "rk4"
            "#,
        )
        .unwrap();
        let b = body(&s, Path::new("."), None).unwrap();
        assert_eq!(b.integrator, Integrator::Rk4);
        assert!((b.state.x - DVec3::new(1.0, 2.0, 3.0)).length() < 1e-12);
        // Izz of the 1 x 2 x 3 box is 5/12 * 6 = 2.5: L = 2.5 * 1 + 5.
        assert!((b.state.l - DVec3::new(0.0, 0.0, 7.5)).length() < 1e-12);
        assert!((b.state.q * DVec3::X - DVec3::Y).length() < 1e-12);
        // An impulse that would spin it past the scene's limit on angular speed is refused,
        // named, before the body's energy overflows (Izz = 2.5: 1e7 N m s gives 4e6 rad/s).
        let mut fast = s.clone();
        fast.torque_impulse = Some([0.0, 0.0, 1e7]);
        let e = body(&fast, Path::new("."), None).unwrap_err().to_string();
        assert!(e.contains("torque_impulse") && e.contains("fix"), "{e}");
        fast.torque_impulse = Some([0.0, 1e300, 0.0]);
        assert!(body(&fast, Path::new("."), None).is_err());
    }

    #[test]
    fn the_particle_count_is_the_lattice_that_liquid_fills() {
        let text = "[time]\nfps = 30\n[[liquid]]\nmin = [0.0, 0.0, 0.0]\nmax = [0.1, 0.05, 0.1]\n\
            spacing = 0.01\n[[liquid]]\nmin = [0.2, 0.0, 0.0]\nmax = [0.255, 0.1, 0.03]\n\
            spacing = 0.01\n";
        let l = crate::scene::parse(text.into(), Path::new("t.toml"), &[]).unwrap();
        assert_eq!(particle_count(&l.scene), liquid(&l.scene).particles.len());
        assert_eq!(particle_count(&l.scene), 10 * 5 * 10 + 5 * 10 * 3);
    }
}
