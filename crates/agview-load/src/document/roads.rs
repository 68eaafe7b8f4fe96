//! Laying out one road segment of a document (ROADS.md §1, §3.2, §5): its centreline in
//! metres, its ends' heights from their levels, and the look it draws with: the real road
//! type its `.net` picks for the subtype at that height, or the plain profile when the
//! `.net` is not at hand, is of the old XP8/9 form, or lacks the subtype.
//!
//! A segment with a negative level at either end is a tunnel: it is not drawn, and the
//! document says once how many it has ([`road_notes`]). The mesh (`agview-mesh`'s
//! `roads.rs`) lays each look's ribbons along the centreline.

use std::collections::BTreeMap;
use std::path::Path;

use super::definitions::{Opened, Resolution};
use super::{DocFeature, Geometry};
use crate::diag::{Diagnostic, Severity};
use crate::format::net::{self, Choice, NetFile, PlainLook};
use crate::input;
use crate::scene::{FeatureKind, RoadLook, RoadRibbon, RoadSegment, Scene};

/// Metres a road end rises per level above the ground (ROADS.md §1.5). UNCONFIRMED: no
/// source gives it. Agview's assumption: one level clears a road passing under it, about
/// 5 m of clearance (4.5–5.1 m in European and US rules) and a 1 m deck
/// (docs/spec-decisions.md, "Roads: drawing").
pub const METRES_PER_LEVEL: f32 = 6.0;

/// The height above the ground of each end of a segment whose ends are at `levels`
/// (a tunnel's negative level counts as the ground: tunnels are not drawn).
pub fn end_heights(levels: [i32; 2]) -> [f32; 2] {
    levels.map(|l| l.max(0) as f32 * METRES_PER_LEVEL)
}

/// Whether a segment with ends at `levels` is a tunnel (not drawn).
pub fn is_tunnel(levels: [i32; 2]) -> bool {
    levels.iter().any(|&l| l < 0)
}

/// Opens the `.net` at `file` for the features that name it (once per document); `None`
/// when it cannot be read: its roads draw in the plain profile.
pub(super) fn open_net(file: &Path, diags: &mut Vec<Diagnostic>) -> Option<Box<NetFile>> {
    let parsed = crate::format::read_file(file).and_then(|b| net::parse(file, &b, diags));
    match parsed {
        Ok(n) => Some(Box::new(n)),
        Err(e) => {
            diags.push(e);
            None
        }
    }
}

/// The `.net` a resolution opened, when it is of the form agview draws (XP10+).
fn usable_net(res: &Resolution) -> Option<&NetFile> {
    match &*res.opened {
        Opened::Net(Some(n)) if !n.old_form => Some(n),
        _ => None,
    }
}

/// Lays out road feature `f` in its own frame (at its first point): its segment, and the
/// one look it draws with. A tunnel, or a subtype whose band has no road ("type 0"), gives
/// an empty scene.
pub(super) fn layout_road(f: &DocFeature, res: &Resolution) -> Scene {
    let mut s = Scene::default();
    let Geometry::Road(road) = &f.geometry else {
        return s;
    };
    let Some(&origin) = road.points.first() else {
        return s;
    };
    if is_tunnel(road.levels) || road.points.len() < 2 {
        return s;
    }
    let points: Vec<[f32; 2]> = road
        .points
        .iter()
        .map(|p| input::project(origin, *p))
        .collect();
    let length = points
        .windows(2)
        .map(|w| (w[1][0] - w[0][0]).hypot(w[1][1] - w[0][1]))
        .sum();
    let heights = end_heights(road.levels);
    let resolved = res.resolved.as_deref().map(crate::diag::shown_path);
    let look = match usable_net(res).map(|n| (n, n.choose(f.param, heights[0].max(heights[1])))) {
        Some((_, Choice::Nothing)) => return s,
        Some((n, Choice::Road(t))) => net_look(&f.asset, res.resolved.as_deref(), n, t),
        Some((_, Choice::Missing)) | None => plain_look(&f.asset, resolved, f.param),
    };
    s.road_looks.push(look);
    s.roads.push(RoadSegment {
        look: 0,
        points,
        levels: road.levels,
        heights,
        length,
        feature: None,
    });
    s
}

/// The look of real road type `t` of `net` (read from `file`): its near-LOD-0 rows, with
/// the textures they use resolved relative to the `.net`'s folder.
pub fn net_look(name: &str, file: Option<&Path>, net: &NetFile, t: &net::RoadType) -> RoadLook {
    let dir = file.and_then(Path::parent).unwrap_or(Path::new(""));
    let mut used: Vec<usize> = Vec::new();
    let rows = t
        .rows
        .iter()
        .filter(|r| r.near_lod == 0.0)
        .map(|r| {
            let k = used
                .iter()
                .position(|&u| u == r.texture)
                .unwrap_or_else(|| {
                    used.push(r.texture);
                    used.len() - 1
                });
            RoadRibbon {
                texture: k,
                x: r.x,
                y: if r.graded { r.y } else { [0.0, 0.0] },
                s: r.s,
                t_scale: r.t_scale,
            }
        })
        .collect();
    let textures = used
        .iter()
        .map(|&k| match net.textures.get(k) {
            Some(tex) => crate::diag::shown_path(&dir.join(tex.path.replace('\\', "/"))),
            // A row naming no texture: the art stage draws the placeholder.
            None => format!("{name}: texture {k}"),
        })
        .collect();
    RoadLook {
        net: name.to_string(),
        resolved: file.map(crate::diag::shown_path),
        road_type: Some(t.id),
        plain: None,
        width: t.width,
        length: t.length,
        rows,
        textures,
    }
}

/// Texture repeat length of the plain profile along the road, metres: one dash and gap of
/// the centre line.
pub const PLAIN_LENGTH: f32 = 12.0;

/// The plain-profile width of a power line, metres: a thin line, not a road.
pub const POWER_LINE_WIDTH: f32 = 0.3;

/// The plain profile's look for `subtype` ([`net::plain_road`]).
pub fn plain_look(name: &str, resolved: Option<String>, subtype: u32) -> RoadLook {
    plain_look_of(name, resolved, net::plain_road(subtype))
}

/// The plain profile's look for road `p` (its band's width; a power line thin): one ribbon
/// across the whole width, drawn with agview's own textures (chosen by the band).
pub fn plain_look_of(name: &str, resolved: Option<String>, p: net::PlainRoad) -> RoadLook {
    let width = match p.look {
        PlainLook::PowerLine => POWER_LINE_WIDTH,
        _ => p.width,
    };
    RoadLook {
        net: name.to_string(),
        resolved,
        road_type: None,
        plain: Some(p.band.to_string()),
        width,
        length: PLAIN_LENGTH,
        rows: vec![RoadRibbon {
            texture: 0,
            x: [-width / 2.0, width / 2.0],
            y: [0.0, 0.0],
            s: [0.0, 1.0],
            t_scale: 1.0,
        }],
        textures: Vec::new(),
    }
}

/// What a document says once about its roads: how many tunnels were left out, how high its
/// raised ends are assumed to be, and each subtype its `.net` lacks (drawn in the plain
/// profile), at the first segment naming it.
pub(super) fn road_notes(doc: &Path, feats: &[DocFeature], res: &[Resolution]) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    let (mut tunnels, mut raised) = (0usize, 0usize);
    let mut missing: BTreeMap<(&str, u32), &DocFeature> = BTreeMap::new();
    for (f, r) in feats.iter().zip(res) {
        let Geometry::Road(road) = &f.geometry else {
            continue;
        };
        if f.kind != FeatureKind::Road {
            continue;
        }
        if is_tunnel(road.levels) {
            tunnels += 1;
            continue;
        }
        raised += road.levels.iter().filter(|&&l| l > 0).count();
        let h = end_heights(road.levels);
        if let Some(n) = usable_net(r) {
            if n.choose(f.param, h[0].max(h[1])) == Choice::Missing {
                missing.entry((&f.asset, f.param)).or_insert(f);
            }
        }
    }
    for ((asset, subtype), f) in missing {
        out.push(f.diag(
            doc,
            Severity::Warning,
            format!(
                "{asset}: road subtype {subtype} is not in the .net; its segments draw in the plain profile"
            ),
        ));
    }
    if raised > 0 {
        out.push(Diagnostic::note_file(
            doc,
            format!(
                "{raised} road end(s) above level 0 are drawn {METRES_PER_LEVEL} m up per level (an assumption: no source gives a level's height; docs/roads.md)"
            ),
        ));
    }
    if tunnels > 0 {
        out.push(
            Diagnostic::note_file(
                doc,
                format!(
                    "{tunnels} road segment(s) with a negative level at an end are tunnels, not drawn"
                ),
            )
            .with_kind(crate::diag::kind::NOT_DRAWN),
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::super::features::RoadGeometry;
    use super::*;
    use crate::diag::Location;

    fn feature(subtype: u32, points: &[[f64; 2]], levels: [i32; 2]) -> DocFeature {
        DocFeature::new(
            "roads.txt:3".into(),
            "lib/g10/roads.net".into(),
            FeatureKind::Road,
            subtype,
            Geometry::Road(RoadGeometry {
                points: points.to_vec(),
                levels,
                nodes: [1, 2],
            }),
            Location::Text { line: 3, col: 1 },
        )
    }

    fn resolution(opened: Opened) -> Resolution {
        Resolution {
            resolved: None,
            package: None,
            opened: Arc::new(opened),
            library: true,
        }
    }

    /// About 100 m east of the first point, on the equator.
    const EAST_100M: [f64; 2] = [100.0 / 111_319.49, 0.0];

    #[test]
    fn without_the_net_a_road_draws_in_the_plain_profile_in_metres() {
        let f = feature(51, &[[0.0, 0.0], EAST_100M], [0, 1]);
        for opened in [Opened::Missing, Opened::Net(None)] {
            let s = layout_road(&f, &resolution(opened));
            assert_eq!(s.road_looks.len(), 1);
            let look = &s.road_looks[0];
            assert!(look.plain.is_some() && look.road_type.is_none());
            assert_eq!(look.rows.len(), 1);
            assert_eq!(look.rows[0].x, [-look.width / 2.0, look.width / 2.0]);
            let r = &s.roads[0];
            assert!((r.length - 100.0).abs() < 0.5, "{}", r.length);
            assert!((r.points[1][0] - 100.0).abs() < 0.5 && r.points[0] == [0.0, 0.0]);
            assert_eq!(r.heights, [0.0, METRES_PER_LEVEL]);
        }
        // An old-form `.net` is drawn plain too.
        let old = NetFile {
            old_form: true,
            ..NetFile::default()
        };
        let s = layout_road(&f, &resolution(Opened::Net(Some(Box::new(old)))));
        assert!(s.road_looks[0].plain.is_some());
    }

    #[test]
    fn tunnels_are_not_drawn_and_counted_once_per_document() {
        let feats = [
            feature(51, &[[0.0, 0.0], EAST_100M], [0, -1]),
            feature(51, &[[0.0, 0.0], EAST_100M], [-1, 0]),
            feature(51, &[[0.0, 0.0], EAST_100M], [0, 0]),
            feature(51, &[[0.0, 0.0], EAST_100M], [1, 2]),
        ];
        let res: Vec<Resolution> = feats.iter().map(|_| resolution(Opened::Missing)).collect();
        assert!(layout_road(&feats[0], &res[0]).roads.is_empty());
        assert_eq!(layout_road(&feats[2], &res[2]).roads.len(), 1);
        let notes = road_notes(Path::new("doc.txt"), &feats, &res);
        assert_eq!(notes.len(), 2, "{notes:?}");
        assert!(notes.iter().all(|n| n.severity == Severity::Note));
        // The assumed height of a level is labelled where the user sees it.
        let m = &notes[0].message;
        assert!(
            m.starts_with("2 road end(s) above level 0 are drawn 6 m up per level (an assumption"),
            "{m}"
        );
        let m = &notes[1].message;
        assert!(m.starts_with("2 road segment(s)"), "{m}");
    }

    #[test]
    fn roads_obey_only_and_combine_shares_their_looks() {
        use crate::input::{Inputs, Only};
        let only = |o: Only| Inputs {
            only: vec![o],
            ..Inputs::default()
        };
        assert!(only(Only::Roads).keeps(FeatureKind::Road));
        assert!(!only(Only::Ground).keeps(FeatureKind::Road));
        // Two documents' parts of the same look, and one of another: two looks.
        let part = |subtype: u32, at: f64| {
            let f = feature(subtype, &[[at, 0.0], [at + EAST_100M[0], 0.0]], [0, 0]);
            let mut s = layout_road(&f, &resolution(Opened::Missing));
            s.translate([at as f32, 0.0]);
            s
        };
        let p = net::plain_road(51).band;
        let (s, _) = super::super::combine(vec![part(51, 0.0), part(220, 1.0), part(51, 2.0)]);
        assert_eq!(s.roads.len(), 3);
        let same = net::plain_road(220).band == p;
        assert_eq!(s.road_looks.len(), if same { 1 } else { 2 });
        assert_eq!(s.roads[0].look, s.roads[2].look);
        assert_eq!(s.roads[2].points[0], [2.0, 0.0]);
    }

    #[test]
    fn levels_lift_by_the_assumed_metres_and_plain_power_lines_are_thin() {
        assert_eq!(end_heights([0, 2]), [0.0, 2.0 * METRES_PER_LEVEL]);
        assert_eq!(end_heights([-1, 0]), [0.0, 0.0]);
        assert!(is_tunnel([0, -2]) && !is_tunnel([0, 5]));
        let p = net::PlainRoad {
            band: "power line",
            width: 10.0,
            look: PlainLook::PowerLine,
        };
        assert_eq!(plain_look_of("n.net", None, p).width, POWER_LINE_WIDTH);
    }

    #[test]
    fn a_net_look_keeps_near_lod_0_rows_and_resolves_their_textures_by_the_net() {
        let tex = |p: &str| net::NetTexture {
            poly_os: 1.0,
            path: p.into(),
            ..net::NetTexture::default()
        };
        let row = |texture, near_lod, graded| net::RoadRow {
            texture,
            near_lod,
            x: [-3.0, 3.0],
            y: [0.5, 0.5],
            s: [0.0, 1.0],
            t_scale: 1.0,
            graded,
            ..net::RoadRow::default()
        };
        let t = net::RoadType {
            id: 7,
            width: 6.0,
            length: 20.0,
            rows: vec![row(2, 0.0, false), row(0, 1000.0, false), row(2, 0.0, true)],
            ..net::RoadType::default()
        };
        let n = NetFile {
            textures: vec![tex("a.png"), tex("b.png"), tex("sub\\c.png")],
            ..NetFile::default()
        };
        let l = net_look("lib/r.net", Some(Path::new("/pkg/roads/r.net")), &n, &t);
        assert_eq!(l.road_type, Some(7));
        assert_eq!(l.rows.len(), 2, "the far LOD row is left out");
        // Joined to the `.net`'s folder with the platform's own separator.
        let shown: Vec<String> = l.textures.iter().map(|t| t.replace('\\', "/")).collect();
        assert_eq!(shown, ["/pkg/roads/sub/c.png"]);
        assert_eq!((l.rows[0].y, l.rows[1].y), ([0.0, 0.0], [0.5, 0.5]));
    }
}
