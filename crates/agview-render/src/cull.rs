//! Culling and LOD selection of object instances, per view, so that a frame's cost follows
//! what is visible rather than what exists.
//!
//! Three paths ([`Culling`]), chosen per adapter and drawing the same images:
//!
//! - [`Culling::Gpu`]: compute passes (`shaders/cull.wgsl`) test every instance against the
//!   view's frustum, its mesh's LOD ranges and the density, compact the visible instances of
//!   each (mesh, LOD) into a list with a prefix sum (so the lists keep the instances' order),
//!   and write the indirect draw arguments; each (mesh, LOD) is one `draw_indexed_indirect`.
//!   The passes see only the runs of each mesh's instances whose cells the view may show
//!   (`object_cells.rs`); nothing on the CPU per frame depends on the instance count. Needs compute shaders,
//!   storage buffers in vertex shaders, indirect draws and `INDIRECT_FIRST_INSTANCE`.
//! - [`Culling::Cpu`]: the same tests on the CPU each frame (on the same runs), the
//!   visible instances written into a vertex buffer: for adapters without the above.
//! - [`Culling::Off`]: every instance of every LOD is submitted and the vertex shader drops
//!   the ones outside their LOD range; trees and tile pieces are not culled by their cells
//!   either (`cells.rs`).
//!
//! The tests here are conservative (every comparison has a little slack): the object vertex
//! shader still applies the exact LOD, fade and density tests, so culling only removes work,
//! never pixels.

use std::ops::Range;

use bytemuck::{Pod, Zeroable};
use glam::{Mat4, Vec3};

use super::camera::frustum_planes;
use super::context::{GpuContext, RenderError};
use super::objects::{InstanceGpu, MeshBatch};

/// How object instances are culled; `AGVIEW_CULLING=gpu|cpu|off` picks one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Culling {
    /// Compute passes and indirect draws: no per-instance work on the CPU.
    Gpu,
    /// Culled on the CPU each frame.
    Cpu,
    /// Not culled: every LOD of every instance is submitted.
    Off,
}

impl std::str::FromStr for Culling {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "gpu" => Ok(Culling::Gpu),
            "cpu" => Ok(Culling::Cpu),
            "off" => Ok(Culling::Off),
            _ => Err(format!("`{s}`: expected gpu, cpu or off")),
        }
    }
}

impl std::fmt::Display for Culling {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Culling::Gpu => "gpu",
            Culling::Cpu => "cpu",
            Culling::Off => "off",
        })
    }
}

impl Culling {
    /// Whether an adapter can run the GPU path.
    pub(crate) fn gpu_supported(ctx: &GpuContext) -> bool {
        let down = ctx.adapter.get_downlevel_capabilities().flags;
        let needed = wgpu::DownlevelFlags::COMPUTE_SHADERS
            | wgpu::DownlevelFlags::INDIRECT_EXECUTION
            | wgpu::DownlevelFlags::VERTEX_STORAGE;
        let limits = ctx.device.limits();
        down.contains(needed)
            && ctx
                .device
                .features()
                .contains(wgpu::Features::INDIRECT_FIRST_INSTANCE)
            && limits.max_storage_buffers_per_shader_stage >= 8
            && limits.max_compute_invocations_per_workgroup >= 256
            && limits.max_compute_workgroup_size_x >= 256
    }

    /// The best path the adapter has, unless `AGVIEW_CULLING` asks for another (a request for
    /// `gpu` the adapter cannot run falls back to `cpu`). The second value says why, for the
    /// log.
    pub fn choose(ctx: &GpuContext) -> (Culling, String) {
        let supported = Self::gpu_supported(ctx);
        let best = if supported {
            Culling::Gpu
        } else {
            Culling::Cpu
        };
        match std::env::var("AGVIEW_CULLING") {
            Ok(v) if !v.is_empty() => match v.parse::<Culling>() {
                Ok(Culling::Gpu) if !supported => (
                    Culling::Cpu,
                    "culling: cpu (AGVIEW_CULLING=gpu, but the adapter lacks compute, indirect \
                     draws or INDIRECT_FIRST_INSTANCE)"
                        .into(),
                ),
                Ok(c) => (c, format!("culling: {c} (AGVIEW_CULLING)")),
                Err(e) => (
                    best,
                    format!("culling: {best} (AGVIEW_CULLING ignored: {e})"),
                ),
            },
            _ => (best, format!("culling: {best} (the adapter's best)")),
        }
    }
}

/// One (mesh, LOD) list as the cull shader reads it (48 bytes).
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Pod, Zeroable)]
pub(crate) struct SegmentGpu {
    pub first: u32,
    pub count: u32,
    pub slot_base: u32,
    pub rank: u32,
    pub index_count: u32,
    pub first_index: u32,
    pub near: f32,
    pub far: f32,
    pub sphere: [f32; 4],
}

/// A run of one segment's instances the view keeps (`cells.rs`), as the cull shader reads
/// it (64 bytes): the segment with its `first`, `count` and `slot_base` narrowed to the
/// run, the draw (segment) it belongs to, where that draw's slots start (its list's place
/// in `visible`), and whether it is the draw's last run (which writes the draw).
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Pod, Zeroable)]
pub(crate) struct PieceGpu {
    pub run: SegmentGpu,
    pub draw: u32,
    pub base: u32,
    pub last: u32,
    pub pad: u32,
}

/// The pieces of `segments` (one page's, counted from `page_start`) that `runs_of(k)` (the
/// instance runs of segment `k` the view keeps, in instance order, counted from the
/// buffer's start) keep, with their slots laid out one after the other, and the slots
/// they take in all.
pub(crate) fn pieces<'a>(
    segments: &[SegmentGpu],
    page_start: u32,
    runs_of: impl Fn(usize) -> &'a [Range<u32>],
) -> (Vec<PieceGpu>, u32) {
    let mut list: Vec<PieceGpu> = Vec::new();
    let mut slot = 0u32;
    for (k, seg) in segments.iter().enumerate() {
        let (start, end) = (page_start + seg.first, page_start + seg.first + seg.count);
        let (base, before) = (slot, list.len());
        for r in runs_of(k) {
            let (s, e) = (r.start.max(start), r.end.min(end));
            if s >= e {
                continue;
            }
            list.push(PieceGpu {
                run: SegmentGpu {
                    first: s - page_start,
                    count: e - s,
                    slot_base: slot,
                    ..*seg
                },
                draw: k as u32,
                base,
                last: 0,
                pad: 0,
            });
            slot += e - s;
        }
        if list.len() > before {
            if let Some(p) = list.last_mut() {
                p.last = 1;
            }
        }
    }
    (list, slot)
}

/// The scan's levels over `slots` slots: level 0 holds a total per workgroup of slots, each
/// next level a total per workgroup of the one below, up to a level one workgroup scans
/// whole; each as (start in `sums`, length).
fn levels(slots: u32) -> Vec<(u32, u32)> {
    let mut levels = vec![(0u32, slots.div_ceil(GROUP).max(1))];
    while levels[levels.len() - 1].1 > GROUP {
        let (start, len) = levels[levels.len() - 1];
        levels.push((start + len, len.div_ceil(GROUP)));
    }
    levels
}

/// The scan and add-back steps over `slots` slots: their uniforms (at `STEP_STRIDE`
/// apart) and the steps.
fn steps(slots: u32) -> (Vec<u8>, Vec<Step>, Vec<Step>) {
    let levels = levels(slots);
    let mut step_data: Vec<u8> = Vec::new();
    let mut push_step = |len: u32, src: u32, dst: u32| -> Step {
        let offset = step_data.len() as u32;
        step_data.extend_from_slice(bytemuck::cast_slice(&[len, src, dst, 0u32]));
        step_data.resize(offset as usize + STEP_STRIDE as usize, 0);
        Step {
            offset,
            groups: len.div_ceil(GROUP),
        }
    };
    let mut scans = Vec::new();
    for (k, &(start, len)) in levels.iter().enumerate() {
        let dst = levels.get(k + 1).map_or(u32::MAX, |l| l.0);
        scans.push(push_step(len, start, dst));
    }
    let mut adds = Vec::new();
    for k in (0..levels.len().saturating_sub(1)).rev() {
        adds.push(push_step(levels[k].1, levels[k].0, levels[k + 1].0));
    }
    (step_data, scans, adds)
}

/// The `View` uniform of `cull.wgsl`.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Pod, Zeroable)]
pub(crate) struct ViewGpu {
    pub planes: [[f32; 4]; 6],
    pub eye: [f32; 4],
    pub lod: [f32; 4],
    pub counts: [u32; 4],
}

/// What a view is culled against.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct CullView {
    pub view_proj: Mat4,
    /// Where LOD distances are measured from: the camera's LOD eye in every view.
    pub lod_eye: Vec3,
    pub exaggeration: f32,
    /// LOD fade band, a fraction of the switch distance (0: hard switch).
    pub band: f32,
    pub density: u8,
}

impl CullView {
    /// The `View` uniform over `slots` slots in `segments` segments.
    pub(crate) fn uniform(&self, slots: u32, segments: u32) -> ViewGpu {
        ViewGpu {
            planes: frustum_planes(self.view_proj),
            eye: [
                self.lod_eye.x,
                self.lod_eye.y,
                self.lod_eye.z,
                self.exaggeration,
            ],
            lod: [self.band, f32::from(self.density), 0.0, 0.0],
            counts: [slots, segments, 0, 0],
        }
    }
}

/// The segments of a scene's objects in the instances `page` (all of them, or one window of
/// the instance buffer the adapter can bind at once): one per (mesh, LOD) of every mesh with
/// instances there, in drawing order, counted from the page's start, with the (batch, LOD)
/// each stands for.
pub(crate) fn segments(
    batches: &[MeshBatch],
    ranges: &[Range<u32>],
    page: Range<u32>,
) -> (Vec<SegmentGpu>, Vec<(usize, usize)>) {
    let mut list = Vec::new();
    let mut owners = Vec::new();
    let mut slot = 0u32;
    for (b, (batch, range)) in batches.iter().zip(ranges).enumerate() {
        let (start, end) = (range.start.max(page.start), range.end.min(page.end));
        if start >= end {
            continue;
        }
        let sphere = sphere_of(batch);
        for (l, lod) in batch.lods.iter().enumerate() {
            list.push(SegmentGpu {
                first: start - page.start,
                count: end - start,
                slot_base: slot,
                rank: l as u32,
                index_count: lod.index_count,
                first_index: lod.first_index,
                near: lod.near,
                far: lod.far,
                sphere,
            });
            owners.push((b, l));
            slot += end - start;
        }
    }
    (list, owners)
}

/// A mesh's bounding sphere: its centre in OBJ8 axes, its radius.
pub(crate) fn sphere_of(batch: &MeshBatch) -> [f32; 4] {
    let (lo, hi) = batch.bounds;
    let radius = 0.5 * Vec3::from(hi).distance(Vec3::from(lo));
    [
        (lo[0] + hi[0]) * 0.5,
        (lo[1] + hi[1]) * 0.5,
        (lo[2] + hi[2]) * 0.5,
        radius,
    ]
}

/// The largest storage binding the culling and placement passes use: the adapter's, or less
/// when `AGVIEW_CULL_PAGE_BYTES` says so (a test of the windows on a small scene).
pub(crate) fn max_binding(device: &wgpu::Device) -> u64 {
    let adapter = device.limits().max_storage_buffer_binding_size;
    std::env::var("AGVIEW_CULL_PAGE_BYTES")
        .ok()
        .and_then(|v| v.parse::<u64>().ok())
        .map_or(adapter, |v| v.min(adapter))
}

/// The instance buffer cut into windows of at most `max_bytes` each (the adapter's largest
/// storage binding), each starting at a multiple of 256 instances (so that every buffer laid
/// out per instance starts its window on the binding alignment).
pub(crate) fn pages(instances: u32, max_bytes: u64) -> Vec<Range<u32>> {
    let size = std::mem::size_of::<InstanceGpu>() as u64;
    let per = ((max_bytes / size) / 256 * 256).clamp(256, u64::from(u32::MAX / 2)) as u32;
    let mut out = Vec::new();
    let mut start = 0u32;
    while start < instances {
        let end = instances.min(start.saturating_add(per));
        out.push(start..end);
        start = end;
    }
    out
}

/// The cull shader's tests for one instance and one segment, on the CPU: whether its bounds
/// meet the frustum (when shown at the density), and whether it is submitted for the
/// segment's LOD. The same arithmetic as `cull.wgsl`.
pub(crate) fn test_instance(inst: &InstanceGpu, seg: &SegmentGpu, view: &ViewGpu) -> (bool, bool) {
    let g = inst.ground_mode;
    let code = (g[1] as u32) >> 2;
    let (lo, hi) = (code >> 3, code & 7);
    let level = view.lod[1] as u32;
    let shown = if level < lo {
        false
    } else if level >= hi {
        true
    } else {
        let p = (1.0 + level as f32 - lo as f32) / (1.0 + hi as f32 - lo as f32);
        g[3] < p + 1e-5
    };
    if !shown {
        return (false, false);
    }
    let mut z = g[0] * view.eye[3];
    if (g[1] as u32) & 3 >= 2 {
        z += inst.pos_heading[3];
    }
    let origin = Vec3::new(inst.pos_heading[0], inst.pos_heading[1], z);
    let (s, c) = inst.pos_heading[2].sin_cos();
    let local = Vec3::new(seg.sphere[0], -seg.sphere[2], seg.sphere[1]);
    let centre = origin
        + Vec3::new(
            local.x * c + local.y * s,
            -local.x * s + local.y * c,
            local.z,
        );
    let r = seg.sphere[3] * 1.001 + 0.01;
    let inside = view
        .planes
        .iter()
        .all(|p| Vec3::new(p[0], p[1], p[2]).dot(centre) + p[3] >= -r);
    if !inside {
        return (false, false);
    }
    let d = origin.distance(Vec3::new(view.eye[0], view.eye[1], view.eye[2]));
    let band = view.lod[0];
    let slack = 1e-3 * d + 1e-3;
    let bn = (seg.near * band * 0.5).max(1e-3);
    let bf = (seg.far * band * 0.5).max(1e-3);
    let in_lod = (seg.near <= 0.0 || d > seg.near - bn - slack) && d < seg.far + bf + slack;
    (true, in_lod)
}

/// What the culling submitted in a frame.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct CullStats {
    /// Instances shown at the density whose bounds meet the view (each counted once).
    pub in_frustum: u64,
    /// Instances submitted, summed over the (mesh, LOD) draws.
    pub submitted: u64,
    /// Triangles submitted.
    pub triangles: u64,
}

impl std::ops::AddAssign for CullStats {
    fn add_assign(&mut self, o: CullStats) {
        self.in_frustum += o.in_frustum;
        self.submitted += o.submitted;
        self.triangles += o.triangles;
    }
}

/// The instances of `seg` (counted from the start of `instances`) in its `runs` the cells
/// kept, run by run.
pub(crate) fn kept<'a>(
    instances: &'a [InstanceGpu],
    seg: &SegmentGpu,
    runs: &'a [Range<u32>],
) -> impl Iterator<Item = &'a [InstanceGpu]> + 'a {
    let (start, end) = (seg.first, seg.first.saturating_add(seg.count));
    runs.iter().filter_map(move |r| {
        let (s, e) = (r.start.max(start) as usize, r.end.min(end) as usize);
        instances.get(s..e.max(s))
    })
}

/// [`CullStats`] of a view on the CPU (the CPU path's lists, or what the GPU path computes)
/// over each segment's `runs` the cells kept.
pub(crate) fn cpu_stats(
    instances: &[InstanceGpu],
    (segs, runs): (&[SegmentGpu], &[Vec<Range<u32>>]),
    view: &ViewGpu,
) -> CullStats {
    let mut s = CullStats::default();
    for (seg, runs) in segs.iter().zip(runs) {
        for inst in kept(instances, seg, runs).flatten() {
            let (inside, drawn) = test_instance(inst, seg, view);
            if inside && seg.rank == 0 {
                s.in_frustum += 1;
            }
            if drawn {
                s.submitted += 1;
                s.triangles += u64::from(seg.index_count / 3);
            }
        }
    }
    s
}

/// The compute pipelines and layouts, built once per device.
pub(crate) struct CullPipelines {
    view_layout: wgpu::BindGroupLayout,
    step_layout: wgpu::BindGroupLayout,
    /// Group 2 of the culled object pipeline: the instances and the visible lists.
    pub draw_layout: wgpu::BindGroupLayout,
    classify: wgpu::ComputePipeline,
    scan_level: wgpu::ComputePipeline,
    add_level: wgpu::ComputePipeline,
    scatter: wgpu::ComputePipeline,
    write_args: wgpu::ComputePipeline,
}

const CULL_WGSL: &str = include_str!("../shaders/cull.wgsl");
/// Threads per workgroup of the slot passes (`cull.wgsl`).
const GROUP: u32 = 256;
/// Stride of the scan steps' uniforms (the dynamic-offset alignment).
const STEP_STRIDE: u64 = 256;
/// Workgroups per dimension of a dispatch.
const MAX_GROUPS: u32 = 65_535;

impl CullPipelines {
    pub fn new(device: &wgpu::Device) -> Self {
        let storage = |binding, read_only, visibility| wgpu::BindGroupLayoutEntry {
            binding,
            visibility,
            ty: wgpu::BindingType::Buffer {
                ty: wgpu::BufferBindingType::Storage { read_only },
                has_dynamic_offset: false,
                min_binding_size: None,
            },
            count: None,
        };
        let compute = wgpu::ShaderStages::COMPUTE;
        let view_layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("cull view"),
            entries: &[
                wgpu::BindGroupLayoutEntry {
                    binding: 0,
                    visibility: compute,
                    ty: wgpu::BindingType::Buffer {
                        ty: wgpu::BufferBindingType::Uniform,
                        has_dynamic_offset: false,
                        min_binding_size: None,
                    },
                    count: None,
                },
                storage(1, true, compute),
                storage(2, true, compute),
                storage(3, false, compute),
                storage(4, false, compute),
                storage(5, false, compute),
                storage(6, false, compute),
                storage(7, false, compute),
            ],
        });
        let step_layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("cull step"),
            entries: &[wgpu::BindGroupLayoutEntry {
                binding: 0,
                visibility: compute,
                ty: wgpu::BindingType::Buffer {
                    ty: wgpu::BufferBindingType::Uniform,
                    has_dynamic_offset: true,
                    min_binding_size: wgpu::BufferSize::new(16),
                },
                count: None,
            }],
        });
        let vertex = wgpu::ShaderStages::VERTEX;
        let draw_layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("culled instances"),
            entries: &[storage(0, true, vertex), storage(1, true, vertex)],
        });
        let layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: Some("cull"),
            bind_group_layouts: &[Some(&view_layout), Some(&step_layout)],
            immediate_size: 0,
        });
        let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
            label: Some("cull"),
            source: wgpu::ShaderSource::Wgsl(CULL_WGSL.into()),
        });
        let pipeline = |entry: &str| {
            device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
                label: Some(entry),
                layout: Some(&layout),
                module: &module,
                entry_point: Some(entry),
                compilation_options: Default::default(),
                cache: None,
            })
        };
        CullPipelines {
            classify: pipeline("classify"),
            scan_level: pipeline("scan_level"),
            add_level: pipeline("add_level"),
            scatter: pipeline("scatter"),
            write_args: pipeline("write_args"),
            view_layout,
            step_layout,
            draw_layout,
        }
    }
}

/// One scan or add-back step: its uniform's place and its workgroup count.
#[derive(Debug, Clone, Copy)]
struct Step {
    offset: u32,
    groups: u32,
}

/// The culling buffers of one scene and one view.
pub(crate) struct GpuCull {
    /// The page's (mesh, LOD) draws, each over all its instances in the page.
    pub segments: Vec<SegmentGpu>,
    /// The (batch, LOD) each segment draws.
    pub owners: Vec<(usize, usize)>,
    view_buffer: wgpu::Buffer,
    pub args: wgpu::Buffer,
    counters: wgpu::Buffer,
    view_group: wgpu::BindGroup,
    /// This view's pieces (the runs of the segments it keeps, [`PieceGpu`]), written each
    /// frame, and how many it can hold.
    piece_buffer: wgpu::Buffer,
    most_pieces: usize,
    /// This view's scan steps' uniforms, written each frame.
    step_buffer: wgpu::Buffer,
    step_group: wgpu::BindGroup,
    /// Group 2 of the culled object pipeline.
    pub draw_group: wgpu::BindGroup,
    /// What the last [`GpuCull::set_view`] kept: slots, pieces and scan steps.
    live: Live,
    /// GPU bytes of the culling buffers this view added (a view sharing another's buffers
    /// adds only its own pieces, steps and uniform).
    pub bytes: u64,
    /// What another view of the same instances shares ([`GpuCull::another_view`]).
    shared: SharedBuffers,
}

/// The slots and pieces of the frame's view, and its scan steps.
#[derive(Debug, Clone, Default)]
struct Live {
    slots: u32,
    pieces: u32,
    scans: Vec<Step>,
    adds: Vec<Step>,
}

/// The buffers two views of one window of instances can share: their passes are recorded
/// one view after the other (a view is culled and drawn before the next is culled), so the
/// slots, sums, lists and draws of one are free once it is drawn.
#[derive(Clone)]
struct SharedBuffers {
    instances: wgpu::Buffer,
    page: Range<u32>,
    slot_buffer: wgpu::Buffer,
    sums: wgpu::Buffer,
    visible: wgpu::Buffer,
}

impl SharedBuffers {
    /// The culling passes' group 0 for one view (`view_buffer`, `pieces`) over these
    /// buffers.
    fn view_group(
        &self,
        device: &wgpu::Device,
        pipes: &CullPipelines,
        (view_buffer, pieces): (&wgpu::Buffer, &wgpu::Buffer),
        args: &wgpu::Buffer,
        counters: &wgpu::Buffer,
    ) -> wgpu::BindGroup {
        fn at(binding: u32, buffer: &wgpu::Buffer) -> wgpu::BindGroupEntry<'_> {
            wgpu::BindGroupEntry {
                binding,
                resource: buffer.as_entire_binding(),
            }
        }
        device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("cull view"),
            layout: &pipes.view_layout,
            entries: &[
                at(0, view_buffer),
                wgpu::BindGroupEntry {
                    binding: 1,
                    resource: self.window(),
                },
                at(2, pieces),
                at(3, &self.slot_buffer),
                at(4, &self.sums),
                at(5, &self.visible),
                at(6, args),
                at(7, counters),
            ],
        })
    }

    /// The window of the instance buffer these slots cover.
    fn window(&self) -> wgpu::BindingResource<'_> {
        let size = std::mem::size_of::<InstanceGpu>() as u64;
        wgpu::BindingResource::Buffer(wgpu::BufferBinding {
            buffer: &self.instances,
            offset: u64::from(self.page.start) * size,
            size: wgpu::BufferSize::new(u64::from(self.page.len() as u32).max(1) * size),
        })
    }
}

/// A view's own buffers: its pieces (room for `most` of them), its scan steps' uniforms
/// (room for the steps over `slots` slots) and their bind group.
fn view_buffers(
    device: &wgpu::Device,
    pipes: &CullPipelines,
    most: usize,
    slots: u32,
) -> (wgpu::Buffer, wgpu::Buffer, wgpu::BindGroup) {
    let copy = wgpu::BufferUsages::COPY_DST;
    let pieces = device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("cull pieces"),
        size: (most.max(1) * std::mem::size_of::<PieceGpu>()) as u64,
        usage: wgpu::BufferUsages::STORAGE | copy,
        mapped_at_creation: false,
    });
    let steps = device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("cull steps"),
        size: (steps(slots).0.len() as u64).max(STEP_STRIDE),
        usage: wgpu::BufferUsages::UNIFORM | copy,
        mapped_at_creation: false,
    });
    let group = device.create_bind_group(&wgpu::BindGroupDescriptor {
        label: Some("cull step"),
        layout: &pipes.step_layout,
        entries: &[wgpu::BindGroupEntry {
            binding: 0,
            resource: wgpu::BindingResource::Buffer(wgpu::BufferBinding {
                buffer: &steps,
                offset: 0,
                size: wgpu::BufferSize::new(16),
            }),
        }],
    });
    (pieces, steps, group)
}

impl GpuCull {
    /// Buffers for culling the instances `page` of `instances` (a storage buffer of
    /// `InstanceGpu`), grouped as `segments` say, in at most `most_pieces` pieces a frame
    /// (the runs the cells keep, [`pieces`]).
    pub fn new(
        device: &wgpu::Device,
        pipes: &CullPipelines,
        instances: &wgpu::Buffer,
        page: Range<u32>,
        (segments, owners): (Vec<SegmentGpu>, Vec<(usize, usize)>),
        most_pieces: usize,
    ) -> Self {
        let slots: u32 = segments.iter().map(|s| s.count).sum();
        let sums_len = levels(slots).iter().map(|l| l.1).sum::<u32>();
        let storage = wgpu::BufferUsages::STORAGE;
        let plain = |label: &str, words: u64, usage: wgpu::BufferUsages| {
            device.create_buffer(&wgpu::BufferDescriptor {
                label: Some(label),
                size: words.max(1) * 4,
                usage,
                mapped_at_creation: false,
            })
        };
        let slot_buffer = plain("cull slots", u64::from(slots), storage);
        let sums = plain("cull sums", u64::from(sums_len), storage);
        let visible = plain("visible instances", u64::from(slots), storage);
        // Cleared each frame: a draw none of whose runs is kept draws nothing.
        let args = plain(
            "indirect draws",
            segments.len() as u64 * 5,
            storage
                | wgpu::BufferUsages::INDIRECT
                | wgpu::BufferUsages::COPY_SRC
                | wgpu::BufferUsages::COPY_DST,
        );
        let counters = plain(
            "cull counters",
            4,
            storage | wgpu::BufferUsages::COPY_DST | wgpu::BufferUsages::COPY_SRC,
        );
        let view_buffer = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("cull view"),
            size: std::mem::size_of::<ViewGpu>() as u64,
            usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        // Every segment whole is one piece each: never more than there is room for.
        let most_pieces = most_pieces.max(segments.len());
        let (piece_buffer, step_buffer, step_group) =
            view_buffers(device, pipes, most_pieces, slots);
        let shared = SharedBuffers {
            instances: instances.clone(),
            page,
            slot_buffer,
            sums,
            visible,
        };
        let view_group = shared.view_group(
            device,
            pipes,
            (&view_buffer, &piece_buffer),
            &args,
            &counters,
        );
        let draw_group = device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("culled instances"),
            layout: &pipes.draw_layout,
            entries: &[
                wgpu::BindGroupEntry {
                    binding: 0,
                    resource: shared.window(),
                },
                wgpu::BindGroupEntry {
                    binding: 1,
                    resource: shared.visible.as_entire_binding(),
                },
            ],
        });
        let bytes = [
            &shared.slot_buffer,
            &shared.sums,
            &shared.visible,
            &args,
            &counters,
            &piece_buffer,
            &step_buffer,
            &view_buffer,
        ]
        .iter()
        .map(|b| b.size())
        .sum::<u64>();
        GpuCull {
            segments,
            owners,
            view_buffer,
            args,
            counters,
            view_group,
            piece_buffer,
            most_pieces,
            step_buffer,
            step_group,
            draw_group,
            live: Live::default(),
            bytes,
            shared,
        }
    }

    /// Another view of the same instances (the sun's, beside the camera's) over this one's
    /// buffers, with a uniform, pieces and steps of its own. Its culling and drawing must be
    /// recorded before this view's culling, or after this view's drawing: the lists and
    /// draws are shared.
    pub(crate) fn another_view(&self, device: &wgpu::Device, pipes: &CullPipelines) -> Self {
        let s = &self.shared;
        let view_buffer = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("cull view"),
            size: std::mem::size_of::<ViewGpu>() as u64,
            usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let slots = self.segments.iter().map(|s| s.count).sum();
        let (piece_buffer, step_buffer, step_group) =
            view_buffers(device, pipes, self.most_pieces, slots);
        let view_group = s.view_group(
            device,
            pipes,
            (&view_buffer, &piece_buffer),
            &self.args,
            &self.counters,
        );
        GpuCull {
            segments: self.segments.clone(),
            owners: self.owners.clone(),
            bytes: view_buffer.size() + piece_buffer.size() + step_buffer.size(),
            view_buffer,
            args: self.args.clone(),
            counters: self.counters.clone(),
            view_group,
            piece_buffer,
            most_pieces: self.most_pieces,
            step_buffer,
            step_group,
            draw_group: self.draw_group.clone(),
            live: Live::default(),
            shared: s.clone(),
        }
    }

    /// Writes the view's uniform and the pieces of its segments that `runs_of(k)` (the
    /// instance runs of segment `k` the view keeps, counted from the instance buffer's
    /// start) keep (before the frame's commands are submitted).
    pub(crate) fn set_view<'a>(
        &mut self,
        queue: &wgpu::Queue,
        view: &CullView,
        runs_of: impl Fn(usize) -> &'a [Range<u32>],
    ) {
        let (mut list, mut slots) = pieces(&self.segments, self.shared.page.start, runs_of);
        if list.len() > self.most_pieces {
            // More runs than room (never, by the sizes given): every instance, as before.
            let whole: Vec<Range<u32>> = self
                .segments
                .iter()
                .map(|s| s.first..s.first + s.count)
                .collect();
            (list, slots) = pieces(&self.segments, 0, |k| std::slice::from_ref(&whole[k]));
        }
        let (step_data, scans, adds) = steps(slots);
        self.live = Live {
            slots,
            pieces: list.len() as u32,
            scans,
            adds,
        };
        if list.is_empty() {
            return;
        }
        let u = view.uniform(slots, list.len() as u32);
        queue.write_buffer(&self.view_buffer, 0, bytemuck::bytes_of(&u));
        queue.write_buffer(&self.piece_buffer, 0, bytemuck::cast_slice(&list));
        queue.write_buffer(&self.step_buffer, 0, &step_data);
    }

    /// Records the culling passes; `timestamp` writes the first pass's start to query 0.
    pub fn encode(
        &self,
        encoder: &mut wgpu::CommandEncoder,
        pipes: &CullPipelines,
        timestamp: Option<&wgpu::QuerySet>,
    ) {
        if self.segments.is_empty() {
            return;
        }
        encoder.clear_buffer(&self.counters, 0, None);
        // The draws none of whose instances is kept stay empty.
        encoder.clear_buffer(&self.args, 0, None);
        let live = &self.live;
        let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
            label: Some("cull"),
            timestamp_writes: timestamp.map(|q| wgpu::ComputePassTimestampWrites {
                query_set: q,
                beginning_of_pass_write_index: Some(0),
                end_of_pass_write_index: None,
            }),
        });
        if live.pieces == 0 {
            return;
        }
        pass.set_bind_group(0, &self.view_group, &[]);
        pass.set_bind_group(1, &self.step_group, &[0]);
        let slot_groups = live.slots.div_ceil(GROUP);
        pass.set_pipeline(&pipes.classify);
        dispatch(&mut pass, slot_groups);
        pass.set_pipeline(&pipes.scan_level);
        for s in &live.scans {
            pass.set_bind_group(1, &self.step_group, &[s.offset]);
            dispatch(&mut pass, s.groups);
        }
        pass.set_pipeline(&pipes.add_level);
        for s in &live.adds {
            pass.set_bind_group(1, &self.step_group, &[s.offset]);
            dispatch(&mut pass, s.groups);
        }
        pass.set_pipeline(&pipes.scatter);
        dispatch(&mut pass, slot_groups);
        pass.set_pipeline(&pipes.write_args);
        pass.dispatch_workgroups(live.pieces.div_ceil(64), 1, 1);
    }

    /// Reads back what the last culled frame submitted (tests and benches: waits for the
    /// GPU).
    pub(crate) fn read_stats(&self, ctx: &GpuContext) -> Result<CullStats, RenderError> {
        if self.segments.is_empty() {
            return Ok(CullStats::default());
        }
        let args_bytes = self.args.size();
        let read = ctx.device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("cull stats read-back"),
            size: args_bytes + 16,
            usage: wgpu::BufferUsages::COPY_DST | wgpu::BufferUsages::MAP_READ,
            mapped_at_creation: false,
        });
        let mut encoder = ctx
            .device
            .create_command_encoder(&wgpu::CommandEncoderDescriptor {
                label: Some("cull stats"),
            });
        encoder.copy_buffer_to_buffer(&self.args, 0, &read, 0, args_bytes);
        encoder.copy_buffer_to_buffer(&self.counters, 0, &read, args_bytes, 16);
        ctx.queue.submit([encoder.finish()]);
        super::readback::map_for_reading(ctx, &read)?;
        let stats = {
            let data = read
                .get_mapped_range(..)
                .map_err(|e| RenderError::ReadBack(e.to_string()))?;
            let words: &[u32] = bytemuck::cast_slice(&data);
            let mut s = CullStats {
                in_frustum: u64::from(words[words.len() - 4]),
                ..CullStats::default()
            };
            for k in 0..self.segments.len() {
                let count = u64::from(words[k * 5 + 1]);
                s.submitted += count;
                s.triangles += count * u64::from(words[k * 5] / 3);
            }
            s
        };
        read.unmap();
        Ok(stats)
    }
}

/// Dispatches `groups` workgroups, on two dimensions past the per-dimension limit.
fn dispatch(pass: &mut wgpu::ComputePass<'_>, groups: u32) {
    if groups == 0 {
        return;
    }
    let x = groups.min(MAX_GROUPS);
    pass.dispatch_workgroups(x, groups.div_ceil(x), 1);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pages_cover_the_instances_on_aligned_bounds() {
        let p = pages(1000, 300 * 32);
        assert_eq!(p[0], 0..256);
        assert_eq!(p.last().unwrap().end, 1000);
        assert!(p.windows(2).all(|w| w[0].end == w[1].start));
        assert!(p.iter().all(|r| r.start % 256 == 0));
        assert_eq!(pages(0, 1 << 27), Vec::<Range<u32>>::new());
        assert_eq!(pages(5, 1 << 27), vec![0..5]);
    }

    #[test]
    fn pieces_lay_out_the_kept_runs_of_each_draw() {
        let seg = |first, count| SegmentGpu {
            first,
            count,
            ..SegmentGpu::zeroed()
        };
        // A page from instance 100: two draws of 10 and 5 instances.
        let segs = [seg(0, 10), seg(10, 5)];
        let runs = [vec![98..102, 105..107], vec![]];
        let (list, slots) = pieces(&segs, 100, |k| runs[k].as_slice());
        assert_eq!(slots, 4);
        let got: Vec<_> = list
            .iter()
            .map(|p| {
                (
                    p.run.first,
                    p.run.count,
                    p.run.slot_base,
                    p.draw,
                    p.base,
                    p.last,
                )
            })
            .collect();
        assert_eq!(got, vec![(0, 2, 0, 0, 0, 0), (5, 2, 2, 0, 0, 1)]);
    }

    #[test]
    fn planes_keep_what_the_camera_sees() {
        let cam = super::super::Camera::free(0.0, 0.0, 2.0, 0.0, 0.0);
        let planes = frustum_planes(cam.view_proj(16.0 / 9.0));
        let inside = |p: Vec3| {
            planes
                .iter()
                .all(|q| Vec3::new(q[0], q[1], q[2]).dot(p) + q[3] >= 0.0)
        };
        assert!(inside(Vec3::new(0.0, 50.0, 2.0)), "ahead");
        assert!(inside(Vec3::new(0.0, 1e6, 2.0)), "far ahead: no far plane");
        assert!(!inside(Vec3::new(0.0, -50.0, 2.0)), "behind");
        assert!(!inside(Vec3::new(0.0, 0.1, 2.0)), "before the near plane");
        assert!(!inside(Vec3::new(100.0, 50.0, 2.0)), "right of the view");
        assert!(!inside(Vec3::new(0.0, 50.0, 60.0)), "above the view");
    }
}
