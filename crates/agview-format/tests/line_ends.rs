//! Every text file agview reads reads the same whatever its line ends: Unix `\n`, Windows
//! `\r\n` or classic Mac `\r`, as X-Plane's scanner reads them (`agview_core::lines`). For
//! each kind, the Windows and Mac forms of a file give the same result and the same
//! warnings as the Unix form, and a broken file the same error at the same line and column.
//!
//! The Unix forms are the sample scenery's files where it has one of the kind, else small
//! files written here; [`with_line_ends`] alone makes the other forms.

use std::path::{Path, PathBuf};

use agview_core::diag::{Diagnostic, Location};
use agview_core::lines::with_line_ends;
use agview_format::format::{self, apt, lights_txt, FileKind};

/// The three ways a file's lines end.
const ENDS: [(&str, &str); 3] = [("LF", "\n"), ("CRLF", "\r\n"), ("CR", "\r")];

fn sample(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../sample_scenery")
        .join(rel)
}

/// One kind of file: where it lives (its name picks the reader), a good text with Unix line
/// ends, and the edit that breaks it (a text replaced once).
struct Case {
    path: PathBuf,
    good: String,
    breaks: (&'static str, &'static str),
}

impl Case {
    fn sample(rel: &str, breaks: (&'static str, &'static str)) -> Case {
        let path = sample(rel);
        let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{rel}: {e}"));
        Case {
            path,
            good: with_line_ends(&text, "\n"),
            breaks,
        }
    }

    fn inline(name: &str, good: &str, breaks: (&'static str, &'static str)) -> Case {
        Case {
            path: std::env::temp_dir().join("agview-line-ends").join(name),
            good: good.to_string(),
            breaks,
        }
    }

    fn bad(&self) -> String {
        let (from, to) = self.breaks;
        assert!(
            self.good.contains(from),
            "{}: no `{from}` to break",
            self.path.display()
        );
        self.good.replacen(from, to, 1)
    }
}

/// What reading a text gave: the file kind, the result (as JSON, which compares maps by
/// content) or the error, and the warnings, all as the user would see them.
#[derive(Debug, PartialEq)]
struct Outcome {
    kind: Option<FileKind>,
    result: Result<serde_json::Value, String>,
    warnings: Vec<String>,
}

fn read(path: &Path, text: &str) -> (Outcome, Vec<Diagnostic>) {
    let kind = FileKind::detect(path, text.as_bytes());
    let mut warnings = Vec::new();
    let parsed = format::parse_as(
        kind.unwrap_or_else(|| panic!("{}: no kind", path.display())),
        path,
        text.as_bytes(),
        &mut warnings,
    );
    let mut said = warnings.clone();
    let result = match parsed {
        Ok(p) => Ok(serde_json::to_value(&p).unwrap()),
        Err(e) => {
            said.push(e.clone());
            Err(e.to_string())
        }
    };
    let warnings = warnings.iter().map(ToString::to_string).collect();
    (
        Outcome {
            kind,
            result,
            warnings,
        },
        said,
    )
}

fn cases() -> Vec<Case> {
    vec![
        Case::sample(
            "autogen/plaza.agp",
            ("TEXTURE_SCALE 1024 512", "TEXTURE_SCALE 1024 x512"),
        ),
        Case::sample(
            "autogen/two_formulas.agb",
            ("TEXTURE_SCALE 1024 512", "TEXTURE_SCALE 1024 x512"),
        ),
        Case::sample(
            "autogen/lakeside.ags",
            ("CREASING_ANGLE 25 35", "CREASING_ANGLE 25 far"),
        ),
        Case::sample(
            "objects/kiosk.obj",
            ("POINT_COUNTS 108 0 0 156", "POINT_COUNTS 108 0 zz 156"),
        ),
        Case::sample(
            "facades/brick.fac",
            ("TEX_SIZE 512 512", "TEX_SIZE 512 big"),
        ),
        Case::sample("forests/trees.for", ("SPACING 10 10", "SPACING 10 ten")),
        Case::sample(
            "library.txt",
            (
                "EXPORT agview/autogen/plaza.agp        autogen/plaza.agp",
                "EXPORT",
            ),
        ),
        Case::sample(
            "polygons/partial_block.txt",
            (
                "POLYGON_POINT 8.14733979 47.89500000",
                "POLYGON_POINT 8.14733979 north",
            ),
        ),
        Case::sample(
            "polygons/partial_block.geojson",
            ("\"param\": 513", "\"param\": NaN"),
        ),
        // A string may not run over a line end, whichever it is.
        Case::sample(
            "polygons/lakeside.geojson",
            ("\"type\": \"Polygon\"", "\"type\": \"Poly\ngon\""),
        ),
        Case::sample(
            "partial_block/earth.wed.xml",
            (
                "<hierarchy name=\"selection\"/>",
                "<hierarchy name=selection/>",
            ),
        ),
        Case::sample(
            "earth.wed.xml",
            (
                "class=\"WED_KeyObjects\" id=\"3\"",
                "class=\"WED_KeyObjects\" id=\"three\"",
            ),
        ),
        Case::inline(
            "apron.pol",
            "A\n850\nDRAPED_POLYGON\n\n# an apron\nTEXTURE apron.png\nSCALE 25 50\n\
             LAYER_GROUP beaches 1\n\nNO_ALPHA\n",
            ("SCALE 25 50", "SCALE 25 zero"),
        ),
        Case::inline(
            "edge.lin",
            "A\n850\nLINE_PAINT\n# a taxiway edge\nTEXTURE lines.png\nSCALE 20 40\n\
             TEX_WIDTH 512\n\nS_OFFSET 0 10 20 30\nS_OFFSET 1 40 50 60\n\
             START_CAP 0 10 20 30 0 64\n",
            ("S_OFFSET 1 40 50 60", "S_OFFSET 1 40 x 60"),
        ),
        Case::inline(
            "fence.str",
            "A\n850\nOBJECT_STRING\n\nOFFSET -1.5\nOBJECT 0 0 posts/a.obj\n\
             OBJECT 10 20 lib/b post.obj\n",
            ("OBJECT 10 20", "OBJECT 10 x"),
        ),
        Case::inline(
            "apt.dat",
            apt::TEST_AIRPORT,
            ("100 30.00 1 215", "100 30.00 x 215"),
        ),
    ]
}

/// True when some diagnostic points past the first line and column, so that a wrong count
/// of lines or columns would show.
fn points_inside(said: &[Diagnostic]) -> bool {
    said.iter().any(|d| match d.location {
        Location::Text { line, col } => line > 1 && col > 1,
        _ => false,
    })
}

#[test]
fn every_text_format_reads_the_same_whatever_its_line_ends() {
    for case in cases() {
        let name = case.path.display().to_string();
        let (good, said) = read(&case.path, &case.good);
        assert!(good.result.is_ok(), "{name}: {:?}", good.result);
        assert!(!said.iter().any(Diagnostic::is_error), "{name}: {said:?}");
        let (bad, said) = read(&case.path, &case.bad());
        assert!(
            points_inside(&said),
            "{name}: the broken form says nothing at a line and column: {said:?}"
        );
        for (end_name, end) in ENDS {
            let got = read(&case.path, &with_line_ends(&case.good, end)).0;
            assert_eq!(got, good, "{name} with {end_name} line ends");
            let got = read(&case.path, &with_line_ends(&case.bad(), end)).0;
            assert_eq!(got, bad, "{name}, broken, with {end_name} line ends");
        }
    }
}

#[test]
fn wavefront_objects_and_materials_read_the_same_whatever_their_line_ends() {
    let obj = "# a wall\nmtllib side.mtl\no Side\nv -1 0 0\nv 1 0 0\nv 1 2 0\nv -1 2 0\n\
               vt 0 0\nvt 1 0\nvt 1 1\nvt 0 1\nvn 0 0 1\n\nusemtl brick\nf 1/1/1 2/2/1 3/3/1 4/4/1\n";
    let mtl = "# its material\nnewmtl brick\nKd 1 1 1\nmap_Kd -bm 1 tex/brick.png\n";
    let dir = std::env::temp_dir().join(format!("agview-line-ends-{}", std::process::id()));
    let read_in = |end: &str, obj: &str| {
        let dir = dir.join(end.escape_default().to_string());
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("side.mtl"), with_line_ends(mtl, end)).unwrap();
        let path = dir.join("side.obj");
        let text = with_line_ends(obj, end);
        assert_eq!(
            FileKind::detect(&path, text.as_bytes()),
            Some(FileKind::Wavefront)
        );
        let mut w = Vec::new();
        let r = format::wavefront::parse_wavefront(&path, text.as_bytes(), &mut w);
        let w: Vec<String> = w.iter().map(ToString::to_string).collect();
        // The folder differs from form to form; what is read in it must not.
        let r = r.map(|o| {
            let mut o = o;
            for m in &mut o.meshes {
                m.diffuse_texture = m
                    .diffuse_texture
                    .as_ref()
                    .map(|t| t.strip_prefix(&dir).unwrap().to_path_buf());
            }
            o
        });
        let r = r.map_err(|e| e.to_string().replace(&dir.display().to_string(), "DIR"));
        (r, w)
    };
    let (good, w) = read_in("\n", obj);
    assert!(w.is_empty(), "{w:?}");
    let good_obj = good.clone().unwrap();
    assert_eq!(good_obj.meshes[0].indices.len(), 6);
    assert_eq!(
        good_obj.meshes[0].diffuse_texture.as_deref(),
        Some(Path::new("tex/brick.png")),
        "the material was read"
    );
    let broken = obj.replace("v 1 2 0", "v 1 nan 0");
    let (bad, _) = read_in("\n", &broken);
    assert!(
        bad.as_ref().unwrap_err().contains("side.obj:6:5: error"),
        "{bad:?}"
    );
    for (end_name, end) in ENDS {
        assert_eq!(read_in(end, obj).0, good, "{end_name}");
        assert_eq!(read_in(end, &broken).0, bad, "{end_name}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn lights_txt_reads_the_same_whatever_its_line_ends() {
    let good = "A\n850\nLIGHT_SPECS\nTEXTURE lights.png\n\n# a comment\n\
        LIGHT_PARAM_DEF\tfull_custom_halo\t4\tR\tG\tB\tS\n\
        BILLBOARD_HW\tfull_custom_halo\tR\tG\tB\t1\tS\t0\t0\t0\t0\t-1\t0\t0\n\n\
        BILLBOARD_SW\tairplane_beacon\t1\t0\t0\t1\t2.5\t4\t3\t0\t0\t-1\t0\t1\tsim/x\n";
    // A parameter count that does not match, and a billboard too short.
    let bad = format!("{good}LIGHT_PARAM_DEF a 3 R G\nBILLBOARD_HW c 1 1\n");
    let path = Path::new("Resources/lights.txt");
    let read = |text: &str| {
        let mut w = Vec::new();
        let r = lights_txt::parse(path, text, &mut w);
        (r, w.iter().map(ToString::to_string).collect::<Vec<_>>())
    };
    let (want, w) = read(good);
    assert!(want.is_ok() && w.is_empty(), "{want:?} {w:?}");
    let (want_bad, w_bad) = read(&bad);
    assert_eq!(w_bad.len(), 2, "{w_bad:?}");
    assert!(w_bad[0].starts_with("Resources/lights.txt:11:19: warning:"));
    for (end_name, end) in ENDS {
        assert_eq!(
            read(&with_line_ends(good, end)),
            (want.clone(), vec![]),
            "{end_name}"
        );
        let (r, w) = read(&with_line_ends(&bad, end));
        assert_eq!((&r, &w), (&want_bad, &w_bad), "{end_name}");
    }
}
