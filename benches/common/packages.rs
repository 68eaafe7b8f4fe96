//! Packages the benches (and `tests/export.rs`) build as authors publish them: their own
//! `objects/` and `textures/`, a DSF text in `Earth nav data/+50+000/`.
//! `benches/render_memory.rs` renders them; `tests/export.rs` exports the airport.

// Each user takes what it needs of these.
#![allow(dead_code)]

use std::path::{Path, PathBuf};

pub fn write(path: &Path, bytes: impl AsRef<[u8]>) {
    std::fs::create_dir_all(path.parent().expect("a parent")).expect("a folder");
    std::fs::write(path, bytes).expect("written");
}

/// A box of 12 triangles, `size` metres, its texture `../textures/{texture}` over each face.
pub fn box_obj(texture: &str, size: f32) -> String {
    let s = size;
    let mut vt = String::new();
    let mut idx = String::new();
    // Four faces round and a roof: 20 vertices, 30 indices.
    let faces: [[[f32; 3]; 4]; 5] = [
        [[0., 0., 0.], [s, 0., 0.], [s, s, 0.], [0., s, 0.]],
        [[s, 0., 0.], [s, 0., s], [s, s, s], [s, s, 0.]],
        [[s, 0., s], [0., 0., s], [0., s, s], [s, s, s]],
        [[0., 0., s], [0., 0., 0.], [0., s, 0.], [0., s, s]],
        [[0., s, 0.], [s, s, 0.], [s, s, s], [0., s, s]],
    ];
    let uv = [[0., 0.], [1., 0.], [1., 1.], [0., 1.]];
    for (f, face) in faces.iter().enumerate() {
        for (k, p) in face.iter().enumerate() {
            vt.push_str(&format!(
                "VT {} {} {} 0 1 0 {} {}\n",
                p[0] - s / 2.0,
                p[1],
                p[2] - s / 2.0,
                uv[k][0],
                uv[k][1]
            ));
        }
        let b = f * 4;
        for i in [0, 2, 1, 0, 3, 2] {
            idx.push_str(&format!("IDX {}\n", b + i));
        }
    }
    format!("A\n800\nOBJ\n\nTEXTURE ../textures/{texture}\nPOINT_COUNTS 20 0 0 30\n{vt}{idx}TRIS 0 30\n")
}

/// A PNG of `side`² with a pattern (so that it does not compress to nothing).
pub fn png(path: &Path, side: u32, seed: u32) {
    std::fs::create_dir_all(path.parent().expect("a parent")).expect("a folder");
    let img = image::RgbaImage::from_fn(side, side, |x, y| {
        let v = (x ^ y).wrapping_mul(seed + 3);
        image::Rgba([
            (v & 0xff) as u8,
            (x / 16 % 256) as u8,
            (y / 16 % 256) as u8,
            255,
        ])
    });
    img.save(path).expect("a PNG");
}

/// A BC1 DDS of `side`² with its whole mip chain, as packages ship them.
pub fn dds(path: &Path, side: u32, seed: u32) {
    let mut d = bc1_dds(side);
    for (i, v) in d.data.iter_mut().enumerate() {
        *v = (i as u32).wrapping_mul(seed * 2 + 7) as u8;
    }
    write_dds(path, &d);
}

/// A BC1 DDS of `side`² with room for its whole mip chain, its blocks zero.
fn bc1_dds(side: u32) -> ddsfile::Dds {
    let levels = 32 - side.leading_zeros();
    ddsfile::Dds::new_d3d(ddsfile::NewD3dParams {
        height: side,
        width: side,
        depth: None,
        format: ddsfile::D3DFormat::DXT1,
        mipmap_levels: Some(levels),
        caps2: None,
    })
    .expect("a DDS header")
}

fn write_dds(path: &Path, d: &ddsfile::Dds) {
    let mut bytes = Vec::new();
    d.write(&mut bytes).expect("DDS bytes");
    write(path, bytes);
}

/// A DSF text of `sim/west 0`, `sim/south 50` with these definitions and placements
/// (definition index, metres east, metres north, heading).
pub fn dsf_text(defs: &[String], objects: &[(usize, f64, f64, f64)]) -> String {
    let mut t = String::from(
        "A\n800\nDSF2TEXT\nPROPERTY sim/west 0\nPROPERTY sim/south 50\nPROPERTY sim/east 1\n\
PROPERTY sim/north 51\n",
    );
    for d in defs {
        t.push_str(&format!("OBJECT_DEF {d}\n"));
    }
    let m_per_lon = 111_320.0 * 50.5f64.to_radians().cos();
    for (def, e, n, h) in objects {
        t.push_str(&format!(
            "OBJECT {def} {:.8} {:.8} {h:.1}\n",
            0.5 + e / m_per_lon,
            50.5 + n / 111_320.0
        ));
    }
    t
}

/// The airport's art in `root`: 120 objects (`objects/o{i}.obj`), each with its own texture
/// (`textures/t{i}.png` or `.dds`: 20 of 2048², the rest 1024² PNG and 512² DDS). Returns
/// the objects' paths, relative to `root`.
fn airport_art(root: &Path) -> Vec<String> {
    airport_art_with(root, png, dds)
}

/// [`airport_art`] with its textures written by `png` and `dds` (path, side, seed).
fn airport_art_with(
    root: &Path,
    png: fn(&Path, u32, u32),
    dds: fn(&Path, u32, u32),
) -> Vec<String> {
    let mut defs = Vec::new();
    for i in 0..120u32 {
        let side = match i {
            0..20 => 2048,
            _ if i % 2 == 0 => 1024,
            _ => 512,
        };
        let name = if i % 2 == 0 {
            png(&root.join(format!("textures/t{i}.png")), side, i);
            format!("t{i}.png")
        } else {
            dds(&root.join(format!("textures/t{i}.dds")), side, i);
            format!("t{i}.dds")
        };
        write(
            &root.join(format!("objects/o{i}.obj")),
            box_obj(&name, 8.0 + (i % 5) as f32 * 4.0),
        );
        defs.push(format!("objects/o{i}.obj"));
    }
    defs
}

/// The airport's 2,000 placements over a 1.6 km × 1 km apron and field: (object kind,
/// metres east, metres north, heading).
fn airport_placements() -> Vec<(usize, f64, f64, f64)> {
    (0..2000)
        .map(|i| {
            let (x, y) = ((i % 50) as f64, (i / 50) as f64);
            (
                i % 120,
                x * 32.0 - 800.0,
                y * 25.0 - 500.0,
                (i * 37 % 360) as f64,
            )
        })
        .collect()
}

/// The airport package: 2,000 objects of 120 kinds, 120 textures (20 of 2048²).
pub fn airport(dir: &Path) -> PathBuf {
    let root = dir.join("Airport");
    let defs = airport_art(&root);
    let dsf = root.join("Earth nav data/+50+000/+50+000.txt");
    write(&dsf, dsf_text(&defs, &airport_placements()));
    dsf
}

/// The airport with realistic art ([`airport`]'s objects and placements, its textures of
/// the same sizes and formats): smooth, photo-like pictures with a mild grain
/// ([`photo_png`]), the DDS ones encoded as real, opaque BC1 ([`photo_dds`]), as painted
/// and photographed art is. [`airport`]'s are synthetic noise (an XOR pattern, random BC1
/// bytes whose blocks half punch through), which no image compression can shrink.
pub fn airport_realistic(dir: &Path) -> PathBuf {
    let root = dir.join("Airport realistic");
    let defs = airport_art_with(&root, photo_png, photo_dds);
    let dsf = root.join("Earth nav data/+50+000/+50+000.txt");
    write(&dsf, dsf_text(&defs, &airport_placements()));
    dsf
}

/// A hash of a lattice point and a seed, in 0..1.
fn hash01(x: i64, y: i64, seed: u32) -> f32 {
    let mut h = (x as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15)
        ^ (y as u64).wrapping_mul(0xC2B2_AE3D_27D4_EB4F)
        ^ (seed as u64).wrapping_mul(0x1656_67B1_9E37_79F9);
    h ^= h >> 29;
    h = h.wrapping_mul(0xBF58_476D_1CE4_E5B9);
    h ^= h >> 32;
    (h >> 40) as f32 / (1u64 << 24) as f32
}

/// Smooth value noise in 0..1 at `(x, y)` (lattice units).
fn value_noise(x: f32, y: f32, seed: u32) -> f32 {
    let (i, j) = (x.floor(), y.floor());
    let (fx, fy) = (x - i, y - j);
    let (ux, uy) = (fx * fx * (3.0 - 2.0 * fx), fy * fy * (3.0 - 2.0 * fy));
    let (i, j) = (i as i64, j as i64);
    let a = hash01(i, j, seed);
    let b = hash01(i + 1, j, seed);
    let c = hash01(i, j + 1, seed);
    let d = hash01(i + 1, j + 1, seed);
    let top = a + (b - a) * ux;
    let bottom = c + (d - c) * ux;
    top + (bottom - top) * uy
}

/// A smooth, photo-like RGBA picture of `side`²: a tint of its own, broad shading and
/// stains (three octaves of value noise over the whole picture, tiling nothing) and a
/// grain of about ±2 levels per texel, as a photographed or painted texture has. Opaque.
pub fn photo(side: u32, seed: u32) -> image::RgbaImage {
    let tint = [
        0.45 + 0.4 * hash01(1, 0, seed),
        0.45 + 0.4 * hash01(2, 0, seed),
        0.45 + 0.4 * hash01(3, 0, seed),
    ];
    let s = side as f32;
    image::RgbaImage::from_fn(side, side, |x, y| {
        let (u, v) = (x as f32 / s, y as f32 / s);
        let broad = value_noise(u * 3.0, v * 3.0, seed);
        let mid = value_noise(u * 12.0, v * 12.0, seed + 101);
        let fine = value_noise(u * 48.0, v * 48.0, seed + 202);
        let light = 0.55 + 0.35 * broad + 0.2 * (mid - 0.5) + 0.08 * (fine - 0.5);
        let grain = (hash01(x as i64, y as i64, seed + 303) - 0.5) * 4.0;
        // Warmer and cooler patches.
        let warm = 0.15 * (value_noise(u * 5.0, v * 5.0, seed + 404) - 0.5);
        let c = |k: usize| {
            let hue = 1.0 + warm * (1.0 - k as f32);
            (tint[k] * light * hue * 255.0 + grain).clamp(0.0, 255.0) as u8
        };
        image::Rgba([c(0), c(1), c(2), 255])
    })
}

/// A PNG of [`photo`].
pub fn photo_png(path: &Path, side: u32, seed: u32) {
    std::fs::create_dir_all(path.parent().expect("a parent")).expect("a folder");
    photo(side, seed).save(path).expect("a PNG");
}

/// A BC1 DDS of [`photo`] with its whole mip chain (each level the one above averaged
/// 2×2), every block in BC1's opaque four-colour mode, as texture tools write opaque art.
pub fn photo_dds(path: &Path, side: u32, seed: u32) {
    let levels = 32 - side.leading_zeros();
    let mut d = bc1_dds(side);
    let mut level = photo(side, seed);
    let mut data = Vec::with_capacity(d.data.len());
    for k in 0..levels {
        data.extend(bc1_encode(&level));
        if k + 1 < levels {
            level = image::imageops::resize(
                &level,
                (level.width() / 2).max(1),
                (level.height() / 2).max(1),
                image::imageops::FilterType::Triangle,
            );
        }
    }
    assert_eq!(data.len(), d.data.len(), "BC1 blocks for every level");
    d.data = data;
    write_dds(path, &d);
}

/// `img` as BC1 blocks, rows of 4×4 blocks from the top (edges repeated to fill a block).
/// Each block's endpoints are the corners of its colours' box (per-channel max and min),
/// in RGB 5:6:5 with colour 0 above colour 1, so every block is in the opaque four-colour
/// mode; each texel takes the nearest of the four colours.
pub fn bc1_encode(img: &image::RgbaImage) -> Vec<u8> {
    let (w, h) = (img.width(), img.height());
    let mut out = Vec::new();
    let to565 = |c: [f32; 3]| -> u16 {
        let r = (c[0] * 31.0 / 255.0).round() as u16;
        let g = (c[1] * 63.0 / 255.0).round() as u16;
        let b = (c[2] * 31.0 / 255.0).round() as u16;
        (r << 11) | (g << 5) | b
    };
    let from565 = |v: u16| -> [f32; 3] {
        [
            ((v >> 11) & 31) as f32 * 255.0 / 31.0,
            ((v >> 5) & 63) as f32 * 255.0 / 63.0,
            (v & 31) as f32 * 255.0 / 31.0,
        ]
    };
    for by in 0..h.div_ceil(4) {
        for bx in 0..w.div_ceil(4) {
            let mut px = [[0f32; 3]; 16];
            for (k, p) in px.iter_mut().enumerate() {
                let x = (bx * 4 + k as u32 % 4).min(w - 1);
                let y = (by * 4 + k as u32 / 4).min(h - 1);
                let c = img.get_pixel(x, y).0;
                *p = [c[0] as f32, c[1] as f32, c[2] as f32];
            }
            let (mut lo, mut hi) = ([255f32; 3], [0f32; 3]);
            for p in &px {
                for c in 0..3 {
                    lo[c] = lo[c].min(p[c]);
                    hi[c] = hi[c].max(p[c]);
                }
            }
            let (mut c0, mut c1) = (to565(hi), to565(lo));
            if c0 < c1 {
                std::mem::swap(&mut c0, &mut c1);
            }
            let mut indices = 0u32;
            if c0 == c1 {
                // One colour: four-colour mode needs colour 0 above colour 1.
                if c0 > 0 {
                    c1 = c0 - 1;
                } else {
                    // Black: colour 1, every texel.
                    c0 = 1;
                    indices = 0x5555_5555;
                }
            } else {
                let (e0, e1) = (from565(c0), from565(c1));
                let mix = |a: f32, b: f32, t: f32| a + (b - a) * t;
                let palette: [[f32; 3]; 4] = [
                    e0,
                    e1,
                    [0, 1, 2].map(|c| mix(e0[c], e1[c], 1.0 / 3.0)),
                    [0, 1, 2].map(|c| mix(e0[c], e1[c], 2.0 / 3.0)),
                ];
                for (k, p) in px.iter().enumerate() {
                    let d = |q: &[f32; 3]| (0..3).map(|c| (p[c] - q[c]).powi(2)).sum::<f32>();
                    let best = (0..4)
                        .min_by(|&a, &b| d(&palette[a]).total_cmp(&d(&palette[b])))
                        .unwrap_or(0);
                    indices |= (best as u32) << (2 * k);
                }
            }
            out.extend_from_slice(&c0.to_le_bytes());
            out.extend_from_slice(&c1.to_le_bytes());
            out.extend_from_slice(&indices.to_le_bytes());
        }
    }
    out
}

/// The airport as a WED project (`Airport WED/earth.wed.xml`): the same 2,000 objects and
/// 120 textures, and 200 draped polygons of 10 kinds (`pols/p{k}.pol`, each on one of the
/// objects' textures, 5 PNG and 5 DDS), every eleventh feature a polygon, as a project
/// mixes them. Returns the project file.
pub fn airport_wed(dir: &Path) -> PathBuf {
    use std::fmt::Write;
    let root = dir.join("Airport WED");
    let defs = airport_art(&root);
    for k in 0..10 {
        let t = if k % 2 == 0 {
            format!("t{}.png", 20 + k)
        } else {
            format!("t{}.dds", 20 + k)
        };
        write(
            &root.join(format!("pols/p{k}.pol")),
            format!("A\n850\nDRAPED_POLYGON\n\nTEXTURE ../textures/{t}\nSCALE 25 25\nLAYER_GROUP taxiways 1\n"),
        );
    }
    let m_per_lon = 111_320.0 * 50.5f64.to_radians().cos();
    let ll = |e: f64, n: f64| (0.5 + e / m_per_lon, 50.5 + n / 111_320.0);
    let (mut world, mut body) = (Vec::new(), String::new());
    let mut next = 10u64;
    let mut id = || {
        next += 1;
        next
    };
    let mut polygons = 0;
    for (k, (def, e, n, h)) in airport_placements().into_iter().enumerate() {
        if k % 10 == 0 && polygons < 200 {
            // A 40 m × 30 m apron patch beside the object.
            let (p, r) = (id(), id());
            world.push(p);
            let nodes: Vec<(u64, (f64, f64))> =
                [(0.0, 0.0), (40.0, 0.0), (40.0, 30.0), (0.0, 30.0)]
                    .iter()
                    .map(|(x, y)| (id(), ll(e + 4.0 + x, n + 4.0 + y)))
                    .collect();
            let _ = writeln!(
                body,
                "<object class=\"WED_PolygonPlacement\" id=\"{p}\" parent_id=\"4\"><children><child id=\"{r}\"/></children>\
                 <hierarchy name=\"apron {polygons}\" locked=\"0\" hidden=\"0\"/>\
                 <polygon_placement heading=\"{h:.1}\" resource=\"pols/p{}.pol\"/></object>",
                polygons % 10
            );
            let kids: String = nodes
                .iter()
                .map(|(c, _)| format!("<child id=\"{c}\"/>"))
                .collect();
            let _ = writeln!(
                body,
                "<object class=\"WED_Ring\" id=\"{r}\" parent_id=\"{p}\"><children>{kids}</children>\
                 <hierarchy name=\"r\" locked=\"0\" hidden=\"0\"/></object>"
            );
            for (c, (lon, lat)) in nodes {
                let _ = writeln!(
                    body,
                    "<object class=\"WED_SimpleBoundaryNode\" id=\"{c}\" parent_id=\"{r}\"><children/>\
                     <hierarchy name=\"n\" locked=\"0\" hidden=\"0\"/><point latitude=\"{lat:.9}\" longitude=\"{lon:.9}\"/></object>"
                );
            }
            polygons += 1;
        }
        let o = id();
        world.push(o);
        let (lon, lat) = ll(e, n);
        let _ = writeln!(
            body,
            "<object class=\"WED_ObjPlacement\" id=\"{o}\" parent_id=\"4\"><children/>\
             <hierarchy name=\"o{k}\" locked=\"0\" hidden=\"0\"/>\
             <point latitude=\"{lat:.9}\" longitude=\"{lon:.9}\" heading=\"{h:.1}\"/>\
             <obj_placement resource=\"{}\" show_level=\"1 Default\"/></object>",
            defs[def]
        );
    }
    let kids: String = world
        .iter()
        .map(|c| format!("<child id=\"{c}\"/>"))
        .collect();
    let wed = root.join("earth.wed.xml");
    write(
        &wed,
        format!(
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<doc>\n<objects>\n\
             <object class=\"WED_Root\" id=\"1\" parent_id=\"0\"><children><child id=\"4\"/></children><hierarchy name=\"root\"/></object>\n\
             <object class=\"WED_Group\" id=\"4\" parent_id=\"1\"><children>{kids}</children><hierarchy name=\"airport\" locked=\"0\" hidden=\"0\"/></object>\n\
             {body}</objects>\n</doc>\n"
        ),
    );
    wed
}
