//! Parser throughput: `cargo bench --bench parse`.
//!
//! Generates a multi-megabyte OBJ8 object (VT lines in the `%.6f` form exporters write, IDX10
//! rows, LODs) and a large autogen-like text in memory, parses each several times and prints
//! MB/s (best run) and the model's heap size against the file size. The target for OBJ8 is at
//! least 150 MB/s per core and a model no larger than 3× the file.
//!
//! Binary DSF (`cargo bench --bench parse -- dsf` for it alone): writes a synthetic ~100 MB
//! tile (1.5M polygons, 600k objects across a 1° tile) with agview's DSF writer and prints
//! the parse's MB/s on one core (best of 5, MD5 check included; target at least 200), the
//! MD5 check's own time, the peak heap the parse allocates (counted by this bench's
//! allocator) against the decompressed size (target at most 2×), the parsed model's heap
//! against the file, and, apart, the time 7-Zip (LZMA) decompression of a compressed copy
//! takes before that parse.
//!
//! Road network (`cargo bench --bench parse -- net` for it alone): writes a synthetic 2 MB
//! `.net` (road types with draped and graded rows, cars, objects and wires, virtual types
//! with their choices) to a temporary file and prints how long reading and parsing it takes
//! (best of 5; target under 100 ms).

use std::alloc::{GlobalAlloc, Layout, System};
use std::hint::black_box;
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};
use std::time::Instant;

use agview::format::dsf_bin::{self, DsfBinObject, DsfBinProperty, DsfToWrite, PolygonToWrite};
use agview::format::text::TextFile;
use agview::format::{autogen, net, obj8};

/// The system allocator, counting live heap bytes and their peak.
struct Counting;

static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        let p = unsafe { System.alloc(l) };
        if !p.is_null() {
            let now = LIVE.fetch_add(l.size(), Relaxed) + l.size();
            PEAK.fetch_max(now, Relaxed);
        }
        p
    }
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        unsafe { System.dealloc(p, l) };
        LIVE.fetch_sub(l.size(), Relaxed);
    }
    unsafe fn realloc(&self, p: *mut u8, l: Layout, new: usize) -> *mut u8 {
        let q = unsafe { System.realloc(p, l, new) };
        if !q.is_null() {
            if new > l.size() {
                let now = LIVE.fetch_add(new - l.size(), Relaxed) + new - l.size();
                PEAK.fetch_max(now, Relaxed);
            } else {
                LIVE.fetch_sub(l.size() - new, Relaxed);
            }
        }
        q
    }
}

#[global_allocator]
static ALLOC: Counting = Counting;

/// A fixed xorshift so that every run parses the same bytes.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    /// A float in `-range..range`.
    fn f(&mut self, range: f64) -> f64 {
        (self.next() % 2_000_001) as f64 / 1_000_000.0 * range - range
    }
}

fn big_obj8(vertices: usize, lods: usize) -> String {
    use std::fmt::Write;
    let mut rng = Rng(0x2545_F491_4F6C_DD1D);
    let tris = vertices / 3 * 3;
    let mut s = String::with_capacity(vertices * 110);
    let _ = write!(s, "I\n800\nOBJ\n\nTEXTURE big.png\nTEXTURE_LIT big_LIT.png\n\nPOINT_COUNTS {vertices} 0 0 {tris}\n");
    for _ in 0..vertices {
        let _ = writeln!(
            s,
            "VT {:.6} {:.6} {:.6} {:.6} {:.6} {:.6} {:.6} {:.6}",
            rng.f(150.0),
            rng.f(40.0) + 40.0,
            rng.f(150.0),
            rng.f(1.0),
            rng.f(1.0),
            rng.f(1.0),
            rng.f(0.5) + 0.5,
            rng.f(0.5) + 0.5
        );
    }
    for row in 0..tris / 10 {
        s.push_str("IDX10");
        for k in 0..10 {
            let _ = write!(s, " {}", (row * 10 + k) % vertices);
        }
        s.push('\n');
    }
    for i in tris / 10 * 10..tris {
        let _ = writeln!(s, "IDX {}", i % vertices);
    }
    let per_lod = tris / lods / 3 * 3;
    for l in 0..lods {
        let _ = writeln!(s, "ATTR_LOD {} {}", l * 1000, (l + 1) * 1000);
        let _ = writeln!(s, "TRIS {} {}", l * per_lod, per_lod);
    }
    s
}

fn big_autogen(tiles: usize) -> String {
    use std::fmt::Write;
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let mut s = String::from(
        "A\n1000\nAG_POINT\n\nTEXTURE ground.png\nTEXTURE_SCALE 2048 2048\nTEXTURE_WIDTH 200\nFACADE f.fac\n",
    );
    for i in 0..tiles / 4 {
        let _ = writeln!(s, "OBJECT objects/house_{i}.obj");
    }
    for t in 0..tiles {
        let _ = writeln!(s, "TILE 0 0 1024 1024\n# tile {t}");
        for _ in 0..8 {
            let _ = writeln!(
                s,
                "OBJ_DRAPED {:.2} {:.2} {:.1} {} 1 2",
                rng.f(512.0) + 512.0,
                rng.f(512.0) + 512.0,
                rng.f(180.0) + 180.0,
                rng.next() % 64
            );
        }
        let _ = writeln!(
            s,
            "FAC_WALLS 0 12.5 100 100 300 100 300 400 100 400 0 1 0 1"
        );
    }
    s
}

/// Runs `f` `runs` times; returns the best time in seconds.
fn best_of(runs: usize, mut f: impl FnMut()) -> f64 {
    (0..runs)
        .map(|_| {
            let t = Instant::now();
            f();
            t.elapsed().as_secs_f64()
        })
        .fold(f64::MAX, f64::min)
}

fn main() {
    let runs = 5;
    if std::env::args().any(|a| a == "dsf") {
        bench_dsf(runs);
        return;
    }
    if std::env::args().any(|a| a == "net") {
        bench_net(runs);
        return;
    }

    let src = big_obj8(200_000, 3);
    let mb = src.len() as f64 / 1e6;
    let path = Path::new("bench.obj");
    let mut warnings = Vec::new();
    let obj = match obj8::parse(path, src.as_bytes(), &mut warnings) {
        Ok(o) => o,
        Err(e) => {
            eprintln!("the generated object does not parse: {e}");
            std::process::exit(1);
        }
    };
    assert!(warnings.is_empty(), "{warnings:?}");
    let t = best_of(runs, || {
        let mut w = Vec::new();
        black_box(obj8::parse(path, black_box(src.as_bytes()), &mut w).ok());
    });
    let heap = obj.heap_size();
    println!(
        "obj8: {:.1} MB ({} VT, {} indices) in {:.1} ms: {:.0} MB/s; model heap {:.1} MB = {:.2}× the file",
        mb,
        obj.vertices.len(),
        obj.indices.len(),
        t * 1e3,
        mb / t,
        heap as f64 / 1e6,
        heap as f64 / src.len() as f64
    );

    let text = big_autogen(40_000);
    let mb = text.len() as f64 / 1e6;
    let apath = Path::new("bench.agp");
    let ag = match autogen::parse(apath, text.as_bytes(), &mut Vec::new()) {
        Ok(a) => a,
        Err(e) => {
            eprintln!("the generated autogen file does not parse: {e}");
            std::process::exit(1);
        }
    };
    let t = best_of(runs, || {
        let mut w = Vec::new();
        black_box(autogen::parse(apath, black_box(text.as_bytes()), &mut w).ok());
    });
    let heap = autogen_heap(&ag);
    println!(
        "autogen: {:.1} MB ({} tiles, {} annotations) in {:.1} ms: {:.0} MB/s; model heap {:.1} MB = {:.2}× the file",
        mb,
        ag.tiles.len(),
        ag.tiles.iter().map(|t| t.annotations.len()).sum::<usize>(),
        t * 1e3,
        mb / t,
        heap as f64 / 1e6,
        heap as f64 / text.len() as f64
    );
    let mut tokens = 0usize;
    let t = best_of(runs, || {
        let mut tf = TextFile::new(Path::new("bench.agp"), black_box(text.as_bytes()));
        let mut n = 0usize;
        while let Some(Ok(mut line)) = tf.next() {
            n += 1;
            while line.next_token().is_some() {
                n += 1;
            }
        }
        tokens = n;
    });
    println!(
        "tokenizer alone: {tokens} tokens in {:.1} ms: {:.0} MB/s",
        t * 1e3,
        mb / t
    );

    bench_net(runs);
    bench_dsf(runs);
}

/// A synthetic road network of about `bytes` bytes, in the XP10 form the stock `roads.net`
/// uses: eight textures, then road types of eight rows (draped, graded) with their cars,
/// objects and a wire, then one virtual type per road type with three height choices.
fn big_net(bytes: usize) -> String {
    use std::fmt::Write;
    let mut rng = Rng(0x5851_F42D_4C95_7F2D);
    let mut s = String::with_capacity(bytes + 4096);
    s.push_str("A\n800\nROADS\n\n");
    for i in 0..8 {
        let _ = writeln!(s, "TEXTURE {} textures/road_{i}.dds", i % 2 * 3);
        let _ = writeln!(s, "TEXTURE_LIT textures/road_{i}_LIT.dds");
    }
    s.push_str("SCALE 1024\n\n");
    let mut ids = Vec::new();
    let mut id = 1000u32;
    while s.len() < bytes * 9 / 10 {
        let width = 8.0 + rng.f(4.0).abs();
        let _ = writeln!(
            s,
            "# Group: GRPLocal\nROAD_TYPE {id} {width:.2} 25 0 0.5 0.5 0.5"
        );
        let _ = writeln!(
            s,
            "ROAD_CENTER {:.2}\nSHOW_LEVEL 1\nREQUIRE_EVEN 0.3",
            width / 2.0
        );
        for row in 0..8 {
            let tex = row % 8;
            let x = row as f64 * width / 8.0;
            if tex % 2 == 1 {
                let _ = writeln!(
                    s,
                    "SEGMENT_DRAPED {tex} 0 20000 1 {x:.3} {} {:.3} {}",
                    rng.next() % 1024,
                    x + width / 8.0,
                    rng.next() % 1024
                );
            } else {
                let _ = writeln!(
                    s,
                    "SEGMENT_GRADED {tex} 0 20000 2 {x:.3} 0.2 {} {:.3} 0.2 {} asphalt",
                    rng.next() % 1024,
                    x + width / 8.0,
                    rng.next() % 1024
                );
            }
        }
        let _ = writeln!(s, "CAR_DRAPED 0 -2.0 20 0.05 0\nCAR_DRAPED 1 2.0 20 0.05 0");
        let _ = writeln!(
            s,
            "OBJECT_DRAPED DIST lib/street_lamp.obj -4.5 -4.5 90 90 30 0 0/0 0/0 0 0\nWIRE 0 20000 0.5 8 0.4\n"
        );
        ids.push(id);
        id += 1;
    }
    for (v, real) in ids.iter().enumerate() {
        let _ = writeln!(
            s,
            "#VROAD road_{v} (12.0)\nROAD_DRAPED 1 {v} 0.1 0.1\nROAD_DRAPE_CHOICE 0 {real}\nROAD_DRAPE_CHOICE 10 0\nROAD_DRAPE_CHOICE 15 {real}\n"
        );
    }
    s
}

/// Writes [`big_net`] to a temporary file and times reading it (`read_file` and `parse`).
fn bench_net(runs: usize) {
    let text = big_net(2_000_000);
    let path = std::env::temp_dir().join(format!("agview-bench-{}.net", std::process::id()));
    if let Err(e) = std::fs::write(&path, &text) {
        eprintln!("cannot write {}: {e}", path.display());
        return;
    }
    let mut warnings = Vec::new();
    let parsed =
        agview::format::read_file(&path).and_then(|b| net::parse(&path, &b, &mut warnings));
    let n = match parsed {
        Ok(n) => n,
        Err(e) => {
            eprintln!("the generated road network does not parse: {e}");
            let _ = std::fs::remove_file(&path);
            std::process::exit(1);
        }
    };
    assert!(warnings.is_empty(), "{warnings:?}");
    let t = best_of(runs, || {
        let mut w = Vec::new();
        let bytes = agview::format::read_file(black_box(&path)).unwrap_or_default();
        black_box(net::parse(&path, &bytes, &mut w).ok());
    });
    let _ = std::fs::remove_file(&path);
    let mb = text.len() as f64 / 1e6;
    println!(
        "net: {:.1} MB ({} road types, {} rows, {} virtual types, {} listed lines) read in {:.1} ms (target < 100 ms): {:.0} MB/s",
        mb,
        n.road_types.len(),
        n.road_types.values().map(|t| t.rows.len()).sum::<usize>(),
        n.vroads.len(),
        n.listed_total(),
        t * 1e3,
        mb / t
    );
}

/// A synthetic tile: `blocks` city-block polygons (10–16 points, some with a courtyard hole)
/// and `objects` objects, laid out row by row across +47+008 as scenery generators write them.
fn big_dsf(blocks: usize, objects: usize) -> DsfToWrite {
    let mut rng = Rng(0xD1B5_4A32_D192_ED03);
    let mut d = DsfToWrite {
        properties: [
            "west 8",
            "south 47",
            "east 9",
            "north 48",
            "planet earth",
            "overlay 1",
        ]
        .iter()
        .map(|kv| {
            let (k, v) = kv.split_once(' ').unwrap_or_default();
            DsfBinProperty {
                name: format!("sim/{k}"),
                value: v.to_string(),
            }
        })
        .collect(),
        object_defs: (0..40).map(|i| format!("lib/objects/o{i}.obj")).collect(),
        polygon_defs: (0..20).map(|i| format!("lib/autogen/b{i}.agb")).collect(),
        ..DsfToWrite::default()
    };
    let side = (blocks as f64).sqrt().ceil() as usize;
    for i in 0..blocks {
        let (cx, cy) = (
            8.0 + ((i % side) as f64 + 0.5) / side as f64,
            47.0 + ((i / side) as f64 + 0.5) / side as f64,
        );
        let n = 10 + (rng.next() % 7) as usize;
        let ring = |r: f64, n: usize, rng: &mut Rng| -> Vec<[f64; 2]> {
            (0..n)
                .map(|k| {
                    let a = k as f64 / n as f64 * std::f64::consts::TAU;
                    let r = r * (1.0 + rng.f(0.1));
                    [cx + r * a.cos(), cy + r * a.sin()]
                })
                .collect()
        };
        let mut windings = vec![ring(0.4 / side as f64, n, &mut rng)];
        if i % 8 == 0 {
            windings.push(ring(0.1 / side as f64, 5, &mut rng));
        }
        d.polygons.push(PolygonToWrite {
            def: (rng.next() % 20) as usize,
            param: (rng.next() % 65536) as u32,
            coord_depth: 2,
            windings,
            ..PolygonToWrite::default()
        });
    }
    let oside = (objects as f64).sqrt().ceil() as usize;
    for i in 0..objects {
        d.objects.push(DsfBinObject {
            def: (rng.next() % 40) as usize,
            lon: 8.0 + ((i % oside) as f64 + 0.5 + rng.f(0.3)) / oside as f64,
            lat: 47.0 + ((i / oside) as f64 + 0.5 + rng.f(0.3)) / oside as f64,
            heading: (rng.next() % 3600) as f64 / 10.0,
            offset: 0,
        });
    }
    d
}

fn bench_dsf(runs: usize) {
    let model = big_dsf(1_500_000, 600_000);
    let dsf = dsf_bin::write_dsf(&model);
    drop(model);
    let mb = dsf.len() as f64 / 1e6;
    let path = Path::new("bench.dsf");
    let mut warnings = Vec::new();
    let base = LIVE.load(Relaxed);
    PEAK.store(base, Relaxed);
    let parsed = match dsf_bin::parse(path, &dsf, &mut warnings) {
        Ok(d) => d,
        Err(e) => {
            eprintln!("the generated DSF does not parse: {e}");
            std::process::exit(1);
        }
    };
    let peak = PEAK.load(Relaxed) - base;
    assert!(
        warnings.is_empty(),
        "{:?}",
        &warnings[..warnings.len().min(5)]
    );
    let held = LIVE.load(Relaxed) - base;
    let (objects, polygons) = (parsed.objects.len(), parsed.polygons.len());
    drop(parsed);
    let t = best_of(runs, || {
        let mut w = Vec::new();
        black_box(dsf_bin::parse(path, black_box(&dsf), &mut w).ok());
    });
    let tmd5 = best_of(runs, || {
        use md5::Digest;
        black_box(md5::Md5::digest(black_box(&dsf[..dsf.len() - 16])));
    });
    println!(
        "dsf: {mb:.1} MB ({objects} objects, {polygons} polygons), parse on one core, MD5 check \
         included, best of {runs}: {:.1} ms = {:.0} MB/s (target >= 200)",
        t * 1e3,
        mb / t,
    );
    println!(
        "dsf: MD5 footer check alone {:.1} ms ({:.0} MB/s); the parse without it {:.0} MB/s",
        tmd5 * 1e3,
        mb / tmd5,
        mb / (t - tmd5)
    );
    println!(
        "dsf: peak heap during the parse {:.1} MB = {:.2}x the decompressed DSF (target <= 2); \
         model heap {:.1} MB = {:.2}x the file",
        peak as f64 / 1e6,
        peak as f64 / dsf.len() as f64,
        held as f64 / 1e6,
        held as f64 / dsf.len() as f64,
    );

    use sevenz_rust2::encoder_options::LzmaOptions;
    use sevenz_rust2::{ArchiveEntry, ArchiveWriter};
    let mut w = ArchiveWriter::new(std::io::Cursor::new(Vec::new())).expect("7z writer");
    w.set_content_methods(vec![LzmaOptions::from_level(1).into()]);
    w.push_archive_entry(ArchiveEntry::new_file("+47+008.dsf"), Some(dsf.as_slice()))
        .expect("7z entry");
    let packed = w.finish().expect("7z finish").into_inner();
    let t7 = best_of(2, || {
        black_box(dsf_bin::unpack_7z(path, black_box(&packed), u64::MAX).ok());
    });
    let base = LIVE.load(Relaxed);
    PEAK.store(base, Relaxed);
    black_box(dsf_bin::parse(path, &packed, &mut Vec::new()).ok());
    let peak7 = PEAK.load(Relaxed) - base;
    let packed_mb = packed.len() as f64 / 1e6;
    println!(
        "dsf.7z: {packed_mb:.1} MB LZMA -> {mb:.1} MB; 7-Zip decompression alone {:.1} ms ({:.0} MB/s of DSF), \
         then the parse above (~{:.0} ms); peak heap of the parse, which reads the archive \
         atom by atom as it decompresses, {:.1} MB = {:.2}x the decompressed DSF (target <= 2)",
        t7 * 1e3,
        mb / t7,
        t * 1e3,
        peak7 as f64 / 1e6,
        peak7 as f64 / dsf.len() as f64,
    );
}

/// Heap bytes held by a parsed autogen model (vectors' capacities and strings).
fn autogen_heap(ag: &autogen::Autogen) -> usize {
    use std::mem::size_of;
    // An Arc<str> holds its two reference counts beside the text.
    let decl = |d: &autogen::ArtDecl| {
        size_of::<autogen::ArtDecl>() + (d.path.len() + 2 * size_of::<usize>())
    };
    let mut n =
        ag.objects.iter().map(decl).sum::<usize>() + ag.facades.iter().map(decl).sum::<usize>();
    n += ag.tiles.capacity() * size_of::<autogen::Tile>();
    for t in &ag.tiles {
        n += t.annotations.capacity() * size_of::<autogen::Annotation>();
        for a in &t.annotations {
            if let autogen::AnnotationKind::Facade { points, walls, .. } = &a.kind {
                n += points.capacity() * 8 + walls.as_ref().map_or(0, |w| w.capacity() * 4);
            }
        }
    }
    n
}
