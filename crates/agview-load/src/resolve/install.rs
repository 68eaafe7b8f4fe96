//! An X-Plane install's scenery packages in the order X-Plane ranks them: `Custom Scenery`
//! in `scenery_packs.ini` order (packs the file does not list first, alphabetically, as
//! X-Plane adds them; `SCENERY_PACK_DISABLED` ones skipped), then `Resources/default
//! scenery` alphabetically. Sources in `docs/spec-decisions.md`, "Library resolution".

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use crate::diag::Diagnostic;

use super::normalize;

/// The folder of an install's add-on packages.
pub(crate) const CUSTOM_SCENERY: &str = "Custom Scenery";
/// The folder of the packages shipped with X-Plane, under the install.
pub(crate) const DEFAULT_SCENERY: &str = "Resources/default scenery";
/// The folder of the stock road networks (`roads.net`, `roads_EU.net`) under the install
/// (ROADS.md §2).
pub(crate) const STOCK_ROADS: &str = "Resources/default scenery/1000 roads";
/// What `*GLOBAL_AIRPORTS*` in `scenery_packs.ini` stands for (X-Plane 12).
const GLOBAL_AIRPORTS: &str = "Global Scenery/Global Airports";

/// The X-Plane install to read libraries from: `arg` (`--xplane DIR`), else the environment
/// variable `XPLANE_ROOT`, else none. A folder that holds neither `Custom Scenery` nor
/// `Resources/default scenery` is refused with a message saying so.
pub fn xplane_root(arg: Option<&Path>) -> Result<Option<PathBuf>, String> {
    xplane_root_from(arg, std::env::var_os("XPLANE_ROOT"))
}

pub(super) fn xplane_root_from(
    arg: Option<&Path>,
    env: Option<OsString>,
) -> Result<Option<PathBuf>, String> {
    let (dir, from) = match (arg, env) {
        (Some(a), _) => (a.to_path_buf(), "--xplane"),
        (None, Some(e)) if !e.is_empty() => (PathBuf::from(e), "XPLANE_ROOT"),
        _ => return Ok(None),
    };
    if !dir.is_dir() {
        return Err(format!("{from} {}: no such folder", dir.display()));
    }
    if dir.join(CUSTOM_SCENERY).is_dir() || dir.join(DEFAULT_SCENERY).is_dir() {
        Ok(Some(dir))
    } else {
        Err(format!(
            "{from} {}: not an X-Plane folder (it holds neither `{CUSTOM_SCENERY}` nor `{DEFAULT_SCENERY}`)",
            dir.display()
        ))
    }
}

/// The enabled package folders of the install at `root`, highest priority first. Problems
/// (an unreadable folder or ini, packs the ini does not list) are warnings.
pub(super) fn packages(root: &Path, diags: &mut Vec<Diagnostic>) -> Vec<PathBuf> {
    let mut out = custom_packages(root, diags);
    let default = root.join(DEFAULT_SCENERY);
    if default.is_dir() {
        out.extend(sorted_folders(&default, diags));
    }
    out
}

/// `Custom Scenery`, in `scenery_packs.ini` order.
fn custom_packages(root: &Path, diags: &mut Vec<Diagnostic>) -> Vec<PathBuf> {
    let custom = root.join(CUSTOM_SCENERY);
    if !custom.is_dir() {
        return Vec::new();
    }
    let on_disk = sorted_folders(&custom, diags);
    let ini_path = custom.join("scenery_packs.ini");
    let Ok(bytes) = std::fs::read(&ini_path) else {
        // No ini: X-Plane writes one listing every pack alphabetically.
        return on_disk;
    };
    let ini = read_ini(root, &String::from_utf8_lossy(&bytes));
    let listed = |p: &Path| ini.iter().any(|(q, _)| q == p);
    // Packs the ini does not list: X-Plane adds them at the top, alphabetically.
    let unlisted: Vec<PathBuf> = on_disk.into_iter().filter(|p| !listed(p)).collect();
    if !unlisted.is_empty() {
        let names: Vec<String> = unlisted
            .iter()
            .filter_map(|p| p.file_name().map(|n| n.to_string_lossy().into_owned()))
            .collect();
        diags.push(Diagnostic::warning_file(
            &ini_path,
            format!(
                "{} pack(s) not listed here ranked first, alphabetically, as X-Plane adds them: {}",
                unlisted.len(),
                names.join(", ")
            ),
        ));
    }
    let mut out = unlisted;
    for (path, enabled) in ini {
        if enabled && path.is_dir() && !out.contains(&path) {
            out.push(path);
        }
    }
    out
}

/// The `SCENERY_PACK` / `SCENERY_PACK_DISABLED` lines of a `scenery_packs.ini`, as
/// (normalised folder, enabled), first mention of each folder only. Paths are relative to
/// the install unless absolute; `*GLOBAL_AIRPORTS*` stands for `Global Scenery/Global
/// Airports`. Other lines (the `I` / `1000 Version` / `SCENERY` header) are skipped. Lines
/// end at `\r\n`, `\r` or `\n`, as in every text file X-Plane reads.
fn read_ini(root: &Path, text: &str) -> Vec<(PathBuf, bool)> {
    let mut out: Vec<(PathBuf, bool)> = Vec::new();
    for line in crate::lines::lines(text) {
        let line = line.trim();
        let (rest, enabled) = if let Some(r) = line.strip_prefix("SCENERY_PACK_DISABLED") {
            (r, false)
        } else if let Some(r) = line.strip_prefix("SCENERY_PACK") {
            (r, true)
        } else {
            continue;
        };
        if !rest.starts_with([' ', '\t']) {
            continue;
        }
        let raw = rest.trim().replace('\\', "/");
        let raw = raw.trim_end_matches('/');
        if raw.is_empty() {
            continue;
        }
        let path = if raw == "*GLOBAL_AIRPORTS*" {
            root.join(GLOBAL_AIRPORTS)
        } else if raw.starts_with('/') || raw.as_bytes().get(1) == Some(&b':') {
            PathBuf::from(raw)
        } else {
            root.join(raw)
        };
        let path = normalize(&path);
        if !out.iter().any(|(p, _)| *p == path) {
            out.push((path, enabled));
        }
    }
    out
}

/// The sub-folders of `dir` (not starting with `.`), sorted by name ignoring ASCII case as
/// WED sorts packages.
fn sorted_folders(dir: &Path, diags: &mut Vec<Diagnostic>) -> Vec<PathBuf> {
    let entries = match std::fs::read_dir(dir) {
        Ok(e) => e,
        Err(e) => {
            diags.push(Diagnostic::warning_file(dir, format!("cannot list: {e}")));
            return Vec::new();
        }
    };
    let mut out: Vec<(String, PathBuf)> = entries
        .filter_map(Result::ok)
        .filter_map(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            let path = dir.join(&name);
            (!name.starts_with('.') && path.is_dir()).then(|| (name, normalize(&path)))
        })
        .collect();
    out.sort_by(|a, b| {
        a.0.to_ascii_lowercase()
            .cmp(&b.0.to_ascii_lowercase())
            .then_with(|| a.0.cmp(&b.0))
    });
    out.into_iter().map(|(_, p)| p).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_ini_lines() {
        let root = Path::new("/xp");
        let ini = "I\n1000 Version\nSCENERY\n\nSCENERY_PACK Custom Scenery/A pack/\n\
SCENERY_PACK_DISABLED Custom Scenery\\B/\nSCENERY_PACK *GLOBAL_AIRPORTS*\n\
SCENERY_PACK /mnt/d/C/\nSCENERY_PACKX nope\nSCENERY_PACK Custom Scenery/A pack/\n";
        let want = vec![
            (PathBuf::from("/xp/Custom Scenery/A pack"), true),
            (PathBuf::from("/xp/Custom Scenery/B"), false),
            (PathBuf::from("/xp/Global Scenery/Global Airports"), true),
            (PathBuf::from("/mnt/d/C"), true),
        ];
        // The same whatever the line ends, and with them mixed.
        for end in ["\n", "\r\n", "\r"] {
            let text = crate::lines::with_line_ends(ini, end);
            assert_eq!(read_ini(root, &text), want, "{end:?}");
        }
        let ends = ["\r\n", "\r", "\n"];
        let mixed: String = ini
            .split_inclusive('\n')
            .enumerate()
            .map(|(i, l)| format!("{}{}", l.trim_end_matches('\n'), ends[i % 3]))
            .collect();
        assert_eq!(read_ini(root, &mixed), want);
    }

    #[test]
    fn root_comes_from_the_argument_then_the_environment() {
        let dir = std::env::temp_dir().join(format!("agview-xproot-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("Custom Scenery")).unwrap();
        let plain = std::env::temp_dir();
        assert_eq!(xplane_root_from(None, None), Ok(None));
        assert_eq!(xplane_root_from(None, Some(OsString::new())), Ok(None));
        assert_eq!(
            xplane_root_from(Some(&dir), Some(plain.clone().into())),
            Ok(Some(dir.clone()))
        );
        assert_eq!(
            xplane_root_from(None, Some(dir.clone().into())),
            Ok(Some(dir.clone()))
        );
        let e = xplane_root_from(Some(&plain), None).unwrap_err();
        assert!(
            e.starts_with("--xplane ") && e.contains("not an X-Plane folder"),
            "{e}"
        );
        let e = xplane_root_from(None, Some(dir.join("nope").into())).unwrap_err();
        assert!(
            e.starts_with("XPLANE_ROOT ") && e.ends_with("no such folder"),
            "{e}"
        );
        let _ = std::fs::remove_dir_all(&dir);
    }
}
