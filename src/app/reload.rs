//! Loading off the window's thread, and hot reload.
//!
//! - [`Loader`]: one thread that lays out, loads art, builds the terrain and uploads the
//!   [`SceneGpu`], so the window keeps drawing the last good scene meanwhile. Requests that
//!   pile up while it works are merged: only the newest job runs.
//! - [`FileWatcher`]: watches the folders of every file the scene depends on (not the files,
//!   so an editor's save-by-rename is seen) and, a short quiet time after the last change
//!   ([`DEBOUNCE`]), asks the loader to reload.
//!
//! The loader may start before the window has a GPU: it lays out and loads art first and
//! waits for the device ([`Loader::set_gpu`]) only to upload, so launch work overlaps.

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender};
use std::sync::{Arc, Mutex, Weak};
use std::time::{Duration, Instant};

use notify::Watcher;

use crate::app::features::FeatureIndex;
use crate::app::options::RenderArgs;
use crate::art::ArtSet;
use crate::diag::Diagnostic;
use crate::document::{self, Document, LoadOptions};
use crate::input::Inputs;
use crate::render::{
    Framing, GpuContext, PartGround, Renderer, SceneGpu, ScenePart, SceneTextures,
};

/// Quiet time after the last file event before reloading: editors write a file in several
/// steps (truncate, write, rename), which become one reload.
pub const DEBOUNCE: Duration = Duration::from_millis(40);

/// How long the window holds its next frame for an edit's layout, from the edit: laying
/// out and uploading one block or string takes well under this (the target is 20 ms), so
/// the frame after an edit shows it instead of the frame after that, while a slower layout
/// never stops the window for longer than this.
pub const EDIT_HOLD: Duration = Duration::from_millis(50);

/// How long a frame waits at most while the loader uploads a part of a large document's
/// rest ([`Loader::uploading_part`]): on a software rasterizer the upload would otherwise
/// wait behind the frame, part after part, and the frame after the wait shows the part.
pub const PART_HOLD: Duration = Duration::from_millis(400);

/// How long the next frame waits for the layout of an edit made at `pending` while the
/// loader works (`loading`): what is left of [`EDIT_HOLD`]; none when it has passed or no
/// edit is pending.
/// While the loader uploads an edit's scene (`uploading`, [`Loader::uploading_edit`]) the
/// frame waits for it all the same: a frame started meanwhile makes the upload wait behind
/// it on a software rasterizer, whose present blocks until the frame is drawn.
pub fn edit_hold(pending: Option<Instant>, loading: bool, uploading: bool) -> Option<Duration> {
    if !loading {
        return None;
    }
    if uploading {
        return Some(EDIT_HOLD);
    }
    EDIT_HOLD
        .checked_sub(pending?.elapsed())
        .filter(|d| !d.is_zero())
}

/// The device and the pipelines, shared by the window and the loader.
pub struct Gpu {
    pub ctx: GpuContext,
    pub renderer: Renderer,
}

/// What to load.
#[derive(Debug, Clone)]
pub struct LoadJob {
    pub asset: PathBuf,
    /// The layout inputs, parsed once from the command line; the panel changes them.
    pub inputs: Inputs,
    /// The terrain options (camera and overlays are the window's).
    pub render: RenderArgs,
    /// Instead of the asset: the renderer's synthetic city with this many blocks (100
    /// objects each), to see that a city-sized scene stays interactive.
    pub synthetic_city: Option<usize>,
    /// Threads and the progress the panel shows.
    pub load: LoadOptions,
    /// Test hook (`--load-delay-ms`): the first load waits this long before it starts, as
    /// a large document's would take.
    pub startup_delay: Option<std::time::Duration>,
}

/// Why a load ran.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Trigger {
    /// The first load at launch.
    Startup,
    /// Files changed on disk; the instant of the first change seen.
    Files(Instant),
    /// The panel changed a layout or terrain option.
    Params,
    /// Edit mode changed the shape; the instant of the edit (for `edit to frame N ms`).
    Edit(Instant),
}

/// A scene ready to draw.
pub struct Ready {
    pub view: Document,
    /// The art the scene was uploaded with (a new terrain is framed with it).
    pub art: Arc<ArtSet>,
    pub gpu: Uploaded,
    /// The messages, the feature table's index and the features' boxes, worked out here
    /// rather than on the window's thread.
    pub described: Described,
    /// The device `gpu` was uploaded with (one lost since is replaced).
    pub uploaded_on: Arc<Gpu>,
    /// What the default view frames, over the terrain the scene is drawn on (the fly camera
    /// keeps above it).
    pub framing: Framing,
    /// Files to watch: the scene's, and every art file loaded.
    pub files: Vec<PathBuf>,
    pub trigger: Trigger,
    /// Milliseconds spent laying out (with art loading) and uploading.
    pub load_ms: f64,
    pub upload_ms: f64,
    /// A preview of a large document's first features; the whole follows.
    pub partial: bool,
}

/// A scene's upload.
// Held in a boxed `Ready` (`Outcome::Ready`): the scene is not moved about by value.
#[allow(clippy::large_enum_variant)]
pub enum Uploaded {
    /// The whole scene.
    Scene(SceneGpu),
    /// The last part of a large document's rest, uploaded alone: the window adds it to
    /// the preview it shows ([`SceneGpu::attach`]), which is not uploaded again. `after`:
    /// the parts the preview holds before it (the preview and the parts of the rest
    /// handed on as [`Outcome::Part`]).
    Rest { part: Box<ScenePart>, after: usize },
}

impl Uploaded {
    /// The scene to draw: the upload, or `preview` (the preview shown, uploaded on `on`,
    /// with the parts of the rest added so far) with the last part added. Where the
    /// preview cannot take it (it always should), the whole is uploaded here instead.
    pub fn into_scene(
        self,
        preview: Option<SceneGpu>,
        on: &Gpu,
        view: &Document,
        art: &ArtSet,
        framing: &Framing,
    ) -> Result<SceneGpu, String> {
        let (part, after) = match self {
            Uploaded::Scene(g) => return Ok(g),
            Uploaded::Rest { part, after } => (part, after),
        };
        let scene = &view.loaded.scene;
        let failed = |e: &dyn std::fmt::Display| format!("{}: error: {e}", scene.asset);
        let terrain = framing
            .terrain()
            .ok_or_else(|| failed(&"the scene has no terrain"))?;
        if let Some(mut g) = preview.filter(|g| g.part_count() == after) {
            if g.attach(&on.ctx, &on.renderer, *part, scene, terrain)
                .is_ok()
            {
                return Ok(g);
            }
        }
        eprintln!("agview: warning: the preview cannot take the rest; uploading the whole");
        SceneGpu::new(&on.ctx, &on.renderer, scene, art, terrain).map_err(|e| failed(&e))
    }
}

/// A part of a large document's rest, uploaded while the rest is laid out, for the
/// preview shown ([`Outcome::Part`]).
pub struct RestPart {
    pub part: Box<ScenePart>,
    /// The features it holds.
    pub features: usize,
    /// The device it was uploaded on.
    pub on: Arc<Gpu>,
}

impl RestPart {
    /// Adds the part to `shown`, the preview drawn (with the parts before this one) over
    /// `framing`'s terrain, where it was uploaded on `device`; whether it was added. The
    /// overlays are built from `scene`, what is shown, until the whole comes.
    pub fn add_to(
        self,
        shown: &mut SceneGpu,
        scene: &crate::scene::Scene,
        framing: &Framing,
        device: &Arc<Gpu>,
    ) -> bool {
        let Some(terrain) = framing.terrain() else {
            return false;
        };
        Arc::ptr_eq(device, &self.on)
            && shown
                .attach(&self.on.ctx, &self.on.renderer, *self.part, scene, terrain)
                .is_ok()
    }
}

/// What the window shows beside a scene, worked out on the loader thread.
pub struct Described {
    /// Every message of the load: reading, layout, art, upload.
    pub messages: Vec<Diagnostic>,
    /// The feature table's index of the features and messages.
    pub index: FeatureIndex,
    /// Each feature's box (highlight, picking).
    pub boxes: Vec<Option<([f32; 3], [f32; 3])>>,
}

impl Described {
    fn of(
        view: &Document,
        art: &ArtSet,
        art_warnings: &[Diagnostic],
        gpu_warnings: &[Diagnostic],
        framing: &Framing,
    ) -> Described {
        let mut messages = view.loaded.messages();
        messages.extend(art_warnings.iter().cloned());
        messages.extend(gpu_warnings.iter().cloned());
        let scene = &view.loaded.scene;
        let index = FeatureIndex::of(&scene.features, &messages);
        let boxes = crate::render::feature_boxes(scene, Some(art), framing.terrain().map(|t| &**t));
        Described {
            messages,
            index,
            boxes,
        }
    }
}

/// The result of one load.
pub enum Outcome {
    Ready(Box<Ready>),
    /// A part of a large document's rest, to add to the preview shown: the window draws
    /// it at once, while later parts are laid out and uploaded. The whole follows as a
    /// [`Ready`] (its last part, or the whole uploaded anew).
    Part(RestPart),
    Failed {
        error: String,
        /// The asset and polygon: what to watch for a fix.
        files: Vec<PathBuf>,
        trigger: Trigger,
    },
}

enum Msg {
    Gpu(Arc<Gpu>),
    Job(Box<LoadJob>, Trigger),
    Reload(Trigger),
    /// Wakes the thread to see that [`Loader::quit`] is set.
    Quit,
}

/// What the loader is uploading now, for the window's frames to wait for.
#[derive(Default)]
struct Uploading {
    /// An edit's scene ([`edit_hold`]).
    edit: AtomicBool,
    /// A part of a large document's rest ([`Loader::uploading_part`]).
    part: AtomicBool,
}

/// The loading thread's handle.
pub struct Loader {
    tx: Sender<Msg>,
    pub results: Receiver<Outcome>,
    /// What the loader is uploading now.
    uploading: Arc<Uploading>,
    /// Set when the window goes: the thread stops at its next step.
    quit: Arc<AtomicBool>,
    thread: Option<std::thread::JoinHandle<()>>,
}

/// How long the window, once closed, waits for the loader to stop (it stops between the
/// steps of a load, not inside a layout).
const QUIT_WAIT: Duration = Duration::from_secs(5);

/// Art kept between loads, reused when a new layout names the same files and none of the
/// files it was loaded from has changed on disk (so editing an asset's directives reloads
/// in milliseconds; editing a texture or naming another mesh loads the art again).
struct ArtCache {
    key: Vec<String>,
    stamps: Vec<(PathBuf, Option<Stamp>)>,
    art: Arc<ArtSet>,
    /// The GPU textures of `art` the last upload made, and the device they live on: the
    /// next upload on that device makes only what they lack, so a relayout (an edit, a
    /// layout option) uploads its buffers alone.
    textures: Option<(Weak<Gpu>, SceneTextures)>,
}

/// What a large document's preview hands on to the whole's load: its decoded images (taken
/// by the whole's art load) and its textures on the device they were uploaded on.
struct Handed {
    images: Option<crate::art::DecodedImages>,
    textures: SceneTextures,
    on: Weak<Gpu>,
    /// The terrain the preview was uploaded on (sized for the document's extent as read)
    /// and the bounds it was sized for: the parts of the rest but the last are uploaded on
    /// it too.
    terrain: Arc<crate::terrain::Terrain>,
    sized_for: Bounds,
    /// The extent of the preview and the parts of the rest laid out so far, the ground the
    /// preview was uploaded on, and what its upload and the parts' said.
    extent: Extent,
    ground: PartGround,
    warnings: Vec<Diagnostic>,
    /// The parts of the rest handed to the window so far, and the upload time of every
    /// part of the rest, ms.
    sent: usize,
    upload_ms: f64,
    /// The last part of the rest, with the ground it was uploaded on (the whole's terrain,
    /// when the whole's bounds are those of the preview and the rest together), and the
    /// terrain itself (the whole is drawn on it).
    rest: Option<(ScenePart, PartGround)>,
    last_terrain: Option<(Bounds, Arc<crate::terrain::Terrain>)>,
}

/// Bounds `(min, max)` in meters, and an extent (`Scene::extent`: none where nothing is).
type Bounds = ([f32; 2], [f32; 2]);
type Extent = Option<Bounds>;

/// Two extents together (`Scene::extent` of a scene holding both).
fn union(a: Extent, b: Extent) -> Extent {
    match (a, b) {
        (Some((alo, ahi)), Some((blo, bhi))) => Some((
            [alo[0].min(blo[0]), alo[1].min(blo[1])],
            [ahi[0].max(bhi[0]), ahi[1].max(bhi[1])],
        )),
        (a, b) => a.or(b),
    }
}

/// What tells a changed file: its modification time and length.
type Stamp = (std::time::SystemTime, u64);

fn stamp(p: &Path) -> Option<Stamp> {
    let m = std::fs::metadata(p).ok()?;
    Some((m.modified().ok()?, m.len()))
}

fn stamps(files: &[PathBuf]) -> Vec<(PathBuf, Option<Stamp>)> {
    files.iter().map(|f| (f.clone(), stamp(f))).collect()
}

impl ArtCache {
    fn fresh_for(&self, key: &[String]) -> bool {
        self.key == key && self.stamps.iter().all(|(f, s)| stamp(f) == *s)
    }
}

fn art_key(view: &Document) -> Vec<String> {
    let s = &view.loaded.scene;
    let name = |r: &crate::scene::ArtRef| r.resolved.clone().unwrap_or_else(|| r.name.to_string());
    let mut k: Vec<String> = s.meshes.iter().map(name).collect();
    k.push("|".into());
    k.extend(s.facade_defs.iter().map(name));
    k.push("|".into());
    k.extend(s.forest.iter().map(name));
    k.push("|".into());
    // Each texture with its night texture (none is a key of its own: adding or removing a
    // `TEXTURE_LIT` loads the art again).
    let lit = |l: &Option<String>| l.clone().unwrap_or_else(|| "(no TEXTURE_LIT)".into());
    if let Some(t) = &s.tile_texture {
        k.extend([t.path.clone(), lit(&t.lit)]);
    }
    k.push("|".into());
    for (p, l) in view.atlas.paths.iter().zip(&view.atlas.lit) {
        k.extend([p.clone(), lit(l)]);
    }
    k
}

impl Loader {
    /// Starts the thread; `wake` is called after each outcome is sent (it wakes the event
    /// loop).
    pub fn spawn(wake: impl Fn() + Send + 'static) -> std::io::Result<Self> {
        let (tx, rx) = mpsc::channel::<Msg>();
        let (out_tx, results) = mpsc::channel();
        let uploading = Arc::new(Uploading::default());
        let quit = Arc::new(AtomicBool::new(false));
        let flags = (uploading.clone(), quit.clone());
        let thread = std::thread::Builder::new()
            .name("agview-loader".into())
            .spawn(move || loader_thread(rx, out_tx, wake, &flags.0, &flags.1))?;
        Ok(Loader {
            tx,
            results,
            uploading,
            quit,
            thread: Some(thread),
        })
    }

    /// Whether the loader is uploading an edit's scene now.
    pub fn uploading_edit(&self) -> bool {
        self.uploading.edit.load(Ordering::Acquire)
    }

    /// Whether the loader is uploading a part of a large document's rest now: a frame
    /// started meanwhile would make the upload wait behind it on a software rasterizer,
    /// whose present blocks the device until the frame is drawn ([`PART_HOLD`]).
    pub fn uploading_part(&self) -> bool {
        self.uploading.part.load(Ordering::Acquire)
    }

    /// Hands the loader the device (uploads wait for it).
    pub fn set_gpu(&self, gpu: Arc<Gpu>) {
        let _ = self.tx.send(Msg::Gpu(gpu));
    }

    /// Loads `job` (and remembers it for file reloads).
    pub fn load(&self, job: LoadJob, trigger: Trigger) {
        let _ = self.tx.send(Msg::Job(Box::new(job), trigger));
    }

    /// A sender that reloads the last job, for the file watcher.
    pub fn reloader(&self) -> impl Fn(Instant) + Send + 'static {
        let tx = self.tx.clone();
        move |t| {
            let _ = tx.send(Msg::Reload(Trigger::Files(t)));
        }
    }
}

impl Drop for Loader {
    /// Stops the thread and waits for it (at most [`QUIT_WAIT`]). The thread holds the
    /// device and the art's textures: left running, it would release them while the process
    /// exits, as the driver's exit handlers run (Mesa's software rasterizer has crashed
    /// there).
    fn drop(&mut self) {
        self.quit.store(true, Ordering::Release);
        let _ = self.tx.send(Msg::Quit);
        let Some(thread) = self.thread.take() else {
            return;
        };
        let until = Instant::now() + QUIT_WAIT;
        while !thread.is_finished() && Instant::now() < until {
            std::thread::sleep(Duration::from_millis(5));
        }
        if thread.is_finished() {
            let _ = thread.join();
        } else {
            eprintln!(
                "agview: warning: the loader is still laying out after {} s; exiting without it",
                QUIT_WAIT.as_secs()
            );
        }
    }
}

/// Merges a newer trigger into a pending one: a file change stays a file change (art must
/// be reloaded) and keeps its first instant (for the latency figure).
fn merge(old: Option<Trigger>, new: Trigger) -> Trigger {
    match (old, new) {
        (Some(Trigger::Files(a)), Trigger::Files(b)) => Trigger::Files(a.min(b)),
        (Some(old @ Trigger::Files(_)), _) => old,
        (_, new @ Trigger::Files(_)) => new,
        (Some(Trigger::Startup), _) => Trigger::Startup,
        // A newer edit supersedes a pending one; the time to frame counts from the first.
        (Some(Trigger::Edit(a)), Trigger::Edit(b)) => Trigger::Edit(a.min(b)),
        (_, new) => new,
    }
}

fn loader_thread(
    rx: Receiver<Msg>,
    out: Sender<Outcome>,
    wake: impl Fn(),
    uploading: &Uploading,
    quit: &AtomicBool,
) {
    let mut gpu: Option<Arc<Gpu>> = None;
    let mut job: Option<LoadJob> = None;
    let mut pending: Option<Trigger> = None;
    let mut cache: Option<ArtCache> = None;
    loop {
        // Wait for work, then take everything queued so only the newest job runs.
        if pending.is_none() {
            match rx.recv() {
                Ok(m) => apply(m, &mut gpu, &mut job, &mut pending),
                Err(_) => return,
            }
        }
        while let Ok(m) = rx.try_recv() {
            apply(m, &mut gpu, &mut job, &mut pending);
        }
        if quit.load(Ordering::Acquire) {
            return;
        }
        let (Some(trigger), Some(j)) = (pending.take(), job.clone()) else {
            continue;
        };
        let emit = |o: Outcome| {
            if out.send(o).is_ok() {
                wake();
            }
        };
        let outcome = load_one(
            &j,
            trigger,
            &rx,
            &mut gpu,
            &mut job,
            &mut pending,
            &mut cache,
            &emit,
            uploading,
            quit,
        );
        match outcome {
            Some(o) => {
                if out.send(o).is_err() {
                    return;
                }
                wake();
            }
            None => return,
        }
    }
}

fn apply(
    m: Msg,
    gpu: &mut Option<Arc<Gpu>>,
    job: &mut Option<LoadJob>,
    pending: &mut Option<Trigger>,
) {
    match m {
        Msg::Gpu(g) => *gpu = Some(g),
        Msg::Job(j, t) => {
            *job = Some(*j);
            *pending = Some(merge(*pending, t));
        }
        Msg::Reload(t) => *pending = Some(merge(*pending, t)),
        Msg::Quit => {}
    }
}

/// Loads one job; `None` when the window has gone (the channel closed, or `quit` is set).
// The loader thread's whole state goes in by parts: the job, the queue it reads while a
// load waits for the device, the art cache, and where a preview goes.
#[allow(clippy::too_many_arguments)]
fn load_one(
    j: &LoadJob,
    trigger: Trigger,
    rx: &Receiver<Msg>,
    gpu: &mut Option<Arc<Gpu>>,
    job: &mut Option<LoadJob>,
    pending: &mut Option<Trigger>,
    cache: &mut Option<ArtCache>,
    emit: &dyn Fn(Outcome),
    uploading: &Uploading,
    quit: &AtomicBool,
) -> Option<Outcome> {
    let quitting = || quit.load(Ordering::Acquire);
    let started = Instant::now();
    if let (Trigger::Startup, Some(d)) = (trigger, j.startup_delay) {
        std::thread::sleep(d);
    }
    let mut watch = vec![j.asset.clone()];
    watch.extend(j.inputs.polygon_path().map(PathBuf::from));
    let fail = |error: String, files: Vec<PathBuf>| Outcome::Failed {
        error,
        files,
        trigger,
    };
    let mut handed: Option<Handed> = None;
    let (view, art, terrain) = match j.synthetic_city {
        Some(blocks) => {
            let opts = crate::render::BenchOptions {
                blocks,
                objects: blocks.saturating_mul(100),
                ..crate::render::BenchOptions::default()
            };
            let (scene, art, terrain) = crate::render::synthetic_city(&opts);
            let view = Document {
                loaded: crate::pipeline::Loaded {
                    scene,
                    diagnostics: Vec::new(),
                    files: Vec::new(),
                },
                atlas: document::TileAtlas::default(),
                times: Default::default(),
                terrain: None,
                terrain_dependent: false,
                resolver: Default::default(),
            };
            (view, Arc::new(art), Arc::new(terrain))
        }
        None => {
            if let Some(p) = &j.load.progress {
                p.reset();
            }
            // The terrain is a layout input of autogen points placed by library path
            // (SLOPE_LIMIT): a terrain change reloads, and the loader screens them again.
            let load = document::LoadOptions {
                ground: Some(j.render.terrain.ground()),
                ..j.load.clone()
            };
            // At launch, a large document shows its first features while the rest is laid
            // out (a reload keeps the last whole scene on screen instead), then each part of
            // the rest as it is laid out. What the preview decoded and uploaded is handed
            // on: each part of the rest is uploaded alone, as a part the window adds to
            // what it shows, decoding only the images those before it lacked (else the
            // whole uploads only what the preview lacked).
            // It returns whether the part was shown (so the next is wanted).
            let mut show_preview = |p: document::PreviewPart| -> bool {
                while let Ok(m) = rx.try_recv() {
                    apply(m, gpu, job, pending);
                }
                if quitting() {
                    return false;
                }
                let Some(g) = gpu.clone() else { return false };
                // The part's layout is done: what its workers freed is given back before
                // its upload, as the tile bench does.
                release_freed(trigger);
                if !p.first {
                    let shown = handed
                        .as_mut()
                        .is_some_and(|h| upload_rest(h, p, &g, &j.render, emit, &uploading.part));
                    release_freed(trigger);
                    return shown;
                }
                let mut doc = p.doc;
                let mut art = document::load_document_art_with(&mut doc, &j.render.window_art());
                // The terrain of the whole document as read, so that the rest can be
                // added to the preview on hills and height maps too (where the whole as
                // laid out reaches no further).
                let sized_for = p.extent.unwrap_or_else(|| doc.loaded.scene.bounds());
                let Ok(terrain) = j
                    .render
                    .terrain
                    .terrain_for_bounds(sized_for.0, sized_for.1)
                else {
                    return false;
                };
                let up = Instant::now();
                let Ok(scene_gpu) =
                    SceneGpu::new(&g.ctx, &g.renderer, &doc.loaded.scene, &art, &terrain)
                else {
                    return false;
                };
                let terrain = Arc::new(terrain);
                // The preview's art keeps its images' names and sizes, not their pixels:
                // they are on the GPU, and the whole's art takes them over.
                handed = Some(Handed {
                    images: Some(art.take_decoded()),
                    textures: scene_gpu.textures(),
                    on: Arc::downgrade(&g),
                    terrain: terrain.clone(),
                    sized_for,
                    extent: doc.loaded.scene.extent(),
                    ground: scene_gpu.part_ground(),
                    warnings: scene_gpu.warnings().to_vec(),
                    sent: 0,
                    upload_ms: 0.0,
                    rest: None,
                    last_terrain: None,
                });
                let art = Arc::new(art);
                let framing = j
                    .render
                    .framing(&doc.loaded.scene, Some(&art), Some(&terrain))
                    .with_ground(terrain);
                let described = Described::of(&doc, &art, &[], scene_gpu.warnings(), &framing);
                emit(Outcome::Ready(Box::new(Ready {
                    art,
                    view: doc,
                    gpu: Uploaded::Scene(scene_gpu),
                    described,
                    uploaded_on: g,
                    framing,
                    files: Vec::new(),
                    trigger,
                    load_ms: started.elapsed().as_secs_f64() * 1e3,
                    upload_ms: up.elapsed().as_secs_f64() * 1e3,
                    partial: true,
                })));
                if let Some(p) = &j.load.progress {
                    p.set_stage(crate::progress::Stage::LayingOut);
                }
                release_freed(trigger);
                true
            };
            let preview: Option<&mut dyn FnMut(document::PreviewPart) -> bool> =
                (trigger == Trigger::Startup).then_some(&mut show_preview);
            let loaded = document::load_with_preview(&j.asset, &j.inputs, &load, preview);
            if quitting() {
                return None;
            }
            let mut view = match loaded {
                Ok(v) => v,
                Err(e) => return Some(fail(e.to_string(), watch)),
            };
            let key = art_key(&view);
            if let Some(p) = &j.load.progress {
                p.set_stage(crate::progress::Stage::LoadingArt);
            }
            let art = match cache.as_ref().filter(|c| c.fresh_for(&key)) {
                Some(c) => c.art.clone(),
                None => {
                    let seed = handed.as_mut().and_then(|h| h.images.take());
                    let a = Arc::new(document::load_document_art_seeded(
                        &mut view,
                        &j.render.window_art(),
                        seed,
                    ));
                    let mut files = art_files(&a);
                    files.extend(view.atlas.files().map(PathBuf::from));
                    *cache = Some(ArtCache {
                        key,
                        stamps: stamps(&files),
                        art: a.clone(),
                        textures: None,
                    });
                    a
                }
            };
            // The terrain the screening measured on; else the whole's, which the last
            // part of the rest was uploaded on where the whole's bounds are those it was
            // made for.
            let kept = handed
                .as_ref()
                .and_then(|h| h.last_terrain.clone())
                .filter(|(b, _)| view.terrain.is_none() && *b == view.loaded.scene.bounds());
            let terrain = match (view.terrain.take(), kept) {
                (Some(t), _) => Arc::new(t),
                (None, Some((_, t))) => t,
                (None, None) => match j.render.terrain.terrain_for(&view.loaded.scene) {
                    Ok(t) => Arc::new(t),
                    Err(e) => return Some(fail(e, watch)),
                },
            };
            (view, art, terrain)
        }
    };
    let load_ms = started.elapsed().as_secs_f64() * 1e3;
    // The device arrives once the window has opened.
    while gpu.is_none() && !quitting() {
        match rx.recv() {
            Ok(m) => apply(m, gpu, job, pending),
            Err(_) => return None,
        }
    }
    if quitting() {
        return None;
    }
    let g = gpu.as_ref()?;
    release_freed(trigger);
    let up = Instant::now();
    if let Some(p) = &j.load.progress {
        p.set_stage(crate::progress::Stage::Uploading);
    }
    // The last part of a preview's rest, uploaded on this very ground and device: the
    // window adds it to the preview and the parts before it; nothing more is uploaded.
    let rest = handed
        .as_mut()
        .filter(|h| std::ptr::eq(h.on.as_ptr(), Arc::as_ptr(g)))
        .and_then(|h| {
            let (part, ground) = h.rest.take()?;
            let warnings = std::mem::take(&mut h.warnings);
            Some((part, ground, warnings, h.sent + 1, h.upload_ms))
        })
        .filter(|(_, ground, ..)| *ground == PartGround::of(&terrain));
    // The rest was uploaded while the whole was laid out: the parts' own upload time is
    // the whole's.
    let mut upload_ms = None;
    let (uploaded, gpu_warnings) = match rest {
        Some((part, _, warnings, after, parts_ms)) => {
            if let Some(c) = cache.as_mut().filter(|c| Arc::ptr_eq(&c.art, &art)) {
                c.textures = Some((Arc::downgrade(g), part.textures()));
            }
            upload_ms = Some(parts_ms);
            let part = Box::new(part);
            (Uploaded::Rest { part, after }, warnings)
        }
        None => {
            // The art's textures from the last upload, where the art and the device are
            // the same.
            let kept = cache.as_mut().filter(|c| Arc::ptr_eq(&c.art, &art));
            // Else the preview's (or its rest's), where it was uploaded on this device:
            // its images come first in the whole's art, and the upload keeps the
            // textures whose image is the same.
            let textures = kept
                .as_ref()
                .and_then(|c| c.textures.as_ref())
                .filter(|(on, _)| std::ptr::eq(on.as_ptr(), Arc::as_ptr(g)))
                .map(|(_, t)| t.clone())
                .or_else(|| {
                    handed
                        .take()
                        .filter(|h| std::ptr::eq(h.on.as_ptr(), Arc::as_ptr(g)))
                        .map(|h| h.textures)
                })
                .unwrap_or_default();
            let edit = matches!(trigger, Trigger::Edit(_));
            uploading.edit.store(edit, Ordering::Release);
            let uploaded = SceneGpu::new_with_textures(
                &g.ctx,
                &g.renderer,
                &view.loaded.scene,
                &art,
                &terrain,
                textures,
            );
            uploading.edit.store(false, Ordering::Release);
            let scene_gpu = match uploaded {
                Ok(s) => s,
                Err(e) => return Some(fail(format!("{}: error: {e}", j.asset.display()), watch)),
            };
            if let Some(c) = kept {
                c.textures = Some((Arc::downgrade(g), scene_gpu.textures()));
            }
            let warnings = scene_gpu.warnings().to_vec();
            (Uploaded::Scene(scene_gpu), warnings)
        }
    };
    let upload_ms = upload_ms.unwrap_or_else(|| up.elapsed().as_secs_f64() * 1e3);
    let framing = j
        .render
        .framing(&view.loaded.scene, Some(&art), Some(&*terrain))
        .with_ground(terrain);
    let mut files = view.loaded.files.clone();
    files.extend(art_files(&art));
    files.extend(watch);
    if let crate::app::options::TerrainSpec::Heightmap(p) = &j.render.terrain.kind {
        files.push(p.clone());
    }
    let described = Described::of(&view, &art, &art.warnings, &gpu_warnings, &framing);
    release_freed(trigger);
    Some(Outcome::Ready(Box::new(Ready {
        art: art.clone(),
        view,
        gpu: uploaded,
        described,
        uploaded_on: g.clone(),
        framing,
        files,
        trigger,
        load_ms,
        upload_ms,
        partial: false,
    })))
}

/// Gives the system back what the allocators hold freed
/// ([`crate::render::release_freed_memory`]), called before and after each upload of a
/// load (the preview's, each part's, the whole's), as the tile bench does: before, what
/// the layout's workers freed (the Rust heap's); after, the upload's staging copies (the C
/// allocator's, on a software rasterizer), the part's scene and what the frames drawn
/// meanwhile freed. Else each stays resident under what the other allocator takes next,
/// and the window needs far more memory than `agview bench tile`. Not for an edit: its
/// layout is small and its time to frame counts.
fn release_freed(trigger: Trigger) {
    if !matches!(trigger, Trigger::Edit(_)) {
        crate::render::release_freed_memory();
    }
}

/// Uploads a part `p` of the rest of a large document after its preview (`h`) as a part
/// to add to the preview, seeding its art with the images decoded before it and its upload
/// with the textures made before it; then hands on its decoded images and textures to the
/// next part and the whole. A part but the last is uploaded on the preview's terrain and
/// handed to the window at once ([`Outcome::Part`]); the last on the terrain of the bounds
/// of every part together (the whole's, unless the whole is screened or bounded otherwise,
/// when the whole is uploaded instead), kept for the whole's [`Ready`]. Whether the part was
/// uploaded: nothing is where the preview's ground cannot take it ([`PartGround::takes`]:
/// hills or a height map on another grid, which the whole's extent as read foresaw
/// otherwise), nor on another device.
fn upload_rest(
    h: &mut Handed,
    p: document::PreviewPart,
    g: &Arc<Gpu>,
    render: &RenderArgs,
    emit: &dyn Fn(Outcome),
    uploading: &AtomicBool,
) -> bool {
    if !std::ptr::eq(h.on.as_ptr(), Arc::as_ptr(g)) {
        return false;
    }
    let mut doc = p.doc;
    h.extent = union(h.extent, doc.loaded.scene.extent());
    // `Scene::bounds` of the preview and the parts so far together.
    let bounds = h
        .extent
        .unwrap_or_else(|| crate::scene::Scene::default().bounds());
    let terrain = if !p.last || bounds == h.sized_for {
        h.terrain.clone()
    } else {
        match render.terrain.terrain_for_bounds(bounds.0, bounds.1) {
            Ok(t) => Arc::new(t),
            Err(_) => return false,
        }
    };
    let ground = PartGround::of(&terrain);
    if !h.ground.takes(&ground) {
        return false;
    }
    let seed = h.images.take();
    let mut art = document::load_document_art_seeded(&mut doc, &render.window_art(), seed);
    uploading.store(true, Ordering::Release);
    let uploaded = SceneGpu::upload_part(
        &g.ctx,
        &g.renderer,
        &doc.loaded.scene,
        &art,
        &terrain,
        h.textures.clone(),
    );
    uploading.store(false, Ordering::Release);
    // The next part's art, and the whole's, start with these images (the preview's first).
    h.images = Some(art.take_decoded());
    let Ok(part) = uploaded else { return false };
    h.textures = part.textures();
    h.upload_ms += part.upload_ms();
    h.warnings.extend(part.warnings().iter().cloned());
    if p.last {
        h.rest = Some((part, ground));
        h.last_terrain = Some((bounds, terrain));
    } else {
        h.sent += 1;
        emit(Outcome::Part(RestPart {
            part: Box::new(part),
            features: doc.loaded.scene.features.len(),
            on: g.clone(),
        }));
    }
    true
}

/// The files the art was loaded from (meshes, facades, forest, images), and those it looked
/// for in vain (a placeholder is drawn until they appear).
fn art_files(art: &ArtSet) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = Vec::new();
    v.extend(art.meshes.iter().map(|m| PathBuf::from(&m.name)));
    v.extend(art.facades.iter().map(|f| PathBuf::from(&f.name)));
    v.extend(art.forest.iter().map(|f| PathBuf::from(&f.name)));
    v.extend(
        art.images
            .iter()
            .filter(|i| i.name != "tile atlas" && i.name != "tile atlas (night)")
            .map(|i| PathBuf::from(&i.name)),
    );
    v.retain(|p| !p.as_os_str().is_empty());
    v.sort();
    v.dedup();
    v
}

/// Whether a file event means a file's contents (or existence) changed. Opening and
/// reading a file (which the loader itself does) is not a change.
fn is_change(kind: &notify::EventKind) -> bool {
    use notify::event::{AccessKind, AccessMode, EventKind, ModifyKind};
    match kind {
        EventKind::Create(_) | EventKind::Remove(_) => true,
        EventKind::Modify(ModifyKind::Metadata(_)) => false,
        EventKind::Modify(_) => true,
        EventKind::Access(AccessKind::Close(AccessMode::Write)) => true,
        _ => false,
    }
}

/// The viewer's own saves, shared with the watcher's thread: a path, and its stamp after
/// the write (`None` while it is being written).
type OwnWrites = Arc<Mutex<Vec<(PathBuf, Option<Stamp>)>>>;

/// Watches the folders of a set of files and reports changes to those files, debounced.
pub struct FileWatcher {
    watcher: Option<notify::RecommendedWatcher>,
    files: Arc<Mutex<HashSet<PathBuf>>>,
    /// The viewer's own saves: a path and its stamp after the write (`None` while it is
    /// being written). Events on such a path whose stamp is unchanged are not a change.
    own: OwnWrites,
    dirs: HashSet<PathBuf>,
    /// Why watching does not work, when it does not (shown in the panel).
    pub error: Option<String>,
}

impl FileWatcher {
    /// Starts watching nothing; `on_change` gets the instant of the first event of each
    /// burst, [`DEBOUNCE`] after its last event.
    pub fn new(on_change: impl Fn(Instant) + Send + 'static) -> Self {
        let files: Arc<Mutex<HashSet<PathBuf>>> = Arc::default();
        let own: OwnWrites = Arc::default();
        let (tx, rx) = mpsc::channel::<Instant>();
        let spawned = std::thread::Builder::new()
            .name("agview-debounce".into())
            .spawn(move || debounce(rx, on_change));
        if let Err(e) = spawned {
            return FileWatcher {
                watcher: None,
                files,
                own,
                dirs: HashSet::new(),
                error: Some(format!("hot reload is off: {e}")),
            };
        }
        let watched = files.clone();
        let own_writes = own.clone();
        let handler = move |res: notify::Result<notify::Event>| {
            let Ok(ev) = res else { return };
            if !is_change(&ev.kind) {
                return;
            }
            let own = own_writes.lock().map(|o| o.clone()).unwrap_or_default();
            let hit = match watched.lock() {
                Ok(set) => ev.paths.iter().any(|p| {
                    let p = crate::resolve::absolute(p);
                    set.contains(&p) && !is_own_write(&own, &p)
                }),
                Err(_) => false,
            };
            if hit {
                let _ = tx.send(Instant::now());
            }
        };
        match notify::recommended_watcher(handler) {
            Ok(w) => FileWatcher {
                watcher: Some(w),
                files,
                own,
                dirs: HashSet::new(),
                error: None,
            },
            Err(e) => FileWatcher {
                watcher: None,
                files,
                own,
                dirs: HashSet::new(),
                error: Some(format!("hot reload is off: {e}")),
            },
        }
    }

    /// Watches exactly these files (their folders are watched; events are filtered).
    pub fn set_files(&mut self, files: &[PathBuf]) {
        let abs: HashSet<PathBuf> = files.iter().map(|f| crate::resolve::absolute(f)).collect();
        let dirs: HashSet<PathBuf> = abs
            .iter()
            .filter_map(|f| f.parent().map(Path::to_path_buf))
            .collect();
        if let Ok(mut set) = self.files.lock() {
            *set = abs;
        }
        let Some(w) = self.watcher.as_mut() else {
            return;
        };
        for d in self.dirs.difference(&dirs) {
            let _ = w.unwatch(d);
        }
        let mut failed = Vec::new();
        for d in dirs.difference(&self.dirs) {
            if let Err(e) = w.watch(d, notify::RecursiveMode::NonRecursive) {
                failed.push(format!("{}: {e}", d.display()));
            }
        }
        self.error = (!failed.is_empty()).then(|| format!("not watching {}", failed.join("; ")));
        self.dirs = dirs;
    }

    /// The viewer is about to write `path` itself: its events are not a change until
    /// [`FileWatcher::own_write_done`] records the stamp the write left.
    pub fn expect_own_write(&self, path: &Path) {
        let p = crate::resolve::absolute(path);
        if let Ok(mut o) = self.own.lock() {
            o.retain(|(q, _)| *q != p);
            o.push((p, None));
        }
    }

    /// The viewer's write of `path` is done: later events on it count only once its
    /// stamp (modification time and length) differs from the one the write left.
    pub fn own_write_done(&self, path: &Path) {
        let p = crate::resolve::absolute(path);
        let s = stamp(&p);
        if let Ok(mut o) = self.own.lock() {
            o.retain(|(q, _)| *q != p);
            o.push((p, s));
        }
    }

    /// The files watched, absolute.
    pub fn files(&self) -> Vec<PathBuf> {
        self.files
            .lock()
            .map(|s| s.iter().cloned().collect())
            .unwrap_or_default()
    }
}

/// Whether an event on `p` is the viewer's own save: being written, or with the stamp the
/// save left.
fn is_own_write(own: &[(PathBuf, Option<Stamp>)], p: &Path) -> bool {
    own.iter()
        .any(|(q, s)| q == p && (s.is_none() || stamp(p) == *s))
}

fn debounce(rx: Receiver<Instant>, on_change: impl Fn(Instant)) {
    while let Ok(first) = rx.recv() {
        loop {
            match rx.recv_timeout(DEBOUNCE) {
                Ok(_) => continue,
                Err(RecvTimeoutError::Timeout) => break,
                Err(RecvTimeoutError::Disconnected) => return,
            }
        }
        on_change(first);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dropping_the_loader_stops_its_thread_before_it_returns() {
        // The thread owns `wake`, and with it this count: once the drop returns, the thread
        // has gone (so has the device it would hold), even with a sender still alive, as the
        // file watcher keeps one.
        let alive = Arc::new(());
        let held = alive.clone();
        let loader = Loader::spawn(move || {
            let _ = &held;
        })
        .expect("a thread");
        let watcher_side = loader.reloader();
        drop(loader);
        assert_eq!(Arc::strong_count(&alive), 1);
        drop(watcher_side);
    }

    #[test]
    fn the_extent_of_parts_together_holds_each() {
        let a = Some(([0.0, -5.0], [10.0, 5.0]));
        let b = Some(([-2.0, 1.0], [4.0, 8.0]));
        assert_eq!(union(a, b), Some(([-2.0, -5.0], [10.0, 8.0])));
        assert_eq!(union(a, None), a);
        assert_eq!(union(None, b), b);
        // A part that places nothing adds nothing, not the default bounds.
        assert_eq!(union(None, None), None);
    }

    #[test]
    fn merged_triggers_keep_file_changes_and_their_first_instant() {
        let t0 = Instant::now();
        let t1 = t0 + Duration::from_millis(5);
        assert_eq!(merge(None, Trigger::Params), Trigger::Params);
        assert_eq!(
            merge(Some(Trigger::Files(t1)), Trigger::Files(t0)),
            Trigger::Files(t0)
        );
        assert_eq!(
            merge(Some(Trigger::Files(t0)), Trigger::Params),
            Trigger::Files(t0)
        );
        assert_eq!(
            merge(Some(Trigger::Params), Trigger::Files(t1)),
            Trigger::Files(t1)
        );
        assert_eq!(
            merge(Some(Trigger::Startup), Trigger::Params),
            Trigger::Startup
        );
    }

    #[test]
    fn a_frame_waits_for_an_edits_layout_only_a_moment_after_the_edit() {
        let now = Instant::now();
        let wait = edit_hold(Some(now), true, false).expect("a fresh edit holds the frame");
        assert!(wait <= EDIT_HOLD);
        assert_eq!(
            edit_hold(Some(now), false, false),
            None,
            "nothing loading: no wait"
        );
        assert_eq!(edit_hold(None, true, false), None, "no edit: no wait");
        assert_eq!(
            edit_hold(None, true, true),
            Some(EDIT_HOLD),
            "an edit's upload: the frame waits for it"
        );
        let old = now.checked_sub(EDIT_HOLD * 2).unwrap_or(now);
        if old < now {
            assert_eq!(
                edit_hold(Some(old), true, false),
                None,
                "an old edit: no wait"
            );
        }
    }

    #[test]
    fn reading_is_not_a_change_but_writing_is() {
        use notify::event::*;
        assert!(!is_change(&EventKind::Access(AccessKind::Open(
            AccessMode::Any
        ))));
        assert!(!is_change(&EventKind::Access(AccessKind::Close(
            AccessMode::Read
        ))));
        assert!(is_change(&EventKind::Access(AccessKind::Close(
            AccessMode::Write
        ))));
        assert!(is_change(&EventKind::Modify(ModifyKind::Data(
            DataChange::Any
        ))));
        assert!(is_change(&EventKind::Modify(ModifyKind::Name(
            RenameMode::To
        ))));
        assert!(is_change(&EventKind::Remove(RemoveKind::File)));
        assert!(!is_change(&EventKind::Modify(ModifyKind::Metadata(
            MetadataKind::Any
        ))));
    }

    #[test]
    fn the_viewers_own_save_is_not_a_change_but_a_later_write_is() {
        let dir = std::env::temp_dir().join(format!("agview-own-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let f = dir.join("p.geojson");
        std::fs::write(&f, "one").unwrap();
        let (tx, rx) = mpsc::channel();
        let mut w = FileWatcher::new(move |t| {
            let _ = tx.send(t);
        });
        w.set_files(std::slice::from_ref(&f));
        // Saved by rename, as the edit mode does.
        w.expect_own_write(&f);
        let tmp = dir.join("p.geojson.tmp");
        std::fs::write(&tmp, "two, saved").unwrap();
        std::fs::rename(&tmp, &f).unwrap();
        w.own_write_done(&f);
        assert!(
            rx.recv_timeout(Duration::from_millis(400)).is_err(),
            "the viewer's own save reloads nothing"
        );
        std::fs::write(&f, "three, by another program").unwrap();
        assert!(rx.recv_timeout(Duration::from_secs(5)).is_ok());
        drop(w);
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn watcher_reports_a_write_and_a_save_by_rename_once_each() {
        let dir = std::env::temp_dir().join(format!("agview-watch-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let f = dir.join("a.agb");
        let other = dir.join("other.txt");
        std::fs::write(&f, "one").unwrap();
        let (tx, rx) = mpsc::channel();
        let mut w = FileWatcher::new(move |t| {
            let _ = tx.send(t);
        });
        assert!(w.error.is_none(), "{:?}", w.error);
        w.set_files(std::slice::from_ref(&f));
        // A file not watched changes: nothing.
        std::fs::write(&other, "x").unwrap();
        assert!(rx.recv_timeout(Duration::from_millis(300)).is_err());
        // A plain write (truncate, write, close): one burst.
        std::fs::write(&f, "two").unwrap();
        assert!(rx.recv_timeout(Duration::from_secs(5)).is_ok());
        assert!(
            rx.recv_timeout(Duration::from_millis(300)).is_err(),
            "one reload per save"
        );
        // Reading it is not a change.
        let _ = std::fs::read(&f).unwrap();
        assert!(rx.recv_timeout(Duration::from_millis(300)).is_err());
        // Save by rename, as editors do.
        let tmp = dir.join("a.agb.swp");
        std::fs::write(&tmp, "three").unwrap();
        std::fs::rename(&tmp, &f).unwrap();
        assert!(rx.recv_timeout(Duration::from_secs(5)).is_ok());
        drop(w);
        let _ = std::fs::remove_dir_all(&dir);
    }
}
