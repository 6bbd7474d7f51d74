//! `sphrigid bench`: time the step of a scene, phase by phase.
use crate::backend::Backend;
use crate::gpu::Timing;
use crate::output::fluid_frames::encode_fluid;
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
    /// Run three sizes (1x, 2x and 4x the scene's particles, by a finer spacing) to show how
    /// the cost grows with the number of particles.
    #[arg(long)]
    pub sizes: bool,
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
    /// How `phase_ms` was measured.
    pub phase_timing: String,
    /// The GPU adapter (GPU backend only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub adapter: Option<String>,
    /// GPU memory allocated per liquid particle, bytes (GPU backend only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub gpu_bytes_per_particle: Option<f64>,
    /// Particle-steps per second relative to the CPU backend on the same scene and size.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub speedup_vs_cpu: Option<f64>,
}

/// Milliseconds per step in each phase over the last `steps` steps, and for `output` the time
/// to bring the particles back (a GPU download) and write one frame.
fn phase_ms(sim: &mut Simulation, steps: u32) -> Result<std::collections::BTreeMap<String, f64>> {
    let dir = tempfile_dir()?;
    let path = dir.join("bench_frame.ply");
    let out_t = Instant::now();
    sim.sync_particles()?;
    write_atomic(
        &path,
        &encode_fluid(sim.particles(), sim.liquid.params(), 0, sim.time),
    )?;
    let out_ms = out_t.elapsed().as_secs_f64() * 1e3;
    let _ = std::fs::remove_file(&path);
    Ok(Phase::ALL
        .iter()
        .map(|&ph| {
            let ms = if ph == Phase::Output {
                out_ms
            } else {
                sim.times.get(ph).as_secs_f64() * 1e3 / steps as f64
            };
            (ph.name().to_string(), ms)
        })
        .collect())
}

/// Time `steps` steps of a scene on the CPU backend.
pub fn bench_cpu(loaded: &scene::LoadedScene, steps: u32) -> Result<BenchResult> {
    let mut sim = Simulation::setup(loaded, Backend::Cpu)?;
    for _ in 0..2 {
        sim.step()?;
    }
    sim.times = PhaseTimes::default();
    let t = Instant::now();
    for _ in 0..steps {
        sim.step()?;
    }
    let wall = t.elapsed().as_secs_f64();
    let phase_ms = phase_ms(&mut sim, steps)?;
    Ok(BenchResult {
        backend: Backend::Cpu.name().into(),
        particles: sim.particles().len(),
        steps,
        particle_steps_per_s: sim.particles().len() as f64 * steps as f64 / wall,
        ms_per_step: wall * 1e3 / steps as f64,
        phase_ms,
        threads: rayon::current_num_threads(),
        phase_timing: "wall clock".into(),
        adapter: None,
        gpu_bytes_per_particle: None,
        speedup_vs_cpu: None,
    })
}

/// Time `steps` steps of a scene on the GPU backend: throughput from steps submitted back to
/// back, then phase times from up to 10 more steps with GPU timestamps around each phase
/// (where the adapter has them) or each phase submitted and waited for on its own.
pub fn bench_gpu(loaded: &scene::LoadedScene, steps: u32) -> Result<BenchResult> {
    let mut sim = Simulation::setup(loaded, Backend::Gpu)?;
    for _ in 0..2 {
        sim.step()?;
    }
    sim.liquid.wait()?;
    let t = Instant::now();
    for _ in 0..steps {
        sim.step()?;
    }
    sim.liquid.wait()?;
    let wall = t.elapsed().as_secs_f64();
    sim.sync_particles()?;
    let device = sim.liquid.device().expect("a GPU simulation");
    let (timing, label) = if device.timestamps {
        (Timing::Timestamps, "GPU timestamps per phase")
    } else {
        (
            Timing::Wall,
            "wall clock per phase (each phase submitted and waited for; the adapter has no timestamps)",
        )
    };
    let (adapter, bpp) = (device.adapter, device.bytes_per_particle);
    sim.gpu_timing = timing;
    sim.times = PhaseTimes::default();
    let profiled = steps.min(10);
    for _ in 0..profiled {
        sim.step()?;
    }
    let phase_ms = phase_ms(&mut sim, profiled)?;
    Ok(BenchResult {
        backend: Backend::Gpu.name().into(),
        particles: sim.particles().len(),
        steps,
        particle_steps_per_s: sim.particles().len() as f64 * steps as f64 / wall,
        ms_per_step: wall * 1e3 / steps as f64,
        phase_ms,
        threads: rayon::current_num_threads(),
        phase_timing: label.into(),
        adapter: Some(adapter),
        gpu_bytes_per_particle: Some(bpp),
        speedup_vs_cpu: None,
    })
}

/// The scene with `factor` times the particles (every block's spacing divided by the cube
/// root of `factor`).
fn scaled(loaded: &scene::LoadedScene, factor: f64) -> scene::LoadedScene {
    let mut l = loaded.clone();
    for b in &mut l.scene.liquid {
        b.spacing /= factor.cbrt();
    }
    l
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
    let mut backends = Vec::new();
    for name in args.backend.split(',').map(str::trim) {
        let (backend, why) = Backend::choose(name)?;
        if !args.json {
            eprintln!("{why}");
        }
        backends.push(backend);
    }
    let factors: &[f64] = if args.sizes { &[1.0, 2.0, 4.0] } else { &[1.0] };
    let mut results: Vec<BenchResult> = Vec::new();
    for &f in factors {
        let l = scaled(&loaded, f);
        let first = results.len();
        for &backend in &backends {
            results.push(match backend {
                Backend::Cpu => bench_cpu(&l, args.steps)?,
                Backend::Gpu => bench_gpu(&l, args.steps)?,
            });
        }
        let cpu = results[first..]
            .iter()
            .find(|r| r.backend == "cpu")
            .map(|r| r.particle_steps_per_s);
        if let Some(cpu) = cpu {
            for r in &mut results[first..] {
                if r.backend != "cpu" {
                    r.speedup_vs_cpu = Some(r.particle_steps_per_s / cpu);
                }
            }
        }
    }
    if args.json {
        let v = if results.len() == 1 {
            serde_json::to_value(&results[0])
        } else {
            serde_json::to_value(serde_json::json!({
                "scene": args.scene.display().to_string(),
                "results": results,
            }))
        };
        return super::print_out(&format!("{}\n", v.expect("results serialise")));
    }
    super::print_out(&table(&args, &results))
}

/// The results as a text table, one line per backend and size.
fn table(args: &BenchArgs, results: &[BenchResult]) -> String {
    use std::fmt::Write;
    let mut o = String::new();
    let _ = writeln!(
        o,
        "scene {}  {} timed steps per run",
        args.scene.display(),
        args.steps
    );
    for r in results {
        let what = match &r.adapter {
            Some(a) => format!("gpu: {a}"),
            None => format!("cpu: {} threads", r.threads),
        };
        if !results[..]
            .iter()
            .take_while(|x| !std::ptr::eq(*x, r))
            .any(|x| x.backend == r.backend)
        {
            let _ = writeln!(o, "  {what}; phase times: {}", r.phase_timing);
        }
    }
    let phases: Vec<&str> = Phase::ALL.iter().map(|p| p.name()).collect();
    let _ = write!(
        o,
        "{:>10} {:>7} {:>16} {:>9}",
        "particles", "backend", "particle-steps/s", "ms/step"
    );
    for p in &phases {
        let _ = write!(o, " {p:>10}");
    }
    let _ = writeln!(o, " {:>8} {:>14}", "speed-up", "GPU B/particle");
    for r in results {
        let _ = write!(
            o,
            "{:>10} {:>7} {:>16.3e} {:>9.3}",
            r.particles, r.backend, r.particle_steps_per_s, r.ms_per_step
        );
        for p in &phases {
            let _ = write!(o, " {:>10.3}", r.phase_ms.get(*p).copied().unwrap_or(0.0));
        }
        let sp = r
            .speedup_vs_cpu
            .map_or("-".to_string(), |s| format!("{s:.2}x"));
        let bpp = r
            .gpu_bytes_per_particle
            .map_or("-".to_string(), |b| format!("{b:.1}"));
        let _ = writeln!(o, " {sp:>8} {bpp:>14}");
    }
    let _ = writeln!(
        o,
        "  (phase columns: ms per step; output: ms per frame written)"
    );
    o
}
