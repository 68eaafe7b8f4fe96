//! FSX autogen (`.agn`) layout: every section of the file turned into [`Scene`] content on
//! the file's LOD13 square (spec `003_d814b19ed22f9ff5.txt`, DOMAIN.md "FSX AGN").
//!
//! # The square
//! The 15-digit file name names the LOD13 square ([`Lod13::from_file_name`]); the scene's
//! local frame has its origin at the square's centre (x east, y north, meters) and
//! `scene.geo` carries the square's edges and U/V. A name without a code takes the
//! square's north-west corner from `--origin LAT,LON` ([`AgnOptions::origin`]); with
//! neither, the file is laid out on a square of the size a LOD13 square has at the equator
//! (its north-west corner at 0°, 0°) with a warning, and `scene.geo` stays empty because
//! the place is unknown.
//!
//! Square units become meters with one scale per axis for the whole square (taken at its
//! middle latitude), so one x unit is ≈1630·cos φ m and one y unit ≈1223 m, and y turns
//! from south to north. Geometry is built in meters, after that conversion.
//!
//! # Sections
//! - `GBLR` generic buildings and `ROWH` row houses: a [`FacadeInstance`] each, with no
//!   facade definition (`facade: None`), the four corners P1, P2 = P1 + d, P3 = P2 + o,
//!   P4 = P1 + o counter-clockwise from P1, `floors` × [`FLOOR_HEIGHT`] tall. Generic
//!   buildings draw their floors from the `GBDD` weights (a weight picks the 1–2, 3–5, 6–8
//!   or 9–12 band, then the count is uniform in it; all-zero weights give 1–2; no `GBDD`
//!   at all gives the spec's normal 10/10/10/10); `GBDD` is for generic buildings only, row
//!   houses have 2–3 floors. `roof` is the `GBLR` roof GUID, or `"default"` for the zero GUID
//!   and for row houses; default roofs are pitched ([`default_roof_height`]: a 30° gable on
//!   buildings of at most [`PITCHED_MAX_FLOORS`] floors, flat above), a roof GUID is flat and
//!   takes the image `--guid-map` maps it to as `roof_texture`; every roof type is listed in
//!   `Scene::roof_types`. `agn_chunk` says `"GBLR"` or `"ROWH"`. `texture` is the `GBTE`
//!   (`RHTE`) texture found beside the file as `.bmp`, `.dds` or `.png`, in that order of
//!   preference, matched without regard to case, given as a path next to the `.agn` file.
//! - `PBDE` polygon buildings (`agn_chunk` `"PBDE"`): a closed vertex list (first vertex =
//!   last) is the building's outline. Otherwise the vertex line is the centre line of a strip
//!   of the record's width (read on the y scale, as in the sample's writer). Each segment
//!   becomes one rectangular footprint, lengthened by half the width at interior vertices so
//!   that the pieces overlap at the joints instead of leaving a notch; all pieces of one
//!   building share one floor count (1–3, inferred: the file gives none). Per-segment boxes
//!   are chosen over one mitred outline because they stay valid for any vertex line (sharp
//!   turns, self-crossing lines). The building-type GUID goes in `roof` and `texture` is
//!   `None`.
//! - `A2GE` library objects: a [`LibraryObject`] over the bounding box of each record. With
//!   three points the box is P1, P1 + d, P1 + d + o, P1 + o and the heading is that of d;
//!   with two, P1 and P1 + d are opposite corners of a box aligned with the square, heading
//!   0 (d is then a diagonal, not a direction). `model` comes from
//!   [`AgnOptions::guid_models`]; a mapped model is also placed as a draped
//!   [`ObjectInstance`] at the box's centre. A zero-area box is a warning (and skipped
//!   unless a model is mapped).
//! - Boxes (generic buildings, row houses, library objects) longer than
//!   [`MAX_SANE_LENGTH`] or crossing the square's edge are drawn with a warning naming the
//!   chunk, the record and the size in meters.
//! - `PRDE` polygons and `VGRE` / `VGRO` rectangles: a [`VegetationArea`] each, filled with
//!   trees on a jittered grid, one tree per [`M2_PER_TREE`] m² (width 0 = the forest's size,
//!   layer 0). A big area is thinned rather than allowed to grow memory: at most
//!   [`MAX_TREES_PER_AREA`] per area and [`MAX_TREES`] in the scene. A `PRDE`/`VGRE` GUID
//!   that `--guid-map` maps to a `.for` takes that forest (`Scene::more_forests`) and
//!   heights in its min–max ([`AgnOptions::forest_heights`]). `VGRO` areas are named after
//!   the `VGRD` classes; the `VGRD` density (0–100) scales the trees, each tree is class 1
//!   or 2 (`layer` 1 or 2) by the class-1 percentage, with a height in its class's range.
//! - Warnings are capped per kind ([`WarningCap`]) and their messages built only when said.
//! # Randomness
//! One [`Rng`] from the seed, forked into a stream per section kind and per vegetation
//! area, so adding trees never changes building heights and the same seed always gives the
//! same scene.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use crate::diag::{Diagnostic, Severity, WarningCap};
use crate::format::agn::{
    AgnFile, BuildingWeights, Footprint, Guid, Lod13, Point, TextureName, LOD13_LAT_STEP,
    LOD13_LON_STEP, METERS_PER_DEGREE,
};
use crate::format::text::TextFile;
use crate::scene::{
    ArtRef, FacadeInstance, GeoFrame, LibraryObject, ObjectInstance, Placement, RoofType, Scene,
    SceneKind, TreeInstance, VegetationArea,
};

use super::geom::{signed_area2, P2};
use super::rng::Rng;
use super::{LayoutInput, DEFAULT_TILE_LOD};

/// Meters per floor.
pub(crate) const FLOOR_HEIGHT: f32 = 3.0;
/// Floors of a row house.
pub(crate) const ROW_HOUSE_FLOORS: (u32, u32) = (2, 3);
/// Floors of a polygon building.
pub(crate) const POLYGON_BUILDING_FLOORS: (u32, u32) = (1, 3);
/// The `GBDD` weights used when the file has none (the spec's "normally 10").
pub(crate) const DEFAULT_WEIGHTS: [i32; 4] = [10; 4];
/// The `roof` of buildings that use FSX's default roofs.
pub(crate) const DEFAULT_ROOF: &str = "default";
/// Texture extensions tried for `GBTE` / `RHTE`, in order.
pub(crate) const TEXTURE_EXTENSIONS: [&str; 3] = ["bmp", "dds", "png"];
/// Ground area per tree in a vegetation area, m².
pub(crate) const M2_PER_TREE: f64 = 80.0;
/// At most this many trees in one vegetation area (bigger areas get sparser trees).
pub(crate) const MAX_TREES_PER_AREA: usize = 50_000;
/// At most this many trees in the scene (all areas get sparser together).
pub(crate) const MAX_TREES: usize = 250_000;
/// A box longer than this (m) is drawn with a warning: the spec's "direction to the second
/// point" read as a unit vector gives kilometre-long buildings.
pub(crate) const MAX_SANE_LENGTH: f64 = 500.0;
/// Default roofs: buildings of at most this many floors get a pitched roof, taller ones a
/// flat one.
pub(crate) const PITCHED_MAX_FLOORS: u32 = 3;
/// Default roofs: the pitch of a gable roof, degrees.
pub(crate) const DEFAULT_ROOF_PITCH_DEG: f32 = 30.0;
/// Default roofs: the highest ridge above the walls, m.
pub(crate) const MAX_RIDGE_HEIGHT: f32 = 6.0;
/// Footprints and areas smaller than this (m²) are degenerate and skipped.
const MIN_AREA: f64 = 0.01;
/// Points farther than this from the square's centre (m) are garbage, not geometry: they
/// are skipped like non-finite ones (and so never overflow `f32`).
const MAX_METERS: f64 = 1.0e7;

// Rng streams.
const STREAM_GENERIC: u64 = 1;
const STREAM_ROW_HOUSES: u64 = 2;
const STREAM_POLYGON_BUILDINGS: u64 = 3;
const STREAM_TREES: u64 = 0x7EE5_0000;
const STREAM_HEIGHTS: u64 = 0x4E16_0000;

/// What the AGN layout needs besides the file: the square's place when the name has no
/// code, the GUID → model mapping, and the names of the files beside the `.agn` (to find
/// the `GBTE` / `RHTE` textures without I/O). [`load_options`] gathers them.
#[derive(Debug, Clone, Default)]
pub struct AgnOptions {
    /// `--origin LAT,LON`: the square's north-west corner, for a file whose name carries no
    /// LOD13 code. Ignored (with a warning) when the name has one.
    pub origin: Option<(f64, f64)>,
    /// GUID → path, from the `--guid-map` file ([`parse_mapping`]); keys are GUIDs in any
    /// form [`Guid::parse`] reads. What a path is for follows its extension: a `.for` gives a
    /// vegetation GUID's trees, an image (`.png`, `.dds`, `.bmp`) a roof GUID's texture, and
    /// anything else a library object's mesh.
    pub guid_models: HashMap<String, String>,
    /// The height range (min of the trees' minimum, max of their maximum, m) of each `.for`
    /// the mapping names, by its path in `guid_models`; read by [`load_options`]. A forest
    /// missing here (unreadable, no trees) gives trees their art's own height.
    pub forest_heights: HashMap<String, [f32; 2]>,
    /// Names of the files in the `.agn` file's directory.
    pub texture_dir_files: Vec<String>,
}

/// One LOD13 square's frame: square units to local meters.
#[derive(Debug, Clone, Copy)]
struct Square {
    /// Meters per square unit, `[x, y]`.
    mpu: [f64; 2],
}

impl Square {
    /// From the square's middle latitude.
    fn at_latitude(lat: f64) -> Square {
        Square {
            mpu: [
                LOD13_LON_STEP * METERS_PER_DEGREE * lat.to_radians().cos().max(0.0),
                LOD13_LAT_STEP * METERS_PER_DEGREE,
            ],
        }
    }

    /// A centred-frame point (−0.5..0.5, y south) in meters.
    fn centred(&self, p: Point) -> [f64; 2] {
        [
            f64::from(p[0]) * self.mpu[0],
            -f64::from(p[1]) * self.mpu[1],
        ]
    }

    /// A centred-frame vector in meters.
    fn vector(&self, v: Point) -> [f64; 2] {
        self.centred(v)
    }

    /// A top-left-frame point (0..1 from the north-west corner, y south) in meters.
    fn top_left(&self, p: Point) -> [f64; 2] {
        [
            (f64::from(p[0]) - 0.5) * self.mpu[0],
            -(f64::from(p[1]) - 0.5) * self.mpu[1],
        ]
    }

    /// The square's outline, counter-clockwise from the south-west corner.
    fn outline(&self) -> Vec<P2> {
        let (hx, hy) = ((self.mpu[0] / 2.0) as f32, (self.mpu[1] / 2.0) as f32);
        vec![[-hx, -hy], [hx, -hy], [hx, hy], [-hx, hy]]
    }
}

/// Finds the square from the file name, else from `--origin`, else the equator default.
fn place(
    path: &Path,
    opts: &AgnOptions,
    warn: &mut impl FnMut(String),
) -> Result<(Square, Option<GeoFrame>), Diagnostic> {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy())
        .unwrap_or_default();
    let why = match Lod13::from_file_name(&name) {
        Ok(sq) => {
            if let Some((lat, lon)) = opts.origin {
                warn(format!(
                    "--origin {lat},{lon} ignored: the file name names {sq}"
                ));
            }
            let b = sq.bounds();
            let (lat, lon) = b.center();
            let geo = GeoFrame {
                origin_lat: lat,
                origin_lon: lon,
                north: Some(b.north),
                south: Some(b.south),
                east: Some(b.east),
                west: Some(b.west),
                u: Some(sq.u),
                v: Some(sq.v),
            };
            let [mx, my] = sq.meters_per_unit();
            return Ok((Square { mpu: [mx, my] }, Some(geo)));
        }
        Err(why) => why,
    };
    match opts.origin {
        Some((lat, lon)) => {
            let south = lat - LOD13_LAT_STEP;
            if !(lat.is_finite() && lon.is_finite())
                || lat > 90.0
                || south < -90.0
                || !(-180.0..180.0).contains(&lon)
            {
                return Err(Diagnostic::error_file(
                    path,
                    format!(
                        "--origin {lat},{lon} cannot be a LOD13 square's north-west corner: latitude must be in {:.6}..90 and longitude in -180..180",
                        -90.0 + LOD13_LAT_STEP
                    ),
                ));
            }
            let geo = GeoFrame {
                origin_lat: lat - LOD13_LAT_STEP / 2.0,
                origin_lon: lon + LOD13_LON_STEP / 2.0,
                north: Some(lat),
                south: Some(south),
                east: Some(lon + LOD13_LON_STEP),
                west: Some(lon),
                u: None,
                v: None,
            };
            Ok((Square::at_latitude(geo.origin_lat), Some(geo)))
        }
        None => {
            warn(format!(
                "{why}; without --origin LAT,LON the square is laid out at 0°N 0°E (equator scale) with no geographic position"
            ));
            Ok((Square::at_latitude(-LOD13_LAT_STEP / 2.0), None))
        }
    }
}

/// The file name [`bench_file`] is made for (the sample's square).
pub const BENCH_FILE_NAME: &str = "000333311030032an.agn";

/// A town for timing the layout (`benches/layout.rs`): `buildings` generic buildings of 10
/// to 30 m at random headings spread over the square of [`BENCH_FILE_NAME`] in ten roof
/// groups, and `areas` eight-sided vegetation polygons 30 to 80 m in radius, drawn from a
/// fixed seed.
pub fn bench_file(buildings: usize, areas: usize) -> AgnFile {
    use crate::format::agn::{GenericBuildings, Polygon, VegetationPolygons};
    let [mx, my] =
        Lod13::from_file_name(BENCH_FILE_NAME).map_or([1.0, 1.0], |sq| sq.meters_per_unit());
    let mut rng = Rng::new(2024);
    let guid = |n: u8| {
        let mut b = [0u8; 16];
        b[0] = n;
        b[15] = 0xaa;
        Guid(b)
    };
    let mut groups: Vec<GenericBuildings> = (0..10)
        .map(|i| GenericBuildings {
            offset: 0,
            roof: if i == 0 { Guid::ZERO } else { guid(i) },
            buildings: Vec::new(),
        })
        .collect();
    let to_units = |m: [f32; 2]| [m[0] / mx as f32, -m[1] / my as f32];
    for i in 0..buildings {
        let x = rng.f32() * 0.96 - 0.48;
        let y = rng.f32() * 0.96 - 0.48;
        let (w, d) = (10.0 + rng.f32() * 20.0, 10.0 + rng.f32() * 20.0);
        let a = rng.f32() * std::f32::consts::TAU;
        let (s, c) = a.sin_cos();
        groups[i % 10].buildings.push(Footprint {
            offset: 0,
            start: [x, y],
            to_second: to_units([c * w, s * w]),
            to_third: to_units([-s * d, c * d]),
        });
    }
    let polygons = (0..areas)
        .map(|_| {
            let cx = 0.05 + rng.f32() * 0.9;
            let cy = 0.05 + rng.f32() * 0.9;
            let r = 30.0 + rng.f32() * 50.0;
            let mut vertices: Vec<Point> = (0..8)
                .map(|k| {
                    let a = k as f32 / 8.0 * std::f32::consts::TAU;
                    let rr = r * (0.7 + 0.3 * rng.f32());
                    [cx + rr * a.cos() / mx as f32, cy - rr * a.sin() / my as f32]
                })
                .collect();
            vertices.push(vertices[0]);
            Polygon {
                offset: 0,
                vertices,
            }
        })
        .collect();
    AgnFile {
        building_weights: Some(BuildingWeights {
            offset: 0,
            weights: [10, 6, 3, 1],
        }),
        building_texture: Some(TextureName {
            offset: 0,
            name: "town".into(),
        }),
        generic_buildings: groups,
        vegetation_polygons: vec![VegetationPolygons {
            offset: 0,
            vegetation: guid(99),
            polygons,
        }],
        ..AgnFile::default()
    }
}

/// Lays out an FSX `.agn` file on its LOD13 square. Pure: the directory listing and the
/// model mapping come in `opts`. Warnings go to `scene.warnings`.
pub fn layout(
    agn: &AgnFile,
    path: &Path,
    input: &LayoutInput,
    opts: &AgnOptions,
) -> Result<Scene, Diagnostic> {
    let mut warnings = Vec::new();
    let (square, geo) = place(path, opts, &mut |m| {
        warnings.push(Diagnostic::warning_file(path, m).with_kind(crate::diag::kind::LAYOUT))
    })?;
    let mut scene = Scene {
        kind: SceneKind::Agn,
        asset: path.display().to_string(),
        seed: input.seed,
        polygon: vec![square.outline()],
        geo,
        tile_lod: DEFAULT_TILE_LOD,
        warnings: warnings.into(),
        ..Scene::default()
    };
    let mut l = Layout {
        agn,
        path,
        opts,
        square,
        rng: Rng::new(input.seed),
        scene: &mut scene,
        guids: HashMap::new(),
        cap: WarningCap::default(),
    };
    l.read_guid_map();
    l.generic_buildings();
    l.row_houses();
    l.polygon_buildings();
    l.library_objects();
    l.vegetation();
    let summary = l.cap.summary(path);
    scene.warnings.extend(summary);
    scene.update_stats();
    Ok(scene)
}

/// The band of floors a generic building gets, drawn from the `GBDD` weights (clamped to
/// 0..=20), then uniform within the band. All-zero weights give 1–2 floors.
pub(crate) fn draw_floors(weights: &BuildingWeights, rng: &mut Rng) -> u32 {
    let band = rng.weighted(&weights.fractions()).unwrap_or(0);
    let (lo, hi) = BuildingWeights::FLOORS[band.min(3)];
    uniform(rng, (lo, hi))
}

fn uniform(rng: &mut Rng, (lo, hi): (u32, u32)) -> u32 {
    lo + rng.below((hi - lo + 1) as usize) as u32
}

/// `heading` of a vector in meters: degrees clockwise from north, in `[0, 360)`.
fn heading_of(v: [f64; 2]) -> f32 {
    let h = v[0].atan2(v[1]).to_degrees().rem_euclid(360.0) as f32;
    // A tiny negative angle wraps to just under 360, which rounds to 360 in f32.
    if h >= 360.0 {
        0.0
    } else {
        h
    }
}

/// Turns the ring counter-clockwise, its first point kept first, and gives its area (m²);
/// `None` when it is not finite or has no area.
fn ccw(ring: &mut [[f64; 2]]) -> Option<f64> {
    if !ring.iter().all(|&p| usable(p)) {
        return None;
    }
    let a2 = signed_area2(ring);
    if a2.abs() / 2.0 < MIN_AREA {
        return None;
    }
    if a2 < 0.0 {
        ring[1..].reverse();
    }
    Some(a2.abs() / 2.0)
}

/// A point that is finite and within [`MAX_METERS`].
fn usable(p: [f64; 2]) -> bool {
    p[0].abs() <= MAX_METERS && p[1].abs() <= MAX_METERS
}

fn to_f32(p: [f64; 2]) -> P2 {
    [p[0] as f32, p[1] as f32]
}

/// Counts skipped records of one chunk and reports them once.
struct Skipped {
    count: usize,
    first: u64,
}

impl Skipped {
    fn new() -> Self {
        Skipped { count: 0, first: 0 }
    }
    fn add(&mut self, offset: u64) {
        if self.count == 0 {
            self.first = offset;
        }
        self.count += 1;
    }
}

/// A warning's text: a string, or a closure that builds it when it is said.
trait Message {
    fn text(self) -> String;
}

impl Message for &str {
    fn text(self) -> String {
        self.to_string()
    }
}

impl<F: FnOnce() -> String> Message for F {
    fn text(self) -> String {
        self()
    }
}

/// What `--guid-map` maps a GUID to, told apart by the file's extension.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Mapped<'a> {
    /// A `.for`: the vegetation GUID's trees.
    Forest(&'a str),
    /// An image (`.png`, `.dds`, `.bmp`): a roof texture.
    Image(&'a str),
    /// Anything else: a library object's mesh.
    Model(&'a str),
}

fn mapped(path: &str) -> Mapped<'_> {
    let ext = Path::new(path)
        .extension()
        .map(|e| e.to_string_lossy().to_ascii_lowercase())
        .unwrap_or_default();
    match ext.as_str() {
        "for" => Mapped::Forest(path),
        "png" | "dds" | "bmp" => Mapped::Image(path),
        _ => Mapped::Model(path),
    }
}

struct Layout<'a> {
    agn: &'a AgnFile,
    path: &'a Path,
    opts: &'a AgnOptions,
    square: Square,
    rng: Rng,
    scene: &'a mut Scene,
    /// `--guid-map`, its keys read as GUIDs.
    guids: HashMap<Guid, &'a str>,
    cap: WarningCap,
}

impl<'a> Layout<'a> {
    /// A warning of `kind`; past [`crate::diag::SHOWN_PER_KIND`] of a kind only counted.
    /// The message is built only when the warning is said (a closure or a ready string), so
    /// that a file of a million bad records does not format a million messages.
    fn warn(&mut self, kind: &'static str, offset: u64, message: impl Message) {
        if self.cap.admit(kind, Severity::Warning, offset) {
            self.scene.warnings.push(Diagnostic::warning_offset(
                self.path,
                offset,
                message.text(),
            ));
        }
    }

    /// Reads the mapping's keys as GUIDs (any spelling matches); bad keys are warnings.
    fn read_guid_map(&mut self) {
        let opts = self.opts;
        let mut bad_keys: Vec<&String> = Vec::new();
        for (k, v) in &opts.guid_models {
            match Guid::parse(k.trim()) {
                Ok(g) => {
                    self.guids.insert(g, v.as_str());
                }
                Err(_) => bad_keys.push(k),
            }
        }
        bad_keys.sort();
        for k in bad_keys {
            let m = format!("model mapping key '{k}' is not a GUID; ignored");
            self.scene
                .warnings
                .push(Diagnostic::warning_file(self.path, m).with_kind(crate::diag::kind::LAYOUT));
        }
    }

    fn mapped(&self, g: &Guid) -> Option<Mapped<'a>> {
        self.guids.get(g).map(|p| mapped(p))
    }

    /// One warning for the records of a section that had no usable footprint.
    fn report(&mut self, skipped: Skipped, what: &str) {
        if skipped.count > 0 {
            self.warn(
                "records without a usable footprint",
                skipped.first,
                || format!(
                    "{} {what} skipped: no usable footprint (zero area, or points not finite or beyond 10,000 km; the first at offset {})",
                    skipped.count, skipped.first
                ),
            );
        }
    }

    /// The texture named by `GBTE` / `RHTE`, as a path beside the file.
    fn texture(&mut self, name: Option<&TextureName>, tag: &str) -> Option<String> {
        let name = name?;
        let found = TEXTURE_EXTENSIONS.iter().find_map(|ext| {
            let want = format!("{}.{ext}", name.name);
            self.opts
                .texture_dir_files
                .iter()
                .find(|f| f.eq_ignore_ascii_case(&want))
        });
        match found {
            Some(file) => Some(self.path.with_file_name(file).display().to_string()),
            None => {
                self.warn(
                    "texture not found",
                    name.offset,
                    || format!(
                        "{tag} names texture '{0}', but none of {0}.bmp, {0}.dds, {0}.png is beside the file; buildings are drawn untextured",
                        name.name
                    ),
                );
                None
            }
        }
    }

    /// A footprint's corners in meters, counter-clockwise from P1.
    fn footprint(&self, fp: &Footprint) -> Option<Vec<P2>> {
        let mut ring = fp.corners().map(|p| self.square.centred(p));
        ccw(&mut ring)?;
        Some(ring.iter().map(|&p| to_f32(p)).collect())
    }

    /// The sanity warnings of a box (a generic building, row house or library object):
    /// longer than [`MAX_SANE_LENGTH`], or crossing the LOD13 square's edge. `what` names
    /// the chunk and the record.
    fn sanity(&mut self, corners: &[Point; 4], what: impl Fn() -> String, offset: u64) {
        let m = corners.map(|p| self.square.centred(p));
        let side = |a: [f64; 2], b: [f64; 2]| (b[0] - a[0]).hypot(b[1] - a[1]);
        let (a, b) = (side(m[0], m[1]), side(m[1], m[2]));
        if a.max(b) > MAX_SANE_LENGTH {
            self.warn(
                "box longer than 500 m",
                offset,
                || format!(
                    "{}: {a:.0} x {b:.0} m, longer than {MAX_SANE_LENGTH:.0} m; drawn as given (was a direction written as a unit vector?)",
                    what()
                ),
            );
        }
        if corners.iter().any(|p| p[0].abs() > 0.5 || p[1].abs() > 0.5) {
            self.warn("box crossing the square's edge", offset, || {
                format!(
                    "{}: {a:.0} x {b:.0} m, crosses the LOD13 square's edge; drawn as given",
                    what()
                )
            });
        }
    }

    fn generic_buildings(&mut self) {
        let agn = self.agn;
        if agn.generic_buildings.is_empty() {
            return;
        }
        let weights = agn.building_weights.unwrap_or(BuildingWeights {
            offset: 0,
            weights: DEFAULT_WEIGHTS,
        });
        let texture = self.texture(agn.building_texture.as_ref(), "GBTE");
        let total: usize = agn
            .generic_buildings
            .iter()
            .map(|g| g.buildings.len())
            .sum();
        self.scene.facades.reserve(total);
        let mut rng = self.rng.fork(STREAM_GENERIC);
        for group in &agn.generic_buildings {
            let default = group.roof.is_zero();
            let roof = if default {
                DEFAULT_ROOF.to_string()
            } else {
                group.roof.to_string()
            };
            let roof_texture = match self.mapped(&group.roof) {
                Some(Mapped::Image(p)) if !default => Some(p.to_string()),
                _ => None,
            };
            let mut skipped = Skipped::new();
            let mut drawn = 0;
            for (i, b) in group.buildings.iter().enumerate() {
                // Draw before the geometry check so one bad record does not shift the rest.
                let floors = draw_floors(&weights, &mut rng);
                let Some(footprint) = self.footprint(b) else {
                    skipped.add(b.offset);
                    continue;
                };
                self.sanity(
                    &b.corners(),
                    || {
                        format!(
                            "GBLR chunk at offset {}, building {i} (offset {})",
                            group.offset, b.offset
                        )
                    },
                    b.offset,
                );
                let roof_height = if default {
                    default_roof_height(&footprint, floors)
                } else {
                    0.0
                };
                drawn += 1;
                self.scene.facades.push(FacadeInstance {
                    facade: None,
                    footprint,
                    height: floors as f32 * FLOOR_HEIGHT,
                    walls: None,
                    floors: Some(floors),
                    roof: Some(roof.clone()),
                    roof_height,
                    roof_texture: roof_texture.clone(),
                    agn_chunk: Some("GBLR"),
                    texture: texture.clone(),
                    line: 0,
                    feature: None,
                });
            }
            match self.scene.roof_types.iter_mut().find(|r| r.guid == roof) {
                Some(r) => r.buildings += drawn,
                None => self.scene.roof_types.push(RoofType {
                    guid: roof,
                    buildings: drawn,
                    texture: roof_texture,
                }),
            }
            let what = format!("buildings of the GBLR chunk at offset {}", group.offset);
            self.report(skipped, &what);
        }
    }

    fn row_houses(&mut self) {
        let agn = self.agn;
        if agn.row_houses.is_empty() {
            return;
        }
        let texture = self.texture(agn.row_house_texture.as_ref(), "RHTE");
        self.scene.facades.reserve(agn.row_houses.len());
        let mut rng = self.rng.fork(STREAM_ROW_HOUSES);
        let mut skipped = Skipped::new();
        for b in &agn.row_houses {
            let floors = uniform(&mut rng, ROW_HOUSE_FLOORS);
            let Some(footprint) = self.footprint(b) else {
                skipped.add(b.offset);
                continue;
            };
            self.sanity(
                &b.corners(),
                || format!("ROWH row house at offset {}", b.offset),
                b.offset,
            );
            self.scene.facades.push(FacadeInstance {
                facade: None,
                roof_height: default_roof_height(&footprint, floors),
                footprint,
                height: floors as f32 * FLOOR_HEIGHT,
                walls: None,
                floors: Some(floors),
                roof: Some(DEFAULT_ROOF.to_string()),
                roof_texture: None,
                agn_chunk: Some("ROWH"),
                texture: texture.clone(),
                line: 0,
                feature: None,
            });
        }
        self.report(skipped, "ROWH row houses");
    }

    fn polygon_buildings(&mut self) {
        let agn = self.agn;
        let mut rng = self.rng.fork(STREAM_POLYGON_BUILDINGS);
        for group in &agn.polygon_buildings {
            let guid = group.building.to_string();
            for b in &group.buildings {
                let floors = uniform(&mut rng, POLYGON_BUILDING_FLOORS);
                let line: Vec<[f64; 2]> = b
                    .vertices
                    .iter()
                    .map(|&p| self.square.top_left(p))
                    .collect();
                // First vertex = last: a closed outline, drawn as one building.
                let closed = b.vertices.len() > 3 && b.vertices.first() == b.vertices.last();
                let pieces = if closed {
                    let mut ring = line[..line.len() - 1].to_vec();
                    match ccw(&mut ring) {
                        Some(_) => vec![ring.iter().map(|&p| to_f32(p)).collect()],
                        None => Vec::new(),
                    }
                } else {
                    let width = f64::from(b.width) * self.square.mpu[1];
                    if !(width > 0.0 && width <= MAX_METERS) {
                        self.warn(
                            "PBDE strip without a usable width",
                            b.offset,
                            || format!(
                                "PBDE building with width {:?} skipped: an open vertex line is a strip, which needs a positive width under 10,000 km",
                                b.width
                            ),
                        );
                        continue;
                    }
                    strip_pieces(&line, width)
                };
                if pieces.is_empty() {
                    self.warn(
                        "PBDE building without a usable outline",
                        b.offset,
                        || format!(
                            "PBDE building with {} vertices skipped: {}",
                            b.vertices.len(),
                            if closed {
                                "its closed outline has no area, or points not finite or beyond 10,000 km"
                            } else {
                                "its vertex line has no usable segment (zero length, or points not finite or beyond 10,000 km)"
                            }
                        ),
                    );
                    continue;
                }
                for footprint in pieces {
                    self.scene.facades.push(FacadeInstance {
                        facade: None,
                        footprint,
                        height: floors as f32 * FLOOR_HEIGHT,
                        walls: None,
                        floors: Some(floors),
                        roof: Some(guid.clone()),
                        roof_height: 0.0,
                        roof_texture: None,
                        agn_chunk: Some("PBDE"),
                        texture: None,
                        line: 0,
                        feature: None,
                    });
                }
            }
        }
    }

    fn library_objects(&mut self) {
        let agn = self.agn;
        if agn.library_objects.is_empty() {
            return;
        }
        let mut mesh_index: HashMap<&str, usize> = HashMap::new();
        // No reservation up front: records that draw nothing (zero-area boxes) must not cost
        // the scene memory.
        for o in &agn.library_objects {
            let sq = self.square;
            // Three points: a rotated box P1, P2 = P1 + d, P3 = P2 + o. Two: opposite
            // corners of a box aligned with the square, heading 0.
            let (corners, heading) = match o.to_third {
                Some(t) => (
                    Footprint {
                        offset: o.offset,
                        start: o.start,
                        to_second: o.to_second,
                        to_third: t,
                    }
                    .corners(),
                    heading_of(sq.vector(o.to_second)),
                ),
                None => {
                    let [x, y] = o.start;
                    let [dx, dy] = o.to_second;
                    ([[x, y], [x + dx, y], [x + dx, y + dy], [x, y + dy]], 0.0)
                }
            };
            let mut ring = corners.map(|p| sq.centred(p));
            if !ring.iter().all(|&p| usable(p)) {
                self.warn(
                    "A2GE box not finite",
                    o.offset,
                    "A2GE library object skipped: its box is not finite or lies beyond 10,000 km",
                );
                continue;
            }
            self.sanity(
                &corners,
                || format!("A2GE library object {} at offset {}", o.guid, o.offset),
                o.offset,
            );
            let model = match self.mapped(&o.guid) {
                Some(Mapped::Model(m)) => Some(m),
                _ => None,
            };
            let a2 = signed_area2(&ring);
            if a2.abs() / 2.0 < MIN_AREA {
                // A box of no area draws nothing; only a mapped model has a place to go.
                self.warn(
                    "A2GE zero-area box",
                    o.offset,
                    || format!(
                        "A2GE library object {} at offset {}: its box has zero area ({} points); {}",
                        o.guid,
                        o.offset,
                        if o.to_third.is_some() { 3 } else { 2 },
                        if model.is_some() {
                            "its model is placed at the box's centre"
                        } else {
                            "nothing to draw, skipped"
                        }
                    ),
                );
                if model.is_none() {
                    continue;
                }
            } else if a2 < 0.0 {
                ring[1..].reverse();
            }
            let center = to_f32(sq.centred(o.center()));
            if let Some(m) = model {
                let next = self.scene.meshes.len();
                let index = *mesh_index.entry(m).or_insert(next);
                if index == next {
                    self.scene.meshes.push(ArtRef {
                        name: m.into(),
                        resolved: Some(m.into()),
                    });
                }
                self.scene.objects.push(ObjectInstance {
                    index: ObjectInstance::mesh_index(index),
                    path: m.into(),
                    pos: center,
                    heading,
                    mode: Placement::Draped,
                    ground_pt: center,
                    z_offset: 0.0,
                    show: [1, 1],
                    thin: 0.0,
                    line: 0,
                    feature: None,
                });
            }
            self.scene.library_objects.push(LibraryObject {
                guid: o.guid.to_string(),
                footprint: ring.map(to_f32),
                center,
                heading,
                model: model.map(str::to_string),
            });
        }
    }
}

/// The ridge height of a building with FSX's default roofs: a gable roof pitched at
/// [`DEFAULT_ROOF_PITCH_DEG`] over the footprint's shorter side (at most
/// [`MAX_RIDGE_HEIGHT`]) for a low building (at most [`PITCHED_MAX_FLOORS`] floors), flat
/// (0) for a taller one or an outline that is not four-cornered. See docs/spec-decisions.md.
pub(crate) fn default_roof_height(footprint: &[P2], floors: u32) -> f32 {
    if floors > PITCHED_MAX_FLOORS || footprint.len() != 4 {
        return 0.0;
    }
    let side = |a: P2, b: P2| (b[0] - a[0]).hypot(b[1] - a[1]);
    let short = side(footprint[0], footprint[1]).min(side(footprint[1], footprint[2]));
    (short / 2.0 * DEFAULT_ROOF_PITCH_DEG.to_radians().tan()).min(MAX_RIDGE_HEIGHT)
}

/// Footprints of a strip `width` meters wide along a vertex line: one rectangle per segment,
/// counter-clockwise, lengthened by `width / 2` at interior vertices. Zero-length segments
/// are left out.
pub(crate) fn strip_pieces(line: &[[f64; 2]], width: f64) -> Vec<Vec<P2>> {
    let mut out = Vec::with_capacity(line.len().saturating_sub(1));
    if !(width > 0.0 && width <= MAX_METERS) {
        return out;
    }
    let half = width / 2.0;
    let last = line.len().saturating_sub(1);
    for (k, seg) in line.windows(2).enumerate() {
        let (a, b) = (seg[0], seg[1]);
        if !(usable(a) && usable(b)) {
            continue;
        }
        let d = [b[0] - a[0], b[1] - a[1]];
        let len = d[0].hypot(d[1]);
        if !(len > 1e-6 && len.is_finite()) {
            continue;
        }
        let u = [d[0] / len, d[1] / len];
        let n = [-u[1] * half, u[0] * half];
        let back = if k > 0 { half } else { 0.0 };
        let ahead = if k + 1 < last { half } else { 0.0 };
        let a = [a[0] - u[0] * back, a[1] - u[1] * back];
        let b = [b[0] + u[0] * ahead, b[1] + u[1] * ahead];
        // Right side forward, left side back: counter-clockwise.
        out.push(vec![
            to_f32([a[0] - n[0], a[1] - n[1]]),
            to_f32([b[0] - n[0], b[1] - n[1]]),
            to_f32([b[0] + n[0], b[1] + n[1]]),
            to_f32([a[0] + n[0], a[1] + n[1]]),
        ]);
    }
    out
}

mod mapping;
mod vegetation;

pub use mapping::load_options;
#[allow(unused_imports)]
pub(crate) use mapping::parse_mapping;

pub(crate) use vegetation::fill_trees;

#[cfg(test)]
mod tests;
