//! Road networks: `cargo bench --bench roads`.
//!
//! Writes a synthetic DSF text of 100,000 road segments (`NETWORK_DEF lib/g10/roads.net`):
//! a 50 m grid of junctions over about 11 × 11 km, each grid line one chain through its
//! junctions; every other segment is a bezier curve (two `SHAPE_POINT … 1` handles that bow
//! it 8 m aside), every third has a plain shape point, and the subtypes cycle over six of
//! the default `roads.net`'s bands (highway, primary, secondary, residential, service,
//! rail). Without an install the `.net` is not found and every road draws in the plain
//! profile, which is what a review without `--xplane` sees.
//!
//! Then:
//! - loads it as `agview layout` does, on 2 threads (the target: at most 1 s), best and
//!   median of five runs, with the read / resolve / layout / combine split;
//! - uploads the scene and draws it from the bench camera (`agview bench render`'s orbit:
//!   the whole network from the south-west at 35°, at most 4 km from its centre), counting
//!   draw calls (the target: at most 16; an indirect or multi-draw counts as one).
//!
//! Prints the numbers and asserts nothing about time. Without a GPU adapter the draw part
//! says so and is skipped. Until the road reading and layout are in the build, the scene
//! has no road segments: the bench says so, and its numbers are those of reading the file.

/// The allocator the `agview` binary uses (src/main.rs).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

use std::fmt::Write as _;
use std::time::Instant;

use agview::document::{load_document_art, load_with, LoadOptions};
use agview::input::Inputs;

/// Segments written.
const SEGMENTS: usize = 100_000;
/// Junction spacing in metres.
const PITCH_M: f64 = 50.0;
/// The bands the subtypes cycle over (ROADS.md §3.2's ids).
const SUBTYPES: [u32; 6] = [110, 10, 30, 51, 70, 151];

/// The DSF text of `n` segments on a square grid of junctions (see the module documentation).
fn network_dsf(n: usize) -> String {
    // A k × k grid has 2 k (k − 1) edges: the smallest k with at least n.
    let mut k = 2usize;
    while 2 * k * (k - 1) < n {
        k += 1;
    }
    let (lon0, lat0) = (0.1, 50.1);
    let m_per_lon = 111_320.0 * (50.5f64).to_radians().cos();
    let at = |x: f64, y: f64| (lon0 + x / m_per_lon, lat0 + y / 111_320.0);
    let id = |i: usize, j: usize| 1 + i * k + j;
    let mut t = String::with_capacity(n * 160);
    t.push_str(
        "A\n800\nDSF2TEXT\nPROPERTY sim/west 0\nPROPERTY sim/south 50\nPROPERTY sim/east 1\n\
         PROPERTY sim/north 51\nNETWORK_DEF lib/g10/roads.net\n",
    );
    let mut written = 0;
    // Rows, then columns: each a chain of k − 1 segments.
    'lines: for horizontal in [true, false] {
        for line in 0..k {
            let point = |s: usize| -> (usize, f64, f64) {
                let (i, j) = if horizontal { (line, s) } else { (s, line) };
                (id(i, j), j as f64 * PITCH_M, i as f64 * PITCH_M)
            };
            for s in 0..k - 1 {
                if written == n {
                    break 'lines;
                }
                let subtype = SUBTYPES[written % SUBTYPES.len()];
                let (a, ax, ay) = point(s);
                let (b, bx, by) = point(s + 1);
                let (lon, lat) = at(ax, ay);
                let _ = writeln!(t, "BEGIN_SEGMENT 0 {subtype} {a} {lon:.9} {lat:.9} 0");
                // Sideways to the travel, for the curves' handles.
                let (dx, dy) = ((bx - ax) / PITCH_M, (by - ay) / PITCH_M);
                let (sx, sy) = (-dy * 8.0, dx * 8.0);
                if written % 2 == 0 {
                    for f in [1.0 / 3.0, 2.0 / 3.0] {
                        let (lon, lat) = at(ax + (bx - ax) * f + sx, ay + (by - ay) * f + sy);
                        let _ = writeln!(t, "SHAPE_POINT {lon:.9} {lat:.9} 1");
                    }
                } else if written % 3 == 0 {
                    let (lon, lat) = at((ax + bx) * 0.5 + sx * 0.25, (ay + by) * 0.5 + sy * 0.25);
                    let _ = writeln!(t, "SHAPE_POINT {lon:.9} {lat:.9} 0");
                }
                let (lon, lat) = at(bx, by);
                let _ = writeln!(t, "END_SEGMENT {b} {lon:.9} {lat:.9} 0");
                written += 1;
            }
        }
    }
    t
}

/// The middle of `v`.
fn median(v: &mut [f64]) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn main() {
    let dir = std::env::temp_dir().join(format!("agview-bench-roads-{}", std::process::id()));
    let nav = dir.join("Roads/Earth nav data/+50+000");
    std::fs::create_dir_all(&nav).expect("temp dir");
    let path = nav.join("+50+000.txt");
    let t = Instant::now();
    let text = network_dsf(SEGMENTS);
    std::fs::write(&path, &text).expect("write the document");
    println!(
        "network: {SEGMENTS} segments, every other one curved, written as DSF text ({:.1} MB) in {:.1} s",
        text.len() as f64 / 1e6,
        t.elapsed().as_secs_f64()
    );

    let opts = LoadOptions {
        threads: 2,
        progress: None,
        ground: None,
    };
    let args = Inputs::default();
    let mut runs = Vec::new();
    let mut best = None;
    for _ in 0..5 {
        let t = Instant::now();
        let d = match load_with(&path, &args, &opts) {
            Ok(d) => d,
            Err(e) => {
                println!("load: {e}");
                println!("(the road reading is not in this build yet: no layout or draw figures)");
                let _ = std::fs::remove_dir_all(&dir);
                return;
            }
        };
        let secs = t.elapsed().as_secs_f64();
        runs.push(secs * 1e3);
        if best.as_ref().is_none_or(|(b, _)| secs < *b) {
            best = Some((secs, d));
        }
    }
    let (secs, mut doc) = best.expect("five runs");
    let scene = &doc.loaded.scene;
    let roads = scene.roads.len();
    let t = doc.times;
    println!(
        "layout on 2 threads: best {:.0} ms, median {:.0} ms (target: at most 1000 ms); \
         read {:.0} ms, resolve {:.0} ms, layout {:.0} ms, combine {:.0} ms",
        secs * 1e3,
        median(&mut runs),
        t.read_ms,
        t.resolve_ms,
        t.layout_ms,
        t.combine_ms
    );
    println!(
        "  {} feature(s), {roads} road segment(s), {} m of road, {} look(s): {}",
        scene.features.len(),
        scene.stats.road_length,
        scene.road_looks.len(),
        scene
            .road_stats
            .iter()
            .map(|s| format!("{} × {}", s.segments, s.label()))
            .collect::<Vec<_>>()
            .join(", ")
    );
    if roads == 0 {
        println!("  (no road segments laid out: the road layout is not in this build yet)");
    }
    draw(&mut doc);
    let _ = std::fs::remove_dir_all(&dir);
}

/// Uploads the document and draws it from the bench camera, counting draw calls.
fn draw(doc: &mut agview::document::Document) {
    use agview::render::{bench_camera, bench_scene, BenchCamera, BenchFrame, Headless};
    let headless = match Headless::new() {
        Ok(h) => h,
        Err(e) => {
            println!("draw: no GPU adapter ({e}): skipped");
            return;
        }
    };
    let art = load_document_art(doc);
    let scene = &doc.loaded.scene;
    let (lo, hi) = scene.bounds();
    let size = ((hi[0] - lo[0]).max(hi[1] - lo[1]) * 1.5).max(200.0);
    let mut terrain = agview::terrain::Terrain::flat(size);
    terrain.center = [(lo[0] + hi[0]) * 0.5, (lo[1] + hi[1]) * 0.5];
    let frame = BenchFrame {
        camera: bench_camera(BenchCamera::Orbit, scene, &terrain),
        width: 1280,
        height: 720,
        frames: 5,
        as_window: false,
    };
    match bench_scene(&headless, scene, &art, &terrain, &frame) {
        Ok(r) => println!(
            "draw from the bench camera, 1280×720 on {}: {} draw call(s) (target: at most 16), \
             {} triangles; upload {:.0} ms, frame {:.1} ms wall{}",
            r.adapter,
            r.draw_calls,
            r.triangles_submitted,
            r.upload_ms,
            r.frame_wall_ms,
            r.gpu_ms
                .map_or(String::new(), |g| format!(", {g:.1} ms on the GPU"))
        ),
        Err(e) => println!("draw: {e}"),
    }
}
