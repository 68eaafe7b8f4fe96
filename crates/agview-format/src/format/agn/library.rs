//! Library objects: `A2GE` (in `AGN2`).
//!
//! An `A2GE` chunk is a GUID, then "for each library object" a record of two points
//! (16 bytes) or, with the optional third point, three (24 bytes), until the chunk ends.
//! The record size is worked out from the payload after the GUID:
//! - only one of 16 and 24 divides it: that one;
//! - neither: the chunk is malformed and skipped;
//! - both (a multiple of 48): each reading is scored by how many of its records are
//!   plausible ([`plausible`]); the higher share of plausible records wins, a tie goes to three points (the form
//!   that carries a heading), and a warning says which was chosen and why.

use super::read::*;
use super::*;

/// Bytes of a two-point and of a three-point record.
const TWO: usize = 16;
const THREE: usize = 24;

pub(super) fn read_a2ge(
    r: &Reader,
    c: Chunk,
    sink: &mut Sink,
) -> Result<Vec<LibraryObject>, Diagnostic> {
    let mut f = Fields::new(r, c);
    let guid = f.guid("library object GUID")?;
    let payload = f.remaining();
    let record = match (payload.is_multiple_of(TWO), payload.is_multiple_of(THREE)) {
        _ if payload == 0 => {
            sink.warn("A2GE without objects", c.offset, || {
                format!("{}: a GUID and no library objects", f.at())
            });
            return Ok(Vec::new());
        }
        (true, false) => TWO,
        (false, true) => THREE,
        (false, false) => {
            return Err(r.error(
                c.offset,
                format!(
                    "{}: {payload} bytes after the GUID are neither a whole number of 16-byte (two-point) nor of 24-byte (three-point) records",
                    f.at()
                ),
            ))
        }
        (true, true) => {
            let body = &r.bytes[f.pos..c.end];
            let (two, three) = (score(body, TWO), score(body, THREE));
            // Compare shares, not counts: there are 3 two-point records for every 2 others.
            let pick = if two * 2 > three * 3 { TWO } else { THREE };
            sink.warn("A2GE record size ambiguous", c.offset, || {
                format!(
                    "{}: {payload} bytes after the GUID fit both {} two-point and {} three-point records; read as {} ({two} of {} two-point and {three} of {} three-point records are plausible{})",
                    f.at(),
                    payload / TWO,
                    payload / THREE,
                    if pick == TWO { "two-point" } else { "three-point" },
                    payload / TWO,
                    payload / THREE,
                    if two == three { "; a tie goes to three points" } else { "" }
                )
            });
            pick
        }
    };
    let mut out = Vec::with_capacity(payload / record);
    while f.remaining() > 0 {
        out.push(LibraryObject {
            offset: f.pos as u64,
            guid,
            start: f.point("first point")?,
            to_second: f.point("direction to the second point")?,
            to_third: if record == THREE {
                Some(f.point("offset to the third point")?)
            } else {
                None
            },
        });
    }
    Ok(out)
}

/// How many of the records of `size` bytes in `body` are [`plausible`].
fn score(body: &[u8], size: usize) -> usize {
    body.chunks_exact(size)
        .filter(|rec| {
            let v: Vec<f32> = rec
                .chunks_exact(4)
                .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
                .collect();
            plausible(&v)
        })
        .count()
}

/// A record (2 or 3 points as floats) is plausible when every value is finite, the first
/// point lies within the square or just past it (|x|, |y| ≤ 0.6), the vectors are not zero
/// and shorter than 0.35 square units (≈ 500 m), and, with three points, the third offset
/// can be at right angles to the direction on the ground for some latitude below 75° (one
/// x unit is cos φ times 1.33 y units, so the two are perpendicular when
/// `dx·ox·k² + dy·oy = 0` for some k in 0.3..1.34).
pub(super) fn plausible(v: &[f32]) -> bool {
    if !v.iter().all(|x| x.is_finite()) {
        return false;
    }
    if v[0].abs() > 0.6 || v[1].abs() > 0.6 {
        return false;
    }
    let short = |x: f32, y: f32| {
        let l = x.hypot(y);
        l > 0.0 && l < 0.35
    };
    if !short(v[2], v[3]) {
        return false;
    }
    if v.len() < 6 {
        return true;
    }
    let (dx, dy, ox, oy) = (v[2], v[3], v[4], v[5]);
    if !short(ox, oy) {
        return false;
    }
    let (a, b) = (dx * ox, dy * oy);
    let scale = dx.hypot(dy) * ox.hypot(oy);
    if a.abs() + b.abs() <= 0.05 * scale {
        return true;
    }
    if a == 0.0 {
        return false;
    }
    let k2 = -b / a;
    (0.09..=1.8).contains(&k2)
}
