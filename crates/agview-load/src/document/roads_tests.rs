//! One small network (a crossing, a curve, a bridge end at level 1, a tunnel end at level
//! -1, a shape point) written as DSF text, as a binary DSF and as a WED project: the three
//! read to the same road features.

use std::path::Path;

use super::super::features::{self, DocFeature, Geometry};
use crate::diag::Diagnostic;
use crate::format::dsf::DsfSegment;
use crate::scene::FeatureKind;

const NET: &str = "lib/g10/roads.net";

/// Junctions: id and (lon, lat).
const NODES: [(u64, [f64; 2]); 8] = [
    (10, [8.0, 47.0]),
    (11, [8.0, 47.002]),
    (12, [8.002, 47.0]),
    (13, [8.0, 46.998]),
    (14, [7.998, 47.0]),
    (15, [8.004, 47.002]),
    (16, [8.0, 47.004]),
    (17, [8.0, 46.996]),
];

fn at(id: u64) -> [f64; 2] {
    NODES.iter().find(|n| n.0 == id).expect("a node").1
}

/// One segment: subtype, start and end junction, levels, and what lies between in DSF
/// form: (lon, lat, z) with z 1 for a handle.
struct Seg {
    sub: u32,
    nodes: [u64; 2],
    levels: [i32; 2],
    between: Vec<[f64; 3]>,
}

/// The network: four arms crossing at 10 (the west one with a shape point), a curve from
/// 12 to 15 with two handles, a bridge from 11 up to level 1 at 16, a tunnel from 13 down
/// to level -1 at 17.
fn network() -> Vec<Seg> {
    let s = |sub, nodes, levels, between| Seg {
        sub,
        nodes,
        levels,
        between,
    };
    vec![
        s(3, [10, 11], [0, 0], vec![]),
        s(3, [10, 12], [0, 0], vec![]),
        s(3, [10, 13], [0, 0], vec![]),
        s(5, [10, 14], [0, 0], vec![[7.999, 47.0005, 0.0]]),
        s(
            3,
            [12, 15],
            [0, 0],
            vec![[8.003, 47.0, 1.0], [8.004, 47.001, 1.0]],
        ),
        s(3, [11, 16], [0, 1], vec![]),
        s(3, [13, 17], [0, -1], vec![]),
    ]
}

fn dsf_segments() -> Vec<DsfSegment> {
    network()
        .iter()
        .map(|s| {
            let end = |k: usize| {
                let p = at(s.nodes[k]);
                [p[0], p[1], f64::from(s.levels[k])]
            };
            let mut points = vec![end(0)];
            points.extend(&s.between);
            points.push(end(1));
            DsfSegment {
                def: 0,
                subtype: s.sub,
                nodes: s.nodes,
                points,
                ..DsfSegment::default()
            }
        })
        .collect()
}

fn dsf_text() -> String {
    let mut t = format!("I\n800\nDSF2TEXT\nPROPERTY sim/west 8\nNETWORK_DEF {NET}\n");
    for s in dsf_segments() {
        let n = s.points.len();
        let p = |q: [f64; 3]| format!("{} {} {}", q[0], q[1], q[2]);
        t += &format!(
            "BEGIN_SEGMENT 0 {} {} {}\n",
            s.subtype,
            s.nodes[0],
            p(s.points[0])
        );
        for q in &s.points[1..n - 1] {
            t += &format!("SHAPE_POINT {}\n", p(*q));
        }
        t += &format!("END_SEGMENT {} {}\n", s.nodes[1], p(s.points[n - 1]));
    }
    t
}

fn dsf_binary() -> Vec<u8> {
    use crate::format::dsf_bin::{write_dsf, DsfToWrite};
    write_dsf(&DsfToWrite {
        network_defs: vec![NET.into()],
        segments: dsf_segments(),
        ..DsfToWrite::default()
    })
}

/// The network as WED saves it: road nodes, and road edges whose handles are the edge's
/// own `ctrl_*` (the curve) and whose interior points are bezier child nodes.
fn wed_xml() -> String {
    let mut objects = String::new();
    let mut world = Vec::new();
    for (id, [lon, lat]) in NODES {
        world.push(id);
        objects += &format!(
            "<object class=\"WED_RoadNode\" id=\"{id}\" parent_id=\"2\"><children/>\
             <hierarchy name=\"{id}\" locked=\"0\" hidden=\"0\"/>\
             <point latitude=\"{lat}\" longitude=\"{lon}\"/></object>\n"
        );
    }
    let mut next = 100;
    for s in network() {
        let edge = next;
        next += 1;
        world.push(edge);
        let (p1, p2) = (at(s.nodes[0]), at(s.nodes[1]));
        // Handles (z 1) go on the edge; plain points become child nodes.
        let handles: Vec<&[f64; 3]> = s.between.iter().filter(|q| q[2] == 1.0).collect();
        let (lo, hi) = match handles.as_slice() {
            [c1, c2] => (
                [c1[0] - p1[0], c1[1] - p1[1]],
                [c2[0] - p2[0], c2[1] - p2[1]],
            ),
            _ => ([0.0; 2], [0.0; 2]),
        };
        let mut children = String::new();
        for q in s.between.iter().filter(|q| q[2] == 0.0) {
            let id = next;
            next += 1;
            children += &format!("<child id=\"{id}\"/>");
            objects += &format!(
                "<object class=\"WED_SimpleBezierBoundaryNode\" id=\"{id}\" parent_id=\"{edge}\"><children/>\
                 <hierarchy name=\"shape point\" locked=\"0\" hidden=\"0\"/>\
                 <point latitude=\"{}\" longitude=\"{}\" ctrl_latitude_lo=\"0\" ctrl_longitude_lo=\"0\" \
                 ctrl_latitude_hi=\"0\" ctrl_longitude_hi=\"0\"/></object>\n",
                q[1], q[0]
            );
        }
        objects += &format!(
            "<object class=\"WED_RoadEdge\" id=\"{edge}\" parent_id=\"2\">\
             <sources><source id=\"{}\"/><source id=\"{}\"/></sources>\
             <children>{children}</children><hierarchy name=\"road\" locked=\"0\" hidden=\"0\"/>\
             <edge ctrl_latitude_lo=\"{}\" ctrl_longitude_lo=\"{}\" ctrl_latitude_hi=\"{}\" ctrl_longitude_hi=\"{}\"/>\
             <road_edge layer=\"{}\" end_layer=\"{}\" sub_type=\"{}\" resource=\"{NET}\"/></object>\n",
            s.nodes[0], s.nodes[1], lo[1], lo[0], hi[1], hi[0], s.levels[0], s.levels[1], s.sub
        );
    }
    let kids: String = world
        .iter()
        .map(|i| format!("<child id=\"{i}\"/>"))
        .collect();
    format!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<doc>\n<objects>\n\
         <object class=\"WED_Root\" id=\"1\" parent_id=\"0\"><children><child id=\"2\"/></children><hierarchy name=\"root\"/></object>\n\
         <object class=\"WED_Group\" id=\"2\" parent_id=\"1\"><children>{kids}</children><hierarchy name=\"world\" locked=\"0\" hidden=\"0\"/></object>\n\
         {objects}</objects>\n</doc>\n"
    )
}

fn from_text(src: &str) -> (Vec<DocFeature>, Vec<Diagnostic>) {
    let path = Path::new("t.txt");
    let mut d = Vec::new();
    let dsf = crate::format::dsf::parse(path, src.as_bytes(), &mut d).expect("parses");
    let f = features::from_dsf_text(path, dsf, &mut d);
    (f, d)
}

fn from_binary(bytes: &[u8]) -> (Vec<DocFeature>, Vec<Diagnostic>) {
    let path = Path::new("t.dsf");
    let mut d = Vec::new();
    let dsf = crate::format::dsf_bin::parse(path, bytes, &mut d).expect("parses");
    let f = features::from_dsf_binary(path, &dsf, &mut d);
    (f, d)
}

fn from_wed(xml: &str) -> (Vec<DocFeature>, Vec<Diagnostic>) {
    let path = Path::new("earth.wed.xml");
    let mut d = Vec::new();
    let project = crate::format::wed::parse(path, xml.as_bytes(), &mut d).expect("parses");
    let placed = crate::format::wed::export(&project, path, &mut d);
    let f = features::from_wed(path, &placed, &mut d);
    (f, d)
}

/// (nodes, subtype, levels, points) of each road feature, by nodes.
type Road = ([u64; 2], u32, [i32; 2], Vec<[f64; 2]>);

fn roads(f: &[DocFeature]) -> Vec<Road> {
    let mut out: Vec<Road> = f
        .iter()
        .map(|f| {
            assert_eq!((f.kind, f.asset.as_str()), (FeatureKind::Road, NET));
            let Geometry::Road(r) = &f.geometry else {
                panic!("not a road: {f:?}");
            };
            (r.nodes, f.param, r.levels, r.points.clone())
        })
        .collect();
    out.sort_by_key(|r| r.0);
    out
}

fn same(a: &[Road], b: &[Road], what: &str) {
    assert_eq!(a.len(), b.len(), "{what}");
    for (x, y) in a.iter().zip(b) {
        assert_eq!((x.0, x.1, x.2), (y.0, y.1, y.2), "{what}");
        assert_eq!(x.3.len(), y.3.len(), "{what}: {:?} vs {:?}", x.3, y.3);
        for (p, q) in x.3.iter().zip(&y.3) {
            assert!(
                (p[0] - q[0]).abs() < 1e-7 && (p[1] - q[1]).abs() < 1e-7,
                "{what}: {p:?} vs {q:?}"
            );
        }
    }
}

#[test]
fn the_same_network_reads_alike_from_dsf_text_binary_dsf_and_wed() {
    let (t, dt) = from_text(&dsf_text());
    let (b, db) = from_binary(&dsf_binary());
    let (w, dw) = from_wed(&wed_xml());
    assert!(dt.is_empty(), "{dt:#?}");
    assert!(db.is_empty(), "{db:#?}");
    assert!(dw.is_empty(), "{dw:#?}");
    let (t, b, w) = (roads(&t), roads(&b), roads(&w));
    assert_eq!(t.len(), 7);
    same(&t, &b, "binary");
    same(&t, &w, "WED");
    // The crossing: four segments meet at junction 10.
    assert_eq!(t.iter().filter(|r| r.0[0] == 10).count(), 4);
    // The curve is flattened, the bridge and the tunnel keep their levels.
    let curve = t.iter().find(|r| r.0 == [12, 15]).unwrap();
    assert!(curve.3.len() > 4, "{:?}", curve.3);
    assert_eq!(t.iter().find(|r| r.0 == [11, 16]).unwrap().2, [0, 1]);
    assert_eq!(t.iter().find(|r| r.0 == [13, 17]).unwrap().2, [0, -1]);
    let west = t.iter().find(|r| r.0 == [10, 14]).unwrap();
    assert_eq!((west.1, west.3.len()), (5, 3));
}

#[test]
fn a_missing_wed_road_node_is_an_error_for_that_edge_alone() {
    let xml = wed_xml().replace("<source id=\"16\"/>", "<source id=\"99\"/>");
    let (f, d) = from_wed(&xml);
    assert_eq!(roads(&f).len(), 6);
    let d: Vec<String> = d.iter().map(|d| d.to_string()).collect();
    assert_eq!(d.len(), 1, "{d:#?}");
    assert!(
        d[0].contains("error: WED_RoadEdge 106 \"road\" not exported: its <sources> must name two WED_RoadNodes"),
        "{}",
        d[0]
    );
}

#[test]
fn zero_length_and_bad_levels_warn_once_per_file() {
    let text = dsf_text()
        + "BEGIN_SEGMENT 0 3 20 8.1 47.1 0\nEND_SEGMENT 21 8.1 47.1 0\n\
           BEGIN_SEGMENT 0 3 22 8.1 47.1 0\nEND_SEGMENT 23 8.1 47.1 0\n\
           BEGIN_SEGMENT 0 3 24 8.1 47.1 0.5\nEND_SEGMENT 25 8.2 47.1 7\n\
           BEGIN_SEGMENT 0 3 26 8.1 47.1 9\nEND_SEGMENT 27 8.2 47.1 0\n";
    let (f, d) = from_text(&text);
    let d: Vec<String> = d.iter().map(|d| d.to_string()).collect();
    assert_eq!(roads(&f).len(), 9);
    assert_eq!(d.len(), 2, "{d:#?}");
    let first = dsf_text().lines().count() + 1;
    assert!(
        d[0].starts_with(&format!(
            "t.txt:{}:1: warning: road end z 0.5 is not a level",
            first + 4
        )),
        "{}",
        d[0]
    );
    assert_eq!(
        d[1],
        format!(
            "t.txt:{first}:1: warning: 2 road segment(s) of zero length (every point at one place) skipped; the first is here"
        )
    );
}

/// A fresh folder for one test's files.
fn scratch(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("agview-roads-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("a scratch folder");
    dir
}

#[test]
fn a_document_with_roads_loads_without_errors_and_only_roads_keeps_them() {
    use crate::input::{Inputs, Only};
    let dir = scratch("load");
    let path = dir.join("roads.txt");
    // The network and an object, so that `--only` has something to leave out.
    let text = dsf_text().replacen(
        "NETWORK_DEF",
        "OBJECT_DEF lib/thing.obj\nOBJECT 0 8.001 47.001 0\nNETWORK_DEF",
        1,
    );
    std::fs::write(&path, text).expect("written");
    let all = super::super::load(&path, &Inputs::default()).expect("loads");
    let f = &all.loaded.scene.features;
    assert_eq!(f.iter().filter(|x| x.kind == FeatureKind::Road).count(), 7);
    let errors: Vec<String> = all
        .loaded
        .messages()
        .iter()
        .filter(|d| d.is_error())
        .map(|d| d.to_string())
        .collect();
    assert!(errors.is_empty(), "{errors:#?}");
    // (The object comes along: until roads are laid out, a load of roads alone has
    // nothing to show.)
    let only = Inputs {
        only: vec![Only::Roads, Only::Art],
        ..Inputs::default()
    };
    let roads = super::super::load(&path, &only).expect("loads");
    let f = &roads.loaded.scene.features;
    assert_eq!(f.len(), 8);
    assert_eq!(f.iter().filter(|x| x.kind == FeatureKind::Road).count(), 7);
    let ground = Inputs {
        only: vec![Only::Ground, Only::Art],
        ..Inputs::default()
    };
    let none = super::super::load(&path, &ground).expect("loads");
    assert!(none
        .loaded
        .scene
        .features
        .iter()
        .all(|x| x.kind != FeatureKind::Road));
    let _ = std::fs::remove_dir_all(&dir);
}
