//! A compute kernel: one WGSL file (with the shared prelude), its bind group layout (a uniform
//! at binding 0, storage buffers at 1.., read-only where the kernel only reads them, the second
//! parts of its split arrays at 1 + [`split::SECOND_PART`]..), one pipeline per entry point,
//! and the bind groups its pass keeps (made when the pass is bound, not per dispatch).
use super::split::{self, SplitArrays};
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, Ordering};

/// The prelude every pass shares: `Params`, `Phase`, grid helpers.
pub const COMMON: &str = include_str!("../../shaders/gpu/common.wgsl");

/// Workgroup size of every particle and cell kernel.
pub const WORKGROUP: u32 = 256;

/// How a kernel uses one of its storage buffers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Access {
    /// Only read: bound read-only (`var<storage, read>`).
    Read,
    /// Written, or used through atomics: bound read-write (`var<storage, read_write>`).
    ReadWrite,
}

/// The module text of a pass: `source` after the prelude when `prelude`, then the declarations
/// and accessors of the `split` arrays (in one part or two, read-only where `storage`, the
/// access of each storage binding from 1, says so).
pub fn text(source: &str, prelude: bool, split: SplitArrays, storage: &[Access]) -> String {
    if !prelude {
        return source.to_string();
    }
    let accessors: String = split
        .arrays
        .iter()
        .map(|a| {
            let read = storage[a.binding as usize - 1] == Access::Read;
            a.wgsl(split.two_parts, read)
        })
        .collect();
    format!("{COMMON}\n{accessors}\n{source}")
}

/// Pipelines of one shader file.
#[derive(Debug)]
pub struct Kernel {
    layout: wgpu::BindGroupLayout,
    pipelines: BTreeMap<&'static str, wgpu::ComputePipeline>,
    storage: u32,
    groups: Vec<wgpu::BindGroup>,
    split: SplitArrays,
    split_point: u32,
    label: &'static str,
    dispatched: AtomicU64,
}

impl Kernel {
    /// Compile `source` (after the prelude when `prelude`, then the declarations and accessors
    /// of the `split` arrays, in one part or two) with a storage binding per `storage` entry
    /// (bindings 1.., each read-only or read-write as it says) and a pipeline for each entry
    /// point.
    pub fn new(
        device: &wgpu::Device,
        label: &'static str,
        source: &str,
        prelude: bool,
        storage: &[Access],
        split: SplitArrays,
        entries: &[&'static str],
    ) -> Kernel {
        let access = storage;
        let storage = access.len() as u32;
        assert!(storage + split.arrays.len() as u32 <= split::MAX_STORAGE_BINDINGS);
        let text = text(source, prelude, split, access);
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
        for (b, a) in (1..).zip(access) {
            layout_entries.push(wgpu::BindGroupLayoutEntry {
                binding: b,
                visibility: wgpu::ShaderStages::COMPUTE,
                ty: wgpu::BindingType::Buffer {
                    ty: wgpu::BufferBindingType::Storage {
                        read_only: *a == Access::Read,
                    },
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
            groups: Vec::new(),
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

    /// Make the bind groups the kernel keeps, one per list of storage buffers in `sets` (in
    /// binding order, as [`Kernel::bind`] takes them), each with `uniform`, replacing those it
    /// held: when its pass is set up, and again when a buffer they bind is replaced.
    pub fn rebind<'a>(
        &mut self,
        device: &wgpu::Device,
        uniform: &wgpu::Buffer,
        sets: impl IntoIterator<Item = Vec<&'a wgpu::Buffer>>,
    ) {
        let groups = sets
            .into_iter()
            .map(|s| self.bind(device, uniform, &s))
            .collect();
        self.groups = groups;
    }

    /// The kept bind group `k` (the `k`-th list given to [`Kernel::rebind`]).
    pub fn group(&self, k: usize) -> &wgpu::BindGroup {
        self.groups.get(k).unwrap_or_else(|| {
            panic!(
                "{}: bind group {k} of {} made",
                self.label,
                self.groups.len()
            )
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gpu::{
        boundary_grid, cell_index, contacts, count, density, impulses, prefix_sum, push_out,
        relaxation, scatter, velocity, viscosity, wall_loads, walls,
    };
    use split::SplitArray;
    use wgpu::naga;

    /// Every pass's shader, in one part and two, declares each storage binding as its `ACCESS`
    /// (the layout's) says: `read` where the pass only reads it, else `read_write`; and it
    /// validates (a read-only array has no setter to call).
    #[test]
    fn every_storage_binding_is_declared_as_its_layout_says() {
        let gpu = |f: &str| std::fs::read_to_string(format!("shaders/gpu/{f}.wgsl")).unwrap();
        let none: &[SplitArray] = &[];
        let passes = [
            (
                "velocity",
                velocity::source(),
                velocity::SPLIT,
                velocity::ACCESS,
            ),
            ("walls", walls::source(), walls::SPLIT, walls::ACCESS),
            (
                "wall_loads",
                gpu("wall_loads"),
                wall_loads::SPLIT,
                wall_loads::ACCESS,
            ),
            (
                "cell_index",
                gpu("cell_index"),
                cell_index::SPLIT,
                cell_index::ACCESS,
            ),
            ("count", gpu("count"), none, count::ACCESS),
            ("scatter", gpu("scatter"), scatter::SPLIT, scatter::ACCESS),
            (
                "boundary_grid",
                gpu("boundary_grid"),
                none,
                boundary_grid::ACCESS,
            ),
            (
                "density",
                density::source(),
                density::SPLIT,
                density::ACCESS,
            ),
            (
                "relaxation",
                relaxation::source(),
                relaxation::SPLIT,
                relaxation::ACCESS,
            ),
            (
                "viscosity",
                viscosity::source(),
                viscosity::SPLIT,
                viscosity::ACCESS,
            ),
            (
                "contacts",
                gpu("contacts"),
                contacts::SPLIT,
                contacts::ACCESS,
            ),
            (
                "impulses",
                gpu("impulses"),
                impulses::SPLIT,
                impulses::ACCESS,
            ),
            (
                "push_out",
                gpu("push_out"),
                push_out::SPLIT,
                push_out::ACCESS,
            ),
        ];
        let mut read_only = check("prefix_sum", &prefix_sum::source(false), prefix_sum::ACCESS);
        for (name, src, arrays, access) in passes {
            for two_parts in [false, true] {
                let t = text(&src, true, SplitArrays { arrays, two_parts }, access);
                let n = check(name, &t, access);
                read_only += if two_parts { 0 } else { n };
            }
        }
        // The scan's source and 41 of the passes' storage bindings (in one part) are read-only.
        assert_eq!(read_only, 42);
    }

    /// Check `text`'s storage declarations against `access`; the read-only ones.
    fn check(name: &str, text: &str, access: &[Access]) -> usize {
        let module = naga::front::wgsl::parse_str(text)
            .unwrap_or_else(|e| panic!("{name}: {}", e.emit_to_string(text)));
        naga::valid::Validator::new(
            naga::valid::ValidationFlags::all(),
            naga::valid::Capabilities::empty(),
        )
        .validate(&module)
        .unwrap_or_else(|e| panic!("{name}: {e:?}"));
        let mut read_only = 0;
        for (_, var) in module.global_variables.iter() {
            let naga::AddressSpace::Storage { access: a } = var.space else {
                continue;
            };
            let b = var.binding.as_ref().expect("bound").binding % split::SECOND_PART;
            let writes = a.contains(naga::StorageAccess::STORE);
            let want = access[b as usize - 1];
            assert_eq!(writes, want == Access::ReadWrite, "{name}: binding {b}");
            read_only += usize::from(!writes);
        }
        read_only
    }
}
