//! A scenery package whose `library.txt` exports other forests, objects and an autogen
//! string in each season, written as a real one is: `library.txt`, `forests/`, `objects/`,
//! `autogen/`, `textures/` and a DSF text in `Earth nav data/+40+000/` placing them.
//! Shared by `tests/seasons.rs` (the resolved paths) and `tests/render.rs` (a golden image
//! per season), each including this file with `#[path]`.

#![allow(dead_code)]

use std::path::{Path, PathBuf};

/// The package's `library.txt`: tab- and space-separated fields, a comma list, a real path
/// with a space, `EXPORT_EXCLUDE_SEASON` over plain exports.
pub const LIBRARY: &str = "A\n1200\nLIBRARY\n\n\
# the forest: one per season\n\
EXPORT_SEASON spr lib/seasons/trees.for forests/spring.for\n\
EXPORT_SEASON sum\tlib/seasons/trees.for\t\tforests/summer.for\n\
EXPORT_SEASON fal lib/seasons/trees.for forests/autumn.for\n\
EXPORT_SEASON win lib/seasons/trees.for forests/winter.for\n\
# the hut: snow on its roof in winter only\n\
EXPORT lib/seasons/hut.obj objects/hut.obj\n\
EXPORT_EXCLUDE_SEASON win lib/seasons/hut.obj objects/hut snow.obj\n\
# the string of garden plots: bare in fall and winter\n\
EXPORT lib/seasons/plots.ags autogen/plots.ags\n\
EXPORT_EXCLUDE_SEASON fal,win lib/seasons/plots.ags autogen/plots_bare.ags\n";

/// What each definition resolves to in each season (`spr`, `sum`, `fal`, `win`), as paths
/// in the package.
pub const EXPECTED: [(&str, [&str; 4]); 3] = [
    (
        "lib/seasons/trees.for",
        [
            "forests/spring.for",
            "forests/summer.for",
            "forests/autumn.for",
            "forests/winter.for",
        ],
    ),
    (
        "lib/seasons/hut.obj",
        [
            "objects/hut.obj",
            "objects/hut.obj",
            "objects/hut.obj",
            "objects/hut snow.obj",
        ],
    ),
    (
        "lib/seasons/plots.ags",
        [
            "autogen/plots.ags",
            "autogen/plots.ags",
            "autogen/plots_bare.ags",
            "autogen/plots_bare.ags",
        ],
    ),
];

fn write(path: &Path, bytes: &[u8]) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, bytes).unwrap();
}

/// A solid `rgb` PNG; a tree sprite (opaque crown, trunk, clear elsewhere) when `tree`.
fn png(path: &Path, rgb: [u8; 3], tree: bool) {
    let img = image::RgbaImage::from_fn(64, 64, |x, y| {
        let (dx, dy) = (x as f32 - 31.5, y as f32 - 24.0);
        let crown = dx * dx + dy * dy < 22.0 * 22.0;
        let trunk = (28..36).contains(&x) && y >= 40;
        match (tree, crown, trunk) {
            (false, ..) | (true, true, _) => image::Rgba([rgb[0], rgb[1], rgb[2], 255]),
            (true, false, true) => image::Rgba([90, 60, 30, 255]),
            _ => image::Rgba([0, 0, 0, 0]),
        }
    });
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    img.save(path).unwrap();
}

/// An OBJ8 box `w`×`d`×`h` meters in one colour of `texture` (every face samples its
/// middle), drawn from both sides.
fn box_obj(texture: &str, w: f32, d: f32, h: f32) -> String {
    let (x, z) = (w / 2.0, d / 2.0);
    let faces: [([[f32; 3]; 4], [f32; 3]); 5] = [
        (
            [[-x, 0.0, z], [x, 0.0, z], [x, h, z], [-x, h, z]],
            [0.0, 0.0, 1.0],
        ),
        (
            [[x, 0.0, -z], [-x, 0.0, -z], [-x, h, -z], [x, h, -z]],
            [0.0, 0.0, -1.0],
        ),
        (
            [[x, 0.0, z], [x, 0.0, -z], [x, h, -z], [x, h, z]],
            [1.0, 0.0, 0.0],
        ),
        (
            [[-x, 0.0, -z], [-x, 0.0, z], [-x, h, z], [-x, h, -z]],
            [-1.0, 0.0, 0.0],
        ),
        (
            [[-x, h, z], [x, h, z], [x, h, -z], [-x, h, -z]],
            [0.0, 1.0, 0.0],
        ),
    ];
    let mut src = format!("A\n800\nOBJ\n\nTEXTURE {texture}\nPOINT_COUNTS 20 0 0 30\n");
    for (corners, n) in faces {
        for p in corners {
            src += &format!(
                "VT {} {} {} {} {} {} 0.5 0.5\n",
                p[0], p[1], p[2], n[0], n[1], n[2]
            );
        }
    }
    for f in 0..5u32 {
        let b = f * 4;
        for i in [b, b + 1, b + 2, b, b + 2, b + 3] {
            src += &format!("IDX {i}\n");
        }
    }
    src += "ATTR_no_cull\nTRIS 0 30\n";
    src
}

fn forest(texture: &str) -> String {
    format!(
        "A\n800\nFOREST\nTEXTURE ../textures/{texture}\nSCALE_X 64\nSCALE_Y 64\nSPACING 7 7\nRANDOM 2 2\n\
TREE 0 0 64 64 32 100 9 12 2 0 tree\n"
    )
}

/// A string of garden plots along its polygon's edges, each with a hut.
fn plots(ground: &str) -> String {
    format!(
        "A\n1000\nAG_STRING\nTEXTURE ../textures/{ground}\nTEXTURE_SCALE 64 64\nTEXTURE_WIDTH 16\n\
OBJECT lib/seasons/hut.obj\nTILE_ID 1\nTILE 0 0 64 64\nOBJ_DRAPED 32 40 180 0\nSPELLING 1\n"
    )
}

/// Writes the package in `dir` (`dir/Seasons Pack`) and returns its folder and its DSF.
pub fn write_package(dir: &Path) -> (PathBuf, PathBuf) {
    let pkg = dir.join("Seasons Pack");
    write(&pkg.join("library.txt"), LIBRARY.as_bytes());
    for (season, file, rgb) in [
        ("spr", "spring", [235, 140, 200]),
        ("sum", "summer", [40, 150, 40]),
        ("fal", "autumn", [230, 120, 20]),
        ("win", "winter", [245, 245, 250]),
    ] {
        png(&pkg.join(format!("textures/tree_{season}.png")), rgb, true);
        write(
            &pkg.join(format!("forests/{file}.for")),
            forest(&format!("tree_{season}.png")).as_bytes(),
        );
    }
    png(&pkg.join("textures/hut.png"), [150, 40, 30], false);
    png(&pkg.join("textures/hut_snow.png"), [240, 240, 255], false);
    png(&pkg.join("textures/plots.png"), [90, 170, 60], false);
    png(&pkg.join("textures/plots_bare.png"), [120, 90, 60], false);
    write(
        &pkg.join("objects/hut.obj"),
        box_obj("../textures/hut.png", 6.0, 8.0, 5.0).as_bytes(),
    );
    write(
        &pkg.join("objects/hut snow.obj"),
        box_obj("../textures/hut_snow.png", 6.0, 8.0, 5.0).as_bytes(),
    );
    write(
        &pkg.join("autogen/plots.ags"),
        plots("plots.png").as_bytes(),
    );
    write(
        &pkg.join("autogen/plots_bare.ags"),
        plots("plots_bare.png").as_bytes(),
    );
    let dsf = pkg.join("Earth nav data/+40+000/+47+008.txt");
    write(
        &dsf,
        b"I\n800\nDSF2TEXT\n\
PROPERTY sim/west 8\nPROPERTY sim/east 9\nPROPERTY sim/north 48\nPROPERTY sim/south 47\n\
OBJECT_DEF lib/seasons/hut.obj\n\
POLYGON_DEF lib/seasons/trees.for\n\
POLYGON_DEF lib/seasons/plots.ags\n\
OBJECT 0 8.00050 47.00040 30\n\
BEGIN_POLYGON 0 255 2\nBEGIN_WINDING\n\
POLYGON_POINT 8.00000 47.00010\nPOLYGON_POINT 8.00040 47.00010\n\
POLYGON_POINT 8.00040 47.00070\nPOLYGON_POINT 8.00000 47.00070\n\
END_WINDING\nEND_POLYGON\n\
BEGIN_POLYGON 1 1 2\nBEGIN_WINDING\n\
POLYGON_POINT 8.00070 47.00010\nPOLYGON_POINT 8.00110 47.00010\n\
POLYGON_POINT 8.00110 47.00070\nPOLYGON_POINT 8.00070 47.00070\n\
POLYGON_POINT 8.00070 47.00010\n\
END_WINDING\nEND_POLYGON\n",
    );
    (pkg, dsf)
}
