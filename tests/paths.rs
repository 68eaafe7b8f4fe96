//! A package named on the command line in the forms users' shells give: absolute and
//! relative, with `.` and `..`, from another folder; on Windows also with backslashes or
//! slashes, with a drive letter, as a `\\?\` long path, typed in another case than the
//! disk's, and from a current folder on another drive (Wine's `C:` temporary folder against
//! the `Z:` the repository is on). Each form lays out the same features, resolved to the
//! same files, with no warning.

use std::path::{Path, PathBuf};

mod common;
use common::{agview, slashed, Tmp};

fn write(path: &Path, bytes: impl AsRef<[u8]>) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, bytes).unwrap();
}

/// A package `Pkg` in `dir` with a hangar object and its texture, placed twice by a DSF
/// text tile: its root and the tile.
fn package(dir: &Path) -> (PathBuf, PathBuf) {
    let root = dir.join("Pkg");
    write(
        &root.join("objects/hangar.obj"),
        "A\n800\nOBJ\n\nTEXTURE ../textures/hangar.png\nPOINT_COUNTS 3 0 0 3\n\
VT 0 0 0 0 1 0 0 0\nVT 10 0 0 0 1 0 1 0\nVT 0 8 0 0 1 0 0 1\nIDX 0\nIDX 1\nIDX 2\nTRIS 0 3\n",
    );
    std::fs::create_dir_all(root.join("textures")).unwrap();
    image::RgbaImage::from_pixel(4, 4, image::Rgba([120, 120, 120, 255]))
        .save(root.join("textures/hangar.png"))
        .unwrap();
    let dsf = root.join("Earth nav data/+50+000/+50+000.txt");
    write(
        &dsf,
        "A\n800\nDSF2TEXT\nPROPERTY sim/west 0\nPROPERTY sim/south 50\nPROPERTY sim/east 1\n\
PROPERTY sim/north 51\nOBJECT_DEF objects/hangar.obj\n\
OBJECT 0 0.5 50.5 0\nOBJECT 0 0.5005 50.5 90\n",
    );
    (root, dsf)
}

/// Each feature's resolved file, from the package's folder on (`Pkg/objects/hangar.obj`),
/// with Linux's separators: what must not depend on how the package was named.
fn resolved(out: &str, what: &str) -> Vec<String> {
    let v: serde_json::Value =
        serde_json::from_str(out).unwrap_or_else(|e| panic!("{what}: {e}: {out}"));
    v["features"]
        .as_array()
        .unwrap_or_else(|| panic!("{what}: {out}"))
        .iter()
        .map(|f| {
            let r = slashed(f["resolved"].as_str().unwrap_or("(none)"));
            r.find("/Pkg/")
                .map_or(r.clone(), |at| r[at + 1..].to_string())
        })
        .collect()
}

#[test]
fn every_form_of_a_packages_path_lays_out_the_same_features() {
    let tmp = Tmp::new("path-forms");
    let (root, dsf) = package(&tmp.0);
    let elsewhere = tmp.0.join("elsewhere");
    std::fs::create_dir_all(&elsewhere).unwrap();
    let abs = dsf.display().to_string();
    let mut forms: Vec<(PathBuf, String)> = vec![
        (elsewhere.clone(), abs.clone()),
        (root.clone(), "Earth nav data/+50+000/+50+000.txt".into()),
        (
            elsewhere.clone(),
            "../Pkg/./Earth nav data/+50+000/+50+000.txt".into(),
        ),
    ];
    if cfg!(windows) {
        let back = abs.replace('/', "\\");
        forms.extend([
            (elsewhere.clone(), back.clone()),
            (elsewhere.clone(), abs.replace('\\', "/")),
            (elsewhere.clone(), format!("\\\\?\\{back}")),
            // Typed in another case than the disk's: found, and no reference warns of case.
            (
                elsewhere.clone(),
                back.replace("Pkg", "PKG").replace("Earth", "EARTH"),
            ),
            (
                elsewhere.clone(),
                "..\\Pkg\\Earth nav data\\+50+000\\+50+000.txt".into(),
            ),
            // The current folder on the repository's drive, the package on the temporary
            // folder's (under Wine, `Z:` and `C:`).
            (
                std::path::absolute(env!("CARGO_MANIFEST_DIR")).unwrap(),
                back,
            ),
        ]);
    }
    let want = vec!["Pkg/objects/hangar.obj".to_string(); 2];
    for (cwd, path) in &forms {
        let what = format!("{path} from {}", cwd.display());
        let (code, out, err) = agview(cwd, &["layout", path, "--json"]);
        assert_eq!(code, 0, "{what}: {err}");
        assert_eq!(resolved(&out, &what), want, "{what}: {err}");
        assert!(!err.contains("warning"), "{what}: {err}");
    }
}

/// The repository's sample package named by its absolute path from a current folder on
/// another drive (on Windows; elsewhere, from another folder) lays out as it does from the
/// repository itself: a document prints absolute paths, so the output is the same text.
#[test]
fn a_package_on_another_drive_than_the_current_folder_lays_out_the_same() {
    let repo = std::path::absolute(env!("CARGO_MANIFEST_DIR")).unwrap();
    let tmp = Tmp::new("other-drive");
    let town = repo
        .join("sample_scenery")
        .join("polygons")
        .join("town.txt");
    let (code, here, err) = agview(
        &repo,
        &["layout", "sample_scenery/polygons/town.txt", "--json"],
    );
    assert_eq!(code, 0, "{err}");
    let (code, there, err2) = agview(&tmp.0, &["layout", &town.display().to_string(), "--json"]);
    assert_eq!(code, 0, "{err2}");
    assert_eq!(here, there);
    assert_eq!(err, err2);
}

/// A path that names nothing, in Windows' form: a clear error naming it, exit 1, on every
/// system (on Linux it is a relative name that does not exist either).
#[test]
fn a_windows_path_that_does_not_exist_is_an_error_naming_it() {
    let tmp = Tmp::new("no-such-path");
    for cmd in ["layout", "check", "render"] {
        let mut args = vec![cmd, "C:\\nope\\x.agb"];
        if cmd == "render" {
            args.extend(["--out", "x.png"]);
        }
        let (code, out, err) = agview(&tmp.0, &args);
        assert_eq!(code, 1, "{cmd}: {out}{err}");
        let line = err.lines().find(|l| l.contains("error")).unwrap_or("");
        assert!(
            line.contains("C:\\nope\\x.agb") && line.contains("not found"),
            "{cmd}: {err}"
        );
        assert!(!err.contains("panicked"), "{cmd}: {err}");
    }
}
