//! Reading and indexing the libraries of an install: `cargo bench --bench library`.
//!
//! Writes nine packages (as many as the stock X-Plane 12 `Resources/default scenery` has
//! `library.txt` files) holding 50,000 library lines together, 30% of them seasonal in the
//! stock libraries' mix (mostly `EXPORT_EXCLUDE_SEASON`, then `EXPORT_SEASON`, a few
//! `EXPORT_EXTEND_SEASON` and `EXPORT_RATIO_SEASON`; XP12.md §2.1), with tabs between some
//! fields and spaces in some real paths. Then reads them as `--library` does
//! (`Libraries::load`: every `library.txt` parsed) and indexes them into one resolver
//! (`Resolver::new`), and prints each stage's time, best of five. The target is under
//! 200 ms for both together; the figures are printed, never asserted on.

use std::path::Path;
use std::time::Instant;

use agview::resolve::{Libraries, ResolveOptions, Resolver, Season};

const LINES: usize = 50_000;
const PACKAGES: usize = 9;

/// One library line of the mix, for line `i`.
fn line(i: usize) -> String {
    let v = format!("lib/bench/g{}/item_{i}.obj", i % 97);
    let r = format!("objects/g{}/item {i}.obj", i % 97);
    let seasons = ["sum", "win", "spr,sum", "fal,win", "spr,sum,fal"][i % 5];
    // 30 in 100 seasonal: 24 EXCLUDE_SEASON, 5 SEASON, 1 EXTEND_SEASON or RATIO_SEASON.
    match i % 100 {
        0..=23 => format!("EXPORT_EXCLUDE_SEASON {seasons}\t{v}\t\t{r}"),
        24..=28 => format!("EXPORT_SEASON {seasons} {v} {r}"),
        29 if i % 200 < 100 => format!("EXPORT_EXTEND_SEASON {seasons} {v} {r}"),
        29 => format!("EXPORT_RATIO_SEASON 0.5 {seasons} {v} {r}"),
        30..=74 => format!("EXPORT {v} {r}"),
        75..=84 => format!("EXPORT_EXCLUDE\t{v}\t{r}"),
        85..=92 => format!("EXPORT_RATIO 0.25 {v} {r}"),
        93..=96 => format!("EXPORT_EXTEND {v} {r}"),
        _ => format!("EXPORT_BACKUP {v} {r}"),
    }
}

fn write_packages(dir: &Path) -> usize {
    let mut seasonal = 0;
    for p in 0..PACKAGES {
        let pkg = dir.join(format!("pack {p}"));
        std::fs::create_dir_all(&pkg).expect("package folder");
        let mut text = String::from("A\n1200\nLIBRARY\n");
        for i in (p..LINES).step_by(PACKAGES) {
            let l = line(i);
            seasonal += usize::from(l.contains("_SEASON"));
            text.push_str(&l);
            text.push('\n');
        }
        std::fs::write(pkg.join("library.txt"), text).expect("library.txt");
    }
    seasonal
}

fn main() {
    let dir = std::env::temp_dir().join(format!("agview-bench-library-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let seasonal = write_packages(&dir);
    let bytes: u64 = (0..PACKAGES)
        .map(|p| {
            std::fs::metadata(dir.join(format!("pack {p}/library.txt"))).map_or(0, |m| m.len())
        })
        .sum();
    println!(
        "{LINES} library lines in {PACKAGES} packages ({:.1} MB), {seasonal} seasonal ({:.0}%)",
        bytes as f64 / 1e6,
        100.0 * seasonal as f64 / LINES as f64
    );
    let opts = ResolveOptions {
        libraries: vec![dir.clone()],
        season: Season::Winter,
        ..ResolveOptions::default()
    };
    let doc = dir.join("doc/a.agp");
    let (mut best_read, mut best_index, mut best_total) = (f64::MAX, f64::MAX, f64::MAX);
    for _ in 0..5 {
        let mut diags = Vec::new();
        let t = Instant::now();
        let libs = Libraries::load(&opts, &mut diags);
        let read = t.elapsed().as_secs_f64() * 1e3;
        let t2 = Instant::now();
        let r = Resolver::new(&doc, &libs, &mut diags);
        let index = t2.elapsed().as_secs_f64() * 1e3;
        std::hint::black_box(&r);
        assert!(diags.is_empty(), "{:?}", diags.first());
        assert_eq!(r.packages().len(), PACKAGES);
        best_read = best_read.min(read);
        best_index = best_index.min(index);
        best_total = best_total.min(read + index);
    }
    let _ = std::fs::remove_dir_all(&dir);
    println!("read and parse: {best_read:.1} ms (best of 5)");
    println!("index:          {best_index:.1} ms (best of 5)");
    println!("together:       {best_total:.1} ms (target < 200 ms)");
}
