//! The wgpu renderer: draws a [`Scene`](crate::scene::Scene) with its
//! [`ArtSet`](crate::art::ArtSet) on a [`Terrain`](crate::terrain::Terrain).
//!
//! Three lifetimes, as in rerun's `re_renderer`:
//!
//! - [`Renderer`]: pipelines, layouts and samplers, built once per device and colour format
//!   and never changed afterwards.
//! - [`SceneGpu`]: everything uploaded for one scene (height field, tile pieces, meshes,
//!   instances, facades, trees, overlay lines, textures). Built once per scene change;
//!   the object density and the terrain exaggeration are uniforms, and a new terrain on the
//!   same grid rewrites the height field and places the objects on it in a compute pass
//!   ([`SceneGpu::set_terrain`]).
//! - Culling ([`Culling`], `cull.rs`): per frame and view, compute passes keep the instances
//!   in the frustum, their LOD bands and the density, in order-keeping lists drawn with
//!   indirect draws; a CPU path for adapters without compute or indirect draws. Trees and
//!   tile pieces are culled by cells on the CPU (`cells.rs`): runs of records with their
//!   boxes, tested per view.
//! - [`FrameParams`]: the camera and toggles of one frame, written to a uniform buffer by
//!   [`SceneGpu::prepare`], which also chooses the terrain chunks to draw.
//!
//! The terrain is the height field (a texture) drawn in square chunks of up to 64 cells
//! (`terrain_chunks`): each frame every chunk gets a level of detail from its distance to
//! the camera (full resolution near it, neighbours at most one level apart, edges toward a
//! finer neighbour stitched), chunks outside the view frustum are dropped, and the rest are
//! drawn with one instanced draw per (level, neighbour mask) over a few shared index
//! patterns. Buffers, draws and triangles stay small however large the height map.
//!
//! [`Renderer::draw`] records one frame into a `&TextureView`, so the interactive window
//! and the headless screenshot ([`Headless::render`]) share every line of drawing code.
//!
//! The renderer reads no files: art arrives decoded in the `ArtSet`. The one exception is
//! [`write_png`], which writes a finished image.
//!
//! Conventions: world meters with x east, y north, z up; headings in degrees clockwise from
//! north; mesh vertices in OBJ8 axes (+x east, +y up, +z south); texture coordinates `s, t`
//! with `t = 0` at the image's bottom row (the X-Plane convention of OBJ8, FAC and FOR)
//! while images are stored top row first. Depth is reversed (1 near, 0 far) in a
//! `Depth32Float` buffer.

mod atlas;
mod bench;
mod camera;
mod cells;
mod context;
mod cull;
mod draped;
mod facades;
mod framing;
mod geom;
mod headless;
mod lights;
mod objects;
mod overlay;
mod pipelines;
mod placement;
mod scene_gpu;
mod shadow;
mod sun;
mod terrain_chunks;
mod texture;
mod tiles;
mod trees;

pub use bench::{
    bench, bench_camera, bench_on, bench_scene, synthetic_city, BenchCamera, BenchFrame,
    BenchOptions, BenchReport,
};
pub use camera::Camera;
pub use context::{GpuContext, RenderError};
pub use cull::{CullStats, Culling};
pub use framing::Framing;

pub(crate) use headless::{copy_to_buffer, read_back};
pub use headless::{render_to_rgba, write_png, Headless};
pub use overlay::Overlays;
pub use pipelines::{DrawStats, FrameTargets, Renderer};
pub use scene_gpu::{SceneGpu, SceneGpuStats};
pub use sun::{Lighting, Sun};

/// What one frame shows: the camera, the light, which layers and which overlays.
#[derive(Debug, Clone, PartialEq)]
pub struct FrameParams {
    pub camera: Camera,
    /// Object density level 1..6 (`ObjectInstance::visible_at`); 6 shows everything.
    pub density: u8,
    /// Where the sun stands (`--sun`); the light, ambient and sky colours follow from its
    /// elevation ([`Lighting::of`]).
    pub sun: Sun,
    /// Whether the sun casts shadows (`--shadows`): objects, facades and trees through a
    /// shadow map (`shadow.rs`).
    pub shadows: bool,
    /// A plain sky of this colour (linear RGB; also the haze's) instead of the sun's
    /// gradient: `None`, the default, takes the sky from the sun.
    pub sky: Option<[f32; 3]>,
    /// Meters at which the haze reaches about 63%; 0 for none.
    pub visibility_m: f32,
    pub show_terrain: bool,
    pub show_tiles: bool,
    pub show_objects: bool,
    pub show_facades: bool,
    pub show_trees: bool,
    pub overlays: Overlays,
    /// How an object changes LOD at a switch distance.
    pub lod_switch: LodSwitch,
}

/// How an object changes from one LOD to the next at the switch distance.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum LodSwitch {
    /// Cross-fade over a band around the distance: each pixel shows one LOD or the other by
    /// a fixed screen-space ordered-dither pattern, shifted per instance, the two LODs'
    /// pixels complementary; nothing changes from frame to frame. Tiles fade out over the
    /// last tenth of their LOD.
    #[default]
    Fade,
    /// Switch at the distance, as X-Plane does: the pop shows. Tiles end at their LOD.
    Hard,
}

impl std::str::FromStr for LodSwitch {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "fade" => Ok(LodSwitch::Fade),
            "hard" => Ok(LodSwitch::Hard),
            _ => Err(format!("`{s}`: expected fade or hard")),
        }
    }
}

impl Default for FrameParams {
    fn default() -> Self {
        FrameParams {
            camera: Camera::orbit([0.0, 0.0, 0.0], 300.0, 45.0, 35.0),
            density: 6,
            sun: Sun::NOON,
            shadows: true,
            sky: None,
            visibility_m: 40_000.0,
            show_terrain: true,
            show_tiles: true,
            show_objects: true,
            show_facades: true,
            show_trees: true,
            overlays: Overlays::default(),
            lod_switch: LodSwitch::Fade,
        }
    }
}

impl FrameParams {
    /// The sky's colour at the horizon (linear RGB): `sky`, else the sun's. The clear colour
    /// of a frame.
    pub fn horizon(&self) -> [f32; 3] {
        self.sky
            .unwrap_or_else(|| Lighting::of(self.sun).horizon.to_array())
    }

    /// Default parameters with the camera framing a scene's bounds
    /// ([`Camera::frame_scene`]).
    pub fn framing(bounds: ([f32; 2], [f32; 2])) -> Self {
        FrameParams {
            camera: Camera::frame_scene(bounds),
            ..FrameParams::default()
        }
    }
}
