//! Tests of the `.net` reader, `choose` and the plain profile.

use super::*;

fn p(src: &str) -> (Result<NetFile, Diagnostic>, Vec<Diagnostic>) {
    let mut w = Vec::new();
    let r = parse(Path::new("roads.net"), src.as_bytes(), &mut w);
    (r, w)
}

fn ok(src: &str) -> (NetFile, Vec<String>) {
    let (r, w) = p(src);
    (r.unwrap(), w.iter().map(ToString::to_string).collect())
}

/// Two textures, a draped city street with a graded curb, a bridge type, and a virtual type
/// choosing between them by height; the listed-only directives of §3.2 among them.
const CITY: &str = "A\n800\nROADS\n\
TEXTURE 3 road.png\nTEXTURE_LIT road_LIT.png\nTEXTURE_NORMAL 1.0 road_NML.png\n\
TEXTURE 0 bridge.png\nONE_SIDED\nSPECULAR 0.5\nCAR_MODEL car.obj\n\
SCALE 1024\n\
ROAD_TYPE 1000 10 25 0 0.5 0.5 0.5\nROAD_CENTER 4\nSHOW_LEVEL 1\nREQUIRE_EVEN 0.3\n\
SEGMENT_DRAPED 0 0 20000 1 0 0 8 512 asphalt\n\
SEGMENT_GRADED 1 0 20000 2 8 0.2 512 10 0.2 1024\n\
SEGMENT_DRAPED 0 20000 40000 1 0 0 8 512\n\
CAR_DRAPED 0 -2 20 0.1 0\nOBJECT_DRAPED DIST lamp.obj 0 0 0 0 30 0 0/0 0/0 0 0\nWIRE 0 20000 0.5 8 0.4\n\
JUNCTION_DRAPED 1\nJUNCTION_COMPOSITE_DRAPED 2\nBONE_DRAPED 0 1\nVERTEX 0 0 0\nTRI 0 1 2\nQUAD 0 1 2 3\n\
ROAD_TYPE 1010 12 25 1 1 0 0\n\
SEGMENT_GRADED 1 0 20000 1 0 0 0 12 0 1024\n\
#VROAD city_street (12.0)\nROAD_DRAPED 1 30 0.1 0.1\n\
ROAD_DRAPE_CHOICE 0 1000\nROAD_DRAPE_CHOICE 10 0\nROAD_DRAPE_CHOICE 15 1010\n\
# VROAD not_a_tag (3)\nROAD_DRAPED 1 31 0.1 0.1\nROAD_DRAPE_CHOICE 0 0\nROAD_DRAPE_CHOICE 5 1010\n";

#[test]
fn reads_every_directive() {
    let (n, w) = ok(CITY);
    assert!(w.is_empty(), "{w:#?}");
    assert!(!n.old_form);
    assert_eq!(n.textures.len(), 2);
    let t0 = &n.textures[0];
    assert_eq!(
        (t0.poly_os, t0.path.as_str(), t0.line),
        (3.0, "road.png", 4)
    );
    assert_eq!(t0.lit.as_deref(), Some("road_LIT.png"));
    assert_eq!(t0.normal.as_deref(), Some("road_NML.png"));
    assert_eq!(
        (n.textures[1].poly_os, n.textures[1].lit.as_ref()),
        (0.0, None)
    );

    let street = &n.road_types[&1000];
    assert_eq!(
        (
            street.width,
            street.length,
            street.texture,
            street.rgb,
            street.center,
            street.line
        ),
        (10.0, 25.0, 0, [0.5; 3], 4.0, 12)
    );
    assert_eq!(street.rows.len(), 3);
    let r = &street.rows[0];
    // x relative to ROAD_CENTER, s over SCALE.
    assert_eq!((r.x, r.s, r.y), ([-4.0, 4.0], [0.0, 0.5], [0.0, 0.0]));
    assert_eq!(
        (r.texture, r.near_lod, r.far_lod, r.t_scale),
        (0, 0.0, 20000.0, 1.0)
    );
    assert_eq!(
        (r.graded, r.surface.as_deref(), r.line),
        (false, Some("asphalt"), 16)
    );
    let curb = &street.rows[1];
    assert!(curb.graded);
    assert_eq!(
        (curb.x, curb.y, curb.s),
        ([4.0, 6.0], [0.2, 0.2], [0.5, 1.0])
    );
    assert_eq!((curb.t_scale, curb.surface.as_ref()), (2.0, None));
    assert_eq!(street.rows[2].near_lod, 20000.0);

    // Without ROAD_CENTER: width / 2.
    let bridge = &n.road_types[&1010];
    assert_eq!((bridge.center, bridge.rows[0].x), (6.0, [-6.0, 6.0]));
    assert_eq!(bridge.rgb, [1.0, 0.0, 0.0]);

    let v = &n.vroads[&30];
    assert_eq!(
        (v.name.as_str(), v.width, v.line),
        ("city_street", Some(12.0), 31)
    );
    assert_eq!(v.choices, vec![(0.0, 1000), (10.0, 0), (15.0, 1010)]);
    // A `# VROAD` (with a space) is a plain comment: no name.
    assert_eq!(
        (n.vroads[&31].name.as_str(), n.vroads[&31].width),
        ("", None)
    );

    let listed: Vec<(&str, usize)> = n.listed.iter().map(|(k, v)| (k.as_str(), *v)).collect();
    assert_eq!(
        listed,
        vec![
            ("BONE_DRAPED", 1),
            ("CAR_DRAPED", 1),
            ("CAR_MODEL", 1),
            ("JUNCTION_COMPOSITE_DRAPED", 1),
            ("JUNCTION_DRAPED", 1),
            ("OBJECT_DRAPED", 1),
            ("ONE_SIDED", 1),
            ("QUAD", 1),
            ("REQUIRE_EVEN", 1),
            ("SHOW_LEVEL", 1),
            ("SPECULAR", 1),
            ("TRI", 1),
            ("VERTEX", 1),
            ("WIRE", 1),
        ]
    );
    assert_eq!(n.listed_total(), 14);
    assert!(validate(Path::new("roads.net"), &n).is_empty());
}

#[test]
fn scale_applies_to_the_rows_after_it_and_defaults_to_one() {
    let (n, w) = ok("A\n800\nROADS\nTEXTURE 1 a.png\nROAD_TYPE 1 8 10 0\n\
SEGMENT_DRAPED 0 0 1000 1 0 0.25 8 0.75\nSCALE 512\nSEGMENT_DRAPED 0 0 1000 1 0 128 8 256\n\
SCALE 0\n");
    let rows = &n.road_types[&1].rows;
    assert_eq!(rows[0].s, [0.25, 0.75]);
    assert_eq!(rows[1].s, [0.25, 0.5]);
    // The ROAD_TYPE without colour is grey.
    assert_eq!(n.road_types[&1].rgb, [0.5; 3]);
    assert_eq!(w.len(), 1, "{w:#?}");
    assert!(
        w[0].starts_with("roads.net:9:7: error: SCALE: <scale> must be greater than 0")
            && w[0].ends_with("; the line is skipped"),
        "{}",
        w[0]
    );
}

#[test]
fn road_center_applies_to_its_own_type_and_rows_after_it() {
    let (n, w) = ok("A\n800\nROADS\nTEXTURE 1 a.png\n\
ROAD_TYPE 1 8 10 0\nROAD_CENTER 0\nSEGMENT_DRAPED 0 0 1000 1 0 0 8 1\n\
ROAD_TYPE 2 8 10 0\nSEGMENT_DRAPED 0 0 1000 1 0 0 8 1\nROAD_CENTER 2\nSEGMENT_DRAPED 0 0 1000 1 0 0 8 1\n");
    assert_eq!(n.road_types[&1].rows[0].x, [0.0, 8.0]);
    let two = &n.road_types[&2];
    // The type before's center does not carry over: width / 2 until its own ROAD_CENTER.
    assert_eq!(two.rows[0].x, [-4.0, 4.0]);
    assert_eq!(two.rows[1].x, [-2.0, 6.0]);
    assert_eq!(two.center, 2.0);
    assert_eq!(w.len(), 1, "{w:#?}");
    assert!(
        w[0].contains("roads.net:10:1: warning: ROAD_CENTER after 1 row(s) of ROAD_TYPE 2"),
        "{}",
        w[0]
    );
}

#[test]
fn choose_picks_by_height() {
    let (n, _) = ok(CITY);
    let id = |c: Choice<'_>| match c {
        Choice::Road(t) => Some(t.id),
        Choice::Nothing => Some(0),
        Choice::Missing => None,
    };
    // On the ground: the first choice whose type is not 0.
    assert_eq!(id(n.choose(30, 0.0)), Some(1000));
    assert_eq!(id(n.choose(30, -3.0)), Some(1000));
    assert_eq!(id(n.choose(30, f32::NAN)), Some(1000));
    // Above it: the last threshold at most the height.
    assert_eq!(id(n.choose(30, 5.0)), Some(1000));
    assert_eq!(id(n.choose(30, 10.0)), Some(0));
    assert_eq!(n.choose(30, 12.0), Choice::Nothing);
    assert_eq!(id(n.choose(30, 15.0)), Some(1010));
    assert_eq!(id(n.choose(30, 200.0)), Some(1010));
    // Type 0 first: on the ground it is skipped; just above, "no road".
    assert_eq!(id(n.choose(31, 0.0)), Some(1010));
    assert_eq!(n.choose(31, 2.0), Choice::Nothing);
    assert_eq!(id(n.choose(31, 6.0)), Some(1010));
    // An unknown subtype, or a real type the file lacks.
    assert_eq!(n.choose(99, 0.0), Choice::Missing);
    let (n, _) = ok(
        "A\n800\nROADS\nROAD_DRAPED 1 5 0 0\nROAD_DRAPE_CHOICE 0 77\n\
ROAD_DRAPED 1 6 0 0\nROAD_DRAPE_CHOICE 0 0\nROAD_DRAPED 1 7 0 0\n",
    );
    assert_eq!(n.choose(5, 0.0), Choice::Missing);
    assert_eq!(n.choose(6, 0.0), Choice::Nothing);
    assert_eq!(n.choose(7, 0.0), Choice::Missing);
    let d: Vec<String> = validate(Path::new("roads.net"), &n)
        .iter()
        .map(ToString::to_string)
        .collect();
    assert!(
        d.iter().any(|d| d.contains(
            "roads.net:4:1: warning: ROAD_DRAPED 5: the choice at 0 m names ROAD_TYPE 77"
        )),
        "{d:#?}"
    );
    assert!(
        d.iter()
            .any(|d| d.contains("roads.net:8:1: warning: ROAD_DRAPED 7 has no ROAD_DRAPE_CHOICE")),
        "{d:#?}"
    );
    assert!(d.iter().any(|d| d.contains("no ROAD_TYPE")), "{d:#?}");
}

#[test]
fn three_argument_road_draped_names_its_id_first() {
    let (n, w) = ok(
        "A\n800\nROADS\n# highway (20.000000)\nROAD_DRAPED\t100 0.20 0.30\n\
ROAD_DRAPE_CHOICE\t   0.0 1000\n",
    );
    assert!(w.is_empty(), "{w:#?}");
    assert_eq!(n.vroads[&100].choices, vec![(0.0, 1000)]);
}

#[test]
fn broken_lines_cost_only_themselves() {
    let (n, w) = ok("A\n800\nROADS\nTEXTURE 1 a.png\n\
ROAD_TYPE 1 8 x 0\nSEGMENT_DRAPED 0 0 1000 1 0 0 8 1\n\
ROAD_TYPE 2 8 10 0\nSEGMENT_DRAPED 0 0 1000 1 0 0 8\nSEGMENT_DRAPED 0 0 1000 1 0 0 8 1\n\
ROAD_DRAPED 1 zz 0 0\nROAD_DRAPE_CHOICE 0 2\n\
ROAD_DRAPED 1 3 0 0\nROAD_DRAPE_CHOICE 0 nope\nROAD_DRAPE_CHOICE 0 2\n\
TEXTURE_LIT\n");
    assert_eq!(
        w,
        vec![
            "roads.net:5:15: error: ROAD_TYPE: <length> must be a number, found `x`; the road type and its rows are skipped",
            "roads.net:8:32: error: SEGMENT_DRAPED: missing argument <s2>; the line is skipped",
            "roads.net:10:15: error: ROAD_DRAPED: <virtual type id> must be a whole number, found `zz`; the virtual type and its choices are skipped",
            "roads.net:13:21: error: ROAD_DRAPE_CHOICE: <road type id> must be a whole number, found `nope`; the line is skipped",
            "roads.net:15:12: error: TEXTURE_LIT: missing argument <texture file>; the line is skipped",
        ]
    );
    // The broken type's row is skipped with it, not given to another type.
    assert_eq!(n.road_types.keys().copied().collect::<Vec<_>>(), vec![2]);
    assert_eq!(n.road_types[&2].rows.len(), 1);
    assert_eq!(n.vroads.keys().copied().collect::<Vec<_>>(), vec![3]);
    assert_eq!(n.vroads[&3].choices, vec![(0.0, 2)]);
}

#[test]
fn rows_and_choices_with_nothing_open_are_errors() {
    let (_, w) = ok(
        "A\n800\nROADS\nSEGMENT_DRAPED 0 0 1 1 0 0 1 1\nROAD_CENTER 3\n\
ROAD_DRAPE_CHOICE 0 1\nTEXTURE_NORMAL n.png\n",
    );
    let kws: Vec<&str> = w
        .iter()
        .map(|d| d.split(": ").nth(2).unwrap_or(""))
        .collect();
    assert_eq!(
        kws,
        vec![
            "SEGMENT_DRAPED before any ROAD_TYPE; the line is skipped",
            "ROAD_CENTER before any ROAD_TYPE; the line is skipped",
            "ROAD_DRAPE_CHOICE before any ROAD_DRAPED; the line is skipped",
            "TEXTURE_NORMAL before any TEXTURE; the line is skipped",
        ],
        "{w:#?}"
    );
}

#[test]
fn an_unknown_directive_warns_once_per_file() {
    let (n, w) = ok("A\n800\nROADS\nFROBNICATE 1\nTEXTURE 1 a.png\nWIGGLE\nFROBNICATE 2\n");
    assert_eq!(n.textures.len(), 1);
    assert_eq!(
        w,
        vec!["roads.net:4:1: warning: unknown road network directive `FROBNICATE` ignored (2 more unknown directive line(s) in this file are not reported)"]
    );
    let (_, w) = ok("A\n800\nROADS\nWIGGLE\n");
    assert!(w[0].ends_with("(further ones are not reported)"), "{w:?}");
}

#[test]
fn duplicates_warn_and_replace() {
    let (n, w) = ok(
        "A\n800\nROADS\nTEXTURE 1 a.png\nROAD_TYPE 1 8 10 0\nROAD_TYPE 1 9 10 0\n\
ROAD_DRAPED 1 4 0 0\nROAD_DRAPED 1 4 0 0\n",
    );
    assert_eq!(n.road_types[&1].width, 9.0);
    assert_eq!(w.len(), 2, "{w:#?}");
    assert!(
        w[0].contains(":6:1: warning: ROAD_TYPE 1 again (first at line 5)"),
        "{}",
        w[0]
    );
    assert!(
        w[1].contains(":8:1: warning: ROAD_DRAPED 4 again (first at line 7)"),
        "{}",
        w[1]
    );
}

#[test]
fn the_old_form_is_read_and_warned_about_once() {
    let (n, w) = ok(
        "A\n800\nROADS\nTEXTURE 2 road.png\nTEXTURE_BRIDGE 0 bridge.png\nSCALE 256\n\
ROAD_TYPE 5 10 30 0 0.3 0.3 0.3\nSEGMENT 0 10000 0 0 0 1 0 256\n\
SEGMENT_HARD 0 10000 0.1 1.5 0 0.2 1.5 64 concrete\nCAR 0 0.25 20 0.1 0\n\
OBJECT lamp.obj 0.1 0 1 25 0\n",
    );
    assert!(n.old_form);
    assert_eq!(w.len(), 1, "{w:#?}");
    assert!(
        w[0].starts_with(
            "roads.net:5:1: warning: `TEXTURE_BRIDGE`: the old XP8/9 road network form"
        ),
        "{}",
        w[0]
    );
    assert_eq!(n.textures.len(), 2);
    let t = &n.road_types[&5];
    assert_eq!(t.rows[0].x, [-5.0, 5.0]);
    assert_eq!((t.rows[0].s, t.rows[0].graded), ([0.0, 1.0], false));
    assert_eq!(t.rows[1].x, [-4.0, -3.0]);
    assert_eq!((t.rows[1].y, t.rows[1].s), ([1.5, 1.5], [0.0, 0.25]));
    assert!(t.rows[1].graded);
    assert_eq!(t.rows[1].surface.as_deref(), Some("concrete"));
    assert_eq!((n.listed["CAR"], n.listed["OBJECT"]), (1, 1));
    // The subtype is the road type id.
    assert!(matches!(n.choose(5, 0.0), Choice::Road(t) if t.id == 5));
    assert_eq!(n.choose(6, 0.0), Choice::Missing);
    assert!(validate(Path::new("roads.net"), &n).is_empty());
}

#[test]
fn validate_names_bad_textures() {
    let (n, w) = ok("A\n800\nROADS\nTEXTURE 0 flat.png\nTEXTURE 2 draped.png\n\
ROAD_TYPE 1 8 10 4\nSEGMENT_DRAPED 0 0 1000 1 0 0 8 1\nSEGMENT_GRADED 1 0 1000 1 0 0 0 8 0 1\n\
SEGMENT_DRAPED 9 0 1000 1 0 0 8 1\nROAD_TYPE 2 8 10 1\nSEGMENT_DRAPED 1 1000 2000 1 0 0 8 1\n");
    assert!(w.is_empty(), "{w:#?}");
    let d: Vec<String> = validate(Path::new("roads.net"), &n)
        .iter()
        .map(ToString::to_string)
        .collect();
    let want = [
        "roads.net:6:1: warning: ROAD_TYPE 1: texture 4 does not exist",
        "roads.net:7:1: warning: SEGMENT_DRAPED of ROAD_TYPE 1: texture 0 has poly_os 0",
        "roads.net:8:1: warning: SEGMENT_GRADED of ROAD_TYPE 1: texture 1 has poly_os 2",
        "roads.net:9:1: warning: row of ROAD_TYPE 1: texture 9 does not exist",
        "roads.net:10:1: warning: ROAD_TYPE 2 has no row with near LOD 0",
    ];
    assert_eq!(d.len(), want.len(), "{d:#?}");
    for (d, w) in d.iter().zip(want) {
        assert!(d.starts_with(w), "{d}\n  wanted {w}");
    }
}

#[test]
fn header_and_bad_bytes() {
    let (r, _) = p("A\n1000\nROADS\n");
    assert!(r.unwrap_err().message.contains("unsupported version 1000"));
    let (r, _) = p("A\n800\nOBJ\n");
    assert!(r.unwrap_err().message.contains("wrong file type"));
    // A stray byte in a directive costs that line; one in a comment costs nothing.
    let mut w = Vec::new();
    let n = parse(
        Path::new("roads.net"),
        b"A\n800\nROADS\n# caf\xe9\nTEXTURE 1 \xff.png\nTEXTURE 1 b.png\n",
        &mut w,
    )
    .unwrap();
    assert_eq!(n.textures.len(), 2, "{w:?}");
    assert!(w.is_empty(), "{w:?}");
    assert_eq!(crate::diag::escaped(&n.textures[0].path), "\\xFF.png");
}

#[test]
fn summary_lists_everything() {
    let (n, _) = ok(CITY);
    let s = summary(&n);
    assert!(
        s.starts_with("road network: 2 texture(s), 2 road type(s), 2 virtual type(s)"),
        "{s}"
    );
    assert!(s.contains("\n  texture 1: bridge.png (poly_os 0)"), "{s}");
    assert!(
        s.contains("\n  road type 1000: 10 m wide, center 4 m, 25 m repeat, 3 row(s)"),
        "{s}"
    );
    assert!(
        s.contains("\n    graded texture 1 LOD 0-20000: x 4 to 6 m, s 0.5 to 1"),
        "{s}"
    );
    assert!(
        s.contains("\n  virtual type 30 city_street: 0 m: 1000, 10 m: 0, 15 m: 1010"),
        "{s}"
    );
    assert!(s.contains("read but not drawn: BONE_DRAPED 1×,"), "{s}");
}

#[test]
fn plain_profile_bands() {
    let band = |s| {
        let r = plain_road(s);
        (r.band, r.width, r.look)
    };
    assert_eq!(band(10), ("primary", 14.0, PlainLook::Asphalt));
    assert_eq!(band(20), ("primary", 10.0, PlainLook::Asphalt));
    assert_eq!(band(30).0, "secondary");
    assert_eq!(band(40).0, "secondary");
    assert_eq!(band(51).0, "residential");
    assert_eq!(band(60).0, "residential");
    assert_eq!(band(70), ("service", 5.0, PlainLook::Asphalt));
    assert_eq!(band(71).0, "service");
    assert_eq!(band(100), ("highway", 14.0, PlainLook::Asphalt));
    assert_eq!(band(111), ("highway", 10.0, PlainLook::Asphalt));
    assert_eq!(band(120).0, "ramp");
    for rail in 151..=153 {
        assert_eq!(band(rail).2, PlainLook::Rail);
    }
    assert_eq!(band(220).2, PlainLook::PowerLine);
    // Unknown: the residential width.
    assert_eq!(
        band(0),
        ("unknown", plain_road(51).width, PlainLook::Asphalt)
    );
    assert_eq!(band(9999).1, PLAIN_UNKNOWN_WIDTH);
    // The bands do not overlap, and every width is positive.
    for (i, a) in PLAIN_BANDS.iter().enumerate() {
        assert!(a.0 <= a.1 && a.3 > 0.0);
        for b in &PLAIN_BANDS[i + 1..] {
            assert!(a.1 < b.0 || b.1 < a.0, "{a:?} overlaps {b:?}");
        }
    }
}

#[test]
fn a_net_is_detected_by_its_extension_and_parsed_as_one() {
    use crate::format::{parse_as, FileKind, Parsed};
    let path = Path::new("1000 roads/roads_EU.NET");
    assert_eq!(
        FileKind::detect(path, b"A\n800\nROADS\n"),
        Some(FileKind::Net)
    );
    let parsed = parse_as(FileKind::Net, path, CITY.as_bytes(), &mut Vec::new()).unwrap();
    let Parsed::Net(n) = &parsed else {
        panic!("{parsed:?}")
    };
    assert_eq!(n.road_types.len(), 2);
    assert!(crate::format::summary(&parsed).starts_with("road network: "));
}
