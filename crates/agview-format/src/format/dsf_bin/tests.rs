use std::io::Cursor;
use std::path::{Path, PathBuf};

use super::commands::{id, COMMAND_NAMES};
use super::pool::{decode_pool, read_pools, PlaneEncoding, Pool};
use super::write::{
    atom, finish, pool16_atom, pool32_atom, scale_atom, set_definition, string_table,
    write_dsf_with, DsfToWrite, PolygonToWrite, WriteOptions,
};
use super::*;
use crate::diag::has_errors;

/// A pool given by its planes and (scale, offset) pairs.
type PoolSpec<T> = (Vec<Vec<T>>, Vec<(f32, f32)>);

fn p() -> &'static Path {
    Path::new("t.dsf")
}

/// A DSF with the given definition tables, one 16-bit pool per `pools16` entry (planes,
/// scale pairs), optional 32-bit pools, and the command bytes.
fn dsf_with(
    objects: &[&str],
    polygons: &[&str],
    pools16: &[PoolSpec<u16>],
    pools32: &[PoolSpec<u32>],
    cmds: &[u8],
) -> Vec<u8> {
    let mut defn = atom(b"TERT", &string_table(&["terrain/a.ter"]));
    defn.extend(atom(b"OBJT", &string_table(objects)));
    defn.extend(atom(b"POLY", &string_table(polygons)));
    defn.extend(atom(b"NETW", &string_table(&["roads.net"])));
    let mut geod = Vec::new();
    for (planes, scale) in pools16 {
        geod.extend(pool16_atom(planes, Some(PlaneEncoding::Raw)));
        geod.extend(scale_atom(b"SCAL", scale));
    }
    for (planes, scale) in pools32 {
        geod.extend(pool32_atom(planes, Some(PlaneEncoding::Raw)));
        geod.extend(scale_atom(b"SC32", scale));
    }
    finish(&[
        atom(
            b"HEAD",
            &atom(
                b"PROP",
                &string_table(&["sim/west", "8", "sim/south", "47"]),
            ),
        ),
        atom(b"DEFN", &defn),
        atom(b"GEOD", &geod),
        atom(b"CMDS", cmds),
    ])
}

/// A pool of `n` points with planes lon, lat, heading holding raw 100i, 200i and 10i, scaled
/// so that raw 65535 is 1° past 8 (lon), 1° past 47 (lat) and 360 (heading).
fn object_pool(n: u16) -> PoolSpec<u16> {
    (
        vec![
            (0..n).map(|i| i * 100).collect(),
            (0..n).map(|i| i * 200).collect(),
            (0..n).map(|i| i * 10).collect(),
        ],
        vec![(1.0, 8.0), (1.0, 47.0), (360.0, 0.0)],
    )
}

fn parse_ok(bytes: &[u8]) -> (DsfBinary, Vec<Diagnostic>) {
    let mut w = Vec::new();
    let d = parse(p(), bytes, &mut w).expect("parses");
    (d, w)
}

fn count(d: &DsfBinary, name: &str) -> u64 {
    d.command_counts
        .iter()
        .find(|(n, _)| n == name)
        .map_or(0, |(_, c)| *c)
}

#[test]
fn every_plane_encoding_round_trips_for_16_and_32_bit_pools() {
    let plane16: Vec<u16> = vec![5, 5, 5, 7, 9, 11, 11, 0, 65535, 3, 3, 3, 3];
    let long16: Vec<u16> = (0..1000u32).map(|i| (i / 7 * 13 % 65536) as u16).collect();
    for enc in PlaneEncoding::ALL {
        for planes in [
            vec![plane16.clone(), plane16.iter().rev().copied().collect()],
            vec![long16.clone(); 2],
        ] {
            let a = pool16_atom(&planes, Some(enc));
            assert_eq!(
                a[8 + 5],
                enc as u8,
                "{enc:?} is the first plane's encoding byte"
            );
            let pool: Pool<u16> = decode_pool(&a[8..]).expect("decodes");
            assert_eq!(pool.planes, 2);
            assert_eq!(pool.data, planes.concat(), "{enc:?}");
        }
        let plane32: Vec<u32> = vec![1, 1, 1, 4_000_000_000, 2, 2, 0, u32::MAX];
        let a = pool32_atom(std::slice::from_ref(&plane32), Some(enc));
        let pool: Pool<u32> = decode_pool(&a[8..]).expect("decodes");
        assert_eq!(pool.data, plane32, "{enc:?}");
    }
}

#[test]
fn plane_encodings_decode_hand_written_bytes() {
    // 4 points, 4 planes: raw, differenced, run-length, run-length differenced.
    let mut b = vec![4, 0, 0, 0, 4];
    b.push(0);
    for v in [10u16, 20, 30, 40] {
        b.extend(v.to_le_bytes());
    }
    b.push(1);
    for v in [10u16, 10, 10, 65535] {
        b.extend(v.to_le_bytes()); // 10, 20, 30, 29 (wrapping)
    }
    b.extend([2, 0x83]);
    b.extend(7u16.to_le_bytes()); // run of three 7s
    b.push(0x01);
    b.extend(9u16.to_le_bytes()); // one literal 9
    b.extend([3, 0x82]);
    b.extend(5u16.to_le_bytes()); // differences 5, 5
    b.push(0x02);
    b.extend(1u16.to_le_bytes());
    b.extend(2u16.to_le_bytes()); // differences 1, 2
    let pool: Pool<u16> = decode_pool(&b).expect("decodes");
    assert_eq!(
        pool.data,
        [10, 20, 30, 40, 10, 20, 30, 29, 7, 7, 7, 9, 5, 10, 11, 13]
    );
    // A run longer than the plane, a zero-length token, an unknown encoding, a short atom.
    for bad in [
        vec![2, 0, 0, 0, 1, 2, 0x83, 1, 0],
        vec![2, 0, 0, 0, 1, 2, 0x80, 1, 0],
        vec![2, 0, 0, 0, 1, 9, 0, 0, 0, 0],
        vec![2, 0, 0, 0, 1, 0, 1, 0],
        vec![0xFF, 0xFF, 0xFF, 0x7F, 1, 2],
        vec![0xFF, 0xFF, 0xFF, 0xFF, 1, 2],
    ] {
        assert!(decode_pool::<u16>(&bad).is_err(), "{bad:?}");
    }
}

#[test]
fn pools_scale_as_dsflib_decodes_them() {
    let geod = [
        pool16_atom(&[vec![0, 65535, 32768], vec![1, 2, 3]], None),
        scale_atom(b"SCAL", &[(0.5, 8.25), (0.0, 0.0)]),
        pool32_atom(&[vec![0, u32::MAX, 1 << 31]], None),
        scale_atom(b"SC32", &[(1.0, 47.0)]),
    ]
    .concat();
    let mut w = Vec::new();
    let (inner, _) = super::atoms(p(), &geod, 0, "GEOD", &mut w);
    let pools = read_pools(p(), &inner, &mut w);
    assert!(w.is_empty(), "{w:?}");
    let (a, b) = (&pools.p16[0], &pools.p32[0]);
    assert_eq!(a.value(0, 0), 8.25);
    assert_eq!(a.value(0, 1), 8.75);
    assert_eq!(a.value(0, 2), 32768.0 * 0.5 / 65535.0 + 8.25);
    assert_eq!(a.value(1, 2), 3.0, "scale 0 keeps the raw value");
    assert_eq!(b.value(0, 1), 48.0);
    assert_eq!(b.value(0, 2), 2147483648.0 / 4294967295.0 + 47.0);
}

/// Every command once, valid, then an OBJECT: if any size were wrong the OBJECT would not
/// decode (or an error would appear).
#[test]
fn every_command_is_read_by_its_exact_size() {
    let mut c = Vec::new();
    let u16s = |c: &mut Vec<u8>, v: &[u16]| v.iter().for_each(|x| c.extend(x.to_le_bytes()));
    c.extend([id::POOL_SELECT, 0, 0]);
    c.extend([id::JUNCTION_OFFSET, 0, 0, 0, 0]);
    c.extend([id::SET_DEF_16, 0, 0]);
    c.extend([id::SET_DEF_32, 0, 0, 0, 0]);
    c.extend([id::SET_DEF_8, 0]);
    c.extend([id::ROAD_SUBTYPE, 3]);
    c.extend([id::OBJECT, 1, 0]);
    c.extend([id::OBJECT_RANGE]);
    u16s(&mut c, &[0, 2]);
    c.extend([id::CHAIN, 2]);
    u16s(&mut c, &[0, 1]);
    c.extend([id::CHAIN_RANGE]);
    u16s(&mut c, &[0, 2]);
    c.extend([id::CHAIN_32, 2, 0, 0, 0, 0, 1, 0, 0, 0]);
    c.extend([id::POLYGON, 7, 0, 3]);
    u16s(&mut c, &[0, 1, 2]);
    c.extend([id::POLYGON_RANGE]);
    u16s(&mut c, &[7, 0, 3]);
    c.extend([id::NESTED_POLYGON, 7, 0, 2, 3]);
    u16s(&mut c, &[0, 1, 2]);
    c.push(2);
    u16s(&mut c, &[3, 4]);
    c.extend([id::NESTED_POLYGON_RANGE, 7, 0, 2]);
    u16s(&mut c, &[0, 3, 5]);
    c.push(id::PATCH);
    c.extend([id::PATCH_FLAGS, 1]);
    c.extend([id::PATCH_FLAGS_LOD, 1]);
    c.extend(0f32.to_le_bytes());
    c.extend(1000f32.to_le_bytes());
    for (list, cross, range) in [
        (id::TRIANGLE, id::TRIANGLE_CROSS_POOL, id::TRIANGLE_RANGE),
        (id::STRIP, id::STRIP_CROSS_POOL, id::STRIP_RANGE),
        (id::FAN, id::FAN_CROSS_POOL, id::FAN_RANGE),
    ] {
        c.extend([list, 3]);
        u16s(&mut c, &[0, 1, 2]);
        c.extend([cross, 3]);
        u16s(&mut c, &[0, 0, 0, 1, 0, 2]);
        c.push(range);
        u16s(&mut c, &[0, 3]);
    }
    c.extend([id::COMMENT_8, 2, b'h', b'i']);
    c.extend([id::COMMENT_16, 3, 0, 1, 2, 3]);
    c.extend([id::COMMENT_32, 1, 0, 0, 0, 0xFF]);
    c.extend([id::OBJECT, 5, 0]);

    let pools16 = [object_pool(6)];
    // Network points: lon, lat, level, junction id (every one a junction).
    let pools32 = [(
        vec![vec![0u32, 1, 2], vec![0, 1, 2], vec![0; 3], vec![1, 2, 3]],
        vec![(0.0, 0.0); 4],
    )];
    let bytes = dsf_with(&["a.obj"], &["a.fac"], &pools16, &pools32, &c);
    let (d, w) = parse_ok(&bytes);
    assert!(w.is_empty(), "{w:#?}");
    assert_eq!(d.segments.len(), 3, "one segment from each chain");
    assert!(d
        .segments
        .iter()
        .all(|s| s.subtype == 3 && s.nodes == [1, 2]));
    for (i, name) in COMMAND_NAMES.iter().enumerate() {
        if !name.is_empty() {
            assert_eq!(count(&d, name), 1 + u64::from(i == 7), "{name}");
        }
    }
    assert_eq!(d.objects.len(), 4, "OBJECT, OBJECT_RANGE of 2, OBJECT");
    assert_eq!(d.objects[3].lon, 500.0 / 65535.0 + 8.0);
    assert_eq!(d.objects[3].heading, 50.0 * 360.0 / 65535.0);
    assert_eq!(d.polygons.len(), 4);
    assert_eq!(d.md5, Md5Check::Match);
}

#[test]
fn ranges_place_several_objects_and_nested_polygons_keep_their_windings() {
    let mut c = Vec::new();
    c.extend([
        id::POOL_SELECT,
        0,
        0,
        id::SET_DEF_8,
        1,
        id::OBJECT_RANGE,
        1,
        0,
        6,
        0,
    ]);
    c.extend([
        id::SET_DEF_8,
        0,
        id::NESTED_POLYGON_RANGE,
        0x02,
        0x03,
        3,
        0,
        0,
        4,
        0,
        7,
        0,
        10,
        0,
    ]);
    c.extend([id::NESTED_POLYGON, 0, 1, 2, 3, 9, 0, 8, 0, 7, 0, 0]);
    let pool = object_pool(10);
    let bytes = dsf_with(
        &["a.obj", "b.obj"],
        &["p.agb"],
        std::slice::from_ref(&pool),
        &[],
        &c,
    );
    let (d, w) = parse_ok(&bytes);
    assert!(w.is_empty(), "{w:#?}");
    assert_eq!(d.objects.len(), 5);
    assert!(d.objects.iter().all(|o| o.def == 1));
    assert_eq!(d.objects[0].lat, 200.0 / 65535.0 + 47.0);
    let objects_offset = bytes.len() as u64 - 16 - c.len() as u64 + 5;
    assert!(d.objects.iter().all(|o| o.offset == objects_offset));
    assert_eq!(d.polygons.len(), 2);
    let a = &d.polygons[0];
    assert_eq!((a.def, a.param, a.coord_depth), (0, 0x0302, 3));
    assert_eq!(
        d.windings(a).iter().map(Vec::len).collect::<Vec<_>>(),
        [4, 3, 3]
    );
    let extra = d.extra(a);
    assert_eq!(extra.iter().map(Vec::len).collect::<Vec<_>>(), [4, 3, 3]);
    assert_eq!(extra[1][0], 4.0 * 10.0 * 360.0 / 65535.0);
    assert_eq!(a.autogen_height_m(), 12.0);
    assert_eq!(a.autogen_low(), 2);
    let b = &d.polygons[1];
    let bw = d.windings(b);
    assert_eq!(bw.len(), 2);
    assert!(bw[1].is_empty());
    assert_eq!(bw[0][0][0], 900.0 / 65535.0 + 8.0);
    assert_eq!(bw[0][2][1], 700.0 * 2.0 / 65535.0 + 47.0);
    assert_eq!(count(&d, "OBJECT_RANGE"), 1);
}

#[test]
fn bad_pool_or_definition_is_a_located_error_and_the_rest_is_kept() {
    let mut c = Vec::new();
    c.extend([id::SET_DEF_8, 0, id::OBJECT, 0, 0]); // no pool selected yet
    c.extend([id::POOL_SELECT, 0, 0, id::OBJECT, 1, 0]); // fine
    c.extend([id::SET_DEF_8, 9, id::OBJECT, 2, 0]); // no object definition 9
    c.extend([id::SET_DEF_8, 0, id::OBJECT, 99, 0]); // no point 99
    c.extend([id::POOL_SELECT, 5, 0, id::OBJECT, 0, 0]); // no pool 5
    c.extend([id::POOL_SELECT, 0, 0, id::OBJECT_RANGE, 2, 0, 4, 0]); // fine
    let bytes = dsf_with(&["a.obj"], &[], &[object_pool(4)], &[], &c);
    let cmds_at = (bytes.len() - 16 - c.len()) as u64;
    let (d, w) = parse_ok(&bytes);
    assert_eq!(d.objects.len(), 3, "{w:#?}");
    let errs: Vec<_> = w.iter().filter(|e| e.is_error()).collect();
    assert_eq!(errs.len(), 5, "{w:#?}");
    assert_eq!(errs[0].location, crate::diag::Location::Offset(cmds_at + 2));
    assert!(errs[0].message.contains("no POOL_SELECT"), "{}", errs[0]);
    assert!(errs[1]
        .message
        .contains("object definition 9 does not exist"));
    assert!(errs[2].message.contains("point 99 is past the end"));
    assert!(errs[3].message.contains("pool 5 does not exist"));
    assert!(errs[4].message.contains("pool 5 does not exist"));
    assert!(
        errs[2].to_string().starts_with("t.dsf: offset "),
        "{}",
        errs[2]
    );
}

#[test]
fn unknown_command_stops_the_stream_but_keeps_what_came_before() {
    let c = [
        id::POOL_SELECT,
        0,
        0,
        id::SET_DEF_8,
        0,
        id::OBJECT,
        1,
        0,
        20,
        id::OBJECT,
        2,
        0,
    ];
    let bytes = dsf_with(&["a.obj"], &[], &[object_pool(4)], &[], &c);
    let (d, w) = parse_ok(&bytes);
    assert_eq!(d.objects.len(), 1);
    assert!(has_errors(&w));
    assert!(w[0].message.contains("unknown command id 20"), "{w:#?}");
    assert_eq!(
        w[0].location,
        crate::diag::Location::Offset((bytes.len() - 16 - c.len() + 8) as u64)
    );
}

fn sample() -> DsfToWrite {
    let mut d = DsfToWrite {
        properties: vec![
            DsfBinProperty {
                name: "sim/west".into(),
                value: "8".into(),
            },
            DsfBinProperty {
                name: "sim/creation_agent".into(),
                value: "agview tests".into(),
            },
        ],
        object_defs: vec!["a.obj".into(), "b.agp".into()],
        polygon_defs: vec!["c.agb".into(), "d.ags".into(), "e.fac".into()],
        ..DsfToWrite::default()
    };
    for i in 0..300 {
        let f = f64::from(i);
        d.objects.push(DsfBinObject {
            def: (i / 100) as usize % 2,
            lon: 8.1 + f * 1e-4,
            lat: 47.9 - f * 3e-5,
            heading: f * 1.2 % 360.0,
            offset: 0,
        });
    }
    for i in 0..50 {
        let f = f64::from(i);
        let ring = |r: f64, n: usize| {
            (0..n)
                .map(|k| {
                    let a = k as f64 / n as f64 * std::f64::consts::TAU;
                    [8.5 + f * 0.01 + r * a.cos(), 47.5 + r * a.sin()]
                })
                .collect::<Vec<_>>()
        };
        let depth = if i % 5 == 0 { 3 } else { 2 };
        let windings = if i % 3 == 0 {
            vec![ring(0.003, 12), ring(0.001, 5)]
        } else {
            vec![ring(0.002, 4 + i as usize % 7)]
        };
        let extra = if depth == 3 {
            windings
                .iter()
                .map(|w| (0..w.len()).map(|k| k as f64).collect())
                .collect()
        } else {
            vec![]
        };
        d.polygons.push(PolygonToWrite {
            def: i as usize % 3,
            param: (i as u32 * 37) & 0xFFFF,
            coord_depth: depth,
            windings,
            extra,
        });
    }
    d
}

/// Meters between two (lon, lat) points, flat-earth.
fn meters(a: [f64; 2], b: [f64; 2]) -> f64 {
    let k = 111_320.0;
    (((a[0] - b[0]) * k * a[1].to_radians().cos()).powi(2) + ((a[1] - b[1]) * k).powi(2)).sqrt()
}

fn assert_same_features(want: &DsfToWrite, got: &DsfBinary, tol_m: f64) {
    assert_eq!(want.properties, got.properties);
    assert_eq!(want.object_defs, got.object_defs);
    assert_eq!(want.polygon_defs, got.polygon_defs);
    assert_eq!(want.objects.len(), got.objects.len());
    for (a, b) in want.objects.iter().zip(&got.objects) {
        assert_eq!(a.def, b.def);
        assert!(
            meters([a.lon, a.lat], [b.lon, b.lat]) < tol_m,
            "{a:?} {b:?}"
        );
        assert!((a.heading - b.heading).abs() < 0.01, "{a:?} {b:?}");
    }
    assert_eq!(want.polygons.len(), got.polygons.len());
    for (a, b) in want.polygons.iter().zip(&got.polygons) {
        assert_eq!(
            (a.def, a.param, a.coord_depth),
            (
                b.def as usize,
                u32::from(b.param),
                usize::from(b.coord_depth)
            )
        );
        let (windings, extra) = (got.windings(b), got.extra(b));
        assert_eq!(a.windings.len(), windings.len());
        for (wa, wb) in a.windings.iter().zip(&windings) {
            assert_eq!(wa.len(), wb.len());
            for (pa, pb) in wa.iter().zip(wb) {
                assert!(meters(*pa, *pb) < tol_m, "{pa:?} {pb:?}");
            }
        }
        assert_eq!(a.extra.len(), extra.len());
        for (ea, eb) in a.extra.iter().zip(&extra) {
            for (x, y) in ea.iter().zip(eb) {
                assert!((x - y).abs() < 0.01);
            }
        }
    }
}

#[test]
fn writer_round_trips_in_every_encoding_within_a_centimeter() {
    let d = sample();
    for enc in [None]
        .into_iter()
        .chain(PlaneEncoding::ALL.into_iter().map(Some))
    {
        let bytes = write_dsf_with(
            &d,
            &WriteOptions {
                encoding: enc,
                ..WriteOptions::default()
            },
        );
        let (got, w) = parse_ok(&bytes);
        assert!(w.is_empty(), "{enc:?}: {w:#?}");
        assert_eq!(got.md5, Md5Check::Match);
        assert_same_features(&d, &got, 0.01);
        assert!(count(&got, "OBJECT_RANGE") >= 1);
        assert!(count(&got, "NESTED_POLYGON_RANGE") >= 1);
    }
}

#[test]
fn bad_md5_is_a_warning_and_the_file_is_still_read() {
    let mut bytes = write_dsf(&sample());
    let n = bytes.len();
    bytes[n - 1] ^= 0xFF;
    let (d, w) = parse_ok(&bytes);
    assert_eq!(d.md5, Md5Check::Mismatch);
    assert_eq!(w.len(), 1);
    assert!(!w[0].is_error());
    assert!(w[0].message.contains("MD5"));
    assert_eq!(d.objects.len(), 300);
    // No footer at all.
    let (d, w) = parse_ok(&bytes[..n - 16]);
    assert_eq!(d.md5, Md5Check::Missing);
    assert!(!has_errors(&w), "{w:#?}");
    assert_eq!(d.polygons.len(), 50);
}

#[test]
fn truncated_files_give_located_errors_and_keep_what_was_read() {
    let bytes = write_dsf(&sample());
    for cut in (0..bytes.len()).step_by(97).chain([bytes.len() - 17]) {
        let mut w = Vec::new();
        match parse(p(), &bytes[..cut], &mut w) {
            Ok(d) => {
                if cut < bytes.len() - 16 {
                    assert!(has_errors(&w), "cut at {cut}: {w:#?}");
                    assert_ne!(d.md5, Md5Check::Match);
                }
            }
            Err(e) => assert!(cut < 12, "cut at {cut}: {e}"),
        }
    }
    // Cut in the middle of the commands: the earlier objects are all there.
    let cut = bytes.len() - 16 - 40;
    let (d, w) = parse_ok(&bytes[..cut]);
    assert_eq!(d.objects.len(), 300);
    assert!(d.polygons.len() > 40 && d.polygons.len() < 50);
    assert!(
        w.iter()
            .any(|e| e.is_error() && e.message.contains("truncated")),
        "{w:#?}"
    );
}

#[test]
fn mutated_files_never_panic() {
    let bytes = write_dsf(&sample());
    let mut x = 0x9E37_79B9_7F4A_7C15u64;
    for _ in 0..400 {
        let mut b = bytes.clone();
        for _ in 0..4 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let i = (x % b.len() as u64) as usize;
            b[i] = (x >> 32) as u8;
        }
        let _ = parse(p(), &b, &mut Vec::new());
    }
}

fn seven_zip(name: &str, data: &[u8]) -> Vec<u8> {
    use sevenz_rust2::{ArchiveEntry, ArchiveWriter, EncoderConfiguration, EncoderMethod};
    let mut w = ArchiveWriter::new(Cursor::new(Vec::new())).expect("writer");
    w.set_content_methods(vec![EncoderConfiguration::new(EncoderMethod::LZMA)]);
    w.push_archive_entry(ArchiveEntry::new_file(name), Some(data))
        .expect("entry");
    w.finish().expect("finish").into_inner()
}

#[test]
fn seven_zip_dsf_is_read() {
    let d = sample();
    let plain = write_dsf(&d);
    let packed = seven_zip("+47+008.dsf", &plain);
    assert!(is_dsf_binary(&packed) && is_dsf_binary(&plain));
    assert!(!is_dsf_binary(b"I\n800\nDSF2TEXT"));
    let (got, w) = parse_ok(&packed);
    assert!(w.is_empty(), "{w:#?}");
    assert!(got.compressed);
    let (unpacked, _) = parse_ok(&plain);
    assert!(!unpacked.compressed);
    assert_eq!(
        DsfBinary {
            compressed: false,
            ..got
        },
        unpacked
    );
}

/// A 7-Zip archive is read as it decompresses, atom by atom; whatever the bytes inside
/// (whole, cut anywhere, damaged), that gives exactly what reading them from memory gives:
/// the same model and the same messages.
#[test]
fn streamed_archives_read_as_the_same_bytes_in_memory() {
    let bytes = write_dsf(&sample());
    let mut x = 0x2545_F491_4F6C_DD1Du64;
    let mut cases: Vec<Vec<u8>> = (12..bytes.len())
        .step_by(131)
        .chain([bytes.len() - 16, bytes.len() - 17, bytes.len()])
        .map(|cut| bytes[..cut].to_vec())
        .collect();
    for _ in 0..20 {
        let mut b = bytes.clone();
        for _ in 0..3 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let i = 12 + (x % (b.len() as u64 - 12)) as usize;
            b[i] = (x >> 32) as u8;
        }
        cases.push(b);
    }
    for b in cases {
        let (mut wp, mut wz) = (Vec::new(), Vec::new());
        let plain = parse(p(), &b, &mut wp).expect("plain");
        let zipped = parse(p(), &seven_zip("t.dsf", &b), &mut wz).expect("7-Zip");
        assert!(zipped.compressed);
        assert_eq!(
            DsfBinary {
                compressed: false,
                ..zipped
            },
            plain,
            "{} bytes",
            b.len()
        );
        assert_eq!(wz, wp, "{} bytes", b.len());
    }
}

/// A stream that ends before the size it declares reads as a truncated file (located
/// errors, what came before kept); one that declares less is read up to that size.
#[test]
fn a_stream_shorter_or_longer_than_declared_is_read_as_far_as_it_goes() {
    let bytes = write_dsf(&sample());
    let n = bytes.len() as u64;
    let (mut w, mut stream) = (Vec::new(), &bytes[..]);
    let whole = parse_stream(p(), &mut stream, n, &mut w).expect("whole");
    assert!(w.is_empty(), "{w:#?}");
    assert_eq!(whole.md5, Md5Check::Match);
    let (mut w, mut stream) = (Vec::new(), &bytes[..bytes.len() - 100]);
    let short = parse_stream(p(), &mut stream, n, &mut w).expect("short stream");
    assert!(
        has_errors(&w) && w.iter().any(|d| d.message.contains("truncated")),
        "{w:#?}"
    );
    assert_eq!(short.objects.len(), 300);
    let (mut w, mut stream) = (Vec::new(), &bytes[..]);
    let less = parse_stream(p(), &mut stream, n - 100, &mut w).expect("declared less");
    assert!(has_errors(&w), "{w:#?}");
    assert_eq!(less.objects.len(), 300);
}

#[test]
fn seven_zip_bomb_is_refused_before_and_while_decompressing() {
    let zeros = vec![0u8; 4 << 20];
    let packed = seven_zip("bomb.dsf", &zeros);
    assert!(packed.len() < 10_000, "{}", packed.len());
    let mut w = Vec::new();
    let e = parse_with_limit(p(), &packed, 100_000, &mut w).expect_err("refused");
    assert!(
        e.message.contains("decompresses to more than 100000 bytes"),
        "{e}"
    );
    assert!(e.to_string().starts_with("t.dsf: offset 0: error:"), "{e}");
    // Not a 7-Zip archive after all.
    let mut w = Vec::new();
    let mut broken = packed.clone();
    broken.truncate(40);
    assert!(parse(p(), &broken, &mut w).is_err());
}

fn repo(rel: &str) -> PathBuf {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../..")).join(rel)
}

/// `town.dsf` and the 7-Zip `+47+008.dsf` carry exactly `town.txt`'s definitions,
/// properties and features, points within 5 cm.
#[test]
fn sample_binary_dsfs_match_the_dsf_text() {
    let txt_path = repo("sample_scenery/polygons/town.txt");
    let txt = std::fs::read(&txt_path).expect("town.txt");
    let text = crate::format::dsf::parse(&txt_path, &txt, &mut Vec::new()).expect("text parses");
    for (rel, compressed) in [
        ("sample_scenery/polygons/town.dsf", false),
        ("sample_scenery/Earth nav data/+40+000/+47+008.dsf", true),
    ] {
        let path = repo(rel);
        let bytes = std::fs::read(&path).expect(rel);
        let mut w = Vec::new();
        let d = parse(&path, &bytes, &mut w).expect(rel);
        assert!(w.is_empty(), "{rel}: {w:#?}");
        assert_eq!(d.compressed, compressed);
        assert_eq!(d.md5, Md5Check::Match);
        let props: Vec<(&str, &str)> = d
            .properties
            .iter()
            .map(|p| (p.name.as_str(), p.value.as_str()))
            .collect();
        let want: Vec<(&str, &str)> = text
            .properties
            .iter()
            .map(|p| (p.name.as_str(), p.value.as_str()))
            .collect();
        assert_eq!(props, want, "{rel}");
        let paths =
            |v: &[crate::format::dsf::DsfDef]| v.iter().map(|d| d.path.clone()).collect::<Vec<_>>();
        assert_eq!(d.object_defs, paths(&text.object_defs));
        assert_eq!(d.polygon_defs, paths(&text.polygon_defs));
        assert_eq!(d.terrain_defs, paths(&text.terrain_defs));
        assert_eq!(d.objects.len(), text.objects.len());
        for (a, b) in text.objects.iter().zip(&d.objects) {
            assert_eq!(a.def, b.def);
            assert!(
                meters([a.lon, a.lat], [b.lon, b.lat]) < 0.05,
                "{rel}: {a:?} {b:?}"
            );
            assert!((a.heading - b.heading).abs() < 0.01);
        }
        assert_eq!(d.polygons.len(), text.polygons.len());
        for (a, b) in text.polygons.iter().zip(&d.polygons) {
            assert_eq!(
                (a.def, a.param, a.coord_depth),
                (
                    b.def as usize,
                    u32::from(b.param),
                    usize::from(b.coord_depth)
                )
            );
            let windings = d.windings(b);
            assert_eq!(a.windings.len(), windings.len());
            for (wa, wb) in a.windings.iter().zip(&windings) {
                assert_eq!(wa.len(), wb.len(), "{rel}");
                for (pa, pb) in wa.iter().zip(wb) {
                    assert!(meters(*pa, *pb) < 0.05, "{rel}: {pa:?} {pb:?}");
                }
            }
        }
    }
}

#[test]
fn dsf_extension_is_detected_and_summarised() {
    use crate::format::{parse_as, summary, FileKind, Parsed};
    let bytes = write_dsf(&sample());
    let path = Path::new("x/+47+008.dsf");
    assert_eq!(FileKind::detect(path, &bytes), Some(FileKind::DsfBinary));
    let parsed = parse_as(FileKind::DsfBinary, path, &bytes, &mut Vec::new()).expect("parses");
    assert!(matches!(parsed, Parsed::DsfBinary(_)));
    let s = summary(&parsed);
    assert!(s.contains("sim/creation_agent agview tests"), "{s}");
    assert!(s.contains("polygon definitions (3):"), "{s}");
    assert!(s.contains("  2 e.fac"), "{s}");
    assert!(s.contains("OBJECT_RANGE"), "{s}");
}

#[test]
fn set_definition_picks_the_shortest_form() {
    for (def, len, first) in [
        (7u32, 2, id::SET_DEF_8),
        (300, 3, id::SET_DEF_16),
        (70_000, 5, id::SET_DEF_32),
    ] {
        let mut c = Vec::new();
        set_definition(&mut c, def);
        assert_eq!((c.len(), c[0]), (len, first));
    }
}

/// CRC-32 (IEEE), as 7-Zip's headers use it.
fn crc32(bytes: &[u8]) -> u32 {
    let mut crc = !0u32;
    for &b in bytes {
        crc ^= u32::from(b);
        for _ in 0..8 {
            crc = (crc >> 1) ^ (0xEDB8_8320 & (crc & 1).wrapping_neg());
        }
    }
    !crc
}

/// A 7-Zip number: a first byte whose leading 1 bits count the extra bytes (here at most 2).
fn sz_number(v: u64, out: &mut Vec<u8>) {
    if v < 0x80 {
        out.push(v as u8);
    } else if v < 0x4000 {
        out.extend([0x80 | (v >> 8) as u8, v as u8]);
    } else {
        assert!(v < 0x20_0000);
        out.extend([0xC0 | (v >> 16) as u8, v as u8, (v >> 8) as u8]);
    }
}

/// A one-file 7-Zip archive written by hand, stored (the Copy coder) with a plain header,
/// whose header declares `declared` bytes for a stream of `data.len()` bytes.
fn seven_zip_lying(name: &str, data: &[u8], declared: u64) -> Vec<u8> {
    let mut h = vec![0x01, 0x04]; // Header, MainStreamsInfo
    h.extend([0x06, 0x00, 0x01, 0x09]); // PackInfo: at 0, one stream, Size
    sz_number(data.len() as u64, &mut h);
    h.push(0x00);
    // UnpackInfo, Folder, one folder, not external: one coder, 1-byte id 0x00 (Copy).
    h.extend([0x07, 0x0B, 0x01, 0x00, 0x01, 0x01, 0x00, 0x0C]);
    sz_number(declared, &mut h);
    // End of UnpackInfo, SubStreamsInfo (one stream per folder), end of MainStreamsInfo.
    h.extend([0x00, 0x08, 0x00, 0x00]);
    let utf16: Vec<u8> = name
        .encode_utf16()
        .chain([0])
        .flat_map(u16::to_le_bytes)
        .collect();
    h.extend([0x05, 0x01, 0x11]); // FilesInfo, one file, Name
    sz_number(1 + utf16.len() as u64, &mut h);
    h.push(0x00); // not external
    h.extend(&utf16);
    h.extend([0x00, 0x00]); // end of FilesInfo, end of Header
    let mut start = Vec::new();
    start.extend((data.len() as u64).to_le_bytes()); // next header offset
    start.extend((h.len() as u64).to_le_bytes());
    start.extend(crc32(&h).to_le_bytes());
    let mut v = SEVEN_ZIP_MAGIC.to_vec();
    v.extend([0, 4]);
    v.extend(crc32(&start).to_le_bytes());
    v.extend(start);
    v.extend(data);
    v.extend(h);
    v
}

/// The hand-made archive reads back when it tells the truth; when its header declares less
/// than the stream holds, the archive is refused while decompressing (the 7-Zip reader
/// stops at the declared size and rejects the surplus; `unpack_7z`'s own `take(limit + 1)`
/// cap is a second guard behind it), and nothing past the limit is kept.
#[test]
fn seven_zip_declaring_less_than_its_stream_is_refused_while_decompressing() {
    let plain = write_dsf(&sample());
    let honest = seven_zip_lying("+47+008.dsf", &plain, plain.len() as u64);
    let (d, w) = parse_ok(&honest);
    assert!(w.is_empty(), "{w:#?}");
    assert!(d.compressed);
    assert_eq!(d.objects.len(), 300);

    let big = vec![7u8; 300_000];
    let lying = seven_zip_lying("bomb.dsf", &big, 1_000);
    let e = unpack_7z(p(), &lying, 100_000).expect_err("refused");
    assert!(e.message.contains("exceeds declared size"), "{e}");
    assert!(e.to_string().starts_with("t.dsf: offset 0: error:"), "{e}");
    let e = parse_with_limit(p(), &lying, 100_000, &mut Vec::new()).expect_err("refused");
    assert!(e.message.contains("7-Zip"), "{e}");
    // Declared over the limit: refused before decompressing.
    let e = unpack_7z(p(), &seven_zip_lying("x.dsf", &big, 200_000), 100_000).expect_err("refused");
    assert!(
        e.message.contains("decompresses to more than 100000 bytes"),
        "{e}"
    );
}

/// The cap behind the 7-Zip reader's own: a stream that never ends is cut one byte past the
/// limit.
#[test]
fn decompression_cap_stops_an_endless_stream() {
    let mut out = Vec::new();
    let over = read_capped(&mut std::io::repeat(1), 10, 1_000, &mut out).expect("reads");
    assert!(over);
    assert_eq!(out.len(), 1_001);
    let mut out = Vec::new();
    let over = read_capped(&mut &[1u8; 1_000][..], 1_000, 1_000, &mut out).expect("reads");
    assert!(!over);
    assert_eq!(out.len(), 1_000);
}

/// Polygons are small fixed records pointing into their pool: no allocation per polygon.
#[test]
fn polygons_and_windings_are_small_records() {
    assert_eq!(std::mem::size_of::<DsfBinPolygon>(), 24);
    assert_eq!(std::mem::size_of::<DsfBinWinding>(), 8);
}

/// A polygon whose second winding names a point past the pool is skipped whole: none of its
/// windings stay behind to shift the next polygon's. Pools only objects use are emptied
/// (their objects are decoded already); the pool a polygon uses is kept.
#[test]
fn a_skipped_polygon_leaves_no_windings_and_unused_pools_are_emptied() {
    let mut c = vec![id::POOL_SELECT, 0, 0, id::SET_DEF_8, 0, id::OBJECT_RANGE];
    c.extend([0, 0, 4, 0]);
    c.extend([id::POOL_SELECT, 1, 0]);
    // Windings (0 1 2) and (3 99): 99 is past the pool's 10 points.
    c.extend([
        id::NESTED_POLYGON,
        5,
        0,
        2,
        3,
        0,
        0,
        1,
        0,
        2,
        0,
        2,
        3,
        0,
        99,
        0,
    ]);
    c.extend([id::NESTED_POLYGON, 6, 0, 1, 3, 7, 0, 8, 0, 9, 0]);
    c.extend([id::POLYGON_RANGE, 7, 0, 2, 0, 5, 0]);
    let bytes = dsf_with(
        &["a.obj"],
        &["p.agb"],
        &[object_pool(4), object_pool(10)],
        &[],
        &c,
    );
    let (d, w) = parse_ok(&bytes);
    assert_eq!(w.len(), 1, "{w:#?}");
    assert!(w[0].message.contains("point 99 is past the end"), "{w:#?}");
    assert_eq!(d.objects.len(), 4);
    assert_eq!(d.objects[3].lon, 300.0 / 65535.0 + 8.0);
    assert_eq!(d.polygons.len(), 2);
    assert_eq!(d.winding_list.len(), 2);
    assert_eq!(d.point_indices, [7, 8, 9]);
    assert_eq!(d.winding_list[1], DsfBinWinding::Range { first: 2, end: 5 });
    let (a, b) = (&d.polygons[0], &d.polygons[1]);
    assert_eq!((a.param, a.pool, a.winding_count), (6, 1, 1));
    assert_eq!(
        d.windings(a)[0][1],
        [800.0 / 65535.0 + 8.0, 1600.0 / 65535.0 + 47.0]
    );
    assert_eq!(d.windings(b)[0].len(), 3);
    assert_eq!(d.pools[0], Pool::default(), "only objects use pool 0");
    assert_eq!((d.pools[1].count, d.pools[1].planes), (10, 3));
}

/// `dump --json` shows each polygon with its windings decoded, as the DSF text's dump does,
/// and not the pools.
#[test]
fn json_shows_polygons_with_decoded_windings() {
    let bytes = write_dsf(&sample());
    let (d, _) = parse_ok(&bytes);
    let v = serde_json::to_value(&d).expect("serializes");
    assert!(v.get("pools").is_none() && v.get("winding_list").is_none());
    let polygons = v["polygons"].as_array().expect("polygons");
    assert_eq!(polygons.len(), 50);
    for (k, (j, p)) in polygons.iter().zip(&d.polygons).enumerate() {
        assert_eq!(j["def"], p.def, "{k}");
        assert_eq!(j["param"], p.param, "{k}");
        assert_eq!(j["offset"], p.offset, "{k}");
        let windings: Vec<Vec<[f64; 2]>> =
            serde_json::from_value(j["windings"].clone()).expect("windings");
        assert_eq!(windings, d.windings(p), "{k}");
        let extra: Vec<Vec<f64>> = serde_json::from_value(j["extra"].clone()).expect("extra");
        assert_eq!(extra, d.extra(p), "{k}");
    }
    assert_eq!(v["objects"][0]["lon"], d.objects[0].lon);
    assert_eq!(v["md5"], "match");
    assert_eq!(v["command_counts"][0][0], "POOL_SELECT");
}

#[test]
fn atom_ids_print_their_odd_bytes_as_escapes() {
    assert_eq!(printable(b"HEAD"), "HEAD");
    assert_eq!(printable(&[b'P', 0x00, 0xE9, b'\\']), "P\\x00\\xE9\\\\");
}

/// A 4-plane network pool of raw values: lon and lat are raw 1e6 × degrees past 8° and
/// 47° (scaled), z raw with offset -1 (so raw 1 is level 0), junction ids unscaled.
fn network_pool(points: &[(f64, f64, i32, u32)]) -> PoolSpec<u32> {
    let q = |v: f64| (v * 1e6).round() as u32;
    (
        vec![
            points.iter().map(|p| q(p.0)).collect(),
            points.iter().map(|p| q(p.1)).collect(),
            points.iter().map(|p| (p.2 + 1) as u32).collect(),
            points.iter().map(|p| p.3).collect(),
        ],
        vec![
            (4294.967, 8.0),
            (4294.967, 47.0),
            (4294967296.0, -1.0),
            (0.0, 0.0),
        ],
    )
}

/// The commands that select network definition `def`, subtype `sub` and pool 0.
fn network_state(def: u8, sub: u8) -> Vec<u8> {
    vec![
        id::POOL_SELECT,
        0,
        0,
        id::SET_DEF_8,
        def,
        id::ROAD_SUBTYPE,
        sub,
    ]
}

#[test]
fn a_chain_splits_into_segments_at_each_junction_it_passes() {
    // J1 · shape · J2 (level 1) · handle · handle · J3 (level -1): two segments.
    let pool = network_pool(&[
        (0.0, 0.0, 0, 1),
        (0.001, 0.0, 0, 0),
        (0.002, 0.0, 1, 2),
        (0.0025, 0.001, 1, 0),
        (0.0035, 0.001, 1, 0),
        (0.004, 0.0, -1, 3),
    ]);
    let mut c = network_state(0, 7);
    c.extend([id::CHAIN_32, 6]);
    (0u32..6).for_each(|i| c.extend(i.to_le_bytes()));
    let (d, w) = parse_ok(&dsf_with(&[], &[], &[], &[pool], &c));
    assert!(w.is_empty(), "{w:#?}");
    assert_eq!(d.segments.len(), 2);
    let (a, b) = (&d.segments[0], &d.segments[1]);
    assert_eq!((a.def, a.subtype, a.nodes), (0, 7, [1, 2]));
    assert_eq!((b.def, b.subtype, b.nodes), (0, 7, [2, 3]));
    assert_eq!(a.points.len(), 3);
    assert_eq!(b.points.len(), 4);
    assert!((a.points[1][0] - 8.001).abs() < 1e-9);
    assert!(
        (b.points[0][0] - 8.002).abs() < 1e-9,
        "J2 ends one and begins the next"
    );
    assert!((b.points[0][2] - 1.0).abs() < 1e-6 && (b.points[3][2] + 1.0).abs() < 1e-6);
    assert!(a.ctrl.is_none());
    let at = a.at;
    assert!(matches!(at, crate::diag::Location::Offset(_)));
    assert_eq!(b.at, at, "both come from one command");
}

#[test]
fn junction_offsets_apply_to_16_bit_chains_and_ranges() {
    let pool = network_pool(&[
        (0.5, 0.5, 0, 9),
        (0.0, 0.0, 0, 1),
        (0.001, 0.0, 0, 2),
        (0.002, 0.0, 0, 3),
    ]);
    let mut c = network_state(0, 4);
    c.extend([id::JUNCTION_OFFSET, 1, 0, 0, 0]);
    c.extend([id::CHAIN, 2, 0, 0, 1, 0]);
    c.extend([id::CHAIN_RANGE, 1, 0, 3, 0]);
    let (d, w) = parse_ok(&dsf_with(&[], &[], &[], &[pool], &c));
    assert!(w.is_empty(), "{w:#?}");
    let nodes: Vec<[u64; 2]> = d.segments.iter().map(|s| s.nodes).collect();
    assert_eq!(nodes, vec![[1, 2], [2, 3]]);
}

#[test]
fn bad_chains_cost_only_themselves() {
    let pool = network_pool(&[(0.0, 0.0, 0, 1), (0.001, 0.0, 0, 0), (0.002, 0.0, 0, 2)]);
    let mut c = network_state(0, 1);
    let bad_index = c.len();
    c.extend([id::CHAIN, 2, 0, 0, 9, 0]);
    let loose = c.len();
    c.extend([id::CHAIN, 3, 1, 0, 2, 0, 0, 0]);
    c.extend([id::SET_DEF_8, 4]);
    let bad_def = c.len();
    c.extend([id::CHAIN_RANGE, 0, 0, 3, 0]);
    c.extend([id::SET_DEF_8, 0, id::CHAIN_RANGE, 0, 0, 3, 0]);
    let bytes = dsf_with(&[], &[], &[], &[pool], &c);
    let (d, w) = parse_ok(&bytes);
    let base = bytes.len() - 16 - c.len();
    let at = |k: usize| crate::diag::Location::Offset((base + k) as u64);
    let said: Vec<(crate::diag::Location, String)> =
        w.iter().map(|d| (d.location, d.to_string())).collect();
    assert_eq!(said.len(), 3, "{said:#?}");
    assert_eq!(said[0].0, at(bad_index));
    assert!(
        said[0]
            .1
            .contains("NETWORK_CHAIN: point 9 is past the end of the 32-bit pool (3 points)"),
        "{}",
        said[0].1
    );
    assert_eq!(said[1].0, at(loose));
    assert!(
        said[1].1.contains("the chain begins on a shape point"),
        "{}",
        said[1].1
    );
    assert_eq!(said[2].0, at(bad_def));
    assert!(
        said[2].1.contains("network definition 4 does not exist"),
        "{}",
        said[2].1
    );
    assert!(w.iter().all(|d| d.is_error()));
    // The loose chain keeps its segment from J2 back to J1; the good range its own.
    let nodes: Vec<[u64; 2]> = d.segments.iter().map(|s| s.nodes).collect();
    assert_eq!(nodes, vec![[2, 1], [1, 2]]);
}

#[test]
fn a_network_pool_needs_four_planes_and_seven_are_curved() {
    let (planes, scale) = network_pool(&[(0.0, 0.0, 0, 1), (0.002, 0.0, 0, 2)]);
    let thin = (planes[..2].to_vec(), scale[..2].to_vec());
    let mut c = network_state(0, 1);
    c.extend([id::CHAIN_RANGE, 0, 0, 2, 0]);
    let (d, w) = parse_ok(&dsf_with(&[], &[], &[], &[thin], &c));
    assert!(d.segments.is_empty());
    assert!(w[0].message.contains("network chains need 4"), "{w:?}");
    // Seven planes: the control lon, lat, z follow.
    let mut curved = (planes.clone(), scale.clone());
    curved
        .0
        .extend([planes[0].clone(), vec![1000, 1000], planes[2].clone()]);
    curved.1.extend([scale[0], scale[1], scale[2]]);
    c.extend([id::CHAIN_RANGE, 0, 0, 2, 0]);
    let (d, w) = parse_ok(&dsf_with(&[], &[], &[], &[curved], &c));
    assert_eq!(w.len(), 1, "warned once: {w:#?}");
    assert_eq!(w[0].severity, crate::diag::Severity::Warning);
    assert!(w[0].message.contains("curved network pool (7 planes)"));
    assert_eq!(d.segments.len(), 2);
    let ctrl = d.segments[0].ctrl.as_ref().expect("curved");
    assert!((ctrl[0][1] - 47.001).abs() < 1e-9);
}

#[test]
fn written_networks_read_back_as_the_same_segments() {
    use crate::format::dsf::DsfSegment;
    let s = |nodes: [u64; 2], sub: u32, points: Vec<[f64; 3]>| DsfSegment {
        def: 0,
        subtype: sub,
        nodes,
        points,
        ..DsfSegment::default()
    };
    let segs = vec![
        s(
            [1, 2],
            3,
            vec![[8.1, 47.1, 0.0], [8.1005, 47.1002, 1.0], [8.101, 47.1, 1.0]],
        ),
        s([2, 3], 3, vec![[8.101, 47.1, 1.0], [8.102, 47.101, -1.0]]),
        s([3, 4], 5, vec![[8.102, 47.101, 0.0], [8.103, 47.101, 0.0]]),
    ];
    let d = DsfToWrite {
        network_defs: vec!["lib/g10/roads.net".into()],
        segments: segs.clone(),
        ..DsfToWrite::default()
    };
    let (got, w) = parse_ok(&write_dsf(&d));
    assert!(w.is_empty(), "{w:#?}");
    assert_eq!(
        count(&got, "NETWORK_CHAIN_RANGE"),
        2,
        "the first two chain through junction 2"
    );
    assert_eq!(got.segments.len(), 3);
    for (a, b) in got.segments.iter().zip(&segs) {
        assert_eq!((a.def, a.subtype, a.nodes), (b.def, b.subtype, b.nodes));
        assert_eq!(a.points.len(), b.points.len());
        for (p, q) in a.points.iter().zip(&b.points) {
            assert!(
                (p[0] - q[0]).abs() < 1e-9 && (p[1] - q[1]).abs() < 1e-9,
                "{p:?} {q:?}"
            );
            assert!((p[2] - q[2]).abs() < 1e-6, "{p:?} {q:?}");
        }
    }
}
