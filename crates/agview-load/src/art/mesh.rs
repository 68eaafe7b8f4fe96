//! Meshes: an OBJ8 or Wavefront object ([`crate::format::obj8`]) to a [`MeshArt`], its
//! LODs, materials, draped part and light points.
//!
//! - **Frame.** OBJ8's: +x east, +y up, +z south (so −z is north), meters, and OBJ8's
//!   winding: triangles are clockwise seen from their front. A Wavefront file is read as Y-up
//!   with −Z forward (Blender's default export, three.js, glTF): forward becomes north,
//!   positions pass unchanged, and each triangle's winding is reversed from Wavefront's
//!   counter-clockwise. Missing Wavefront normals are computed (area-weighted smooth).
//! - **LODs.** Each `ATTR_LOD` becomes one [`MeshLod`] whose `TRIS` ranges are copied into
//!   one contiguous index range; a file without `ATTR_LOD` has one LOD from 0 to `f32::MAX`.
//! - **Lights.** `LIGHT_NAMED`, `LIGHT_PARAM` and `LIGHT_CUSTOM` become [`LightArt`] points
//!   with the LOD range they were listed in; named ones look as X-Plane's `lights.txt` says
//!   when it is given, else as [`default_light_look`] says.
//! - **Missing.** A missing or broken mesh gets placeholder bounds of a 2 m cube standing on
//!   the ground, and a warning.

use std::path::Path;

use super::files::{as_warning, read};
use super::image::ImagePool;
use crate::diag::{Diagnostic, Severity};
use crate::format::lights_txt::{self, LightSize, LightsTxt};
use crate::format::obj8;

/// One vertex of a mesh. Axes as OBJ8: +x east, +y up, +z south; meters.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct MeshVertex {
    pub pos: [f32; 3],
    pub normal: [f32; 3],
    pub uv: [f32; 2],
}

/// The material attributes a range of a mesh is drawn with (OBJ8 `ATTR_cull`,
/// `ATTR_no_blend`, `ATTR_shade_flat` and their opposites).
pub use crate::format::obj8::DrawState;

/// How a range is shaded: the material rule's result (`agview_format::material`).
pub use agview_format::material::Material;

/// A range of indices drawn between two camera distances (OBJ8 `ATTR_LOD near far`) with
/// one set of material attributes. An `ATTR_LOD` whose `TRIS` change attributes becomes
/// several ranges with the same distances, in the file's order.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct MeshLod {
    pub near: f32,
    pub far: f32,
    pub first_index: u32,
    pub index_count: u32,
    pub material: DrawState,
    /// Its shading: the material rule applied to the object's declarations and this
    /// range's attributes (`ATTR_shiny_rat`, `ATTR_light_level`).
    pub shading: Material,
}

/// A mesh ready to upload.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct MeshArt {
    pub name: String,
    /// True when the file was missing or unreadable: draw a placeholder box.
    pub missing: bool,
    pub vertices: Vec<MeshVertex>,
    pub indices: Vec<u32>,
    /// At least one LOD when the mesh has geometry.
    pub lods: Vec<MeshLod>,
    /// Index into `ArtSet::images`.
    pub texture: Option<usize>,
    /// OBJ8 `TEXTURE_LIT`: the emissive texture, lit as the sun goes down (index into
    /// `ArtSet::images`). `None` when the file names none or it could not be loaded.
    pub lit_texture: Option<usize>,
    /// OBJ8 `TEXTURE_NORMAL`: the normal map (index into `ArtSet::images`); `None` when the
    /// file names none or it could not be loaded.
    pub normal_texture: Option<usize>,
    /// OBJ8 `TEXTURE_MAP material_gloss` or `gloss`: the material map (index into
    /// `ArtSet::images`); `None` when the file names none or it could not be loaded.
    pub map_texture: Option<usize>,
    /// OBJ8 `LIGHT_NAMED`, `LIGHT_CUSTOM` and `LIGHT_PARAM` points, each with the LOD range
    /// it was listed in.
    pub lights: Vec<LightArt>,
    /// Half-extents and centre of the mesh's bounding box (for placeholders and culling).
    pub bounds_min: [f32; 3],
    pub bounds_max: [f32; 3],
    /// OBJ8 `ATTR_draped` geometry: not part of `lods`; drawn on the terrain like tiles.
    pub draped: Option<DrapedArt>,
}

/// One light point of a mesh: where it is (OBJ8 axes, meters), the LOD range it shows in,
/// and how it looks. Named lights keep their name so the renderer's stage above can look
/// them up (`lights.txt` or the default table, [`crate::format::lights_txt`]).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct LightArt {
    pub pos: [f32; 3],
    /// The LOD range the light was listed in (`near`, `far`; `far` 0 or below `near`: no
    /// limit).
    pub near: f32,
    pub far: f32,
    /// Linear RGB and dimmer (alpha) of the glow.
    pub color: [f32; 4],
    /// Size of the glow in meters (its radius).
    pub size: f32,
    /// Luminous intensity in candela (XP12's unit for lights, XP12.md §4), before the
    /// dimmer.
    pub candela: f32,
}

impl LightArt {
    /// The light's intensity as drawn (cd): its candela times its dimmer. The light
    /// points' glow and an export's point lights both take it from here.
    pub fn intensity(&self) -> f32 {
        self.color[3] * self.candela
    }
}

/// The `ATTR_draped` geometry of a mesh (what follows `ATTR_draped` until `ATTR_no_draped`
/// or the next `ATTR_LOD`): drawn on the terrain like tiles, with its own texture, in its
/// layer group.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct DrapedArt {
    /// Per LOD with draped draws: its distance range and its index range in
    /// `MeshArt::indices` (after the LODs' own ranges).
    pub lods: Vec<MeshLod>,
    /// `TEXTURE_DRAPED`, else the mesh's `TEXTURE`: index into `ArtSet::images`.
    pub texture: Option<usize>,
    /// `ATTR_layer_group_draped`, else `ATTR_layer_group`, else `objects` 0.
    pub layer_group: crate::scene::LayerGroup,
    /// `TEXTURE_DRAPED_NORMAL`, `SPECULAR`, `BUMP_LEVEL`: shaded as a draped polygon.
    pub shading: super::ground::GroundShading,
}

/// What a missing or broken mesh draws: a box of 2 m standing on the ground.
pub(crate) fn placeholder_mesh(path: &Path) -> MeshArt {
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
pub(crate) fn load_lights_txt(path: &Path, warnings: &mut Vec<Diagnostic>) -> Option<LightsTxt> {
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
pub(crate) fn load_mesh_with(
    path: &Path,
    pool: &mut ImagePool,
    lights: Option<&LightsTxt>,
    warnings: &mut Vec<Diagnostic>,
) -> MeshArt {
    let (found, bytes) = match read(path, "object", warnings) {
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

/// A texture loaded when it is named and found (a missing one is warned about and left
/// out).
pub(crate) fn found_image(
    t: Option<&obj8::TextureRef>,
    pool: &mut ImagePool,
    warnings: &mut Vec<Diagnostic>,
) -> Option<usize> {
    t.map(|t| pool.load(&t.path, warnings))
        .filter(|&i| pool.images().get(i).is_some_and(|img| !img.missing))
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
    // The normal map (`TEXTURE_MAP normal`, else `TEXTURE_NORMAL`) and the material map
    // (`TEXTURE_MAP material_gloss` or `gloss`), as the material rule names them: the same;
    // a missing one leaves the mesh's own normals and the rule's constants.
    let declared = o.declared(&DrawState::default());
    let normal_texture = found_image(
        agview_format::material::normal_texture(&declared),
        pool,
        warnings,
    );
    let map_texture = found_image(
        agview_format::material::map_texture(&declared),
        pool,
        warnings,
    );
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
        let mut run: Option<(usize, DrawState)> = None;
        let close =
            |run: Option<(usize, DrawState)>, indices: &Vec<u32>, out: &mut Vec<MeshLod>| {
                if let Some((first, material)) = run {
                    out.push(MeshLod {
                        near: lod.near,
                        far: lod.far,
                        first_index: u32::try_from(first).unwrap_or(u32::MAX),
                        index_count: u32::try_from(indices.len() - first).unwrap_or(u32::MAX),
                        material,
                        shading: agview_format::material::describe(&o.declared(&material)),
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
            None => close(Some((indices.len(), DrawState::default())), indices, out),
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
                material: DrawState::default(),
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
        let declared = o.declared_draped();
        DrapedArt {
            lods: draped_lods,
            texture: t.map(|t| pool.load(&t.path, warnings)),
            layer_group: crate::scene::LayerGroup { name, offset },
            shading: super::ground::GroundShading {
                material: agview_format::material::describe(&declared),
                normal: found_image(declared.texture_normal, pool, warnings),
                normal_scale: o.textures.draped_normal_scale.unwrap_or(1.0),
            },
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
            let (color, size, candela) = light_look(&l.kind, table);
            LightArt {
                pos: l.pos,
                near: lod.near,
                far: lod.far,
                color,
                size,
                candela,
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
        map_texture,
        lights,
        bounds_min,
        bounds_max,
        draped,
    }
}

/// How a light point looks: its linear colour and dimmer, its radius in meters and its
/// intensity in candela. `LIGHT_CUSTOM` says so itself (an XP11 size); a named light
/// (`LIGHT_NAMED`, `LIGHT_PARAM`) takes its billboard's colour and size from `lights.txt`
/// when it has one there (an XP11 `SIZE` the glow's width, so half of it the radius; an XP12
/// candela value its intensity), else the look of [`default_light_look`].
fn light_look(kind: &obj8::LightKind, table: Option<&LightsTxt>) -> ([f32; 4], f32, f32) {
    match kind {
        obj8::LightKind::Custom { rgba, size, .. } => {
            let radius = if size.is_finite() {
                size.clamp(0.05, 50.0)
            } else {
                0.5
            };
            let color = rgba.map(|c| {
                if c.is_finite() {
                    c.clamp(0.0, 1.0)
                } else {
                    0.0
                }
            });
            (color, radius, legacy_candela(radius))
        }
        obj8::LightKind::Named { name, params } => table
            .and_then(|t| t.look(name, params))
            .map(|(c, s)| match s {
                LightSize::Meters(m) => {
                    let radius = (m * 0.5).clamp(0.05, 50.0);
                    (c, radius, legacy_candela(radius))
                }
                LightSize::Candela(cd) => (c, glow_radius(cd), cd),
            })
            .unwrap_or_else(|| default_light_look(name)),
    }
}

/// The intensity (cd) of a light given only an XP11 size: a glow of about 170 nits over
/// its disc (60 cd a square meter of radius), so XP11 art's lights show at night about as
/// they did before agview drew in candela. Not Laminar's (XP11 lights had no unit).
pub(crate) fn legacy_candela(radius_m: f32) -> f32 {
    60.0 * radius_m * radius_m
}

/// The radius (m) a light of `cd` candela is drawn at: half a meter at 750 cd (XP12's
/// taxiway and tail lights), growing with the fourth root (a 40,000 cd landing light 1.4 m).
pub(crate) fn glow_radius(cd: f32) -> f32 {
    if !(cd.is_finite() && cd > 0.0) {
        return 0.5;
    }
    (0.5 * (cd / 750.0).powf(0.25)).clamp(0.1, 4.0)
}

/// The look of a named light without X-Plane's `lights.txt` (see `docs/spec-decisions.md`,
/// "Night lighting" and "Photometric light"): a colour, radius (m) and intensity (cd) by
/// the light's family and colour, read from its name's `_`-separated words as X-Plane 11
/// and 12 spell them (`taxi_g`, `inset_edge_w_rev_sp`, `edge_mirl_y`, `airplane_nav_bb`).
/// The family sets the intensity ([`LIGHT_FAMILIES`]); a colour word (`r`/`red`,
/// `g`/`green`, `b`/`blue`, `y`/`amber`/`yellow`, `w`/`white`) or the family's own colour
/// the tint. The XP11 spill names XP12 removed (`*_sp`) read as their light.
pub(crate) fn default_light_look(name: &str) -> ([f32; 4], f32, f32) {
    let name = name.to_ascii_lowercase();
    let words: Vec<&str> = name.split(['_', '-', ' ']).collect();
    let has = |w: &str| words.contains(&w) || (w.len() > 2 && name.contains(w));
    let family = LIGHT_FAMILIES
        .iter()
        .find(|f| f.words.iter().any(|w| has(w)));
    const COLOURS: &[(&[&str], [f32; 3])] = &[
        (&["r", "red"], [1.0, 0.1, 0.06]),
        (&["g", "green"], [0.1, 1.0, 0.3]),
        (&["b", "blue"], [0.15, 0.35, 1.0]),
        (&["y", "amber", "yellow"], [1.0, 0.7, 0.15]),
        (&["w", "white"], [1.0, 1.0, 1.0]),
    ];
    let colour = COLOURS
        .iter()
        .find(|(ws, _)| ws.iter().any(|w| has(w)))
        .map(|c| c.1);
    let (rgb, cd) = match family {
        Some(f) => (colour.unwrap_or(f.rgb), f.candela),
        None => (colour.unwrap_or([1.0, 0.85, 0.65]), 300.0),
    };
    ([rgb[0], rgb[1], rgb[2], 1.0], glow_radius(cd), cd)
}

/// A family of X-Plane lights (XP12.md §4) by the words of its names: its colour when the
/// name gives none, and its intensity in candela. Intensities are agview's, of the order
/// of XP12's `lights.txt` (tail lights 750 cd, headlights 40,000 cd); the first family whose
/// word the name holds wins.
struct LightFamily {
    words: &'static [&'static str],
    rgb: [f32; 3],
    candela: f32,
}

const LIGHT_FAMILIES: &[LightFamily] = &[
    // Airplane lights (`airplane_*_bb`/`_pm`, XP11 `airplane_*`).
    LightFamily {
        words: &["landing"],
        rgb: [1.0, 0.95, 0.85],
        candela: 40_000.0,
    },
    LightFamily {
        words: &["strobe"],
        rgb: [1.0, 1.0, 1.0],
        candela: 5_000.0,
    },
    LightFamily {
        words: &["beacon"],
        rgb: [1.0, 0.12, 0.05],
        candela: 2_000.0,
    },
    LightFamily {
        words: &["nav"],
        rgb: [1.0, 1.0, 1.0],
        candela: 400.0,
    },
    LightFamily {
        words: &["spot", "flood", "generic"],
        rgb: [1.0, 0.95, 0.85],
        candela: 5_000.0,
    },
    // Runway lights: approach, threshold, touchdown zone, centreline, edge (MIRL/HIRL).
    LightFamily {
        words: &["appch", "approach", "als", "rabbit"],
        rgb: [1.0, 1.0, 1.0],
        candela: 10_000.0,
    },
    LightFamily {
        words: &["thresh", "reil", "end"],
        rgb: [0.1, 1.0, 0.3],
        candela: 5_000.0,
    },
    LightFamily {
        words: &["tdzl", "rcls"],
        rgb: [1.0, 1.0, 1.0],
        candela: 5_000.0,
    },
    LightFamily {
        words: &["edge", "mirl", "hirl", "inset"],
        rgb: [1.0, 1.0, 1.0],
        candela: 2_000.0,
    },
    LightFamily {
        words: &["vasi", "papi"],
        rgb: [1.0, 0.1, 0.06],
        candela: 10_000.0,
    },
    // Taxiways, signs and the carrier's.
    LightFamily {
        words: &["taxi"],
        rgb: [0.1, 1.0, 0.3],
        candela: 300.0,
    },
    LightFamily {
        words: &["carrier", "meatball"],
        rgb: [1.0, 0.7, 0.15],
        candela: 1_000.0,
    },
    // Streets and buildings.
    LightFamily {
        words: &["sodium", "street"],
        rgb: [1.0, 0.62, 0.3],
        candela: 3_000.0,
    },
    LightFamily {
        words: &["obstruction", "tower"],
        rgb: [1.0, 0.1, 0.06],
        candela: 1_500.0,
    },
    // Cars: head and tail lights.
    LightFamily {
        words: &["headlight"],
        rgb: [0.95, 0.95, 1.0],
        candela: 4_000.0,
    },
    LightFamily {
        words: &["taillight", "tail"],
        rgb: [0.9, 0.05, 0.0],
        candela: 750.0,
    },
];

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
            material: DrawState::default(),
            shading: Material::default(),
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

#[cfg(test)]
mod tests {
    use super::super::testing::{tmp, write_png};
    use super::*;

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
                    material: DrawState::default(),
                    shading: Default::default(),
                },
                MeshLod {
                    near: 100.0,
                    far: 500.0,
                    first_index: 6,
                    index_count: 3,
                    material: DrawState::default(),
                    shading: Default::default(),
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
                material: DrawState::default(),
                shading: Default::default(),
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
}
