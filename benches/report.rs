//! The review report's speed: `cargo bench --bench report`.
//!
//! Runs the `agview` binary's `report` as a CI job would, three times each, and prints the
//! wall time and peak resident memory (`/usr/bin/time -v`; without it, the time alone):
//! - **sample**: the sample package's town (`sample_scenery/polygons/town.txt`), with its
//!   defaults (the target: under 60 s on the software rasterizer with 2 cores);
//! - **synthetic 2,000**: a tile of 2,000 autogen features of the sample package's assets
//!   (`document::synthetic`), with the default 50 close-ups (the target: under 5 min).
//!
//! Both render at the default 960×540 on whatever adapter wgpu picks (set
//! `WGPU_BACKEND=vulkan` and Mesa's lavapipe for the software figures).
//! `AGVIEW_BENCH_KEEP=1` keeps the reports.

mod common;

use std::path::{Path, PathBuf};

/// One report: seconds, peak resident memory in MB (when `/usr/bin/time` is there), and
/// agview's own summary line.
fn report(doc: &Path, out: &Path) -> (f64, Option<f64>, String) {
    let (secs, peak, err) = common::agview_timed(&[
        "report".as_ref(),
        doc.as_os_str(),
        "--out".as_ref(),
        out.as_os_str(),
    ]);
    let line = err
        .lines()
        .find(|l| l.starts_with("wrote "))
        .unwrap_or("")
        .to_string();
    (secs, peak, line)
}

fn main() {
    let dir = std::env::temp_dir().join(format!("agview-bench-report-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("a folder");
    let sample = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("sample_scenery");
    let tile = agview::document::synthetic::synthetic_tile(2_000, &sample);
    let synthetic = dir.join("synthetic/+47+008.txt");
    std::fs::create_dir_all(synthetic.parent().expect("a parent")).expect("a folder");
    std::fs::write(&synthetic, &tile.text).expect("written");
    let runs = [
        (
            "sample package (town.txt)",
            sample.join("polygons/town.txt"),
            60.0,
        ),
        ("synthetic 2,000 features, 50 close-ups", synthetic, 300.0),
    ];
    for (what, doc, target) in &runs {
        let mut times = Vec::new();
        let mut peaks = Vec::new();
        let mut line = String::new();
        for k in 0..3 {
            let (secs, peak, l) = report(doc, &dir.join(format!("report{k}")));
            times.push(format!("{secs:.1} s"));
            peaks.push(peak.map_or("?".into(), |p| format!("{p:.0} MB")));
            line = l;
        }
        println!(
            "{what}: {} (target: under {target:.0} s) | peak {}\n  {line}",
            times.join(", "),
            peaks.join(", ")
        );
    }
    if std::env::var_os("AGVIEW_BENCH_KEEP").is_some() {
        println!("reports kept in {}", dir.display());
    } else {
        let _ = std::fs::remove_dir_all(&dir);
    }
}
