//! Layout inputs from the command line and from polygon files (GeoJSON, DSF text), turned
//! into a [`LayoutInput`] in local meters.
//!
//! Geographic coordinates are projected to a local east/north frame around the first vertex
//! of the chosen polygon (or the placement point) with an equirectangular projection, which
//! is accurate to well under a centimetre over the few hundred meters an autogen element
//! covers.

use std::path::{Path, PathBuf};

use crate::diag::Diagnostic;
use crate::format::{self, FileKind};
use crate::layout::geom::P2;
/// Which way a tile faces at heading 0 (the layout's, named here for the loader's callers).
pub use crate::layout::Convention;
use crate::layout::{LayoutInput, PointInput};
use crate::scene::GeoFrame;

/// Meters per degree of latitude (and of longitude at the equator) on the WGS84 sphere.
pub const METERS_PER_DEGREE: f64 = 111_319.490_793_273_6;

/// What a load lays out on and resolves with: the command line's layout options, parsed
/// once (by the binary's `LayoutArgs`) into values. A polygon file is named here and read
/// by [`build`] at each load, so that a reload sees it change.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Inputs {
    /// A polygon (or point) file, and which of its polygons.
    pub polygon: Option<PolygonFile>,
    /// A rectangle `[W, D]` in meters: first side from (0,0) east to (W,0),
    /// counter-clockwise.
    pub rect: Option<[f32; 2]>,
    /// A point asset's place and heading.
    pub at: Option<GeoPoint>,
    /// A point asset's heading, degrees clockwise from north (over the file's).
    pub heading: Option<f32>,
    /// Building height in meters (over the parameter's high byte).
    pub height: Option<f32>,
    /// The DSF parameter, 0..=65535.
    pub param: Option<u32>,
    /// Seed for every random choice.
    pub seed: u64,
    /// Which way a tile faces at heading 0.
    pub convention: Convention,
    /// For an .agn whose name carries no LOD13 code: the square's north-west corner
    /// (lat, lon).
    pub origin: Option<(f64, f64)>,
    /// For an .agn: a file of `GUID path` lines.
    pub guid_map: Option<PathBuf>,
    /// The install and the library packages that resolve library paths.
    pub resolve: crate::resolve::ResolveOptions,
    /// Which parts of a document are shown; everything when empty.
    pub only: Vec<Only>,
    /// The viewer's edit mode: a shape laid out instead of the polygon file, `--rect` or
    /// `--at` (which stay named, so the file is still watched).
    pub edited: Option<EditedInput>,
}

/// A shape edited in the viewer, in degrees, laid out in a fixed local frame (the frame of
/// the scene the edit started from, so the view does not jump while a vertex moves).
#[derive(Debug, Clone, PartialEq)]
pub struct EditedInput {
    /// The local frame's origin, (longitude, latitude).
    pub frame: [f64; 2],
    pub shape: EditedShape,
    /// Where the shape came from, for messages: `(file, line)`.
    pub source: Option<(PathBuf, u32)>,
    /// Inside a document: the feature (its index in `Scene::features`) the shape replaces;
    /// that feature alone is laid out again (`document::EditCache`). `None`: the shape is
    /// the layout input of an asset opened alone.
    pub feature: Option<usize>,
    /// Inside a document: what the window's loads keep for laying the edited feature out
    /// alone (`None`: the whole document is laid out at each edit).
    pub cache: Option<std::sync::Arc<EditCache>>,
}

/// What the viewer hands over to save: one feature's new shape, in degrees.
#[derive(Debug, Clone, PartialEq)]
pub struct EditedShape {
    pub geometry: Shape,
    /// AGS: per ring, whether each edge spawns tiles (edge i from point i to i+1).
    pub spawn: Option<Vec<Vec<bool>>>,
    /// The DSF parameter, when the edit set it.
    pub param: Option<u32>,
    /// The building height in metres, when the edit set it.
    pub height: Option<f32>,
}

/// A shape in (longitude, latitude) degrees.
#[derive(Debug, Clone, PartialEq)]
pub enum Shape {
    /// Outer ring first, then holes; not closed (no repeated first point).
    Polygon(Vec<Vec<[f64; 2]>>),
    /// A point and its heading, degrees clockwise from north.
    Point { lon: f64, lat: f64, heading: f64 },
}

/// `--polygon FILE` with `--polygon-index N`.
#[derive(Debug, Clone, PartialEq)]
pub struct PolygonFile {
    pub path: PathBuf,
    /// Which polygon of the file (0-based, among those that apply); the first when `None`.
    pub index: Option<usize>,
}

/// A place on the earth with a heading: `--at LON,LAT,HEADING`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GeoPoint {
    pub lon: f64,
    pub lat: f64,
    /// Degrees clockwise from north.
    pub heading: f32,
}

/// What `--only` keeps of a document.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Only {
    /// The autogen features (.agp, .agb, .ags).
    Autogen,
    /// Objects, facades and forests placed by hand (.obj, .fac, .for).
    Art,
    /// The ground: draped polygons and orthophotos (.pol), painted lines (.lin), object
    /// strings (.str), and an airport's runways, pavement and markings.
    Ground,
    /// Road networks (`--only roads`; not part of `ground`).
    Roads,
}

impl Only {
    /// Which part of a document a feature of `kind` belongs to.
    pub fn of(kind: crate::scene::FeatureKind) -> Only {
        use crate::scene::FeatureKind as K;
        match kind {
            K::Agp | K::Agb | K::Ags => Only::Autogen,
            K::Obj | K::Fac | K::For => Only::Art,
            K::Pol | K::Lin | K::Str => Only::Ground,
            K::Runway | K::Helipad | K::Pavement | K::Marking => Only::Ground,
            K::Road => Only::Roads,
        }
    }
}

impl Inputs {
    /// Whether `--only` keeps features of `kind` (everything when it is not given).
    pub fn keeps(&self, kind: crate::scene::FeatureKind) -> bool {
        self.only.is_empty() || self.only.contains(&Only::of(kind))
    }

    /// Whether a polygon, a rectangle or a point is given (a document places its own).
    pub fn places(&self) -> bool {
        self.polygon.is_some() || self.rect.is_some() || self.at.is_some()
    }

    /// The polygon file, when one is given: a load watches it.
    pub fn polygon_path(&self) -> Option<&Path> {
        self.polygon.as_ref().map(|p| p.path.as_path())
    }

    /// Checks what no parser can: one place at most, a finite non-negative height, a
    /// parameter that fits its 16 bits, coordinates on the earth. The command line's
    /// parser calls it; a message names the flag.
    pub fn validate(&self) -> Result<(), String> {
        if let Some(h) = self.height {
            if !h.is_finite() || h < 0.0 {
                return Err(format!(
                    "--height {h}: must be a non-negative number of meters"
                ));
            }
        }
        if let Some(p) = self.param {
            if p > 0xFFFF {
                return Err(format!("--param {p}: a DSF parameter is 0..65535"));
            }
        }
        let sources = [
            self.polygon.is_some(),
            self.rect.is_some(),
            self.at.is_some(),
        ];
        if sources.iter().filter(|b| **b).count() > 1 {
            return Err("give only one of --polygon, --rect and --at".to_string());
        }
        if let Some(h) = self.heading {
            if !h.is_finite() {
                return Err(format!("--heading {h}: not a finite number"));
            }
        }
        Ok(())
    }
}

/// `--at LON,LAT,HEADING` as a point.
pub fn parse_at(s: &str) -> Result<GeoPoint, String> {
    let v = numbers(s, 3, "--at LON,LAT,HEADING")?;
    if v[1].abs() > 90.0 || v[0].abs() > 180.0 {
        return Err(format!("--at {s}: longitude or latitude out of range"));
    }
    Ok(GeoPoint {
        lon: v[0],
        lat: v[1],
        heading: v[2] as f32,
    })
}

/// `--origin LAT,LON` as numbers.
pub fn parse_origin(s: &str) -> Result<(f64, f64), String> {
    let v = numbers(s, 2, "--origin LAT,LON")?;
    if v[0].abs() > 90.0 || v[1].abs() > 180.0 {
        return Err(format!("--origin {s}: latitude or longitude out of range"));
    }
    Ok((v[0], v[1]))
}

fn numbers(s: &str, n: usize, what: &str) -> Result<Vec<f64>, String> {
    let v: Vec<f64> = s
        .split(',')
        .map(|p| p.trim().parse::<f64>())
        .collect::<Result<_, _>>()
        .map_err(|_| format!("{what}: expected {n} comma-separated numbers, got `{s}`"))?;
    if v.len() != n || v.iter().any(|x| !x.is_finite()) {
        return Err(format!(
            "{what}: expected {n} comma-separated finite numbers, got `{s}`"
        ));
    }
    Ok(v)
}

/// Parses `WxD` into positive meters.
pub fn parse_rect(s: &str) -> Result<(f32, f32), String> {
    let (w, d) = s
        .split_once(['x', 'X'])
        .ok_or_else(|| format!("--rect {s}: expected WxD in meters, e.g. 100x80"))?;
    let w: f32 = w
        .trim()
        .parse()
        .map_err(|_| format!("--rect {s}: width `{w}` is not a number"))?;
    let d: f32 = d
        .trim()
        .parse()
        .map_err(|_| format!("--rect {s}: depth `{d}` is not a number"))?;
    if !(w.is_finite() && d.is_finite()) || w <= 0.0 || d <= 0.0 {
        return Err(format!(
            "--rect {s}: width and depth must be positive meters"
        ));
    }
    Ok((w, d))
}

/// Projects geographic points to local meters around `origin` (lon, lat).
pub fn project(origin: [f64; 2], lonlat: [f64; 2]) -> P2 {
    let k = origin[1].to_radians().cos();
    [
        ((lonlat[0] - origin[0]) * k * METERS_PER_DEGREE) as f32,
        ((lonlat[1] - origin[1]) * METERS_PER_DEGREE) as f32,
    ]
}

/// The inverse of [`project`]: local meters (east, north of `origin`) back to (lon, lat)
/// degrees, in `f64` so that a point projected and brought back moves by well under 1e-9°.
/// Near a pole, where a degree of longitude has no width, the east offset is kept finite.
pub fn unproject(origin: [f64; 2], local: [f64; 2]) -> [f64; 2] {
    let k = origin[1].to_radians().cos().max(1e-9);
    [
        origin[0] + local[0] / (k * METERS_PER_DEGREE),
        origin[1] + local[1] / METERS_PER_DEGREE,
    ]
}

fn geo(origin: [f64; 2]) -> GeoFrame {
    GeoFrame {
        origin_lat: origin[1],
        origin_lon: origin[0],
        ..Default::default()
    }
}

fn project_rings(rings: &[Vec<[f64; 2]>]) -> (Vec<Vec<P2>>, GeoFrame) {
    let origin = rings
        .first()
        .and_then(|r| r.first())
        .copied()
        .unwrap_or([0.0, 0.0]);
    let out = rings
        .iter()
        .map(|r| r.iter().map(|p| project(origin, *p)).collect())
        .collect();
    (out, geo(origin))
}

/// True when the asset is placed at a point rather than on a polygon.
fn is_point_asset(asset: &Path) -> bool {
    asset
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("agp"))
}

/// Builds the layout input for `asset` from `inputs`, reading the polygon file if one is
/// named. Warnings from reading it are pushed to `warnings`.
pub fn build(
    inputs: &Inputs,
    asset: &Path,
    warnings: &mut Vec<Diagnostic>,
) -> Result<LayoutInput, Diagnostic> {
    if let Some(e) = &inputs.edited {
        return Ok(edited_input(inputs, e));
    }
    inputs
        .validate()
        .map_err(|m| Diagnostic::error_file(asset, m))?;
    let mut input = LayoutInput {
        param: inputs.param,
        height: inputs.height,
        seed: inputs.seed,
        convention: inputs.convention,
        ..Default::default()
    };
    if let Some([w, d]) = inputs.rect {
        input.polygon = Some(vec![vec![[0.0, 0.0], [w, 0.0], [w, d], [0.0, d]]]);
    }
    if let Some(at) = inputs.at {
        input.point = Some(PointInput {
            pos: [0.0, 0.0],
            heading: at.heading,
        });
        input.geo = Some(geo([at.lon, at.lat]));
    }
    if let Some(h) = inputs.heading {
        let p = input.point.get_or_insert_with(PointInput::default);
        p.heading = h;
    }
    if let Some(file) = &inputs.polygon {
        read_polygon_file(inputs, asset, file, &mut input, warnings)?;
    }
    Ok(input)
}

/// The layout input of an edited shape: its rings (or point) projected into its frame, as a
/// GeoJSON polygon's are, with its spawn flags, parameter and height.
fn edited_input(inputs: &Inputs, e: &EditedInput) -> LayoutInput {
    let mut input = LayoutInput {
        param: e.shape.param,
        height: e.shape.height,
        seed: inputs.seed,
        convention: inputs.convention,
        geo: Some(geo(e.frame)),
        polygon_source: e.source.clone(),
        ..Default::default()
    };
    match &e.shape.geometry {
        Shape::Polygon(rings) => {
            input.polygon = Some(
                rings
                    .iter()
                    .map(|r| r.iter().map(|p| project(e.frame, *p)).collect())
                    .collect(),
            );
            input.spawn = e.shape.spawn.clone();
        }
        Shape::Point { lon, lat, heading } => {
            input.point = Some(PointInput {
                pos: project(e.frame, [*lon, *lat]),
                heading: *heading as f32,
            });
        }
    }
    input
}

/// The shape a polygon file gives `asset` (as [`build`] picks it), in degrees, for the
/// viewer's edit mode: the shape, its line, and for a GeoJSON the feature's index among
/// every feature of the file. `Ok(None)` when no polygon file is named.
pub fn source_shape(inputs: &Inputs, asset: &Path) -> Result<Option<SourceShape>, Diagnostic> {
    let Some(polygon) = &inputs.polygon else {
        return Ok(None);
    };
    let file = polygon.path.as_path();
    let bytes = format::read_file(file)?;
    let mut warnings = Vec::new();
    let mut input = LayoutInput::default();
    read_polygon_file(inputs, asset, polygon, &mut input, &mut warnings)?;
    let line = input.polygon_source.as_ref().map_or(0, |s| s.1);
    let kind = FileKind::detect(file, &bytes);
    let mut out = SourceShape {
        shape: EditedShape {
            geometry: Shape::Polygon(Vec::new()),
            spawn: None,
            param: input.param,
            height: input.height,
        },
        line,
        geojson_feature: None,
        dsf_windings: false,
    };
    match kind {
        Some(FileKind::GeoJson) => {
            let gj = format::geojson::parse(file, &bytes, &mut warnings)?;
            if let Some(p) = gj
                .points
                .iter()
                .find(|p| p.line == line && input.point.is_some())
            {
                out.shape.geometry = Shape::Point {
                    lon: p.lon,
                    lat: p.lat,
                    heading: inputs.heading.map(f64::from).or(p.heading).unwrap_or(0.0),
                };
            } else if let Some(p) = gj.polygons.iter().find(|p| p.line == line) {
                out.shape.geometry = Shape::Polygon(p.rings.clone());
                out.shape.spawn = p.spawn.clone();
            }
            // Always set for a GeoJSON (feature 0 when the scan finds none).
            out.geojson_feature = Some(
                geojson_feature_index(&bytes, input.point.is_some(), polygon.index.unwrap_or(0))
                    .unwrap_or(0),
            );
        }
        Some(FileKind::DsfText) => {
            let dsf = format::dsf::parse(file, &bytes, &mut warnings)?;
            if input.point.is_some() {
                if let Some(o) = dsf.objects.iter().find(|o| o.line == line) {
                    out.shape.geometry = Shape::Point {
                        lon: o.lon,
                        lat: o.lat,
                        heading: inputs.heading.map(f64::from).unwrap_or(o.heading),
                    };
                }
            } else if let Some(p) = dsf.polygons.iter().find(|p| p.line == line) {
                out.shape.geometry = Shape::Polygon(p.windings.clone());
                out.dsf_windings = true;
            }
        }
        _ => {}
    }
    Ok(Some(out))
}

/// What [`source_shape`] found.
#[derive(Debug, Clone, PartialEq)]
pub struct SourceShape {
    pub shape: EditedShape,
    /// 1-based line of the polygon or point in its file.
    pub line: u32,
    /// A GeoJSON's feature index (0-based, among every feature of the file) holding it;
    /// `None` for a DSF text file.
    pub geojson_feature: Option<usize>,
    /// The rings are a DSF polygon's windings (an `.ags`'s may be open runs).
    pub dsf_windings: bool,
}

/// The index (0-based, in file order, among every feature of the file) of the GeoJSON
/// feature holding the `nth` polygon (or point, when `points`) of the file, counting as
/// [`format::geojson`] does: a `MultiPolygon` holds several, a `GeometryCollection` its
/// members'. A bare geometry is feature 0.
fn geojson_feature_index(bytes: &[u8], points: bool, nth: usize) -> Option<usize> {
    fn count(g: &serde_json::Value, points: bool) -> usize {
        let coords = || {
            g.get("coordinates")
                .and_then(|c| c.as_array())
                .map_or(0, |a| a.len())
        };
        match g.get("type").and_then(|t| t.as_str()) {
            Some("Polygon") if !points => 1,
            Some("MultiPolygon") if !points => coords(),
            Some("Point") if points => 1,
            Some("MultiPoint") if points => coords(),
            Some("GeometryCollection") => g
                .get("geometries")
                .and_then(|v| v.as_array())
                .map_or(0, |a| a.iter().map(|m| count(m, points)).sum()),
            _ => 0,
        }
    }
    let root: serde_json::Value = serde_json::from_slice(bytes).ok()?;
    let features: Vec<&serde_json::Value> = match root.get("type").and_then(|t| t.as_str()) {
        Some("FeatureCollection") => root.get("features")?.as_array()?.iter().collect(),
        _ => return Some(0),
    };
    let mut seen = 0;
    for (i, f) in features.iter().enumerate() {
        seen += f.get("geometry").map_or(0, |g| count(g, points));
        if seen > nth {
            return Some(i);
        }
    }
    None
}

fn read_polygon_file(
    args: &Inputs,
    asset: &Path,
    polygon: &PolygonFile,
    input: &mut LayoutInput,
    warnings: &mut Vec<Diagnostic>,
) -> Result<(), Diagnostic> {
    let file = polygon.path.as_path();
    let bytes = format::read_file(file)?;
    let point_asset = is_point_asset(asset);
    let asset_name = asset
        .file_name()
        .map(|n| n.to_string_lossy().to_string())
        .unwrap_or_default();
    let pick = |n: usize, what: &str| -> Result<usize, Diagnostic> {
        let i = polygon.index.unwrap_or(0);
        if i >= n {
            return Err(Diagnostic::error_file(
                file,
                format!("--polygon-index {i}: the file has {n} {what}"),
            ));
        }
        Ok(i)
    };
    match FileKind::detect(file, &bytes) {
        Some(FileKind::GeoJson) => {
            let gj = format::geojson::parse(file, &bytes, warnings)?;
            if point_asset && !gj.points.is_empty() {
                let p = &gj.points[pick(gj.points.len(), "point(s)")?];
                input.point = Some(PointInput {
                    pos: [0.0, 0.0],
                    heading: args.heading.unwrap_or(p.heading.unwrap_or(0.0) as f32),
                });
                input.geo = Some(geo([p.lon, p.lat]));
                input.param = input.param.or(p.param);
                input.height = input.height.or(p.height.map(|h| h as f32));
                input.polygon_source = Some((file.to_path_buf(), p.line));
                return Ok(());
            }
            if gj.polygons.is_empty() {
                return Err(Diagnostic::error_file(
                    file,
                    format!(
                        "no polygon in the file (it has {} point(s)); {} needs a polygon",
                        gj.points.len(),
                        asset_name
                    ),
                ));
            }
            let p = &gj.polygons[pick(gj.polygons.len(), "polygon(s)")?];
            let (rings, frame) = project_rings(&p.rings);
            input.polygon = Some(rings);
            input.spawn = p.spawn.clone();
            input.geo = Some(frame);
            input.param = input.param.or(p.param);
            input.height = input.height.or(p.height.map(|h| h as f32));
            input.polygon_source = Some((file.to_path_buf(), p.line));
        }
        Some(FileKind::DsfText) => {
            let dsf = format::dsf::parse(file, &bytes, warnings)?;
            if point_asset {
                let defs: Vec<usize> = dsf
                    .object_defs
                    .iter()
                    .enumerate()
                    .filter(|(_, d)| d.path.replace('\\', "/").ends_with(&asset_name))
                    .map(|(i, _)| i)
                    .collect();
                let objs: Vec<_> = dsf
                    .objects
                    .iter()
                    .filter(|o| defs.contains(&o.def))
                    .collect();
                if objs.is_empty() {
                    return Err(Diagnostic::error_file(
                        file,
                        format!("no OBJECT in the file places {asset_name}"),
                    ));
                }
                let o = objs[pick(objs.len(), "placement(s) of the asset")?];
                input.point = Some(PointInput {
                    pos: [0.0, 0.0],
                    heading: args.heading.unwrap_or(o.heading as f32),
                });
                input.geo = Some(geo([o.lon, o.lat]));
                input.polygon_source = Some((file.to_path_buf(), o.line));
                return Ok(());
            }
            let polys = dsf.polygons_for(&asset_name);
            let chosen = if polys.is_empty() {
                if polygon.index.is_none() {
                    return Err(Diagnostic::error_file(
                        file,
                        format!(
                            "no polygon in the file uses {asset_name} (no POLYGON_DEF names it); pick one with --polygon-index"
                        ),
                    ));
                }
                let all: Vec<_> = dsf.polygons.iter().collect();
                all[pick(all.len(), "polygon(s)")?]
            } else {
                polys[pick(polys.len(), "polygon(s) that use the asset")?]
            };
            let (rings, frame) = project_rings(&chosen.windings);
            input.polygon = Some(rings);
            input.windings = true;
            input.geo = Some(frame);
            input.param = input.param.or(Some(chosen.param));
            input.polygon_source = Some((file.to_path_buf(), chosen.line));
        }
        _ => {
            return Err(Diagnostic::error_file(
                file,
                "--polygon takes a GeoJSON (.geojson) or DSF text file",
            ))
        }
    }
    Ok(())
}

/// What a document's load keeps for laying out one edited feature again; shared by the
/// loads of one window ([`EditedInput::cache`]). What is kept is the document stage's own
/// (`document::editing`); it is held here, opaque, so the inputs need not know the stage
/// above them. Two caches are equal when they are the same one.
#[derive(Default)]
pub struct EditCache(std::sync::Mutex<Option<Box<dyn std::any::Any + Send>>>);

impl PartialEq for EditCache {
    fn eq(&self, other: &Self) -> bool {
        std::ptr::eq(self, other)
    }
}

impl std::fmt::Debug for EditCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("EditCache(..)")
    }
}

impl EditCache {
    /// Forgets what was kept (the next edit lays the whole document out again).
    pub fn clear(&self) {
        if let Ok(mut k) = self.0.lock() {
            *k = None;
        }
    }

    /// Whether a document is kept.
    pub fn is_kept(&self) -> bool {
        self.0.lock().is_ok_and(|k| k.is_some())
    }

    /// The slot the document stage keeps its parts in.
    pub fn slot(&self) -> &std::sync::Mutex<Option<Box<dyn std::any::Any + Send>>> {
        &self.0
    }
}

/// WED's autogen parameter: `clamp(intround(height / 4), 0, 255) << 8 | low` (`intround`
/// rounds half up), `low` clamped to 0..=255.
pub fn autogen_param(height_m: f32, low: u32) -> u32 {
    let high = (f64::from(height_m) * 0.25 + 0.5).floor().clamp(0.0, 255.0) as u32;
    high << 8 | low.min(255)
}

/// What an edited polygon becomes in a DSF: its windings and its `BEGIN_POLYGON` parameter,
/// from its closed `rings` (in (lon, lat)) and the polygon's parameter until now (`old`).
/// An `.ags` (`ags`) is written as WED writes it ([`autogen_windings`](crate::format::wed::autogen_windings), its flags: the
/// shape's, or ring k spawning whole when k is below the low byte, as the layout reads rings
/// without flags) and its low byte counts the spawning windings; every other polygon is one
/// winding per ring and keeps its low byte. The high byte is the edited height's
/// ([`autogen_param`]) when the edit set one, else the parameter's. The one rule the save
/// writes by (`edit`) and a document's edited feature is laid out by (`document`); it lives
/// here, below both.
pub fn dsf_polygon(
    rings: &[Vec<[f64; 2]>],
    shape: &EditedShape,
    old: u32,
    ags: bool,
) -> (Vec<Vec<[f64; 2]>>, u32) {
    let old = shape.param.unwrap_or(old);
    let (windings, low) = if ags {
        let flags = match &shape.spawn {
            Some(f) => f.clone(),
            None => rings
                .iter()
                .enumerate()
                .map(|(k, r)| vec![(k as u32) < (old & 0xFF); r.len()])
                .collect(),
        };
        let (w, n) = crate::format::wed::autogen_windings(rings, &flags);
        (w, n as u32)
    } else {
        (rings.to_vec(), old & 0xFF)
    };
    let param = match shape.height {
        Some(h) => autogen_param(h, low),
        None => (old & 0xFF00) | low.min(255),
    };
    (windings, param)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rects() {
        assert_eq!(parse_rect("100x80"), Ok((100.0, 80.0)));
        assert!(parse_rect("0x0").unwrap_err().contains("must be positive"));
        assert!(parse_rect("-5x10")
            .unwrap_err()
            .contains("must be positive"));
        assert!(parse_rect("abc").unwrap_err().contains("expected WxD"));
        assert!(parse_rect("5xnan").is_err());
    }

    #[test]
    fn projection_is_meters() {
        let p = project([10.0, 0.0], [10.001, 0.001]);
        assert!(
            (p[0] - 111.32).abs() < 0.01 && (p[1] - 111.32).abs() < 0.01,
            "{p:?}"
        );
        let q = project([10.0, 60.0], [10.001, 60.0]);
        assert!(
            (q[0] - 55.66).abs() < 0.01,
            "longitude shrinks with cos(lat): {q:?}"
        );
    }

    #[test]
    fn unproject_inverts_project() {
        for origin in [[12.6, 47.6], [-122.4, 37.7], [0.0, 0.0], [170.0, -60.0]] {
            let near = [origin[0] + 0.003, origin[1] - 0.002];
            let m = project(origin, near);
            let back = unproject(origin, [f64::from(m[0]), f64::from(m[1])]);
            // `project` rounds to f32 meters (about 30 µm here): 1e-9° is 0.1 mm.
            assert!(
                (back[0] - near[0]).abs() < 1e-9 && (back[1] - near[1]).abs() < 1e-9,
                "{origin:?} {near:?} {back:?}"
            );
        }
        assert!(unproject([0.0, 90.0], [10.0, 0.0])[0].is_finite());
    }

    #[test]
    fn one_source_only() {
        let args = Inputs {
            rect: Some([10.0, 10.0]),
            at: Some(parse_at("1,2,3").unwrap()),
            ..Default::default()
        };
        let e = build(&args, Path::new("a.agb"), &mut Vec::new()).unwrap_err();
        assert!(e.to_string().contains("only one of"));
    }

    #[test]
    fn geojson_without_polygon_is_an_error() {
        let dir = std::env::temp_dir().join(format!("agview-input-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let f = dir.join("p.geojson");
        std::fs::write(
            &f,
            r#"{"type":"Feature","geometry":{"type":"Point","coordinates":[1,2]},"properties":{}}"#,
        )
        .unwrap();
        let args = Inputs {
            polygon: Some(PolygonFile {
                path: f.clone(),
                index: None,
            }),
            ..Default::default()
        };
        let e = build(&args, Path::new("a.agb"), &mut Vec::new()).unwrap_err();
        assert!(e.to_string().contains("no polygon in the file"), "{e}");
        // A point asset takes the point.
        let i = build(&args, Path::new("a.agp"), &mut Vec::new()).unwrap();
        assert!(i.point.is_some());
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn the_edited_shape_names_the_feature_that_holds_it() {
        let dir = std::env::temp_dir().join(format!("agview-source-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let f = dir.join("p.geojson");
        let sq = "[[[8,47],[8.001,47],[8.001,47.001],[8,47]]]";
        std::fs::write(
            &f,
            format!(
                r#"{{"type":"FeatureCollection","features":[
 {{"type":"Feature","properties":{{}},"geometry":{{"type":"Point","coordinates":[1,2]}}}},
 {{"type":"Feature","properties":{{}},"geometry":{{"type":"MultiPolygon","coordinates":[{sq},{sq}]}}}},
 {{"type":"Feature","properties":{{"param":513}},"geometry":{{"type":"Polygon","coordinates":{sq}}}}}]}}"#
            ),
        )
        .unwrap();
        let at = |index| Inputs {
            polygon: Some(PolygonFile {
                path: f.clone(),
                index: Some(index),
            }),
            ..Default::default()
        };
        let s = source_shape(&at(1), Path::new("a.agb")).unwrap().unwrap();
        assert_eq!(s.geojson_feature, Some(1));
        let s = source_shape(&at(2), Path::new("a.agb")).unwrap().unwrap();
        assert_eq!(s.geojson_feature, Some(2));
        assert_eq!(s.shape.param, Some(513));
        assert!(matches!(&s.shape.geometry, Shape::Polygon(r) if r[0].len() == 3));
        // A point asset takes the point: feature 0.
        let s = source_shape(&at(0), Path::new("a.agp")).unwrap().unwrap();
        assert_eq!(s.geojson_feature, Some(0));
        assert!(matches!(s.shape.geometry, Shape::Point { .. }));
        // The edited shape is laid out in its frame, with its parameter.
        let e = EditedInput {
            frame: [8.0, 47.0],
            shape: s.shape.clone(),
            source: None,
            feature: None,
            cache: None,
        };
        let i = build(
            &Inputs {
                edited: Some(e),
                ..at(0)
            },
            Path::new("a.agp"),
            &mut Vec::new(),
        )
        .unwrap();
        assert!(i.point.is_some() && i.geo.is_some());
        let _ = std::fs::remove_dir_all(&dir);
    }
}
