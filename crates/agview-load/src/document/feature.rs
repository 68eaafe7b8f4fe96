//! Laying out one feature of a document: in its own frame at its first vertex (or its
//! point), with its own seed, then moved into the document's frame and described.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use super::airport::{layout_airport, PavementLibrary};
use super::definitions::{Opened, Resolution};
use super::rings::{centroid, facade_rings, flatten_curves};
use super::{DocFeature, Geometry, OpenedAsset};
use crate::diag::{Diagnostic, Severity};
use crate::format;
use crate::input::{self, Inputs};
use crate::layout::{placed, LayoutInput, PointInput};
use crate::scene::{FeatureInfo, FeatureKind, Footprint, GeoFrame, Scene};

/// What laying out one feature gave.
pub(super) struct FeatureResult {
    pub(super) scene: Option<Scene>,
    pub(super) diags: Vec<Diagnostic>,
    pub(super) files: Vec<PathBuf>,
    /// An autogen feature's footprint in its own frame (`FeatureInfo::footprint`).
    pub(super) footprint: Option<Footprint>,
}

impl FeatureResult {
    /// Ties what laying feature `i` out said (its diagnostics and its layout's warnings)
    /// to the feature. An error here is the feature (or a part of it) not laid out.
    pub(super) fn tie_to(&mut self, i: usize) {
        use crate::diag::kind;
        for d in self.diags.iter_mut().filter(|d| d.is_error()) {
            if d.kind == kind::FORMAT || d.kind == kind::GENERAL {
                d.kind = kind::SKIPPED_FEATURE;
            }
        }
        let scene_warnings = self.scene.iter_mut().flat_map(|s| s.warnings.iter_mut());
        for d in self.diags.iter_mut().chain(scene_warnings) {
            d.feature = Some(i);
        }
    }
}

/// Each feature's seed for what it scatters (a forest's trees, an object string's turns).
/// It comes from what the feature is and how many features of the same definition and
/// parameter came before it, never from its index: a feature added or removed elsewhere in
/// the document leaves the others' trees where they were (what `report --against` needs),
/// and a DSF text, its binary DSF and its WED project, which list the same features in the
/// same order, seed them alike (their coordinates differ in the last bits, so the place is
/// not part of the seed).
pub(super) fn feature_seeds(feats: &[DocFeature], seed: u64) -> Vec<u64> {
    let mut seen: HashMap<(&str, u32), u64> = HashMap::new();
    feats
        .iter()
        .map(|f| {
            let n = seen.entry((f.asset.as_str(), f.param)).or_insert(0);
            let mut h = Fnv::default();
            h.write(f.asset.as_bytes());
            h.write(&f.param.to_le_bytes());
            h.write(&n.to_le_bytes());
            *n += 1;
            seed ^ h.0
        })
        .collect()
}

/// FNV-1a, 64 bits: a hash that stays the same across Rust versions and platforms, for
/// seeds that must give the same layout forever.
struct Fnv(u64);

impl Default for Fnv {
    fn default() -> Self {
        Fnv(0xCBF2_9CE4_8422_2325)
    }
}

impl Fnv {
    fn write(&mut self, bytes: &[u8]) {
        for b in bytes {
            self.0 = (self.0 ^ u64::from(*b)).wrapping_mul(0x0100_0000_01B3);
        }
    }
}

/// The layout input of an autogen feature on its footprint (in its own frame, around
/// `origin`): what the document lays it out on, and what `lay_out_alone` lays it out on
/// again. `source` is the document line its polygon came from, for messages.
fn autogen_input(
    footprint: &Footprint,
    point: bool,
    source: Option<(PathBuf, u32)>,
    param: u32,
    origin: [f64; 2],
    args: &Inputs,
) -> LayoutInput {
    LayoutInput {
        polygon: (!footprint.rings.is_empty()).then(|| footprint.rings.clone()),
        polygon_source: source,
        point: point.then_some(PointInput {
            pos: [0.0, 0.0],
            heading: footprint.heading,
        }),
        param: args.param.or(Some(param)),
        height: args.height,
        seed: args.seed,
        convention: args.convention,
        geo: Some(GeoFrame {
            origin_lat: origin[1],
            origin_lon: origin[0],
            ..GeoFrame::default()
        }),
        forest_spacing: None,
        // A document's polygon is its DSF windings (WED's as its exporter writes them):
        // an AGS joins them into contours.
        windings: true,
        spawn: None,
    }
}

/// Lays `asset` out alone on document feature `f`'s footprint (scaled so its bounding box
/// is `size`, when given), in the feature's own frame: what `agview report` shows of each
/// asset a document uses. `None` when `f` is not an autogen feature.
pub fn lay_out_alone(
    asset: &OpenedAsset,
    f: &FeatureInfo,
    args: &Inputs,
    rings: Option<Vec<Vec<[f32; 2]>>>,
) -> Option<Result<Scene, Diagnostic>> {
    let footprint = f.footprint.as_ref()?;
    let origin = f.at?;
    let point = footprint.rings.is_empty();
    let mut input = autogen_input(footprint, point, None, f.param, origin, args);
    if let Some(r) = rings {
        input.polygon = Some(r);
    }
    Some(asset.layout(input))
}

/// Lays out one feature in its own frame and moves it into the document's.
pub(super) fn layout_feature(
    doc: &Path,
    f: &DocFeature,
    res: &Resolution,
    doc_origin: [f64; 2],
    args: &Inputs,
    seed: u64,
    pavement: &PavementLibrary,
) -> FeatureResult {
    let mut out = FeatureResult {
        scene: None,
        diags: Vec::new(),
        files: Vec::new(),
        footprint: None,
    };
    let Some(origin) = f.origin() else {
        out.diags.push(f.diag(
            doc,
            Severity::Error,
            format!("{} has no point; not laid out", f.asset),
        ));
        return out;
    };
    // An airport's item: its own projection and art, no rings or definitions to read.
    if let Some(item) = f.airport.as_deref() {
        let mut s = layout_airport(item, origin, pavement);
        s.translate(input::project(doc_origin, origin));
        out.scene = Some(s);
        return out;
    }
    let rings: Vec<Vec<[f32; 2]>> = match &f.geometry {
        Geometry::Polygon(w) => w
            .iter()
            .map(|r| r.iter().map(|p| input::project(origin, *p)).collect())
            .collect(),
        Geometry::Point { .. } | Geometry::Road(_) => Vec::new(),
    };
    let heading = match f.geometry {
        Geometry::Point { heading, .. } => heading as f32,
        Geometry::Polygon(_) | Geometry::Road(_) => 0.0,
    };
    // Curves flattened (GROUND.md §4): a `.pol` is a closed ring, a string a chain as
    // written, a facade as its `.fac` makes it.
    let facade_open = matches!(
        &*res.opened,
        Opened::Facade(Some(fac)) if fac.topology() == format::facade::FacadeTopology::Chain
    );
    let closed = match f.kind {
        FeatureKind::Str => false,
        FeatureKind::Lin => f.param == 1,
        FeatureKind::Fac => !facade_open,
        _ => true,
    };
    let (rings, curved_st) = match &f.ctrl {
        Some(ctrl) => flatten_curves(&rings, ctrl, f, origin, closed),
        None => (rings, None),
    };
    let st: Option<&[Vec<[f32; 2]>]> = curved_st.as_deref().or(f.st.as_deref());
    // Made only where it is used: an autogen feature (most of a tile) names its art itself.
    let resolved = || res.resolved.as_deref().map(crate::diag::shown_path);
    let laid = match (&*res.opened, f.kind) {
        // A road draws whether its `.net` is there or not (the plain profile).
        (_, FeatureKind::Road) | (Opened::Net(_), _) => Ok(super::roads::layout_road(f, res)),
        (Opened::Broken, _) => {
            out.diags.push(f.diag(
                doc,
                Severity::Error,
                format!("{} could not be read (see above); not laid out", f.asset),
            ));
            return out;
        }
        // A facade whose `.fac` is missing still stands where it is, as a plain wall.
        (Opened::Facade(_), _) | (Opened::Missing, FeatureKind::Fac) => {
            let fac = match &*res.opened {
                Opened::Facade(fac) => fac.as_deref(),
                _ => None,
            };
            let topology = fac.map(|x| x.topology());
            // A jetway stands in its parked pose.
            let rings = match &f.jetway {
                Some(j) => vec![super::jetway::parked_nodes(j)],
                None => rings,
            };
            match facade_rings(doc, f, topology, origin, rings, &mut out.diags) {
                Some((rings, open)) => {
                    if let Some(n) = fac
                        .filter(|x| x.axial.is_some())
                        .and_then(|_| rings.first())
                        .map(Vec::len)
                        .filter(|&n| n != 2)
                    {
                        out.diags.push(f.diag(
                            doc,
                            Severity::Warning,
                            format!(
                                "{}: a 2-point axial facade takes exactly two points, its front and its back; this one has {n}, so {}",
                                f.asset,
                                if n > 2 { "only its first two are drawn" } else { "nothing is drawn" }
                            ),
                        ));
                    }
                    let mut s = placed::facade(&f.asset, &rings, f.param as f32, open);
                    s.facade_defs[0].resolved = resolved();
                    if let (Some(j), Some(fac)) = (&f.jetway, fac) {
                        match super::jetway::jetway_walls(fac, j.size_code) {
                            Some(w) => {
                                if let Some(x) = s.facades.first_mut() {
                                    x.walls = Some(w.to_vec());
                                }
                            }
                            None => out.diags.push(f.diag(
                                doc,
                                Severity::Warning,
                                format!(
                                    "{}: no #cabin and #tunnel walls, so it is no jetway facade; drawn along the parked pose with its walls picked by width",
                                    f.asset
                                ),
                            )),
                        }
                    }
                    if f.param == 0 {
                        out.diags.push(f.diag(
                            doc,
                            Severity::Warning,
                            format!(
                                "{}: facade height 0 m (the parameter is the height in meters)",
                                f.asset
                            ),
                        ));
                    }
                    Ok(s)
                }
                None => return out,
            }
        }
        // A draped polygon whose `.pol` is missing still covers its ground, with the
        // missing-texture checkerboard.
        (Opened::Art | Opened::Missing, FeatureKind::Pol) => {
            if rings.first().is_none_or(|r| r.len() < 3) {
                out.diags.push(f.diag(
                    doc,
                    Severity::Error,
                    format!(
                        "{}: a draped polygon needs at least three points; not laid out",
                        f.asset
                    ),
                ));
                return out;
            }
            let heading = crate::layout::placed::pol_heading(f.param);
            let mut s = placed::draped_polygon(&f.asset, &rings, st, heading);
            s.pol_defs[0].resolved = resolved();
            Ok(s)
        }
        // A painted line whose `.lin` is missing is drawn as a plain line.
        (Opened::Art | Opened::Missing, FeatureKind::Lin) => {
            let mut s = placed::painted_line(&f.asset, &rings, f.param == 1);
            s.lin_defs[0].resolved = resolved();
            Ok(s)
        }
        (Opened::String(st), _) => {
            let spacing = crate::layout::placed::str_spacing(f.param);
            if spacing <= 0.01 {
                out.diags.push(f.diag(
                    doc,
                    Severity::Warning,
                    format!(
                        "{}: object string spacing {} (the parameter is the spacing in meters); nothing placed",
                        f.asset, f.param
                    ),
                ));
            }
            Ok(placed::object_string(
                &f.asset,
                &rings,
                spacing,
                st.offset,
                &st.turns,
                st.meshes.clone(),
                seed,
            ))
        }
        (Opened::Missing, _) => {
            // A visible placeholder where the feature is: a missing mesh draws as a box.
            let at = match f.kind {
                FeatureKind::Obj | FeatureKind::Agp => [0.0, 0.0],
                _ => centroid(&rings),
            };
            Ok(placed::object(&f.asset, at, heading))
        }
        (Opened::Autogen(a), _) => {
            let footprint = Footprint { rings, heading };
            let source = match f.at {
                crate::diag::Location::Text { line, .. } => Some((doc.to_path_buf(), line)),
                _ => None,
            };
            let point = matches!(f.geometry, Geometry::Point { .. });
            let input = autogen_input(&footprint, point, source, f.param, origin, args);
            out.footprint = Some(footprint);
            a.layout(input)
        }
        (Opened::Forest(facts), _) => {
            let mut s = placed::forest(&f.asset, &rings, f.param, facts.spacing, seed);
            crate::layout::trees::seed_heights(&mut s.trees, 0, facts);
            if let Some(r) = s.forest.as_mut() {
                r.resolved = resolved();
            }
            Ok(s)
        }
        (Opened::Art, _) => {
            let mut s = placed::object(&f.asset, [0.0, 0.0], heading);
            s.meshes[0].resolved = resolved();
            Ok(s)
        }
    };
    match laid {
        Ok(mut s) => {
            let d = input::project(doc_origin, origin);
            s.translate(d);
            out.scene = Some(s);
        }
        Err(e) => {
            // The layout's own message; one about no place in particular points at the
            // feature in the document.
            let message = format!("{} not laid out: {}", f.asset, e.message);
            out.diags
                .push(if e.location == crate::diag::Location::File {
                    f.diag(doc, Severity::Error, message)
                } else {
                    Diagnostic {
                        severity: Severity::Error,
                        message,
                        ..e
                    }
                });
        }
    }
    out
}

/// The extent `(min, max)` of the features' own points (their rings', road points' and
/// placement points) in the document's frame, before any is laid out: each point is put
/// where [`layout_feature`] puts it (projected in the feature's frame, then moved by where
/// that frame lies in the document's), so where the laid-out scene reaches no further than
/// these points, [`Scene::extent`] of the whole is this, to the bit. What a layout places
/// beyond its feature's points (an `.agp`'s tiles around its point, an airport's pavement)
/// is not in it. `None` when no feature has a point.
pub(super) fn read_extent(
    feats: &[DocFeature],
    doc_origin: [f64; 2],
) -> Option<([f32; 2], [f32; 2])> {
    let mut lo = [f32::INFINITY; 2];
    let mut hi = [f32::NEG_INFINITY; 2];
    for f in feats {
        let Some(origin) = f.origin() else { continue };
        let d = input::project(doc_origin, origin);
        let mut add = |p: [f32; 2]| {
            for i in 0..2 {
                let v = p[i] + d[i];
                lo[i] = lo[i].min(v);
                hi[i] = hi[i].max(v);
            }
        };
        match &f.geometry {
            Geometry::Polygon(w) => w
                .iter()
                .flatten()
                .for_each(|p| add(input::project(origin, *p))),
            Geometry::Road(r) => r
                .points
                .iter()
                .for_each(|p| add(input::project(origin, *p))),
            Geometry::Point { .. } => add([0.0, 0.0]),
        }
    }
    (lo[0] <= hi[0]).then_some((lo, hi))
}

/// The feature's entry in `Scene::features`; marks what it placed with its index.
pub(super) fn describe(
    f: &DocFeature,
    res: &Resolution,
    r: &mut FeatureResult,
    i: u32,
) -> FeatureInfo {
    let mut info = FeatureInfo {
        resolved: res.resolved.as_deref().map(crate::diag::shown_path),
        package: res.package.clone(),
        at: f.origin(),
        footprint: r.footprint.take(),
        ..FeatureInfo::new(f.source.clone(), f.asset.clone(), f.kind, f.param)
    };
    if let Geometry::Road(g) = &f.geometry {
        info.road = Some(Box::new(crate::scene::FeatureRoad {
            levels: g.levels,
            end: g.points.last().copied(),
            ..Default::default()
        }));
    }
    if let Some(s) = r.scene.as_mut() {
        s.update_stats();
        info.stats = s.stats;
        info.choice = s.choice.clone();
        info.corners = s.corners.clone();
        info.tile_lod = s.tile_lod;
        info.layer_group = s.layer_group.clone();
        info.hide_tiles = s.hide_tiles;
        stamp_feature(s, i);
    }
    info
}

/// Marks everything a feature placed with its index.
fn stamp_feature(s: &mut Scene, i: u32) {
    let f = Some(i);
    s.tiles.iter_mut().for_each(|t| t.feature = f);
    s.objects.iter_mut().for_each(|o| o.feature = f);
    s.facades.iter_mut().for_each(|x| x.feature = f);
    s.trees.iter_mut().for_each(|t| t.feature = f);
    s.draped.iter_mut().for_each(|d| d.feature = f);
    s.lines.iter_mut().for_each(|l| l.feature = f);
    s.roads.iter_mut().for_each(|r| r.feature = f);
}
