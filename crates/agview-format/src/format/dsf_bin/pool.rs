//! Point pools of the `GEOD` atom: `POOL` (16-bit values) and `PO32` (32-bit), each scaled by
//! the `SCAL` / `SC32` atom of the same rank (the n-th `POOL` goes with the n-th `SCAL`).
//!
//! A pool atom is a planar numeric table (xptools `XChunkyFileUtils.cpp`): int32 point count,
//! uint8 plane count, then each plane in turn, as one encoding byte ([`PlaneEncoding`]) and
//! the plane's values. Run-length data is a sequence of tokens: a byte whose high bit marks
//! a run (one value repeated `byte & 0x7F` times) or else a literal block (`byte & 0x7F`
//! values follow). Differenced planes store each value minus the one before, wrapping.
//!
//! A scale atom holds a (scale, offset) float32 pair per plane. A value decodes, as DSFLib's
//! `DECODE_SCALED` computes it, to `raw * scale / 65535 + offset` (`/ 4294967295` for 32-bit
//! pools); a plane whose scale is 0 keeps its raw value.

use std::path::Path;

use crate::diag::Diagnostic;

use super::{Atom, Cur};

/// How one plane of a point pool is stored.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PlaneEncoding {
    /// The values as they are.
    Raw = 0,
    /// Each value minus the previous one (wrapping), the first minus 0.
    Differenced = 1,
    /// Runs of one repeated value and blocks of literal values.
    RunLength = 2,
    /// Differenced, then run-length encoded.
    RunLengthDifferenced = 3,
}

impl PlaneEncoding {
    pub const ALL: [PlaneEncoding; 4] = [
        PlaneEncoding::Raw,
        PlaneEncoding::Differenced,
        PlaneEncoding::RunLength,
        PlaneEncoding::RunLengthDifferenced,
    ];

    fn from_byte(b: u8) -> Option<Self> {
        Self::ALL.get(usize::from(b)).copied()
    }

    fn differenced(self) -> bool {
        matches!(self, Self::Differenced | Self::RunLengthDifferenced)
    }

    fn run_length(self) -> bool {
        matches!(self, Self::RunLength | Self::RunLengthDifferenced)
    }
}

/// A pool value type: u16 for `POOL`, u32 for `PO32`.
pub trait PoolValue: Copy + Default {
    const SIZE: usize;
    /// 65535 or 4294967295: the raw value that means `offset + scale`.
    const FULL: f64;
    fn read(b: &[u8]) -> Self;
    fn wrapping_add(self, other: Self) -> Self;
    fn to_f64(self) -> f64;
}

impl PoolValue for u16 {
    const SIZE: usize = 2;
    const FULL: f64 = 65535.0;
    #[inline]
    fn read(b: &[u8]) -> Self {
        u16::from_le_bytes([b[0], b[1]])
    }
    #[inline]
    fn wrapping_add(self, other: Self) -> Self {
        u16::wrapping_add(self, other)
    }
    #[inline]
    fn to_f64(self) -> f64 {
        f64::from(self)
    }
}

impl PoolValue for u32 {
    const SIZE: usize = 4;
    const FULL: f64 = 4294967295.0;
    #[inline]
    fn read(b: &[u8]) -> Self {
        u32::from_le_bytes([b[0], b[1], b[2], b[3]])
    }
    #[inline]
    fn wrapping_add(self, other: Self) -> Self {
        u32::wrapping_add(self, other)
    }
    #[inline]
    fn to_f64(self) -> f64 {
        f64::from(self)
    }
}

/// One point pool (`POOL` or `PO32`) with its scaling (`SCAL` or `SC32`): the values as
/// stored, after undoing the plane encodings, not yet scaled.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Pool<T> {
    /// Values per point.
    pub planes: usize,
    /// Points in the pool.
    pub count: usize,
    /// Plane-major: plane `p` is `data[p * count..(p + 1) * count]`.
    pub data: Vec<T>,
    /// Per plane (scale, offset) from the scale atom, as doubles.
    pub scale: Vec<(f64, f64)>,
}

impl<T: PoolValue> Pool<T> {
    /// Plane `plane` of point `index`, scaled. Both must be in range.
    #[inline]
    pub fn value(&self, plane: usize, index: usize) -> f64 {
        let raw = self.data[plane * self.count + index].to_f64();
        let (sc, off) = self.scale[plane];
        if sc != 0.0 {
            raw * sc / T::FULL + off
        } else {
            raw
        }
    }
}

/// All pools of a `GEOD` atom.
#[derive(Debug, Clone, Default)]
pub(crate) struct Pools {
    pub p16: Vec<Pool<u16>>,
    pub p32: Vec<Pool<u32>>,
}

/// Reads every `POOL`/`SCAL` and `PO32`/`SC32` atom of a `GEOD` atom's contents.
pub(crate) fn read_pools(path: &Path, geod: &[Atom], warnings: &mut Vec<Diagnostic>) -> Pools {
    Pools {
        p16: read_kind::<u16>(path, geod, b"POOL", b"SCAL", warnings),
        p32: read_kind::<u32>(path, geod, b"PO32", b"SC32", warnings),
    }
}

fn read_kind<T: PoolValue>(
    path: &Path,
    geod: &[Atom],
    pool_id: &[u8; 4],
    scale_id: &[u8; 4],
    warnings: &mut Vec<Diagnostic>,
) -> Vec<Pool<T>> {
    let scales: Vec<&Atom> = geod.iter().filter(|a| &a.id == scale_id).collect();
    let mut pools = Vec::new();
    for (n, atom) in geod.iter().filter(|a| &a.id == pool_id).enumerate() {
        let mut pool = match decode_pool::<T>(atom.body) {
            Ok(p) => p,
            Err((at, msg)) => {
                warnings.push(Diagnostic::error_offset(
                    path,
                    (atom.body_start() + at) as u64,
                    format!(
                        "{} {n}: {msg}; the pool is left empty",
                        String::from_utf8_lossy(pool_id)
                    ),
                ));
                Pool::default()
            }
        };
        let names = (
            String::from_utf8_lossy(pool_id),
            String::from_utf8_lossy(scale_id),
        );
        match scales.get(n) {
            Some(s) => {
                let mut c = Cur::new(s.body);
                while c.remaining() >= 8 {
                    let sc = c.f32().unwrap_or_default();
                    let off = c.f32().unwrap_or_default();
                    pool.scale.push((f64::from(sc), f64::from(off)));
                }
                if c.remaining() != 0 {
                    warnings.push(Diagnostic::error_offset(
                        path,
                        s.start as u64,
                        format!(
                            "{} {n}: {} bytes, not a whole number of 8-byte (scale, offset) pairs",
                            names.1,
                            s.body.len()
                        ),
                    ));
                }
                if pool.scale.len() < pool.planes {
                    warnings.push(Diagnostic::error_offset(
                        path,
                        s.start as u64,
                        format!(
                            "{} {n} scales {} plane(s) but {} {n} has {}; the others keep their raw values",
                            names.1,
                            pool.scale.len(),
                            names.0,
                            pool.planes
                        ),
                    ));
                }
            }
            None => warnings.push(Diagnostic::error_offset(
                path,
                atom.start as u64,
                format!(
                    "{} {n} has no {} atom; its values stay unscaled",
                    names.0, names.1
                ),
            )),
        }
        pool.scale
            .resize(pool.planes.max(pool.scale.len()), (0.0, 0.0));
        pools.push(pool);
    }
    pools
}

/// Decodes a planar numeric table. Errors carry the offset within `body`.
pub(crate) fn decode_pool<T: PoolValue>(body: &[u8]) -> Result<Pool<T>, (usize, String)> {
    let mut c = Cur::new(body);
    let (Some(count), Some(planes)) = (c.u32(), c.u8()) else {
        return Err((0, "shorter than its 5-byte header".into()));
    };
    let count = count as i32;
    if count < 0 {
        return Err((0, format!("negative point count {count}")));
    }
    let (count, planes) = (count as usize, usize::from(planes));
    // Each plane needs at least its encoding byte and its values: raw, one value a point;
    // run-length encoded at best, one token and one value per 127 points (whichever is
    // smaller: a few points are smaller raw). Refuse counts the bytes cannot hold before
    // allocating anything.
    let per_plane = (count * T::SIZE).min(count.div_ceil(127) * (1 + T::SIZE));
    let min_bytes = planes * (1 + per_plane);
    if min_bytes > c.remaining() {
        return Err((
            0,
            format!(
                "{count} points × {planes} planes cannot fit in its {} bytes",
                body.len()
            ),
        ));
    }
    let mut data: Vec<T> = Vec::with_capacity(count * planes);
    for plane in 0..planes {
        let at = c.pos;
        let code = c.u8().unwrap_or(0xFF);
        let Some(enc) = PlaneEncoding::from_byte(code) else {
            return Err((at, format!("plane {plane}: unknown encoding {code}")));
        };
        let start = data.len();
        if enc.run_length() {
            decode_rle(&mut c, count, &mut data)
                .map_err(|(at, m)| (at, format!("plane {plane}: {m}")))?;
        } else {
            let Some(raw) = c.take(count * T::SIZE) else {
                return Err((
                    at,
                    format!("plane {plane}: {count} values do not fit in the atom"),
                ));
            };
            data.extend(raw.chunks_exact(T::SIZE).map(T::read));
        }
        if enc.differenced() {
            let mut last = T::default();
            for v in &mut data[start..] {
                last = last.wrapping_add(*v);
                *v = last;
            }
        }
    }
    Ok(Pool {
        planes,
        count,
        data,
        scale: Vec::new(),
    })
}

fn decode_rle<T: PoolValue>(
    c: &mut Cur,
    count: usize,
    out: &mut Vec<T>,
) -> Result<(), (usize, String)> {
    let mut left = count;
    while left > 0 {
        let at = c.pos;
        let Some(token) = c.u8() else {
            return Err((
                at,
                format!("the atom ends with {left} value(s) still to read"),
            ));
        };
        let n = usize::from(token & 0x7F);
        if n == 0 {
            return Err((at, "a run-length token of length 0".into()));
        }
        if n > left {
            return Err((
                at,
                format!("a run of {n} value(s) where only {left} remain in the plane"),
            ));
        }
        if token & 0x80 != 0 {
            let Some(v) = c.take(T::SIZE) else {
                return Err((at, "the atom ends inside a run".into()));
            };
            let v = T::read(v);
            out.extend(std::iter::repeat_n(v, n));
        } else {
            let Some(raw) = c.take(n * T::SIZE) else {
                return Err((at, "the atom ends inside a block of values".into()));
            };
            out.extend(raw.chunks_exact(T::SIZE).map(T::read));
        }
        left -= n;
    }
    Ok(())
}

/// Encodes one plane of values (the writer's half of [`decode_pool`]).
pub(crate) fn encode_plane<T: PoolValue + PartialEq + WrappingSub>(
    values: &[T],
    enc: PlaneEncoding,
    write: impl Fn(T, &mut Vec<u8>),
    out: &mut Vec<u8>,
) {
    out.push(enc as u8);
    let diffed: Vec<T>;
    let vals: &[T] = if enc.differenced() {
        let mut last = T::default();
        diffed = values
            .iter()
            .map(|&v| {
                let d = v.wrapping_sub(last);
                last = v;
                d
            })
            .collect();
        &diffed
    } else {
        values
    };
    if !enc.run_length() {
        for &v in vals {
            write(v, out);
        }
        return;
    }
    let mut i = 0;
    while i < vals.len() {
        // A run of two or more equal values.
        let mut run = 1;
        while i + run < vals.len() && run < 127 && vals[i + run] == vals[i] {
            run += 1;
        }
        if run >= 2 {
            out.push(0x80 | run as u8);
            write(vals[i], out);
            i += run;
            continue;
        }
        // A literal block up to the next run of two.
        let start = i;
        while i < vals.len() && i - start < 127 && !(i + 1 < vals.len() && vals[i + 1] == vals[i]) {
            i += 1;
        }
        out.push((i - start) as u8);
        for &v in &vals[start..i] {
            write(v, out);
        }
    }
}

/// Wrapping subtraction, for differencing.
pub(crate) trait WrappingSub {
    fn wrapping_sub(self, other: Self) -> Self;
}

impl WrappingSub for u16 {
    fn wrapping_sub(self, other: Self) -> Self {
        u16::wrapping_sub(self, other)
    }
}

impl WrappingSub for u32 {
    fn wrapping_sub(self, other: Self) -> Self {
        u32::wrapping_sub(self, other)
    }
}

/// Bytes a plane takes in each encoding, to pick the smallest.
pub(crate) fn encoded_len<T: PoolValue + PartialEq + WrappingSub>(
    values: &[T],
    enc: PlaneEncoding,
) -> usize {
    let mut out = Vec::new();
    encode_plane(
        values,
        enc,
        |_, o: &mut Vec<u8>| o.extend(std::iter::repeat_n(0u8, T::SIZE)),
        &mut out,
    );
    out.len()
}
