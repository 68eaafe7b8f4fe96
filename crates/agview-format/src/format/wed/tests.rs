use std::path::{Path, PathBuf};

use agview_core::geom::signed_area2;

use super::*;
use crate::diag::Severity;
use crate::format::{dsf, summary, FileKind, Parsed};

fn sample_dir() -> PathBuf {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../..")).join("sample_scenery")
}

fn read_sample() -> (PathBuf, WedProject, Vec<Diagnostic>) {
    let path = sample_dir().join("earth.wed.xml");
    let bytes = std::fs::read(&path).expect("sample_scenery/earth.wed.xml");
    let mut warnings = Vec::new();
    let project = parse(&path, &bytes, &mut warnings).expect("sample parses");
    (path, project, warnings)
}

/// About 5 cm in degrees of latitude (and less than that in longitude at 48° N).
const EPS_DEG: f64 = 4.5e-7;

fn close(a: [f64; 2], b: [f64; 2]) -> bool {
    (a[0] - b[0]).abs() < EPS_DEG && (a[1] - b[1]).abs() < EPS_DEG
}

/// A ring without its closing point (when the last point repeats the first).
fn open(w: &[[f64; 2]]) -> Vec<[f64; 2]> {
    let mut w = w.to_vec();
    if w.len() > 1 && close(w[0], w[w.len() - 1]) {
        w.pop();
    }
    w
}

/// The same closed ring: equal as cyclic sequences, in either direction, closing points
/// ignored.
fn same_ring(a: &[[f64; 2]], b: &[[f64; 2]]) -> bool {
    let (a, b) = (open(a), open(b));
    if a.len() != b.len() || a.is_empty() {
        return false;
    }
    let n = a.len();
    let mut rev = b.clone();
    rev.reverse();
    [b, rev]
        .iter()
        .any(|b| (0..n).any(|s| (0..n).all(|i| close(a[i], b[(i + s) % n]))))
}

/// Local meters around 47.9 N 8.15 E to (lon, lat), as make_polygons.py converts them.
fn ll(x: f64, y: f64) -> [f64; 2] {
    let m_lon = 111319.49 * 47.9f64.to_radians().cos();
    [8.15 + x / m_lon, 47.9 + y / 111132.95]
}

/// A project with a world group holding `body` (more `<object>`s, whose parent is 4).
fn doc(children: &[u64], body: &str) -> String {
    let kids: String = children
        .iter()
        .map(|c| format!("<child id=\"{c}\"/>"))
        .collect();
    format!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<doc>\n<objects>\n\
         <object class=\"WED_Root\" id=\"1\" parent_id=\"0\"><children><child id=\"4\"/></children><hierarchy name=\"root\"/></object>\n\
         <object class=\"WED_Group\" id=\"4\" parent_id=\"1\"><children>{kids}</children><hierarchy name=\"world\" locked=\"0\" hidden=\"0\"/></object>\n\
         {body}</objects>\n</doc>\n"
    )
}

/// An autogen placement `id` under the world with one ring (id + 1) of nodes (id + 2, …).
fn autogen(
    id: u64,
    resource: &str,
    height: f64,
    spelling: u32,
    nodes: &[([f64; 2], bool)],
) -> String {
    let ring = id + 1;
    let node_ids: Vec<u64> = (0..nodes.len() as u64).map(|i| ring + 1 + i).collect();
    let mut s = format!(
        "<object class=\"WED_AutogenPlacement\" id=\"{id}\" parent_id=\"4\"><children><child id=\"{ring}\"/></children>\
         <hierarchy name=\"block {id}\" locked=\"0\" hidden=\"0\"/>\
         <autogen_placement height=\"{height}\" spelling=\"{spelling}\" resource=\"{resource}\"/></object>\n\
         <object class=\"WED_Ring\" id=\"{ring}\" parent_id=\"{id}\"><children>"
    );
    for n in &node_ids {
        s += &format!("<child id=\"{n}\"/>");
    }
    s += "</children><hierarchy name=\"Outer ring\" locked=\"0\" hidden=\"0\"/></object>\n";
    for (n, (p, spawn)) in node_ids.iter().zip(nodes) {
        s += &format!(
            "<object class=\"WED_AutogenNode\" id=\"{n}\" parent_id=\"{ring}\"><children/>\
             <hierarchy name=\"Point\" locked=\"0\" hidden=\"0\"/>\
             <point latitude=\"{:.9}\" longitude=\"{:.9}\"/><autogen_node spawn_tiles=\"{}\"/></object>\n",
            p[1],
            p[0],
            u8::from(*spawn)
        );
    }
    s
}

fn run(xml: &str) -> (Result<WedProject, Diagnostic>, Vec<Diagnostic>) {
    let mut warnings = Vec::new();
    let r = parse(Path::new("t.wed.xml"), xml.as_bytes(), &mut warnings);
    (r, warnings)
}

fn export_of(xml: &str) -> (Vec<WedFeature>, Vec<Diagnostic>) {
    let (r, mut warnings) = run(xml);
    let p = r.expect("parses");
    let f = export(&p, Path::new("t.wed.xml"), &mut warnings);
    (f, warnings)
}

#[test]
fn parses_the_sample_project() {
    let (_, p, warnings) = read_sample();
    assert!(warnings.is_empty(), "{warnings:?}");
    let roots: Vec<_> = p.roots().collect();
    assert_eq!(roots.len(), 1);
    assert_eq!(roots[0].class, "WED_Root");
    let counts: HashMap<String, usize> = p.class_counts().into_iter().collect();
    assert_eq!(counts["WED_AutogenPlacement"], 4);
    assert_eq!(counts["WED_ObjPlacement"], 5);
    assert_eq!(counts["WED_FacadePlacement"], 1);
    assert_eq!(counts["WED_ForestPlacement"], 1);
    let hidden: Vec<_> = p.objects.iter().filter(|o| o.hidden).collect();
    assert_eq!(hidden.len(), 1);
    assert!(hidden[0].name.contains("hidden kiosk"));
    // Children and parents agree both ways.
    for o in &p.objects {
        for &c in &o.children {
            assert_eq!(p.get(c).expect("child exists").parent_id, o.id);
        }
    }
    let world = p.objects.iter().find(|o| o.name == "world").unwrap();
    assert_eq!(world.data, WedData::Group);
    assert!(world.line > 1 && world.col > 1);
}

#[test]
fn export_matches_town_txt() {
    let (path, p, _) = read_sample();
    let mut warnings = Vec::new();
    let features = export(&p, &path, &mut warnings);
    assert!(warnings.is_empty(), "{warnings:?}");

    let town_path = sample_dir().join("polygons/town.txt");
    let bytes = std::fs::read(&town_path).unwrap();
    let town = dsf::parse(&town_path, &bytes, &mut Vec::new()).unwrap();

    let (points, polygons): (Vec<_>, Vec<_>) = features.iter().partition(|f| f.point.is_some());
    assert_eq!(points.len(), town.objects.len());
    assert_eq!(polygons.len(), town.polygons.len());

    for (f, o) in points.iter().zip(&town.objects) {
        assert_eq!(f.resource, town.object_defs[o.def].path);
        assert_eq!(f.param, 0);
        assert!(f.windings.is_empty());
        let [lon, lat, heading] = f.point.unwrap();
        assert!(
            close([lon, lat], [o.lon, o.lat]),
            "{} at {lon} {lat}",
            f.name
        );
        assert_eq!(heading, o.heading);
    }

    for (f, d) in polygons.iter().zip(&town.polygons) {
        let def = &town.polygon_defs[d.def].path;
        assert_eq!(&f.resource, def);
        assert_eq!(f.param, d.param, "{}", f.name);
        assert_eq!(f.windings.len(), d.windings.len(), "{}", f.name);
        for (w, t) in f.windings.iter().zip(&d.windings) {
            assert!(same_ring(w, t), "{}: {w:?} vs {t:?}", f.name);
        }
        // WED's own winding forms.
        if def.ends_with(".agb") || def.ends_with(".ags") {
            // Every outer node spawns: one closed winding, first point repeated.
            let outer = &f.windings[0];
            assert_eq!(outer.first(), outer.last(), "{}", f.name);
            assert_eq!(outer.len(), open(&d.windings[0]).len() + 1);
        }
        if def.ends_with(".ags") {
            // The lake: clockwise, not closed, not spawning (low byte 1).
            let lake = &f.windings[1];
            assert_ne!(lake.first(), lake.last());
            assert!(signed_area2(lake) < 0.0);
            assert_eq!(f.param & 0xFF, 1);
        }
        if def.ends_with(".fac") || def.ends_with(".for") {
            assert!(
                signed_area2(&f.windings[0]) > 0.0,
                "outer ring counter-clockwise"
            );
            assert_ne!(f.windings[0].first(), f.windings[0].last());
        }
    }
}

#[test]
fn hidden_items_are_left_out() {
    let (path, p, _) = read_sample();
    let features = export(&p, &path, &mut Vec::new());
    let hidden = p.objects.iter().find(|o| o.hidden).unwrap();
    assert!(features.iter().all(|f| f.id != hidden.id));
    assert!(p.is_hidden(hidden.id));

    // Everything under a hidden group is left out too.
    let body = format!(
        "<object class=\"WED_Group\" id=\"5\" parent_id=\"4\"><children><child id=\"6\"/></children>\
         <hierarchy name=\"old\" locked=\"0\" hidden=\"1\"/></object>\n{}",
        autogen(
            6,
            "x.agb",
            8.0,
            0,
            &[(ll(0.0, 0.0), true), (ll(50.0, 0.0), true), (ll(50.0, 40.0), true)]
        )
        .replace("parent_id=\"4\"", "parent_id=\"5\"")
    );
    let (features, warnings) = export_of(&doc(&[5], &body));
    assert!(features.is_empty(), "{features:?}");
    assert!(warnings.is_empty());
}

#[test]
fn partial_spawn_writes_poly_lines_spawning_first() {
    // A 100 x 60 m block, counter-clockwise from the south-west corner; only the south side
    // (SW -> SE) spawns.
    let (sw, se, ne, nw) = (ll(0.0, 0.0), ll(100.0, 0.0), ll(100.0, 60.0), ll(0.0, 60.0));
    let xml = doc(
        &[10],
        &autogen(
            10,
            "autogen/lakeside.ags",
            12.0,
            0,
            &[(sw, true), (se, false), (ne, false), (nw, false)],
        ),
    );
    let (features, warnings) = export_of(&xml);
    assert!(warnings.is_empty(), "{warnings:?}");
    assert_eq!(features.len(), 1);
    let f = &features[0];
    let r = |w: &[[f64; 2]]| {
        w.iter()
            .map(|p| [(p[0] * 1e9).round(), (p[1] * 1e9).round()])
            .collect::<Vec<_>>()
    };
    assert_eq!(f.windings.len(), 2);
    assert_eq!(r(&f.windings[0]), r(&[sw, se]));
    assert_eq!(r(&f.windings[1]), r(&[se, ne, nw, sw]));
    assert_eq!(f.param, (3 << 8) | 1);

    // South and north sides spawn: two spawning runs first, then the two that do not.
    let xml = doc(
        &[10],
        &autogen(
            10,
            "a.ags",
            12.0,
            0,
            &[(sw, true), (se, false), (ne, true), (nw, false)],
        ),
    );
    let (features, _) = export_of(&xml);
    let f = &features[0];
    assert_eq!(
        f.windings.iter().map(|w| r(w)).collect::<Vec<_>>(),
        vec![r(&[sw, se]), r(&[ne, nw]), r(&[se, ne]), r(&[nw, sw])]
    );
    assert_eq!(f.param & 0xFF, 2);
}

#[test]
fn a_ring_starting_without_spawn_leads_with_a_one_point_winding() {
    // What WED writes for an AGB it imported from a DSF (WED_DSFImport makes every AGB node
    // non-spawning): a one-point winding, then the whole ring closed.
    let pts = [ll(0.0, 0.0), ll(100.0, 0.0), ll(100.0, 80.0), ll(0.0, 80.0)];
    let nodes: Vec<_> = pts.iter().map(|&p| (p, false)).collect();
    let (features, _) = export_of(&doc(
        &[10],
        &autogen(10, "agview/autogen/city_block.agb", 12.0, 2, &nodes),
    ));
    let f = &features[0];
    assert_eq!(f.param, 770);
    assert_eq!(f.windings.len(), 2);
    assert_eq!(f.windings[0].len(), 1);
    assert!(close(f.windings[0][0], pts[0]));
    assert_eq!(f.windings[1].len(), 5);
    assert!(same_ring(&f.windings[1], &pts));

    // The same block drawn in WED (nodes spawn, the default): one closed winding.
    let nodes: Vec<_> = pts.iter().map(|&p| (p, true)).collect();
    let (features, _) = export_of(&doc(&[10], &autogen(10, "city_block.agb", 14.0, 0, &nodes)));
    assert_eq!(features[0].windings.len(), 1);
    assert_eq!(features[0].windings[0].len(), 5);
    // intround(14 / 4) = intround(3.5) = 4.
    assert_eq!(features[0].param, 4 << 8);
}

#[test]
fn truncated_file_gets_a_located_error() {
    let full = doc(
        &[10, 20],
        &(autogen(
            10,
            "a.agb",
            8.0,
            0,
            &[
                (ll(0.0, 0.0), true),
                (ll(9.0, 0.0), true),
                (ll(9.0, 9.0), true),
            ],
        ) + &autogen(
            20,
            "b.agb",
            8.0,
            0,
            &[
                (ll(0.0, 0.0), true),
                (ll(9.0, 0.0), true),
                (ll(9.0, 9.0), true),
            ],
        )),
    );
    // Cut inside the second placement's ring.
    let cut = full.find("<object class=\"WED_Ring\" id=\"21\"").unwrap() + 20;
    let (r, warnings) = run(&full[..cut]);
    let p = r.expect("what precedes the cut is read");
    let err = warnings
        .iter()
        .find(|d| d.is_error())
        .expect("located error");
    assert!(err.line().is_some());
    assert!(err.to_string().starts_with("t.wed.xml:"), "{err}");
    assert!(p.get(10).is_some() && p.get(20).is_some() && p.get(21).is_none());
    // The cut-off placement names a ring that is not there: skipped, the other kept.
    let mut w = Vec::new();
    let features = export(&p, Path::new("t.wed.xml"), &mut w);
    assert_eq!(features.iter().map(|f| f.id).collect::<Vec<_>>(), vec![10]);

    // Cut before any object ends: nothing to read, the error is returned.
    let cut = full.find("<object class=\"WED_Root\"").unwrap() + 10;
    let (r, _) = run(&full[..cut]);
    let e = r.expect_err("nothing readable");
    assert_eq!(e.severity, Severity::Error);
    let s = e.to_string();
    assert!(
        s.starts_with("t.wed.xml:") && s.contains(": error: "),
        "{s}"
    );
}

#[test]
fn a_ring_naming_a_missing_node_skips_its_placement() {
    let good = autogen(
        10,
        "a.agb",
        8.0,
        0,
        &[
            (ll(0.0, 0.0), true),
            (ll(9.0, 0.0), true),
            (ll(9.0, 9.0), true),
        ],
    );
    let bad = autogen(
        20,
        "b.agb",
        8.0,
        0,
        &[
            (ll(0.0, 0.0), true),
            (ll(9.0, 0.0), true),
            (ll(9.0, 9.0), true),
        ],
    )
    .replace("<child id=\"23\"/>", "<child id=\"99\"/>");
    let xml = doc(&[10, 20], &(good + &bad));
    let ring_line = xml
        .lines()
        .position(|l| l.contains("class=\"WED_Ring\" id=\"21\""))
        .unwrap() as u32
        + 1;
    let (r, mut warnings) = run(&xml);
    let p = r.unwrap();
    let e = warnings
        .iter()
        .find(|d| d.is_error())
        .expect("error in warnings");
    assert_eq!(e.line(), Some(ring_line));
    assert!(e.message.contains("99"), "{}", e.message);
    let features = export(&p, Path::new("t.wed.xml"), &mut warnings);
    assert_eq!(features.iter().map(|f| f.id).collect::<Vec<_>>(), vec![10]);
    assert!(warnings
        .iter()
        .any(|d| d.message.contains("not exported") && d.line() == Some(ring_line)));
}

#[test]
fn an_unknown_class_is_a_note() {
    let body = "<object class=\"WED_Spaceship\" id=\"7\" parent_id=\"4\"><children/>\
                <hierarchy name=\"ufo\" locked=\"0\" hidden=\"0\"/></object>\n";
    let xml = doc(&[7], body);
    let line = xml
        .lines()
        .position(|l| l.contains("WED_Spaceship"))
        .unwrap() as u32
        + 1;
    let (r, warnings) = run(&xml);
    let p = r.unwrap();
    assert_eq!(warnings.len(), 1);
    let w = &warnings[0];
    assert_eq!(w.severity, Severity::Warning);
    assert_eq!(w.line(), Some(line));
    assert!(w.message.contains("WED_Spaceship"));
    assert_eq!(p.get(7).unwrap().data, WedData::Unknown);
    assert!(export(&p, Path::new("t"), &mut Vec::new()).is_empty());
}

#[test]
fn facade_forest_and_object_parameters() {
    let ring = |id: u64, parent: u64, cls: &str, node_cls: &str, pts: &[[f64; 2]]| {
        let mut s =
            format!("<object class=\"{cls}\" id=\"{id}\" parent_id=\"{parent}\"><children>");
        for i in 0..pts.len() as u64 {
            s += &format!("<child id=\"{}\"/>", id + 1 + i);
        }
        s += "</children><hierarchy name=\"r\" locked=\"0\" hidden=\"0\"/></object>\n";
        for (i, p) in pts.iter().enumerate() {
            s += &format!(
                "<object class=\"{node_cls}\" id=\"{}\" parent_id=\"{id}\"><children/>\
                 <point latitude=\"{:.9}\" longitude=\"{:.9}\"/></object>\n",
                id + 1 + i as u64,
                p[1],
                p[0]
            );
        }
        s
    };
    // Clockwise as drawn: WED writes the outer ring counter-clockwise.
    let cw = [ll(0.0, 0.0), ll(0.0, 15.0), ll(25.0, 15.0), ll(25.0, 0.0)];
    let body = format!(
        "<object class=\"WED_FacadePlacement\" id=\"10\" parent_id=\"4\"><children><child id=\"11\"/></children>\
         <hierarchy name=\"fac\" locked=\"0\" hidden=\"0\"/>\
         <facade_placement height=\"12.7\" pick_walls=\"0\" resource=\"brick.fac\" show_level=\"1 Default\"/></object>\n{}\
         <object class=\"WED_ForestPlacement\" id=\"20\" parent_id=\"4\"><children><child id=\"21\"/></children>\
         <hierarchy name=\"for\" locked=\"0\" hidden=\"0\"/>\
         <forest_placement density=\"0.5\" resource=\"trees.for\"/></object>\n{}\
         <object class=\"WED_ObjPlacement\" id=\"30\" parent_id=\"4\"><children/>\
         <hierarchy name=\"obj\" locked=\"0\" hidden=\"0\"/>\
         <point latitude=\"47.9\" longitude=\"8.15\" heading=\"-90.5\"/>\
         <obj_placement resource=\"k.obj\" show_level=\"1 Default\"/></object>\n",
        ring(11, 10, "WED_FacadeRing", "WED_FacadeNode", &cw),
        ring(21, 20, "WED_ForestRing", "WED_SimpleBoundaryNode", &cw),
    );
    let (f, warnings) = export_of(&doc(&[10, 20, 30], &body));
    assert!(warnings.is_empty(), "{warnings:?}");
    assert_eq!(f.len(), 3);
    assert_eq!(f[0].param, 12, "facade height truncated");
    assert!(signed_area2(&f[0].windings[0]) > 0.0);
    assert!(same_ring(&f[0].windings[0], &cw));
    assert_eq!(f[0].windings[0].len(), 4);
    assert_eq!(f[1].param, 127, "trunc(0.5 * 255)");
    assert_eq!(f[2].point, Some([8.15, 47.9, 269.5]));
}

#[test]
fn detected_by_name_and_summarised() {
    let kind = FileKind::detect(Path::new("x/Earth.WED.XML"), b"<?xml");
    assert_eq!(kind, Some(FileKind::Wed));
    assert_eq!(FileKind::detect(Path::new("x/other.xml"), b"<?xml"), None);
    let (path, p, _) = read_sample();
    let mut w = Vec::new();
    let parsed = crate::format::parse_file(&path, &mut w).unwrap();
    assert!(matches!(parsed, Parsed::Wed(_)));
    let s = summary(&Parsed::Wed(p));
    assert!(
        s.contains("11 placement(s)") && s.contains("1 hidden"),
        "{s}"
    );
    assert!(s.contains("4 WED_AutogenPlacement"), "{s}");
}

#[test]
fn garbage_is_an_error_not_a_panic() {
    for bytes in [
        &b""[..],
        b"\xff\xfe",
        b"<doc><objects><object",
        b"<html/>",
        b"<doc/>",
    ] {
        let mut w = Vec::new();
        let _ = parse(Path::new("g"), bytes, &mut w);
    }
    let (r, _) = run("<html/>");
    assert!(r.is_err());
}

#[test]
fn draped_polygons_and_orthophotos_export_as_wed_writes_them() {
    // A clockwise ring of texture nodes, as drawn: WED writes it counter-clockwise, each
    // point keeping its own texture coordinates.
    let cw = [
        (ll(0.0, 0.0), [0.0, 0.0]),
        (ll(0.0, 40.0), [0.0, 1.0]),
        (ll(40.0, 40.0), [1.0, 1.0]),
        (ll(40.0, 0.0), [1.0, 0.0]),
    ];
    let mut body = String::from(
        "<object class=\"WED_PolygonPlacement\" id=\"10\" parent_id=\"4\"><children><child id=\"11\"/></children>\
         <hierarchy name=\"apron\" locked=\"0\" hidden=\"0\"/>\
         <polygon_placement heading=\"30.5\" resource=\"apron.pol\"/></object>\n\
         <object class=\"WED_Ring\" id=\"11\" parent_id=\"10\"><children><child id=\"12\"/><child id=\"13\"/><child id=\"14\"/></children>\
         <hierarchy name=\"r\" locked=\"0\" hidden=\"0\"/></object>\n\
         <object class=\"WED_DrapedOrthophoto\" id=\"20\" parent_id=\"4\"><children><child id=\"21\"/></children>\
         <hierarchy name=\"photo\" locked=\"0\" hidden=\"0\"/>\
         <draped_orthophoto resource=\"photos/field.jpg\" heading=\"0\"/></object>\n\
         <object class=\"WED_Ring\" id=\"21\" parent_id=\"20\"><children><child id=\"22\"/><child id=\"23\"/><child id=\"24\"/><child id=\"25\"/></children>\
         <hierarchy name=\"r\" locked=\"0\" hidden=\"0\"/></object>\n",
    );
    for (i, (p, _)) in cw.iter().take(3).enumerate() {
        body += &format!(
            "<object class=\"WED_SimpleBoundaryNode\" id=\"{}\" parent_id=\"11\"><children/>\
             <point latitude=\"{:.9}\" longitude=\"{:.9}\"/></object>\n",
            12 + i,
            p[1],
            p[0]
        );
    }
    for (i, (p, st)) in cw.iter().enumerate() {
        body += &format!(
            "<object class=\"WED_TextureNode\" id=\"{}\" parent_id=\"21\"><children/>\
             <point latitude=\"{:.9}\" longitude=\"{:.9}\"/><texture_node s=\"{}\" t=\"{}\"/></object>\n",
            22 + i,
            p[1],
            p[0],
            st[0],
            st[1]
        );
    }
    let (f, warnings) = export_of(&doc(&[10, 20], &body));
    assert!(warnings.is_empty(), "{warnings:?}");
    assert_eq!(f.len(), 2);
    // 30.5 degrees: 30 + 360 * 64 (XP12's 1/128 degree steps).
    assert_eq!(f[0].param, 30 + 360 * 64);
    assert!(f[0].st.is_none());
    assert_eq!(f[1].param, 65535);
    assert_eq!(f[1].resource, "photos/field.jpg");
    assert!(
        signed_area2(&f[1].windings[0]) > 0.0,
        "outer ring counter-clockwise"
    );
    let st = &f[1].st.as_ref().expect("texture coordinates")[0];
    for (p, st) in f[1].windings[0].iter().zip(st) {
        let (_, want) = cw.iter().find(|(q, _)| close(*q, *p)).expect("same point");
        assert_eq!(st, &[want[0] as f32, want[1] as f32]);
    }
}

/// A chain placement `id` of `class` under the world, its properties element `props`,
/// its nodes (id + 1, …) at `pts`.
fn chain_placement(id: u64, class: &str, props: &str, pts: &[[f64; 2]]) -> String {
    let mut s = format!("<object class=\"{class}\" id=\"{id}\" parent_id=\"4\"><children>");
    for i in 0..pts.len() as u64 {
        s += &format!("<child id=\"{}\"/>", id + 1 + i);
    }
    s += &format!(
        "</children><hierarchy name=\"chain\" locked=\"0\" hidden=\"0\"/>{props}</object>\n"
    );
    for (i, p) in pts.iter().enumerate() {
        s += &format!(
            "<object class=\"WED_SimpleBoundaryNode\" id=\"{}\" parent_id=\"{id}\"><children/>\
             <point latitude=\"{:.9}\" longitude=\"{:.9}\"/></object>\n",
            id + 1 + i as u64,
            p[1],
            p[0]
        );
    }
    s
}

#[test]
fn object_strings_export_their_chain_and_encoded_spacing() {
    let pts = [ll(0.0, 0.0), ll(30.0, 0.0), ll(30.0, 20.0)];
    let string = |id: u64, closed: u8, spacing: f64| {
        chain_placement(
            id,
            "WED_StringPlacement",
            &format!("<string_placement closed=\"{closed}\" spacing=\"{spacing}\" resource=\"fence.str\"/>"),
            &pts,
        )
    };
    let body = string(10, 0, 4.0) + &string(20, 1, 2.5);
    let (f, warnings) = export_of(&doc(&[10, 20], &body));
    assert!(warnings.is_empty(), "{warnings:?}");
    assert_eq!(f.len(), 2);
    assert_eq!(f[0].param, 4);
    assert_eq!(f[0].windings[0].len(), 3);
    assert!(f[0].windings[0]
        .iter()
        .zip(&pts)
        .all(|(a, b)| close(*a, *b)));
    // A fractional spacing as WED encodes it for X-Plane 12.1.2; a closed string repeats
    // its first point.
    assert_eq!(f[1].param, 10_000 + 320);
    assert_eq!(f[1].windings[0].len(), 4);
    assert_eq!(f[1].windings[0][3], f[1].windings[0][0]);
}

#[test]
fn bezier_nodes_are_written_as_dsf_triples() {
    // A string of three bezier nodes: the first plain, the middle smooth (mirrored
    // handles), the last with only a lo handle (a split node: written as two points).
    let body =
        "<object class=\"WED_StringPlacement\" id=\"10\" parent_id=\"4\"><children>\
         <child id=\"11\"/><child id=\"12\"/><child id=\"13\"/></children>\
         <hierarchy name=\"s\" locked=\"0\" hidden=\"0\"/>\
         <string_placement closed=\"0\" spacing=\"5\" resource=\"f.str\"/></object>\n\
         <object class=\"WED_SimpleBezierBoundaryNode\" id=\"11\" parent_id=\"10\"><children/>\
         <point latitude=\"47.9\" longitude=\"8.15\" ctrl_latitude_lo=\"0\" ctrl_longitude_lo=\"0\" ctrl_latitude_hi=\"0\" ctrl_longitude_hi=\"0\"/></object>\n\
         <object class=\"WED_SimpleBezierBoundaryNode\" id=\"12\" parent_id=\"10\"><children/>\
         <point latitude=\"47.9\" longitude=\"8.151\" ctrl_latitude_lo=\"-0.0001\" ctrl_longitude_lo=\"0\" ctrl_latitude_hi=\"0.0001\" ctrl_longitude_hi=\"0\"/></object>\n\
         <object class=\"WED_SimpleBezierBoundaryNode\" id=\"13\" parent_id=\"10\"><children/>\
         <point latitude=\"47.9\" longitude=\"8.152\" ctrl_latitude_lo=\"0.0002\" ctrl_longitude_lo=\"0\" ctrl_latitude_hi=\"0\" ctrl_longitude_hi=\"0\"/></object>\n";
    let (f, warnings) = export_of(&doc(&[10], body));
    assert!(warnings.is_empty(), "{warnings:?}");
    let w = &f[0].windings[0];
    let c = &f[0].ctrl.as_ref().expect("curved")[0];
    assert_eq!(w.len(), 4, "{w:?}");
    assert_eq!(c[0], w[0], "a plain node's control is itself");
    assert!(close(c[1], [8.151, 47.9001]), "the smooth node's hi handle");
    // The last: (P, 2P - lo), then (P, P).
    assert_eq!(w[2], w[3]);
    assert!(close(c[2], [8.152, 47.8998]), "{:?}", c[2]);
    assert_eq!(c[3], w[3]);
}

#[test]
fn painted_lines_export_closed_or_open() {
    let pts = [ll(0.0, 0.0), ll(30.0, 0.0), ll(30.0, 20.0)];
    let line = |id: u64, closed: u8| {
        chain_placement(
            id,
            "WED_LinePlacement",
            &format!("<line_placement closed=\"{closed}\" resource=\"lib/edge.lin\"/>"),
            &pts,
        )
    };
    let body = line(10, 0) + &line(20, 1);
    let (f, warnings) = export_of(&doc(&[10, 20], &body));
    assert!(warnings.is_empty(), "{warnings:?}");
    assert_eq!((f[0].param, f[1].param), (0, 1));
    assert_eq!(f[0].windings[0].len(), 3);
    assert_eq!(
        f[1].windings[0].len(),
        3,
        "a closed line does not repeat its first point"
    );
}

#[test]
fn a_clockwise_ags_ring_is_exported_counter_clockwise_each_side_keeping_its_flag() {
    // Clockwise: a(0,0) → b(0,40) → c(60,40) → d(60,0); only the side b → c spawns.
    // As the project writes them (9 decimals).
    let r9 = |p: [f64; 2]| p.map(|v| format!("{v:.9}").parse::<f64>().unwrap_or(v));
    let (a, b, c, d) = (
        r9(ll(0.0, 0.0)),
        r9(ll(0.0, 40.0)),
        r9(ll(60.0, 40.0)),
        r9(ll(60.0, 0.0)),
    );
    let nodes = [(a, false), (b, true), (c, false), (d, false)];
    let (features, _) = export_of(&doc(&[10], &autogen(10, "fence.ags", 8.0, 0, &nodes)));
    let f = &features[0];
    // Turned: a d c b; the spawning side is now c → b, so WED's walk gives the one-point
    // marker, the run c b, then the non-spawning runs a d c and b a: the same rule the
    // viewer's save writes by (`autogen_windings`).
    let (want, n) = autogen_windings(&[vec![a, b, c, d]], &[vec![false, true, false, false]]);
    assert_eq!(n, 2);
    assert_eq!(f.windings, want);
    assert_eq!(f.windings[1], vec![c, b]);
    assert_eq!(f.param & 0xFF, 2, "the marker and the one spawning run");
    let outer: Vec<[f64; 2]> = f.windings[2..]
        .iter()
        .flat_map(|w| w[..w.len() - 1].to_vec())
        .collect();
    assert!(signed_area2(&outer) > 0.0, "counter-clockwise: {outer:?}");
}
