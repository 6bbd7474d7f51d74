//! `sphrigid check`: validate a scene and summarise it without running it.
use crate::backend::Backend;
use crate::sim::{Simulation, build, cfl};
use crate::{Result, scene};
use std::path::PathBuf;

/// Arguments of `sphrigid check`.
#[derive(Debug, clap::Args)]
pub struct CheckArgs {
    /// The scene file (TOML).
    pub scene: PathBuf,
    /// Override a scene value by its dotted path.
    #[arg(long = "set", value_name = "KEY=VALUE")]
    pub set: Vec<String>,
}

/// CPU memory per liquid particle, bytes, measured: the peak resident memory that setting up
/// the scene on the CPU backend and taking one step add, over the particles. `None` without
/// particles, or where the system cannot tell (not Linux).
pub fn measured_bytes_per_particle(loaded: &scene::LoadedScene) -> Result<Option<f64>> {
    let (n, added) = super::memory::peak_added(|| -> Result<usize> {
        let mut sim = Simulation::setup(loaded, Backend::Cpu)?;
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
    let liquid = build::liquid(s);
    let (params, particles) = (&liquid.params, &liquid.particles);
    let mass: f64 = particles
        .phase
        .iter()
        .map(|&ph| params.phases[ph as usize].mass as f64)
        .fold(0.0, |a, m| a + m);
    let (substeps, dt) = (liquid.substeps, liquid.dt);
    println!("scene {}: ok", args.scene.display());
    println!("  liquid blocks      {}", s.liquid.len());
    if !particles.is_empty() {
        println!("  particles          {}", particles.len());
        println!("  total mass         {mass:.6} kg");
        println!(
            "  spacing            {} m (radius {} m)",
            params.spacing,
            params.spacing / 2.0
        );
        println!("  kernel radius h    {} m", params.h);
        println!(
            "  rest kernel sum    {:.6} (rho0, measured on the lattice)",
            params.rho0
        );
    }
    println!(
        "  frames             {} at {} fps ({} s)",
        s.time.frames,
        s.time.fps,
        s.time.frames as f64 / s.time.fps
    );
    let stable = liquid.stable_dt;
    if stable.is_finite() {
        println!(
            "  step               {dt:.3e} s, {substeps} per frame (stable step {stable:.3e} s)"
        );
    } else {
        println!("  step               {dt:.3e} s, {substeps} per frame");
    }
    if let Some(excess) = cfl::check(&loaded, &liquid) {
        eprintln!("warning: {}", excess.to_error(&loaded));
    }
    println!(
        "  steps in all       {}",
        substeps as u64 * s.time.frames as u64
    );
    let bodies = build::bodies(&loaded, liquid.spacing)?;
    let inside = crate::coupling::inside::inside_bodies(particles, &bodies);
    let removed = inside.iter().filter(|&&f| f).count();
    if removed > 0 {
        println!(
            "  liquid in bodies   {removed} particles start inside a body and are removed at setup"
        );
    }
    for b in &bodies {
        let i = b.inertia.body;
        println!(
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
    let joints = build::joints(&loaded, &bodies)?;
    for (j, spec) in joints.iter().zip(&s.joint) {
        println!(
            "  joint {:12} {} linking {} and {}, {} rows",
            j.name,
            j.kind.name(),
            spec.bodies[0],
            spec.bodies[1],
            j.kind.rows()
        );
    }
    let disk = (particles.len() * 32) as f64 / (1 << 20) as f64;
    match measured_bytes_per_particle(&loaded)? {
        Some(b) => println!(
            "  memory             {:.1} MiB (CPU: {b:.0} B per particle, measured over setup and one step), {disk:.1} MiB per frame on disk",
            b * particles.len() as f64 / (1 << 20) as f64
        ),
        None => println!(
            "  memory             not measured here (CPU), {disk:.1} MiB per frame on disk"
        ),
    }
    println!("  output             {}", loaded.output_dir(None).display());
    Ok(())
}
