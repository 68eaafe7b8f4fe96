//! GeoJSON (RFC 7946) polygons and points to lay autogen on, for users who draw their
//! footprints in a GIS instead of a DSF.
//!
//! Accepted: a `FeatureCollection`, a single `Feature`, or a bare geometry. Geometries
//! `Polygon`, `MultiPolygon` (one [`GeoPolygon`] per polygon), `Point` and `MultiPoint`
//! (one [`GeoPoint`] each), and `GeometryCollection` (its members, recursively). Other
//! geometries (`LineString`, `MultiLineString`) are skipped with a warning naming their line.
//! Feature properties read: `param` (the DSF polygon parameter, a whole number 0..=65535),
//! `height` (meters, at least 0), `heading` (degrees clockwise from north), `name` (a
//! string; the feature's `id` stands in when there is none) and `spawn` (AGS: which edges
//! spawn tiles, one array of booleans per ring; a ring of n positions after the closing one
//! is dropped has n flags, flag i for the edge from position i to i + 1, the last closing
//! the ring; a count that does not match is an error pointing at the array).
//!
//! JSON is read by a small strict parser (RFC 8259, no comments, no trailing commas, no
//! `NaN`/`Infinity`, nesting at most [`MAX_DEPTH`] deep) that keeps the line and column of
//! every value, so every error reads `path:line:col`. Columns count characters, as in
//! [`crate::format::text`].
//!
//! Decisions:
//! - Duplicate member names: the last one wins, as in serde_json; when a member this reader
//!   uses is duplicated, a warning points at the one kept.
//! - Positions are [longitude, latitude] in degrees; longitude outside -180..=180 or latitude
//!   outside -90..=90 is an error (it usually means projected coordinates). A third value
//!   (elevation) is ignored.
//! - A ring needs at least 4 positions with the last equal to the first. A ring that is not
//!   closed gets a warning and is closed. Rings are then stored open, without the repeated
//!   last position, like DSF windings (an AGB footprint is 4 points either way).
//! - Ring orientation is kept as written (RFC 7946 asks for a counter-clockwise outer ring and
//!   clockwise holes, like the AGS spec, but tells readers not to reject the other way).
//! - A file with no polygon and no point at all is an error.

use std::path::Path;

use serde::Serialize;

use crate::diag::Diagnostic;
use crate::lines::LineCounter;

/// How deep arrays and objects may nest. GeoJSON needs 6 levels for a `MultiPolygon` inside
/// a `FeatureCollection`; the limit keeps a hostile file from overflowing the stack.
pub const MAX_DEPTH: usize = 128;

/// A polygon to lay an AGB or AGS on: a GeoJSON `Polygon`, or one polygon of a
/// `MultiPolygon`, with its feature's properties.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct GeoPolygon {
    /// (longitude, latitude) rings: the outer one first, then holes. Stored open: the closing
    /// position GeoJSON repeats is dropped.
    pub rings: Vec<Vec<[f64; 2]>>,
    /// 1-based line where each ring's array starts.
    pub ring_lines: Vec<u32>,
    /// `param`: the DSF polygon parameter, `round(height_m / 4) << 8 | low`.
    pub param: Option<u32>,
    /// `height`: building height in meters.
    pub height: Option<f64>,
    /// `heading`: degrees clockwise from north.
    pub heading: Option<f64>,
    /// `name`, or the feature's `id`.
    pub name: Option<String>,
    /// `spawn` (AGS): per ring, whether each edge spawns tiles (edge i from position i to
    /// i + 1, the last closing the ring).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub spawn: Option<Vec<Vec<bool>>>,
    /// 1-based line of the geometry (the `Polygon` object, or the polygon's array inside a
    /// `MultiPolygon`).
    pub line: u32,
}

/// A point to place an AGP on: a GeoJSON `Point`, or one point of a `MultiPoint`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct GeoPoint {
    pub lon: f64,
    pub lat: f64,
    /// `heading`: degrees clockwise from north.
    pub heading: Option<f64>,
    /// `param`: the DSF parameter, as for polygons.
    pub param: Option<u32>,
    /// `height`: meters.
    pub height: Option<f64>,
    /// `name`, or the feature's `id`.
    pub name: Option<String>,
    /// 1-based line of the position.
    pub line: u32,
}

/// The polygons and points of a GeoJSON file, in file order.
#[derive(Debug, Clone, PartialEq, Serialize, Default)]
pub struct GeoJson {
    pub polygons: Vec<GeoPolygon>,
    pub points: Vec<GeoPoint>,
}

/// Reads a GeoJSON file.
pub fn parse(
    path: &Path,
    src: &[u8],
    warnings: &mut Vec<Diagnostic>,
) -> Result<GeoJson, Diagnostic> {
    let root = parse_json(path, src)?;
    let mut reader = Reader {
        path,
        warnings,
        out: GeoJson::default(),
    };
    reader.root(&root)?;
    let out = reader.out;
    if out.polygons.is_empty() && out.points.is_empty() {
        return Err(Diagnostic::error_at(
            path,
            root.line,
            root.col,
            "no Polygon, MultiPolygon or Point in this file: nothing to lay autogen on",
        ));
    }
    Ok(out)
}

// ---------------------------------------------------------------------------------------
// JSON with positions

/// A JSON value and the line and column where it starts.
#[derive(Debug)]
struct JValue {
    line: u32,
    col: u32,
    kind: JKind,
}

#[derive(Debug)]
enum JKind {
    Null,
    Bool(bool),
    Number(f64),
    String(String),
    Array(Vec<JValue>),
    Object(Vec<Member>),
}

/// An object member; the value carries its own position.
#[derive(Debug)]
struct Member {
    key: String,
    value: JValue,
}

impl JKind {
    /// What the value is, for messages ("found a string").
    fn describe(&self) -> &'static str {
        match self {
            JKind::Null => "null",
            JKind::Bool(_) => "a boolean",
            JKind::Number(_) => "a number",
            JKind::String(_) => "a string",
            JKind::Array(_) => "an array",
            JKind::Object(_) => "an object",
        }
    }
}

/// Parses a whole JSON document: one value, surrounded only by whitespace.
fn parse_json(path: &Path, src: &[u8]) -> Result<JValue, Diagnostic> {
    // A UTF-8 byte-order mark is tolerated at the very start.
    let body = src.strip_prefix(&[0xEF, 0xBB, 0xBF][..]).unwrap_or(src);
    let text = match std::str::from_utf8(body) {
        Ok(t) => t,
        Err(e) => {
            let mut p = JsonParser::new(path, "");
            p.at.advance(body.get(..e.valid_up_to()).unwrap_or_default());
            let bad = body.get(e.valid_up_to()).copied().unwrap_or(0);
            return Err(p.error_here(format!(
                "invalid UTF-8 byte 0x{bad:02X}; JSON must be UTF-8"
            )));
        }
    };
    let mut p = JsonParser::new(path, text);
    p.skip_ws()?;
    if p.peek().is_none() {
        return Err(p.error_here("empty file: expected a GeoJSON object"));
    }
    let v = p.value(0)?;
    p.skip_ws()?;
    if p.peek().is_some() {
        return Err(p.error_here(format!(
            "unexpected {} after the end of the JSON value",
            p.found()
        )));
    }
    Ok(v)
}

struct JsonParser<'a> {
    path: &'a Path,
    src: &'a [u8],
    pos: usize,
    /// The line and column of `pos`.
    at: LineCounter,
}

impl<'a> JsonParser<'a> {
    fn new(path: &'a Path, text: &'a str) -> Self {
        JsonParser {
            path,
            src: text.as_bytes(),
            pos: 0,
            at: LineCounter::new(),
        }
    }

    fn peek(&self) -> Option<u8> {
        self.src.get(self.pos).copied()
    }

    /// Moves one byte on, keeping the line and the (character) column.
    fn bump(&mut self) {
        if let Some(&b) = self.src.get(self.pos) {
            self.pos += 1;
            self.at.step(b);
        }
    }

    /// The 1-based line and column of the current position.
    fn here(&self) -> (u32, u32) {
        self.at.position()
    }

    /// The character at the current position, for messages: "`x`" or "character U+0001".
    fn found(&self) -> String {
        let rest = self.src.get(self.pos..).unwrap_or_default();
        let head = rest.get(..rest.len().min(4)).unwrap_or_default();
        match String::from_utf8_lossy(head).chars().next() {
            None => "end of file".to_string(),
            Some(c) if c.is_control() => format!("character U+{:04X}", u32::from(c)),
            Some(c) => format!("`{c}`"),
        }
    }

    fn error_here(&self, message: impl Into<String>) -> Diagnostic {
        let (line, col) = self.here();
        Diagnostic::error_at(self.path, line, col, message)
    }

    fn unexpected_end(&self, inside: &str, line: u32, col: u32) -> Diagnostic {
        self.error_here(format!(
            "unexpected end of file inside the {inside} begun at {line}:{col}"
        ))
    }

    fn skip_ws(&mut self) -> Result<(), Diagnostic> {
        while let Some(b) = self.peek() {
            match b {
                b' ' | b'\t' | b'\n' | b'\r' => self.bump(),
                b'/' => return Err(self.error_here("JSON has no comments")),
                _ => break,
            }
        }
        Ok(())
    }

    fn value(&mut self, depth: usize) -> Result<JValue, Diagnostic> {
        let (line, col) = self.here();
        let at = |kind| JValue { line, col, kind };
        let Some(b) = self.peek() else {
            return Err(self.error_here("unexpected end of file: expected a value"));
        };
        match b {
            b'{' | b'[' if depth >= MAX_DEPTH => Err(self.error_here(format!(
                "arrays and objects nest more than {MAX_DEPTH} deep"
            ))),
            b'{' => self.object(depth).map(at),
            b'[' => self.array(depth).map(at),
            b'"' => self.string().map(|s| at(JKind::String(s))),
            b'-' | b'0'..=b'9' => self.number().map(|n| at(JKind::Number(n))),
            b't' => self.literal("true").map(|_| at(JKind::Bool(true))),
            b'f' => self.literal("false").map(|_| at(JKind::Bool(false))),
            b'n' => self.literal("null").map(|_| at(JKind::Null)),
            b'N' | b'I' => {
                Err(self.error_here("`NaN` and `Infinity` are not JSON: numbers must be finite"))
            }
            b'\'' => Err(self.error_here("JSON strings use double quotes")),
            _ => Err(self.error_here(format!("unexpected {}: expected a value", self.found()))),
        }
    }

    fn literal(&mut self, word: &str) -> Result<(), Diagnostic> {
        let end = self.pos.saturating_add(word.len());
        let ok = self.src.get(self.pos..end) == Some(word.as_bytes())
            && !self
                .src
                .get(end)
                .is_some_and(|b| b.is_ascii_alphanumeric() || *b == b'_');
        if !ok {
            return Err(self.error_here(format!(
                "unexpected word: expected `{word}` (JSON literals are `true`, `false` and `null`)"
            )));
        }
        for _ in 0..word.len() {
            self.bump();
        }
        Ok(())
    }

    fn object(&mut self, depth: usize) -> Result<JKind, Diagnostic> {
        let (line, col) = self.here();
        self.bump(); // {
        let mut members = Vec::new();
        self.skip_ws()?;
        if self.peek() == Some(b'}') {
            self.bump();
            return Ok(JKind::Object(members));
        }
        loop {
            self.skip_ws()?;
            match self.peek() {
                Some(b'"') => {}
                None => return Err(self.unexpected_end("object", line, col)),
                Some(b'}') => {
                    return Err(self.error_here(
                        "expected a member name after `,` (JSON allows no trailing comma)",
                    ))
                }
                Some(_) => {
                    return Err(self.error_here(format!(
                        "expected a member name in double quotes, found {}",
                        self.found()
                    )))
                }
            }
            let key = self.string()?;
            self.skip_ws()?;
            match self.peek() {
                Some(b':') => self.bump(),
                None => return Err(self.unexpected_end("object", line, col)),
                Some(_) => {
                    return Err(self.error_here(format!(
                        "expected `:` after the member name \"{key}\", found {}",
                        self.found()
                    )))
                }
            }
            self.skip_ws()?;
            let value = self.value(depth + 1)?;
            members.push(Member { key, value });
            self.skip_ws()?;
            match self.peek() {
                Some(b',') => self.bump(),
                Some(b'}') => {
                    self.bump();
                    return Ok(JKind::Object(members));
                }
                None => return Err(self.unexpected_end("object", line, col)),
                Some(_) => {
                    return Err(self.error_here(format!(
                        "expected `,` or `}}` after an object member, found {}",
                        self.found()
                    )))
                }
            }
        }
    }

    fn array(&mut self, depth: usize) -> Result<JKind, Diagnostic> {
        let (line, col) = self.here();
        self.bump(); // [
        let mut items = Vec::new();
        self.skip_ws()?;
        if self.peek() == Some(b']') {
            self.bump();
            return Ok(JKind::Array(items));
        }
        loop {
            self.skip_ws()?;
            match self.peek() {
                None => return Err(self.unexpected_end("array", line, col)),
                Some(b']') => {
                    return Err(self
                        .error_here("expected a value after `,` (JSON allows no trailing comma)"))
                }
                Some(_) => {}
            }
            items.push(self.value(depth + 1)?);
            self.skip_ws()?;
            match self.peek() {
                Some(b',') => self.bump(),
                Some(b']') => {
                    self.bump();
                    return Ok(JKind::Array(items));
                }
                None => return Err(self.unexpected_end("array", line, col)),
                Some(_) => {
                    return Err(self.error_here(format!(
                        "expected `,` or `]` after an array element, found {}",
                        self.found()
                    )))
                }
            }
        }
    }

    fn string(&mut self) -> Result<String, Diagnostic> {
        let (line, col) = self.here();
        self.bump(); // "
        let mut out: Vec<u8> = Vec::new();
        loop {
            let Some(b) = self.peek() else {
                return Err(self.unexpected_end("string", line, col));
            };
            match b {
                b'"' => {
                    self.bump();
                    break;
                }
                b'\\' => {
                    let (eline, ecol) = self.here();
                    self.bump();
                    let Some(e) = self.peek() else {
                        return Err(self.unexpected_end("string", line, col));
                    };
                    let simple = match e {
                        b'"' => Some(b'"'),
                        b'\\' => Some(b'\\'),
                        b'/' => Some(b'/'),
                        b'b' => Some(0x08),
                        b'f' => Some(0x0C),
                        b'n' => Some(b'\n'),
                        b'r' => Some(b'\r'),
                        b't' => Some(b'\t'),
                        b'u' => None,
                        _ => {
                            return Err(Diagnostic::error_at(
                                self.path,
                                eline,
                                ecol,
                                format!(
                                    "invalid escape `\\{}` in a string",
                                    char::from(e).escape_default()
                                ),
                            ))
                        }
                    };
                    self.bump();
                    let c = match simple {
                        Some(c) => char::from(c),
                        None => self.unicode_escape(eline, ecol)?,
                    };
                    let mut buf = [0u8; 4];
                    out.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
                }
                b'\r' | b'\n' => {
                    return Err(self.error_here(
                        "line end in a string: a string must end on the line it starts (escape it as `\\n`)",
                    ))
                }
                0x00..=0x1F => {
                    return Err(self.error_here(format!(
                        "control character U+{b:04X} in a string: escape it"
                    )))
                }
                _ => {
                    out.push(b);
                    self.bump();
                }
            }
        }
        // The input is valid UTF-8 and escapes encode whole characters, so this cannot fail;
        // a lossy conversion keeps it panic-free regardless.
        Ok(String::from_utf8(out)
            .unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned()))
    }

    /// The 4 hex digits after `\u` (and a second `\uXXXX` for a surrogate pair).
    fn unicode_escape(&mut self, line: u32, col: u32) -> Result<char, Diagnostic> {
        let hi = self.hex4(line, col)?;
        let code = if (0xD800..0xDC00).contains(&hi) {
            let pair = self.src.get(self.pos..self.pos.saturating_add(2)) == Some(b"\\u");
            if !pair {
                return Err(Diagnostic::error_at(
                    self.path,
                    line,
                    col,
                    format!("unpaired surrogate `\\u{hi:04X}` in a string"),
                ));
            }
            self.bump();
            self.bump();
            let lo = self.hex4(line, col)?;
            if !(0xDC00..0xE000).contains(&lo) {
                return Err(Diagnostic::error_at(
                    self.path,
                    line,
                    col,
                    format!("unpaired surrogate `\\u{hi:04X}` in a string"),
                ));
            }
            0x10000 + ((hi - 0xD800) << 10) + (lo - 0xDC00)
        } else {
            hi
        };
        char::from_u32(code).ok_or_else(|| {
            Diagnostic::error_at(
                self.path,
                line,
                col,
                format!("unpaired surrogate `\\u{code:04X}` in a string"),
            )
        })
    }

    fn hex4(&mut self, line: u32, col: u32) -> Result<u32, Diagnostic> {
        let mut v = 0u32;
        for _ in 0..4 {
            let d = self.peek().and_then(|b| char::from(b).to_digit(16));
            let Some(d) = d else {
                return Err(Diagnostic::error_at(
                    self.path,
                    line,
                    col,
                    "`\\u` must be followed by 4 hex digits",
                ));
            };
            v = v * 16 + d;
            self.bump();
        }
        Ok(v)
    }

    fn digits(&mut self) -> usize {
        let mut n = 0;
        while self.peek().is_some_and(|b| b.is_ascii_digit()) {
            self.bump();
            n += 1;
        }
        n
    }

    fn number(&mut self) -> Result<f64, Diagnostic> {
        let (line, col) = self.here();
        let start = self.pos;
        if self.peek() == Some(b'-') {
            self.bump();
        }
        match self.peek() {
            Some(b'0') => {
                self.bump();
                if self.peek().is_some_and(|b| b.is_ascii_digit()) {
                    return Err(self.error_here("a number must not have leading zeros"));
                }
            }
            Some(b'1'..=b'9') => {
                self.digits();
            }
            Some(b'I') => {
                return Err(self.error_here("`-Infinity` is not JSON: numbers must be finite"))
            }
            _ => return Err(self.error_here("expected a digit after `-`")),
        }
        if self.peek() == Some(b'.') {
            self.bump();
            if self.digits() == 0 {
                return Err(self.error_here("expected a digit after the decimal point"));
            }
        }
        if matches!(self.peek(), Some(b'e' | b'E')) {
            self.bump();
            if matches!(self.peek(), Some(b'+' | b'-')) {
                self.bump();
            }
            if self.digits() == 0 {
                return Err(self.error_here("expected a digit in the exponent"));
            }
        }
        let text = std::str::from_utf8(self.src.get(start..self.pos).unwrap_or_default())
            .unwrap_or_default();
        match text.parse::<f64>() {
            Ok(v) if v.is_finite() => Ok(v),
            _ => Err(Diagnostic::error_at(
                self.path,
                line,
                col,
                format!("number `{text}` is out of range: numbers must be finite"),
            )),
        }
    }
}

// ---------------------------------------------------------------------------------------
// GeoJSON on top of the JSON values

/// The feature properties this reader uses.
#[derive(Debug, Clone, Default)]
struct Props {
    param: Option<u32>,
    height: Option<f64>,
    heading: Option<f64>,
    name: Option<String>,
    /// `spawn`, with the line and column of its array.
    spawn: Option<SpawnFlags>,
}

/// `spawn` flags (one list per ring) and the line and column of their array.
type SpawnFlags = (Vec<Vec<bool>>, u32, u32);

struct Reader<'a> {
    path: &'a Path,
    warnings: &'a mut Vec<Diagnostic>,
    out: GeoJson,
}

impl Reader<'_> {
    fn error(&self, v: &JValue, message: impl Into<String>) -> Diagnostic {
        Diagnostic::error_at(self.path, v.line, v.col, message)
    }

    fn warn(&mut self, v: &JValue, message: impl Into<String>) {
        self.warnings
            .push(Diagnostic::warning_at(self.path, v.line, v.col, message));
    }

    /// The members of an object value, or an error naming what was expected.
    fn members<'v>(&self, v: &'v JValue, what: &str) -> Result<&'v [Member], Diagnostic> {
        match &v.kind {
            JKind::Object(m) => Ok(m),
            k => Err(self.error(
                v,
                format!("expected {what} (a JSON object), found {}", k.describe()),
            )),
        }
    }

    /// The last member with this name (last wins); a warning when there are several.
    fn get<'v>(&mut self, members: &'v [Member], key: &str) -> Option<&'v JValue> {
        let mut found = members.iter().filter(|m| m.key == key);
        let first = found.next()?;
        match found.next_back() {
            Some(last) => {
                self.warn(
                    &last.value,
                    format!("duplicate member \"{key}\": the last one is used"),
                );
                Some(&last.value)
            }
            None => Some(&first.value),
        }
    }

    /// The `type` member, which must be a string.
    fn type_of<'v>(&mut self, v: &'v JValue, members: &'v [Member]) -> Result<&'v str, Diagnostic> {
        match self.get(members, "type") {
            Some(JValue {
                kind: JKind::String(s),
                ..
            }) => Ok(s),
            Some(t) => Err(self.error(
                t,
                format!("`type` must be a string, found {}", t.kind.describe()),
            )),
            None => Err(self.error(v, "GeoJSON object without a `type` member")),
        }
    }

    fn root(&mut self, v: &JValue) -> Result<(), Diagnostic> {
        let members = self.members(v, "a GeoJSON FeatureCollection, Feature or geometry")?;
        match self.type_of(v, members)? {
            "FeatureCollection" => {
                let Some(features) = self.get(members, "features") else {
                    return Err(self.error(v, "FeatureCollection without `features`"));
                };
                let JKind::Array(features) = &features.kind else {
                    return Err(self.error(
                        features,
                        format!(
                            "`features` must be an array, found {}",
                            features.kind.describe()
                        ),
                    ));
                };
                for f in features {
                    self.feature(f)?;
                }
                Ok(())
            }
            "Feature" => self.feature_body(v, members),
            ty => self.geometry_body(v, members, ty, &Props::default()),
        }
    }

    fn feature(&mut self, f: &JValue) -> Result<(), Diagnostic> {
        let members = self.members(f, "a Feature")?;
        let ty = self.type_of(f, members)?;
        if ty != "Feature" {
            return Err(self.error(f, format!("expected a Feature, found type `{ty}`")));
        }
        self.feature_body(f, members)
    }

    /// A Feature whose `type` has been checked.
    fn feature_body(&mut self, f: &JValue, members: &[Member]) -> Result<(), Diagnostic> {
        let mut props = match self.get(members, "properties") {
            None => Props::default(),
            Some(JValue {
                kind: JKind::Null, ..
            }) => Props::default(),
            Some(p) => self.props(p)?,
        };
        if props.name.is_none() {
            props.name = match self.get(members, "id").map(|v| &v.kind) {
                Some(JKind::String(s)) => Some(s.clone()),
                Some(JKind::Number(n)) => Some(n.to_string()),
                _ => None,
            };
        }
        match self.get(members, "geometry") {
            None => {
                self.warn(f, "Feature without `geometry` skipped");
                Ok(())
            }
            Some(JValue {
                kind: JKind::Null, ..
            }) => {
                self.warn(f, "Feature with a null geometry skipped");
                Ok(())
            }
            Some(g) => self.geometry(g, &props),
        }
    }

    fn props(&mut self, p: &JValue) -> Result<Props, Diagnostic> {
        let members = self.members(p, "`properties`")?;
        let mut props = Props::default();
        if let Some(v) = self.get(members, "param") {
            props.param = match v.kind {
                JKind::Null => None,
                JKind::Number(n) if n.fract() == 0.0 && (0.0..=65535.0).contains(&n) => {
                    Some(n as u32)
                }
                JKind::Number(n) => {
                    return Err(self.error(
                        v,
                        format!("`param` must be a whole number 0..=65535 (the DSF polygon parameter), found {n}"),
                    ))
                }
                ref k => {
                    return Err(self.error(
                        v,
                        format!("`param` must be a whole number 0..=65535 (the DSF polygon parameter), found {}", k.describe()),
                    ))
                }
            };
        }
        if let Some(v) = self.get(members, "height") {
            props.height = self.opt_number(v, "height", "meters")?;
            if let Some(h) = props.height {
                if h < 0.0 {
                    return Err(self.error(v, format!("`height` must not be negative, found {h}")));
                }
                if (h / 4.0).round() > 255.0 {
                    self.warn(
                        v,
                        format!("`height` {h} m is more than the DSF parameter holds (255 × 4 = 1020 m)"),
                    );
                }
            }
        }
        if let Some(v) = self.get(members, "heading") {
            props.heading = self.opt_number(v, "heading", "degrees")?;
        }
        if let Some(JValue {
            kind: JKind::String(s),
            ..
        }) = self.get(members, "name")
        {
            props.name = Some(s.clone());
        }
        if let Some(v) = self.get(members, "spawn") {
            props.spawn = self.spawn(v)?;
        }
        Ok(props)
    }

    /// `spawn`: null, or an array (one per ring) of arrays of booleans (`0` and `1` read as
    /// false and true).
    fn spawn(&self, v: &JValue) -> Result<Option<SpawnFlags>, Diagnostic> {
        if matches!(v.kind, JKind::Null) {
            return Ok(None);
        }
        let should = "an array with one array of booleans per ring (which edges spawn tiles)";
        let rings = self.array(v, "`spawn`", should)?;
        let mut out = Vec::with_capacity(rings.len());
        for r in rings {
            let flags = self.array(r, "each ring's `spawn`", "an array of booleans")?;
            let mut ring = Vec::with_capacity(flags.len());
            for f in flags {
                ring.push(match f.kind {
                    JKind::Bool(b) => b,
                    JKind::Number(n) if n == 0.0 || n == 1.0 => n == 1.0,
                    ref k => {
                        return Err(self.error(
                            f,
                            format!(
                                "a `spawn` flag must be true or false (or 0 or 1), found {}",
                                k.describe()
                            ),
                        ))
                    }
                });
            }
            out.push(ring);
        }
        Ok(Some((out, v.line, v.col)))
    }

    fn opt_number(&self, v: &JValue, key: &str, unit: &str) -> Result<Option<f64>, Diagnostic> {
        match v.kind {
            JKind::Null => Ok(None),
            JKind::Number(n) => Ok(Some(n)),
            ref k => Err(self.error(
                v,
                format!("`{key}` must be a number of {unit}, found {}", k.describe()),
            )),
        }
    }

    fn geometry(&mut self, g: &JValue, props: &Props) -> Result<(), Diagnostic> {
        let members = self.members(g, "a geometry")?;
        let ty = self.type_of(g, members)?;
        self.geometry_body(g, members, ty, props)
    }

    /// A geometry whose `type` has been read.
    fn geometry_body(
        &mut self,
        g: &JValue,
        members: &[Member],
        ty: &str,
        props: &Props,
    ) -> Result<(), Diagnostic> {
        match ty {
            "Polygon" | "MultiPolygon" | "Point" | "MultiPoint" => {
                let Some(c) = self.get(members, "coordinates") else {
                    return Err(self.error(g, format!("{ty} without `coordinates`")));
                };
                match ty {
                    "Polygon" => self.polygon(c, g.line, props, ty),
                    "MultiPolygon" => {
                        for p in
                            self.array(c, "MultiPolygon coordinates", "an array of polygons")?
                        {
                            self.polygon(p, p.line, props, "MultiPolygon")?;
                        }
                        Ok(())
                    }
                    "Point" => self.point(c, props),
                    _ => {
                        for p in self.array(c, "MultiPoint coordinates", "an array of positions")? {
                            self.point(p, props)?;
                        }
                        Ok(())
                    }
                }
            }
            "GeometryCollection" => {
                let Some(gs) = self.get(members, "geometries") else {
                    return Err(self.error(g, "GeometryCollection without `geometries`"));
                };
                for member in self.array(gs, "`geometries`", "an array of geometries")? {
                    self.geometry(member, props)?;
                }
                Ok(())
            }
            "LineString" | "MultiLineString" => {
                self.warn(
                    g,
                    format!(
                        "{ty} at line {} skipped: only Polygon, MultiPolygon and Point place autogen",
                        g.line
                    ),
                );
                Ok(())
            }
            "Feature" | "FeatureCollection" => {
                Err(self.error(g, format!("expected a geometry here, found a {ty}")))
            }
            _ => Err(self.error(g, format!("unknown GeoJSON type `{ty}`"))),
        }
    }

    fn array<'v>(
        &self,
        v: &'v JValue,
        what: &str,
        should: &str,
    ) -> Result<&'v [JValue], Diagnostic> {
        match &v.kind {
            JKind::Array(a) => Ok(a),
            k => Err(self.error(
                v,
                format!("{what} must be {should}, found {}", k.describe()),
            )),
        }
    }

    /// `coordinates` of one polygon: an array of linear rings.
    fn polygon(
        &mut self,
        c: &JValue,
        line: u32,
        props: &Props,
        ty: &str,
    ) -> Result<(), Diagnostic> {
        let rings = self.array(c, &format!("{ty} coordinates"), "an array of linear rings")?;
        if rings.is_empty() {
            self.warn(c, format!("{ty} with no ring skipped"));
            return Ok(());
        }
        let mut out = Vec::with_capacity(rings.len());
        let mut ring_lines = Vec::with_capacity(rings.len());
        for r in rings {
            out.push(self.ring(r)?);
            ring_lines.push(r.line);
        }
        if let Some((flags, l, c)) = &props.spawn {
            let err = |m: String| Diagnostic::error_at(self.path, *l, *c, m);
            if flags.len() != out.len() {
                return Err(err(format!(
                    "`spawn` has {} array(s) but the polygon at line {line} has {} ring(s): one array of flags per ring",
                    flags.len(),
                    out.len()
                )));
            }
            for (k, (f, r)) in flags.iter().zip(&out).enumerate() {
                if f.len() != r.len() {
                    return Err(err(format!(
                        "`spawn` ring {k} has {} flag(s) but the ring has {} edge(s) (its positions, less the closing one): one flag per edge",
                        f.len(),
                        r.len()
                    )));
                }
            }
        }
        self.out.polygons.push(GeoPolygon {
            rings: out,
            ring_lines,
            param: props.param,
            height: props.height,
            heading: props.heading,
            name: props.name.clone(),
            spawn: props.spawn.as_ref().map(|s| s.0.clone()),
            line,
        });
        Ok(())
    }

    /// A linear ring, returned open (without the closing position).
    fn ring(&mut self, r: &JValue) -> Result<Vec<[f64; 2]>, Diagnostic> {
        let positions = self.array(r, "a linear ring", "an array of positions")?;
        let mut ring = Vec::with_capacity(positions.len());
        for p in positions {
            ring.push(self.position(p)?);
        }
        let closed = ring.len() >= 2 && ring.first() == ring.last();
        let count = if closed { ring.len() } else { ring.len() + 1 };
        if count < 4 {
            return Err(self.error(
                r,
                format!(
                    "a linear ring needs at least 4 positions (3 corners and the first repeated \
                     at the end), found {}",
                    ring.len()
                ),
            ));
        }
        if closed {
            ring.pop();
        } else {
            self.warn(
                r,
                "linear ring not closed (its last position is not its first): closed it",
            );
        }
        Ok(ring)
    }

    fn point(&mut self, c: &JValue, props: &Props) -> Result<(), Diagnostic> {
        let [lon, lat] = self.position(c)?;
        self.out.points.push(GeoPoint {
            lon,
            lat,
            heading: props.heading,
            param: props.param,
            height: props.height,
            name: props.name.clone(),
            line: c.line,
        });
        Ok(())
    }

    /// A position: [longitude, latitude] in degrees, maybe followed by an elevation.
    fn position(&self, p: &JValue) -> Result<[f64; 2], Diagnostic> {
        let items = self.array(p, "a position", "an array [longitude, latitude]")?;
        if items.len() < 2 {
            return Err(self.error(
                p,
                format!(
                    "a position needs a longitude and a latitude, found {} number{}",
                    items.len(),
                    if items.len() == 1 { "" } else { "s" }
                ),
            ));
        }
        let mut out = [0.0; 2];
        for (i, (what, limit)) in [("longitude", 180.0), ("latitude", 90.0)]
            .into_iter()
            .enumerate()
        {
            let v = &items[i];
            let JKind::Number(n) = v.kind else {
                return Err(self.error(
                    v,
                    format!("{what} must be a number, found {}", v.kind.describe()),
                ));
            };
            if n.abs() > limit {
                return Err(self.error(
                    v,
                    format!(
                        "{what} {n} is outside -{limit}..={limit}: GeoJSON positions are \
                         [longitude, latitude] in degrees (WGS 84)"
                    ),
                ));
            }
            out[i] = n;
        }
        for extra in &items[2..] {
            if !matches!(extra.kind, JKind::Number(_)) {
                return Err(self.error(
                    extra,
                    format!(
                        "elevation must be a number, found {}",
                        extra.kind.describe()
                    ),
                ));
            }
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A FeatureCollection with a polygon with a hole, a two-polygon MultiPolygon, a point,
    /// a line that is skipped, and a feature with no geometry.
    const SAMPLE: &str = r#"{
  "type": "FeatureCollection",
  "features": [
    {
      "type": "Feature",
      "properties": { "name": "block \u00e9 1", "param": 2561, "height": 40 },
      "geometry": {
        "type": "Polygon",
        "coordinates": [
          [[12.6, 47.6], [12.601, 47.6], [12.601, 47.6007], [12.6, 47.6007], [12.6, 47.6]],
          [[12.6002, 47.6002], [12.6002, 47.6004], [12.6004, 47.6004], [12.6002, 47.6002]]
        ]
      }
    },
    {
      "type": "Feature", "id": 7,
      "properties": { "param": 3073 },
      "geometry": {
        "type": "MultiPolygon",
        "coordinates": [
          [[[12.7, 47.7, 500.0], [12.702, 47.7], [12.702, 47.7015], [12.7, 47.7]]],
          [[[12.8, 47.8], [12.801, 47.8], [12.801, 47.801], [12.8, 47.8]]]
        ]
      }
    },
    {
      "type": "Feature",
      "properties": { "heading": 90.5, "name": "church" },
      "geometry": { "type": "Point", "coordinates": [-12.5, -47.25] }
    },
    { "type": "Feature", "properties": null,
      "geometry": { "type": "LineString", "coordinates": [[0, 0], [1, 1]] } },
    { "type": "Feature", "properties": {}, "geometry": null }
  ]
}
"#;

    fn run(src: &str) -> (Result<GeoJson, Diagnostic>, Vec<String>) {
        let mut w = Vec::new();
        let r = parse(Path::new("g.json"), src.as_bytes(), &mut w);
        (r, w.iter().map(|d| d.to_string()).collect())
    }

    fn err(src: &str) -> String {
        match run(src).0 {
            Ok(g) => panic!("expected an error, got {g:?}"),
            Err(e) => e.to_string(),
        }
    }

    /// A one-feature collection around a geometry and properties, on known lines: the
    /// geometry starts on line 3.
    fn feature(props: &str, geometry: &str) -> String {
        format!(
            "{{\"type\": \"Feature\",\n\"properties\": {props},\n\"geometry\": {geometry}\n}}\n"
        )
    }

    #[test]
    fn spawn_flags_one_per_edge_of_each_ring() {
        let poly = r#"{"type": "Polygon", "coordinates": [[[0, 0], [0.001, 0], [0.001, 0.001], [0, 0.001], [0, 0]]]}"#;
        let g = run(&feature(r#"{"spawn": [[true, false, 0, 1]]}"#, poly))
            .0
            .unwrap();
        assert_eq!(
            g.polygons[0].spawn,
            Some(vec![vec![true, false, false, true]])
        );
        // Without it: none.
        let g = run(&feature("{}", poly)).0.unwrap();
        assert_eq!(g.polygons[0].spawn, None);
        // Counts must match, and the error points at the array (line 2, column 24).
        let e = err(&feature(r#"{"spawn": [[true, false]]}"#, poly));
        assert!(
            e.starts_with(
                "g.json:2:25: error: `spawn` ring 0 has 2 flag(s) but the ring has 4 edge(s)"
            ),
            "{e}"
        );
        let e = err(&feature(
            r#"{"spawn": [[true, true, true, true], []]}"#,
            poly,
        ));
        assert!(e.contains("`spawn` has 2 array(s) but the polygon"), "{e}");
        let e = err(&feature(r#"{"spawn": [["yes", true, true, true]]}"#, poly));
        assert!(e.contains("a `spawn` flag must be true or false"), "{e}");
        let e = err(&feature(r#"{"spawn": true}"#, poly));
        assert!(e.contains("`spawn` must be an array"), "{e}");
    }

    #[test]
    fn reads_the_sample() {
        let (r, w) = run(SAMPLE);
        let g = r.unwrap();
        assert_eq!(
            w,
            vec![
                "g.json:32:19: warning: LineString at line 32 skipped: only Polygon, MultiPolygon and Point place autogen",
                "g.json:33:5: warning: Feature with a null geometry skipped",
            ]
        );
        assert_eq!(g.polygons.len(), 3);
        let p = &g.polygons[0];
        assert_eq!(p.name.as_deref(), Some("block é 1"));
        assert_eq!(
            (p.param, p.height, p.heading),
            (Some(2561), Some(40.0), None)
        );
        assert_eq!(p.line, 7);
        assert_eq!(p.ring_lines, vec![10, 11]);
        // Stored open: the closing position is dropped.
        assert_eq!(
            p.rings[0],
            vec![
                [12.6, 47.6],
                [12.601, 47.6],
                [12.601, 47.6007],
                [12.6, 47.6007]
            ]
        );
        assert_eq!(p.rings[1].len(), 3);

        let (a, b) = (&g.polygons[1], &g.polygons[2]);
        assert_eq!((a.param, b.param), (Some(3073), Some(3073)));
        assert_eq!(a.name.as_deref(), Some("7"));
        assert_eq!((a.line, b.line), (21, 22));
        assert_eq!(
            a.rings,
            vec![vec![[12.7, 47.7], [12.702, 47.7], [12.702, 47.7015]]]
        );
        assert_eq!(b.rings[0][2], [12.801, 47.801]);

        assert_eq!(g.points.len(), 1);
        let pt = &g.points[0];
        assert_eq!((pt.lon, pt.lat, pt.heading), (-12.5, -47.25, Some(90.5)));
        assert_eq!(
            (pt.name.as_deref(), pt.param, pt.line),
            (Some("church"), None, 29)
        );
    }

    #[test]
    fn reads_a_bare_geometry_and_a_bare_feature() {
        let (r, w) = run(r#"{"type":"Point","coordinates":[1,2]}"#);
        assert!(w.is_empty());
        assert_eq!(r.unwrap().points[0].lat, 2.0);

        let src = feature(
            r#"{"param": 1.0e2, "height": null}"#,
            r#"{"type": "GeometryCollection", "geometries": [
                {"type": "Polygon", "coordinates": [[[0,0],[1,0],[1,1],[0,0]]]},
                {"type": "MultiPoint", "coordinates": [[3,4],[5,6]]}]}"#,
        );
        let g = run(&src).0.unwrap();
        assert_eq!(g.polygons.len(), 1);
        assert_eq!(g.polygons[0].param, Some(100));
        assert_eq!(g.polygons[0].height, None);
        assert_eq!(
            g.points.iter().map(|p| p.lon).collect::<Vec<_>>(),
            vec![3.0, 5.0]
        );
        assert_eq!(g.points[1].line, 5);
    }

    #[test]
    fn unclosed_ring_is_closed_with_a_warning() {
        let (r, w) = run(&feature(
            "{}",
            r#"{"type": "Polygon", "coordinates": [ [[0,0],[1,0],[1,1]] ]}"#,
        ));
        assert_eq!(
            w,
            vec!["g.json:3:50: warning: linear ring not closed (its last position is not its first): closed it"]
        );
        assert_eq!(
            r.unwrap().polygons[0].rings[0],
            vec![[0.0, 0.0], [1.0, 0.0], [1.0, 1.0]]
        );
    }

    #[test]
    fn duplicate_members_last_wins_with_a_warning() {
        let (r, w) = run(&feature(
            r#"{"param": 1, "param": 2}"#,
            r#"{"type": "Point", "coordinates": [0, 0]}"#,
        ));
        assert_eq!(r.unwrap().points[0].param, Some(2));
        assert_eq!(
            w,
            vec!["g.json:2:37: warning: duplicate member \"param\": the last one is used"]
        );
    }

    #[test]
    fn semantic_errors_point_at_the_value() {
        let point = r#"{"type": "Point", "coordinates": [0, 0]}"#;
        let cases: Vec<(String, &str)> = vec![
            (
                feature("{}", r#"{"type": "Point", "coordinates": ["12", 47]}"#),
                "g.json:3:47: error: longitude must be a number, found a string",
            ),
            (
                feature("{}", r#"{"type": "Point", "coordinates": [12, null]}"#),
                "g.json:3:51: error: latitude must be a number, found null",
            ),
            (
                feature("{}", r#"{"type": "Point", "coordinates": [12, 91.5]}"#),
                "g.json:3:51: error: latitude 91.5 is outside -90..=90: GeoJSON positions are \
                 [longitude, latitude] in degrees (WGS 84)",
            ),
            (
                feature("{}", r#"{"type": "Point", "coordinates": [1335000.5, 6000000]}"#),
                "g.json:3:47: error: longitude 1335000.5 is outside -180..=180: GeoJSON positions \
                 are [longitude, latitude] in degrees (WGS 84)",
            ),
            (
                feature("{}", r#"{"type": "Point", "coordinates": [12]}"#),
                "g.json:3:46: error: a position needs a longitude and a latitude, found 1 number",
            ),
            (
                feature("{}", r#"{"type": "Polygon", "coordinates": [[[0,0],[1,0],[0,0]]]}"#),
                "g.json:3:49: error: a linear ring needs at least 4 positions (3 corners and the \
                 first repeated at the end), found 3",
            ),
            (
                feature("{}", r#"{"type": "Polygon", "coordinates": [[[0,0],[1,0]]]}"#),
                "g.json:3:49: error: a linear ring needs at least 4 positions (3 corners and the \
                 first repeated at the end), found 2",
            ),
            (
                feature("{}", r#"{"type": "Polygon", "coordinates": [[0,0],[1,0],[1,1],[0,0]]}"#),
                "g.json:3:50: error: a position must be an array [longitude, latitude], found a number",
            ),
            (
                feature(r#"{"param": 65536}"#, point),
                "g.json:2:25: error: `param` must be a whole number 0..=65535 (the DSF polygon \
                 parameter), found 65536",
            ),
            (
                feature(r#"{"param": 2.5}"#, point),
                "g.json:2:25: error: `param` must be a whole number 0..=65535 (the DSF polygon \
                 parameter), found 2.5",
            ),
            (
                feature(r#"{"param": "12"}"#, point),
                "g.json:2:25: error: `param` must be a whole number 0..=65535 (the DSF polygon \
                 parameter), found a string",
            ),
            (
                feature(r#"{"height": -4}"#, point),
                "g.json:2:26: error: `height` must not be negative, found -4",
            ),
            (
                feature(r#"{"heading": true}"#, point),
                "g.json:2:27: error: `heading` must be a number of degrees, found a boolean",
            ),
            (
                feature("{}", r#"{"type": "Circle", "coordinates": [0, 0]}"#),
                "g.json:3:13: error: unknown GeoJSON type `Circle`",
            ),
            (
                feature("{}", r#"{"coordinates": [0, 0]}"#),
                "g.json:3:13: error: GeoJSON object without a `type` member",
            ),
            (
                feature("{}", r#"{"type": "Polygon"}"#),
                "g.json:3:13: error: Polygon without `coordinates`",
            ),
            (
                r#"{"type": "FeatureCollection", "features": {}}"#.to_string(),
                "g.json:1:43: error: `features` must be an array, found an object",
            ),
            (
                r#"{"type": "FeatureCollection", "features": [{"type": "Point", "coordinates": [0, 0]}]}"#
                    .to_string(),
                "g.json:1:44: error: expected a Feature, found type `Point`",
            ),
            (
                "[1, 2]".to_string(),
                "g.json:1:1: error: expected a GeoJSON FeatureCollection, Feature or geometry \
                 (a JSON object), found an array",
            ),
            (
                "\n  {\"type\": \"FeatureCollection\", \"features\": []}".to_string(),
                "g.json:2:3: error: no Polygon, MultiPolygon or Point in this file: nothing to lay autogen on",
            ),
            (
                feature("{}", r#"{"type": "LineString", "coordinates": [[0, 0], [1, 1]]}"#),
                "g.json:1:1: error: no Polygon, MultiPolygon or Point in this file: nothing to lay autogen on",
            ),
        ];
        for (src, want) in cases {
            assert_eq!(err(&src), want, "{src}");
        }
    }

    #[test]
    fn json_syntax_errors_point_at_the_character() {
        let cases: Vec<(&[u8], &str)> = vec![
            (b"", "g.json:1:1: error: empty file: expected a GeoJSON object"),
            (b"  \n ", "g.json:2:2: error: empty file: expected a GeoJSON object"),
            (b"{\"a\": NaN}", "g.json:1:7: error: `NaN` and `Infinity` are not JSON: numbers must be finite"),
            (b"[-Infinity]", "g.json:1:3: error: `-Infinity` is not JSON: numbers must be finite"),
            (b"[1e999]", "g.json:1:2: error: number `1e999` is out of range: numbers must be finite"),
            (b"[01]", "g.json:1:3: error: a number must not have leading zeros"),
            (b"[1.]", "g.json:1:4: error: expected a digit after the decimal point"),
            (b"[1e+]", "g.json:1:5: error: expected a digit in the exponent"),
            (b"[-]", "g.json:1:3: error: expected a digit after `-`"),
            (b"[.5]", "g.json:1:2: error: unexpected `.`: expected a value"),
            (b"[1, 2,]", "g.json:1:7: error: expected a value after `,` (JSON allows no trailing comma)"),
            (b"{\"a\": 1,}", "g.json:1:9: error: expected a member name after `,` (JSON allows no trailing comma)"),
            (b"{a: 1}", "g.json:1:2: error: expected a member name in double quotes, found `a`"),
            (b"{\"a\" 1}", "g.json:1:6: error: expected `:` after the member name \"a\", found `1`"),
            (b"[1 2]", "g.json:1:4: error: expected `,` or `]` after an array element, found `2`"),
            (b"{\"a\": 1 \"b\": 2}", "g.json:1:9: error: expected `,` or `}` after an object member, found `\"`"),
            (b"{\"a\": [1,\n  2", "g.json:2:4: error: unexpected end of file inside the array begun at 1:7"),
            (b"{\"a\": \"xyz", "g.json:1:11: error: unexpected end of file inside the string begun at 1:7"),
            (b"{\"a\": \"x\ny\"}", "g.json:1:9: error: line end in a string: a string must end on the line it starts (escape it as `\\n`)"),
            (b"[\"\\q\"]", "g.json:1:3: error: invalid escape `\\q` in a string"),
            (b"[\"\\u12G4\"]", "g.json:1:3: error: `\\u` must be followed by 4 hex digits"),
            (b"[\"\\uD800x\"]", "g.json:1:3: error: unpaired surrogate `\\uD800` in a string"),
            (b"[\"\\uDC00\"]", "g.json:1:3: error: unpaired surrogate `\\uDC00` in a string"),
            (b"[tru]", "g.json:1:2: error: unexpected word: expected `true` (JSON literals are `true`, `false` and `null`)"),
            (b"[nullx]", "g.json:1:2: error: unexpected word: expected `null` (JSON literals are `true`, `false` and `null`)"),
            (b"['a']", "g.json:1:2: error: JSON strings use double quotes"),
            (b"{} // c", "g.json:1:4: error: JSON has no comments"),
            (b"{} {}", "g.json:1:4: error: unexpected `{` after the end of the JSON value"),
            ("[1 \u{e9}]".as_bytes(), "g.json:1:4: error: expected `,` or `]` after an array element, found `\u{e9}`"),
            (b"{\"a\"\x01: 1}", "g.json:1:5: error: expected `:` after the member name \"a\", found character U+0001"),
            (b"{\"a\": 1", "g.json:1:8: error: unexpected end of file inside the object begun at 1:1"),
            (b"{\"\xc3\xa9\": \xff}", "g.json:1:7: error: invalid UTF-8 byte 0xFF; JSON must be UTF-8"),
            (b"\xef\xbb\xbf[\"\xc3\xa9\" 1]", "g.json:1:6: error: expected `,` or `]` after an array element, found `1`"),
        ];
        for (src, want) in cases {
            let mut w = Vec::new();
            let e = parse(Path::new("g.json"), src, &mut w).unwrap_err();
            assert_eq!(e.to_string(), want, "{}", String::from_utf8_lossy(src));
        }
    }

    #[test]
    fn surrogate_pairs_decode() {
        let src = r#"{"type":"Feature","properties":{"name":"\ud83c\udfe0 \"home\"\n"},"geometry":{"type":"Point","coordinates":[0,0]}}"#;
        let g = run(src).0.unwrap();
        assert_eq!(g.points[0].name.as_deref(), Some("🏠 \"home\"\n"));
    }

    #[test]
    fn deep_nesting_is_an_error_not_a_stack_overflow() {
        let deep = "[".repeat(100_000);
        let e = err(&deep);
        assert_eq!(
            e,
            "g.json:1:129: error: arrays and objects nest more than 128 deep"
        );
        let deep_obj = "{\"a\":".repeat(200);
        assert!(err(&deep_obj).contains("nest more than 128 deep"));
        // Just inside the limit parses (and is then rejected as not GeoJSON).
        let ok = format!("{}{}", "[".repeat(128), "]".repeat(128));
        assert!(err(&ok).contains("found an array"));
    }

    /// A small xorshift generator: the tests need no crate for their randomness.
    struct XorShift(u64);
    impl XorShift {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            self.0
        }
    }

    #[test]
    fn never_panics_on_prefixes_or_mutations() {
        let src = SAMPLE.as_bytes();
        for n in 0..=src.len() {
            let _ = parse(Path::new("p"), &src[..n], &mut Vec::new());
        }
        let mut rng = XorShift(0x2545_F491_4F6C_DD1D);
        let alphabet = b" \n{}[],:\"\\u-+.eE0123456789tfnaNI\xc3\xa9\xff";
        for _ in 0..4000 {
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
                        let piece: Vec<u8> =
                            m[i.min(j)..i.max(j)].iter().copied().take(300).collect();
                        m.splice(i..i, piece);
                    }
                }
            }
            let mut w = Vec::new();
            if let Ok(g) = parse(Path::new("m"), &m, &mut w) {
                // Whatever parses keeps its invariants.
                assert!(!g.polygons.is_empty() || !g.points.is_empty());
                for p in &g.polygons {
                    assert!(p.rings.iter().all(|r| r.len() >= 3));
                    assert!(p
                        .rings
                        .iter()
                        .flatten()
                        .all(|[x, y]| x.abs() <= 180.0 && y.abs() <= 90.0));
                }
            }
        }
    }
}
