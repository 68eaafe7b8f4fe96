use super::write::*;
use super::*;
use crate::diag::{Location, Severity};

fn path() -> &'static Path {
    Path::new("t/001332223121112an.agn")
}

fn read(bytes: &[u8]) -> (Result<AgnFile, Diagnostic>, Vec<Diagnostic>) {
    let mut w = Vec::new();
    let r = parse(path(), bytes, &mut w);
    (r, w)
}

fn read_ok(bytes: &[u8]) -> (AgnFile, Vec<Diagnostic>) {
    let (r, w) = read(bytes);
    match r {
        Ok(f) => (f, w),
        Err(e) => panic!("expected a valid file, got {e}"),
    }
}

/// The first error: the `Err` of a file that cannot be read at all, or the first error
/// among the diagnostics of one whose bad chunk was skipped.
fn read_err(bytes: &[u8]) -> Diagnostic {
    match read(bytes) {
        (Ok(f), w) => match w.into_iter().find(|d| d.is_error()) {
            Some(e) => e,
            None => panic!("expected an error, got {f:?}"),
        },
        (Err(e), _) => {
            assert_eq!(e.severity, Severity::Error);
            e
        }
    }
}

fn at(d: &Diagnostic) -> u64 {
    match d.location {
        Location::Offset(o) => o,
        other => panic!("diagnostic {d} has no offset: {other:?}"),
    }
}

/// A RIFF AGNX file around raw child bytes that `fill` writes.
fn riff(fill: impl FnOnce(&mut Vec<u8>)) -> Vec<u8> {
    let mut out = Vec::new();
    chunk(&mut out, b"RIFF", |b| {
        b.extend_from_slice(&FORM_TYPE);
        fill(b);
    });
    out
}

fn g(n: u8) -> Guid {
    Guid([n; 16])
}

fn fp(x: f32, y: f32) -> Footprint {
    Footprint {
        offset: 0,
        start: [x, y],
        to_second: [0.01, 0.002],
        to_third: [-0.001, 0.012],
    }
}

/// A model with every section, both A2GE forms and several records per chunk.
fn model() -> AgnFile {
    AgnFile {
        version: Some(Version {
            offset: 0,
            value: FSX_VERSION,
        }),
        building_weights: Some(BuildingWeights {
            offset: 0,
            weights: [14, 4, 2, 0],
        }),
        building_texture: Some(TextureName {
            offset: 0,
            name: "town_wall".into(),
        }),
        row_house_texture: Some(TextureName {
            offset: 0,
            name: "rows".into(),
        }),
        generic_buildings: vec![
            GenericBuildings {
                offset: 0,
                roof: Guid::ZERO,
                buildings: vec![fp(-0.1, 0.2), fp(0.3, -0.25)],
            },
            GenericBuildings {
                offset: 0,
                roof: g(7),
                buildings: vec![fp(0.0, 0.0)],
            },
        ],
        vegetation_polygons: vec![VegetationPolygons {
            offset: 0,
            vegetation: g(3),
            polygons: vec![
                Polygon {
                    offset: 0,
                    vertices: vec![[0.1, 0.1], [0.2, 0.1], [0.2, 0.3], [0.1, 0.1]],
                },
                Polygon {
                    offset: 0,
                    vertices: vec![[0.6, 0.6], [0.9, 0.6], [0.8, 0.9], [0.6, 0.7], [0.6, 0.6]],
                },
            ],
        }],
        vegetation_rects: vec![VegetationRects {
            offset: 0,
            vegetation: g(4),
            rects: vec![
                Rect {
                    offset: 0,
                    start: [-0.4, -0.4],
                    to_second: [0.1, 0.05],
                },
                Rect {
                    offset: 0,
                    start: [0.2, 0.3],
                    to_second: [0.05, 0.1],
                },
            ],
        }],
        fs2004_vegetation: Some(Fs2004Vegetation {
            offset: 0,
            class1: 2,
            class2: 5,
            percent_class1: 60,
            max_density: 40,
            height_class1: [8.0, 15.0],
            height_class2: [5.0, 9.5],
        }),
        fs2004_vegetation_rects: vec![Rect {
            offset: 0,
            start: [0.1, -0.2],
            to_second: [0.02, 0.03],
        }],
        row_houses: vec![fp(0.05, 0.05), fp(0.07, 0.05), fp(0.09, 0.05)],
        library_objects: vec![
            LibraryObject {
                offset: 0,
                guid: g(9),
                start: [0.1, 0.1],
                to_second: [0.02, 0.04],
                to_third: None,
            },
            LibraryObject {
                offset: 0,
                guid: g(10),
                start: [-0.2, 0.1],
                to_second: [0.02, 0.0],
                to_third: Some([0.0, 0.03]),
            },
        ],
        polygon_buildings: vec![PolygonBuildings {
            offset: 0,
            building: g(11),
            buildings: vec![PolygonBuilding {
                offset: 0,
                kind: 1,
                width: 0.0125,
                vertices: vec![[0.4, 0.4], [0.45, 0.4], [0.45, 0.46]],
            }],
        }],
    }
}

/// The model with every offset set to 0, to compare content only.
fn strip_offsets(mut f: AgnFile) -> AgnFile {
    if let Some(v) = &mut f.version {
        v.offset = 0;
    }
    if let Some(v) = &mut f.building_weights {
        v.offset = 0;
    }
    for t in [&mut f.building_texture, &mut f.row_house_texture]
        .into_iter()
        .flatten()
    {
        t.offset = 0;
    }
    for gb in &mut f.generic_buildings {
        gb.offset = 0;
        gb.buildings.iter_mut().for_each(|b| b.offset = 0);
    }
    for vp in &mut f.vegetation_polygons {
        vp.offset = 0;
        vp.polygons.iter_mut().for_each(|p| p.offset = 0);
    }
    for vr in &mut f.vegetation_rects {
        vr.offset = 0;
        vr.rects.iter_mut().for_each(|r| r.offset = 0);
    }
    if let Some(v) = &mut f.fs2004_vegetation {
        v.offset = 0;
    }
    f.fs2004_vegetation_rects
        .iter_mut()
        .for_each(|r| r.offset = 0);
    f.row_houses.iter_mut().for_each(|r| r.offset = 0);
    f.library_objects.iter_mut().for_each(|o| o.offset = 0);
    for pb in &mut f.polygon_buildings {
        pb.offset = 0;
        pb.buildings.iter_mut().for_each(|b| b.offset = 0);
    }
    f
}

fn tag_at(bytes: &[u8], offset: u64) -> &[u8] {
    &bytes[offset as usize..offset as usize + 4]
}

// --- GUID ---------------------------------------------------------------------------

#[test]
fn guid_uses_dotnet_byte_order() {
    let bytes = [
        0x33, 0x22, 0x11, 0x00, 0x55, 0x44, 0x77, 0x66, 0x88, 0x99, 0xaa, 0xbb, 0xcc, 0xdd, 0xee,
        0xff,
    ];
    let text = "00112233-4455-6677-8899-aabbccddeeff";
    assert_eq!(Guid(bytes).to_string(), text);
    assert_eq!(Guid::parse(text), Ok(Guid(bytes)));
    assert_eq!(
        "{00112233-4455-6677-8899-AABBCCDDEEFF}".parse::<Guid>(),
        Ok(Guid(bytes))
    );
    assert_eq!(
        serde_json::to_string(&Guid(bytes)).unwrap(),
        format!("\"{text}\"")
    );
    assert!(Guid::ZERO.is_zero());
    assert!(!Guid(bytes).is_zero());
    assert_eq!(
        Guid::ZERO.to_string(),
        "00000000-0000-0000-0000-000000000000"
    );
    for s in [1u8, 0x5a, 0xfe] {
        let g = Guid([s, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, s]);
        assert_eq!(Guid::parse(&g.to_string()), Ok(g));
    }
}

#[test]
fn guid_rejects_malformed_text() {
    for bad in [
        "",
        "00112233-4455-6677-8899",
        "00112233-4455-6677-8899-aabbccddeef",
        "0011223g-4455-6677-8899-aabbccddeeff",
        "+0112233-4455-6677-8899-aabbccddeeff",
        "{00112233-4455-6677-8899-aabbccddeeff",
        "00112233-4455-6677-8899-aabbccddeeff-00",
    ] {
        assert!(Guid::parse(bad).is_err(), "{bad:?} parsed");
    }
}

// --- LOD13 --------------------------------------------------------------------------

#[test]
fn lod13_spec_example() {
    let sq = Lod13 { u: 7278, v: 4049 };
    assert_eq!(sq.file_name(), "001332223121112an.agn");
    assert_eq!(Lod13::from_file_name("001332223121112an.agn"), Ok(sq));
    assert_eq!(
        Lod13::from_file_name("scenery/world/texture/001332223121112an.agn"),
        Ok(sq)
    );
    assert_eq!(
        Lod13::from_file_name("C:\\FSX\\Scenery\\0301\\texture\\001332223121112AN.AGN"),
        Ok(sq)
    );
    // The spec's upper-left corner N45.51 W73.38 lies in this square.
    assert_eq!(Lod13::from_lat_lon(45.51, -73.38), Ok(sq));
    let b = sq.bounds();
    assert_eq!(b.north, 90.0 - 4049.0 * 0.010986328125);
    assert_eq!(b.west, 7278.0 * 0.0146484375 - 180.0);
    assert!((b.north - b.south - LOD13_LAT_STEP).abs() < 1e-12);
    assert!((b.east - b.west - LOD13_LON_STEP).abs() < 1e-12);
    assert!(b.contains(45.51, -73.38));
}

#[test]
fn lod13_rejects_bad_names() {
    let e = Lod13::from_file_name("001332243121112an.agn").unwrap_err();
    assert!(e.contains("character 8") && e.contains("'4'"), "{e}");
    let e = Lod13::from_file_name("x01332223121112an.agn").unwrap_err();
    assert!(e.contains("character 1") && e.contains("'x'"), "{e}");
    let e = Lod13::from_file_name("00133222312111éan.agn").unwrap_err();
    assert!(e.contains("character 15") && e.contains("'é'"), "{e}");
    let e = Lod13::from_file_name("01332223121112an.agn").unwrap_err();
    assert!(e.contains("14 characters"), "{e}");
    let e = Lod13::from_file_name("001332223121112.agn").unwrap_err();
    assert!(e.contains("an.agn"), "{e}");
    assert!(Lod13::from_file_name("").is_err());
    assert!(Lod13::from_file_name("é").is_err());
    // U = 110000000000000b = 24576, one past the largest.
    let e = Lod13::from_file_name("110000000000000an.agn").unwrap_err();
    assert!(e.contains("U 24576"), "{e}");
    assert_eq!(
        Lod13::from_file_name("101111111111111an.agn"),
        Ok(Lod13 { u: 24575, v: 0 })
    );
    // V's top bit makes V ≥ 16384.
    let e = Lod13::from_file_name("200000000000000an.agn").unwrap_err();
    assert!(e.contains("V 16384"), "{e}");
    assert_eq!(
        Lod13::from_file_name("022222222222222an.agn"),
        Ok(Lod13 { u: 0, v: 16383 })
    );
    assert!(Lod13::new(24576, 0).is_err());
    assert!(Lod13::new(0, 16384).is_err());
}

#[test]
fn lod13_round_trips_over_the_globe() {
    let us = (0..=LOD13_U_MAX).step_by(97).chain([LOD13_U_MAX]);
    let mut checked = 0;
    for u in us {
        let vs = (0..=LOD13_V_MAX).step_by(89).chain([LOD13_V_MAX]);
        for v in vs {
            let sq = Lod13::new(u, v).unwrap();
            let name = sq.file_name();
            assert_eq!(name.len(), 21);
            assert_eq!(Lod13::from_file_name(&name), Ok(sq), "{name}");
            let b = sq.bounds();
            let (clat, clon) = b.center();
            for (lat, lon) in [
                (b.north, b.west),
                (clat, clon),
                (b.south + 1e-9, b.east - 1e-9),
                (b.north - 1e-9, b.east - 1e-9),
            ] {
                if lat < -90.0 {
                    continue;
                }
                assert_eq!(Lod13::from_lat_lon(lat, lon), Ok(sq), "{lat} {lon} in {sq}");
                assert!(b.contains(lat, lon));
            }
            // A point just past the south-east corner is in the next square.
            if u < LOD13_U_MAX && v < LOD13_V_MAX {
                assert_eq!(
                    Lod13::from_lat_lon(b.south - 1e-9, b.east + 1e-9),
                    Ok(Lod13 { u: u + 1, v: v + 1 })
                );
            }
            checked += 1;
        }
    }
    assert!(checked > 40_000, "{checked}");
}

#[test]
fn lod13_edges_of_the_globe() {
    assert_eq!(Lod13::from_lat_lon(90.0, -180.0), Ok(Lod13 { u: 0, v: 0 }));
    assert_eq!(Lod13::from_lat_lon(0.0, 180.0), Ok(Lod13 { u: 0, v: 8192 }));
    assert_eq!(
        Lod13::from_lat_lon(-90.0, 179.999),
        Ok(Lod13 {
            u: LOD13_U_MAX,
            v: LOD13_V_MAX
        })
    );
    assert!(Lod13::from_lat_lon(f64::NAN, 0.0).is_err());
    assert!(Lod13::from_lat_lon(0.0, f64::INFINITY).is_err());
    assert!(Lod13::from_lat_lon(90.5, 0.0).is_err());
    assert!(Lod13::from_lat_lon(0.0, -180.5).is_err());
}

#[test]
fn lod13_meters_in_both_frames() {
    let equator = Lod13::from_lat_lon(0.001, 10.0).unwrap();
    let [mx, my] = equator.meters_per_unit();
    assert!((mx - 1630.0).abs() < 2.0, "{mx}");
    assert!((my - 1223.0).abs() < 1.0, "{my}");
    let north = Lod13::from_lat_lon(60.0, 10.0).unwrap();
    let [mx60, my60] = north.meters_per_unit();
    let lat = north.bounds().center().0.to_radians();
    assert!((mx60 - 1630.66 * lat.cos()).abs() < 1.0, "{mx60}");
    assert_eq!(my60, my);

    let sq = Lod13::from_lat_lon(47.6, -122.3).unwrap();
    let [mx, my] = sq.meters_per_unit();
    // Centred frame: (0.5, 0.5) is the south-east corner; y grows south.
    assert_eq!(sq.centred_to_local([0.5, 0.5]), [mx / 2.0, -my / 2.0]);
    assert_eq!(sq.centred_to_local([0.0, 0.0]), [0.0, 0.0]);
    // Top-left frame: (0, 0) is the north-west corner, (0.5, 0.5) the centre.
    assert_eq!(sq.top_left_to_local([0.0, 0.0]), [-mx / 2.0, my / 2.0]);
    assert_eq!(sq.top_left_to_local([0.5, 0.5]), [0.0, 0.0]);
    for p in [[0.1f32, 0.7], [0.9, 0.2], [0.33, 0.5]] {
        let a = sq.top_left_to_local(p);
        let b = sq.centred_to_local([p[0] - 0.5, p[1] - 0.5]);
        assert!((a[0] - b[0]).abs() < 1e-3 && (a[1] - b[1]).abs() < 1e-3);
        let back = sq.local_to_centred(sq.centred_to_local(p));
        assert!((back[0] - p[0]).abs() < 1e-6 && (back[1] - p[1]).abs() < 1e-6);
    }
    let b = sq.bounds();
    let (lat, lon) = sq.centred_to_lat_lon([-0.5, -0.5]);
    assert!((lat - b.north).abs() < 1e-12 && (lon - b.west).abs() < 1e-12);
    let (lat, lon) = sq.top_left_to_lat_lon([1.0, 1.0]);
    assert!((lat - b.south).abs() < 1e-12 && (lon - b.east).abs() < 1e-12);
    // A square 30 m on the ground is not square in units.
    let side = sq.local_to_centred([30.0, 30.0]);
    assert!(side[0] > side[1] * 1.4, "{side:?}");
}

// --- Writer and reader --------------------------------------------------------------

#[test]
fn written_file_reads_back_section_by_section() {
    let m = model();
    let bytes = write(&m);
    assert_eq!(&bytes[0..4], b"RIFF");
    assert_eq!(read_u32(&bytes, 4), bytes.len() - 8);
    assert_eq!(&bytes[8..12], b"AGNX");
    let (f, w) = read_ok(&bytes);
    assert!(w.is_empty(), "{w:?}");

    assert_eq!(f.version.map(|v| v.value), Some(FSX_VERSION));
    assert_eq!(f.building_weights.map(|w| w.weights), Some([14, 4, 2, 0]));
    assert_eq!(
        f.building_weights.unwrap().fractions(),
        [0.7, 0.2, 0.1, 0.0]
    );
    assert_eq!(f.building_texture.as_ref().unwrap().name, "town_wall");
    assert_eq!(f.row_house_texture.as_ref().unwrap().name, "rows");
    assert_eq!(f.generic_buildings.len(), 2);
    assert!(f.generic_buildings[0].roof.is_zero());
    assert_eq!(f.generic_buildings[1].roof, g(7));
    assert_eq!(f.generic_buildings[0].buildings.len(), 2);
    assert_eq!(f.vegetation_polygons[0].polygons.len(), 2);
    assert_eq!(f.vegetation_polygons[0].polygons[1].vertices.len(), 5);
    assert_eq!(f.vegetation_rects[0].rects.len(), 2);
    assert_eq!(f.fs2004_vegetation.unwrap().height_class2, [5.0, 9.5]);
    assert_eq!(f.fs2004_vegetation_rects.len(), 1);
    assert_eq!(f.row_houses.len(), 3);
    assert_eq!(f.library_objects.len(), 2);
    assert_eq!(f.polygon_buildings[0].buildings[0].width, 0.0125);
    assert_eq!(strip_offsets(f.clone()), m);

    // Offsets point at the chunk headers and records they belong to.
    assert_eq!(tag_at(&bytes, f.version.unwrap().offset), b"VERS");
    assert_eq!(tag_at(&bytes, f.building_weights.unwrap().offset), b"GBDD");
    assert_eq!(
        tag_at(&bytes, f.building_texture.as_ref().unwrap().offset),
        b"GBTE"
    );
    assert_eq!(
        tag_at(&bytes, f.row_house_texture.as_ref().unwrap().offset),
        b"RHTE"
    );
    for gb in &f.generic_buildings {
        assert_eq!(tag_at(&bytes, gb.offset), b"GBLR");
        for (i, b) in gb.buildings.iter().enumerate() {
            assert_eq!(b.offset, gb.offset + 8 + 16 + 24 * i as u64);
        }
    }
    let vp = &f.vegetation_polygons[0];
    assert_eq!(tag_at(&bytes, vp.offset), b"PRDE");
    assert_eq!(vp.polygons[0].offset, vp.offset + 24);
    assert_eq!(vp.polygons[1].offset, vp.offset + 24 + 4 + 4 * 8);
    assert_eq!(tag_at(&bytes, f.vegetation_rects[0].offset), b"VGRE");
    assert_eq!(tag_at(&bytes, f.fs2004_vegetation.unwrap().offset), b"VGRD");
    assert_eq!(
        tag_at(&bytes, f.fs2004_vegetation_rects[0].offset - 8),
        b"VGRO"
    );
    assert_eq!(tag_at(&bytes, f.row_houses[0].offset - 8), b"ROWH");
    assert_eq!(f.row_houses[2].offset, f.row_houses[0].offset + 48);
    assert_eq!(tag_at(&bytes, f.library_objects[1].offset - 24), b"A2GE");
    let pb = &f.polygon_buildings[0];
    assert_eq!(tag_at(&bytes, pb.offset), b"PBDE");
    assert_eq!(pb.buildings[0].offset, pb.offset + 24);

    // The typed file serialises for `agview dump --json`.
    let json = serde_json::to_value(&f).unwrap();
    assert_eq!(
        json["generic_buildings"][1]["roof"],
        "07070707-0707-0707-0707-070707070707"
    );
    assert_eq!(
        json["library_objects"][0]["to_third"],
        serde_json::Value::Null
    );
}

#[test]
fn library_objects_in_both_forms() {
    let m = model();
    let bytes = write(&m);
    let (f, _) = read_ok(&bytes);
    let [two, three] = [f.library_objects[0], f.library_objects[1]];
    // Each A2GE holds one record here: its header is 24 bytes (8 + the GUID) before it.
    assert_eq!(read_u32(&bytes, two.offset as usize - 24 + 4), 32);
    assert_eq!(read_u32(&bytes, three.offset as usize - 24 + 4), 40);
    assert_eq!(two.to_third, None);
    assert_eq!(three.to_third, Some([0.0, 0.03]));
    assert_eq!(two.guid, g(9));
    assert_eq!(three.guid, g(10));
    let c = two.center();
    assert!(
        (c[0] - 0.11).abs() < 1e-6 && (c[1] - 0.12).abs() < 1e-6,
        "{c:?}"
    );
    let c = three.center();
    assert!(
        (c[0] + 0.19).abs() < 1e-6 && (c[1] - 0.115).abs() < 1e-6,
        "{c:?}"
    );

    // A size that is neither GUID + n·16 nor GUID + n·24 is a malformed chunk: skipped with
    // an error, not read as something else; the next chunk is read.
    let bytes = riff(|b| {
        chunk(b, b"AGN2", |b| {
            chunk(b, b"A2GE", |b| {
                b.extend_from_slice(&g(1).0);
                (0..7).for_each(|_| put_f32(b, 0.1));
            });
            chunk(b, b"A2GE", |b| {
                b.extend_from_slice(&g(2).0);
                (0..4).for_each(|_| put_f32(b, 0.2));
            });
        });
    });
    let (f, w) = read_ok(&bytes);
    assert_eq!(f.library_objects.len(), 1);
    assert_eq!(f.library_objects[0].guid, g(2));
    assert_eq!(w.len(), 1, "{w:?}");
    assert!(w[0].is_error());
    assert!(
        w[0].message.contains("28 bytes after the GUID") && w[0].message.contains("skipped"),
        "{}",
        w[0]
    );
    assert_eq!(at(&w[0]), 20);
}

#[test]
fn footprint_and_rect_corners() {
    let f = fp(0.1, 0.2);
    let c = f.corners();
    assert_eq!(c[0], [0.1, 0.2]);
    assert_eq!(c[1], [0.1 + 0.01, 0.2 + 0.002]);
    assert_eq!(c[2], [0.1 + 0.01 - 0.001, 0.2 + 0.002 + 0.012]);
    assert_eq!(c[3], [0.1 - 0.001, 0.2 + 0.012]);
    let r = Rect {
        offset: 0,
        start: [0.0, 0.0],
        to_second: [0.25, 0.5],
    };
    assert_eq!(
        r.corners(),
        [[0.0, 0.0], [0.25, 0.0], [0.25, 0.5], [0.0, 0.5]]
    );
}

// --- Bad files ----------------------------------------------------------------------

#[test]
fn chunk_running_past_its_parent_names_tag_and_offset() {
    // GBLR claims 100 bytes inside a GBLD that holds 40.
    let mut bytes = riff(|b| {
        chunk(b, b"GBLD", |b| {
            chunk(b, b"GBLR", |b| {
                b.extend_from_slice(&[0; 16]);
                (0..6).for_each(|_| put_f32(b, 0.0));
            });
        });
        chunk(b, b"VERS", |b| put_i32(b, FSX_VERSION));
    });
    // RIFF(0) AGNX(8) GBLD(12) GBLR(20)
    assert_eq!(&bytes[20..24], b"GBLR");
    bytes[24..28].copy_from_slice(&100u32.to_le_bytes());
    let e = read_err(&bytes);
    assert_eq!(at(&e), 20);
    assert!(e.message.contains("GBLR chunk at offset 20"), "{e}");
    assert!(e.message.contains("parent GBLD chunk at offset 12"), "{e}");
    assert!(e
        .to_string()
        .starts_with("t/001332223121112an.agn: offset 20: error:"));
}

#[test]
fn chunk_running_past_the_end_of_the_file() {
    let full = write(&model());
    // Cut the file inside its last chunk and fix the RIFF size: the last chunk is short.
    let mut cut = full[..full.len() - 5].to_vec();
    let riff_size = (cut.len() - 8) as u32;
    cut[4..8].copy_from_slice(&riff_size.to_le_bytes());
    let e = read_err(&cut);
    assert!(e.message.contains("runs past the end of the file"), "{e}");
    assert!(e.message.contains("PBLD chunk at offset"), "{e}");
    assert_eq!(tag_at(&cut, at(&e)), b"PBLD");
    // Without fixing the RIFF size, the RIFF chunk itself is too long: a warning, and the
    // chunks that are there are read (all but the cut one).
    let (f, w) = read_ok(&full[..full.len() - 5]);
    assert_eq!(at(&w[0]), 4);
    assert!(!w[0].is_error());
    assert!(
        w[0].message.contains("RIFF chunk at offset 0 has size"),
        "{}",
        w[0]
    );
    assert!(w[0].message.contains("by 5 bytes"), "{}", w[0]);
    assert!(w[1].is_error() && w[1].message.contains("PBLD"), "{}", w[1]);
    assert_eq!(f.library_objects.len(), 2);
    assert!(f.polygon_buildings.is_empty());
}

#[test]
fn truncated_records_name_tag_and_offset() {
    // VERS with 2 bytes.
    let bytes = riff(|b| chunk(b, b"VERS", |b| b.extend_from_slice(&[1, 2])));
    let e = read_err(&bytes);
    assert!(
        e.message.contains("VERS chunk at offset 12: truncated"),
        "{e}"
    );
    assert_eq!(at(&e), 20);
    // GBLR with a GUID and 20 bytes: not a whole building.
    let bytes = riff(|b| {
        chunk(b, b"GBLD", |b| {
            chunk(b, b"GBLR", |b| b.extend_from_slice(&[0; 36]))
        })
    });
    let e = read_err(&bytes);
    assert_eq!(at(&e), 20);
    assert!(
        e.message.contains("GBLR chunk at offset 20: size 36"),
        "{e}"
    );
    // GBLR too short for its GUID.
    let bytes = riff(|b| {
        chunk(b, b"GBLD", |b| {
            chunk(b, b"GBLR", |b| b.extend_from_slice(&[0; 8]))
        })
    });
    let e = read_err(&bytes);
    assert!(
        e.message
            .contains("GBLR chunk at offset 20: truncated: the roof GUID"),
        "{e}"
    );
    // ROWH of 30 bytes.
    let bytes = riff(|b| chunk(b, b"ROWH", |b| b.extend_from_slice(&[0; 30])));
    let e = read_err(&bytes);
    assert!(
        e.message.contains("ROWH chunk at offset 12: size 30"),
        "{e}"
    );
    // A chunk header cut short inside the RIFF chunk.
    let bytes = riff(|b| {
        chunk(b, b"VERS", |b| put_i32(b, FSX_VERSION));
        b.extend_from_slice(b"GBD");
    });
    let e = read_err(&bytes);
    assert_eq!(at(&e), 24);
    assert!(
        e.message.contains("truncated chunk header at offset 24"),
        "{e}"
    );
}

fn prde_with_count(count: i32, vertices: usize) -> Vec<u8> {
    riff(|b| {
        chunk(b, b"PREG", |b| {
            chunk(b, b"PRDE", |b| {
                b.extend_from_slice(&g(1).0);
                put_i32(b, count);
                (0..vertices).for_each(|i| put_point(b, [i as f32 * 0.1, 0.5]));
            })
        })
    })
}

#[test]
fn vertex_count_beyond_the_chunk() {
    // RIFF(0) AGNX(8) PREG(12) PRDE(20) GUID(28) count(44)
    for (count, has) in [(5, 2), (i32::MAX, 3), (1 << 30, 0), (i32::MIN, 1), (-1, 0)] {
        let bytes = prde_with_count(count, has);
        let e = read_err(&bytes);
        assert_eq!(at(&e), 44, "{e}");
        assert!(e.message.contains("PRDE chunk at offset 20"), "{e}");
        assert!(e.message.contains(&format!("vertex count {count}")), "{e}");
    }
    // PBDE too.
    let bytes = riff(|b| {
        chunk(b, b"PBLD", |b| {
            chunk(b, b"PBDE", |b| {
                b.extend_from_slice(&g(1).0);
                put_i32(b, 1);
                put_f32(b, 0.01);
                put_i32(b, 1_000_000);
                put_point(b, [0.1, 0.1]);
            })
        })
    });
    let e = read_err(&bytes);
    assert!(e.message.contains("PBDE chunk at offset 20"), "{e}");
    assert!(e.message.contains("vertex count 1000000"), "{e}");
    // A count that fits reads.
    let (f, w) = read_ok(&prde_with_count(4, 4));
    assert_eq!(f.vegetation_polygons[0].polygons[0].vertices.len(), 4);
    // Open ring: read, with a warning.
    assert_eq!(w.len(), 1, "{w:?}");
    assert!(w[0].message.contains("not closed"));
}

#[test]
fn non_finite_coordinates_are_errors() {
    let mut m = model();
    m.generic_buildings[1].buildings[0].to_third[1] = f32::NAN;
    let bytes = write(&m);
    let e = read_err(&bytes);
    assert!(e.message.contains("GBLR chunk at offset"), "{e}");
    assert!(e.message.contains("NaN"), "{e}");
    // The error points at the float: the last float of that GBLR.
    let gblr = {
        let mut ok = model();
        ok.generic_buildings[1].buildings[0].to_third[1] = 0.0;
        read_ok(&write(&ok)).0.generic_buildings[1].offset
    };
    assert_eq!(at(&e), gblr + 8 + 16 + 20);

    let mut m = model();
    m.vegetation_polygons[0].polygons[1].vertices[2][0] = f32::INFINITY;
    let e = read_err(&write(&m));
    assert!(e.message.contains("PRDE chunk at offset"), "{e}");
    assert!(e.message.contains("inf"), "{e}");

    let mut m = model();
    m.polygon_buildings[0].buildings[0].width = f32::NEG_INFINITY;
    let e = read_err(&write(&m));
    assert!(
        e.message.contains("PBDE") && e.message.contains("extrusion width"),
        "{e}"
    );

    let mut m = model();
    m.library_objects[1].to_third = Some([f32::NAN, 0.0]);
    let e = read_err(&write(&m));
    assert!(
        e.message.contains("A2GE") && e.message.contains("third point"),
        "{e}"
    );
}

#[test]
fn bad_headers() {
    let e = read_err(b"");
    assert!(e.message.contains("empty file"), "{e}");
    let e = read_err(b"RIFF\0\0\0\0");
    assert!(e.message.contains("truncated RIFF header"), "{e}");
    assert_eq!(at(&e), 0);
    let e = read_err(b"RIF");
    assert!(
        e.message.contains("FS2004") && e.message.contains("only FSX RIFF"),
        "{e}"
    );
    let e = read_err(b"RIFF\x10");
    assert!(e.message.contains("truncated RIFF header"), "{e}");
    let e = read_err(b"RIFF\x02\0\0\0AG");
    assert!(e.message.contains("truncated RIFF header"), "{e}");
    let e = read_err(b"RIFF\x04\0\0\0WAVE");
    assert!(e.message.contains("form type is WAVE, not AGNX"), "{e}");
    assert_eq!(at(&e), 8);
    let e = read_err(b"RIFF\x04\0\0\0\x01\x02\x03\x04");
    assert!(e.message.contains("0x01020304"), "{e}");

    // FS2004: four int32 weights first.
    let mut fs9 = Vec::new();
    [10, 10, 5, 0, 3, 77]
        .iter()
        .for_each(|&x| put_i32(&mut fs9, x));
    let e = read_err(&fs9);
    assert!(e.message.contains("FS2004"), "{e}");
    assert!(e.message.contains("only FSX RIFF (AGNX)"), "{e}");

    // Bytes after the RIFF chunk are a warning.
    let mut extra = write(&model());
    let end = extra.len();
    extra.extend_from_slice(&[0xde, 0xad, 0xbe]);
    let (f, w) = read_ok(&extra);
    assert_eq!(strip_offsets(f), model());
    assert_eq!(w.len(), 1);
    assert_eq!(at(&w[0]), end as u64);
    assert!(w[0].message.contains("3 bytes after the RIFF chunk"));

    // An AGNX file with no sections reads, with a warning.
    let (f, w) = read_ok(b"RIFF\x04\0\0\0AGNX");
    assert_eq!(f, AgnFile::default());
    assert_eq!(w.len(), 1);
    assert!(w[0].message.contains("no sections"));
}

#[test]
fn unknown_and_misplaced_chunks_are_skipped_with_warnings() {
    let bytes = riff(|b| {
        chunk(b, b"VERS", |b| put_i32(b, FSX_VERSION));
        chunk(b, b"ZZZZ", |b| b.extend_from_slice(&[9; 13]));
        chunk(b, b"GBLR", |b| b.extend_from_slice(&[0; 16]));
        chunk(b, b"GBLD", |b| {
            chunk(b, b"PRDE", |b| b.extend_from_slice(&[0; 3]));
            chunk(b, b"GBLR", |b| {
                b.extend_from_slice(&g(2).0);
                (0..6).for_each(|i| put_f32(b, i as f32 * 0.01));
            });
        });
        chunk(b, b"GBDD", |b| {
            [10, 10, 10, 10].iter().for_each(|&x| put_i32(b, x))
        });
    });
    let (f, w) = read_ok(&bytes);
    assert_eq!(f.version.map(|v| v.value), Some(FSX_VERSION));
    assert_eq!(f.generic_buildings.len(), 1);
    assert_eq!(f.generic_buildings[0].roof, g(2));
    assert_eq!(f.building_weights.map(|w| w.weights), Some([10; 4]));
    assert_eq!(w.len(), 3, "{w:?}");
    // RIFF(0) AGNX(8) VERS(12..24) ZZZZ(24..45) GBLR(45..69) GBLD(69) PRDE(77)
    assert_eq!(at(&w[0]), 24);
    assert!(
        w[0].message.contains("unknown chunk ZZZZ at offset 24"),
        "{}",
        w[0]
    );
    assert_eq!(w[0].severity, Severity::Warning);
    assert_eq!(at(&w[1]), 45);
    assert!(
        w[1].message.contains("misplaced chunk GBLR at offset 45"),
        "{}",
        w[1]
    );
    assert_eq!(at(&w[2]), 77);
    assert!(w[2].message.contains("PRDE at offset 77") && w[2].message.contains("GBLD"));
}

#[test]
fn odd_values_are_warnings() {
    let bytes = riff(|b| {
        chunk(b, b"VERS", |b| put_i32(b, 7));
        chunk(b, b"VERS", |b| put_i32(b, FSX_VERSION));
        chunk(b, b"GBDD", |b| {
            [10, 25, -1, 0, 99].iter().for_each(|&x| put_i32(b, x))
        });
        chunk(b, b"GBTE", |b| b.extend_from_slice(b"\0\0\0\0"));
    });
    let (f, w) = read_ok(&bytes);
    assert_eq!(f.version.map(|v| v.value), Some(7));
    let weights = f.building_weights.unwrap();
    assert_eq!(weights.weights, [10, 25, -1, 0]);
    assert_eq!(weights.fractions(), [0.5, 1.0, 0.0, 0.0]);
    let msgs: Vec<&str> = w.iter().map(|d| d.message.as_str()).collect();
    assert_eq!(msgs.len(), 6, "{msgs:?}");
    assert!(msgs[0].contains("VERS is 7"));
    assert!(msgs[1].contains("second VERS"));
    assert!(msgs[2].contains("weight of 3-5 floor buildings is 25"));
    assert!(msgs[3].contains("weight of 6-8 floor buildings is -1"));
    assert!(msgs[4].contains("4 extra bytes"));
    assert!(msgs[5].contains("names no texture"));
}

#[test]
fn texture_names_are_nul_padded() {
    for (name, size) in [("abc", 4), ("abcd", 8), ("town_wall", 12)] {
        let m = AgnFile {
            building_texture: Some(TextureName {
                offset: 0,
                name: name.into(),
            }),
            ..AgnFile::default()
        };
        let bytes = write(&m);
        assert_eq!(read_u32(&bytes, 16), size, "{name}");
        let (f, _) = read_ok(&bytes);
        assert_eq!(f.building_texture.unwrap().name, name);
    }
}

/// A small deterministic generator (xorshift64*) for the mutation test.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

#[test]
fn prefixes_and_mutations_never_panic() {
    let bytes = write(&model());
    // A prefix shorter than the header is an error; a longer one reads what is there, with
    // a warning that the RIFF size runs past the end; never a panic.
    for n in 0..bytes.len() {
        match read(&bytes[..n]) {
            (Err(_), _) => assert!(n < 12, "prefix {n} not read"),
            (Ok(_), w) => assert!(n >= 12 && !w.is_empty(), "prefix {n}: {w:?}"),
        }
    }
    assert!(read(&bytes).0.is_ok());

    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let (mut ok, mut err) = (0, 0);
    for _ in 0..4000 {
        let mut b = bytes.clone();
        for _ in 0..1 + rng.below(4) {
            let i = rng.below(b.len());
            match rng.below(5) {
                0 => b[i] = rng.next() as u8,
                1 => b[i] ^= 1 << rng.below(8),
                2 => {
                    // A wild size or count at a 4-aligned spot.
                    let i = i & !3;
                    let v = [0u32, 1, 7, 0x7fff_ffff, 0x8000_0000, u32::MAX, 1 << 20][rng.below(7)];
                    if i + 4 <= b.len() {
                        b[i..i + 4].copy_from_slice(&v.to_le_bytes());
                    }
                }
                3 => b.truncate(i),
                _ => {
                    let end = (i + 1 + rng.below(16)).min(b.len());
                    b.drain(i..end);
                }
            }
            if b.is_empty() {
                break;
            }
        }
        match read(&b).0 {
            Ok(_) => ok += 1,
            Err(e) => {
                assert!(matches!(e.location, Location::Offset(o) if o <= b.len() as u64));
                err += 1;
            }
        }
    }
    // Both outcomes occur, so the mutations reach past the header checks.
    assert!(ok > 100 && err > 100, "ok {ok}, err {err}");
}

// --- The committed sample -----------------------------------------------------------

const SAMPLE: &str = concat!(
    concat!(env!("CARGO_MANIFEST_DIR"), "/../.."),
    "/sample_scenery/agn/000333311030032an.agn"
);

/// Two convex rings overlap unless some edge's normal separates them (meters, with a
/// 0.5 m tolerance so that touching is not overlapping).
fn overlap(a: &[[f64; 2]], b: &[[f64; 2]]) -> bool {
    for ring in [a, b] {
        for i in 0..ring.len() {
            let (p, q) = (ring[i], ring[(i + 1) % ring.len()]);
            let n = [q[1] - p[1], p[0] - q[0]];
            let proj = |r: &[[f64; 2]]| {
                let d: Vec<f64> = r.iter().map(|v| v[0] * n[0] + v[1] * n[1]).collect();
                let lo = d.iter().cloned().fold(f64::INFINITY, f64::min);
                let hi = d.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
                (lo, hi)
            };
            let len = n[0].hypot(n[1]);
            let ((alo, ahi), (blo, bhi)) = (proj(a), proj(b));
            if ahi <= blo + 0.5 * len || bhi <= alo + 0.5 * len {
                return false;
            }
        }
    }
    true
}

#[test]
fn committed_sample_has_the_town_it_was_made_with() {
    let bytes = std::fs::read(SAMPLE).expect("sample_scenery/agn sample is committed");
    let (f, w) = read_ok(&bytes);
    assert!(w.is_empty(), "{w:?}");

    // The square: Leavenworth, Washington.
    let sq = Lod13::from_file_name(SAMPLE).unwrap();
    assert_eq!(sq, Lod13 { u: 4050, v: 3859 });
    assert_eq!(Lod13::from_lat_lon(47.5962, -120.6615), Ok(sq));

    assert_eq!(f.version.map(|v| v.value), Some(FSX_VERSION));
    assert_eq!(f.building_weights.map(|w| w.weights), Some([16, 4, 0, 0]));
    let texture = &f.building_texture.as_ref().unwrap().name;
    assert_eq!(texture, "agview_town_facade");
    assert_eq!(&f.row_house_texture.as_ref().unwrap().name, texture);
    let png = Path::new(SAMPLE).with_file_name(format!("{texture}.png"));
    assert_eq!(image::image_dimensions(&png).unwrap(), (256, 256));

    assert_eq!(f.generic_buildings.len(), 3);
    assert!(f.generic_buildings[0].roof.is_zero());
    assert_eq!(
        f.generic_buildings[1].roof.to_string(),
        "4b3a2918-0706-4f5e-8d7c-6b5a49382716"
    );
    assert_eq!(
        f.generic_buildings[2].roof.to_string(),
        "e1d2c3b4-a596-4788-9a0b-1c2d3e4f5061"
    );
    let counts: Vec<usize> = f
        .generic_buildings
        .iter()
        .map(|g| g.buildings.len())
        .collect();
    assert_eq!(counts, [37, 14, 3]);
    assert_eq!(f.row_houses.len(), 6);
    let forms: Vec<bool> = f
        .library_objects
        .iter()
        .map(|o| o.to_third.is_some())
        .collect();
    // Three objects of their own, then one A2GE of five rotated grain bins (three points)
    // and one of five picnic shelters (two points).
    let mut want = vec![false, true, false];
    want.extend([true; 5]);
    want.extend([false; 5]);
    assert_eq!(forms, want);
    let bins = &f.library_objects[3..8];
    assert!(bins
        .iter()
        .all(|o| o.guid.to_string() == "3e4f5061-7283-4a94-b5c6-d7e8f9011223"));
    assert!(bins.windows(2).all(|w| w[1].offset == w[0].offset + 24));
    let rings: Vec<usize> = f
        .vegetation_polygons
        .iter()
        .flat_map(|v| v.polygons.iter().map(|p| p.vertices.len()))
        .collect();
    assert_eq!(rings, [6, 6, 7]);
    assert_eq!(f.vegetation_rects.len(), 1);
    assert_eq!(f.vegetation_rects[0].rects.len(), 1);
    assert_eq!(f.polygon_buildings.len(), 1);
    let shops = &f.polygon_buildings[0].buildings[0];
    assert_eq!(shops.vertices.len(), 3);
    assert!((shops.width as f64 * sq.meters_per_unit()[1] - 14.0).abs() < 0.01);
    let vgrd = f.fs2004_vegetation.unwrap();
    assert_eq!(
        (
            vgrd.class1,
            vgrd.class2,
            vgrd.percent_class1,
            vgrd.max_density
        ),
        (2, 1, 70, 60)
    );
    assert_eq!(
        (vgrd.height_class1, vgrd.height_class2),
        ([14.0, 24.0], [8.0, 15.0])
    );
    assert_eq!(f.fs2004_vegetation_rects.len(), 2);

    // On the ground, every building is a square-cornered rectangle inside the square
    // (generic buildings 10-40 m a side, row houses 9 by 12 m), and none overlap.
    let mut rings = Vec::new();
    let generic = f.generic_buildings.iter().flat_map(|g| &g.buildings);
    let sized = generic
        .map(|b| (b, 10.0, 40.0))
        .chain(f.row_houses.iter().map(|b| (b, 9.0, 12.0)));
    for (b, min, max) in sized {
        let c: Vec<[f64; 2]> = b
            .corners()
            .iter()
            .map(|&p| sq.centred_to_local(p))
            .collect();
        let side = |i: usize, j: usize| [c[j][0] - c[i][0], c[j][1] - c[i][1]];
        let (a, d) = (side(0, 1), side(1, 2));
        let (la, ld) = (a[0].hypot(a[1]), d[0].hypot(d[1]));
        let fits = |l: f64| l > min - 0.01 && l < max + 0.01;
        assert!(fits(la) && fits(ld), "{la} x {ld}");
        let cos = (a[0] * d[0] + a[1] * d[1]) / (la * ld);
        assert!(cos.abs() < 1e-4, "corner is not square: cos {cos}");
        // Counter-clockwise on the ground (x east, y north).
        assert!(a[0] * d[1] - a[1] * d[0] > 0.0);
        for p in b.corners() {
            assert!(p[0].abs() < 0.5 && p[1].abs() < 0.5, "{p:?}");
        }
        rings.push(c);
    }
    for i in 0..rings.len() {
        for j in i + 1..rings.len() {
            assert!(
                !overlap(&rings[i], &rings[j]),
                "buildings {i} and {j} overlap"
            );
        }
    }
    // Vegetation polygons are closed and lie inside the square (top-left frame).
    for p in f.vegetation_polygons.iter().flat_map(|v| &v.polygons) {
        assert_eq!(p.vertices.first(), p.vertices.last());
        assert!(p
            .vertices
            .iter()
            .all(|v| (0.0..=1.0).contains(&v[0]) && (0.0..=1.0).contains(&v[1])));
    }
    // The church's box (three points) is square-cornered on the ground, 18 by 32 m.
    let church = f.library_objects[1];
    let a = sq.centred_to_local(church.to_second);
    let d = sq.centred_to_local(church.to_third.unwrap());
    assert!((a[0].hypot(a[1]) - 18.0).abs() < 0.01 && (d[0].hypot(d[1]) - 32.0).abs() < 0.01);
    assert!((a[0] * d[0] + a[1] * d[1]).abs() < 0.01);
}

// --- Issue 14: a bad chunk costs that chunk only ------------------------------------

#[test]
fn a_bad_chunk_costs_that_chunk_only() {
    let mut m = model();
    m.row_houses[1].to_second = [f32::NAN, 0.0];
    let bytes = write(&m);
    let (f, w) = read_ok(&bytes);
    // ROWH is skipped with a located error; everything else is read.
    let errors: Vec<_> = w.iter().filter(|d| d.is_error()).collect();
    assert_eq!(errors.len(), 1, "{w:?}");
    assert!(errors[0].message.contains("ROWH") && errors[0].message.contains("skipped"));
    assert!(errors[0].to_string().contains(": offset "), "{}", errors[0]);
    assert!(f.row_houses.is_empty());
    let mut rest = m.clone();
    rest.row_houses.clear(); // (NaN is not equal to itself)
    assert_eq!(strip_offsets(f.clone()), rest);

    // A record chunk in a container: only it is lost, its neighbours are read.
    let bytes = riff(|b| {
        chunk(b, b"GBLD", |b| {
            chunk(b, b"GBLR", |b| {
                b.extend_from_slice(&g(1).0);
                (0..5).for_each(|_| put_f32(b, 0.01)); // 20 bytes: not a building
            });
            chunk(b, b"GBLR", |b| {
                b.extend_from_slice(&g(2).0);
                put_footprint(b, &fp(0.1, 0.1));
            });
        });
    });
    let (f, w) = read_ok(&bytes);
    assert_eq!(f.generic_buildings.len(), 1);
    assert_eq!(f.generic_buildings[0].roof, g(2));
    assert_eq!(w.len(), 1);
    assert!(w[0].is_error() && w[0].message.contains("not 16 + a multiple of 24"));
}

#[test]
fn riff_padding_after_an_odd_chunk_is_accepted() {
    let bytes = riff(|b| {
        chunk(b, b"GBTE", |b| b.extend_from_slice(b"abc")); // 3 bytes: odd
        b.push(0); // the RIFF pad byte
        chunk(b, b"VERS", |b| put_i32(b, FSX_VERSION));
    });
    let (f, w) = read_ok(&bytes);
    assert!(w.is_empty(), "{w:?}");
    assert_eq!(f.building_texture.unwrap().name, "abc");
    assert_eq!(f.version.unwrap().value, FSX_VERSION);
    // A writer that does not pad is read too.
    let bytes = riff(|b| {
        chunk(b, b"GBTE", |b| b.extend_from_slice(b"abc"));
        chunk(b, b"VERS", |b| put_i32(b, FSX_VERSION));
    });
    let (f, w) = read_ok(&bytes);
    assert!(w.is_empty(), "{w:?}");
    assert_eq!(f.version.unwrap().value, FSX_VERSION);
}

fn a2ge(guid: Guid, floats: &[f32]) -> Vec<u8> {
    riff(|b| {
        chunk(b, b"AGN2", |b| {
            chunk(b, b"A2GE", |b| {
                b.extend_from_slice(&guid.0);
                floats.iter().for_each(|&x| put_f32(b, x));
            })
        })
    })
}

#[test]
fn a2ge_holds_any_number_of_objects() {
    // Five two-point records (80 bytes: 16 divides, 24 does not).
    let floats: Vec<f32> = (0..5)
        .flat_map(|i| [0.1 * i as f32 - 0.2, 0.05, 0.01, 0.01])
        .collect();
    let (f, w) = read_ok(&a2ge(g(3), &floats));
    assert!(w.is_empty(), "{w:?}");
    assert_eq!(f.library_objects.len(), 5);
    assert!(f
        .library_objects
        .iter()
        .all(|o| o.to_third.is_none() && o.guid == g(3)));
    assert_eq!(
        f.library_objects[1].offset,
        f.library_objects[0].offset + 16
    );
    // Three three-point records (72 bytes: 24 divides, 16 does not).
    let floats: Vec<f32> = (0..3)
        .flat_map(|i| [0.1 * i as f32, -0.1, 0.01, 0.0, 0.0, 0.008])
        .collect();
    let (f, w) = read_ok(&a2ge(g(4), &floats));
    assert!(w.is_empty(), "{w:?}");
    assert_eq!(f.library_objects.len(), 3);
    assert_eq!(f.library_objects[2].to_third, Some([0.0, 0.008]));
}

#[test]
fn a2ge_size_dividing_both_is_chosen_by_plausibility_with_a_warning() {
    // 96 bytes: 6 two-point or 4 three-point records. Written as rotated three-point boxes
    // (d and o at right angles), the three-point reading is the plausible one.
    let three: Vec<f32> = (0..4)
        .flat_map(|i| [0.1 * i as f32 - 0.2, 0.1, 0.006, 0.006, -0.004, 0.004])
        .collect();
    let (f, w) = read_ok(&a2ge(g(5), &three));
    assert_eq!(f.library_objects.len(), 4);
    assert!(f.library_objects.iter().all(|o| o.to_third.is_some()));
    assert_eq!(w.len(), 1);
    assert!(!w[0].is_error());
    assert!(w[0].message.contains("read as three-point"), "{}", w[0]);
    // Six two-point records whose "third points" would be positions far from a box: two.
    let two: Vec<f32> = (0..6)
        .flat_map(|i| [0.4 - 0.15 * i as f32, 0.3, 0.01, 0.005])
        .collect();
    let (f, w) = read_ok(&a2ge(g(6), &two));
    assert_eq!(f.library_objects.len(), 6, "{w:?}");
    assert!(f.library_objects.iter().all(|o| o.to_third.is_none()));
    assert!(w[0].message.contains("read as two-point"), "{}", w[0]);
}

#[test]
fn millions_of_empty_records_cost_no_memory_and_few_warnings() {
    // One PRDE of 100,000 polygons without vertices: none is kept, and the warnings
    // collapse into 20 and a count.
    let n = 100_000;
    let bytes = riff(|b| {
        chunk(b, b"PREG", |b| {
            chunk(b, b"PRDE", |b| {
                b.extend_from_slice(&g(1).0);
                (0..n).for_each(|_| put_i32(b, 0));
            })
        });
        // And as many empty unknown chunks.
        chunk(b, b"PBLD", |b| {
            (0..n).for_each(|_| chunk(b, b"XXXX", |_| {}));
        });
    });
    let (f, w) = read_ok(&bytes);
    assert!(f.vegetation_polygons.is_empty());
    assert_eq!(w.len(), 2 * crate::diag::SHOWN_PER_KIND + 2, "{w:?}");
    let counts: Vec<&Diagnostic> = w.iter().filter(|d| d.message.contains("more of")).collect();
    assert_eq!(counts.len(), 2);
    assert!(
        counts[0].message.contains(&format!("{} more", n - 20)),
        "{}",
        counts[0]
    );
}

#[test]
fn dump_summary_lists_the_vegetation_sections() {
    let s = crate::format::summary(&crate::format::Parsed::Agn(model()));
    assert!(
        s.contains("VGRE: 2 rectangle(s) in 1 group(s), VGRO: 1 rectangle(s)"),
        "{s}"
    );
    assert!(
        s.contains("VGRD: class 2 (60%, 8-15 m) / class 5 (5-10 m), density 40"),
        "{s}"
    );
    let mut none = model();
    none.fs2004_vegetation = None;
    assert!(crate::format::summary(&crate::format::Parsed::Agn(none)).contains("no VGRD"));
}
