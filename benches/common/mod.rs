//! What the benches that run the `agview` binary share.

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
    let exe = env!("CARGO_BIN_EXE_agview");
    let mut cmd = if Path::new("/usr/bin/time").is_file() {
        let mut c = Command::new("/usr/bin/time");
        c.arg("-v").arg(exe);
        c
    } else {
        Command::new(exe)
    };
    cmd.args(args);
    let t = Instant::now();
    let o = cmd.output().expect("agview runs");
    let secs = t.elapsed().as_secs_f64();
    let err = String::from_utf8_lossy(&o.stderr).into_owned();
    assert!(o.status.success(), "agview {args:?} failed: {err}");
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

/// The previous `agview` binary to measure against, interleaved run by run with this one:
/// `AGVIEW_BENCH_PREVIOUS=/path/to/old/agview` (a copy of `target/release/agview` built
/// from the commit before, say). `None` when unset.
// Not every bench compares against a previous binary.
#[allow(dead_code)]
pub fn previous_binary() -> Option<std::path::PathBuf> {
    std::env::var_os("AGVIEW_BENCH_PREVIOUS")
        .map(std::path::PathBuf::from)
        .filter(|p| p.is_file())
}

/// The median of `runs` and their smallest and largest, as `median (min–max)`.
#[allow(dead_code)]
pub fn median_spread(runs: &[f64]) -> (f64, f64, f64) {
    let mut v = runs.to_vec();
    v.sort_by(f64::total_cmp);
    let median = match v.len() {
        0 => f64::NAN,
        n if n % 2 == 1 => v[n / 2],
        n => (v[n / 2 - 1] + v[n / 2]) / 2.0,
    };
    (
        median,
        v.first().copied().unwrap_or(f64::NAN),
        v.last().copied().unwrap_or(f64::NAN),
    )
}
