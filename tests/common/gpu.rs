//! Helpers for the GPU tests: a device when there is any adapter (lavapipe counts). Where no
//! adapter exists at all the tests skip, saying why, except in CI (`CI` or
//! `SPHRIGID_REQUIRE_GPU` set, as `scripts/test.sh` does), where a missing adapter fails them.

use sphrigid::internals::gpu::{AdapterKind, GpuContext};
use std::path::Path;

/// The arguments of `sphrigid run SCENE --out OUT --frames FRAMES --backend gpu --quiet`.
pub fn gpu_run_args<'a>(scene: &'a Path, out: &'a Path, frames: &'a str) -> Vec<&'a str> {
    vec![
        "run",
        scene.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--frames",
        frames,
        "--backend",
        "gpu",
        "--quiet",
    ]
}

/// A small dam break: a 10 x 15 x 8 column (1,200 particles, 19,200 B of positions)
/// collapsing along a tank.
pub const DAM: &str = r#"
    gravity = [0, -9.81, 0]
    [time]
    fps = 60
    [container]
    min = [0, 0, 0]
    max = [0.3, 0.2, 0.08]
    [[liquid]]
    min = [0, 0, 0]
    max = [0.1, 0.15, 0.08]
    spacing = 0.01
    viscosity = { sigma = 0.5, beta = 0.0 }
"#;

/// Serialises the GPU tests of one test binary where the machine has a hardware adapter: each
/// holds the guard for its whole run. NVIDIA's Vulkan driver (580.159, on an H200) deadlocked
/// when one test thread destroyed its device while others enumerated adapters or created
/// theirs: 1 run in 9 of tests/gpu/backend.rs stopped, three threads inside the driver
/// (`vkDestroyDevice`, `vkEnumeratePhysicalDevices` and a spinning driver thread). `sphrigid`
/// itself opens one device per process. Where every adapter is a CPU implementation (Mesa's
/// lavapipe, as in CI) the tests run side by side (`None`): lavapipe runs each test's
/// dispatches on one thread, so one at a time left a core idle for two minutes of CI.
pub fn serial() -> Option<std::sync::MutexGuard<'static, ()>> {
    static LOCK: std::sync::Mutex<()> = std::sync::Mutex::new(());
    static SOFTWARE_ONLY: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    // A test that failed while holding it poisons it; the next one goes on. The first test
    // asks the drivers under the lock, before any test of the binary opens a device.
    let guard = LOCK.lock().unwrap_or_else(|e| e.into_inner());
    let software_only = *SOFTWARE_ONLY.get_or_init(|| {
        let found = sphrigid::internals::gpu::adapters(AdapterKind::Any);
        !found.is_empty()
            && found
                .iter()
                .all(|a| a.get_info().device_type == wgpu::DeviceType::Cpu)
    });
    (!software_only).then_some(guard)
}

/// Whether a missing adapter fails the GPU tests: in CI, or wherever `SPHRIGID_REQUIRE_GPU` is
/// set, so that they cannot pass untested if lavapipe fails to install.
pub fn adapter_required() -> bool {
    let set = |k: &str| std::env::var(k).is_ok_and(|v| !v.is_empty() && v != "0" && v != "false");
    set("CI") || set("SPHRIGID_REQUIRE_GPU")
}

/// A device on the best adapter, or `None` (with the reason printed) when there is none and
/// none is required (see [`adapter_required`]).
pub fn context() -> Option<GpuContext> {
    match GpuContext::new(AdapterKind::Any) {
        Ok(Some(c)) => {
            eprintln!(
                "GPU test on {}",
                sphrigid::internals::gpu::describe(&c.info)
            );
            Some(c)
        }
        Ok(None) if adapter_required() => panic!(
            "no GPU adapter, and CI or SPHRIGID_REQUIRE_GPU requires one: install \
             mesa-vulkan-drivers and libvulkan1 (lavapipe), as `bash scripts/test.sh` does"
        ),
        Ok(None) => {
            eprintln!(
                "SKIPPED: no GPU adapter at all on this machine (no Vulkan/Metal/DX12 driver; \
                 on Debian install mesa-vulkan-drivers for lavapipe)"
            );
            None
        }
        Err(e) => panic!("a GPU adapter exists but gave no device: {e}"),
    }
}
