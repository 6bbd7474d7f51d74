//! An emitting run on the GPU backend against the CPU backend: the same particles come in
//! (count and ids), the outlet takes the same ones, and after 0.0365 s every particle stands
//! within 0.01 spacings of its CPU twin, as the other GPU passes are held.
use crate::common;
use crate::common::gpu as gpu_common;
use sphrigid::backend::Backend;
use sphrigid::sim::Simulation;

/// A horizontal jet 4 x 4 particles across at 2 m/s into a short tank whose far wall is an
/// outlet, and a floor of liquid it falls on.
const JET: &str = r#"
    [time]
    fps = 30
    frames = 10
    [container]
    min = [0, 0, 0]
    max = [0.12, 0.1, 0.04]
    [[liquid]]
    min = [0, 0, 0]
    max = [0.12, 0.02, 0.04]
    spacing = 0.005
    [[emitter]]
    shape = { type = "rectangle", size = [0.02, 0.02] }
    position = [0.015, 0.06, 0.02]
    direction = [1, 0, 0]
    speed = 2.0
    [[outlet]]
    min = [0.06, 0.03, 0]
    max = [0.12, 0.1, 0.04]
"#;

#[test]
fn an_emitting_run_on_the_gpu_matches_the_cpu_backend() {
    let _serial = gpu_common::serial();
    if gpu_common::context().is_none() {
        return;
    }
    let scene = common::scene(JET);
    let mut cpu = Simulation::setup(&scene, Backend::Cpu).unwrap();
    let mut gpu = Simulation::setup(&scene, Backend::Gpu).unwrap();
    // 0.0365 s of flow, whatever the liquid's step (120 steps at the default stiffness).
    let steps = (0.0365 / cpu.dt).round() as usize;
    for _ in 0..steps {
        cpu.step().unwrap();
        gpu.step().unwrap();
    }
    gpu.sync_particles().unwrap();
    let (a, b) = (cpu.particles(), gpu.particles());
    let (sa, sb) = (&cpu.sources.state, &gpu.sources.state);
    assert_eq!((sa.emitted, sa.removed), (sb.emitted, sb.removed));
    assert!(sa.emitted > 0 && sa.removed > 0, "{sa:?}");
    let mut ids = (a.id.clone(), b.id.clone());
    ids.0.sort_unstable();
    ids.1.sort_unstable();
    assert_eq!(ids.0, ids.1, "the backends hold other particles");
    let (ka, kb) = (a.slots_by_id(), b.slots_by_id());
    let s = cpu.liquid.params().spacing;
    let worst = ka
        .iter()
        .zip(&kb)
        .map(|(&i, &j)| (a.pos[i as usize] - b.pos[j as usize]).length() / s)
        .fold(0.0f32, f32::max);
    eprintln!("CPU/GPU differ by at most {worst} spacings; {sa:?}");
    assert!(worst < 0.01, "GPU and CPU differ by {worst} spacings");
}
