//! XP12 facades in packages laid out as authors publish them (issue 34, item 4): 2-point
//! axial hangars placed by a DSF, and a jetway placed by its `apt.dat` row, through the
//! `agview` binary as a user runs it.

mod common;
use common::{agview, hangar_package, jetway_package, slashed, Tmp};

fn json(out: &str) -> serde_json::Value {
    serde_json::from_str(out).unwrap_or_else(|e| panic!("{e}: {out}"))
}

fn length(footprint: &serde_json::Value) -> f64 {
    let p: Vec<[f64; 2]> = serde_json::from_value(footprint.clone()).unwrap();
    ((p[1][0] - p[0][0]).powi(2) + (p[1][1] - p[0][1]).powi(2)).sqrt()
}

#[test]
fn two_point_hangars_follow_their_points_and_warn_with_more() {
    let tmp = Tmp::new("xp12-hangars");
    let dsf = hangar_package(&tmp.0, true);
    let dsf = dsf.display().to_string();
    let (code, out, err) = agview(&tmp.0, &["layout", &dsf, "--json"]);
    assert_eq!(code, 0, "{err}");
    let v = json(&out);
    let facades = v["facades"].as_array().unwrap();
    assert_eq!(facades.len(), 3);
    // The length is the distance between the two points.
    assert!((length(&facades[0]["footprint"]) - 20.0).abs() < 0.05);
    let l1 = length(&facades[1]["footprint"]);
    assert!((l1 - 40.0).abs() < 0.05, "{l1} {}", facades[1]);
    for f in &v["features"].as_array().unwrap()[..2] {
        assert!(
            slashed(f["resolved"].as_str().unwrap()).ends_with("Hangars/objects/hangar.fac"),
            "{f}"
        );
    }
    // The third is placed with three points: a located warning, and it is still drawn.
    let warned: Vec<&str> = err
        .lines()
        .filter(|l| l.contains("2-point axial facade"))
        .collect();
    assert_eq!(warned.len(), 1, "{err}");
    assert!(
        slashed(warned[0]).contains("+47+008.txt:21:1: warning: objects/hangar.fac: a 2-point axial facade takes exactly two points, its front and its back; this one has 3, so only its first two are drawn"),
        "{}",
        warned[0]
    );
    assert_eq!(v["features"][2]["stats"]["facades"], 1);
}

#[test]
fn dump_says_a_facade_is_axial_and_by_which_rule() {
    let tmp = Tmp::new("xp12-dump");
    hangar_package(&tmp.0, false);
    let fac = tmp
        .0
        .join("Hangars/objects/hangar.fac")
        .display()
        .to_string();
    let (code, out, err) = agview(&tmp.0, &["dump", &fac]);
    assert_eq!(code, 0, "{err}");
    let v = json(&out);
    assert_eq!(v["axial"]["width"], 12.0);
    assert!(
        v["axial"]["rule"]
            .as_str()
            .unwrap()
            .starts_with("UNCONFIRMED"),
        "{out}"
    );
    let (_, out, _) = agview(&tmp.0, &["dump", &fac, "--summary"]);
    assert!(
        out.contains("2-point axial, 12 m wide (UNCONFIRMED"),
        "{out}"
    );
}

#[test]
fn a_jetway_stands_parked_where_its_apt_dat_row_puts_it() {
    let tmp = Tmp::new("xp12-jetway");
    let apt = jetway_package(&tmp.0, true).display().to_string();
    let (code, out, err) = agview(&tmp.0, &["layout", &apt, "--json"]);
    assert_eq!(code, 0, "{err}");
    let v = json(&out);
    let features = v["features"].as_array().unwrap();
    assert_eq!(features.len(), 2, "{out}");
    // The custom jetway: its 1501 names the tunnel object, and the package's .fac whose
    // #tunnel names it is the facade.
    let f = &features[0];
    assert_eq!(f["kind"], "fac");
    assert_eq!(f["asset"], "objects/jetway.fac");
    assert!(
        slashed(f["source"].as_str().unwrap()).ends_with("apt.dat:5"),
        "{f}"
    );
    let j = &v["facades"][0];
    // Its tunnel wall (size 1: wall 1) then its cabin wall (2).
    assert_eq!(j["walls"], serde_json::json!([1, 2]));
    let p: Vec<[f64; 2]> = serde_json::from_value(j["footprint"].clone()).unwrap();
    assert_eq!(p.len(), 3);
    let d = |a: [f64; 2], b: [f64; 2]| ((b[0] - a[0]).powi(2) + (b[1] - a[1]).powi(2)).sqrt();
    let bearing = |a: [f64; 2], b: [f64; 2]| {
        (b[0] - a[0])
            .atan2(b[1] - a[1])
            .to_degrees()
            .rem_euclid(360.0)
    };
    // The tunnel: 18 m toward 60°; the cab node 5 m toward 330°.
    assert!((d(p[0], p[1]) - 18.0).abs() < 0.05, "{p:?}");
    assert!((bearing(p[0], p[1]) - 60.0).abs() < 0.2, "{p:?}");
    assert!((d(p[1], p[2]) - 5.0).abs() < 0.05, "{p:?}");
    assert!((bearing(p[1], p[2]) - 330.0).abs() < 0.2, "{p:?}");
    // The default jetway is missing: a warning naming it, and a placeholder where it is.
    assert_eq!(
        features[1]["asset"],
        "lib/airport/Ramp_Equipment/Jetways/Jetway_1_glass.fac"
    );
    assert!(features[1]["resolved"].is_null());
    assert_eq!(features[1]["stats"]["facades"], 1);
    assert!(
        err.contains("Jetway_1_glass.fac") && err.contains("placeholder"),
        "{err}"
    );
    // check: the same, and nothing is an error.
    let (code, out, err) = agview(&tmp.0, &["check", &apt]);
    assert_eq!(code, 0, "{out}{err}");
}

#[test]
fn a_1501_naming_no_facade_warns_at_its_line_and_uses_the_default() {
    let tmp = Tmp::new("xp12-jetway-1501");
    let apt = jetway_package(&tmp.0, false);
    let text = std::fs::read_to_string(&apt).unwrap();
    std::fs::write(&apt, text.replace("jw_tunnel_1.obj", "jw_gone.obj")).unwrap();
    let apt = apt.display().to_string();
    let (code, out, err) = agview(&tmp.0, &["layout", &apt, "--json"]);
    assert_eq!(code, 0, "{err}");
    assert!(
        slashed(&err).contains("apt.dat:6:1: warning: 1501 `objects/jw_gone.obj`: no .fac of this package has a #tunnel naming it; drawn with the default facade of style 0"),
        "{err}"
    );
    assert_eq!(
        json(&out)["features"][0]["asset"],
        "lib/airport/Ramp_Equipment/Jetways/Jetway_1_glass.fac"
    );
}
