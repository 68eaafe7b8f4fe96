//! Road network definitions (`.net`; `800`, then `ROADS`; ROADS.md §3): the textures, the
//! real road types with their surface rows, and the virtual types a DSF subtype names.
//!
//! The XP10/11/12 form (§3.2), as WED's `GetRoad`, OverlayEditor's `readNet` and Ben
//! Supnik's Blender importer read it:
//! - `TEXTURE <poly_os> <file>` gives each texture an index 0, 1, 2…; `TEXTURE_LIT <file>`
//!   and `TEXTURE_NORMAL [ratio] <file>` belong to the texture before them. Paths are
//!   relative to the `.net`'s folder.
//! - `SCALE <n>` divides every s value after it (texture pixels → 0..1); 1 until one is given.
//! - `ROAD_TYPE <id> <width> <length> <tex> [<r> <g> <b>]` opens a real type;
//!   `ROAD_CENTER <x>` says where the chain runs in the type's own 0..width axis, **width/2
//!   when it is missing** (agview's choice, as OverlayEditor and the Blender importer do;
//!   WED uses 0 or the type before's: docs/spec-decisions.md).
//! - `SEGMENT_DRAPED <tex> <near> <far> <t_scale> <x1> <s1> <x2> <s2> [surface]` and
//!   `SEGMENT_GRADED <tex> <near> <far> <t_scale> <x1> <y1> <s1> <x2> <y2> <s2> [surface]`
//!   are its rows; x is kept relative to `ROAD_CENTER` (`x - center`), s divided by `SCALE`.
//! - `#VROAD <name> (<width>)` (a comment with meaning), `ROAD_DRAPED <mode> <id> <pitch>
//!   <roll>` (or the 3-argument `<id> <pitch> <roll>` LR's XP10 generator writes), then
//!   `ROAD_DRAPE_CHOICE <height> <real type>`: the virtual type a DSF subtype names.
//!
//! `OBJECT_*`, `WIRE`, `CAR_*`, `SHOW_LEVEL`, `REQUIRE_EVEN` (whose meaning is unconfirmed),
//! the junction plugs and the other shader and header directives of §3.2 are counted in
//! [`NetFile::listed`] for `dump` and skipped without a warning. An unknown directive warns
//! once per file. A broken line is an error at that line and costs only that line (a broken
//! `ROAD_TYPE` or `ROAD_DRAPED` costs the rows or choices that follow it too); the rest of
//! the file is read.
//!
//! The old XP8/9 form (§3.3: `SEGMENT`, `SEGMENT_HARD`, `TEXTURE_BRIDGE`; the DSF subtype is
//! the `ROAD_TYPE` id itself, no virtual types) is read too, warned about once, and marked
//! [`NetFile::old_form`]: the layout draws it in the plain profile ([`plain_road`]).

use std::collections::BTreeMap;
use std::path::Path;

use serde::Serialize;

use crate::diag::{Diagnostic, Severity};
use crate::format::text::{read_header, Line, TextFile};

/// One `TEXTURE` (or its old-form equivalent): its index is its place in `NetFile::textures`.
#[derive(Debug, Clone, PartialEq, Default, Serialize)]
pub struct NetTexture {
    /// `poly_os` (XP10+): > 0 for draped rows, 0 for graded ones; the old form's z offset.
    pub poly_os: f32,
    /// As written, relative to the `.net`'s folder.
    pub path: String,
    /// `TEXTURE_LIT` that follows it, if any.
    pub lit: Option<String>,
    /// `TEXTURE_NORMAL` that follows it, if any.
    pub normal: Option<String>,
    /// The line it came from (1-based).
    pub line: usize,
}

/// One surface row of a road type (`SEGMENT_DRAPED` or `SEGMENT_GRADED`).
#[derive(Debug, Clone, PartialEq, Default, Serialize)]
pub struct RoadRow {
    /// Index into `NetFile::textures`.
    pub texture: usize,
    pub near_lod: f32,
    pub far_lod: f32,
    pub t_scale: f32,
    /// Lateral metres of the row's two edges relative to `ROAD_CENTER`, positive to the
    /// right of travel.
    pub x: [f32; 2],
    /// Height in metres above the road surface of the two edges (0 for draped rows).
    pub y: [f32; 2],
    /// Texture s of the two edges, already divided by the `SCALE` in force.
    pub s: [f32; 2],
    /// `SEGMENT_GRADED` rather than `SEGMENT_DRAPED`.
    pub graded: bool,
    /// The optional surface name.
    pub surface: Option<String>,
    /// The line it came from (1-based).
    pub line: usize,
}

/// One real road type (`ROAD_TYPE`).
#[derive(Debug, Clone, PartialEq, Default, Serialize)]
pub struct RoadType {
    pub id: u32,
    /// Full width in metres.
    pub width: f32,
    /// Texture repeat length along the road, metres.
    pub length: f32,
    /// The texture field of `ROAD_TYPE`.
    pub texture: usize,
    /// Map colour.
    pub rgb: [f32; 3],
    /// `ROAD_CENTER`, in the road's own 0..width axis.
    pub center: f32,
    pub rows: Vec<RoadRow>,
    /// The line it came from (1-based).
    pub line: usize,
}

/// One virtual road type (`#VROAD` / `ROAD_DRAPED` / `ROAD_DRAPE_CHOICE`): what a DSF
/// subtype names.
#[derive(Debug, Clone, PartialEq, Default, Serialize)]
pub struct VirtualRoad {
    pub id: u32,
    pub name: String,
    pub width: Option<f32>,
    /// (height threshold in metres, real type id; 0 = no road), in file order.
    pub choices: Vec<(f32, u32)>,
    pub line: usize,
}

/// A `.net` file as agview reads it.
#[derive(Debug, Clone, PartialEq, Default, Serialize)]
pub struct NetFile {
    pub textures: Vec<NetTexture>,
    pub road_types: BTreeMap<u32, RoadType>,
    pub vroads: BTreeMap<u32, VirtualRoad>,
    /// The old XP8/9 form (ROADS.md §3.3): recognised, warned about, drawn in the plain
    /// profile.
    pub old_form: bool,
    /// Directives read only to be listed (`OBJECT_*`, `WIRE`, `CAR_*`, junction plugs):
    /// name and count, for `dump`.
    pub listed: BTreeMap<String, usize>,
}

/// Which real type a subtype draws with.
#[derive(Debug, Clone, PartialEq)]
pub enum Choice<'a> {
    /// The real type for this height.
    Road(&'a RoadType),
    /// The band's real type is 0: nothing is drawn (X-Plane's "no road" choice).
    Nothing,
    /// The subtype (or its chosen real type) is not in the file: draw the plain profile.
    Missing,
}

impl NetFile {
    /// The real type `subtype` draws with at `height` metres above the ground (ROADS.md
    /// §3.2): at 0 (or below), the first choice whose type is not 0, as WED and
    /// OverlayEditor preview it; above 0, the last choice whose height threshold is at most
    /// `height` (the first when none is). A real type of 0 there is [`Choice::Nothing`]; a
    /// subtype, or a chosen real type, the file lacks is [`Choice::Missing`]. In the old
    /// form the subtype is the real type id.
    pub fn choose(&self, subtype: u32, height: f32) -> Choice<'_> {
        let real = |id: u32| match id {
            0 => Choice::Nothing,
            id => self
                .road_types
                .get(&id)
                .map_or(Choice::Missing, Choice::Road),
        };
        if self.old_form {
            return match subtype {
                0 => Choice::Missing,
                id => real(id),
            };
        }
        let Some(v) = self.vroads.get(&subtype) else {
            return Choice::Missing;
        };
        // NaN reads as the ground.
        let id = if height.is_nan() || height <= 0.0 {
            v.choices.iter().map(|c| c.1).find(|&id| id != 0)
        } else {
            v.choices
                .iter()
                .rev()
                .find(|c| c.0 <= height)
                .or(v.choices.first())
                .map(|c| c.1)
        };
        match id {
            Some(id) => real(id),
            // No choice at all, or every choice is "no road".
            None if v.choices.is_empty() => Choice::Missing,
            None => Choice::Nothing,
        }
    }

    /// How many directives of `listed` the file holds, all names together.
    pub fn listed_total(&self) -> usize {
        self.listed.values().sum()
    }
}

/// What the plain profile draws for a subtype when no `.net` is at hand.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PlainLook {
    /// Asphalt with edge and centre lines.
    Asphalt,
    /// Ballast and two rails (subtypes 151–153).
    Rail,
    /// A thin line, not a road (subtype 220, power lines).
    PowerLine,
}

/// The plain profile's road for a subtype (UNCONFIRMED widths; docs/spec-decisions.md).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PlainRoad {
    /// The band's name as the feature table shows it (`highway`, `primary`, …).
    pub band: &'static str,
    /// Full width in metres.
    pub width: f32,
    pub look: PlainLook,
}

/// The plain profile, agview's own choice (UNCONFIRMED: X-Plane has no such thing; it draws
/// nothing without its `.net`): (first subtype, last subtype, band, width in metres, look),
/// by the vroad ids of ROADS.md §3.2's table (W2X's constants). The widths are the paved
/// carriageway, about two thirds of the widths World2XPlane falls back to (which are the
/// `#VROAD` widths of the stock `roads.net`, sidewalks and bridge parapets included) and
/// narrower than OverlayEditor's one 16 m for every road, so that a town's streets do not
/// merge into one sheet of asphalt. docs/spec-decisions.md, "Roads: .net files and the plain
/// profile"; docs/roads.md shows the table.
pub const PLAIN_BANDS: &[(u32, u32, &str, f32, PlainLook)] = &[
    (10, 19, "primary", 14.0, PlainLook::Asphalt),
    (20, 29, "primary", 10.0, PlainLook::Asphalt),
    (30, 49, "secondary", 11.0, PlainLook::Asphalt),
    (50, 69, "residential", 8.0, PlainLook::Asphalt),
    (70, 79, "service", 5.0, PlainLook::Asphalt),
    (100, 109, "highway", 14.0, PlainLook::Asphalt),
    (110, 119, "highway", 10.0, PlainLook::Asphalt),
    (120, 139, "ramp", 6.0, PlainLook::Asphalt),
    (151, 153, "rail", 4.0, PlainLook::Rail),
    (220, 220, "power line", 0.5, PlainLook::PowerLine),
];

/// The plain profile's width of a subtype no band names: the residential width.
pub const PLAIN_UNKNOWN_WIDTH: f32 = 8.0;

/// The plain profile for `subtype` ([`PLAIN_BANDS`]; an unknown subtype is band `unknown`
/// at the residential width, in asphalt).
pub fn plain_road(subtype: u32) -> PlainRoad {
    PLAIN_BANDS
        .iter()
        .find(|b| (b.0..=b.1).contains(&subtype))
        .map_or(
            PlainRoad {
                band: "unknown",
                width: PLAIN_UNKNOWN_WIDTH,
                look: PlainLook::Asphalt,
            },
            |b| PlainRoad {
                band: b.2,
                width: b.3,
                look: b.4,
            },
        )
}

/// Directives read only to be counted (ROADS.md §3.2): objects, wires, cars and trains, the
/// density settings, the junction plugs and the shader block's other lines. Names that
/// start with one of [`LISTED_PREFIXES`] count too.
const LISTED: &[&str] = &[
    "OBJECT_DRAPED",
    "OBJECT_GRADED",
    "OBJECT_FREQ",
    "OBJECT_ALT",
    "OBJECT",
    "CAR_DRAPED",
    "CAR_GRADED",
    "CAR",
    "CAR_MODEL",
    "TRAIN",
    "TRAIN_VARIANT",
    "TRAIN_CAR",
    "WIRE",
    "SHOW_LEVEL",
    "REQUIRE_EVEN",
    "MATCH",
    "VERTEX",
    "JUNC_SHADER",
    "JUNC_OBJECT",
    "TRI",
    "QUAD",
    "TEXTURE_TILE",
    "TEXTURE_DETAIL",
    "TEXTURE_CONTROL",
    "TEXTURE_TERRAIN",
    "ONE_SIDED",
    "NO_BLEND",
    "NO_ALPHA",
    "SPECULAR",
    "DITHER_ALPHA",
    "VARIANTS",
    "LAYER_GROUP",
];

/// Prefixes of listed directives: the junction plugs (`JUNCTION_DRAPED`,
/// `JUNCTION_COMPOSITE_*`…), their bones, and the decal lines.
const LISTED_PREFIXES: &[&str] = &["JUNCTION_", "BONE_", "DECAL"];

/// The directives of the old XP8/9 form (ROADS.md §3.3) that the XP10 form does not have.
const OLD_FORM: &[&str] = &["SEGMENT", "SEGMENT_HARD", "TEXTURE_BRIDGE"];

/// What rows and choices attach to while reading.
#[derive(Clone, Copy, PartialEq)]
enum Open {
    None,
    /// The last `ROAD_TYPE` / `ROAD_DRAPED` read, by id.
    At(u32),
    /// The last one was broken: what follows it is skipped without more errors.
    Broken,
}

/// The reader's state between lines.
struct Reader {
    net: NetFile,
    scale: f32,
    road: Open,
    vroad: Open,
    /// `#VROAD` name and width waiting for their `ROAD_DRAPED`.
    vroad_name: Option<(String, Option<f32>)>,
    /// The first unknown directive's warning (its index) and how many more there were.
    unknown: Option<(usize, usize)>,
}

/// Reads a `.net` file.
pub fn parse(
    path: &Path,
    src: &[u8],
    warnings: &mut Vec<Diagnostic>,
) -> Result<NetFile, Diagnostic> {
    let src = crate::format::text::readable(src);
    let mut tf = TextFile::new(path, &src).with_tags(&["#VROAD"]);
    read_header(&mut tf, &[(&[800], "ROADS")])?;
    let mut r = Reader {
        net: NetFile::default(),
        scale: 1.0,
        road: Open::None,
        vroad: Open::None,
        vroad_name: None,
        unknown: None,
    };
    while let Some(line) = tf.next() {
        let mut line = match line {
            Ok(l) => l,
            Err(e) => {
                warnings.push(e);
                continue;
            }
        };
        if let Err(mut e) = r.line(&mut line, warnings) {
            e.severity = Severity::Error;
            e.message.push_str(skipped(line.keyword));
            warnings.push(e);
        }
    }
    if let Some((at, more)) = r.unknown {
        if more > 0 {
            warnings[at].message = warnings[at].message.replace(
                "(further ones are not reported)",
                &format!("({more} more unknown directive line(s) in this file are not reported)"),
            );
        }
    }
    Ok(r.net)
}

/// What a broken line of `keyword` costs, for its error.
fn skipped(keyword: &str) -> &'static str {
    match keyword {
        "ROAD_TYPE" => "; the road type and its rows are skipped",
        "ROAD_DRAPED" => "; the virtual type and its choices are skipped",
        _ => "; the line is skipped",
    }
}

impl Reader {
    fn line(
        &mut self,
        line: &mut Line<'_>,
        warnings: &mut Vec<Diagnostic>,
    ) -> Result<(), Diagnostic> {
        let kw = line.keyword;
        if OLD_FORM.contains(&kw) && !self.net.old_form {
            self.net.old_form = true;
            warnings.push(line.warning_kw(format!(
                "`{kw}`: the old XP8/9 road network form (ROADS.md §3.3); it is read, and its roads are drawn in agview's plain profile"
            )));
        }
        let number = line.number as usize;
        match kw {
            "TEXTURE" | "TEXTURE_BRIDGE" => {
                let poly_os = line.f32("poly_os")?;
                let path = line.rest("texture file")?.to_string();
                self.net.textures.push(NetTexture {
                    poly_os,
                    path,
                    lit: None,
                    normal: None,
                    line: number,
                });
            }
            "TEXTURE_LIT" | "TEXTURE_NORMAL" => {
                let Some(tex) = self.net.textures.last_mut() else {
                    return Err(line.error_kw(format!("{kw} before any TEXTURE")));
                };
                let mut name = line.rest("texture file")?;
                // `TEXTURE_NORMAL <ratio> <file>`, as in a `.pol`: the ratio is read past.
                if let Some((first, rest)) = name.split_once(|c: char| c.is_ascii_whitespace()) {
                    if crate::format::text::parse_f32(first).is_some() {
                        name = rest.trim();
                    }
                }
                if kw == "TEXTURE_LIT" {
                    tex.lit = Some(name.to_string());
                } else {
                    tex.normal = Some(name.to_string());
                }
            }
            "SCALE" => {
                self.scale = line.positive_f32("scale")?;
                line.expect_end(warnings);
            }
            "ROAD_TYPE" => {
                self.road = Open::Broken;
                let id = line.u32("road type id")?;
                let width = line.positive_f32("width")?;
                let length = line.positive_f32("length")?;
                let texture = line.index("texture")?;
                let mut rgb = [0.5; 3];
                if let Some(r) = line.opt_f32("red")? {
                    rgb = [r, line.f32("green")?, line.f32("blue")?];
                }
                line.expect_end(warnings);
                let t = RoadType {
                    id,
                    width,
                    length,
                    texture,
                    rgb,
                    center: width / 2.0,
                    rows: Vec::new(),
                    line: number,
                };
                if let Some(old) = self.net.road_types.insert(id, t) {
                    warnings.push(line.warning_kw(format!(
                        "ROAD_TYPE {id} again (first at line {}): this one replaces it",
                        old.line
                    )));
                }
                self.road = Open::At(id);
            }
            "ROAD_CENTER" => {
                let x = line.f32("center")?;
                line.expect_end(warnings);
                match self.road {
                    Open::At(id) => {
                        if let Some(t) = self.net.road_types.get_mut(&id) {
                            t.center = x;
                            if !t.rows.is_empty() {
                                warnings.push(line.warning_kw(format!(
                                    "ROAD_CENTER after {} row(s) of ROAD_TYPE {id}: it applies to the rows after it only",
                                    t.rows.len()
                                )));
                            }
                        }
                    }
                    Open::Broken => {}
                    Open::None => return Err(line.error_kw("ROAD_CENTER before any ROAD_TYPE")),
                }
            }
            "SEGMENT_DRAPED" | "SEGMENT_GRADED" => {
                let scale = self.scale;
                let Some(t) = self.open_road(line)? else {
                    return Ok(());
                };
                let graded = kw == "SEGMENT_GRADED";
                let texture = line.index("texture")?;
                let near_lod = line.f32("near LOD")?;
                let far_lod = line.f32("far LOD")?;
                let t_scale = line.f32("t scale")?;
                let edge = |line: &mut Line<'_>, side: &str| -> Result<[f32; 3], Diagnostic> {
                    let x = line.f32_lazy(|| format!("x{side}"))?;
                    let y = if graded {
                        line.f32_lazy(|| format!("y{side}"))?
                    } else {
                        0.0
                    };
                    let s = line.f32_lazy(|| format!("s{side}"))?;
                    Ok([x, y, s])
                };
                let a = edge(line, "1")?;
                let b = edge(line, "2")?;
                let surface = line.next_token().map(|(w, _)| w.to_string());
                line.expect_end(warnings);
                let center = t.center;
                t.rows.push(RoadRow {
                    texture,
                    near_lod,
                    far_lod,
                    t_scale,
                    x: [a[0] - center, b[0] - center],
                    y: [a[1], b[1]],
                    s: [a[2] / scale, b[2] / scale],
                    graded,
                    surface,
                    line: number,
                });
            }
            "SEGMENT" | "SEGMENT_HARD" => {
                let scale = self.scale;
                let Some(t) = self.open_road(line)? else {
                    return Ok(());
                };
                let near_lod = line.f32("near LOD")?;
                let far_lod = line.f32("far LOD")?;
                let edge = |line: &mut Line<'_>, side: &str| -> Result<[f32; 3], Diagnostic> {
                    Ok([
                        line.f32_lazy(|| format!("x{side} fraction"))?,
                        line.f32_lazy(|| format!("y{side}"))?,
                        line.f32_lazy(|| format!("s{side}"))?,
                    ])
                };
                let a = edge(line, "1")?;
                let b = edge(line, "2")?;
                let surface = if kw == "SEGMENT_HARD" {
                    Some(line.word("surface")?.to_string())
                } else {
                    None
                };
                line.expect_end(warnings);
                // Lateral metres are `(fraction - 0.5) * width` (ROADS.md §3.3).
                let lateral = |f: f32| (f - 0.5) * t.width;
                let row = RoadRow {
                    texture: t.texture,
                    near_lod,
                    far_lod,
                    t_scale: 1.0,
                    x: [lateral(a[0]), lateral(b[0])],
                    y: [a[1], b[1]],
                    s: [a[2] / scale, b[2] / scale],
                    graded: a[1] != 0.0 || b[1] != 0.0,
                    surface,
                    line: number,
                };
                t.rows.push(row);
            }
            "#VROAD" => {
                let name = line.word("name")?.to_string();
                let width = match line.next_token() {
                    Some((w, col)) => {
                        let inner = w.trim_start_matches('(').trim_end_matches(')');
                        match crate::format::text::parse_f32(inner) {
                            Some(v) => Some(v),
                            None => {
                                warnings.push(line.warning(
                                    col,
                                    format!(
                                        "#VROAD: width `{w}` is not a number; read without one"
                                    ),
                                ));
                                None
                            }
                        }
                    }
                    None => None,
                };
                line.skip_rest();
                self.vroad_name = Some((name, width));
            }
            "ROAD_DRAPED" => {
                self.vroad = Open::Broken;
                let (name, width) = self.vroad_name.take().unwrap_or_default();
                // Four numbers in the shipping files (`<mode> <id> <pitch> <roll>`), three
                // in what LR's XP10 generator writes (`<id> <pitch> <roll>`).
                let mut probe = line.clone();
                let mut args = 0;
                while probe.next_token().is_some() {
                    args += 1;
                }
                if args >= 4 {
                    line.i64("draping mode")?;
                }
                let id = line.u32("virtual type id")?;
                line.f32("max pitch")?;
                line.f32("max roll")?;
                line.expect_end(warnings);
                let v = VirtualRoad {
                    id,
                    name,
                    width,
                    choices: Vec::new(),
                    line: number,
                };
                if let Some(old) = self.net.vroads.insert(id, v) {
                    warnings.push(line.warning_kw(format!(
                        "ROAD_DRAPED {id} again (first at line {}): this one replaces it",
                        old.line
                    )));
                }
                self.vroad = Open::At(id);
            }
            "ROAD_DRAPE_CHOICE" => {
                let id = match self.vroad {
                    Open::At(id) => id,
                    Open::Broken => return Ok(()),
                    Open::None => {
                        return Err(line.error_kw("ROAD_DRAPE_CHOICE before any ROAD_DRAPED"))
                    }
                };
                let height = line.f32("height")?;
                let real = line.u32("road type id")?;
                line.expect_end(warnings);
                if let Some(v) = self.net.vroads.get_mut(&id) {
                    v.choices.push((height, real));
                }
            }
            kw if LISTED.contains(&kw) || LISTED_PREFIXES.iter().any(|p| kw.starts_with(p)) => {
                *self.net.listed.entry(kw.to_string()).or_default() += 1;
            }
            _ => match &mut self.unknown {
                Some((_, more)) => *more += 1,
                None => {
                    self.unknown = Some((warnings.len(), 0));
                    warnings.push(line.unknown_directive("road network"));
                }
            },
        }
        Ok(())
    }

    /// The road type rows attach to: `None` (skip quietly) after a broken `ROAD_TYPE`, an
    /// error before any.
    fn open_road(&mut self, line: &Line<'_>) -> Result<Option<&mut RoadType>, Diagnostic> {
        match self.road {
            Open::At(id) => Ok(self.net.road_types.get_mut(&id)),
            Open::Broken => Ok(None),
            Open::None => Err(line.error_kw(format!("{} before any ROAD_TYPE", line.keyword))),
        }
    }
}

/// What `agview check` says of a read `.net` beyond its reader's own messages: references
/// the file cannot satisfy and rows X-Plane's own generator refuses (ROADS.md §3.2), each a
/// warning at its line.
/// - a `ROAD_TYPE` or a row naming a texture index the file does not have;
/// - a draped row whose texture has `poly_os` 0, or a graded row whose texture has one
///   above 0 (LR's `gen_roads10` refuses both);
/// - a `ROAD_DRAPE_CHOICE` naming a `ROAD_TYPE` the file does not have, or a virtual type
///   without choices;
/// - a road type with no row at near LOD 0 (agview draws those rows only), and a file
///   with no road type at all.
pub fn validate(path: &Path, net: &NetFile) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    let at = |line: usize, message: String| {
        Diagnostic::warning_at(path, u32::try_from(line).unwrap_or(u32::MAX), 1, message)
    };
    let n = net.textures.len();
    for t in net.road_types.values() {
        if t.texture >= n {
            out.push(at(
                t.line,
                format!(
                    "ROAD_TYPE {}: texture {} does not exist (the file has {n} TEXTURE line(s))",
                    t.id, t.texture
                ),
            ));
        }
        for r in &t.rows {
            match net.textures.get(r.texture) {
                None => out.push(at(
                    r.line,
                    format!(
                        "row of ROAD_TYPE {}: texture {} does not exist (the file has {n} TEXTURE line(s)); the row is not drawn",
                        t.id, r.texture
                    ),
                )),
                Some(tex) if !net.old_form && !r.graded && tex.poly_os <= 0.0 => out.push(at(
                    r.line,
                    format!(
                        "SEGMENT_DRAPED of ROAD_TYPE {}: texture {} has poly_os {}, and a draped row needs one above 0 (LR's generator refuses it)",
                        t.id, r.texture, tex.poly_os
                    ),
                )),
                Some(tex) if !net.old_form && r.graded && tex.poly_os > 0.0 => out.push(at(
                    r.line,
                    format!(
                        "SEGMENT_GRADED of ROAD_TYPE {}: texture {} has poly_os {}, and a graded row needs 0 (LR's generator refuses it)",
                        t.id, r.texture, tex.poly_os
                    ),
                )),
                Some(_) => {}
            }
        }
        if !t.rows.iter().any(|r| r.near_lod == 0.0) {
            out.push(at(
                t.line,
                format!(
                    "ROAD_TYPE {} has no row with near LOD 0; agview draws nothing for it",
                    t.id
                ),
            ));
        }
    }
    for v in net.vroads.values() {
        if v.choices.is_empty() {
            out.push(at(
                v.line,
                format!(
                    "ROAD_DRAPED {} has no ROAD_DRAPE_CHOICE; its roads are drawn in the plain profile",
                    v.id
                ),
            ));
        }
        for &(h, id) in &v.choices {
            if id != 0 && !net.road_types.contains_key(&id) {
                out.push(at(
                    v.line,
                    format!(
                        "ROAD_DRAPED {}: the choice at {h} m names ROAD_TYPE {id}, which the file does not have; those roads are drawn in the plain profile",
                        v.id
                    ),
                ));
            }
        }
    }
    if net.road_types.is_empty() {
        out.push(Diagnostic::warning_file(
            path,
            "the road network has no ROAD_TYPE; its roads are drawn in the plain profile",
        ));
    }
    out
}

/// A few lines describing a read `.net`, for `agview dump --summary`.
pub fn summary(net: &NetFile) -> String {
    let mut s = format!(
        "road network{}: {} texture(s), {} road type(s), {} virtual type(s)",
        if net.old_form {
            " (old XP8/9 form)"
        } else {
            ""
        },
        net.textures.len(),
        net.road_types.len(),
        net.vroads.len()
    );
    for (i, t) in net.textures.iter().enumerate() {
        s += &format!("\n  texture {i}: {} (poly_os {})", t.path, t.poly_os);
    }
    for t in net.road_types.values() {
        s += &format!(
            "\n  road type {}: {} m wide, center {} m, {} m repeat, {} row(s)",
            t.id,
            t.width,
            t.center,
            t.length,
            t.rows.len()
        );
        for r in &t.rows {
            s += &format!(
                "\n    {} texture {} LOD {}-{}: x {} to {} m, s {} to {}",
                if r.graded { "graded" } else { "draped" },
                r.texture,
                r.near_lod,
                r.far_lod,
                r.x[0],
                r.x[1],
                r.s[0],
                r.s[1]
            );
        }
    }
    for v in net.vroads.values() {
        let choices: Vec<String> = v
            .choices
            .iter()
            .map(|(h, id)| format!("{h} m: {id}"))
            .collect();
        s += &format!(
            "\n  virtual type {} {}: {}",
            v.id,
            if v.name.is_empty() {
                "(unnamed)"
            } else {
                &v.name
            },
            choices.join(", ")
        );
    }
    if !net.listed.is_empty() {
        let listed: Vec<String> = net
            .listed
            .iter()
            .map(|(k, n)| format!("{k} {n}×"))
            .collect();
        s += &format!("\n  read but not drawn: {}", listed.join(", "));
    }
    s
}

#[cfg(test)]
mod tests;
