//! The layout engine: a pure function of (asset, polygon or point, parameters, seed) to a
//! [`Scene`]. No I/O, no globals, no GPU: the same inputs give the same scene.
//!
//! One file per asset kind: [`agp`] (autogen points), [`agb`] (autogen blocks); the shared
//! placement of annotations lives here.

pub mod agb;
pub mod agn;
pub mod agp;
pub mod ags;
pub mod airport;
pub mod curves;
pub mod geom;
pub mod placed;
pub use agview_core::rng;
pub mod slope;
pub mod trees;

use std::path::PathBuf;

use serde::Serialize;

use crate::diag::Diagnostic;
use crate::format::autogen::{Annotation, AnnotationKind, Autogen, AutogenKind, ObjPlacement};
use crate::scene::{
    ArtRef, FacadeInstance, GeoFrame, ObjectInstance, Placement, Scene, SceneKind, TileTexture,
    TreeInstance,
};
use geom::{Frame, P2};
use rng::Rng;

pub use crate::scene::DEFAULT_TILE_LOD;
/// Tree spacing used for `TREE_LINE` when the forest's own is not known.
pub(crate) const DEFAULT_TREE_SPACING: f32 = 8.0;

/// Which way a tile faces at heading 0 (the spec and WED disagree; see
/// `docs/spec-decisions.md`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Convention {
    /// As WED and OverlayEditor draw it: texture up (+t) points north at heading 0, and
    /// `ROTATION` turns the tile clockwise in 90° steps.
    #[default]
    Wed,
    /// As the AGP spec words it: at heading 0 the tile's bottom edge faces north (the tile
    /// is turned 180° from WED's), and `ROTATION` turns it counter-clockwise; an object's
    /// heading is the point's plus its offset, a tree's the tile's turn plus its offset.
    Spec,
}

/// A point placement: where an AGP (or the centre of anything point-placed) goes.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct PointInput {
    pub pos: P2,
    /// Degrees clockwise from north.
    pub heading: f32,
}

/// Everything besides the asset that a layout depends on.
#[derive(Debug, Clone, Default)]
pub struct LayoutInput {
    /// The polygon in local meters: outer contour first, then holes.
    pub polygon: Option<Vec<Vec<P2>>>,
    /// Where the polygon came from, for messages: `(file, line)`.
    pub polygon_source: Option<(PathBuf, u32)>,
    /// For points: placement and heading.
    pub point: Option<PointInput>,
    /// The DSF parameter (height and spelling-set bits as each spec defines them).
    pub param: Option<u32>,
    /// Building height in meters (overrides the parameter's high byte).
    pub height: Option<f32>,
    pub seed: u64,
    pub convention: Convention,
    pub geo: Option<GeoFrame>,
    /// The forest's `SPACING`, when it was loaded, for `TREE_LINE` and fills.
    pub forest_spacing: Option<[f32; 2]>,
    /// AGS: `polygon` holds a DSF polygon's windings as the document wrote them: poly-lines
    /// that join into closed contours at shared end points, the first `low byte` of them
    /// spawning tiles. Otherwise it holds closed rings (GeoJSON, `--rect`, the built-in
    /// polygon), of which the first `low byte` spawn tiles whole.
    pub windings: bool,
    /// AGS: which edges of each ring spawn tiles (GeoJSON `spawn`): flag `i` of ring `k` is
    /// the edge from vertex `i` to vertex `i + 1`, the last one closing the ring. Overrides
    /// the parameter's low byte.
    pub spawn: Option<Vec<Vec<bool>>>,
}

impl LayoutInput {
    /// The AGL height: `--height`, else the parameter's high byte × 4.
    pub(crate) fn agl_height(&self) -> Option<f32> {
        self.height
            .or_else(|| self.param.map(|p| ((p >> 8) & 0xFF) as f32 * 4.0))
    }

    /// The parameter's low byte.
    pub fn low_byte(&self) -> u32 {
        self.param.unwrap_or(0) & 0xFF
    }

    /// An error about the polygon, pointing at where it came from.
    pub(crate) fn polygon_error(
        &self,
        asset: &std::path::Path,
        message: impl Into<String>,
    ) -> Diagnostic {
        match &self.polygon_source {
            Some((p, line)) => Diagnostic::error_at(p, (*line).max(1), 1, message),
            None => Diagnostic::error_file(asset, message),
        }
    }
}

/// Lays out an autogen asset. `asset_path` names it in the scene and in messages.
pub fn layout(
    ag: &Autogen,
    asset_path: &std::path::Path,
    input: &LayoutInput,
) -> Result<Scene, Diagnostic> {
    let mut scene = match ag.kind {
        AutogenKind::Agp => agp::layout(ag, asset_path, input)?,
        AutogenKind::Agb => agb::layout(ag, asset_path, input)?,
        AutogenKind::Ags => ags::layout(ag, asset_path, input)?,
    };
    scene.collect_ground_points();
    scene.update_stats();
    Ok(scene)
}

/// The scene header shared by the autogen kinds: art references, tile texture, LOD.
pub(crate) fn scene_for(ag: &Autogen, asset_path: &std::path::Path, input: &LayoutInput) -> Scene {
    let kind = match ag.kind {
        AutogenKind::Agp => SceneKind::Agp,
        AutogenKind::Agb => SceneKind::Agb,
        AutogenKind::Ags => SceneKind::Ags,
    };
    let art = |d: &crate::format::autogen::ArtDecl| ArtRef {
        name: d.path.clone(),
        resolved: None,
    };
    Scene {
        kind,
        asset: asset_path.display().to_string(),
        seed: input.seed,
        geo: input.geo,
        // Hidden tiles are not drawn, so the scene names no texture for them (the tiles
        // themselves stay: their annotations need them).
        tile_texture: ag
            .texture
            .as_ref()
            .filter(|_| !ag.hide_tiles)
            .map(|t| TileTexture {
                path: t.path.to_string(),
                width_px: ag.texture_scale.map_or(1.0, |s| s[0]),
                height_px: ag.texture_scale.map_or(1.0, |s| s[1]),
                lit: ag.lit_texture().map(|d| d.path.to_string()),
            }),
        tile_lod: ag.tile_lod.unwrap_or(DEFAULT_TILE_LOD),
        layer_group: ag
            .layer_group
            .as_ref()
            .map(|(name, offset)| crate::scene::LayerGroup {
                name: name.clone(),
                offset: *offset,
            })
            .unwrap_or_default(),
        hide_tiles: ag.hide_tiles,
        meshes: ag.objects.iter().map(art).collect(),
        facade_defs: ag.facades.iter().map(art).collect(),
        forest: ag.vegetation.as_ref().map(art),
        ..Scene::default()
    }
}

/// Maps a tile's pixels to world meters: `frame.to_world((px - origin_px) * mpp)`, where the
/// frame's `u` is texture +s and `v` texture +t.
#[derive(Debug, Clone, Copy)]
pub(crate) struct TileXf {
    pub frame: Frame,
    pub origin_px: P2,
    pub mpp: P2,
    /// What an object's heading offset is added to (degrees clockwise from north): the
    /// heading of texture +t, worked out once per tile rather than once per annotation (an
    /// `atan2`); an AGP under `--convention spec` gives the point's heading instead.
    pub object_heading: f32,
    /// What a tree's heading offset is added to: as `object_heading`, except under
    /// `--convention spec` the tile's turn (the point's heading and `ROTATION`).
    pub tree_heading: f32,
}

impl TileXf {
    pub fn new(frame: Frame, origin_px: P2, mpp: P2) -> Self {
        let up = frame.up_heading();
        TileXf {
            frame,
            origin_px,
            mpp,
            object_heading: up,
            tree_heading: up,
        }
    }

    pub fn px(&self, p: P2) -> P2 {
        self.frame.to_world([
            (p[0] - self.origin_px[0]) * self.mpp[0],
            (p[1] - self.origin_px[1]) * self.mpp[1],
        ])
    }
}

/// `OBJ_SCRAPER`'s rise for an AGL height `h` (the rule WED uses).
pub(crate) fn scraper_rise(h: f32, min: f32, max: f32, step: f32) -> f32 {
    if h > min && step > 0.0 {
        ((max - min).min(((h - min) / step).floor() * step)).max(0.0)
    } else {
        0.0
    }
}

/// Shared context for placing annotations.
pub(crate) struct Emit<'a> {
    pub ag: &'a Autogen,
    pub input: &'a LayoutInput,
    pub rng: Rng,
}

impl Emit<'_> {
    /// Places one annotation through `xf`; graded objects take their height at `ground`.
    pub fn annotation(&mut self, scene: &mut Scene, ann: &Annotation, xf: &TileXf, ground: P2) {
        match &ann.kind {
            AnnotationKind::Object {
                pos,
                heading,
                index,
                placement,
                show,
            } => {
                let (mode, z_offset) = match *placement {
                    ObjPlacement::Draped => (Placement::Draped, 0.0),
                    ObjPlacement::Graded => (Placement::Graded, 0.0),
                    ObjPlacement::Delta { offset } => (Placement::Delta, offset),
                    ObjPlacement::Scraper { min, max, step } => {
                        // Points carry no AGL height: a scraper acts as graded there.
                        let h = if self.ag.kind == AutogenKind::Agp {
                            0.0
                        } else {
                            self.input.agl_height().unwrap_or(0.0)
                        };
                        (Placement::Scraper, scraper_rise(h, min, max, step))
                    }
                };
                scene.objects.push(ObjectInstance {
                    index: ObjectInstance::mesh_index(*index),
                    path: self
                        .ag
                        .objects
                        .get(*index)
                        .map(|o| o.path.clone())
                        .unwrap_or_default(),
                    pos: xf.px(*pos),
                    heading: geom::wrap_deg(xf.object_heading + heading).rem_euclid(360.0),
                    mode,
                    ground_pt: ground,
                    z_offset,
                    show: show.unwrap_or([1, 1]),
                    thin: self.rng.f32(),
                    line: ann.line,
                    feature: None,
                });
            }
            AnnotationKind::Facade {
                index,
                height,
                points,
                walls,
            } => {
                let mut footprint: Vec<P2> = points.iter().map(|p| xf.px(*p)).collect();
                let mut walls = walls.clone();
                if geom::signed_area2(&footprint) < 0.0 {
                    footprint.reverse();
                    if let Some(w) = walls.as_mut() {
                        // Wall i runs from point i to i+1; reversed, wall k runs between the
                        // reversed points k and k+1, which was wall n-2-k (the closing wall
                        // stays last).
                        let n = w.len();
                        if n > 1 {
                            w[..n - 1].reverse();
                        }
                    }
                }
                scene.facades.push(FacadeInstance {
                    facade: Some(*index),
                    footprint,
                    height: *height,
                    walls,
                    line: ann.line,
                    ..Default::default()
                });
            }
            AnnotationKind::Tree {
                pos,
                heading,
                width,
                layer,
            } => scene.trees.push(TreeInstance {
                pos: xf.px(*pos),
                width: *width,
                heading: (xf.tree_heading + heading).rem_euclid(360.0),
                layer: *layer,
                pick: self.rng.u32(),
                forest: 0,
                height: 0.0,
                feature: None,
            }),
            AnnotationKind::TreeLine { start, end, layer } => {
                let a = xf.px(*start);
                let b = xf.px(*end);
                let spacing = self
                    .input
                    .forest_spacing
                    .map_or(DEFAULT_TREE_SPACING, |s| s[0].max(0.5));
                let l = geom::len(geom::sub(b, a));
                let n = ((l / spacing).floor() as usize).min(10_000) + 1;
                for i in 0..n {
                    let t = if n == 1 {
                        0.5
                    } else {
                        i as f32 / (n - 1) as f32
                    };
                    scene.trees.push(TreeInstance {
                        pos: geom::lerp(a, b, t),
                        width: 0.0,
                        heading: self.rng.f32() * 360.0,
                        layer: *layer,
                        pick: self.rng.u32(),
                        forest: 0,
                        height: 0.0,
                        feature: None,
                    });
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scraper_rule() {
        assert_eq!(scraper_rise(0.0, 10.0, 50.0, 5.0), 0.0);
        assert_eq!(scraper_rise(10.0, 10.0, 50.0, 5.0), 0.0);
        assert_eq!(scraper_rise(23.0, 10.0, 50.0, 5.0), 10.0);
        assert_eq!(scraper_rise(500.0, 10.0, 50.0, 5.0), 40.0);
    }

    #[test]
    fn height_from_param() {
        let i = LayoutInput {
            param: Some((10 << 8) | 3),
            ..Default::default()
        };
        assert_eq!(i.agl_height(), Some(40.0));
        assert_eq!(i.low_byte(), 3);
        let j = LayoutInput {
            height: Some(12.0),
            ..i
        };
        assert_eq!(j.agl_height(), Some(12.0));
    }
}
