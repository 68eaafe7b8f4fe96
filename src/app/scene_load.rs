//! What the viewer and the sweep open: an autogen asset (through [`pipeline::load_scene`]),
//! or a DSF text file whose autogen features are each laid out on their own polygon (or at
//! their own point) and combined into one [`Scene`] in a common local frame.
//!
//! A DSF's features may use different ground textures, while a scene has one tile texture;
//! the combined scene then draws its tiles from an atlas: the textures stacked bottom to top,
//! each resized to a common size, with every tile's texture rectangle moved into its slot
//! ([`load_view_art`] builds the image). A tile whose rectangle runs past its texture's edge
//! would sample the next slot; autogen tiles stay inside their texture.
//!
//! Every DSF feature is laid out with the same `--seed`, exactly as `agview layout --polygon
//! FILE --polygon-index N` lays it out on its own, only in the file's common frame (the first
//! feature's first point), so a feature in the viewer and on the command line agree.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::rc::Rc;

use crate::art::{ArtSet, ImageData, ImagePixels};
use crate::diag::Diagnostic;
use crate::format::autogen::Autogen;
use crate::format::{self, FileKind};
use crate::input::{self, LayoutArgs};
use crate::layout::{LayoutInput, PointInput};
use crate::pipeline::{self, Loaded};
use crate::resolve::Resolver;
use crate::scene::{ArtRef, BlockChoice, GeoFrame, Scene, SceneKind, SceneStats, TileTexture};

/// The largest side of one atlas slot in pixels.
const ATLAS_SLOT_MAX: u32 = 1024;
/// The tallest atlas image (every backend supports 8192).
const ATLAS_MAX_HEIGHT: u32 = 8192;

/// A laid-out scene as the viewer shows it.
#[derive(Debug, Clone)]
pub struct ViewScene {
    pub loaded: Loaded,
    /// DSF: one entry per feature laid out, in file order; empty for a single asset.
    pub features: Vec<FeatureSummary>,
    /// DSF whose features use more than one ground texture: the textures of the tile
    /// atlas, slot 0 at the bottom. Empty when the scene's own `tile_texture` is drawn.
    pub atlas: Vec<String>,
}

/// What one DSF feature laid out.
#[derive(Debug, Clone, PartialEq)]
pub struct FeatureSummary {
    /// The definition's path as the DSF writes it.
    pub def: String,
    pub kind: SceneKind,
    /// Line of the `BEGIN_POLYGON` or `OBJECT`.
    pub line: u32,
    pub stats: SceneStats,
    pub choice: Option<BlockChoice>,
    pub corners: usize,
}

/// Opens `path`: a DSF text file (every autogen feature in it) or an asset laid out with
/// `args`.
pub fn load_view(path: &Path, args: &LayoutArgs) -> Result<ViewScene, Diagnostic> {
    let is_txt = path
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("txt"));
    if is_txt {
        let bytes = format::read_file(path)?;
        if FileKind::detect(path, &bytes) == Some(FileKind::DsfText) {
            return load_dsf(path, &bytes, args);
        }
    }
    let mut loaded = pipeline::load_scene(path, args)?;
    if let Some(lib) = package_library(path) {
        loaded.files.push(lib);
    }
    Ok(ViewScene {
        loaded,
        features: Vec::new(),
        atlas: Vec::new(),
    })
}

/// The `library.txt` of the package holding `path`, found as [`Resolver`] finds it.
fn package_library(path: &Path) -> Option<PathBuf> {
    let mut dir = path.parent();
    for _ in 0..6 {
        let d = dir?;
        let lib = if d.as_os_str().is_empty() {
            PathBuf::from("library.txt")
        } else {
            d.join("library.txt")
        };
        if lib.is_file() {
            return Some(lib);
        }
        dir = d.parent();
    }
    None
}

/// An autogen asset read once and laid out on many inputs (DSF features, sweep cells).
#[derive(Debug)]
pub struct OpenedAsset {
    pub path: PathBuf,
    pub autogen: Autogen,
    resolver: Resolver,
    forest_spacing: Option<[f32; 2]>,
    /// Warnings from reading the asset, its library and its forest.
    pub diagnostics: Vec<Diagnostic>,
    /// The asset, its forest and its library.
    pub files: Vec<PathBuf>,
}

impl OpenedAsset {
    /// Reads and parses an `.agp`, `.agb` or `.ags`.
    pub fn open(path: &Path) -> Result<Self, Diagnostic> {
        let bytes = format::read_file(path)?;
        if FileKind::detect(path, &bytes) != Some(FileKind::Autogen) {
            return Err(Diagnostic::error_file(
                path,
                "not an X-Plane autogen asset: expected .agp, .agb or .ags",
            ));
        }
        let mut diagnostics = Vec::new();
        let autogen = format::autogen::parse(path, &bytes, &mut diagnostics)?;
        let resolver = Resolver::for_asset(path, &mut diagnostics);
        let mut files = vec![path.to_path_buf()];
        if let Some(root) = &resolver.root {
            files.push(root.join("library.txt"));
        }
        let mut forest_spacing = None;
        if let Some(v) = &autogen.vegetation {
            if let Some(p) = resolver.resolve(path, &v.path) {
                if let Ok(b) = format::read_file(&p) {
                    let mut ignore = Vec::new();
                    if let Ok(f) = format::forest::parse(&p, &b, &mut ignore) {
                        forest_spacing = Some(f.spacing);
                    }
                }
            }
        }
        Ok(OpenedAsset {
            path: path.to_path_buf(),
            autogen,
            resolver,
            forest_spacing,
            diagnostics,
            files,
        })
    }

    /// Lays the asset out on `input` and resolves the art it names (missing art becomes a
    /// warning in `diags`; resolved files are added to `files`).
    pub fn layout(
        &self,
        mut input: LayoutInput,
        diags: &mut Vec<Diagnostic>,
        files: &mut Vec<PathBuf>,
    ) -> Result<Scene, Diagnostic> {
        input.forest_spacing = input.forest_spacing.or(self.forest_spacing);
        let mut scene = crate::layout::layout(&self.autogen, &self.path, &input)?;
        self.resolve_refs(&mut scene, diags, files);
        scene.update_stats();
        Ok(scene)
    }

    /// Fills each art reference's `resolved` path, as `pipeline::load_scene` does.
    fn resolve_refs(
        &self,
        scene: &mut Scene,
        diags: &mut Vec<Diagnostic>,
        files: &mut Vec<PathBuf>,
    ) {
        let (asset, resolver, ag) = (&self.path, &self.resolver, &self.autogen);
        let mut one = |r: &mut ArtRef, line: u32, what: &str| match resolver.resolve(asset, &r.name)
        {
            Some(p) => {
                r.resolved = Some(p.display().to_string());
                files.push(p);
            }
            None => diags.push(resolver.missing(asset, line, what, &r.name)),
        };
        for (r, d) in scene.meshes.iter_mut().zip(&ag.objects) {
            one(r, d.line, "OBJECT");
        }
        for (r, d) in scene.facade_defs.iter_mut().zip(&ag.facades) {
            one(r, d.line, "FACADE");
        }
        if let (Some(r), Some(d)) = (scene.forest.as_mut(), ag.vegetation.as_ref()) {
            one(r, d.line, "VEGETATION");
        }
        if let (Some(t), Some(d)) = (scene.tile_texture.as_mut(), ag.texture.as_ref()) {
            match resolver.resolve_texture(asset, &t.path) {
                Some(p) => {
                    t.path = p.display().to_string();
                    files.push(p);
                }
                None => diags.push(resolver.missing(asset, d.line, "TEXTURE", &t.path)),
            }
        }
    }
}

fn is_autogen_path(p: &str) -> bool {
    let lower = p.to_ascii_lowercase();
    lower.ends_with(".agp") || lower.ends_with(".agb") || lower.ends_with(".ags")
}

/// One DSF feature to lay out.
struct Feature<'a> {
    def: &'a crate::format::dsf::DsfDef,
    line: u32,
    polygon: Option<Vec<Vec<[f32; 2]>>>,
    point: Option<PointInput>,
    param: Option<u32>,
}

/// Lays out every autogen feature of a DSF text file and combines them.
pub fn load_dsf(path: &Path, bytes: &[u8], args: &LayoutArgs) -> Result<ViewScene, Diagnostic> {
    let mut diags = Vec::new();
    let dsf = format::dsf::parse(path, bytes, &mut diags)?;
    let resolver = Resolver::for_asset(path, &mut diags);
    let mut files = vec![path.to_path_buf()];
    if let Some(root) = &resolver.root {
        files.push(root.join("library.txt"));
    }
    let origin = dsf
        .polygons
        .iter()
        .filter(|p| dsf.polygon_def_path(p).is_some_and(is_autogen_path))
        .find_map(|p| p.windings.first().and_then(|w| w.first()).copied())
        .or_else(|| {
            dsf.objects
                .iter()
                .find(|o| dsf.object_def_path(o).is_some_and(is_autogen_path))
                .map(|o| [o.lon, o.lat])
        })
        .unwrap_or([0.0, 0.0]);
    let geo = GeoFrame {
        origin_lat: origin[1],
        origin_lon: origin[0],
        ..GeoFrame::default()
    };

    let mut todo: Vec<Feature> = Vec::new();
    for p in &dsf.polygons {
        let Some(def) = dsf.polygon_defs.get(p.def) else {
            continue;
        };
        if !is_autogen_path(&def.path) {
            continue;
        }
        let rings = p
            .windings
            .iter()
            .map(|w| w.iter().map(|ll| input::project(origin, *ll)).collect())
            .collect();
        todo.push(Feature {
            def,
            line: p.line,
            polygon: Some(rings),
            point: None,
            param: Some(p.param),
        });
    }
    for o in &dsf.objects {
        let Some(def) = dsf.object_defs.get(o.def) else {
            continue;
        };
        if !def.path.to_ascii_lowercase().ends_with(".agp") {
            continue;
        }
        todo.push(Feature {
            def,
            line: o.line,
            polygon: None,
            point: Some(PointInput {
                pos: input::project(origin, [o.lon, o.lat]),
                heading: o.heading as f32,
            }),
            param: None,
        });
    }
    todo.sort_by_key(|f| f.line);

    let mut assets: HashMap<String, Option<Rc<OpenedAsset>>> = HashMap::new();
    let mut parts: Vec<Scene> = Vec::new();
    let mut features = Vec::new();
    for f in &todo {
        let opened = match assets.get(&f.def.path) {
            Some(o) => o.clone(),
            None => {
                let o = match resolver.resolve(path, &f.def.path) {
                    Some(asset) => {
                        // A broken asset fails the whole file, as a broken single asset
                        // does: the viewer keeps its last good scene and shows the error.
                        let opened = OpenedAsset::open(&asset)?;
                        diags.extend(opened.diagnostics.iter().cloned());
                        files.extend(opened.files.iter().cloned());
                        Some(Rc::new(opened))
                    }
                    None => {
                        let tried: Vec<String> = resolver
                            .candidates(path, &f.def.path)
                            .iter()
                            .map(|p| p.display().to_string())
                            .collect();
                        diags.push(Diagnostic::warning_at(
                            path,
                            f.def.line.max(1),
                            1,
                            format!(
                                "`{}` not found (looked for {}); its features are not drawn",
                                f.def.path,
                                tried.join(", ")
                            ),
                        ));
                        None
                    }
                };
                assets.insert(f.def.path.clone(), o.clone());
                o
            }
        };
        let Some(opened) = opened else { continue };
        let input = LayoutInput {
            polygon: f.polygon.clone(),
            polygon_source: Some((path.to_path_buf(), f.line)),
            point: f.point,
            param: args.param.or(f.param),
            height: args.height,
            seed: args.seed,
            convention: args.convention,
            geo: Some(geo),
            forest_spacing: None,
        };
        match opened.layout(input, &mut diags, &mut files) {
            Ok(scene) => {
                features.push(FeatureSummary {
                    def: f.def.path.clone(),
                    kind: scene.kind,
                    line: f.line,
                    stats: scene.stats,
                    choice: scene.choice.clone(),
                    corners: scene.corners.len(),
                });
                parts.push(scene);
            }
            // One polygon that cannot take its asset does not hide the others.
            Err(mut e) => {
                e.severity = crate::diag::Severity::Warning;
                e.message = format!("{} not laid out: {}", f.def.path, e.message);
                diags.push(e);
            }
        }
    }
    if parts.is_empty() {
        return Err(Diagnostic::error_file(
            path,
            format!(
                "no autogen feature could be laid out ({} polygon(s), {} object(s) in the file; \
                 features whose POLYGON_DEF or OBJECT_DEF names an .agp, .agb or .ags are used)",
                dsf.polygons.len(),
                dsf.objects.len()
            ),
        ));
    }
    let (mut scene, atlas) = combine(parts);
    scene.asset = path.display().to_string();
    scene.seed = args.seed;
    scene.geo = Some(geo);
    files.sort();
    files.dedup();
    Ok(ViewScene {
        loaded: Loaded {
            scene,
            diagnostics: diags,
            files,
        },
        features,
        atlas,
    })
}

/// Merges scenes laid out in one frame into one scene. Art references are shared where two
/// scenes name the same file; tiles of different textures are moved into atlas slots.
/// Returns the scene and the atlas textures (empty when all tiles use one texture as
/// declared).
pub fn combine(parts: Vec<Scene>) -> (Scene, Vec<String>) {
    let mut out = Scene {
        kind: SceneKind::Dsf,
        tile_lod: 0.0,
        ..Scene::default()
    };
    // Distinct tile textures as declared (path and size in pixels).
    let mut textures: Vec<TileTexture> = Vec::new();
    for s in &parts {
        if let Some(t) = s
            .tile_texture
            .as_ref()
            .filter(|_| !s.hide_tiles && !s.tiles.is_empty())
        {
            if !textures.contains(t) {
                textures.push(t.clone());
            }
        }
    }
    let mut atlas_paths: Vec<String> = Vec::new();
    for t in &textures {
        if !atlas_paths.contains(&t.path) {
            atlas_paths.push(t.path.clone());
        }
    }
    let use_atlas = textures.len() > 1;
    out.tile_texture = if use_atlas {
        Some(TileTexture {
            path: "tile atlas".into(),
            width_px: 1.0,
            height_px: atlas_paths.len() as f32,
        })
    } else {
        textures.first().cloned()
    };

    let mut meshes: HashMap<(std::sync::Arc<str>, Option<String>), usize> = HashMap::new();
    let mut facades: HashMap<(std::sync::Arc<str>, Option<String>), usize> = HashMap::new();
    if let Some(first) = parts.first() {
        out.layer_group = first.layer_group.clone();
    }
    for mut s in parts {
        out.tile_lod = out.tile_lod.max(s.tile_lod);
        let slot = s
            .tile_texture
            .as_ref()
            .and_then(|t| atlas_paths.iter().position(|p| *p == t.path));
        let declared = s
            .tile_texture
            .as_ref()
            .map_or([1.0, 1.0], |t| [t.width_px, t.height_px]);
        if !s.hide_tiles && s.tile_texture.is_some() {
            let base = out.tiles.len();
            let order_base = out.tiles.iter().map(|t| t.order + 1).max().unwrap_or(0);
            for mut t in s.tiles.drain(..) {
                if let (true, Some(k)) = (use_atlas, slot) {
                    let (w, h) = (declared[0].max(1e-6), declared[1].max(1e-6));
                    t.uv = [
                        t.uv[0] / w,
                        t.uv[1] / h + k as f32,
                        t.uv[2] / w,
                        t.uv[3] / h + k as f32,
                    ];
                }
                t.order += order_base;
                out.tiles.push(t);
            }
            out.runs
                .extend(s.runs.iter().map(|r| crate::scene::TileRun {
                    first: r.first + base,
                    len: r.len,
                }));
        }
        let mesh_map: Vec<usize> = s
            .meshes
            .iter()
            .map(|r| {
                *meshes
                    .entry((r.name.clone(), r.resolved.clone()))
                    .or_insert_with(|| {
                        out.meshes.push(r.clone());
                        out.meshes.len() - 1
                    })
            })
            .collect();
        for mut o in s.objects.drain(..) {
            if let Some(&i) = mesh_map.get(o.index) {
                o.index = i;
                out.objects.push(o);
            }
        }
        let facade_map: Vec<usize> = s
            .facade_defs
            .iter()
            .map(|r| {
                *facades
                    .entry((r.name.clone(), r.resolved.clone()))
                    .or_insert_with(|| {
                        out.facade_defs.push(r.clone());
                        out.facade_defs.len() - 1
                    })
            })
            .collect();
        for mut f in s.facades.drain(..) {
            f.facade = f.facade.and_then(|i| facade_map.get(i).copied());
            out.facades.push(f);
        }
        if !s.trees.is_empty() {
            match (&out.forest, &s.forest) {
                (None, Some(f)) => out.forest = Some(f.clone()),
                (Some(a), Some(b)) if a != b => out.warnings.push(format!(
                    "{}: its trees are drawn with {} (one forest per view)",
                    s.asset, a.name
                )),
                _ => {}
            }
            out.trees.append(&mut s.trees);
        }
        out.polygon.append(&mut s.polygon);
        out.corners.append(&mut s.corners);
        out.stop_points.append(&mut s.stop_points);
        out.library_objects.append(&mut s.library_objects);
        out.vegetation.append(&mut s.vegetation);
        let d = &mut out.debug;
        d.cut_lines.append(&mut s.debug.cut_lines);
        d.slop_regions.append(&mut s.debug.slop_regions);
        d.ground_points.append(&mut s.debug.ground_points);
        d.caps.append(&mut s.debug.caps);
        d.edge_min.append(&mut s.debug.edge_min);
        d.edge_max.append(&mut s.debug.edge_max);
        out.warnings.append(&mut s.warnings);
    }
    if out.tile_lod <= 0.0 {
        out.tile_lod = 20_000.0;
    }
    out.update_stats();
    (out, if use_atlas { atlas_paths } else { Vec::new() })
}

/// Loads the art of a view: [`pipeline::load_art`], plus the tile atlas when the scene has
/// one (its textures are read on other threads meanwhile).
pub fn load_view_art(view: &mut ViewScene) -> ArtSet {
    if view.atlas.is_empty() {
        return pipeline::load_art(&view.loaded.scene);
    }
    let scene = &mut view.loaded.scene;
    let tt = scene.tile_texture.take();
    let scene_ref = &*scene;
    let (mut art, sources) = std::thread::scope(|s| {
        let loads: Vec<_> = view
            .atlas
            .iter()
            .map(|p| {
                s.spawn(move || {
                    let mut w = Vec::new();
                    let img = crate::art_load::load_image(Path::new(p), &mut w);
                    (img, w)
                })
            })
            .collect();
        let art = pipeline::load_art(scene_ref);
        let sources: Vec<(ImageData, Vec<Diagnostic>)> = loads
            .into_iter()
            .zip(&view.atlas)
            .map(|(h, p)| {
                h.join().unwrap_or_else(|_| {
                    (
                        ImageData::checkerboard(p),
                        vec![Diagnostic::warning_file(
                            Path::new(p),
                            "texture could not be loaded; drawn as a checkerboard",
                        )],
                    )
                })
            })
            .collect();
        (art, sources)
    });
    scene.tile_texture = tt;
    let mut images = Vec::new();
    for (img, w) in sources {
        art.warnings.extend(w);
        images.push(img);
    }
    let image = atlas_image(&images);
    art.images.push(image);
    art.tile_texture = Some(art.images.len() - 1);
    art
}

/// Size of mip `level` of a side.
fn mip_dim(side: u32, level: u32) -> u32 {
    (side >> level.min(31)).max(1)
}

/// The atlas image: each texture resized to a common slot size, slot 0 at the bottom. Each
/// mip level stacks the textures' own mips where their size matches the slot's, else the
/// texture resized (the renderer completes the chain below the slots' last level).
pub fn atlas_image(sources: &[ImageData]) -> ImageData {
    let n = sources.len().max(1) as u32;
    let w = sources
        .iter()
        .map(|i| i.width)
        .max()
        .unwrap_or(1)
        .clamp(1, ATLAS_SLOT_MAX);
    let h = sources
        .iter()
        .map(|i| i.height)
        .max()
        .unwrap_or(1)
        .clamp(1, ATLAS_SLOT_MAX)
        .min((ATLAS_MAX_HEIGHT / n).max(1));
    let mips: Vec<Vec<Vec<u8>>> = sources.iter().map(crate::art_load::rgba8_mips).collect();
    // Levels whose stacked slots have exactly the size of the atlas's own mip (the
    // renderer completes the chain from the last one).
    let levels = (0..32u32)
        .take_while(|&l| {
            mip_dim(h, l).saturating_mul(n) == mip_dim(h.saturating_mul(n), l)
                && (l == 0 || mip_dim(w, l - 1).max(mip_dim(h * n, l - 1)) > 1)
        })
        .count() as u32;
    let mut chain = Vec::with_capacity(levels as usize);
    for level in 0..levels {
        let (lw, lh) = (mip_dim(w, level), mip_dim(h, level));
        let mut atlas = image::RgbaImage::new(lw, lh * n);
        for (k, (src, m)) in sources.iter().zip(&mips).enumerate() {
            let (sw, sh) = (mip_dim(src.width, level), mip_dim(src.height, level));
            let own = m
                .get(level as usize)
                .filter(|px| (sw, sh) == (lw, lh) && px.len() == (sw * sh * 4) as usize)
                .and_then(|px| image::RgbaImage::from_raw(sw, sh, px.clone()));
            let slot = own.unwrap_or_else(|| {
                let base = m
                    .first()
                    .and_then(|px| image::RgbaImage::from_raw(src.width, src.height, px.clone()))
                    .unwrap_or_else(|| {
                        image::RgbaImage::from_pixel(1, 1, image::Rgba([255, 0, 255, 255]))
                    });
                image::imageops::resize(&base, lw, lh, image::imageops::FilterType::Triangle)
            });
            // Images are stored top row first and t = 0 is the bottom row: slot 0 is last.
            let top = (n - 1 - k as u32) * lh;
            image::imageops::replace(&mut atlas, &slot, 0, i64::from(top));
        }
        chain.push(atlas.into_raw());
    }
    ImageData {
        name: "tile atlas".into(),
        width: w,
        height: h * n,
        pixels: ImagePixels::Rgba8(chain),
        missing: false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scene::{ObjectInstance, Tile};

    fn sample(rel: &str) -> PathBuf {
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(rel)
    }

    fn part(texture: &str, mesh: &str, n: usize) -> Scene {
        let mut s = Scene {
            tile_texture: Some(TileTexture {
                path: texture.into(),
                width_px: 512.0,
                height_px: 256.0,
            }),
            meshes: vec![ArtRef {
                name: mesh.into(),
                resolved: Some(format!("/x/{mesh}")),
            }],
            tile_lod: 5000.0,
            ..Scene::default()
        };
        for i in 0..n {
            s.tiles.push(Tile {
                uv: [0.0, 0.0, 512.0, 256.0],
                order: i as u32,
                ..Tile::default()
            });
            s.objects.push(ObjectInstance {
                index: 0,
                path: mesh.into(),
                ..ObjectInstance::default()
            });
        }
        s
    }

    #[test]
    fn combine_shares_art_and_keeps_one_texture_as_declared() {
        let (s, atlas) = combine(vec![part("a.png", "m.obj", 2), part("a.png", "m.obj", 3)]);
        assert!(atlas.is_empty());
        assert_eq!(s.tiles.len(), 5);
        assert_eq!(s.meshes.len(), 1, "the same mesh is one reference");
        assert!(s.objects.iter().all(|o| o.index == 0));
        assert_eq!(s.tiles[0].uv, [0.0, 0.0, 512.0, 256.0]);
        assert_eq!(s.tile_texture.as_ref().unwrap().path, "a.png");
        // Later features draw after earlier ones.
        assert!(s.tiles[2].order > s.tiles[1].order);
        assert_eq!(s.stats.tiles, 5);
        assert_eq!(s.kind, SceneKind::Dsf);
    }

    #[test]
    fn combine_moves_tiles_of_other_textures_into_atlas_slots() {
        let (s, atlas) = combine(vec![part("a.png", "m.obj", 1), part("b.png", "n.obj", 1)]);
        assert_eq!(atlas, vec!["a.png".to_string(), "b.png".to_string()]);
        let t = s.tile_texture.as_ref().unwrap();
        assert_eq!((t.width_px, t.height_px), (1.0, 2.0));
        assert_eq!(s.tiles[0].uv, [0.0, 0.0, 1.0, 1.0]);
        assert_eq!(s.tiles[1].uv, [0.0, 1.0, 1.0, 2.0]);
        assert_eq!(s.meshes.len(), 2);
        assert_eq!(s.objects[1].index, 1, "indices follow the merged mesh list");
    }

    #[test]
    fn atlas_puts_slot_zero_at_the_bottom_with_every_mip() {
        let solid = |name: &str, w: u32, h: u32, c: [u8; 4]| {
            let px: Vec<u8> = (0..w * h).flat_map(|_| c).collect();
            ImageData {
                name: name.into(),
                width: w,
                height: h,
                pixels: ImagePixels::Rgba8(crate::art_load::mip_chain(px, w, h)),
                missing: false,
            }
        };
        let red = solid("red", 8, 4, [255, 0, 0, 255]);
        let blue = solid("blue", 4, 4, [0, 0, 255, 255]);
        let img = atlas_image(&[red, blue]);
        assert_eq!((img.width, img.height), (8, 8));
        let ImagePixels::Rgba8(mips) = &img.pixels else {
            panic!("expected RGBA")
        };
        // 8x8, 4x4, 2x2 levels of the 8 x 4 slots, stacked; 1x1 would not hold both.
        let sizes: Vec<usize> = mips.iter().map(Vec::len).collect();
        assert_eq!(sizes, vec![8 * 8 * 4, 4 * 4 * 4, 2 * 2 * 4]);
        let px = |level: usize, w: usize, x: usize, y: usize| {
            mips[level][(y * w + x) * 4..(y * w + x) * 4 + 4].to_vec()
        };
        assert_eq!(
            px(0, 8, 1, 7),
            [255, 0, 0, 255],
            "slot 0 (red) in the bottom rows"
        );
        assert_eq!(
            px(0, 8, 6, 0),
            [0, 0, 255, 255],
            "slot 1 (blue) on top, stretched"
        );
        assert_eq!(px(2, 2, 1, 1), [255, 0, 0, 255]);
        assert_eq!(px(2, 2, 1, 0), [0, 0, 255, 255]);
    }

    #[test]
    fn dsf_town_lays_out_every_feature_in_one_frame() {
        let path = sample("sample_scenery/polygons/town.txt");
        let v = load_view(&path, &LayoutArgs::default()).unwrap();
        // Three blocks, the lakeside string, three points.
        assert_eq!(v.features.len(), 7, "{:?}", v.features);
        assert_eq!(v.loaded.scene.kind, SceneKind::Dsf);
        let kinds: Vec<SceneKind> = v.features.iter().map(|f| f.kind).collect();
        assert_eq!(kinds.iter().filter(|k| **k == SceneKind::Agb).count(), 3);
        assert_eq!(kinds.iter().filter(|k| **k == SceneKind::Agp).count(), 3);
        assert_eq!(kinds.iter().filter(|k| **k == SceneKind::Ags).count(), 1);
        // Three ground textures (plaza, block, string): an atlas.
        assert_eq!(v.atlas.len(), 3, "{:?}", v.atlas);
        let s = &v.loaded.scene;
        // Every tile is drawn but those of props.agp, which says HIDE_TILES.
        let sum: usize = v
            .features
            .iter()
            .filter(|f| !f.def.ends_with("props.agp"))
            .map(|f| f.stats.tiles)
            .sum();
        assert_eq!(s.tiles.len(), sum);
        // The blocks laid out as on their own: 30, 18 and 15 tiles (sample README).
        let blocks: Vec<usize> = v
            .features
            .iter()
            .filter(|f| f.kind == SceneKind::Agb)
            .map(|f| f.stats.tiles)
            .collect();
        assert_eq!(blocks, vec![30, 18, 15]);
        // Everything within the town's few hundred meters of the origin.
        let (lo, hi) = s.bounds();
        assert!(
            hi[0] - lo[0] < 2000.0 && hi[1] - lo[1] < 2000.0,
            "{lo:?} {hi:?}"
        );
        // The watch list has the DSF, the assets and their art.
        assert!(v.loaded.files.iter().any(|f| f.ends_with("city_block.agb")));
        assert!(v.loaded.files.iter().any(|f| f.ends_with("town.txt")));
        let mut view = v;
        let art = load_view_art(&mut view);
        let atlas = &art.images[art.tile_texture.unwrap()];
        assert_eq!(atlas.name, "tile atlas");
        assert!(!atlas.missing);
    }

    #[test]
    fn dsf_feature_matches_the_command_line_layout() {
        let path = sample("sample_scenery/polygons/town.txt");
        let v = load_view(&path, &LayoutArgs::default()).unwrap();
        let asset = sample("sample_scenery/autogen/city_block.agb");
        let one = pipeline::load_scene(
            &asset,
            &LayoutArgs {
                polygon: Some(path.clone()),
                polygon_index: Some(2),
                ..LayoutArgs::default()
            },
        )
        .unwrap();
        let f = v
            .features
            .iter()
            .filter(|f| f.kind == SceneKind::Agb)
            .nth(2)
            .unwrap();
        assert_eq!(f.choice, one.scene.choice);
        assert_eq!(f.stats, one.scene.stats);
    }

    #[test]
    fn dsf_with_a_broken_asset_is_an_error_naming_its_line() {
        let dir = std::env::temp_dir().join(format!("agview-dsf-broken-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("b.agb"), "A\n1000\nAG_BLOCK\nTEXTURE_SCALE x 10\n").unwrap();
        let dsf = dir.join("d.txt");
        std::fs::write(
            &dsf,
            "I\n800\nDSF2TEXT\nPOLYGON_DEF b.agb\nBEGIN_POLYGON 0 0 2\nBEGIN_WINDING\n\
             POLYGON_POINT 8 47\nPOLYGON_POINT 8.001 47\nPOLYGON_POINT 8.001 47.001\n\
             END_WINDING\nEND_POLYGON\n",
        )
        .unwrap();
        let e = load_view(&dsf, &LayoutArgs::default()).unwrap_err();
        assert!(e.is_error());
        assert!(e.path.ends_with("b.agb"), "{e}");
        assert_eq!(e.line(), Some(4), "{e}");
        // A DSF with nothing autogen in it says so.
        std::fs::write(&dsf, "I\n800\nDSF2TEXT\nPOLYGON_DEF x.pol\n").unwrap();
        let e = load_view(&dsf, &LayoutArgs::default()).unwrap_err();
        assert!(e.to_string().contains("no autogen feature"), "{e}");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
