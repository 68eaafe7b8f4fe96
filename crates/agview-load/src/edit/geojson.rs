//! Writing one feature of a GeoJSON file back, and writing a new one-feature file.
//!
//! The file is changed in place, as text: only the edited feature's `coordinates` and the
//! `param`, `height`, `spawn` (and, for a point, `heading`) members of its `properties`
//! are replaced or added. Every other byte of the file (the other features, their order,
//! members and spacing, foreign members, the number forms) stays as it was. Positions are
//! written in Rust's shortest form that reads back to the same `f64`, so a saved coordinate
//! is the edited one exactly.

use std::path::Path;

use super::{EditedShape, SaveError, Shape};

/// A JSON value and the bytes `[start, end)` it spans.
#[derive(Debug)]
pub(super) struct Node {
    start: usize,
    end: usize,
    kind: Kind,
}

#[derive(Debug)]
enum Kind {
    Object(Vec<(String, Node)>),
    Array(Vec<Node>),
    Str(String),
    Other,
}

impl Node {
    /// The last member named `key` (the one the reader uses: the last wins).
    fn get(&self, key: &str) -> Option<&Node> {
        match &self.kind {
            Kind::Object(m) => m.iter().rev().find(|(k, _)| k == key).map(|(_, v)| v),
            _ => None,
        }
    }

    fn str(&self) -> Option<&str> {
        match &self.kind {
            Kind::Str(s) => Some(s),
            _ => None,
        }
    }

    fn items(&self) -> &[Node] {
        match &self.kind {
            Kind::Array(a) => a,
            _ => &[],
        }
    }

    fn type_name(&self) -> Option<&str> {
        self.get("type").and_then(Node::str)
    }
}

/// Spans of a JSON text that the project's reader has accepted already (so only a bound on
/// depth and length guards it; any surprise is `None`, never a panic).
struct Scanner<'a> {
    src: &'a [u8],
    pos: usize,
}

impl Scanner<'_> {
    fn ws(&mut self) {
        while matches!(self.src.get(self.pos), Some(b' ' | b'\t' | b'\n' | b'\r')) {
            self.pos += 1;
        }
    }

    fn value(&mut self, depth: usize) -> Option<Node> {
        if depth > 256 {
            return None;
        }
        self.ws();
        let start = self.pos;
        let kind =
            match self.src.get(self.pos)? {
                b'{' => {
                    self.pos += 1;
                    let mut members = Vec::new();
                    self.ws();
                    if self.src.get(self.pos) == Some(&b'}') {
                        self.pos += 1;
                    } else {
                        loop {
                            self.ws();
                            let key = self.string()?;
                            self.ws();
                            (self.src.get(self.pos) == Some(&b':')).then_some(())?;
                            self.pos += 1;
                            let v = self.value(depth + 1)?;
                            members.push((key, v));
                            self.ws();
                            match self.src.get(self.pos)? {
                                b',' => self.pos += 1,
                                b'}' => {
                                    self.pos += 1;
                                    break;
                                }
                                _ => return None,
                            }
                        }
                    }
                    Kind::Object(members)
                }
                b'[' => {
                    self.pos += 1;
                    let mut items = Vec::new();
                    self.ws();
                    if self.src.get(self.pos) == Some(&b']') {
                        self.pos += 1;
                    } else {
                        loop {
                            items.push(self.value(depth + 1)?);
                            self.ws();
                            match self.src.get(self.pos)? {
                                b',' => self.pos += 1,
                                b']' => {
                                    self.pos += 1;
                                    break;
                                }
                                _ => return None,
                            }
                        }
                    }
                    Kind::Array(items)
                }
                b'"' => Kind::Str(self.string()?),
                _ => {
                    while self.src.get(self.pos).is_some_and(|b| {
                        b.is_ascii_alphanumeric() || matches!(b, b'-' | b'+' | b'.')
                    }) {
                        self.pos += 1;
                    }
                    if self.pos == start {
                        return None;
                    }
                    Kind::Other
                }
            };
        Some(Node {
            start,
            end: self.pos,
            kind,
        })
    }

    /// A string at `pos` (its opening quote), escapes decoded.
    fn string(&mut self) -> Option<String> {
        (self.src.get(self.pos) == Some(&b'"')).then_some(())?;
        self.pos += 1;
        let mut out: Vec<u16> = Vec::new();
        let mut bytes: Vec<u8> = Vec::new();
        let flush = |bytes: &mut Vec<u8>, out: &mut Vec<u16>| {
            out.extend(String::from_utf8_lossy(bytes).encode_utf16());
            bytes.clear();
        };
        loop {
            match *self.src.get(self.pos)? {
                b'"' => {
                    self.pos += 1;
                    break;
                }
                b'\\' => {
                    flush(&mut bytes, &mut out);
                    let e = *self.src.get(self.pos + 1)?;
                    self.pos += 2;
                    let unit = match e {
                        b'b' => 0x08,
                        b'f' => 0x0C,
                        b'n' => u16::from(b'\n'),
                        b'r' => u16::from(b'\r'),
                        b't' => u16::from(b'\t'),
                        b'u' => {
                            let hex = self.src.get(self.pos..self.pos + 4)?;
                            self.pos += 4;
                            u16::from_str_radix(std::str::from_utf8(hex).ok()?, 16).ok()?
                        }
                        c => u16::from(c),
                    };
                    out.push(unit);
                }
                b => {
                    bytes.push(b);
                    self.pos += 1;
                }
            }
        }
        flush(&mut bytes, &mut out);
        Some(String::from_utf16_lossy(&out))
    }
}

/// The JSON tree of `src` with byte spans (after a UTF-8 byte-order mark, which is kept).
pub(super) fn scan(src: &[u8]) -> Option<Node> {
    let start = if src.starts_with(&[0xEF, 0xBB, 0xBF]) {
        3
    } else {
        0
    };
    let mut s = Scanner { src, pos: start };
    let v = s.value(0)?;
    s.ws();
    (s.pos == src.len()).then_some(v)
}

/// The features of a file as the reader walks them: a `FeatureCollection`'s `features`, or
/// the root itself (a lone `Feature` or a bare geometry) as feature 0.
fn features(root: &Node) -> Vec<&Node> {
    match root.type_name() {
        Some("FeatureCollection") => root
            .get("features")
            .map(|f| f.items().iter().collect())
            .unwrap_or_default(),
        _ => vec![root],
    }
}

/// How many polygons and points a geometry gives the reader (a `Polygon` with no ring
/// gives none; line strings none).
fn counts(g: &Node, depth: usize) -> (usize, usize) {
    if depth > 64 {
        return (0, 0);
    }
    let coords = g.get("coordinates").map(Node::items).unwrap_or_default();
    match g.type_name() {
        Some("Polygon") => (usize::from(!coords.is_empty()), 0),
        Some("MultiPolygon") => (coords.iter().filter(|p| !p.items().is_empty()).count(), 0),
        Some("Point") => (0, 1),
        Some("MultiPoint") => (0, coords.len()),
        Some("GeometryCollection") => g
            .get("geometries")
            .map(Node::items)
            .unwrap_or_default()
            .iter()
            .map(|m| counts(m, depth + 1))
            .fold((0, 0), |a, b| (a.0 + b.0, a.1 + b.1)),
        _ => (0, 0),
    }
}

/// The geometry of a feature (a bare geometry is its own).
fn geometry_of(feature: &Node) -> Option<&Node> {
    match feature.type_name() {
        Some("Feature") => feature.get("geometry"),
        _ => Some(feature),
    }
}

/// Which feature holds the reader's `n`th polygon (or point, when `points`): its index
/// among the file's features, or why it cannot be written alone.
pub(super) fn feature_of(src: &[u8], n: usize, points: bool) -> Result<usize, String> {
    let root = scan(src).ok_or("the file is not JSON agview can read")?;
    let mut seen = 0;
    for (i, f) in features(&root).into_iter().enumerate() {
        let (polys, pts) = geometry_of(f).map(|g| counts(g, 0)).unwrap_or((0, 0));
        let k = if points { pts } else { polys };
        if n < seen + k {
            let ty = geometry_of(f).and_then(Node::type_name).unwrap_or("?");
            if k > 1 || ty == "GeometryCollection" {
                return Err(format!(
                    "its {} is one of {k} in the {ty} of feature {i}; agview writes back only a \
                     feature that is one Polygon or Point",
                    if points { "point" } else { "polygon" }
                ));
            }
            return Ok(i);
        }
        seen += k;
    }
    Err(format!(
        "the file has {seen} {}",
        if points { "point(s)" } else { "polygon(s)" }
    ))
}

/// A number as JSON: the shortest form that reads back to the same value.
fn num(v: f64) -> String {
    format!("{v}")
}

fn position(p: [f64; 2]) -> String {
    format!("[{}, {}]", num(p[0]), num(p[1]))
}

/// A polygon's rings as GeoJSON coordinates: each ring closed (its first position repeated),
/// in the order and orientation given (see `docs/spec-decisions.md`, "Edit mode: saving").
pub(super) fn rings_json(rings: &[Vec<[f64; 2]>]) -> String {
    let rings: Vec<String> = rings
        .iter()
        .map(|r| {
            let mut pts: Vec<String> = r.iter().map(|p| position(*p)).collect();
            if let Some(first) = r.first() {
                pts.push(position(*first));
            }
            format!("[{}]", pts.join(", "))
        })
        .collect();
    format!("[{}]", rings.join(", "))
}

pub(super) fn spawn_json(spawn: &[Vec<bool>]) -> String {
    let rings: Vec<String> = spawn
        .iter()
        .map(|r| {
            let f: Vec<&str> = r
                .iter()
                .map(|b| if *b { "true" } else { "false" })
                .collect();
            format!("[{}]", f.join(", "))
        })
        .collect();
    format!("[{}]", rings.join(", "))
}

/// A height in meters as written: the `f32`'s shortest form (`12.5`, not `12.5000002…`).
pub(super) fn height_json(h: f32) -> String {
    format!("{h}")
}

/// A JSON string literal.
pub(super) fn string_json(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// One replacement of the bytes `[start, end)` (an insertion when they are equal).
struct Edit {
    start: usize,
    end: usize,
    text: String,
}

/// Members to set in an object: replaced where present (the last of a name), else added
/// before its closing brace, on a line of their own when the object spans lines.
fn set_members(src: &[u8], obj: &Node, set: &[(&str, String)], edits: &mut Vec<Edit>) {
    let Kind::Object(members) = &obj.kind else {
        return;
    };
    let mut added = Vec::new();
    for (key, text) in set {
        match obj.get(key) {
            Some(v) => edits.push(Edit {
                start: v.start,
                end: v.end,
                text: text.clone(),
            }),
            None => added.push(format!("{}: {text}", string_json(key))),
        }
    }
    if added.is_empty() {
        return;
    }
    let Some((_, last)) = members.last() else {
        edits.push(Edit {
            start: obj.start + 1,
            end: obj.start + 1,
            text: added.join(", "),
        });
        return;
    };
    let close = obj.end.saturating_sub(1);
    let tail = src.get(last.end..close).unwrap_or_default();
    let sep = if tail.contains(&b'\n') {
        // The indentation of the line the last member's value starts on.
        let line_start = src
            .get(..last.start)
            .and_then(|b| b.iter().rposition(|c| *c == b'\n'))
            .map_or(0, |p| p + 1);
        let indent: String = src
            .get(line_start..last.start)
            .unwrap_or_default()
            .iter()
            .take_while(|c| matches!(c, b' ' | b'\t'))
            .map(|c| char::from(*c))
            .collect();
        format!(",\n{indent}")
    } else {
        ", ".to_string()
    };
    let mut text = String::new();
    for a in added {
        text.push_str(&sep);
        text.push_str(&a);
    }
    edits.push(Edit {
        start: last.end,
        end: last.end,
        text,
    });
}

/// The file `src` with feature `index` given `shape`'s geometry and properties.
pub(super) fn rewrite(src: &[u8], index: usize, shape: &EditedShape) -> Result<Vec<u8>, SaveError> {
    let root = scan(src).ok_or_else(|| SaveError("the file is not JSON agview can read".into()))?;
    let list = features(&root);
    let feature = *list.get(index).ok_or_else(|| {
        SaveError(format!(
            "feature {index} is not in the file any more (it has {} feature(s)); was it changed \
             on disk?",
            list.len()
        ))
    })?;
    let geometry = geometry_of(feature)
        .filter(|g| matches!(g.kind, Kind::Object(_)))
        .ok_or_else(|| SaveError(format!("feature {index} has no geometry to replace")))?;
    let ty = geometry.type_name().unwrap_or("?");
    let coords = geometry
        .get("coordinates")
        .ok_or_else(|| SaveError(format!("feature {index}'s {ty} has no `coordinates`")))?;
    let one = |what: &str| {
        if coords.items().len() == 1 {
            Ok(())
        } else {
            Err(SaveError(format!(
                "feature {index} is a {ty} of {} {what}s; agview writes back only a feature \
                 that is one {what}: use \"Save as GeoJSON\"",
                coords.items().len()
            )))
        }
    };
    let new_coords = match (&shape.geometry, ty) {
        (Shape::Polygon(rings), "Polygon") => rings_json(rings),
        (Shape::Polygon(rings), "MultiPolygon") => {
            one("Polygon")?;
            format!("[{}]", rings_json(rings))
        }
        (Shape::Point { lon, lat, .. }, "Point") => {
            // A third value (an elevation) is kept as written.
            let mut parts = vec![num(*lon), num(*lat)];
            for extra in coords.items().iter().skip(2) {
                let t = src.get(extra.start..extra.end).unwrap_or_default();
                parts.push(String::from_utf8_lossy(t).into_owned());
            }
            format!("[{}]", parts.join(", "))
        }
        (Shape::Point { lon, lat, .. }, "MultiPoint") => {
            one("Point")?;
            format!("[{}]", position([*lon, *lat]))
        }
        (Shape::Polygon(_), _) => {
            return Err(SaveError(format!(
                "feature {index} is a {ty}, not a Polygon: the edited polygon cannot replace it"
            )))
        }
        (Shape::Point { .. }, _) => {
            return Err(SaveError(format!(
                "feature {index} is a {ty}, not a Point: the edited point cannot replace it"
            )))
        }
    };
    let mut edits = vec![Edit {
        start: coords.start,
        end: coords.end,
        text: new_coords,
    }];

    let props_node = match feature.type_name() {
        Some("Feature") => feature.get("properties"),
        _ => None,
    };
    let mut set: Vec<(&str, String)> = Vec::new();
    if let Some(p) = shape.param {
        set.push(("param", p.to_string()));
    }
    if let Some(h) = shape.height {
        set.push(("height", height_json(h)));
    }
    match (&shape.geometry, &shape.spawn) {
        (Shape::Polygon(_), Some(s)) => set.push(("spawn", spawn_json(s))),
        (Shape::Polygon(rings), None) => {
            // Flags the file has are kept while they still give one flag per edge; after
            // an edit that added or removed a vertex they would not read, so they go.
            if let Some(old) = props_node.and_then(|p| p.get("spawn")) {
                let fits = old.items().len() == rings.len()
                    && old
                        .items()
                        .iter()
                        .zip(rings)
                        .all(|(f, r)| f.items().len() == r.len());
                if !fits {
                    set.push(("spawn", "null".to_string()));
                }
            }
        }
        (Shape::Point { heading, .. }, _) => set.push(("heading", num(*heading))),
    }
    let props_text = |set: &[(&str, String)]| {
        let m: Vec<String> = set
            .iter()
            .map(|(k, v)| format!("{}: {v}", string_json(k)))
            .collect();
        format!("{{{}}}", m.join(", "))
    };
    match feature.type_name() {
        Some("Feature") => match props_node {
            Some(p) if matches!(p.kind, Kind::Object(_)) => set_members(src, p, &set, &mut edits),
            Some(p) if !set.is_empty() => edits.push(Edit {
                start: p.start,
                end: p.end,
                text: props_text(&set),
            }),
            Some(_) => {}
            None if !set.is_empty() => set_members(
                src,
                feature,
                &[("properties", props_text(&set))],
                &mut edits,
            ),
            None => {}
        },
        // A bare geometry becomes a Feature when there are properties to keep.
        _ if !set.is_empty() => {
            edits.push(Edit {
                start: feature.start,
                end: feature.start,
                text: format!(
                    "{{\"type\": \"Feature\", \"properties\": {}, \"geometry\": ",
                    props_text(&set)
                ),
            });
            edits.push(Edit {
                start: feature.end,
                end: feature.end,
                text: "}".to_string(),
            });
        }
        _ => {}
    }
    Ok(apply(src, edits))
}

fn apply(src: &[u8], mut edits: Vec<Edit>) -> Vec<u8> {
    edits.sort_by_key(|e| (e.start, e.end));
    let mut out = Vec::with_capacity(src.len() + 256);
    let mut at = 0;
    for e in edits {
        if e.start < at {
            continue;
        }
        out.extend_from_slice(src.get(at..e.start).unwrap_or_default());
        out.extend_from_slice(e.text.as_bytes());
        at = e.end;
    }
    out.extend_from_slice(src.get(at..).unwrap_or_default());
    out
}

/// A new file holding one feature: the shape, its asset and values, and where a shape laid
/// out in local meters was placed.
pub(super) fn new_file(
    shape: &EditedShape,
    asset: &str,
    origin: Option<([f64; 2], bool)>,
) -> Vec<u8> {
    let mut props = vec![format!("\"asset\": {}", string_json(asset))];
    if let Some(p) = shape.param {
        props.push(format!("\"param\": {p}"));
    }
    if let Some(h) = shape.height {
        props.push(format!("\"height\": {}", height_json(h)));
    }
    let geometry = match &shape.geometry {
        Shape::Polygon(rings) => {
            if let Some(s) = &shape.spawn {
                props.push(format!("\"spawn\": {}", spawn_json(s)));
            }
            format!(
                "{{\"type\": \"Polygon\", \"coordinates\": {}}}",
                rings_json(rings)
            )
        }
        Shape::Point { lon, lat, heading } => {
            props.push(format!("\"heading\": {}", num(*heading)));
            format!(
                "{{\"type\": \"Point\", \"coordinates\": {}}}",
                position([*lon, *lat])
            )
        }
    };
    if let Some((o, default)) = origin {
        props.push(format!("\"origin\": {}", position(o)));
        let note = if default {
            super::DEFAULT_ORIGIN_NOTE
        } else {
            "the local frame's origin [longitude, latitude], from --origin"
        };
        props.push(format!("\"origin_note\": {}", string_json(note)));
    }
    format!(
        "{{\n  \"type\": \"FeatureCollection\",\n  \"features\": [\n    {{\n      \"type\": \"Feature\",\n      \"properties\": {{{}}},\n      \"geometry\": {}\n    }}\n  ]\n}}\n",
        props.join(", "),
        geometry
    )
    .into_bytes()
}

/// Checks that `bytes` read as GeoJSON with the project's reader.
pub(super) fn reads_back(path: &Path, bytes: &[u8]) -> Result<(), SaveError> {
    crate::format::geojson::parse(path, bytes, &mut Vec::new())
        .map(|_| ())
        .map_err(|d| {
            SaveError(format!(
                "the file agview would write does not read back ({d}); nothing was written"
            ))
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shape(rings: Vec<Vec<[f64; 2]>>) -> EditedShape {
        EditedShape {
            geometry: Shape::Polygon(rings),
            spawn: None,
            param: None,
            height: None,
        }
    }

    #[test]
    fn scans_spans_and_escapes() {
        let src = br#" {"a\u0062": [1, -2.5e3, "x\"y"], "c": {}} "#;
        let root = scan(src).unwrap();
        let v = root.get("ab").unwrap();
        assert_eq!(&src[v.start..v.end], br#"[1, -2.5e3, "x\"y"]"#);
        assert_eq!(v.items()[2].str(), Some("x\"y"));
        assert!(scan(b"{\"a\": 1").is_none());
        assert!(scan(b"[1] 2").is_none());
    }

    #[test]
    fn only_the_coordinates_and_named_properties_change() {
        let src = "{\"type\": \"FeatureCollection\", \"features\": [\n  {\"type\": \"Feature\", \"id\": 9, \"properties\": {\"param\": 1, \"x\": [1.50, 2]}, \"geometry\": {\"type\": \"Point\", \"coordinates\": [1.0, 2.0, 30]}},\n  {\"type\": \"Feature\", \"properties\": {\"param\": 2}, \"geometry\": {\"type\": \"Polygon\", \"coordinates\": [[[0,0],[1,0],[1,1],[0,0]]], \"bbox\": [0, 0, 1, 1]}}\n]}\n";
        let mut s = shape(vec![vec![[0.5, 0.0], [1.0, 0.0], [1.0, 1.0]]]);
        s.param = Some(513);
        s.height = Some(12.5);
        let out = String::from_utf8(rewrite(src.as_bytes(), 1, &s).unwrap()).unwrap();
        assert_eq!(
            out,
            "{\"type\": \"FeatureCollection\", \"features\": [\n  {\"type\": \"Feature\", \"id\": 9, \"properties\": {\"param\": 1, \"x\": [1.50, 2]}, \"geometry\": {\"type\": \"Point\", \"coordinates\": [1.0, 2.0, 30]}},\n  {\"type\": \"Feature\", \"properties\": {\"param\": 513, \"height\": 12.5}, \"geometry\": {\"type\": \"Polygon\", \"coordinates\": [[[0.5, 0], [1, 0], [1, 1], [0.5, 0]]], \"bbox\": [0, 0, 1, 1]}}\n]}\n"
        );
        let p = EditedShape {
            geometry: Shape::Point {
                lon: 3.25,
                lat: -4.0,
                heading: 90.0,
            },
            spawn: None,
            param: None,
            height: None,
        };
        let out = String::from_utf8(rewrite(src.as_bytes(), 0, &p).unwrap()).unwrap();
        assert!(out.contains("\"properties\": {\"param\": 1, \"x\": [1.50, 2], \"heading\": 90}, \"geometry\": {\"type\": \"Point\", \"coordinates\": [3.25, -4, 30]}"), "{out}");
    }

    #[test]
    fn members_are_added_on_their_own_line_in_a_pretty_file() {
        let src = "{\n  \"type\": \"Feature\",\n  \"properties\": {\n    \"name\": \"a\"\n  },\n  \"geometry\": {\"type\": \"Polygon\", \"coordinates\": [[[0,0],[1,0],[1,1],[0,0]]]}\n}\n";
        let mut s = shape(vec![vec![[0.0, 0.0], [1.0, 0.0], [1.0, 1.0]]]);
        s.spawn = Some(vec![vec![true, false, true]]);
        let out = String::from_utf8(rewrite(src.as_bytes(), 0, &s).unwrap()).unwrap();
        assert!(
            out.contains("\"name\": \"a\",\n    \"spawn\": [[true, false, true]]\n  },"),
            "{out}"
        );
    }

    #[test]
    fn a_bare_geometry_becomes_a_feature_when_it_needs_properties() {
        let src = br#"{"type": "Polygon", "coordinates": [[[0,0],[1,0],[1,1],[0,0]]]}"#;
        let mut s = shape(vec![vec![[0.0, 0.0], [2.0, 0.0], [1.0, 1.0]]]);
        let plain = rewrite(src, 0, &s).unwrap();
        assert!(String::from_utf8(plain)
            .unwrap()
            .starts_with("{\"type\": \"Polygon\""));
        s.param = Some(7);
        let out = String::from_utf8(rewrite(src, 0, &s).unwrap()).unwrap();
        assert_eq!(out, "{\"type\": \"Feature\", \"properties\": {\"param\": 7}, \"geometry\": {\"type\": \"Polygon\", \"coordinates\": [[[0, 0], [2, 0], [1, 1], [0, 0]]]}}");
    }

    #[test]
    fn stale_spawn_flags_are_dropped_and_fitting_ones_kept() {
        let src = br#"{"type": "Feature", "properties": {"spawn": [[true, true, false]]}, "geometry": {"type": "Polygon", "coordinates": [[[0,0],[1,0],[1,1],[0,0]]]}}"#;
        let same = rewrite(
            src,
            0,
            &shape(vec![vec![[0.0, 0.0], [3.0, 0.0], [1.0, 1.0]]]),
        )
        .unwrap();
        assert!(String::from_utf8(same)
            .unwrap()
            .contains("[[true, true, false]]"));
        let more = rewrite(
            src,
            0,
            &shape(vec![vec![[0.0, 0.0], [3.0, 0.0], [1.0, 1.0], [0.0, 1.0]]]),
        )
        .unwrap();
        assert!(String::from_utf8(more).unwrap().contains("\"spawn\": null"));
    }

    #[test]
    fn multi_geometries_are_written_only_when_they_hold_one() {
        let one = br#"{"type": "MultiPolygon", "coordinates": [[[[0,0],[1,0],[1,1],[0,0]]]]}"#;
        let out = rewrite(
            one,
            0,
            &shape(vec![vec![[0.0, 0.0], [2.0, 0.0], [1.0, 1.0]]]),
        )
        .unwrap();
        assert!(String::from_utf8(out)
            .unwrap()
            .contains("[[[[0, 0], [2, 0]"));
        let two = br#"{"type": "MultiPolygon", "coordinates": [[[[0,0],[1,0],[1,1],[0,0]]], [[[5,5],[6,5],[6,6],[5,5]]]]}"#;
        let e = rewrite(
            two,
            0,
            &shape(vec![vec![[0.0, 0.0], [2.0, 0.0], [1.0, 1.0]]]),
        )
        .unwrap_err();
        assert!(e.0.contains("MultiPolygon of 2 Polygons"), "{e}");
        assert!(feature_of(two, 1, false).unwrap_err().contains("one of 2"));
    }

    #[test]
    fn polygon_and_point_indices_map_to_features() {
        let src = br#"{"type": "FeatureCollection", "features": [
            {"type": "Feature", "properties": null, "geometry": {"type": "Point", "coordinates": [0, 0]}},
            {"type": "Feature", "properties": null, "geometry": null},
            {"type": "Feature", "properties": null, "geometry": {"type": "LineString", "coordinates": [[0, 0], [1, 1]]}},
            {"type": "Feature", "properties": null, "geometry": {"type": "Polygon", "coordinates": [[[0,0],[1,0],[1,1],[0,0]]]}},
            {"type": "Feature", "properties": null, "geometry": {"type": "Polygon", "coordinates": [[[0,0],[1,0],[1,1],[0,0]]]}}]}"#;
        assert_eq!(feature_of(src, 0, false), Ok(3));
        assert_eq!(feature_of(src, 1, false), Ok(4));
        assert_eq!(feature_of(src, 0, true), Ok(0));
        assert!(feature_of(src, 2, false).unwrap_err().contains("2 polygon"));
    }
}
