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
use crate::scene::{ArtRef, FacadeInstance, ObjectInstance, Placement, Scene, TreeInstance};

/// The most trees one forest polygon places (a forest over a whole tile would otherwise
/// place millions; X-Plane thins them by distance, a preview by this cap).
pub const MAX_FOREST_TREES: usize = 200_000;

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
