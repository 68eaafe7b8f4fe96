//! Real packages' texture memory: `cargo bench --bench render_memory`.
//!
//! Builds two packages laid out as authors publish them (their own `objects/` and
//! `textures/`, a DSF text in `Earth nav data/+50+000/`) in the temporary folder, and renders
//! each with the `agview` binary at 1280×720, as an author's review job would. Prints, for
//! three runs each, the wall time and the peak resident memory (`/usr/bin/time -v`'s
//! "Maximum resident set size"; without `/usr/bin/time`, the time alone):
//! - **large textures**: 30 objects with 23 PNG textures of 4096² (the target: peak under
//!   1.5 GB);
//! - **airport**: 2,000 objects of 120 kinds, each with its own texture: 20 of 2048², the
//!   rest 512² to 1024², half PNG and half DDS (BC1 with mips) (the target: under 1.2 GB
//!   and 3 s).
//!
//! `AGVIEW_BENCH_KEEP=1` keeps the packages (to profile a render by hand). Both render with the default `--max-texture-size` (2048), on whatever adapter wgpu picks
//! (set `WGPU_BACKEND=vulkan` and Mesa's lavapipe for the software figures).

mod common;

use common::packages::{airport, box_obj, dsf_text, png, write};

use std::path::{Path, PathBuf};
use std::time::Instant;

/// The large-texture package: 30 objects, 23 textures of 4096².
fn large_textures(dir: &Path) -> PathBuf {
    let root = dir.join("Large Textures");
    let mut defs = Vec::new();
    for i in 0..23 {
        png(&root.join(format!("textures/t{i}.png")), 4096, i);
    }
    for i in 0..30 {
        write(
            &root.join(format!("objects/o{i}.obj")),
            box_obj(&format!("t{}.png", i % 23), 20.0),
        );
        defs.push(format!("objects/o{i}.obj"));
    }
    let objects: Vec<_> = (0..30)
        .map(|i| {
            (
                i,
                (i % 6) as f64 * 40.0,
                (i / 6) as f64 * 40.0,
                i as f64 * 12.0,
            )
        })
        .collect();
    let dsf = root.join("Earth nav data/+50+000/+50+000.txt");
    write(&dsf, dsf_text(&defs, &objects));
    dsf
}

/// One render: seconds and peak resident memory in MB (when `/usr/bin/time` is there).
fn render(dsf: &Path, out: &Path) -> (f64, Option<f64>) {
    let (secs, peak, _) = common::agview_timed(&[
        "render".as_ref(),
        dsf.as_os_str(),
        "--out".as_ref(),
        out.as_os_str(),
        "--size".as_ref(),
        "1280x720".as_ref(),
    ]);
    (secs, peak)
}

fn main() {
    let dir = std::env::temp_dir().join(format!("agview-bench-memory-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let t = Instant::now();
    let packages = [
        (
            "large textures (30 objects, 23 PNG of 4096²)",
            large_textures(&dir),
            1500.0,
            None,
        ),
        (
            "airport (2,000 objects, 120 textures, 20 of 2048², PNG and DDS)",
            airport(&dir),
            1200.0,
            Some(3.0),
        ),
    ];
    println!("packages written in {:.1} s", t.elapsed().as_secs_f64());
    for (what, dsf, mb_target, secs_target) in &packages {
        let mut runs = Vec::new();
        for k in 0..3 {
            let (secs, peak) = render(dsf, &dir.join(format!("shot{k}.png")));
            runs.push((secs, peak));
        }
        let times: Vec<String> = runs.iter().map(|r| format!("{:.2} s", r.0)).collect();
        let peaks: Vec<String> = runs
            .iter()
            .map(|r| r.1.map_or("?".into(), |p| format!("{p:.0} MB")))
            .collect();
        let worst = runs.iter().filter_map(|r| r.1).fold(0.0, f64::max);
        let slowest = runs.iter().map(|r| r.0).fold(0.0, f64::max);
        println!(
            "{what}, 1280×720: {} | peak {} (target: under {mb_target:.0} MB{}); worst {worst:.0} MB, {slowest:.2} s",
            times.join(", "),
            peaks.join(", "),
            secs_target.map_or(String::new(), |s| format!(" and {s:.0} s")),
        );
    }
    if std::env::var_os("AGVIEW_BENCH_KEEP").is_some() {
        println!("packages kept in {}", dir.display());
    } else {
        let _ = std::fs::remove_dir_all(&dir);
    }
}
