//! Loading: what turns a path on the command line into a laid-out scene and its decoded art,
//! with no GPU and no command-line types.
//!
//! - [`resolve`]: the one resolver of a load (the document's package, `--library` packages,
//!   the X-Plane install's), each `library.txt` read once;
//! - [`input`]: the typed layout inputs (polygon, point, origin, seed, …) and how a polygon
//!   file becomes a layout input;
//! - [`document`]: documents (DSF, WED, apt.dat) and lone assets laid out, feature by
//!   feature;
//! - [`art`]: the meshes and images a scene references, decoded;
//! - [`pipeline`]: a load's result ([`pipeline::Loaded`]) and the FSX `.agn` path;
//! - [`check`]: `agview check`'s reading of files and documents.

// The layers below, named as `crate::diag`, `crate::format`, `crate::layout`, ….
use agview_core::{diag, lines, progress, rng, scene, season, terrain};
use agview_format::format;
use agview_layout::layout;

pub mod art;
pub mod check;
pub mod document;
pub mod edit;
pub mod input;
pub mod parallel;
pub mod pipeline;
pub mod resolve;
