//! Road ribbons (ROADS.md §5): each road segment's look's rows laid along its centreline,
//! cut along the terrain grid with the tiles' own cutter ([`super::tiles::cut_triangle`])
//! and drawn with the draped groups (`tile.wgsl`), in the `roads` layer group: after the
//! ground, autogen footprints and their draped parts, before objects.
//!
//! A row is a ribbon from its lateral `x1` to `x2` (metres, positive to the right of
//! travel), textured `s1` to `s2` across and along by `distance / length · t_scale`,
//! mitred at shape points (at most [`MITRE_LIMIT`] times wider). Each vertex is lifted
//! above the drawn ground by its end heights (the road rises evenly between its ends)
//! and a graded row's `y`: the pieces' vertices carry the lift ([`ROAD_LIFT`]). There is
//! no junction geometry: the ends of the segments meeting at a junction overlap.
//!
//! All roads of one texture are one draw ([`DrapedKind::Road`]).

use std::collections::HashMap;

use crate::art::ArtSet;
use crate::scene::{LayerGroup, RoadLook, RoadRibbon, RoadSegment, Scene};

use super::atlas::NO_CLAMP;
use super::draped::{DrapedGroup, DrapedKind, DrapedSet};
use super::objects::{TexSource, INFINITE_LOD};
use super::tiles::{cut_triangle, Grid, Piece, TileMesh};

/// How much wider than the road a mitre at a sharp turn may grow; sharper turns keep
/// this width (OverlayEditor caps its mitres likewise, ROADS.md §5).
pub const MITRE_LIMIT: f32 = 4.0;

/// A road piece's vertex `show[0]`: the vertex is lifted `show[1]` metres above the
/// drawn ground, and always shown (`tile.wgsl`). Object parts' show codes are never
/// negative.
pub const ROAD_LIFT: f32 = -1.0;

/// A corner of a road triangle: its point, texture coordinates and lift above the ground.
pub(crate) type RoadCorner = ([f32; 2], [f32; 2], f32);

/// The layer group roads draw in.
fn road_key() -> super::draped::DrawKey {
    LayerGroup {
        name: "roads".into(),
        offset: 0,
    }
    .draw_key()
}

/// The mitre offsets of each point of `pts` (unit-width, to the right of travel): the
/// bisector of the two sides' right-hand normals, scaled to keep the width, at most
/// [`MITRE_LIMIT`] times.
pub(crate) fn mitres(pts: &[[f32; 2]]) -> Vec<[f32; 2]> {
    let n = pts.len();
    if n < 2 {
        return vec![[0.0, 0.0]; n];
    }
    let dirs: Vec<[f32; 2]> = pts
        .windows(2)
        .map(|w| {
            let d = [w[1][0] - w[0][0], w[1][1] - w[0][1]];
            let len = d[0].hypot(d[1]).max(1e-9);
            [d[0] / len, d[1] / len]
        })
        .collect();
    let right = |d: [f32; 2]| [d[1], -d[0]];
    (0..n)
        .map(|i| {
            let before = dirs[i.saturating_sub(1).min(n - 2)];
            let after = dirs[i.min(n - 2)];
            let (a, b) = (right(before), right(after));
            let m = [a[0] + b[0], a[1] + b[1]];
            let len = m[0].hypot(m[1]);
            if len < 1e-6 {
                // A full turn back: square to the side before.
                return a;
            }
            let m = [m[0] / len, m[1] / len];
            let scale = 1.0 / (m[0] * a[0] + m[1] * a[1]).max(1.0 / MITRE_LIMIT);
            [m[0] * scale, m[1] * scale]
        })
        .collect()
}

/// The triangles of row `row` of `look` along segment `seg`: its ribbon, mitred, with each
/// corner's lift above the ground.
pub(crate) fn ribbon_triangles(
    seg: &RoadSegment,
    look: &RoadLook,
    row: &RoadRibbon,
) -> Vec<[RoadCorner; 3]> {
    let pts = &seg.points;
    if pts.len() < 2 || pts.iter().flatten().any(|v| !v.is_finite()) {
        return Vec::new();
    }
    let mut dist = vec![0.0f32; pts.len()];
    for i in 1..pts.len() {
        dist[i] = dist[i - 1] + (pts[i][0] - pts[i - 1][0]).hypot(pts[i][1] - pts[i - 1][1]);
    }
    let total = dist[pts.len() - 1];
    if total <= 0.0 {
        return Vec::new();
    }
    let m = mitres(pts);
    let repeat = look.length.max(0.01);
    let [h0, h1] = seg.heights.map(|h| if h.is_finite() { h } else { 0.0 });
    let corner = |i: usize, side: usize| -> RoadCorner {
        let x = row.x[side];
        let p = [pts[i][0] + m[i][0] * x, pts[i][1] + m[i][1] * x];
        let t = dist[i] / repeat * row.t_scale;
        let lift = h0 + (h1 - h0) * dist[i] / total + row.y[side];
        (p, [row.s[side], t], lift)
    };
    let mut out = Vec::with_capacity(2 * (pts.len() - 1));
    for i in 0..pts.len() - 1 {
        let (la, ra, lb, rb) = (
            corner(i, 0),
            corner(i, 1),
            corner(i + 1, 0),
            corner(i + 1, 1),
        );
        out.push([la, ra, rb]);
        out.push([la, rb, lb]);
    }
    out
}

/// `f` at `p`, affine over the triangle `pts` with the values `vals` at its corners.
fn affine(pts: [[f32; 2]; 3], vals: [f32; 3], p: [f32; 2]) -> f32 {
    let (e1, e2) = (
        [pts[1][0] - pts[0][0], pts[1][1] - pts[0][1]],
        [pts[2][0] - pts[0][0], pts[2][1] - pts[0][1]],
    );
    let det = e1[0] * e2[1] - e1[1] * e2[0];
    if det.abs() < 1e-12 {
        return vals[0];
    }
    let d = [p[0] - pts[0][0], p[1] - pts[0][1]];
    let l1 = (d[0] * e2[1] - d[1] * e2[0]) / det;
    let l2 = (e1[0] * d[1] - e1[1] * d[0]) / det;
    vals[0] + l1 * (vals[1] - vals[0]) + l2 * (vals[2] - vals[0])
}

impl DrapedSet {
    /// The scene's roads: one group per texture, every segment's ribbons of that texture
    /// in scene order.
    pub(crate) fn add_roads(&mut self, scene: &Scene, art: &ArtSet, grid: &Grid) {
        let images = art.images.len();
        let key = road_key();
        let mut groups: HashMap<TexSource, usize> = HashMap::new();
        for seg in &scene.roads {
            let Some(look) = scene.road_looks.get(seg.look) else {
                continue;
            };
            for row in &look.rows {
                let texture = match art.roads.get(seg.look).and_then(|t| t.get(row.texture)) {
                    Some(&i) if i < images => TexSource::Image(i),
                    _ => TexSource::Checker,
                };
                let gi = *groups.entry(texture).or_insert_with(|| {
                    self.groups.push(DrapedGroup {
                        kind: DrapedKind::Road,
                        key,
                        texture,
                        lit: TexSource::Black,
                        clamp: false,
                        opaque: false,
                        normal: TexSource::FlatNormal,
                        shading: crate::art::Material::default(),
                        normal_scale: 1.0,
                        instances: Vec::new(),
                        indices: Vec::new(),
                    });
                    self.groups.len() - 1
                });
                self.cut_road(gi, grid, ribbon_triangles(seg, look, row));
            }
        }
        self.groups.retain(|g| !g.indices.is_empty());
    }

    /// Cuts road triangles along the terrain into group `gi`, each piece's vertices
    /// lifted as their triangle's corners are.
    fn cut_road(&mut self, gi: usize, grid: &Grid, tris: Vec<[RoadCorner; 3]>) {
        let mut pieces = TileMesh {
            vertices: std::mem::take(&mut self.vertices),
            ..TileMesh::default()
        };
        for [a, b, c] in tris {
            let first = pieces.vertices.len();
            let pts = [a.0, b.0, c.0];
            let piece = Piece {
                lod: INFINITE_LOD,
                rect: NO_CLAMP,
            };
            if let Some(w) = cut_triangle(grid, pts, [a.1, b.1, c.1], piece, None, &mut pieces) {
                if !self.warnings.contains(&w) {
                    self.warnings.push(w);
                }
            }
            for v in &mut pieces.vertices[first..] {
                v.show = [ROAD_LIFT, affine(pts, [a.2, b.2, c.2], v.xy)];
            }
        }
        self.keep_pieces(gi, pieces);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::terrain::Terrain;

    fn seg(points: &[[f32; 2]], heights: [f32; 2]) -> RoadSegment {
        RoadSegment {
            points: points.to_vec(),
            heights,
            ..RoadSegment::default()
        }
    }

    fn look(length: f32, row: RoadRibbon) -> RoadLook {
        RoadLook {
            width: 8.0,
            length,
            rows: vec![row],
            ..RoadLook::default()
        }
    }

    fn row(x: [f32; 2], y: [f32; 2], t_scale: f32) -> RoadRibbon {
        RoadRibbon {
            texture: 0,
            x,
            y,
            s: [0.0, 1.0],
            t_scale,
        }
    }

    fn close(a: [f32; 2], b: [f32; 2]) -> bool {
        (a[0] - b[0]).abs() < 1e-4 && (a[1] - b[1]).abs() < 1e-4
    }

    #[test]
    fn positive_x_lies_right_of_travel() {
        // Northwards: the right is east.
        let s = seg(&[[0.0, 0.0], [0.0, 10.0]], [0.0, 0.0]);
        let r = row([1.0, 3.0], [0.0, 0.0], 1.0);
        let tris = ribbon_triangles(&s, &look(10.0, r), &r);
        assert_eq!(tris.len(), 2);
        let [la, ra, _] = tris[0];
        assert!(
            close(la.0, [1.0, 0.0]) && close(ra.0, [3.0, 0.0]),
            "{tris:?}"
        );
        // Eastwards: the right is south.
        let s = seg(&[[0.0, 0.0], [10.0, 0.0]], [0.0, 0.0]);
        let tris = ribbon_triangles(&s, &look(10.0, r), &r);
        assert!(close(tris[0][1].0, [0.0, -3.0]), "{tris:?}");
    }

    #[test]
    fn mitres_keep_the_width_at_turns_and_are_limited() {
        // A right-angle turn, north then east: the corner's offset is (1, −1), √2 long.
        let m = mitres(&[[0.0, 0.0], [0.0, 10.0], [10.0, 10.0]]);
        assert!(close(m[0], [1.0, 0.0]) && close(m[2], [0.0, -1.0]));
        assert!(close(m[1], [1.0, -1.0]), "{m:?}");
        // A hairpin: the mitre stops at the limit.
        let m = mitres(&[[0.0, 0.0], [0.0, 10.0], [0.1, 0.0]]);
        let len = m[1][0].hypot(m[1][1]);
        assert!(len <= MITRE_LIMIT + 1e-4 && len > 2.0, "{m:?}");
        // Straight on: no change.
        let m = mitres(&[[0.0, 0.0], [0.0, 5.0], [0.0, 10.0]]);
        assert!(close(m[1], [1.0, 0.0]));
    }

    #[test]
    fn t_runs_by_distance_over_length_times_t_scale_and_lift_rises_evenly() {
        let s = seg(&[[0.0, 0.0], [0.0, 10.0], [0.0, 30.0]], [0.0, 6.0]);
        let r = row([-2.0, 2.0], [0.0, 0.5], 2.0);
        let tris = ribbon_triangles(&s, &look(20.0, r), &r);
        assert_eq!(tris.len(), 4);
        // Second stretch: from 10 m to 30 m along.
        let [la, ra, rb] = tris[2];
        assert!((la.1[1] - 10.0 / 20.0 * 2.0).abs() < 1e-5);
        assert!((rb.1[1] - 30.0 / 20.0 * 2.0).abs() < 1e-5);
        assert_eq!((la.1[0], ra.1[0]), (0.0, 1.0));
        // Lift: 6 m over 30 m, plus the right edge's 0.5 m.
        assert!((la.2 - 2.0).abs() < 1e-5 && (ra.2 - 2.5).abs() < 1e-5);
        assert!((rb.2 - 6.5).abs() < 1e-5);
    }

    #[test]
    fn roads_are_cut_along_the_grid_one_draw_per_texture_with_their_lift() {
        let r = row([-4.0, 4.0], [0.0, 0.0], 1.0);
        let scene = Scene {
            road_looks: vec![look(12.0, r)],
            roads: vec![
                seg(&[[0.5, 0.5], [0.5, 9.5]], [0.0, 6.0]),
                seg(&[[-9.5, 0.5], [9.5, 0.5]], [0.0, 0.0]),
            ],
            ..Scene::default()
        };
        let art = ArtSet {
            roads: vec![vec![0]],
            images: vec![crate::art::ImageData::checkerboard("road")],
            ..ArtSet::default()
        };
        let grid = Grid::of(&Terrain::flat(64.0));
        let mut set = DrapedSet::default();
        set.add_roads(&scene, &art, &grid);
        assert_eq!(set.groups.len(), 1, "one texture, one draw");
        let g = &set.groups[0];
        assert_eq!(g.kind, DrapedKind::Road);
        assert_eq!(g.texture, TexSource::Image(0));
        assert!(g.key > LayerGroup::default().draw_key(), "after footprints");
        // Cut at the grid's cells: many more pieces than the four triangles given.
        assert!(g.indices.len() / 3 > 20, "{}", g.indices.len());
        let cell = grid.cell;
        for v in &set.vertices {
            assert_eq!(v.show[0], ROAD_LIFT);
            // Each piece lies inside one cell (its vertices on or inside its lines).
            assert!(v.show[1] >= -1e-4 && v.show[1] <= 6.0 + 1e-4);
        }
        // The rising road's far end is lifted 6 m, its near end not.
        let lift_at = |y: f32| {
            set.vertices
                .iter()
                .filter(|v| (v.xy[1] - y).abs() < 1e-3 && v.xy[0] > 0.0)
                .map(|v| v.show[1])
                .fold(f32::NAN, f32::max)
        };
        assert!((lift_at(9.5) - 6.0).abs() < 1e-3, "{}", lift_at(9.5));
        assert!(cell > 0.0);
    }
}
