//! X-Plane facades (`.fac`): type 1 (`800 FACADE`) and type 2 (`1000 FACADE`).
//!
//! A type 1 (v8) facade stretches one texture over a building: per `LOD near far` it lists
//! `WALL`s, each with `SCALE x y` (meters the whole texture covers), horizontal panels
//! `LEFT|CENTER|RIGHT s1 s2` and vertical ones `BOTTOM|MIDDLE|TOP t1 t2`; `ROOF s t` points
//! outline the roof's part of the texture. Panel and roof coordinates are fractions of the
//! texture, or pixels when `TEX_SIZE w h` precedes them; this reader stores them as fractions
//! (as WED's `GetFac` does, dividing by the `TEX_SIZE` in force at that line). Files written
//! for X-Plane 8 have no `WALL`: their wall directives go to an implicit wall (`line` 0).
//!
//! A type 2 (v10) facade is built from meshes: `SHADER_WALL` / `SHADER_ROOF` each followed by
//! a `TEXTURE`; `FLOOR name` holds `SEGMENT n` templates (`MESH`, `VERTEX x y z nx ny nz u v`,
//! `IDX …`), `WALL minw maxw minhdg maxhdg name` rules with `SPELLING seg …` lists of
//! segments, and `ROOF_HEIGHT h …`. In a segment +y is up and z runs along the wall (WED
//! scales segment widths by their z extent).
//!
//! Like WED, the content of a type 2 `LOD` whose near distance is above 0.1 m is read past:
//! it repeats the near geometry at lower detail. Attached objects, roof objects, scrapers and
//! shading settings are read past too; the ones of XP12.md §3 are listed in
//! [`Facade::not_drawn`] ([`NOT_DRAWN`]).
//!
//! XP12 additions (XP12.md §3):
//! - jetway facades tag a type 2 `WALL` with the comment-like lines `#cabin <style_code>` and
//!   `#tunnel <obj> <size_code>` (WED's `GetFac` reads them as directives): [`Facade::cabin`],
//!   [`Facade::tunnels`]. A `#tunnel` without a `#cabin` warns, and, as in WED, the facade is
//!   then no jetway;
//! - 2-point axial (hangar) facades have no public keyword: [`Facade::axial`] holds what
//!   [`AXIAL_RULE`] decides.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::diag::Diagnostic;
use crate::format::obj8::TextureRef;
use crate::format::text::{read_header, Line, TextFile};

/// A parsed facade, type 1 or 2 (`version` 800 or 1000).
#[derive(Debug, Clone, PartialEq, Serialize, Default)]
pub struct Facade {
    pub version: u32,
    /// The wall texture (type 1: the only texture).
    pub wall_texture: Option<TextureRef>,
    /// Type 2: the `TEXTURE` after `SHADER_ROOF`.
    pub roof_texture: Option<TextureRef>,
    /// `TEXTURE_LIT` of the walls (type 1: of the whole facade; type 2: the one after
    /// `SHADER_WALL`, or before any shader).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub lit_texture: Option<TextureRef>,
    /// Type 2: the `TEXTURE_LIT` after `SHADER_ROOF`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub roof_lit_texture: Option<TextureRef>,
    /// `RING 0|1`: whether the outline is closed (default true).
    pub ring: bool,
    pub two_sided: bool,
    pub hard_roof: bool,
    /// Type 1 `DOUBLED`.
    pub doubled: bool,
    /// Type 1 `FLOORS_MIN` / `FLOORS_MAX`.
    pub floors_min: Option<f32>,
    pub floors_max: Option<f32>,
    /// Type 1 `ROOF_HEIGHT`.
    pub roof_height: Option<f32>,
    /// Type 1: levels of detail with their walls.
    pub lods: Vec<FacadeLod>,
    /// Type 2: floors with their segments and walls.
    pub floors: Vec<Floor>,
    /// Type 2 `ROOF_SCALE s t`: meters the roof texture covers.
    pub roof_scale: Option<[f32; 2]>,
    /// Type 2 `OBJ` paths, as written.
    pub objs: Vec<String>,
    /// `NO_ROOF_MESH`: no roof is drawn, whatever the roof directives say.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub no_roof_mesh: bool,
    /// Type 2 `#cabin <style_code>`: the jetway's cabin wall.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cabin: Option<JetwayCabin>,
    /// Type 2 `#tunnel <obj> <size_code>`: the jetway's tunnel walls, in file order.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub tunnels: Vec<JetwayTunnel>,
    /// A 2-point axial facade by [`AXIAL_RULE`] (`None`: an ordinary one).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub axial: Option<AxialFacade>,
    /// The directives of [`NOT_DRAWN`] the file uses: read, not drawn by agview.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub not_drawn: Vec<NotDrawn>,
}

/// `#cabin <style_code>` after a type 2 `WALL`: that wall is a jetway's cabin
/// (`WED_ResourceMgr::GetFac`, XP12.md §3).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct JetwayCabin {
    /// Index of the tagged wall among its floor's `WALL`s (a placement's wall type).
    pub wall: u32,
    /// The apt.dat `1500` style code the facade stands for.
    pub style: i64,
    pub line: u32,
}

/// `#tunnel <obj> <size_code>` after a type 2 `WALL`: that wall is a jetway tunnel, drawn by
/// X-Plane with the named (animated) object.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct JetwayTunnel {
    /// Index of the tagged wall among its floor's `WALL`s.
    pub wall: u32,
    /// The tunnel object, as written.
    pub obj: String,
    /// The apt.dat `1500` size code (0–3: about 20, 26, 36 or 40 m of reach).
    pub size_code: i64,
    pub line: u32,
}

/// A 2-point axial facade (XP12.md §3): placed with its two nodes as the front-to-back axis,
/// its width fixed by its segments.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct AxialFacade {
    /// Meters across the axis: the widest segment's extent across its wall (x).
    pub width: f32,
    /// The rule that recognised it ([`AXIAL_RULE`]), so the dump says why.
    pub rule: &'static str,
}

/// A directive of [`NOT_DRAWN`] in a file: its first line and how many times it occurs.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct NotDrawn {
    pub keyword: String,
    pub line: u32,
    pub count: u32,
}

/// Facade directives of XP12.md §3 (WED's list, and those CR's exporter writes) that agview
/// reads but does not draw. `dump` lists them and `check` notes them once per file.
pub const NOT_DRAWN: &[&str] = &[
    "FACADE_SCRAPER",
    "FACADE_SCRAPER_MODEL",
    "FACADE_SCRAPER_MODEL_OFFSET",
    "OBJ",
    "#obj_wed",
    "SEGMENT_CURVED",
    "ATTACH_DRAPED",
    "ATTACH_GRADED",
    "TWO_SIDED_ROOF",
    "ROOF_TWO_SIDED",
    "NO_WALL_MESH",
    "ROOF_OBJ",
    "ROOF_OBJ_HEADING",
    "LAYER_GROUP_DRAPED",
    "WEATHER",
    "WEATHER_TRANSPARENT",
];

/// Comment words a facade reads as directives, as WED's `GetFac` does.
const TAGS: &[&str] = &["#cabin", "#tunnel", "#obj_wed"];

/// A segment at least this many meters across its wall (its x extent) is a volume, not a
/// fence panel. WED's preview treats a `RING 0` segment over 0.5 m deep as "not a true
/// vertical fence" (`WED_FacadePreview.cpp`); 2 m keeps thick walls and hedges fences.
pub const AXIAL_MIN_DEPTH_M: f32 = 2.0;

/// How agview recognises a 2-point axial facade (**UNCONFIRMED**: Laminar names no keyword;
/// see docs/spec-decisions.md). WED lets a facade be placed with two nodes only when its
/// placement is a chain (`RING 0` and no roof), so an axial hangar is one, and its roof is
/// part of its segments' meshes.
pub const AXIAL_RULE: &str = "UNCONFIRMED: a type 2 facade with RING 0, no ROOF_HEIGHT and no #cabin whose every segment is at least 2 m deep across its wall is a 2-point axial facade";

/// How WED exports a facade placement (`WED_FacadePlacement::GetTopoMode`, GROUND.md §5),
/// decided by the `.fac`, not by the placement's ring.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum FacadeTopology {
    /// It has a roof: a polygon with holes, the outer ring counter-clockwise.
    Area,
    /// `RING 1` (the default) and no roof: each ring closed, in node order.
    Ring,
    /// `RING 0` and no roof: each ring an open chain in node order, its last node kept.
    Chain,
}

impl Facade {
    /// Whether WED counts a roof: `ROOF` points or `ROOF_SCALE` (type 1), `ROOF_HEIGHT`
    /// (type 2), unless `NO_ROOF_MESH`.
    pub fn has_roof(&self) -> bool {
        let roof = self.lods.iter().any(|l| !l.roof.is_empty())
            || self.roof_scale.is_some()
            || self.floors.iter().any(|f| !f.roof_heights.is_empty());
        roof && !self.no_roof_mesh
    }

    /// Whether any `WALL` is defined (type 1 in a `LOD`, type 2 in a `FLOOR`): a facade
    /// without one draws nothing.
    pub fn has_walls(&self) -> bool {
        self.lods.iter().any(|l| !l.walls.is_empty())
            || self.floors.iter().any(|f| !f.walls.is_empty())
    }

    /// [`AXIAL_RULE`]: the facade's width across its axis when it is a 2-point axial one.
    fn axial_width(&self) -> Option<f32> {
        if self.version != 1000 || self.topology() != FacadeTopology::Chain || self.cabin.is_some()
        {
            return None;
        }
        let mut widest = 0.0f32;
        let mut any = false;
        for seg in self.floors.iter().flat_map(|f| &f.segments) {
            let xs = seg
                .meshes
                .iter()
                .flat_map(|m| &m.vertices)
                .map(|v| v.pos[0]);
            let (lo, hi) = xs.fold((f32::MAX, f32::MIN), |(a, b), x| (a.min(x), b.max(x)));
            if lo > hi {
                continue;
            }
            any = true;
            if hi - lo < AXIAL_MIN_DEPTH_M {
                return None;
            }
            widest = widest.max(hi - lo);
        }
        any.then_some(widest)
    }

    /// Whether the facade is a jetway: a `#cabin` and at least one `#tunnel`.
    pub fn is_jetway(&self) -> bool {
        self.cabin.is_some() && !self.tunnels.is_empty()
    }

    /// How WED exports a placement of this facade.
    pub fn topology(&self) -> FacadeTopology {
        if self.has_roof() {
            FacadeTopology::Area
        } else if self.ring {
            FacadeTopology::Ring
        } else {
            FacadeTopology::Chain
        }
    }
}

/// Type 1 `LOD near far` and what it holds.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FacadeLod {
    pub near: f32,
    pub far: f32,
    pub walls: Vec<Wall8>,
    /// `ROOF s t` points, as texture fractions.
    pub roof: Vec<[f32; 2]>,
    /// Line of the `LOD`; 0 for an implicit one.
    pub line: u32,
}

/// A type 1 `WALL min_width max_width [min_heading max_heading [name]]` and its texture
/// panels, as fractions of the texture `[start, end]`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Wall8 {
    pub min_width: f32,
    pub max_width: f32,
    pub min_heading: f32,
    pub max_heading: f32,
    pub name: Option<String>,
    /// `SCALE x y`: meters the whole texture covers horizontally and vertically.
    pub scale: Option<[f32; 2]>,
    pub roof_slope: Option<f32>,
    /// `ROOF_SLOPE deg SLANT`: the sloped top panel keeps its texture length along the
    /// slope (its height is scaled by the cosine) instead of being sheared.
    pub slant: bool,
    pub basement_depth: Option<f32>,
    pub left: Vec<[f32; 2]>,
    pub center: Vec<[f32; 2]>,
    pub right: Vec<[f32; 2]>,
    pub bottom: Vec<[f32; 2]>,
    pub middle: Vec<[f32; 2]>,
    pub top: Vec<[f32; 2]>,
    /// Line of the `WALL`; 0 for the implicit wall of an X-Plane 8 facade.
    pub line: u32,
}

impl Wall8 {
    fn implicit() -> Self {
        Wall8 {
            min_width: 0.0,
            max_width: f32::MAX,
            min_heading: 0.0,
            max_heading: 360.0,
            name: None,
            scale: None,
            roof_slope: None,
            slant: false,
            basement_depth: None,
            left: Vec::new(),
            center: Vec::new(),
            right: Vec::new(),
            bottom: Vec::new(),
            middle: Vec::new(),
            top: Vec::new(),
            line: 0,
        }
    }
}

/// A type 2 `FLOOR name`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Floor {
    pub name: String,
    pub segments: Vec<Segment>,
    /// `SEGMENT_CURVED` templates (kept, not used by the previewer).
    pub curved: Vec<Segment>,
    pub walls: Vec<Wall10>,
    /// `ROOF_HEIGHT h …` in meters.
    pub roof_heights: Vec<f32>,
    /// Line of the `FLOOR`; 0 for an implicit floor.
    pub line: u32,
}

/// A type 2 `SEGMENT n` (or `SEGMENT_CURVED n`): meshes making one piece of wall.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Segment {
    pub index: u32,
    pub meshes: Vec<FacadeMesh>,
    pub line: u32,
}

/// One `VERTEX x y z nx ny nz u v` of a facade mesh.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct FacadeVertex {
    pub pos: [f32; 3],
    pub normal: [f32; 3],
    pub uv: [f32; 2],
}

/// A type 2 `MESH p1 p2 p3 vertex_count index_count` and its `VERTEX` / `IDX` lines.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FacadeMesh {
    /// The three leading parameters (not used by the previewer).
    pub params: [f32; 3],
    pub vertex_count: u32,
    pub index_count: u32,
    pub vertices: Vec<FacadeVertex>,
    pub indices: Vec<u32>,
    pub line: u32,
}

/// A type 2 `WALL min_width max_width min_heading max_heading [name]` and its spellings.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Wall10 {
    pub min_width: f32,
    pub max_width: f32,
    pub min_heading: f32,
    pub max_heading: f32,
    pub name: Option<String>,
    pub spellings: Vec<FacadeSpelling>,
    pub line: u32,
}

/// `SPELLING seg …`: segment indices of the floor, left to right.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FacadeSpelling {
    pub segments: Vec<u32>,
    pub line: u32,
}

/// Read past silently in both types.
const KNOWN_SILENT: &[&str] = &[
    "TEXTURE_LIT",
    "TEXTURE_NORMAL",
    "TEXTURE_DETAIL",
    "TEXTURE_CONTROL",
    "NO_BLEND",
    "BLEND_GLASS",
    "NORMAL_METALNESS",
    "SPECULAR",
    "BUMP_LEVEL",
    "LAYER_GROUP",
    "LAYER_GROUP_DRAPED",
    "ROOF_SCALE",
    "ROOF_OBJ",
    "ROOF_OBJ_HEADING",
    "ATTACH_DRAPED",
    "ATTACH_GRADED",
    "ATTACH_SCRAPER",
    "NO_WALL_MESH",
    "TWO_SIDED_ROOF",
    "HARD_WALL",
    "FACADE_SCRAPER",
    "FACADE_SCRAPER_MODEL",
    "FACADE_SCRAPER_MODEL_OFFSET",
    "FACADE_SCRAPER_PAD",
    "WEATHER",
    "WEATHER_TRANSPARENT",
    "DECAL",
    "DECAL_RGBA",
    "DECAL_KEYED",
    "DECAL_PARAMS",
    "DECAL_PARAMS_PROJ",
    "DECAL_LIB",
    "GRADED",
    "DRAPED",
    "CAP_HEIGHT",
    "BASEMENT_DEPTH",
    "ROOF_TWO_SIDED",
    "#obj_wed",
];

/// Shortest `VERTEX` line and bytes per `IDX` entry: caps on what a declared count may reserve.
const MIN_VERTEX_BYTES: usize = 24;
const MIN_IDX_BYTES: usize = 2;

/// Reads a facade.
pub fn parse(
    path: &Path,
    src: &[u8],
    warnings: &mut Vec<Diagnostic>,
) -> Result<Facade, Diagnostic> {
    let src = crate::format::text::readable(src);
    let mut tf = TextFile::new(path, &src).with_tags(TAGS);
    let header = read_header(&mut tf, &[(&[800, 1000], "FACADE")])?;
    let mut p = FacParser {
        fac: Facade {
            version: header.version,
            ring: true,
            ..Default::default()
        },
        path: path.to_path_buf(),
        src_len: src.len(),
        tex_size: [1.0, 1.0],
        roof_shader: false,
        far_lod: false,
        curved: false,
        warned: HashSet::new(),
    };
    while let Some(line) = tf.next() {
        let mut line = line?;
        p.count_not_drawn(&line);
        if header.version == 1000 {
            p.v10(&mut line, warnings)?;
        } else {
            p.v8(&mut line, warnings)?;
        }
    }
    p.finish(warnings)
}

struct FacParser {
    fac: Facade,
    path: PathBuf,
    src_len: usize,
    /// Type 1 `TEX_SIZE`: panel coordinates are divided by it.
    tex_size: [f32; 2],
    /// Type 2: after `SHADER_ROOF` (until `SHADER_WALL`).
    roof_shader: bool,
    /// Type 2: inside a `LOD` that is not the nearest.
    far_lod: bool,
    /// Type 2: the last segment opened is a `SEGMENT_CURVED`.
    curved: bool,
    warned: HashSet<String>,
}

/// The column of the next argument, without consuming it.
fn probe(line: &Line<'_>) -> u32 {
    line.clone().next_token().map_or(1, |(_, c)| c)
}

/// `RING 1`, `TWO_SIDED 0`…; a flag without its argument reads as set.
fn flag(line: &mut Line<'_>, warnings: &mut Vec<Diagnostic>) -> Result<bool, Diagnostic> {
    let v = if line.at_end() {
        true
    } else {
        line.i64("flag")? != 0
    };
    line.expect_end(warnings);
    Ok(v)
}

/// An optional trailing name (the rest of the line, up to a comment).
fn opt_name(line: &mut Line<'_>) -> Option<String> {
    line.rest("name")
        .ok()
        .map(|n| n.split(" #").next().unwrap_or(n).trim_end().to_string())
}

impl FacParser {
    fn unknown(&mut self, line: &Line<'_>, warnings: &mut Vec<Diagnostic>) {
        if KNOWN_SILENT.contains(&line.keyword) {
            return;
        }
        if self.warned.insert(line.keyword.to_string()) {
            warnings.push(line.unknown_directive("facade"));
        }
    }

    fn texture(
        &mut self,
        line: &mut Line<'_>,
        warnings: &mut Vec<Diagnostic>,
    ) -> Result<TextureRef, Diagnostic> {
        let name = line.word("file")?;
        line.expect_end(warnings);
        Ok(TextureRef::new(line.path(), name, line.number))
    }

    // ---- type 1 ----

    fn lod8(&mut self) -> &mut FacadeLod {
        if self.fac.lods.is_empty() {
            self.fac.lods.push(FacadeLod {
                near: 0.0,
                far: f32::MAX,
                walls: Vec::new(),
                roof: Vec::new(),
                line: 0,
            });
        }
        let n = self.fac.lods.len() - 1;
        &mut self.fac.lods[n]
    }

    fn wall8(&mut self) -> &mut Wall8 {
        let lod = self.lod8();
        if lod.walls.is_empty() {
            lod.walls.push(Wall8::implicit());
        }
        let n = lod.walls.len() - 1;
        &mut lod.walls[n]
    }

    /// Two panel coordinates, divided by the `TEX_SIZE` in force.
    fn pair(
        &self,
        line: &mut Line<'_>,
        vertical: bool,
        warnings: &mut Vec<Diagnostic>,
    ) -> Result<[f32; 2], Diagnostic> {
        let k = self.tex_size[vertical as usize];
        let a = line.f32("start")? / k;
        let b = line.f32("end")? / k;
        line.expect_end(warnings);
        Ok([a, b])
    }

    fn v8(
        &mut self,
        line: &mut Line<'_>,
        warnings: &mut Vec<Diagnostic>,
    ) -> Result<(), Diagnostic> {
        match line.keyword {
            "TEXTURE" => self.fac.wall_texture = Some(self.texture(line, warnings)?),
            "TEXTURE_LIT" => self.fac.lit_texture = Some(self.texture(line, warnings)?),
            "TEX_SIZE" => {
                self.tex_size = [line.positive_f32("width")?, line.positive_f32("height")?];
                line.expect_end(warnings);
            }
            "RING" => self.fac.ring = flag(line, warnings)?,
            "TWO_SIDED" => self.fac.two_sided = flag(line, warnings)?,
            "HARD_ROOF" => self.fac.hard_roof = flag(line, warnings)?,
            "DOUBLED" => self.fac.doubled = flag(line, warnings)?,
            "NO_ROOF_MESH" => self.fac.no_roof_mesh = true,
            "FLOORS_MIN" | "FLOORS_MAX" | "ROOF_HEIGHT" => {
                let v = line.f32("value")?;
                line.expect_end(warnings);
                match line.keyword {
                    "FLOORS_MIN" => self.fac.floors_min = Some(v),
                    "FLOORS_MAX" => self.fac.floors_max = Some(v),
                    _ => self.fac.roof_height = Some(v),
                }
            }
            "LOD" => {
                let near = line.f32("near")?;
                let col = probe(line);
                let far = line.f32("far")?;
                line.expect_end(warnings);
                if near < 0.0 || far <= near {
                    warnings.push(line.warning(
                        col,
                        format!(
                            "LOD {near} {far}: expected 0 <= near < far; this LOD may never draw"
                        ),
                    ));
                }
                self.fac.lods.push(FacadeLod {
                    near,
                    far,
                    walls: Vec::new(),
                    roof: Vec::new(),
                    line: line.number,
                });
            }
            "WALL" => {
                let min_width = line.f32("min width")?;
                let max_width = line.f32("max width")?;
                let (min_heading, max_heading) = if line.at_end() {
                    (0.0, 360.0)
                } else {
                    (line.f32("min heading")?, line.f32("max heading")?)
                };
                let name = opt_name(line);
                let wall = Wall8 {
                    min_width,
                    max_width,
                    min_heading,
                    max_heading,
                    name,
                    line: line.number,
                    ..Wall8::implicit()
                };
                self.lod8().walls.push(wall);
            }
            "SCALE" => {
                let s = [line.positive_f32("x scale")?, line.positive_f32("y scale")?];
                line.expect_end(warnings);
                self.wall8().scale = Some(s);
            }
            "ROOF_SLOPE" => {
                let v = line.f32("slope")?;
                // An optional `SLANT` follows.
                let slant = line.next_token().is_some_and(|(t, _)| t == "SLANT");
                line.expect_end(warnings);
                let w = self.wall8();
                w.roof_slope = Some(v);
                w.slant = slant;
            }
            "BASEMENT_DEPTH" => {
                let v = line.f32("depth")? / self.tex_size[1];
                line.expect_end(warnings);
                self.wall8().basement_depth = Some(v);
            }
            "LEFT" | "CENTER" | "RIGHT" => {
                let pr = self.pair(line, false, warnings)?;
                let w = self.wall8();
                match line.keyword {
                    "LEFT" => w.left.push(pr),
                    "CENTER" => w.center.push(pr),
                    _ => w.right.push(pr),
                }
            }
            "BOTTOM" | "MIDDLE" | "TOP" => {
                let pr = self.pair(line, true, warnings)?;
                let w = self.wall8();
                match line.keyword {
                    "BOTTOM" => w.bottom.push(pr),
                    "MIDDLE" => w.middle.push(pr),
                    _ => w.top.push(pr),
                }
            }
            "ROOF" => {
                let s = line.f32("s")? / self.tex_size[0];
                let t = line.f32("t")? / self.tex_size[1];
                line.expect_end(warnings);
                self.lod8().roof.push([s, t]);
            }
            "#cabin" | "#tunnel" => {
                if self.warned.insert(line.keyword.to_string()) {
                    warnings.push(line.warning_kw(format!(
                        "`{}` tags a jetway wall in type 2 (1000) facades only; ignored",
                        line.keyword
                    )));
                }
            }
            _ => self.unknown(line, warnings),
        }
        Ok(())
    }

    // ---- type 2 ----

    fn floor(&mut self) -> &mut Floor {
        if self.fac.floors.is_empty() {
            self.fac.floors.push(Floor {
                name: String::new(),
                segments: Vec::new(),
                curved: Vec::new(),
                walls: Vec::new(),
                roof_heights: Vec::new(),
                line: 0,
            });
        }
        let n = self.fac.floors.len() - 1;
        &mut self.fac.floors[n]
    }

    /// The segment opened last (`SEGMENT` or `SEGMENT_CURVED`).
    fn segment(&mut self) -> Option<&mut Segment> {
        let curved = self.curved;
        let floor = self.fac.floors.last_mut()?;
        if curved {
            floor.curved.last_mut()
        } else {
            floor.segments.last_mut()
        }
    }

    /// The mesh that `VERTEX` / `IDX` add to.
    fn mesh(&mut self, line: &Line<'_>) -> Result<&mut FacadeMesh, Diagnostic> {
        self.segment()
            .and_then(|s| s.meshes.last_mut())
            .ok_or_else(|| line.error_kw(format!("{} outside a MESH", line.keyword)))
    }

    fn v10(
        &mut self,
        line: &mut Line<'_>,
        warnings: &mut Vec<Diagnostic>,
    ) -> Result<(), Diagnostic> {
        if line.keyword == "LOD" {
            let near = line.f32("near")?;
            let _far = line.f32("far")?;
            line.expect_end(warnings);
            // WED shows only the nearest LOD; the others repeat it at lower detail.
            self.far_lod = near > 0.1;
            return Ok(());
        }
        if self.far_lod {
            return Ok(());
        }
        match line.keyword {
            "SHADER_WALL" => self.roof_shader = false,
            "SHADER_ROOF" => self.roof_shader = true,
            "TEXTURE" => {
                let t = self.texture(line, warnings)?;
                if self.roof_shader {
                    self.fac.roof_texture = Some(t);
                } else {
                    self.fac.wall_texture = Some(t);
                }
            }
            "TEXTURE_LIT" => {
                let t = Some(self.texture(line, warnings)?);
                if self.roof_shader {
                    self.fac.roof_lit_texture = t;
                } else {
                    self.fac.lit_texture = t;
                }
            }
            "RING" => self.fac.ring = flag(line, warnings)?,
            "TWO_SIDED" => self.fac.two_sided = flag(line, warnings)?,
            "HARD_ROOF" => self.fac.hard_roof = flag(line, warnings)?,
            "NO_ROOF_MESH" => self.fac.no_roof_mesh = true,
            "ROOF_SCALE" => {
                let s = line.positive_f32("s scale")?;
                let t = if line.at_end() {
                    s
                } else {
                    line.positive_f32("t scale")?
                };
                line.expect_end(warnings);
                self.fac.roof_scale = Some([s, t]);
            }
            "OBJ" => {
                let name = line.word("file")?;
                line.expect_end(warnings);
                self.fac.objs.push(name.to_string());
            }
            "FLOOR" => {
                let name = line.rest("name").unwrap_or("").to_string();
                self.fac.floors.push(Floor {
                    name,
                    segments: Vec::new(),
                    curved: Vec::new(),
                    walls: Vec::new(),
                    roof_heights: Vec::new(),
                    line: line.number,
                });
            }
            "SEGMENT" | "SEGMENT_CURVED" => {
                let col = probe(line);
                let index = line.u32("segment")?;
                line.expect_end(warnings);
                let curved = line.keyword == "SEGMENT_CURVED";
                self.curved = curved;
                let floor = self.floor();
                let list = if curved {
                    &mut floor.curved
                } else {
                    &mut floor.segments
                };
                if index as usize != list.len() {
                    warnings.push(line.warning(
                        col,
                        format!(
                            "{} {index}: segments are numbered in order; this is number {}",
                            line.keyword,
                            list.len()
                        ),
                    ));
                }
                list.push(Segment {
                    index,
                    meshes: Vec::new(),
                    line: line.number,
                });
            }
            "MESH" => {
                let params = [line.f32("p1")?, line.f32("p2")?, line.f32("p3")?];
                let vertex_count = line.u32("vertex count")?;
                let index_count = line.u32("index count")?;
                line.expect_end(warnings);
                let vcap = (vertex_count as usize).min(self.src_len / MIN_VERTEX_BYTES);
                let icap = (index_count as usize).min(self.src_len / MIN_IDX_BYTES);
                let Some(seg) = self.segment() else {
                    return Err(line.error_kw("MESH outside a SEGMENT"));
                };
                seg.meshes.push(FacadeMesh {
                    params,
                    vertex_count,
                    index_count,
                    vertices: Vec::with_capacity(vcap),
                    indices: Vec::with_capacity(icap),
                    line: line.number,
                });
            }
            "VERTEX" => {
                let mut v = [0f32; 8];
                for (slot, what) in v
                    .iter_mut()
                    .zip(["x", "y", "z", "nx", "ny", "nz", "u", "v"])
                {
                    *slot = line.f32(what)?;
                }
                line.expect_end(warnings);
                let mesh = self.mesh(line)?;
                if mesh.vertices.len() >= mesh.vertex_count as usize {
                    return Err(line.error_kw(format!(
                        "more VERTEX lines than the MESH on line {} declares ({})",
                        mesh.line, mesh.vertex_count
                    )));
                }
                mesh.vertices.push(FacadeVertex {
                    pos: [v[0], v[1], v[2]],
                    normal: [v[3], v[4], v[5]],
                    uv: [v[6], v[7]],
                });
            }
            "IDX" => {
                let l2 = line.clone();
                let mesh = self.mesh(&l2)?;
                while !line.at_end() {
                    let col = probe(line);
                    let i = line.u32("index")?;
                    if i >= mesh.vertex_count {
                        return Err(line.error(
                            col,
                            format!(
                                "IDX: index {i} is past the {} vertices the MESH on line {} declares",
                                mesh.vertex_count, mesh.line
                            ),
                        ));
                    }
                    if mesh.indices.len() >= mesh.index_count as usize {
                        return Err(line.error(
                            col,
                            format!(
                                "IDX: more indices than the MESH on line {} declares ({})",
                                mesh.line, mesh.index_count
                            ),
                        ));
                    }
                    mesh.indices.push(i);
                }
            }
            "WALL" => {
                let wall = Wall10 {
                    min_width: line.f32("min width")?,
                    max_width: line.f32("max width")?,
                    min_heading: line.f32("min heading")?,
                    max_heading: line.f32("max heading")?,
                    name: opt_name(line),
                    spellings: Vec::new(),
                    line: line.number,
                };
                self.floor().walls.push(wall);
            }
            "SPELLING" => {
                let mut segments = Vec::new();
                while !line.at_end() {
                    segments.push(line.u32("segment")?);
                }
                if segments.is_empty() {
                    return Err(line.error_kw("SPELLING: expected at least one segment"));
                }
                let number = line.number;
                let wall = self
                    .fac
                    .floors
                    .last_mut()
                    .and_then(|f| f.walls.last_mut())
                    .ok_or_else(|| line.error_kw("SPELLING before any WALL"))?;
                wall.spellings.push(FacadeSpelling {
                    segments,
                    line: number,
                });
            }
            "ROOF_HEIGHT" => {
                let mut hs = Vec::new();
                while !line.at_end() {
                    hs.push(line.f32("height")?);
                }
                self.floor().roof_heights.extend(hs);
            }
            "#cabin" | "#tunnel" => {
                // A bad tag costs its own line only.
                if let Err(e) = self.jetway_tag(line, warnings) {
                    warnings.push(Diagnostic {
                        severity: crate::diag::Severity::Warning,
                        message: format!("{}; the tag is ignored", e.message),
                        ..e
                    });
                }
            }
            _ => self.unknown(line, warnings),
        }
        Ok(())
    }

    /// Counts a directive of [`NOT_DRAWN`].
    fn count_not_drawn(&mut self, line: &Line<'_>) {
        if !NOT_DRAWN.contains(&line.keyword) {
            return;
        }
        match self
            .fac
            .not_drawn
            .iter_mut()
            .find(|n| n.keyword == line.keyword)
        {
            Some(n) => n.count += 1,
            None => self.fac.not_drawn.push(NotDrawn {
                keyword: line.keyword.to_string(),
                line: line.number,
                count: 1,
            }),
        }
    }

    /// `#cabin <style_code>` or `#tunnel <obj> <size_code>`: tags the last `WALL` read.
    fn jetway_tag(
        &mut self,
        line: &mut Line<'_>,
        warnings: &mut Vec<Diagnostic>,
    ) -> Result<(), Diagnostic> {
        let cabin = line.keyword == "#cabin";
        let (obj, code) = if cabin {
            (None, line.i64("style code")?)
        } else {
            let obj = line.word("tunnel object")?.to_string();
            (Some(obj), line.i64("size code")?)
        };
        line.expect_end(warnings);
        let wall = self
            .fac
            .floors
            .last()
            .and_then(|f| f.walls.len().checked_sub(1))
            .ok_or_else(|| line.warning_kw(format!("{} before any WALL", line.keyword)))?;
        let wall = u32::try_from(wall).unwrap_or(u32::MAX);
        match obj {
            None => {
                self.fac.cabin = Some(JetwayCabin {
                    wall,
                    style: code,
                    line: line.number,
                })
            }
            Some(obj) => self.fac.tunnels.push(JetwayTunnel {
                wall,
                obj,
                size_code: code,
                line: line.number,
            }),
        }
        Ok(())
    }

    fn finish(mut self, warnings: &mut Vec<Diagnostic>) -> Result<Facade, Diagnostic> {
        if let (None, Some(t)) = (&self.fac.cabin, self.fac.tunnels.first()) {
            warnings.push(Diagnostic::warning_at(
                &self.path,
                t.line,
                1,
                "#tunnel without a #cabin: the facade is no jetway and its tunnel tags are ignored (as WED does)",
            ));
        }
        self.fac.axial = self.fac.axial_width().map(|width| AxialFacade {
            width,
            rule: AXIAL_RULE,
        });
        for floor in &self.fac.floors {
            for seg in floor.segments.iter().chain(&floor.curved) {
                for m in &seg.meshes {
                    let nv = m.vertices.len();
                    if nv < m.vertex_count as usize || m.indices.len() < m.index_count as usize {
                        warnings.push(Diagnostic::warning_at(
                            &self.path,
                            m.line,
                            1,
                            format!(
                                "MESH declares {} vertices and {} indices but has {} and {}",
                                m.vertex_count,
                                m.index_count,
                                nv,
                                m.indices.len()
                            ),
                        ));
                        if m.indices.iter().any(|&i| i as usize >= nv) {
                            return Err(Diagnostic::error_at(
                                &self.path,
                                m.line,
                                1,
                                format!(
                                    "MESH: an index refers past the {nv} VERTEX lines it holds"
                                ),
                            ));
                        }
                    }
                }
            }
            for wall in &floor.walls {
                for sp in &wall.spellings {
                    if let Some(&bad) = sp
                        .segments
                        .iter()
                        .find(|&&s| s as usize >= floor.segments.len())
                    {
                        return Err(Diagnostic::error_at(
                            &self.path,
                            sp.line,
                            1,
                            format!(
                                "SPELLING: segment {bad} does not exist; floor `{}` has {}",
                                floor.name,
                                floor.segments.len()
                            ),
                        ));
                    }
                }
            }
        }
        Ok(self.fac)
    }
}

/// Points `(x, y)` of a test face, its normal, and whether it is roof.
type TestFace<const N: usize> = ([(f32, f32); N], [f32; 3], bool);

/// A 2-point axial hangar as the tests write it (a `.fac` in another crate's tests, hence
/// public): 12 m wide (x from −6 to 6), walls 5 m, ridge 7.5 m. Segment 0 is the front end
/// (its face at z = 0 shows the door, the texture's lower left quarter), segment 1 a 6 m
/// bay (side walls in the lower right quarter, roof slopes in the upper half), segment 2 the
/// back end; spellings of one to three bays.
#[doc(hidden)]
pub fn test_hangar_fac(texture: &str) -> String {
    let mut s = format!(
        "A\n1000\nFACADE\n\nSHADER_WALL\nTEXTURE {texture}\nRING 0\nTWO_SIDED 0\n\nLOD 0 5000\nFLOOR hangar\n"
    );
    let door = |x: f32, y: f32| [0.25 * (x + 6.0) / 6.0, 0.5 * y / 7.5];
    let plain = |x: f32, y: f32| [0.5 + 0.25 * (x + 6.0) / 6.0, 0.5 * y / 7.5];
    // An end: a slab 0.3 m deep whose face at z = `front` looks out along its normal.
    let end = |s: &mut String, idx: usize, outer: f32, uv: &dyn Fn(f32, f32) -> [f32; 2]| {
        let inner = if outer == 0.0 { -0.3 } else { 0.0 };
        let n_out = if outer == 0.0 { 1.0 } else { -1.0 };
        s.push_str(&format!("SEGMENT {idx}\nMESH 0 5000 0 10 18\n"));
        let pent = [(-6.0, 0.0), (6.0, 0.0), (6.0, 5.0), (0.0, 7.5), (-6.0, 5.0)];
        for (z, n) in [(outer, n_out), (inner, -n_out)] {
            for (x, y) in pent {
                let [u, v] = uv(x, y);
                s.push_str(&format!("VERTEX {x} {y} {z} 0 0 {n} {u} {v}\n"));
            }
        }
        s.push_str("IDX 0 1 2 0 2 4 4 2 3 5 7 6 5 9 7 9 8 7\n");
    };
    end(&mut s, 0, 0.0, &door);
    s.push_str("SEGMENT 1\nMESH 0 5000 0 16 24\n");
    let k = 2.5f32 / 6.5;
    let c = 6.0f32 / 6.5;
    let quads: [TestFace<4>; 4] = [
        (
            [(-6.0, 0.0), (-6.0, 0.0), (-6.0, 5.0), (-6.0, 5.0)],
            [-1.0, 0.0, 0.0],
            false,
        ),
        (
            [(6.0, 0.0), (6.0, 0.0), (6.0, 5.0), (6.0, 5.0)],
            [1.0, 0.0, 0.0],
            false,
        ),
        (
            [(-6.0, 5.0), (-6.0, 5.0), (0.0, 7.5), (0.0, 7.5)],
            [-k, c, 0.0],
            true,
        ),
        (
            [(6.0, 5.0), (6.0, 5.0), (0.0, 7.5), (0.0, 7.5)],
            [k, c, 0.0],
            true,
        ),
    ];
    for (pts, n, roof) in quads {
        for (i, (x, y)) in pts.into_iter().enumerate() {
            let z = if i == 1 || i == 2 { -6.0 } else { 0.0 };
            let u = 0.5 + 0.5 * (-z / 6.0);
            let v = if roof {
                0.5 + 0.5 * (y - 5.0) / 2.5
            } else {
                0.5 * y / 7.5
            };
            s.push_str(&format!(
                "VERTEX {x} {y} {z} {} {} {} {u} {v}\n",
                n[0], n[1], n[2]
            ));
        }
    }
    s.push_str("IDX 0 1 2 0 2 3 4 5 6 4 6 7 8 9 10 8 10 11 12 13 14 12 14 15\n");
    end(&mut s, 2, -0.3, &plain);
    s.push_str("WALL 8 200 0 360 hangar\nSPELLING 0 1 2\nSPELLING 0 1 1 2\nSPELLING 0 1 1 1 2\n");
    s
}

/// A jetway facade as the tests write it: a tunnel wall (segment 0, a box 3 m wide from
/// 3 m to 6 m up and 4 m long) tagged `#tunnel` for sizes 0 and 1, and a cabin wall
/// (segment 1, a box 4 m wide from 2.5 m to 6.5 m up and 5 m long) tagged `#cabin 0`.
#[doc(hidden)]
pub fn test_jetway_fac(texture: &str) -> String {
    let mut s =
        format!("A\n1000\nFACADE\n\nSHADER_WALL\nTEXTURE {texture}\nRING 0\n\nFLOOR jetway\n");
    let boxed = |s: &mut String, idx: usize, w: f32, y0: f32, y1: f32, len: f32, v0: f32| {
        s.push_str(&format!("SEGMENT {idx}\nMESH 0 5000 0 16 24\n"));
        let h = w / 2.0;
        // Left, right, top, bottom faces along the segment.
        let faces: [TestFace<2>; 4] = [
            ([(-h, y0), (-h, y1)], [-1.0, 0.0, 0.0], false),
            ([(h, y0), (h, y1)], [1.0, 0.0, 0.0], false),
            ([(-h, y1), (h, y1)], [0.0, 1.0, 0.0], false),
            ([(-h, y0), (h, y0)], [0.0, -1.0, 0.0], false),
        ];
        for ([(xa, ya), (xb, yb)], n, _) in faces {
            for (x, y, z, u, v) in [
                (xa, ya, 0.0, 0.0, v0),
                (xa, ya, -len, 1.0, v0),
                (xb, yb, -len, 1.0, v0 + 0.5),
                (xb, yb, 0.0, 0.0, v0 + 0.5),
            ] {
                s.push_str(&format!(
                    "VERTEX {x} {y} {z} {} {} {} {u} {v}\n",
                    n[0], n[1], n[2]
                ));
            }
        }
        s.push_str("IDX 0 1 2 0 2 3 4 5 6 4 6 7 8 9 10 8 10 11 12 13 14 12 14 15\n");
    };
    boxed(&mut s, 0, 3.0, 3.0, 6.0, 4.0, 0.0);
    boxed(&mut s, 1, 4.0, 2.5, 6.5, 5.0, 0.5);
    s.push_str(
        "WALL 0 100 0 360 tunnel_small\n#tunnel jw_tunnel_0.obj 0\nSPELLING 0\n\
WALL 0 100 0 360 tunnel_large\n#tunnel jw_tunnel_1.obj 1\nSPELLING 0\n\
WALL 0 100 0 360 cabin\n#cabin 0\nSPELLING 1\n",
    );
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    const V8: &str = "A\n800\nFACADE\n\nTEXTURE fac/house.png\nRING 1\nTWO_SIDED 0\nFLOORS_MIN 1\nFLOORS_MAX 4\n\
TEX_SIZE 512 256\nLOD 0 2000\nROOF 0 128\nROOF 256 128\nROOF 256 256\nROOF 0 256\n\
WALL 4 100 0 360 front\nSCALE 10 5\nROOF_SLOPE 30 SLANT\nLEFT 0 32\nCENTER 32 224\nRIGHT 224 256\n\
BOTTOM 0 64\nMIDDLE 64 96\nTOP 96 128\nLOD 2000 10000\nWALL 0 1000\nSCALE 20 10\nCENTER 0 256\n";

    const V10: &str = "A\n1000\nFACADE\n\nSHADER_WALL\nTEXTURE wall.png\nSHADER_ROOF\nTEXTURE roof.png\n\
ROOF_SCALE 20 20\nRING 0\nLOD 0 10000\nFLOOR ground floor\nSEGMENT 0\nMESH 0 10000 0 4 6\n\
VERTEX 0 0 0 0 0 -1 0 0\nVERTEX 0 0 -4 0 0 -1 0.5 0\nVERTEX 0 3 -4 0 0 -1 0.5 0.25\nVERTEX 0 3 0 0 0 -1 0 0.25\n\
IDX 0 1 2 0 2 3\nATTACH_DRAPED 0 1 0 -2 0\nSEGMENT 1\nMESH 0 10000 0 3 3\nVERTEX 0 0 0 0 0 -1 0 0\n\
VERTEX 0 0 -2 0 0 -1 0.25 0\nVERTEX 0 3 -2 0 0 -1 0.25 0.25\nIDX 0 1 2\nSEGMENT_CURVED 0\n\
WALL 0 1000 0 360 front\nSPELLING 0 1 0\nSPELLING 1\nROOF_HEIGHT 3 6\nOBJ lib/ac.obj\n\
LOD 10000 20000\nFLOOR far\nSEGMENT 0\n";

    fn p(src: &str) -> (Result<Facade, Diagnostic>, Vec<Diagnostic>) {
        let mut w = Vec::new();
        let r = parse(Path::new("a/b.fac"), src.as_bytes(), &mut w);
        (r, w)
    }

    fn err(src: &str) -> String {
        p(src).0.unwrap_err().to_string()
    }

    #[test]
    fn reads_a_type_1_facade() {
        let (r, w) = p(V8);
        let f = r.unwrap();
        assert!(w.is_empty(), "{w:?}");
        assert_eq!(f.version, 800);
        assert_eq!(f.wall_texture.unwrap().path, Path::new("a/fac/house.png"));
        assert!(f.ring && !f.two_sided);
        assert_eq!((f.floors_min, f.floors_max), (Some(1.0), Some(4.0)));
        assert_eq!(f.lods.len(), 2);
        let lod = &f.lods[0];
        assert_eq!((lod.near, lod.far, lod.line), (0.0, 2000.0, 11));
        // Pixels become fractions of TEX_SIZE.
        assert_eq!(
            lod.roof,
            vec![[0.0, 0.5], [0.5, 0.5], [0.5, 1.0], [0.0, 1.0]]
        );
        let wall = &lod.walls[0];
        assert_eq!(
            (wall.min_width, wall.max_width, wall.line),
            (4.0, 100.0, 16)
        );
        assert_eq!(wall.name.as_deref(), Some("front"));
        assert_eq!(wall.scale, Some([10.0, 5.0]));
        assert_eq!(wall.roof_slope, Some(30.0));
        assert!(wall.slant);
        assert_eq!(wall.left, vec![[0.0, 0.0625]]);
        assert_eq!(wall.center, vec![[0.0625, 0.4375]]);
        assert_eq!(wall.bottom, vec![[0.0, 0.25]]);
        assert_eq!(wall.top, vec![[0.375, 0.5]]);
        let far = &f.lods[1].walls[0];
        assert_eq!(
            (far.min_heading, far.max_heading, far.scale),
            (0.0, 360.0, Some([20.0, 10.0]))
        );
    }

    #[test]
    fn the_walls_and_the_roofs_lit_textures_are_kept() {
        let f = p("A\n800\nFACADE\nTEXTURE t.png\nTEXTURE_LIT t_LIT.png\n")
            .0
            .unwrap();
        assert_eq!(f.lit_texture.unwrap().name, "t_LIT.png");
        let f = p(
            "A\n1000\nFACADE\nSHADER_ROOF\nTEXTURE r.png\nTEXTURE_LIT r_LIT.png\n\
SHADER_WALL\nTEXTURE w.png\nTEXTURE_LIT w_LIT.png\n",
        )
        .0
        .unwrap();
        assert_eq!(
            f.lit_texture.unwrap().name,
            "w_LIT.png",
            "the walls', not the roof's"
        );
        // The roof's is its own.
        assert_eq!(f.roof_lit_texture.unwrap().name, "r_LIT.png");
    }

    #[test]
    fn x_plane_8_facades_get_an_implicit_wall() {
        let f = p("A\n800\nFACADE\nTEXTURE t.png\nSCALE 8 4\nCENTER 0 1\nMIDDLE 0 0.5\n")
            .0
            .unwrap();
        assert_eq!(f.lods.len(), 1);
        assert_eq!(f.lods[0].line, 0);
        let w = &f.lods[0].walls[0];
        assert_eq!((w.line, w.scale), (0, Some([8.0, 4.0])));
        assert_eq!(w.middle, vec![[0.0, 0.5]]);
    }

    #[test]
    fn reads_a_type_2_facade() {
        let (r, w) = p(V10);
        let f = r.unwrap();
        assert!(w.is_empty(), "{w:?}");
        assert_eq!(f.wall_texture.unwrap().name, "wall.png");
        assert_eq!(f.roof_texture.unwrap().path, Path::new("a/roof.png"));
        assert_eq!(f.roof_scale, Some([20.0, 20.0]));
        assert!(!f.ring);
        assert_eq!(f.objs, vec!["lib/ac.obj".to_string()]);
        // The far LOD is read past.
        assert_eq!(f.floors.len(), 1);
        let fl = &f.floors[0];
        assert_eq!((fl.name.as_str(), fl.line), ("ground floor", 12));
        assert_eq!(fl.segments.len(), 2);
        assert_eq!(fl.curved.len(), 1);
        let m = &fl.segments[0].meshes[0];
        assert_eq!((m.vertices.len(), m.indices.len()), (4, 6));
        assert_eq!(m.vertices[2].pos, [0.0, 3.0, -4.0]);
        assert_eq!(m.vertices[2].uv, [0.5, 0.25]);
        assert_eq!(fl.walls[0].name.as_deref(), Some("front"));
        assert_eq!(fl.walls[0].spellings[0].segments, vec![0, 1, 0]);
        assert_eq!(fl.walls[0].spellings[1].line, 30);
        assert_eq!(fl.roof_heights, vec![3.0, 6.0]);
    }

    #[test]
    fn bad_inputs_give_located_errors() {
        assert!(err("A\n900\nFACADE\n").contains("unsupported version"));
        assert!(err("A\n800\nFOREST\n").contains("wrong file type"));
        assert!(err("I\n").contains("truncated header"));
        let h8 = "A\n800\nFACADE\n";
        assert_eq!(
            err(&format!("{h8}TEX_SIZE 512 0\n")),
            "a/b.fac:4:14: error: TEX_SIZE: <height> must be greater than 0, found 0"
        );
        assert_eq!(
            err(&format!("{h8}WALL 1 2\nCENTER 0 nan\n")),
            "a/b.fac:5:10: error: CENTER: <end> must be a finite number, found `nan`"
        );
        assert!(err(&format!("{h8}SCALE ten 5\n"))
            .contains("4:7: error: SCALE: <x scale> must be a number"));
        assert!(err(&format!("{h8}ROOF 1\n")).contains("missing argument <t>"));
        let h = "A\n1000\nFACADE\nFLOOR f\nSEGMENT 0\n";
        assert_eq!(
            err(&format!("{h}VERTEX 0 0 0 0 0 0 0 0\n")),
            "a/b.fac:6:1: error: VERTEX outside a MESH"
        );
        assert_eq!(
            err("A\n1000\nFACADE\nMESH 0 0 0 1 1\n"),
            "a/b.fac:4:1: error: MESH outside a SEGMENT"
        );
        assert_eq!(
            err(&format!(
                "{h}MESH 0 1 0 1 3\nVERTEX 0 0 0 0 1 0 0 0\nIDX 0 1\n"
            )),
            "a/b.fac:8:7: error: IDX: index 1 is past the 1 vertices the MESH on line 6 declares"
        );
        assert!(err(&format!(
            "{h}MESH 0 1 0 1 1\nVERTEX 0 0 0 0 1 0 0 0\nVERTEX 0 0 0 0 1 0 0 0\n"
        ))
        .contains("8:1: error: more VERTEX lines than the MESH on line 6 declares (1)"));
        assert!(
            err(&format!("{h}MESH 0 1 0 3 1\nIDX 0 0\n")).contains("7:7: error: IDX: more indices")
        );
        assert_eq!(
            err(&format!("{h}SPELLING 0\n")),
            "a/b.fac:6:1: error: SPELLING before any WALL"
        );
        assert_eq!(
            err(&format!("{h}WALL 0 10 0 360 w\nSPELLING 0 3\n")),
            "a/b.fac:7:1: error: SPELLING: segment 3 does not exist; floor `f` has 1"
        );
        assert!(err(&format!("{h}WALL 0 10 0 360 w\nSPELLING\n"))
            .contains("expected at least one segment"));
        // A mesh cut short: its indices point past the vertices present.
        let (r, w) = p(&format!(
            "{h}MESH 0 1 0 3 3\nVERTEX 0 0 0 0 1 0 0 0\nIDX 0 1 2\n"
        ));
        assert_eq!(
            r.unwrap_err().to_string(),
            "a/b.fac:6:1: error: MESH: an index refers past the 1 VERTEX lines it holds"
        );
        assert!(w[0]
            .message
            .contains("MESH declares 3 vertices and 3 indices but has 1 and 3"));
    }

    #[test]
    fn huge_mesh_counts_do_not_allocate() {
        let (r, w) = p("A\n1000\nFACADE\nFLOOR f\nSEGMENT 0\nMESH 0 1 0 4294967295 4294967295\n");
        let f = r.unwrap();
        let m = &f.floors[0].segments[0].meshes[0];
        assert!(m.vertices.capacity() < 16 && m.indices.capacity() < 64);
        assert_eq!(w.len(), 1);
    }

    #[test]
    fn unknown_directives_warn_once() {
        let (r, w) = p("A\n800\nFACADE\nFROB\nFROB 2\nLAYER_GROUP objects 1\nBASEMENT_DEPTH 4\n");
        r.unwrap();
        assert_eq!(w.len(), 1);
        assert_eq!(w[0].to_string(), "a/b.fac:4:1: warning: unknown facade directive `FROB` ignored (further ones are not reported)");
    }

    #[test]
    fn jetway_tags_name_their_walls() {
        let (r, w) = p(&test_jetway_fac("jw.png"));
        let f = r.unwrap();
        assert!(w.is_empty(), "{w:?}");
        assert!(f.is_jetway());
        let c = f.cabin.as_ref().unwrap();
        assert_eq!((c.wall, c.style), (2, 0));
        let t: Vec<(u32, &str, i64)> = f
            .tunnels
            .iter()
            .map(|t| (t.wall, t.obj.as_str(), t.size_code))
            .collect();
        assert_eq!(
            t,
            vec![(0, "jw_tunnel_0.obj", 0), (1, "jw_tunnel_1.obj", 1)]
        );
        // A jetway is no axial facade, though its segments are volumes.
        assert!(f.axial.is_none());
        // The dump lists them.
        let json = serde_json::to_string(&f).unwrap();
        assert!(json.contains("\"cabin\":{\"wall\":2"), "{json}");
    }

    #[test]
    fn bad_jetway_tags_cost_their_own_line() {
        let h = "A\n1000\nFACADE\nFLOOR f\nSEGMENT 0\nMESH 0 1 0 3 3\n\
VERTEX 0 0 0 1 0 0 0 0\nVERTEX 0 0 -4 1 0 0 1 0\nVERTEX 0 3 -4 1 0 0 1 1\nIDX 0 1 2\n";
        // A #tunnel without a #cabin warns, and the facade is no jetway.
        let (r, w) = p(&format!(
            "{h}WALL 0 10 0 360 t\n#tunnel t.obj 1\nSPELLING 0\n"
        ));
        let f = r.unwrap();
        assert!(!f.is_jetway());
        assert_eq!(w.len(), 1, "{w:?}");
        assert_eq!(
            w[0].to_string(),
            "a/b.fac:12:1: warning: #tunnel without a #cabin: the facade is no jetway and its tunnel tags are ignored (as WED does)"
        );
        // A tag before any WALL, a bad code, a missing object: each its own warning; the
        // rest is read.
        let (r, w) = p(&format!(
            "A\n1000\nFACADE\n#cabin 0\n{}WALL 0 10 0 360 c\n#cabin glass\n#tunnel\n#cabin 3\nSPELLING 0\n",
            &h[14..]
        ));
        let f = r.unwrap();
        let w: Vec<String> = w.iter().map(|d| d.to_string()).collect();
        assert_eq!(w.len(), 3, "{w:#?}");
        assert!(
            w[0].starts_with("a/b.fac:4:1: warning: #cabin before any WALL; the tag is ignored"),
            "{}",
            w[0]
        );
        assert!(
            w[1].starts_with("a/b.fac:13:8: warning: #cabin: <style code> must be a whole number"),
            "{}",
            w[1]
        );
        assert!(
            w[2].starts_with("a/b.fac:14:8: warning: #tunnel: missing argument <tunnel object>"),
            "{}",
            w[2]
        );
        assert_eq!(f.cabin.as_ref().map(|c| (c.wall, c.style)), Some((0, 3)));
        assert_eq!(f.floors[0].walls[0].spellings.len(), 1);
        // In a type 1 facade the tags mean nothing: one warning.
        let (r, w) = p("A\n800\nFACADE\nWALL 0 10\n#cabin 0\n#cabin 1\n");
        assert!(r.unwrap().cabin.is_none());
        assert_eq!(w.len(), 1, "{w:?}");
        assert!(w[0]
            .to_string()
            .contains("5:1: warning: `#cabin` tags a jetway wall in type 2"));
    }

    #[test]
    fn the_axial_rule_takes_a_hangar_and_leaves_fences() {
        let (r, w) = p(&test_hangar_fac("h.png"));
        let f = r.unwrap();
        assert!(w.is_empty(), "{w:?}");
        let a = f.axial.as_ref().expect("a 2-point hangar");
        assert_eq!(a.width, 12.0);
        assert_eq!(a.rule, AXIAL_RULE);
        assert_eq!(f.topology(), FacadeTopology::Chain);
        // A fence: the same, but its panel is 0.2 m thick.
        let fence = "A\n1000\nFACADE\nRING 0\nFLOOR f\nSEGMENT 0\nMESH 0 1 0 3 3\n\
VERTEX -0.1 0 0 1 0 0 0 0\nVERTEX 0.1 0 -4 1 0 0 1 0\nVERTEX 0 3 -4 1 0 0 1 1\nIDX 0 1 2\n\
WALL 0 10 0 360 w\nSPELLING 0\n";
        assert!(p(fence).0.unwrap().axial.is_none());
        // Thick enough, but a ring, or with a roof: a building placed as a polygon.
        let thick = fence.replace("VERTEX -0.1", "VERTEX -3");
        assert!(p(&thick).0.unwrap().axial.is_some());
        assert!(p(&thick.replace("RING 0", "RING 1"))
            .0
            .unwrap()
            .axial
            .is_none());
        assert!(p(&format!("{thick}ROOF_HEIGHT 3\n"))
            .0
            .unwrap()
            .axial
            .is_none());
        // Type 1 facades are never axial.
        assert!(p(V8).0.unwrap().axial.is_none());
    }

    #[test]
    fn directives_agview_does_not_draw_are_listed_once_each() {
        let (r, _) = p("A\n1000\nFACADE\nOBJ a.obj\n#obj_wed b.obj\nOBJ c.obj\nFLOOR f\nSEGMENT_CURVED 0\nROOF_OBJ 0 1 1\n");
        let f = r.unwrap();
        let got: Vec<(&str, u32, u32)> = f
            .not_drawn
            .iter()
            .map(|n| (n.keyword.as_str(), n.line, n.count))
            .collect();
        assert_eq!(
            got,
            vec![
                ("OBJ", 4, 2),
                ("#obj_wed", 5, 1),
                ("SEGMENT_CURVED", 8, 1),
                ("ROOF_OBJ", 9, 1)
            ]
        );
    }

    #[test]
    fn never_panics_on_any_prefix() {
        let mut w = Vec::new();
        for src in [V8, V10, &test_jetway_fac("t.png")[..800]] {
            for end in 0..=src.len() {
                let _ = parse(Path::new("f.fac"), &src.as_bytes()[..end], &mut w);
            }
        }
    }
}
