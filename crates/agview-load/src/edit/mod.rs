//! Writing an edited shape back to the file it came from (issue 37, the author's loop).
//!
//! STUB: the types are the interface the viewer's edit mode builds on; the writers are
//! being written. Fields and variants may be added; none renamed.

use std::path::{Path, PathBuf};

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

/// Writes `shape` back into the file `origin` names, through a temporary file renamed into
/// place. `asset` is the asset path the feature names (for a new GeoJSON's properties).
pub fn save(origin: &Origin, shape: &EditedShape, asset: &str) -> Result<PathBuf, SaveError> {
    let _ = (origin, shape, asset);
    Err(SaveError("saving is not written yet".into()))
}

/// "Save as GeoJSON": writes the one feature to a new file `path` (replacing it through a
/// temporary file). `origin_lonlat` is where a shape in local metres was placed, recorded
/// in the file's properties.
pub fn save_as_geojson(
    path: &Path,
    shape: &EditedShape,
    asset: &str,
    origin_lonlat: Option<[f64; 2]>,
) -> Result<PathBuf, SaveError> {
    let _ = (path, shape, asset, origin_lonlat);
    Err(SaveError("saving is not written yet".into()))
}
