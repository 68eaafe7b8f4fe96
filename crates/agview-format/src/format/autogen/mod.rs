//! Reader for X-Plane 10 autogen text files: `.agp` (autogen point), `.agb` (autogen block)
//! and `.ags` (autogen string).
//!
//! One reader serves the three kinds, since "all autogen directives may be used" in each;
//! the kind-specific parts ([`Grid`] and [`SpellingSet`] for blocks, [`StringRules`] for
//! strings) are empty for the other kinds. Every directive keeps its 1-based source line.
//!
//! Decisions where the specs leave room (see `docs/spec-decisions.md`):
//! - `ANTISLOP_H/V pixels` is a property of the column/row opened by the last cut, like
//!   `SLOP_H/V`; on a slop tile it is ignored with a warning.
//! - `PRIORITY_MARKER` / `PRIORITY_MARKER_CORNER` start a new, lower priority tier: rules
//!   before the first marker are tier 0 and are tried first.
//! - Tile, column and row references are checked once the whole file is read, so rules may
//!   come before the tiles they name.
//! - An annotation outside its tile is a warning (the spec says it must be inside; real files
//!   stray by a pixel).
//!
//! This file holds the model (the types below); `reader.rs` turns the text into it, and
//! `validate.rs` checks the read asset as a whole: what must be present, and that every
//! reference names something the file defines.

use serde::Serialize;

mod reader;
mod validate;

pub use reader::parse;

/// The three autogen kinds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum AutogenKind {
    /// `AG_POINT` (.agp)
    Agp,
    /// `AG_BLOCK` (.agb)
    Agb,
    /// `AG_STRING` (.ags)
    Ags,
}

impl AutogenKind {
    pub fn header_name(self) -> &'static str {
        match self {
            AutogenKind::Agp => "AG_POINT",
            AutogenKind::Agb => "AG_BLOCK",
            AutogenKind::Ags => "AG_STRING",
        }
    }
}

/// An art file named by a loading directive (`OBJECT`, `FACADE`, `VEGETATION`, `TEXTURE…`).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ArtDecl {
    /// Shared, so that each object a layout places names its mesh without an allocation.
    pub path: std::sync::Arc<str>,
    pub line: u32,
}

impl Autogen {
    /// `TEXTURE_LIT`: the tiles' night texture.
    pub fn lit_texture(&self) -> Option<&ArtDecl> {
        self.other_textures
            .iter()
            .find(|(k, _)| k == "TEXTURE_LIT")
            .map(|(_, d)| d)
    }
}

/// A parsed autogen file.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Autogen {
    pub kind: AutogenKind,
    pub version: u32,
    /// `TEXTURE`: the base tile albedo.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub texture: Option<ArtDecl>,
    /// The other texture directives (`TEXTURE_LIT`, `TEXTURE_NORMAL`, …) by keyword.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub other_textures: Vec<(String, ArtDecl)>,
    /// `TEXTURE_SCALE <width px> <height px>`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub texture_scale: Option<[f32; 2]>,
    /// `TEXTURE_WIDTH <meters>`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub texture_width: Option<f32>,
    /// `TEXTURE_HEIGHT <meters>`: overrides the square-pixel rule vertically.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub texture_height: Option<f32>,
    /// `VEGETATION` (only one forest may be given).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub vegetation: Option<ArtDecl>,
    /// `OBJECT`s, indexed from 0 in file order.
    pub objects: Vec<ArtDecl>,
    /// `FACADE`s, indexed from 0 in file order.
    pub facades: Vec<ArtDecl>,
    /// `HIDE_TILES` (AGP) / `HIDE_TILE` (AGS).
    pub hide_tiles: bool,
    /// `TILE_LOD <meters>`; the default is 20 km.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tile_lod: Option<f32>,
    /// `LAYER_GROUP <offset> <name>`: (name, offset).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub layer_group: Option<(String, i32)>,
    /// `SLOPE_LIMIT min_pitch max_pitch min_roll max_roll`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub slope_limit: Option<[f32; 4]>,
    /// AGB `CROP 0|1`.
    pub crop: bool,
    /// AGB `FLIP_180`.
    pub flip_180: bool,
    /// AGP and AGS tiles, in file order.
    pub tiles: Vec<Tile>,
    /// AGB grids (`SUB_GRID`), in file order.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub grids: Vec<Grid>,
    /// AGB spelling sets, in file order.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub spelling_sets: Vec<SpellingSet>,
    /// AGS selection rules.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub string: Option<StringRules>,
    /// Directives real files use that agview reads past (materials, decals, …).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub ignored: Vec<(String, u32)>,
}

impl Autogen {
    /// Meters per pixel horizontally and vertically (`TEXTURE_WIDTH / TEXTURE_SCALE.width`,
    /// vertically `TEXTURE_HEIGHT / TEXTURE_SCALE.height` when given).
    #[inline]
    pub fn meters_per_pixel(&self) -> [f32; 2] {
        let [w_px, h_px] = self.texture_scale.unwrap_or([1.0, 1.0]);
        let sx = self.texture_width.unwrap_or(w_px) / w_px.max(f32::MIN_POSITIVE);
        let sy = match self.texture_height {
            Some(h) => h / h_px.max(f32::MIN_POSITIVE),
            None => sx,
        };
        [sx, sy]
    }
}

/// `TILE left bottom right top` and what follows it (AGP and AGS).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Tile {
    /// `TILE_ID` (AGS), or the tile's index in file order.
    pub id: i64,
    /// `[left, bottom, right, top]` in pixels.
    pub rect: [f32; 4],
    /// `ROTATION n`: number of 90° counter-clockwise turns, 0..=3.
    pub rotation: u8,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub anchor: Option<[f32; 2]>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ground: Option<[f32; 2]>,
    /// `CROP_POLY`: clockwise convex polygon in pixels.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub crop_poly: Option<Vec<[f32; 2]>>,
    /// AGS `STOP_PT s t`.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub stop_points: Vec<[f32; 2]>,
    /// AGS `PIVOT_LEAD_PT s t`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pivot_lead: Option<[f32; 2]>,
    /// AGS `PIVOT_TRAIL_PT s t`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pivot_trail: Option<[f32; 2]>,
    pub annotations: Vec<Annotation>,
    pub line: u32,
}

impl Tile {
    #[inline]
    pub fn width(&self) -> f32 {
        self.rect[2] - self.rect[0]
    }
    #[inline]
    pub fn height(&self) -> f32 {
        self.rect[3] - self.rect[1]
    }
}

/// How an annotated object is aligned vertically.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
#[serde(rename_all = "lowercase", tag = "mode")]
pub enum ObjPlacement {
    /// `OBJ_DRAPED`
    Draped,
    /// `OBJ_GRADED`
    Graded,
    /// `OBJ_DELTA`: graded plus `offset` meters.
    Delta { offset: f32 },
    /// `OBJ_SCRAPER`: graded plus the step rule applied to the DSF height.
    Scraper { min: f32, max: f32, step: f32 },
}

/// What an annotation places.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "snake_case", tag = "type")]
pub enum AnnotationKind {
    /// `OBJ_DRAPED` / `OBJ_GRADED` / `OBJ_DELTA` / `OBJ_SCRAPER`.
    Object {
        pos: [f32; 2],
        heading: f32,
        index: usize,
        placement: ObjPlacement,
        #[serde(skip_serializing_if = "Option::is_none")]
        show: Option<[u8; 2]>,
    },
    /// `FAC index height x y …` or `FAC_WALLS index height x y wall …`.
    Facade {
        index: usize,
        height: f32,
        points: Vec<[f32; 2]>,
        #[serde(skip_serializing_if = "Option::is_none")]
        walls: Option<Vec<u32>>,
    },
    /// `TREE x y heading width layer`.
    Tree {
        pos: [f32; 2],
        heading: f32,
        width: f32,
        layer: i32,
    },
    /// `TREE_LINE x1 y1 x2 y2 layer`.
    TreeLine {
        start: [f32; 2],
        end: [f32; 2],
        layer: i32,
    },
}

/// An annotation on a tile or grid, in pixels.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Annotation {
    #[serde(flatten)]
    pub kind: AnnotationKind,
    pub line: u32,
}

impl Annotation {
    /// The point that decides which tile or grid cell owns the annotation (its position; the
    /// first point of a facade; the start of a tree line).
    #[inline]
    pub fn anchor(&self) -> [f32; 2] {
        match &self.kind {
            AnnotationKind::Object { pos, .. } | AnnotationKind::Tree { pos, .. } => *pos,
            AnnotationKind::Facade { points, .. } => points.first().copied().unwrap_or([0.0; 2]),
            AnnotationKind::TreeLine { start, .. } => *start,
        }
    }

    /// Calls `f` with every pixel point the annotation uses (without allocating).
    pub fn for_each_point(&self, mut f: impl FnMut([f32; 2])) {
        match &self.kind {
            AnnotationKind::Object { pos, .. } | AnnotationKind::Tree { pos, .. } => f(*pos),
            AnnotationKind::Facade { points, .. } => points.iter().for_each(|p| f(*p)),
            AnnotationKind::TreeLine { start, end, .. } => {
                f(*start);
                f(*end);
            }
        }
    }

    /// Every pixel point the annotation uses.
    pub fn points(&self) -> Vec<[f32; 2]> {
        match &self.kind {
            AnnotationKind::Object { pos, .. } | AnnotationKind::Tree { pos, .. } => vec![*pos],
            AnnotationKind::Facade { points, .. } => points.clone(),
            AnnotationKind::TreeLine { start, end, .. } => vec![*start, *end],
        }
    }
}

/// A column (between two `CUT_H`) or row (between two `CUT_V`) of an AGB grid.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct GridSpan {
    /// Pixel where the span starts (left or bottom cut) and ends.
    pub start: f32,
    pub end: f32,
    /// `SLOP_H/V`: the overlap in pixels the next tile covers, when this is a slop tile.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub slop: Option<f32>,
    /// `ANTISLOP_H/V`: pixels this tile starts early, overlapping the previous one.
    pub antislop: f32,
    /// Line of the cut that opened the span.
    pub line: u32,
}

impl GridSpan {
    #[inline]
    pub fn size(&self) -> f32 {
        self.end - self.start
    }
}

/// `GROUND_PT_FORMULA x-ratio x-delta y-ratio y-delta`, attached to the grid cell that holds
/// the annotation before it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct GroundPtFormula {
    /// Index into the grid's `annotations` of the annotation it follows.
    pub after: usize,
    pub x_ratio: f32,
    pub x_delta: f32,
    pub y_ratio: f32,
    pub y_delta: f32,
    pub line: u32,
}

/// One AGB grid (`SUB_GRID`).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Grid {
    /// Columns, left to right (from `CUT_H`).
    pub columns: Vec<GridSpan>,
    /// Rows, bottom to top (from `CUT_V`).
    pub rows: Vec<GridSpan>,
    /// `EDGE_MIN/BEST/MAX left bottom right top`, pixels.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub edge_min: Option<[f32; 4]>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub edge_best: Option<[f32; 4]>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub edge_max: Option<[f32; 4]>,
    pub annotations: Vec<Annotation>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub ground_formulas: Vec<GroundPtFormula>,
    pub line: u32,
}

/// One spelling: the columns (`SPELLING_S`) or rows (`SPELLING_T`) re-assembled in order.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Spelling {
    pub indices: Vec<usize>,
    /// The `DEFINE_SPELLING_*` name it came from, for `USE_SPELLING_*`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    pub line: u32,
    /// Column of each index on its line, for diagnostics.
    #[serde(skip)]
    pub cols: Vec<u32>,
}

/// `SPELLING_SET param` and its rules.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SpellingSet {
    /// Matches the low 8 bits of the DSF parameter.
    pub param: u32,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub height_range: Option<[f32; 2]>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub width_range: Option<[f32; 2]>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub depth_range: Option<[f32; 2]>,
    /// `FREQUENCY`; default 1.0.
    pub frequency: f32,
    /// `USE_GRID`; default 0.
    pub grid: usize,
    pub spellings_s: Vec<Spelling>,
    pub spellings_t: Vec<Spelling>,
    pub line: u32,
    #[serde(skip)]
    grid_at: Option<(u32, u32)>,
}

/// Which corner directive a rule came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum CornerKind {
    /// `CORNER`
    Corner,
    /// `CORNER_LEN`
    CornerLen,
    /// `CORNER_PAIR`
    CornerPair,
    /// `ATOMIC_SPELLING_CORNER`
    AtomicSpellingCorner,
}

/// A corner rule of an autogen string.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CornerRule {
    pub kind: CornerKind,
    /// Turn range in degrees (left turns negative). For a pair, the first corner's.
    pub angle: [f32; 2],
    /// `CORNER_LEN`/atomic: range for the previous segment's length.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub len1: Option<[f32; 2]>,
    /// `CORNER_LEN`/atomic: range for the next segment's length.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub len2: Option<[f32; 2]>,
    /// `CORNER_PAIR`: the second corner's turn range.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub angle2: Option<[f32; 2]>,
    /// `CORNER_PAIR`: length range of the side between the two corners.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pair_len: Option<[f32; 2]>,
    /// Group the previous corner must be in (0: any).
    pub group: u32,
    /// One tile, or three for an articulated corner.
    pub tiles: Vec<i64>,
    /// `CORNER_ORDER`: placement order of a 3-tile corner (default middle, preceding,
    /// trailing = `[1, 0, 2]`).
    pub order: [u8; 3],
    /// Priority tier (0 first), from `PRIORITY_MARKER_CORNER`.
    pub priority: u32,
    pub line: u32,
    #[serde(skip)]
    tile_cols: Vec<u32>,
}

/// An edge spelling of an autogen string.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct EdgeSpelling {
    pub tiles: Vec<i64>,
    /// `ATOMIC_SPELLING`: side length range (meters) and group of the previous tile.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub atomic: Option<AtomicRule>,
    /// Priority tier (0 first), from `PRIORITY_MARKER`.
    pub priority: u32,
    pub line: u32,
    #[serde(skip)]
    tile_cols: Vec<u32>,
}

/// The extra conditions of an `ATOMIC_SPELLING`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct AtomicRule {
    pub length: [f32; 2],
    pub group: u32,
}

/// `GROUP group-id tile-id …`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TileGroup {
    pub id: u32,
    pub tiles: Vec<i64>,
    pub line: u32,
    #[serde(skip)]
    tile_cols: Vec<u32>,
}

/// Everything specific to an autogen string.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct StringRules {
    /// `CREASING_ANGLE` / `CREASE_ANGLE`: left and right, degrees (default 30 each).
    pub crease_left: f32,
    pub crease_right: f32,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fill_layer: Option<i32>,
    pub share_y: bool,
    pub groups: Vec<TileGroup>,
    pub corners: Vec<CornerRule>,
    pub spellings: Vec<EdgeSpelling>,
    /// Tiles eligible as caps (all `CAPS` lines together, in order).
    pub caps: Vec<i64>,
    #[serde(skip)]
    caps_at: Vec<(u32, u32)>,
}

impl Default for StringRules {
    fn default() -> Self {
        StringRules {
            crease_left: 30.0,
            crease_right: 30.0,
            fill_layer: None,
            share_y: false,
            groups: Vec::new(),
            corners: Vec::new(),
            spellings: Vec::new(),
            caps: Vec::new(),
            caps_at: Vec::new(),
        }
    }
}

impl StringRules {
    /// Whether tile `tile` belongs to group `group` (group 0 matches every tile).
    pub fn in_group(&self, group: u32, tile: i64) -> bool {
        group == 0
            || self
                .groups
                .iter()
                .any(|g| g.id == group && g.tiles.contains(&tile))
    }
}

/// Twice the signed area of a polygon (positive when counter-clockwise): the one rule,
/// `agview_core::geom::signed_area2`.
pub use agview_core::geom::signed_area2 as signed_area;

#[cfg(test)]
mod tests;
