//! Airport ground from `apt.dat` (GROUND.md §6): runways with their shoulders, blast pads
//! and displaced thresholds, helipads, taxiway pavement with holes and curves, and painted
//! marking lines, as draped polygons and painted lines of agview's own built-in art
//! (`agview:surface/…`, `agview:line/…`, made by the art stage), each in its place of
//! X-Plane's pavement layer order.
//!
//! Pure like every layout: the caller gives the projection from degrees to local meters.

use crate::format::apt::{AptChain, Helipad, Pavement, Runway};
use crate::layout::curves;
use crate::layout::geom::P2;
use crate::layout::placed::{draped_polygon, painted_line};
use crate::scene::{ArtRef, PavementLayer, Scene};

/// The name of agview's built-in art for a surface code, or `None` for what is not drawn
/// (15 transparent, 0 no shoulder, unknown codes draw as asphalt).
pub(crate) fn surface_art(code: u32) -> Option<&'static str> {
    Some(match code {
        0 | 15 => return None,
        2 | 50..=57 => "concrete",
        3 => "grass",
        4 => "dirt",
        5 => "gravel",
        12 => "lakebed",
        13 => "water",
        14 => "snow",
        20..=23 => "asphalt_light",
        27..=38 => "asphalt_dark",
        _ => "asphalt",
    })
}

/// Whether a surface is unpaved (drawn in the unpaved groups, under every paved one).
pub fn unpaved(code: u32) -> bool {
    matches!(code, 3..=15)
}

/// The built-in line art for an apt.dat line type (1–99), by colour and pattern; see
/// `docs/spec-decisions.md` for the table.
pub(crate) fn line_art(code: u32) -> &'static str {
    match code {
        2 | 8 | 9 | 10 | 11 => "yellow_broken",
        3..=7 | 12..=14 => "yellow_wide",
        20 => "white",
        21 => "white_wide",
        22 => "white_broken",
        30..=39 => "red",
        40..=49 => "orange",
        52 | 58..=61 => "yellow_broken_bordered",
        51..=64 => "yellow_bordered",
        _ => "yellow",
    }
}

/// The art of each pavement surface: the library's `.pol` for the surface code where an
/// install has one (`Some`), else agview's own (`None`).
pub type SurfaceLibrary<'a> = &'a dyn Fn(u32) -> Option<ArtRef>;

/// The scene of one airport item in surface `code`, with its art named: the library's, or
/// agview's own.
fn with_layer(mut s: Scene, code: u32, group: &str, order: u32, lib: SurfaceLibrary) -> Scene {
    let own = || ArtRef {
        name: format!("agview:surface/{}", surface_art(code).unwrap_or("asphalt")).into(),
        resolved: None,
    };
    s.pol_defs = vec![lib(code).unwrap_or_else(own)];
    for d in &mut s.draped {
        d.pavement = Some(PavementLayer {
            group: group.into(),
            order,
        });
    }
    s
}

fn line_scene(points: Vec<P2>, closed: bool, art: &str) -> Scene {
    let mut s = painted_line("apt.dat", &[points], closed);
    s.lin_defs = vec![ArtRef {
        name: format!("agview:line/{art}").into(),
        resolved: None,
    }];
    s
}

/// A quad from `a` to `b` (meters), `half` meters either side of the line between them.
fn band(a: P2, b: P2, half: f32) -> Vec<P2> {
    let d = [b[0] - a[0], b[1] - a[1]];
    let len = (d[0] * d[0] + d[1] * d[1]).sqrt().max(1e-6);
    let r = [d[1] / len * half, -d[0] / len * half];
    vec![
        [a[0] - r[0], a[1] - r[1]],
        [a[0] + r[0], a[1] + r[1]],
        [b[0] + r[0], b[1] + r[1]],
        [b[0] - r[0], b[1] - r[1]],
    ]
}

fn along(a: P2, b: P2, m: f32) -> P2 {
    let d = [b[0] - a[0], b[1] - a[1]];
    let len = (d[0] * d[0] + d[1] * d[1]).sqrt().max(1e-6);
    [a[0] + d[0] / len * m, a[1] + d[1] / len * m]
}

/// A runway (row 100): its pavement between its ends, a blast pad beyond each end that has
/// one, its shoulders (each `shoulder / 100` meters wide, or a quarter of the width, over
/// the whole length with the blast pads), and white markings: a threshold bar at each
/// (displaced) threshold and a broken centreline. `order` is its place among the airport's
/// runways. `project` takes (lat, lon).
pub fn runway(
    r: &Runway,
    order: u32,
    project: &dyn Fn([f64; 2]) -> P2,
    lib: SurfaceLibrary,
) -> Vec<Scene> {
    let a = project([r.ends[0].lat, r.ends[0].lon]);
    let b = project([r.ends[1].lat, r.ends[1].lon]);
    let w = r.width as f32;
    let heading = (b[0] - a[0]).atan2(b[1] - a[1]).to_degrees();
    let mut out = Vec::new();
    let (bp1, bp2) = (r.ends[0].blastpad as f32, r.ends[1].blastpad as f32);
    let (a_out, b_out) = (along(a, b, -bp1), along(b, a, -bp2));
    if surface_art(r.surface).is_some() {
        let group = if unpaved(r.surface) {
            "unpaved_runways"
        } else {
            "runways"
        };
        for ring in [band(a, b, w / 2.0)]
            .into_iter()
            .chain((bp1 > 0.0).then(|| band(a_out, a, w / 2.0)))
            .chain((bp2 > 0.0).then(|| band(b, b_out, w / 2.0)))
        {
            out.push(with_layer(
                draped_polygon("apt.dat", &[ring], None, heading),
                r.surface,
                group,
                order,
                lib,
            ));
        }
        // Markings on a paved runway: threshold bars and the centreline.
        if !unpaved(r.surface) {
            let length = {
                let d = [b[0] - a[0], b[1] - a[1]];
                (d[0] * d[0] + d[1] * d[1]).sqrt()
            };
            let t1 = along(a, b, r.ends[0].displaced as f32);
            let t2 = along(b, a, r.ends[1].displaced as f32);
            for (t, toward) in [(t1, b), (t2, a)] {
                let c = along(t, toward, 1.5);
                let half = band(c, toward, w * 0.4);
                out.push(line_scene(vec![half[0], half[1]], false, "white_bar"));
            }
            if length > 200.0 {
                let s = along(t1, b, 60.0);
                let e = along(t2, a, 60.0);
                out.push(line_scene(vec![s, e], false, "white_centreline"));
            }
        }
    }
    let shoulder_surface = r.shoulder % 100;
    if surface_art(shoulder_surface).is_some() {
        let sw = match r.shoulder / 100 {
            0 => 0.25 * w,
            m => m as f32,
        };
        let ring = band(a_out, b_out, w / 2.0 + sw);
        out.push(with_layer(
            draped_polygon("apt.dat", &[ring], None, heading),
            shoulder_surface,
            "shoulders",
            order,
            lib,
        ));
    }
    out
}

/// A helipad (row 102): a rectangle `length` along its heading and `width` across.
pub fn helipad(
    h: &Helipad,
    order: u32,
    project: &dyn Fn([f64; 2]) -> P2,
    lib: SurfaceLibrary,
) -> Vec<Scene> {
    if surface_art(h.surface).is_none() {
        return Vec::new();
    }
    let c = project([h.lat, h.lon]);
    let (s, co) = (h.heading as f32).to_radians().sin_cos();
    let half = (h.length as f32) / 2.0;
    let a = [c[0] - s * half, c[1] - co * half];
    let b = [c[0] + s * half, c[1] + co * half];
    let group = if unpaved(h.surface) {
        "unpaved_runways"
    } else {
        "runways"
    };
    vec![with_layer(
        draped_polygon(
            "apt.dat",
            &[band(a, b, h.width as f32 / 2.0)],
            None,
            h.heading as f32,
        ),
        h.surface,
        group,
        order,
        lib,
    )]
}

/// A chain's points in meters, its curves flattened (apt.dat writes them as a DSF does:
/// the outgoing handle, split nodes as runs of equal points).
pub fn chain_points(c: &AptChain, project: &dyn Fn([f64; 2]) -> P2) -> Vec<P2> {
    let pts: Vec<P2> = c.nodes.iter().map(|n| project([n.lat, n.lon])).collect();
    if c.nodes.iter().all(|n| n.ctrl.is_none()) {
        return pts;
    }
    let ctrl: Vec<P2> = c
        .nodes
        .iter()
        .zip(&pts)
        .map(|(n, p)| n.ctrl.map_or(*p, project))
        .collect();
    let nodes = curves::merge_runs(&pts, &ctrl, None, None, c.closed);
    curves::flatten(&nodes, c.closed).0
}

/// Taxiway pavement (row 110): its boundary and holes, curves flattened, and the painted
/// lines its nodes carry (each side in the line type of the node it starts at).
pub fn pavement(
    p: &Pavement,
    order: u32,
    project: &dyn Fn([f64; 2]) -> P2,
    lib: SurfaceLibrary,
) -> Vec<Scene> {
    let mut out = Vec::new();
    let rings: Vec<Vec<P2>> = p.rings.iter().map(|r| chain_points(r, project)).collect();
    if surface_art(p.surface).is_some() {
        let group = if unpaved(p.surface) {
            "unpaved_taxiways"
        } else {
            "taxiways"
        };
        out.push(with_layer(
            draped_polygon("apt.dat", &rings, None, p.heading as f32),
            p.surface,
            group,
            order,
            lib,
        ));
    }
    for r in &p.rings {
        out.extend(edge_lines(r, project));
    }
    out
}

/// The painted lines along a chain: each run of sides whose starting nodes carry one line
/// type is one line.
pub fn edge_lines(c: &AptChain, project: &dyn Fn([f64; 2]) -> P2) -> Vec<Scene> {
    let n = c.nodes.len();
    let sides = if c.closed { n } else { n.saturating_sub(1) };
    let mut out = Vec::new();
    let mut i = 0;
    while i < sides {
        let Some(code) = c.nodes[i].line_type else {
            i += 1;
            continue;
        };
        let mut j = i;
        while j + 1 < sides && c.nodes[j + 1].line_type == Some(code) {
            j += 1;
        }
        let run = AptChain {
            nodes: (i..=j + 1).map(|k| c.nodes[k % n]).collect(),
            closed: false,
            line: c.line,
        };
        let whole = i == 0 && j + 1 == sides && c.closed;
        let mut pts = chain_points(&run, project);
        if whole {
            pts.pop();
        }
        out.push(line_scene(pts, whole, line_art(code)));
        i = j + 1;
    }
    out
}
