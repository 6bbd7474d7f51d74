//! `sphrigid bench`: time the step of a scene, phase by phase.
use crate::backend::Backend;
use crate::gpu::Timing;
use crate::output::fluid_frames::encode_fluid;
use crate::output::rigid_frames::RigidFrameWriter;
use crate::output::rigid_states::StatesWriter;
use crate::output::{RunDir, write_atomic};
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
    /// Run these sizes instead, comma-separated particle counts (e.g. 250000,1000000): each
    /// by the spacing that gives about that many.
    #[arg(long, value_name = "N,...")]
    pub particles: Option<String>,
    /// Simulate this many frames untimed first (so that a body is in contact), then time.
    #[arg(long, value_name = "F", default_value_t = 0)]
    pub from_frame: u32,
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
    /// Rigid bodies.
    pub bodies: usize,
    /// Frames simulated untimed before the timed steps.
    pub from_frame: u32,
    /// Steps timed.
    pub steps: u32,
    /// Particle-steps per second over the timed steps.
    pub particle_steps_per_s: f64,
    /// Milliseconds per step.
    pub ms_per_step: f64,
    /// Milliseconds per step in each phase; `output` and `rigid_output` are per frame
    /// written; `coupling` is the sum of the coupling's phases per step.
    pub phase_ms: std::collections::BTreeMap<String, f64>,
    /// Milliseconds per step in the liquid's own phases (frames written aside).
    pub liquid_ms: f64,
    /// The coupling's milliseconds per step over the liquid's.
    pub coupling_over_liquid: f64,
    /// CPU memory per liquid particle, bytes, measured: the peak resident memory that setting
    /// up and stepping the scene added, over the particles (CPU backend, Linux only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cpu_bytes_per_particle: Option<f64>,
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
    /// Compute dispatches per step over the timed steps (GPU backend only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub gpu_dispatches_per_step: Option<f64>,
    /// The GPU step's paths: neighbour passes `tiled` or `untiled`, the prefix sum with
    /// `subgroups` or `no subgroups` (GPU backend only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub gpu_path: Option<String>,
    /// Particle-steps per second relative to the CPU backend on the same scene and size.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub speedup_vs_cpu: Option<f64>,
}

/// Milliseconds per step in each phase over the last `steps` steps, with their `coupling`
/// total; for `output` the time to bring the particles back (a GPU download) and write one
/// frame, for `rigid_output` to write the bodies' frames and states of one frame.
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
    let mut rigid_ms = 0.0;
    if !sim.bodies.is_empty() {
        let run = RunDir::new(&dir.join("rigid_run"));
        let t = Instant::now();
        RigidFrameWriter::new(&run)?.write_frame(&sim.bodies, 0, sim.time)?;
        StatesWriter::new(&run).write_frame(&sim.bodies, 0, sim.time)?;
        rigid_ms = t.elapsed().as_secs_f64() * 1e3;
        let _ = std::fs::remove_dir_all(run.path());
    }
    let per_step = |ph: Phase| sim.times.get(ph).as_secs_f64() * 1e3 / steps as f64;
    let mut out: std::collections::BTreeMap<String, f64> = Phase::ALL
        .iter()
        .map(|&ph| {
            let ms = match ph {
                Phase::Output => out_ms,
                Phase::RigidOutput => rigid_ms,
                _ => per_step(ph),
            };
            (ph.name().to_string(), ms)
        })
        .collect();
    let coupling = sim.times.sum(&Phase::COUPLING).as_secs_f64() * 1e3 / steps as f64;
    out.insert("coupling".into(), coupling);
    Ok(out)
}

/// The figures of a run of `steps` timed steps that took `wall` seconds.
fn result(
    sim: &Simulation,
    backend: Backend,
    steps: u32,
    from_frame: u32,
    wall: f64,
    phase_ms: std::collections::BTreeMap<String, f64>,
) -> BenchResult {
    let liquid_ms = Phase::LIQUID
        .iter()
        .map(|p| phase_ms.get(p.name()).copied().unwrap_or(0.0))
        .sum::<f64>();
    let coupling = phase_ms.get("coupling").copied().unwrap_or(0.0);
    BenchResult {
        backend: backend.name().into(),
        particles: sim.particles().len(),
        bodies: sim.bodies.len(),
        from_frame,
        steps,
        particle_steps_per_s: sim.particles().len() as f64 * steps as f64 / wall,
        ms_per_step: wall * 1e3 / steps as f64,
        phase_ms,
        liquid_ms,
        coupling_over_liquid: if liquid_ms > 0.0 {
            coupling / liquid_ms
        } else {
            0.0
        },
        cpu_bytes_per_particle: None,
        threads: rayon::current_num_threads(),
        phase_timing: "wall clock".into(),
        adapter: None,
        gpu_bytes_per_particle: None,
        gpu_dispatches_per_step: None,
        gpu_path: None,
        speedup_vs_cpu: None,
    }
}

/// Set up a scene and simulate `from_frame` frames and two more steps untimed.
fn prepared(loaded: &scene::LoadedScene, backend: Backend, from_frame: u32) -> Result<Simulation> {
    let mut sim = Simulation::setup(loaded, backend)?;
    sim.liquid.update_densities()?;
    for _ in 0..from_frame {
        sim.advance_frame()?;
    }
    for _ in 0..2 {
        sim.step()?;
    }
    Ok(sim)
}

/// Time `steps` steps of a scene on the CPU backend, after `from_frame` frames untimed; the
/// memory that setting up and stepping adds is measured too.
pub fn bench_cpu(loaded: &scene::LoadedScene, steps: u32, from_frame: u32) -> Result<BenchResult> {
    let (timed, added) = super::memory::peak_added(|| -> Result<_> {
        let mut sim = prepared(loaded, Backend::Cpu, from_frame)?;
        sim.times = PhaseTimes::default();
        let t = Instant::now();
        for _ in 0..steps {
            sim.step()?;
        }
        let wall = t.elapsed().as_secs_f64();
        Ok((sim, wall))
    });
    let (mut sim, wall) = timed?;
    let phase_ms = phase_ms(&mut sim, steps)?;
    let mut r = result(&sim, Backend::Cpu, steps, from_frame, wall, phase_ms);
    let n = sim.particles().len();
    r.cpu_bytes_per_particle = added.filter(|_| n > 0).map(|b| b as f64 / n as f64);
    Ok(r)
}

/// Time `steps` steps of a scene on the GPU backend: throughput from steps submitted back to
/// back, then phase times from up to 10 more steps with GPU timestamps around each phase
/// (where the adapter has them) or each phase submitted and waited for on its own.
pub fn bench_gpu(loaded: &scene::LoadedScene, steps: u32, from_frame: u32) -> Result<BenchResult> {
    let mut sim = prepared(loaded, Backend::Gpu, from_frame)?;
    sim.liquid.wait()?;
    let dispatched = |sim: &Simulation| sim.liquid.device().map_or(0, |d| d.dispatches);
    let before = dispatched(&sim);
    let t = Instant::now();
    for _ in 0..steps {
        sim.step()?;
    }
    sim.liquid.wait()?;
    let wall = t.elapsed().as_secs_f64();
    let dispatches = (dispatched(&sim) - before) as f64 / steps.max(1) as f64;
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
    let (adapter, bpp, path) = (device.adapter, device.bytes_per_particle, device.path);
    sim.gpu_timing = timing;
    sim.times = PhaseTimes::default();
    let profiled = steps.min(10);
    for _ in 0..profiled {
        sim.step()?;
    }
    let phase_ms = phase_ms(&mut sim, profiled)?;
    Ok(BenchResult {
        phase_timing: label.into(),
        adapter: Some(adapter),
        gpu_bytes_per_particle: Some(bpp),
        gpu_dispatches_per_step: Some(dispatches),
        gpu_path: Some(path),
        ..result(&sim, Backend::Gpu, steps, from_frame, wall, phase_ms)
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

/// The factors of the scene's particle count to run: `--particles` counts over the scene's
/// own, or 1x, 2x, 4x for `--sizes`, or 1x.
fn size_factors(args: &BenchArgs, loaded: &scene::LoadedScene) -> Result<Vec<f64>> {
    let Some(list) = &args.particles else {
        return Ok(if args.sizes {
            vec![1.0, 2.0, 4.0]
        } else {
            vec![1.0]
        });
    };
    let base = crate::sim::build::particle_count(&loaded.scene);
    if base == 0 {
        return Err(Error::input(
            "--particles: the scene has no liquid to scale; fix: add a [[liquid]] block or drop --particles",
        ));
    }
    list.split(',')
        .map(|n| match n.trim().parse::<u64>() {
            Ok(n) if n > 0 => Ok(n as f64 / base as f64),
            _ => Err(Error::input(format!(
                "--particles {list}: '{}' is not a positive whole number; fix: give counts like 250000,1000000",
                n.trim()
            ))),
        })
        .collect()
}

fn tempfile_dir() -> Result<PathBuf> {
    let dir = std::env::temp_dir().join(format!("sphrigid-bench-{}", std::process::id()));
    crate::output::create_dir(&dir)?;
    Ok(dir)
}

/// Run `sphrigid bench`.
pub fn run(args: BenchArgs) -> Result<()> {
    let loaded = scene::load(&args.scene, &args.set)?;
    if args.sizes && args.particles.is_some() {
        return Err(Error::input(
            "--sizes and --particles both choose the sizes; fix: use one of them",
        ));
    }
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
    let factors = size_factors(&args, &loaded)?;
    let mut results: Vec<BenchResult> = Vec::new();
    for &f in &factors {
        let l = scaled(&loaded, f);
        let first = results.len();
        for &backend in &backends {
            results.push(match backend {
                Backend::Cpu => bench_cpu(&l, args.steps, args.from_frame)?,
                Backend::Gpu => bench_gpu(&l, args.steps, args.from_frame)?,
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
        "scene {}  {} timed steps per run{}",
        args.scene.display(),
        args.steps,
        if args.from_frame > 0 {
            format!(", after {} frames untimed", args.from_frame)
        } else {
            String::new()
        }
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
    // The coupling's columns only where there are bodies.
    let bodies = results.iter().any(|r| r.bodies > 0);
    let mut phases: Vec<&str> = Phase::ALL
        .iter()
        .filter(|p| bodies || !Phase::COUPLING.contains(p) && **p != Phase::RigidOutput)
        .map(|p| p.name())
        .collect();
    if bodies {
        phases.push("coupling");
    }
    let _ = write!(
        o,
        "{:>10} {:>7} {:>16} {:>9}",
        "particles", "backend", "particle-steps/s", "ms/step"
    );
    for p in &phases {
        let _ = write!(o, " {p:>12}");
    }
    let _ = writeln!(
        o,
        " {:>8} {:>14} {:>14} {:>15}  GPU path",
        "speed-up", "CPU B/particle", "GPU B/particle", "dispatches/step"
    );
    for r in results {
        let _ = write!(
            o,
            "{:>10} {:>7} {:>16.3e} {:>9.3}",
            r.particles, r.backend, r.particle_steps_per_s, r.ms_per_step
        );
        for p in &phases {
            let _ = write!(o, " {:>12.3}", r.phase_ms.get(*p).copied().unwrap_or(0.0));
        }
        let sp = r
            .speedup_vs_cpu
            .map_or("-".to_string(), |s| format!("{s:.2}x"));
        let bytes = |b: Option<f64>| b.map_or("-".to_string(), |b| format!("{b:.1}"));
        let (cpu, gpu, dispatches) = (
            bytes(r.cpu_bytes_per_particle),
            bytes(r.gpu_bytes_per_particle),
            bytes(r.gpu_dispatches_per_step),
        );
        let path = r.gpu_path.as_deref().unwrap_or("-");
        let _ = writeln!(o, " {sp:>8} {cpu:>14} {gpu:>14} {dispatches:>15}  {path}");
    }
    if bodies {
        let _ = writeln!(
            o,
            "  (phase columns: ms per step; output and rigid_output: ms per frame written; coupling: the sum of boundary to bodies)"
        );
        for r in results {
            let _ = writeln!(
                o,
                "  {} particles, {}: coupling {:.1}% of the liquid's {:.3} ms per step",
                r.particles,
                r.backend,
                100.0 * r.coupling_over_liquid,
                r.liquid_ms
            );
        }
    } else {
        let _ = writeln!(
            o,
            "  (phase columns: ms per step; output: ms per frame written)"
        );
    }
    let _ = writeln!(
        o,
        "  (CPU B/particle: measured, the peak resident memory that setup and the steps added, over the particles)"
    );
    o
}
