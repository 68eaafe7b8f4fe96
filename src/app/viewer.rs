//! `agview view`: the interactive window (winit 0.30, wgpu, egui).
//!
//! The window draws the scene with the same [`Renderer::draw`] as `agview render`, then the
//! panel (egui) on top of it into the same surface view. Work that takes time runs on the
//! loader thread ([`crate::app::reload`]): layout, art, terrain and the GPU upload, at
//! launch (overlapping the window and device creation) and on every reload, so the window
//! keeps drawing the last good scene while a new one is prepared.
//!
//! Faults: a window minimised to 0×0 draws nothing until it has a size again; a lost or
//! outdated surface is configured again (a lost one recreated); GPU errors outside the
//! loader's error scopes are printed, not raised. A load that fails leaves the last good
//! scene on screen with the error in the panel and on stderr
//! (`reload failed: path:line:col: error: …`).
//!
//! Screenshots (F12, `--screenshot`) render the scene again, without the panel, into an
//! offscreen texture of the window's size with the same renderer, and read it back: the
//! image is what the window shows under the panel, and what `agview render` makes with the
//! same camera and size.
//!
//! Timing lines on stderr: `first frame after N ms` (from launch to the first frame with the
//! scene on screen) and `reloaded … in N ms` (from the file change seen to the frame
//! showing the new scene).

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Instant;

use winit::application::ApplicationHandler;
use winit::event::{ElementState, MouseButton, MouseScrollDelta, WindowEvent};
use winit::event_loop::{ActiveEventLoop, ControlFlow, EventLoop, EventLoopProxy};
use winit::keyboard::{KeyCode, PhysicalKey};
use winit::window::{Window, WindowId};

use crate::app::camera_control::{CameraControl, Held};
use crate::app::features::{FeatureIndex, FeatureTable};
use crate::app::layout_args::LayoutArgs;
use crate::app::options::{parse_size, CameraSpec, RenderArgs, TerrainSpec};
use crate::app::panel::{self, Action, Controls, Layers, TerrainKind};
use crate::app::reload::{Described, FileWatcher, Gpu, LoadJob, Loader, Outcome, Ready, Trigger};
use crate::app::screenshot;
use crate::app::settings::Settings;
use crate::diag::Diagnostic;
use crate::document::Document;
use crate::render::{
    DrawStats, FrameChoice, FrameParams, FrameTargets, Framing, GpuContext, Renderer, SceneGpu,
};

/// `agview view` options.
#[derive(Debug, Clone, clap::Args)]
pub struct ViewArgs {
    /// The .agp, .agb, .ags or .agn to view, or a document, every feature in it: DSF text, a
    /// binary DSF (plain or 7-Zip), a WED project (earth.wed.xml or its folder) or an
    /// apt.dat (its airports' pavement).
    // Not needed with a hidden development flag that makes its own scene: empty then (a
    // parser that takes the empty default, which clap's path parser refuses; the default is
    // hidden, so help shows the argument as before).
    #[arg(
        required_unless_present_any = ["synthetic_tile", "synthetic_city"],
        default_value = "",
        hide_default_value = true,
        value_parser = |s: &str| Ok::<PathBuf, std::convert::Infallible>(PathBuf::from(s))
    )]
    pub asset: PathBuf,
    #[command(flatten)]
    pub layout: LayoutArgs,
    #[command(flatten)]
    pub render: RenderArgs,
    /// Window size in pixels.
    #[arg(long, default_value = "1280x720", value_parser = parse_size)]
    pub size: (u32, u32),
    /// Where F12 writes screenshots (default: the current directory).
    #[arg(long, value_name = "DIR")]
    pub screenshot_dir: Option<PathBuf>,
    /// Write a screenshot of the scene (without the panel) to FILE after --frames frames
    /// with the scene on screen, then exit.
    #[arg(long, value_name = "FILE")]
    pub screenshot: Option<PathBuf>,
    /// Frames drawn with the scene before --screenshot is taken.
    #[arg(long, default_value_t = 3, value_name = "N")]
    pub frames: u32,
    /// Include the panel in --screenshot (F12 leaves it out; Shift+F12 keeps it).
    #[arg(long)]
    pub screenshot_panel: bool,
    /// Start with the panel hidden (H shows it).
    #[arg(long)]
    pub no_panel: bool,
    /// Development: show the renderer's synthetic city with this many blocks (100 objects
    /// each) instead of the asset, to check that a city stays interactive.
    #[arg(long, hide = true, value_name = "BLOCKS")]
    pub synthetic_city: Option<usize>,
    /// Development: open the synthetic 1°×1° tile of N autogen features that `agview bench
    /// tile` measures, written to a folder of its own in the temporary folder and opened as a
    /// document (removed on exit), to fly through a tile-sized scene.
    #[arg(long, hide = true, value_name = "N", conflicts_with_all = ["synthetic_city", "asset"])]
    pub synthetic_tile: Option<usize>,
    /// Test hook: destroy the GPU device after N frames with the scene, as a driver reset
    /// would lose it; the viewer opens it again and goes on.
    #[arg(long, hide = true, value_name = "N")]
    pub lose_device_after: Option<u32>,
    /// Test hook: after --frames frames with the scene, copy the next frame the window
    /// presents (panel included unless --no-panel) to FILE, read back from the window's own
    /// surface texture, and exit.
    #[arg(long, hide = true, value_name = "FILE")]
    pub presented_frame: Option<PathBuf>,
    /// Test hook: the first load waits N ms before it starts (a slow document).
    #[arg(long, hide = true, value_name = "MS")]
    pub load_delay_ms: Option<u64>,
    /// Test hook: once the scene is on screen, click the view at window pixel X,Y (as the
    /// left button does: pick the feature under it).
    #[arg(long, hide = true, value_name = "X,Y", value_parser = parse_click)]
    pub click: Option<(f64, f64)>,
    /// Select feature N (an index into `features`) and frame it once the scene is shown, as
    /// a click on its row in the feature table does.
    #[arg(long, value_name = "FEATURE")]
    pub select: Option<usize>,
    /// Test hook: keep running after --screenshot; after the K-th reload caused by a file
    /// change, write `<FILE stem>-reloadK.png` (once a frame shows its outcome); exit after
    /// the N-th.
    #[arg(long, hide = true, value_name = "N")]
    pub exit_after_reloads: Option<u32>,
}

/// `X,Y` in window pixels.
fn parse_click(s: &str) -> Result<(f64, f64), String> {
    let (x, y) = s
        .split_once(',')
        .ok_or_else(|| format!("`{s}`: expected X,Y"))?;
    let n = |v: &str| {
        v.trim()
            .parse::<f64>()
            .map_err(|_| format!("`{s}`: expected X,Y in pixels"))
    };
    Ok((n(x)?, n(y)?))
}

/// Events sent to the window from other threads.
#[derive(Debug, Clone, Copy)]
enum UserEvent {
    /// The loader has an outcome.
    Loaded,
    /// The GPU device was lost (a driver reset, a removed GPU, `destroy`).
    DeviceLost,
}

/// Opens the window and runs until it is closed (or the screenshot hooks are done).
pub fn run(mut args: ViewArgs) -> anyhow::Result<ExitCode> {
    let launch = Instant::now();
    // The synthetic tile is a document like any other: written to the temporary folder (never
    // beside the user's files) and opened as the asset, so the load, the panel and hot
    // reload are the documents' own. It is removed when the window closes.
    let (_synthetic_doc, synthetic_tile) = match args.synthetic_tile {
        Some(n) => {
            let assets = crate::document::synthetic::sample_assets().map_err(anyhow::Error::msg)?;
            let tile = crate::document::synthetic::synthetic_tile(n, &assets);
            let doc = crate::document::synthetic::TempDocument::write("synthetic-tile", &tile.text)
                .map_err(|e| {
                    anyhow::anyhow!("writing the synthetic tile to the temporary folder: {e}")
                })?;
            eprintln!("synthetic tile of {n} feature(s): {}", doc.path.display());
            args.asset = doc.path.clone();
            (Some(doc), Some(tile))
        }
        None => (None, None),
    };
    if let Some(shot) = &args.screenshot {
        let dir = match shot.parent() {
            Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
            _ => PathBuf::from("."),
        };
        if !dir.is_dir() {
            anyhow::bail!(
                "--screenshot {}: {} is not a directory",
                shot.display(),
                dir.display()
            );
        }
    }
    if let Some(d) = &args.screenshot_dir {
        if !d.is_dir() {
            eprintln!(
                "agview: warning: --screenshot-dir {}: not a directory; F12 will say so",
                d.display()
            );
        }
    }
    let event_loop = EventLoop::<UserEvent>::with_user_event()
        .build()
        .map_err(|e| anyhow::anyhow!("cannot open a window: {e} (no display? set DISPLAY or WAYLAND_DISPLAY, or run under xvfb-run)"))?;
    let proxy: EventLoopProxy<UserEvent> = event_loop.create_proxy();
    let loader = Loader::spawn(move || {
        let _ = proxy.send_event(UserEvent::Loaded);
    })?;
    let inputs = args
        .layout
        .inputs()
        .map_err(|e| anyhow::anyhow!("{}", Diagnostic::error_file(&args.asset, e)))?;
    let job = LoadJob {
        asset: args.asset.clone(),
        inputs,
        render: args.render.clone(),
        synthetic_city: args.synthetic_city,
        load: crate::document::LoadOptions {
            threads: 0,
            progress: Some(Default::default()),
            ground: None,
        },
        startup_delay: args.load_delay_ms.map(std::time::Duration::from_millis),
    };
    loader.load(job.clone(), Trigger::Startup);
    let mut watcher = FileWatcher::new(loader.reloader());
    let mut first_watch = vec![args.asset.clone()];
    first_watch.extend(job.inputs.polygon_path().map(PathBuf::from));
    watcher.set_files(&first_watch);
    let mut app = App::new(
        args,
        launch,
        loader,
        watcher,
        job,
        event_loop.create_proxy(),
    );
    app.synthetic_tile = synthetic_tile;
    event_loop.set_control_flow(ControlFlow::Wait);
    event_loop.run_app(&mut app)?;
    let (n, sum, max) = app.ui_timing;
    if n > 0 {
        eprintln!(
            "panel: {n} frame(s), UI mean {:.2} ms, slowest {max:.2} ms a frame; {} frame(s) \
             presented while loading; side panel {:.0} of {} px",
            sum / f64::from(n),
            app.frames_while_loading,
            app.panel_width.unwrap_or(0.0) * app.egui_ctx.pixels_per_point(),
            app.gfx.as_ref().map_or(0, |g| g.config.width),
        );
    }
    if app.panel_width.is_some() && app.panel_width != app.remembered.panel_width {
        let settings = Settings {
            panel_width: app.panel_width,
        };
        if let Err(e) = settings.save() {
            eprintln!("agview: warning: the panel width is not remembered: {e}");
        }
    }
    let (n, sum, max) = app.timing;
    if n > 0 {
        eprintln!(
            "{} frame(s) with the scene; back to back: mean {:.1} ms, slowest {max:.1} ms; \
             last frame {} draw call(s), {} triangle(s)",
            app.frames_with_scene,
            sum / f64::from(n),
            app.draw.draw_calls,
            app.draw.triangles
        );
    }
    if let Some(e) = app.fatal.take() {
        eprintln!("agview: error: {e}");
        return Ok(ExitCode::from(1));
    }
    Ok(app.exit_code)
}

/// The scene on screen.
struct Shown {
    view: Document,
    art: Arc<crate::art::ArtSet>,
    gpu: SceneGpu,
    /// What the default view frames.
    framing: Framing,
    /// The messages of this scene: reading, layout, art, upload.
    messages: Vec<Diagnostic>,
    /// The feature table's index of the features and messages.
    index: FeatureIndex,
    /// Each feature's box (highlight, picking).
    boxes: Vec<Option<([f32; 3], [f32; 3])>>,
}

/// The window's GPU state.
struct Gfx {
    gpu: Arc<Gpu>,
    surface: wgpu::Surface<'static>,
    config: wgpu::SurfaceConfiguration,
    targets: FrameTargets,
    egui: egui_wgpu::Renderer,
}

struct App {
    args: ViewArgs,
    launch: Instant,
    loader: Loader,
    watcher: FileWatcher,
    job: LoadJob,
    window: Option<Arc<Window>>,
    gfx: Option<Gfx>,
    egui_ctx: egui::Context,
    egui_state: Option<egui_winit::State>,
    shown: Option<Shown>,
    /// The last load's error (the last good scene stays).
    error: Option<String>,
    loading: bool,
    cam: Option<CameraControl>,
    /// The synthetic tile shown (`--synthetic-tile`): the window opens over its largest
    /// town, as `bench tile` measures it, rather than on the whole tile from 160 km.
    synthetic_tile: Option<crate::document::synthetic::SyntheticTile>,
    controls: Controls,
    minimized: bool,
    last_frame: Instant,
    frame_ms: f32,
    draw: DrawStats,
    status: Option<(String, bool)>,
    cursor: Option<(f64, f64)>,
    dragging: Option<MouseButton>,
    /// Frames presented with a scene.
    frames_with_scene: u32,
    first_frame_reported: bool,
    /// A file-triggered reload whose outcome the next frame shows: (its number, when the
    /// change was seen, whether it loaded).
    reload_to_report: Option<(u32, Option<Instant>, bool)>,
    reloads: u32,
    shot_taken: bool,
    /// `--presented-frame` is written.
    presented_taken: bool,
    /// Wakes the event loop from other threads (the device-lost callback).
    proxy: EventLoopProxy<UserEvent>,
    /// How many devices were opened; the device-lost callback stores its device's number
    /// in `device_lost` (0: none lost), so dropping a replaced device is not a new loss.
    device_generation: u64,
    device_lost: Arc<AtomicU64>,
    /// `--lose-device-after` has destroyed the device.
    device_destroyed: bool,
    /// `--exit-after-reloads` is reached; exit once `--screenshot` is written.
    exit_pending: bool,
    /// Frame intervals while drawing continuously: count, sum and largest, milliseconds.
    timing: (u32, f64, f64),
    /// The last frame asked for the next one at once.
    continuous: bool,
    /// The panel as last painted (for screenshots with the panel).
    last_ui: Option<(Vec<egui::ClippedPrimitive>, [u32; 2], f32)>,
    exit_code: ExitCode,
    /// An error that ends the program (no GPU, no window).
    fatal: Option<String>,
    /// The feature table's filter, sort and selection.
    table: FeatureTable,
    /// Counts the scenes shown (the table works its rows out again for a new one).
    generation: u64,
    /// The side panel's width as the user left it (remembered between runs).
    panel_width: Option<f32>,
    remembered: Settings,
    /// The panel's time last frame, and over the run: count, sum and largest (ms).
    ui_ms: f32,
    ui_timing: (u32, f64, f64),
    /// Frames presented before the whole scene was on screen (a preview's included).
    frames_while_loading: u32,
    /// The scene shown is a preview of a large document's first features.
    partial: bool,
    /// The user has moved the camera (a whole document after its preview keeps the view).
    touched: bool,
    /// Where the left button went down (a click picks when it comes up there).
    press_at: Option<(f64, f64)>,
}

impl App {
    fn new(
        args: ViewArgs,
        launch: Instant,
        loader: Loader,
        watcher: FileWatcher,
        job: LoadJob,
        proxy: EventLoopProxy<UserEvent>,
    ) -> Self {
        let r = &args.render;
        let (terrain, heightmap) = match &r.terrain {
            TerrainSpec::Flat => (TerrainKind::Flat, String::new()),
            TerrainSpec::Hills => (TerrainKind::Hills, String::new()),
            TerrainSpec::Heightmap(p) => (TerrainKind::Heightmap, p.display().to_string()),
        };
        let controls = Controls {
            seed: job.inputs.seed,
            density: r.density,
            terrain,
            heightmap,
            exaggeration: r.exaggeration,
            rect: job.inputs.rect,
            layers: Layers::default(),
            overlays: r.overlays(),
            hard_lod_switch: r.lod_switch == crate::render::LodSwitch::Hard,
            sun: r.sun,
            hour: r.sun.nearest_hour(),
            shadows: r.shadows,
            show_panel: !args.no_panel,
            show_features: true,
        };
        let remembered = Settings::load();
        App {
            launch,
            synthetic_tile: None,
            loader,
            watcher,
            job,
            window: None,
            gfx: None,
            egui_ctx: egui::Context::default(),
            egui_state: None,
            shown: None,
            error: None,
            loading: true,
            cam: None,
            controls,
            minimized: false,
            last_frame: Instant::now(),
            frame_ms: 0.0,
            draw: DrawStats::default(),
            status: None,
            cursor: None,
            dragging: None,
            frames_with_scene: 0,
            first_frame_reported: false,
            reload_to_report: None,
            reloads: 0,
            shot_taken: false,
            presented_taken: false,
            proxy,
            device_generation: 0,
            device_lost: Arc::new(AtomicU64::new(0)),
            device_destroyed: false,
            exit_pending: false,
            last_ui: None,
            timing: (0, 0.0, 0.0),
            continuous: false,
            exit_code: ExitCode::SUCCESS,
            fatal: None,
            table: FeatureTable::default(),
            generation: 0,
            panel_width: remembered.panel_width,
            remembered,
            ui_ms: 0.0,
            ui_timing: (0, 0.0, 0.0),
            frames_while_loading: 0,
            partial: false,
            touched: false,
            press_at: None,
            args,
        }
    }

    fn frame_params(&self) -> FrameParams {
        let c = &self.controls;
        let camera = match (&self.cam, &self.shown) {
            (Some(cam), _) => cam.camera,
            (None, Some(s)) => self.args.render.camera_in(&s.framing, self.aspect()),
            (None, None) => FrameParams::default().camera,
        };
        FrameParams {
            camera,
            density: c.density,
            overlays: c.overlays,
            show_terrain: c.layers.terrain,
            show_tiles: c.layers.tiles,
            show_objects: c.layers.objects,
            show_facades: c.layers.facades,
            show_trees: c.layers.trees,
            show_draped: c.layers.draped,
            show_lines: c.layers.lines,
            show_pavement: c.layers.pavement,
            show_markings: c.layers.markings,
            lod_switch: if c.hard_lod_switch {
                crate::render::LodSwitch::Hard
            } else {
                crate::render::LodSwitch::Fade
            },
            sun: c.sun,
            shadows: c.shadows,
            // The haze follows the framing (as `render`'s does), not the flying camera.
            visibility_m: self
                .shown
                .as_ref()
                .map_or(FrameParams::default().visibility_m, |s| {
                    s.framing.haze_visibility(
                        self.args
                            .render
                            .camera_in(&s.framing, self.aspect())
                            .lod_eye(),
                    )
                }),
            ..FrameParams::default()
        }
    }

    /// Sends the current job (with the panel's seed, rectangle and terrain) to the loader.
    fn relayout(&mut self) {
        let c = &self.controls;
        self.job.inputs.seed = c.seed;
        if let Some(rect) = c.rect {
            self.job.inputs.rect = Some(rect);
            self.job.inputs.polygon = None;
        }
        let before = self.job.clone();
        self.job.render.terrain = match c.terrain {
            TerrainKind::Flat => TerrainSpec::Flat,
            TerrainKind::Hills => TerrainSpec::Hills,
            TerrainKind::Heightmap => TerrainSpec::Heightmap(PathBuf::from(c.heightmap.trim())),
        };
        if self.new_terrain_in_place(&before) {
            self.request_redraw();
            return;
        }
        self.loading = true;
        self.loader.load(self.job.clone(), Trigger::Params);
        self.request_redraw();
    }

    /// When only the terrain changed and the layout does not depend on it (no `SLOPE_LIMIT`
    /// screening), puts the shown scene on the new terrain without loading it again: the
    /// height field is rewritten and the objects are placed on it on the GPU
    /// ([`SceneGpu::set_terrain`]); where the new terrain has another grid, the laid-out
    /// scene is uploaded again, still without a new layout. False when a load is needed.
    fn new_terrain_in_place(&mut self, before: &LoadJob) -> bool {
        let same_layout = self.job.inputs == before.inputs
            && self.job.asset == before.asset
            && self.job.synthetic_city.is_none()
            && before.synthetic_city.is_none();
        let (Some(s), Some(g)) = (self.shown.as_mut(), self.gfx.as_ref()) else {
            return false;
        };
        if !same_layout || s.view.terrain_dependent || self.loading {
            return false;
        }
        let scene = &s.view.loaded.scene;
        let Ok(terrain) = self.job.render.terrain_for(scene) else {
            return false; // the loader reports the error
        };
        let (ctx, renderer) = (&g.gpu.ctx, &g.gpu.renderer);
        match s.gpu.set_terrain(ctx, renderer, &terrain) {
            Ok(true) => {}
            Ok(false) => match SceneGpu::new(ctx, renderer, scene, &s.art, &terrain) {
                Ok(gpu) => s.gpu = gpu,
                Err(_) => return false,
            },
            Err(_) => return false,
        }
        s.framing = self
            .job
            .render
            .framing(scene, Some(&s.art), Some(&terrain))
            .with_ground(Arc::new(terrain));
        if let Some(c) = &mut self.cam {
            c.set_framing(s.framing.clone());
        }
        true
    }

    fn request_redraw(&self) {
        if let Some(w) = &self.window {
            w.request_redraw();
        }
    }

    fn take_outcomes(&mut self, event_loop: &ActiveEventLoop) {
        while let Ok(o) = self.loader.results.try_recv() {
            self.loading = false;
            match o {
                Outcome::Ready(r) => self.accept(*r),
                Outcome::Failed {
                    error,
                    files,
                    trigger,
                } => {
                    match trigger {
                        Trigger::Startup => eprintln!("{error}"),
                        _ => eprintln!("reload failed: {error}"),
                    }
                    // Keep watching what the last good scene used, and the asset.
                    let mut watch = self.watcher.files();
                    watch.extend(files);
                    self.watcher.set_files(&watch);
                    self.error = Some(error);
                    if let Trigger::Files(t) = trigger {
                        self.reloads += 1;
                        self.reload_to_report = Some((self.reloads, Some(t), false));
                    }
                    if trigger == Trigger::Startup
                        && self.args.screenshot.is_some()
                        && self.args.exit_after_reloads.is_none()
                    {
                        self.exit_code = ExitCode::from(1);
                        self.fatal = Some("the asset did not load; no screenshot taken".into());
                        event_loop.exit();
                    }
                }
            }
        }
        self.request_redraw();
    }

    /// The window's width over its height (4:3 before it has a surface): what the default
    /// view is fitted to.
    fn aspect(&self) -> f32 {
        self.gfx.as_ref().map_or(4.0 / 3.0, |g| {
            g.config.width as f32 / g.config.height.max(1) as f32
        })
    }

    fn accept(&mut self, r: Ready) {
        let Ready {
            view,
            art,
            gpu,
            described,
            uploaded_on,
            framing,
            files,
            trigger,
            load_ms,
            upload_ms,
            partial,
        } = r;
        // A preview: shown while the loader goes on; the whole document follows, framed
        // afresh unless the camera was moved meanwhile. A reload is framed afresh too while
        // the camera is still the default view: the view fits what the scene now holds
        // (an edit that makes a building taller), as a new `agview render` would.
        let after_preview = self.partial && !partial;
        let reloaded = matches!(trigger, Trigger::Files(_));
        if (after_preview || reloaded) && !self.touched {
            self.cam = None;
        }
        self.partial = partial;
        if partial {
            self.loading = true;
            eprintln!(
                "showing the first {} feature(s) after {load_ms:.0} ms while the rest is laid out",
                view.loaded.scene.features.len()
            );
        }
        let Described {
            messages,
            index,
            boxes,
        } = described;
        if trigger == Trigger::Startup && !partial {
            for m in &messages {
                eprintln!("{m}");
            }
            eprintln!(
                "loaded {} in {load_ms:.0} ms (upload {upload_ms:.0} ms): {} tile(s), {} object(s), {} facade(s), {} tree(s)",
                view.loaded.scene.asset,
                view.loaded.scene.stats.tiles,
                view.loaded.scene.stats.objects,
                view.loaded.scene.stats.facades,
                view.loaded.scene.stats.trees
            );
        }
        self.watcher.set_files(&files);
        match &mut self.cam {
            Some(c) => c.set_framing(framing.clone()),
            None => {
                let camera = match (&self.synthetic_tile, self.args.render.camera) {
                    (Some(tile), CameraSpec::Orbit) => {
                        super::bench_tile::town_camera(tile, &view.loaded.scene)
                    }
                    _ => self.args.render.camera_in(&framing, self.aspect()),
                };
                self.cam = Some(CameraControl::new(camera, framing.clone()))
            }
        }
        if let Trigger::Files(t) = trigger {
            self.reloads += 1;
            self.reload_to_report = Some((self.reloads, Some(t), true));
            eprintln!(
                "reload: laid out in {load_ms:.0} ms, uploaded in {upload_ms:.0} ms; \
                 ready {:.0} ms after the change",
                t.elapsed().as_secs_f64() * 1e3
            );
        }
        self.error = None;
        self.generation += 1;
        if self
            .table
            .selected
            .is_some_and(|i| i >= view.loaded.scene.features.len())
        {
            self.table.selected = None;
        }
        self.shown = Some(Shown {
            view,
            art,
            gpu,
            messages,
            framing,
            index,
            boxes,
        });
        if let (Trigger::Startup, Some(i), false) = (trigger, self.args.select, partial) {
            self.act(Action::FrameFeature(i));
        }
        // Uploaded with a device lost since: upload it again with the new one.
        if self
            .gfx
            .as_ref()
            .is_some_and(|g| !Arc::ptr_eq(&g.gpu, &uploaded_on))
        {
            self.upload_shown_again();
        }
    }

    /// Opens the GPU device for `window`: the surface, the pipelines, the frame targets and
    /// the panel's renderer; the loader thread uploads with the new device from now on.
    fn open_gfx(&mut self, window: &Arc<Window>) -> Result<(), String> {
        let size = window.inner_size();
        let (surface, ctx) = open_gpu(window)?;
        ctx.device.on_uncaptured_error(Arc::new(|e| {
            eprintln!("agview: GPU error: {e}");
        }));
        self.device_generation += 1;
        let (generation, lost, proxy) = (
            self.device_generation,
            self.device_lost.clone(),
            self.proxy.clone(),
        );
        ctx.device
            .set_device_lost_callback(move |_reason, _message| {
                lost.store(generation, Ordering::SeqCst);
                let _ = proxy.send_event(UserEvent::DeviceLost);
            });
        let caps = surface.get_capabilities(&ctx.adapter);
        let read_presented = self.args.presented_frame.is_some();
        let format = caps
            .formats
            .iter()
            .copied()
            .find(|f| f.is_srgb())
            .or_else(|| caps.formats.first().copied())
            .ok_or("the window's surface offers no colour format")?;
        // `--presented-frame` reads the surface texture back: it must be a copy source.
        let mut usage = wgpu::TextureUsages::RENDER_ATTACHMENT;
        if read_presented && caps.usages.contains(wgpu::TextureUsages::COPY_SRC) {
            usage |= wgpu::TextureUsages::COPY_SRC;
        }
        let config = wgpu::SurfaceConfiguration {
            usage,
            format,
            color_space: wgpu::SurfaceColorSpace::Auto,
            width: size.width.max(1),
            height: size.height.max(1),
            present_mode: wgpu::PresentMode::Fifo,
            desired_maximum_frame_latency: 2,
            alpha_mode: caps
                .alpha_modes
                .first()
                .copied()
                .unwrap_or(wgpu::CompositeAlphaMode::Auto),
            view_formats: vec![],
        };
        surface.configure(&ctx.device, &config);
        let samples = Renderer::best_sample_count(&ctx.adapter, format);
        let renderer = ctx
            .checked("building the pipelines", || {
                Renderer::new(&ctx, format, samples)
            })
            .map_err(|e| e.to_string())?;
        eprintln!("agview: {} on {}", renderer.culling().1, ctx.describe());
        let targets = FrameTargets::new(&ctx.device, &renderer, config.width, config.height);
        let egui =
            egui_wgpu::Renderer::new(&ctx.device, format, egui_wgpu::RendererOptions::default());
        let gpu = Arc::new(Gpu { ctx, renderer });
        self.loader.set_gpu(gpu.clone());
        self.minimized = size.width == 0 || size.height == 0;
        self.gfx = Some(Gfx {
            gpu,
            surface,
            config,
            targets,
            egui,
        });
        Ok(())
    }

    /// The panel's egui state for `window`, with the fonts; its textures go to the panel
    /// renderer of the current device with the next frame.
    fn start_panel(&mut self, window: &Arc<Window>) {
        if let Err(e) = install_fonts(&self.egui_ctx) {
            eprintln!("agview: warning: {e}");
        }
        let max_side = self.gfx.as_ref().map_or(8192, |g| {
            g.gpu.ctx.device.limits().max_texture_dimension_2d as usize
        });
        self.egui_state = Some(egui_winit::State::new(
            self.egui_ctx.clone(),
            egui::ViewportId::ROOT,
            window.as_ref(),
            Some(window.scale_factor() as f32),
            window.theme(),
            Some(max_side),
        ));
    }

    /// Whether the device is lost (a surface that fails may be why): polls it so its
    /// device-lost callback runs, and recovers when it did.
    fn device_was_lost(&mut self, event_loop: &ActiveEventLoop) -> bool {
        if let Some(g) = &self.gfx {
            let _ = g.gpu.ctx.device.poll(wgpu::PollType::Poll);
        }
        if self.device_lost.load(Ordering::SeqCst) != self.device_generation {
            return false;
        }
        self.recover_device(event_loop);
        true
    }

    /// After the device was lost: opens a new one and uploads the shown scene again (its
    /// layout and art are kept), so the viewer goes on where it was.
    fn recover_device(&mut self, event_loop: &ActiveEventLoop) {
        let lost = self.device_lost.swap(0, Ordering::SeqCst);
        if lost == 0 || lost != self.device_generation {
            return; // none lost, or a device already replaced
        }
        let Some(window) = self.window.clone() else {
            return;
        };
        eprintln!("agview: the GPU device was lost; opening it again");
        let started = Instant::now();
        self.gfx = None;
        if let Err(e) = self.open_gfx(&window) {
            eprintln!("agview: error: the GPU device was lost and cannot be opened again: {e}");
            self.exit_code = ExitCode::from(1);
            self.fatal = Some(e);
            event_loop.exit();
            return;
        }
        // egui sends its textures (the font atlas) once, to the renderer of the lost
        // device: a new context sends them again to the new one.
        self.egui_ctx = egui::Context::default();
        self.last_ui = None;
        self.start_panel(&window);
        self.upload_shown_again();
        eprintln!(
            "agview: GPU device opened again and the scene uploaded in {:.0} ms",
            started.elapsed().as_secs_f64() * 1e3
        );
        self.request_redraw();
    }

    /// Uploads the shown scene again with the current device (after the one it was
    /// uploaded with was lost).
    fn upload_shown_again(&mut self) {
        let (Some(s), Some(g)) = (self.shown.as_mut(), self.gfx.as_ref()) else {
            return;
        };
        let scene = &s.view.loaded.scene;
        let terrain = match s.framing.terrain() {
            Some(t) => t.clone(),
            None => match self.job.render.terrain_for(scene) {
                Ok(t) => Arc::new(t),
                Err(e) => {
                    self.error = Some(e);
                    self.shown = None;
                    return;
                }
            },
        };
        match SceneGpu::new(&g.gpu.ctx, &g.gpu.renderer, scene, &s.art, &terrain) {
            Ok(gpu) => s.gpu = gpu,
            Err(e) => {
                let e = format!("uploading the scene to the new GPU device: {e}");
                eprintln!("agview: error: {e}");
                self.error = Some(e);
                self.shown = None;
            }
        }
    }

    fn init_window(&mut self, event_loop: &ActiveEventLoop) -> Result<(), String> {
        let (w, h) = self.args.size;
        let title = format!("agview — {}", self.args.asset.display());
        let attrs = Window::default_attributes()
            .with_title(title)
            .with_inner_size(winit::dpi::PhysicalSize::new(w, h));
        let window = Arc::new(
            event_loop
                .create_window(attrs)
                .map_err(|e| format!("cannot open a window: {e}"))?,
        );
        self.open_gfx(&window)?;
        self.start_panel(&window);
        if let Some(g) = &self.gfx {
            warm_up(g.gpu.clone());
        }
        window.request_redraw();
        self.window = Some(window);
        Ok(())
    }

    fn resize(&mut self, width: u32, height: u32) {
        self.minimized = width == 0 || height == 0;
        if self.minimized {
            return;
        }
        if let Some(g) = &mut self.gfx {
            if g.config.width == width && g.config.height == height {
                return;
            }
            g.config.width = width;
            g.config.height = height;
            g.surface.configure(&g.gpu.ctx.device, &g.config);
            g.targets = FrameTargets::new(&g.gpu.ctx.device, &g.gpu.renderer, width, height);
        }
        self.request_redraw();
    }

    /// Configures the surface again (outdated), or creates it again (lost).
    fn recover_surface(&mut self, lost: bool) {
        let (Some(g), Some(w)) = (&mut self.gfx, &self.window) else {
            return;
        };
        if lost {
            match g.gpu.ctx.instance.create_surface(w.clone()) {
                Ok(s) => g.surface = s,
                Err(e) => {
                    eprintln!("agview: the window's surface was lost and cannot be recreated: {e}");
                    return;
                }
            }
        }
        let size = w.inner_size();
        if size.width == 0 || size.height == 0 {
            self.minimized = true;
            return;
        }
        g.config.width = size.width;
        g.config.height = size.height;
        g.surface.configure(&g.gpu.ctx.device, &g.config);
        g.targets = FrameTargets::new(&g.gpu.ctx.device, &g.gpu.renderer, size.width, size.height);
        w.request_redraw();
    }

    fn redraw(&mut self, event_loop: &ActiveEventLoop) {
        let now = Instant::now();
        let dt = now.duration_since(self.last_frame).as_secs_f32();
        self.last_frame = now;
        // Back-to-back frames with the scene: their interval is the frame time.
        if self.frames_with_scene >= 2 && self.continuous && dt < 60.0 {
            let ms = f64::from(dt) * 1e3;
            self.timing = (self.timing.0 + 1, self.timing.1 + ms, self.timing.2.max(ms));
        }
        let moving = self.cam.as_mut().is_some_and(|c| c.update(dt));
        if self.minimized || self.gfx.is_none() {
            return;
        }
        let frame = {
            let Some(g) = self.gfx.as_ref() else { return };
            match g.surface.get_current_texture() {
                wgpu::CurrentSurfaceTexture::Success(t) => (t, false),
                wgpu::CurrentSurfaceTexture::Suboptimal(t) => (t, true),
                // Try again soon; an occluded window is redrawn when it shows again.
                wgpu::CurrentSurfaceTexture::Timeout => {
                    self.request_redraw();
                    return;
                }
                wgpu::CurrentSurfaceTexture::Occluded => return,
                wgpu::CurrentSurfaceTexture::Outdated => {
                    self.recover_surface(false);
                    return;
                }
                wgpu::CurrentSurfaceTexture::Lost => {
                    if !self.device_was_lost(event_loop) {
                        self.recover_surface(true);
                    }
                    return;
                }
                wgpu::CurrentSurfaceTexture::Validation => {
                    if !self.device_was_lost(event_loop) {
                        eprintln!("agview: the window's surface reported a validation error");
                        self.recover_surface(false);
                    }
                    return;
                }
            }
        };
        let (frame, suboptimal) = frame;
        let params = self.frame_params();
        let presented_due = self.presented_due();
        let view = frame
            .texture
            .create_view(&wgpu::TextureViewDescriptor::default());
        let Some(g) = self.gfx.as_mut() else { return };
        let ctx = &g.gpu.ctx;
        let (w, h) = (g.config.width, g.config.height);
        let mut encoder = ctx
            .device
            .create_command_encoder(&wgpu::CommandEncoderDescriptor {
                label: Some("window frame"),
            });
        let draw = match &mut self.shown {
            Some(s) => {
                s.gpu.set_exaggeration(self.controls.exaggeration);
                s.gpu
                    .prepare_overlays(ctx, &s.view.loaded.scene, params.overlays);
                s.gpu.prepare(ctx, &params, w, h);
                g.gpu.renderer.draw(&mut encoder, &view, &g.targets, &s.gpu)
            }
            None => {
                clear(&mut encoder, &view, params.horizon());
                DrawStats::default()
            }
        };
        self.draw = draw;

        let mut actions = Vec::new();
        let mut repaint_soon = false;
        if !self.controls.show_panel {
            self.last_ui = None;
        }
        let mut extra = Vec::new();
        if self.controls.show_panel {
            if let (Some(state), Some(window)) = (self.egui_state.as_mut(), self.window.as_ref()) {
                let raw = state.take_egui_input(window);
                // Borrowed: a document's thousands of warnings are not copied every frame.
                let messages: &[Diagnostic] = self.shown.as_ref().map_or(&[], |s| &s.messages);
                let watched = self.watcher.files().len();
                let adapter = format!(
                    "{}, culling {}",
                    g.gpu.ctx.describe(),
                    self.shown
                        .as_ref()
                        .and_then(|s| s.gpu.culling())
                        .map_or("-".to_string(), |c| c.to_string())
                );
                let cam = self.cam.as_ref();
                let info = panel::Info {
                    asset: &self.args.asset,
                    view: self.shown.as_ref().map(|s| &s.view),
                    messages,
                    error: self.error.as_deref(),
                    loading: self.loading,
                    progress: self.job.load.progress.as_ref().map_or((0, 0), |p| p.get()),
                    stage: self
                        .job
                        .load
                        .progress
                        .as_ref()
                        .map_or(crate::progress::Stage::Reading, |p| p.stage()),
                    mode: cam.map_or(crate::app::camera_control::Mode::Orbit, |c| c.mode()),
                    speed: cam.map_or(0.0, |c| c.speed),
                    frame_ms: self.frame_ms,
                    draw,
                    gpu: self.shown.as_ref().map(|s| s.gpu.stats()),
                    adapter: &adapter,
                    status: self.status.as_ref(),
                    watched,
                    watch_error: self.watcher.error.as_deref(),
                    index: self.shown.as_ref().map(|s| &s.index),
                    generation: self.generation,
                    ui_ms: self.ui_ms,
                    camera: cam.and_then(|c| c.camera.as_argument()),
                };
                let controls = &mut self.controls;
                let table = &mut self.table;
                let width = &mut self.panel_width;
                let highlight = self
                    .shown
                    .as_ref()
                    .zip(self.cam.as_ref())
                    .and_then(|(s, c)| {
                        let b = s.boxes.get(table.selected?).copied().flatten()?;
                        Some((b, c.camera))
                    });
                let ui_start = Instant::now();
                let out = self.egui_ctx.run_ui(raw, |ui| {
                    actions = panel::show(ui, controls, &info, table, width);
                    // What the panels leave of the window: the view the outline may cover.
                    let view_rect = ui.available_rect_before_wrap();
                    if let Some((b, camera)) = highlight {
                        draw_highlight(ui, view_rect, b, &camera);
                    }
                });
                state.handle_platform_output(window, out.platform_output);
                repaint_soon = out
                    .viewport_output
                    .get(&egui::ViewportId::ROOT)
                    .is_some_and(|v| v.repaint_delay.is_zero());
                let jobs = self.egui_ctx.tessellate(out.shapes, out.pixels_per_point);
                let ui_ms = ui_start.elapsed().as_secs_f64() * 1e3;
                self.ui_ms = ui_ms as f32;
                if self.shown.is_some() {
                    let t = &mut self.ui_timing;
                    *t = (t.0 + 1, t.1 + ui_ms, t.2.max(ui_ms));
                }
                let mut textures = out.textures_delta;
                for (id, deltas) in textures.set.drain() {
                    for delta in &deltas {
                        g.egui.update_texture(&ctx.device, &ctx.queue, id, delta);
                    }
                }
                let sd = egui_wgpu::ScreenDescriptor {
                    size_in_pixels: [w, h],
                    pixels_per_point: out.pixels_per_point,
                };
                extra = paint_panel(&mut g.egui, ctx, &mut encoder, &view, &jobs, &sd);
                self.last_ui = Some((jobs, sd.size_in_pixels, sd.pixels_per_point));
                for id in textures.free.drain() {
                    g.egui.free_texture(&id);
                }
            }
        }
        // `--presented-frame`: this frame, as it goes to the window, copied for reading.
        let presented = presented_due.then(|| {
            let copy = ReadBack::copy(ctx, &mut encoder, &frame.texture);
            (copy, g.config.format, g.config.usage)
        });
        ctx.queue
            .submit(extra.into_iter().chain([encoder.finish()]));
        if let Some(window) = &self.window {
            window.pre_present_notify();
        }
        ctx.queue.present(frame);
        if let Some((copy, format, usage)) = presented {
            self.presented_taken = true;
            let result = if usage.contains(wgpu::TextureUsages::COPY_SRC) {
                copy.read(&g.gpu.ctx, format)
            } else {
                Err("the window's surface cannot be read back (no COPY_SRC)".to_string())
            };
            self.write_presented(result);
        }
        if suboptimal {
            self.recover_surface(false);
        }
        if self.shown.is_none() || self.partial {
            self.frames_while_loading += 1;
        }
        let spent = now.elapsed().as_secs_f32() * 1000.0;
        self.frame_ms = if self.frame_ms == 0.0 {
            spent
        } else {
            self.frame_ms * 0.9 + spent * 0.1
        };
        self.after_frame(event_loop);
        for a in actions {
            self.act(a);
        }
        let held = self.cam.as_ref().is_some_and(|c| c.held.any_motion());
        self.continuous = moving || held || repaint_soon || self.loading || self.wants_frames();
        if self.continuous {
            self.request_redraw();
        }
    }

    /// Whether the frame being drawn is the one `--presented-frame` reads back.
    fn presented_due(&self) -> bool {
        self.args.presented_frame.is_some()
            && !self.presented_taken
            && self.shown.is_some()
            && self.frames_with_scene >= self.args.frames
    }

    /// Writes what `--presented-frame` read back, and ends the program.
    fn write_presented(&mut self, result: Result<image::RgbaImage, String>) {
        let Some(path) = self.args.presented_frame.clone() else {
            return;
        };
        match result.and_then(|img| {
            crate::render::write_png(&path, &img)
                .map(|()| img.dimensions())
                .map_err(|e| format!("writing {}: {e}", path.display()))
        }) {
            Ok((w, h)) => eprintln!("wrote {} ({w}x{h}, the presented frame)", path.display()),
            Err(e) => {
                eprintln!("agview: error: presented frame: {e}");
                self.exit_code = ExitCode::from(1);
            }
        }
        self.exit_pending = true;
    }

    /// Whether the screenshot hooks still need frames.
    fn wants_frames(&self) -> bool {
        (self.args.presented_frame.is_some() && !self.presented_taken)
            || (self.args.screenshot.is_some() && !self.shot_taken)
            || self.reload_to_report.is_some()
            || self.exit_pending
    }

    /// Timing lines and the test hooks, after a frame was presented.
    fn after_frame(&mut self, event_loop: &ActiveEventLoop) {
        if self.shown.is_none() {
            if !self.first_frame_reported && self.error.is_some() {
                self.first_frame_reported = true;
                eprintln!(
                    "first frame after {} ms (no scene: the asset did not load)",
                    self.launch.elapsed().as_millis()
                );
            }
        } else if self.partial {
            // A preview: the first frame is reported, but screenshots wait for the whole.
            if !self.first_frame_reported {
                self.first_frame_reported = true;
                eprintln!(
                    "first frame after {} ms (a preview)",
                    self.launch.elapsed().as_millis()
                );
            }
        } else {
            self.frames_with_scene += 1;
            if self.frames_with_scene == 1 {
                if let Some(at) = self.args.click {
                    self.pick(at, false);
                }
            }
            if self
                .args
                .lose_device_after
                .is_some_and(|n| self.frames_with_scene >= n && !self.device_destroyed)
            {
                self.device_destroyed = true;
                if let Some(g) = &self.gfx {
                    eprintln!("agview: test hook: destroying the GPU device");
                    g.gpu.ctx.device.destroy();
                    let _ = g.gpu.ctx.device.poll(wgpu::PollType::Poll);
                }
            }
            if !self.first_frame_reported {
                self.first_frame_reported = true;
                eprintln!("first frame after {} ms", self.launch.elapsed().as_millis());
            }
        }
        if let Some((k, t, ok)) = self.reload_to_report.take() {
            if let Some(t) = t {
                let ms = t.elapsed().as_secs_f64() * 1e3;
                if ok {
                    eprintln!(
                        "reloaded {} in {ms:.0} ms (file change to frame)",
                        self.args.asset.display()
                    );
                } else {
                    eprintln!("reload failed after {ms:.0} ms (file change to frame); the last good scene stays");
                }
            }
            if let Some(shot) = self.args.screenshot.clone() {
                let stem = shot
                    .file_stem()
                    .map(|s| s.to_string_lossy().to_string())
                    .unwrap_or_else(|| "shot".into());
                let path = shot.with_file_name(format!("{stem}-reload{k}.png"));
                self.write_shot(&path);
            }
            if self.args.exit_after_reloads.is_some_and(|n| k >= n) {
                self.exit_pending = true;
            }
        }
        if let Some(shot) = self.args.screenshot.clone() {
            if !self.shot_taken
                && self.shown.is_some()
                && self.frames_with_scene >= self.args.frames
            {
                self.shot_taken = true;
                self.write_shot(&shot);
                if self.args.exit_after_reloads.is_none() {
                    event_loop.exit();
                }
            }
        }
        // The reload hook ends the program once the first screenshot is written too.
        if self.exit_pending && (self.args.screenshot.is_none() || self.shot_taken) {
            event_loop.exit();
        }
        if self.fatal.is_some() {
            event_loop.exit();
        }
    }

    /// Writes the test-hook screenshot; a failure sets the exit status.
    fn write_shot(&mut self, path: &Path) {
        match self.capture(self.args.screenshot_panel) {
            Ok(img) => match crate::render::write_png(path, &img) {
                Ok(()) => eprintln!(
                    "wrote {} ({}x{})",
                    path.display(),
                    img.width(),
                    img.height()
                ),
                Err(e) => {
                    eprintln!("agview: error: writing {}: {e}", path.display());
                    self.exit_code = ExitCode::from(1);
                }
            },
            Err(e) => {
                eprintln!("agview: error: screenshot: {e}");
                self.exit_code = ExitCode::from(1);
            }
        }
    }

    /// The scene at the window's size, with the panel as last painted when `with_panel`,
    /// read back as RGBA.
    fn capture(&mut self, with_panel: bool) -> Result<image::RgbaImage, String> {
        let params = self.frame_params();
        let (Some(g), Some(s)) = (&mut self.gfx, &mut self.shown) else {
            return Err("no scene on screen yet".into());
        };
        let (w, h) = (g.config.width, g.config.height);
        let ui = self
            .last_ui
            .as_ref()
            .filter(|(_, size, _)| with_panel && *size == [w, h]);
        match ui {
            Some((jobs, size, ppp)) => {
                let egui = &mut g.egui;
                let ctx = &g.gpu.ctx;
                let sd = egui_wgpu::ScreenDescriptor {
                    size_in_pixels: *size,
                    pixels_per_point: *ppp,
                };
                let mut panel = |enc: &mut wgpu::CommandEncoder, view: &wgpu::TextureView| {
                    paint_panel(egui, ctx, enc, view, jobs, &sd)
                };
                capture(&g.gpu, &mut s.gpu, &params, w, h, Some(&mut panel))
            }
            None => capture(&g.gpu, &mut s.gpu, &params, w, h, None),
        }
    }

    fn screenshot(&mut self, with_panel: bool) {
        let result = self.capture(with_panel).and_then(|img| {
            screenshot::save(self.args.screenshot_dir.as_deref(), &self.args.asset, &img)
        });
        self.status = Some(match result {
            Ok(p) => {
                eprintln!("wrote {}", p.display());
                (format!("wrote {}", p.display()), false)
            }
            Err(e) => {
                eprintln!("agview: {e}");
                (e, true)
            }
        });
        self.request_redraw();
    }

    fn act(&mut self, a: Action) {
        // Only what moves the camera keeps the whole document from being framed afresh
        // after a preview; selecting a row does not.
        self.touched |= !matches!(a, Action::Select(_) | Action::Deselect);
        match a {
            Action::Relayout | Action::Terrain => self.relayout(),
            Action::Reroll => {
                self.controls.seed = self.controls.seed.wrapping_add(1);
                self.relayout();
            }
            Action::Frame => match self.table.selected {
                Some(i) => self.frame(FrameChoice::Feature(i as u32)),
                None => {
                    if let Some(c) = &mut self.cam {
                        c.frame();
                    }
                }
            },
            Action::FrameMain => self.frame(FrameChoice::Main),
            Action::FrameAll => self.frame(FrameChoice::All),
            Action::Select(i) => {
                if self.table.selected != Some(i) {
                    self.table.select(i);
                }
            }
            Action::FrameFeature(i) => {
                let n = self
                    .shown
                    .as_ref()
                    .map_or(0, |s| s.view.loaded.scene.features.len());
                if i >= n {
                    eprintln!("agview: warning: there is no feature {i} (the scene has {n})");
                    return;
                }
                if self.table.selected != Some(i) {
                    self.table.select(i);
                }
                self.frame(FrameChoice::Feature(i as u32));
            }
            Action::Deselect => self.table.selected = None,
            Action::ToggleOrbitFly => {
                if let Some(c) = &mut self.cam {
                    c.toggle_orbit_fly();
                }
            }
            Action::ToggleTop => {
                if let Some(c) = &mut self.cam {
                    c.toggle_top();
                }
            }
            Action::Screenshot => self.screenshot(false),
            Action::ScreenshotWithPanel => self.screenshot(true),
        }
        self.request_redraw();
    }

    /// Frames what `choice` names, keeping the camera's mode; the orbit turns around it.
    fn frame(&mut self, choice: FrameChoice) {
        let (Some(s), Some(c)) = (&self.shown, &mut self.cam) else {
            return;
        };
        let terrain = s.framing.terrain().cloned();
        let mut f = Framing::choose(
            &s.view.loaded.scene,
            Some(&s.art),
            terrain.as_deref(),
            choice,
        );
        if let Some(t) = terrain {
            f = f.with_ground(t);
        }
        eprintln!(
            "{}",
            f.describe()
                .unwrap_or_else(|| "framed everything".to_string())
        );
        c.set_framing(f);
        c.frame();
    }

    /// The feature under the window pixel `at`, if any: of the boxes the ray through it
    /// meets, the one with the smallest footprint (an object on an apron, not the apron).
    fn feature_at(&self, at: (f64, f64)) -> Option<usize> {
        let (s, c, g) = (self.shown.as_ref()?, self.cam.as_ref()?, self.gfx.as_ref()?);
        let (w, h) = (g.config.width as f32, g.config.height as f32);
        let (origin, dir) = pick_ray(&c.camera, at.0 as f32 / w, at.1 as f32 / h, w / h)?;
        s.boxes
            .iter()
            .enumerate()
            .filter_map(|(i, b)| {
                let (lo, hi) = (*b)?;
                ray_hits_box(origin, dir, lo, hi)?;
                Some((i, (hi[0] - lo[0]) * (hi[1] - lo[1])))
            })
            .min_by(|a, b| a.1.total_cmp(&b.1))
            .map(|(i, _)| i)
    }

    /// A click in the view: select the feature under it (or clear the selection).
    fn pick(&mut self, at: (f64, f64), frame: bool) {
        match self.feature_at(at) {
            Some(i) => {
                self.table.select(i);
                if let Some(f) = self
                    .shown
                    .as_ref()
                    .and_then(|s| s.view.loaded.scene.features.get(i))
                {
                    eprintln!("picked feature {i}: {} ({})", f.source, f.asset);
                }
                if frame {
                    self.frame(FrameChoice::Feature(i as u32));
                }
            }
            None => self.table.selected = None,
        }
        self.request_redraw();
    }

    fn key(&mut self, code: KeyCode, pressed: bool, repeat: bool, egui_wants: bool) {
        let was_moving = self.cam.as_ref().is_some_and(|c| c.held.any_motion());
        let held = self.cam.as_mut().map(|c| &mut c.held);
        let mut dummy = Held::default();
        let held = held.unwrap_or(&mut dummy);
        // Releases always count, so a key let go over a text field does not stick.
        let motion = match code {
            KeyCode::KeyW | KeyCode::ArrowUp => Some(&mut held.forward),
            KeyCode::KeyS | KeyCode::ArrowDown => Some(&mut held.back),
            KeyCode::KeyA | KeyCode::ArrowLeft => Some(&mut held.left),
            KeyCode::KeyD | KeyCode::ArrowRight => Some(&mut held.right),
            KeyCode::KeyQ | KeyCode::PageDown => Some(&mut held.down),
            KeyCode::KeyE | KeyCode::PageUp => Some(&mut held.up),
            KeyCode::ShiftLeft | KeyCode::ShiftRight => Some(&mut held.fast),
            _ => None,
        };
        if let Some(m) = motion {
            if !pressed || !egui_wants {
                *m = pressed;
                self.touched |= pressed;
            }
            if !was_moving {
                // The first step of a move is measured from now, not from the last frame.
                self.last_frame = Instant::now();
            }
            self.request_redraw();
            return;
        }
        if !pressed || repeat || egui_wants {
            return;
        }
        let action = match code {
            KeyCode::KeyO | KeyCode::Tab => Some(Action::ToggleOrbitFly),
            KeyCode::KeyT => Some(Action::ToggleTop),
            KeyCode::KeyF => Some(Action::Frame),
            KeyCode::KeyR => Some(Action::Reroll),
            KeyCode::F12 if self.cam.as_ref().is_some_and(|c| c.held.fast) => {
                Some(Action::ScreenshotWithPanel)
            }
            KeyCode::F12 => Some(Action::Screenshot),
            KeyCode::KeyH | KeyCode::F1 => {
                self.controls.show_panel = !self.controls.show_panel;
                None
            }
            KeyCode::KeyL => {
                self.controls.show_features = !self.controls.show_features;
                None
            }
            KeyCode::KeyG => {
                if let Some(at) = self.cursor {
                    self.pick(at, true);
                }
                None
            }
            KeyCode::Escape => Some(Action::Deselect),
            _ => None,
        };
        if let Some(a) = action {
            self.act(a);
        }
        self.request_redraw();
    }
}

impl ApplicationHandler<UserEvent> for App {
    fn resumed(&mut self, event_loop: &ActiveEventLoop) {
        if self.window.is_some() {
            return;
        }
        if let Err(e) = self.init_window(event_loop) {
            self.fatal = Some(e);
            event_loop.exit();
        }
    }

    fn user_event(&mut self, event_loop: &ActiveEventLoop, event: UserEvent) {
        match event {
            UserEvent::Loaded => self.take_outcomes(event_loop),
            UserEvent::DeviceLost => self.recover_device(event_loop),
        }
    }

    fn window_event(&mut self, event_loop: &ActiveEventLoop, _id: WindowId, event: WindowEvent) {
        let consumed = match (self.egui_state.as_mut(), self.window.as_ref()) {
            (Some(state), Some(window)) if self.controls.show_panel => {
                let r = state.on_window_event(window, &event);
                if r.repaint {
                    window.request_redraw();
                }
                r.consumed
            }
            _ => false,
        };
        let panel = self.controls.show_panel;
        let egui_keys = panel && self.egui_ctx.egui_wants_keyboard_input();
        let over_panel = panel && self.egui_ctx.is_pointer_over_egui();
        match event {
            WindowEvent::CloseRequested => event_loop.exit(),
            WindowEvent::Resized(size) => self.resize(size.width, size.height),
            WindowEvent::RedrawRequested => {
                self.recover_device(event_loop);
                self.redraw(event_loop)
            }
            WindowEvent::KeyboardInput {
                event,
                is_synthetic,
                ..
            } => {
                if let PhysicalKey::Code(code) = event.physical_key {
                    let pressed = event.state == ElementState::Pressed;
                    // A synthetic press (a key already down when the window gained focus)
                    // may hold a movement key but never repeats an action.
                    self.key(
                        code,
                        pressed,
                        event.repeat || is_synthetic,
                        egui_keys || (consumed && code != KeyCode::Tab),
                    );
                }
            }
            WindowEvent::ModifiersChanged(m) => {
                if let Some(c) = &mut self.cam {
                    c.held.fast = m.state().shift_key();
                }
            }
            WindowEvent::MouseInput { state, button, .. } => {
                let pressed = state == ElementState::Pressed;
                if button == MouseButton::Left {
                    if pressed && !over_panel && !consumed {
                        self.press_at = self.cursor;
                    } else if !pressed {
                        let at = self.press_at.take();
                        if let (Some(a), Some(b)) = (at, self.cursor) {
                            if (a.0 - b.0).abs() + (a.1 - b.1).abs() < 4.0 {
                                self.pick(b, false);
                            }
                        }
                    }
                }
                if pressed && !over_panel && !consumed {
                    let steer = match button {
                        MouseButton::Right => true,
                        MouseButton::Left => self
                            .cam
                            .as_ref()
                            .is_some_and(|c| c.mode() != crate::app::camera_control::Mode::Fly),
                        _ => false,
                    };
                    if steer {
                        self.dragging = Some(button);
                    }
                } else if !pressed && self.dragging == Some(button) {
                    self.dragging = None;
                }
            }
            WindowEvent::CursorMoved { position, .. } => {
                let p = (position.x, position.y);
                if let (Some(_), Some(last), Some(c)) =
                    (self.dragging, self.cursor, self.cam.as_mut())
                {
                    let h = self.gfx.as_ref().map_or(1.0, |g| g.config.height as f32);
                    c.drag((p.0 - last.0) as f32, (p.1 - last.1) as f32, h);
                    self.touched = true;
                    self.request_redraw();
                }
                self.cursor = Some(p);
            }
            WindowEvent::CursorLeft { .. } => {
                self.cursor = None;
            }
            WindowEvent::MouseWheel { delta, .. } if !over_panel && !consumed => {
                let lines = match delta {
                    MouseScrollDelta::LineDelta(_, y) => y,
                    MouseScrollDelta::PixelDelta(p) => (p.y / 40.0) as f32,
                };
                if let Some(c) = &mut self.cam {
                    c.wheel(lines);
                }
                self.touched = true;
                self.request_redraw();
            }
            WindowEvent::Focused(false) => {
                if let Some(c) = &mut self.cam {
                    c.held = Held::default();
                }
                self.dragging = None;
            }
            _ => {}
        }
    }
}

/// The panel uses egui's built-in fonts (the `default_fonts` feature); `AGVIEW_FONT`
/// names a .ttf/.otf to put first, e.g. for scripts the built-in fonts lack.
fn install_fonts(ctx: &egui::Context) -> Result<(), String> {
    let Some(path) = std::env::var_os("AGVIEW_FONT").map(PathBuf::from) else {
        return Ok(());
    };
    let bytes = std::fs::read(&path).map_err(|e| {
        format!(
            "AGVIEW_FONT {}: {e}; using the built-in font",
            path.display()
        )
    })?;
    let mut defs = egui::FontDefinitions::default();
    defs.font_data.insert(
        "agview-user".into(),
        Arc::new(egui::FontData::from_owned(bytes)),
    );
    for family in [egui::FontFamily::Proportional, egui::FontFamily::Monospace] {
        defs.families
            .entry(family)
            .or_default()
            .insert(0, "agview-user".into());
    }
    ctx.set_fonts(defs);
    Ok(())
}

/// Opens the instance, the window's surface and a device that can present to it: Vulkan,
/// then GL (or the backends `WGPU_BACKEND` names), then any fallback adapter.
fn open_gpu(window: &Arc<Window>) -> Result<(wgpu::Surface<'static>, GpuContext), String> {
    let order: Vec<wgpu::Backends> = match wgpu::Backends::from_env() {
        Some(b) => vec![b],
        None => vec![wgpu::Backends::VULKAN, wgpu::Backends::GL],
    };
    let mut tried = Vec::new();
    for fallback in [false, true] {
        for backends in &order {
            // GL needs the display to present; other backends ignore it.
            let mut desc = wgpu::InstanceDescriptor::new_with_display_handle_from_env(Box::new(
                window.clone(),
            ));
            desc.backends = *backends;
            let instance = wgpu::Instance::new(desc);
            let surface = match instance.create_surface(window.clone()) {
                Ok(s) => s,
                Err(e) => {
                    tried.push(format!("{backends:?}: {e}"));
                    continue;
                }
            };
            let options = wgpu::RequestAdapterOptions {
                power_preference: wgpu::PowerPreference::HighPerformance,
                force_fallback_adapter: fallback,
                compatible_surface: Some(&surface),
                ..Default::default()
            };
            match pollster::block_on(instance.request_adapter(&options)) {
                Ok(adapter) => {
                    let ctx =
                        GpuContext::from_adapter(instance, adapter).map_err(|e| e.to_string())?;
                    return Ok((surface, ctx));
                }
                Err(e) => tried.push(format!(
                    "{backends:?}{}: {e}",
                    if fallback { " (fallback)" } else { "" }
                )),
            }
        }
    }
    Err(format!(
        "no GPU adapter can draw to the window (tried {}); on Linux without a GPU, \
         `apt-get install mesa-vulkan-drivers` gives a software rasterizer (lavapipe)",
        tried.join("; ")
    ))
}

/// Draws a tiny scene offscreen on another thread while the asset loads, so the driver
/// compiles the pipelines' shaders (a software rasterizer does that at first use) before the
/// first frame that shows the scene.
fn warm_up(gpu: Arc<Gpu>) {
    let _ = std::thread::Builder::new()
        .name("agview-warm-up".into())
        .spawn(move || {
            let opts = crate::render::BenchOptions {
                blocks: 1,
                tiles_per_side: 1,
                objects: 1,
                meshes: 1,
                ..crate::render::BenchOptions::default()
            };
            let (scene, art, terrain) = crate::render::synthetic_city(&opts);
            let Ok(mut s) = SceneGpu::new(&gpu.ctx, &gpu.renderer, &scene, &art, &terrain) else {
                return;
            };
            let params = FrameParams {
                overlays: crate::render::Overlays::all(),
                ..FrameParams::framing(scene.bounds())
            };
            s.prepare_overlays(&gpu.ctx, &scene, params.overlays);
            let _ = capture(&gpu, &mut s, &params, 16, 16, None);
        });
}

/// Uploads the panel's buffers and records its pass over `view`; returns the command
/// buffers egui's callbacks want submitted first.
fn paint_panel(
    egui: &mut egui_wgpu::Renderer,
    ctx: &GpuContext,
    encoder: &mut wgpu::CommandEncoder,
    view: &wgpu::TextureView,
    jobs: &[egui::ClippedPrimitive],
    sd: &egui_wgpu::ScreenDescriptor,
) -> Vec<wgpu::CommandBuffer> {
    let extra = egui.update_buffers(&ctx.device, &ctx.queue, encoder, jobs, sd);
    let pass = encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
        label: Some("panel"),
        color_attachments: &[Some(wgpu::RenderPassColorAttachment {
            view,
            depth_slice: None,
            resolve_target: None,
            ops: wgpu::Operations {
                load: wgpu::LoadOp::Load,
                store: wgpu::StoreOp::Store,
            },
        })],
        depth_stencil_attachment: None,
        timestamp_writes: None,
        occlusion_query_set: None,
        multiview_mask: None,
    });
    let mut pass = pass.forget_lifetime();
    egui.render(&mut pass, jobs, sd);
    extra
}

/// A pass that only clears to the sky colour (no scene yet).
fn clear(encoder: &mut wgpu::CommandEncoder, view: &wgpu::TextureView, sky: [f32; 3]) {
    let _ = encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
        label: Some("clear"),
        color_attachments: &[Some(wgpu::RenderPassColorAttachment {
            view,
            depth_slice: None,
            resolve_target: None,
            ops: wgpu::Operations {
                load: wgpu::LoadOp::Clear(wgpu::Color {
                    r: f64::from(sky[0]) * 0.5,
                    g: f64::from(sky[1]) * 0.5,
                    b: f64::from(sky[2]) * 0.5,
                    a: 1.0,
                }),
                store: wgpu::StoreOp::Store,
            },
        })],
        depth_stencil_attachment: None,
        timestamp_writes: None,
        occlusion_query_set: None,
        multiview_mask: None,
    });
}

/// Something drawn over the scene in a capture (the panel): records into the encoder and
/// returns command buffers to submit first.
type Overlay<'a> =
    &'a mut dyn FnMut(&mut wgpu::CommandEncoder, &wgpu::TextureView) -> Vec<wgpu::CommandBuffer>;

/// Renders the scene (and `overlay`) into an offscreen texture of the renderer's format and
/// reads it back as RGBA (swizzling a BGRA window format).
pub fn capture(
    gpu: &Gpu,
    scene: &mut SceneGpu,
    params: &FrameParams,
    width: u32,
    height: u32,
    overlay: Option<Overlay>,
) -> Result<image::RgbaImage, String> {
    let ctx = &gpu.ctx;
    let format = gpu.renderer.color_format();
    let max = ctx.device.limits().max_texture_dimension_2d;
    if width == 0 || height == 0 || width > max || height > max {
        return Err(format!("cannot capture a {width}x{height} image"));
    }
    let (texture, copy) = ctx
        .checked("taking a screenshot", || {
            let texture = ctx.device.create_texture(&wgpu::TextureDescriptor {
                label: Some("screenshot"),
                size: wgpu::Extent3d {
                    width,
                    height,
                    depth_or_array_layers: 1,
                },
                mip_level_count: 1,
                sample_count: 1,
                dimension: wgpu::TextureDimension::D2,
                format,
                usage: wgpu::TextureUsages::RENDER_ATTACHMENT | wgpu::TextureUsages::COPY_SRC,
                view_formats: &[],
            });
            let view = texture.create_view(&wgpu::TextureViewDescriptor::default());
            let targets = FrameTargets::new(&ctx.device, &gpu.renderer, width, height);
            scene.prepare(ctx, params, width, height);
            let mut encoder = ctx
                .device
                .create_command_encoder(&wgpu::CommandEncoderDescriptor {
                    label: Some("screenshot"),
                });
            gpu.renderer.draw(&mut encoder, &view, &targets, scene);
            let first = match overlay {
                Some(f) => f(&mut encoder, &view),
                None => Vec::new(),
            };
            let copy = ReadBack::copy(ctx, &mut encoder, &texture);
            ctx.queue
                .submit(first.into_iter().chain([encoder.finish()]));
            (texture, copy)
        })
        .map_err(|e| e.to_string())?;
    let image = copy.read(ctx, format);
    drop(texture);
    image
}

/// A texture's pixels copied into a buffer to be read on the CPU: the offscreen screenshot
/// and the window's own presented frame share it.
struct ReadBack {
    buffer: wgpu::Buffer,
    /// Bytes per row in the buffer (rows are padded to `COPY_BYTES_PER_ROW_ALIGNMENT`).
    padded: u32,
    width: u32,
    height: u32,
}

impl ReadBack {
    /// Records the copy of `texture`'s pixels (4 bytes each).
    fn copy(
        ctx: &crate::render::GpuContext,
        encoder: &mut wgpu::CommandEncoder,
        texture: &wgpu::Texture,
    ) -> Self {
        let (buffer, padded) = crate::render::copy_to_buffer(&ctx.device, encoder, texture);
        ReadBack {
            buffer,
            padded,
            width: texture.width(),
            height: texture.height(),
        }
    }

    /// Waits for the copy (submitted by then) and returns the pixels as RGBA, swizzling a
    /// BGRA `format`.
    fn read(
        self,
        ctx: &crate::render::GpuContext,
        format: wgpu::TextureFormat,
    ) -> Result<image::RgbaImage, String> {
        let (width, height) = (self.width, self.height);
        let mut pixels = crate::render::read_back(ctx, &self.buffer, self.padded, width, height)
            .map_err(|e| e.to_string())?;
        if matches!(
            format,
            wgpu::TextureFormat::Bgra8Unorm | wgpu::TextureFormat::Bgra8UnormSrgb
        ) {
            for px in pixels.chunks_exact_mut(4) {
                px.swap(0, 2);
            }
        }
        image::RgbaImage::from_raw(width, height, pixels)
            .ok_or_else(|| "image has the wrong size".into())
    }
}

/// The ray through the window point (`fx`, `fy`), fractions of its width and height from the
/// top left: its origin on the near plane and its unit direction, in scene meters.
fn pick_ray(
    camera: &crate::render::Camera,
    fx: f32,
    fy: f32,
    aspect: f32,
) -> Option<(glam::Vec3, glam::Vec3)> {
    let inv = camera.view_proj(aspect).inverse();
    let (x, y) = (fx * 2.0 - 1.0, 1.0 - fy * 2.0);
    // Reversed depth: 1 on the near plane; 0.5 lies beyond it.
    let at = |z: f32| {
        let p = inv * glam::Vec4::new(x, y, z, 1.0);
        (p.w.abs() > 1e-12).then(|| p.truncate() / p.w)
    };
    let (near, far) = (at(1.0)?, at(0.5)?);
    let dir = (far - near).normalize_or_zero();
    (dir != glam::Vec3::ZERO && near.is_finite()).then_some((near, dir))
}

/// Where along the ray (`origin`, unit `dir`) it enters the box `lo..hi`, if it meets it
/// ahead (slab test).
fn ray_hits_box(origin: glam::Vec3, dir: glam::Vec3, lo: [f32; 3], hi: [f32; 3]) -> Option<f32> {
    let (mut t0, mut t1) = (0.0f32, f32::INFINITY);
    for k in 0..3 {
        let (o, d) = (origin[k], dir[k]);
        if d.abs() < 1e-9 {
            if o < lo[k] || o > hi[k] {
                return None;
            }
            continue;
        }
        let (a, b) = ((lo[k] - o) / d, (hi[k] - o) / d);
        t0 = t0.max(a.min(b));
        t1 = t1.min(a.max(b));
    }
    (t0 <= t1).then_some(t0)
}

/// The selected feature's box outlined over the 3D view (under the panels), its edges cut
/// at the near plane.
fn draw_highlight(
    ui: &egui::Ui,
    view_rect: egui::Rect,
    b: ([f32; 3], [f32; 3]),
    camera: &crate::render::Camera,
) {
    let screen = ui.ctx().content_rect();
    let vp = camera.view_proj(screen.width() / screen.height().max(1.0));
    let (lo, hi) = b;
    let corner = |k: usize| {
        let pick = |i: usize| if k >> i & 1 == 0 { lo[i] } else { hi[i] };
        vp * glam::Vec4::new(pick(0), pick(1), pick(2), 1.0)
    };
    let to_screen = |c: glam::Vec4| {
        egui::pos2(
            screen.left() + (c.x / c.w * 0.5 + 0.5) * screen.width(),
            screen.top() + (0.5 - c.y / c.w * 0.5) * screen.height(),
        )
    };
    let painter = ui
        .ctx()
        .layer_painter(egui::LayerId::new(
            egui::Order::Background,
            egui::Id::unique("agview-highlight"),
        ))
        .with_clip_rect(view_rect);
    let stroke = egui::Stroke::new(2.5, egui::Color32::from_rgb(255, 220, 40));
    const EPS: f32 = 1e-3;
    for a in 0..8usize {
        for bit in 0..3 {
            let b = a | 1 << bit;
            if b == a {
                continue;
            }
            let (mut p, mut q) = (corner(a), corner(b));
            if p.w < EPS && q.w < EPS {
                continue;
            }
            // Cut the edge where it passes behind the eye.
            if p.w < EPS {
                p = q + (p - q) * ((q.w - EPS) / (q.w - p.w));
            } else if q.w < EPS {
                q = p + (q - p) * ((p.w - EPS) / (p.w - q.w));
            }
            painter.line_segment([to_screen(p), to_screen(q)], stroke);
        }
    }
}
