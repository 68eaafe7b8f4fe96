//! Saving an edited shape (issue 37, "Save"): every file written is read back with the
//! project's own readers (`format::geojson`, `format::dsf`), and what was not edited is
//! compared with what was there before.

use std::path::{Path, PathBuf};

use agview_format::format::{dsf, geojson};
use agview_load::edit::{self, EditedShape, Origin, SaveError, Shape};
use agview_load::input::{Inputs, PolygonFile};

/// A fresh folder for one test, removed when the test ends.
struct Tmp(PathBuf);

impl Tmp {
    fn new(name: &str) -> Tmp {
        let d =
            std::env::temp_dir().join(format!("agview-edit-save-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        Tmp(d)
    }
}

impl Drop for Tmp {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn sample(rel: &str) -> Vec<u8> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../sample_scenery");
    std::fs::read(root.join(rel)).unwrap()
}

fn polygon(rings: Vec<Vec<[f64; 2]>>) -> EditedShape {
    EditedShape {
        geometry: Shape::Polygon(rings),
        spawn: None,
        param: None,
        height: None,
    }
}

fn close(a: [f64; 2], b: [f64; 2]) -> bool {
    (a[0] - b[0]).abs() <= 1e-9 && (a[1] - b[1]).abs() <= 1e-9
}

fn read_geojson(path: &Path) -> geojson::GeoJson {
    geojson::parse(path, &std::fs::read(path).unwrap(), &mut Vec::new()).unwrap()
}

fn read_dsf(path: &Path) -> dsf::DsfText {
    dsf::parse(path, &std::fs::read(path).unwrap(), &mut Vec::new()).unwrap()
}

/// A polygon as the reader gives it, without where it sits in the file.
fn meaning(p: &geojson::GeoPolygon) -> impl PartialEq + std::fmt::Debug {
    (
        p.rings.clone(),
        p.param,
        p.height,
        p.heading,
        p.name.clone(),
        p.spawn.clone(),
    )
}

fn point_meaning(p: &geojson::GeoPoint) -> impl PartialEq + std::fmt::Debug {
    (p.lon, p.lat, p.heading, p.param, p.height, p.name.clone())
}

const COLLECTION: &str = r#"{
  "type": "FeatureCollection",
  "name": "a collection with a foreign member",
  "features": [
    {"type": "Feature", "id": "first", "properties": {"param": 770, "height": 12, "colour": "red"},
     "geometry": {"type": "Polygon", "coordinates": [[[8.15, 47.9], [8.151, 47.9], [8.151, 47.901], [8.15, 47.901], [8.15, 47.9]]]}},
    {"type": "Feature", "properties": {"name": "a kiosk", "heading": 30},
     "geometry": {"type": "Point", "coordinates": [8.1499, 47.8996]}},
    {"type": "Feature", "properties": {"name": "two blocks", "param": 512},
     "geometry": {"type": "MultiPolygon", "coordinates": [
       [[[8.16, 47.9], [8.161, 47.9], [8.161, 47.901], [8.16, 47.9]]],
       [[[8.17, 47.9], [8.171, 47.9], [8.171, 47.901], [8.17, 47.9]]]]}},
    {
      "type": "Feature",
      "properties": {
        "name": "the string",
        "param": 513,
        "spawn": [[true, true, true, false]]
      },
      "geometry": {"type": "Polygon", "coordinates": [[[8.18, 47.9], [8.181, 47.9], [8.181, 47.901], [8.18, 47.901], [8.18, 47.9]]]}
    },
    {"type": "Feature", "properties": null, "geometry": {"type": "Point", "coordinates": [8.19, 47.91, 400]}}
  ]
}
"#;

#[test]
fn geojson_round_trip_changes_only_the_edited_feature() {
    let tmp = Tmp::new("geojson");
    let f = tmp.0.join("town.geojson");
    std::fs::write(&f, COLLECTION).unwrap();
    let before = read_geojson(&f);

    // Feature 3, the string: a vertex moved, one inserted, an edge toggled, new values.
    let ring = vec![
        [8.180_000_000_1, 47.9],
        [8.181_234_567_891_2, 47.899_9],
        [8.181, 47.901],
        [8.180_5, 47.901_2],
        [8.18, 47.901],
    ];
    let mut shape = polygon(vec![ring.clone()]);
    shape.spawn = Some(vec![vec![true, false, true, true, false]]);
    shape.param = Some(3 << 8 | 1);
    shape.height = Some(12.3);
    let origin = Origin::GeoJson {
        path: f.clone(),
        index: 3,
    };
    assert_eq!(edit::save(&origin, &shape, "lakeside.ags").unwrap(), f);

    let after = read_geojson(&f);
    assert_eq!(after.polygons.len(), before.polygons.len());
    assert_eq!(after.points.len(), before.points.len());
    for (k, (a, b)) in after.polygons.iter().zip(&before.polygons).enumerate() {
        if k == 3 {
            continue;
        }
        assert_eq!(meaning(a), meaning(b), "polygon {k}");
    }
    for (a, b) in after.points.iter().zip(&before.points) {
        assert_eq!(point_meaning(a), point_meaning(b));
    }
    let edited = &after.polygons[3];
    assert_eq!(edited.rings[0].len(), ring.len());
    for (a, b) in edited.rings[0].iter().zip(&ring) {
        assert!(close(*a, *b), "{a:?} {b:?}");
    }
    assert_eq!(edited.spawn, shape.spawn);
    assert_eq!(edited.param, Some(769));
    assert_eq!(edited.height, Some(12.3));
    assert_eq!(edited.name.as_deref(), Some("the string"));

    // Byte for byte: the text before the edited feature's properties and after its
    // geometry is the text that was there.
    let text = std::fs::read_to_string(&f).unwrap();
    let head = &COLLECTION[..COLLECTION.find("        \"name\": \"the string\"").unwrap()];
    assert!(text.starts_with(head), "{text}");
    let tail = &COLLECTION[COLLECTION
        .find("\n    },\n    {\"type\": \"Feature\", \"properties\": null")
        .unwrap()..];
    assert!(text.ends_with(tail), "{text}");
    assert!(text.contains("\"colour\": \"red\""));
}

#[test]
fn the_sample_lakeside_keeps_its_hole_and_note() {
    let tmp = Tmp::new("lakeside");
    let f = tmp.0.join("lakeside.geojson");
    std::fs::write(&f, sample("polygons/lakeside.geojson")).unwrap();
    let before = read_geojson(&f);
    let mut rings = before.polygons[0].rings.clone();
    rings[0][0][0] += 0.000_01;
    rings[1].remove(0);
    let shape = polygon(rings.clone());
    edit::save(
        &Origin::GeoJson {
            path: f.clone(),
            index: 0,
        },
        &shape,
        "lakeside.ags",
    )
    .unwrap();
    let after = read_geojson(&f);
    assert_eq!(
        after.polygons[0].rings, rings,
        "shortest forms read back exactly"
    );
    assert_eq!(after.polygons[0].param, before.polygons[0].param);
    let text = std::fs::read_to_string(&f).unwrap();
    assert!(text.contains("\"note\": \"outer ring counter-clockwise"));
}

/// `town.txt` with Windows line ends and a comment holding a byte that is not UTF-8.
fn town_crlf() -> Vec<u8> {
    let src = String::from_utf8(sample("polygons/town.txt")).unwrap();
    let mut out = Vec::new();
    for (i, line) in src.lines().enumerate() {
        out.extend_from_slice(line.as_bytes());
        if i == 4 {
            out.extend_from_slice(b" caf\xe9");
        }
        out.extend_from_slice(b"\r\n");
    }
    out
}

/// The lines of a file with their line ends, as byte strings.
fn lines_of(b: &[u8]) -> Vec<Vec<u8>> {
    let mut out = Vec::new();
    let mut cur = Vec::new();
    for &c in b {
        cur.push(c);
        if c == b'\n' {
            out.push(std::mem::take(&mut cur));
        }
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    out
}

#[test]
fn dsf_text_round_trip_changes_only_that_polygons_lines() {
    let tmp = Tmp::new("dsf");
    let f = tmp.0.join("town.txt");
    let src = town_crlf();
    std::fs::write(&f, &src).unwrap();
    let before = read_dsf(&f);
    let target = before.polygons[0].clone();
    assert_eq!(target.param, 770);

    let ring = vec![
        [8.15, 47.9],
        [8.151_294_26, 47.900_232_89],
        [8.151_5, 47.900_5],
        [8.151_032_35, 47.900_931_02],
        [8.149_714_29, 47.900_688_25],
    ];
    let mut shape = polygon(vec![ring.clone()]);
    shape.height = Some(20.0);
    let line = target.line as usize;
    edit::save(
        &Origin::DsfText {
            path: f.clone(),
            line,
        },
        &shape,
        "city_block.agb",
    )
    .unwrap();

    let out = std::fs::read(&f).unwrap();
    let (old, new) = (lines_of(&src), lines_of(&out));
    // Lines before BEGIN_POLYGON, and from END_POLYGON on, are the same bytes.
    assert_eq!(old[..line - 1], new[..line - 1]);
    // 0-based: BEGIN_POLYGON is line - 1, then BEGIN_WINDING, the points, END_WINDING.
    let old_end = line + 6; // 4 points
    let new_end = line + 7; // 5 points
    assert_eq!(old[old_end..], new[new_end..]);
    assert_eq!(new[line - 1], b"BEGIN_POLYGON 0 1282 2\r\n".to_vec());
    assert_eq!(new[line], b"BEGIN_WINDING\r\n".to_vec());
    assert_eq!(
        new[line + 1],
        b"POLYGON_POINT 8.150000000 47.900000000\r\n".to_vec()
    );
    assert!(
        out.windows(5).any(|w| w == b"caf\xe9\r"),
        "the odd byte is kept"
    );

    let after = read_dsf(&f);
    assert_eq!(after.objects, before.objects);
    assert_eq!(after.polygons.len(), before.polygons.len());
    let edited = &after.polygons[0];
    assert_eq!(edited.param, (5 << 8) | 2, "20 m, spelling set 2 kept");
    assert_eq!(edited.windings.len(), 1);
    for (a, b) in edited.windings[0].iter().zip(&ring) {
        assert!(close(*a, *b));
    }
    for (a, b) in after.polygons.iter().zip(&before.polygons).skip(1) {
        assert_eq!((&a.windings, a.param, a.def), (&b.windings, b.param, b.def));
        assert_eq!(a.line, b.line + 1, "one more point above it");
    }
}

/// Rebuilds closed rings and their edges' flags from windings, as WED's importer joins
/// them: a winding whose first point is the chain's last is appended.
fn join(windings: &[Vec<[f64; 2]>], spawning: usize) -> Vec<(Vec<[f64; 2]>, Vec<bool>)> {
    let mut used: Vec<bool> = windings.iter().map(|w| w.len() < 2).collect();
    let mut out = Vec::new();
    for s in 0..windings.len() {
        if used[s] {
            continue;
        }
        used[s] = true;
        let mut pts = windings[s].clone();
        let mut flags = vec![s < spawning; pts.len() - 1];
        while pts.len() < 3 || !close(pts[0], *pts.last().unwrap()) {
            let Some(j) = (0..windings.len())
                .find(|&j| !used[j] && close(windings[j][0], *pts.last().unwrap()))
            else {
                break;
            };
            used[j] = true;
            pts.pop();
            pts.extend_from_slice(&windings[j]);
            flags.extend(std::iter::repeat_n(j < spawning, windings[j].len() - 1));
        }
        if close(pts[0], *pts.last().unwrap()) {
            pts.pop();
        } else {
            flags.push(false);
        }
        out.push((pts, flags));
    }
    out
}

#[test]
fn an_ags_is_written_with_wed_s_windings() {
    let tmp = Tmp::new("ags");
    let f = tmp.0.join("town.txt");
    std::fs::write(&f, sample("polygons/town.txt")).unwrap();
    let before = read_dsf(&f);
    let ags = before
        .polygons
        .iter()
        .find(|p| before.polygon_def_path(p) == Some("autogen/lakeside.ags"))
        .unwrap()
        .clone();

    // A clockwise outer square (WED turns it) with one edge that does not spawn, and a hole.
    let outer = vec![
        [8.155, 47.895],
        [8.155, 47.896],
        [8.156, 47.896],
        [8.156, 47.895],
    ];
    let hole = vec![[8.1553, 47.8953], [8.1557, 47.8953], [8.1557, 47.8957]];
    let mut shape = polygon(vec![outer.clone(), hole.clone()]);
    shape.spawn = Some(vec![vec![true, false, true, true], vec![true, true, true]]);
    shape.height = Some(8.0);
    edit::save(
        &Origin::DsfText {
            path: f.clone(),
            line: ags.line as usize,
        },
        &shape,
        "lakeside.ags",
    )
    .unwrap();

    let after = read_dsf(&f);
    let edited = after.polygons.iter().find(|p| p.line == ags.line).unwrap();
    let (want, n) = edit::wed_ags_windings(
        &[outer.clone(), hole.clone()],
        shape.spawn.as_ref().unwrap(),
    );
    assert_eq!(edited.param & 0xFF, n as u32);
    assert_eq!(edited.param >> 8, 2, "8 m");
    assert_eq!(edited.windings.len(), want.len());
    for (a, b) in edited.windings.iter().zip(&want) {
        assert_eq!(a.len(), b.len());
        assert!(a.iter().zip(b).all(|(p, q)| close(*p, *q)));
    }
    // Read back the way an importer joins windings: the same rings, counter-clockwise, with
    // each edge's flag kept. Turned: (8.155 47.895) (8.156 47.895) (8.156 47.896)
    // (8.155 47.896); the edge that did not spawn, (8.155 47.896)–(8.156 47.896), is now
    // (8.156 47.896) → (8.155 47.896).
    let joined = join(&edited.windings, n);
    assert_eq!(joined.len(), 2);
    let (pts, flags) = &joined[0];
    let ccw = [outer[0], outer[3], outer[2], outer[1]];
    assert_eq!(pts.len(), 4);
    assert!(pts.iter().zip(&ccw).all(|(p, q)| close(*p, *q)), "{pts:?}");
    assert_eq!(flags, &vec![true, true, false, true]);
    // The hole stays whole (written clockwise: it was counter-clockwise).
    assert_eq!(joined[1].0.len(), 3);
    assert!(
        joined[1].1.iter().all(|f| *f),
        "its flags are kept: {joined:?}"
    );
}

#[test]
fn an_object_line_changes_its_place_and_heading_only() {
    let tmp = Tmp::new("object");
    let f = tmp.0.join("town.txt");
    let src = town_crlf();
    std::fs::write(&f, &src).unwrap();
    let before = read_dsf(&f);
    let obj = before.objects[1].clone();
    let shape = EditedShape {
        geometry: Shape::Point {
            lon: 8.154_5,
            lat: 47.901_1,
            heading: -90.0,
        },
        spawn: None,
        param: None,
        height: None,
    };
    edit::save(
        &Origin::DsfText {
            path: f.clone(),
            line: obj.line as usize,
        },
        &shape,
        "plaza.agp",
    )
    .unwrap();
    let out = std::fs::read(&f).unwrap();
    let (old, new) = (lines_of(&src), lines_of(&out));
    assert_eq!(old.len(), new.len());
    for (k, (a, b)) in old.iter().zip(&new).enumerate() {
        if k + 1 == obj.line as usize {
            assert_eq!(
                b,
                &b"OBJECT 0 8.154500000 47.901100000 270.000\r\n".to_vec()
            );
        } else {
            assert_eq!(a, b, "line {}", k + 1);
        }
    }
    let after = read_dsf(&f);
    assert_eq!(after.objects[1].heading, 270.0);
    assert_eq!(after.polygons, before.polygons);
}

#[test]
fn a_save_interrupted_before_its_rename_leaves_the_file_intact() {
    let tmp = Tmp::new("interrupted");
    let g = tmp.0.join("town.geojson");
    let d = tmp.0.join("town.txt");
    std::fs::write(&g, COLLECTION).unwrap();
    std::fs::write(&d, town_crlf()).unwrap();
    let line = read_dsf(&d).polygons[0].line as usize;
    let shape = polygon(vec![vec![[8.15, 47.9], [8.152, 47.9], [8.152, 47.902]]]);
    let crash = &mut |tmp: &Path| -> std::io::Result<()> {
        assert!(tmp.exists(), "the new content is in its temporary file");
        Err(std::io::Error::other("simulated power cut"))
    };
    for origin in [
        Origin::GeoJson {
            path: g.clone(),
            index: 0,
        },
        Origin::DsfText {
            path: d.clone(),
            line,
        },
    ] {
        let e = edit::save_with_hook(&origin, &shape, "city_block.agb", crash).unwrap_err();
        assert!(e.0.contains("simulated power cut"), "{e}");
        assert!(e.0.contains("The file is as it was"), "{e}");
    }
    assert_eq!(std::fs::read_to_string(&g).unwrap(), COLLECTION);
    assert_eq!(std::fs::read(&d).unwrap(), town_crlf());
    assert_eq!(
        std::fs::read_dir(&tmp.0).unwrap().count(),
        2,
        "no temporary file is left behind"
    );
}

#[test]
fn a_save_that_cannot_write_is_an_error_and_changes_nothing() {
    let tmp = Tmp::new("failing");
    let g = tmp.0.join("town.geojson");
    std::fs::write(&g, COLLECTION).unwrap();
    // The temporary file's place is taken by a folder (permissions do not stop root).
    std::fs::create_dir(edit::temp_path(&g)).unwrap();
    let shape = polygon(vec![vec![[8.15, 47.9], [8.152, 47.9], [8.152, 47.902]]]);
    let e = edit::save(
        &Origin::GeoJson {
            path: g.clone(),
            index: 0,
        },
        &shape,
        "city_block.agb",
    )
    .unwrap_err();
    assert!(
        e.0.starts_with(&format!("{}: could not save:", g.display())),
        "{e}"
    );
    assert_eq!(std::fs::read_to_string(&g).unwrap(), COLLECTION);

    // Save as GeoJSON into a folder that is a file.
    let file = tmp.0.join("plain.txt");
    std::fs::write(&file, "x").unwrap();
    let e = edit::save_as_geojson(&file.join("new.geojson"), &shape, "a.agb", None).unwrap_err();
    assert!(e.0.contains("could not save"), "{e}");
    assert_eq!(std::fs::read(&file).unwrap(), b"x");
}

#[test]
fn a_ring_below_three_vertices_is_not_saved() {
    let tmp = Tmp::new("small");
    let g = tmp.0.join("town.geojson");
    std::fs::write(&g, COLLECTION).unwrap();
    let origin = Origin::GeoJson {
        path: g.clone(),
        index: 0,
    };
    let two = polygon(vec![vec![[8.15, 47.9], [8.152, 47.9]]]);
    let e: SaveError = edit::save(&origin, &two, "a.agb").unwrap_err();
    assert_eq!(
        e.0,
        "the outer ring has 2 vertex(es): a polygon ring needs at least 3, so it cannot be saved (add vertices)"
    );
    let hole = polygon(vec![
        vec![[8.15, 47.9], [8.152, 47.9], [8.152, 47.902]],
        vec![[8.1505, 47.9005]],
    ]);
    let e = edit::save(&origin, &hole, "a.agb").unwrap_err();
    assert!(
        e.0.starts_with("hole 1 has 1 vertex(es)") && e.0.contains("remove the hole"),
        "{e}"
    );
    let e = edit::save_as_geojson(&tmp.0.join("n.geojson"), &two, "a.agb", None).unwrap_err();
    assert!(e.0.contains("at least 3"));
    assert_eq!(std::fs::read_to_string(&g).unwrap(), COLLECTION);
    assert!(!tmp.0.join("n.geojson").exists());
}

#[test]
fn read_only_and_unsaved_origins_point_to_save_as_geojson() {
    let shape = polygon(vec![vec![[8.15, 47.9], [8.152, 47.9], [8.152, 47.902]]]);
    let wed = Origin::ReadOnly {
        path: PathBuf::from("earth.wed.xml"),
        why: "a WED project".into(),
    };
    let e = edit::save(&wed, &shape, "a.agb").unwrap_err();
    assert_eq!(
        e.0,
        "earth.wed.xml: a WED project. agview does not write WED projects or binary DSFs: use \"Save as GeoJSON\" to keep the edited shape"
    );
    let e = edit::save(&Origin::Unsaved, &shape, "a.agb").unwrap_err();
    assert!(e.0.contains("use \"Save as GeoJSON\""), "{e}");
    assert!(e.0.contains("--origin LAT,LON"), "{e}");
}

#[test]
fn save_as_geojson_with_and_without_an_origin() {
    let tmp = Tmp::new("save-as");
    // A --rect 100x80 polygon, placed at --origin 47.9,8.15 and at the default origin.
    let rect: Vec<Vec<[f32; 2]>> = vec![vec![[0.0, 0.0], [100.0, 0.0], [100.0, 80.0], [0.0, 80.0]]];
    for (cli, name) in [
        (Some((47.9, 8.15)), "placed.geojson"),
        (None, "default.geojson"),
    ] {
        let origin = edit::placement_origin(cli);
        let mut shape = EditedShape {
            geometry: edit::polygon_from_local(origin, &rect),
            spawn: Some(vec![vec![true, true, false, true]]),
            param: Some(513),
            height: Some(7.5),
        };
        let f = tmp.0.join(name);
        assert_eq!(
            edit::save_as_geojson(&f, &shape, "autogen/lakeside.ags", Some(origin)).unwrap(),
            f
        );
        let g = read_geojson(&f);
        assert_eq!(g.polygons.len(), 1);
        let p = &g.polygons[0];
        assert_eq!((p.param, p.height), (Some(513), Some(7.5)));
        assert_eq!(p.spawn, shape.spawn);
        for (q, r) in p.rings[0].iter().zip(&rect[0]) {
            let m = edit::lonlat_to_local(origin, *q);
            assert!((m[0] - f64::from(r[0])).abs() < 1e-3 && (m[1] - f64::from(r[1])).abs() < 1e-3);
        }
        let text = std::fs::read_to_string(&f).unwrap();
        assert!(text.contains("\"asset\": \"autogen/lakeside.ags\""));
        assert!(
            text.contains(&format!("\"origin\": [{}, {}]", origin[0], origin[1])),
            "{text}"
        );
        assert_eq!(
            text.contains("agview's default origin"),
            cli.is_none(),
            "{text}"
        );
        // Saving again replaces the file whole.
        shape.param = Some(514);
        edit::save_as_geojson(&f, &shape, "autogen/lakeside.ags", Some(origin)).unwrap();
        assert_eq!(read_geojson(&f).polygons[0].param, Some(514));
    }

    // A shape from a file keeps its own place: nothing about an origin is written.
    let point = EditedShape {
        geometry: Shape::Point {
            lon: 8.1499,
            lat: 47.8996,
            heading: 30.5,
        },
        spawn: None,
        param: None,
        height: None,
    };
    let f = tmp.0.join("point.geojson");
    edit::save_as_geojson(&f, &point, "plaza.agp", None).unwrap();
    let g = read_geojson(&f);
    assert_eq!(
        (g.points[0].lon, g.points[0].lat, g.points[0].heading),
        (8.1499, 47.8996, Some(30.5))
    );
    assert!(!std::fs::read_to_string(&f).unwrap().contains("origin"));
}

#[test]
fn the_origin_of_a_loaded_shape() {
    let tmp = Tmp::new("origin-for");
    let g = tmp.0.join("town.geojson");
    let d = tmp.0.join("town.txt");
    std::fs::write(&g, COLLECTION).unwrap();
    std::fs::write(&d, sample("polygons/town.txt")).unwrap();
    let on = |path: &Path, index: Option<usize>| Inputs {
        polygon: Some(PolygonFile {
            path: path.to_path_buf(),
            index,
        }),
        ..Default::default()
    };
    // Polygons: 0 is feature 0, 1 and 2 the MultiPolygon's, 3 feature 3.
    assert_eq!(
        edit::origin_for(&on(&g, Some(3)), Path::new("a.ags")),
        Origin::GeoJson {
            path: g.clone(),
            index: 3
        }
    );
    assert!(matches!(
        edit::origin_for(&on(&g, Some(1)), Path::new("a.agb")),
        Origin::ReadOnly { why, .. } if why.contains("MultiPolygon")
    ));
    // Points, for a point asset: the second point is feature 4.
    assert_eq!(
        edit::origin_for(&on(&g, Some(1)), Path::new("a.agp")),
        Origin::GeoJson {
            path: g.clone(),
            index: 4
        }
    );
    let dsf = read_dsf(&d);
    let ags = dsf.polygons_for("lakeside.ags")[0].line as usize;
    assert_eq!(
        edit::origin_for(&on(&d, None), Path::new("lakeside.ags")),
        Origin::DsfText {
            path: d.clone(),
            line: ags
        }
    );
    let rect = Inputs {
        rect: Some([100.0, 80.0]),
        ..Default::default()
    };
    assert_eq!(edit::origin_for(&rect, Path::new("a.agb")), Origin::Unsaved);
}

// ---------------------------------------------------------------------------------------
// One feature inside a document (the sample town, a DSF text of autogen, objects, a
// facade and a forest).

fn town() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../sample_scenery/polygons/town.txt")
}

/// The index (in `Scene::features`) of the first feature of `kind` the document places.
fn feature_of(doc: &Path, kind: agview_core::scene::FeatureKind) -> (usize, edit::DocumentFeature) {
    (0..200)
        .find_map(|i| {
            edit::document_feature(doc, &Inputs::default(), i)
                .ok()
                .filter(|f| f.kind == kind)
                .map(|f| (i, f))
        })
        .expect("the town has one")
}

#[test]
fn a_feature_inside_a_document_saves_its_own_lines_only() {
    use agview_core::scene::FeatureKind;
    let tmp = Tmp::new("doc-feature");
    let f = tmp.0.join("town.txt");
    let src = std::fs::read(town()).unwrap();
    std::fs::write(&f, &src).unwrap();
    let before = read_dsf(&f);

    // An AGB polygon: its first vertex moves 1e-5° east; its lines alone change.
    let (_, block) = feature_of(&f, FeatureKind::Agb);
    let Origin::DsfText { line, .. } = block.origin.clone() else {
        panic!("a DSF text feature writes back: {:?}", block.origin)
    };
    let Shape::Polygon(mut rings) = block.shape.geometry.clone() else {
        panic!("a polygon")
    };
    rings[0][0][0] += 1e-5;
    let shape = EditedShape {
        geometry: Shape::Polygon(rings.clone()),
        ..block.shape.clone()
    };
    edit::save(&block.origin, &shape, &block.asset).unwrap();
    let out = std::fs::read(&f).unwrap();
    let (old, new) = (lines_of(&src), lines_of(&out));
    assert_eq!(old.len(), new.len(), "as many points as before");
    let changed: Vec<usize> = (0..old.len()).filter(|&k| old[k] != new[k]).collect();
    // 0-based: BEGIN_POLYGON is line - 1, BEGIN_WINDING line, the first point line + 1.
    // Its points are written anew (as DSFTool writes numbers); nothing outside them changes.
    let points = line + 1..line + 1 + rings[0].len();
    assert!(changed.contains(&(line + 1)), "{changed:?}");
    assert!(
        changed.iter().all(|k| points.contains(k)),
        "only its points' lines: {changed:?}"
    );
    let after = read_dsf(&f);
    assert_eq!(after.objects, before.objects);
    for (a, b) in after.polygons.iter().zip(&before.polygons) {
        if a.line as usize == line {
            assert_eq!(a.param, b.param, "the parameter is kept");
            assert!(close(a.windings[0][0], rings[0][0]));
        } else {
            assert_eq!((&a.windings, a.param, a.def), (&b.windings, b.param, b.def));
        }
    }

    // An object: its OBJECT line's place and heading alone.
    let src = out;
    let (_, obj) = feature_of(&f, FeatureKind::Obj);
    let Origin::DsfText { line, .. } = obj.origin.clone() else {
        panic!("{:?}", obj.origin)
    };
    let Shape::Point { lon, lat, .. } = obj.shape.geometry else {
        panic!("a point")
    };
    let moved = EditedShape {
        geometry: Shape::Point {
            lon: lon + 2e-5,
            lat,
            heading: 90.0,
        },
        ..obj.shape.clone()
    };
    edit::save(&obj.origin, &moved, &obj.asset).unwrap();
    let out = std::fs::read(&f).unwrap();
    let (old, new) = (lines_of(&src), lines_of(&out));
    let changed: Vec<usize> = (0..old.len()).filter(|&k| old[k] != new[k]).collect();
    assert_eq!(changed, vec![line - 1], "only its OBJECT line");
    let text = String::from_utf8_lossy(&new[line - 1]).to_string();
    assert!(
        text.contains(&format!("{:.9}", lon + 2e-5)) && text.contains("90.000"),
        "{text}"
    );
}

#[test]
fn editing_a_feature_of_a_document_lays_that_feature_out_alone() {
    use agview_core::scene::FeatureKind;
    use agview_load::document::{self, EditCache};
    use agview_load::input::EditedInput;
    let doc = town();
    let whole = document::load(&doc, &Inputs::default()).unwrap();
    let (i, block) = feature_of(&doc, FeatureKind::Agb);
    let Shape::Polygon(mut rings) = block.shape.geometry.clone() else {
        panic!("a polygon")
    };
    // The block's far corner 5 m further east.
    rings[0][2][0] += 5.0 / (111_319.49 * 47.9f64.to_radians().cos());
    let shape = EditedShape {
        geometry: Shape::Polygon(rings),
        ..block.shape.clone()
    };
    let cache = std::sync::Arc::new(EditCache::default());
    let edited = |cache: Option<std::sync::Arc<EditCache>>| Inputs {
        edited: Some(EditedInput {
            frame: [0.0, 0.0],
            shape: shape.clone(),
            source: None,
            feature: Some(i),
            cache,
        }),
        ..Inputs::default()
    };
    // The first edit lays the document out whole and keeps its parts; the next, the
    // feature alone (nothing read: no read time).
    let first = document::load(&doc, &edited(Some(cache.clone()))).unwrap();
    assert!(cache.is_kept());
    assert!(first.times.read_ms > 0.0);
    let again = document::load(&doc, &edited(Some(cache.clone()))).unwrap();
    assert_eq!(again.times.read_ms, 0.0, "laid out alone, not read again");
    // What the feature alone gives is what laying the whole document out gives.
    let fresh = document::load(&doc, &edited(None)).unwrap();
    let json = |d: &document::Document| serde_json::to_value(&d.loaded.scene).unwrap();
    assert_eq!(json(&again), json(&fresh));
    assert_eq!(json(&first), json(&fresh));

    // Only that feature moved: every other feature's tiles and objects are as they were.
    let of = |d: &document::Document, k: usize| {
        let s = &d.loaded.scene;
        let tiles: Vec<_> = s
            .tiles
            .iter()
            .filter(|t| t.feature == Some(k as u32))
            .map(|t| t.corners)
            .collect();
        let objs: Vec<_> = s
            .objects
            .iter()
            .filter(|o| o.feature == Some(k as u32))
            .map(|o| serde_json::to_value(o).unwrap())
            .collect();
        (tiles, objs)
    };
    let n = whole.loaded.scene.features.len();
    for k in (0..n).filter(|&k| k != i) {
        assert_eq!(of(&again, k), of(&whole, k), "feature {k} is unchanged");
    }
    assert_ne!(of(&again, i), of(&whole, i), "the edited feature moved");
    assert_eq!(again.loaded.scene.features.len(), n);
}
