//! What a scenery author places by hand beside the autogen: a plain object (`.obj`), a
//! facade polygon (`.fac`, the DSF parameter is the wall height in meters) and a forest
//! polygon (`.for`, the parameter is the density, 0–255). A preview draws them because an
//! author judges autogen next to them.
//!
//! Like the autogen layouts these are pure: the polygon (or point) is in local meters and
//! the art is named, not loaded.

use std::sync::Arc;

use crate::layout::agn::fill_trees;
use crate::layout::geom::{signed_area2, P2};
use crate::layout::rng::Rng;
use crate::scene::{
    ArtRef, DrapedPolygon, FacadeInstance, ObjectInstance, PaintedLine, Placement, Scene,
    TreeInstance,
};

/// The most trees one forest polygon places (a forest over a whole tile would otherwise
/// place millions; X-Plane thins them by distance, a preview by this cap).
pub(crate) const MAX_FOREST_TREES: usize = 200_000;

/// The scene header of one placed file.
fn placed_scene(path: &str) -> Scene {
    Scene {
        asset: path.to_string(),
        tile_lod: crate::layout::DEFAULT_TILE_LOD,
        ..Scene::default()
    }
}

/// A plain object at `pos`, turned `heading` degrees clockwise from north, on the terrain.
pub fn object(path: &str, pos: P2, heading: f32) -> Scene {
    let name: Arc<str> = path.into();
    let mut scene = Scene {
        meshes: vec![ArtRef {
            name: name.clone(),
            resolved: None,
        }],
        ..placed_scene(path)
    };
    scene.objects.push(ObjectInstance {
        index: 0,
        path: name,
        pos,
        heading,
        mode: Placement::Draped,
        ground_pt: pos,
        show: [1, 1],
        ..ObjectInstance::default()
    });
    scene.update_stats();
    scene
}

/// A facade along the outer ring of `rings`, `height` meters high: a closed footprint is
/// made counter-clockwise, as the renderer expects; an `open` one (a chain) is kept as given.
pub fn facade(path: &str, rings: &[Vec<P2>], height: f32, open: bool) -> Scene {
    let mut footprint = rings.first().cloned().unwrap_or_default();
    // A closed footprint runs counter-clockwise; an open chain keeps its node order (which
    // side of a fence faces out is the author's).
    if !open && signed_area2(&footprint) < 0.0 {
        footprint.reverse();
    }
    let mut scene = Scene {
        facade_defs: vec![ArtRef {
            name: path.into(),
            resolved: None,
        }],
        polygon: rings.to_vec(),
        ..placed_scene(path)
    };
    if footprint.len() >= 2 {
        scene.facades.push(FacadeInstance {
            facade: Some(0),
            footprint,
            height,
            ..FacadeInstance::default()
        });
    }
    scene.update_stats();
    scene
}

/// A forest polygon: trees on a jittered grid of the forest's `SPACING`, kept with
/// probability `density / 255`, inside the outer ring and outside its holes.
pub fn forest(path: &str, rings: &[Vec<P2>], density: u32, spacing: [f32; 2], seed: u64) -> Scene {
    let mut scene = Scene {
        forest: Some(ArtRef {
            name: path.into(),
            resolved: None,
        }),
        polygon: rings.to_vec(),
        ..placed_scene(path)
    };
    let Some(outer) = rings.first() else {
        return scene;
    };
    let fraction = f64::from(density.min(255)) / 255.0;
    if fraction <= 0.0 {
        return scene;
    }
    let area = f64::from(signed_area2(outer).abs()) / 2.0;
    let m2_per_tree = f64::from(spacing[0].max(0.1)) * f64::from(spacing[1].max(0.1)) / fraction;
    let mut rng = Rng::new(seed);
    let mut trees: Vec<TreeInstance> = Vec::new();
    fill_trees(
        outer,
        area,
        m2_per_tree,
        MAX_FOREST_TREES,
        &mut rng,
        &mut trees,
    );
    let holes = &rings[1..];
    trees.retain(|t| !holes.iter().any(|h| in_ring(t.pos, h)));
    scene.trees = trees;
    scene.update_stats();
    scene
}

/// A draped polygon (`.pol`, or an orthophoto's image): its rings in local meters (outer
/// first, holes after; curves already flattened), their per-point texture coordinates for
/// an orthophoto (`st`, parallel to `rings`), and the heading its tiled texture turns to.
///
/// The outer ring is made counter-clockwise and the holes clockwise, points repeated in a
/// row are dropped, and the whole is triangulated with its holes cut (ear clipping,
/// `earcut`). Rings of fewer than three distinct points are dropped; when the outer ring is
/// one of them the scene places nothing (the document stage says why).
pub fn draped_polygon(
    path: &str,
    rings: &[Vec<P2>],
    st: Option<&[Vec<[f32; 2]>]>,
    heading: f32,
) -> Scene {
    let mut scene = Scene {
        pol_defs: vec![ArtRef {
            name: path.into(),
            resolved: None,
        }],
        polygon: rings.to_vec(),
        ..placed_scene(path)
    };
    let mut kept: Vec<(Vec<P2>, Vec<[f32; 2]>)> = Vec::with_capacity(rings.len());
    for (k, ring) in rings.iter().enumerate() {
        let ring_st = st.and_then(|s| s.get(k));
        let mut pts: Vec<P2> = Vec::with_capacity(ring.len());
        let mut sts: Vec<[f32; 2]> = Vec::with_capacity(ring.len());
        for (i, p) in ring.iter().enumerate() {
            if !(p[0].is_finite() && p[1].is_finite()) || pts.last() == Some(p) {
                continue;
            }
            pts.push(*p);
            sts.push(
                ring_st
                    .and_then(|s| s.get(i))
                    .copied()
                    .unwrap_or([0.0, 0.0]),
            );
        }
        if pts.len() > 1 && pts.first() == pts.last() {
            pts.pop();
            sts.pop();
        }
        let area = signed_area2(&pts);
        if pts.len() < 3 || area == 0.0 {
            if k == 0 {
                scene.update_stats();
                return scene;
            }
            continue;
        }
        // Outer counter-clockwise, holes clockwise.
        if (k == 0) != (area > 0.0) {
            pts.reverse();
            sts.reverse();
        }
        kept.push((pts, sts));
    }
    let rings: Vec<&[[f32; 2]]> = kept.iter().map(|(p, _)| p.as_slice()).collect();
    let triangles = agview_core::geom::triangulate(&rings);
    let st = st.map(|_| kept.iter().map(|(_, s)| s.clone()).collect());
    scene.draped.push(DrapedPolygon {
        def: 0,
        rings: kept.into_iter().map(|(p, _)| p).collect(),
        triangles,
        st,
        heading,
        pavement: None,
        feature: None,
    });
    scene.update_stats();
    scene
}

/// A painted line (`.lin`) along each chain of `chains` (local meters, curves already
/// flattened). A closed loop (DSF parameter 1) drops a closing point that repeats its
/// first; points repeated in a row are dropped, and a chain of fewer than two distinct
/// points places nothing.
pub fn painted_line(path: &str, chains: &[Vec<P2>], closed: bool) -> Scene {
    let mut scene = Scene {
        lin_defs: vec![ArtRef {
            name: path.into(),
            resolved: None,
        }],
        polygon: chains.to_vec(),
        ..placed_scene(path)
    };
    for chain in chains {
        let mut pts: Vec<P2> = Vec::with_capacity(chain.len());
        for p in chain {
            if p[0].is_finite() && p[1].is_finite() && pts.last() != Some(p) {
                pts.push(*p);
            }
        }
        if closed && pts.len() > 2 && pts.first() == pts.last() {
            pts.pop();
        }
        if pts.len() < 2 {
            continue;
        }
        let mut length: f32 = pts
            .windows(2)
            .map(|s| crate::layout::geom::len(crate::layout::geom::sub(s[1], s[0])))
            .sum();
        if closed {
            length +=
                crate::layout::geom::len(crate::layout::geom::sub(pts[0], pts[pts.len() - 1]));
        }
        scene.lines.push(PaintedLine {
            def: 0,
            points: pts,
            closed: closed && chain.len() > 2,
            length,
            feature: None,
        });
    }
    scene.update_stats();
    scene
}

/// The most objects one object string places (a string along a whole tile at 1 m would
/// otherwise place hundreds of thousands).
pub(crate) const MAX_STRING_OBJECTS: usize = 200_000;

/// The spacing of an object string in meters, from its DSF parameter: whole meters, or
/// for WED's X-Plane 12.1.2 target `10000 + round(128 × meters)` (GROUND.md §3: inferred
/// from WED's `encode_spacing`; X-Plane's own decoder is unconfirmed).
pub fn str_spacing(param: u32) -> f32 {
    if param >= 10_000 {
        (param - 10_000) as f32 / 128.0
    } else {
        param as f32
    }
}

/// An object string: objects along each chain of `chains` (local meters, as the DSF
/// writes them: a closed string repeats its first point), one every `spacing` meters
/// measured along the chain and carried across its corners, the first at 0.67 × spacing
/// from the start as WED places it. Each stands `offset` meters to the right of its
/// segment; the `objects` (turn ranges, one per `OBJECT`, meshes in the same order)
/// alternate, and each heads along its segment plus a seeded turn between its two numbers.
pub fn object_string(
    path: &str,
    chains: &[Vec<P2>],
    spacing: f32,
    offset: f32,
    objects: &[[f32; 2]],
    meshes: Vec<ArtRef>,
    seed: u64,
) -> Scene {
    let mut scene = Scene {
        meshes,
        polygon: chains.to_vec(),
        ..placed_scene(path)
    };
    if objects.is_empty() || !(spacing.is_finite() && spacing > 0.01) {
        scene.update_stats();
        return scene;
    }
    let mut rng = Rng::new(seed);
    let mut k = 0usize;
    'chains: for chain in chains {
        // Distance walked since the last object: WED starts it at a third of the spacing.
        let mut since = spacing * 0.33;
        for seg in chain.windows(2) {
            let (a, b) = (seg[0], seg[1]);
            let d = [b[0] - a[0], b[1] - a[1]];
            let len = (d[0] * d[0] + d[1] * d[1]).sqrt();
            if !(len.is_finite() && len > 0.0) {
                continue;
            }
            let dir = [d[0] / len, d[1] / len];
            // Right of travel: the direction turned 90° clockwise.
            let right = [dir[1], -dir[0]];
            let heading = dir[0].atan2(dir[1]).to_degrees();
            let mut at = spacing - since;
            while at <= len {
                if scene.objects.len() >= MAX_STRING_OBJECTS {
                    break 'chains;
                }
                let which = k % objects.len();
                let [lo, hi] = objects[which];
                let turn = lo + (hi - lo) * rng.f32();
                let pos = [
                    a[0] + dir[0] * at + right[0] * offset,
                    a[1] + dir[1] * at + right[1] * offset,
                ];
                scene.objects.push(ObjectInstance {
                    index: ObjectInstance::mesh_index(which),
                    path: scene
                        .meshes
                        .get(which)
                        .map_or_else(|| path.into(), |m| m.name.clone()),
                    pos,
                    heading: (heading + turn).rem_euclid(360.0),
                    mode: Placement::Draped,
                    ground_pt: pos,
                    show: [1, 1],
                    ..ObjectInstance::default()
                });
                k += 1;
                at += spacing;
            }
            since = len - (at - spacing);
        }
    }
    scene.update_stats();
    scene
}

/// The compass heading a tiled draped polygon's texture turns to, from its DSF parameter:
/// X-Plane 12 adds 1/128 degree steps as multiples of 360 (`whole + 360 · round(128 ·
/// fraction)`, GROUND.md §1.2), so 46,079 is the largest heading and 65,535 (an
/// orthophoto) is none.
pub fn pol_heading(param: u32) -> f32 {
    if param == 65535 {
        return 0.0;
    }
    (param % 360) as f32 + (param / 360) as f32 / 128.0
}

#[allow(clippy::ptr_arg)] // point_in_rings takes rings as Vecs
fn in_ring(p: P2, ring: &Vec<P2>) -> bool {
    crate::layout::geom::point_in_rings(p, std::slice::from_ref(ring))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn square(s: f32) -> Vec<P2> {
        vec![[0.0, 0.0], [s, 0.0], [s, s], [0.0, s]]
    }

    #[test]
    fn draped_polygons_cut_their_holes() {
        // A 10 m square, clockwise, with a 2 m square hole given counter-clockwise.
        let mut outer = square(10.0);
        outer.reverse();
        let hole = vec![[4.0, 4.0], [6.0, 4.0], [6.0, 6.0], [4.0, 6.0]];
        let s = draped_polygon("a.pol", &[outer, hole], None, 30.0);
        let d = &s.draped[0];
        assert!(signed_area2(&d.rings[0]) > 0.0 && signed_area2(&d.rings[1]) < 0.0);
        let pts: Vec<P2> = d.rings.iter().flatten().copied().collect();
        let area: f32 = d
            .triangles
            .iter()
            .map(|t| {
                let a = signed_area2(&[pts[t[0] as usize], pts[t[1] as usize], pts[t[2] as usize]]);
                assert!(a > 0.0, "counter-clockwise");
                a / 2.0
            })
            .sum();
        assert!((area - 96.0).abs() < 1e-3, "{area}");
        assert_eq!(s.stats.draped_triangles, d.triangles.len());
        assert_eq!(d.heading, 30.0);
        // A ring that closes itself and repeats points is the same square.
        let closed = vec![
            [0.0, 0.0],
            [1.0, 0.0],
            [1.0, 0.0],
            [1.0, 1.0],
            [0.0, 1.0],
            [0.0, 0.0],
        ];
        let s = draped_polygon("a.pol", &[closed], None, 0.0);
        assert_eq!(s.draped[0].rings[0].len(), 4);
        assert_eq!(s.draped[0].triangles.len(), 2);
        // Too few points: nothing placed.
        let s = draped_polygon("a.pol", &[vec![[0.0, 0.0], [1.0, 0.0]]], None, 0.0);
        assert!(s.draped.is_empty());
    }

    #[test]
    fn orthophoto_coordinates_follow_their_points() {
        let mut ring = square(10.0);
        let mut st = vec![[0.0, 0.0], [1.0, 0.0], [1.0, 1.0], [0.0, 1.0]];
        ring.reverse();
        st.reverse();
        let s = draped_polygon("o.pol", &[ring], Some(&[st]), 0.0);
        let d = &s.draped[0];
        let st = d.st.as_ref().unwrap();
        for (p, t) in d.rings[0].iter().zip(&st[0]) {
            assert_eq!([p[0] / 10.0, p[1] / 10.0], *t);
        }
    }

    fn posts() -> Vec<ArtRef> {
        ["a.obj", "b.obj"]
            .iter()
            .map(|n| ArtRef {
                name: (*n).into(),
                resolved: None,
            })
            .collect()
    }

    #[test]
    fn strings_alternate_their_objects_at_the_spacing() {
        // An L: 20 m east, then 10 m north; 4 m spacing, 1 m to the right.
        let chain = vec![[0.0, 0.0], [20.0, 0.0], [20.0, 10.0]];
        let s = object_string(
            "f.str",
            &[chain],
            4.0,
            1.0,
            &[[0.0, 0.0], [90.0, 90.0]],
            posts(),
            1,
        );
        let first = &s.objects[0];
        // The first at 0.67 × 4 m, right of travel (south), heading east.
        assert!(
            (first.pos[0] - 2.68).abs() < 1e-4 && (first.pos[1] + 1.0).abs() < 1e-5,
            "{:?}",
            first.pos
        );
        assert!((first.heading - 90.0).abs() < 1e-4);
        assert_eq!(s.objects[1].index, 1);
        assert!(
            (s.objects[1].heading - 180.0).abs() < 1e-4,
            "turned 90 clockwise"
        );
        // 30 m of chain from 2.68 m on, one every 4 m: 7 objects (2.68 … 26.68).
        assert_eq!(s.objects.len(), 7);
        // The spacing carries round the corner: the 5th stands 18.68 m along, the 6th
        // 2.68 m up the second leg, 1 m right of it (east).
        let sixth = &s.objects[5];
        assert!(
            (sixth.pos[0] - 21.0).abs() < 1e-4 && (sixth.pos[1] - 2.68).abs() < 1e-3,
            "{:?}",
            sixth.pos
        );
        assert_eq!(s.stats.objects, 7);
        // No spacing, no objects.
        let none = object_string(
            "f.str",
            &[vec![[0.0, 0.0], [9.0, 0.0]]],
            0.0,
            0.0,
            &[[0.0, 0.0]],
            posts(),
            1,
        );
        assert!(none.objects.is_empty());
    }

    #[test]
    fn string_spacing_decodes_fractions() {
        assert_eq!(str_spacing(12), 12.0);
        assert_eq!(str_spacing(10_000 + 320), 2.5);
    }

    #[test]
    fn pol_headings_decode_sub_degree_steps() {
        assert_eq!(pol_heading(30), 30.0);
        assert_eq!(pol_heading(359 + 360 * 127), 359.0 + 127.0 / 128.0);
        assert_eq!(pol_heading(45 + 360 * 64), 45.5);
        assert_eq!(pol_heading(65535), 0.0);
    }

    #[test]
    fn facade_follows_the_ring_counter_clockwise() {
        let mut cw = square(10.0);
        cw.reverse();
        let s = facade("b.fac", &[cw], 12.0, false);
        assert_eq!(s.facades.len(), 1);
        assert!(signed_area2(&s.facades[0].footprint) > 0.0);
        assert_eq!(s.facades[0].height, 12.0);
        assert_eq!(s.facades[0].facade, Some(0));
    }

    #[test]
    fn forest_density_scales_the_tree_count_and_holes_stay_empty() {
        let full = forest("t.for", &[square(200.0)], 255, [10.0, 10.0], 1);
        let half = forest("t.for", &[square(200.0)], 128, [10.0, 10.0], 1);
        let none = forest("t.for", &[square(200.0)], 0, [10.0, 10.0], 1);
        // 40,000 m² at 100 m² a tree: about 400 trees.
        assert!(
            (300..=450).contains(&full.trees.len()),
            "{}",
            full.trees.len()
        );
        let ratio = half.trees.len() as f32 / full.trees.len() as f32;
        assert!((0.35..0.65).contains(&ratio), "{ratio}");
        assert!(none.trees.is_empty());
        let hole: Vec<P2> = vec![[50.0, 50.0], [50.0, 150.0], [150.0, 150.0], [150.0, 50.0]];
        let holed = forest(
            "t.for",
            &[square(200.0), hole.clone()],
            255,
            [10.0, 10.0],
            1,
        );
        assert!(holed.trees.iter().all(|t| !in_ring(t.pos, &hole)));
        assert!(holed.trees.len() < full.trees.len());
    }

    #[test]
    fn object_stands_where_it_is_placed() {
        let s = object("k.obj", [3.0, 4.0], 30.0);
        assert_eq!(s.objects[0].pos, [3.0, 4.0]);
        assert_eq!(s.objects[0].heading, 30.0);
        assert_eq!(s.meshes.len(), 1);
    }
}
