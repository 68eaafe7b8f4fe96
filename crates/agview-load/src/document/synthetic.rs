//! A synthetic scenery tile: a DSF text placing N autogen features of the sample package over
//! the 1°×1° tile +47+008, for measuring the whole way from a document to a frame
//! (`agview bench tile`, `cargo bench --bench document`) and for flying through a scene of a
//! real tile's size (`agview view --synthetic-tile N`).
//!
//! The mix ([`SyntheticMix`]): 60 % blocks (`autogen/city_block.agb`), 15 % strings
//! (`autogen/lakeside.ags`, each a town of 20 to 200 vertices round a lake,
//! [`crate::layout::ags::bench_polygons`]) and 25 % points: 10 % squares
//! (`autogen/plaza.agp`) and 15 % street-corner sets (`autogen/props.agp`). Blocks are most
//! of what a real tile's autogen is; strings and points are the rest.
//!
//! The spread: 80 % of each kind stand in towns, 20 % in the countryside. There are N / 2,500
//! towns (1 to 60) whose sizes fall off as 1, 1/2, 1/3, … (one city, a few towns, many
//! villages). A town is a street grid of 120 m cells turned to its own heading, filled from
//! its middle out with a ragged edge: a block (at most 100 × 100 m, leaving 20 m streets) or a
//! point per cell. Blocks are shops (low byte 7, 20 to 40 m high) in the inner third and
//! houses (low bytes 0 and 2, 8 m high) further out, each of a size the sample block's
//! spellings fit. The town's strings ring it. The countryside gets single features anywhere
//! outside the towns, at any heading: small houses (low byte 0), strings and points.
//!
//! Everything is drawn from one [`Rng`] with a fixed seed: the same N gives the same text.
//! Definitions are written as absolute paths into the assets folder, so the document can be
//! written anywhere (the temporary folder) and still resolve.

use std::f64::consts::TAU;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use crate::input::METERS_PER_DEGREE;
use crate::rng::Rng;

/// The tile's south-west corner (longitude, latitude): +47+008, the sample town's tile.
pub(crate) const TILE_SW: [f64; 2] = [8.0, 47.0];

/// The asset files the tile places, relative to the sample package
/// ([`sample_assets`]): the two points (`OBJECT_DEF` 0 and 1), then the block and the
/// string (`POLYGON_DEF` 0 and 1).
pub(crate) const ASSETS: [&str; 4] = [
    "autogen/plaza.agp",
    "autogen/props.agp",
    "autogen/city_block.agb",
    "autogen/lakeside.ags",
];

/// The generator's seed.
const SEED: u64 = 0x5eed_cafe;
/// The share of each kind that stands in towns; the rest is countryside.
const TOWN_SHARE: f64 = 0.8;
/// Features per town (before the 1 to 60 clamp).
const FEATURES_PER_TOWN: usize = 2_500;
const MAX_TOWNS: usize = 60;
/// A town's street grid: a cell per block or point; a block leaves a street of at least
/// `CELL - BLOCK_MAX` meters.
const CELL: f64 = 120.0;
const BLOCK_MAX: f64 = 100.0;
/// Meters between the middles of neighbouring strings round a town (they are at most 240 m
/// across), and from the last cell to the first ring.
const STRING_PITCH: f64 = 260.0;

/// How many features of each asset a synthetic tile places.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize)]
pub struct SyntheticMix {
    /// `city_block.agb` polygons.
    pub blocks: usize,
    /// `lakeside.ags` polygons.
    pub strings: usize,
    /// `plaza.agp` points.
    pub plazas: usize,
    /// `props.agp` points.
    pub props: usize,
}

impl SyntheticMix {
    /// The mix of `features` features (see the module documentation); the counts add up to
    /// `features` exactly.
    pub(crate) fn for_features(features: usize) -> Self {
        let share = |f: f64| (features as f64 * f).round() as usize;
        let blocks = share(0.60).min(features);
        let strings = share(0.15).min(features - blocks);
        let plazas = share(0.10).min(features - blocks - strings);
        SyntheticMix {
            blocks,
            strings,
            plazas,
            props: features - blocks - strings - plazas,
        }
    }

    pub fn total(&self) -> usize {
        self.blocks + self.strings + self.plazas + self.props
    }
}

/// One town of a synthetic tile.
#[derive(Debug, Clone, PartialEq)]
pub struct SyntheticTown {
    /// Its middle (longitude, latitude).
    pub center: [f64; 2],
    /// Meters from the middle to the outside of its outer ring of strings.
    pub radius_m: f64,
    /// What it places.
    pub mix: SyntheticMix,
}

/// A synthetic tile: the document and what it places.
#[derive(Debug, Clone)]
pub struct SyntheticTile {
    /// The DSF text.
    pub text: String,
    /// Every feature, by asset.
    pub mix: SyntheticMix,
    /// The towns, largest first.
    pub towns: Vec<SyntheticTown>,
}

/// The tile of `features` autogen features of the package at `assets` (see the module
/// documentation).
pub fn synthetic_tile(features: usize, assets: &Path) -> SyntheticTile {
    let mix = SyntheticMix::for_features(features);
    let mut rng = Rng::new(SEED);
    let town_mixes = town_mixes(&mix, features);
    let mut strings = crate::layout::ags::bench_polygons(mix.strings, 7).into_iter();
    let mut out = Writer::new(assets);

    // Place the largest towns first, each clear of those before it.
    let mut towns: Vec<SyntheticTown> = Vec::with_capacity(town_mixes.len());
    for m in town_mixes {
        let cells = m.blocks + m.plazas + m.props;
        let radius = town_radius(cells, m.strings);
        let center = place_town(&mut rng, radius, &towns);
        towns.push(SyntheticTown {
            center,
            radius_m: radius,
            mix: m,
        });
    }
    for town in &towns {
        lay_town(&mut out, &mut rng, town, &mut strings);
    }

    // The countryside: what the towns left of each kind, anywhere outside them.
    let in_towns = towns
        .iter()
        .fold(SyntheticMix::default(), |a, t| SyntheticMix {
            blocks: a.blocks + t.mix.blocks,
            strings: a.strings + t.mix.strings,
            plazas: a.plazas + t.mix.plazas,
            props: a.props + t.mix.props,
        });
    let mut kinds = Vec::new();
    kinds.extend(std::iter::repeat_n(
        Kind::Block,
        mix.blocks - in_towns.blocks,
    ));
    kinds.extend(std::iter::repeat_n(
        Kind::String,
        mix.strings - in_towns.strings,
    ));
    kinds.extend(std::iter::repeat_n(
        Kind::Plaza,
        mix.plazas - in_towns.plazas,
    ));
    kinds.extend(std::iter::repeat_n(Kind::Props, mix.props - in_towns.props));
    shuffle(&mut rng, &mut kinds);
    for kind in kinds {
        let at = countryside_spot(&mut rng, &towns);
        let heading = f64::from(rng.f32()) * TAU;
        let frame = Frame::new(at, heading);
        match kind {
            Kind::Block => {
                let size = [
                    within(&mut rng, &[[30.5, 37.5], [46.5, 90.0]]),
                    within(&mut rng, &HOUSE_DEPTHS[..2]),
                ];
                out.block(&frame, [0.0, 0.0], size, param(6.0, 0));
            }
            Kind::String => {
                if let Some(s) = strings.next() {
                    out.string(&frame, [0.0, 0.0], &s);
                }
            }
            Kind::Plaza | Kind::Props => out.point(&frame, kind, [0.0, 0.0]),
        }
    }
    SyntheticTile {
        text: out.finish(),
        mix,
        towns,
    }
}

/// agview's source tree (the workspace root, two folders above this crate's): where the
/// sample package is found when agview runs from its sources, and where the tests find it.
pub(crate) fn source_tree() -> std::path::PathBuf {
    let here = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let root = here.ancestors().nth(2).unwrap_or(here);
    // Under Wine the build's path (`/work/…`) has no drive: with the current one it names
    // the same folder from a document on another drive (the temporary folder's `C:`).
    std::path::absolute(root).unwrap_or_else(|_| root.to_path_buf())
}

/// The sample package's folder, whose autogen assets the tile places: `sample_scenery` in
/// the current directory, the current directory itself when it is that folder, or the one
/// in agview's source tree.
pub fn sample_assets() -> Result<PathBuf, String> {
    let mut tried = Vec::new();
    let cwd = std::env::current_dir().ok();
    let candidates = cwd
        .iter()
        .flat_map(|d| [d.join("sample_scenery"), d.clone()])
        .chain([source_tree().join("sample_scenery")]);
    for dir in candidates {
        if ASSETS.iter().all(|a| dir.join(a).is_file()) {
            return Ok(dir);
        }
        tried.push(dir.display().to_string());
    }
    Err(format!(
        "the synthetic tile is made of the sample package's autogen ({}), and no folder \
         holds them all (looked in {}); run agview from its source folder",
        ASSETS.join(", "),
        tried.join(", ")
    ))
}

/// A document written to a folder of its own in the temporary folder (a viewer watching
/// the document's folder sees only it), removed when dropped.
#[derive(Debug)]
pub struct TempDocument {
    pub path: PathBuf,
}

impl TempDocument {
    /// Writes `text` to `<temp>/agview-<stem>-<process>-<n>/<stem>.txt`: the process id and a
    /// count, so two agview processes, or two documents of one, never share a folder.
    pub fn write(stem: &str, text: &str) -> std::io::Result<Self> {
        static NEXT: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
        let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let dir = std::env::temp_dir().join(format!("agview-{stem}-{}-{n}", std::process::id()));
        std::fs::create_dir_all(&dir)?;
        let path = dir.join(format!("{stem}.txt"));
        std::fs::write(&path, text)?;
        Ok(TempDocument { path })
    }
}

impl Drop for TempDocument {
    fn drop(&mut self) {
        if let Some(dir) = self.path.parent() {
            let _ = std::fs::remove_dir_all(dir);
        }
    }
}

/// What one cell or countryside spot holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Block,
    String,
    Plaza,
    Props,
}

/// Uniform in `[lo, hi)`.
fn between(rng: &mut Rng, lo: f64, hi: f64) -> f64 {
    lo + f64::from(rng.f32()) * (hi - lo)
}

/// Uniform in one of the ranges, each range as likely.
fn within(rng: &mut Rng, ranges: &[[f64; 2]]) -> f64 {
    let [lo, hi] = ranges[rng.below(ranges.len())];
    between(rng, lo, hi)
}

/// An autogen DSF parameter: the height in meters over four in the high byte, `low` (an
/// AGB's spelling set, an AGS's tile-spawning windings) in the low byte.
fn param(height_m: f64, low: u32) -> u32 {
    ((height_m / 4.0).round() as u32).min(255) << 8 | low
}

// Block sizes that `city_block.agb`'s spellings fit between its EDGE_MIN and EDGE_MAX (a
// real tile's blocks come from its roads, and its blocks' author makes the spellings fit
// them; a tile of closest fits would measure the warnings), half a meter in from each end,
// at most BLOCK_MAX.
/// Widths of the houses grid (spelling sets 0 and 2, whose WIDTH_RANGE starts at 30 m).
const HOUSE_WIDTHS: [[f64; 2]; 2] = [[30.5, 37.5], [46.5, BLOCK_MAX]];
/// Depths of spelling set 0 (houses on the front street; its DEPTH_RANGE starts at 20 m).
const HOUSE_DEPTHS: [[f64; 2]; 5] = [
    [20.5, 23.5],
    [28.5, 39.5],
    [44.5, 55.5],
    [60.5, 71.5],
    [76.5, 87.5],
];
/// Depths of spelling set 2 (houses on the front and the back street).
const HOUSE_2_DEPTHS: [[f64; 2]; 3] = [[48.5, 59.5], [64.5, 75.5], [80.5, 91.5]];
/// Widths and depths of the shops grid (spelling set 3, low byte 7).
const SHOP_WIDTHS: [[f64; 2]; 3] = [[40.5, 47.5], [64.5, 71.5], [88.5, 95.5]];
const SHOP_DEPTHS: [[f64; 2]; 2] = [[56.5, 63.5], [88.5, 95.5]];

fn shuffle<T>(rng: &mut Rng, v: &mut [T]) {
    for i in (1..v.len()).rev() {
        v.swap(i, rng.below(i + 1));
    }
}

/// The tile's size in meters (east, north), at its middle latitude.
fn tile_size() -> [f64; 2] {
    let k = (TILE_SW[1] + 0.5).to_radians().cos();
    [METERS_PER_DEGREE * k, METERS_PER_DEGREE]
}

/// Meters east and north of the tile's south-west corner to (longitude, latitude), on the
/// tile's middle latitude (a town is placed with it; its features with their own
/// [`Frame`]).
fn tile_to_ll(p: [f64; 2]) -> [f64; 2] {
    let s = tile_size();
    [TILE_SW[0] + p[0] / s[0], TILE_SW[1] + p[1] / s[1]]
}

/// What each town places: the towns' share of each kind split over towns of sizes 1, 1/2,
/// 1/3, …, largest first. Rounded down: the rest goes to the countryside.
fn town_mixes(mix: &SyntheticMix, features: usize) -> Vec<SyntheticMix> {
    let n = (features / FEATURES_PER_TOWN).clamp(1, MAX_TOWNS);
    let weights: Vec<f64> = (1..=n).map(|i| 1.0 / i as f64).collect();
    let sum: f64 = weights.iter().sum();
    let part = |count: usize, w: f64| (count as f64 * TOWN_SHARE * w / sum).floor() as usize;
    weights
        .iter()
        .map(|&w| SyntheticMix {
            blocks: part(mix.blocks, w),
            strings: part(mix.strings, w),
            plazas: part(mix.plazas, w),
            props: part(mix.props, w),
        })
        .filter(|m| m.total() > 0)
        .collect()
}

/// The rings of strings round a town whose cells reach `inner` meters: each ring's radius
/// and how many strings it holds, enough for `strings`.
fn string_rings(inner: f64, strings: usize) -> Vec<(f64, usize)> {
    let mut rings = Vec::new();
    let mut left = strings;
    let mut r = inner + STRING_PITCH;
    while left > 0 {
        let room = ((TAU * r / STRING_PITCH).floor() as usize).max(1).min(left);
        rings.push((r, room));
        left -= room;
        r += STRING_PITCH;
    }
    rings
}

/// How far a town's cells reach: a disc of `cells` cells with a ragged edge.
fn cells_radius(cells: usize) -> f64 {
    CELL * ((cells as f64 / std::f64::consts::PI).sqrt() * 1.25 + 1.0)
}

/// A town's radius, to its outer ring of strings.
fn town_radius(cells: usize, strings: usize) -> f64 {
    let inner = cells_radius(cells);
    string_rings(inner, strings)
        .last()
        .map_or(inner, |(r, _)| r + STRING_PITCH * 0.5)
}

/// A town's middle (longitude, latitude): inside the tile, and the farthest from the towns
/// already placed of a few tries.
fn place_town(rng: &mut Rng, radius: f64, towns: &[SyntheticTown]) -> [f64; 2] {
    let size = tile_size();
    let span = |side: f64| {
        let lo = radius.min(side * 0.5);
        (lo, (side - radius).max(side * 0.5))
    };
    let ((x0, x1), (y0, y1)) = (span(size[0]), span(size[1]));
    let mut best = (f64::MIN, [0.0, 0.0]);
    for _ in 0..64 {
        let p = [between(rng, x0, x1), between(rng, y0, y1)];
        let ll = tile_to_ll(p);
        let clear = towns
            .iter()
            .map(|t| distance_m(ll, t.center) - t.radius_m - radius)
            .fold(f64::MAX, f64::min);
        if clear > best.0 {
            best = (clear, ll);
        }
        if clear > 1_000.0 {
            break;
        }
    }
    best.1
}

/// Meters between two (longitude, latitude) points of the tile.
fn distance_m(a: [f64; 2], b: [f64; 2]) -> f64 {
    let s = tile_size();
    ((a[0] - b[0]) * s[0]).hypot((a[1] - b[1]) * s[1])
}

/// A countryside feature's place: anywhere in the tile (100 m from its edges), outside the
/// towns if a few tries find such a place.
fn countryside_spot(rng: &mut Rng, towns: &[SyntheticTown]) -> [f64; 2] {
    let size = tile_size();
    let mut ll = [0.0, 0.0];
    for _ in 0..16 {
        let p = [
            between(rng, 300.0, size[0] - 300.0),
            between(rng, 300.0, size[1] - 300.0),
        ];
        ll = tile_to_ll(p);
        if towns.iter().all(|t| distance_m(ll, t.center) > t.radius_m) {
            break;
        }
    }
    ll
}

/// Lays out one town: its cells from the middle out, then its rings of strings.
fn lay_town(
    out: &mut Writer,
    rng: &mut Rng,
    town: &SyntheticTown,
    strings: &mut impl Iterator<Item = Vec<Vec<[f32; 2]>>>,
) {
    let m = &town.mix;
    let frame = Frame::new(town.center, f64::from(rng.f32()) * TAU);
    let n = m.blocks + m.plazas + m.props;
    // The cells nearest the middle, each distance stretched by up to ±20 % so the edge is
    // ragged; a sort that keeps equal keys in grid order, so the result is fixed.
    let half = ((n as f64 * 1.5).sqrt() * 0.5).ceil() as i32 + 1;
    let mut cells: Vec<(f64, [i32; 2])> = Vec::with_capacity(((2 * half + 1) as usize).pow(2));
    for j in -half..=half {
        for i in -half..=half {
            let d = f64::from(i).hypot(f64::from(j)) * between(rng, 0.8, 1.2);
            cells.push((d, [i, j]));
        }
    }
    cells.sort_by(|a, b| a.0.total_cmp(&b.0));
    cells.truncate(n);
    let reach = cells.last().map_or(0.0, |c| c.0).max(1.0);
    let mut kinds = Vec::with_capacity(n);
    kinds.extend(std::iter::repeat_n(Kind::Block, m.blocks));
    kinds.extend(std::iter::repeat_n(Kind::Plaza, m.plazas));
    kinds.extend(std::iter::repeat_n(Kind::Props, m.props));
    shuffle(rng, &mut kinds);
    for ((d, [i, j]), kind) in cells.into_iter().zip(kinds) {
        let c = [f64::from(i) * CELL, f64::from(j) * CELL];
        match kind {
            Kind::Block => {
                // Shops in the inner third, then houses facing one street or two.
                let (size, param) = if d < reach / 3.0 {
                    let size = [within(rng, &SHOP_WIDTHS), within(rng, &SHOP_DEPTHS)];
                    (size, param(between(rng, 20.0, 40.0), 7))
                } else if rng.f32() < 0.5 {
                    let size = [within(rng, &HOUSE_WIDTHS), within(rng, &HOUSE_2_DEPTHS)];
                    (size, param(8.0, 2))
                } else {
                    let size = [within(rng, &HOUSE_WIDTHS), within(rng, &HOUSE_DEPTHS[1..])];
                    (size, param(8.0, 0))
                };
                out.block(&frame, c, size, param);
            }
            _ => out.point(&frame, kind, c),
        }
    }
    let inner = cells_radius(n);
    for (r, count) in string_rings(inner, m.strings) {
        let turn = f64::from(rng.f32());
        for q in 0..count {
            let a = (q as f64 + turn) / count as f64 * TAU;
            if let Some(s) = strings.next() {
                out.string(&frame, [r * a.cos(), r * a.sin()], &s);
            }
        }
    }
}

/// A local frame in meters at a place, turned counter-clockwise by `turn` radians: x along
/// its streets, y across.
struct Frame {
    origin: [f64; 2],
    /// Meters per degree of longitude and of latitude at the origin.
    scale: [f64; 2],
    sin_cos: (f64, f64),
    /// The heading of the frame's +y, degrees clockwise from north.
    heading: f64,
}

impl Frame {
    fn new(origin: [f64; 2], turn: f64) -> Self {
        Frame {
            origin,
            scale: [
                METERS_PER_DEGREE * origin[1].to_radians().cos(),
                METERS_PER_DEGREE,
            ],
            sin_cos: turn.sin_cos(),
            heading: (-turn.to_degrees()).rem_euclid(360.0),
        }
    }

    /// (longitude, latitude) of the frame's point `p`.
    fn ll(&self, p: [f64; 2]) -> [f64; 2] {
        let (s, c) = self.sin_cos;
        let (x, y) = (p[0] * c - p[1] * s, p[0] * s + p[1] * c);
        [
            self.origin[0] + x / self.scale[0],
            self.origin[1] + y / self.scale[1],
        ]
    }
}

/// The DSF text being written: objects and polygons apart, joined at the end in the order
/// DSFTool writes them (objects first).
struct Writer {
    head: String,
    objects: String,
    polygons: String,
}

impl Writer {
    fn new(assets: &Path) -> Self {
        let mut head = String::from(
            "I\n800\nDSF2TEXT\n\n# agview's synthetic tile (src/document/synthetic.rs)\n",
        );
        let _ = writeln!(
            head,
            "PROPERTY sim/planet earth\nPROPERTY sim/overlay 1\n\
             PROPERTY sim/west {}\nPROPERTY sim/east {}\n\
             PROPERTY sim/south {}\nPROPERTY sim/north {}",
            TILE_SW[0],
            TILE_SW[0] + 1.0,
            TILE_SW[1],
            TILE_SW[1] + 1.0
        );
        for (i, a) in ASSETS.iter().enumerate() {
            let keyword = if i < 2 { "OBJECT_DEF" } else { "POLYGON_DEF" };
            let _ = writeln!(head, "{keyword} {}", assets.join(a).display());
        }
        Writer {
            head,
            objects: String::new(),
            polygons: String::new(),
        }
    }

    fn point_line(s: &mut String, ll: [f64; 2]) {
        let _ = writeln!(s, "POLYGON_POINT {:.8} {:.8}", ll[0], ll[1]);
    }

    /// A block of `size` (width along the front, depth) centred on `c`, counter-clockwise
    /// from the front's left end.
    fn block(&mut self, f: &Frame, c: [f64; 2], [w, d]: [f64; 2], param: u32) {
        let s = &mut self.polygons;
        let _ = writeln!(s, "BEGIN_POLYGON 0 {param} 2\nBEGIN_WINDING");
        for (x, y) in [(-1.0, -1.0), (1.0, -1.0), (1.0, 1.0), (-1.0, 1.0)] {
            Self::point_line(s, f.ll([c[0] + x * w * 0.5, c[1] + y * d * 0.5]));
        }
        s.push_str("END_WINDING\nEND_POLYGON\n");
    }

    /// A string town round `c`: its outer contour spawns tiles (low byte 1), the lake does
    /// not; each winding closed explicitly.
    fn string(&mut self, f: &Frame, c: [f64; 2], rings: &[Vec<[f32; 2]>]) {
        let s = &mut self.polygons;
        let _ = writeln!(s, "BEGIN_POLYGON 1 {} 2", param(8.0, 1));
        for ring in rings {
            s.push_str("BEGIN_WINDING\n");
            for p in ring.iter().chain(ring.first()) {
                let q = [c[0] + f64::from(p[0]), c[1] + f64::from(p[1])];
                Self::point_line(s, f.ll(q));
            }
            s.push_str("END_WINDING\n");
        }
        s.push_str("END_POLYGON\n");
    }

    /// An autogen point in the cell at `c`: its anchor (the middle of its street edge) on the
    /// cell's front, its tile reaching into the cell along the frame's +y.
    fn point(&mut self, f: &Frame, kind: Kind, c: [f64; 2]) {
        let (def, half) = match kind {
            Kind::Plaza => (0, 24.0),
            _ => (1, 16.0),
        };
        let ll = f.ll([c[0], c[1] - half]);
        let _ = writeln!(
            self.objects,
            "OBJECT {def} {:.8} {:.8} {:.1}",
            ll[0], ll[1], f.heading
        );
    }

    fn finish(self) -> String {
        let mut s = self.head;
        s.reserve(self.objects.len() + self.polygons.len());
        s.push_str(&self.objects);
        s.push_str(&self.polygons);
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn assets() -> PathBuf {
        source_tree().join("sample_scenery")
    }

    /// Features in a DSF text by definition: `OBJECT` 0 and 1, `BEGIN_POLYGON` 0 and 1
    /// (in the order of [`ASSETS`]).
    fn count(text: &str) -> SyntheticMix {
        let mut m = SyntheticMix::default();
        for line in text.lines() {
            match line.split_whitespace().take(2).collect::<Vec<_>>()[..] {
                ["OBJECT", "0"] => m.plazas += 1,
                ["OBJECT", "1"] => m.props += 1,
                ["BEGIN_POLYGON", "0"] => m.blocks += 1,
                ["BEGIN_POLYGON", "1"] => m.strings += 1,
                _ => {}
            }
        }
        m
    }

    #[test]
    fn the_mix_adds_up_to_the_features() {
        for n in [0, 1, 2, 3, 7, 10, 299, 300, 100_000, 100_001] {
            let m = SyntheticMix::for_features(n);
            assert_eq!(m.total(), n, "{n}: {m:?}");
        }
        let m = SyntheticMix::for_features(100_000);
        assert_eq!(
            m,
            SyntheticMix {
                blocks: 60_000,
                strings: 15_000,
                plazas: 10_000,
                props: 15_000
            }
        );
    }

    #[test]
    fn the_tile_is_deterministic_and_places_the_mix() {
        let a = synthetic_tile(3_000, &assets());
        let b = synthetic_tile(3_000, &assets());
        assert_eq!(a.text, b.text);
        assert_eq!(a.mix, SyntheticMix::for_features(3_000));
        assert_eq!(count(&a.text), a.mix);
        assert_ne!(a.text, synthetic_tile(2_999, &assets()).text);
    }

    #[test]
    fn most_features_stand_in_towns_inside_the_tile() {
        let t = synthetic_tile(20_000, &assets());
        assert_eq!(t.towns.len(), 8);
        let in_towns: usize = t.towns.iter().map(|t| t.mix.total()).sum();
        assert!(
            (0.75..=0.8).contains(&(in_towns as f64 / 20_000.0)),
            "{in_towns}"
        );
        // The first town is the largest, about twice the second.
        let sizes: Vec<usize> = t.towns.iter().map(|t| t.mix.total()).collect();
        assert!(sizes.windows(2).all(|w| w[0] >= w[1]), "{sizes:?}");
        assert!(sizes[0] >= 2 * sizes[1] - 4, "{sizes:?}");
        for line in t.text.lines() {
            let mut w = line.split_whitespace();
            let (lon, lat) = match w.next() {
                Some("POLYGON_POINT") => (w.next(), w.next()),
                Some("OBJECT") => (w.nth(1), w.next()),
                _ => continue,
            };
            let lon: f64 = lon.and_then(|s| s.parse().ok()).expect("a longitude");
            let lat: f64 = lat.and_then(|s| s.parse().ok()).expect("a latitude");
            assert!(
                (8.0..9.0).contains(&lon) && (47.0..48.0).contains(&lat),
                "{line}"
            );
        }
    }

    #[test]
    fn a_small_tile_loads_with_tiles_objects_and_trees() {
        let tile = synthetic_tile(300, &assets());
        let doc = TempDocument::write("synthetic-test", &tile.text).expect("temp file");
        let opts = crate::document::LoadOptions {
            threads: 2,
            ..Default::default()
        };
        let d = crate::document::load_with(&doc.path, &crate::input::Inputs::default(), &opts)
            .unwrap_or_else(|e| panic!("{e}"));
        let errors: Vec<String> = d
            .loaded
            .diagnostics
            .iter()
            .filter(|d| d.is_error())
            .map(|d| d.to_string())
            .collect();
        assert!(errors.is_empty(), "{errors:#?}");
        // Every block has a size and a height its spellings fit.
        let misfits: Vec<String> = d
            .loaded
            .warning_lines()
            .into_iter()
            .filter(|w| w.contains("no spelling"))
            .collect();
        assert!(misfits.is_empty(), "{misfits:#?}");
        let scene = &d.loaded.scene;
        assert_eq!(scene.features.len(), 300);
        let s = &scene.stats;
        assert!(s.tiles > 300 && s.objects > 1_000 && s.trees > 300, "{s:?}");
        // Every kind laid something out.
        for a in ASSETS {
            assert!(
                scene
                    .features
                    .iter()
                    .any(|f| f.asset.ends_with(a) && f.stats.objects > 0),
                "{a}"
            );
        }
        let dir = doc.path.parent().map(Path::to_path_buf);
        drop(doc);
        assert!(dir.is_some_and(|d| !d.exists()));
    }
}
