//! Facades: walls extruded from each footprint to its height and a roof, grouped by facade
//! definition so each group is two draws (walls, roofs) in `facade.wgsl`. The roof is flat,
//! or, for a four-cornered footprint with a `roof_height` (AGN default roofs), a gable: a
//! ridge along the longer side `roof_height` above the walls, two slopes, and two gable
//! triangles drawn with the walls. AGN library objects are drawn the same way, as plain
//! boxes over their footprints.

use bytemuck::{Pod, Zeroable};

use crate::scene::{FacadeInstance, Scene};

use super::geom::{normalized, triangulate, P};

/// One facade vertex as uploaded (40 bytes).
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Pod, Zeroable)]
pub(crate) struct FacadeVertex {
    pub xy: [f32; 2],
    /// The facade's ground point: its roof is flat at the terrain there plus the height.
    pub ground: [f32; 2],
    /// Meters along the wall, top (1) or bottom (0), wall height, kind (0 wall, 1 roof).
    pub wall: [f32; 4],
    /// Outward wall normal. For a roof: the slope's outward horizontal direction times the
    /// slope's rise per meter (0 for a flat roof); the shader makes it a 3D normal.
    pub normal: [f32; 2],
}

/// What a group of facades is textured with.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(crate) enum FacadeKey {
    /// `Scene::facade_defs[i]` / `ArtSet::facades[i]`.
    Def(usize),
    /// No facade definition (AGN buildings) or one that is missing: a neutral material.
    Neutral,
    /// AGN library objects, drawn as boxes.
    Library,
}

/// The index ranges of one group.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct FacadeGroup {
    pub key: FacadeKey,
    pub walls: std::ops::Range<u32>,
    pub roofs: std::ops::Range<u32>,
}

#[derive(Debug, Default)]
pub(crate) struct FacadeMesh {
    pub vertices: Vec<FacadeVertex>,
    pub indices: Vec<u32>,
    pub groups: Vec<FacadeGroup>,
    pub warnings: Vec<String>,
}

/// Height of the boxes drawn for AGN library objects, which carry none.
pub(crate) const LIBRARY_OBJECT_HEIGHT: f32 = 8.0;

/// Builds the facades of a scene; `defs_ok[i]` says whether facade definition `i` has art
/// (otherwise its facades use the neutral material). `cell` is the terrain's cell size:
/// walls are split about that often so their feet follow the ground.
pub(crate) fn build(scene: &Scene, defs_ok: &[bool], cell: f32) -> FacadeMesh {
    let mut mesh = FacadeMesh::default();
    let mut keyed: Vec<(FacadeKey, Vec<P>, f32, f32)> = Vec::new();
    let mut skipped = 0usize;
    for f in &scene.facades {
        let key = key_of(f, defs_ok);
        if !(f.height.is_finite() && f.height > 0.0) {
            skipped += 1;
            continue;
        }
        let ridge = if f.roof_height.is_finite() {
            f.roof_height.clamp(0.0, 100.0)
        } else {
            0.0
        };
        keyed.push((key, f.footprint.clone(), f.height.min(2000.0), ridge));
    }
    for o in &scene.library_objects {
        keyed.push((
            FacadeKey::Library,
            o.footprint.to_vec(),
            LIBRARY_OBJECT_HEIGHT,
            0.0,
        ));
    }
    keyed.sort_by_key(|(k, _, _, _)| *k);
    let step = if cell.is_finite() && cell > 0.5 {
        cell
    } else {
        0.5
    };
    let mut i = 0;
    while i < keyed.len() {
        let key = keyed[i].0;
        let end = keyed[i..]
            .iter()
            .position(|(k, _, _, _)| *k != key)
            .map_or(keyed.len(), |p| i + p);
        let group = &keyed[i..end];
        let wall_start = mesh.indices.len() as u32;
        let mut outlines = Vec::with_capacity(group.len());
        for (_, footprint, height, ridge) in group {
            match normalized(footprint) {
                Some(ccw) => {
                    let ground = centroid(&ccw);
                    add_walls(&mut mesh, &ccw, ground, *height, step);
                    let gable = gable(&ccw, *ridge);
                    if let Some(g) = &gable {
                        add_gable_ends(&mut mesh, g, ground, *height);
                    }
                    outlines.push((ccw, ground, *height, gable));
                }
                None => skipped += 1,
            }
        }
        let roof_start = mesh.indices.len() as u32;
        for (ccw, ground, height, gable) in &outlines {
            match gable {
                Some(g) => add_gable_roof(&mut mesh, g, *ground, *height),
                None => add_roof(&mut mesh, ccw, *ground, *height),
            }
        }
        mesh.groups.push(FacadeGroup {
            key,
            walls: wall_start..roof_start,
            roofs: roof_start..mesh.indices.len() as u32,
        });
        i = end;
    }
    if skipped > 0 {
        mesh.warnings.push(format!(
            "{skipped} facades have no area or no positive height and are not drawn"
        ));
    }
    mesh
}

fn key_of(f: &FacadeInstance, defs_ok: &[bool]) -> FacadeKey {
    match f.facade {
        Some(i) if defs_ok.get(i).copied().unwrap_or(false) => FacadeKey::Def(i),
        _ => FacadeKey::Neutral,
    }
}

fn centroid(poly: &[P]) -> P {
    let n = poly.len().max(1) as f32;
    let s = poly
        .iter()
        .fold([0.0, 0.0], |a, p| [a[0] + p[0], a[1] + p[1]]);
    [s[0] / n, s[1] / n]
}

fn add_walls(mesh: &mut FacadeMesh, ccw: &[P], ground: P, height: f32, step: f32) {
    let n = ccw.len();
    for k in 0..n {
        let (p, q) = (ccw[k], ccw[(k + 1) % n]);
        let d = [q[0] - p[0], q[1] - p[1]];
        let len = (d[0] * d[0] + d[1] * d[1]).sqrt();
        if len < 1e-4 {
            continue;
        }
        // Counter-clockwise outline: outward is to the right of the edge.
        let normal = [d[1] / len, -d[0] / len];
        let pieces = ((len / step).ceil() as u32).clamp(1, 64);
        let start = mesh.vertices.len() as u32;
        for s in 0..=pieces {
            let t = s as f32 / pieces as f32;
            let xy = [p[0] + d[0] * t, p[1] + d[1] * t];
            for top in [0.0, 1.0] {
                mesh.vertices.push(FacadeVertex {
                    xy,
                    ground,
                    wall: [len * t, top, height, 0.0],
                    normal,
                });
            }
        }
        for s in 0..pieces {
            let b0 = start + 2 * s;
            let (t0, b1, t1) = (b0 + 1, b0 + 2, b0 + 3);
            mesh.indices.extend_from_slice(&[b0, b1, t1, b0, t1, t0]);
        }
    }
}

/// A gable roof over a four-cornered footprint: the corners turned so that `c[0]→c[1]` is
/// a long side, the ridge from the middle of `c[3]c[0]` to the middle of `c[1]c[2]`, and the
/// ridge's height above the walls.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Gable {
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
fn add_gable_ends(mesh: &mut FacadeMesh, g: &Gable, ground: P, height: f32) {
    let c = g.c;
    for (a, b, apex) in [(c[1], c[2], g.ridge[1]), (c[3], c[0], g.ridge[0])] {
        let normal = outward(a, b);
        let w = ((b[0] - a[0]).powi(2) + (b[1] - a[1]).powi(2)).sqrt();
        let start = mesh.vertices.len() as u32;
        for (xy, along, h) in [
            (a, 0.0, height),
            (b, w, height),
            (apex, w / 2.0, height + g.rise),
        ] {
            mesh.vertices.push(FacadeVertex {
                xy,
                ground,
                wall: [along, 1.0, h, 0.0],
                normal,
            });
        }
        mesh.indices
            .extend_from_slice(&[start, start + 1, start + 2]);
    }
}

/// The two slopes of a gable roof, each from its long side up to the ridge.
fn add_gable_roof(mesh: &mut FacadeMesh, g: &Gable, ground: P, height: f32) {
    let c = g.c;
    let depth = ((c[2][0] - c[1][0]).powi(2) + (c[2][1] - c[1][1]).powi(2)).sqrt();
    let slope = g.rise / (depth / 2.0).max(1e-3);
    let [ra, rb] = g.ridge;
    for (a, b, r1, r2) in [(c[0], c[1], rb, ra), (c[2], c[3], ra, rb)] {
        let n = outward(a, b);
        let normal = [n[0] * slope, n[1] * slope];
        let start = mesh.vertices.len() as u32;
        for (xy, h) in [
            (a, height),
            (b, height),
            (r1, height + g.rise),
            (r2, height + g.rise),
        ] {
            mesh.vertices.push(FacadeVertex {
                xy,
                ground,
                wall: [0.0, 1.0, h, 1.0],
                normal,
            });
        }
        mesh.indices
            .extend_from_slice(&[start, start + 1, start + 2, start, start + 2, start + 3]);
    }
}

fn add_roof(mesh: &mut FacadeMesh, ccw: &[P], ground: P, height: f32) {
    let start = mesh.vertices.len() as u32;
    for p in ccw {
        mesh.vertices.push(FacadeVertex {
            xy: *p,
            ground,
            wall: [0.0, 1.0, height, 1.0],
            normal: [0.0, 0.0],
        });
    }
    for [a, b, c] in triangulate(ccw) {
        mesh.indices
            .extend_from_slice(&[start + a as u32, start + b as u32, start + c as u32]);
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
            .filter(|v| v.wall[2] == 9.0)
            .map(|v| v.xy)
            .collect();
        assert!(
            !top.is_empty() && top.iter().all(|p| p[1] == 5.0),
            "{top:?}"
        );
        // The slopes lean outward: the southern one's normal points south (and up).
        let south = roof.iter().find(|v| v.xy == [0.0, 0.0]).unwrap();
        assert!(south.normal[1] < 0.0 && (south.normal[1] + 0.6).abs() < 1e-5);
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
        assert!(flat.vertices.iter().all(|v| v.wall[2] == 6.0));
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
        let mesh = build(&scene, &[true, false], 5.0);
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
        assert_eq!(v.normal, [0.0, -1.0]);
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
