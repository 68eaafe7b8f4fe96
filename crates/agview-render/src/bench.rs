//! `agview bench render`: a synthetic city drawn a few times, with the numbers that tell
//! whether the renderer scales — draw calls, CPU encode time, GPU frame time, upload time
//! and GPU bytes per instance.

use std::time::Instant;

use crate::art::{ArtSet, ImageData, ImagePixels, MeshArt, MeshLod, MeshVertex};
use crate::scene::{ArtRef, ObjectInstance, Placement, Scene, Tile, TileRun, TileTexture};
use crate::terrain::Terrain;

use super::camera::Camera;
use super::context::RenderError;
use super::frame::FrameParams;
use super::headless::{offscreen_target, Headless};
use super::pipelines::{FrameTargets, Renderer};

/// The size of the synthetic city.
#[derive(Debug, Clone, PartialEq)]
pub struct BenchOptions {
    /// City blocks, laid out on a near-square grid.
    pub blocks: usize,
    /// Tiles per block side (a block has `tiles_per_side²` tiles).
    pub tiles_per_side: usize,
    /// Object instances over the whole city.
    pub objects: usize,
    /// Distinct meshes (each with two LODs).
    pub meshes: usize,
    /// Merge each block row of tiles into one quad (`Scene::runs`).
    pub merge_runs: bool,
    pub width: u32,
    pub height: u32,
    /// Frames measured (after one warm-up frame).
    pub frames: u32,
    /// Where the camera stands.
    pub camera: BenchCamera,
}

/// The bench's views of the synthetic city.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum BenchCamera {
    /// The whole city from the south-west at 35°, at most 4 km from its centre.
    #[default]
    Orbit,
    /// An eye 2 m above the ground in the city, looking north along a street.
    Ground,
    /// Straight down over the whole city.
    Top,
}

impl std::str::FromStr for BenchCamera {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "orbit" => Ok(BenchCamera::Orbit),
            "ground" => Ok(BenchCamera::Ground),
            "top" => Ok(BenchCamera::Top),
            _ => Err(format!("`{s}`: expected orbit, ground or top")),
        }
    }
}

impl Default for BenchOptions {
    /// 2,000 blocks of 5×5 tiles (50,000 tiles) and 200,000 objects over 5 meshes.
    fn default() -> Self {
        BenchOptions {
            blocks: 2000,
            tiles_per_side: 5,
            objects: 200_000,
            meshes: 5,
            merge_runs: true,
            width: 640,
            height: 400,
            frames: 5,
            camera: BenchCamera::Orbit,
        }
    }
}

/// What the bench measured.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct BenchReport {
    pub adapter: String,
    /// The objects' culling path: `gpu`, `cpu` or `off`.
    pub path: String,
    pub tiles: usize,
    pub tile_quads: usize,
    pub tile_triangles: usize,
    pub objects: usize,
    pub draw_calls: u32,
    /// Instances shown at the density whose bounds meet the view.
    pub instances_in_frustum: u64,
    /// Instances submitted, summed over the (mesh, LOD) draws.
    pub instances_submitted: u64,
    pub triangles_submitted: u64,
    /// Scene build on the CPU plus upload, milliseconds.
    pub upload_ms: f64,
    /// Mean CPU time to write the uniforms and encode one frame, milliseconds.
    pub encode_ms: f64,
    /// Mean GPU time of the frame's render pass (timestamp queries), milliseconds.
    pub gpu_ms: Option<f64>,
    /// Mean wall time from submit to the frame being done, milliseconds.
    pub frame_wall_ms: f64,
    /// The first frame (not in the means): encode, submit and done, pipelines' first use
    /// included, milliseconds.
    pub first_frame_ms: f64,
    /// When the first frame was done.
    #[serde(skip)]
    pub first_frame_done: Option<std::time::Instant>,
    /// The first frame's sample count: 1 where [`BenchFrame::as_window`] and the adapter is
    /// a CPU one (the window draws 1× while it loads there), else the measured frames'.
    pub first_frame_samples: u32,
    /// The first frame at the measured frames' sample count (4×), drawn after a 1× first
    /// frame, milliseconds: what the window shows once still. `None` when the first frame
    /// was already at that count.
    pub first_aa_frame_ms: Option<f64>,
    /// When that frame was done.
    #[serde(skip)]
    pub first_aa_frame_done: Option<std::time::Instant>,
    /// The measured frames' sample count.
    pub samples: u32,
    /// GPU bytes of the instances and the culling lists, per object.
    pub bytes_per_instance: usize,
    pub buffer_bytes: u64,
    pub texture_bytes: u64,
    /// GPU bytes of every buffer and texture of the scene.
    pub gpu_bytes: u64,
    pub width: u32,
    pub height: u32,
}

impl BenchReport {
    /// The report as one JSON object (`agview bench render --json`).
    pub fn to_json(&self) -> serde_json::Value {
        serde_json::to_value(self).unwrap_or(serde_json::Value::Null)
    }
}

impl std::fmt::Display for BenchReport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        writeln!(f, "adapter:            {}", self.adapter)?;
        writeln!(
            f,
            "scene:              {} tiles ({} quads, {} triangles after draping), {} objects",
            self.tiles, self.tile_quads, self.tile_triangles, self.objects
        )?;
        writeln!(f, "frame:              {}x{}", self.width, self.height)?;
        writeln!(f, "culling:            {}", self.path)?;
        writeln!(f, "draw calls/frame:   {}", self.draw_calls)?;
        writeln!(
            f,
            "instances/frame:    {} in the frustum, {} submitted (over the LOD draws)",
            self.instances_in_frustum, self.instances_submitted
        )?;
        writeln!(
            f,
            "triangles/frame:    {} submitted",
            self.triangles_submitted
        )?;
        writeln!(f, "scene upload:       {:.1} ms", self.upload_ms)?;
        writeln!(f, "CPU encode/frame:   {:.3} ms", self.encode_ms)?;
        match self.gpu_ms {
            Some(ms) => writeln!(f, "GPU frame time:     {ms:.1} ms (timestamp queries)")?,
            None => writeln!(f, "GPU frame time:     n/a (no timestamp queries)")?,
        }
        writeln!(f, "frame wall time:    {:.1} ms", self.frame_wall_ms)?;
        match self.first_aa_frame_ms {
            Some(ms) => {
                writeln!(
                    f,
                    "first frame:        {:.1} ms ({}× while loading, as the window on this adapter)",
                    self.first_frame_ms, self.first_frame_samples
                )?;
                writeln!(
                    f,
                    "first {}× frame:     {ms:.1} ms (the still frame, after the first)",
                    self.samples
                )?;
            }
            None => writeln!(f, "first frame:        {:.1} ms", self.first_frame_ms)?,
        }
        writeln!(f, "GPU bytes/instance: {}", self.bytes_per_instance)?;
        write!(
            f,
            "GPU memory:         {:.1} MB in all ({:.1} MB buffers, {:.1} MB textures)",
            self.gpu_bytes as f64 / 1e6,
            self.buffer_bytes as f64 / 1e6,
            self.texture_bytes as f64 / 1e6
        )
    }
}

/// Builds the synthetic city and measures it on a headless device.
pub fn bench(opts: &BenchOptions) -> Result<BenchReport, RenderError> {
    let headless = Headless::new()?;
    bench_on(&headless, opts)
}

/// [`bench`] on an existing headless renderer.
pub(crate) fn bench_on(h: &Headless, opts: &BenchOptions) -> Result<BenchReport, RenderError> {
    let (scene, art, terrain) = synthetic_city(opts);
    let camera = bench_camera(opts.camera, &scene, &terrain);
    let frame = BenchFrame {
        camera,
        width: opts.width,
        height: opts.height,
        frames: opts.frames,
        as_window: false,
    };
    bench_scene(h, &scene, &art, &terrain, &frame)
}

/// The camera and image of a measured frame.
#[derive(Debug, Clone, PartialEq)]
pub struct BenchFrame {
    pub camera: Camera,
    pub width: u32,
    pub height: u32,
    /// Frames measured (after one warm-up frame).
    pub frames: u32,
    /// Draw the first frames as the window does: on a CPU adapter the first at 1×
    /// (`progressive` in the viewer), then one at the measured frames' count (4×), timed on
    /// its own. On other adapters no different.
    pub as_window: bool,
}

/// Where a [`BenchCamera`] stands over a scene (the synthetic city's streets for `Ground`).
pub fn bench_camera(which: BenchCamera, scene: &Scene, terrain: &Terrain) -> Camera {
    let (lo, hi) = scene.bounds();
    match which {
        BenchCamera::Orbit => {
            // The whole city from the south-west at 35°, but no further than 4 km from its
            // centre: a city of millions framed whole would be seen from past every LOD's
            // far distance, and nothing would be drawn.
            match Camera::frame_scene((lo, hi)) {
                Camera::Orbit {
                    target,
                    distance,
                    yaw_deg,
                    pitch_deg,
                } => Camera::orbit(target, distance.min(ORBIT_MAX_M), yaw_deg, pitch_deg),
                other => other,
            }
        }
        BenchCamera::Top => {
            let half = 0.5 * (hi[1] - lo[1]).max(hi[0] - lo[0]).max(10.0);
            Camera::top([(lo[0] + hi[0]) * 0.5, (lo[1] + hi[1]) * 0.5], half)
        }
        BenchCamera::Ground => {
            // The city's blocks start at `lo` on a 100 m pitch with a 20 m street after each
            // 80 m block: stand in the middle of the street east of the middle column, a
            // tenth of the way in from the south edge, looking north.
            let pitch = CITY_BLOCK + CITY_STREET;
            let cols = ((hi[0] - lo[0]) / pitch).round().max(1.0);
            let x = lo[0] + (cols * 0.5).floor() * pitch - CITY_STREET * 0.5;
            let y = lo[1] + (hi[1] - lo[1]) * 0.1;
            let z = terrain.height_at(x, y) + 2.0;
            Camera::free(x, y, z, 0.0, 2.0)
        }
    }
}

/// Uploads a scene and measures `frame.frames` frames of it (after a warm-up frame).
pub fn bench_scene(
    h: &Headless,
    scene: &Scene,
    art: &ArtSet,
    terrain: &Terrain,
    frame: &BenchFrame,
) -> Result<BenchReport, RenderError> {
    // The window's 1× pipelines, built beside the 4× ones (in the window, while the scene
    // loads): not timed.
    let draft = frame.as_window.then(|| window_draft(h)).flatten();
    bench_scene_drafted(h, || draft, scene, art, terrain, frame)
}

/// The pipelines of the window's first, 1× frames ([`BenchFrame::as_window`]) beside `h`'s
/// 4× ones: `None` where the first frame is drawn with `h`'s own (one sample, or not a CPU
/// adapter). Building them compiles every shader again: a caller that has a core to spare
/// while the scene loads builds them there ([`bench_scene_drafted`]).
pub fn window_draft(h: &Headless) -> Option<Renderer> {
    (h.renderer.sample_count() > 1 && super::shared::cpu_adapter(&h.ctx))
        .then(|| h.renderer.with_sample_count(&h.ctx, 1))
}

/// [`bench_scene`] with the window's 1× pipelines from elsewhere: `draft` gives them
/// ([`window_draft`]; `None` draws every frame with `h`'s) once the scene is uploaded, so
/// a caller can build them on another thread meanwhile. `frame.as_window` is taken to be
/// what `draft` says.
pub fn bench_scene_drafted(
    h: &Headless,
    draft: impl FnOnce() -> Option<Renderer>,
    scene: &Scene,
    art: &ArtSet,
    terrain: &Terrain,
    frame: &BenchFrame,
) -> Result<BenchReport, RenderError> {
    let started = Instant::now();
    let mut gpu = h.upload(scene, art, terrain)?;
    h.ctx
        .device
        .poll(wgpu::PollType::wait_indefinitely())
        .map_err(|e| RenderError::ReadBack(e.to_string()))?;
    let upload_ms = started.elapsed().as_secs_f64() * 1000.0;
    // The upload's staging copies are freed: give their memory back before the first
    // frame's own allocations come on top of it.
    super::context::release_freed_memory();

    let (w, hgt) = (frame.width.max(16), frame.height.max(16));
    let params = FrameParams {
        camera: frame.camera,
        ..FrameParams::default()
    };
    let ctx = &h.ctx;
    let (_tex, view) = offscreen_target(&ctx.device, super::headless::HEADLESS_FORMAT, w, hgt);
    let targets = FrameTargets::new(&ctx.device, &h.renderer, w, hgt);
    let mut draft = draft().map(|r| {
        let t = FrameTargets::new(&ctx.device, &r, w, hgt);
        (r, Some(t))
    });
    let timestamps = ctx
        .device
        .features()
        .contains(wgpu::Features::TIMESTAMP_QUERY)
        .then(|| Timestamps::new(&ctx.device));

    let mut encode_total = 0.0;
    let mut wall_total = 0.0;
    let mut gpu_total = 0.0;
    let mut gpu_frames = 0u32;
    let mut draw_calls = 0;
    let mut triangles = 0;
    let mut first_frame_ms = 0.0;
    let mut first_frame_done = None;
    let mut first_aa = None;
    let frames = frame.frames.max(1);
    // A 1× first frame is followed by an extra, unmeasured 4× one: the window's still frame.
    let extra = u32::from(draft.is_some());
    for frame in 0..=frames + extra {
        let t0 = Instant::now();
        gpu.prepare(ctx, &params, w, hgt);
        let mut encoder = ctx
            .device
            .create_command_encoder(&wgpu::CommandEncoderDescriptor {
                label: Some("bench frame"),
            });
        let (renderer, targets) = match &draft {
            Some((r, Some(t))) if frame == 0 => (r, t),
            _ => (&h.renderer, &targets),
        };
        let drawn = renderer.draw_with_timestamps(
            &mut encoder,
            &view,
            targets,
            &gpu,
            timestamps.as_ref().map(|t| &t.queries),
        );
        if let Some(t) = &timestamps {
            t.resolve(&mut encoder);
        }
        let commands = encoder.finish();
        let encode = t0.elapsed().as_secs_f64() * 1000.0;
        let t1 = Instant::now();
        ctx.queue.submit([commands]);
        ctx.device
            .poll(wgpu::PollType::wait_indefinitely())
            .map_err(|e| RenderError::ReadBack(e.to_string()))?;
        let wall = t1.elapsed().as_secs_f64() * 1000.0;
        let gpu_ms = match &timestamps {
            Some(t) => t.read(ctx)?,
            None => None,
        };
        if frame == 0 {
            // The warm-up: the first frame on screen.
            first_frame_ms = t0.elapsed().as_secs_f64() * 1000.0;
            first_frame_done = Some(Instant::now());
            // As the window: its 1× targets go while the still 4× frame is shown.
            if let Some((_, t)) = &mut draft {
                *t = None;
            }
            continue;
        }
        if frame == 1 && extra == 1 {
            first_aa = Some((t0.elapsed().as_secs_f64() * 1000.0, Instant::now()));
            continue;
        }
        encode_total += encode;
        wall_total += wall;
        if let Some(ms) = gpu_ms {
            gpu_total += ms;
            gpu_frames += 1;
        }
        draw_calls = drawn.draw_calls;
        triangles = drawn.triangles;
    }
    let culled = gpu.cull_stats(ctx)?;
    let path = gpu.culling();
    if path == Some(super::cull::Culling::Gpu) {
        // The object draws' counts are the GPU's: the CPU counted the other layers only.
        triangles += culled.triangles;
    }
    let stats = gpu.stats();
    Ok(BenchReport {
        adapter: ctx.describe(),
        path: path.map_or_else(|| "none".to_string(), |p| p.to_string()),
        instances_in_frustum: culled.in_frustum,
        instances_submitted: culled.submitted,
        gpu_bytes: gpu.gpu_bytes(),
        tiles: scene.tiles.len(),
        tile_quads: stats.tile_quads,
        tile_triangles: stats.tile_triangles,
        objects: stats.objects,
        draw_calls,
        triangles_submitted: triangles,
        upload_ms,
        encode_ms: encode_total / f64::from(frames),
        gpu_ms: (gpu_frames > 0).then(|| gpu_total / f64::from(gpu_frames)),
        frame_wall_ms: wall_total / f64::from(frames),
        first_frame_ms,
        first_frame_done,
        first_frame_samples: draft
            .as_ref()
            .map_or(h.renderer.sample_count(), |(r, _)| r.sample_count()),
        first_aa_frame_ms: first_aa.map(|a| a.0),
        first_aa_frame_done: first_aa.map(|a| a.1),
        samples: h.renderer.sample_count(),
        bytes_per_instance: gpu.bytes_per_instance(),
        buffer_bytes: stats.buffer_bytes,
        texture_bytes: stats.texture_bytes,
        width: w,
        height: hgt,
    })
}

/// Two timestamps around the render pass, resolved into a mappable buffer.
struct Timestamps {
    queries: wgpu::QuerySet,
    resolved: wgpu::Buffer,
    readback: wgpu::Buffer,
}

impl Timestamps {
    fn new(device: &wgpu::Device) -> Self {
        Timestamps {
            queries: device.create_query_set(&wgpu::QuerySetDescriptor {
                label: Some("bench timestamps"),
                ty: wgpu::QueryType::Timestamp,
                count: 2,
            }),
            resolved: device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("timestamps"),
                size: 16,
                usage: wgpu::BufferUsages::QUERY_RESOLVE | wgpu::BufferUsages::COPY_SRC,
                mapped_at_creation: false,
            }),
            readback: device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("timestamps read-back"),
                size: 16,
                usage: wgpu::BufferUsages::COPY_DST | wgpu::BufferUsages::MAP_READ,
                mapped_at_creation: false,
            }),
        }
    }

    fn resolve(&self, encoder: &mut wgpu::CommandEncoder) {
        encoder.resolve_query_set(&self.queries, 0..2, &self.resolved, 0);
        encoder.copy_buffer_to_buffer(&self.resolved, 0, &self.readback, 0, 16);
    }

    fn read(&self, ctx: &super::context::GpuContext) -> Result<Option<f64>, RenderError> {
        let (tx, rx) = std::sync::mpsc::channel();
        self.readback.map_async(wgpu::MapMode::Read, .., move |r| {
            let _ = tx.send(r);
        });
        ctx.device
            .poll(wgpu::PollType::wait_indefinitely())
            .map_err(|e| RenderError::ReadBack(e.to_string()))?;
        if rx.recv().ok().and_then(|r| r.ok()).is_none() {
            return Ok(None);
        }
        let ticks = {
            let data = self
                .readback
                .get_mapped_range(..)
                .map_err(|e| RenderError::ReadBack(e.to_string()))?;
            let t: &[u64] = bytemuck::cast_slice(&data);
            t[1].wrapping_sub(t[0])
        };
        self.readback.unmap();
        let ns = ticks as f64 * f64::from(ctx.queue.get_timestamp_period());
        Ok((ns > 0.0).then_some(ns / 1e6))
    }
}

/// The furthest the orbit camera stands from the city's centre, meters.
const ORBIT_MAX_M: f32 = 4000.0;

/// The synthetic city's block side and street width, meters.
const CITY_BLOCK: f32 = 80.0;
const CITY_STREET: f32 = 20.0;

/// A city of `blocks` square blocks (80 m, 20 m streets) on rolling hills: each block a
/// grid of tiles from one 512 px texture, objects spread over the blocks from `meshes`
/// two-LOD boxes. Deterministic.
pub fn synthetic_city(opts: &BenchOptions) -> (Scene, ArtSet, Terrain) {
    let blocks = opts.blocks.max(1);
    let cols = (blocks as f64).sqrt().ceil() as usize;
    let rows = blocks.div_ceil(cols);
    let (block, street) = (CITY_BLOCK, CITY_STREET);
    let pitch = block + street;
    let n = opts.tiles_per_side.max(1);
    let tile = block / n as f32;
    let px = 512.0 / n as f32;
    let origin = [-(cols as f32) * pitch * 0.5, -(rows as f32) * pitch * 0.5];
    let mut scene = Scene {
        asset: "synthetic city".into(),
        tile_texture: Some(TileTexture {
            lit: None,
            path: "city.png".into(),
            width_px: 512.0,
            height_px: 512.0,
        }),
        tile_lod: 20_000.0,
        ..Scene::default()
    };
    for b in 0..blocks {
        let (bx, by) = (b % cols, b / cols);
        let x0 = origin[0] + bx as f32 * pitch;
        let y0 = origin[1] + by as f32 * pitch;
        for r in 0..n {
            let first = scene.tiles.len();
            for c in 0..n {
                let (x, y) = (x0 + c as f32 * tile, y0 + r as f32 * tile);
                scene.tiles.push(Tile {
                    corners: [[x, y], [x + tile, y], [x + tile, y + tile], [x, y + tile]],
                    uv: [
                        c as f32 * px,
                        r as f32 * px,
                        (c + 1) as f32 * px,
                        (r + 1) as f32 * px,
                    ],
                    col: u32::try_from(c).ok(),
                    row: u32::try_from(r).ok(),
                    order: scene.tiles.len() as u32,
                    ..Tile::default()
                });
            }
            if opts.merge_runs && n > 1 {
                scene.runs.push(TileRun { first, len: n });
            }
        }
    }
    let meshes = opts.meshes.max(1);
    let per_block = opts.objects.div_ceil(blocks);
    let mut seed = 0x2545_f491_4f6c_dd1du64;
    let mut rnd = || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        (seed >> 40) as f32 / (1u64 << 24) as f32
    };
    'outer: for b in 0..blocks {
        let (bx, by) = (b % cols, b / cols);
        let x0 = origin[0] + bx as f32 * pitch;
        let y0 = origin[1] + by as f32 * pitch;
        for _ in 0..per_block {
            if scene.objects.len() >= opts.objects {
                break 'outer;
            }
            let pos = [
                x0 + 4.0 + rnd() * (block - 8.0),
                y0 + 4.0 + rnd() * (block - 8.0),
            ];
            let index = (rnd() * meshes as f32) as usize % meshes;
            scene.objects.push(ObjectInstance {
                index: index as u32,
                path: format!("house{index}.obj").into(),
                pos,
                heading: (rnd() * 4.0).floor() * 90.0,
                mode: Placement::Graded,
                ground_pt: [x0 + block * 0.5, y0 + block * 0.5],
                show: [1, 1],
                thin: rnd(),
                ..ObjectInstance::default()
            });
        }
    }
    scene.meshes = (0..meshes)
        .map(|i| ArtRef {
            name: format!("house{i}.obj").into(),
            resolved: None,
        })
        .collect();
    scene.polygon = vec![vec![
        origin,
        [-origin[0], origin[1]],
        [-origin[0], -origin[1]],
        [origin[0], -origin[1]],
    ]];
    scene.update_stats();

    let mut art = ArtSet {
        tile_texture: Some(0),
        ..ArtSet::default()
    };
    art.images.push(city_texture());
    art.images.push(ImageData {
        name: "house.png".into(),
        width: 2,
        height: 2,
        pixels: ImagePixels::Rgba8(vec![vec![
            200, 190, 170, 255, 150, 60, 50, 255, 150, 60, 50, 255, 200, 190, 170, 255,
        ]]),
        missing: false,
    });
    for i in 0..meshes {
        let size = [
            6.0 + 2.0 * i as f32,
            5.0 + 3.0 * (i % 3) as f32,
            8.0 + (i % 2) as f32 * 4.0,
        ];
        art.meshes
            .push(two_lod_house(&format!("house{i}.obj"), size, Some(1)));
    }
    let side = cols.max(rows) as f32 * pitch + 400.0;
    let terrain = Terrain::hills(side, 30.0, 11);
    (scene, art, terrain)
}

/// A house: LOD 0 a box with a pitched roof, LOD 1 (from 600 m) a plain box. `size` is
/// width (x), wall height (y) and depth (z), in OBJ8 axes.
pub(crate) fn two_lod_house(name: &str, size: [f32; 3], texture: Option<usize>) -> MeshArt {
    let [w, h, d] = [size[0] * 0.5, size[1], size[2] * 0.5];
    let mut m = MeshArt {
        name: name.into(),
        texture,
        ..MeshArt::default()
    };
    fn quad(m: &mut MeshArt, c: [[f32; 3]; 4], n: [f32; 3], st: [f32; 2]) {
        let base = m.vertices.len() as u32;
        for (k, p) in c.iter().enumerate() {
            let uv = [[0.0, 0.0], [1.0, 0.0], [1.0, 1.0], [0.0, 1.0]][k];
            m.vertices.push(MeshVertex {
                pos: *p,
                normal: n,
                uv: [uv[0] * st[0], uv[1] * st[1]],
            });
        }
        m.indices
            .extend_from_slice(&[base, base + 2, base + 1, base, base + 3, base + 2]);
    }
    let walls = |m: &mut MeshArt| {
        quad(
            m,
            [[-w, 0.0, d], [w, 0.0, d], [w, h, d], [-w, h, d]],
            [0.0, 0.0, 1.0],
            [2.0, 2.0],
        );
        quad(
            m,
            [[w, 0.0, -d], [-w, 0.0, -d], [-w, h, -d], [w, h, -d]],
            [0.0, 0.0, -1.0],
            [2.0, 2.0],
        );
        quad(
            m,
            [[w, 0.0, d], [w, 0.0, -d], [w, h, -d], [w, h, d]],
            [1.0, 0.0, 0.0],
            [2.0, 2.0],
        );
        quad(
            m,
            [[-w, 0.0, -d], [-w, 0.0, d], [-w, h, d], [-w, h, -d]],
            [-1.0, 0.0, 0.0],
            [2.0, 2.0],
        );
    };
    // LOD 0: walls and a pitched roof along z.
    walls(&mut m);
    let ridge = h + w * 0.8;
    let s = (0.8f32).atan().cos();
    quad(
        &mut m,
        [[-w, h, d], [0.0, ridge, d], [0.0, ridge, -d], [-w, h, -d]],
        [-s, s, 0.0],
        [0.5, 0.5],
    );
    quad(
        &mut m,
        [[0.0, ridge, d], [w, h, d], [w, h, -d], [0.0, ridge, -d]],
        [s, s, 0.0],
        [0.5, 0.5],
    );
    // Gable ends: quads folded onto triangles.
    quad(
        &mut m,
        [[-w, h, d], [w, h, d], [0.0, ridge, d], [0.0, ridge, d]],
        [0.0, 0.0, 1.0],
        [2.0, 2.0],
    );
    quad(
        &mut m,
        [[w, h, -d], [-w, h, -d], [0.0, ridge, -d], [0.0, ridge, -d]],
        [0.0, 0.0, -1.0],
        [2.0, 2.0],
    );
    let lod0 = m.indices.len() as u32;
    // LOD 1: walls and a flat roof.
    walls(&mut m);
    quad(
        &mut m,
        [[-w, h, d], [w, h, d], [w, h, -d], [-w, h, -d]],
        [0.0, 1.0, 0.0],
        [0.5, 0.5],
    );
    let lod1 = m.indices.len() as u32 - lod0;
    m.lods = vec![
        MeshLod {
            near: 0.0,
            far: 600.0,
            first_index: 0,
            index_count: lod0,
            material: Default::default(),
            shading: Default::default(),
        },
        MeshLod {
            near: 600.0,
            far: 20_000.0,
            first_index: lod0,
            index_count: lod1,
            material: Default::default(),
            shading: Default::default(),
        },
    ];
    m.bounds_min = [-w, 0.0, -d];
    m.bounds_max = [w, ridge, d];
    m
}

/// A 512 px tile texture: pavement with darker lots and light paths.
fn city_texture() -> ImageData {
    let n = 512u32;
    let mut px = Vec::with_capacity((n * n * 4) as usize);
    for y in 0..n {
        for x in 0..n {
            let lot = (x / 64 + y / 64) % 2 == 0;
            let path = x % 102 < 6 || y % 102 < 6;
            let c: [u8; 4] = if path {
                [190, 185, 170, 255]
            } else if lot {
                [110, 120, 80, 255]
            } else {
                [140, 135, 120, 255]
            };
            px.extend_from_slice(&c);
        }
    }
    ImageData {
        name: "city.png".into(),
        width: n,
        height: n,
        pixels: ImagePixels::Rgba8(vec![px]),
        missing: false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn synthetic_city_has_the_asked_sizes() {
        let opts = BenchOptions {
            blocks: 12,
            tiles_per_side: 3,
            objects: 100,
            meshes: 3,
            ..BenchOptions::default()
        };
        let (scene, art, _) = synthetic_city(&opts);
        assert_eq!(scene.tiles.len(), 12 * 9);
        assert_eq!(scene.runs.len(), 12 * 3);
        assert_eq!(scene.objects.len(), 100);
        assert_eq!(art.meshes.len(), 3);
        assert!(scene.objects.iter().all(|o| o.index < 3));
        assert_eq!(scene.stats.tile_quads, 12 * 3);
    }

    #[test]
    fn the_default_city_is_the_documented_one() {
        let opts = BenchOptions::default();
        assert_eq!(opts.blocks * opts.tiles_per_side.pow(2), 50_000);
        assert_eq!(opts.objects, 200_000);
    }

    #[test]
    fn house_lods_index_inside_the_mesh() {
        let m = two_lod_house("h", [6.0, 5.0, 8.0], None);
        let total: u32 = m.lods.iter().map(|l| l.index_count).sum();
        assert_eq!(total as usize, m.indices.len());
        assert!(m.indices.iter().all(|&i| (i as usize) < m.vertices.len()));
    }
}
