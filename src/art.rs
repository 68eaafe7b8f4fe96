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
    /// Its `TEXTURE_LIT` (`TileTexture::lit`), when given and found: the tiles glow with it
    /// as night comes.
    pub tile_lit: Option<usize>,
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

/// The material attributes a range of a mesh is drawn with (OBJ8 `ATTR_cull`,
/// `ATTR_no_blend`, `ATTR_shade_flat` and their opposites).
pub use crate::format::obj8::DrawState;

/// A range of indices drawn between two camera distances (OBJ8 `ATTR_LOD near far`) with
/// one set of material attributes. An `ATTR_LOD` whose `TRIS` change attributes becomes
/// several ranges with the same distances, in the file's order.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct MeshLod {
    pub near: f32,
    pub far: f32,
    pub first_index: u32,
    pub index_count: u32,
    pub material: DrawState,
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
    /// OBJ8 `TEXTURE_LIT`: the emissive texture, lit as the sun goes down (index into
    /// `ArtSet::images`). `None` when the file names none or it could not be loaded.
    pub lit_texture: Option<usize>,
    /// OBJ8 `TEXTURE_NORMAL`: the normal map (index into `ArtSet::images`); `None` when the
    /// file names none or it could not be loaded.
    pub normal_texture: Option<usize>,
    /// OBJ8 `LIGHT_NAMED`, `LIGHT_CUSTOM` and `LIGHT_PARAM` points, each with the LOD range
    /// it was listed in.
    pub lights: Vec<LightArt>,
    /// Half-extents and centre of the mesh's bounding box (for placeholders and culling).
    pub bounds_min: [f32; 3],
    pub bounds_max: [f32; 3],
    /// OBJ8 `ATTR_draped` geometry: not part of `lods`; drawn on the terrain like tiles.
    pub draped: Option<DrapedArt>,
}

/// One light point of a mesh: where it is (OBJ8 axes, meters), the LOD range it shows in,
/// and how it looks. Named lights keep their name so the renderer's stage above can look
/// them up (`lights.txt` or the default table, [`crate::format::lights_txt`]).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct LightArt {
    pub pos: [f32; 3],
    /// The LOD range the light was listed in (`near`, `far`; `far` 0 or below `near`: no
    /// limit).
    pub near: f32,
    pub far: f32,
    /// Linear RGB and intensity (alpha) of the glow.
    pub color: [f32; 4],
    /// Size of the glow in meters (its radius).
    pub size: f32,
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

/// Block-compressed formats of DDS files: DXT1/3/5 (BC1-3), ATI1 (BC4, one channel, drawn
/// grey), ATI2 (BC5, two channels, drawn as a normal map's colours) and BC7 (DX10 header).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BcFormat {
    Bc1,
    Bc2,
    Bc3,
    Bc4,
    Bc5,
    Bc7,
}

impl BcFormat {
    /// Bytes of one 4×4 block.
    pub fn block_bytes(self) -> usize {
        match self {
            BcFormat::Bc1 | BcFormat::Bc4 => 8,
            BcFormat::Bc2 | BcFormat::Bc3 | BcFormat::Bc5 | BcFormat::Bc7 => 16,
        }
    }
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
    /// One black pixel: a night texture that lights nothing.
    pub fn black() -> Self {
        ImageData {
            name: "black".into(),
            width: 1,
            height: 1,
            pixels: ImagePixels::Rgba8(vec![vec![0, 0, 0, 255]]),
            missing: false,
        }
    }

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

/// How to texture a facade. A type 1 facade (`800 FACADE`) keeps its levels of detail with
/// their walls (`lods`), which the renderer lays out panel by panel as X-Plane builds them.
/// A type 2 facade (`1000 FACADE`) keeps its floors of mesh segments (`segment_floors`).
/// Everything else (image facades, fallbacks) has neither and repeats one rectangle for a
/// bay of one floor. Rectangles are normalised `[s1, t1, s2, t2]`.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct FacadeArt {
    pub name: String,
    pub missing: bool,
    pub texture: Option<usize>,
    /// `TEXTURE_LIT` of the walls: glows as night comes, like an object's.
    pub lit_texture: Option<usize>,
    pub wall_uv: [f32; 4],
    /// Meters the wall rectangle covers horizontally and vertically.
    pub bay_width: f32,
    pub floor_height: f32,
    pub roof_texture: Option<usize>,
    /// `TEXTURE_LIT` of the roof: type 1's one night texture (the roof is cut from the same
    /// image as the walls), type 2's under `SHADER_ROOF`.
    pub roof_lit_texture: Option<usize>,
    pub roof_uv: [f32; 4],
    /// Type 1 `LOD`s with their walls; empty when the facade repeats `wall_uv`.
    pub lods: Vec<PanelLod>,
    /// Type 2 `FLOOR`s; empty unless the facade is type 2 with usable segments.
    pub segment_floors: Vec<SegmentFloor>,
    /// Type 2 `ROOF_SCALE s t`: meters the roof texture covers.
    pub roof_scale: [f32; 2],
    /// `RING 0`: an open line of walls (a fence): no closing wall and no roof.
    pub open: bool,
    /// `TWO_SIDED 1` (or type 1 `DOUBLED 1`): walls are seen from both sides.
    pub two_sided: bool,
    /// Type 1 `FLOORS_MIN` / `FLOORS_MAX`: the range the floor count is kept in.
    pub floors_min: u32,
    pub floors_max: u32,
}

/// A type 1 `LOD near far`: its walls and its `ROOF` points (texture fractions).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct PanelLod {
    pub near: f32,
    pub far: f32,
    pub walls: Vec<PanelWall>,
    pub roof: Vec<[f32; 2]>,
}

/// A type 1 `WALL`: its panels as texture ranges `[start, end]` (fractions), `SCALE` in
/// meters per whole texture, `ROOF_SLOPE` in degrees and `BASEMENT_DEPTH` as a fraction.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct PanelWall {
    pub min_width: f32,
    pub max_width: f32,
    pub scale: [f32; 2],
    pub roof_slope: f32,
    pub slant: bool,
    pub basement: f32,
    pub left: Vec<[f32; 2]>,
    pub center: Vec<[f32; 2]>,
    pub right: Vec<[f32; 2]>,
    pub bottom: Vec<[f32; 2]>,
    pub middle: Vec<[f32; 2]>,
    pub top: Vec<[f32; 2]>,
}

/// A type 2 `FLOOR`: its segments (each a list of triangles), its walls' spellings and its
/// `ROOF_HEIGHT`s.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct SegmentFloor {
    pub segments: Vec<SegmentArt>,
    /// Per `WALL`: its width range and its `SPELLING`s (segment indices, left to right).
    pub walls: Vec<SegmentWall>,
    pub roof_heights: Vec<f32>,
}

/// A type 2 `SEGMENT`: vertices in the facade's frame (+y up, z along the wall, x out of
/// it) and triangle indices.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct SegmentArt {
    pub vertices: Vec<MeshVertex>,
    pub indices: Vec<u32>,
}

/// A type 2 `WALL min_width max_width …` and its `SPELLING`s.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct SegmentWall {
    pub min_width: f32,
    pub max_width: f32,
    pub spellings: Vec<Vec<u32>>,
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
    /// `LOD max_distance`: trees farther from the eye are not drawn. None: no limit.
    pub lod: Option<f32>,
}

impl ForestArt {
    /// The tree for a layer and a seeded pick; any tree when the layer is empty.
    pub fn tree(&self, layer: i32, pick: u32) -> Option<&TreeArt> {
        crate::format::forest::choose(&self.trees, |t| t.layer, layer, pick)
    }
}
