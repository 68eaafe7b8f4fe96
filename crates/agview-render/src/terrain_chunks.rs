//! [`TerrainChunks`]: the terrain grid drawn in square chunks, each at a level of detail
//! chosen per frame (geomipmapping), with the view frustum culling whole chunks.
//!
//! The height field is split into square chunks of [`MAX_CHUNK_CELLS`] cells a side (fewer
//! for a smaller grid). A chunk at level `L` is drawn with a vertex every `2^L` cells.
//! Nothing per chunk is stored on the GPU: every chunk at a level shares that level's index
//! pattern, which counts vertices on a lattice of [`LATTICE`] × [`LATTICE`] grid points
//! (`lattice index = j × LATTICE + i`, whatever the level); the vertex shader
//! (`terrain.wgsl`) adds the chunk's origin, an instance attribute, and clamps to the grid's
//! last sample. A chunk past the grid's edge (when `resolution - 1` is not a multiple of the
//! chunk size) so folds its outer triangles onto the edge: they have no area and read no
//! sample outside the texture.
//!
//! Per frame, on the CPU ([`ChunkGrid::select`]), in time proportional to the chunk count:
//!
//! 1. Each chunk's level comes from its distance to the LOD eye: full resolution within
//!    [`FULL_DETAIL_CELLS`] cells, then one level coarser each time the distance doubles
//!    (a level-`L` cell then always subtends about the same angle: a screen-space rule).
//! 2. Levels are lowered until neighbours differ by at most one (a two-pass distance
//!    transform), never raised: what is near stays at full resolution.
//! 3. Chunks whose box (their samples' lowest and highest height, times the exaggeration)
//!    lies outside the view frustum are dropped.
//! 4. The rest are bucketed by (level, finer-neighbour mask); each bucket is one instanced
//!    draw over a slice of the per-frame buffer of chunk origins. At most
//!    `levels × 16` draws, whatever the grid's size.
//!
//! Cracks: where two neighbours differ by one level, the *coarser* chunk's edge takes every
//! vertex of the finer one's (each coarse triangle on that edge is split at the edge's
//! midpoint). The finer chunk is left as it is, so level 0 is the full grid with every cell
//! split along its south-west → north-east diagonal everywhere it is drawn, border cells
//! included: it is exactly `Terrain::surface_at`, the surface tiles and draped parts lie on.
//! (Classic geomipmapping drops the finer edge's odd vertices instead, which would bend the
//! full-resolution ring's outer cells away from that surface.)

use std::ops::Range;

use glam::{Mat4, Vec3, Vec4};
use wgpu::util::DeviceExt;

use crate::terrain::Terrain;

/// Cells a side of a full-size chunk; the coarsest level draws one cell per chunk.
pub(crate) const MAX_CHUNK_CELLS: u32 = 64;
/// Grid points per row of the index patterns' lattice: `CHUNK_LATTICE` in `terrain.wgsl`.
pub(crate) const LATTICE: u32 = MAX_CHUNK_CELLS + 1;
/// Distance from the LOD eye, in grid cells, within which chunks are drawn at full
/// resolution. Level `L ≥ 1` is used from `FULL_DETAIL_CELLS × 2^(L-1)` cells: a drawn
/// triangle's edge then subtends at most about 1/128 rad (some 10 pixels of a 1080-line
/// image).
pub(crate) const FULL_DETAIL_CELLS: f32 = 256.0;

/// Vertices of the skirt around the height field, out to the horizon (`vs_skirt` in
/// `terrain.wgsl`: four sides of `SKIRT_SEGMENTS` = 64 quads, two triangles each).
pub(crate) const SKIRT_VERTICES: u32 = 4 * 64 * 6;

/// Finer-neighbour mask bits: the chunk to the west, east, south or north is one level
/// finer, and this chunk's edge toward it takes its vertices.
pub(crate) const WEST: u8 = 1;
pub(crate) const EAST: u8 = 2;
pub(crate) const SOUTH: u8 = 4;
pub(crate) const NORTH: u8 = 8;

/// The per-instance record: the grid sample `(i, j)` at a chunk's south-west corner.
pub(crate) type ChunkOrigin = [u32; 2];

/// One instanced draw: an index pattern over a run of chunk origins.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct TerrainDraw {
    /// The pattern's range in the shared index buffer.
    pub indices: Range<u32>,
    /// The chunks' range in the frame's origin list.
    pub instances: Range<u32>,
}

impl TerrainDraw {
    pub fn triangles(&self) -> u64 {
        u64::from(self.indices.len() as u32 / 3) * u64::from(self.instances.len() as u32)
    }
}

/// The frame's chunks: origins grouped by draw.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct Selection {
    pub origins: Vec<ChunkOrigin>,
    pub draws: Vec<TerrainDraw>,
}

/// The CPU side of the chunking: the chunk layout, each chunk's height range, the shared
/// index patterns and the per-frame selection. No GPU: unit-testable.
#[derive(Debug, Clone)]
pub(crate) struct ChunkGrid {
    /// Samples per side of the height field.
    resolution: u32,
    /// South-west corner of the grid and cell size (m).
    origin: [f32; 2],
    cell: f32,
    /// Cells a side of a chunk (a power of two, at most [`MAX_CHUNK_CELLS`]).
    chunk_cells: u32,
    /// The coarsest level: a chunk as one cell.
    max_level: u32,
    /// Chunks per side.
    chunks: u32,
    /// Per chunk (row-major, south row first): lowest and highest raw height of its samples.
    heights: Vec<[f32; 2]>,
    /// All index patterns, one after the other.
    pub indices: Vec<u16>,
    /// Per (level × 16 + mask): its pattern's range in `indices`.
    patterns: Vec<Range<u32>>,
    /// Per-frame scratch: each chunk's level and whether it is in view.
    levels: Vec<u32>,
    visible: Vec<bool>,
}

impl ChunkGrid {
    /// Lays out the chunks of a valid terrain and builds every index pattern.
    pub fn new(terrain: &Terrain) -> Self {
        let n = terrain.resolution.max(2);
        let cells = n - 1;
        let chunk_cells = cells.next_power_of_two().min(MAX_CHUNK_CELLS);
        let max_level = chunk_cells.trailing_zeros();
        let chunks = cells.div_ceil(chunk_cells);

        let heights = chunk_heights(terrain, chunk_cells, chunks);

        let mut indices = Vec::new();
        let mut patterns: Vec<Range<u32>> = Vec::with_capacity(((max_level + 1) * 16) as usize);
        for level in 0..=max_level {
            for mask in 0..16u8 {
                // Level 0 never has a finer neighbour: one pattern for every mask.
                if level == 0 && mask > 0 {
                    patterns.push(patterns[0].clone());
                    continue;
                }
                let start = indices.len() as u32;
                pattern(chunk_cells, level, mask, &mut indices);
                patterns.push(start..indices.len() as u32);
            }
        }

        ChunkGrid {
            resolution: n,
            origin: terrain.origin(),
            cell: terrain.cell_size(),
            chunk_cells,
            max_level,
            chunks,
            heights,
            indices,
            patterns,
            levels: vec![0; (chunks * chunks) as usize],
            visible: vec![false; (chunks * chunks) as usize],
        }
    }

    /// Takes the height ranges of new heights on the same grid (`SceneGpu::set_terrain`).
    pub(crate) fn set_heights(&mut self, terrain: &Terrain) {
        if terrain.resolution.max(2) == self.resolution {
            self.heights = chunk_heights(terrain, self.chunk_cells, self.chunks);
        }
    }

    /// Chunks in the grid.
    pub(crate) fn chunk_count(&self) -> usize {
        self.heights.len()
    }

    /// Cells a side of a chunk.
    #[cfg(test)]
    pub(crate) fn chunk_cells(&self) -> u32 {
        self.chunk_cells
    }

    /// The index range of the pattern for `level` and finer-neighbour `mask`.
    #[cfg(test)]
    pub fn pattern(&self, level: u32, mask: u8) -> Range<u32> {
        self.patterns[(level * 16 + u32::from(mask & 15)) as usize].clone()
    }

    /// Chunk `(ci, cj)`'s box in the world at `exaggeration`.
    pub fn bounds(&self, ci: u32, cj: u32, exaggeration: f32) -> (Vec3, Vec3) {
        let last = (self.resolution - 1) as f32;
        let c = self.chunk_cells as f32;
        let i0 = ci as f32 * c;
        let j0 = cj as f32 * c;
        let i1 = (i0 + c).min(last);
        let j1 = (j0 + c).min(last);
        let [lo, hi] = self.heights[(cj * self.chunks + ci) as usize];
        let (a, b) = (lo * exaggeration, hi * exaggeration);
        (
            Vec3::new(
                self.origin[0] + i0 * self.cell,
                self.origin[1] + j0 * self.cell,
                a.min(b),
            ),
            Vec3::new(
                self.origin[0] + i1 * self.cell,
                self.origin[1] + j1 * self.cell,
                a.max(b),
            ),
        )
    }

    /// The level a chunk at `distance` meters from the LOD eye asks for.
    fn level_at(&self, distance: f32) -> u32 {
        let r = distance / (FULL_DETAIL_CELLS * self.cell);
        if r >= 1.0 {
            // NaN falls to level 0 above; infinity saturates.
            (r.log2().floor() + 1.0).min(self.max_level as f32) as u32
        } else {
            0
        }
    }

    /// The frame's chunks and draws for a camera with `view_proj` (reversed depth) and LOD
    /// `eye`, with heights times `exaggeration`. Also leaves each chunk's level in
    /// `self.levels` (for the tests).
    pub fn select(&mut self, view_proj: Mat4, eye: Vec3, exaggeration: f32) -> Selection {
        let ex = if exaggeration.is_finite() {
            exaggeration
        } else {
            1.0
        };
        let frustum = Frustum::new(view_proj);
        let nc = self.chunks;
        for cj in 0..nc {
            for ci in 0..nc {
                let (lo, hi) = self.bounds(ci, cj, ex);
                let k = (cj * nc + ci) as usize;
                let d = (lo - eye).max(eye - hi).max(Vec3::ZERO).length();
                self.levels[k] = self.level_at(d);
                self.visible[k] = frustum.touches_box(lo, hi);
            }
        }
        limit_level_steps(&mut self.levels, nc);

        // Bucket the visible chunks by (level, mask): counts, then offsets, then fill.
        let keys = self.patterns.len();
        let mut counts = vec![0u32; keys];
        let mut key_of = Vec::new();
        for cj in 0..nc {
            for ci in 0..nc {
                let k = (cj * nc + ci) as usize;
                if !self.visible[k] {
                    continue;
                }
                let level = self.levels[k];
                let mask = self.finer_mask(ci, cj, level);
                let key = (level * 16 + u32::from(mask)) as usize;
                counts[key] += 1;
                key_of.push((key, [ci * self.chunk_cells, cj * self.chunk_cells]));
            }
        }
        let mut starts = vec![0u32; keys];
        let mut draws = Vec::new();
        let mut next = 0;
        for key in 0..keys {
            starts[key] = next;
            if counts[key] > 0 {
                draws.push(TerrainDraw {
                    indices: self.patterns[key].clone(),
                    instances: next..next + counts[key],
                });
            }
            next += counts[key];
        }
        let mut origins = vec![[0u32; 2]; key_of.len()];
        for (key, origin) in key_of {
            origins[starts[key] as usize] = origin;
            starts[key] += 1;
        }
        Selection { origins, draws }
    }

    /// Which of chunk `(ci, cj)`'s neighbours are one level finer than `level`.
    fn finer_mask(&self, ci: u32, cj: u32, level: u32) -> u8 {
        let nc = self.chunks;
        let finer = |i: u32, j: u32| self.levels[(j * nc + i) as usize] < level;
        let mut mask = 0;
        if ci > 0 && finer(ci - 1, cj) {
            mask |= WEST;
        }
        if ci + 1 < nc && finer(ci + 1, cj) {
            mask |= EAST;
        }
        if cj > 0 && finer(ci, cj - 1) {
            mask |= SOUTH;
        }
        if cj + 1 < nc && finer(ci, cj + 1) {
            mask |= NORTH;
        }
        mask
    }
}

/// Each chunk's lowest and highest raw height over its samples, the ones on its borders
/// included (row-major, south row first). An inconsistent grid counts as flat.
fn chunk_heights(terrain: &Terrain, chunk_cells: u32, chunks: u32) -> Vec<[f32; 2]> {
    let n = terrain.resolution.max(2);
    let mut heights = vec![[f32::INFINITY, f32::NEG_INFINITY]; (chunks * chunks) as usize];
    let valid = terrain.heights.len() == n as usize * n as usize;
    let zeros = vec![0.0; n as usize];
    for j in 0..n {
        let row = if valid {
            &terrain.heights[(j * n) as usize..((j + 1) * n) as usize]
        } else {
            &zeros[..]
        };
        for ci in 0..chunks {
            let first = ci * chunk_cells;
            let last = (first + chunk_cells).min(n - 1);
            // `f32::min` and `max` pass over NaN.
            let (lo, hi) = row[first as usize..=last as usize]
                .iter()
                .fold((f32::INFINITY, f32::NEG_INFINITY), |(lo, hi), &h| {
                    (lo.min(h), hi.max(h))
                });
            for cj in chunk_span(j, chunk_cells, chunks) {
                let r = &mut heights[(cj * chunks + ci) as usize];
                r[0] = r[0].min(lo);
                r[1] = r[1].max(hi);
            }
        }
    }
    heights
}

/// The chunks (along one axis) that sample `k` belongs to: its own and, on a border, the
/// one before.
fn chunk_span(k: u32, chunk_cells: u32, chunks: u32) -> Range<u32> {
    let own = (k / chunk_cells).min(chunks - 1);
    let first = if k.is_multiple_of(chunk_cells) && k > 0 {
        k / chunk_cells - 1
    } else {
        own
    };
    first..own + 1
}

/// Lowers levels until 4-neighbours differ by at most one: each becomes the least of its
/// own and every other chunk's level plus their distance in chunk steps (the city-block
/// distance transform, exact in a forward and a backward sweep).
fn limit_level_steps(levels: &mut [u32], side: u32) {
    let side = side as usize;
    for j in 0..side {
        for i in 0..side {
            let mut l = levels[j * side + i];
            if i > 0 {
                l = l.min(levels[j * side + i - 1] + 1);
            }
            if j > 0 {
                l = l.min(levels[(j - 1) * side + i] + 1);
            }
            levels[j * side + i] = l;
        }
    }
    for j in (0..side).rev() {
        for i in (0..side).rev() {
            let mut l = levels[j * side + i];
            if i + 1 < side {
                l = l.min(levels[j * side + i + 1] + 1);
            }
            if j + 1 < side {
                l = l.min(levels[(j + 1) * side + i] + 1);
            }
            levels[j * side + i] = l;
        }
    }
}

/// Appends the triangles of a `cells`-wide chunk at `level` whose edges on the `mask` sides
/// take the vertices of a neighbour one level finer. Counter-clockwise seen from above;
/// each `2^L` cell split along its south-west → north-east diagonal.
fn pattern(cells: u32, level: u32, mask: u8, out: &mut Vec<u16>) {
    let s = 1u32 << level;
    for j in (0..cells).step_by(s as usize) {
        for i in (0..cells).step_by(s as usize) {
            let (a, b, c, d) = ([i, j], [i + s, j], [i + s, j + s], [i, j + s]);
            for tri in [[a, b, c], [a, c, d]] {
                emit(tri, cells, s, mask, out);
            }
        }
    }
}

/// Emits a triangle, first splitting (at its midpoint, toward the opposite corner) any edge
/// of full step `s` that lies on a chunk side marked in `mask`.
fn emit(tri: [[u32; 2]; 3], cells: u32, s: u32, mask: u8, out: &mut Vec<u16>) {
    for e in 0..3 {
        let (p, q) = (tri[e], tri[(e + 1) % 3]);
        let on_side = |bit: u8, axis: usize, at: u32| {
            mask & bit != 0
                && p[axis] == at
                && q[axis] == at
                && p[1 - axis].abs_diff(q[1 - axis]) == s
        };
        if s > 1
            && (on_side(WEST, 0, 0)
                || on_side(EAST, 0, cells)
                || on_side(SOUTH, 1, 0)
                || on_side(NORTH, 1, cells))
        {
            let m = [(p[0] + q[0]) / 2, (p[1] + q[1]) / 2];
            let r = tri[(e + 2) % 3];
            emit([p, m, r], cells, s, mask, out);
            emit([m, q, r], cells, s, mask, out);
            return;
        }
    }
    out.extend(tri.iter().map(|v| (v[1] * LATTICE + v[0]) as u16));
}

/// The view frustum's left, right, bottom, top and near planes (`ax + by + cz + d ≥ 0`
/// inside) from a view-projection matrix with depth in 0..1. The far plane is left out:
/// the perspective cameras' is at infinity.
struct Frustum {
    planes: [Vec4; 5],
}

impl Frustum {
    fn new(m: Mat4) -> Self {
        let (r0, r1, r2, r3) = (m.row(0), m.row(1), m.row(2), m.row(3));
        // Reversed depth: clip z ≤ w is the near side.
        Frustum {
            planes: [r3 + r0, r3 - r0, r3 + r1, r3 - r1, r3 - r2],
        }
    }

    /// Whether any of the box `lo..hi` may be inside (conservative: a box crossing two
    /// planes' outsides near a corner is kept).
    fn touches_box(&self, lo: Vec3, hi: Vec3) -> bool {
        self.planes.iter().all(|p| {
            let far_corner = Vec3::new(
                if p.x >= 0.0 { hi.x } else { lo.x },
                if p.y >= 0.0 { hi.y } else { lo.y },
                if p.z >= 0.0 { hi.z } else { lo.z },
            );
            // A NaN plane (degenerate camera) keeps everything.
            let d = p.truncate().dot(far_corner) + p.w;
            d >= 0.0 || d.is_nan()
        })
    }
}

/// The chunked terrain on the GPU: the shared index patterns and the per-frame buffer of
/// chunk origins, with the frame's draws.
pub(crate) struct TerrainChunks {
    grid: ChunkGrid,
    /// Every pattern, `u16` lattice indices.
    pub indices: wgpu::Buffer,
    /// Chunk origins ([`ChunkOrigin`]), rewritten each frame; room for every chunk.
    pub instances: wgpu::Buffer,
    /// The draws of the frame last prepared.
    draws: Vec<TerrainDraw>,
}

impl TerrainChunks {
    /// Lays out the chunks of `terrain` (valid) and uploads the patterns.
    pub fn new(device: &wgpu::Device, terrain: &Terrain) -> Self {
        let grid = ChunkGrid::new(terrain);
        let mut idx = grid.indices.clone();
        // Buffer sizes must be multiples of 4 bytes.
        if !idx.len().is_multiple_of(2) {
            idx.push(0);
        }
        let indices = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("terrain index patterns"),
            contents: bytemuck::cast_slice(&idx),
            usage: wgpu::BufferUsages::INDEX,
        });
        let instances = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("terrain chunk origins"),
            size: (grid.chunk_count() * std::mem::size_of::<ChunkOrigin>()) as u64,
            usage: wgpu::BufferUsages::VERTEX | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        TerrainChunks {
            grid,
            indices,
            instances,
            draws: Vec::new(),
        }
    }

    /// New heights on the same grid: the chunks' boxes follow (the patterns stay).
    pub(crate) fn set_heights(&mut self, terrain: &Terrain) {
        self.grid.set_heights(terrain);
    }

    /// GPU bytes of the two buffers.
    pub fn buffer_bytes(&self) -> u64 {
        self.indices.size() + self.instances.size()
    }

    /// Chooses the frame's chunks ([`ChunkGrid::select`]) and writes their origins.
    pub fn prepare(&mut self, queue: &wgpu::Queue, view_proj: Mat4, eye: Vec3, exaggeration: f32) {
        let sel = self.grid.select(view_proj, eye, exaggeration);
        if !sel.origins.is_empty() {
            queue.write_buffer(&self.instances, 0, bytemuck::cast_slice(&sel.origins));
        }
        self.draws = sel.draws;
    }

    /// The draws of the frame last prepared.
    pub fn draws(&self) -> &[TerrainDraw] {
        &self.draws
    }

    /// The byte range of a draw's origins in [`TerrainChunks::instances`].
    pub(crate) fn instance_bytes(draw: &TerrainDraw) -> Range<u64> {
        let size = std::mem::size_of::<ChunkOrigin>() as u64;
        u64::from(draw.instances.start) * size..u64::from(draw.instances.end) * size
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeSet;

    fn terrain(resolution: u32, cell: f32) -> Terrain {
        let n = resolution as usize;
        let mut heights = Vec::with_capacity(n * n);
        for j in 0..n {
            for i in 0..n {
                heights.push(((i as f32) * 0.05).sin() * 20.0 + ((j as f32) * 0.03).cos() * 10.0);
            }
        }
        Terrain {
            size_m: cell * (resolution - 1) as f32,
            resolution,
            heights,
            exaggeration: 1.0,
            center: [0.0, 0.0],
        }
    }

    /// The lattice points a pattern's triangles use.
    fn points(g: &ChunkGrid, level: u32, mask: u8) -> Vec<[u32; 3]> {
        let r = g.pattern(level, mask);
        g.indices[r.start as usize..r.end as usize]
            .chunks(3)
            .map(|t| {
                let p = |k: u16| [u32::from(k) % LATTICE, u32::from(k) / LATTICE];
                let (a, b, c) = (p(t[0]), p(t[1]), p(t[2]));
                [a[0] | a[1] << 8, b[0] | b[1] << 8, c[0] | c[1] << 8]
            })
            .collect()
    }

    fn xy(k: u32) -> [i64; 2] {
        [i64::from(k & 0xff), i64::from(k >> 8)]
    }

    /// Twice the signed area of a triangle of lattice points.
    fn area2(t: [u32; 3]) -> i64 {
        let (a, b, c) = (xy(t[0]), xy(t[1]), xy(t[2]));
        (b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0])
    }

    /// The vertices one side of a pattern uses: its triangles' vertices on that side.
    fn side_vertices(g: &ChunkGrid, level: u32, mask: u8, side: u8) -> BTreeSet<u32> {
        let c = g.chunk_cells();
        let on = |p: [i64; 2]| match side {
            WEST => p[0] == 0,
            EAST => p[0] == i64::from(c),
            SOUTH => p[1] == 0,
            _ => p[1] == i64::from(c),
        };
        let along = |p: [i64; 2]| {
            if side == WEST || side == EAST {
                p[1]
            } else {
                p[0]
            }
        };
        points(g, level, mask)
            .into_iter()
            .flatten()
            .map(xy)
            .filter(|&p| on(p))
            .map(|p| along(p) as u32)
            .collect()
    }

    #[test]
    fn every_pattern_tiles_the_chunk_counter_clockwise() {
        let g = ChunkGrid::new(&terrain(129, 10.0));
        assert_eq!(g.chunk_cells(), 64);
        let full = 2 * 64 * 64;
        for level in 0..=6 {
            for mask in 0..16 {
                let tris = points(&g, level, mask);
                assert!(tris.iter().all(|&t| area2(t) > 0), "{level} {mask}");
                let total: i64 = tris.iter().map(|&t| area2(t)).sum();
                assert_eq!(total, full, "level {level} mask {mask} covers the chunk");
            }
        }
    }

    #[test]
    fn level_0_is_every_cell_split_south_west_to_north_east() {
        let g = ChunkGrid::new(&terrain(65, 10.0));
        let tris = points(&g, 0, 0);
        assert_eq!(tris.len(), 2 * 64 * 64);
        for t in tris {
            let p = t.map(xy);
            // Each triangle has the cell's SW and NE corners.
            let (i, j) = (
                p.iter().map(|v| v[0]).min().unwrap(),
                p.iter().map(|v| v[1]).min().unwrap(),
            );
            assert!(p.contains(&[i, j]) && p.contains(&[i + 1, j + 1]), "{p:?}");
        }
    }

    /// Where a chunk meets a neighbour one level finer, both draw the same vertices on the
    /// shared edge (the finer one all of its own): no T-junction, no crack. Equal levels
    /// share their vertices too.
    #[test]
    fn shared_edges_use_the_same_vertices() {
        let g = ChunkGrid::new(&terrain(129, 10.0));
        let opposite = |s: u8| match s {
            WEST => EAST,
            EAST => WEST,
            SOUTH => NORTH,
            _ => SOUTH,
        };
        for level in 1..=6u32 {
            for mask in 0..16u8 {
                for side in [WEST, EAST, SOUTH, NORTH] {
                    let coarse = side_vertices(&g, level, mask, side);
                    if mask & side != 0 {
                        // The finer neighbour: any mask of its own but not toward us.
                        for fm in 0..16u8 {
                            let fine =
                                side_vertices(&g, level - 1, fm & !opposite(side), opposite(side));
                            assert_eq!(coarse, fine, "level {level} mask {mask} side {side}");
                        }
                    } else {
                        let same = side_vertices(&g, level, 0, opposite(side));
                        assert_eq!(coarse, same);
                    }
                }
            }
        }
    }

    #[test]
    fn neighbours_differ_by_at_most_one_level() {
        let mut seed = 12345u64;
        for side in [1u32, 2, 5, 17] {
            for _ in 0..50 {
                let mut levels: Vec<u32> = (0..side * side)
                    .map(|_| {
                        seed = seed
                            .wrapping_mul(6364136223846793005)
                            .wrapping_add(1442695040888963407);
                        ((seed >> 33) % 7) as u32
                    })
                    .collect();
                let before = levels.clone();
                limit_level_steps(&mut levels, side);
                let s = side as usize;
                for j in 0..s {
                    for i in 0..s {
                        let l = levels[j * s + i];
                        assert!(l <= before[j * s + i], "only ever refined");
                        if i + 1 < s {
                            assert!(l.abs_diff(levels[j * s + i + 1]) <= 1);
                        }
                        if j + 1 < s {
                            assert!(l.abs_diff(levels[(j + 1) * s + i]) <= 1);
                        }
                    }
                }
            }
        }
    }

    /// A camera on a large grid: the chunks around it at level 0, the levels stepping by
    /// one, and the chunk behind the camera not drawn.
    #[test]
    fn selection_is_full_detail_near_and_culls_behind() {
        let t = terrain(4097, 2.0);
        let mut g = ChunkGrid::new(&t);
        assert_eq!(g.chunk_count(), 64 * 64);
        let eye = Vec3::new(0.0, 0.0, 60.0);
        let cam = crate::Camera::free(eye.x, eye.y, eye.z, 0.0, 10.0);
        let sel = g.select(cam.view_proj(16.0 / 9.0), cam.lod_eye(), 1.0);
        // The chunk under the eye and the ones around it: full resolution.
        let under = (32 * 64 + 32) as usize;
        assert_eq!(g.levels[under], 0);
        assert_eq!(g.levels[under - 64], 0);
        let nc = 64usize;
        for j in 0..nc {
            for i in 0..nc {
                let l = g.levels[j * nc + i];
                if i + 1 < nc {
                    assert!(l.abs_diff(g.levels[j * nc + i + 1]) <= 1);
                }
                if j + 1 < nc {
                    assert!(l.abs_diff(g.levels[(j + 1) * nc + i]) <= 1);
                }
            }
        }
        assert!(g.levels.iter().any(|&l| l >= 4), "far chunks are coarse");
        // Looking north: a chunk well south of the eye is culled, one ahead is drawn.
        let drawn: BTreeSet<[u32; 2]> = sel.origins.iter().copied().collect();
        assert!(!drawn.contains(&[32 * 64, 20 * 64]));
        assert!(drawn.contains(&[32 * 64, 40 * 64]));
        assert!(sel.origins.len() < g.chunk_count() / 2);
        // Each drawn chunk once; every draw's chunks sit in its own slice.
        assert_eq!(drawn.len(), sel.origins.len());
        let total: u32 = sel.draws.iter().map(|d| d.instances.len() as u32).sum();
        assert_eq!(total as usize, sel.origins.len());
    }

    #[test]
    fn frustum_drops_a_box_behind_the_camera() {
        for cam in [
            crate::Camera::free(0.0, 0.0, 10.0, 0.0, 0.0),
            crate::Camera::orbit([0.0, 0.0, 0.0], 100.0, 0.0, 30.0),
        ] {
            let f = Frustum::new(cam.view_proj(1.5));
            let eye = cam.eye();
            let fwd = cam.forward();
            let ahead = eye + fwd * 50.0;
            let behind = eye - fwd * 50.0;
            let r = Vec3::splat(5.0);
            assert!(f.touches_box(ahead - r, ahead + r));
            assert!(!f.touches_box(behind - r, behind + r));
            // Far to the side.
            let side = ahead + fwd.cross(Vec3::Z).normalize() * 500.0;
            assert!(!f.touches_box(side - r, side + r));
        }
        // The top view (orthographic): inside the square seen, not beside it.
        let top = crate::Camera::top([0.0, 0.0], 100.0);
        let f = Frustum::new(top.view_proj(1.0));
        assert!(f.touches_box(Vec3::new(50.0, 50.0, 0.0), Vec3::new(60.0, 60.0, 5.0)));
        assert!(!f.touches_box(Vec3::new(150.0, 0.0, 0.0), Vec3::new(160.0, 10.0, 5.0)));
    }

    /// Draws are bounded by the pattern count whatever the grid, and each (level, mask)
    /// appears once.
    #[test]
    fn draw_count_is_bounded() {
        for (n, cams) in [(129u32, 3), (1025, 3), (4097, 3)] {
            let t = terrain(n, 1.0);
            let mut g = ChunkGrid::new(&t);
            for k in 0..cams {
                let cam = crate::Camera::orbit([0.0, 0.0, 0.0], 50.0 * 8f32.powi(k), 30.0, 20.0);
                let sel = g.select(cam.view_proj(1.5), cam.lod_eye(), 1.0);
                assert!(sel.draws.len() <= 7 * 16, "{n}: {} draws", sel.draws.len());
                // Level 0's masks share one pattern, and level 0 only ever has mask 0.
                let patterns: BTreeSet<u32> = sel.draws.iter().map(|d| d.indices.start).collect();
                assert_eq!(patterns.len(), sel.draws.len());
            }
        }
        // Top view over all of a 4097² grid: everything in view, few triangles.
        let t = terrain(4097, 1.0);
        let mut g = ChunkGrid::new(&t);
        let cam = crate::Camera::top([0.0, 0.0], 2100.0);
        let sel = g.select(cam.view_proj(1.0), cam.lod_eye(), 1.0);
        assert_eq!(sel.origins.len(), g.chunk_count());
        let tris: u64 = sel.draws.iter().map(TerrainDraw::triangles).sum();
        assert!(tris < 500_000, "{tris} triangles");
    }

    /// New heights on the same grid (`SceneGpu::set_terrain`) move the chunks' boxes.
    #[test]
    fn boxes_follow_new_heights() {
        let t = terrain(129, 4.0);
        let mut g = ChunkGrid::new(&t);
        let mut raised = t.clone();
        for h in &mut raised.heights {
            *h += 500.0;
        }
        g.set_heights(&raised);
        let (lo, hi) = g.bounds(1, 0, 2.0);
        assert!(lo.z >= 2.0 * (500.0 - 30.0) && hi.z <= 2.0 * (500.0 + 30.0));
        assert_eq!(g.heights, ChunkGrid::new(&raised).heights);
    }

    /// A grid whose cells are not a multiple of the chunk size: the last chunks reach past
    /// the edge (the shader clamps), their boxes stop at it.
    #[test]
    fn partial_chunks_stop_at_the_grid_edge() {
        let t = terrain(100, 3.0);
        let g = ChunkGrid::new(&t);
        assert_eq!(g.chunk_cells(), 64);
        assert_eq!(g.chunk_count(), 4);
        let (lo, hi) = g.bounds(1, 1, 1.0);
        let o = t.origin();
        assert!((hi.x - (o[0] + 99.0 * 3.0)).abs() < 1e-3);
        assert!((lo.x - (o[0] + 64.0 * 3.0)).abs() < 1e-3);
        // Heights: the box holds every sample of the chunk, border samples included.
        for j in 64..100usize {
            for i in 64..100usize {
                let h = t.heights[j * 100 + i];
                assert!(h >= lo.z && h <= hi.z);
            }
        }
        let (lo0, hi0) = g.bounds(0, 0, -2.0);
        assert!(lo0.z <= hi0.z, "a negative exaggeration still gives a box");
        // A tiny grid: one chunk as small as the grid.
        let g = ChunkGrid::new(&terrain(2, 5.0));
        assert_eq!((g.chunk_cells(), g.chunk_count()), (1, 1));
        assert_eq!(g.pattern(0, 0).len(), 6);
    }
}
