//! X-Plane 12's seasons from the command line: `--season` on every command that resolves a
//! name, the season the JSON names, and each feature resolved in it, on a package whose
//! `library.txt` exports other forests, objects and autogen strings per season
//! (`tests/common/seasons.rs`).

mod common;
#[path = "common/seasons.rs"]
mod seasons_package;

use common::{agview, slashed, Tmp};
use seasons_package::{write_package, EXPECTED};

const SEASONS: [&str; 4] = ["spr", "sum", "fal", "win"];

fn json(out: &str) -> serde_json::Value {
    serde_json::from_str(out).unwrap_or_else(|e| panic!("{e}: {out}"))
}

/// The files a layout's features resolved to, by definition.
fn resolved(v: &serde_json::Value) -> Vec<(String, String)> {
    v["features"]
        .as_array()
        .expect("features")
        .iter()
        .map(|f| {
            (
                f["asset"].as_str().unwrap_or("").to_string(),
                slashed(f["resolved"].as_str().unwrap_or("(none)")),
            )
        })
        .collect()
}

#[test]
fn layout_resolves_every_feature_in_the_season_asked_for() {
    let tmp = Tmp::new("seasons-layout");
    let (pkg, dsf) = write_package(&tmp.0);
    let dsf = dsf.display().to_string();
    let pkg = slashed(pkg.display().to_string());
    for (i, season) in SEASONS.iter().enumerate() {
        let (code, out, err) = agview(&tmp.0, &["layout", &dsf, "--json", "--season", season]);
        assert_eq!(code, 0, "{err}");
        assert!(
            !err.contains("warning") && !err.contains("error"),
            "{season}: {err}"
        );
        let v = json(&out);
        assert_eq!(v["season"], *season, "the JSON names the season");
        let got = resolved(&v);
        assert_eq!(got.len(), 3, "{got:?}");
        for (name, want) in EXPECTED {
            let (_, file) = got
                .iter()
                .find(|(a, _)| a == name)
                .unwrap_or_else(|| panic!("{name} in {got:?}"));
            assert_eq!(*file, format!("{pkg}/{}", want[i]), "{season}: {name}");
        }
        // The hut the garden plots place resolves in the same season.
        let meshes: Vec<String> = v["meshes"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|m| m["resolved"].as_str().map(slashed))
            .collect();
        let hut = if *season == "win" {
            "objects/hut snow.obj"
        } else {
            "objects/hut.obj"
        };
        assert!(
            meshes.iter().all(|m| m.ends_with(hut)) && !meshes.is_empty(),
            "{season}: {meshes:?}"
        );
        // The summary names the season too.
        let (_, text, _) = agview(&tmp.0, &["layout", &dsf, "--season", season]);
        assert!(text.contains(&format!("season {season}")), "{text}");
    }
    // Summer by default.
    let (_, out, _) = agview(&tmp.0, &["layout", &dsf, "--json"]);
    assert_eq!(json(&out)["season"], "sum");
}

#[test]
fn every_command_that_resolves_a_name_takes_season() {
    let tmp = Tmp::new("seasons-flags");
    let (pkg, dsf) = write_package(&tmp.0);
    let dsf = dsf.display().to_string();
    for cmd in ["layout", "render", "view", "report", "check", "sweep"] {
        let (code, help, err) = agview(&tmp.0, &[cmd, "--help"]);
        assert_eq!(code, 0, "{cmd}: {err}");
        assert!(
            help.contains("--season <SEASON>") && help.contains("[default: sum]"),
            "{cmd} --help: {help}"
        );
    }
    let (code, _, err) = agview(&tmp.0, &["layout", &dsf, "--season", "winter"]);
    assert_eq!(code, 2, "a season that is not one is a usage error: {err}");
    assert!(err.contains("spr, sum, fal, win"), "{err}");
    // The package checks clean in every season: each file exists, each path has a file in
    // every season.
    for season in SEASONS {
        let (code, _, err) = agview(
            &tmp.0,
            &["check", &pkg.display().to_string(), "--season", season],
        );
        assert_eq!(code, 0, "{err}");
        assert!(err.contains("0 error(s), 0 warning(s)"), "{season}: {err}");
        assert!(!err.contains("note"), "{season}: {err}");
    }
}

#[test]
fn check_names_the_season_a_missing_file_leaves_without_art() {
    let tmp = Tmp::new("seasons-check");
    let (pkg, _) = write_package(&tmp.0);
    std::fs::remove_file(pkg.join("forests/autumn.for")).unwrap();
    let lib = pkg.join("library.txt");
    let mut text = std::fs::read_to_string(&lib).unwrap();
    text.push_str("EXPORT_SEASON win,spr lib/seasons/snowman.obj objects/hut.obj\n");
    std::fs::write(&lib, text).unwrap();
    let (code, _, err) = agview(&tmp.0, &["check", &lib.display().to_string()]);
    assert_eq!(code, 0, "{err}");
    assert!(
        err.contains(
            "library.txt:8: warning: EXPORT_SEASON `lib/seasons/trees.for`: file `forests/autumn.for` not found; X-Plane has no file for it here in fal"
        ),
        "{err}"
    );
    assert!(
        err.contains("library.txt:16: note: `lib/seasons/snowman.obj` is exported in spr, win only: in sum, fal it resolves only through a lower-priority package or EXPORT_BACKUP"),
        "{err}"
    );
    assert!(err.contains("1 warning(s), 1 note(s)"), "{err}");
}
