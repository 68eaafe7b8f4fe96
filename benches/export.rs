//! The export's speed and size (issue 38): `cargo bench --bench export`.
//!
//! Exports each case with the `agview` binary, as an author would, and prints the median
//! and the spread (largest less smallest) of the wall time, the output's size and the peak
//! resident memory (`/usr/bin/time -v`; without it, time and size alone):
//! - **sample**: the sample package (`sample_scenery`, its WED project) with the defaults
//!   (the target: under 2 s);
//! - **airport**: `benches/render_memory`'s 2,000-object airport (120 textures, 20 of
//!   2048², half PNG and half DDS) at `--max-texture-size 1024` (the target: under 10 s
//!   and 50 MB), and again with `--jpeg-quality 85`;
//! - **airport-real**: the same airport with realistic art (`packages::airport_realistic`:
//!   smooth, photo-like textures of the same sizes, the DDS ones real opaque BC1), at
//!   `--max-texture-size 1024`, and again with `--jpeg-quality 85` (**airport-real-jpeg**).
//!   The first airport's textures are noise (an XOR pattern, random BC1 bytes), which
//!   measures the export's work on incompressible art; this one the sizes real art gives;
//! - **tile**: the synthetic tile of 100,000 autogen features (`document::synthetic`, as
//!   `agview bench tile` builds it) with the default instancing (the target: under 30 s).
//!
//! Environment:
//! - `AGVIEW_BENCH_RUNS` (default 5): runs of each case;
//! - `AGVIEW_BENCH_PREVIOUS=PATH`: a previous `agview` binary. Each run then exports with
//!   both, interleaved (before then after, and the other way round on the next run, so
//!   that neither always runs on a warmer cache), and both are printed with the change of
//!   the medians;
//! - `AGVIEW_BENCH_BINARY=PATH`: the binary measured, instead of this build's (a copy, so
//!   that another build into the same target folder cannot change it half-way);
//! - `AGVIEW_BENCH_ONLY=sample,airport,airport-jpeg,airport-real,airport-real-jpeg,tile`:
//!   only these cases;
//! - `AGVIEW_BENCH_KEEP=1` keeps the packages and the exports.
//!
//! Prints numbers and asserts nothing about time.

mod common;

use common::packages::{airport, airport_realistic};
use common::{median, spread, timed};

use std::path::{Path, PathBuf};
use std::time::Instant;

/// One case: its name, the target, and the arguments before `--out`.
struct Case {
    name: &'static str,
    target: &'static str,
    args: Vec<String>,
}

/// One export: seconds, bytes written, and peak resident memory in MB (when
/// `/usr/bin/time` is there).
struct Run {
    secs: f64,
    bytes: f64,
    peak_mb: Option<f64>,
}

fn export(exe: &Path, case: &Case, out: &Path) -> Run {
    let mut args: Vec<&std::ffi::OsStr> = vec!["export".as_ref()];
    args.extend(case.args.iter().map(std::ffi::OsStr::new));
    args.extend(["--out".as_ref(), out.as_os_str()]);
    let (secs, peak_mb, _) = timed(exe, &args);
    let bytes = std::fs::metadata(out).map_or(0.0, |m| m.len() as f64);
    Run {
        secs,
        bytes,
        peak_mb,
    }
}

/// `median (spread S)` of one measure over the runs, in `unit` after dividing by `scale`.
fn stat(runs: &[Run], of: impl Fn(&Run) -> Option<f64>, scale: f64, unit: &str) -> String {
    let v: Vec<f64> = runs.iter().filter_map(&of).map(|x| x / scale).collect();
    if v.is_empty() {
        return "?".into();
    }
    format!("{:.2} {unit} (spread {:.2})", median(&v), spread(&v))
}

fn summary(who: &str, runs: &[Run]) -> String {
    format!(
        "  {who}: time {} | size {} | peak {}",
        stat(runs, |r| Some(r.secs), 1.0, "s"),
        stat(runs, |r| Some(r.bytes), 1e6, "MB"),
        stat(runs, |r| r.peak_mb, 1.0, "MB"),
    )
}

fn main() {
    let runs = common::runs();
    let before = common::previous_binary();
    let only = std::env::var("AGVIEW_BENCH_ONLY").ok();
    let wanted = |name: &str| {
        only.as_deref()
            .is_none_or(|o| o.split(',').any(|w| w.trim() == name))
    };
    let after = common::measured_binary();
    let dir = std::env::temp_dir().join(format!("agview-bench-export-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("a folder");

    let t = Instant::now();
    let sample = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("sample_scenery");
    let airport_dsf = airport(&dir).display().to_string();
    let real_dsf = if wanted("airport-real") || wanted("airport-real-jpeg") {
        airport_realistic(&dir).display().to_string()
    } else {
        String::new()
    };
    let tile = dir.join("synthetic/+47+008.txt");
    std::fs::create_dir_all(tile.parent().expect("a parent")).expect("a folder");
    let text = agview::document::synthetic::synthetic_tile(100_000, &sample).text;
    std::fs::write(&tile, text).expect("written");
    println!(
        "cases written in {:.1} s; {runs} run(s) each{}",
        t.elapsed().as_secs_f64(),
        before.as_ref().map_or(String::new(), |b| format!(
            ", interleaved with {}",
            b.display()
        ))
    );

    let airport_args = |dsf: &str, more: &[&str]| {
        let mut a = vec![dsf.to_string(), "--max-texture-size".into(), "1024".into()];
        a.extend(more.iter().map(|s| s.to_string()));
        a
    };
    let cases = [
        Case {
            name: "sample",
            target: "under 2 s",
            args: vec![sample.display().to_string()],
        },
        Case {
            name: "airport",
            target: "under 10 s and 50 MB",
            args: airport_args(&airport_dsf, &[]),
        },
        Case {
            name: "airport-jpeg",
            target: "under 10 s and 50 MB",
            args: airport_args(&airport_dsf, &["--jpeg-quality", "85"]),
        },
        Case {
            name: "airport-real",
            target: "under 10 s and 50 MB",
            args: airport_args(&real_dsf, &[]),
        },
        Case {
            name: "airport-real-jpeg",
            target: "under 10 s and 50 MB",
            args: airport_args(&real_dsf, &["--jpeg-quality", "85"]),
        },
        Case {
            name: "tile",
            target: "under 30 s",
            args: vec![tile.display().to_string()],
        },
    ];
    for case in cases.iter().filter(|c| wanted(c.name)) {
        let (mut new, mut old) = (Vec::new(), Vec::new());
        for k in 0..runs {
            let out = |who: &str| dir.join(format!("{}-{who}.glb", case.name));
            let mut both: Vec<(&str, &Path)> = vec![("after", &after)];
            if let Some(b) = &before {
                both.insert(0, ("before", b));
                if k % 2 == 1 {
                    both.reverse();
                }
            }
            for (who, exe) in both {
                let r = export(exe, case, &out(who));
                if who == "after" {
                    new.push(r);
                } else {
                    old.push(r);
                }
            }
        }
        println!("{} (target: {}), {runs} run(s):", case.name, case.target);
        if !old.is_empty() {
            println!("{}", summary("before", &old));
        }
        println!("{}", summary("after ", &new));
        if !old.is_empty() {
            let m = |v: &[Run]| median(&v.iter().map(|r| r.secs).collect::<Vec<_>>());
            println!("  time after / before: {:.2}", m(&new) / m(&old));
        }
    }
    if std::env::var_os("AGVIEW_BENCH_KEEP").is_some() {
        println!("cases and exports kept in {}", dir.display());
    } else {
        let _ = std::fs::remove_dir_all(&dir);
    }
}
