//! DSF text, as X-Plane's DSFTool writes it (`DSFTool --dsf2text`): the header `A`/`I`,
//! `800`, `DSF2TEXT`, then `PROPERTY` lines, the definition tables (`TERRAIN_DEF`,
//! `OBJECT_DEF`, `POLYGON_DEF`, `NETWORK_DEF`, `RASTER_DEF`), and the placed features.
//!
//! Only what agview draws is kept: properties, object and polygon definitions, `OBJECT`
//! placements and polygons (`BEGIN_POLYGON def param coord_depth`, `BEGIN_WINDING`,
//! `POLYGON_POINT lon lat [more coordinates]`, `END_WINDING`, `END_POLYGON`), and road
//! segments (`NETWORK_DEF`, `BEGIN_SEGMENT`, `SHAPE_POINT`, `END_SEGMENT`, ROADS.md §1.1).
//! Terrain patches and rasters are read past without a word; an unknown keyword is a warning.
//!
//! Road segments: a broken one (a network definition that does not exist, a bad number, a
//! `SHAPE_POINT` or `END_SEGMENT` outside a segment, a segment never ended) is a located
//! error that costs that segment alone; the rest of the file is read. The `_CURVED` forms
//! are read (each point's control is its outgoing bezier handle, as for curved polygons)
//! and warned about once per file: X-Plane's DSF writer never makes them.
//!
//! Decisions where DSFTool is loose (its `Text2DSF` matches lines with `sscanf` and drops
//! what does not match):
//! - A definition must come before the first feature that uses it, as in every file DSFTool
//!   writes and as X-Plane requires; an index past the definitions read so far is an error.
//! - `BEGIN_POLYGON def param` without a coordinate depth means depth 2, as `Text2DSF` reads it.
//! - A `POLYGON_POINT` with fewer coordinates than the polygon's depth is an error (DSFTool
//!   would silently drop the point and change the polygon's shape); extra ones are a warning.
//! - A winding with no point, a polygon with no winding, or an `OBJECT`/definition/patch line
//!   inside an open polygon (a missing `END_POLYGON`) are errors.
//! - Longitudes must lie in -180..=180 and latitudes in -90..=90.
//!
//! Autogen reads the polygon parameter as `round(height_m / 4) << 8 | low`; see
//! [`DsfPolygon::autogen_height_m`] and [`DsfPolygon::autogen_low`].

use std::path::Path;

use serde::Serialize;

use crate::diag::Diagnostic;
use crate::format::text::{parse_f64, read_header, Line, TextFile};

/// The largest `coord_depth` accepted. DSF polygons use 2 (lon lat), 3 (plus a facade wall
/// type or a draped UV), or 4 (bezier control points); DSFTool itself reads at most 8.
pub const MAX_COORD_DEPTH: usize = 8;

/// A `PROPERTY name value` line. The value runs to the end of the line and may hold spaces.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DsfProperty {
    pub name: String,
    pub value: String,
    /// 1-based source line.
    pub line: u32,
}

/// One entry of a definition table (`OBJECT_DEF path`, `POLYGON_DEF path`, …). Features refer
/// to it by its index in the table, counted from 0 in order of appearance.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DsfDef {
    /// The path as written: a library path or a path relative to the scenery package.
    pub path: String,
    /// 1-based source line.
    pub line: u32,
}

/// A placed object: `OBJECT def lon lat heading`, `OBJECT_MSL def lon lat elevation heading`
/// or `OBJECT_AGL def lon lat elevation heading`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DsfObject {
    /// Index into [`DsfText::object_defs`].
    pub def: usize,
    pub lon: f64,
    pub lat: f64,
    /// Degrees clockwise from north.
    pub heading: f64,
    /// Meters: above mean sea level for `OBJECT_MSL`, above the ground for `OBJECT_AGL`;
    /// `None` for `OBJECT` (on the ground).
    pub elevation: Option<f64>,
    /// True for `OBJECT_AGL`.
    pub agl: bool,
    /// 1-based source line.
    pub line: u32,
}

/// A polygon feature: `BEGIN_POLYGON def param coord_depth` … `END_POLYGON`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DsfPolygon {
    /// Index into [`DsfText::polygon_defs`].
    pub def: usize,
    /// The 16-bit polygon parameter. For autogen: `round(height_m / 4) << 8 | low`.
    pub param: u32,
    /// Coordinates per `POLYGON_POINT` (at least 2: longitude, latitude).
    pub coord_depth: usize,
    /// `BEGIN_WINDING` … `END_WINDING` contours, each a list of (longitude, latitude), in file
    /// order (for an AGS the tile-spawning windings come first). As in the DSF, a winding
    /// does not repeat its first point at the end.
    pub windings: Vec<Vec<[f64; 2]>>,
    /// The coordinates past the first two, per winding, `coord_depth - 2` per point in point
    /// order; empty when `coord_depth` is 2.
    pub extra: Vec<Vec<f64>>,
    /// 1-based line of each winding's `BEGIN_WINDING`.
    pub winding_lines: Vec<u32>,
    /// 1-based line of `BEGIN_POLYGON`.
    pub line: u32,
}

impl DsfPolygon {
    /// Building height in meters from the high 8 bits of the parameter (height / 4).
    pub fn autogen_height_m(&self) -> f64 {
        f64::from((self.param >> 8) & 0xFF) * 4.0
    }

    /// The low 8 bits of the parameter: the spelling set for an AGB, the number of
    /// tile-spawning windings for an AGS.
    pub fn autogen_low(&self) -> u8 {
        (self.param & 0xFF) as u8
    }
}

/// One road segment of a network, from junction to junction (ROADS.md §1): text
/// `BEGIN_SEGMENT type subtype id lon lat z`, `SHAPE_POINT lon lat z`…,
/// `END_SEGMENT id lon lat z`, or the stretch of a binary DSF's chain between two
/// junctions (§1.2). What WED's exporter writes for a road edge takes this form too.
#[derive(Debug, Clone, PartialEq, Serialize, Default)]
pub struct DsfSegment {
    /// Index into the network definitions (the text's `<type>`).
    pub def: usize,
    /// The road subtype: the `.net`'s virtual road id.
    pub subtype: u32,
    /// The junction ids of the start and the end (0: none given).
    pub nodes: [u64; 2],
    /// Every vertex from the start junction to the end one, (lon, lat, z). At the two
    /// ends z is the level (§1.5); at a shape point 1 marks a bezier handle, 0 a vertex
    /// (§1.4).
    pub points: Vec<[f64; 3]>,
    /// The `_CURVED` forms (and a binary pool of 7 planes): each vertex's control handle
    /// (lon, lat, z), parallel to `points`. `None` otherwise.
    pub ctrl: Option<Vec<[f64; 3]>>,
    /// Where the segment is: its `BEGIN_SEGMENT` line, or the byte offset of its chain
    /// command.
    pub at: crate::diag::Location,
}

/// A DSF text file (`DSF2TEXT`), reduced to what agview draws.
#[derive(Debug, Clone, PartialEq, Serialize, Default)]
pub struct DsfText {
    pub properties: Vec<DsfProperty>,
    pub terrain_defs: Vec<DsfDef>,
    pub object_defs: Vec<DsfDef>,
    pub polygon_defs: Vec<DsfDef>,
    pub network_defs: Vec<DsfDef>,
    pub raster_defs: Vec<DsfDef>,
    pub objects: Vec<DsfObject>,
    pub polygons: Vec<DsfPolygon>,
    /// Road segments in file order.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub segments: Vec<DsfSegment>,
}

impl DsfText {
    /// The value of the first `PROPERTY` with this name.
    pub fn property(&self, name: &str) -> Option<&str> {
        self.properties
            .iter()
            .find(|p| p.name == name)
            .map(|p| p.value.as_str())
    }

    fn bound(&self, name: &str) -> Option<f64> {
        self.property(name).and_then(first_number)
    }

    /// `PROPERTY sim/west`: the tile's western longitude.
    pub fn west(&self) -> Option<f64> {
        self.bound("sim/west")
    }

    /// `PROPERTY sim/east`: the tile's eastern longitude.
    pub fn east(&self) -> Option<f64> {
        self.bound("sim/east")
    }

    /// `PROPERTY sim/north`: the tile's northern latitude.
    pub fn north(&self) -> Option<f64> {
        self.bound("sim/north")
    }

    /// `PROPERTY sim/south`: the tile's southern latitude.
    pub fn south(&self) -> Option<f64> {
        self.bound("sim/south")
    }

    /// The path of the `POLYGON_DEF` a polygon uses.
    pub fn polygon_def_path(&self, polygon: &DsfPolygon) -> Option<&str> {
        self.polygon_defs.get(polygon.def).map(|d| d.path.as_str())
    }

    /// The path of the `OBJECT_DEF` an object uses.
    pub fn object_def_path(&self, object: &DsfObject) -> Option<&str> {
        self.object_defs.get(object.def).map(|d| d.path.as_str())
    }

    /// Indices of the `POLYGON_DEF`s that name an asset. A definition matches when it and the
    /// asset name are the same path or one ends with the other at a `/` (so
    /// `autogen/block.agb` and `sample_scenery/autogen/block.agb` match); only when no
    /// definition matches that way are definitions with the same file name taken (so the
    /// library path `lib/town/block.agb` matches the file `sample_scenery/autogen/block.agb`).
    /// Backslashes count as `/`; names are compared case-sensitively, as X-Plane does.
    pub fn polygon_defs_matching(&self, asset_name_or_suffix: &str) -> Vec<usize> {
        let want = normalize(asset_name_or_suffix);
        if file_name(&want).is_empty() {
            return Vec::new();
        }
        let by_path: Vec<usize> = self
            .polygon_defs
            .iter()
            .enumerate()
            .filter(|(_, d)| {
                let have = normalize(&d.path);
                path_suffix_match(&have, &want) || path_suffix_match(&want, &have)
            })
            .map(|(i, _)| i)
            .collect();
        if !by_path.is_empty() {
            return by_path;
        }
        self.polygon_defs
            .iter()
            .enumerate()
            .filter(|(_, d)| file_name(&normalize(&d.path)) == file_name(&want))
            .map(|(i, _)| i)
            .collect()
    }

    /// The polygons whose `POLYGON_DEF` names an asset (see [`Self::polygon_defs_matching`]),
    /// in file order.
    pub fn polygons_for(&self, asset_name_or_suffix: &str) -> Vec<&DsfPolygon> {
        let defs = self.polygon_defs_matching(asset_name_or_suffix);
        self.polygons
            .iter()
            .filter(|p| defs.contains(&p.def))
            .collect()
    }
}

/// The first whitespace-separated token of a property value, as a finite number.
fn first_number(value: &str) -> Option<f64> {
    value.split_ascii_whitespace().next().and_then(parse_f64)
}

fn normalize(p: &str) -> String {
    let mut s = p.trim().replace('\\', "/");
    while let Some(rest) = s.strip_prefix("./") {
        s = rest.to_string();
    }
    s
}

fn file_name(p: &str) -> &str {
    p.rsplit('/').next().unwrap_or(p)
}

/// True when `long` is `short` or ends with `/short`.
fn path_suffix_match(long: &str, short: &str) -> bool {
    if short.is_empty() {
        return false;
    }
    long == short
        || (long.len() > short.len()
            && long.ends_with(short)
            && long.as_bytes().get(long.len() - short.len() - 1) == Some(&b'/'))
}

/// Keywords of terrain patches and rasters: read past without a word.
const SKIPPED: &[&str] = &[
    "BEGIN_PATCH",
    "BEGIN_PRIMITIVE",
    "PATCH_VERTEX",
    "END_PRIMITIVE",
    "END_PATCH",
    "RASTER_DATA",
    "FILTER",
    "DIVISIONS",
    "DIVISION_LIMIT",
];

/// The polygon being read, between `BEGIN_POLYGON` and `END_POLYGON`.
struct OpenPolygon {
    polygon: DsfPolygon,
    /// The winding being read: its points, extra coordinates and `BEGIN_WINDING` line.
    winding: Option<(Vec<[f64; 2]>, Vec<f64>, u32)>,
}

/// Reads a DSF text file.
pub fn parse(
    path: &Path,
    src: &[u8],
    warnings: &mut Vec<Diagnostic>,
) -> Result<DsfText, Diagnostic> {
    let src = crate::format::text::readable(src);
    let mut tf = TextFile::new(path, &src);
    read_header(&mut tf, &[(&[800], "DSF2TEXT")])?;
    let mut r = Reader::default();
    while let Some(line) = tf.next() {
        r.line(line?, warnings)?;
    }
    r.finish(&tf, warnings)
}

/// [`parse`] on `threads` workers (0: one per core): the same result, the same warnings in
/// the same order, the same error.
///
/// The header, properties and definitions are read first; the rest (the placed features,
/// the bulk of a tile) is cut into a piece per worker at lines that start a polygon or an
/// object, and each piece is read on its own, its line numbers counted from where it
/// starts. A piece reads as it would in one pass when nothing is open where it starts:
/// when the piece before it closes every polygon and road segment it opens, defines
/// nothing, and at most one piece warns about the `_CURVED` forms. Anything else (an error
/// anywhere included) reads the whole file again in one pass, so what it says is what
/// [`parse`] says.
pub fn parse_parallel(
    path: &Path,
    src: &[u8],
    warnings: &mut Vec<Diagnostic>,
    threads: usize,
) -> Result<DsfText, Diagnostic> {
    let threads = if threads == 0 {
        std::thread::available_parallelism().map_or(1, |n| n.get())
    } else {
        threads
    };
    if threads <= 1 || src.len() < PARALLEL_MIN_BYTES {
        return parse(path, src, warnings);
    }
    parse_in_pieces(path, src, warnings, threads)
}

/// [`parse_parallel`] whatever the file's size, in `threads` pieces at most (public for the
/// `dsf_pieces` fuzz target, which checks it against [`parse`]).
#[doc(hidden)]
pub fn parse_in_pieces(
    path: &Path,
    src: &[u8],
    warnings: &mut Vec<Diagnostic>,
    threads: usize,
) -> Result<DsfText, Diagnostic> {
    let text = crate::format::text::readable(src);
    match read_in_pieces(path, &text, threads) {
        Some((dsf, mut said)) => {
            warnings.append(&mut said);
            Ok(dsf)
        }
        None => parse(path, src, warnings),
    }
}

/// A file shorter than this is read in one pass: the workers would cost more than they save.
const PARALLEL_MIN_BYTES: usize = 1 << 20;

/// [`parse_parallel`]'s reading in pieces; `None` where a piece does not read as it would
/// in one pass (or anything is wrong), and the file must be read in one pass.
fn read_in_pieces(path: &Path, src: &[u8], threads: usize) -> Option<(DsfText, Vec<Diagnostic>)> {
    let mut tf = TextFile::new(path, src);
    read_header(&mut tf, &[(&[800], "DSF2TEXT")]).ok()?;
    let mut said = Vec::new();
    let mut head = Reader::default();
    // The head: properties and definitions, up to the first line that places something.
    let (start, start_line) = loop {
        let at = tf.position();
        let line = match tf.next() {
            None => return Some((head.finish(&tf, &mut said).ok()?, said)),
            Some(line) => line.ok()?,
        };
        if is_placing(line.keyword) {
            break at;
        }
        head.line(line, &mut said).ok()?;
    };
    let body = &src[start..];
    let cuts = cut_points(body, threads);
    let pieces: Vec<&[u8]> = cuts.windows(2).map(|w| &body[w[0]..w[1]]).collect();
    let lines = lines_before(&pieces, start_line)?;
    let read_piece = |k: usize| -> Option<(DsfText, bool, Vec<Diagnostic>)> {
        let mut tf = TextFile::continuing(path, pieces[k], lines[k]);
        let mut r = head.empty_clone();
        let mut said = Vec::new();
        while let Some(line) = tf.next() {
            r.line(line.ok()?, &mut said).ok()?;
        }
        let curved = r.roads.curved_said;
        let dsf = if k + 1 == pieces.len() {
            r.finish(&tf, &mut said).ok()?
        } else if r.open.is_some() || r.roads.open.is_some() {
            return None;
        } else {
            r.dsf
        };
        Some((dsf, curved, said))
    };
    let read: Vec<Option<(DsfText, bool, Vec<Diagnostic>)>> = std::thread::scope(|s| {
        let workers: Vec<_> = (1..pieces.len())
            .map(|k| s.spawn(move || read_piece(k)))
            .collect();
        let mut read = vec![read_piece(0)];
        read.extend(workers.into_iter().map(|w| w.join().ok().flatten()));
        read
    });
    let mut dsf = head.dsf;
    let mut curved = usize::from(head.roads.curved_said);
    for piece in read {
        let (piece, piece_curved, mut piece_said) = piece?;
        let defined = |d: &DsfText| {
            (
                d.properties.len(),
                d.terrain_defs.len(),
                d.object_defs.len(),
                d.polygon_defs.len(),
                d.network_defs.len(),
                d.raster_defs.len(),
            )
        };
        if defined(&piece) != defined(&dsf) {
            return None;
        }
        curved += usize::from(piece_curved);
        let DsfText {
            mut objects,
            mut polygons,
            mut segments,
            ..
        } = piece;
        dsf.objects.append(&mut objects);
        dsf.polygons.append(&mut polygons);
        dsf.segments.append(&mut segments);
        said.append(&mut piece_said);
    }
    (curved <= 1).then_some((dsf, said))
}

/// Keywords that place something (or are part of what does): the head of a file is every
/// line before the first of them.
fn is_placing(kw: &str) -> bool {
    matches!(
        kw,
        "BEGIN_POLYGON"
            | "BEGIN_WINDING"
            | "POLYGON_POINT"
            | "END_WINDING"
            | "END_POLYGON"
            | "OBJECT"
            | "OBJECT_MSL"
            | "OBJECT_AGL"
            | "BEGIN_PATCH"
            | "BEGIN_PRIMITIVE"
            | "PATCH_VERTEX"
            | "END_PRIMITIVE"
            | "END_PATCH"
    ) || SEGMENT_KEYWORDS.contains(&kw)
}

/// Where `body` is cut into about `pieces` pieces of about one size: `0`, the cuts, and
/// `body.len()`. Each cut is at the start of a line that begins with `BEGIN_POLYGON` or
/// `OBJECT` (right after a `\n`).
fn cut_points(body: &[u8], pieces: usize) -> Vec<usize> {
    let mut cuts = vec![0];
    for k in 1..pieces {
        let from = (body.len() / pieces * k).max(cuts[cuts.len() - 1] + 1);
        let mut i = from;
        let cut = loop {
            let Some(nl) = body
                .get(i..)
                .and_then(|b| b.iter().position(|&c| c == b'\n'))
            else {
                break None;
            };
            let at = i + nl + 1;
            let rest = &body[at..];
            if rest.starts_with(b"BEGIN_POLYGON") || rest.starts_with(b"OBJECT") {
                break Some(at);
            }
            i = at;
        };
        match cut {
            Some(at) if at < body.len() => cuts.push(at),
            _ => break,
        }
    }
    cuts.push(body.len());
    cuts
}

/// The lines before each piece, the first piece starting after `first` lines: each piece
/// but the last ends right after a line end, so its lines are its line ends (`\r\n` one,
/// a bare `\r` or `\n` one). `None` past `u32::MAX` lines.
fn lines_before(pieces: &[&[u8]], first: u32) -> Option<Vec<u32>> {
    let count = |b: &[u8]| -> usize {
        let lf = b.iter().filter(|&&c| c == b'\n').count();
        if !b.contains(&b'\r') {
            return lf;
        }
        let lone_cr = b
            .iter()
            .enumerate()
            .filter(|&(i, &c)| c == b'\r' && b.get(i + 1) != Some(&b'\n'))
            .count();
        lf + lone_cr
    };
    let mut at = u64::from(first);
    let mut out = Vec::with_capacity(pieces.len());
    for p in pieces {
        out.push(u32::try_from(at).ok()?);
        at += count(p) as u64;
    }
    Some(out)
}

/// What reading a DSF text has gathered, and what is open at the line it is at.
#[derive(Default)]
struct Reader {
    dsf: DsfText,
    open: Option<OpenPolygon>,
    roads: Roads,
}

impl Reader {
    /// A reader of a piece after this head: its definitions, nothing placed, nothing open.
    fn empty_clone(&self) -> Reader {
        Reader {
            dsf: DsfText {
                properties: self.dsf.properties.clone(),
                terrain_defs: self.dsf.terrain_defs.clone(),
                object_defs: self.dsf.object_defs.clone(),
                polygon_defs: self.dsf.polygon_defs.clone(),
                network_defs: self.dsf.network_defs.clone(),
                raster_defs: self.dsf.raster_defs.clone(),
                ..DsfText::default()
            },
            open: None,
            roads: Roads {
                open: None,
                curved_said: false,
            },
        }
    }

    /// One line.
    fn line(
        &mut self,
        mut line: Line<'_>,
        warnings: &mut Vec<Diagnostic>,
    ) -> Result<(), Diagnostic> {
        let Reader { dsf, open, roads } = self;
        match line.keyword {
            "BEGIN_POLYGON" => {
                if let Some(o) = open.as_ref() {
                    return Err(line.error_kw(format!(
                        "BEGIN_POLYGON inside the polygon begun at line {}: missing END_POLYGON",
                        o.polygon.line
                    )));
                }
                let def = def_index(&mut line, &dsf.polygon_defs, "POLYGON_DEF")?;
                let param = line.int_in("param", 0, 65535)? as u32;
                let coord_depth = if line.at_end() {
                    2
                } else {
                    let col = peek_col(&line);
                    let d = line.i64("coord_depth")?;
                    if d < 2 || d > MAX_COORD_DEPTH as i64 {
                        return Err(line.error(
                            col,
                            format!(
                                "BEGIN_POLYGON: <coord_depth> is {d}; it must be 2..={MAX_COORD_DEPTH} \
                                 (each point has at least a longitude and a latitude)"
                            ),
                        ));
                    }
                    d as usize
                };
                line.expect_end(warnings);
                *open = Some(OpenPolygon {
                    polygon: DsfPolygon {
                        def,
                        param,
                        coord_depth,
                        windings: Vec::new(),
                        extra: Vec::new(),
                        winding_lines: Vec::new(),
                        line: line.number,
                    },
                    winding: None,
                });
            }
            "BEGIN_WINDING" => {
                let Some(o) = open.as_mut() else {
                    return Err(line
                        .error_kw("BEGIN_WINDING outside a polygon: no BEGIN_POLYGON before it"));
                };
                if let Some((_, _, begun)) = &o.winding {
                    return Err(line.error_kw(format!(
                        "BEGIN_WINDING inside the winding begun at line {begun}: missing END_WINDING"
                    )));
                }
                line.expect_end(warnings);
                o.winding = Some((Vec::new(), Vec::new(), line.number));
            }
            "POLYGON_POINT" => {
                let Some(o) = open.as_mut() else {
                    return Err(line.error_kw(
                        "POLYGON_POINT outside a polygon: no BEGIN_POLYGON and BEGIN_WINDING before it",
                    ));
                };
                let depth = o.polygon.coord_depth;
                let Some((points, extra, _)) = o.winding.as_mut() else {
                    return Err(line.error_kw(format!(
                        "POLYGON_POINT outside a winding: missing BEGIN_WINDING in the polygon begun at line {}",
                        o.polygon.line
                    )));
                };
                let lon = degrees(&mut line, "lon", 180.0)?;
                let lat = degrees(&mut line, "lat", 90.0)?;
                for n in 3..=depth {
                    extra.push(line.f64(&format!("coordinate {n} of {depth}"))?);
                }
                line.expect_end(warnings);
                points.push([lon, lat]);
            }
            "END_WINDING" => {
                let Some(o) = open.as_mut() else {
                    return Err(line.error_kw("END_WINDING outside a polygon"));
                };
                let Some((points, extra, begun)) = o.winding.take() else {
                    return Err(line.error_kw("END_WINDING without BEGIN_WINDING"));
                };
                if points.is_empty() {
                    return Err(line.error_kw(format!(
                        "empty winding: no POLYGON_POINT between BEGIN_WINDING (line {begun}) and END_WINDING"
                    )));
                }
                line.expect_end(warnings);
                o.polygon.windings.push(points);
                o.polygon.extra.push(extra);
                o.polygon.winding_lines.push(begun);
            }
            "END_POLYGON" => {
                let Some(o) = open.take() else {
                    return Err(line.error_kw("END_POLYGON without BEGIN_POLYGON"));
                };
                if let Some((_, _, begun)) = o.winding {
                    return Err(line.error_kw(format!(
                        "END_POLYGON inside the winding begun at line {begun}: missing END_WINDING"
                    )));
                }
                if o.polygon.windings.is_empty() {
                    return Err(line.error_kw(format!(
                        "the polygon begun at line {} has no winding (BEGIN_WINDING … END_WINDING)",
                        o.polygon.line
                    )));
                }
                line.expect_end(warnings);
                dsf.polygons.push(o.polygon);
            }
            kw if !is_known(kw) => {
                warnings.push(line.warning_kw(format!("unknown DSF text keyword `{kw}` ignored")));
            }
            kw if SEGMENT_KEYWORDS.contains(&kw) && open.is_none() => {
                roads.line(&mut line, dsf, warnings);
            }
            kw => {
                if let Some(o) = open.as_ref() {
                    return Err(line.error_kw(format!(
                        "{kw} inside the polygon begun at line {}: missing END_POLYGON",
                        o.polygon.line
                    )));
                }
                read_outside_polygon(&mut line, dsf, warnings)?;
            }
        }
        Ok(())
    }

    /// What the end of the file says: a polygon or road segment left open.
    fn finish(
        self,
        tf: &TextFile<'_>,
        warnings: &mut Vec<Diagnostic>,
    ) -> Result<DsfText, Diagnostic> {
        if let Some(o) = self.open {
            return Err(tf.error_at_end(format!(
                "end of file inside the polygon begun at line {}: missing END_POLYGON",
                o.polygon.line
            )));
        }
        if let Some(Some(seg)) = self.roads.open {
            warnings.push(tf.error_at_end(format!(
                "end of file inside the road segment begun at line {}: missing END_SEGMENT; the segment is skipped",
                line_of(seg.at)
            )));
        }
        Ok(self.dsf)
    }
}

/// The line a text location is on.
fn line_of(at: crate::diag::Location) -> u32 {
    match at {
        crate::diag::Location::Text { line, .. } | crate::diag::Location::Line(line) => line,
        _ => 0,
    }
}

/// The road segment keywords (ROADS.md §1.1).
const SEGMENT_KEYWORDS: &[&str] = &[
    "BEGIN_SEGMENT",
    "BEGIN_SEGMENT_CURVED",
    "SHAPE_POINT",
    "SHAPE_POINT_CURVED",
    "END_SEGMENT",
    "END_SEGMENT_CURVED",
];

/// The road segment being read: `Some(Some(_))` between `BEGIN_SEGMENT` and `END_SEGMENT`,
/// `Some(None)` while a broken one is skipped to its `END_SEGMENT`.
#[derive(Default)]
struct Roads {
    open: Option<Option<DsfSegment>>,
    /// Whether the `_CURVED` warning was given.
    curved_said: bool,
}

impl Roads {
    /// One segment line: an error costs the segment it is in, not the file.
    fn line(&mut self, line: &mut Line<'_>, dsf: &mut DsfText, warnings: &mut Vec<Diagnostic>) {
        let curved = line.keyword.ends_with("_CURVED");
        if curved && !self.curved_said {
            self.curved_said = true;
            warnings.push(line.warning_kw(format!(
                "{}: X-Plane's DSF writer never writes the _CURVED forms; read with each point's \
                 control as its outgoing bezier handle, as for curved polygons (further ones are not reported)",
                line.keyword
            )));
        }
        if let Err(e) = self.read(line, curved, dsf, warnings) {
            warnings.push(e);
            // The rest of the segment is skipped, up to its END_SEGMENT; a stray line
            // outside any segment opens none.
            self.open = match line.keyword {
                "END_SEGMENT" | "END_SEGMENT_CURVED" => None,
                "SHAPE_POINT" | "SHAPE_POINT_CURVED" if self.open.is_none() => None,
                _ => Some(None),
            };
        }
    }

    fn read(
        &mut self,
        line: &mut Line<'_>,
        curved: bool,
        dsf: &mut DsfText,
        warnings: &mut Vec<Diagnostic>,
    ) -> Result<(), Diagnostic> {
        type Read = Result<([f64; 3], Option<[f64; 3]>), Diagnostic>;
        let point = |line: &mut Line<'_>, warnings: &mut Vec<Diagnostic>| -> Read {
            let lon = degrees(line, "lon", 180.0)?;
            let lat = degrees(line, "lat", 90.0)?;
            let z = line.f64("elevation")?;
            let ctrl = if curved {
                let lon = degrees(line, "control lon", 180.0)?;
                let lat = degrees(line, "control lat", 90.0)?;
                Some([lon, lat, line.f64("control elevation")?])
            } else {
                None
            };
            line.expect_end(warnings);
            Ok(([lon, lat, z], ctrl))
        };
        let push = |seg: &mut DsfSegment, (p, c): ([f64; 3], Option<[f64; 3]>)| {
            if let Some(c) = c {
                seg.ctrl.get_or_insert_with(|| seg.points.clone()).push(c);
            } else if let Some(ctrl) = seg.ctrl.as_mut() {
                ctrl.push(p);
            }
            seg.points.push(p);
        };
        match line.keyword {
            "BEGIN_SEGMENT" | "BEGIN_SEGMENT_CURVED" => {
                if let Some(Some(seg)) = self.open.take() {
                    warnings.push(line.error_kw(format!(
                        "{} inside the road segment begun at line {}: missing END_SEGMENT; that segment is skipped",
                        line.keyword,
                        line_of(seg.at)
                    )));
                }
                let def = def_index(line, &dsf.network_defs, "NETWORK_DEF")?;
                let subtype = line.u32("subtype")?;
                let node = line.int_in("node id", 0, i64::from(u32::MAX))? as u64;
                let mut seg = DsfSegment {
                    def,
                    subtype,
                    nodes: [node, 0],
                    at: crate::diag::Location::Text {
                        line: line.number,
                        col: line.keyword_col,
                    },
                    ..DsfSegment::default()
                };
                push(&mut seg, point(line, warnings)?);
                self.open = Some(Some(seg));
            }
            "SHAPE_POINT" | "SHAPE_POINT_CURVED" => match self.open.as_mut() {
                None => {
                    return Err(line.error_kw(format!(
                        "{} outside a road segment: no BEGIN_SEGMENT before it",
                        line.keyword
                    )))
                }
                Some(None) => {}
                Some(Some(seg)) => push(seg, point(line, warnings)?),
            },
            _ => match self.open.take() {
                None => {
                    return Err(line.error_kw(format!("{} without BEGIN_SEGMENT", line.keyword)))
                }
                Some(None) => {}
                Some(Some(mut seg)) => {
                    let node = line.int_in("node id", 0, i64::from(u32::MAX))? as u64;
                    push(&mut seg, point(line, warnings)?);
                    seg.nodes[1] = node;
                    dsf.segments.push(seg);
                }
            },
        }
        Ok(())
    }
}

fn is_known(kw: &str) -> bool {
    matches!(
        kw,
        "PROPERTY"
            | "TERRAIN_DEF"
            | "OBJECT_DEF"
            | "POLYGON_DEF"
            | "NETWORK_DEF"
            | "RASTER_DEF"
            | "OBJECT"
            | "OBJECT_MSL"
            | "OBJECT_AGL"
    ) || SKIPPED.contains(&kw)
        || SEGMENT_KEYWORDS.contains(&kw)
}

/// A line that is not part of a polygon: a property, a definition, an object, or one of the
/// [`SKIPPED`] keywords.
fn read_outside_polygon(
    line: &mut Line<'_>,
    dsf: &mut DsfText,
    warnings: &mut Vec<Diagnostic>,
) -> Result<(), Diagnostic> {
    match line.keyword {
        "PROPERTY" => {
            let Ok(name) = line.word("name") else {
                warnings.push(line.warning_kw("PROPERTY without a name; ignored"));
                return Ok(());
            };
            let col = peek_col(line);
            let Ok(value) = line.rest("value") else {
                warnings.push(line.warning_kw(format!("PROPERTY {name} has no value; ignored")));
                return Ok(());
            };
            let limit = match name {
                "sim/west" | "sim/east" => Some(180.0),
                "sim/north" | "sim/south" => Some(90.0),
                _ => None,
            };
            if let Some(limit) = limit {
                match first_number(value) {
                    None => {
                        return Err(line.error(
                            col,
                            format!("PROPERTY {name}: the value must be a number of degrees, found `{value}`"),
                        ))
                    }
                    Some(v) if v.abs() > limit => {
                        return Err(line.error(
                            col,
                            format!("PROPERTY {name}: {v} is outside -{limit}..={limit} degrees"),
                        ))
                    }
                    Some(_) => {}
                }
            }
            dsf.properties.push(DsfProperty {
                name: name.to_string(),
                value: value.to_string(),
                line: line.number,
            });
        }
        "TERRAIN_DEF" | "OBJECT_DEF" | "POLYGON_DEF" | "NETWORK_DEF" | "RASTER_DEF" => {
            let def = DsfDef {
                path: line.rest("path")?.to_string(),
                line: line.number,
            };
            match line.keyword {
                "TERRAIN_DEF" => dsf.terrain_defs.push(def),
                "OBJECT_DEF" => dsf.object_defs.push(def),
                "POLYGON_DEF" => dsf.polygon_defs.push(def),
                "NETWORK_DEF" => dsf.network_defs.push(def),
                _ => dsf.raster_defs.push(def),
            }
        }
        "OBJECT" | "OBJECT_MSL" | "OBJECT_AGL" => {
            let def = def_index(line, &dsf.object_defs, "OBJECT_DEF")?;
            let lon = degrees(line, "lon", 180.0)?;
            let lat = degrees(line, "lat", 90.0)?;
            let elevation = if line.keyword == "OBJECT" {
                None
            } else {
                Some(line.f64("elevation")?)
            };
            let heading = line.f64("heading")?;
            line.expect_end(warnings);
            dsf.objects.push(DsfObject {
                def,
                lon,
                lat,
                heading,
                elevation,
                agl: line.keyword == "OBJECT_AGL",
                line: line.number,
            });
        }
        // Terrain patches and rasters: not drawn.
        _ => {}
    }
    Ok(())
}

/// Column of the next argument (or 1 when none is left).
fn peek_col(line: &Line<'_>) -> u32 {
    line.clone().next_token().map(|t| t.1).unwrap_or(1)
}

/// A definition index that must name a definition already read.
fn def_index(line: &mut Line<'_>, defs: &[DsfDef], table: &str) -> Result<usize, Diagnostic> {
    let col = peek_col(line);
    let idx = line.index("def")?;
    if idx >= defs.len() {
        let had = match defs.len() {
            0 => format!("no {table} line comes"),
            1 => format!("only 1 {table} line comes"),
            n => format!("only {n} {table} lines come"),
        };
        return Err(line.error(
            col,
            format!(
                "{}: definition {idx} does not exist: {had} before this line \
                 (indices count from 0, and definitions must come before their use)",
                line.keyword
            ),
        ));
    }
    Ok(idx)
}

/// A finite longitude or latitude within ±`limit` degrees.
fn degrees(line: &mut Line<'_>, what: &str, limit: f64) -> Result<f64, Diagnostic> {
    let (v, col) = line.f64_col(what)?;
    if v.abs() > limit {
        return Err(line.error(
            col,
            format!(
                "{}: <{what}> is {v}, outside -{limit}..={limit} degrees",
                line.keyword
            ),
        ));
    }
    Ok(v)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A DSFTool dump trimmed to a few features: one AGB block (40 m, spelling set 1), one
    /// AGS string (48 m, one tile-spawning winding) with an outer winding and a hole, a
    /// facade with coordinate depth 3, objects of all three kinds, and a terrain patch.
    const SAMPLE: &str = "\
A
800
DSF2TEXT

# file: Earth nav data/+40-080/+47+012.dsf

PROPERTY sim/west 12
PROPERTY sim/east 13
PROPERTY sim/north 48
PROPERTY sim/south 47
PROPERTY sim/planet earth
PROPERTY sim/creation_agent WorldEditor 2.5 (build 7)
PROPERTY sim/require_agpoint 1/0
DIVISIONS 32
TERRAIN_DEF terrain_Water
OBJECT_DEF lib/cars/car_static.obj
OBJECT_DEF objects/water tower.obj
POLYGON_DEF lib/g10/autogen/block.agb
POLYGON_DEF sample_scenery/autogen/string.ags
POLYGON_DEF lib/g10/facades/house.fac
BEGIN_PATCH 0 0.000000 -1.000000 1 5
BEGIN_PRIMITIVE 0
PATCH_VERTEX 12.000000000 47.000000000 512.000000000 0.000000000 0.000000000
PATCH_VERTEX 12.100000000 47.000000000 512.000000000 0.000000000 0.000000000
PATCH_VERTEX 12.100000000 47.100000000 512.000000000 0.000000000 0.000000000
END_PRIMITIVE
END_PATCH
OBJECT 0 12.500000000 47.500000000 90.000000
OBJECT_MSL 1 12.510000000 47.510000000 512.500000000 180.000000
OBJECT_AGL 1 12.520000000 47.520000000 3.250000000 270.500000
BEGIN_POLYGON 0 2561 2
BEGIN_WINDING
POLYGON_POINT 12.600000000 47.600000000
POLYGON_POINT 12.601000000 47.600000000
POLYGON_POINT 12.601000000 47.600700000
POLYGON_POINT 12.600000000 47.600700000
END_WINDING
END_POLYGON
BEGIN_POLYGON 1 3073 2
BEGIN_WINDING
POLYGON_POINT 12.700000000 47.700000000
POLYGON_POINT 12.702000000 47.700000000
POLYGON_POINT 12.702000000 47.701500000
POLYGON_POINT 12.700000000 47.701500000
END_WINDING
BEGIN_WINDING
POLYGON_POINT 12.700500000 47.700500000
POLYGON_POINT 12.700500000 47.701000000
POLYGON_POINT 12.701500000 47.701000000
POLYGON_POINT 12.701500000 47.700500000
END_WINDING
END_POLYGON
BEGIN_POLYGON 2 8 3
BEGIN_WINDING
POLYGON_POINT 12.800000000 47.800000000 0.000000000
POLYGON_POINT 12.800100000 47.800000000 1.000000000
POLYGON_POINT 12.800100000 47.800100000 0.000000000
END_WINDING
END_POLYGON
NETWORK_DEF lib/g10/roads.net
BEGIN_SEGMENT 0 1 0 12.9 47.9 0.0
SHAPE_POINT 12.91 47.91 0.0
END_SEGMENT 1 12.92 47.92 0.0
# Result code: 0
";

    fn parse_str(src: &str) -> (Result<DsfText, Diagnostic>, Vec<Diagnostic>) {
        let mut w = Vec::new();
        let r = parse(Path::new("t.txt"), src.as_bytes(), &mut w);
        (r, w)
    }

    fn err(src: &str) -> String {
        match parse_str(src).0 {
            Ok(d) => panic!("expected an error, got {d:?}"),
            Err(e) => e.to_string(),
        }
    }

    /// The sample's header and definitions, followed by `body`.
    fn with_defs(body: &str) -> String {
        format!("A\n800\nDSF2TEXT\nOBJECT_DEF a.obj\nPOLYGON_DEF lib/b.agb\n{body}")
    }

    #[test]
    fn reads_the_sample() {
        let (r, w) = parse_str(SAMPLE);
        let d = r.unwrap();
        assert!(w.is_empty(), "{w:?}");
        assert_eq!((d.west(), d.east()), (Some(12.0), Some(13.0)));
        assert_eq!((d.north(), d.south()), (Some(48.0), Some(47.0)));
        assert_eq!(
            d.property("sim/creation_agent"),
            Some("WorldEditor 2.5 (build 7)")
        );
        assert_eq!(d.properties.len(), 7);
        assert_eq!(d.terrain_defs.len(), 1);
        assert_eq!(d.object_defs[1].path, "objects/water tower.obj");
        assert_eq!(d.object_defs[1].line, 17);
        assert_eq!(d.polygon_defs.len(), 3);

        assert_eq!(d.objects.len(), 3);
        let o = &d.objects[0];
        assert_eq!((o.def, o.lon, o.lat, o.heading), (0, 12.5, 47.5, 90.0));
        assert_eq!((o.elevation, o.agl, o.line), (None, false, 28));
        let msl = &d.objects[1];
        assert_eq!(
            (msl.elevation, msl.heading, msl.agl),
            (Some(512.5), 180.0, false)
        );
        let agl = &d.objects[2];
        assert_eq!(
            (agl.elevation, agl.heading, agl.agl),
            (Some(3.25), 270.5, true)
        );
        assert_eq!(d.object_def_path(agl), Some("objects/water tower.obj"));

        assert_eq!(d.polygons.len(), 3);
        let agb = &d.polygons[0];
        assert_eq!(
            (agb.def, agb.param, agb.coord_depth, agb.line),
            (0, 2561, 2, 31)
        );
        assert_eq!(agb.windings.len(), 1);
        assert_eq!(agb.windings[0].len(), 4);
        assert_eq!(agb.windings[0][2], [12.601, 47.6007]);
        assert_eq!(agb.autogen_height_m(), 40.0);
        assert_eq!(agb.autogen_low(), 1);
        assert_eq!(agb.extra, vec![Vec::<f64>::new()]);

        let ags = &d.polygons[1];
        assert_eq!(ags.windings.len(), 2);
        assert_eq!(ags.winding_lines, vec![40, 46]);
        assert_eq!(ags.windings[1][0], [12.7005, 47.7005]);
        assert_eq!((ags.autogen_height_m(), ags.autogen_low()), (48.0, 1));
        assert_eq!(
            d.polygon_def_path(ags),
            Some("sample_scenery/autogen/string.ags")
        );

        let fac = &d.polygons[2];
        assert_eq!(fac.coord_depth, 3);
        assert_eq!(fac.extra, vec![vec![0.0, 1.0, 0.0]]);
    }

    #[test]
    fn finds_polygons_by_path_or_file_name() {
        let d = parse_str(SAMPLE).0.unwrap();
        let lines = |q: &str| d.polygons_for(q).iter().map(|p| p.line).collect::<Vec<_>>();
        // By file name: the library path and the package file share `block.agb`.
        assert_eq!(lines("sample_scenery/autogen/block.agb"), vec![31]);
        assert_eq!(lines("block.agb"), vec![31]);
        // By path, with Windows separators, and by a trailing part of the path.
        assert_eq!(lines("sample_scenery\\autogen\\string.ags"), vec![39]);
        assert_eq!(
            lines("/home/me/X-Plane/Custom Scenery/sample_scenery/autogen/string.ags"),
            vec![39]
        );
        assert_eq!(lines("autogen/string.ags"), vec![39]);
        // A partial file name is not a match.
        assert!(lines("ock.agb").is_empty());
        assert!(lines("").is_empty());
        assert!(lines("tree.for").is_empty());
    }

    #[test]
    fn a_full_path_match_wins_over_a_file_name_match() {
        let src = "A\n800\nDSF2TEXT\nPOLYGON_DEF lib/a/block.agb\nPOLYGON_DEF lib/b/block.agb\n\
                   BEGIN_POLYGON 0 0 2\nBEGIN_WINDING\nPOLYGON_POINT 1 1\nEND_WINDING\nEND_POLYGON\n\
                   BEGIN_POLYGON 1 0 2\nBEGIN_WINDING\nPOLYGON_POINT 1 1\nEND_WINDING\nEND_POLYGON\n";
        let d = parse_str(src).0.unwrap();
        assert_eq!(d.polygon_defs_matching("lib/b/block.agb"), vec![1]);
        assert_eq!(d.polygon_defs_matching("block.agb"), vec![0, 1]);
        assert_eq!(d.polygon_defs_matching("my/pack/block.agb"), vec![0, 1]);
        assert_eq!(d.polygons_for("b/block.agb").len(), 1);
        assert_eq!(d.polygons_for("b/block.agb")[0].line, 11);
    }

    #[test]
    fn coord_depth_defaults_to_two() {
        let d = parse_str(&with_defs(
            "BEGIN_POLYGON 0 5\nBEGIN_WINDING\nPOLYGON_POINT 1 2\nEND_WINDING\nEND_POLYGON\n",
        ))
        .0
        .unwrap();
        assert_eq!(d.polygons[0].coord_depth, 2);
        assert_eq!(d.polygons[0].param, 5);
    }

    #[test]
    fn unknown_keywords_and_extra_arguments_warn() {
        let (r, w) = parse_str(&with_defs(
            "FROBNICATE 1 2\nOBJECT 0 1 2 3 4\nBEGIN_POLYGON 0 0 2\nBEGIN_WINDING\nPOLYGON_POINT 1 2 9\n\
             END_WINDING\nEND_POLYGON\nPROPERTY sim/empty\nPROPERTY\n",
        ));
        let d = r.unwrap();
        assert_eq!(d.objects.len(), 1);
        assert_eq!(d.polygons[0].windings, vec![vec![[1.0, 2.0]]]);
        let w: Vec<String> = w.iter().map(|d| d.to_string()).collect();
        assert_eq!(
            w,
            vec![
                "t.txt:6:1: warning: unknown DSF text keyword `FROBNICATE` ignored",
                "t.txt:7:16: warning: OBJECT: unexpected extra argument `4` ignored",
                "t.txt:10:19: warning: POLYGON_POINT: unexpected extra argument `9` ignored",
                "t.txt:13:1: warning: PROPERTY sim/empty has no value; ignored",
                "t.txt:14:1: warning: PROPERTY without a name; ignored",
            ]
        );
    }

    #[test]
    fn header_is_checked() {
        assert_eq!(
            err("A\n800\nOBJ\n"),
            "t.txt:3:1: error: wrong file type `OBJ`: expected 800 DSF2TEXT"
        );
        assert_eq!(
            err("A\n1000\nDSF2TEXT\n"),
            "t.txt:3:1: error: unsupported version 1000 for DSF2TEXT: expected 800 DSF2TEXT"
        );
    }

    #[test]
    fn a_def_index_past_the_defs_read_so_far_is_an_error() {
        assert_eq!(
            err(&with_defs("OBJECT 1 12 47 0\n")),
            "t.txt:6:8: error: OBJECT: definition 1 does not exist: only 1 OBJECT_DEF line comes \
             before this line (indices count from 0, and definitions must come before their use)"
        );
        // The definition comes later: still an error, X-Plane needs the definitions first.
        assert_eq!(
            err("A\n800\nDSF2TEXT\nBEGIN_POLYGON 0 0 2\nPOLYGON_DEF a.agb\n"),
            "t.txt:4:15: error: BEGIN_POLYGON: definition 0 does not exist: no POLYGON_DEF line \
             comes before this line (indices count from 0, and definitions must come before their use)"
        );
        assert_eq!(
            err(&with_defs("OBJECT -1 12 47 0\n")),
            "t.txt:6:8: error: OBJECT: <def> is -1, outside 0..=4294967295"
        );
    }

    #[test]
    fn polygon_structure_errors() {
        let cases = [
            (
                "POLYGON_POINT 1 2\n",
                "t.txt:6:1: error: POLYGON_POINT outside a polygon: no BEGIN_POLYGON and BEGIN_WINDING before it",
            ),
            (
                "BEGIN_POLYGON 0 0 2\nPOLYGON_POINT 1 2\n",
                "t.txt:7:1: error: POLYGON_POINT outside a winding: missing BEGIN_WINDING in the polygon begun at line 6",
            ),
            (
                "BEGIN_WINDING\n",
                "t.txt:6:1: error: BEGIN_WINDING outside a polygon: no BEGIN_POLYGON before it",
            ),
            (
                "BEGIN_POLYGON 0 0 2\nBEGIN_WINDING\nPOLYGON_POINT 1 2\nEND_WINDING\n\n# trailing\n",
                "t.txt:11:1: error: end of file inside the polygon begun at line 6: missing END_POLYGON",
            ),
            (
                "BEGIN_POLYGON 0 0 2\nEND_POLYGON\n",
                "t.txt:7:1: error: the polygon begun at line 6 has no winding (BEGIN_WINDING … END_WINDING)",
            ),
            (
                "BEGIN_POLYGON 0 0 2\nBEGIN_WINDING\nEND_WINDING\n",
                "t.txt:8:1: error: empty winding: no POLYGON_POINT between BEGIN_WINDING (line 7) and END_WINDING",
            ),
            (
                "BEGIN_POLYGON 0 0 2\nBEGIN_WINDING\nPOLYGON_POINT 1 2\nBEGIN_WINDING\n",
                "t.txt:9:1: error: BEGIN_WINDING inside the winding begun at line 7: missing END_WINDING",
            ),
            (
                "BEGIN_POLYGON 0 0 2\nBEGIN_WINDING\nPOLYGON_POINT 1 2\nEND_POLYGON\n",
                "t.txt:9:1: error: END_POLYGON inside the winding begun at line 7: missing END_WINDING",
            ),
            (
                "BEGIN_POLYGON 0 0 2\nBEGIN_WINDING\nPOLYGON_POINT 1 2\nEND_WINDING\nBEGIN_POLYGON 0 0 2\n",
                "t.txt:10:1: error: BEGIN_POLYGON inside the polygon begun at line 6: missing END_POLYGON",
            ),
            (
                "BEGIN_POLYGON 0 0 2\nBEGIN_WINDING\nPOLYGON_POINT 1 2\nEND_WINDING\nOBJECT 0 1 2 3\n",
                "t.txt:10:1: error: OBJECT inside the polygon begun at line 6: missing END_POLYGON",
            ),
            ("END_WINDING\n", "t.txt:6:1: error: END_WINDING outside a polygon"),
            ("END_POLYGON\n", "t.txt:6:1: error: END_POLYGON without BEGIN_POLYGON"),
        ];
        for (body, want) in cases {
            assert_eq!(err(&with_defs(body)), want, "{body}");
        }
    }

    #[test]
    fn number_errors() {
        let cases = [
            (
                "BEGIN_POLYGON 0 0 1\n",
                "t.txt:6:19: error: BEGIN_POLYGON: <coord_depth> is 1; it must be 2..=8 \
                 (each point has at least a longitude and a latitude)",
            ),
            (
                "BEGIN_POLYGON 0 0 99\n",
                "t.txt:6:19: error: BEGIN_POLYGON: <coord_depth> is 99; it must be 2..=8 \
                 (each point has at least a longitude and a latitude)",
            ),
            (
                "BEGIN_POLYGON 0 65536 2\n",
                "t.txt:6:17: error: BEGIN_POLYGON: <param> is 65536, outside 0..=65535",
            ),
            (
                "BEGIN_POLYGON 0 -1 2\n",
                "t.txt:6:17: error: BEGIN_POLYGON: <param> is -1, outside 0..=65535",
            ),
            (
                "BEGIN_POLYGON 0 0 2\nBEGIN_WINDING\nPOLYGON_POINT nan 47\n",
                "t.txt:8:15: error: POLYGON_POINT: <lon> must be a finite number, found `nan`",
            ),
            (
                "BEGIN_POLYGON 0 0 2\nBEGIN_WINDING\nPOLYGON_POINT 12 inf\n",
                "t.txt:8:18: error: POLYGON_POINT: <lat> must be a finite number, found `inf`",
            ),
            (
                "BEGIN_POLYGON 0 0 2\nBEGIN_WINDING\nPOLYGON_POINT 12 91\n",
                "t.txt:8:18: error: POLYGON_POINT: <lat> is 91, outside -90..=90 degrees",
            ),
            (
                "BEGIN_POLYGON 0 0 3\nBEGIN_WINDING\nPOLYGON_POINT 12 47\n",
                "t.txt:8:20: error: POLYGON_POINT: missing argument <coordinate 3 of 3>",
            ),
            (
                "OBJECT 0 12 47 1e400\n",
                "t.txt:6:16: error: OBJECT: <heading> must be a number, found `1e400`",
            ),
            (
                "OBJECT 0 -181 47 0\n",
                "t.txt:6:10: error: OBJECT: <lon> is -181, outside -180..=180 degrees",
            ),
            (
                "OBJECT_MSL 0 12 47 NaN 0\n",
                "t.txt:6:20: error: OBJECT_MSL: <elevation> must be a finite number, found `NaN`",
            ),
            (
                "OBJECT_AGL 0 12 47 5\n",
                "t.txt:6:21: error: OBJECT_AGL: missing argument <heading>",
            ),
            (
                "PROPERTY sim/west twelve\n",
                "t.txt:6:19: error: PROPERTY sim/west: the value must be a number of degrees, found `twelve`",
            ),
            (
                "PROPERTY sim/north 95\n",
                "t.txt:6:20: error: PROPERTY sim/north: 95 is outside -90..=90 degrees",
            ),
        ];
        for (body, want) in cases {
            assert_eq!(err(&with_defs(body)), want, "{body}");
        }
    }

    #[test]
    fn reads_road_segments() {
        let (r, w) = parse_str(SAMPLE);
        assert!(w.is_empty(), "{w:?}");
        let d = r.unwrap();
        assert_eq!(d.network_defs[0].path, "lib/g10/roads.net");
        assert_eq!(d.segments.len(), 1);
        let s = &d.segments[0];
        assert_eq!((s.def, s.subtype, s.nodes), (0, 1, [0, 1]));
        assert_eq!(
            s.points,
            vec![[12.9, 47.9, 0.0], [12.91, 47.91, 0.0], [12.92, 47.92, 0.0]]
        );
        assert_eq!(s.ctrl, None);
    }

    #[test]
    fn a_broken_road_segment_costs_only_itself() {
        let src = "A\n800\nDSF2TEXT\nNETWORK_DEF lib/g10/roads.net\n\
                   BEGIN_SEGMENT 1 3 1 8 47 0\nSHAPE_POINT 8.1 47 0\nEND_SEGMENT 2 8.2 47 0\n\
                   BEGIN_SEGMENT 0 3 1 8 47 0\nSHAPE_POINT 8.1 95 0\nEND_SEGMENT 2 8.2 47 0\n\
                   SHAPE_POINT 8 47 0\nEND_SEGMENT 2 8.2 47 0\n\
                   BEGIN_SEGMENT 0 3 1 8 47 0\n\
                   BEGIN_SEGMENT 0 4 5 8 47 0\nEND_SEGMENT 6 8.2 47 0\n\
                   BEGIN_SEGMENT 0 5 7 8 47 0\n";
        let (r, w) = parse_str(src);
        let d = r.unwrap();
        let w: Vec<String> = w.iter().map(|d| d.to_string()).collect();
        assert_eq!(
            w,
            vec![
                "t.txt:5:15: error: BEGIN_SEGMENT: definition 1 does not exist: only 1 NETWORK_DEF line comes \
                 before this line (indices count from 0, and definitions must come before their use)",
                "t.txt:9:17: error: SHAPE_POINT: <lat> is 95, outside -90..=90 degrees",
                "t.txt:11:1: error: SHAPE_POINT outside a road segment: no BEGIN_SEGMENT before it",
                "t.txt:12:1: error: END_SEGMENT without BEGIN_SEGMENT",
                "t.txt:14:1: error: BEGIN_SEGMENT inside the road segment begun at line 13: missing END_SEGMENT; that segment is skipped",
                "t.txt:16:1: error: end of file inside the road segment begun at line 16: missing END_SEGMENT; the segment is skipped",
            ]
        );
        assert_eq!(d.segments.len(), 1);
        assert_eq!((d.segments[0].subtype, d.segments[0].nodes), (4, [5, 6]));
    }

    #[test]
    fn curved_forms_are_read_and_warned_about_once() {
        let src = "A\n800\nDSF2TEXT\nNETWORK_DEF lib/g10/roads.net\n\
                   BEGIN_SEGMENT_CURVED 0 3 1 8 47 0 8.01 47.01 0\nSHAPE_POINT 8.1 47 0\n\
                   END_SEGMENT_CURVED 2 8.2 47 0 8.2 47 0\n\
                   BEGIN_SEGMENT_CURVED 0 3 2 8.2 47 0 8.2 47 0\nEND_SEGMENT 3 8.3 47 0\n";
        let (r, w) = parse_str(src);
        let d = r.unwrap();
        assert_eq!(w.len(), 1, "{w:?}");
        assert!(w[0].to_string().starts_with(
            "t.txt:5:1: warning: BEGIN_SEGMENT_CURVED: X-Plane's DSF writer never writes the _CURVED forms"
        ));
        assert_eq!(
            d.segments[0].ctrl,
            Some(vec![[8.01, 47.01, 0.0], [8.1, 47.0, 0.0], [8.2, 47.0, 0.0]]),
            "a plain SHAPE_POINT is its own control"
        );
        assert_eq!(d.segments[1].ctrl.as_ref().map(Vec::len), Some(2));
    }

    use crate::format::XorShift;

    /// [`SAMPLE`] with its road network defined among the other definitions, and its
    /// features (objects, polygons, a road segment) placed `copies` times, with blank and
    /// comment lines, a warning and `\r\n` line ends in between.
    fn long_sample(copies: usize) -> String {
        let sample = SAMPLE.replace("NETWORK_DEF lib/g10/roads.net\n", "");
        let at = sample.find("BEGIN_PATCH").unwrap();
        let (head, body) = sample.split_at(at);
        let mut out = head.replace(
            "POLYGON_DEF lib/g10/facades/house.fac\n",
            "POLYGON_DEF lib/g10/facades/house.fac\nNETWORK_DEF lib/g10/roads.net\n",
        );
        for k in 0..copies {
            let body = match k % 3 {
                0 => body.to_string(),
                1 => body.replace('\n', "\r\n"),
                _ => body.replace(
                    "END_POLYGON\n",
                    "END_POLYGON\n\n# a note\nOBJECT 0 12.5 47.5 90 9\n",
                ),
            };
            out.push_str(&body);
        }
        out
    }

    /// Reads `src` in one pass and in pieces: what each gives and says.
    fn both_ways(src: &[u8], threads: usize) {
        let path = Path::new("t.txt");
        let (mut one, mut pieces) = (Vec::new(), Vec::new());
        let a = parse(path, src, &mut one);
        let b = parse_in_pieces(path, src, &mut pieces, threads);
        assert_eq!(
            a,
            b,
            "{threads} pieces of\n{}",
            String::from_utf8_lossy(src)
        );
        assert_eq!(one, pieces, "{threads} pieces");
    }

    #[test]
    fn reading_in_pieces_gives_and_says_what_one_pass_does() {
        let src = long_sample(7);
        // The pieces are read as pieces (not again in one pass), and give the same.
        let text = crate::format::text::readable(src.as_bytes());
        let (dsf, said) = read_in_pieces(Path::new("t.txt"), &text, 4).expect("read in pieces");
        assert_eq!(dsf.polygons.len(), 21);
        assert_eq!(dsf.segments.len(), 7);
        assert_eq!(said.len(), 6, "{said:?}");
        for threads in 1..=9 {
            both_ways(src.as_bytes(), threads);
        }
        // Broken files: the same error, or the same warnings, at the same places.
        let line = |src: &str, n: usize| src.lines().nth(n).unwrap_or("").to_string();
        let n = src.lines().count();
        for (at, with) in [
            (n / 2, "END_POLYGON"),
            (n * 3 / 4, "BEGIN_POLYGON 9 0 2"),
            (n / 3, "POLYGON_DEF late.agb"),
            (n * 2 / 3, "OBJECT 0 12.5 nan 0"),
            (n / 2, "BEGIN_SEGMENT 0 1 0 12.9 47.9 0.0"),
            (n / 4, "SHAPE_POINT_CURVED 12.91 47.91 0.0 12.91 47.91 0.0"),
            (n - 2, "BEGIN_POLYGON 0 0 2"),
        ] {
            let mut lines: Vec<String> = (0..n).map(|k| line(&src, k)).collect();
            lines.insert(at, with.to_string());
            let broken = lines.join("\n");
            for threads in [2, 3, 5] {
                both_ways(broken.as_bytes(), threads);
            }
        }
        let mut rng = XorShift(0x2545_F491_4F6C_DD1D);
        let src = long_sample(3).into_bytes();
        let alphabet = b" \n#-.0ABEGINPOLYWDT";
        for _ in 0..300 {
            let mut m = src.clone();
            for _ in 0..1 + rng.next() % 3 {
                let i = (rng.next() % m.len() as u64) as usize;
                m[i] = alphabet[(rng.next() % alphabet.len() as u64) as usize];
            }
            both_ways(&m, 1 + (rng.next() % 4) as usize);
        }
    }

    #[test]
    fn never_panics_on_prefixes_or_mutations() {
        let src = SAMPLE.as_bytes();
        for n in 0..=src.len() {
            let _ = parse(Path::new("p"), &src[..n], &mut Vec::new());
        }
        let mut rng = XorShift(0x9E37_79B9_7F4A_7C15);
        let alphabet = b" \n\t#-.0123456789eE_ABEGINPOLYWDT\xff";
        for _ in 0..3000 {
            let mut m = src.to_vec();
            for _ in 0..1 + rng.next() % 6 {
                let i = (rng.next() % m.len() as u64) as usize;
                match rng.next() % 3 {
                    0 => m[i] = alphabet[(rng.next() % alphabet.len() as u64) as usize],
                    1 => {
                        m.remove(i);
                    }
                    _ => {
                        let j = (rng.next() % m.len() as u64) as usize;
                        let line: Vec<u8> = m[i.min(j)..i.max(j)].to_vec();
                        m.splice(i..i, line.into_iter().take(200));
                    }
                }
            }
            let mut w = Vec::new();
            if let Ok(d) = parse(Path::new("m"), &m, &mut w) {
                // Whatever parses keeps its invariants.
                for p in &d.polygons {
                    assert!(p.def < d.polygon_defs.len());
                    assert!(!p.windings.is_empty());
                    assert!(p.windings.iter().all(|w| !w.is_empty()));
                    assert!(p.param <= 65535 && p.coord_depth >= 2);
                }
                assert!(d.objects.iter().all(|o| o.def < d.object_defs.len()));
            }
        }
    }
}
