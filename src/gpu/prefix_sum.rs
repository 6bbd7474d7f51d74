//! Exclusive prefix sum (shaders/gpu/prefix_sum.wgsl) in levels of 256: each level's block
//! totals are scanned by the next level and added back.
use super::buffers::storage;
use super::context::GpuContext;
use super::kernel::Kernel;
use super::split::SplitArrays;
use crate::Result;

/// A prefix sum of a fixed length with its level buffers and bind groups.
#[derive(Debug)]
pub struct PrefixSum {
    kernel: Kernel,
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
            include_str!("../../shaders/gpu/prefix_sum.wgsl"),
            false,
            3,
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
