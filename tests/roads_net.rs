//! `agview dump` and `agview check` on road network definitions (`.net`, ROADS.md §3),
//! written by the test beside their textures as a package ships them.

mod common;

use common::{agview, quarters_png, Tmp};

/// A city street (draped asphalt, graded curb) and its bridge, the virtual type a DSF
/// subtype names, and the directives read only to be listed.
const GOOD: &str = "A\n800\nROADS\n\
TEXTURE 3 textures/road.png\nTEXTURE_LIT textures/road_LIT.png\nTEXTURE 0 textures/bridge.png\n\
SCALE 64\n\
ROAD_TYPE 1000 10 25 0 0.5 0.5 0.5\nROAD_CENTER 4\nREQUIRE_EVEN 0.5\n\
SEGMENT_DRAPED 0 0 20000 1 0 0 8 32\nSEGMENT_GRADED 1 0 20000 1 8 0.2 32 10 0.2 64\n\
CAR_DRAPED 0 -2 20 0.1 0\nOBJECT_DRAPED DIST lamp.obj 0 0 0 0 30 0 0/0 0/0 0 0\n\
ROAD_TYPE 1010 12 25 1 1 0 0\nSEGMENT_GRADED 1 0 20000 1 0 0 0 12 0 64\nJUNCTION_DRAPED 1\n\
#VROAD city_street (12.0)\nROAD_DRAPED 1 30 0.1 0.1\nROAD_DRAPE_CHOICE 0 1000\nROAD_DRAPE_CHOICE 15 1010\n";

fn write(dir: &std::path::Path, name: &str, text: &str) -> String {
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p.display().to_string()
}

fn package(tmp: &Tmp) -> std::path::PathBuf {
    let dir = tmp.0.join("Roads");
    for t in ["road", "road_LIT", "bridge"] {
        let p = dir.join(format!("textures/{t}.png"));
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        quarters_png(&p, [[90; 3], [90; 3], [200; 3], [200; 3]]);
    }
    dir
}

#[test]
fn dump_lists_textures_types_rows_choices_and_listed_directives() {
    let tmp = Tmp::new("net-dump");
    let dir = package(&tmp);
    let net = write(&dir, "roads.net", GOOD);
    let (code, out, err) = agview(&tmp.0, &["dump", &net]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(err, "");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["format"], "net");
    assert_eq!(v["old_form"], false);
    assert_eq!(v["textures"][0]["path"], "textures/road.png");
    assert_eq!(v["textures"][0]["lit"], "textures/road_LIT.png");
    assert_eq!(v["textures"][1]["poly_os"], 0.0);
    let street = &v["road_types"]["1000"];
    assert_eq!(street["center"], 4.0);
    // x about ROAD_CENTER, s over SCALE.
    assert_eq!(street["rows"][0]["x"], serde_json::json!([-4.0, 4.0]));
    assert_eq!(street["rows"][0]["s"], serde_json::json!([0.0, 0.5]));
    assert_eq!(street["rows"][1]["graded"], true);
    assert_eq!(street["rows"][1]["y"], serde_json::json!([0.2, 0.2]));
    assert_eq!(v["road_types"]["1010"]["center"], 6.0);
    let city = &v["vroads"]["30"];
    assert_eq!(city["name"], "city_street");
    assert_eq!(city["width"], 12.0);
    assert_eq!(
        city["choices"],
        serde_json::json!([[0.0, 1000], [15.0, 1010]])
    );
    assert_eq!(
        v["listed"],
        serde_json::json!({"CAR_DRAPED": 1, "JUNCTION_DRAPED": 1, "OBJECT_DRAPED": 1, "REQUIRE_EVEN": 1})
    );

    let (code, out, _) = agview(&tmp.0, &["dump", &net, "--summary"]);
    assert_eq!(code, 0);
    assert!(
        out.starts_with("road network: 2 texture(s), 2 road type(s), 1 virtual type(s)"),
        "{out}"
    );
    assert!(
        out.contains("virtual type 30 city_street: 0 m: 1000, 15 m: 1010"),
        "{out}"
    );
    assert!(
        out.contains("read but not drawn: CAR_DRAPED 1×, JUNCTION_DRAPED 1×, OBJECT_DRAPED 1×, REQUIRE_EVEN 1×"),
        "{out}"
    );
}

#[test]
fn check_finds_a_clean_net_clean() {
    let tmp = Tmp::new("net-check-clean");
    let dir = package(&tmp);
    let net = write(&dir, "roads.net", GOOD);
    let (code, _, err) = agview(&tmp.0, &["check", &net]);
    assert_eq!(code, 0, "{err}");
    // The .net and its three textures.
    assert!(
        err.contains("checked 1 file(s): 0 error(s), 0 warning(s)"),
        "{err}"
    );
}

#[test]
fn check_validates_a_net_as_the_other_formats() {
    let tmp = Tmp::new("net-check-bad");
    let dir = package(&tmp);
    let bad = "A\n800\nROADS\n\
TEXTURE 0 textures/bridge.png\nTEXTURE 2 textures/missing.png\n\
ROAD_TYPE 1000 10 25 0\nSEGMENT_DRAPED 0 0 20000 1 0 0 10 1\nSEGMENT_DRAPED 7 0 20000 1 0 0 10 1\n\
SEGMENT_GRADED 1 0 20000 1 0 0 zz 10 0 1\n\
ROAD_DRAPED 1 30 0 0\nROAD_DRAPE_CHOICE 0 2000\nFROBNICATE\nWIGGLE\n";
    let net = write(&dir, "bad.net", bad);
    let (code, _, err) = agview(&tmp.0, &["check", &net]);
    // The broken row is an error; the rest are warnings.
    assert_eq!(code, 1, "{err}");
    let said = |what: &str| err.lines().any(|l| l.contains(what));
    for want in [
        "bad.net:9:32: error: SEGMENT_GRADED: <s1> must be a number, found `zz`; the line is skipped",
        "bad.net:12:1: warning: unknown road network directive `FROBNICATE` ignored (1 more unknown directive line(s) in this file are not reported)",
        "bad.net:5:1: warning: TEXTURE `textures/missing.png` not found",
        "bad.net:7:1: warning: SEGMENT_DRAPED of ROAD_TYPE 1000: texture 0 has poly_os 0",
        "bad.net:8:1: warning: row of ROAD_TYPE 1000: texture 7 does not exist",
        "bad.net:10:1: warning: ROAD_DRAPED 30: the choice at 0 m names ROAD_TYPE 2000",
    ] {
        assert!(said(want), "no `{want}` in:\n{err}");
    }
    assert!(
        err.contains("checked 1 file(s): 1 error(s), 5 warning(s)"),
        "{err}"
    );
}

/// A package's own `.net` and a DSF text tile that uses it, laid out from another folder:
/// the whole path from the DSF's `NETWORK_DEF` to the road types drawn. The street
/// (subtype 30) draws with the `.net`'s type 1000 on the ground and 1010 at level 3
/// (18 m, above the 15 m choice); a subtype the `.net` lacks (77) draws in the plain profile
/// and warns once; the tunnel is counted, not drawn.
#[test]
fn a_dsf_text_tile_lays_its_roads_out_with_its_packages_net() {
    let tmp = Tmp::new("net-document");
    let dir = package(&tmp);
    write(&dir, "roads.net", GOOD);
    let dsf = dir.join("Earth nav data/+47+012/+47+012.txt");
    std::fs::create_dir_all(dsf.parent().unwrap()).unwrap();
    std::fs::write(
        &dsf,
        "A\n800\nDSF2TEXT\nPROPERTY sim/west 12\nPROPERTY sim/south 47\nPROPERTY sim/east 13\n\
PROPERTY sim/north 48\nNETWORK_DEF roads.net\n\
BEGIN_SEGMENT 0 30 1 12.500 47.500 0\nEND_SEGMENT 2 12.501 47.500 0\n\
BEGIN_SEGMENT 0 30 2 12.501 47.500 0\nSHAPE_POINT 12.502 47.500 1\nEND_SEGMENT 3 12.502 47.501 3\n\
BEGIN_SEGMENT 0 77 1 12.500 47.500 0\nEND_SEGMENT 4 12.500 47.501 0\n\
BEGIN_SEGMENT 0 77 4 12.500 47.501 0\nEND_SEGMENT 5 12.500 47.502 0\n\
BEGIN_SEGMENT 0 30 1 12.500 47.500 0\nEND_SEGMENT 6 12.499 47.499 -1\n",
    )
    .unwrap();
    let elsewhere = tmp.0.join("elsewhere");
    std::fs::create_dir_all(&elsewhere).unwrap();
    let (code, out, err) = agview(
        &elsewhere,
        &["layout", &dsf.display().to_string(), "--json"],
    );
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let features = v["features"].as_array().unwrap();
    assert_eq!(features.len(), 5, "{out}");
    assert!(features.iter().all(|f| f["kind"] == "road"), "{out}");
    let looks = v["road_looks"].as_array().unwrap();
    let roads = v["roads"].as_array().unwrap();
    // The tunnel is not drawn.
    assert_eq!(roads.len(), 4, "{out}");
    let look_of = |i: usize| &looks[roads[i]["look"].as_u64().unwrap() as usize];
    assert_eq!(look_of(0)["road_type"], 1000, "{out}");
    assert_eq!(look_of(1)["road_type"], 1010, "{out}");
    // 77 is in the service band of the plain profile.
    assert_eq!(look_of(2)["plain"], "service", "{out}");
    assert_eq!(look_of(3)["plain"], "service", "{out}");
    // The curve is flattened: more than its two ends.
    assert!(roads[1]["points"].as_array().unwrap().len() > 2, "{out}");
    assert_eq!(roads[1]["levels"], serde_json::json!([0, 3]));
    let warnings: Vec<&str> = v["warnings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|w| w.as_str().unwrap())
        .collect();
    let missing = warnings.iter().filter(|w| w.contains("77")).count();
    assert_eq!(
        missing, 1,
        "one warning for the missing subtype: {warnings:#?}"
    );
    assert!(
        warnings.iter().any(|w| w.contains("tunnel")),
        "a note counts the tunnel: {warnings:#?}"
    );
    assert!(
        !warnings.iter().any(|w| w.contains("not found")),
        "the package's .net is found: {warnings:#?}"
    );
}
