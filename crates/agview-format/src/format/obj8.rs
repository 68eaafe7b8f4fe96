//! X-Plane OBJ8 objects (`A`/`I`, `800`, `OBJ`). Wavefront `.obj` meshes share the extension
//! and are read in [`super::wavefront`]; [`is_obj8`] tells the two apart by the X-Plane header.
//!
//! An OBJ8 file declares its pools first (`POINT_COUNTS tris lines lights indices`), then
//! lists them (`VT`, `VLINE`, `VLIGHT`, `IDX10`, `IDX`), then draws ranges of the index table
//! (`TRIS offset count`) between attributes. `ATTR_LOD near far` opens a new level of detail;
//! `ATTR_draped` / `ATTR_no_draped` mark the `TRIS` that follow. Axes: +x east, +y up,
//! +z south, meters; triangles wind clockwise seen from their front (XPlane2Blender reverses
//! Blender's counter-clockwise order on export).
//!
//! `ATTR_layer_group` / `ATTR_layer_group_draped` name the layer group draped geometry
//! draws in. The material attributes `ATTR_cull` / `ATTR_no_cull`, `ATTR_blend` /
//! `ATTR_no_blend [cutoff]` / `ATTR_shadow_blend`, `ATTR_shade_flat` / `ATTR_shade_smooth`
//! and `GLOBAL_no_blend` give each `TRIS` its [`DrawState`]. The material declarations
//! (`TEXTURE_NORMAL`, XP12's `TEXTURE_MAP normal|material_gloss|gloss`, `NORMAL_METALNESS`,
//! `GLOBAL_specular`, `GLOBAL_luminance`, `BLEND_GLASS`, `ATTR_shiny_rat`, `ATTR_light_level`'s
//! nits, the draped block's `TEXTURE_DRAPED_NORMAL`, `SPECULAR`, `BUMP_LEVEL`) are kept for the
//! material rule ([`crate::material`]); a bad one is a located warning that costs its line.
//! Detail textures (`DECAL*`, `NORMAL_DECAL*`, `DECAL_LIB`, `TEXTURE_MODULATOR`) are listed in
//! [`Obj8::decals`], not drawn, with one note per file. What a previewer cannot show
//! (animation, lights, manipulators, other attributes) is read past silently; a directive
//! this reader does not know is warned about once per keyword.
//!
//! Real objects run to megabytes, so the `VT`/`IDX10`/`IDX` lines take a fast path: the
//! numbers are scanned straight from the line text without allocating, with a float parser
//! for the plain `-123.456789` form (see [`fast_f32`]). Any line the fast path does not like
//! is parsed again with the checked [`Line`] readers, which report the exact column.

pub use super::text::fast_f32;
// The Wavefront reader lived here once; its old paths (`obj8::parse_wavefront`, …) stay.
pub use super::wavefront::{parse_wavefront, Wavefront, WavefrontMesh};
use std::collections::HashSet;
use std::path::{Component, Path, PathBuf};

use serde::Serialize;

use crate::diag::Diagnostic;
use crate::format::text::{read_header, Line, TextFile};

/// A texture named by an X-Plane text asset (OBJ8, FOR, FAC): the name as written and the
/// file it names, relative to the directory of the asset (backslashes read as slashes).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TextureRef {
    pub name: String,
    pub path: PathBuf,
    pub line: u32,
}

impl TextureRef {
    /// A texture named on `line` of the asset at `asset`.
    pub fn new(asset: &Path, name: &str, line: u32) -> Self {
        TextureRef {
            name: name.to_string(),
            path: relative_to(asset, name),
            line,
        }
    }
}

/// `name` (as an asset writes it, `\` or `/` separated) relative to the directory of `asset`.
pub fn relative_to(asset: &Path, name: &str) -> PathBuf {
    join_name(asset.parent().unwrap_or_else(|| Path::new("")), name)
}

/// `name` (`\` or `/` separated) under `dir`. `..` is resolved lexically where `dir` has a
/// name to drop (`objects/../textures/a.png` is `textures/a.png`), so that two assets naming
/// the same texture from different folders name the same path.
pub fn join_name(dir: &Path, name: &str) -> PathBuf {
    let mut out = dir.to_path_buf();
    for part in name.split(['/', '\\']) {
        match part {
            "" | "." => {}
            ".." => match out.components().next_back() {
                Some(Component::Normal(_)) => {
                    out.pop();
                }
                // The parent of the root is the root.
                Some(Component::RootDir | Component::Prefix(_)) => {}
                _ => out.push(".."),
            },
            p => out.push(crate::format::text::name_path(p)),
        }
    }
    out
}

/// The textures of an object: `TEXTURE`, `TEXTURE_LIT`, `TEXTURE_NORMAL`, `TEXTURE_DRAPED`,
/// and XP12's `TEXTURE_MAP normal|material_gloss|gloss`.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Obj8Textures {
    pub texture: Option<TextureRef>,
    pub lit: Option<TextureRef>,
    pub normal: Option<TextureRef>,
    pub draped: Option<TextureRef>,
    /// `TEXTURE_DRAPED_NORMAL [scale] file`: the draped part's normal map.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub draped_normal: Option<TextureRef>,
    /// `TEXTURE_DRAPED_NORMAL`'s scale (repeats of the normal map over the texture; 1).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub draped_normal_scale: Option<f32>,
    /// `TEXTURE_MAP normal`: the XY normal map (XP12).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub map_normal: Option<TextureRef>,
    /// `TEXTURE_MAP material_gloss`: metalness and gloss (XP12).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub map_material_gloss: Option<TextureRef>,
    /// `TEXTURE_MAP gloss`: gloss alone (XP12).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub map_gloss: Option<TextureRef>,
}

/// The object-wide material declarations besides the textures (see [`crate::material`]).
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Obj8Material {
    /// `NORMAL_METALNESS`: the normal map carries metalness and gloss (XP12 model).
    pub normal_metalness: bool,
    /// `GLOBAL_specular ratio`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub global_specular: Option<f32>,
    /// `GLOBAL_luminance nits` (a trailing `cd` is read as well).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub global_luminance: Option<f32>,
    /// `BLEND_GLASS`.
    pub blend_glass: bool,
    /// `SPECULAR ratio` (the draped part's shader block).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub draped_specular: Option<f32>,
    /// `BUMP_LEVEL ratio` (the draped part's shader block).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bump_level: Option<f32>,
    /// `WEATHER <file>`, `WEATHER_NONE`, `WEATHER_TRANSPARENT` as written (not drawn).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub weather: Option<String>,
}

impl Obj8Material {
    fn is_default(&self) -> bool {
        *self == Obj8Material::default()
    }
}

/// A detail texture line (`DECAL*`, `NORMAL_DECAL*`, `DECAL_LIB`, `TEXTURE_MODULATOR`):
/// read and listed by `dump`, not drawn.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Decal {
    pub keyword: String,
    /// The arguments as written.
    pub args: String,
    pub line: u32,
}

/// `POINT_COUNTS tris lines lights indices`: the sizes of the pools that follow.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct PointCounts {
    pub tris: u32,
    pub lines: u32,
    pub lights: u32,
    pub indices: u32,
    pub line: u32,
}

/// One `VT x y z nx ny nz s t` vertex.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize)]
pub struct Obj8Vertex {
    pub pos: [f32; 3],
    pub normal: [f32; 3],
    pub uv: [f32; 2],
}

/// The material attributes in force at a `TRIS`: X-Plane's draw state. The default is
/// X-Plane's: back faces culled, blended, smooth shading. Every `ATTR_LOD` starts again
/// from the default (or from `GLOBAL_no_blend`'s cutoff); see `docs/spec-decisions.md`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct DrawState {
    /// `ATTR_cull` (the default): back faces are not drawn; `ATTR_no_cull`: both sides are.
    pub cull: bool,
    /// `ATTR_no_blend [cutoff]` (or `GLOBAL_no_blend`): alpha-tested at the cutoff, 0.5
    /// when none is given. `None`: `ATTR_blend` (the default) or `ATTR_shadow_blend`,
    /// alpha-blended.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub alpha_cutoff: Option<f32>,
    /// `ATTR_shade_flat`: one normal per triangle; `ATTR_shade_smooth` (the default): the
    /// vertices' normals.
    pub flat: bool,
    /// `ATTR_shiny_rat ratio` in force (see [`crate::material`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub shiny: Option<f32>,
    /// `ATTR_light_level v1 v2 dataref nits`: the lit texture's brightness (XP12's 4th
    /// argument) in force.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub light_nits: Option<f32>,
}

impl Default for DrawState {
    fn default() -> Self {
        DrawState {
            cull: true,
            alpha_cutoff: None,
            flat: false,
            shiny: None,
            light_nits: None,
        }
    }
}

/// `ATTR_no_blend`'s cutoff when none (or 0, as xptools reads it) is given.
pub const DEFAULT_ALPHA_CUTOFF: f32 = 0.5;

/// One `TRIS offset count`: a range of the index table drawn as triangles.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Draw {
    pub offset: u32,
    pub count: u32,
    /// Drawn after `ATTR_draped` (on the terrain, with `TEXTURE_DRAPED`).
    pub draped: bool,
    /// The material attributes in force.
    pub state: DrawState,
    /// 1-based source line of the `TRIS`.
    pub line: u32,
}

/// A level of detail (`ATTR_LOD near far`) and the draws in it. A file without `ATTR_LOD`
/// has one LOD from 0 to `f32::MAX` with `line` 0.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Lod {
    pub near: f32,
    pub far: f32,
    pub draws: Vec<Draw>,
    /// The light points listed in this LOD (`LIGHT_NAMED`, `LIGHT_PARAM`, `LIGHT_CUSTOM`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub lights: Vec<Light>,
    /// Line of the `ATTR_LOD`, 0 for the implicit LOD.
    pub line: u32,
}

/// A light point: `LIGHT_NAMED name x y z`, `LIGHT_PARAM name x y z params…` or
/// `LIGHT_CUSTOM x y z r g b a s s1 t1 s2 t2 [dataref]`. Position in OBJ8 axes, meters.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Light {
    pub pos: [f32; 3],
    pub kind: LightKind,
    /// 1-based source line.
    pub line: u32,
}

/// What a [`Light`] is: a light of X-Plane's `lights.txt` by name (with the parameters
/// `LIGHT_PARAM` gives it), or one described in full in the object.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub enum LightKind {
    /// `LIGHT_NAMED` (no parameters) and `LIGHT_PARAM` (its parameters as written).
    Named { name: String, params: Vec<String> },
    /// `LIGHT_CUSTOM`: colour and alpha 0..1, size `s` (meters), the texture rectangle of
    /// the glow in X-Plane's light texture, and the dataref that would drive it.
    Custom {
        rgba: [f32; 4],
        size: f32,
        st: [f32; 4],
        dataref: Option<String>,
    },
}

/// A parsed OBJ8 object.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Obj8 {
    pub version: u32,
    pub textures: Obj8Textures,
    pub point_counts: Option<PointCounts>,
    pub vertices: Vec<Obj8Vertex>,
    /// How many `VLINE` / `VLIGHT` vertices the file lists (not drawn by the previewer).
    pub line_vertex_count: u32,
    pub light_vertex_count: u32,
    pub indices: Vec<u32>,
    pub lods: Vec<Lod>,
    /// `ATTR_layer_group <name> [offset]`: the object's layer group, `(name, offset)`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub layer_group: Option<(String, i32)>,
    /// `ATTR_layer_group_draped <name> [offset]`: the layer group of its draped geometry.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub layer_group_draped: Option<(String, i32)>,
    /// The material declarations besides the textures.
    #[serde(skip_serializing_if = "Obj8Material::is_default")]
    pub material: Obj8Material,
    /// Detail textures and modulators, not drawn.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub decals: Vec<Decal>,
    /// The material model the declarations give (`dump` shows it; [`Obj8::material_model`]).
    pub material_model: crate::material::Model,
}

impl Obj8 {
    /// What the object declares about its material for draws in `state`: the input of the
    /// material rule ([`crate::material::describe`]).
    pub fn declared(&self, state: &DrawState) -> crate::material::Declared<'_> {
        let t = &self.textures;
        crate::material::Declared {
            texture_normal: t.normal.as_ref(),
            map_normal: t.map_normal.as_ref(),
            map_material_gloss: t.map_material_gloss.as_ref(),
            map_gloss: t.map_gloss.as_ref(),
            normal_metalness: self.material.normal_metalness,
            specular: self.material.global_specular,
            shiny: state.shiny,
            bump: None,
            luminance: self.material.global_luminance,
            light_level_nits: state.light_nits,
            glass: self.material.blend_glass,
        }
    }

    /// What the object declares for its draped part (`TEXTURE_DRAPED_NORMAL`, `SPECULAR`,
    /// `BUMP_LEVEL`): shaded as a draped polygon is, in the legacy model.
    pub fn declared_draped(&self) -> crate::material::Declared<'_> {
        crate::material::Declared {
            texture_normal: self.textures.draped_normal.as_ref(),
            specular: self.material.draped_specular,
            bump: self.material.bump_level,
            ..Default::default()
        }
    }

    /// The object's material model (as the first draw has it; the model does not change
    /// from draw to draw).
    pub fn material_model(&self) -> crate::material::Model {
        crate::material::describe(&self.declared(&DrawState::default())).model
    }

    /// The layer group the draped geometry draws in: `ATTR_layer_group_draped`, else
    /// `ATTR_layer_group`, else `objects` 0 (see `docs/spec-decisions.md`).
    pub fn draped_layer_group(&self) -> (String, i32) {
        self.layer_group_draped
            .clone()
            .or_else(|| self.layer_group.clone())
            .unwrap_or_else(|| ("objects".to_string(), 0))
    }

    /// Bytes the model holds on the heap (vertex and index pools and draw lists).
    pub fn heap_size(&self) -> usize {
        self.vertices.capacity() * std::mem::size_of::<Obj8Vertex>()
            + self.indices.capacity() * 4
            + self.lods.capacity() * std::mem::size_of::<Lod>()
            + self
                .lods
                .iter()
                .map(|l| l.draws.capacity() * std::mem::size_of::<Draw>())
                .sum::<usize>()
    }
}

/// Shortest possible `VT` line (`VT 0 0 0 0 0 0 0 0\n`): bounds how many vertices the
/// bytes of a file can hold, whatever `POINT_COUNTS` claims.
const MIN_VT_BYTES: usize = 19;
/// Shortest bytes per index (`IDX10 0 0 0 0 0 0 0 0 0 0\n` is 26 bytes for 10).
const MIN_IDX_BYTES: usize = 2;

/// Directives a previewer reads past without a word (exact names).
const KNOWN_SILENT: &[&str] = &[
    "VLINE",
    "VLIGHT",
    "LINES",
    "LIGHTS",
    "COCKPIT_REGION",
    "EMITTER",
    "MAGNET",
    "PARTICLE_SYSTEM",
    "LOAD_CENTER",
    "TILTED",
    "REQUIRE_WET",
    "REQUIRE_DRY",
    "SMOKE_BLACK",
    "SMOKE_WHITE",
    "NO_BLEND",
    "NO_SHADOW",
    "DITHER_ALPHA",
    "slung_load_weight",
    "IF",
    "ELSE",
    "ENDIF",
    "DEBUG",
    "TEXTURE_DETAIL",
    "TEXTURE_CONTROL",
    "TEXTURE_MATERIAL",
    "WETNESS",
    "MATERIAL",
];

/// Prefixes of directive families read past silently (animation, attributes, lights,
/// global material settings, decals).
const KNOWN_PREFIXES: &[&str] = &["ANIM_", "ATTR_", "LIGHT_", "GLOBAL_", "PARTICLE_"];

/// True when `src` starts with an X-Plane header line (`A` or `I` alone on the first line
/// that is not blank or a comment). Wavefront files never do.
pub fn is_obj8(src: &[u8]) -> bool {
    let src = crate::format::text::readable(src);
    let mut tf = TextFile::new(Path::new(""), &src);
    match tf.next() {
        Some(Ok(mut line)) => {
            (line.keyword == "A" || line.keyword == "I") && line.next_token().is_none()
        }
        _ => false,
    }
}

/// Reads an OBJ8 object. `path` names the file in diagnostics and anchors texture paths.
pub fn parse(path: &Path, src: &[u8], warnings: &mut Vec<Diagnostic>) -> Result<Obj8, Diagnostic> {
    let src = crate::format::text::readable(src);
    let mut tf = TextFile::new(path, &src);
    let header = read_header(&mut tf, &[(&[800], "OBJ")])?;
    let mut p = Obj8Parser {
        obj: Obj8 {
            version: header.version,
            textures: Obj8Textures::default(),
            point_counts: None,
            vertices: Vec::new(),
            line_vertex_count: 0,
            light_vertex_count: 0,
            indices: Vec::new(),
            lods: Vec::new(),
            layer_group: None,
            layer_group_draped: None,
            material: Obj8Material::default(),
            decals: Vec::new(),
            material_model: crate::material::Model::Legacy,
        },
        src_len: src.len(),
        draped: false,
        state: DrawState::default(),
        global_cutoff: None,
        warned: HashSet::new(),
    };
    while let Some(line) = tf.next() {
        p.line(line?, warnings)?;
    }
    p.finish(&tf, warnings)
}

struct Obj8Parser {
    obj: Obj8,
    src_len: usize,
    draped: bool,
    /// The material attributes in force.
    state: DrawState,
    /// `GLOBAL_no_blend cutoff`: where every LOD's blending starts.
    global_cutoff: Option<f32>,
    warned: HashSet<String>,
}

impl Obj8Parser {
    fn counts(&self, line: &Line<'_>) -> Result<PointCounts, Diagnostic> {
        self.obj.point_counts.ok_or_else(|| {
            line.error_kw(format!(
                "{} before POINT_COUNTS: the pools must be declared first",
                line.keyword
            ))
        })
    }

    fn line(
        &mut self,
        mut line: Line<'_>,
        warnings: &mut Vec<Diagnostic>,
    ) -> Result<(), Diagnostic> {
        // The three hot directives first.
        match line.keyword {
            "VT" => return self.vt(line, warnings),
            "IDX10" => return self.idx(line, 10, warnings),
            "IDX" => return self.idx(line, 1, warnings),
            _ => {}
        }
        match line.keyword {
            "POINT_COUNTS" => {
                if let Some(pc) = self.obj.point_counts {
                    return Err(line.error_kw(format!(
                        "POINT_COUNTS given twice (first on line {})",
                        pc.line
                    )));
                }
                let pc = PointCounts {
                    tris: line.u32("tris")?,
                    lines: line.u32("lines")?,
                    lights: line.u32("lights")?,
                    indices: line.u32("indices")?,
                    line: line.number,
                };
                line.expect_end(warnings);
                // The counts are only hints for capacity: never reserve more than the rest
                // of the file could hold.
                let vt_cap = (pc.tris as usize).min(self.src_len / MIN_VT_BYTES);
                let idx_cap = (pc.indices as usize).min(self.src_len / MIN_IDX_BYTES);
                self.obj.vertices.reserve_exact(vt_cap);
                self.obj.indices.reserve_exact(idx_cap);
                self.obj.point_counts = Some(pc);
            }
            "TEXTURE" | "TEXTURE_NOWRAP" => self.obj.textures.texture = texture(&line, warnings)?,
            "TEXTURE_LIT" | "TEXTURE_LIT_NOWRAP" => {
                self.obj.textures.lit = texture(&line, warnings)?
            }
            "TEXTURE_NORMAL" | "TEXTURE_NORMAL_NOWRAP" => {
                self.obj.textures.normal = texture(&line, warnings)?
            }
            "TEXTURE_DRAPED" => self.obj.textures.draped = texture(&line, warnings)?,
            "TEXTURE_MAP" => self.texture_map(line, warnings),
            "NORMAL_METALNESS" | "BLEND_GLASS" => {
                if line.keyword == "BLEND_GLASS" {
                    self.obj.material.blend_glass = true;
                } else {
                    self.obj.material.normal_metalness = true;
                }
                line.expect_end(warnings);
            }
            "TEXTURE_DRAPED_NORMAL" => {
                match crate::format::pol::scaled_texture(line.path(), &mut line) {
                    Ok((scale, t)) => {
                        line.expect_end(warnings);
                        self.obj.textures.draped_normal = Some(t);
                        self.obj.textures.draped_normal_scale = scale;
                    }
                    Err(d) => warnings.push(skipped(d)),
                }
            }
            "GLOBAL_specular" | "GLOBAL_luminance" | "ATTR_shiny_rat" | "SPECULAR"
            | "BUMP_LEVEL" => {
                // A bad number costs its own line.
                match material_number(&mut line, warnings) {
                    Ok(v) => match line.keyword {
                        "GLOBAL_specular" => self.obj.material.global_specular = Some(v),
                        "GLOBAL_luminance" => self.obj.material.global_luminance = Some(v),
                        "SPECULAR" => self.obj.material.draped_specular = Some(v),
                        "BUMP_LEVEL" => self.obj.material.bump_level = Some(v),
                        _ => self.state.shiny = Some(v),
                    },
                    Err(d) => warnings.push(skipped(d)),
                }
            }
            "ATTR_light_level" => match light_level(&mut line, warnings) {
                Ok(nits) => self.state.light_nits = nits,
                Err(d) => warnings.push(skipped(d)),
            },
            "ATTR_light_level_reset" => {
                self.state.light_nits = None;
                line.expect_end(warnings);
            }
            "WEATHER" | "WEATHER_NONE" | "WEATHER_TRANSPARENT" => {
                let rest = line
                    .clone()
                    .rest("weather")
                    .unwrap_or("")
                    .trim()
                    .to_string();
                self.obj.material.weather = Some(if rest.is_empty() {
                    line.keyword.to_string()
                } else {
                    format!("{} {rest}", line.keyword)
                });
                line.skip_rest();
            }
            kw if is_decal(kw) => {
                if self.obj.decals.is_empty() {
                    warnings.push(Diagnostic::at_line(
                        crate::diag::Severity::Note,
                        line.path(),
                        line.number,
                        "detail textures (DECAL*, TEXTURE_MODULATOR) are read and listed by `dump`, not drawn",
                    ));
                }
                let args = line.clone().rest("decal").unwrap_or("").trim().to_string();
                line.skip_rest();
                self.obj.decals.push(Decal {
                    keyword: kw.to_string(),
                    args,
                    line: line.number,
                });
            }
            "VLINE" | "VLIGHT" => {
                let pc = self.counts(&line)?;
                let (n, max) = if line.keyword == "VLINE" {
                    (&mut self.obj.line_vertex_count, pc.lines)
                } else {
                    (&mut self.obj.light_vertex_count, pc.lights)
                };
                if *n >= max {
                    return Err(line.error_kw(format!(
                        "more {} lines than POINT_COUNTS declares ({max})",
                        line.keyword
                    )));
                }
                *n += 1;
                for what in ["x", "y", "z", "r", "g", "b"] {
                    line.f32(what)?;
                }
                line.expect_end(warnings);
            }
            "TRIS" => {
                let pc = self.counts(&line)?;
                let off_col = probe(&line);
                let offset = line.u32("offset")?;
                let count = line.u32("count")?;
                line.expect_end(warnings);
                let end = offset as u64 + count as u64;
                if end > pc.indices as u64 {
                    return Err(line.error(
                        off_col,
                        format!(
                            "TRIS {offset} {count} reaches index {end}, past the {} indices POINT_COUNTS declares",
                            pc.indices
                        ),
                    ));
                }
                if count % 3 != 0 {
                    warnings.push(line.warning_kw(format!(
                        "TRIS count {count} is not a multiple of 3; the last {} indices are not drawn",
                        count % 3
                    )));
                }
                let draw = Draw {
                    offset,
                    count,
                    draped: self.draped,
                    state: self.state,
                    line: line.number,
                };
                self.current_lod().draws.push(draw);
            }
            "ATTR_LOD" => {
                let near = line.f32("near")?;
                let far_col = probe(&line);
                let far = line.f32("far")?;
                line.expect_end(warnings);
                if near < 0.0 || far <= near {
                    warnings.push(line.warning(
                        far_col,
                        format!("ATTR_LOD {near} {far}: expected 0 <= near < far; this LOD may never draw"),
                    ));
                }
                self.draped = false;
                self.state = DrawState {
                    alpha_cutoff: self.global_cutoff,
                    ..DrawState::default()
                };
                let only = self.obj.lods.len() == 1;
                match self.obj.lods.last_mut() {
                    // X-Plane's reader (xptools XObj8Read) gives geometry before the first
                    // ATTR_LOD to that first LOD.
                    Some(lod) if lod.line == 0 && only => {
                        lod.near = near;
                        lod.far = far;
                        lod.line = line.number;
                    }
                    _ => self.obj.lods.push(Lod {
                        near,
                        far,
                        draws: Vec::new(),
                        lights: Vec::new(),
                        line: line.number,
                    }),
                }
            }
            "ATTR_draped" => {
                self.draped = true;
                line.expect_end(warnings);
            }
            "ATTR_no_draped" => {
                self.draped = false;
                line.expect_end(warnings);
            }
            "ATTR_cull" | "ATTR_no_cull" => {
                self.state.cull = line.keyword == "ATTR_cull";
                line.expect_end(warnings);
            }
            "ATTR_shade_flat" | "ATTR_shade_smooth" => {
                self.state.flat = line.keyword == "ATTR_shade_flat";
                line.expect_end(warnings);
            }
            "ATTR_blend" => {
                self.state.alpha_cutoff = None;
                line.expect_end(warnings);
            }
            // Blended like ATTR_blend; its cutoff only shapes shadows.
            "ATTR_shadow_blend" | "GLOBAL_shadow_blend" => {
                if line.keyword == "ATTR_shadow_blend" {
                    self.state.alpha_cutoff = None;
                }
                cutoff(&mut line, warnings)?;
                line.expect_end(warnings);
            }
            "ATTR_no_blend" | "GLOBAL_no_blend" => {
                let c = cutoff(&mut line, warnings)?;
                line.expect_end(warnings);
                if line.keyword == "GLOBAL_no_blend" {
                    self.global_cutoff = Some(c);
                }
                self.state.alpha_cutoff = Some(c);
            }
            "ATTR_layer_group" | "ATTR_layer_group_draped" => {
                let draped = line.keyword == "ATTR_layer_group_draped";
                let (name, offset) = line.layer_group(warnings)?;
                let group = Some((name, offset));
                if draped {
                    self.obj.layer_group_draped = group;
                } else {
                    self.obj.layer_group = group;
                }
            }
            "LIGHT_NAMED" | "LIGHT_PARAM" | "LIGHT_CUSTOM" => {
                // A light that cannot be read is skipped with a warning: the object still
                // draws.
                match read_light(&mut line, warnings) {
                    Ok(light) => self.current_lod().lights.push(light),
                    Err(mut d) => {
                        d.severity = crate::diag::Severity::Warning;
                        d.message.push_str("; the light is skipped");
                        warnings.push(d);
                    }
                }
            }
            kw if KNOWN_SILENT.contains(&kw)
                || KNOWN_PREFIXES.iter().any(|p| kw.starts_with(p)) => {}
            kw => {
                if self.warned.insert(kw.to_string()) {
                    warnings.push(line.unknown_directive("OBJ8"));
                }
            }
        }
        Ok(())
    }

    /// `TEXTURE_MAP normal|material_gloss|gloss <file>` (XP12). A kind this reader does not
    /// know is a located warning, and its line is skipped.
    fn texture_map(&mut self, mut line: Line<'_>, warnings: &mut Vec<Diagnostic>) {
        let (kind, col) = match line.word_col("map kind") {
            Ok(k) => k,
            Err(d) => return warnings.push(skipped(d)),
        };
        let slot = match kind {
            "normal" => &mut self.obj.textures.map_normal,
            "material_gloss" => &mut self.obj.textures.map_material_gloss,
            "gloss" => &mut self.obj.textures.map_gloss,
            other => {
                return warnings.push(line.warning(
                    col,
                    format!(
                        "TEXTURE_MAP kind `{other}` is not one of normal, material_gloss, gloss; the line is skipped"
                    ),
                ))
            }
        };
        // A channel token before the file (`TEXTURE_MAP normal RG file`, a fork's form) is
        // read past.
        let mut l = line.clone();
        let channels = |t: &str| t.len() <= 4 && t.bytes().all(|b| b"RGBA".contains(&b));
        if let (Some((t, _)), Some(_)) = (l.next_token(), l.next_token()) {
            if channels(t) {
                line.next_token();
            }
        }
        match line.word("texture file") {
            Ok(name) => {
                line.expect_end(warnings);
                *slot = Some(TextureRef::new(line.path(), name, line.number));
            }
            Err(d) => warnings.push(skipped(d)),
        }
    }

    fn current_lod(&mut self) -> &mut Lod {
        if self.obj.lods.is_empty() {
            self.obj.lods.push(Lod {
                near: 0.0,
                far: f32::MAX,
                draws: Vec::new(),
                lights: Vec::new(),
                line: 0,
            });
        }
        let last = self.obj.lods.len() - 1;
        &mut self.obj.lods[last]
    }

    fn vt(&mut self, mut line: Line<'_>, warnings: &mut Vec<Diagnostic>) -> Result<(), Diagnostic> {
        let pc = self.counts(&line)?;
        if self.obj.vertices.len() >= pc.tris as usize {
            return Err(line.error_kw(format!(
                "more VT lines than POINT_COUNTS declares ({})",
                pc.tris
            )));
        }
        let mut v = [0f32; 8];
        if !fast_floats(after_keyword(&line), &mut v) {
            const WHAT: [&str; 8] = ["x", "y", "z", "nx", "ny", "nz", "s", "t"];
            for (slot, what) in v.iter_mut().zip(WHAT) {
                *slot = line.f32(what)?;
            }
            line.expect_end(warnings);
        }
        self.obj.vertices.push(Obj8Vertex {
            pos: [v[0], v[1], v[2]],
            normal: [v[3], v[4], v[5]],
            uv: [v[6], v[7]],
        });
        Ok(())
    }

    fn idx(
        &mut self,
        mut line: Line<'_>,
        n: usize,
        warnings: &mut Vec<Diagnostic>,
    ) -> Result<(), Diagnostic> {
        let pc = self.counts(&line)?;
        if self.obj.indices.len() + n > pc.indices as usize {
            return Err(line.error_kw(format!(
                "more indices than POINT_COUNTS declares ({})",
                pc.indices
            )));
        }
        let mut buf = [0u32; 10];
        let slots = &mut buf[..n];
        let fast = fast_ints(after_keyword(&line), slots) && slots.iter().all(|&i| i < pc.tris);
        if !fast {
            for slot in slots.iter_mut() {
                let col = probe(&line);
                let i = line.u32("index")?;
                if i >= pc.tris {
                    return Err(line.error(
                        col,
                        format!(
                            "{}: index {i} is past the {} vertices POINT_COUNTS declares",
                            line.keyword, pc.tris
                        ),
                    ));
                }
                *slot = i;
            }
            line.expect_end(warnings);
        }
        self.obj.indices.extend_from_slice(slots);
        Ok(())
    }

    fn finish(
        mut self,
        tf: &TextFile<'_>,
        warnings: &mut Vec<Diagnostic>,
    ) -> Result<Obj8, Diagnostic> {
        let path = tf.path();
        self.obj.material_model = self.obj.material_model();
        // Without POINT_COUNTS nothing can have been listed or drawn.
        let Some(pc) = self.obj.point_counts else {
            return Ok(self.obj);
        };
        let at = |what: String| Diagnostic::warning_at(path, pc.line, 1, what);
        let nv = self.obj.vertices.len();
        if nv < pc.tris as usize {
            warnings.push(at(format!(
                "POINT_COUNTS declares {} VT vertices but the file has {nv}",
                pc.tris
            )));
            if let Some(pos) = self.obj.indices.iter().position(|&i| i as usize >= nv) {
                return Err(tf.error_at_end(format!(
                    "index #{pos} (vertex {}) refers past the {nv} VT lines the file holds",
                    self.obj.indices[pos]
                )));
            }
        }
        for (n, what) in [
            (self.obj.line_vertex_count, ("VLINE", pc.lines)),
            (self.obj.light_vertex_count, ("VLIGHT", pc.lights)),
        ] {
            if n < what.1 {
                warnings.push(at(format!(
                    "POINT_COUNTS declares {} {} vertices but the file has {n}",
                    what.1, what.0
                )));
            }
        }
        let ni = self.obj.indices.len();
        if ni < pc.indices as usize {
            warnings.push(at(format!(
                "POINT_COUNTS declares {} indices but the file has {ni}",
                pc.indices
            )));
            for lod in &self.obj.lods {
                for d in &lod.draws {
                    let end = d.offset as u64 + d.count as u64;
                    if end > ni as u64 {
                        return Err(Diagnostic::error_at(
                            path,
                            d.line,
                            1,
                            format!(
                                "TRIS {} {} reaches index {end}, past the {ni} indices the file holds",
                                d.offset, d.count
                            ),
                        ));
                    }
                }
            }
        }
        self.obj.vertices.shrink_to_fit();
        self.obj.indices.shrink_to_fit();
        Ok(self.obj)
    }
}

/// `TEXTURE [name]`: an empty name means no texture.
fn texture(
    line: &Line<'_>,
    warnings: &mut Vec<Diagnostic>,
) -> Result<Option<TextureRef>, Diagnostic> {
    let mut l = line.clone();
    match l.next_token() {
        None => Ok(None),
        Some((name, _)) => {
            l.expect_end(warnings);
            Ok(Some(TextureRef::new(l.path(), name, l.number)))
        }
    }
}

/// The texture combinations Laminar's exporter refuses (XPlane2Blender `xplane_file.py`):
/// `TEXTURE_NORMAL` with `TEXTURE_MAP normal`, and `TEXTURE_MAP material_gloss` with
/// `TEXTURE_MAP gloss`. A warning each, at the second line; agview draws the XP12 map
/// (`crate::material::normal_texture`, `map_texture`).
pub fn refused_combinations(path: &Path, o: &Obj8) -> Vec<Diagnostic> {
    let t = &o.textures;
    let mut out = Vec::new();
    for (a, b, what, used) in [
        (
            &t.normal,
            &t.map_normal,
            "TEXTURE_NORMAL and TEXTURE_MAP normal",
            "TEXTURE_MAP normal",
        ),
        (
            &t.map_material_gloss,
            &t.map_gloss,
            "TEXTURE_MAP material_gloss and TEXTURE_MAP gloss",
            "TEXTURE_MAP material_gloss",
        ),
    ] {
        if let (Some(a), Some(b)) = (a, b) {
            out.push(Diagnostic::warning_at(
                path,
                a.line.max(b.line),
                1,
                format!(
                    "{what} together: Laminar's exporter refuses the combination; agview draws {used}"
                ),
            ));
        }
    }
    out
}

/// An error on a line that only costs that line: a warning that says so.
fn skipped(mut d: Diagnostic) -> Diagnostic {
    d.severity = crate::diag::Severity::Warning;
    d.message.push_str("; the line is skipped");
    d
}

/// The detail-texture directives (`DECAL_PARAMS`, `NORMAL_DECAL_PARAMS_PROJ`, `DECAL_LIB`,
/// `TEXTURE_MODULATOR`, …).
fn is_decal(kw: &str) -> bool {
    kw.starts_with("DECAL") || kw.starts_with("NORMAL_DECAL") || kw == "TEXTURE_MODULATOR"
}

/// The one number of `GLOBAL_specular`, `GLOBAL_luminance` (which may end in `cd`, as some
/// exporters write it) or `ATTR_shiny_rat`; not below 0.
fn material_number(line: &mut Line<'_>, warnings: &mut Vec<Diagnostic>) -> Result<f32, Diagnostic> {
    let col = probe(line);
    let v = match line.clone().next_token() {
        Some((tok, _)) if tok.len() > 2 && tok.ends_with("cd") => {
            line.next_token();
            crate::format::text::parse_f32(&tok[..tok.len() - 2])
                .filter(|v| v.is_finite())
                .ok_or_else(|| {
                    line.error(
                        col,
                        format!("{}: expected a number, found `{tok}`", line.keyword),
                    )
                })?
        }
        _ => line.f32("value")?,
    };
    line.expect_end(warnings);
    if v < 0.0 {
        return Err(line.error(col, format!("{}: {v} is below 0", line.keyword)));
    }
    Ok(v)
}

/// `ATTR_light_level v1 v2 dataref [nits]`: XP12's brightness in nits, when given.
fn light_level(
    line: &mut Line<'_>,
    warnings: &mut Vec<Diagnostic>,
) -> Result<Option<f32>, Diagnostic> {
    line.f32("v1")?;
    line.f32("v2")?;
    line.word("dataref")?;
    let col = probe(line);
    let nits = line.opt_f32("brightness")?;
    line.expect_end(warnings);
    match nits {
        Some(n) if n <= 0.0 => Err(line.error(
            col,
            format!("ATTR_light_level: brightness {n} must be above 0"),
        )),
        n => Ok(n),
    }
}

/// The optional cutoff of `ATTR_no_blend` and its kin: 0.5 when none or 0 is given (as
/// xptools reads it); a value outside 0..=1 is clamped with a warning.
fn cutoff(line: &mut Line<'_>, warnings: &mut Vec<Diagnostic>) -> Result<f32, Diagnostic> {
    let col = probe(line);
    let Some(c) = line.opt_f32("alpha cutoff")? else {
        return Ok(DEFAULT_ALPHA_CUTOFF);
    };
    if c == 0.0 {
        return Ok(DEFAULT_ALPHA_CUTOFF);
    }
    if !(0.0..=1.0).contains(&c) {
        let clamped = c.clamp(0.0, 1.0);
        warnings.push(line.warning(
            col,
            format!("alpha cutoff {c} is outside 0..1; {clamped} is used"),
        ));
        return Ok(clamped);
    }
    Ok(c)
}

/// The column of the next argument (1 when there is none), without consuming it.
fn probe(line: &Line<'_>) -> u32 {
    line.clone().next_token().map_or(1, |(_, c)| c)
}

/// The text of a line after its keyword.
fn after_keyword<'a>(line: &Line<'a>) -> &'a str {
    let text = line.text();
    let start = (line.keyword.as_ptr() as usize).wrapping_sub(text.as_ptr() as usize);
    text.get(start.saturating_add(line.keyword.len())..)
        .unwrap_or("")
}

/// Splits `s` on ASCII whitespace, stopping at a `#` comment.
struct Tokens<'a> {
    b: &'a [u8],
    i: usize,
}

impl<'a> Iterator for Tokens<'a> {
    type Item = &'a [u8];
    #[inline]
    fn next(&mut self) -> Option<&'a [u8]> {
        let b = self.b;
        let mut i = self.i;
        while i < b.len() && b[i].is_ascii_whitespace() {
            i += 1;
        }
        if i >= b.len() || b[i] == b'#' {
            self.i = b.len();
            return None;
        }
        let start = i;
        while i < b.len() && !b[i].is_ascii_whitespace() {
            i += 1;
        }
        self.i = i;
        Some(&b[start..i])
    }
}

/// Fills `out` with exactly `out.len()` plain decimal floats and nothing after them.
#[inline]
fn fast_floats(s: &str, out: &mut [f32]) -> bool {
    let mut toks = Tokens {
        b: s.as_bytes(),
        i: 0,
    };
    for slot in out.iter_mut() {
        match toks.next().and_then(fast_f32) {
            Some(v) => *slot = v,
            None => return false,
        }
    }
    toks.next().is_none()
}

/// Fills `out` with exactly `out.len()` plain decimal `u32`s and nothing after them.
#[inline]
fn fast_ints(s: &str, out: &mut [u32]) -> bool {
    let mut toks = Tokens {
        b: s.as_bytes(),
        i: 0,
    };
    for slot in out.iter_mut() {
        let Some(tok) = toks.next() else { return false };
        if tok.is_empty() || tok.len() > 10 {
            return false;
        }
        let mut v: u64 = 0;
        for &c in tok {
            if !c.is_ascii_digit() {
                return false;
            }
            v = v * 10 + (c - b'0') as u64;
        }
        match u32::try_from(v) {
            Ok(v) => *slot = v,
            Err(_) => return false,
        }
    }
    toks.next().is_none()
}
/// Reads the rest of a `LIGHT_NAMED`, `LIGHT_PARAM` or `LIGHT_CUSTOM` line.
fn read_light(line: &mut Line<'_>, warnings: &mut Vec<Diagnostic>) -> Result<Light, Diagnostic> {
    let keyword = line.keyword;
    let name = if keyword == "LIGHT_CUSTOM" {
        None
    } else {
        Some(line.word("light name")?.to_string())
    };
    let pos = [line.f32("x")?, line.f32("y")?, line.f32("z")?];
    let kind = match name {
        Some(name) if keyword == "LIGHT_PARAM" => {
            let mut params = Vec::new();
            while let Some((t, _)) = line.next_token() {
                if t.starts_with('#') {
                    break;
                }
                params.push(t.to_string());
            }
            LightKind::Named { name, params }
        }
        Some(name) => {
            line.expect_end(warnings);
            LightKind::Named {
                name,
                params: Vec::new(),
            }
        }
        None => {
            let rgba = [
                line.f32("red")?,
                line.f32("green")?,
                line.f32("blue")?,
                line.f32("alpha")?,
            ];
            let size = line.f32("size")?;
            let st = [
                line.f32("s1")?,
                line.f32("t1")?,
                line.f32("s2")?,
                line.f32("t2")?,
            ];
            let dataref = line
                .next_token()
                .filter(|(t, _)| !t.starts_with('#'))
                .map(|(t, _)| t.to_string());
            if dataref.is_some() {
                line.expect_end(warnings);
            }
            LightKind::Custom {
                rgba,
                size,
                st,
                dataref,
            }
        }
    };
    Ok(Light {
        pos,
        kind,
        line: line.number,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const CUBE: &str = "I\n800\nOBJ\n\nTEXTURE tex/wall.png\nTEXTURE_LIT wall_LIT.png\n\
POINT_COUNTS 4 0 0 12\n\
VT -1.5 0 2.25 0 1 0 0 0\n\
VT 1.5 0 2.25 0 1 0 1 0\n\
VT 1.5 3 2.25 0 1 0 1 1\n\
VT -1.5 3 2.25 0 1 0 0 1 # top-left\n\
IDX10 0 1 2 0 2 3 0 1 2 0\n\
IDX 2\n\
IDX 3\n\
ANIM_begin\n\
ATTR_LOD 0 1000\n\
TRIS 0 6\n\
ATTR_draped\n\
TRIS 6 3\n\
ANIM_end\n\
ATTR_LOD 1000 5000\n\
TRIS 9 3\n\
LIGHT_NAMED airplane_beacon 0 3 0\n";

    fn p(src: &str) -> (Result<Obj8, Diagnostic>, Vec<Diagnostic>) {
        let mut w = Vec::new();
        let r = parse(Path::new("dir/obj.obj"), src.as_bytes(), &mut w);
        (r, w)
    }

    fn err(src: &str) -> String {
        p(src).0.unwrap_err().to_string()
    }

    #[test]
    fn reads_a_typical_object() {
        let (r, w) = p(CUBE);
        let o = r.unwrap();
        assert!(w.is_empty(), "{w:?}");
        assert_eq!(o.vertices.len(), 4);
        assert_eq!(o.vertices[2].pos, [1.5, 3.0, 2.25]);
        assert_eq!(o.vertices[3].uv, [0.0, 1.0]);
        assert_eq!(o.indices, vec![0, 1, 2, 0, 2, 3, 0, 1, 2, 0, 2, 3]);
        let tex = o.textures.texture.unwrap();
        assert_eq!(tex.path, Path::new("dir/tex/wall.png"));
        assert_eq!(tex.line, 5);
        assert_eq!(o.textures.lit.unwrap().name, "wall_LIT.png");
        assert_eq!(o.lods.len(), 2);
        assert_eq!(
            (o.lods[0].near, o.lods[0].far, o.lods[0].line),
            (0.0, 1000.0, 16)
        );
        assert_eq!(
            o.lods[0].draws,
            vec![
                Draw {
                    offset: 0,
                    count: 6,
                    draped: false,
                    state: DrawState::default(),
                    line: 17
                },
                Draw {
                    offset: 6,
                    count: 3,
                    draped: true,
                    state: DrawState::default(),
                    line: 19
                },
            ]
        );
        // ATTR_LOD resets draping.
        assert_eq!(
            o.lods[1].draws,
            vec![Draw {
                offset: 9,
                count: 3,
                draped: false,
                state: DrawState::default(),
                line: 22
            }]
        );
    }

    #[test]
    fn material_attributes_give_each_tris_its_state() {
        let src = "A\n800\nOBJ\nGLOBAL_no_blend 0.3\nPOINT_COUNTS 3 0 0 3\n\
VT 0 0 0 0 1 0 0 0\nVT 1 0 0 0 1 0 0 0\nVT 1 1 0 0 1 0 0 0\nIDX 0\nIDX 1\nIDX 2\n\
TRIS 0 3\n\
ATTR_no_cull\nATTR_blend\nATTR_shade_flat\nTRIS 0 3\n\
ATTR_cull\nATTR_no_blend\nATTR_shade_smooth\nTRIS 0 3\n\
ATTR_no_blend 0.8\nTRIS 0 3\n\
ATTR_no_blend 0\nTRIS 0 3\n\
ATTR_shadow_blend 0.6\nTRIS 0 3\n\
ATTR_LOD 100 200\nTRIS 0 3\n";
        let (r, w) = p(src);
        assert!(w.is_empty(), "{w:?}");
        let o = r.unwrap();
        let states: Vec<DrawState> = o
            .lods
            .iter()
            .flat_map(|l| &l.draws)
            .map(|d| d.state)
            .collect();
        let s = |cull, alpha_cutoff, flat| DrawState {
            cull,
            alpha_cutoff,
            flat,
            ..DrawState::default()
        };
        assert_eq!(
            states,
            vec![
                s(true, Some(0.3), false),
                s(false, None, true),
                s(true, Some(0.5), false),
                s(true, Some(0.8), false),
                s(true, Some(0.5), false),
                s(true, None, false),
                // A new LOD starts from the defaults, GLOBAL_no_blend's cutoff included.
                s(true, Some(0.3), false),
            ]
        );
        // Without any attribute: culled, blended, smooth.
        let o = p(CUBE).0.unwrap();
        assert_eq!(o.lods[0].draws[0].state, s(true, None, false));
    }

    #[test]
    fn bad_material_attributes_are_located() {
        let base = "A\n800\nOBJ\nPOINT_COUNTS 0 0 0 0\n";
        let (r, w) = p(&format!("{base}ATTR_no_blend 2\n"));
        assert_eq!(
            w[0].to_string(),
            "dir/obj.obj:5:15: warning: alpha cutoff 2 is outside 0..1; 1 is used"
        );
        assert!(r.is_ok());
        let e = err(&format!("{base}ATTR_no_blend half\n"));
        assert!(e.starts_with("dir/obj.obj:5:15: error:"), "{e}");
        let (_, w) = p(&format!("{base}ATTR_no_cull 1\n"));
        assert!(
            w[0].to_string().starts_with("dir/obj.obj:5:14: warning:"),
            "{w:?}"
        );
    }

    #[test]
    fn lights_are_kept_per_lod() {
        let src = CUBE.to_string()
            + "LIGHT_PARAM full_custom_halo 1 2 3 0.5 0.4 1 # comment\n\
ATTR_LOD 5000 9000\n\
LIGHT_CUSTOM -1 4 0.5 1 0.8 0.6 1 2.5 0 0 0.5 0.5 sim/lights/on\n\
LIGHT_CUSTOM 0 0 0 1 1 1 1 1 0 0 1 1\n";
        let (r, w) = p(&src);
        let o = r.unwrap();
        assert!(w.is_empty(), "{w:?}");
        assert!(o.lods[0].lights.is_empty());
        let named = &o.lods[1].lights;
        assert_eq!(named.len(), 2);
        assert_eq!(named[0].pos, [0.0, 3.0, 0.0]);
        assert_eq!(
            named[0].kind,
            LightKind::Named {
                name: "airplane_beacon".into(),
                params: vec![]
            }
        );
        assert_eq!(named[0].line, 23);
        assert_eq!(
            named[1].kind,
            LightKind::Named {
                name: "full_custom_halo".into(),
                params: vec!["0.5".into(), "0.4".into(), "1".into()]
            }
        );
        let custom = &o.lods[2].lights;
        assert_eq!((o.lods[2].near, o.lods[2].far), (5000.0, 9000.0));
        assert_eq!(custom[0].pos, [-1.0, 4.0, 0.5]);
        assert_eq!(
            custom[0].kind,
            LightKind::Custom {
                rgba: [1.0, 0.8, 0.6, 1.0],
                size: 2.5,
                st: [0.0, 0.0, 0.5, 0.5],
                dataref: Some("sim/lights/on".into())
            }
        );
        assert!(matches!(
            custom[1].kind,
            LightKind::Custom { dataref: None, .. }
        ));
    }

    #[test]
    fn a_bad_light_is_a_located_warning_and_skipped() {
        let src = CUBE.to_string() + "LIGHT_NAMED street 1 two 3\nLIGHT_CUSTOM 1 2 3 1 1\n";
        let (r, w) = p(&src);
        let o = r.unwrap();
        assert_eq!(o.lods[1].lights.len(), 1, "only the beacon");
        assert_eq!(w.len(), 2, "{w:?}");
        let first = w[0].to_string();
        assert!(first.starts_with("dir/obj.obj:24:"), "{first}");
        assert!(
            first.contains("warning") && first.contains("skipped"),
            "{first}"
        );
        assert!(w[1].to_string().starts_with("dir/obj.obj:25:"), "{}", w[1]);
    }

    #[test]
    fn layer_groups_of_draped_geometry() {
        let base = CUBE.replace(
            "ANIM_begin\n",
            "ATTR_layer_group_draped RUNWAYS -2\nANIM_begin\n",
        );
        let (r, w) = p(&base);
        let o = r.unwrap();
        assert!(w.is_empty(), "{w:?}");
        assert_eq!(o.draped_layer_group(), ("runways".to_string(), -2));
        // ATTR_layer_group alone serves the draped geometry too; the default is objects 0.
        let (r, _) = p(&CUBE.replace("ANIM_begin\n", "ATTR_layer_group markings\nANIM_begin\n"));
        assert_eq!(r.unwrap().draped_layer_group(), ("markings".to_string(), 0));
        assert_eq!(
            p(CUBE).0.unwrap().draped_layer_group(),
            ("objects".to_string(), 0)
        );
        // An unknown name or a bad offset is a warning, not an error.
        let (r, w) = p(&CUBE.replace(
            "ANIM_begin\n",
            "ATTR_layer_group_draped nowhere x\nANIM_begin\n",
        ));
        assert_eq!(r.unwrap().draped_layer_group(), ("nowhere".to_string(), 0));
        assert_eq!(w.len(), 2, "{w:?}");
    }

    #[test]
    fn texture_paths_are_relative_to_the_object() {
        let obj = Path::new("pkg/objects/a.obj");
        assert_eq!(
            relative_to(obj, "../textures\\b.png"),
            Path::new("pkg/textures/b.png")
        );
        assert_eq!(relative_to(obj, "./c.png"), Path::new("pkg/objects/c.png"));
        assert_eq!(
            relative_to(Path::new("a.obj"), "../../d.png"),
            Path::new("../../d.png")
        );
        assert_eq!(
            join_name(Path::new("/x"), "../../e.png"),
            Path::new("/e.png")
        );
    }

    #[test]
    fn no_attr_lod_means_one_lod_to_infinity() {
        let src = "A\n800\nOBJ\nPOINT_COUNTS 3 0 0 3\nVT 0 0 0 0 1 0 0 0\nVT 1 0 0 0 1 0 0 0\nVT 1 1 0 0 1 0 0 0\nIDX 0\nIDX 1\nIDX 2\nTRIS 0 3\n";
        let o = p(src).0.unwrap();
        assert_eq!(o.lods.len(), 1);
        assert_eq!(
            (o.lods[0].near, o.lods[0].far, o.lods[0].line),
            (0.0, f32::MAX, 0)
        );
        assert!(o.textures.texture.is_none());
    }

    #[test]
    fn geometry_before_the_first_lod_joins_it() {
        let src = "A\n800\nOBJ\nPOINT_COUNTS 3 0 0 3\nVT 0 0 0 0 1 0 0 0\nVT 1 0 0 0 1 0 0 0\nVT 1 1 0 0 1 0 0 0\nIDX 0\nIDX 1\nIDX 2\nTRIS 0 3\nATTR_LOD 0 500\nTRIS 0 3\n";
        let o = p(src).0.unwrap();
        assert_eq!(o.lods.len(), 1);
        assert_eq!((o.lods[0].far, o.lods[0].draws.len()), (500.0, 2));
    }

    #[test]
    fn slow_path_reads_exponents_and_whole_floats() {
        let src = "A\n800\nOBJ\nPOINT_COUNTS 1 0 0 1\nVT 1e-3 +2 -.5 0 1 0 0.25 1.\nIDX 0.0\n";
        let o = p(src).0.unwrap();
        assert_eq!(o.vertices[0].pos, [0.001, 2.0, -0.5]);
        assert_eq!(o.vertices[0].uv, [0.25, 1.0]);
        assert_eq!(o.indices, vec![0]);
    }

    #[test]
    fn bad_inputs_give_located_errors() {
        let hdr = "A\n800\nOBJ\n";
        assert!(err("").contains("empty file"));
        assert!(err("A\n800\nOBJX\n").contains("wrong file type"));
        assert!(err("A\n700\nOBJ\n").contains("unsupported version"));
        assert!(err("A\n800\n").contains("truncated header"));
        // VT before POINT_COUNTS
        assert_eq!(
            err(&format!("{hdr}VT 0 0 0 0 0 0 0 0\n")),
            "dir/obj.obj:4:1: error: VT before POINT_COUNTS: the pools must be declared first"
        );
        // Non-numeric and NaN at their column.
        let base = format!("{hdr}POINT_COUNTS 1 0 0 1\n");
        assert_eq!(
            err(&format!("{base}VT 0 0 zz 0 0 0 0 0\n")),
            "dir/obj.obj:5:8: error: VT: <z> must be a number, found `zz`"
        );
        assert_eq!(
            err(&format!("{base}VT 0 0 0 nan 0 0 0 0\n")),
            "dir/obj.obj:5:10: error: VT: <nx> must be a finite number, found `nan`"
        );
        assert_eq!(
            err(&format!("{base}VT 0 0 0 0 0 0 0\n")),
            "dir/obj.obj:5:17: error: VT: missing argument <t>"
        );
        // More VT than declared.
        assert_eq!(
            err(&format!("{base}VT 0 0 0 0 0 0 0 0\nVT 0 0 0 0 0 0 0 0\n")),
            "dir/obj.obj:6:1: error: more VT lines than POINT_COUNTS declares (1)"
        );
        // An index past the vertex table, at its column.
        assert_eq!(
            err(&format!("{base}VT 0 0 0 0 0 0 0 0\nIDX 1\n")),
            "dir/obj.obj:6:5: error: IDX: index 1 is past the 1 vertices POINT_COUNTS declares"
        );
        assert!(err(&format!("{base}IDX -1\n")).contains("5:5: error: IDX: <index> is -1"));
        // More indices than declared.
        assert!(err(&format!(
            "{base}VT 0 0 0 0 0 0 0 0\nIDX10 0 0 0 0 0 0 0 0 0 0\n"
        ))
        .contains("6:1: error: more indices than POINT_COUNTS declares (1)"));
        // A TRIS past the index table.
        assert_eq!(
            err(&format!("{base}VT 0 0 0 0 0 0 0 0\nIDX 0\nTRIS 0 3\n")),
            "dir/obj.obj:7:6: error: TRIS 0 3 reaches index 3, past the 1 indices POINT_COUNTS declares"
        );
        assert!(err(&format!("{base}TRIS 4294967295 4294967295\n"))
            .contains("reaches index 8589934590"));
        assert!(err(&format!("{base}POINT_COUNTS 1 0 0 1\n")).contains("POINT_COUNTS given twice"));
        assert!(err(&format!("{hdr}POINT_COUNTS 1 0 0\n")).contains("missing argument <indices>"));
        assert!(err(&format!("{hdr}POINT_COUNTS 1 0 0 4294967296\n"))
            .contains("outside 0..=4294967295"));
    }

    #[test]
    fn truncated_files_are_caught_at_the_draw() {
        // The indices the TRIS needs are missing: the file was cut short.
        let src = "A\n800\nOBJ\nPOINT_COUNTS 3 0 0 3\nTRIS 0 3\nVT 0 0 0 0 1 0 0 0\nIDX 0\n";
        let (r, w) = p(src);
        assert_eq!(
            r.unwrap_err().to_string(),
            "dir/obj.obj:5:1: error: TRIS 0 3 reaches index 3, past the 1 indices the file holds"
        );
        assert!(w.iter().any(|d| d
            .message
            .contains("declares 3 VT vertices but the file has 1")));
        // Indices that point past the VT lines actually present.
        let src = "A\n800\nOBJ\nPOINT_COUNTS 3 0 0 1\nIDX 2\nVT 0 0 0 0 1 0 0 0\n";
        assert!(p(src)
            .0
            .unwrap_err()
            .to_string()
            .contains("refers past the 1 VT lines"));
    }

    #[test]
    fn huge_point_counts_do_not_allocate() {
        let src =
            "A\n800\nOBJ\nPOINT_COUNTS 2147483648 2147483648 0 4294967295\nVT 0 0 0 0 1 0 0 0\n";
        let (r, w) = p(src);
        let o = r.unwrap();
        assert_eq!(o.vertices.len(), 1);
        assert!(o.vertices.capacity() < 16);
        assert!(o.indices.capacity() < 64);
        assert!(w.iter().any(|d| d
            .message
            .contains("declares 2147483648 VT vertices but the file has 1")));
    }

    #[test]
    fn unknown_directives_warn_once_and_known_ones_are_silent() {
        let src = "A\n800\nOBJ\nFROB 1\nFROB 2\nATTR_shiny_rat 1\nANIM_rotate 1 0 0 0 90 0 1 sim/x\nLIGHT_SPILL_CUSTOM 1 2 3\nGLOBAL_specular 1\nVLINE 0 0 0 1 1 1\n";
        let (r, w) = p(src);
        // VLINE needs POINT_COUNTS: an error, not silence.
        assert!(r
            .unwrap_err()
            .to_string()
            .contains("VLINE before POINT_COUNTS"));
        assert_eq!(w.len(), 1);
        assert_eq!(w[0].to_string(), "dir/obj.obj:4:1: warning: unknown OBJ8 directive `FROB` ignored (further ones are not reported)");
    }

    /// XPlane2Blender's fixture `tests/materials/fixtures/TEXTURE_MAP_normal_material_gloss.obj`
    /// (geometry cut to one triangle), with the other XP12 directives it writes.
    const XP12: &str = "I\n800\nOBJ\n\nTEXTURE\ttexture.png\nTEXTURE_LIT\ttexture_LIT.png\n\
TEXTURE_MAP normal texture_NML.png\nTEXTURE_MAP material_gloss texture_MAT.png\n\
NORMAL_METALNESS\nGLOBAL_specular\t1.0\nGLOBAL_luminance\t6000\nBLEND_GLASS\n\
POINT_COUNTS\t3\t0\t0\t3\n\n\
VT\t-1\t3\t-1\t-1\t-0\t0\t0.625\t0.25\nVT\t-1\t3\t1\t-1\t-0\t0\t0.625\t0\n\
VT\t-1\t1\t1\t-1\t-0\t0\t0.375\t0\n\nIDX\t0\nIDX\t1\nIDX\t2\n\n\
ATTR_shiny_rat\t0.5\nATTR_light_level 0.25 0.75 sim/graphics/animation/sin_wave_2 5678\nTRIS\t0 3\n\n\
# Exported with XPlane2Blender 4.0.0\n";

    #[test]
    fn an_xp12_object_as_laminars_exporter_writes_it_reads_without_a_word() {
        let (r, w) = p(XP12);
        assert!(w.is_empty(), "{w:?}");
        let o = r.unwrap();
        let t = &o.textures;
        assert_eq!(t.map_normal.as_ref().unwrap().name, "texture_NML.png");
        assert_eq!(t.map_normal.as_ref().unwrap().line, 7);
        assert_eq!(
            t.map_material_gloss.as_ref().unwrap().path,
            Path::new("dir/texture_MAT.png")
        );
        assert!(t.map_gloss.is_none() && t.normal.is_none());
        let m = &o.material;
        assert!(m.normal_metalness && m.blend_glass);
        assert_eq!(
            (m.global_specular, m.global_luminance),
            (Some(1.0), Some(6000.0))
        );
        let state = o.lods[0].draws[0].state;
        assert_eq!((state.shiny, state.light_nits), (Some(0.5), Some(5678.0)));
        assert_eq!(o.material_model(), crate::material::Model::Xp12Pbr);
        let mat = crate::material::describe(&o.declared(&state));
        assert_eq!(mat.luminance, 5678.0);
        assert_eq!(mat.blend, crate::material::Blend::Glass);
        // An XP11 object is in the legacy model.
        assert_eq!(
            p(CUBE).0.unwrap().material_model(),
            crate::material::Model::Legacy
        );
    }

    #[test]
    fn texture_map_kinds_and_forms() {
        let base = "A\n800\nOBJ\n";
        let (r, w) = p(&format!(
            "{base}TEXTURE_MAP gloss g.png\nTEXTURE_MAP normal RG n.png\nGLOBAL_luminance 1500cd\n"
        ));
        assert!(w.is_empty(), "{w:?}");
        let o = r.unwrap();
        assert_eq!(o.textures.map_gloss.unwrap().name, "g.png");
        assert_eq!(o.textures.map_normal.unwrap().name, "n.png");
        assert_eq!(o.material.global_luminance, Some(1500.0));
    }

    #[test]
    fn bad_material_lines_cost_only_their_line() {
        let base = "A\n800\nOBJ\n";
        let src = format!(
            "{base}TEXTURE_MAP specular s.png\nTEXTURE_MAP normal\nGLOBAL_specular shiny\n\
GLOBAL_luminance -5\nATTR_shiny_rat\nATTR_light_level 0 1 sim/x zero\n\
ATTR_light_level 0 1 sim/x -2\nTEXTURE_MAP gloss ok.png\n"
        );
        let (r, w) = p(&src);
        let o = r.unwrap();
        let w: Vec<String> = w.iter().map(|d| d.to_string()).collect();
        assert_eq!(w.len(), 7, "{w:#?}");
        assert_eq!(
            w[0],
            "dir/obj.obj:4:13: warning: TEXTURE_MAP kind `specular` is not one of normal, material_gloss, gloss; the line is skipped"
        );
        for (k, line) in (5..=10).enumerate() {
            assert!(
                w[k + 1].starts_with(&format!("dir/obj.obj:{line}:"))
                    && w[k + 1].contains("warning"),
                "{}",
                w[k + 1]
            );
        }
        assert!(w[1].ends_with("the line is skipped"), "{}", w[1]);
        // The rest of the file is read.
        assert_eq!(o.textures.map_gloss.unwrap().name, "ok.png");
        assert_eq!(o.material, Obj8Material::default());
    }

    #[test]
    fn the_refused_combinations_are_found() {
        let (r, _) = p(
            "A\n800\nOBJ\nTEXTURE_NORMAL a.png\nTEXTURE_MAP normal b.png\n\
TEXTURE_MAP gloss c.png\nTEXTURE_MAP material_gloss d.png\n",
        );
        let w: Vec<String> = refused_combinations(Path::new("x.obj"), &r.unwrap())
            .iter()
            .map(|d| d.to_string())
            .collect();
        assert_eq!(w, [
            "x.obj:5:1: warning: TEXTURE_NORMAL and TEXTURE_MAP normal together: Laminar's exporter refuses the combination; agview draws TEXTURE_MAP normal",
            "x.obj:7:1: warning: TEXTURE_MAP material_gloss and TEXTURE_MAP gloss together: Laminar's exporter refuses the combination; agview draws TEXTURE_MAP material_gloss",
        ]);
        assert!(refused_combinations(Path::new("x.obj"), &p(XP12).0.unwrap()).is_empty());
    }

    #[test]
    fn decals_are_listed_with_one_note() {
        let src = "A\n800\nOBJ\nDECAL_LIB lib/g10/decals/road_hwy.dcl\n\
DECAL_PARAMS 6.0 0.0 0 0 0 0 0 0 1 0 0 0 0 0 1 detail.png\n\
NORMAL_DECAL_PARAMS 4 0 0 0 0 0 1 nd.png 0.5\nTEXTURE_MODULATOR mod.png\nWEATHER_TRANSPARENT\n";
        let (r, w) = p(src);
        let o = r.unwrap();
        assert_eq!(w.len(), 1, "{w:?}");
        assert_eq!(w[0].severity, crate::diag::Severity::Note);
        assert!(
            w[0].to_string().starts_with("dir/obj.obj:4: note:"),
            "{}",
            w[0]
        );
        let kws: Vec<&str> = o.decals.iter().map(|d| d.keyword.as_str()).collect();
        assert_eq!(
            kws,
            [
                "DECAL_LIB",
                "DECAL_PARAMS",
                "NORMAL_DECAL_PARAMS",
                "TEXTURE_MODULATOR"
            ]
        );
        assert_eq!(o.decals[0].args, "lib/g10/decals/road_hwy.dcl");
        assert_eq!(o.decals[3].line, 7);
        assert_eq!(o.material.weather.as_deref(), Some("WEATHER_TRANSPARENT"));
    }

    #[test]
    fn tells_obj8_from_wavefront() {
        assert!(is_obj8(b"I\n800\nOBJ\n"));
        assert!(is_obj8(b"\xEF\xBB\xBF# c\nA\r\n800\r\nOBJ\r\n"));
        assert!(!is_obj8(b"# Blender\nmtllib a.mtl\nv 0 0 0\n"));
        assert!(!is_obj8(b"v 0 0 0\n"));
        assert!(!is_obj8(b""));
        assert!(!is_obj8(b"A B\n"));
    }

    /// f32 values one ulp apart, counting across zero.
    fn ulps(a: f32, b: f32) -> u32 {
        let key = |x: f32| {
            let i = x.to_bits() as i32;
            if i < 0 {
                i32::MIN.wrapping_sub(i) as i64
            } else {
                i as i64
            }
        };
        (key(a) - key(b)).unsigned_abs() as u32
    }

    #[test]
    fn fast_float_parser_agrees_with_std() {
        // A fixed xorshift so that the test is reproducible.
        let mut s: u64 = 0x9E37_79B9_7F4A_7C15;
        let mut next = || {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            s
        };
        let mut exact = 0u32;
        let total = 200_000u32;
        for n in 0..total {
            let r = next();
            let int_digits = (r % 7) as usize;
            let frac_digits = ((r >> 8) % 10) as usize;
            let mut t = String::new();
            if (r >> 20) & 1 == 1 {
                t.push('-');
            }
            let mut d = next();
            for _ in 0..int_digits.max(if frac_digits == 0 { 1 } else { 0 }) {
                t.push((b'0' + (d % 10) as u8) as char);
                d /= 10;
            }
            if frac_digits > 0 || n % 5 == 0 {
                t.push('.');
            }
            let mut d = next();
            for _ in 0..frac_digits {
                t.push((b'0' + (d % 10) as u8) as char);
                d /= 10;
            }
            let want: f32 = t.parse().unwrap();
            let got = fast_f32(t.as_bytes()).unwrap_or_else(|| panic!("fast path refused `{t}`"));
            assert!(ulps(got, want) <= 1, "`{t}`: {got} vs {want}");
            if got.to_bits() == want.to_bits() {
                exact += 1;
            }
        }
        // Double rounding is rare: nearly all results are bit-identical.
        assert!(exact as f64 / total as f64 > 0.9999, "{exact}/{total}");
        for (t, v) in [
            ("-0.0", -0.0f32),
            ("0", 0.0),
            ("+1.5", 1.5),
            (".25", 0.25),
            ("7.", 7.0),
        ] {
            assert_eq!(
                fast_f32(t.as_bytes()).map(f32::to_bits),
                Some(v.to_bits()),
                "{t}"
            );
        }
        for t in [
            "",
            "-",
            ".",
            "1e5",
            "nan",
            "inf",
            "1.2.3",
            "12345678901234567890",
            "9007199254740993",
            "0x1",
        ] {
            assert_eq!(fast_f32(t.as_bytes()), None, "{t}");
        }
    }

    #[test]
    fn never_panics_on_any_prefix() {
        let mut w = Vec::new();
        for end in 0..=CUBE.len() {
            let _ = parse(Path::new("t.obj"), &CUBE.as_bytes()[..end], &mut w);
        }
        // Mangled bytes as well.
        let mut bytes = CUBE.as_bytes().to_vec();
        for i in (0..bytes.len()).step_by(7) {
            bytes[i] = bytes[i].wrapping_mul(31).wrapping_add(17);
            let _ = parse(Path::new("t.obj"), &bytes, &mut w);
        }
    }
}
