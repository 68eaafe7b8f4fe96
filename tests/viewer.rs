//! The real window, driven from outside: each test starts its own X server (`Xvfb`, which
//! CI's `.ci/run` installs) and runs `agview view` as a child process on it, with the
//! screenshot hooks (`--screenshot FILE --frames N`, and the hidden `--exit-after-reloads N`
//! that writes `FILE-reloadK.png` after each reload caused by a file change).
//!
//! A machine without `Xvfb` fails these tests with a message saying how to install it:
//! nothing is skipped silently. The real-input test also needs `xdotool` (likewise).
//!
//! Image comparisons use the mean absolute difference per channel (R, G, B, over all
//! pixels, 0..255). The window and `agview render` share the device kind, the renderer and
//! every drawing call; only the colour format differs (the window's BGRA against RGBA),
//! so the images should be identical. [`SAME`] allows for a driver that rounds a resolve
//! differently; [`CHANGED`] is the least difference that counts as "the scene changed".

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::{Arc, Mutex, RwLock, RwLockReadGuard, RwLockWriteGuard};
use std::time::{Duration, Instant};

/// Largest mean per-channel difference between two images of the same scene.
const SAME: f64 = 1.0;
/// Least mean difference (over the three channels) between images of different scenes.
const CHANGED: f64 = 0.5;
/// How long a viewer may take for one step (debug build on a software rasterizer, with
/// other tests running beside it).
const STEP: Duration = Duration::from_secs(90);

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn sample(rel: &str) -> PathBuf {
    root().join("sample_scenery").join(rel)
}

/// The machine, shared by the window tests that run beside each other, or held by one that
/// times the viewer alone (`Xvfb::start_alone`): on 2 cores, the 5,000-vertex polygon's UI
/// time was 9.8 ms a frame alone and 19 ms with 3 other window tests running.
static MACHINE: RwLock<()> = RwLock::new(());

/// A window test's hold on [`MACHINE`]; a test that panicked with it leaves it usable.
#[expect(dead_code, reason = "held until the test ends, never read")]
enum Hold {
    Shared(RwLockReadGuard<'static, ()>),
    Alone(RwLockWriteGuard<'static, ()>),
}

/// A temporary folder removed at the end of the test.
struct TempDir(PathBuf);

impl TempDir {
    fn new(name: &str) -> Self {
        let p = std::env::temp_dir().join(format!("agview-viewer-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&p);
        std::fs::create_dir_all(&p).expect("temp dir");
        TempDir(p)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// An X server of our own, stopped when dropped. Under Wine (the Windows build's tests)
/// no Linux program can be started: there the windows open on the display CI started and
/// named in `AGVIEW_TEST_DISPLAY` (.ci/wine/test), which Wine's X11 driver draws to.
struct Xvfb {
    child: Option<Child>,
    display: String,
    /// Dropped after the server is stopped (fields drop in order after `Drop::drop`).
    _hold: Hold,
}

impl Xvfb {
    /// An X server for a test that may run beside other window tests.
    fn start() -> Xvfb {
        let hold = Hold::Shared(MACHINE.read().unwrap_or_else(|e| e.into_inner()));
        Xvfb::start_holding(hold)
    }

    /// An X server for a test that times the viewer: no other window test runs meanwhile.
    fn start_alone() -> Xvfb {
        let hold = Hold::Alone(MACHINE.write().unwrap_or_else(|e| e.into_inner()));
        Xvfb::start_holding(hold)
    }

    #[cfg(windows)]
    fn start_holding(hold: Hold) -> Xvfb {
        let display = std::env::var("AGVIEW_TEST_DISPLAY").unwrap_or_else(|_| {
            panic!(
                "under Wine the window tests draw on the X display CI started, named in \
                 AGVIEW_TEST_DISPLAY (.ci/wine/test sets it)"
            )
        });
        Xvfb {
            child: None,
            display,
            _hold: hold,
        }
    }

    #[cfg(not(windows))]
    fn start_holding(hold: Hold) -> Xvfb {
        let mut child = Command::new("Xvfb")
            .args([
                "-displayfd",
                "1",
                "-screen",
                "0",
                "1280x800x24",
                "-nolisten",
                "tcp",
            ])
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap_or_else(|e| {
                panic!(
                    "the window tests need Xvfb, which could not be started ({e}); \
                     install it with `apt-get install xvfb` (CI's .ci/run does)"
                )
            });
        let out = child.stdout.take().expect("piped stdout");
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let mut line = String::new();
            let _ = BufReader::new(out).read_line(&mut line);
            let _ = tx.send(line);
        });
        let line = match rx.recv_timeout(Duration::from_secs(20)) {
            Ok(l) if !l.trim().is_empty() => l,
            _ => {
                let _ = child.kill();
                panic!("Xvfb started but did not report a display within 20 s");
            }
        };
        Xvfb {
            child: Some(child),
            display: format!(":{}", line.trim()),
            _hold: hold,
        }
    }

    /// `agview` with this display (and X11 rather than any Wayland the host has), and a
    /// config folder of this server's own (what the window remembers never reaches the
    /// user's, nor another test's).
    fn agview(&self) -> Command {
        let mut c = agview();
        let config = std::env::temp_dir().join(format!(
            "agview-viewer-config-{}-{}",
            std::process::id(),
            self.display.trim_start_matches(':')
        ));
        c.env("DISPLAY", &self.display)
            .env("AGVIEW_CONFIG_DIR", config)
            .env_remove("WAYLAND_DISPLAY");
        c
    }
}

impl Drop for Xvfb {
    fn drop(&mut self) {
        if let Some(child) = &mut self.child {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

fn agview() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_agview"));
    if std::env::var_os("XDG_RUNTIME_DIR").is_none() {
        let d = std::env::temp_dir().join("agview-xdg-runtime");
        let _ = std::fs::create_dir_all(&d);
        c.env("XDG_RUNTIME_DIR", d);
    }
    c
}

/// A running `agview` whose stderr is collected line by line.
struct Running {
    child: Child,
    lines: Arc<Mutex<Vec<String>>>,
}

impl Running {
    fn spawn(mut cmd: Command) -> Running {
        let mut child = cmd
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("agview starts");
        let err = child.stderr.take().expect("piped stderr");
        let lines: Arc<Mutex<Vec<String>>> = Arc::default();
        let sink = lines.clone();
        std::thread::spawn(move || {
            for l in BufReader::new(err).lines().map_while(Result::ok) {
                sink.lock().unwrap().push(l);
            }
        });
        Running { child, lines }
    }

    fn stderr(&self) -> String {
        self.lines.lock().unwrap().join("\n")
    }

    /// Waits until `done` holds (checked every 20 ms); panics with the stderr so far if the
    /// process ends first or the step takes too long.
    fn wait_for(&mut self, what: &str, done: impl Fn(&Running) -> bool) {
        let start = Instant::now();
        loop {
            if done(self) {
                return;
            }
            if let Ok(Some(status)) = self.child.try_wait() {
                std::thread::sleep(Duration::from_millis(100));
                if done(self) {
                    return;
                }
                panic!(
                    "agview exited ({status}) before {what}; stderr:\n{}",
                    self.stderr()
                );
            }
            if start.elapsed() > STEP {
                let _ = self.child.kill();
                panic!("timed out waiting for {what}; stderr:\n{}", self.stderr());
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    fn wait_exit(&mut self) -> ExitStatus {
        let start = Instant::now();
        loop {
            if let Ok(Some(s)) = self.child.try_wait() {
                // Let the reader thread take the last lines.
                std::thread::sleep(Duration::from_millis(100));
                return s;
            }
            if start.elapsed() > STEP {
                let _ = self.child.kill();
                panic!("agview did not exit; stderr:\n{}", self.stderr());
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        if let Ok(None) = self.child.try_wait() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

/// Runs to the end; panics with stderr on failure.
fn run_ok(cmd: Command, what: &str) -> String {
    let mut r = Running::spawn(cmd);
    let status = r.wait_exit();
    let err = r.stderr();
    assert!(status.success(), "{what} failed ({status}); stderr:\n{err}");
    err
}

fn load(p: &Path) -> image::RgbaImage {
    image::open(p)
        .unwrap_or_else(|e| panic!("{}: {e}", p.display()))
        .to_rgba8()
}

/// Mean absolute difference per channel (R, G, B).
fn mean_diff(a: &image::RgbaImage, b: &image::RgbaImage) -> [f64; 3] {
    assert_eq!(a.dimensions(), b.dimensions(), "image sizes differ");
    let mut sum = [0u64; 3];
    for (p, q) in a.pixels().zip(b.pixels()) {
        for c in 0..3 {
            sum[c] += u64::from(p[c].abs_diff(q[c]));
        }
    }
    let n = f64::from(a.width() * a.height());
    sum.map(|s| s as f64 / n)
}

fn assert_same(a: &Path, b: &Path) {
    let d = mean_diff(&load(a), &load(b));
    assert!(
        d.iter().all(|c| *c <= SAME),
        "{} and {} differ: mean |diff| per channel {d:?} (at most {SAME} allowed)",
        a.display(),
        b.display()
    );
}

fn assert_changed(a: &Path, b: &Path) {
    let d = mean_diff(&load(a), &load(b));
    let mean = (d[0] + d[1] + d[2]) / 3.0;
    assert!(
        mean >= CHANGED,
        "{} and {} should show different scenes: mean |diff| {mean:.3}",
        a.display(),
        b.display()
    );
}

/// Copies `sample_scenery` (3 MB) so a test can edit it.
fn copy_samples(dir: &Path) -> PathBuf {
    fn copy(from: &Path, to: &Path) {
        std::fs::create_dir_all(to).unwrap();
        for e in std::fs::read_dir(from).unwrap() {
            let e = e.unwrap();
            let t = to.join(e.file_name());
            if e.file_type().unwrap().is_dir() {
                copy(&e.path(), &t);
            } else {
                std::fs::copy(e.path(), &t).unwrap();
            }
        }
    }
    let to = dir.join("sample_scenery");
    copy(&root().join("sample_scenery"), &to);
    to
}

/// Saves a file the way editors do: a new file renamed over the old one.
fn save(path: &Path, text: &str) {
    let tmp = path.with_extension("agview-test-tmp");
    std::fs::write(&tmp, text).unwrap();
    std::fs::rename(&tmp, path).unwrap();
}

fn file_exists(p: PathBuf) -> impl Fn(&Running) -> bool {
    move |_| p.is_file()
}

/// A successful headless render prints nothing that looks like a failure, even with no
/// `XDG_RUNTIME_DIR` and no display: headless paths do not probe one.
#[test]
fn a_headless_render_without_a_display_prints_no_error() {
    let dir = TempDir::new("quiet");
    let out = dir.0.join("plaza.png");
    let mut render = Command::new(env!("CARGO_BIN_EXE_agview"));
    render
        .env_remove("XDG_RUNTIME_DIR")
        .env_remove("DISPLAY")
        .env_remove("WAYLAND_DISPLAY")
        .env_remove("NODEVICE_SELECT")
        .arg("render")
        .arg(sample("autogen/plaza.agp"))
        .args(["--size", "160x120", "--out"])
        .arg(&out);
    let err = run_ok(render, "agview render without a display");
    assert!(out.is_file());
    for line in err.lines() {
        assert!(
            !line.to_lowercase().contains("error") && !line.contains("XDG_RUNTIME_DIR"),
            "a successful render printed: {line}\n{err}"
        );
    }
}

/// The assets the window tests compare with `render`: a point, a block with an overlay,
/// and a string from above at a lower density.
fn window_cases() -> Vec<(&'static str, Vec<String>)> {
    let block = sample("polygons/block_100x80.geojson");
    let lake = sample("polygons/lakeside.geojson");
    vec![
        (
            "plaza",
            vec![sample("autogen/plaza.agp").display().to_string()],
        ),
        (
            "block",
            vec![
                sample("autogen/city_block.agb").display().to_string(),
                "--polygon".into(),
                block.display().to_string(),
                "--debug".into(),
                "polygon".into(),
            ],
        ),
        (
            "lakeside-top",
            vec![
                sample("autogen/lakeside.ags").display().to_string(),
                "--polygon".into(),
                lake.display().to_string(),
                "--camera".into(),
                "top".into(),
                "--density".into(),
                "3".into(),
            ],
        ),
    ]
}

/// `agview render ARGS --size 320x240 --out OUT`, which must succeed.
fn render_320x240(args: &[String], out: &Path, name: &str) {
    let mut render = agview();
    render
        .arg("render")
        .args(args)
        .args(["--size", "320x240", "--out"])
        .arg(out);
    run_ok(render, &format!("agview render ({name})"));
}

#[test]
fn window_screenshot_matches_the_headless_render() {
    let x = Xvfb::start();
    let dir = TempDir::new("match");
    let cases = window_cases();
    for (name, args) in cases {
        let shot = dir.0.join(format!("{name}-window.png"));
        let headless = dir.0.join(format!("{name}-headless.png"));
        let mut view = x.agview();
        view.arg("view")
            .args(&args)
            .args(["--size", "320x240", "--frames", "3", "--screenshot"])
            .arg(&shot);
        let err = run_ok(view, &format!("agview view ({name})"));
        assert!(err.contains("first frame after"), "{err}");
        render_320x240(&args, &headless, name);
        assert_eq!(load(&shot).dimensions(), (320, 240));
        assert_same(&shot, &headless);
    }
}

/// What the window shows is what `render` writes: the frame the window presented, read
/// back from its own surface texture (not a second offscreen render), matches the headless
/// render of the same asset at the same size.
#[test]
fn the_presented_frame_matches_the_headless_render() {
    let x = Xvfb::start();
    let dir = TempDir::new("presented");
    let cases = window_cases();
    for (name, args) in cases {
        let shown = dir.0.join(format!("{name}-presented.png"));
        let headless = dir.0.join(format!("{name}-headless.png"));
        let mut view = x.agview();
        view.arg("view")
            .args(&args)
            .args(["--size", "320x240", "--frames", "3", "--no-panel"])
            .arg("--presented-frame")
            .arg(&shown);
        let err = run_ok(view, &format!("agview view ({name})"));
        assert!(err.contains("the presented frame"), "{err}");
        // On a CPU adapter (lavapipe) the first frames are 1× once the window's 1×
        // pipelines are built (on a thread: a small asset may load first), and the frame
        // presented once still is the 4× one, the headless render's.
        if err.contains("(1× while loading)") {
            assert!(err.contains("first 4× frame after"), "{err}");
        }
        render_320x240(&args, &headless, name);
        assert_eq!(load(&shown).dimensions(), (320, 240));
        assert_same(&shown, &headless);
    }
}

/// When the GPU device is lost (here destroyed by a test hook, as a driver reset would lose
/// it), the viewer opens a new one, uploads the scene again and goes on: the window then
/// presents what `render` writes, and its panel (egui's textures sent again) still draws.
#[test]
fn a_lost_device_is_opened_again_and_the_scene_comes_back() {
    let x = Xvfb::start();
    let dir = TempDir::new("lost");
    let plaza = sample("autogen/plaza.agp");
    let shown = dir.0.join("presented.png");
    let headless = dir.0.join("headless.png");
    let mut view = x.agview();
    view.arg("view")
        .arg(&plaza)
        .args([
            "--size",
            "320x240",
            "--lose-device-after",
            "2",
            "--frames",
            "5",
        ])
        .args(["--no-panel", "--presented-frame"])
        .arg(&shown);
    let err = run_ok(view, "agview view (device lost)");
    assert!(err.contains("the GPU device was lost"), "{err}");
    assert!(err.contains("GPU device opened again"), "{err}");
    let mut render = agview();
    render
        .arg("render")
        .arg(&plaza)
        .args(["--size", "320x240", "--out"])
        .arg(&headless);
    run_ok(render, "agview render (device lost)");
    assert_same(&shown, &headless);
    // With the panel shown: no panic, and a screenshot after the loss.
    let shot = dir.0.join("with-panel.png");
    let mut view = x.agview();
    view.arg("view")
        .arg(&plaza)
        .args([
            "--size",
            "320x240",
            "--lose-device-after",
            "2",
            "--frames",
            "5",
        ])
        .arg("--screenshot")
        .arg(&shot);
    let err = run_ok(view, "agview view (device lost, panel)");
    assert!(err.contains("GPU device opened again"), "{err}");
    assert_same(&shot, &headless);
}

#[test]
fn an_edit_on_disk_shows_up_and_a_broken_one_keeps_the_last_scene() {
    let x = Xvfb::start();
    let dir = TempDir::new("reload");
    let samples = copy_samples(&dir.0);
    let asset = samples.join("autogen/plaza.agp");
    let original = std::fs::read_to_string(&asset).unwrap();
    let shots = dir.0.join("shots");
    std::fs::create_dir_all(&shots).unwrap();
    let shot = shots.join("s.png");
    let mut view = x.agview();
    view.arg("view")
        .arg(&asset)
        .args([
            "--size",
            "320x240",
            "--frames",
            "2",
            "--exit-after-reloads",
            "3",
        ])
        .arg("--screenshot")
        .arg(&shot);
    let mut r = Running::spawn(view);
    r.wait_for("the first screenshot", file_exists(shot.clone()));

    // 1. An edit: the first car of the car park (the tile seed 0 picks) becomes a shop.
    let edited = original.replacen("OBJ_DRAPED 820 72 270 6", "OBJ_DRAPED 820 72 270 3", 1);
    assert_ne!(
        edited, original,
        "the sample still has the line this test edits"
    );
    save(&asset, &edited);
    r.wait_for("the edit to show", file_exists(shots.join("s-reload1.png")));
    let headless = dir.0.join("edited-headless.png");
    let mut render = agview();
    render
        .arg("render")
        .arg(&asset)
        .args(["--size", "320x240", "--out"])
        .arg(&headless);
    run_ok(render, "agview render of the edited asset");
    assert_changed(&shot, &shots.join("s-reload1.png"));
    assert_same(&shots.join("s-reload1.png"), &headless);

    // 2. A broken edit: the error with its line and column, and the last good scene.
    let broken = edited.replacen("TILE_LOD 6000", "TILE_LOD abc", 1);
    let line = broken
        .lines()
        .position(|l| l == "TILE_LOD abc")
        .expect("TILE_LOD line")
        + 1;
    save(&asset, &broken);
    r.wait_for(
        "the broken edit's outcome",
        file_exists(shots.join("s-reload2.png")),
    );
    let err = r.stderr();
    let want = format!(
        "reload failed: {}:{line}:10: error: TILE_LOD",
        asset.display()
    );
    assert!(err.contains(&want), "expected `{want}` in stderr:\n{err}");
    assert_same(&shots.join("s-reload1.png"), &shots.join("s-reload2.png"));

    // 3. Fixed: the original scene comes back, and the viewer exits after three reloads.
    save(&asset, &original);
    let status = r.wait_exit();
    let err = r.stderr();
    assert!(status.success(), "{status}: {err}");
    assert_same(&shot, &shots.join("s-reload3.png"));
    assert_eq!(err.matches("reloaded ").count(), 2, "{err}");
    // Each reload reports its latency.
    for l in err.lines().filter(|l| l.starts_with("reloaded ")) {
        assert!(l.contains(" ms (file change to frame)"), "{l}");
    }
}

#[test]
fn an_asset_broken_at_launch_opens_the_window_and_loads_when_fixed() {
    let x = Xvfb::start();
    let dir = TempDir::new("launch");
    let samples = copy_samples(&dir.0);
    let asset = samples.join("autogen/plaza.agp");
    let original = std::fs::read_to_string(&asset).unwrap();
    save(
        &asset,
        &original.replacen("TEXTURE_SCALE 1024 512", "TEXTURE_SCALE 1024", 1),
    );
    let shot = dir.0.join("s.png");
    let mut view = x.agview();
    view.arg("view")
        .arg(&asset)
        .args([
            "--size",
            "200x150",
            "--frames",
            "2",
            "--exit-after-reloads",
            "1",
        ])
        .arg("--screenshot")
        .arg(&shot);
    let mut r = Running::spawn(view);
    r.wait_for("the window to open without a scene", |r| {
        r.stderr().contains("first frame after") && r.stderr().contains("no scene")
    });
    let err = r.stderr();
    assert!(
        err.contains(&format!("{}:", asset.display())) && err.contains(": error: TEXTURE_SCALE"),
        "the error names the file and line: {err}"
    );
    assert!(!shot.exists());
    save(&asset, &original);
    let status = r.wait_exit();
    assert!(status.success(), "{status}: {}", r.stderr());
    assert!(shot.is_file(), "the fixed scene was drawn and captured");
    assert!(dir.0.join("s-reload1.png").is_file());
}

#[test]
fn a_dsf_text_file_opens_with_every_autogen_feature() {
    let x = Xvfb::start();
    let dir = TempDir::new("dsf");
    let shot = dir.0.join("town.png");
    let mut view = x.agview();
    view.arg("view")
        .arg(sample("polygons/town.txt"))
        .args(["--size", "320x240", "--frames", "2", "--screenshot"])
        .arg(&shot);
    let err = run_ok(view, "agview view town.txt");
    // Three blocks (30 + 18 + 15 tiles), the lakeside string and two plazas; the props
    // point hides its tiles.
    assert!(err.contains("loaded "), "{err}");
    let img = load(&shot);
    assert_eq!(img.dimensions(), (320, 240));
    // Not an empty sky: the scene covers much of the image.
    let sky = img.get_pixel(0, 0).0;
    let differs = img.pixels().filter(|p| p.0 != sky).count();
    assert!(
        differs > 320 * 240 / 4,
        "{differs} pixels differ from the corner"
    );
}

#[test]
fn a_wed_project_folder_opens_and_reloads_when_wed_saves_it() {
    let x = Xvfb::start();
    let dir = TempDir::new("wed");
    let samples = copy_samples(&dir.0);
    let wed = samples.join("earth.wed.xml");
    let original = std::fs::read_to_string(&wed).unwrap();
    let shot = dir.0.join("s.png");
    let mut view = x.agview();
    view.arg("view")
        .arg(&samples)
        .args([
            "--size",
            "480x240",
            "--frames",
            "2",
            "--exit-after-reloads",
            "1",
        ])
        .arg("--screenshot")
        .arg(&shot);
    let mut r = Running::spawn(view);
    r.wait_for("the first screenshot", file_exists(shot.clone()));
    // The window shows what the headless render of the folder shows.
    let headless = dir.0.join("headless.png");
    let mut render = agview();
    render
        .arg("render")
        .arg(&samples)
        .args(["--size", "480x240", "--out"])
        .arg(&headless);
    run_ok(render, "agview render of the WED folder");
    assert_same(&shot, &headless);
    // WED saves the project with the lakeside hidden: it leaves the picture (the camera
    // stays where it was, so the rest of the town stands still).
    let hidden = original.replacen(
        "the lake does not spawn tiles\" locked=\"0\" hidden=\"0\"",
        "the lake does not spawn tiles\" locked=\"0\" hidden=\"1\"",
        1,
    );
    assert_ne!(hidden, original, "the sample still has the lakeside");
    save(&wed, &hidden);
    let status = r.wait_exit();
    assert!(status.success(), "{status}: {}", r.stderr());
    // The lakeside (outside the framed main cluster) stands at the right edge of a 2:1
    // view: that strip changes, and the rest (the wood included: its trees are seeded by
    // what it is, not by its place in the project) stands still, the main cluster and so
    // the view being the same.
    let (before, after) = (load(&shot), load(&dir.0.join("s-reload1.png")));
    let strip = |img: &image::RgbaImage, x0: u32, x1: u32| {
        image::imageops::crop_imm(img, x0, 0, x1 - x0, img.height()).to_image()
    };
    let right = mean_diff(&strip(&before, 420, 480), &strip(&after, 420, 480));
    assert!(
        right.iter().sum::<f64>() / 3.0 >= CHANGED,
        "the lakeside's strip should change: {right:?}"
    );
    let rest = mean_diff(&strip(&before, 0, 400), &strip(&after, 0, 400));
    assert!(
        rest.iter().all(|c| *c <= SAME),
        "the rest should stand still: {rest:?}"
    );
}

#[test]
fn a_bad_screenshot_path_is_an_error_not_a_crash() {
    // No window is needed to refuse an unwritable --screenshot: checked before opening one.
    let out = agview()
        .args(["view"])
        .arg(sample("autogen/plaza.agp"))
        .args(["--screenshot", "/nonexistent-agview-dir/x.png"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("not a directory"), "{err}");
}

#[test]
fn sweep_makes_a_sheet_with_one_cell_per_size() {
    let dir = TempDir::new("sweep");
    let sheet = dir.0.join("sheet.png");
    let mut cmd = agview();
    cmd.arg("sweep")
        .arg(sample("autogen/city_block.agb"))
        .args([
            "--width", "20..80", "--depth", "20..60", "--step", "20", "--cell", "96x72",
            "--camera", "top", "--out",
        ])
        .arg(&sheet);
    let err = run_ok(cmd, "agview sweep");
    // Widths 20, 40, 60, 80; depths 20, 40, 60.
    assert!(err.contains("4 x 3 = 12 cell(s)"), "{err}");
    let img = load(&sheet);
    let gap = 4;
    assert_eq!(img.dimensions(), (4 * 96 + 5 * gap, 3 * 72 + 4 * gap));
    // The 20 m blocks are too narrow for any spelling (EDGE_MIN): red borders; the 80 x 60
    // block fits.
    let red = |x: u32, y: u32| {
        let p = img.get_pixel(x, y).0;
        p[0] > 200 && p[1] < 60 && p[2] < 60
    };
    let cell = |c: u32, r: u32| (gap + c * (96 + gap), gap + r * (72 + gap));
    let (x0, y0) = cell(0, 2);
    assert!(
        red(x0 + 1, y0 + 40) && red(x0 + 94, y0 + 40),
        "20x60 has a red border"
    );
    let (x3, y2) = cell(3, 2);
    assert!(
        !red(x3 + 1, y2 + 40) && !red(x3 + 94, y2 + 40),
        "80x60 fits"
    );
    assert!(err.contains("without a fitting spelling"), "{err}");
}

#[test]
fn bench_tile_prints_the_layout_and_frame_figures_as_one_json_object() {
    let out = agview()
        .args([
            "bench",
            "tile",
            "--features",
            "200",
            "--size",
            "64x64",
            "--json",
        ])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{}: {err}", out.status);
    let j: serde_json::Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stdout)));
    // The figures, the layout's beside the frame's in one object.
    for key in [
        "features",
        "threads",
        "layout_ms",
        "tiles",
        "objects",
        "trees",
        "upload_ms",
        "adapter",
        "draw_calls",
        "triangles_submitted",
        "encode_ms",
        "gpu_ms",
        "bytes_per_instance",
        "first_frame_ms",
        "on_screen_ms",
        "total_ms",
        "peak_rss_mb",
    ] {
        assert!(j.get(key).is_some(), "no {key} in {j}");
    }
    assert_eq!(j["features"], 200);
    assert_eq!(j["errors"], 0);
    for key in ["tiles", "objects", "trees", "draw_calls", "threads"] {
        assert!(j[key].as_u64().is_some_and(|n| n > 0), "{key} in {j}");
    }
    // The first frame as the window shows it: on a CPU adapter (lavapipe) 1× while the
    // scene arrives, then a 4× frame, reported on its own.
    if j["adapter"].as_str().is_some_and(|a| a.contains("(Cpu)")) && j["samples"] == 4 {
        assert_eq!(j["first_frame_samples"], 1, "{j}");
        assert!(j["first_aa_frame_ms"].as_f64().is_some(), "{j}");
        assert!(j["aa_on_screen_ms"].as_f64().is_some(), "{j}");
    }
}

#[test]
fn the_synthetic_tile_opens_as_a_document_from_the_temporary_folder() {
    let x = Xvfb::start();
    let dir = TempDir::new("synthetic-tile");
    let shot = dir.0.join("tile.png");
    let mut view = x.agview();
    view.arg("view")
        .args(["--synthetic-tile", "200"])
        .args(["--size", "160x120", "--frames", "2", "--screenshot"])
        .arg(&shot);
    let err = run_ok(view, "agview view --synthetic-tile 200");
    assert!(err.contains("loaded "), "{err}");
    assert!(shot.is_file());
    // The document was in a folder of its own in the temporary folder, gone on exit.
    let doc = err
        .lines()
        .find_map(|l| l.strip_prefix("synthetic tile of 200 feature(s): "))
        .map(PathBuf::from)
        .unwrap_or_else(|| panic!("no document path in:\n{err}"));
    assert!(doc.starts_with(std::env::temp_dir()), "{}", doc.display());
    assert!(
        doc.parent().is_some_and(|d| !d.exists()),
        "{}",
        doc.display()
    );
}

/// `--sun` and `--shadows` on `render`: a preset and an angle pair render; a sun the parser
/// rejects is a usage error (exit 2) that names the option and says why.
#[test]
fn a_bad_sun_is_a_usage_error() {
    let dir = TempDir::new("sun");
    let out = dir.0.join("plaza.png");
    for sun in ["dusk", "-5,130"] {
        let mut ok = agview();
        ok.arg("render")
            .arg(sample("autogen/plaza.agp"))
            .args(["--size", "64x48", "--sun", sun, "--shadows", "off", "--out"])
            .arg(&out);
        run_ok(ok, &format!("agview render --sun {sun}"));
        assert!(out.is_file());
    }
    for (sun, why) in [
        ("95,10", "-90..90"),
        ("dawn", "expected noon, dusk, night or ELEV,AZIMUTH"),
    ] {
        let r = agview()
            .arg("render")
            .arg(sample("autogen/plaza.agp"))
            .args(["--sun", sun, "--out"])
            .arg(&out)
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&r.stderr);
        assert_eq!(r.status.code(), Some(2), "--sun {sun}: {err}");
        assert!(
            err.contains("--sun") && err.contains(why),
            "--sun {sun}: {err}"
        );
    }
    let r = agview()
        .arg("render")
        .arg(sample("autogen/plaza.agp"))
        .args(["--shadows", "maybe", "--out"])
        .arg(&out)
        .output()
        .unwrap();
    assert_eq!(r.status.code(), Some(2));
}

// ------------------------------------------------------------ the viewer on documents

/// Writes `text` to `path`, making its folders.
fn put(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

/// A package whose DSF text places `n` objects of 40 kinds, each named by a long path, in a
/// grid: the panel and the feature table on a large document.
fn long_names_package(dir: &Path, n: usize) -> PathBuf {
    let root = dir.join("Long Names Package");
    let mut text = String::from(
        "A\n800\nDSF2TEXT\nPROPERTY sim/west 8\nPROPERTY sim/south 47\nPROPERTY sim/east 9\n\
PROPERTY sim/north 48\n",
    );
    for k in 0..40 {
        let name = format!(
            "objects/airport_ground_equipment/baggage_and_catering_vehicles_with_a_very_long_descriptive_name_{k:02}.obj"
        );
        let obj = "A\n800\nOBJ\n\nPOINT_COUNTS 3 0 0 3\nVT 0 0 0 0 1 0 0 0\nVT 4 0 0 0 1 0 1 0\n\
VT 0 3 0 0 1 0 0 1\nIDX 0\nIDX 1\nIDX 2\nTRIS 0 3\n";
        put(&root.join(&name), obj);
        text.push_str(&format!("OBJECT_DEF {name}\n"));
    }
    for i in 0..n {
        let (x, y) = ((i % 100) as f64, (i / 100) as f64);
        text.push_str(&format!(
            "OBJECT {} {:.7} {:.7} {}\n",
            i % 40,
            8.5 + x * 0.0002,
            47.5 + y * 0.00015,
            i % 360
        ));
    }
    let dsf = root.join("Earth nav data/+40+000/+47+008.txt");
    put(&dsf, &text);
    dsf
}

/// `side panel P of W px` from the viewer's closing line.
fn panel_share(err: &str) -> f64 {
    let line = err
        .lines()
        .find(|l| l.starts_with("panel: "))
        .unwrap_or_else(|| panic!("no panel line: {err}"));
    let tail = line
        .split("side panel ")
        .nth(1)
        .unwrap_or_else(|| panic!("{line}"));
    let mut words = tail.split_whitespace();
    let p: f64 = words.next().unwrap().parse().unwrap();
    let w: f64 = words.nth(1).unwrap().parse().unwrap();
    p / w
}

#[test]
fn a_document_of_5000_long_named_features_keeps_the_view_at_least_60_percent_wide() {
    let x = Xvfb::start();
    let dir = TempDir::new("long-names");
    let dsf = long_names_package(&dir.0, 5000);
    let shot = dir.0.join("panel.png");
    let mut view = x.agview();
    view.arg("view")
        .arg(&dsf)
        .args([
            "--size",
            "1280x720",
            "--frames",
            "4",
            "--screenshot-panel",
            "--screenshot",
        ])
        .arg(&shot);
    let err = run_ok(view, "agview view of 5,000 features");
    assert!(err.contains("5000 object(s)"), "{err}");
    let share = panel_share(&err);
    assert!(
        (0.2..=0.401).contains(&share),
        "the side panel takes {:.0}% of the window",
        share * 100.0
    );
    // The UI time is measured and printed (a figure, not a target a test could time).
    assert!(err.contains("UI mean "), "{err}");
    assert_eq!(load(&shot).dimensions(), (1280, 720));
}

#[test]
fn a_remembered_panel_width_is_used_and_kept_within_40_percent() {
    let x = Xvfb::start();
    let dir = TempDir::new("panel-width");
    let config = dir.0.join("config");
    let dsf = long_names_package(&dir.0, 50);
    for (remembered, want) in [(400.0, 400.0 / 1280.0), (1000.0, 0.4)] {
        put(
            &config.join("viewer.json"),
            &format!("{{\"panel_width\": {remembered}}}"),
        );
        let shot = dir.0.join("w.png");
        let mut view = x.agview();
        view.env("AGVIEW_CONFIG_DIR", &config)
            .arg("view")
            .arg(&dsf)
            .args(["--size", "1280x720", "--frames", "2", "--screenshot"])
            .arg(&shot);
        let err = run_ok(view, "agview view with a remembered width");
        let share = panel_share(&err);
        assert!((share - want).abs() < 0.01, "{share} against {want}: {err}");
    }
}

#[test]
fn the_remembered_width_is_read_from_the_platforms_config_folder() {
    let x = Xvfb::start();
    let dir = TempDir::new("config-folder");
    let base = dir.0.join("config home");
    let (var, folder) = if cfg!(windows) {
        ("APPDATA", base.join("agview"))
    } else if cfg!(target_os = "macos") {
        ("HOME", base.join("Library/Application Support/agview"))
    } else {
        ("XDG_CONFIG_HOME", base.join("agview"))
    };
    put(&folder.join("viewer.json"), "{\"panel_width\": 400.0}");
    let dsf = long_names_package(&dir.0, 50);
    let mut view = x.agview();
    view.env_remove("AGVIEW_CONFIG_DIR")
        .env(var, &base)
        .arg("view")
        .arg(&dsf)
        .args(["--size", "1280x720", "--frames", "2", "--screenshot"])
        .arg(dir.0.join("w.png"));
    let err = run_ok(view, &format!("agview view with {var} set"));
    let share = panel_share(&err);
    assert!(
        (share - 400.0 / 1280.0).abs() < 0.01,
        "the width remembered in {} was not used ({share}): {err}",
        folder.display()
    );
}

/// `agview view DOC` at 320×240 whose load starts `delay_ms` late, until its screenshot is
/// written to `shot`, with the options `extra` and the environment `env`: its stderr.
fn view_after_a_delay(
    x: &Xvfb,
    doc: &Path,
    delay_ms: u32,
    shot: &Path,
    extra: &[&str],
    env: &[(&str, &str)],
) -> String {
    let mut view = x.agview();
    view.envs(env.iter().copied())
        .arg("view")
        .arg(doc)
        .args(extra)
        .args(["--size", "320x240", "--frames", "2", "--load-delay-ms"])
        .arg(delay_ms.to_string())
        .arg("--screenshot")
        .arg(shot);
    run_ok(
        view,
        &format!("agview view {} (a slow load)", doc.display()),
    )
}

#[test]
fn the_window_presents_frames_while_a_slow_document_loads() {
    let x = Xvfb::start();
    let dir = TempDir::new("slow");
    let err = view_after_a_delay(
        &x,
        &sample("earth.wed.xml"),
        3000,
        &dir.0.join("slow.png"),
        &[],
        &[],
    );
    let line = err
        .lines()
        .find(|l| l.starts_with("panel: "))
        .unwrap_or_else(|| panic!("{err}"));
    let frames: u32 = line
        .split("; ")
        .find_map(|p| p.strip_suffix(" frame(s) presented while loading"))
        .and_then(|n| n.trim().parse().ok())
        .unwrap_or_else(|| panic!("{line}"));
    assert!(frames >= 3, "{frames} frame(s) while loading: {err}");
}

#[test]
fn a_large_document_shows_its_first_features_while_the_rest_loads() {
    let x = Xvfb::start();
    let dir = TempDir::new("preview");
    let dsf = long_names_package(&dir.0, 4000);
    let shot = dir.0.join("whole.png");
    // The load starts once the window has its device, as a large document's layout would
    // still be running then. On hills: the preview's terrain is the whole's, sized for the
    // document as read. Parts of at least 500 features, not the 10,000 of a real load, so
    // a document this small still comes in parts.
    let err = view_after_a_delay(
        &x,
        &dsf,
        1500,
        &shot,
        &["--terrain", "hills"],
        &[("AGVIEW_PREVIEW_PART_MIN", "500")],
    );
    let preview = err
        .find("showing the first 500 feature(s)")
        .unwrap_or_else(|| panic!("no preview: {err}"));
    let whole = err
        .find("4000 object(s)")
        .unwrap_or_else(|| panic!("{err}"));
    assert!(preview < whole, "the preview comes first: {err}");
    assert!(err.contains("(a preview)"), "{err}");
    // The rest is uploaded alone, in three parts of 1,167 features or fewer, each drawn
    // beside the preview as it comes; the whole is not uploaded again.
    assert_eq!(
        err.matches("added 1167 more feature(s) after ").count(),
        2,
        "{err}"
    );
    assert!(
        err.contains("the rest of the document added to its preview in 3 part(s)"),
        "{err}"
    );
    assert!(!err.contains("uploading the whole"), "{err}");
    assert!(shot.is_file());
}

#[test]
fn selecting_a_feature_highlights_and_frames_it() {
    let x = Xvfb::start();
    let dir = TempDir::new("select");
    let shot = dir.0.join("selected.png");
    let mut view = x.agview();
    // Feature 3 of the sample WED project is the kiosk (agview/objects/kiosk.obj).
    view.arg("view")
        .arg(sample("earth.wed.xml"))
        .args(["--size", "640x480", "--frames", "3", "--select", "3"])
        .args(["--screenshot-panel", "--screenshot"])
        .arg(&shot);
    let err = run_ok(view, "agview view --select 3");
    assert!(err.contains("framed feature 3 (5 m × 5 m)"), "{err}");
    // A click in the middle of the view picks what is framed there: the kiosk again.
    let mut view = x.agview();
    view.arg("view")
        .arg(sample("earth.wed.xml"))
        .args(["--size", "640x480", "--frames", "2", "--select", "3"])
        .args(["--click", "400,240", "--screenshot"])
        .arg(dir.0.join("clicked.png"));
    let clicked = run_ok(view, "agview view --click");
    assert!(clicked.contains("picked feature 3: "), "{clicked}");
    // The outline's yellow is on screen.
    let img = load(&shot);
    let yellow = img
        .pixels()
        .filter(|p| p.0[0] > 230 && (200..=240).contains(&p.0[1]) && p.0[2] < 90)
        .count();
    assert!(yellow > 200, "{yellow} outline pixels");
}

#[path = "common/seasons.rs"]
mod seasons_package;

/// The `N` key (pressed by the `--press` hook once the first screenshot is written) moves
/// the window from summer to fall: the scene is resolved and laid out again in place, and
/// the window then shows what `render --season fal` writes.
#[test]
fn the_n_key_shows_the_next_season_in_place() {
    let x = Xvfb::start();
    let dir = TempDir::new("season-key");
    let (_, dsf) = seasons_package::write_package(&dir.0);
    let shot = dir.0.join("s.png");
    let mut view = x.agview();
    view.arg("view")
        .arg(&dsf)
        .args(["--size", "320x240", "--frames", "2", "--press", "N"])
        .args(["--exit-after-reloads", "1", "--screenshot"])
        .arg(&shot);
    let mut r = Running::spawn(view);
    r.wait_for(
        "the next season's screenshot",
        file_exists(dir.0.join("s-reload1.png")),
    );
    r.wait_exit();
    let dsf = dsf.display().to_string();
    let args = |season: &str| vec![dsf.clone(), "--season".to_string(), season.to_string()];
    let (summer, fall) = (dir.0.join("sum.png"), dir.0.join("fal.png"));
    render_320x240(&args("sum"), &summer, "summer");
    render_320x240(&args("fal"), &fall, "fall");
    assert_same(&shot, &summer);
    assert_same(&dir.0.join("s-reload1.png"), &fall);
    assert_changed(&summer, &fall);
}

// ---------------------------------------------------------------------------------------
// Edit mode (issue 37), driven by the hidden `--script` hook.

/// Meters per degree, as `agview_load::input` projects.
const M_PER_DEG: f64 = 111_319.490_793_273_6;
/// Where the edit tests' square lies: its first vertex.
const EDIT_ORIGIN: [f64; 2] = [8.157, 47.896];
/// The edit tests' camera: 150 m straight above (50, 40), north up, in a 1280×720 window.
const EDIT_CAMERA: &str = "50,40,150,0,90";

/// Local meters around [`EDIT_ORIGIN`] to degrees (the viewer's frame).
fn edit_geo(p: [f64; 2]) -> [f64; 2] {
    let k = EDIT_ORIGIN[1].to_radians().cos();
    [
        EDIT_ORIGIN[0] + p[0] / (k * M_PER_DEG),
        EDIT_ORIGIN[1] + p[1] / M_PER_DEG,
    ]
}

/// The window pixel of ground point `p` (meters) under [`EDIT_CAMERA`] (a 45° field of view).
fn edit_px(p: [f64; 2]) -> String {
    let per_m = 360.0 / (150.0 * 22.5f64.to_radians().tan());
    format!(
        "{:.2},{:.2}",
        640.0 + (p[0] - 50.0) * per_m,
        360.0 - (p[1] - 40.0) * per_m
    )
}

/// A GeoJSON of a point feature, then a 100 × 80 m square for `lakeside.ags` (param 513:
/// 8 m, one spawning contour).
fn edit_polygon(dir: &Path) -> PathBuf {
    let ring: Vec<[f64; 2]> = [
        [0.0, 0.0],
        [100.0, 0.0],
        [100.0, 80.0],
        [0.0, 80.0],
        [0.0, 0.0],
    ]
    .iter()
    .map(|p| edit_geo(*p))
    .collect();
    let v = serde_json::json!({
        "type": "FeatureCollection",
        "features": [
            {"type": "Feature", "properties": {"name": "a well", "kind": 7},
             "geometry": {"type": "Point", "coordinates": [8.2, 47.9]}},
            {"type": "Feature", "properties": {"param": 513, "height": 8, "name": "the block"},
             "geometry": {"type": "Polygon", "coordinates": [ring]}}
        ]
    });
    let p = dir.join("shape.geojson");
    save(&p, &serde_json::to_string_pretty(&v).unwrap());
    p
}

fn edit_view(x: &Xvfb, polygon: &Path, script: &Path) -> Command {
    let mut c = x.agview();
    c.arg("view")
        .arg(sample("autogen/lakeside.ags"))
        .arg("--polygon")
        .arg(polygon)
        .args(["--edit", "--size", "1280x720"])
        .arg(format!("--camera={EDIT_CAMERA}"))
        .arg("--script")
        .arg(script);
    c
}

/// Drags a vertex, inserts one, toggles an edge's spawning, undoes twice, redoes once and
/// saves; the GeoJSON holds the shape, the other feature is unchanged, the viewer's own save
/// reloads nothing, and a fresh `agview layout --json` of the file is the viewer's scene.
/// (Needs the GeoJSON writer of `agview_load::edit::save`.)
#[test]
fn a_scripted_edit_saves_the_shape_and_the_scene_matches_a_fresh_layout() {
    let x = Xvfb::start();
    let dir = TempDir::new("edit-script");
    let polygon = edit_polygon(&dir.0);
    let before_other: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&polygon).unwrap()).unwrap();
    let script = dir.0.join("edit.txt");
    let text = format!(
        "shot {before}\n\
         drag {v1} {to}\n\
         click shift+{mid_top}\n\
         click ctrl+{mid_bottom}\n\
         shot {after}\n\
         key ctrl+z\nkey ctrl+z\nkey ctrl+y\n\
         key ctrl+s\nwait 600\nquit\n",
        before = dir.0.join("before.png").display(),
        after = dir.0.join("after.png").display(),
        v1 = edit_px([100.0, 0.0]),
        to = edit_px([105.03, 4.98]),
        mid_top = edit_px([50.0, 80.0]),
        mid_bottom = edit_px([52.5, 2.5]),
    );
    save(&script, &text);
    let dump = dir.0.join("scene.json");
    let mut view = edit_view(&x, &polygon, &script);
    view.arg("--no-panel").arg("--dump-scene").arg(&dump);
    let mut r = Running::spawn(view);
    r.wait_for("the save and the scene", |r| {
        let e = r.stderr();
        e.contains("wrote the last scene") || e.contains("error: saving")
    });
    let err = r.stderr();
    assert!(!err.contains("error: saving"), "{err}");
    r.wait_exit();
    let err = r.stderr();
    assert!(err.contains("edit to frame"), "{err}");
    assert!(
        !err.contains("reloaded"),
        "the viewer's own save is no change: {err}"
    );

    let saved: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&polygon).unwrap()).unwrap();
    assert_eq!(
        saved["features"][0], before_other["features"][0],
        "the other feature"
    );
    let ring = saved["features"][1]["geometry"]["coordinates"][0]
        .as_array()
        .unwrap()
        .clone();
    let want: Vec<[f64; 2]> = [
        [0.0, 0.0],
        [105.0, 5.0],
        [100.0, 80.0],
        [50.0, 80.0],
        [0.0, 80.0],
        [0.0, 0.0],
    ]
    .iter()
    .map(|p| edit_geo(*p))
    .collect();
    assert_eq!(ring.len(), want.len(), "{ring:?}");
    for (got, w) in ring.iter().zip(&want) {
        let g = [got[0].as_f64().unwrap(), got[1].as_f64().unwrap()];
        assert!(
            (g[0] - w[0]).abs() < 1e-9 && (g[1] - w[1]).abs() < 1e-9,
            "{g:?} against {w:?}"
        );
    }
    assert_eq!(saved["features"][1]["properties"]["param"], 513);

    let mut layout = agview();
    layout
        .arg("layout")
        .arg(sample("autogen/lakeside.ags"))
        .arg("--polygon")
        .arg(&polygon)
        .arg("--json");
    let out = layout.output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let fresh: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let shown: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&dump).unwrap()).unwrap();
    assert_eq!(
        fresh, shown,
        "a fresh layout of the saved file is the viewer's scene"
    );
}

/// Quitting with unsaved edits asks first; the window stays open. (The drag is a
/// `dragshot`: the frame drawn while dragging, as presented, is written.)
#[test]
fn quitting_with_unsaved_edits_asks_first() {
    let x = Xvfb::start();
    let dir = TempDir::new("edit-quit");
    let polygon = edit_polygon(&dir.0);
    let script = dir.0.join("quit.txt");
    let dragged = dir.0.join("dragged.png");
    save(
        &script,
        &format!(
            "dragshot {} {} {}\nquit\n",
            edit_px([100.0, 80.0]),
            edit_px([110.0, 90.0]),
            dragged.display()
        ),
    );
    let mut view = edit_view(&x, &polygon, &script);
    view.arg("--no-panel");
    let mut r = Running::spawn(view);
    r.wait_for("the question", |r| {
        r.stderr().contains("unsaved edits: asking before quitting")
    });
    std::thread::sleep(Duration::from_millis(800));
    assert!(
        matches!(r.child.try_wait(), Ok(None)),
        "the window waits for an answer: {}",
        r.stderr()
    );
    let text = std::fs::read_to_string(&polygon).unwrap();
    assert!(
        text.contains("the block"),
        "nothing is written without a save"
    );
    let err = r.stderr();
    assert!(
        err.contains("(1280x720, the drag preview)") || err.contains("(1280x720, a full frame)"),
        "{err}"
    );
    assert_eq!(load(&dragged).dimensions(), (1280, 720));
}

/// A 5,000-vertex polygon in edit mode: the handles cost at most 16 ms of UI a frame.
#[test]
fn a_5000_vertex_polygon_stays_responsive_in_edit_mode() {
    // Alone: the UI time is wall time, which other tests' windows lengthen.
    let x = Xvfb::start_alone();
    let dir = TempDir::new("edit-5000");
    let n = 5000;
    let mut ring: Vec<[f64; 2]> = (0..n)
        .map(|i| {
            let a = std::f64::consts::TAU * i as f64 / n as f64;
            edit_geo([50.0 + 45.0 * a.cos(), 40.0 + 35.0 * a.sin()])
        })
        .collect();
    ring.push(ring[0]);
    let v = serde_json::json!({"type": "Feature", "properties": {"param": 513},
        "geometry": {"type": "Polygon", "coordinates": [ring]}});
    let polygon = dir.0.join("round.geojson");
    save(&polygon, &v.to_string());
    let script = dir.0.join("s.txt");
    save(
        &script,
        &format!(
            "wait 1500\ndrag {} {}\nwait 1500\nkey ctrl+z\nkey P\nquit\n",
            edit_px([95.0, 40.0]),
            edit_px([98.0, 40.0])
        ),
    );
    // The panel shown too: the UI time counts it as a user sees it.
    let mut r = Running::spawn(edit_view(&x, &polygon, &script));
    r.wait_for("the quit", |r| r.stderr().contains("panel:"));
    let err = r.stderr();
    let line = err
        .lines()
        .find(|l| l.starts_with("panel:"))
        .expect("the panel's timing line");
    eprintln!("{line}");
    let mean: f64 = line
        .split("UI mean ")
        .nth(1)
        .and_then(|s| s.split(' ').next())
        .and_then(|s| s.parse().ok())
        .expect("UI mean N ms");
    assert!(
        mean <= 16.0,
        "UI {mean} ms a frame with 5,000 handles: {line}"
    );
}

/// The edit square's vertex `i` (0: the corner at the origin, counter-clockwise) as saved
/// in `file`'s second feature, in local meters.
fn saved_vertex(file: &Path, feature: usize, i: usize) -> [f64; 2] {
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(file).unwrap()).unwrap();
    let geometry = if v["type"] == "FeatureCollection" {
        &v["features"][feature]["geometry"]
    } else {
        &v["geometry"]
    };
    let p = &geometry["coordinates"][0][i];
    let (lon, lat) = (p[0].as_f64().unwrap(), p[1].as_f64().unwrap());
    let k = EDIT_ORIGIN[1].to_radians().cos();
    [
        (lon - EDIT_ORIGIN[0]) * k * M_PER_DEG,
        (lat - EDIT_ORIGIN[1]) * M_PER_DEG,
    ]
}

fn near(got: [f64; 2], want: [f64; 2], tol: f64) -> bool {
    (got[0] - want[0]).abs() <= tol && (got[1] - want[1]).abs() <= tol
}

/// The quit dialog's buttons are pressed by the script as a user presses them: Cancel
/// closes it (the view takes the next drag again), then "Quit without saving" ends the
/// program without writing.
#[test]
fn the_quit_dialog_cancels_then_quits_without_saving_when_its_buttons_are_clicked() {
    let x = Xvfb::start();
    let dir = TempDir::new("edit-quit-buttons");
    let polygon = edit_polygon(&dir.0);
    let before = std::fs::read(&polygon).unwrap();
    let script = dir.0.join("quit.txt");
    save(
        &script,
        &format!(
            "drag {} {}\nquit\nclick \"Cancel\"\ndrag {} {}\nquit\nclick \"Quit without saving\"\n",
            edit_px([100.0, 80.0]),
            edit_px([95.0, 70.0]),
            edit_px([0.0, 80.0]),
            edit_px([5.0, 70.0]),
        ),
    );
    let mut view = edit_view(&x, &polygon, &script);
    view.arg("--no-panel");
    let mut r = Running::spawn(view);
    let status = r.wait_exit();
    let err = r.stderr();
    assert!(status.success(), "{status}: {err}");
    assert_eq!(
        err.matches("unsaved edits: asking before quitting").count(),
        2,
        "{err}"
    );
    assert!(err.contains("edit: not quitting; the edits stay"), "{err}");
    // The drag after Cancel reached the view: the dialog was gone.
    assert!(err.matches("edit to frame").count() >= 2, "{err}");
    assert_eq!(
        std::fs::read(&polygon).unwrap(),
        before,
        "quitting without saving writes nothing"
    );
}

/// A script presses the edit window's "Save as GeoJSON" and the side panel's edit mode
/// checkbox: the shape is written to the path the window shows, and edit mode goes off.
#[test]
fn a_script_presses_the_edit_windows_and_the_panels_buttons() {
    let x = Xvfb::start();
    let dir = TempDir::new("edit-panel-buttons");
    let polygon = edit_polygon(&dir.0);
    let script = dir.0.join("buttons.txt");
    save(
        &script,
        &format!(
            "drag {} {}\nclick \"Save as GeoJSON\"\nclick \"edit mode (P)\"\nquit\n",
            edit_px([100.0, 80.0]),
            edit_px([95.02, 69.97]),
        ),
    );
    // The side panel shown.
    let mut r = Running::spawn(edit_view(&x, &polygon, &script));
    let status = r.wait_exit();
    let err = r.stderr();
    assert!(status.success(), "{status}: {err}");
    let saved = dir.0.join("lakeside-edited.geojson");
    assert!(err.contains("saved "), "{err}");
    let v = saved_vertex(&saved, 0, 2);
    assert!(near(v, [95.0, 70.0], 1e-6), "the moved vertex: {v:?}");
    assert!(err.contains("edit mode off"), "the panel's checkbox: {err}");
}

/// A save that fails (a folder where "Save as GeoJSON" writes: it cannot be replaced by a
/// file, even as root) says so in the edit window, and the edits stay: quitting asks.
#[test]
fn a_failing_save_is_an_error_in_the_edit_window_and_the_edits_stay() {
    let x = Xvfb::start();
    let dir = TempDir::new("edit-save-fails");
    let polygon = edit_polygon(&dir.0);
    let before = std::fs::read(&polygon).unwrap();
    let blocker = dir.0.join("lakeside-edited.geojson");
    std::fs::create_dir_all(&blocker).unwrap();
    std::fs::write(blocker.join("keep"), "a folder, not a file").unwrap();
    let shot = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("edit-save-fails.png");
    let script = dir.0.join("fail.txt");
    save(
        &script,
        &format!(
            "drag {} {}\nclick \"Save as GeoJSON\"\nexpect \"not saved\"\nshot {}\n\
             quit\nclick \"Quit without saving\"\n",
            edit_px([100.0, 80.0]),
            edit_px([95.0, 70.0]),
            shot.display()
        ),
    );
    let mut view = edit_view(&x, &polygon, &script);
    view.args(["--no-panel", "--screenshot-panel"]);
    let mut r = Running::spawn(view);
    let status = r.wait_exit();
    let err = r.stderr();
    assert!(status.success(), "{status}: {err}");
    assert!(err.contains("agview: error: saving"), "{err}");
    assert!(
        err.contains("found `not saved`"),
        "shown in the window: {err}"
    );
    assert!(
        err.contains("unsaved edits: asking before quitting"),
        "the edits stay: {err}"
    );
    assert!(blocker.join("keep").is_file());
    assert_eq!(std::fs::read(&polygon).unwrap(), before);
    eprintln!("the window after the failed save: {}", shot.display());
}

/// The shape's file changed by another program while edits are unsaved: the viewer asks.
/// "Keep my edits" keeps them (the change is not loaded); on the next change "Reload it"
/// drops them and shows the file as it is now.
#[test]
fn a_file_changed_on_disk_during_edits_asks_before_reloading() {
    let x = Xvfb::start();
    let dir = TempDir::new("edit-reload-ask");
    let polygon = edit_polygon(&dir.0);
    let script = dir.0.join("reload.txt");
    save(
        &script,
        &format!(
            "drag {} {}\nclick \"Keep my edits\"\nclick \"Reload it (drop my edits)\"\nquit\n",
            edit_px([100.0, 80.0]),
            edit_px([95.0, 70.0]),
        ),
    );
    let dump = dir.0.join("scene.json");
    let mut view = edit_view(&x, &polygon, &script);
    view.arg("--no-panel").arg("--dump-scene").arg(&dump);
    let mut r = Running::spawn(view);
    let text = std::fs::read_to_string(&polygon).unwrap();
    r.wait_for("the drag's layout", |r| {
        r.stderr().contains("edit to frame")
    });
    save(
        &polygon,
        &text.replace("\"the block\"", "\"the block, renamed\""),
    );
    r.wait_for("the first question and its answer", |r| {
        r.stderr().contains("edit: the edits stay")
    });
    let changed = text.replace("\"param\": 513", "\"param\": 769");
    assert_ne!(changed, text);
    save(&polygon, &changed);
    let status = r.wait_exit();
    let err = r.stderr();
    assert!(status.success(), "{status}: {err}");
    assert_eq!(
        err.matches("changed on disk while edits are unsaved: asking")
            .count(),
        2,
        "{err}"
    );
    assert!(err.contains("reloaded"), "{err}");
    assert_eq!(
        std::fs::read_to_string(&polygon).unwrap(),
        changed,
        "a reload writes nothing"
    );
    let mut layout = agview();
    layout
        .arg("layout")
        .arg(sample("autogen/lakeside.ags"))
        .arg("--polygon")
        .arg(&polygon)
        .arg("--json");
    let out = layout.output().unwrap();
    assert!(out.status.success());
    let fresh: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let shown: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&dump).unwrap()).unwrap();
    assert_eq!(fresh, shown, "the viewer shows the file as it is now");
}

/// `xdotool`, which the real-input test drives the window with; a machine without it
/// fails the test with how to install it.
fn xdotool(x: &Xvfb, args: &[&str]) -> String {
    let out = Command::new("xdotool")
        .args(args)
        .env("DISPLAY", &x.display)
        .output()
        .unwrap_or_else(|e| {
            panic!(
                "the real-input test needs xdotool, which could not be started ({e}); \
                 install it with `apt-get install xdotool` (CI's .ci/run does)"
            )
        });
    assert!(
        out.status.success(),
        "xdotool {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// Real X input, not the script: xdotool presses the mouse on a vertex in the window,
/// drags it and lets go, then presses Shift+F12 (a screenshot with the overlay) and
/// Ctrl+S. The saved vertex is where the pointer let go, within the 0.1 m snap and a
/// pixel; the screenshots before and after are kept in the test's temporary folder under
/// `target/` to be looked at.
#[test]
#[cfg_attr(
    windows,
    ignore = "xdotool is a Linux program: under Wine the window takes no XTEST input from it"
)]
fn a_real_drag_in_the_window_moves_a_vertex() {
    let x = Xvfb::start();
    xdotool(&x, &["version"]);
    let dir = TempDir::new("edit-real-input");
    let polygon = edit_polygon(&dir.0);
    let shots = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("viewer-real-input");
    let _ = std::fs::remove_dir_all(&shots);
    std::fs::create_dir_all(&shots).unwrap();
    let mut view = x.agview();
    view.arg("view")
        .arg(sample("autogen/lakeside.ags"))
        .arg("--polygon")
        .arg(&polygon)
        .args(["--edit", "--no-panel", "--size", "1280x720"])
        .arg(format!("--camera={EDIT_CAMERA}"))
        .arg("--screenshot-dir")
        .arg(&shots);
    let mut r = Running::spawn(view);
    r.wait_for("the first frame", |r| {
        r.stderr().contains("first frame after")
    });
    let pid = r.child.id().to_string();
    let start = Instant::now();
    let window = loop {
        let out = Command::new("xdotool")
            .args(["search", "--pid", &pid])
            .env("DISPLAY", &x.display)
            .output()
            .expect("xdotool");
        if let Some(w) = String::from_utf8_lossy(&out.stdout).lines().last() {
            break w.trim().to_string();
        }
        assert!(
            start.elapsed() < STEP,
            "no window of pid {pid} on {}",
            x.display
        );
        std::thread::sleep(Duration::from_millis(100));
    };
    let px = |p: [f64; 2]| {
        let per_m = 360.0 / (150.0 * 22.5f64.to_radians().tan());
        (
            (640.0 + (p[0] - 50.0) * per_m).round(),
            (360.0 - (p[1] - 40.0) * per_m).round(),
            per_m,
        )
    };
    let (x0, y0, _) = px([100.0, 80.0]);
    let (x1, y1, _) = px([96.0, 75.0]);
    let (x2, y2, per_m) = px([92.0, 71.0]);
    let (a, b, c, d, e, f) = (
        x0.to_string(),
        y0.to_string(),
        x1.to_string(),
        y1.to_string(),
        x2.to_string(),
        y2.to_string(),
    );
    // With no window manager nothing gives the window the keyboard: winit takes keys
    // only once the window has the input focus.
    xdotool(&x, &["windowfocus", &window]);
    xdotool(&x, &["mousemove", "--window", &window, "640", "360"]);
    let shots_written = |n: usize| move |r: &Running| r.stderr().matches("\nwrote ").count() >= n;
    xdotool(&x, &["key", "shift+F12"]);
    r.wait_for("the screenshot before", shots_written(1));
    #[rustfmt::skip]
    xdotool(&x, &[
        "mousemove", "--window", &window, &a, &b, "sleep", "0.3",
        "mousedown", "1", "sleep", "0.2",
        "mousemove", "--window", &window, &c, &d, "sleep", "0.2",
        "mousemove", "--window", &window, &e, &f, "sleep", "0.2",
        "mouseup", "1",
    ]);
    r.wait_for("the drag's layout", |r| {
        r.stderr().contains("edit to frame")
    });
    xdotool(&x, &["mousemove", "--window", &window, "640", "360"]);
    xdotool(&x, &["key", "shift+F12"]);
    r.wait_for("the screenshot after", shots_written(2));
    xdotool(&x, &["key", "ctrl+s"]);
    r.wait_for("the save", |r| {
        let e = r.stderr();
        e.contains("\nsaved ") || e.contains("error: saving")
    });
    let err = r.stderr();
    assert!(!err.contains("error: saving"), "{err}");
    // Where the pointer let go, in meters: the vertex is there within the snap and a pixel.
    let want = [50.0 + (x2 - 640.0) / per_m, 40.0 - (y2 - 360.0) / per_m];
    let got = saved_vertex(&polygon, 1, 2);
    assert!(
        near(got, want, 0.05 + 1.0 / per_m),
        "the dragged vertex is at {got:?}, the pointer let go at {want:?}; stderr:\n{err}"
    );
    for (i, p) in [(0, [0.0, 0.0]), (1, [100.0, 0.0]), (3, [0.0, 80.0])] {
        let v = saved_vertex(&polygon, 1, i);
        assert!(near(v, p, 1e-6), "vertex {i} stays: {v:?}");
    }
    let pngs: Vec<PathBuf> = err
        .lines()
        .filter_map(|l| l.strip_prefix("wrote "))
        .map(PathBuf::from)
        .collect();
    assert_eq!(pngs.len(), 2, "{err}");
    assert_changed(&pngs[0], &pngs[1]);
    eprintln!("screenshots before and after: {pngs:?}");
}

/// A small package as X-Plane lays one out, with its own art: a draped polygon (`.pol`)
/// and its texture, and a DSF text tile `Earth nav data/+40+000/+47+008.txt` placing it
/// twice. Its first feature's first point is [`EDIT_ORIGIN`], so the document's frame is
/// the edit tests' and [`edit_px`] finds its vertices. The tile's text and path.
fn dsf_package(dir: &Path) -> (String, PathBuf) {
    let root = dir.join("My Town");
    std::fs::create_dir_all(root.join("ground")).unwrap();
    image::RgbaImage::from_pixel(8, 8, image::Rgba([96, 128, 72, 255]))
        .save(root.join("ground/grass.png"))
        .unwrap();
    put(
        &root.join("ground/grass.pol"),
        "A\n850\nDRAPED_POLYGON\n\nTEXTURE grass.png\nSCALE 25 25\n",
    );
    let winding = |pts: &[[f64; 2]]| -> String {
        pts.iter()
            .map(|p| {
                let g = edit_geo(*p);
                format!("POLYGON_POINT {:.9} {:.9}\n", g[0], g[1])
            })
            .collect()
    };
    let text = format!(
        "I\n800\nDSF2TEXT\n\n# two lawns\nPROPERTY sim/west 8\nPROPERTY sim/east 9\n\
         PROPERTY sim/south 47\nPROPERTY sim/north 48\nPOLYGON_DEF ground/grass.pol\n\n\
         # the west lawn: 40 x 30 m\nBEGIN_POLYGON 0 0 2\nBEGIN_WINDING\n{}END_WINDING\nEND_POLYGON\n\n\
         # the east lawn, its texture turned 45 degrees\nBEGIN_POLYGON 0 45 2\nBEGIN_WINDING\n{}END_WINDING\nEND_POLYGON\n",
        winding(&[[0.0, 0.0], [40.0, 0.0], [40.0, 30.0], [0.0, 30.0]]),
        winding(&[[60.0, 0.0], [100.0, 0.0], [100.0, 30.0], [60.0, 30.0]]),
    );
    let dsf = root.join("Earth nav data/+40+000/+47+008.txt");
    put(&dsf, &text);
    (text, dsf)
}

/// Inside a document: a click in edit mode picks the west lawn, a drag moves its
/// north-east vertex, `Ctrl+S` saves. The DSF text changes on that one point's line, which
/// holds the new vertex; every other line keeps its bytes.
#[test]
fn a_scripted_edit_of_a_feature_in_a_dsf_package_changes_only_its_lines() {
    let x = Xvfb::start();
    let dir = TempDir::new("edit-dsf-feature");
    let (before, dsf) = dsf_package(&dir.0);
    let script = dir.0.join("edit.txt");
    save(
        &script,
        &format!(
            "click {}\ndrag {} {}\nkey ctrl+s\nquit\n",
            edit_px([20.0, 15.0]),
            edit_px([40.0, 30.0]),
            edit_px([45.03, 34.98]),
        ),
    );
    let mut view = x.agview();
    view.arg("view")
        .arg(&dsf)
        .args(["--edit", "--no-panel", "--size", "1280x720"])
        .arg(format!("--camera={EDIT_CAMERA}"))
        .arg("--script")
        .arg(&script);
    let mut r = Running::spawn(view);
    let status = r.wait_exit();
    let err = r.stderr();
    assert!(status.success(), "{status}: {err}");
    assert!(err.contains("edit mode: picked feature 0"), "{err}");
    assert!(err.contains("edit to frame"), "{err}");
    assert!(err.contains("\nsaved "), "{err}");

    let after = std::fs::read_to_string(&dsf).unwrap();
    let (old, new): (Vec<&str>, Vec<&str>) = (before.lines().collect(), after.lines().collect());
    assert_eq!(old.len(), new.len(), "{after}");
    let changed: Vec<usize> = (0..old.len()).filter(|&i| old[i] != new[i]).collect();
    let moved = old
        .iter()
        .position(|l| l.starts_with("POLYGON_POINT"))
        .expect("a point")
        + 2;
    assert_eq!(
        changed,
        vec![moved],
        "only the moved point's line:\n{after}"
    );
    let got: Vec<f64> = new[moved]
        .split_whitespace()
        .skip(1)
        .map(|v| v.parse().unwrap())
        .collect();
    let want = edit_geo([45.0, 35.0]);
    assert!(
        (got[0] - want[0]).abs() < 1e-9 && (got[1] - want[1]).abs() < 1e-9,
        "the vertex is at {got:?}, expected {want:?}"
    );
}
