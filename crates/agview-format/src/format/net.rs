//! Road network definitions (`.net`, ROADS.md §3): the textures, the real road types with
//! their surface rows, and the virtual types a DSF subtype names.
//!
//! STUB: the types are the interface the layout and the renderer build on; the reader is
//! being written (issue 36). Fields may be added; none renamed.

use std::collections::BTreeMap;

/// One `TEXTURE` (or its old-form equivalent): its index is its place in `NetFile::textures`.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct NetTexture {
    /// `poly_os` (XP10+): > 0 for draped rows, 0 for graded ones; the old form's z offset.
    pub poly_os: f32,
    /// As written, relative to the `.net`'s folder.
    pub path: String,
    /// `TEXTURE_LIT` that follows it, if any.
    pub lit: Option<String>,
    /// `TEXTURE_NORMAL` that follows it, if any.
    pub normal: Option<String>,
}

/// One surface row of a road type (`SEGMENT_DRAPED` or `SEGMENT_GRADED`).
#[derive(Debug, Clone, PartialEq, Default)]
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
#[derive(Debug, Clone, PartialEq, Default)]
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
#[derive(Debug, Clone, PartialEq, Default)]
pub struct VirtualRoad {
    pub id: u32,
    pub name: String,
    pub width: Option<f32>,
    /// (height threshold in metres, real type id; 0 = no road), in file order.
    pub choices: Vec<(f32, u32)>,
    pub line: usize,
}

/// A `.net` file as agview reads it.
#[derive(Debug, Clone, PartialEq, Default)]
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
    /// §3.2): at 0, the first choice whose type is not 0, as WED and OverlayEditor
    /// preview it. In the old form the subtype is the real type id.
    pub fn choose(&self, _subtype: u32, _height: f32) -> Choice<'_> {
        Choice::Missing
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

/// The plain profile for `subtype` (ROADS.md §3.2's id table; an unknown subtype at the
/// residential width).
pub fn plain_road(_subtype: u32) -> PlainRoad {
    PlainRoad {
        band: "residential",
        width: 8.0,
        look: PlainLook::Asphalt,
    }
}
