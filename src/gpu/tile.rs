//! Workgroup-memory tiling of the neighbour passes (density, relaxation, viscosity): their
//! `tiled` entry points, in one workgroup per segment of [`SEGMENT`] cells along a grid row,
//! load each row of the segment's neighbour cells into workgroup memory in chunks and sum the
//! same pairs in the same order as the untiled `main` (shaders/gpu/tile.wgsl, appended to those
//! passes). The untiled entry points stay as the fallback: where the device lacks the
//! workgroup memory or invocations, or where the knob [`TILES_VAR`] turns tiling off. The
//! choice is made once, when the solver is built; no step reads anything back to make it.
use super::context::{Knob, knob};
use crate::Result;

/// The segment helpers every tiled pass appends (after the pass's own text).
pub const WGSL: &str = include_str!("../../shaders/gpu/tile.wgsl");

/// Cells per segment along x (`TILE_SEG` in the shader).
pub const SEGMENT: u32 = 8;

/// Invocations per tiled workgroup (`TILE_WG` in the shader).
pub const INVOCATIONS: u32 = 64;

/// Neighbour slots per chunk of workgroup memory (`TILE` in the shader).
pub const CHUNK: u32 = 128;

/// Workgroup memory of the largest tiled pass, bytes: viscosity's two `vec4<f32>` chunks and
/// the segment's nine row runs and own run (`vec2<u32>` each).
pub const WORKGROUP_BYTES: u32 = 2 * CHUNK * 16 + 10 * 8;

/// Knob: `on` runs the tiled entry points on any device that allows them; `off` and `auto` (or
/// unset) the untiled ones. Measured, the tiled passes were slower everywhere: 1.2 to 7 times
/// on lavapipe (workgroup memory is ordinary memory there, and each barrier switches between
/// invocations), and 1.13 to 1.21 times on an NVIDIA H200 at 1 to 16 million particles, whose
/// caches already serve the neighbours' reads.
pub const TILES_VAR: &str = "SPHRIGID_GPU_TILES";

/// Whether the device with `limits` has the workgroup memory and invocations the tiled entry
/// points take (with walls, the solver also needs the tiled relaxation's partial sums of the
/// walls' loads to fit one storage binding, `wall_gather::WallPartials::tiles_fit`).
pub fn fits(limits: &wgpu::Limits) -> bool {
    limits.max_compute_workgroup_storage_size >= WORKGROUP_BYTES
        && limits.max_compute_invocations_per_workgroup >= INVOCATIONS
        && limits.max_compute_workgroup_size_x >= INVOCATIONS
}

/// Whether the tiled entry points run on a device with `limits`, as the knob [`TILES_VAR`]
/// says (only when it is `on`).
pub fn enabled(limits: &wgpu::Limits) -> Result<bool> {
    Ok(wanted()? && fits(limits))
}

/// Whether the knob [`TILES_VAR`] asks for the tiled entry points (`on`).
pub fn wanted() -> Result<bool> {
    Ok(match knob(TILES_VAR)? {
        Knob::On => true,
        Knob::Auto | Knob::Off => false,
    })
}

/// Workgroups of a tiled pass over a grid of `dims` cells: one per segment.
pub fn workgroups(dims: [u32; 3]) -> u32 {
    dims[0].div_ceil(SEGMENT) * dims[1] * dims[2]
}

/// The slots each tiled workgroup takes, as the shader's `tile_segment` finds them from the
/// cell starts of a grid of `dims` cells (one more entry than cells): the CPU twin of the
/// segmentation, which covers every slot once, in order.
#[cfg_attr(not(test), allow(dead_code))]
pub fn segments(dims: [u32; 3], cell_start: &[u32]) -> Vec<(u32, u32)> {
    let per_row = dims[0].div_ceil(SEGMENT);
    (0..workgroups(dims))
        .map(|s| {
            let row = s / per_row;
            let x0 = (s % per_row) * SEGMENT;
            let x1 = (x0 + SEGMENT).min(dims[0]);
            let first = (row * dims[0] + x0) as usize;
            let last = (row * dims[0] + x1) as usize;
            (cell_start[first], cell_start[last])
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn segments_cover_every_slot_once_in_order() {
        // 19 x 3 x 2 cells (x not a multiple of the segment), each cell holding c % 5 slots.
        let dims = [19u32, 3, 2];
        let cells = (dims[0] * dims[1] * dims[2]) as usize;
        let mut start = vec![0u32];
        for c in 0..cells {
            start.push(start[c] + (c % 5) as u32);
        }
        let segs = segments(dims, &start);
        assert_eq!(segs.len() as u32, 3 * 3 * 2);
        let mut next = 0;
        for (a, b) in &segs {
            assert_eq!(*a, next, "a gap or overlap before slot {a}");
            assert!(b >= a);
            next = *b;
        }
        assert_eq!(next, start[cells]);
    }

    // Every tiled pass is validated in one part and two, its bindings against its layout, by
    // `kernel::tests::every_storage_binding_is_declared_as_its_layout_says`.

    #[test]
    fn the_tiles_fit_wgpus_default_limits_and_not_less_workgroup_memory() {
        // An unset knob is `auto` (the variable is not set in the test environment).
        assert_eq!(
            knob("SPHRIGID_GPU_TILES_UNSET_IN_TESTS").unwrap(),
            Knob::Auto
        );
        let limits = wgpu::Limits::default();
        assert!(fits(&limits));
        let small = wgpu::Limits {
            max_compute_workgroup_storage_size: WORKGROUP_BYTES - 1,
            ..limits
        };
        assert!(!fits(&small));
    }
}
