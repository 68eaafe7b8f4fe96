//! `agview check` on a `library.txt`: the files its exports name, and the seasons its
//! virtual paths cover.
//!
//! - An export whose file is missing is a warning at its line; a seasonal one
//!   (`EXPORT*_SEASON`) names its seasons, since only they lose the file.
//! - A virtual path that the library exports in some seasons but not in others is a note at
//!   its first seasonal line: in the other seasons X-Plane finds it only through a
//!   lower-priority package or an `EXPORT_BACKUP` (docs/spec-decisions.md, "Seasons").

use std::collections::BTreeMap;
use std::path::Path;

use crate::diag::{Diagnostic, Severity};
use crate::format::library::{ExportKind, Library};
use crate::season::{mask_words, SeasonMask, ALL_SEASONS};

/// What checking the exports of the library at `path` finds.
pub(super) fn check_library(path: &Path, lib: &Library) -> Vec<Diagnostic> {
    let dir = path.parent().unwrap_or(Path::new(""));
    let mut out = Vec::new();
    for e in &lib.exports {
        let file = crate::format::obj8::join_name(dir, &e.real_path);
        if file.is_file() {
            continue;
        }
        let seasons = match &e.seasons {
            Some(_) => format!(" in {}", mask_words(e.season_mask(), ", ")),
            None => String::new(),
        };
        out.push(
            Diagnostic::at_line(
                Severity::Warning,
                path,
                e.line,
                format!(
                    "{} `{}`: file `{}` not found; X-Plane has no file for it here{seasons}",
                    e.keyword(),
                    e.virtual_path,
                    e.real_path
                ),
            )
            .with_kind(crate::diag::kind::MISSING_FILE),
        );
    }
    // Each virtual path's seasons (an export without a list, or a backup, covers all), and
    // its first seasonal line.
    let mut covered: BTreeMap<&str, (SeasonMask, Option<u32>)> = BTreeMap::new();
    for e in &lib.exports {
        let c = covered.entry(e.virtual_path.as_str()).or_default();
        c.0 |= if e.kind == ExportKind::Backup {
            ALL_SEASONS
        } else {
            e.season_mask()
        };
        if e.seasons.is_some() && c.1.is_none() {
            c.1 = Some(e.line);
        }
    }
    let mut notes: Vec<(u32, Diagnostic)> = covered
        .into_iter()
        .filter_map(|(name, (mask, line))| {
            let line = line.filter(|_| mask != ALL_SEASONS)?;
            Some((
                line,
                Diagnostic::at_line(
                    Severity::Note,
                    path,
                    line,
                    format!(
                        "`{name}` is exported in {} only: in {} it resolves only through a lower-priority package or EXPORT_BACKUP",
                        mask_words(mask, ", "),
                        mask_words(ALL_SEASONS & !mask, ", ")
                    ),
                ),
            ))
        })
        .collect();
    notes.sort_by_key(|(line, _)| *line);
    out.extend(notes.into_iter().map(|(_, d)| d));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn missing_seasonal_files_warn_with_their_seasons_and_partial_paths_are_noted() {
        let dir = std::env::temp_dir().join(format!("agview-check-lib-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("sum")).unwrap();
        std::fs::write(dir.join("sum/tree.for"), "A\n800\nFOREST\n").unwrap();
        std::fs::write(dir.join("plain.obj"), "A\n800\nOBJ\n").unwrap();
        let lib_txt = dir.join("library.txt");
        let text = "A\n1200\nLIBRARY\n\
EXPORT_SEASON sum lib/tree.for sum/tree.for\n\
EXPORT_SEASON win,fal lib/tree.for win/tree.for\n\
EXPORT lib/plain.obj plain.obj\n\
EXPORT_SEASON win lib/plain.obj winter/plain.obj\n\
EXPORT lib/gone.obj gone.obj\n";
        std::fs::write(&lib_txt, text).unwrap();
        let mut w = Vec::new();
        let lib = crate::format::library::parse(&lib_txt, text.as_bytes(), &mut w).unwrap();
        let said: Vec<String> = check_library(&lib_txt, &lib)
            .iter()
            .map(|d| {
                d.to_string()
                    .replace(&crate::diag::shown_path(&lib_txt), "library.txt")
            })
            .collect();
        let _ = std::fs::remove_dir_all(&dir);
        assert_eq!(
            said,
            [
                "library.txt:5: warning: EXPORT_SEASON `lib/tree.for`: file `win/tree.for` not found; X-Plane has no file for it here in fal, win",
                "library.txt:7: warning: EXPORT_SEASON `lib/plain.obj`: file `winter/plain.obj` not found; X-Plane has no file for it here in win",
                "library.txt:8: warning: EXPORT `lib/gone.obj`: file `gone.obj` not found; X-Plane has no file for it here",
                "library.txt:4: note: `lib/tree.for` is exported in sum, fal, win only: in spr it resolves only through a lower-priority package or EXPORT_BACKUP",
            ]
        );
    }
}
