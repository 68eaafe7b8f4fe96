//! The `CMDS` atom: a stream of commands, each a one-byte id and little-endian arguments
//! whose sizes are those DSFLib reads (xptools `DSFLib.cpp`, `DSFDefs.h`).
//!
//! The stream is read twice: a first pass finds each command's size (so the counts, the
//! place where an unknown id stops the stream, and the room for objects and polygons are
//! known before anything is decoded), the second decodes objects and polygons and checks
//! every other command's pool, definition and point indices.

use std::path::Path;

use crate::diag::Diagnostic;

use super::pool::{Pool, Pools};
use super::{Cur, DsfBinObject, DsfBinPolygon, DsfBinWinding, DsfBinary};

/// Command names as the DSF specification names them, by id. Ids 0 and 19–22 are not
/// commands (0 is reserved, 19–22 were removed while the spec was written).
pub const COMMAND_NAMES: [&str; 35] = [
    "",
    "POOL_SELECT",
    "JUNCTION_OFFSET_SELECT",
    "SET_DEFINITION_8",
    "SET_DEFINITION_16",
    "SET_DEFINITION_32",
    "SET_ROAD_SUBTYPE_8",
    "OBJECT",
    "OBJECT_RANGE",
    "NETWORK_CHAIN",
    "NETWORK_CHAIN_RANGE",
    "NETWORK_CHAIN_32",
    "POLYGON",
    "POLYGON_RANGE",
    "NESTED_POLYGON",
    "NESTED_POLYGON_RANGE",
    "TERRAIN_PATCH",
    "TERRAIN_PATCH_FLAGS",
    "TERRAIN_PATCH_FLAGS_LOD",
    "",
    "",
    "",
    "",
    "PATCH_TRIANGLE",
    "PATCH_TRIANGLE_CROSS_POOL",
    "PATCH_TRIANGLE_RANGE",
    "PATCH_TRIANGLE_STRIP",
    "PATCH_TRIANGLE_STRIP_CROSS_POOL",
    "PATCH_TRIANGLE_STRIP_RANGE",
    "PATCH_TRIANGLE_FAN",
    "PATCH_TRIANGLE_FAN_CROSS_POOL",
    "PATCH_TRIANGLE_FAN_RANGE",
    "COMMENT_8",
    "COMMENT_16",
    "COMMENT_32",
];

/// Command ids used by the reader and the writer.
pub mod id {
    pub const POOL_SELECT: u8 = 1;
    pub const JUNCTION_OFFSET: u8 = 2;
    pub const SET_DEF_8: u8 = 3;
    pub const SET_DEF_16: u8 = 4;
    pub const SET_DEF_32: u8 = 5;
    pub const ROAD_SUBTYPE: u8 = 6;
    pub const OBJECT: u8 = 7;
    pub const OBJECT_RANGE: u8 = 8;
    pub const CHAIN: u8 = 9;
    pub const CHAIN_RANGE: u8 = 10;
    pub const CHAIN_32: u8 = 11;
    pub const POLYGON: u8 = 12;
    pub const POLYGON_RANGE: u8 = 13;
    pub const NESTED_POLYGON: u8 = 14;
    pub const NESTED_POLYGON_RANGE: u8 = 15;
    pub const PATCH: u8 = 16;
    pub const PATCH_FLAGS: u8 = 17;
    pub const PATCH_FLAGS_LOD: u8 = 18;
    pub const TRIANGLE: u8 = 23;
    pub const TRIANGLE_CROSS_POOL: u8 = 24;
    pub const TRIANGLE_RANGE: u8 = 25;
    pub const STRIP: u8 = 26;
    pub const STRIP_CROSS_POOL: u8 = 27;
    pub const STRIP_RANGE: u8 = 28;
    pub const FAN: u8 = 29;
    pub const FAN_CROSS_POOL: u8 = 30;
    pub const FAN_RANGE: u8 = 31;
    pub const COMMENT_8: u8 = 32;
    pub const COMMENT_16: u8 = 33;
    pub const COMMENT_32: u8 = 34;
}

/// At most this many command errors are reported; the rest are counted.
const MAX_REPORTED: usize = 50;

/// Why a command's size cannot be known.
enum Unsized {
    /// Its arguments run past the end of the atom.
    Truncated,
    /// Not a DSF command.
    Unknown,
}

/// The bytes after the id byte that command `id` takes, reading its counts from `rest`.
fn command_len(id: u8, rest: &[u8]) -> Result<usize, Unsized> {
    let byte = |at: usize| rest.get(at).map(|&b| usize::from(b));
    let short = |at: usize| {
        rest.get(at..at + 2)
            .map(|b| usize::from(u16::from_le_bytes([b[0], b[1]])))
    };
    let long = |at: usize| {
        rest.get(at..at + 4)
            .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as usize)
    };
    use id::*;
    let len = match id {
        PATCH => Some(0),
        SET_DEF_8 | ROAD_SUBTYPE | PATCH_FLAGS => Some(1),
        POOL_SELECT | SET_DEF_16 | OBJECT => Some(2),
        JUNCTION_OFFSET | SET_DEF_32 | OBJECT_RANGE | CHAIN_RANGE | TRIANGLE_RANGE
        | STRIP_RANGE | FAN_RANGE => Some(4),
        POLYGON_RANGE => Some(6),
        PATCH_FLAGS_LOD => Some(9),
        CHAIN | TRIANGLE | STRIP | FAN => byte(0).map(|n| 1 + 2 * n),
        CHAIN_32 | TRIANGLE_CROSS_POOL | STRIP_CROSS_POOL | FAN_CROSS_POOL => {
            byte(0).map(|n| 1 + 4 * n)
        }
        POLYGON => byte(2).map(|n| 3 + 2 * n),
        NESTED_POLYGON_RANGE => byte(2).map(|n| 3 + 2 * (n + 1)),
        NESTED_POLYGON => byte(2).and_then(|windings| {
            let mut at = 3;
            for _ in 0..windings {
                at += 1 + 2 * byte(at)?;
            }
            Some(at)
        }),
        COMMENT_8 => byte(0).map(|n| 1 + n),
        COMMENT_16 => short(0).map(|n| 2 + n),
        COMMENT_32 => long(0).map(|n| 4usize.saturating_add(n)),
        _ => return Err(Unsized::Unknown),
    };
    match len {
        Some(n) if n <= rest.len() => Ok(n),
        _ => Err(Unsized::Truncated),
    }
}

/// The decoding state: the selections earlier commands made.
struct State<'a> {
    pools: &'a Pools,
    /// Per 16-bit pool: whether a polygon reads from it.
    used: &'a mut [bool],
    /// `POOL_SELECT`: 16-bit pool n and 32-bit pool n together; `None` before the first.
    pool: Option<usize>,
    /// `SET_DEFINITION_*`.
    def: Option<u32>,
    /// `JUNCTION_OFFSET_SELECT`: added to `NETWORK_CHAIN` and `NETWORK_CHAIN_RANGE` indices.
    junction_offset: u32,
    /// `SET_ROAD_SUBTYPE_8`.
    road_subtype: u8,
    /// Whether a curved (7-plane) network pool was warned about.
    curved_said: bool,
    errors: usize,
}

impl<'a> State<'a> {
    fn pool16(&self) -> Result<&Pool<u16>, String> {
        let p = self.pool.ok_or("no POOL_SELECT before it")?;
        self.pools.p16.get(p).ok_or_else(|| {
            format!(
                "pool {p} does not exist (the file has {} 16-bit pool(s))",
                self.pools.p16.len()
            )
        })
    }

    fn pool32(&self) -> Result<&'a Pool<u32>, String> {
        let p = self.pool.ok_or("no POOL_SELECT before it")?;
        self.pools.p32.get(p).ok_or_else(|| {
            format!(
                "32-bit pool {p} does not exist (the file has {} 32-bit pool(s))",
                self.pools.p32.len()
            )
        })
    }

    fn def(&self, defs: &[String], table: &str) -> Result<usize, String> {
        let d = self.def.ok_or("no SET_DEFINITION before it")?;
        if (d as usize) < defs.len() {
            Ok(d as usize)
        } else {
            Err(format!(
                "{table} definition {d} does not exist (the file has {})",
                defs.len()
            ))
        }
    }
}

fn check_index(index: usize, count: usize, pool: &str) -> Result<(), String> {
    if index < count {
        Ok(())
    } else {
        Err(format!(
            "point {index} is past the end of {pool} ({count} points)"
        ))
    }
}

fn check_range(first: usize, end: usize, count: usize, pool: &str) -> Result<(), String> {
    if first > end {
        Err(format!("range {first}..{end} runs backwards"))
    } else if end > count {
        Err(format!(
            "range {first}..{end} runs past the end of {pool} ({count} points)"
        ))
    } else {
        Ok(())
    }
}

/// Reads the commands of a `CMDS` atom whose contents start at file offset `base`, marking
/// in `used` the 16-bit pools that polygons read from.
pub(crate) fn run(
    path: &Path,
    body: &[u8],
    base: usize,
    pools: &Pools,
    used: &mut [bool],
    d: &mut DsfBinary,
    warnings: &mut Vec<Diagnostic>,
) {
    // Pass 1: sizes, counts, and where the readable stream ends.
    let mut counts = [0u64; 35];
    let (mut objects, mut polygons) = (0usize, 0usize);
    let (mut windings, mut indices) = (0usize, 0usize);
    let mut pos = 0usize;
    let mut stop: Option<Diagnostic> = None;
    while pos < body.len() {
        let cmd = body[pos];
        let rest = &body[pos + 1..];
        match command_len(cmd, rest) {
            Ok(n) => {
                counts[usize::from(cmd)] += 1;
                match cmd {
                    id::OBJECT => objects += 1,
                    id::OBJECT_RANGE => {
                        let a = u16::from_le_bytes([rest[0], rest[1]]);
                        let b = u16::from_le_bytes([rest[2], rest[3]]);
                        objects += usize::from(b.saturating_sub(a));
                    }
                    id::POLYGON..=id::NESTED_POLYGON_RANGE => {
                        polygons += 1;
                        let w = usize::from(rest[2]);
                        match cmd {
                            id::POLYGON => (windings, indices) = (windings + 1, indices + w),
                            id::POLYGON_RANGE => windings += 1,
                            // 3 + Σ (1 + 2 × points) bytes.
                            id::NESTED_POLYGON => {
                                (windings, indices) = (windings + w, indices + (n - 3 - w) / 2)
                            }
                            _ => windings += w,
                        }
                    }
                    _ => {}
                }
                pos += 1 + n;
            }
            Err(why) => {
                let name = COMMAND_NAMES.get(usize::from(cmd)).copied().unwrap_or("");
                let msg = match why {
                    Unsized::Unknown => format!(
                        "CMDS: unknown command id {cmd}; its size is unknown, so the {} byte(s) after it cannot be read",
                        body.len() - pos - 1
                    ),
                    Unsized::Truncated => format!(
                        "CMDS: {name} (id {cmd}) runs past the end of the atom ({} byte(s) left): the atom is truncated",
                        body.len() - pos - 1
                    ),
                };
                stop = Some(Diagnostic::error_offset(path, (base + pos) as u64, msg));
                break;
            }
        }
    }
    let readable = pos;
    d.command_counts = counts
        .iter()
        .enumerate()
        .filter(|(_, &n)| n > 0)
        .map(|(i, &n)| (COMMAND_NAMES[i].to_string(), n))
        .collect();
    d.objects.reserve_exact(objects);
    d.polygons.reserve_exact(polygons);
    d.winding_list.reserve_exact(windings);
    d.point_indices.reserve_exact(indices);

    // Pass 2: decode.
    let mut st = State {
        pools,
        used,
        pool: None,
        def: None,
        junction_offset: 0,
        road_subtype: 0,
        curved_said: false,
        errors: 0,
    };
    let mut pos = 0usize;
    while pos < readable {
        let cmd = body[pos];
        let Ok(n) = command_len(cmd, &body[pos + 1..]) else {
            break;
        };
        let args = &body[pos + 1..pos + 1 + n];
        let offset = (base + pos) as u64;
        if let Err(msg) = command(
            &mut st,
            cmd,
            args,
            offset,
            d,
            &mut |w| warnings.push(w),
            path,
        ) {
            st.errors += 1;
            if st.errors <= MAX_REPORTED {
                warnings.push(Diagnostic::error_offset(
                    path,
                    offset,
                    format!(
                        "{}: {msg}; command skipped",
                        COMMAND_NAMES[usize::from(cmd)]
                    ),
                ));
            }
        }
        pos += 1 + n;
    }
    if st.errors > MAX_REPORTED {
        warnings.push(Diagnostic::error_offset(
            path,
            base as u64,
            format!(
                "CMDS: {} more command error(s) not shown",
                st.errors - MAX_REPORTED
            ),
        ));
    }
    if let Some(s) = stop {
        warnings.push(s);
    }
}

/// Decodes one command whose arguments (exactly its size) are `args`.
fn command(
    st: &mut State,
    cmd: u8,
    args: &[u8],
    offset: u64,
    d: &mut DsfBinary,
    warn: &mut dyn FnMut(Diagnostic),
    path: &Path,
) -> Result<(), String> {
    // `command_len` checked the size: these reads cannot fail.
    let mut c = Cur::new(args);
    use id::*;
    match cmd {
        POOL_SELECT => {
            let p = usize::from(c.u16().unwrap_or_default());
            st.pool = Some(p);
            if p >= st.pools.p16.len() && p >= st.pools.p32.len() {
                return Err(format!(
                    "pool {p} does not exist (the file has {} 16-bit and {} 32-bit pool(s))",
                    st.pools.p16.len(),
                    st.pools.p32.len()
                ));
            }
        }
        JUNCTION_OFFSET => st.junction_offset = c.u32().unwrap_or_default(),
        SET_DEF_8 => st.def = Some(u32::from(c.u8().unwrap_or_default())),
        SET_DEF_16 => st.def = Some(u32::from(c.u16().unwrap_or_default())),
        SET_DEF_32 => st.def = Some(c.u32().unwrap_or_default()),
        ROAD_SUBTYPE => st.road_subtype = c.u8().unwrap_or_default(),
        COMMENT_8 | COMMENT_16 | COMMENT_32 => {}
        OBJECT | OBJECT_RANGE => {
            let first = usize::from(c.u16().unwrap_or_default());
            let end = if cmd == OBJECT {
                first + 1
            } else {
                usize::from(c.u16().unwrap_or_default())
            };
            let pool = st.pool16()?;
            let def = st.def(&d.object_defs, "object")?;
            if pool.planes < 3 {
                return Err(format!(
                    "the pool has {} plane(s); objects need 3 (longitude, latitude, heading)",
                    pool.planes
                ));
            }
            if cmd == OBJECT {
                check_index(first, pool.count, "the pool")?;
            } else {
                check_range(first, end, pool.count, "the pool")?;
            }
            for i in first..end {
                d.objects.push(DsfBinObject {
                    def,
                    lon: pool.value(0, i),
                    lat: pool.value(1, i),
                    heading: pool.value(2, i),
                    offset,
                });
            }
        }
        CHAIN | CHAIN_32 | CHAIN_RANGE => {
            let pool = st.pool32()?;
            let def = st.def(&d.network_defs, "network")?;
            if pool.planes < 4 {
                return Err(format!(
                    "the 32-bit pool has {} plane(s); network chains need 4 (longitude, latitude, level, junction id)",
                    pool.planes
                ));
            }
            let indices: Vec<usize> = if cmd == CHAIN_RANGE {
                let a = st
                    .junction_offset
                    .wrapping_add(u32::from(c.u16().unwrap_or_default()));
                let b = st
                    .junction_offset
                    .wrapping_add(u32::from(c.u16().unwrap_or_default()));
                check_range(a as usize, b as usize, pool.count, "the 32-bit pool")?;
                (a as usize..b as usize).collect()
            } else {
                let n = usize::from(c.u8().unwrap_or_default());
                let mut v = Vec::with_capacity(n);
                for _ in 0..n {
                    let i = if cmd == CHAIN {
                        st.junction_offset
                            .wrapping_add(u32::from(c.u16().unwrap_or_default()))
                    } else {
                        c.u32().unwrap_or_default()
                    };
                    check_index(i as usize, pool.count, "the 32-bit pool")?;
                    v.push(i as usize);
                }
                v
            };
            if pool.planes >= 7 && !st.curved_said {
                st.curved_said = true;
                warn(Diagnostic::warning_offset(
                    path,
                    offset,
                    format!(
                        "{}: a curved network pool ({} planes); X-Plane's DSF writer never writes one: read with each point's control as its outgoing bezier handle, as for curved polygons (further ones are not reported)",
                        COMMAND_NAMES[usize::from(cmd)],
                        pool.planes
                    ),
                ));
            }
            let subtype = u32::from(st.road_subtype);
            if let Some(msg) = chain_segments(pool, &indices, def, subtype, offset, d) {
                warn(
                    Diagnostic::error_offset(
                        path,
                        offset,
                        format!("{}: {msg}", COMMAND_NAMES[usize::from(cmd)]),
                    )
                    .with_kind(crate::diag::kind::SKIPPED_FEATURE),
                );
            }
        }
        POLYGON | POLYGON_RANGE | NESTED_POLYGON | NESTED_POLYGON_RANGE => {
            let param = c.u16().unwrap_or_default();
            let (planes, count) = st.pool16().map(|p| (p.planes, p.count))?;
            let def = st.def(&d.polygon_defs, "polygon")?;
            if planes < 2 {
                return Err(format!(
                    "the pool has {planes} plane(s); polygons need 2 (longitude, latitude)"
                ));
            }
            let (w0, i0) = (d.winding_list.len(), d.point_indices.len());
            let winding_count = match push_windings(&mut c, cmd, count, d) {
                Ok(n) => n,
                Err(e) => {
                    d.winding_list.truncate(w0);
                    d.point_indices.truncate(i0);
                    return Err(e);
                }
            };
            let p = st.pool.unwrap_or_default();
            st.used[p] = true;
            d.polygons.push(DsfBinPolygon {
                def: def as u32,
                param,
                pool: p as u16,
                coord_depth: planes as u8,
                winding_count,
                first_winding: w0 as u32,
                offset,
            });
        }
        PATCH | PATCH_FLAGS | PATCH_FLAGS_LOD => {
            st.pool16()?;
            st.def(&d.terrain_defs, "terrain")?;
        }
        TRIANGLE | STRIP | FAN => {
            let n = usize::from(c.u8().unwrap_or_default());
            let pool = st.pool16()?;
            for _ in 0..n {
                check_index(
                    usize::from(c.u16().unwrap_or_default()),
                    pool.count,
                    "the pool",
                )?;
            }
        }
        TRIANGLE_CROSS_POOL | STRIP_CROSS_POOL | FAN_CROSS_POOL => {
            let n = usize::from(c.u8().unwrap_or_default());
            for _ in 0..n {
                let p = usize::from(c.u16().unwrap_or_default());
                let i = usize::from(c.u16().unwrap_or_default());
                let pool = st.pools.p16.get(p).ok_or_else(|| {
                    format!(
                        "pool {p} does not exist (the file has {} 16-bit pool(s))",
                        st.pools.p16.len()
                    )
                })?;
                check_index(i, pool.count, &format!("pool {p}"))?;
            }
        }
        TRIANGLE_RANGE | STRIP_RANGE | FAN_RANGE => {
            let a = usize::from(c.u16().unwrap_or_default());
            let b = usize::from(c.u16().unwrap_or_default());
            let pool = st.pool16()?;
            check_range(a, b, pool.count, "the pool")?;
        }
        _ => {}
    }
    Ok(())
}

/// Splits one chain (its vertices' pool indices, in order) into segments at each junction
/// it passes, as DSFLib does (ROADS.md §1.2): a vertex whose junction id (plane 3) is not
/// 0 ends the segment before it and begins the next. The segments go into `d`; a chain
/// that begins or ends on a shape point loses the stretch that has no junction there: the
/// returned error says so.
fn chain_segments(
    pool: &Pool<u32>,
    indices: &[usize],
    def: usize,
    subtype: u32,
    offset: u64,
    d: &mut DsfBinary,
) -> Option<String> {
    use crate::format::dsf::DsfSegment;
    let curved = pool.planes >= 7;
    let mut open: Option<DsfSegment> = None;
    let mut loose = 0usize;
    for (k, &i) in indices.iter().enumerate() {
        let p = [pool.value(0, i), pool.value(1, i), pool.value(2, i)];
        let ctrl = curved.then(|| [pool.value(4, i), pool.value(5, i), pool.value(6, i)]);
        let junction = pool.value(3, i);
        let push = |s: &mut DsfSegment| {
            s.points.push(p);
            if let (Some(c), Some(cs)) = (ctrl, s.ctrl.as_mut()) {
                cs.push(c);
            }
        };
        if junction != 0.0 {
            let id = junction.max(0.0) as u64;
            if let Some(mut s) = open.take() {
                push(&mut s);
                s.nodes[1] = id;
                d.segments.push(s);
            }
            if k + 1 < indices.len() {
                let mut s = DsfSegment {
                    def,
                    subtype,
                    nodes: [id, 0],
                    points: Vec::new(),
                    ctrl: curved.then(Vec::new),
                    at: crate::diag::Location::Offset(offset),
                };
                push(&mut s);
                open = Some(s);
            }
        } else {
            match open.as_mut() {
                Some(s) => push(s),
                None => loose += 1,
            }
        }
    }
    let unended = open.map_or(0, |s| s.points.len());
    (loose + unended > 0).then(|| {
        format!(
            "the chain {} on a shape point (junction id 0), not a junction: {} point(s) without a junction at one end are skipped",
            match (loose > 0, unended > 0) {
                (true, true) => "begins and ends",
                (true, false) => "begins",
                _ => "ends",
            },
            loose + unended
        )
    })
}

/// Appends the windings of a polygon command (after its parameter, at `c`) to
/// [`DsfBinary::winding_list`], checking its points against a pool of `count` points.
/// Returns how many. On an error some may have been appended.
fn push_windings(c: &mut Cur, cmd: u8, count: usize, d: &mut DsfBinary) -> Result<u8, String> {
    // `command_len` checked the size: these reads cannot fail.
    let range = |a: u16, b: u16, d: &mut DsfBinary| {
        check_range(usize::from(a), usize::from(b), count, "the pool")?;
        d.winding_list
            .push(DsfBinWinding::Range { first: a, end: b });
        Ok::<_, String>(())
    };
    match cmd {
        id::POLYGON => {
            let n = c.u8().unwrap_or_default();
            push_listed(c, n, count, d)?;
            Ok(1)
        }
        id::POLYGON_RANGE => {
            let a = c.u16().unwrap_or_default();
            let b = c.u16().unwrap_or_default();
            range(a, b, d)?;
            Ok(1)
        }
        id::NESTED_POLYGON => {
            let windings = c.u8().unwrap_or_default();
            for _ in 0..windings {
                let n = c.u8().unwrap_or_default();
                push_listed(c, n, count, d)?;
            }
            Ok(windings)
        }
        _ => {
            let windings = c.u8().unwrap_or_default();
            let mut a = c.u16().unwrap_or_default();
            for _ in 0..windings {
                let b = c.u16().unwrap_or_default();
                range(a, b, d)?;
                a = b;
            }
            Ok(windings)
        }
    }
}

/// Appends a winding of `n` listed pool indices read at `c`, each checked.
fn push_listed(c: &mut Cur, n: u8, count: usize, d: &mut DsfBinary) -> Result<(), String> {
    let raw = c.take(2 * usize::from(n)).unwrap_or_default();
    let start = d.point_indices.len();
    d.point_indices.extend(
        raw.chunks_exact(2)
            .map(|b| u16::from_le_bytes([b[0], b[1]])),
    );
    if let Some(&bad) = d.point_indices[start..]
        .iter()
        .find(|&&i| usize::from(i) >= count)
    {
        check_index(usize::from(bad), count, "the pool")?;
    }
    d.winding_list.push(DsfBinWinding::Listed {
        start: start as u32,
        len: n,
    });
    Ok(())
}
