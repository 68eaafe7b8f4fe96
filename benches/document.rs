//! Document loading: `cargo bench --bench document`.
//!
//! Writes a DSF text of 10,000 autogen polygons spread over a 1° tile (7,000 blocks of
//! random sizes with the sample block, 3,000 towns of 20 to 200 vertices with a lake hole
//! with the sample string), then loads it as `agview layout` does: on one thread, and on
//! every core. Prints the time of each and the speed-up, and checks that both give the same
//! scene.

/// The allocator the `agview` binary uses (src/main.rs).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::time::Instant;

use agview::document::{load_with, LoadOptions};
use agview::input::LayoutArgs;
use agview::layout::rng::Rng;

/// Uniform in `[lo, hi)` from the layout's own seeded generator.
fn between(rng: &mut Rng, lo: f64, hi: f64) -> f64 {
    lo + f64::from(rng.f32()) * (hi - lo)
}

const M_PER_DEG: f64 = 111_319.49;

/// A DSF text placing `blocks` blocks and `towns` towns on the tile +47+008.
fn document(blocks: usize, towns: usize, root: &Path) -> String {
    let mut s = String::from("I\n800\nDSF2TEXT\nPROPERTY sim/west 8\nPROPERTY sim/east 9\n");
    let _ = writeln!(
        s,
        "POLYGON_DEF {}\nPOLYGON_DEF {}",
        root.join("autogen/city_block.agb").display(),
        root.join("autogen/lakeside.ags").display()
    );
    let mut rng = Rng::new(0x5eed_cafe);
    let k = 47.5f64.to_radians().cos();
    let to_ll = |c: [f64; 2], p: [f64; 2]| [c[0] + p[0] / (M_PER_DEG * k), c[1] + p[1] / M_PER_DEG];
    for _ in 0..blocks {
        let c = [
            between(&mut rng, 8.02, 8.98),
            between(&mut rng, 47.02, 47.98),
        ];
        let (w, d) = (
            between(&mut rng, 40.0, 160.0),
            between(&mut rng, 30.0, 120.0),
        );
        let h = between(&mut rng, 0.0, 360.0).to_radians();
        let (sn, cs) = h.sin_cos();
        let rot = |x: f64, y: f64| [x * cs - y * sn, x * sn + y * cs];
        let _ = writeln!(
            s,
            "BEGIN_POLYGON 0 {} 2\nBEGIN_WINDING",
            3 << 8 | (rng.u32() % 4)
        );
        for (x, y) in [(0.0, 0.0), (w, 0.0), (w, d), (0.0, d)] {
            let ll = to_ll(c, rot(x, y));
            let _ = writeln!(s, "POLYGON_POINT {:.8} {:.8}", ll[0], ll[1]);
        }
        s.push_str("END_WINDING\nEND_POLYGON\n");
    }
    for town in agview::layout::ags::bench_polygons(towns, 7) {
        let c = [
            between(&mut rng, 8.02, 8.98),
            between(&mut rng, 47.02, 47.98),
        ];
        let _ = writeln!(s, "BEGIN_POLYGON 1 {} 2", 2 << 8 | 1);
        for ring in town {
            s.push_str("BEGIN_WINDING\n");
            for p in ring.iter().chain(ring.first()) {
                let ll = to_ll(c, [f64::from(p[0]), f64::from(p[1])]);
                let _ = writeln!(s, "POLYGON_POINT {:.8} {:.8}", ll[0], ll[1]);
            }
            s.push_str("END_WINDING\n");
        }
        s.push_str("END_POLYGON\n");
    }
    s
}

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

fn main() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("sample_scenery");
    let dir = std::env::temp_dir().join(format!("agview-bench-doc-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let text = dir.join("tile.txt");
    std::fs::write(&text, document(7_000, 3_000, &root)).expect("write the document");
    let bin = dir.join("tile.dsf");
    std::fs::write(&bin, binary(&text)).expect("write the binary document");
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let args = LayoutArgs::default();
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
            for _ in 0..5 {
                let t = Instant::now();
                let d = load_with(path, &args, &opts).unwrap_or_else(|e| panic!("{e}"));
                let all = t.elapsed().as_secs_f64();
                if all < best {
                    best = all;
                    times = d.times;
                }
                layout = layout.min(d.times.layout_ms);
                scene = Some(d.loaded.scene);
            }
            (best, layout, times, scene.expect("five runs"))
        };
        let (one, layout_one, t1, a) = timed(1);
        let (all, layout_all, tn, b) = timed(cores);
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
        for (n, t) in [(1, t1), (cores, tn)] {
            println!(
                "  {n} thread(s): read {:.0} ms, resolve {:.0} ms, layout {:.0} ms, combine {:.0} ms",
                t.read_ms, t.resolve_ms, t.layout_ms, t.combine_ms
            );
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}
