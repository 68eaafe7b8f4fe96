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

pub mod asset;
pub mod combine;
pub mod features;
pub mod synthetic;

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::diag::{Diagnostic, Severity};
use crate::format::{self, FileKind};
use crate::input::{self, Inputs};
use crate::layout::slope::{slope_at, Slope, SlopeLimit};
use crate::layout::{placed, LayoutInput, PointInput};
use crate::pipeline::{self, Loaded};
use crate::resolve::Resolver;
use crate::scene::{FeatureInfo, FeatureKind, Footprint, GeoFrame, Scene, SceneKind, SlopeDrop};
use crate::terrain::Terrain;

pub use asset::OpenedAsset;
pub use combine::{
    atlas_image, combine, combine_with, load_document_art, load_document_art_with, TileAtlas,
};
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
    /// Laying the features out (on every worker).
    pub layout_ms: f64,
    /// Combining them into one scene.
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
pub fn is_document(kind: Option<FileKind>) -> bool {
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
pub const PREVIEW_MIN_FEATURES: usize = 2000;

/// The share of a large document laid out before its preview (at least
/// [`PREVIEW_FIRST_MIN`] features).
const PREVIEW_SHARE: usize = 8;
const PREVIEW_FIRST_MIN: usize = 500;

/// [`load_with`], handing `preview` a document of the first features laid out when the
/// document has [`PREVIEW_MIN_FEATURES`] or more: the first eighth (at least 500), in
/// document order, not yet screened by `SLOPE_LIMIT`, with no messages. The window shows it
/// while the rest is laid out; the document returned is the whole, the same as without a
/// preview.
pub fn load_with_preview(
    path: &Path,
    args: &Inputs,
    opts: &LoadOptions,
    preview: Option<&mut dyn FnMut(Document)>,
) -> Result<Document, Diagnostic> {
    let path = document_path(path)?;
    let started = std::time::Instant::now();
    let bytes = format::read_file(&path)?;
    let kind = FileKind::detect(&path, &bytes);
    // A document is read from its absolute path, so what it resolves, and every path it
    // prints, is the same from any working directory.
    let path = if is_document(kind) {
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
        return Ok(Document {
            loaded,
            atlas: TileAtlas::default(),
            times: LoadTimes::default(),
            terrain: None,
            terrain_dependent: false,
            resolver,
        });
    }
    let mut diags = Vec::new();
    if args.places() {
        diags.push(Diagnostic::warning_file(
            &path,
            "a document places its own features: --polygon, --rect and --at are ignored",
        ));
    }
    let (scene_kind, features) = read_features(&path, kind, &bytes, &mut diags)?;
    diags.append(&mut library_diags);
    drop(bytes);
    let read_ms = ms(started);
    let mut doc = load_features(
        &path, scene_kind, features, diags, args, &resolver, opts, preview,
    )?;
    doc.times.read_ms = read_ms;
    Ok(doc)
}

/// The one resolver of a load of `path` (a document or an asset opened alone): its package,
/// then the `--library` packages, then the install's, each `library.txt` read once.
fn load_resolver(path: &Path, args: &Inputs, diags: &mut Vec<Diagnostic>) -> Resolver {
    let libs = crate::resolve::Libraries::load(&args.resolve, diags);
    Resolver::new(path, &libs, diags)
}

/// Reads a document's features.
fn read_features(
    path: &Path,
    kind: Option<FileKind>,
    bytes: &[u8],
    diags: &mut Vec<Diagnostic>,
) -> Result<(SceneKind, Vec<DocFeature>), Diagnostic> {
    Ok(match kind {
        Some(FileKind::DsfText) => {
            let dsf = format::dsf::parse(path, bytes, diags)?;
            let mut f = features::from_dsf_text(path, &dsf, diags);
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
            (SceneKind::Dsf, features::from_apt(path, &apt, None))
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

/// The airports of a DSF's package (`<root>/Earth nav data/apt.dat`) that lie in the DSF's
/// 1° tile (from its name, `+47+008.dsf`; every airport when the name says no tile), drawn
/// with the DSF. Problems in the `apt.dat` are reported; a missing one is nothing.
fn package_airports(dsf: &Path, diags: &mut Vec<Diagnostic>) -> Vec<DocFeature> {
    let root = crate::resolve::package_root(dsf);
    let apt_path = root.join("Earth nav data").join("apt.dat");
    let Ok(bytes) = format::read_file(&apt_path) else {
        return Vec::new();
    };
    let apt = match format::apt::parse(&apt_path, &bytes, diags) {
        Ok(a) => a,
        Err(e) => {
            diags.push(e);
            return Vec::new();
        }
    };
    features::from_apt(&apt_path, &apt, tile_of(dsf))
}

/// `[west, south]` of the 1° tile a DSF's name gives (`+47+008.dsf`, `-01-080.txt`).
fn tile_of(path: &Path) -> Option<[f64; 2]> {
    let stem = path.file_stem()?.to_str()?;
    let b = stem.as_bytes();
    if b.len() != 7 || !matches!(b[0], b'+' | b'-') || !matches!(b[3], b'+' | b'-') {
        return None;
    }
    let lat: f64 = stem[..3].parse().ok()?;
    let lon: f64 = stem[3..].parse().ok()?;
    Some([lon, lat])
}

/// The install's pavement `.pol` for each surface code, as WED's preview picks it
/// (`WED_LibraryMgr::RescanSurfaces`, GROUND.md §6.3): the public
/// `lib/airport/ground/pavement/<dir>/<variant>.pol` of X-Plane 12, else (an X-Plane 11
/// library) `lib/airport/pavement/asphalt_3D.pol` for every asphalt and `concrete_1D.pol`
/// for every concrete. Grass, dirt, gravel, lakebed, water and snow have no public `.pol`:
/// agview's own art draws them, as it draws every surface without an install.
type PavementLibrary = HashMap<u32, crate::scene::ArtRef>;

/// XP12's public pavement `.pol` of each surface code (`RescanSurfaces`' second column).
const PAVEMENT_POLS: &[(u32, &str)] = &[
    (20, "asphalt_L/strips.pol"),
    (21, "asphalt_L/patched.pol"),
    (22, "asphalt_L/plain.pol"),
    (23, "asphalt_L/worn.pol"),
    (1, "asphalt/strips.pol"),
    (24, "asphalt/patched.pol"),
    (25, "asphalt/plain.pol"),
    (26, "asphalt/worn.pol"),
    (27, "asphalt_D/strips.pol"),
    (28, "asphalt_D/patched.pol"),
    (29, "asphalt_D/plain.pol"),
    (30, "asphalt_D/worn.pol"),
    (31, "asphalt_D2/strips.pol"),
    (32, "asphalt_D2/patched.pol"),
    (33, "asphalt_D2/plain.pol"),
    (34, "asphalt_D2/worn.pol"),
    (35, "asphalt_D3/strips.pol"),
    (36, "asphalt_D3/patched.pol"),
    (37, "asphalt_D3/plain.pol"),
    (38, "asphalt_D3/worn.pol"),
    (50, "concrete_L/new.pol"),
    (51, "concrete_L/dirty.pol"),
    (52, "concrete_L/worn.pol"),
    (2, "concrete/new.pol"),
    (53, "concrete/dirty.pol"),
    (54, "concrete/worn.pol"),
    (55, "concrete_D/new.pol"),
    (56, "concrete_D/dirty.pol"),
    (57, "concrete_D/worn.pol"),
];

fn pavement_library(resolver: &Resolver) -> PavementLibrary {
    let art = |name: String| {
        let path = resolver.resolve_library(&name)?;
        Some(crate::scene::ArtRef {
            resolved: Some(crate::diag::shown_path(&path)),
            name: name.into(),
        })
    };
    let xp12: PavementLibrary = PAVEMENT_POLS
        .iter()
        .filter_map(|&(code, pol)| Some((code, art(format!("lib/airport/ground/pavement/{pol}"))?)))
        .collect();
    if !xp12.is_empty() {
        return xp12;
    }
    let asphalt = art("lib/airport/pavement/asphalt_3D.pol".into());
    let concrete = art("lib/airport/pavement/concrete_1D.pol".into());
    PAVEMENT_POLS
        .iter()
        .filter_map(|&(code, _)| {
            let concrete_family = code == 2 || (50..=57).contains(&code);
            let a = if concrete_family { &concrete } else { &asphalt };
            Some((code, a.clone()?))
        })
        .collect()
}

/// One airport item laid out: its pavement, lines and markings in one scene.
fn layout_airport(item: &features::AirportItem, origin: [f64; 2], lib: &PavementLibrary) -> Scene {
    use crate::layout::airport as ap;
    use features::AptItem;
    let project = |p: [f64; 2]| input::project(origin, [p[1], p[0]]);
    let lib = |code: u32| lib.get(&code).cloned();
    let parts = match &item.what {
        AptItem::Runway(r) => ap::runway(r, item.order, &project, &lib),
        AptItem::Helipad(h) => ap::helipad(h, item.order, &project, &lib),
        AptItem::Pavement(p) => ap::pavement(p, item.order, &project, &lib),
        AptItem::Marking(m) => {
            let mut v = ap::edge_lines(m, &project);
            if v.is_empty() && m.nodes.len() >= 2 {
                // A chain without a line type still shows where it runs.
                let pts = ap::chain_points(m, &project);
                let mut s = crate::layout::placed::painted_line("apt.dat", &[pts], m.closed);
                s.lin_defs[0].name = "agview:line/yellow".into();
                v.push(s);
            }
            v
        }
    };
    let mut out = Scene {
        asset: item.file.display().to_string(),
        tile_lod: crate::layout::DEFAULT_TILE_LOD,
        ..Scene::default()
    };
    for mut s in parts {
        let base = out.pol_defs.len();
        out.pol_defs.append(&mut s.pol_defs);
        out.draped.extend(s.draped.into_iter().map(|mut d| {
            d.def += base;
            d
        }));
        let base = out.lin_defs.len();
        out.lin_defs.append(&mut s.lin_defs);
        out.lines.extend(s.lines.into_iter().map(|mut l| {
            l.def += base;
            l
        }));
        out.polygon.append(&mut s.polygon);
    }
    out.update_stats();
    out
}

/// A definition as resolved and opened, shared by every feature that uses it.
#[derive(Debug)]
enum Opened {
    Autogen(Box<OpenedAsset>),
    /// A forest: its `SPACING` drives the trees.
    Forest(format::forest::ForestFacts),
    /// An object string: its offset and objects.
    String(Box<StringFacts>),
    /// An object: the art loader reads it.
    Art,
    /// A facade, with the topology its `.fac` gives (`None`: it could not be read; the art
    /// loader reports why and draws a plain box).
    Facade(Option<format::facade::FacadeTopology>),
    /// Resolved, but it could not be read (the error was reported once).
    Broken,
    /// Not found (warned once): drawn as a placeholder.
    Missing,
}

/// One feature's resolution.
#[derive(Debug, Clone)]
struct Resolution {
    resolved: Option<PathBuf>,
    package: Option<String>,
    opened: Arc<Opened>,
    /// Found through a library (not relative to the document or in its package).
    library: bool,
}

impl Resolution {
    /// Whether `SLOPE_LIMIT` counts for `f`: an autogen point placed by library path.
    fn screened(&self, f: &DocFeature) -> bool {
        self.library && f.kind == FeatureKind::Agp && matches!(f.geometry, Geometry::Point { .. })
    }
}

/// What laying out one feature gave.
struct FeatureResult {
    scene: Option<Scene>,
    diags: Vec<Diagnostic>,
    files: Vec<PathBuf>,
    /// An autogen feature's footprint in its own frame (`FeatureInfo::footprint`).
    footprint: Option<Footprint>,
}

impl FeatureResult {
    /// Ties what laying feature `i` out said (its diagnostics and its layout's warnings)
    /// to the feature. An error here is the feature (or a part of it) not laid out.
    fn tie_to(&mut self, i: usize) {
        use crate::diag::kind;
        for d in self.diags.iter_mut().filter(|d| d.is_error()) {
            if d.kind == kind::FORMAT || d.kind == kind::GENERAL {
                d.kind = kind::SKIPPED_FEATURE;
            }
        }
        let scene_warnings = self.scene.iter_mut().flat_map(|s| s.warnings.iter_mut());
        for d in self.diags.iter_mut().chain(scene_warnings) {
            d.feature = Some(i);
        }
    }
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
    preview: Option<&mut dyn FnMut(Document)>,
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
    let assemble = |parts: Vec<Scene>, infos: Vec<FeatureInfo>| {
        let (mut scene, atlas) = combine_with(parts, opts.threads);
        scene.kind = scene_kind;
        scene.asset = crate::diag::shown_path(path);
        scene.lights_txt = lights_txt.clone();
        scene.seed = args.seed;
        scene.geo = Some(geo);
        scene.features = infos;
        (scene, atlas)
    };
    // Each worker lays its features out and describes them; only moving the parts into
    // one scene is left to this thread.
    let lay_out = |from: usize, to: usize| {
        parallel_map(
            &feats[from..to],
            opts.threads,
            opts.progress.as_deref(),
            |k, f| {
                let i = from + k;
                let mut r =
                    layout_feature(path, f, &resolutions[i], origin, args, seeds[i], &pavement);
                r.tie_to(i);
                let info = describe(f, &resolutions[i], &mut r, i as u32);
                (r, info)
            },
        )
    };
    let results = match preview {
        Some(show) if feats.len() >= PREVIEW_MIN_FEATURES => {
            let first = (feats.len() / PREVIEW_SHARE).max(PREVIEW_FIRST_MIN);
            let mut results = lay_out(0, first);
            let parts: Vec<Scene> = results
                .iter()
                .filter_map(|(r, _)| r.scene.clone())
                .collect();
            let infos = results.iter().map(|(_, info)| info.clone()).collect();
            let (scene, atlas) = assemble(parts, infos);
            show(Document {
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
            });
            results.extend(lay_out(first, feats.len()));
            results
        }
        _ => lay_out(0, feats.len()),
    };

    let mut results = results;
    let terrain_dependent = feats.iter().zip(&resolutions).any(|(f, r)| r.screened(f));
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
    let mut infos = Vec::with_capacity(feats.len());
    let mut parts = Vec::with_capacity(feats.len());
    for (mut r, info) in results {
        diags.append(&mut r.diags);
        files.append(&mut r.files);
        parts.extend(r.scene);
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
    } else if parts.is_empty() && drops.is_empty() {
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
    let (mut scene, atlas) = assemble(parts, infos);
    scene.debug.slope_drops = drops;
    scene.warnings.extend(drop_lines);
    // What was skipped is reported in the JSON too, as the error it is.
    for d in diags.iter().filter(|d| d.is_error()) {
        scene.warnings.push(d.clone());
    }
    files.sort();
    files.dedup();
    times.combine_ms = ms(stage);
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

/// `SLOPE_LIMIT` screening of a document's autogen points placed by library path.
struct Screen<'a> {
    doc: &'a Path,
    resolver: &'a Resolver,
    args: &'a Inputs,
    /// The document frame's origin (lon, lat).
    origin: [f64; 2],
    seed: u64,
    /// Each feature's own seed (`feature_seeds`).
    seeds: &'a [u64],
    pavement: &'a PavementLibrary,
}

impl Screen<'_> {
    /// Makes the terrain from the scene as laid out so far, measures each screened point's
    /// slope on it, and draws each point's variant again among those whose limits admit
    /// the slope: a point whose variant changes is laid out again, one that no variant
    /// admits is dropped (its feature keeps its entry, with the reason, and a warning says
    /// it). Returns the terrain and the dropped points.
    #[allow(clippy::too_many_arguments)]
    fn run(
        &self,
        ground: &Ground,
        feats: &[DocFeature],
        resolutions: &[Resolution],
        results: &mut [(FeatureResult, FeatureInfo)],
        cache: &mut ResolveCache,
        diags: &mut Vec<Diagnostic>,
        files: &mut Vec<PathBuf>,
    ) -> Result<(Terrain, Vec<SlopeDrop>, Vec<Diagnostic>), Diagnostic> {
        // The terrain is framed on what the document places before any point is dropped,
        // as `render` frames it on a scene: dropping a point does not move the ground.
        // The union of the parts' extents is the combined scene's (a part's tiles lie in
        // its polygon, which counts even when the tiles are hidden).
        let (lo, hi) = results
            .iter()
            .filter_map(|(r, _)| r.scene.as_ref()?.extent())
            .reduce(|(alo, ahi), (blo, bhi)| {
                (
                    [alo[0].min(blo[0]), alo[1].min(blo[1])],
                    [ahi[0].max(bhi[0]), ahi[1].max(bhi[1])],
                )
            })
            .unwrap_or(([-10.0, -10.0], [10.0, 10.0]));
        let terrain = (ground.0)(lo, hi).map_err(|m| Diagnostic::error_file(self.doc, m))?;
        // Slopes are X-Plane's: the heights as stored, not exaggerated for the view.
        let step = (terrain.cell_size() * 0.5).clamp(0.5, 5.0);
        let mut drops = Vec::new();
        let mut lines = Vec::new();
        for (i, f) in feats.iter().enumerate() {
            let res = &resolutions[i];
            let (Some(at), Geometry::Point { heading, .. }) = (f.origin(), &f.geometry) else {
                continue;
            };
            if !res.screened(f) {
                continue;
            }
            let pos = input::project(self.origin, at);
            let heading = *heading as f32;
            let slope = slope_at(|x, y| terrain.raw_height_at(x, y), pos, heading, step);
            let lat_lon = Some(crate::resolve::LatLon {
                lat: at[1],
                lon: at[0],
            });
            let mut limits: Vec<(PathBuf, Option<SlopeLimit>)> = Vec::new();
            let mut admit = |p: &Path| {
                let limit = match &*cache.open(f.kind, p, self.resolver, diags, files) {
                    Opened::Autogen(a) => a.autogen.slope_limit.map(SlopeLimit::from_array),
                    _ => None,
                };
                limits.push((p.to_path_buf(), limit));
                limit.is_none_or(|l| l.admits(slope))
            };
            let found = self
                .resolver
                .resolve_library_admitted(&f.asset, lat_lon, self.seed, &mut admit);
            match found {
                Some(found) if Some(&found.path) == res.resolved.as_ref() => {}
                Some(found) => {
                    let package = found.package.clone();
                    let opened = cache.open(f.kind, &found.path, self.resolver, diags, files);
                    let now = Resolution {
                        resolved: Some(found.path),
                        package,
                        opened,
                        library: true,
                    };
                    let mut r = layout_feature(
                        self.doc,
                        f,
                        &now,
                        self.origin,
                        self.args,
                        self.seeds[i],
                        self.pavement,
                    );
                    r.tie_to(i);
                    let info = describe(f, &now, &mut r, i as u32);
                    results[i] = (r, info);
                }
                None => {
                    let why = drop_reason(&f.asset, slope, &limits);
                    let d = f
                        .diag(self.doc, Severity::Warning, why.clone())
                        .with_kind(crate::diag::kind::SLOPE_LIMIT)
                        .for_feature(i);
                    let (r, info) = &mut results[i];
                    r.scene = None;
                    info.stats = Default::default();
                    info.choice = None;
                    info.corners.clear();
                    info.dropped = Some(why);
                    info.footprint = None;
                    lines.push(d.clone());
                    r.diags.push(d);
                    drops.push(SlopeDrop {
                        pos,
                        heading,
                        pitch: slope.pitch,
                        roll: slope.roll,
                        feature: i as u32,
                    });
                }
            }
        }
        Ok((terrain, drops, lines))
    }
}

/// Why a point was dropped: its slope and each variant's limits.
fn drop_reason(asset: &str, slope: Slope, limits: &[(PathBuf, Option<SlopeLimit>)]) -> String {
    let each: Vec<String> = limits
        .iter()
        .map(|(p, l)| {
            let name = p.file_name().map_or_else(
                || p.display().to_string(),
                |n| n.to_string_lossy().into_owned(),
            );
            match l {
                Some(l) => format!("{name}: {l}"),
                None => format!("{name}: no limit"),
            }
        })
        .collect();
    let variants = if each.is_empty() {
        "no variant of it is exported here".to_string()
    } else {
        format!(
            "SLOPE_LIMIT of every variant excludes it ({})",
            each.join("; ")
        )
    };
    format!(
        "{asset} not placed: the terrain here has {slope} along the point's heading; {variants}"
    )
}

fn ms(since: std::time::Instant) -> f64 {
    since.elapsed().as_secs_f64() * 1e3
}

/// Resolutions and opened files shared by a document's features.
#[derive(Default)]
struct ResolveCache {
    /// Names found as files (relative to the document or in its package): the same
    /// everywhere, so looked up once.
    fixed: HashMap<String, Resolution>,
    /// Names found nowhere (warned once).
    missing: HashMap<String, Resolution>,
    opened: HashMap<PathBuf, Arc<Opened>>,
}

impl ResolveCache {
    /// Resolves `f`'s definition at its place and opens the file it names (once per file).
    fn resolve(
        &mut self,
        doc: &Path,
        f: &DocFeature,
        resolver: &Resolver,
        seed: u64,
        diags: &mut Vec<Diagnostic>,
        files: &mut Vec<PathBuf>,
    ) -> Resolution {
        if let Some(item) = &f.airport {
            // An airport's item is drawn with agview's own pavement and line art.
            return Resolution {
                resolved: Some(item.file.clone()),
                package: None,
                opened: Arc::new(Opened::Art),
                library: false,
            };
        }
        if let Some(r) = self.fixed.get(&f.asset).or(self.missing.get(&f.asset)) {
            return r.clone();
        }
        let at = f
            .origin()
            .map(|[lon, lat]| crate::resolve::LatLon { lat, lon });
        let Some(found) = resolver.resolve_definition(&f.asset, at, seed) else {
            diags.push(
                f.diag(
                    doc,
                    Severity::Warning,
                    format!(
                        "{}; its features are drawn as placeholders",
                        resolver.definition_missing(&f.asset)
                    ),
                )
                .with_kind(crate::diag::kind::UNRESOLVED),
            );
            let r = Resolution {
                resolved: None,
                package: None,
                opened: Arc::new(Opened::Missing),
                library: false,
            };
            self.missing.insert(f.asset.clone(), r.clone());
            return r;
        };
        if found.case_mismatch() {
            diags.push(f.diag(
                doc,
                Severity::Warning,
                format!(
                    "`{}` matches {} only when case is ignored; X-Plane may not find it on a case-sensitive file system (drawn as found)",
                    f.asset,
                    found.path.display()
                ),
            ));
        }
        let fixed = found.is_file_path();
        let opened = self.open(f.kind, &found.path, resolver, diags, files);
        let package = found.package.clone().or_else(|| {
            resolver
                .root
                .as_ref()
                .filter(|root| found.path.starts_with(root))
                .and_then(|root| root.file_name())
                .map(|n| n.to_string_lossy().into_owned())
        });
        let r = Resolution {
            resolved: Some(found.path),
            package,
            opened,
            library: !fixed,
        };
        if fixed {
            self.fixed.insert(f.asset.clone(), r.clone());
        }
        r
    }
}

impl ResolveCache {
    /// The definition in `file`, opened once.
    fn open(
        &mut self,
        kind: FeatureKind,
        file: &Path,
        document: &Resolver,
        diags: &mut Vec<Diagnostic>,
        files: &mut Vec<PathBuf>,
    ) -> Arc<Opened> {
        self.opened
            .entry(file.to_path_buf())
            .or_insert_with(|| {
                files.push(file.to_path_buf());
                Arc::new(open_definition(kind, file, document, diags, files))
            })
            .clone()
    }
}

/// A facade's rings in local meters as WED exports them (GROUND.md §5), and whether they
/// are open chains. The `.fac`'s topology picks the form of a WED placement: an area keeps
/// `rings` (outer counter-clockwise, holes clockwise), a ring or a chain takes the rings in
/// node order. A ring of two nodes is a chain's, and WED refuses it for a ring or an area
/// ("needs at least three points"): `None`, with that error. When the `.fac` is missing or
/// cannot be read, a two-node ring is kept as a chain, with a warning. A DSF's windings are
/// taken as written.
fn facade_rings(
    doc: &Path,
    f: &DocFeature,
    topology: Option<format::facade::FacadeTopology>,
    origin: [f64; 2],
    rings: Vec<Vec<[f32; 2]>>,
    diags: &mut Vec<Diagnostic>,
) -> Option<(Vec<Vec<[f32; 2]>>, bool)> {
    use format::facade::FacadeTopology;
    let short = rings.iter().any(|r| r.len() < 3);
    let topology = match topology {
        Some(t) => t,
        None if short => {
            diags.push(f.diag(
                doc,
                Severity::Warning,
                format!(
                    "{}: without its .fac the facade's topology is unknown, so its two-node ring is kept as an open chain",
                    f.asset
                ),
            ));
            FacadeTopology::Chain
        }
        None => FacadeTopology::Area,
    };
    let open = topology == FacadeTopology::Chain;
    let Some(node_order) = &f.facade_node_order else {
        return Some((rings, open));
    };
    if short && !open {
        let what = match topology {
            FacadeTopology::Area => "has a roof, so WED exports an area",
            _ => "is a ring (RING 1, the default)",
        };
        diags.push(f.diag(
            doc,
            Severity::Error,
            format!(
                "{}: polygon feature needs at least three points: its facade {} {what}; WED refuses to export it",
                f.source
                    .strip_prefix(&format!("{}: ", doc.display()))
                    .unwrap_or(&f.source),
                f.asset
            ),
        ));
        return None;
    }
    if topology == FacadeTopology::Area {
        return Some((rings, open));
    }
    let projected = node_order
        .iter()
        .map(|r| r.iter().map(|p| input::project(origin, *p)).collect())
        .collect();
    Some((projected, open))
}

/// Rings in local meters, and (for an orthophoto) their points' texture coordinates.
type FlatRings = (Vec<Vec<[f32; 2]>>, Option<Vec<Vec<[f32; 2]>>>);

/// A curved feature's rings (local meters) flattened, with its texture coordinates
/// flattened alike when it has them. `ctrl` is parallel to the windings, in degrees.
fn flatten_curves(
    rings: &[Vec<[f32; 2]>],
    ctrl: &[Vec<[f64; 2]>],
    f: &DocFeature,
    origin: [f64; 2],
    closed: bool,
) -> FlatRings {
    use crate::layout::curves;
    let mut out = Vec::with_capacity(rings.len());
    let mut sts = Vec::with_capacity(rings.len());
    for (k, ring) in rings.iter().enumerate() {
        let c: Vec<[f32; 2]> = ctrl
            .get(k)
            .map(|c| c.iter().map(|p| input::project(origin, *p)).collect())
            .unwrap_or_else(|| ring.clone());
        let st = f.st.as_ref().and_then(|s| s.get(k)).map(|s| s.as_slice());
        let st_ctrl = f
            .st_ctrl
            .as_ref()
            .and_then(|s| s.get(k))
            .map(|s| s.as_slice());
        // A point's own control, projected, may differ from it by rounding: compare in
        // degrees (the DSF's exact values).
        let same: Vec<[f32; 2]> = ring
            .iter()
            .zip(&c)
            .enumerate()
            .map(|(i, (p, cp))| {
                let raw_p = match &f.geometry {
                    Geometry::Polygon(w) => w.get(k).and_then(|w| w.get(i)).copied(),
                    Geometry::Point { .. } => None,
                };
                let raw_c = ctrl.get(k).and_then(|c| c.get(i)).copied();
                if raw_p.is_some() && raw_p == raw_c {
                    *p
                } else {
                    *cp
                }
            })
            .collect();
        let nodes = curves::merge_runs(ring, &same, st, st_ctrl, closed);
        let (pts, flat_st) = curves::flatten(&nodes, closed);
        out.push(pts);
        sts.push(flat_st);
    }
    let st = f.st.is_some().then_some(sts);
    (out, st)
}

/// Reads what laying out a feature of `kind` needs from its file. Library paths inside it
/// that its own package does not export resolve through the `document`'s libraries (the
/// install's, with `--xplane`).
fn open_definition(
    kind: FeatureKind,
    file: &Path,
    document: &Resolver,
    diags: &mut Vec<Diagnostic>,
    files: &mut Vec<PathBuf>,
) -> Opened {
    match kind {
        FeatureKind::Agp | FeatureKind::Agb | FeatureKind::Ags => {
            match OpenedAsset::open(file, document) {
                Ok(a) => {
                    diags.extend(a.diagnostics.iter().cloned());
                    files.extend(a.files.iter().cloned());
                    Opened::Autogen(Box::new(a))
                }
                Err(e) => {
                    diags.push(e);
                    Opened::Broken
                }
            }
        }
        FeatureKind::For => {
            let spacing = format::read_file(file).and_then(|b| {
                let mut w = Vec::new();
                format::forest::parse(file, &b, &mut w).map(|f| f.facts())
            });
            match spacing {
                Ok(s) => Opened::Forest(s),
                Err(e) => {
                    diags.push(e);
                    Opened::Broken
                }
            }
        }
        FeatureKind::Fac => Opened::Facade(facade_topology(file)),
        // The art stage reads draped polygons (and says what is wrong with them).
        FeatureKind::Obj | FeatureKind::Pol | FeatureKind::Lin => Opened::Art,
        FeatureKind::Runway
        | FeatureKind::Helipad
        | FeatureKind::Pavement
        | FeatureKind::Marking => Opened::Art,
        FeatureKind::Str => match open_string(file, document, diags, files) {
            Some(s) => Opened::String(Box::new(s)),
            None => Opened::Broken,
        },
    }
}

/// What laying out an object string needs: its `OFFSET`, and each `OBJECT`'s turn range
/// and resolved mesh.
#[derive(Debug)]
struct StringFacts {
    offset: f32,
    turns: Vec<[f32; 2]>,
    meshes: Vec<crate::scene::ArtRef>,
}

/// Reads a `.str` and resolves the objects it names (a missing one is a warning on its
/// line and draws as a placeholder); `None` when it cannot be read.
fn open_string(
    file: &Path,
    document: &Resolver,
    diags: &mut Vec<Diagnostic>,
    files: &mut Vec<PathBuf>,
) -> Option<StringFacts> {
    let parsed = format::read_file(file).and_then(|b| {
        let mut w = Vec::new();
        let r = format::obj_string::parse(file, &b, &mut w);
        diags.extend(w);
        r
    });
    let s = match parsed {
        Ok(s) => s,
        Err(e) => {
            diags.push(e);
            return None;
        }
    };
    let meshes = s
        .objects
        .iter()
        .map(|o| {
            let resolved = document.resolve(file, &o.path);
            match &resolved {
                Some(p) => files.push(p.clone()),
                None => diags.push(document.missing(file, o.line, "OBJECT", &o.path)),
            }
            crate::scene::ArtRef {
                name: o.path.as_str().into(),
                resolved: resolved.map(|p| crate::diag::shown_path(&p)),
            }
        })
        .collect();
    Some(StringFacts {
        offset: s.offset,
        turns: s.objects.iter().map(|o| o.turn).collect(),
        meshes,
    })
}

/// How WED exports a placement of the facade in `file` (its `.fac` decides), or `None` when
/// the file cannot be read or parsed (the art stage reports why when it loads it).
fn facade_topology(file: &Path) -> Option<format::facade::FacadeTopology> {
    let bytes = format::read_file(file).ok()?;
    format::facade::parse(file, &bytes, &mut Vec::new())
        .ok()
        .map(|f| f.topology())
}

/// Each feature's seed for what it scatters (a forest's trees, an object string's turns).
/// It comes from what the feature is and how many features of the same definition and
/// parameter came before it, never from its index: a feature added or removed elsewhere in
/// the document leaves the others' trees where they were (what `report --against` needs),
/// and a DSF text, its binary DSF and its WED project, which list the same features in the
/// same order, seed them alike (their coordinates differ in the last bits, so the place is
/// not part of the seed).
fn feature_seeds(feats: &[DocFeature], seed: u64) -> Vec<u64> {
    let mut seen: HashMap<(&str, u32), u64> = HashMap::new();
    feats
        .iter()
        .map(|f| {
            let n = seen.entry((f.asset.as_str(), f.param)).or_insert(0);
            let mut h = Fnv::default();
            h.write(f.asset.as_bytes());
            h.write(&f.param.to_le_bytes());
            h.write(&n.to_le_bytes());
            *n += 1;
            seed ^ h.0
        })
        .collect()
}

/// FNV-1a, 64 bits: a hash that stays the same across Rust versions and platforms, for
/// seeds that must give the same layout forever.
struct Fnv(u64);

impl Default for Fnv {
    fn default() -> Self {
        Fnv(0xCBF2_9CE4_8422_2325)
    }
}

impl Fnv {
    fn write(&mut self, bytes: &[u8]) {
        for b in bytes {
            self.0 = (self.0 ^ u64::from(*b)).wrapping_mul(0x0100_0000_01B3);
        }
    }
}

/// The layout input of an autogen feature on its footprint (in its own frame, around
/// `origin`): what the document lays it out on, and what `lay_out_alone` lays it out on
/// again. `source` is the document line its polygon came from, for messages.
fn autogen_input(
    footprint: &Footprint,
    point: bool,
    source: Option<(PathBuf, u32)>,
    param: u32,
    origin: [f64; 2],
    args: &Inputs,
) -> LayoutInput {
    LayoutInput {
        polygon: (!footprint.rings.is_empty()).then(|| footprint.rings.clone()),
        polygon_source: source,
        point: point.then_some(PointInput {
            pos: [0.0, 0.0],
            heading: footprint.heading,
        }),
        param: args.param.or(Some(param)),
        height: args.height,
        seed: args.seed,
        convention: args.convention,
        geo: Some(GeoFrame {
            origin_lat: origin[1],
            origin_lon: origin[0],
            ..GeoFrame::default()
        }),
        forest_spacing: None,
        // A document's polygon is its DSF windings (WED's as its exporter writes them):
        // an AGS joins them into contours.
        windings: true,
        spawn: None,
    }
}

/// Lays `asset` out alone on document feature `f`'s footprint (scaled so its bounding box
/// is `size`, when given), in the feature's own frame: what `agview report` shows of each
/// asset a document uses. `None` when `f` is not an autogen feature.
pub fn lay_out_alone(
    asset: &OpenedAsset,
    f: &FeatureInfo,
    args: &Inputs,
    rings: Option<Vec<Vec<[f32; 2]>>>,
) -> Option<Result<Scene, Diagnostic>> {
    let footprint = f.footprint.as_ref()?;
    let origin = f.at?;
    let point = footprint.rings.is_empty();
    let mut input = autogen_input(footprint, point, None, f.param, origin, args);
    if let Some(r) = rings {
        input.polygon = Some(r);
    }
    Some(asset.layout(input))
}

/// Lays out one feature in its own frame and moves it into the document's.
fn layout_feature(
    doc: &Path,
    f: &DocFeature,
    res: &Resolution,
    doc_origin: [f64; 2],
    args: &Inputs,
    seed: u64,
    pavement: &PavementLibrary,
) -> FeatureResult {
    let mut out = FeatureResult {
        scene: None,
        diags: Vec::new(),
        files: Vec::new(),
        footprint: None,
    };
    let Some(origin) = f.origin() else {
        out.diags.push(f.diag(
            doc,
            Severity::Error,
            format!("{} has no point; not laid out", f.asset),
        ));
        return out;
    };
    // An airport's item: its own projection and art, no rings or definitions to read.
    if let Some(item) = f.airport.as_deref() {
        let mut s = layout_airport(item, origin, pavement);
        s.translate(input::project(doc_origin, origin));
        out.scene = Some(s);
        return out;
    }
    let rings: Vec<Vec<[f32; 2]>> = match &f.geometry {
        Geometry::Polygon(w) => w
            .iter()
            .map(|r| r.iter().map(|p| input::project(origin, *p)).collect())
            .collect(),
        Geometry::Point { .. } => Vec::new(),
    };
    let heading = match f.geometry {
        Geometry::Point { heading, .. } => heading as f32,
        Geometry::Polygon(_) => 0.0,
    };
    // Curves flattened (GROUND.md §4): a `.pol` is a closed ring, a string a chain as
    // written, a facade as its `.fac` makes it.
    let facade_open = matches!(
        &*res.opened,
        Opened::Facade(Some(format::facade::FacadeTopology::Chain))
    );
    let closed = match f.kind {
        FeatureKind::Str => false,
        FeatureKind::Lin => f.param == 1,
        FeatureKind::Fac => !facade_open,
        _ => true,
    };
    let (rings, curved_st) = match &f.ctrl {
        Some(ctrl) => flatten_curves(&rings, ctrl, f, origin, closed),
        None => (rings, None),
    };
    let st: Option<&[Vec<[f32; 2]>]> = curved_st.as_deref().or(f.st.as_deref());
    let resolved = res.resolved.as_deref().map(crate::diag::shown_path);
    let laid = match (&*res.opened, f.kind) {
        (Opened::Broken, _) => {
            out.diags.push(f.diag(
                doc,
                Severity::Error,
                format!("{} could not be read (see above); not laid out", f.asset),
            ));
            return out;
        }
        // A facade whose `.fac` is missing still stands where it is, as a plain wall.
        (Opened::Facade(_), _) | (Opened::Missing, FeatureKind::Fac) => {
            let topology = match &*res.opened {
                Opened::Facade(t) => *t,
                _ => None,
            };
            match facade_rings(doc, f, topology, origin, rings, &mut out.diags) {
                Some((rings, open)) => {
                    let mut s = placed::facade(&f.asset, &rings, f.param as f32, open);
                    s.facade_defs[0].resolved = resolved.clone();
                    if f.param == 0 {
                        out.diags.push(f.diag(
                            doc,
                            Severity::Warning,
                            format!(
                                "{}: facade height 0 m (the parameter is the height in meters)",
                                f.asset
                            ),
                        ));
                    }
                    Ok(s)
                }
                None => return out,
            }
        }
        // A draped polygon whose `.pol` is missing still covers its ground, with the
        // missing-texture checkerboard.
        (Opened::Art | Opened::Missing, FeatureKind::Pol) => {
            if rings.first().is_none_or(|r| r.len() < 3) {
                out.diags.push(f.diag(
                    doc,
                    Severity::Error,
                    format!(
                        "{}: a draped polygon needs at least three points; not laid out",
                        f.asset
                    ),
                ));
                return out;
            }
            let heading = crate::layout::placed::pol_heading(f.param);
            let mut s = placed::draped_polygon(&f.asset, &rings, st, heading);
            s.pol_defs[0].resolved = resolved.clone();
            Ok(s)
        }
        // A painted line whose `.lin` is missing is drawn as a plain line.
        (Opened::Art | Opened::Missing, FeatureKind::Lin) => {
            let mut s = placed::painted_line(&f.asset, &rings, f.param == 1);
            s.lin_defs[0].resolved = resolved.clone();
            Ok(s)
        }
        (Opened::String(st), _) => {
            let spacing = crate::layout::placed::str_spacing(f.param);
            if spacing <= 0.01 {
                out.diags.push(f.diag(
                    doc,
                    Severity::Warning,
                    format!(
                        "{}: object string spacing {} (the parameter is the spacing in meters); nothing placed",
                        f.asset, f.param
                    ),
                ));
            }
            Ok(placed::object_string(
                &f.asset,
                &rings,
                spacing,
                st.offset,
                &st.turns,
                st.meshes.clone(),
                seed,
            ))
        }
        (Opened::Missing, _) => {
            // A visible placeholder where the feature is: a missing mesh draws as a box.
            let at = match f.kind {
                FeatureKind::Obj | FeatureKind::Agp => [0.0, 0.0],
                _ => centroid(&rings),
            };
            Ok(placed::object(&f.asset, at, heading))
        }
        (Opened::Autogen(a), _) => {
            let footprint = Footprint {
                rings: rings.clone(),
                heading,
            };
            let source = match f.at {
                crate::diag::Location::Text { line, .. } => Some((doc.to_path_buf(), line)),
                _ => None,
            };
            let point = matches!(f.geometry, Geometry::Point { .. });
            let input = autogen_input(&footprint, point, source, f.param, origin, args);
            out.footprint = Some(footprint);
            a.layout(input)
        }
        (Opened::Forest(facts), _) => {
            let mut s = placed::forest(&f.asset, &rings, f.param, facts.spacing, seed);
            crate::layout::trees::seed_heights(&mut s.trees, 0, facts);
            if let Some(r) = s.forest.as_mut() {
                r.resolved = resolved.clone();
            }
            Ok(s)
        }
        (Opened::Art, _) => {
            let mut s = placed::object(&f.asset, [0.0, 0.0], heading);
            s.meshes[0].resolved = resolved.clone();
            Ok(s)
        }
    };
    match laid {
        Ok(mut s) => {
            let d = input::project(doc_origin, origin);
            s.translate(d);
            out.scene = Some(s);
        }
        Err(e) => {
            // The layout's own message; one about no place in particular points at the
            // feature in the document.
            let message = format!("{} not laid out: {}", f.asset, e.message);
            out.diags
                .push(if e.location == crate::diag::Location::File {
                    f.diag(doc, Severity::Error, message)
                } else {
                    Diagnostic {
                        severity: Severity::Error,
                        message,
                        ..e
                    }
                });
        }
    }
    out
}

/// The mean of the outer ring's points (where a missing asset's placeholder stands).
fn centroid(rings: &[Vec<[f32; 2]>]) -> [f32; 2] {
    let Some(r) = rings.first().filter(|r| !r.is_empty()) else {
        return [0.0, 0.0];
    };
    let n = r.len() as f32;
    let s = r
        .iter()
        .fold([0.0f32, 0.0], |a, p| [a[0] + p[0], a[1] + p[1]]);
    [s[0] / n, s[1] / n]
}

/// The feature's entry in `Scene::features`; marks what it placed with its index.
fn describe(f: &DocFeature, res: &Resolution, r: &mut FeatureResult, i: u32) -> FeatureInfo {
    let mut info = FeatureInfo {
        resolved: res.resolved.as_deref().map(crate::diag::shown_path),
        package: res.package.clone(),
        at: f.origin(),
        footprint: r.footprint.take(),
        ..FeatureInfo::new(f.source.clone(), f.asset.clone(), f.kind, f.param)
    };
    if let Some(s) = r.scene.as_mut() {
        s.update_stats();
        info.stats = s.stats;
        info.choice = s.choice.clone();
        info.corners = s.corners.clone();
        info.tile_lod = s.tile_lod;
        info.layer_group = s.layer_group.clone();
        info.hide_tiles = s.hide_tiles;
        stamp_feature(s, i);
    }
    info
}

/// Marks everything a feature placed with its index.
fn stamp_feature(s: &mut Scene, i: u32) {
    let f = Some(i);
    s.tiles.iter_mut().for_each(|t| t.feature = f);
    s.objects.iter_mut().for_each(|o| o.feature = f);
    s.facades.iter_mut().for_each(|x| x.feature = f);
    s.trees.iter_mut().for_each(|t| t.feature = f);
    s.draped.iter_mut().for_each(|d| d.feature = f);
    s.lines.iter_mut().for_each(|l| l.feature = f);
}

/// Maps `f` over `items` on `threads` workers (0: one per core) of a rayon pool of this
/// call's own, so `--threads` holds whatever else runs, and returns the results in item
/// order: the outcome never depends on thread timing. Each item done counts on `progress`.
pub fn parallel_map<T: Sync, R: Send>(
    items: &[T],
    threads: usize,
    progress: Option<&Progress>,
    f: impl Fn(usize, &T) -> R + Sync,
) -> Vec<R> {
    use rayon::prelude::*;
    let threads = if threads == 0 {
        std::thread::available_parallelism().map_or(1, |n| n.get())
    } else {
        threads
    }
    .clamp(1, items.len().max(1));
    let work = |(i, item): (usize, &T)| {
        let r = f(i, item);
        if let Some(p) = progress {
            p.add(1);
        }
        r
    };
    let pool = (threads > 1)
        .then(|| {
            rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .thread_name(|i| format!("agview-layout-{i}"))
                .build()
                .ok()
        })
        .flatten();
    match pool {
        // One item per task: features differ in cost by orders of magnitude (a point
        // against a 200-vertex string), so no worker waits on another's long share.
        Some(pool) => pool.install(|| {
            items
                .par_iter()
                .enumerate()
                .with_max_len(1)
                .map(work)
                .collect()
        }),
        None => items.iter().enumerate().map(work).collect(),
    }
}

#[cfg(test)]
mod tests;
