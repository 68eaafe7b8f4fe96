//! Type 2 (`1000 FACADE`) walls built from their segments' meshes.
//!
//! The floor drawn is the one whose highest `ROOF_HEIGHT` is nearest the facade's height.
//! Each side takes the wall `FAC_WALLS` names, else the first whose width range holds the
//! side's length, and picks a spelling to fill the side (as WED's `UTL_pick_spelling`: the
//! middle spelling repeated while the side is longer, then the one that comes nearest). The
//! spelling's segments are placed one after the other and scaled along the side so they fill
//! it exactly. In a segment +y is up, z runs along the wall (toward −z) and x across it;
//! which side of x is outside is read from the meshes' normals.
//!
//! A 2-point axial facade (`FacadeArt::axial`, XP12.md §3) is one side from its first point
//! to its second, the front-to-back axis: its segments are whole cross-sections, placed with
//! x as written (the width is the facade's, never scaled) and z scaled to the length. Its
//! spelling is [`axial_spelling`]: the first and last segments are the ends. Points past the
//! second are not drawn (the document stage warns).

use crate::art::{FacadeArt, SegmentArt, SegmentFloor};
use crate::scene::FacadeInstance;

use super::super::geom::{triangulate, P};
use super::{centroid, wall_points, FacadeVertex};

/// Most segments placed along one side.
const MAX_SEGMENTS: usize = 512;

/// A segment's width along the wall (its extent toward −z) and whether its outside is −x.
fn measure(seg: &SegmentArt) -> (f32, bool) {
    let mut w = 0.0f32;
    let mut nx = 0.0f32;
    for v in &seg.vertices {
        w = w.max(-v.pos[2]);
        nx += v.normal[0];
    }
    (w, nx < 0.0)
}

/// The floor nearest `height` by its highest roof; the first when none has a roof.
fn floor_for(floors: &[SegmentFloor], height: f32) -> Option<&SegmentFloor> {
    let top = |f: &SegmentFloor| f.roof_heights.iter().copied().fold(f32::NAN, f32::max);
    floors
        .iter()
        .filter(|f| top(f).is_finite())
        .min_by(|a, b| (top(a) - height).abs().total_cmp(&(top(b) - height).abs()))
        .or(floors.first())
}

/// The segments that fill a side `len` meters long, from a wall's spellings.
pub(super) fn pick_spelling(spellings: &[Vec<u32>], widths: &[f32], len: f32) -> Vec<u32> {
    let total = |s: &[u32]| -> f32 {
        s.iter()
            .map(|&i| widths.get(i as usize).copied().unwrap_or(0.0))
            .sum()
    };
    let usable: Vec<&Vec<u32>> = spellings.iter().filter(|s| total(s) > 1e-4).collect();
    let Some(last) = usable.last() else {
        return spellings.first().cloned().unwrap_or_default();
    };
    let mid = usable[usable.len() / 2];
    let mut out: Vec<u32> = Vec::new();
    let mut sum = 0.0;
    while sum + total(last) < len && out.len() < MAX_SEGMENTS {
        out.extend_from_slice(mid);
        sum += total(mid);
    }
    let best = usable
        .iter()
        .min_by(|a, b| {
            ((sum + total(a)) - len)
                .abs()
                .total_cmp(&((sum + total(b)) - len).abs())
        })
        .filter(|s| ((sum + total(s)) - len).abs() < (sum - len).abs() || out.is_empty());
    if let Some(s) = best {
        out.extend_from_slice(s);
    }
    out
}

/// A 2-point axial facade's segments for an axis `len` meters long: the spelling whose
/// length is nearest; past the longest, the longest with its inner segments (all but its
/// first and last, the ends) repeated in turn to come nearest. **UNCONFIRMED** (X-Plane's rule is
/// not published): the ends appear once, as "segment types give the ends" says.
pub(super) fn axial_spelling(spellings: &[Vec<u32>], widths: &[f32], len: f32) -> Vec<u32> {
    let total = |s: &[u32]| -> f32 {
        s.iter()
            .map(|&i| widths.get(i as usize).copied().unwrap_or(0.0))
            .sum()
    };
    let usable: Vec<&Vec<u32>> = spellings.iter().filter(|s| total(s) > 1e-4).collect();
    let Some(nearest) = usable
        .iter()
        .min_by(|a, b| (total(a) - len).abs().total_cmp(&(total(b) - len).abs()))
    else {
        return spellings.first().cloned().unwrap_or_default();
    };
    let mut best = (*nearest).clone();
    let longest = usable
        .iter()
        .max_by(|a, b| total(a).total_cmp(&total(b)))
        .copied()
        .unwrap_or(nearest);
    let inner = &longest[1.min(longest.len())..longest.len().saturating_sub(1)];
    if len > total(longest) && longest.len() >= 3 && total(inner) > 1e-4 {
        // The inner segments in turn, while one more comes nearer the length.
        let mut s = vec![longest[0]];
        let mut sum = total(longest) - total(inner);
        for (k, &seg) in inner.iter().cycle().enumerate().take(MAX_SEGMENTS) {
            let w = total(&[seg]);
            if k >= inner.len() && (sum + w - len).abs() >= (sum - len).abs() {
                break;
            }
            s.push(seg);
            sum += w;
        }
        s.push(longest[longest.len() - 1]);
        if (total(&s) - len).abs() < (total(&best) - len).abs() {
            best = s;
        }
    }
    best
}

/// A type 2 facade: walls from segments, and a roof at the floor's highest `ROOF_HEIGHT`
/// textured every `ROOF_SCALE` meters. False when the footprint gives no wall.
pub(super) fn add_segment_facade(
    vertices: &mut Vec<FacadeVertex>,
    walls: &mut Vec<u32>,
    roofs: &mut Vec<u32>,
    fa: &FacadeArt,
    f: &FacadeInstance,
    height: f32,
) -> bool {
    let Some(mut pts) = wall_points(fa, f) else {
        return false;
    };
    if fa.axial {
        pts.truncate(2);
    }
    let Some(floor) = floor_for(&fa.segment_floors, height) else {
        return false;
    };
    let measured: Vec<(f32, bool)> = floor.segments.iter().map(measure).collect();
    let widths: Vec<f32> = measured.iter().map(|m| m.0).collect();
    let n = pts.len();
    let sides = if fa.open { n - 1 } else { n };
    let ground = centroid(&pts);
    for k in 0..sides {
        let (p, q) = (pts[k], pts[(k + 1) % n]);
        let len = ((q[0] - p[0]).powi(2) + (q[1] - p[1]).powi(2)).sqrt();
        if len < 1e-4 || floor.walls.is_empty() {
            continue;
        }
        let wi = f
            .walls
            .as_ref()
            .and_then(|w| w.get(k))
            .map(|&w| w as usize)
            .filter(|&w| w < floor.walls.len())
            .or_else(|| {
                floor
                    .walls
                    .iter()
                    .position(|w| w.min_width <= len && len <= w.max_width)
            })
            .unwrap_or(0);
        let spellings = &floor.walls[wi].spellings;
        let spelling = if fa.axial {
            axial_spelling(spellings, &widths, len)
        } else {
            pick_spelling(spellings, &widths, len)
        };
        let sum: f32 = spelling
            .iter()
            .map(|&i| widths.get(i as usize).copied().unwrap_or(0.0))
            .sum();
        if sum <= 1e-4 {
            continue;
        }
        let ratio = len / sum;
        let dir = [(q[0] - p[0]) / len, (q[1] - p[1]) / len];
        let out = [dir[1], -dir[0]];
        let mut at = 0.0;
        for &si in &spelling {
            let Some(seg) = floor.segments.get(si as usize) else {
                continue;
            };
            let (w, flip) = measured[si as usize];
            // An axial facade's cross-sections keep the side they are written on.
            let sx = if flip && !fa.axial { -1.0 } else { 1.0 };
            let place = |pos: [f32; 3]| -> P {
                let along = (at - pos[2]) * ratio;
                [
                    p[0] + dir[0] * along + out[0] * pos[0] * sx,
                    p[1] + dir[1] * along + out[1] * pos[0] * sx,
                ]
            };
            let start = vertices.len() as u32;
            for v in &seg.vertices {
                let nrm = v.normal;
                let world_n = [
                    out[0] * nrm[0] * sx - dir[0] * nrm[2],
                    out[1] * nrm[0] * sx - dir[1] * nrm[2],
                    nrm[1],
                ];
                let l = (world_n[0].powi(2) + world_n[1].powi(2) + world_n[2].powi(2))
                    .sqrt()
                    .max(1e-6);
                vertices.push(FacadeVertex {
                    xy: place(v.pos),
                    ground,
                    wall: [0.0, v.pos[1], 0.0, 0.0],
                    normal: [world_n[0] / l, world_n[1] / l, world_n[2] / l],
                    uv: v.uv,
                });
            }
            for t in seg.indices.chunks_exact(3) {
                let [a, b, c] = [t[0], t[1], t[2]].map(|i| start + i);
                // Wind each triangle counter-clockwise seen from the side its normal
                // faces, so culling keeps the front whatever the mirroring.
                let pa = vertices[a as usize];
                let pb = vertices[b as usize];
                let pc = vertices[c as usize];
                let e1 = [
                    pb.xy[0] - pa.xy[0],
                    pb.xy[1] - pa.xy[1],
                    pb.wall[1] - pa.wall[1],
                ];
                let e2 = [
                    pc.xy[0] - pa.xy[0],
                    pc.xy[1] - pa.xy[1],
                    pc.wall[1] - pa.wall[1],
                ];
                let g = [
                    e1[1] * e2[2] - e1[2] * e2[1],
                    e1[2] * e2[0] - e1[0] * e2[2],
                    e1[0] * e2[1] - e1[1] * e2[0],
                ];
                let nn = pa.normal;
                let facing = g[0] * nn[0] + g[1] * nn[1] + g[2] * nn[2];
                if facing >= 0.0 {
                    walls.extend_from_slice(&[a, b, c]);
                } else {
                    walls.extend_from_slice(&[a, c, b]);
                }
                if fa.two_sided {
                    if facing >= 0.0 {
                        walls.extend_from_slice(&[a, c, b]);
                    } else {
                        walls.extend_from_slice(&[a, b, c]);
                    }
                }
            }
            at += w;
        }
    }
    let roof_h = floor.roof_heights.iter().copied().fold(f32::NAN, f32::max);
    if !fa.open && roof_h.is_finite() && pts.len() >= 3 {
        let [rs, rt] = fa.roof_scale;
        let (rs, rt) = (rs.max(0.1), rt.max(0.1));
        let d = [pts[1][0] - pts[0][0], pts[1][1] - pts[0][1]];
        let l = (d[0] * d[0] + d[1] * d[1]).sqrt().max(1e-6);
        let (dir, perp) = ([d[0] / l, d[1] / l], [-d[1] / l, d[0] / l]);
        let start = vertices.len() as u32;
        for v in &pts {
            let rel = [v[0] - pts[0][0], v[1] - pts[0][1]];
            vertices.push(FacadeVertex {
                xy: *v,
                ground,
                wall: [0.0, roof_h, 0.0, 1.0],
                normal: [0.0, 0.0, 1.0],
                uv: [
                    (rel[0] * dir[0] + rel[1] * dir[1]) / rs,
                    (rel[0] * perp[0] + rel[1] * perp[1]) / rt,
                ],
            });
        }
        for [a, b, c] in triangulate(&pts) {
            roofs.extend_from_slice(&[start + a as u32, start + b as u32, start + c as u32]);
        }
    }
    true
}
