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
//! - A bad chunk costs that chunk only: a malformed chunk (a size that is not a whole number
//!   of records, a count that would run past its chunk, a coordinate that is not finite, an
//!   `A2GE` whose record size cannot be worked out) is skipped with an error at its offset,
//!   and reading goes on with the next chunk. A chunk that runs past its parent ends that
//!   parent's walk (where the next chunk would start is unknown). Bytes left over after a
//!   fixed-size section are a warning.
//! - RIFF padding: an odd-sized chunk is followed by one zero pad byte, which is skipped;
//!   files without the pad byte read too (a tag never starts with a zero byte).
//! - A `RIFF` size larger than the file is a warning; the chunks that are there are read.
//! - An unknown chunk, or a record chunk outside its container, is skipped by its size with a
//!   warning. A second `VERS`, `GBDD`, `GBTE`, `RHTE` or `VGRD` is ignored with a warning (the
//!   first wins); `VGRO` and `ROWH` chunks add up.
//! - `A2GE` holds one GUID and records until the chunk ends ("for each library object"):
//!   16 bytes (two points) or 24 (three); see `library.rs` for the rule when both fit.
//! - `PRDE` and `PBDE` hold one or more polygons / buildings after the GUID, read until the
//!   chunk ends (the spec says "for each"; files written by FlightSimData hold one). Empty
//!   records (no vertices) are left out with a warning, so that memory follows what is drawn.
//! - Each kind of diagnostic is said at most 20 times, then counted
//!   ([`crate::diag::WarningCap`]).
//! - Coordinates must be finite; values outside the frame's range are allowed (buildings may
//!   straddle the square's edge; the layout warns).
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

/// One `A2GE` record: a library object. The points describe its bounding box (centred
/// frame); the object sits at the box's centre. An `A2GE` chunk holds one GUID and any
/// number of records, all of two points or all of three (see `library.rs` for how the
/// record size is chosen); each record becomes one `LibraryObject` carrying the GUID.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct LibraryObject {
    pub offset: u64,
    pub guid: Guid,
    pub start: Point,
    pub to_second: Point,
    /// The optional third point (24-byte records).
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

/// Reads an FSX `.agn` file.
///
/// Every chunk carries its own size, so a bad chunk costs that chunk only: a malformed
/// chunk (a size that is not a whole number of records, a count past its end, a vertex that
/// is not a finite number, an unknown record size) is skipped with an **error** in
/// `warnings`, at its offset, and the rest of the file is read. Oddities that can be read
/// around are warnings. Each kind of diagnostic is said at most
/// [`crate::diag::SHOWN_PER_KIND`] times, then counted. `Err` only when the file is not an
/// FSX RIFF `.agn` at all (no `RIFF`/`AGNX` header). A caller that must know whether
/// something was skipped looks for an error in `warnings`.
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
    if bytes.len() < 12 {
        return Err(r.error(
            0,
            format!(
                "truncated RIFF header: the file has {} bytes, the header needs 12",
                bytes.len()
            ),
        ));
    }
    let size = read_u32(bytes, 4);
    if size < 4 {
        return Err(r.error(
            4,
            format!("RIFF chunk of size {size}: the AGNX form type needs 4 bytes"),
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
    let mut sink = Sink::new(path, warnings);
    let mut riff_end = 8usize.saturating_add(size);
    if riff_end > bytes.len() {
        sink.warn("RIFF size past the end of the file", 4, || {
            format!(
                "RIFF chunk at offset 0 has size {size}, which runs past the end of the file by {} bytes; the chunks that are there are read",
                riff_end - bytes.len()
            )
        });
        riff_end = bytes.len();
    } else if riff_end + usize::from(size % 2 == 1) < bytes.len() {
        sink.warn("bytes after the RIFF chunk", riff_end, || {
            format!(
                "{} bytes after the RIFF chunk ignored",
                bytes.len() - riff_end
            )
        });
    }
    let riff = Chunk {
        tag: *b"RIFF",
        offset: 0,
        start: 8,
        end: riff_end,
    };

    let mut file = AgnFile::default();
    let mut any = false;
    for c in r.children(&riff, 12) {
        any = true;
        match c {
            Ok(c) => read_section(&r, c, &riff, &mut file, &mut sink),
            Err(e) => sink.skip_chunk(e),
        }
    }
    if !any {
        sink.warn("no sections", 0, || {
            "the RIFF chunk holds no sections".into()
        });
    }
    sink.finish();
    Ok(file)
}

/// Reads one section of the `RIFF` chunk into `file`; a malformed one is reported and
/// leaves `file` as it was.
fn read_section(r: &Reader, c: Chunk, riff: &Chunk, file: &mut AgnFile, sink: &mut Sink) {
    let result = match &c.tag {
        b"VERS" => read_version(r, c, sink).map(|v| set_once(&mut file.version, v, c, sink)),
        b"GBDD" => {
            read_weights(r, c, sink).map(|w| set_once(&mut file.building_weights, w, c, sink))
        }
        b"GBTE" => {
            let t = read_texture(r, c, sink);
            set_once(&mut file.building_texture, t, c, sink);
            Ok(())
        }
        b"RHTE" => {
            let t = read_texture(r, c, sink);
            set_once(&mut file.row_house_texture, t, c, sink);
            Ok(())
        }
        b"VGRD" => read_fs2004_vegetation(r, c, sink)
            .map(|v| set_once(&mut file.fs2004_vegetation, v, c, sink)),
        b"VGRO" => read_vgro(r, c).map(|rects| file.fs2004_vegetation_rects.extend(rects)),
        b"ROWH" => read_rowh(r, c).map(|rows| file.row_houses.extend(rows)),
        b"GBLD" | b"PREG" | b"VGRG" | b"AGN2" | b"PBLD" => {
            read_container(r, c, file, sink);
            Ok(())
        }
        _ => {
            r.unknown(c, riff, sink);
            Ok(())
        }
    };
    if let Err(e) = result {
        sink.skip_chunk(e);
    }
}

/// Reads the record chunks of a container (`GBLD` → `GBLR`, `PREG` → `PRDE`, `VGRG` →
/// `VGRE`, `AGN2` → `A2GE`, `PBLD` → `PBDE`), each on its own.
fn read_container(r: &Reader, c: Chunk, file: &mut AgnFile, sink: &mut Sink) {
    let record: &[u8; 4] = match &c.tag {
        b"GBLD" => b"GBLR",
        b"PREG" => b"PRDE",
        b"VGRG" => b"VGRE",
        b"AGN2" => b"A2GE",
        _ => b"PBDE",
    };
    for child in r.children(&c, c.start) {
        let child = match child {
            Ok(ch) => ch,
            Err(e) => {
                sink.skip_chunk(e);
                continue;
            }
        };
        if &child.tag != record {
            r.unknown(child, &c, sink);
            continue;
        }
        let result = match record {
            b"GBLR" => read_gblr(r, child, sink).map(|g| {
                if !g.buildings.is_empty() {
                    file.generic_buildings.push(g)
                }
            }),
            b"PRDE" => read_prde(r, child, sink).map(|v| {
                if !v.polygons.is_empty() {
                    file.vegetation_polygons.push(v)
                }
            }),
            b"VGRE" => read_vgre(r, child, sink).map(|v| {
                if !v.rects.is_empty() {
                    file.vegetation_rects.push(v)
                }
            }),
            b"A2GE" => read_a2ge(r, child, sink).map(|v| {
                // The first A2GE's records are moved, not copied (a chunk may hold millions).
                if file.library_objects.is_empty() {
                    file.library_objects = v;
                } else {
                    file.library_objects.extend(v);
                }
            }),
            _ => read_pbde(r, child, sink).map(|p| {
                if !p.buildings.is_empty() {
                    file.polygon_buildings.push(p)
                }
            }),
        };
        if let Err(e) = result {
            sink.skip_chunk(e);
        }
    }
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

mod buildings;
mod library;
mod lod13;
mod read;
mod vegetation;
mod write;

use buildings::{read_gblr, read_pbde, read_rowh, read_texture, read_version, read_weights};
use library::read_a2ge;
pub use lod13::*;
use read::{read_u32, set_once, tag_name, Chunk, Reader, Sink};
use vegetation::{read_fs2004_vegetation, read_prde, read_vgre, read_vgro};
pub use write::write;

#[cfg(test)]
mod tests;
