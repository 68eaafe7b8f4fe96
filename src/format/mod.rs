//! Readers for every file an autogen asset involves. Each reader takes the file's path (for
//! diagnostics) and its bytes, pushes warnings into a list, and returns typed data that keeps
//! the source line of every directive, or the first error.

pub mod agn;
pub mod autogen;
pub mod dsf;
pub mod facade;
pub mod forest;
pub mod geojson;
pub mod library;
pub mod obj8;
pub mod text;
