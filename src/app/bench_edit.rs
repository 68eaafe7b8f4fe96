//! `agview bench edit`: the edit mode's way from a changed shape to a frame, headless.
//!
//! An autogen asset (by default `lakeside.ags`) is laid out on a square given as an edited
//! shape, the way edit mode hands its shape to the loader, and drawn into an offscreen
//! target of the window's size by the window's own loader ([`Loader`]): the layout and
//! the upload run on the loader's thread while this thread draws, as the window does.
//!
//! Four measurements, each a median with its spread:
//!
//! - **plain frame**: a frame of the scene, encoded, submitted and waited for, with no edit
//!   pending (what the window costs while nothing changes); and the same frame as the drag
//!   preview draws it ([`crate::app::drag_preview`]: no shadow map, no trees past 300 m
//!   from the camera, a third of the size);
//! - **idle edit**: a corner moved while no frame is being drawn; the loader lays out and
//!   uploads alone, then one frame is drawn;
//! - **drawing edit**: a corner moved while a frame is being drawn (as during a drag),
//!   from the edit to the end of the first frame that shows it; twice: with each frame
//!   held for the edit's layout as the window does ([`EDIT_HOLD`](crate::app::reload::EDIT_HOLD)), and not held;
//! - **drag**: a new edit every frame for a while; how many layouts reach the screen a
//!   second, and the frame time meanwhile; with full frames, then with the drag preview
//!   (which the window draws when the plain frame is slower than
//!   [`SLOW_FRAME_MS`](crate::app::drag_preview::SLOW_FRAME_MS)).

use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::app::drag_preview;
use crate::app::options::RenderArgs;
use crate::app::reload::{edit_hold, Gpu, LoadJob, Loader, Outcome, Ready, Trigger, Uploaded};
use crate::input::{EditedInput, EditedShape, Inputs, Shape};
use crate::render::{FrameTargets, Headless};

/// What to measure.
#[derive(Debug, Clone, PartialEq)]
pub struct EditBenchOptions {
    /// The asset laid out (a block or a string).
    pub asset: PathBuf,
    /// The square's side, meters.
    pub side_m: f64,
    pub width: u32,
    pub height: u32,
    /// Plain frames measured (after one warm-up frame).
    pub frames: u32,
    /// Edits measured, of each kind (idle, drawing).
    pub edits: u32,
    /// How long the drag lasts, seconds.
    pub drag_s: f64,
}

impl Default for EditBenchOptions {
    fn default() -> Self {
        EditBenchOptions {
            asset: PathBuf::from("sample_scenery/autogen/lakeside.ags"),
            side_m: DEFAULT_SIDE_M,
            width: 1280,
            height: 720,
            frames: 10,
            edits: 10,
            drag_s: 3.0,
        }
    }
}

/// The default square's side: `lakeside.ags` lays about 490 tiles along it (the issue's
/// case: one string of up to 500 tiles).
pub const DEFAULT_SIDE_M: f64 = 2400.0;

/// Where the square lies (its first corner), longitude and latitude.
const ORIGIN: [f64; 2] = [8.157, 47.896];

/// A median with the smallest and largest of the samples, milliseconds.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct Spread {
    pub median: f64,
    pub min: f64,
    pub max: f64,
    pub n: usize,
}

impl Spread {
    pub fn of(samples: &[f64]) -> Spread {
        let mut v: Vec<f64> = samples.iter().copied().filter(|x| x.is_finite()).collect();
        v.sort_by(f64::total_cmp);
        let n = v.len();
        let median = match n {
            0 => f64::NAN,
            _ if n % 2 == 1 => v[n / 2],
            _ => 0.5 * (v[n / 2 - 1] + v[n / 2]),
        };
        Spread {
            median,
            min: v.first().copied().unwrap_or(f64::NAN),
            max: v.last().copied().unwrap_or(f64::NAN),
            n,
        }
    }
}

impl std::fmt::Display for Spread {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "median {:.1} ms (min {:.1}, max {:.1}; {} run(s))",
            self.median, self.min, self.max, self.n
        )
    }
}

/// One kind of edit's figures.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct EditFigures {
    /// The loader's layout (with the art, from the cache) and its upload, as it reports them.
    pub layout: Spread,
    pub upload: Spread,
    /// From the edit to the loader's scene being ready.
    pub ready: Spread,
    /// From the edit to the end of the first frame that shows it.
    pub to_frame: Spread,
}

/// What `agview bench edit` measured.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct EditBenchReport {
    pub adapter: String,
    pub asset: String,
    pub side_m: f64,
    pub width: u32,
    pub height: u32,
    pub tiles: usize,
    pub objects: usize,
    pub trees: usize,
    /// The first load: layout with the art, and its upload.
    pub first_load_ms: f64,
    pub plain_frame: Spread,
    /// The plain frame as the drag preview draws it.
    pub preview_frame: Spread,
    /// Whether the window would draw a drag as the preview (its rule on `plain_frame`).
    pub preview_chosen: bool,
    pub idle_edit: EditFigures,
    /// Made while a frame is drawn; the frames that follow are held for its layout.
    pub drawing_edit: EditFigures,
    /// The same, frames not held (the window before `EDIT_HOLD`).
    pub drawing_edit_unheld: EditFigures,
    /// Layouts shown a second while a new edit comes every frame, full frames.
    pub drag_layouts_per_s: f64,
    /// The frame time during the drag.
    pub drag_frame: Spread,
    /// The same with the drag preview's frames.
    pub preview_drag_layouts_per_s: f64,
    pub preview_drag_frame: Spread,
}

impl EditBenchReport {
    /// The report as one JSON object (`agview bench edit --json`).
    pub fn to_json(&self) -> serde_json::Value {
        serde_json::to_value(self).unwrap_or(serde_json::Value::Null)
    }
}

impl std::fmt::Display for EditBenchReport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        writeln!(f, "adapter:            {}", self.adapter)?;
        writeln!(
            f,
            "scene:              {} on a {:.0} m square: {} tiles, {} objects, {} trees; {}x{}",
            self.asset, self.side_m, self.tiles, self.objects, self.trees, self.width, self.height
        )?;
        writeln!(f, "first load:         {:.0} ms", self.first_load_ms)?;
        writeln!(f, "plain frame:        {}", self.plain_frame)?;
        writeln!(
            f,
            "preview frame:      {} ({}{})",
            self.preview_frame,
            drag_preview::WORDS,
            if self.preview_chosen {
                "; the window drags with it"
            } else {
                "; not needed: the window drags with full frames"
            }
        )?;
        for (name, e) in [
            ("idle edit", &self.idle_edit),
            ("drawing edit, frame held", &self.drawing_edit),
            ("drawing edit, not held", &self.drawing_edit_unheld),
        ] {
            writeln!(f, "{name}:")?;
            writeln!(f, "  layout:           {}", e.layout)?;
            writeln!(f, "  upload:           {}", e.upload)?;
            writeln!(f, "  edit to ready:    {}", e.ready)?;
            writeln!(f, "  edit to frame:    {}", e.to_frame)?;
        }
        writeln!(
            f,
            "drag, full frames:  {:.1} layouts shown a second",
            self.drag_layouts_per_s
        )?;
        writeln!(f, "  frame:            {}", self.drag_frame)?;
        writeln!(
            f,
            "drag, preview:      {:.1} layouts shown a second",
            self.preview_drag_layouts_per_s
        )?;
        write!(f, "  frame:            {}", self.preview_drag_frame)
    }
}

/// The square with its second corner moved `dx` meters east, as edit mode hands it over.
fn edited(side: f64, dx: f64) -> EditedInput {
    let ring = [[0.0, 0.0], [side + dx, 0.0], [side, side], [0.0, side]]
        .iter()
        .map(|p| crate::input::unproject(ORIGIN, *p))
        .collect();
    EditedInput {
        frame: ORIGIN,
        shape: EditedShape {
            geometry: Shape::Polygon(vec![ring]),
            spawn: None,
            param: None,
            height: None,
        },
        source: None,
        feature: None,
        cache: None,
    }
}

/// The window's side of the bench: the shown scene, drawn into an offscreen target.
struct Window {
    gpu: Arc<Gpu>,
    targets: FrameTargets,
    /// The drag preview's targets; `preview`: frames are drawn as the preview.
    preview_targets: drag_preview::Targets,
    preview: bool,
    _target: wgpu::Texture,
    view: wgpu::TextureView,
    render: RenderArgs,
    width: u32,
    height: u32,
    shown: Option<Ready>,
}

impl Window {
    /// Encodes and submits one frame of the shown scene; when it started.
    fn submit(&mut self) -> Instant {
        let t = Instant::now();
        let Some(s) = self.shown.as_mut() else {
            return t;
        };
        let ctx = &self.gpu.ctx;
        let aspect = self.width as f32 / self.height as f32;
        let mut params = self.render.frame_params_in(&s.framing, aspect);
        let targets = if self.preview {
            params = drag_preview::params(&params);
            let r = &self.gpu.renderer;
            self.preview_targets
                .get(&ctx.device, r, self.width, self.height)
        } else {
            &self.targets
        };
        let Uploaded::Scene(gpu) = &mut s.gpu else {
            return t;
        };
        gpu.prepare_overlays(ctx, &s.view.loaded.scene, params.overlays);
        gpu.prepare(ctx, &params, targets.width, targets.height);
        let mut encoder = ctx
            .device
            .create_command_encoder(&wgpu::CommandEncoderDescriptor {
                label: Some("bench edit frame"),
            });
        self.gpu
            .renderer
            .draw(&mut encoder, &self.view, targets, gpu);
        ctx.queue.submit([encoder.finish()]);
        t
    }

    /// Waits for the frames submitted; the time since `since`, ms.
    fn wait(&self, since: Instant) -> anyhow::Result<f64> {
        self.gpu
            .ctx
            .device
            .poll(wgpu::PollType::wait_indefinitely())
            .map_err(|e| anyhow::anyhow!("waiting for the frame: {e}"))?;
        Ok(since.elapsed().as_secs_f64() * 1e3)
    }

    /// Draws one frame of the shown scene and waits for it; its wall time, ms.
    fn frame(&mut self) -> anyhow::Result<f64> {
        let t = self.submit();
        self.wait(t)
    }

    /// Shows a loader outcome; its layout and upload times.
    fn accept(&mut self, o: Outcome) -> anyhow::Result<(f64, f64)> {
        match o {
            Outcome::Ready(r) => {
                let mut r = *r;
                let got = (r.load_ms, r.upload_ms);
                // The rest of a large document goes to its preview.
                let uploaded = r.gpu;
                let preview = match (&uploaded, self.shown.take()) {
                    (Uploaded::Rest { .. }, Some(s)) => match s.gpu {
                        Uploaded::Scene(g) => Some(g),
                        _ => None,
                    },
                    _ => None,
                };
                let gpu = uploaded
                    .into_scene(preview, &self.gpu, &r.view, &r.art, &r.framing)
                    .map_err(|e| anyhow::anyhow!(e))?;
                r.gpu = Uploaded::Scene(gpu);
                self.shown = Some(r);
                Ok(got)
            }
            // Parts of a rest come after a preview, which only a launch shows.
            Outcome::Part(_) => anyhow::bail!("a part of a preview's rest in the edit bench"),
            Outcome::Failed { error, .. } => anyhow::bail!("the layout failed: {error}"),
        }
    }

    /// Frames after an edit made at `t` until one shows it, as the window draws them:
    /// `held`, each frame first waits for the edit's layout until [`EDIT_HOLD`](crate::app::reload::EDIT_HOLD) after the
    /// edit ([`edit_hold`]). The edit's layout, upload, ready and frame times.
    fn until_shown(
        &mut self,
        loader: &Loader,
        t: Instant,
        held: bool,
    ) -> anyhow::Result<(f64, f64, f64, f64)> {
        let mut ready = None;
        loop {
            if ready.is_none() {
                let o = match edit_hold(Some(t), true, loader.uploading_edit()).filter(|_| held) {
                    Some(wait) => loader.results.recv_timeout(wait).ok(),
                    None => loader.results.try_recv().ok(),
                };
                if let Some(o) = o {
                    let (layout, upload) = self.accept(o)?;
                    ready = Some((layout, upload, t.elapsed().as_secs_f64() * 1e3));
                }
            }
            self.frame()?;
            if let Some((layout, upload, r)) = ready {
                return Ok((layout, upload, r, t.elapsed().as_secs_f64() * 1e3));
            }
            if t.elapsed() > Duration::from_secs(120) {
                anyhow::bail!("the loader sent nothing in 120 s");
            }
        }
    }
}

fn wait_outcome(loader: &Loader) -> anyhow::Result<Outcome> {
    loader
        .results
        .recv_timeout(Duration::from_secs(120))
        .map_err(|_| anyhow::anyhow!("the loader sent nothing in 120 s"))
}

/// Lays the asset out, then measures its frames and its edits.
pub fn run(opts: &EditBenchOptions) -> anyhow::Result<EditBenchReport> {
    let headless = Headless::new()?;
    let adapter = headless.ctx.describe();
    let Headless { ctx, renderer } = headless;
    let (w, h) = (opts.width.max(16), opts.height.max(16));
    let targets = FrameTargets::new(&ctx.device, &renderer, w, h);
    let format = wgpu::TextureFormat::Rgba8UnormSrgb;
    let target = ctx.device.create_texture(&wgpu::TextureDescriptor {
        label: Some("bench edit target"),
        size: wgpu::Extent3d {
            width: w,
            height: h,
            depth_or_array_layers: 1,
        },
        mip_level_count: 1,
        sample_count: 1,
        dimension: wgpu::TextureDimension::D2,
        format,
        usage: wgpu::TextureUsages::RENDER_ATTACHMENT,
        view_formats: &[],
    });
    let view = target.create_view(&wgpu::TextureViewDescriptor::default());
    let gpu = Arc::new(Gpu { ctx, renderer });

    let loader = Loader::spawn(|| {})?;
    loader.set_gpu(gpu.clone());
    let render = RenderArgs::default();
    let mut job = LoadJob {
        asset: opts.asset.clone(),
        inputs: Inputs {
            edited: Some(edited(opts.side_m, 0.0)),
            ..Inputs::default()
        },
        render: render.clone(),
        synthetic_city: None,
        load: crate::document::LoadOptions {
            threads: 0,
            progress: None,
            ground: None,
        },
        startup_delay: None,
    };
    let mut win = Window {
        gpu,
        targets,
        preview_targets: drag_preview::Targets::default(),
        preview: false,
        _target: target,
        view,
        render,
        width: w,
        height: h,
        shown: None,
    };

    // The first load (the art is loaded and cached here).
    let t = Instant::now();
    loader.load(job.clone(), Trigger::Params);
    win.accept(wait_outcome(&loader)?)?;
    let first_load_ms = t.elapsed().as_secs_f64() * 1e3;
    let (tiles, objects, trees) = win.shown.as_ref().map_or((0, 0, 0), |s| {
        let st = &s.view.loaded.scene.stats;
        (st.tiles, st.objects, st.trees)
    });

    // Plain frames, full and as the drag preview draws them, interleaved.
    win.frame()?;
    win.preview = true;
    win.frame()?;
    let (mut plain, mut preview) = (Vec::new(), Vec::new());
    for _ in 0..opts.frames.max(1) {
        win.preview = false;
        plain.push(win.frame()?);
        win.preview = true;
        preview.push(win.frame()?);
    }
    win.preview = false;

    // Each edit moves the corner to a new place, so no layout is the one shown.
    let mut step = 0u32;
    let mut next_edit = |job: &mut LoadJob| {
        step += 1;
        job.inputs.edited = Some(edited(opts.side_m, f64::from(step % 7) * 3.0 + 1.0));
    };

    // Edits with no frame in flight.
    let mut idle = Samples::default();
    for _ in 0..opts.edits.max(1) {
        next_edit(&mut job);
        let t = Instant::now();
        loader.load(job.clone(), Trigger::Edit(t));
        let (layout, upload) = win.accept(wait_outcome(&loader)?)?;
        let ready = t.elapsed().as_secs_f64() * 1e3;
        win.frame()?;
        idle.push(layout, upload, ready, t.elapsed().as_secs_f64() * 1e3);
    }

    // Edits made while a frame is drawn (as during a drag), shown by the frames that
    // follow: held for the layout as the window does, and not.
    let mut drawing = [Samples::default(), Samples::default()];
    for i in 0..2 * opts.edits.max(1) {
        let held = i % 2 == 0;
        next_edit(&mut job);
        let f = win.submit();
        let t = Instant::now();
        loader.load(job.clone(), Trigger::Edit(t));
        win.wait(f)?;
        let (layout, upload, ready, shown) = win.until_shown(&loader, t, held)?;
        drawing[usize::from(!held)].push(layout, upload, ready, shown);
    }

    // A drag: a new edit every frame, each frame held for it as the window does; with full
    // frames, then with the drag preview's.
    let full = measure_drag(&mut win, &loader, &mut job, &mut next_edit, opts.drag_s)?;
    win.preview = true;
    let preview_drag = measure_drag(&mut win, &loader, &mut job, &mut next_edit, opts.drag_s)?;

    Ok(EditBenchReport {
        adapter,
        asset: opts.asset.display().to_string(),
        side_m: opts.side_m,
        width: w,
        height: h,
        tiles,
        objects,
        trees,
        first_load_ms,
        plain_frame: Spread::of(&plain),
        preview_frame: Spread::of(&preview),
        preview_chosen: drag_preview::wanted(Spread::of(&plain).median),
        idle_edit: idle.figures(),
        drawing_edit: drawing[0].figures(),
        drawing_edit_unheld: drawing[1].figures(),
        drag_layouts_per_s: full.0,
        drag_frame: full.1,
        preview_drag_layouts_per_s: preview_drag.0,
        preview_drag_frame: preview_drag.1,
    })
}

/// A drag of `drag_s` seconds: a new edit (`next_edit`) every frame, each frame held for
/// it as the window does. The layouts shown a second and the frame times.
fn measure_drag(
    win: &mut Window,
    loader: &Loader,
    job: &mut LoadJob,
    next_edit: &mut impl FnMut(&mut LoadJob),
    drag_s: f64,
) -> anyhow::Result<(f64, Spread)> {
    let mut frames = Vec::new();
    let mut shown = 0u32;
    let t = Instant::now();
    let mut last_shown = t;
    while t.elapsed().as_secs_f64() < drag_s.max(0.1) {
        next_edit(job);
        let e = Instant::now();
        loader.load(job.clone(), Trigger::Edit(e));
        if let Some(wait) = edit_hold(Some(e), true, loader.uploading_edit()) {
            if let Ok(o) = loader.results.recv_timeout(wait) {
                win.accept(o)?;
                shown += 1;
                last_shown = Instant::now();
            }
        }
        frames.push(win.frame()?);
        while let Ok(o) = loader.results.try_recv() {
            win.accept(o)?;
            shown += 1;
            last_shown = Instant::now();
        }
    }
    let s = last_shown.duration_since(t).as_secs_f64();
    // Let the last edit finish before the next measurement (or the loader goes).
    if let Ok(o) = loader.results.recv_timeout(Duration::from_secs(30)) {
        win.accept(o)?;
    }
    let rate = if s > 0.0 { f64::from(shown) / s } else { 0.0 };
    Ok((rate, Spread::of(&frames)))
}

#[derive(Default)]
struct Samples {
    layout: Vec<f64>,
    upload: Vec<f64>,
    ready: Vec<f64>,
    to_frame: Vec<f64>,
}

impl Samples {
    fn push(&mut self, layout: f64, upload: f64, ready: f64, to_frame: f64) {
        self.layout.push(layout);
        self.upload.push(upload);
        self.ready.push(ready);
        self.to_frame.push(to_frame);
    }

    fn figures(&self) -> EditFigures {
        EditFigures {
            layout: Spread::of(&self.layout),
            upload: Spread::of(&self.upload),
            ready: Spread::of(&self.ready),
            to_frame: Spread::of(&self.to_frame),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_spread_is_the_median_and_the_ends() {
        let s = Spread::of(&[5.0, 1.0, 3.0, f64::NAN]);
        assert_eq!((s.median, s.min, s.max, s.n), (3.0, 1.0, 5.0, 3));
        assert_eq!(Spread::of(&[4.0, 1.0, 2.0, 3.0]).median, 2.5);
        assert!(Spread::of(&[]).median.is_nan());
    }

    #[test]
    fn an_edit_moves_the_second_corner_east() {
        let a = edited(100.0, 0.0);
        let b = edited(100.0, 10.0);
        let (Shape::Polygon(ra), Shape::Polygon(rb)) = (&a.shape.geometry, &b.shape.geometry)
        else {
            panic!("polygons");
        };
        assert_eq!(ra[0][0], rb[0][0]);
        assert!(rb[0][1][0] > ra[0][1][0]);
        assert_eq!(ra[0][2], rb[0][2]);
    }
}
