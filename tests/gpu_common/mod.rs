//! Helpers for the GPU tests: a device when there is any adapter (lavapipe counts), else a
//! printed reason and `None`, so the tests skip only where no adapter exists at all.
#![allow(dead_code)]
use sphrigid::gpu::context::{AdapterKind, GpuContext};

/// A device on the best adapter, or `None` (with the reason printed) when there is none.
pub fn context() -> Option<GpuContext> {
    match GpuContext::new(AdapterKind::Any) {
        Ok(Some(c)) => {
            eprintln!("GPU test on {}", sphrigid::gpu::context::describe(&c.info));
            Some(c)
        }
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

/// A small deterministic generator (xorshift64*), uniform in [0, 1).
pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> f32 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        ((self.0.wrapping_mul(0x2545_f491_4f6c_dd1d) >> 40) as f32) / (1u64 << 24) as f32
    }

    /// Uniform in [-a, a).
    pub fn sym(&mut self, a: f32) -> f32 {
        (2.0 * self.next() - 1.0) * a
    }
}
