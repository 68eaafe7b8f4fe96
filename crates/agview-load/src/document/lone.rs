//! One object, facade or forest opened on its own (`agview render house.obj`): a document
//! of one feature, laid out by the same stage as a DSF's features, so it is resolved,
//! drawn, exported and reloaded exactly as it would be placed in a package.
//!
//! Where it stands (agview's choice, docs/spec-decisions.md, "glTF export: command and
//! inputs"): where the layout inputs say (`--at` or `--heading` for an object, `--rect` or
//! `--polygon` for a facade or a forest), else on [`LoneDefaults`]: an object at the
//! origin facing north, a facade on a 30 x 20 m rectangle 10 m high, a forest filling a
//! 100 x 100 m square at full density. Each default used is said once, in a note.

use std::path::Path;

use super::{DocFeature, Geometry};
use crate::diag::{Diagnostic, Location};
use crate::format::{self, FileKind};
use crate::input::{self, Inputs};
use crate::scene::FeatureKind;

/// The place a lone facade or forest is laid out on when the inputs give none.
pub struct LoneDefaults;

impl LoneDefaults {
    /// A lone facade's rectangle, `[W, D]` meters: about a house or a small hangar.
    pub const FACADE_RECT: [f32; 2] = [30.0, 20.0];
    /// A lone facade's height in meters (the DSF parameter of a facade).
    pub const FACADE_HEIGHT: u32 = 10;
    /// A 2-point axial facade's length, front to back, meters (laid north from the origin).
    pub const AXIAL_LENGTH: f32 = 40.0;
    /// A lone forest's square side in meters.
    pub const FOREST_SIDE: f32 = 100.0;
    /// A lone forest's density (the DSF parameter, 0..255): every tree its spacing allows.
    pub const FOREST_DENSITY: u32 = 255;
}

/// The feature kind of a file opened alone, or `None` when it is not one of these.
pub(crate) fn lone_kind(kind: Option<FileKind>) -> Option<FeatureKind> {
    match kind? {
        FileKind::Obj8 => Some(FeatureKind::Obj),
        FileKind::Facade => Some(FeatureKind::Fac),
        FileKind::Forest => Some(FeatureKind::For),
        _ => None,
    }
}

/// The one feature of a lone `.obj`, `.fac` or `.for` at `path` (its `bytes` read), placed
/// as the module documentation says; what the defaults chose is noted in `diags`.
pub(crate) fn lone_feature(
    path: &Path,
    kind: FeatureKind,
    bytes: &[u8],
    args: &Inputs,
    diags: &mut Vec<Diagnostic>,
) -> Result<DocFeature, Diagnostic> {
    let input = input::build(args, path, diags)?;
    let origin = input
        .geo
        .as_ref()
        .map_or([0.0, 0.0], |g| [g.origin_lon, g.origin_lat]);
    let to_ll = |rings: &[Vec<[f32; 2]>]| -> Vec<Vec<[f64; 2]>> {
        rings
            .iter()
            .map(|r| {
                r.iter()
                    .map(|p| input::unproject(origin, [f64::from(p[0]), f64::from(p[1])]))
                    .collect()
            })
            .collect()
    };
    let rect = |[w, d]: [f32; 2]| vec![vec![[0.0, 0.0], [w, 0.0], [w, d], [0.0, d]]];
    // Named as a DSF in its package would name it (`objects/car.obj`): found again by
    // the one resolver, relative to the package's root.
    let root = crate::resolve::package_root(path);
    let name = path
        .strip_prefix(&root)
        .ok()
        .or_else(|| path.file_name().map(Path::new))
        .map_or_else(String::new, |n| {
            n.to_string_lossy().replace(std::path::MAIN_SEPARATOR, "/")
        });
    let mut notes = Vec::new();
    let (geometry, param) = match kind {
        FeatureKind::Obj => {
            if input.polygon.is_some() {
                notes.push(
                    "an object stands at a point: the polygon is ignored; give --at or --heading"
                        .to_string(),
                );
            }
            let p = input.point.unwrap_or_default();
            let [lon, lat] = input::unproject(origin, [f64::from(p.pos[0]), f64::from(p.pos[1])]);
            (
                Geometry::Point {
                    lon,
                    lat,
                    heading: f64::from(p.heading),
                },
                0,
            )
        }
        FeatureKind::Fac => {
            let height = args
                .height
                .map(|h| h.round() as u32)
                .or(args.param)
                .unwrap_or_else(|| {
                    notes.push(format!(
                        "a lone facade is {} m high (give --height)",
                        LoneDefaults::FACADE_HEIGHT
                    ));
                    LoneDefaults::FACADE_HEIGHT
                });
            let rings = match input.polygon {
                Some(rings) => rings,
                None => facade_default(path, bytes, &mut notes),
            };
            (Geometry::Polygon(to_ll(&rings)), height)
        }
        _ => {
            let density = args.param.unwrap_or(LoneDefaults::FOREST_DENSITY);
            let rings = input.polygon.unwrap_or_else(|| {
                let s = LoneDefaults::FOREST_SIDE;
                notes.push(format!(
                    "a lone forest is laid out on a {s:.0} x {s:.0} m square (give --rect or --polygon)"
                ));
                rect([s, s])
            });
            (Geometry::Polygon(to_ll(&rings)), density)
        }
    };
    diags.extend(notes.into_iter().map(|n| Diagnostic::note_file(path, n)));
    Ok(DocFeature::new(
        crate::diag::shown_path(path),
        name,
        kind,
        param,
        geometry,
        Location::File,
    ))
}

/// A lone facade's place without a polygon: two points, front and back, for a 2-point
/// axial facade; a closed chain round the rectangle for a `RING 0` facade (a fence
/// encloses it); the rectangle for the rest.
fn facade_default(path: &Path, bytes: &[u8], notes: &mut Vec<String>) -> Vec<Vec<[f32; 2]>> {
    use format::facade::FacadeTopology;
    // Read quietly: the definition is read again, with its messages, when it is resolved.
    let fac = format::facade::parse(path, bytes, &mut Vec::new()).ok();
    let [w, d] = LoneDefaults::FACADE_RECT;
    if fac.as_ref().is_some_and(|f| f.axial.is_some()) {
        let l = LoneDefaults::AXIAL_LENGTH;
        notes.push(format!(
            "a lone 2-point axial facade is laid from (0,0) to (0,{l:.0}) m (give --polygon)"
        ));
        return vec![vec![[0.0, 0.0], [0.0, l]]];
    }
    notes.push(format!(
        "a lone facade is laid out on a {w:.0} x {d:.0} m rectangle (give --rect or --polygon)"
    ));
    let mut ring = vec![[0.0, 0.0], [w, 0.0], [w, d], [0.0, d]];
    if fac.is_some_and(|f| f.topology() == FacadeTopology::Chain) {
        ring.push([0.0, 0.0]);
    }
    vec![ring]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scene::SceneKind;

    fn sample(rel: &str) -> std::path::PathBuf {
        crate::document::synthetic::source_tree()
            .join("sample_scenery")
            .join(rel)
    }

    fn load(path: &Path, args: &Inputs) -> super::super::Document {
        super::super::load(path, args).unwrap_or_else(|e| panic!("{e}"))
    }

    fn messages(doc: &super::super::Document) -> String {
        doc.loaded.warning_lines().join("\n")
    }

    #[test]
    fn a_lone_object_stands_at_the_origin_resolved_in_its_package() {
        let doc = load(&sample("objects/car.obj"), &Inputs::default());
        let s = &doc.loaded.scene;
        assert_eq!(s.kind, SceneKind::Art);
        assert_eq!(s.objects.len(), 1);
        assert_eq!(s.objects[0].pos, [0.0, 0.0]);
        assert_eq!(s.objects[0].heading, 0.0);
        assert_eq!(s.features.len(), 1);
        assert_eq!(s.features[0].kind, FeatureKind::Obj);
        assert_eq!(s.features[0].asset, "objects/car.obj");
        let resolved = s.meshes[0].resolved.as_deref().expect("resolved");
        assert!(resolved.ends_with("car.obj"), "{resolved}");
        let m = messages(&doc);
        assert!(!m.contains("not found"), "{m}");
    }

    #[test]
    fn a_lone_object_takes_at_and_heading() {
        let args = Inputs {
            at: Some(input::GeoPoint {
                lon: 8.5,
                lat: 47.25,
                heading: 30.0,
            }),
            ..Inputs::default()
        };
        let doc = load(&sample("objects/car.obj"), &args);
        let s = &doc.loaded.scene;
        let g = s.geo.as_ref().expect("a geographic frame");
        assert!((g.origin_lon - 8.5).abs() < 1e-9 && (g.origin_lat - 47.25).abs() < 1e-9);
        assert_eq!(s.objects[0].heading, 30.0);
    }

    #[test]
    fn a_lone_facade_stands_on_the_default_rectangle_or_the_one_given() {
        let doc = load(&sample("facades/brick.fac"), &Inputs::default());
        let s = &doc.loaded.scene;
        assert_eq!(s.kind, SceneKind::Art);
        assert_eq!(s.facades.len(), 1);
        let f = &s.facades[0];
        assert_eq!(f.height, LoneDefaults::FACADE_HEIGHT as f32);
        let (lo, hi) = s.bounds();
        let [w, d] = LoneDefaults::FACADE_RECT;
        assert!(((hi[0] - lo[0]) - w).abs() < 0.01 && ((hi[1] - lo[1]) - d).abs() < 0.01);
        assert!(s.facade_defs[0].resolved.is_some());
        let m = messages(&doc);
        assert!(
            m.contains("30 x 20 m rectangle") && m.contains("10 m high"),
            "{m}"
        );
        assert!(!m.contains("not found"), "{m}");

        let args = Inputs {
            rect: Some([12.0, 8.0]),
            height: Some(6.0),
            ..Inputs::default()
        };
        let doc = load(&sample("facades/brick.fac"), &args);
        let s = &doc.loaded.scene;
        assert_eq!(s.facades[0].height, 6.0);
        let (lo, hi) = s.bounds();
        assert!(((hi[0] - lo[0]) - 12.0).abs() < 0.01 && ((hi[1] - lo[1]) - 8.0).abs() < 0.01);
        let m = messages(&doc);
        assert!(!m.contains("rectangle") && !m.contains("high"), "{m}");
    }

    #[test]
    fn a_lone_axial_facade_gets_two_points() {
        let dir = std::env::temp_dir().join(format!("agview-lone-axial-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let fac = dir.join("hangar.fac");
        std::fs::write(&fac, format::facade::test_hangar_fac("missing.png")).unwrap();
        let doc = load(&fac, &Inputs::default());
        let s = &doc.loaded.scene;
        assert_eq!(s.facades.len(), 1);
        assert_eq!(
            s.facades[0].footprint.len(),
            2,
            "{:?}",
            s.facades[0].footprint
        );
        let m = messages(&doc);
        assert!(m.contains("2-point axial facade is laid"), "{m}");
        assert!(!m.contains("takes exactly two points"), "{m}");
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_lone_forest_fills_the_default_square() {
        let doc = load(&sample("forests/trees.for"), &Inputs::default());
        let s = &doc.loaded.scene;
        assert_eq!(s.kind, SceneKind::Art);
        assert!(s.trees.len() > 10, "{} trees", s.trees.len());
        let side = LoneDefaults::FOREST_SIDE;
        assert!(s
            .trees
            .iter()
            .all(|t| (0.0..=side).contains(&t.pos[0]) && (0.0..=side).contains(&t.pos[1])));
        assert!(s
            .forest
            .as_ref()
            .and_then(|f| f.resolved.as_ref())
            .is_some());
    }

    #[test]
    fn a_wavefront_obj_is_still_refused() {
        let dir = std::env::temp_dir().join(format!("agview-lone-wf-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let obj = dir.join("cube.obj");
        std::fs::write(&obj, "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n").unwrap();
        assert!(super::super::load(&obj, &Inputs::default()).is_err());
        let _ = std::fs::remove_dir_all(&dir);
    }
}
