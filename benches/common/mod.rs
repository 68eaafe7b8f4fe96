//! What the benches that run the `agview` binary share.

// Each user takes what it needs of these.
#![allow(dead_code)]

pub mod packages;

use std::path::Path;
use std::process::Command;
use std::time::Instant;

/// Runs the `agview` binary with `args` (under `/usr/bin/time -v` where it is there) and
/// panics unless it succeeds: its wall time in seconds, its peak resident memory in MB
/// (`None` without `/usr/bin/time`), and its stderr.
// Not every bench runs the binary this way.
#[allow(dead_code)]
pub fn agview_timed(args: &[&std::ffi::OsStr]) -> (f64, Option<f64>, String) {
    timed(Path::new(env!("CARGO_BIN_EXE_agview")), args)
}

/// [`agview_timed`] with another `agview` binary (a previous build, to compare against).
pub fn timed(exe: &Path, args: &[&std::ffi::OsStr]) -> (f64, Option<f64>, String) {
    let mut cmd = if Path::new("/usr/bin/time").is_file() {
        let mut c = Command::new("/usr/bin/time");
        c.arg("-v").arg(exe);
        c
    } else {
        Command::new(exe)
    };
    cmd.args(args);
    let t = Instant::now();
    let o = cmd
        .output()
        .unwrap_or_else(|e| panic!("{} does not run: {e}", exe.display()));
    let secs = t.elapsed().as_secs_f64();
    let err = String::from_utf8_lossy(&o.stderr).into_owned();
    assert!(
        o.status.success(),
        "{} {args:?} failed: {err}",
        exe.display()
    );
    let peak = err
        .lines()
        .find_map(|l| {
            l.trim()
                .strip_prefix("Maximum resident set size (kbytes): ")
        })
        .and_then(|k| k.trim().parse::<f64>().ok())
        .map(|kb| kb / 1024.0);
    (secs, peak, err)
}

/// The median of `v` (0 for none).
pub fn median(v: &[f64]) -> f64 {
    let mut v = v.to_vec();
    v.sort_by(f64::total_cmp);
    match v.len() {
        0 => 0.0,
        n if n % 2 == 1 => v[n / 2],
        n => (v[n / 2 - 1] + v[n / 2]) / 2.0,
    }
}

/// The spread of `v`: its largest less its smallest (0 for none).
pub fn spread(v: &[f64]) -> f64 {
    let lo = v.iter().copied().fold(f64::INFINITY, f64::min);
    let hi = v.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    if v.is_empty() {
        0.0
    } else {
        hi - lo
    }
}

/// The previous `agview` binary to measure against, interleaved run by run with this one:
/// `AGVIEW_BENCH_PREVIOUS=/path/to/old/agview` (a copy of `target/release/agview` built
/// from the commit before, say). `None` when unset or not a file.
// Not every bench compares against a previous binary.
#[allow(dead_code)]
pub fn previous_binary() -> Option<std::path::PathBuf> {
    std::env::var_os("AGVIEW_BENCH_PREVIOUS")
        .map(std::path::PathBuf::from)
        .filter(|p| p.is_file())
}

/// How many runs of each case a bench makes: `AGVIEW_BENCH_RUNS` (default 5, at least 1).
#[allow(dead_code)]
pub fn runs() -> usize {
    std::env::var("AGVIEW_BENCH_RUNS")
        .ok()
        .and_then(|r| r.parse().ok())
        .unwrap_or(5)
        .max(1)
}

/// The binary a bench measures: this build's, or `AGVIEW_BENCH_BINARY=PATH` (a copy, where
/// several checkouts share one target folder).
#[allow(dead_code)]
pub fn measured_binary() -> std::path::PathBuf {
    std::env::var_os("AGVIEW_BENCH_BINARY").map_or_else(
        || std::path::PathBuf::from(env!("CARGO_BIN_EXE_agview")),
        std::path::PathBuf::from,
    )
}

/// The median of `runs` and their smallest and largest, as `median (min–max)` prints them.
#[allow(dead_code)]
pub fn median_spread(runs: &[f64]) -> (f64, f64, f64) {
    let lo = runs.iter().copied().fold(f64::NAN, f64::min);
    let hi = runs.iter().copied().fold(f64::NAN, f64::max);
    (median(runs), lo, hi)
}
