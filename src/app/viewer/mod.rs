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
use std::sync::atomic::AtomicU64;
use std::sync::Arc;
use std::time::Instant;

use winit::application::ApplicationHandler;
use winit::event::{ElementState, MouseButton, MouseScrollDelta, StartCause, WindowEvent};
use winit::event_loop::{ActiveEventLoop, ControlFlow, EventLoop, EventLoopProxy};
use winit::keyboard::{KeyCode, PhysicalKey};
use winit::window::{Window, WindowId};

use crate::app::camera_control::{CameraControl, Held};
use crate::app::features::{FeatureIndex, FeatureTable};
use crate::app::options::{CameraSpec, TerrainSpec};
use crate::app::panel::{Action, Controls, Layers, TerrainKind};
use crate::app::reload::{
    Described, FileWatcher, Gpu, LoadJob, Loader, Outcome, Ready, RestPart, Trigger, Uploaded,
};
use crate::app::screenshot;
use crate::app::settings::Settings;
use crate::diag::Diagnostic;
use crate::document::Document;
use crate::render::{
    DrawStats, FrameChoice, FrameParams, FrameTargets, Framing, OverFrame, RenderError, SceneGpu,
};

mod args;
mod capture;
mod device;
mod edit;
mod frame;
mod hooks;
mod picking;
mod refine;

pub use args::ViewArgs;
pub use capture::capture;

/// Events sent to the window from other threads.
#[derive(Debug, Clone, Copy)]
enum UserEvent {
    /// The loader has an outcome.
    Loaded,
    /// The GPU device was lost (a driver reset, a removed GPU, `destroy`).
    DeviceLost,
    /// Files the scene depends on changed on disk (the first change's instant).
    FilesChanged(Instant),
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
    // File changes go through the window, which asks first when they would drop unsaved
    // edits (edit mode).
    let files_proxy = event_loop.create_proxy();
    let mut watcher = FileWatcher::new(move |t| {
        let _ = files_proxy.send_event(UserEvent::FilesChanged(t));
    });
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
    if let Some(p) = &app.args.script {
        app.script = edit::script::Runner::new(edit::script::read(p).map_err(anyhow::Error::msg)?);
    }
    event_loop.set_control_flow(ControlFlow::Wait);
    event_loop.run_app(&mut app)?;
    // Every thread that holds the device stops before the process exits (the loader stops
    // as `app` drops).
    if let Some(t) = app.warm_up.take() {
        let _ = t.join();
    }
    app.dump_scene();
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
    // The window goes first (its surface holds it open), then `app`: a loader still laying
    // out keeps it waiting a few seconds, which should not keep a closed window on screen.
    app.gfx = None;
    app.window = None;
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
    /// The 1× frames on a CPU adapter (`refine`).
    refine: refine::Refine,
}

struct App {
    args: ViewArgs,
    launch: Instant,
    loader: Loader,
    /// The shader warm-up's thread, joined before exit.
    warm_up: Option<std::thread::JoinHandle<()>>,
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
    /// `first full frame after N ms` was printed (the first frame with every feature drawn).
    full_frame_reported: bool,
    /// A file-triggered reload whose outcome the next frame shows: (its number, when the
    /// change was seen, whether it loaded).
    reload_to_report: Option<(u32, Option<Instant>, bool)>,
    /// `--press` pressed its keys: the layouts that follow count as reloads.
    pressed: bool,
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
    device_destroyed: Option<u64>,
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
    /// The keyboard's modifiers (edit mode: Ctrl, Shift, Alt with a click or a key).
    mods: winit::keyboard::ModifiersState,
    /// Edit mode's session (kept while the mode is off), and why none could start.
    edit: Option<edit::Session>,
    edit_refusal: Option<String>,
    /// An edit's layout was accepted: when the edit was made, layout and upload ms.
    edit_shown: Option<(Instant, f64, f64)>,
    /// The quit dialog is open; the user chose to quit.
    quit_asked: bool,
    quit_now: bool,
    /// The shape's file changed on disk with edits unsaved: the dialog is open.
    reload_asked: Option<Instant>,
    /// `--script`: its events and where it stands.
    script: edit::script::Runner,
    /// Frames drawn while a handle is dragged (`crate::app::drag_preview`).
    preview: frame::Preview,
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
        let (terrain, heightmap) = match &r.terrain.kind {
            TerrainSpec::Flat => (TerrainKind::Flat, String::new()),
            TerrainSpec::Hills => (TerrainKind::Hills, String::new()),
            TerrainSpec::Heightmap(p) => (TerrainKind::Heightmap, p.display().to_string()),
        };
        let controls = Controls {
            seed: job.inputs.seed,
            season: job.inputs.resolve.season,
            density: r.density,
            terrain,
            heightmap,
            exaggeration: r.terrain.exaggeration,
            rect: job.inputs.rect,
            layers: Layers::default(),
            overlays: r.overlays(),
            hard_lod_switch: r.lod_switch == crate::render::LodSwitch::Hard,
            sun: r.sun,
            hour: r.sun.nearest_hour(),
            exposure_ev: r.exposure,
            shadows: r.shadows,
            show_panel: !args.no_panel,
            show_features: true,
            edit: args.edit,
        };
        let remembered = Settings::load();
        App {
            launch,
            synthetic_tile: None,
            loader,
            warm_up: None,
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
            full_frame_reported: false,
            reload_to_report: None,
            pressed: false,
            reloads: 0,
            shot_taken: false,
            presented_taken: false,
            proxy,
            device_generation: 0,
            device_lost: Arc::new(AtomicU64::new(0)),
            device_destroyed: None,
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
            mods: Default::default(),
            edit: None,
            edit_refusal: None,
            edit_shown: None,
            quit_asked: false,
            quit_now: false,
            reload_asked: None,
            script: edit::script::Runner::default(),
            preview: frame::Preview::default(),
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
            show_roads: c.layers.roads,
            lod_switch: if c.hard_lod_switch {
                crate::render::LodSwitch::Hard
            } else {
                crate::render::LodSwitch::Fade
            },
            sun: c.sun,
            exposure_ev: c.exposure_ev,
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

    /// Sends the current job (with the panel's seed, season, rectangle and terrain) to the
    /// loader. A new season resolves every name again and lays the scene out in place: the
    /// camera stays, and the feature table shows the new season's files.
    fn relayout(&mut self) {
        // What was shown, to tell a change of terrain alone from one that needs a layout.
        let before = self.job.clone();
        let c = &self.controls;
        self.job.inputs.seed = c.seed;
        self.job.inputs.resolve.season = c.season;
        if let Some(rect) = c.rect {
            self.job.inputs.rect = Some(rect);
            self.job.inputs.polygon = None;
        }
        self.job.render.terrain.kind = match c.terrain {
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
        let Ok(terrain) = self.job.render.terrain.terrain_for(scene) else {
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
            self.take_outcome(o, event_loop);
        }
        self.request_redraw();
    }

    fn take_outcome(&mut self, o: Outcome, event_loop: &ActiveEventLoop) {
        {
            if let Outcome::Part(p) = o {
                self.add_part(p);
                return;
            }
            self.loading = false;
            match o {
                Outcome::Ready(r) => self.accept(*r),
                Outcome::Part(_) => {}
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
        let rest = match &gpu {
            Uploaded::Rest { after, .. } => Some(*after),
            Uploaded::Scene(_) => None,
        };
        let Some(gpu) = self.whole_gpu(gpu, after_preview, &view, &art, &framing, &uploaded_on)
        else {
            return;
        };
        if let Some(after) = rest.filter(|_| gpu.part_count() > 1) {
            eprintln!(
                "the rest of the document added to its preview in {after} part(s) (uploaded in {upload_ms:.0} ms); the preview is not uploaded again"
            );
        }
        let reloaded = matches!(trigger, Trigger::Files(_));
        if (after_preview || reloaded) && !self.touched {
            self.cam = None;
        }
        self.partial = partial;
        if partial {
            self.loading = true;
            eprintln!(
                "showing the first {} feature(s) after {load_ms:.0} ms (upload {upload_ms:.0} ms) while the rest is laid out",
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
        if let Trigger::Edit(t) = trigger {
            self.edit_shown = Some((t, load_ms, upload_ms));
        }
        match &mut self.cam {
            // An edit keeps the camera exactly where it is (the orbit would follow the
            // scene's centre, moving the view under the pointer).
            Some(_) if matches!(trigger, Trigger::Edit(_)) => {}
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
        if matches!(trigger, Trigger::Params) && self.pressed {
            self.reloads += 1;
            self.reload_to_report = Some((self.reloads, None, true));
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
        self.ensure_session();
        // Uploaded with a device lost since: upload it again with the new one.
        if self
            .gfx
            .as_ref()
            .is_some_and(|g| !Arc::ptr_eq(&g.gpu, &uploaded_on))
        {
            self.upload_shown_again();
        }
    }

    /// Adds a part of a large document's rest to the preview shown: drawn from the next
    /// frame on, while the loader lays out and uploads the next part.
    fn add_part(&mut self, p: RestPart) {
        let (Some(s), Some(g)) = (self.shown.as_mut(), self.gfx.as_ref()) else {
            return;
        };
        if !self.partial {
            return;
        }
        let (features, upload_ms) = (p.features, p.part.upload_ms());
        if p.add_to(&mut s.gpu, &s.view.loaded.scene, &s.framing, &g.gpu) {
            eprintln!(
                "added {features} more feature(s) after {} ms (upload {upload_ms:.0} ms)",
                self.launch.elapsed().as_millis()
            );
        } else {
            eprintln!(
                "agview: warning: the preview cannot take a part of the rest; the whole follows"
            );
        }
    }

    /// The scene `uploaded` gives ([`Uploaded::into_scene`]), the preview shown taken
    /// (`after_preview`); `None` (with the error shown) when it could not be made.
    fn whole_gpu(
        &mut self,
        uploaded: Uploaded,
        after_preview: bool,
        view: &Document,
        art: &crate::art::ArtSet,
        framing: &Framing,
        on: &Gpu,
    ) -> Option<SceneGpu> {
        let preview = match uploaded {
            Uploaded::Scene(_) => None,
            Uploaded::Rest { .. } => self.shown.take().filter(|_| after_preview),
        };
        let preview = preview.map(|s| s.gpu);
        match uploaded.into_scene(preview, on, view, art, framing) {
            Ok(g) => Some(g),
            Err(e) => {
                eprintln!("agview: error: {e}");
                self.error = Some(e);
                None
            }
        }
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
            Action::NextSeason => {
                self.controls.season = self.controls.season.next();
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
            Action::ToggleEdit => self.toggle_edit(),
        }
        self.request_redraw();
    }

    fn key(&mut self, code: KeyCode, pressed: bool, repeat: bool, egui_wants: bool) {
        if (!egui_wants || !pressed) && self.edit_key(code, pressed, repeat) {
            self.request_redraw();
            return;
        }
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
            KeyCode::KeyN => Some(Action::NextSeason),
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

impl App {
    /// A mouse button went down or up; `free`: over the view, not taken by the panel.
    fn pointer_button(&mut self, button: MouseButton, pressed: bool, free: bool) {
        if button == MouseButton::Left {
            // Edit mode: a handle under the pointer is grabbed (no pick, no steering).
            if pressed && free {
                if let Some(at) = self.cursor {
                    if self.edit_press(at) {
                        self.press_at = None;
                        return;
                    }
                }
            }
            if !pressed && self.edit_release() {
                self.press_at = None;
                self.dragging = None;
                return;
            }
            if pressed && free {
                self.press_at = self.cursor;
            } else if !pressed {
                let at = self.press_at.take();
                if let (Some(a), Some(b)) = (at, self.cursor) {
                    // In edit mode a plain click selects handles, never a feature.
                    if (a.0 - b.0).abs() + (a.1 - b.1).abs() < 4.0 && !self.editing() {
                        self.pick(b, false);
                    }
                }
            }
        }
        if pressed && free {
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

    /// The pointer moved to window pixel `p`.
    fn pointer_moved(&mut self, p: (f64, f64)) {
        if self.edit.as_ref().is_some_and(|s| s.drag.is_some()) {
            self.cursor = Some(p);
            self.edit_drag_to(p);
            return;
        }
        if let (Some(_), Some(last), Some(c)) = (self.dragging, self.cursor, self.cam.as_mut()) {
            let h = self.gfx.as_ref().map_or(1.0, |g| g.config.height as f32);
            c.drag((p.0 - last.0) as f32, (p.1 - last.1) as f32, h);
            self.touched = true;
            self.request_redraw();
        }
        self.cursor = Some(p);
    }

    /// `--dump-scene FILE`: the last scene shown, as `agview layout --json` writes it.
    fn dump_scene(&self) {
        let (Some(path), Some(s)) = (&self.args.dump_scene, &self.shown) else {
            return;
        };
        let mut scene = s.view.loaded.scene.clone();
        scene.warnings = s.view.loaded.messages().into();
        let written = serde_json::to_string_pretty(&scene)
            .map_err(|e| e.to_string())
            .and_then(|t| std::fs::write(path, t + "\n").map_err(|e| e.to_string()));
        match written {
            Ok(()) => eprintln!("wrote the last scene to {}", path.display()),
            Err(e) => eprintln!("agview: error: --dump-scene {}: {e}", path.display()),
        }
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

    /// The frame a loading window put off ([`frame::LOADING_FRAME_INTERVAL`]) is due.
    fn new_events(&mut self, event_loop: &ActiveEventLoop, cause: StartCause) {
        if let StartCause::ResumeTimeReached { .. } = cause {
            event_loop.set_control_flow(ControlFlow::Wait);
            self.request_redraw();
        }
    }

    fn user_event(&mut self, event_loop: &ActiveEventLoop, event: UserEvent) {
        match event {
            UserEvent::Loaded => self.take_outcomes(event_loop),
            UserEvent::DeviceLost => self.recover_device(event_loop),
            UserEvent::FilesChanged(t) => self.files_changed(t),
        }
    }

    fn window_event(&mut self, event_loop: &ActiveEventLoop, _id: WindowId, event: WindowEvent) {
        let consumed = match (self.egui_state.as_mut(), self.window.as_ref()) {
            (Some(state), Some(window)) if self.controls.show_panel || self.controls.edit => {
                let r = state.on_window_event(window, &event);
                // egui asks a repaint for every redraw too, which would draw the next frame
                // at once forever: what the panel wants drawn again it says after each
                // frame (`frame.rs`, its repaint delay).
                if r.repaint && !matches!(event, WindowEvent::RedrawRequested) {
                    window.request_redraw();
                }
                r.consumed
            }
            _ => false,
        };
        let panel = self.controls.show_panel || self.controls.edit;
        let egui_keys = panel && self.egui_ctx.egui_wants_keyboard_input();
        let over_panel = panel && self.egui_ctx.is_pointer_over_egui();
        match event {
            WindowEvent::CloseRequested if self.close_requested() => event_loop.exit(),
            WindowEvent::CloseRequested => {}
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
                self.mods = m.state();
                if let Some(c) = &mut self.cam {
                    c.held.fast = m.state().shift_key();
                }
            }
            WindowEvent::MouseInput { state, button, .. } => {
                self.pointer_button(
                    button,
                    state == ElementState::Pressed,
                    !over_panel && !consumed,
                );
            }
            WindowEvent::CursorMoved { position, .. } => {
                self.pointer_moved((position.x, position.y));
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
