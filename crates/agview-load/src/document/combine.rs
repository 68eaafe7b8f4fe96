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
use std::sync::Arc;

use crate::art::{ArtSet, ImageData, ImagePixels};
use crate::diag::Diagnostic;
use crate::document::Document;
use crate::scene::{ArtRef, ObjectInstance, Scene, SceneKind, TileRun, TileTexture};

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
    let mut c = Combiner::new(parts.len());
    c.reserve(&parts);
    for s in parts {
        c.push(s);
    }
    c.finish()
}

/// [`combine`] a part at a time, in document order: each part's items are moved into the
/// merged lists as it is pushed and the part is freed, so a document being laid out never
/// holds all its parts and the merged scene at once (the load pushes each feature's part
/// as soon as those before it are laid out). What depends on every part (drawing orders by
/// layer group, atlas slots) is settled by [`Combiner::finish`], over each part's range of
/// tiles; the result is the same as [`combine`] of the same parts.
pub(crate) struct Combiner {
    out: Scene,
    /// Distinct tile textures as declared (path and size in pixels), of the parts that
    /// draw tiles.
    textures: Vec<TileTexture>,
    atlas_paths: Vec<String>,
    atlas_lit: Vec<Option<String>>,
    pols: RefIndex,
    lins: RefIndex,
    looks: LookIndex,
    meshes: RefIndex,
    facades: RefIndex,
    mesh_maps: MapCache,
    facade_maps: MapCache,
    /// Each part's tiles, for what [`Combiner::finish`] settles.
    parts: Vec<PartTiles>,
    /// Parts expected in all (how far the merged lists grow is guessed from it).
    expected: usize,
}

/// What [`Combiner::finish`] needs of one pushed part.
struct PartTiles {
    /// `LayerGroup::draw_key` of the part.
    draw_key: (u32, i32),
    /// Its largest tile order, when its tiles are drawn (and it has any).
    max_order: Option<u32>,
    /// Its tiles in the merged list (empty when they are not drawn).
    tiles: std::ops::Range<usize>,
    /// Its tile texture's slot among the atlas's paths, and its declared size in pixels.
    slot: Option<usize>,
    declared: [f32; 2],
}

impl Combiner {
    /// A combiner of about `expected` parts.
    pub(crate) fn new(expected: usize) -> Combiner {
        Combiner {
            out: Scene {
                kind: SceneKind::Dsf,
                tile_lod: 0.0,
                ..Scene::default()
            },
            textures: Vec::new(),
            atlas_paths: Vec::new(),
            atlas_lit: Vec::new(),
            pols: RefIndex::default(),
            lins: RefIndex::default(),
            looks: LookIndex::default(),
            meshes: RefIndex::default(),
            facades: RefIndex::default(),
            mesh_maps: MapCache::default(),
            facade_maps: MapCache::default(),
            parts: Vec::with_capacity(expected),
            expected,
        }
    }

    /// Room in the merged lists for all of `parts` (an upper bound: the items they hold).
    fn reserve(&mut self, parts: &[Scene]) {
        let sum = |f: fn(&Scene) -> usize| parts.iter().map(f).sum::<usize>();
        self.out.tiles.reserve_exact(sum(|s| s.tiles.len()));
        self.out.objects.reserve_exact(sum(|s| s.objects.len()));
        self.out.facades.reserve_exact(sum(|s| s.facades.len()));
        self.out.trees.reserve_exact(sum(|s| s.trees.len()));
    }

    /// Parts pushed so far.
    pub(crate) fn len(&self) -> usize {
        self.parts.len()
    }

    /// Moves the next part's items into the merged scene and frees the part.
    pub(crate) fn push(&mut self, mut s: Scene) {
        let out = &mut self.out;
        if self.parts.is_empty() {
            out.layer_group = s.layer_group.clone();
        }
        out.tile_lod = out.tile_lod.max(s.tile_lod);
        let draw_tiles = !s.hide_tiles && s.tile_texture.is_some();
        if let Some(t) = s
            .tile_texture
            .as_ref()
            .filter(|_| draw_tiles && !s.tiles.is_empty())
        {
            if !self.textures.contains(t) {
                self.textures.push(t.clone());
                match self.atlas_paths.iter().position(|p| *p == t.path) {
                    // A slot's night texture: the first the slot's texture is given with.
                    Some(k) => {
                        if self.atlas_lit[k].is_none() {
                            self.atlas_lit[k].clone_from(&t.lit);
                        }
                    }
                    None => {
                        self.atlas_paths.push(t.path.clone());
                        self.atlas_lit.push(t.lit.clone());
                    }
                }
            }
        }
        // Draped polygons and painted lines, their definitions mapped.
        let draped = std::mem::take(&mut s.draped);
        move_ground(
            draped,
            &s.pol_defs,
            &mut self.pols,
            &mut out.pol_defs,
            &mut out.draped,
            |d| &mut d.def,
        );
        let lines = std::mem::take(&mut s.lines);
        move_ground(
            lines,
            &s.lin_defs,
            &mut self.lins,
            &mut out.lin_defs,
            &mut out.lines,
            |l| &mut l.def,
        );
        // Road segments, their looks shared where two parts draw the same road type.
        move_roads(&mut s, &mut self.looks, out);
        let mesh_map = self
            .mesh_maps
            .map(&s.meshes, &mut out.meshes, &mut self.meshes);
        let facade_map =
            self.facade_maps
                .map(&s.facade_defs, &mut out.facade_defs, &mut self.facades);
        let forest_map: Vec<u32> = if s.trees.is_empty() {
            Vec::new()
        } else {
            // One forest list for the document: trees keep the forest they came from.
            std::iter::once(s.forest.as_ref())
                .chain(s.more_forests.iter().map(Some))
                .map(|f| f.map_or(0, |f| forest_index(out, f)))
                .collect()
        };
        let (pushed, expected) = (self.parts.len() + 1, self.expected);
        let first = out.tiles.len();
        let mut max_order = None;
        if draw_tiles {
            max_order = s.tiles.iter().map(|t| t.order).max();
            grow(&mut out.tiles, s.tiles.len(), pushed, expected);
            out.tiles.append(&mut s.tiles);
            out.runs.extend(s.runs.iter().map(|r| TileRun {
                first: r.first + first,
                len: r.len,
            }));
        }
        // Each list is mapped in the part and moved over in one copy.
        s.objects.retain_mut(|o| match mesh_map.get(o.mesh()) {
            Some(&k) => {
                o.index = ObjectInstance::mesh_index(k);
                true
            }
            None => false,
        });
        grow(&mut out.objects, s.objects.len(), pushed, expected);
        out.objects.append(&mut s.objects);
        for f in &mut s.facades {
            f.facade = f.facade.and_then(|i| facade_map.get(i).copied());
        }
        grow(&mut out.facades, s.facades.len(), pushed, expected);
        out.facades.append(&mut s.facades);
        for t in &mut s.trees {
            t.forest = forest_map.get(t.forest as usize).copied().unwrap_or(0);
        }
        grow(&mut out.trees, s.trees.len(), pushed, expected);
        out.trees.append(&mut s.trees);
        let slot = s
            .tile_texture
            .as_ref()
            .and_then(|t| self.atlas_paths.iter().position(|p| *p == t.path));
        let declared = s.tile_texture.as_ref().map_or([1.0, 1.0], |t| {
            [t.width_px.max(1e-6), t.height_px.max(1e-6)]
        });
        self.parts.push(PartTiles {
            draw_key: s.layer_group.draw_key(),
            max_order,
            tiles: first..out.tiles.len(),
            slot,
            declared,
        });
        append_rest(out, s);
    }

    /// The merged scene and its atlas: the tile texture (or the atlas's), each part's tiles
    /// drawn after those of the parts drawn before it, and moved into their atlas slots.
    pub(crate) fn finish(self) -> (Scene, TileAtlas) {
        let Combiner {
            mut out,
            textures,
            atlas_paths,
            atlas_lit,
            parts,
            ..
        } = self;
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
        // Drawing order: by layer group, then offset (`LayerGroup::draw_key`), then feature
        // order; each part's tile orders start past those of the parts drawn before it.
        let mut draw_order: Vec<usize> = (0..parts.len()).collect();
        draw_order.sort_by_key(|&i| parts[i].draw_key);
        let mut order_bases = vec![0u32; parts.len()];
        let mut next_order = 0u32;
        for &i in &draw_order {
            order_bases[i] = next_order;
            if let Some(m) = parts[i].max_order {
                next_order = next_order.max(next_order + m + 1);
            }
        }
        for (p, base) in parts.iter().zip(order_bases) {
            let slot = p.slot.filter(|_| use_atlas);
            if base == 0 && slot.is_none() {
                continue;
            }
            let [w, h] = p.declared;
            for t in &mut out.tiles[p.tiles.clone()] {
                if let Some(k) = slot {
                    let k = k as f32;
                    t.uv = [t.uv[0] / w, t.uv[1] / h + k, t.uv[2] / w, t.uv[3] / h + k];
                }
                t.order += base;
            }
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
}

/// Room in a merged list for `more` items, when it has none: the list grows to what the
/// parts pushed so far (`pushed` of about `expected`) suggest it will hold, and at least
/// doubles, so a list is moved a few times at most. Room not written is never touched
/// (no memory is used for it).
fn grow<T>(v: &mut Vec<T>, more: usize, pushed: usize, expected: usize) {
    let need = v.len() + more;
    if need <= v.capacity() {
        return;
    }
    // Guess once a fair share of the parts is in (the first few may be unlike the rest).
    let guess = if pushed >= 64 && pushed * 100 >= expected {
        (need as f64 / pushed as f64 * expected.max(pushed) as f64 * 1.125) as usize
    } else {
        0
    };
    let target = guess.max(need * 2);
    v.reserve_exact(target - v.len());
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
struct MapCache {
    seen: Vec<(Vec<ArtRef>, Arc<[usize]>)>,
}

impl MapCache {
    /// How many distinct lists are remembered (a document uses a few assets many times).
    const SIZE: usize = 32;

    /// The merged index of each of `refs`, adding those that are new to `list`.
    fn map(
        &mut self,
        refs: &[ArtRef],
        list: &mut Vec<ArtRef>,
        index: &mut RefIndex,
    ) -> Arc<[usize]> {
        if let Some((_, m)) = self.seen.iter().find(|(r, _)| r[..] == *refs) {
            return m.clone();
        }
        let m: Arc<[usize]> = refs.iter().map(|r| index.index(r, list)).collect();
        if self.seen.len() < Self::SIZE {
            self.seen.push((refs.to_vec(), m.clone()));
        }
        m
    }
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
