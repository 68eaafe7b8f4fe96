//! The art a scene draws with, loaded from disk and turned into plain CPU-side data: meshes,
//! images, facade and forest styles. The renderer takes a [`crate::scene::Scene`] and an
//! [`ArtSet`] and never reads a file itself.
//!
//! Every list here is parallel to the scene's reference lists: `meshes[i]` is the art of
//! `scene.meshes[i]`, `facades[i]` of `scene.facade_defs[i]`. Art that could not be found is
//! still present, marked `missing`, so the renderer draws a placeholder (a warning-coloured
//! box for a mesh, a checkerboard for a texture) and the warning is listed.

use crate::diag::Diagnostic;

/// Everything the renderer needs beside the scene.
#[derive(Debug, Clone, Default)]
pub struct ArtSet {
    /// Parallel to `Scene::meshes`.
    pub meshes: Vec<MeshArt>,
    /// Parallel to `Scene::facade_defs`.
    pub facades: Vec<FacadeArt>,
    /// The forest trees are drawn from.
    pub forest: Option<ForestArt>,
    /// Parallel to `Scene::more_forests`.
    pub more_forests: Vec<ForestArt>,
    /// The base tile texture (`Scene::tile_texture`).
    pub tile_texture: Option<usize>,
    /// Texture pool referenced by index from the entries above.
    pub images: Vec<ImageData>,
    /// What could not be found or read (missing files are warnings).
    pub warnings: Vec<Diagnostic>,
}

/// One vertex of a mesh. Axes as OBJ8: +x east, +y up, +z south; meters.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct MeshVertex {
    pub pos: [f32; 3],
    pub normal: [f32; 3],
    pub uv: [f32; 2],
}

/// A range of indices drawn between two camera distances (OBJ8 `ATTR_LOD near far`).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct MeshLod {
    pub near: f32,
    pub far: f32,
    pub first_index: u32,
    pub index_count: u32,
}

/// A mesh ready to upload.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct MeshArt {
    pub name: String,
    /// True when the file was missing or unreadable: draw a placeholder box.
    pub missing: bool,
    pub vertices: Vec<MeshVertex>,
    pub indices: Vec<u32>,
    /// At least one LOD when the mesh has geometry.
    pub lods: Vec<MeshLod>,
    /// Index into `ArtSet::images`.
    pub texture: Option<usize>,
    /// Half-extents and centre of the mesh's bounding box (for placeholders and culling).
    pub bounds_min: [f32; 3],
    pub bounds_max: [f32; 3],
    /// OBJ8 `ATTR_draped` geometry: not part of `lods`; drawn on the terrain like tiles.
    pub draped: Option<DrapedArt>,
}

/// The `ATTR_draped` geometry of a mesh (what follows `ATTR_draped` until `ATTR_no_draped`
/// or the next `ATTR_LOD`): drawn on the terrain like tiles, with its own texture, in its
/// layer group.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct DrapedArt {
    /// Per LOD with draped draws: its distance range and its index range in
    /// `MeshArt::indices` (after the LODs' own ranges).
    pub lods: Vec<MeshLod>,
    /// `TEXTURE_DRAPED`, else the mesh's `TEXTURE`: index into `ArtSet::images`.
    pub texture: Option<usize>,
    /// `ATTR_layer_group_draped`, else `ATTR_layer_group`, else `objects` 0.
    pub layer_group: crate::scene::LayerGroup,
}

/// Block-compressed formats (DDS DXT1/3/5).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BcFormat {
    Bc1,
    Bc2,
    Bc3,
}

/// Pixel data of one image with its mip chain (mip 0 first).
#[derive(Debug, Clone, PartialEq)]
pub enum ImagePixels {
    /// RGBA8, sRGB.
    Rgba8(Vec<Vec<u8>>),
    /// Block-compressed, each mip the raw blocks.
    Bc(BcFormat, Vec<Vec<u8>>),
}

/// An image to upload as a texture.
#[derive(Debug, Clone, PartialEq)]
pub struct ImageData {
    pub name: String,
    pub width: u32,
    pub height: u32,
    pub pixels: ImagePixels,
    /// True when this is a checkerboard standing in for a missing file.
    pub missing: bool,
}

impl ImageData {
    /// A magenta/grey checkerboard: what a missing texture looks like.
    pub fn checkerboard(name: &str) -> Self {
        let n = 64u32;
        let mut px = Vec::with_capacity((n * n * 4) as usize);
        for y in 0..n {
            for x in 0..n {
                let on = ((x / 8) + (y / 8)) % 2 == 0;
                px.extend_from_slice(if on {
                    &[255, 0, 255, 255]
                } else {
                    &[60, 60, 60, 255]
                });
            }
        }
        ImageData {
            name: name.to_string(),
            width: n,
            height: n,
            pixels: ImagePixels::Rgba8(vec![px]),
            missing: true,
        }
    }
}

/// How to texture a facade: one texture for the walls, one rectangle for a bay of one floor,
/// and a roof rectangle. Rectangles are normalised `[s1, t1, s2, t2]`.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct FacadeArt {
    pub name: String,
    pub missing: bool,
    pub texture: Option<usize>,
    pub wall_uv: [f32; 4],
    /// Meters the wall rectangle covers horizontally and vertically.
    pub bay_width: f32,
    pub floor_height: f32,
    pub roof_texture: Option<usize>,
    pub roof_uv: [f32; 4],
}

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
}

impl ForestArt {
    /// The tree for a layer and a seeded pick; any tree when the layer is empty.
    pub fn tree(&self, layer: i32, pick: u32) -> Option<&TreeArt> {
        let n = self.trees.iter().filter(|t| t.layer == layer).count();
        if n > 0 {
            self.trees
                .iter()
                .filter(|t| t.layer == layer)
                .nth(pick as usize % n)
        } else if self.trees.is_empty() {
            None
        } else {
            self.trees.get(pick as usize % self.trees.len())
        }
    }
}
