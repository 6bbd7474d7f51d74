//! `sphrigid bench`: time the step of a scene, phase by phase.
use crate::backend::Backend;
use crate::output::frames::encode_fluid;
use crate::output::write_atomic;
use crate::sim::Simulation;
use crate::timing::{Phase, PhaseTimes};
use crate::{Error, Result, scene};
use std::path::PathBuf;
use std::time::Instant;

/// Arguments of `sphrigid bench`.
#[derive(Debug, clap::Args)]
pub struct BenchArgs {
    /// The scene file (TOML).
    pub scene: PathBuf,
    /// Backends to time, comma-separated.
    #[arg(long, default_value = "cpu")]
    pub backend: String,
    /// Steps to time (after two warm-up steps).
    #[arg(long, default_value_t = 50)]
    pub steps: u32,
    /// Print one JSON object instead of a table.
    #[arg(long)]
    pub json: bool,
    /// Override a scene value by its dotted path.
    #[arg(long = "set", value_name = "KEY=VALUE")]
    pub set: Vec<String>,
}

/// The figures of one benchmark run.
#[derive(Debug, Clone, serde::Serialize)]
pub struct BenchResult {
    /// Backend name.
    pub backend: String,
    /// Liquid particles.
    pub particles: usize,
    /// Steps timed.
    pub steps: u32,
    /// Particle-steps per second over the timed steps.
    pub particle_steps_per_s: f64,
    /// Milliseconds per step.
    pub ms_per_step: f64,
    /// Milliseconds per step in each phase; `output` is per frame written.
    pub phase_ms: std::collections::BTreeMap<String, f64>,
    /// Worker threads.
    pub threads: usize,
}

/// Time `steps` steps of a scene on the CPU backend.
pub fn bench_cpu(loaded: &scene::LoadedScene, steps: u32) -> Result<BenchResult> {
    let mut sim = Simulation::with_bodies(&loaded.scene, &loaded.file)?;
    for _ in 0..2 {
        sim.step()?;
    }
    sim.times = PhaseTimes::default();
    let t = Instant::now();
    for _ in 0..steps {
        sim.step()?;
    }
    let wall = t.elapsed().as_secs_f64();
    let dir = tempfile_dir()?;
    let path = dir.join("bench_frame.ply");
    let out_t = Instant::now();
    write_atomic(
        &path,
        &encode_fluid(&sim.particles, &sim.liquid.params, 0, sim.time),
    )?;
    let out_ms = out_t.elapsed().as_secs_f64() * 1e3;
    let _ = std::fs::remove_file(&path);
    let mut phase_ms = std::collections::BTreeMap::new();
    for ph in Phase::ALL {
        let ms = if ph == Phase::Output {
            out_ms
        } else {
            sim.times.get(ph).as_secs_f64() * 1e3 / steps as f64
        };
        phase_ms.insert(ph.name().to_string(), ms);
    }
    Ok(BenchResult {
        backend: Backend::Cpu.name().into(),
        particles: sim.particles.len(),
        steps,
        particle_steps_per_s: sim.particles.len() as f64 * steps as f64 / wall,
        ms_per_step: wall * 1e3 / steps as f64,
        phase_ms,
        threads: rayon::current_num_threads(),
    })
}

fn tempfile_dir() -> Result<PathBuf> {
    let dir = std::env::temp_dir().join(format!("sphrigid-bench-{}", std::process::id()));
    crate::output::create_dir(&dir)?;
    Ok(dir)
}

/// Run `sphrigid bench`.
pub fn run(args: BenchArgs) -> Result<()> {
    let loaded = scene::load(&args.scene, &args.set)?;
    if args.steps == 0 {
        return Err(Error::input(
            "--steps 0: nothing to time; fix: use --steps 1 or more",
        ));
    }
    let mut results = Vec::new();
    for name in args.backend.split(',').map(str::trim) {
        let (backend, _) = Backend::choose(name)?;
        match backend {
            Backend::Cpu => results.push(bench_cpu(&loaded, args.steps)?),
        }
    }
    if args.json {
        let v = if results.len() == 1 {
            serde_json::to_value(&results[0])
        } else {
            serde_json::to_value(serde_json::json!({ "results": results }))
        };
        println!("{}", v.expect("results serialise"));
        return Ok(());
    }
    for r in &results {
        println!(
            "scene {}  backend {} ({} threads)",
            args.scene.display(),
            r.backend,
            r.threads
        );
        println!("  particles              {}", r.particles);
        println!("  steps                  {}", r.steps);
        println!("  particle-steps/s       {:.3e}", r.particle_steps_per_s);
        println!("  ms per step            {:.3}", r.ms_per_step);
        for (name, ms) in &r.phase_ms {
            let unit = if name == "output" {
                "ms per frame"
            } else {
                "ms per step"
            };
            println!("    {name:<12} {ms:>9.3} {unit}");
        }
    }
    Ok(())
}
