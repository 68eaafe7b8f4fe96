//! agview's bottom layer, which every other crate of the workspace uses: the [`scene::Scene`]
//! (the single contract between the layout and the renderer), the [`diag::Diagnostic`]s
//! every stage says, where a line of text ends ([`lines`]), the plane geometry they share
//! ([`geom`]), the seeded generator ([`rng::Rng`]), load progress ([`progress`]), X-Plane 12's seasons
//! ([`season::Season`]) and the terrain ([`terrain::Terrain`]). Plain data and pure functions: no I/O but reading a
//! height map, no GPU.

pub mod diag;
pub mod geom;
pub mod lines;
pub mod progress;
pub mod rng;
pub mod scene;
pub mod season;
pub mod terrain;
