//! Placement on the GPU: when the terrain changes, a compute pass (`shaders/place.wgsl`)
//! puts each object instance's ground height, read from the new height field, into the
//! instance buffer in place. Nothing is laid out again and no instance is uploaded again.
//!
//! Each instance's sample point (under its origin when draped, at its ground point
//! otherwise) is uploaded once, beside the instances.

use bytemuck::{Pod, Zeroable};
use wgpu::util::DeviceExt;

/// The `Grid` uniform of `place.wgsl`.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Pod, Zeroable)]
struct GridGpu {
    grid: [f32; 4],
    counts: [u32; 4],
}

/// The placement pipeline, built once per device where compute shaders run.
pub(crate) struct PlacePipeline {
    layout: wgpu::BindGroupLayout,
    pipeline: wgpu::ComputePipeline,
}

const PLACE_WGSL: &str = include_str!("../shaders/place.wgsl");

impl PlacePipeline {
    pub fn new(device: &wgpu::Device) -> Self {
        let compute = wgpu::ShaderStages::COMPUTE;
        let buffer = |binding, ty| wgpu::BindGroupLayoutEntry {
            binding,
            visibility: compute,
            ty: wgpu::BindingType::Buffer {
                ty,
                has_dynamic_offset: false,
                min_binding_size: None,
            },
            count: None,
        };
        let layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("placement"),
            entries: &[
                buffer(0, wgpu::BufferBindingType::Uniform),
                wgpu::BindGroupLayoutEntry {
                    binding: 1,
                    visibility: compute,
                    ty: wgpu::BindingType::Texture {
                        sample_type: wgpu::TextureSampleType::Float { filterable: false },
                        view_dimension: wgpu::TextureViewDimension::D2,
                        multisampled: false,
                    },
                    count: None,
                },
                buffer(2, wgpu::BufferBindingType::Storage { read_only: false }),
                buffer(3, wgpu::BufferBindingType::Storage { read_only: true }),
            ],
        });
        let pipeline_layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: Some("placement"),
            bind_group_layouts: &[Some(&layout)],
            immediate_size: 0,
        });
        let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
            label: Some("placement"),
            source: wgpu::ShaderSource::Wgsl(PLACE_WGSL.into()),
        });
        let pipeline = device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
            label: Some("placement"),
            layout: Some(&pipeline_layout),
            module: &module,
            entry_point: Some("place"),
            compilation_options: Default::default(),
            cache: None,
        });
        PlacePipeline { layout, pipeline }
    }
}

/// The sample points of a scene's instances, on the GPU.
pub(crate) struct GpuPlacement {
    points: wgpu::Buffer,
    count: u32,
}

impl GpuPlacement {
    /// Uploads the sample points (one per instance, in the instance buffer's order) to a
    /// buffer of `usage` (`STORAGE`, and `MAP_WRITE` where uploads are mapped).
    pub fn new(
        device: &wgpu::Device,
        points: impl AsRef<[[f32; 2]]>,
        usage: wgpu::BufferUsages,
    ) -> Self {
        let points = points.as_ref();
        let dummy = [[0.0f32; 2]];
        let data: &[[f32; 2]] = if points.is_empty() { &dummy } else { points };
        GpuPlacement {
            points: device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
                label: Some("instance sample points"),
                contents: bytemuck::cast_slice(data),
                usage,
            }),
            count: points.len() as u32,
        }
    }

    pub fn bytes(&self) -> u64 {
        self.points.size()
    }

    /// Records the pass that writes every instance's ground height from `heights` (an
    /// R32Float height field of `resolution²` samples from `origin`, `cell` meters apart),
    /// one dispatch per window of the instance buffer the adapter can bind.
    pub fn encode(
        &self,
        device: &wgpu::Device,
        encoder: &mut wgpu::CommandEncoder,
        pipe: &PlacePipeline,
        instances: &wgpu::Buffer,
        heights: &wgpu::TextureView,
        grid: ([f32; 2], f32, u32),
    ) {
        let max = super::cull::max_binding(device);
        for page in super::cull::pages(self.count, max) {
            self.encode_page(device, encoder, pipe, instances, heights, grid, page);
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn encode_page(
        &self,
        device: &wgpu::Device,
        encoder: &mut wgpu::CommandEncoder,
        pipe: &PlacePipeline,
        instances: &wgpu::Buffer,
        heights: &wgpu::TextureView,
        grid: ([f32; 2], f32, u32),
        page: std::ops::Range<u32>,
    ) {
        let count = page.end - page.start;
        let window = |buffer, size: u64| {
            wgpu::BindingResource::Buffer(wgpu::BufferBinding {
                buffer,
                offset: u64::from(page.start) * size,
                size: wgpu::BufferSize::new(u64::from(count) * size),
            })
        };
        let (origin, cell, resolution) = grid;
        let u = GridGpu {
            grid: [origin[0], origin[1], cell, resolution as f32],
            counts: [count, 0, 0, 0],
        };
        let uniform = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("placement grid"),
            contents: bytemuck::bytes_of(&u),
            usage: wgpu::BufferUsages::UNIFORM,
        });
        let group = device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("placement"),
            layout: &pipe.layout,
            entries: &[
                wgpu::BindGroupEntry {
                    binding: 0,
                    resource: uniform.as_entire_binding(),
                },
                wgpu::BindGroupEntry {
                    binding: 1,
                    resource: wgpu::BindingResource::TextureView(heights),
                },
                wgpu::BindGroupEntry {
                    binding: 2,
                    resource: window(instances, 32),
                },
                wgpu::BindGroupEntry {
                    binding: 3,
                    resource: window(&self.points, 8),
                },
            ],
        });
        let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
            label: Some("placement"),
            timestamp_writes: None,
        });
        pass.set_pipeline(&pipe.pipeline);
        pass.set_bind_group(0, &group, &[]);
        let groups = count.div_ceil(256);
        let x = groups.min(65_535);
        pass.dispatch_workgroups(x, groups.div_ceil(x), 1);
    }
}
