//! Per-particle arrays larger than one storage binding: where a scene's arrays exceed it, each
//! is one buffer bound as two parts (binding offsets), the first holding the indices below the
//! split point; the passes reach it through the accessors of shaders/gpu/split.wgsl, which
//! otherwise bind it whole (so a scene that fits pays nothing).
use crate::{Error, Result};

/// The accessor templates, two parts then one (`NAME`, `TYPE`, `FIRST`, `SECOND` replaced per
/// array).
pub const TEMPLATE: &str = include_str!("../../shaders/gpu/split.wgsl");

/// The second part of the array at binding `b` is at binding `b + SECOND_PART`.
pub const SECOND_PART: u32 = 32;

/// Parts an array can be split into.
pub const MAX_PARTS: u64 = 2;

/// The most storage bindings one pass takes with its arrays in two parts (the scatter: 10
/// buffers, 8 of them in two parts).
pub const MAX_STORAGE_BINDINGS: u32 = 18;

/// Check that the device gives a pass [`MAX_STORAGE_BINDINGS`] storage bindings (needed where
/// the arrays go in two parts).
pub fn check_bindings(limits: &wgpu::Limits, adapter: &str) -> Result<()> {
    let has = limits.max_storage_buffers_per_shader_stage;
    if has < MAX_STORAGE_BINDINGS {
        return Err(Error::input(format!(
            "the GPU {adapter} binds {has} storage buffers per shader stage, fewer than the \
             {MAX_STORAGE_BINDINGS} the GPU backend's passes take (their per-particle arrays \
             in two parts each); fix: use --backend cpu"
        )));
    }
    Ok(())
}

/// Testing knob: caps the bytes of one storage binding below the adapter's, so that a small
/// scene is split as a large one is on a real GPU.
pub const MAX_BINDING_VAR: &str = "SPHRIGID_GPU_MAX_BINDING";

/// An array of a pass bound in two parts: its name in the shader, the binding of its first
/// part and its element type.
#[derive(Debug, Clone, Copy)]
pub struct SplitArray {
    /// The array's name (`NAME_get`, `NAME_set`).
    pub name: &'static str,
    /// The binding of its first part (its index among the pass's storage buffers, from 1).
    pub binding: u32,
    /// `vec4<f32>` or `u32`.
    pub ty: &'static str,
}

impl SplitArray {
    /// An array of `vec4<f32>` whose first part is at `binding`.
    pub const fn vec4(name: &'static str, binding: u32) -> SplitArray {
        SplitArray {
            name,
            binding,
            ty: "vec4<f32>",
        }
    }

    /// An array of `u32` whose first part is at `binding`.
    pub const fn u32(name: &'static str, binding: u32) -> SplitArray {
        SplitArray {
            name,
            binding,
            ty: "u32",
        }
    }

    /// Bytes per element.
    pub fn element(&self) -> u64 {
        match self.ty {
            "vec4<f32>" => 16,
            _ => 4,
        }
    }

    /// The WGSL declarations and accessors of this array, in two parts or one; read-only (no
    /// `NAME_set`) when `read_only`.
    pub fn wgsl(&self, two_parts: bool, read_only: bool) -> String {
        let (two, one) = TEMPLATE
            .split_once("// one part\n")
            .expect("split.wgsl has its one-part section");
        let section = if two_parts { two } else { one };
        let (section, access) = if read_only {
            let (get, _set) = section
                .split_once("fn NAME_set")
                .expect("split.wgsl's sections end with NAME_set");
            (get.trim_end(), "read")
        } else {
            (section, "read_write")
        };
        let body: String = section
            .lines()
            .filter(|l| !l.starts_with("//"))
            .map(|l| format!("{l}\n"))
            .collect();
        body.replace("ACCESS", access)
            .replace("NAME", self.name)
            .replace("TYPE", self.ty)
            .replace("SECOND", &(self.binding + SECOND_PART).to_string())
            .replace("FIRST", &self.binding.to_string())
    }
}

/// The arrays of a pass that it reaches through the accessors, and whether they are bound in
/// two parts.
#[derive(Debug, Clone, Copy)]
pub struct SplitArrays {
    /// The arrays.
    pub arrays: &'static [SplitArray],
    /// Two parts each (else one).
    pub two_parts: bool,
}

impl SplitArrays {
    /// A pass without such arrays.
    pub const NONE: SplitArrays = SplitArrays {
        arrays: &[],
        two_parts: false,
    };
}

/// Whether the per-particle arrays of `n` particles go in two parts on a device whose storage
/// bindings hold `limit` bytes.
pub fn two_parts(n: u64, limit: u64) -> bool {
    parts(n, split_point(limit)) > 1
}

/// The device's storage-binding limit in bytes, capped by [`MAX_BINDING_VAR`] when set (and
/// not empty).
pub fn binding_limit(adapter_limit: u64) -> Result<u64> {
    match std::env::var(MAX_BINDING_VAR) {
        Err(_) => Ok(adapter_limit),
        Ok(v) if v.trim().is_empty() => Ok(adapter_limit),
        Ok(v) => {
            let cap: u64 = v
                .trim()
                .parse()
                .ok()
                .filter(|&c| c >= 1024)
                .ok_or_else(|| {
                    Error::input(format!(
                        "{MAX_BINDING_VAR}: \"{v}\" is not a byte count; fix: set it to a whole \
                     number of bytes of at least 1024, or unset it"
                    ))
                })?;
            Ok(cap.min(adapter_limit))
        }
    }
}

/// The split point in elements for a device whose storage bindings hold `limit` bytes: the
/// most `vec4<f32>` one binding holds, a multiple of 64 so that the second part's offset is
/// aligned to 256 bytes for every element size.
pub fn split_point(limit: u64) -> u32 {
    ((limit / 16) / 64 * 64).min(u64::from(u32::MAX) / 64 * 64) as u32
}

/// Parts that an array of `n` elements needs at the split point `split`.
pub fn parts(n: u64, split: u32) -> u64 {
    n.div_ceil(u64::from(split).max(1)).max(1)
}

/// The two parts of a buffer of `size` bytes and elements of `element` bytes: the first
/// `split` elements, then the rest; both the whole buffer when it holds no more.
pub fn ranges(size: u64, element: u64, split: u32) -> [(u64, u64); 2] {
    let first = u64::from(split) * element;
    if size <= first {
        [(0, size), (0, size)]
    } else {
        [(0, first), (first, size - first)]
    }
}

/// What `check` says of a scene of `n` particles: how many parts its per-particle arrays are
/// bound in where a storage binding holds wgpu's default 128 MiB (or the testing knob's cap).
pub fn check_line(n: u64) -> String {
    let default = wgpu::Limits::default().max_storage_buffer_binding_size;
    let limit = match binding_limit(default) {
        Ok(l) => l,
        Err(e) => return format!("unknown: {e}"),
    };
    let k = parts(n, split_point(limit));
    let largest = n * 16;
    let how = if limit < default {
        format!("{limit} B, capped by {MAX_BINDING_VAR}")
    } else {
        format!("{limit} B in wgpu's defaults; the adapter's own limit decides")
    };
    let verdict = if k > MAX_PARTS {
        format!(", more than the GPU backend's {MAX_PARTS}: it refuses the scene")
    } else {
        String::new()
    };
    format!(
        "{k} part{} per particle array (the largest {largest} B; a storage binding holds \
         {how}){verdict}",
        if k == 1 { "" } else { "s" }
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn split_point_is_aligned_and_fits() {
        for limit in [1024u64, 16_000, 128 << 20, (4 << 30) - 4] {
            let k = split_point(limit);
            assert_eq!(k % 64, 0);
            assert!(u64::from(k) * 16 <= limit);
            assert!(u64::from(k + 64) * 16 > limit);
        }
    }

    #[test]
    fn ranges_cover_the_buffer() {
        assert_eq!(ranges(1000 * 16, 16, 1024), [(0, 16_000), (0, 16_000)]);
        assert_eq!(ranges(1500 * 16, 16, 1024), [(0, 16_384), (16_384, 7616)]);
        assert_eq!(ranges(1500 * 4, 4, 1024), [(0, 4096), (4096, 1904)]);
        assert_eq!(parts(1500, 1024), 2);
        assert_eq!(parts(1024, 1024), 1);
        assert_eq!(parts(3000, 1024), 3);
    }

    #[test]
    fn a_device_with_too_few_storage_bindings_is_refused() {
        let mut limits = wgpu::Limits {
            max_storage_buffers_per_shader_stage: MAX_STORAGE_BINDINGS,
            ..wgpu::Limits::default()
        };
        assert!(check_bindings(&limits, "a").is_ok());
        limits.max_storage_buffers_per_shader_stage = 10;
        let e = check_bindings(&limits, "a").unwrap_err();
        assert_eq!(e.exit_code(), 2);
        assert!(
            e.to_string().contains("binds 10 storage buffers") && e.to_string().contains("fix:")
        );
    }

    #[test]
    fn template_is_instantiated() {
        let s = SplitArray::vec4("pos", 3);
        let one = s.wgsl(false, false);
        assert!(one.contains("@binding(3) var<storage, read_write> pos_0: array<vec4<f32>>"));
        assert!(one.contains("return pos_0[i];") && !one.contains("pos_1"));
        let two = s.wgsl(true, false);
        assert!(two.contains("@binding(3) var<storage, read_write> pos_0: array<vec4<f32>>"));
        assert!(two.contains("@binding(35) var<storage, read_write> pos_1: array<vec4<f32>>"));
        assert!(two.contains("fn pos_set(i: u32, v: vec4<f32>)"));
        assert!(!two.contains("NAME") && !two.contains("TYPE") && !two.contains("ACCESS"));
        for read in [s.wgsl(false, true), s.wgsl(true, true)] {
            assert!(read.contains("@binding(3) var<storage, read> pos_0: array<vec4<f32>>"));
            assert!(read.contains("fn pos_get(i: u32)") && !read.contains("pos_set"));
            assert!(!read.contains("read_write") && !read.contains("ACCESS"));
        }
        assert!(
            s.wgsl(true, true)
                .contains("@binding(35) var<storage, read> pos_1")
        );
    }
}
