//! The [`Renderer`]: bind group layouts, the six pipelines and the sampler, built once; and
//! [`Renderer::draw`], which records a frame of a [`SceneGpu`] into any texture view.

use std::borrow::Cow;

use super::context::GpuContext;
use super::cull::Culling;
use super::draped::{DrapedKind, GroundDraw};
use super::facades::FacadeVertex;
use super::objects::{InstanceGpu, MeshVertexGpu};
use super::overlay::LineVertex;
use super::scene_gpu::SceneGpu;
use super::shaders::{
    FACADE_WGSL, LIGHTS_WGSL, LINES_WGSL, OBJECT_WGSL, SKY_WGSL, TERRAIN_WGSL, TILE_WGSL,
    TONEMAP_WGSL, TREE_WGSL,
};
use super::shared::{GpuShared, ObjectPipeline, DEPTH_FORMAT, SHADOW_FORMAT};
use super::tiles::{AutogenVertex, TileVertex};
use super::trees::TreeInstanceGpu;

/// Shadow-map taps per lookup (`SHADOW_TAPS` in common.wgsl): four bilinear comparisons
/// (3×3 texels of PCF) on GPUs, one (2×2) on software rasterizers, where four cost as much
/// as the rest of the frame (a 20,000-object city on lavapipe: 1.39 s a frame with four
/// against 0.88 s with one and 0.69 s without shadows).
fn shadow_taps(ctx: &GpuContext) -> f64 {
    if ctx.adapter.get_info().device_type == wgpu::DeviceType::Cpu {
        1.0
    } else {
        4.0
    }
}

/// The light points' share of their disc that the glow fills (`GLOW_SHARE`).
const LIGHT_CONSTANTS: &[(&str, f64)] =
    &[("GLOW_SHARE", super::photometry::LIGHT_GLOW_SHARE as f64)];

/// The format every scene pipeline draws into: half floats, the frame in HDR (exposed
/// nits, `agview_mesh::photometry`), as X-Plane 12 renders ("16-bit floating point",
/// XP12.md §5). Lavapipe and every desktop GPU render and multisample it.
pub const HDR_FORMAT: wgpu::TextureFormat = wgpu::TextureFormat::Rgba16Float;

/// The pipelines, built once over the [`GpuShared`] layouts and samplers they bind, and
/// shared by every scene and frame. A renderer derefs to its [`GpuShared`], which is what a
/// [`SceneGpu`] is uploaded with.
pub struct Renderer {
    /// The output's format (the window's surface, the offscreen image): what the tonemap
    /// pass writes. The scene itself is drawn in [`HDR_FORMAT`].
    pub(crate) color_format: wgpu::TextureFormat,
    pub(crate) sample_count: u32,
    /// The layouts, samplers and compute pipelines that scenes are uploaded with: shared
    /// with a renderer of another sample count ([`Renderer::with_sample_count`]), so that a
    /// scene uploaded for one is drawn by the other.
    shared: std::sync::Arc<GpuShared>,
    terrain: wgpu::RenderPipeline,
    /// The terrain's skirt out to the horizon (`vs_skirt` of terrain.wgsl).
    skirt: wgpu::RenderPipeline,
    sky: wgpu::RenderPipeline,
    /// Depth-only pipelines of the shadow casters, drawn from the sun.
    shadow_objects: wgpu::RenderPipeline,
    shadow_objects_culled: Option<wgpu::RenderPipeline>,
    shadow_facades: wgpu::RenderPipeline,
    shadow_trees: wgpu::RenderPipeline,
    /// Draped pieces ([`TileVertex`]: draped parts, polygons, lines, roads).
    tiles: wgpu::RenderPipeline,
    /// Autogen tiles ([`AutogenVertex`], `vs_autogen`): the same but for the vertex.
    autogen: wgpu::RenderPipeline,
    /// One per [`ObjectPipeline`] (material attributes).
    objects: [wgpu::RenderPipeline; ObjectPipeline::COUNT],
    /// The same drawn from the GPU culling's lists (`vs_culled`), where supported.
    objects_culled: Option<[wgpu::RenderPipeline; ObjectPipeline::COUNT]>,
    facades: wgpu::RenderPipeline,
    trees: wgpu::RenderPipeline,
    lines: wgpu::RenderPipeline,
    lights: wgpu::RenderPipeline,
    /// The HDR frame through the tonemap curve into the output (`tonemap.wgsl`).
    tonemap: wgpu::RenderPipeline,
    /// The same from a smaller HDR frame, stretched over the output ([`FrameTargets::reduced`]).
    tonemap_scaled: wgpu::RenderPipeline,
    tonemap_layout: wgpu::BindGroupLayout,
    /// Where the scene's pass is split ([`Split`]): a CPU adapter's frames.
    split: Option<Split>,
}

/// The groups of the scene pass's draws, in order: the terrain and its skirt, the draped
/// ground (tiles, polygons, lines), the objects, the facades, the trees, then the sky, the
/// light points and the overlays' lines ([`Renderer::draw_stage`]).
const SCENE_STAGES: usize = 6;

/// The scene's pass recorded as a few passes, each submitted, and waited for once the next
/// is submitted ([`Split::submit_and_wait`]): on a software rasterizer the draws of a pass are binned (llvmpipe's scenes)
/// faster than its threads rasterize them, and a whole frame's bins in flight were the
/// largest single allocation of the 100,000-feature tile's frames (some 340 MB); freed,
/// they stay in the C allocator's heaps of lavapipe's threads, under the next frame's. In
/// chunks, at most two chunks' bins are held at once, and freed ones are reused.
/// Chunks begin at `starts` (positions in [`SCENE_STAGES`]: 4.25 is a quarter into the
/// trees' instances, [`share`]); the first clears the targets, the others load what the
/// one before stored, and only the last resolves the samples. A real GPU draws one pass.
struct Split {
    device: wgpu::Device,
    queue: wgpu::Queue,
    starts: &'static [f32],
    /// The least [`super::shared::bin_load`] of a scene that is split
    /// ([`super::shared::SPLIT_FROM`]; a test splits any).
    from: usize,
}

/// Where a CPU adapter's frames are split ([`Split`]): after the ground, after the facades,
/// and halfway through the trees (their 1.6 million instances are a few draws, whose bins
/// were the largest chunk's). Peak RSS of the 100,000-feature tile (`agview bench tile`;
/// 2-core machine shared with other builds): one pass 1,676 MB; chunks after the terrain
/// and the ground, the 4× frame only, 1,534. With the upload's freed memory given back
/// after each stage (`SceneGpu::upload`), the 1× first frame split too, and each chunk
/// waited for at once, 3 runs each: after every group, the trees whole, 1,500-1,503 MB;
/// the trees in halves 1,426-1,453, in quarters 1,386-1,423, in eighths 1,374-1,398; the
/// trees in halves with the 1× frame one pass 1,461-1,571. Each chunk waited for once the
/// next is submitted (4 runs each, interleaved): the 1× first frame 1,043 ms median
/// (901-1,093) against 935 (765-1,052), and 853 (813-942) in one pass; peak 1,368-1,382 MB
/// either way. Then these 4 chunks against 8 (after every group, the trees in quarters),
/// 6 runs each, interleaved with one pass: peak 1,377-1,388 MB against 1,369-1,390 (one
/// pass 1,660-1,674); GPU frame time 1,417 ms median (1,302-1,587) against 1,540
/// (1,340-1,702) and one pass's 1,410 (1,244-1,619); first frame 820 (743-1,058) against
/// 806 (781-887) and 740 (685-950). On the quiet machine (5 pairs with one pass): peak
/// 1,378 MB (1,365-1,381) against 1,671 (1,662-1,679); the GPU frame time 8 % longer,
/// 1,344 ms (1,288-1,459) against 1,244 (1,225-1,270), and the 1× first frame 753
/// (717-758) against 692 (677-728): the waits' price for some 290 MB.
const SPLIT_STARTS: [f32; 3] = [2.0, 4.0, 4.5];

impl Split {
    /// For `ctx`'s frames: on a CPU adapter's, 1× (the window's while it loads or moves) or
    /// multisampled alike.
    fn of(ctx: &GpuContext) -> Option<Split> {
        super::shared::cpu_adapter(ctx).then(|| Split {
            device: ctx.device.clone(),
            queue: ctx.queue.clone(),
            starts: &SPLIT_STARTS,
            from: super::shared::SPLIT_FROM,
        })
    }

    /// Submits what `encoder` recorded, leaves a new encoder in its place, and waits until
    /// the device has done the chunk submitted before (`in_flight`), not this one: the
    /// rasterizer's threads draw one chunk while its queue bins the next, so at most two
    /// chunks' bins are held at once. Waiting for each chunk itself held one, and left the
    /// rasterizer idle while the next was binned: the tile's 1× first frame took 15-20 %
    /// longer than in one pass.
    fn submit_and_wait(
        &self,
        encoder: &mut wgpu::CommandEncoder,
        in_flight: &mut Option<wgpu::SubmissionIndex>,
    ) {
        let next = self
            .device
            .create_command_encoder(&wgpu::CommandEncoderDescriptor {
                label: Some("scene chunk"),
            });
        let done = std::mem::replace(encoder, next);
        let index = self.queue.submit([done.finish()]);
        if let Some(before) = in_flight.replace(index) {
            // A lost device shows at the frame's own submit.
            let _ = self.device.poll(wgpu::PollType::Wait {
                submission_index: Some(before),
                timeout: None,
            });
        }
    }
}

impl std::ops::Deref for Renderer {
    type Target = GpuShared;
    fn deref(&self) -> &GpuShared {
        &self.shared
    }
}

/// The multisampled colour, the HDR frame it resolves to and the depth buffer a frame of
/// a given size draws into, and the tonemap pass's binding of the HDR frame.
pub struct FrameTargets {
    /// The size the scene is drawn at (the output's, or less: [`FrameTargets::reduced`]).
    pub width: u32,
    pub height: u32,
    /// The HDR frame is smaller than the output and stretched over it by the tonemap pass.
    scaled: bool,
    msaa: Option<wgpu::TextureView>,
    hdr: wgpu::TextureView,
    tonemap_bind: wgpu::BindGroup,
    depth: wgpu::TextureView,
}

impl FrameTargets {
    /// Targets for `width × height` frames of `renderer` (recreate on resize).
    pub fn new(device: &wgpu::Device, renderer: &Renderer, width: u32, height: u32) -> Self {
        let (width, height) = (width.max(1), height.max(1));
        let size = wgpu::Extent3d {
            width,
            height,
            depth_or_array_layers: 1,
        };
        let make = |label, format, samples, usage| {
            device
                .create_texture(&wgpu::TextureDescriptor {
                    label: Some(label),
                    size,
                    mip_level_count: 1,
                    sample_count: samples,
                    dimension: wgpu::TextureDimension::D2,
                    format,
                    usage,
                    view_formats: &[],
                })
                .create_view(&wgpu::TextureViewDescriptor::default())
        };
        let attach = wgpu::TextureUsages::RENDER_ATTACHMENT;
        let samples = renderer.sample_count;
        let hdr = make(
            "hdr frame",
            HDR_FORMAT,
            1,
            attach | wgpu::TextureUsages::TEXTURE_BINDING,
        );
        let tonemap_bind = device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("tonemap"),
            layout: &renderer.tonemap_layout,
            entries: &[wgpu::BindGroupEntry {
                binding: 0,
                resource: wgpu::BindingResource::TextureView(&hdr),
            }],
        });
        FrameTargets {
            width,
            height,
            scaled: false,
            msaa: (samples > 1).then(|| make("msaa colour", HDR_FORMAT, samples, attach)),
            hdr,
            tonemap_bind,
            depth: make("depth", DEPTH_FORMAT, samples, attach),
        }
    }

    /// Targets that draw the scene at `1/divisor` of a `width × height` output in each
    /// axis (rounded up), which the tonemap pass stretches over the output, filtered: a
    /// cheaper frame of the same view (the viewer's drag preview). Prepare the scene with
    /// this size ([`FrameTargets::width`], [`FrameTargets::height`]).
    pub fn reduced(
        device: &wgpu::Device,
        renderer: &Renderer,
        width: u32,
        height: u32,
        divisor: u32,
    ) -> Self {
        let d = divisor.max(1);
        let mut t = FrameTargets::new(
            device,
            renderer,
            width.max(1).div_ceil(d),
            height.max(1).div_ceil(d),
        );
        t.scaled = d > 1;
        t
    }
}

/// What one frame drew.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct DrawStats {
    pub draw_calls: u32,
    /// Instances submitted to object draws (each LOD draw counts its instances).
    pub instances: u64,
    /// Triangles submitted, before LOD culling in the vertex shader.
    pub triangles: u64,
}

impl Renderer {
    /// Builds every pipeline for frames of `color_format` with `sample_count` samples
    /// (1 or a count from [`Renderer::best_sample_count`]).
    pub fn new(ctx: &GpuContext, color_format: wgpu::TextureFormat, sample_count: u32) -> Self {
        Self::build(
            ctx,
            std::sync::Arc::new(GpuShared::new(ctx)),
            color_format,
            sample_count,
            None,
        )
    }

    /// The same pipelines with `sample_count` samples over this renderer's [`GpuShared`]
    /// (its bind group layouts, samplers and culling): a scene uploaded for either is drawn
    /// by both (the window's 1× frames while a CPU adapter loads or moves, its `refine`).
    /// The pipelines that do not draw into the multisampled frame (the shadow map's, the
    /// tonemap's) are this renderer's own, not built again: on a software rasterizer each
    /// built pipeline's machine code is the process's memory.
    pub fn with_sample_count(&self, ctx: &GpuContext, sample_count: u32) -> Self {
        Self::build(
            ctx,
            self.shared.clone(),
            self.color_format,
            sample_count,
            Some(self),
        )
    }

    /// The frames' sample count.
    pub fn sample_count(&self) -> u32 {
        self.sample_count
    }

    /// Builds the pipelines; those that do not depend on the sample count are `reuse`'s
    /// where given ([`Renderer::with_sample_count`]).
    fn build(
        ctx: &GpuContext,
        shared: std::sync::Arc<GpuShared>,
        color_format: wgpu::TextureFormat,
        sample_count: u32,
        reuse: Option<&Renderer>,
    ) -> Self {
        let device = &ctx.device;
        let (frame_layout, material_layout) = (&shared.frame_layout, &shared.material_layout);
        let aniso = shared.anisotropy;
        let frame_only = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: Some("frame only"),
            bind_group_layouts: &[Some(frame_layout)],
            immediate_size: 0,
        });
        let with_material = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: Some("frame + material"),
            bind_group_layouts: &[Some(frame_layout), Some(material_layout)],
            immediate_size: 0,
        });
        // The samplers' anisotropy goes to the shaders too: `atlas_sample` keeps the probes'
        // spread inside a tile's or a tree's atlas rectangle.
        let constants = [
            ("SHADOW_TAPS", shadow_taps(ctx)),
            ("ANISOTROPY", f64::from(aniso)),
        ];
        let b = PipelineBuilder {
            device,
            color_format: HDR_FORMAT,
            sample_count,
            constants: &constants,
        };
        let terrain = b.build(&Spec {
            label: "terrain",
            source: &TERRAIN_WGSL,
            entry: "vs_main",
            layout: &frame_only,
            // Per instance: the chunk's origin (`terrain_chunks::ChunkOrigin`).
            buffers: &[Some(wgpu::VertexBufferLayout {
                array_stride: std::mem::size_of::<super::terrain_chunks::ChunkOrigin>() as u64,
                step_mode: wgpu::VertexStepMode::Instance,
                attributes: &wgpu::vertex_attr_array![0 => Uint32x2],
            })],
            topology: wgpu::PrimitiveTopology::TriangleList,
            cull: Some(wgpu::Face::Back),
            depth_write: true,
            blend: None,
        });
        let skirt = b.build(&Spec {
            label: "terrain skirt",
            source: &TERRAIN_WGSL,
            entry: "vs_skirt",
            layout: &frame_only,
            buffers: &[],
            topology: wgpu::PrimitiveTopology::TriangleList,
            cull: Some(wgpu::Face::Back),
            depth_write: true,
            blend: None,
        });
        // Drawn last, at the far depth (0), where nothing else was: no depth write, and the
        // test lets it through only where the depth is still the cleared 0.
        let sky = b.build(&Spec {
            label: "sky",
            source: &SKY_WGSL,
            entry: "vs_main",
            layout: &frame_only,
            buffers: &[],
            topology: wgpu::PrimitiveTopology::TriangleList,
            cull: None,
            depth_write: false,
            blend: None,
        });
        // Draped pieces and autogen tiles: the same but for the vertex (`TileVertex`,
        // `AutogenVertex` without the show levels).
        let ground_spec = |label, entry, buffers| Spec {
            label,
            source: &TILE_WGSL,
            entry,
            layout: &with_material,
            buffers,
            topology: wgpu::PrimitiveTopology::TriangleList,
            cull: None,
            depth_write: false,
            blend: Some(wgpu::BlendState::ALPHA_BLENDING),
        };
        let tile_attributes = wgpu::vertex_attr_array![
            0 => Float32x2, 1 => Float32x2, 2 => Float32, 3 => Float32x2, 4 => Unorm16x4
        ];
        let tile_vertices = [Some(wgpu::VertexBufferLayout {
            array_stride: std::mem::size_of::<TileVertex>() as u64,
            step_mode: wgpu::VertexStepMode::Vertex,
            attributes: &tile_attributes,
        })];
        let autogen_attributes = wgpu::vertex_attr_array![
            0 => Float32x2, 1 => Float32x2, 2 => Float32, 3 => Unorm16x4
        ];
        let autogen_vertices = [Some(wgpu::VertexBufferLayout {
            array_stride: std::mem::size_of::<AutogenVertex>() as u64,
            step_mode: wgpu::VertexStepMode::Vertex,
            attributes: &autogen_attributes,
        })];
        let tiles = b.build(&ground_spec("tiles", "vs_main", &tile_vertices));
        let autogen = b.build(&ground_spec(
            "autogen tiles",
            "vs_autogen",
            &autogen_vertices,
        ));
        let mesh_vertices = wgpu::VertexBufferLayout {
            array_stride: std::mem::size_of::<MeshVertexGpu>() as u64,
            step_mode: wgpu::VertexStepMode::Vertex,
            attributes: &wgpu::vertex_attr_array![0 => Float32x3, 1 => Float32x3, 2 => Float32x2],
        };
        let instance_vertices = wgpu::VertexBufferLayout {
            array_stride: std::mem::size_of::<InstanceGpu>() as u64,
            step_mode: wgpu::VertexStepMode::Instance,
            attributes: &wgpu::vertex_attr_array![3 => Float32x4, 4 => Float32x4],
        };
        let object_buffers = [Some(mesh_vertices.clone()), Some(instance_vertices)];
        let objects = ObjectPipeline::ALL.map(|p| {
            let (spec, raster) = p.spec(
                &OBJECT_WGSL,
                "vs_main",
                &with_material,
                &object_buffers,
                sample_count,
            );
            b.build_with(&spec, &raster)
        });
        // The shadow map's: one for every material (both faces; the cutoff is the shader's).
        let shadow_spec = |label, entry, layout, buffers| Spec {
            label,
            source: &OBJECT_WGSL,
            entry,
            layout,
            buffers,
            topology: wgpu::PrimitiveTopology::TriangleList,
            cull: None,
            depth_write: true,
            blend: None,
        };
        let shadow_objects = match reuse {
            Some(r) => r.shadow_objects.clone(),
            None => b.build_shadow(
                &shadow_spec(
                    "objects (shadow)",
                    "vs_main",
                    &with_material,
                    &object_buffers,
                ),
                Some("fs_shadow"),
            ),
        };
        let culled_layout = shared.cull.as_ref().map(|c| {
            device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
                label: Some("frame + material + culled instances"),
                bind_group_layouts: &[
                    Some(frame_layout),
                    Some(material_layout),
                    Some(&c.draw_layout),
                ],
                immediate_size: 0,
            })
        });
        let culled_buffers = [Some(mesh_vertices.clone())];
        let objects_culled = culled_layout.as_ref().map(|layout| {
            ObjectPipeline::ALL.map(|p| {
                let (spec, raster) = p.spec(
                    &OBJECT_WGSL,
                    "vs_culled",
                    layout,
                    &culled_buffers,
                    sample_count,
                );
                b.build_with(&spec, &raster)
            })
        });
        let shadow_objects_culled = match reuse {
            Some(r) => r.shadow_objects_culled.clone(),
            None => culled_layout.as_ref().map(|layout| {
                b.build_shadow(
                    &shadow_spec(
                        "objects (culled, shadow)",
                        "vs_culled",
                        layout,
                        &culled_buffers,
                    ),
                    Some("fs_shadow"),
                )
            }),
        };
        let facades_spec = Spec {
            label: "facades",
            source: &FACADE_WGSL,
            entry: "vs_main",
            layout: &with_material,
            buffers: &[Some(wgpu::VertexBufferLayout {
                array_stride: std::mem::size_of::<FacadeVertex>() as u64,
                step_mode: wgpu::VertexStepMode::Vertex,
                attributes: &wgpu::vertex_attr_array![
                    0 => Float32x2, 1 => Float32x2, 2 => Float32x4, 3 => Float32x3,
                    4 => Float32x2
                ],
            })],
            topology: wgpu::PrimitiveTopology::TriangleList,
            // Facades are seen from outside only, as in X-Plane; TWO_SIDED ones carry their
            // back faces as geometry of their own.
            cull: Some(wgpu::Face::Back),
            depth_write: true,
            blend: None,
        };
        let facades = b.build(&facades_spec);
        let shadow_facades = match reuse {
            Some(r) => r.shadow_facades.clone(),
            None => b.build_shadow(&facades_spec, None),
        };
        let trees_spec = Spec {
            label: "trees",
            source: &TREE_WGSL,
            entry: "vs_main",
            layout: &with_material,
            buffers: &[Some(wgpu::VertexBufferLayout {
                array_stride: std::mem::size_of::<TreeInstanceGpu>() as u64,
                step_mode: wgpu::VertexStepMode::Instance,
                attributes: &wgpu::vertex_attr_array![
                    0 => Float32x4, 1 => Float32x4, 2 => Float32x4
                ],
            })],
            topology: wgpu::PrimitiveTopology::TriangleList,
            cull: None,
            depth_write: true,
            blend: None,
        };
        // Trees are alpha-tested: under MSAA their alpha becomes a coverage, as objects'.
        let tree_coverage = sample_count > 1;
        let trees = b.build_with(
            &trees_spec,
            &Raster {
                write_mask: wgpu::ColorWrites::COLOR,
                alpha_to_coverage: tree_coverage,
                constants: if tree_coverage {
                    &[("COVERAGE", 1.0)]
                } else {
                    &[]
                },
                ..Raster::DEFAULT
            },
        );
        let shadow_trees = match reuse {
            Some(r) => r.shadow_trees.clone(),
            None => b.build_shadow(&trees_spec, Some("fs_shadow")),
        };
        let lines = b.build(&Spec {
            label: "lines",
            source: &LINES_WGSL,
            entry: "vs_main",
            layout: &frame_only,
            buffers: &[Some(wgpu::VertexBufferLayout {
                array_stride: std::mem::size_of::<LineVertex>() as u64,
                step_mode: wgpu::VertexStepMode::Vertex,
                attributes: &wgpu::vertex_attr_array![
                    0 => Float32x2, 1 => Float32, 2 => Uint32, 3 => Unorm8x4
                ],
            })],
            topology: wgpu::PrimitiveTopology::LineList,
            cull: None,
            depth_write: false,
            blend: Some(wgpu::BlendState::ALPHA_BLENDING),
        });
        let lights = b.build_with(
            &Spec {
                label: "lights",
                source: &LIGHTS_WGSL,
                entry: "vs_main",
                layout: &frame_only,
                buffers: &[Some(wgpu::VertexBufferLayout {
                    array_stride: std::mem::size_of::<super::lights::LightInstanceGpu>() as u64,
                    step_mode: wgpu::VertexStepMode::Instance,
                    attributes: &super::lights::LIGHT_ATTRIBUTES,
                })],
                topology: wgpu::PrimitiveTopology::TriangleList,
                cull: None,
                depth_write: false,
                blend: Some(super::lights::ADDITIVE),
            },
            &Raster {
                constants: LIGHT_CONSTANTS,
                ..Raster::DEFAULT
            },
        );
        let (tonemap, tonemap_scaled, tonemap_layout) = match reuse {
            Some(r) => (
                r.tonemap.clone(),
                r.tonemap_scaled.clone(),
                r.tonemap_layout.clone(),
            ),
            None => tonemap_pipelines(device, color_format),
        };
        Renderer {
            tonemap,
            tonemap_scaled,
            tonemap_layout,
            shared,
            color_format,
            sample_count,
            terrain,
            skirt,
            sky,
            shadow_objects,
            shadow_objects_culled,
            shadow_facades,
            shadow_trees,
            tiles,
            autogen,
            objects,
            objects_culled,
            facades,
            trees,
            lines,
            lights,
            split: Split::of(ctx),
        }
    }

    /// 4 when the adapter can multisample `color_format`, [`HDR_FORMAT`] and the depth
    /// format 4×,
    /// else 1.
    pub fn best_sample_count(adapter: &wgpu::Adapter, color_format: wgpu::TextureFormat) -> u32 {
        let ok = |f| {
            adapter
                .get_texture_format_features(f)
                .flags
                .sample_count_supported(4)
        };
        if ok(color_format) && ok(HDR_FORMAT) && ok(DEPTH_FORMAT) {
            4
        } else {
            1
        }
    }

    /// The colour format the pipelines were built for.
    pub(crate) fn color_format(&self) -> wgpu::TextureFormat {
        self.color_format
    }

    /// Records one frame of `scene` (prepared with [`SceneGpu::prepare`]) into `target`, a
    /// single-sampled view of the renderer's colour format and the size of `targets` (or
    /// of the output [`FrameTargets::reduced`] was made for): the scene in HDR into
    /// `targets`, then the tonemap pass into `target`.
    pub fn draw(
        &self,
        encoder: &mut wgpu::CommandEncoder,
        target: &wgpu::TextureView,
        targets: &FrameTargets,
        scene: &SceneGpu,
    ) -> DrawStats {
        self.draw_with_timestamps(encoder, target, targets, scene, None)
    }

    /// [`Renderer::draw`], writing the pass's start and end times to queries 0 and 1 of
    /// `timestamps` (for the bench).
    pub(crate) fn draw_with_timestamps(
        &self,
        encoder: &mut wgpu::CommandEncoder,
        target: &wgpu::TextureView,
        targets: &FrameTargets,
        scene: &SceneGpu,
        timestamps: Option<&wgpu::QuerySet>,
    ) -> DrawStats {
        let sky = glam::Vec3::from(scene.clear_color());
        let mut stats = DrawStats::default();
        // The shadow map first: its culling shares the camera's lists (`GpuCull::another_view`),
        // which the camera's culling then writes. It writes the frame's start time.
        if scene.shadow.active {
            self.draw_shadow_map(encoder, scene, timestamps, &mut stats);
        }
        // The GPU culling's compute passes, before the frame's render pass: each part's.
        let pages: Vec<&super::cull::GpuCull> = scene
            .parts
            .iter()
            .filter_map(|p| p.objects.as_ref())
            .filter(|o| scene.frame.show_objects && o.path == Culling::Gpu)
            .filter(|o| o.gpu_cull.iter().any(|g| !g.segments.is_empty()))
            .flat_map(|o| &o.gpu_cull)
            .collect();
        let culled = self.cull.as_ref().filter(|_| !pages.is_empty());
        if let Some(pipes) = culled {
            // The frame's first pass writes the start time: the shadow map's, else this.
            let start = timestamps.filter(|_| !scene.shadow.active);
            for (k, g) in pages.iter().enumerate() {
                g.encode(encoder, pipes, start.filter(|_| k == 0));
            }
        }
        // The scene's pass: one, or on a CPU adapter's full-size frame a few, each
        // submitted, and waited for once the next is submitted ([`Split`]).
        let chunks = self.chunks(targets, scene);
        let mut in_flight = None;
        for (c, stages) in chunks.iter().enumerate() {
            if c > 0 {
                if let Some(split) = &self.split {
                    split.submit_and_wait(encoder, &mut in_flight);
                }
            }
            // The culling's pass wrote the start when it ran.
            let start = c == 0 && culled.is_none() && !scene.shadow.active;
            let last = c + 1 == chunks.len();
            let mut pass = self.begin_scene_pass(
                encoder,
                targets,
                sky,
                (c == 0, last),
                timestamps
                    .filter(|_| start || last)
                    .map(|q| wgpu::RenderPassTimestampWrites {
                        query_set: q,
                        beginning_of_pass_write_index: start.then_some(0),
                        end_of_pass_write_index: last.then_some(1),
                    }),
            );
            pass.set_bind_group(0, &scene.frame_bind_group, &[]);
            for stage in 0..SCENE_STAGES {
                let s = stage as f32;
                let part = (stages.start - s).max(0.0)..(stages.end - s).min(1.0);
                if part.start < part.end {
                    self.draw_stage(&mut pass, scene, stage, &part, &mut stats);
                }
            }
        }
        self.tonemap_into(encoder, target, targets);
        stats.draw_calls += 1;
        stats
    }

    /// The scene pass's draws in groups of [`SCENE_STAGES`], begun on the targets once for
    /// the frame, or once for each of a [`Split`]'s chunks: not for a reduced frame (the
    /// window's drag preview), whose bins are a fraction of a full frame's and whose time
    /// counts while dragging, nor for a scene smaller than [`super::shared::SPLIT_FROM`].
    fn chunks(&self, targets: &FrameTargets, scene: &SceneGpu) -> Vec<std::ops::Range<f32>> {
        let size = scene.stats();
        let load = super::shared::bin_load(size.objects, size.trees, size.tile_quads);
        let starts = match &self.split {
            Some(s) if !targets.scaled && load >= s.from => s.starts,
            _ => &[],
        };
        let end = SCENE_STAGES as f32;
        let mut bounds = vec![0.0];
        bounds.extend(starts.iter().copied().filter(|&s| s > 0.0 && s < end));
        bounds.push(end);
        bounds.sort_by(f32::total_cmp);
        bounds.dedup();
        bounds.windows(2).map(|w| w[0]..w[1]).collect()
    }

    /// Begins the scene's pass over `targets`: `first` clears them to `sky` (else they are
    /// loaded, as the last chunk stored them); `last` resolves the multisampled colour into
    /// the HDR frame and lets the samples go (else they are stored for the next chunk).
    fn begin_scene_pass<'e>(
        &self,
        encoder: &'e mut wgpu::CommandEncoder,
        targets: &FrameTargets,
        sky: glam::Vec3,
        (first, last): (bool, bool),
        timestamp_writes: Option<wgpu::RenderPassTimestampWrites<'_>>,
    ) -> wgpu::RenderPass<'e> {
        let (view, resolve) = match &targets.msaa {
            Some(msaa) => (msaa, Some(&targets.hdr).filter(|_| last)),
            None => (&targets.hdr, None),
        };
        let kept = if last && targets.msaa.is_some() {
            wgpu::StoreOp::Discard
        } else {
            wgpu::StoreOp::Store
        };
        encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
            label: Some("scene"),
            color_attachments: &[Some(wgpu::RenderPassColorAttachment {
                view,
                depth_slice: None,
                resolve_target: resolve,
                ops: wgpu::Operations {
                    load: if first {
                        wgpu::LoadOp::Clear(wgpu::Color {
                            r: f64::from(sky.x),
                            g: f64::from(sky.y),
                            b: f64::from(sky.z),
                            a: 1.0,
                        })
                    } else {
                        wgpu::LoadOp::Load
                    },
                    store: kept,
                },
            })],
            depth_stencil_attachment: Some(wgpu::RenderPassDepthStencilAttachment {
                view: &targets.depth,
                depth_ops: Some(wgpu::Operations {
                    load: if first {
                        wgpu::LoadOp::Clear(0.0)
                    } else {
                        wgpu::LoadOp::Load
                    },
                    store: if last {
                        wgpu::StoreOp::Discard
                    } else {
                        wgpu::StoreOp::Store
                    },
                }),
                stencil_ops: None,
            }),
            timestamp_writes,
            occlusion_query_set: None,
            multiview_mask: None,
        })
    }

    /// Records group `stage` of the scene pass's draws (in [`SCENE_STAGES`]' order), the
    /// frame's bind group set: each group sets its own pipelines and buffers.
    fn draw_stage(
        &self,
        pass: &mut wgpu::RenderPass<'_>,
        scene: &SceneGpu,
        stage: usize,
        part: &std::ops::Range<f32>,
        stats: &mut DrawStats,
    ) {
        let f = &scene.frame;
        let first = !share(1, part).is_empty();
        match stage {
            0 | 3 | 5 if !first => {}
            0 => {
                if f.show_terrain && !scene.terrain.draws().is_empty() {
                    // One instanced draw per (level, finer-neighbour mask): the chunks chosen in
                    // `SceneGpu::prepare`, each draw binding its slice of the chunk origins.
                    let t = &scene.terrain;
                    pass.set_pipeline(&self.terrain);
                    pass.set_index_buffer(t.indices.slice(..), wgpu::IndexFormat::Uint16);
                    for draw in t.draws() {
                        let origins = super::terrain_chunks::TerrainChunks::instance_bytes(draw);
                        pass.set_vertex_buffer(0, t.instances.slice(origins));
                        pass.draw_indexed(draw.indices.clone(), 0, 0..draw.instances.len() as u32);
                        stats.draw_calls += 1;
                        stats.triangles += draw.triangles();
                    }
                }
                if f.show_terrain {
                    // The skirt: the ground on to the horizon past the height field.
                    pass.set_pipeline(&self.skirt);
                    pass.draw(0..super::terrain_chunks::SKIRT_VERTICES, 0..1);
                    stats.draw_calls += 1;
                    stats.triangles += u64::from(super::terrain_chunks::SKIRT_VERTICES / 3);
                }
            }
            1 => {
                // Tiles and the draped parts of objects, interleaved by layer group across the
                // scene's parts.
                let shown = |kind: DrapedKind| match kind {
                    DrapedKind::Part => f.show_objects,
                    DrapedKind::Polygon => f.show_draped,
                    DrapedKind::Line => f.show_lines,
                    DrapedKind::Pavement => f.show_pavement,
                    DrapedKind::Marking => f.show_markings,
                    DrapedKind::Road => f.show_roads,
                };
                // The pipeline last set: tiles and draped pieces differ in their vertices.
                let mut autogen = None;
                let draws = &scene.ground_draws[share(scene.ground_draws.len(), part)];
                for &(p, draw) in draws {
                    let owner = &scene.parts[p];
                    let (tiles, draped) = (owner.tiles.as_ref(), owner.draped.as_ref());
                    let (material, vertices, indices, ranges) = match draw {
                        // A segment of tiles: its runs in view (`SceneGpu::prepare`).
                        GroundDraw::Tiles(i) => match tiles.filter(|_| f.show_tiles) {
                            Some(t) => (
                                &t.material,
                                &t.vertices,
                                &t.indices,
                                t.runs.get(i).map_or(&[][..], |r| &r[..]),
                            ),
                            None => continue,
                        },
                        GroundDraw::Draped(i) => match draped.filter(|d| shown(d.groups[i].3)) {
                            Some(d) => (
                                &d.groups[i].1,
                                &d.vertices,
                                &d.indices,
                                std::slice::from_ref(&d.groups[i].2),
                            ),
                            None => continue,
                        },
                    };
                    if ranges.iter().all(|r| r.is_empty()) {
                        continue;
                    }
                    let is_autogen = matches!(draw, GroundDraw::Tiles(_));
                    if autogen != Some(is_autogen) {
                        pass.set_pipeline(if is_autogen {
                            &self.autogen
                        } else {
                            &self.tiles
                        });
                        autogen = Some(is_autogen);
                    }
                    pass.set_bind_group(1, material, &[]);
                    pass.set_vertex_buffer(0, vertices.slice(..));
                    pass.set_index_buffer(indices.slice(..), wgpu::IndexFormat::Uint32);
                    for range in ranges.iter().filter(|r| !r.is_empty()) {
                        stats.triangles += u64::from(range.len() as u32 / 3);
                        pass.draw_indexed(range.clone(), 0, 0..1);
                        stats.draw_calls += 1;
                    }
                }
            }
            2 => {
                let lists = ObjectLists::camera;
                let pipelines = (
                    &self.objects[..],
                    self.objects_culled.as_ref().map(|p| &p[..]),
                );
                if scene.object_draws.is_empty() {
                    let objects = scene.parts.iter().filter_map(|p| p.objects.as_ref());
                    for o in objects.filter(|_| f.show_objects) {
                        self.draw_objects(pass, o, &lists(o), pipelines, part, stats);
                    }
                } else if f.show_objects {
                    // Several parts: their segments in the order one scene draws them, which is
                    // what shows through blended objects where they overlap.
                    let (mut bound, mut current) = (None, None);
                    let draws = &scene.object_draws[share(scene.object_draws.len(), part)];
                    for &(p, k) in draws {
                        let Some(o) = scene.parts[p].objects.as_ref() else {
                            continue;
                        };
                        if bound != Some(p) {
                            pass.set_vertex_buffer(0, o.vertices.slice(..));
                            pass.set_index_buffer(o.indices.slice(..), wgpu::IndexFormat::Uint32);
                            bound = Some(p);
                        }
                        draw_object_segment(pass, o, &lists(o), pipelines, k, &mut current, stats);
                    }
                }
            }
            3 => draw_facades(pass, scene, &self.facades, false, stats),
            4 => draw_trees(pass, scene, &self.trees, (false, part), stats),
            _ => {
                // The sky, where nothing above was drawn.
                pass.set_pipeline(&self.sky);
                pass.draw(0..3, 0..1);
                stats.draw_calls += 1;

                // Light points, added over everything (the sky included) at night.
                let night = super::sun::Lighting::of(f.sun).night;
                let lights = scene.parts.iter().filter_map(|p| p.lights.as_ref());
                for l in lights.filter(|_| f.show_objects && night > 0.0) {
                    pass.set_pipeline(&self.lights);
                    pass.set_vertex_buffer(0, l.instances.slice(..));
                    pass.draw(0..6, 0..l.count);
                    stats.draw_calls += 1;
                }

                if f.overlays.mask() != 0 {
                    for l in &scene.lines {
                        pass.set_pipeline(&self.lines);
                        pass.set_vertex_buffer(0, l.vertices.slice(..));
                        pass.draw(0..l.vertex_count, 0..1);
                        stats.draw_calls += 1;
                    }
                }
            }
        }
    }

    /// The tonemap pass: `targets`' HDR frame through the curve into `target`.
    fn tonemap_into(
        &self,
        encoder: &mut wgpu::CommandEncoder,
        target: &wgpu::TextureView,
        targets: &FrameTargets,
    ) {
        let mut pass = encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
            label: Some("tonemap"),
            color_attachments: &[Some(wgpu::RenderPassColorAttachment {
                view: target,
                depth_slice: None,
                resolve_target: None,
                ops: wgpu::Operations {
                    load: wgpu::LoadOp::Clear(wgpu::Color::BLACK),
                    store: wgpu::StoreOp::Store,
                },
            })],
            depth_stencil_attachment: None,
            timestamp_writes: None,
            occlusion_query_set: None,
            multiview_mask: None,
        });
        pass.set_pipeline(if targets.scaled {
            &self.tonemap_scaled
        } else {
            &self.tonemap
        });
        pass.set_bind_group(0, &targets.tonemap_bind, &[]);
        pass.draw(0..3, 0..1);
    }
}

/// The tonemap pipelines into `format`: the HDR frame at the output's size, and a smaller
/// one stretched over it (`vs_scaled`, `fs_scaled`); and the layout of their one binding
/// (the HDR frame).
pub(crate) fn tonemap_pipelines(
    device: &wgpu::Device,
    format: wgpu::TextureFormat,
) -> (
    wgpu::RenderPipeline,
    wgpu::RenderPipeline,
    wgpu::BindGroupLayout,
) {
    let layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
        label: Some("tonemap"),
        entries: &[wgpu::BindGroupLayoutEntry {
            binding: 0,
            visibility: wgpu::ShaderStages::FRAGMENT,
            ty: wgpu::BindingType::Texture {
                sample_type: wgpu::TextureSampleType::Float { filterable: false },
                view_dimension: wgpu::TextureViewDimension::D2,
                multisampled: false,
            },
            count: None,
        }],
    });
    let pipeline_layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
        label: Some("tonemap"),
        bind_group_layouts: &[Some(&layout)],
        immediate_size: 0,
    });
    let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
        label: Some("tonemap"),
        source: wgpu::ShaderSource::Wgsl(Cow::Borrowed(TONEMAP_WGSL.as_str())),
    });
    let build = |label, vs, fs| {
        device.create_render_pipeline(&wgpu::RenderPipelineDescriptor {
            label: Some(label),
            layout: Some(&pipeline_layout),
            vertex: wgpu::VertexState {
                module: &module,
                entry_point: Some(vs),
                compilation_options: Default::default(),
                buffers: &[],
            },
            primitive: wgpu::PrimitiveState::default(),
            depth_stencil: None,
            multisample: wgpu::MultisampleState::default(),
            fragment: Some(wgpu::FragmentState {
                module: &module,
                entry_point: Some(fs),
                compilation_options: Default::default(),
                targets: &[Some(wgpu::ColorTargetState {
                    format,
                    blend: None,
                    write_mask: wgpu::ColorWrites::ALL,
                })],
            }),
            multiview_mask: None,
            cache: None,
        })
    };
    (
        build("tonemap", "vs_main", "fs_main"),
        build("tonemap (scaled)", "vs_scaled", "fs_scaled"),
        layout,
    )
}

/// One view's culled object lists (the camera's or the sun's): the GPU path's pages, or the
/// CPU path's buffer and each segment's range in it.
struct ObjectLists<'a> {
    pages: &'a [super::cull::GpuCull],
    cpu_buffer: Option<&'a wgpu::Buffer>,
    cpu_ranges: &'a [std::ops::Range<u32>],
}

impl ObjectLists<'_> {
    /// The lists of `o` culled for the camera.
    fn camera(o: &super::scene_gpu::ObjectsGpu) -> ObjectLists<'_> {
        ObjectLists {
            pages: &o.gpu_cull,
            cpu_buffer: o.cpu_buffer.as_ref(),
            cpu_ranges: &o.cpu_ranges,
        }
    }
}

impl Renderer {
    /// The shadow casters seen from the sun into the scene's shadow map (prepared with
    /// [`SceneGpu::prepare`]): the sun's culling passes on the GPU path, then objects,
    /// facades and trees, depth only.
    fn draw_shadow_map(
        &self,
        encoder: &mut wgpu::CommandEncoder,
        scene: &SceneGpu,
        timestamp: Option<&wgpu::QuerySet>,
        stats: &mut DrawStats,
    ) {
        let f = &scene.frame;
        let objects: Vec<&super::scene_gpu::ObjectsGpu> = scene
            .parts
            .iter()
            .filter_map(|p| p.objects.as_ref())
            .filter(|_| f.show_objects)
            .collect();
        // The start time: the first culling pass's, else the shadow pass's.
        let mut timestamp = timestamp;
        if let Some(pipes) = self.cull.as_ref() {
            for o in objects.iter().filter(|o| o.path == Culling::Gpu) {
                for g in o.shadow_gpu_cull.iter().filter(|g| !g.segments.is_empty()) {
                    g.encode(encoder, pipes, timestamp.take());
                }
            }
        }
        let mut pass = encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
            label: Some("shadow map"),
            color_attachments: &[],
            depth_stencil_attachment: Some(wgpu::RenderPassDepthStencilAttachment {
                view: &scene.shadow.view,
                depth_ops: Some(wgpu::Operations {
                    load: wgpu::LoadOp::Clear(1.0),
                    store: wgpu::StoreOp::Store,
                }),
                stencil_ops: None,
            }),
            timestamp_writes: timestamp.map(|q| wgpu::RenderPassTimestampWrites {
                query_set: q,
                beginning_of_pass_write_index: Some(0),
                end_of_pass_write_index: None,
            }),
            occlusion_query_set: None,
            multiview_mask: None,
        });
        pass.set_bind_group(0, &scene.shadow.frame_bind_group, &[]);
        for o in objects {
            let lists = ObjectLists {
                pages: &o.shadow_gpu_cull,
                cpu_buffer: o.shadow_cpu_buffer.as_ref(),
                cpu_ranges: &o.shadow_cpu_ranges,
            };
            let pipelines = (
                std::slice::from_ref(&self.shadow_objects),
                self.shadow_objects_culled
                    .as_ref()
                    .map(std::slice::from_ref),
            );
            self.draw_objects(&mut pass, o, &lists, pipelines, &(0.0..1.0), stats);
        }
        draw_facades(&mut pass, scene, &self.shadow_facades, true, stats);
        draw_trees(
            &mut pass,
            scene,
            &self.shadow_trees,
            (true, &(0.0..1.0)),
            stats,
        );
    }

    /// The objects, on the scene's culling path, from one view's `lists`, with `pipelines`
    /// (per-instance vertex buffer, and culled) of the camera's pass or the shadow map's.
    fn draw_objects(
        &self,
        pass: &mut wgpu::RenderPass<'_>,
        o: &super::scene_gpu::ObjectsGpu,
        lists: &ObjectLists<'_>,
        pipelines: (&[wgpu::RenderPipeline], Option<&[wgpu::RenderPipeline]>),
        part: &std::ops::Range<f32>,
        stats: &mut DrawStats,
    ) {
        pass.set_vertex_buffer(0, o.vertices.slice(..));
        pass.set_index_buffer(o.indices.slice(..), wgpu::IndexFormat::Uint32);
        let mut current = None;
        if let Some((pages, pipelines)) = culled_lists(o, lists, pipelines) {
            // One indirect draw per (mesh, LOD) and window of the instance buffer: the counts
            // are the GPU's. `part`'s share of them, counted across the windows.
            let all: usize = pages.iter().map(|g| g.owners.len()).sum();
            let mine = share(all, part);
            let mut before = 0;
            for g in pages {
                let own = within(&mine, before, g.owners.len());
                before += g.owners.len();
                if own.is_empty() {
                    continue;
                }
                pass.set_bind_group(2, &g.draw_group, &[]);
                for (k, &(b, l)) in g.owners.iter().enumerate().take(own.end).skip(own.start) {
                    let lod = &o.batches[b].lods[l];
                    use_pipeline(pass, pipelines, lod.2, &mut current);
                    pass.set_bind_group(1, &lod.0, &[]);
                    pass.draw_indexed_indirect(&g.args, k as u64 * 20);
                    stats.draw_calls += 1;
                }
            }
            return;
        }
        for k in share(o.owners.len(), part) {
            draw_object_segment(pass, o, lists, pipelines, k, &mut current, stats);
        }
    }
}

/// The items of a list of `n` that `part` (a share of the whole, within 0..1) draws: the
/// shares of a list that tile 0..1 take each item once, in order.
fn share(n: usize, part: &std::ops::Range<f32>) -> std::ops::Range<usize> {
    let at = |x: f32| ((x.clamp(0.0, 1.0) * n as f32).round() as usize).min(n);
    at(part.start)..at(part.end)
}

/// The facades (where the frame shows them) with `pipeline`, the camera's or the shadow
/// map's runs in view.
fn draw_facades(
    pass: &mut wgpu::RenderPass<'_>,
    scene: &SceneGpu,
    pipeline: &wgpu::RenderPipeline,
    shadow: bool,
    stats: &mut DrawStats,
) {
    let facades = scene.parts.iter().filter_map(|p| p.facades.as_ref());
    for fc in facades.filter(|_| scene.frame.show_facades) {
        pass.set_pipeline(pipeline);
        pass.set_vertex_buffer(0, fc.vertices.slice(..));
        pass.set_index_buffer(fc.indices.slice(..), wgpu::IndexFormat::Uint32);
        // Each draw's runs in view (`SceneGpu::prepare`).
        for ((material, _), runs) in fc.draws.iter().zip(fc.runs.of(shadow)) {
            if runs.is_empty() {
                continue;
            }
            pass.set_bind_group(1, material, &[]);
            for indices in runs {
                pass.draw_indexed(indices.clone(), 0, 0..1);
                stats.draw_calls += 1;
                stats.triangles += u64::from(indices.len() as u32 / 3);
            }
        }
    }
}

/// The trees (where the frame shows them) with `pipeline`, the camera's or the shadow map's
/// runs in view: `part`'s share of those runs' instances, counted across every part's
/// groups in the order they are drawn ([`share`]). A tile's 1.6 million trees are a few
/// instanced draws, so only a share of the instances splits their bins ([`Split`]); the
/// instances of the shares are drawn in the order of one draw, so the depth test's ties
/// fall as they would (the trees do not blend).
fn draw_trees(
    pass: &mut wgpu::RenderPass<'_>,
    scene: &SceneGpu,
    pipeline: &wgpu::RenderPipeline,
    (shadow, part): (bool, &std::ops::Range<f32>),
    stats: &mut DrawStats,
) {
    if !scene.frame.show_trees {
        return;
    }
    let trees = || scene.parts.iter().filter_map(|p| p.trees.as_ref());
    let all = trees()
        .flat_map(|t| t.runs.of(shadow).iter().flatten())
        .map(|r| r.len())
        .sum();
    let mine = share(all, part);
    let mut before = 0;
    for t in trees() {
        pass.set_pipeline(pipeline);
        pass.set_vertex_buffer(0, t.instances.slice(..));
        for ((g, material), runs) in t.groups.iter().zip(t.runs.of(shadow)) {
            let drawn: Vec<std::ops::Range<u32>> = runs
                .iter()
                .filter_map(|run| {
                    let own = within(&mine, before, run.len());
                    before += run.len();
                    let first = run.start + own.start as u32;
                    (!own.is_empty()).then(|| first..first + own.len() as u32)
                })
                .collect();
            if drawn.is_empty() {
                continue;
            }
            pass.set_bind_group(1, material, &[]);
            for run in drawn {
                pass.draw(0..g.vertices(), run.clone());
                stats.draw_calls += 1;
                stats.triangles += u64::from(g.vertices() / 3) * u64::from(run.len() as u32);
            }
        }
    }
}

/// The part of `mine` (items of a whole list) inside the `n` items that begin at `before`,
/// counted from `before`.
fn within(mine: &std::ops::Range<usize>, before: usize, n: usize) -> std::ops::Range<usize> {
    let at = |x: usize| x.clamp(before, before + n) - before;
    at(mine.start)..at(mine.end)
}

/// The GPU culling's windows of `o` and the pipelines drawing from them, where `o` is
/// culled on the GPU and the pass has those pipelines.
fn culled_lists<'a>(
    o: &super::scene_gpu::ObjectsGpu,
    lists: &ObjectLists<'a>,
    pipelines: (
        &'a [wgpu::RenderPipeline],
        Option<&'a [wgpu::RenderPipeline]>,
    ),
) -> Option<(&'a [super::cull::GpuCull], &'a [wgpu::RenderPipeline])> {
    match (o.path, pipelines.1) {
        (Culling::Gpu, Some(p)) if !lists.pages.is_empty() => Some((lists.pages, p)),
        _ => None,
    }
}

/// Sets pipeline `p` of `set` (the shadow map has one for all), unless it is `current`.
fn use_pipeline(
    pass: &mut wgpu::RenderPass<'_>,
    set: &[wgpu::RenderPipeline],
    p: u8,
    current: &mut Option<*const wgpu::RenderPipeline>,
) {
    let pipeline = &set[usize::from(p).min(set.len() - 1)];
    let id: *const wgpu::RenderPipeline = pipeline;
    if *current != Some(id) {
        pass.set_pipeline(pipeline);
        *current = Some(id);
    }
}

/// Draws segment `k` of `o` (one (mesh, LOD)), its mesh buffers bound: the GPU's count in
/// each window of the instance buffer where `o` is culled there, else its instances the CPU
/// kept, or all of them. `current`: the pipeline last set.
fn draw_object_segment(
    pass: &mut wgpu::RenderPass<'_>,
    o: &super::scene_gpu::ObjectsGpu,
    lists: &ObjectLists<'_>,
    pipelines: (&[wgpu::RenderPipeline], Option<&[wgpu::RenderPipeline]>),
    k: usize,
    current: &mut Option<*const wgpu::RenderPipeline>,
    stats: &mut DrawStats,
) {
    let Some(&(b, l)) = o.owners.get(k) else {
        return;
    };
    let (material, indices, pipeline) = &o.batches[b].lods[l];
    if let Some((pages, pipelines)) = culled_lists(o, lists, pipelines) {
        // The windows' segments are the scene's in order: found by halves.
        for g in pages {
            if let Ok(i) = g.owners.binary_search(&(b, l)) {
                pass.set_bind_group(2, &g.draw_group, &[]);
                use_pipeline(pass, pipelines, *pipeline, current);
                pass.set_bind_group(1, material, &[]);
                pass.draw_indexed_indirect(&g.args, i as u64 * 20);
                stats.draw_calls += 1;
            }
        }
        return;
    }
    let (buffer, range) = if o.path == Culling::Cpu {
        match (lists.cpu_buffer, lists.cpu_ranges.get(k)) {
            (Some(buffer), Some(range)) => (buffer, range.clone()),
            _ => return,
        }
    } else {
        (&o.instances, o.batches[b].instances.clone())
    };
    let count = range.end - range.start;
    if count == 0 {
        return;
    }
    // Bind the segment's slice rather than using a first instance: works on every backend.
    let stride = std::mem::size_of::<InstanceGpu>() as u64;
    pass.set_vertex_buffer(
        1,
        buffer.slice(u64::from(range.start) * stride..u64::from(range.end) * stride),
    );
    use_pipeline(pass, pipelines.0, *pipeline, current);
    pass.set_bind_group(1, material, &[]);
    pass.draw_indexed(indices.clone(), 0, 0..count);
    stats.draw_calls += 1;
    stats.instances += u64::from(count);
    stats.triangles += u64::from(indices.len() as u32 / 3) * u64::from(count);
}

/// How [`ObjectPipeline`]s are built: the one that draws from `entry` of `source`.
impl ObjectPipeline {
    fn spec<'a>(
        self,
        source: &'static str,
        entry: &'static str,
        layout: &'a wgpu::PipelineLayout,
        buffers: &'a [Option<wgpu::VertexBufferLayout<'a>>],
        sample_count: u32,
    ) -> (Spec<'a>, Raster) {
        let coverage = !self.blend && sample_count > 1;
        let spec = Spec {
            label: match (self.cull, self.blend) {
                (true, false) => "objects: culled, alpha-tested",
                (false, false) => "objects: two-sided, alpha-tested",
                (true, true) => "objects: culled, blended",
                (false, true) => "objects: two-sided, blended",
            },
            source,
            entry,
            layout,
            buffers,
            topology: wgpu::PrimitiveTopology::TriangleList,
            cull: self.cull.then_some(wgpu::Face::Back),
            depth_write: true,
            blend: self.blend.then_some(wgpu::BlendState::ALPHA_BLENDING),
        };
        let raster = Raster {
            front_face: wgpu::FrontFace::Cw,
            write_mask: if self.blend {
                wgpu::ColorWrites::ALL
            } else {
                wgpu::ColorWrites::COLOR
            },
            alpha_to_coverage: coverage,
            constants: if coverage { &[("COVERAGE", 1.0)] } else { &[] },
        };
        (spec, raster)
    }
}

struct PipelineBuilder<'a> {
    device: &'a wgpu::Device,
    color_format: wgpu::TextureFormat,
    sample_count: u32,
    /// Pipeline-overridable constants of the fragment shaders (the colour passes' and the
    /// shadow map's).
    constants: &'a [(&'a str, f64)],
}

struct Spec<'a> {
    label: &'static str,
    source: &'static str,
    /// The vertex entry point.
    entry: &'static str,
    layout: &'a wgpu::PipelineLayout,
    buffers: &'a [Option<wgpu::VertexBufferLayout<'a>>],
    topology: wgpu::PrimitiveTopology,
    cull: Option<wgpu::Face>,
    depth_write: bool,
    blend: Option<wgpu::BlendState>,
}

/// What few pipelines change beside their [`Spec`]: the front face, alpha-to-coverage and
/// the shader's `override` constants.
struct Raster {
    front_face: wgpu::FrontFace,
    /// The colour channels written (the frame's alpha stays 1 where a shader's alpha is
    /// only a coverage or a cutoff's input).
    write_mask: wgpu::ColorWrites,
    alpha_to_coverage: bool,
    constants: &'static [(&'static str, f64)],
}

impl Raster {
    /// Counter-clockwise fronts, no alpha-to-coverage, no constants.
    const DEFAULT: Raster = Raster {
        front_face: wgpu::FrontFace::Ccw,
        write_mask: wgpu::ColorWrites::ALL,
        alpha_to_coverage: false,
        constants: &[],
    };
}

impl PipelineBuilder<'_> {
    fn module(&self, s: &Spec<'_>) -> wgpu::ShaderModule {
        self.device
            .create_shader_module(wgpu::ShaderModuleDescriptor {
                label: Some(s.label),
                source: wgpu::ShaderSource::Wgsl(Cow::Borrowed(s.source)),
            })
    }

    /// The depth-only pipeline of a shadow caster drawn as `s` says, into the shadow map:
    /// both faces, nearer (toward the sun) wins, with a slope-scaled depth bias against
    /// acne; `fragment` names the entry point that discards what the colour pass would
    /// (alpha test, LOD dither), `None` for none.
    fn build_shadow(&self, s: &Spec<'_>, fragment: Option<&str>) -> wgpu::RenderPipeline {
        let module = self.module(s);
        self.device
            .create_render_pipeline(&wgpu::RenderPipelineDescriptor {
                label: Some(s.label),
                layout: Some(s.layout),
                vertex: wgpu::VertexState {
                    module: &module,
                    entry_point: Some(s.entry),
                    compilation_options: Default::default(),
                    buffers: s.buffers,
                },
                primitive: wgpu::PrimitiveState {
                    topology: s.topology,
                    front_face: wgpu::FrontFace::Ccw,
                    cull_mode: None,
                    ..Default::default()
                },
                depth_stencil: Some(wgpu::DepthStencilState {
                    format: SHADOW_FORMAT,
                    depth_write_enabled: Some(true),
                    depth_compare: Some(wgpu::CompareFunction::Less),
                    stencil: Default::default(),
                    bias: wgpu::DepthBiasState {
                        constant: 0,
                        slope_scale: 1.5,
                        clamp: 0.0,
                    },
                }),
                multisample: wgpu::MultisampleState::default(),
                fragment: fragment.map(|entry| wgpu::FragmentState {
                    module: &module,
                    entry_point: Some(entry),
                    compilation_options: wgpu::PipelineCompilationOptions {
                        constants: self.constants,
                        ..Default::default()
                    },
                    targets: &[],
                }),
                multiview_mask: None,
                cache: None,
            })
    }

    fn build(&self, s: &Spec<'_>) -> wgpu::RenderPipeline {
        self.build_with(s, &Raster::DEFAULT)
    }

    fn build_with(&self, s: &Spec<'_>, r: &Raster) -> wgpu::RenderPipeline {
        // The builder's constants (every colour pass) and this pipeline's own.
        let constants: Vec<(&str, f64)> =
            self.constants.iter().chain(r.constants).copied().collect();
        let module = self.module(s);
        self.device
            .create_render_pipeline(&wgpu::RenderPipelineDescriptor {
                label: Some(s.label),
                layout: Some(s.layout),
                vertex: wgpu::VertexState {
                    module: &module,
                    entry_point: Some(s.entry),
                    compilation_options: wgpu::PipelineCompilationOptions {
                        constants: r.constants,
                        ..Default::default()
                    },
                    buffers: s.buffers,
                },
                primitive: wgpu::PrimitiveState {
                    topology: s.topology,
                    front_face: r.front_face,
                    cull_mode: s.cull,
                    ..Default::default()
                },
                depth_stencil: Some(wgpu::DepthStencilState {
                    format: DEPTH_FORMAT,
                    depth_write_enabled: Some(s.depth_write),
                    // Opaque layers must be strictly nearer; the layers drawn over the
                    // ground (tiles, lines) may tie with it.
                    depth_compare: Some(if s.depth_write {
                        wgpu::CompareFunction::Greater
                    } else {
                        wgpu::CompareFunction::GreaterEqual
                    }),
                    stencil: Default::default(),
                    bias: Default::default(),
                }),
                multisample: wgpu::MultisampleState {
                    count: self.sample_count,
                    alpha_to_coverage_enabled: r.alpha_to_coverage,
                    ..Default::default()
                },
                fragment: Some(wgpu::FragmentState {
                    module: &module,
                    entry_point: Some("fs_main"),
                    compilation_options: wgpu::PipelineCompilationOptions {
                        constants: &constants,
                        ..Default::default()
                    },
                    targets: &[Some(wgpu::ColorTargetState {
                        format: self.color_format,
                        blend: s.blend,
                        write_mask: r.write_mask,
                    })],
                }),
                multiview_mask: None,
                cache: None,
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bench::{bench_camera, synthetic_city, BenchCamera, BenchOptions};
    use crate::headless::{draw_offscreen, Headless};

    /// A headless renderer and a small synthetic city: 16 blocks, 400 objects.
    fn small_city() -> (
        Headless,
        (
            crate::scene::Scene,
            crate::art::ArtSet,
            crate::terrain::Terrain,
        ),
    ) {
        let h = match Headless::new() {
            Ok(h) => h,
            Err(e) => panic!("cannot render: {e}"),
        };
        let opts = BenchOptions {
            blocks: 16,
            tiles_per_side: 2,
            objects: 400,
            meshes: 2,
            ..BenchOptions::default()
        };
        (h, synthetic_city(&opts))
    }

    #[test]
    fn a_1x_renderer_beside_the_4x_one_draws_as_one_built_whole() {
        // The window's 1× renderer reuses the 4× one's shadow-map and tonemap pipelines
        // (`with_sample_count`): its frame, shadows on, must be that of a 1× renderer that
        // built every pipeline of its own, pixel for pixel.
        let (h, (scene, art, terrain)) = small_city();
        let params = crate::frame::FrameParams {
            camera: bench_camera(BenchCamera::Orbit, &scene, &terrain),
            ..crate::frame::FrameParams::default()
        };
        assert!(params.shadows);
        let mut gpu = h.upload(&scene, &art, &terrain).expect("upload");
        let beside = h.renderer.with_sample_count(&h.ctx, 1);
        let whole = Renderer::build(
            &h.ctx,
            h.renderer.shared.clone(),
            h.renderer.color_format,
            1,
            None,
        );
        let mut draw = |r: &Renderer| {
            draw_offscreen(&h.ctx, r, &mut gpu, &params, (160, 120), None, "test").expect("render")
        };
        let (a, b) = (draw(&beside), draw(&whole));
        assert!(gpu.shadow.active, "the sun casts the houses' shadows");
        assert_eq!(a.as_raw(), b.as_raw());
    }

    #[test]
    fn a_scene_pass_split_into_waited_chunks_draws_the_same_frame() {
        // A CPU adapter's full-size frame is drawn in chunks, each submitted and waited
        // for in turn (`Split`): split between every group and inside each, the trees' instances
        // three times, it must be the frame of one pass, pixel for pixel.
        let (h, (mut scene, art, terrain)) = small_city();
        // A grove in the camera's view, overlapping trees (placeholders: no forest art)
        // whose depth ties fall as one draw orders them.
        let (lo, hi) = scene.bounds();
        let mid = [(lo[0] + hi[0]) / 2.0, (lo[1] + hi[1]) / 2.0];
        for k in 0..400u32 {
            let (i, j) = ((k % 20) as f32, (k / 20) as f32);
            scene.trees.push(crate::scene::TreeInstance {
                pos: [mid[0] - 60.0 + 6.0 * i, mid[1] - 60.0 + 6.0 * j],
                width: 9.0,
                heading: (k * 37 % 360) as f32,
                height: 12.0,
                ..Default::default()
            });
        }
        let params = crate::frame::FrameParams {
            camera: bench_camera(BenchCamera::Orbit, &scene, &terrain),
            ..crate::frame::FrameParams::default()
        };
        let mut gpu = h.upload(&scene, &art, &terrain).expect("upload");
        let samples = h.renderer.sample_count();
        let build = |starts: Option<&'static [f32]>| {
            let mut r = h.renderer.with_sample_count(&h.ctx, samples);
            r.split = starts.map(|starts| Split {
                device: h.ctx.device.clone(),
                queue: h.ctx.queue.clone(),
                starts,
                from: 0,
            });
            r
        };
        let one = build(None);
        let split = build(Some(&[
            0.5, 1.0, 1.5, 2.0, 2.5, 3.0, 3.5, 4.0, 4.2, 4.5, 4.7, 5.0, 5.5,
        ]));
        let targets = FrameTargets::new(&h.ctx.device, &split, 8, 8);
        assert_eq!(split.chunks(&targets, &gpu).len(), 14);
        let mut draw = |r: &Renderer| {
            draw_offscreen(&h.ctx, r, &mut gpu, &params, (160, 120), None, "test").expect("render")
        };
        let (a, b) = (draw(&one), draw(&split));
        assert!(gpu.trees_submitted() > 0, "trees drawn");
        assert!(
            a.pixels().any(|p| p.0 != a.get_pixel(0, 0).0),
            "a scene drawn"
        );
        assert_eq!(a.as_raw(), b.as_raw());
    }
}
