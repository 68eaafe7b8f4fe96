//! Scenery packages laid out as authors publish them, opened with the `agview` binary from
//! other folders: the package's own `objects/` and textures, its tiles in
//! `Earth nav data/+NN+NNN/`, with a `library.txt` and without one. What a document
//! resolves, and everything it prints, must not depend on the working directory.

use std::path::{Path, PathBuf};

use agview::format::dsf_bin::write::{write_dsf, DsfToWrite};
use agview::format::dsf_bin::DsfBinObject;

mod common;
use common::{agview, slashed, Tmp};

fn write(path: &Path, bytes: impl AsRef<[u8]>) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, bytes).unwrap();
}

/// A one-triangle OBJ8 with its texture beside it in `../textures/`.
fn obj(texture: &str) -> String {
    format!(
        "A\n800\nOBJ\n\nTEXTURE ../textures/{texture}\nPOINT_COUNTS 3 0 0 3\n\
VT 0 0 0 0 1 0 0 0\nVT 10 0 0 0 1 0 1 0\nVT 0 8 0 0 1 0 0 1\nIDX 0\nIDX 1\nIDX 2\nTRIS 0 3\n"
    )
}

fn png(path: &Path) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    image::RgbaImage::from_pixel(4, 4, image::Rgba([120, 120, 120, 255]))
        .save(path)
        .unwrap();
}

/// A package `My Airport` in `dir`: a hangar (named by library path when `library`, else by
/// its file), a shed named with a Windows backslash, and a tower whose file's case differs
/// from the name the DSF gives. Returns the package root and its DSF.
fn airport(dir: &Path, library: bool) -> (PathBuf, PathBuf) {
    let root = dir.join("My Airport");
    write(&root.join("objects/hangar.obj"), obj("hangar.png"));
    write(&root.join("objects/shed.obj"), obj("hangar.png"));
    write(&root.join("objects/Tower.obj"), obj("hangar.png"));
    png(&root.join("textures/hangar.png"));
    let hangar = if library {
        write(
            &root.join("library.txt"),
            "A\n800\nLIBRARY\n\nEXPORT myairport/hangar.obj objects/hangar.obj\n",
        );
        "myairport/hangar.obj"
    } else {
        "objects/hangar.obj"
    };
    let object = |def: usize, k: f64| DsfBinObject {
        def,
        lon: 0.5 + k * 0.0005,
        lat: 50.5,
        heading: 0.0,
        offset: 0,
    };
    let doc = DsfToWrite {
        object_defs: vec![
            hangar.to_string(),
            "objects\\shed.obj".to_string(),
            "objects/tower.obj".to_string(),
        ],
        objects: vec![
            object(0, 0.0),
            object(1, 1.0),
            object(2, 2.0),
            object(0, 3.0),
        ],
        ..DsfToWrite::default()
    };
    let dsf = root.join("Earth nav data/+50+000/+50+000.dsf");
    write(&dsf, write_dsf(&doc));
    (root, dsf)
}

#[test]
fn a_dsf_finds_its_packages_art_from_the_package_root_from_any_folder() {
    for library in [true, false] {
        let tmp = Tmp::new(if library { "lib" } else { "nolib" });
        let (root, dsf) = airport(&tmp.0, library);
        let elsewhere = tmp.0.join("elsewhere");
        std::fs::create_dir_all(&elsewhere).unwrap();
        let tile = dsf.parent().unwrap().to_path_buf();
        let abs = dsf.display().to_string();
        let runs = [
            (elsewhere.clone(), abs.clone()),
            (
                root.clone(),
                "Earth nav data/+50+000/+50+000.dsf".to_string(),
            ),
            (tile.clone(), "+50+000.dsf".to_string()),
            (
                elsewhere.clone(),
                "../My Airport/Earth nav data/+50+000/+50+000.dsf".to_string(),
            ),
        ];
        let mut first: Option<(String, String)> = None;
        for (cwd, path) in &runs {
            let (code, out, err) = agview(cwd, &["layout", path, "--json"]);
            let what = format!("library {library}, {path} from {}", cwd.display());
            assert_eq!(code, 0, "{what}: {err}");
            let v: serde_json::Value = serde_json::from_str(&out).unwrap();
            let features = v["features"].as_array().unwrap();
            assert_eq!(features.len(), 4, "{what}");
            for f in features {
                let resolved = f["resolved"]
                    .as_str()
                    .unwrap_or_else(|| panic!("{what}: {f}"));
                assert!(
                    Path::new(resolved).starts_with(&root),
                    "{what}: {resolved} is not in the package"
                );
            }
            assert!(!err.contains("not found"), "{what}: {err}");
            assert!(!out.contains("not found"), "{what}: {out}");
            // The tower is found by ignoring case, and said so once.
            assert_eq!(
                err.matches("only when case is ignored").count(),
                1,
                "{what}: {err}"
            );
            match &first {
                None => first = Some((out, err)),
                Some((o, e)) => {
                    assert_eq!(&out, o, "{what}: the JSON differs from the first run's");
                    assert_eq!(&err, e, "{what}: the messages differ from the first run's");
                }
            }
        }
    }
}

#[test]
fn a_missing_definition_says_where_it_looked_and_how_to_search_an_install() {
    let tmp = Tmp::new("missing");
    let root = tmp.0.join("Pkg");
    let doc = DsfToWrite {
        object_defs: vec!["lib/airport/gone.obj".to_string()],
        objects: vec![DsfBinObject {
            def: 0,
            lon: 0.5,
            lat: 50.5,
            heading: 0.0,
            offset: 0,
        }],
        ..DsfToWrite::default()
    };
    let dsf = root.join("Earth nav data/+50+000/+50+000.dsf");
    write(&dsf, write_dsf(&doc));
    let (code, out, err) = agview(
        &tmp.0,
        &["layout", "Pkg/Earth nav data/+50+000/+50+000.dsf", "--json"],
    );
    assert_eq!(code, 0, "{err}");
    let line = err
        .lines()
        .find(|l| l.contains("lib/airport/gone.obj"))
        .unwrap_or_else(|| panic!("{err}"));
    let in_package = root.join("lib/airport/gone.obj");
    assert!(
        slashed(line).contains(&slashed(in_package.display().to_string())),
        "{line}"
    );
    assert!(line.contains("--xplane"), "{line}");
    // Said once on stderr, and once in the JSON.
    assert_eq!(
        err.lines().filter(|l| l.contains("gone.obj")).count(),
        1,
        "{err}"
    );
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let warnings = v["warnings"].as_array().unwrap();
    assert_eq!(
        warnings
            .iter()
            .filter(|w| w.as_str().unwrap_or("").contains("gone.obj"))
            .count(),
        1,
        "{warnings:?}"
    );
}

// ------------------------------------------------------------ facades as WED exports them

/// A type 1 facade with one wall: `RING ring`, and a roof when `roof`.
fn fac(ring: bool, roof: bool) -> String {
    format!(
        "A\n800\nFACADE\n\nTEXTURE ../textures/hangar.png\nRING {}\n\nLOD 0 4000\nTEX_SIZE 64 64\n{}\
WALL 1 200\nSCALE 4 3\nBOTTOM 0 64\nCENTER 0 64\n",
        u8::from(ring),
        if roof { "ROOF 0 0\nROOF 64 0\nROOF 64 64\nROOF 0 64\n" } else { "" }
    )
}

/// A WED project of facade placements, each `(resource, nodes as [lon, lat])`.
fn wed_project(placements: &[(&str, &str, &[[f64; 2]])]) -> String {
    let mut objects = String::new();
    let mut children = String::new();
    let mut id = 10;
    for (name, resource, nodes) in placements {
        let (p, r) = (id, id + 1);
        children += &format!("<child id=\"{p}\"/>");
        let node_ids: Vec<u32> = (0..nodes.len() as u32).map(|k| id + 2 + k).collect();
        objects += &format!(
            "<object class=\"WED_FacadePlacement\" id=\"{p}\" parent_id=\"4\"><children><child id=\"{r}\"/></children>\
<hierarchy name=\"{name}\" locked=\"0\" hidden=\"0\"/>\
<facade_placement height=\"6\" pick_walls=\"0\" resource=\"{resource}\" show_level=\"1 Default\"/></object>\n\
<object class=\"WED_FacadeRing\" id=\"{r}\" parent_id=\"{p}\"><children>{}</children>\
<hierarchy name=\"ring\" locked=\"0\" hidden=\"0\"/></object>\n",
            node_ids
                .iter()
                .map(|n| format!("<child id=\"{n}\"/>"))
                .collect::<String>()
        );
        for (n, [lon, lat]) in node_ids.iter().zip(nodes.iter()) {
            objects += &format!(
                "<object class=\"WED_FacadeNode\" id=\"{n}\" parent_id=\"{r}\"><children/>\
<hierarchy name=\"node\" locked=\"0\" hidden=\"0\"/><point latitude=\"{lat:.9}\" longitude=\"{lon:.9}\"/></object>\n"
            );
        }
        id += 2 + nodes.len() as u32;
    }
    format!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<doc><objects>\n\
<object class=\"WED_Root\" id=\"1\" parent_id=\"0\"><children><child id=\"4\"/></children><hierarchy name=\"root\"/></object>\n\
<object class=\"WED_Group\" id=\"4\" parent_id=\"1\"><children>{children}</children><hierarchy name=\"world\" locked=\"0\" hidden=\"0\"/></object>\n\
{objects}</objects></doc>\n"
    )
}

/// The facades a `layout --json` placed: (footprint length, first point) sorted, and the
/// document's messages.
fn facades_of(cwd: &Path, doc: &str) -> (Vec<(usize, [i64; 2])>, String) {
    let (code, out, err) = agview(cwd, &["layout", doc, "--json"]);
    assert_eq!(code, 0, "{doc}: {err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let mut facades: Vec<(usize, [i64; 2])> = v["facades"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            let pts = f["footprint"].as_array().unwrap();
            let p = |k: usize| (pts[0][k].as_f64().unwrap() * 10.0).round() as i64;
            (pts.len(), [p(0), p(1)])
        })
        .collect();
    facades.sort();
    (facades, err)
}

#[test]
fn wed_projects_export_facades_in_the_topology_their_fac_gives() {
    let tmp = Tmp::new("wed-facades");
    let root = tmp.0.join("Fences");
    png(&root.join("textures/hangar.png"));
    write(&root.join("facades/fence.fac"), fac(false, false));
    write(&root.join("facades/wall.fac"), fac(true, false));
    write(&root.join("facades/house.fac"), fac(true, true));
    let (x, y) = (0.5, 50.5);
    let d = 0.0002;
    // A fence of two nodes and one of three (chains), a square wall drawn clockwise (a
    // ring: kept in node order), a roofed house drawn clockwise (an area: turned
    // counter-clockwise), a two-node wall (a ring: refused) and a two-node facade whose
    // .fac is missing (kept as a chain, with a warning).
    let fence2: &[[f64; 2]] = &[[x, y], [x + d, y]];
    let fence3: &[[f64; 2]] = &[[x, y + d], [x + d, y + d], [x + d, y + 2.0 * d]];
    let wall_cw: &[[f64; 2]] = &[
        [x, y + 3.0 * d],
        [x, y + 4.0 * d],
        [x + d, y + 4.0 * d],
        [x + d, y + 3.0 * d],
    ];
    let house_cw: &[[f64; 2]] = &[
        [x, y + 5.0 * d],
        [x, y + 6.0 * d],
        [x + d, y + 6.0 * d],
        [x + d, y + 5.0 * d],
    ];
    let wall2: &[[f64; 2]] = &[[x, y + 7.0 * d], [x + d, y + 7.0 * d]];
    let gone2: &[[f64; 2]] = &[[x, y + 8.0 * d], [x + d, y + 8.0 * d]];
    write(
        &root.join("earth.wed.xml"),
        wed_project(&[
            ("fence of two", "facades/fence.fac", fence2),
            ("fence of three", "facades/fence.fac", fence3),
            ("wall", "facades/wall.fac", wall_cw),
            ("house", "facades/house.fac", house_cw),
            ("short wall", "facades/wall.fac", wall2),
            ("lost", "facades/gone.fac", gone2),
        ]),
    );
    // The DSF WED 2.x exports from it (GROUND.md §5): chains and rings in node order, the
    // area counter-clockwise, the two-node ring not at all, the lost facade as drawn.
    let ccw = |w: &[[f64; 2]]| w.iter().rev().copied().collect::<Vec<_>>();
    let polygon = |def: usize, w: Vec<[f64; 2]>| agview::format::dsf_bin::write::PolygonToWrite {
        def,
        param: 6,
        coord_depth: 2,
        windings: vec![w],
        extra: vec![Vec::new()],
    };
    let dsf = DsfToWrite {
        polygon_defs: vec![
            "facades/fence.fac".into(),
            "facades/wall.fac".into(),
            "facades/house.fac".into(),
            "facades/gone.fac".into(),
        ],
        polygons: vec![
            polygon(0, fence2.to_vec()),
            polygon(0, fence3.to_vec()),
            polygon(1, wall_cw.to_vec()),
            polygon(2, ccw(house_cw)),
            polygon(3, gone2.to_vec()),
        ],
        ..DsfToWrite::default()
    };
    write(
        &root.join("Earth nav data/+50+000/+50+000.dsf"),
        write_dsf(&dsf),
    );

    let (wed, wed_err) = facades_of(&tmp.0, "Fences");
    let (dsf, dsf_err) = facades_of(&tmp.0, "Fences/Earth nav data/+50+000/+50+000.dsf");
    assert!(!dsf_err.contains("error:"), "{dsf_err}");
    // The same facades, point for point (both documents' frames start at the first fence).
    assert_eq!(wed, dsf, "WED: {wed_err}\nDSF: {dsf_err}");
    assert_eq!(
        wed.iter().map(|f| f.0).collect::<Vec<_>>(),
        vec![2, 2, 3, 4, 4],
        "{wed_err}"
    );
    let errors: Vec<&str> = wed_err.lines().filter(|l| l.contains("error:")).collect();
    assert_eq!(errors.len(), 1, "{wed_err}");
    assert!(
        errors[0].contains("short wall") && errors[0].contains("at least three points"),
        "{}",
        errors[0]
    );
    assert!(
        wed_err.contains("gone.fac") && wed_err.contains("kept as an open chain"),
        "{wed_err}"
    );
    // Nothing was refused for having two nodes but the ring.
    assert!(!wed_err.contains("fewer than"), "{wed_err}");
}

// ------------------------------------------------------------------------------ the ground

/// A package whose binary DSF holds a tiled `.pol` with a hole, an orthophoto with its
/// texture coordinates, an object string of posts named relative to the `.str` and an open
/// painted line.
fn ground_package(dir: &Path) -> (PathBuf, PathBuf) {
    use agview::format::dsf_bin::write::PolygonToWrite;
    let root = dir.join("My Ground");
    png(&root.join("ground/apron.png"));
    png(&root.join("ground/photo.png"));
    write(
        &root.join("ground/apron.pol"),
        "A\n850\nDRAPED_POLYGON\n\nTEXTURE apron.png\nSCALE 25 25\nLAYER_GROUP taxiways 1\n",
    );
    write(
        &root.join("ground/photo.pol"),
        "A\n850\nDRAPED_POLYGON\n\nTEXTURE_NOWRAP photo.png\nSCALE 100 100\nLAYER_GROUP beaches 1\n",
    );
    write(
        &root.join("ground/edge.lin"),
        "A\n850\nLINE_PAINT\n\nTEXTURE apron.png\nSCALE 2 8\nS_OFFSET 0 0 512 1024\n",
    );
    write(&root.join("objects/post.obj"), obj("post.png"));
    png(&root.join("textures/post.png"));
    write(
        &root.join("strings/fence.str"),
        "A\n850\nOBJECT_STRING\n\nOFFSET 1\nOBJECT 0 0 ../objects/post.obj\n",
    );
    let (lon, lat) = (0.5, 50.5);
    let sq = |x0: f64, y0: f64, d: f64| {
        vec![
            [lon + x0, lat + y0],
            [lon + x0 + d, lat + y0],
            [lon + x0 + d, lat + y0 + d],
            [lon + x0, lat + y0 + d],
        ]
    };
    let mut hole = sq(0.0002, 0.0002, 0.0002);
    hole.reverse();
    let dsf = DsfToWrite {
        polygon_defs: vec![
            "ground/apron.pol".into(),
            "ground/photo.pol".into(),
            "strings/fence.str".into(),
            "ground/edge.lin".into(),
        ],
        polygons: vec![
            PolygonToWrite {
                def: 0,
                param: 30 + 360 * 64,
                coord_depth: 2,
                windings: vec![sq(0.0, 0.0, 0.0006), hole],
                extra: vec![Vec::new(), Vec::new()],
            },
            PolygonToWrite {
                def: 1,
                param: 65535,
                coord_depth: 4,
                windings: vec![sq(0.001, 0.0, 0.0006)],
                extra: vec![vec![0.0, 0.0, 1.0, 0.0, 1.0, 1.0, 0.0, 1.0]],
            },
            PolygonToWrite {
                def: 2,
                param: 10_000 + 320,
                coord_depth: 2,
                windings: vec![vec![[lon, lat - 0.0002], [lon + 0.0006, lat - 0.0002]]],
                extra: vec![Vec::new()],
            },
            PolygonToWrite {
                def: 3,
                param: 0,
                coord_depth: 2,
                windings: vec![vec![
                    [lon, lat - 0.0003],
                    [lon + 0.0003, lat - 0.0003],
                    [lon + 0.0003, lat - 0.0005],
                ]],
                extra: vec![Vec::new()],
            },
        ],
        ..DsfToWrite::default()
    };
    let path = root.join("Earth nav data/+50+000/+50+000.dsf");
    write(&path, write_dsf(&dsf));
    // An airport in the tile, and one outside it (not drawn with this DSF).
    write(
        &root.join("Earth nav data/apt.dat"),
        "I\n1100 Generated by WorldEditor\n\n\
         1 100 0 0 XMYG My Ground\n\
         100 30.00 1 0 0.25 0 2 1 09 50.49900000 0.50000000 0 0 3 0 0 0 27 50.49900000 0.50500000 0 0 3 0 0 0\n\
         110 2 0.25 0.00 Apron\n111 50.49800000 0.50000000 1\n111 50.49800000 0.50100000 1\n\
         113 50.49850000 0.50100000\n\
         1 100 0 0 XFAR Far Field\n\
         100 30.00 1 0 0.25 0 2 1 09 52.5 0.5 0 0 3 0 0 0 27 52.5 0.51 0 0 3 0 0 0\n99\n",
    );
    (root, path)
}

#[test]
fn a_packages_draped_polygons_orthophotos_lines_and_strings_are_laid_out_from_any_folder() {
    let tmp = Tmp::new("ground");
    let (root, _) = ground_package(&tmp.0);
    let elsewhere = tmp.0.join("elsewhere");
    std::fs::create_dir_all(&elsewhere).unwrap();
    let rel = "../My Ground/Earth nav data/+50+000/+50+000.dsf";
    let (code, out, err) = agview(&elsewhere, &["layout", rel, "--json"]);
    assert_eq!(code, 0, "{err}");
    assert!(
        !err.contains("not found") && !err.contains("do not draw"),
        "{err}"
    );
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let kinds: Vec<&str> = v["features"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["kind"].as_str().unwrap())
        .collect();
    assert_eq!(kinds, ["pol", "pol", "str", "lin", "runway", "pavement"]);
    assert_eq!(v["lines"][0]["points"].as_array().unwrap().len(), 3);
    assert_eq!(v["lines"][0]["closed"], serde_json::json!(false));
    let draped = v["draped"].as_array().unwrap();
    // The two .pol, then the airport's runway and its apron (agview's own art).
    assert_eq!(draped.len(), 4);
    assert!(draped[3]["pavement"]["group"] == "taxiways");
    assert_eq!(draped[0]["rings"].as_array().unwrap().len(), 2, "the hole");
    assert_eq!(draped[0]["heading"].as_f64(), Some(30.5));
    assert_eq!(draped[1]["st"][0][2], serde_json::json!([1.0, 1.0]));
    for d in v["pol_defs"].as_array().unwrap() {
        if d["name"].as_str().unwrap().starts_with("agview:") {
            continue; // the airport's built-in art has no file
        }
        let r = d["resolved"].as_str().unwrap();
        assert!(Path::new(r).starts_with(&root), "{r}");
    }
    // 0.0006° of longitude at 50.5° is about 42.4 m: posts every 2.5 m from 1.675 m on.
    let posts = v["objects"].as_array().unwrap();
    assert_eq!(posts.len(), 17, "{}", posts.len());
    assert!(slashed(v["meshes"][0]["resolved"].as_str().unwrap()).ends_with("objects/post.obj"));
    // The same from the package root: the same output.
    let (_, out2, err2) = agview(
        &root,
        &["layout", "Earth nav data/+50+000/+50+000.dsf", "--json"],
    );
    assert_eq!(out, out2);
    assert_eq!(err, err2);
    // `check` reads the .pol and .str and what they name.
    let (code, out, err) = agview(&elsewhere, &["check", rel]);
    assert_eq!(code, 0, "{out}{err}");
    let (code, _, err) = agview(
        &elsewhere,
        &["render", rel, "--out", "ground.png", "--size", "160x120"],
    );
    assert_eq!(code, 0, "{err}");
    assert!(elsewhere.join("ground.png").is_file());
}

// ------------------------------------------------------------ line ends

/// Rewrites every text file under `dir` with `end` as its line ends.
fn reline(dir: &Path, end: &str) {
    for e in std::fs::read_dir(dir).unwrap().flatten() {
        let p = e.path();
        if p.is_dir() {
            reline(&p, end);
            continue;
        }
        let ext = p.extension().and_then(|x| x.to_str()).unwrap_or("");
        if ["pol", "lin", "str", "obj", "dat", "txt"].contains(&ext) {
            let text = std::fs::read_to_string(&p).unwrap();
            std::fs::write(&p, agview::lines::with_line_ends(&text, end)).unwrap();
        }
    }
}

/// Packages made on a classic Mac (a bare `\r` ends each line; 108 `.pol` files of three
/// public airports) and on Windows (`\r\n`) read as X-Plane reads them: as the same package
/// with `\n`. `check` accepts them and the layout is the same, line numbers and all.
#[test]
fn a_package_saved_with_mac_or_windows_line_ends_reads_as_with_unix_ones() {
    let tmp = Tmp::new("line-ends");
    let mut seen: Vec<(String, String, String)> = Vec::new();
    for (name, end) in [("lf", "\n"), ("crlf", "\r\n"), ("cr", "\r")] {
        let (root, _) = ground_package(&tmp.0.join(name));
        let at = root.display().to_string();
        reline(&root, end);
        let pol = std::fs::read(root.join("ground/apron.pol")).unwrap();
        assert_eq!(pol.contains(&b'\n'), end != "\r", "{name}");
        let (code, out, err) = agview(&root, &["check", "ground/apron.pol"]);
        assert_eq!(code, 0, "{name}: {out}{err}");
        assert!(err.contains("0 error(s), 0 warning(s)"), "{name}: {err}");
        let (code, out, err) = agview(&root, &["check", "."]);
        assert_eq!(code, 0, "{name}: {out}{err}");
        let check = format!("{out}{err}").replace(&at, "ROOT");
        let dsf = "Earth nav data/+50+000/+50+000.dsf";
        let (code, out, err) = agview(&root, &["layout", dsf, "--json"]);
        assert_eq!(code, 0, "{name}: {err}");
        // The JSON writes the root with its backslashes doubled (on Windows).
        let at_json = serde_json::to_string(&at).unwrap();
        let out = out.replace(&at_json[1..at_json.len() - 1], "ROOT");
        seen.push((check, out, err.replace(&at, "ROOT")));
    }
    let v: serde_json::Value = serde_json::from_str(&seen[0].1).unwrap();
    assert_eq!(v["features"].as_array().unwrap().len(), 6, "{v}");
    for (form, got) in ["CRLF", "CR"].iter().zip(&seen[1..]) {
        assert_eq!(got, &seen[0], "{form}");
    }
}

// ------------------------------------------------------------ bytes that are not UTF-8

/// A file named by the bytes a Windows-1252 text gives it, as each system stores it: Linux's
/// names are bytes, so the byte itself; Windows' are UTF-16, where an author's `é` (0xE9, in
/// the code page's Latin-1 half) is the character é.
fn raw_path(dir: &Path, bytes: &[u8]) -> PathBuf {
    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStrExt;
        dir.join(std::ffi::OsStr::from_bytes(bytes))
    }
    #[cfg(not(unix))]
    {
        dir.join(bytes.iter().map(|&b| char::from(b)).collect::<String>())
    }
}

/// A package written on Windows in Windows-1252: a DSF text and an object whose names hold
/// `é` as the single byte 0xE9, backslashes, and comments in the same code page. X-Plane
/// reads the bytes: the names are kept byte for byte, the files found, the comments skipped,
/// and a name that finds nothing is shown with `\xE9`. On Windows the same bytes find the
/// file named `café.obj` in UTF-16.
#[test]
fn names_that_are_not_utf8_are_kept_byte_for_byte() {
    let tmp = Tmp::new("cp1252");
    let root = tmp.0.join("Caf\u{e9} Pkg");
    let objects = root.join("objects");
    std::fs::create_dir_all(&objects).unwrap();
    let obj_text = b"A\n800\nOBJ\n# dessin\xe9 par Ren\xe9\nTEXTURE ..\\textures\\t\xe9.png\n\
POINT_COUNTS 3 0 0 3\nVT 0 0 0 0 1 0 0 0\nVT 10 0 0 0 1 0 1 0\nVT 0 8 0 0 1 0 0 1\n\
IDX 0\nIDX 1\nIDX 2\nTRIS 0 3\n";
    std::fs::write(raw_path(&objects, b"caf\xe9.obj"), obj_text).unwrap();
    std::fs::create_dir_all(root.join("textures")).unwrap();
    image::RgbaImage::from_pixel(4, 4, image::Rgba([200, 60, 60, 255]))
        .save_with_format(
            raw_path(&root.join("textures"), b"t\xe9.png"),
            image::ImageFormat::Png,
        )
        .unwrap();
    let dsf = root.join("Earth nav data/+50+000/+50+000.txt");
    let mut text =
        b"A\n800\nDSF2TEXT\n# r\xe9sum\xe9\nPROPERTY sim/west 0\nPROPERTY sim/south 50\n\
PROPERTY sim/east 1\nPROPERTY sim/north 51\n"
            .to_vec();
    text.extend_from_slice(b"OBJECT_DEF objects\\caf\xe9.obj\nOBJECT_DEF objects/gon\xe9.obj\n");
    text.extend_from_slice(b"OBJECT 0 0.5 50.5 0\nOBJECT 1 0.5005 50.5 0\n");
    write(&dsf, &text);
    let (code, out, err) = agview(
        &tmp.0,
        &[
            "layout",
            "Caf\u{e9} Pkg/Earth nav data/+50+000/+50+000.txt",
            "--json",
        ],
    );
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let features = v["features"].as_array().unwrap();
    assert_eq!(features.len(), 2, "{out}");
    let found = features[0]["resolved"]
        .as_str()
        .unwrap_or_else(|| panic!("{out}"));
    // Linux shows the byte; on Windows the name is the character.
    let cafe = if cfg!(unix) {
        "objects/caf\\xE9.obj"
    } else {
        "objects/caf\u{e9}.obj"
    };
    assert!(slashed(found).ends_with(cafe), "{found}");
    assert!(features[1]["resolved"].is_null(), "{out}");
    let gone = err
        .lines()
        .find(|l| l.contains("gon"))
        .unwrap_or_else(|| panic!("{err}"));
    assert!(gone.contains("objects/gon\\xE9.obj"), "{gone}");
    assert!(!err.contains("UTF-8"), "{err}");
    // The object's texture, named with the same byte, is found: no warning about it.
    let (code, _, err) = agview(
        &tmp.0,
        &[
            "render",
            "Caf\u{e9} Pkg/Earth nav data/+50+000/+50+000.txt",
            "--out",
            "shot.png",
            "--size",
            "64x64",
        ],
    );
    assert_eq!(code, 0, "{err}");
    assert!(!err.contains("t\\xE9.png"), "{err}");
    assert_eq!(
        err.lines().filter(|l| l.contains("gon\\xE9.obj")).count(),
        1,
        "{err}"
    );
}

/// `--texture-budget`: textures over the budget are drawn at a lower resolution, the
/// largest first, and the command says so.
#[test]
fn a_texture_budget_lowers_the_largest_textures_and_says_so() {
    let tmp = Tmp::new("budget");
    let (root, dsf) = airport(&tmp.0, false);
    image::RgbaImage::from_pixel(1024, 1024, image::Rgba([90, 90, 90, 255]))
        .save(root.join("textures/hangar.png"))
        .unwrap();
    let dsf = dsf.display().to_string();
    let render = |extra: &[&str]| {
        let mut args = vec!["render", &dsf, "--out", "shot.png", "--size", "64x64"];
        args.extend_from_slice(extra);
        agview(&tmp.0, &args)
    };
    let (code, _, err) = render(&["--texture-budget", "1"]);
    assert_eq!(code, 0, "{err}");
    assert!(
        err.contains("note: texture budget 1 MB: 1 texture(s) drawn at a lower resolution"),
        "{err}"
    );
    let (code, _, err) = render(&[]);
    assert_eq!(code, 0, "{err}");
    assert!(!err.contains("texture budget"), "{err}");
}

// ------------------------------------------------------------ library paths inside assets

/// An install with one library package exporting `lib/shared/crate.obj`, and a package of
/// its own whose `.agp` names that library path: the install resolves it with `--xplane`,
/// for the asset on its own (`layout`, `check`) and placed by the package's DSF.
#[test]
fn an_assets_library_paths_resolve_through_the_install_with_xplane() {
    let tmp = Tmp::new("asset-lib");
    let xp = tmp.0.join("X-Plane 12");
    let lib = xp.join("Custom Scenery/Shared Library");
    write(&lib.join("objects/crate.obj"), obj("crate.png"));
    png(&lib.join("textures/crate.png"));
    write(
        &lib.join("library.txt"),
        "A\n800\nLIBRARY\n\nEXPORT lib/shared/crate.obj objects/crate.obj\n",
    );
    std::fs::create_dir_all(xp.join("Resources/default scenery")).unwrap();
    let pkg = tmp.0.join("My Pkg");
    let agp = pkg.join("autogen/yard.agp");
    write(
        &agp,
        "A\n1000\nAG_POINT\n\nTEXTURE ../textures/ground.png\nTEXTURE_SCALE 256 256\n\
TEXTURE_WIDTH 32\nOBJECT lib/shared/crate.obj\n\nTILE 0 0 256 256\nANCHOR_PT 128 128\n\
OBJ_DRAPED 128 128 0 0\n",
    );
    png(&pkg.join("textures/ground.png"));
    let dsf = pkg.join("Earth nav data/+50+000/+50+000.txt");
    write(
        &dsf,
        "A\n800\nDSF2TEXT\nPROPERTY sim/west 0\nPROPERTY sim/south 50\nPROPERTY sim/east 1\n\
PROPERTY sim/north 51\nOBJECT_DEF autogen/yard.agp\nOBJECT 0 0.5 50.5 0\n",
    );
    let agp = agp.display().to_string();
    let dsf = dsf.display().to_string();
    let xp = xp.display().to_string();
    let elsewhere = tmp.0.as_path();
    let crate_at = |out: &str| {
        let v: serde_json::Value = serde_json::from_str(out).unwrap();
        v["meshes"][0]["resolved"].as_str().map(str::to_string)
    };
    // Without an install: not found, and the message says how to find it.
    let (code, out, err) = agview(elsewhere, &["layout", &agp, "--json"]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(crate_at(&out), None, "{out}");
    assert!(
        err.contains("lib/shared/crate.obj") && err.contains("--xplane"),
        "{err}"
    );
    // With it, the asset alone and the asset placed by the DSF find the library's file.
    for doc in [&agp, &dsf] {
        let (code, out, err) = agview(elsewhere, &["layout", doc, "--json", "--xplane", &xp]);
        assert_eq!(code, 0, "{err}");
        let found = crate_at(&out).unwrap_or_else(|| panic!("{doc}: {out}\n{err}"));
        assert!(
            slashed(&found).ends_with("Shared Library/objects/crate.obj"),
            "{found}"
        );
        assert!(!err.contains("not found"), "{doc}: {err}");
    }
    let (code, out, err) = agview(elsewhere, &["check", &agp, "--xplane", &xp]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(!format!("{out}{err}").contains("not found"), "{out}{err}");
}

/// `--library DIR`: the third-party libraries a package needs, without an X-Plane install.
/// A folder of library packages (as `Custom Scenery` is) resolves the definitions a DSF
/// places, the objects inside its assets and their textures, for `layout`, `render` and
/// `check` alike, from another folder.
#[test]
fn library_folders_resolve_what_a_package_needs_without_an_install() {
    let tmp = Tmp::new("library-arg");
    let shelf = tmp.0.join("Libraries");
    let lib = shelf.join("Shared Library");
    write(&lib.join("objects/crate.obj"), obj("crate.png"));
    png(&lib.join("textures/crate.png"));
    png(&lib.join("textures/ground.png"));
    write(
        &lib.join("library.txt"),
        "A\n800\nLIBRARY\n\nEXPORT lib/shared/crate.obj objects/crate.obj\n\
EXPORT lib/shared/ground.png textures/ground.png\nEXPORT lib/shared/yard.agp yard.agp\n",
    );
    // The library's own autogen point, placed by the package's DSF by library path.
    write(
        &lib.join("yard.agp"),
        "A\n1000\nAG_POINT\n\nTEXTURE lib/shared/ground.png\nTEXTURE_SCALE 256 256\n\
TEXTURE_WIDTH 32\nOBJECT lib/shared/crate.obj\n\nTILE 0 0 256 256\nANCHOR_PT 128 128\n\
OBJ_DRAPED 128 128 0 0\n",
    );
    let pkg = tmp.0.join("My Pkg");
    let dsf = pkg.join("Earth nav data/+50+000/+50+000.txt");
    write(
        &dsf,
        "A\n800\nDSF2TEXT\nPROPERTY sim/west 0\nPROPERTY sim/south 50\nPROPERTY sim/east 1\n\
PROPERTY sim/north 51\nOBJECT_DEF lib/shared/yard.agp\nOBJECT 0 0.5 50.5 0\n",
    );
    let dsf = dsf.display().to_string();
    let shelf = shelf.display().to_string();
    let elsewhere = tmp.0.join("elsewhere");
    std::fs::create_dir_all(&elsewhere).unwrap();
    // Without it: the definition is not found.
    let (code, out, err) = agview(&elsewhere, &["layout", &dsf, "--json"]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert!(v["features"][0]["resolved"].is_null(), "{out}");
    // With it: the point, its object and its texture, each from the library.
    let (code, out, err) = agview(&elsewhere, &["layout", &dsf, "--json", "--library", &shelf]);
    assert_eq!(code, 0, "{err}");
    assert!(!err.contains("not found"), "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let resolved = |x: &serde_json::Value| slashed(x.as_str().unwrap_or_else(|| panic!("{out}")));
    assert!(resolved(&v["features"][0]["resolved"]).ends_with("Shared Library/yard.agp"));
    assert!(resolved(&v["meshes"][0]["resolved"]).ends_with("Shared Library/objects/crate.obj"));
    assert!(resolved(&v["tile_texture"]["path"]).ends_with("Shared Library/textures/ground.png"));
    let png_out = elsewhere.join("yard.png").display().to_string();
    let (code, _, err) = agview(
        &elsewhere,
        &[
            "render",
            &dsf,
            "--library",
            &shelf,
            "--size",
            "64x48",
            "--out",
            &png_out,
        ],
    );
    assert_eq!(code, 0, "{err}");
    assert!(!err.contains("not found"), "{err}");
    let (code, out, err) = agview(&elsewhere, &["check", &dsf, "--library", &shelf]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(!format!("{out}{err}").contains("not found"), "{out}{err}");
}

/// `render` prints the camera it used as the arguments that place it again: rendering with
/// them gives the same image (within 1/255 per channel), from another folder too.
#[test]
fn render_prints_a_camera_that_gives_the_same_image_again() {
    let tmp = Tmp::new("camera-again");
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("sample_scenery");
    for (name, asset, extra) in [
        ("block", "autogen/city_block.agb", &["--rect", "100x80"][..]),
        ("town", "polygons/town.txt", &["--frame", "all"][..]),
    ] {
        let asset = root.join(asset).display().to_string();
        let first = tmp.0.join(format!("{name}-first.png"));
        let again = tmp.0.join(format!("{name}-again.png"));
        let mut args = vec!["render", &asset, "--size", "160x120"];
        args.extend_from_slice(extra);
        let out = first.display().to_string();
        let (code, _, err) = agview(&tmp.0, &[&args[..], &["--out", &out]].concat());
        assert_eq!(code, 0, "{err}");
        let line = err
            .lines()
            .find_map(|l| l.strip_prefix("camera: "))
            .unwrap_or_else(|| panic!("no camera line: {err}"));
        assert!(line.starts_with("--camera="), "{line}");
        let mut again_args = vec!["render", &asset, "--size", "160x120"];
        if name == "block" {
            again_args.extend_from_slice(extra);
        }
        again_args.extend(line.split(' '));
        let out = again.display().to_string();
        let (code, _, err) = agview(&tmp.0, &[&again_args[..], &["--out", &out]].concat());
        assert_eq!(code, 0, "{err}");
        let (a, b) = (
            image::open(&first).unwrap().to_rgba8(),
            image::open(&again).unwrap().to_rgba8(),
        );
        let worst = a
            .as_raw()
            .iter()
            .zip(b.as_raw())
            .map(|(x, y)| x.abs_diff(*y))
            .max()
            .unwrap();
        assert!(worst <= 1, "{name}: {line}: a channel differs by {worst}");
    }
}
