//! Real packages' texture memory: `cargo bench --bench render_memory`.
//!
//! Builds two packages laid out as authors publish them (their own `objects/` and
//! `textures/`, a DSF text in `Earth nav data/+50+000/`) in the temporary folder, and renders
//! each with the `agview` binary at 1280×720, as an author's review job would. Prints, for
//! three runs each, the wall time and the peak resident memory (`/usr/bin/time -v`'s
//! "Maximum resident set size"; without `/usr/bin/time`, the time alone):
//! - **large textures**: 30 objects with 23 PNG textures of 4096² (the target: peak under
//!   1.5 GB);
//! - **airport**: 2,000 objects of 120 kinds, each with its own texture: 20 of 2048², the
//!   rest 512² to 1024², half PNG and half DDS (BC1 with mips) (the target: under 1.2 GB
//!   and 3 s).
//!
//! `AGVIEW_BENCH_KEEP=1` keeps the packages (to profile a render by hand). Both render with the default `--max-texture-size` (2048), on whatever adapter wgpu picks
//! (set `WGPU_BACKEND=vulkan` and Mesa's lavapipe for the software figures).

mod common;

use std::path::{Path, PathBuf};
use std::time::Instant;

fn write(path: &Path, bytes: impl AsRef<[u8]>) {
    std::fs::create_dir_all(path.parent().expect("a parent")).expect("a folder");
    std::fs::write(path, bytes).expect("written");
}

/// A box of 12 triangles, `size` metres, its texture `../textures/{texture}` over each face.
fn box_obj(texture: &str, size: f32) -> String {
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
fn png(path: &Path, side: u32, seed: u32) {
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
fn dds(path: &Path, side: u32, seed: u32) {
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
fn dsf_text(defs: &[String], objects: &[(usize, f64, f64, f64)]) -> String {
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

/// The large-texture package: 30 objects, 23 textures of 4096².
fn large_textures(dir: &Path) -> PathBuf {
    let root = dir.join("Large Textures");
    let mut defs = Vec::new();
    for i in 0..23 {
        png(&root.join(format!("textures/t{i}.png")), 4096, i);
    }
    for i in 0..30 {
        write(
            &root.join(format!("objects/o{i}.obj")),
            box_obj(&format!("t{}.png", i % 23), 20.0),
        );
        defs.push(format!("objects/o{i}.obj"));
    }
    let objects: Vec<_> = (0..30)
        .map(|i| {
            (
                i,
                (i % 6) as f64 * 40.0,
                (i / 6) as f64 * 40.0,
                i as f64 * 12.0,
            )
        })
        .collect();
    let dsf = root.join("Earth nav data/+50+000/+50+000.txt");
    write(&dsf, dsf_text(&defs, &objects));
    dsf
}

/// The airport package: 2,000 objects of 120 kinds, 120 textures (20 of 2048²).
fn airport(dir: &Path) -> PathBuf {
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

/// One render: seconds and peak resident memory in MB (when `/usr/bin/time` is there).
fn render(dsf: &Path, out: &Path) -> (f64, Option<f64>) {
    let (secs, peak, _) = common::agview_timed(&[
        "render".as_ref(),
        dsf.as_os_str(),
        "--out".as_ref(),
        out.as_os_str(),
        "--size".as_ref(),
        "1280x720".as_ref(),
    ]);
    (secs, peak)
}

fn main() {
    let dir = std::env::temp_dir().join(format!("agview-bench-memory-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let t = Instant::now();
    let packages = [
        (
            "large textures (30 objects, 23 PNG of 4096²)",
            large_textures(&dir),
            1500.0,
            None,
        ),
        (
            "airport (2,000 objects, 120 textures, 20 of 2048², PNG and DDS)",
            airport(&dir),
            1200.0,
            Some(3.0),
        ),
    ];
    println!("packages written in {:.1} s", t.elapsed().as_secs_f64());
    for (what, dsf, mb_target, secs_target) in &packages {
        let mut runs = Vec::new();
        for k in 0..3 {
            let (secs, peak) = render(dsf, &dir.join(format!("shot{k}.png")));
            runs.push((secs, peak));
        }
        let times: Vec<String> = runs.iter().map(|r| format!("{:.2} s", r.0)).collect();
        let peaks: Vec<String> = runs
            .iter()
            .map(|r| r.1.map_or("?".into(), |p| format!("{p:.0} MB")))
            .collect();
        let worst = runs.iter().filter_map(|r| r.1).fold(0.0, f64::max);
        let slowest = runs.iter().map(|r| r.0).fold(0.0, f64::max);
        println!(
            "{what}, 1280×720: {} | peak {} (target: under {mb_target:.0} MB{}); worst {worst:.0} MB, {slowest:.2} s",
            times.join(", "),
            peaks.join(", "),
            secs_target.map_or(String::new(), |s| format!(" and {s:.0} s")),
        );
    }
    if std::env::var_os("AGVIEW_BENCH_KEEP").is_some() {
        println!("packages kept in {}", dir.display());
    } else {
        let _ = std::fs::remove_dir_all(&dir);
    }
}
