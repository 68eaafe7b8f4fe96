//! Combining features laid out in one frame into one [`Scene`], and the tile atlas a
//! combined scene draws its tiles from.
//!
//! A document's features may use different ground textures, while a scene has one tile
//! texture; the combined scene then draws its tiles from an atlas: the textures stacked
//! bottom to top, each resized to a common size, with every tile's texture rectangle moved
//! into its slot ([`load_document_art`] builds the image). A tile whose rectangle runs past
//! its texture's edge would sample the next slot; autogen tiles stay inside their texture.

use std::collections::HashMap;
use std::path::Path;

use crate::art::{ArtSet, ImageData, ImagePixels};
use crate::diag::Diagnostic;
use crate::document::Document;
use crate::pipeline;
use crate::scene::{
    ArtRef, FacadeInstance, ObjectInstance, Scene, SceneKind, Tile, TileRun, TileTexture,
    TreeInstance,
};

/// The largest side of one atlas slot in pixels.
const ATLAS_SLOT_MAX: u32 = 1024;
/// The tallest atlas image (every backend supports 8192).
const ATLAS_MAX_HEIGHT: u32 = 8192;

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

    let mut meshes = RefIndex::default();
    let mut facades = RefIndex::default();
    if let Some(first) = parts.first() {
        out.layer_group = first.layer_group.clone();
    }
    // Drawing order: by layer group, then offset (`LayerGroup::draw_key`), then feature
    // order; each part's tile orders start past those of the parts drawn before it.
    let mut draw_order: Vec<usize> = (0..parts.len()).collect();
    draw_order.sort_by_key(|&i| parts[i].layer_group.draw_key());
    let mut order_bases = vec![0u32; parts.len()];
    let mut next_order = 0u32;
    for &i in &draw_order {
        let s = &parts[i];
        order_bases[i] = next_order;
        if !s.hide_tiles && s.tile_texture.is_some() {
            if let Some(m) = s.tiles.iter().map(|t| t.order).max() {
                next_order = next_order.max(next_order + m + 1);
            }
        }
    }
    // First, on this thread, what each part's items become: art indices in the merged
    // lists, atlas slot, drawing orders.
    let mut plans = Vec::with_capacity(parts.len());
    for (i, s) in parts.iter().enumerate() {
        out.tile_lod = out.tile_lod.max(s.tile_lod);
        let draw_tiles = !s.hide_tiles && s.tile_texture.is_some();
        let slot = s
            .tile_texture
            .as_ref()
            .and_then(|t| atlas_paths.iter().position(|p| *p == t.path))
            .filter(|_| use_atlas);
        let declared = s.tile_texture.as_ref().map_or([1.0, 1.0], |t| {
            [t.width_px.max(1e-6), t.height_px.max(1e-6)]
        });
        let order_base = order_bases[i];
        let map_refs = |refs: &[ArtRef], list: &mut Vec<ArtRef>, seen: &mut RefIndex| {
            refs.iter()
                .map(|r| seen.index(r, list))
                .collect::<Vec<usize>>()
        };
        let mesh_map = map_refs(&s.meshes, &mut out.meshes, &mut meshes);
        let facade_map = map_refs(&s.facade_defs, &mut out.facade_defs, &mut facades);
        let forest_map: Vec<u32> = if s.trees.is_empty() {
            Vec::new()
        } else {
            // One forest list for the document: trees keep the forest they came from.
            std::iter::once(s.forest.as_ref())
                .chain(s.more_forests.iter().map(Some))
                .map(|f| f.map_or(0, |f| forest_index(&mut out, f)))
                .collect()
        };
        plans.push(Plan {
            draw_tiles,
            slot,
            declared,
            order_base,
            mesh_map,
            facade_map,
            forest_map,
        });
    }
    // Then the items move: tiles on one thread, instances on this one, and what is left of
    // the parts (overlays, warnings, and the freeing) on a third.
    let mut tiles: Vec<Vec<Tile>> = Vec::with_capacity(parts.len());
    let mut runs: Vec<Vec<TileRun>> = Vec::with_capacity(parts.len());
    let mut instances = Vec::with_capacity(parts.len());
    let mut parts = parts;
    for s in &mut parts {
        tiles.push(std::mem::take(&mut s.tiles));
        runs.push(std::mem::take(&mut s.runs));
        instances.push((
            std::mem::take(&mut s.objects),
            std::mem::take(&mut s.facades),
            std::mem::take(&mut s.trees),
        ));
    }
    let plans = &plans;
    let mut rest = Scene::default();
    let ((t, r), (o, f, tr)) = std::thread::scope(|scope| {
        let moved = scope.spawn(move || merge_tiles(plans, tiles, runs));
        let shells = scope.spawn(|| merge_rest(&mut rest, parts));
        let inst = merge_instances(plans, instances);
        shells
            .join()
            .unwrap_or_else(|p| std::panic::resume_unwind(p));
        let t = moved
            .join()
            .unwrap_or_else(|p| std::panic::resume_unwind(p));
        (t, inst)
    });
    out.polygon = rest.polygon;
    out.spawn = rest.spawn;
    out.corners = rest.corners;
    out.stop_points = rest.stop_points;
    out.library_objects = rest.library_objects;
    out.vegetation = rest.vegetation;
    out.debug = rest.debug;
    out.warnings.append(&mut rest.warnings);
    (out.tiles, out.runs, out.objects, out.facades, out.trees) = (t, r, o, f, tr);
    if out.tile_lod <= 0.0 {
        out.tile_lod = 20_000.0;
    }
    out.update_stats();
    (out, if use_atlas { atlas_paths } else { Vec::new() })
}

/// What is left of the parts once their tiles and instances are taken: their polygons,
/// overlay marks and warnings, in part order. The parts are freed here too.
fn merge_rest(out: &mut Scene, parts: Vec<Scene>) {
    for mut s in parts {
        // `spawn` stays beside `polygon`, contour for contour, once some part has it.
        if !s.spawn.is_empty() || !out.spawn.is_empty() {
            out.spawn.resize(out.polygon.len(), Vec::new());
            s.spawn.resize(s.polygon.len(), Vec::new());
            out.spawn.append(&mut s.spawn);
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
}

/// The merged list of art references, each distinct (name, resolved file) once. Looked up
/// by the name without allocating: most references are seen many times.
#[derive(Default)]
struct RefIndex(HashMap<std::sync::Arc<str>, Vec<(Option<String>, usize)>>);

impl RefIndex {
    /// The index of `r` in `list`, adding it when it is new.
    fn index(&mut self, r: &ArtRef, list: &mut Vec<ArtRef>) -> usize {
        if let Some(same) = self.0.get(&*r.name) {
            if let Some((_, i)) = same.iter().find(|(res, _)| *res == r.resolved) {
                return *i;
            }
        }
        list.push(r.clone());
        let i = list.len() - 1;
        self.0
            .entry(r.name.clone())
            .or_default()
            .push((r.resolved.clone(), i));
        i
    }
}

/// What one part's items become in the combined scene.
struct Plan {
    draw_tiles: bool,
    /// Atlas slot of the part's tile texture, when tiles draw from the atlas.
    slot: Option<usize>,
    /// The part's declared texture size in pixels (its tiles' `uv` units).
    declared: [f32; 2],
    order_base: u32,
    mesh_map: Vec<usize>,
    facade_map: Vec<usize>,
    forest_map: Vec<u32>,
}

/// The parts' tiles in one list: orders offset, `uv`s moved into atlas slots, runs
/// re-based. Tiles of parts that hide them are dropped.
fn merge_tiles(
    plans: &[Plan],
    tiles: Vec<Vec<Tile>>,
    runs: Vec<Vec<TileRun>>,
) -> (Vec<Tile>, Vec<TileRun>) {
    let n = plans
        .iter()
        .zip(&tiles)
        .filter(|(p, _)| p.draw_tiles)
        .map(|(_, t)| t.len())
        .sum();
    let mut out = Vec::with_capacity(n);
    let mut out_runs = Vec::new();
    for ((plan, part), part_runs) in plans.iter().zip(tiles).zip(runs) {
        if !plan.draw_tiles {
            continue;
        }
        let base = out.len();
        let [w, h] = plan.declared;
        out.extend(part.into_iter().map(|mut t| {
            if let Some(k) = plan.slot {
                let k = k as f32;
                t.uv = [t.uv[0] / w, t.uv[1] / h + k, t.uv[2] / w, t.uv[3] / h + k];
            }
            t.order += plan.order_base;
            t
        }));
        out_runs.extend(part_runs.iter().map(|r| TileRun {
            first: r.first + base,
            len: r.len,
        }));
    }
    (out, out_runs)
}

type Instances = (Vec<ObjectInstance>, Vec<FacadeInstance>, Vec<TreeInstance>);

/// The parts' objects, facades and trees in one list each, naming the merged art lists.
fn merge_instances(plans: &[Plan], parts: Vec<Instances>) -> Instances {
    let (mut objects, mut facades, mut trees) = (Vec::new(), Vec::new(), Vec::new());
    objects.reserve(parts.iter().map(|p| p.0.len()).sum());
    facades.reserve(parts.iter().map(|p| p.1.len()).sum());
    trees.reserve(parts.iter().map(|p| p.2.len()).sum());
    for (plan, (o, f, t)) in plans.iter().zip(parts) {
        objects.extend(o.into_iter().filter_map(|mut o| {
            o.index = *plan.mesh_map.get(o.index)?;
            Some(o)
        }));
        facades.extend(f.into_iter().map(|mut f| {
            f.facade = f.facade.and_then(|i| plan.facade_map.get(i).copied());
            f
        }));
        trees.extend(t.into_iter().map(|mut t| {
            t.forest = plan.forest_map.get(t.forest as usize).copied().unwrap_or(0);
            t
        }));
    }
    (objects, facades, trees)
}

/// The index of forest `f` in the combined scene (0: `forest`, k: `more_forests[k - 1]`),
/// adding it when it is new. Forests are the same when they resolve to the same file.
fn forest_index(out: &mut Scene, f: &ArtRef) -> u32 {
    let same = |a: &ArtRef| match (&a.resolved, &f.resolved) {
        (Some(x), Some(y)) => x == y,
        _ => a.name == f.name,
    };
    match &out.forest {
        None => {
            out.forest = Some(f.clone());
            return 0;
        }
        Some(first) if same(first) => return 0,
        _ => {}
    }
    if let Some(k) = out.more_forests.iter().position(same) {
        return k as u32 + 1;
    }
    out.more_forests.push(f.clone());
    out.more_forests.len() as u32
}

/// Loads the art of a document: [`pipeline::load_art`], plus the tile atlas when the scene has
/// one (its textures are read on other threads meanwhile).
pub fn load_document_art(view: &mut Document) -> ArtSet {
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
