//! How a name that a scene or an asset references becomes a file on disk (exact, else
//! matched case-insensitively, as packages made on Windows and macOS need), and how a
//! reader's error becomes a warning: the art is replaced, the scene still draws.

use std::path::{Path, PathBuf};

use crate::diag::{Diagnostic, Severity};

/// `path` if it exists, else the same path matched case-insensitively component by
/// component; `None` when neither exists.
pub fn find_file(path: &Path) -> Option<PathBuf> {
    crate::format::find_ignoring_case(path)
}

/// Reads a whole file, or a warning naming it.
pub(crate) fn read(path: &Path, what: &str) -> Result<(PathBuf, Vec<u8>), Diagnostic> {
    let Some(found) = find_file(path) else {
        return Err(Diagnostic::warning_file(path, format!("{what} not found")));
    };
    match std::fs::read(&found) {
        Ok(b) => Ok((found, b)),
        Err(e) => Err(Diagnostic::warning_file(
            &found,
            format!("{what} cannot be read: {e}"),
        )),
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
