//! WED 2.x projects (`earth.wed.xml`), read as the object graph WED saves, and exported the way
//! WED's DSF exporter would write them (see [`export`]).
//!
//! The file is the XML WED writes with `WED_Thing::ToXML` (xptools
//! `src/WEDEntities/WED_Thing.cpp`): a root `<doc>` holding `<objects>`, one
//! `<object class="WED_…" id="N" parent_id="P">` per persistent object, each with a
//! `<children>` list of `<child id="…"/>` in order, and one element per property group:
//! `<hierarchy name= locked= hidden=/>` (`WED_Thing` name, `WED_Entity` locked/hidden),
//! `<point latitude= longitude= heading=/>` (`WED_GISPoint`, `WED_GISPoint_Heading`),
//! `<autogen_placement height= spelling= resource=/>` (`WED_AutogenPlacement.cpp`),
//! `<autogen_node spawn_tiles=/>` (`WED_AutogenNode.cpp`),
//! `<obj_placement resource= show_level= …/>` (`WED_ObjPlacement.cpp`),
//! `<facade_placement height= pick_walls= resource= show_level=/>` (`WED_FacadePlacement.cpp`),
//! `<forest_placement density= closed= resource=/>` (`WED_ForestPlacement.cpp`; `closed` is the
//! fill mode), `<polygon_placement heading= resource=/>` (`WED_PolygonPlacement.cpp`).
//! A polygon placement's children are its rings (`WED_Ring`, `WED_FacadeRing`,
//! `WED_ForestRing`): the first is the outer ring, the rest are holes (`WED_GISPolygon`); a
//! ring's children are its nodes, in order, without the first repeated at the end.
//!
//! Decisions:
//! - A class agview does not know is kept in the graph (so links through it resolve) as
//!   [`WedData::Unknown`], with a warning naming its line, column and class.
//! - A `<child id>` naming an object that is not in the file is an error diagnostic pushed
//!   into the warnings (located at the parent's `<object>`); [`export`] then skips the
//!   placement that holds it and keeps the rest.
//! - A file cut off mid-element gets a located error from the XML parser's position; what
//!   stands before the last complete `</object>` is still read, and only when nothing can be
//!   read is the error returned.

mod airport;
mod export;
mod windings;

pub use airport::{airports, WedAirportItem};
pub use export::export;
pub use windings::autogen_windings;

use std::collections::HashMap;
use std::path::Path;

/// The file a WED project lives in, at its scenery package's root.
pub const WED_FILE: &str = "earth.wed.xml";

use serde::Serialize;

use crate::diag::Diagnostic;
use crate::lines::{line_col, LineCounter};

/// A WED project: every `<object>` of the file, in file order.
#[derive(Debug, Clone, PartialEq, Serialize, Default)]
pub struct WedProject {
    pub objects: Vec<WedObject>,
    /// Object id → index into `objects`.
    #[serde(skip)]
    pub index: HashMap<u64, usize>,
}

impl WedProject {
    /// The object with this WED id.
    pub fn get(&self, id: u64) -> Option<&WedObject> {
        self.index.get(&id).map(|&i| &self.objects[i])
    }

    /// Objects with no parent (`parent_id="0"`, or a parent not in the file), in file order:
    /// normally the single `WED_Root`.
    pub fn roots(&self) -> impl Iterator<Item = &WedObject> {
        self.objects
            .iter()
            .filter(|o| o.parent_id == 0 || !self.index.contains_key(&o.parent_id))
    }

    /// How many objects have each class, sorted by class name.
    pub fn class_counts(&self) -> Vec<(String, usize)> {
        let mut counts: std::collections::BTreeMap<&str, usize> = Default::default();
        for o in &self.objects {
            *counts.entry(o.class.as_str()).or_default() += 1;
        }
        counts
            .into_iter()
            .map(|(k, v)| (k.to_string(), v))
            .collect()
    }

    /// True when the object or any group or airport above it is hidden: WED's exporter
    /// stops at a hidden entity and writes nothing below it.
    pub fn is_hidden(&self, id: u64) -> bool {
        let mut seen = 0usize;
        let mut cur = self.get(id);
        while let Some(o) = cur {
            if o.hidden {
                return true;
            }
            seen += 1;
            if o.parent_id == 0 || seen > self.objects.len() {
                break;
            }
            cur = self.get(o.parent_id);
        }
        false
    }
}

/// One `<object class= id= parent_id=>` of a WED project.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct WedObject {
    pub id: u64,
    /// The C++ class WED saved, e.g. `WED_AutogenPlacement`.
    pub class: String,
    /// 0 for the root.
    pub parent_id: u64,
    /// `<children><child id=/>…`, in order.
    pub children: Vec<u64>,
    /// `<hierarchy name=>`.
    pub name: String,
    /// `<hierarchy hidden=>`.
    pub hidden: bool,
    /// `<hierarchy locked=>`.
    pub locked: bool,
    /// 1-based position of the `<object>` element.
    pub line: u32,
    pub col: u32,
    pub data: WedData,
}

/// What an object is, with the properties agview uses.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum WedData {
    /// `WED_Root`, `WED_Select`, `WED_KeyObjects`: the document's bookkeeping.
    Root,
    /// `WED_Group` (the "world" and the user's folders): the exporter recurses into it.
    Group,
    /// `WED_Airport`: the exporter recurses into it too (under the airport's ICAO filter).
    Airport { icao: String },
    /// `WED_Ring`, `WED_FacadeRing`, `WED_ForestRing`: a ring of nodes.
    Ring,
    /// `WED_AutogenPlacement` (`autogen_placement`): an `.agb` or `.ags` polygon.
    AutogenPlacement {
        /// Meters.
        height: f64,
        /// The spelling set (AGB only).
        spelling: i64,
        resource: String,
    },
    /// `WED_AutogenNode`: a vertex of an autogen ring; `spawn_tiles` says whether the side
    /// that starts at it spawns tiles (default true).
    AutogenNode {
        lon: f64,
        lat: f64,
        spawn_tiles: bool,
    },
    /// Any other vertex (`WED_SimpleBoundaryNode`, `WED_FacadeNode`, `WED_TextureNode`, …);
    /// a texture node carries its texture coordinates (`texture_node s= t=`).
    Node {
        lon: f64,
        lat: f64,
        st: Option<[f32; 2]>,
        /// A bezier node's handles (`ctrl_longitude_lo` … as saved, deltas in degrees from
        /// the node; a zero delta is no handle), made absolute.
        lo: Option<[f64; 2]>,
        hi: Option<[f64; 2]>,
    },
    /// `WED_ObjPlacement` (`obj_placement`): an `.obj` or `.agp` at a point.
    ObjPlacement {
        lon: f64,
        lat: f64,
        /// Degrees clockwise from north, as saved.
        heading: f64,
        resource: String,
        /// `show_level` as saved.
        show_level: String,
    },
    /// `WED_FacadePlacement` (`facade_placement`).
    FacadePlacement {
        /// Meters.
        height: f64,
        pick_walls: bool,
        resource: String,
    },
    /// `WED_ForestPlacement` (`forest_placement`).
    ForestPlacement {
        /// 0..1.
        density: f64,
        /// 0 area, 1 line, 2 points (`closed`, the `ForestFill` enum).
        fill_mode: u32,
        resource: String,
    },
    /// `WED_PolygonPlacement` (`polygon_placement`): a draped `.pol`.
    PolygonPlacement { heading: f64, resource: String },
    /// `WED_StringPlacement` (`string_placement`): an object string along its nodes (its
    /// children, in order).
    StringPlacement {
        closed: bool,
        /// Meters between objects.
        spacing: f64,
        resource: String,
    },
    /// `WED_LinePlacement` (`line_placement`): a painted line along its nodes.
    LinePlacement { closed: bool, resource: String },
    /// `WED_DrapedOrthophoto` (`draped_orthophoto`): a `.pol` or an image pinned by its
    /// texture nodes' coordinates.
    DrapedOrthophoto { resource: String },
    /// `WED_Runway`: `<line width>` and `<runway …>`; its two ends are its children
    /// (`WED_RunwayNode`, read as [`WedData::Node`]), its numbers its name (`13/31`).
    /// Surfaces are WED's descriptions (`Asphalt L`), as saved.
    Runway {
        width: f64,
        surface: String,
        shoulder: String,
        shoulder_width: f64,
        displaced: [f64; 2],
        blastpad: [f64; 2],
    },
    /// `WED_Helipad`: its centre, heading, width and length in `<point>`, `<helipad surface>`.
    Helipad {
        lon: f64,
        lat: f64,
        heading: f64,
        width: f64,
        length: f64,
        surface: String,
    },
    /// `WED_Taxiway`: `<taxiway surface heading>`; its rings are its children
    /// (`WED_AirportChain`), the first the boundary, the rest holes.
    Taxiway { surface: String, heading: f64 },
    /// `WED_AirportChain`: `<airport_chain closed>`; its nodes are its children. A chain
    /// on its own (not a taxiway's ring) is a painted marking line (apt.dat 120).
    AirportChain { closed: bool },
    /// `WED_AirportNode`: a node of an airport chain, its bezier handles made absolute as
    /// for [`WedData::Node`], and its `<markings><marking value>` (WED's descriptions of
    /// the line and light types of the side starting at it).
    AirportNode {
        lon: f64,
        lat: f64,
        lo: Option<[f64; 2]>,
        hi: Option<[f64; 2]>,
        markings: Vec<String>,
    },
    /// `WED_RoadEdge` (ROADS.md §4): `<road_edge layer= end_layer= sub_type= resource=>`;
    /// its ends are its two `<sources>` (`WED_RoadNode`s, read as [`WedData::Node`]), its
    /// interior shape points its children (bezier nodes), and `<edge ctrl_…_lo/hi>` its
    /// own handles at the start and the end (deltas in degrees from those ends).
    RoadEdge {
        /// The start and end levels as saved (0 on the ground).
        layers: [f64; 2],
        /// The road subtype (default 1).
        subtype: f64,
        /// The network definition (`.net`).
        resource: String,
        /// The `<sources>`: start node, end node.
        sources: Vec<u64>,
        /// The start's handle and the end's, as deltas (lon, lat) from those nodes.
        ctrl: [[f64; 2]; 2],
    },
    /// A WED class agview knows but does not export (strings of lights, exclusions, …).
    Other,
    /// A class agview does not know.
    Unknown,
}

/// One feature as WED's DSF exporter would write it: see [`export`].
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct WedFeature {
    /// The placement's WED id.
    pub id: u64,
    /// Its hierarchy name.
    pub name: String,
    /// The asset path as WED writes it into the DSF definition table.
    pub resource: String,
    /// The DSF parameter exactly as `WED_DSFExport.cpp` computes it (objects: 0).
    pub param: u32,
    /// (lon, lat), exactly the windings WED writes, in order; empty for points. For a
    /// facade, the windings of an area (WED's export of a facade with a roof).
    pub windings: Vec<Vec<[f64; 2]>>,
    /// A facade's rings in node order, as WED writes a facade whose `.fac` makes it a ring
    /// or a chain ([`crate::format::facade::FacadeTopology`]); which one applies is decided
    /// once the `.fac` is found. `None` for everything else.
    pub node_order: Option<Vec<Vec<[f64; 2]>>>,
    /// A draped orthophoto (`WED_DrapedOrthophoto`): each point's texture coordinates
    /// (s, t), parallel to `windings`. `None` for everything else.
    pub st: Option<Vec<Vec<[f32; 2]>>>,
    /// Curved rings or chains: each point's control as a DSF writes it, parallel to
    /// `windings` (split nodes as runs of equal points). `None` when straight.
    pub ctrl: Option<Vec<Vec<[f64; 2]>>>,
    /// lon, lat, heading for object placements (`.obj`, `.agp`).
    pub point: Option<[f64; 3]>,
    /// A road edge (`WED_RoadEdge`): the segment WED's exporter writes for it, in DSF
    /// form (its `def` is 0: `resource` names the network; its junction ids are the
    /// `WED_RoadNode`s' WED ids). `None` for everything else.
    pub segment: Option<crate::format::dsf::DsfSegment>,
    /// Where the placement's `<object>` element is.
    pub line: u32,
    pub col: u32,
}

/// WED classes that hold nothing agview exports and need no warning.
const OTHER_CLASSES: &[&str] = &[
    "WED_ATCFlow",
    "WED_ATCFrequency",
    "WED_ATCRunwayUse",
    "WED_ATCTimeRule",
    "WED_ATCWindRule",
    "WED_AirportBeacon",
    "WED_AirportBoundary",
    "WED_AirportSign",
    "WED_DemPlacement",
    "WED_DrapedOrthophotoBoundary",
    "WED_ExclusionPoly",
    "WED_ExclusionZone",
    "WED_FacadePreview",
    "WED_GISBoundingBox",
    "WED_LightFixture",
    "WED_OverlayImage",
    "WED_RampPosition",
    "WED_Sealane",
    "WED_ShapeNode",
    "WED_ShapePlacement",
    "WED_TaxiRoute",
    "WED_TaxiRouteNode",
    "WED_TerPlacement",
    "WED_TowerViewpoint",
    "WED_TruckDestination",
    "WED_TruckParkingLocation",
    "WED_Windsock",
];

/// Reads a WED project. Warnings (unknown classes, dangling links, a cut-off file that could
/// still be partly read) go into `warnings`; the error is returned only when nothing can be
/// read.
pub fn parse(
    path: &Path,
    bytes: &[u8],
    warnings: &mut Vec<Diagnostic>,
) -> Result<WedProject, Diagnostic> {
    // roxmltree ends lines at `\n` alone; a bare `\r` made a `\n` (XML reads either as one
    // anyway) keeps its positions on the lines agview counts.
    let relined = crate::lines::bare_cr_as_lf(bytes);
    let bytes: &[u8] = &relined;
    let text = std::str::from_utf8(bytes).map_err(|e| {
        let (line, col) = line_col(bytes, e.valid_up_to());
        Diagnostic::error_at(path, line, col, "not UTF-8 text")
    })?;
    let doc = match roxmltree::Document::parse(text) {
        Ok(doc) => doc,
        Err(e) => {
            let mut err = match e {
                // roxmltree places an unexpected end at 1:1; it is at the end.
                roxmltree::Error::UnexpectedEndOfStream => {
                    let (line, col) = line_col(bytes, bytes.len());
                    Diagnostic::error_at(
                        path,
                        line,
                        col,
                        "the file ends inside an element: it was cut off (WED did not finish saving?)",
                    )
                }
                _ => {
                    let pos = e.pos();
                    Diagnostic::error_at(path, pos.row, pos.col, format!("{e}"))
                }
            };
            // A file cut off mid-element: keep the objects before the last complete one.
            let Some(cut) = text.rfind("</object>") else {
                return Err(err);
            };
            let repaired = format!("{}</objects></doc>", &text[..cut + "</object>".len()]);
            // Children named before the cut whose objects came after it are the cut's
            // doing: counted in its message, not reported one by one.
            let mut said = Vec::new();
            let project = match roxmltree::Document::parse(&repaired) {
                Ok(doc) => read_doc(path, &doc, &mut said),
                Err(_) => return Err(err),
            };
            let lost = said
                .iter()
                .filter(|d| d.message.contains("which is not in the file"))
                .count();
            if lost > 0 {
                err.message = format!(
                    "{}; {lost} object(s) named before the cut are lost, what came before is shown",
                    err.message
                );
            }
            match project {
                Ok(p) if !p.objects.is_empty() => {
                    warnings.push(err);
                    warnings.extend(
                        said.into_iter()
                            .filter(|d| !d.message.contains("which is not in the file")),
                    );
                    return Ok(p);
                }
                _ => return Err(err),
            }
        }
    };
    read_doc(path, &doc, warnings)
}

/// Lines and columns (1-based, columns in characters, as roxmltree counts them) of byte
/// positions asked for in increasing order.
struct LineCursor<'t> {
    text: &'t str,
    at: usize,
    counter: LineCounter,
}

impl<'t> LineCursor<'t> {
    fn new(text: &'t str) -> Self {
        LineCursor {
            text,
            at: 0,
            counter: LineCounter::new(),
        }
    }

    fn at(&mut self, byte: usize) -> (u32, u32) {
        let byte = byte.min(self.text.len());
        if byte < self.at {
            // Out of order: start again from the top.
            *self = LineCursor::new(self.text);
        }
        self.counter.advance(&self.text.as_bytes()[self.at..byte]);
        self.at = byte;
        self.counter.position()
    }
}

fn read_doc(
    path: &Path,
    doc: &roxmltree::Document,
    warnings: &mut Vec<Diagnostic>,
) -> Result<WedProject, Diagnostic> {
    // Line and column of each object, counted forward from the last one: objects come in
    // document order, and roxmltree's `text_pos_at` scans from the start every time (a
    // 4 MB project took seconds).
    let mut cursor = LineCursor::new(doc.input_text());
    let mut pos = |n: roxmltree::Node| cursor.at(n.range().start);
    let root = doc.root_element();
    if root.tag_name().name() != "doc" {
        let (l, c) = pos(root);
        return Err(Diagnostic::error_at(
            path,
            l,
            c,
            format!(
                "not a WED project: the root element is <{}>, not <doc>",
                root.tag_name().name()
            ),
        ));
    }
    let mut project = WedProject::default();
    let objects = root
        .children()
        .filter(|n| n.is_element() && n.tag_name().name() == "objects");
    for list in objects {
        for node in list
            .children()
            .filter(|n| n.is_element() && n.tag_name().name() == "object")
        {
            let (line, col) = pos(node);
            let class = node.attribute("class").unwrap_or("").to_string();
            let id = match node
                .attribute("id")
                .and_then(|s| s.trim().parse::<u64>().ok())
            {
                Some(id) => id,
                None => {
                    warnings.push(Diagnostic::error_at(
                        path,
                        line,
                        col,
                        format!("<object class=\"{class}\"> has no numeric id: skipped"),
                    ));
                    continue;
                }
            };
            if project.index.contains_key(&id) {
                warnings.push(Diagnostic::error_at(
                    path,
                    line,
                    col,
                    format!("a second object with id {id}: skipped"),
                ));
                continue;
            }
            let parent_id = node
                .attribute("parent_id")
                .and_then(|s| s.trim().parse::<u64>().ok())
                .unwrap_or(0);
            let obj = read_object(path, node, id, class, parent_id, line, col, warnings);
            project.index.insert(id, project.objects.len());
            project.objects.push(obj);
        }
    }
    check_links(path, &project, warnings);
    Ok(project)
}

/// The first child element with this tag name.
fn elem<'a, 'i>(node: roxmltree::Node<'a, 'i>, tag: &str) -> Option<roxmltree::Node<'a, 'i>> {
    node.children()
        .find(|n| n.is_element() && n.tag_name().name() == tag)
}

#[allow(clippy::too_many_arguments)]
fn read_object(
    path: &Path,
    node: roxmltree::Node,
    id: u64,
    class: String,
    parent_id: u64,
    line: u32,
    col: u32,
    warnings: &mut Vec<Diagnostic>,
) -> WedObject {
    let children = elem(node, "children")
        .map(|c| {
            c.children()
                .filter(|n| n.is_element() && n.tag_name().name() == "child")
                .filter_map(|n| n.attribute("id").and_then(|s| s.trim().parse().ok()))
                .collect()
        })
        .unwrap_or_default();
    let hierarchy = elem(node, "hierarchy");
    let name = hierarchy
        .and_then(|h| h.attribute("name"))
        .unwrap_or("")
        .to_string();
    let flag = |a: &str| hierarchy.and_then(|h| h.attribute(a)).is_some_and(truthy);

    // Attributes are read leniently: a missing or unreadable number takes WED's default.
    let mut bad: Vec<String> = Vec::new();
    let mut num = |el: Option<roxmltree::Node>, attr: &str, default: f64| -> f64 {
        match el.and_then(|e| e.attribute(attr)) {
            None => default,
            Some(s) => match s.trim().parse::<f64>() {
                Ok(v) if v.is_finite() => v,
                _ => {
                    bad.push(format!("{attr}=\"{s}\""));
                    default
                }
            },
        }
    };
    let string = |el: Option<roxmltree::Node>, attr: &str| -> String {
        el.and_then(|e| e.attribute(attr)).unwrap_or("").to_string()
    };
    let point = elem(node, "point");

    let data = match class.as_str() {
        "WED_Root" | "WED_Select" | "WED_KeyObjects" => WedData::Root,
        "WED_Group" => WedData::Group,
        "WED_Airport" => WedData::Airport {
            icao: string(elem(node, "airport"), "icao"),
        },
        "WED_Ring" | "WED_FacadeRing" | "WED_ForestRing" => WedData::Ring,
        "WED_AutogenPlacement" => {
            let el = elem(node, "autogen_placement");
            WedData::AutogenPlacement {
                height: num(el, "height", 10.0),
                spelling: num(el, "spelling", 0.0) as i64,
                resource: string(el, "resource"),
            }
        }
        "WED_AutogenNode" => {
            let el = elem(node, "autogen_node");
            WedData::AutogenNode {
                lon: num(point, "longitude", 0.0),
                lat: num(point, "latitude", 0.0),
                spawn_tiles: el
                    .and_then(|e| e.attribute("spawn_tiles"))
                    .is_none_or(truthy),
            }
        }
        "WED_SimpleBoundaryNode"
        | "WED_SimpleBezierBoundaryNode"
        | "WED_FacadeNode"
        | "WED_TextureNode"
        | "WED_TextureBezierNode"
        | "WED_RunwayNode"
        | "WED_RoadNode"
        | "WED_AirportNode" => {
            let (lon, lat) = (num(point, "longitude", 0.0), num(point, "latitude", 0.0));
            let mut handle = |side: &str| {
                let d = [
                    num(point, &format!("ctrl_longitude_{side}"), 0.0),
                    num(point, &format!("ctrl_latitude_{side}"), 0.0),
                ];
                (d != [0.0, 0.0]).then_some([lon + d[0], lat + d[1]])
            };
            let (lo, hi) = (handle("lo"), handle("hi"));
            let st = class.starts_with("WED_Texture").then(|| {
                let tex = elem(node, "texture_node");
                [num(tex, "s", 0.0) as f32, num(tex, "t", 0.0) as f32]
            });
            if class == "WED_AirportNode" {
                let markings = elem(node, "markings")
                    .map(|m| {
                        m.children()
                            .filter(|n| n.is_element() && n.tag_name().name() == "marking")
                            .filter_map(|n| n.attribute("value").map(str::to_string))
                            .collect()
                    })
                    .unwrap_or_default();
                WedData::AirportNode {
                    lon,
                    lat,
                    lo,
                    hi,
                    markings,
                }
            } else {
                WedData::Node {
                    lon,
                    lat,
                    st,
                    lo,
                    hi,
                }
            }
        }
        "WED_ObjPlacement" => {
            let el = elem(node, "obj_placement");
            WedData::ObjPlacement {
                lon: num(point, "longitude", 0.0),
                lat: num(point, "latitude", 0.0),
                heading: num(point, "heading", 0.0),
                resource: string(el, "resource"),
                show_level: string(el, "show_level"),
            }
        }
        "WED_FacadePlacement" => {
            let el = elem(node, "facade_placement");
            WedData::FacadePlacement {
                height: num(el, "height", 10.0),
                pick_walls: el
                    .and_then(|e| e.attribute("pick_walls"))
                    .is_some_and(truthy),
                resource: string(el, "resource"),
            }
        }
        "WED_ForestPlacement" => {
            let el = elem(node, "forest_placement");
            WedData::ForestPlacement {
                density: num(el, "density", 1.0),
                fill_mode: el
                    .and_then(|e| e.attribute("closed"))
                    .map(forest_fill_mode)
                    .unwrap_or(0),
                resource: string(el, "resource"),
            }
        }
        "WED_PolygonPlacement" => {
            let el = elem(node, "polygon_placement");
            WedData::PolygonPlacement {
                heading: num(el, "heading", 0.0),
                resource: string(el, "resource"),
            }
        }
        "WED_StringPlacement" => {
            let el = elem(node, "string_placement");
            WedData::StringPlacement {
                closed: el.and_then(|e| e.attribute("closed")).is_some_and(truthy),
                spacing: num(el, "spacing", 10.0),
                resource: string(el, "resource"),
            }
        }
        "WED_LinePlacement" => {
            let el = elem(node, "line_placement");
            WedData::LinePlacement {
                closed: el.and_then(|e| e.attribute("closed")).is_some_and(truthy),
                resource: string(el, "resource"),
            }
        }
        "WED_Runway" => {
            let el = elem(node, "runway");
            WedData::Runway {
                width: num(elem(node, "line"), "width", 50.0),
                surface: string(el, "surface"),
                shoulder: string(el, "shoulder"),
                shoulder_width: num(el, "shoulder_width", 0.0),
                displaced: [num(el, "displaced1", 0.0), num(el, "displaced2", 0.0)],
                blastpad: [num(el, "blastpad1", 0.0), num(el, "blastpad2", 0.0)],
            }
        }
        "WED_Helipad" => WedData::Helipad {
            lon: num(point, "longitude", 0.0),
            lat: num(point, "latitude", 0.0),
            heading: num(point, "heading", 0.0),
            width: num(point, "width", 1.0),
            length: num(point, "length", 1.0),
            surface: string(elem(node, "helipad"), "surface"),
        },
        "WED_Taxiway" => {
            let el = elem(node, "taxiway");
            WedData::Taxiway {
                surface: string(el, "surface"),
                heading: num(el, "heading", 0.0),
            }
        }
        "WED_AirportChain" => WedData::AirportChain {
            closed: elem(node, "airport_chain")
                .and_then(|e| e.attribute("closed"))
                .is_some_and(truthy),
        },
        "WED_DrapedOrthophoto" => WedData::DrapedOrthophoto {
            resource: string(elem(node, "draped_orthophoto"), "resource"),
        },
        "WED_RoadEdge" => {
            let el = elem(node, "road_edge");
            let edge = elem(node, "edge");
            WedData::RoadEdge {
                layers: [num(el, "layer", 0.0), num(el, "end_layer", 0.0)],
                subtype: num(el, "sub_type", 1.0),
                resource: string(el, "resource"),
                sources: elem(node, "sources")
                    .map(|c| {
                        c.children()
                            .filter(|n| n.is_element() && n.tag_name().name() == "source")
                            .filter_map(|n| n.attribute("id").and_then(|s| s.trim().parse().ok()))
                            .collect()
                    })
                    .unwrap_or_default(),
                ctrl: [
                    [
                        num(edge, "ctrl_longitude_lo", 0.0),
                        num(edge, "ctrl_latitude_lo", 0.0),
                    ],
                    [
                        num(edge, "ctrl_longitude_hi", 0.0),
                        num(edge, "ctrl_latitude_hi", 0.0),
                    ],
                ],
            }
        }
        c if OTHER_CLASSES.contains(&c) => WedData::Other,
        _ => {
            warnings.push(Diagnostic::warning_at(
                path,
                line,
                col,
                format!("unknown WED class \"{class}\" (id {id}): skipped"),
            ));
            WedData::Unknown
        }
    };
    for b in bad {
        warnings.push(Diagnostic::warning_at(
            path,
            line,
            col,
            format!("{class} {id}: {b} is not a number; WED's default used"),
        ));
    }
    WedObject {
        id,
        class,
        parent_id,
        children,
        name,
        hidden: flag("hidden"),
        locked: flag("locked"),
        line,
        col,
        data,
    }
}

fn truthy(s: &str) -> bool {
    let s = s.trim();
    !(s.is_empty() || s == "0" || s.eq_ignore_ascii_case("false"))
}

/// The forest fill mode from the `closed` attribute: a number, or an enum name that says
/// line or points; anything else is area fill (0).
fn forest_fill_mode(s: &str) -> u32 {
    if let Ok(n) = s.trim().parse::<u32>() {
        return n.min(2);
    }
    let l = s.to_ascii_lowercase();
    if l.contains("line") {
        1
    } else if l.contains("point") {
        2
    } else {
        0
    }
}

/// Every `<child id>` must name an object in the file.
fn check_links(path: &Path, project: &WedProject, warnings: &mut Vec<Diagnostic>) {
    for o in &project.objects {
        for &c in &o.children {
            if !project.index.contains_key(&c) {
                warnings.push(Diagnostic::error_at(
                    path,
                    o.line,
                    o.col,
                    format!(
                        "{} {} \"{}\" names child {c}, which is not in the file",
                        o.class, o.id, o.name
                    ),
                ));
            }
        }
    }
}

#[cfg(test)]
mod tests;

#[cfg(test)]
mod cursor_tests {
    use super::LineCursor;

    #[test]
    fn line_cursor_counts_as_roxmltree_does() {
        let xml = "<?xml version=\"1.0\"?>\n<doc>\n  <a/>\n\t<b x=\"é\"/><c/>\n<d>ü</d>\n</doc>\n";
        let doc = roxmltree::Document::parse(xml).unwrap();
        let mut cursor = LineCursor::new(xml);
        let nodes: Vec<_> = doc.descendants().filter(|n| n.is_element()).collect();
        for n in &nodes {
            let p = doc.text_pos_at(n.range().start);
            assert_eq!(
                cursor.at(n.range().start),
                (p.row, p.col),
                "{:?}",
                n.tag_name()
            );
        }
        // Asked out of order, it starts again.
        let first = nodes[1].range().start;
        let p = doc.text_pos_at(first);
        assert_eq!(cursor.at(first), (p.row, p.col));
    }
}
