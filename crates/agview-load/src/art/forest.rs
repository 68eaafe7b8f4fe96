//! Forests: a `.for` ([`crate::format::forest`]) to a [`ForestArt`], the trees the renderer
//! draws. A tree's rectangle is normalised by `SCALE_X`/`SCALE_Y`; its height is the middle
//! of `hmin..hmax` and its width follows the rectangle's aspect (WED `GetFor`).

use std::path::Path;

use super::files::{as_warning, read};
use super::image::ImagePool;
use crate::diag::Diagnostic;
use crate::format::forest;

/// One tree of a forest: a texture rectangle and its size.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct TreeArt {
    pub layer: i32,
    /// Normalised `[s1, t1, s2, t2]`.
    pub uv: [f32; 4],
    pub width: f32,
    pub height: f32,
    /// Where the trunk sits across the width, 0..1.
    pub offset: f32,
    /// Number of crossed quads.
    pub quads: u32,
    /// Relative frequency within its layer (percent).
    pub percent: f32,
}

/// A forest: its texture and its trees.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ForestArt {
    pub name: String,
    pub missing: bool,
    pub texture: Option<usize>,
    pub trees: Vec<TreeArt>,
    /// `SPACING x z`: meters between trees, used to fill areas.
    pub spacing: [f32; 2],
    /// `LOD max_distance`: trees farther from the eye are not drawn. None: no limit.
    pub lod: Option<f32>,
}

impl ForestArt {
    /// The tree for a layer and a seeded pick; any tree when the layer is empty.
    pub fn tree(&self, layer: i32, pick: u32) -> Option<&TreeArt> {
        crate::format::forest::choose(&self.trees, |t| t.layer, layer, pick)
    }
}

/// A missing or broken forest: no trees are drawn.
pub(crate) fn missing_forest(path: &Path) -> ForestArt {
    ForestArt {
        name: path.display().to_string(),
        missing: true,
        spacing: [30.0, 30.0],
        ..Default::default()
    }
}

/// Loads a `.for` into the trees the renderer draws.
pub(crate) fn load_forest(
    path: &Path,
    pool: &mut ImagePool,
    warnings: &mut Vec<Diagnostic>,
) -> ForestArt {
    let missing = || missing_forest(path);
    let (found, bytes) = match read(path, "forest", warnings) {
        Ok(r) => r,
        Err(w) => {
            warnings.push(w);
            return missing();
        }
    };
    let f = match forest::parse(&found, &bytes, warnings) {
        Ok(f) => f,
        Err(e) => {
            warnings.push(as_warning(e, "no trees are drawn"));
            return missing();
        }
    };
    let texture = f.texture.as_ref().map(|t| pool.load(&t.path, warnings));
    let [sx, sy] = f.scale;
    let trees = f
        .trees
        .iter()
        .map(|t| {
            let height = 0.5 * (t.hmin + t.hmax);
            TreeArt {
                layer: t.layer,
                uv: [t.s / sx, t.t / sy, (t.s + t.w) / sx, (t.t + t.h) / sy],
                width: height * t.w.abs() / t.h,
                height,
                offset: (t.offset / t.w).clamp(0.0, 1.0),
                quads: t.quads,
                percent: t.percent,
            }
        })
        .collect();
    ForestArt {
        name: found.display().to_string(),
        missing: false,
        texture,
        trees,
        spacing: f.spacing,
        lod: f.lod.filter(|d| d.is_finite() && *d > 0.0),
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::tmp;
    use super::*;

    #[test]
    fn forest_trees_are_normalised() {
        let d = tmp("for");
        std::fs::write(
            d.join("f.for"),
            "A\n800\nFOREST\nTEXTURE gone.png\nSCALE_X 512\nSCALE_Y 256\nSPACING 10 12\n\
TREE 0 0 128 256 32 50 8 12 2 3 oak\n",
        )
        .unwrap();
        let mut w = Vec::new();
        let f = load_forest(&d.join("f.for"), &mut ImagePool::new(), &mut w);
        assert!(!f.missing);
        assert_eq!(w.len(), 1, "the texture is missing: {w:?}");
        assert_eq!(f.spacing, [10.0, 12.0]);
        let t = &f.trees[0];
        assert_eq!(t.uv, [0.0, 0.0, 0.25, 1.0]);
        assert_eq!(
            (t.height, t.width, t.offset, t.quads, t.layer),
            (10.0, 5.0, 0.25, 2, 3)
        );
        let f = load_forest(&d.join("none.for"), &mut ImagePool::new(), &mut w);
        assert!(f.missing);
    }
}
