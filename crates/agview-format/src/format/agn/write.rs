//! The `.agn` writer (tests, the sample's generator in Rust, benches).

use super::*;

/// Writes `file` as an FSX RIFF `.agn` file. Offsets in the model are ignored; sections come
/// in the order of [`AgnFile`]'s fields, containers only when they have records. Each run of
/// library objects with the same GUID and form (3 points when `to_third` is set, else 2)
/// becomes one `A2GE`. Texture names are NUL-padded to a multiple
/// of 4 with at least one NUL.
///
/// # Panics
/// When a chunk would exceed 4 GiB, which the format cannot express.
pub fn write(file: &AgnFile) -> Vec<u8> {
    let mut out = Vec::new();
    chunk(&mut out, b"RIFF", |b| {
        b.extend_from_slice(&FORM_TYPE);
        if let Some(v) = &file.version {
            chunk(b, b"VERS", |b| put_i32(b, v.value));
        }
        if let Some(w) = &file.building_weights {
            chunk(b, b"GBDD", |b| {
                w.weights.iter().for_each(|&x| put_i32(b, x))
            });
        }
        if let Some(t) = &file.building_texture {
            chunk(b, b"GBTE", |b| put_name(b, &t.name));
        }
        if let Some(t) = &file.row_house_texture {
            chunk(b, b"RHTE", |b| put_name(b, &t.name));
        }
        if !file.generic_buildings.is_empty() {
            chunk(b, b"GBLD", |b| {
                for g in &file.generic_buildings {
                    chunk(b, b"GBLR", |b| {
                        b.extend_from_slice(&g.roof.0);
                        g.buildings.iter().for_each(|fp| put_footprint(b, fp));
                    });
                }
            });
        }
        if !file.vegetation_polygons.is_empty() {
            chunk(b, b"PREG", |b| {
                for v in &file.vegetation_polygons {
                    chunk(b, b"PRDE", |b| {
                        b.extend_from_slice(&v.vegetation.0);
                        v.polygons.iter().for_each(|p| put_vertices(b, &p.vertices));
                    });
                }
            });
        }
        if !file.vegetation_rects.is_empty() {
            chunk(b, b"VGRG", |b| {
                for v in &file.vegetation_rects {
                    chunk(b, b"VGRE", |b| {
                        b.extend_from_slice(&v.vegetation.0);
                        v.rects.iter().for_each(|r| put_rect(b, r));
                    });
                }
            });
        }
        if let Some(v) = &file.fs2004_vegetation {
            chunk(b, b"VGRD", |b| {
                for x in [v.class1, v.class2, v.percent_class1, v.max_density] {
                    put_i32(b, x);
                }
                for x in v.height_class1.iter().chain(&v.height_class2) {
                    put_f32(b, *x);
                }
            });
        }
        if !file.fs2004_vegetation_rects.is_empty() {
            chunk(b, b"VGRO", |b| {
                file.fs2004_vegetation_rects
                    .iter()
                    .for_each(|r| put_rect(b, r));
            });
        }
        if !file.row_houses.is_empty() {
            chunk(b, b"ROWH", |b| {
                file.row_houses.iter().for_each(|fp| put_footprint(b, fp));
            });
        }
        if !file.library_objects.is_empty() {
            chunk(b, b"AGN2", |b| {
                // One A2GE per run of objects with the same GUID and the same record form.
                let objs = &file.library_objects;
                let mut i = 0;
                while i < objs.len() {
                    let same = |o: &LibraryObject| {
                        o.guid == objs[i].guid && o.to_third.is_some() == objs[i].to_third.is_some()
                    };
                    let n = objs[i..].iter().take_while(|o| same(o)).count();
                    chunk(b, b"A2GE", |b| {
                        b.extend_from_slice(&objs[i].guid.0);
                        for o in &objs[i..i + n] {
                            put_point(b, o.start);
                            put_point(b, o.to_second);
                            if let Some(p) = o.to_third {
                                put_point(b, p);
                            }
                        }
                    });
                    i += n;
                }
            });
        }
        if !file.polygon_buildings.is_empty() {
            chunk(b, b"PBLD", |b| {
                for p in &file.polygon_buildings {
                    chunk(b, b"PBDE", |b| {
                        b.extend_from_slice(&p.building.0);
                        for pb in &p.buildings {
                            put_i32(b, pb.kind);
                            put_f32(b, pb.width);
                            put_vertices(b, &pb.vertices);
                        }
                    });
                }
            });
        }
    });
    out
}

/// Appends a chunk: header, whatever `fill` writes, then patches the size in.
pub(super) fn chunk(out: &mut Vec<u8>, tag: &[u8; 4], fill: impl FnOnce(&mut Vec<u8>)) {
    let start = out.len();
    out.extend_from_slice(tag);
    out.extend_from_slice(&[0; 4]);
    fill(out);
    let size = u32::try_from(out.len() - start - 8).expect("AGN chunk larger than 4 GiB");
    out[start + 4..start + 8].copy_from_slice(&size.to_le_bytes());
}

pub(super) fn put_i32(out: &mut Vec<u8>, v: i32) {
    out.extend_from_slice(&v.to_le_bytes());
}

pub(super) fn put_f32(out: &mut Vec<u8>, v: f32) {
    out.extend_from_slice(&v.to_le_bytes());
}

pub(super) fn put_point(out: &mut Vec<u8>, p: Point) {
    put_f32(out, p[0]);
    put_f32(out, p[1]);
}

pub(super) fn put_footprint(out: &mut Vec<u8>, f: &Footprint) {
    put_point(out, f.start);
    put_point(out, f.to_second);
    put_point(out, f.to_third);
}

pub(super) fn put_rect(out: &mut Vec<u8>, r: &Rect) {
    put_point(out, r.start);
    put_point(out, r.to_second);
}

pub(super) fn put_vertices(out: &mut Vec<u8>, vertices: &[Point]) {
    let n = i32::try_from(vertices.len()).expect("more than 2^31 vertices");
    put_i32(out, n);
    vertices.iter().for_each(|&p| put_point(out, p));
}

pub(super) fn put_name(out: &mut Vec<u8>, name: &str) {
    out.extend_from_slice(name.as_bytes());
    let pad = 4 - name.len() % 4;
    out.extend(std::iter::repeat_n(0u8, pad));
}
