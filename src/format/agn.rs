//! The FSX `.agn` autogen annotation file (binary RIFF) and its LOD13 file name
//! (spec `003_d814b19ed22f9ff5.txt`, DOMAIN.md "FSX AGN (binary)").
//!
//! An `.agn` file annotates one LOD13 square: generic buildings, row houses, vegetation
//! areas, library objects and polygon buildings. The square is named by the file name
//! ([`Lod13::from_file_name`]); the file itself holds coordinates in square units.
//!
//! # Layout
//! Little-endian throughout. A chunk is a 4-character tag, a `u32` size that excludes the
//! 8-byte header, then the payload. The file is one `RIFF` chunk whose payload starts with the
//! form type `AGNX` and then holds the sections. `GBLD`, `PREG`, `VGRG`, `AGN2` and `PBLD`
//! are containers that hold only their record chunks (`GBLR`, `PRDE`, `VGRE`, `A2GE`,
//! `PBDE`); the others (`VERS`, `GBDD`, `GBTE`, `RHTE`, `VGRD`, `VGRO`, `ROWH`) sit directly in
//! the `RIFF` chunk.
//!
//! # Frames
//! Two coordinate frames occur, both in square units with x growing east and y growing
//! **south**:
//! - *centred* (−0.5..0.5 from the middle of the square): `GBLR`, `ROWH`, `VGRE`, `VGRO`,
//!   `A2GE`;
//! - *top-left* (0..1 from the north-west corner): `PRDE`, `PBDE`.
//!
//! [`Lod13::centred_to_local`] and [`Lod13::top_left_to_local`] turn both into one local
//! frame in meters (origin at the square's centre, x east, y north — the frame of
//! [`crate::scene::Scene`]). One x unit is about 1630·cos φ m and one y unit about 1223 m,
//! so a right angle in square units is not one on the ground: convert before building
//! geometry.
//!
//! # Decisions where the spec is silent
//! - Chunks are not padded to even sizes (every section in real files is a multiple of 4).
//! - An unknown chunk, or a record chunk outside its container, is skipped by its size with a
//!   warning. A second `VERS`, `GBDD`, `GBTE`, `RHTE` or `VGRD` is ignored with a warning (the
//!   first wins); `VGRO` and `ROWH` chunks add up.
//! - A record chunk whose size is not a whole number of records is an error, as is a count
//!   that would run past its chunk; bytes left over after a fixed-size section are a warning.
//! - `A2GE` of size 32 is a GUID and 2 points, of size 40 a GUID and 3 points; other sizes
//!   are skipped with a warning (FlightSimData reads them as a vertex list, the spec does not
//!   describe them).
//! - `PRDE` and `PBDE` hold one or more polygons / buildings after the GUID, read until the
//!   chunk ends (the spec says "for each"; files written by FlightSimData hold one).
//! - Coordinates must be finite; values outside the frame's range are allowed (buildings may
//!   straddle the square's edge).
//! - The FS2004 `.agn` layout (no `RIFF` magic) is recognised and rejected.

use std::fmt;
use std::path::Path;
use std::str::FromStr;

use serde::{Serialize, Serializer};

use crate::diag::Diagnostic;

/// The `VERS` value FSX writes: the bits of the float 9.2.
pub const FSX_VERSION: i32 = 1_091_777_331;

/// The `RIFF` form type of an FSX autogen file.
pub const FORM_TYPE: [u8; 4] = *b"AGNX";

/// A `GBDD` weight of 20 means 100 %.
pub const WEIGHT_FULL: i32 = 20;

// ---------------------------------------------------------------------------------------
// GUID
// ---------------------------------------------------------------------------------------

/// A GUID as stored in the file: 16 bytes in .NET order (a `u32`, two `u16`s little-endian,
/// then 8 bytes as they are). Displays and serialises as `xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx`
/// (lower case); parses from that form in either case, with or without braces.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct Guid(pub [u8; 16]);

impl Guid {
    /// The all-zero GUID (for a `GBLR` roof: "use default roofs").
    pub const ZERO: Guid = Guid([0; 16]);

    pub fn is_zero(&self) -> bool {
        self.0 == [0; 16]
    }

    /// Parses `xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx`, optionally inside `{}`.
    pub fn parse(text: &str) -> Result<Guid, String> {
        let bad = |why: &str| format!("'{text}' is not a GUID: {why}");
        let inner = match text.strip_prefix('{') {
            Some(rest) => rest
                .strip_suffix('}')
                .ok_or_else(|| bad("'{' without a closing '}'"))?,
            None => text,
        };
        let groups: Vec<&str> = inner.split('-').collect();
        let lengths = [8, 4, 4, 4, 12];
        if groups.len() != lengths.len() {
            return Err(bad("expected 5 groups of hex digits separated by '-'"));
        }
        for (i, (group, len)) in groups.iter().zip(lengths).enumerate() {
            if group.len() != len || !group.bytes().all(|b| b.is_ascii_hexdigit()) {
                return Err(bad(&format!(
                    "group {} must be {len} hex digits, found '{group}'",
                    i + 1
                )));
            }
        }
        // Every group is ASCII hex of a checked length, so these parses cannot fail.
        let hex = |s: &str| u64::from_str_radix(s, 16).unwrap_or(0);
        let mut b = [0u8; 16];
        b[0..4].copy_from_slice(&(hex(groups[0]) as u32).to_le_bytes());
        b[4..6].copy_from_slice(&(hex(groups[1]) as u16).to_le_bytes());
        b[6..8].copy_from_slice(&(hex(groups[2]) as u16).to_le_bytes());
        b[8..10].copy_from_slice(&(hex(groups[3]) as u16).to_be_bytes());
        b[10..16].copy_from_slice(&hex(groups[4]).to_be_bytes()[2..8]);
        Ok(Guid(b))
    }
}

impl FromStr for Guid {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Guid::parse(s)
    }
}

impl fmt::Display for Guid {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let b = &self.0;
        let d1 = u32::from_le_bytes([b[0], b[1], b[2], b[3]]);
        let d2 = u16::from_le_bytes([b[4], b[5]]);
        let d3 = u16::from_le_bytes([b[6], b[7]]);
        write!(f, "{d1:08x}-{d2:04x}-{d3:04x}-{:02x}{:02x}-", b[8], b[9])?;
        for byte in &b[10..16] {
            write!(f, "{byte:02x}")?;
        }
        Ok(())
    }
}

impl Serialize for Guid {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

// ---------------------------------------------------------------------------------------
// The typed file
// ---------------------------------------------------------------------------------------

/// A point or vector in square units, `[x, y]`, y growing south.
pub type Point = [f32; 2];

/// A whole FSX `.agn` file, section by section. Every record keeps the byte `offset` of its
/// chunk header (for sections) or of its first byte (for records inside a chunk).
#[derive(Debug, Clone, PartialEq, Serialize, Default)]
pub struct AgnFile {
    /// `VERS`.
    pub version: Option<Version>,
    /// `GBDD`: how generic buildings are spread over floor counts.
    pub building_weights: Option<BuildingWeights>,
    /// `GBTE`: texture of the generic buildings.
    pub building_texture: Option<TextureName>,
    /// `RHTE`: texture of the row houses.
    pub row_house_texture: Option<TextureName>,
    /// `GBLR` chunks of every `GBLD` container, in file order.
    pub generic_buildings: Vec<GenericBuildings>,
    /// `PRDE` chunks of every `PREG` container.
    pub vegetation_polygons: Vec<VegetationPolygons>,
    /// `VGRE` chunks of every `VGRG` container (FSX rectangular vegetation).
    pub vegetation_rects: Vec<VegetationRects>,
    /// `VGRD`: the FS2004 vegetation definition used by `VGRO`.
    pub fs2004_vegetation: Option<Fs2004Vegetation>,
    /// `VGRO`: FS2004 rectangular vegetation regions, of every `VGRO` chunk.
    pub fs2004_vegetation_rects: Vec<Rect>,
    /// `ROWH`: row houses, of every `ROWH` chunk.
    pub row_houses: Vec<Footprint>,
    /// `A2GE` chunks of every `AGN2` container.
    pub library_objects: Vec<LibraryObject>,
    /// `PBDE` chunks of every `PBLD` container.
    pub polygon_buildings: Vec<PolygonBuildings>,
}

/// `VERS`: the file's version, normally [`FSX_VERSION`].
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Version {
    pub offset: u64,
    pub value: i32,
}

/// `GBDD`: weights of generic buildings with 1–2, 3–5, 6–8 and 9–12 floors, each 0..=20
/// where 20 ([`WEIGHT_FULL`]) is 100 %.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct BuildingWeights {
    pub offset: u64,
    pub weights: [i32; 4],
}

impl BuildingWeights {
    /// The floor ranges the four weights stand for, inclusive.
    pub const FLOORS: [(u32, u32); 4] = [(1, 2), (3, 5), (6, 8), (9, 12)];

    /// The weights as fractions (weight / 20), clamped to 0..=1.
    pub fn fractions(&self) -> [f32; 4] {
        self.weights
            .map(|w| (w.clamp(0, WEIGHT_FULL) as f32) / WEIGHT_FULL as f32)
    }
}

/// `GBTE` / `RHTE`: a texture name without extension (NUL padding removed).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TextureName {
    pub offset: u64,
    pub name: String,
}

/// `GBLR`: generic buildings sharing one roof type.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct GenericBuildings {
    pub offset: u64,
    /// Roof type; the zero GUID means "use default roofs".
    pub roof: Guid,
    pub buildings: Vec<Footprint>,
}

/// One `GBLR` building or `ROWH` row house: six floats in the centred frame. The footprint
/// is P1 = `start`, P2 = P1 + `to_second`, P3 = P2 + `to_third`, P4 = P1 + `to_third`
/// (DOMAIN.md, inferred).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Footprint {
    pub offset: u64,
    /// First point.
    pub start: Point,
    /// Direction from the first to the second point.
    pub to_second: Point,
    /// Offset of the third point from the second.
    pub to_third: Point,
}

impl Footprint {
    /// The four corners P1..P4 in square units (centred frame).
    pub fn corners(&self) -> [Point; 4] {
        let [x, y] = self.start;
        let [dx, dy] = self.to_second;
        let [ox, oy] = self.to_third;
        [
            [x, y],
            [x + dx, y + dy],
            [x + dx + ox, y + dy + oy],
            [x + ox, y + oy],
        ]
    }
}

/// `PRDE`: vegetation polygons of one vegetation type, in the top-left frame. Each polygon
/// is closed (its first and last vertex are the same).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct VegetationPolygons {
    pub offset: u64,
    pub vegetation: Guid,
    pub polygons: Vec<Polygon>,
}

/// A vertex list; `offset` is that of its vertex count.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Polygon {
    pub offset: u64,
    pub vertices: Vec<Point>,
}

/// `VGRE`: FSX rectangular vegetation of one type, in the centred frame.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct VegetationRects {
    pub offset: u64,
    pub vegetation: Guid,
    pub rects: Vec<Rect>,
}

/// A `VGRE` / `VGRO` rectangle: a first point and the offset to the second (opposite)
/// corner, centred frame.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Rect {
    pub offset: u64,
    pub start: Point,
    pub to_second: Point,
}

impl Rect {
    /// The four corners, first point first, axis-aligned in square units.
    pub fn corners(&self) -> [Point; 4] {
        let [x, y] = self.start;
        let [dx, dy] = self.to_second;
        [[x, y], [x + dx, y], [x + dx, y + dy], [x, y + dy]]
    }
}

/// `VGRD`: the FS2004 vegetation definition for `VGRO` rectangles.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Fs2004Vegetation {
    pub offset: u64,
    pub class1: i32,
    pub class2: i32,
    /// Share of class 1, 0..=100.
    pub percent_class1: i32,
    pub max_density: i32,
    /// Minimum and maximum height of class 1 and of class 2.
    pub height_class1: [f32; 2],
    pub height_class2: [f32; 2],
}

/// `A2GE`: one library object. The points describe its bounding box (centred frame); the
/// object sits at the box's centre. The chunk has 2 points (size 32) or 3 (size 40).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct LibraryObject {
    pub offset: u64,
    pub guid: Guid,
    pub start: Point,
    pub to_second: Point,
    /// The optional third point (chunk size 40).
    pub to_third: Option<Point>,
}

impl LibraryObject {
    /// The centre of the bounding box: with two points the middle of `start` and
    /// `start + to_second`, with three the middle of the parallelogram they span.
    pub fn center(&self) -> Point {
        let [x, y] = self.start;
        let [dx, dy] = self.to_second;
        let [ox, oy] = self.to_third.unwrap_or([0.0, 0.0]);
        [x + (dx + ox) / 2.0, y + (dy + oy) / 2.0]
    }
}

/// `PBDE`: polygon buildings of one type, in the top-left frame.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PolygonBuildings {
    pub offset: u64,
    pub building: Guid,
    pub buildings: Vec<PolygonBuilding>,
}

/// One `PBDE` building: an int that is always 1, an extrusion width (square units, read as
/// a strip width along the vertex line — inferred), and the footprint vertices.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PolygonBuilding {
    pub offset: u64,
    pub kind: i32,
    pub width: f32,
    pub vertices: Vec<Point>,
}

// ---------------------------------------------------------------------------------------
// Reader
// ---------------------------------------------------------------------------------------

/// Reads an FSX `.agn` file. Warnings (unknown chunks, odd values) go to `warnings`; the
/// first structural problem is returned as an error at its byte offset.
pub fn parse(
    path: &Path,
    bytes: &[u8],
    warnings: &mut Vec<Diagnostic>,
) -> Result<AgnFile, Diagnostic> {
    let r = Reader { path, bytes };
    if bytes.is_empty() {
        return Err(r.error(0, "empty file: an FSX .agn file starts with a RIFF header"));
    }
    if !bytes.starts_with(b"RIFF") {
        return Err(r.error(0, non_riff_message(bytes)));
    }
    if bytes.len() < 8 {
        return Err(r.error(
            0,
            format!(
                "truncated RIFF header: the file has {} bytes, the header needs 12",
                bytes.len()
            ),
        ));
    }
    let size = read_u32(bytes, 4);
    if size == 0 {
        return Err(r.error(0, "empty RIFF chunk: no AGNX form type and no sections"));
    }
    let riff_end = 8usize.saturating_add(size);
    if riff_end > bytes.len() {
        return Err(r.error(
            0,
            format!(
                "RIFF chunk at offset 0 has size {size}, which runs past the end of the file by {} bytes",
                riff_end - bytes.len()
            ),
        ));
    }
    if size < 4 {
        return Err(r.error(
            8,
            format!("truncated RIFF header: the AGNX form type needs 4 bytes, the RIFF chunk holds {size}"),
        ));
    }
    let form = [bytes[8], bytes[9], bytes[10], bytes[11]];
    if form != FORM_TYPE {
        return Err(r.error(
            8,
            format!(
                "RIFF form type is {}, not AGNX: not an FSX autogen file",
                tag_name(form)
            ),
        ));
    }
    if riff_end < bytes.len() {
        warnings.push(r.warning(
            riff_end,
            format!(
                "{} bytes after the RIFF chunk ignored",
                bytes.len() - riff_end
            ),
        ));
    }
    let riff = Chunk {
        tag: *b"RIFF",
        offset: 0,
        start: 8,
        end: riff_end,
    };

    let mut file = AgnFile::default();
    let sections = r.children(&riff, 12)?;
    if sections.is_empty() {
        warnings.push(r.warning(0, "the RIFF chunk holds no sections"));
    }
    for c in sections {
        match &c.tag {
            b"VERS" => {
                let v = read_version(&r, c, warnings)?;
                set_once(&r, &mut file.version, v, c, warnings);
            }
            b"GBDD" => {
                let w = read_weights(&r, c, warnings)?;
                set_once(&r, &mut file.building_weights, w, c, warnings);
            }
            b"GBTE" => {
                let t = read_texture(&r, c, warnings);
                set_once(&r, &mut file.building_texture, t, c, warnings);
            }
            b"RHTE" => {
                let t = read_texture(&r, c, warnings);
                set_once(&r, &mut file.row_house_texture, t, c, warnings);
            }
            b"VGRD" => {
                let v = read_fs2004_vegetation(&r, c, warnings)?;
                set_once(&r, &mut file.fs2004_vegetation, v, c, warnings);
            }
            b"VGRO" => {
                let mut f = Fields::new(&r, c);
                f.expect_records(16, "rectangles of 4 floats")?;
                while f.remaining() > 0 {
                    file.fs2004_vegetation_rects.push(f.rect()?);
                }
            }
            b"ROWH" => {
                let mut f = Fields::new(&r, c);
                f.expect_records(24, "row houses of 6 floats")?;
                while f.remaining() > 0 {
                    file.row_houses.push(f.footprint("row house")?);
                }
            }
            b"GBLD" => {
                for child in r.children(&c, c.start)? {
                    if &child.tag == b"GBLR" {
                        file.generic_buildings.push(read_gblr(&r, child)?);
                    } else {
                        warnings.push(r.unknown(child, &c));
                    }
                }
            }
            b"PREG" => {
                for child in r.children(&c, c.start)? {
                    if &child.tag == b"PRDE" {
                        file.vegetation_polygons
                            .push(read_prde(&r, child, warnings)?);
                    } else {
                        warnings.push(r.unknown(child, &c));
                    }
                }
            }
            b"VGRG" => {
                for child in r.children(&c, c.start)? {
                    if &child.tag == b"VGRE" {
                        file.vegetation_rects.push(read_vgre(&r, child)?);
                    } else {
                        warnings.push(r.unknown(child, &c));
                    }
                }
            }
            b"AGN2" => {
                for child in r.children(&c, c.start)? {
                    if &child.tag == b"A2GE" {
                        if let Some(obj) = read_a2ge(&r, child, warnings)? {
                            file.library_objects.push(obj);
                        }
                    } else {
                        warnings.push(r.unknown(child, &c));
                    }
                }
            }
            b"PBLD" => {
                for child in r.children(&c, c.start)? {
                    if &child.tag == b"PBDE" {
                        file.polygon_buildings.push(read_pbde(&r, child, warnings)?);
                    } else {
                        warnings.push(r.unknown(child, &c));
                    }
                }
            }
            _ => warnings.push(r.unknown(c, &riff)),
        }
    }
    Ok(file)
}

/// The error for a file without `RIFF` magic: FS2004 files start with four int32 weights.
fn non_riff_message(bytes: &[u8]) -> String {
    let looks_fs2004 =
        bytes.len() >= 16 && (0..4).all(|i| (0..=100).contains(&(read_u32(bytes, i * 4) as i64)));
    let what = if looks_fs2004 {
        "this looks like an FS2004 .agn file (it starts with four int32 weights)"
    } else {
        "no RIFF header (an FS2004 .agn file, or not an autogen file)"
    };
    format!("{what}; only FSX RIFF (AGNX) .agn files are read")
}

/// A chunk found in the file: its tag, the offset of its header and its payload range.
#[derive(Debug, Clone, Copy)]
struct Chunk {
    tag: [u8; 4],
    offset: usize,
    start: usize,
    end: usize,
}

impl Chunk {
    fn name(&self) -> String {
        tag_name(self.tag)
    }

    fn size(&self) -> usize {
        self.end - self.start
    }
}

/// A tag as text: its characters when they are printable ASCII, else its bytes in hex.
fn tag_name(tag: [u8; 4]) -> String {
    if tag.iter().all(|b| b.is_ascii_graphic() || *b == b' ') {
        tag.iter().map(|&b| b as char).collect()
    } else {
        format!("0x{:02x}{:02x}{:02x}{:02x}", tag[0], tag[1], tag[2], tag[3])
    }
}

/// Reads a little-endian u32 at `pos`; the caller has checked `pos + 4 <= bytes.len()`.
fn read_u32(bytes: &[u8], pos: usize) -> usize {
    let mut a = [0u8; 4];
    if let Some(s) = bytes.get(pos..pos + 4) {
        a.copy_from_slice(s);
    }
    u32::from_le_bytes(a) as usize
}

struct Reader<'a> {
    path: &'a Path,
    bytes: &'a [u8],
}

impl Reader<'_> {
    fn error(&self, offset: usize, message: impl Into<String>) -> Diagnostic {
        Diagnostic::error_offset(self.path, offset as u64, message)
    }

    fn warning(&self, offset: usize, message: impl Into<String>) -> Diagnostic {
        Diagnostic::warning_offset(self.path, offset as u64, message)
    }

    fn unknown(&self, c: Chunk, parent: &Chunk) -> Diagnostic {
        let what = if is_record_tag(c.tag) {
            "misplaced"
        } else {
            "unknown"
        };
        self.warning(
            c.offset,
            format!(
                "{what} chunk {} at offset {} ({} bytes) in the {} chunk skipped",
                c.name(),
                c.offset,
                c.size(),
                parent.name()
            ),
        )
    }

    /// The chunks in `parent`'s payload from `start` to its end.
    fn children(&self, parent: &Chunk, start: usize) -> Result<Vec<Chunk>, Diagnostic> {
        let mut out = Vec::new();
        let mut pos = start;
        while pos < parent.end {
            let left = parent.end - pos;
            if left < 8 {
                return Err(self.error(
                    pos,
                    format!(
                        "truncated chunk header at offset {pos} in the {} chunk at offset {}: {left} bytes left, a chunk header needs 8",
                        parent.name(),
                        parent.offset
                    ),
                ));
            }
            let tag = [
                self.bytes[pos],
                self.bytes[pos + 1],
                self.bytes[pos + 2],
                self.bytes[pos + 3],
            ];
            let size = read_u32(self.bytes, pos + 4);
            let start = pos + 8;
            if size > parent.end - start {
                let past = if parent.end == self.bytes.len() {
                    "the end of the file".to_string()
                } else {
                    format!(
                        "the end of its parent {} chunk at offset {}",
                        parent.name(),
                        parent.offset
                    )
                };
                return Err(self.error(
                    pos,
                    format!(
                        "{} chunk at offset {pos} has size {size}, which runs past {past} by {} bytes",
                        tag_name(tag),
                        size - (parent.end - start)
                    ),
                ));
            }
            out.push(Chunk {
                tag,
                offset: pos,
                start,
                end: start + size,
            });
            pos = start + size;
        }
        Ok(out)
    }
}

fn is_record_tag(tag: [u8; 4]) -> bool {
    matches!(&tag, b"GBLR" | b"PRDE" | b"VGRE" | b"A2GE" | b"PBDE")
}

/// Keeps the first of a section that should occur once.
fn set_once<T>(
    r: &Reader,
    slot: &mut Option<T>,
    value: T,
    c: Chunk,
    warnings: &mut Vec<Diagnostic>,
) {
    if slot.is_some() {
        warnings.push(r.warning(
            c.offset,
            format!(
                "second {} chunk at offset {} ignored; the first one is used",
                c.name(),
                c.offset
            ),
        ));
    } else {
        *slot = Some(value);
    }
}

/// Reads the fields of one chunk's payload, each checked against the chunk's end.
struct Fields<'r, 'a> {
    r: &'r Reader<'a>,
    chunk: Chunk,
    pos: usize,
}

impl<'r, 'a> Fields<'r, 'a> {
    fn new(r: &'r Reader<'a>, chunk: Chunk) -> Self {
        Fields {
            r,
            chunk,
            pos: chunk.start,
        }
    }

    fn remaining(&self) -> usize {
        self.chunk.end - self.pos
    }

    /// "GBLR chunk at offset 40": how messages name the chunk.
    fn at(&self) -> String {
        format!(
            "{} chunk at offset {}",
            self.chunk.name(),
            self.chunk.offset
        )
    }

    fn take<const N: usize>(&mut self, what: &str) -> Result<[u8; N], Diagnostic> {
        if self.remaining() < N {
            return Err(self.r.error(
                self.pos,
                format!(
                    "{}: truncated: the {what} needs {N} bytes at offset {}, the chunk has {} left",
                    self.at(),
                    self.pos,
                    self.remaining()
                ),
            ));
        }
        let mut a = [0u8; N];
        a.copy_from_slice(&self.r.bytes[self.pos..self.pos + N]);
        self.pos += N;
        Ok(a)
    }

    fn i32(&mut self, what: &str) -> Result<i32, Diagnostic> {
        Ok(i32::from_le_bytes(self.take(what)?))
    }

    fn f32(&mut self, what: &str) -> Result<f32, Diagnostic> {
        let pos = self.pos;
        let v = f32::from_le_bytes(self.take(what)?);
        if !v.is_finite() {
            return Err(self.r.error(
                pos,
                format!(
                    "{}: the {what} at offset {pos} is {v}, not a finite number",
                    self.at()
                ),
            ));
        }
        Ok(v)
    }

    fn point(&mut self, what: &str) -> Result<Point, Diagnostic> {
        Ok([
            self.f32(&format!("{what} x"))?,
            self.f32(&format!("{what} y"))?,
        ])
    }

    fn guid(&mut self, what: &str) -> Result<Guid, Diagnostic> {
        Ok(Guid(self.take(what)?))
    }

    /// Checks that what is left is a whole number of `size`-byte records.
    fn expect_records(&self, size: usize, what: &str) -> Result<(), Diagnostic> {
        if !self.remaining().is_multiple_of(size) {
            let before = self.pos - self.chunk.start;
            let head = if before > 0 {
                format!("{before} + ")
            } else {
                String::new()
            };
            return Err(self.r.error(
                self.chunk.offset,
                format!(
                    "{}: size {} is not {head}a multiple of {size} ({what})",
                    self.at(),
                    self.chunk.size()
                ),
            ));
        }
        Ok(())
    }

    /// Reads an int32 count of `item`s of `item_size` bytes and checks they fit in the chunk.
    fn count(&mut self, item: &str, item_size: usize) -> Result<usize, Diagnostic> {
        let pos = self.pos;
        let n = self.i32(&format!("{item} count"))?;
        if n < 0 {
            return Err(self.r.error(
                pos,
                format!(
                    "{}: {item} count {n} at offset {pos} is negative",
                    self.at()
                ),
            ));
        }
        let needed = (n as u64).saturating_mul(item_size as u64);
        if needed > self.remaining() as u64 {
            return Err(self.r.error(
                pos,
                format!(
                    "{}: {item} count {n} at offset {pos} needs {needed} bytes, the chunk has {} left",
                    self.at(),
                    self.remaining()
                ),
            ));
        }
        Ok(n as usize)
    }

    fn vertices(&mut self) -> Result<Vec<Point>, Diagnostic> {
        let n = self.count("vertex", 8)?;
        let mut out = Vec::with_capacity(n);
        for _ in 0..n {
            out.push(self.point("vertex")?);
        }
        Ok(out)
    }

    fn footprint(&mut self, what: &str) -> Result<Footprint, Diagnostic> {
        Ok(Footprint {
            offset: self.pos as u64,
            start: self.point(&format!("{what} first point"))?,
            to_second: self.point(&format!("{what} direction to the second point"))?,
            to_third: self.point(&format!("{what} offset of the third point"))?,
        })
    }

    fn rect(&mut self) -> Result<Rect, Diagnostic> {
        Ok(Rect {
            offset: self.pos as u64,
            start: self.point("rectangle first point")?,
            to_second: self.point("rectangle offset to the second point")?,
        })
    }

    /// Warns about bytes left after a fixed-size section.
    fn finish(&self, warnings: &mut Vec<Diagnostic>) {
        if self.remaining() > 0 {
            warnings.push(self.r.warning(
                self.pos,
                format!("{}: {} extra bytes ignored", self.at(), self.remaining()),
            ));
        }
    }
}

fn read_version(
    r: &Reader,
    c: Chunk,
    warnings: &mut Vec<Diagnostic>,
) -> Result<Version, Diagnostic> {
    let mut f = Fields::new(r, c);
    let value = f.i32("version")?;
    f.finish(warnings);
    if value != FSX_VERSION {
        warnings.push(r.warning(
            c.offset,
            format!("VERS is {value}, FSX files have {FSX_VERSION}; reading on"),
        ));
    }
    Ok(Version {
        offset: c.offset as u64,
        value,
    })
}

fn read_weights(
    r: &Reader,
    c: Chunk,
    warnings: &mut Vec<Diagnostic>,
) -> Result<BuildingWeights, Diagnostic> {
    let mut f = Fields::new(r, c);
    let mut weights = [0; 4];
    for (w, (lo, hi)) in weights.iter_mut().zip(BuildingWeights::FLOORS) {
        let pos = f.pos;
        *w = f.i32(&format!("weight of {lo}-{hi} floor buildings"))?;
        if !(0..=WEIGHT_FULL).contains(w) {
            warnings.push(r.warning(
                pos,
                format!("GBDD weight of {lo}-{hi} floor buildings is {w}, outside 0..=20; clamped"),
            ));
        }
    }
    f.finish(warnings);
    Ok(BuildingWeights {
        offset: c.offset as u64,
        weights,
    })
}

fn read_texture(r: &Reader, c: Chunk, warnings: &mut Vec<Diagnostic>) -> TextureName {
    let raw = &r.bytes[c.start..c.end];
    let len = raw.iter().position(|&b| b == 0).unwrap_or(raw.len());
    let text = &raw[..len];
    if !text.is_ascii() {
        warnings.push(r.warning(c.start, format!("{} texture name is not ASCII", c.name())));
    }
    if text.is_empty() {
        warnings.push(r.warning(
            c.offset,
            format!("{} chunk at offset {} names no texture", c.name(), c.offset),
        ));
    }
    TextureName {
        offset: c.offset as u64,
        name: String::from_utf8_lossy(text).into_owned(),
    }
}

fn read_fs2004_vegetation(
    r: &Reader,
    c: Chunk,
    warnings: &mut Vec<Diagnostic>,
) -> Result<Fs2004Vegetation, Diagnostic> {
    let mut f = Fields::new(r, c);
    let v = Fs2004Vegetation {
        offset: c.offset as u64,
        class1: f.i32("vegetation class 1")?,
        class2: f.i32("vegetation class 2")?,
        percent_class1: f.i32("percentage of class 1")?,
        max_density: f.i32("maximum density")?,
        height_class1: [
            f.f32("minimum height of class 1")?,
            f.f32("maximum height of class 1")?,
        ],
        height_class2: [
            f.f32("minimum height of class 2")?,
            f.f32("maximum height of class 2")?,
        ],
    };
    f.finish(warnings);
    if !(0..=100).contains(&v.percent_class1) {
        warnings.push(r.warning(
            c.offset,
            format!(
                "VGRD percentage of class 1 is {}, outside 0..=100",
                v.percent_class1
            ),
        ));
    }
    Ok(v)
}

fn read_gblr(r: &Reader, c: Chunk) -> Result<GenericBuildings, Diagnostic> {
    let mut f = Fields::new(r, c);
    let roof = f.guid("roof GUID")?;
    f.expect_records(24, "the roof GUID, then buildings of 6 floats")?;
    let mut buildings = Vec::with_capacity(f.remaining() / 24);
    while f.remaining() > 0 {
        buildings.push(f.footprint("building")?);
    }
    Ok(GenericBuildings {
        offset: c.offset as u64,
        roof,
        buildings,
    })
}

fn read_prde(
    r: &Reader,
    c: Chunk,
    warnings: &mut Vec<Diagnostic>,
) -> Result<VegetationPolygons, Diagnostic> {
    let mut f = Fields::new(r, c);
    let vegetation = f.guid("vegetation GUID")?;
    let mut polygons = Vec::new();
    while f.remaining() > 0 {
        let offset = f.pos;
        let vertices = f.vertices()?;
        if vertices.len() < 4 {
            warnings.push(r.warning(
                offset,
                format!(
                    "{}: polygon at offset {offset} has {} vertices; a closed ring needs at least 4",
                    f.at(),
                    vertices.len()
                ),
            ));
        } else if vertices.first() != vertices.last() {
            warnings.push(r.warning(
                offset,
                format!(
                    "{}: polygon at offset {offset} is not closed (its first and last vertex differ); treated as closed",
                    f.at()
                ),
            ));
        }
        polygons.push(Polygon {
            offset: offset as u64,
            vertices,
        });
    }
    Ok(VegetationPolygons {
        offset: c.offset as u64,
        vegetation,
        polygons,
    })
}

fn read_vgre(r: &Reader, c: Chunk) -> Result<VegetationRects, Diagnostic> {
    let mut f = Fields::new(r, c);
    let vegetation = f.guid("vegetation GUID")?;
    f.expect_records(16, "the vegetation GUID, then rectangles of 4 floats")?;
    let mut rects = Vec::with_capacity(f.remaining() / 16);
    while f.remaining() > 0 {
        rects.push(f.rect()?);
    }
    Ok(VegetationRects {
        offset: c.offset as u64,
        vegetation,
        rects,
    })
}

fn read_a2ge(
    r: &Reader,
    c: Chunk,
    warnings: &mut Vec<Diagnostic>,
) -> Result<Option<LibraryObject>, Diagnostic> {
    let three = match c.size() {
        32 => false,
        40 => true,
        other => {
            warnings.push(r.warning(
                c.offset,
                format!(
                    "A2GE chunk at offset {} has size {other}; only 32 (GUID + 2 points) and 40 (GUID + 3 points) are known: skipped",
                    c.offset
                ),
            ));
            return Ok(None);
        }
    };
    let mut f = Fields::new(r, c);
    Ok(Some(LibraryObject {
        offset: c.offset as u64,
        guid: f.guid("library object GUID")?,
        start: f.point("first point")?,
        to_second: f.point("direction to the second point")?,
        to_third: if three {
            Some(f.point("offset to the third point")?)
        } else {
            None
        },
    }))
}

fn read_pbde(
    r: &Reader,
    c: Chunk,
    warnings: &mut Vec<Diagnostic>,
) -> Result<PolygonBuildings, Diagnostic> {
    let mut f = Fields::new(r, c);
    let building = f.guid("building GUID")?;
    let mut buildings = Vec::new();
    while f.remaining() > 0 {
        let offset = f.pos;
        let kind = f.i32("building flag")?;
        if kind != 1 {
            warnings.push(r.warning(
                offset,
                format!("{}: building flag is {kind}, files have 1", f.at()),
            ));
        }
        let width = f.f32("extrusion width")?;
        if width <= 0.0 {
            warnings.push(r.warning(
                offset + 4,
                format!("{}: extrusion width {width} is not positive", f.at()),
            ));
        }
        let vertices = f.vertices()?;
        if vertices.len() < 2 {
            warnings.push(r.warning(
                offset,
                format!(
                    "{}: building at offset {offset} has {} vertices, fewer than 2",
                    f.at(),
                    vertices.len()
                ),
            ));
        }
        buildings.push(PolygonBuilding {
            offset: offset as u64,
            kind,
            width,
            vertices,
        });
    }
    Ok(PolygonBuildings {
        offset: c.offset as u64,
        building,
        buildings,
    })
}

// ---------------------------------------------------------------------------------------
// Writer
// ---------------------------------------------------------------------------------------

/// Writes `file` as an FSX RIFF `.agn` file. Offsets in the model are ignored; sections come
/// in the order of [`AgnFile`]'s fields, containers only when they have records. An `A2GE`
/// gets 3 points when `to_third` is set, else 2. Texture names are NUL-padded to a multiple
/// of 4 with at least one NUL.
///
/// # Panics
/// When a chunk would exceed 4 GiB, which the format cannot express.
pub fn write(file: &AgnFile) -> Vec<u8> {
    let mut out = Vec::new();
    chunk(&mut out, b"RIFF", |b| {
        b.extend_from_slice(&FORM_TYPE);
        if let Some(v) = &file.version {
            chunk(b, b"VERS", |b| put_i32(b, v.value));
        }
        if let Some(w) = &file.building_weights {
            chunk(b, b"GBDD", |b| {
                w.weights.iter().for_each(|&x| put_i32(b, x))
            });
        }
        if let Some(t) = &file.building_texture {
            chunk(b, b"GBTE", |b| put_name(b, &t.name));
        }
        if let Some(t) = &file.row_house_texture {
            chunk(b, b"RHTE", |b| put_name(b, &t.name));
        }
        if !file.generic_buildings.is_empty() {
            chunk(b, b"GBLD", |b| {
                for g in &file.generic_buildings {
                    chunk(b, b"GBLR", |b| {
                        b.extend_from_slice(&g.roof.0);
                        g.buildings.iter().for_each(|fp| put_footprint(b, fp));
                    });
                }
            });
        }
        if !file.vegetation_polygons.is_empty() {
            chunk(b, b"PREG", |b| {
                for v in &file.vegetation_polygons {
                    chunk(b, b"PRDE", |b| {
                        b.extend_from_slice(&v.vegetation.0);
                        v.polygons.iter().for_each(|p| put_vertices(b, &p.vertices));
                    });
                }
            });
        }
        if !file.vegetation_rects.is_empty() {
            chunk(b, b"VGRG", |b| {
                for v in &file.vegetation_rects {
                    chunk(b, b"VGRE", |b| {
                        b.extend_from_slice(&v.vegetation.0);
                        v.rects.iter().for_each(|r| put_rect(b, r));
                    });
                }
            });
        }
        if let Some(v) = &file.fs2004_vegetation {
            chunk(b, b"VGRD", |b| {
                for x in [v.class1, v.class2, v.percent_class1, v.max_density] {
                    put_i32(b, x);
                }
                for x in v.height_class1.iter().chain(&v.height_class2) {
                    put_f32(b, *x);
                }
            });
        }
        if !file.fs2004_vegetation_rects.is_empty() {
            chunk(b, b"VGRO", |b| {
                file.fs2004_vegetation_rects
                    .iter()
                    .for_each(|r| put_rect(b, r));
            });
        }
        if !file.row_houses.is_empty() {
            chunk(b, b"ROWH", |b| {
                file.row_houses.iter().for_each(|fp| put_footprint(b, fp));
            });
        }
        if !file.library_objects.is_empty() {
            chunk(b, b"AGN2", |b| {
                for o in &file.library_objects {
                    chunk(b, b"A2GE", |b| {
                        b.extend_from_slice(&o.guid.0);
                        put_point(b, o.start);
                        put_point(b, o.to_second);
                        if let Some(p) = o.to_third {
                            put_point(b, p);
                        }
                    });
                }
            });
        }
        if !file.polygon_buildings.is_empty() {
            chunk(b, b"PBLD", |b| {
                for p in &file.polygon_buildings {
                    chunk(b, b"PBDE", |b| {
                        b.extend_from_slice(&p.building.0);
                        for pb in &p.buildings {
                            put_i32(b, pb.kind);
                            put_f32(b, pb.width);
                            put_vertices(b, &pb.vertices);
                        }
                    });
                }
            });
        }
    });
    out
}

/// Appends a chunk: header, whatever `fill` writes, then patches the size in.
fn chunk(out: &mut Vec<u8>, tag: &[u8; 4], fill: impl FnOnce(&mut Vec<u8>)) {
    let start = out.len();
    out.extend_from_slice(tag);
    out.extend_from_slice(&[0; 4]);
    fill(out);
    let size = u32::try_from(out.len() - start - 8).expect("AGN chunk larger than 4 GiB");
    out[start + 4..start + 8].copy_from_slice(&size.to_le_bytes());
}

fn put_i32(out: &mut Vec<u8>, v: i32) {
    out.extend_from_slice(&v.to_le_bytes());
}

fn put_f32(out: &mut Vec<u8>, v: f32) {
    out.extend_from_slice(&v.to_le_bytes());
}

fn put_point(out: &mut Vec<u8>, p: Point) {
    put_f32(out, p[0]);
    put_f32(out, p[1]);
}

fn put_footprint(out: &mut Vec<u8>, f: &Footprint) {
    put_point(out, f.start);
    put_point(out, f.to_second);
    put_point(out, f.to_third);
}

fn put_rect(out: &mut Vec<u8>, r: &Rect) {
    put_point(out, r.start);
    put_point(out, r.to_second);
}

fn put_vertices(out: &mut Vec<u8>, vertices: &[Point]) {
    let n = i32::try_from(vertices.len()).expect("more than 2^31 vertices");
    put_i32(out, n);
    vertices.iter().for_each(|&p| put_point(out, p));
}

fn put_name(out: &mut Vec<u8>, name: &str) {
    out.extend_from_slice(name.as_bytes());
    let pad = 4 - name.len() % 4;
    out.extend(std::iter::repeat_n(0u8, pad));
}

// ---------------------------------------------------------------------------------------
// LOD13 squares
// ---------------------------------------------------------------------------------------

/// Degrees of longitude one LOD13 square spans (360 / 24576).
pub const LOD13_LON_STEP: f64 = 0.0146484375;
/// Degrees of latitude one LOD13 square spans (180 / 16384).
pub const LOD13_LAT_STEP: f64 = 0.010986328125;
/// The largest LOD13 U (column, counted east from 180° W).
pub const LOD13_U_MAX: u32 = 24575;
/// The largest LOD13 V (row, counted south from 90° N).
pub const LOD13_V_MAX: u32 = 16383;
/// Meters per degree of latitude (and of longitude at the equator) on a sphere of the WGS84
/// equatorial radius; gives the spec's ≈1223 m per y unit and ≈1630·cos φ m per x unit.
pub const METERS_PER_DEGREE: f64 = 6_378_137.0 * std::f64::consts::PI / 180.0;

/// The length of an `.agn` file name: 15 digits, then `an.agn`.
const LOD13_DIGITS: usize = 15;
const AGN_SUFFIX: &str = "an.agn";

/// A LOD13 square, the area one `.agn` file covers: QMID level 15 column `u` and row `v`.
/// The file name encodes it: digit i (most significant first) = bit i of U + 2 · bit i of V.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
pub struct Lod13 {
    pub u: u32,
    pub v: u32,
}

/// A latitude/longitude box in degrees.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct GeoBounds {
    pub north: f64,
    pub south: f64,
    pub east: f64,
    pub west: f64,
}

impl GeoBounds {
    /// `(lat, lon)` of the middle of the box.
    pub fn center(&self) -> (f64, f64) {
        (
            (self.north + self.south) / 2.0,
            (self.east + self.west) / 2.0,
        )
    }

    /// True when the point lies in the box (north and west edges included, south and east
    /// edges excluded, so that neighbouring squares do not overlap).
    pub fn contains(&self, lat: f64, lon: f64) -> bool {
        lat <= self.north && lat > self.south && lon >= self.west && lon < self.east
    }
}

impl Lod13 {
    /// A square from its U and V, rejecting values past [`LOD13_U_MAX`] / [`LOD13_V_MAX`].
    pub fn new(u: u32, v: u32) -> Result<Lod13, String> {
        if u > LOD13_U_MAX {
            return Err(format!("LOD13 U {u} is larger than {LOD13_U_MAX}"));
        }
        if v > LOD13_V_MAX {
            return Err(format!("LOD13 V {v} is larger than {LOD13_V_MAX}"));
        }
        Ok(Lod13 { u, v })
    }

    /// Reads a file name such as `001332223121112an.agn` (any directory part, `/` or `\`,
    /// is stripped; the `an.agn` suffix may be in any case).
    pub fn from_file_name(name: &str) -> Result<Lod13, String> {
        let base = name.rsplit(['/', '\\']).next().unwrap_or(name);
        let n = base.len();
        if n < AGN_SUFFIX.len()
            || !base.as_bytes()[n - AGN_SUFFIX.len()..].eq_ignore_ascii_case(AGN_SUFFIX.as_bytes())
        {
            return Err(format!(
                "'{base}' is not a LOD13 .agn name: it does not end in '{AGN_SUFFIX}'"
            ));
        }
        // The suffix is ASCII, so this cut is on a character boundary.
        let digits = &base[..n - AGN_SUFFIX.len()];
        let count = digits.chars().count();
        if count != LOD13_DIGITS {
            return Err(format!(
                "'{base}' is not a LOD13 .agn name: it has {count} characters before '{AGN_SUFFIX}', a LOD13 name has {LOD13_DIGITS} digits"
            ));
        }
        let (mut u, mut v) = (0u32, 0u32);
        for (i, ch) in digits.chars().enumerate() {
            let d = match ch {
                '0'..='3' => ch as u32 - '0' as u32,
                _ => {
                    return Err(format!(
                        "'{base}' is not a LOD13 .agn name: character {} is '{ch}', LOD13 digits are 0 to 3",
                        i + 1
                    ))
                }
            };
            u = (u << 1) | (d & 1);
            v = (v << 1) | (d >> 1);
        }
        Lod13::new(u, v).map_err(|e| format!("'{base}' is not a LOD13 .agn name: {e}"))
    }

    /// The file name of this square's `.agn` file, e.g. `001332223121112an.agn`.
    pub fn file_name(&self) -> String {
        let mut s = String::with_capacity(LOD13_DIGITS + AGN_SUFFIX.len());
        for i in (0..LOD13_DIGITS).rev() {
            let d = ((self.u >> i) & 1) + 2 * ((self.v >> i) & 1);
            s.push(char::from(b'0' + d as u8));
        }
        s.push_str(AGN_SUFFIX);
        s
    }

    /// The square holding a point: `U = floor((lon + 180)·24576/360)`,
    /// `V = floor((90 − lat)·16384/180)`. Longitude 180 is the same meridian as −180; the
    /// south pole belongs to the last row.
    pub fn from_lat_lon(lat: f64, lon: f64) -> Result<Lod13, String> {
        if !(-90.0..=90.0).contains(&lat) {
            return Err(format!("latitude {lat} is outside -90..90"));
        }
        if !(-180.0..=180.0).contains(&lon) {
            return Err(format!("longitude {lon} is outside -180..180"));
        }
        let u = ((lon + 180.0) / LOD13_LON_STEP).floor() as u32 % (LOD13_U_MAX + 1);
        let v = (((90.0 - lat) / LOD13_LAT_STEP).floor() as u32).min(LOD13_V_MAX);
        Ok(Lod13 { u, v })
    }

    /// The square's edges: north-west corner `(90 − V·step, U·step − 180)`.
    pub fn bounds(&self) -> GeoBounds {
        let north = 90.0 - self.v as f64 * LOD13_LAT_STEP;
        let west = self.u as f64 * LOD13_LON_STEP - 180.0;
        GeoBounds {
            north,
            south: north - LOD13_LAT_STEP,
            east: west + LOD13_LON_STEP,
            west,
        }
    }

    /// Meters per square unit `[x, y]`, x taken at the square's middle latitude (one scale
    /// for the whole square, so straight lines stay straight).
    pub fn meters_per_unit(&self) -> [f64; 2] {
        let (lat, _) = self.bounds().center();
        [
            LOD13_LON_STEP * METERS_PER_DEGREE * lat.to_radians().cos(),
            LOD13_LAT_STEP * METERS_PER_DEGREE,
        ]
    }

    /// A centred-frame point (−0.5..0.5, y south) in local meters: origin at the square's
    /// centre, x east, y north.
    pub fn centred_to_local(&self, p: Point) -> [f64; 2] {
        let [mx, my] = self.meters_per_unit();
        [p[0] as f64 * mx, -(p[1] as f64) * my]
    }

    /// A top-left-frame point (0..1 from the north-west corner, y south) in the same local
    /// meters as [`Lod13::centred_to_local`].
    pub fn top_left_to_local(&self, p: Point) -> [f64; 2] {
        let [mx, my] = self.meters_per_unit();
        [(p[0] as f64 - 0.5) * mx, -(p[1] as f64 - 0.5) * my]
    }

    /// Local meters back to the centred frame (the inverse of [`Lod13::centred_to_local`]).
    pub fn local_to_centred(&self, m: [f64; 2]) -> Point {
        let [mx, my] = self.meters_per_unit();
        [(m[0] / mx) as f32, (-m[1] / my) as f32]
    }

    /// `(lat, lon)` of a centred-frame point.
    pub fn centred_to_lat_lon(&self, p: Point) -> (f64, f64) {
        let (lat, lon) = self.bounds().center();
        (
            lat - p[1] as f64 * LOD13_LAT_STEP,
            lon + p[0] as f64 * LOD13_LON_STEP,
        )
    }

    /// `(lat, lon)` of a top-left-frame point.
    pub fn top_left_to_lat_lon(&self, p: Point) -> (f64, f64) {
        let b = self.bounds();
        (
            b.north - p[1] as f64 * LOD13_LAT_STEP,
            b.west + p[0] as f64 * LOD13_LON_STEP,
        )
    }
}

impl fmt::Display for Lod13 {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "LOD13 U={} V={}", self.u, self.v)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diag::{Location, Severity};

    fn path() -> &'static Path {
        Path::new("t/001332223121112an.agn")
    }

    fn read(bytes: &[u8]) -> (Result<AgnFile, Diagnostic>, Vec<Diagnostic>) {
        let mut w = Vec::new();
        let r = parse(path(), bytes, &mut w);
        (r, w)
    }

    fn read_ok(bytes: &[u8]) -> (AgnFile, Vec<Diagnostic>) {
        let (r, w) = read(bytes);
        match r {
            Ok(f) => (f, w),
            Err(e) => panic!("expected a valid file, got {e}"),
        }
    }

    fn read_err(bytes: &[u8]) -> Diagnostic {
        match read(bytes).0 {
            Ok(f) => panic!("expected an error, got {f:?}"),
            Err(e) => {
                assert_eq!(e.severity, Severity::Error);
                e
            }
        }
    }

    fn at(d: &Diagnostic) -> u64 {
        match d.location {
            Location::Offset(o) => o,
            other => panic!("diagnostic {d} has no offset: {other:?}"),
        }
    }

    /// A RIFF AGNX file around raw child bytes that `fill` writes.
    fn riff(fill: impl FnOnce(&mut Vec<u8>)) -> Vec<u8> {
        let mut out = Vec::new();
        chunk(&mut out, b"RIFF", |b| {
            b.extend_from_slice(&FORM_TYPE);
            fill(b);
        });
        out
    }

    fn g(n: u8) -> Guid {
        Guid([n; 16])
    }

    fn fp(x: f32, y: f32) -> Footprint {
        Footprint {
            offset: 0,
            start: [x, y],
            to_second: [0.01, 0.002],
            to_third: [-0.001, 0.012],
        }
    }

    /// A model with every section, both A2GE forms and several records per chunk.
    fn model() -> AgnFile {
        AgnFile {
            version: Some(Version {
                offset: 0,
                value: FSX_VERSION,
            }),
            building_weights: Some(BuildingWeights {
                offset: 0,
                weights: [14, 4, 2, 0],
            }),
            building_texture: Some(TextureName {
                offset: 0,
                name: "town_wall".into(),
            }),
            row_house_texture: Some(TextureName {
                offset: 0,
                name: "rows".into(),
            }),
            generic_buildings: vec![
                GenericBuildings {
                    offset: 0,
                    roof: Guid::ZERO,
                    buildings: vec![fp(-0.1, 0.2), fp(0.3, -0.25)],
                },
                GenericBuildings {
                    offset: 0,
                    roof: g(7),
                    buildings: vec![fp(0.0, 0.0)],
                },
            ],
            vegetation_polygons: vec![VegetationPolygons {
                offset: 0,
                vegetation: g(3),
                polygons: vec![
                    Polygon {
                        offset: 0,
                        vertices: vec![[0.1, 0.1], [0.2, 0.1], [0.2, 0.3], [0.1, 0.1]],
                    },
                    Polygon {
                        offset: 0,
                        vertices: vec![[0.6, 0.6], [0.9, 0.6], [0.8, 0.9], [0.6, 0.7], [0.6, 0.6]],
                    },
                ],
            }],
            vegetation_rects: vec![VegetationRects {
                offset: 0,
                vegetation: g(4),
                rects: vec![
                    Rect {
                        offset: 0,
                        start: [-0.4, -0.4],
                        to_second: [0.1, 0.05],
                    },
                    Rect {
                        offset: 0,
                        start: [0.2, 0.3],
                        to_second: [0.05, 0.1],
                    },
                ],
            }],
            fs2004_vegetation: Some(Fs2004Vegetation {
                offset: 0,
                class1: 2,
                class2: 5,
                percent_class1: 60,
                max_density: 40,
                height_class1: [8.0, 15.0],
                height_class2: [5.0, 9.5],
            }),
            fs2004_vegetation_rects: vec![Rect {
                offset: 0,
                start: [0.1, -0.2],
                to_second: [0.02, 0.03],
            }],
            row_houses: vec![fp(0.05, 0.05), fp(0.07, 0.05), fp(0.09, 0.05)],
            library_objects: vec![
                LibraryObject {
                    offset: 0,
                    guid: g(9),
                    start: [0.1, 0.1],
                    to_second: [0.02, 0.04],
                    to_third: None,
                },
                LibraryObject {
                    offset: 0,
                    guid: g(10),
                    start: [-0.2, 0.1],
                    to_second: [0.02, 0.0],
                    to_third: Some([0.0, 0.03]),
                },
            ],
            polygon_buildings: vec![PolygonBuildings {
                offset: 0,
                building: g(11),
                buildings: vec![PolygonBuilding {
                    offset: 0,
                    kind: 1,
                    width: 0.0125,
                    vertices: vec![[0.4, 0.4], [0.45, 0.4], [0.45, 0.46]],
                }],
            }],
        }
    }

    /// The model with every offset set to 0, to compare content only.
    fn strip_offsets(mut f: AgnFile) -> AgnFile {
        if let Some(v) = &mut f.version {
            v.offset = 0;
        }
        if let Some(v) = &mut f.building_weights {
            v.offset = 0;
        }
        for t in [&mut f.building_texture, &mut f.row_house_texture]
            .into_iter()
            .flatten()
        {
            t.offset = 0;
        }
        for gb in &mut f.generic_buildings {
            gb.offset = 0;
            gb.buildings.iter_mut().for_each(|b| b.offset = 0);
        }
        for vp in &mut f.vegetation_polygons {
            vp.offset = 0;
            vp.polygons.iter_mut().for_each(|p| p.offset = 0);
        }
        for vr in &mut f.vegetation_rects {
            vr.offset = 0;
            vr.rects.iter_mut().for_each(|r| r.offset = 0);
        }
        if let Some(v) = &mut f.fs2004_vegetation {
            v.offset = 0;
        }
        f.fs2004_vegetation_rects
            .iter_mut()
            .for_each(|r| r.offset = 0);
        f.row_houses.iter_mut().for_each(|r| r.offset = 0);
        f.library_objects.iter_mut().for_each(|o| o.offset = 0);
        for pb in &mut f.polygon_buildings {
            pb.offset = 0;
            pb.buildings.iter_mut().for_each(|b| b.offset = 0);
        }
        f
    }

    fn tag_at(bytes: &[u8], offset: u64) -> &[u8] {
        &bytes[offset as usize..offset as usize + 4]
    }

    // --- GUID ---------------------------------------------------------------------------

    #[test]
    fn guid_uses_dotnet_byte_order() {
        let bytes = [
            0x33, 0x22, 0x11, 0x00, 0x55, 0x44, 0x77, 0x66, 0x88, 0x99, 0xaa, 0xbb, 0xcc, 0xdd,
            0xee, 0xff,
        ];
        let text = "00112233-4455-6677-8899-aabbccddeeff";
        assert_eq!(Guid(bytes).to_string(), text);
        assert_eq!(Guid::parse(text), Ok(Guid(bytes)));
        assert_eq!(
            "{00112233-4455-6677-8899-AABBCCDDEEFF}".parse::<Guid>(),
            Ok(Guid(bytes))
        );
        assert_eq!(
            serde_json::to_string(&Guid(bytes)).unwrap(),
            format!("\"{text}\"")
        );
        assert!(Guid::ZERO.is_zero());
        assert!(!Guid(bytes).is_zero());
        assert_eq!(
            Guid::ZERO.to_string(),
            "00000000-0000-0000-0000-000000000000"
        );
        for s in [1u8, 0x5a, 0xfe] {
            let g = Guid([s, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, s]);
            assert_eq!(Guid::parse(&g.to_string()), Ok(g));
        }
    }

    #[test]
    fn guid_rejects_malformed_text() {
        for bad in [
            "",
            "00112233-4455-6677-8899",
            "00112233-4455-6677-8899-aabbccddeef",
            "0011223g-4455-6677-8899-aabbccddeeff",
            "+0112233-4455-6677-8899-aabbccddeeff",
            "{00112233-4455-6677-8899-aabbccddeeff",
            "00112233-4455-6677-8899-aabbccddeeff-00",
        ] {
            assert!(Guid::parse(bad).is_err(), "{bad:?} parsed");
        }
    }

    // --- LOD13 --------------------------------------------------------------------------

    #[test]
    fn lod13_spec_example() {
        let sq = Lod13 { u: 7278, v: 4049 };
        assert_eq!(sq.file_name(), "001332223121112an.agn");
        assert_eq!(Lod13::from_file_name("001332223121112an.agn"), Ok(sq));
        assert_eq!(
            Lod13::from_file_name("scenery/world/texture/001332223121112an.agn"),
            Ok(sq)
        );
        assert_eq!(
            Lod13::from_file_name("C:\\FSX\\Scenery\\0301\\texture\\001332223121112AN.AGN"),
            Ok(sq)
        );
        // The spec's upper-left corner N45.51 W73.38 lies in this square.
        assert_eq!(Lod13::from_lat_lon(45.51, -73.38), Ok(sq));
        let b = sq.bounds();
        assert_eq!(b.north, 90.0 - 4049.0 * 0.010986328125);
        assert_eq!(b.west, 7278.0 * 0.0146484375 - 180.0);
        assert!((b.north - b.south - LOD13_LAT_STEP).abs() < 1e-12);
        assert!((b.east - b.west - LOD13_LON_STEP).abs() < 1e-12);
        assert!(b.contains(45.51, -73.38));
    }

    #[test]
    fn lod13_rejects_bad_names() {
        let e = Lod13::from_file_name("001332243121112an.agn").unwrap_err();
        assert!(e.contains("character 8") && e.contains("'4'"), "{e}");
        let e = Lod13::from_file_name("x01332223121112an.agn").unwrap_err();
        assert!(e.contains("character 1") && e.contains("'x'"), "{e}");
        let e = Lod13::from_file_name("00133222312111éan.agn").unwrap_err();
        assert!(e.contains("character 15") && e.contains("'é'"), "{e}");
        let e = Lod13::from_file_name("01332223121112an.agn").unwrap_err();
        assert!(e.contains("14 characters"), "{e}");
        let e = Lod13::from_file_name("001332223121112.agn").unwrap_err();
        assert!(e.contains("an.agn"), "{e}");
        assert!(Lod13::from_file_name("").is_err());
        assert!(Lod13::from_file_name("é").is_err());
        // U = 110000000000000b = 24576, one past the largest.
        let e = Lod13::from_file_name("110000000000000an.agn").unwrap_err();
        assert!(e.contains("U 24576"), "{e}");
        assert_eq!(
            Lod13::from_file_name("101111111111111an.agn"),
            Ok(Lod13 { u: 24575, v: 0 })
        );
        // V's top bit makes V ≥ 16384.
        let e = Lod13::from_file_name("200000000000000an.agn").unwrap_err();
        assert!(e.contains("V 16384"), "{e}");
        assert_eq!(
            Lod13::from_file_name("022222222222222an.agn"),
            Ok(Lod13 { u: 0, v: 16383 })
        );
        assert!(Lod13::new(24576, 0).is_err());
        assert!(Lod13::new(0, 16384).is_err());
    }

    #[test]
    fn lod13_round_trips_over_the_globe() {
        let us = (0..=LOD13_U_MAX).step_by(97).chain([LOD13_U_MAX]);
        let mut checked = 0;
        for u in us {
            let vs = (0..=LOD13_V_MAX).step_by(89).chain([LOD13_V_MAX]);
            for v in vs {
                let sq = Lod13::new(u, v).unwrap();
                let name = sq.file_name();
                assert_eq!(name.len(), 21);
                assert_eq!(Lod13::from_file_name(&name), Ok(sq), "{name}");
                let b = sq.bounds();
                let (clat, clon) = b.center();
                for (lat, lon) in [
                    (b.north, b.west),
                    (clat, clon),
                    (b.south + 1e-9, b.east - 1e-9),
                    (b.north - 1e-9, b.east - 1e-9),
                ] {
                    if lat < -90.0 {
                        continue;
                    }
                    assert_eq!(Lod13::from_lat_lon(lat, lon), Ok(sq), "{lat} {lon} in {sq}");
                    assert!(b.contains(lat, lon));
                }
                // A point just past the south-east corner is in the next square.
                if u < LOD13_U_MAX && v < LOD13_V_MAX {
                    assert_eq!(
                        Lod13::from_lat_lon(b.south - 1e-9, b.east + 1e-9),
                        Ok(Lod13 { u: u + 1, v: v + 1 })
                    );
                }
                checked += 1;
            }
        }
        assert!(checked > 40_000, "{checked}");
    }

    #[test]
    fn lod13_edges_of_the_globe() {
        assert_eq!(Lod13::from_lat_lon(90.0, -180.0), Ok(Lod13 { u: 0, v: 0 }));
        assert_eq!(Lod13::from_lat_lon(0.0, 180.0), Ok(Lod13 { u: 0, v: 8192 }));
        assert_eq!(
            Lod13::from_lat_lon(-90.0, 179.999),
            Ok(Lod13 {
                u: LOD13_U_MAX,
                v: LOD13_V_MAX
            })
        );
        assert!(Lod13::from_lat_lon(f64::NAN, 0.0).is_err());
        assert!(Lod13::from_lat_lon(0.0, f64::INFINITY).is_err());
        assert!(Lod13::from_lat_lon(90.5, 0.0).is_err());
        assert!(Lod13::from_lat_lon(0.0, -180.5).is_err());
    }

    #[test]
    fn lod13_meters_in_both_frames() {
        let equator = Lod13::from_lat_lon(0.001, 10.0).unwrap();
        let [mx, my] = equator.meters_per_unit();
        assert!((mx - 1630.0).abs() < 2.0, "{mx}");
        assert!((my - 1223.0).abs() < 1.0, "{my}");
        let north = Lod13::from_lat_lon(60.0, 10.0).unwrap();
        let [mx60, my60] = north.meters_per_unit();
        let lat = north.bounds().center().0.to_radians();
        assert!((mx60 - 1630.66 * lat.cos()).abs() < 1.0, "{mx60}");
        assert_eq!(my60, my);

        let sq = Lod13::from_lat_lon(47.6, -122.3).unwrap();
        let [mx, my] = sq.meters_per_unit();
        // Centred frame: (0.5, 0.5) is the south-east corner; y grows south.
        assert_eq!(sq.centred_to_local([0.5, 0.5]), [mx / 2.0, -my / 2.0]);
        assert_eq!(sq.centred_to_local([0.0, 0.0]), [0.0, 0.0]);
        // Top-left frame: (0, 0) is the north-west corner, (0.5, 0.5) the centre.
        assert_eq!(sq.top_left_to_local([0.0, 0.0]), [-mx / 2.0, my / 2.0]);
        assert_eq!(sq.top_left_to_local([0.5, 0.5]), [0.0, 0.0]);
        for p in [[0.1f32, 0.7], [0.9, 0.2], [0.33, 0.5]] {
            let a = sq.top_left_to_local(p);
            let b = sq.centred_to_local([p[0] - 0.5, p[1] - 0.5]);
            assert!((a[0] - b[0]).abs() < 1e-3 && (a[1] - b[1]).abs() < 1e-3);
            let back = sq.local_to_centred(sq.centred_to_local(p));
            assert!((back[0] - p[0]).abs() < 1e-6 && (back[1] - p[1]).abs() < 1e-6);
        }
        let b = sq.bounds();
        let (lat, lon) = sq.centred_to_lat_lon([-0.5, -0.5]);
        assert!((lat - b.north).abs() < 1e-12 && (lon - b.west).abs() < 1e-12);
        let (lat, lon) = sq.top_left_to_lat_lon([1.0, 1.0]);
        assert!((lat - b.south).abs() < 1e-12 && (lon - b.east).abs() < 1e-12);
        // A square 30 m on the ground is not square in units.
        let side = sq.local_to_centred([30.0, 30.0]);
        assert!(side[0] > side[1] * 1.4, "{side:?}");
    }

    // --- Writer and reader --------------------------------------------------------------

    #[test]
    fn written_file_reads_back_section_by_section() {
        let m = model();
        let bytes = write(&m);
        assert_eq!(&bytes[0..4], b"RIFF");
        assert_eq!(read_u32(&bytes, 4), bytes.len() - 8);
        assert_eq!(&bytes[8..12], b"AGNX");
        let (f, w) = read_ok(&bytes);
        assert!(w.is_empty(), "{w:?}");

        assert_eq!(f.version.map(|v| v.value), Some(FSX_VERSION));
        assert_eq!(f.building_weights.map(|w| w.weights), Some([14, 4, 2, 0]));
        assert_eq!(
            f.building_weights.unwrap().fractions(),
            [0.7, 0.2, 0.1, 0.0]
        );
        assert_eq!(f.building_texture.as_ref().unwrap().name, "town_wall");
        assert_eq!(f.row_house_texture.as_ref().unwrap().name, "rows");
        assert_eq!(f.generic_buildings.len(), 2);
        assert!(f.generic_buildings[0].roof.is_zero());
        assert_eq!(f.generic_buildings[1].roof, g(7));
        assert_eq!(f.generic_buildings[0].buildings.len(), 2);
        assert_eq!(f.vegetation_polygons[0].polygons.len(), 2);
        assert_eq!(f.vegetation_polygons[0].polygons[1].vertices.len(), 5);
        assert_eq!(f.vegetation_rects[0].rects.len(), 2);
        assert_eq!(f.fs2004_vegetation.unwrap().height_class2, [5.0, 9.5]);
        assert_eq!(f.fs2004_vegetation_rects.len(), 1);
        assert_eq!(f.row_houses.len(), 3);
        assert_eq!(f.library_objects.len(), 2);
        assert_eq!(f.polygon_buildings[0].buildings[0].width, 0.0125);
        assert_eq!(strip_offsets(f.clone()), m);

        // Offsets point at the chunk headers and records they belong to.
        assert_eq!(tag_at(&bytes, f.version.unwrap().offset), b"VERS");
        assert_eq!(tag_at(&bytes, f.building_weights.unwrap().offset), b"GBDD");
        assert_eq!(
            tag_at(&bytes, f.building_texture.as_ref().unwrap().offset),
            b"GBTE"
        );
        assert_eq!(
            tag_at(&bytes, f.row_house_texture.as_ref().unwrap().offset),
            b"RHTE"
        );
        for gb in &f.generic_buildings {
            assert_eq!(tag_at(&bytes, gb.offset), b"GBLR");
            for (i, b) in gb.buildings.iter().enumerate() {
                assert_eq!(b.offset, gb.offset + 8 + 16 + 24 * i as u64);
            }
        }
        let vp = &f.vegetation_polygons[0];
        assert_eq!(tag_at(&bytes, vp.offset), b"PRDE");
        assert_eq!(vp.polygons[0].offset, vp.offset + 24);
        assert_eq!(vp.polygons[1].offset, vp.offset + 24 + 4 + 4 * 8);
        assert_eq!(tag_at(&bytes, f.vegetation_rects[0].offset), b"VGRE");
        assert_eq!(tag_at(&bytes, f.fs2004_vegetation.unwrap().offset), b"VGRD");
        assert_eq!(
            tag_at(&bytes, f.fs2004_vegetation_rects[0].offset - 8),
            b"VGRO"
        );
        assert_eq!(tag_at(&bytes, f.row_houses[0].offset - 8), b"ROWH");
        assert_eq!(f.row_houses[2].offset, f.row_houses[0].offset + 48);
        assert_eq!(tag_at(&bytes, f.library_objects[1].offset), b"A2GE");
        let pb = &f.polygon_buildings[0];
        assert_eq!(tag_at(&bytes, pb.offset), b"PBDE");
        assert_eq!(pb.buildings[0].offset, pb.offset + 24);

        // The typed file serialises for `agview dump --json`.
        let json = serde_json::to_value(&f).unwrap();
        assert_eq!(
            json["generic_buildings"][1]["roof"],
            "07070707-0707-0707-0707-070707070707"
        );
        assert_eq!(
            json["library_objects"][0]["to_third"],
            serde_json::Value::Null
        );
    }

    #[test]
    fn library_objects_in_both_forms() {
        let m = model();
        let bytes = write(&m);
        let (f, _) = read_ok(&bytes);
        let [two, three] = [f.library_objects[0], f.library_objects[1]];
        assert_eq!(read_u32(&bytes, two.offset as usize + 4), 32);
        assert_eq!(read_u32(&bytes, three.offset as usize + 4), 40);
        assert_eq!(two.to_third, None);
        assert_eq!(three.to_third, Some([0.0, 0.03]));
        assert_eq!(two.guid, g(9));
        assert_eq!(three.guid, g(10));
        let c = two.center();
        assert!(
            (c[0] - 0.11).abs() < 1e-6 && (c[1] - 0.12).abs() < 1e-6,
            "{c:?}"
        );
        let c = three.center();
        assert!(
            (c[0] + 0.19).abs() < 1e-6 && (c[1] - 0.115).abs() < 1e-6,
            "{c:?}"
        );

        // Any other size is skipped with a warning, not read as something else.
        let bytes = riff(|b| {
            chunk(b, b"AGN2", |b| {
                chunk(b, b"A2GE", |b| {
                    b.extend_from_slice(&g(1).0);
                    (0..7).for_each(|_| put_f32(b, 0.1));
                });
                chunk(b, b"A2GE", |b| {
                    b.extend_from_slice(&g(2).0);
                    (0..4).for_each(|_| put_f32(b, 0.2));
                });
            });
        });
        let (f, w) = read_ok(&bytes);
        assert_eq!(f.library_objects.len(), 1);
        assert_eq!(f.library_objects[0].guid, g(2));
        assert_eq!(w.len(), 1, "{w:?}");
        assert!(w[0].message.contains("size 44"), "{}", w[0]);
        assert_eq!(at(&w[0]), 20);
    }

    #[test]
    fn footprint_and_rect_corners() {
        let f = fp(0.1, 0.2);
        let c = f.corners();
        assert_eq!(c[0], [0.1, 0.2]);
        assert_eq!(c[1], [0.1 + 0.01, 0.2 + 0.002]);
        assert_eq!(c[2], [0.1 + 0.01 - 0.001, 0.2 + 0.002 + 0.012]);
        assert_eq!(c[3], [0.1 - 0.001, 0.2 + 0.012]);
        let r = Rect {
            offset: 0,
            start: [0.0, 0.0],
            to_second: [0.25, 0.5],
        };
        assert_eq!(
            r.corners(),
            [[0.0, 0.0], [0.25, 0.0], [0.25, 0.5], [0.0, 0.5]]
        );
    }

    // --- Bad files ----------------------------------------------------------------------

    #[test]
    fn chunk_running_past_its_parent_names_tag_and_offset() {
        // GBLR claims 100 bytes inside a GBLD that holds 40.
        let mut bytes = riff(|b| {
            chunk(b, b"GBLD", |b| {
                chunk(b, b"GBLR", |b| {
                    b.extend_from_slice(&[0; 16]);
                    (0..6).for_each(|_| put_f32(b, 0.0));
                });
            });
            chunk(b, b"VERS", |b| put_i32(b, FSX_VERSION));
        });
        // RIFF(0) AGNX(8) GBLD(12) GBLR(20)
        assert_eq!(&bytes[20..24], b"GBLR");
        bytes[24..28].copy_from_slice(&100u32.to_le_bytes());
        let e = read_err(&bytes);
        assert_eq!(at(&e), 20);
        assert!(e.message.contains("GBLR chunk at offset 20"), "{e}");
        assert!(e.message.contains("parent GBLD chunk at offset 12"), "{e}");
        assert!(e
            .to_string()
            .starts_with("t/001332223121112an.agn: offset 20: error:"));
    }

    #[test]
    fn chunk_running_past_the_end_of_the_file() {
        let full = write(&model());
        // Cut the file inside its last chunk and fix the RIFF size: the last chunk is short.
        let mut cut = full[..full.len() - 5].to_vec();
        let riff_size = (cut.len() - 8) as u32;
        cut[4..8].copy_from_slice(&riff_size.to_le_bytes());
        let e = read_err(&cut);
        assert!(e.message.contains("runs past the end of the file"), "{e}");
        assert!(e.message.contains("PBLD chunk at offset"), "{e}");
        assert_eq!(tag_at(&cut, at(&e)), b"PBLD");
        // Without fixing the RIFF size, the RIFF chunk itself is too long.
        let e = read_err(&full[..full.len() - 5]);
        assert_eq!(at(&e), 0);
        assert!(e.message.contains("RIFF chunk at offset 0 has size"), "{e}");
        assert!(e.message.contains("by 5 bytes"), "{e}");
    }

    #[test]
    fn truncated_records_name_tag_and_offset() {
        // VERS with 2 bytes.
        let bytes = riff(|b| chunk(b, b"VERS", |b| b.extend_from_slice(&[1, 2])));
        let e = read_err(&bytes);
        assert!(
            e.message.contains("VERS chunk at offset 12: truncated"),
            "{e}"
        );
        assert_eq!(at(&e), 20);
        // GBLR with a GUID and 20 bytes: not a whole building.
        let bytes = riff(|b| {
            chunk(b, b"GBLD", |b| {
                chunk(b, b"GBLR", |b| b.extend_from_slice(&[0; 36]))
            })
        });
        let e = read_err(&bytes);
        assert_eq!(at(&e), 20);
        assert!(
            e.message.contains("GBLR chunk at offset 20: size 36"),
            "{e}"
        );
        // GBLR too short for its GUID.
        let bytes = riff(|b| {
            chunk(b, b"GBLD", |b| {
                chunk(b, b"GBLR", |b| b.extend_from_slice(&[0; 8]))
            })
        });
        let e = read_err(&bytes);
        assert!(
            e.message
                .contains("GBLR chunk at offset 20: truncated: the roof GUID"),
            "{e}"
        );
        // ROWH of 30 bytes.
        let bytes = riff(|b| chunk(b, b"ROWH", |b| b.extend_from_slice(&[0; 30])));
        let e = read_err(&bytes);
        assert!(
            e.message.contains("ROWH chunk at offset 12: size 30"),
            "{e}"
        );
        // A chunk header cut short inside the RIFF chunk.
        let bytes = riff(|b| {
            chunk(b, b"VERS", |b| put_i32(b, FSX_VERSION));
            b.extend_from_slice(b"GBD");
        });
        let e = read_err(&bytes);
        assert_eq!(at(&e), 24);
        assert!(
            e.message.contains("truncated chunk header at offset 24"),
            "{e}"
        );
    }

    fn prde_with_count(count: i32, vertices: usize) -> Vec<u8> {
        riff(|b| {
            chunk(b, b"PREG", |b| {
                chunk(b, b"PRDE", |b| {
                    b.extend_from_slice(&g(1).0);
                    put_i32(b, count);
                    (0..vertices).for_each(|i| put_point(b, [i as f32 * 0.1, 0.5]));
                })
            })
        })
    }

    #[test]
    fn vertex_count_beyond_the_chunk() {
        // RIFF(0) AGNX(8) PREG(12) PRDE(20) GUID(28) count(44)
        for (count, has) in [(5, 2), (i32::MAX, 3), (1 << 30, 0), (i32::MIN, 1), (-1, 0)] {
            let bytes = prde_with_count(count, has);
            let e = read_err(&bytes);
            assert_eq!(at(&e), 44, "{e}");
            assert!(e.message.contains("PRDE chunk at offset 20"), "{e}");
            assert!(e.message.contains(&format!("vertex count {count}")), "{e}");
        }
        // PBDE too.
        let bytes = riff(|b| {
            chunk(b, b"PBLD", |b| {
                chunk(b, b"PBDE", |b| {
                    b.extend_from_slice(&g(1).0);
                    put_i32(b, 1);
                    put_f32(b, 0.01);
                    put_i32(b, 1_000_000);
                    put_point(b, [0.1, 0.1]);
                })
            })
        });
        let e = read_err(&bytes);
        assert!(e.message.contains("PBDE chunk at offset 20"), "{e}");
        assert!(e.message.contains("vertex count 1000000"), "{e}");
        // A count that fits reads.
        let (f, w) = read_ok(&prde_with_count(4, 4));
        assert_eq!(f.vegetation_polygons[0].polygons[0].vertices.len(), 4);
        // Open ring: read, with a warning.
        assert_eq!(w.len(), 1, "{w:?}");
        assert!(w[0].message.contains("not closed"));
    }

    #[test]
    fn non_finite_coordinates_are_errors() {
        let mut m = model();
        m.generic_buildings[1].buildings[0].to_third[1] = f32::NAN;
        let bytes = write(&m);
        let e = read_err(&bytes);
        assert!(e.message.contains("GBLR chunk at offset"), "{e}");
        assert!(e.message.contains("NaN"), "{e}");
        // The error points at the float: the last float of that GBLR.
        let gblr = {
            let mut ok = model();
            ok.generic_buildings[1].buildings[0].to_third[1] = 0.0;
            read_ok(&write(&ok)).0.generic_buildings[1].offset
        };
        assert_eq!(at(&e), gblr + 8 + 16 + 20);

        let mut m = model();
        m.vegetation_polygons[0].polygons[1].vertices[2][0] = f32::INFINITY;
        let e = read_err(&write(&m));
        assert!(e.message.contains("PRDE chunk at offset"), "{e}");
        assert!(e.message.contains("inf"), "{e}");

        let mut m = model();
        m.polygon_buildings[0].buildings[0].width = f32::NEG_INFINITY;
        let e = read_err(&write(&m));
        assert!(
            e.message.contains("PBDE") && e.message.contains("extrusion width"),
            "{e}"
        );

        let mut m = model();
        m.library_objects[1].to_third = Some([f32::NAN, 0.0]);
        let e = read_err(&write(&m));
        assert!(
            e.message.contains("A2GE") && e.message.contains("third point"),
            "{e}"
        );
    }

    #[test]
    fn bad_headers() {
        let e = read_err(b"");
        assert!(e.message.contains("empty file"), "{e}");
        let e = read_err(b"RIFF\0\0\0\0");
        assert!(e.message.contains("empty RIFF"), "{e}");
        assert_eq!(at(&e), 0);
        let e = read_err(b"RIF");
        assert!(
            e.message.contains("FS2004") && e.message.contains("only FSX RIFF"),
            "{e}"
        );
        let e = read_err(b"RIFF\x10");
        assert!(e.message.contains("truncated RIFF header"), "{e}");
        let e = read_err(b"RIFF\x02\0\0\0AG");
        assert!(e.message.contains("truncated RIFF header"), "{e}");
        let e = read_err(b"RIFF\x04\0\0\0WAVE");
        assert!(e.message.contains("form type is WAVE, not AGNX"), "{e}");
        assert_eq!(at(&e), 8);
        let e = read_err(b"RIFF\x04\0\0\0\x01\x02\x03\x04");
        assert!(e.message.contains("0x01020304"), "{e}");

        // FS2004: four int32 weights first.
        let mut fs9 = Vec::new();
        [10, 10, 5, 0, 3, 77]
            .iter()
            .for_each(|&x| put_i32(&mut fs9, x));
        let e = read_err(&fs9);
        assert!(e.message.contains("FS2004"), "{e}");
        assert!(e.message.contains("only FSX RIFF (AGNX)"), "{e}");

        // Bytes after the RIFF chunk are a warning.
        let mut extra = write(&model());
        let end = extra.len();
        extra.extend_from_slice(&[0xde, 0xad, 0xbe]);
        let (f, w) = read_ok(&extra);
        assert_eq!(strip_offsets(f), model());
        assert_eq!(w.len(), 1);
        assert_eq!(at(&w[0]), end as u64);
        assert!(w[0].message.contains("3 bytes after the RIFF chunk"));

        // An AGNX file with no sections reads, with a warning.
        let (f, w) = read_ok(b"RIFF\x04\0\0\0AGNX");
        assert_eq!(f, AgnFile::default());
        assert_eq!(w.len(), 1);
        assert!(w[0].message.contains("no sections"));
    }

    #[test]
    fn unknown_and_misplaced_chunks_are_skipped_with_warnings() {
        let bytes = riff(|b| {
            chunk(b, b"VERS", |b| put_i32(b, FSX_VERSION));
            chunk(b, b"ZZZZ", |b| b.extend_from_slice(&[9; 13]));
            chunk(b, b"GBLR", |b| b.extend_from_slice(&[0; 16]));
            chunk(b, b"GBLD", |b| {
                chunk(b, b"PRDE", |b| b.extend_from_slice(&[0; 3]));
                chunk(b, b"GBLR", |b| {
                    b.extend_from_slice(&g(2).0);
                    (0..6).for_each(|i| put_f32(b, i as f32 * 0.01));
                });
            });
            chunk(b, b"GBDD", |b| {
                [10, 10, 10, 10].iter().for_each(|&x| put_i32(b, x))
            });
        });
        let (f, w) = read_ok(&bytes);
        assert_eq!(f.version.map(|v| v.value), Some(FSX_VERSION));
        assert_eq!(f.generic_buildings.len(), 1);
        assert_eq!(f.generic_buildings[0].roof, g(2));
        assert_eq!(f.building_weights.map(|w| w.weights), Some([10; 4]));
        assert_eq!(w.len(), 3, "{w:?}");
        // RIFF(0) AGNX(8) VERS(12..24) ZZZZ(24..45) GBLR(45..69) GBLD(69) PRDE(77)
        assert_eq!(at(&w[0]), 24);
        assert!(
            w[0].message.contains("unknown chunk ZZZZ at offset 24"),
            "{}",
            w[0]
        );
        assert_eq!(w[0].severity, Severity::Warning);
        assert_eq!(at(&w[1]), 45);
        assert!(
            w[1].message.contains("misplaced chunk GBLR at offset 45"),
            "{}",
            w[1]
        );
        assert_eq!(at(&w[2]), 77);
        assert!(w[2].message.contains("PRDE at offset 77") && w[2].message.contains("GBLD"));
    }

    #[test]
    fn odd_values_are_warnings() {
        let bytes = riff(|b| {
            chunk(b, b"VERS", |b| put_i32(b, 7));
            chunk(b, b"VERS", |b| put_i32(b, FSX_VERSION));
            chunk(b, b"GBDD", |b| {
                [10, 25, -1, 0, 99].iter().for_each(|&x| put_i32(b, x))
            });
            chunk(b, b"GBTE", |b| b.extend_from_slice(b"\0\0\0\0"));
        });
        let (f, w) = read_ok(&bytes);
        assert_eq!(f.version.map(|v| v.value), Some(7));
        let weights = f.building_weights.unwrap();
        assert_eq!(weights.weights, [10, 25, -1, 0]);
        assert_eq!(weights.fractions(), [0.5, 1.0, 0.0, 0.0]);
        let msgs: Vec<&str> = w.iter().map(|d| d.message.as_str()).collect();
        assert_eq!(msgs.len(), 6, "{msgs:?}");
        assert!(msgs[0].contains("VERS is 7"));
        assert!(msgs[1].contains("second VERS"));
        assert!(msgs[2].contains("weight of 3-5 floor buildings is 25"));
        assert!(msgs[3].contains("weight of 6-8 floor buildings is -1"));
        assert!(msgs[4].contains("4 extra bytes"));
        assert!(msgs[5].contains("names no texture"));
    }

    #[test]
    fn texture_names_are_nul_padded() {
        for (name, size) in [("abc", 4), ("abcd", 8), ("town_wall", 12)] {
            let m = AgnFile {
                building_texture: Some(TextureName {
                    offset: 0,
                    name: name.into(),
                }),
                ..AgnFile::default()
            };
            let bytes = write(&m);
            assert_eq!(read_u32(&bytes, 16), size, "{name}");
            let (f, _) = read_ok(&bytes);
            assert_eq!(f.building_texture.unwrap().name, name);
        }
    }

    /// A small deterministic generator (xorshift64*) for the mutation test.
    struct Rng(u64);

    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 >> 12;
            self.0 ^= self.0 << 25;
            self.0 ^= self.0 >> 27;
            self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
        }

        fn below(&mut self, n: usize) -> usize {
            (self.next() % n as u64) as usize
        }
    }

    #[test]
    fn prefixes_and_mutations_never_panic() {
        let bytes = write(&model());
        // Every strict prefix is an error (the RIFF size runs past its end), never a panic.
        for n in 0..bytes.len() {
            assert!(read(&bytes[..n]).0.is_err(), "prefix {n} read");
        }
        assert!(read(&bytes).0.is_ok());

        let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
        let (mut ok, mut err) = (0, 0);
        for _ in 0..4000 {
            let mut b = bytes.clone();
            for _ in 0..1 + rng.below(4) {
                let i = rng.below(b.len());
                match rng.below(5) {
                    0 => b[i] = rng.next() as u8,
                    1 => b[i] ^= 1 << rng.below(8),
                    2 => {
                        // A wild size or count at a 4-aligned spot.
                        let i = i & !3;
                        let v =
                            [0u32, 1, 7, 0x7fff_ffff, 0x8000_0000, u32::MAX, 1 << 20][rng.below(7)];
                        if i + 4 <= b.len() {
                            b[i..i + 4].copy_from_slice(&v.to_le_bytes());
                        }
                    }
                    3 => b.truncate(i),
                    _ => {
                        let end = (i + 1 + rng.below(16)).min(b.len());
                        b.drain(i..end);
                    }
                }
                if b.is_empty() {
                    break;
                }
            }
            match read(&b).0 {
                Ok(_) => ok += 1,
                Err(e) => {
                    assert!(matches!(e.location, Location::Offset(o) if o <= b.len() as u64));
                    err += 1;
                }
            }
        }
        // Both outcomes occur, so the mutations reach past the header checks.
        assert!(ok > 100 && err > 100, "ok {ok}, err {err}");
    }

    // --- The committed sample -----------------------------------------------------------

    const SAMPLE: &str = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/sample_scenery/agn/000333311030032an.agn"
    );

    /// Two convex rings overlap unless some edge's normal separates them (meters, with a
    /// 0.5 m tolerance so that touching is not overlapping).
    fn overlap(a: &[[f64; 2]], b: &[[f64; 2]]) -> bool {
        for ring in [a, b] {
            for i in 0..ring.len() {
                let (p, q) = (ring[i], ring[(i + 1) % ring.len()]);
                let n = [q[1] - p[1], p[0] - q[0]];
                let proj = |r: &[[f64; 2]]| {
                    let d: Vec<f64> = r.iter().map(|v| v[0] * n[0] + v[1] * n[1]).collect();
                    let lo = d.iter().cloned().fold(f64::INFINITY, f64::min);
                    let hi = d.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
                    (lo, hi)
                };
                let len = n[0].hypot(n[1]);
                let ((alo, ahi), (blo, bhi)) = (proj(a), proj(b));
                if ahi <= blo + 0.5 * len || bhi <= alo + 0.5 * len {
                    return false;
                }
            }
        }
        true
    }

    #[test]
    fn committed_sample_has_the_town_it_was_made_with() {
        let bytes = std::fs::read(SAMPLE).expect("sample_scenery/agn sample is committed");
        let (f, w) = read_ok(&bytes);
        assert!(w.is_empty(), "{w:?}");

        // The square: Leavenworth, Washington.
        let sq = Lod13::from_file_name(SAMPLE).unwrap();
        assert_eq!(sq, Lod13 { u: 4050, v: 3859 });
        assert_eq!(Lod13::from_lat_lon(47.5962, -120.6615), Ok(sq));

        assert_eq!(f.version.map(|v| v.value), Some(FSX_VERSION));
        assert_eq!(f.building_weights.map(|w| w.weights), Some([16, 4, 0, 0]));
        let texture = &f.building_texture.as_ref().unwrap().name;
        assert_eq!(texture, "agview_town_facade");
        assert_eq!(&f.row_house_texture.as_ref().unwrap().name, texture);
        let png = Path::new(SAMPLE).with_file_name(format!("{texture}.png"));
        assert_eq!(image::image_dimensions(&png).unwrap(), (256, 256));

        assert_eq!(f.generic_buildings.len(), 2);
        assert!(f.generic_buildings[0].roof.is_zero());
        assert_eq!(
            f.generic_buildings[1].roof.to_string(),
            "4b3a2918-0706-4f5e-8d7c-6b5a49382716"
        );
        let counts: Vec<usize> = f
            .generic_buildings
            .iter()
            .map(|g| g.buildings.len())
            .collect();
        assert_eq!(counts, [37, 14]);
        assert_eq!(f.row_houses.len(), 6);
        let forms: Vec<bool> = f
            .library_objects
            .iter()
            .map(|o| o.to_third.is_some())
            .collect();
        assert_eq!(forms, [false, true, false]);
        let rings: Vec<usize> = f
            .vegetation_polygons
            .iter()
            .flat_map(|v| v.polygons.iter().map(|p| p.vertices.len()))
            .collect();
        assert_eq!(rings, [6, 6, 7]);
        assert_eq!(f.vegetation_rects.len(), 1);
        assert_eq!(f.vegetation_rects[0].rects.len(), 1);
        assert_eq!(f.polygon_buildings.len(), 1);
        let shops = &f.polygon_buildings[0].buildings[0];
        assert_eq!(shops.vertices.len(), 3);
        assert!((shops.width as f64 * sq.meters_per_unit()[1] - 14.0).abs() < 0.01);
        assert!(f.fs2004_vegetation.is_none() && f.fs2004_vegetation_rects.is_empty());

        // On the ground, every building is a square-cornered rectangle inside the square
        // (generic buildings 10-40 m a side, row houses 9 by 12 m), and none overlap.
        let mut rings = Vec::new();
        let generic = f.generic_buildings.iter().flat_map(|g| &g.buildings);
        let sized = generic
            .map(|b| (b, 10.0, 40.0))
            .chain(f.row_houses.iter().map(|b| (b, 9.0, 12.0)));
        for (b, min, max) in sized {
            let c: Vec<[f64; 2]> = b
                .corners()
                .iter()
                .map(|&p| sq.centred_to_local(p))
                .collect();
            let side = |i: usize, j: usize| [c[j][0] - c[i][0], c[j][1] - c[i][1]];
            let (a, d) = (side(0, 1), side(1, 2));
            let (la, ld) = (a[0].hypot(a[1]), d[0].hypot(d[1]));
            let fits = |l: f64| l > min - 0.01 && l < max + 0.01;
            assert!(fits(la) && fits(ld), "{la} x {ld}");
            let cos = (a[0] * d[0] + a[1] * d[1]) / (la * ld);
            assert!(cos.abs() < 1e-4, "corner is not square: cos {cos}");
            // Counter-clockwise on the ground (x east, y north).
            assert!(a[0] * d[1] - a[1] * d[0] > 0.0);
            for p in b.corners() {
                assert!(p[0].abs() < 0.5 && p[1].abs() < 0.5, "{p:?}");
            }
            rings.push(c);
        }
        for i in 0..rings.len() {
            for j in i + 1..rings.len() {
                assert!(
                    !overlap(&rings[i], &rings[j]),
                    "buildings {i} and {j} overlap"
                );
            }
        }
        // Vegetation polygons are closed and lie inside the square (top-left frame).
        for p in f.vegetation_polygons.iter().flat_map(|v| &v.polygons) {
            assert_eq!(p.vertices.first(), p.vertices.last());
            assert!(p
                .vertices
                .iter()
                .all(|v| (0.0..=1.0).contains(&v[0]) && (0.0..=1.0).contains(&v[1])));
        }
        // The church's box (three points) is square-cornered on the ground, 18 by 32 m.
        let church = f.library_objects[1];
        let a = sq.centred_to_local(church.to_second);
        let d = sq.centred_to_local(church.to_third.unwrap());
        assert!((a[0].hypot(a[1]) - 18.0).abs() < 0.01 && (d[0].hypot(d[1]) - 32.0).abs() < 0.01);
        assert!((a[0] * d[0] + a[1] * d[1]).abs() < 0.01);
    }
}
