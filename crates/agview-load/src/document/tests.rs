//! The document loading path: DSF text (and, through the same features, binary DSF and
//! WED), combining, the atlas, and the rules a feature follows.

use std::path::PathBuf;

use super::combine::atlas_image;
use super::*;
use crate::art::{ImageData, ImagePixels};
use crate::input;
use crate::scene::{ArtRef, FeatureKind, ObjectInstance, SceneKind, Tile, TileTexture};

thread_local! {
    /// A test's [`PREVIEW_PART_MIN`] on its own thread, for documents small enough to test.
    pub(super) static PART_MIN: std::cell::Cell<Option<usize>> = const { std::cell::Cell::new(None) };
}

fn sample(rel: &str) -> PathBuf {
    crate::document::synthetic::source_tree().join(rel)
}

fn part(texture: &str, mesh: &str, n: usize) -> Scene {
    let mut s = Scene {
        tile_texture: Some(TileTexture {
            path: texture.into(),
            width_px: 512.0,
            height_px: 256.0,
            lit: None,
        }),
        meshes: vec![ArtRef {
            name: mesh.into(),
            resolved: Some(format!("/x/{mesh}")),
        }],
        tile_lod: 5000.0,
        ..Scene::default()
    };
    for i in 0..n {
        s.tiles.push(Tile {
            uv: [0.0, 0.0, 512.0, 256.0],
            order: i as u32,
            ..Tile::default()
        });
        s.objects.push(ObjectInstance {
            index: 0,
            path: mesh.into(),
            ..ObjectInstance::default()
        });
    }
    s
}

#[test]
fn combine_shares_art_and_keeps_one_texture_as_declared() {
    let (s, atlas) = combine(vec![part("a.png", "m.obj", 2), part("a.png", "m.obj", 3)]);
    assert!(atlas.is_empty());
    assert_eq!(s.tiles.len(), 5);
    assert_eq!(s.meshes.len(), 1, "the same mesh is one reference");
    assert!(s.objects.iter().all(|o| o.index == 0));
    assert_eq!(s.tiles[0].uv, [0.0, 0.0, 512.0, 256.0]);
    assert_eq!(s.tile_texture.as_ref().unwrap().path, "a.png");
    // Later features draw after earlier ones.
    assert!(s.tiles[2].order > s.tiles[1].order);
    assert_eq!(s.stats.tiles, 5);
    assert_eq!(s.kind, SceneKind::Dsf);
}

/// Merging part by part as a load does (the merged lists growing as parts come, more of
/// them than expected) gives exactly what combining them all at once gives, runs of tiles
/// re-based, art indices, atlas slots and drawing orders included.
#[test]
fn combining_part_by_part_equals_combining_at_once() {
    let parts = || {
        let mut v = Vec::new();
        for i in 0..200 {
            let (tex, mesh) = [("a.png", "m.obj"), ("b.png", "n.obj"), ("a.png", "k.obj")][i % 3];
            let mut p = part(tex, mesh, 1 + i % 4);
            p.runs.push(crate::scene::TileRun {
                first: 0,
                len: p.tiles.len(),
            });
            p.warnings.push(crate::diag::Diagnostic::general(
                crate::diag::Severity::Warning,
                format!("part {i}"),
            ));
            p.polygon.push(vec![[i as f32, 0.0]]);
            if i % 7 == 0 {
                p.layer_group.offset = -1;
            }
            v.push(p);
        }
        v
    };
    let json = |(s, atlas): (Scene, TileAtlas)| (serde_json::to_string(&s).expect("json"), atlas);
    let at_once = json(combine(parts()));
    let mut c = combine::Combiner::new(150);
    for p in parts() {
        c.push(p);
    }
    assert_eq!(c.len(), 200);
    let (s, atlas) = c.finish();
    assert_eq!(atlas.len(), 2, "tiles of two textures: an atlas");
    assert_eq!(s.runs.last().map(|r| r.first + r.len), Some(s.tiles.len()));
    assert_eq!(json((s, atlas)), at_once);
}

#[test]
fn the_atlas_keeps_each_slots_night_texture() {
    let mut lit = part("b.png", "n.obj", 1);
    lit.tile_texture.as_mut().unwrap().lit = Some("b_LIT.png".into());
    let (s, atlas) = combine(vec![part("a.png", "m.obj", 1), lit]);
    assert_eq!(atlas.lit, vec![None, Some("b_LIT.png".to_string())]);
    // The reload watches every file the atlas is made of.
    assert_eq!(atlas.files().count(), 3);
    assert!(s.tile_texture.unwrap().lit.is_some());
    // Without any night texture the atlas has none.
    let (s, _) = combine(vec![part("a.png", "m.obj", 1), part("b.png", "n.obj", 1)]);
    assert!(s.tile_texture.unwrap().lit.is_none());
    // One texture, a night texture on one feature only: no atlas, and the night texture
    // kept.
    let mut lit_a = part("a.png", "m.obj", 1);
    lit_a.tile_texture.as_mut().unwrap().lit = Some("a_LIT.png".into());
    let (s, atlas) = combine(vec![part("a.png", "m.obj", 1), lit_a]);
    assert!(atlas.is_empty());
    assert_eq!(s.tile_texture.unwrap().lit.as_deref(), Some("a_LIT.png"));
}

#[test]
fn combine_moves_tiles_of_other_textures_into_atlas_slots() {
    let (s, atlas) = combine(vec![part("a.png", "m.obj", 1), part("b.png", "n.obj", 1)]);
    assert_eq!(atlas.paths, vec!["a.png".to_string(), "b.png".to_string()]);
    assert_eq!(atlas.lit, vec![None, None]);
    let t = s.tile_texture.as_ref().unwrap();
    assert_eq!((t.width_px, t.height_px), (1.0, 2.0));
    assert_eq!(s.tiles[0].uv, [0.0, 0.0, 1.0, 1.0]);
    assert_eq!(s.tiles[1].uv, [0.0, 1.0, 1.0, 2.0]);
    assert_eq!(s.meshes.len(), 2);
    assert_eq!(s.objects[1].index, 1, "indices follow the merged mesh list");
}

#[test]
fn atlas_puts_slot_zero_at_the_bottom_with_every_mip() {
    let solid = |name: &str, w: u32, h: u32, c: [u8; 4]| {
        let px: Vec<u8> = (0..w * h).flat_map(|_| c).collect();
        ImageData {
            name: name.into(),
            width: w,
            height: h,
            pixels: ImagePixels::Rgba8(crate::art::mip_chain(px, w, h)),
            missing: false,
        }
    };
    let red = solid("red", 8, 4, [255, 0, 0, 255]);
    let blue = solid("blue", 4, 4, [0, 0, 255, 255]);
    let img = atlas_image(&[red, blue]);
    assert_eq!((img.width, img.height), (8, 8));
    let ImagePixels::Rgba8(mips) = &img.pixels else {
        panic!("expected RGBA")
    };
    // 8x8, 4x4, 2x2 levels of the 8 x 4 slots, stacked; 1x1 would not hold both.
    let sizes: Vec<usize> = mips.iter().map(Vec::len).collect();
    assert_eq!(sizes, vec![8 * 8 * 4, 4 * 4 * 4, 2 * 2 * 4]);
    let px = |level: usize, w: usize, x: usize, y: usize| {
        mips[level][(y * w + x) * 4..(y * w + x) * 4 + 4].to_vec()
    };
    assert_eq!(
        px(0, 8, 1, 7),
        [255, 0, 0, 255],
        "slot 0 (red) in the bottom rows"
    );
    assert_eq!(
        px(0, 8, 6, 0),
        [0, 0, 255, 255],
        "slot 1 (blue) on top, stretched"
    );
    assert_eq!(px(2, 2, 1, 1), [255, 0, 0, 255]);
    assert_eq!(px(2, 2, 1, 0), [0, 0, 255, 255]);
}

#[test]
fn dsf_town_lays_out_every_feature_in_one_frame() {
    let path = sample("sample_scenery/polygons/town.txt");
    let v = load(&path, &Inputs::default()).unwrap();
    let s = &v.loaded.scene;
    let f = &s.features;
    // Three points, three blocks, the lakeside string; a kiosk, a facade and a wood placed
    // by hand.
    assert_eq!(f.len(), 10, "{f:#?}");
    assert_eq!(s.kind, SceneKind::Dsf);
    let count = |k: FeatureKind| f.iter().filter(|x| x.kind == k).count();
    assert_eq!(count(FeatureKind::Agb), 3);
    assert_eq!(count(FeatureKind::Agp), 3);
    assert_eq!(count(FeatureKind::Ags), 1);
    assert_eq!(count(FeatureKind::Obj), 1);
    assert_eq!(count(FeatureKind::Fac), 1);
    assert_eq!(count(FeatureKind::For), 1);
    // In document order, each naming its line.
    assert!(f[0].source.ends_with("town.txt:34"), "{}", f[0].source);
    assert!(f.iter().all(|x| x.resolved.is_some()), "{f:#?}");
    // Three ground textures (plaza, block, string): an atlas.
    assert_eq!(v.atlas.len(), 3, "{:?}", v.atlas);
    // Every tile is drawn but those of props.agp, which says HIDE_TILES.
    let sum: usize = f
        .iter()
        .filter(|x| !x.hide_tiles)
        .map(|x| x.stats.tiles)
        .sum();
    assert_eq!(s.tiles.len(), sum);
    assert!(f
        .iter()
        .any(|x| x.asset.ends_with("props.agp") && x.hide_tiles));
    // The blocks laid out as on their own: 30, 18 and 15 tiles (sample README).
    let blocks: Vec<usize> = f
        .iter()
        .filter(|x| x.kind == FeatureKind::Agb)
        .map(|x| x.stats.tiles)
        .collect();
    assert_eq!(blocks, vec![30, 18, 15]);
    // Every placed thing names its feature, and the feature's stats count it.
    for (i, x) in f.iter().enumerate() {
        let i = Some(i as u32);
        assert_eq!(
            s.objects.iter().filter(|o| o.feature == i).count(),
            x.stats.objects
        );
        assert_eq!(
            s.trees.iter().filter(|t| t.feature == i).count(),
            x.stats.trees
        );
        assert_eq!(
            s.facades.iter().filter(|t| t.feature == i).count(),
            x.stats.facades
        );
    }
    let wood = f.iter().find(|x| x.kind == FeatureKind::For).unwrap();
    assert!(wood.stats.trees > 20, "{wood:?}");
    assert_eq!(wood.param, 160);
    let fac = f.iter().find(|x| x.kind == FeatureKind::Fac).unwrap();
    assert_eq!(fac.stats.facades, 1);
    let h = s.facades.iter().find(|x| {
        x.facade.is_some()
            && x.feature
                .is_some_and(|i| f[i as usize].kind == FeatureKind::Fac)
    });
    assert_eq!(h.unwrap().height, 12.0);
    // Everything within the town's few hundred meters of the origin.
    let (lo, hi) = s.bounds();
    assert!(
        hi[0] - lo[0] < 2000.0 && hi[1] - lo[1] < 2000.0,
        "{lo:?} {hi:?}"
    );
    // The watch list has the DSF, the assets and their art.
    assert!(v.loaded.files.iter().any(|f| f.ends_with("city_block.agb")));
    assert!(v.loaded.files.iter().any(|f| f.ends_with("town.txt")));
    let mut view = v;
    let art = load_document_art(&mut view);
    let atlas = &art.images[art.tile_texture.unwrap()];
    assert_eq!(atlas.name, "tile atlas");
    assert!(!atlas.missing);
}

#[test]
fn only_autogen_leaves_out_what_was_placed_by_hand() {
    let path = sample("sample_scenery/polygons/town.txt");
    let args = Inputs {
        only: vec![crate::input::Only::Autogen],
        ..Inputs::default()
    };
    let v = load(&path, &args).unwrap();
    let f = &v.loaded.scene.features;
    assert_eq!(f.len(), 7);
    assert!(f.iter().all(|x| x.kind.is_autogen()));
}

#[test]
fn dsf_feature_matches_the_command_line_layout() {
    let path = sample("sample_scenery/polygons/town.txt");
    let v = load(&path, &Inputs::default()).unwrap();
    let asset = sample("sample_scenery/autogen/city_block.agb");
    let one = load(
        &asset,
        &Inputs {
            polygon: Some(crate::input::PolygonFile {
                path: path.clone(),
                index: Some(2),
            }),
            ..Inputs::default()
        },
    )
    .unwrap()
    .loaded;
    let f = v
        .loaded
        .scene
        .features
        .iter()
        .filter(|f| f.kind == FeatureKind::Agb)
        .nth(2)
        .unwrap();
    assert_eq!(f.choice, one.scene.choice);
    assert_eq!(f.stats, one.scene.stats);
    // The same tiles, moved into the document's frame.
    let fi = v.loaded.scene.features.iter().position(|x| x == f).unwrap() as u32;
    let tiles: Vec<&Tile> = v
        .loaded
        .scene
        .tiles
        .iter()
        .filter(|t| t.feature == Some(fi))
        .collect();
    assert_eq!(tiles.len(), one.scene.tiles.len());
    let geo = v.loaded.scene.geo.unwrap();
    let own = one.scene.geo.unwrap();
    let d = input::project(
        [geo.origin_lon, geo.origin_lat],
        [own.origin_lon, own.origin_lat],
    );
    for (a, b) in tiles.iter().zip(&one.scene.tiles) {
        for k in 0..4 {
            assert!((a.corners[k][0] - (b.corners[k][0] + d[0])).abs() < 1e-3);
            assert!((a.corners[k][1] - (b.corners[k][1] + d[1])).abs() < 1e-3);
        }
    }
}

#[test]
fn a_broken_or_missing_asset_costs_its_features_only() {
    let dir = std::env::temp_dir().join(format!("agview-dsf-broken-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("b.agb"), "A\n1000\nAG_BLOCK\nTEXTURE_SCALE x 10\n").unwrap();
    let dsf = dir.join("d.txt");
    let poly = "BEGIN_WINDING\nPOLYGON_POINT 8 47\nPOLYGON_POINT 8.001 47\n\
                POLYGON_POINT 8.001 47.001\nEND_WINDING\nEND_POLYGON\n";
    std::fs::write(
        &dsf,
        format!("I\n800\nDSF2TEXT\nPOLYGON_DEF b.agb\nBEGIN_POLYGON 0 0 2\n{poly}"),
    )
    .unwrap();
    // Only the broken asset: nothing to show, and the error names its line.
    let e = load(&dsf, &Inputs::default()).unwrap_err();
    assert!(e.is_error());
    assert!(e.path.ends_with("b.agb"), "{e}");
    assert_eq!(e.line(), Some(4), "{e}");
    // With a good feature beside it, the good one shows and the broken one is an error
    // in the diagnostics and the JSON warnings.
    let good = sample("sample_scenery/objects/kiosk.obj");
    let missing = "POLYGON_DEF nowhere.agb\n";
    std::fs::write(
        &dsf,
        format!(
            "I\n800\nDSF2TEXT\nPOLYGON_DEF b.agb\n{missing}OBJECT_DEF {}\nBEGIN_POLYGON 0 0 2\n{poly}\
             BEGIN_POLYGON 1 0 2\n{poly}OBJECT 0 8.0005 47.0005 0\n",
            good.display()
        ),
    )
    .unwrap();
    let v = load(&dsf, &Inputs::default()).unwrap();
    let s = &v.loaded.scene;
    assert_eq!(s.features.len(), 3);
    assert!(v.loaded.diagnostics.iter().any(|d| d.is_error()));
    assert!(
        s.warnings
            .lines()
            .iter()
            .any(|w| w.contains("error:") && w.contains("b.agb")),
        "{:?}",
        s.warnings
    );
    // The missing asset is a warning and a placeholder where its polygon is.
    assert!(s.features[1].resolved.is_none());
    assert_eq!(s.features[1].stats.objects, 1);
    assert!(v
        .loaded
        .diagnostics
        .iter()
        .any(|d| !d.is_error() && d.message.contains("nowhere.agb")));
    assert_eq!(s.features[2].stats.objects, 1);
    // A DSF with nothing agview draws is no error: an empty scene and a note.
    std::fs::write(&dsf, "I\n800\nDSF2TEXT\nPOLYGON_DEF x.pol\n").unwrap();
    let v = load(&dsf, &Inputs::default()).unwrap();
    assert!(v.loaded.scene.is_empty());
    assert!(v.loaded.diagnostics.iter().all(|d| !d.is_error()));
    assert!(v.loaded.diagnostics.iter().any(|d| d
        .message
        .contains("places nothing of the kinds agview draws")));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn parallel_layout_equals_serial() {
    let path = sample("sample_scenery/polygons/town.txt");
    let serial = load_with(
        &path,
        &Inputs::default(),
        &LoadOptions {
            threads: 1,
            progress: None,
            ground: None,
        },
    )
    .unwrap();
    let progress = Arc::new(Progress::default());
    let parallel = load_with(
        &path,
        &Inputs::default(),
        &LoadOptions {
            threads: 4,
            progress: Some(progress.clone()),
            ground: None,
        },
    )
    .unwrap();
    assert_eq!(progress.get(), (10, 10));
    let a = serde_json::to_string(&serial.loaded.scene).unwrap();
    let b = serde_json::to_string(&parallel.loaded.scene).unwrap();
    assert!(a == b, "parallel layout differs from serial");
}

/// A large document shows a preview of its first eighth, then its rest in parts of at
/// least as many features, and the whole it then returns is the document `load_with` gives.
#[test]
fn a_large_document_previews_its_first_features_then_its_rest_in_parts_and_ends_the_same() {
    let assets = crate::document::synthetic::sample_assets().unwrap();
    let tile = crate::document::synthetic::synthetic_tile(2400, &assets);
    let doc = crate::document::synthetic::TempDocument::write("preview-test", &tile.text).unwrap();
    let opts = LoadOptions::default();
    // Parts of at least 500 features here, as of at least `PREVIEW_PART_MIN` in use.
    PART_MIN.with(|c| c.set(Some(500)));
    let whole = load_with(&doc.path, &Inputs::default(), &opts).unwrap();
    let mut previews = Vec::new();
    let mut keep = |p: PreviewPart| {
        previews.push(p);
        true
    };
    let with_preview =
        load_with_preview(&doc.path, &Inputs::default(), &opts, Some(&mut keep)).unwrap();
    // The first eighth, but at least 500; then 1,900 in three parts of at least 500.
    let n = 500;
    let sizes: Vec<usize> = previews
        .iter()
        .map(|p| p.doc.loaded.scene.features.len())
        .collect();
    assert_eq!(sizes, [n, 634, 634, 632], "the first, then the rest");
    let flags: Vec<(bool, bool)> = previews.iter().map(|p| (p.first, p.last)).collect();
    assert_eq!(
        flags,
        [(true, false), (false, false), (false, false), (false, true)]
    );
    let all = &whole.loaded.scene;
    let first = &previews[0].doc.loaded.scene;
    assert!(first.stats.tiles > 0 && first.stats.tiles < all.stats.tiles);
    let mut at = 0;
    for p in &previews {
        let s = &p.doc.loaded.scene;
        let k = s.features.len();
        assert_eq!(
            s.features[..],
            all.features[at..at + k],
            "each part holds the features after those before it"
        );
        at += k;
    }
    let sum = |f: &dyn Fn(&Scene) -> usize| {
        previews
            .iter()
            .map(|p| f(&p.doc.loaded.scene))
            .sum::<usize>()
    };
    assert_eq!(sum(&|s| s.stats.tiles), all.stats.tiles);
    assert_eq!(sum(&|s| s.objects.len()), all.objects.len());
    // The extent as read, handed with every part, lies within the whole's as laid out:
    // the features' polygons count there, and the `.agp`s' tiles reach past their points.
    let (lo, hi) = all.extent().unwrap();
    let (rlo, rhi) = previews[0].extent.unwrap();
    assert!(lo[0] <= rlo[0] && lo[1] <= rlo[1] && rhi[0] <= hi[0] && rhi[1] <= hi[1]);
    assert!(previews.iter().all(|p| p.extent == previews[0].extent));
    let a = serde_json::to_string(&whole.loaded.scene).unwrap();
    let b = serde_json::to_string(&with_preview.loaded.scene).unwrap();
    assert!(a == b, "the document after a preview differs");
    // A preview not shown (the window had no device yet) is handed no rest; a part
    // declined, no further part.
    for shown in [1, 2] {
        let mut calls = 0;
        let mut decline = |_: PreviewPart| {
            calls += 1;
            calls < shown
        };
        let declined =
            load_with_preview(&doc.path, &Inputs::default(), &opts, Some(&mut decline)).unwrap();
        assert_eq!(calls, shown, "nothing handed after a part declined");
        let c = serde_json::to_string(&declined.loaded.scene).unwrap();
        assert!(a == c, "the document after a declined part differs");
    }
    // A rest smaller than `PREVIEW_PART_MIN` comes in one part.
    PART_MIN.with(|c| c.set(None));
    let mut sizes = Vec::new();
    let mut count = |p: PreviewPart| {
        sizes.push(p.doc.loaded.scene.features.len());
        true
    };
    load_with_preview(&doc.path, &Inputs::default(), &opts, Some(&mut count)).unwrap();
    assert_eq!(sizes, [n, 1900], "a small rest in one part");
    // Small documents show none.
    let mut none = |_: PreviewPart| -> bool { panic!("a preview of a small document") };
    load_with_preview(
        &sample("sample_scenery/polygons/town.txt"),
        &Inputs::default(),
        &opts,
        Some(&mut none),
    )
    .unwrap();
}

#[test]
fn a_rest_comes_in_parts_of_at_least_the_preview_and_the_minimum() {
    // At most three parts, none under the preview nor the minimum; a smaller rest whole.
    assert_eq!(rest_part_size(1_700, 500, PREVIEW_PART_MIN), 1_700);
    assert_eq!(rest_part_size(19_999, 500, 10_000), 19_999);
    assert_eq!(rest_part_size(20_000, 500, 10_000), 10_000);
    assert_eq!(rest_part_size(70_000, 10_000, 10_000), 23_334);
    assert_eq!(rest_part_size(1_900, 500, 500), 634);
    assert_eq!(rest_part_size(1_900, 1_000, 500), 1_900);
    assert_eq!(rest_part_size(5, 500, 0), 5);
}

#[test]
fn parallel_map_keeps_item_order() {
    let items: Vec<u32> = (0..1000).collect();
    let out = parallel_map(&items, 3, None, |i, x| (i as u32) * 2 + x);
    assert_eq!(out, items.iter().map(|x| x * 3).collect::<Vec<_>>());
}

#[test]
fn parallel_in_order_takes_each_result_in_item_order() {
    let progress = Progress::default();
    let mut taken = Vec::new();
    // Uneven items, so results come in out of order.
    let work = |i: usize| {
        if i.is_multiple_of(5) {
            std::thread::sleep(std::time::Duration::from_micros(200));
        }
        i * 2
    };
    crate::parallel::parallel_in_order(300, 3, Some(&progress), work, |r| taken.push(r));
    assert_eq!(taken, (0..300).map(|i| i * 2).collect::<Vec<_>>());
    assert_eq!(progress.get().0, 300);
}

/// Every point a scene places, in order (tile corners, objects, facade footprints, trees).
fn points(s: &Scene) -> Vec<[f32; 2]> {
    let mut v: Vec<[f32; 2]> = s.tiles.iter().flat_map(|t| t.corners).collect();
    v.extend(s.objects.iter().map(|o| o.pos));
    v.extend(s.facades.iter().flat_map(|f| f.footprint.iter().copied()));
    v.extend(s.trees.iter().map(|t| t.pos));
    v.extend(
        s.draped
            .iter()
            .flat_map(|d| d.rings.iter().flatten().copied()),
    );
    v.extend(s.lines.iter().flat_map(|l| l.points.iter().copied()));
    v
}

/// Two documents of the same features lay out alike: the same asset, parameter, stats,
/// choice and corner count per feature, and every point within 5 cm.
pub(super) fn assert_alike(a: &Document, b: &Document) {
    let (sa, sb) = (&a.loaded.scene, &b.loaded.scene);
    assert_eq!(sa.features.len(), sb.features.len());
    for (fa, fb) in sa.features.iter().zip(&sb.features) {
        let what = format!("{} / {}", fa.source, fb.source);
        assert_eq!(fa.asset, fb.asset, "{what}");
        assert_eq!(fa.kind, fb.kind, "{what}");
        assert_eq!(fa.param, fb.param, "{what}");
        assert_eq!(fa.stats, fb.stats, "{what}");
        assert_eq!(fa.choice, fb.choice, "{what}");
        assert_eq!(fa.corners.len(), fb.corners.len(), "{what}");
    }
    let (pa, pb) = (points(sa), points(sb));
    assert_eq!(pa.len(), pb.len());
    let worst = pa
        .iter()
        .zip(&pb)
        .map(|(p, q)| (p[0] - q[0]).hypot(p[1] - q[1]))
        .fold(0.0f32, f32::max);
    assert!(worst < 0.05, "points differ by up to {worst} m");
}

#[test]
fn the_wed_project_lays_out_like_the_dsf_text() {
    let text = load(
        &sample("sample_scenery/polygons/town.txt"),
        &Inputs::default(),
    )
    .unwrap();
    // The scenery folder means its earth.wed.xml.
    let wed = load(&sample("sample_scenery"), &Inputs::default()).unwrap();
    let s = &wed.loaded.scene;
    assert_eq!(s.kind, SceneKind::Wed);
    assert!(
        s.features[0].source.contains(": id ") && s.features[0].source.contains('"'),
        "{}",
        s.features[0].source
    );
    // The hidden kiosk is left out, as WED's exporter leaves it out.
    assert_eq!(s.features.len(), text.loaded.scene.features.len());
    assert_alike(&text, &wed);
}

#[test]
fn combine_keeps_each_tree_with_its_own_forest() {
    let woods = |name: &str, n: usize| Scene {
        forest: Some(ArtRef {
            name: name.into(),
            resolved: Some(format!("/x/{name}")),
        }),
        trees: (0..n)
            .map(|_| crate::scene::TreeInstance::default())
            .collect(),
        ..Scene::default()
    };
    let (s, _) = combine(vec![
        woods("a.for", 2),
        woods("b.for", 3),
        woods("a.for", 1),
    ]);
    assert_eq!(s.forest.as_ref().unwrap().name.as_ref(), "a.for");
    assert_eq!(s.more_forests.len(), 1);
    assert_eq!(s.more_forests[0].name.as_ref(), "b.for");
    let forests: Vec<u32> = s.trees.iter().map(|t| t.forest).collect();
    assert_eq!(forests, vec![0, 0, 1, 1, 1, 0]);
    assert!(s.warnings.is_empty(), "{:?}", s.warnings);
}

#[test]
fn library_paths_resolve_through_an_x_plane_install_and_name_their_package() {
    let root = std::env::temp_dir().join(format!("agview-xp-doc-{}", std::process::id()));
    let lib = root.join("Custom Scenery/Lib Pack");
    let mine = root.join("Custom Scenery/My Scenery");
    std::fs::create_dir_all(&lib).unwrap();
    std::fs::create_dir_all(&mine).unwrap();
    std::fs::create_dir_all(root.join("Resources/default scenery")).unwrap();
    std::fs::write(
        root.join("Custom Scenery/scenery_packs.ini"),
        "I\n1000 Version\nSCENERY\n\nSCENERY_PACK Custom Scenery/My Scenery/\nSCENERY_PACK Custom Scenery/Lib Pack/\n",
    )
    .unwrap();
    std::fs::copy(
        sample("sample_scenery/objects/kiosk.obj"),
        lib.join("kiosk.obj"),
    )
    .unwrap();
    std::fs::write(
        lib.join("library.txt"),
        "A\n800\nLIBRARY\nEXPORT lib/test/kiosk.obj kiosk.obj\n",
    )
    .unwrap();
    let dsf = mine.join("town.txt");
    std::fs::write(
        &dsf,
        "I\n800\nDSF2TEXT\nOBJECT_DEF lib/test/kiosk.obj\nOBJECT 0 8.5 47.5 0\n",
    )
    .unwrap();
    // Without the install the library path is a placeholder with a warning.
    let alone = load(&dsf, &Inputs::default()).unwrap();
    let f = &alone.loaded.scene.features[0];
    assert!(f.resolved.is_none());
    assert!(alone
        .loaded
        .diagnostics
        .iter()
        .any(|d| d.message.contains("lib/test/kiosk.obj")));
    // With it, the object comes from the library's package.
    let args = Inputs {
        resolve: crate::resolve::ResolveOptions {
            xplane: Some(root.clone()),
            ..Default::default()
        },
        ..Inputs::default()
    };
    let with = load(&dsf, &args).unwrap();
    let f = &with.loaded.scene.features[0];
    assert!(
        f.resolved.as_deref().unwrap().ends_with("kiosk.obj"),
        "{f:?}"
    );
    assert_eq!(f.package.as_deref(), Some("Lib Pack"));
    // Named lights look in the install's Resources/lights.txt, where it has one.
    assert_eq!(alone.loaded.scene.lights_txt, None);
    assert_eq!(with.loaded.scene.lights_txt, None, "the install has none");
    std::fs::create_dir_all(root.join("Resources")).unwrap();
    std::fs::write(root.join("Resources/lights.txt"), "A\n850\nLIGHT_SPECS\n").unwrap();
    let lit = load(&dsf, &args).unwrap();
    let named = lit.loaded.scene.lights_txt.as_deref().unwrap_or("");
    assert!(named.ends_with("lights.txt"), "{named:?}");
    let _ = std::fs::remove_dir_all(&root);
}

#[test]
fn binary_dsfs_plain_and_7zip_lay_out_like_the_dsf_text() {
    let text = load(
        &sample("sample_scenery/polygons/town.txt"),
        &Inputs::default(),
    )
    .unwrap();
    let plain = load(
        &sample("sample_scenery/polygons/town.dsf"),
        &Inputs::default(),
    )
    .unwrap();
    let zipped = load(
        &sample("sample_scenery/Earth nav data/+40+000/+47+008.dsf"),
        &Inputs::default(),
    )
    .unwrap();
    for bin in [&plain, &zipped] {
        let s = &bin.loaded.scene;
        assert_eq!(s.kind, SceneKind::Dsf);
        assert!(
            s.features[0].source.ends_with(": object 0"),
            "{}",
            s.features[0].source
        );
        assert!(
            s.features.iter().any(|f| f.source.ends_with(": polygon 0")),
            "{:?}",
            s.features
        );
        assert_alike(&text, bin);
    }
}

#[test]
fn a_binary_feature_that_cannot_be_laid_out_is_an_error_at_its_offset() {
    use crate::format::dsf_bin::write::{DsfToWrite, PolygonToWrite};
    let dir = std::env::temp_dir().join(format!("agview-bin-bad-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let block = sample("sample_scenery/autogen/city_block.agb");
    let kiosk = sample("sample_scenery/objects/kiosk.obj");
    let doc = DsfToWrite {
        object_defs: vec![kiosk.display().to_string()],
        polygon_defs: vec![block.display().to_string()],
        objects: vec![crate::format::dsf_bin::DsfBinObject {
            def: 0,
            lon: 8.5005,
            lat: 47.5005,
            heading: 0.0,
            offset: 0,
        }],
        polygons: vec![PolygonToWrite {
            def: 0,
            param: 0,
            coord_depth: 2,
            // Three points: an autogen block needs four.
            windings: vec![vec![[8.5, 47.5], [8.501, 47.5], [8.501, 47.501]]],
            extra: vec![Vec::new()],
        }],
        ..DsfToWrite::default()
    };
    let path = dir.join("bad.dsf");
    std::fs::write(&path, crate::format::dsf_bin::write_dsf(&doc)).unwrap();
    let v = load(&path, &Inputs::default()).unwrap();
    let s = &v.loaded.scene;
    assert_eq!(s.features.len(), 2);
    let poly = s
        .features
        .iter()
        .find(|f| f.kind == FeatureKind::Agb)
        .unwrap();
    assert!(poly.source.ends_with(": polygon 0"), "{}", poly.source);
    assert_eq!(poly.stats.tiles, 0);
    let e = v
        .loaded
        .diagnostics
        .iter()
        .find(|d| d.is_error())
        .expect("an error for the block");
    assert!(
        matches!(e.location, crate::diag::Location::Offset(_)),
        "{e}"
    );
    assert!(e.to_string().contains("not laid out"), "{e}");
    assert!(s
        .warnings
        .lines()
        .iter()
        .any(|w| w.contains("not laid out")));
    assert_eq!(s.stats.objects, 1, "the kiosk still shows");
    let _ = std::fs::remove_dir_all(&dir);
}

/// Each feature's tiles fade at that feature's `TILE_LOD`, not the largest of the document.
#[test]
fn each_feature_keeps_its_tile_lod() {
    let mut near = part("a.png", "m.obj", 1);
    near.tile_lod = 500.0;
    let far = part("a.png", "m.obj", 1);
    let (mut s, _) = combine(vec![near, far]);
    let info = |lod: f32| crate::scene::FeatureInfo {
        tile_lod: lod,
        ..crate::scene::FeatureInfo::new(
            "t.txt:1".into(),
            "x.agp".into(),
            crate::scene::FeatureKind::Agp,
            0,
        )
    };
    s.features = vec![info(500.0), info(5000.0)];
    s.tiles[0].feature = Some(0);
    s.tiles[1].feature = Some(1);
    assert_eq!(s.tile_lod_of(&s.tiles[0]), 500.0);
    assert_eq!(s.tile_lod_of(&s.tiles[1]), 5000.0);
    // A tile of no feature takes the scene's; a senseless LOD the default.
    let lone = Tile::default();
    assert_eq!(s.tile_lod_of(&lone), s.tile_lod);
    s.features[0].tile_lod = f32::NAN;
    assert_eq!(s.tile_lod_of(&s.tiles[0]), crate::layout::DEFAULT_TILE_LOD);
}

/// Tiles of a document draw by layer group, then offset, then feature order: a `beaches`
/// feature listed after a `roads` one draws under it, and offsets order within a group.
#[test]
fn combined_tiles_draw_in_layer_group_order() {
    let with = |name: &str, offset: i32| {
        let mut p = part("a.png", "m.obj", 2);
        p.layer_group = crate::scene::LayerGroup {
            name: name.into(),
            offset,
        };
        p
    };
    let (s, _) = combine(vec![
        with("roads", 0),
        with("beaches", 1),
        with("footprints", 0),
        with("beaches", -1),
        with("no_such_group", 0),
    ]);
    let first_order = |k: usize| s.tiles[2 * k].order;
    let by_draw: Vec<usize> = {
        let mut v: Vec<usize> = (0..5).collect();
        v.sort_by_key(|&k| first_order(k));
        v
    };
    // beaches -1, beaches +1, footprints, the unknown group (as footprints, later), roads.
    assert_eq!(by_draw, vec![3, 1, 2, 4, 0]);
    // Within a part the tiles keep their own order.
    assert_eq!(s.tiles[1].order, s.tiles[0].order + 1);
    assert_eq!(
        crate::scene::LayerGroup {
            name: "cars".into(),
            offset: -5
        }
        .draw_key()
        .0,
        13
    );
}

/// Tiles of a cropped block share one crop polygon; moving the scene moves it once.
#[test]
fn translate_moves_a_shared_crop_once() {
    let crop: std::sync::Arc<[[f32; 2]]> = vec![[0.0, 0.0], [4.0, 0.0], [4.0, 4.0]].into();
    let mut s = Scene {
        tiles: vec![
            Tile {
                crop: Some(crop.clone()),
                ..Tile::default()
            },
            Tile {
                crop: Some(crop.clone()),
                ..Tile::default()
            },
        ],
        ..Scene::default()
    };
    s.translate([10.0, 1.0]);
    for t in &s.tiles {
        assert_eq!(
            t.crop.as_deref(),
            Some(&[[10.0, 1.0], [14.0, 1.0], [14.0, 5.0]][..])
        );
    }
    let (a, b) = (s.tiles[0].crop.as_ref(), s.tiles[1].crop.as_ref());
    assert!(
        std::sync::Arc::ptr_eq(a.unwrap(), b.unwrap()),
        "still shared"
    );
}

/// A package with `lib/pad.agp` exported twice (a variant for steep ground and one for flat
/// ground), `lib/flat_only.agp` exported once (flat ground only), and `pad_rel.agp` beside
/// the DSF (flat ground only, but placed by relative path). The DSF places each once, at
/// heading `heading`.
fn slope_package(name: &str, heading: f32) -> (PathBuf, PathBuf) {
    let root = std::env::temp_dir().join(format!("agview-slope-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&root).unwrap();
    let agp = |limit: &str| {
        format!(
            "A\n1000\nAG_POINT\nTEXTURE_SCALE 100 100\nTEXTURE_WIDTH 10\n{limit}\nOBJECT o.obj\nTILE 0 0 100 100\nOBJ_DRAPED 50 50 0 0\n"
        )
    };
    std::fs::write(root.join("steep.agp"), agp("SLOPE_LIMIT -30 30 -30 30")).unwrap();
    std::fs::write(root.join("flat.agp"), agp("SLOPE_LIMIT -2 2 -2 2")).unwrap();
    std::fs::write(root.join("pad_rel.agp"), agp("SLOPE_LIMIT -2 2 -2 2")).unwrap();
    std::fs::write(
        root.join("library.txt"),
        "A\n800\nLIBRARY\nEXPORT lib/pad.agp steep.agp\nEXPORT lib/pad.agp flat.agp\nEXPORT lib/flat_only.agp flat.agp\n",
    )
    .unwrap();
    let dsf = root.join("points.txt");
    std::fs::write(
        &dsf,
        format!(
            "I\n800\nDSF2TEXT\nOBJECT_DEF lib/pad.agp\nOBJECT_DEF lib/flat_only.agp\nOBJECT_DEF pad_rel.agp\n\
             OBJECT 0 8.5 47.5 {heading}\nOBJECT 1 8.501 47.5 {heading}\nOBJECT 2 8.502 47.5 {heading}\n"
        ),
    )
    .unwrap();
    (root, dsf)
}

/// Ground rising `grade` (rise over run) to the north, whatever the scene's bounds.
fn ramp(grade: f32) -> Ground {
    Ground(Arc::new(move |_, _| {
        Ok(Terrain {
            size_m: 4000.0,
            resolution: 3,
            heights: [-2000.0, 0.0, 2000.0]
                .iter()
                .flat_map(|y| [grade * y; 3])
                .collect(),
            exaggeration: 1.0,
            center: [0.0, 0.0],
        })
    }))
}

fn load_on(dsf: &Path, seed: u64, ground: Option<Ground>) -> Document {
    let args = Inputs {
        seed,
        ..Inputs::default()
    };
    let opts = LoadOptions {
        threads: 1,
        progress: None,
        ground,
    };
    load_with(dsf, &args, &opts).unwrap()
}

fn file_of(f: &FeatureInfo) -> String {
    let r = f.resolved.as_deref().unwrap_or("(none)");
    Path::new(r)
        .file_name()
        .unwrap()
        .to_string_lossy()
        .into_owned()
}

#[test]
fn without_terrain_slope_limit_drops_nothing() {
    let (root, dsf) = slope_package("none", 0.0);
    let mut picked = std::collections::BTreeSet::new();
    for seed in 0..20 {
        let d = load_on(&dsf, seed, None);
        let s = &d.loaded.scene;
        assert!(s.features.iter().all(|f| f.dropped.is_none()));
        assert!(s.debug.slope_drops.is_empty());
        assert_eq!(s.objects.len(), 3);
        assert!(d.terrain.is_none());
        assert!(
            d.terrain_dependent,
            "library-path points depend on the terrain"
        );
        picked.insert(file_of(&s.features[0]));
    }
    // Unscreened, the seeded pick takes both variants.
    assert_eq!(picked.len(), 2, "{picked:?}");
    let _ = std::fs::remove_dir_all(&root);
}

#[test]
fn slope_limit_screens_library_variants_on_a_slope() {
    // 20% to the north: facing north the point pitches up 11.3°.
    let (root, dsf) = slope_package("ramp", 0.0);
    for seed in 0..20 {
        let d = load_on(&dsf, seed, Some(ramp(0.2)));
        let s = &d.loaded.scene;
        let f = &s.features;
        // Only the steep variant admits the slope.
        assert_eq!(file_of(&f[0]), "steep.agp", "seed {seed}");
        assert!(f[0].dropped.is_none());
        // The flat-only library path has no variant left: nothing is placed.
        let why = f[1].dropped.as_deref().expect("dropped");
        assert!(why.contains("pitch 11.3°, roll 0.0°"), "{why}");
        assert!(why.contains("flat.agp: pitch -2..2°, roll -2..2°"), "{why}");
        assert_eq!(f[1].stats.objects, 0);
        // A point placed by relative path is always placed.
        assert_eq!(file_of(&f[2]), "pad_rel.agp");
        assert!(f[2].dropped.is_none());
        assert_eq!(s.objects.len(), 2);
        assert!(s.objects.iter().all(|o| o.feature != Some(1)));
        // The overlay mark, the JSON warning and the diagnostic say which and why.
        assert_eq!(s.debug.slope_drops.len(), 1);
        let drop = &s.debug.slope_drops[0];
        assert_eq!(drop.feature, 1);
        assert!((drop.pitch - 11.31).abs() < 0.01 && drop.roll.abs() < 0.01);
        let lines = s.warnings.lines();
        let line = lines
            .iter()
            .find(|w| w.contains("lib/flat_only.agp not placed"))
            .expect("a warning in the JSON");
        assert!(line.contains("points.txt:8"), "{line}");
        assert!(d
            .loaded
            .diagnostics
            .iter()
            .any(|d| d.message.contains("lib/flat_only.agp not placed")));
        assert!(d.terrain.is_some(), "the terrain screened on comes back");
    }
    let _ = std::fs::remove_dir_all(&root);
}

#[test]
fn slope_is_measured_along_the_points_heading() {
    // Facing east on ground rising north: a roll, not a pitch.
    let (root, dsf) = slope_package("east", 90.0);
    let d = load_on(&dsf, 0, Some(ramp(0.2)));
    let s = &d.loaded.scene;
    let drop = &s.debug.slope_drops[0];
    assert!(
        drop.pitch.abs() < 0.01 && (drop.roll - 11.31).abs() < 0.01,
        "{drop:?}"
    );
    assert!((drop.heading - 90.0).abs() < 1e-3);
    // On flat ground every variant is admitted: the pick is the unscreened one.
    let (root2, dsf2) = slope_package("flat", 0.0);
    for seed in 0..10 {
        let screened = load_on(&dsf2, seed, Some(ramp(0.0)));
        let plain = load_on(&dsf2, seed, None);
        let a = serde_json::to_string(&screened.loaded.scene).unwrap();
        let b = serde_json::to_string(&plain.loaded.scene).unwrap();
        assert!(a == b, "seed {seed}: flat ground changes nothing");
    }
    let _ = std::fs::remove_dir_all(&root);
    let _ = std::fs::remove_dir_all(&root2);
}

#[test]
fn a_document_that_cannot_be_read_stays_an_error() {
    // A truncated binary DSF places nothing because it could not be read: an error, not
    // the note an empty but valid document gets.
    use crate::format::dsf_bin::write::DsfToWrite;
    let dir = std::env::temp_dir().join(format!("agview-truncated-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let doc = DsfToWrite {
        object_defs: vec!["a.obj".into()],
        objects: vec![crate::format::dsf_bin::DsfBinObject {
            def: 0,
            lon: 8.5,
            lat: 47.5,
            heading: 0.0,
            offset: 0,
        }],
        ..DsfToWrite::default()
    };
    let bytes = crate::format::dsf_bin::write_dsf(&doc);
    let path = dir.join("cut.dsf");
    std::fs::write(&path, &bytes[..100]).unwrap();
    let e = load(&path, &Inputs::default()).unwrap_err();
    assert!(e.is_error(), "{e}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn curved_draped_polygons_and_strings_are_flattened() {
    let dir = std::env::temp_dir().join(format!("agview-curves-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("a.pol"),
        "A\n850\nDRAPED_POLYGON\nTEXTURE a.png\nSCALE 10 10\n",
    )
    .unwrap();
    std::fs::write(
        dir.join("f.str"),
        "A\n850\nOBJECT_STRING\nOBJECT 0 0 post.obj\n",
    )
    .unwrap();
    // A square whose north side bows outward (its two northern corners have handles), and
    // a string whose middle node is written split: lo handle, the point, hi handle.
    let src = "I\n800\nDSF2TEXT\nPOLYGON_DEF a.pol\nPOLYGON_DEF f.str\n\
               BEGIN_POLYGON 0 0 4\nBEGIN_WINDING\n\
               POLYGON_POINT 8.0 47.0 8.0 47.0\n\
               POLYGON_POINT 8.001 47.0 8.001 47.0\n\
               POLYGON_POINT 8.001 47.001 8.001 47.0015\n\
               POLYGON_POINT 8.0 47.001 8.0 47.0005\n\
               END_WINDING\nEND_POLYGON\n\
               BEGIN_POLYGON 1 5 4\nBEGIN_WINDING\n\
               POLYGON_POINT 8.0 47.0 8.0 47.0\n\
               POLYGON_POINT 8.001 47.0 8.0012 47.0\n\
               POLYGON_POINT 8.001 47.0 8.001 47.0\n\
               POLYGON_POINT 8.001 47.0 8.001 47.0002\n\
               POLYGON_POINT 8.001 47.001 8.001 47.001\n\
               END_WINDING\nEND_POLYGON\n";
    let path = dir.join("curves.txt");
    std::fs::write(&path, src).unwrap();
    let doc = load(&path, &Inputs::default()).unwrap();
    let s = &doc.loaded.scene;
    assert_eq!(s.draped.len(), 1);
    let ring = &s.draped[0].rings[0];
    assert!(
        ring.len() > 8,
        "the curved side is flattened: {} points",
        ring.len()
    );
    // The bow reaches past the straight north side (about 111 m north of the south one).
    let north = ring.iter().map(|p| p[1]).fold(f32::MIN, f32::max);
    assert!(north > 111.2 + 20.0, "{north}");
    // The string: its split middle node does not loop back past the corner.
    let posts: Vec<[f32; 2]> = s.objects.iter().map(|o| o.pos).collect();
    assert!(!posts.is_empty());
    let east = posts.iter().map(|p| p[0]).fold(f32::MIN, f32::max);
    assert!(east < 76.0 + 0.5, "{east}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn only_keeps_the_parts_named() {
    use crate::input::Only;
    use crate::scene::FeatureKind as K;
    let args = Inputs {
        only: vec![Only::Ground, Only::Art],
        ..Inputs::default()
    };
    assert!(args.keeps(K::Pol) && args.keeps(K::Lin) && args.keeps(K::Str));
    assert!(args.keeps(K::Obj) && args.keeps(K::Fac) && args.keeps(K::For));
    assert!(!args.keeps(K::Agp) && !args.keeps(K::Ags));
    assert!(Inputs::default().keeps(K::Agb));
}

/// An airport as apt.dat rows, and the same airport as WED saves it (what WED's apt.dat
/// exporter writes from it): a runway with a shoulder, a displaced threshold and a blast
/// pad, a helipad, a taxiway with a hole and a curved node with a painted edge, and a hold
/// line on its own.
fn airport_apt() -> String {
    // The apt.dat reader's test airport, its runway with a 5 m asphalt shoulder (WED's
    // shoulder types are pavement only).
    crate::format::apt::TEST_AIRPORT.replace("100 30.00 1 215 ", "100 30.00 1 501 ")
}

fn airport_wed() -> String {
    let mut objects = String::new();
    let mut obj = |class: &str, id: u64, parent: u64, kids: &[u64], name: &str, body: &str| {
        let kids: String = kids
            .iter()
            .map(|k| format!("<child id=\"{k}\"/>"))
            .collect();
        objects.push_str(&format!(
            "<object class=\"{class}\" id=\"{id}\" parent_id=\"{parent}\"><children>{kids}</children>\
             <hierarchy name=\"{name}\" locked=\"0\" hidden=\"0\"/>{body}</object>\n"
        ));
    };
    let point =
        |lat: f64, lon: f64| format!("<point latitude=\"{lat:.9}\" longitude=\"{lon:.9}\"/>");
    let node = |lat: f64, lon: f64, hi: [f64; 2], marking: &str| {
        let m = if marking.is_empty() {
            "<markings/>".to_string()
        } else {
            format!("<markings><marking value=\"{marking}\"/></markings>")
        };
        format!(
            "<point latitude=\"{lat:.9}\" longitude=\"{lon:.9}\" split=\"0\" ctrl_latitude_lo=\"{:.9}\" \
             ctrl_longitude_lo=\"{:.9}\" ctrl_latitude_hi=\"{:.9}\" ctrl_longitude_hi=\"{:.9}\"/>{m}",
            -hi[0], -hi[1], hi[0], hi[1]
        )
    };
    obj("WED_Root", 1, 0, &[2], "root", "");
    obj(
        "WED_Airport",
        2,
        1,
        &[10, 20, 30, 60],
        "Agview Field",
        "<airport icao=\"XAGV\"/>",
    );
    obj(
        "WED_Runway",
        10,
        2,
        &[11, 12],
        "09/27",
        "<line width=\"30.00\"/><runway surface=\"Asphalt\" shoulder=\"Asphalt\" shoulder_width=\"5.0\" \
         roughness=\"0.25\" displaced1=\"150.0\" blastpad1=\"60.0\" displaced2=\"0.0\" blastpad2=\"0.0\"/>",
    );
    obj("WED_RunwayNode", 11, 10, &[], "Start", &point(47.5, 8.5));
    obj("WED_RunwayNode", 12, 10, &[], "End", &point(47.5, 8.52));
    obj(
        "WED_Helipad",
        20,
        2,
        &[],
        "H1",
        "<point latitude=\"47.503000000\" longitude=\"8.505000000\" heading=\"90.00\" width=\"20.0\" \
         length=\"20.0\"/><helipad surface=\"Concrete\" shoulder=\"None\"/>",
    );
    obj(
        "WED_Taxiway",
        30,
        2,
        &[31, 40],
        "Apron",
        "<taxiway surface=\"Concrete\" roughness=\"0.25\" heading=\"45.00\"/>",
    );
    obj(
        "WED_AirportChain",
        31,
        30,
        &[32, 33, 34, 35],
        "Outer",
        "<airport_chain closed=\"1\"/>",
    );
    let none = [0.0, 0.0];
    obj(
        "WED_AirportNode",
        32,
        31,
        &[],
        "n",
        &node(47.498, 8.5, none, ""),
    );
    obj(
        "WED_AirportNode",
        33,
        31,
        &[],
        "n",
        &node(
            47.498,
            8.504,
            [47.497 - 47.498, 8.5045 - 8.504],
            "Solid Yellow",
        ),
    );
    obj(
        "WED_AirportNode",
        34,
        31,
        &[],
        "n",
        &node(47.496, 8.504, none, ""),
    );
    obj(
        "WED_AirportNode",
        35,
        31,
        &[],
        "n",
        &node(47.496, 8.5, none, ""),
    );
    obj(
        "WED_AirportChain",
        40,
        30,
        &[41, 42, 43],
        "Hole",
        "<airport_chain closed=\"1\"/>",
    );
    obj(
        "WED_AirportNode",
        41,
        40,
        &[],
        "n",
        &node(47.4975, 8.501, none, ""),
    );
    obj(
        "WED_AirportNode",
        42,
        40,
        &[],
        "n",
        &node(47.4975, 8.502, none, ""),
    );
    obj(
        "WED_AirportNode",
        43,
        40,
        &[],
        "n",
        &node(47.497, 8.502, none, ""),
    );
    obj(
        "WED_AirportChain",
        60,
        2,
        &[61, 62],
        "Hold line",
        "<airport_chain closed=\"0\"/>",
    );
    obj(
        "WED_AirportNode",
        61,
        60,
        &[],
        "n",
        &node(47.499, 8.5, none, "Runway Hold"),
    );
    obj(
        "WED_AirportNode",
        62,
        60,
        &[],
        "n",
        &node(47.499, 8.501, none, ""),
    );
    format!("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<doc>\n<objects>\n{objects}</objects>\n</doc>\n")
}

#[test]
fn a_wed_projects_runways_helipads_and_taxiways_draw_as_its_apt_dat() {
    let dir = std::env::temp_dir().join(format!("agview-wed-airport-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let apt = dir.join("apt.dat");
    std::fs::write(&apt, airport_apt()).unwrap();
    let wed = dir.join("earth.wed.xml");
    std::fs::write(&wed, airport_wed()).unwrap();
    let a = load(&apt, &Inputs::default()).unwrap();
    let w = load(&wed, &Inputs::default()).unwrap();
    let kinds: Vec<FeatureKind> = w.loaded.scene.features.iter().map(|f| f.kind).collect();
    assert_eq!(
        kinds,
        [
            FeatureKind::Runway,
            FeatureKind::Helipad,
            FeatureKind::Pavement,
            FeatureKind::Marking
        ]
    );
    assert!(
        w.loaded.scene.features[2]
            .source
            .ends_with(": id 30 \"Apron\""),
        "{}",
        w.loaded.scene.features[2].source
    );
    let said: Vec<String> = w.loaded.diagnostics.iter().map(|d| d.to_string()).collect();
    assert!(
        !said.iter().any(|m| m.contains("skipped")),
        "nothing of the airport is skipped: {said:?}"
    );
    for f in &w.loaded.scene.features {
        assert!(
            f.stats.draped_triangles > 0 || f.stats.line_length > 0,
            "{f:?}"
        );
    }
    assert_alike(&a, &w);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_wed_airports_unknown_surface_and_marking_are_said_once_and_the_rest_drawn() {
    let dir = std::env::temp_dir().join(format!("agview-wed-airport-bad-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let wed = dir.join("earth.wed.xml");
    let text = airport_wed()
        .replace(
            "<taxiway surface=\"Concrete\"",
            "<taxiway surface=\"Marble\"",
        )
        .replace(
            "value=\"Runway Hold\"",
            "value=\"Single Taxi Wide (Black)\"",
        )
        // The runway names an end that is not in the file.
        .replace("<child id=\"12\"/>", "<child id=\"99\"/>");
    std::fs::write(&wed, text).unwrap();
    let w = load(&wed, &Inputs::default()).unwrap();
    let said: Vec<String> = w.loaded.diagnostics.iter().map(|d| d.to_string()).collect();
    let one = |needle: &str| {
        let n = said.iter().filter(|m| m.contains(needle)).count();
        assert_eq!(n, 1, "{needle}: {said:?}");
    };
    one("surface \"Marble\" is not one WED writes; drawn as asphalt");
    one("1 `Single Taxi Wide (Black)`");
    one("WED_Runway 10 \"09/27\" not drawn: a runway has two ends, it has 1");
    let kinds: Vec<FeatureKind> = w.loaded.scene.features.iter().map(|f| f.kind).collect();
    assert_eq!(
        kinds,
        [
            FeatureKind::Helipad,
            FeatureKind::Pavement,
            FeatureKind::Marking
        ]
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn with_an_install_airports_draw_in_its_pavement_pols_and_agviews_own_elsewhere() {
    let root = std::env::temp_dir().join(format!("agview-xp-pavement-{}", std::process::id()));
    let lib = root.join("Resources/default scenery/1000 airport scenery");
    let pkg = root.join("Custom Scenery/My Airport");
    std::fs::create_dir_all(&lib).unwrap();
    std::fs::create_dir_all(pkg.join("Earth nav data")).unwrap();
    std::fs::write(
        root.join("Custom Scenery/scenery_packs.ini"),
        "I\n1000 Version\nSCENERY\n\nSCENERY_PACK Custom Scenery/My Airport/\n",
    )
    .unwrap();
    // X-Plane 12's public concrete; no asphalt in this library.
    std::fs::write(
        lib.join("library.txt"),
        "A\n800\nLIBRARY\nEXPORT lib/airport/ground/pavement/concrete/new.pol pavement/concrete_new.pol\n",
    )
    .unwrap();
    std::fs::create_dir_all(lib.join("pavement")).unwrap();
    std::fs::write(
        lib.join("pavement/concrete_new.pol"),
        "A\n850\nDRAPED_POLYGON\nTEXTURE concrete.png\nSCALE 25 25\n",
    )
    .unwrap();
    let apt = pkg.join("Earth nav data/apt.dat");
    std::fs::write(&apt, airport_apt()).unwrap();
    let defs = |xplane: Option<PathBuf>| {
        let args = Inputs {
            resolve: crate::resolve::ResolveOptions {
                xplane,
                ..Default::default()
            },
            ..Inputs::default()
        };
        let d = load(&apt, &args).unwrap();
        let s = &d.loaded.scene;
        let mut by_kind: Vec<(FeatureKind, String)> = Vec::new();
        for d in &s.draped {
            let f = &s.features[d.feature.unwrap() as usize];
            let def = &s.pol_defs[d.def];
            let shown = match &def.resolved {
                Some(r) => format!("{} = {}", def.name, r.rsplit(['/', '\\']).next().unwrap()),
                None => def.name.to_string(),
            };
            if !by_kind.contains(&(f.kind, shown.clone())) {
                by_kind.push((f.kind, shown));
            }
        }
        by_kind
    };
    let concrete = "lib/airport/ground/pavement/concrete/new.pol = concrete_new.pol".to_string();
    assert_eq!(
        defs(Some(root.clone())),
        vec![
            // Asphalt runway and shoulders: the library has no asphalt, agview's own.
            (FeatureKind::Runway, "agview:surface/asphalt".to_string()),
            (FeatureKind::Helipad, concrete.clone()),
            (FeatureKind::Pavement, concrete),
        ]
    );
    assert_eq!(
        defs(None),
        vec![
            (FeatureKind::Runway, "agview:surface/asphalt".to_string()),
            (FeatureKind::Helipad, "agview:surface/concrete".to_string()),
            (FeatureKind::Pavement, "agview:surface/concrete".to_string()),
        ]
    );
    let _ = std::fs::remove_dir_all(&root);
}
