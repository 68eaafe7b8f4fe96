//! Diagnostics in the form compilers use: `path:line:col: error: message` for text files and
//! `path: offset N: error: message` for binary ones.

use std::fmt;
use std::path::{Path, PathBuf};

use serde::Serialize;

/// How bad a diagnostic is. Errors stop a file from being used; warnings do not.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    Error,
    Warning,
}

impl fmt::Display for Severity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
        })
    }
}

/// Where in a file a diagnostic points.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum Location {
    /// The file as a whole (e.g. it could not be opened).
    #[default]
    File,
    /// A 1-based line and column of a text file.
    Text { line: u32, col: u32 },
    /// A byte offset into a binary file.
    Offset(u64),
}

/// One message about one place in one file.
#[derive(Debug, Clone, PartialEq, Serialize, thiserror::Error)]
pub struct Diagnostic {
    pub severity: Severity,
    pub path: PathBuf,
    pub location: Location,
    pub message: String,
}

impl Diagnostic {
    pub fn new(
        severity: Severity,
        path: impl Into<PathBuf>,
        location: Location,
        message: impl Into<String>,
    ) -> Self {
        Diagnostic {
            severity,
            path: path.into(),
            location,
            message: message.into(),
        }
    }

    /// An error at a line and column of a text file.
    pub fn error_at(path: &Path, line: u32, col: u32, message: impl Into<String>) -> Self {
        Self::new(Severity::Error, path, Location::Text { line, col }, message)
    }

    /// A warning at a line and column of a text file.
    pub fn warning_at(path: &Path, line: u32, col: u32, message: impl Into<String>) -> Self {
        Self::new(
            Severity::Warning,
            path,
            Location::Text { line, col },
            message,
        )
    }

    /// An error at a byte offset of a binary file.
    pub fn error_offset(path: &Path, offset: u64, message: impl Into<String>) -> Self {
        Self::new(Severity::Error, path, Location::Offset(offset), message)
    }

    /// A warning at a byte offset of a binary file.
    pub fn warning_offset(path: &Path, offset: u64, message: impl Into<String>) -> Self {
        Self::new(Severity::Warning, path, Location::Offset(offset), message)
    }

    /// An error about a file as a whole.
    pub fn error_file(path: &Path, message: impl Into<String>) -> Self {
        Self::new(Severity::Error, path, Location::File, message)
    }

    /// A warning about a file as a whole.
    pub fn warning_file(path: &Path, message: impl Into<String>) -> Self {
        Self::new(Severity::Warning, path, Location::File, message)
    }

    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }

    /// The 1-based line this diagnostic points at, if it points at a line.
    pub fn line(&self) -> Option<u32> {
        match self.location {
            Location::Text { line, .. } => Some(line),
            _ => None,
        }
    }
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let path = self.path.display();
        match self.location {
            Location::File => write!(f, "{path}: {}: {}", self.severity, self.message),
            Location::Text { line, col } => {
                write!(
                    f,
                    "{path}:{line}:{col}: {}: {}",
                    self.severity, self.message
                )
            }
            Location::Offset(off) => {
                write!(
                    f,
                    "{path}: offset {off}: {}: {}",
                    self.severity, self.message
                )
            }
        }
    }
}

/// True when any diagnostic in the list is an error.
pub fn has_errors(diags: &[Diagnostic]) -> bool {
    diags.iter().any(Diagnostic::is_error)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_like_a_compiler() {
        let p = Path::new("a/b.agb");
        assert_eq!(
            Diagnostic::error_at(p, 3, 7, "bad").to_string(),
            "a/b.agb:3:7: error: bad"
        );
        assert_eq!(
            Diagnostic::warning_offset(p, 12, "odd").to_string(),
            "a/b.agb: offset 12: warning: odd"
        );
        assert_eq!(
            Diagnostic::error_file(p, "gone").to_string(),
            "a/b.agb: error: gone"
        );
    }
}
