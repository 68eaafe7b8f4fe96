//! How a name that a scene or an asset references becomes a file on disk (exact, else
//! matched case-insensitively, as packages made on Windows and macOS need), and how a
//! reader's error becomes a warning: the art is replaced, the scene still draws.

use std::path::{Path, PathBuf};

use crate::diag::{Diagnostic, Severity};

/// `path` if it exists, else the same path matched case-insensitively component by
/// component; `None` when neither exists.
pub(crate) fn find_file(path: &Path) -> Option<PathBuf> {
    crate::format::find_ignoring_case(path)
}

/// [`find_file`], with a warning when the file was found only by ignoring case: WED
/// corrects case as it reads files, but X-Plane on a case-sensitive file system may not
/// find it (as the resolver says of definitions).
pub(crate) fn find_file_warning(path: &Path, warnings: &mut Vec<Diagnostic>) -> Option<PathBuf> {
    let found = find_file(path)?;
    if found != path {
        warnings.push(Diagnostic::warning_file(
            path,
            format!(
                "matches {} only when case is ignored; X-Plane may not find it on a case-sensitive file system (drawn as found)",
                found.display()
            ),
        ));
    }
    Some(found)
}

/// Reads a whole file, or a warning naming it (and a warning when it was found only by
/// ignoring case).
pub(crate) fn read(
    path: &Path,
    what: &str,
    warnings: &mut Vec<Diagnostic>,
) -> Result<(PathBuf, Vec<u8>), Diagnostic> {
    let Some(found) = find_file_warning(path, warnings) else {
        return Err(Diagnostic::warning_file(path, format!("{what} not found"))
            .with_kind(crate::diag::kind::MISSING_FILE));
    };
    match std::fs::read(&found) {
        Ok(b) => Ok((found, b)),
        Err(e) => Err(
            Diagnostic::warning_file(&found, format!("{what} cannot be read: {e}"))
                .with_kind(crate::diag::kind::MISSING_FILE),
        ),
    }
}

/// A reader's error, reported as a warning: the art is replaced, the scene still draws.
pub(crate) fn as_warning(mut d: Diagnostic, instead: &str) -> Diagnostic {
    if d.severity == Severity::Error {
        d.severity = Severity::Warning;
        d.message = format!("{} ({instead})", d.message);
    }
    d
}
