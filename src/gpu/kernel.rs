//! A compute kernel: one WGSL file (with the shared prelude), its bind group layout (a uniform
//! at binding 0, storage buffers at 1.., the second parts of its split arrays at
//! 1 + [`split::SECOND_PART`]..) and one pipeline per entry point.
use super::split::{self, SplitArrays};
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, Ordering};

/// The prelude every pass shares: `Params`, `Phase`, grid helpers.
pub const COMMON: &str = include_str!("../../shaders/gpu/common.wgsl");

/// Workgroup size of every particle and cell kernel.
pub const WORKGROUP: u32 = 256;

/// The module text of a pass: `source` after the prelude when `prelude`, then the declarations
/// and accessors of the `split` arrays (in one part or two).
pub fn text(source: &str, prelude: bool, split: SplitArrays) -> String {
    if !prelude {
        return source.to_string();
    }
    let accessors: String = split
        .arrays
        .iter()
        .map(|a| a.wgsl(split.two_parts))
        .collect();
    format!("{COMMON}\n{accessors}\n{source}")
}

/// Pipelines of one shader file.
#[derive(Debug)]
pub struct Kernel {
    layout: wgpu::BindGroupLayout,
    pipelines: BTreeMap<&'static str, wgpu::ComputePipeline>,
    storage: u32,
    split: SplitArrays,
    split_point: u32,
    label: &'static str,
    dispatched: AtomicU64,
}

impl Kernel {
    /// Compile `source` (after the prelude when `prelude`, then the declarations and accessors
    /// of the `split` arrays, in one part or two) with `storage` storage bindings and a pipeline
    /// for each entry point.
    pub fn new(
        device: &wgpu::Device,
        label: &'static str,
        source: &str,
        prelude: bool,
        storage: u32,
        split: SplitArrays,
        entries: &[&'static str],
    ) -> Kernel {
        debug_assert!(storage + split.arrays.len() as u32 <= split::MAX_STORAGE_BINDINGS);
        let text = text(source, prelude, split);
        let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
            label: Some(label),
            source: wgpu::ShaderSource::Wgsl(text.into()),
        });
        let mut layout_entries = vec![wgpu::BindGroupLayoutEntry {
            binding: 0,
            visibility: wgpu::ShaderStages::COMPUTE,
            ty: wgpu::BindingType::Buffer {
                ty: wgpu::BufferBindingType::Uniform,
                has_dynamic_offset: false,
                min_binding_size: None,
            },
            count: None,
        }];
        for b in 1..=storage {
            layout_entries.push(wgpu::BindGroupLayoutEntry {
                binding: b,
                visibility: wgpu::ShaderStages::COMPUTE,
                ty: wgpu::BindingType::Buffer {
                    ty: wgpu::BufferBindingType::Storage { read_only: false },
                    has_dynamic_offset: false,
                    min_binding_size: None,
                },
                count: None,
            });
        }
        for a in split.arrays.iter().filter(|_| split.two_parts) {
            layout_entries.push(wgpu::BindGroupLayoutEntry {
                binding: a.binding + split::SECOND_PART,
                ..layout_entries[a.binding as usize]
            });
        }
        let layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some(label),
            entries: &layout_entries,
        });
        let pipeline_layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: Some(label),
            bind_group_layouts: &[Some(&layout)],
            immediate_size: 0,
        });
        let pipelines = entries
            .iter()
            .map(|&e| {
                let p = device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
                    label: Some(e),
                    layout: Some(&pipeline_layout),
                    module: &module,
                    entry_point: Some(e),
                    compilation_options: Default::default(),
                    cache: None,
                });
                (e, p)
            })
            .collect();
        Kernel {
            layout,
            pipelines,
            storage,
            split,
            split_point: split::split_point(device.limits().max_storage_buffer_binding_size),
            label,
            dispatched: AtomicU64::new(0),
        }
    }

    /// A bind group of the uniform and the storage buffers, in binding order (a split array's
    /// buffer as its two parts where they are two).
    pub fn bind(
        &self,
        device: &wgpu::Device,
        uniform: &wgpu::Buffer,
        storage: &[&wgpu::Buffer],
    ) -> wgpu::BindGroup {
        assert_eq!(
            storage.len(),
            self.storage as usize,
            "{}: wrong number of buffers",
            self.label
        );
        let mut entries = vec![wgpu::BindGroupEntry {
            binding: 0,
            resource: uniform.as_entire_binding(),
        }];
        for (k, b) in storage.iter().enumerate() {
            let binding = k as u32 + 1;
            let two = self.split.two_parts;
            match self
                .split
                .arrays
                .iter()
                .find(|a| two && a.binding == binding)
            {
                None => entries.push(wgpu::BindGroupEntry {
                    binding,
                    resource: b.as_entire_binding(),
                }),
                Some(a) => {
                    let parts = split::ranges(b.size(), a.element(), self.split_point);
                    for (p, (offset, size)) in parts.into_iter().enumerate() {
                        entries.push(wgpu::BindGroupEntry {
                            binding: binding + p as u32 * split::SECOND_PART,
                            resource: wgpu::BindingResource::Buffer(wgpu::BufferBinding {
                                buffer: b,
                                offset,
                                size: wgpu::BufferSize::new(size),
                            }),
                        });
                    }
                }
            }
        }
        device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some(self.label),
            layout: &self.layout,
            entries: &entries,
        })
    }

    /// Record `entry` over `invocations` invocations (workgroups of 256, in a 2-D grid of
    /// workgroups when more than 65,535 are needed).
    pub fn dispatch(
        &self,
        pass: &mut wgpu::ComputePass<'_>,
        entry: &str,
        group: &wgpu::BindGroup,
        invocations: u32,
    ) {
        self.dispatched.fetch_add(1, Ordering::Relaxed);
        let pipeline = &self.pipelines[entry];
        pass.set_pipeline(pipeline);
        pass.set_bind_group(0, group, &[]);
        let (x, y) = workgroups(invocations);
        pass.dispatch_workgroups(x, y, 1);
    }

    /// Record `entry` over `groups` workgroups of its own size (in a 2-D grid of workgroups
    /// when more than 65,535 are needed; the kernel indexes `wid.x + wid.y * x`).
    pub fn dispatch_groups(
        &self,
        pass: &mut wgpu::ComputePass<'_>,
        entry: &str,
        group: &wgpu::BindGroup,
        groups: u32,
    ) {
        self.dispatched.fetch_add(1, Ordering::Relaxed);
        pass.set_pipeline(&self.pipelines[entry]);
        pass.set_bind_group(0, group, &[]);
        let groups = groups.max(1);
        let x = groups.min(65_535);
        pass.dispatch_workgroups(x, groups.div_ceil(x), 1);
    }
}

impl Kernel {
    /// Dispatches recorded so far, over all entry points.
    pub fn dispatched(&self) -> u64 {
        self.dispatched.load(Ordering::Relaxed)
    }
}

/// Workgroups `(x, y)` covering `invocations`, x at most 65,535; the kernels index
/// `gid.x + gid.y * x * 256`.
pub fn workgroups(invocations: u32) -> (u32, u32) {
    let groups = invocations.div_ceil(WORKGROUP).max(1);
    let x = groups.min(65_535);
    (x, groups.div_ceil(x))
}
