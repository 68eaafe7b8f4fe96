//! Facades: walls and roofs built on the CPU, grouped by facade definition and level of
//! detail so each group is two draws (walls, roofs) in `facade.wgsl`.
//!
//! - A type 1 facade (`800 FACADE`, [`FacadeArt::lods`]) is built as X-Plane builds it
//!   ([`panels`]): each side of the footprint gets a wall from its `LEFT`/`CENTER`/`RIGHT`
//!   panels across and `BOTTOM`/`MIDDLE`/`TOP` floors up; `ROOF_SLOPE` leans the top floor in
//!   and the roof, textured from the `ROOF` points, sits on the inset outline. Every `LOD`
//!   is built and drawn only between its distances (the shader tests the camera's distance
//!   to the facade). `RING 0` builds an open line of walls and no roof; `TWO_SIDED` adds the
//!   walls' back faces (facades are culled from behind otherwise, as in X-Plane).
//! - A type 2 facade (`1000 FACADE`, [`FacadeArt::segment_floors`]) places its segments'
//!   meshes along each side, as its wall's spelling says.
//! - Anything else (AGN buildings, image facades, fallbacks) repeats one bay rectangle along
//!   and up the walls in the shader. Its roof is flat, or, for a four-cornered footprint with
//!   a `roof_height` (AGN default roofs), a gable: a ridge along the longer side
//!   `roof_height` above the walls, two slopes, and two gable triangles drawn with the walls.
//!   AGN library objects are drawn the same way, as plain boxes over their footprints.
//!
//! Every wall's foot sinks below the ground (the shader lowers the vertices marked `sink`),
//! so a building on a slope shows a foundation and never floats.

mod panels;
mod segments;

use std::collections::BTreeMap;

use bytemuck::{Pod, Zeroable};

use crate::art::{FacadeArt, PanelLod};
use crate::scene::{FacadeInstance, Scene};

use super::cells::{self, Cell};
use super::geom::{normalized, triangulate, P};
use super::objects::INFINITE_LOD;

/// One facade vertex as uploaded (52 bytes).
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Pod, Zeroable)]
pub struct FacadeVertex {
    pub xy: [f32; 2],
    /// The facade's ground point: its walls stand on the terrain there, its roof is flat.
    pub ground: [f32; 2],
    /// Meters along the wall (for repeated bays), meters above the ground point, sink (1:
    /// lowered a meter below the ground under it), kind (0 wall, 1 roof).
    pub wall: [f32; 4],
    pub normal: [f32; 3],
    /// Texture coordinate (s, t up) of facades laid out from their definition.
    pub uv: [f32; 2],
}

/// What a group of facades is textured with.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum FacadeKey {
    /// `Scene::facade_defs[i]` / `ArtSet::facades[i]`.
    Def(usize),
    /// No facade definition (AGN buildings) or one that is missing: a neutral material.
    Neutral,
    /// AGN library objects, drawn as boxes.
    Library,
}

/// The wall and roof colours of the groups drawn without a texture: neutral facades
/// (no definition) and AGN library objects; `None` for a facade definition's group.
pub fn plain_tints(key: FacadeKey) -> Option<([f32; 3], [f32; 3])> {
    match key {
        FacadeKey::Def(_) => None,
        FacadeKey::Neutral => Some(([0.78, 0.74, 0.66], [0.42, 0.4, 0.38])),
        FacadeKey::Library => Some(([0.55, 0.62, 0.78], [0.4, 0.45, 0.55])),
    }
}

/// The index ranges of one group.
#[derive(Debug, Clone, PartialEq)]
pub struct FacadeGroup {
    pub key: FacadeKey,
    /// The camera distances the group is drawn between (a type 1 `LOD`).
    pub lod: [f32; 2],
    /// True when the vertices carry texture coordinates (type 1 and 2 facades); false when
    /// the shader repeats the definition's bay rectangle.
    pub mapped: bool,
    pub walls: std::ops::Range<u32>,
    pub roofs: std::ops::Range<u32>,
}

#[derive(Debug, Default)]
pub struct FacadeMesh {
    pub vertices: Vec<FacadeVertex>,
    pub indices: Vec<u32>,
    pub groups: Vec<FacadeGroup>,
    pub warnings: Vec<String>,
}

/// Most panels (columns × floors) one side of a type 1 facade is built of.
const MAX_PANELS_PER_SIDE: usize = 16_384;

/// Height of the boxes drawn for AGN library objects, which carry none.
pub(crate) const LIBRARY_OBJECT_HEIGHT: f32 = 8.0;

/// The indices of one group while it is being built.
#[derive(Debug, Default)]
struct Bucket {
    lod: [f32; 2],
    mapped: bool,
    walls: Vec<u32>,
    roofs: Vec<u32>,
}

/// Builds the facades of a scene with their art (`art[i]` for `Scene::facade_defs[i]`; a
/// missing or absent one gives the neutral material). `cell` is the terrain's cell size:
/// wall feet are split about that often so they follow the ground.
pub fn build(scene: &Scene, art: &[FacadeArt], cell: f32) -> FacadeMesh {
    let mut vertices = Vec::new();
    let mut buckets: BTreeMap<(FacadeKey, usize), Bucket> = BTreeMap::new();
    let mut skipped = 0usize;
    let step = if cell.is_finite() && cell > 0.5 {
        cell
    } else {
        0.5
    };
    let repeat_bucket = || Bucket {
        lod: [0.0, INFINITE_LOD],
        ..Bucket::default()
    };
    for f in &scene.facades {
        let key = key_of(f, art);
        // A facade with no walls (a library placeholder `.fac`) draws nothing.
        if let FacadeKey::Def(i) = key {
            if art.get(i).is_some_and(|a| a.no_walls) {
                continue;
            }
        }
        if !(f.height.is_finite() && f.height > 0.0) {
            skipped += 1;
            continue;
        }
        let height = f.height.min(2000.0);
        let def = match key {
            FacadeKey::Def(i) => art.get(i),
            _ => None,
        };
        let built = match def {
            Some(fa) if !fa.lods.is_empty() => {
                let mut any = false;
                for (li, lod) in fa.lods.iter().enumerate() {
                    let b = buckets.entry((key, li)).or_insert_with(|| Bucket {
                        lod: [lod.near.max(0.0), lod.far],
                        mapped: true,
                        ..Bucket::default()
                    });
                    any |= add_panel_facade(&mut vertices, b, fa, lod, f, height, step);
                }
                any
            }
            Some(fa) if !fa.segment_floors.is_empty() => {
                let b = buckets.entry((key, 0)).or_insert_with(|| Bucket {
                    lod: [0.0, INFINITE_LOD],
                    mapped: true,
                    ..Bucket::default()
                });
                segments::add_segment_facade(
                    &mut vertices,
                    &mut b.walls,
                    &mut b.roofs,
                    fa,
                    f,
                    height,
                )
            }
            _ => {
                let ridge = if f.roof_height.is_finite() {
                    f.roof_height.clamp(0.0, 100.0)
                } else {
                    0.0
                };
                let b = buckets.entry((key, 0)).or_insert_with(repeat_bucket);
                add_box(&mut vertices, b, &f.footprint, height, ridge, step)
            }
        };
        if !built {
            skipped += 1;
        }
    }
    for o in &scene.library_objects {
        let b = buckets
            .entry((FacadeKey::Library, 0))
            .or_insert_with(repeat_bucket);
        if !add_box(
            &mut vertices,
            b,
            &o.footprint,
            LIBRARY_OBJECT_HEIGHT,
            0.0,
            step,
        ) {
            skipped += 1;
        }
    }
    let mut mesh = FacadeMesh {
        vertices,
        ..FacadeMesh::default()
    };
    for ((key, _), b) in buckets {
        let w0 = mesh.indices.len() as u32;
        mesh.indices.extend_from_slice(&b.walls);
        let r0 = mesh.indices.len() as u32;
        mesh.indices.extend_from_slice(&b.roofs);
        mesh.groups.push(FacadeGroup {
            key,
            lod: b.lod,
            mapped: b.mapped,
            walls: w0..r0,
            roofs: r0..mesh.indices.len() as u32,
        });
    }
    if skipped > 0 {
        mesh.warnings.push(format!(
            "{skipped} facades have no area or no positive height and are not drawn"
        ));
    }
    mesh
}

/// The cells of the triangles `indices` of `mesh` (a group's walls or roofs, drawn out to
/// `far`, the group's far `LOD`): [`cells::of_triangles`], each with the box its footprint
/// points and ground points fill, up to the highest of its walls and roofs above the ground.
pub fn cells(mesh: &FacadeMesh, indices: std::ops::Range<u32>, far: f32) -> Vec<Cell> {
    cells::of_triangles(&mesh.indices, indices, far, |cell, i| {
        if let Some(v) = mesh.vertices.get(i as usize) {
            let top = if v.wall[1].is_finite() {
                v.wall[1].max(0.0)
            } else {
                0.0
            };
            cell.cover(v.xy, 0.0, top);
            cell.cover(v.ground, 0.0, top);
        }
    })
}

fn key_of(f: &FacadeInstance, art: &[FacadeArt]) -> FacadeKey {
    match f.facade {
        Some(i) if art.get(i).is_some_and(|a| !a.missing) => FacadeKey::Def(i),
        _ => FacadeKey::Neutral,
    }
}

pub(super) fn centroid(poly: &[P]) -> P {
    let n = poly.len().max(1) as f32;
    let s = poly
        .iter()
        .fold([0.0, 0.0], |a, p| [a[0] + p[0], a[1] + p[1]]);
    [s[0] / n, s[1] / n]
}

fn lerp2(a: P, b: P, t: f32) -> P {
    [a[0] + (b[0] - a[0]) * t, a[1] + (b[1] - a[1]) * t]
}

/// The points a facade's walls run through: the footprint as an open line (`RING 0`) or as
/// a cleaned counter-clockwise ring; `None` when too few are left.
pub(super) fn wall_points(fa: &FacadeArt, f: &FacadeInstance) -> Option<Vec<P>> {
    if fa.open {
        open_line(&f.footprint)
    } else {
        normalized(&f.footprint)
    }
}

/// The points of an open line of walls (`RING 0`) in the order given: non-finite and
/// repeated points dropped; `None` under two points.
pub(super) fn open_line(line: &[P]) -> Option<Vec<P>> {
    let mut pts: Vec<P> = Vec::with_capacity(line.len());
    for p in line {
        if !(p[0].is_finite() && p[1].is_finite()) {
            continue;
        }
        if pts
            .last()
            .is_some_and(|q| (q[0] - p[0]).abs() < 1e-4 && (q[1] - p[1]).abs() < 1e-4)
        {
            continue;
        }
        pts.push(*p);
    }
    (pts.len() >= 2).then_some(pts)
}

/// Pushes a quad `a b c d` (counter-clockwise seen from its front) and, when `back`, the
/// same quad seen from behind with the normal turned round.
fn quad(
    vertices: &mut Vec<FacadeVertex>,
    indices: &mut Vec<u32>,
    corners: [FacadeVertex; 4],
    back: bool,
) {
    let s = vertices.len() as u32;
    vertices.extend_from_slice(&corners);
    indices.extend_from_slice(&[s, s + 1, s + 2, s, s + 2, s + 3]);
    if back {
        let s = vertices.len() as u32;
        vertices.extend(corners.iter().map(|v| FacadeVertex {
            normal: [-v.normal[0], -v.normal[1], -v.normal[2]],
            ..*v
        }));
        indices.extend_from_slice(&[s, s + 2, s + 1, s, s + 3, s + 2]);
    }
}

/// The wall a side uses: `FAC_WALLS`' choice when it names one of the LOD's walls, else the
/// first wall whose width range holds the side's length, else the first wall.
fn wall_for(lod: &PanelLod, f: &FacadeInstance, side: usize, len: f32) -> usize {
    if let Some(&w) = f.walls.as_ref().and_then(|w| w.get(side)) {
        if (w as usize) < lod.walls.len() {
            return w as usize;
        }
    }
    lod.walls
        .iter()
        .position(|w| w.min_width <= len && len <= w.max_width)
        .unwrap_or(0)
}

/// The point where the lines `p + t·d` and `q + u·e` meet; `None` when parallel.
fn meet(p: P, d: P, q: P, e: P) -> Option<P> {
    let den = d[0] * e[1] - d[1] * e[0];
    if den.abs() < 1e-6 {
        return None;
    }
    let t = ((q[0] - p[0]) * e[1] - (q[1] - p[1]) * e[0]) / den;
    Some([p[0] + d[0] * t, p[1] + d[1] * t])
}

/// The outline moved inward by `insets[k]` on side `k` (sides `pts[k]→pts[k+1]`; outward is
/// to their right). For an open line the ends move straight in.
fn inset_outline(pts: &[P], insets: &[f32], closed: bool) -> Vec<P> {
    let n = pts.len();
    let sides = if closed { n } else { n - 1 };
    let dir = |k: usize| {
        let (p, q) = (pts[k], pts[(k + 1) % n]);
        let d = [q[0] - p[0], q[1] - p[1]];
        let l = (d[0] * d[0] + d[1] * d[1]).sqrt().max(1e-6);
        [d[0] / l, d[1] / l]
    };
    let moved = |k: usize| {
        let d = dir(k);
        let inward = [-d[1], d[0]];
        let i = insets.get(k).copied().unwrap_or(0.0);
        [pts[k][0] + inward[0] * i, pts[k][1] + inward[1] * i]
    };
    (0..n)
        .map(|k| {
            let prev = if k == 0 {
                closed.then_some(sides - 1)
            } else {
                Some(k - 1)
            };
            let this = (k < sides).then_some(k);
            match (prev, this) {
                (Some(a), Some(b)) => {
                    let pa = moved(a);
                    let pb = moved(b);
                    meet(pa, dir(a), pb, dir(b)).unwrap_or(pb)
                }
                (None, Some(b)) => moved(b),
                (Some(a), None) => {
                    let d = dir(a);
                    let i = insets.get(a).copied().unwrap_or(0.0);
                    [pts[k][0] - d[1] * i, pts[k][1] + d[0] * i]
                }
                (None, None) => pts[k],
            }
        })
        .collect()
}

/// A type 1 facade at one LOD. False when the footprint gives no wall.
fn add_panel_facade(
    vertices: &mut Vec<FacadeVertex>,
    b: &mut Bucket,
    fa: &FacadeArt,
    lod: &PanelLod,
    f: &FacadeInstance,
    height: f32,
    step: f32,
) -> bool {
    let Some(pts) = wall_points(fa, f) else {
        return false;
    };
    let Some(first) = lod.walls.first() else {
        return false;
    };
    let n = pts.len();
    let sides = if fa.open { n - 1 } else { n };
    let roof = !fa.open && !lod.roof.is_empty();
    let floors = panels::floors_for_height(first, fa.floors_min, fa.floors_max, height, roof);
    let ground = centroid(&pts);
    let layouts: Vec<(P, P, f32, panels::WallLayout)> = (0..sides)
        .map(|k| {
            let (p, q) = (pts[k], pts[(k + 1) % n]);
            let len = ((q[0] - p[0]).powi(2) + (q[1] - p[1]).powi(2)).sqrt();
            let w = &lod.walls[wall_for(lod, f, k, len)];
            (p, q, len, panels::layout(w, len, floors, roof))
        })
        .collect();
    let insets: Vec<f32> = layouts.iter().map(|l| l.3.inset).collect();
    let inner = if insets.iter().any(|&i| i != 0.0) {
        inset_outline(&pts, &insets, !fa.open)
    } else {
        pts.clone()
    };
    for (k, (p, q, len, l)) in layouts.iter().enumerate() {
        // A side of absurd size (a tiny SCALE on a long wall) is left out rather than built
        // from millions of panels.
        if *len < 1e-4 || l.columns.len() * l.rows.len() > MAX_PANELS_PER_SIDE {
            continue;
        }
        let (ip, iq) = (inner[k], inner[(k + 1) % n]);
        let d = [(q[0] - p[0]) / len, (q[1] - p[1]) / len];
        let out = [d[1], -d[0]];
        let along_of = |xy: P| ((xy[0] - p[0]) * d[0] + (xy[1] - p[1]) * d[1]) / len;
        for row in &l.rows {
            let normal = if row.sloped {
                let a = (l.inset).atan2((row.up[1] - row.up[0]).max(1e-4));
                [out[0] * a.cos(), out[1] * a.cos(), a.sin()]
            } else {
                [out[0], out[1], 0.0]
            };
            for c in &l.columns {
                let (a, bb) = (lerp2(*p, *q, c.along[0]), lerp2(*p, *q, c.along[1]));
                let (ta, tb) = if row.sloped {
                    (lerp2(ip, iq, c.along[0]), lerp2(ip, iq, c.along[1]))
                } else {
                    (a, bb)
                };
                let span = (c.along[1] - c.along[0]).max(1e-6);
                let s_at = |xy: P| {
                    let f = (along_of(xy) - c.along[0]) / span;
                    c.s[0] + (c.s[1] - c.s[0]) * f
                };
                let v = |xy: P, h: f32, uv: [f32; 2]| FacadeVertex {
                    xy,
                    ground,
                    wall: [0.0, h, 0.0, 0.0],
                    normal,
                    uv,
                };
                quad(
                    vertices,
                    &mut b.walls,
                    [
                        v(a, row.up[0], [c.s[0], row.t[0]]),
                        v(bb, row.up[0], [c.s[1], row.t[0]]),
                        v(tb, row.up[1], [s_at(tb), row.t[1]]),
                        v(ta, row.up[1], [s_at(ta), row.t[1]]),
                    ],
                    fa.two_sided,
                );
            }
        }
        // The foundation: from the wall's foot down below the ground, in the foot's texels.
        let Some(foot) = l.rows.first() else { continue };
        for c in &l.columns {
            let width = (c.along[1] - c.along[0]) * len;
            let pieces = ((width / step).ceil() as u32).clamp(1, 64);
            for s in 0..pieces {
                let f0 = s as f32 / pieces as f32;
                let f1 = (s + 1) as f32 / pieces as f32;
                let at = |f: f32| c.along[0] + (c.along[1] - c.along[0]) * f;
                let sv = |f: f32| c.s[0] + (c.s[1] - c.s[0]) * f;
                let v = |f: f32, sink: f32| FacadeVertex {
                    xy: lerp2(*p, *q, at(f)),
                    ground,
                    wall: [0.0, foot.up[0], sink, 0.0],
                    normal: [out[0], out[1], 0.0],
                    uv: [sv(f), foot.t[0]],
                };
                quad(
                    vertices,
                    &mut b.walls,
                    [v(f0, 1.0), v(f1, 1.0), v(f1, 0.0), v(f0, 0.0)],
                    fa.two_sided,
                );
            }
        }
    }
    if roof {
        let top = layouts.first().map_or(0.0, |l| l.3.height());
        add_mapped_roof(vertices, &mut b.roofs, &inner, &lod.roof, ground, top);
    }
    true
}

/// A flat roof over `outline` at `height`, textured from a type 1 facade's `ROOF` points:
/// with up to four of each, corner `n` takes point `n`; otherwise the points' first and third
/// span the outline's bounding box.
fn add_mapped_roof(
    vertices: &mut Vec<FacadeVertex>,
    indices: &mut Vec<u32>,
    outline: &[P],
    roof: &[[f32; 2]],
    ground: P,
    height: f32,
) {
    if roof.is_empty() || outline.len() < 3 {
        return;
    }
    let (mut lo, mut hi) = ([f32::MAX; 2], [f32::MIN; 2]);
    for p in outline {
        lo = [lo[0].min(p[0]), lo[1].min(p[1])];
        hi = [hi[0].max(p[0]), hi[1].max(p[1])];
    }
    let (r0, r2) = (roof[0], roof[2 % roof.len()]);
    let start = vertices.len() as u32;
    for (k, p) in outline.iter().enumerate() {
        let uv = if roof.len() <= 4 && outline.len() <= 4 {
            roof[k % roof.len()]
        } else {
            let fx = (p[0] - lo[0]) / (hi[0] - lo[0]).max(1e-6);
            let fy = (p[1] - lo[1]) / (hi[1] - lo[1]).max(1e-6);
            [r0[0] + (r2[0] - r0[0]) * fx, r0[1] + (r2[1] - r0[1]) * fy]
        };
        vertices.push(FacadeVertex {
            xy: *p,
            ground,
            wall: [0.0, height, 0.0, 1.0],
            normal: [0.0, 0.0, 1.0],
            uv,
        });
    }
    for [a, b, c] in triangulate(outline) {
        indices.extend_from_slice(&[start + a as u32, start + b as u32, start + c as u32]);
    }
}

/// A building whose walls repeat one bay: walls, a flat or gable roof. False when the
/// footprint has no area.
fn add_box(
    vertices: &mut Vec<FacadeVertex>,
    b: &mut Bucket,
    footprint: &[P],
    height: f32,
    ridge: f32,
    step: f32,
) -> bool {
    let Some(ccw) = normalized(footprint) else {
        return false;
    };
    let ground = centroid(&ccw);
    add_walls(vertices, &mut b.walls, &ccw, ground, height, step);
    match gable(&ccw, ridge) {
        Some(g) => {
            add_gable_ends(vertices, &mut b.walls, &g, ground, height);
            add_gable_roof(vertices, &mut b.roofs, &g, ground, height);
        }
        None => add_roof(vertices, &mut b.roofs, &ccw, ground, height),
    }
    true
}

fn add_walls(
    vertices: &mut Vec<FacadeVertex>,
    indices: &mut Vec<u32>,
    ccw: &[P],
    ground: P,
    height: f32,
    step: f32,
) {
    let n = ccw.len();
    for k in 0..n {
        let (p, q) = (ccw[k], ccw[(k + 1) % n]);
        let d = [q[0] - p[0], q[1] - p[1]];
        let len = (d[0] * d[0] + d[1] * d[1]).sqrt();
        if len < 1e-4 {
            continue;
        }
        // Counter-clockwise outline: outward is to the right of the edge.
        let normal = [d[1] / len, -d[0] / len, 0.0];
        let pieces = ((len / step).ceil() as u32).clamp(1, 64);
        let start = vertices.len() as u32;
        for s in 0..=pieces {
            let t = s as f32 / pieces as f32;
            let xy = [p[0] + d[0] * t, p[1] + d[1] * t];
            for (h, sink) in [(0.0, 1.0), (height, 0.0)] {
                vertices.push(FacadeVertex {
                    xy,
                    ground,
                    wall: [len * t, h, sink, 0.0],
                    normal,
                    uv: [0.0; 2],
                });
            }
        }
        for s in 0..pieces {
            let b0 = start + 2 * s;
            let (t0, b1, t1) = (b0 + 1, b0 + 2, b0 + 3);
            indices.extend_from_slice(&[b0, b1, t1, b0, t1, t0]);
        }
    }
}

/// A gable roof over a four-cornered footprint: the corners turned so that `c[0]→c[1]` is
/// a long side, the ridge from the middle of `c[3]c[0]` to the middle of `c[1]c[2]`, and the
/// ridge's height above the walls.
#[derive(Debug, Clone, PartialEq)]
pub struct Gable {
    c: [P; 4],
    ridge: [P; 2],
    rise: f32,
}

fn gable(ccw: &[P], rise: f32) -> Option<Gable> {
    if ccw.len() != 4 || rise.is_nan() || rise <= 0.0 {
        return None;
    }
    let len = |a: P, b: P| ((b[0] - a[0]).powi(2) + (b[1] - a[1]).powi(2)).sqrt();
    let k = usize::from(len(ccw[1], ccw[2]) > len(ccw[0], ccw[1]));
    let c = [ccw[k], ccw[(k + 1) % 4], ccw[(k + 2) % 4], ccw[(k + 3) % 4]];
    let mid = |a: P, b: P| [(a[0] + b[0]) / 2.0, (a[1] + b[1]) / 2.0];
    Some(Gable {
        c,
        ridge: [mid(c[3], c[0]), mid(c[1], c[2])],
        rise,
    })
}

/// The outward normal of a counter-clockwise edge a→b.
fn outward(a: P, b: P) -> P {
    let d = [b[0] - a[0], b[1] - a[1]];
    let l = (d[0] * d[0] + d[1] * d[1]).sqrt().max(1e-6);
    [d[1] / l, -d[0] / l]
}

/// The two gable triangles, drawn with the walls (they are wall above the short sides).
fn add_gable_ends(
    vertices: &mut Vec<FacadeVertex>,
    indices: &mut Vec<u32>,
    g: &Gable,
    ground: P,
    height: f32,
) {
    let c = g.c;
    for (a, b, apex) in [(c[1], c[2], g.ridge[1]), (c[3], c[0], g.ridge[0])] {
        let n = outward(a, b);
        let w = ((b[0] - a[0]).powi(2) + (b[1] - a[1]).powi(2)).sqrt();
        let start = vertices.len() as u32;
        for (xy, along, h) in [
            (a, 0.0, height),
            (b, w, height),
            (apex, w / 2.0, height + g.rise),
        ] {
            vertices.push(FacadeVertex {
                xy,
                ground,
                wall: [along, h, 0.0, 0.0],
                normal: [n[0], n[1], 0.0],
                uv: [0.0; 2],
            });
        }
        indices.extend_from_slice(&[start, start + 1, start + 2]);
    }
}

/// The two slopes of a gable roof, each from its long side up to the ridge.
fn add_gable_roof(
    vertices: &mut Vec<FacadeVertex>,
    indices: &mut Vec<u32>,
    g: &Gable,
    ground: P,
    height: f32,
) {
    let c = g.c;
    let depth = ((c[2][0] - c[1][0]).powi(2) + (c[2][1] - c[1][1]).powi(2)).sqrt();
    let slope = g.rise / (depth / 2.0).max(1e-3);
    let [ra, rb] = g.ridge;
    for (a, b, r1, r2) in [(c[0], c[1], rb, ra), (c[2], c[3], ra, rb)] {
        let n = outward(a, b);
        let k = (slope * slope + 1.0).sqrt();
        let normal = [n[0] * slope / k, n[1] * slope / k, 1.0 / k];
        let start = vertices.len() as u32;
        for (xy, h) in [
            (a, height),
            (b, height),
            (r1, height + g.rise),
            (r2, height + g.rise),
        ] {
            vertices.push(FacadeVertex {
                xy,
                ground,
                wall: [0.0, h, 0.0, 1.0],
                normal,
                uv: [0.0; 2],
            });
        }
        indices.extend_from_slice(&[start, start + 1, start + 2, start, start + 2, start + 3]);
    }
}

fn add_roof(
    vertices: &mut Vec<FacadeVertex>,
    indices: &mut Vec<u32>,
    ccw: &[P],
    ground: P,
    height: f32,
) {
    let start = vertices.len() as u32;
    for p in ccw {
        vertices.push(FacadeVertex {
            xy: *p,
            ground,
            wall: [0.0, height, 0.0, 1.0],
            normal: [0.0, 0.0, 1.0],
            uv: [0.0; 2],
        });
    }
    for [a, b, c] in triangulate(ccw) {
        indices.extend_from_slice(&[start + a as u32, start + b as u32, start + c as u32]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scene::LibraryObject;

    fn facade(def: Option<usize>, footprint: Vec<P>, height: f32) -> FacadeInstance {
        FacadeInstance {
            facade: def,
            footprint,
            height,
            ..FacadeInstance::default()
        }
    }

    #[test]
    fn facades_are_culled_by_cells_of_their_ground_and_height() {
        use crate::camera::{frustum_planes, Camera};
        use crate::cells::{visible, CellView};
        // A gabled house ahead of the camera (walls 6 m, ridge 9 m) and one 5 km behind.
        let square = |x: f32| vec![[x, 0.0], [x + 20.0, 0.0], [x + 20.0, 10.0], [x, 10.0]];
        let mut ahead = facade(None, square(0.0), 6.0);
        ahead.roof_height = 3.0;
        let behind = facade(None, square(-5000.0), 6.0);
        let scene = Scene {
            facades: vec![ahead, behind],
            ..Scene::default()
        };
        let mesh = build(&scene, &[], 100.0);
        let g = &mesh.groups[0];
        let walls = cells(&mesh, g.walls.clone(), g.lod[1]);
        // One cell per house: the 5 km between them is wider than a cell.
        assert_eq!(walls.len(), 2);
        assert_eq!(
            (walls[0].lo, walls[0].hi, walls[0].top),
            ([0.0, 0.0], [20.0, 10.0], 9.0)
        );
        assert_eq!(walls[0].first + walls[0].count, walls[1].first);
        assert_eq!(walls[1].first + walls[1].count, g.walls.end);
        // Looking east from 100 m west of the first house: the second is left out.
        let camera = Camera::free(-100.0, 5.0, 2.0, 90.0, 0.0);
        let view = CellView {
            planes: frustum_planes(camera.view_proj(16.0 / 9.0)),
            eye: camera.lod_eye(),
            ground: (0.0, 0.0),
            haze_end: f32::INFINITY,
        };
        let first = walls[0].first..walls[0].first + walls[0].count;
        assert_eq!(visible(&walls, &view), vec![first]);
        // A haze that ends before the first house hides both.
        let hazy = CellView {
            haze_end: 50.0,
            ..view
        };
        assert!(visible(&walls, &hazy).is_empty());
    }

    #[test]
    fn a_roof_height_gives_a_gable_along_the_longer_side() {
        // 20 m east-west by 10 m: ridge 3 m above the 6 m walls, running east-west at y = 5.
        let mut f = facade(
            None,
            vec![[0.0, 0.0], [20.0, 0.0], [20.0, 10.0], [0.0, 10.0]],
            6.0,
        );
        f.roof_height = 3.0;
        let scene = Scene {
            facades: vec![f.clone()],
            ..Scene::default()
        };
        let mesh = build(&scene, &[], 100.0);
        let g = &mesh.groups[0];
        // Two slopes of two triangles each.
        assert_eq!(g.roofs.len(), 12);
        let roof: Vec<&FacadeVertex> = mesh.indices[g.roofs.start as usize..g.roofs.end as usize]
            .iter()
            .map(|&i| &mesh.vertices[i as usize])
            .collect();
        let top: Vec<[f32; 2]> = roof
            .iter()
            .filter(|v| v.wall[1] == 9.0)
            .map(|v| v.xy)
            .collect();
        assert!(
            !top.is_empty() && top.iter().all(|p| p[1] == 5.0),
            "{top:?}"
        );
        // The slopes lean outward: the southern one's normal points south (and up).
        let south = roof.iter().find(|v| v.xy == [0.0, 0.0]).unwrap();
        assert!(south.normal[1] < 0.0 && (south.normal[1] / south.normal[2] + 0.6).abs() < 1e-5);
        // The gable ends are drawn with the walls: 4 walls (8 triangles) + 2 triangles.
        assert_eq!(g.walls.len(), 8 * 3 + 2 * 3);
        // Without a roof height: flat, as before.
        f.roof_height = 0.0;
        let flat = build(
            &Scene {
                facades: vec![f],
                ..Scene::default()
            },
            &[],
            100.0,
        );
        assert_eq!(flat.groups[0].roofs.len(), 6);
        assert!(flat
            .vertices
            .iter()
            .filter(|v| v.wall[2] == 0.0)
            .all(|v| v.wall[1] == 6.0));
    }

    #[test]
    fn a_facade_with_no_walls_draws_nothing() {
        let square = vec![[0.0, 0.0], [10.0, 0.0], [10.0, 10.0], [0.0, 10.0]];
        let scene = Scene {
            facades: vec![facade(Some(0), square, 12.0)],
            ..Scene::default()
        };
        let art = [FacadeArt {
            no_walls: true,
            ..FacadeArt::default()
        }];
        let mesh = build(&scene, &art, 5.0);
        assert!(mesh.vertices.is_empty());
        assert!(mesh
            .groups
            .iter()
            .all(|g| g.walls.is_empty() && g.roofs.is_empty()));
    }

    #[test]
    fn walls_roofs_and_groups() {
        let square = vec![[0.0, 0.0], [10.0, 0.0], [10.0, 10.0], [0.0, 10.0]];
        let scene = Scene {
            facades: vec![
                facade(Some(0), square.clone(), 12.0),
                facade(None, square.clone(), 6.0),
                facade(Some(1), square.clone(), 6.0),
                facade(Some(0), square.clone(), -1.0),
            ],
            library_objects: vec![LibraryObject {
                footprint: [[0.0, 0.0], [1.0, 0.0], [1.0, 1.0], [0.0, 1.0]],
                ..LibraryObject::default()
            }],
            ..Scene::default()
        };
        // Definition 1 has no art: neutral.
        let art = [
            FacadeArt::default(),
            FacadeArt {
                missing: true,
                ..FacadeArt::default()
            },
        ];
        let mesh = build(&scene, &art, 5.0);
        let keys: Vec<FacadeKey> = mesh.groups.iter().map(|g| g.key).collect();
        assert_eq!(
            keys,
            vec![FacadeKey::Def(0), FacadeKey::Neutral, FacadeKey::Library]
        );
        // Def(0): 4 walls of 2 pieces (10 m at 5 m cells) = 8 quads; a 2-triangle roof.
        assert_eq!(mesh.groups[0].walls.len(), 8 * 6);
        assert_eq!(mesh.groups[0].roofs.len(), 6);
        // Neutral holds two facades.
        assert_eq!(mesh.groups[1].roofs.len(), 12);
        assert_eq!(mesh.warnings.len(), 1);
        // Outward normals: the south wall faces south.
        let v = mesh.vertices[0];
        assert_eq!(v.normal, [0.0, -1.0, 0.0]);
        assert_eq!(v.ground, [5.0, 5.0]);
    }

    #[test]
    fn clockwise_and_degenerate_footprints() {
        let cw = vec![[0.0, 0.0], [0.0, 10.0], [10.0, 10.0], [10.0, 0.0]];
        let scene = Scene {
            facades: vec![
                facade(None, cw, 3.0),
                facade(None, vec![[0.0, 0.0], [1.0, 1.0]], 3.0),
            ],
            ..Scene::default()
        };
        let mesh = build(&scene, &[], 100.0);
        // Every wall faces away from the middle.
        for v in mesh.vertices.iter().filter(|v| v.wall[3] == 0.0) {
            let out = [v.xy[0] - v.ground[0], v.xy[1] - v.ground[1]];
            assert!(v.normal[0] * out[0] + v.normal[1] * out[1] > 0.0, "{v:?}");
        }
        assert_eq!(mesh.warnings.len(), 1);
    }
}

#[cfg(test)]
mod layout_tests {
    use super::*;
    use crate::art::{MeshVertex, PanelWall, SegmentArt, SegmentFloor, SegmentWall};

    fn brick_wall() -> PanelWall {
        let px = |a: f32, b: f32| [a / 512.0, b / 512.0];
        PanelWall {
            max_width: 1000.0,
            scale: [16.0, 16.0],
            left: vec![px(0.0, 32.0)],
            center: vec![px(32.0, 480.0)],
            right: vec![px(480.0, 512.0)],
            bottom: vec![px(0.0, 128.0)],
            middle: vec![px(128.0, 224.0)],
            top: vec![px(224.0, 288.0)],
            ..PanelWall::default()
        }
    }

    fn brick() -> FacadeArt {
        FacadeArt {
            lods: vec![PanelLod {
                near: 0.0,
                far: 4000.0,
                walls: vec![brick_wall()],
                roof: vec![[0.0, 0.625], [1.0, 0.625], [1.0, 1.0], [0.0, 1.0]],
            }],
            floors_min: 1,
            floors_max: 6,
            ..FacadeArt::default()
        }
    }

    fn scene_of(footprint: Vec<P>, height: f32) -> Scene {
        Scene {
            facades: vec![FacadeInstance {
                facade: Some(0),
                footprint,
                height,
                ..FacadeInstance::default()
            }],
            ..Scene::default()
        }
    }

    fn square() -> Vec<P> {
        vec![[0.0, 0.0], [20.0, 0.0], [20.0, 10.0], [0.0, 10.0]]
    }

    fn wall_vertices(mesh: &FacadeMesh, g: usize) -> Vec<FacadeVertex> {
        let r = mesh.groups[g].walls.clone();
        mesh.indices[r.start as usize..r.end as usize]
            .iter()
            .map(|&i| mesh.vertices[i as usize])
            .collect()
    }

    #[test]
    fn a_type_1_facade_is_built_from_its_panels_with_a_mapped_roof() {
        let mesh = build(&scene_of(square(), 12.0), &[brick()], 100.0);
        assert_eq!(mesh.groups.len(), 1);
        let g = &mesh.groups[0];
        assert!(g.mapped && g.lod == [0.0, 4000.0]);
        let walls = wall_vertices(&mesh, 0);
        // The floors' texture rows: shop (t 0–0.25), upper (0.25–0.4375), cornice up to 0.5625.
        let mut ts: Vec<i32> = walls.iter().map(|v| (v.uv[1] * 512.0) as i32).collect();
        ts.sort();
        ts.dedup();
        assert_eq!(ts, [0, 128, 224, 288]);
        // Heights: 4, 7, 10 and 12 m.
        let mut hs: Vec<i32> = walls.iter().map(|v| v.wall[1] as i32).collect();
        hs.sort();
        hs.dedup();
        assert_eq!(hs, [0, 4, 7, 10, 12]);
        // The roof is at 12 m with the ROOF points on its corners.
        let r = g.roofs.clone();
        let roof: Vec<FacadeVertex> = mesh.indices[r.start as usize..r.end as usize]
            .iter()
            .map(|&i| mesh.vertices[i as usize])
            .collect();
        assert_eq!(roof.len(), 6);
        assert!(roof.iter().all(|v| v.wall[1] == 12.0 && v.wall[3] == 1.0));
        let sw = roof.iter().find(|v| v.xy == [0.0, 0.0]).unwrap();
        let ne = roof.iter().find(|v| v.xy == [20.0, 10.0]).unwrap();
        assert_eq!((sw.uv, ne.uv), ([0.0, 0.625], [1.0, 1.0]));
    }

    #[test]
    fn ring_0_is_an_open_line_of_walls_without_a_roof() {
        let mut fence = brick();
        fence.open = true;
        // Three points: two walls, not a closed triangle.
        let line = vec![[0.0, 0.0], [20.0, 0.0], [20.0, 20.0]];
        let mesh = build(&scene_of(line, 4.0), &[fence], 100.0);
        let g = &mesh.groups[0];
        assert!(g.roofs.is_empty());
        // No wall on the closing side (x = y, between the ends).
        for v in wall_vertices(&mesh, 0) {
            let on_first = v.xy[1] == 0.0;
            let on_second = v.xy[0] == 20.0;
            assert!(on_first || on_second, "{v:?}");
        }
        // A clockwise line is not turned round: the first wall faces right of its direction.
        let v = wall_vertices(&mesh, 0)[0];
        assert_eq!(v.normal, [0.0, -1.0, 0.0]);
    }

    #[test]
    fn two_sided_facades_carry_back_faces() {
        let one = build(&scene_of(square(), 12.0), &[brick()], 100.0);
        let mut fa = brick();
        fa.two_sided = true;
        let two = build(&scene_of(square(), 12.0), &[fa], 100.0);
        assert_eq!(two.groups[0].walls.len(), 2 * one.groups[0].walls.len());
        // The roof stays one-sided.
        assert_eq!(two.groups[0].roofs.len(), one.groups[0].roofs.len());
        // Each back face turns its normal round.
        let ws = wall_vertices(&two, 0);
        assert!(ws
            .iter()
            .any(|v| v.normal == [0.0, 1.0, 0.0] && v.xy[1] == 0.0));
    }

    #[test]
    fn each_lod_is_a_group_drawn_between_its_distances() {
        let mut fa = brick();
        let mut far = brick_wall();
        far.left.clear();
        far.right.clear();
        fa.lods.push(PanelLod {
            near: 4000.0,
            far: 10000.0,
            walls: vec![far],
            roof: Vec::new(),
        });
        let mesh = build(&scene_of(square(), 12.0), &[fa], 100.0);
        let lods: Vec<[f32; 2]> = mesh.groups.iter().map(|g| g.lod).collect();
        assert_eq!(lods, [[0.0, 4000.0], [4000.0, 10000.0]]);
        assert!(mesh.groups.iter().all(|g| g.key == FacadeKey::Def(0)));
        // The far set is its own walls: no pier texels, and no roof.
        assert!(wall_vertices(&mesh, 1)
            .iter()
            .all(|v| v.uv[0] >= 32.0 / 512.0 - 1e-6 && v.uv[0] <= 480.0 / 512.0 + 1e-6));
        assert!(mesh.groups[1].roofs.is_empty());
    }

    #[test]
    fn walls_are_chosen_by_fac_walls_then_by_width() {
        let mut narrow = brick_wall();
        narrow.max_width = 12.0;
        let mut wide = brick_wall();
        wide.min_width = 12.0;
        let lod = PanelLod {
            walls: vec![narrow, wide],
            ..PanelLod::default()
        };
        let mut f = FacadeInstance::default();
        assert_eq!(wall_for(&lod, &f, 0, 20.0), 1);
        assert_eq!(wall_for(&lod, &f, 1, 10.0), 0);
        f.walls = Some(vec![0, 7]);
        assert_eq!(wall_for(&lod, &f, 0, 20.0), 0);
        // An index past the walls falls back to the width rule.
        assert_eq!(wall_for(&lod, &f, 1, 20.0), 1);
    }

    #[test]
    fn a_sloped_roof_sits_on_the_inset_outline() {
        let mut fa = brick();
        fa.lods[0].walls[0].roof_slope = 45.0;
        let mesh = build(&scene_of(square(), 12.0), &[fa], 100.0);
        let r = mesh.groups[0].roofs.clone();
        let roof: Vec<P> = mesh.indices[r.start as usize..r.end as usize]
            .iter()
            .map(|&i| mesh.vertices[i as usize].xy)
            .collect();
        // The 2 m cornice leans in 2 m on every side.
        for p in roof {
            assert!(
                (p[0] - 2.0).abs() < 1e-4 || (p[0] - 18.0).abs() < 1e-4,
                "{p:?}"
            );
            assert!(
                (p[1] - 2.0).abs() < 1e-4 || (p[1] - 8.0).abs() < 1e-4,
                "{p:?}"
            );
        }
        // Its wall panels lean out-and-up.
        assert!(wall_vertices(&mesh, 0)
            .iter()
            .any(|v| v.normal[2] > 0.7 && v.normal[2] < 0.71));
    }

    #[test]
    fn a_type_2_facade_places_its_segments_along_each_side() {
        // One 5 m segment: a quad facing +x, 3 m tall; roof at 3 m.
        let vtx = |z: f32, y: f32, u: f32, v: f32| MeshVertex {
            pos: [0.0, y, z],
            normal: [1.0, 0.0, 0.0],
            uv: [u, v],
        };
        let seg = SegmentArt {
            vertices: vec![
                vtx(0.0, 0.0, 0.0, 0.0),
                vtx(-5.0, 0.0, 1.0, 0.0),
                vtx(-5.0, 3.0, 1.0, 1.0),
                vtx(0.0, 3.0, 0.0, 1.0),
            ],
            indices: vec![0, 1, 2, 0, 2, 3],
        };
        let fa = FacadeArt {
            segment_floors: vec![SegmentFloor {
                segments: vec![seg],
                walls: vec![SegmentWall {
                    min_width: 0.0,
                    max_width: 1000.0,
                    spellings: vec![vec![0]],
                }],
                roof_heights: vec![3.0],
            }],
            roof_scale: [10.0, 10.0],
            ..FacadeArt::default()
        };
        let mesh = build(&scene_of(square(), 3.0), &[fa], 100.0);
        let g = &mesh.groups[0];
        assert!(g.mapped);
        let ws = wall_vertices(&mesh, 0);
        // 20 m sides take four segments, 10 m sides two: (4 + 2) × 2 quads.
        assert_eq!(ws.len(), 12 * 6);
        // Every vertex lies on the footprint, and each wall faces out.
        for v in &ws {
            let on = v.xy[0].abs() < 1e-4
                || (v.xy[0] - 20.0).abs() < 1e-4
                || v.xy[1].abs() < 1e-4
                || (v.xy[1] - 10.0).abs() < 1e-4;
            assert!(on, "{v:?}");
            let out = [v.xy[0] - 10.0, v.xy[1] - 5.0];
            assert!(v.normal[0] * out[0] + v.normal[1] * out[1] > 0.0, "{v:?}");
        }
        assert!(g.roofs.len() == 6);
    }

    /// The tests' hangar (`format::facade::test_hangar_fac`) as the art loader reads it.
    fn hangar() -> FacadeArt {
        // One folder per call: the tests run in parallel and each removes its own.
        static CALLS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
        let call = CALLS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let dir =
            std::env::temp_dir().join(format!("agview-mesh-hangar-{}-{call}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("hangar.fac");
        std::fs::write(
            &path,
            agview_format::format::facade::test_hangar_fac("h.png"),
        )
        .unwrap();
        let mut w = Vec::new();
        let art = crate::art::load_facade(&path, &mut crate::art::ImagePool::new(), &mut w);
        let _ = std::fs::remove_dir_all(&dir);
        assert!(art.axial && art.open, "{w:?}");
        art
    }

    /// Where a facade's wall vertices lie, along and across the axis `p → q`: `[min, max]`
    /// of each, and the highest point.
    fn extent_on_axis(vs: &[FacadeVertex], p: P, q: P) -> ([f32; 2], [f32; 2], f32) {
        let len = ((q[0] - p[0]).powi(2) + (q[1] - p[1]).powi(2)).sqrt();
        let d = [(q[0] - p[0]) / len, (q[1] - p[1]) / len];
        let (mut along, mut across, mut top) = ([f32::MAX, f32::MIN], [f32::MAX, f32::MIN], 0f32);
        for v in vs {
            let r = [v.xy[0] - p[0], v.xy[1] - p[1]];
            let a = r[0] * d[0] + r[1] * d[1];
            let c = r[0] * d[1] - r[1] * d[0];
            along = [along[0].min(a), along[1].max(a)];
            across = [across[0].min(c), across[1].max(c)];
            top = top.max(v.wall[1]);
        }
        (along, across, top)
    }

    #[test]
    fn a_2_point_hangar_is_as_long_as_its_axis_and_as_wide_as_its_segments() {
        let art = hangar();
        for (p, q) in [
            ([0.0, 0.0], [0.0, 20.0]),
            ([5.0, 5.0], [5.0 + 40.0 * 0.6, 5.0 + 40.0 * 0.8]),
        ] {
            let len = f32::hypot(q[0] - p[0], q[1] - p[1]);
            let mesh = build(
                &scene_of(vec![p, q], 8.0),
                std::slice::from_ref(&art),
                100.0,
            );
            let ws = wall_vertices(&mesh, 0);
            assert!(!ws.is_empty());
            let (along, across, top) = extent_on_axis(&ws, p, q);
            // The length follows the points; the width and the ridge are the facade's.
            assert!(
                along[0].abs() < 1e-3 && (along[1] - len).abs() < 1e-3,
                "{len}: {along:?}"
            );
            assert!(
                (across[0] + 6.0).abs() < 1e-3 && (across[1] - 6.0).abs() < 1e-3,
                "{across:?}"
            );
            assert!((top - 7.5).abs() < 1e-4, "{top}");
            // The door (the texture's lower-left quarter) is at the front, the first point.
            let door: Vec<&FacadeVertex> = ws
                .iter()
                .filter(|v| v.uv[0] < 0.25 && v.uv[1] < 0.5)
                .collect();
            assert!(!door.is_empty());
            let (da, _, _) = extent_on_axis(&door.iter().map(|v| **v).collect::<Vec<_>>(), p, q);
            assert!(da[1] < 1.0, "the door is the front end: {da:?}");
        }
    }

    #[test]
    fn a_2_point_facade_given_more_points_draws_its_first_side() {
        let art = hangar();
        let pts = vec![[0.0, 0.0], [0.0, 20.0], [30.0, 20.0]];
        let mesh = build(&scene_of(pts, 8.0), &[art], 100.0);
        let ws = wall_vertices(&mesh, 0);
        let (along, across, _) = extent_on_axis(&ws, [0.0, 0.0], [0.0, 20.0]);
        assert!(
            (along[1] - 20.0).abs() < 1e-3 && across[1] <= 6.0 + 1e-3,
            "{along:?} {across:?}"
        );
    }

    #[test]
    fn the_axial_spelling_keeps_its_ends_once() {
        let widths = [0.3, 6.0, 0.3];
        let s = [vec![0, 1, 2], vec![0, 1, 1, 2]];
        assert_eq!(segments::axial_spelling(&s, &widths, 12.0), [0, 1, 1, 2]);
        assert_eq!(segments::axial_spelling(&s, &widths, 7.0), [0, 1, 2]);
        // Past the longest, its middle repeats between the ends.
        assert_eq!(
            segments::axial_spelling(&s, &widths, 30.0),
            [0, 1, 1, 1, 1, 1, 2]
        );
        // Nothing usable, or absurd lengths: bounded, never a loop.
        assert_eq!(segments::axial_spelling(&[vec![9]], &widths, 100.0), [9]);
        assert!(segments::axial_spelling(&s, &widths, 1e9).len() <= 600);
    }

    #[test]
    fn the_spelling_fills_the_side() {
        let widths = [5.0, 2.0];
        assert_eq!(pick(&[vec![0]], &widths, 20.0), [0, 0, 0, 0]);
        assert_eq!(pick(&[vec![1], vec![0]], &widths, 7.0).len(), 2);
        assert_eq!(pick(&[vec![0]], &widths, 1.0), [0]);
        // A spelling of nothing usable still gives something, never loops.
        assert_eq!(pick(&[vec![9]], &widths, 100.0), [9]);
    }

    fn pick(s: &[Vec<u32>], w: &[f32], len: f32) -> Vec<u32> {
        segments::pick_spelling(s, w, len)
    }

    #[test]
    fn absurd_sizes_stay_bounded() {
        // 1 cm per texture on a 1 km wall, 2 km tall: the side is left out.
        let mut fa = brick();
        fa.floors_max = 9999;
        fa.lods[0].walls[0].scale = [0.01, 0.01];
        let mesh = build(
            &scene_of(vec![[0.0, 0.0], [1000.0, 0.0], [1000.0, 10.0]], 2000.0),
            &[fa],
            100.0,
        );
        assert!(
            mesh.vertices.len() < 4 * 4 * MAX_PANELS_PER_SIDE,
            "{}",
            mesh.vertices.len()
        );
    }

    #[test]
    fn bad_footprints_and_sizes_do_not_panic() {
        let mut fa = brick();
        fa.lods[0].walls[0].scale = [0.0, f32::NAN];
        for fp in [
            vec![],
            vec![[0.0, 0.0]],
            vec![[f32::NAN, 0.0], [1.0, 1.0], [2.0, 0.0]],
            vec![[0.0, 0.0], [1e9, 0.0], [1e9, 1e9]],
        ] {
            for open in [false, true] {
                fa.open = open;
                let _ = build(&scene_of(fp.clone(), 1e9), &[fa.clone()], 1.0);
            }
        }
    }
}
