//! Facades (`facades::build`): one mesh per facade definition, its walls and its roofs a
//! primitive each, at its nearest LOD. The vertices are lifted as `facade.wgsl` lifts them:
//! a wall stands on the ground under its facade's ground point, and a foot marked to sink
//! goes a metre below the ground under it.
//!
//! Facades laid out from their definition carry their texture coordinates. The others
//! (AGN buildings, image facades) repeat one rectangle of the texture along and up their
//! walls (`facade.wgsl`'s `repeat_in`), which a glTF texture cannot do inside a
//! rectangle: their triangles are cut at every repeat, each piece mapped into the
//! rectangle (a rectangle that is the whole texture simply repeats). Facades are seen from
//! outside only, as agview draws them; `TWO_SIDED` ones carry their back faces.

use std::collections::HashMap;

use agview_load::art::Material;
use agview_mesh::facades::{self, FacadeGroup, FacadeKey, FacadeMesh, FacadeVertex};
use agview_mesh::objects::TexSource;
use agview_mesh::tiles::Grid;

use crate::document::{AlphaMode, Node, Primitive};
use crate::textures::Look;

use super::axes::direction;
use super::{st_to_uv, Builder};

/// The most pieces one triangle is cut into for its repeats; a larger one is mapped to one
/// repeat, stretched.
const MAX_REPEATS: i64 = 4096;

pub(crate) fn facades(b: &mut Builder) -> Vec<usize> {
    let grid = Grid::of(&b.terrain);
    let mesh = facades::build(b.scene, &b.art.facades, grid.cell);
    b.warn_all(&mesh.warnings);
    let mut nodes = Vec::new();
    // Each definition at its nearest LOD.
    let mut keys: Vec<FacadeKey> = mesh.groups.iter().map(|g| g.key).collect();
    keys.dedup();
    for key in keys {
        let nearest = mesh
            .groups
            .iter()
            .filter(|g| g.key == key)
            .min_by(|a, c| a.lod[0].total_cmp(&c.lod[0]));
        let Some(g) = nearest else { continue };
        if let Some(n) = group_node(b, &mesh, g) {
            nodes.push(n);
        }
    }
    nodes
}

/// What a wall or a roof is drawn with: the material, and the repeated rectangle
/// `[s1, t1, s2, t2]` with the metres one repeat covers (none for mapped facades).
struct Side {
    material: usize,
    repeat: Option<([f32; 4], [f32; 2])>,
}

fn group_node(b: &mut Builder, mesh: &FacadeMesh, g: &FacadeGroup) -> Option<usize> {
    let (name, wall, roof) = match g.key {
        FacadeKey::Def(i) => {
            let fa = b.art.facades.get(i)?;
            let name = b
                .scene
                .facade_defs
                .get(i)
                .map_or_else(|| fa.name.clone(), |r| r.name.to_string());
            let wall_src = tex(fa.texture);
            let roof_src = match fa.roof_texture {
                Some(_) => tex(fa.roof_texture),
                None => wall_src,
            };
            let (bay, floor) = (sane_len(fa.bay_width, 10.0), sane_len(fa.floor_height, 3.0));
            let (wall_uv, roof_uv) = (fa.wall_uv, fa.roof_uv);
            let wall = side(b, wall_src, fa.lit_texture, &name, "walls");
            let roof = side(b, roof_src, fa.roof_lit_texture, &name, "roof");
            let (wall_rep, roof_rep) = if g.mapped {
                (None, None)
            } else {
                (Some((wall_uv, [bay, floor])), Some((roof_uv, [bay, bay])))
            };
            (
                format!("facade {i} {name}"),
                Side {
                    material: wall,
                    repeat: wall_rep,
                },
                Side {
                    material: roof,
                    repeat: roof_rep,
                },
            )
        }
        FacadeKey::Neutral | FacadeKey::Library => {
            let what = if g.key == FacadeKey::Neutral {
                "facades without a definition"
            } else {
                "library objects"
            };
            let (wt, rt) = facades::plain_tints(g.key).unwrap_or(([1.0; 3], [1.0; 3]));
            let wall = plain(b, &format!("{what}: walls"), wt);
            let roof = plain(b, &format!("{what}: roofs"), rt);
            (
                what.to_string(),
                Side {
                    material: wall,
                    repeat: None,
                },
                Side {
                    material: roof,
                    repeat: None,
                },
            )
        }
    };
    let mapped = g.mapped;
    let prims = vec![
        primitive(b, mesh, g.walls.clone(), &wall, mapped),
        primitive(b, mesh, g.roofs.clone(), &roof, mapped),
    ];
    let m = b.mesh(name.clone(), prims)?;
    Some(b.node(Node {
        name,
        mesh: Some(m),
        ..Node::default()
    }))
}

fn tex(i: Option<usize>) -> TexSource {
    i.map_or(TexSource::Checker, TexSource::Image)
}

/// `scene_gpu.rs`'s `sane_len`: a repeat's metres, or the default.
fn sane_len(v: f32, default: f32) -> f32 {
    if v.is_finite() && v > 0.01 {
        v
    } else {
        default
    }
}

fn side(b: &mut Builder, src: TexSource, lit: Option<usize>, name: &str, part: &str) -> usize {
    let (albedo, missing) = b.image(src);
    let look = Look {
        name: b.image_name(src, &format!("{name} {part}")),
        albedo,
        lit: lit.map(TexSource::Image).and_then(|s| b.extra_image(s)),
        normal: None,
        map: None,
        shading: Material::default(),
        alpha: AlphaMode::Opaque,
        double_sided: false,
        missing,
        tint: [1.0; 3],
    };
    b.material(&look)
}

/// An untextured material of colour `tint` (its base colour factor).
fn plain(b: &mut Builder, name: &str, tint: [f32; 3]) -> usize {
    let look = Look {
        name: name.to_string(),
        albedo: None,
        lit: None,
        normal: None,
        map: None,
        shading: Material::default(),
        alpha: AlphaMode::Opaque,
        double_sided: false,
        missing: false,
        tint,
    };
    b.material(&look)
}

/// A facade vertex as drawn: its place (glTF axes), its normal and what its texture
/// coordinate comes from (metres along and up the wall, the roof's ground position; or
/// the vertex's own s, t).
#[derive(Debug, Clone, Copy, PartialEq)]
struct Corner {
    pos: [f32; 3],
    normal: [f32; 3],
    coord: [f32; 2],
}

impl Corner {
    fn lerp(a: &Corner, c: &Corner, t: f32) -> Corner {
        let l = |x: f32, y: f32| x + (y - x) * t;
        Corner {
            pos: [0, 1, 2].map(|k| l(a.pos[k], c.pos[k])),
            normal: a.normal,
            coord: [0, 1].map(|k| l(a.coord[k], c.coord[k])),
        }
    }
}

/// `facade.wgsl`'s `vs_main` on the CPU: where a vertex is drawn, and its coordinate.
fn corner(b: &Builder, v: &FacadeVertex, mapped: bool) -> Corner {
    let t = &*b.terrain;
    let base = t.height_at(v.ground[0], v.ground[1]);
    let mut up = base + v.wall[1];
    if v.wall[2] > 0.5 {
        up = t.surface_at(v.xy[0], v.xy[1]).min(up) - 1.0;
    }
    let coord = if mapped {
        v.uv
    } else if v.wall[3] > 0.5 {
        // A roof: the ground position.
        v.xy
    } else {
        [v.wall[0], up - base]
    };
    Corner {
        pos: b.axes.point(v.xy[0], v.xy[1], up),
        normal: direction(v.normal),
        coord,
    }
}

fn primitive(
    b: &Builder,
    mesh: &FacadeMesh,
    range: std::ops::Range<u32>,
    side: &Side,
    mapped: bool,
) -> Primitive {
    let mut p = Primitive {
        material: Some(side.material),
        ..Primitive::default()
    };
    let Some(idx) = mesh.indices.get(range.start as usize..range.end as usize) else {
        return p;
    };
    let textured = mapped || side.repeat.is_some();
    let Some((rect, period)) = side.repeat.filter(|_| !mapped) else {
        // No repeat to cut at: the builder's vertices, shared as it shares them.
        let mut local: HashMap<u32, u32> = HashMap::new();
        for tri in idx.chunks_exact(3) {
            if tri.iter().any(|&i| i as usize >= mesh.vertices.len()) {
                continue;
            }
            for &i in tri {
                let k = *local.entry(i).or_insert_with(|| {
                    let c = corner(b, &mesh.vertices[i as usize], mapped);
                    p.positions.push(c.pos);
                    p.normals.push(c.normal);
                    if textured {
                        p.uvs.push(st_to_uv(c.coord));
                    }
                    (p.positions.len() - 1) as u32
                });
                p.indices.push(k);
            }
        }
        return p;
    };
    for tri in idx.chunks_exact(3) {
        let Some(vs) = tri
            .iter()
            .map(|&i| mesh.vertices.get(i as usize))
            .collect::<Option<Vec<_>>>()
        else {
            continue;
        };
        let cs = [0, 1, 2].map(|k| corner(b, vs[k], mapped));
        for piece in repeat_pieces(cs, rect, period) {
            for (c, uv) in piece {
                p.positions.push(c.pos);
                p.normals.push(c.normal);
                p.uvs.push(uv);
                p.indices.push((p.positions.len() - 1) as u32);
            }
        }
    }
    p
}

/// A triangle whose coordinates (metres) repeat `rect` every `period` metres, as triangles
/// each inside one repeat, with their texture coordinates (glTF's u, v).
fn repeat_pieces(
    tri: [Corner; 3],
    rect: [f32; 4],
    period: [f32; 2],
) -> Vec<[(Corner, [f32; 2]); 3]> {
    // Repeats as units: a period of 0 maps 0..1 once, clamped (`repeat_in`).
    let unit = |c: &Corner| -> [f32; 2] {
        [0, 1].map(|k| {
            if period[k] > 0.0 {
                c.coord[k] / period[k]
            } else {
                c.coord[k].clamp(0.0, 1.0)
            }
        })
    };
    let tri = tri.map(|c| Corner {
        coord: unit(&c),
        ..c
    });
    let map = |c: &Corner, cell: [f32; 2]| -> [f32; 2] {
        let st = [
            rect[0] + (c.coord[0] - cell[0]) * (rect[2] - rect[0]),
            rect[1] + (c.coord[1] - cell[1]) * (rect[3] - rect[1]),
        ];
        st_to_uv(st)
    };
    let whole = rect == [0.0, 0.0, 1.0, 1.0];
    let lo = [0, 1].map(|k| tri.iter().map(|c| c.coord[k]).fold(f32::INFINITY, f32::min));
    let hi = [0, 1].map(|k| {
        tri.iter()
            .map(|c| c.coord[k])
            .fold(f32::NEG_INFINITY, f32::max)
    });
    if !lo.iter().chain(&hi).all(|v| v.is_finite()) {
        return Vec::new();
    }
    let (i0, i1) = (
        lo[0].floor() as i64,
        (hi[0].ceil() as i64 - 1).max(lo[0].floor() as i64),
    );
    let (j0, j1) = (
        lo[1].floor() as i64,
        (hi[1].ceil() as i64 - 1).max(lo[1].floor() as i64),
    );
    let single = i0 == i1 && j0 == j1;
    if whole || single || (i1 - i0 + 1) * (j1 - j0 + 1) > MAX_REPEATS {
        // The sampler's wrap repeats a whole texture; one repeat needs no cut.
        let cell = if whole {
            [0.0, 0.0]
        } else {
            [i0 as f32, j0 as f32]
        };
        return vec![tri.map(|c| (c, map(&c, cell)))];
    }
    let mut out = Vec::new();
    for j in j0..=j1 {
        for i in i0..=i1 {
            let (x0, y0) = (i as f32, j as f32);
            let mut poly: Vec<Corner> = tri.to_vec();
            for (axis, edge, keep_above) in [
                (0, x0, true),
                (0, x0 + 1.0, false),
                (1, y0, true),
                (1, y0 + 1.0, false),
            ] {
                poly = clip(&poly, axis, edge, keep_above);
                if poly.len() < 3 {
                    break;
                }
            }
            if poly.len() < 3 {
                continue;
            }
            let cell = [x0, y0];
            for k in 1..poly.len() - 1 {
                let t = [poly[0], poly[k], poly[k + 1]];
                out.push(t.map(|c| (c, map(&c, cell))));
            }
        }
    }
    out
}

/// Sutherland–Hodgman: the part of `poly` on one side of `coord[axis] = edge`.
fn clip(poly: &[Corner], axis: usize, edge: f32, keep_above: bool) -> Vec<Corner> {
    let inside = |c: &Corner| {
        if keep_above {
            c.coord[axis] >= edge
        } else {
            c.coord[axis] <= edge
        }
    };
    let mut out = Vec::with_capacity(poly.len() + 2);
    for k in 0..poly.len() {
        let (a, c) = (&poly[k], &poly[(k + 1) % poly.len()]);
        if inside(a) {
            out.push(*a);
        }
        if inside(a) != inside(c) {
            let t = (edge - a.coord[axis]) / (c.coord[axis] - a.coord[axis]);
            out.push(Corner::lerp(a, c, t));
        }
    }
    out
}
