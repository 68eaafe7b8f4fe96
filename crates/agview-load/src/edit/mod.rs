//! Writing an edited shape back to the file it came from (issue 37, the author's loop).
//!
//! - [`save`] (`Ctrl+S`): a GeoJSON feature or a DSF text polygon or object, changed in
//!   place; every other feature, line and byte of the file stays as it was (the `geojson`
//!   and `dsf_text` submodules say exactly what changes). WED projects, binary
//!   DSFs and shapes with no file ([`Origin::ReadOnly`], [`Origin::Unsaved`]) are refused
//!   with a [`SaveError`] that says to use "Save as GeoJSON".
//! - [`save_as_geojson`]: the one feature, to a new file.
//! - [`write_atomic`]: every write goes to a temporary file in the same folder, flushed,
//!   then renamed into place, so a crash leaves the old file or the new one, never half.
//! - Before anything is written the shape is checked ([`validate`]: at least 3 vertices a
//!   ring, coordinates on the earth, flags that fit) and the new file is read back with the
//!   project's own reader; a failure writes nothing and says why.
//!
//! Fields and variants may be added to the types here; none renamed (the viewer's edit mode
//! builds on them).

use std::path::{Path, PathBuf};

mod atomic;
mod dsf_text;
mod geojson;

pub use atomic::{temp_path, write_atomic, write_atomic_with};
pub use dsf_text::{autogen_param, dsf_polygon, is_ags, wed_ags_windings};

use crate::format::FileKind;
use crate::input::{self, Inputs};

pub use crate::input::{EditedShape, Shape};

/// Where a shape came from, and so where `Ctrl+S` writes it.
#[derive(Debug, Clone, PartialEq)]
pub enum Origin {
    /// The `index`th feature (0-based, in file order, among every feature of the file) of
    /// a GeoJSON file.
    GeoJson { path: PathBuf, index: usize },
    /// The polygon or object starting at `line` (1-based: its `BEGIN_POLYGON` or `OBJECT`
    /// line) of a DSF text file.
    DsfText { path: PathBuf, line: usize },
    /// Read-only sources: a WED project or a binary DSF. Only "Save as GeoJSON".
    ReadOnly { path: PathBuf, why: String },
    /// `--rect` or a polygon drawn by hand: only "Save as GeoJSON".
    Unsaved,
}

/// Why a save did not happen; the edits are kept.
#[derive(Debug, Clone, PartialEq)]
pub struct SaveError(pub String);

impl std::fmt::Display for SaveError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for SaveError {}

/// Where a shape with no place on the earth (`--rect`, a polygon drawn by hand with no
/// geographic frame) is put when saved as GeoJSON and no `--origin` is given: longitude 0,
/// latitude 0, as [lon, lat]. The saved file records it (`origin`, `origin_note`), so the
/// shape can be moved where it belongs. See `docs/spec-decisions.md`, "Edit mode: saving".
pub const DEFAULT_ORIGIN: [f64; 2] = [0.0, 0.0];

/// What a file saved at [`DEFAULT_ORIGIN`] says about it in its properties.
pub(crate) const DEFAULT_ORIGIN_NOTE: &str = "agview's default origin (longitude 0, latitude 0): \
     no --origin LAT,LON was given, so this shape sits where its local frame was put, not \
     where it belongs";

/// Where a shape in local meters is placed on the earth: `--origin LAT,LON` (as
/// [`Inputs::origin`] holds it, latitude first) or else [`DEFAULT_ORIGIN`]; as [lon, lat].
pub fn placement_origin(origin: Option<(f64, f64)>) -> [f64; 2] {
    origin.map_or(DEFAULT_ORIGIN, |(lat, lon)| [lon, lat])
}

/// A shape given in local meters (east, north of `origin`, [lon, lat]) in degrees, through
/// the projection every load uses ([`input::project`] and its inverse [`input::unproject`]).
pub fn local_to_lonlat(origin: [f64; 2], local: [f64; 2]) -> [f64; 2] {
    input::unproject(origin, local)
}

/// A point in degrees as local meters east and north of `origin` (the load's projection).
pub fn lonlat_to_local(origin: [f64; 2], lonlat: [f64; 2]) -> [f64; 2] {
    let p = input::project(origin, lonlat);
    [f64::from(p[0]), f64::from(p[1])]
}

/// Rings in local meters (as the layout takes them) placed around `origin` ([lon, lat]).
pub fn polygon_from_local(origin: [f64; 2], rings: &[Vec<[f32; 2]>]) -> Shape {
    Shape::Polygon(
        rings
            .iter()
            .map(|r| {
                r.iter()
                    .map(|p| local_to_lonlat(origin, [f64::from(p[0]), f64::from(p[1])]))
                    .collect()
            })
            .collect(),
    )
}

/// Checks what every save needs, before anything is written: each ring of at least 3
/// vertices, positions on the earth (longitude -180..=180, latitude -90..=90, finite), one
/// spawn flag per edge when flags are given, a parameter that fits 16 bits, a finite
/// non-negative height and a finite heading. The viewer may call it to say why a shape
/// cannot be saved before the user asks.
pub fn validate(shape: &EditedShape) -> Result<(), SaveError> {
    let bad_pos = |p: [f64; 2]| {
        !(p[0].is_finite() && p[1].is_finite() && p[0].abs() <= 180.0 && p[1].abs() <= 90.0)
    };
    match &shape.geometry {
        Shape::Polygon(rings) => {
            if rings.is_empty() {
                return Err(SaveError(
                    "the polygon has no ring: there is nothing to save".into(),
                ));
            }
            for (k, r) in rings.iter().enumerate() {
                let what = if k == 0 {
                    "the outer ring".to_string()
                } else {
                    format!("hole {k}")
                };
                if r.len() < 3 {
                    return Err(SaveError(format!(
                        "{what} has {} vertex(es): a polygon ring needs at least 3, so it cannot \
                         be saved (add vertices{})",
                        r.len(),
                        if k == 0 { "" } else { " or remove the hole" }
                    )));
                }
                if let Some(p) = r.iter().find(|p| bad_pos(**p)) {
                    return Err(SaveError(format!(
                        "{what} has a vertex at longitude {}, latitude {}: not on the earth",
                        p[0], p[1]
                    )));
                }
            }
            if let Some(flags) = &shape.spawn {
                let fits = flags.len() == rings.len()
                    && flags.iter().zip(rings).all(|(f, r)| f.len() == r.len());
                if !fits {
                    return Err(SaveError(
                        "the spawn flags do not give one flag per edge of each ring".into(),
                    ));
                }
            }
        }
        Shape::Point { lon, lat, heading } => {
            if bad_pos([*lon, *lat]) {
                return Err(SaveError(format!(
                    "the point at longitude {lon}, latitude {lat} is not on the earth"
                )));
            }
            if !heading.is_finite() {
                return Err(SaveError(format!("the heading {heading} is not a number")));
            }
        }
    }
    if let Some(p) = shape.param {
        if p > 0xFFFF {
            return Err(SaveError(format!(
                "the DSF parameter {p} does not fit its 16 bits (0..=65535)"
            )));
        }
    }
    if let Some(h) = shape.height {
        if !(h.is_finite() && h >= 0.0) {
            return Err(SaveError(format!(
                "the height {h} m is not a non-negative number of meters"
            )));
        }
    }
    Ok(())
}

/// Writes `shape` back into the file `origin` names, through a temporary file renamed into
/// place. `asset` is the asset path the feature names (a DSF text polygon whose definition
/// cannot be read is taken as an `.ags` when `asset` ends so). Returns the path written (the
/// file a symbolic link points to, when it is one), for the file watcher to know its own
/// save. On any error nothing is written and the file is as it was.
pub fn save(origin: &Origin, shape: &EditedShape, asset: &str) -> Result<PathBuf, SaveError> {
    save_with_hook(origin, shape, asset, &mut |_| Ok(()))
}

/// [`save`], running `before_rename` just before the temporary file is renamed into place
/// (tests fail there, as a crash or a full disk would).
#[doc(hidden)]
pub fn save_with_hook(
    origin: &Origin,
    shape: &EditedShape,
    asset: &str,
    before_rename: &mut dyn FnMut(&Path) -> std::io::Result<()>,
) -> Result<PathBuf, SaveError> {
    let (path, bytes) = match origin {
        Origin::ReadOnly { path, why } => {
            return Err(SaveError(format!(
                "{}: {why}. agview does not write WED projects or binary DSFs: use \"Save as \
                 GeoJSON\" to keep the edited shape",
                path.display()
            )))
        }
        Origin::Unsaved => {
            return Err(SaveError(
                "this shape has no file to go back to (it comes from --rect or was drawn by \
                 hand): use \"Save as GeoJSON\"; it is placed at --origin LAT,LON, else at \
                 agview's default origin (longitude 0, latitude 0)"
                    .into(),
            ))
        }
        Origin::GeoJson { path, index } => {
            validate(shape)?;
            let src = read(path)?;
            let out = geojson::rewrite(&src, *index, shape).map_err(|e| located(path, e))?;
            geojson::reads_back(path, &out).map_err(|e| located(path, e))?;
            (path, out)
        }
        Origin::DsfText { path, line } => {
            validate(shape)?;
            let src = read(path)?;
            let out =
                dsf_text::rewrite(path, &src, *line, shape, asset).map_err(|e| located(path, e))?;
            (path, out)
        }
    };
    write(path, &bytes, before_rename)
}

/// "Save as GeoJSON": writes the one feature to a new file `path` (replacing it through a
/// temporary file): a `FeatureCollection` of one `Feature` whose properties hold `asset`,
/// `param`, `height` and `spawn` (a point: `heading`) as the GeoJSON reader reads them.
/// `origin_lonlat` is where a shape in local meters was placed (see [`placement_origin`]),
/// recorded in the properties (`origin`, [lon, lat]); when it is [`DEFAULT_ORIGIN`] a note
/// says so. `None` records nothing (the shape came with its own place on the earth).
pub fn save_as_geojson(
    path: &Path,
    shape: &EditedShape,
    asset: &str,
    origin_lonlat: Option<[f64; 2]>,
) -> Result<PathBuf, SaveError> {
    save_as_geojson_with_hook(path, shape, asset, origin_lonlat, &mut |_| Ok(()))
}

/// [`save_as_geojson`] with a hook before the rename, as [`save_with_hook`].
#[doc(hidden)]
pub fn save_as_geojson_with_hook(
    path: &Path,
    shape: &EditedShape,
    asset: &str,
    origin_lonlat: Option<[f64; 2]>,
    before_rename: &mut dyn FnMut(&Path) -> std::io::Result<()>,
) -> Result<PathBuf, SaveError> {
    validate(shape)?;
    let origin = origin_lonlat.map(|o| (o, o == DEFAULT_ORIGIN));
    let bytes = geojson::new_file(shape, asset, origin);
    geojson::reads_back(path, &bytes).map_err(|e| located(path, e))?;
    write(path, &bytes, before_rename)
}

/// Where the shape the load laid `asset` out on came from, and so where `Ctrl+S` writes it:
/// the feature of `--polygon FILE` that [`input::build`] chose (the same rule picks it), or
/// [`Origin::Unsaved`] for `--rect`, `--at` and no polygon at all. A GeoJSON polygon that
/// is one member of a `MultiPolygon` or `GeometryCollection`, a file that no longer reads,
/// and any other kind of file are [`Origin::ReadOnly`], with the reason.
pub fn origin_for(inputs: &Inputs, asset: &Path) -> Origin {
    let Some(file) = &inputs.polygon else {
        return Origin::Unsaved;
    };
    let path = file.path.clone();
    let read_only = |why: String| Origin::ReadOnly {
        path: path.clone(),
        why,
    };
    let bytes = match crate::format::read_file(&path) {
        Ok(b) => b,
        Err(d) => return read_only(d.to_string()),
    };
    let built = match input::build(inputs, asset, &mut Vec::new()) {
        Ok(b) => b,
        Err(d) => return read_only(d.to_string()),
    };
    match FileKind::detect(&path, &bytes) {
        Some(FileKind::GeoJson) => {
            let n = file.index.unwrap_or(0);
            match geojson::feature_of(&bytes, n, built.point.is_some()) {
                Ok(index) => Origin::GeoJson { path, index },
                Err(why) => read_only(why),
            }
        }
        Some(FileKind::DsfText) => match built.polygon_source {
            Some((_, line)) => Origin::DsfText {
                path,
                line: line as usize,
            },
            None => read_only("no polygon or object of the file was chosen".into()),
        },
        _ => read_only("only GeoJSON and DSF text files are written back".into()),
    }
}

/// One feature of a document, to edit in the viewer ([`document_feature`]).
#[derive(Debug, Clone, PartialEq)]
pub struct DocumentFeature {
    /// Its shape as the document gives it: a polygon's windings (an `.ags`'s are WED's
    /// runs, to join into rings), a point's place and heading; its parameter.
    pub shape: EditedShape,
    pub kind: crate::scene::FeatureKind,
    /// The definition as the document writes it.
    pub asset: String,
    /// Where `Ctrl+S` writes it: its `BEGIN_POLYGON` or `OBJECT` line in a DSF text; a
    /// WED project or a binary DSF is read-only ("Save as GeoJSON").
    pub origin: Origin,
    /// The document, and the feature's line in a DSF text (0 elsewhere).
    pub source: (PathBuf, u32),
}

/// Feature `index` (of `Scene::features`) of the document `path`, as the viewer edits it;
/// an error says why it cannot be edited (`document::editable`).
pub fn document_feature(
    path: &Path,
    inputs: &Inputs,
    index: usize,
) -> Result<DocumentFeature, String> {
    let (path, kind, feats) =
        crate::document::read_document_features(path, inputs).map_err(|d| d.to_string())?;
    let f = feats
        .get(index)
        .ok_or_else(|| format!("the document has no feature {index} any more"))?;
    crate::document::editable(f)?;
    let line = match f.at {
        crate::diag::Location::Text { line, .. } | crate::diag::Location::Line(line) => line,
        _ => 0,
    };
    let origin = match kind {
        Some(FileKind::DsfText) if line > 0 => Origin::DsfText {
            path: path.clone(),
            line: line as usize,
        },
        Some(FileKind::Wed) => Origin::ReadOnly {
            path: path.clone(),
            why: "a WED project is not written back".into(),
        },
        _ => Origin::ReadOnly {
            path: path.clone(),
            why: "a binary DSF is not written back".into(),
        },
    };
    let geometry = match &f.geometry {
        crate::document::Geometry::Polygon(w) => Shape::Polygon(w.clone()),
        crate::document::Geometry::Point { lon, lat, heading } => Shape::Point {
            lon: *lon,
            lat: *lat,
            heading: *heading,
        },
        crate::document::Geometry::Road(_) => return Err("a road is not edited".into()),
    };
    Ok(DocumentFeature {
        shape: EditedShape {
            geometry,
            spawn: None,
            param: Some(f.param),
            height: None,
        },
        kind: f.kind,
        asset: f.asset.clone(),
        origin,
        source: (path, line),
    })
}

fn read(path: &Path) -> Result<Vec<u8>, SaveError> {
    std::fs::read(path).map_err(|e| {
        SaveError(format!(
            "{}: cannot read the file to save into: {e}; nothing was written",
            path.display()
        ))
    })
}

fn located(path: &Path, e: SaveError) -> SaveError {
    SaveError(format!("{}: {}", path.display(), e.0))
}

fn write(
    path: &Path,
    bytes: &[u8],
    before_rename: &mut dyn FnMut(&Path) -> std::io::Result<()>,
) -> Result<PathBuf, SaveError> {
    write_atomic_with(path, bytes, before_rename).map_err(|e| {
        SaveError(format!(
            "{}: could not save: {e}. The file is as it was and the edits are kept",
            path.display()
        ))
    })
}
