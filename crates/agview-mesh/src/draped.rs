//! Draped object parts: the OBJ8 `ATTR_draped` geometry of every placed object, laid on the
//! terrain as tiles are, textured with the mesh's `TEXTURE_DRAPED`, and drawn in its layer
//! group among the tiles (`tile.wgsl`, the tiles' pipeline).
//!
//! Each placed object's draped triangles are turned into the world (OBJ8 +x east, −z
//! north, turned by the heading; the OBJ8 height is ignored: draped geometry lies on the
//! ground) and cut along the terrain grid's triangles with the tiles' own cutter
//! ([`super::tiles::cut_triangle`]), so every piece lies exactly on the drawn ground. A
//! mesh's pieces of all its instances form one draw: one per (mesh, draped LOD, texture),
//! never one per object. Density thins them as it thins objects: each piece's vertices carry
//! their object's show levels and thinning number, and the tile shader drops the pieces
//! not shown at the frame's density level.
//!
//! Draped polygons (`.pol` and orthophotos) go the same way: each triangle of a polygon is
//! cut along the terrain grid, its texture coordinates either the orthophoto's own or, for
//! a tiled polygon, the texture turned to its heading and repeating every `SCALE` meters
//! from the document's origin (so neighbouring polygons of one texture continue each other;
//! see `docs/spec-decisions.md`). Polygons sharing a texture, night texture, wrap and alpha
//! mode and a layer group and offset form one draw; an airport's pavement keeps its own
//! place in its group ([`crate::scene::LayerGroup::pavement_key`]). Painted lines are
//! ribbons along their chains ([`line_triangles`]), cut the same way, one draw per texture
//! and layer group.
//!
//! Roads are laid the same way ([`super::roads`]), one draw per texture.
//!
//! Only the nearest LOD that has draped geometry is drawn (out to its far distance, where it
//! fades as tiles fade at `TILE_LOD`): a draped part paints the ground, and drawing the
//! draped geometry of two LODs at once would paint it twice (agview's choice; see
//! `docs/spec-decisions.md`).

use std::ops::Range;

use std::collections::HashMap;

use crate::art::ArtSet;
use crate::art::LinArt;
use crate::scene::{DrapedPolygon, ObjectInstance, PaintedLine, Scene};

use super::atlas::NO_CLAMP;
use super::objects::{lod_far, TexSource, INFINITE_LOD};
use super::tiles::{cut_triangle, Grid, Piece, TileMesh, TileVertex};

/// A layer group's place in the drawing order ([`crate::scene::LayerGroup::draw_key`]).
pub(crate) type DrawKey = (u32, i32);

/// What a group of draped pieces draws (each can be hidden on its own).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum DrapedKind {
    /// The `ATTR_draped` parts of objects (shown with the objects).
    Part,
    /// Draped polygons and orthophotos.
    Polygon,
    /// Painted lines.
    Line,
    /// An airport's pavement: runways, helipads, shoulders and taxiways.
    Pavement,
    /// An airport's painted markings.
    Marking,
    /// Road ribbons ([`super::roads`]).
    Road,
}

/// One mesh's draped pieces of all its instances, or the draped polygons or painted lines
/// of one look.
#[derive(Debug, Clone, PartialEq)]
pub struct DrapedGroup {
    pub kind: DrapedKind,
    /// Where the group draws among tiles and other draped parts.
    pub key: DrawKey,
    pub texture: TexSource,
    /// The night texture (black: nothing glows).
    pub lit: TexSource,
    /// `TEXTURE_NOWRAP`: samples are clamped to the texture's edges.
    pub clamp: bool,
    /// `NO_ALPHA`: drawn opaque.
    pub opaque: bool,
    /// The normal map (`TEXTURE_NORMAL`; `FlatNormal` when none).
    pub normal: TexSource,
    /// How the group is shaded (the material rule's result) and the normal map's repeats
    /// over one repeat of the texture.
    pub shading: crate::art::Material,
    pub normal_scale: f32,
    /// Each instance's show levels, thinning number and its pieces' range in the group's
    /// index list.
    pub(crate) instances: Vec<([u8; 2], f32, Range<u32>)>,
    /// The group's indices (into [`DrapedSet::vertices`]).
    pub(crate) indices: Vec<u32>,
}

impl DrapedGroup {
    /// The group's indices (into [`DrapedSet::vertices`]).
    pub fn indices(&self) -> &[u32] {
        &self.indices
    }

    /// Each instance's show levels, thinning number and its pieces' range in
    /// [`DrapedGroup::indices`] (an object's draped part; `[1, 1]`, 0: always shown).
    pub fn instances(&self) -> &[([u8; 2], f32, Range<u32>)] {
        &self.instances
    }
}

/// A ground art's normal map as a texture source, its shading, and the key that keeps
/// differently shaded pieces in separate draws.
fn ground_shading(
    g: &crate::art::GroundShading,
    images: usize,
) -> (TexSource, crate::art::Material, f32, ShadingKey) {
    let normal = match g.normal {
        Some(t) if t < images => TexSource::Image(t),
        _ => TexSource::FlatNormal,
    };
    let m = g.material;
    let key = (
        normal,
        m.specular_scale.to_bits(),
        m.bump.to_bits(),
        g.normal_scale.to_bits(),
        m.model == crate::art::material::Model::Xp12Pbr,
    );
    (normal, m, g.normal_scale, key)
}

/// What tells two ground shadings apart ([`ground_shading`]).
type ShadingKey = (TexSource, u32, u32, u32, bool);

/// The draped parts of a scene, on the CPU.
#[derive(Debug, Default)]
pub struct DrapedSet {
    pub vertices: Vec<TileVertex>,
    pub groups: Vec<DrapedGroup>,
    pub warnings: Vec<String>,
}

impl DrapedSet {
    pub fn build(scene: &Scene, art: &ArtSet, grid: &Grid) -> Self {
        let mut set = DrapedSet::default();
        let images = art.images.len();
        // Group by mesh: objects of one mesh share its draped geometry and texture.
        let mut by_mesh: Vec<Vec<&ObjectInstance>> = vec![Vec::new(); art.meshes.len()];
        for o in &scene.objects {
            if let Some(list) = by_mesh.get_mut(o.mesh()) {
                list.push(o);
            }
        }
        for (mesh, objects) in art.meshes.iter().zip(by_mesh) {
            let Some(d) = mesh.draped.as_ref().filter(|_| !mesh.missing) else {
                continue;
            };
            if objects.is_empty() {
                continue;
            }
            let Some(lod) = d
                .lods
                .iter()
                .filter(|l| l.index_count >= 3)
                .min_by(|a, b| a.near.total_cmp(&b.near))
            else {
                continue;
            };
            let start = lod.first_index as usize;
            let Some(tris) = start
                .checked_add(lod.index_count as usize - lod.index_count as usize % 3)
                .and_then(|end| mesh.indices.get(start..end))
            else {
                set.warnings.push(format!(
                    "mesh {}: draped indices out of range; its draped part is not drawn",
                    mesh.name
                ));
                continue;
            };
            let far = lod_far(lod.near, lod.far, (mesh.bounds_min, mesh.bounds_max));
            let texture = match d.texture {
                None => TexSource::White,
                Some(t) if t < images => TexSource::Image(t),
                Some(_) => TexSource::Checker,
            };
            let (normal, shading, normal_scale, _) = ground_shading(&d.shading, images);
            let mut group = DrapedGroup {
                kind: DrapedKind::Part,
                key: d.layer_group.draw_key(),
                texture,
                lit: TexSource::Black,
                clamp: false,
                opaque: false,
                normal,
                shading,
                normal_scale,
                instances: Vec::with_capacity(objects.len()),
                indices: Vec::new(),
            };
            for o in objects {
                let finite = o.pos.iter().all(|v| v.is_finite()) && o.heading.is_finite();
                if !finite {
                    continue;
                }
                let (s, c) = o.heading.to_radians().sin_cos();
                let first = group.indices.len() as u32;
                let first_vertex = set.vertices.len();
                let mut pieces = TileMesh {
                    vertices: std::mem::take(&mut set.vertices),
                    ..TileMesh::default()
                };
                for t in tris.chunks_exact(3) {
                    let corner = |i: u32| {
                        let v = mesh.vertices.get(i as usize)?;
                        // OBJ8 axes to the world (east = x, north = −z), turned clockwise.
                        let (lx, ly) = (v.pos[0], -v.pos[2]);
                        let p = [o.pos[0] + lx * c + ly * s, o.pos[1] - lx * s + ly * c];
                        Some((p, v.uv))
                    };
                    let (Some(a), Some(b), Some(e)) = (corner(t[0]), corner(t[1]), corner(t[2]))
                    else {
                        continue;
                    };
                    if let Some(w) = cut_triangle(
                        grid,
                        [a.0, b.0, e.0],
                        [a.1, b.1, e.1],
                        // A draped part's coordinates may repeat: sampled as they always were.
                        Piece {
                            lod: far,
                            rect: NO_CLAMP,
                        },
                        None,
                        &mut pieces,
                    ) {
                        if !set.warnings.contains(&w) {
                            set.warnings.push(w);
                        }
                    }
                }
                set.vertices = pieces.vertices;
                let show = [super::objects::show_code(o.show) as f32, o.thin];
                for v in &mut set.vertices[first_vertex..] {
                    v.show = show;
                }
                group.indices.extend(pieces.indices);
                let end = group.indices.len() as u32;
                group.instances.push((o.show, o.thin, first..end));
            }
            if !group.indices.is_empty() {
                set.groups.push(group);
            }
        }
        set.add_polygons(scene, art, grid);
        set.add_lines(scene, art, grid);
        set.add_roads(scene, art, grid);
        set
    }

    /// Cuts ground triangles (points and texture coordinates) along the terrain into group
    /// `gi`, as one instance drawn out to `lod` meters (fading as tiles do).
    fn cut_into_group(
        &mut self,
        gi: usize,
        grid: &Grid,
        lod: f32,
        tris: impl IntoIterator<Item = ([[f32; 2]; 3], [[f32; 2]; 3])>,
    ) {
        let mut pieces = TileMesh {
            vertices: std::mem::take(&mut self.vertices),
            ..TileMesh::default()
        };
        for (pts, sts) in tris {
            let piece = Piece {
                lod,
                rect: NO_CLAMP,
            };
            if let Some(w) = cut_triangle(grid, pts, sts, piece, None, &mut pieces) {
                if !self.warnings.contains(&w) {
                    self.warnings.push(w);
                }
            }
        }
        self.keep_pieces(gi, pieces);
    }

    /// Takes back the vertices lent to `pieces` (with the cut pieces added) and draws its
    /// indices as one instance of group `gi`.
    pub(crate) fn keep_pieces(&mut self, gi: usize, pieces: TileMesh<TileVertex>) {
        self.vertices = pieces.vertices;
        let g = &mut self.groups[gi];
        let first = g.indices.len() as u32;
        g.indices.extend(pieces.indices);
        let end = g.indices.len() as u32;
        g.instances.push(([1, 1], 0.0, first..end));
    }

    /// The scene's painted lines: one group per (texture, layer group and offset), every
    /// layer of every line of it in scene order.
    fn add_lines(&mut self, scene: &Scene, art: &ArtSet, grid: &Grid) {
        let images = art.images.len();
        type GroupKey = (DrawKey, TexSource, DrapedKind, ShadingKey, u32);
        let mut groups: HashMap<GroupKey, usize> = HashMap::new();
        for l in &scene.lines {
            let placeholder;
            let lin = match art.lins.get(l.def) {
                Some(a) => a,
                None => {
                    placeholder = crate::art::ground::placeholder_lin("line");
                    &placeholder
                }
            };
            let texture = match lin.texture {
                Some(t) if t < images => TexSource::Image(t),
                _ => TexSource::Checker,
            };
            let key = lin.layer_group.draw_key();
            // An airport's lines are agview's own art (`agview:line/…`).
            let kind = match scene.lin_defs.get(l.def) {
                Some(d) if d.name.starts_with("agview:line/") => DrapedKind::Marking,
                _ => DrapedKind::Line,
            };
            let (normal, shading, normal_scale, skey) = ground_shading(&lin.shading, images);
            // `LOD distance`: the line is drawn out to it (and fades as tiles do).
            let lod = lin
                .lod
                .filter(|d| d.is_finite() && *d > 0.0)
                .map_or(INFINITE_LOD, |d| d.min(INFINITE_LOD));
            let gi = *groups
                .entry((key, texture, kind, skey, lod.to_bits()))
                .or_insert_with(|| {
                    self.groups.push(DrapedGroup {
                        kind,
                        key,
                        texture,
                        lit: TexSource::Black,
                        clamp: false,
                        opaque: false,
                        normal,
                        shading,
                        normal_scale,
                        instances: Vec::new(),
                        indices: Vec::new(),
                    });
                    self.groups.len() - 1
                });
            let tris = (0..lin.layers.len()).flat_map(|k| {
                line_triangles(l, lin, k)
                    .into_iter()
                    .map(|[a, b, c]| ([a.0, b.0, c.0], [a.1, b.1, c.1]))
            });
            self.cut_into_group(gi, grid, lod, tris);
        }
        self.groups.retain(|g| !g.indices.is_empty());
    }

    /// The scene's draped polygons, one group per (texture, night texture, wrap, alpha,
    /// layer group and offset), polygons in scene order within it.
    fn add_polygons(&mut self, scene: &Scene, art: &ArtSet, grid: &Grid) {
        let images = art.images.len();
        type GroupKey = (
            DrawKey,
            TexSource,
            TexSource,
            bool,
            bool,
            DrapedKind,
            Option<ShadingKey>,
        );
        let mut groups: HashMap<GroupKey, usize> = HashMap::new();
        for d in &scene.draped {
            let pol = art.pols.get(d.def);
            let texture = match pol.and_then(|p| p.texture) {
                Some(t) if t < images => TexSource::Image(t),
                _ => TexSource::Checker,
            };
            let lit = match pol.and_then(|p| p.lit) {
                Some(t) if t < images => TexSource::Image(t),
                _ => TexSource::Black,
            };
            let (clamp, opaque) = pol.map_or((false, false), |p| (p.nowrap, p.no_alpha));
            let key = match &d.pavement {
                Some(l) => crate::scene::LayerGroup::pavement_key(&l.group, l.order),
                None => pol.map_or_else(
                    || crate::art::ground::default_pol_group().draw_key(),
                    |p| p.layer_group.draw_key(),
                ),
            };
            let kind = match d.pavement {
                Some(_) => DrapedKind::Pavement,
                None => DrapedKind::Polygon,
            };
            let shaded = pol.map(|p| ground_shading(&p.shading, images));
            let skey = shaded.map(|s| s.3);
            let (normal, shading, normal_scale) = shaded.map_or(
                (TexSource::FlatNormal, crate::art::Material::default(), 1.0),
                |s| (s.0, s.1, s.2),
            );
            let gi = *groups
                .entry((key, texture, lit, clamp, opaque, kind, skey))
                .or_insert_with(|| {
                    self.groups.push(DrapedGroup {
                        kind,
                        key,
                        texture,
                        lit,
                        clamp,
                        opaque,
                        normal,
                        shading,
                        normal_scale,
                        instances: Vec::new(),
                        indices: Vec::new(),
                    });
                    self.groups.len() - 1
                });
            let scale = pol.map_or([10.0, 10.0], |p| p.scale);
            let sts = polygon_st(d, scale);
            let pts: Vec<[f32; 2]> = d.rings.iter().flatten().copied().collect();
            let st = |i: usize| sts.get(i).copied().unwrap_or([0.0, 0.0]);
            let tris = d.triangles.iter().filter_map(|t| {
                let [a, b, c] = t.map(|i| i as usize);
                let p = [*pts.get(a)?, *pts.get(b)?, *pts.get(c)?];
                Some((p, [st(a), st(b), st(c)]))
            });
            self.cut_into_group(gi, grid, INFINITE_LOD, tris);
        }
        self.groups.retain(|g| !g.indices.is_empty());
    }

    /// Every piece: one index list, and each group's range in it (what is uploaded: the
    /// shader applies the density).
    pub fn indices(&self) -> (Vec<u32>, Vec<Range<u32>>) {
        let mut list = Vec::new();
        let mut ranges = Vec::with_capacity(self.groups.len());
        for g in &self.groups {
            let start = list.len() as u32;
            list.extend_from_slice(&g.indices);
            ranges.push(start..list.len() as u32);
        }
        (list, ranges)
    }
}

/// Each point's texture coordinates, the rings' points numbered in order: an orthophoto's
/// own, else a tiled texture's. The tiled texture's t axis points to the polygon's compass
/// heading and s 90° clockwise from it, one repeat every `scale` meters, from the scene's
/// origin (GROUND.md §1.3); whole repeats are taken off so that the numbers stay small.
pub(crate) fn polygon_st(d: &DrapedPolygon, scale: [f32; 2]) -> Vec<[f32; 2]> {
    if let Some(st) = &d.st {
        return st.iter().flatten().copied().collect();
    }
    let (sin, cos) = (d.heading.to_radians().sin(), d.heading.to_radians().cos());
    let (sx, sy) = (scale[0].max(1e-3), scale[1].max(1e-3));
    let at = |p: [f32; 2]| {
        let (x, y) = (f64::from(p[0]), f64::from(p[1]));
        let (sin, cos) = (f64::from(sin), f64::from(cos));
        [
            (cos * x - sin * y) / f64::from(sx),
            (sin * x + cos * y) / f64::from(sy),
        ]
    };
    let first = d
        .rings
        .iter()
        .flatten()
        .next()
        .map_or([0.0, 0.0], |p| at(*p));
    let base = [first[0].floor(), first[1].floor()];
    d.rings
        .iter()
        .flatten()
        .map(|p| {
            let st = at(*p);
            [(st[0] - base[0]) as f32, (st[1] - base[1]) as f32]
        })
        .collect()
}

/// A point of a line's ribbon and its texture coordinates.
type LinePoint = ([f32; 2], [f32; 2]);

/// The triangles of layer `k` of a painted line (GROUND.md §2.3): a ribbon `(s2 − s1) ·
/// SCALE h` meters wide whose middle column `sm` lies on the chain (s grows from the left
/// of travel to the right), mitred at the joins (across the seam of a closed loop), its
/// texture running along the whole chain, one repeat every `SCALE v` meters. An open
/// line's first and last stretches show the layer's start and end caps, `(t2 − t1) · SCALE v`
/// meters each; with `ALIGN n` the body's repeats are stretched to end on a multiple of
/// 1/n of a repeat.
pub(crate) fn line_triangles(l: &PaintedLine, lin: &LinArt, k: usize) -> Vec<[LinePoint; 3]> {
    let Some(&[s1, sm, s2]) = lin.layers.get(k) else {
        return Vec::new();
    };
    let (sh, sv) = (lin.scale[0].max(1e-3), lin.scale[1].max(1e-3));
    let mut pts = l.points.clone();
    if l.closed && pts.len() > 2 {
        pts.push(pts[0]);
    }
    if pts.len() < 2 {
        return Vec::new();
    }
    let n = pts.len();
    let dirs: Vec<[f32; 2]> = pts
        .windows(2)
        .map(|w| {
            let d = [w[1][0] - w[0][0], w[1][1] - w[0][1]];
            let len = (d[0] * d[0] + d[1] * d[1]).sqrt().max(1e-9);
            [d[0] / len, d[1] / len]
        })
        .collect();
    let right = |d: [f32; 2]| [d[1], -d[0]];
    // The mitre at each point: the bisector of its two sides' right-hand normals, scaled
    // to keep the width (at most 4 times, for the sharpest turns).
    let mitre = |i: usize| -> [f32; 2] {
        let (before, after) = match (i, l.closed) {
            (0, true) => (dirs[n - 2], dirs[0]),
            (0, false) => (dirs[0], dirs[0]),
            (i, true) if i == n - 1 => (dirs[n - 2], dirs[0]),
            (i, false) if i == n - 1 => (dirs[n - 2], dirs[n - 2]),
            (i, _) => (dirs[i - 1], dirs[i]),
        };
        let (a, b) = (right(before), right(after));
        let m = [a[0] + b[0], a[1] + b[1]];
        let len = (m[0] * m[0] + m[1] * m[1]).sqrt();
        if len < 1e-6 {
            return a;
        }
        let m = [m[0] / len, m[1] / len];
        let scale = 1.0 / (m[0] * a[0] + m[1] * a[1]).max(0.25);
        [m[0] * scale, m[1] * scale]
    };
    let mut dist = vec![0.0f32; n];
    for i in 1..n {
        let d = [pts[i][0] - pts[i - 1][0], pts[i][1] - pts[i - 1][1]];
        dist[i] = dist[i - 1] + (d[0] * d[0] + d[1] * d[1]).sqrt();
    }
    let total = dist[n - 1];
    let caps = !l.closed;
    let start = caps.then(|| lin.start_caps.get(k).copied()).flatten();
    let end = caps.then(|| lin.end_caps.get(k).copied()).flatten();
    let cap_len = |c: Option<[f32; 5]>| c.map_or(0.0, |c| ((c[4] - c[3]) * sv).abs());
    let (mut start_len, mut end_len) = (cap_len(start), cap_len(end));
    if start_len + end_len > total {
        let f = total / (start_len + end_len).max(1e-6);
        start_len *= f;
        end_len *= f;
    }
    let body = (total - start_len - end_len).max(0.0);
    let stretch = match lin.align {
        Some(parts) if body > 0.0 => {
            let repeats = body / sv;
            let snapped = ((repeats * parts).round() / parts).max(1.0 / parts);
            snapped / repeats
        }
        _ => 1.0,
    };
    // The texture at distance `d` along the chain: its columns and row.
    // The look of the piece around distance `mid`: its columns, and the row at any
    // distance `d` within it (a cap's rows run from its t1).
    let look = |mid: f32| -> ([f32; 3], Box<dyn Fn(f32) -> f32>) {
        match (start, end) {
            (Some(c), _) if mid < start_len => {
                ([c[0], c[1], c[2]], Box::new(move |d| c[3] + d / sv))
            }
            (_, Some(c)) if mid > total - end_len => (
                [c[0], c[1], c[2]],
                Box::new(move |d| c[3] + (d - (total - end_len)) / sv),
            ),
            _ => (
                [s1, sm, s2],
                Box::new(move |d| (d - start_len) / sv * stretch),
            ),
        }
    };
    // Cut the chain where the caps end, so each piece has one look.
    let mut cuts: Vec<f32> = dist.clone();
    for c in [start_len, total - end_len] {
        if c > 0.0 && c < total {
            cuts.push(c);
        }
    }
    cuts.sort_by(f32::total_cmp);
    cuts.dedup_by(|a, b| (*a - *b).abs() < 1e-4);
    let at = |d: f32| -> ([f32; 2], [f32; 2]) {
        // The point at distance d, and the mitre there (interpolated inside a side).
        let i = dist.partition_point(|&x| x < d).clamp(1, n - 1);
        let (d0, d1) = (dist[i - 1], dist[i]);
        let f = if d1 > d0 { (d - d0) / (d1 - d0) } else { 0.0 };
        let p = [
            pts[i - 1][0] + (pts[i][0] - pts[i - 1][0]) * f,
            pts[i - 1][1] + (pts[i][1] - pts[i - 1][1]) * f,
        ];
        let off = if f <= 1e-6 {
            mitre(i - 1)
        } else if f >= 1.0 - 1e-6 {
            mitre(i)
        } else {
            right(dirs[i - 1])
        };
        (p, off)
    };
    let mut out = Vec::new();
    for w in cuts.windows(2) {
        let (da, db) = (w[0], w[1]);
        if db - da < 1e-5 {
            continue;
        }
        let mid = (da + db) * 0.5;
        let ([c1, cm, c2], t_of) = look(mid);
        let edge = |d: f32, s: f32| -> LinePoint {
            let (p, off) = at(d);
            let m = (s - cm) * sh;
            ([p[0] + off[0] * m, p[1] + off[1] * m], [s, t_of(d)])
        };
        let (la, ra, lb, rb) = (edge(da, c1), edge(da, c2), edge(db, c1), edge(db, c2));
        out.push([la, ra, rb]);
        out.push([la, rb, lb]);
    }
    out
}

/// One draw of the draped pass: a range of tile pieces or of a draped group's pieces.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GroundDraw {
    /// `TilesGpu::segments[i]`.
    Tiles(usize),
    /// `DrapedGpu::groups[i]`.
    Draped(usize),
}

/// The order tiles and draped parts draw in: by layer group and offset, as X-Plane orders
/// draped geometry; within one group and offset, tiles first (an object's draped part lies
/// on the ground its tile paints), then each in its own order.
pub fn ground_order(tiles: &[DrawKey], draped: &[DrawKey]) -> Vec<GroundDraw> {
    let mut all: Vec<(DrawKey, u8, usize)> = tiles
        .iter()
        .enumerate()
        .map(|(i, k)| (*k, 0, i))
        .chain(draped.iter().enumerate().map(|(i, k)| (*k, 1, i)))
        .collect();
    all.sort();
    all.into_iter()
        .map(|(_, kind, i)| {
            if kind == 0 {
                GroundDraw::Tiles(i)
            } else {
                GroundDraw::Draped(i)
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::art::{DrapedArt, MeshArt, MeshLod, MeshVertex};
    use crate::scene::{DrapedPolygon, LayerGroup};
    use crate::terrain::Terrain;

    /// A 4 m square pad, draped, in `group`.
    fn pad(group: &str, offset: i32) -> MeshArt {
        let v = |x: f32, z: f32, s: f32, t: f32| MeshVertex {
            pos: [x, 0.0, z],
            normal: [0.0, 1.0, 0.0],
            uv: [s, t],
        };
        MeshArt {
            name: "pad.obj".into(),
            vertices: vec![
                v(-2.0, 2.0, 0.0, 0.0),
                v(2.0, 2.0, 1.0, 0.0),
                v(2.0, -2.0, 1.0, 1.0),
                v(-2.0, -2.0, 0.0, 1.0),
            ],
            indices: vec![0, 2, 1, 0, 3, 2],
            draped: Some(DrapedArt {
                lods: vec![MeshLod {
                    near: 0.0,
                    far: 1000.0,
                    first_index: 0,
                    index_count: 6,
                    material: Default::default(),
                    shading: Default::default(),
                }],
                texture: Some(0),
                layer_group: LayerGroup {
                    name: group.into(),
                    offset,
                },
                shading: Default::default(),
            }),
            ..MeshArt::default()
        }
    }

    fn placed(index: u32, pos: [f32; 2], show: [u8; 2], thin: f32) -> ObjectInstance {
        ObjectInstance {
            index,
            pos,
            show,
            thin,
            ..ObjectInstance::default()
        }
    }

    #[test]
    fn pieces_are_cut_along_the_terrain_and_placed_in_the_world() {
        let art = ArtSet {
            meshes: vec![pad("runways", 1)],
            images: vec![crate::art::ImageData::checkerboard("t")],
            ..ArtSet::default()
        };
        let scene = Scene {
            objects: vec![
                placed(0, [10.0, 20.0], [1, 1], 0.0),
                ObjectInstance {
                    heading: 90.0,
                    ..placed(0, [-10.0, 0.0], [1, 1], 0.0)
                },
            ],
            ..Scene::default()
        };
        // 1 m cells: the 4 m pad is cut into many pieces.
        let grid = Grid::of(&Terrain::flat(64.0));
        let set = DrapedSet::build(&scene, &art, &grid);
        assert_eq!(
            set.groups.len(),
            1,
            "one draw for the mesh, whatever the instances"
        );
        let g = &set.groups[0];
        assert_eq!(
            g.key,
            LayerGroup {
                name: "runways".into(),
                offset: 1
            }
            .draw_key()
        );
        assert_eq!(g.texture, TexSource::Image(0));
        assert!(
            g.indices.len() / 3 >= 2 * 16,
            "{} triangles",
            g.indices.len() / 3
        );
        // Every piece vertex lies inside its instance's square (turned or not).
        for (k, (_, _, r)) in g.instances.iter().enumerate() {
            let c = scene.objects[k].pos;
            for i in &g.indices[r.start as usize..r.end as usize] {
                let v = set.vertices[*i as usize];
                assert!(
                    (v.xy[0] - c[0]).abs() <= 2.0 + 1e-3 && (v.xy[1] - c[1]).abs() <= 2.0 + 1e-3,
                    "{v:?}"
                );
                assert_eq!(v.lod, 1000.0);
                // A draped part's coordinates may repeat: never clamped to a rectangle.
                assert_eq!(v.rect, NO_CLAMP);
            }
        }
        // The +z (south) edge of the pad carries t = 0: at heading 0 it is the south side.
        let south: Vec<&TileVertex> = set
            .vertices
            .iter()
            .filter(|v| (v.xy[1] - 18.0).abs() < 1e-3)
            .collect();
        assert!(!south.is_empty() && south.iter().all(|v| v.st[1].abs() < 1e-3));
    }

    #[test]
    fn airport_pavement_and_markings_are_groups_of_their_own() {
        use crate::layout::placed::{draped_polygon, painted_line};
        let square = vec![[0.0, 0.0], [10.0, 0.0], [10.0, 10.0], [0.0, 10.0]];
        // A `.pol` and, in the same (missing, checkerboard) look, a taxiway.
        let mut scene = draped_polygon("a.pol", std::slice::from_ref(&square), None, 0.0);
        let mut taxiway = scene.draped[0].clone();
        taxiway.pavement = Some(crate::scene::PavementLayer {
            group: "taxiways".into(),
            order: 0,
        });
        scene.draped.push(taxiway);
        let line = painted_line("b.lin", &[square], false);
        scene.lin_defs = line.lin_defs.clone();
        scene.lin_defs.push(crate::scene::ArtRef {
            name: "agview:line/yellow".into(),
            resolved: None,
        });
        let mut marking = line.lines[0].clone();
        marking.def = 1;
        scene.lines = vec![line.lines[0].clone(), marking];
        let set = DrapedSet::build(&scene, &ArtSet::default(), &Grid::of(&Terrain::flat(64.0)));
        let mut kinds: Vec<DrapedKind> = set.groups.iter().map(|g| g.kind).collect();
        kinds.sort_by_key(|k| *k as u8);
        assert_eq!(
            kinds,
            [
                DrapedKind::Polygon,
                DrapedKind::Line,
                DrapedKind::Pavement,
                DrapedKind::Marking
            ],
            "each can be hidden on its own"
        );
    }

    #[test]
    fn density_thins_draped_parts_with_their_objects() {
        let art = ArtSet {
            meshes: vec![pad("objects", 0)],
            ..ArtSet::default()
        };
        let scene = Scene {
            objects: vec![
                placed(0, [0.0, 0.0], [1, 1], 0.0),
                placed(0, [20.0, 0.0], [4, 4], 0.0),
            ],
            ..Scene::default()
        };
        let set = DrapedSet::build(&scene, &art, &Grid::of(&Terrain::flat(100.0)));
        assert_eq!(set.groups[0].texture, TexSource::Checker, "no image 0");
        let (all, r) = set.indices();
        assert_eq!(r[0].len(), all.len());
        // Each piece carries its object's show levels for the shader's density test.
        let codes: Vec<f32> = set.vertices.iter().map(|v| v.show[0]).collect();
        let (one, four) = (
            super::super::objects::show_code([1, 1]) as f32,
            super::super::objects::show_code([4, 4]) as f32,
        );
        assert!(codes.contains(&one) && codes.contains(&four));
        assert!(codes.iter().all(|&c| c == one || c == four));
    }

    #[test]
    fn draped_parts_sort_with_tiles_by_layer_group() {
        let key = |n: &str, o: i32| {
            LayerGroup {
                name: n.into(),
                offset: o,
            }
            .draw_key()
        };
        // Tile segments: footprints (an AGP's default) and roads; draped parts: runways,
        // objects (the OBJ default), footprints +1 and footprints 0.
        let tiles = [key("footprints", 0), key("roads", 0)];
        let draped = [
            key("runways", 0),
            key("objects", 0),
            key("footprints", 1),
            key("footprints", 0),
        ];
        use GroundDraw::{Draped, Tiles};
        assert_eq!(
            ground_order(&tiles, &draped),
            vec![
                Draped(0),
                Tiles(0),
                Draped(3),
                Draped(2),
                Tiles(1),
                Draped(1)
            ]
        );
    }

    #[test]
    fn tiled_polygons_turn_their_texture_to_the_heading() {
        let d = DrapedPolygon {
            rings: vec![vec![[0.0, 0.0], [10.0, 0.0], [10.0, 10.0], [0.0, 10.0]]],
            heading: 90.0,
            ..DrapedPolygon::default()
        };
        let st = polygon_st(&d, [5.0, 10.0]);
        // Heading 90: t grows to the east (one repeat per 10 m), s to the south (per 5 m).
        let dt = st[1][1] - st[0][1];
        let ds = st[3][0] - st[0][0];
        assert!((dt - 1.0).abs() < 1e-5, "{st:?}");
        assert!((ds + 2.0).abs() < 1e-5, "{st:?}");
        // Far from the origin the numbers stay small: whole repeats are taken off.
        let far = DrapedPolygon {
            rings: vec![vec![
                [90_000.0, 40_000.0],
                [90_010.0, 40_000.0],
                [90_010.0, 40_010.0],
            ]],
            ..DrapedPolygon::default()
        };
        let st = polygon_st(&far, [25.0, 25.0]);
        assert!(st.iter().flatten().all(|v| v.abs() < 2.0), "{st:?}");
        assert!((st[1][0] - st[0][0] - 0.4).abs() < 1e-4);
    }

    #[test]
    fn polygons_of_one_look_share_one_draw() {
        use crate::art::PolArt;
        let square = |x: f32| {
            crate::layout::placed::draped_polygon(
                "a.pol",
                &[vec![[x, 0.0], [x + 4.0, 0.0], [x + 4.0, 4.0], [x, 4.0]]],
                None,
                0.0,
            )
        };
        let mut scene = square(0.0);
        let mut b = square(10.0);
        let mut c = square(20.0);
        b.draped[0].def = 0;
        c.draped[0].def = 1;
        scene.draped.append(&mut b.draped);
        scene.draped.append(&mut c.draped);
        let pol = |group: &str| PolArt {
            name: "a.pol".into(),
            texture: Some(0),
            lit: None,
            scale: [10.0, 10.0],
            layer_group: LayerGroup {
                name: group.into(),
                offset: 0,
            },
            nowrap: false,
            no_alpha: false,
            missing: false,
            shading: Default::default(),
        };
        let art = ArtSet {
            pols: vec![pol("taxiways"), pol("runways")],
            images: vec![crate::art::ImageData::checkerboard("t")],
            ..ArtSet::default()
        };
        let set = DrapedSet::build(&scene, &art, &Grid::of(&Terrain::flat(100.0)));
        assert_eq!(set.groups.len(), 2, "one draw per texture and layer group");
        assert_eq!(set.groups[0].instances.len(), 2);
        assert!(set.groups[0].key < set.groups[1].key);
    }

    #[test]
    fn a_lines_lod_limits_its_distance_and_shading_splits_draws() {
        use crate::scene::PaintedLine;
        let line = |def: usize| PaintedLine {
            def,
            points: vec![[0.0, 10.0], [50.0, 10.0]],
            closed: false,
            length: 50.0,
            feature: None,
        };
        let scene = Scene {
            lines: vec![line(0), line(1)],
            ..Scene::default()
        };
        let mut far = crate::art::ground::placeholder_lin("far.lin");
        far.texture = Some(0);
        let mut near = far.clone();
        near.lod = Some(300.0);
        near.shading.normal = Some(1);
        near.shading.material.specular_scale = 0.5;
        let art = ArtSet {
            lins: vec![far, near],
            images: vec![
                crate::art::ImageData::checkerboard("t"),
                crate::art::ImageData::checkerboard("n"),
            ],
            ..ArtSet::default()
        };
        let set = DrapedSet::build(&scene, &art, &Grid::of(&Terrain::flat(100.0)));
        assert_eq!(set.groups.len(), 2, "another LOD and shading: another draw");
        let lods = |g: &DrapedGroup| {
            let mut l: Vec<f32> = g
                .indices
                .iter()
                .map(|&i| set.vertices[i as usize].lod)
                .collect();
            l.dedup();
            l
        };
        assert_eq!(lods(&set.groups[0]), [INFINITE_LOD]);
        assert_eq!(lods(&set.groups[1]), [300.0]);
        assert_eq!(set.groups[1].normal, TexSource::Image(1));
        assert_eq!(set.groups[1].shading.specular_scale, 0.5);
    }

    #[test]
    fn a_mesh_without_draped_geometry_or_objects_draws_nothing() {
        let mut plain = pad("objects", 0);
        plain.draped = None;
        let art = ArtSet {
            meshes: vec![plain, pad("objects", 0)],
            ..ArtSet::default()
        };
        let scene = Scene {
            objects: vec![
                placed(0, [0.0, 0.0], [1, 1], 0.0),
                placed(7, [0.0, 0.0], [1, 1], 0.0),
            ],
            ..Scene::default()
        };
        let set = DrapedSet::build(&scene, &art, &Grid::of(&Terrain::flat(100.0)));
        assert!(set.groups.is_empty());
    }
}
