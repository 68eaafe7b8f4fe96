//! The autogen reader: one pass over the directives, building the [`Autogen`] as it goes.
//! What can only be checked once the whole file is read is left to [`super::validate`].

use std::collections::HashMap;
use std::path::Path;

use super::{
    signed_area, validate, Annotation, AnnotationKind, ArtDecl, AtomicRule, Autogen, AutogenKind,
    CornerKind, CornerRule, EdgeSpelling, Grid, GridSpan, GroundPtFormula, ObjPlacement, Spelling,
    SpellingSet, StringRules, Tile, TileGroup,
};
use crate::diag::{Diagnostic, Severity};
use crate::format::text::{read_header, Line, TextFile};

/// Directives real files carry that a previewer reads past without a warning.
const READ_PAST: &[&str] = &[
    "NO_BLEND",
    "BLEND_ALPHA",
    "BLEND_HASH",
    "NO_ALPHA",
    "DITHER_ALPHA",
    "SPECULAR",
    "BUMP_LEVEL",
    "NO_SHADOW",
    "SHADOW_BLEND",
    "NORMAL_METALNESS",
    "NORMAL_TRANSLUCENCY",
    "DECAL",
    "DECAL_RGBA",
    "DECAL_KEYED",
    "DECAL_PARAMS",
    "DECAL_PARAMS_PROJ",
    "DECAL_LIB",
    "NO_DECAL",
    "WEATHER",
    "WEATHER_TRANSPARENT",
    "DRY_TEXTURE",
    "SURFACE",
    "MESH_SHADER",
    "TEXTURE_TILE",
    "MINIMUM_OVERLAP",
    "EXPORT",
    "LOAD_CENTER",
    "TILE_AREA",
    "CONTROL_SHADER",
    "CONTROL_TEXTURE",
    "NORMAL_SCALE",
    "TEXTURE_SPECULAR",
];

/// Texture directives beyond `TEXTURE`, kept with their path.
const OTHER_TEXTURES: &[&str] = &[
    "TEXTURE_LIT",
    "TEXTURE_NORMAL",
    "TEXTURE_DETAIL",
    "TEXTURE_CONTROL",
    "TEXTURE_TERRAIN",
];

/// Where the next annotation goes.
#[derive(Clone, Copy, PartialEq)]
enum Target {
    None,
    Tile(usize),
    Grid(usize),
}

/// State of the AGB grid being read.
#[derive(Default)]
struct CutState {
    cuts_h: Vec<(f32, u32)>,
    cuts_v: Vec<(f32, u32)>,
    slop_h: HashMap<usize, f32>,
    slop_v: HashMap<usize, f32>,
    anti_h: HashMap<usize, f32>,
    anti_v: HashMap<usize, f32>,
    overlap_h: f32,
    overlap_v: f32,
    start_line: u32,
}

struct Reader<'a, 'w> {
    path: &'a Path,
    warnings: &'w mut Vec<Diagnostic>,
    ag: Autogen,
    target: Target,
    /// AGB: cuts of the grid being read, until `END_CUTS`.
    cutting: Option<CutState>,
    /// AGS: the next tile's `TILE_ID`.
    next_tile_id: Option<(i64, u32)>,
    /// Whether each tile's id came from a `TILE_ID` (else it is its index in file order).
    explicit_id: Vec<bool>,
    named_s: HashMap<String, Vec<(usize, u32)>>,
    named_t: HashMap<String, Vec<(usize, u32)>>,
    /// The line of each `DEFINE_SPELLING_*` name, by direction, to warn on a second one.
    named_lines: HashMap<(bool, String), u32>,
    corner_tier: u32,
    spelling_tier: u32,
    /// Where an annotation names an object/facade index not declared (yet) when it was
    /// read, for the end-of-file check. (Declarations only grow, so an index in range when
    /// read stays in range.)
    index_refs: Vec<(bool, usize, u32, u32)>,
}

/// Reads an `.agp`, `.agb` or `.ags` file.
pub fn parse(
    path: &Path,
    src: &[u8],
    warnings: &mut Vec<Diagnostic>,
) -> Result<Autogen, Diagnostic> {
    let src = crate::format::text::readable(src);
    let mut tf = TextFile::new(path, &src);
    let header = read_header(
        &mut tf,
        &[
            (&[1000], "AG_POINT"),
            (&[1000], "AG_BLOCK"),
            (&[1000], "AG_STRING"),
        ],
    )?;
    let kind = match header.kind.as_str() {
        "AG_POINT" => AutogenKind::Agp,
        "AG_BLOCK" => AutogenKind::Agb,
        _ => AutogenKind::Ags,
    };
    let mut r = Reader {
        path,
        warnings,
        ag: Autogen {
            kind,
            version: header.version,
            texture: None,
            other_textures: Vec::new(),
            texture_scale: None,
            texture_width: None,
            texture_height: None,
            vegetation: None,
            objects: Vec::new(),
            facades: Vec::new(),
            hide_tiles: false,
            tile_lod: None,
            layer_group: None,
            slope_limit: None,
            crop: false,
            flip_180: false,
            tiles: Vec::new(),
            grids: Vec::new(),
            spelling_sets: Vec::new(),
            string: (kind == AutogenKind::Ags).then(StringRules::default),
            ignored: Vec::new(),
        },
        target: Target::None,
        cutting: None,
        next_tile_id: None,
        explicit_id: Vec::new(),
        named_s: HashMap::new(),
        named_t: HashMap::new(),
        named_lines: HashMap::new(),
        corner_tier: 0,
        spelling_tier: 0,
        index_refs: Vec::new(),
    };
    while let Some(line) = tf.next() {
        r.directive(line?)?;
    }
    r.finish(&tf)
}

fn pt(l: &mut Line<'_>, what: &str) -> Result<[f32; 2], Diagnostic> {
    Ok([
        l.f32_lazy(|| format!("{what} x"))?,
        l.f32_lazy(|| format!("{what} y"))?,
    ])
}

fn range(l: &mut Line<'_>, what: &str) -> Result<[f32; 2], Diagnostic> {
    let col = l.next_col();
    let lo = l.f32_lazy(|| format!("{what} min"))?;
    let hi = l.f32_lazy(|| format!("{what} max"))?;
    if lo > hi {
        return Err(l.error(
            col,
            format!("{}: {what} range is empty: min {lo} > max {hi}", l.keyword),
        ));
    }
    Ok([lo, hi])
}

fn rect(l: &mut Line<'_>) -> Result<[f32; 4], Diagnostic> {
    let col = l.keyword_col;
    let r = [
        l.f32("left")?,
        l.f32("bottom")?,
        l.f32("right")?,
        l.f32("top")?,
    ];
    if r[2] <= r[0] || r[3] <= r[1] {
        return Err(l.error(
            col,
            format!(
                "{}: empty rectangle: right must exceed left and top exceed bottom (got {} {} {} {})",
                l.keyword, r[0], r[1], r[2], r[3]
            ),
        ));
    }
    Ok(r)
}

/// Optional `lo hi` show levels, each 1..=6 with lo ≤ hi.
fn show_levels(l: &mut Line<'_>) -> Result<Option<[u8; 2]>, Diagnostic> {
    if l.at_end() {
        return Ok(None);
    }
    let col = l.next_col();
    let lo = l.int_in("lo", 1, 6)? as u8;
    let hi = l.int_in("hi", 1, 6)? as u8;
    if lo > hi {
        return Err(l.error(
            col,
            format!(
                "{}: show levels must satisfy lo <= hi, got {lo} {hi}",
                l.keyword
            ),
        ));
    }
    Ok(Some([lo, hi]))
}

/// A list of tile ids to the end of the line, at least `min` of them.
fn tile_ids(l: &mut Line<'_>, min: usize) -> Result<(Vec<i64>, Vec<u32>), Diagnostic> {
    let mut ids = Vec::new();
    let mut cols = Vec::new();
    while !l.at_end() {
        let col = l.next_col();
        ids.push(l.i64("tile-id")?);
        cols.push(col);
    }
    if ids.len() < min {
        l.word("tile-id")?;
    }
    Ok((ids, cols))
}

impl Reader<'_, '_> {
    fn warn(&mut self, d: Diagnostic) {
        self.warnings.push(d);
    }

    fn only_for(&mut self, l: &mut Line<'_>, kinds: &[AutogenKind]) -> bool {
        if kinds.contains(&self.ag.kind) {
            return true;
        }
        l.skip_rest();
        let names: Vec<&str> = kinds.iter().map(|k| k.header_name()).collect();
        self.warn(l.warning_kw(format!(
            "{} applies to {} only; ignored in this {}",
            l.keyword,
            names.join(" and "),
            self.ag.kind.header_name()
        )));
        false
    }

    fn string_rules(&mut self) -> &mut StringRules {
        self.ag.string.get_or_insert_with(StringRules::default)
    }

    fn directive(&mut self, mut l: Line<'_>) -> Result<(), Diagnostic> {
        use AutogenKind::*;
        let kw = l.keyword;
        match kw {
            "TEXTURE" => {
                let p = l.rest("path")?;
                self.ag.texture = Some(ArtDecl {
                    path: p.into(),
                    line: l.number,
                });
            }
            "TEXTURE_SCALE" => {
                let w = self.positive(&mut l, "width pixels")?;
                let h = self.positive(&mut l, "height pixels")?;
                self.ag.texture_scale = Some([w, h]);
            }
            "TEXTURE_WIDTH" => self.ag.texture_width = Some(self.positive(&mut l, "meters")?),
            "TEXTURE_HEIGHT" => self.ag.texture_height = Some(self.positive(&mut l, "meters")?),
            "VEGETATION" => {
                let p = l.rest("path for .for")?;
                if let Some(prev) = &self.ag.vegetation {
                    let msg = format!(
                        "VEGETATION: only one forest may be given; this replaces the one on line {}",
                        prev.line
                    );
                    self.warn(l.warning_kw(msg));
                }
                self.ag.vegetation = Some(ArtDecl {
                    path: p.into(),
                    line: l.number,
                });
            }
            "OBJECT" => {
                let p = l.rest("path for .obj")?;
                self.ag.objects.push(ArtDecl {
                    path: p.into(),
                    line: l.number,
                });
            }
            "FACADE" => {
                let p = l.rest("path for .fac")?;
                self.ag.facades.push(ArtDecl {
                    path: p.into(),
                    line: l.number,
                });
            }
            "HIDE_TILES" | "HIDE_TILE" => self.ag.hide_tiles = true,
            "TILE_LOD" => self.ag.tile_lod = Some(self.positive(&mut l, "distance in meters")?),
            "LAYER_GROUP" => {
                let offset = l.int_in("offset index", -5, 5)? as i32;
                let name = l.word("group name")?;
                self.ag.layer_group = Some((name.to_string(), offset));
            }
            "SLOPE_LIMIT" => {
                self.ag.slope_limit = Some([
                    l.f32("min pitch")?,
                    l.f32("max pitch")?,
                    l.f32("min roll")?,
                    l.f32("max roll")?,
                ])
            }
            "TILE_ID" => {
                if self.only_for(&mut l, &[Ags]) {
                    let col = l.next_col();
                    self.next_tile_id = Some((l.i64("id")?, col));
                } else {
                    l.expect_end(&mut Vec::new());
                }
            }
            "TILE" => self.tile(&mut l)?,
            "ROTATION" => {
                let n = l.i64("n")?;
                let t = self.current_tile(&l)?;
                self.ag.tiles[t].rotation = n.rem_euclid(4) as u8;
            }
            "ANCHOR_PT" => {
                let p = pt(&mut l, "anchor")?;
                let t = self.current_tile(&l)?;
                self.ag.tiles[t].anchor = Some(p);
            }
            "GROUND_PT" => {
                let p = pt(&mut l, "ground")?;
                let t = self.current_tile(&l)?;
                self.ag.tiles[t].ground = Some(p);
            }
            "CROP_POLY" => {
                let mut pts = Vec::new();
                while !l.at_end() {
                    pts.push(pt(&mut l, "crop point")?);
                }
                if pts.len() < 3 {
                    return Err(l.error_kw(format!(
                        "CROP_POLY needs at least 3 point pairs, found {}",
                        pts.len()
                    )));
                }
                if signed_area(&pts) > 0.0 {
                    self.warn(l.warning_kw(
                        "CROP_POLY should be clockwise; it is counter-clockwise and will be reversed",
                    ));
                }
                let t = self.current_tile(&l)?;
                self.ag.tiles[t].crop_poly = Some(pts);
            }
            "STOP_PT" | "PIVOT_LEAD_PT" | "PIVOT_TRAIL_PT" => {
                if !self.only_for(&mut l, &[Ags]) {
                    return Ok(());
                }
                let p = pt(&mut l, "point")?;
                let t = self.current_tile(&l)?;
                self.check_in_tile(&l, t, p);
                let tile = &mut self.ag.tiles[t];
                match kw {
                    "STOP_PT" => tile.stop_points.push(p),
                    "PIVOT_LEAD_PT" => tile.pivot_lead = Some(p),
                    _ => tile.pivot_trail = Some(p),
                }
            }
            "OBJ_DRAPED" | "OBJ_GRADED" | "OBJ_SCRAPER" | "OBJ_DELTA" | "FAC" | "FAC_WALLS"
            | "TREE" | "TREE_LINE" => self.annotation(&mut l)?,
            // --- AGB ---
            "CROP" => {
                if self.only_for(&mut l, &[Agb]) {
                    self.ag.crop = l.int_in("0|1", 0, 1)? == 1;
                }
            }
            "FLIP_180" => {
                if self.only_for(&mut l, &[Agb]) {
                    self.ag.flip_180 = true;
                }
            }
            "SUB_GRID" => {
                if self.only_for(&mut l, &[Agb]) {
                    self.close_grid_check(&l)?;
                    self.cutting = Some(CutState {
                        start_line: l.number,
                        ..Default::default()
                    });
                }
            }
            "OVERLAP_H" | "OVERLAP_V" | "CUT_H" | "CUT_V" | "SLOP_H" | "SLOP_V" | "ANTISLOP_H"
            | "ANTISLOP_V" => {
                if self.only_for(&mut l, &[Agb]) {
                    self.cut_directive(&mut l)?;
                }
            }
            "END_CUTS" => {
                if self.only_for(&mut l, &[Agb]) {
                    self.end_cuts(&l)?;
                }
            }
            "EDGE_MIN" | "EDGE_BEST" | "EDGE_MAX" => {
                if self.only_for(&mut l, &[Agb]) {
                    let r = rect(&mut l)?;
                    let g = self.current_grid(&l)?;
                    let grid = &mut self.ag.grids[g];
                    match kw {
                        "EDGE_MIN" => grid.edge_min = Some(r),
                        "EDGE_BEST" => grid.edge_best = Some(r),
                        _ => grid.edge_max = Some(r),
                    }
                }
            }
            "GROUND_PT_FORMULA" => {
                if self.only_for(&mut l, &[Agb]) {
                    let f = GroundPtFormula {
                        after: 0,
                        x_ratio: l.f32("x-ratio")?,
                        x_delta: l.f32("x-delta")?,
                        y_ratio: l.f32("y-ratio")?,
                        y_delta: l.f32("y-delta")?,
                        line: l.number,
                    };
                    let g = self.current_grid(&l)?;
                    let grid = &mut self.ag.grids[g];
                    if grid.annotations.is_empty() {
                        return Err(l.error_kw(
                            "GROUND_PT_FORMULA must follow the annotation (e.g. OBJ_GRADED) whose tile it applies to",
                        ));
                    }
                    grid.ground_formulas.push(GroundPtFormula {
                        after: grid.annotations.len() - 1,
                        ..f
                    });
                }
            }
            "SPELLING_SET" => {
                if self.only_for(&mut l, &[Agb]) {
                    self.close_grid_check(&l)?;
                    let param = l.int_in("param", 0, 255)? as u32;
                    self.ag.spelling_sets.push(SpellingSet {
                        param,
                        height_range: None,
                        width_range: None,
                        depth_range: None,
                        frequency: 1.0,
                        grid: 0,
                        spellings_s: Vec::new(),
                        spellings_t: Vec::new(),
                        line: l.number,
                        grid_at: None,
                    });
                    self.target = Target::None;
                }
            }
            "HEIGHT_RANGE" | "WIDTH_RANGE" | "DEPTH_RANGE" | "FREQUENCY" | "USE_GRID"
            | "SPELLING_S" | "SPELLING_T" | "USE_SPELLING_S" | "USE_SPELLING_T"
            | "USE_SPELLING_t" => {
                if self.only_for(&mut l, &[Agb]) {
                    self.spelling_set_directive(&mut l)?;
                }
            }
            "DEFINE_SPELLING_S" | "DEFINE_SPELLING_T" => {
                if self.only_for(&mut l, &[Agb]) {
                    let name = l.word("name")?.to_string();
                    let (ids, cols) = self.index_list(&mut l)?;
                    let is_s = kw.ends_with('S');
                    if let Some(first) = self.named_lines.insert((is_s, name.clone()), l.number) {
                        self.warn(l.warning_kw(format!(
                            "{kw}: `{name}` is already defined on line {first}; this definition replaces it for the USE_SPELLING lines after it"
                        )));
                    }
                    let map = if is_s {
                        &mut self.named_s
                    } else {
                        &mut self.named_t
                    };
                    map.insert(name, ids.into_iter().zip(cols).collect());
                }
            }
            // --- AGS ---
            "CREASING_ANGLE" | "CREASE_ANGLE" => {
                if self.only_for(&mut l, &[Ags]) {
                    let left = l.f32("left-crease-degrees")?;
                    let right = l.f32("right-crease-degrees")?;
                    for (v, w) in [(left, "left"), (right, "right")] {
                        if !(0.0..=180.0).contains(&v) {
                            return Err(l.error_kw(format!(
                                "{kw}: {w} crease angle {v} is outside 0..180 degrees"
                            )));
                        }
                    }
                    let s = self.string_rules();
                    s.crease_left = left;
                    s.crease_right = right;
                }
            }
            "FILL_LAYER" => {
                if self.only_for(&mut l, &[Ags]) {
                    let v = l.int_in("layer-number", i32::MIN as i64, i32::MAX as i64)? as i32;
                    self.string_rules().fill_layer = Some(v);
                }
            }
            "SHARE_Y" => {
                if self.only_for(&mut l, &[Ags]) {
                    self.string_rules().share_y = true;
                }
            }
            "GROUP" => {
                if self.only_for(&mut l, &[Ags]) {
                    let col = l.next_col();
                    let id = l
                        .int_in("group-id", 1, u32::MAX as i64)
                        .map_err(|_| l.error(col, "GROUP: <group-id> must be a positive integer"))?
                        as u32;
                    let (tiles, tile_cols) = tile_ids(&mut l, 1)?;
                    let line = l.number;
                    self.string_rules().groups.push(TileGroup {
                        id,
                        tiles,
                        line,
                        tile_cols,
                    });
                }
            }
            "CORNER" | "CORNER_LEN" | "CORNER_PAIR" | "ATOMIC_SPELLING_CORNER" => {
                if self.only_for(&mut l, &[Ags]) {
                    self.corner(&mut l)?;
                }
            }
            "CORNER_ORDER" => {
                if self.only_for(&mut l, &[Ags]) {
                    let mut order = [0u8; 3];
                    for o in &mut order {
                        *o = l.int_in("index", 0, 2)? as u8;
                    }
                    let mut sorted = order;
                    sorted.sort_unstable();
                    if sorted != [0, 1, 2] {
                        return Err(l.error_kw(format!(
                            "CORNER_ORDER must list 0, 1 and 2 once each, got {} {} {}",
                            order[0], order[1], order[2]
                        )));
                    }
                    let s = self.string_rules();
                    match s.corners.last_mut() {
                        Some(c) if c.tiles.len() == 3 => c.order = order,
                        Some(c) => {
                            let n = c.tiles.len();
                            return Err(l.error_kw(format!(
                                "CORNER_ORDER follows a corner with {n} tile(s); it applies only to 3-tile corners"
                            )));
                        }
                        None => {
                            return Err(l.error_kw("CORNER_ORDER must follow a corner directive"))
                        }
                    }
                }
            }
            "PRIORITY_MARKER_CORNER" => {
                if self.only_for(&mut l, &[Ags]) {
                    self.corner_tier += 1;
                }
            }
            "PRIORITY_MARKER" => {
                if self.only_for(&mut l, &[Ags]) {
                    self.spelling_tier += 1;
                }
            }
            "SPELLING" | "ATOMIC_SPELLING" => {
                if self.only_for(&mut l, &[Ags]) {
                    let atomic = if kw == "ATOMIC_SPELLING" {
                        Some(AtomicRule {
                            length: range(&mut l, "length")?,
                            group: l.u32("group-id")?,
                        })
                    } else {
                        None
                    };
                    let (tiles, tile_cols) = tile_ids(&mut l, 1)?;
                    let priority = self.spelling_tier;
                    let line = l.number;
                    self.string_rules().spellings.push(EdgeSpelling {
                        tiles,
                        atomic,
                        priority,
                        line,
                        tile_cols,
                    });
                }
            }
            "CAPS" => {
                if self.only_for(&mut l, &[Ags]) {
                    let (tiles, cols) = tile_ids(&mut l, 1)?;
                    let line = l.number;
                    let s = self.string_rules();
                    s.caps.extend(tiles);
                    s.caps_at.extend(cols.into_iter().map(|c| (line, c)));
                }
            }
            k if OTHER_TEXTURES.contains(&k) => match l.rest("path") {
                Ok(p) => self.ag.other_textures.push((
                    k.to_string(),
                    ArtDecl {
                        path: p.into(),
                        line: l.number,
                    },
                )),
                // The tiles can be drawn without it (no glow, no normal map): a warning,
                // and the rest of the asset is read.
                Err(e) => self.warn(Diagnostic {
                    severity: Severity::Warning,
                    message: format!("{}; ignored", e.message),
                    ..e
                }),
            },
            k if READ_PAST.contains(&k) || k.starts_with("DECAL") || k.starts_with("WEATHER") => {
                self.ag.ignored.push((k.to_string(), l.number));
                return Ok(());
            }
            _ => {
                let msg = format!("unknown directive `{kw}` ignored");
                self.warn(
                    l.warning_kw(msg)
                        .with_kind(crate::diag::kind::UNKNOWN_DIRECTIVE),
                );
                return Ok(());
            }
        }
        l.expect_end(self.warnings);
        Ok(())
    }

    fn positive(&mut self, l: &mut Line<'_>, what: &str) -> Result<f32, Diagnostic> {
        let col = l.next_col();
        let v = l.f32(what)?;
        if v <= 0.0 {
            return Err(l.error(
                col,
                format!("{}: <{what}> must be positive, got {v}", l.keyword),
            ));
        }
        Ok(v)
    }

    fn tile(&mut self, l: &mut Line<'_>) -> Result<(), Diagnostic> {
        if self.ag.kind == AutogenKind::Agb {
            return Err(l.error_kw(
                "TILE is not used in an AG_BLOCK: the grid's tiles come from CUT_H/CUT_V",
            ));
        }
        let r = rect(l)?;
        let index = self.ag.tiles.len();
        // The previous tile is complete: give back the growth slack of its annotations.
        if let Some(prev) = self.ag.tiles.last_mut() {
            prev.annotations.shrink_to_fit();
        }
        // The spec: "If TILE_ID is omitted, tiles are assigned integers in file order
        // starting from 0." Two explicit ids alike are an error; an explicit id equal to
        // another tile's implicit one is a warning naming both lines, and rules naming that
        // id take the first of the two tiles in file order.
        let (id, explicit) = match self.next_tile_id.take() {
            Some((id, col)) => {
                let at = l.number.saturating_sub(1).max(1);
                if let Some(k) = self.ag.tiles.iter().position(|t| t.id == id) {
                    let prev = &self.ag.tiles[k];
                    if self.explicit_id.get(k).copied().unwrap_or(true) {
                        return Err(Diagnostic::error_at(
                            self.path,
                            at,
                            col,
                            format!(
                                "TILE_ID {id} is already used by the tile on line {}",
                                prev.line
                            ),
                        ));
                    }
                    let msg = format!(
                        "TILE_ID {id} is also the implicit id of the tile on line {} (its index in file order; it has no TILE_ID): rules naming {id} use that tile, not the one on line {}",
                        prev.line, l.number
                    );
                    self.warn(Diagnostic::warning_at(self.path, at, col, msg));
                }
                (id, true)
            }
            None => {
                let id = index as i64;
                if let Some(prev) = self.ag.tiles.iter().find(|t| t.id == id) {
                    let msg = format!(
                        "this tile's implicit id {id} (its index in file order; it has no TILE_ID) is the TILE_ID of the tile on line {}: rules naming {id} use that tile, not this one",
                        prev.line
                    );
                    self.warn(l.warning_kw(msg));
                }
                (id, false)
            }
        };
        self.explicit_id.push(explicit);
        // Tiles of one file tend to carry alike numbers of annotations: start this one with
        // room for as many as the previous had, so its list is not grown step by step.
        let expect = self.ag.tiles.last().map_or(0, |t| t.annotations.len());
        self.ag.tiles.push(Tile {
            id,
            rect: r,
            rotation: 0,
            anchor: None,
            ground: None,
            crop_poly: None,
            stop_points: Vec::new(),
            pivot_lead: None,
            pivot_trail: None,
            annotations: Vec::with_capacity(expect),
            line: l.number,
        });
        self.target = Target::Tile(index);
        Ok(())
    }

    fn current_tile(&self, l: &Line<'_>) -> Result<usize, Diagnostic> {
        match self.target {
            Target::Tile(t) => Ok(t),
            _ => Err(l.error_kw(format!("{} must follow a TILE", l.keyword))),
        }
    }

    fn current_grid(&self, l: &Line<'_>) -> Result<usize, Diagnostic> {
        if self.cutting.is_some() {
            return Err(l.error_kw(format!(
                "{} must come after END_CUTS of its grid",
                l.keyword
            )));
        }
        match self.target {
            Target::Grid(g) => Ok(g),
            _ => Err(l.error_kw(format!(
                "{} must follow a grid (SUB_GRID … END_CUTS) and come before the spelling sets",
                l.keyword
            ))),
        }
    }

    fn check_in_tile(&mut self, l: &Line<'_>, t: usize, p: [f32; 2]) {
        let r = self.ag.tiles[t].rect;
        let eps = 0.5;
        if p[0] < r[0] - eps || p[0] > r[2] + eps || p[1] < r[1] - eps || p[1] > r[3] + eps {
            let line = self.ag.tiles[t].line;
            self.warn(l.warning_kw(format!(
                "{}: point ({}, {}) lies outside its tile ({} {} {} {}, line {line})",
                l.keyword, p[0], p[1], r[0], r[1], r[2], r[3]
            )));
        }
    }

    fn annotation(&mut self, l: &mut Line<'_>) -> Result<(), Diagnostic> {
        let kw = l.keyword;
        let kind = match kw {
            "OBJ_DRAPED" | "OBJ_GRADED" | "OBJ_SCRAPER" | "OBJ_DELTA" => {
                let pos = pt(l, "pixel")?;
                let heading = l.f32("heading")?;
                let mut offset = 0.0;
                if kw == "OBJ_DELTA" {
                    offset = l.f32("height offset")?;
                }
                let icol = l.next_col();
                let index = l.index("index")?;
                let placement = match kw {
                    "OBJ_DRAPED" => ObjPlacement::Draped,
                    "OBJ_GRADED" => ObjPlacement::Graded,
                    "OBJ_DELTA" => ObjPlacement::Delta { offset },
                    _ => {
                        let min = l.f32("min")?;
                        let max = l.f32("max")?;
                        let scol = l.next_col();
                        let step = l.f32("step")?;
                        if step <= 0.0 {
                            return Err(l.error(scol, "OBJ_SCRAPER: <step> must be positive"));
                        }
                        if max < min {
                            return Err(l.error_kw(format!(
                                "OBJ_SCRAPER: <max> {max} is below <min> {min}"
                            )));
                        }
                        ObjPlacement::Scraper { min, max, step }
                    }
                };
                let show = show_levels(l)?;
                if index >= self.ag.objects.len() {
                    // Not declared yet: checked again once the whole file is read.
                    self.index_refs.push((true, index, l.number, icol));
                }
                AnnotationKind::Object {
                    pos,
                    heading,
                    index,
                    placement,
                    show,
                }
            }
            "FAC" | "FAC_WALLS" => {
                let icol = l.next_col();
                let index = l.index("index")?;
                let height = l.f32("height")?;
                let mut points = Vec::new();
                let mut walls = Vec::new();
                let walled = kw == "FAC_WALLS";
                while !l.at_end() {
                    points.push(pt(l, "pixel")?);
                    if walled {
                        walls.push(l.u32("wall")?);
                    }
                }
                if points.len() < 2 {
                    return Err(l.error_kw(format!(
                        "{kw} needs at least 2 points, found {}",
                        points.len()
                    )));
                }
                if index >= self.ag.facades.len() {
                    self.index_refs.push((false, index, l.number, icol));
                }
                AnnotationKind::Facade {
                    index,
                    height,
                    points,
                    walls: walled.then_some(walls),
                }
            }
            "TREE" => AnnotationKind::Tree {
                pos: pt(l, "pixel")?,
                heading: l.f32("heading")?,
                width: l.f32("width")?,
                layer: l.int_in("layer", i32::MIN as i64, i32::MAX as i64)? as i32,
            },
            _ => AnnotationKind::TreeLine {
                start: pt(l, "start")?,
                end: pt(l, "end")?,
                layer: l.int_in("layer", i32::MIN as i64, i32::MAX as i64)? as i32,
            },
        };
        let ann = Annotation {
            kind,
            line: l.number,
        };
        match self.target {
            Target::Tile(t) => {
                let mut outside = None;
                let r = self.ag.tiles[t].rect;
                ann.for_each_point(|p| {
                    let eps = 0.5;
                    if outside.is_none()
                        && (p[0] < r[0] - eps
                            || p[0] > r[2] + eps
                            || p[1] < r[1] - eps
                            || p[1] > r[3] + eps)
                    {
                        outside = Some(p);
                    }
                });
                if let Some(p) = outside {
                    self.check_in_tile(l, t, p);
                }
                self.ag.tiles[t].annotations.push(ann);
            }
            Target::Grid(g) if self.cutting.is_none() => self.ag.grids[g].annotations.push(ann),
            _ if self.cutting.is_some() => {
                return Err(l.error_kw(format!(
                    "{kw}: annotations of a grid must come after its END_CUTS"
                )))
            }
            _ => {
                let what = if self.ag.kind == AutogenKind::Agb {
                    "a grid's END_CUTS"
                } else {
                    "a TILE"
                };
                return Err(l.error_kw(format!("{kw} must follow {what}")));
            }
        }
        Ok(())
    }

    fn cut_directive(&mut self, l: &mut Line<'_>) -> Result<(), Diagnostic> {
        if self.cutting.is_none() {
            if !self.ag.grids.is_empty() || !self.ag.spelling_sets.is_empty() {
                return Err(l.error_kw(format!(
                    "{}: no grid is open; start one with SUB_GRID (cuts end at END_CUTS)",
                    l.keyword
                )));
            }
            // "If the SUB_GRID directive is omitted, the first grid defined in the file is
            // treated as GRID 0."
            self.cutting = Some(CutState {
                start_line: l.number,
                ..Default::default()
            });
        }
        let kw = l.keyword;
        let col = l.next_col();
        let horizontal = kw.ends_with('H');
        let cs = self.cutting.as_mut().expect("set above");
        match kw {
            "OVERLAP_H" | "OVERLAP_V" => {
                let v = l.f32("pixels")?;
                if v < 0.0 {
                    return Err(l.error(col, format!("{kw}: <pixels> must not be negative")));
                }
                if horizontal {
                    cs.overlap_h = v
                } else {
                    cs.overlap_v = v
                }
            }
            "CUT_H" | "CUT_V" => {
                let v = l.f32("pixels")?;
                let cuts = if horizontal {
                    &mut cs.cuts_h
                } else {
                    &mut cs.cuts_v
                };
                if let Some(&(prev, pline)) = cuts.last() {
                    if v <= prev {
                        return Err(l.error(
                            col,
                            format!(
                                "{kw} {v} is out of order: cuts must increase (previous {kw} {prev} on line {pline})"
                            ),
                        ));
                    }
                }
                cuts.push((v, l.number));
            }
            _ => {
                // SLOP_* / ANTISLOP_*: property of the tile opened by the last cut.
                let cuts = if horizontal { &cs.cuts_h } else { &cs.cuts_v };
                if cuts.is_empty() {
                    let cut = if horizontal { "CUT_H" } else { "CUT_V" };
                    return Err(l.error_kw(format!(
                        "{kw} must follow a {cut} that opens the tile it applies to"
                    )));
                }
                let idx = cuts.len() - 1;
                if kw.starts_with("SLOP") {
                    let overlap = match l.opt_f32("pixels")? {
                        Some(v) if v < 0.0 => {
                            return Err(l.error(col, format!("{kw}: <pixels> must not be negative")))
                        }
                        Some(v) => v,
                        None if horizontal => cs.overlap_h,
                        None => cs.overlap_v,
                    };
                    if horizontal {
                        cs.slop_h.insert(idx, overlap);
                    } else {
                        cs.slop_v.insert(idx, overlap);
                    }
                } else {
                    let v = l.f32("pixels")?;
                    if v < 0.0 {
                        return Err(l.error(col, format!("{kw}: <pixels> must not be negative")));
                    }
                    if horizontal {
                        cs.anti_h.insert(idx, v);
                    } else {
                        cs.anti_v.insert(idx, v);
                    }
                }
            }
        }
        Ok(())
    }

    fn end_cuts(&mut self, l: &Line<'_>) -> Result<(), Diagnostic> {
        let Some(cs) = self.cutting.take() else {
            return Err(l.error_kw("END_CUTS without an open grid (SUB_GRID and its cuts)"));
        };
        let mk = |cuts: &[(f32, u32)],
                  slop: &HashMap<usize, f32>,
                  anti: &HashMap<usize, f32>,
                  dir: &str,
                  warnings: &mut Vec<Diagnostic>|
         -> Result<Vec<GridSpan>, Diagnostic> {
            if cuts.len() < 2 {
                return Err(l.error_kw(format!(
                    "END_CUTS: a grid needs at least two CUT_{dir} lines, found {}",
                    cuts.len()
                )));
            }
            let last = cuts.len() - 1;
            for (&i, _) in slop.iter().chain(anti.iter()) {
                if i == last {
                    return Err(Diagnostic::error_at(
                        l.path(),
                        cuts[last].1,
                        1,
                        format!(
                            "SLOP_{dir}/ANTISLOP_{dir} after the last CUT_{dir}: tile properties must come before the last cut"
                        ),
                    ));
                }
            }
            let spans = cuts
                .windows(2)
                .enumerate()
                .map(|(i, w)| {
                    let mut antislop = anti.get(&i).copied().unwrap_or(0.0);
                    let slop = slop.get(&i).copied();
                    if slop.is_some() && antislop > 0.0 {
                        warnings.push(Diagnostic::warning_at(
                            l.path(),
                            w[0].1,
                            1,
                            format!("tile {i} is slop; its ANTISLOP_{dir} is ignored"),
                        ));
                        antislop = 0.0;
                    }
                    if let Some(ov) = slop {
                        if ov > w[1].0 - w[0].0 {
                            warnings.push(Diagnostic::warning_at(
                                l.path(),
                                w[0].1,
                                1,
                                format!(
                                    "slop tile {i} is {} px wide but its overlap is {ov} px",
                                    w[1].0 - w[0].0
                                ),
                            ));
                        }
                    }
                    GridSpan {
                        start: w[0].0,
                        end: w[1].0,
                        slop,
                        antislop,
                        line: w[0].1,
                    }
                })
                .collect();
            Ok(spans)
        };
        let columns = mk(&cs.cuts_h, &cs.slop_h, &cs.anti_h, "H", self.warnings)?;
        let rows = mk(&cs.cuts_v, &cs.slop_v, &cs.anti_v, "V", self.warnings)?;
        self.ag.grids.push(Grid {
            columns,
            rows,
            edge_min: None,
            edge_best: None,
            edge_max: None,
            annotations: Vec::new(),
            ground_formulas: Vec::new(),
            line: cs.start_line,
        });
        self.target = Target::Grid(self.ag.grids.len() - 1);
        Ok(())
    }

    /// A grid left open (no `END_CUTS`) when something else starts is an error.
    fn close_grid_check(&self, l: &Line<'_>) -> Result<(), Diagnostic> {
        if let Some(cs) = &self.cutting {
            return Err(l.error_kw(format!(
                "END_CUTS missing: the grid started on line {} is still open at {}",
                cs.start_line, l.keyword
            )));
        }
        Ok(())
    }

    fn index_list(&mut self, l: &mut Line<'_>) -> Result<(Vec<usize>, Vec<u32>), Diagnostic> {
        let mut ids = Vec::new();
        let mut cols = Vec::new();
        while !l.at_end() {
            let col = l.next_col();
            ids.push(l.index("index")?);
            cols.push(col);
        }
        if ids.is_empty() {
            l.word("index")?;
        }
        Ok((ids, cols))
    }

    fn spelling_set_directive(&mut self, l: &mut Line<'_>) -> Result<(), Diagnostic> {
        let kw = l.keyword;
        if self.ag.spelling_sets.is_empty() {
            return Err(l.error_kw(format!("{kw} must follow a SPELLING_SET")));
        }
        let value = match kw {
            "HEIGHT_RANGE" | "WIDTH_RANGE" | "DEPTH_RANGE" => {
                let r = range(l, "meters")?;
                let set = self.ag.spelling_sets.last_mut().expect("checked");
                match kw {
                    "HEIGHT_RANGE" => set.height_range = Some(r),
                    "WIDTH_RANGE" => set.width_range = Some(r),
                    _ => set.depth_range = Some(r),
                }
                return Ok(());
            }
            "FREQUENCY" => {
                let col = l.next_col();
                let f = l.f32("ratio")?;
                if f < 0.0 {
                    return Err(l.error(col, "FREQUENCY: <ratio> must not be negative"));
                }
                self.ag.spelling_sets.last_mut().expect("checked").frequency = f;
                return Ok(());
            }
            "USE_GRID" => {
                let col = l.next_col();
                let g = l.index("index")?;
                let set = self.ag.spelling_sets.last_mut().expect("checked");
                set.grid = g;
                set.grid_at = Some((l.number, col));
                return Ok(());
            }
            "SPELLING_S" | "SPELLING_T" => {
                let (ids, cols) = self.index_list(l)?;
                (ids, cols, None)
            }
            _ => {
                let (name, col) = l.word_col("name")?;
                let map = if kw.ends_with('S') {
                    &self.named_s
                } else {
                    &self.named_t
                };
                let Some(list) = map.get(name) else {
                    let dir = if kw.ends_with('S') { 'S' } else { 'T' };
                    return Err(l.error(
                        col,
                        format!("{kw}: no spelling named `{name}` (define it first with DEFINE_SPELLING_{dir})"),
                    ));
                };
                let (ids, _): (Vec<usize>, Vec<u32>) = list.iter().copied().unzip();
                (ids, vec![col; list.len()], Some(name.to_string()))
            }
        };
        let (indices, cols, name) = value;
        let sp = Spelling {
            indices,
            name,
            line: l.number,
            cols,
        };
        let set = self.ag.spelling_sets.last_mut().expect("checked");
        if kw.ends_with('S') {
            set.spellings_s.push(sp);
        } else {
            set.spellings_t.push(sp);
        }
        Ok(())
    }

    fn corner(&mut self, l: &mut Line<'_>) -> Result<(), Diagnostic> {
        let kind = match l.keyword {
            "CORNER" => CornerKind::Corner,
            "CORNER_LEN" => CornerKind::CornerLen,
            "CORNER_PAIR" => CornerKind::CornerPair,
            _ => CornerKind::AtomicSpellingCorner,
        };
        let mut rule = CornerRule {
            kind,
            angle: [0.0; 2],
            len1: None,
            len2: None,
            angle2: None,
            pair_len: None,
            group: 0,
            tiles: Vec::new(),
            order: [1, 0, 2],
            priority: self.corner_tier,
            line: l.number,
            tile_cols: Vec::new(),
        };
        match kind {
            CornerKind::Corner => rule.angle = range(l, "angle")?,
            CornerKind::CornerLen | CornerKind::AtomicSpellingCorner => {
                rule.len1 = Some(range(l, "len1")?);
                rule.angle = range(l, "angle")?;
                rule.len2 = Some(range(l, "len2")?);
                rule.group = l.u32("group-id")?;
            }
            CornerKind::CornerPair => {
                rule.angle = range(l, "angle1")?;
                rule.pair_len = Some(range(l, "length")?);
                rule.angle2 = Some(range(l, "angle2")?);
                rule.group = l.u32("group-id")?;
            }
        }
        let (tiles, cols) = tile_ids(l, 1)?;
        let allowed: &[usize] = if kind == CornerKind::CornerPair {
            &[1, 2, 3]
        } else {
            &[1, 3]
        };
        if !allowed.contains(&tiles.len()) {
            return Err(l.error_kw(format!(
                "{}: a corner is one tile or a three-tile articulated corner; found {} tile ids",
                l.keyword,
                tiles.len()
            )));
        }
        rule.tiles = tiles;
        rule.tile_cols = cols;
        self.string_rules().corners.push(rule);
        Ok(())
    }

    /// The end of the file: a grid or `TILE_ID` left open is an error; then the asset is
    /// checked as a whole ([`validate::check`]).
    fn finish(self, tf: &TextFile<'_>) -> Result<Autogen, Diagnostic> {
        if let Some(cs) = &self.cutting {
            return Err(Diagnostic::error_at(
                self.path,
                cs.start_line,
                1,
                format!(
                    "END_CUTS missing: the grid started on line {} is never closed",
                    cs.start_line
                ),
            ));
        }
        if let Some((_, col)) = self.next_tile_id {
            return Err(Diagnostic::error_at(
                self.path,
                tf.line_number(),
                col,
                "TILE_ID at the end of the file names no TILE",
            ));
        }
        validate::check(&self.ag, self.path, &self.index_refs, tf, self.warnings)?;
        Ok(self.ag)
    }
}
