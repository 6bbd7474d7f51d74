//! Exclusive prefix sum (shaders/gpu/prefix_sum.wgsl) in levels of 256: each level's block
//! totals are scanned by the next level and added back. A block is scanned with subgroup
//! operations where the device was opened with them ([`GpuContext::subgroups`]), else through
//! workgroup memory: the shader's variant is chosen when the pipeline is created.
use super::buffers::storage;
use super::context::GpuContext;
use super::kernel::Access::{self, Read as R, ReadWrite as RW};
use super::kernel::Kernel;
use super::split::SplitArrays;
use crate::Result;

/// How the pass uses its storage buffers, binding 1 on (shaders/gpu/prefix_sum.wgsl).
pub(crate) const ACCESS: &[Access] = &[R, RW, RW];

/// The shader text: the block scan with subgroup operations or through workgroup memory (naga
/// takes the subgroup built-ins without WGSL's `enable subgroups;`, which it does not parse yet;
/// the device's `Features::SUBGROUP` allows them).
pub fn source(subgroups: bool) -> String {
    let text = include_str!("../../shaders/gpu/prefix_sum.wgsl");
    let (head, rest) = text
        .split_once("// scan: workgroup memory\n")
        .expect("prefix_sum.wgsl has its workgroup-memory scan");
    let (shared, rest) = rest
        .split_once("// scan: subgroups\n")
        .expect("prefix_sum.wgsl has its subgroup scan");
    let (sub, tail) = rest
        .split_once("// scan: end\n")
        .expect("prefix_sum.wgsl ends its scans");
    if subgroups {
        format!("{head}{sub}{tail}")
    } else {
        format!("{head}{shared}{tail}")
    }
}

/// A prefix sum of a fixed length with its level buffers and bind groups.
#[derive(Debug)]
pub struct PrefixSum {
    kernel: Kernel,
    /// Whether its blocks are scanned with subgroup operations.
    pub subgroups: bool,
    /// (entries, bind group of scan_block, bind group of add_block) per level.
    levels: Vec<(u32, wgpu::BindGroup, wgpu::BindGroup)>,
    /// Bytes in the level buffers.
    pub bytes: u64,
}

impl PrefixSum {
    /// A scan of `n` entries from `src` into `dst`.
    pub fn new(
        ctx: &GpuContext,
        src: &wgpu::Buffer,
        dst: &wgpu::Buffer,
        n: u32,
    ) -> Result<PrefixSum> {
        let device = &ctx.device;
        let kernel = Kernel::new(
            device,
            "prefix_sum",
            &source(ctx.subgroups),
            false,
            ACCESS,
            SplitArrays::NONE,
            &["scan_block", "add_block"],
        );
        let mut bytes = 0u64;
        // Level l scans `len` entries of src_l into dst_l, block totals into raw_{l+1};
        // level l+1 scans raw_{l+1} into scan_{l+1}.
        let mut specs: Vec<(u32, wgpu::Buffer, wgpu::Buffer, wgpu::Buffer)> = Vec::new();
        let mut len = n;
        let mut src_l = src.clone();
        let mut dst_l = dst.clone();
        loop {
            let blocks = len.div_ceil(256).max(1);
            let raw = storage(ctx, "scan block sums", blocks as u64 * 4, &mut bytes)?;
            specs.push((len, src_l.clone(), dst_l.clone(), raw.clone()));
            if blocks == 1 {
                break;
            }
            len = blocks;
            src_l = raw;
            dst_l = storage(ctx, "scan block sums", blocks as u64 * 4, &mut bytes)?;
        }
        let mut levels = Vec::new();
        for (l, (len, s, d, raw)) in specs.iter().enumerate() {
            let uniform = device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("scan params"),
                size: 16,
                usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
                mapped_at_creation: false,
            });
            bytes += 16;
            ctx.queue
                .write_buffer(&uniform, 0, bytemuck::cast_slice(&[*len, 0, 0, 0]));
            let scan = kernel.bind(device, &uniform, &[s, d, raw]);
            // add_block adds the scanned totals of the next level (none at the top).
            let next = specs.get(l + 1).map_or(raw, |n| &n.2);
            let add = kernel.bind(device, &uniform, &[s, d, next]);
            levels.push((*len, scan, add));
        }
        Ok(PrefixSum {
            kernel,
            subgroups: ctx.subgroups,
            levels,
            bytes,
        })
    }

    /// Dispatches recorded so far.
    pub fn dispatched(&self) -> u64 {
        self.kernel.dispatched()
    }

    /// Record the scan.
    pub fn dispatch(&self, pass: &mut wgpu::ComputePass<'_>) {
        for (len, scan, _) in &self.levels {
            self.kernel.dispatch(pass, "scan_block", scan, *len);
        }
        for (len, _, add) in self.levels.iter().rev().skip(1) {
            self.kernel.dispatch(pass, "add_block", add, *len);
        }
    }
}

/// Bytes that [`PrefixSum::new`] allocates for a scan of `n` entries: the level totals and
/// each level's uniform.
pub fn bytes_for(n: u32) -> u64 {
    let mut bytes = 0;
    let mut len = n;
    loop {
        let blocks = len.div_ceil(256).max(1);
        bytes += super::buffers::storage_size(blocks as u64 * 4) + 16;
        if blocks == 1 {
            return bytes;
        }
        bytes += super::buffers::storage_size(blocks as u64 * 4);
        len = blocks;
    }
}

/// CPU twin: the exclusive prefix sum.
#[cfg_attr(not(test), allow(dead_code))]
pub fn cpu_twin(v: &[u32]) -> Vec<u32> {
    let mut acc = 0u32;
    v.iter()
        .map(|&x| {
            let s = acc;
            acc = acc.wrapping_add(x);
            s
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use wgpu::naga;

    /// Parse and validate a WGSL module with `caps`, as wgpu does before compiling it.
    fn validate(text: &str, caps: naga::valid::Capabilities) -> std::result::Result<(), String> {
        let module = naga::front::wgsl::parse_str(text).map_err(|e| e.emit_to_string(text))?;
        naga::valid::Validator::new(naga::valid::ValidationFlags::all(), caps)
            .subgroup_stages(naga::valid::ShaderStages::COMPUTE)
            .subgroup_operations(naga::valid::SubgroupOperationSet::all())
            .validate(&module)
            .map(|_| ())
            .map_err(|e| format!("{e:?}"))
    }

    #[test]
    fn both_scans_validate_and_only_the_subgroup_one_needs_subgroups() {
        let none = naga::valid::Capabilities::empty();
        let sub = naga::valid::Capabilities::SUBGROUP;
        let workgroup = source(false);
        let subgroup = source(true);
        assert!(!workgroup.contains("subgroupInclusiveAdd") && workgroup.contains("fn scan_block"));
        assert!(subgroup.contains("subgroupInclusiveAdd") && subgroup.contains("fn add_block"));
        validate(&workgroup, none).unwrap();
        validate(&subgroup, sub).unwrap();
        assert!(
            validate(&subgroup, none).is_err(),
            "the subgroup scan validated without subgroups"
        );
    }
}
