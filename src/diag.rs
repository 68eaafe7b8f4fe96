//! Diagnostics in the form compilers use: `path:line:col: error: message` for text files and
//! `path: offset N: error: message` for binary ones.

use std::borrow::Cow;
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
        // Bytes that are not UTF-8, in the path or in a name the message quotes, as `\xNN`.
        let path = shown_path(&self.path);
        let message = escaped(&self.message);
        match self.location {
            Location::File => write!(f, "{path}: {}: {message}", self.severity),
            Location::Text { line, col } => {
                write!(f, "{path}:{line}:{col}: {}: {message}", self.severity)
            }
            Location::Offset(off) => {
                write!(f, "{path}: offset {off}: {}: {message}", self.severity)
            }
        }
    }
}

/// True when any diagnostic in the list is an error.
pub fn has_errors(diags: &[Diagnostic]) -> bool {
    diags.iter().any(Diagnostic::is_error)
}

/// How many diagnostics of one kind are said before the rest are only counted.
pub const SHOWN_PER_KIND: usize = 20;
/// How many diagnostics one file says in all before the rest are only counted (so that a
/// file full of distinct oddities cannot grow the list without bound either).
pub const SHOWN_IN_ALL: usize = 1000;

/// The severity and offset of the first diagnostic of a kind that was not said.
type Unsaid = (Severity, u64);

/// Keeps repeated diagnostics bounded: the first [`SHOWN_PER_KIND`] of each kind are said,
/// the rest counted and summed up by [`WarningCap::summary`]. A kind is a short fixed phrase
/// chosen by the caller ("PRDE polygon without vertices"), so that deciding whether to say
/// a diagnostic costs no formatting: callers build the message only when [`WarningCap::admit`]
/// says yes. Memory is bounded by the number of kinds, not of diagnostics.
#[derive(Debug, Default, Clone)]
pub struct WarningCap {
    /// kind → (times seen, severity and offset of the first one not said).
    kinds: std::collections::HashMap<&'static str, (usize, Option<Unsaid>)>,
    shown: usize,
    /// Diagnostics not said because [`SHOWN_IN_ALL`] was reached, and the first one's offset.
    over_all: (usize, Option<Unsaid>),
}

impl WarningCap {
    /// Whether the next diagnostic of `kind` (with this severity, at this offset) should be
    /// said; when not, it is counted.
    pub fn admit(&mut self, kind: &'static str, severity: Severity, offset: u64) -> bool {
        let entry = self.kinds.entry(kind).or_insert((0, None));
        entry.0 += 1;
        if entry.0 > SHOWN_PER_KIND {
            entry.1.get_or_insert((severity, offset));
            return false;
        }
        if self.shown >= SHOWN_IN_ALL {
            self.over_all.0 += 1;
            self.over_all.1.get_or_insert((severity, offset));
            return false;
        }
        self.shown += 1;
        true
    }

    /// One diagnostic per kind that was cut short, saying how many were not said (at the
    /// first unsaid one's offset, an error when that one was), sorted by offset.
    pub fn summary(&self, path: &Path) -> Vec<Diagnostic> {
        let mut out: Vec<Diagnostic> = self
            .kinds
            .iter()
            .filter_map(|(kind, (n, first))| {
                let (sev, off) = (*first)?;
                let hidden = n - SHOWN_PER_KIND;
                Some(Diagnostic::new(
                    sev,
                    path,
                    Location::Offset(off),
                    format!(
                        "{hidden} more of \"{kind}\" not shown (after the first {SHOWN_PER_KIND}; {n} in all)"
                    ),
                ))
            })
            .collect();
        if let (n, Some((sev, off))) = self.over_all {
            out.push(Diagnostic::new(
                sev,
                path,
                Location::Offset(off),
                format!("{n} more diagnostics not shown (after the first {SHOWN_IN_ALL})"),
            ));
        }
        out.sort_by_key(|d| match d.location {
            Location::Offset(o) => o,
            _ => 0,
        });
        out
    }
}

/// Where the private-use characters that stand for raw bytes start: the readers carry byte
/// `b` (0x80–0xFF) that is not part of valid UTF-8 as `RAW_BYTE_BASE + b`, in supplementary
/// private-use area B, which no X-Plane text uses (`format::text::readable`).
pub const RAW_BYTE_BASE: u32 = 0x10_FF00;

/// The raw byte a character of a reader's text stands for, if it stands for one.
pub fn raw_byte(c: char) -> Option<u8> {
    u32::from(c)
        .checked_sub(RAW_BYTE_BASE)
        .and_then(|b| u8::try_from(b).ok())
        .filter(|&b| b >= 0x80)
}

/// Text as it is shown to the user: each raw byte as `\xNN`.
pub fn escaped(text: &str) -> Cow<'_, str> {
    if !text.chars().any(|c| raw_byte(c).is_some()) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        match raw_byte(c) {
            Some(b) => out.push_str(&format!("\\x{b:02X}")),
            None => out.push(c),
        }
    }
    Cow::Owned(out)
}

/// A path as it is shown to the user and kept in the Scene: bytes that are not UTF-8 as
/// `\xNN` ([`text_path`] gives the path back).
pub fn shown_path(path: &Path) -> String {
    let os = path.as_os_str();
    if let Some(s) = os.to_str() {
        return s.to_string();
    }
    let mut out = String::new();
    for chunk in os.as_encoded_bytes().utf8_chunks() {
        out.push_str(chunk.valid());
        for &b in chunk.invalid() {
            out.push_str(&format!("\\x{b:02X}"));
        }
    }
    out
}

/// The path a [`shown_path`] text names: `\xNN` escapes are bytes again (on
/// Unix, where a path is bytes; elsewhere paths are Unicode and the text is the path).
pub fn text_path(text: &str) -> PathBuf {
    if !cfg!(unix) || !text.contains("\\x") {
        return PathBuf::from(text);
    }
    let b = text.as_bytes();
    let mut bytes = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        let hex = |k: usize| b.get(k).and_then(|&c| char::from(c).to_digit(16));
        match (b[i], b.get(i + 1), hex(i + 2), hex(i + 3)) {
            (b'\\', Some(b'x'), Some(h), Some(l)) if h >= 8 => {
                bytes.push((h * 16 + l) as u8);
                i += 4;
            }
            (c, ..) => {
                bytes.push(c);
                i += 1;
            }
        }
    }
    path_of_bytes(bytes)
}

#[cfg(unix)]
pub fn path_of_bytes(bytes: Vec<u8>) -> PathBuf {
    use std::os::unix::ffi::OsStringExt;
    PathBuf::from(std::ffi::OsString::from_vec(bytes))
}

#[cfg(not(unix))]
pub fn path_of_bytes(bytes: Vec<u8>) -> PathBuf {
    // Windows paths are UTF-16: a byte outside UTF-8 has no path of its own there; read it
    // as Windows-1252's Latin-1 half, as the author's editor most likely meant it.
    PathBuf::from(bytes.iter().map(|&b| char::from(b)).collect::<String>())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn repeated_kinds_collapse_into_a_count() {
        let mut cap = WarningCap::default();
        let said = (0..100u64)
            .filter(|&i| cap.admit("empty polygon", Severity::Warning, i))
            .count();
        assert_eq!(said, SHOWN_PER_KIND);
        assert!(cap.admit("other", Severity::Error, 7));
        let s = cap.summary(Path::new("x.agn"));
        assert_eq!(s.len(), 1);
        assert_eq!(
            s[0].to_string(),
            "x.agn: offset 20: warning: 80 more of \"empty polygon\" not shown (after the first 20; 100 in all)"
        );
    }

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
