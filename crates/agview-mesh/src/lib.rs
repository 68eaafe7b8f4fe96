//! What a view is made of, built on the CPU: the [`Camera`], what the default view frames
//! ([`Framing`]), the [`Sun`], a frame's parameters ([`FrameParams`]), and the vertex and
//! instance data of each draw kind, which the renderer (`agview-render`) uploads:
//!
//! - [`tiles`]: autogen tile pieces (`atlas`: their texture sub-rectangles);
//! - [`objects`]: meshes, their LODs and instances;
//! - [`facades`]: facade walls and roofs;
//! - [`trees`]: forest trees as crossed quads;
//! - [`draped`]: draped polygons, painted lines and objects' draped parts;
//! - [`roads`]: road ribbons, drawn with the draped parts;
//! - [`overlay`]: the debug overlays' lines;
//! - [`cells`]: runs of records with their boxes, culled per view on the CPU.
//!
//! No GPU and no window: the report frames its close-ups, and an export builds meshes,
//! without a device.

// The layers below, named as `crate::art`, `crate::scene`, `crate::terrain`, ….
use agview_core::{scene, terrain};
#[cfg(test)]
use agview_layout::layout;
use agview_load::art;

pub mod atlas;
pub mod camera;
pub mod cells;
pub mod draped;
pub mod facades;
pub mod frame;
pub mod framing;
pub mod geom;
pub mod objects;
pub mod overlay;
pub mod photometry;
pub mod roads;
pub mod sun;
pub mod tiles;
pub mod trees;

pub use camera::Camera;
pub use frame::{FrameParams, LodSwitch};
pub use framing::{feature_boxes, FrameChoice, Framing};
pub use overlay::Overlays;
pub use sun::{Lighting, Sun};
