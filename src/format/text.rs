//! The line and token reader shared by every X-Plane text format (autogen, OBJ8, FOR, FAC,
//! library.txt, DSF text).
//!
//! Files are read as bytes; each line is checked for UTF-8 on its own so that a bad byte is
//! reported at its line and column. A `#` at the start of a token starts a comment that runs
//! to the end of the line. Tokens are separated by ASCII whitespace. Numbers must be finite:
//! `nan` and `inf` are rejected with the column of the offending token.

use std::path::Path;

use crate::diag::Diagnostic;

/// Reads a text file line by line, skipping blank and comment-only lines.
pub struct TextFile<'a> {
    path: &'a Path,
    src: &'a [u8],
    pos: usize,
    line_no: u32,
}

impl<'a> TextFile<'a> {
    pub fn new(path: &'a Path, src: &'a [u8]) -> Self {
        // A UTF-8 byte-order mark is tolerated at the very start.
        let pos = if src.starts_with(&[0xEF, 0xBB, 0xBF]) {
            3
        } else {
            0
        };
        TextFile {
            path,
            src,
            pos,
            line_no: 0,
        }
    }

    pub fn path(&self) -> &'a Path {
        self.path
    }

    /// The number of the last line returned (1-based), or 0 before the first.
    pub fn line_number(&self) -> u32 {
        self.line_no
    }

    /// An error at the end of the file (for things like a missing `END_CUTS`).
    pub fn error_at_end(&self, message: impl Into<String>) -> Diagnostic {
        Diagnostic::error_at(self.path, self.line_no.max(1), 1, message)
    }

    /// The next line with at least one token, or `None` at the end of the file.
    #[allow(clippy::should_implement_trait)]
    pub fn next(&mut self) -> Option<Result<Line<'a>, Diagnostic>> {
        loop {
            if self.pos >= self.src.len() {
                return None;
            }
            let rest = &self.src[self.pos..];
            let len = rest.iter().position(|&b| b == b'\n').unwrap_or(rest.len());
            let raw = &rest[..len];
            self.pos += len + 1;
            self.line_no = self.line_no.saturating_add(1);
            let text = match std::str::from_utf8(raw) {
                Ok(t) => t,
                Err(e) => {
                    let col = char_col(&raw[..e.valid_up_to()]);
                    return Some(Err(Diagnostic::error_at(
                        self.path,
                        self.line_no,
                        col,
                        format!(
                            "invalid UTF-8 byte 0x{:02X}; X-Plane text files must be ASCII or UTF-8",
                            raw[e.valid_up_to()]
                        ),
                    )));
                }
            };
            let mut line = Line {
                path: self.path,
                number: self.line_no,
                text,
                pos: 0,
                ascii: text.is_ascii(),
                keyword: "",
                keyword_col: 1,
                last_end_col: 1,
            };
            if let Some((kw, col)) = line.next_token() {
                line.keyword = kw;
                line.keyword_col = col;
                return Some(Ok(line));
            }
        }
    }
}

/// 1-based column of the character after `prefix` (columns count characters).
fn char_col(prefix: &[u8]) -> u32 {
    let n = std::str::from_utf8(prefix)
        .map(|s| s.chars().count())
        .unwrap_or(prefix.len());
    u32::try_from(n).unwrap_or(u32::MAX - 1) + 1
}

/// One non-blank line: its first token is the keyword, the rest are read as arguments.
#[derive(Debug, Clone)]
pub struct Line<'a> {
    path: &'a Path,
    /// 1-based line number.
    pub number: u32,
    text: &'a str,
    pos: usize,
    /// Whether the line is plain ASCII (columns are then byte offsets + 1).
    ascii: bool,
    /// The directive (first token).
    pub keyword: &'a str,
    /// 1-based column of the keyword.
    pub keyword_col: u32,
    last_end_col: u32,
}

impl<'a> Line<'a> {
    pub fn path(&self) -> &'a Path {
        self.path
    }

    /// The raw text of the line (without its newline).
    pub fn text(&self) -> &'a str {
        self.text
    }

    fn col_of(&self, byte: usize) -> u32 {
        if self.ascii {
            // One byte a column: no need to count characters (keeps long lines linear).
            u32::try_from(byte).unwrap_or(u32::MAX - 1) + 1
        } else {
            char_col(&self.text.as_bytes()[..byte])
        }
    }

    /// The next whitespace-separated token and its 1-based column.
    pub fn next_token(&mut self) -> Option<(&'a str, u32)> {
        let b = self.text.as_bytes();
        let mut i = self.pos;
        while i < b.len() && b[i].is_ascii_whitespace() {
            i += 1;
        }
        if i >= b.len() || b[i] == b'#' {
            self.pos = b.len();
            return None;
        }
        let start = i;
        while i < b.len() && !b[i].is_ascii_whitespace() {
            i += 1;
        }
        self.pos = i;
        let col = self.col_of(start);
        self.last_end_col = self.col_of(i) + 1;
        Some((&self.text[start..i], col))
    }

    /// Skips whatever arguments are left.
    pub fn skip_rest(&mut self) {
        self.pos = self.text.len();
    }

    /// True when no argument is left.
    pub fn at_end(&self) -> bool {
        let mut probe = self.clone();
        probe.next_token().is_none()
    }

    /// An error at a column of this line.
    pub fn error(&self, col: u32, message: impl Into<String>) -> Diagnostic {
        Diagnostic::error_at(self.path, self.number, col, message)
    }

    /// A warning at a column of this line.
    pub fn warning(&self, col: u32, message: impl Into<String>) -> Diagnostic {
        Diagnostic::warning_at(self.path, self.number, col, message)
    }

    /// An error about the line's directive as a whole.
    pub fn error_kw(&self, message: impl Into<String>) -> Diagnostic {
        self.error(self.keyword_col, message)
    }

    /// A warning about the line's directive as a whole.
    pub fn warning_kw(&self, message: impl Into<String>) -> Diagnostic {
        self.warning(self.keyword_col, message)
    }

    fn missing(&self, what: &str) -> Diagnostic {
        let col = self.col_of(self.text.len());
        self.error(col, format!("{}: missing argument <{what}>", self.keyword))
    }

    /// The next token, which must exist.
    pub fn word(&mut self, what: &str) -> Result<&'a str, Diagnostic> {
        let t = self.next_token();
        t.map(|t| t.0).ok_or_else(|| self.missing(what))
    }

    /// The next token with its column, which must exist.
    pub fn word_col(&mut self, what: &str) -> Result<(&'a str, u32), Diagnostic> {
        let t = self.next_token();
        t.ok_or_else(|| self.missing(what))
    }

    /// Everything after the current position, trimmed (for paths that may contain spaces).
    pub fn rest(&mut self, what: &str) -> Result<&'a str, Diagnostic> {
        let r = self.text[self.pos..].trim();
        if r.is_empty() || r.starts_with('#') {
            return Err(self.missing(what));
        }
        self.pos = self.text.len();
        Ok(r)
    }

    /// A finite 32-bit float.
    pub fn f32(&mut self, what: &str) -> Result<f32, Diagnostic> {
        let (tok, col) = self.word_col(what)?;
        parse_f32(tok).ok_or_else(|| self.bad_number(what, tok, col))
    }

    /// A finite 64-bit float.
    pub fn f64(&mut self, what: &str) -> Result<f64, Diagnostic> {
        let (tok, col) = self.word_col(what)?;
        parse_f64(tok).ok_or_else(|| self.bad_number(what, tok, col))
    }

    /// An optional finite 32-bit float: `None` at the end of the line.
    pub fn opt_f32(&mut self, what: &str) -> Result<Option<f32>, Diagnostic> {
        if self.at_end() {
            Ok(None)
        } else {
            self.f32(what).map(Some)
        }
    }

    /// A signed integer (a value like `3.0` is accepted when it is whole).
    pub fn i64(&mut self, what: &str) -> Result<i64, Diagnostic> {
        let (tok, col) = self.word_col(what)?;
        parse_int(tok).ok_or_else(|| {
            self.error(
                col,
                format!(
                    "{}: <{what}> must be a whole number, found `{tok}`",
                    self.keyword
                ),
            )
        })
    }

    /// An integer in `lo..=hi`.
    pub fn int_in(&mut self, what: &str, lo: i64, hi: i64) -> Result<i64, Diagnostic> {
        let mut probe = self.clone();
        let col = probe.next_token().map(|t| t.1).unwrap_or(1);
        let v = self.i64(what)?;
        if v < lo || v > hi {
            return Err(self.error(
                col,
                format!("{}: <{what}> is {v}, outside {lo}..={hi}", self.keyword),
            ));
        }
        Ok(v)
    }

    /// A non-negative integer that fits in `u32`.
    pub fn u32(&mut self, what: &str) -> Result<u32, Diagnostic> {
        Ok(self.int_in(what, 0, u32::MAX as i64)? as u32)
    }

    /// A non-negative index (bounded to `u32` so that no count read from a file can make a
    /// huge allocation).
    pub fn index(&mut self, what: &str) -> Result<usize, Diagnostic> {
        Ok(self.u32(what)? as usize)
    }

    fn bad_number(&self, what: &str, tok: &str, col: u32) -> Diagnostic {
        let lower = tok.to_ascii_lowercase();
        let why = if lower.contains("nan") || lower.contains("inf") {
            "must be a finite number"
        } else {
            "must be a number"
        };
        self.error(
            col,
            format!("{}: <{what}> {why}, found `{tok}`", self.keyword),
        )
    }

    /// A warning if arguments are left over; they are ignored.
    pub fn expect_end(&mut self, warnings: &mut Vec<Diagnostic>) {
        if let Some((tok, col)) = self.next_token() {
            warnings.push(self.warning(
                col,
                format!(
                    "{}: unexpected extra argument `{tok}` ignored",
                    self.keyword
                ),
            ));
            self.pos = self.text.len();
        }
    }

    /// Column just past the last token read.
    pub fn end_col(&self) -> u32 {
        self.last_end_col
    }
}

/// Parses a finite `f32`; `None` for anything else (including `nan`, `inf`).
pub fn parse_f32(tok: &str) -> Option<f32> {
    let b = tok.as_bytes();
    // Rust's parser accepts "inf", "nan" and "infinity"; X-Plane's files never hold them.
    if b.is_empty() || !(b[0].is_ascii_digit() || matches!(b[0], b'-' | b'+' | b'.')) {
        return None;
    }
    tok.parse::<f32>().ok().filter(|v| v.is_finite())
}

/// Parses a finite `f64`; `None` for anything else.
pub fn parse_f64(tok: &str) -> Option<f64> {
    let b = tok.as_bytes();
    if b.is_empty() || !(b[0].is_ascii_digit() || matches!(b[0], b'-' | b'+' | b'.')) {
        return None;
    }
    tok.parse::<f64>().ok().filter(|v| v.is_finite())
}

/// Parses an integer, accepting a whole float such as `2.0`.
pub fn parse_int(tok: &str) -> Option<i64> {
    if let Ok(v) = tok.parse::<i64>() {
        return Some(v);
    }
    let f = parse_f64(tok)?;
    if f.fract() == 0.0 && f.abs() < 9.0e15 {
        Some(f as i64)
    } else {
        None
    }
}

/// The three header lines every X-Plane text asset starts with: `A`/`I`, a version, a type.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Header {
    pub version: u32,
    pub kind: String,
}

/// Reads the header and checks it against the accepted (versions, type) pairs.
pub fn read_header(
    tf: &mut TextFile<'_>,
    accepted: &[(&[u32], &str)],
) -> Result<Header, Diagnostic> {
    let expected = || {
        accepted
            .iter()
            .map(|(v, k)| {
                let vs: Vec<String> = v.iter().map(|x| x.to_string()).collect();
                format!("{} {k}", vs.join("|"))
            })
            .collect::<Vec<_>>()
            .join(" or ")
    };
    let path = tf.path();
    let mut first = match tf.next() {
        Some(l) => l?,
        None => {
            return Err(Diagnostic::error_at(
                path,
                1,
                1,
                format!(
                    "empty file: expected the header `A` or `I`, then {}",
                    expected()
                ),
            ))
        }
    };
    if first.keyword != "A" && first.keyword != "I" {
        return Err(first.error_kw(format!(
            "missing header: expected `A` or `I` on the first line, found `{}`",
            first.keyword
        )));
    }
    first.expect_end(&mut Vec::new());
    let mut vline = match tf.next() {
        Some(l) => l?,
        None => return Err(tf.error_at_end(format!("truncated header: expected {}", expected()))),
    };
    let version: u32 = vline.keyword.parse().map_err(|_| {
        vline.error_kw(format!(
            "bad header: expected a version number, found `{}`",
            vline.keyword
        ))
    })?;
    // Some files put the type on the version line (`800 OBJ`); accept either form.
    let (kind, kind_line) = match vline.next_token() {
        Some((k, _)) => (k.to_string(), vline),
        None => match tf.next() {
            Some(l) => {
                let l = l?;
                (l.keyword.to_string(), l)
            }
            None => {
                return Err(tf.error_at_end(format!("truncated header: expected {}", expected())))
            }
        },
    };
    let ok_kind = accepted.iter().find(|(_, k)| *k == kind);
    match ok_kind {
        None => {
            Err(kind_line.error_kw(format!("wrong file type `{kind}`: expected {}", expected())))
        }
        Some((versions, _)) if !versions.contains(&version) => Err(kind_line.error_kw(format!(
            "unsupported version {version} for {kind}: expected {}",
            expected()
        ))),
        Some(_) => Ok(Header { version, kind }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(src: &str) -> Vec<(u32, String)> {
        let p = Path::new("t");
        let mut tf = TextFile::new(p, src.as_bytes());
        let mut out = Vec::new();
        while let Some(l) = tf.next() {
            let l = l.unwrap();
            out.push((l.number, l.keyword.to_string()));
        }
        out
    }

    #[test]
    fn skips_blank_and_comment_lines() {
        assert_eq!(
            lines("A\r\n\n  # hi\nTILE 1 2 # c\n\tX"),
            vec![(1, "A".into()), (4, "TILE".into()), (5, "X".into())]
        );
    }

    #[test]
    fn rejects_non_finite_numbers() {
        for bad in ["nan", "NaN", "inf", "-inf", "infinity", "1e99", "x", ""] {
            assert_eq!(parse_f32(bad), None, "{bad}");
        }
        assert_eq!(parse_f32("-1.5"), Some(-1.5));
        assert_eq!(parse_f32(".5"), Some(0.5));
        assert_eq!(parse_int("3.0"), Some(3));
        assert_eq!(parse_int("3.5"), None);
    }

    #[test]
    fn reports_bad_utf8_at_its_column() {
        let p = Path::new("f.agp");
        let src = b"A\nTILE \xff 1\n";
        let mut tf = TextFile::new(p, src);
        tf.next().unwrap().unwrap();
        let e = tf.next().unwrap().unwrap_err();
        assert_eq!(
            e.to_string(),
            "f.agp:2:6: error: invalid UTF-8 byte 0xFF; X-Plane text files must be ASCII or UTF-8"
        );
    }

    #[test]
    fn argument_errors_point_at_the_argument() {
        let p = Path::new("f");
        let mut tf = TextFile::new(p, b"TILE 0 zz\n");
        let mut l = tf.next().unwrap().unwrap();
        assert_eq!(l.f32("left").unwrap(), 0.0);
        let e = l.f32("bottom").unwrap_err();
        assert_eq!(
            e.to_string(),
            "f:1:8: error: TILE: <bottom> must be a number, found `zz`"
        );
        let e = l.f32("right").unwrap_err();
        assert_eq!(
            e.to_string(),
            "f:1:10: error: TILE: missing argument <right>"
        );
    }

    #[test]
    fn header_checks() {
        let p = Path::new("f");
        let ok = |s: &str| {
            read_header(
                &mut TextFile::new(p, s.as_bytes()),
                &[(&[1000], "AG_POINT")],
            )
        };
        assert!(ok("A\n1000\nAG_POINT\n").is_ok());
        assert!(ok("I\n1000 AG_POINT\n").is_ok());
        assert!(ok("").unwrap_err().to_string().contains("empty file"));
        assert!(ok("X\n")
            .unwrap_err()
            .to_string()
            .contains("missing header"));
        assert!(ok("A\n1000\n")
            .unwrap_err()
            .to_string()
            .contains("truncated"));
        assert!(ok("A\n800\nAG_POINT")
            .unwrap_err()
            .to_string()
            .contains("unsupported version"));
        assert!(ok("A\n1000\nAG_BLOCK")
            .unwrap_err()
            .to_string()
            .contains("wrong file type"));
    }
}
