//! The layout engine: an asset and a polygon (or point) in, a `Scene` out, in local meters,
//! one module per asset kind under [`layout`]. Pure: no I/O, no GPU, no command-line types;
//! randomness only through the seeded `rng::Rng`.

// The layout names the layers below as `crate::diag`, `crate::format` and `crate::scene`
// (and the generator as `layout::rng`).
use agview_core::{diag, scene};
use agview_format::format;

pub mod layout;
