//! The binary DSF model: what [`super::parse`] returns.
//!
//! Polygons dominate an autogen tile (millions of them, ten-odd points each), so they are
//! kept as the file stores them: each 16-bit pool's raw values with its (scale, offset) per
//! plane ([`Pool`]), and per polygon a 24-byte record naming its pool and its windings
//! ([`DsfBinPolygon`], [`DsfBinWinding`]), all in a few flat vectors. The model is then
//! about the size of the `GEOD` and `CMDS` atoms and takes no allocation per polygon;
//! [`DsfBinary::windings`] decodes a polygon's points to degrees when they are needed.

use serde::Serialize;

use super::pool::Pool;

/// One `PROP` pair of the `HEAD` atom (`sim/west 8`, `sim/overlay 1`, …).
#[derive(Debug, Clone, PartialEq, Serialize, Default)]
pub struct DsfBinProperty {
    pub name: String,
    pub value: String,
}

/// A placed object: command `OBJECT` (7) or one point of `OBJECT_RANGE` (8). Objects are
/// few next to polygon points and need three planes each, so they are decoded as they are
/// read.
#[derive(Debug, Clone, PartialEq, Serialize, Default)]
pub struct DsfBinObject {
    /// Index into [`DsfBinary::object_defs`].
    pub def: usize,
    /// Plane 0 of the point pool.
    pub lon: f64,
    /// Plane 1.
    pub lat: f64,
    /// Plane 2: degrees clockwise from north.
    pub heading: f64,
    /// Byte offset of the command in the (decompressed) DSF.
    pub offset: u64,
}

/// A polygon feature: command `POLYGON` (12), `POLYGON_RANGE` (13), `NESTED_POLYGON` (14) or
/// `NESTED_POLYGON_RANGE` (15). The same meanings as [`crate::format::dsf::DsfPolygon`], but
/// the points stay in their pool as the file stores them: the polygon names its pool and
/// its windings ([`DsfBinary::winding_list`]), and [`DsfBinary::windings`] decodes them.
/// Millions of polygons fit in a tile; this keeps each at 24 bytes with no allocation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct DsfBinPolygon {
    /// Index into [`DsfBinary::polygon_defs`].
    pub def: u32,
    /// The 16-bit polygon parameter. For autogen: `round(height_m / 4) << 8 | low`.
    pub param: u16,
    /// The 16-bit point pool ([`DsfBinary::pools`]) the points come from.
    pub pool: u16,
    /// Coordinates per point: the plane count of the pool (at least 2).
    pub coord_depth: u8,
    /// How many windings, at [`DsfBinary::winding_list`]`[first_winding..]`.
    pub winding_count: u8,
    /// Index of the first winding in [`DsfBinary::winding_list`].
    pub first_winding: u32,
    /// Byte offset of the command in the (decompressed) DSF.
    pub offset: u64,
}

impl DsfBinPolygon {
    /// Building height in meters from the high 8 bits of the parameter (height / 4).
    pub fn autogen_height_m(&self) -> f64 {
        f64::from(self.param >> 8) * 4.0
    }

    /// The low 8 bits of the parameter: the spelling set for an AGB, the number of
    /// tile-spawning windings for an AGS.
    pub fn autogen_low(&self) -> u8 {
        (self.param & 0xFF) as u8
    }
}

/// One winding of a polygon: which points of the polygon's pool it runs through, in order.
/// A winding does not repeat its first point unless the file does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DsfBinWinding {
    /// Points `first..end` of the pool (`POLYGON_RANGE`, `NESTED_POLYGON_RANGE`).
    Range { first: u16, end: u16 },
    /// `len` points whose pool indices are [`DsfBinary::point_indices`]`[start..start + len]`
    /// (`POLYGON`, `NESTED_POLYGON`).
    Listed { start: u32, len: u8 },
}

/// What the 16-byte footer says about the bytes before it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum Md5Check {
    /// The footer is the MD5 of everything before it.
    Match,
    /// The footer is there but does not match (the file was damaged or edited).
    Mismatch,
    /// The atoms run to the end of the file (or past it): no footer to check.
    #[default]
    Missing,
}

/// A binary DSF, reduced to what autogen placement needs.
///
/// Polygon points are kept as the file stores them: the 16-bit pools' raw values with
/// their (scale, offset) per plane, which is about the size of the `GEOD` atom; polygons
/// refer to them ([`DsfBinPolygon`]) and [`DsfBinary::windings`] decodes a polygon's
/// points to degrees, exactly as DSFLib does. `Serialize` (the `dump --json` output) writes
/// each polygon with its decoded windings, as the DSF text model does, not the pools.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct DsfBinary {
    /// The master version after the cookie (always 1).
    pub version: u32,
    /// True when the file was a 7-Zip archive holding the DSF.
    pub compressed: bool,
    /// `HEAD`/`PROP` pairs in file order.
    pub properties: Vec<DsfBinProperty>,
    /// `DEFN`/`TERT`.
    pub terrain_defs: Vec<String>,
    /// `DEFN`/`OBJT`.
    pub object_defs: Vec<String>,
    /// `DEFN`/`POLY`.
    pub polygon_defs: Vec<String>,
    /// `DEFN`/`NETW`.
    pub network_defs: Vec<String>,
    /// `DEFN`/`DEMN`.
    pub raster_defs: Vec<String>,
    /// Placed objects in command order ("object N" in messages is an index here).
    pub objects: Vec<DsfBinObject>,
    /// Polygons in command order ("polygon N" in messages is an index here).
    pub polygons: Vec<DsfBinPolygon>,
    /// The windings of every polygon, polygon after polygon.
    pub winding_list: Vec<DsfBinWinding>,
    /// The pool indices of [`DsfBinWinding::Listed`] windings.
    pub point_indices: Vec<u16>,
    /// The 16-bit point pools (`POOL` + `SCAL`) by index. A pool no polygon uses (a terrain
    /// mesh's, or one only objects use) is left empty: its points were decoded already or
    /// are not needed. 32-bit pools (`PO32`) hold road points, decoded into `segments`,
    /// and are not kept.
    pub pools: Vec<Pool<u16>>,
    /// Road segments, junction to junction, as the network chains place them (one chain
    /// splits at each junction it passes, ROADS.md §1.2), in command order; each located
    /// at its chain command's offset.
    pub segments: Vec<crate::format::dsf::DsfSegment>,
    /// How many of each command the `CMDS` atom holds, by the DSF spec's names
    /// (`POLYGON_RANGE`, …), in command-id order, only those present.
    pub command_counts: Vec<(String, u64)>,
    /// The MD5 footer.
    pub md5: Md5Check,
}

impl DsfBinary {
    /// The value of the first property with this name.
    pub fn property(&self, name: &str) -> Option<&str> {
        self.properties
            .iter()
            .find(|p| p.name == name)
            .map(|p| p.value.as_str())
    }

    /// The path of the `POLY` definition a polygon uses.
    pub fn polygon_def_path(&self, polygon: &DsfBinPolygon) -> Option<&str> {
        self.polygon_defs
            .get(polygon.def as usize)
            .map(String::as_str)
    }

    /// The path of the `OBJT` definition an object uses.
    pub fn object_def_path(&self, object: &DsfBinObject) -> Option<&str> {
        self.object_defs.get(object.def).map(String::as_str)
    }

    /// A polygon's windings (empty when the polygon does not belong to this DSF).
    pub fn polygon_windings(&self, polygon: &DsfBinPolygon) -> &[DsfBinWinding] {
        let a = polygon.first_winding as usize;
        self.winding_list
            .get(a..a + usize::from(polygon.winding_count))
            .unwrap_or_default()
    }

    /// The pool indices of one winding's points, in order.
    pub fn winding_points(&self, winding: DsfBinWinding) -> WindingPoints<'_> {
        match winding {
            DsfBinWinding::Range { first, end } => WindingPoints::Range(first..end.max(first)),
            DsfBinWinding::Listed { start, len } => {
                let a = start as usize;
                WindingPoints::Listed(
                    self.point_indices
                        .get(a..a + usize::from(len))
                        .unwrap_or_default()
                        .iter(),
                )
            }
        }
    }

    /// A polygon's windings decoded to (longitude, latitude), as the DSF text model holds
    /// them: the first two planes of its pool, scaled as DSFLib scales them.
    pub fn windings(&self, polygon: &DsfBinPolygon) -> Vec<Vec<[f64; 2]>> {
        let Some(pool) = self.polygon_pool(polygon) else {
            return Vec::new();
        };
        self.polygon_windings(polygon)
            .iter()
            .map(|&w| {
                let mut out = Vec::with_capacity(self.winding_points(w).len());
                out.extend(
                    self.winding_points(w)
                        .map(|i| [pool.value(0, i), pool.value(1, i)]),
                );
                out
            })
            .collect()
    }

    /// The coordinates past the first two, per winding, `coord_depth - 2` per point in
    /// point order; empty when `coord_depth` is 2.
    pub fn extra(&self, polygon: &DsfBinPolygon) -> Vec<Vec<f64>> {
        let Some(pool) = self.polygon_pool(polygon) else {
            return Vec::new();
        };
        if pool.planes <= 2 {
            return Vec::new();
        }
        self.polygon_windings(polygon)
            .iter()
            .map(|&w| {
                self.winding_points(w)
                    .flat_map(|i| (2..pool.planes).map(move |p| pool.value(p, i)))
                    .collect()
            })
            .collect()
    }

    /// The pool of a polygon, when it holds the polygon's points.
    fn polygon_pool(&self, polygon: &DsfBinPolygon) -> Option<&Pool<u16>> {
        self.pools
            .get(usize::from(polygon.pool))
            .filter(|p| p.planes >= 2 && p.planes == usize::from(polygon.coord_depth))
    }
}

/// The pool indices of a winding's points ([`DsfBinary::winding_points`]).
#[derive(Debug, Clone)]
pub enum WindingPoints<'a> {
    Range(std::ops::Range<u16>),
    Listed(std::slice::Iter<'a, u16>),
}

impl Iterator for WindingPoints<'_> {
    type Item = usize;

    #[inline]
    fn next(&mut self) -> Option<usize> {
        match self {
            WindingPoints::Range(r) => r.next().map(usize::from),
            WindingPoints::Listed(it) => it.next().map(|&i| usize::from(i)),
        }
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        match self {
            WindingPoints::Range(r) => r.size_hint(),
            WindingPoints::Listed(it) => it.size_hint(),
        }
    }
}

impl ExactSizeIterator for WindingPoints<'_> {}

/// `dump --json`: the model as the DSF text's reads, polygons with their decoded windings.
impl Serialize for DsfBinary {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        #[derive(Serialize)]
        struct Polygon {
            def: u32,
            param: u16,
            coord_depth: u8,
            windings: Vec<Vec<[f64; 2]>>,
            extra: Vec<Vec<f64>>,
            offset: u64,
        }
        struct Polygons<'a>(&'a DsfBinary);
        impl Serialize for Polygons<'_> {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.collect_seq(self.0.polygons.iter().map(|p| Polygon {
                    def: p.def,
                    param: p.param,
                    coord_depth: p.coord_depth,
                    windings: self.0.windings(p),
                    extra: self.0.extra(p),
                    offset: p.offset,
                }))
            }
        }
        #[derive(Serialize)]
        struct Json<'a> {
            version: u32,
            compressed: bool,
            properties: &'a [DsfBinProperty],
            terrain_defs: &'a [String],
            object_defs: &'a [String],
            polygon_defs: &'a [String],
            network_defs: &'a [String],
            raster_defs: &'a [String],
            objects: &'a [DsfBinObject],
            polygons: Polygons<'a>,
            #[serde(skip_serializing_if = "<[_]>::is_empty")]
            segments: &'a [crate::format::dsf::DsfSegment],
            command_counts: &'a [(String, u64)],
            md5: Md5Check,
        }
        Json {
            version: self.version,
            compressed: self.compressed,
            properties: &self.properties,
            terrain_defs: &self.terrain_defs,
            object_defs: &self.object_defs,
            polygon_defs: &self.polygon_defs,
            network_defs: &self.network_defs,
            raster_defs: &self.raster_defs,
            objects: &self.objects,
            polygons: Polygons(self),
            segments: &self.segments,
            command_counts: &self.command_counts,
            md5: self.md5,
        }
        .serialize(s)
    }
}
