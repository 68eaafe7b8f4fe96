//! The sample assets laid out and compared with checked-in expected dumps
//! (`tests/expected/*.json`, the `agview layout --json` form).
//!
//! Numbers are compared within a millimetre (or 1e-4 relative), everything else exactly (on
//! Windows, paths with their backslashes read as slashes, as Linux writes them). A
//! difference fails the test and writes `<name>.actual.json` beside the expected file.
//! Regenerating an expected dump is an explicit act: `UPDATE_EXPECTED=1 cargo test --test
//! layout_samples`, then read the diff before committing it.

use std::path::{Path, PathBuf};

use agview::app::layout_args::LayoutArgs;
use serde_json::Value;

mod common;
use common::slashed;

fn args() -> LayoutArgs {
    LayoutArgs::default()
}

fn close(a: &Value, b: &Value, at: &str, diffs: &mut Vec<String>) {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => {
            let (x, y) = (
                x.as_f64().unwrap_or(f64::NAN),
                y.as_f64().unwrap_or(f64::NAN),
            );
            let tol = 1e-3_f64.max(1e-4 * x.abs().max(y.abs()));
            if (x - y).abs() > tol {
                diffs.push(format!("{at}: expected {y}, got {x}"));
            }
        }
        (Value::Array(x), Value::Array(y)) => {
            if x.len() != y.len() {
                diffs.push(format!("{at}: expected {} items, got {}", y.len(), x.len()));
                return;
            }
            for (i, (p, q)) in x.iter().zip(y).enumerate() {
                close(p, q, &format!("{at}[{i}]"), diffs);
            }
        }
        (Value::Object(x), Value::Object(y)) => {
            for k in x.keys().chain(y.keys()) {
                match (x.get(k), y.get(k)) {
                    (Some(p), Some(q)) => close(p, q, &format!("{at}.{k}"), diffs),
                    (None, _) => diffs.push(format!("{at}.{k}: missing")),
                    (_, None) => diffs.push(format!("{at}.{k}: unexpected")),
                }
            }
        }
        // Windows prints paths with its own separator: compared as Linux writes them.
        (Value::String(x), Value::String(y)) => {
            if slashed(x) != slashed(y) {
                diffs.push(format!("{at}: expected {b}, got {a}"));
            }
        }
        _ => {
            if a != b {
                diffs.push(format!("{at}: expected {b}, got {a}"));
            }
        }
    }
}

fn check(name: &str, asset: &str, args: LayoutArgs) {
    let loaded = agview::document::load(Path::new(asset), &args.inputs().unwrap())
        .unwrap_or_else(|e| panic!("{name}: {e}"))
        .loaded;
    // A document prints absolute paths (the same from any working directory); the dumps
    // keep them relative to the repository, wherever it is checked out (on Windows, from
    // its drive on).
    let root = std::path::absolute(env!("CARGO_MANIFEST_DIR")).expect("absolute");
    let root = format!("{}{}", root.display(), std::path::MAIN_SEPARATOR);
    let root = serde_json::to_string(&root).expect("json");
    let json = serde_json::to_string(&loaded.scene).expect("scene serialises");
    let actual: Value =
        serde_json::from_str(&json.replace(&root[1..root.len() - 1], "")).expect("json");
    let dir = PathBuf::from("tests/expected");
    let expected_path = dir.join(format!("{name}.json"));
    let pretty = serde_json::to_string_pretty(&actual).expect("json") + "\n";
    if std::env::var_os("UPDATE_EXPECTED").is_some() {
        std::fs::create_dir_all(&dir).expect("tests/expected");
        std::fs::write(&expected_path, &pretty).expect("write expected dump");
        return;
    }
    let expected: Value = match std::fs::read_to_string(&expected_path) {
        Ok(s) => serde_json::from_str(&s).expect("expected dump is JSON"),
        Err(e) => panic!(
            "{}: {e}; create it with UPDATE_EXPECTED=1 and review it",
            expected_path.display()
        ),
    };
    let mut diffs = Vec::new();
    close(&actual, &expected, name, &mut diffs);
    if !diffs.is_empty() {
        let actual_path = dir.join(format!("{name}.actual.json"));
        let _ = std::fs::write(&actual_path, &pretty);
        panic!(
            "{name}: layout differs from {} ({} differences; actual written to {}):\n{}",
            expected_path.display(),
            diffs.len(),
            actual_path.display(),
            diffs
                .iter()
                .take(20)
                .cloned()
                .collect::<Vec<_>>()
                .join("\n")
        );
    }
}

#[test]
fn plaza_point() {
    check("plaza_agp", "sample_scenery/autogen/plaza.agp", args());
}

#[test]
fn plaza_point_turned() {
    check(
        "plaza_agp_seed3_heading120",
        "sample_scenery/autogen/plaza.agp",
        LayoutArgs {
            seed: 3,
            heading: Some(120.0),
            ..args()
        },
    );
}

#[test]
fn props_point() {
    check("props_agp", "sample_scenery/autogen/props.agp", args());
}

#[test]
fn city_block_on_geojson() {
    check(
        "city_block_100x80",
        "sample_scenery/autogen/city_block.agb",
        LayoutArgs {
            polygon: Some("sample_scenery/polygons/block_100x80.geojson".into()),
            ..args()
        },
    );
}

#[test]
fn city_block_on_trapezoid() {
    check(
        "city_block_trapezoid",
        "sample_scenery/autogen/city_block.agb",
        LayoutArgs {
            polygon: Some("sample_scenery/polygons/block_100x80.geojson".into()),
            polygon_index: Some(1),
            ..args()
        },
    );
}

#[test]
fn city_block_on_rect_with_param() {
    check(
        "city_block_rect_150x60_param",
        "sample_scenery/autogen/city_block.agb",
        LayoutArgs {
            rect: Some([150.0, 60.0]),
            param: Some((6 << 8) | 1),
            seed: 5,
            ..args()
        },
    );
}

/// Blocks no spelling fits: 120 m is deeper than the longest row spelling (88 m), 8 m
/// shallower than the shortest (the EDGE_MIN band of the 24 m row is 12 m). The grid's
/// bottom (top with FLIP_180) stays on the first side's EDGE_BEST line, 1 m outside it; the
/// surplus or shortfall is at the far side, and CROP 1 keeps what lies inside EDGE_MIN.
fn no_fit(name: &str, asset: &str, rect: [f32; 2]) {
    check(
        name,
        asset,
        LayoutArgs {
            rect: Some(rect),
            ..args()
        },
    );
}

#[test]
fn city_block_too_deep() {
    no_fit(
        "city_block_too_deep_100x120",
        "sample_scenery/autogen/city_block.agb",
        [100.0, 120.0],
    );
}

#[test]
fn city_block_too_shallow() {
    no_fit(
        "city_block_too_shallow_100x8",
        "sample_scenery/autogen/city_block.agb",
        [100.0, 8.0],
    );
}

#[test]
fn city_block_flipped_too_deep() {
    no_fit(
        "city_block_flip_too_deep_100x120",
        "sample_scenery/autogen/city_block_flip.agb",
        [100.0, 120.0],
    );
}

#[test]
fn city_block_flipped_too_shallow() {
    no_fit(
        "city_block_flip_too_shallow_100x8",
        "sample_scenery/autogen/city_block_flip.agb",
        [100.0, 8.0],
    );
}

/// Two GROUND_PT_FORMULA lines in one cell: the house and the car each take the formula
/// after them, the fence the cell's first, the house in the other cell its tile's centre;
/// `debug.ground_points` holds the three points used.
#[test]
fn two_formulas_in_one_cell() {
    check(
        "two_formulas_agb_38x22",
        "sample_scenery/autogen/two_formulas.agb",
        LayoutArgs {
            rect: Some([38.0, 22.0]),
            ..args()
        },
    );
}

/// A slop column followed by an anti-slop column: what the anti-slop tile covers of the
/// slop tile (from its early start on) is hidden, objects, trees and facades alike.
#[test]
fn anti_slop_hides_what_it_covers() {
    check(
        "antislop_agb_62x22",
        "sample_scenery/autogen/antislop.agb",
        LayoutArgs {
            rect: Some([62.0, 22.0]),
            ..args()
        },
    );
}

#[test]
fn city_block_from_dsf_text() {
    check(
        "city_block_dsf",
        "sample_scenery/autogen/city_block.agb",
        LayoutArgs {
            polygon: Some("sample_scenery/polygons/town.txt".into()),
            ..args()
        },
    );
}

#[test]
fn city_block_shops_from_dsf_text() {
    check(
        "city_block_dsf_shops",
        "sample_scenery/autogen/city_block.agb",
        LayoutArgs {
            polygon: Some("sample_scenery/polygons/town.txt".into()),
            polygon_index: Some(2),
            ..args()
        },
    );
}

#[test]
fn lakeside_string_on_geojson() {
    check(
        "lakeside_ags",
        "sample_scenery/autogen/lakeside.ags",
        LayoutArgs {
            polygon: Some("sample_scenery/polygons/lakeside.geojson".into()),
            ..args()
        },
    );
}

/// The same string on the town's DSF polygon (parameter from the DSF) with another seed.
#[test]
fn lakeside_string_from_dsf_text() {
    check(
        "lakeside_ags_dsf_seed7",
        "sample_scenery/autogen/lakeside.ags",
        LayoutArgs {
            polygon: Some("sample_scenery/polygons/town.txt".into()),
            seed: 7,
            ..args()
        },
    );
}

/// Issue 12: a 100 x 60 m block whose south side alone spawns tiles, in the three forms an
/// author meets: DSF windings (the spawning run first, the rest second, sharing their ends),
/// a GeoJSON ring with `spawn`, and a WED project (whose exporter writes those windings).
/// Tiles stand along the south side only; all three lay out alike.
#[test]
fn partly_spawning_block_three_ways() {
    let asset = "sample_scenery/autogen/lakeside.ags";
    check(
        "partial_block_dsf",
        asset,
        LayoutArgs {
            polygon: Some("sample_scenery/polygons/partial_block.txt".into()),
            ..args()
        },
    );
    check(
        "partial_block_geojson",
        asset,
        LayoutArgs {
            polygon: Some("sample_scenery/polygons/partial_block.geojson".into()),
            ..args()
        },
    );
    check("partial_block_wed", "sample_scenery/partial_block", args());
    let load = |doc: &str, polygon: Option<&str>| {
        let a = LayoutArgs {
            polygon: polygon.map(Into::into),
            ..args()
        };
        agview::document::load(Path::new(doc), &a.inputs().unwrap())
            .expect("lays out")
            .loaded
            .scene
    };
    let dsf = load(asset, Some("sample_scenery/polygons/partial_block.txt"));
    let gj = load(asset, Some("sample_scenery/polygons/partial_block.geojson"));
    let wed = load("sample_scenery/partial_block", None);
    assert!(!dsf.tiles.is_empty());
    assert_eq!(dsf.spawn, vec![vec![true, false, false, false]]);
    for t in &dsf.tiles {
        assert!(
            t.corners[0][1].abs() < 1e-3 && t.corners[1][1].abs() < 1e-3,
            "south side only: {t:?}"
        );
    }
    let corners = |s: &agview::scene::Scene| -> Vec<[[f32; 2]; 4]> {
        s.tiles.iter().map(|t| t.corners).collect()
    };
    let same = |a: &[[[f32; 2]; 4]], b: &[[[f32; 2]; 4]]| {
        a.len() == b.len()
            && a.iter().zip(b).all(|(p, q)| {
                p.iter()
                    .zip(q)
                    .all(|(u, v)| (u[0] - v[0]).abs() < 1e-3 && (u[1] - v[1]).abs() < 1e-3)
            })
    };
    assert!(
        same(&corners(&dsf), &corners(&gj)),
        "DSF and GeoJSON differ"
    );
    assert!(same(&corners(&dsf), &corners(&wed)), "DSF and WED differ");
}

/// With no polygon a string is laid out on the built-in outline with a lake, and says so.
#[test]
fn lakeside_string_on_the_default_polygon() {
    check(
        "lakeside_ags_default_polygon",
        "sample_scenery/autogen/lakeside.ags",
        args(),
    );
}

/// Sets 0 and 1 of the sample block both match a 117 x 61 m block of 12 m with parameter
/// 768; their FREQUENCY lines (2 and 1) decide how often each is drawn.
#[test]
fn city_block_frequencies_over_seeds() {
    let asset = Path::new("sample_scenery/autogen/city_block.agb");
    let mut counts = [0usize; 4];
    for seed in 0..600 {
        let a = LayoutArgs {
            rect: Some([117.0, 61.0]),
            height: Some(12.0),
            param: Some(768),
            seed,
            ..args()
        };
        let scene = agview::document::load(asset, &a.inputs().unwrap())
            .expect("lays out")
            .loaded
            .scene;
        let choice = scene.choice.expect("a block has a choice");
        assert!(choice.fits, "seed {seed}");
        counts[choice.spelling_set] += 1;
    }
    assert_eq!(counts[2] + counts[3], 0, "{counts:?}");
    let ratio = counts[0] as f64 / counts[1] as f64;
    assert!(
        (ratio - 2.0).abs() < 0.4,
        "expected about 2:1, got {counts:?}"
    );
}

#[test]
fn agn_town() {
    check(
        "agn_town",
        "sample_scenery/agn/000333311030032an.agn",
        args(),
    );
}

#[test]
fn town_dsf_text_document() {
    check("town_dsf_text", "sample_scenery/polygons/town.txt", args());
}

#[test]
fn town_binary_dsf_document() {
    check(
        "town_dsf_binary",
        "sample_scenery/polygons/town.dsf",
        args(),
    );
}

#[test]
fn town_wed_project() {
    check("town_wed", "sample_scenery", args());
}

#[test]
fn samples_check_clean() {
    let report = agview::check::check_paths(&[PathBuf::from("sample_scenery")]);
    let errors: Vec<String> = report
        .diagnostics
        .iter()
        .filter(|d| d.is_error())
        .map(|d| d.to_string())
        .collect();
    assert!(errors.is_empty(), "{errors:#?}");
    // The only warnings are the deliberately broken asset's missing object.
    let stray: Vec<String> = report
        .diagnostics
        .iter()
        .filter(|d| !d.path.ends_with("sample_scenery/broken/missing_art.agp"))
        .map(|d| d.to_string())
        .collect();
    assert!(stray.is_empty(), "{stray:#?}");
    assert!(report.files > 20, "{} files", report.files);
}

/// The sample string on its GeoJSON polygon, as the command line builds the input: the lake
/// (contour 1) spawns nothing, the edges are lined with tiles, corners follow their rules,
/// the fill plants trees, and nothing is said. (Moved from the layout's own tests when the
/// layout became a crate below the command line's input.)
#[test]
fn lakeside_sample_lays_out_on_its_geojson() {
    use agview::scene::TileRole;
    let root = Path::new("sample_scenery");
    let ags = root.join("autogen/lakeside.ags");
    let bytes = std::fs::read(&ags).expect("the sample string");
    let mut warnings = Vec::new();
    let ag = agview::format::autogen::parse(&ags, &bytes, &mut warnings).unwrap();
    let args = LayoutArgs {
        polygon: Some(root.join("polygons/lakeside.geojson")),
        ..args()
    };
    let inp = agview::input::build(&args.inputs().unwrap(), &ags, &mut warnings).unwrap();
    assert_eq!(inp.low_byte(), 1);
    let s = agview::layout::ags::layout(&ag, &ags, &inp).unwrap();
    assert!(
        s.tiles.iter().all(|t| t.contour == Some(0)),
        "the lake does not spawn tiles"
    );
    assert!(
        s.tiles
            .iter()
            .filter(|t| t.role == Some(TileRole::Edge))
            .count()
            > 10
    );
    assert!(s.corners.iter().any(|c| c.rule_line.is_some()));
    assert!(!s.trees.is_empty());
    assert!(s.warnings.is_empty(), "{:?}", s.warnings);
}
