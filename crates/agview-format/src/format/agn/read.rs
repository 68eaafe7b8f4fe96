//! The RIFF machinery of the `.agn` reader: chunks, their walk, and fields read against a
//! chunk's end.

use super::*;
use crate::diag::{Location, Severity, WarningCap};
use std::fmt;

/// A chunk found in the file: its tag, the offset of its header and its payload range.
#[derive(Debug, Clone, Copy)]
pub(super) struct Chunk {
    pub(super) tag: [u8; 4],
    pub(super) offset: usize,
    pub(super) start: usize,
    pub(super) end: usize,
}

impl Chunk {
    pub(super) fn name(&self) -> String {
        tag_name(self.tag)
    }

    pub(super) fn size(&self) -> usize {
        self.end - self.start
    }
}

/// A tag as text: its characters when they are printable ASCII, else its bytes in hex.
pub(super) fn tag_name(tag: [u8; 4]) -> String {
    if tag.iter().all(|b| b.is_ascii_graphic() || *b == b' ') {
        tag.iter().map(|&b| b as char).collect()
    } else {
        format!("0x{:02x}{:02x}{:02x}{:02x}", tag[0], tag[1], tag[2], tag[3])
    }
}

/// Reads a little-endian u32 at `pos`; the caller has checked `pos + 4 <= bytes.len()`.
pub(super) fn read_u32(bytes: &[u8], pos: usize) -> usize {
    let mut a = [0u8; 4];
    if let Some(s) = bytes.get(pos..pos + 4) {
        a.copy_from_slice(s);
    }
    u32::from_le_bytes(a) as usize
}

pub(super) struct Reader<'a> {
    pub(super) path: &'a Path,
    pub(super) bytes: &'a [u8],
}

impl Reader<'_> {
    pub(super) fn error(&self, offset: usize, message: impl Into<String>) -> Diagnostic {
        Diagnostic::error_offset(self.path, offset as u64, message)
    }

    /// Reports a chunk that is unknown, or a record chunk outside its container.
    pub(super) fn unknown(&self, c: Chunk, parent: &Chunk, sink: &mut Sink) {
        let (kind, what) = if is_record_tag(c.tag) {
            ("misplaced chunk", "misplaced")
        } else {
            ("unknown chunk", "unknown")
        };
        sink.warn(kind, c.offset, || {
            format!(
                "{what} chunk {} at offset {} ({} bytes) in the {} chunk skipped",
                c.name(),
                c.offset,
                c.size(),
                parent.name()
            )
        });
    }

    /// The chunks in `parent`'s payload from `start` to its end, one at a time (a file of
    /// millions of chunks is walked without a list of them). Odd-sized chunks are followed
    /// by RIFF's one pad byte when it is there (a zero byte); a writer that does not pad is
    /// read too, since a tag never starts with a zero byte. A chunk that runs past its
    /// parent ends the walk with an error: where the next chunk starts is then unknown.
    pub(super) fn children<'r>(&'r self, parent: &Chunk, start: usize) -> ChunkWalk<'r> {
        ChunkWalk {
            bytes: self.bytes,
            r: self,
            parent: *parent,
            pos: start,
            done: false,
        }
    }
}

/// The walk over one chunk's children ([`Reader::children`]).
pub(super) struct ChunkWalk<'r> {
    bytes: &'r [u8],
    r: &'r Reader<'r>,
    parent: Chunk,
    pos: usize,
    done: bool,
}

impl Iterator for ChunkWalk<'_> {
    type Item = Result<Chunk, Diagnostic>;

    fn next(&mut self) -> Option<Self::Item> {
        let (parent, pos) = (self.parent, self.pos);
        if self.done || pos >= parent.end {
            return None;
        }
        let left = parent.end - pos;
        if left < 8 {
            self.done = true;
            return Some(Err(self.r.error(
                pos,
                format!(
                    "truncated chunk header at offset {pos} in the {} chunk at offset {}: {left} bytes left, a chunk header needs 8; those bytes are skipped",
                    parent.name(),
                    parent.offset
                ),
            )));
        }
        let b = self.bytes;
        let tag = [b[pos], b[pos + 1], b[pos + 2], b[pos + 3]];
        let size = read_u32(b, pos + 4);
        let start = pos + 8;
        if size > parent.end - start {
            self.done = true;
            let past = if parent.end == b.len() {
                "the end of the file".to_string()
            } else {
                format!(
                    "the end of its parent {} chunk at offset {}",
                    parent.name(),
                    parent.offset
                )
            };
            return Some(Err(self.r.error(
                pos,
                format!(
                    "{} chunk at offset {pos} has size {size}, which runs past {past} by {} bytes; it and the rest of the {} chunk are skipped",
                    tag_name(tag),
                    size - (parent.end - start),
                    parent.name()
                ),
            )));
        }
        let end = start + size;
        self.pos = end;
        if size % 2 == 1 && end < parent.end && b[end] == 0 {
            self.pos += 1;
        }
        Some(Ok(Chunk {
            tag,
            offset: pos,
            start,
            end,
        }))
    }
}

/// Where the reader's diagnostics go: the caller's list, each kind capped by a
/// [`WarningCap`] so that a file of millions of bad records gives a bounded list.
pub(super) struct Sink<'w> {
    pub(super) path: &'w Path,
    out: &'w mut Vec<Diagnostic>,
    cap: WarningCap,
    /// Chunks skipped because they were malformed.
    pub(super) skipped: usize,
}

impl<'w> Sink<'w> {
    pub(super) fn new(path: &'w Path, out: &'w mut Vec<Diagnostic>) -> Self {
        Sink {
            path,
            out,
            cap: WarningCap::default(),
            skipped: 0,
        }
    }

    /// A warning of `kind` at `offset`; the message is built only when it is said.
    pub(super) fn warn(
        &mut self,
        kind: &'static str,
        offset: usize,
        message: impl FnOnce() -> String,
    ) {
        if self.cap.admit(kind, Severity::Warning, offset as u64) {
            self.out.push(Diagnostic::warning_offset(
                self.path,
                offset as u64,
                message(),
            ));
        }
    }

    /// A diagnostic made elsewhere, under `kind`.
    pub(super) fn push(&mut self, kind: &'static str, d: Diagnostic) {
        let offset = match d.location {
            Location::Offset(o) => o,
            _ => 0,
        };
        if self.cap.admit(kind, d.severity, offset) {
            self.out.push(d);
        }
    }

    /// A malformed chunk: its error, saying that the chunk is skipped.
    pub(super) fn skip_chunk(&mut self, mut e: Diagnostic) {
        self.skipped += 1;
        if !e.message.contains("skipped") {
            e.message.push_str("; the chunk is skipped");
        }
        self.push("malformed chunk skipped", e);
    }

    /// Appends the counts of what was not said.
    pub(super) fn finish(self) {
        self.out.extend(self.cap.summary(self.path));
    }
}

pub(super) fn is_record_tag(tag: [u8; 4]) -> bool {
    matches!(&tag, b"GBLR" | b"PRDE" | b"VGRE" | b"A2GE" | b"PBDE")
}

/// Keeps the first of a section that should occur once.
pub(super) fn set_once<T>(slot: &mut Option<T>, value: T, c: Chunk, warnings: &mut Sink) {
    if slot.is_some() {
        warnings.warn("second chunk of a kind that occurs once", c.offset, || {
            format!(
                "second {} chunk at offset {} ignored; the first one is used",
                c.name(),
                c.offset
            )
        });
    } else {
        *slot = Some(value);
    }
}

/// Reads the fields of one chunk's payload, each checked against the chunk's end.
pub(super) struct Fields<'r, 'a> {
    pub(super) r: &'r Reader<'a>,
    pub(super) chunk: Chunk,
    pub(super) pos: usize,
}

impl<'r, 'a> Fields<'r, 'a> {
    pub(super) fn new(r: &'r Reader<'a>, chunk: Chunk) -> Self {
        Fields {
            r,
            chunk,
            pos: chunk.start,
        }
    }

    pub(super) fn remaining(&self) -> usize {
        self.chunk.end - self.pos
    }

    /// "GBLR chunk at offset 40": how messages name the chunk.
    pub(super) fn at(&self) -> String {
        format!(
            "{} chunk at offset {}",
            self.chunk.name(),
            self.chunk.offset
        )
    }

    // `what` names the field for an error message; it is `Display` (a `&str`, or
    // `format_args!`) so that naming a field costs nothing until an error is made.
    pub(super) fn take<const N: usize>(
        &mut self,
        what: impl fmt::Display,
    ) -> Result<[u8; N], Diagnostic> {
        if self.remaining() < N {
            return Err(self.r.error(
                self.pos,
                format!(
                    "{}: truncated: the {what} needs {N} bytes at offset {}, the chunk has {} left",
                    self.at(),
                    self.pos,
                    self.remaining()
                ),
            ));
        }
        let mut a = [0u8; N];
        a.copy_from_slice(&self.r.bytes[self.pos..self.pos + N]);
        self.pos += N;
        Ok(a)
    }

    pub(super) fn i32(&mut self, what: impl fmt::Display) -> Result<i32, Diagnostic> {
        Ok(i32::from_le_bytes(self.take(what)?))
    }

    pub(super) fn f32(&mut self, what: impl fmt::Display + Copy) -> Result<f32, Diagnostic> {
        let pos = self.pos;
        let v = f32::from_le_bytes(self.take(what)?);
        if !v.is_finite() {
            return Err(self.r.error(
                pos,
                format!(
                    "{}: the {what} at offset {pos} is {v}, not a finite number",
                    self.at()
                ),
            ));
        }
        Ok(v)
    }

    pub(super) fn point(&mut self, what: impl fmt::Display + Copy) -> Result<Point, Diagnostic> {
        Ok([
            self.f32(format_args!("{what} x"))?,
            self.f32(format_args!("{what} y"))?,
        ])
    }

    pub(super) fn guid(&mut self, what: &str) -> Result<Guid, Diagnostic> {
        Ok(Guid(self.take(what)?))
    }

    /// Checks that what is left is a whole number of `size`-byte records.
    pub(super) fn expect_records(&self, size: usize, what: &str) -> Result<(), Diagnostic> {
        if !self.remaining().is_multiple_of(size) {
            let before = self.pos - self.chunk.start;
            let head = if before > 0 {
                format!("{before} + ")
            } else {
                String::new()
            };
            return Err(self.r.error(
                self.chunk.offset,
                format!(
                    "{}: size {} is not {head}a multiple of {size} ({what})",
                    self.at(),
                    self.chunk.size()
                ),
            ));
        }
        Ok(())
    }

    /// Reads an int32 count of `item`s of `item_size` bytes and checks they fit in the chunk.
    pub(super) fn count(&mut self, item: &str, item_size: usize) -> Result<usize, Diagnostic> {
        let pos = self.pos;
        let n = self.i32(format_args!("{item} count"))?;
        if n < 0 {
            return Err(self.r.error(
                pos,
                format!(
                    "{}: {item} count {n} at offset {pos} is negative",
                    self.at()
                ),
            ));
        }
        let needed = (n as u64).saturating_mul(item_size as u64);
        if needed > self.remaining() as u64 {
            return Err(self.r.error(
                pos,
                format!(
                    "{}: {item} count {n} at offset {pos} needs {needed} bytes, the chunk has {} left",
                    self.at(),
                    self.remaining()
                ),
            ));
        }
        Ok(n as usize)
    }

    pub(super) fn vertices(&mut self) -> Result<Vec<Point>, Diagnostic> {
        let n = self.count("vertex", 8)?;
        let mut out = Vec::with_capacity(n);
        for _ in 0..n {
            out.push(self.point("vertex")?);
        }
        Ok(out)
    }

    pub(super) fn footprint(&mut self, what: &str) -> Result<Footprint, Diagnostic> {
        Ok(Footprint {
            offset: self.pos as u64,
            start: self.point(format_args!("{what} first point"))?,
            to_second: self.point(format_args!("{what} direction to the second point"))?,
            to_third: self.point(format_args!("{what} offset of the third point"))?,
        })
    }

    pub(super) fn rect(&mut self) -> Result<Rect, Diagnostic> {
        Ok(Rect {
            offset: self.pos as u64,
            start: self.point("rectangle first point")?,
            to_second: self.point("rectangle offset to the second point")?,
        })
    }

    /// Warns about bytes left after a fixed-size section.
    pub(super) fn finish(&self, warnings: &mut Sink) {
        if self.remaining() > 0 {
            warnings.warn("extra bytes after a fixed-size section", self.pos, || {
                format!("{}: {} extra bytes ignored", self.at(), self.remaining())
            });
        }
    }
}
