//! What WED's DSF exporter writes for each placement of a project: the definition (resource),
//! the polygon parameter and the windings, or the object's point and heading.
//!
//! Facts from xptools `src/WEDImportExport/WED_DSFExport.cpp` (`DSF_ExportTileRecursive`, the
//! version that added "AUTOGEN STRING EXPORTER", commit ca8d2720) and
//! `src/WEDCore/WED_GISUtils.cpp`:
//! - An entity with `hidden` set is not written, nor anything below it; the exporter recurses
//!   only into `WED_Group` and `WED_Airport`.
//! - Objects: `OBJECT def lon lat heading`, the heading a `float` brought into [0, 360).
//! - Autogen (`WED_AutogenPlacement`, `.agb` and `.ags` alike): the outer ring is turned
//!   counter-clockwise (each side keeping its flag) and walked node by node; a node's
//!   `spawn_tiles` says whether the side starting at it spawns. Spawning runs become windings in order, each ending on the first point of the next run; the
//!   non-spawning runs follow them, after all spawning ones; the first node closes the last
//!   run (so a ring whose nodes all spawn is one winding that repeats its first point). The
//!   walk starts in a spawning run, so a ring whose first node does not spawn begins with a
//!   one-point winding (what WED writes for every AGB it imported from a DSF, whose nodes are
//!   all non-spawning). Holes follow, clockwise, not closed, never spawning. Parameter:
//!   `clamp(intround(height / 4), 0, 255) << 8`, plus the spelling (AGB, resource ending in
//!   `b`) or the number of spawning windings, counting that leading one (AGS), each clamped
//!   to 0..255.
//! - Facades: the topology comes from the `.fac` (`WED_FacadePlacement::GetTopoMode`), which
//!   this reader cannot see, so both forms are kept and the document stage picks: an area (a
//!   facade with a roof) is one polygon, the outer ring counter-clockwise and the holes
//!   clockwise (`WED_PolygonWithHolesForPolygon`), not closed ([`WedFeature::windings`]); a
//!   ring or a chain is each ring in node order, the closing point not repeated
//!   ([`WedFeature::node_order`]). Rings of two nodes are kept (a chain may have two);
//!   parameter the height in meters, truncated to an integer.
//! - Forests: parameter `clamp(trunc(density * 255), 0, 255) + fill_mode * 256`. Area fill:
//!   one polygon as for facades, repeated consecutive points dropped; line fill: one polygon
//!   per ring, a closed poly-line (first point repeated); point fill: one polygon per ring,
//!   its points.
//! - Draped polygons (`.pol`): one polygon as for facades; parameter the heading as X-Plane
//!   12 encodes it, 1/128 degree steps as multiples of 360 (`encode_heading`).
//! - Object strings (`WED_StringPlacement`, its nodes its own children): one chain in node
//!   order, a closed string repeating its first point (`auto_closed` is 0); parameter the
//!   spacing as WED encodes it for X-Plane 12.1.2 (`encode_spacing`: whole meters when
//!   within 2%, else `10000 + round(128 × meters)`, below 433.8 m).
//! - Painted lines (`WED_LinePlacement`, its nodes its own children): one chain in node
//!   order; parameter 1 for a closed line (its first point not repeated), else 0.
//! - Draped orthophotos (`WED_DrapedOrthophoto`): one polygon as for facades, parameter
//!   65535, each point with its texture node's `s t`; a resource that is an image (which
//!   WED turns into a `.pol` as it exports) is kept as the image.
//!
//! Curves: a draped polygon's, orthophoto's or string's bezier nodes are written as a DSF
//! writes them (`BezierPointSeqToTriple`, see `triple`), each point with its control
//! ([`WedFeature::ctrl`]); the document stage flattens them. Facades' and autogen's
//! curves are not (WED's own preview draws facades straight).
//!
//! - Roads (`WED_RoadEdge`, `dsf_road_grid_helper::export_to_dsf`): one segment per edge,
//!   `BEGIN_SEGMENT` at its start node with the start level, each bezier side's handles as
//!   two shape points with z 1 (a straight side writes none), each interior node a shape
//!   point with z 0, `END_SEGMENT` at its end node with the end level. The junction ids
//!   are the road nodes' WED ids.
//!
//! Not reproduced: clipping to DSF tile boundaries, merging a road's degree-2 nodes where
//! both edges share subtype and level (`remove_dupes`: the segments stay apart), WED's
//! nudge of a side with one degenerate handle (`derivative(0.01)`) (a placement wholly inside one tile is
//! written unchanged), per-node wall choices
//! (`pick_walls`), and the exporter's order across show levels (features come back in
//! hierarchy order).

use std::collections::{BTreeMap, HashSet};
use std::path::Path;

use agview_core::geom::signed_area2;

use super::{WedData, WedFeature, WedObject, WedProject};
use crate::diag::Diagnostic;

/// Airport classes WED writes to `apt.dat`, which agview does not draw yet: counted in the
/// note, then skipped. (Runways, helipads, taxiways and marking chains are drawn: see
/// [`super::airport`].)
const SKIPPED_AIRPORT: &[&str] = &[
    "WED_LightFixture",
    "WED_AirportSign",
    "WED_Windsock",
    "WED_RampPosition",
    "WED_TruckParkingLocation",
    "WED_TruckDestination",
];

/// Classes WED's exporter writes to the DSF that agview does not: counted in the note, then
/// skipped.
const SKIPPED_EXPORTS: &[&str] = &["WED_ExclusionZone"];

/// Everything WED's DSF exporter would write, in document (hierarchy) order, hidden items left
/// out. A placement whose rings cannot be assembled (a missing node, a ring with too few
/// nodes) is skipped with a located diagnostic; the rest are kept.
pub fn export(
    project: &WedProject,
    path: &Path,
    warnings: &mut Vec<Diagnostic>,
) -> Vec<WedFeature> {
    let mut ex = Exporter {
        project,
        path,
        warnings,
        out: Vec::new(),
        visited: HashSet::new(),
        skipped: BTreeMap::new(),
    };
    for root in project.roots() {
        ex.visit(root.id);
    }
    if let Some(&(_, line, col)) = ex.skipped.values().min_by_key(|v| (v.1, v.2)) {
        let list: Vec<String> = ex
            .skipped
            .iter()
            .map(|(class, (n, ..))| format!("{n} {class}"))
            .collect();
        ex.warnings.push(
            Diagnostic::new(
                crate::diag::Severity::Note,
                path,
                crate::diag::Location::Text { line, col },
                format!("skipped what agview does not draw yet: {}", list.join(", ")),
            )
            .with_kind(crate::diag::kind::NOT_DRAWN),
        );
    }
    ex.out
}

struct Exporter<'a, 'w> {
    project: &'a WedProject,
    path: &'a Path,
    warnings: &'w mut Vec<Diagnostic>,
    out: Vec<WedFeature>,
    visited: HashSet<u64>,
    /// What was skipped, by class: how many, and where the first is.
    skipped: BTreeMap<&'a str, (usize, u32, u32)>,
}

/// One node of a ring: (lon, lat), and whether the side starting at it spawns tiles.
#[derive(Clone, Copy)]
struct RingNode {
    pt: [f64; 2],
    spawn: bool,
    /// A texture node's coordinates.
    st: Option<[f32; 2]>,
    /// A bezier node's handles (absolute degrees).
    lo: Option<[f64; 2]>,
    hi: Option<[f64; 2]>,
}

impl RingNode {
    /// A plain, texture or bezier node: spawning (the default), with its texture
    /// coordinates and handles.
    fn of(d: &WedData) -> Option<RingNode> {
        match d {
            WedData::Node {
                lon,
                lat,
                st,
                lo,
                hi,
            } => Some(RingNode {
                pt: [*lon, *lat],
                spawn: true,
                st: *st,
                lo: *lo,
                hi: *hi,
            }),
            _ => None,
        }
    }
}

impl<'a> Exporter<'a, '_> {
    fn visit(&mut self, id: u64) {
        if !self.visited.insert(id) {
            return;
        }
        let Some(obj) = self.project.get(id) else {
            return; // reported by the parser
        };
        if obj.hidden {
            return;
        }
        match &obj.data {
            WedData::Root | WedData::Group | WedData::Airport { .. } => {
                for &c in &obj.children {
                    self.visit(c);
                }
            }
            WedData::ObjPlacement {
                lon,
                lat,
                heading,
                resource,
                ..
            } => {
                // WED_DSFExport: `float heading = obj->GetHeading()`, then into [0, 360).
                let mut h = *heading as f32;
                while h < 0.0 {
                    h += 360.0;
                }
                while h >= 360.0 {
                    h -= 360.0;
                }
                self.push(
                    obj,
                    resource,
                    0,
                    Vec::new(),
                    Some([*lon, *lat, f64::from(h)]),
                );
            }
            WedData::AutogenPlacement {
                height,
                spelling,
                resource,
            } => {
                if let Some(rings) = self.rings(obj) {
                    let (windings, n_spawning) = autogen_windings(&rings);
                    let high = clamp_u8(intround(height * 0.25)) << 8;
                    let low = if resource.ends_with('b') {
                        clamp_u8(*spelling)
                    } else {
                        clamp_u8(n_spawning as i64)
                    };
                    self.push(obj, resource, high + low, windings, None);
                }
            }
            WedData::FacadePlacement {
                height, resource, ..
            } => {
                // Two nodes are enough for a chain; whether it is one, the `.fac` says.
                if let Some(rings) = self.rings_of_at_least(obj, 2) {
                    let param = clamp_param(height.trunc());
                    let node_order = rings
                        .iter()
                        .map(|r| r.iter().map(|n| n.pt).collect())
                        .collect();
                    self.push(obj, resource, param, area_windings(&rings, false), None);
                    if let Some(f) = self.out.last_mut() {
                        f.node_order = Some(node_order);
                    }
                }
            }
            WedData::ForestPlacement {
                density,
                fill_mode,
                resource,
            } => {
                if let Some(rings) = self.rings(obj) {
                    let param = clamp_u8((density * 255.0).trunc() as i64) + fill_mode * 256;
                    match fill_mode {
                        0 => self.push(obj, resource, param, area_windings(&rings, true), None),
                        1 => {
                            for ring in &rings {
                                let mut w: Vec<[f64; 2]> = ring.iter().map(|n| n.pt).collect();
                                w.dedup();
                                if let Some(&first) = w.first() {
                                    w.push(first);
                                }
                                self.push(obj, resource, param, vec![w], None);
                            }
                        }
                        _ => {
                            for ring in &rings {
                                let w = ring.iter().map(|n| n.pt).collect();
                                self.push(obj, resource, param, vec![w], None);
                            }
                        }
                    }
                }
            }
            WedData::PolygonPlacement { heading, resource } => {
                if let Some(rings) = self.rings(obj) {
                    let param = encode_heading(*heading);
                    match curved_area(&rings) {
                        Some((windings, ctrl, _)) => {
                            self.push(obj, resource, param, windings, None);
                            if let Some(f) = self.out.last_mut() {
                                f.ctrl = Some(ctrl);
                            }
                        }
                        None => self.push(obj, resource, param, area_windings(&rings, false), None),
                    }
                }
            }
            WedData::StringPlacement {
                closed,
                spacing,
                resource,
            } => {
                if let Some(mut nodes) = self.chain_nodes(obj) {
                    if *closed {
                        // A closed string repeats its first point (`auto_closed` is 0).
                        let mut first = nodes[0];
                        first.hi = None;
                        nodes.push(first);
                        nodes[0].lo = None;
                    }
                    let (w, ctrl, _) = triple(&nodes);
                    let curved = nodes.iter().any(|n| n.lo.is_some() || n.hi.is_some());
                    self.push(obj, resource, encode_spacing(*spacing), vec![w], None);
                    if let Some(f) = self.out.last_mut().filter(|_| curved) {
                        f.ctrl = Some(vec![ctrl]);
                    }
                }
            }
            WedData::LinePlacement { closed, resource } => {
                if let Some(nodes) = self.chain_nodes(obj) {
                    // A closed line does not repeat its first point (`auto_closed`).
                    let (w, ctrl, _) = triple(&nodes);
                    let curved = nodes.iter().any(|n| n.lo.is_some() || n.hi.is_some());
                    let param = u32::from(*closed && nodes.len() > 2);
                    self.push(obj, resource, param, vec![w], None);
                    if let Some(f) = self.out.last_mut().filter(|_| curved) {
                        f.ctrl = Some(vec![ctrl]);
                    }
                }
            }
            WedData::DrapedOrthophoto { resource } => {
                if let Some(rings) = self.rings(obj) {
                    if let Some((windings, ctrl, st)) = curved_area(&rings) {
                        self.push(obj, resource, 65535, windings, None);
                        if let Some(f) = self.out.last_mut() {
                            f.ctrl = Some(ctrl);
                            f.st = Some(st);
                        }
                        return;
                    }
                    let windings = area_windings(&rings, false);
                    let st = rings
                        .iter()
                        .enumerate()
                        .map(|(i, r)| {
                            let mut st: Vec<[f32; 2]> =
                                r.iter().map(|n| n.st.unwrap_or([0.0, 0.0])).collect();
                            let pts: Vec<[f64; 2]> = r.iter().map(|n| n.pt).collect();
                            if (signed_area2(&pts) > 0.0) != (i == 0) {
                                st.reverse();
                            }
                            st
                        })
                        .collect();
                    self.push(obj, resource, 65535, windings, None);
                    if let Some(f) = self.out.last_mut() {
                        f.st = Some(st);
                    }
                }
            }
            WedData::RoadEdge {
                layers,
                subtype,
                resource,
                sources,
                ctrl,
            } => {
                if let Some(seg) =
                    self.road_segment(obj, *layers, *subtype, resource, sources, *ctrl)
                {
                    self.push(obj, resource, seg.subtype, Vec::new(), None);
                    if let Some(f) = self.out.last_mut() {
                        f.segment = Some(seg);
                    }
                }
            }
            WedData::Other => {
                let class = obj.class.as_str();
                if SKIPPED_EXPORTS.contains(&class) || SKIPPED_AIRPORT.contains(&class) {
                    self.skipped
                        .entry(class)
                        .or_insert((0, obj.line, obj.col))
                        .0 += 1;
                }
            }
            // Airport pavement goes to apt.dat, not the DSF: `super::airport` reads it.
            WedData::Runway { .. }
            | WedData::Helipad { .. }
            | WedData::Taxiway { .. }
            | WedData::AirportChain { .. }
            | WedData::AirportNode { .. }
            | WedData::Ring
            | WedData::AutogenNode { .. }
            | WedData::Node { .. }
            | WedData::Unknown => {}
        }
    }

    fn push(
        &mut self,
        obj: &WedObject,
        resource: &str,
        param: u32,
        windings: Vec<Vec<[f64; 2]>>,
        point: Option<[f64; 3]>,
    ) {
        self.out.push(WedFeature {
            id: obj.id,
            name: obj.name.clone(),
            resource: resource.to_string(),
            param,
            windings,
            node_order: None,
            st: None,
            ctrl: None,
            point,
            segment: None,
            line: obj.line,
            col: obj.col,
        });
    }

    /// A road edge as WED's exporter writes it (see the module documentation), or `None`
    /// with a located error when it has no resource, its sources are not two road nodes,
    /// or a child is not a node.
    fn road_segment(
        &mut self,
        obj: &WedObject,
        layers: [f64; 2],
        subtype: f64,
        resource: &str,
        sources: &[u64],
        ctrl: [[f64; 2]; 2],
    ) -> Option<crate::format::dsf::DsfSegment> {
        let fail = |this: &mut Self, why: String| {
            this.warnings.push(Diagnostic::error_at(
                this.path,
                obj.line,
                obj.col,
                format!(
                    "{} {} \"{}\" not exported: {why}",
                    obj.class, obj.id, obj.name
                ),
            ));
            None
        };
        if resource.trim().is_empty() {
            return fail(self, "it names no network (resource=\"\")".into());
        }
        let end_node = |this: &Self, id: Option<&u64>| -> Option<[f64; 2]> {
            match this.project.get(*id?).map(|o| (&o.class, &o.data)) {
                Some((class, WedData::Node { lon, lat, .. })) if class == "WED_RoadNode" => {
                    Some([*lon, *lat])
                }
                _ => None,
            }
        };
        let (Some(start), Some(end)) = (
            end_node(self, sources.first()),
            end_node(self, sources.get(1)),
        ) else {
            return fail(
                self,
                format!(
                    "its <sources> must name two WED_RoadNodes, its start and its end; it names {:?}",
                    sources
                ),
            );
        };
        // Every node in order: (point, lo handle, hi handle).
        type Handles = (Option<[f64; 2]>, Option<[f64; 2]>);
        let mut nodes: Vec<([f64; 2], Handles)> = Vec::new();
        let handle =
            |p: [f64; 2], d: [f64; 2]| (d != [0.0, 0.0]).then_some([p[0] + d[0], p[1] + d[1]]);
        nodes.push((start, (None, handle(start, ctrl[0]))));
        for &c in &obj.children {
            match self.project.get(c).map(|n| &n.data) {
                Some(WedData::Node {
                    lon, lat, lo, hi, ..
                }) => nodes.push(([*lon, *lat], (*lo, *hi))),
                _ => return fail(self, format!("child {c} is not a shape node")),
            }
        }
        nodes.push((end, (handle(end, ctrl[1]), None)));
        let mut points = Vec::with_capacity(nodes.len() * 3);
        for (i, w) in nodes.windows(2).enumerate() {
            let (p1, (_, hi)) = w[0];
            let (p2, (lo, _)) = w[1];
            let z = if i == 0 { layers[0] } else { 0.0 };
            points.push([p1[0], p1[1], z]);
            if hi.is_some() || lo.is_some() {
                let c1 = hi.unwrap_or(p1);
                let c2 = lo.unwrap_or(p2);
                points.push([c1[0], c1[1], 1.0]);
                points.push([c2[0], c2[1], 1.0]);
            }
        }
        points.push([end[0], end[1], layers[1]]);
        Some(crate::format::dsf::DsfSegment {
            def: 0,
            subtype: subtype.clamp(0.0, f64::from(u32::MAX)) as u32,
            nodes: [sources[0], sources[1]],
            points,
            ctrl: None,
            at: crate::diag::Location::Text {
                line: obj.line,
                col: obj.col,
            },
        })
    }

    /// A chain's nodes (its own children, in order), or `None` with a located diagnostic
    /// when a node is missing or there are fewer than two.
    fn chain_nodes(&mut self, obj: &WedObject) -> Option<Vec<RingNode>> {
        let mut nodes = Vec::with_capacity(obj.children.len());
        for &nid in &obj.children {
            match self.project.get(nid).map(|n| &n.data) {
                Some(d @ WedData::Node { .. }) => nodes.extend(RingNode::of(d)),
                _ => {
                    self.warnings.push(Diagnostic::error_at(
                        self.path,
                        obj.line,
                        obj.col,
                        format!(
                            "{} {} \"{}\" not exported: {nid} is not a node in the file",
                            obj.class, obj.id, obj.name
                        ),
                    ));
                    return None;
                }
            }
        }
        if nodes.len() < 2 {
            self.warnings.push(Diagnostic::error_at(
                self.path,
                obj.line,
                obj.col,
                format!(
                    "{} {} \"{}\" not exported: a chain needs at least two nodes, it has {}",
                    obj.class,
                    obj.id,
                    obj.name,
                    nodes.len()
                ),
            ));
            return None;
        }
        Some(nodes)
    }

    /// The placement's rings (outer first, then holes), or `None` with a located diagnostic
    /// when a ring or node is missing or a ring has fewer than three nodes.
    fn rings(&mut self, obj: &WedObject) -> Option<Vec<Vec<RingNode>>> {
        self.rings_of_at_least(obj, 3)
    }

    /// [`Self::rings`], each ring holding at least `min` nodes.
    fn rings_of_at_least(&mut self, obj: &WedObject, min: usize) -> Option<Vec<Vec<RingNode>>> {
        let mut rings = Vec::new();
        let fail = |this: &mut Self, at: &WedObject, why: String| {
            this.warnings.push(Diagnostic::error_at(
                this.path,
                at.line,
                at.col,
                format!(
                    "{} {} \"{}\" not exported: {why}",
                    obj.class, obj.id, obj.name
                ),
            ));
            None
        };
        if obj.children.is_empty() {
            return fail(self, obj, "it has no ring".into());
        }
        for &rid in &obj.children {
            let Some(ring) = self.project.get(rid) else {
                return fail(self, obj, format!("ring {rid} is not in the file"));
            };
            if ring.data != WedData::Ring {
                return fail(
                    self,
                    ring,
                    format!("child {rid} is a {}, not a ring", ring.class),
                );
            }
            let mut nodes = Vec::new();
            for &nid in &ring.children {
                let node = match self.project.get(nid).map(|n| &n.data) {
                    Some(WedData::AutogenNode {
                        lon,
                        lat,
                        spawn_tiles,
                    }) => RingNode {
                        pt: [*lon, *lat],
                        spawn: *spawn_tiles,
                        st: None,
                        lo: None,
                        hi: None,
                    },
                    Some(d @ WedData::Node { .. }) => match RingNode::of(d) {
                        Some(n) => n,
                        None => continue,
                    },
                    Some(_) => {
                        return fail(
                            self,
                            ring,
                            format!("ring {rid} holds {nid}, which is not a node"),
                        )
                    }
                    None => {
                        return fail(
                            self,
                            ring,
                            format!("ring {rid} names node {nid}, which is not in the file"),
                        )
                    }
                };
                nodes.push(node);
            }
            if nodes.len() < min {
                return fail(
                    self,
                    ring,
                    format!("ring {rid} has {} node(s), fewer than {min}", nodes.len()),
                );
            }
            rings.push(nodes);
        }
        Some(rings)
    }
}

/// `intround` from xptools' MathUtils: round half up.
fn intround(v: f64) -> i64 {
    (v + 0.5).floor() as i64
}

/// A ring or chain of nodes as a DSF writes curves (`BezierPointSeqToTriple`): a plain
/// node is `(P, P)`, a smooth one (its handles mirror) `(P, hi)`, any other a run at P:
/// `(P, 2P − lo)` when it has a lo handle, `(P, P)`, `(P, hi)` when it has a hi one.
/// Returns the points, their controls and their texture coordinates.
#[allow(clippy::type_complexity)]
fn triple(nodes: &[RingNode]) -> (Vec<[f64; 2]>, Vec<[f64; 2]>, Vec<[f32; 2]>) {
    let (mut pts, mut ctrl, mut st) = (Vec::new(), Vec::new(), Vec::new());
    let mirror = |p: [f64; 2], c: [f64; 2]| [2.0 * p[0] - c[0], 2.0 * p[1] - c[1]];
    for n in nodes {
        let p = n.pt;
        let s = n.st.unwrap_or([0.0, 0.0]);
        let mut put = |c: [f64; 2]| {
            pts.push(p);
            ctrl.push(c);
            st.push(s);
        };
        match (n.lo, n.hi) {
            (None, None) => put(p),
            (Some(lo), Some(hi)) if close_to(mirror(p, lo), hi) => put(hi),
            (lo, hi) => {
                if let Some(lo) = lo {
                    put(mirror(p, lo));
                }
                put(p);
                if let Some(hi) = hi {
                    put(hi);
                }
            }
        }
    }
    (pts, ctrl, st)
}

fn close_to(a: [f64; 2], b: [f64; 2]) -> bool {
    (a[0] - b[0]).abs() < 1e-9 && (a[1] - b[1]).abs() < 1e-9
}

/// A polygon's rings with their curves, when any node has a handle: outer ring
/// counter-clockwise and holes clockwise (a turned ring's handles swap sides), each in
/// [`triple`] form, not closed.
#[allow(clippy::type_complexity)]
fn curved_area(
    rings: &[Vec<RingNode>],
) -> Option<(Vec<Vec<[f64; 2]>>, Vec<Vec<[f64; 2]>>, Vec<Vec<[f32; 2]>>)> {
    if !rings
        .iter()
        .flatten()
        .any(|n| n.lo.is_some() || n.hi.is_some())
    {
        return None;
    }
    let (mut w, mut c, mut s) = (Vec::new(), Vec::new(), Vec::new());
    for (i, r) in rings.iter().enumerate() {
        let pts: Vec<[f64; 2]> = r.iter().map(|n| n.pt).collect();
        let mut nodes = r.clone();
        if (signed_area2(&pts) > 0.0) != (i == 0) {
            nodes.reverse();
            for n in &mut nodes {
                std::mem::swap(&mut n.lo, &mut n.hi);
            }
        }
        let (p, ctrl, st) = triple(&nodes);
        w.push(p);
        c.push(ctrl);
        s.push(st);
    }
    Some((w, c, s))
}

/// `encode_heading` of `WED_DSFExport.cpp`: a draped polygon's heading in whole degrees
/// plus 360 times its fraction in 1/128 degree steps (truncated, as WED's cast does).
fn encode_heading(h: f64) -> u32 {
    let wrapped = if h.is_finite() {
        h.rem_euclid(360.0)
    } else {
        0.0
    };
    let whole = wrapped.trunc();
    let frac = wrapped - whole;
    whole as u32 + 360 * ((128.0 * frac) as u32).min(127)
}

/// `encode_spacing` of `WED_DSFExport.cpp` for an X-Plane 12.1.2 target: whole meters when
/// that is within 2%, else `10000 + round(128 × meters)`; from 433.8 m on, whole meters.
fn encode_spacing(s: f64) -> u32 {
    let s = if s.is_finite() { s.max(0.0) } else { 0.0 };
    if s < 433.8 {
        let nearest = s.round();
        if nearest > 0.0 && (s / nearest - 1.0).abs() <= 0.02 {
            return nearest as u32;
        }
        return 10_000 + (128.0 * s).round() as u32;
    }
    clamp_param(s)
}

fn clamp_u8(v: i64) -> u32 {
    v.clamp(0, 255) as u32
}

/// A double passed as DSF's integer parameter, kept in the 16 bits DSF stores.
fn clamp_param(v: f64) -> u32 {
    v.clamp(0.0, 65535.0) as u32
}

/// `WED_PolygonForPointSequence`: the ring's points, reversed when not in the wanted
/// orientation.
fn oriented(ring: &[RingNode], ccw: bool) -> Vec<[f64; 2]> {
    let mut w: Vec<[f64; 2]> = ring.iter().map(|n| n.pt).collect();
    if (signed_area2(&w) > 0.0) != ccw {
        w.reverse();
    }
    w
}

/// `WED_PolygonWithHolesForPolygon`: outer counter-clockwise, holes clockwise, not closed;
/// forests also drop repeated consecutive points (`unique`).
fn area_windings(rings: &[Vec<RingNode>], dedup: bool) -> Vec<Vec<[f64; 2]>> {
    rings
        .iter()
        .enumerate()
        .map(|(i, r)| {
            let mut w = oriented(r, i == 0);
            if dedup {
                w.dedup();
            }
            w
        })
        .collect()
}

/// The autogen windings and the number of spawning ones, as `WED_DSFExport.cpp` builds them:
/// the one rule, [`super::windings::autogen_windings`], given each node's `spawn_tiles` as the
/// flag of the side starting at it. WED's holes never spawn, whatever their nodes say.
fn autogen_windings(rings: &[Vec<RingNode>]) -> (Vec<Vec<[f64; 2]>>, usize) {
    let pts: Vec<Vec<[f64; 2]>> = rings
        .iter()
        .map(|r| r.iter().map(|n| n.pt).collect())
        .collect();
    let flags: Vec<Vec<bool>> = rings
        .iter()
        .enumerate()
        .map(|(k, r)| r.iter().map(|n| k == 0 && n.spawn).collect())
        .collect();
    super::windings::autogen_windings(&pts, &flags)
}
