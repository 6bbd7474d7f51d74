//! `sphrigid check`: validate a scene and summarise it without running it.
use crate::backend::Backend;
use crate::sim::footprint::{self, Footprint};
use crate::sim::{Simulation, build, cfl, step_counts};
use crate::{Result, scene};
use std::fmt::Write;
use std::path::PathBuf;

/// Arguments of `sphrigid check`.
#[derive(Debug, clap::Args)]
pub struct CheckArgs {
    /// The scene file (TOML).
    pub scene: PathBuf,
    /// Override a scene value by its dotted path.
    #[arg(long = "set", value_name = "KEY=VALUE")]
    pub set: Vec<String>,
    /// Refuse a scene whose estimated memory (CPU backend) exceeds this, e.g. 4G (default:
    /// the memory available).
    #[arg(long, value_name = "SIZE", value_parser = footprint::parse_size)]
    pub max_memory: Option<u64>,
}

/// CPU memory per liquid particle, bytes, measured: the peak resident memory that setting up
/// the scene on the CPU backend (unsettled: settling allocates nothing more) and taking one
/// step add, over the particles. `None` without
/// particles, or where the system cannot tell (not Linux).
pub fn measured_bytes_per_particle(loaded: &scene::LoadedScene) -> Result<Option<f64>> {
    let (n, added) = super::memory::peak_added(|| -> Result<usize> {
        let mut sim = Simulation::setup_unsettled(loaded, Backend::Cpu)?;
        sim.liquid.update_densities()?;
        // A step that fails (a contact problem unsolved) still has its buffers in place.
        let _ = sim.step();
        Ok(sim.particles().len())
    });
    let n = n?;
    Ok(added.filter(|_| n > 0).map(|b| b as f64 / n as f64))
}

/// Run `sphrigid check`.
pub fn run(args: CheckArgs) -> Result<()> {
    let loaded = scene::load(&args.scene, &args.set)?;
    let s = &loaded.scene;
    // Before a particle is made: the count and the memory they need.
    let fp = Footprint::of(s);
    fp.guard(&args.scene, Backend::Cpu, args.max_memory)?;
    // The steps it derives, before the particles are made.
    step_counts::check(&loaded)?;
    let mut o = String::new();
    let liquid = build::liquid(s);
    let (params, particles) = (&liquid.params, &liquid.particles);
    let mass: f64 = particles
        .phase
        .iter()
        .map(|&ph| params.phases[ph as usize].mass as f64)
        .fold(0.0, |a, m| a + m);
    let (substeps, dt) = (liquid.substeps, liquid.dt);
    let _ = writeln!(o, "scene {}: ok", args.scene.display());
    let _ = writeln!(o, "  liquid blocks      {}", s.liquid.len());
    let emitted = crate::sim::footprint::emitted(s);
    if emitted > 0.0 {
        let _ = writeln!(
            o,
            "  emitters           {} (and {} outlets): at most {} particles by the end of the run, {} at time 0; buffers are set aside for them at setup",
            s.emitter.len(),
            s.outlet.len(),
            particles.len() + emitted as usize,
            particles.len()
        );
    }
    if !particles.is_empty() {
        let _ = writeln!(o, "  particles          {}", particles.len());
        let _ = writeln!(o, "  total mass         {mass:.6} kg");
        let _ = writeln!(
            o,
            "  spacing            {} m (radius {} m)",
            params.spacing,
            params.spacing / 2.0
        );
        let _ = writeln!(o, "  kernel radius h    {} m", params.h);
        let _ = writeln!(
            o,
            "  rest kernel sum    {:.6} (rho0, {})",
            params.rho0,
            if s.solver.packed_rest {
                "of the face-centred packing at the lattice's volume"
            } else {
                "of the filled lattice"
            }
        );
    }
    let _ = writeln!(
        o,
        "  frames             {} at {} fps ({} s)",
        s.time.frames,
        s.time.fps,
        s.time.frames as f64 / s.time.fps
    );
    let stable = liquid.stable_dt;
    if stable.is_finite() {
        let _ = writeln!(
            o,
            "  step               {dt:.3e} s, {substeps} per frame (stable step {stable:.3e} s)"
        );
    } else {
        let _ = writeln!(o, "  step               {dt:.3e} s, {substeps} per frame");
    }
    if let Some(excess) = cfl::check(&loaded, &build::stepping(s)) {
        eprintln!("warning: {}", excess.to_error(&loaded));
    }
    let _ = writeln!(
        o,
        "  steps in all       {}",
        substeps as u64 * s.time.frames as u64
    );
    if liquid.settle.steps > 0 && !particles.is_empty() {
        let _ = writeln!(
            o,
            "  settling           {} steps ({:.3} s) before time 0, velocities kept {:.4} a step",
            liquid.settle.steps,
            liquid.settle.steps as f64 * dt,
            liquid.settle.keep
        );
    }
    let _ = writeln!(
        o,
        "  memory estimate    {} (CPU backend), {} host + {} GPU (GPU backend), {} per frame on disk",
        footprint::mib(fp.cpu_bytes),
        footprint::mib(fp.gpu_host_bytes),
        footprint::mib(fp.gpu_device_bytes),
        footprint::mib((particles.len() * 32) as f64)
    );
    // The GPU's buffers hold every particle the run can have (the emitters' too).
    let capacity = particles.len() + emitted as usize;
    if !particles.is_empty() {
        let _ = match crate::gpu::GpuLiquidSolver::bytes_needed_for(params, particles, capacity) {
            Ok(b) => writeln!(
                o,
                "  GPU memory         {} ({:.1} B per particle: the GPU backend's buffers, counted as bench counts them; bodies add 40 B per boundary particle)",
                footprint::mib(b as f64),
                b as f64 / capacity as f64
            ),
            Err(e) => writeln!(
                o,
                "  GPU memory         none: the GPU backend refuses the scene: {e}"
            ),
        };
        let _ = writeln!(
            o,
            "  GPU bindings       {}",
            crate::gpu::split::check_line(capacity as u64)
        );
    }
    let bodies = build::bodies(&loaded, liquid.spacing)?;
    for note in build::mesh_notes(&loaded) {
        eprintln!("note: {note}");
    }
    let inside = crate::coupling::inside::inside_bodies(particles, &bodies);
    let removed = inside.iter().filter(|&&f| f).count();
    if removed > 0 {
        let _ = writeln!(
            o,
            "  liquid in bodies   {removed} particles start inside a body and are removed at setup"
        );
    }
    for b in &bodies {
        let i = b.inertia.body;
        let _ = writeln!(
            o,
            "  body {:13} {} {}, mass {:.6} kg, {} particles (spacing {} m), inertia diag [{:.6e}, {:.6e}, {:.6e}] kg m^2, {}",
            b.name,
            if b.dynamic { "dynamic" } else { "static" },
            match &b.shape {
                crate::rigid::Shape::Primitive(p) => p.kind(),
                crate::rigid::Shape::Mesh(_) => "mesh",
            },
            b.mass(),
            b.clump.len(),
            b.clump.spacing,
            i.x_axis.x,
            i.y_axis.y,
            i.z_axis.z,
            b.integrator.name()
        );
    }
    let joints = crate::sim::joint_setup::joints(&loaded, &bodies)?;
    for (j, spec) in joints.iter().zip(&s.joint) {
        let _ = writeln!(
            o,
            "  joint {:12} {} linking {} and {}, {} rows",
            j.name,
            j.kind.name(),
            spec.bodies[0],
            spec.bodies[1],
            j.kind.rows()
        );
    }
    let disk = (particles.len() * 32) as f64 / (1 << 20) as f64;
    // The measurement sets the scene up again: only worth it with liquid to count.
    let measured = if particles.is_empty() {
        None
    } else {
        measured_bytes_per_particle(&loaded)?
    };
    let _ = match measured {
        Some(b) => writeln!(
            o,
            "  memory measured    {:.1} MiB (CPU: {b:.0} B per particle, over setup and one step), {disk:.1} MiB per frame on disk",
            b * particles.len() as f64 / (1 << 20) as f64
        ),
        None => writeln!(
            o,
            "  memory measured    none per particle (no liquid, or a system without /proc), {disk:.1} MiB per frame on disk"
        ),
    };
    let _ = writeln!(
        o,
        "  output             {}",
        loaded.output_dir(None).display()
    );
    super::print_out(&o)
}
