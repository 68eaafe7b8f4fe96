//! Parser throughput: `cargo bench --bench parse`.
//!
//! Generates a multi-megabyte OBJ8 object (VT lines in the `%.6f` form exporters write, IDX10
//! rows, LODs) and a large autogen-like text in memory, parses each several times and prints
//! MB/s (best run) and the model's heap size against the file size. The target for OBJ8 is at
//! least 150 MB/s per core and a model no larger than 3× the file.

use std::hint::black_box;
use std::path::Path;
use std::time::Instant;

use agview::format::text::TextFile;
use agview::format::{autogen, obj8};

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
