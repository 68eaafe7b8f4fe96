//! `agview report --against`: a close-up of each change. A car removed from a parking row
//! among houses, too small to show in the overviews of a large package, has its own
//! close-up: old, new and the changed pixels, from one camera, listed in changes.json and
//! linked from the page's list of changes.

use std::path::{Path, PathBuf};

mod common;
use common::{report_against, Tmp};

fn sample() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("sample_scenery")
}

fn copy_into(root: &Path, files: &[&str]) {
    for f in files {
        let to = root.join(f);
        std::fs::create_dir_all(to.parent().unwrap()).unwrap();
        std::fs::copy(sample().join(f), to).unwrap();
    }
}

/// A package `Apron` in `dir/name` as an author publishes one: `objects/car.obj` and
/// `objects/house_large.obj` with their textures, and `Earth nav data/+47+008/+47+008.txt`
/// placing a row of six houses and, south of it, a parking row of twelve cars 5 m apart.
/// With `without_first_car`, the first car (the DSF's first feature, where its frame is
/// centred) is not placed. Returns the DSF.
fn apron(dir: &Path, name: &str, without_first_car: bool) -> PathBuf {
    let root = dir.join(name);
    copy_into(
        &root,
        &[
            "objects/car.obj",
            "objects/house_large.obj",
            "textures/car.dds",
            "textures/buildings.png",
        ],
    );
    let lat_m = 1.0 / agview::input::METERS_PER_DEGREE;
    let lon_m = lat_m / 47.5f64.to_radians().cos();
    let at = |e: f64, n: f64| format!("{:.9} {:.9}", 8.5 + e * lon_m, 47.5 + n * lat_m);
    let mut dsf = String::from(
        "I\n800\nDSF2TEXT\nPROPERTY sim/west 8\nPROPERTY sim/south 47\nPROPERTY sim/east 9\n\
PROPERTY sim/north 48\nOBJECT_DEF objects/car.obj\nOBJECT_DEF objects/house_large.obj\n",
    );
    for k in usize::from(without_first_car)..12 {
        dsf += &format!("OBJECT 0 {} 90.000000\n", at(5.0 * k as f64, 0.0));
    }
    for k in 0..6 {
        dsf += &format!("OBJECT 1 {} 0.000000\n", at(-10.0 + 18.0 * k as f64, 25.0));
    }
    let path = root.join("Earth nav data/+47+008/+47+008.txt");
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(&path, dsf).unwrap();
    path
}

#[test]
fn a_removed_car_gets_a_close_up_of_old_new_and_the_changed_pixels() {
    let tmp = Tmp::new("closeup-car");
    apron(&tmp.0, "old", false);
    apron(&tmp.0, "new", true);
    let dsf = "Earth nav data/+47+008/+47+008.txt";
    let (new, old) = (format!("new/{dsf}"), format!("old/{dsf}"));
    let (code, _, err) = report_against(&tmp.0, &new, &old, "320x180", 3);
    assert_eq!(code, 0, "{err}");
    let dir = tmp.0.join("review");
    let c: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("changes.json")).unwrap()).unwrap();
    let removed = c["removed"].as_array().unwrap();
    assert_eq!(removed.len(), 1, "{c}");
    assert_eq!(removed[0]["asset"], "objects/car.obj");
    assert_eq!(c["added"].as_array().unwrap().len(), 0, "{c}");
    assert_eq!(c["changed"].as_array().unwrap().len(), 0, "{c}");
    assert_eq!(c["unchanged"], 17, "{c}");

    // Its close-up: the car in the old render, gone in the new, and a part of the image
    // marked as changed (the car, not the whole frame).
    let shots = c["closeups"].as_array().unwrap();
    assert_eq!(shots.len(), 1, "{c}");
    let s = &shots[0];
    assert_eq!(
        (s["change"].as_str(), s["entry"].as_u64()),
        (Some("removed"), Some(0))
    );
    assert_eq!(s["asset"], "objects/car.obj");
    assert_eq!(s["source"], removed[0]["source"]);
    assert_eq!(c["closeups_left_out"], 0);
    let changed = s["changed_pixels"].as_u64().unwrap();
    assert!(changed > 100 && changed < 160 * 90 / 3, "{s}");
    let image = |k: &str| {
        image::open(dir.join(s[k].as_str().unwrap()))
            .unwrap()
            .to_rgba8()
    };
    let (old_img, new_img, diff) = (image("old"), image("new"), image("diff"));
    assert_eq!(diff.dimensions(), (160, 90));
    assert_ne!(old_img, new_img);
    let red = diff.pixels().filter(|p| p.0 == [255, 30, 30, 255]).count();
    assert_eq!(red as u64, changed);

    // The first feature went, so the old version's frame was centred elsewhere: the
    // overviews still line up (the rest of the package is not marked as changed).
    for v in c["views"].as_array().unwrap() {
        let n = v["changed_pixels"].as_u64().unwrap();
        assert!(n < 320 * 180 / 20, "{v}");
    }

    // The page links the removed car to its close-up, and shows the three images.
    let page = std::fs::read_to_string(dir.join("index.html")).unwrap();
    assert!(
        page.contains("<a href=\"#change-0\">close-up</a>"),
        "{page}"
    );
    assert!(page.contains("<div id=\"change-0\">"), "{page}");
    for k in ["old", "new", "diff"] {
        let src = format!("src=\"{}\"", s[k].as_str().unwrap());
        assert!(page.contains(&src), "{src}");
    }
    assert!(
        page.contains(&format!("data-changed-pixels=\"change-0\">{changed}<")),
        "{page}"
    );
    if let Ok(keep) = std::env::var("AGVIEW_KEEP_REPORT") {
        let _ = std::fs::remove_dir_all(&keep);
        std::fs::rename(&dir, keep).unwrap();
    }
}

#[test]
fn closeups_caps_the_changes_shown_and_the_page_says_how_many_are_left_out() {
    let tmp = Tmp::new("closeup-cap");
    apron(&tmp.0, "old", false);
    apron(&tmp.0, "new", true);
    let dsf = "Earth nav data/+47+008/+47+008.txt";
    let (new, old) = (format!("new/{dsf}"), format!("old/{dsf}"));
    let (code, _, err) = report_against(&tmp.0, &new, &old, "160x90", 0);
    assert_eq!(code, 0, "{err}");
    let dir = tmp.0.join("review");
    let c: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("changes.json")).unwrap()).unwrap();
    assert_eq!(c["closeups"].as_array().unwrap().len(), 0, "{c}");
    assert_eq!(c["closeups_left_out"], 1, "{c}");
    let page = std::fs::read_to_string(dir.join("index.html")).unwrap();
    assert!(
        page.contains("data-count=\"closeups-left-out\">1 more change(s) have no close-up"),
        "{page}"
    );
    assert!(!dir.join("img/change-0-diff.png").exists());
}
