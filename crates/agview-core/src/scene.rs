//! The `Scene`: the single contract between layout and render.
//!
//! Plain data, no GPU types, serialisable as the `agview layout --json` dump
//! (`docs/layout-json.md` documents it field by field). Coordinates are meters in a local
//! frame: `x` east, `y` north, on the ground plane; heights are meters above the terrain or
//! the ground point as each field says. Headings are degrees clockwise from north.
//!
//! The scene names the art it uses (object meshes, facades, forests, the tile texture) by
//! index into its reference lists; the art itself (meshes, images) is loaded by the art
//! stage above and handed to the renderer beside the scene. This file imports nothing of
//! the crate but its diagnostics and the season: every other stage may use it.

use serde::Serialize;

use crate::diag::Messages;
use crate::season::Season;

/// `TILE_LOD` when an asset gives none: 20 km.
pub const DEFAULT_TILE_LOD: f32 = 20_000.0;

fn is_zero(v: &u32) -> bool {
    *v == 0
}

/// What kind of asset produced the scene.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum SceneKind {
    #[default]
    Agp,
    Agb,
    Ags,
    Agn,
    /// Several assets together: a DSF, text or binary.
    Dsf,
    /// Several assets together: a WED project (`earth.wed.xml`).
    Wed,
    /// One object, facade or forest opened alone (`.obj`, `.fac`, `.for`), laid out as a
    /// document of that one feature.
    Art,
}

/// A laid-out asset, ready to draw.
#[derive(Debug, Clone, Serialize, Default)]
pub struct Scene {
    pub kind: SceneKind,
    /// The asset file the scene was laid out from.
    pub asset: String,
    /// The seed the layout used.
    pub seed: u64,
    /// The season library paths were resolved in (`--season`; `spr`, `sum`, `fal`, `win`):
    /// each feature's resolved file is that season's.
    pub season: Season,
    /// The polygon the asset was laid out on: outer contour first (counter-clockwise), then
    /// holes (clockwise). For an AGP, the tile's footprint.
    pub polygon: Vec<Vec<[f32; 2]>>,
    /// Geographic placement of the local frame, when the input was geographic.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub geo: Option<GeoFrame>,
    /// X-Plane's `Resources/lights.txt` when an install is known (`--xplane`,
    /// `XPLANE_ROOT`): where named lights take their look from.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub lights_txt: Option<String>,
    /// The base tile texture, when the asset has one and does not hide its tiles.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tile_texture: Option<TileTexture>,
    /// Distance in meters at which tiles fade out (`TILE_LOD`, default 20 km).
    pub tile_lod: f32,
    /// `LAYER_GROUP` of the tiles.
    pub layer_group: LayerGroup,
    /// True when the asset says `HIDE_TILES` / `HIDE_TILE`: tiles are laid out (their
    /// annotations need them) but not drawn.
    pub hide_tiles: bool,
    pub tiles: Vec<Tile>,
    /// AGB: runs of adjacent tiles that can be drawn as one quad (see [`TileRun`]).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub runs: Vec<TileRun>,
    /// Object meshes referenced by `objects[].mesh`, in the asset's `OBJECT` order.
    pub meshes: Vec<ArtRef>,
    /// Facade definitions referenced by `facades[].facade`, in `FACADE` order.
    pub facade_defs: Vec<ArtRef>,
    /// AGN: roof images that replace a facade definition's roof: `(index into facade_defs,
    /// image path)` (a `GBLR` roof GUID that `--guid-map` maps to an image).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub facade_roofs: Vec<(usize, String)>,
    /// The forest (`VEGETATION`) trees come from.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub forest: Option<ArtRef>,
    /// Documents: the other forests their features use; a tree whose `forest` is k > 0
    /// comes from `more_forests[k - 1]`.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub more_forests: Vec<ArtRef>,
    /// Draped polygon definitions (`.pol`, or an orthophoto's image) named by
    /// `draped[].def`.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub pol_defs: Vec<ArtRef>,
    pub objects: Vec<ObjectInstance>,
    pub facades: Vec<FacadeInstance>,
    pub trees: Vec<TreeInstance>,
    /// Draped polygons: textured ground laid on the terrain (`.pol`, orthophotos).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub draped: Vec<DrapedPolygon>,
    /// Painted line definitions (`.lin`) named by `lines[].def`.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub lin_defs: Vec<ArtRef>,
    /// Painted lines (`.lin`) laid on the terrain.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub lines: Vec<PaintedLine>,
    /// How roads draw: one entry per (network, real road type) used, or per plain-profile
    /// band, named by `roads[].look`.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub road_looks: Vec<RoadLook>,
    /// Road segments, junction to junction (ROADS.md §1).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub roads: Vec<RoadSegment>,
    /// Road segments and metres by road type: one entry per look used, in `road_looks`'
    /// order (filled by [`Scene::update_road_stats`]).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub road_stats: Vec<RoadTypeStats>,
    /// AGB: which spelling set, grid and spellings were chosen.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub choice: Option<BlockChoice>,
    /// AGS: for each contour of `polygon`, whether the edge leaving each vertex spawns tiles
    /// (empty for a contour of another feature in a document).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub spawn: Vec<Vec<bool>>,
    /// AGS: the corners found on the contours.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub corners: Vec<CornerMark>,
    /// AGS: stop points of placed tiles, in meters.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub stop_points: Vec<[f32; 2]>,
    /// AGN: library objects drawn as boxes.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub library_objects: Vec<LibraryObject>,
    /// AGN: the roof types of the generic buildings, in file order.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub roof_types: Vec<RoofType>,
    /// AGN: vegetation areas (their trees are in `trees`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub vegetation: Vec<VegetationArea>,
    /// Debug overlays.
    pub debug: DebugMarks,
    /// Statistics a person reviewing the layout wants to see.
    pub stats: SceneStats,
    /// Messages from the layout (`path:line:col: warning: …` where a line is known). A
    /// document also lists here every feature it had to skip, as an error. The JSON writes
    /// them twice: `warnings`, the printed lines, and `diagnostics`, the same as objects.
    #[serde(flatten)]
    pub warnings: Messages,
    /// A document (DSF or WED): one entry per feature, in document order. Tiles, objects,
    /// facades and trees name theirs by index (`feature`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub features: Vec<FeatureInfo>,
}

/// What a document feature is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum FeatureKind {
    Agp,
    Agb,
    Ags,
    /// A plain OBJ8 object placed by hand.
    Obj,
    /// A facade polygon (the parameter is its height in meters).
    Fac,
    /// A forest polygon (the parameter is its density, 0–255).
    For,
    /// A draped polygon or orthophoto (the parameter is the texture's heading, or 65535
    /// for an orthophoto's own texture coordinates).
    Pol,
    /// An object string (the parameter is the spacing: whole meters, or 10,000 + 128 ×
    /// meters for a fractional spacing).
    Str,
    /// A painted line (the parameter is 1 for a closed loop, 0 for an open chain).
    Lin,
    /// An airport's runway (apt.dat 100), with its shoulders, blast pads and markings.
    Runway,
    /// An airport's helipad (apt.dat 102).
    Helipad,
    /// Taxiway pavement (apt.dat 110) and the lines its edges carry.
    Pavement,
    /// A free painted marking line (apt.dat 120).
    Marking,
    /// A road segment of a network, from junction to junction (the parameter is its
    /// subtype: the `.net`'s virtual road id). Its asset is the network definition.
    Road,
}

impl FeatureKind {
    /// Every kind, in the order lists show them.
    pub const ALL: [FeatureKind; 14] = [
        FeatureKind::Agp,
        FeatureKind::Agb,
        FeatureKind::Ags,
        FeatureKind::Obj,
        FeatureKind::Fac,
        FeatureKind::For,
        FeatureKind::Pol,
        FeatureKind::Str,
        FeatureKind::Lin,
        FeatureKind::Runway,
        FeatureKind::Helipad,
        FeatureKind::Pavement,
        FeatureKind::Marking,
        FeatureKind::Road,
    ];

    /// The kind's name as the JSON writes it (`agp`, `runway`, …).
    pub fn name(self) -> &'static str {
        match self {
            FeatureKind::Agp => "agp",
            FeatureKind::Agb => "agb",
            FeatureKind::Ags => "ags",
            FeatureKind::Obj => "obj",
            FeatureKind::Fac => "fac",
            FeatureKind::For => "for",
            FeatureKind::Pol => "pol",
            FeatureKind::Str => "str",
            FeatureKind::Lin => "lin",
            FeatureKind::Runway => "runway",
            FeatureKind::Helipad => "helipad",
            FeatureKind::Pavement => "pavement",
            FeatureKind::Marking => "marking",
            FeatureKind::Road => "road",
        }
    }

    /// The kind of an asset path by its extension, if agview draws it.
    pub fn of_path(path: &str) -> Option<FeatureKind> {
        let ext = path.rsplit_once('.')?.1.to_ascii_lowercase();
        Some(match ext.as_str() {
            "agp" => FeatureKind::Agp,
            "agb" => FeatureKind::Agb,
            "ags" => FeatureKind::Ags,
            "obj" => FeatureKind::Obj,
            "fac" => FeatureKind::Fac,
            "for" => FeatureKind::For,
            "pol" => FeatureKind::Pol,
            "str" => FeatureKind::Str,
            "lin" => FeatureKind::Lin,
            "net" => FeatureKind::Road,
            _ => return None,
        })
    }

    /// True for the autogen kinds (`--only autogen`).
    pub fn is_autogen(self) -> bool {
        matches!(self, FeatureKind::Agp | FeatureKind::Agb | FeatureKind::Ags)
    }
}

/// One feature of a document and what laying it out gave.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FeatureInfo {
    /// Where the feature is: `path:line` (DSF text), `path: polygon N` / `path: object N`
    /// (binary DSF, counted from 0 in stream order), `path: id N "name"` (WED).
    pub source: String,
    /// The definition as the document writes it.
    pub asset: String,
    /// The file it resolved to, or null (bytes that are not UTF-8 as `\xNN`).
    pub resolved: Option<String>,
    /// The package whose library exported it, when it came through a library.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub package: Option<String>,
    pub kind: FeatureKind,
    /// The DSF parameter (for WED placements, as WED's DSF exporter computes it).
    pub param: u32,
    pub stats: SceneStats,
    /// AGB: the chosen spelling set, grid and spellings.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub choice: Option<BlockChoice>,
    /// AGS: the corners found, as in a single layout (in the document's frame).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub corners: Vec<CornerMark>,
    pub tile_lod: f32,
    pub layer_group: LayerGroup,
    pub hide_tiles: bool,
    /// An autogen point placed by library path that `SLOPE_LIMIT` screened out: why
    /// (the terrain's slope there and each variant's limits). It placed nothing.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub dropped: Option<String>,
    /// A road segment: its length, road type and levels. Boxed: most features are not
    /// roads, and a tile holds a hundred thousand features.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub road: Option<Box<FeatureRoad>>,
    /// Its first point (longitude, latitude), for matching it across two versions of its
    /// document (`agview report --against`); not in the JSON.
    #[serde(skip)]
    pub at: Option<[f64; 2]>,
    /// An autogen feature's footprint as its asset was laid out on it, for laying the asset
    /// out alone (`agview report`); not in the JSON.
    #[serde(skip)]
    pub footprint: Option<Footprint>,
}

/// Where an autogen feature was laid out, in its own frame: meters east and north of its
/// first point (`FeatureInfo::at`).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Footprint {
    /// The polygon's windings (curves flattened), or none for a point.
    pub rings: Vec<Vec<[f32; 2]>>,
    /// A point's heading in degrees (0 for a polygon).
    pub heading: f32,
}

impl FeatureInfo {
    /// A feature not laid out yet: nothing resolved, no stats, the default `TILE_LOD` and
    /// layer group.
    pub fn new(source: String, asset: String, kind: FeatureKind, param: u32) -> Self {
        FeatureInfo {
            source,
            asset,
            resolved: None,
            package: None,
            kind,
            param,
            stats: SceneStats::default(),
            choice: None,
            corners: Vec::new(),
            tile_lod: DEFAULT_TILE_LOD,
            layer_group: LayerGroup::default(),
            hide_tiles: false,
            dropped: None,
            road: None,
            at: None,
            footprint: None,
        }
    }
}

/// Where the local frame sits on the earth.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Default)]
pub struct GeoFrame {
    /// Latitude and longitude (degrees) of the local origin.
    pub origin_lat: f64,
    pub origin_lon: f64,
    /// AGN: the LOD13 square's bounds and U/V.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub north: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub south: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub east: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub west: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub u: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub v: Option<u32>,
}

/// The base tile texture and the size in pixels the asset declares for it
/// (`TEXTURE_SCALE`); tile `uv`s are in these pixels.
#[derive(Debug, Clone, PartialEq, Serialize, Default)]
pub struct TileTexture {
    /// Path as resolved (absolute or relative to the working directory).
    pub path: String,
    pub width_px: f32,
    pub height_px: f32,
    /// `TEXTURE_LIT`: the tiles' night texture, as resolved (`None` when the asset has
    /// none, or it could not be found: a warning, and the tiles do not glow).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub lit: Option<String>,
}

/// `LAYER_GROUP <offset> <name>`; tiles draw in group order, then offset, then file order.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LayerGroup {
    pub name: String,
    pub offset: i32,
}

/// X-Plane's layer groups of draped geometry, drawn first to last (WED's preview order,
/// `kGroupNames`, with OBJ8's `cars` last); the unpaved groups share a place.
pub const LAYER_GROUPS: [&str; 13] = [
    "terrain",
    "beaches",
    "unpaved_taxiways",
    "unpaved_runways",
    "shoulders",
    "taxiways",
    "runways",
    "markings",
    "airports",
    "footprints",
    "roads",
    "objects",
    "light_objects",
];

impl LayerGroup {
    /// Where the group draws among the others: a lower key draws first. The key is the
    /// group's place in [`LAYER_GROUPS`] (`cars` after all, unknown names as `footprints`,
    /// the default), then the offset, scaled so that an airport's pavement fits between
    /// offsets −1 and 0 ([`LayerGroup::pavement_key`]).
    #[inline]
    pub fn draw_key(&self) -> (u32, i32) {
        (
            group_rank(&self.name),
            self.offset.clamp(-20_000, 20_000) * PAVEMENT_SLOTS,
        )
    }

    /// The key of an airport's pavement item: in `group`, above every offset below 0 and
    /// under offset 0, the `order`-th of the airport's items there (X-Plane's
    /// `group_lo + offset` / `group_hi + offset` with the apt.dat items between).
    #[inline]
    pub fn pavement_key(group: &str, order: u32) -> (u32, i32) {
        let order = order.min(PAVEMENT_SLOTS as u32 - 2) as i32;
        (group_rank(group), -PAVEMENT_SLOTS + 1 + order)
    }
}

/// How many airport items fit between two offsets of one layer group.
const PAVEMENT_SLOTS: i32 = 100_000;

/// A group's place in [`LAYER_GROUPS`] (`cars` after all, unknown names as `footprints`);
/// the unpaved groups share one.
fn group_rank(name: &str) -> u32 {
    let name = name.to_ascii_lowercase();
    match name.as_str() {
        "cars" => LAYER_GROUPS.len() as u32,
        n => LAYER_GROUPS
            .iter()
            .position(|g| *g == n)
            .map(|i| if i >= 3 { i as u32 - 1 } else { i as u32 })
            .unwrap_or(8),
    }
}

impl Default for LayerGroup {
    fn default() -> Self {
        LayerGroup {
            name: "footprints".into(),
            offset: 0,
        }
    }
}

/// What a tile is in an autogen string.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum TileRole {
    Corner,
    Edge,
    Cap,
}

/// One placed tile quad.
#[derive(Debug, Clone, PartialEq, Serialize, Default)]
pub struct Tile {
    /// Corners in meters, in the order texture bottom-left, bottom-right, top-right,
    /// top-left.
    pub corners: [[f32; 2]; 4],
    /// Texture rectangle in pixels of the declared texture size: `[s1, t1, s2, t2]`
    /// (left, bottom, right, top).
    pub uv: [f32; 4],
    /// True for an AGB slop tile (it may be compressed).
    pub slop: bool,
    /// AGB: column and row indices into the asset's grid.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub col: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub row: Option<u32>,
    /// AGP/AGS: index of the tile in the asset's file order.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tile: Option<u32>,
    /// AGS: the tile's `TILE_ID`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tile_id: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub role: Option<TileRole>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub contour: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub side: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub atomic: Option<u32>,
    /// Crop polygon in meters (the tile is drawn only inside it), from `CROP_POLY` or the
    /// AGB `CROP` of the block polygon. Shared: every tile of a cropped block holds the same
    /// polygon, allocated once.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub crop: Option<std::sync::Arc<[[f32; 2]]>>,
    /// AGS: the tile crosses the polygon's boundary or a hole (no stop point kept it
    /// out); placed as X-Plane would place it, and marked by the `edges` overlay.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub crosses: bool,
    /// Drawing order within the layer group (lower first).
    pub order: u32,
    /// A document's feature the tile belongs to (index into `Scene::features`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub feature: Option<u32>,
}

/// A run of adjacent AGB tiles in one row whose columns are consecutive and increasing and
/// not anti-slop: the renderer may draw it as one quad. `first..first+len` index `tiles`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct TileRun {
    pub first: usize,
    pub len: usize,
}

/// How an object's height is found (the spec's vertical alignment behaviours).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum Placement {
    /// On the terrain directly below the object's origin.
    #[default]
    Draped,
    /// At the terrain height at the tile's ground point.
    Graded,
    /// Graded, plus `z_offset` meters.
    Delta,
    /// Graded, plus the scraper step rule applied to the AGL height (`z_offset` holds the
    /// resulting rise).
    Scraper,
}

/// One placed object.
#[derive(Debug, Clone, PartialEq, Serialize, Default)]
pub struct ObjectInstance {
    /// Index into `Scene::meshes` (the asset's `OBJECT` index); [`ObjectInstance::mesh`]
    /// as a `usize`. Four bytes, not eight: a tile holds over a million objects, and the
    /// JSON writes the same number.
    pub index: u32,
    /// The mesh path as the asset names it (shared with the asset's declaration).
    pub path: std::sync::Arc<str>,
    pub pos: [f32; 2],
    /// Degrees clockwise from north.
    pub heading: f32,
    pub mode: Placement,
    /// Where graded/delta/scraper objects take their ground height.
    pub ground_pt: [f32; 2],
    /// Meters above the ground height (delta offset, or the scraper rise).
    pub z_offset: f32,
    /// Show levels `[lo, hi]` (1..6); `[1, 1]` when the file gives none (always shown).
    pub show: [u8; 2],
    /// A seeded number in `[0, 1)` used to thin objects at a density: shown at level `L`
    /// when `L >= lo` and `thin < (1 + L - lo) / (1 + hi - lo)`.
    pub thin: f32,
    /// Source line of the annotation in the asset (0 when none).
    pub line: u32,
    /// A document's feature the object belongs to (index into `Scene::features`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub feature: Option<u32>,
}

impl ObjectInstance {
    /// [`ObjectInstance::index`], the place in `Scene::meshes`.
    #[inline]
    pub fn mesh(&self) -> usize {
        self.index as usize
    }

    /// An index into `Scene::meshes` as [`ObjectInstance::index`] holds it; one past
    /// `u32::MAX` meshes (never seen) stays out of range.
    #[inline]
    pub fn mesh_index(index: usize) -> u32 {
        u32::try_from(index).unwrap_or(u32::MAX)
    }

    /// Whether the object shows at density level `level` (1..6), the rule WED uses.
    #[inline]
    pub fn visible_at(&self, level: u8) -> bool {
        let [lo, hi] = self.show;
        if level < lo {
            return false;
        }
        if level >= hi {
            return true;
        }
        let p = (1.0 + f32::from(level) - f32::from(lo)) / (1.0 + f32::from(hi) - f32::from(lo));
        self.thin < p
    }
}

/// One placed facade.
#[derive(Debug, Clone, PartialEq, Serialize, Default)]
pub struct FacadeInstance {
    /// Index into `Scene::facade_defs`; `None` for AGN buildings (neutral or GBTE-textured).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub facade: Option<usize>,
    /// Footprint in meters, counter-clockwise.
    pub footprint: Vec<[f32; 2]>,
    /// Wall height in meters.
    pub height: f32,
    /// `FAC_WALLS`: the wall type of each side, when given.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub walls: Option<Vec<u32>>,
    /// AGN: floors drawn from the GBDD weights.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub floors: Option<u32>,
    /// AGN: the roof type: `"default"` (the zero GUID: FSX's default roofs) or the `GBLR`
    /// roof GUID / `PBDE` building GUID.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub roof: Option<String>,
    /// AGN: the ridge's height above the walls in meters for a pitched (gable) roof along
    /// the footprint's longer side; 0 for a flat roof.
    #[serde(skip_serializing_if = "is_zero_f32")]
    pub roof_height: f32,
    /// AGN: the roof texture `--guid-map` gives the roof GUID, when it names an image.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub roof_texture: Option<String>,
    /// AGN: the chunk the building comes from: `"GBLR"` (generic building), `"ROWH"` (row
    /// house) or `"PBDE"` (polygon building).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub agn_chunk: Option<&'static str>,
    /// AGN: index into `Scene::extra_textures`-style texture naming; the texture path.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub texture: Option<String>,
    pub line: u32,
    /// A document's feature the facade belongs to (index into `Scene::features`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub feature: Option<u32>,
}

/// One placed tree.
#[derive(Debug, Clone, PartialEq, Serialize, Default)]
pub struct TreeInstance {
    pub pos: [f32; 2],
    /// Width in meters (0: the forest's own size).
    pub width: f32,
    pub heading: f32,
    /// Forest layer the tree comes from.
    pub layer: i32,
    /// Seeded pick among the layer's trees (taken modulo their count).
    pub pick: u32,
    /// Which forest: 0 for `Scene::forest`, k for `Scene::more_forests[k - 1]`.
    #[serde(skip_serializing_if = "is_zero")]
    pub forest: u32,
    /// Height in meters; 0: the forest tree's own height. The renderer scales the tree to a
    /// positive height, keeping its aspect (width follows).
    #[serde(skip_serializing_if = "is_zero_f32")]
    pub height: f32,
    /// A document's feature the tree belongs to (index into `Scene::features`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub feature: Option<u32>,
}

/// A draped polygon: a `.pol` texture (or an orthophoto's image) laid on the terrain over a
/// polygon with holes, drawn in the layer group its definition gives.
#[derive(Debug, Clone, PartialEq, Serialize, Default)]
pub struct DrapedPolygon {
    /// Index into `Scene::pol_defs`.
    pub def: usize,
    /// The outer ring counter-clockwise, then the holes clockwise; meters, not closed,
    /// curves already flattened.
    pub rings: Vec<Vec<[f32; 2]>>,
    /// Counter-clockwise triangles over the rings' points, numbered ring after ring.
    #[serde(skip)]
    pub triangles: Vec<[u32; 3]>,
    /// An orthophoto: each ring point's normalised texture coordinates (s east, t north),
    /// parallel to `rings`. `None`: a tiled polygon, its texture repeating every `SCALE`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub st: Option<Vec<Vec<[f32; 2]>>>,
    /// A tiled polygon: the compass heading (degrees clockwise from north) the texture's t
    /// axis points to, from the DSF parameter.
    pub heading: f32,
    /// Airport pavement: where it draws among the airport's items (its definition's layer
    /// group is not used).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pavement: Option<PavementLayer>,
    /// A document's feature (index into `Scene::features`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub feature: Option<u32>,
}

/// Where an airport's pavement draws (GROUND.md §6.4): its group (`unpaved_taxiways`,
/// `unpaved_runways`, `shoulders`, `taxiways`, `runways`) and its place among the
/// airport's items of that group, in apt.dat order. Within its group it lies above every
/// draped item with a negative offset and below those with offset 0 or more, as X-Plane
/// orders them.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PavementLayer {
    pub group: String,
    pub order: u32,
}

/// A painted line: a `.lin` drawn along a chain on the terrain.
#[derive(Debug, Clone, PartialEq, Serialize, Default)]
pub struct PaintedLine {
    /// Index into `Scene::lin_defs`.
    pub def: usize,
    /// The chain in meters, curves already flattened; a closed loop does not repeat its
    /// first point.
    pub points: Vec<[f32; 2]>,
    /// A closed loop (DSF parameter 1): mitred across its seam, no caps.
    pub closed: bool,
    /// The chain's length in meters.
    pub length: f32,
    /// A document's feature (index into `Scene::features`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub feature: Option<u32>,
}

/// How one kind of road draws: a real road type of a `.net`, or a band of the plain
/// profile when the `.net` is not at hand.
#[derive(Debug, Clone, PartialEq, Serialize, Default)]
pub struct RoadLook {
    /// The `.net` as the document names it (its network definition).
    pub net: String,
    /// The `.net` file read, when it was found.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub resolved: Option<String>,
    /// The real `ROAD_TYPE` id; `None` in the plain profile.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub road_type: Option<u32>,
    /// The plain profile's band (`highway`, `primary`, `secondary`, `residential`,
    /// `service`, `rail`, `power line`); `None` for a `.net` type.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub plain: Option<String>,
    /// Full width in metres.
    pub width: f32,
    /// Texture repeat length along the road, metres.
    pub length: f32,
    /// The surface rows drawn (near LOD 0), each a ribbon.
    pub rows: Vec<RoadRibbon>,
    /// Texture files the rows name (resolved paths), indexed by `rows[].texture`.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub textures: Vec<String>,
}

/// One ribbon of a road look: a surface row of its road type.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Default)]
pub struct RoadRibbon {
    /// Index into the look's `textures` (ignored in the plain profile).
    pub texture: usize,
    /// Lateral metres of the two edges from the centreline, positive to the right of
    /// travel.
    pub x: [f32; 2],
    /// Height in metres of the two edges above the road surface (0 when draped).
    pub y: [f32; 2],
    /// Texture s of the two edges.
    pub s: [f32; 2],
    /// Texture t advances by `t_scale` per `length` metres.
    pub t_scale: f32,
}

/// A road segment laid out: its centreline in metres and the look it draws with.
#[derive(Debug, Clone, PartialEq, Serialize, Default)]
pub struct RoadSegment {
    /// Index into `Scene::road_looks`.
    pub look: usize,
    /// The centreline in metres, start junction to end junction, curves flattened.
    pub points: Vec<[f32; 2]>,
    /// Each end's level as the document gives it.
    pub levels: [i32; 2],
    /// Each end's height in metres above the ground (from its level); the road between
    /// rises evenly.
    pub heights: [f32; 2],
    /// Length in metres along the centreline.
    pub length: f32,
    /// A document's feature (index into `Scene::features`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub feature: Option<u32>,
}

/// Road segments and metres of one road type (`Scene::road_stats`).
#[derive(Debug, Clone, PartialEq, Serialize, Default)]
pub struct RoadTypeStats {
    /// The look (index into `Scene::road_looks`).
    pub look: usize,
    /// The `.net` as the document names it.
    pub net: String,
    /// The real `ROAD_TYPE` id; `None` in the plain profile.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub road_type: Option<u32>,
    /// The plain profile's band; `None` for a `.net` type.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub plain: Option<String>,
    pub segments: usize,
    /// Metres, to a tenth.
    pub length: f32,
}

impl RoadTypeStats {
    /// What the feature table and the report call the type.
    pub fn label(&self) -> String {
        road_type_label(self.road_type, self.plain.as_deref())
    }
}

/// A road feature's segment as laid out (`FeatureInfo::road`).
#[derive(Debug, Clone, PartialEq, Serialize, Default)]
pub struct FeatureRoad {
    /// Metres along its centreline, to a tenth.
    pub length: f32,
    /// The real `ROAD_TYPE` id it draws with; `None` in the plain profile.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub road_type: Option<u32>,
    /// The plain profile's band it draws in, when its `.net` (or its subtype in it) was
    /// not found.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub plain: Option<String>,
    /// Each end's level.
    pub levels: [i32; 2],
    /// Its last point (longitude, latitude), which with `FeatureInfo::at` tells two
    /// segments from one junction apart (`--against`); not in the JSON.
    #[serde(skip)]
    pub end: Option<[f64; 2]>,
}

impl FeatureRoad {
    /// What the feature table and the report call its type.
    pub fn label(&self) -> String {
        road_type_label(self.road_type, self.plain.as_deref())
    }
}

/// The one way a road type is named to a person: `type 12`, or `plain profile
/// residential` where the `.net` did not give it.
pub fn road_type_label(road_type: Option<u32>, plain: Option<&str>) -> String {
    match (road_type, plain) {
        (Some(t), _) => format!("type {t}"),
        (None, Some(band)) => format!("plain profile {band}"),
        (None, None) => "plain profile".to_string(),
    }
}

/// AGB: the spelling set, grid and spellings chosen for a block.
#[derive(Debug, Clone, PartialEq, Serialize, Default)]
pub struct BlockChoice {
    /// 0-based index of the spelling set in file order.
    pub spelling_set: usize,
    /// 0-based grid index.
    pub grid: usize,
    /// The chosen column and row spellings (indices into the grid).
    pub spelling_s: Vec<usize>,
    pub spelling_t: Vec<usize>,
    /// Whether a spelling really fit between EDGE_MIN and EDGE_MAX.
    pub fits: bool,
}

/// AGS: a corner found on a contour, and what was placed there.
#[derive(Debug, Clone, PartialEq, Serialize, Default)]
pub struct CornerMark {
    pub pos: [f32; 2],
    pub contour: usize,
    /// Turn in degrees when walking the contour (left turns negative, as in the spec).
    pub angle: f32,
    /// Source line of the corner rule used, if any was placed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rule_line: Option<u32>,
}

/// AGN: a library object, drawn as a box over its bounding box.
#[derive(Debug, Clone, PartialEq, Serialize, Default)]
pub struct LibraryObject {
    pub guid: String,
    /// Box corners in meters, counter-clockwise.
    pub footprint: [[f32; 2]; 4],
    pub center: [f32; 2],
    pub heading: f32,
    /// A mesh path from a mapping file, when one names this GUID.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
}

/// AGN: a roof type named by the file's `GBLR` chunks: the GUID, how many buildings use
/// it, and the texture `--guid-map` maps it to (for the viewer's panel and the JSON).
#[derive(Debug, Clone, PartialEq, Serialize, Default)]
pub struct RoofType {
    /// `"default"` for the zero GUID, else the GUID.
    pub guid: String,
    pub buildings: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub texture: Option<String>,
}

/// AGN: a vegetation area.
#[derive(Debug, Clone, PartialEq, Serialize, Default)]
pub struct VegetationArea {
    /// The vegetation GUID (`PRDE`, `VGRE`), or the `VGRD` classes for `VGRO`.
    pub guid: String,
    pub outline: Vec<[f32; 2]>,
    /// Number of trees placed in it.
    pub trees: usize,
}

/// Overlays a person turns on to see why the layout came out as it did.
#[derive(Debug, Clone, PartialEq, Serialize, Default)]
pub struct DebugMarks {
    /// AGB cut lines placed on the ground, as segments.
    pub cut_lines: Vec<[[f32; 2]; 2]>,
    /// Regions covered by compressed slop tiles.
    pub slop_regions: Vec<Vec<[f32; 2]>>,
    /// The ground points that placed objects use (`GROUND_PT`, `GROUND_PT_FORMULA` or a
    /// tile's centre), each once, in the order of the first object using it; the objects
    /// using one are those whose `ground_pt` it is (the overlay draws a line to each).
    pub ground_points: Vec<[f32; 2]>,
    /// AGS side end points (where caps go).
    pub caps: Vec<[f32; 2]>,
    /// AGB: the EDGE_MIN / EDGE_MAX rectangles as placed.
    pub edge_min: Vec<[f32; 2]>,
    pub edge_max: Vec<[f32; 2]>,
    /// Documents: autogen points placed by library path that `SLOPE_LIMIT` dropped (only
    /// when a terrain was given).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub slope_drops: Vec<SlopeDrop>,
}

/// An autogen point that was not placed because every variant's `SLOPE_LIMIT` excludes the
/// terrain's slope under it (the reason is the feature's `dropped`).
#[derive(Debug, Clone, PartialEq, Serialize, Default)]
pub struct SlopeDrop {
    /// Where the point is, in meters.
    pub pos: [f32; 2],
    /// The point's heading, degrees clockwise from north.
    pub heading: f32,
    /// The terrain's pitch (nose up positive) and roll (right positive) there, degrees.
    pub pitch: f32,
    pub roll: f32,
    /// The feature (index into `Scene::features`).
    pub feature: u32,
}

/// Counts shown in the panel and printed by the CLI.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Default)]
pub struct SceneStats {
    pub tiles: usize,
    /// Quads the renderer draws for the tiles once runs are merged.
    pub tile_quads: usize,
    pub objects: usize,
    pub facades: usize,
    pub trees: usize,
    /// Triangles of the draped polygons (before they are cut along the terrain).
    #[serde(skip_serializing_if = "is_zero_usize")]
    pub draped_triangles: usize,
    /// Meters of painted line (each line once, whatever its layers), rounded.
    #[serde(skip_serializing_if = "is_zero_usize")]
    pub line_length: usize,
    /// Road segments laid out (`Scene::roads`).
    #[serde(skip_serializing_if = "is_zero_usize")]
    pub road_segments: usize,
    /// Metres of road (each segment's centreline), rounded.
    #[serde(skip_serializing_if = "is_zero_usize")]
    pub road_length: usize,
}

fn is_zero_usize(v: &usize) -> bool {
    *v == 0
}

impl SceneStats {
    /// What a scene places, part by part, each with the name the messages that count it use:
    /// the one list of the parts (`tile_quads` is how the tiles are drawn, not a part).
    pub fn parts(&self) -> [(&'static str, usize); 8] {
        [
            ("tiles", self.tiles),
            ("objects", self.objects),
            ("facades", self.facades),
            ("trees", self.trees),
            ("draped triangles", self.draped_triangles),
            ("m of line", self.line_length),
            ("road segments", self.road_segments),
            ("m of road", self.road_length),
        ]
    }
}

/// A reference to an art file, as the asset names it and as resolved.
#[derive(Debug, Clone, PartialEq, Serialize, Default)]
pub struct ArtRef {
    /// The path as written in the asset (relative or library path), shared with it.
    pub name: std::sync::Arc<str>,
    /// The file it resolved to, if it did (bytes that are not UTF-8 as `\xNN`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub resolved: Option<String>,
}

impl Scene {
    /// Fills `stats` from the lists.
    pub fn update_stats(&mut self) {
        let merged: usize = self.runs.iter().map(|r| r.len.saturating_sub(1)).sum();
        self.stats = SceneStats {
            tiles: self.tiles.len(),
            tile_quads: self.tiles.len() - merged.min(self.tiles.len()),
            objects: self.objects.len(),
            facades: self.facades.len(),
            trees: self.trees.len(),
            draped_triangles: self.draped.iter().map(|d| d.triangles.len()).sum(),
            line_length: self.lines.iter().map(|l| l.length).sum::<f32>().round() as usize,
            road_segments: self.roads.len(),
            road_length: self.roads.iter().map(|r| r.length).sum::<f32>().round() as usize,
        };
        self.update_road_stats();
    }

    /// Fills `road_stats` (segments and metres per look used) and each road feature's
    /// `road` and its stats' road counts, from `roads` and `road_looks`. The one place
    /// that says how a road is counted: the JSON, the feature table, the report and
    /// `--against` read what it fills.
    pub fn update_road_stats(&mut self) {
        let mut by_look: Vec<(usize, f32)> = vec![(0, 0.0); self.road_looks.len()];
        // Per feature: segments, metres, the first segment's look and levels.
        let mut per_feature: std::collections::BTreeMap<u32, (usize, f32, usize, [i32; 2])> =
            std::collections::BTreeMap::new();
        for r in &self.roads {
            if let Some(l) = by_look.get_mut(r.look) {
                l.0 += 1;
                l.1 += r.length;
            }
            if let Some(f) = r.feature {
                let e = per_feature.entry(f).or_insert((0, 0.0, r.look, r.levels));
                e.0 += 1;
                e.1 += r.length;
            }
        }
        self.road_stats = self
            .road_looks
            .iter()
            .zip(&by_look)
            .enumerate()
            .filter(|(_, (_, (n, _)))| *n > 0)
            .map(|(k, (look, &(segments, length)))| RoadTypeStats {
                look: k,
                net: look.net.clone(),
                road_type: look.road_type,
                plain: look.plain.clone(),
                segments,
                length: (length * 10.0).round() / 10.0,
            })
            .collect();
        for (f, (segments, length, look, levels)) in per_feature {
            let Some(info) = self.features.get_mut(f as usize) else {
                continue;
            };
            let look = self.road_looks.get(look);
            let road = info.road.get_or_insert_with(Box::default);
            road.length = (length * 10.0).round() / 10.0;
            road.road_type = look.and_then(|l| l.road_type);
            road.plain = look.and_then(|l| l.plain.clone());
            road.levels = levels;
            info.stats.road_segments = segments;
            info.stats.road_length = length.round() as usize;
        }
    }

    /// True when the scene places nothing: no tiles, objects, facades, trees, library
    /// objects or vegetation areas (the polygon alone does not count).
    pub fn is_empty(&self) -> bool {
        self.tiles.is_empty()
            && self.objects.is_empty()
            && self.facades.is_empty()
            && self.trees.is_empty()
            && self.library_objects.is_empty()
            && self.vegetation.is_empty()
            && self.draped.is_empty()
            && self.lines.is_empty()
            && self.roads.is_empty()
    }

    /// Fills `debug.ground_points` with the ground points some object uses: the
    /// `ground_pt` of every object not draped, each once.
    pub fn collect_ground_points(&mut self) {
        /// Up to this many points are looked up by a scan (a feature's few, laid out a
        /// hundred thousand times in a tile); past it, by a hashed set.
        const SCAN: usize = 32;
        let points = &mut self.debug.ground_points;
        points.clear();
        points.reserve(self.objects.len().min(16));
        // Seen points by their bits: a scene of many objects stays linear.
        let mut seen: Option<std::collections::HashSet<[u32; 2]>> = None;
        for o in self.objects.iter().filter(|o| o.mode != Placement::Draped) {
            let bits = o.ground_pt.map(f32::to_bits);
            let new = match seen.as_mut() {
                Some(set) => set.insert(bits),
                None => !points.iter().any(|p| p.map(f32::to_bits) == bits),
            };
            if new {
                points.push(o.ground_pt);
                if seen.is_none() && points.len() > SCAN {
                    seen = Some(points.iter().map(|p| p.map(f32::to_bits)).collect());
                }
            }
        }
    }

    /// The distance (meters) at which `tile` fades out: its feature's `TILE_LOD` in a
    /// document, else the scene's; a value that is not a positive number gives the default
    /// 20 km.
    #[inline]
    pub fn tile_lod_of(&self, tile: &Tile) -> f32 {
        let lod = tile
            .feature
            .and_then(|f| self.features.get(f as usize))
            .map_or(self.tile_lod, |f| f.tile_lod);
        if lod.is_finite() && lod > 0.0 {
            lod
        } else {
            DEFAULT_TILE_LOD
        }
    }

    /// Moves everything the scene places by `d` meters (a feature laid out in its own frame
    /// moved into a document's frame).
    pub fn translate(&mut self, d: [f32; 2]) {
        let mv = |p: &mut [f32; 2]| {
            p[0] += d[0];
            p[1] += d[1];
        };
        self.polygon.iter_mut().flatten().for_each(mv);
        // Tiles share crop polygons: each distinct one moves once.
        type Shared = std::sync::Arc<[[f32; 2]]>;
        let mut moved: Option<(Shared, Shared)> = None;
        for t in &mut self.tiles {
            t.corners.iter_mut().for_each(mv);
            if let Some(c) = &t.crop {
                let new = match &moved {
                    Some((old, new)) if std::sync::Arc::ptr_eq(old, c) => new.clone(),
                    _ => {
                        let new: Shared = c.iter().map(|p| [p[0] + d[0], p[1] + d[1]]).collect();
                        moved = Some((c.clone(), new.clone()));
                        new
                    }
                };
                t.crop = Some(new);
            }
        }
        for o in &mut self.objects {
            mv(&mut o.pos);
            mv(&mut o.ground_pt);
        }
        self.facades
            .iter_mut()
            .flat_map(|f| f.footprint.iter_mut())
            .for_each(mv);
        self.trees.iter_mut().for_each(|t| mv(&mut t.pos));
        self.draped
            .iter_mut()
            .flat_map(|g| g.rings.iter_mut().flatten())
            .for_each(mv);
        self.lines
            .iter_mut()
            .flat_map(|l| l.points.iter_mut())
            .for_each(mv);
        self.roads
            .iter_mut()
            .flat_map(|r| r.points.iter_mut())
            .for_each(mv);
        self.corners.iter_mut().for_each(|c| mv(&mut c.pos));
        self.stop_points.iter_mut().for_each(mv);
        for o in &mut self.library_objects {
            o.footprint.iter_mut().for_each(mv);
            mv(&mut o.center);
        }
        self.vegetation
            .iter_mut()
            .flat_map(|v| v.outline.iter_mut())
            .for_each(mv);
        let dm = &mut self.debug;
        dm.cut_lines.iter_mut().flatten().for_each(mv);
        dm.slop_regions.iter_mut().flatten().for_each(mv);
        dm.ground_points.iter_mut().for_each(mv);
        dm.caps.iter_mut().for_each(mv);
        dm.edge_min.iter_mut().for_each(mv);
        dm.edge_max.iter_mut().for_each(mv);
        dm.slope_drops.iter_mut().for_each(|s| mv(&mut s.pos));
    }

    /// Axis-aligned bounds of what the scene draws (points `SLOPE_LIMIT` dropped included)
    /// and the polygon it was laid out on:
    /// `(min, max)` in meters. An AGN's polygon (its whole LOD13 square, which would dwarf a
    /// town in one corner of it) counts only when nothing else is there.
    pub fn bounds(&self) -> ([f32; 2], [f32; 2]) {
        self.extent().unwrap_or(([-10.0, -10.0], [10.0, 10.0]))
    }

    /// [`Scene::bounds`], or `None` when the scene places nothing at all.
    pub fn extent(&self) -> Option<([f32; 2], [f32; 2])> {
        let mut lo = [f32::INFINITY; 2];
        let mut hi = [f32::NEG_INFINITY; 2];
        let mut add = |p: [f32; 2]| {
            for i in 0..2 {
                lo[i] = lo[i].min(p[i]);
                hi[i] = hi[i].max(p[i]);
            }
        };
        if self.kind != SceneKind::Agn {
            self.polygon.iter().flatten().for_each(|p| add(*p));
        }
        self.tiles.iter().flat_map(|t| t.corners).for_each(&mut add);
        self.objects.iter().for_each(|o| add(o.pos));
        self.facades
            .iter()
            .flat_map(|f| f.footprint.iter())
            .for_each(|p| add(*p));
        self.trees.iter().for_each(|t| add(t.pos));
        self.draped
            .iter()
            .flat_map(|g| g.rings.first().into_iter().flatten())
            .for_each(|p| add(*p));
        self.lines
            .iter()
            .flat_map(|l| l.points.iter())
            .for_each(|p| add(*p));
        self.roads
            .iter()
            .flat_map(|r| r.points.iter())
            .for_each(|p| add(*p));
        // A point SLOPE_LIMIT dropped is still shown (its overlay mark), so framed.
        self.debug.slope_drops.iter().for_each(|d| add(d.pos));
        self.library_objects
            .iter()
            .flat_map(|o| o.footprint)
            .for_each(&mut add);
        if lo[0] > hi[0] {
            self.polygon.iter().flatten().for_each(|p| {
                for i in 0..2 {
                    lo[i] = lo[i].min(p[i]);
                    hi[i] = hi[i].max(p[i]);
                }
            });
        }
        (lo[0] <= hi[0]).then_some((lo, hi))
    }
}

fn is_zero_f32(v: &f32) -> bool {
    *v == 0.0
}

#[cfg(test)]
mod road_tests {
    use super::*;

    /// A document's scene of three road features: two segments of `.net` type 12 (one a
    /// bridge end) and one in the plain profile; and an object feature.
    fn scene() -> Scene {
        let look = |t: Option<u32>, plain: Option<&str>, width: f32| RoadLook {
            net: "lib/g10/roads.net".into(),
            resolved: t.map(|_| "/x/roads.net".to_string()),
            road_type: t,
            plain: plain.map(str::to_string),
            width,
            length: 20.0,
            ..RoadLook::default()
        };
        let seg = |look: usize, points: Vec<[f32; 2]>, levels: [i32; 2], feature: u32| {
            let length = points
                .windows(2)
                .map(|w| (w[1][0] - w[0][0]).hypot(w[1][1] - w[0][1]))
                .sum();
            RoadSegment {
                look,
                points,
                levels,
                heights: levels.map(|l| l as f32 * 6.0),
                length,
                feature: Some(feature),
            }
        };
        let road = |line: usize, param: u32| {
            FeatureInfo::new(
                format!("d.txt:{line}"),
                "lib/g10/roads.net".into(),
                FeatureKind::Road,
                param,
            )
        };
        let mut s = Scene {
            road_looks: vec![look(Some(12), None, 8.0), look(None, Some("service"), 6.0)],
            roads: vec![
                seg(0, vec![[0.0, 0.0], [30.0, 40.0]], [0, 0], 0),
                seg(
                    0,
                    vec![[30.0, 40.0], [30.0, 60.0], [30.0, 100.25]],
                    [0, 1],
                    1,
                ),
                seg(1, vec![[0.0, 0.0], [-12.0, 0.0]], [0, 0], 3),
            ],
            features: vec![
                road(5, 10),
                road(6, 10),
                FeatureInfo::new("d.txt:7".into(), "a.obj".into(), FeatureKind::Obj, 0),
                road(8, 999),
            ],
            ..Scene::default()
        };
        s.features[2].stats.objects = 1;
        s.update_stats();
        s
    }

    #[test]
    fn roads_are_counted_per_feature_and_by_type_in_the_json() {
        let s = scene();
        // Through the text, as `layout --json` writes it (f32s at their shortest).
        let json: serde_json::Value =
            serde_json::from_str(&serde_json::to_string(&s).unwrap()).unwrap();
        assert_eq!(
            json["stats"],
            serde_json::json!({"tiles": 0, "tile_quads": 0, "objects": 0, "facades": 0,
                "trees": 0, "road_segments": 3, "road_length": 122})
        );
        assert_eq!(
            json["road_stats"],
            serde_json::json!([
                {"look": 0, "net": "lib/g10/roads.net", "road_type": 12, "segments": 2,
                 "length": 110.3},
                {"look": 1, "net": "lib/g10/roads.net", "plain": "service", "segments": 1,
                 "length": 12.0}
            ])
        );
        let f = &json["features"];
        assert_eq!(f[0]["kind"], "road");
        assert_eq!(
            f[0]["road"],
            serde_json::json!({"length": 50.0, "road_type": 12, "levels": [0, 0]})
        );
        assert_eq!(
            f[0]["stats"],
            serde_json::json!({"tiles": 0, "tile_quads": 0, "objects": 0, "facades": 0,
                "trees": 0, "road_segments": 1, "road_length": 50})
        );
        assert_eq!(
            f[1]["road"],
            serde_json::json!({"length": 60.3, "road_type": 12, "levels": [0, 1]})
        );
        assert_eq!(
            f[3]["road"],
            serde_json::json!({"length": 12.0, "plain": "service", "levels": [0, 0]})
        );
        // Not a road: no `road`, its stats as before.
        assert!(f[2].get("road").is_none());
        assert!(f[2]["stats"].get("road_segments").is_none());
        assert_eq!(json["roads"][1]["heights"], serde_json::json!([0.0, 6.0]));
        // The end point is for `--against` only.
        assert!(f[0]["road"].get("end").is_none());
    }

    #[test]
    fn roads_frame_the_scene_and_count_in_its_parts() {
        let s = scene();
        assert!(!s.is_empty());
        assert_eq!(s.extent(), Some(([-12.0, 0.0], [30.0, 100.25])));
        let parts = s.stats.parts();
        assert!(parts.contains(&("road segments", 3)));
        assert!(parts.contains(&("m of road", 122)));
        assert_eq!(s.road_stats[1].label(), "plain profile service");
        assert_eq!(road_type_label(Some(12), None), "type 12");
        assert_eq!(road_type_label(None, None), "plain profile");
        // Counting again gives the same (the document counts after it assembles).
        let mut again = s.clone();
        again.update_road_stats();
        assert_eq!(again.features, s.features);
        assert_eq!(again.road_stats, s.road_stats);
    }
}

#[cfg(test)]
mod size_tests {
    use super::*;

    /// A tile's scene holds over a million objects and a hundred thousand features, all
    /// resident while it is drawn: their records stay this small (64-bit targets).
    #[test]
    #[cfg(target_pointer_width = "64")]
    fn the_records_a_tile_holds_by_the_million_stay_small() {
        assert!(std::mem::size_of::<ObjectInstance>() <= 64);
        // A feature that is not a road carries no road's fields.
        assert_eq!(std::mem::size_of::<Option<Box<FeatureRoad>>>(), 8);
    }
}
