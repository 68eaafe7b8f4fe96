use std::path::{Path, PathBuf};

use super::*;
use crate::diag::Diagnostic;

fn parse_str(src: &str) -> Result<(Autogen, Vec<Diagnostic>), Diagnostic> {
    let mut w = Vec::new();
    let ag = parse(Path::new("t.ag"), src.as_bytes(), &mut w)?;
    Ok((ag, w))
}

fn err(src: &str) -> String {
    match parse_str(src) {
        Ok(_) => panic!("expected an error for:\n{src}"),
        Err(e) => e.to_string(),
    }
}

const AGP: &str = "A
1000
AG_POINT

TEXTURE ../textures/plaza.png
TEXTURE_SCALE 1024 512
TEXTURE_WIDTH 100
OBJECT house.obj
OBJECT lamp.obj
FACADE brick.fac
VEGETATION trees.for
TILE_LOD 5000
LAYER_GROUP 1 beaches

TILE 0 0 512 512
ROTATION 5
ANCHOR_PT 256 256
GROUND_PT 100 100
CROP_POLY 0 0 0 512 512 512 512 0
OBJ_DRAPED 100 100 90 0
OBJ_GRADED 200 100 0 1 2 4
OBJ_DELTA 300 100 0 2.5 1
OBJ_SCRAPER 300 300 45 0 10 50 5 1 6
FAC 0 9 10 10 10 60 60 60 60 10
FAC_WALLS 0 9 10 10 1 10 60 2
TREE 400 400 0 8 1
TREE_LINE 10 500 500 500 2

TILE 512 0 1024 512
OBJ_DRAPED 600 100 0 0
";

#[test]
fn reads_an_autogen_point() {
    let (ag, w) = parse_str(AGP).unwrap();
    assert!(w.is_empty(), "{w:?}");
    assert_eq!(ag.kind, AutogenKind::Agp);
    assert_eq!(ag.texture_scale, Some([1024.0, 512.0]));
    assert_eq!(ag.meters_per_pixel(), [100.0 / 1024.0; 2]);
    assert_eq!(ag.objects.len(), 2);
    assert_eq!(ag.objects[1].line, 9);
    assert_eq!(ag.tile_lod, Some(5000.0));
    assert_eq!(ag.layer_group, Some(("beaches".into(), 1)));
    assert_eq!(ag.tiles.len(), 2);
    let t = &ag.tiles[0];
    assert_eq!(t.rotation, 1, "ROTATION 5 is one quarter turn");
    assert_eq!(t.anchor, Some([256.0, 256.0]));
    assert_eq!(t.ground, Some([100.0, 100.0]));
    assert_eq!(t.crop_poly.as_ref().unwrap().len(), 4);
    assert_eq!(t.annotations.len(), 8);
    assert_eq!(t.annotations[0].line, 20);
    match &t.annotations[1].kind {
        AnnotationKind::Object {
            index,
            placement,
            show,
            ..
        } => {
            assert_eq!(*index, 1);
            assert_eq!(*placement, ObjPlacement::Graded);
            assert_eq!(*show, Some([2, 4]));
        }
        k => panic!("{k:?}"),
    }
    assert_eq!(
        t.annotations[2].kind,
        AnnotationKind::Object {
            pos: [300.0, 100.0],
            heading: 0.0,
            index: 1,
            placement: ObjPlacement::Delta { offset: 2.5 },
            show: None
        }
    );
    match &t.annotations[3].kind {
        AnnotationKind::Object { placement, .. } => assert_eq!(
            *placement,
            ObjPlacement::Scraper {
                min: 10.0,
                max: 50.0,
                step: 5.0
            }
        ),
        k => panic!("{k:?}"),
    }
    match &t.annotations[5].kind {
        AnnotationKind::Facade { walls, points, .. } => {
            assert_eq!(walls.as_deref(), Some(&[1, 2][..]));
            assert_eq!(points.len(), 2);
        }
        k => panic!("{k:?}"),
    }
    assert_eq!(ag.tiles[1].id, 1);
}

const AGB: &str = "A
1000
AG_BLOCK
TEXTURE block.png
TEXTURE_SCALE 1024 1024
TEXTURE_WIDTH 200
OBJECT house.obj
CROP 1
SUB_GRID
OVERLAP_H 16
CUT_H 0
CUT_H 256
SLOP_H
CUT_H 512
ANTISLOP_H 8
CUT_H 1024
CUT_V 0
CUT_V 300
SLOP_V 20
CUT_V 700
END_CUTS
EDGE_MIN 10 10 1014 690
EDGE_BEST 5 5 1019 695
EDGE_MAX 0 0 1024 700
OBJ_GRADED 600 400 0 0
GROUND_PT_FORMULA 0.5 0 0.5 0
SUB_GRID
CUT_H 0
CUT_H 512
CUT_V 0
CUT_V 512
END_CUTS
DEFINE_SPELLING_S wide 0 1 2
SPELLING_SET 0
WIDTH_RANGE 50 300
FREQUENCY 2
USE_GRID 0
SPELLING_S 0 2
USE_SPELLING_S wide
SPELLING_T 0 1
SPELLING_SET 3
USE_GRID 1
SPELLING_S 0
SPELLING_T 0
";

#[test]
fn reads_an_autogen_block() {
    let (ag, w) = parse_str(AGB).unwrap();
    assert!(w.is_empty(), "{w:?}");
    assert!(ag.crop);
    assert_eq!(ag.grids.len(), 2);
    let g = &ag.grids[0];
    assert_eq!(g.columns.len(), 3);
    // SLOP_H marks the tile whose left edge the cut before it defined.
    assert_eq!(g.columns[0].slop, None);
    assert_eq!(g.columns[1].slop, Some(16.0), "SLOP_H takes OVERLAP_H");
    assert_eq!(g.columns[2].antislop, 8.0);
    assert_eq!(g.columns[2].slop, None);
    assert_eq!(g.rows.len(), 2);
    assert_eq!(g.rows[1].slop, Some(20.0));
    assert_eq!(g.rows[1].size(), 400.0);
    assert_eq!(g.edge_best, Some([5.0, 5.0, 1019.0, 695.0]));
    assert_eq!(g.annotations.len(), 1);
    assert_eq!(g.ground_formulas[0].after, 0);
    let s = &ag.spelling_sets[0];
    assert_eq!(s.frequency, 2.0);
    assert_eq!(s.width_range, Some([50.0, 300.0]));
    assert_eq!(s.spellings_s.len(), 2);
    assert_eq!(s.spellings_s[1].indices, vec![0, 1, 2]);
    assert_eq!(s.spellings_s[1].name.as_deref(), Some("wide"));
    assert_eq!(ag.spelling_sets[1].grid, 1);
}

const AGS: &str = "A
1000
AG_STRING
TEXTURE s.png
TEXTURE_SCALE 512 512
TEXTURE_WIDTH 64
OBJECT house.obj
CREASE_ANGLE 20 40
FILL_LAYER 2
SHARE_Y
TILE_ID 10
TILE 0 0 128 128
STOP_PT 64 100
TILE_ID 11
TILE 128 0 256 128
PIVOT_LEAD_PT 250 10
PIVOT_TRAIL_PT 130 10
TILE_ID 12
TILE 256 0 384 128
OBJ_GRADED 300 60 0 0
GROUP 1 10 11
CORNER -120 -60 10
CORNER_LEN 10 100 -100 -80 10 100 1 10 11 12
CORNER_ORDER 2 1 0
PRIORITY_MARKER_CORNER
CORNER_PAIR -100 -80 5 20 -100 -80 0 11 12
ATOMIC_SPELLING_CORNER 0 50 -95 -85 0 50 0 12
SPELLING 10 11
PRIORITY_MARKER
ATOMIC_SPELLING 20 200 1 11 12
CAPS 12
CAPS 10
";

#[test]
fn reads_an_autogen_string() {
    let (ag, w) = parse_str(AGS).unwrap();
    assert!(w.is_empty(), "{w:?}");
    let s = ag.string.as_ref().unwrap();
    assert_eq!((s.crease_left, s.crease_right), (20.0, 40.0));
    assert_eq!(s.fill_layer, Some(2));
    assert!(s.share_y);
    assert_eq!(
        ag.tiles.iter().map(|t| t.id).collect::<Vec<_>>(),
        [10, 11, 12]
    );
    assert_eq!(ag.tiles[0].stop_points, vec![[64.0, 100.0]]);
    assert_eq!(ag.tiles[1].pivot_lead, Some([250.0, 10.0]));
    assert_eq!(s.corners.len(), 4);
    assert_eq!(
        s.corners[0].order,
        [1, 0, 2],
        "default: middle, preceding, trailing"
    );
    assert_eq!(s.corners[1].order, [2, 1, 0]);
    assert_eq!(s.corners[1].len1, Some([10.0, 100.0]));
    assert_eq!(s.corners[1].priority, 0);
    assert_eq!(s.corners[2].priority, 1);
    assert_eq!(s.corners[2].pair_len, Some([5.0, 20.0]));
    assert_eq!(s.corners[3].kind, CornerKind::AtomicSpellingCorner);
    assert_eq!(s.spellings[0].priority, 0);
    assert_eq!(
        s.spellings[1].atomic,
        Some(AtomicRule {
            length: [20.0, 200.0],
            group: 1
        })
    );
    assert_eq!(s.caps, vec![12, 10]);
    assert!(s.in_group(1, 11));
    assert!(!s.in_group(1, 12));
    assert!(s.in_group(0, 12));
}

#[test]
fn header_errors() {
    assert_eq!(err(""), "t.ag:1:1: error: empty file: expected the header `A` or `I`, then 1000 AG_POINT or 1000 AG_BLOCK or 1000 AG_STRING");
    assert!(err("1000\nAG_POINT\n").contains("t.ag:1:1: error: missing header"));
    assert!(
        err("A\n1000\nAG_WHATEVER\n").contains("t.ag:3:1: error: wrong file type `AG_WHATEVER`")
    );
    assert!(err("A\n900\nAG_POINT\n").contains("unsupported version 900"));
    assert!(err("A\n1000\n").contains("truncated header"));
}

#[test]
fn truncated_files() {
    // Cut the point file at every line: never a panic, always a clean error or a model.
    let lines: Vec<&str> = AGP.lines().collect();
    for n in 0..lines.len() {
        let src = lines[..n].join("\n");
        let _ = parse_str(&src);
    }
    assert!(
        err("A\n1000\nAG_POINT\nTEXTURE_SCALE 10 10\nTEXTURE_WIDTH 10\n")
            .contains("at least one TILE")
    );
    assert!(err("A\n1000\nAG_POINT\nTEXTURE_WIDTH 10\nTILE 0 0 1 1\n")
        .contains("TEXTURE_SCALE is required"));
}

#[test]
fn names_that_are_not_utf8_keep_their_bytes() {
    let src = b"A\n1000\nAG_POINT\nTEXTURE \xc3\x28.png # \xe9\nTEXTURE_SCALE 10 10\n\
TEXTURE_WIDTH 10\nTILE 0 0 1 1\n";
    let mut w = Vec::new();
    let ag = parse(Path::new("t.ag"), src, &mut w).unwrap();
    assert!(w.is_empty(), "{w:?}");
    let name = &ag.texture.unwrap().path;
    assert_eq!(crate::diag::escaped(name), "\\xC3(.png");
    // A Linux path is the bytes; a Windows one the code page's characters.
    let want = if cfg!(unix) {
        crate::diag::text_path("\\xC3(.png")
    } else {
        PathBuf::from("\u{c3}(.png")
    };
    assert_eq!(crate::format::text::name_path(name), want);
    #[cfg(unix)]
    assert_eq!(want.as_os_str().as_encoded_bytes(), b"\xc3\x28.png");
}

fn agp_with(body: &str) -> String {
    format!("A\n1000\nAG_POINT\nTEXTURE_SCALE 512 512\nTEXTURE_WIDTH 50\nOBJECT a.obj\nFACADE f.fac\nTILE 0 0 512 512\n{body}\n")
}

#[test]
fn argument_errors_name_line_and_column() {
    assert_eq!(
        err(&agp_with("OBJ_DRAPED 10 10 0")),
        "t.ag:9:19: error: OBJ_DRAPED: missing argument <index>"
    );
    assert_eq!(
        err(&agp_with("OBJ_DRAPED 10 ten 0 0")),
        "t.ag:9:15: error: OBJ_DRAPED: <pixel y> must be a number, found `ten`"
    );
    assert_eq!(
        err(&agp_with("OBJ_DRAPED 10 NaN 0 0")),
        "t.ag:9:15: error: OBJ_DRAPED: <pixel y> must be a finite number, found `NaN`"
    );
    assert_eq!(
        err(&agp_with("TREE 10 10 0 inf 1")),
        "t.ag:9:14: error: TREE: <width> must be a finite number, found `inf`"
    );
    assert!(err(&agp_with("OBJ_GRADED 1 1 0 0 4 2")).contains("lo <= hi"));
    assert!(err(&agp_with("OBJ_GRADED 1 1 0 0 0 2")).contains("outside 1..=6"));
    assert_eq!(
        err(&agp_with("OBJ_DRAPED 10 10 0 3")),
        "t.ag:9:20: error: index 3 names no OBJECT: the file loads 1 OBJECT file(s) (indices from 0)"
    );
    assert!(err(&agp_with("FAC 2 10 0 0 5 5")).contains("names no FACADE"));
    assert!(err(&agp_with("CROP_POLY 0 0 1 1")).contains("at least 3 point pairs"));
    assert!(err(&agp_with("TILE 10 10 5 20")).contains("empty rectangle"));
}

#[test]
fn warnings_for_what_can_be_skipped() {
    let (_, w) = parse_str(&agp_with(
        "FROBNICATE 1\nNO_BLEND 0.5\nOBJ_DRAPED 900 10 0 0\nOBJ_DRAPED 1 1 0 0 1 2 extra\nCUT_H 5\nTREE 1 1 0 5 1",
    ))
    .unwrap();
    let msgs: Vec<String> = w.iter().map(|d| d.to_string()).collect();
    assert_eq!(
        msgs[0],
        "t.ag:9:1: warning: unknown directive `FROBNICATE` ignored"
    );
    assert!(msgs[1]
        .starts_with("t.ag:11:1: warning: OBJ_DRAPED: point (900, 10) lies outside its tile"));
    assert_eq!(
        msgs[2],
        "t.ag:12:24: warning: OBJ_DRAPED: unexpected extra argument `extra` ignored"
    );
    assert!(msgs[3].contains("CUT_H applies to AG_BLOCK only"));
    assert!(msgs[4].contains("no VEGETATION"), "{msgs:#?}");
    assert_eq!(msgs.len(), 5, "{msgs:#?}");
}

fn agb(body: &str) -> String {
    format!("A\n1000\nAG_BLOCK\nTEXTURE_SCALE 512 512\nTEXTURE_WIDTH 50\n{body}\n")
}

const GRID: &str = "SUB_GRID\nCUT_H 0\nCUT_H 100\nCUT_H 200\nCUT_V 0\nCUT_V 100\nEND_CUTS";

#[test]
fn block_structure_errors() {
    assert_eq!(
        err(&agb("CUT_H 0\nCUT_H 100\nCUT_H 50")),
        "t.ag:8:7: error: CUT_H 50 is out of order: cuts must increase (previous CUT_H 100 on line 7)"
    );
    assert!(err(&agb("SUB_GRID\nCUT_H 0\nCUT_H 1\nCUT_V 0\nCUT_V 1\nSPELLING_SET 0"))
        .contains("t.ag:11:1: error: END_CUTS missing: the grid started on line 6 is still open at SPELLING_SET"));
    assert!(err(&agb("SUB_GRID\nCUT_H 0\nCUT_H 1\nCUT_V 0\nCUT_V 1"))
        .contains("t.ag:6:1: error: END_CUTS missing: the grid started on line 6 is never closed"));
    assert!(err(&agb("SUB_GRID\nCUT_H 0\nCUT_V 0\nCUT_V 1\nEND_CUTS"))
        .contains("a grid needs at least two CUT_H lines, found 1"));
    assert!(err(&agb(
        "SUB_GRID\nCUT_H 0\nCUT_H 5\nSLOP_H\nCUT_V 0\nCUT_V 1\nEND_CUTS"
    ))
    .contains("tile properties must come before the last cut"));
    assert!(err(&agb("SLOP_H")).contains("SLOP_H must follow a CUT_H"));
    assert!(err(&agb(
        "SUB_GRID\nCUT_H 0\nCUT_H 5\nCUT_V 0\nOBJ_DRAPED 1 1 0 0"
    ))
    .contains("annotations of a grid must come after its END_CUTS"));
    assert!(err(&agb("TILE 0 0 1 1")).contains("TILE is not used in an AG_BLOCK"));
    assert!(err(&agb(GRID)).contains("at least one SPELLING_SET"));
}

#[test]
fn spelling_errors() {
    assert_eq!(
        err(&agb(&format!(
            "{GRID}\nSPELLING_SET 0\nSPELLING_S 0 5\nSPELLING_T 0"
        ))),
        "t.ag:14:14: error: spelling names column 5, but grid 0 has 2 columns (indices from 0)"
    );
    assert_eq!(
        err(&agb(&format!(
            "{GRID}\nSPELLING_SET 0\nSPELLING_S 0\nSPELLING_T 1"
        ))),
        "t.ag:15:12: error: spelling names row 1, but grid 0 has 1 rows (indices from 0)"
    );
    assert_eq!(
        err(&agb(&format!("{GRID}\nSPELLING_SET 0\nUSE_SPELLING_S nope"))),
        "t.ag:14:16: error: USE_SPELLING_S: no spelling named `nope` (define it first with DEFINE_SPELLING_S)"
    );
    assert_eq!(
        err(&agb(&format!("{GRID}\nSPELLING_SET 0\nUSE_GRID 3\nSPELLING_S 0\nSPELLING_T 0"))),
        "t.ag:14:10: error: USE_GRID 3 is past the last grid: the file defines 1 grid(s) (indices from 0)"
    );
    assert!(err(&agb(&format!("{GRID}\nSPELLING_SET 0\nSPELLING_T 0")))
        .contains("t.ag:13:1: error: SPELLING_SET 0 has no SPELLING_S"));
    assert!(err(&agb(&format!("{GRID}\nSPELLING_SET 300"))).contains("outside 0..=255"));
    assert!(err(&agb(&format!("{GRID}\nWIDTH_RANGE 1 2"))).contains("must follow a SPELLING_SET"));
    assert!(
        err(&agb(&format!("{GRID}\nSPELLING_SET 0\nHEIGHT_RANGE 50 10")))
            .contains("range is empty")
    );
    // The lower-case spelling of the spec's USE_SPELLING_t is accepted.
    let ok = agb(&format!(
        "{GRID}\nDEFINE_SPELLING_T r 0\nSPELLING_SET 0\nSPELLING_S 1 0\nUSE_SPELLING_t r"
    ));
    let (ag, _) = parse_str(&ok).unwrap();
    assert_eq!(ag.spelling_sets[0].spellings_t[0].indices, vec![0]);
}

#[test]
fn a_spelling_name_defined_twice_warns_and_the_later_wins() {
    let src = agb(&format!(
        "{GRID}\nDEFINE_SPELLING_S w 0\nDEFINE_SPELLING_S w 1 0\nDEFINE_SPELLING_T w 0\nSPELLING_SET 0\nUSE_SPELLING_S w\nUSE_SPELLING_T w"
    ));
    let (ag, w) = parse_str(&src).unwrap();
    let w: Vec<String> = w.iter().map(|d| d.to_string()).collect();
    assert_eq!(
        w.len(),
        1,
        "one name per direction: S twice warns, T once does not: {w:?}"
    );
    assert!(
        w[0].contains("DEFINE_SPELLING_S: `w` is already defined on line"),
        "{w:?}"
    );
    assert_eq!(ag.spelling_sets[0].spellings_s[0].indices, vec![1, 0]);
}

fn ags(body: &str) -> String {
    format!("A\n1000\nAG_STRING\nTEXTURE_SCALE 512 512\nTEXTURE_WIDTH 50\nTILE 0 0 10 10\nTILE 10 0 20 10\n{body}\n")
}

/// The spec: a tile without `TILE_ID` gets its index in file order. An explicit id equal to
/// an implicit one is a warning naming both lines, whichever comes first; rules naming the
/// id take the first tile.
#[test]
fn tile_id_collisions_name_both_lines() {
    // Tiles on lines 6 (id 0) and 7 (id 1) are implicit; line 9's TILE_ID 1 collides.
    let (ag, w) = parse_str(&ags("TILE_ID 1\nTILE 20 0 30 10\nSPELLING 1")).unwrap();
    assert_eq!(
        ag.tiles.iter().map(|t| t.id).collect::<Vec<_>>(),
        vec![0, 1, 1]
    );
    assert_eq!(w.len(), 1, "{w:?}");
    let msg = w[0].to_string();
    assert!(
        msg.starts_with("t.ag:8:")
            && msg.contains("implicit id of the tile on line 7")
            && msg.contains("line 9"),
        "{msg}"
    );
    // The other way round: an explicit id first, then a tile whose index is that id.
    let src = "A\n1000\nAG_STRING\nTEXTURE_SCALE 512 512\nTEXTURE_WIDTH 50\nTILE_ID 1\nTILE 0 0 10 10\nTILE 10 0 20 10\n";
    let (ag, w) = parse_str(src).unwrap();
    assert_eq!(
        ag.tiles.iter().map(|t| t.id).collect::<Vec<_>>(),
        vec![1, 1]
    );
    let w: Vec<_> = w.iter().filter(|d| d.message.contains("TILE_ID")).collect();
    assert_eq!(w.len(), 1, "{w:?}");
    let msg = w[0].to_string();
    assert!(
        msg.starts_with("t.ag:8:") && msg.contains("TILE_ID of the tile on line 7"),
        "{msg}"
    );
}

#[test]
fn string_rule_errors() {
    assert_eq!(
        err(&ags("SPELLING 0 1 7")),
        "t.ag:8:14: error: spelling names tile 7, but no tile has that id (TILE_ID, or the tile's index in file order)"
    );
    assert!(err(&ags("CORNER -100 -80 0 1")).contains("one tile or a three-tile"));
    assert!(err(&ags("CORNER -100 -80 9")).contains("corner rule names tile 9"));
    assert!(err(&ags("CAPS 4")).contains("CAPS names tile 4"));
    assert!(err(&ags("CORNER -100 -80 0\nCORNER_ORDER 0 1 2"))
        .contains("applies only to 3-tile corners"));
    assert!(err(&ags("CORNER -100 -80 0 1 0\nCORNER_ORDER 0 0 2")).contains("0, 1 and 2 once each"));
    assert!(err(&ags("GROUP 0 1")).contains("positive integer"));
    // An explicit id equal to an implicit one is a warning (see the test above).
    let (_, w) = parse_str(&ags("TILE_ID 0\nTILE 0 0 1 1\nSPELLING 0")).unwrap();
    assert!(
        w[0].to_string()
            .contains("implicit id of the tile on line 6"),
        "{w:?}"
    );
    assert!(
        err(&ags("TILE_ID 7\nTILE 0 0 1 1\nTILE_ID 7\nTILE 0 0 1 1"))
            .contains("TILE_ID 7 is already used by the tile on line 9")
    );
    assert!(err(&ags("CORNER -80 -100 0")).contains("range is empty"));
    let (_, w) = parse_str(&ags("SPELLING 0\nATOMIC_SPELLING 0 10 5 1")).unwrap();
    assert!(w[0].to_string().contains("group 5 is not defined"), "{w:?}");
}

#[test]
fn random_mutations_never_panic() {
    let mut seed = 0x9E37_79B9_7F4A_7C15u64;
    let mut next = || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    for base in [AGP, AGB, AGS] {
        for _ in 0..1500 {
            let mut b = base.as_bytes().to_vec();
            for _ in 0..(next() % 4 + 1) {
                if b.is_empty() {
                    break;
                }
                let i = (next() % b.len() as u64) as usize;
                match next() % 4 {
                    0 => b[i] = (next() % 256) as u8,
                    1 => {
                        b.remove(i);
                    }
                    2 => b.insert(i, b" -.9e0x#\n"[(next() % 9) as usize]),
                    _ => b.truncate(i),
                }
            }
            let _ = parse(Path::new("m"), &b, &mut Vec::new());
        }
    }
}

/// An annotation may name an OBJECT or FACADE declared further down the file: indices are
/// checked once the whole file is read, and the first one still out of range is the error.
#[test]
fn art_declared_after_its_annotation_counts() {
    let ok = agp_with("OBJ_DRAPED 10 10 0 1\nFAC 1 10 0 0 5 5\nOBJECT b.obj\nFACADE g.fac");
    let (ag, _) = parse_str(&ok).expect("indices resolve at the end of the file");
    assert_eq!(ag.objects.len(), 2);
    assert_eq!(ag.facades.len(), 2);
    let bad = agp_with("OBJ_DRAPED 10 10 0 2\nOBJ_DRAPED 10 10 0 3\nOBJECT b.obj");
    assert_eq!(
        err(&bad),
        "t.ag:9:20: error: index 2 names no OBJECT: the file loads 2 OBJECT file(s) (indices from 0)"
    );
}

#[test]
fn a_texture_lit_without_a_path_is_a_warning_and_the_rest_is_read() {
    let src = AGP.replace(
        "TEXTURE_SCALE 1024 512",
        "TEXTURE_LIT\nTEXTURE_SCALE 1024 512",
    );
    let (ag, w) = parse_str(&src).expect("the asset is still read");
    assert!(ag.lit_texture().is_none());
    assert_eq!(ag.texture_scale, Some([1024.0, 512.0]));
    let msg = w
        .iter()
        .map(|d| d.to_string())
        .collect::<Vec<_>>()
        .join("\n");
    assert!(
        msg.contains("t.ag:6:12: warning: TEXTURE_LIT: missing argument <path>; ignored"),
        "{msg}"
    );
    let src = AGP.replace(
        "TEXTURE_SCALE 1024 512",
        "TEXTURE_LIT ../textures/plaza_LIT.png\nTEXTURE_SCALE 1024 512",
    );
    let (ag, _) = parse_str(&src).unwrap();
    assert_eq!(
        &*ag.lit_texture().unwrap().path,
        "../textures/plaza_LIT.png"
    );
}
