//! Binary DSF (`XPLNEDSF`), as X-Plane reads it, plain or inside a 7-Zip archive (X-Plane's
//! global scenery ships that way).
//!
//! The file is the cookie `XPLNEDSF`, an int32 version (1), a list of atoms (4-character id
//! stored as a little-endian int32, int32 length including the 8-byte header), and a 16-byte
//! MD5 of everything before it. The atoms read here, as xptools' `DSFLib.cpp` reads them:
//! - `HEAD` holding `PROP`: NUL-terminated name/value pairs ([`DsfBinary::properties`]);
//! - `DEFN` holding the string tables `TERT`, `OBJT`, `POLY`, `NETW`, `DEMN`;
//! - `GEOD` holding the point pools: `POOL` + `SCAL` (16-bit), `PO32` + `SC32` (32-bit),
//!   planar, each plane raw, differenced, run-length or run-length + differenced
//!   (see [`pool`]);
//! - `CMDS`: the command stream that places objects, polygons, roads and terrain (see
//!   [`commands`]);
//! - `DEMS` (rasters) is skipped.
//!
//! Only what autogen needs is read: properties, definitions, objects and polygons. Every
//! other command is checked and counted ([`DsfBinary::command_counts`]). Objects are decoded
//! to degrees as they are read; polygons keep their points in the pools as stored and are
//! decoded on demand ([`DsfBinary::windings`]), so a tile's model is about the size of the
//! file (`model.rs` says how).
//!
//! The file is read in one pass, atom by atom ([`parse_source`]): a 7-Zip archive is read as
//! it decompresses, each top-level atom copied out of the stream, handled and dropped, so the
//! whole decompressed DSF is never in memory at once (peak: the model plus the largest
//! atom, about 1.7× the decompressed size in `benches/parse.rs`).
//!
//! Decisions where X-Plane's reader is loose or strict:
//! - X-Plane refuses a whole file for one bad command; here a command naming a pool,
//!   definition or point that does not exist is an error for that command alone, which is
//!   skipped, and reading goes on. An unknown command id cannot be skipped (its size is
//!   unknown): it is an error and the commands after it are lost, as in X-Plane.
//! - A bad or missing MD5 footer is a warning (X-Plane checks it only on request).
//! - A truncated atom is an error; what it holds up to the end of the file is still read.
//! - Those errors go into the `warnings` list (as errors) and the parse still returns its
//!   result: bad input never hides the rest. `Err` is kept for files that are not DSFs at all
//!   (no cookie, a version other than 1, an unreadable or too large 7-Zip archive).

mod commands;
mod model;
pub mod pool;
#[doc(hidden)]
pub mod write;

#[cfg(test)]
mod tests;

use std::borrow::Cow;
use std::io::{Cursor, Read};
use std::path::Path;

use md5::{Digest, Md5};

use crate::diag::Diagnostic;

pub use model::{
    DsfBinObject, DsfBinPolygon, DsfBinProperty, DsfBinWinding, DsfBinary, Md5Check, WindingPoints,
};
pub use pool::{PlaneEncoding, Pool};
pub use write::{write_dsf, DsfToWrite, PolygonToWrite};

/// Decompressed DSFs larger than this are refused ([`parse`]); X-Plane's largest global
/// scenery tiles decompress to a few hundred MB.
pub const MAX_DECOMPRESSED_BYTES: u64 = 1 << 30;

/// The DSF cookie, the first 8 bytes of every plain DSF.
pub const DSF_COOKIE: &[u8; 8] = b"XPLNEDSF";

/// The 7-Zip signature, the first 6 bytes of a compressed DSF.
pub const SEVEN_ZIP_MAGIC: &[u8; 6] = &[0x37, 0x7A, 0xBC, 0xAF, 0x27, 0x1C];

/// LZMA dictionaries larger than this are refused before they are allocated (KiB). 7-Zip's
/// own "ultra" preset uses 64 MiB.
const MAX_7Z_MEMORY_KB: usize = 512 * 1024;

/// True when the bytes start like a binary DSF: the `XPLNEDSF` cookie or the 7-Zip magic.
pub fn is_dsf_binary(head: &[u8]) -> bool {
    head.starts_with(DSF_COOKIE) || head.starts_with(SEVEN_ZIP_MAGIC)
}

/// Reads a binary DSF, plain or 7-Zip compressed, decompressing at most
/// [`MAX_DECOMPRESSED_BYTES`].
pub fn parse(
    path: &Path,
    bytes: &[u8],
    warnings: &mut Vec<Diagnostic>,
) -> Result<DsfBinary, Diagnostic> {
    parse_with_limit(path, bytes, MAX_DECOMPRESSED_BYTES, warnings)
}

/// [`parse`] with a limit on the decompressed size of a 7-Zip compressed DSF: an archive
/// that declares or produces more is refused with an error, before or while decompressing.
pub fn parse_with_limit(
    path: &Path,
    bytes: &[u8],
    max_decompressed: u64,
    warnings: &mut Vec<Diagnostic>,
) -> Result<DsfBinary, Diagnostic> {
    if bytes.starts_with(SEVEN_ZIP_MAGIC) {
        let mut d = parse_7z(path, bytes, max_decompressed, warnings)?;
        d.compressed = true;
        Ok(d)
    } else {
        parse_plain(path, bytes, warnings)
    }
}

type Archive<'a> = sevenz_rust2::ArchiveReader<Cursor<&'a [u8]>>;

/// Opens a 7-Zip archive and checks its first file entry against `limit`: returns the
/// reader, the entry's name and its declared size.
fn open_7z<'a>(
    path: &Path,
    bytes: &'a [u8],
    limit: u64,
) -> Result<(Archive<'a>, String, u64), Diagnostic> {
    use sevenz_rust2::{ArchiveReader, Password};
    let mut reader = ArchiveReader::new_with_memory_limit(
        Cursor::new(bytes),
        Password::empty(),
        MAX_7Z_MEMORY_KB,
    )
    .map_err(|e| bad_7z(path, &e))?;
    reader.set_thread_count(1);
    let Some(entry) = reader
        .archive()
        .files
        .iter()
        .find(|f| f.has_stream && !f.is_directory)
    else {
        return Err(Diagnostic::error_offset(
            path,
            0,
            "the 7-Zip archive holds no file",
        ));
    };
    let (name, declared) = (entry.name.clone(), entry.size);
    if declared > limit {
        return Err(too_big_7z(path, &name, limit));
    }
    Ok((reader, name, declared))
}

fn bad_7z(path: &Path, e: &dyn std::fmt::Display) -> Diagnostic {
    Diagnostic::error_offset(path, 0, format!("cannot read the 7-Zip archive: {e}"))
}

fn too_big_7z(path: &Path, name: &str, limit: u64) -> Diagnostic {
    Diagnostic::error_offset(
        path,
        0,
        format!("the 7-Zip archive's `{name}` decompresses to more than {limit} bytes"),
    )
}

/// Reads the DSF inside a 7-Zip archive as it decompresses (atom by atom: the whole
/// decompressed file is never held at once). Only the first file entry is read; one that
/// declares more than `limit` bytes is refused before decompressing, and a stream longer than
/// it declares is refused by the archive reader. Offsets in messages are offsets in the
/// decompressed DSF.
fn parse_7z(
    path: &Path,
    bytes: &[u8],
    limit: u64,
    warnings: &mut Vec<Diagnostic>,
) -> Result<DsfBinary, Diagnostic> {
    let (mut reader, _name, declared) = open_7z(path, bytes, limit)?;
    let total = usize::try_from(declared).unwrap_or(usize::MAX);
    let mut parsed: Option<Result<DsfBinary, Diagnostic>> = None;
    let mut stream_error: Option<String> = None;
    let result = on_first_entry(&mut reader, |r| {
        let mut src = StreamSource { r, error: None };
        parsed = Some(parse_source(path, &mut src, total, warnings));
        stream_error = src.error;
        Ok(false)
    });
    // A damaged archive is refused whole, as before the parse looked at it: its bytes may
    // be anything.
    if let Some(e) = stream_error {
        return Err(bad_7z(path, &e));
    }
    result.map_err(|e| bad_7z(path, &e))?;
    parsed.unwrap_or_else(|| {
        Err(Diagnostic::error_offset(
            path,
            0,
            "the 7-Zip archive holds no file",
        ))
    })
}

/// The DSF inside a 7-Zip archive, decompressed whole: its first file entry, refused with an
/// error when it declares or produces more than `limit` bytes. ([`parse`] does not use this:
/// it reads the DSF as it decompresses.)
pub fn unpack_7z(path: &Path, bytes: &[u8], limit: u64) -> Result<Vec<u8>, Diagnostic> {
    let (mut reader, name, declared) = open_7z(path, bytes, limit)?;
    let mut out = Vec::new();
    let mut over = false;
    let result = on_first_entry(&mut reader, |r| {
        // sevenz-rust2 already ends the entry at its declared size (checked against the
        // limit above) and rejects a longer stream; this cap guards the limit on its own.
        over = read_capped(r, declared, limit, &mut out)?;
        Ok(over)
    });
    if over {
        return Err(too_big_7z(path, &name, limit));
    }
    result.map_err(|e| bad_7z(path, &e))?;
    Ok(out)
}

/// Runs `read` on the stream of the archive's first file entry; later entries are never
/// decompressed. When `read` returns false the reader then drains the rest of the entry
/// (nothing, when its size was honest), refuses a stream longer than declared and checks the
/// entry's CRC; true stops at once.
fn on_first_entry(
    reader: &mut Archive,
    mut read: impl FnMut(&mut dyn Read) -> Result<bool, sevenz_rust2::Error>,
) -> Result<(), sevenz_rust2::Error> {
    use sevenz_rust2::EntryDecision;
    let mut seen = false;
    reader.for_each_entries_with_decision(|e, r| {
        if !e.has_stream || e.is_directory {
            return Ok(EntryDecision::Continue);
        }
        if seen {
            return Ok(EntryDecision::Stop);
        }
        seen = true;
        Ok(if read(r)? {
            EntryDecision::Stop
        } else {
            EntryDecision::Continue
        })
    })
}

/// Reads `r` to its end into `out`, expecting `declared` bytes, but stopping one byte past
/// `limit`: returns true when the stream holds more than `limit` bytes.
fn read_capped(
    r: &mut dyn Read,
    declared: u64,
    limit: u64,
    out: &mut Vec<u8>,
) -> std::io::Result<bool> {
    out.reserve_exact(declared.min(limit) as usize);
    r.take(limit.saturating_add(1)).read_to_end(out)?;
    Ok(out.len() as u64 > limit)
}

/// A little-endian reader over a byte slice that never panics: every read is checked.
#[derive(Clone)]
pub(crate) struct Cur<'a> {
    pub bytes: &'a [u8],
    pub pos: usize,
}

impl<'a> Cur<'a> {
    pub fn new(bytes: &'a [u8]) -> Self {
        Cur { bytes, pos: 0 }
    }

    #[inline]
    pub fn remaining(&self) -> usize {
        self.bytes.len() - self.pos
    }

    #[inline]
    pub fn take(&mut self, n: usize) -> Option<&'a [u8]> {
        let s = self.bytes.get(self.pos..self.pos.checked_add(n)?)?;
        self.pos += n;
        Some(s)
    }

    #[inline]
    pub fn u8(&mut self) -> Option<u8> {
        let b = *self.bytes.get(self.pos)?;
        self.pos += 1;
        Some(b)
    }

    #[inline]
    pub fn u16(&mut self) -> Option<u16> {
        self.take(2).map(|b| u16::from_le_bytes([b[0], b[1]]))
    }

    #[inline]
    pub fn u32(&mut self) -> Option<u32> {
        self.take(4)
            .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }

    #[inline]
    pub fn f32(&mut self) -> Option<f32> {
        self.u32().map(f32::from_bits)
    }
}

/// An atom: its id, where its header starts in the file, and its contents.
#[derive(Clone, Copy)]
pub(crate) struct Atom<'a> {
    id: [u8; 4],
    /// Offset of the atom's header in the file.
    start: usize,
    /// The contents after the 8-byte header (cut short when the atom is truncated).
    body: &'a [u8],
}

impl Atom<'_> {
    fn name(&self) -> String {
        printable(&self.id)
    }

    /// Offset in the file of the first byte of the contents.
    fn body_start(&self) -> usize {
        self.start + 8
    }
}

/// Bytes of a binary file as messages show them: printable ASCII as it is, every other
/// byte as `\xNN` (an atom id read from a damaged file can be anything).
pub(crate) fn printable(bytes: &[u8]) -> String {
    bytes
        .iter()
        .map(|&b| match b {
            b'\\' => "\\\\".to_string(),
            0x20..=0x7E => (b as char).to_string(),
            _ => format!("\\x{b:02X}"),
        })
        .collect()
}

/// The atom id as the text spelling (`HEAD`): the int32 is stored little-endian, so the bytes
/// in the file read backwards (`DAEH`).
fn atom_id(raw: [u8; 4]) -> [u8; 4] {
    [raw[3], raw[2], raw[1], raw[0]]
}

/// Splits `span`, which starts at file offset `base`, into atoms. Problems are pushed as
/// errors; a truncated atom keeps what the span holds of it. Returns the atoms and the file
/// offset where the last one ended.
fn atoms<'a>(
    path: &Path,
    span: &'a [u8],
    base: usize,
    container: &str,
    warnings: &mut Vec<Diagnostic>,
) -> (Vec<Atom<'a>>, usize) {
    let mut out = Vec::new();
    let end = span.len();
    let mut pos = 0usize;
    while pos < end {
        if end - pos < 8 {
            warnings.push(Diagnostic::error_offset(
                path,
                (base + pos) as u64,
                format!(
                    "{container}: {} stray byte(s) where an 8-byte atom header should be",
                    end - pos
                ),
            ));
            return (out, base + pos);
        }
        let h = &span[pos..pos + 8];
        let id = atom_id([h[0], h[1], h[2], h[3]]);
        let size = u32::from_le_bytes([h[4], h[5], h[6], h[7]]) as usize;
        let name = printable(&id);
        if size < 8 {
            warnings.push(Diagnostic::error_offset(
                path,
                (base + pos) as u64,
                format!("{container}: atom `{name}` has length {size}, less than its 8-byte header; the rest of {container} is unreadable"),
            ));
            return (out, base + pos);
        }
        let atom_end = pos.saturating_add(size);
        if atom_end > end {
            warnings.push(Diagnostic::error_offset(
                path,
                (base + pos) as u64,
                format!(
                    "{container}: atom `{name}` claims {size} bytes but only {} remain: the file is truncated; reading what there is",
                    end - pos
                ),
            ));
            out.push(Atom {
                id,
                start: base + pos,
                body: &span[pos + 8..end],
            });
            return (out, base.saturating_add(atom_end));
        }
        out.push(Atom {
            id,
            start: base + pos,
            body: &span[pos + 8..atom_end],
        });
        pos = atom_end;
    }
    (out, base + pos)
}

/// The strings of a string-table atom (`PROP`, `TERT`, …): each NUL-terminated.
fn string_table(path: &Path, atom: &Atom, warnings: &mut Vec<Diagnostic>) -> Vec<String> {
    let mut body = atom.body;
    if body.is_empty() {
        return Vec::new();
    }
    if body.last() != Some(&0) {
        warnings.push(Diagnostic::warning_offset(
            path,
            (atom.body_start() + body.len()) as u64,
            format!(
                "string table `{}`: the last string has no terminating NUL",
                atom.name()
            ),
        ));
    } else {
        body = &body[..body.len() - 1];
    }
    body.split(|&b| b == 0)
        .map(|s| String::from_utf8_lossy(s).into_owned())
        .collect()
}

/// The first atom with this id, warning about later ones (X-Plane reads only the first).
fn first<'a, 'b>(
    path: &Path,
    list: &'b [Atom<'a>],
    id: &[u8; 4],
    warnings: &mut Vec<Diagnostic>,
) -> Option<&'b Atom<'a>> {
    let mut found = list.iter().filter(|a| &a.id == id);
    let a = found.next()?;
    for extra in found {
        warnings.push(Diagnostic::warning_offset(
            path,
            extra.start as u64,
            format!(
                "a second `{}` atom: X-Plane reads only the first",
                extra.name()
            ),
        ));
    }
    Some(a)
}

/// Where a DSF's bytes come from: the file in memory (borrowed, no copy) or a 7-Zip entry
/// read as it decompresses (each atom copied out of the stream in turn, so the whole
/// decompressed file is never in memory at once).
trait Source<'a> {
    /// The next `n` bytes; fewer only when the input ends first. `Err`: the input failed.
    fn take(&mut self, n: usize) -> Result<Cow<'a, [u8]>, String>;

    /// Passes over the next `n` bytes, hashing them; returns how many there were.
    fn skip(&mut self, n: usize, md5: &mut Md5) -> Result<usize, String>;
}

struct SliceSource<'a> {
    bytes: &'a [u8],
    pos: usize,
}

impl<'a> Source<'a> for SliceSource<'a> {
    fn take(&mut self, n: usize) -> Result<Cow<'a, [u8]>, String> {
        let end = self.pos.saturating_add(n).min(self.bytes.len());
        let s = &self.bytes[self.pos..end];
        self.pos = end;
        Ok(Cow::Borrowed(s))
    }

    fn skip(&mut self, n: usize, md5: &mut Md5) -> Result<usize, String> {
        let s = self.take(n)?;
        md5.update(&s);
        Ok(s.len())
    }
}

struct StreamSource<'r> {
    r: &'r mut dyn Read,
    /// The first read error: the data ends there.
    error: Option<String>,
}

impl<'a> Source<'a> for StreamSource<'_> {
    fn take(&mut self, n: usize) -> Result<Cow<'a, [u8]>, String> {
        // `n` is bounded by the declared size, itself bounded by the caller's limit.
        let mut v = Vec::with_capacity(n);
        if self.error.is_none() {
            if let Err(e) = (&mut *self.r).take(n as u64).read_to_end(&mut v) {
                self.error = Some(e.to_string());
            }
        }
        Ok(Cow::Owned(v))
    }

    fn skip(&mut self, n: usize, md5: &mut Md5) -> Result<usize, String> {
        let mut buf = vec![0u8; 64 * 1024];
        let mut left = n;
        while left > 0 && self.error.is_none() {
            let want = left.min(buf.len());
            let got = match self.r.read(&mut buf[..want]) {
                Ok(0) => break,
                Ok(n) => n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(e) => {
                    self.error = Some(e.to_string());
                    break;
                }
            };
            md5.update(&buf[..got]);
            left -= got;
        }
        Ok(n - left)
    }
}

/// Reads an uncompressed DSF of `total` bytes from a stream, atom by atom, as a 7-Zip
/// archive is read ([`parse`] uses this for archives). A stream that ends or fails before
/// `total` bytes is read as a truncated file.
pub fn parse_stream(
    path: &Path,
    r: &mut dyn Read,
    total: u64,
    warnings: &mut Vec<Diagnostic>,
) -> Result<DsfBinary, Diagnostic> {
    let mut src = StreamSource { r, error: None };
    let total = usize::try_from(total.min(MAX_DECOMPRESSED_BYTES)).unwrap_or(usize::MAX);
    let d = parse_source(path, &mut src, total, warnings);
    if let Some(e) = src.error {
        warnings.push(Diagnostic::error_offset(
            path,
            0,
            format!("reading the DSF failed: {e}"),
        ));
    }
    d
}

/// Parses an uncompressed DSF held in memory.
fn parse_plain(
    path: &Path,
    bytes: &[u8],
    warnings: &mut Vec<Diagnostic>,
) -> Result<DsfBinary, Diagnostic> {
    let mut src = SliceSource { bytes, pos: 0 };
    parse_source(path, &mut src, bytes.len(), warnings)
}

/// Parses a DSF of `total` bytes from `src`, atom by atom, in one pass: each top-level atom is
/// read, handled and dropped in turn (`CMDS`, which needs the definitions and pools, is
/// handled last). The MD5 is computed as the bytes go by.
///
/// The atoms should end exactly where the 16-byte footer starts; when they run to the end
/// of the file instead there is no footer (a warning); otherwise the file is truncated or
/// damaged, and what can be read is still read, with errors.
fn parse_source<'a>(
    path: &Path,
    src: &mut dyn Source<'a>,
    total: usize,
    warnings: &mut Vec<Diagnostic>,
) -> Result<DsfBinary, Diagnostic> {
    let failed = |at: usize, e: String| {
        Diagnostic::error_offset(path, at as u64, format!("reading the DSF failed: {e}"))
    };
    let head = src.take(12).map_err(|e| failed(0, e))?;
    if !head.starts_with(DSF_COOKIE) {
        return Err(Diagnostic::error_offset(
            path,
            0,
            "not a binary DSF: it does not start with `XPLNEDSF` (nor the 7-Zip signature)",
        ));
    }
    if head.len() < 12 {
        return Err(Diagnostic::error_offset(
            path,
            head.len() as u64,
            "truncated: the file ends inside the 12-byte header",
        ));
    }
    let version = u32::from_le_bytes([head[8], head[9], head[10], head[11]]);
    if version != 1 {
        return Err(Diagnostic::error_offset(
            path,
            8,
            format!("DSF version {version}: only version 1 exists"),
        ));
    }
    let mut d = DsfBinary {
        version,
        ..DsfBinary::default()
    };
    let mut md5 = Md5::new();
    md5.update(&head);
    drop(head);

    // The largest share of the parse is the MD5: md-5 runs at about 560 MB/s on one core,
    // the rest of the parse at about 1 GB/s (benches/parse.rs).
    let footer_at = total.saturating_sub(16).max(12);
    let mut pos = 12usize;
    // False once the walk met a problem: then a missing footer is not worth its own note.
    let mut clean = true;
    let mut footer = false;
    let mut seen: Vec<[u8; 4]> = Vec::new();
    let mut pools: Option<pool::Pools> = None;
    let mut cmds: Option<(usize, Cow<'a, [u8]>)> = None;
    while pos < total {
        if pos == footer_at && total - pos == 16 {
            let f = src.take(16).map_err(|e| failed(pos, e))?;
            let digest = std::mem::take(&mut md5).finalize();
            d.md5 = if f.len() == 16 && digest.as_slice() == &f[..] {
                Md5Check::Match
            } else {
                warnings.push(Diagnostic::warning_offset(
                    path,
                    footer_at as u64,
                    "the MD5 footer does not match the file's contents (damaged or edited after writing)",
                ));
                Md5Check::Mismatch
            };
            footer = true;
            break;
        }
        let left = total - pos;
        if left < 8 {
            warnings.push(Diagnostic::error_offset(
                path,
                pos as u64,
                format!("DSF: {left} stray byte(s) where an 8-byte atom header should be"),
            ));
            clean = false;
            break;
        }
        let h = src.take(8).map_err(|e| failed(pos, e))?;
        if h.len() < 8 {
            warnings.push(ended_early(path, pos + h.len()));
            clean = false;
            break;
        }
        md5.update(&h);
        let id = atom_id([h[0], h[1], h[2], h[3]]);
        let size = u32::from_le_bytes([h[4], h[5], h[6], h[7]]) as usize;
        drop(h);
        let name = printable(&id);
        if size < 8 {
            warnings.push(Diagnostic::error_offset(
                path,
                pos as u64,
                format!("DSF: atom `{name}` has length {size}, less than its 8-byte header; the rest of DSF is unreadable"),
            ));
            clean = false;
            break;
        }
        let want = size - 8;
        let there = want.min(left - 8);
        let truncated = there < want;
        if truncated {
            warnings.push(Diagnostic::error_offset(
                path,
                pos as u64,
                format!(
                    "DSF: atom `{name}` claims {size} bytes but only {left} remain: the file is truncated; reading what there is"
                ),
            ));
            clean = false;
        }
        let known = matches!(&id, b"HEAD" | b"DEFN" | b"GEOD" | b"DEMS" | b"CMDS");
        let repeated = seen.contains(&id);
        if !known {
            warnings.push(Diagnostic::warning_offset(
                path,
                pos as u64,
                format!("unknown atom `{name}` skipped"),
            ));
        } else if repeated {
            warnings.push(Diagnostic::warning_offset(
                path,
                pos as u64,
                format!("a second `{name}` atom: X-Plane reads only the first"),
            ));
        }
        seen.push(id);
        let got = if !known || repeated || &id == b"DEMS" {
            src.skip(there, &mut md5).map_err(|e| failed(pos, e))?
        } else {
            let body = src.take(there).map_err(|e| failed(pos, e))?;
            md5.update(&body);
            let got = body.len();
            let atom = Atom {
                id,
                start: pos,
                body: &body,
            };
            match &id {
                b"HEAD" => read_head(path, &atom, &mut d, warnings),
                b"DEFN" => read_defn(path, &atom, &mut d, warnings),
                b"GEOD" => {
                    let inner = sub_atoms(path, &atom, warnings);
                    pools = Some(pool::read_pools(path, &inner, warnings));
                }
                _ => cmds = Some((pos, body)),
            }
            got
        };
        if got < there {
            warnings.push(ended_early(path, pos + 8 + got));
            clean = false;
            break;
        }
        pos += 8 + got;
        if truncated {
            break;
        }
    }
    if !footer && clean && pos == total {
        warnings.push(Diagnostic::warning_offset(
            path,
            pos as u64,
            "no MD5 footer: the atoms run to the end of the file",
        ));
    }

    for (id, what) in [(b"HEAD", "properties"), (b"DEFN", "definitions")] {
        if !seen.contains(id) {
            warnings.push(Diagnostic::error_offset(
                path,
                12,
                format!("no {} atom ({what})", String::from_utf8_lossy(id)),
            ));
        }
    }
    let pools = pools.unwrap_or_else(|| {
        warnings.push(Diagnostic::error_offset(
            path,
            12,
            "no GEOD atom (point pools)",
        ));
        pool::Pools::default()
    });
    let mut used = vec![false; pools.p16.len()];
    match cmds {
        Some((start, body)) => {
            commands::run(path, &body, start + 8, &pools, &mut used, &mut d, warnings);
        }
        None => warnings.push(Diagnostic::error_offset(
            path,
            12,
            "no CMDS atom: the file places nothing",
        )),
    }
    // Keep the pools polygons and objects read from; the others (terrain mesh, roads) are
    // not needed.
    d.pools = pools.p16;
    for (pool, used) in d.pools.iter_mut().zip(used) {
        if !used {
            *pool = Pool::default();
        }
    }
    Ok(d)
}

/// The stream ended before the size it declared.
fn ended_early(path: &Path, at: usize) -> Diagnostic {
    Diagnostic::error_offset(
        path,
        at as u64,
        "the data ends before its declared size: the file is truncated; reading what there is",
    )
}

/// The atoms inside an atom's contents.
fn sub_atoms<'a>(path: &Path, a: &Atom<'a>, warnings: &mut Vec<Diagnostic>) -> Vec<Atom<'a>> {
    atoms(path, a.body, a.body_start(), &a.name(), warnings).0
}

/// `HEAD`: the `PROP` string table of name/value pairs.
fn read_head(path: &Path, head: &Atom, d: &mut DsfBinary, warnings: &mut Vec<Diagnostic>) {
    let inner = sub_atoms(path, head, warnings);
    let Some(prop) = first(path, &inner, b"PROP", warnings) else {
        warnings.push(Diagnostic::error_offset(
            path,
            head.start as u64,
            "HEAD has no PROP atom",
        ));
        return;
    };
    let strings = string_table(path, prop, warnings);
    if strings.len() % 2 == 1 {
        warnings.push(Diagnostic::error_offset(
            path,
            prop.start as u64,
            format!(
                "PROP: an odd number of strings; `{}` has no value",
                strings.last().map(String::as_str).unwrap_or_default()
            ),
        ));
    }
    let mut it = strings.into_iter();
    while let (Some(name), Some(value)) = (it.next(), it.next()) {
        d.properties.push(DsfBinProperty { name, value });
    }
}

/// `DEFN`: the definition string tables.
fn read_defn(path: &Path, defn: &Atom, d: &mut DsfBinary, warnings: &mut Vec<Diagnostic>) {
    let inner = sub_atoms(path, defn, warnings);
    let table = |id: &[u8; 4], required: bool, warnings: &mut Vec<Diagnostic>| match first(
        path, &inner, id, warnings,
    ) {
        Some(a) => string_table(path, a, warnings),
        None => {
            if required {
                warnings.push(Diagnostic::warning_offset(
                    path,
                    defn.start as u64,
                    format!(
                        "DEFN has no `{}` table (X-Plane requires it)",
                        String::from_utf8_lossy(id)
                    ),
                ));
            }
            Vec::new()
        }
    };
    d.terrain_defs = table(b"TERT", true, warnings);
    d.object_defs = table(b"OBJT", true, warnings);
    d.polygon_defs = table(b"POLY", true, warnings);
    d.network_defs = table(b"NETW", true, warnings);
    d.raster_defs = table(b"DEMN", false, warnings);
}

/// The short name of a DSF file's contents for `agview dump --summary`.
pub fn summary(d: &DsfBinary) -> String {
    use std::fmt::Write;
    let mut s = format!(
        "binary DSF (version {}{}), MD5 {}: {} object(s), {} polygon(s)\n",
        d.version,
        if d.compressed {
            ", 7-Zip compressed"
        } else {
            ""
        },
        match d.md5 {
            Md5Check::Match => "ok",
            Md5Check::Mismatch => "MISMATCH",
            Md5Check::Missing => "missing",
        },
        d.objects.len(),
        d.polygons.len()
    );
    let _ = writeln!(s, "properties ({}):", d.properties.len());
    for p in &d.properties {
        let _ = writeln!(s, "  {} {}", p.name, p.value);
    }
    for (name, defs) in [
        ("terrain", &d.terrain_defs),
        ("object", &d.object_defs),
        ("polygon", &d.polygon_defs),
        ("network", &d.network_defs),
        ("raster", &d.raster_defs),
    ] {
        let _ = writeln!(s, "{name} definitions ({}):", defs.len());
        for (i, p) in defs.iter().enumerate() {
            let _ = writeln!(s, "  {i} {p}");
        }
    }
    let _ = writeln!(s, "commands:");
    for (name, n) in &d.command_counts {
        let _ = writeln!(s, "  {name} {n}");
    }
    s.truncate(s.trim_end().len());
    s
}
