//! Loads the art a scene names (objects, facades, forests, textures) from disk into the plain
//! CPU-side types of [`crate::art`]. Nothing here fails: a file that is missing or broken
//! becomes a placeholder marked `missing` and a warning naming the file (a parse error keeps
//! its line and column, reported as a warning because the scene can still be drawn).
//!
//! Decisions, in one place:
//! - **Textures** go into an [`ImagePool`]: one entry per file, so a texture shared by many
//!   objects is decoded once; art refers to it by index. Like X-Plane and WED
//!   (`process_texture_path`), a name ending in `.png` is looked for as `.dds` first, and a
//!   `.dds` name falls back to `.png`. File names match case-insensitively when the exact
//!   name is missing (packages are often made on case-insensitive systems).
//! - **Images** keep the file's row order, top row first, for PNG and DDS alike (X-Plane's
//!   DDSTool writes DDS top row first on desktop, see xptools `WriteBitmapToDDS`). A texture
//!   coordinate `t` (up, as OBJ8 and facades use it) therefore samples row `(1 - t)·height`.
//!   PNG becomes RGBA8 with a mip chain averaged in linear light (as DDSTool does);
//!   DDS DXT1/3/5 stays block-compressed with the file's mips ([`decode_bc`] expands it for
//!   adapters without BC support); a DDS whose size is not a multiple of 4, or an uncompressed
//!   DDS, is expanded to RGBA8 here.
//! - **Meshes** use OBJ8's frame: +x east, +y up, +z south (so −z is north), meters, and
//!   OBJ8's winding: triangles are clockwise seen from their front. A Wavefront file is read
//!   as Y-up with −Z forward (Blender's default export, three.js, glTF): forward becomes north,
//!   positions pass unchanged, and each triangle's winding is reversed from Wavefront's
//!   counter-clockwise. Missing Wavefront normals are computed (area-weighted smooth).
//!   Each `ATTR_LOD` becomes one [`MeshLod`] whose `TRIS` ranges are copied into one
//!   contiguous index range; a file without `ATTR_LOD` has one LOD from 0 to `f32::MAX`.
//!   A missing mesh gets placeholder bounds of a 2 m cube standing on the ground.
//! - **Facades** keep what the renderer needs to build them as X-Plane does: type 1 its
//!   `LOD`s with their walls' panels (`FacadeArt::lods`; walls without a panel across or up
//!   are dropped), type 2 its floors of segments (`FacadeArt::segment_floors`), with `RING`,
//!   `TWO_SIDED`/`DOUBLED` and `FLOORS_MIN`/`FLOORS_MAX`. For the repeated-bay fallback,
//!   type 1 uses the first LOD's first `WALL`: its first `CENTER` panel
//!   (else `LEFT`, else `RIGHT`) across and first `MIDDLE` panel (else `BOTTOM`, else `TOP`)
//!   up give the bay rectangle; `SCALE` gives the meters (bay width = panel width × SCALE x,
//!   floor height = panel height × SCALE y); the roof rectangle bounds the `ROOF` points.
//!   Type 2 uses the first floor's segment that its first wall's first spelling starts with
//!   (else its first segment): the uv bounds of its meshes give the rectangle, their z extent
//!   the bay width and their y extent the floor height; the roof texture covers `[0,0,1,1]`.
//!   A facade with no usable numbers falls back to a 4 m × 3 m bay over the whole texture.
//! - **Forests**: a tree's rectangle is normalised by `SCALE_X`/`SCALE_Y`; its height is the
//!   middle of `hmin..hmax` and its width follows the rectangle's aspect (WED `GetFor`).

use std::collections::HashMap;
use std::path::{Component, Path, PathBuf};

use crate::art::{
    self, ArtSet, BcFormat, FacadeArt, ForestArt, ImageData, ImagePixels, LightArt, MeshArt,
    MeshLod, MeshVertex, TreeArt,
};
use crate::diag::{Diagnostic, Severity};
use crate::format::lights_txt::{self, LightsTxt};
use crate::format::{facade, forest, obj8};
use crate::scene::{ArtRef, Scene};

/// Images loaded so far, each once, by the path they were asked for.
#[derive(Debug, Default)]
pub struct ImagePool {
    images: Vec<ImageData>,
    by_path: HashMap<PathBuf, usize>,
}

impl ImagePool {
    pub fn new() -> Self {
        Self::default()
    }

    /// The index of the image at `path`, loading it (or a checkerboard) the first time.
    pub fn load(&mut self, path: &Path, warnings: &mut Vec<Diagnostic>) -> usize {
        if let Some(&i) = self.by_path.get(path) {
            return i;
        }
        let i = self.images.len();
        self.images.push(load_image(path, warnings));
        self.by_path.insert(path.to_path_buf(), i);
        i
    }

    pub fn images(&self) -> &[ImageData] {
        &self.images
    }

    pub fn len(&self) -> usize {
        self.images.len()
    }

    pub fn is_empty(&self) -> bool {
        self.images.is_empty()
    }

    /// The images, for [`ArtSet::images`].
    pub fn into_images(self) -> Vec<ImageData> {
        self.images
    }
}

/// Loads everything `scene` names. Each [`ArtRef`] is loaded from its `resolved` path, or
/// from its `name` when it was not resolved.
pub fn load_art_set(scene: &Scene) -> ArtSet {
    let mut pool = ImagePool::new();
    let mut warnings = Vec::new();
    let path_of = |r: &ArtRef| PathBuf::from(r.resolved.as_deref().unwrap_or(&r.name));
    let lights = scene
        .lights_txt
        .as_deref()
        .and_then(|p| load_lights_txt(Path::new(p), &mut warnings));
    let meshes = scene
        .meshes
        .iter()
        .map(|r| load_mesh_with(&path_of(r), &mut pool, lights.as_ref(), &mut warnings))
        .collect();
    let mut facades: Vec<FacadeArt> = scene
        .facade_defs
        .iter()
        .map(|r| load_facade(&path_of(r), &mut pool, &mut warnings))
        .collect();
    // AGN roof textures: the whole image is the roof, repeated every few meters.
    for (i, roof) in &scene.facade_roofs {
        if let Some(f) = facades.get_mut(*i) {
            f.roof_texture = Some(pool.load(Path::new(roof), &mut warnings));
            f.roof_lit_texture = None;
            f.roof_uv = [0.0, 0.0, 1.0, 1.0];
        }
    }
    let forest = scene
        .forest
        .as_ref()
        .map(|r| load_forest(&path_of(r), &mut pool, &mut warnings));
    let more_forests = scene
        .more_forests
        .iter()
        .map(|r| load_forest(&path_of(r), &mut pool, &mut warnings))
        .collect();
    let tile_texture = scene
        .tile_texture
        .as_ref()
        .map(|t| pool.load(Path::new(&t.path), &mut warnings));
    // `TEXTURE_LIT` of the tiles: as objects', a missing one is left out.
    let tile_lit = scene
        .tile_texture
        .as_ref()
        .and_then(|t| t.lit.as_ref())
        .map(|p| pool.load(Path::new(p), &mut warnings))
        .filter(|&i| pool.images().get(i).is_some_and(|img| !img.missing));
    ArtSet {
        tile_lit,
        meshes,
        facades,
        forest,
        more_forests,
        tile_texture,
        images: pool.into_images(),
        warnings,
    }
}

// ---------------------------------------------------------------- files

/// `path` if it exists, else the same path matched case-insensitively component by
/// component; `None` when neither exists.
pub fn find_file(path: &Path) -> Option<PathBuf> {
    if path.is_file() {
        return Some(path.to_path_buf());
    }
    let mut cur = PathBuf::new();
    for comp in path.components() {
        match comp {
            Component::Normal(name) => {
                let next = cur.join(name);
                if next.exists() {
                    cur = next;
                    continue;
                }
                let dir = if cur.as_os_str().is_empty() {
                    Path::new(".")
                } else {
                    cur.as_path()
                };
                let want = name.to_string_lossy().to_lowercase();
                let found = std::fs::read_dir(dir)
                    .ok()?
                    .flatten()
                    .find(|e| e.file_name().to_string_lossy().to_lowercase() == want)?;
                cur.push(found.file_name());
            }
            other => cur.push(other.as_os_str()),
        }
    }
    cur.is_file().then_some(cur)
}

/// Reads a whole file, or a warning naming it.
fn read(path: &Path, what: &str) -> Result<(PathBuf, Vec<u8>), Diagnostic> {
    let Some(found) = find_file(path) else {
        return Err(Diagnostic::warning_file(path, format!("{what} not found")));
    };
    match std::fs::read(&found) {
        Ok(b) => Ok((found, b)),
        Err(e) => Err(Diagnostic::warning_file(
            &found,
            format!("{what} cannot be read: {e}"),
        )),
    }
}

/// A reader's error, reported as a warning: the art is replaced, the scene still draws.
fn as_warning(mut d: Diagnostic, instead: &str) -> Diagnostic {
    if d.severity == Severity::Error {
        d.severity = Severity::Warning;
        d.message = format!("{} ({instead})", d.message);
    }
    d
}

// ---------------------------------------------------------------- meshes

fn placeholder_mesh(path: &Path) -> MeshArt {
    MeshArt {
        name: path.display().to_string(),
        missing: true,
        bounds_min: [-1.0, 0.0, -1.0],
        bounds_max: [1.0, 2.0, 1.0],
        ..Default::default()
    }
}

/// Reads X-Plane's `lights.txt`; one that cannot be read is a warning, and named lights
/// keep their default look.
pub fn load_lights_txt(path: &Path, warnings: &mut Vec<Diagnostic>) -> Option<LightsTxt> {
    let bytes = match std::fs::read(path) {
        Ok(b) => b,
        Err(e) => {
            warnings.push(Diagnostic::warning_file(
                path,
                format!("cannot read lights.txt ({e}); named lights use agview's default look"),
            ));
            return None;
        }
    };
    let text = String::from_utf8_lossy(&bytes);
    match lights_txt::parse(path, &text, warnings) {
        Ok(t) => Some(t),
        Err(mut d) => {
            d.severity = Severity::Warning;
            d.message
                .push_str("; named lights use agview's default look");
            warnings.push(d);
            None
        }
    }
}

/// Loads an OBJ8 or Wavefront object (told apart by the X-Plane header).
pub fn load_mesh(path: &Path, pool: &mut ImagePool, warnings: &mut Vec<Diagnostic>) -> MeshArt {
    load_mesh_with(path, pool, None, warnings)
}

/// [`load_mesh`], named lights taking their look from `lights` (X-Plane's `lights.txt`)
/// where it has one.
pub fn load_mesh_with(
    path: &Path,
    pool: &mut ImagePool,
    lights: Option<&LightsTxt>,
    warnings: &mut Vec<Diagnostic>,
) -> MeshArt {
    let (found, bytes) = match read(path, "object") {
        Ok(r) => r,
        Err(w) => {
            warnings.push(w);
            return placeholder_mesh(path);
        }
    };
    let mesh = if obj8::is_obj8(&bytes) {
        obj8::parse(&found, &bytes, warnings)
            .map(|o| mesh_from_obj8(&found, o, pool, lights, warnings))
    } else {
        obj8::parse_wavefront(&found, &bytes, warnings)
            .map(|w| mesh_from_wavefront(&found, w, pool, warnings))
    };
    match mesh {
        Ok(m) => m,
        Err(e) => {
            warnings.push(as_warning(e, "drawn as a placeholder box"));
            placeholder_mesh(path)
        }
    }
}

fn bounds(vertices: &[MeshVertex]) -> ([f32; 3], [f32; 3]) {
    if vertices.is_empty() {
        return ([0.0; 3], [0.0; 3]);
    }
    let mut lo = [f32::MAX; 3];
    let mut hi = [f32::MIN; 3];
    for v in vertices {
        for k in 0..3 {
            lo[k] = lo[k].min(v.pos[k]);
            hi[k] = hi[k].max(v.pos[k]);
        }
    }
    (lo, hi)
}

fn mesh_from_obj8(
    path: &Path,
    o: obj8::Obj8,
    pool: &mut ImagePool,
    table: Option<&LightsTxt>,
    warnings: &mut Vec<Diagnostic>,
) -> MeshArt {
    let tex = o.textures.texture.as_ref().or(o.textures.draped.as_ref());
    let texture = tex.map(|t| pool.load(&t.path, warnings));
    // `TEXTURE_LIT`: loaded like the main texture; a missing one was warned about and is
    // left out (a glowing checkerboard would show nothing the sim shows).
    let lit_texture = o
        .textures
        .lit
        .as_ref()
        .map(|t| pool.load(&t.path, warnings))
        .filter(|&i| pool.images().get(i).is_some_and(|img| !img.missing));
    // `TEXTURE_NORMAL`: the same; a missing one leaves the mesh's own normals.
    let normal_texture = o
        .textures
        .normal
        .as_ref()
        .map(|t| pool.load(&t.path, warnings))
        .filter(|&i| pool.images().get(i).is_some_and(|img| !img.missing));
    let total: usize = o
        .lods
        .iter()
        .flat_map(|l| &l.draws)
        .map(|d| d.count as usize)
        .sum();
    let mut indices = Vec::with_capacity(total.min(o.indices.len().saturating_mul(4)));
    // Each LOD's draws, the draped ones (`ATTR_draped`) or the others: appended to
    // `indices`, one range per run of draws with the same material attributes (a LOD
    // without attribute changes is one range).
    let gather = |lod: &obj8::Lod, draped: bool, indices: &mut Vec<u32>, out: &mut Vec<MeshLod>| {
        let mut run: Option<(usize, art::DrawState)> = None;
        let close =
            |run: Option<(usize, art::DrawState)>, indices: &Vec<u32>, out: &mut Vec<MeshLod>| {
                if let Some((first, material)) = run {
                    out.push(MeshLod {
                        near: lod.near,
                        far: lod.far,
                        first_index: u32::try_from(first).unwrap_or(u32::MAX),
                        index_count: u32::try_from(indices.len() - first).unwrap_or(u32::MAX),
                        material,
                    });
                }
            };
        for d in lod.draws.iter().filter(|d| d.draped == draped) {
            let start = d.offset as usize;
            let end = start + (d.count as usize - d.count as usize % 3);
            if run.is_some_and(|(_, m)| m != d.state) {
                close(run.take(), indices, out);
            }
            if run.is_none() {
                run = Some((indices.len(), d.state));
            }
            // The reader checked every range; `get` keeps this safe regardless.
            if let Some(range) = o.indices.get(start..end) {
                indices.extend_from_slice(range);
            }
        }
        match run {
            Some(_) => close(run, indices, out),
            // A LOD without draws keeps its (empty) place.
            None => close(
                Some((indices.len(), art::DrawState::default())),
                indices,
                out,
            ),
        }
    };
    let mut lods = Vec::with_capacity(o.lods.len());
    for lod in &o.lods {
        gather(lod, false, &mut indices, &mut lods);
    }
    // Draped geometry lies on the terrain: it is not drawn with the mesh (nor culled: the
    // tiles' pipeline draws both sides).
    let mut draped_lods: Vec<MeshLod> = Vec::new();
    for lod in o.lods.iter().filter(|l| l.draws.iter().any(|d| d.draped)) {
        let mut parts = Vec::new();
        gather(lod, true, &mut indices, &mut parts);
        // One range per LOD: the attributes do not change how draped parts are drawn.
        if let (Some(first), Some(last)) = (parts.first(), parts.last()) {
            let merged = MeshLod {
                index_count: last.first_index + last.index_count - first.first_index,
                material: art::DrawState::default(),
                ..*first
            };
            if merged.index_count >= 3 {
                draped_lods.push(merged);
            }
        }
    }
    let draped = (!draped_lods.is_empty()).then(|| {
        let t = o.textures.draped.as_ref().or(o.textures.texture.as_ref());
        let (name, offset) = o.draped_layer_group();
        crate::art::DrapedArt {
            lods: draped_lods,
            texture: t.map(|t| pool.load(&t.path, warnings)),
            layer_group: crate::scene::LayerGroup { name, offset },
        }
    });
    let vertices: Vec<MeshVertex> = o
        .vertices
        .into_iter()
        .map(|v| MeshVertex {
            pos: v.pos,
            normal: v.normal,
            uv: v.uv,
        })
        .collect();
    let (bounds_min, bounds_max) = bounds(&vertices);
    let lights = o
        .lods
        .iter()
        .flat_map(|lod| lod.lights.iter().map(move |l| (lod, l)))
        .map(|(lod, l)| {
            let (color, size) = light_look(&l.kind, table);
            LightArt {
                pos: l.pos,
                near: lod.near,
                far: lod.far,
                color,
                size,
            }
        })
        .collect();
    MeshArt {
        name: path.display().to_string(),
        missing: false,
        vertices,
        indices,
        lods,
        texture,
        lit_texture,
        normal_texture,
        lights,
        bounds_min,
        bounds_max,
        draped,
    }
}

/// How a light point looks: its linear colour and intensity, and its radius in meters.
/// `LIGHT_CUSTOM` says so itself; a named light (`LIGHT_NAMED`, `LIGHT_PARAM`) takes its
/// billboard's colour and size from `lights.txt` when it has one there (its `SIZE` the
/// glow's width, so half of it the radius), else the look of [`default_light_look`].
fn light_look(kind: &obj8::LightKind, table: Option<&LightsTxt>) -> ([f32; 4], f32) {
    match kind {
        obj8::LightKind::Custom { rgba, size, .. } => (
            rgba.map(|c| {
                if c.is_finite() {
                    c.clamp(0.0, 1.0)
                } else {
                    0.0
                }
            }),
            if size.is_finite() {
                size.clamp(0.05, 50.0)
            } else {
                0.5
            },
        ),
        obj8::LightKind::Named { name, params } => table
            .and_then(|t| t.look(name, params))
            .map(|(c, s)| (c, (s * 0.5).clamp(0.05, 50.0)))
            .unwrap_or_else(|| default_light_look(name)),
    }
}

/// The look of a named light without X-Plane's `lights.txt` (see `docs/spec-decisions.md`,
/// "Night lighting"): by the first of these words its name contains, a colour and a radius
/// (m); anything else a warm white of half a meter.
pub fn default_light_look(name: &str) -> ([f32; 4], f32) {
    let name = name.to_ascii_lowercase();
    const TABLE: &[(&[&str], [f32; 3], f32)] = &[
        (&["beacon"], [1.0, 0.12, 0.05], 0.8),
        (&["strobe"], [1.0, 1.0, 1.0], 0.6),
        (&["red"], [1.0, 0.1, 0.06], 0.4),
        (&["green"], [0.1, 1.0, 0.3], 0.4),
        (&["blue"], [0.15, 0.35, 1.0], 0.35),
        (&["amber", "yellow"], [1.0, 0.7, 0.15], 0.45),
        (&["sodium", "street"], [1.0, 0.62, 0.3], 1.2),
        (&["white"], [1.0, 1.0, 1.0], 0.5),
    ];
    for (words, rgb, size) in TABLE {
        if words.iter().any(|w| name.contains(w)) {
            return ([rgb[0], rgb[1], rgb[2], 1.0], *size);
        }
    }
    ([1.0, 0.85, 0.65, 1.0], 0.5)
}

fn mesh_from_wavefront(
    path: &Path,
    w: obj8::Wavefront,
    pool: &mut ImagePool,
    warnings: &mut Vec<Diagnostic>,
) -> MeshArt {
    let mut vertices: Vec<MeshVertex> = Vec::new();
    let mut indices: Vec<u32> = Vec::new();
    let mut texture = None;
    for m in &w.meshes {
        if texture.is_none() {
            texture = m.diffuse_texture.as_ref().map(|t| pool.load(t, warnings));
        }
        let base = vertices.len();
        let normals = if m.normals.len() == m.positions.len() {
            m.normals.clone()
        } else {
            smooth_normals(&m.positions, &m.indices)
        };
        for (i, p) in m.positions.iter().enumerate() {
            vertices.push(MeshVertex {
                pos: *p,
                normal: normals.get(i).copied().unwrap_or([0.0, 1.0, 0.0]),
                uv: m.texcoords.get(i).copied().unwrap_or([0.0, 0.0]),
            });
        }
        let Ok(base) = u32::try_from(base) else { break };
        // Counter-clockwise (Wavefront) to clockwise (OBJ8): swap two corners.
        for t in m.indices.chunks_exact(3) {
            indices.extend_from_slice(&[
                base.saturating_add(t[0]),
                base.saturating_add(t[2]),
                base.saturating_add(t[1]),
            ]);
        }
    }
    let (bounds_min, bounds_max) = bounds(&vertices);
    let lods = if indices.is_empty() {
        Vec::new()
    } else {
        vec![MeshLod {
            near: 0.0,
            far: f32::MAX,
            first_index: 0,
            index_count: u32::try_from(indices.len()).unwrap_or(u32::MAX),
            material: art::DrawState::default(),
        }]
    };
    MeshArt {
        name: path.display().to_string(),
        missing: false,
        vertices,
        indices,
        lods,
        texture,
        bounds_min,
        bounds_max,
        draped: None,
        ..MeshArt::default()
    }
}

/// Area-weighted vertex normals of counter-clockwise triangles.
fn smooth_normals(pos: &[[f32; 3]], idx: &[u32]) -> Vec<[f32; 3]> {
    let mut n = vec![[0f32; 3]; pos.len()];
    for t in idx.chunks_exact(3) {
        let (Some(a), Some(b), Some(c)) = (
            pos.get(t[0] as usize),
            pos.get(t[1] as usize),
            pos.get(t[2] as usize),
        ) else {
            continue;
        };
        let u = [b[0] - a[0], b[1] - a[1], b[2] - a[2]];
        let v = [c[0] - a[0], c[1] - a[1], c[2] - a[2]];
        let f = [
            u[1] * v[2] - u[2] * v[1],
            u[2] * v[0] - u[0] * v[2],
            u[0] * v[1] - u[1] * v[0],
        ];
        for &i in t {
            if let Some(acc) = n.get_mut(i as usize) {
                for k in 0..3 {
                    acc[k] += f[k];
                }
            }
        }
    }
    for v in &mut n {
        let len = (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]).sqrt();
        *v = if len > 0.0 && len.is_finite() {
            [v[0] / len, v[1] / len, v[2] / len]
        } else {
            [0.0, 1.0, 0.0]
        };
    }
    n
}

// ---------------------------------------------------------------- forests and facades

/// Loads a `.for` into the trees the renderer draws.
pub fn load_forest(path: &Path, pool: &mut ImagePool, warnings: &mut Vec<Diagnostic>) -> ForestArt {
    let missing = || ForestArt {
        name: path.display().to_string(),
        missing: true,
        spacing: [30.0, 30.0],
        ..Default::default()
    };
    let (found, bytes) = match read(path, "forest") {
        Ok(r) => r,
        Err(w) => {
            warnings.push(w);
            return missing();
        }
    };
    let f = match forest::parse(&found, &bytes, warnings) {
        Ok(f) => f,
        Err(e) => {
            warnings.push(as_warning(e, "no trees are drawn"));
            return missing();
        }
    };
    let texture = f.texture.as_ref().map(|t| pool.load(&t.path, warnings));
    let [sx, sy] = f.scale;
    let trees = f
        .trees
        .iter()
        .map(|t| {
            let height = 0.5 * (t.hmin + t.hmax);
            TreeArt {
                layer: t.layer,
                uv: [t.s / sx, t.t / sy, (t.s + t.w) / sx, (t.t + t.h) / sy],
                width: height * t.w.abs() / t.h,
                height,
                offset: (t.offset / t.w).clamp(0.0, 1.0),
                quads: t.quads,
                percent: t.percent,
            }
        })
        .collect();
    ForestArt {
        name: found.display().to_string(),
        missing: false,
        texture,
        trees,
        spacing: f.spacing,
        lod: f.lod.filter(|d| d.is_finite() && *d > 0.0),
    }
}

const FALLBACK_BAY: f32 = 4.0;
const FALLBACK_FLOOR: f32 = 3.0;

/// True for the image files a facade can be made of directly (FSX building textures).
fn is_image_name(path: &Path) -> bool {
    path.extension()
        .map(|e| e.to_string_lossy().to_ascii_lowercase())
        .is_some_and(|e| matches!(e.as_str(), "png" | "dds" | "bmp"))
}

/// Height in meters that a whole FSX building texture covers: the sample's (and the
/// usual generic-building sheets') three floors of about 3 m.
const IMAGE_FACADE_HEIGHT_M: f32 = 9.0;

/// A facade made of one image (an `.agn`'s GBTE/RHTE texture): the whole image is one bay
/// three floors high, repeated along and up the walls; the roof takes a thin strip of the
/// image's top edge so it reads as a plain, dark-ish surface rather than as windows.
fn facade_from_image(
    path: &Path,
    pool: &mut ImagePool,
    warnings: &mut Vec<Diagnostic>,
) -> FacadeArt {
    let index = pool.load(path, warnings);
    let image = &pool.images()[index];
    let aspect = image.width as f32 / image.height.max(1) as f32;
    FacadeArt {
        name: path.display().to_string(),
        missing: image.missing,
        texture: Some(index),
        wall_uv: [0.0, 0.0, 1.0, 1.0],
        bay_width: IMAGE_FACADE_HEIGHT_M * aspect,
        floor_height: IMAGE_FACADE_HEIGHT_M,
        roof_texture: Some(index),
        roof_uv: [0.0, 0.98, 0.02, 1.0],
        ..FacadeArt::default()
    }
}

fn placeholder_facade(path: &Path) -> FacadeArt {
    FacadeArt {
        name: path.display().to_string(),
        missing: true,
        texture: None,
        wall_uv: [0.0, 0.0, 1.0, 1.0],
        bay_width: FALLBACK_BAY,
        floor_height: FALLBACK_FLOOR,
        roof_texture: None,
        roof_uv: [0.0, 0.0, 1.0, 1.0],
        ..FacadeArt::default()
    }
}

/// Loads a `.fac` into one bay rectangle and a roof rectangle.
pub fn load_facade(path: &Path, pool: &mut ImagePool, warnings: &mut Vec<Diagnostic>) -> FacadeArt {
    if is_image_name(path) {
        return facade_from_image(path, pool, warnings);
    }
    let (found, bytes) = match read(path, "facade") {
        Ok(r) => r,
        Err(w) => {
            warnings.push(w);
            return placeholder_facade(path);
        }
    };
    let fac = match facade::parse(&found, &bytes, warnings) {
        Ok(f) => f,
        Err(e) => {
            warnings.push(as_warning(e, "drawn as a plain box"));
            return placeholder_facade(path);
        }
    };
    let mut art = FacadeArt {
        name: found.display().to_string(),
        ..placeholder_facade(path)
    };
    art.missing = false;
    art.texture = fac
        .wall_texture
        .as_ref()
        .map(|t| pool.load(&t.path, warnings));
    // A missing lit texture was warned about: the walls do not glow.
    art.lit_texture = fac
        .lit_texture
        .as_ref()
        .map(|t| pool.load(&t.path, warnings))
        .filter(|&i| pool.images().get(i).is_some_and(|img| !img.missing));
    let usable = if fac.version == 1000 {
        facade_v10(&fac, &mut art)
    } else {
        facade_v8(&fac, &mut art, &found, warnings)
    };
    if !usable {
        warnings.push(Diagnostic::warning_file(
            &found,
            format!(
                "facade has no usable wall; drawn with the whole texture on a {FALLBACK_BAY} m × {FALLBACK_FLOOR} m bay"
            ),
        ));
        art.wall_uv = [0.0, 0.0, 1.0, 1.0];
        art.bay_width = FALLBACK_BAY;
        art.floor_height = FALLBACK_FLOOR;
    }
    art.open = !fac.ring;
    art.two_sided = fac.two_sided || fac.doubled;
    let floors = |v: Option<f32>, d: u32| {
        v.filter(|v| v.is_finite() && *v >= 0.0)
            .map_or(d, |v| v.round().min(9999.0) as u32)
    };
    art.floors_min = floors(fac.floors_min, 1).max(1);
    art.floors_max = floors(fac.floors_max, 999).max(art.floors_min);
    if usable {
        if fac.version == 1000 {
            art.segment_floors = segment_floors(&fac);
            art.roof_scale = fac
                .roof_scale
                .filter(|r| r.iter().all(|v| v.is_finite() && *v > 0.0))
                .unwrap_or([10.0, 10.0]);
        } else {
            art.lods = panel_lods(&fac);
        }
    }
    let roof_tex = fac.roof_texture.as_ref().or(fac.wall_texture.as_ref());
    let has_roof = if fac.version == 1000 {
        fac.roof_texture.is_some() || fac.floors.iter().any(|f| !f.roof_heights.is_empty())
    } else {
        fac.lods.first().is_some_and(|l| !l.roof.is_empty())
    };
    if has_roof {
        art.roof_texture = roof_tex.map(|t| pool.load(&t.path, warnings));
        // The roof's night texture: type 2's own under `SHADER_ROOF` (a missing one lights
        // nothing); the walls' where the roof is cut from the wall texture (type 1, or
        // type 2 without a roof texture).
        art.roof_lit_texture = if fac.version == 1000 && fac.roof_texture.is_some() {
            fac.roof_lit_texture
                .as_ref()
                .map(|t| pool.load(&t.path, warnings))
                .filter(|&i| pool.images().get(i).is_some_and(|img| !img.missing))
        } else {
            // A roof drawn with the wall texture glows with the walls' night texture.
            art.lit_texture
        };
    }
    art
}

fn first_nonempty(lists: [&Vec<[f32; 2]>; 3]) -> Option<[f32; 2]> {
    lists.iter().find_map(|l| l.first().copied())
}

/// Type 1: the first LOD's first wall. False when it gives no positive size.
fn facade_v8(
    fac: &facade::Facade,
    art: &mut FacadeArt,
    path: &Path,
    warnings: &mut Vec<Diagnostic>,
) -> bool {
    let Some(lod) = fac.lods.first() else {
        return false;
    };
    if let Some(first) = lod.roof.first() {
        let mut r = [first[0], first[1], first[0], first[1]];
        for p in &lod.roof {
            r = [
                r[0].min(p[0]),
                r[1].min(p[1]),
                r[2].max(p[0]),
                r[3].max(p[1]),
            ];
        }
        art.roof_uv = r;
    }
    let Some(wall) = lod.walls.first() else {
        return false;
    };
    let s = first_nonempty([&wall.center, &wall.left, &wall.right]).unwrap_or([0.0, 1.0]);
    let t = first_nonempty([&wall.middle, &wall.bottom, &wall.top]).unwrap_or([0.0, 1.0]);
    let scale = wall.scale.unwrap_or_else(|| {
        warnings.push(Diagnostic::warning_at(
            path,
            wall.line.max(lod.line).max(1),
            1,
            "WALL has no SCALE; assuming the texture covers 10 m × 10 m",
        ));
        [10.0, 10.0]
    });
    art.wall_uv = [s[0], t[0], s[1], t[1]];
    art.bay_width = (s[1] - s[0]).abs() * scale[0];
    art.floor_height = (t[1] - t[0]).abs() * scale[1];
    art.bay_width > 0.0 && art.floor_height > 0.0
}

/// Type 1: every LOD's walls that have at least one panel across, one up and a positive
/// `SCALE` (a wall without `SCALE` gets 10 m × 10 m, as `facade_v8` warns).
fn panel_lods(fac: &facade::Facade) -> Vec<art::PanelLod> {
    let ok = |v: &[[f32; 2]]| v.iter().all(|p| p[0].is_finite() && p[1].is_finite());
    fac.lods
        .iter()
        .map(|lod| art::PanelLod {
            near: lod.near,
            far: lod.far,
            roof: lod.roof.clone(),
            walls: lod
                .walls
                .iter()
                .filter(|w| {
                    let panels = [&w.left, &w.center, &w.right, &w.bottom, &w.middle, &w.top];
                    panels.iter().all(|p| ok(p))
                        && !(w.left.is_empty() && w.center.is_empty() && w.right.is_empty())
                        && !(w.bottom.is_empty() && w.middle.is_empty() && w.top.is_empty())
                })
                .map(|w| art::PanelWall {
                    min_width: w.min_width,
                    max_width: w.max_width,
                    scale: w.scale.unwrap_or([10.0, 10.0]),
                    roof_slope: w
                        .roof_slope
                        .filter(|s| s.is_finite())
                        .unwrap_or(0.0)
                        .clamp(-89.0, 89.0),
                    slant: w.slant || w.roof_slope.is_some_and(|s| s.abs() >= 90.0),
                    basement: w.basement_depth.filter(|b| b.is_finite()).unwrap_or(0.0),
                    left: w.left.clone(),
                    center: w.center.clone(),
                    right: w.right.clone(),
                    bottom: w.bottom.clone(),
                    middle: w.middle.clone(),
                    top: w.top.clone(),
                })
                .collect(),
        })
        .filter(|l| !l.walls.is_empty())
        .collect()
}

/// Type 2: each floor's segments (their meshes merged), walls and roof heights.
fn segment_floors(fac: &facade::Facade) -> Vec<art::SegmentFloor> {
    fac.floors
        .iter()
        .map(|f| art::SegmentFloor {
            segments: f
                .segments
                .iter()
                .map(|seg| {
                    let mut out = art::SegmentArt::default();
                    for m in &seg.meshes {
                        let base = out.vertices.len() as u32;
                        let n = m.vertices.len();
                        out.vertices.extend(m.vertices.iter().map(|v| MeshVertex {
                            pos: v.pos,
                            normal: v.normal,
                            uv: v.uv,
                        }));
                        // Whole triangles whose indices are in range (a cut-short mesh is an
                        // error at parse time; this only guards).
                        for t in m.indices.chunks_exact(3) {
                            if t.iter().all(|&i| (i as usize) < n) {
                                out.indices.extend(t.iter().map(|&i| base + i));
                            }
                        }
                    }
                    out
                })
                .collect(),
            walls: f
                .walls
                .iter()
                .map(|w| art::SegmentWall {
                    min_width: w.min_width,
                    max_width: w.max_width,
                    spellings: w.spellings.iter().map(|s| s.segments.clone()).collect(),
                })
                .collect(),
            roof_heights: f.roof_heights.clone(),
        })
        .filter(|f| f.segments.iter().any(|s| !s.indices.is_empty()))
        .collect()
}

/// Type 2: the segment the first spelling starts with. False when it has no geometry.
fn facade_v10(fac: &facade::Facade, art: &mut FacadeArt) -> bool {
    let Some(floor) = fac.floors.first() else {
        return false;
    };
    let seg_index = floor
        .walls
        .first()
        .and_then(|w| w.spellings.first())
        .and_then(|s| s.segments.first())
        .map_or(0, |&i| i as usize);
    let Some(seg) = floor.segments.get(seg_index).or(floor.segments.first()) else {
        return false;
    };
    let mut uv = [f32::MAX, f32::MAX, f32::MIN, f32::MIN];
    let mut y = [f32::MAX, f32::MIN];
    let mut z = [f32::MAX, f32::MIN];
    let mut any = false;
    for v in seg.meshes.iter().flat_map(|m| &m.vertices) {
        any = true;
        uv = [
            uv[0].min(v.uv[0]),
            uv[1].min(v.uv[1]),
            uv[2].max(v.uv[0]),
            uv[3].max(v.uv[1]),
        ];
        y = [y[0].min(v.pos[1]), y[1].max(v.pos[1])];
        z = [z[0].min(v.pos[2]), z[1].max(v.pos[2])];
    }
    if !any {
        return false;
    }
    art.wall_uv = uv;
    art.bay_width = z[1] - z[0];
    art.floor_height = y[1] - y[0];
    art.roof_uv = [0.0, 0.0, 1.0, 1.0];
    art.bay_width > 0.0 && art.floor_height > 0.0
}

// ---------------------------------------------------------------- images

/// Loads a texture (PNG or DDS, trying the `.dds`/`.png` twin as X-Plane does); a
/// checkerboard and a warning when nothing usable is found.
pub fn load_image(path: &Path, warnings: &mut Vec<Diagnostic>) -> ImageData {
    let ext = path
        .extension()
        .map(|e| e.to_string_lossy().to_ascii_lowercase())
        .unwrap_or_default();
    let candidates: Vec<PathBuf> = match ext.as_str() {
        "png" => vec![path.with_extension("dds"), path.to_path_buf()],
        "dds" => vec![path.to_path_buf(), path.with_extension("png")],
        _ => vec![
            path.to_path_buf(),
            path.with_extension("dds"),
            path.with_extension("png"),
        ],
    };
    // Failures of earlier candidates are reported even when a later one loads, so that an
    // author learns why their `.dds` was not used.
    let mut failed: Vec<Diagnostic> = Vec::new();
    for c in &candidates {
        let Some(found) = find_file(c) else { continue };
        let bytes = match std::fs::read(&found) {
            Ok(b) => b,
            Err(e) => {
                failed.push(Diagnostic::warning_file(
                    &found,
                    format!("texture cannot be read: {e}"),
                ));
                continue;
            }
        };
        let mut local = Vec::new();
        match decode_image(&found, &bytes, &mut local) {
            Ok(img) => {
                let used = format!("{} used instead", found.display());
                warnings.extend(failed.into_iter().map(|d| as_warning(d, &used)));
                warnings.extend(local);
                return img;
            }
            Err(e) => failed.push(e),
        }
    }
    let last = failed.pop();
    warnings.extend(
        failed
            .into_iter()
            .map(|d| as_warning(d, "drawn as a checkerboard")),
    );
    let d = last.unwrap_or_else(|| {
        let tried: Vec<String> = candidates.iter().map(|c| c.display().to_string()).collect();
        Diagnostic::warning_file(
            path,
            format!("texture not found (tried {})", tried.join(", ")),
        )
    });
    warnings.push(as_warning(d, "drawn as a checkerboard"));
    ImageData::checkerboard(&path.display().to_string())
}

/// Decodes PNG or DDS bytes (told apart by their magic numbers).
pub fn decode_image(
    path: &Path,
    bytes: &[u8],
    warnings: &mut Vec<Diagnostic>,
) -> Result<ImageData, Diagnostic> {
    if bytes.starts_with(b"DDS ") {
        decode_dds(path, bytes, warnings)
    } else if bytes.starts_with(b"\x89PNG\r\n\x1a\n") {
        decode_png(path, bytes)
    } else {
        Err(Diagnostic::error_file(path, "not a PNG or DDS file"))
    }
}

/// Largest texture side accepted (what GPUs commonly allow).
const MAX_SIDE: u32 = 16384;

fn decode_png(path: &Path, bytes: &[u8]) -> Result<ImageData, Diagnostic> {
    let img = image::load_from_memory_with_format(bytes, image::ImageFormat::Png)
        .map_err(|e| Diagnostic::error_file(path, format!("PNG cannot be decoded: {e}")))?;
    let (w, h) = (img.width(), img.height());
    if w == 0 || h == 0 || w > MAX_SIDE || h > MAX_SIDE {
        return Err(Diagnostic::error_file(
            path,
            format!("PNG is {w} × {h}; sides must be 1..={MAX_SIDE}"),
        ));
    }
    let rgba = img.into_rgba8().into_raw();
    Ok(ImageData {
        name: path.display().to_string(),
        width: w,
        height: h,
        pixels: ImagePixels::Rgba8(mip_chain(rgba, w, h)),
        missing: false,
    })
}

/// Number of levels in a full mip chain down to 1 × 1.
fn full_chain(w: u32, h: u32) -> u32 {
    32 - w.max(h).max(1).leading_zeros()
}

/// sRGB byte → linear light, 0..=65535.
fn srgb_to_linear() -> &'static [u16; 256] {
    static T: std::sync::OnceLock<[u16; 256]> = std::sync::OnceLock::new();
    T.get_or_init(|| {
        let mut t = [0u16; 256];
        for (i, v) in t.iter_mut().enumerate() {
            let c = i as f64 / 255.0;
            let l = if c <= 0.04045 {
                c / 12.92
            } else {
                ((c + 0.055) / 1.055).powf(2.4)
            };
            *v = (l * 65535.0).round() as u16;
        }
        t
    })
}

/// Linear light 0..=65535 → sRGB byte.
fn linear_to_srgb() -> &'static [u8] {
    static T: std::sync::OnceLock<Vec<u8>> = std::sync::OnceLock::new();
    T.get_or_init(|| {
        (0..=65535u32)
            .map(|i| {
                let l = i as f64 / 65535.0;
                let c = if l <= 0.003_130_8 {
                    l * 12.92
                } else {
                    1.055 * l.powf(1.0 / 2.4) - 0.055
                };
                (c * 255.0).round().clamp(0.0, 255.0) as u8
            })
            .collect()
    })
}

/// The mip chain of an RGBA8 image, mip 0 first, down to 1 × 1: each level averages 2 × 2
/// texels of the one above (colour in linear light, alpha as is; an odd last row or column
/// is reused).
pub fn mip_chain(rgba: Vec<u8>, width: u32, height: u32) -> Vec<Vec<u8>> {
    let to_lin = srgb_to_linear();
    let to_srgb = linear_to_srgb();
    let levels = full_chain(width, height);
    let mut out = Vec::with_capacity(levels as usize);
    out.push(rgba);
    let (mut w, mut h) = (width as usize, height as usize);
    for _ in 1..levels {
        let prev = &out[out.len() - 1];
        let (nw, nh) = ((w / 2).max(1), (h / 2).max(1));
        let mut next = vec![0u8; nw * nh * 4];
        for y in 0..nh {
            let y0 = (2 * y).min(h - 1);
            let y1 = (2 * y + 1).min(h - 1);
            for x in 0..nw {
                let x0 = (2 * x).min(w - 1);
                let x1 = (2 * x + 1).min(w - 1);
                let px = [(x0, y0), (x1, y0), (x0, y1), (x1, y1)];
                let o = (y * nw + x) * 4;
                for c in 0..4 {
                    let sum: u32 = px
                        .iter()
                        .map(|&(px, py)| {
                            let v = prev.get((py * w + px) * 4 + c).copied().unwrap_or(0);
                            if c == 3 {
                                v as u32
                            } else {
                                to_lin[v as usize] as u32
                            }
                        })
                        .sum();
                    next[o + c] = if c == 3 {
                        ((sum + 2) / 4) as u8
                    } else {
                        to_srgb[((sum + 2) / 4).min(65535) as usize]
                    };
                }
            }
        }
        out.push(next);
        w = nw;
        h = nh;
    }
    out
}

fn u32_at(b: &[u8], off: usize) -> u32 {
    b.get(off..off + 4)
        .map_or(0, |s| u32::from_le_bytes([s[0], s[1], s[2], s[3]]))
}

/// Bytes of a `w × h` level of a BC format.
fn bc_level_size(f: BcFormat, w: u32, h: u32) -> usize {
    w.div_ceil(4).max(1) as usize * h.div_ceil(4).max(1) as usize * f.block_bytes()
}

/// Reads a DDS file: BC1-5 and BC7 (DXT1/3/5, ATI1/BC4U, ATI2/BC5U FourCCs or a DX10
/// header) kept compressed, or uncompressed RGB(A) with bit masks expanded to RGBA8.
fn decode_dds(
    path: &Path,
    b: &[u8],
    warnings: &mut Vec<Diagnostic>,
) -> Result<ImageData, Diagnostic> {
    let err = |off: u64, m: String| Diagnostic::error_offset(path, off, m);
    if b.len() < 128 {
        return Err(err(
            b.len() as u64,
            format!("DDS header truncated: {} of 128 bytes", b.len()),
        ));
    }
    if u32_at(b, 4) != 124 {
        return Err(err(
            4,
            format!("DDS header size is {}, expected 124", u32_at(b, 4)),
        ));
    }
    let flags = u32_at(b, 8);
    let height = u32_at(b, 12);
    let width = u32_at(b, 16);
    if width == 0 || height == 0 || width > MAX_SIDE || height > MAX_SIDE {
        return Err(err(
            12,
            format!("DDS is {width} × {height}; sides must be 1..={MAX_SIDE}"),
        ));
    }
    let declared_mips = if flags & 0x2_0000 != 0 {
        u32_at(b, 28).max(1)
    } else {
        1
    };
    let mips = declared_mips.min(full_chain(width, height));
    let pf_flags = u32_at(b, 80);
    let fourcc = b.get(84..88).unwrap_or(&[]);
    let name = path.display().to_string();

    if pf_flags & 0x4 != 0 {
        let (format, data_at) = match fourcc {
            b"DXT1" => (BcFormat::Bc1, 128),
            b"DXT2" | b"DXT3" => (BcFormat::Bc2, 128),
            b"DXT4" | b"DXT5" => (BcFormat::Bc3, 128),
            b"ATI1" | b"BC4U" => (BcFormat::Bc4, 128),
            b"ATI2" | b"BC5U" => (BcFormat::Bc5, 128),
            b"DX10" => {
                let dxgi = u32_at(b, 128);
                // Typeless, UNORM and UNORM_SRGB; the signed BC4/BC5 (81, 84) are not.
                let f = match dxgi {
                    70..=72 => BcFormat::Bc1,
                    73..=75 => BcFormat::Bc2,
                    76..=78 => BcFormat::Bc3,
                    79 | 80 => BcFormat::Bc4,
                    82 | 83 => BcFormat::Bc5,
                    97..=99 => BcFormat::Bc7,
                    _ => {
                        return Err(err(
                            128,
                            format!("DDS DXGI format {dxgi} is not supported (only BC1-5 and BC7, unsigned)"),
                        ))
                    }
                };
                (f, 148)
            }
            other => {
                return Err(err(
                    84,
                    format!(
                        "DDS FourCC `{}` is not supported (only DXT1, DXT3, DXT5, ATI1, ATI2, BC4U, BC5U and DX10)",
                        String::from_utf8_lossy(other)
                    ),
                ))
            }
        };
        let levels = split_levels(b, data_at, mips, width, height, |w, h| {
            bc_level_size(format, w, h)
        });
        if levels.is_empty() {
            return Err(err(
                b.len() as u64,
                "DDS data truncated inside the first mip level".into(),
            ));
        }
        if (levels.len() as u32) < mips {
            warnings.push(Diagnostic::warning_offset(
                path,
                b.len() as u64,
                format!(
                    "DDS declares {mips} mip levels but holds {}; the rest are left out",
                    levels.len()
                ),
            ));
        }
        // A GPU needs BC textures in whole blocks; expand the rare odd-sized file instead.
        if !width.is_multiple_of(4) || !height.is_multiple_of(4) {
            let rgba = decode_bc(format, width, height, &levels[0]);
            return Ok(ImageData {
                name,
                width,
                height,
                pixels: ImagePixels::Rgba8(mip_chain(rgba, width, height)),
                missing: false,
            });
        }
        return Ok(ImageData {
            name,
            width,
            height,
            pixels: ImagePixels::Bc(format, levels),
            missing: false,
        });
    }

    if pf_flags & 0x40 != 0 || pf_flags & 0x2_0000 != 0 || pf_flags & 0x2 != 0 {
        let bits = u32_at(b, 88);
        if !matches!(bits, 8 | 16 | 24 | 32) {
            return Err(err(
                88,
                format!("DDS with {bits} bits per pixel is not supported"),
            ));
        }
        let bpp = (bits / 8) as usize;
        let masks = [u32_at(b, 92), u32_at(b, 96), u32_at(b, 100), u32_at(b, 104)];
        let has_alpha = pf_flags & 0x3 != 0 && masks[3] != 0;
        let luminance = pf_flags & 0x2_0000 != 0;
        let levels = split_levels(b, 128, mips, width, height, |w, h| {
            w as usize * h as usize * bpp
        });
        if levels.is_empty() {
            return Err(err(
                b.len() as u64,
                "DDS data truncated inside the first mip level".into(),
            ));
        }
        let expand = |level: &[u8]| -> Vec<u8> {
            let mut out = Vec::with_capacity(level.len() / bpp * 4);
            for px in level.chunks_exact(bpp) {
                let mut v = 0u32;
                for (k, &byte) in px.iter().enumerate() {
                    v |= (byte as u32) << (8 * k);
                }
                let r = channel(v, masks[0]);
                let (g, bl) = if luminance {
                    (r, r)
                } else {
                    (channel(v, masks[1]), channel(v, masks[2]))
                };
                let a = if has_alpha { channel(v, masks[3]) } else { 255 };
                out.extend_from_slice(&[r, g, bl, a]);
            }
            out
        };
        let pixels = if levels.len() as u32 == full_chain(width, height) {
            levels.iter().map(|l| expand(l)).collect()
        } else {
            mip_chain(expand(&levels[0]), width, height)
        };
        return Ok(ImageData {
            name,
            width,
            height,
            pixels: ImagePixels::Rgba8(pixels),
            missing: false,
        });
    }
    Err(err(
        80,
        format!("DDS pixel format (flags 0x{pf_flags:X}) is not supported"),
    ))
}

/// One channel of a packed pixel, scaled to 0..=255.
fn channel(v: u32, mask: u32) -> u8 {
    if mask == 0 {
        return 0;
    }
    let shift = mask.trailing_zeros();
    let bits = (mask >> shift).count_ones().min(16);
    let max = (1u64 << bits) - 1;
    let x = ((v & mask) >> shift) as u64;
    ((x * 255 + max / 2) / max) as u8
}

/// Cuts `mips` consecutive levels starting at `at`; stops at the first that does not fit.
fn split_levels(
    b: &[u8],
    mut at: usize,
    mips: u32,
    width: u32,
    height: u32,
    size: impl Fn(u32, u32) -> usize,
) -> Vec<Vec<u8>> {
    let mut out = Vec::new();
    let (mut w, mut h) = (width, height);
    for _ in 0..mips {
        let n = size(w, h);
        let Some(level) = at.checked_add(n).and_then(|end| b.get(at..end)) else {
            break;
        };
        out.push(level.to_vec());
        at += n;
        w = (w / 2).max(1);
        h = (h / 2).max(1);
    }
    out
}

fn rgb565(c: u16) -> [u8; 3] {
    let r = ((c >> 11) & 31) as u8;
    let g = ((c >> 5) & 63) as u8;
    let b = (c & 31) as u8;
    [
        (r << 3) | (r >> 2),
        (g << 2) | (g >> 4),
        (b << 3) | (b >> 2),
    ]
}

/// The 4 colours of a BC colour block; `bc1` allows the 3-colour mode with transparent black.
fn color_palette(block: &[u8], bc1: bool) -> [[u8; 4]; 4] {
    let c0 = u16::from_le_bytes([block[0], block[1]]);
    let c1 = u16::from_le_bytes([block[2], block[3]]);
    let (p0, p1) = (rgb565(c0), rgb565(c1));
    let mix = |a: u8, b: u8, wa: u32, wb: u32| {
        ((a as u32 * wa + b as u32 * wb + (wa + wb) / 2) / (wa + wb)) as u8
    };
    let mut pal = [[0u8; 4]; 4];
    pal[0] = [p0[0], p0[1], p0[2], 255];
    pal[1] = [p1[0], p1[1], p1[2], 255];
    if c0 > c1 || !bc1 {
        for k in 0..3 {
            pal[2][k] = mix(p0[k], p1[k], 2, 1);
            pal[3][k] = mix(p0[k], p1[k], 1, 2);
        }
        pal[2][3] = 255;
        pal[3][3] = 255;
    } else {
        for k in 0..3 {
            pal[2][k] = mix(p0[k], p1[k], 1, 1);
        }
        pal[2][3] = 255;
        pal[3] = [0, 0, 0, 0];
    }
    pal
}

/// The 8 alpha values of a BC3 alpha block.
fn alpha_palette(a0: u8, a1: u8) -> [u8; 8] {
    let (a, b) = (a0 as u32, a1 as u32);
    let mut p = [a0, a1, 0, 0, 0, 0, 0, 255];
    if a0 > a1 {
        for (i, v) in p.iter_mut().enumerate().skip(2) {
            let i = i as u32;
            *v = (((8 - i) * a + (i - 1) * b + 3) / 7) as u8;
        }
    } else {
        for (i, v) in p.iter_mut().enumerate().take(6).skip(2) {
            let i = i as u32;
            *v = (((6 - i) * a + (i - 1) * b + 2) / 5) as u8;
        }
    }
    p
}

/// Expands block-compressed data (one mip level, blocks row by row) to RGBA8. Blocks the
/// data does not hold come out transparent black. BC4's one channel becomes grey; BC5's
/// two become red and green with blue the third component of a unit normal (what a
/// normal map's colour would be); both are opaque.
pub fn decode_bc(format: BcFormat, width: u32, height: u32, data: &[u8]) -> Vec<u8> {
    let (w, h) = (width as usize, height as usize);
    let mut out = vec![0u8; w * h * 4];
    let bw = w.div_ceil(4);
    let bh = h.div_ceil(4);
    let bs = format.block_bytes();
    for by in 0..bh {
        for bx in 0..bw {
            let at = (by * bw + bx) * bs;
            let Some(block) = data.get(at..at + bs) else {
                return out;
            };
            let px = decode_block(format, block);
            for py in 0..4 {
                for pxx in 0..4 {
                    let (x, y) = (bx * 4 + pxx, by * 4 + py);
                    if x >= w || y >= h {
                        continue;
                    }
                    let o = (y * w + x) * 4;
                    out[o..o + 4].copy_from_slice(&px[py * 4 + pxx]);
                }
            }
        }
    }
    out
}

/// The 16 RGBA8 texels of one block (`block` holds exactly the format's bytes).
fn decode_block(format: BcFormat, block: &[u8]) -> [[u8; 4]; 16] {
    let mut texels = [[0u8; 4]; 16];
    match format {
        BcFormat::Bc1 | BcFormat::Bc2 | BcFormat::Bc3 => {
            let (alpha, color) = match format {
                BcFormat::Bc1 => (None, block),
                _ => (Some(&block[..8]), &block[8..]),
            };
            let pal = color_palette(color, format == BcFormat::Bc1);
            let bits = u32::from_le_bytes([color[4], color[5], color[6], color[7]]);
            let apal = match (format, alpha) {
                (BcFormat::Bc3, Some(a)) => Some(alpha_palette(a[0], a[1])),
                _ => None,
            };
            let abits = alpha.map_or(0u64, |a| {
                let mut v = 0u64;
                for (k, &byte) in a.iter().enumerate() {
                    v |= (byte as u64) << (8 * k);
                }
                v
            });
            for (i, t) in texels.iter_mut().enumerate() {
                let mut c = pal[((bits >> (2 * i)) & 3) as usize];
                match format {
                    BcFormat::Bc2 => c[3] = (((abits >> (4 * i)) & 15) as u8) * 17,
                    BcFormat::Bc3 => {
                        if let Some(ap) = apal {
                            c[3] = ap[((abits >> (16 + 3 * i)) & 7) as usize];
                        }
                    }
                    _ => {}
                }
                *t = c;
            }
        }
        BcFormat::Bc4 => {
            let mut r = [0u8; 16];
            bcdec_rs::bc4(block, &mut r, 4, false);
            for (t, v) in texels.iter_mut().zip(r) {
                *t = [v, v, v, 255];
            }
        }
        BcFormat::Bc5 => {
            let mut rg = [0u8; 32];
            bcdec_rs::bc5(block, &mut rg, 8, false);
            for (t, v) in texels.iter_mut().zip(rg.chunks_exact(2)) {
                let (x, y) = (f32::from(v[0]) / 127.5 - 1.0, f32::from(v[1]) / 127.5 - 1.0);
                let z = (1.0 - x * x - y * y).max(0.0).sqrt();
                *t = [v[0], v[1], ((z + 1.0) * 127.5).round() as u8, 255];
            }
        }
        BcFormat::Bc7 => {
            let mut rgba = [0u8; 64];
            bcdec_rs::bc7(block, &mut rgba, 16);
            for (t, v) in texels.iter_mut().zip(rgba.chunks_exact(4)) {
                *t = [v[0], v[1], v[2], v[3]];
            }
        }
    }
    texels
}

/// The RGBA8 mips of any image (block-compressed ones expanded with [`decode_bc`]).
pub fn rgba8_mips(img: &ImageData) -> Vec<Vec<u8>> {
    match &img.pixels {
        ImagePixels::Rgba8(m) => m.clone(),
        ImagePixels::Bc(f, levels) => {
            let (mut w, mut h) = (img.width, img.height);
            levels
                .iter()
                .map(|l| {
                    let px = decode_bc(*f, w, h, l);
                    w = (w / 2).max(1);
                    h = (h / 2).max(1);
                    px
                })
                .collect()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A fresh directory for one test, removed when the test ends.
    struct Tmp(PathBuf);

    impl std::ops::Deref for Tmp {
        type Target = Path;
        fn deref(&self) -> &Path {
            &self.0
        }
    }

    impl Drop for Tmp {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }

    fn tmp(name: &str) -> Tmp {
        let d = std::env::temp_dir().join(format!("agview-art-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        Tmp(d)
    }

    /// An OBJ8 triangle with a lit texture and three named lights, one per kind.
    fn lamp_obj(lit: &str) -> String {
        format!(
            "A\n800\nOBJ\nTEXTURE lamp.png\nTEXTURE_LIT {lit}\nPOINT_COUNTS 3 0 0 3\n\
VT 0 0 0 0 1 0 0 0\nVT 1 0 0 0 1 0 1 0\nVT 0 1 0 0 1 0 0 1\nIDX 0\nIDX 1\nIDX 2\n\
ATTR_LOD 0 500\nTRIS 0 3\nLIGHT_NAMED airplane_beacon 0 5 0\n\
LIGHT_PARAM full_custom_halo 0 4 0 0.5 0.25 1 6\n\
LIGHT_NAMED my_green_taxi_light 0 3 0\n\
LIGHT_CUSTOM 1 2 3 1 0.5 0 1 2 0 0 1 1 sim/x\n"
        )
    }

    #[test]
    fn lights_take_lights_txt_then_the_default_table() {
        let d = tmp("lights");
        write_png(&d.join("lamp.png"), 4, 4, |_, _| [200, 200, 200, 255]);
        write_png(&d.join("lamp_LIT.png"), 4, 4, |_, _| [255, 200, 100, 255]);
        std::fs::write(d.join("lamp.obj"), lamp_obj("lamp_LIT.png")).unwrap();
        std::fs::write(d.join("dark.obj"), lamp_obj("gone_LIT.png")).unwrap();
        std::fs::create_dir_all(d.join("Resources")).unwrap();
        std::fs::write(
            d.join("Resources/lights.txt"),
            "A\n850\nLIGHT_SPECS\n\nLIGHT_PARAM_DEF full_custom_halo 4 R G B S\n\
BILLBOARD_HW full_custom_halo R G B 1 S 0 0 0\n\
BILLBOARD_HW airplane_beacon 0 0 1 1 3 0 0 0\nBILLBOARD_HW broken 1 1\n",
        )
        .unwrap();
        let obj = |name: &str| ArtRef {
            name: name.into(),
            resolved: Some(d.join(name).display().to_string()),
        };
        let mut scene = Scene {
            meshes: vec![obj("lamp.obj"), obj("dark.obj")],
            ..Scene::default()
        };
        // Without an install: the default table by name, LIGHT_CUSTOM its own look.
        let art = load_art_set(&scene);
        let lamp = &art.meshes[0];
        assert!(lamp.lit_texture.is_some());
        assert_eq!(lamp.lights.len(), 4);
        assert_eq!((lamp.lights[0].near, lamp.lights[0].far), (0.0, 500.0));
        assert_eq!(lamp.lights[0].pos, [0.0, 5.0, 0.0]);
        assert_eq!(
            (lamp.lights[0].color, lamp.lights[0].size),
            default_light_look("beacon")
        );
        assert_eq!(lamp.lights[0].color[0], 1.0, "a beacon is red");
        assert_eq!(lamp.lights[2].color[1], 1.0, "green by its name");
        assert_eq!(lamp.lights[3].color, [1.0, 0.5, 0.0, 1.0]);
        assert_eq!(lamp.lights[3].size, 2.0);
        // A missing lit texture is a warning, and no glow.
        assert_eq!(art.meshes[1].lit_texture, None);
        assert!(art
            .warnings
            .iter()
            .any(|w| w.to_string().contains("gone_LIT.png")));
        // With lights.txt: its billboards, LIGHT_PARAM's values filling the parameters;
        // half the SIZE is the radius. Its bad line is a located warning.
        scene.lights_txt = Some(d.join("Resources/lights.txt").display().to_string());
        let art = load_art_set(&scene);
        let lamp = &art.meshes[0];
        assert_eq!(lamp.lights[0].color, [0.0, 0.0, 1.0, 1.0]);
        assert_eq!(lamp.lights[0].size, 1.5);
        assert_eq!(lamp.lights[1].color, [0.5, 0.25, 1.0, 1.0]);
        assert_eq!(lamp.lights[1].size, 3.0);
        assert_eq!(
            lamp.lights[2].color[1], 1.0,
            "not in lights.txt: the default"
        );
        assert!(art
            .warnings
            .iter()
            .any(|w| w.to_string().contains("lights.txt:8:")));
    }

    fn write_png(path: &Path, w: u32, h: u32, px: impl Fn(u32, u32) -> [u8; 4]) {
        let mut img = image::RgbaImage::new(w, h);
        for y in 0..h {
            for x in 0..w {
                img.put_pixel(x, y, image::Rgba(px(x, y)));
            }
        }
        img.save(path).unwrap();
    }

    /// A DDS header for a FourCC format with `mips` levels.
    fn dds_header(fourcc: &[u8; 4], w: u32, h: u32, mips: u32) -> Vec<u8> {
        let mut b = vec![0u8; 128];
        b[..4].copy_from_slice(b"DDS ");
        let put =
            |b: &mut Vec<u8>, off: usize, v: u32| b[off..off + 4].copy_from_slice(&v.to_le_bytes());
        put(&mut b, 4, 124);
        put(&mut b, 8, 0x1 | 0x2 | 0x4 | 0x1000 | 0x2_0000);
        put(&mut b, 12, h);
        put(&mut b, 16, w);
        put(&mut b, 28, mips);
        put(&mut b, 76, 32);
        put(&mut b, 80, 0x4);
        b[84..88].copy_from_slice(fourcc);
        b
    }

    /// A BC1 block of one colour index everywhere.
    fn bc1_block(c0: u16, c1: u16, index: u32) -> [u8; 8] {
        let mut bits = 0u32;
        for i in 0..16 {
            bits |= index << (2 * i);
        }
        let mut b = [0u8; 8];
        b[..2].copy_from_slice(&c0.to_le_bytes());
        b[2..4].copy_from_slice(&c1.to_le_bytes());
        b[4..].copy_from_slice(&bits.to_le_bytes());
        b
    }

    #[test]
    fn bc1_decodes_both_colour_modes() {
        let red = 0xF800;
        let blue = 0x001F;
        let px = |b: [u8; 8]| decode_bc(BcFormat::Bc1, 4, 4, &b)[..4].to_vec();
        assert_eq!(px(bc1_block(red, blue, 0)), [255, 0, 0, 255]);
        assert_eq!(px(bc1_block(red, blue, 1)), [0, 0, 255, 255]);
        assert_eq!(px(bc1_block(red, blue, 2)), [170, 0, 85, 255]);
        // c0 <= c1: three colours and transparent black.
        assert_eq!(px(bc1_block(blue, red, 2)), [128, 0, 128, 255]);
        assert_eq!(px(bc1_block(blue, red, 3)), [0, 0, 0, 0]);
        // Short data: missing blocks stay transparent black, no panic.
        assert_eq!(
            decode_bc(BcFormat::Bc1, 8, 4, &bc1_block(red, blue, 0)).len(),
            8 * 4 * 4
        );
        assert_eq!(decode_bc(BcFormat::Bc3, 8, 8, &[1, 2, 3]), vec![0u8; 256]);
    }

    #[test]
    fn bc2_and_bc3_alpha() {
        // BC2: explicit 4-bit alpha, pixel 0 = 0xF, pixel 1 = 0x8.
        let mut b2 = [0u8; 16];
        b2[0] = 0x8F;
        b2[8..].copy_from_slice(&bc1_block(0x001F, 0xF800, 0));
        let d = decode_bc(BcFormat::Bc2, 4, 4, &b2);
        assert_eq!(&d[..8], &[0, 0, 255, 255, 0, 0, 255, 136]);
        // BC3: a0 = 255, a1 = 0; pixel 0 code 0, pixel 1 code 1, pixel 2 code 2 (6/7 of a0).
        let mut b3 = [0u8; 16];
        b3[0] = 255;
        b3[1] = 0;
        let codes: u64 = 1 << 3 | 2 << 6;
        b3[2..8].copy_from_slice(&codes.to_le_bytes()[..6]);
        b3[8..].copy_from_slice(&bc1_block(0xF800, 0x001F, 0));
        let d = decode_bc(BcFormat::Bc3, 4, 4, &b3);
        assert_eq!([d[3], d[7], d[11], d[15]], [255, 0, 219, 255]);
        // a0 <= a1: codes 6 and 7 are 0 and 255.
        assert_eq!(alpha_palette(10, 20)[6..], [0, 255]);
    }

    #[test]
    fn dds_keeps_blocks_and_mips() {
        let mut b = dds_header(b"DXT1", 8, 8, 4);
        for n in [4, 1, 1, 1] {
            for _ in 0..n {
                b.extend_from_slice(&bc1_block(0xF800, 0x001F, 0));
            }
        }
        let mut w = Vec::new();
        let img = decode_image(Path::new("t.dds"), &b, &mut w).unwrap();
        assert!(w.is_empty());
        let ImagePixels::Bc(BcFormat::Bc1, levels) = &img.pixels else {
            panic!("{:?}", img.pixels)
        };
        assert_eq!(
            levels.iter().map(Vec::len).collect::<Vec<_>>(),
            vec![32, 8, 8, 8]
        );
        assert_eq!(rgba8_mips(&img)[3], vec![255, 0, 0, 255]);
        // Cut inside the third level: two levels and a warning.
        let img = decode_image(Path::new("t.dds"), &b[..128 + 32 + 8 + 3], &mut w).unwrap();
        let ImagePixels::Bc(_, levels) = &img.pixels else {
            panic!()
        };
        assert_eq!(levels.len(), 2);
        assert!(
            w[0].to_string()
                .contains("DDS declares 4 mip levels but holds 2"),
            "{}",
            w[0]
        );
        // Cut inside the first level: an error at the end of the file.
        let e = decode_image(Path::new("t.dds"), &b[..140], &mut w).unwrap_err();
        assert_eq!(
            e.to_string(),
            "t.dds: offset 140: error: DDS data truncated inside the first mip level"
        );
    }

    #[test]
    fn dds_bad_headers_are_errors() {
        let e = |b: &[u8]| {
            decode_image(Path::new("x.dds"), b, &mut Vec::new())
                .unwrap_err()
                .to_string()
        };
        assert!(e(b"DDS 12").contains("header truncated"));
        let mut h = dds_header(b"BC6H", 4, 4, 1);
        assert!(e(&h).contains("FourCC `BC6H` is not supported"));
        // A DX10 header naming signed BC5 (84).
        h = dds_header(b"DX10", 4, 4, 1);
        h.extend_from_slice(&84u32.to_le_bytes());
        h.extend_from_slice(&[0; 16]);
        assert!(
            e(&h).contains("DXGI format 84 is not supported"),
            "{}",
            e(&h)
        );
        h = dds_header(b"DXT5", 0, 4, 1);
        assert!(e(&h).contains("sides must be"));
        h = dds_header(b"DXT5", 4, 4, 1);
        h[4] = 0;
        assert!(e(&h).contains("header size is 0"));
        assert!(e(b"GIF89a").contains("not a PNG or DDS"));
    }

    /// A BC7 mode 6 block of one colour: 7-bit endpoints `rgba` (both the same), p-bits 1,
    /// every index 0.
    pub(crate) fn bc7_solid(rgba: [u8; 4]) -> [u8; 16] {
        let mut bits = 0u128;
        let mut at = 0;
        let mut put = |v: u128, n: u32| {
            bits |= v << at;
            at += n;
        };
        put(1 << 6, 7); // mode 6
        for c in rgba {
            put(u128::from(c & 0x7F), 7);
            put(u128::from(c & 0x7F), 7);
        }
        put(1, 1);
        put(1, 1);
        bits.to_le_bytes()
    }

    #[test]
    fn bc4_bc5_and_bc7_dds_load() {
        // BC4 (ATI1): one channel, drawn grey; endpoints 200 and 50, every index 0.
        let mut b = dds_header(b"ATI1", 4, 4, 1);
        b.extend_from_slice(&[200, 50, 0, 0, 0, 0, 0, 0]);
        let img = decode_image(Path::new("r.dds"), &b, &mut Vec::new()).unwrap();
        let ImagePixels::Bc(BcFormat::Bc4, levels) = &img.pixels else {
            panic!("{:?}", img.pixels)
        };
        assert_eq!(
            &rgba8_mips(&img)[0][..8],
            &[200, 200, 200, 255, 200, 200, 200, 255]
        );
        assert_eq!(levels[0].len(), 8);
        // BC5 (DX10, BC5_UNORM): x and y of a normal at the middle give z ≈ 1.
        let mut b = dds_header(b"DX10", 4, 4, 1);
        b.extend_from_slice(&83u32.to_le_bytes());
        b.extend_from_slice(&[3, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0]);
        b.extend_from_slice(&[128, 128, 0, 0, 0, 0, 0, 0, 128, 128, 0, 0, 0, 0, 0, 0]);
        let img = decode_image(Path::new("n.dds"), &b, &mut Vec::new()).unwrap();
        assert!(matches!(img.pixels, ImagePixels::Bc(BcFormat::Bc5, _)));
        assert_eq!(&rgba8_mips(&img)[0][..4], &[128, 128, 255, 255]);
        // BC7 (DX10, BC7_UNORM_SRGB) with its mips kept: 8 × 8, two levels.
        let mut b = dds_header(b"DX10", 8, 8, 2);
        b.extend_from_slice(&99u32.to_le_bytes());
        b.extend_from_slice(&[3, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0]);
        for _ in 0..4 {
            b.extend_from_slice(&bc7_solid([100, 50, 25, 127]));
        }
        b.extend_from_slice(&bc7_solid([10, 20, 30, 40]));
        let mut w = Vec::new();
        let img = decode_image(Path::new("c.dds"), &b, &mut w).unwrap();
        assert!(w.is_empty(), "{w:?}");
        let ImagePixels::Bc(BcFormat::Bc7, levels) = &img.pixels else {
            panic!("{:?}", img.pixels)
        };
        assert_eq!(levels.len(), 2);
        let mips = rgba8_mips(&img);
        assert_eq!(&mips[0][..4], &[201, 101, 51, 255]);
        assert_eq!(mips[0].len(), 8 * 8 * 4);
        assert_eq!(&mips[1][..4], &[21, 41, 61, 81]);
        // A truncated block decodes to transparent black, never a panic.
        assert_eq!(decode_bc(BcFormat::Bc7, 4, 4, &[0x40; 15]), vec![0u8; 64]);
    }

    #[test]
    fn odd_sized_and_uncompressed_dds_become_rgba() {
        let mut b = dds_header(b"DXT1", 3, 2, 1);
        b.extend_from_slice(&bc1_block(0x07E0, 0, 0));
        let img = decode_image(Path::new("o.dds"), &b, &mut Vec::new()).unwrap();
        let ImagePixels::Rgba8(m) = &img.pixels else {
            panic!()
        };
        assert_eq!(m.len(), 2);
        assert_eq!(&m[0][..4], &[0, 255, 0, 255]);
        // 32-bit BGRA with masks, 2 × 1, no mips: a chain is generated.
        let mut b = dds_header(b"\0\0\0\0", 2, 1, 1);
        b[80..84].copy_from_slice(&0x41u32.to_le_bytes());
        b[88..92].copy_from_slice(&32u32.to_le_bytes());
        for (off, m) in [
            (92, 0x00FF_0000u32),
            (96, 0xFF00),
            (100, 0xFF),
            (104, 0xFF00_0000),
        ] {
            b[off..off + 4].copy_from_slice(&m.to_le_bytes());
        }
        b.extend_from_slice(&[10, 20, 30, 40, 50, 60, 70, 80]);
        let img = decode_image(Path::new("u.dds"), &b, &mut Vec::new()).unwrap();
        let ImagePixels::Rgba8(m) = &img.pixels else {
            panic!()
        };
        assert_eq!(m[0], vec![30, 20, 10, 40, 70, 60, 50, 80]);
        assert_eq!(m.len(), 2);
    }

    #[test]
    fn png_gets_a_linear_light_mip_chain() {
        let d = tmp("png");
        let p = d.join("t.png");
        // Black and white columns: the 50% mix in linear light is sRGB 188, not 128.
        write_png(&p, 2, 2, |x, _| {
            if x == 0 {
                [0, 0, 0, 255]
            } else {
                [255, 255, 255, 0]
            }
        });
        let mut w = Vec::new();
        let img = load_image(&p, &mut w);
        assert!(w.is_empty(), "{w:?}");
        assert!(!img.missing);
        let ImagePixels::Rgba8(m) = &img.pixels else {
            panic!()
        };
        assert_eq!(m.len(), 2);
        assert_eq!(m[0][..4], [0, 0, 0, 255]);
        assert_eq!(m[1], vec![188, 188, 188, 128]);
        // 5 × 3 → 2 × 1 → 1 × 1.
        let chain = mip_chain(vec![0; 5 * 3 * 4], 5, 3);
        assert_eq!(
            chain.iter().map(Vec::len).collect::<Vec<_>>(),
            vec![60, 8, 4]
        );
    }

    #[test]
    fn textures_prefer_dds_and_fall_back_to_checkerboards() {
        let d = tmp("tex");
        write_png(&d.join("wall.png"), 4, 4, |_, _| [1, 2, 3, 255]);
        let mut dds = dds_header(b"DXT1", 4, 4, 1);
        dds.extend_from_slice(&bc1_block(0xF800, 0, 0));
        std::fs::write(d.join("roof.dds"), &dds).unwrap();
        std::fs::write(d.join("roof.png"), b"not a png").unwrap();
        std::fs::write(
            d.join("Mixed.PNG"),
            std::fs::read(d.join("wall.png")).unwrap(),
        )
        .unwrap();
        let mut w = Vec::new();
        let mut pool = ImagePool::new();
        let a = pool.load(&d.join("wall.png"), &mut w);
        let b = pool.load(&d.join("roof.png"), &mut w);
        let c = pool.load(&d.join("wall.png"), &mut w);
        let m = pool.load(&d.join("mixed.png"), &mut w);
        let x = pool.load(&d.join("gone.png"), &mut w);
        assert_eq!((a, b, c, m, x), (0, 1, 0, 2, 3));
        assert_eq!(pool.len(), 4);
        let imgs = pool.images();
        assert!(matches!(imgs[1].pixels, ImagePixels::Bc(BcFormat::Bc1, _)));
        assert!(!imgs[2].missing, "case-insensitive match");
        assert!(imgs[3].missing);
        assert_eq!(w.len(), 1, "{w:?}");
        assert!(
            w[0].to_string()
                .contains("gone.png: warning: texture not found (tried"),
            "{}",
            w[0]
        );
        // A broken `.dds` twin is reported, and the `.png` is used.
        std::fs::write(d.join("wall.dds"), b"DDS rubbish").unwrap();
        let img = load_image(&d.join("wall.png"), &mut w);
        assert!(!img.missing);
        assert_eq!(w.len(), 2, "{w:?}");
        assert!(
            w[1].to_string()
                .contains("wall.dds: offset 11: warning: DDS header truncated"),
            "{}",
            w[1]
        );
        assert!(w[1].message.ends_with("wall.png used instead)"), "{}", w[1]);
        w.remove(1);
        // A broken file is a warning naming it, and a checkerboard.
        std::fs::write(d.join("bad.png"), b"\x89PNG\r\n\x1a\nrubbish").unwrap();
        let img = load_image(&d.join("bad.png"), &mut w);
        assert!(img.missing);
        assert!(
            w[1].to_string()
                .contains("bad.png: warning: PNG cannot be decoded"),
            "{}",
            w[1]
        );
    }

    #[test]
    fn obj8_lods_become_contiguous_index_ranges() {
        let d = tmp("obj8");
        write_png(&d.join("t.png"), 1, 1, |_, _| [9, 9, 9, 255]);
        let src = "A\n800\nOBJ\nTEXTURE t.png\nPOINT_COUNTS 4 0 0 9\n\
VT -1 0 5 0 1 0 0 0\nVT 1 0 5 0 1 0 1 0\nVT 1 4 -2 0 1 0 1 1\nVT -1 4 -2 0 1 0 0 1\n\
IDX 0\nIDX 1\nIDX 2\nIDX 0\nIDX 2\nIDX 3\nIDX 3\nIDX 2\nIDX 1\n\
ATTR_LOD 0 100\nTRIS 0 3\nTRIS 6 3\nATTR_LOD 100 500\nTRIS 3 3\n";
        std::fs::write(d.join("a.obj"), src).unwrap();
        let mut pool = ImagePool::new();
        let mut w = Vec::new();
        let m = load_mesh(&d.join("a.obj"), &mut pool, &mut w);
        assert!(w.is_empty(), "{w:?}");
        assert!(!m.missing);
        assert_eq!(m.indices, vec![0, 1, 2, 3, 2, 1, 0, 2, 3]);
        assert_eq!(
            m.lods,
            vec![
                MeshLod {
                    near: 0.0,
                    far: 100.0,
                    first_index: 0,
                    index_count: 6,
                    material: art::DrawState::default(),
                },
                MeshLod {
                    near: 100.0,
                    far: 500.0,
                    first_index: 6,
                    index_count: 3,
                    material: art::DrawState::default(),
                },
            ]
        );
        assert_eq!(
            (m.bounds_min, m.bounds_max),
            ([-1.0, 0.0, -2.0], [1.0, 4.0, 5.0])
        );
        assert_eq!(m.texture, Some(0));
        assert_eq!(m.vertices[2].uv, [1.0, 1.0]);
    }

    #[test]
    fn wavefront_is_rewound_and_gets_normals() {
        let d = tmp("wf");
        std::fs::write(d.join("q.obj"), "v 0 0 0\nv 1 0 0\nv 1 0 -1\nf 1 2 3\n").unwrap();
        let mut w = Vec::new();
        let m = load_mesh(&d.join("q.obj"), &mut ImagePool::new(), &mut w);
        assert!(!m.missing, "{w:?}");
        // Counter-clockwise seen from +y becomes clockwise.
        assert_eq!(m.indices, vec![0, 2, 1]);
        assert_eq!(m.vertices[0].normal, [0.0, 1.0, 0.0]);
        assert_eq!(
            m.lods,
            vec![MeshLod {
                near: 0.0,
                far: f32::MAX,
                first_index: 0,
                index_count: 3,
                material: art::DrawState::default(),
            }]
        );
    }

    #[test]
    fn missing_and_broken_meshes_are_placeholders() {
        let d = tmp("bad");
        let mut w = Vec::new();
        let m = load_mesh(&d.join("none.obj"), &mut ImagePool::new(), &mut w);
        assert!(m.missing && m.vertices.is_empty());
        assert!(m.bounds_max[1] > 0.0);
        assert!(
            w[0].to_string()
                .ends_with("none.obj: warning: object not found"),
            "{}",
            w[0]
        );
        std::fs::write(
            d.join("b.obj"),
            "A\n800\nOBJ\nPOINT_COUNTS 1 0 0 0\nVT 0 0 x 0 0 0 0 0\n",
        )
        .unwrap();
        let m = load_mesh(&d.join("b.obj"), &mut ImagePool::new(), &mut w);
        assert!(m.missing);
        assert!(w[1].to_string().contains("b.obj:5:8: warning: VT: <z> must be a number, found `x` (drawn as a placeholder box)"), "{}", w[1]);
    }

    #[test]
    fn forest_trees_are_normalised() {
        let d = tmp("for");
        std::fs::write(
            d.join("f.for"),
            "A\n800\nFOREST\nTEXTURE gone.png\nSCALE_X 512\nSCALE_Y 256\nSPACING 10 12\n\
TREE 0 0 128 256 32 50 8 12 2 3 oak\n",
        )
        .unwrap();
        let mut w = Vec::new();
        let f = load_forest(&d.join("f.for"), &mut ImagePool::new(), &mut w);
        assert!(!f.missing);
        assert_eq!(w.len(), 1, "the texture is missing: {w:?}");
        assert_eq!(f.spacing, [10.0, 12.0]);
        let t = &f.trees[0];
        assert_eq!(t.uv, [0.0, 0.0, 0.25, 1.0]);
        assert_eq!(
            (t.height, t.width, t.offset, t.quads, t.layer),
            (10.0, 5.0, 0.25, 2, 3)
        );
        let f = load_forest(&d.join("none.for"), &mut ImagePool::new(), &mut w);
        assert!(f.missing);
    }

    #[test]
    fn facades_give_a_bay_and_a_roof() {
        let d = tmp("fac");
        std::fs::write(
            d.join("v8.fac"),
            "A\n800\nFACADE\nTEXTURE h.png\nTEX_SIZE 512 256\nLOD 0 2000\nROOF 0 128\nROOF 256 256\n\
WALL 4 100 0 360\nSCALE 10 5\nLEFT 0 32\nCENTER 32 288\nBOTTOM 0 64\nMIDDLE 64 128\n",
        )
        .unwrap();
        let mut w = Vec::new();
        let mut pool = ImagePool::new();
        let f = load_facade(&d.join("v8.fac"), &mut pool, &mut w);
        assert!(!f.missing);
        assert_eq!(f.wall_uv, [0.0625, 0.25, 0.5625, 0.5]);
        assert_eq!((f.bay_width, f.floor_height), (5.0, 1.25));
        assert_eq!(f.roof_uv, [0.0, 0.5, 0.5, 1.0]);
        assert_eq!((f.texture, f.roof_texture), (Some(0), Some(0)));
        // The walls are kept for the renderer to lay out, panel by panel.
        assert_eq!(f.lods.len(), 1);
        let wall = &f.lods[0].walls[0];
        assert_eq!(
            (wall.scale, wall.left.len(), wall.center.len()),
            ([10.0, 5.0], 1, 1)
        );
        assert_eq!(f.lods[0].roof, [[0.0, 0.5], [0.5, 1.0]]);
        assert_eq!((f.open, f.two_sided), (false, false));
        assert_eq!((f.floors_min, f.floors_max), (1, 999));
        std::fs::write(
            d.join("fence.fac"),
            "A\n800\nFACADE\nTEXTURE h.png\nRING 0\nTWO_SIDED 1\nFLOORS_MIN 2\nFLOORS_MAX 1\n\
WALL 0 100\nSCALE 4 2\nCENTER 0 1\nMIDDLE 0 1\nWALL 0 100\nSCALE 4 2\nMIDDLE 0 1\n",
        )
        .unwrap();
        let f = load_facade(&d.join("fence.fac"), &mut pool, &mut w);
        assert!(f.open && f.two_sided);
        // FLOORS_MAX below FLOORS_MIN is raised to it; a wall with no panel across is dropped.
        assert_eq!((f.floors_min, f.floors_max), (2, 2));
        assert_eq!(f.lods[0].walls.len(), 1);
        std::fs::write(
            d.join("v10.fac"),
            "A\n1000\nFACADE\nSHADER_WALL\nTEXTURE w.png\nSHADER_ROOF\nTEXTURE r.png\nFLOOR f\n\
SEGMENT 0\nMESH 0 1 0 2 0\nVERTEX 0 0 0 0 0 1 0 0\nVERTEX 0 3 -4 0 0 1 0.5 0.25\n\
SEGMENT 1\nMESH 0 1 0 2 0\nVERTEX 0 0 0 0 0 1 0.5 0\nVERTEX 0 6 -2 0 0 1 1 0.5\n\
WALL 0 100 0 360 w\nSPELLING 1 0\nROOF_HEIGHT 6\n",
        )
        .unwrap();
        let f = load_facade(&d.join("v10.fac"), &mut pool, &mut w);
        assert_eq!(f.wall_uv, [0.5, 0.0, 1.0, 0.5]);
        assert_eq!((f.bay_width, f.floor_height), (2.0, 6.0));
        assert_eq!((f.texture, f.roof_texture), (Some(1), Some(2)));
        // Its meshes have no triangles: nothing to place, so the bay repeats.
        assert!(f.segment_floors.is_empty());
        std::fs::write(
            d.join("v10b.fac"),
            "A\n1000\nFACADE\nSHADER_WALL\nTEXTURE w.png\nFLOOR f\nSEGMENT 0\nMESH 0 1 0 3 3\n\
VERTEX 0 0 0 1 0 0 0 0\nVERTEX 0 0 -4 1 0 0 1 0\nVERTEX 0 3 -4 1 0 0 1 1\nIDX 0 1 2\n\
WALL 0 100 0 360 w\nSPELLING 0 0\nROOF_HEIGHT 3 6\n",
        )
        .unwrap();
        let f = load_facade(&d.join("v10b.fac"), &mut pool, &mut w);
        let fl = &f.segment_floors[0];
        assert_eq!(fl.segments[0].indices, [0, 1, 2]);
        assert_eq!(fl.walls[0].spellings, [vec![0, 0]]);
        assert_eq!(fl.roof_heights, [3.0, 6.0]);
        let f = load_facade(&d.join("none.fac"), &mut pool, &mut w);
        assert!(f.missing && f.bay_width > 0.0);
    }

    #[test]
    fn image_decoding_never_panics_on_any_prefix() {
        let d = tmp("prefix");
        write_png(&d.join("p.png"), 3, 3, |x, y| [x as u8, y as u8, 7, 255]);
        let png = std::fs::read(d.join("p.png")).unwrap();
        let mut dds = dds_header(b"DXT5", 8, 4, 4);
        dds.extend(std::iter::repeat_n(0x5A, 64));
        let mut w = Vec::new();
        for bytes in [&png, &dds] {
            for end in 0..=bytes.len() {
                let _ = decode_image(Path::new("x"), &bytes[..end], &mut w);
            }
        }
    }
}
