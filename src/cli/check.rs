//! `sphrigid check`: validate a scene and summarise it without running it.
use crate::sim::{build, cfl};
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

/// Bytes of CPU memory per liquid particle: position, previous position, velocity, scratch
/// velocity and displacement (16 each), id, phase, kernel sums, pressures, cell (4 each) and
/// the grid's permutation (4).
pub const CPU_BYTES_PER_PARTICLE: usize = 5 * 16 + 8 * 4;

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
    println!(
        "  memory estimate    {:.1} MiB (CPU), {:.1} MiB per frame on disk",
        (particles.len() * CPU_BYTES_PER_PARTICLE) as f64 / (1 << 20) as f64,
        (particles.len() * 32) as f64 / (1 << 20) as f64
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
    println!("  output             {}", loaded.output_dir(None).display());
    Ok(())
}
