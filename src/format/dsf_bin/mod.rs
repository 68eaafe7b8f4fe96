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
        let dsf = unpack_7z(path, bytes, max_decompressed)?;
        let mut d = parse_plain(path, &dsf, warnings)?;
        d.compressed = true;
        Ok(d)
    } else {
        parse_plain(path, bytes, warnings)
    }
}

/// The DSF inside a 7-Zip archive: its first file entry, refused with an error when it
/// declares or produces more than `limit` bytes.
pub fn unpack_7z(path: &Path, bytes: &[u8], limit: u64) -> Result<Vec<u8>, Diagnostic> {
    use sevenz_rust2::{ArchiveReader, EntryDecision, Password};
    let bad = |e: &dyn std::fmt::Display| {
        Diagnostic::error_offset(path, 0, format!("cannot read the 7-Zip archive: {e}"))
    };
    let mut reader = ArchiveReader::new_with_memory_limit(
        Cursor::new(bytes),
        Password::empty(),
        MAX_7Z_MEMORY_KB,
    )
    .map_err(|e| bad(&e))?;
    reader.set_thread_count(1);
    let Some(index) = reader
        .archive()
        .files
        .iter()
        .position(|f| f.has_stream && !f.is_directory)
    else {
        return Err(Diagnostic::error_offset(
            path,
            0,
            "the 7-Zip archive holds no file",
        ));
    };
    let entry = &reader.archive().files[index];
    let (name, declared) = (entry.name.clone(), entry.size);
    let too_big = || {
        Diagnostic::error_offset(
            path,
            0,
            format!("the 7-Zip archive's `{name}` decompresses to more than {limit} bytes"),
        )
    };
    if declared > limit {
        return Err(too_big());
    }
    let mut out = Vec::new();
    let mut seen = 0usize;
    let mut over = false;
    let result = reader.for_each_entries_with_decision(|e, r| {
        if !e.has_stream || e.is_directory {
            return Ok(EntryDecision::Continue);
        }
        seen += 1;
        if seen > 1 {
            // Later entries are never decompressed.
            return Ok(EntryDecision::Stop);
        }
        // sevenz-rust2 already ends the entry at its declared size (checked against the
        // limit above) and rejects a longer stream; this cap guards the limit on its own.
        over = read_capped(r, e.size, limit, &mut out)?;
        if over {
            return Ok(EntryDecision::Stop);
        }
        // Continue: the reader drains the rest (nothing, when the size was honest) and
        // checks the entry's CRC.
        Ok(EntryDecision::Continue)
    });
    if over {
        return Err(too_big());
    }
    result.map_err(|e| bad(&e))?;
    Ok(out)
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
        String::from_utf8_lossy(&self.id).into_owned()
    }

    /// Offset in the file of the first byte of the contents.
    fn body_start(&self) -> usize {
        self.start + 8
    }
}

/// The atom id as the text spelling (`HEAD`): the int32 is stored little-endian, so the bytes
/// in the file read backwards (`DAEH`).
fn atom_id(raw: [u8; 4]) -> [u8; 4] {
    [raw[3], raw[2], raw[1], raw[0]]
}

/// Splits `bytes[start..end]` into atoms. Problems are pushed as errors; a truncated atom
/// keeps what the span holds of it. Returns the atoms and where the last one ended.
fn atoms<'a>(
    path: &Path,
    bytes: &'a [u8],
    start: usize,
    end: usize,
    container: &str,
    warnings: &mut Vec<Diagnostic>,
) -> (Vec<Atom<'a>>, usize) {
    let mut out = Vec::new();
    let mut pos = start;
    while pos < end {
        if end - pos < 8 {
            warnings.push(Diagnostic::error_offset(
                path,
                pos as u64,
                format!(
                    "{container}: {} stray byte(s) where an 8-byte atom header should be",
                    end - pos
                ),
            ));
            return (out, pos);
        }
        let h = &bytes[pos..pos + 8];
        let id = atom_id([h[0], h[1], h[2], h[3]]);
        let size = u32::from_le_bytes([h[4], h[5], h[6], h[7]]) as usize;
        let name = String::from_utf8_lossy(&id).into_owned();
        if size < 8 {
            warnings.push(Diagnostic::error_offset(
                path,
                pos as u64,
                format!("{container}: atom `{name}` has length {size}, less than its 8-byte header; the rest of {container} is unreadable"),
            ));
            return (out, pos);
        }
        let atom_end = pos.saturating_add(size);
        if atom_end > end {
            warnings.push(Diagnostic::error_offset(
                path,
                pos as u64,
                format!(
                    "{container}: atom `{name}` claims {size} bytes but only {} remain: the file is truncated; reading what there is",
                    end - pos
                ),
            ));
            out.push(Atom {
                id,
                start: pos,
                body: &bytes[pos + 8..end],
            });
            return (out, atom_end);
        }
        out.push(Atom {
            id,
            start: pos,
            body: &bytes[pos + 8..atom_end],
        });
        pos = atom_end;
    }
    (out, pos)
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

/// Parses an uncompressed DSF.
fn parse_plain(
    path: &Path,
    bytes: &[u8],
    warnings: &mut Vec<Diagnostic>,
) -> Result<DsfBinary, Diagnostic> {
    if !bytes.starts_with(DSF_COOKIE) {
        return Err(Diagnostic::error_offset(
            path,
            0,
            "not a binary DSF: it does not start with `XPLNEDSF` (nor the 7-Zip signature)",
        ));
    }
    if bytes.len() < 12 {
        return Err(Diagnostic::error_offset(
            path,
            bytes.len() as u64,
            "truncated: the file ends inside the 12-byte header",
        ));
    }
    let version = u32::from_le_bytes([bytes[8], bytes[9], bytes[10], bytes[11]]);
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

    // The atoms fill the file up to the 16-byte footer.
    let footer_at = bytes.len().saturating_sub(16).max(12);
    let (top, has_footer) = atoms_to_footer(path, bytes, footer_at, warnings);
    d.md5 = if has_footer {
        // The largest share of the parse: md-5 runs at about 560 MB/s on one core, the rest
        // of the parse at about 1 GB/s (benches/parse.rs). Hashing while parsing would not
        // make it cheaper: the hash is compute-bound, not memory-bound.
        let digest = Md5::digest(&bytes[..footer_at]);
        if digest.as_slice() == &bytes[footer_at..] {
            Md5Check::Match
        } else {
            warnings.push(Diagnostic::warning_offset(
                path,
                footer_at as u64,
                "the MD5 footer does not match the file's contents (damaged or edited after writing)",
            ));
            Md5Check::Mismatch
        }
    } else {
        Md5Check::Missing
    };

    for a in &top {
        if !matches!(&a.id, b"HEAD" | b"DEFN" | b"GEOD" | b"DEMS" | b"CMDS") {
            warnings.push(Diagnostic::warning_offset(
                path,
                a.start as u64,
                format!("unknown atom `{}` skipped", a.name()),
            ));
        }
    }

    let sub = |a: &Atom, warnings: &mut Vec<Diagnostic>| {
        let s = a.body_start();
        atoms(path, bytes, s, s + a.body.len(), &a.name(), warnings).0
    };

    match first(path, &top, b"HEAD", warnings) {
        Some(head) => {
            let inner = sub(head, warnings);
            if let Some(prop) = first(path, &inner, b"PROP", warnings) {
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
            } else {
                warnings.push(Diagnostic::error_offset(
                    path,
                    head.start as u64,
                    "HEAD has no PROP atom",
                ));
            }
        }
        None => warnings.push(Diagnostic::error_offset(
            path,
            12,
            "no HEAD atom (properties)",
        )),
    }

    match first(path, &top, b"DEFN", warnings) {
        Some(defn) => {
            let inner = sub(defn, warnings);
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
        None => warnings.push(Diagnostic::error_offset(
            path,
            12,
            "no DEFN atom (definitions)",
        )),
    }

    let pools = match first(path, &top, b"GEOD", warnings) {
        Some(geod) => {
            let inner = sub(geod, warnings);
            pool::read_pools(path, &inner, warnings)
        }
        None => {
            warnings.push(Diagnostic::error_offset(
                path,
                12,
                "no GEOD atom (point pools)",
            ));
            pool::Pools::default()
        }
    };

    let mut used = vec![false; pools.p16.len()];
    match first(path, &top, b"CMDS", warnings) {
        Some(cmds) => commands::run(
            path,
            cmds.body,
            cmds.body_start(),
            &pools,
            &mut used,
            &mut d,
            warnings,
        ),
        None => warnings.push(Diagnostic::error_offset(
            path,
            12,
            "no CMDS atom: the file places nothing",
        )),
    }
    // Keep the pools polygons read from; the others (terrain mesh, objects, roads) are
    // decoded already or not needed.
    d.pools = pools.p16;
    for (pool, used) in d.pools.iter_mut().zip(used) {
        if !used {
            *pool = Pool::default();
        }
    }
    Ok(d)
}

/// The top-level atoms and whether the 16-byte footer follows them. They should end exactly
/// at `footer_at`; when they fill the file instead there is no footer; when neither reading
/// works the file is truncated (or damaged), and the atoms are read to the end of the file
/// with errors.
fn atoms_to_footer<'a>(
    path: &Path,
    bytes: &'a [u8],
    footer_at: usize,
    warnings: &mut Vec<Diagnostic>,
) -> (Vec<Atom<'a>>, bool) {
    let mut quiet = Vec::new();
    let (with_footer, end) = atoms(path, bytes, 12, footer_at, "DSF", &mut quiet);
    if quiet.is_empty() && end == footer_at && bytes.len() >= 28 {
        return (with_footer, true);
    }
    let mut diags = Vec::new();
    let (all, end) = atoms(path, bytes, 12, bytes.len(), "DSF", &mut diags);
    if diags.is_empty() && end == bytes.len() {
        warnings.push(Diagnostic::warning_offset(
            path,
            end as u64,
            "no MD5 footer: the atoms run to the end of the file",
        ));
    }
    warnings.append(&mut diags);
    (all, false)
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
