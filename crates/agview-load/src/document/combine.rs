//! Combining features laid out in one frame into one [`Scene`], and the tile atlas a
//! combined scene draws its tiles from.
//!
//! A document's features may use different ground textures, while a scene has one tile
//! texture; the combined scene then draws its tiles from an atlas: the textures stacked
//! bottom to top, each resized to a common size, with every tile's texture rectangle moved
//! into its slot ([`load_document_art`] builds the image). A tile whose rectangle runs past
//! its texture's edge would sample the next slot; autogen tiles stay inside their texture.

use std::collections::HashMap;
use std::mem::MaybeUninit;
use std::path::Path;
use std::sync::Arc;

use crate::art::{ArtSet, ImageData, ImagePixels};
use crate::diag::Diagnostic;
use crate::document::Document;
use crate::scene::{
    ArtRef, FacadeInstance, ObjectInstance, Scene, SceneKind, Tile, TileRun, TileTexture,
    TreeInstance,
};

/// The largest side of one atlas slot in pixels.
const ATLAS_SLOT_MAX: u32 = 1024;
/// The tallest atlas image (every backend supports 8192).
const ATLAS_MAX_HEIGHT: u32 = 8192;

/// The textures of a document's tile atlas, slot 0 at the bottom: each slot's texture and
/// its `TEXTURE_LIT` (the night atlas stacks them the same way, black where a slot has
/// none). Empty when every tile uses one texture as declared.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct TileAtlas {
    pub paths: Vec<String>,
    pub lit: Vec<Option<String>>,
}

impl TileAtlas {
    pub fn is_empty(&self) -> bool {
        self.paths.is_empty()
    }

    pub fn len(&self) -> usize {
        self.paths.len()
    }

    /// Every file the atlas is made of.
    pub fn files(&self) -> impl Iterator<Item = &String> {
        self.paths.iter().chain(self.lit.iter().flatten())
    }
}

/// Merges scenes laid out in one frame into one scene. Art references are shared where two
/// scenes name the same file; tiles of different textures are moved into atlas slots.
/// Returns the scene and the atlas (empty when all tiles use one texture as declared).
pub fn combine(parts: Vec<Scene>) -> (Scene, TileAtlas) {
    combine_with(parts, 1)
}

/// [`combine`] on `threads` workers (0: one per core); the result is the same for any
/// thread count.
pub(crate) fn combine_with(parts: Vec<Scene>, threads: usize) -> (Scene, TileAtlas) {
    let chunks = chunk_parts(&parts, threads, MIN_ITEMS_PER_THREAD);
    combine_in_chunks(parts, &chunks)
}

/// Scenes with fewer items than this per thread merge on one thread.
const MIN_ITEMS_PER_THREAD: usize = 20_000;

/// [`combine`], the parts moved by one worker per run of parts starting at each of
/// `chunks` (the first is 0).
pub(super) fn combine_in_chunks(parts: Vec<Scene>, chunks: &[usize]) -> (Scene, TileAtlas) {
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
    let mut atlas_lit: Vec<Option<String>> = Vec::new();
    for t in &textures {
        match atlas_paths.iter().position(|p| *p == t.path) {
            // A slot's night texture: the first the slot's texture is given with.
            Some(k) => {
                if atlas_lit[k].is_none() {
                    atlas_lit[k].clone_from(&t.lit);
                }
            }
            None => {
                atlas_paths.push(t.path.clone());
                atlas_lit.push(t.lit.clone());
            }
        }
    }
    // Textures that differ only in their night texture share a slot: no atlas for them.
    let declared = |t: &TileTexture| (t.path.clone(), t.width_px, t.height_px);
    let use_atlas = textures
        .iter()
        .any(|t| declared(t) != declared(&textures[0]));
    out.tile_texture = if use_atlas {
        Some(TileTexture {
            path: "tile atlas".into(),
            width_px: 1.0,
            height_px: atlas_paths.len() as f32,
            lit: atlas_lit
                .iter()
                .any(Option::is_some)
                .then(|| "tile atlas (night)".into()),
        })
    } else {
        // One texture: with the first night texture any feature gives it.
        textures.first().cloned().map(|mut t| {
            t.lit = atlas_lit.first().cloned().flatten();
            t
        })
    };

    // Draped polygons and painted lines: few per document, moved here with their
    // definitions mapped.
    let mut parts = parts;
    let (mut pols, mut lins) = (RefIndex::default(), RefIndex::default());
    for s in &mut parts {
        let draped = std::mem::take(&mut s.draped);
        move_ground(
            draped,
            &s.pol_defs,
            &mut pols,
            &mut out.pol_defs,
            &mut out.draped,
            |d| &mut d.def,
        );
        let lines = std::mem::take(&mut s.lines);
        move_ground(
            lines,
            &s.lin_defs,
            &mut lins,
            &mut out.lin_defs,
            &mut out.lines,
            |l| &mut l.def,
        );
    }
    // Road segments, their looks shared where two parts draw the same road type.
    let mut looks = LookIndex::default();
    for s in &mut parts {
        move_roads(s, &mut looks, &mut out);
    }
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
    let (mut mesh_maps, mut facade_maps) = (MapCache::default(), MapCache::default());
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
        let mesh_map = mesh_maps.map(&s.meshes, &mut out.meshes, &mut meshes);
        let facade_map = facade_maps.map(&s.facade_defs, &mut out.facade_defs, &mut facades);
        let forest_map: Vec<u32> = if s.trees.is_empty() {
            Vec::new()
        } else {
            // One forest list for the document: trees keep the forest they came from.
            std::iter::once(s.forest.as_ref())
                .chain(s.more_forests.iter().map(Some))
                .map(|f| f.map_or(0, |f| forest_index(&mut out, f)))
                .collect()
        };
        let counts = Counts {
            tiles: if draw_tiles { s.tiles.len() } else { 0 },
            objects: s
                .objects
                .iter()
                .filter(|o| o.index < mesh_map.len())
                .count(),
            facades: s.facades.len(),
            trees: s.trees.len(),
        };
        plans.push(Plan {
            draw_tiles,
            slot,
            declared,
            order_base,
            mesh_map,
            facade_map,
            forest_map,
            counts,
        });
    }
    // Then the items move: one worker per run of consecutive parts writes its parts' items
    // straight into its own region of the merged lists, so each item is moved once and
    // the result never depends on the thread count.
    let plans = &plans;
    let total = plans
        .iter()
        .fold(Counts::default(), |a, p| a.plus(&p.counts));
    let (mut tiles, mut objects, mut facades, mut trees) = (
        Vec::with_capacity(total.tiles),
        Vec::with_capacity(total.objects),
        Vec::with_capacity(total.facades),
        Vec::with_capacity(total.trees),
    );
    let mut slots = Slots {
        tiles: &mut tiles.spare_capacity_mut()[..total.tiles],
        objects: &mut objects.spare_capacity_mut()[..total.objects],
        facades: &mut facades.spare_capacity_mut()[..total.facades],
        trees: &mut trees.spare_capacity_mut()[..total.trees],
    };
    let mut jobs = Vec::with_capacity(chunks.len());
    for (k, &start) in chunks.iter().enumerate().rev() {
        let run = parts.split_off(start.min(parts.len()));
        let end = chunks.get(k + 1).copied().unwrap_or(plans.len());
        let counts = plans[start..end]
            .iter()
            .fold(Counts::default(), |a, p| a.plus(&p.counts));
        jobs.push((start, run, counts));
    }
    jobs.reverse();
    let mut work = Vec::with_capacity(jobs.len());
    let mut tile_base = 0;
    for (start, run, counts) in jobs {
        work.push((start, run, slots.take(&counts), tile_base, counts));
        tile_base += counts.tiles;
    }
    let merged: Vec<Merged> = if work.len() <= 1 {
        work.into_iter()
            .map(|(start, run, slots, base, _)| merge_parts(plans, start, run, slots, base))
            .collect()
    } else {
        std::thread::scope(|scope| {
            let handles: Vec<_> = work
                .into_iter()
                .map(|(start, run, slots, base, _)| {
                    scope.spawn(move || merge_parts(plans, start, run, slots, base))
                })
                .collect();
            handles
                .into_iter()
                .map(|h| h.join().unwrap_or_else(|p| std::panic::resume_unwind(p)))
                .collect()
        })
    };
    let written = merged
        .iter()
        .fold(Counts::default(), |a, m| a.plus(&m.written));
    // Every slot was written: the plans counted exactly what `merge_parts` writes. Were it
    // otherwise (a bug), the lists stay empty rather than expose unwritten memory.
    assert_eq!(
        written, total,
        "combine: items written differ from items planned"
    );
    // SAFETY: the first `total.*` elements of each list's spare capacity were initialised by
    // the workers above (each wrote its whole region, as the assertion checks), and the
    // lists were allocated with that capacity.
    unsafe {
        tiles.set_len(total.tiles);
        objects.set_len(total.objects);
        facades.set_len(total.facades);
        trees.set_len(total.trees);
    }
    (out.tiles, out.objects, out.facades, out.trees) = (tiles, objects, facades, trees);
    for m in merged {
        out.runs.extend(m.runs);
        append_rest(&mut out, m.rest);
    }
    if out.tile_lod <= 0.0 {
        out.tile_lod = 20_000.0;
    }
    out.update_stats();
    let atlas = if use_atlas {
        TileAtlas {
            paths: atlas_paths,
            lit: atlas_lit,
        }
    } else {
        TileAtlas::default()
    };
    (out, atlas)
}

/// Moves a part's ground items (draped polygons or painted lines) into the combined list,
/// each definition index (`def_of`) mapped into the combined definitions.
fn move_ground<T>(
    items: Vec<T>,
    defs: &[ArtRef],
    index: &mut RefIndex,
    out_defs: &mut Vec<ArtRef>,
    out: &mut Vec<T>,
    def_of: impl Fn(&mut T) -> &mut usize,
) {
    if items.is_empty() {
        return;
    }
    let map: Vec<usize> = defs.iter().map(|r| index.index(r, out_defs)).collect();
    for mut item in items {
        let def = def_of(&mut item);
        if let Some(&k) = map.get(*def) {
            *def = k;
            out.push(item);
        }
    }
}

/// The combined scene's road looks by what tells them apart: the `.net`, its real type, or
/// the plain profile's band.
type LookIndex = HashMap<(String, Option<String>, Option<u32>, Option<String>), usize>;

/// Moves a part's road segments into the combined scene, each look index mapped into the
/// combined looks (one per `.net` and road type, or plain band).
fn move_roads(s: &mut Scene, index: &mut LookIndex, out: &mut Scene) {
    if s.roads.is_empty() {
        return;
    }
    let map: Vec<usize> = s
        .road_looks
        .drain(..)
        .map(|l| {
            let key = (
                l.net.clone(),
                l.resolved.clone(),
                l.road_type,
                l.plain.clone(),
            );
            *index.entry(key).or_insert_with(|| {
                out.road_looks.push(l);
                out.road_looks.len() - 1
            })
        })
        .collect();
    for mut r in s.roads.drain(..) {
        if let Some(&k) = map.get(r.look) {
            r.look = k;
            out.roads.push(r);
        }
    }
}

/// Where each run of parts merged by one worker starts: runs of consecutive parts with
/// about the same number of tiles and instances, at most `threads` of them.
pub(super) fn chunk_parts(parts: &[Scene], threads: usize, min_per_thread: usize) -> Vec<usize> {
    let threads = if threads == 0 {
        std::thread::available_parallelism().map_or(1, |n| n.get())
    } else {
        threads
    };
    let weight = |s: &Scene| 1 + s.tiles.len() + s.objects.len() + s.facades.len() + s.trees.len();
    let total: usize = parts.iter().map(weight).sum();
    // Small scenes are not worth a thread.
    let threads = threads
        .min(total / min_per_thread.max(1) + 1)
        .min(parts.len())
        .max(1);
    let mut starts = vec![0];
    let mut acc = 0usize;
    for (i, s) in parts.iter().enumerate() {
        if acc * threads >= total * starts.len() && i > *starts.last().unwrap_or(&0) {
            starts.push(i);
        }
        acc += weight(s);
    }
    starts
}

/// How many items a part (or a run of parts) puts in each merged list.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
struct Counts {
    tiles: usize,
    objects: usize,
    facades: usize,
    trees: usize,
}

impl Counts {
    fn plus(&self, o: &Counts) -> Counts {
        Counts {
            tiles: self.tiles + o.tiles,
            objects: self.objects + o.objects,
            facades: self.facades + o.facades,
            trees: self.trees + o.trees,
        }
    }
}

/// Unwritten regions of the merged lists.
struct Slots<'a> {
    tiles: &'a mut [MaybeUninit<Tile>],
    objects: &'a mut [MaybeUninit<ObjectInstance>],
    facades: &'a mut [MaybeUninit<FacadeInstance>],
    trees: &'a mut [MaybeUninit<TreeInstance>],
}

impl<'a> Slots<'a> {
    /// The first `n` slots of each list, leaving the rest.
    fn take(&mut self, n: &Counts) -> Slots<'a> {
        fn cut<'a, T>(s: &mut &'a mut [T], n: usize) -> &'a mut [T] {
            let n = n.min(s.len());
            let (head, tail) = std::mem::take(s).split_at_mut(n);
            *s = tail;
            head
        }
        Slots {
            tiles: cut(&mut self.tiles, n.tiles),
            objects: cut(&mut self.objects, n.objects),
            facades: cut(&mut self.facades, n.facades),
            trees: cut(&mut self.trees, n.trees),
        }
    }
}

/// Writes `items` into the next slots; returns how many were written (never more than
/// there are slots).
fn put<T>(slots: &mut &mut [MaybeUninit<T>], items: impl Iterator<Item = T>) -> usize {
    let mut n = 0;
    for item in items {
        let Some((slot, rest)) = std::mem::take(slots).split_first_mut() else {
            break;
        };
        slot.write(item);
        *slots = rest;
        n += 1;
    }
    n
}

/// One worker's share of the merged scene: the runs of tiles and what is left of a run of
/// consecutive parts, and how many items it wrote into its slots.
struct Merged {
    runs: Vec<TileRun>,
    /// Polygons, overlay marks and warnings.
    rest: Scene,
    written: Counts,
}

/// Merges the parts `first..` (their plans are `plans[first..]`) into `slots`: tiles get
/// their orders offset and their `uv`s moved into atlas slots (those of parts that hide
/// them are dropped), runs are re-based (the run's first tile is merged tile `tile_base`),
/// instances name the merged art lists. The parts are freed here too.
fn merge_parts(
    plans: &[Plan],
    first: usize,
    parts: Vec<Scene>,
    mut slots: Slots,
    tile_base: usize,
) -> Merged {
    let plans = &plans[first..first + parts.len()];
    let mut m = Merged {
        runs: Vec::new(),
        rest: Scene::default(),
        written: Counts::default(),
    };
    for (plan, mut s) in plans.iter().zip(parts) {
        if plan.draw_tiles {
            let base = tile_base + m.written.tiles;
            let [w, h] = plan.declared;
            m.written.tiles += put(
                &mut slots.tiles,
                std::mem::take(&mut s.tiles).into_iter().map(|mut t| {
                    if let Some(k) = plan.slot {
                        let k = k as f32;
                        t.uv = [t.uv[0] / w, t.uv[1] / h + k, t.uv[2] / w, t.uv[3] / h + k];
                    }
                    t.order += plan.order_base;
                    t
                }),
            );
            m.runs.extend(s.runs.iter().map(|r| TileRun {
                first: r.first + base,
                len: r.len,
            }));
        }
        m.written.objects += put(
            &mut slots.objects,
            std::mem::take(&mut s.objects)
                .into_iter()
                .filter_map(|mut o| {
                    o.index = *plan.mesh_map.get(o.index)?;
                    Some(o)
                }),
        );
        m.written.facades += put(
            &mut slots.facades,
            std::mem::take(&mut s.facades).into_iter().map(|mut f| {
                f.facade = f.facade.and_then(|i| plan.facade_map.get(i).copied());
                f
            }),
        );
        m.written.trees += put(
            &mut slots.trees,
            std::mem::take(&mut s.trees).into_iter().map(|mut t| {
                t.forest = plan.forest_map.get(t.forest as usize).copied().unwrap_or(0);
                t
            }),
        );
        append_rest(&mut m.rest, s);
    }
    m
}

/// Moves what is left of a part once its tiles and instances are taken (its polygons,
/// overlay marks and warnings) to the end of `out`'s.
fn append_rest(out: &mut Scene, mut s: Scene) {
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
    d.slope_drops.append(&mut s.debug.slope_drops);
    out.warnings.append(&mut s.warnings);
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

/// Art lists already mapped into the merged lists: the parts of one asset carry the same
/// list, so most parts' maps are found here without a lookup per reference.
#[derive(Default)]
struct MapCache<'p> {
    seen: Vec<(&'p [ArtRef], Arc<[usize]>)>,
}

impl<'p> MapCache<'p> {
    /// How many distinct lists are remembered (a document uses a few assets many times).
    const SIZE: usize = 32;

    /// The merged index of each of `refs`, adding those that are new to `list`.
    fn map(
        &mut self,
        refs: &'p [ArtRef],
        list: &mut Vec<ArtRef>,
        index: &mut RefIndex,
    ) -> Arc<[usize]> {
        if let Some((_, m)) = self.seen.iter().find(|(r, _)| *r == refs) {
            return m.clone();
        }
        let m: Arc<[usize]> = refs.iter().map(|r| index.index(r, list)).collect();
        if self.seen.len() < Self::SIZE {
            self.seen.push((refs, m.clone()));
        }
        m
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
    mesh_map: Arc<[usize]>,
    facade_map: Arc<[usize]>,
    forest_map: Vec<u32>,
    /// What it puts in each merged list.
    counts: Counts,
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

/// Loads the art of a document: [`crate::pipeline::load_art`], plus the tile atlas when the scene has
/// one (its textures are read on other threads meanwhile).
pub fn load_document_art(view: &mut Document) -> ArtSet {
    load_document_art_with(view, &crate::art::ArtOptions::default())
}

/// [`load_document_art`] with art options (a texture size cap, which the atlas's slots
/// keep too).
pub fn load_document_art_with(view: &mut Document, opts: &crate::art::ArtOptions) -> ArtSet {
    load_document_art_seeded(view, opts, None)
}

/// [`load_document_art_with`], starting from the images an earlier load of the same files
/// decoded (`seed`, [`ArtSet::take_decoded`]): a large document's whole decodes only the
/// images its preview did not.
pub fn load_document_art_seeded(
    view: &mut Document,
    opts: &crate::art::ArtOptions,
    seed: Option<crate::art::DecodedImages>,
) -> ArtSet {
    if view.atlas.is_empty() {
        return crate::art::load_art_set_seeded(&view.loaded.scene, opts, seed);
    }
    let scene = &mut view.loaded.scene;
    let tt = scene.tile_texture.take();
    let scene_ref = &*scene;
    let atlas = &view.atlas;
    // The slots' textures, then their night textures (a slot without one: none).
    let wanted: Vec<Option<&String>> = atlas
        .paths
        .iter()
        .map(Some)
        .chain(atlas.lit.iter().map(Option::as_ref))
        .collect();
    let (mut art, sources) = std::thread::scope(|s| {
        let loads: Vec<_> = wanted
            .iter()
            .map(|p| {
                p.map(|p| {
                    s.spawn(move || crate::art::decode_capped(Path::new(p), opts.max_texture_side))
                })
            })
            .collect();
        let art = crate::art::load_art_set_seeded(scene_ref, opts, seed);
        let sources: Vec<Option<(ImageData, Vec<Diagnostic>)>> = loads
            .into_iter()
            .zip(&wanted)
            .map(|(h, p)| {
                let (h, p) = (h?, (*p)?);
                Some(h.join().unwrap_or_else(|_| {
                    (
                        ImageData::checkerboard(p),
                        vec![Diagnostic::warning_file(
                            Path::new(p),
                            "texture could not be loaded; drawn as a checkerboard",
                        )],
                    )
                }))
            })
            .collect();
        (art, sources)
    });
    scene.tile_texture = tt;
    let mut images = Vec::new();
    for (img, w) in sources.into_iter().flatten() {
        art.warnings.extend(w);
        images.push(img);
    }
    let slots = atlas.paths.len();
    let lit_images = images.split_off(slots.min(images.len()));
    art.images.push(atlas_image(&images));
    art.tile_texture = Some(art.images.len() - 1);
    if !lit_images.is_empty() {
        // The night atlas: each slot's night texture, black where it has none.
        let mut lit = lit_images.into_iter();
        let night: Vec<ImageData> = atlas
            .lit
            .iter()
            .map(|p| match p {
                // A night texture that could not be read was warned about and lights
                // nothing (a glowing checkerboard would show nothing the sim shows).
                Some(_) => lit
                    .next()
                    .filter(|i| !i.missing)
                    .unwrap_or_else(ImageData::black),
                None => ImageData::black(),
            })
            .collect();
        let mut image = atlas_image(&night);
        image.name = "tile atlas (night)".into();
        art.images.push(image);
        art.tile_lit = Some(art.images.len() - 1);
    }
    art
}

/// Size of mip `level` of a side.
fn mip_dim(side: u32, level: u32) -> u32 {
    (side >> level.min(31)).max(1)
}

/// The atlas image: each texture resized to a common slot size, slot 0 at the bottom. Each
/// mip level stacks the textures' own mips where their size matches the slot's, else the
/// texture resized (the renderer completes the chain below the slots' last level).
pub(crate) fn atlas_image(sources: &[ImageData]) -> ImageData {
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
    let mips: Vec<Vec<Vec<u8>>> = sources.iter().map(crate::art::rgba8_mips).collect();
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
