//! What the benches that run the `agview` binary share.

pub mod packages;

use std::path::Path;
use std::process::Command;
use std::time::Instant;

/// Runs the `agview` binary with `args` (under `/usr/bin/time -v` where it is there) and
/// panics unless it succeeds: its wall time in seconds, its peak resident memory in MB
/// (`None` without `/usr/bin/time`), and its stderr.
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
