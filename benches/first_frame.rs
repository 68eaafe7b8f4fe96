//! The viewer's first full frame of a real document: `cargo bench --bench first_frame`.
//!
//! Writes a WED airport project laid out as authors publish theirs (its own `objects/`,
//! `textures/` and `pols/` beside `earth.wed.xml`; `benches/common/packages.rs`
//! `airport_wed`): 2,000 objects of 120 kinds, 120 textures (20 of 2048², the rest 512² to
//! 1024², half PNG and half DDS with mips) and 200 draped polygons. Opens it with `agview
//! view` in a 1280×720 window under an X server of its own (`xvfb-run`), from another
//! folder, with the files cached (a first open warms the cache), and reads the viewer's own figures from its
//! standard error: `first frame after N ms (a preview)` (the document's first eighth on
//! screen) and `first full frame after N ms` (the first frame with every feature drawn, from
//! launch; the target of issue 37: at most 2 s on the software rasterizer), with the load
//! and upload times it prints. Prints each run, then the median and spread (smallest and
//! largest) of `AGVIEW_BENCH_RUNS` runs (5 by default).
//!
//! `AGVIEW_BENCH_PREVIOUS=/path/to/old/agview` measures that binary too, run for run
//! interleaved with this one, so the machine's drift falls on both alike;
//! `AGVIEW_BENCH_BINARY` measures another binary as this one.
//! `AGVIEW_BENCH_KEEP=1` keeps the package (to profile by hand). Set `WGPU_BACKEND=vulkan`
//! and Mesa's lavapipe for the software figures.

mod common;

use std::path::Path;
use std::process::Command;
use std::time::Duration;

/// One launch's figures, in milliseconds from launch: the preview's first frame (when
/// there was one), the first full frame, and the load and upload the viewer reports.
#[derive(Debug, Default, Clone, Copy)]
struct Run {
    preview: Option<f64>,
    /// The preview's layout, art and upload done (ms from the loader's start), and its
    /// upload alone.
    preview_ready: Option<f64>,
    preview_upload: Option<f64>,
    full: f64,
    load: Option<f64>,
    upload: Option<f64>,
}

/// One figure of a run, where it has it.
type Figure = fn(&Run) -> Option<f64>;

/// The number before ` ms` after `prefix` on a line of `err` that `keep` accepts.
fn figure(err: &str, prefix: &str, keep: impl Fn(&str) -> bool) -> Option<f64> {
    err.lines().filter(|l| keep(l)).find_map(|l| {
        let rest = &l[l.find(prefix)? + prefix.len()..];
        rest.split_whitespace().next()?.parse().ok()
    })
}

fn parse(err: &str) -> Option<Run> {
    Some(Run {
        preview: figure(err, "first frame after ", |l| l.contains("(a preview)")),
        // This build's line for the whole scene; an older build's first frame without a
        // remark (with a preview it printed none for the whole).
        full: figure(err, "first full frame after ", |_| true)
            .or_else(|| figure(err, "first frame after ", |l| !l.contains('(')))?,
        preview_ready: figure(err, " after ", |l| l.starts_with("showing the first")),
        preview_upload: figure(err, "(upload ", |l| l.starts_with("showing the first")),
        load: figure(err, " in ", |l| l.starts_with("loaded ")),
        upload: figure(err, "(upload ", |l| l.starts_with("loaded ")),
    })
}

/// One launch of `exe` on `wed`, from `cwd`, until its first full frame's screenshot, on
/// an X server of its own (`xvfb-run`; the figures count from the viewer's own launch).
fn launch(exe: &Path, wed: &Path, cwd: &Path, config: &Path) -> Run {
    let shot = cwd.join("shot.png");
    let o = Command::new("xvfb-run")
        .args(["-a", "-s", "-screen 0 1280x800x24 -nolisten tcp"])
        .arg(exe)
        .current_dir(cwd)
        .env("AGVIEW_CONFIG_DIR", config)
        .env_remove("WAYLAND_DISPLAY")
        .arg("view")
        .arg(wed)
        .args([
            "--size",
            "1280x720",
            "--frames",
            "1",
            "--no-panel",
            "--screenshot",
        ])
        .arg(&shot)
        .output()
        .expect("xvfb-run runs agview (apt-get install xvfb)");
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "agview view failed: {err}");
    parse(&err).unwrap_or_else(|| panic!("no `first frame after` line: {err}"))
}

fn main() {
    let dir = std::env::temp_dir().join(format!("agview-bench-first-frame-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let wed = common::packages::airport_wed(&dir);
    let elsewhere = dir.join("elsewhere");
    std::fs::create_dir_all(&elsewhere).expect("a working folder");
    let config = dir.join("config");
    let runs = common::runs();
    let this = common::measured_binary();
    let mut binaries = vec![("this", this)];
    if let Some(p) = common::previous_binary() {
        binaries.insert(0, ("previous", p));
    }
    // Warm the file cache (and the shader cache) once with each binary.
    for (_, exe) in &binaries {
        launch(exe, &wed, &elsewhere, &config);
    }
    let mut figures: Vec<Vec<Run>> = vec![Vec::new(); binaries.len()];
    for k in 0..runs {
        for (b, (name, exe)) in binaries.iter().enumerate() {
            let r = launch(exe, &wed, &elsewhere, &config);
            let ms = |v: Option<f64>| v.map_or("?".into(), |v| format!("{v:.0}"));
            println!(
                "run {k} {name}: first full frame {:.0} ms (preview {} ms: ready {} ms, upload {} ms; whole: load {} ms, upload {} ms)",
                r.full,
                ms(r.preview),
                ms(r.preview_ready),
                ms(r.preview_upload),
                ms(r.load),
                ms(r.upload)
            );
            figures[b].push(r);
        }
        std::thread::sleep(Duration::from_millis(200));
    }
    for ((name, exe), rs) in binaries.iter().zip(&figures) {
        let line = |what: &str, v: Vec<f64>| {
            if v.is_empty() {
                return;
            }
            let (m, lo, hi) = common::median_spread(&v);
            println!("  {what}: median {m:.0} ms ({lo:.0}–{hi:.0})");
        };
        println!(
            "{name} ({}): WED airport, 2,000 objects, 120 textures, 200 draped polygons, 1280×720, {} runs:",
            exe.display(),
            rs.len()
        );
        let figures: [(&str, Figure); 6] = [
            ("first full frame", |r| Some(r.full)),
            ("preview's first frame", |r| r.preview),
            ("preview ready (layout, art, upload)", |r| r.preview_ready),
            ("preview's upload", |r| r.preview_upload),
            ("whole load (layout and art)", |r| r.load),
            ("whole upload", |r| r.upload),
        ];
        for (what, of) in figures {
            line(what, rs.iter().filter_map(of).collect());
        }
    }
    println!("(the target: the first full frame within 2000 ms of launch)");
    if std::env::var_os("AGVIEW_BENCH_KEEP").is_some() {
        println!("package kept in {}", wed.display());
    } else {
        let _ = std::fs::remove_dir_all(&dir);
    }
}
