//! The line and token reader shared by every X-Plane text format (autogen, OBJ8, FOR, FAC,
//! library.txt, DSF text).
//!
//! Files are read as bytes, as X-Plane reads them. [`readable`] carries every byte that is
//! not part of valid UTF-8 (a Windows-1252 `é` in a path or a name) into the text as a
//! private-use character of its own, so that names keep their bytes: [`name_path`] turns such a
//! name back into the path of exactly those bytes, and [`crate::diag::escaped`] shows them
//! as `\xNN`.
//! A line ends at `\r\n`, `\r` or `\n`, as X-Plane's scanner ends it ([`crate::lines`]).
//! Comments are skipped whatever they hold. A `#` at the start of a token starts a comment that runs
//! to the end of the line. Tokens are separated by ASCII whitespace. Numbers must be finite:
//! `nan` and `inf` are rejected with the column of the offending token.

use std::borrow::Cow;
use std::path::{Path, PathBuf};

use crate::diag::{path_of_bytes, raw_byte, Diagnostic, RAW_BYTE_BASE};
use crate::lines::{find_line_end, line_end_len};

/// The bytes of an X-Plane text file as valid UTF-8: borrowed when they already are; else a
/// copy in which each byte outside a valid UTF-8 sequence stands as the private-use character
/// of that byte (one character, so columns still count one a byte there).
pub fn readable(src: &[u8]) -> Cow<'_, [u8]> {
    if std::str::from_utf8(src).is_ok() {
        return Cow::Borrowed(src);
    }
    let mut out = Vec::with_capacity(src.len() + 16);
    for chunk in src.utf8_chunks() {
        out.extend_from_slice(chunk.valid().as_bytes());
        for &b in chunk.invalid() {
            let c = char::from_u32(RAW_BYTE_BASE + u32::from(b)).unwrap_or('\u{FFFD}');
            let mut buf = [0u8; 4];
            out.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
        }
    }
    Cow::Owned(out)
}

/// A name read by [`TextFile`] as a path, byte for byte: backslashes read as `/` (X-Plane
/// takes either), and each raw byte is itself again.
pub fn name_path(name: &str) -> PathBuf {
    let slashed = name.replace('\\', "/");
    if !slashed.chars().any(|c| raw_byte(c).is_some()) {
        return PathBuf::from(slashed);
    }
    let mut bytes = Vec::with_capacity(slashed.len());
    for c in slashed.chars() {
        match raw_byte(c) {
            Some(b) => bytes.push(b),
            None => bytes.extend_from_slice(c.encode_utf8(&mut [0u8; 4]).as_bytes()),
        }
    }
    path_of_bytes(bytes)
}

/// Reads a text file line by line, skipping blank and comment-only lines.
pub struct TextFile<'a> {
    path: &'a Path,
    src: &'a [u8],
    pos: usize,
    line_no: u32,
    /// Comment words that are directives to a reader ([`TextFile::with_tags`]).
    tags: &'static [&'static str],
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
            tags: &[],
        }
    }

    /// A reader of a piece of a file that starts at the start of a line, after `lines`
    /// lines: its lines are numbered as in the whole file (no byte-order mark is looked
    /// for).
    pub fn continuing(path: &'a Path, src: &'a [u8], lines: u32) -> Self {
        TextFile {
            path,
            src,
            pos: 0,
            line_no: lines,
            tags: &[],
        }
    }

    /// Where the next line starts: its byte offset, and the lines before it.
    pub fn position(&self) -> (usize, u32) {
        (self.pos, self.line_no)
    }

    /// Also returns the comment lines that start with one of `tags` (a facade's `#cabin` and
    /// `#tunnel`, which WED reads as directives): the tag is the line's keyword and the
    /// words after it its arguments. Every other comment is still skipped.
    #[must_use]
    pub fn with_tags(mut self, tags: &'static [&'static str]) -> Self {
        self.tags = tags;
        self
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
            let len = find_line_end(rest);
            let raw = &rest[..len];
            self.pos += len + line_end_len(&rest[len..]);
            self.line_no = self.line_no.saturating_add(1);
            // Most lines are ASCII: one word-at-a-time check settles them, and only the rest
            // pay for full UTF-8 validation.
            let ascii = raw.is_ascii();
            let checked = if ascii {
                // SAFETY: every byte is below 0x80, so the bytes are valid UTF-8.
                Ok(unsafe { std::str::from_utf8_unchecked(raw) })
            } else {
                std::str::from_utf8(raw)
            };
            // A comment is skipped whatever bytes it holds (a Windows-1252 `é` in an
            // author's note): only what comes before it must be text.
            let checked = checked.or_else(|e| match comment_start(raw) {
                Some(c) if c <= e.valid_up_to() => std::str::from_utf8(&raw[..c]),
                _ => Err(e),
            });
            let text = match checked {
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
                ascii,
                keyword: "",
                keyword_col: 1,
                last_end: 0,
            };
            if let Some((kw, col)) = line.next_token() {
                line.keyword = kw;
                line.keyword_col = col;
                return Some(Ok(line));
            }
            if let Some((tag, start)) = self.tag_of(text) {
                line.pos = start + tag.len();
                line.keyword = tag;
                line.keyword_col = line.col_of(start);
                return Some(Ok(line));
            }
        }
    }
}

impl TextFile<'_> {
    /// The tag a comment-only line starts with, and its byte offset, if it is one of
    /// `self.tags`.
    fn tag_of(&self, text: &str) -> Option<(&'static str, usize)> {
        if self.tags.is_empty() {
            return None;
        }
        let b = text.as_bytes();
        let start = skip_space(b, 0);
        let mut end = start;
        while end < b.len() && !is_space(b[end]) {
            end += 1;
        }
        let word = text.get(start..end)?;
        self.tags.iter().find(|t| **t == word).map(|t| (*t, start))
    }
}

/// Where a line's comment starts: the first `#` at the start of a token.
fn comment_start(raw: &[u8]) -> Option<usize> {
    (0..raw.len()).find(|&i| raw[i] == b'#' && (i == 0 || is_space(raw[i - 1])))
}

/// Token separators: space, tab, CR and the other ASCII control bytes.
#[inline]
fn is_space(c: u8) -> bool {
    c <= b' '
}

/// The first index at or after `i` that is not ASCII whitespace.
fn skip_space(b: &[u8], mut i: usize) -> usize {
    while i < b.len() && is_space(b[i]) {
        i += 1;
    }
    i
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
    last_end: usize,
}

impl<'a> Line<'a> {
    pub fn path(&self) -> &'a Path {
        self.path
    }

    /// The raw text of the line (without its line end).
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
        let start = skip_space(b, self.pos);
        if start >= b.len() || b[start] == b'#' {
            self.pos = b.len();
            return None;
        }
        let mut i = start + 1;
        while i < b.len() && !is_space(b[i]) {
            i += 1;
        }
        self.pos = i;
        self.last_end = i;
        // Token edges are at ASCII bytes, so the slice is always on char boundaries.
        Some((self.text.get(start..i).unwrap_or(""), self.col_of(start)))
    }

    /// Skips whatever arguments are left.
    pub fn skip_rest(&mut self) {
        self.pos = self.text.len();
    }

    /// True when no argument is left.
    pub fn at_end(&self) -> bool {
        let b = self.text.as_bytes();
        let i = skip_space(b, self.pos);
        i >= b.len() || b[i] == b'#'
    }

    /// The column where the next argument starts (or just past the end of the line).
    pub fn next_col(&self) -> u32 {
        self.col_of(skip_space(self.text.as_bytes(), self.pos))
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

    /// The warning for a directive the reader does not know (`format` names the file kind:
    /// "OBJ8", "facade"); readers say it once per keyword.
    pub fn unknown_directive(&self, format: &str) -> Diagnostic {
        self.warning_kw(format!(
            "unknown {format} directive `{}` ignored (further ones are not reported)",
            self.keyword
        ))
        .with_kind(crate::diag::kind::UNKNOWN_DIRECTIVE)
    }

    fn missing(&self, what: &str) -> Diagnostic {
        let col = self.col_of(self.text.len());
        self.error(col, format!("{}: missing argument <{what}>", self.keyword))
            .with_kind(crate::diag::kind::SYNTAX)
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

    /// Everything after the current position up to a comment, trimmed (for paths that may
    /// contain spaces).
    pub fn rest(&mut self, what: &str) -> Result<&'a str, Diagnostic> {
        let end = comment_start(self.text.as_bytes())
            .filter(|&c| c >= self.pos)
            .unwrap_or(self.text.len());
        let r = self.text[self.pos..end].trim();
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

    /// A finite 32-bit float whose name is only built when there is an error (for hot
    /// paths where the name would otherwise be formatted on every call).
    pub fn f32_lazy(&mut self, what: impl FnOnce() -> String) -> Result<f32, Diagnostic> {
        match self.next_token() {
            None => Err(self.missing(&what())),
            Some((tok, col)) => parse_f32(tok).ok_or_else(|| self.bad_number(&what(), tok, col)),
        }
    }

    /// A float that must be greater than zero (a size, a spacing or a texture repeat: zero
    /// would divide by zero), the error at the argument.
    pub fn positive_f32(&mut self, what: &str) -> Result<f32, Diagnostic> {
        let col = self.clone().next_token().map_or(1, |(_, c)| c);
        let v = self.f32(what)?;
        if v <= 0.0 {
            return Err(self.error(
                col,
                format!(
                    "{}: <{what}> must be greater than 0, found {v}",
                    self.keyword
                ),
            ));
        }
        Ok(v)
    }

    /// `LAYER_GROUP name [offset]` / `ATTR_layer_group name [offset]` after the keyword:
    /// the name lower-cased and the offset (0 when absent or not a whole number, with a
    /// warning); an unknown group name is a warning (drawn as `footprints`), and so is an
    /// offset outside −5..5 (as WED warns).
    pub fn layer_group(
        &mut self,
        warnings: &mut Vec<Diagnostic>,
    ) -> Result<(String, i32), Diagnostic> {
        let name = self.word("layer group")?.to_ascii_lowercase();
        let offset = match self.next_token() {
            Some((t, col)) => t.parse::<i32>().unwrap_or_else(|_| {
                warnings.push(self.warning(
                    col,
                    format!("offset `{t}` is not a whole number; 0 is used"),
                ));
                0
            }),
            None => 0,
        };
        self.expect_end(warnings);
        let known = crate::scene::LAYER_GROUPS.contains(&name.as_str()) || name == "cars";
        if !known {
            warnings.push(
                self.warning_kw(format!("unknown layer group `{name}`; drawn as footprints")),
            );
        }
        if offset.abs() > 5 {
            warnings.push(self.warning_kw(format!(
                "layer group offset {offset} is outside -5..5, the range X-Plane documents"
            )));
        }
        Ok((name, offset))
    }

    /// A finite 64-bit float.
    pub fn f64(&mut self, what: &str) -> Result<f64, Diagnostic> {
        let (tok, col) = self.word_col(what)?;
        parse_f64(tok).ok_or_else(|| self.bad_number(what, tok, col))
    }

    /// A finite 64-bit float and its column.
    pub fn f64_col(&mut self, what: &str) -> Result<(f64, u32), Diagnostic> {
        let (tok, col) = self.word_col(what)?;
        match parse_f64(tok) {
            Some(v) => Ok((v, col)),
            None => Err(self.bad_number(what, tok, col)),
        }
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
        self.int_of(what, tok, col)
    }

    fn int_of(&self, what: &str, tok: &str, col: u32) -> Result<i64, Diagnostic> {
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
        let (tok, col) = self.word_col(what)?;
        let v = self.int_of(what, tok, col)?;
        if v < lo || v > hi {
            return Err(self
                .error(
                    col,
                    format!("{}: <{what}> is {v}, outside {lo}..={hi}", self.keyword),
                )
                .with_kind(crate::diag::kind::OUT_OF_RANGE));
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
        .with_kind(crate::diag::kind::SYNTAX)
    }

    /// A warning if arguments are left over; they are ignored.
    pub fn expect_end(&mut self, warnings: &mut Vec<Diagnostic>) {
        if let Some((tok, col)) = self.next_token() {
            warnings.push(
                self.warning(
                    col,
                    format!(
                        "{}: unexpected extra argument `{tok}` ignored",
                        self.keyword
                    ),
                )
                .with_kind(crate::diag::kind::SYNTAX),
            );
            self.pos = self.text.len();
        }
    }
}

/// Parses a finite `f32`; `None` for anything else (including `nan`, `inf`).
pub fn parse_f32(tok: &str) -> Option<f32> {
    let b = tok.as_bytes();
    if let Some(v) = fast_f32(b) {
        return Some(v);
    }
    // Rust's parser accepts "inf", "nan" and "infinity"; X-Plane's files never hold them.
    if b.is_empty() || !(b[0].is_ascii_digit() || matches!(b[0], b'-' | b'+' | b'.')) {
        return None;
    }
    tok.parse::<f32>().ok().filter(|v| v.is_finite())
}

/// Exact powers of ten as `f64` (all of 10^0..=10^22 are exactly representable).
const POW10: [f64; 23] = [
    1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16,
    1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
];

/// Parses the plain form `[+-]digits[.digits]` (no exponent) with at most 19 digits whose
/// value fits 2^53; `None` for anything else, which the caller hands to `str::parse`.
///
/// The mantissa and the power of ten are both exact in `f64`, so the one division is
/// correctly rounded (Clinger's fast path); narrowing to `f32` rounds a second time, which
/// can differ from a direct `f32` parse by at most one ulp (the tests check this).
#[inline]
pub fn fast_f32(tok: &[u8]) -> Option<f32> {
    fast_f64(tok).map(|v| v as f32)
}

/// [`fast_f32`]'s plain form as an `f64`: correctly rounded, so exactly what `str::parse`
/// gives.
#[inline]
pub fn fast_f64(tok: &[u8]) -> Option<f64> {
    let (neg, digits) = match tok.first()? {
        b'-' => (true, &tok[1..]),
        b'+' => (false, &tok[1..]),
        _ => (false, tok),
    };
    let mut mant: u64 = 0;
    let mut n_digits = 0u32;
    let mut frac = 0usize;
    let mut dot = false;
    for &c in digits {
        if c.is_ascii_digit() {
            n_digits += 1;
            if n_digits > 19 {
                return None;
            }
            mant = mant * 10 + (c - b'0') as u64;
            if dot {
                frac += 1;
            }
        } else if c == b'.' && !dot {
            dot = true;
        } else {
            return None;
        }
    }
    if n_digits == 0 || mant > (1u64 << 53) || frac >= POW10.len() {
        return None;
    }
    let v = mant as f64 / POW10[frac];
    Some(if neg { -v } else { v })
}

/// Parses a finite `f64`; `None` for anything else.
pub fn parse_f64(tok: &str) -> Option<f64> {
    let b = tok.as_bytes();
    if let Some(v) = fast_f64(b) {
        return Some(v);
    }
    if b.is_empty() || !(b[0].is_ascii_digit() || matches!(b[0], b'-' | b'+' | b'.')) {
        return None;
    }
    tok.parse::<f64>().ok().filter(|v| v.is_finite())
}

/// Parses an integer, accepting a whole float such as `2.0`.
pub fn parse_int(tok: &str) -> Option<i64> {
    let b = tok.as_bytes();
    if !b.is_empty() && b.len() <= 18 && b.iter().all(u8::is_ascii_digit) {
        // The common case (indices, levels): plain digits that cannot overflow.
        return Some(b.iter().fold(0i64, |v, &c| v * 10 + i64::from(c - b'0')));
    }
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

    #[test]
    fn f64_fast_path_is_what_std_parses() {
        let mut rng = crate::format::XorShift(0x2545_F491_4F6C_DD1D);
        let mut next = || rng.next();
        for _ in 0..50_000 {
            let r = next();
            let mut t = String::new();
            if r & 1 == 1 {
                t.push('-');
            }
            let digits = 1 + (r >> 8) % 19;
            let dot = (r >> 16) % (digits + 1);
            let mut d = next();
            for k in 0..digits {
                if k == dot && k > 0 {
                    t.push('.');
                }
                t.push((b'0' + (d % 10) as u8) as char);
                d /= 10;
                if d == 0 {
                    d = next();
                }
            }
            let want: f64 = t.parse().unwrap();
            assert_eq!(
                parse_f64(&t).map(f64::to_bits),
                Some(want.to_bits()),
                "`{t}`"
            );
        }
        for t in [
            "-0",
            "-0.0",
            "+1.5",
            "5.",
            ".5",
            "9007199254740993",
            "1e5",
            "0.1234567890123456789012",
        ] {
            assert_eq!(parse_f64(t), t.parse::<f64>().ok(), "`{t}`");
        }
        for t in ["", "-", ".", "nan", "inf", "1.2.3", "1x"] {
            assert_eq!(parse_f64(t), None, "`{t}`");
        }
    }

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
    fn tagged_comments_are_lines_and_other_comments_are_not() {
        let src = "WALL 1\n  #cabin 2 # glass\n#tunnel t.obj 1\n# cabin 3\n#cabins 1\n";
        let mut tf =
            TextFile::new(Path::new("f"), src.as_bytes()).with_tags(&["#cabin", "#tunnel"]);
        let mut got = Vec::new();
        while let Some(l) = tf.next() {
            let mut l = l.unwrap();
            let mut args = Vec::new();
            while let Some((t, _)) = l.next_token() {
                args.push(t.to_string());
            }
            got.push((l.number, l.keyword.to_string(), l.keyword_col, args));
        }
        assert_eq!(
            got,
            vec![
                (1, "WALL".into(), 1, vec!["1".to_string()]),
                (2, "#cabin".into(), 3, vec!["2".to_string()]),
                (
                    3,
                    "#tunnel".into(),
                    1,
                    vec!["t.obj".to_string(), "1".to_string()]
                ),
            ]
        );
        // Without tags they are comments.
        assert_eq!(lines(src), vec![(1, "WALL".into())]);
    }

    #[test]
    fn a_line_ends_at_cr_lf_or_both() {
        let want = vec![(1, "A".into()), (3, "TILE".into()), (4, "X".into())];
        for end in ["\n", "\r\n", "\r"] {
            let src = crate::lines::with_line_ends("A\n\nTILE 1\nX 2", end);
            assert_eq!(lines(&src), want, "{src:?}");
            let src = format!("{src}{end}");
            assert_eq!(lines(&src), want, "{src:?}");
        }
        // A bare `\r` before a `\r\n` ends a line of its own, as an editor shows it.
        assert_eq!(
            lines("A\r\r\nB\n\rC"),
            vec![(1, "A".into()), (3, "B".into()), (5, "C".into())]
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
    fn comments_may_hold_any_bytes() {
        let p = Path::new("f.obj");
        // A Windows-1252 `é` (0xE9) in a whole-line comment and after a directive.
        let src = b"# caf\xe9 by Ren\xe9\nTEXTURE a.png # r\xe9sum\xe9\nTILE#\xff 1\n";
        let mut tf = TextFile::new(p, src);
        let l = tf.next().unwrap().unwrap();
        assert_eq!((l.keyword, l.number), ("TEXTURE", 2));
        // `#` inside a token starts no comment: the byte is in a token, an error.
        let e = tf.next().unwrap().unwrap_err();
        assert!(
            e.to_string()
                .starts_with("f.obj:3:6: error: invalid UTF-8 byte 0xFF"),
            "{e}"
        );
    }

    #[test]
    fn bytes_that_are_not_utf8_are_kept_in_names() {
        use crate::diag::{escaped, shown_path, text_path};
        let p = Path::new("f.agp");
        let raw = b"A\nOBJECT objects\\caf\xe9.obj # r\xe9sum\xe9\nTILE \xff 1\n";
        let src = readable(raw);
        let mut tf = TextFile::new(p, &src);
        tf.next().unwrap().unwrap();
        let mut l = tf.next().unwrap().unwrap();
        let (name, _) = l.next_token().unwrap();
        assert!(l.at_end(), "the comment is skipped");
        assert_eq!(escaped(name), "objects\\caf\\xE9.obj");
        let path = name_path(name);
        // As the Scene keeps it and the user sees it, and back: on Linux the byte itself, on
        // Windows (UTF-16 names) the code page's `é`.
        if cfg!(unix) {
            assert_eq!(path.as_os_str().as_encoded_bytes(), b"objects/caf\xe9.obj");
            assert_eq!(shown_path(&path), "objects/caf\\xE9.obj");
        } else {
            assert_eq!(path, PathBuf::from("objects/caf\u{e9}.obj"));
            assert_eq!(shown_path(&path), "objects/caf\u{e9}.obj");
        }
        assert_eq!(text_path(&shown_path(&path)), path);
        // An escape of a byte that is valid alone (ASCII) is not one agview writes: kept.
        assert_eq!(text_path("a\\x41b"), PathBuf::from("a\\x41b"));
        // A stray byte in a number is a bad number at its own column, not a refused file.
        let mut l = tf.next().unwrap().unwrap();
        let e = l.f32("left").unwrap_err().to_string();
        assert_eq!(
            e,
            "f.agp:3:6: error: TILE: <left> must be a number, found `\\xFF`"
        );
        // Valid UTF-8 is borrowed untouched.
        assert!(matches!(readable("caf\u{e9}".as_bytes()), Cow::Borrowed(_)));
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
