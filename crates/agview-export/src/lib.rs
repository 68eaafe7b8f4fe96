//! glTF 2.0 export of a laid-out scene (issue 38, `docs/export.md`).
//!
//! The export is built in three steps, each its own module:
//! - [`scene`]: a [`Scene`](agview_core::scene::Scene) and its [`ArtSet`] become a
//!   [`Document`]: agview-mesh's CPU meshes (tiles, objects, facades, trees, draped ground,
//!   roads, terrain) as meshes and nodes, repeated meshes instanced;
//! - [`textures`]: what a surface looks like ([`textures::Look`]) becomes a glTF PBR
//!   material by the one material rule (`agview_format::material`), its images encoded;
//! - [`write`]: a [`Document`] becomes a `.glb`, or a `.gltf` with its `.bin` and images,
//!   written to a temporary folder and moved into place.
//!
//! [`document`] is the in-memory glTF the three share: plain data, no JSON until written.

pub mod document;
pub mod scene;
pub mod textures;
pub mod write;

pub use document::Document;
pub use scene::export;
pub use write::{to_glb, write_file};

/// How repeated meshes are written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Instancing {
    /// `EXT_mesh_gpu_instancing`, one node per spatial cell and mesh (the default).
    #[default]
    Extension,
    /// Core glTF: one node per instance, sharing the mesh (Blender 3.x, older importers).
    Nodes,
}

/// What an export holds and how it is written (the `export` command's options).
#[derive(Debug, Clone, PartialEq)]
pub struct ExportOptions {
    pub instancing: Instancing,
    /// The object LOD exported (`--lod N`; 0 by default).
    pub lod: usize,
    /// Export the terrain under the framed content (`--terrain-mesh`).
    pub terrain_mesh: bool,
    /// No texture side above this (`--max-texture-size`); `None`: as loaded.
    pub max_texture_size: Option<u32>,
    /// Opaque base colours as JPEG at this quality (`--jpeg-quality`); `None`: PNG.
    pub jpeg_quality: Option<u8>,
    /// The density level whose instances are exported (as `render --density`).
    pub density_level: u8,
    /// A lone `.obj`: every LOD as its own node (LOD 0 visible).
    pub lone_object: bool,
    /// The most light nodes (objects' light points, `KHR_lights_punctual`) the export
    /// holds (`--max-lights`; [`scene::lights::MAX_LIGHTS`] by default); the rest are left
    /// out with a warning. 0: none.
    pub max_lights: usize,
}

impl Default for ExportOptions {
    fn default() -> Self {
        ExportOptions {
            instancing: Instancing::Extension,
            lod: 0,
            terrain_mesh: false,
            max_texture_size: None,
            jpeg_quality: None,
            density_level: u8::MAX,
            lone_object: false,
            max_lights: scene::lights::MAX_LIGHTS,
        }
    }
}

/// Why an export could not be written. Nothing is left on disk when one is returned.
#[derive(Debug)]
pub enum ExportError {
    /// The binary chunk or the whole `.glb` would pass glTF's 4 GiB limit.
    TooLarge { bytes: u64 },
    /// The output's folder is missing or cannot be written, or the write failed.
    Io {
        path: std::path::PathBuf,
        error: std::io::Error,
    },
    /// The output's extension is neither `.glb` nor `.gltf`.
    Extension { path: std::path::PathBuf },
}

impl std::fmt::Display for ExportError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ExportError::TooLarge { bytes } => write!(
                f,
                "the scene needs {:.2} GiB, more than one glTF binary holds (4 GiB): export less (--only, --lod, --max-texture-size)",
                *bytes as f64 / (1u64 << 30) as f64
            ),
            ExportError::Io { path, error } => write!(f, "{}: error: {error}", path.display()),
            ExportError::Extension { path } => write!(
                f,
                "{}: error: the output must end in .glb or .gltf",
                path.display()
            ),
        }
    }
}

impl std::error::Error for ExportError {}

/// What the export said on the way (missing textures, skipped parts), as the command line
/// prints them.
pub type Warnings = Vec<String>;
