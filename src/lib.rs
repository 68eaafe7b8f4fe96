//! agview: a previewer for X-Plane and FSX autogen art.
//!
//! The flow is one direction: files are parsed by [`format`] into typed assets with
//! source spans, [`art`] loads the meshes and images they reference, [`layout`] turns an
//! asset and a polygon into a [`scene::Scene`], and [`render`] draws that scene with wgpu.

#[cfg(feature = "gpu")]
pub mod app;
pub mod art;
pub mod check;
pub mod diag;
pub mod document;
pub mod format;
pub mod input;
pub mod layout;
pub mod pipeline;
pub mod progress;
#[cfg(feature = "gpu")]
pub mod render;
pub mod resolve;
pub mod rng;
pub mod scene;
pub mod terrain;
