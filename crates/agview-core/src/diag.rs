//! Diagnostics in the form compilers use: `path:line:col: error: message` for text files and
//! `path: offset N: error: message` for binary ones.
//!
//! A [`Diagnostic`] stays data from the stage that finds it to every consumer: the command
//! line prints it ([`fmt::Display`]), `layout --json` writes it as an object
//! ([`Diagnostic::to_json`]), the viewer and the report group it by its file, its severity and
//! its [`Diagnostic::kind`], and tie it to its feature. Nothing parses the printed text back.

use std::borrow::Cow;
use std::fmt;
use std::path::{Path, PathBuf};

use serde::Serialize;

/// How bad a diagnostic is. Errors stop a file (or a feature) from being used; warnings do
/// not; notes say what agview did that the user may want to know (a limit it applied, a
/// kind of content it does not draw).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    Error,
    Warning,
    Note,
}

impl Severity {
    /// The word the printed line carries (`error`, `warning`, `note`).
    pub fn name(self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Note => "note",
        }
    }
}

impl fmt::Display for Severity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The stable kind codes of diagnostics: short strings that tools and the viewer group
/// messages by, listed with their meaning in `docs/diagnostics.md`. A code never changes
/// once published; a new kind gets a new code.
pub mod kind {
    /// A directive the reader does not know; the line is skipped.
    pub const UNKNOWN_DIRECTIVE: &str = "unknown-directive";
    /// Malformed text: a missing field, a word where a number belongs, a bad token.
    pub const SYNTAX: &str = "syntax";
    /// A value outside what the format allows.
    pub const OUT_OF_RANGE: &str = "out-of-range";
    /// Any other problem with a file's content, found by its reader.
    pub const FORMAT: &str = "format";
    /// A file that cannot be read: missing, a folder, unreadable, too large.
    pub const MISSING_FILE: &str = "missing-file";
    /// A name that no file and no library export resolves.
    pub const UNRESOLVED: &str = "unresolved";
    /// A document feature that could not be laid out and is skipped.
    pub const SKIPPED_FEATURE: &str = "skipped-feature";
    /// What laying an asset out says: no spelling fits, a point given a polygon, a
    /// degenerate polygon.
    pub const LAYOUT: &str = "layout";
    /// An autogen point dropped (or redrawn) by its `SLOPE_LIMIT`.
    pub const SLOPE_LIMIT: &str = "slope-limit";
    /// What the renderer had to change to draw the scene: a texture scaled down, a mesh
    /// drawn as a placeholder box.
    pub const RENDER: &str = "render";
    /// A limit agview applied: the texture budget, a message cap.
    pub const LIMIT: &str = "limit";
    /// Content agview does not draw (a DSF's exclusion zones, orthophotos alone).
    pub const NOT_DRAWN: &str = "not-drawn";
    /// Anything else.
    pub const GENERAL: &str = "general";

    /// Every code, in the order the docs list them.
    pub const ALL: [&str; 13] = [
        UNKNOWN_DIRECTIVE,
        SYNTAX,
        OUT_OF_RANGE,
        FORMAT,
        MISSING_FILE,
        UNRESOLVED,
        SKIPPED_FEATURE,
        LAYOUT,
        SLOPE_LIMIT,
        RENDER,
        LIMIT,
        NOT_DRAWN,
        GENERAL,
    ];
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
    /// A 1-based line of a text file, as a whole (what the layout says of a directive).
    Line(u32),
    /// A byte offset into a binary file.
    Offset(u64),
}

/// One message about one place in one file (or, with an empty `path`, about the scene as a
/// whole: what the renderer says).
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub struct Diagnostic {
    pub severity: Severity,
    /// The file the message is about; empty when it is about no file.
    pub path: PathBuf,
    pub location: Location,
    pub message: String,
    /// Its stable kind code, one of [`kind::ALL`].
    pub kind: &'static str,
    /// The document feature it belongs to: an index into `Scene::features`.
    pub feature: Option<usize>,
}

impl Diagnostic {
    /// A diagnostic of the default kind: [`kind::FORMAT`] when it points into a file (a
    /// reader found it), [`kind::GENERAL`] otherwise. [`Diagnostic::with_kind`] names
    /// another.
    pub fn new(
        severity: Severity,
        path: impl Into<PathBuf>,
        location: Location,
        message: impl Into<String>,
    ) -> Self {
        let kind = match location {
            Location::File => kind::GENERAL,
            Location::Text { .. } | Location::Line(_) | Location::Offset(_) => kind::FORMAT,
        };
        Diagnostic {
            severity,
            path: path.into(),
            location,
            message: message.into(),
            kind,
            feature: None,
        }
    }

    /// A message about no file: what the renderer or the art stage says of the scene.
    pub fn general(severity: Severity, message: impl Into<String>) -> Self {
        Self::new(severity, PathBuf::new(), Location::File, message)
    }

    /// A note about a file as a whole.
    pub fn note_file(path: &Path, message: impl Into<String>) -> Self {
        Self::new(Severity::Note, path, Location::File, message)
    }

    /// The same diagnostic with another kind code.
    #[must_use]
    pub fn with_kind(mut self, kind: &'static str) -> Self {
        self.kind = kind;
        self
    }

    /// The same diagnostic, tied to a document feature.
    #[must_use]
    pub fn for_feature(mut self, feature: usize) -> Self {
        self.feature = Some(feature);
        self
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

    /// A message about a whole line of a text file (no column).
    pub fn at_line(severity: Severity, path: &Path, line: u32, message: impl Into<String>) -> Self {
        Self::new(severity, path, Location::Line(line), message)
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
            Location::Text { line, .. } | Location::Line(line) => Some(line),
            _ => None,
        }
    }
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Bytes that are not UTF-8, in the path or in a name the message quotes, as `\xNN`.
        let message = escaped(&self.message);
        if self.path.as_os_str().is_empty() {
            return write!(f, "{}: {message}", self.severity);
        }
        let path = shown_path(&self.path);
        match self.location {
            Location::File => write!(f, "{path}: {}: {message}", self.severity),
            Location::Text { line, col } => {
                write!(f, "{path}:{line}:{col}: {}: {message}", self.severity)
            }
            Location::Line(line) => write!(f, "{path}:{line}: {}: {message}", self.severity),
            Location::Offset(off) => {
                write!(f, "{path}: offset {off}: {}: {message}", self.severity)
            }
        }
    }
}

impl Diagnostic {
    /// The file as the user is shown it (`\xNN` for bytes that are not UTF-8), or `None`
    /// for a message about no file.
    pub fn shown_file(&self) -> Option<String> {
        (!self.path.as_os_str().is_empty()).then(|| shown_path(&self.path))
    }

    /// The object `layout --json` writes in its `diagnostics` array: severity, file, line
    /// and column (or offset), feature, kind, and the printed text.
    pub fn to_json(&self) -> DiagnosticJson {
        let (line, column, offset) = match self.location {
            Location::File => (None, None, None),
            Location::Text { line, col } => (Some(line), Some(col), None),
            Location::Line(line) => (Some(line), None, None),
            Location::Offset(o) => (None, None, Some(o)),
        };
        DiagnosticJson {
            severity: self.severity,
            file: self.shown_file(),
            line,
            column,
            offset,
            feature: self.feature,
            kind: self.kind,
            text: self.to_string(),
        }
    }
}

/// A diagnostic as `layout --json` writes it (`docs/layout-json.md`).
#[derive(Debug, Clone, Serialize)]
pub struct DiagnosticJson {
    pub severity: Severity,
    pub file: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub column: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub offset: Option<u64>,
    pub feature: Option<usize>,
    pub kind: &'static str,
    /// The printed line, exactly as the command line prints it.
    pub text: String,
}

impl Serialize for Diagnostic {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.to_json().serialize(s)
    }
}

/// A list of diagnostics as the Scene's JSON holds it: `warnings`, the printed lines (what
/// scripts have always read), and `diagnostics`, the same messages as objects.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Messages(pub Vec<Diagnostic>);

impl std::ops::Deref for Messages {
    type Target = Vec<Diagnostic>;
    fn deref(&self) -> &Vec<Diagnostic> {
        &self.0
    }
}

impl std::ops::DerefMut for Messages {
    fn deref_mut(&mut self) -> &mut Vec<Diagnostic> {
        &mut self.0
    }
}

impl Messages {
    /// The messages as the command line prints them.
    pub fn lines(&self) -> Vec<String> {
        self.0.iter().map(ToString::to_string).collect()
    }
}

impl From<Vec<Diagnostic>> for Messages {
    fn from(v: Vec<Diagnostic>) -> Self {
        Messages(v)
    }
}

impl Serialize for Messages {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let lines = self.lines();
        let mut map = s.serialize_map(Some(2))?;
        map.serialize_entry("warnings", &lines)?;
        map.serialize_entry("diagnostics", &self.0)?;
        map.end()
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
pub(crate) const SHOWN_IN_ALL: usize = 1000;

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
                ).with_kind(kind::LIMIT))
            })
            .collect();
        if let (n, Some((sev, off))) = self.over_all {
            out.push(
                Diagnostic::new(
                    sev,
                    path,
                    Location::Offset(off),
                    format!("{n} more diagnostics not shown (after the first {SHOWN_IN_ALL})"),
                )
                .with_kind(kind::LIMIT),
            );
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
    // as Windows-1252, as the author's editor most likely meant it. UTF-8 stays itself.
    let mut text = String::with_capacity(bytes.len());
    for chunk in bytes.utf8_chunks() {
        text.push_str(chunk.valid());
        text.extend(chunk.invalid().iter().map(|&b| windows_1252(b)));
    }
    PathBuf::from(text)
}

/// The character a byte stands for in Windows-1252: Latin-1, but for the printable
/// characters at 0x80–0x9F (`€`, `‚`, `ƒ`, …). The five bytes the code page leaves
/// undefined stand for the control characters of their own value, as Windows maps them.
pub fn windows_1252(b: u8) -> char {
    const HIGH: [char; 32] = [
        '€', '\u{81}', '‚', 'ƒ', '„', '…', '†', '‡', 'ˆ', '‰', 'Š', '‹', 'Œ', '\u{8d}', 'Ž',
        '\u{8f}', '\u{90}', '‘', '’', '“', '”', '•', '–', '—', '˜', '™', 'š', '›', 'œ', '\u{9d}',
        'ž', 'Ÿ',
    ];
    match b {
        0x80..=0x9f => HIGH[usize::from(b - 0x80)],
        _ => char::from(b),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn windows_1252_reads_its_own_characters_above_latin_1() {
        assert_eq!(windows_1252(0xe9), 'é');
        assert_eq!(windows_1252(0x80), '€');
        assert_eq!(windows_1252(0x9f), 'Ÿ');
        assert_eq!(windows_1252(0x81), '\u{81}');
        assert_eq!(windows_1252(b'a'), 'a');
        if cfg!(not(unix)) {
            let p = path_of_bytes(b"caf\xe9 \x80 \xc3\xa9".to_vec());
            assert_eq!(p, PathBuf::from("café € é"), "UTF-8 stays itself");
        }
    }

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
    fn every_kind_code_is_documented() {
        let doc = include_str!("../../../docs/diagnostics.md");
        for k in kind::ALL {
            assert!(
                doc.contains(&format!("| `{k}` |")),
                "docs/diagnostics.md lacks `{k}`"
            );
        }
    }

    #[test]
    fn notes_lines_and_messages_of_no_file_print_their_severity() {
        let p = Path::new("a/b.agb");
        assert_eq!(
            Diagnostic::note_file(p, "skipped").to_string(),
            "a/b.agb: note: skipped"
        );
        assert_eq!(
            Diagnostic::at_line(Severity::Warning, p, 9, "no fit").to_string(),
            "a/b.agb:9: warning: no fit"
        );
        assert_eq!(
            Diagnostic::general(Severity::Warning, "mesh m: placeholder").to_string(),
            "warning: mesh m: placeholder"
        );
    }

    #[test]
    fn the_json_object_carries_the_printed_text_and_the_data() {
        let d = Diagnostic::warning_at(Path::new("doc.txt"), 4, 2, "`x.obj` not found")
            .with_kind(kind::UNRESOLVED)
            .for_feature(3);
        let j = serde_json::to_value(&d).unwrap();
        assert_eq!(
            j,
            serde_json::json!({
                "severity": "warning", "file": "doc.txt", "line": 4, "column": 2,
                "feature": 3, "kind": "unresolved",
                "text": "doc.txt:4:2: warning: `x.obj` not found"
            })
        );
        let m = Messages(vec![
            d,
            Diagnostic::error_offset(Path::new("t.dsf"), 12, "bad"),
            Diagnostic::general(Severity::Note, "budget"),
        ]);
        let j = serde_json::to_value(&m).unwrap();
        let lines: Vec<&str> = j["warnings"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_str().unwrap())
            .collect();
        let texts: Vec<&str> = j["diagnostics"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v["text"].as_str().unwrap())
            .collect();
        assert_eq!(lines, texts);
        assert_eq!(j["diagnostics"][1]["offset"], 12);
        assert_eq!(j["diagnostics"][1]["kind"], "format");
        assert_eq!(j["diagnostics"][2]["file"], serde_json::Value::Null);
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
