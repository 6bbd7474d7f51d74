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
