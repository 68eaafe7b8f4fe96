//! A feature's rings in local meters as they are laid out: a facade's as WED exports them,
//! curves flattened, and the point a placeholder stands on.

use std::path::Path;

use super::{DocFeature, Geometry};
use crate::diag::{Diagnostic, Severity};
use crate::format;
use crate::input;

/// A facade's rings in local meters as WED exports them (GROUND.md §5), and whether they
/// are open chains. The `.fac`'s topology picks the form of a WED placement: an area keeps
/// `rings` (outer counter-clockwise, holes clockwise), a ring or a chain takes the rings in
/// node order. A ring of two nodes is a chain's, and WED refuses it for a ring or an area
/// ("needs at least three points"): `None`, with that error. When the `.fac` is missing or
/// cannot be read, a two-node ring is kept as a chain, with a warning. A DSF's windings are
/// taken as written.
pub(super) fn facade_rings(
    doc: &Path,
    f: &DocFeature,
    topology: Option<format::facade::FacadeTopology>,
    origin: [f64; 2],
    rings: Vec<Vec<[f32; 2]>>,
    diags: &mut Vec<Diagnostic>,
) -> Option<(Vec<Vec<[f32; 2]>>, bool)> {
    use format::facade::FacadeTopology;
    let short = rings.iter().any(|r| r.len() < 3);
    let topology = match topology {
        Some(t) => t,
        None if short => {
            diags.push(f.diag(
                doc,
                Severity::Warning,
                format!(
                    "{}: without its .fac the facade's topology is unknown, so its two-node ring is kept as an open chain",
                    f.asset
                ),
            ));
            FacadeTopology::Chain
        }
        None => FacadeTopology::Area,
    };
    let open = topology == FacadeTopology::Chain;
    let Some(node_order) = &f.facade_node_order else {
        return Some((rings, open));
    };
    if short && !open {
        let what = match topology {
            FacadeTopology::Area => "has a roof, so WED exports an area",
            _ => "is a ring (RING 1, the default)",
        };
        diags.push(f.diag(
            doc,
            Severity::Error,
            format!(
                "{}: polygon feature needs at least three points: its facade {} {what}; WED refuses to export it",
                f.source
                    .strip_prefix(&format!("{}: ", doc.display()))
                    .unwrap_or(&f.source),
                f.asset
            ),
        ));
        return None;
    }
    if topology == FacadeTopology::Area {
        return Some((rings, open));
    }
    let projected = node_order
        .iter()
        .map(|r| r.iter().map(|p| input::project(origin, *p)).collect())
        .collect();
    Some((projected, open))
}

/// Rings in local meters, and (for an orthophoto) their points' texture coordinates.
type FlatRings = (Vec<Vec<[f32; 2]>>, Option<Vec<Vec<[f32; 2]>>>);

/// A curved feature's rings (local meters) flattened, with its texture coordinates
/// flattened alike when it has them. `ctrl` is parallel to the windings, in degrees.
pub(super) fn flatten_curves(
    rings: &[Vec<[f32; 2]>],
    ctrl: &[Vec<[f64; 2]>],
    f: &DocFeature,
    origin: [f64; 2],
    closed: bool,
) -> FlatRings {
    use crate::layout::curves;
    let mut out = Vec::with_capacity(rings.len());
    let mut sts = Vec::with_capacity(rings.len());
    for (k, ring) in rings.iter().enumerate() {
        let c: Vec<[f32; 2]> = ctrl
            .get(k)
            .map(|c| c.iter().map(|p| input::project(origin, *p)).collect())
            .unwrap_or_else(|| ring.clone());
        let st = f.st.as_ref().and_then(|s| s.get(k)).map(|s| s.as_slice());
        let st_ctrl = f
            .st_ctrl
            .as_ref()
            .and_then(|s| s.get(k))
            .map(|s| s.as_slice());
        // A point's own control, projected, may differ from it by rounding: compare in
        // degrees (the DSF's exact values).
        let same: Vec<[f32; 2]> = ring
            .iter()
            .zip(&c)
            .enumerate()
            .map(|(i, (p, cp))| {
                let raw_p = match &f.geometry {
                    Geometry::Polygon(w) => w.get(k).and_then(|w| w.get(i)).copied(),
                    Geometry::Point { .. } | Geometry::Road(_) => None,
                };
                let raw_c = ctrl.get(k).and_then(|c| c.get(i)).copied();
                if raw_p.is_some() && raw_p == raw_c {
                    *p
                } else {
                    *cp
                }
            })
            .collect();
        let nodes = curves::merge_runs(ring, &same, st, st_ctrl, closed);
        let (pts, flat_st) = curves::flatten(&nodes, closed);
        out.push(pts);
        sts.push(flat_st);
    }
    let st = f.st.is_some().then_some(sts);
    (out, st)
}

/// The mean of the outer ring's points (where a missing asset's placeholder stands).
pub(super) fn centroid(rings: &[Vec<[f32; 2]>]) -> [f32; 2] {
    let Some(r) = rings.first().filter(|r| !r.is_empty()) else {
        return [0.0, 0.0];
    };
    let n = r.len() as f32;
    let s = r
        .iter()
        .fold([0.0f32, 0.0], |a, p| [a[0] + p[0], a[1] + p[1]]);
    [s[0] / n, s[1] / n]
}
