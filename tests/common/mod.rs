//! What the command-line test files share: a temporary folder per test, and running the
//! `agview` binary from a folder of the test's choosing.

// Each test file uses what it needs of these.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::Command;

/// A fresh folder for one test, removed when the test ends.
pub struct Tmp(pub PathBuf);

impl Tmp {
    pub fn new(name: &str) -> Tmp {
        let d = std::env::temp_dir().join(format!("agview-test-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        Tmp(d)
    }
}

impl Drop for Tmp {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// `agview ARGS` run in `cwd`, with no X-Plane install from the environment: exit code,
/// stdout, stderr.
pub fn agview(cwd: &Path, args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_agview"))
        .args(args)
        .current_dir(cwd)
        .env_remove("XPLANE_ROOT")
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// `agview report NEW --against OLD --out review --size SIZE --closeups N` run in `cwd`,
/// with [`agview`]; its report is `cwd/review`.
pub fn report_against(
    cwd: &Path,
    new: &str,
    old: &str,
    size: &str,
    closeups: usize,
) -> (i32, String, String) {
    let n = closeups.to_string();
    agview(
        cwd,
        &[
            "report",
            new,
            "--against",
            old,
            "--out",
            "review",
            "--size",
            size,
            "--closeups",
            &n,
        ],
    )
}

/// `text` with Windows' path separator read as Linux's, to compare what a Windows run
/// prints with what Linux prints (on Linux it is unchanged: there a backslash is part of a
/// name, as in a DSF's `objects\shed.obj`).
pub fn slashed(text: impl AsRef<str>) -> String {
    if cfg!(windows) {
        text.as_ref().replace('\\', "/")
    } else {
        text.as_ref().to_string()
    }
}

// ------------------------------------------------------------- XP12 facade packages

fn write_file(path: &Path, bytes: impl AsRef<[u8]>) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, bytes).unwrap();
}

/// A 64 × 64 PNG whose four quarters (t up: the image's lower half is t < 0.5) have the
/// colours `[lower left, lower right, upper left, upper right]`.
pub fn quarters_png(path: &Path, c: [[u8; 3]; 4]) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    image::RgbaImage::from_fn(64, 64, |x, y| {
        let k = usize::from(x >= 32) + if y >= 32 { 0 } else { 2 };
        image::Rgba([c[k][0], c[k][1], c[k][2], 255])
    })
    .save(path)
    .unwrap();
}

/// Hangar door (dark red), walls (light grey), roof (slate blue).
pub const HANGAR_COLOURS: [[u8; 3]; 4] =
    [[150, 30, 30], [205, 205, 200], [70, 90, 130], [70, 90, 130]];
/// Jetway tunnel (light grey, the lower half) and cabin (dark blue glass, the upper half).
pub const JETWAY_COLOURS: [[u8; 3]; 4] = [
    [210, 210, 210],
    [210, 210, 210],
    [40, 60, 140],
    [40, 60, 140],
];

/// A package `Hangars` in `dir` as an author publishes one: `objects/hangar.fac` (a 2-point
/// axial hangar 12 m wide, `format::facade::test_hangar_fac`) with its texture in
/// `textures/`, and `Earth nav data/+47+008/+47+008.txt` placing it twice, each with its two
/// points running north: 20 m long at 8.5° E and 40 m long 40 m east of it. With
/// `three_points`, a third hangar placed with three points (its front, its back and a third
/// point 25 m east). Returns the DSF.
pub fn hangar_package(dir: &Path, three_points: bool) -> PathBuf {
    let root = dir.join("Hangars");
    write_file(
        &root.join("objects/hangar.fac"),
        agview::format::facade::test_hangar_fac("../textures/hangar.png"),
    );
    quarters_png(&root.join("textures/hangar.png"), HANGAR_COLOURS);
    // Meters to degrees at 47.5° N, as agview projects them.
    let lat_m = 1.0 / agview::input::METERS_PER_DEGREE;
    let lon_m = lat_m / 47.5f64.to_radians().cos();
    let winding = |pts: &[[f64; 2]]| {
        let mut s = String::from("BEGIN_WINDING\n");
        for [e, n] in pts {
            s += &format!(
                "POLYGON_POINT {:.9} {:.9}\n",
                8.5 + e * lon_m,
                47.5 + n * lat_m
            );
        }
        s + "END_WINDING\n"
    };
    let mut dsf = String::from(
        "A\n800\nDSF2TEXT\nPROPERTY sim/west 8\nPROPERTY sim/south 47\nPROPERTY sim/east 9\n\
PROPERTY sim/north 48\nPOLYGON_DEF objects/hangar.fac\n",
    );
    let mut hangars = vec![
        vec![[0.0, 0.0], [0.0, 20.0]],
        vec![[40.0, 0.0], [40.0, 40.0]],
    ];
    if three_points {
        hangars.push(vec![[80.0, 0.0], [80.0, 20.0], [105.0, 20.0]]);
    }
    for h in &hangars {
        dsf += &format!("BEGIN_POLYGON 0 8 2\n{}END_POLYGON\n", winding(h));
    }
    let path = root.join("Earth nav data/+47+008/+47+008.txt");
    write_file(&path, dsf);
    path
}

/// A package `Gate` in `dir`: `objects/jetway.fac` (`format::facade::test_jetway_fac`, its
/// tunnel objects `jw_tunnel_0.obj` and `jw_tunnel_1.obj` beside it) with its texture, and
/// `Earth nav data/apt.dat`: an airport whose jetway (`1500`, size 1, tunnel parked 18 m
/// toward 60°, cab turned to 330°) names its tunnel object by a `1501` row, as WED writes a
/// custom jetway. With `default_too`, a second jetway of style 0 and no `1501`: the default
/// `Jetway_1_glass.fac`, which no library here exports. Returns the apt.dat.
pub fn jetway_package(dir: &Path, default_too: bool) -> PathBuf {
    let root = dir.join("Gate");
    write_file(
        &root.join("objects/jetway.fac"),
        agview::format::facade::test_jetway_fac("../textures/jetway.png"),
    );
    quarters_png(&root.join("textures/jetway.png"), JETWAY_COLOURS);
    let mut apt = String::from(
        "I\n1200 Generated by WorldEditor\n\n1 1500 0 0 XGAT Gate Field\n\
1500 47.50000000 8.50000000 90.0 0 1 60.0 18.0 330.0\n1501 objects/jw_tunnel_1.obj\n",
    );
    if default_too {
        apt += "1500 47.50020000 8.50000000 90.0 0 0 90.0 14.0 0.0\n";
    }
    apt += "99\n";
    let path = root.join("Earth nav data/apt.dat");
    write_file(&path, apt);
    path
}
