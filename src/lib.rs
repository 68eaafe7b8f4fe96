//! agview: a previewer for X-Plane and FSX autogen art.
//!
//! The flow is one direction: files are parsed by [`format`] into typed assets with
//! source spans, [`art`] loads the meshes and images they reference, [`layout`] turns an
//! asset and a polygon into a [`scene::Scene`], and [`render`] draws that scene with wgpu.
//!
//! The layers below live in crates of their own (`crates/`): `agview-core` ([`diag`], [`lines`], [`geom`],
//! [`scene`], [`season`], [`rng`], [`progress`], [`terrain`]), `agview-format` ([`format`]) and
//! `agview-layout` ([`layout`]); they are re-exported here under their old names.

pub use agview_core::{diag, geom, lines, progress, rng, scene, season, terrain};
/// The glTF export (`agview-export`).
pub use agview_export as export;
pub use agview_format::format;
pub use agview_layout::layout;
pub use agview_load::{art, check, document, input, pipeline, resolve};

#[cfg(feature = "gpu")]
pub mod app;
#[cfg(feature = "gpu")]
pub use agview_render as render;
