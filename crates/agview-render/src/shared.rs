//! What every scene is uploaded with and every frame binds, built once per device: the
//! frame and material bind group layouts, the samplers, the shadow map's stand-in, the
//! compute pipelines of GPU culling and placement, the culling path, and the object
//! pipelines' keys. Below both the [`Renderer`](super::Renderer), whose pipelines use them,
//! and the [`SceneGpu`](super::SceneGpu), whose buffers and bind groups are made with them.

use super::context::GpuContext;
use super::cull::{CullPipelines, Culling};
use super::placement::PlacePipeline;

/// The depth buffer's format (reversed depth: cleared to 0, nearer is greater).
pub(crate) const DEPTH_FORMAT: wgpu::TextureFormat = wgpu::TextureFormat::Depth32Float;
/// The shadow map's format (not reversed: 0 toward the sun, cleared to 1).
pub(crate) const SHADOW_FORMAT: wgpu::TextureFormat = wgpu::TextureFormat::Depth32Float;

/// Anisotropic filtering: 8× on GPUs. A software rasterizer filters anisotropically in
/// software, which made a street-level view of a textured city 180 times slower on lavapipe
/// (25 s against 0.14 s a frame): there it is off. `AGVIEW_ANISOTROPY=1..16` overrides.
fn anisotropy(ctx: &GpuContext) -> u16 {
    if let Some(n) = std::env::var("AGVIEW_ANISOTROPY")
        .ok()
        .and_then(|v| v.parse::<u16>().ok())
    {
        return n.clamp(1, 16);
    }
    if cpu_adapter(ctx) {
        1
    } else {
        8
    }
}

/// The smallest scene ([`bin_load`]) whose frames a CPU adapter splits (`pipelines::Split`),
/// and whose whole upload gives freed memory back per stage: a frame's bins grow with what
/// it draws, some 340 MB for the tile's 3.8 million instances and tile quads, so under a
/// quarter of a million they are some 20 MB, and the waits between chunks would cost for
/// nothing. Edit mode's one asset (`agview bench edit`, 20,000 trees and 1,200 objects,
/// 1280×720) split: its plain frame 574 ms against 408 in one pass, and with the upload's
/// per-stage release (`SceneGpu`'s whole upload) its relayout's upload 8.4 ms against 5.2;
/// both back with this threshold (406 and 4.8 ms).
pub(crate) const SPLIT_FROM: usize = 250_000;

/// What a CPU adapter's frame bins grow with, compared with [`SPLIT_FROM`]: a scene's
/// objects, trees and tile quads together. The upload, before it merges tile runs into
/// quads, counts the tiles (as many as the quads, or more).
pub(crate) fn bin_load(objects: usize, trees: usize, tile_quads: usize) -> usize {
    objects + trees + tile_quads
}

/// Whether the adapter is a software rasterizer (lavapipe, llvmpipe): anisotropic filtering
/// is off there, and the window draws 1× while the scene loads or the camera moves, then
/// one 4× frame once still (multisampled depth testing was over half of a first frame).
pub fn cpu_adapter(ctx: &GpuContext) -> bool {
    ctx.adapter.get_info().device_type == wgpu::DeviceType::Cpu
}

/// The layouts, samplers and compute pipelines shared by the renderer's pipelines and every
/// scene's bind groups: immutable after creation.
pub struct GpuShared {
    pub(crate) frame_layout: wgpu::BindGroupLayout,
    pub(crate) material_layout: wgpu::BindGroupLayout,
    pub(crate) sampler: wgpu::Sampler,
    /// The material sampler's anisotropy (the shaders keep their probes inside an atlas
    /// rectangle by it).
    pub(crate) anisotropy: u16,
    /// The shadow map's comparison sampler (less-equal, linear: 2×2 PCF per tap).
    pub(crate) shadow_sampler: wgpu::Sampler,
    /// A 1×1 depth texture bound where the shadow map goes while the map is drawn.
    pub(crate) shadow_stand_in: wgpu::TextureView,
    /// Texels a side of the scenes' shadow maps.
    pub(crate) shadow_size: u32,
    pub(crate) cull: Option<CullPipelines>,
    /// The placement pass ([`super::placement`]), with the GPU culling's needs.
    pub(crate) place: Option<PlacePipeline>,
    /// The culling path new scenes take ([`Culling::choose`]) and why.
    pub(crate) culling: Culling,
    culling_reason: String,
}

impl GpuShared {
    pub fn new(ctx: &GpuContext) -> Self {
        let device = &ctx.device;
        let frame_layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("frame"),
            entries: &[
                wgpu::BindGroupLayoutEntry {
                    binding: 0,
                    visibility: wgpu::ShaderStages::VERTEX_FRAGMENT,
                    ty: wgpu::BindingType::Buffer {
                        ty: wgpu::BufferBindingType::Uniform,
                        has_dynamic_offset: false,
                        min_binding_size: None,
                    },
                    count: None,
                },
                wgpu::BindGroupLayoutEntry {
                    binding: 1,
                    visibility: wgpu::ShaderStages::VERTEX_FRAGMENT,
                    ty: wgpu::BindingType::Texture {
                        sample_type: wgpu::TextureSampleType::Float { filterable: false },
                        view_dimension: wgpu::TextureViewDimension::D2,
                        multisampled: false,
                    },
                    count: None,
                },
                wgpu::BindGroupLayoutEntry {
                    binding: 2,
                    visibility: wgpu::ShaderStages::FRAGMENT,
                    ty: wgpu::BindingType::Sampler(wgpu::SamplerBindingType::Filtering),
                    count: None,
                },
                wgpu::BindGroupLayoutEntry {
                    binding: 3,
                    visibility: wgpu::ShaderStages::FRAGMENT,
                    ty: wgpu::BindingType::Texture {
                        sample_type: wgpu::TextureSampleType::Depth,
                        view_dimension: wgpu::TextureViewDimension::D2,
                        multisampled: false,
                    },
                    count: None,
                },
                wgpu::BindGroupLayoutEntry {
                    binding: 4,
                    visibility: wgpu::ShaderStages::FRAGMENT,
                    ty: wgpu::BindingType::Sampler(wgpu::SamplerBindingType::Comparison),
                    count: None,
                },
            ],
        });
        let material_layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("material"),
            entries: &[
                wgpu::BindGroupLayoutEntry {
                    binding: 0,
                    visibility: wgpu::ShaderStages::FRAGMENT,
                    ty: wgpu::BindingType::Texture {
                        sample_type: wgpu::TextureSampleType::Float { filterable: true },
                        view_dimension: wgpu::TextureViewDimension::D2,
                        multisampled: false,
                    },
                    count: None,
                },
                wgpu::BindGroupLayoutEntry {
                    binding: 1,
                    visibility: wgpu::ShaderStages::VERTEX_FRAGMENT,
                    ty: wgpu::BindingType::Buffer {
                        ty: wgpu::BufferBindingType::Uniform,
                        has_dynamic_offset: false,
                        min_binding_size: None,
                    },
                    count: None,
                },
                // The lit texture (`TEXTURE_LIT`); black where the material has none.
                wgpu::BindGroupLayoutEntry {
                    binding: 2,
                    visibility: wgpu::ShaderStages::FRAGMENT,
                    ty: wgpu::BindingType::Texture {
                        sample_type: wgpu::TextureSampleType::Float { filterable: true },
                        view_dimension: wgpu::TextureViewDimension::D2,
                        multisampled: false,
                    },
                    count: None,
                },
                // The normal map (`TEXTURE_NORMAL`); flat where the material has none.
                wgpu::BindGroupLayoutEntry {
                    binding: 3,
                    visibility: wgpu::ShaderStages::FRAGMENT,
                    ty: wgpu::BindingType::Texture {
                        sample_type: wgpu::TextureSampleType::Float { filterable: true },
                        view_dimension: wgpu::TextureViewDimension::D2,
                        multisampled: false,
                    },
                    count: None,
                },
                // The material map (`TEXTURE_MAP material_gloss` / `gloss`); black where the
                // material has none.
                wgpu::BindGroupLayoutEntry {
                    binding: 4,
                    visibility: wgpu::ShaderStages::FRAGMENT,
                    ty: wgpu::BindingType::Texture {
                        sample_type: wgpu::TextureSampleType::Float { filterable: true },
                        view_dimension: wgpu::TextureViewDimension::D2,
                        multisampled: false,
                    },
                    count: None,
                },
            ],
        });
        let anisotropy = anisotropy(ctx);
        let sampler = device.create_sampler(&wgpu::SamplerDescriptor {
            label: Some("material"),
            address_mode_u: wgpu::AddressMode::Repeat,
            address_mode_v: wgpu::AddressMode::Repeat,
            address_mode_w: wgpu::AddressMode::Repeat,
            mag_filter: wgpu::FilterMode::Linear,
            min_filter: wgpu::FilterMode::Linear,
            mipmap_filter: wgpu::MipmapFilterMode::Linear,
            anisotropy_clamp: anisotropy,
            ..Default::default()
        });
        let shadow_sampler = device.create_sampler(&wgpu::SamplerDescriptor {
            label: Some("shadow map"),
            address_mode_u: wgpu::AddressMode::ClampToEdge,
            address_mode_v: wgpu::AddressMode::ClampToEdge,
            mag_filter: wgpu::FilterMode::Linear,
            min_filter: wgpu::FilterMode::Linear,
            compare: Some(wgpu::CompareFunction::LessEqual),
            ..Default::default()
        });
        let shadow_stand_in = device
            .create_texture(&wgpu::TextureDescriptor {
                label: Some("shadow map stand-in"),
                size: wgpu::Extent3d {
                    width: 1,
                    height: 1,
                    depth_or_array_layers: 1,
                },
                mip_level_count: 1,
                sample_count: 1,
                dimension: wgpu::TextureDimension::D2,
                format: SHADOW_FORMAT,
                usage: wgpu::TextureUsages::TEXTURE_BINDING,
                view_formats: &[],
            })
            .create_view(&wgpu::TextureViewDescriptor::default());
        let (culling, culling_reason) = Culling::choose(ctx);
        // Culling and placement on the GPU need the same compute and storage support.
        let compute = Culling::gpu_supported(ctx);
        GpuShared {
            frame_layout,
            material_layout,
            sampler,
            anisotropy,
            shadow_sampler,
            shadow_stand_in,
            shadow_size: super::shadow::shadow_map_size(device),
            cull: compute.then(|| CullPipelines::new(device)),
            place: compute.then(|| PlacePipeline::new(device)),
            culling,
            culling_reason,
        }
    }

    /// The culling path new scenes take, and why (for the log).
    pub fn culling(&self) -> (Culling, &str) {
        (self.culling, &self.culling_reason)
    }
}

/// The object pipeline a range of a mesh is drawn with, from its OBJ8 material attributes
/// ([`crate::art::DrawState`]): back faces culled or not, alpha-tested or blended. The
/// cutoff and flat shading are the material's uniforms, not pipelines.
///
/// OBJ8 triangles are clockwise seen from their front, and the object shader's turn from
/// OBJ8 axes to the world keeps handedness, so the front face is `Cw`. Alpha-tested
/// ranges use alpha-to-coverage under MSAA (the shader turns the alpha into a coverage
/// around the cutoff, `COVERAGE`), so thin cutouts stay whole and smooth in the distance.
/// Blended ranges blend over what is drawn before them and write depth, as X-Plane draws
/// them, unsorted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct ObjectPipeline {
    pub cull: bool,
    pub blend: bool,
}

impl ObjectPipeline {
    pub(crate) const COUNT: usize = 4;
    pub const ALL: [ObjectPipeline; Self::COUNT] = [
        ObjectPipeline {
            cull: false,
            blend: false,
        },
        ObjectPipeline {
            cull: true,
            blend: false,
        },
        ObjectPipeline {
            cull: false,
            blend: true,
        },
        ObjectPipeline {
            cull: true,
            blend: true,
        },
    ];

    /// The pipeline of a range's material attributes.
    pub fn of(state: &crate::art::DrawState) -> Self {
        ObjectPipeline {
            cull: state.cull,
            blend: state.alpha_cutoff.is_none(),
        }
    }

    /// Its place in the renderer's arrays.
    pub fn index(self) -> u8 {
        u8::from(self.cull) | (u8::from(self.blend) << 1)
    }
}
