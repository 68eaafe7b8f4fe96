//! A binary DSF writer, for tests, benches and sample files: it writes the properties,
//! definitions, objects and polygons of a [`DsfToWrite`] as X-Plane's DSFLib would read them.
//!
//! Objects and polygons can only come from 16-bit pools (DSFLib decodes them from `POOL`,
//! never `PO32`), and 16 bits over a whole 1° tile would quantise to about 1.7 m. So, like
//! xptools' `DSFLibWrite.cpp`, which splits the tile into many pools, each feature goes into
//! a pool for the small cell (1/64° by default) its first point lies in, and each pool's
//! scale and offset are fitted to the points it holds: a pool of a town's features spans a
//! few hundred meters and keeps points to a centimeter or better.
//!
//! Features are written in the order given; consecutive objects of one definition become one
//! `OBJECT_RANGE`, a polygon is one `POLYGON_RANGE` or `NESTED_POLYGON_RANGE`. Each plane
//! takes the smallest of the four encodings unless [`WriteOptions::encoding`] forces one.
//!
//! Road segments go last, into one 32-bit pool (`PO32`, planes lon, lat, z, junction id, and
//! the control's lon, lat, z when a segment is curved; the junction id plane unscaled, as
//! X-Plane's are): consecutive segments of one definition and subtype where each ends on
//! the junction the next begins at become one chain through those junctions
//! (`JUNCTION_OFFSET_SELECT` + `NETWORK_CHAIN_RANGE`), as X-Plane's own DSFs chain them.

use md5::{Digest, Md5};

use super::commands::id;
use super::pool::{encode_plane, encoded_len, PlaneEncoding, PoolValue, WrappingSub};
use super::{DsfBinObject, DsfBinProperty, DsfBinary};

/// What [`write_dsf`] writes: the parts of a DSF that autogen placement reads, with
/// coordinates in degrees.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct DsfToWrite {
    /// `HEAD`/`PROP` pairs.
    pub properties: Vec<DsfBinProperty>,
    /// `DEFN`/`TERT`.
    pub terrain_defs: Vec<String>,
    /// `DEFN`/`OBJT`.
    pub object_defs: Vec<String>,
    /// `DEFN`/`POLY`.
    pub polygon_defs: Vec<String>,
    /// `DEFN`/`NETW`.
    pub network_defs: Vec<String>,
    /// `DEFN`/`DEMN` (written only when not empty).
    pub raster_defs: Vec<String>,
    /// Objects (their `offset` is ignored).
    pub objects: Vec<DsfBinObject>,
    pub polygons: Vec<PolygonToWrite>,
    /// Road segments (their `at` is ignored): each junction id (`nodes`) must not be 0.
    pub segments: Vec<crate::format::dsf::DsfSegment>,
}

/// A polygon for [`DsfToWrite`]: the fields of [`crate::format::dsf::DsfPolygon`].
#[derive(Debug, Clone, PartialEq, Default)]
pub struct PolygonToWrite {
    /// Index into [`DsfToWrite::polygon_defs`].
    pub def: usize,
    /// The 16-bit parameter.
    pub param: u32,
    /// Coordinates per point (at least 2).
    pub coord_depth: usize,
    /// Each a list of (longitude, latitude).
    pub windings: Vec<Vec<[f64; 2]>>,
    /// Per winding, `coord_depth - 2` values per point.
    pub extra: Vec<Vec<f64>>,
}

impl From<&DsfBinary> for DsfToWrite {
    /// What a parsed DSF holds, decoded, to write it again.
    fn from(d: &DsfBinary) -> Self {
        DsfToWrite {
            properties: d.properties.clone(),
            terrain_defs: d.terrain_defs.clone(),
            object_defs: d.object_defs.clone(),
            polygon_defs: d.polygon_defs.clone(),
            network_defs: d.network_defs.clone(),
            raster_defs: d.raster_defs.clone(),
            objects: d.objects.clone(),
            polygons: d
                .polygons
                .iter()
                .map(|p| PolygonToWrite {
                    def: p.def as usize,
                    param: u32::from(p.param),
                    coord_depth: usize::from(p.coord_depth),
                    windings: d.windings(p),
                    extra: d.extra(p),
                })
                .collect(),
            segments: d.segments.clone(),
        }
    }
}

/// How [`write_dsf_with`] writes.
#[derive(Debug, Clone, Copy)]
pub struct WriteOptions {
    /// Every plane in this encoding, or `None` for the smallest of each plane.
    pub encoding: Option<PlaneEncoding>,
    /// Side of the square cells, in degrees, that features are pooled by.
    pub cell_deg: f64,
}

impl Default for WriteOptions {
    fn default() -> Self {
        WriteOptions {
            encoding: None,
            cell_deg: 1.0 / 64.0,
        }
    }
}

/// Writes `d` (properties, the five definition tables, objects, polygons) as a binary DSF
/// with its MD5 footer.
///
/// # Panics
/// When a polygon cannot be written in DSF: more than 255 windings, more than 65535 points,
/// or a parameter past 65535.
pub fn write_dsf(d: &DsfToWrite) -> Vec<u8> {
    write_dsf_with(d, &WriteOptions::default())
}

/// A pool being filled: values per plane.
struct PoolBuild {
    planes: Vec<Vec<f64>>,
}

impl PoolBuild {
    fn len(&self) -> usize {
        self.planes[0].len()
    }
}

/// [`write_dsf`] with options.
pub fn write_dsf_with(d: &DsfToWrite, opts: &WriteOptions) -> Vec<u8> {
    use std::collections::HashMap;
    let mut pools: Vec<PoolBuild> = Vec::new();
    let mut open: HashMap<(u8, usize, i64, i64), usize> = HashMap::new();
    let cell = |lon: f64, lat: f64| {
        (
            (lon / opts.cell_deg).floor() as i64,
            (lat / opts.cell_deg).floor() as i64,
        )
    };
    // The pool for a feature of `n` points with `depth` planes in this cell.
    let mut pool_for =
        |pools: &mut Vec<PoolBuild>, kind: u8, depth: usize, (cx, cy): (i64, i64), n: usize| {
            let key = (kind, depth, cx, cy);
            match open.get(&key) {
                Some(&p) if pools[p].len() + n <= 65535 => p,
                _ => {
                    pools.push(PoolBuild {
                        planes: vec![Vec::new(); depth],
                    });
                    open.insert(key, pools.len() - 1);
                    pools.len() - 1
                }
            }
        };

    // (def, pool, index)
    let mut objects = Vec::with_capacity(d.objects.len());
    for o in &d.objects {
        let p = pool_for(&mut pools, 0, 3, cell(o.lon, o.lat), 1);
        let pb = &mut pools[p];
        objects.push((o.def, p, pb.len()));
        pb.planes[0].push(o.lon);
        pb.planes[1].push(o.lat);
        pb.planes[2].push(o.heading);
    }
    // (def, param, pool, first index, winding ends)
    let mut polygons = Vec::with_capacity(d.polygons.len());
    for (k, poly) in d.polygons.iter().enumerate() {
        let n: usize = poly.windings.iter().map(Vec::len).sum();
        assert!(
            n <= 65535,
            "polygon {k}: {n} points, more than a pool holds"
        );
        assert!(
            poly.windings.len() <= 255,
            "polygon {k}: more than 255 windings"
        );
        assert!(poly.param <= 65535, "polygon {k}: parameter past 65535");
        let depth = poly.coord_depth.max(2);
        let first = poly
            .windings
            .iter()
            .find_map(|w| w.first())
            .copied()
            .unwrap_or_default();
        let p = pool_for(&mut pools, 1, depth, cell(first[0], first[1]), n);
        let pb = &mut pools[p];
        let start = pb.len();
        let mut ends = Vec::with_capacity(poly.windings.len());
        for (w, pts) in poly.windings.iter().enumerate() {
            let extra = poly.extra.get(w);
            for (i, pt) in pts.iter().enumerate() {
                pb.planes[0].push(pt[0]);
                pb.planes[1].push(pt[1]);
                for e in 2..depth {
                    let v = extra
                        .and_then(|x| x.get(i * (depth - 2) + e - 2))
                        .copied()
                        .unwrap_or_default();
                    pb.planes[e].push(v);
                }
            }
            ends.push(pb.len());
        }
        polygons.push((poly.def, poly.param, p, start, ends));
    }

    // GEOD: quantise and encode every pool.
    let mut pool_atoms = Vec::new();
    let mut scale_atoms = Vec::new();
    for pb in &pools {
        let mut raw_planes = Vec::with_capacity(pb.planes.len());
        let mut scal = Vec::with_capacity(pb.planes.len() * 8);
        for vals in &pb.planes {
            let (lo, hi) = vals
                .iter()
                .fold((f64::MAX, f64::MIN), |(a, b), &v| (a.min(v), b.max(v)));
            let (sc, off) = fit_scale(lo, hi);
            let (scd, offd) = (f64::from(sc), f64::from(off));
            raw_planes.push(
                vals.iter()
                    .map(|&v| ((v - offd) * 65535.0 / scd).round().clamp(0.0, 65535.0) as u16)
                    .collect::<Vec<u16>>(),
            );
            scal.extend_from_slice(&sc.to_le_bytes());
            scal.extend_from_slice(&off.to_le_bytes());
        }
        pool_atoms.extend(pool16_atom(&raw_planes, opts.encoding));
        scale_atoms.extend(atom(b"SCAL", &scal));
    }
    let mut geod = pool_atoms;
    geod.extend(scale_atoms);

    // CMDS.
    let mut cmds = Vec::new();
    let (mut cur_def, mut cur_pool) = (None, None);
    let mut state = |cmds: &mut Vec<u8>, def: usize, pool: usize| {
        if cur_def != Some(def) {
            set_definition(cmds, def as u32);
            cur_def = Some(def);
        }
        if cur_pool != Some(pool) {
            cmds.push(id::POOL_SELECT);
            cmds.extend_from_slice(&(pool as u16).to_le_bytes());
            cur_pool = Some(pool);
        }
    };
    let mut i = 0;
    while i < objects.len() {
        let (def, pool, first) = objects[i];
        let mut end = first + 1;
        while i + (end - first) < objects.len() && objects[i + (end - first)] == (def, pool, end) {
            end += 1;
        }
        state(&mut cmds, def, pool);
        if end - first == 1 {
            cmds.push(id::OBJECT);
            cmds.extend_from_slice(&(first as u16).to_le_bytes());
        } else {
            cmds.push(id::OBJECT_RANGE);
            cmds.extend_from_slice(&(first as u16).to_le_bytes());
            cmds.extend_from_slice(&(end as u16).to_le_bytes());
        }
        i += end - first;
    }
    for (def, param, pool, first, ends) in &polygons {
        state(&mut cmds, *def, *pool);
        if ends.len() == 1 {
            cmds.push(id::POLYGON_RANGE);
            cmds.extend_from_slice(&(*param as u16).to_le_bytes());
            cmds.extend_from_slice(&(*first as u16).to_le_bytes());
            cmds.extend_from_slice(&(ends[0] as u16).to_le_bytes());
        } else {
            cmds.push(id::NESTED_POLYGON_RANGE);
            cmds.extend_from_slice(&(*param as u16).to_le_bytes());
            cmds.push(ends.len() as u8);
            cmds.extend_from_slice(&(*first as u16).to_le_bytes());
            for e in ends {
                cmds.extend_from_slice(&(*e as u16).to_le_bytes());
            }
        }
    }

    if !d.segments.is_empty() {
        let (po32, sc32) = network_pool(d, &mut cmds, opts.encoding);
        geod.extend(po32);
        geod.extend(sc32);
    }

    let props: Vec<&str> = d
        .properties
        .iter()
        .flat_map(|p| [p.name.as_str(), p.value.as_str()])
        .collect();
    let mut defn = Vec::new();
    defn.extend(atom(b"TERT", &string_table(&d.terrain_defs)));
    defn.extend(atom(b"OBJT", &string_table(&d.object_defs)));
    defn.extend(atom(b"POLY", &string_table(&d.polygon_defs)));
    defn.extend(atom(b"NETW", &string_table(&d.network_defs)));
    if !d.raster_defs.is_empty() {
        defn.extend(atom(b"DEMN", &string_table(&d.raster_defs)));
    }
    finish(&[
        atom(b"HEAD", &atom(b"PROP", &string_table(&props))),
        atom(b"DEFN", &defn),
        atom(b"GEOD", &geod),
        atom(b"CMDS", &cmds),
    ])
}

/// The road segments of `d` as one 32-bit pool, the first (its `PO32` and `SC32` atoms),
/// and their chains appended to `cmds`.
///
/// # Panics
/// When a junction id is 0 (that marks a shape point), a subtype passes 255 or a segment
/// 65535 points.
fn network_pool(
    d: &DsfToWrite,
    cmds: &mut Vec<u8>,
    encoding: Option<PlaneEncoding>,
) -> (Vec<u8>, Vec<u8>) {
    let curved = d.segments.iter().any(|s| s.ctrl.is_some());
    let depth = if curved { 7 } else { 4 };
    let mut planes: Vec<Vec<f64>> = vec![Vec::new(); depth];
    // (def, subtype, first index, end index)
    let mut chains: Vec<(usize, u32, usize, usize)> = Vec::new();
    let mut last: Option<&crate::format::dsf::DsfSegment> = None;
    for s in &d.segments {
        assert!(
            s.nodes[0] != 0 && s.nodes[1] != 0,
            "junction id 0 marks a shape point"
        );
        assert!(s.subtype <= 255, "a road subtype is 8 bits in a binary DSF");
        let joins = last.is_some_and(|l| {
            l.def == s.def
                && l.subtype == s.subtype
                && l.nodes[1] == s.nodes[0]
                && l.points.last().map(|p| [p[0], p[1]]) == s.points.first().map(|p| [p[0], p[1]])
                && chains
                    .last()
                    .is_some_and(|c| c.3 - c.2 + s.points.len() < 65535)
        });
        let n = s.points.len();
        let skip = usize::from(joins);
        for (k, p) in s.points.iter().enumerate().skip(skip) {
            let id = match k {
                0 => s.nodes[0],
                _ if k + 1 == n => s.nodes[1],
                _ => 0,
            };
            let c = s
                .ctrl
                .as_ref()
                .and_then(|c| c.get(k))
                .copied()
                .unwrap_or(*p);
            let vals = [p[0], p[1], p[2], id as f64, c[0], c[1], c[2]];
            for (plane, v) in planes.iter_mut().zip(vals) {
                plane.push(v);
            }
        }
        let end = planes[0].len();
        match chains.last_mut() {
            Some(c) if joins => c.3 = end,
            _ => chains.push((s.def, s.subtype, end - n, end)),
        }
        last = Some(s);
    }
    let mut raw = Vec::with_capacity(depth);
    let mut scales = Vec::with_capacity(depth);
    for (i, vals) in planes.iter().enumerate() {
        if i == 3 {
            // Junction ids: unscaled.
            raw.push(vals.iter().map(|&v| v as u32).collect::<Vec<u32>>());
            scales.push((0.0, 0.0));
            continue;
        }
        let (lo, hi) = vals
            .iter()
            .fold((f64::MAX, f64::MIN), |(a, b), &v| (a.min(v), b.max(v)));
        let (sc, off) = fit_scale(lo, hi);
        let (scd, offd) = (f64::from(sc), f64::from(off));
        raw.push(
            vals.iter()
                .map(|&v| ((v - offd) * u32::FULL / scd).round().clamp(0.0, u32::FULL) as u32)
                .collect(),
        );
        scales.push((sc, off));
    }
    let mut cur = (None, None);
    // `POOL_SELECT` picks the 16-bit and the 32-bit pool of one rank together.
    cmds.push(id::POOL_SELECT);
    cmds.extend_from_slice(&0u16.to_le_bytes());
    for (def, subtype, first, end) in chains {
        if cur.0 != Some(def) {
            set_definition(cmds, def as u32);
        }
        if cur.1 != Some(subtype) {
            cmds.extend_from_slice(&[id::ROAD_SUBTYPE, subtype as u8]);
        }
        cur = (Some(def), Some(subtype));
        assert!(end - first <= 65535, "a chain of more than 65535 points");
        cmds.push(id::JUNCTION_OFFSET);
        cmds.extend_from_slice(&(first as u32).to_le_bytes());
        cmds.push(id::CHAIN_RANGE);
        cmds.extend_from_slice(&0u16.to_le_bytes());
        cmds.extend_from_slice(&((end - first) as u16).to_le_bytes());
    }
    (pool32_atom(&raw, encoding), scale_atom(b"SC32", &scales))
}

/// A float32 (scale, offset) pair whose range covers `lo..=hi`: `offset <= lo` and
/// `offset + scale >= hi`, with a scale above 0 (0 would mean "unscaled").
fn fit_scale(lo: f64, hi: f64) -> (f32, f32) {
    let (lo, hi) = if lo <= hi && lo.is_finite() && hi.is_finite() {
        (lo, hi)
    } else {
        (0.0, 0.0)
    };
    let mut off = lo as f32;
    if f64::from(off) > lo {
        off = off.next_down();
    }
    let mut sc = ((hi - f64::from(off)).max(1e-6)) as f32;
    while f64::from(off) + f64::from(sc) < hi {
        sc = sc.next_up();
    }
    (sc, off)
}

/// Appends the shortest `SET_DEFINITION_8/16/32` for `def`.
pub fn set_definition(cmds: &mut Vec<u8>, def: u32) {
    if def <= 0xFF {
        cmds.extend_from_slice(&[id::SET_DEF_8, def as u8]);
    } else if def <= 0xFFFF {
        cmds.push(id::SET_DEF_16);
        cmds.extend_from_slice(&(def as u16).to_le_bytes());
    } else {
        cmds.push(id::SET_DEF_32);
        cmds.extend_from_slice(&def.to_le_bytes());
    }
}

/// An atom: its id (stored as a little-endian int32, so backwards), its length including
/// the 8-byte header, and `body`.
pub fn atom(name: &[u8; 4], body: &[u8]) -> Vec<u8> {
    let mut v = Vec::with_capacity(8 + body.len());
    v.extend_from_slice(&[name[3], name[2], name[1], name[0]]);
    v.extend_from_slice(&((8 + body.len()) as u32).to_le_bytes());
    v.extend_from_slice(body);
    v
}

/// A string table: each string followed by a NUL.
pub fn string_table<S: AsRef<str>>(strings: &[S]) -> Vec<u8> {
    let mut v = Vec::new();
    for s in strings {
        v.extend_from_slice(s.as_ref().as_bytes());
        v.push(0);
    }
    v
}

/// A whole DSF: cookie, version 1, the given top-level atoms, and the MD5 footer.
pub fn finish(atoms: &[Vec<u8>]) -> Vec<u8> {
    let mut v = Vec::with_capacity(28 + atoms.iter().map(Vec::len).sum::<usize>());
    v.extend_from_slice(b"XPLNEDSF");
    v.extend_from_slice(&1u32.to_le_bytes());
    for a in atoms {
        v.extend_from_slice(a);
    }
    let md5 = Md5::digest(&v);
    v.extend_from_slice(md5.as_slice());
    v
}

/// A `POOL` atom of 16-bit planes (all planes the same length), each in `encoding` or the
/// smallest.
pub fn pool16_atom(planes: &[Vec<u16>], encoding: Option<PlaneEncoding>) -> Vec<u8> {
    atom(b"POOL", &planar(planes, encoding))
}

/// A `PO32` atom of 32-bit planes.
pub fn pool32_atom(planes: &[Vec<u32>], encoding: Option<PlaneEncoding>) -> Vec<u8> {
    atom(b"PO32", &planar(planes, encoding))
}

/// A scale atom (`SCAL` or `SC32`) of (scale, offset) pairs.
pub fn scale_atom(name: &[u8; 4], pairs: &[(f32, f32)]) -> Vec<u8> {
    let mut v = Vec::with_capacity(pairs.len() * 8);
    for (s, o) in pairs {
        v.extend_from_slice(&s.to_le_bytes());
        v.extend_from_slice(&o.to_le_bytes());
    }
    atom(name, &v)
}

fn planar<T: PoolValue + PartialEq + WrappingSub + ToLe>(
    planes: &[Vec<T>],
    encoding: Option<PlaneEncoding>,
) -> Vec<u8> {
    let count = planes.first().map_or(0, Vec::len);
    let mut v = Vec::with_capacity(5 + planes.len() * (1 + count * T::SIZE));
    v.extend_from_slice(&(count as u32).to_le_bytes());
    v.push(planes.len() as u8);
    for p in planes {
        let enc = encoding.unwrap_or_else(|| {
            *PlaneEncoding::ALL
                .iter()
                .min_by_key(|&&e| encoded_len(p, e))
                .unwrap_or(&PlaneEncoding::Raw)
        });
        encode_plane(p, enc, |x, o: &mut Vec<u8>| x.put(o), &mut v);
    }
    v
}

/// Little-endian bytes of a pool value.
trait ToLe {
    fn put(self, out: &mut Vec<u8>);
}

impl ToLe for u16 {
    fn put(self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.to_le_bytes());
    }
}

impl ToLe for u32 {
    fn put(self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.to_le_bytes());
    }
}
