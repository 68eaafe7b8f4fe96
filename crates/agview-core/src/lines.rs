//! Where a line of text ends, the one rule every text reader and every `path:line:col` uses.
//!
//! X-Plane's text scanner ends a line at either `\r` or `\n` (`iseoln` and
//! `TextScanner_Next` in xptools' `src/Utils/MemFileUtils.cpp`), so a file reads the same
//! whether it was saved with Unix (`\n`), Windows (`\r\n`) or classic Mac (`\r`) line ends.
//! agview does the same, and counts lines as an editor shows them: `\r\n` is one line end,
//! a bare `\r` or `\n` is one too. Columns count characters from the start of the line.

use std::borrow::Cow;

/// True for the bytes that end a line: `\n` and `\r`.
#[inline]
pub fn is_line_end(b: u8) -> bool {
    b == b'\n' || b == b'\r'
}

/// How many bytes the line end at the start of `b` takes: 2 for `\r\n`, 1 for a bare `\r`
/// or `\n`, 0 when `b` does not start with one.
#[inline]
pub fn line_end_len(b: &[u8]) -> usize {
    match b {
        [b'\r', b'\n', ..] => 2,
        [c, ..] if is_line_end(*c) => 1,
        _ => 0,
    }
}

/// The length of the line `b` starts with: the position of its first `\r` or `\n`, or
/// `b.len()`. Looks at eight bytes at a time (the readers' hot loop).
#[inline]
pub fn find_line_end(b: &[u8]) -> usize {
    const LO: u64 = 0x0101_0101_0101_0101;
    const HI: u64 = 0x8080_8080_8080_8080;
    const LF: u64 = LO * b'\n' as u64;
    const CR: u64 = LO * b'\r' as u64;
    let mut i = 0;
    while i + 8 <= b.len() {
        let mut w = [0u8; 8];
        w.copy_from_slice(&b[i..i + 8]);
        let w = u64::from_le_bytes(w);
        // A byte of `lf` (`cr`) is zero where `w` holds a `\n` (`\r`); the lowest flag set
        // is always a true match (a false one needs a true zero below it in the same word).
        let (lf, cr) = (w ^ LF, w ^ CR);
        let found = (lf.wrapping_sub(LO) & !lf | cr.wrapping_sub(LO) & !cr) & HI;
        if found != 0 {
            return i + (found.trailing_zeros() / 8) as usize;
        }
        i += 8;
    }
    b[i..]
        .iter()
        .position(|&c| is_line_end(c))
        .map_or(b.len(), |p| i + p)
}

/// The lines of `text`, each without its line end, as [`str::lines`] gives them but ending
/// at `\r` as well: a final line end adds no empty line.
pub fn lines(text: &str) -> Lines<'_> {
    Lines { rest: text }
}

/// The iterator [`lines`] returns.
#[derive(Debug, Clone)]
pub struct Lines<'a> {
    rest: &'a str,
}

impl<'a> Iterator for Lines<'a> {
    type Item = &'a str;

    fn next(&mut self) -> Option<&'a str> {
        if self.rest.is_empty() {
            return None;
        }
        let b = self.rest.as_bytes();
        let len = find_line_end(b);
        let next = len + line_end_len(&b[len..]);
        // Both cuts are at ASCII bytes, so on character boundaries.
        let line = &self.rest[..len];
        self.rest = &self.rest[next..];
        Some(line)
    }
}

/// Counts lines and columns (1-based, columns in characters) over bytes given one at a
/// time, the way [`lines`] splits them: `\r\n` moves one line on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LineCounter {
    line: u32,
    col: u32,
    after_cr: bool,
}

impl Default for LineCounter {
    fn default() -> Self {
        LineCounter {
            line: 1,
            col: 1,
            after_cr: false,
        }
    }
}

impl LineCounter {
    /// At line 1, column 1.
    pub fn new() -> Self {
        Self::default()
    }

    /// Moves past one byte of UTF-8 text (a continuation byte is part of the character
    /// before it and moves no column).
    #[inline]
    pub fn step(&mut self, b: u8) {
        let after_cr = std::mem::replace(&mut self.after_cr, b == b'\r');
        if b == b'\r' || (b == b'\n' && !after_cr) {
            self.line = self.line.saturating_add(1);
            self.col = 1;
        } else if b != b'\n' && b & 0xC0 != 0x80 {
            self.col = self.col.saturating_add(1);
        }
    }

    /// Moves past every byte of `bytes`.
    pub fn advance(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.step(b);
        }
    }

    /// The 1-based line and column of the next byte.
    pub fn position(&self) -> (u32, u32) {
        (self.line, self.col)
    }
}

/// The 1-based line and column (in characters) of byte `offset` of `text`.
pub fn line_col(text: &[u8], offset: usize) -> (u32, u32) {
    let mut c = LineCounter::new();
    c.advance(&text[..offset.min(text.len())]);
    c.position()
}

/// `bytes` with each bare `\r` (one not followed by `\n`) made a `\n`: the same length, the
/// same lines by this module's rule, for a reader that ends lines only at `\n` (the XML and
/// Wavefront libraries). Borrowed when there is no bare `\r`.
pub fn bare_cr_as_lf(bytes: &[u8]) -> Cow<'_, [u8]> {
    let bare = |i: usize| bytes[i] == b'\r' && bytes.get(i + 1) != Some(&b'\n');
    if !(0..bytes.len()).any(bare) {
        return Cow::Borrowed(bytes);
    }
    let mut out = bytes.to_vec();
    for (i, b) in out.iter_mut().enumerate() {
        if *b == b'\r' && bytes.get(i + 1) != Some(&b'\n') {
            *b = b'\n';
        }
    }
    Cow::Owned(out)
}

/// `text` with every line end (`\r\n`, `\r` or `\n`) written as `end`: how the tests make
/// the Windows and classic Mac forms of a file.
pub fn with_line_ends(text: &str, end: &str) -> String {
    let mut out = String::with_capacity(text.len() + text.len() / 16);
    let b = text.as_bytes();
    let mut i = 0;
    while i < b.len() {
        let len = find_line_end(&b[i..]);
        out.push_str(&text[i..i + len]);
        let eol = line_end_len(&b[i + len..]);
        if eol > 0 {
            out.push_str(end);
        }
        i += len + eol;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_either_line_end() {
        for s in [
            &b""[..],
            b"\n",
            b"\r",
            b"abc",
            b"abcdefgh\n",
            b"abcdefgh\r\n",
            b"abcdefghijklmnop",
            b"abcdefghijk\nxy",
            b"abcdefghijk\rxy\n",
            b"abcdefg\r\n",
            b"abcdefghijklmn\r",
            "\u{e9}\r".as_bytes(),
            // Bytes one bit away from a line end are not one.
            b"\x8d\x8a\x0c\x0b\x2d\x2a\x1d\x1aabcdefgh\r",
        ] {
            let want = s
                .iter()
                .position(|&c| c == b'\n' || c == b'\r')
                .unwrap_or(s.len());
            assert_eq!(find_line_end(s), want, "{s:?}");
        }
        // Every position of a long line, so that each byte of a word is tried.
        for k in 0..40 {
            for end in [b'\n', b'\r'] {
                let mut v = vec![b'x'; 40];
                v[k] = end;
                assert_eq!(find_line_end(&v), k);
            }
        }
    }

    #[test]
    fn the_three_line_ends_give_the_same_lines() {
        let lf = "A\n\n850\n  x y \nlast";
        let want: Vec<&str> = lf.lines().collect();
        for end in ["\n", "\r\n", "\r"] {
            let t = with_line_ends(lf, end);
            assert_eq!(lines(&t).collect::<Vec<_>>(), want, "{t:?}");
            let t = format!("{t}{end}");
            assert_eq!(lines(&t).collect::<Vec<_>>(), want, "{t:?}");
        }
        // A bare `\r` before a `\r\n` is two line ends; `\n\r` is two as well.
        assert_eq!(
            lines("a\r\r\nb\n\rc").collect::<Vec<_>>(),
            ["a", "", "b", "", "c"]
        );
    }

    #[test]
    fn lines_and_columns_count_a_crlf_once() {
        let lf = "ab\nçd\n\nxyz";
        for end in ["\n", "\r\n", "\r"] {
            let t = with_line_ends(lf, end);
            let at = |needle: char| line_col(t.as_bytes(), t.find(needle).unwrap());
            assert_eq!(at('b'), (1, 2), "{t:?}");
            assert_eq!(at('d'), (2, 2), "{t:?}");
            assert_eq!(at('z'), (4, 3), "{t:?}");
            // The line end itself is at the end of its line.
            assert_eq!(line_col(t.as_bytes(), 2), (1, 3), "{t:?}");
            assert_eq!(line_col(t.as_bytes(), t.len()), (4, 4), "{t:?}");
        }
    }

    #[test]
    fn bare_cr_becomes_lf_and_crlf_stays() {
        assert!(matches!(bare_cr_as_lf(b"a\r\nb\n"), Cow::Borrowed(_)));
        assert_eq!(&*bare_cr_as_lf(b"a\rb\r\nc\r"), b"a\nb\r\nc\n");
    }
}
