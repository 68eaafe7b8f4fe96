use super::*;
use crate::format::agn::{
    self, GenericBuildings, LibraryObject as AgnObject, Polygon, PolygonBuilding, PolygonBuildings,
    Rect, VegetationPolygons, VegetationRects,
};

/// The sample's square (U 4050, V 3859): middle latitude 47.5982666015625°, so one x unit is
/// 0.0146484375° · 111319.49 m · cos(47.59827°) = 1099.592071 m and one y unit
/// 0.010986328125° · 111319.49 m = 1222.992453 m (computed by hand, outside this code).
const NAME: &str = "000333311030032an.agn";
const MX: f64 = 1_099.592_070_790_809;
const MY: f64 = 1_222.992_452_562_82;

const SAMPLE: &str = concat!(
    concat!(env!("CARGO_MANIFEST_DIR"), "/../.."),
    "/sample_scenery/agn/000333311030032an.agn"
);

fn g(n: u8) -> Guid {
    let mut b = [0u8; 16];
    b[0] = n;
    b[15] = 0xaa;
    Guid(b)
}

fn fp(start: Point, to_second: Point, to_third: Point) -> Footprint {
    Footprint {
        offset: 0,
        start,
        to_second,
        to_third,
    }
}

fn weights(w: [i32; 4]) -> Option<BuildingWeights> {
    Some(BuildingWeights {
        offset: 0,
        weights: w,
    })
}

fn generic(roof: Guid, buildings: Vec<Footprint>) -> GenericBuildings {
    GenericBuildings {
        offset: 0,
        roof,
        buildings,
    }
}

fn seeded(seed: u64) -> LayoutInput {
    LayoutInput {
        seed,
        ..Default::default()
    }
}

fn run_named(agn: &AgnFile, name: &str, seed: u64, opts: &AgnOptions) -> Scene {
    layout(agn, Path::new(name), &seeded(seed), opts).unwrap()
}

fn run(agn: &AgnFile, seed: u64) -> Scene {
    run_named(agn, NAME, seed, &AgnOptions::default())
}

fn near(a: P2, b: [f64; 2], eps: f64) -> bool {
    (f64::from(a[0]) - b[0]).abs() < eps && (f64::from(a[1]) - b[1]).abs() < eps
}

fn area(ring: &[P2]) -> f64 {
    let r: Vec<[f64; 2]> = ring
        .iter()
        .map(|p| [f64::from(p[0]), f64::from(p[1])])
        .collect();
    signed_area2(&r) / 2.0
}

fn sample() -> (AgnFile, AgnOptions) {
    let bytes = std::fs::read(SAMPLE).expect("the sample .agn is committed");
    let mut w = Vec::new();
    let agn = agn::parse(Path::new(SAMPLE), &bytes, &mut w).unwrap();
    assert!(w.is_empty(), "{w:?}");
    let opts = load_options(Path::new(SAMPLE), None, None, &mut w);
    assert!(w.is_empty(), "{w:?}");
    (agn, opts)
}

// --- Geometry in meters -----------------------------------------------------------------

#[test]
fn generic_building_footprint_in_meters() {
    // 0.01 x 0.02 units at centred (0.1, -0.05): 10.996 m east-west, 24.460 m north-south,
    // its first corner 109.959 m east and 61.150 m north of the square's centre.
    let agn = AgnFile {
        generic_buildings: vec![generic(
            Guid::ZERO,
            vec![fp([0.1, -0.05], [0.01, 0.0], [0.0, -0.02])],
        )],
        ..AgnFile::default()
    };
    let s = run(&agn, 1);
    assert_eq!(s.kind, SceneKind::Agn);
    assert_eq!(s.facades.len(), 1);
    let f = &s.facades[0];
    let want = [
        [109.959_207, 61.149_623],
        [120.955_128, 61.149_623],
        [120.955_128, 85.609_472],
        [109.959_207, 85.609_472],
    ];
    for (p, w) in f.footprint.iter().zip(want) {
        assert!(near(*p, w, 2e-3), "{p:?} != {w:?}");
    }
    assert!((area(&f.footprint) - 10.995_921 * 24.459_849).abs() < 0.01);
    assert_eq!(f.facade, None);
    assert_eq!(f.roof.as_deref(), Some("default"));
    let floors = f.floors.unwrap();
    assert_eq!(f.height, floors as f32 * 3.0);

    // The square itself: 1099.59 x 1222.99 m, centred on the origin, counter-clockwise.
    let sq = &s.polygon[0];
    assert!(near(sq[0], [-MX / 2.0, -MY / 2.0], 1e-3), "{sq:?}");
    assert!(near(sq[2], [MX / 2.0, MY / 2.0], 1e-3), "{sq:?}");
    assert!(area(sq) > 0.0);
    let geo = s.geo.unwrap();
    assert_eq!((geo.u, geo.v), (Some(4050), Some(3859)));
    assert!((geo.north.unwrap() - (90.0 - 3859.0 * LOD13_LAT_STEP)).abs() < 1e-12);
    assert!((geo.west.unwrap() - (4050.0 * LOD13_LON_STEP - 180.0)).abs() < 1e-12);
    assert!((geo.origin_lat - 47.598_266_601_562_5).abs() < 1e-12);
}

#[test]
fn clockwise_footprints_are_turned_keeping_the_first_corner() {
    // d goes west, o goes north: clockwise on the ground.
    let agn = AgnFile {
        row_houses: vec![fp([0.0, 0.0], [-0.01, 0.0], [0.0, -0.01])],
        ..AgnFile::default()
    };
    let s = run(&agn, 0);
    let f = &s.facades[0].footprint;
    assert!(area(f) > 0.0);
    assert_eq!(f[0], [0.0, 0.0]);
    // After P1 comes P4 (north of it), then P3, then P2 (west of P1).
    assert!(near(f[1], [0.0, 0.01 * MY], 1e-3), "{f:?}");
    assert!(near(f[3], [-0.01 * MX, 0.0], 1e-3), "{f:?}");
    let floors = s.facades[0].floors.unwrap();
    assert!((2..=3).contains(&floors));
}

#[test]
fn polygon_building_strip_pieces_overlap_at_joints() {
    // An L: 0.05 units east, then 0.04 units south; width 0.01 y units (12.23 m).
    let agn = AgnFile {
        polygon_buildings: vec![PolygonBuildings {
            offset: 0,
            building: g(7),
            buildings: vec![PolygonBuilding {
                offset: 0,
                kind: 1,
                width: 0.01,
                vertices: vec![[0.5, 0.5], [0.55, 0.5], [0.55, 0.54]],
            }],
        }],
        ..AgnFile::default()
    };
    let s = run(&agn, 3);
    assert_eq!(s.facades.len(), 2);
    let w = 0.01 * MY;
    let (a, b) = (&s.facades[0], &s.facades[1]);
    // First piece: from the origin east 0.05·MX + w/2, w wide centred on y = 0.
    let len = |p: P2, q: P2| f64::from((q[0] - p[0]).hypot(q[1] - p[1]));
    assert!((len(a.footprint[0], a.footprint[1]) - (0.05 * MX + w / 2.0)).abs() < 1e-2);
    assert!((len(a.footprint[1], a.footprint[2]) - w).abs() < 1e-3);
    assert!(
        near(a.footprint[0], [0.0, -w / 2.0], 1e-3),
        "{:?}",
        a.footprint
    );
    // Second piece: starts w/2 north of the corner, runs 0.04·MY south.
    assert!((len(b.footprint[0], b.footprint[1]) - (0.04 * MY + w / 2.0)).abs() < 1e-2);
    for f in [a, b] {
        assert!(area(&f.footprint) > 0.0);
        assert_eq!(f.roof, Some(g(7).to_string()));
        assert_eq!(f.texture, None);
    }
    // One building: both pieces share a floor count in 1..=3.
    assert_eq!(a.floors, b.floors);
    assert!((1..=3).contains(&a.floors.unwrap()));
}

#[test]
fn library_objects_boxes_headings_and_models() {
    let church = g(1);
    let tower = g(2);
    // Three points: d runs north-east on the ground (equal meters east and north).
    let d = [(20.0 / MX) as f32, -(20.0 / MY) as f32];
    let o = [-(10.0 / MX) as f32, -(10.0 / MY) as f32];
    let agn = AgnFile {
        library_objects: vec![
            AgnObject {
                offset: 0,
                guid: church,
                start: [0.0, 0.0],
                to_second: d,
                to_third: Some(o),
            },
            AgnObject {
                offset: 0,
                guid: tower,
                start: [0.1, 0.1],
                to_second: [0.01, -0.01],
                to_third: None,
            },
            AgnObject {
                offset: 0,
                guid: church,
                start: [-0.2, 0.0],
                to_second: d,
                to_third: Some(o),
            },
        ],
        ..AgnFile::default()
    };
    let mut opts = AgnOptions::default();
    // Keys in any spelling match.
    opts.guid_models.insert(
        format!("{{{}}}", church.to_string().to_uppercase()),
        "models/church.obj".into(),
    );
    opts.guid_models.insert("not-a-guid".into(), "x.obj".into());
    let s = run_named(&agn, NAME, 0, &opts);
    assert_eq!(s.library_objects.len(), 3);
    let c = &s.library_objects[0];
    assert_eq!(c.guid, church.to_string());
    assert!((c.heading - 45.0).abs() < 1e-3, "{}", c.heading);
    // 28.28 m by 14.14 m, centred on the middle of the parallelogram.
    assert!((area(&c.footprint) - 20.0 * 2f64.sqrt() * 10.0 * 2f64.sqrt()).abs() < 0.05);
    assert!(near(c.center, [5.0, 15.0], 1e-3), "{:?}", c.center);
    assert_eq!(c.model.as_deref(), Some("models/church.obj"));
    // Two points: a box aligned with the square, heading 0, no model.
    let t = &s.library_objects[1];
    assert_eq!(t.heading, 0.0);
    assert_eq!(t.model, None);
    assert!((area(&t.footprint) - 0.01 * MX * 0.01 * MY).abs() < 0.05);
    assert!(near(t.center, [0.105 * MX, -0.095 * MY], 1e-3));
    // Both churches share one mesh.
    assert_eq!(s.meshes.len(), 1);
    assert_eq!(&*s.meshes[0].name, "models/church.obj");
    assert_eq!(s.objects.len(), 2);
    for (obj, lib) in s
        .objects
        .iter()
        .zip([&s.library_objects[0], &s.library_objects[2]])
    {
        assert_eq!(obj.index, 0);
        assert_eq!(obj.pos, lib.center);
        assert_eq!(obj.heading, lib.heading);
        assert_eq!(obj.mode, Placement::Draped);
    }
    assert_eq!(s.stats.objects, 2);
    assert!(
        s.warnings
            .lines()
            .iter()
            .any(|w| w.contains("'not-a-guid' is not a GUID")),
        "{:?}",
        s.warnings
    );
}

// --- Floors -----------------------------------------------------------------------------

fn floors_over_seeds(w: Option<BuildingWeights>, seeds: u64) -> [usize; 13] {
    let agn = AgnFile {
        building_weights: w,
        generic_buildings: vec![generic(
            Guid::ZERO,
            vec![fp([0.0, 0.0], [0.01, 0.0], [0.0, -0.01])],
        )],
        ..AgnFile::default()
    };
    let mut counts = [0usize; 13];
    for seed in 0..seeds {
        let s = run(&agn, seed);
        let f = s.facades[0].floors.unwrap() as usize;
        assert_eq!(s.facades[0].height, f as f32 * FLOOR_HEIGHT);
        counts[f] += 1;
    }
    counts
}

fn bands(c: &[usize; 13]) -> [f64; 4] {
    let n: usize = c.iter().sum();
    BuildingWeights::FLOORS
        .map(|(lo, hi)| c[lo as usize..=hi as usize].iter().sum::<usize>() as f64 / n as f64)
}

#[test]
fn floors_follow_the_gbdd_weights_over_seeds() {
    let n = 4000;
    let c = floors_over_seeds(weights([10, 5, 5, 0]), n);
    assert_eq!(c[0], 0);
    let b = bands(&c);
    for (got, want) in b.iter().zip([0.5, 0.25, 0.25, 0.0]) {
        assert!((got - want).abs() < 0.03, "{b:?}");
    }
    // Uniform inside a band: 1 and 2 about equal, 3, 4 and 5 about equal.
    let ratio = c[1] as f64 / c[2] as f64;
    assert!((ratio - 1.0).abs() < 0.15, "{c:?}");
    for f in 3..=5 {
        assert!(
            (c[f] as f64 / (n as f64 * 0.25 / 3.0) - 1.0).abs() < 0.2,
            "{c:?}"
        );
    }
    assert!(c[9..].iter().all(|&x| x == 0));

    // Only the top band.
    let c = floors_over_seeds(weights([0, 0, 0, 20]), 400);
    assert_eq!(c[..9].iter().sum::<usize>(), 0, "{c:?}");
    assert!((9..=12).all(|f| c[f] > 50), "{c:?}");

    // All-zero weights: 1-2 floors, both occurring.
    let c = floors_over_seeds(weights([0, 0, 0, 0]), 400);
    assert_eq!(c[1] + c[2], 400, "{c:?}");
    assert!(c[1] > 100 && c[2] > 100, "{c:?}");

    // No GBDD: the spec's normal 10/10/10/10, every band equally likely.
    let b = bands(&floors_over_seeds(None, 2000));
    assert!(b.iter().all(|x| (x - 0.25).abs() < 0.04), "{b:?}");

    // Out-of-range weights are clamped: -5 counts as 0, 99 as 20.
    let b = bands(&floors_over_seeds(weights([-5, 99, 0, 0]), 200));
    assert_eq!(b[1], 1.0);
}

#[test]
fn floors_follow_the_weights_within_one_layout() {
    // Many buildings in one file, one seed: the bands follow the weights too.
    let mut buildings = Vec::new();
    for i in 0..3000 {
        let x = (i % 60) as f32 / 60.0 - 0.5;
        let y = (i / 60) as f32 / 60.0 - 0.5;
        buildings.push(fp([x, y], [0.005, 0.0], [0.0, -0.005]));
    }
    let agn = AgnFile {
        building_weights: weights([4, 8, 0, 8]),
        generic_buildings: vec![generic(Guid::ZERO, buildings)],
        ..AgnFile::default()
    };
    let s = run(&agn, 99);
    let mut c = [0usize; 13];
    s.facades
        .iter()
        .for_each(|f| c[f.floors.unwrap() as usize] += 1);
    let b = bands(&c);
    for (got, want) in b.iter().zip([0.2, 0.4, 0.0, 0.4]) {
        assert!((got - want).abs() < 0.03, "{b:?}");
    }
}

// --- Determinism ------------------------------------------------------------------------

#[test]
fn same_seed_same_scene_other_seed_other_scene() {
    let (agn, opts) = sample();
    let json = |seed| serde_json::to_string(&run_named(&agn, SAMPLE, seed, &opts)).unwrap();
    assert_eq!(json(5), json(5));
    assert_ne!(json(5), json(6));
    // Streams are independent: the buildings' floors do not depend on the trees.
    let mut no_trees = agn.clone();
    no_trees.vegetation_polygons.clear();
    no_trees.vegetation_rects.clear();
    no_trees.fs2004_vegetation_rects.clear();
    let a = run_named(&agn, SAMPLE, 5, &opts);
    let b = run_named(&no_trees, SAMPLE, 5, &opts);
    assert_eq!(a.facades, b.facades);
    assert!(b.trees.is_empty());
}

// --- The sample -------------------------------------------------------------------------

/// Which vegetation area each tree belongs to (trees are stored area by area).
fn tree_areas(s: &Scene) -> Vec<usize> {
    s.vegetation
        .iter()
        .enumerate()
        .flat_map(|(i, a)| std::iter::repeat_n(i, a.trees))
        .collect()
}

#[test]
fn sample_laid_out() {
    let (agn, opts) = sample();
    let s = run_named(&agn, SAMPLE, 0, &opts);
    assert!(s.warnings.is_empty(), "{:?}", s.warnings);
    assert_eq!(s.asset, SAMPLE);

    // Counts match the file: 37 + 14 + 3 generic buildings, 6 row houses, and the L-shaped
    // row of shops (3 vertices: 2 pieces).
    let generic: usize = agn
        .generic_buildings
        .iter()
        .map(|g| g.buildings.len())
        .sum();
    let pieces = agn.polygon_buildings[0].buildings[0].vertices.len() - 1;
    assert_eq!(s.facades.len(), generic + agn.row_houses.len() + pieces);
    assert_eq!(s.facades.len(), 37 + 14 + 3 + 6 + 2);
    assert_eq!(s.stats.facades, s.facades.len());
    assert_eq!(s.library_objects.len(), agn.library_objects.len());
    assert_eq!(s.vegetation.len(), 3 + 1 + 2);
    assert_eq!(s.objects.len(), 0);

    // Roofs: the first GBLR uses default roofs, the second and third their GUIDs, all
    // listed; row houses default.
    let roofs: Vec<(&str, usize)> = s
        .roof_types
        .iter()
        .map(|r| (r.guid.as_str(), r.buildings))
        .collect();
    assert_eq!(
        roofs,
        [
            ("default", 37),
            ("4b3a2918-0706-4f5e-8d7c-6b5a49382716", 14),
            ("e1d2c3b4-a596-4788-9a0b-1c2d3e4f5061", 3)
        ]
    );
    assert!(s.facades[..37]
        .iter()
        .all(|f| f.roof.as_deref() == Some("default")));
    assert!(s.facades[37..51]
        .iter()
        .all(|f| f.roof.as_deref() == Some("4b3a2918-0706-4f5e-8d7c-6b5a49382716")));
    // Textures: GBTE and RHTE name the .png beside the file.
    let tex = Path::new(SAMPLE)
        .with_file_name("agview_town_facade.png")
        .display()
        .to_string();
    assert!(s.facades[..60]
        .iter()
        .all(|f| f.texture.as_ref() == Some(&tex)));
    // GBDD 16/4/0/0: 1-5 floors only; row houses 2-3.
    assert!(s.facades[..54]
        .iter()
        .all(|f| (1..=5).contains(&f.floors.unwrap())));
    assert!(s.facades[54..60]
        .iter()
        .all(|f| (2..=3).contains(&f.floors.unwrap()) && f.agn_chunk == Some("ROWH")));
    // Default roofs are pitched on buildings of up to 3 floors, flat above; GUID roofs flat.
    for f in &s.facades[..37] {
        assert_eq!(f.roof_height > 0.0, f.floors.unwrap() <= 3, "{f:?}");
    }
    assert!(s.facades[37..54].iter().all(|f| f.roof_height == 0.0));

    // The square: Leavenworth, Washington.
    let geo = s.geo.unwrap();
    assert!(geo.south.unwrap() < 47.5962 && 47.5962 <= geo.north.unwrap());
    assert!(geo.west.unwrap() <= -120.6615 && -120.6615 < geo.east.unwrap());

    // Every footprint inside the square, counter-clockwise.
    let (hx, hy) = ((MX / 2.0) as f32, (MY / 2.0) as f32);
    for f in &s.facades {
        assert!(area(&f.footprint) > 50.0, "{:?}", f.footprint);
        for p in &f.footprint {
            assert!(p[0].abs() < hx && p[1].abs() < hy, "{p:?}");
        }
    }
    // The generic buildings are the sample's 10-40 m rectangles.
    for f in &s.facades[..54] {
        let side = |i: usize| {
            let (a, b) = (f.footprint[i], f.footprint[(i + 1) % 4]);
            (b[0] - a[0]).hypot(b[1] - a[1])
        };
        assert!(
            (0..4).all(|i| (9.99..40.01).contains(&side(i))),
            "{:?}",
            f.footprint
        );
    }
    // The shops are 14 m wide.
    let shop = &s.facades[60].footprint;
    let w = (shop[2][0] - shop[1][0]).hypot(shop[2][1] - shop[1][1]);
    assert!((w - 14.0).abs() < 0.01, "{w}");

    // Library objects: the church is turned with the main street (15° north of east, so a
    // heading of 75°) and measures 18 by 32 m; the water tower is a 14 m box.
    let church = &s.library_objects[1];
    assert_eq!(church.guid, "a3c1e9f2-6b7d-4e10-8f21-9d8c7b6a5e40");
    assert!((church.heading - 75.0).abs() < 0.01, "{}", church.heading);
    assert!((area(&church.footprint) - 18.0 * 32.0).abs() < 0.1);
    let tower = &s.library_objects[0];
    assert_eq!(tower.heading, 0.0);
    assert!((area(&tower.footprint) - 14.0 * 14.0).abs() < 0.05);

    // Vegetation: every tree inside its own area, at about one tree per 80 m².
    let owners = tree_areas(&s);
    assert_eq!(owners.len(), s.trees.len());
    assert!(s.trees.len() > 1000, "{}", s.trees.len());
    for (t, &i) in s.trees.iter().zip(&owners) {
        let ring = &s.vegetation[i].outline;
        assert!(
            geom_inside(t.pos, ring),
            "tree {:?} outside area {i}",
            t.pos
        );
        assert_eq!(t.width, 0.0);
        assert!((0.0..360.0).contains(&t.heading));
        // VGRO trees (areas 4 and 5) are of a VGRD class, within its heights.
        if i >= 4 {
            let [lo, hi] = if t.layer == 1 {
                [14.0, 24.0]
            } else {
                [8.0, 15.0]
            };
            assert!(t.height >= lo && t.height <= hi, "{t:?}");
        } else {
            assert_eq!((t.layer, t.height), (0, 0.0));
        }
    }
    for (i, v) in s.vegetation.iter().enumerate() {
        // VGRD's density 60 of 100 thins the VGRO areas.
        let density = if i >= 4 { 0.6 } else { 1.0 };
        let expect = area(&v.outline) / M2_PER_TREE * density;
        let got = v.trees as f64;
        assert!(
            (got - expect).abs() < 0.15 * expect + 5.0,
            "{} trees for {expect:.0} expected",
            v.trees
        );
        assert!(area(&v.outline) > 0.0);
    }
    assert_eq!(s.vegetation[0].guid, "7e1f2a3b-4c5d-4e6f-8a9b-0c1d2e3f4a5b");
    // The PRDE rings are closed in the file; the outline drops the repeated vertex.
    assert_eq!(
        s.vegetation[0].outline.len() + 1,
        agn.vegetation_polygons[0].polygons[0].vertices.len()
    );

    // The JSON lists everything in the Scene form.
    let json: serde_json::Value = serde_json::to_value(&s).unwrap();
    assert_eq!(json["kind"], "agn");
    assert_eq!(json["facades"].as_array().unwrap().len(), 62);
    let f0 = &json["facades"][0];
    for key in ["footprint", "floors", "height", "roof", "texture"] {
        assert!(!f0[key].is_null(), "facade JSON lacks {key}: {f0}");
    }
    assert!(f0.get("facade").is_none());
    assert_eq!(json["library_objects"].as_array().unwrap().len(), 13);
    assert_eq!(json["vegetation"].as_array().unwrap().len(), 6);
    assert_eq!(f0["agn_chunk"], "GBLR");
    assert_eq!(json["roof_types"].as_array().unwrap().len(), 3);
    assert_eq!(json["trees"].as_array().unwrap().len(), s.trees.len());
    assert_eq!(json["geo"]["u"], 4050);
    assert_eq!(json["library_objects"][1]["guid"], church.guid);
}

fn geom_inside(p: P2, ring: &[P2]) -> bool {
    crate::layout::geom::point_in_rings(p, &[ring.to_vec()])
}

#[test]
fn mapped_models_in_the_sample() {
    let (agn, mut opts) = sample();
    opts.guid_models.insert(
        "A3C1E9F2-6B7D-4E10-8F21-9D8C7B6A5E40".into(),
        "objects/church.obj".into(),
    );
    let s = run_named(&agn, SAMPLE, 0, &opts);
    assert_eq!(s.objects.len(), 1);
    assert_eq!(s.meshes.len(), 1);
    assert_eq!(
        s.library_objects[1].model.as_deref(),
        Some("objects/church.obj")
    );
    assert_eq!(s.objects[0].pos, s.library_objects[1].center);
}

// --- Names without a code ---------------------------------------------------------------

fn one_building() -> AgnFile {
    AgnFile {
        generic_buildings: vec![generic(
            Guid::ZERO,
            vec![fp([0.0, 0.0], [0.01, 0.0], [0.0, -0.01])],
        )],
        ..AgnFile::default()
    }
}

#[test]
fn name_without_code_and_no_origin() {
    let s = run_named(&one_building(), "dir/town.agn", 0, &AgnOptions::default());
    assert!(s.geo.is_none());
    assert_eq!(s.warnings.len(), 1, "{:?}", s.warnings);
    assert!(
        s.warnings.lines()[0].starts_with("dir/town.agn: warning: "),
        "{}",
        s.warnings.lines()[0]
    );
    assert!(
        s.warnings.lines()[0].contains("--origin"),
        "{}",
        s.warnings.lines()[0]
    );
    assert!(
        s.warnings.lines()[0].contains("not a LOD13 .agn name"),
        "{}",
        s.warnings.lines()[0]
    );
    // The equator's scale: 1630.657 by 1222.992 m.
    let sq = &s.polygon[0];
    assert!(near(sq[2], [1_630.656_6 / 2.0, MY / 2.0], 1e-2), "{sq:?}");
    assert_eq!(s.facades.len(), 1);
    assert!((area(&s.facades[0].footprint) - 16.306_566 * 12.229_925).abs() < 0.01);
}

#[test]
fn name_without_code_and_an_origin() {
    let opts = AgnOptions {
        origin: Some((47.6, -120.67)),
        ..Default::default()
    };
    let s = run_named(&one_building(), "town.agn", 0, &opts);
    assert!(s.warnings.is_empty(), "{:?}", s.warnings);
    let geo = s.geo.unwrap();
    assert_eq!(geo.north, Some(47.6));
    assert_eq!(geo.west, Some(-120.67));
    assert!((geo.south.unwrap() - (47.6 - LOD13_LAT_STEP)).abs() < 1e-12);
    assert!((geo.east.unwrap() - (-120.67 + LOD13_LON_STEP)).abs() < 1e-12);
    assert!((geo.origin_lat - (47.6 - LOD13_LAT_STEP / 2.0)).abs() < 1e-12);
    assert!((geo.origin_lon - (-120.67 + LOD13_LON_STEP / 2.0)).abs() < 1e-12);
    assert_eq!((geo.u, geo.v), (None, None));
    // x scale at the middle latitude 47.594507°.
    let mx = LOD13_LON_STEP * METERS_PER_DEGREE * 47.594_506_835_937_5_f64.to_radians().cos();
    assert!((mx - 1_099.671_084).abs() < 1e-3, "{mx}");
    assert!(near(s.polygon[0][1], [mx / 2.0, -MY / 2.0], 1e-2));

    // A name with a code wins over --origin, with a warning.
    let s = run_named(&one_building(), NAME, 0, &opts);
    assert_eq!(s.geo.unwrap().u, Some(4050));
    assert_eq!(s.warnings.len(), 1);
    assert!(
        s.warnings.lines()[0].contains("--origin 47.6,-120.67 ignored"),
        "{:?}",
        s.warnings
    );

    // An origin that cannot be a square's corner is an error, not a panic.
    for bad in [
        (95.0, 0.0),
        (-90.0, 0.0),
        (0.0, 180.0),
        (f64::NAN, 0.0),
        (0.0, f64::INFINITY),
    ] {
        let opts = AgnOptions {
            origin: Some(bad),
            ..Default::default()
        };
        let e = layout(&one_building(), Path::new("t.agn"), &seeded(0), &opts).unwrap_err();
        assert!(e.message.contains("--origin"), "{e}");
    }
}

// --- Textures ---------------------------------------------------------------------------

#[test]
fn textures_prefer_bmp_then_dds_then_png_in_any_case() {
    let mut agn = one_building();
    agn.building_texture = Some(TextureName {
        offset: 40,
        name: "town".into(),
    });
    let files = |names: &[&str]| AgnOptions {
        texture_dir_files: names.iter().map(|s| s.to_string()).collect(),
        ..Default::default()
    };
    let tex = |opts: &AgnOptions| {
        run_named(&agn, "d/000333311030032an.agn", 0, opts).facades[0]
            .texture
            .clone()
    };
    let opts = files(&["town.png", "TOWN.BMP", "town.dds", "other.bmp"]);
    assert_eq!(
        tex(&opts).map(PathBuf::from),
        Some(PathBuf::from("d/TOWN.BMP"))
    );
    let opts = files(&["town.png", "Town.Dds"]);
    assert_eq!(
        tex(&opts).map(PathBuf::from),
        Some(PathBuf::from("d/Town.Dds"))
    );
    let opts = files(&["town.png"]);
    assert_eq!(
        tex(&opts).map(PathBuf::from),
        Some(PathBuf::from("d/town.png"))
    );
    // Missing: untextured, with a warning at the GBTE chunk.
    let opts = files(&["town.jpg", "town"]);
    let s = run_named(&agn, "d/000333311030032an.agn", 0, &opts);
    assert_eq!(s.facades[0].texture, None);
    assert_eq!(s.warnings.len(), 1);
    assert!(
        s.warnings.lines()[0].contains("offset 40"),
        "{}",
        s.warnings.lines()[0]
    );
    assert!(
        s.warnings.lines()[0].contains("GBTE names texture 'town'"),
        "{}",
        s.warnings.lines()[0]
    );
}

// --- Bad geometry (NaN cannot come from the reader, but is guarded) ---------------------

#[test]
fn degenerate_and_non_finite_records_are_skipped_with_warnings() {
    let agn = AgnFile {
        generic_buildings: vec![generic(
            Guid::ZERO,
            vec![
                fp([0.0, 0.0], [0.0, 0.0], [0.0, -0.01]),
                fp([0.0, 0.0], [f32::NAN, 0.0], [0.0, -0.01]),
                fp([0.0, 0.0], [0.01, 0.0], [0.0, -0.01]),
                fp([f32::INFINITY, 0.0], [0.01, 0.0], [0.0, -0.01]),
                // Finite, but 3e41 m away: would overflow f32 meters.
                fp([3e38, 0.0], [1e37, 0.0], [0.0, -1e37]),
            ],
        )],
        row_houses: vec![fp([0.0, 0.0], [0.01, 0.0], [0.02, 0.0])],
        polygon_buildings: vec![PolygonBuildings {
            offset: 0,
            building: g(3),
            buildings: vec![
                PolygonBuilding {
                    offset: 100,
                    kind: 1,
                    width: 0.0,
                    vertices: vec![[0.1, 0.1], [0.2, 0.1]],
                },
                PolygonBuilding {
                    offset: 200,
                    kind: 1,
                    width: f32::NAN,
                    vertices: vec![[0.1, 0.1], [0.2, 0.1]],
                },
                PolygonBuilding {
                    offset: 250,
                    kind: 1,
                    width: 1e30,
                    vertices: vec![[0.1, 0.1], [0.2, 0.1]],
                },
                PolygonBuilding {
                    offset: 300,
                    kind: 1,
                    width: 0.01,
                    vertices: vec![[0.1, 0.1], [0.1, 0.1]],
                },
                PolygonBuilding {
                    offset: 400,
                    kind: 1,
                    width: 0.01,
                    vertices: vec![[0.1, 0.1], [f32::NAN, 0.1], [0.2, 0.1]],
                },
            ],
        }],
        library_objects: vec![AgnObject {
            offset: 500,
            guid: g(4),
            start: [f32::NAN, 0.0],
            to_second: [0.01, 0.01],
            to_third: None,
        }],
        vegetation_polygons: vec![VegetationPolygons {
            offset: 0,
            vegetation: g(5),
            polygons: vec![
                Polygon {
                    offset: 600,
                    vertices: vec![[0.1, 0.1], [0.2, 0.1], [0.1, 0.1]],
                },
                Polygon {
                    offset: 700,
                    vertices: vec![[0.1, 0.1], [0.2, f32::NAN], [0.2, 0.2], [0.1, 0.1]],
                },
                Polygon {
                    offset: 800,
                    vertices: vec![],
                },
                // Not closed: laid out, with a warning.
                Polygon {
                    offset: 900,
                    vertices: vec![[0.1, 0.1], [0.12, 0.1], [0.12, 0.12]],
                },
            ],
        }],
        vegetation_rects: vec![VegetationRects {
            offset: 0,
            vegetation: g(6),
            rects: vec![Rect {
                offset: 1000,
                start: [0.0, 0.0],
                to_second: [0.0, 0.1],
            }],
        }],
        ..AgnFile::default()
    };
    let s = run(&agn, 0);
    // Only the one sound generic building is left: no row house, no polygon building.
    assert_eq!(s.facades.len(), 1, "{:?}", s.facades);
    assert_eq!(s.library_objects.len(), 0);
    assert_eq!(s.vegetation.len(), 1);
    assert!(s.trees.iter().all(|t| t.pos.iter().all(|v| v.is_finite())));
    let w = s.warnings.lines().join("\n");
    assert!(
        w.contains("4 buildings of the GBLR chunk at offset 0 skipped"),
        "{w}"
    );
    assert!(w.contains("1 ROWH row houses skipped"), "{w}");
    assert!(
        w.contains("offset 100: warning: PBDE building with width 0.0 skipped: an open vertex line is a strip"),
        "{w}"
    );
    assert!(
        w.contains("offset 200: warning: PBDE building with width NaN"),
        "{w}"
    );
    assert!(
        w.contains("offset 300: warning: PBDE building with 2 vertices skipped"),
        "{w}"
    );
    // The NaN vertex spoils both its segments, so nothing of building 400 is left.
    assert!(
        w.contains("offset 400: warning: PBDE building with 3 vertices skipped"),
        "{w}"
    );
    assert!(
        w.contains("offset 500: warning: A2GE library object skipped"),
        "{w}"
    );
    for off in [600, 700, 800] {
        assert!(
            w.contains(&format!("offset {off}: warning: PRDE polygon skipped")),
            "{w}"
        );
    }
    // An open PRDE ring is the reader's warning; the layout closes it without a second one.
    assert!(!w.contains("offset 900"), "{w}");
    assert!(
        w.contains("offset 1000: warning: VGRE rectangle skipped"),
        "{w}"
    );
}

#[test]
fn headings_are_clockwise_from_north_below_360() {
    assert_eq!(heading_of([0.0, 1.0]), 0.0);
    assert_eq!(heading_of([1.0, 0.0]), 90.0);
    assert_eq!(heading_of([0.0, -1.0]), 180.0);
    assert_eq!(heading_of([-1.0, 0.0]), 270.0);
    assert_eq!(heading_of([-1e-300, 1.0]), 0.0);
    assert_eq!(heading_of([0.0, 0.0]), 0.0);
}

#[test]
fn strip_pieces_guard_their_input() {
    assert!(strip_pieces(&[], 5.0).is_empty());
    assert!(strip_pieces(&[[0.0, 0.0]], 5.0).is_empty());
    assert!(strip_pieces(&[[0.0, 0.0], [10.0, 0.0]], 0.0).is_empty());
    assert!(strip_pieces(&[[0.0, 0.0], [10.0, 0.0]], f64::NAN).is_empty());
    assert!(strip_pieces(&[[0.0, 0.0], [f64::INFINITY, 0.0]], 2.0).is_empty());
    let one = strip_pieces(&[[0.0, 0.0], [10.0, 0.0]], 2.0);
    assert_eq!(
        one,
        vec![vec![[0.0, -1.0], [10.0, -1.0], [10.0, 1.0], [0.0, 1.0]]]
    );
}

// --- Vegetation -------------------------------------------------------------------------

#[test]
fn fs2004_rectangles_use_the_vgrd_classes() {
    let agn = AgnFile {
        fs2004_vegetation: Some(agn::Fs2004Vegetation {
            offset: 0,
            class1: 3,
            class2: 7,
            percent_class1: 60,
            max_density: 5,
            height_class1: [5.0, 10.0],
            height_class2: [8.0, 20.0],
        }),
        fs2004_vegetation_rects: vec![Rect {
            offset: 0,
            start: [0.0, 0.0],
            to_second: [0.3, 0.3],
        }],
        ..AgnFile::default()
    };
    let s = run(&agn, 0);
    assert_eq!(s.vegetation.len(), 1);
    assert_eq!(
        s.vegetation[0].guid,
        "fs2004 class 3 coniferous 2 (60%) / class 7 unknown class, density 5"
    );
    // Density 5 of 100: one tree per 80 m² / 0.05.
    let expect = 0.3 * MX * 0.3 * MY / (M2_PER_TREE * 20.0);
    let got = s.trees.len() as f64;
    assert!((got - expect).abs() < 0.05 * expect, "{got} vs {expect}");
    // The rectangle runs south from its first point: every tree is in it.
    for t in &s.trees {
        assert!(f64::from(t.pos[0]) >= 0.0 && f64::from(t.pos[0]) <= 0.3 * MX);
        assert!(f64::from(t.pos[1]) <= 0.0 && f64::from(t.pos[1]) >= -0.3 * MY);
    }

    // The class split (at full density, for a fair count) and each class's heights.
    let mut full = agn.clone();
    full.fs2004_vegetation.as_mut().unwrap().max_density = 100;
    let s = run(&full, 0);
    let n = s.trees.len() as f64;
    let class1 = s.trees.iter().filter(|t| t.layer == 1).count() as f64;
    assert!(
        n > 1000.0 && (class1 / n - 0.6).abs() < 0.05,
        "{class1} of {n}"
    );
    for t in &s.trees {
        let [lo, hi] = if t.layer == 1 {
            [5.0, 10.0]
        } else {
            [8.0, 20.0]
        };
        assert!(t.layer == 1 || t.layer == 2);
        assert!(t.height >= lo && t.height <= hi, "{t:?}");
    }
    // Density 0: the area, no trees.
    let mut none = agn.clone();
    none.fs2004_vegetation.as_mut().unwrap().max_density = 0;
    let s0 = run(&none, 0);
    assert_eq!((s0.vegetation.len(), s0.trees.len()), (1, 0));

    // Without VGRD: a warning and generic trees.
    let mut no_def = agn.clone();
    no_def.fs2004_vegetation = None;
    let s = run(&no_def, 0);
    assert_eq!(s.vegetation[0].guid, "fs2004");
    assert!(s
        .warnings
        .lines()
        .iter()
        .any(|w| w.contains("without a VGRD")));
}

#[test]
fn huge_vegetation_is_capped() {
    // One rectangle over the whole square: 1.3 km² would be 16,800 trees, under the
    // per-area cap, so they all come.
    let whole = Rect {
        offset: 0,
        start: [-0.5, -0.5],
        to_second: [1.0, 1.0],
    };
    let one = AgnFile {
        vegetation_rects: vec![VegetationRects {
            offset: 0,
            vegetation: g(1),
            rects: vec![whole],
        }],
        ..AgnFile::default()
    };
    let s = run(&one, 0);
    let expect = MX * MY / M2_PER_TREE;
    assert!((s.trees.len() as f64 - expect).abs() < 0.02 * expect);

    // 400 of them (overlapping): the scene's cap spreads the trees thinner.
    let many = AgnFile {
        vegetation_rects: vec![VegetationRects {
            offset: 0,
            vegetation: g(1),
            rects: vec![whole; 400],
        }],
        ..AgnFile::default()
    };
    let s = run(&many, 0);
    assert!(s.trees.len() <= MAX_TREES, "{}", s.trees.len());
    assert!(s.trees.len() > MAX_TREES / 2, "{}", s.trees.len());
    assert!(s.vegetation.iter().all(|v| v.trees <= MAX_TREES_PER_AREA));

    // A single area far bigger than a square (coordinates past the frame are allowed).
    let mut trees = Vec::new();
    let big = 20_000.0f32;
    let ring = [[0.0, 0.0], [big, 0.0], [big, big], [0.0, big]];
    fill_trees(
        &ring,
        f64::from(big * big),
        M2_PER_TREE,
        MAX_TREES_PER_AREA,
        &mut Rng::new(1),
        &mut trees,
    );
    assert!(trees.len() <= MAX_TREES_PER_AREA);
    assert!(trees.len() > MAX_TREES_PER_AREA * 9 / 10, "{}", trees.len());

    // A thin diagonal sliver: its bounding box is big, its area small.
    let mut trees = Vec::new();
    let sliver = [[0.0, 0.0], [50_000.0, 50_000.0], [50_000.0, 50_001.0]];
    fill_trees(
        &sliver,
        25_000.0,
        M2_PER_TREE,
        400,
        &mut Rng::new(1),
        &mut trees,
    );
    assert!(trees.len() <= 400, "{}", trees.len());
    assert!(trees.iter().all(|t| geom_inside(t.pos, &sliver)));
}

// --- Mapping file -----------------------------------------------------------------------

#[test]
fn mapping_file_reads_guids_and_paths() {
    let src = "# GUID -> model\n\
        \n\
        A3C1E9F2-6B7D-4E10-8F21-9D8C7B6A5E40   objects/church.obj   # the church\n\
        {5f0a2c34-8d1e-4b7a-9c3f-1e2d3c4b5a69} C:\\Models\\Water Tower.obj\n\
        a3c1e9f2-6b7d-4e10-8f21-9d8c7b6a5e40 other.obj\n\
        0c9b8a7d-3e2f-4a1b-b5c6-d7e8f9a0b1c2 a#b.obj\n";
    let mut w = Vec::new();
    let m = parse_mapping(Path::new("map.txt"), src.as_bytes(), &mut w).unwrap();
    assert_eq!(m.len(), 3);
    assert_eq!(
        m["a3c1e9f2-6b7d-4e10-8f21-9d8c7b6a5e40"],
        "objects/church.obj"
    );
    assert_eq!(
        m["5f0a2c34-8d1e-4b7a-9c3f-1e2d3c4b5a69"],
        "C:\\Models\\Water Tower.obj"
    );
    assert_eq!(m["0c9b8a7d-3e2f-4a1b-b5c6-d7e8f9a0b1c2"], "a#b.obj");
    assert_eq!(w.len(), 1);
    assert_eq!(w[0].to_string(), "map.txt:5:1: warning: GUID a3c1e9f2-6b7d-4e10-8f21-9d8c7b6a5e40 is mapped again (first on line 3); the first mapping is kept");
}

#[test]
fn mapping_file_errors_point_at_line_and_column() {
    let err = |src: &str| {
        parse_mapping(Path::new("map.txt"), src.as_bytes(), &mut Vec::new())
            .unwrap_err()
            .to_string()
    };
    let e = err("# ok\n  a3c1e9f2-6b7d-4e10-8f21-9d8c7b6a5e4 x.obj\n");
    assert!(e.starts_with("map.txt:2:3: error: "), "{e}");
    assert!(e.contains("group 5 must be 12 hex digits"), "{e}");
    let e = err("a3c1e9f2-6b7d-4e10-8f21-9d8c7b6a5e40\n");
    assert!(e.starts_with("map.txt:1:37: error: "), "{e}");
    assert!(e.contains("missing argument <model path>"), "{e}");
    let e = err("a3c1e9f2-6b7d-4e10-8f21-9d8c7b6a5e40 # comment only\n");
    assert!(e.contains("missing argument <model path>"), "{e}");
    let e = err("church.obj a3c1e9f2-6b7d-4e10-8f21-9d8c7b6a5e40\n");
    assert!(
        e.starts_with("map.txt:1:1: error: 'church.obj' is not a GUID"),
        "{e}"
    );
    let e = err("ok\n\u{0}\u{ff}");
    assert!(e.starts_with("map.txt:1:1: error: "), "{e}");
    let bad_utf8 = parse_mapping(Path::new("m"), b"\xff\xfe x", &mut Vec::new()).unwrap_err();
    assert!(
        bad_utf8.to_string().contains("'\\xFF\\xFE' is not a GUID"),
        "{bad_utf8}"
    );
}

#[test]
fn load_options_lists_the_directory_and_reads_the_mapping() {
    let dir = std::env::temp_dir().join(format!("agview-agn-opts-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("maps")).unwrap();
    let agn_path = dir.join(NAME);
    std::fs::write(&agn_path, agn::write(&one_building())).unwrap();
    std::fs::write(dir.join("Town.BMP"), b"").unwrap();
    let map = dir.join("maps/models.txt");
    std::fs::write(
        &map,
        "5f0a2c34-8d1e-4b7a-9c3f-1e2d3c4b5a69 tower.obj\n\
         a3c1e9f2-6b7d-4e10-8f21-9d8c7b6a5e40 /abs/church.obj\n",
    )
    .unwrap();

    let mut w = Vec::new();
    let o = load_options(&agn_path, Some(&map), Some((1.0, 2.0)), &mut w);
    assert!(w.is_empty(), "{w:?}");
    assert_eq!(o.origin, Some((1.0, 2.0)));
    assert_eq!(
        o.texture_dir_files,
        vec![NAME.to_string(), "Town.BMP".into()]
    );
    assert_eq!(
        o.guid_models["5f0a2c34-8d1e-4b7a-9c3f-1e2d3c4b5a69"],
        dir.join("maps").join("tower.obj").display().to_string()
    );
    // An absolute name stays itself (on Windows, on the drive of the folder it is read in:
    // what joining it to that folder gives, which is the point here).
    #[allow(clippy::join_absolute_paths)]
    let church = dir.join("/abs/church.obj");
    assert_eq!(
        o.guid_models["a3c1e9f2-6b7d-4e10-8f21-9d8c7b6a5e40"],
        church.display().to_string()
    );

    // A bad mapping file is an error diagnostic; the options come without models.
    std::fs::write(&map, "nonsense here\n").unwrap();
    let mut w = Vec::new();
    let o = load_options(&agn_path, Some(&map), None, &mut w);
    assert!(o.guid_models.is_empty());
    assert_eq!(w.len(), 1);
    assert!(w[0].is_error() && w[0].line() == Some(1), "{:?}", w[0]);
    // A missing one too; a missing directory is a warning.
    let mut w = Vec::new();
    let o = load_options(
        &dir.join("gone/x.agn"),
        Some(&dir.join("gone.txt")),
        None,
        &mut w,
    );
    assert!(o.texture_dir_files.is_empty() && o.guid_models.is_empty());
    assert_eq!(w.len(), 2, "{w:?}");
    assert!(!w[0].is_error() && w[0].message.contains("cannot list"));
    assert!(w[1].is_error() && w[1].message.contains("cannot read"));
    std::fs::remove_dir_all(&dir).unwrap();
}

// --- The benchmark's town (timed in benches/layout.rs) ----------------------------------

/// An AGN file with `buildings` generic buildings in 10 GBLR chunks and `areas` vegetation
/// polygons (8-vertex blobs, 30 to 80 m in radius), spread over the square.
fn big_file(buildings: usize, areas: usize) -> AgnFile {
    bench_file(buildings, areas)
}

#[test]
fn big_file_lays_out_completely() {
    let agn = big_file(2000, 50);
    let bytes = agn::write(&agn);
    let back = agn::parse(Path::new(NAME), &bytes, &mut Vec::new()).unwrap();
    let s = run(&back, 1);
    assert_eq!(s.facades.len(), 2000);
    assert_eq!(s.vegetation.len(), 50);
    assert!(s.trees.len() > 50 * 20);
}

// --- Issue 14: draw what the file says ----------------------------------------------------

/// Meters to square units on the sample's square.
fn units(x: f64, y: f64) -> Point {
    [(x / MX) as f32, (-y / MY) as f32]
}

#[test]
fn default_roofs_are_pitched_on_low_buildings_and_flat_on_tall_ones() {
    // 20 × 10 m: a 30° gable over the 10 m side rises 5 · tan 30° = 2.89 m.
    let b = fp([0.0, 0.0], units(20.0, 0.0), units(0.0, 10.0));
    for (w, pitched) in [([20, 0, 0, 0], true), ([0, 0, 20, 0], false)] {
        let agn = AgnFile {
            building_weights: weights(w),
            generic_buildings: vec![generic(Guid::ZERO, vec![b]), generic(g(7), vec![b])],
            ..AgnFile::default()
        };
        let s = run(&agn, 0);
        let [default, typed] = [&s.facades[0], &s.facades[1]];
        assert_eq!(default.roof.as_deref(), Some("default"));
        if pitched {
            assert!(
                (default.roof_height - 2.886_751).abs() < 1e-3,
                "{default:?}"
            );
        } else {
            assert_eq!(default.roof_height, 0.0);
        }
        // A roof GUID is not a default roof: flat, and listed.
        assert_eq!(typed.roof_height, 0.0);
        assert_eq!(default.agn_chunk, Some("GBLR"));
        let guids: Vec<(&str, usize)> = s
            .roof_types
            .iter()
            .map(|r| (r.guid.as_str(), r.buildings))
            .collect();
        assert_eq!(guids, vec![("default", 1), (g(7).to_string().as_str(), 1)]);
    }
    // The ridge never rises past 6 m.
    let wide = [[0.0, 0.0], [200.0, 0.0], [200.0, 100.0], [0.0, 100.0]];
    assert_eq!(default_roof_height(&wide, 1), MAX_RIDGE_HEIGHT);
    assert_eq!(default_roof_height(&wide, 4), 0.0);
}

#[test]
fn guid_map_gives_roof_textures_models_and_forests() {
    let b = fp([0.0, 0.0], units(20.0, 0.0), units(0.0, 10.0));
    let agn = AgnFile {
        generic_buildings: vec![generic(g(7), vec![b])],
        library_objects: vec![AgnObject {
            offset: 0,
            guid: g(8),
            start: [0.1, 0.1],
            to_second: units(10.0, -10.0),
            to_third: None,
        }],
        vegetation_polygons: vec![VegetationPolygons {
            offset: 0,
            vegetation: g(9),
            polygons: vec![Polygon {
                offset: 0,
                vertices: vec![[0.2, 0.2], [0.3, 0.2], [0.3, 0.3], [0.2, 0.3], [0.2, 0.2]],
            }],
        }],
        ..AgnFile::default()
    };
    let mut opts = AgnOptions::default();
    for (k, v) in [
        (7, "roofs/red.png"),
        (8, "objs/tower.obj"),
        (9, "trees/pines.for"),
    ] {
        opts.guid_models.insert(g(k).to_string(), v.to_string());
    }
    opts.forest_heights
        .insert("trees/pines.for".to_string(), [12.0, 18.0]);
    let s = run_named(&agn, NAME, 3, &opts);
    assert_eq!(s.facades[0].roof_texture.as_deref(), Some("roofs/red.png"));
    assert_eq!(s.roof_types[0].texture.as_deref(), Some("roofs/red.png"));
    assert_eq!(
        s.library_objects[0].model.as_deref(),
        Some("objs/tower.obj")
    );
    assert_eq!(s.more_forests.len(), 1);
    assert_eq!(&*s.more_forests[0].name, "trees/pines.for");
    assert!(!s.trees.is_empty());
    for t in &s.trees {
        assert_eq!(t.forest, 1);
        assert!(t.height >= 12.0 && t.height <= 18.0, "{t:?}");
    }
    // Without the forest's range, the trees keep their art's height.
    opts.forest_heights.clear();
    let s = run_named(&agn, NAME, 3, &opts);
    assert!(s.trees.iter().all(|t| t.forest == 1 && t.height == 0.0));
    // Without a mapping: placeholders (forest 0).
    let s = run(&agn, 3);
    assert!(s.trees.iter().all(|t| t.forest == 0 && t.height == 0.0));
    assert!(s.more_forests.is_empty());
}

#[test]
fn row_houses_and_polygon_buildings_are_marked_and_gbdd_is_for_generic_buildings_only() {
    let b = fp([0.0, 0.0], units(20.0, 0.0), units(0.0, 10.0));
    let agn = AgnFile {
        // All weight on 9–12 floors: generic buildings only.
        building_weights: weights([0, 0, 0, 20]),
        generic_buildings: vec![generic(Guid::ZERO, vec![b])],
        row_houses: vec![b],
        polygon_buildings: vec![PolygonBuildings {
            offset: 0,
            building: g(3),
            buildings: vec![
                // Closed: one outline, not a strip.
                PolygonBuilding {
                    offset: 0,
                    kind: 1,
                    width: 0.0,
                    vertices: vec![
                        [0.6, 0.6],
                        [0.62, 0.6],
                        [0.62, 0.62],
                        [0.6, 0.62],
                        [0.6, 0.6],
                    ],
                },
                // Open: a strip of two pieces.
                PolygonBuilding {
                    offset: 40,
                    kind: 1,
                    width: 0.01,
                    vertices: vec![[0.7, 0.7], [0.72, 0.7], [0.72, 0.72]],
                },
            ],
        }],
        ..AgnFile::default()
    };
    let s = run(&agn, 0);
    let chunks: Vec<Option<&str>> = s.facades.iter().map(|f| f.agn_chunk).collect();
    assert_eq!(
        chunks,
        vec![
            Some("GBLR"),
            Some("ROWH"),
            Some("PBDE"),
            Some("PBDE"),
            Some("PBDE")
        ]
    );
    assert!(s.facades[0].floors.unwrap() >= 9);
    assert!((2..=3).contains(&s.facades[1].floors.unwrap()));
    assert!(
        s.facades[1].roof_height > 0.0,
        "row houses have default, pitched roofs"
    );
    // The closed outline is the polygon itself: 4 corners, 0.02 × 0.02 units.
    let closed = &s.facades[2].footprint;
    assert_eq!(closed.len(), 4);
    let want = 0.02 * MX * 0.02 * MY;
    assert!(
        (area(closed) - want).abs() < 1e-3 * want,
        "{}",
        area(closed)
    );
    assert!(s.warnings.is_empty(), "{:?}", s.warnings);
}

#[test]
fn sanity_warnings_name_chunk_record_and_size() {
    // A "unit vector" direction: 1 square unit ≈ 1100 m long.
    let agn = AgnFile {
        generic_buildings: vec![GenericBuildings {
            offset: 40,
            roof: Guid::ZERO,
            buildings: vec![
                fp([0.0, 0.0], units(20.0, 0.0), units(0.0, 10.0)),
                Footprint {
                    offset: 88,
                    start: [-0.4, 0.0],
                    to_second: [0.8, 0.0],
                    to_third: units(0.0, 10.0),
                },
            ],
        }],
        row_houses: vec![Footprint {
            offset: 300,
            start: [0.49, 0.0],
            to_second: units(20.0, 0.0),
            to_third: units(0.0, 10.0),
        }],
        library_objects: vec![AgnObject {
            offset: 500,
            guid: g(1),
            start: [0.0, 0.0],
            to_second: [0.0, 0.0],
            to_third: None,
        }],
        ..AgnFile::default()
    };
    let s = run(&agn, 0);
    let w = s.warnings.lines().join("\n");
    assert!(
        w.contains("offset 88: warning: GBLR chunk at offset 40, building 1 (offset 88): 880 x 10 m, longer than 500 m"),
        "{w}"
    );
    assert!(
        w.contains("offset 300: warning: ROWH row house at offset 300: 20 x 10 m, crosses the LOD13 square's edge"),
        "{w}"
    );
    assert!(
        w.contains("offset 500: warning: A2GE library object"),
        "{w}"
    );
    assert!(w.contains("zero area"), "{w}");
    // The long and the crossing ones are still drawn; the zero-area box draws nothing.
    assert_eq!(s.facades.len(), 3);
    assert_eq!(s.library_objects.len(), 0);
    assert!(w.contains("nothing to draw, skipped"), "{w}");
    // With a model mapped, the model is placed at the box's centre.
    let mut opts = AgnOptions::default();
    opts.guid_models
        .insert(g(1).to_string(), "objs/kiosk.obj".to_string());
    let s = run_named(&agn, NAME, 0, &opts);
    assert_eq!((s.library_objects.len(), s.objects.len()), (1, 1));
    assert!(s
        .warnings
        .lines()
        .join("\n")
        .contains("its model is placed at the box's centre"));
}

#[test]
fn library_boxes_rotated_from_three_points_aligned_from_two() {
    let three = AgnObject {
        offset: 0,
        guid: g(1),
        start: [0.0, 0.0],
        to_second: units(10.0, 10.0),
        to_third: Some(units(-5.0, 5.0)),
    };
    let two = AgnObject {
        to_third: None,
        ..three
    };
    let agn = AgnFile {
        library_objects: vec![three, two],
        ..AgnFile::default()
    };
    let s = run(&agn, 0);
    let [r, a] = [&s.library_objects[0], &s.library_objects[1]];
    assert!((r.heading - 45.0).abs() < 1e-3, "{}", r.heading);
    assert!((area(&r.footprint) - 14.142_136 * 7.071_068).abs() < 0.01);
    // Two points: opposite corners, a 10 × 10 m box aligned with the square, heading 0.
    assert_eq!(a.heading, 0.0);
    assert!((area(&a.footprint) - 100.0).abs() < 0.01);
    assert!(near(a.center, [5.0, 5.0], 1e-3), "{:?}", a.center);
}

#[test]
fn repeated_layout_warnings_collapse_into_a_count() {
    let bad = PolygonBuilding {
        offset: 0,
        kind: 1,
        width: 0.0,
        vertices: vec![[0.1, 0.1], [0.2, 0.1]],
    };
    let agn = AgnFile {
        polygon_buildings: vec![PolygonBuildings {
            offset: 0,
            building: g(1),
            buildings: vec![bad; 1000],
        }],
        ..AgnFile::default()
    };
    let s = run(&agn, 0);
    assert_eq!(s.warnings.len(), 21, "{:?}", s.warnings);
    assert!(
        s.warnings.lines()[20].contains("980 more of"),
        "{}",
        s.warnings.lines()[20]
    );
}
