//! The walls' loads of a step (shaders/gpu/wall_loads.wgsl): the partial sums that the passes
//! changing velocities at the walls left per workgroup (`wall_gather`) reduced in a fixed order
//! into the step's six totals and cleared; each wall's load (the opposite of what it gave the
//! liquid) added to the frame's tally on the device, with the step force and torque of the
//! largest magnitude (as `LoadTally::add`). One dispatch of one workgroup a step with walls;
//! the tally comes down once a frame (or for a checkpoint).
use super::GpuLiquidSolver;
use super::buffers;
use super::kernel::Access::{self, ReadWrite as RW};
use super::kernel::Kernel;
use super::split::{SplitArray, SplitArrays};
use super::wall_gather::SLOT_VEC4S;
use crate::boundary::LoadTally;
use crate::{Error, Result};
use glam::{DVec3, Vec3A};

/// How the pass uses its storage buffers, binding 1 on (shaders/gpu/wall_loads.wgsl).
pub(crate) const ACCESS: &[Access] = &[RW, RW];

/// The pass binds no per-particle array.
pub(crate) const SPLIT: &[SplitArray] = &[];

/// Invocations of the pass's one workgroup (`LOADS_WG` in the shader).
#[cfg_attr(not(test), allow(dead_code))]
pub const INVOCATIONS: usize = 64;

/// `vec4<f32>` of the device's tally: per wall the summed impulse and angular impulse, the
/// largest step force and torque.
pub const TALLY_VEC4S: usize = 6 * 4;

/// The device's tally as the shader keeps it.
pub type DeviceTally = [[f32; 4]; TALLY_VEC4S];

/// The pass's pipeline.
#[derive(Debug)]
pub struct WallLoadsPass {
    /// Its kernel, with the bind group it keeps (binding.rs).
    pub kernel: Kernel,
}

impl WallLoadsPass {
    /// Compile the pass.
    pub fn new(device: &wgpu::Device) -> WallLoadsPass {
        let src = include_str!("../../shaders/gpu/wall_loads.wgsl");
        WallLoadsPass {
            kernel: Kernel::new(
                device,
                "wall_loads",
                src,
                true,
                ACCESS,
                SplitArrays {
                    arrays: SPLIT,
                    two_parts: false,
                },
                &["main"],
            ),
        }
    }

    /// Record the pass: one workgroup, with its kept bind group (the partial sums and the
    /// tally).
    pub fn dispatch(&self, pass: &mut wgpu::ComputePass<'_>) {
        let k = &self.kernel;
        k.dispatch_groups(pass, "main", k.group(0), 1);
    }
}

/// CPU twin: `partials` (per slot [`SLOT_VEC4S`] vectors) reduced in the shader's order into
/// the step's totals, each wall's load added to `tally` with the step's force and torque
/// (`inv_dt` the inverse step) where larger; the partials cleared.
#[cfg_attr(not(test), allow(dead_code))]
pub fn cpu_twin(partials: &mut [[f32; 4]], tally: &mut DeviceTally, inv_dt: f32) {
    let slot = SLOT_VEC4S as usize;
    let slots = partials.len() / slot;
    let v = |a: [f32; 4]| Vec3A::new(a[0], a[1], a[2]);
    let mut sums = vec![[Vec3A::ZERO; 12]; INVOCATIONS];
    for (t, acc) in sums.iter_mut().enumerate() {
        for s in (t..slots).step_by(INVOCATIONS) {
            for (k, a) in acc.iter_mut().enumerate() {
                *a += v(partials[s * slot + k]);
            }
        }
    }
    partials.fill([0.0; 4]);
    let mut s = INVOCATIONS / 2;
    while s > 0 {
        let (low, high) = sums.split_at_mut(s);
        for (acc, other) in low.iter_mut().zip(&high[..s]) {
            for (a, b) in acc.iter_mut().zip(other) {
                *a += *b;
            }
        }
        s /= 2;
    }
    for w in 0..6 {
        let (j, m) = (-sums[0][2 * w], -sums[0][2 * w + 1]);
        let t = 4 * w;
        let add = |a: [f32; 4], b: Vec3A| (v(a) + b).extend(0.0).to_array();
        tally[t] = add(tally[t], j);
        tally[t + 1] = add(tally[t + 1], m);
        for (k, x) in [(t + 2, j * inv_dt), (t + 3, m * inv_dt)] {
            let peak = v(tally[k]);
            if x.dot(x) > peak.dot(peak) {
                tally[k] = x.extend(0.0).to_array();
            }
        }
    }
}

/// The device's tally as a [`LoadTally`] over `time` s (per wall, in f64).
pub fn to_tally(t: &DeviceTally, time: f64) -> LoadTally {
    let v = |a: [f32; 4]| DVec3::new(a[0] as f64, a[1] as f64, a[2] as f64);
    let sums = (0..6).map(|w| (v(t[4 * w]), v(t[4 * w + 1]))).collect();
    let peaks = (0..6).map(|w| (v(t[4 * w + 2]), v(t[4 * w + 3]))).collect();
    LoadTally::from_parts(sums, peaks, time)
}

/// A [`LoadTally`] of six walls as the device keeps it (a checkpoint's, which the device
/// wrote: its numbers are f32's, so it goes back exactly); zeros for an empty one.
pub fn from_tally(t: &LoadTally) -> DeviceTally {
    let mut out = [[0.0; 4]; TALLY_VEC4S];
    let f = |v: DVec3| [v.x as f32, v.y as f32, v.z as f32, 0.0];
    for (w, (s, p)) in t.sums().iter().zip(t.peaks()).take(6).enumerate() {
        out[4 * w] = f(s.0);
        out[4 * w + 1] = f(s.1);
        out[4 * w + 2] = f(p.0);
        out[4 * w + 3] = f(p.1);
    }
    out
}

impl GpuLiquidSolver {
    /// Whether the solver gathers the walls' loads (a scene with walls).
    pub fn has_wall_loads(&self) -> bool {
        self.wall_slots > 0
    }

    /// Slots of the walls' partial sums (0 without walls).
    #[cfg_attr(not(test), allow(dead_code))]
    pub fn wall_slots(&self) -> u64 {
        self.wall_slots
    }

    /// The walls' tally on the device, downloaded (`None` without walls): one wait for the
    /// work submitted so far.
    pub fn download_wall_tally(&self) -> Result<Option<DeviceTally>> {
        if !self.has_wall_loads() {
            return Ok(None);
        }
        let v: Vec<[f32; 4]> = buffers::read(&self.ctx, &self.bufs.wall_tally, TALLY_VEC4S)?;
        let mut out = [[0.0; 4]; TALLY_VEC4S];
        out.copy_from_slice(&v);
        Ok(Some(out))
    }

    /// Replace the walls' tally on the device (before the next submitted work); nothing
    /// without walls.
    pub fn upload_wall_tally(&self, t: &DeviceTally) {
        if self.has_wall_loads() {
            let q = &self.ctx.queue;
            q.write_buffer(&self.bufs.wall_tally, 0, bytemuck::cast_slice(t));
        }
    }

    /// The walls' partial sums, per slot [`SLOT_VEC4S`] vectors (for the tests).
    #[cfg_attr(not(test), allow(dead_code))]
    pub fn download_wall_partials(&self) -> Result<Vec<[f32; 4]>> {
        let len = (self.wall_slots * SLOT_VEC4S) as usize;
        buffers::read(&self.ctx, &self.bufs.wall_partials, len)
    }

    /// Replace the walls' partial sums (for the tests; `partials` as many as
    /// [`GpuLiquidSolver::download_wall_partials`] gives).
    #[cfg_attr(not(test), allow(dead_code))]
    pub fn upload_wall_partials(&self, partials: &[[f32; 4]]) -> Result<()> {
        if partials.len() as u64 != self.wall_slots * SLOT_VEC4S {
            return Err(Error::Run(format!(
                "the walls' partial sums hold {} vectors, not {}",
                self.wall_slots * SLOT_VEC4S,
                partials.len()
            )));
        }
        if !partials.is_empty() {
            let q = &self.ctx.queue;
            q.write_buffer(&self.bufs.wall_partials, 0, bytemuck::cast_slice(partials));
        }
        Ok(())
    }
}
