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

/// The airport's art in `root`: 120 objects (`objects/o{i}.obj`), each with its own texture
/// (`textures/t{i}.png` or `.dds`: 20 of 2048², the rest 1024² PNG and 512² DDS). Returns
/// the objects' paths, relative to `root`.
fn airport_art(root: &Path) -> Vec<String> {
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
