//! Issue 14: one hand-made `.agn` file per rule, written here (in Rust, next to the test that
//! reads it) into a scratch folder, then opened the way the commands open files:
//! `agview::document::load` is what `layout` and `render` call (an `Err` is their exit 1),
//! `agview::check::check_paths` is `check` (an error is its exit 1), and the scene's
//! `warnings` are the `layout --json` `warnings`.

use std::path::{Path, PathBuf};

use agview::format::agn::{
    self, AgnFile, Footprint, GenericBuildings, Guid, LibraryObject, Polygon, PolygonBuilding,
    PolygonBuildings, TextureName, VegetationPolygons,
};
use agview::input::Inputs;

/// The sample's square, so that every file has a place.
const NAME: &str = "000333311030032an.agn";

/// A fresh folder for one test's files, removed when the test ends.
struct Scratch(PathBuf);

impl std::ops::Deref for Scratch {
    type Target = Path;
    fn deref(&self) -> &Path {
        &self.0
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn scratch(test: &str) -> Scratch {
    let d = std::env::temp_dir().join(format!("agview-agn-rules-{}-{test}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).expect("scratch folder");
    Scratch(d)
}

fn put(dir: &Path, bytes: &[u8]) -> PathBuf {
    let p = dir.join(NAME);
    std::fs::write(&p, bytes).expect("write the .agn");
    p
}

fn guid(n: u8) -> Guid {
    let mut b = [0u8; 16];
    b[0] = n;
    b[15] = 0x14;
    Guid(b)
}

/// A 20 × 12 m building at `x`, `y` (square units).
fn house(x: f32, y: f32) -> Footprint {
    Footprint {
        offset: 0,
        start: [x, y],
        to_second: [20.0 / 1099.6, 0.0],
        to_third: [0.0, -12.0 / 1223.0],
    }
}

/// A small town: two generic buildings, two row houses, a park.
fn town() -> AgnFile {
    AgnFile {
        generic_buildings: vec![GenericBuildings {
            offset: 0,
            roof: Guid::ZERO,
            buildings: vec![house(0.0, 0.0), house(0.05, 0.0)],
        }],
        row_houses: vec![house(-0.1, 0.1), house(-0.08, 0.1)],
        vegetation_polygons: vec![VegetationPolygons {
            offset: 0,
            vegetation: guid(1),
            polygons: vec![Polygon {
                offset: 0,
                vertices: vec![[0.2, 0.2], [0.3, 0.2], [0.3, 0.3], [0.2, 0.2]],
            }],
        }],
        ..AgnFile::default()
    }
}

/// The byte offset of the first chunk with `tag`.
fn find(bytes: &[u8], tag: &[u8; 4]) -> usize {
    bytes
        .windows(4)
        .position(|w| w == tag)
        .unwrap_or_else(|| panic!("no {}", String::from_utf8_lossy(tag)))
}

fn layout(path: &Path) -> Result<agview::scene::Scene, agview::diag::Diagnostic> {
    agview::document::load(path, &Inputs::default()).map(|d| d.loaded.scene)
}

fn check_errors(path: &Path) -> usize {
    agview::check::check_paths(&[path.to_path_buf()]).errors()
}

#[test]
fn a_malformed_chunk_is_skipped_and_the_rest_shown() {
    let dir = scratch("malformed");
    // ROWH grows by 4 bytes: no longer a whole number of 24-byte row houses.
    let mut bytes = agn::write(&town());
    let at = find(&bytes, b"ROWH");
    let size = u32::from_le_bytes(bytes[at + 4..at + 8].try_into().unwrap());
    bytes[at + 4..at + 8].copy_from_slice(&(size + 4).to_le_bytes());
    bytes.splice(at + 8..at + 8, [0u8; 4]);
    let riff = (bytes.len() - 8) as u32;
    bytes[4..8].copy_from_slice(&riff.to_le_bytes());
    let p = put(&dir, &bytes);

    // `layout`: the rest is shown (exit 0), the skipped chunk is an `error:` line in the JSON.
    let scene = layout(&p).expect("the rest of the file is shown");
    assert_eq!(
        scene.facades.len(),
        2,
        "the generic buildings, not the row houses"
    );
    assert!(!scene.trees.is_empty());
    let lines = scene.warnings.lines();
    let errors: Vec<&String> = lines.iter().filter(|w| w.contains(": error: ")).collect();
    assert_eq!(errors.len(), 1, "{:?}", scene.warnings);
    assert!(
        errors[0].contains(&format!("offset {at}: error: ROWH chunk at offset {at}")),
        "{}",
        errors[0]
    );
    assert!(errors[0].contains("skipped"), "{}", errors[0]);
    // `check`: exit 1.
    assert_eq!(check_errors(&p), 1);
}

#[test]
fn a_nan_vertex_costs_its_chunk_only() {
    let dir = scratch("nan");
    let mut town = town();
    town.generic_buildings.push(GenericBuildings {
        offset: 0,
        roof: guid(9),
        buildings: vec![Footprint {
            to_second: [f32::NAN, 0.0],
            ..house(0.1, 0.1)
        }],
    });
    let p = put(&dir, &agn::write(&town));
    let scene = layout(&p).expect("shown");
    assert_eq!(scene.facades.len(), 4);
    assert!(scene
        .warnings
        .lines()
        .iter()
        .any(|w| w.contains("GBLR") && w.contains("NaN")));
    assert_eq!(check_errors(&p), 1);
}

#[test]
fn nothing_shown_is_exit_1() {
    let dir = scratch("nothing");
    let only_bad = AgnFile {
        row_houses: vec![Footprint {
            to_second: [f32::INFINITY, 0.0],
            ..house(0.0, 0.0)
        }],
        ..AgnFile::default()
    };
    let p = put(&dir, &agn::write(&only_bad));
    let e = layout(&p).expect_err("nothing could be shown");
    assert!(e.is_error());
    assert!(
        e.to_string().contains("nothing in the file could be shown"),
        "{e}"
    );
}

#[test]
fn riff_padding_and_a_riff_size_past_the_end() {
    let dir = scratch("riff");
    // GBTE "abc" (odd) with its pad byte, then the town's sections.
    let town_bytes = agn::write(&town());
    let mut bytes = b"RIFF\0\0\0\0AGNX".to_vec();
    bytes.extend_from_slice(b"GBTE\x03\0\0\0abc\0");
    bytes.extend_from_slice(&town_bytes[12..]);
    let riff = (bytes.len() - 8) as u32;
    bytes[4..8].copy_from_slice(&riff.to_le_bytes());
    let p = put(&dir, &bytes);
    let scene = layout(&p).expect("padded file");
    assert_eq!(scene.facades.len(), 4);
    assert_eq!(check_errors(&p), 0);

    // The RIFF size says 1000 more bytes than the file has: a warning, all read.
    bytes[4..8].copy_from_slice(&(riff + 1000).to_le_bytes());
    let p = put(&dir, &bytes);
    let scene = layout(&p).expect("short file");
    assert_eq!(scene.facades.len(), 4);
    assert!(scene
        .warnings
        .lines()
        .iter()
        .any(|w| w.contains("offset 4: warning: RIFF chunk at offset 0 has size")));
    assert_eq!(check_errors(&p), 0);
}

#[test]
fn a2ge_with_several_objects_and_an_ambiguous_size() {
    let dir = scratch("a2ge");
    let box3 = |x: f32| LibraryObject {
        offset: 0,
        guid: guid(5),
        start: [x, 0.1],
        to_second: [0.006, 0.006],
        to_third: Some([-0.004, 0.004]),
    };
    // Four three-point records: 96 bytes, which 16 divides too.
    let file = AgnFile {
        library_objects: (0..4).map(|i| box3(0.02 * i as f32)).collect(),
        ..AgnFile::default()
    };
    let p = put(&dir, &agn::write(&file));
    let scene = layout(&p).expect("shown");
    assert_eq!(scene.library_objects.len(), 4);
    assert!(scene.library_objects.iter().all(|o| o.heading != 0.0));
    assert!(scene
        .warnings
        .lines()
        .iter()
        .any(|w| w.contains("read as three-point")));
    assert_eq!(check_errors(&p), 0);
}

#[test]
fn sixteen_megabytes_of_empty_records() {
    let dir = scratch("empty");
    // One PRDE: a GUID and 4 million vertex counts of 0 (16 MB).
    let n = 4_000_000usize;
    let mut bytes = b"RIFF\0\0\0\0AGNXPREG\0\0\0\0PRDE\0\0\0\0".to_vec();
    bytes.extend_from_slice(&guid(1).0);
    bytes.resize(bytes.len() + 4 * n, 0);
    let len = bytes.len() as u32;
    bytes[4..8].copy_from_slice(&(len - 8).to_le_bytes());
    bytes[16..20].copy_from_slice(&(len - 20).to_le_bytes());
    bytes[24..28].copy_from_slice(&(len - 28).to_le_bytes());
    let mut w = Vec::new();
    let started = std::time::Instant::now();
    let f = agn::parse(Path::new(NAME), &bytes, &mut w).expect("read");
    assert!(started.elapsed().as_secs_f64() < 10.0);
    assert!(f.vegetation_polygons.is_empty());
    assert_eq!(w.len(), 21, "{w:?}");
    assert!(w[20].message.contains("3999980 more of"), "{}", w[20]);
    // Through the loading path: nothing can be shown, but no error was found either: the
    // file is empty of content, which is an empty scene with warnings.
    let p = put(&dir, &bytes);
    let scene = layout(&p).expect("an empty scene");
    assert!(scene.warnings.len() <= 22, "{}", scene.warnings.len());
}

#[test]
fn unknown_chunks_and_texture_checks() {
    let dir = scratch("check");
    let mut town = town();
    town.row_house_texture = Some(TextureName {
        offset: 0,
        name: "no_such_rows".into(),
    });
    town.polygon_buildings = vec![PolygonBuildings {
        offset: 0,
        building: guid(2),
        buildings: vec![PolygonBuilding {
            offset: 0,
            kind: 1,
            width: 0.0,
            vertices: vec![[0.6, 0.6], [0.62, 0.6], [0.62, 0.62], [0.6, 0.6]],
        }],
    }];
    let p = put(&dir, &agn::write(&town));
    let report = agview::check::check_paths(std::slice::from_ref(&p));
    assert_eq!(report.errors(), 0);
    assert!(report
        .diagnostics
        .iter()
        .any(|d| d.message.contains("RHTE texture `no_such_rows` not found")));
    // The closed PBDE outline is one building, the first vertex repeated as the last.
    let scene = layout(&p).expect("shown");
    let pbde: Vec<_> = scene
        .facades
        .iter()
        .filter(|f| f.agn_chunk == Some("PBDE"))
        .collect();
    assert_eq!(pbde.len(), 1);
    assert_eq!(pbde[0].footprint.len(), 3);
}

#[test]
fn guid_map_roof_texture_and_forest_through_the_loading_path() {
    let dir = scratch("guidmap");
    let mut town = town();
    town.generic_buildings[0].roof = guid(7);
    town.building_texture = Some(TextureName {
        offset: 0,
        name: "wall".into(),
    });
    let p = put(&dir, &agn::write(&town));
    std::fs::copy(
        "sample_scenery/agn/agview_town_facade.png",
        dir.join("wall.png"),
    )
    .expect("wall texture");
    let root = std::env::current_dir().unwrap();
    let map = dir.join("guids.txt");
    std::fs::write(
        &map,
        format!(
            "{} {}\n{} {}\n",
            guid(7),
            root.join("sample_scenery/textures/ground_plaza.png")
                .display(),
            guid(1),
            root.join("sample_scenery/forests/trees.for").display()
        ),
    )
    .unwrap();
    let args = Inputs {
        guid_map: Some(map),
        ..Inputs::default()
    };
    let scene = agview::document::load(&p, &args)
        .expect("shown")
        .loaded
        .scene;
    // The roof GUID's image: listed, on the buildings, and the roof of their facade.
    assert!(scene.roof_types[0]
        .texture
        .as_deref()
        .is_some_and(|t| t.ends_with("ground_plaza.png")));
    let def = scene.facades[0].facade.expect("textured");
    assert_eq!(scene.facade_roofs.len(), 1);
    assert_eq!(scene.facade_roofs[0].0, def);
    // Row houses (no roof texture) get their own definition.
    assert_ne!(scene.facades[2].facade, Some(def));
    // The park's GUID is the sample forest: its trees (its TREE ranges: shrubs of 1.5 m to trees of 22 m).
    assert_eq!(scene.more_forests.len(), 1);
    assert!(!scene.trees.is_empty());
    for t in &scene.trees {
        assert_eq!(t.forest, 1);
        assert!((1.5..=22.0).contains(&t.height), "{t:?}");
    }
}

#[test]
fn sanity_roofs_rows_and_vgro_through_the_loading_path() {
    let dir = scratch("draw");
    let mut file = town();
    // A "unit vector" direction: a building 1 square unit (≈ 1100 m) long.
    file.generic_buildings[0].buildings.push(Footprint {
        to_second: [1.0, 0.0],
        ..house(-0.45, 0.2)
    });
    file.fs2004_vegetation = Some(agn::Fs2004Vegetation {
        offset: 0,
        class1: 6,
        class2: 4,
        percent_class1: 25,
        max_density: 50,
        height_class1: [10.0, 14.0],
        height_class2: [1.0, 3.0],
    });
    file.fs2004_vegetation_rects = vec![agn::Rect {
        offset: 0,
        start: [-0.3, -0.3],
        to_second: [0.25, 0.25],
    }];
    let p = put(&dir, &agn::write(&file));
    let scene = layout(&p).expect("shown");
    let json = serde_json::to_value(&scene).unwrap();
    let warnings: Vec<&str> = json["warnings"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|w| w.as_str())
        .collect();
    assert!(
        warnings.iter().any(|w| w.contains("GBLR chunk at offset")
            && w.contains("building 2")
            && w.contains("longer than 500 m")),
        "{warnings:#?}"
    );
    assert!(warnings
        .iter()
        .any(|w| w.contains("crosses the LOD13 square's edge")));
    // Generic buildings and row houses are marked, default roofs listed.
    let chunks: Vec<&str> = json["facades"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["agn_chunk"].as_str().unwrap())
        .collect();
    assert_eq!(chunks, ["GBLR", "GBLR", "GBLR", "ROWH", "ROWH"]);
    assert_eq!(json["roof_types"][0]["guid"], "default");
    // VGRO trees: palm trees 10-14 m (25 %) and wet shrubs 1-3 m.
    let vgro: Vec<&agview::scene::TreeInstance> =
        scene.trees.iter().filter(|t| t.layer > 0).collect();
    assert!(vgro.len() > 100);
    for t in &vgro {
        let (lo, hi) = if t.layer == 1 {
            (10.0, 14.0)
        } else {
            (1.0, 3.0)
        };
        assert!(t.height >= lo && t.height <= hi, "{t:?}");
    }
    let palms = vgro.iter().filter(|t| t.layer == 1).count() as f64;
    assert!((palms / vgro.len() as f64 - 0.25).abs() < 0.06);
    assert!(json["vegetation"]
        .as_array()
        .unwrap()
        .iter()
        .any(|v| v["guid"] == "fs2004 class 6 palm trees (25%) / class 4 shrub wet, density 50"));
}

#[test]
fn repeated_warnings_collapse_in_the_json() {
    let dir = scratch("collapse");
    // 100 PRDE polygons of 2 vertices: each a warning, said 20 times and then counted.
    let file = AgnFile {
        vegetation_polygons: vec![VegetationPolygons {
            offset: 0,
            vegetation: guid(1),
            polygons: (0..100)
                .map(|_| Polygon {
                    offset: 0,
                    vertices: vec![[0.1, 0.1], [0.2, 0.2]],
                })
                .collect(),
        }],
        ..town()
    };
    let p = put(&dir, &agn::write(&file));
    let scene = layout(&p).expect("the town is shown");
    let lines = scene.warnings.lines();
    let about: Vec<&String> = lines
        .iter()
        .filter(|w| w.contains("PRDE") || w.contains("fewer than 4 vertices"))
        .collect();
    assert_eq!(about.len(), 21, "{about:#?}");
    assert!(about[20].contains("80 more of \"PRDE polygon with fewer than 4 vertices\" not shown"));
}
