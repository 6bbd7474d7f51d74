//! The wgpu device: a headless adapter (no surface), its limits and whether it has GPU
//! timestamps.
use crate::{Error, Result};

/// What kind of adapter a caller will accept.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AdapterKind {
    /// Any adapter, software rasterisers (Mesa's lavapipe) included.
    Any,
    /// Only real hardware: integrated, discrete or virtual GPUs, not a CPU implementation.
    Hardware,
}

/// A device and queue with the adapter's description, limits and features.
pub struct GpuContext {
    /// The logical device.
    pub device: wgpu::Device,
    /// Its queue.
    pub queue: wgpu::Queue,
    /// Name, driver and kind of the adapter.
    pub info: wgpu::AdapterInfo,
    /// The limits the device was created with (all the adapter has, the storage-binding size
    /// capped by the testing knob `SPHRIGID_GPU_MAX_BINDING`).
    pub limits: wgpu::Limits,
    /// Whether compute passes can write GPU timestamps.
    pub timestamps: bool,
    /// Whether the device was opened with subgroup operations (the adapter has them and the
    /// knob `SUBGROUPS_VAR` is not `off`).
    pub subgroups: bool,
    /// Whether the adapter has subgroup operations at all.
    pub adapter_subgroups: bool,
}

impl std::fmt::Debug for GpuContext {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("GpuContext")
            .field("adapter", &self.info.name)
            .field("device_type", &self.info.device_type)
            .field("timestamps", &self.timestamps)
            .field("subgroups", &self.subgroups)
            .finish()
    }
}

/// Knob: `off` scans without subgroup operations on any device; `auto` (or unset) and `on`
/// use them where the adapter has them.
pub const SUBGROUPS_VAR: &str = "SPHRIGID_GPU_SUBGROUPS";

/// A setting of a path knob ([`SUBGROUPS_VAR`], `tile::TILES_VAR`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Knob {
    /// Unset, empty or `auto`: the backend chooses by the device.
    Auto,
    /// `on`: the path wherever the device allows it.
    On,
    /// `off`: the fallback.
    Off,
}

/// The setting of the knob `var`; any value but `auto`, `on` and `off` is an input error.
pub fn knob(var: &str) -> Result<Knob> {
    match std::env::var(var) {
        Err(_) => Ok(Knob::Auto),
        Ok(v) => match v.trim() {
            "" | "auto" => Ok(Knob::Auto),
            "on" => Ok(Knob::On),
            "off" => Ok(Knob::Off),
            _ => Err(Error::input(format!(
                "{var}: \"{v}\" is not auto, on or off; fix: set it to one of them, or unset it"
            ))),
        },
    }
}

fn instance() -> wgpu::Instance {
    wgpu::Instance::new(wgpu::InstanceDescriptor::new_without_display_handle_from_env())
}

/// Standard error sent to /dev/null while it lives, restored when dropped (a panic included).
#[cfg(unix)]
struct MutedStderr {
    saved: libc::c_int,
}

#[cfg(unix)]
impl MutedStderr {
    /// Mute standard error; `None` where it cannot be (then it stays as it was).
    fn new() -> Option<MutedStderr> {
        use std::os::fd::AsRawFd;
        let null = std::fs::OpenOptions::new()
            .write(true)
            .open("/dev/null")
            .ok()?;
        // SAFETY: dup and dup2 only copy descriptors: 2, a copy of it that this guard owns,
        // and /dev/null's, which stays open for the call.
        let saved = unsafe { libc::dup(2) };
        if saved < 0 {
            return None;
        }
        // SAFETY: as above.
        if unsafe { libc::dup2(null.as_raw_fd(), 2) } < 0 {
            // SAFETY: `saved` is this function's own descriptor.
            unsafe { libc::close(saved) };
            return None;
        }
        Some(MutedStderr { saved })
    }
}

#[cfg(unix)]
impl Drop for MutedStderr {
    fn drop(&mut self) {
        // SAFETY: puts the saved descriptor back on 2 and closes this guard's own copy.
        unsafe {
            libc::dup2(self.saved, 2);
            libc::close(self.saved);
        }
    }
}

/// The adapters of this machine that `kind` accepts, best first (discrete, integrated,
/// virtual, then CPU implementations). Standard error is muted while the drivers are asked:
/// the Vulkan loader and Mesa print notices there ("XDG_RUNTIME_DIR is invalid or not set")
/// that say nothing about the run.
pub fn adapters(kind: AdapterKind) -> Vec<wgpu::Adapter> {
    #[cfg(unix)]
    let muted = MutedStderr::new();
    let found = pollster::block_on(instance().enumerate_adapters(wgpu::Backends::all()));
    #[cfg(unix)]
    drop(muted);
    let mut list: Vec<wgpu::Adapter> = found
        .into_iter()
        .filter(|a| {
            let t = a.get_info().device_type;
            kind == AdapterKind::Any || t != wgpu::DeviceType::Cpu
        })
        .collect();
    let rank = |t: wgpu::DeviceType| match t {
        wgpu::DeviceType::DiscreteGpu => 0,
        wgpu::DeviceType::IntegratedGpu => 1,
        wgpu::DeviceType::VirtualGpu => 2,
        wgpu::DeviceType::Other => 3,
        wgpu::DeviceType::Cpu => 4,
    };
    list.sort_by_key(|a| rank(a.get_info().device_type));
    list
}

/// A one-line description of an adapter: name, kind, backend, driver.
pub fn describe(info: &wgpu::AdapterInfo) -> String {
    format!(
        "{} ({:?}, {:?}, driver {} {})",
        info.name, info.device_type, info.backend, info.driver, info.driver_info
    )
}

impl GpuContext {
    /// Open the best adapter `kind` accepts, asking for all of its limits (less a storage
    /// binding capped by the testing knob), for timestamp queries and subgroup operations
    /// where it has them. `Ok(None)` when there is no such adapter.
    pub fn new(kind: AdapterKind) -> Result<Option<GpuContext>> {
        let Some(adapter) = adapters(kind).into_iter().next() else {
            return Ok(None);
        };
        let info = adapter.get_info();
        let mut limits = adapter.limits();
        limits.max_storage_buffer_binding_size =
            super::split::binding_limit(limits.max_storage_buffer_binding_size)?;
        let timestamps = adapter.features().contains(wgpu::Features::TIMESTAMP_QUERY);
        let adapter_subgroups = adapter.features().contains(wgpu::Features::SUBGROUP);
        let subgroups = adapter_subgroups && knob(SUBGROUPS_VAR)? != Knob::Off;
        let mut required_features = wgpu::Features::empty();
        if timestamps {
            required_features |= wgpu::Features::TIMESTAMP_QUERY;
        }
        if subgroups {
            required_features |= wgpu::Features::SUBGROUP;
        }
        let (device, queue) = pollster::block_on(adapter.request_device(&wgpu::DeviceDescriptor {
            label: Some("sphrigid"),
            required_features,
            required_limits: limits.clone(),
            ..Default::default()
        }))
        .map_err(|e| {
            Error::Run(format!(
                "the GPU adapter {} refused a device: {e}",
                describe(&info)
            ))
        })?;
        // The device's own limits: the kernels split their arrays at the point these give.
        let limits = device.limits();
        Ok(Some(GpuContext {
            device,
            queue,
            info,
            limits,
            timestamps,
            subgroups,
            adapter_subgroups,
        }))
    }

    /// Wait until the GPU has finished everything submitted.
    pub fn wait(&self) -> Result<()> {
        self.device
            .poll(wgpu::PollType::wait_indefinitely())
            .map(|_| ())
            .map_err(|e| Error::Run(format!("waiting for the GPU failed: {e}")))
    }
}
