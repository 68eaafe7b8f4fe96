//! `agview bench tile`: the whole way from a scenery document to a frame on a tile-sized
//! scene. A synthetic 1°×1° tile of N autogen features ([`crate::document::synthetic`]) is
//! written to the temporary folder, loaded as every command loads a document (laid out on
//! every core), its art loaded, uploaded and drawn ([`bench_scene_drafted`]).
//!
//! The report is the layout's figures and the frame's ([`BenchReport`]) side by side; in
//! JSON one object, the frame's fields flattened among the layout's.

use std::time::Instant;

use crate::app::options::TerrainArgs;
use crate::document::synthetic::{self, SyntheticMix, SyntheticTile, TempDocument};
use crate::document::{self, LoadOptions, LoadTimes};
use crate::render::{
    bench_scene_drafted, window_draft, BenchFrame, BenchReport, Camera, Framing, Headless,
};
use crate::scene::Scene;

/// What to measure.
#[derive(Debug, Clone, PartialEq)]
pub struct TileBenchOptions {
    /// Autogen features in the tile.
    pub features: usize,
    /// Layout workers; 0 for one per core.
    pub threads: usize,
    pub width: u32,
    pub height: u32,
    /// Frames measured after the first.
    pub frames: u32,
    pub camera: TileCamera,
}

impl Default for TileBenchOptions {
    fn default() -> Self {
        TileBenchOptions {
            features: 100_000,
            threads: 0,
            width: 1920,
            height: 1080,
            frames: 1,
            camera: TileCamera::Town,
        }
    }
}

/// Where the tile bench's camera stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum TileCamera {
    /// The default: a pilot's low pass over the largest town ([`town_camera`]): 2 km
    /// from its middle, from the south-west, 20° down. The houses near the middle are
    /// within their LOD ranges; the rest of the tile stretches away to the haze.
    #[default]
    Town,
    /// The default framing of the whole tile (from the south-west at 35°): every feature in
    /// the frustum, the most one frame can be asked to draw. The camera is about 160 km
    /// away, so the haze hides nearly everything.
    Tile,
}

impl std::str::FromStr for TileCamera {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "tile" => Ok(TileCamera::Tile),
            "town" => Ok(TileCamera::Town),
            _ => Err(format!("`{s}`: expected tile or town")),
        }
    }
}

/// Milliseconds of each stage of the document's load ([`LoadTimes`]).
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct LoadStages {
    /// Reading and parsing the DSF text.
    pub read_ms: f64,
    /// Resolving the definitions and opening the assets.
    pub resolve_ms: f64,
    /// Laying the features out, on every worker, each merged into the scene as soon as
    /// those before it are in.
    pub layout_ms: f64,
    /// Combining them into one scene: what is left once they are laid out (drawing orders,
    /// atlas slots).
    pub combine_ms: f64,
}

impl From<LoadTimes> for LoadStages {
    fn from(t: LoadTimes) -> Self {
        LoadStages {
            read_ms: t.read_ms,
            resolve_ms: t.resolve_ms,
            layout_ms: t.layout_ms,
            combine_ms: t.combine_ms,
        }
    }
}

/// What `agview bench tile` measured.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct TileBenchReport {
    /// Autogen features in the document.
    pub features: usize,
    /// Of each asset.
    pub mix: SyntheticMix,
    pub towns: usize,
    /// Layout workers used.
    pub threads: usize,
    /// Writing the synthetic DSF text (not part of the load).
    pub generate_ms: f64,
    /// Loading the document (read, resolve, lay out, combine), wall time.
    pub layout_ms: f64,
    /// [`Self::layout_ms`] by stage.
    pub load: LoadStages,
    /// Loading the art the scene names (meshes, textures).
    pub art_ms: f64,
    /// Opening the headless device and building the pipelines, on a thread of its own while
    /// the document is laid out: not part of [`Self::on_screen_ms`] unless the layout is
    /// quicker.
    pub device_ms: f64,
    pub trees: usize,
    pub facades: usize,
    /// Features skipped with an error (none, when the tile is laid out whole).
    pub errors: usize,
    /// From the start of the load to the end of the first frame: the document laid out and
    /// on screen (the target: under 10 s for 100,000 features on 2 cores). The time to
    /// generate the document is not in it.
    pub on_screen_ms: f64,
    /// From the start of the load to the end of the first frame at the full sample count
    /// (4×), where the first frame was 1× (a CPU adapter, as the window draws while it
    /// loads): the still, antialiased frame.
    pub aa_on_screen_ms: Option<f64>,
    /// From the start of the load to the end of the last measured frame.
    pub total_ms: f64,
    /// The process's peak resident memory (`VmHWM`), MB; on a software rasterizer the GPU's
    /// buffers and textures are in it. `None` where the system does not say (not Linux).
    pub peak_rss_mb: Option<f64>,
    /// The frame's figures: upload, draw calls, encode and GPU time, memory.
    #[serde(flatten)]
    pub frame: BenchReport,
}

impl TileBenchReport {
    /// The report as one JSON object (`agview bench tile --json`).
    pub fn to_json(&self) -> serde_json::Value {
        serde_json::to_value(self).unwrap_or(serde_json::Value::Null)
    }
}

impl std::fmt::Display for TileBenchReport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let m = &self.mix;
        writeln!(
            f,
            "features:           {} ({} blocks, {} strings, {} plazas, {} props) in {} towns and the countryside",
            self.features, m.blocks, m.strings, m.plazas, m.props, self.towns
        )?;
        writeln!(f, "generate:           {:.0} ms", self.generate_ms)?;
        let l = &self.load;
        writeln!(
            f,
            "layout:             {:.0} ms on {} threads (read {:.0}, resolve {:.0}, lay out {:.0}, combine {:.0})",
            self.layout_ms, self.threads, l.read_ms, l.resolve_ms, l.layout_ms, l.combine_ms
        )?;
        writeln!(
            f,
            "laid out:           {} tiles, {} objects, {} facades, {} trees; {} feature(s) skipped",
            self.frame.tiles, self.frame.objects, self.facades, self.trees, self.errors
        )?;
        writeln!(f, "art:                {:.0} ms", self.art_ms)?;
        writeln!(f, "device:             {:.0} ms", self.device_ms)?;
        writeln!(f, "{}", self.frame)?;
        writeln!(
            f,
            "on screen:          {:.0} ms from the start of the load to the first frame",
            self.on_screen_ms
        )?;
        if let Some(ms) = self.aa_on_screen_ms {
            writeln!(
                f,
                "{}× on screen:       {ms:.0} ms from the start of the load to the first {}× frame",
                self.frame.samples, self.frame.samples
            )?;
        }
        write!(
            f,
            "total:              {:.0} ms from the start of the load to the last frame",
            self.total_ms
        )?;
        match self.peak_rss_mb {
            Some(mb) => write!(f, "\npeak RSS:           {mb:.0} MB"),
            None => write!(f, "\npeak RSS:           n/a"),
        }
    }
}

/// Generates the tile, then loads, uploads and draws it.
pub fn run(opts: &TileBenchOptions) -> anyhow::Result<TileBenchReport> {
    let assets = synthetic::sample_assets().map_err(anyhow::Error::msg)?;
    let t = Instant::now();
    let mut tile = synthetic::synthetic_tile(opts.features, &assets);
    let file = TempDocument::write("synthetic-tile", &tile.text)
        .map_err(|e| anyhow::anyhow!("writing the synthetic tile to the temporary folder: {e}"))?;
    // The document is read from the file: the generator's copy of its text (some 75 MB for
    // 100,000 features) is no part of the load, and would be counted in the peak RSS.
    tile.text = String::new();
    let generate_ms = ms(t);

    let started = Instant::now();
    // The device opens and its pipelines are built while the document is laid out.
    let device = std::thread::spawn(|| {
        let t = Instant::now();
        Headless::new().map(|h| (h, ms(t)))
    });
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let threads = match opts.threads {
        0 => cores,
        n => n,
    };
    let progress = std::sync::Arc::new(crate::progress::Progress::default());
    let load = LoadOptions {
        threads,
        progress: Some(progress.clone()),
        ..LoadOptions::default()
    };
    let mut doc =
        crate::app::progress::with_bar("bench tile: laying out", "features", &progress, || {
            document::load_with(&file.path, &crate::input::Inputs::default(), &load)
        })
        .map_err(|e| anyhow::anyhow!("{e}"))?;
    let layout_ms = ms(started);
    drop(file);
    let (headless, device_ms) = device
        .join()
        .map_err(|_| anyhow::anyhow!("opening the device: the thread panicked"))??;
    // From here to the first frame this thread gives memory back, loads the art, sizes the
    // terrain and uploads the scene, often on one core (the upload's last steps are
    // serial): the window's 1× pipelines (`as_window` below) are compiled on the other
    // meanwhile, as the window builds them while the scene loads, and wanted only by the
    // first frame. (Built with the device, they would take a core from the layout.)
    let stages = crate::app::progress::spinner("bench tile: loading the art");
    let (frame, errors, art_ms) = std::thread::scope(|s| {
        let draft = s.spawn(|| window_draft(&headless));
        // The layout's workers are gone: what their heaps freed goes back to the system
        // now, not under the upload's and the first frame's memory. Meanwhile a third
        // thread takes the scene's bounds, which the terrain is sized by (a scan of every
        // tile and instance), in a scope of its own: the art's load below borrows the
        // document mutably.
        let (lo, hi) = std::thread::scope(|s| {
            let bounds = s.spawn(|| doc.loaded.scene.bounds());
            crate::render::release_freed_memory();
            joined(bounds)
        });
        let errors = doc
            .loaded
            .diagnostics
            .iter()
            .filter(|d| d.is_error())
            .count();
        let t = Instant::now();
        let art = document::load_document_art(&mut doc);
        let art_ms = ms(t);
        let scene = &doc.loaded.scene;
        let terrain = TerrainArgs::default()
            .terrain_for_bounds(lo, hi)
            .map_err(anyhow::Error::msg)?;
        let camera = match opts.camera {
            TileCamera::Tile => Camera::frame(&Framing::new(scene, Some(&art), Some(&terrain))),
            TileCamera::Town => town_camera(&tile, scene),
        };
        let frame = BenchFrame {
            camera,
            width: opts.width,
            height: opts.height,
            frames: opts.frames.max(1),
            // The first frame as the window shows it: 1× on a CPU adapter, then a 4× one.
            as_window: true,
        };
        stages.set_message("bench tile: uploading and drawing");
        let draft = || joined(draft);
        let frame = bench_scene_drafted(&headless, draft, scene, &art, &terrain, &frame);
        anyhow::Ok((frame, errors, art_ms))
    })?;
    stages.finish_and_clear();
    let scene = &doc.loaded.scene;
    let frame = frame?;
    Ok(TileBenchReport {
        features: scene.features.len(),
        mix: tile.mix,
        towns: tile.towns.len(),
        // The workers the layout ran on: one per core, never more than features.
        threads: threads.min(scene.features.len()).max(1),
        generate_ms,
        layout_ms,
        load: doc.times.into(),
        art_ms,
        device_ms,
        trees: scene.stats.trees,
        facades: scene.stats.facades,
        errors,
        on_screen_ms: frame
            .first_frame_done
            .map_or(f64::NAN, |t| (t - started).as_secs_f64() * 1e3),
        aa_on_screen_ms: frame
            .first_aa_frame_done
            .map(|t| (t - started).as_secs_f64() * 1e3),
        total_ms: ms(started),
        peak_rss_mb: peak_rss_bytes().map(|b| b as f64 / 1e6),
        frame,
    })
}

/// [`TileCamera::Town`], and where `agview view --synthetic-tile` opens: a pilot's low pass
/// over the tile's largest town, 2 km from its middle, from the south-west, 20° down (the
/// eye some 680 m up). The houses and shops near the middle are within their LOD ranges,
/// the rest of the town and the tile stretch away to the haze.
pub fn town_camera(tile: &SyntheticTile, scene: &Scene) -> Camera {
    let (Some(town), Some(geo)) = (tile.towns.first(), scene.geo.as_ref()) else {
        return Camera::frame_scene(scene.bounds());
    };
    let c = crate::input::project([geo.origin_lon, geo.origin_lat], town.center);
    Camera::orbit([c[0], c[1], 0.0], TOWN_CAMERA_DISTANCE_M, 45.0, 20.0)
}

/// How far [`town_camera`] stands from the town's middle, meters.
const TOWN_CAMERA_DISTANCE_M: f32 = 2000.0;

/// The process's peak resident memory (`VmHWM` of `/proc/self/status`), bytes.
fn peak_rss_bytes() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let kb = status.lines().find_map(|l| l.strip_prefix("VmHWM:"))?;
    let kb: u64 = kb.trim().trim_end_matches("kB").trim().parse().ok()?;
    Some(kb * 1024)
}

/// A scoped thread's result; its panic goes on in this thread.
fn joined<T>(handle: std::thread::ScopedJoinHandle<'_, T>) -> T {
    handle
        .join()
        .unwrap_or_else(|e| std::panic::resume_unwind(e))
}

fn ms(since: Instant) -> f64 {
    since.elapsed().as_secs_f64() * 1e3
}
