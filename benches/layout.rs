//! Layout throughput: `cargo bench --bench layout` (`-- ags`: the string towns only).
//!
//! Lays out, on one core, 10,000 autogen blocks of random sizes and headings with the sample
//! block (several grids, spelling sets and spellings), 100,000 placements of the sample
//! autogen point, and 10,000 autogen-string towns of 20 to 200 vertices with one lake hole
//! each ([`agview::layout::ags::bench_polygons`]) with the sample string; prints blocks
//! (placements, polygons) per second and the allocations per layout; an AGN town of
//! 20,000 generic buildings and 500 vegetation polygons, with its time per layout; and two
//! adversarial 16 MB `.agn` files of tiny records (4 million empty PRDE polygons; 2 million
//! empty unknown chunks; 1 million zero-area A2GE boxes), read and laid out, with their time
//! and peak heap.

use std::alloc::{GlobalAlloc, Layout, System};
use std::hint::black_box;
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

use agview::format::autogen;
use agview::layout::{self, LayoutInput, PointInput};

/// Counts allocations so the bench can report them per layout, and tracks the bytes live
/// and their peak so it can report peak heap.
struct Counting;

static ALLOCS: AtomicUsize = AtomicUsize::new(0);
static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

fn grew(n: usize) {
    let live = LIVE.fetch_add(n, Ordering::Relaxed) + n;
    PEAK.fetch_max(live, Ordering::Relaxed);
}

/// Starts a new peak at what is live now.
fn reset_peak() {
    PEAK.store(LIVE.load(Ordering::Relaxed), Ordering::Relaxed);
}

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        ALLOCS.fetch_add(1, Ordering::Relaxed);
        grew(l.size());
        // SAFETY: forwarded unchanged to the system allocator.
        unsafe { System.alloc(l) }
    }
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        LIVE.fetch_sub(l.size(), Ordering::Relaxed);
        // SAFETY: forwarded unchanged to the system allocator.
        unsafe { System.dealloc(p, l) }
    }
    unsafe fn realloc(&self, p: *mut u8, l: Layout, n: usize) -> *mut u8 {
        ALLOCS.fetch_add(1, Ordering::Relaxed);
        // Counted as the new block appearing before the old one goes (a moving realloc).
        grew(n);
        LIVE.fetch_sub(l.size(), Ordering::Relaxed);
        // SAFETY: forwarded unchanged to the system allocator.
        unsafe { System.realloc(p, l, n) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn f(&mut self, lo: f32, hi: f32) -> f32 {
        lo + (self.next() % 1_000_000) as f32 / 1_000_000.0 * (hi - lo)
    }
}

fn load(path: &str) -> autogen::Autogen {
    let bytes = std::fs::read(path).unwrap_or_else(|e| panic!("{path}: {e}"));
    autogen::parse(Path::new(path), &bytes, &mut Vec::new()).unwrap_or_else(|e| panic!("{e}"))
}

fn main() {
    // `cargo bench --bench layout -- ags` runs the string towns only.
    if std::env::args().skip(1).any(|a| a == "ags") {
        ags();
        return;
    }
    let block = load("sample_scenery/autogen/city_block.agb");
    let mut rng = Rng(0x2545_F491_4F6C_DD1D);
    let inputs: Vec<LayoutInput> = (0..10_000u64)
        .map(|i| {
            let (w, d) = (rng.f(30.0, 170.0), rng.f(20.0, 120.0));
            let turn = rng.f(0.0, std::f32::consts::TAU);
            let (s, c) = turn.sin_cos();
            let rot = |x: f32, y: f32| [x * c - y * s, x * s + y * c];
            LayoutInput {
                polygon: Some(vec![vec![
                    rot(0.0, 0.0),
                    rot(w, 0.0),
                    rot(w, d),
                    rot(0.0, d),
                ]]),
                param: Some((rng.next() % 16) as u32 * 256 + (rng.next() % 3) as u32),
                seed: i,
                ..Default::default()
            }
        })
        .collect();
    let path = Path::new("city_block.agb");
    let a0 = ALLOCS.load(Ordering::Relaxed);
    let t = Instant::now();
    let mut tiles = 0usize;
    let mut fits = 0usize;
    for input in &inputs {
        if let Ok(s) = layout::layout(&block, path, black_box(input)) {
            tiles += s.tiles.len();
            fits += usize::from(s.choice.is_some_and(|c| c.fits));
        }
    }
    let dt = t.elapsed().as_secs_f64();
    let allocs = ALLOCS.load(Ordering::Relaxed) - a0;
    println!(
        "agb: {} blocks in {:.1} ms: {:.0} blocks/s, {:.1} tiles/block, {} fit, {:.1} allocations/block",
        inputs.len(),
        dt * 1e3,
        inputs.len() as f64 / dt,
        tiles as f64 / inputs.len() as f64,
        fits,
        allocs as f64 / inputs.len() as f64
    );

    let point = load("sample_scenery/autogen/plaza.agp");
    let path = Path::new("plaza.agp");
    let n = 100_000u64;
    let a0 = ALLOCS.load(Ordering::Relaxed);
    let t = Instant::now();
    let mut objects = 0usize;
    for i in 0..n {
        let input = LayoutInput {
            point: Some(PointInput {
                pos: [(i % 1000) as f32 * 50.0, (i / 1000) as f32 * 50.0],
                heading: (i % 360) as f32,
            }),
            seed: i,
            ..Default::default()
        };
        if let Ok(s) = layout::layout(&point, path, black_box(&input)) {
            objects += s.objects.len();
        }
    }
    let dt = t.elapsed().as_secs_f64();
    let allocs = ALLOCS.load(Ordering::Relaxed) - a0;
    println!(
        "agp: {n} placements in {:.1} ms: {:.0} placements/s, {:.1} objects each, {:.1} allocations/placement",
        dt * 1e3,
        n as f64 / dt,
        objects as f64 / n as f64,
        allocs as f64 / n as f64
    );

    ags();
    agn();
    agn_adversarial();
}

/// Three 16 MB `.agn` files of tiny records, each made, then read and laid out as `layout`
/// does: time and peak heap (the file's own 16 MB included; the files are made one at a time,
/// so only the one measured is live). Issue 14 asks for under 2 s and 200 MB.
fn agn_adversarial() {
    use agview::format::agn;
    let name = Path::new(layout::agn::BENCH_FILE_NAME);
    let chunk = |tag: &[u8; 4], payload: &[u8]| {
        let mut b = tag.to_vec();
        b.extend_from_slice(&(payload.len() as u32).to_le_bytes());
        b.extend_from_slice(payload);
        b
    };
    let riff = |body: Vec<u8>| {
        let mut b = b"RIFF".to_vec();
        b.extend_from_slice(&((body.len() + 4) as u32).to_le_bytes());
        b.extend_from_slice(b"AGNX");
        b.extend_from_slice(&body);
        b
    };
    let make = |what: usize| -> Vec<u8> {
        match what {
            // 4 million PRDE polygons without vertices: a GUID, then 4 million int32 zeros.
            0 => {
                let mut prde = vec![0x11u8; 16];
                prde.resize(16 + 4 * 4_000_000, 0);
                riff(chunk(b"PREG", &chunk(b"PRDE", &prde)))
            }
            // 2 million empty unknown chunks in a container.
            1 => {
                let many: Vec<u8> = b"ZZZZ\0\0\0\0".repeat(2_000_000);
                riff(chunk(b"PBLD", &many))
            }
            // 1 million zero-area two-point A2GE records under one GUID.
            _ => {
                let mut a2ge = vec![0x22u8; 16];
                a2ge.resize(16 + 16 * 1_000_000, 0);
                riff(chunk(b"AGN2", &chunk(b"A2GE", &a2ge)))
            }
        }
    };
    let opts = layout::agn::AgnOptions::default();
    for (k, what) in [
        "4M empty PRDE polygons",
        "2M empty unknown chunks",
        "1M zero-area A2GE boxes",
    ]
    .into_iter()
    .enumerate()
    {
        let bytes = make(k);
        reset_peak();
        let t = Instant::now();
        let mut diags = Vec::new();
        let file = agn::parse(name, black_box(&bytes), &mut diags).expect("reads");
        let scene =
            layout::agn::layout(&file, name, &LayoutInput::default(), &opts).expect("lays out");
        let dt = t.elapsed().as_secs_f64();
        let peak = PEAK.load(Ordering::Relaxed);
        println!(
            "agn adversarial, {what} ({:.1} MB): read and laid out in {:.0} ms, peak heap {:.1} MB (the file's bytes included), {} diagnostics, {} warnings in the scene",
            bytes.len() as f64 / 1e6,
            dt * 1e3,
            peak as f64 / 1e6,
            diags.len(),
            scene.warnings.len()
        );
    }
}

/// An AGN town of 20,000 generic buildings and 500 vegetation polygons on its LOD13
/// square, written, read back and laid out ten times with different seeds.
fn agn() {
    use agview::format::agn;
    let name = Path::new(layout::agn::BENCH_FILE_NAME);
    let bytes = agn::write(&layout::agn::bench_file(20_000, 500));
    let file = agn::parse(name, &bytes, &mut Vec::new()).expect("the bench file reads back");
    let opts = layout::agn::AgnOptions {
        texture_dir_files: vec!["town.png".into()],
        ..Default::default()
    };
    let mut secs = Vec::new();
    let mut scene = None;
    for seed in 0..10 {
        let input = LayoutInput {
            seed,
            ..Default::default()
        };
        let t = Instant::now();
        scene = Some(layout::agn::layout(&file, name, black_box(&input), &opts).expect("lays out"));
        secs.push(t.elapsed().as_secs_f64());
    }
    secs.sort_by(f64::total_cmp);
    let s = scene.expect("ten runs");
    println!(
        "agn: {} buildings, {} vegetation areas, {} trees: best {:.1} ms, median {:.1} ms",
        s.facades.len(),
        s.vegetation.len(),
        s.trees.len(),
        secs[0] * 1e3,
        secs[5] * 1e3
    );
}

/// 10,000 towns with the sample string, one and two spawning contours, best and median of
/// five runs (a shared machine makes single runs noisy).
fn ags() {
    let string = load("sample_scenery/autogen/lakeside.ags");
    let path = Path::new("lakeside.ags");
    let towns = layout::ags::bench_polygons(10_000, 1);
    let vertices: usize = towns.iter().flatten().map(Vec::len).sum();
    for low in [1u32, 2] {
        let inputs: Vec<LayoutInput> = towns
            .iter()
            .enumerate()
            .map(|(i, rings)| LayoutInput {
                polygon: Some(rings.clone()),
                param: Some((2 << 8) | low),
                seed: i as u64,
                ..Default::default()
            })
            .collect();
        let mut secs = Vec::new();
        let (mut tiles, mut trees, mut allocs) = (0usize, 0usize, 0usize);
        for _ in 0..5 {
            (tiles, trees) = (0, 0);
            let a0 = ALLOCS.load(Ordering::Relaxed);
            let t = Instant::now();
            for input in &inputs {
                if let Ok(s) = layout::layout(&string, path, black_box(input)) {
                    tiles += s.tiles.len();
                    trees += s.trees.len();
                }
            }
            secs.push(t.elapsed().as_secs_f64());
            allocs = ALLOCS.load(Ordering::Relaxed) - a0;
        }
        secs.sort_by(f64::total_cmp);
        let n = inputs.len() as f64;
        println!(
            "ags, {low} spawning contour(s): {} polygons ({:.0} vertices avg): best {:.0} polygons/s, median {:.0}; {:.1} tiles, {:.1} trees, {:.1} allocations per polygon",
            inputs.len(),
            vertices as f64 / n,
            n / secs[0],
            n / secs[2],
            tiles as f64 / n,
            trees as f64 / n,
            allocs as f64 / n
        );
    }
}
