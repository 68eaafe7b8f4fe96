//! Opening what a command is given: one autogen asset (laid out on the layout inputs), or a
//! document that places many features itself: a DSF (text, binary, or 7-Zip binary) or a
//! WED project (`earth.wed.xml`, or the scenery folder holding it).
//!
//! This is the one loading path: `check`, `layout`, `render`, `view` and `sweep` and the
//! viewer's hot reload all call [`load`]. For a document it reads the features
//! ([`features`]), resolves each definition (the document's package, then an X-Plane
//! install's library), opens each asset once, lays the features out in parallel, and
//! combines them into one [`Scene`] ([`combine`]).
//!
//! Each feature is laid out in its own local frame at its first vertex (or its point), so a
//! 1° tile's map projection does not distort it, exactly as `agview layout ASSET --polygon
//! DOC --polygon-index N` lays it out on its own; it is then moved into the document's frame,
//! whose origin is the first feature's first vertex. Every feature uses the same `--seed`;
//! a forest's trees and an object string's turns mix in a hash of what the feature is
//! (`feature_seeds`).
//!
//! A feature that cannot be laid out is skipped with its located `error:`; the rest is
//! shown. Only when features were there and none could be shown is the document an error;
//! a document that places nothing agview draws gives an empty scene and a note.
//!
//! This file holds the document types, the entry points and the order of the stages
//! (`load_features`); each stage's work is a file of its own:
//! - `features.rs`: a DSF's, WED project's or `apt.dat`'s features, read as [`DocFeature`]s;
//! - `airport.rs`: the airports drawn with a DSF, and one airport item laid out in the
//!   install's pavement art;
//! - `definitions.rs`: what a feature names, resolved at its place and opened once per file;
//! - `feature.rs`: one feature laid out in its own frame and moved into the document's
//!   ([`lay_out_alone`] for one asset on a feature's footprint), and its seed;
//! - `jetway.rs`: an `apt.dat` jetway as a facade feature, and its parked pose as nodes;
//! - `roads.rs`: a road segment laid out with its `.net`'s road type or the plain
//!   profile, and what a document says once about its roads;
//! - `rings.rs`: a feature's rings in local meters (a facade's as WED exports them, curves
//!   flattened);
//! - `screen.rs`: `SLOPE_LIMIT`, screened on the terrain after the layout;
//! - `combine.rs`: the per-feature scenes in one [`Scene`] and its tile atlas;
//! - `asset.rs`: an autogen asset opened ([`OpenedAsset`]), alone or for a feature;
//! - `lone.rs`: a lone `.obj`, `.fac` or `.for` as a document of one feature, on a default
//!   place unless the layout inputs give one;
//! - `synthetic.rs`: a synthetic scenery tile of N autogen features, for benchmarks and for
//!   flying through a real tile's size.

mod airport;
pub mod asset;
pub mod combine;
mod definitions;
mod editing;
mod feature;
pub mod features;
mod jetway;
pub mod lone;
mod rings;
mod road_reading;
pub mod roads;
mod screen;
pub mod synthetic;

use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::diag::Diagnostic;
use crate::format::{self, FileKind};
use crate::input::Inputs;
use crate::pipeline::{self, Loaded};
use crate::resolve::Resolver;
use crate::scene::{FeatureInfo, GeoFrame, Scene, SceneKind};
use crate::terrain::Terrain;

use airport::{package_airports, pavement_library, PavementLibrary};
use definitions::{Resolution, ResolveCache};
use feature::{describe, feature_seeds, layout_feature, FeatureResult};
use screen::Screen;

pub use crate::input::EditCache;
use crate::parallel::parallel_in_order;
pub(crate) use crate::parallel::parallel_map;
pub use asset::OpenedAsset;
use combine::Combiner;
pub use combine::{
    combine, load_document_art, load_document_art_seeded, load_document_art_with, TileAtlas,
};
pub use editing::editable;
pub use feature::lay_out_alone;
pub use features::{DocFeature, Geometry};

/// The file name WED gives a project.
pub use crate::format::wed::WED_FILE;

/// A laid-out document (or asset), as every command and the viewer use it.
#[derive(Debug, Clone)]
pub struct Document {
    pub loaded: Loaded,
    /// Features that use more than one ground texture: the textures of the tile atlas, slot
    /// 0 at the bottom, and their night textures. Empty when the scene's own `tile_texture`
    /// is drawn.
    pub atlas: TileAtlas,
    /// Where a document's load spent its time (zero for a single asset).
    pub times: LoadTimes,
    /// The terrain `SLOPE_LIMIT`s were screened on ([`LoadOptions::ground`]), framed on the
    /// scene as laid out before the screening: draw on this one, so what was measured is
    /// what is shown. `None` when nothing was screened.
    pub terrain: Option<Terrain>,
    /// True when the document places an autogen point by library path: its layout depends
    /// on the terrain (`SLOPE_LIMIT`), so a new terrain needs a new load.
    pub terrain_dependent: bool,
    /// The resolver the load used: what opening one of its assets again (the report's
    /// asset sections) resolves with.
    pub resolver: Arc<Resolver>,
}

/// Milliseconds each stage of a document's load took.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct LoadTimes {
    /// Reading and parsing the document into features.
    pub read_ms: f64,
    /// Resolving definitions and opening the assets.
    pub resolve_ms: f64,
    /// Laying the features out (on every worker); when each part is merged as it is laid
    /// out (a load without a preview, edit cache or screening), the merging too.
    pub layout_ms: f64,
    /// Combining them into one scene: what is left of it once they are laid out.
    pub combine_ms: f64,
}

pub use crate::progress::Progress;

/// How to load, beyond the layout inputs.
#[derive(Debug, Clone, Default)]
pub struct LoadOptions {
    /// Worker threads for laying out features; 0 means one per core.
    pub threads: usize,
    pub progress: Option<Arc<Progress>>,
    /// The terrain under the document, for `SLOPE_LIMIT`: without it nothing is screened.
    pub ground: Option<Ground>,
}

/// Makes the terrain for the bounds `(min, max)` of what a document places (meters, in its
/// frame), as the drawing commands frame it. Plain data comes back; the layout measures
/// slopes on it and does no I/O itself.
#[derive(Clone)]
pub struct Ground(pub Arc<GroundFn>);

/// The function behind [`Ground`].
pub type GroundFn = dyn Fn([f32; 2], [f32; 2]) -> Result<Terrain, String> + Send + Sync;

impl std::fmt::Debug for Ground {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Ground(..)")
    }
}

/// What a command's path names: a file, or for a folder the WED project in it.
pub fn document_path(path: &Path) -> Result<PathBuf, Diagnostic> {
    // Spelled as on disk, so an asset's references warn of their own case alone.
    let path = &crate::format::as_on_disk(path);
    if path.is_dir() {
        let wed = path.join(WED_FILE);
        if wed.is_file() {
            return Ok(wed);
        }
        return Err(Diagnostic::error_file(
            path,
            format!("is a folder without a WED project ({WED_FILE})"),
        ));
    }
    Ok(path.to_path_buf())
}

/// True when `kind` is a document that places its own features.
pub(crate) fn is_document(kind: Option<FileKind>) -> bool {
    matches!(
        kind,
        Some(FileKind::DsfText | FileKind::DsfBinary | FileKind::Wed | FileKind::Apt)
    )
}

/// True when `path` is a document: a folder (its `earth.wed.xml`), or a file whose first
/// bytes or name say DSF text, binary DSF or WED project.
pub fn is_document_path(path: &Path) -> bool {
    use std::io::Read;
    if path.is_dir() {
        return true;
    }
    // The kind shows in the first bytes; a DSF may be hundreds of megabytes.
    let mut head = Vec::new();
    if let Ok(f) = std::fs::File::open(path) {
        let _ = f.take(4096).read_to_end(&mut head);
    }
    is_document(FileKind::detect(path, &head))
}

/// Opens `path` with the layout inputs `args`: see the module documentation.
pub fn load(path: &Path, args: &Inputs) -> Result<Document, Diagnostic> {
    load_with(path, args, &LoadOptions::default())
}

/// [`load`] with threads and progress.
pub fn load_with(path: &Path, args: &Inputs, opts: &LoadOptions) -> Result<Document, Diagnostic> {
    load_with_preview(path, args, opts, None)
}

/// A document of at least this many features shows a preview while the rest is laid out.
pub(crate) const PREVIEW_MIN_FEATURES: usize = 2000;

/// The share of a large document laid out before its preview (at least
/// [`PREVIEW_FIRST_MIN`] features).
const PREVIEW_SHARE: usize = 8;
const PREVIEW_FIRST_MIN: usize = 500;

/// The most parts the rest of a previewed document is handed in (each at least as many
/// features as the preview): the window draws each as it comes. Each part costs the window
/// a fixed time (on a software rasterizer, a frame drawn while it uploads), hence a few
/// parts, not many.
pub const PREVIEW_REST_PARTS: usize = 3;

/// The fewest features a part of the rest holds: a smaller rest comes in one part. Each
/// part costs the window a fixed time of about as long as uploading a rest of 1,700
/// features in one part, so parts pay only on a rest of tens of thousands.
/// `AGVIEW_PREVIEW_PART_MIN` overrides it (the tests' small documents).
pub const PREVIEW_PART_MIN: usize = 10_000;

/// [`PREVIEW_PART_MIN`], or `AGVIEW_PREVIEW_PART_MIN` where set to a number.
fn preview_part_min() -> usize {
    #[cfg(test)]
    if let Some(n) = tests::PART_MIN.with(|c| c.get()) {
        return n;
    }
    std::env::var("AGVIEW_PREVIEW_PART_MIN")
        .ok()
        .and_then(|s| s.trim().parse().ok())
        .unwrap_or(PREVIEW_PART_MIN)
}

/// How many features each part of a rest of `rest` features holds (the last fewer), after
/// a preview of `first`: at most [`PREVIEW_REST_PARTS`] parts, each of at least `first`
/// and `min` features, or the whole rest in one part when it holds fewer.
fn rest_part_size(rest: usize, first: usize, min: usize) -> usize {
    let parts = (rest / min.max(first).max(1)).clamp(1, PREVIEW_REST_PARTS);
    rest.div_ceil(parts).max(1)
}

/// What a large document's load hands its preview callback ([`load_with_preview`]): the
/// first features laid out, then each part of the rest.
pub struct PreviewPart {
    /// The part's features laid out and combined on their own (their own tile atlas and
    /// tile orders), not yet screened by `SLOPE_LIMIT`, with no messages.
    pub doc: Document,
    /// The first features (the preview itself), not a part of the rest.
    pub first: bool,
    /// The last part of the rest: the whole follows.
    pub last: bool,
    /// The whole document's extent as read, before any feature was laid out: the points
    /// of its features in its frame (`feature::read_extent`), what the whole's terrain can
    /// be sized for before the whole is laid out. The laid-out whole reaches as far, or
    /// further where a layout places things beyond its feature's points (an `.agp`'s
    /// tiles); `None` when no feature has a point.
    pub extent: Option<([f32; 2], [f32; 2])>,
}

/// [`load_with`], handing `preview` a document of the first features laid out when the
/// document has [`PREVIEW_MIN_FEATURES`] or more: the first eighth (at least 500), in
/// document order, not yet screened by `SLOPE_LIMIT`, with no messages. The window shows it
/// while the rest is laid out. Then, where `preview` took the first (returned true) and
/// unless `SLOPE_LIMIT`s are screened (which may drop features of the first), the rest is
/// laid out in parts of at least as many features and [`PREVIEW_PART_MIN`] (at most
/// [`PREVIEW_REST_PARTS`]; a smaller rest in one part), each
/// handed to `preview` the same way as soon as it is laid out (its features combined on
/// their own: its own tile atlas and tile orders), so the window can upload each alone and
/// draw it beside those before; once `preview` declines a part, the rest is laid out in
/// one go and handed on no more. The document returned is the whole, the same as without
/// a preview.
pub fn load_with_preview(
    path: &Path,
    args: &Inputs,
    opts: &LoadOptions,
    preview: Option<&mut dyn FnMut(PreviewPart) -> bool>,
) -> Result<Document, Diagnostic> {
    let path = document_path(path)?;
    let started = std::time::Instant::now();
    let bytes = format::read_file(&path)?;
    let kind = FileKind::detect(&path, &bytes);
    // A document is read from its absolute path, so what it resolves, and every path it
    // prints, is the same from any working directory.
    let lone = lone::lone_kind(kind);
    let path = if is_document(kind) || lone.is_some() {
        crate::resolve::absolute(&path)
    } else {
        path
    };
    // What reading the libraries says follows what reading the document says.
    // An FSX `.agn` names no X-Plane library paths: it needs none.
    let mut library_diags = Vec::new();
    let resolver = Arc::new(match kind {
        Some(FileKind::Agn) => Resolver::default(),
        _ => load_resolver(&path, args, &mut library_diags),
    });
    if let Some(lone) = lone {
        // A lone object, facade or forest: a document of that one feature.
        let mut diags = Vec::new();
        let feature = lone::lone_feature(&path, lone, &bytes, args, &mut diags)?;
        diags.append(&mut library_diags);
        drop(bytes);
        let read_ms = ms(started);
        let mut doc = load_features(
            &path,
            SceneKind::Art,
            vec![feature],
            diags,
            args,
            &resolver,
            opts,
            preview,
        )?;
        doc.times.read_ms = read_ms;
        return Ok(doc);
    }
    if !is_document(kind) {
        let mut loaded = match kind {
            Some(FileKind::Autogen) => asset::load_alone(&path, args, &resolver, library_diags)?,
            _ => pipeline::load_scene(&path, args)?,
        };
        // Its package's library reloads the view when it changes (an autogen asset's is in
        // its files already).
        let library = crate::resolve::package_root(&path).join("library.txt");
        if library.is_file() && !loaded.files.contains(&library) {
            loaded.files.push(library);
        }
        loaded
            .files
            .extend(resolver.given_libraries().iter().cloned());
        loaded.scene.season = args.resolve.season;
        return Ok(Document {
            loaded,
            atlas: TileAtlas::default(),
            times: LoadTimes::default(),
            terrain: None,
            terrain_dependent: false,
            resolver,
        });
    }
    // An edit of one feature of the document kept by the last load: that feature alone.
    if let Some(doc) = editing::relayout(&path, args) {
        return Ok(doc);
    }
    let mut diags = Vec::new();
    if args.places() {
        diags.push(Diagnostic::warning_file(
            &path,
            "a document places its own features: --polygon, --rect and --at are ignored",
        ));
    }
    let (scene_kind, features) = read_features(&path, kind, &bytes, opts.threads, &mut diags)?;
    diags.append(&mut library_diags);
    drop(bytes);
    let read_ms = ms(started);
    let mut doc = load_features(
        &path, scene_kind, features, diags, args, &resolver, opts, preview,
    )?;
    doc.times.read_ms = read_ms;
    Ok(doc)
}

/// A document's features as a load of it lays them out (the same order and `--only`
/// filter, so an index of `Scene::features` names the same feature), with the absolute
/// path it is read from and its kind; what reading says is dropped (the load says it).
pub fn read_document_features(
    path: &Path,
    args: &Inputs,
) -> Result<(PathBuf, Option<FileKind>, Vec<DocFeature>), Diagnostic> {
    let path = crate::resolve::absolute(&document_path(path)?);
    let bytes = format::read_file(&path)?;
    let kind = FileKind::detect(&path, &bytes);
    let (_, mut feats) = read_features(&path, kind, &bytes, 0, &mut Vec::new())?;
    if !args.only.is_empty() {
        feats.retain(|f| args.keeps(f.kind));
    }
    Ok((path, kind, feats))
}

/// The one resolver of a load of `path` (a document or an asset opened alone): its package,
/// then the `--library` packages, then the install's, each `library.txt` read once.
fn load_resolver(path: &Path, args: &Inputs, diags: &mut Vec<Diagnostic>) -> Resolver {
    let libs = crate::resolve::Libraries::load(&args.resolve, diags);
    Resolver::new(path, &libs, diags)
}

/// Reads a document's features; a DSF text on `threads` workers (0: one per core).
fn read_features(
    path: &Path,
    kind: Option<FileKind>,
    bytes: &[u8],
    threads: usize,
    diags: &mut Vec<Diagnostic>,
) -> Result<(SceneKind, Vec<DocFeature>), Diagnostic> {
    Ok(match kind {
        Some(FileKind::DsfText) => {
            let dsf = format::dsf::parse_parallel(path, bytes, diags, threads)?;
            let mut f = features::from_dsf_text(path, dsf, diags);
            f.extend(package_airports(path, diags));
            (SceneKind::Dsf, f)
        }
        Some(FileKind::DsfBinary) => {
            let dsf = format::dsf_bin::parse(path, bytes, diags)?;
            let mut f = features::from_dsf_binary(path, &dsf, diags);
            f.extend(package_airports(path, diags));
            (SceneKind::Dsf, f)
        }
        Some(FileKind::Apt) => {
            let apt = format::apt::parse(path, bytes, diags)?;
            (SceneKind::Dsf, features::from_apt(path, &apt, None, diags))
        }
        Some(FileKind::Wed) => {
            let project = format::wed::parse(path, bytes, diags)?;
            let placed = format::wed::export(&project, path, diags);
            let mut f = features::from_wed(path, &placed, diags);
            let airports = format::wed::airports(&project, path, diags);
            f.extend(features::from_wed_airports(path, &airports));
            (SceneKind::Wed, f)
        }
        _ => {
            return Err(Diagnostic::error_file(
                path,
                "not a document agview opens (DSF text, binary DSF or earth.wed.xml)",
            ))
        }
    })
}

#[allow(clippy::too_many_arguments)]
fn load_features(
    path: &Path,
    scene_kind: SceneKind,
    mut feats: Vec<DocFeature>,
    mut diags: Vec<Diagnostic>,
    args: &Inputs,
    resolver: &Arc<Resolver>,
    opts: &LoadOptions,
    preview: Option<&mut dyn FnMut(PreviewPart) -> bool>,
) -> Result<Document, Diagnostic> {
    if !args.only.is_empty() {
        feats.retain(|f| args.keeps(f.kind));
    }
    let mut files = vec![path.to_path_buf()];
    let xplane = args.resolve.xplane.clone();
    if let Some(root) = &resolver.root {
        files.push(root.join("library.txt"));
    }
    files.extend(resolver.given_libraries().iter().cloned());
    let origin = feats
        .iter()
        .find_map(DocFeature::origin)
        .unwrap_or([0.0, 0.0]);
    let geo = GeoFrame {
        origin_lat: origin[1],
        origin_lon: origin[0],
        ..GeoFrame::default()
    };
    // The viewer's edit of one feature: the edited shape in its place (the frame stays
    // where the document puts it), and what laying it out again needs is kept.
    let keep = editing::cache(args).is_some();
    let unedited = keep.then(|| feats.clone());
    editing::apply(&mut feats, args);
    if let Some(p) = &opts.progress {
        p.set_total(feats.len());
        p.set_stage(crate::progress::Stage::Resolving);
    }

    // Resolve each feature's definition where the feature is (library regions and seeded
    // picks among alternatives depend on the place), and open each file once, in document
    // order, so messages about a definition come once and in a stable order.
    let mut times = LoadTimes::default();
    let stage = std::time::Instant::now();
    let seeds = feature_seeds(&feats, args.seed);
    // With an install, airports draw in its pavement art.
    let pavement = if feats.iter().any(|f| f.airport.is_some()) {
        pavement_library(resolver)
    } else {
        PavementLibrary::new()
    };
    // Its files reload the view when they change, like every file the document uses.
    files.extend(
        pavement
            .values()
            .filter_map(|r| r.resolved.as_deref())
            .map(crate::diag::text_path),
    );
    let mut cache = ResolveCache::default();
    let resolutions: Vec<Resolution> = feats
        .iter()
        .enumerate()
        .map(|(i, f)| {
            // What resolving says at the feature's own line (a definition found nowhere)
            // is the feature's; what the definition's file says is the file's.
            let from = diags.len();
            let r = cache.resolve(path, f, resolver, args.seed, &mut diags, &mut files);
            for d in diags[from..].iter_mut().filter(|d| d.path == path) {
                d.feature.get_or_insert(i);
            }
            r
        })
        .collect();

    diags.extend(roads::road_notes(path, &feats, &resolutions));
    times.resolve_ms = ms(stage);
    let stage = std::time::Instant::now();
    if let Some(p) = &opts.progress {
        p.set_stage(crate::progress::Stage::LayingOut);
    }
    // The features' parts as one scene of the document (the preview's and the whole's).
    let lights_txt = xplane
        .as_deref()
        .map(|root| root.join("Resources").join("lights.txt"))
        .filter(|p| p.is_file())
        .map(|p| p.display().to_string());
    let assembly = Assembly {
        path,
        scene_kind,
        lights_txt,
        seed: args.seed,
        season: args.resolve.season,
        geo,
    };
    // Each worker lays its features out and describes them.
    let lay_one = |i: usize| {
        let f = &feats[i];
        let mut r = layout_feature(path, f, &resolutions[i], origin, args, seeds[i], &pavement);
        r.tie_to(i);
        let info = describe(f, &resolutions[i], &mut r, i as u32);
        (r, info)
    };
    let lay_out = |from: usize, to: usize| {
        parallel_map(
            &feats[from..to],
            opts.threads,
            opts.progress.as_deref(),
            |k, _| lay_one(from + k),
        )
    };
    let terrain_dependent = feats.iter().zip(&resolutions).any(|(f, r)| r.screened(f));
    let previewed = preview.is_some() && feats.len() >= PREVIEW_MIN_FEATURES;
    let screened = opts.ground.is_some() && terrain_dependent;
    let mut infos = Vec::with_capacity(feats.len());
    let mut combiner = Combiner::new(feats.len());
    // Unless a preview, the edit cache or the screening needs them apart, each feature's
    // part is merged into the document's scene as soon as those before it are laid out,
    // and freed: the load never holds every part and the merged scene at once.
    let results = if !previewed && !keep && !screened {
        parallel_in_order(
            feats.len(),
            opts.threads,
            opts.progress.as_deref(),
            lay_one,
            |(mut r, info)| {
                diags.append(&mut r.diags);
                files.append(&mut r.files);
                if let Some(s) = r.scene {
                    combiner.push(s);
                }
                infos.push(info);
            },
        );
        Vec::new()
    } else {
        match preview {
            Some(show) if previewed => {
                let len = feats.len();
                let first = (len / PREVIEW_SHARE).max(PREVIEW_FIRST_MIN);
                let extent = feature::read_extent(&feats, origin);
                // A run of laid-out features, combined on their own, as a document of their
                // own for the window.
                let hand = |combined: (Scene, TileAtlas),
                            infos: Vec<FeatureInfo>,
                            first: bool,
                            last: bool| {
                    let (scene, atlas) = assembly.scene(combined, infos);
                    PreviewPart {
                        doc: Document {
                            loaded: Loaded {
                                scene,
                                diagnostics: Vec::new(),
                                files: Vec::new(),
                            },
                            atlas,
                            times: LoadTimes::default(),
                            terrain: None,
                            terrain_dependent: false,
                            resolver: resolver.clone(),
                        },
                        first,
                        last,
                        extent,
                    }
                };
                // Lays out the features `from..to`; where `hand_on`, a copy of each
                // feature's part is merged into the run's own scene as soon as it is laid
                // out (the copies of a run are never held together). Unless the screening
                // or the edit cache needs them apart, each feature's part is then merged
                // into the document's scene at once, and freed, as without a preview: the
                // load never holds the features laid out beside the parts the window
                // uploads (the same scene as merging them at the end). Else the run's
                // results are returned, kept for the end.
                let merge_each = !screened && !keep;
                let mut lay_run = |from: usize, to: usize, hand_on: bool| {
                    let mut own =
                        hand_on.then(|| (Combiner::new(to - from), Vec::with_capacity(to - from)));
                    let copy = |own: &mut Option<(Combiner, Vec<FeatureInfo>)>,
                                r: &FeatureResult,
                                info: &FeatureInfo| {
                        if let Some((c, infos)) = own.as_mut() {
                            if let Some(s) = &r.scene {
                                c.push(s.clone());
                            }
                            infos.push(info.clone());
                        }
                    };
                    if !merge_each {
                        let laid = lay_out(from, to);
                        for (r, info) in &laid {
                            copy(&mut own, r, info);
                        }
                        return (laid, own);
                    }
                    parallel_in_order(
                        to - from,
                        opts.threads,
                        opts.progress.as_deref(),
                        |k| lay_one(from + k),
                        |(mut r, info)| {
                            copy(&mut own, &r, &info);
                            diags.append(&mut r.diags);
                            files.append(&mut r.files);
                            if let Some(s) = r.scene {
                                combiner.push(s);
                            }
                            infos.push(info);
                        },
                    );
                    (Vec::new(), own)
                };
                // The first features, then the rest, for a preview shown, unless
                // screening may drop features of the first. Else the rest is not copied
                // and combined on its own for nothing.
                let per_part = rest_part_size(len - first, first, preview_part_min());
                let mut results = Vec::new();
                let mut wanted = true;
                let mut from = 0;
                while from < len {
                    let to = match (from, wanted) {
                        (0, _) => first,
                        (_, true) => (from + per_part).min(len),
                        (_, false) => len,
                    };
                    let (laid, own) = lay_run(from, to, wanted);
                    results.extend(laid);
                    if let Some((c, infos)) = own {
                        let part = hand(c.finish(), infos, from == 0, from > 0 && to == len);
                        wanted = show(part) && !screened;
                    }
                    from = to;
                }
                results
            }
            _ => lay_out(0, feats.len()),
        }
    };

    let mut results = results;
    let mut drops = Vec::new();
    let mut drop_lines = Vec::new();
    let terrain = match opts.ground.as_ref().filter(|_| terrain_dependent) {
        Some(ground) => {
            let screen = Screen {
                doc: path,
                resolver,
                args,
                origin,
                seed: args.seed,
                seeds: &seeds,
                pavement: &pavement,
            };
            let t = screen.run(
                ground,
                &feats,
                &resolutions,
                &mut results,
                &mut cache,
                &mut diags,
                &mut files,
            )?;
            (drops, drop_lines) = (t.1, t.2);
            Some(t.0)
        }
        None => None,
    };

    times.layout_ms = ms(stage);
    let stage = std::time::Instant::now();
    let base_diags = keep.then(|| diags.clone());
    let (mut kept_parts, mut feature_diags) = (Vec::new(), Vec::new());
    for (mut r, info) in results {
        if keep {
            kept_parts.push(r.scene.clone());
            feature_diags.push(r.diags.clone());
        }
        diags.append(&mut r.diags);
        files.append(&mut r.files);
        if let Some(s) = r.scene {
            combiner.push(s);
        }
        infos.push(info);
    }
    if feats.is_empty() {
        // A document that could not be read (a truncated DSF) stays an error.
        if let Some(first) = diags.iter().find(|d| d.is_error()) {
            return Err(first.clone());
        }
        // A valid document of orthophotos, lines or an airport alone: nothing is wrong.
        diags.push(Diagnostic::note_file(
            path,
            "the document places nothing of the kinds agview draws (.agp .agb .ags .obj .fac .for); the scene is empty",
        ).with_kind(crate::diag::kind::NOT_DRAWN));
    } else if combiner.len() == 0 && drops.is_empty() {
        if let Some(first) = diags.iter().find(|d| d.is_error()) {
            return Err(first.clone());
        }
        return Err(Diagnostic::error_file(
            path,
            format!(
                "nothing to show: no feature could be laid out ({} feature(s) of the kinds agview draws: .agp .agb .ags .obj .fac .for)",
                feats.len()
            ),
        ));
    }
    let kept_infos = keep.then(|| infos.clone());
    let (scene, atlas) = assembly.scene(combiner.finish(), infos);
    let kept_drops = keep.then(|| (drops.clone(), drop_lines.clone()));
    let scene = finish(scene, drops, drop_lines, &diags, &mut files);
    times.combine_ms = ms(stage);
    if let (Some(feats), Some(base_diags), Some(infos), Some((drops, drop_lines))) =
        (unedited, base_diags, kept_infos, kept_drops)
    {
        editing::keep(
            args,
            editing::Kept {
                path: path.to_path_buf(),
                args: editing::key(args),
                scene_kind,
                lights_txt: assembly.lights_txt.clone(),
                geo,
                feats,
                resolutions,
                origin,
                seeds,
                pavement,
                parts: kept_parts,
                infos,
                base_diags,
                feature_diags,
                files: files.clone(),
                stamps: Vec::new(),
                drops,
                drop_lines,
                terrain_dependent,
                resolver: resolver.clone(),
            },
        );
    }
    Ok(Document {
        loaded: Loaded {
            scene,
            diagnostics: diags,
            files,
        },
        atlas,
        times,
        terrain,
        terrain_dependent,
        resolver: resolver.clone(),
    })
}

/// The assembled scene with what the load adds: the points `SLOPE_LIMIT` dropped and their
/// messages, and every error (what was skipped is reported in the JSON too, as the error it
/// is); the files sorted, each once.
fn finish(
    mut scene: Scene,
    drops: Vec<crate::scene::SlopeDrop>,
    drop_lines: Vec<Diagnostic>,
    diags: &[Diagnostic],
    files: &mut Vec<PathBuf>,
) -> Scene {
    scene.debug.slope_drops = drops;
    scene.warnings.extend(drop_lines);
    for d in diags.iter().filter(|d| d.is_error()) {
        scene.warnings.push(d.clone());
    }
    files.sort();
    files.dedup();
    scene
}

/// What every assembly of a document's parts into one scene sets (the whole, its preview,
/// and each relayout of an edited feature).
#[derive(Clone)]
struct Assembly<'a> {
    path: &'a Path,
    scene_kind: SceneKind,
    lights_txt: Option<String>,
    seed: u64,
    season: crate::season::Season,
    geo: GeoFrame,
}

impl Assembly<'_> {
    /// The features' parts, `combined` ([`combine`] or a [`Combiner`]), as one scene of
    /// the document.
    fn scene(&self, combined: (Scene, TileAtlas), infos: Vec<FeatureInfo>) -> (Scene, TileAtlas) {
        let (mut scene, atlas) = combined;
        scene.kind = self.scene_kind;
        scene.asset = crate::diag::shown_path(self.path);
        scene.lights_txt = self.lights_txt.clone();
        scene.seed = self.seed;
        scene.season = self.season;
        scene.geo = Some(self.geo);
        scene.features = infos;
        // Road features are counted from the segments the scene holds (ROADS.md §1).
        scene.update_road_stats();
        (scene, atlas)
    }
}

/// Milliseconds since `since`, for [`LoadTimes`].
fn ms(since: std::time::Instant) -> f64 {
    since.elapsed().as_secs_f64() * 1e3
}

#[cfg(test)]
mod tests;
