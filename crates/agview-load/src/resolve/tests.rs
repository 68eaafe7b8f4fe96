//! Tests of the resolver: relative paths, the sample scenery, and a fake X-Plane install.

use super::*;

/// The resolver a load of `doc` makes, with an install at `xp` or none.
fn for_document(doc: &Path, xp: Option<&Path>, d: &mut Vec<Diagnostic>) -> Resolver {
    let libs = Libraries::load(
        &ResolveOptions {
            xplane: xp.map(Path::to_path_buf),
            ..ResolveOptions::default()
        },
        d,
    );
    Resolver::new(doc, &libs, d)
}

#[test]
fn normalizes() {
    assert_eq!(normalize(Path::new("a/b/../c/./d")), PathBuf::from("a/c/d"));
    assert_eq!(normalize(Path::new("../x/../y")), PathBuf::from("../y"));
    assert_eq!(normalize(Path::new("a/..")), PathBuf::from("."));
}

#[test]
fn textures_are_looked_for_as_dds_then_png_then_bmp() {
    use crate::format::texture_candidates as c;
    let names = |p: &str| -> Vec<String> {
        c(Path::new(p))
            .iter()
            .map(|p| p.display().to_string())
            .collect()
    };
    assert_eq!(names("a/b.PNG"), ["a/b.dds", "a/b.png", "a/b.bmp"]);
    assert_eq!(names("a.dds"), ["a.dds", "a.png", "a.bmp"]);
    assert_eq!(names("x"), ["x.dds", "x.png", "x.bmp"]);
    // An orthophoto's JPEG is tried as it is first.
    assert_eq!(names("o.jpg"), ["o.jpg", "o.dds", "o.png", "o.bmp"]);
}

#[test]
fn relative_then_package_then_library() {
    let dir = std::env::temp_dir().join(format!("agview-resolve-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("autogen")).unwrap();
    std::fs::create_dir_all(dir.join("objects")).unwrap();
    std::fs::write(dir.join("objects/house.obj"), "A\n800\nOBJ\n").unwrap();
    std::fs::write(
        dir.join("library.txt"),
        "A\n800\nLIBRARY\nEXPORT lib/house.obj objects/house.obj\n",
    )
    .unwrap();
    let asset = dir.join("autogen/a.agp");
    let mut d = Vec::new();
    let r = for_document(&asset, None, &mut d);
    assert!(d.is_empty(), "{d:?}");
    assert_eq!(r.root.as_deref(), Some(dir.as_path()));
    let want = Some(dir.join("objects/house.obj"));
    assert_eq!(r.resolve(&asset, "../objects/house.obj"), want);
    assert_eq!(
        r.resolve(&asset, "objects/house.obj"),
        Some(dir.join("objects/house.obj"))
    );
    assert_eq!(
        r.resolve(&asset, "lib/house.obj"),
        Some(dir.join("objects/house.obj"))
    );
    assert_eq!(r.resolve(&asset, "lib/none.obj"), None);
    let w = r.missing(&asset, 7, "OBJECT", "lib/none.obj").to_string();
    assert!(
        w.contains("a.agp:7:1: warning: OBJECT `lib/none.obj` not found"),
        "{w}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn resolver_is_shareable_across_threads() {
    fn send_sync<T: Send + Sync>() {}
    send_sync::<Resolver>();
}

#[test]
fn sample_scenery_resolves_as_before() {
    let root = crate::document::synthetic::source_tree().join("sample_scenery");
    let asset = root.join("autogen/lakeside.ags");
    let mut d = Vec::new();
    let r = for_document(&asset, None, &mut d);
    assert!(d.is_empty(), "{d:?}");
    // Three plain EXPORTs of one path: `resolve` keeps the first, as before.
    assert_eq!(
        r.resolve(&asset, "agview/objects/any_house.obj"),
        Some(root.join("objects/house_small.obj"))
    );
    assert_eq!(
        r.resolve(&asset, "agview/facades/brick.fac"),
        Some(root.join("facades/brick.fac"))
    );
    let got = r
        .resolve_at(&asset, "agview/objects/bench.obj", None, 3)
        .unwrap();
    assert_eq!(
        got,
        Resolved {
            path: root.join("objects/bench.obj"),
            package: Some("sample_scenery".into()),
            via: "EXPORT".into(),
        }
    );
    // A seeded pick draws among all three, and `for_document` without an install is
    // `for_asset`.
    let doc = for_document(&asset, None, &mut d);
    assert!(d.is_empty(), "{d:?}");
    let picks: std::collections::BTreeSet<PathBuf> = (0..64)
        .filter_map(|s| doc.resolve_at(&asset, "agview/objects/any_house.obj", None, s))
        .map(|r| r.path)
        .collect();
    assert_eq!(picks.len(), 3, "{picks:?}");
    let rel = doc
        .resolve_at(&asset, "../objects/car.obj", None, 0)
        .unwrap();
    assert_eq!((rel.package, rel.via.as_str()), (None, "relative path"));
}

/// A fake X-Plane install in a temporary folder, removed when dropped.
struct FakeInstall {
    top: PathBuf,
}

impl FakeInstall {
    fn xp(&self) -> PathBuf {
        self.top.join("X-Plane 12")
    }
    fn custom(&self, pack: &str) -> PathBuf {
        self.xp().join("Custom Scenery").join(pack)
    }
    fn default(&self, pack: &str) -> PathBuf {
        self.xp().join("Resources/default scenery").join(pack)
    }
    fn doc_pack(&self) -> PathBuf {
        self.top.join("doc_pack")
    }
    fn doc(&self) -> PathBuf {
        self.doc_pack().join("autogen/town.agp")
    }
}

impl Drop for FakeInstall {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.top);
    }
}

/// Writes `library.txt` in `dir` (header added) and an empty file for each real path.
fn pack(dir: &Path, body: &str) {
    std::fs::create_dir_all(dir).unwrap();
    std::fs::write(dir.join("library.txt"), format!("A\n800\nLIBRARY\n{body}")).unwrap();
    for line in body.lines() {
        let words: Vec<&str> = line.split_whitespace().collect();
        let real = match words.first() {
            Some(&"EXPORT_RATIO") => words.get(3),
            Some(&"EXPORT_RATIO_SEASON") => words.get(4),
            Some(k) if k.ends_with("_SEASON") => words.get(3),
            Some(k) if k.starts_with("EXPORT") => words.get(2),
            _ => None,
        };
        if let Some(real) = real {
            let p = dir.join(real);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, "A\n800\nOBJ\n").unwrap();
        }
    }
}

/// Custom Scenery: `Zulu Overrides`, `Alpha Library`, `Bravo Disabled` (disabled) listed in
/// that order (not alphabetical), `New Pack` on disk but not listed, and
/// `*GLOBAL_AIRPORTS*`; default scenery `X-Plane Landmarks` and `aaa default objects`
/// (alphabetically ignoring case: `aaa…` first); a document package outside the install.
fn fake_install(tag: &str) -> FakeInstall {
    let top = std::env::temp_dir().join(format!("agview-xp-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&top);
    let f = FakeInstall { top };
    std::fs::create_dir_all(f.xp().join("Custom Scenery")).unwrap();
    std::fs::write(
        f.xp().join("Custom Scenery/scenery_packs.ini"),
        "I\n1000 Version\nSCENERY\n\n\
SCENERY_PACK Custom Scenery/Zulu Overrides/\n\
SCENERY_PACK_DISABLED Custom Scenery/Bravo Disabled/\n\
SCENERY_PACK *GLOBAL_AIRPORTS*\n\
SCENERY_PACK Custom Scenery/Alpha Library/\n\
SCENERY_PACK Custom Scenery/Gone Pack/\n",
    )
    .unwrap();
    pack(
        &f.custom("Zulu Overrides"),
        "EXPORT lib/house.obj objects/house.obj\n\
EXPORT_EXTEND lib/tree.for forests/zulu_tree.for\n\
EXPORT_EXTEND lib/excl.obj objects/zulu_extra.obj\n\
EXPORT_BACKUP lib/backup.obj objects/zulu_backup.obj\n\
EXPORT lib/newfirst.obj objects/newfirst.obj\n\
REGION_DEFINE snow\nREGION_ALL\nREGION_DREF sim/weather/snow > 0\n\
REGION_DEFINE masked\nREGION_RECT 0 0 10 10\nREGION_BITMAP masks/mask.png\n\
REGION snow\nEXPORT lib/snow.obj objects/snow.obj\n\
REGION masked\nEXPORT lib/masked.obj objects/masked.obj\n",
    );
    pack(
        &f.custom("Alpha Library"),
        "EXPORT lib/house.obj objects/alpha_house.obj\n\
EXPORT lib/priority.obj objects/priority.obj\n\
EXPORT lib/tree.for forests/alpha_tree.for\n\
EXPORT lib/tree.for forests/alpha_tree2.for\n\
EXPORT lib/excl.obj objects/alpha_plain.obj\n\
EXPORT_EXCLUDE lib/excl.obj objects/alpha_only.obj\n\
EXPORT_BACKUP lib/only_backup.obj objects/alpha_backup.obj\n\
EXPORT lib/ga.obj objects/alpha_ga.obj\n\
REGION_DEFINE europe\nREGION_RECT -10 35 30 70\n\
REGION europe\nEXPORT lib/road.net roads/europe.net\n",
    );
    pack(
        &f.custom("Bravo Disabled"),
        "EXPORT lib/only_bravo.obj objects/b.obj\nEXPORT lib/house.obj objects/b.obj\n",
    );
    pack(
        &f.custom("New Pack"),
        "EXPORT lib/newfirst.obj objects/new.obj\n",
    );
    pack(
        &f.xp().join("Global Scenery/Global Airports"),
        "EXPORT lib/ga.obj objects/ga.obj\n",
    );
    pack(
        &f.default("X-Plane Landmarks"),
        "EXPORT lib/house.obj objects/landmark_house.obj\n\
EXPORT lib/priority.obj objects/landmark_priority.obj\n\
EXPORT lib/excl.obj objects/landmark_excl.obj\n\
EXPORT lib/backup.obj objects/landmark_backup.obj\n\
EXPORT_BACKUP lib/only_backup.obj objects/landmark_backup.obj\n\
EXPORT lib/road.net roads/world.net\n\
EXPORT lib/def.obj objects/landmark_def.obj\n\
EXPORT_RATIO 0.25 lib/ratio.obj objects/r1.obj\n\
EXPORT_RATIO 0.75 lib/ratio.obj objects/r3.obj\n",
    );
    pack(
        &f.default("aaa default objects"),
        "EXPORT lib/def.obj objects/aaa_def.obj\n",
    );
    // A default package without a library is not a library package.
    std::fs::create_dir_all(f.default("Earth nav data only")).unwrap();
    pack(
        &f.doc_pack(),
        "EXPORT lib/doc.obj objects/doc.obj\nEXPORT lib/priority.obj objects/doc_priority.obj\n",
    );
    std::fs::create_dir_all(f.doc_pack().join("autogen")).unwrap();
    std::fs::write(f.doc(), "A\n1000\nAG_POINT\n").unwrap();
    f
}

fn resolver(f: &FakeInstall) -> (Resolver, Vec<Diagnostic>) {
    let mut d = Vec::new();
    let r = for_document(&f.doc(), Some(&f.xp()), &mut d);
    (r, d)
}

const PARIS: LatLon = LatLon {
    lat: 48.86,
    lon: 2.35,
};
const NEW_YORK: LatLon = LatLon {
    lat: 40.71,
    lon: -74.0,
};

#[test]
fn packages_rank_document_then_ini_order_then_default_scenery() {
    let f = fake_install("order");
    let (r, d) = resolver(&f);
    let names: Vec<&str> = r.packages().iter().map(|p| p.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "doc_pack",
            "New Pack",
            "Zulu Overrides",
            "Global Airports",
            "Alpha Library",
            "aaa default objects",
            "X-Plane Landmarks",
        ]
    );
    // The unlisted pack is reported once, on the ini.
    let unlisted: Vec<String> = d
        .iter()
        .map(|d| d.to_string())
        .filter(|m| m.contains("not listed"))
        .collect();
    assert_eq!(unlisted.len(), 1, "{d:?}");
    assert!(unlisted[0].contains("scenery_packs.ini: warning: 1 pack(s) not listed here ranked first, alphabetically, as X-Plane adds them: New Pack"), "{}", unlisted[0]);
    // The disabled pack's exports are not seen.
    let doc = f.doc();
    assert_eq!(r.resolve_at(&doc, "lib/only_bravo.obj", None, 0), None);
    // Unlisted packs rank above listed ones; `*GLOBAL_AIRPORTS*` ranks where it is listed.
    let at = |name: &str| r.resolve_at(&doc, name, None, 0).unwrap();
    assert_eq!(at("lib/newfirst.obj").package.as_deref(), Some("New Pack"));
    assert_eq!(at("lib/ga.obj").package.as_deref(), Some("Global Airports"));
    // Default scenery ranks alphabetically ignoring case.
    assert_eq!(
        at("lib/def.obj").path,
        f.default("aaa default objects").join("objects/aaa_def.obj")
    );
}

#[test]
fn higher_export_hides_lower_and_reports_its_package() {
    let f = fake_install("export");
    let (r, _) = resolver(&f);
    let doc = f.doc();
    for seed in 0..32 {
        let got = r
            .resolve_at(&doc, "lib/house.obj", Some(PARIS), seed)
            .unwrap();
        assert_eq!(
            got,
            Resolved {
                path: f.custom("Zulu Overrides").join("objects/house.obj"),
                package: Some("Zulu Overrides".into()),
                via: "EXPORT".into(),
            }
        );
    }
    // The document's own package ranks first.
    let got = r.resolve_at(&doc, "lib/priority.obj", None, 9).unwrap();
    assert_eq!(got.path, f.doc_pack().join("objects/doc_priority.obj"));
    assert_eq!(got.package.as_deref(), Some("doc_pack"));
    assert_eq!(
        r.resolve(&doc, "lib/priority.obj"),
        Some(f.doc_pack().join("objects/doc_priority.obj"))
    );
}

#[test]
fn export_extend_adds_alternatives_to_lower_packages() {
    let f = fake_install("extend");
    let (r, _) = resolver(&f);
    let doc = f.doc();
    let picks: std::collections::BTreeSet<PathBuf> = (0..200)
        .map(|s| r.resolve_at(&doc, "lib/tree.for", None, s).unwrap().path)
        .collect();
    let want: std::collections::BTreeSet<PathBuf> = [
        f.custom("Zulu Overrides").join("forests/zulu_tree.for"),
        f.custom("Alpha Library").join("forests/alpha_tree.for"),
        f.custom("Alpha Library").join("forests/alpha_tree2.for"),
    ]
    .into();
    assert_eq!(picks, want);
    let first = r.resolve_at(&doc, "lib/tree.for", None, 0).unwrap();
    assert!(first.via.ends_with("(seeded pick of 3)"), "{}", first.via);
    // `resolve` gives the first alternative: the extension from the higher package.
    assert_eq!(
        r.resolve(&doc, "lib/tree.for"),
        Some(f.custom("Zulu Overrides").join("forests/zulu_tree.for"))
    );
}

#[test]
fn export_exclude_replaces_its_package_and_lower_ones() {
    let f = fake_install("exclude");
    let (r, _) = resolver(&f);
    let doc = f.doc();
    let picks: std::collections::BTreeSet<(PathBuf, String)> = (0..200)
        .map(|s| {
            let g = r.resolve_at(&doc, "lib/excl.obj", None, s).unwrap();
            (g.path, g.via)
        })
        .collect();
    // Alpha's plain EXPORT and the Landmarks' EXPORT are gone; Zulu's higher extension stays.
    let want: std::collections::BTreeSet<(PathBuf, String)> = [
        (
            f.custom("Zulu Overrides").join("objects/zulu_extra.obj"),
            "EXPORT_EXTEND (seeded pick of 2)".to_string(),
        ),
        (
            f.custom("Alpha Library").join("objects/alpha_only.obj"),
            "EXPORT_EXCLUDE (seeded pick of 2)".to_string(),
        ),
    ]
    .into();
    assert_eq!(picks, want);
}

#[test]
fn export_backup_only_when_nothing_else_exports() {
    let f = fake_install("backup");
    let (r, _) = resolver(&f);
    let doc = f.doc();
    // Zulu's backup ranks higher, but the Landmarks' plain EXPORT wins.
    let got = r.resolve_at(&doc, "lib/backup.obj", None, 1).unwrap();
    assert_eq!(
        (got.path, got.via.as_str()),
        (
            f.default("X-Plane Landmarks")
                .join("objects/landmark_backup.obj"),
            "EXPORT"
        )
    );
    // Only backups: the highest-priority one, never a pick among them.
    for seed in 0..32 {
        let got = r
            .resolve_at(&doc, "lib/only_backup.obj", None, seed)
            .unwrap();
        assert_eq!(
            (got.path, got.package.as_deref(), got.via.as_str()),
            (
                f.custom("Alpha Library").join("objects/alpha_backup.obj"),
                Some("Alpha Library"),
                "EXPORT_BACKUP"
            )
        );
    }
}

#[test]
fn export_ratio_is_a_deterministic_weighted_pick() {
    let f = fake_install("ratio");
    let (r, _) = resolver(&f);
    let doc = f.doc();
    let r1 = f.default("X-Plane Landmarks").join("objects/r1.obj");
    let pick =
        |seed: u64, at: Option<LatLon>| r.resolve_at(&doc, "lib/ratio.obj", at, seed).unwrap();
    for seed in 0..50 {
        assert_eq!(pick(seed, Some(PARIS)), pick(seed, Some(PARIS)));
    }
    let n = 8000;
    let ones = (0..n).filter(|&s| pick(s, None).path == r1).count();
    let share = ones as f64 / n as f64;
    assert!(
        (share - 0.25).abs() < 0.02,
        "EXPORT_RATIO 0.25 picked {share}"
    );
    let via = pick(0, None).via;
    assert!(
        via == "EXPORT_RATIO 0.25 (seeded pick of 2)"
            || via == "EXPORT_RATIO 0.75 (seeded pick of 2)",
        "{via}"
    );
    // One seed, different places: both variants occur.
    let places: std::collections::BTreeSet<PathBuf> = (0..64)
        .map(|i| {
            let at = LatLon {
                lat: 40.0 + f64::from(i) * 0.001,
                lon: 2.0,
            };
            pick(7, Some(at)).path
        })
        .collect();
    assert_eq!(places.len(), 2);
}

#[test]
fn region_rect_applies_by_location() {
    let f = fake_install("region");
    let (r, _) = resolver(&f);
    let doc = f.doc();
    let road = |at: Option<LatLon>| r.resolve_at(&doc, "lib/road.net", at, 0).unwrap();
    let eu = road(Some(PARIS));
    assert_eq!(
        (eu.path, eu.package.as_deref(), eu.via.as_str()),
        (
            f.custom("Alpha Library").join("roads/europe.net"),
            Some("Alpha Library"),
            "EXPORT in REGION europe"
        )
    );
    let world = f.default("X-Plane Landmarks").join("roads/world.net");
    assert_eq!(road(Some(NEW_YORK)).path, world);
    // Whole tiles, inclusive: the rectangle's north-east tile is in, the next one is not.
    let europe = f.custom("Alpha Library").join("roads/europe.net");
    assert_eq!(
        road(Some(LatLon {
            lat: 70.9,
            lon: 30.9
        }))
        .path,
        europe
    );
    assert_eq!(
        road(Some(LatLon {
            lat: 71.0,
            lon: 30.5
        }))
        .path,
        world
    );
    assert_eq!(
        road(Some(LatLon {
            lat: 35.0,
            lon: -10.0
        }))
        .path,
        europe
    );
    assert_eq!(
        road(Some(LatLon {
            lat: 34.99,
            lon: -10.0
        }))
        .path,
        world
    );
    // No location: exports valid everywhere first.
    assert_eq!(road(None).path, world);
}

#[test]
fn region_dref_and_bitmap_are_taken_as_true_with_one_note() {
    let f = fake_install("dref");
    let (r, d) = resolver(&f);
    let doc = f.doc();
    for seed in 0..20 {
        let _ = r.resolve_at(&doc, "lib/snow.obj", Some(PARIS), seed);
    }
    let notes: Vec<String> = d
        .iter()
        .map(|d| d.to_string())
        .filter(|m| m.contains("taken as true"))
        .collect();
    assert_eq!(notes.len(), 2, "{notes:?}");
    assert!(notes[0].ends_with("library.txt:9:1: warning: region `snow`: REGION_DREF taken as true (agview has no datarefs or region bitmaps)"), "{}", notes[0]);
    assert!(
        notes[1].contains("region `masked`: REGION_BITMAP taken as true"),
        "{}",
        notes[1]
    );
    // The dataref region covers the world; the bitmap region its rectangle.
    let snow = r
        .resolve_at(&doc, "lib/snow.obj", Some(NEW_YORK), 0)
        .unwrap();
    assert_eq!(
        snow.path,
        f.custom("Zulu Overrides").join("objects/snow.obj")
    );
    assert_eq!(snow.via, "EXPORT");
    let masked = |at| r.resolve_at(&doc, "lib/masked.obj", Some(at), 0);
    assert!(masked(LatLon { lat: 5.5, lon: 5.5 }).is_some());
    assert_eq!(
        masked(LatLon {
            lat: 20.0,
            lon: 20.0
        }),
        None
    );
}

#[test]
fn a_miss_is_a_warning_naming_the_libraries() {
    let f = fake_install("miss");
    let (r, _) = resolver(&f);
    let doc = f.doc();
    assert_eq!(r.resolve_at(&doc, "lib/none.obj", Some(PARIS), 0), None);
    assert_eq!(r.resolve(&doc, "lib/none.obj"), None);
    let w = r.missing(&doc, 4, "OBJECT", "lib/none.obj").to_string();
    assert!(
        w.contains("town.agp:4:1: warning: OBJECT `lib/none.obj` not found"),
        "{w}"
    );
    assert!(
        w.contains("or in the libraries of 7 packages); a placeholder is drawn"),
        "{w}"
    );
    // Exported only outside the place asked about.
    assert_eq!(r.resolve_at(&doc, "lib/masked.obj", Some(PARIS), 0), None);
    let w = r.missing(&doc, 4, "OBJECT", "lib/masked.obj").to_string();
    assert!(w.contains("(exported, but not here or not on disk)"), "{w}");
}

#[test]
fn a_broken_install_library_is_skipped_with_a_warning() {
    let f = fake_install("broken");
    std::fs::write(
        f.custom("Alpha Library").join("library.txt"),
        "A\n800\nFACADE\n",
    )
    .unwrap();
    // A bad line of an install's library costs that line, as a warning.
    std::fs::write(
        f.default("aaa default objects").join("library.txt"),
        "A\n800\nLIBRARY\nREGION_RECT 0 0 1 1\nEXPORT_SEASON autumn lib/a.obj a.obj\nEXPORT lib/b.obj b.obj\n",
    )
    .unwrap();
    let (r, d) = resolver(&f);
    assert!(!crate::diag::has_errors(&d), "{d:?}");
    assert!(
        d.iter().any(|d| d.to_string().contains("wrong file type")
            && d.to_string().contains("this package's library is skipped")),
        "{d:?}"
    );
    assert!(!r.packages().iter().any(|p| p.name == "Alpha Library"));
    assert!(
        d.iter().any(|d| d
            .to_string()
            .contains("4:1: warning: REGION_RECT before any REGION_DEFINE (1 more in this file)")),
        "{d:?}"
    );
    assert!(r.packages().iter().any(|p| p.name == "aaa default objects"));
}

#[test]
fn a_document_inside_the_install_ranks_its_package_once() {
    let f = fake_install("inside");
    let doc = f.custom("Alpha Library").join("autogen/a.agp");
    std::fs::create_dir_all(doc.parent().unwrap()).unwrap();
    std::fs::write(&doc, "A\n1000\nAG_POINT\n").unwrap();
    let mut d = Vec::new();
    let r = for_document(&doc, Some(&f.xp()), &mut d);
    let names: Vec<&str> = r.packages().iter().map(|p| p.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "Alpha Library",
            "New Pack",
            "Zulu Overrides",
            "Global Airports",
            "aaa default objects",
            "X-Plane Landmarks",
        ]
    );
    // Its own export now outranks Zulu's.
    let got = r.resolve_at(&doc, "lib/house.obj", None, 0).unwrap();
    assert_eq!(got.package.as_deref(), Some("Alpha Library"));
    assert_eq!(r.root.as_deref(), Some(f.custom("Alpha Library").as_path()));
}

/// The resolver of a load with `--library` folders (and an install, or none).
fn with_libraries(
    doc: &Path,
    libraries: &[PathBuf],
    xp: Option<&Path>,
    d: &mut Vec<Diagnostic>,
) -> Resolver {
    let libs = Libraries::load(
        &ResolveOptions {
            xplane: xp.map(Path::to_path_buf),
            libraries: libraries.to_vec(),
            ..ResolveOptions::default()
        },
        d,
    );
    Resolver::new(doc, &libs, d)
}

#[test]
fn library_folders_rank_after_the_document_and_before_the_install() {
    let f = fake_install("library-arg");
    // A third-party library outside the install, and a folder of two such packages.
    let third = f.top.join("third_party/OpenSceneryX");
    pack(
        &third,
        "EXPORT lib/house.obj objects/osx_house.obj\nEXPORT lib/osx.obj objects/osx.obj\n",
    );
    let shelf = f.top.join("shelf");
    pack(&shelf.join("B Lib"), "EXPORT lib/b.obj objects/b.obj\n");
    pack(&shelf.join("A Lib"), "EXPORT lib/b.obj objects/a.obj\n");
    std::fs::create_dir_all(shelf.join("not a package")).unwrap();
    let mut d = Vec::new();
    let r = with_libraries(
        &f.doc(),
        &[third.clone(), shelf.clone()],
        Some(&f.xp()),
        &mut d,
    );
    let names: Vec<&str> = r.packages().iter().map(|p| p.name.as_str()).collect();
    assert_eq!(&names[..4], ["doc_pack", "OpenSceneryX", "A Lib", "B Lib"]);
    assert_eq!(names[4], "New Pack", "the install's packages follow");
    // The document's own export wins; then the library beats the install's.
    assert_eq!(
        r.resolve_library("lib/doc.obj"),
        Some(f.doc_pack().join("objects/doc.obj"))
    );
    assert_eq!(
        r.resolve_library("lib/house.obj"),
        Some(third.join("objects/osx_house.obj"))
    );
    assert_eq!(
        r.resolve_library("lib/b.obj"),
        Some(shelf.join("A Lib/objects/a.obj"))
    );
    // Without an install, the library alone resolves, and a miss does not suggest it
    // is all there is: the hint still names --xplane.
    let mut d = Vec::new();
    let r = with_libraries(&f.doc(), std::slice::from_ref(&third), None, &mut d);
    assert!(d.is_empty(), "{d:?}");
    assert_eq!(
        r.resolve_library("lib/osx.obj"),
        Some(third.join("objects/osx.obj"))
    );
    assert!(r.definition_missing("lib/none.obj").contains("--xplane"));
    // A folder with no package in it is a warning, and nothing else changes.
    let mut d = Vec::new();
    let empty = f.top.join("empty");
    std::fs::create_dir_all(&empty).unwrap();
    let r = with_libraries(&f.doc(), &[empty], None, &mut d);
    assert_eq!(d.len(), 1, "{d:?}");
    assert!(d[0].to_string().contains("--library"), "{}", d[0]);
    assert_eq!(r.packages().len(), 1);
}

#[test]
fn every_seasons_exports_are_kept_and_a_lookup_takes_its_season() {
    let dir = std::env::temp_dir().join(format!("agview-seasons-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    pack(
        &dir,
        "EXPORT_SEASON win lib/tree.for forests/snowy.for\n\
EXPORT_SEASON sum,fal lib/tree.for forests/green.for\n\
EXPORT_SEASON win lib/winter_only.obj objects/w.obj\n\
EXPORT lib/plain.obj objects/plain.obj\n",
    );
    let asset = dir.join("a.agp");
    let mut d = Vec::new();
    let summer = for_document(&asset, None, &mut d);
    assert!(d.is_empty(), "{d:?}");
    assert_eq!(
        summer.resolve_library("lib/tree.for"),
        Some(dir.join("forests/green.for"))
    );
    assert_eq!(summer.resolve_library("lib/winter_only.obj"), None);
    let libs = Libraries::load(
        &ResolveOptions {
            season: Season::Winter,
            ..ResolveOptions::default()
        },
        &mut d,
    );
    let winter = Resolver::new(&asset, &libs, &mut d);
    assert_eq!(
        winter.resolve_library("lib/tree.for"),
        Some(dir.join("forests/snowy.for"))
    );
    assert_eq!(
        winter.resolve_library("lib/winter_only.obj"),
        Some(dir.join("objects/w.obj"))
    );
    // An export without a season list is for every season.
    assert_eq!(
        winter.resolve_library("lib/plain.obj"),
        Some(dir.join("objects/plain.obj"))
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// The files `name` resolves to in `season` over many seeded picks, as paths relative to
/// `top`, sorted, with the `via` of one of them.
fn picks(r: &Resolver, top: &Path, name: &str, season: Season) -> (Vec<String>, String) {
    let r = Resolver {
        season,
        ..r.clone()
    };
    let mut out = std::collections::BTreeSet::new();
    let mut via = String::new();
    for seed in 0..64 {
        if let Some(c) = r.resolve_definition(name, None, seed) {
            out.insert(
                c.path
                    .strip_prefix(top)
                    .unwrap_or(&c.path)
                    .to_string_lossy()
                    .replace('\\', "/"),
            );
            via = c.via;
        }
    }
    (out.into_iter().collect(), via)
}

#[test]
fn an_exclude_season_replaces_its_packages_plain_exports_and_hides_lower_packages() {
    let f = fake_install("exclude-season");
    // The document's package, first; a --library package below it.
    pack(
        &f.doc_pack(),
        "EXPORT lib/natural.ags plain/natural.ags\n\
EXPORT_EXCLUDE_SEASON spr,sum lib/natural.ags sumspr/natural.ags\n\
EXPORT_SEASON sum lib/natural.ags sum/natural2.ags\n\
EXPORT_SEASON win lib/tree.for win/tree.for\n\
EXPORT_SEASON win lib/snow.obj win/snow.obj\n\
EXPORT_BACKUP lib/snow.obj backup/snow.obj\n",
    );
    let lower = f.top.join("Lower");
    pack(
        &lower,
        "EXPORT lib/natural.ags lower/natural.ags\nEXPORT lib/tree.for lower/tree.for\n",
    );
    let mut d = Vec::new();
    let r = with_libraries(&f.doc(), std::slice::from_ref(&lower), None, &mut d);
    assert!(d.is_empty(), "{d:?}");
    let top = f.top.clone();
    let got = |name: &str, s: Season| picks(&r, &top, name, s).0;
    use Season::*;
    // In its seasons the exclude replaces the plain export and the lower package's; the
    // package's own EXPORT_SEASON for the season stays beside it.
    assert_eq!(
        got("lib/natural.ags", Spring),
        ["doc_pack/sumspr/natural.ags"]
    );
    assert_eq!(
        got("lib/natural.ags", Summer),
        ["doc_pack/sum/natural2.ags", "doc_pack/sumspr/natural.ags"]
    );
    // Outside them the package's plain export stands, and still hides the lower one.
    assert_eq!(got("lib/natural.ags", Fall), ["doc_pack/plain/natural.ags"]);
    assert_eq!(
        got("lib/natural.ags", Winter),
        ["doc_pack/plain/natural.ags"]
    );
    // A season the package names no file for falls to the lower package, then to the
    // backup: never to another season's file.
    assert_eq!(got("lib/tree.for", Winter), ["doc_pack/win/tree.for"]);
    assert_eq!(got("lib/tree.for", Summer), ["Lower/lower/tree.for"]);
    assert_eq!(got("lib/snow.obj", Winter), ["doc_pack/win/snow.obj"]);
    assert_eq!(got("lib/snow.obj", Fall), ["doc_pack/backup/snow.obj"]);
    // `via` names the seasonal directive and its seasons.
    assert_eq!(
        picks(&r, &top, "lib/natural.ags", Spring).1,
        "EXPORT_EXCLUDE_SEASON spr,sum"
    );
    assert_eq!(
        picks(&r, &top, "lib/tree.for", Winter).1,
        "EXPORT_SEASON win"
    );
}

#[test]
fn references_inside_assets_and_their_textures_go_through_every_library() {
    let f = fake_install("asset-refs");
    pack(
        &f.default("X-Plane Landmarks"),
        "EXPORT lib/tex/brick.png textures/brick.png\n",
    );
    let mut d = Vec::new();
    let r = for_document(&f.doc(), Some(&f.xp()), &mut d);
    let want = f.default("X-Plane Landmarks").join("textures/brick.png");
    assert_eq!(
        r.resolve_texture(&f.doc(), "lib/tex/brick.png"),
        Some(want.clone())
    );
    // The `.dds` twin of a library texture is found as X-Plane finds it.
    assert_eq!(r.resolve_texture(&f.doc(), "lib/tex/brick.dds"), Some(want));
}

#[test]
fn the_package_root_is_one_rule_for_documents_and_assets() {
    let top = std::env::temp_dir().join(format!("agview-root-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&top);
    // A package with tiles and no library.txt: its assets' root is the package.
    let pkg = top.join("My Airport");
    std::fs::create_dir_all(pkg.join("Earth nav data/+40+000")).unwrap();
    std::fs::create_dir_all(pkg.join("objects/deep")).unwrap();
    let dsf = pkg.join("Earth nav data/+40+000/+47+008.dsf");
    assert_eq!(package_root(&dsf), pkg);
    assert_eq!(package_root(&pkg.join("objects/deep/a.agb")), pkg);
    // A WED project's root is its own folder.
    assert_eq!(
        package_root(&pkg.join("sub/earth.wed.xml")),
        pkg.join("sub")
    );
    // Nothing above: the file's own folder.
    let lone = top.join("lone/x.agp");
    assert_eq!(package_root(&lone), top.join("lone"));
    let _ = std::fs::remove_dir_all(&top);
}

/// A DSF's `NETWORK_DEF lib/g10/roads.net` (ROADS.md §1.6, §2): through the libraries first,
/// else the install's `Resources/default scenery/1000 roads/`, laid out as X-Plane ships it
/// (`roads.net`, `roads_EU.net`, `textures/`, `objects/`, no export of them read here).
#[test]
fn road_networks_resolve_through_the_library_then_the_stock_roads_folder() {
    let f = fake_install("net");
    let roads = f.default("1000 roads");
    std::fs::create_dir_all(roads.join("textures")).unwrap();
    std::fs::create_dir_all(roads.join("objects")).unwrap();
    for net in ["roads.net", "roads_EU.net"] {
        std::fs::write(roads.join(net), "A\n800\nROADS\n").unwrap();
    }
    let (r, _) = resolver(&f);
    for (name, file) in [
        ("lib/g10/roads.net", "roads.net"),
        ("lib/g10/roads_EU.net", "roads_EU.net"),
        ("lib\\g10\\roads.net", "roads.net"),
    ] {
        let got = r.resolve_network(name, None).unwrap();
        assert_eq!(
            got,
            Resolved {
                path: roads.join(file),
                package: Some("1000 roads".into()),
                via: "install's 1000 roads folder".into(),
            },
            "{name}"
        );
    }
    assert_eq!(r.resolve_network("lib/g10/nowhere.net", None), None);
    assert_eq!(r.resolve_network("", None), None);
    // A library's export comes first, with its REGIONs: `lib/road.net` is Alpha Library's
    // in Europe, X-Plane Landmarks' elsewhere.
    let europe = Some(LatLon {
        lat: 48.5,
        lon: 9.5,
    });
    let got = r.resolve_network("lib/road.net", europe).unwrap();
    assert_eq!(got.path, f.custom("Alpha Library").join("roads/europe.net"));
    let got = r.resolve_network("lib/road.net", None).unwrap();
    assert_eq!(
        got.path,
        f.default("X-Plane Landmarks").join("roads/world.net")
    );
    assert_eq!(got.via, "EXPORT");
    // Without an install the stock folder is not looked in.
    let mut d = Vec::new();
    let bare = for_document(&f.doc(), None, &mut d);
    assert_eq!(bare.resolve_network("lib/g10/roads.net", None), None);
    // A file of the document's package by that path comes before the stock folder.
    let own = f.doc_pack().join("lib/g10/roads.net");
    std::fs::create_dir_all(own.parent().unwrap()).unwrap();
    std::fs::write(&own, "A\n800\nROADS\n").unwrap();
    let got = r.resolve_network("lib/g10/roads.net", None).unwrap();
    assert_eq!((got.path, got.via.as_str()), (own, "path in package"));
}
