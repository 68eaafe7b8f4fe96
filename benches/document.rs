//! Document loading: `cargo bench --bench document`.
//!
//! Writes the synthetic 1° tile of `agview bench tile` with 10,000 autogen features
//! (`agview::document::synthetic`: blocks, strings of 20 to 200 vertices round a lake, and
//! points of the sample package, in towns and over the countryside) as DSF text and as a
//! binary DSF, then loads each as `agview layout` does: on one thread, and on every core.
//! Prints the time of each (the best and the median of five runs) and the speed-up, and checks
//! that both give the same scene.

/// The allocator the `agview` binary uses (src/main.rs).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

use std::path::{Path, PathBuf};
use std::time::Instant;

use agview::document::{load_with, LoadOptions};
use agview::input::LayoutArgs;

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
    let _ = std::fs::remove_dir_all(&dir);
}
