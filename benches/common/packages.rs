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
    let levels = 32 - side.leading_zeros();
    let mut d = ddsfile::Dds::new_d3d(ddsfile::NewD3dParams {
        height: side,
        width: side,
        depth: None,
        format: ddsfile::D3DFormat::DXT1,
        mipmap_levels: Some(levels),
        caps2: None,
    })
    .expect("a DDS header");
    for (i, v) in d.data.iter_mut().enumerate() {
        *v = (i as u32).wrapping_mul(seed * 2 + 7) as u8;
    }
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

/// The airport package: 2,000 objects of 120 kinds, 120 textures (20 of 2048²).
pub fn airport(dir: &Path) -> PathBuf {
    let root = dir.join("Airport");
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
    // A 1.6 km × 1 km apron and field.
    let objects: Vec<_> = (0..2000)
        .map(|i| {
            let (x, y) = ((i % 50) as f64, (i / 50) as f64);
            (
                i % 120,
                x * 32.0 - 800.0,
                y * 25.0 - 500.0,
                (i * 37 % 360) as f64,
            )
        })
        .collect();
    let dsf = root.join("Earth nav data/+50+000/+50+000.txt");
    write(&dsf, dsf_text(&defs, &objects));
    dsf
}
