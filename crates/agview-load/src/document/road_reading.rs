//! Road segments read into document features (ROADS.md §1, §4): one [`DocFeature`] of kind
//! [`FeatureKind::Road`] per segment from junction to junction, whichever document gave it
//! (DSF text, binary DSF, or a WED project's road edges through WED's exporter, all in the
//! DSF's form, [`DsfSegment`]).
//!
//! - Shape points whose z is 1 are bezier handles (§1.4): between two plain points, none is
//!   a straight side, one a quadratic (raised to the cubic `p + (c − p)·2/3` at each end, as
//!   WED's importer does), two a cubic. More than two keep their first and last, with a
//!   warning. The `_CURVED` forms' controls are each point's outgoing handle, as for curved
//!   polygons (GROUND.md §4). Curves are cut where the ground's are
//!   ([`curves::cut_parameters`], within [`curves::TOLERANCE`]), the points computed in
//!   degrees, so straight roads keep their points exactly.
//! - The z at each end is its level (§1.5): a whole number from 0 to 5 is kept, so is a
//!   negative one (a tunnel, which the layout counts); anything else warns once per file
//!   and is read as 0. Binary pools scale z, so "whole" allows [`WHOLE`].
//! - A segment whose points all stand at one place is skipped, with one warning per file
//!   counting them; a segment of fewer than two points is a located error.

use std::path::Path;

use super::features::{DocFeature, Geometry, RoadGeometry};
use crate::diag::{kind, Diagnostic, Location, Severity};
use crate::format::dsf::DsfSegment;
use crate::layout::curves;
use crate::scene::FeatureKind;

/// How far from a whole number a z may be and still count as one: binary pools scale z,
/// which leaves a few 1e-9 of rounding.
pub(crate) const WHOLE: f64 = 1e-4;

/// The highest level: WED's validation ("All road layers must be in the range of 0 to 5").
pub(crate) const MAX_LEVEL: i32 = 5;

/// What reading one document's roads says once per file.
#[derive(Default)]
pub(crate) struct RoadReading {
    /// Whether a level out of range was warned about.
    level_said: bool,
    /// Whether more than two handles between two points were warned about.
    handles_said: bool,
    /// Zero-length segments skipped, and where the first was.
    zero_length: usize,
    first_zero: Option<Location>,
}

impl RoadReading {
    /// The road feature of `seg`, named `source`, on the network `asset`; `None` (with its
    /// message, or counted for [`Self::finish`]) when it is skipped.
    pub(crate) fn feature(
        &mut self,
        path: &Path,
        seg: &DsfSegment,
        asset: &str,
        source: impl FnOnce() -> String,
        diags: &mut Vec<Diagnostic>,
    ) -> Option<DocFeature> {
        let at = seg.at;
        if seg.points.len() < 2 {
            diags.push(
                Diagnostic::new(
                    Severity::Error,
                    path,
                    at,
                    format!(
                        "a road segment needs two points, a junction at each end; this one has {}: skipped",
                        seg.points.len()
                    ),
                )
                .with_kind(kind::SKIPPED_FEATURE),
            );
            return None;
        }
        let first = seg.points[0];
        if seg
            .points
            .iter()
            .all(|p| p[0] == first[0] && p[1] == first[1])
        {
            self.zero_length += 1;
            self.first_zero.get_or_insert(at);
            return None;
        }
        let last = seg.points[seg.points.len() - 1];
        let levels = [
            self.level(path, first[2], at, diags),
            self.level(path, last[2], at, diags),
        ];
        let points = match &seg.ctrl {
            Some(ctrl) => curved_points(&seg.points, ctrl),
            None => self.flagged_points(path, &seg.points, at, diags),
        };
        Some(DocFeature::new(
            source(),
            asset.to_string(),
            FeatureKind::Road,
            seg.subtype,
            Geometry::Road(RoadGeometry {
                points,
                levels,
                nodes: seg.nodes,
            }),
            at,
        ))
    }

    /// The one warning counting zero-length segments, if any were skipped.
    pub(crate) fn finish(self, path: &Path, diags: &mut Vec<Diagnostic>) {
        if let Some(at) = self.first_zero {
            diags.push(
                Diagnostic::new(
                    Severity::Warning,
                    path,
                    at,
                    format!(
                        "{} road segment(s) of zero length (every point at one place) skipped; the first is here",
                        self.zero_length
                    ),
                )
                .with_kind(kind::SKIPPED_FEATURE),
            );
        }
    }

    /// An end's level from its z (see the module documentation).
    fn level(&mut self, path: &Path, z: f64, at: Location, diags: &mut Vec<Diagnostic>) -> i32 {
        let r = z.round();
        if (z - r).abs() <= WHOLE && r <= f64::from(MAX_LEVEL) && r >= f64::from(i32::MIN) {
            return r as i32;
        }
        if !self.level_said {
            self.level_said = true;
            diags.push(
                Diagnostic::new(
                    Severity::Warning,
                    path,
                    at,
                    format!(
                        "road end z {z} is not a level (a whole number from 0 to {MAX_LEVEL}, or below 0 for a tunnel; \
                         an XP8/9 DSF gives metres MSL there): read as level 0 (further ones are not reported)"
                    ),
                )
                .with_kind(kind::OUT_OF_RANGE),
            );
        }
        0
    }

    /// The centreline of a segment whose shape points flag handles with z 1, curves
    /// flattened.
    fn flagged_points(
        &mut self,
        path: &Path,
        pts: &[[f64; 3]],
        at: Location,
        diags: &mut Vec<Diagnostic>,
    ) -> Vec<[f64; 2]> {
        let is_handle = |i: usize| i > 0 && i + 1 < pts.len() && (pts[i][2] - 1.0).abs() <= WHOLE;
        let xy = |p: [f64; 3]| [p[0], p[1]];
        let mut out = vec![xy(pts[0])];
        let mut s = 0;
        while s + 1 < pts.len() {
            let mut n = s + 1;
            while is_handle(n) {
                n += 1;
            }
            let (p1, p2) = (xy(pts[s]), xy(pts[n]));
            let handles: Vec<[f64; 2]> = pts[s + 1..n].iter().map(|p| xy(*p)).collect();
            let (c1, c2) = match handles.as_slice() {
                [] => (p1, p2),
                [c] => (lerp(p1, *c, 2.0 / 3.0), lerp(p2, *c, 2.0 / 3.0)),
                [c1, c2] => (*c1, *c2),
                [c1, .., c2] => {
                    if !self.handles_said {
                        self.handles_said = true;
                        diags.push(Diagnostic::new(
                            Severity::Warning,
                            path,
                            at,
                            format!(
                                "{} bezier handles (shape points with z 1) in a row; a side takes at most 2: the first and the last are used (further ones are not reported)",
                                handles.len()
                            ),
                        ));
                    }
                    (*c1, *c2)
                }
            };
            side(&mut out, [p1, c1, c2, p2]);
            s = n;
        }
        out
    }
}

/// The centreline of a `_CURVED` segment: each point's control is its outgoing handle,
/// the incoming one its mirror (GROUND.md §4); a control at its point is no handle.
fn curved_points(pts: &[[f64; 3]], ctrl: &[[f64; 3]]) -> Vec<[f64; 2]> {
    let xy = |p: [f64; 3]| [p[0], p[1]];
    let hi = |i: usize| ctrl.get(i).map_or(xy(pts[i]), |c| xy(*c));
    let mut out = vec![xy(pts[0])];
    for i in 0..pts.len() - 1 {
        let (p1, p2) = (xy(pts[i]), xy(pts[i + 1]));
        let c2 = hi(i + 1);
        side(
            &mut out,
            [p1, hi(i), [2.0 * p2[0] - c2[0], 2.0 * p2[1] - c2[1]], p2],
        );
    }
    out
}

fn lerp(a: [f64; 2], b: [f64; 2], t: f64) -> [f64; 2] {
    [a[0] + (b[0] - a[0]) * t, a[1] + (b[1] - a[1]) * t]
}

/// Appends one side, the cubic `b` in degrees, after its first point: its end alone when
/// straight, else the points where the ground's flattening cuts it (measured in metres
/// about its start).
fn side(out: &mut Vec<[f64; 2]>, b: [[f64; 2]; 4]) {
    if b[1] == b[0] && b[2] == b[3] {
        out.push(b[3]);
        return;
    }
    let m = b.map(|p| crate::input::project(b[0], p));
    for t in curves::cut_parameters(m, curves::TOLERANCE) {
        let t = f64::from(t);
        out.push(if t >= 1.0 { b[3] } else { cubic(b, t) });
    }
}

/// The cubic at `t`, in degrees.
fn cubic(b: [[f64; 2]; 4], t: f64) -> [f64; 2] {
    let u = 1.0 - t;
    let w = [u * u * u, 3.0 * u * u * t, 3.0 * u * t * t, t * t * t];
    [0, 1].map(|k| (0..4).map(|i| w[i] * b[i][k]).sum())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn seg(points: Vec<[f64; 3]>) -> DsfSegment {
        DsfSegment {
            def: 0,
            subtype: 3,
            nodes: [1, 2],
            points,
            ctrl: None,
            at: Location::Text { line: 7, col: 1 },
        }
    }

    fn read(segs: &[DsfSegment]) -> (Vec<DocFeature>, Vec<String>) {
        let mut r = RoadReading::default();
        let mut d = Vec::new();
        let p = Path::new("t.txt");
        let f = segs
            .iter()
            .filter_map(|s| r.feature(p, s, "roads.net", || "t".into(), &mut d))
            .collect();
        r.finish(p, &mut d);
        (f, d.iter().map(|d| d.to_string()).collect())
    }

    fn road(f: &DocFeature) -> &RoadGeometry {
        match &f.geometry {
            Geometry::Road(r) => r,
            _ => panic!("not a road"),
        }
    }

    #[test]
    fn a_straight_segment_keeps_its_points_and_levels() {
        let (f, d) = read(&[seg(vec![
            [8.0, 47.0, 1.0],
            [8.001, 47.0, 0.0],
            [8.002, 47.001, -1.0],
        ])]);
        assert!(d.is_empty(), "{d:?}");
        let r = road(&f[0]);
        assert_eq!(r.points, vec![[8.0, 47.0], [8.001, 47.0], [8.002, 47.001]]);
        assert_eq!(r.levels, [1, -1]);
        assert_eq!(r.nodes, [1, 2]);
        assert_eq!((f[0].kind, f[0].param), (FeatureKind::Road, 3));
    }

    #[test]
    fn handles_make_curves_within_the_tolerance() {
        // A quadratic (one handle) and the cubic WED's importer makes of it flatten alike.
        let (p1, c, p2) = ([8.0, 47.0], [8.001, 47.001], [8.002, 47.0]);
        let quad = seg(vec![
            [p1[0], p1[1], 0.0],
            [c[0], c[1], 1.0],
            [p2[0], p2[1], 0.0],
        ]);
        let (c1, c2) = (lerp(p1, c, 2.0 / 3.0), lerp(p2, c, 2.0 / 3.0));
        let cub = seg(vec![
            [p1[0], p1[1], 0.0],
            [c1[0], c1[1], 1.0],
            [c2[0], c2[1], 1.0],
            [p2[0], p2[1], 0.0],
        ]);
        let (f, d) = read(&[quad, cub]);
        assert!(d.is_empty(), "{d:?}");
        let (a, b) = (road(&f[0]), road(&f[1]));
        assert_eq!(a.points, b.points);
        assert!(a.points.len() > 8, "{}", a.points.len());
        assert_eq!((a.points[0], *a.points.last().unwrap()), (p1, p2));
        // Every point on the curve: within 0.1 m of the quadratic's densely sampled path.
        let q = |t: f64| {
            let u = 1.0 - t;
            [0, 1].map(|k| u * u * p1[k] + 2.0 * u * t * c[k] + t * t * p2[k])
        };
        let dense: Vec<_> = (0..=20000).map(|i| q(f64::from(i) / 20000.0)).collect();
        for p in &a.points {
            let m = dense
                .iter()
                .map(|d| {
                    let v = crate::input::project(*p, *d);
                    f64::from(v[0].hypot(v[1]))
                })
                .fold(f64::MAX, f64::min);
            assert!(m < 0.01, "on the curve: {m}");
        }
        // And the chords stay within 0.1 m of the curve: the midpoint of each.
        for w in a.points.windows(2) {
            let mid = lerp(w[0], w[1], 0.5);
            let m = dense
                .iter()
                .map(|d| {
                    let v = crate::input::project(mid, *d);
                    f64::from(v[0].hypot(v[1]))
                })
                .fold(f64::MAX, f64::min);
            assert!(m <= 0.1, "{m}");
        }
    }

    #[test]
    fn bad_levels_warn_once_and_read_as_zero() {
        let (f, d) = read(&[
            seg(vec![[8.0, 47.0, 0.5], [8.001, 47.0, 6.0]]),
            seg(vec![[8.0, 47.0, 512.3], [8.001, 47.0, 2.0]]),
        ]);
        assert_eq!(road(&f[0]).levels, [0, 0]);
        assert_eq!(road(&f[1]).levels, [0, 2]);
        assert_eq!(d.len(), 1, "{d:?}");
        assert!(
            d[0].starts_with("t.txt:7:1: warning: road end z 0.5 is not a level"),
            "{}",
            d[0]
        );
        // Scaled binary values close to a whole number are whole.
        let (f, d) = read(&[seg(vec![[8.0, 47.0, 2.3e-10], [8.001, 47.0, 0.99999999]])]);
        assert!(d.is_empty());
        assert_eq!(road(&f[0]).levels, [0, 1]);
    }

    #[test]
    fn zero_length_segments_are_counted_once_and_one_point_is_an_error() {
        let z = seg(vec![[8.0, 47.0, 0.0], [8.0, 47.0, 1.0], [8.0, 47.0, 0.0]]);
        let one = seg(vec![[8.0, 47.0, 0.0]]);
        let ok = seg(vec![[8.0, 47.0, 0.0], [8.1, 47.0, 0.0]]);
        let (f, d) = read(&[z.clone(), one, z, ok]);
        assert_eq!(f.len(), 1);
        assert_eq!(
            d,
            vec![
                "t.txt:7:1: error: a road segment needs two points, a junction at each end; this one has 1: skipped",
                "t.txt:7:1: warning: 2 road segment(s) of zero length (every point at one place) skipped; the first is here",
            ]
        );
    }

    #[test]
    fn curved_forms_use_each_points_control_as_its_outgoing_handle() {
        let mut s = seg(vec![[8.0, 47.0, 0.0], [8.002, 47.0, 0.0]]);
        s.ctrl = Some(vec![[8.0005, 47.0005, 0.0], [8.002, 47.0, 0.0]]);
        let (f, d) = read(&[s]);
        assert!(d.is_empty());
        let r = road(&f[0]);
        assert!(r.points.len() > 2);
        assert!(r.points[1..r.points.len() - 1].iter().all(|p| p[1] > 47.0));
    }
}

#[cfg(test)]
#[path = "roads_tests.rs"]
mod three_forms;
