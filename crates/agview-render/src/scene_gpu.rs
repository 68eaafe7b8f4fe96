//! [`SceneGpu`]: one scene's data on the GPU, uploaded once per scene change, and the
//! per-frame uniforms written by [`SceneGpu::prepare`].
//!
//! The terrain is its height field (an `R32Float` texture the shaders read) and
//! [`TerrainChunks`]: shared index patterns per level of detail, and the chunks chosen for
//! each frame in `prepare` (level by distance, frustum-culled) written as instance origins.

use std::collections::HashMap;
use std::ops::Range;
use std::sync::{Arc, Mutex};
use std::time::Instant;

use bytemuck::{Pod, Zeroable};
use wgpu::util::DeviceExt;

use crate::art::ArtSet;
use crate::diag::{kind, Diagnostic, Severity};
use crate::scene::Scene;
use crate::terrain::Terrain;

use super::cells::{self, Cell, CellView};
use super::context::{GpuContext, RenderError};
use super::cull::{self, CullStats, CullView, Culling, GpuCull, SegmentGpu, ViewGpu};
use super::draped::{DrapedSet, GroundDraw};
use super::facades::{self, FacadeKey};
use super::frame::FrameParams;
use super::object_cells::ObjectCells;
use super::objects::{InstanceGpu, ObjectSet, TexSource};
use super::overlay::{self, Overlays};
use super::photometry;
use super::placement::GpuPlacement;
use super::shadow::{self, LightView};
use super::shared::{GpuShared, ObjectPipeline, SHADOW_FORMAT};
use super::sun::Lighting;
use super::terrain_chunks::TerrainChunks;
use super::texture::{self, GpuTexture};
use super::tiles::{self, Grid};
use super::trees;
use crate::art::Material;

/// The `Frame` uniform block of `common.wgsl`.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Pod, Zeroable)]
struct FrameUniforms {
    view_proj: [[f32; 4]; 4],
    camera: [f32; 4],
    sun: [f32; 4],
    sky: [f32; 4],
    grid: [f32; 4],
    params: [f32; 4],
    flags: [u32; 4],
    light_view_proj: [[f32; 4]; 4],
    inv_view_proj: [[f32; 4]; 4],
    sun_color: [f32; 4],
    zenith: [f32; 4],
    sky_ambient: [f32; 4],
    ground_ambient: [f32; 4],
}

/// The `Material` uniform block of `common.wgsl`.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Pod, Zeroable)]
struct MaterialUniforms {
    rect: [f32; 4],
    repeat_m: [f32; 4],
    tint: [f32; 4],
    lod: [f32; 4],
    /// The material rule's result ([`ShadingUniforms`]).
    shading: ShadingUniforms,
}

impl MaterialUniforms {
    fn plain(tint: [f32; 3], alpha_test: f32) -> Self {
        MaterialUniforms {
            rect: [0.0, 0.0, 1.0, 1.0],
            repeat_m: [0.0; 4],
            tint: [tint[0], tint[1], tint[2], alpha_test],
            lod: [0.0, super::objects::INFINITE_LOD, 0.0, 0.0],
            shading: ShadingUniforms::of(&Material::default(), false, false, 1.0),
        }
    }
}

/// The shading fields of `common.wgsl`'s `Material` (`shading` … `rough`): a [`Material`]
/// as the shader reads it, each value a constant plus one-hot weights on the normal-map and
/// material-map texels.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Pod, Zeroable)]
struct ShadingUniforms {
    shading: [f32; 4],
    metal_n: [f32; 4],
    metal_m: [f32; 4],
    gloss_n: [f32; 4],
    gloss_m: [f32; 4],
    spec_n: [f32; 4],
    consts: [f32; 4],
    rough: [f32; 4],
}

impl ShadingUniforms {
    /// `m` with the textures it has (`has_normal`, `has_map`): a value read from a texture
    /// that is not there takes its default instead (metalness 0, gloss
    /// [`material::DEFAULT_GLOSS`], specular level 1).
    fn of(m: &Material, has_normal: bool, has_map: bool, normal_scale: f32) -> Self {
        use crate::art::material::{self as rule, Source, Value};
        // (constant, weights on the normal map, weights on the material map)
        let split = |v: Value, default: f32| -> (f32, [f32; 4], [f32; 4]) {
            let mut n = [0.0; 4];
            let mut mm = [0.0; 4];
            match v {
                Value::Const(c) => return (c, n, mm),
                Value::Channel(Source::Normal, c) if has_normal => n[c.min(3) as usize] = 1.0,
                Value::Channel(Source::Map, c) if has_map => mm[c.min(3) as usize] = 1.0,
                Value::Channel(..) => return (default, n, mm),
            }
            (0.0, n, mm)
        };
        let (metal_c, metal_n, metal_m) = split(m.metalness, 0.0);
        let (gloss_c, gloss_n, gloss_m) = split(m.gloss, rule::DEFAULT_GLOSS);
        let (spec_c, spec_n, _) = split(m.specular_level, 1.0);
        let model = match m.model {
            rule::Model::Legacy => 0.0,
            rule::Model::Xp12Pbr => 1.0,
        };
        let glass = f32::from(u8::from(m.blend == rule::Blend::Glass));
        let (a, b) = rule::ROUGHNESS_OF_GLOSS;
        let scale = if normal_scale.is_finite() && normal_scale > 0.0 {
            normal_scale
        } else {
            1.0
        };
        ShadingUniforms {
            shading: [model, m.specular_scale, m.luminance_ratio(), m.bump],
            metal_n,
            metal_m,
            gloss_n,
            gloss_m,
            spec_n,
            consts: [metal_c, gloss_c, spec_c, glass],
            rough: [a, b, scale, 0.0],
        }
    }
}

/// Fraction of its distance by which tiles are lifted toward the camera in depth.
const TILE_DEPTH_LIFT: f32 = 2e-5;
/// The same on GL, which remaps depth to -1..1 in the shader (`2z - w`) and so loses most
/// of the precision reversed depth gives.
const TILE_DEPTH_LIFT_GL: f32 = 1e-4;
/// Width of the LOD cross-fade band, as a fraction of the switch distance (0 under
/// [`super::frame::LodSwitch::Hard`]).
const LOD_BAND: f32 = 0.1;
/// The alpha trees are tested at.
const TREE_CUTOFF: f32 = trees::ALPHA_CUTOFF;
/// Alpha below which a blended (`ATTR_blend`) texel is dropped rather than blended: it
/// would add nothing to the colour, and dropping it keeps it out of the depth buffer.
const BLEND_CUTOFF: f32 = 1.0 / 255.0;

pub(crate) struct TilesGpu {
    pub vertices: wgpu::Buffer,
    pub indices: wgpu::Buffer,
    pub material: wgpu::BindGroup,
    /// Index ranges by layer group, in drawing order (see `tiles::TileMesh::segments`).
    pub segments: Vec<((u32, i32), Range<u32>)>,
    /// Each segment's cells: runs of its pieces, in drawing order (`tiles::cells`).
    cells: Vec<Vec<Cell>>,
    /// Each segment's index runs in the camera's view, from the last `prepare`.
    pub runs: Vec<Vec<Range<u32>>>,
}

/// One draped group on the GPU: its layer group's place, its material, its range in
/// `DrapedGpu::indices` and what it draws.
pub(crate) type DrapedGroupGpu = (
    (u32, i32),
    wgpu::BindGroup,
    Range<u32>,
    super::draped::DrapedKind,
);

/// The draped parts of objects (`draped::DrapedSet`): drawn with the tiles' pipeline.
pub(crate) struct DrapedGpu {
    pub vertices: wgpu::Buffer,
    /// Every piece (the shader applies the density).
    pub indices: wgpu::Buffer,
    /// Per group: its layer group's place, its material, its range in `indices` and what
    /// it draws.
    pub groups: Vec<DrapedGroupGpu>,
    /// Per group: its look ([`draped_look`]), which tells one scene's groups apart the way
    /// `DrapedSet::build` does, the same in every part.
    looks: Vec<Option<DrapedLook>>,
}

/// What a draped polygon's or line's group is told apart by (`DrapedSet::build`'s group
/// key, its line LOD aside): its layer group's place, kind, textures, wrapping, opacity and
/// shading. Image indices are the same in every part (each part's art starts with the
/// images of those before it, at the same indices).
type DrapedLook = (
    (u32, i32),
    super::draped::DrapedKind,
    [TexSource; 3],
    [bool; 3],
    [u32; 3],
);

/// Where a kind's groups come in one scene's `DrapedSet::build`: objects' draped parts,
/// then polygons and pavement, then lines and markings, then roads.
fn draped_stage(kind: super::draped::DrapedKind) -> u8 {
    use super::draped::DrapedKind as K;
    match kind {
        K::Part => 0,
        K::Polygon | K::Pavement => 1,
        K::Line | K::Marking => 2,
        K::Road => 3,
    }
}

/// `g`'s look: none for an object's draped part or a road (one group per mesh or road
/// look: drawn in each part's own order).
fn draped_look(g: &super::draped::DrapedGroup) -> Option<DrapedLook> {
    use super::draped::DrapedKind as K;
    match g.kind {
        K::Part | K::Road => None,
        K::Polygon | K::Pavement | K::Line | K::Marking => Some((
            g.key,
            g.kind,
            [g.texture, g.lit, g.normal],
            [
                g.clamp,
                g.opaque,
                g.shading.model == crate::art::material::Model::Xp12Pbr,
            ],
            [
                g.shading.specular_scale.to_bits(),
                g.shading.bump.to_bits(),
                g.normal_scale.to_bits(),
            ],
        )),
    }
}

/// The light points of every placed object: one instance per (object, light).
pub(crate) struct LightsGpu {
    pub instances: wgpu::Buffer,
    pub count: u32,
    set: super::lights::LightSet,
}

pub(crate) struct BatchGpu {
    /// Per LOD range: its material (texture, LOD range, cutoff, shading), index range and
    /// pipeline ([`ObjectPipeline::index`]).
    pub lods: Vec<(wgpu::BindGroup, Range<u32>, u8)>,
    /// The batch's instances in the instance buffer.
    pub instances: Range<u32>,
}

pub(crate) struct ObjectsGpu {
    pub vertices: wgpu::Buffer,
    pub indices: wgpu::Buffer,
    /// Every instance, grouped by mesh (a vertex buffer, and a storage buffer the culling
    /// and the culled draws read where the GPU path is supported).
    pub instances: wgpu::Buffer,
    pub batches: Vec<BatchGpu>,
    set: ObjectSet,
    /// One per (mesh, LOD) with instances, in drawing order, and the (batch, LOD) of each.
    pub segments: Vec<SegmentGpu>,
    pub owners: Vec<(usize, usize)>,
    /// Each mesh's name (`MeshArt::name`), parallel to `batches` but for the last, the
    /// placeholder of objects whose mesh is out of range: how another part's batch of the
    /// same mesh is known ([`object_draws`]).
    mesh_names: Vec<String>,
    /// How this scene's instances are culled.
    pub path: Culling,
    /// The GPU path's buffers, one per window of the instance buffer the adapter can bind
    /// (built when the path is first taken; empty otherwise).
    pub gpu_cull: Vec<GpuCull>,
    /// The CPU path's visible instances of the last frame, and each segment's range in it.
    pub cpu_buffer: Option<wgpu::Buffer>,
    pub cpu_ranges: Vec<Range<u32>>,
    /// The same three for the sun's view: the shadow casters (`shadow.rs`).
    pub shadow_gpu_cull: Vec<GpuCull>,
    pub shadow_cpu_buffer: Option<wgpu::Buffer>,
    pub shadow_cpu_ranges: Vec<Range<u32>>,
    /// The culling uniform of the last frame prepared (for the statistics).
    last_view: Option<ViewGpu>,
    /// The instances' cells, batch by batch.
    cells: ObjectCells,
    /// Each segment's runs of instances the camera's cells kept in the last frame prepared.
    runs: Vec<Vec<Range<u32>>>,
    /// The sample points the placement pass reads ground heights at (GPU path adapters).
    placement: Option<GpuPlacement>,
}

impl ObjectsGpu {
    /// Culls for the frame about to be drawn: keeps the runs of instances whose cells
    /// `cells` may show, then writes the GPU path's view, or the CPU path's lists.
    fn prepare_cull(&mut self, ctx: &GpuContext, view: &CullView, cells: &CellView) {
        let uniform = cull_uniform(view, &self.segments);
        self.last_view = Some(uniform);
        self.runs = self.runs_in(cells, view.band);
        let runs = &self.runs;
        match self.path {
            Culling::Gpu => {
                for g in &mut self.gpu_cull {
                    let globals = global_segments(&self.owners, &g.owners);
                    g.set_view(&ctx.queue, view, |k| runs[globals[k]].as_slice());
                }
            }
            Culling::Cpu => cpu_cull(
                ctx,
                &self.set,
                (&self.segments, runs),
                &uniform,
                &mut self.cpu_buffer,
                &mut self.cpu_ranges,
            ),
            Culling::Off => {}
        }
    }

    /// Culls the shadow casters for the sun's `view` (its frustum; the camera's LOD eye), on
    /// the scene's path as [`ObjectsGpu::prepare_cull`] does for the camera. The sun's cells
    /// are not cut at the haze: what casts a shadow into view may stand past it.
    fn prepare_shadow_cull(&mut self, ctx: &GpuContext, view: &CullView, cells: &CellView) {
        if self.path == Culling::Off {
            return;
        }
        let cells = CellView {
            haze_end: f32::INFINITY,
            ..*cells
        };
        let runs = self.runs_in(&cells, view.band);
        match self.path {
            Culling::Gpu => {
                for g in &mut self.shadow_gpu_cull {
                    let globals = global_segments(&self.owners, &g.owners);
                    g.set_view(&ctx.queue, view, |k| runs[globals[k]].as_slice());
                }
            }
            Culling::Cpu => cpu_cull(
                ctx,
                &self.set,
                (&self.segments, &runs),
                &cull_uniform(view, &self.segments),
                &mut self.shadow_cpu_buffer,
                &mut self.shadow_cpu_ranges,
            ),
            Culling::Off => {}
        }
    }

    /// Each segment's runs of instances whose cells `view` may show ([`ObjectCells`]),
    /// or all of them on the `off` path.
    fn runs_in(&self, view: &CellView, band: f32) -> Vec<Vec<Range<u32>>> {
        let culled = self.path != Culling::Off;
        let ranges = self.set.instances().1;
        self.cells
            .runs(ranges, (&self.segments, &self.owners), view, band, culled)
    }

    /// What the last frame culled and submitted. The GPU path reads its counts back (waits
    /// for the GPU); the others count on the CPU.
    fn cull_stats(&self, ctx: &GpuContext) -> Result<CullStats, RenderError> {
        if self.path == Culling::Gpu && !self.gpu_cull.is_empty() {
            let mut s = CullStats::default();
            for g in &self.gpu_cull {
                s += g.read_stats(ctx)?;
            }
            return Ok(s);
        }
        let Some(view) = &self.last_view else {
            return Ok(CullStats::default());
        };
        let mut s = cull::cpu_stats(self.set.instances().0, (&self.segments, &self.runs), view);
        if self.path == Culling::Off {
            s.submitted = 0;
            s.triangles = 0;
            for seg in &self.segments {
                s.submitted += u64::from(seg.count);
                s.triangles += u64::from(seg.count) * u64::from(seg.index_count / 3);
            }
        }
        Ok(s)
    }

    /// Drops the CPU's copy of the instances ([`ObjectSet::release_instances`]) on the GPU
    /// path, where only the GPU reads them per frame; the buffer can be read back
    /// ([`ObjectsGpu::restore_list`]).
    fn release_list(&mut self) {
        if self.path == Culling::Gpu
            && self
                .instances
                .usage()
                .contains(wgpu::BufferUsages::COPY_SRC)
        {
            self.set.release_instances();
        }
    }

    /// Reads the instances [`ObjectsGpu::release_list`] dropped back from the GPU, before
    /// the CPU path culls them or a new terrain moves them. The buffer holds them as
    /// uploaded: the placement pass only runs on a new terrain, which restores them first
    /// and keeps them.
    fn restore_list(&mut self, ctx: &GpuContext) -> Result<(), RenderError> {
        if self.set.holds_instances() {
            return Ok(());
        }
        let n = self.set.total();
        let bytes = (n * std::mem::size_of::<InstanceGpu>()) as u64;
        let list = if bytes > 0 {
            let data = super::readback::read_buffer(ctx, &self.instances, bytes)?;
            bytemuck::pod_collect_to_vec(&data)
        } else {
            Vec::new()
        };
        if self.set.restore_instances(list) {
            Ok(())
        } else {
            Err(RenderError::ReadBack(
                "the object instances read back are not as many as uploaded".into(),
            ))
        }
    }

    /// [`ObjectsGpu::set_path`], the instances read back first where a path other than the
    /// GPU's may be taken; where they cannot be, the path stays.
    fn take_path(&mut self, ctx: &GpuContext, shared: &GpuShared, path: Culling) {
        if !(path == Culling::Gpu && shared.cull.is_some()) && self.restore_list(ctx).is_err() {
            return;
        }
        self.set_path(&ctx.device, shared, path);
    }

    /// Takes a culling path: the GPU path where the renderer and the instance buffer allow
    /// it (its buffers are built the first time), else the CPU path.
    fn set_path(&mut self, device: &wgpu::Device, shared: &GpuShared, path: Culling) {
        let storage = self.instances.usage().contains(wgpu::BufferUsages::STORAGE);
        self.path = match (path, &shared.cull) {
            (Culling::Gpu, Some(pipes)) if storage => {
                if self.gpu_cull.is_empty() {
                    let max = cull::max_binding(device);
                    let ranges = self.set.instances().1;
                    // One culling per view: the camera's and the sun's (shadow casters).
                    for page in cull::pages(self.set.total() as u32, max) {
                        let (segments, owners) =
                            cull::segments(&self.set.batches, ranges, page.clone());
                        // A view's runs of a segment: at most one per cell, and
                        // `cells::MAX_RUNS`.
                        let most = owners
                            .iter()
                            .map(|&(b, _)| self.cells.of_batch(b).len().min(cells::MAX_RUNS))
                            .sum();
                        let camera = GpuCull::new(
                            device,
                            pipes,
                            &self.instances,
                            page.clone(),
                            (segments, owners),
                            most,
                        );
                        // The sun's view shares the camera's lists: the shadow map is culled
                        // and drawn before the camera is culled.
                        self.shadow_gpu_cull
                            .push(camera.another_view(device, pipes));
                        self.gpu_cull.push(camera);
                    }
                }
                Culling::Gpu
            }
            (Culling::Gpu, _) => Culling::Cpu,
            (p, _) => p,
        };
        if self.path != Culling::Cpu {
            self.cpu_buffer = None;
            self.cpu_ranges.clear();
            self.shadow_cpu_buffer = None;
            self.shadow_cpu_ranges.clear();
        }
    }

    /// GPU bytes of the instances and the culling lists.
    fn instance_bytes(&self) -> u64 {
        self.instances.size()
            + self.placement.as_ref().map_or(0, |p| p.bytes())
            + self.gpu_cull.iter().map(|g| g.bytes).sum::<u64>()
            + self.cpu_buffer.as_ref().map_or(0, |b| b.size())
            + self.shadow_gpu_cull.iter().map(|g| g.bytes).sum::<u64>()
            + self.shadow_cpu_buffer.as_ref().map_or(0, |b| b.size())
    }
}

/// The CPU path's culling of one view: the visible instances of each segment (of those in
/// its runs the cells kept), one list after the other in `buffer` (grown when too small),
/// and each segment's range in it.
fn cpu_cull(
    ctx: &GpuContext,
    set: &ObjectSet,
    (segments, runs): (&[SegmentGpu], &[Vec<Range<u32>>]),
    uniform: &ViewGpu,
    buffer: &mut Option<wgpu::Buffer>,
    ranges: &mut Vec<Range<u32>>,
) {
    let mut visible = Vec::new();
    ranges.clear();
    let all = set.instances().0;
    for (seg, runs) in segments.iter().zip(runs) {
        let start = visible.len() as u32;
        for list in cull::kept(all, seg, runs) {
            visible.extend(
                list.iter()
                    .filter(|i| cull::test_instance(i, seg, uniform).1)
                    .copied(),
            );
        }
        ranges.push(start..visible.len() as u32);
    }
    let bytes: &[u8] = bytemuck::cast_slice(&visible);
    let fits = buffer
        .as_ref()
        .is_some_and(|b| b.size() >= bytes.len() as u64);
    if !fits {
        *buffer = Some(ctx.device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("visible instances (CPU culling)"),
            size: (bytes.len() as u64).next_power_of_two().max(64),
            usage: wgpu::BufferUsages::VERTEX | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        }));
    }
    if let Some(b) = buffer {
        if !bytes.is_empty() {
            ctx.queue.write_buffer(b, 0, bytes);
        }
    }
}

/// For each of a page's segments (`page`, their owners), its place among all of them
/// (`all`, in the same order).
fn global_segments(all: &[(usize, usize)], page: &[(usize, usize)]) -> Vec<usize> {
    page.iter()
        .map(|o| all.binary_search(o).unwrap_or(0))
        .collect()
}

/// The culling uniform of a view over `segments` (the CPU path's copy of what the GPU path
/// writes).
fn cull_uniform(view: &CullView, segments: &[SegmentGpu]) -> ViewGpu {
    let slots = segments.iter().map(|s| s.count).sum();
    view.uniform(slots, segments.len() as u32)
}

pub(crate) struct FacadesGpu {
    pub vertices: wgpu::Buffer,
    pub indices: wgpu::Buffer,
    pub draws: Vec<(wgpu::BindGroup, Range<u32>)>,
    /// Each draw's cells: runs of its triangles, in drawing order (`facades::cells`).
    cells: Vec<Vec<Cell>>,
    /// Each draw's index runs in view.
    pub runs: ViewRuns,
}

impl FacadesGpu {
    /// Each draw's runs in `view`.
    fn runs_in(&self, view: &CellView, culled: bool) -> Vec<Vec<Range<u32>>> {
        self.draws
            .iter()
            .zip(&self.cells)
            .map(|((_, all), c)| cells::visible_or_all(c, all.clone(), view, culled))
            .collect()
    }
}

/// What is culled by cells and cast into the shadow map (facades, trees): each draw's runs
/// of records in the camera's view and in the sun's, from the last `prepare`.
#[derive(Default)]
pub(crate) struct ViewRuns {
    camera: Vec<Vec<Range<u32>>>,
    shadow: Vec<Vec<Range<u32>>>,
}

impl ViewRuns {
    /// The runs of the sun's view (`shadow`) or the camera's.
    pub fn of(&self, shadow: bool) -> &[Vec<Range<u32>>] {
        if shadow {
            &self.shadow
        } else {
            &self.camera
        }
    }

    /// Both views' runs, as `runs` gives them for a view (none from the sun without one).
    fn new(
        runs: impl Fn(&CellView) -> Vec<Vec<Range<u32>>>,
        camera: &CellView,
        sun: Option<&CellView>,
    ) -> Self {
        ViewRuns {
            camera: runs(camera),
            shadow: sun.map(runs).unwrap_or_default(),
        }
    }
}

pub(crate) struct TreesGpu {
    /// One record per tree (`trees::TreeInstanceGpu`).
    pub instances: wgpu::Buffer,
    /// One group per forest (its instances, its cells, how far its trees are drawn) and
    /// its material.
    pub groups: Vec<(trees::TreeGroup, wgpu::BindGroup)>,
    cells: Vec<Cell>,
    /// Each group's runs of instances in view.
    pub runs: ViewRuns,
}

impl TreesGpu {
    /// Each group's runs in `view`.
    fn runs_in(&self, view: &CellView, culled: bool) -> Vec<Vec<Range<u32>>> {
        self.groups
            .iter()
            .map(|(g, _)| {
                let all = g.first..g.first + g.count;
                cells::visible_or_all(&self.cells[g.cells.clone()], all, view, culled)
            })
            .collect()
    }
}

pub(crate) struct LinesGpu {
    pub vertices: wgpu::Buffer,
    pub vertex_count: u32,
}

/// Sizes and counts of an uploaded scene.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct SceneGpuStats {
    /// Tile quads drawn once runs are merged, and the pieces' triangles after cutting.
    pub tile_quads: usize,
    pub tile_triangles: usize,
    /// Objects in the scene and objects shown at the current density.
    pub objects: usize,
    pub objects_shown: usize,
    /// Object draws per frame: one per (mesh, LOD) with instances.
    pub object_draws: usize,
    pub facades: usize,
    pub trees: usize,
    pub textures: usize,
    /// Textures this upload made (the others it was handed, [`SceneGpu::new_with_textures`]).
    pub textures_made: usize,
    /// Bytes of GPU buffers and textures uploaded.
    pub buffer_bytes: u64,
    pub texture_bytes: u64,
    /// GPU bytes per object instance (the instance record; meshes are shared).
    pub bytes_per_instance: usize,
    /// Wall time of the upload, CPU work included, milliseconds.
    pub upload_ms: f64,
}

/// What casts a shadow, for fitting the light's view (`shadow.rs`): the scene's ground
/// rectangle widened by the largest caster's reach, the terrain's raw height range, and how
/// far casters reach below and above the ground they stand on (m).
#[derive(Debug, Clone, Copy, PartialEq)]
struct Casters {
    lo: [f32; 2],
    hi: [f32; 2],
    ground: (f32, f32),
    below: f32,
    above: f32,
}

impl Casters {
    /// What casts shadows, and how far it reaches: the objects (by their meshes' boxes),
    /// the facades' walls and the trees, over the scene's rectangle (`bounds`,
    /// `Scene::bounds`); `None` when nothing stands on the ground.
    fn of(
        (lo, hi): ([f32; 2], [f32; 2]),
        terrain: &Terrain,
        (objects, any_facade, any_tree): (Option<&ObjectsGpu>, bool, bool),
        fmesh: &facades::FacadeMesh,
        tmesh: &trees::TreeMesh,
    ) -> Option<Casters> {
        let mut below = 0.0f32;
        let mut above = 0.0f32;
        let mut reach = 0.0f32;
        if let Some(o) = &objects {
            let (list, ranges) = o.set.instances();
            for (batch, range) in o.set.batches.iter().zip(ranges) {
                if range.is_empty() {
                    continue;
                }
                let (blo, bhi) = batch.bounds;
                // OBJ8 axes: y up; x and z across.
                reach = reach.max(
                    (blo[0].abs().max(bhi[0].abs()).powi(2)
                        + blo[2].abs().max(bhi[2].abs()).powi(2))
                    .sqrt(),
                );
                for inst in &list[range.start as usize..range.end as usize] {
                    let offset = if (inst.ground_mode[1] as u32) & 3 >= 2 {
                        inst.pos_heading[3]
                    } else {
                        0.0
                    };
                    below = below.min(offset + blo[1]);
                    above = above.max(offset + bhi[1]);
                }
            }
        }
        for v in &fmesh.vertices {
            // A wall may sink a meter below the lowest ground under it.
            below = below.min(-1.0 - v.wall[2]);
            above = above.max(v.wall[1]);
        }
        for t in &tmesh.instances {
            // A tree reaches its width from its trunk at most, and its height up.
            let [w, h, _, _] = t.size_offset;
            above = above.max(h);
            reach = reach.max(w);
        }
        let margin = reach + 1.0;
        let anything = objects.is_some() || any_facade || any_tree;
        (anything && below.is_finite() && above.is_finite() && margin.is_finite()).then(|| {
            Casters {
                lo: [lo[0] - margin, lo[1] - margin],
                hi: [hi[0] + margin, hi[1] + margin],
                ground: terrain.height_range(),
                below: below - 1.0,
                above: above + 1.0,
            }
        })
    }

    /// What casts shadows in either of two parts of a scene.
    fn union(&self, other: &Casters) -> Casters {
        Casters {
            lo: [self.lo[0].min(other.lo[0]), self.lo[1].min(other.lo[1])],
            hi: [self.hi[0].max(other.hi[0]), self.hi[1].max(other.hi[1])],
            ground: self.ground,
            below: self.below.min(other.below),
            above: self.above.max(other.above),
        }
    }

    /// The box at `exaggeration`.
    fn bounds(&self, exaggeration: f32) -> (glam::Vec3, glam::Vec3) {
        let (a, b) = (self.ground.0 * exaggeration, self.ground.1 * exaggeration);
        (
            glam::Vec3::new(self.lo[0], self.lo[1], a.min(b) + self.below),
            glam::Vec3::new(self.hi[0], self.hi[1], a.max(b) + self.above),
        )
    }
}

/// The sun's shadow map of a scene: the depth texture and the frame uniforms (and bind group)
/// it is drawn with.
pub(crate) struct ShadowGpu {
    pub view: wgpu::TextureView,
    frame_buffer: wgpu::Buffer,
    pub frame_bind_group: wgpu::BindGroup,
    size: u32,
    casters: Option<Casters>,
    /// Whether the frame last prepared draws (and looks up) the shadow map.
    pub active: bool,
}

/// One part of a scene's drawable content: what one [`Scene`] uploads beside the frame-wide
/// things (terrain, shadow map, frame uniforms, overlays) its [`SceneGpu`] holds once. A
/// scene is drawn part after part, except the ground (tiles and draped parts), which is
/// drawn by layer group across every part ([`SceneGpu::ground_draws`]), so splitting a
/// scene into parts never changes what is seen.
pub(crate) struct PartGpu {
    pub(crate) tiles: Option<TilesGpu>,
    pub(crate) draped: Option<DrapedGpu>,
    pub(crate) objects: Option<ObjectsGpu>,
    pub(crate) facades: Option<FacadesGpu>,
    pub(crate) trees: Option<TreesGpu>,
    /// The objects' light points (`lights.rs`).
    pub(crate) lights: Option<LightsGpu>,
}

/// The objects' draws across `parts` (part, segment) in the order one scene of them all
/// draws them, where more than one part has objects (empty otherwise): mesh by mesh, each
/// mesh's LODs in turn, each LOD's instances part by part. One scene draws its meshes in the
/// order each is first referenced, and the parts are consecutive runs of its features, each
/// drawing its own meshes in that order, so a mesh's place is where its name first comes in
/// the parts, part by part; objects of no mesh (the placeholder) come last. Where blended
/// objects overlap, what shows through what depends on this order.
fn object_draws(parts: &[PartGpu]) -> Vec<(usize, usize)> {
    let with: Vec<(usize, &ObjectsGpu)> = parts
        .iter()
        .enumerate()
        .filter_map(|(p, part)| Some((p, part.objects.as_ref()?)))
        .collect();
    if with.len() < 2 {
        return Vec::new();
    }
    let mut rank: HashMap<&str, usize> = HashMap::new();
    let mut draws = Vec::new();
    for (p, o) in with {
        for (k, &(b, l)) in o.owners.iter().enumerate() {
            let r = match o.mesh_names.get(b) {
                Some(name) => {
                    let next = rank.len();
                    *rank.entry(name.as_str()).or_insert(next)
                }
                None => usize::MAX,
            };
            draws.push((r, l, p, k));
        }
    }
    draws.sort_unstable();
    draws.into_iter().map(|(_, _, p, k)| (p, k)).collect()
}

/// One draw of the ground pass across a scene's parts: the part, and its tile segment or
/// draped group ([`GroundDraw`]).
pub(crate) type PartGroundDraw = (usize, GroundDraw);

/// The ground pass's draws across every one of `parts`, tile segments included (a frame
/// that hides the tiles skips them): by layer group and offset, tiles first within one,
/// then as one scene of every part would draw them ([`super::draped::ground_order`]): its
/// draped groups by kind as `DrapedSet::build` makes them, then in the order each look
/// first comes in the parts (the parts are in document order), each look's pieces part by
/// part. Draped polygons of two looks that overlap in one layer group so draw the one over
/// the other as in one scene.
fn ground_order(parts: &[PartGpu]) -> Vec<PartGroundDraw> {
    // (layer group and offset, tiles first, the look's rank, part, index in the part)
    type Order = ((u32, i32), u8, (u8, usize, usize), usize, usize);
    let mut all: Vec<Order> = Vec::new();
    let mut first: HashMap<DrapedLook, (usize, usize)> = HashMap::new();
    for (p, part) in parts.iter().enumerate() {
        if let Some(t) = &part.tiles {
            all.extend(
                t.segments
                    .iter()
                    .enumerate()
                    .map(|(i, (k, _))| (*k, 0, (0, p, i), p, i)),
            );
        }
        if let Some(d) = &part.draped {
            all.extend(d.groups.iter().enumerate().map(|(i, g)| {
                let look = d.looks.get(i).copied().flatten();
                let (p0, i0) = look.map_or((p, i), |l| *first.entry(l).or_insert((p, i)));
                (g.0, 1, (draped_stage(g.3), p0, i0), p, i)
            }));
        }
    }
    all.sort();
    all.into_iter()
        .map(|(_, kind, _, p, i)| {
            let draw = if kind == 0 {
                GroundDraw::Tiles(i)
            } else {
                GroundDraw::Draped(i)
            };
            (p, draw)
        })
        .collect()
}

/// Everything one scene needs on the GPU.
pub struct SceneGpu {
    frame_buffer: wgpu::Buffer,
    /// The height field (R32Float, `resolution²`), rewritten in place by `set_terrain`.
    heights: KeptHeights,
    pub(crate) frame_bind_group: wgpu::BindGroup,
    pub(crate) terrain: TerrainChunks,
    /// The drawable content, in the order it was uploaded ([`SceneGpu::append`]): never
    /// empty.
    pub(crate) parts: Vec<PartGpu>,
    /// Overlay lines, one buffer per `prepare_overlays` that built something.
    pub(crate) lines: Vec<LinesGpu>,
    /// The overlay kinds (`Overlays::mask`) whose lines are built.
    overlays_built: u32,
    /// Overlay segment step and point marker size, meters.
    overlay_sizes: (f32, f32),
    pub(crate) shadow: ShadowGpu,
    /// The parameters of the frame last prepared.
    pub(crate) frame: FrameParams,
    /// Its clear colour: the horizon's, exposed (HDR frame units).
    clear: [f32; 3],
    grid: Grid,
    resolution: u32,
    exaggeration: f32,
    tile_lod: f32,
    /// The height field's lowest and highest raw heights (m): what cells are culled over.
    ground: (f32, f32),
    /// Whether trees and tile pieces are culled by cells (on every culling path but `off`).
    cells_culled: bool,
    /// The culling path last asked for.
    path: Culling,
    /// Where more than one part has objects: their segments' draws, (part, segment), in
    /// the order one scene draws them ([`object_draws`]); empty otherwise.
    pub(crate) object_draws: Vec<(usize, usize)>,
    /// The ground pass's draws across every part ([`ground_order`]), made when a part
    /// comes, not each frame.
    pub(crate) ground_draws: Vec<PartGroundDraw>,
    density: u8,
    stats: SceneGpuStats,
    warnings: Vec<Diagnostic>,
    /// The art's textures this upload made or was handed ([`SceneGpu::textures`]).
    textures: SceneTextures,
}

/// The textures an upload made from one art set on one device, with the warnings making
/// them gave: handed to the next upload of the same art on the same device
/// ([`SceneGpu::new_with_textures`]), which then makes only the textures it lacks. A
/// relayout (an edit, a changed layout option) so uploads its buffers alone, and a large
/// document's whole uploads only what its preview lacked. The handles are shared, not
/// copied.
#[derive(Clone, Default)]
pub struct SceneTextures {
    made: HashMap<TexSource, GpuTexture>,
    /// What each image's texture was made from ([`ImageKey`]): an upload of other art keeps
    /// only the textures whose image is the same there.
    keys: HashMap<usize, ImageKey>,
    warnings: Vec<String>,
    /// The height field, reused where the next terrain has the same samples.
    heights: Option<KeptHeights>,
}

/// A height field texture and the samples it holds, shared by every scene and kept set
/// using it; [`SceneGpu::set_terrain`] rewrites the texture and the record.
#[derive(Clone)]
struct KeptHeights {
    texture: wgpu::Texture,
    view: wgpu::TextureView,
    samples: Arc<Mutex<Vec<f32>>>,
}

/// The most samples a height field is kept with a copy of (4 MiB): the copy is what tells
/// the next terrain's samples the same; a larger one is uploaded anew each time.
const KEPT_HEIGHTS_MAX: usize = 1025 * 1025;

impl KeptHeights {
    /// Whether the texture holds `terrain`'s samples, bit for bit.
    fn holds(&self, terrain: &Terrain) -> bool {
        let samples = self.samples.lock().unwrap_or_else(|e| e.into_inner());
        samples.len() == terrain.heights.len()
            && bytemuck::cast_slice::<f32, u8>(&samples)
                == bytemuck::cast_slice::<f32, u8>(&terrain.heights)
    }

    /// Records that the texture holds `terrain`'s samples (none where too many to copy).
    fn record(&self, terrain: &Terrain) {
        let mut samples = self.samples.lock().unwrap_or_else(|e| e.into_inner());
        samples.clear();
        if terrain.heights.len() <= KEPT_HEIGHTS_MAX {
            samples.extend_from_slice(&terrain.heights);
        }
    }
}

/// A new height field texture holding `terrain`'s samples (`R32Float`, `resolution²`).
fn upload_heights(ctx: &GpuContext, terrain: &Terrain) -> KeptHeights {
    let n = terrain.resolution;
    let device = &ctx.device;
    let texture = device.create_texture_with_data(
        &ctx.queue,
        &wgpu::TextureDescriptor {
            label: Some("height field"),
            size: wgpu::Extent3d {
                width: n,
                height: n,
                depth_or_array_layers: 1,
            },
            mip_level_count: 1,
            sample_count: 1,
            dimension: wgpu::TextureDimension::D2,
            format: wgpu::TextureFormat::R32Float,
            usage: wgpu::TextureUsages::TEXTURE_BINDING | wgpu::TextureUsages::COPY_DST,
            view_formats: &[],
        },
        wgpu::util::TextureDataOrder::LayerMajor,
        bytemuck::cast_slice(&terrain.heights),
    );
    let view = texture.create_view(&wgpu::TextureViewDescriptor::default());
    let h = KeptHeights {
        texture,
        view,
        samples: Arc::default(),
    };
    h.record(terrain);
    h
}

impl SceneTextures {
    /// How many textures are kept.
    pub fn len(&self) -> usize {
        self.made.len()
    }

    pub fn is_empty(&self) -> bool {
        self.made.is_empty()
    }
}

/// What tells an image's texture apart: the image's name and size, and the alpha cutoff
/// its mips keep their coverage at.
#[derive(Clone, Debug, PartialEq)]
struct ImageKey {
    name: String,
    size: (u32, u32),
    cutoff: Option<u32>,
}

impl ImageKey {
    fn of(art: &ArtSet, i: usize, cutoffs: &HashMap<usize, f32>) -> Option<Self> {
        let img = art.images.get(i)?;
        Some(ImageKey {
            name: img.name.clone(),
            size: (img.width, img.height),
            cutoff: cutoffs.get(&i).map(|c| c.to_bits()),
        })
    }
}

/// Textures of one upload, each made once.
struct TextureCache<'a> {
    ctx: &'a GpuContext,
    art: &'a ArtSet,
    made: HashMap<TexSource, GpuTexture>,
    keys: HashMap<usize, ImageKey>,
    /// How many this upload made.
    made_now: usize,
    extra: Vec<GpuTexture>,
    warnings: Vec<String>,
    /// The alpha cutoff each alpha-tested image is drawn with ([`alpha_cutoffs`]).
    cutoffs: HashMap<usize, f32>,
    /// The last large texture handed to the device ([`texture::upload_image`]).
    in_flight: Option<wgpu::SubmissionIndex>,
}

/// The alpha cutoff of each image that is alpha-tested, so that its mips keep their
/// coverage there: an object texture at its first `ATTR_no_blend` cutoff, a forest's at the
/// trees' [`TREE_CUTOFF`]. Images only blended are not in the map.
fn alpha_cutoffs(art: &ArtSet) -> HashMap<usize, f32> {
    let mut out = HashMap::new();
    for m in &art.meshes {
        let Some(t) = m.texture else { continue };
        if let Some(c) = m.lods.iter().find_map(|l| l.material.alpha_cutoff) {
            out.entry(t).or_insert(c);
        }
    }
    let forests = art.forest.iter().chain(&art.more_forests);
    for t in forests.filter_map(|f| f.texture) {
        out.entry(t).or_insert(TREE_CUTOFF);
    }
    out
}

impl<'a> TextureCache<'a> {
    fn view(&mut self, src: TexSource) -> &wgpu::TextureView {
        if !self.made.contains_key(&src) {
            let ctx = self.ctx;
            let tex = match src {
                TexSource::Image(i) => match self.art.images.get(i) {
                    Some(img) => texture::upload_image(
                        ctx,
                        img,
                        self.cutoffs.get(&i).copied(),
                        &mut self.warnings,
                        &mut self.in_flight,
                    ),
                    None => texture::upload_checkerboard(ctx, "missing"),
                },
                TexSource::White => texture::upload_solid(ctx, "white", [255; 4]),
                TexSource::Hazard => {
                    let (w, h, px) = texture::hazard_stripes();
                    let mut mips = vec![px];
                    complete(&mut mips, w, h);
                    texture::upload_rgba_levels(ctx, "missing mesh", w, h, &mips)
                }
                TexSource::Checker => texture::upload_checkerboard(ctx, "missing"),
                TexSource::Black => texture::upload_solid(ctx, "no lit texture", [0, 0, 0, 255]),
                // (0.5, 0.5) once re-encoded in the shader: straight up the surface normal.
                TexSource::FlatNormal => {
                    texture::upload_solid(ctx, "no normal map", [128, 128, 255, 255])
                }
            };
            if let TexSource::Image(i) = src {
                if let Some(k) = ImageKey::of(self.art, i, &self.cutoffs) {
                    self.keys.insert(i, k);
                }
            }
            self.made_now += 1;
            self.made.insert(src, tex);
        }
        &self.made[&src].view
    }

    fn placeholder_tree(&mut self) -> &wgpu::TextureView {
        let (w, h, px) = texture::placeholder_tree();
        let mut mips = vec![px];
        complete(&mut mips, w, h);
        texture::preserve_coverage(&mut mips, TREE_CUTOFF);
        self.extra.push(texture::upload_rgba_levels(
            self.ctx,
            "placeholder tree",
            w,
            h,
            &mips,
        ));
        &self.extra[self.extra.len() - 1].view
    }

    fn image_or_checker(&self, index: Option<usize>) -> TexSource {
        match index {
            Some(i) if i < self.art.images.len() => TexSource::Image(i),
            Some(_) => TexSource::Checker,
            None => TexSource::White,
        }
    }

    fn bytes(&self) -> u64 {
        self.made.values().chain(&self.extra).map(|t| t.bytes).sum()
    }
}

fn complete(mips: &mut Vec<Vec<u8>>, w: u32, h: u32) {
    let (mut lw, mut lh) = (w, h);
    while lw > 1 || lh > 1 {
        let next = texture::downsample(&mips[mips.len() - 1], lw, lh);
        lw = (lw / 2).max(1);
        lh = (lh / 2).max(1);
        mips.push(next);
    }
}

/// How many bytes of parts [`Upload::buffer_from_parts`] stages before it hands them to the
/// device: a submit per part of a few MB cost more than the copies.
const FLUSH_PART_BYTES: u64 = 32 << 20;

/// What every draw kind's upload uses: the device and the shared layouts, the art and the
/// textures made from it, the materials, and the running count of buffer bytes and warnings.
struct Upload<'a> {
    device: &'a wgpu::Device,
    queue: &'a wgpu::Queue,
    shared: &'a GpuShared,
    art: &'a ArtSet,
    cache: TextureCache<'a>,
    mats: Materials<'a>,
    buffer_bytes: u64,
    warnings: Vec<String>,
    /// Whether each stage of a part's upload gives back what the allocators hold freed
    /// ([`Upload::stage_done`]).
    release: bool,
}

impl<'a> Upload<'a> {
    /// An upload of `art` on `ctx`'s device that makes only the textures `textures` lacks
    /// (those handed over whose image is the same in this art are kept).
    fn new(
        ctx: &'a GpuContext,
        shared: &'a GpuShared,
        art: &'a ArtSet,
        textures: SceneTextures,
        buffer_bytes: u64,
        warnings: Vec<String>,
    ) -> Self {
        let device = &ctx.device;
        let cutoffs = alpha_cutoffs(art);
        let (mut made, mut keys) = (textures.made, textures.keys);
        keys.retain(|&i, k| ImageKey::of(art, i, &cutoffs).as_ref() == Some(k));
        made.retain(|src, _| match src {
            TexSource::Image(i) => keys.contains_key(i),
            _ => true,
        });
        let mut cache = TextureCache {
            ctx,
            art,
            made,
            keys,
            made_now: 0,
            extra: Vec::new(),
            warnings: textures.warnings,
            cutoffs,
            in_flight: None,
        };
        // A material with a lit texture (`TEXTURE_LIT`), and one without (black: no glow).
        let mats = Materials {
            device,
            shared,
            black: cache.view(TexSource::Black).clone(),
            flat: cache.view(TexSource::FlatNormal).clone(),
        };
        Upload {
            device,
            queue: &ctx.queue,
            shared,
            art,
            cache,
            mats,
            buffer_bytes,
            warnings,
            release: false,
        }
    }
}

impl<'a> Upload<'a> {
    /// What the upload said (its own warnings, then its textures'), its textures, and the
    /// bytes of the buffers it made.
    fn finish(self) -> (Vec<String>, TextureCache<'a>, u64) {
        let mut warnings = self.warnings;
        warnings.extend(self.cache.warnings.iter().cloned());
        (warnings, self.cache, self.buffer_bytes)
    }

    /// Hands the buffers and textures made so far to the device: their staging copies are
    /// written to them now and freed once written (checked without waiting, at the next
    /// flush), rather than all living until the first frame's submit. On a software
    /// rasterizer, whose GPU memory is the process's, the staging copies of the whole
    /// scene and the buffers they fill would otherwise all be resident at once.
    fn flush(&self) {
        self.queue.submit([]);
        let _ = self.device.poll(wgpu::PollType::Poll);
    }

    /// The end of one stage of [`PartGpu::upload`] (the tiles, the draped polygons, the
    /// objects...): [`Upload::flush`], then, for a part of a large document the window adds
    /// while the rest is laid out ([`SceneGpu::upload_part`]) and for a whole scene on a
    /// CPU adapter ([`SceneGpu::upload`]), what the stage freed (its meshes, built on
    /// threads of their own) is given back ([`crate::release_freed_memory`]). Else it stays
    /// resident under the next stage's buffers, beside the whole document the loader holds
    /// laid out, and the last part's upload is the window's loading peak.
    fn stage_done(&self) {
        self.flush();
        if self.release {
            crate::context::release_freed_memory();
        }
    }

    /// `usage`, with `MAP_WRITE` where buffers are written mapped
    /// ([`GpuContext::upload_usage`]).
    fn usage(&self, usage: wgpu::BufferUsages) -> wgpu::BufferUsages {
        self.cache.ctx.upload_usage(usage)
    }

    /// A buffer made with `contents`, counted.
    fn buffer(&mut self, label: &str, contents: &[u8], usage: wgpu::BufferUsages) -> wgpu::Buffer {
        self.buffer_bytes += contents.len() as u64;
        self.device
            .create_buffer_init(&wgpu::util::BufferInitDescriptor {
                label: Some(label),
                contents,
                usage: self.usage(usage),
            })
    }

    /// A buffer holding `parts` one after the other, counted. Each part is freed once its
    /// staging copy is made, and the staging copies are handed to the device every
    /// [`FLUSH_PART_BYTES`]: the CPU's copy, the staging copy and the buffer of a whole
    /// tile's mesh are never all resident at once. Where buffers are written mapped
    /// ([`GpuContext::maps_uploads`]), each part is copied straight into the buffer instead.
    fn buffer_from_parts<T: bytemuck::Pod>(
        &mut self,
        label: &str,
        parts: Vec<Vec<T>>,
        usage: wgpu::BufferUsages,
    ) -> wgpu::Buffer {
        let size = parts_size(&parts);
        let made = self.parts_buffer(label, size, usage);
        self.fill_parts(made, parts)
    }

    /// The buffer [`Upload::buffer_from_parts`] fills with `size` bytes, counted, made
    /// before its parts are at hand: where buffers are written mapped, a buffer mapped at
    /// creation, which the device zeroes as it is made (every page of it touched once);
    /// the caller can do other work with the parts meanwhile ([`TilesGpu::upload`]).
    fn parts_buffer(&mut self, label: &str, size: u64, usage: wgpu::BufferUsages) -> PartsBuffer {
        self.buffer_bytes += size;
        // A buffer mapped at creation must be a whole number of copy units, and not empty
        // (an empty one has no range to write).
        let mapped = (self.cache.ctx.maps_uploads()
            && size > 0
            && size.is_multiple_of(wgpu::COPY_BUFFER_ALIGNMENT))
        .then(|| {
            self.device.create_buffer(&wgpu::BufferDescriptor {
                label: Some(label),
                size,
                usage: usage | wgpu::BufferUsages::MAP_WRITE,
                mapped_at_creation: true,
            })
        });
        PartsBuffer {
            label: label.to_string(),
            size,
            usage,
            mapped,
        }
    }

    /// Writes `parts`, one after the other, into `made` ([`Upload::parts_buffer`] of their
    /// size).
    fn fill_parts<T: bytemuck::Pod>(
        &mut self,
        made: PartsBuffer,
        parts: Vec<Vec<T>>,
    ) -> wgpu::Buffer {
        debug_assert_eq!(parts_size(&parts), made.size);
        // A buffer mapped at creation is always mappable; were it not, the parts are
        // staged as on a GPU.
        if let Some(buffer) = made.mapped {
            if let Ok(mut view) = buffer.get_mapped_range_mut(..) {
                let mut at = 0;
                for part in parts {
                    let bytes: &[u8] = bytemuck::cast_slice(&part);
                    view.slice(at..at + bytes.len()).copy_from_slice(bytes);
                    at += bytes.len();
                }
                drop(view);
                buffer.unmap();
                return buffer;
            }
        }
        let buffer = self.device.create_buffer(&wgpu::BufferDescriptor {
            label: Some(&made.label),
            size: made.size,
            usage: made.usage | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let (mut at, mut flushed) = (0, 0);
        for part in parts {
            let bytes: &[u8] = bytemuck::cast_slice(&part);
            if !bytes.is_empty() {
                self.queue.write_buffer(&buffer, at, bytes);
                at += bytes.len() as u64;
            }
            if at - flushed >= FLUSH_PART_BYTES {
                self.flush();
                flushed = at;
            }
        }
        self.flush();
        buffer
    }
}

/// The bytes of `parts` one after the other.
fn parts_size<T>(parts: &[Vec<T>]) -> u64 {
    parts
        .iter()
        .map(|p| std::mem::size_of_val(p.as_slice()) as u64)
        .sum()
}

/// A buffer made for parts not yet written ([`Upload::parts_buffer`]).
struct PartsBuffer {
    label: String,
    size: u64,
    usage: wgpu::BufferUsages,
    /// The buffer mapped at creation, where buffers are written mapped.
    mapped: Option<wgpu::Buffer>,
}

/// Makes the material bind groups: a texture, its lit texture and normal map, and the
/// uniforms.
struct Materials<'a> {
    device: &'a wgpu::Device,
    shared: &'a GpuShared,
    /// No glow: the lit texture of a material without `TEXTURE_LIT`.
    black: wgpu::TextureView,
    /// No bend: the normal map of a material without one.
    flat: wgpu::TextureView,
}

impl Materials<'_> {
    /// A material with a lit texture (`TEXTURE_LIT`) and a normal map.
    fn full(
        &self,
        view: &wgpu::TextureView,
        lit: &wgpu::TextureView,
        normal: &wgpu::TextureView,
        u: MaterialUniforms,
    ) -> wgpu::BindGroup {
        self.with_map(view, lit, normal, &self.black, u)
    }

    /// A material with a lit texture, a normal map and a material map (`TEXTURE_MAP
    /// material_gloss` / `gloss`).
    fn with_map(
        &self,
        view: &wgpu::TextureView,
        lit: &wgpu::TextureView,
        normal: &wgpu::TextureView,
        map: &wgpu::TextureView,
        u: MaterialUniforms,
    ) -> wgpu::BindGroup {
        let ubuf = self
            .device
            .create_buffer_init(&wgpu::util::BufferInitDescriptor {
                label: Some("material"),
                contents: bytemuck::bytes_of(&u),
                usage: wgpu::BufferUsages::UNIFORM,
            });
        self.device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("material"),
            layout: &self.shared.material_layout,
            entries: &[
                wgpu::BindGroupEntry {
                    binding: 0,
                    resource: wgpu::BindingResource::TextureView(view),
                },
                wgpu::BindGroupEntry {
                    binding: 1,
                    resource: ubuf.as_entire_binding(),
                },
                wgpu::BindGroupEntry {
                    binding: 2,
                    resource: wgpu::BindingResource::TextureView(lit),
                },
                wgpu::BindGroupEntry {
                    binding: 3,
                    resource: wgpu::BindingResource::TextureView(normal),
                },
                wgpu::BindGroupEntry {
                    binding: 4,
                    resource: wgpu::BindingResource::TextureView(map),
                },
            ],
        })
    }

    /// A material that neither glows nor bends its normals.
    fn plain(&self, view: &wgpu::TextureView, u: MaterialUniforms) -> wgpu::BindGroup {
        self.full(view, &self.black, &self.flat, u)
    }
}

impl TilesGpu {
    /// The autogen tiles' pieces on the terrain, with the tile texture and its lit one.
    fn upload(
        up: &mut Upload,
        scene: &Scene,
        grid: &Grid,
        stats: &mut SceneGpuStats,
    ) -> Option<Self> {
        if scene.hide_tiles || scene.tile_texture.is_none() {
            None
        } else {
            // Cut on every core, in parts each handed to the GPU and freed in turn.
            let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
            let built = tiles::build_parts(scene, grid, threads);
            up.warnings.extend(built.warnings.iter().cloned());
            stats.tile_quads = built.quads;
            stats.tile_triangles = built.index_count() / 3;
            if stats.tile_triangles == 0 {
                None
            } else {
                let src = up.cache.image_or_checker(up.art.tile_texture);
                let src = if src == TexSource::White {
                    // The scene names a tile texture the art set did not load.
                    TexSource::Checker
                } else {
                    src
                };
                let view = up.cache.view(src).clone();
                // `TEXTURE_LIT`: glows as night comes; black when there is none.
                let lit = match up.art.tile_lit {
                    Some(i) if i < up.art.images.len() => TexSource::Image(i),
                    _ => TexSource::Black,
                };
                let lit = up.cache.view(lit).clone();
                // The cells are found on another core while the vertex buffer is made: on a
                // CPU adapter the device zeroes every page of it as it is made, a serial
                // step as long as the cells.
                let vertex_bytes: u64 = built
                    .parts
                    .iter()
                    .map(|p| std::mem::size_of_val(p.vertices.as_slice()) as u64)
                    .sum();
                let (cells, made) = std::thread::scope(|s| {
                    let cells = s.spawn(|| -> Vec<_> {
                        built
                            .segments
                            .iter()
                            .map(|(_, r)| built.cells(r.clone()))
                            .collect()
                    });
                    let made =
                        up.parts_buffer("tile vertices", vertex_bytes, wgpu::BufferUsages::VERTEX);
                    (joined(cells), made)
                });
                let runs = built
                    .segments
                    .iter()
                    .map(|(_, r)| vec![r.clone()])
                    .collect();
                let (vertices, indices): (Vec<_>, Vec<_>) = built
                    .parts
                    .into_iter()
                    .map(|p| (p.vertices, p.indices))
                    .unzip();
                let vertices = up.fill_parts(made, vertices);
                let indices =
                    up.buffer_from_parts("tile indices", indices, wgpu::BufferUsages::INDEX);
                Some(TilesGpu {
                    vertices,
                    indices,
                    material: up.mats.full(
                        &view,
                        &lit,
                        &up.mats.flat,
                        MaterialUniforms::plain([1.0; 3], 0.0),
                    ),
                    cells,
                    runs,
                    segments: built.segments,
                })
            }
        }
    }
}

impl DrapedGpu {
    /// The draped parts of objects and the draped polygons and lines: pieces on the
    /// terrain like tiles.
    fn upload(up: &mut Upload, dset: DrapedSet) -> Option<Self> {
        up.warnings.extend(dset.warnings.iter().cloned());
        if dset.groups.is_empty() {
            None
        } else {
            let (list, ranges) = dset.indices();
            let groups = dset
                .groups
                .iter()
                .zip(ranges)
                .map(|(g, r)| {
                    let view = up.cache.view(g.texture).clone();
                    let lit = up.cache.view(g.lit).clone();
                    let normal = up.cache.view(g.normal).clone();
                    let has_normal = g.normal != TexSource::FlatNormal;
                    let mut u = MaterialUniforms::plain([1.0; 3], 0.0);
                    // `tile.wgsl`: x clamps (`TEXTURE_NOWRAP`), y draws opaque (`NO_ALPHA`),
                    // w: a normal map bends the normal.
                    u.repeat_m = [
                        f32::from(u8::from(g.clamp)),
                        f32::from(u8::from(g.opaque)),
                        0.0,
                        f32::from(u8::from(has_normal)),
                    ];
                    u.shading = ShadingUniforms::of(&g.shading, has_normal, false, g.normal_scale);
                    (g.key, up.mats.full(&view, &lit, &normal, u), r, g.kind)
                })
                .collect();
            up.buffer_bytes += (list.len() * 4) as u64;
            Some(DrapedGpu {
                vertices: up.buffer(
                    "draped vertices",
                    bytemuck::cast_slice(&dset.vertices),
                    wgpu::BufferUsages::VERTEX,
                ),
                indices: draped_index_buffer(up.device, &list, up.usage(wgpu::BufferUsages::INDEX)),
                groups,
                looks: dset.groups.iter().map(draped_look).collect(),
            })
        }
    }
}

impl ObjectsGpu {
    /// Every placed object: the meshes' vertices and indices, one instance per placement
    /// grouped by mesh, a material per LOD range, and the culling path's buffers.
    /// `set` comes with its cells ([`ObjectCells::of`]), both made off this thread.
    fn upload(
        up: &mut Upload,
        (set, cells): (ObjectSet, ObjectCells),
        stats: &mut SceneGpuStats,
    ) -> Option<Self> {
        up.warnings.extend(set.warnings.iter().cloned());
        stats.objects = set.total();
        if set.total() == 0 {
            None
        } else {
            let mut lod_materials = Vec::with_capacity(set.batches.len());
            for b in &set.batches {
                let mut lods = Vec::with_capacity(b.lods.len());
                for l in &b.lods {
                    let lit = up.cache.view(b.lit).clone();
                    let normal = up.cache.view(b.normal).clone();
                    let map = up.cache.view(b.map).clone();
                    let view = up.cache.view(b.texture);
                    // Blended ranges drop only the texels nothing of shows through.
                    let cutoff = l.material.alpha_cutoff.unwrap_or(BLEND_CUTOFF);
                    let mut u = MaterialUniforms::plain([1.0; 3], cutoff);
                    let flat = if l.material.flat { 1.0 } else { 0.0 };
                    u.lod = [l.near, l.far, if b.placeholder { 1.0 } else { 0.0 }, flat];
                    // Objects repeat nothing: repeat_m.w says whether a normal map bends
                    // the normals.
                    let has_normal = b.normal != TexSource::FlatNormal;
                    if has_normal {
                        u.repeat_m[3] = 1.0;
                    }
                    // The material rule's result for this range (`agview_format::material`).
                    u.shading =
                        ShadingUniforms::of(&l.shading, has_normal, b.map != TexSource::Black, 1.0);
                    lods.push((
                        up.mats.with_map(view, &lit, &normal, &map, u),
                        l.first_index..l.first_index + l.index_count,
                        ObjectPipeline::of(&l.material).index(),
                    ));
                }
                lod_materials.push(lods);
            }
            let (list, ranges) = set.instances();
            let (segments, owners) = cull::segments(&set.batches, ranges, 0..list.len() as u32);
            let mut path = up.shared.culling;
            if path == Culling::Gpu && up.shared.cull.is_none() {
                path = Culling::Cpu;
            }
            let gpu_usable = up.shared.cull.is_some();
            let instances = instance_buffer(up.device, list, up.usage(instance_usage(gpu_usable)));
            up.buffer_bytes += std::mem::size_of_val(list) as u64;
            let mut o = ObjectsGpu {
                vertices: up.buffer(
                    "mesh vertices",
                    bytemuck::cast_slice(&set.vertices),
                    wgpu::BufferUsages::VERTEX,
                ),
                indices: up.buffer(
                    "mesh indices",
                    bytemuck::cast_slice(&set.indices),
                    wgpu::BufferUsages::INDEX,
                ),
                instances,
                batches: lod_materials
                    .into_iter()
                    .zip(ranges.iter().cloned())
                    .map(|(lods, instances)| BatchGpu { lods, instances })
                    .collect(),
                set,
                segments,
                owners,
                mesh_names: up.art.meshes.iter().map(|m| m.name.clone()).collect(),
                path: Culling::Off,
                gpu_cull: Vec::new(),
                cpu_buffer: None,
                cpu_ranges: Vec::new(),
                shadow_gpu_cull: Vec::new(),
                shadow_cpu_buffer: None,
                shadow_cpu_ranges: Vec::new(),
                last_view: None,
                cells,
                runs: Vec::new(),
                placement: None,
            };
            // The meshes are on the GPU: nothing reads the CPU's copy again.
            o.set.vertices = Vec::new();
            o.set.indices = Vec::new();
            if gpu_usable && up.shared.place.is_some() {
                o.placement = Some(GpuPlacement::new(
                    up.device,
                    o.set.ground_points(),
                    up.usage(wgpu::BufferUsages::STORAGE),
                ));
            }
            o.set_path(up.device, up.shared, path);
            Some(o)
        }
    }
}

impl LightsGpu {
    /// The light points of the placed objects: one instance per (object, light).
    fn upload(up: &mut Upload, o: &ObjectsGpu) -> Option<Self> {
        let set = super::lights::build(&o.set, up.art);
        if set.list.is_empty() {
            return None;
        }
        up.buffer_bytes += std::mem::size_of_val(&set.list[..]) as u64;
        Some(LightsGpu {
            instances: up
                .device
                .create_buffer_init(&wgpu::util::BufferInitDescriptor {
                    label: Some("light instances"),
                    contents: bytemuck::cast_slice(&set.list),
                    usage: up.usage(wgpu::BufferUsages::VERTEX | wgpu::BufferUsages::COPY_DST),
                }),
            count: set.list.len() as u32,
            set,
        })
    }
}

impl FacadesGpu {
    /// Facades and the library objects drawn as boxes: walls and roofs, a material each;
    /// the mesh is returned too (the shadow's reach is measured from it).
    fn upload(
        up: &mut Upload,
        scene: &Scene,
        (fmesh, group_cells): (facades::FacadeMesh, Vec<Vec<Cell>>),
        stats: &mut SceneGpuStats,
    ) -> (Option<Self>, facades::FacadeMesh) {
        up.warnings.extend(fmesh.warnings.iter().cloned());
        stats.facades = scene.facades.len();
        let facades = if fmesh.indices.is_empty() {
            None
        } else {
            let mut draws = Vec::new();
            for g in &fmesh.groups {
                let (wall, roof) = match g.key {
                    FacadeKey::Def(i) => {
                        let fa = &up.art.facades[i];
                        let wall_src = up.cache.image_or_checker(fa.texture);
                        let roof_src = match fa.roof_texture {
                            Some(_) => up.cache.image_or_checker(fa.roof_texture),
                            None => wall_src,
                        };
                        let lod = [g.lod[0], g.lod[1], 0.0, 0.0];
                        let (w, r) = if g.mapped {
                            // Texture coordinates come with the vertices (repeat_m.z = 1).
                            let m = MaterialUniforms {
                                repeat_m: [0.0, 0.0, 1.0, 0.0],
                                lod,
                                ..MaterialUniforms::plain([1.0; 3], 0.0)
                            };
                            (m, m)
                        } else {
                            let bay = sane_len(fa.bay_width, 10.0);
                            let floor = sane_len(fa.floor_height, 3.0);
                            (
                                MaterialUniforms {
                                    rect: fa.wall_uv,
                                    repeat_m: [bay, floor, 0.0, 0.0],
                                    lod,
                                    ..MaterialUniforms::plain([1.0; 3], 0.0)
                                },
                                MaterialUniforms {
                                    rect: fa.roof_uv,
                                    repeat_m: [bay, bay, 0.0, 0.0],
                                    lod,
                                    ..MaterialUniforms::plain([1.0; 3], 0.0)
                                },
                            )
                        };
                        let lit_src = match fa.lit_texture {
                            Some(t) if t < up.art.images.len() => TexSource::Image(t),
                            _ => TexSource::Black,
                        };
                        let lit = up.cache.view(lit_src).clone();
                        let wall = up
                            .mats
                            .full(up.cache.view(wall_src), &lit, &up.mats.flat, w);
                        let roof_lit = match fa.roof_lit_texture {
                            Some(t) if t < up.art.images.len() => TexSource::Image(t),
                            _ => TexSource::Black,
                        };
                        let roof_lit = up.cache.view(roof_lit).clone();
                        let roof =
                            up.mats
                                .full(up.cache.view(roof_src), &roof_lit, &up.mats.flat, r);
                        (wall, roof)
                    }
                    FacadeKey::Neutral | FacadeKey::Library => {
                        let (wall_tint, roof_tint) =
                            facades::plain_tints(g.key).unwrap_or(([1.0; 3], [1.0; 3]));
                        let view = up.cache.view(TexSource::White);
                        (
                            up.mats.plain(view, MaterialUniforms::plain(wall_tint, 0.0)),
                            up.mats.plain(view, MaterialUniforms::plain(roof_tint, 0.0)),
                        )
                    }
                };
                draws.push((wall, g.walls.clone()));
                draws.push((roof, g.roofs.clone()));
            }
            Some(FacadesGpu {
                vertices: up.buffer(
                    "facade vertices",
                    bytemuck::cast_slice(&fmesh.vertices),
                    wgpu::BufferUsages::VERTEX,
                ),
                indices: up.buffer(
                    "facade indices",
                    bytemuck::cast_slice(&fmesh.indices),
                    wgpu::BufferUsages::INDEX,
                ),
                runs: ViewRuns::default(),
                draws,
                cells: group_cells,
            })
        };
        (facades, fmesh)
    }
}

impl TreesGpu {
    /// Forest trees as instanced crossed quads, a material per forest; the mesh is returned
    /// too (the shadow's reach is measured from it).
    fn upload(
        up: &mut Upload,
        scene: &Scene,
        mut tmesh: trees::TreeMesh,
        stats: &mut SceneGpuStats,
    ) -> (Option<Self>, trees::TreeMesh) {
        stats.trees = scene.trees.len();
        let forests = trees::forests(up.art);
        let trees = if tmesh.instances.is_empty() {
            None
        } else {
            let groups = tmesh
                .groups
                .iter()
                .map(|g| {
                    let forest = forests.get(g.forest).copied().flatten();
                    let view = match forest {
                        Some(f) => {
                            let src = up.cache.image_or_checker(f.texture);
                            up.cache.view(src)
                        }
                        None => up.cache.placeholder_tree(),
                    };
                    let mut u = MaterialUniforms::plain([1.0; 3], TREE_CUTOFF);
                    // How far its trees are drawn: the forest's `LOD` or the default.
                    u.lod = [0.0, g.far, 0.0, 0.0];
                    (g.clone(), up.mats.plain(view, u))
                })
                .collect();
            Some(TreesGpu {
                instances: up.buffer(
                    "tree instances",
                    bytemuck::cast_slice(&tmesh.instances),
                    wgpu::BufferUsages::VERTEX,
                ),
                groups,
                cells: std::mem::take(&mut tmesh.cells),
                runs: ViewRuns::default(),
            })
        };
        (trees, tmesh)
    }
}

/// The cells of each facade group's walls, then its roofs, group by group: those of
/// [`FacadesGpu`]'s draws.
fn facade_cells(fmesh: &facades::FacadeMesh) -> Vec<Vec<Cell>> {
    fmesh
        .groups
        .iter()
        .flat_map(|g| {
            [
                facades::cells(fmesh, g.walls.clone(), g.lod[1]),
                facades::cells(fmesh, g.roofs.clone(), g.lod[1]),
            ]
        })
        .collect()
}

/// A rectangle of the scene, `(min, max)` in meters ([`Scene::bounds`]).
type Bounds = ([f32; 2], [f32; 2]);

/// What the scoped thread `handle` returned; its panic, were there one, goes on.
fn joined<T>(handle: std::thread::ScopedJoinHandle<'_, T>) -> T {
    handle
        .join()
        .unwrap_or_else(|e| std::panic::resume_unwind(e))
}

impl PartGpu {
    /// Uploads `scene`'s drawable content on `terrain` (its `grid`): the part, its counts
    /// (tiles, objects, draws, facades, trees), what of it casts shadows, and
    /// `scene.bounds()`. The bounds scan every tile and instance: they are taken on a core
    /// of their own once the tiles are cut, while this one hands the rest to the device.
    fn upload(
        up: &mut Upload,
        scene: &Scene,
        terrain: &Terrain,
        grid: &Grid,
    ) -> (PartGpu, SceneGpuStats, Option<Casters>, Bounds) {
        let mut stats = SceneGpuStats::default();
        let art = up.art;
        // The meshes other than the tiles' are built on threads of their own while this
        // one cuts the tiles (itself on every core) and hands them to the device: the
        // tiles' serial steps (merging, cells, the copies into buffers) and the builders
        // share the cores. Each is handed to the device, in the same order as ever, once
        // built.
        let (tiles, draped, mut objects, lights, facades, fmesh, trees, tmesh, bounds) =
            std::thread::scope(|s| {
                let trees = s.spawn(|| trees::build(scene, &trees::forests(art)));
                let objects = s.spawn(|| {
                    let set = ObjectSet::build(scene, art, terrain);
                    let cells = ObjectCells::of(&set, LOD_BAND);
                    (set, cells)
                });
                let rest = s.spawn(|| {
                    let fmesh = facades::build(scene, &art.facades, grid.cell);
                    let cells = facade_cells(&fmesh);
                    (DrapedSet::build(scene, art, grid), (fmesh, cells))
                });
                let tiles = TilesGpu::upload(up, scene, grid, &mut stats);
                up.stage_done();
                let bounds = s.spawn(|| scene.bounds());
                let (dset, fmesh) = joined(rest);
                let draped = DrapedGpu::upload(up, dset);
                up.stage_done();
                let objects = ObjectsGpu::upload(up, joined(objects), &mut stats);
                up.stage_done();
                let lights = objects.as_ref().and_then(|o| LightsGpu::upload(up, o));
                up.stage_done();
                let (facades, fmesh) = FacadesGpu::upload(up, scene, fmesh, &mut stats);
                up.stage_done();
                let (trees, tmesh) = TreesGpu::upload(up, scene, joined(trees), &mut stats);
                up.stage_done();
                let bounds = joined(bounds);
                (
                    tiles, draped, objects, lights, facades, fmesh, trees, tmesh, bounds,
                )
            });
        let casters = Casters::of(
            bounds,
            terrain,
            (objects.as_ref(), facades.is_some(), trees.is_some()),
            &fmesh,
            &tmesh,
        );
        stats.objects_shown = stats.objects;
        // One draw per (mesh, LOD) with instances: a segment.
        stats.object_draws = objects.as_ref().map_or(0, |o| o.segments.len());
        // The lights and the casters have read the instances: on the GPU path nothing on
        // the CPU reads them again until the path or the terrain changes.
        if let Some(o) = &mut objects {
            o.release_list();
        }
        let part = PartGpu {
            tiles,
            draped,
            objects,
            facades,
            trees,
            lights,
        };
        (part, stats, casters, bounds)
    }

    /// Whether anything of the part casts a shadow the frame shows.
    fn casts(&self, params: &FrameParams) -> bool {
        (params.show_objects && self.objects.is_some())
            || (params.show_facades && self.facades.is_some())
            || (params.show_trees && self.trees.is_some())
    }
}

impl SceneGpuStats {
    /// Adds a further part's counts ([`SceneGpu::append`]).
    fn add_part(&mut self, part: &SceneGpuStats) {
        self.tile_quads += part.tile_quads;
        self.tile_triangles += part.tile_triangles;
        self.objects += part.objects;
        self.objects_shown += part.objects_shown;
        self.object_draws += part.object_draws;
        self.facades += part.facades;
        self.trees += part.trees;
    }
}

/// A part uploaded for a scene drawn already ([`SceneGpu::upload_part`]), to be added to
/// it ([`SceneGpu::attach`]): made on a loading thread while the window draws the scene,
/// added on the window's thread without a GPU upload.
pub struct ScenePart {
    part: PartGpu,
    stats: SceneGpuStats,
    casters: Option<Casters>,
    warnings: Vec<Diagnostic>,
    textures: SceneTextures,
    /// Buffer bytes, texture bytes and textures made.
    made: (u64, u64, usize),
    upload_ms: f64,
    /// The ground it was uploaded on.
    ground: PartGround,
}

/// The terrain grid a part's tiles are cut along and the ground's height range: a part
/// draws as uploaded on a scene whose terrain has the same grid, or, on flat ground of the
/// same height, on any grid (pieces cut along another grid lie on the same plane).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PartGround {
    grid: Grid,
    resolution: u32,
    ground: (f32, f32),
}

impl PartGround {
    pub fn of(terrain: &Terrain) -> Self {
        PartGround {
            grid: Grid::of(terrain),
            resolution: terrain.resolution,
            ground: terrain.height_range(),
        }
    }

    fn flat(&self) -> bool {
        self.ground.0 == self.ground.1
    }

    /// Whether a scene uploaded on `self` can take a part uploaded on `part`, and draw on
    /// `part`'s terrain from then on.
    pub fn takes(&self, part: &PartGround) -> bool {
        self == part || (self.flat() && part.flat() && self.ground == part.ground)
    }
}

impl ScenePart {
    /// The textures the part's upload made or was handed, for the next upload of the same
    /// art on the same device, its tile atlas left out ([`SceneTextures::without_atlas`]).
    pub fn textures(&self) -> SceneTextures {
        self.textures.clone().without_atlas()
    }

    /// Wall time of the part's upload, milliseconds.
    pub fn upload_ms(&self) -> f64 {
        self.upload_ms
    }

    /// What could not be drawn as the part's scene asked.
    pub fn warnings(&self) -> &[Diagnostic] {
        &self.warnings
    }
}

impl SceneTextures {
    /// These textures without the tile atlas's: a document's parts each have their own
    /// atlas (its slots the part's tile textures), which has the same name and may have
    /// the same size as another's.
    pub fn without_atlas(mut self) -> Self {
        self.keys.retain(|_, k| !k.name.starts_with("tile atlas"));
        let keys = &self.keys;
        self.made.retain(|src, _| match src {
            TexSource::Image(i) => keys.contains_key(i),
            _ => true,
        });
        self
    }
}

impl SceneGpu {
    /// Uploads `scene` as a part to add to a scene already uploaded on this device
    /// ([`SceneGpu::attach`]): a large document's features beyond those its preview
    /// uploaded. `textures` are that scene's ([`SceneGpu::textures`]): those whose image is
    /// the same in `art` are kept, as [`SceneGpu::new_with_textures`] keeps them, but for
    /// the tile atlas, which is the part's own. The tiles are cut along `terrain`'s grid.
    pub fn upload_part(
        ctx: &GpuContext,
        shared: &GpuShared,
        scene: &Scene,
        art: &ArtSet,
        terrain: &Terrain,
        textures: SceneTextures,
    ) -> Result<ScenePart, RenderError> {
        let started = Instant::now();
        let textures = SceneTextures {
            heights: None,
            ..textures.without_atlas()
        };
        ctx.checked("uploading a part of the scene", || {
            let grid = Grid::of(terrain);
            let mut up = Upload::new(ctx, shared, art, textures, 0, Vec::new());
            up.release = true;
            let (part, stats, casters, _) = PartGpu::upload(&mut up, scene, terrain, &grid);
            let (warnings, cache, buffer_bytes) = up.finish();
            let made = (
                buffer_bytes,
                cache.bytes(),
                cache.made_now + cache.extra.len(),
            );
            ScenePart {
                part,
                stats,
                casters,
                warnings: warnings.into_iter().map(render_warning).collect(),
                textures: SceneTextures {
                    made: cache.made,
                    keys: cache.keys,
                    warnings: cache.warnings,
                    heights: None,
                },
                made,
                upload_ms: started.elapsed().as_secs_f64() * 1000.0,
                ground: PartGround::of(terrain),
            }
        })
    }

    /// The ground this scene is drawn on, for [`PartGround::takes`].
    pub fn part_ground(&self) -> PartGround {
        PartGround {
            grid: self.grid,
            resolution: self.resolution,
            ground: self.ground,
        }
    }

    /// Adds `part` ([`SceneGpu::upload_part`], on this device) to the scene's drawable
    /// content; `terrain` is the one the part was uploaded on, and the scene is drawn on it
    /// from now on (where its grid is another, the height field is uploaded again: only
    /// flat ground of one height allows that, [`PartGround::takes`]). `scene` is the scene
    /// of every part together: overlays are built from it afresh. Returns the part, adding
    /// nothing, when the scene cannot take it.
    pub fn attach(
        &mut self,
        ctx: &GpuContext,
        shared: &GpuShared,
        part: ScenePart,
        scene: &Scene,
        terrain: &Terrain,
    ) -> Result<(), Box<ScenePart>> {
        if !terrain.is_valid()
            || !self.part_ground().takes(&part.ground)
            || PartGround::of(terrain) != part.ground
        {
            return Err(Box::new(part));
        }
        if self.part_ground() != part.ground {
            self.regrid(ctx, shared, terrain);
        }
        let ScenePart {
            part: mut gpu_part,
            stats,
            casters,
            warnings,
            textures,
            made,
            upload_ms,
            ..
        } = part;
        if let Some(o) = &mut gpu_part.objects {
            if o.path != self.path {
                o.take_path(ctx, shared, self.path);
            }
        }
        self.stats.add_part(&stats);
        self.stats.textures_made += made.2;
        self.stats.buffer_bytes += made.0;
        self.stats.texture_bytes += made.1;
        self.stats.upload_ms += upload_ms;
        self.shadow.casters = match (self.shadow.casters, casters) {
            (Some(a), Some(b)) => Some(a.union(&b)),
            (a, b) => a.or(b),
        };
        self.warnings.extend(warnings);
        self.textures = SceneTextures {
            heights: self.textures.heights.take(),
            ..textures
        };
        self.stats.textures = self.textures.made.len();
        self.parts.push(gpu_part);
        self.object_draws = object_draws(&self.parts);
        self.ground_draws = ground_order(&self.parts);
        self.stats.objects_shown = self.objects_shown_at(self.density);
        if self.objects().next().is_some() {
            self.stats.bytes_per_instance = self.bytes_per_instance();
        }
        // The overlays are built again from the whole scene when next shown.
        let (lo, hi) = scene.bounds();
        let extent = (hi[0] - lo[0]).max(hi[1] - lo[1]).max(1.0);
        self.overlay_sizes = (
            (self.grid.cell * 0.5).max(0.5),
            (extent * 0.008).clamp(0.4, 6.0),
        );
        self.lines.clear();
        self.overlays_built = 0;
        Ok(())
    }

    /// Puts the scene on `terrain`, a grid other than its own on flat ground of the same
    /// height ([`SceneGpu::attach`]): a new height field and chunks, bound afresh.
    fn regrid(&mut self, ctx: &GpuContext, shared: &GpuShared, terrain: &Terrain) {
        let heights = upload_heights(ctx, terrain);
        self.terrain = TerrainChunks::new(&ctx.device, terrain);
        self.frame_bind_group = frame_bind_group(
            &ctx.device,
            shared,
            "frame",
            &self.frame_buffer,
            &heights.view,
            &self.shadow.view,
        );
        self.shadow.frame_bind_group = frame_bind_group(
            &ctx.device,
            shared,
            "shadow frame",
            &self.shadow.frame_buffer,
            &heights.view,
            &shared.shadow_stand_in,
        );
        self.textures.heights = Some(heights.clone());
        self.heights = heights;
        self.grid = Grid::of(terrain);
        self.resolution = terrain.resolution;
        self.ground = terrain.height_range();
        if let Some(c) = &mut self.shadow.casters {
            c.ground = self.ground;
        }
    }

    /// Uploads `scene` as a further part and adds it ([`SceneGpu::upload_part`],
    /// [`SceneGpu::attach`]) on this scene's own terrain; `false`, adding nothing, where
    /// `terrain` is not on its grid.
    pub fn append(
        &mut self,
        ctx: &GpuContext,
        shared: &GpuShared,
        scene: &Scene,
        art: &ArtSet,
        terrain: &Terrain,
    ) -> Result<bool, RenderError> {
        if !terrain.is_valid() || PartGround::of(terrain) != self.part_ground() {
            return Ok(false);
        }
        let part = Self::upload_part(ctx, shared, scene, art, terrain, self.textures())?;
        Ok(self.attach(ctx, shared, part, scene, terrain).is_ok())
    }

    /// How many parts the scene is drawn in ([`SceneGpu::append`]).
    pub fn part_count(&self) -> usize {
        self.parts.len()
    }

    /// Uploads a scene, its art and its terrain. The tiles are cut along the terrain's
    /// grid here; the heights themselves live in a texture the shaders read.
    pub fn new(
        ctx: &GpuContext,
        shared: &GpuShared,
        scene: &Scene,
        art: &ArtSet,
        terrain: &Terrain,
    ) -> Result<Self, RenderError> {
        Self::new_with_textures(ctx, shared, scene, art, terrain, SceneTextures::default())
    }

    /// [`SceneGpu::new`], reusing `textures`, which an earlier upload on the same device
    /// made ([`SceneGpu::textures`]): only the textures not among them are made. Textures
    /// are the bulk of an upload's time, so a relayout of an unchanged art set uploads in
    /// milliseconds. Textures of other art are kept only where that art's image at the same
    /// index has the same name, size and alpha cutoff (a document's whole after its
    /// preview, whose art starts with the preview's images, [`ArtSet::take_decoded`]).
    pub fn new_with_textures(
        ctx: &GpuContext,
        shared: &GpuShared,
        scene: &Scene,
        art: &ArtSet,
        terrain: &Terrain,
        textures: SceneTextures,
    ) -> Result<Self, RenderError> {
        ctx.checked("uploading the scene", || {
            Self::upload(ctx, shared, scene, art, terrain, textures)
        })?
    }

    /// The textures this scene was uploaded with, for the next upload of the same art on
    /// the same device ([`SceneGpu::new_with_textures`]).
    pub fn textures(&self) -> SceneTextures {
        self.textures.clone()
    }

    /// [`SceneGpu::new`], dropping each image's pixels from `art` as soon as it is on the
    /// GPU: the CPU copy and the GPU copy of all the textures never live together, which
    /// halves the peak memory of a render on a software rasterizer (whose GPU memory is
    /// the process's). `art` keeps each image's size and name.
    pub(crate) fn new_releasing(
        ctx: &GpuContext,
        shared: &GpuShared,
        scene: &Scene,
        art: &mut ArtSet,
        terrain: &Terrain,
    ) -> Result<Self, RenderError> {
        ctx.checked("uploading the scene", || {
            let cutoffs = alpha_cutoffs(art);
            let mut made = HashMap::new();
            let (mut warnings, mut in_flight) = (Vec::new(), None);
            for (i, img) in art.images.iter_mut().enumerate() {
                let cutoff = cutoffs.get(&i).copied();
                let tex = texture::upload_image(ctx, img, cutoff, &mut warnings, &mut in_flight);
                made.insert(TexSource::Image(i), tex);
                img.pixels = crate::art::ImagePixels::Rgba8(Vec::new());
            }
            let keys = (0..art.images.len())
                .filter_map(|i| Some((i, ImageKey::of(art, i, &cutoffs)?)))
                .collect();
            let textures = SceneTextures {
                made,
                keys,
                ..SceneTextures::default()
            };
            let mut gpu = Self::upload(ctx, shared, scene, art, terrain, textures)?;
            gpu.warnings
                .splice(0..0, warnings.into_iter().map(render_warning));
            Ok(gpu)
        })?
    }

    fn upload(
        ctx: &GpuContext,
        shared: &GpuShared,
        scene: &Scene,
        art: &ArtSet,
        terrain: &Terrain,
        mut textures: SceneTextures,
    ) -> Result<Self, RenderError> {
        let started = Instant::now();
        let device = &ctx.device;
        let mut warnings = Vec::new();
        let mut buffer_bytes = 0u64;

        // Terrain: the height field and the chunks it is drawn in.
        let flat;
        let terrain = if terrain.is_valid() {
            terrain
        } else {
            warnings.push("the terrain's height grid is inconsistent; drawn flat".to_string());
            flat = Terrain::flat(terrain.size_m).with_center(terrain.center);
            &flat
        };
        let max = device.limits().max_texture_dimension_2d;
        if terrain.resolution > max {
            return Err(RenderError::Size {
                width: terrain.resolution,
                height: terrain.resolution,
                max,
            });
        }
        let n = terrain.resolution;
        // The height field: the last upload's where it holds these very samples.
        let kept = textures.heights.take().filter(|h| h.holds(terrain));
        let heights = match kept {
            Some(h) => h,
            None => upload_heights(ctx, terrain),
        };
        let texture_bytes = u64::from(n) * u64::from(n) * 4;
        // The grid is drawn in chunks at levels of detail chosen per frame: a few small
        // index patterns shared by every chunk.
        let terrain_chunks = TerrainChunks::new(device, terrain);
        buffer_bytes += terrain_chunks.buffer_bytes();
        let frame_buffer = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("frame uniforms"),
            size: std::mem::size_of::<FrameUniforms>() as u64,
            usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        // The sun's shadow map, and the frame uniforms it is drawn with (the light's view;
        // a stand-in where the map itself would be bound).
        let shadow_size = shared.shadow_size;
        let shadow_view = device
            .create_texture(&wgpu::TextureDescriptor {
                label: Some("shadow map"),
                size: wgpu::Extent3d {
                    width: shadow_size,
                    height: shadow_size,
                    depth_or_array_layers: 1,
                },
                mip_level_count: 1,
                sample_count: 1,
                dimension: wgpu::TextureDimension::D2,
                format: SHADOW_FORMAT,
                usage: wgpu::TextureUsages::RENDER_ATTACHMENT
                    | wgpu::TextureUsages::TEXTURE_BINDING,
                view_formats: &[],
            })
            .create_view(&wgpu::TextureViewDescriptor::default());
        let mut texture_bytes = texture_bytes + u64::from(shadow_size) * u64::from(shadow_size) * 4;
        let shadow_frame_buffer = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("shadow frame uniforms"),
            size: std::mem::size_of::<FrameUniforms>() as u64,
            usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let frame_group = |label, uniforms: &wgpu::Buffer, shadow: &wgpu::TextureView| {
            frame_bind_group(device, shared, label, uniforms, &heights.view, shadow)
        };
        let frame_bind_group = frame_group("frame", &frame_buffer, &shadow_view);
        let shadow_frame_bind_group = frame_group(
            "shadow frame",
            &shadow_frame_buffer,
            &shared.shadow_stand_in,
        );

        let mut up = Upload::new(ctx, shared, art, textures, buffer_bytes, warnings);
        // On a software rasterizer a large scene's frames are split (`pipelines::Split`),
        // and the end of the upload was then the 100,000-feature tile's peak: the
        // tiles' meshes, freed (over 300 MB) but resident under the later stages' buffers.
        // A small scene's (an edit's relayout) are not worth the allocators' walks.
        let load =
            super::shared::bin_load(scene.objects.len(), scene.trees.len(), scene.tiles.len());
        up.release = super::shared::cpu_adapter(ctx) && load >= super::shared::SPLIT_FROM;

        let grid = Grid::of(terrain);
        let (part, mut stats, casters, (lo, hi)) = PartGpu::upload(&mut up, scene, terrain, &grid);

        // Overlays are built when first shown (`prepare_overlays`).
        let extent = (hi[0] - lo[0]).max(hi[1] - lo[1]).max(1.0);
        let overlay_sizes = ((grid.cell * 0.5).max(0.5), (extent * 0.008).clamp(0.4, 6.0));

        let (warnings, cache, buffer_bytes) = up.finish();
        texture_bytes += cache.bytes();
        stats.textures = cache.made.len() + cache.extra.len();
        stats.textures_made = cache.made_now + cache.extra.len();
        stats.buffer_bytes = buffer_bytes;
        stats.texture_bytes = texture_bytes;
        stats.bytes_per_instance = part
            .objects
            .as_ref()
            .map_or(std::mem::size_of::<InstanceGpu>(), bytes_per_instance);
        stats.upload_ms = started.elapsed().as_secs_f64() * 1000.0;
        let ground_draws = ground_order(std::slice::from_ref(&part));
        let tile_lod = if scene.tile_lod.is_finite() && scene.tile_lod > 0.0 {
            scene.tile_lod
        } else {
            20_000.0
        };
        Ok(SceneGpu {
            frame_buffer,
            heights: heights.clone(),
            frame_bind_group,
            terrain: terrain_chunks,
            parts: vec![part],
            lines: Vec::new(),
            overlays_built: 0,
            overlay_sizes,
            shadow: ShadowGpu {
                view: shadow_view,
                frame_buffer: shadow_frame_buffer,
                frame_bind_group: shadow_frame_bind_group,
                size: shadow_size,
                casters,
                active: false,
            },
            frame: FrameParams::default(),
            clear: [0.0; 3],
            grid,
            resolution: n,
            exaggeration: if terrain.exaggeration.is_finite() {
                terrain.exaggeration
            } else {
                1.0
            },
            tile_lod,
            ground: terrain.height_range(),
            cells_culled: shared.culling != Culling::Off,
            path: shared.culling,
            object_draws: Vec::new(),
            ground_draws,
            density: 6,
            stats,
            warnings: warnings.into_iter().map(render_warning).collect(),
            textures: SceneTextures {
                made: cache.made,
                keys: cache.keys,
                warnings: cache.warnings,
                heights: Some(heights),
            },
        })
    }

    /// Shows objects (and their draped parts) at density level `level` (1..6). The level is
    /// a frame uniform the shaders test each instance against: nothing is rebuilt or
    /// uploaded; only the count of objects shown (for the panel) is taken again.
    pub(crate) fn set_density(&mut self, level: u8) {
        let level = level.clamp(1, 6);
        if level == self.density {
            return;
        }
        self.density = level;
        self.stats.objects_shown = self.objects_shown_at(level);
    }

    /// Objects shown at density `level`, in every part.
    fn objects_shown_at(&self, level: u8) -> usize {
        self.objects().map(|o| o.set.shown_at(level)).sum()
    }

    /// Each part's objects.
    fn objects(&self) -> impl Iterator<Item = &ObjectsGpu> {
        self.parts.iter().filter_map(|p| p.objects.as_ref())
    }

    /// Culls this scene's objects another way ([`Culling`]); `Gpu` falls back to `Cpu` where
    /// the renderer cannot run it. Returns the path taken.
    pub fn set_culling(&mut self, ctx: &GpuContext, shared: &GpuShared, path: Culling) -> Culling {
        self.cells_culled = path != Culling::Off;
        self.path = path;
        let mut taken = None;
        for o in self.parts.iter_mut().filter_map(|p| p.objects.as_mut()) {
            o.take_path(ctx, shared, path);
            taken.get_or_insert(o.path);
        }
        if taken.is_some() {
            self.stats.bytes_per_instance = self.bytes_per_instance();
        }
        taken.unwrap_or(path)
    }

    /// The culling path of this scene's objects; of a scene without objects but with trees
    /// or tiles (culled by cells on every path but `off`), the path last asked for.
    pub fn culling(&self) -> Option<Culling> {
        if let Some(o) = self.objects().next() {
            return Some(o.path);
        }
        self.parts
            .iter()
            .any(|p| p.trees.is_some() || p.tiles.is_some())
            .then_some(self.path)
    }

    /// Trees the last prepared frame draws in the camera's view: those of the runs of their
    /// cells in view.
    pub fn trees_submitted(&self) -> u64 {
        self.parts
            .iter()
            .filter_map(|p| p.trees.as_ref())
            .flat_map(|t| t.runs.of(false).iter().flatten())
            .map(|r| u64::from(r.end - r.start))
            .sum()
    }

    /// What the last frame's culling kept and submitted (waits for the GPU on the GPU path:
    /// for tests and benches).
    pub fn cull_stats(&self, ctx: &GpuContext) -> Result<CullStats, RenderError> {
        let mut all = CullStats::default();
        for o in self.objects() {
            all += o.cull_stats(ctx)?;
        }
        Ok(all)
    }

    /// GPU bytes per object instance now: the instance records and the culling lists.
    pub fn bytes_per_instance(&self) -> usize {
        let (bytes, n) = self.objects().fold((0u64, 0u64), |(b, n), o| {
            (b + o.instance_bytes(), n + o.set.total() as u64)
        });
        bytes.div_ceil(n.max(1)) as usize
    }

    /// GPU bytes of buffers and textures, the culling's included.
    pub(crate) fn gpu_bytes(&self) -> u64 {
        let extra: u64 = self
            .objects()
            .map(|o| {
                o.gpu_cull.iter().map(|g| g.bytes).sum::<u64>()
                    + o.cpu_buffer.as_ref().map_or(0, |b| b.size())
                    + o.shadow_gpu_cull.iter().map(|g| g.bytes).sum::<u64>()
                    + o.shadow_cpu_buffer.as_ref().map_or(0, |b| b.size())
            })
            .sum();
        self.stats.buffer_bytes + self.stats.texture_bytes + extra
    }

    /// Builds the lines of the overlays in `wanted` that are not built yet, from `scene` (the
    /// scene this was uploaded from). Each kind is built once: toggling it again is free.
    /// A frame draws only the overlays built; callers that show overlays call this first.
    pub fn prepare_overlays(&mut self, ctx: &GpuContext, scene: &Scene, wanted: Overlays) {
        let missing = wanted.mask() & !self.overlays_built;
        if missing == 0 {
            return;
        }
        self.overlays_built |= missing;
        let (step, marker) = self.overlay_sizes;
        let vertices = overlay::build(scene, step, marker, missing);
        if vertices.is_empty() {
            return;
        }
        let bytes: &[u8] = bytemuck::cast_slice(&vertices);
        self.stats.buffer_bytes += bytes.len() as u64;
        self.lines.push(LinesGpu {
            vertices: ctx
                .device
                .create_buffer_init(&wgpu::util::BufferInitDescriptor {
                    label: Some("overlay lines"),
                    contents: bytes,
                    usage: ctx.upload_usage(wgpu::BufferUsages::VERTEX),
                }),
            vertex_count: vertices.len() as u32,
        });
    }

    /// Puts the scene on another terrain. When the new height field has the old one's grid
    /// (the same resolution, size and centre), only the heights are uploaded: tiles and
    /// draped parts follow the height field in their shaders, and the objects' ground
    /// heights are computed from it again on the GPU by the placement pass — nothing is laid
    /// out or uploaded again (without compute shaders they are computed on the CPU and the
    /// instance buffer is rewritten). Returns `false`, changing nothing, when the grid
    /// differs or the terrain is inconsistent: tiles are cut along the grid, so the scene
    /// must then be uploaded again ([`SceneGpu::new`]).
    pub fn set_terrain(
        &mut self,
        ctx: &GpuContext,
        shared: &GpuShared,
        terrain: &Terrain,
    ) -> Result<bool, RenderError> {
        if !terrain.is_valid()
            || terrain.resolution != self.resolution
            || Grid::of(terrain) != self.grid
        {
            return Ok(false);
        }
        // The CPU's copy of the instances follows the terrain below: read back, and kept.
        for o in self.parts.iter_mut().filter_map(|p| p.objects.as_mut()) {
            o.restore_list(ctx)?;
        }
        ctx.checked("changing the terrain", || {
            let n = self.resolution;
            ctx.queue.write_texture(
                wgpu::TexelCopyTextureInfo {
                    texture: &self.heights.texture,
                    mip_level: 0,
                    origin: wgpu::Origin3d::ZERO,
                    aspect: wgpu::TextureAspect::All,
                },
                bytemuck::cast_slice(&terrain.heights),
                wgpu::TexelCopyBufferLayout {
                    offset: 0,
                    bytes_per_row: Some(n * 4),
                    rows_per_image: Some(n),
                },
                wgpu::Extent3d {
                    width: n,
                    height: n,
                    depth_or_array_layers: 1,
                },
            );
            self.heights.record(terrain);
            self.terrain.set_heights(terrain);
            self.ground = terrain.height_range();
            if let Some(c) = &mut self.shadow.casters {
                c.ground = self.ground;
            }
            for o in self.parts.iter_mut().filter_map(|p| p.objects.as_mut()) {
                // The CPU's copy (the CPU path culls it) follows the terrain too.
                o.set.reground(|at| terrain.raw_height_at(at[0], at[1]));
                match (&o.placement, &shared.place) {
                    (Some(p), Some(pipe)) => {
                        let mut encoder =
                            ctx.device
                                .create_command_encoder(&wgpu::CommandEncoderDescriptor {
                                    label: Some("placement"),
                                });
                        p.encode(
                            &ctx.device,
                            &mut encoder,
                            pipe,
                            &o.instances,
                            &self.heights.view,
                            (self.grid.origin, self.grid.cell, n),
                        );
                        ctx.queue.submit([encoder.finish()]);
                    }
                    _ => ctx.queue.write_buffer(
                        &o.instances,
                        0,
                        bytemuck::cast_slice(o.set.instances().0),
                    ),
                }
            }
        })?;
        for part in &mut self.parts {
            if let (Some(l), Some(o)) = (part.lights.as_mut(), part.objects.as_ref()) {
                l.set.reground(&o.set);
                ctx.queue
                    .write_buffer(&l.instances, 0, bytemuck::cast_slice(&l.set.list));
            }
        }
        if terrain.exaggeration.is_finite() {
            self.exaggeration = terrain.exaggeration;
        }
        Ok(true)
    }

    /// Changes the terrain's vertical exaggeration: a uniform, nothing is re-uploaded.
    pub fn set_exaggeration(&mut self, exaggeration: f32) {
        if exaggeration.is_finite() {
            self.exaggeration = exaggeration;
        }
    }

    pub fn exaggeration(&self) -> f32 {
        self.exaggeration
    }

    /// The colour the frame is cleared to (the horizon's, exposed): set by
    /// [`SceneGpu::prepare`].
    pub(crate) fn clear_color(&self) -> [f32; 3] {
        self.clear
    }

    /// Writes the frame uniforms for a `width × height` image and applies the density of
    /// `params`. Call before [`Renderer::draw`].
    pub fn prepare(&mut self, ctx: &GpuContext, params: &FrameParams, width: u32, height: u32) {
        self.set_density(params.density);
        let aspect = width.max(1) as f32 / height.max(1) as f32;
        let eye = params.camera.lod_eye();
        let view_proj = params.camera.view_proj(aspect);
        // The light in nits through the camera's exposure (metered, then compensated by
        // `exposure_ev`): the uniforms carry exposed values (the HDR frame's units); a flat
        // `sky` is a colour as seen, so it is untonemapped.
        let raw = Lighting::of(params.sun);
        let exposure = photometry::exposure(&raw, params.exposure_ev);
        let mut light = raw.exposed(exposure);
        if let Some(sky) = params.sky {
            let sky = photometry::untonemap(sky.into());
            (light.horizon, light.zenith) = (sky, sky);
        }
        self.clear = light.horizon.to_array();
        let fog = if params.visibility_m > 0.0 {
            1.0 / params.visibility_m
        } else {
            0.0
        };
        let lift = if ctx.adapter.get_info().backend == wgpu::Backend::Gl {
            TILE_DEPTH_LIFT_GL
        } else {
            TILE_DEPTH_LIFT
        };
        // The shadow map: drawn when the sun is up, shadows are asked for and a caster is
        // shown that can shadow something in view.
        let casting = self.parts.iter().any(|p| p.casts(params));
        let sun_view: Option<LightView> = match self.shadow.casters {
            Some(c) if params.shadows && light.sunlit() && casting => shadow::light_view_proj(
                &params.camera,
                aspect,
                light.sun_dir,
                c.bounds(self.exaggeration),
                self.shadow.size,
            ),
            _ => None,
        };
        self.shadow.active = sun_view.is_some();
        let v4 = |v: glam::Vec3, w: f32| [v.x, v.y, v.z, w];
        let mut u = FrameUniforms {
            view_proj: view_proj.to_cols_array_2d(),
            camera: [eye.x, eye.y, eye.z, fog],
            sun: v4(light.sun_dir, if sun_view.is_some() { 1.0 } else { 0.0 }),
            // w: a lit texel's emission in frame units (`TEXTURE_LIT` × this).
            sky: v4(
                light.horizon,
                light.night * photometry::LIT_TEXTURE_NITS * exposure,
            ),
            grid: [
                self.grid.origin[0],
                self.grid.origin[1],
                self.grid.cell,
                self.resolution as f32,
            ],
            params: [
                self.exaggeration,
                self.tile_lod,
                match params.lod_switch {
                    super::frame::LodSwitch::Fade => LOD_BAND,
                    super::frame::LodSwitch::Hard => 0.0,
                },
                lift,
            ],
            flags: [
                params.overlays.mask(),
                u32::from(self.density),
                height.max(1),
                0,
            ],
            light_view_proj: sun_view
                .map_or(glam::Mat4::IDENTITY, |l| l.view_proj)
                .to_cols_array_2d(),
            inv_view_proj: view_proj.inverse().to_cols_array_2d(),
            sun_color: v4(light.sun_color, sun_view.map_or(0.0, |l| l.texel_m)),
            zenith: v4(light.zenith, exposure),
            sky_ambient: v4(light.sky_ambient, light.night),
            ground_ambient: v4(light.ground_ambient, 0.0),
        };
        ctx.queue
            .write_buffer(&self.frame_buffer, 0, bytemuck::bytes_of(&u));
        let (exaggeration, density) = (self.exaggeration, self.density);
        let cull_view = |view_proj| CullView {
            view_proj,
            lod_eye: eye,
            exaggeration,
            band: u.params[2],
            density,
        };
        if let Some(l) = sun_view {
            // The same frame seen from the sun: LOD distances still from the camera's eye.
            u.view_proj = l.view_proj.to_cols_array_2d();
            u.sun[3] = 0.0;
            ctx.queue
                .write_buffer(&self.shadow.frame_buffer, 0, bytemuck::bytes_of(&u));
        }
        // Objects (before their compute passes), trees and tile pieces, by cells.
        let ground = self.ground;
        let cell_view = |view_proj| CellView {
            planes: super::camera::frustum_planes(view_proj),
            eye,
            ground: (ground.0 * exaggeration, ground.1 * exaggeration),
            haze_end: cells::haze_end(params.visibility_m),
        };
        if let Some(l) = sun_view {
            for o in self.parts.iter_mut().filter_map(|p| p.objects.as_mut()) {
                o.prepare_shadow_cull(ctx, &cull_view(l.view_proj), &cell_view(l.view_proj));
            }
        }
        for o in self.parts.iter_mut().filter_map(|p| p.objects.as_mut()) {
            o.prepare_cull(ctx, &cull_view(view_proj), &cell_view(view_proj));
        }
        let culled = self.cells_culled;
        let (camera_cells, sun_cells) = (
            cell_view(view_proj),
            sun_view.map(|l| cell_view(l.view_proj)),
        );
        for t in self.parts.iter_mut().filter_map(|p| p.trees.as_mut()) {
            // Past `trees_within_m` no tree is drawn, as if the haze ended there.
            let within = |v: &CellView| CellView {
                haze_end: v.haze_end.min(params.trees_within_m.max(0.0)),
                ..*v
            };
            let runs = |v: &CellView| t.runs_in(&within(v), culled);
            t.runs = ViewRuns::new(runs, &camera_cells, sun_cells.as_ref());
        }
        for f in self.parts.iter_mut().filter_map(|p| p.facades.as_mut()) {
            let runs = |v: &CellView| f.runs_in(v, culled);
            f.runs = ViewRuns::new(runs, &camera_cells, sun_cells.as_ref());
        }
        for t in self.parts.iter_mut().filter_map(|p| p.tiles.as_mut()) {
            t.runs = t
                .segments
                .iter()
                .zip(&t.cells)
                .map(|((_, all), c)| cells::visible_or_all(c, all.clone(), &camera_cells, culled))
                .collect();
        }
        // The terrain chunks in view and their levels of detail.
        self.terrain
            .prepare(&ctx.queue, view_proj, eye, self.exaggeration);
        self.frame = params.clone();
    }

    pub fn stats(&self) -> SceneGpuStats {
        self.stats
    }

    /// What could not be drawn as the scene asked (bad art, degenerate shapes).
    pub fn warnings(&self) -> &[Diagnostic] {
        &self.warnings
    }
}

/// The frame bind group: `uniforms`, the height field, and the shadow map (or its stand-in).
fn frame_bind_group(
    device: &wgpu::Device,
    shared: &GpuShared,
    label: &str,
    uniforms: &wgpu::Buffer,
    heights: &wgpu::TextureView,
    shadow: &wgpu::TextureView,
) -> wgpu::BindGroup {
    device.create_bind_group(&wgpu::BindGroupDescriptor {
        label: Some(label),
        layout: &shared.frame_layout,
        entries: &[
            wgpu::BindGroupEntry {
                binding: 0,
                resource: uniforms.as_entire_binding(),
            },
            wgpu::BindGroupEntry {
                binding: 1,
                resource: wgpu::BindingResource::TextureView(heights),
            },
            wgpu::BindGroupEntry {
                binding: 2,
                resource: wgpu::BindingResource::Sampler(&shared.sampler),
            },
            wgpu::BindGroupEntry {
                binding: 3,
                resource: wgpu::BindingResource::TextureView(shadow),
            },
            wgpu::BindGroupEntry {
                binding: 4,
                resource: wgpu::BindingResource::Sampler(&shared.shadow_sampler),
            },
        ],
    })
}

/// What a draw kind's upload says, as a warning about the scene (of no file).
fn render_warning(message: String) -> Diagnostic {
    Diagnostic::general(Severity::Warning, message).with_kind(kind::RENDER)
}

/// GPU bytes per object instance: the instance records and the culling lists, divided by
/// the instance count.
fn bytes_per_instance(o: &ObjectsGpu) -> usize {
    let n = o.set.total().max(1) as u64;
    o.instance_bytes().div_ceil(n) as usize
}

fn sane_len(v: f32, default: f32) -> f32 {
    if v.is_finite() && v > 0.01 {
        v
    } else {
        default
    }
}

/// The usage of the object instances' buffer: a storage buffer too where the GPU culls or
/// places them (`storage`).
fn instance_usage(storage: bool) -> wgpu::BufferUsages {
    let mut usage = wgpu::BufferUsages::VERTEX | wgpu::BufferUsages::COPY_DST;
    if storage {
        // COPY_SRC: the GPU path drops the CPU's copy, read back on demand.
        usage |= wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC;
    }
    usage
}

fn instance_buffer(
    device: &wgpu::Device,
    list: &[InstanceGpu],
    usage: wgpu::BufferUsages,
) -> wgpu::Buffer {
    // Never empty: a zero-sized vertex buffer cannot be bound.
    let dummy = [InstanceGpu::zeroed()];
    let data: &[InstanceGpu] = if list.is_empty() { &dummy } else { list };
    device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
        label: Some("object instances"),
        contents: bytemuck::cast_slice(data),
        usage,
    })
}

fn draped_index_buffer(
    device: &wgpu::Device,
    list: &[u32],
    usage: wgpu::BufferUsages,
) -> wgpu::Buffer {
    // Never empty: a zero-sized buffer cannot be bound.
    let data: &[u32] = if list.is_empty() { &[0, 0, 0] } else { list };
    device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
        label: Some("draped indices"),
        contents: bytemuck::cast_slice(data),
        usage,
    })
}
