//! Document loading: `cargo bench --bench document`.
//!
//! Writes the synthetic 1° tile of `agview bench tile` with 10,000 autogen features
//! (`agview::document::synthetic`: blocks, strings of 20 to 200 vertices round a lake, and
//! points of the sample package, in towns and over the countryside) as DSF text and as a
//! binary DSF, then loads each as `agview layout` does: on one thread, and on every core.
//! Prints the time of each (the best and the median of five runs) and the speed-up, and checks
//! that both give the same scene.
//!
//! Then the same tile inside a package laid out as X-Plane expects, twice: as it is, and
//! with its ground — 250 draped polygons (50 of them orthophotos, each naming its own
//! 2048² texture), 500 painted lines and, in `Earth nav data/apt.dat`, an airport of 2
//! runways and 20 taxiways — and prints how much longer the load with the ground takes
//! (the target: at most 25% more).
//!
//! Last, a WED project of 3,000 facades and 2,000 objects (about 4 MB, the shape of a real
//! airport's project): the times of `check` and of the document load `layout` does (the
//! target: under 1 s each).

/// The allocator the `agview` binary uses (src/main.rs).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

use std::path::{Path, PathBuf};
use std::time::Instant;

use agview::document::{load_with, LoadOptions};
use agview::input::Inputs;

/// The same document as a binary DSF (what X-Plane and WED write).
fn binary(text_path: &Path) -> Vec<u8> {
    use agview::format::dsf_bin::write::{DsfToWrite, PolygonToWrite};
    let bytes = std::fs::read(text_path).expect("the text document");
    let t = agview::format::dsf::parse(text_path, &bytes, &mut Vec::new())
        .unwrap_or_else(|e| panic!("{e}"));
    let defs = |d: &[agview::format::dsf::DsfDef]| d.iter().map(|d| d.path.clone()).collect();
    let doc = DsfToWrite {
        properties: t
            .properties
            .iter()
            .map(|p| agview::format::dsf_bin::DsfBinProperty {
                name: p.name.clone(),
                value: p.value.clone(),
            })
            .collect(),
        object_defs: defs(&t.object_defs),
        polygon_defs: defs(&t.polygon_defs),
        objects: t
            .objects
            .iter()
            .map(|o| agview::format::dsf_bin::DsfBinObject {
                def: o.def,
                lon: o.lon,
                lat: o.lat,
                heading: o.heading,
                offset: 0,
            })
            .collect(),
        polygons: t
            .polygons
            .iter()
            .map(|p| PolygonToWrite {
                def: p.def,
                param: p.param,
                coord_depth: p.coord_depth,
                windings: p.windings.clone(),
                extra: p.extra.clone(),
            })
            .collect(),
        ..DsfToWrite::default()
    };
    agview::format::dsf_bin::write_dsf(&doc)
}

/// The middle of `v` (five runs: the third fastest).
fn median(v: &mut [f64]) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn main() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("sample_scenery");
    let dir = std::env::temp_dir().join(format!("agview-bench-doc-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let text = dir.join("tile.txt");
    let tile = agview::document::synthetic::synthetic_tile(10_000, &root);
    std::fs::write(&text, &tile.text).expect("write the document");
    let bin = dir.join("tile.dsf");
    std::fs::write(&bin, binary(&text)).expect("write the binary document");
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let args = Inputs::default();
    for (what, path) in [("DSF text", &text), ("binary DSF", &bin)] {
        let timed = |threads: usize| {
            let opts = LoadOptions {
                threads,
                progress: None,
                ground: None,
            };
            let mut best = f64::MAX;
            let mut layout = f64::MAX;
            let mut scene = None;
            let mut times = Default::default();
            let mut runs = Vec::new();
            let mut layouts = Vec::new();
            for _ in 0..5 {
                let t = Instant::now();
                let d = load_with(path, &args, &opts).unwrap_or_else(|e| panic!("{e}"));
                let all = t.elapsed().as_secs_f64();
                if all < best {
                    best = all;
                    times = d.times;
                }
                layout = layout.min(d.times.layout_ms);
                runs.push(all * 1e3);
                layouts.push(d.times.layout_ms);
                scene = Some(d.loaded.scene);
            }
            let median = [median(&mut runs), median(&mut layouts)];
            (best, layout, times, scene.expect("five runs"), median)
        };
        let (one, layout_one, t1, a, median_one) = timed(1);
        let (all, layout_all, tn, b, median_all) = timed(cores);
        let same = serde_json::to_string(&a).ok() == serde_json::to_string(&b).ok();
        let s = &a.stats;
        println!(
            "{what}: {} features ({} tiles, {} objects, {} trees): 1 thread {:.0} ms, {cores} threads {:.0} ms: {:.2}x; same scene: {same}",
            a.features.len(),
            s.tiles,
            s.objects,
            s.trees,
            one * 1e3,
            all * 1e3,
            one / all
        );
        println!(
            "  layout stage: 1 thread {layout_one:.0} ms, {cores} threads {layout_all:.0} ms: {:.2}x",
            layout_one / layout_all
        );
        println!(
            "  median of 5: 1 thread {:.0} ms (layout {:.0} ms), {cores} threads {:.0} ms (layout {:.0} ms)",
            median_one[0], median_one[1], median_all[0], median_all[1]
        );
        for (n, t) in [(1, t1), (cores, tn)] {
            println!(
                "  {n} thread(s): read {:.0} ms, resolve {:.0} ms, layout {:.0} ms, combine {:.0} ms",
                t.read_ms, t.resolve_ms, t.layout_ms, t.combine_ms
            );
        }
    }
    ground_figures(&dir, &tile.text, cores);
    wed_figures(&dir);
    let _ = std::fs::remove_dir_all(&dir);
}

/// The tile's text with `extra_defs` after its definitions and `extra` after its polygons.
fn with_ground(text: &str, extra_defs: &str, extra: &str) -> String {
    let at = text
        .rfind("POLYGON_DEF")
        .and_then(|i| text[i..].find('\n').map(|j| i + j + 1))
        .unwrap_or(0);
    format!("{}{extra_defs}{}{extra}", &text[..at], &text[at..])
}

/// The ground of the bench package (see the module documentation).
fn write_ground(root: &Path, base_defs: usize) -> (String, String) {
    use std::fmt::Write;
    let g = root.join("ground");
    std::fs::create_dir_all(&g).expect("ground folder");
    let png = |path: &Path, side: u32| {
        image::RgbaImage::from_fn(side, side, |x, y| {
            image::Rgba([(x % 256) as u8, (y % 256) as u8, 90, 255])
        })
        .save(path)
        .expect("png");
    };
    png(&g.join("apron.png"), 256);
    std::fs::write(
        g.join("apron.pol"),
        "A\n850\nDRAPED_POLYGON\nTEXTURE apron.png\nSCALE 25 25\nLAYER_GROUP taxiways 1\n",
    )
    .expect("pol");
    png(&g.join("photo_0.png"), 2048);
    for k in 0..50 {
        if k > 0 {
            std::fs::copy(g.join("photo_0.png"), g.join(format!("photo_{k}.png"))).expect("copy");
        }
        std::fs::write(
            g.join(format!("photo_{k}.pol")),
            format!("A\n850\nDRAPED_POLYGON\nTEXTURE_NOWRAP photo_{k}.png\nSCALE 500 500\nLAYER_GROUP beaches 1\n"),
        )
        .expect("pol");
    }
    png(&g.join("line.png"), 64);
    std::fs::write(
        g.join("edge.lin"),
        "A\n850\nLINE_PAINT\nTEXTURE line.png\nSCALE 4 8\nTEX_WIDTH 64\nS_OFFSET 0 0 32 64\n",
    )
    .expect("lin");
    let mut defs = String::from("POLYGON_DEF ground/apron.pol\n");
    for k in 0..50 {
        let _ = writeln!(defs, "POLYGON_DEF ground/photo_{k}.pol");
    }
    defs.push_str("POLYGON_DEF ground/edge.lin\n");
    let (apron, photo0, line) = (base_defs, base_defs + 1, base_defs + 51);
    let mut out = String::new();
    let pt = |s: &mut String, lon: f64, lat: f64| {
        let _ = writeln!(s, "POLYGON_POINT {lon:.8} {lat:.8}");
    };
    // 200 tiled polygons and 50 orthophotos over the tile, 500 lines beside them.
    for k in 0..250 {
        let (lon, lat) = (
            8.02 + (k % 25) as f64 * 0.038,
            47.02 + (k / 25) as f64 * 0.09,
        );
        let d = 0.002;
        if k % 5 == 0 {
            let _ = writeln!(
                out,
                "BEGIN_POLYGON {} 65535 4\nBEGIN_WINDING",
                photo0 + k / 5
            );
            for (x, y) in [(0.0, 0.0), (1.0, 0.0), (1.0, 1.0), (0.0, 1.0)] {
                let _ = writeln!(
                    out,
                    "POLYGON_POINT {:.8} {:.8} {x} {y}",
                    lon + x * d,
                    lat + y * d
                );
            }
        } else {
            let _ = writeln!(out, "BEGIN_POLYGON {apron} {} 2\nBEGIN_WINDING", k % 360);
            for (x, y) in [(0.0, 0.0), (1.0, 0.0), (1.0, 1.0), (0.0, 1.0)] {
                pt(&mut out, lon + x * d, lat + y * d);
            }
        }
        out.push_str("END_WINDING\nEND_POLYGON\n");
    }
    for k in 0..500 {
        let (lon, lat) = (
            8.02 + (k % 25) as f64 * 0.038,
            47.025 + (k / 25) as f64 * 0.045,
        );
        let _ = writeln!(out, "BEGIN_POLYGON {line} 0 2\nBEGIN_WINDING");
        for i in 0..8 {
            pt(
                &mut out,
                lon + i as f64 * 0.0004,
                lat + (i % 2) as f64 * 0.0002,
            );
        }
        out.push_str("END_WINDING\nEND_POLYGON\n");
    }
    // The airport: 2 runways, 20 taxiways with their edge lines.
    let mut apt = String::from("I\n1100 agview bench\n\n1 400 0 0 XBEN Bench Field\n");
    for r in 0..2 {
        let lat = 47.5 + r as f64 * 0.004;
        let _ = writeln!(apt, "100 45.00 1 202 0.25 0 2 1 09 {lat:.8} 8.45000000 100 60 3 0 0 0 27 {lat:.8} 8.49000000 0 0 3 0 0 0");
    }
    for t in 0..20 {
        let (lat, lon) = (
            47.502 + (t / 10) as f64 * 0.004,
            8.452 + (t % 10) as f64 * 0.0035,
        );
        let _ = writeln!(apt, "110 1 0.25 0.00 Taxiway {t}");
        let _ = writeln!(apt, "111 {lat:.8} {lon:.8} 1");
        let _ = writeln!(
            apt,
            "112 {lat:.8} {:.8} {:.8} {:.8} 1",
            lon + 0.003,
            lat - 0.0005,
            lon + 0.0035
        );
        let _ = writeln!(apt, "111 {:.8} {:.8} 1", lat + 0.0015, lon + 0.003);
        let _ = writeln!(apt, "113 {:.8} {lon:.8}", lat + 0.0015);
    }
    apt.push_str("99\n");
    std::fs::write(root.join("Earth nav data/apt.dat"), apt).expect("apt.dat");
    (defs, out)
}

/// The tile as a package with and without its ground: load times (median of 5, every core).
fn ground_figures(dir: &Path, text: &str, cores: usize) {
    let base_defs = text.matches("POLYGON_DEF").count();
    let load = |path: &Path| {
        let opts = LoadOptions {
            threads: cores,
            progress: None,
            ground: None,
        };
        let mut runs = Vec::new();
        let mut scene = None;
        for _ in 0..5 {
            let t = Instant::now();
            let d = load_with(path, &Inputs::default(), &opts).unwrap_or_else(|e| panic!("{e}"));
            runs.push(t.elapsed().as_secs_f64() * 1e3);
            scene = Some(d.loaded.scene);
        }
        (median(&mut runs), scene.expect("five runs"))
    };
    let bare = dir.join("bare");
    let full = dir.join("ground");
    let tile = "Earth nav data/+40+000/+47+008.txt";
    for root in [&bare, &full] {
        std::fs::create_dir_all(root.join("Earth nav data/+40+000")).expect("package");
    }
    std::fs::write(bare.join(tile), text).expect("bare tile");
    let (defs, extra) = write_ground(&full, base_defs);
    std::fs::write(full.join(tile), with_ground(text, &defs, &extra)).expect("ground tile");
    // Interleaved, so the machine's drift falls on both alike.
    let (mut a, mut b) = (Vec::new(), Vec::new());
    let mut last = None;
    for _ in 0..3 {
        a.push(load(&bare.join(tile)).0);
        let (t, s) = load(&full.join(tile));
        b.push(t);
        last = Some(s);
    }
    let s = last.expect("three runs");
    let (a, b) = (median(&mut a), median(&mut b));
    println!(
        "package with ground: {} features ({} draped polygons, {} draped triangles, {} lines, {:.0} km of line): {b:.0} ms, without: {a:.0} ms: {:+.1}% (target: at most +25%)",
        s.features.len(),
        s.draped.len(),
        s.stats.draped_triangles,
        s.lines.len(),
        s.stats.line_length as f64 / 1000.0,
        (b / a - 1.0) * 100.0
    );
}

/// A WED project of 3,000 four-node facades and 2,000 objects with their art.
fn write_wed(root: &Path) {
    use std::fmt::Write;
    for d in ["facades", "objects", "textures"] {
        std::fs::create_dir_all(root.join(d)).expect("folder");
    }
    std::fs::write(
        root.join("facades/wall.fac"),
        "A\n800\nFACADE\n\nTEXTURE ../textures/wall.png\nRING 1\nROOF 0 0 1 1\nLOD 0 5000\n\
         WALL 0 1000 0 0\nSCALE 10 10\nLEFT 0.0 0.1\nCENTER 0.1 0.9\nRIGHT 0.9 1.0\n\
         BOTTOM 0.0 0.2\nMIDDLE 0.2 0.8\nTOP 0.8 1.0\n",
    )
    .expect("fac");
    std::fs::write(
        root.join("objects/box.obj"),
        "A\n800\nOBJ\n\nTEXTURE ../textures/wall.png\nPOINT_COUNTS 3 0 0 3\n\
         VT 0 0 0 0 1 0 0 0\nVT 10 0 0 0 1 0 1 0\nVT 0 8 0 0 1 0 0 1\nIDX 0\nIDX 1\nIDX 2\nTRIS 0 3\n",
    )
    .expect("obj");
    image::RgbaImage::from_pixel(16, 16, image::Rgba([150, 120, 100, 255]))
        .save(root.join("textures/wall.png"))
        .expect("png");
    let mut next = 10u64;
    let mut id = || {
        next += 1;
        next
    };
    let (mut world, mut body) = (Vec::new(), String::new());
    for k in 0..3000 {
        let (f, r) = (id(), id());
        let (lon, lat) = (
            8.4 + (k % 60) as f64 * 0.0008,
            47.4 + (k / 60) as f64 * 0.0008,
        );
        let nodes: Vec<(u64, f64, f64)> =
            [(0.0, 0.0), (0.0002, 0.0), (0.0002, 0.00015), (0.0, 0.00015)]
                .iter()
                .map(|(x, y)| (id(), lon + x, lat + y))
                .collect();
        world.push(f);
        let _ = writeln!(
            body,
            "<object class=\"WED_FacadePlacement\" id=\"{f}\" parent_id=\"4\"><children><child id=\"{r}\"/></children>\
             <hierarchy name=\"fac {k}\" locked=\"0\" hidden=\"0\"/>\
             <facade_placement height=\"10\" pick_walls=\"0\" resource=\"facades/wall.fac\" show_level=\"1 Default\"/></object>"
        );
        let kids: String = nodes
            .iter()
            .map(|(n, ..)| format!("<child id=\"{n}\"/>"))
            .collect();
        let _ = writeln!(
            body,
            "<object class=\"WED_FacadeRing\" id=\"{r}\" parent_id=\"{f}\"><children>{kids}</children>\
             <hierarchy name=\"r\" locked=\"0\" hidden=\"0\"/></object>"
        );
        for (n, x, y) in nodes {
            let _ = writeln!(
                body,
                "<object class=\"WED_FacadeNode\" id=\"{n}\" parent_id=\"{r}\"><children/>\
                 <hierarchy name=\"n\" locked=\"0\" hidden=\"0\"/><point latitude=\"{y:.9}\" longitude=\"{x:.9}\"/></object>"
            );
        }
    }
    for k in 0..2000 {
        let o = id();
        world.push(o);
        let (lon, lat) = (
            8.4004 + (k % 50) as f64 * 0.001,
            47.4004 + (k / 50) as f64 * 0.001,
        );
        let _ = writeln!(
            body,
            "<object class=\"WED_ObjPlacement\" id=\"{o}\" parent_id=\"4\"><children/>\
             <hierarchy name=\"o{k}\" locked=\"0\" hidden=\"0\"/>\
             <point latitude=\"{lat:.9}\" longitude=\"{lon:.9}\" heading=\"0\"/>\
             <obj_placement resource=\"objects/box.obj\" show_level=\"1 Default\"/></object>"
        );
    }
    let kids: String = world
        .iter()
        .map(|c| format!("<child id=\"{c}\"/>"))
        .collect();
    let xml = format!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<doc>\n<objects>\n\
         <object class=\"WED_Root\" id=\"1\" parent_id=\"0\"><children><child id=\"4\"/></children><hierarchy name=\"root\"/></object>\n\
         <object class=\"WED_Group\" id=\"4\" parent_id=\"1\"><children>{kids}</children><hierarchy name=\"world\" locked=\"0\" hidden=\"0\"/></object>\n\
         {body}</objects>\n</doc>\n"
    );
    std::fs::write(root.join("earth.wed.xml"), xml).expect("wed");
}

/// `check` and the load `layout` does of the WED project (median of 5 each).
fn wed_figures(dir: &Path) {
    let root = dir.join("wed");
    write_wed(&root);
    let wed = root.join("earth.wed.xml");
    let size = std::fs::metadata(&wed).map_or(0, |m| m.len());
    let time = |f: &dyn Fn()| {
        let mut runs: Vec<f64> = (0..5)
            .map(|_| {
                let t = Instant::now();
                f();
                t.elapsed().as_secs_f64() * 1e3
            })
            .collect();
        median(&mut runs)
    };
    let check = time(&|| {
        let r = agview::check::check_paths(std::slice::from_ref(&wed));
        assert_eq!(r.features, 5000, "{:?}", r.diagnostics.first());
    });
    let layout = time(&|| {
        let d = agview::document::load(&wed, &Inputs::default()).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(d.loaded.scene.features.len(), 5000);
    });
    println!(
        "WED project, 3000 facades and 2000 objects ({:.1} MB): check {check:.0} ms, layout load {layout:.0} ms (target: under 1000 ms each)",
        size as f64 / 1e6
    );
}
