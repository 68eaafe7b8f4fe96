//! A document's features in one form, whatever document they came from: DSF text, binary
//! DSF or a WED project. Each feature names its asset as the document writes it, its DSF
//! parameter, its geometry in degrees, and where it stands in the document (for messages).

use std::path::Path;

use crate::diag::{Diagnostic, Location, Severity};
use crate::format::dsf::DsfText;
use crate::scene::FeatureKind;

/// Where a feature is, in degrees.
#[derive(Debug, Clone, PartialEq)]
pub enum Geometry {
    /// Windings of (longitude, latitude), in document order, as the document writes them.
    Polygon(Vec<Vec<[f64; 2]>>),
    /// A point placement; heading in degrees clockwise from north.
    Point { lon: f64, lat: f64, heading: f64 },
    /// A road segment from junction to junction (ROADS.md §1).
    Road(RoadGeometry),
}

/// A road segment's centreline and its ends, as a document gives them.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct RoadGeometry {
    /// (longitude, latitude) from the start junction to the end junction, curves already
    /// flattened (within 0.1 m); at least two points.
    pub points: Vec<[f64; 2]>,
    /// Each end's level (ROADS.md §1.5): 0 on the ground, above 0 raised, below 0 a
    /// tunnel. A z that was not an integer from 0 to 5 was warned about and read as 0,
    /// except negative integers, kept so that layout counts tunnels.
    pub levels: [i32; 2],
    /// Each end's junction id within its network definition (0 when the document gives
    /// none).
    pub nodes: [u64; 2],
}

/// One feature of a document.
#[derive(Debug, Clone, PartialEq)]
pub struct DocFeature {
    /// `path:line`, `path: polygon N`, `path: object N` or `path: id N "name"`.
    pub source: String,
    /// The definition as the document writes it.
    pub asset: String,
    pub kind: FeatureKind,
    /// The DSF parameter (0 for objects).
    pub param: u32,
    pub geometry: Geometry,
    /// A WED facade's rings in node order, what WED writes when the `.fac` makes it a ring
    /// or a chain (`geometry` then holds the area form); the document stage picks once the
    /// `.fac` is read. `None` for everything else.
    pub facade_node_order: Option<Vec<Vec<[f64; 2]>>>,
    /// An orthophoto (a draped polygon with parameter 65535): each point's normalised
    /// texture coordinates, parallel to the windings. `None` for everything else.
    pub st: Option<Vec<Vec<[f32; 2]>>>,
    /// A curved polygon or chain: each point's control (its outgoing handle, the point
    /// itself for none), parallel to the windings, as a DSF writes it (split nodes as runs
    /// of equal points, GROUND.md §4.2). `None` when straight.
    pub ctrl: Option<Vec<Vec<[f64; 2]>>>,
    /// A curved orthophoto: each point's texture-coordinate control, likewise.
    pub st_ctrl: Option<Vec<Vec<[f32; 2]>>>,
    /// An airport's item from its `apt.dat`. `None` for everything else.
    pub airport: Option<std::sync::Arc<AirportItem>>,
    /// An `apt.dat` jetway (`1500`), drawn parked with the facade `asset` names. `None`
    /// for everything else.
    pub jetway: Option<std::sync::Arc<crate::format::apt::Jetway>>,
    /// Where messages about the feature point.
    pub at: Location,
}

impl DocFeature {
    /// A feature with none of the optional parts (node order, texture coordinates,
    /// controls, airport item, jetway); set those that apply after.
    pub fn new(
        source: String,
        asset: String,
        kind: FeatureKind,
        param: u32,
        geometry: Geometry,
        at: Location,
    ) -> DocFeature {
        DocFeature {
            source,
            asset,
            kind,
            param,
            geometry,
            facade_node_order: None,
            st: None,
            ctrl: None,
            st_ctrl: None,
            airport: None,
            jetway: None,
            at,
        }
    }

    /// The feature's first vertex, or its point: where its own local frame is.
    pub fn origin(&self) -> Option<[f64; 2]> {
        // A WED facade: its first node, whichever form the `.fac` picks (an area's first
        // point may be another node once the ring is turned counter-clockwise).
        if let Some(first) = self.facade_node_order.iter().flatten().flatten().next() {
            return Some(*first);
        }
        match &self.geometry {
            Geometry::Polygon(w) => w.iter().flatten().next().copied(),
            Geometry::Point { lon, lat, .. } => Some([*lon, *lat]),
            Geometry::Road(r) => r.points.first().copied(),
        }
    }

    /// A message about this feature.
    pub fn diag(&self, path: &Path, severity: Severity, message: impl Into<String>) -> Diagnostic {
        Diagnostic::new(severity, path, self.at, message)
    }
}

/// The feature kind of a definition, or a note-worthy extension agview does not draw.
fn kind_of(def: &str) -> Result<FeatureKind, String> {
    FeatureKind::of_path(def).ok_or_else(|| {
        def.rsplit_once('.')
            .map_or_else(|| "(none)".to_string(), |(_, e)| format!(".{e}"))
    })
}

/// Counts features of kinds agview does not draw (draped `.pol`, `.lin`, `.str`, …) and
/// says so once per document.
#[derive(Default)]
pub struct Skipped(std::collections::BTreeMap<String, usize>);

impl Skipped {
    pub fn add(&mut self, ext: String) {
        self.add_n(ext, 1);
    }

    /// `n` skipped of one kind.
    pub(crate) fn add_n(&mut self, kind: String, n: usize) {
        *self.0.entry(kind).or_default() += n;
    }

    /// One note naming each skipped extension and its count, if any were skipped.
    pub fn note(&self, path: &Path) -> Option<Diagnostic> {
        if self.0.is_empty() {
            return None;
        }
        let list: Vec<String> = self.0.iter().map(|(e, n)| format!("{n} {e}")).collect();
        Some(
            Diagnostic::note_file(
                path,
                format!(
                    "{} feature(s) of kinds agview does not draw were skipped",
                    list.join(", ")
                ),
            )
            .with_kind(crate::diag::kind::NOT_DRAWN),
        )
    }
}

/// A DSF object: an `.agp` or `.obj` is a feature; anything else is counted in the note.
fn placed_point(
    out: &mut Vec<DocFeature>,
    skipped: &mut Skipped,
    source: impl FnOnce() -> String,
    def: &str,
    [lon, lat, heading]: [f64; 3],
    at: Location,
) {
    match kind_of(def) {
        Ok(kind @ (FeatureKind::Agp | FeatureKind::Obj)) => out.push(DocFeature::new(
            source(),
            def.to_string(),
            kind,
            0,
            Geometry::Point { lon, lat, heading },
            at,
        )),
        _ => skipped.add(ext_of(def)),
    }
}

/// A DSF polygon: an `.agb`, `.ags`, `.fac`, `.for` or `.pol` is a feature; anything else
/// is counted in the note. `extra` gives the coordinates past longitude and latitude, per
/// winding (what an orthophoto's texture coordinates are read from).
#[allow(clippy::too_many_arguments)]
fn placed_polygon(
    out: &mut Vec<DocFeature>,
    skipped: &mut Skipped,
    source: impl FnOnce() -> String,
    def: &str,
    param: u32,
    windings: impl FnOnce() -> Vec<Vec<[f64; 2]>>,
    extra: impl FnOnce() -> Vec<Vec<f64>>,
    at: Location,
) {
    match kind_of(def) {
        Ok(kind) if kind != FeatureKind::Obj && kind != FeatureKind::Agp => {
            let windings = windings();
            let planes = planes_of(kind, param, &windings, extra);
            out.push(DocFeature {
                st: planes.st,
                ctrl: planes.ctrl,
                st_ctrl: planes.st_ctrl,
                ..DocFeature::new(
                    source(),
                    def.to_string(),
                    kind,
                    param,
                    Geometry::Polygon(windings),
                    at,
                )
            })
        }
        _ => skipped.add(ext_of(def)),
    }
}

/// The DSF parameter of a draped polygon whose points carry their own texture coordinates.
pub(crate) const ORTHOPHOTO: u32 = 65535;

/// What a polygon's planes past longitude and latitude hold (GROUND.md §4.1).
#[derive(Default)]
struct Planes {
    st: Option<Vec<Vec<[f32; 2]>>>,
    ctrl: Option<Vec<Vec<[f64; 2]>>>,
    st_ctrl: Option<Vec<Vec<[f32; 2]>>>,
}

/// Reads the extra planes of a feature: an orthophoto's texture coordinates (4 planes
/// `s t`; 8 planes `clon clat s t cs ct`), and the bezier controls of a curved `.pol`
/// (4 planes, not an orthophoto), `.str` or `.lin` (4), or `.fac` (4, or 5 with a wall
/// type first). Planes that do not fit a winding's points are ignored.
fn planes_of(
    kind: FeatureKind,
    param: u32,
    windings: &[Vec<[f64; 2]>],
    extra: impl FnOnce() -> Vec<Vec<f64>>,
) -> Planes {
    let extra_per = |extra: &[Vec<f64>]| -> Option<usize> {
        let per = windings
            .iter()
            .zip(extra)
            .find(|(w, _)| !w.is_empty())
            .and_then(|(w, e)| e.len().checked_div(w.len()))?;
        let fits = extra.len() == windings.len()
            && windings
                .iter()
                .zip(extra)
                .all(|(w, e)| e.len() == w.len() * per);
        fits.then_some(per)
    };
    let curvable = matches!(kind, FeatureKind::Pol | FeatureKind::Str | FeatureKind::Fac);
    if !curvable {
        return Planes::default();
    }
    let extra = extra();
    let Some(per) = extra_per(&extra) else {
        return Planes::default();
    };
    let pairs = |at: usize| -> Vec<Vec<[f64; 2]>> {
        extra
            .iter()
            .map(|e| e.chunks_exact(per).map(|c| [c[at], c[at + 1]]).collect())
            .collect()
    };
    let f32s = |v: Vec<Vec<[f64; 2]>>| -> Vec<Vec<[f32; 2]>> {
        v.into_iter()
            .map(|w| w.into_iter().map(|p| [p[0] as f32, p[1] as f32]).collect())
            .collect()
    };
    let ortho = kind == FeatureKind::Pol && param == ORTHOPHOTO;
    match (ortho, per, kind) {
        (true, 2, _) => Planes {
            st: Some(f32s(pairs(0))),
            ..Planes::default()
        },
        (true, 6, _) => Planes {
            ctrl: Some(pairs(0)),
            st: Some(f32s(pairs(2))),
            st_ctrl: Some(f32s(pairs(4))),
        },
        (false, 2, _) => Planes {
            ctrl: Some(pairs(0)),
            ..Planes::default()
        },
        (false, 3, FeatureKind::Fac) => Planes {
            ctrl: Some(pairs(1)),
            ..Planes::default()
        },
        _ => Planes::default(),
    }
}

/// The features of a DSF text file, in file order (objects, polygons and road segments by
/// line).
pub(crate) fn from_dsf_text(
    path: &Path,
    dsf: DsfText,
    notes: &mut Vec<Diagnostic>,
) -> Vec<DocFeature> {
    let DsfText {
        object_defs,
        polygon_defs,
        network_defs,
        objects,
        polygons,
        segments,
        ..
    } = dsf;
    let mut out = Vec::with_capacity(objects.len() + polygons.len() + segments.len());
    let mut skipped = Skipped::default();
    let at = |line: u32| Location::Text { line, col: 1 };
    let shown = crate::diag::shown_path(path);
    for o in &objects {
        if let Some(def) = object_defs.get(o.def) {
            let source = || format!("{shown}:{}", o.line);
            let point = [o.lon, o.lat, o.heading];
            placed_point(&mut out, &mut skipped, source, &def.path, point, at(o.line));
        }
    }
    drop(objects);
    for p in polygons {
        if let Some(def) = polygon_defs.get(p.def) {
            let source = || format!("{shown}:{}", p.line);
            let (param, at) = (p.param, at(p.line));
            placed_polygon(
                &mut out,
                &mut skipped,
                source,
                &def.path,
                param,
                || p.windings,
                || p.extra,
                at,
            );
        }
    }
    let mut roads = super::road_reading::RoadReading::default();
    for seg in &segments {
        if let Some(def) = network_defs.get(seg.def) {
            let line = match seg.at {
                Location::Text { line, .. } => line,
                _ => 0,
            };
            let source = || format!("{shown}:{line}");
            out.extend(roads.feature(path, seg, &def.path, source, notes));
        }
    }
    roads.finish(path, notes);
    out.sort_by_key(|f| match f.at {
        Location::Text { line, .. } => line,
        _ => 0,
    });
    notes.extend(skipped.note(path));
    out
}

/// The features of a binary DSF, in stream order: `path: object N`, `path: polygon N` and
/// `path: road N`, N counting placed objects, polygons or road segments from 0 as the
/// commands place them.
pub(crate) fn from_dsf_binary(
    path: &Path,
    dsf: &crate::format::dsf_bin::DsfBinary,
    notes: &mut Vec<Diagnostic>,
) -> Vec<DocFeature> {
    let mut out = Vec::new();
    let mut skipped = Skipped::default();
    for (i, o) in dsf.objects.iter().enumerate() {
        if let Some(def) = dsf.object_defs.get(o.def) {
            let source = || format!("{}: object {i}", crate::diag::shown_path(path));
            let point = [o.lon, o.lat, o.heading];
            let at = Location::Offset(o.offset);
            placed_point(&mut out, &mut skipped, source, def, point, at);
        }
    }
    // Road networks: one feature a segment, junction to junction.
    let mut roads = super::road_reading::RoadReading::default();
    for (i, seg) in dsf.segments.iter().enumerate() {
        if let Some(def) = dsf.network_defs.get(seg.def) {
            let source = || format!("{}: road {i}", crate::diag::shown_path(path));
            out.extend(roads.feature(path, seg, def, source, notes));
        }
    }
    roads.finish(path, notes);
    for (i, p) in dsf.polygons.iter().enumerate() {
        if let Some(def) = dsf.polygon_def_path(p) {
            let source = || format!("{}: polygon {i}", crate::diag::shown_path(path));
            let windings = || dsf.windings(p);
            let extra = || dsf.extra(p);
            let (param, at) = (u32::from(p.param), Location::Offset(p.offset));
            placed_polygon(
                &mut out,
                &mut skipped,
                source,
                def,
                param,
                windings,
                extra,
                at,
            );
        }
    }
    // One command stream: objects and polygons interleave by offset (a range command's
    // features share one offset and keep their order).
    out.sort_by_key(|f| match f.at {
        Location::Offset(o) => o,
        _ => 0,
    });
    notes.extend(skipped.note(path));
    out
}

/// The features of a WED project: what WED's DSF exporter writes, in hierarchy order,
/// each named `path: id N "name"`.
pub(crate) fn from_wed(
    path: &Path,
    placed: &[crate::format::wed::WedFeature],
    notes: &mut Vec<Diagnostic>,
) -> Vec<DocFeature> {
    let mut out = Vec::new();
    let mut skipped = Skipped::default();
    let mut roads = super::road_reading::RoadReading::default();
    for f in placed {
        let source = || {
            format!(
                "{}: id {} \"{}\"",
                crate::diag::shown_path(path),
                f.id,
                f.name
            )
        };
        if let Some(seg) = &f.segment {
            out.extend(roads.feature(path, seg, &f.resource, source, notes));
            continue;
        }
        // An orthophoto may name its image rather than a `.pol`.
        let kind = match f.st {
            Some(_) => Ok(FeatureKind::Pol),
            None => kind_of(&f.resource),
        };
        let Ok(kind) = kind else {
            skipped.add(ext_of(&f.resource));
            continue;
        };
        let geometry = match f.point {
            Some([lon, lat, heading]) => Geometry::Point { lon, lat, heading },
            None => Geometry::Polygon(f.windings.clone()),
        };
        out.push(DocFeature {
            source: source(),
            asset: f.resource.clone(),
            kind,
            param: f.param,
            geometry,
            facade_node_order: f.node_order.clone(),
            st: f.st.clone(),
            ctrl: f.ctrl.clone(),
            st_ctrl: None,
            airport: None,
            jetway: None,
            at: Location::Text {
                line: f.line,
                col: f.col,
            },
        });
    }
    roads.finish(path, notes);
    notes.extend(skipped.note(path));
    out
}

/// An airport item of an `apt.dat`, with the file it is in.
#[derive(Debug, Clone, PartialEq)]
pub struct AirportItem {
    pub file: std::path::PathBuf,
    pub what: AptItem,
    /// Its place among the airport's items of its kind, in file order.
    pub order: u32,
}

pub use crate::format::apt::AptItem;

/// The drawn items of an `apt.dat`'s airports, each a feature `path:line` (apt.dat is
/// latitude first; the features are longitude first like every other). With `tile`
/// (`[west, south]` of a DSF's 1° tile), only the airports whose first item lies in it.
/// Each jetway is a facade feature ([`super::jetway`]); what finding its facade says goes
/// to `diags`.
pub(crate) fn from_apt(
    path: &Path,
    apt: &crate::format::apt::AptFile,
    tile: Option<[f64; 2]>,
    diags: &mut Vec<Diagnostic>,
) -> Vec<DocFeature> {
    let mut out = Vec::new();
    for a in &apt.airports {
        let items: Vec<AptItem> = a
            .runways
            .iter()
            .cloned()
            .map(AptItem::Runway)
            .chain(a.helipads.iter().cloned().map(AptItem::Helipad))
            .chain(a.pavements.iter().cloned().map(AptItem::Pavement))
            .chain(a.markings.iter().cloned().map(AptItem::Marking))
            .collect();
        let inside = |p: [f64; 2]| {
            tile.is_none_or(|[w, s]| p[0] >= w && p[0] < w + 1.0 && p[1] >= s && p[1] < s + 1.0)
        };
        let first = items
            .iter()
            .find_map(first_point)
            .or_else(|| a.jetways.first().map(|j| [j.lon, j.lat]));
        if first.is_none_or(|p| !inside(p)) {
            continue;
        }
        let mut orders = Orders::default();
        for what in items {
            let line = item_line(&what);
            let source = format!("{}:{line}", crate::diag::shown_path(path));
            out.extend(airport_feature(
                path,
                source,
                &a.icao,
                what,
                line,
                1,
                &mut orders,
            ));
        }
        for j in &a.jetways {
            let Some(asset) = super::jetway::facade_of(j, path, diags) else {
                continue;
            };
            out.push(DocFeature {
                source: format!("{}:{}", crate::diag::shown_path(path), j.line),
                asset,
                kind: FeatureKind::Fac,
                param: super::jetway::JETWAY_HEIGHT_M,
                geometry: Geometry::Point {
                    lon: j.lon,
                    lat: j.lat,
                    heading: j.install_heading,
                },
                facade_node_order: None,
                st: None,
                ctrl: None,
                st_ctrl: None,
                airport: None,
                jetway: Some(std::sync::Arc::new(j.clone())),
                at: Location::Text {
                    line: j.line,
                    col: 1,
                },
            });
        }
    }
    out
}

/// The airport items of a WED project (`format::wed::airports`), each a feature
/// `path: id N "name"` like the project's placements.
pub(crate) fn from_wed_airports(
    path: &Path,
    items: &[crate::format::wed::WedAirportItem],
) -> Vec<DocFeature> {
    let mut orders: std::collections::HashMap<&str, Orders> = Default::default();
    items
        .iter()
        .filter_map(|it| {
            let source = format!(
                "{}: id {} \"{}\"",
                crate::diag::shown_path(path),
                it.id,
                it.name
            );
            let o = orders.entry(it.icao.as_str()).or_default();
            airport_feature(path, source, &it.icao, it.item.clone(), it.line, it.col, o)
        })
        .collect()
}

/// Each airport item's place among its airport's items of its kind (runways and helipads
/// count together), in file order: its layer within its group.
#[derive(Default)]
struct Orders {
    runways: u32,
    pavements: u32,
    markings: u32,
}

/// Where an airport item's first point is (longitude, latitude).
fn first_point(what: &AptItem) -> Option<[f64; 2]> {
    match what {
        AptItem::Runway(r) => Some([r.ends[0].lon, r.ends[0].lat]),
        AptItem::Helipad(h) => Some([h.lon, h.lat]),
        AptItem::Pavement(pv) => pv
            .rings
            .first()
            .and_then(|r| r.nodes.first())
            .map(|n| [n.lon, n.lat]),
        AptItem::Marking(m) => m.nodes.first().map(|n| [n.lon, n.lat]),
    }
}

fn item_line(what: &AptItem) -> u32 {
    match what {
        AptItem::Runway(r) => r.line,
        AptItem::Helipad(h) => h.line,
        AptItem::Pavement(p) => p.line,
        AptItem::Marking(m) => m.line,
    }
}

/// One airport item as a document feature; `None` for one without a point.
fn airport_feature(
    path: &Path,
    source: String,
    icao: &str,
    what: AptItem,
    line: u32,
    col: u32,
    orders: &mut Orders,
) -> Option<DocFeature> {
    let p = first_point(&what)?;
    let next = |n: &mut u32| {
        *n += 1;
        *n - 1
    };
    let (kind, order) = match &what {
        AptItem::Runway(_) => (FeatureKind::Runway, next(&mut orders.runways)),
        AptItem::Helipad(_) => (FeatureKind::Helipad, next(&mut orders.runways)),
        AptItem::Pavement(_) => (FeatureKind::Pavement, next(&mut orders.pavements)),
        AptItem::Marking(_) => (FeatureKind::Marking, next(&mut orders.markings)),
    };
    let geometry = match &what {
        AptItem::Pavement(pv) => Geometry::Polygon(
            pv.rings
                .iter()
                .map(|r| r.nodes.iter().map(|n| [n.lon, n.lat]).collect())
                .collect(),
        ),
        AptItem::Marking(m) => {
            Geometry::Polygon(vec![m.nodes.iter().map(|n| [n.lon, n.lat]).collect()])
        }
        _ => Geometry::Point {
            lon: p[0],
            lat: p[1],
            heading: 0.0,
        },
    };
    Some(DocFeature {
        source,
        asset: format!("{icao} {}", kind.name()).trim().to_string(),
        kind,
        param: 0,
        geometry,
        facade_node_order: None,
        st: None,
        ctrl: None,
        st_ctrl: None,
        jetway: None,
        airport: Some(std::sync::Arc::new(AirportItem {
            file: path.to_path_buf(),
            what,
            order,
        })),
        at: Location::Text { line, col },
    })
}

/// The extension of a definition path, with its dot, for notes.
pub(crate) fn ext_of(def: &str) -> String {
    Path::new(def).extension().map_or_else(
        || "(no extension)".into(),
        |e| format!(".{}", e.to_string_lossy()),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dsf_text_features_in_line_order_with_a_note_for_the_rest() {
        let src = "I\n800\nDSF2TEXT\nOBJECT_DEF a.agp\nOBJECT_DEF k.obj\nPOLYGON_DEF b.agb\n\
                   POLYGON_DEF d.bch\n\
                   BEGIN_POLYGON 0 770 2\nBEGIN_WINDING\nPOLYGON_POINT 8 47\n\
                   POLYGON_POINT 8.001 47\nPOLYGON_POINT 8.001 47.001\nEND_WINDING\nEND_POLYGON\n\
                   BEGIN_POLYGON 1 0 2\nBEGIN_WINDING\nPOLYGON_POINT 8 47\n\
                   POLYGON_POINT 8.001 47\nPOLYGON_POINT 8.001 47.001\nEND_WINDING\nEND_POLYGON\n\
                   OBJECT 0 8 47 90\nOBJECT 1 8.1 47.1 0\n";
        let path = Path::new("d.txt");
        let dsf = crate::format::dsf::parse(path, src.as_bytes(), &mut Vec::new()).unwrap();
        let mut notes = Vec::new();
        let f = from_dsf_text(path, dsf, &mut notes);
        let kinds: Vec<FeatureKind> = f.iter().map(|f| f.kind).collect();
        assert_eq!(
            kinds,
            vec![FeatureKind::Agb, FeatureKind::Agp, FeatureKind::Obj]
        );
        assert_eq!(f[0].source, "d.txt:8");
        assert_eq!(f[0].param, 770);
        assert_eq!(f[0].origin(), Some([8.0, 47.0]));
        assert_eq!(notes.len(), 1);
        assert!(notes[0].message.contains("1 .bch"), "{}", notes[0]);
    }

    #[test]
    fn draped_polygons_are_features_and_orthophotos_keep_their_coordinates() {
        let src = "I\n800\nDSF2TEXT\nPOLYGON_DEF tiled.pol\nPOLYGON_DEF photo.pol\n\
                   BEGIN_POLYGON 0 10830 2\nBEGIN_WINDING\nPOLYGON_POINT 8 47\n\
                   POLYGON_POINT 8.001 47\nPOLYGON_POINT 8.001 47.001\nEND_WINDING\nEND_POLYGON\n\
                   BEGIN_POLYGON 1 65535 4\nBEGIN_WINDING\nPOLYGON_POINT 8 47 0 0\n\
                   POLYGON_POINT 8.001 47 1 0\nPOLYGON_POINT 8.001 47.001 1 1\nEND_WINDING\nEND_POLYGON\n\
                   BEGIN_POLYGON 1 65535 8\nBEGIN_WINDING\n\
                   POLYGON_POINT 8 47 8 47 0.25 0.5 0.25 0.5\n\
                   POLYGON_POINT 8.001 47 8.001 47 0.75 0.5 0.75 0.5\n\
                   POLYGON_POINT 8.001 47.001 8.001 47.001 0.75 1 0.75 1\n\
                   END_WINDING\nEND_POLYGON\n";
        let path = Path::new("d.txt");
        let dsf = crate::format::dsf::parse(path, src.as_bytes(), &mut Vec::new()).unwrap();
        let mut notes = Vec::new();
        let f = from_dsf_text(path, dsf, &mut notes);
        assert!(notes.is_empty(), "{notes:?}");
        assert!(f.iter().all(|f| f.kind == FeatureKind::Pol));
        assert_eq!(f[0].param, 30 + 360 * 30, "30.234375 degrees, encoded");
        assert!(f[0].st.is_none());
        assert_eq!(
            f[1].st.as_deref(),
            Some(&[vec![[0.0, 0.0], [1.0, 0.0], [1.0, 1.0]]][..])
        );
        assert_eq!(
            f[2].st.as_deref(),
            Some(&[vec![[0.25, 0.5], [0.75, 0.5], [0.75, 1.0]]][..])
        );
    }
}
