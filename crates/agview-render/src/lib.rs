//! The wgpu renderer: draws a [`Scene`](crate::scene::Scene) with its
//! [`ArtSet`](crate::art::ArtSet) on a [`Terrain`](crate::terrain::Terrain). What it
//! uploads is built on the CPU by `agview-mesh` (the camera, framing and each draw kind's
//! vertices); this crate holds the device, the pipelines, the uploads and the culling.
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
//!   boxes, tested per view; so are the instances, before the passes look at them.
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

// The layers below, named as `crate::art`, `crate::scene`, `crate::terrain`, ….
use agview_core::{diag, scene, terrain};
use agview_load::art;
// The CPU side of each draw kind, named as the renderer's own modules (`super::objects`).
pub use agview_mesh::{
    atlas, camera, cells, draped, facades, frame, framing, geom, objects, overlay, photometry, sun,
    tiles, trees,
};

mod bench;
mod context;
mod cull;
mod headless;
mod lights;
mod object_cells;
mod pipelines;
mod placement;
mod readback;
mod scene_gpu;
mod shaders;
mod shadow;
mod shared;
mod terrain_chunks;
mod texture;

pub use agview_mesh::{
    feature_boxes, Camera, FrameChoice, FrameParams, Framing, Lighting, LodSwitch, Overlays, Sun,
};
pub use bench::{
    bench, bench_camera, bench_scene, bench_scene_drafted, synthetic_city, window_draft,
    BenchCamera, BenchFrame, BenchOptions, BenchReport,
};
pub use context::{release_freed_memory, GpuContext, RenderError, NO_ADAPTER_ADVICE};
pub use cull::{CullStats, Culling};
pub use headless::{draw_offscreen, write_png, Headless, OverFrame};
pub use pipelines::{DrawStats, FrameTargets, Renderer, HDR_FORMAT};
pub use readback::ReadBack;
pub use scene_gpu::{PartGround, SceneGpu, SceneGpuStats, ScenePart, SceneTextures};
pub use shared::{cpu_adapter, GpuShared};
