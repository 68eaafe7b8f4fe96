//! Tiles: the scene's tile quads turned into draped pieces for `tile.wgsl`.
//!
//! Each quad (after merging AGB runs) is split into its two triangles, each triangle is cut
//! along the terrain grid's cells and their south-west → north-east diagonals (the very
//! triangles the terrain is drawn with) and then by the tile's crop polygon. Every piece
//! therefore lies inside one terrain triangle, and lifting its corners with `surface_at`
//! puts it exactly on the drawn ground. Pieces are emitted in drawing order — layer group,
//! then `order`, then file order — and drawn in one call with blending and without depth
//! writes, so later tiles cover earlier ones with no z-fighting; a tiny depth lift
//! (`Frame.params.w`) keeps them above the terrain they coincide with.

use std::collections::HashMap;

use bytemuck::{Pod, Zeroable};

use crate::scene::{Scene, Tile};

use super::atlas::{self, PackedRect};
use super::cells::{self, Cell};
use super::geom::{clip_into, convex_pieces, planes_of, HalfPlane, P};

/// One vertex of a draped piece drawn with `tile.wgsl`'s `vs_main` (an object's draped
/// part, a draped polygon or line, a road): world x, y, normalised texture s, t (t up), its
/// far distance, its show levels (or a road's lift) and the atlas rectangle its samples stay
/// in (36 bytes). Autogen tiles carry no show levels: theirs is [`AutogenVertex`].
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Pod, Zeroable)]
pub struct TileVertex {
    pub xy: [f32; 2],
    pub st: [f32; 2],
    /// The tile's `TILE_LOD` (meters): in a document each feature keeps its own.
    pub lod: f32,
    /// For an object's draped part: its show levels' code ([`super::objects::show_code`])
    /// and thinning number, tested against the frame's density in the shader; `[0, 0]`
    /// (tiles) always shows. For a road piece: [`super::roads::ROAD_LIFT`] and the lift
    /// above the ground in metres.
    pub show: [f32; 2],
    /// The tile's texture rectangle ([`atlas::pack`]): a merged run's is the union of its
    /// tiles', so the run draws without seams; [`atlas::NO_CLAMP`] for draped parts and
    /// rectangles that wrap.
    pub rect: PackedRect,
}

// Issue 15 counts GPU bytes: the rectangle grew a vertex from 28 bytes by 8, no more.
const _: () = assert!(std::mem::size_of::<TileVertex>() == 36);

/// One vertex of an autogen tile piece (`tile.wgsl`'s `vs_autogen`): a [`TileVertex`]
/// without the show levels, which are `[0, 0]` for every tile (28 bytes). The values it
/// keeps are the very ones a `TileVertex` held (f32 positions and texture coordinates, as
/// the pieces are cut along the terrain's triangles to the bit), so the image is the same.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Pod, Zeroable)]
pub struct AutogenVertex {
    pub xy: [f32; 2],
    pub st: [f32; 2],
    /// The tile's `TILE_LOD` (meters): in a document each feature keeps its own.
    pub lod: f32,
    /// The tile's texture rectangle, as [`TileVertex::rect`].
    pub rect: PackedRect,
}

// A whole tile's mesh is millions of these (issue 37 counts its bytes).
const _: () = assert!(std::mem::size_of::<AutogenVertex>() == 28);

/// A vertex the cutter ([`cut_triangle`]) makes: at a point, its texture coordinates and
/// what its piece carries; and what the glTF export reads of it.
pub trait PieceVertex: Pod {
    /// The vertex at `xy` with texture coordinates `st`, of a piece drawn out to `lod` (m)
    /// whose samples stay in `rect` ([`TileVertex::rect`]).
    fn at(xy: P, st: [f32; 2], lod: f32, rect: [u16; 4]) -> Self;
    fn xy(&self) -> P;
    fn st(&self) -> [f32; 2];
    /// A road piece's own height above the ground (m); 0 for every other piece.
    fn road_lift(&self) -> f32;
}

impl PieceVertex for TileVertex {
    fn at(xy: P, st: [f32; 2], lod: f32, rect: [u16; 4]) -> Self {
        TileVertex {
            xy,
            st,
            lod,
            show: [0.0, 0.0],
            rect,
        }
    }

    fn xy(&self) -> P {
        self.xy
    }

    fn st(&self) -> [f32; 2] {
        self.st
    }

    fn road_lift(&self) -> f32 {
        if self.show[0] < 0.0 {
            self.show[1]
        } else {
            0.0
        }
    }
}

impl PieceVertex for AutogenVertex {
    fn at(xy: P, st: [f32; 2], lod: f32, rect: [u16; 4]) -> Self {
        AutogenVertex { xy, st, lod, rect }
    }

    fn xy(&self) -> P {
        self.xy
    }

    fn st(&self) -> [f32; 2] {
        self.st
    }

    fn road_lift(&self) -> f32 {
        0.0
    }
}

/// The terrain grid's geometry (not its heights): what tiles are cut along.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Grid {
    pub origin: [f32; 2],
    pub cell: f32,
    /// Samples per side.
    pub n: i64,
}

impl Grid {
    pub fn of(t: &crate::terrain::Terrain) -> Self {
        Grid {
            origin: t.origin(),
            cell: t.cell_size(),
            n: i64::from(t.resolution.max(2)),
        }
    }
}

/// The tile pieces of a scene (the cutter's pieces, of draped parts too, in
/// `TileMesh<TileVertex>`).
#[derive(Debug)]
pub struct TileMesh<V = AutogenVertex> {
    pub vertices: Vec<V>,
    pub indices: Vec<u32>,
    /// Quads drawn once runs are merged.
    pub quads: usize,
    pub warnings: Vec<String>,
    /// Runs of `indices` whose tiles share a layer group and offset, in drawing order, with
    /// the group's place ([`crate::scene::LayerGroup::draw_key`]): draped object parts draw
    /// between them ([`super::draped::ground_order`]).
    pub segments: Vec<((u32, i32), std::ops::Range<u32>)>,
}

impl<V> Default for TileMesh<V> {
    fn default() -> Self {
        TileMesh {
            vertices: Vec::new(),
            indices: Vec::new(),
            quads: 0,
            warnings: Vec::new(),
            segments: Vec::new(),
        }
    }
}

/// A quad to draw: corners BL, BR, TR, TL and normalised `[s1, t1, s2, t2]`.
#[derive(Debug, Clone, PartialEq)]
struct Quad<'a> {
    corners: [P; 4],
    st: [f32; 4],
    crop: Option<&'a [P]>,
    order: u32,
    first: usize,
    /// `TILE_LOD` of the tile's feature (see [`Scene::tile_lod_of`]).
    lod: f32,
    /// The layer group's place (the tile's feature's in a document, else the scene's).
    key: (u32, i32),
}

/// The most terrain cells one tile triangle is cut along; beyond it (a tile kilometres
/// wide over a fine grid) the triangle is drawn uncut and may float over hollows.
const MAX_CELLS: i64 = 250_000;

/// The scene's tile pieces in one mesh: [`build_parts`] in one part.
pub fn build(scene: &Scene, grid: &Grid) -> TileMesh {
    let built = build_parts_of(scene, grid, 1, usize::MAX);
    let mut parts = built.parts.into_iter();
    let mut mesh = parts.next().unwrap_or_default();
    for p in parts {
        mesh.vertices.extend_from_slice(&p.vertices);
        mesh.indices.extend_from_slice(&p.indices);
    }
    mesh.quads = built.quads;
    mesh.warnings = built.warnings;
    mesh.segments = built.segments;
    mesh
}

/// The scene's tile pieces, cut in parts: runs of consecutive quads in drawing order, cut on
/// every core. One after the other, the parts are the very mesh [`build`] makes; each can
/// be handed to the GPU and freed before the next, so the whole mesh is never on the CPU
/// twice (a 1°×1° tile's is some 240 MB).
#[derive(Debug, Default)]
pub struct TileParts {
    /// Each part's vertices and indices (counting from the whole mesh's first vertex); its
    /// other fields are empty.
    pub parts: Vec<TileMesh>,
    /// Quads drawn once runs are merged.
    pub quads: usize,
    pub warnings: Vec<String>,
    /// As [`TileMesh::segments`], over the whole mesh's indices.
    pub segments: Vec<((u32, i32), std::ops::Range<u32>)>,
}

impl TileParts {
    /// Indices in all parts.
    pub fn index_count(&self) -> usize {
        self.parts.iter().map(|p| p.indices.len()).sum()
    }

    /// [`cells`] of the whole mesh's `indices` (a segment).
    pub fn cells(&self, indices: std::ops::Range<u32>) -> Vec<Cell> {
        let starts = |len: fn(&TileMesh) -> usize| {
            let mut at = 0u32;
            let mut v: Vec<u32> = self
                .parts
                .iter()
                .map(|p| {
                    let s = at;
                    at += len(p) as u32;
                    s
                })
                .collect();
            v.push(at);
            v
        };
        let (istart, vstart) = (starts(|p| p.indices.len()), starts(|p| p.vertices.len()));
        // The part holding the `k`th record of the whole mesh (`start`: each part's first),
        // looked for from the part of the last one (`last`): records are read in order.
        let last_index = std::cell::Cell::new(0usize);
        let last_vertex = std::cell::Cell::new(0usize);
        let find = |start: &[u32], last: &std::cell::Cell<usize>, k: u32| {
            let p = last.get();
            if start.get(p).is_some_and(|&s| s <= k) && start.get(p + 1).is_some_and(|&e| k < e) {
                return p;
            }
            let p = start.partition_point(|&s| s <= k).saturating_sub(1);
            last.set(p);
            p
        };
        cells_by(
            |k| {
                let p = find(&istart, &last_index, k);
                self.parts
                    .get(p)?
                    .indices
                    .get((k - istart[p]) as usize)
                    .copied()
            },
            |i| {
                let p = find(&vstart, &last_vertex, i);
                self.parts.get(p)?.vertices.get((i - vstart[p]) as usize)
            },
            indices,
        )
    }
}

/// Quads one part of [`build_parts`] holds at least (the last may hold fewer): a few MB of
/// pieces, so that the parts' staging copies stay small.
const PART_QUADS: usize = 16_384;

/// The scene's tile pieces in parts of about [`PART_QUADS`] quads, cut on `threads`
/// workers (at least one).
pub fn build_parts(scene: &Scene, grid: &Grid, threads: usize) -> TileParts {
    build_parts_of(scene, grid, threads, PART_QUADS)
}

/// [`build_parts`] in parts of `part_quads` quads.
fn build_parts_of(scene: &Scene, grid: &Grid, threads: usize, part_quads: usize) -> TileParts {
    let mut built = TileParts::default();
    let Some(tex) = &scene.tile_texture else {
        return built;
    };
    let (tw, th) = (sane_px(tex.width_px), sane_px(tex.height_px));
    let mut quads = merge_runs(scene, tw, th);
    quads.sort_by_key(|q| (q.key, q.order, q.first));
    built.quads = quads.len();
    let chunks: Vec<&[Quad]> = quads.chunks(part_quads.max(1)).collect();
    let next = std::sync::atomic::AtomicUsize::new(0);
    let work = || {
        let mut done = Vec::new();
        loop {
            let k = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            let Some(chunk) = chunks.get(k) else {
                return done;
            };
            done.push((k, build_part(grid, chunk, true)));
        }
    };
    let threads = threads.clamp(1, chunks.len().max(1));
    let mut parts: Vec<(usize, TileMesh)> = if threads == 1 {
        work()
    } else {
        std::thread::scope(|s| {
            let workers: Vec<_> = (0..threads).map(|_| s.spawn(work)).collect();
            workers
                .into_iter()
                .flat_map(|w| w.join().unwrap_or_else(|e| std::panic::resume_unwind(e)))
                .collect()
        })
    };
    parts.sort_by_key(|(k, _)| *k);
    // Each part's pieces after the parts before: their indices and segments move along.
    let (mut vertices, mut indices) = (0u32, 0u32);
    for (_, mut p) in parts {
        for i in &mut p.indices {
            *i += vertices;
        }
        for w in p.warnings.drain(..) {
            if !built.warnings.contains(&w) {
                built.warnings.push(w);
            }
        }
        for (key, r) in p.segments.drain(..) {
            let r = r.start + indices..r.end + indices;
            match built.segments.last_mut() {
                Some((k, last)) if *k == key => last.end = r.end,
                _ => built.segments.push((key, r)),
            }
        }
        vertices += p.vertices.len() as u32;
        indices += p.indices.len() as u32;
        built.parts.push(p);
    }
    built.segments.retain(|(_, r)| !r.is_empty());
    built
}

/// The pieces of `quads`, their indices counting from the part's first vertex; its
/// segments are not yet rid of empty ones. With `share`, a quad's vertices that are the
/// same to the bit are one ([`Cutter::share_from`]).
fn build_part(grid: &Grid, quads: &[Quad], share: bool) -> TileMesh {
    let mut mesh = TileMesh::default();
    // About what a whole tile's quads make (some 5 vertices and 8 indices a quad), so
    // that the part's vectors seldom grow and copy themselves.
    mesh.vertices.reserve(quads.len() * 5);
    mesh.indices.reserve(quads.len() * 9);
    let mut cutter = Cutter::default();
    // A crop polygon's planes, by the polygon's address: every tile of a cropped block
    // shares one allocation (`Tile::crop`). A map, not a list: a document has a crop per
    // block, and a search of a list of them for every quad grew as blocks × tiles.
    let mut crop_cache: HashMap<*const P, Vec<Vec<HalfPlane>>> = HashMap::new();
    for q in quads {
        // A crop polygon with no area crops nothing away (the spec asks for at least
        // three points; fewer is treated as no crop).
        let crop_planes = q
            .crop
            .map(|c| {
                crop_cache
                    .entry(c.as_ptr())
                    .or_insert_with(|| convex_pieces(c).iter().map(|p| planes_of(p)).collect())
                    .as_slice()
            })
            .filter(|p| !p.is_empty());
        let start = mesh.indices.len() as u32;
        // The quad's two triangles share their diagonal's corners.
        cutter.share_from = share.then_some(mesh.vertices.len());
        let [bl, br, tr, tl] = q.corners;
        let [s1, t1, s2, t2] = q.st;
        // One rectangle per quad: a merged run's st is already the union of its tiles'.
        let rect = atlas::pack(q.st);
        let tris = [
            ([bl, br, tr], [[s1, t1], [s2, t1], [s2, t2]]),
            ([bl, tr, tl], [[s1, t1], [s2, t2], [s1, t2]]),
        ];
        for (pts, sts) in tris {
            let piece = Piece { lod: q.lod, rect };
            if let Some(w) = cutter.cut(grid, (pts, sts, piece), crop_planes, &mut mesh) {
                if !mesh.warnings.contains(&w) {
                    mesh.warnings.push(w);
                }
            }
        }
        let end = mesh.indices.len() as u32;
        match mesh.segments.last_mut() {
            Some((k, r)) if *k == q.key => r.end = end,
            _ => mesh.segments.push((q.key, start..end)),
        }
    }
    mesh
}

/// The cells of the pieces `indices` of `mesh` (a segment): [`cells::of_triangles`], each
/// with the box its pieces fill and its farthest `TILE_LOD`, where tiles have faded out.
pub fn cells(mesh: &TileMesh, indices: std::ops::Range<u32>) -> Vec<Cell> {
    let end = indices.end.min(mesh.indices.len() as u32);
    cells_by(
        |k| mesh.indices.get(k as usize).copied(),
        |i| mesh.vertices.get(i as usize),
        indices.start..end,
    )
}

/// [`cells`] of a mesh whose `k`th index is `index(k)` and `i`th vertex `vertex(i)`.
fn cells_by<'a>(
    index: impl Fn(u32) -> Option<u32>,
    vertex: impl Fn(u32) -> Option<&'a AutogenVertex>,
    indices: std::ops::Range<u32>,
) -> Vec<Cell> {
    cells::of_triangles_by(index, indices, 0.0, |cell, i| {
        if let Some(v) = vertex(i) {
            cell.cover(v.xy, 0.0, 0.0);
            cell.far = cell.far.max(v.lod);
        }
    })
}

/// The layer group's place of a tile: its feature's group in a document, else the scene's.
fn tile_key(scene: &Scene, t: &Tile) -> (u32, i32) {
    t.feature
        .and_then(|f| scene.features.get(f as usize))
        .map_or(&scene.layer_group, |f| &f.layer_group)
        .draw_key()
}

fn sane_px(v: f32) -> f32 {
    if v.is_finite() && v > 0.0 {
        v
    } else {
        1.0
    }
}

fn tile_quad<'a>(scene: &Scene, t: &'a Tile, index: usize, tw: f32, th: f32) -> Quad<'a> {
    Quad {
        lod: scene.tile_lod_of(t),
        corners: t.corners,
        st: [t.uv[0] / tw, t.uv[1] / th, t.uv[2] / tw, t.uv[3] / th],
        crop: t.crop.as_deref(),
        order: t.order,
        first: index,
        key: tile_key(scene, t),
    }
}

/// The tiles as quads, each valid run of adjacent AGB tiles (same crop, same rows of the
/// texture, sharing edges on the ground and in the texture) merged into one quad.
fn merge_runs(scene: &Scene, tw: f32, th: f32) -> Vec<Quad<'_>> {
    let n = scene.tiles.len();
    let mut merged_into = vec![false; n];
    let mut quads = Vec::with_capacity(n);
    for run in &scene.runs {
        let Some(end) = run.first.checked_add(run.len) else {
            continue;
        };
        if run.len < 2 || end > n {
            continue;
        }
        let tiles = &scene.tiles[run.first..end];
        if (run.first..end).any(|i| merged_into[i]) || !run_is_seamless(tiles) {
            continue;
        }
        let (a, b) = (&tiles[0], &tiles[tiles.len() - 1]);
        quads.push(Quad {
            corners: [a.corners[0], b.corners[1], b.corners[2], a.corners[3]],
            st: [a.uv[0] / tw, a.uv[1] / th, b.uv[2] / tw, a.uv[3] / th],
            crop: a.crop.as_deref(),
            lod: scene.tile_lod_of(a),
            order: tiles.iter().map(|t| t.order).min().unwrap_or(0),
            first: run.first,
            key: tile_key(scene, a),
        });
        merged_into[run.first..end]
            .iter_mut()
            .for_each(|m| *m = true);
    }
    for (i, t) in scene.tiles.iter().enumerate() {
        if !merged_into[i] {
            quads.push(tile_quad(scene, t, i, tw, th));
        }
    }
    quads
}

fn run_is_seamless(tiles: &[Tile]) -> bool {
    let close = |a: f32, b: f32| (a - b).abs() <= 1e-3 * (1.0 + a.abs().max(b.abs()));
    let close_p = |a: P, b: P| close(a[0], b[0]) && close(a[1], b[1]);
    tiles.windows(2).all(|w| {
        let (a, b) = (&w[0], &w[1]);
        a.crop == b.crop
            && close(a.uv[2], b.uv[0])
            && close(a.uv[1], b.uv[1])
            && close(a.uv[3], b.uv[3])
            && close_p(a.corners[1], b.corners[0])
            && close_p(a.corners[2], b.corners[3])
    })
}

/// What every piece of one cut triangle carries besides its texture coordinates.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Piece {
    /// `TILE_LOD` of a tile, the far distance of a draped part (m).
    pub lod: f32,
    /// The atlas rectangle ([`TileVertex::rect`]).
    pub rect: PackedRect,
}

/// Cuts one tile triangle along the terrain triangles and the crop pieces, appending the
/// pieces to `mesh`. Returns a warning when the triangle was too large to cut.
pub(crate) fn cut_triangle<V: PieceVertex>(
    grid: &Grid,
    pts: [P; 3],
    sts: [[f32; 2]; 3],
    piece: Piece,
    crop: Option<&[Vec<HalfPlane>]>,
    mesh: &mut TileMesh<V>,
) -> Option<String> {
    Cutter::default().cut(grid, (pts, sts, piece), crop, mesh)
}

/// How many of the last vertices a new one is looked for among ([`Cutter::share_from`]):
/// enough for a quad's two triangles over one terrain cell, whose diagonal's corners both
/// triangles have, and few enough that a tile over many cells stays linear.
const SHARE_WINDOW: usize = 32;

/// The cutter's scratch polygons, kept from triangle to triangle so that cutting allocates
/// nothing once they have grown (a whole tile cuts some two million triangles).
#[derive(Debug, Default)]
pub(crate) struct Cutter {
    cell: Vec<P>,
    piece: Vec<P>,
    crop: Vec<P>,
    tmp: Vec<P>,
    /// When set, a vertex bit for bit the same as one of the last [`SHARE_WINDOW`] from
    /// this one on is not added again: its pieces index the one there. Tiles share a
    /// quad's (the two triangles' common corners); the draped callers, which change their
    /// vertices after the cut, share none.
    pub share_from: Option<usize>,
}

/// The affine map from a triangle's points to its texture coordinates.
#[derive(Debug, Clone, Copy)]
struct StMap {
    origin: P,
    e1: P,
    e2: P,
    det: f32,
    sts: [[f32; 2]; 3],
}

impl StMap {
    fn at(&self, p: P) -> [f32; 2] {
        let (e1, e2, det, sts) = (self.e1, self.e2, self.det, &self.sts);
        let d = sub(p, self.origin);
        let l1 = (d[0] * e2[1] - d[1] * e2[0]) / det;
        let l2 = (e1[0] * d[1] - e1[1] * d[0]) / det;
        [
            sts[0][0] + l1 * (sts[1][0] - sts[0][0]) + l2 * (sts[2][0] - sts[0][0]),
            sts[0][1] + l1 * (sts[1][1] - sts[0][1]) + l2 * (sts[2][1] - sts[0][1]),
        ]
    }
}

/// What one triangle's pieces are emitted with: its texture map, what its vertices carry
/// and from which vertex on they are shared.
#[derive(Debug, Clone, Copy)]
struct Emit {
    map: StMap,
    piece: Piece,
    share_from: Option<usize>,
}

impl Emit {
    /// Appends a convex piece, as a fan from its first point.
    fn piece<V: PieceVertex>(&self, poly: &[P], mesh: &mut TileMesh<V>) {
        let vertex = |p: P| V::at(p, self.map.at(p), self.piece.lod, self.piece.rect);
        let Some(from) = self.share_from else {
            let base = mesh.vertices.len() as u32;
            mesh.vertices.extend(poly.iter().map(|&p| vertex(p)));
            for k in 1..(poly.len() as u32).saturating_sub(1) {
                mesh.indices
                    .extend_from_slice(&[base, base + k, base + k + 1]);
            }
            return;
        };
        let id = |mesh: &mut TileMesh<V>, p: P| shared(mesh, vertex(p), from);
        let ids: [u32; 2] = match poly {
            [a, b, ..] => [id(mesh, *a), id(mesh, *b)],
            _ => {
                for &p in poly {
                    id(mesh, p);
                }
                return;
            }
        };
        let (first, mut prev) = (ids[0], ids[1]);
        for &p in &poly[2..] {
            let k = id(mesh, p);
            mesh.indices.extend_from_slice(&[first, prev, k]);
            prev = k;
        }
    }

    /// Appends `poly`, or its parts inside the crop's pieces (`out` and `tmp` are
    /// scratch).
    fn cropped<V: PieceVertex>(
        &self,
        poly: &[P],
        crop: Option<&[Vec<HalfPlane>]>,
        (out, tmp): (&mut Vec<P>, &mut Vec<P>),
        mesh: &mut TileMesh<V>,
    ) {
        match crop {
            None => self.piece(poly, mesh),
            Some(crop) => {
                for planes in crop {
                    clip_into(poly, planes, out, tmp);
                    if !out.is_empty() {
                        self.piece(out, mesh);
                    }
                }
            }
        }
    }
}

/// The index of a vertex bit for bit `v` among the last [`SHARE_WINDOW`] of `mesh` from
/// `from` on, or of `v` added.
fn shared<V: PieceVertex>(mesh: &mut TileMesh<V>, v: V, from: usize) -> u32 {
    let n = mesh.vertices.len();
    let lo = from.max(n.saturating_sub(SHARE_WINDOW)).min(n);
    let bytes = bytemuck::bytes_of(&v);
    match mesh.vertices[lo..]
        .iter()
        .position(|w| bytemuck::bytes_of(w) == bytes)
    {
        Some(k) => (lo + k) as u32,
        None => {
            mesh.vertices.push(v);
            n as u32
        }
    }
}

impl Cutter {
    /// [`cut_triangle`] with this cutter's scratch polygons: the triangle's points, their
    /// texture coordinates and what its pieces carry.
    pub(crate) fn cut<V: PieceVertex>(
        &mut self,
        grid: &Grid,
        (pts, sts, piece): ([P; 3], [[f32; 2]; 3], Piece),
        crop: Option<&[Vec<HalfPlane>]>,
        mesh: &mut TileMesh<V>,
    ) -> Option<String> {
        if pts.iter().any(|p| !(p[0].is_finite() && p[1].is_finite())) {
            return None;
        }
        // Affine map from the triangle's points to its texture coordinates.
        let (e1, e2) = (sub(pts[1], pts[0]), sub(pts[2], pts[0]));
        let det = e1[0] * e2[1] - e1[1] * e2[0];
        if det.abs() < 1e-9 {
            return None;
        }
        let emit = Emit {
            map: StMap {
                origin: pts[0],
                e1,
                e2,
                det,
                sts,
            },
            piece,
            share_from: self.share_from,
        };
        let ccw: [P; 3] = if det > 0.0 {
            pts
        } else {
            [pts[0], pts[2], pts[1]]
        };
        let Cutter {
            cell: in_cell,
            piece: cut,
            crop: out,
            tmp,
            ..
        } = self;

        // Cells the triangle's bounds touch, clamped to one virtual cell beyond each edge
        // of the grid (outside the grid the surface is the edge's, linear along it).
        let lo = [
            pts.iter().map(|p| p[0]).fold(f32::INFINITY, f32::min),
            pts.iter().map(|p| p[1]).fold(f32::INFINITY, f32::min),
        ];
        let hi = [
            pts.iter().map(|p| p[0]).fold(f32::NEG_INFINITY, f32::max),
            pts.iter().map(|p| p[1]).fold(f32::NEG_INFINITY, f32::max),
        ];
        let cells = grid.n - 1;
        let cell_of = |v: f32, o: f32| -> i64 {
            let c = ((v - o) / grid.cell).floor();
            (c.clamp(-1.0, cells as f32)) as i64
        };
        let (i0, i1) = (
            cell_of(lo[0], grid.origin[0]),
            cell_of(hi[0], grid.origin[0]),
        );
        let (j0, j1) = (
            cell_of(lo[1], grid.origin[1]),
            cell_of(hi[1], grid.origin[1]),
        );
        if (i1 - i0 + 1) * (j1 - j0 + 1) > MAX_CELLS {
            emit.cropped(&ccw, crop, (out, tmp), mesh);
            return Some(format!(
                "a tile spans more than {MAX_CELLS} terrain cells: drawn uncut, it may not follow the ground"
            ));
        }
        let far = 1e9f32;
        let line = |o: f32, k: i64| -> f32 {
            if k < 0 {
                -far
            } else if k > cells {
                far
            } else {
                o + k as f32 * grid.cell
            }
        };
        for j in j0..=j1 {
            let (y0, y1) = (line(grid.origin[1], j), line(grid.origin[1], j + 1));
            for i in i0..=i1 {
                let (x0, x1) = (line(grid.origin[0], i), line(grid.origin[0], i + 1));
                let rect = [
                    HalfPlane::left_of([x0, y0], [x1, y0]),
                    HalfPlane::left_of([x1, y0], [x1, y1]),
                    HalfPlane::left_of([x1, y1], [x0, y1]),
                    HalfPlane::left_of([x0, y1], [x0, y0]),
                ];
                clip_into(&ccw, &rect, in_cell, tmp);
                if in_cell.is_empty() {
                    continue;
                }
                let inner = (0..cells).contains(&i) && (0..cells).contains(&j);
                if inner {
                    // Split along the diagonal (x0, y0) → (x1, y1): below-right, above-left.
                    let below = HalfPlane::left_of([x1, y1], [x0, y0]);
                    let above = HalfPlane::left_of([x0, y0], [x1, y1]);
                    for h in [below, above] {
                        clip_into(in_cell, &[h], cut, tmp);
                        if !cut.is_empty() {
                            emit.cropped(cut, crop, (out, tmp), mesh);
                        }
                    }
                } else {
                    emit.cropped(in_cell, crop, (out, tmp), mesh);
                }
            }
        }
        None
    }
}

fn sub(a: P, b: P) -> P {
    [a[0] - b[0], a[1] - b[1]]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scene::{TileRun, TileTexture};
    use crate::terrain::Terrain;

    fn scene_with(tiles: Vec<Tile>) -> Scene {
        Scene {
            tile_texture: Some(TileTexture {
                path: "t.png".into(),
                width_px: 1024.0,
                height_px: 512.0,
                lit: None,
            }),
            tiles,
            ..Scene::default()
        }
    }

    fn tile(x0: f32, y0: f32, w: f32, h: f32, uv: [f32; 4]) -> Tile {
        Tile {
            corners: [[x0, y0], [x0 + w, y0], [x0 + w, y0 + h], [x0, y0 + h]],
            uv,
            ..Tile::default()
        }
    }

    fn area(mesh: &TileMesh) -> f32 {
        mesh.indices
            .chunks(3)
            .map(|t| {
                let [a, b, c] = [t[0], t[1], t[2]].map(|i| mesh.vertices[i as usize].xy);
                ((b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0])).abs() * 0.5
            })
            .sum()
    }

    #[test]
    fn pieces_cover_the_tile_and_stay_in_terrain_triangles() {
        let terrain = Terrain::hills(100.0, 10.0, 1);
        let grid = Grid::of(&terrain);
        let scene = scene_with(vec![tile(
            -7.3,
            -4.1,
            20.0,
            13.0,
            [0.0, 0.0, 1024.0, 512.0],
        )]);
        let mesh = build(&scene, &grid);
        assert_eq!(mesh.quads, 1);
        assert!((area(&mesh) - 260.0).abs() < 0.05, "{}", area(&mesh));
        // Each piece's centroid and its corners lie in one terrain triangle: the drawn
        // surface is linear over the piece, so the GPU's per-vertex heights match it.
        for t in mesh.indices.chunks(3) {
            let v = [t[0], t[1], t[2]].map(|i| mesh.vertices[i as usize].xy);
            let c = [
                (v[0][0] + v[1][0] + v[2][0]) / 3.0,
                (v[0][1] + v[1][1] + v[2][1]) / 3.0,
            ];
            let (plane_h, det) = plane_through(&terrain, v);
            assert!(det.abs() > 1e-7, "zero-area piece {v:?}");
            let d = (terrain.surface_at(c[0], c[1]) - plane_h(c)).abs();
            assert!(d < 1e-3, "{v:?}: off by {d}");
        }
        // Texture coordinates: the south-west corner is (0, 0), the north-east (1, 1).
        let sw = mesh.vertices.iter().find(|v| v.xy == [-7.3, -4.1]).unwrap();
        assert_eq!(sw.st, [0.0, 0.0]);
    }

    /// The plane through a triangle's three draped corners.
    fn plane_through(t: &Terrain, v: [P; 3]) -> (impl Fn(P) -> f32, f32) {
        let h = v.map(|p| t.surface_at(p[0], p[1]));
        let (e1, e2) = (sub(v[1], v[0]), sub(v[2], v[0]));
        let det = e1[0] * e2[1] - e1[1] * e2[0];
        let f = move |p: P| {
            let d = sub(p, v[0]);
            let l1 = (d[0] * e2[1] - d[1] * e2[0]) / det;
            let l2 = (e1[0] * d[1] - e1[1] * d[0]) / det;
            h[0] + l1 * (h[1] - h[0]) + l2 * (h[2] - h[0])
        };
        (f, det)
    }

    #[test]
    fn uv_is_normalised_by_the_declared_size() {
        let grid = Grid::of(&Terrain::flat(1000.0));
        let scene = scene_with(vec![tile(
            0.0,
            0.0,
            10.0,
            10.0,
            [256.0, 128.0, 512.0, 256.0],
        )]);
        let mesh = build(&scene, &grid);
        let ne = mesh.vertices.iter().find(|v| v.xy == [10.0, 10.0]).unwrap();
        assert_eq!(ne.st, [0.5, 0.5]);
        let sw = mesh.vertices.iter().find(|v| v.xy == [0.0, 0.0]).unwrap();
        assert_eq!(sw.st, [0.25, 0.25]);
    }

    #[test]
    fn crop_keeps_only_the_inside() {
        let grid = Grid::of(&Terrain::flat(1000.0));
        let mut t = tile(0.0, 0.0, 10.0, 10.0, [0.0, 0.0, 1024.0, 512.0]);
        // Clockwise triangle over the lower-left half.
        t.crop = Some(vec![[0.0, 0.0], [0.0, 10.0], [10.0, 0.0]].into());
        let mesh = build(&scene_with(vec![t.clone()]), &grid);
        assert!((area(&mesh) - 50.0).abs() < 1e-3);
        // A concave crop (an L) keeps 3/4.
        t.crop = Some(
            vec![
                [0.0, 0.0],
                [10.0, 0.0],
                [10.0, 5.0],
                [5.0, 5.0],
                [5.0, 10.0],
                [0.0, 10.0],
            ]
            .into(),
        );
        let mesh = build(&scene_with(vec![t.clone()]), &grid);
        assert!((area(&mesh) - 75.0).abs() < 1e-3);
        // A crop of two points is ignored.
        t.crop = Some(vec![[0.0, 0.0], [1.0, 1.0]].into());
        let mesh = build(&scene_with(vec![t]), &grid);
        assert!((area(&mesh) - 100.0).abs() < 1e-3);
    }

    #[test]
    fn cells_end_where_the_next_pieces_are_far_away() {
        // Two small tiles drawn one after the other, 5 km apart: two cells, each on its own
        // ground, where one cell of both would span the 5 km between them.
        let grid = Grid::of(&Terrain::flat(20_000.0));
        let scene = scene_with(vec![
            tile(0.0, 0.0, 10.0, 10.0, [0.0, 0.0, 100.0, 100.0]),
            tile(5000.0, 0.0, 10.0, 10.0, [0.0, 0.0, 100.0, 100.0]),
        ]);
        let mesh = build(&scene, &grid);
        let cells = cells(&mesh, 0..mesh.indices.len() as u32);
        assert_eq!(cells.len(), 2);
        assert_eq!(cells[0].first + cells[0].count, cells[1].first);
        assert_eq!(cells[1].first + cells[1].count, mesh.indices.len() as u32);
        for c in &cells {
            assert!(c.hi[0] - c.lo[0] <= 10.0 + 1e-3, "{c:?}");
        }
    }

    #[test]
    fn tiles_are_ordered_and_runs_merge() {
        let grid = Grid::of(&Terrain::flat(1000.0));
        let mut a = tile(0.0, 0.0, 10.0, 10.0, [0.0, 0.0, 100.0, 100.0]);
        let mut b = tile(10.0, 0.0, 10.0, 10.0, [100.0, 0.0, 200.0, 100.0]);
        let c = tile(20.0, 0.0, 10.0, 10.0, [200.0, 0.0, 300.0, 100.0]);
        a.order = 5;
        b.order = 1;
        let mut scene = scene_with(vec![a.clone(), b.clone(), c.clone()]);
        let mesh = build(&scene, &grid);
        assert_eq!(mesh.quads, 3);
        // b (order 1) comes first.
        assert!(mesh.vertices[0].xy[0] >= 10.0);
        scene.runs = vec![TileRun { first: 0, len: 3 }];
        let mesh = build(&scene, &grid);
        assert_eq!(mesh.quads, 1);
        assert!((area(&mesh) - 300.0).abs() < 1e-3);
        // A run whose texture columns are not adjacent stays three quads; a run past the
        // end is ignored.
        scene.tiles[1].uv = [500.0, 0.0, 600.0, 100.0];
        scene.runs = vec![TileRun { first: 0, len: 3 }, TileRun { first: 2, len: 9 }];
        assert_eq!(build(&scene, &grid).quads, 3);
    }

    /// Each piece carries its tile's atlas rectangle; a merged run's pieces all carry the
    /// union of its tiles' (one rectangle, so the clamp draws no seam inside the run); a
    /// rectangle past the texture's edge wraps and is not clamped.
    #[test]
    fn pieces_carry_their_tiles_rectangle_and_a_run_the_union() {
        let grid = Grid::of(&Terrain::flat(1000.0));
        // 1024 × 512 px: three 64 px columns of one row, then a tile elsewhere.
        let a = tile(0.0, 0.0, 10.0, 10.0, [64.0, 128.0, 128.0, 256.0]);
        let b = tile(10.0, 0.0, 10.0, 10.0, [128.0, 128.0, 192.0, 256.0]);
        let c = tile(20.0, 0.0, 10.0, 10.0, [192.0, 128.0, 256.0, 256.0]);
        let d = tile(40.0, 0.0, 10.0, 10.0, [512.0, 0.0, 576.0, 64.0]);
        let mut scene = scene_with(vec![a, b, c, d]);
        let rect_of = |uv: [f32; 4]| {
            atlas::pack([uv[0] / 1024.0, uv[1] / 512.0, uv[2] / 1024.0, uv[3] / 512.0])
        };
        // The rectangles of the pieces over each tile's ground (by their centroids).
        let rects_by_tile = |mesh: &TileMesh| -> Vec<Vec<PackedRect>> {
            let mut by_tile = vec![Vec::new(); 4];
            for t in mesh.indices.chunks(3) {
                let v = [t[0], t[1], t[2]].map(|i| mesh.vertices[i as usize]);
                let x = (v[0].xy[0] + v[1].xy[0] + v[2].xy[0]) / 3.0;
                let k = [0.0, 10.0, 20.0, 40.0]
                    .iter()
                    .position(|x0| (*x0..*x0 + 10.0).contains(&x))
                    .unwrap();
                for p in v {
                    if !by_tile[k].contains(&p.rect) {
                        by_tile[k].push(p.rect);
                    }
                }
            }
            by_tile
        };
        // Unmerged: each tile its own rectangle.
        let mesh = build(&scene, &grid);
        let got = rects_by_tile(&mesh);
        for (k, t) in scene.tiles.iter().enumerate() {
            assert_eq!(got[k], vec![rect_of(t.uv)], "tile {k}");
        }
        // Merged: the run's three tiles share the union, 64..256 px across.
        scene.runs = vec![TileRun { first: 0, len: 3 }];
        let mesh = build(&scene, &grid);
        assert_eq!(mesh.quads, 2);
        let union = rect_of([64.0, 128.0, 256.0, 256.0]);
        let got = rects_by_tile(&mesh);
        for (k, rects) in got[..3].iter().enumerate() {
            assert_eq!(rects, &vec![union], "tile {k}");
        }
        assert_eq!(got[3], vec![rect_of([512.0, 0.0, 576.0, 64.0])]);
        // A tile reaching past the texture's right edge repeats: not clamped.
        scene.tiles[3].uv = [960.0, 0.0, 1088.0, 64.0];
        let mesh = build(&scene, &grid);
        assert_eq!(rects_by_tile(&mesh)[3], vec![atlas::NO_CLAMP]);
    }

    #[test]
    fn tiles_outside_the_grid_and_degenerate_tiles_do_not_panic() {
        let grid = Grid::of(&Terrain::hills(50.0, 3.0, 2));
        let mut bad = tile(0.0, 0.0, 0.0, 0.0, [0.0; 4]);
        bad.corners[2] = [f32::NAN, 1.0];
        let scene = scene_with(vec![tile(40.0, 40.0, 30.0, 30.0, [0.0; 4]), bad]);
        let mesh = build(&scene, &grid);
        assert!((area(&mesh) - 900.0).abs() < 0.01);
        let huge = scene_with(vec![tile(-1e6, -1e6, 2e6, 2e6, [0.0; 4])]);
        let mesh = build(&huge, &Grid::of(&Terrain::hills(100_000.0, 3.0, 2)));
        assert!(!mesh.indices.is_empty());
    }

    /// Every vertex carries its tile's `TILE_LOD`: in a document, its feature's.
    #[test]
    fn vertices_carry_their_features_tile_lod() {
        let terrain = Terrain::hills(100.0, 10.0, 1);
        let grid = Grid::of(&terrain);
        let mut a = tile(0.0, 0.0, 5.0, 5.0, [0.0, 0.0, 512.0, 512.0]);
        a.feature = Some(0);
        let mut b = tile(20.0, 0.0, 5.0, 5.0, [0.0, 0.0, 512.0, 512.0]);
        b.feature = Some(1);
        let mut scene = scene_with(vec![a, b]);
        scene.tile_lod = 9000.0;
        for lod in [300.0, 9000.0] {
            scene.features.push(crate::scene::FeatureInfo {
                tile_lod: lod,
                ..crate::scene::FeatureInfo::new(
                    String::new(),
                    String::new(),
                    crate::scene::FeatureKind::Agb,
                    0,
                )
            });
        }
        let mesh = build(&scene, &grid);
        assert!(!mesh.vertices.is_empty());
        for v in &mesh.vertices {
            let want = if v.xy[0] < 10.0 { 300.0 } else { 9000.0 };
            assert_eq!(v.lod, want, "{v:?}");
        }
    }

    /// A document's tiles form one index segment per layer group and offset, in drawing
    /// order, each named by its group's place: draped object parts draw between them.
    #[test]
    fn segments_follow_the_features_layer_groups() {
        let grid = Grid::of(&Terrain::flat(200.0));
        let group = |name: &str, offset: i32| crate::scene::LayerGroup {
            name: name.into(),
            offset,
        };
        // Feature 0 in roads, 1 and 2 in footprints (offsets 0 and 1); combine numbers
        // `order` by group, which build follows.
        let groups = [
            group("roads", 0),
            group("footprints", 0),
            group("footprints", 1),
        ];
        let mut tiles = Vec::new();
        for (k, order) in [(0u32, 9u32), (1, 1), (1, 2), (2, 5)] {
            let mut t = tile(k as f32 * 20.0, 0.0, 10.0, 10.0, [0.0, 0.0, 512.0, 512.0]);
            t.feature = Some(k);
            t.order = order;
            tiles.push(t);
        }
        let mut scene = scene_with(tiles);
        for g in &groups {
            scene.features.push(crate::scene::FeatureInfo {
                layer_group: g.clone(),
                ..crate::scene::FeatureInfo::new(
                    String::new(),
                    String::new(),
                    crate::scene::FeatureKind::Agp,
                    0,
                )
            });
        }
        let mesh = build(&scene, &grid);
        let keys: Vec<(u32, i32)> = mesh.segments.iter().map(|(k, _)| *k).collect();
        assert_eq!(
            keys,
            vec![
                groups[1].draw_key(),
                groups[2].draw_key(),
                groups[0].draw_key()
            ]
        );
        // The segments cover every index once, in order.
        let mut next = 0;
        for (_, r) in &mesh.segments {
            assert_eq!(r.start, next);
            next = r.end;
        }
        assert_eq!(next as usize, mesh.indices.len());
    }

    /// Forty tiles in various orders on hills, a third of them cropped.
    fn hills_and_crops() -> (Grid, Scene) {
        let terrain = Terrain::hills(100.0, 10.0, 1);
        let crop: std::sync::Arc<[P]> = vec![[0.0, 0.0], [30.0, 0.0], [0.0, 30.0]].into();
        let tiles = (0..40)
            .map(|k| {
                let (x, y) = ((k % 8) as f32 * 9.0 - 30.0, (k / 8) as f32 * 11.0 - 20.0);
                Tile {
                    order: (k * 7 % 5) as u32,
                    crop: (k % 3 == 0).then(|| crop.clone()),
                    ..tile(x, y, 8.5, 10.0, [0.0, 0.0, 256.0, 128.0])
                }
            })
            .collect();
        (Grid::of(&terrain), scene_with(tiles))
    }

    #[test]
    fn parts_are_the_whole_mesh_cut_in_runs() {
        let (grid, scene) = hills_and_crops();
        let whole = build(&scene, &grid);
        let built = build_parts_of(&scene, &grid, 3, 3);
        assert!(built.parts.len() > 3);
        assert_eq!(built.quads, whole.quads);
        assert_eq!(built.warnings, whole.warnings);
        assert_eq!(built.segments, whole.segments);
        assert_eq!(built.index_count(), whole.indices.len());
        let vertices: Vec<AutogenVertex> = built
            .parts
            .iter()
            .flat_map(|p| p.vertices.clone())
            .collect();
        let indices: Vec<u32> = built.parts.iter().flat_map(|p| p.indices.clone()).collect();
        assert_eq!(vertices, whole.vertices);
        assert_eq!(indices, whole.indices);
        for (_, r) in &whole.segments {
            assert_eq!(built.cells(r.clone()), cells(&whole, r.clone()));
        }
    }

    /// A quad's pieces share the vertices that are the same to the bit: the pieces drawn,
    /// vertex by vertex, are those of a mesh that shares none, from fewer vertices.
    #[test]
    fn shared_vertices_draw_the_same_pieces() {
        let (grid, scene) = hills_and_crops();
        let mut quads = merge_runs(&scene, 1024.0, 512.0);
        quads.sort_by_key(|q| (q.key, q.order, q.first));
        let (shared, each) = (
            build_part(&grid, &quads, true),
            build_part(&grid, &quads, false),
        );
        assert!(shared.vertices.len() < each.vertices.len() * 3 / 4);
        assert_eq!(shared.segments, each.segments);
        let drawn = |m: &TileMesh| -> Vec<u8> {
            m.indices
                .iter()
                .flat_map(|&i| bytemuck::bytes_of(&m.vertices[i as usize]).to_vec())
                .collect()
        };
        assert_eq!(drawn(&shared), drawn(&each));
    }
}
