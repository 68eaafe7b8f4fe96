//! The readers of every file agview opens, usable alone by other X-Plane tools: one module
//! per format under [`format`], each a function `parse(path, bytes, &mut warnings) ->
//! Result<T, Diagnostic>` that takes bytes, keeps the line (or byte offset) of what it reads
//! and says what it skips. No wgpu, no clap, no resolving, no layout.

// The readers name the bottom layer as `crate::diag`, `crate::lines`, `crate::scene` and `crate::season`.
use agview_core::{diag, lines, scene, season};

pub mod format;
pub mod material;
