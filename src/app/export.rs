//! `agview export`: the laid-out scene of an asset or a document as glTF 2.0 (`.glb`, or
//! `.gltf` with its `.bin` and images beside it), for Blender and the web (docs/export.md).
//!
//! The scene is loaded, its art read and its terrain made exactly as `render` does; the
//! export itself is `agview_export`'s ([`crate::export`]). This file turns the command line
//! into [`ExportOptions`] and says what was written.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

use crate::app::layout_args::LayoutArgs;
use crate::app::options::TerrainArgs;
use crate::export::{Document, ExportError, ExportOptions, Instancing};

/// `--instancing`: how meshes placed more than once are written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum InstancingArg {
    /// `EXT_mesh_gpu_instancing`: one node per spatial cell and mesh, its instances'
    /// transforms in accessors (Blender 4, three.js r146 and later).
    #[default]
    Ext,
    /// Core glTF: one node per instance, the nodes sharing the mesh (Blender 3.x and other
    /// importers without the extension).
    Nodes,
}

impl From<InstancingArg> for Instancing {
    fn from(i: InstancingArg) -> Self {
        match i {
            InstancingArg::Ext => Instancing::Extension,
            InstancingArg::Nodes => Instancing::Nodes,
        }
    }
}

/// `export --terrain`'s help: what the terrain is to an export.
const TERRAIN_HELP: &str = concat!(
    "Terrain: flat, hills, or a 16-bit PNG / GeoTIFF height map (as `render --terrain`): ",
    "what the content stands on, and with --terrain-mesh what is exported of it"
);

/// `agview export`'s arguments.
#[derive(Debug, Clone, clap::Args)]
#[command(mut_arg("terrain", |a| a.help(TERRAIN_HELP)))]
pub struct ExportArgs {
    /// The .agp, .agb, .ags or .agn to export, a lone .obj, .fac or .for, or a document
    /// (DSF text or binary, WED project, apt.dat).
    pub asset: PathBuf,
    #[command(flatten)]
    pub layout: LayoutArgs,
    /// Where to write: FILE.glb (one file), or FILE.gltf with FILE.bin and its images
    /// beside it. Written to a temporary folder and moved into place: nothing partial is
    /// left.
    #[arg(long, value_name = "FILE")]
    pub out: PathBuf,
    /// Object density 1..6 (X-Plane's object rendering levels): the objects `render
    /// --density` draws are the ones exported.
    #[arg(long, default_value_t = 6, value_parser = clap::value_parser!(u8).range(1..=6))]
    pub density: u8,
    /// The object LOD exported (0: the nearest, the default). An object with fewer LODs
    /// exports its last.
    #[arg(long, value_name = "N", default_value_t = 0)]
    pub lod: usize,
    /// Also export the terrain under the framed content, as a mesh.
    #[arg(long)]
    pub terrain_mesh: bool,
    /// `--terrain`, `--terrain-size`, `--terrain-height`, `--exaggeration`: `render`'s
    /// (its `--terrain` told what it means here, [`TERRAIN_HELP`]).
    #[command(flatten)]
    pub terrain: TerrainArgs,
    /// How meshes placed more than once are written. `ext` (the default):
    /// EXT_mesh_gpu_instancing, one node per spatial cell and mesh, listed in
    /// extensionsUsed but not required. An importer that lacks the extension may ignore
    /// it, as glTF lets it: it then shows each of those nodes' mesh only once, at the
    /// node's own place, and none of its instances (Blender 3.x shows one copy per cell).
    /// `nodes`: one core glTF node per instance, sharing the mesh, which every importer
    /// reads.
    #[arg(long, value_enum, value_name = "ext|nodes", default_value_t = InstancingArg::Ext)]
    pub instancing: InstancingArg,
    /// Largest texture side written, in pixels (bigger textures are scaled down). Default:
    /// as the files hold them.
    #[arg(long, value_name = "PX", value_parser = clap::value_parser!(u32).range(1..))]
    pub max_texture_size: Option<u32>,
    /// The most point lights written: objects' light points, one per placed light (a
    /// KHR_lights_punctual light each, which an importer makes a lamp and a viewer lights
    /// every pixel by). Beyond it the rest are left out, with a warning; 0 writes none.
    #[arg(long, value_name = "N", default_value_t = crate::export::scene::lights::MAX_LIGHTS)]
    pub max_lights: usize,
    /// Write opaque base-colour textures as JPEG at this quality (1..100) instead of PNG:
    /// smaller files. Textures with alpha, normal maps and the others stay PNG.
    #[arg(long, value_name = "Q", value_parser = clap::value_parser!(u8).range(1..=100))]
    pub jpeg_quality: Option<u8>,
}

impl ExportArgs {
    /// The export's options; `lone_object` for a lone `.obj`.
    pub fn options(&self, lone_object: bool) -> ExportOptions {
        ExportOptions {
            instancing: self.instancing.into(),
            lod: self.lod,
            terrain_mesh: self.terrain_mesh,
            max_texture_size: self.max_texture_size,
            jpeg_quality: self.jpeg_quality,
            density_level: self.density,
            lone_object,
            max_lights: self.max_lights,
        }
    }
}

/// True when `scene` is a lone `.obj` opened alone: exported as itself (every LOD, its
/// lights).
pub fn is_lone_object(scene: &crate::scene::Scene) -> bool {
    scene.kind == crate::scene::SceneKind::Art
        && scene
            .features
            .first()
            .is_some_and(|f| f.kind == crate::scene::FeatureKind::Obj)
}

/// What an export wrote, for its summary line.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Counts {
    pub meshes: usize,
    /// Placed copies of meshes: an instanced node counts each instance, any other mesh
    /// node one.
    pub instances: usize,
    pub materials: usize,
    pub images: usize,
    /// Light nodes: each placed light once.
    pub lights: usize,
}

impl Counts {
    pub fn of(doc: &Document) -> Counts {
        Counts {
            meshes: doc.meshes.len(),
            instances: doc
                .nodes
                .iter()
                .filter(|n| n.mesh.is_some())
                .map(|n| n.instances.as_ref().map_or(1, |i| i.translation.len()))
                .sum(),
            materials: doc.materials.len(),
            images: doc.images.len(),
            lights: doc.nodes.iter().filter(|n| n.light.is_some()).count(),
        }
    }
}

/// Checks what can be checked before any work: the extension, and a folder that exists.
/// (Whether it can be written is found by writing, which leaves nothing behind.)
pub fn check_out(out: &Path) -> Result<(), ExportError> {
    let ext = out
        .extension()
        .map(|e| e.to_string_lossy().to_ascii_lowercase());
    if !matches!(ext.as_deref(), Some("glb" | "gltf")) {
        return Err(ExportError::Extension {
            path: out.to_path_buf(),
        });
    }
    let dir = match out.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    if !dir.is_dir() {
        return Err(ExportError::Io {
            path: out.to_path_buf(),
            error: std::io::Error::new(
                std::io::ErrorKind::NotFound,
                format!("the folder {} does not exist", dir.display()),
            ),
        });
    }
    if out.is_dir() {
        return Err(ExportError::Io {
            path: out.to_path_buf(),
            error: std::io::Error::other("is a folder"),
        });
    }
    Ok(())
}

/// Bytes on disk of what was written to `out`: the file, and for a `.gltf` its `.bin` and
/// the images it names beside it.
fn written_bytes(out: &Path) -> u64 {
    let size = |p: &Path| std::fs::metadata(p).map_or(0, |m| m.len());
    let mut total = size(out);
    let is_gltf = out
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("gltf"));
    if is_gltf {
        let dir = out.parent().unwrap_or(Path::new(""));
        let json: Option<serde_json::Value> = std::fs::read(out)
            .ok()
            .and_then(|b| serde_json::from_slice(&b).ok());
        let uris = json.iter().flat_map(|j| {
            ["buffers", "images"].into_iter().flat_map(move |k| {
                j.get(k)
                    .and_then(|v| v.as_array())
                    .into_iter()
                    .flatten()
                    .filter_map(|x| x.get("uri").and_then(|u| u.as_str()))
                    .filter(|u| !u.starts_with("data:"))
                    .map(str::to_string)
            })
        });
        total += uris.map(|u| size(&dir.join(u))).sum::<u64>();
    }
    total
}

/// Runs `agview export`.
pub fn run(args: &ExportArgs) -> anyhow::Result<ExitCode> {
    let started = Instant::now();
    if let Err(e) = check_out(&args.out) {
        eprintln!("{e}");
        return Ok(ExitCode::from(1));
    }
    let inputs = match args.layout.inputs() {
        Ok(i) => i,
        Err(m) => {
            eprintln!("{}", crate::diag::Diagnostic::error_file(&args.asset, m));
            return Ok(ExitCode::from(1));
        }
    };
    let progress = std::sync::Arc::new(crate::document::Progress::default());
    let opts = crate::document::LoadOptions {
        threads: 0,
        progress: Some(progress.clone()),
        ground: Some(args.terrain.ground()),
    };
    let loaded = crate::app::progress::with_bar("laying out", "features", &progress, || {
        crate::document::load_with(&args.asset, &inputs, &opts)
    });
    let mut doc = match loaded {
        Ok(d) => d,
        Err(e) => {
            eprintln!("{e}");
            return Ok(ExitCode::from(1));
        }
    };
    for w in doc.loaded.warning_lines() {
        eprintln!("{w}");
    }
    let art_opts = crate::art::ArtOptions {
        max_texture_side: args.max_texture_size,
        texture_budget: None,
    };
    let art = crate::document::load_document_art_with(&mut doc, &art_opts);
    for w in &art.warnings {
        eprintln!("{w}");
    }
    // A document screened by SLOPE_LIMIT stands on the terrain it was screened on.
    let terrain = match doc.terrain.take() {
        Some(t) => t,
        None => args
            .terrain
            .terrain_for(&doc.loaded.scene)
            .map_err(anyhow::Error::msg)?,
    };
    let scene = &doc.loaded.scene;
    let lone = is_lone_object(scene);
    let (gltf, warnings) = crate::export::export(scene, &art, &terrain, &args.options(lone));
    drop(art);
    for w in &warnings {
        eprintln!("{w}");
    }
    if let Err(e) = crate::export::write_file(&gltf, &args.out) {
        eprintln!("{e}");
        return Ok(ExitCode::from(1));
    }
    let c = Counts::of(&gltf);
    let lights = match c.lights {
        0 => String::new(),
        n => format!(", {n} light(s)"),
    };
    eprintln!(
        "wrote {}: {} mesh(es), {} instance(s), {} material(s), {} image(s){lights}, {} bytes in {:.2} s",
        args.out.display(),
        c.meshes,
        c.instances,
        c.materials,
        c.images,
        written_bytes(&args.out),
        started.elapsed().as_secs_f64()
    );
    Ok(ExitCode::SUCCESS)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::export::document::{Instances, Node};

    #[test]
    fn counts_instances_per_node() {
        let doc = Document {
            meshes: vec![Default::default(), Default::default()],
            nodes: vec![
                Node {
                    mesh: Some(0),
                    ..Node::default()
                },
                Node {
                    mesh: Some(1),
                    instances: Some(Instances {
                        translation: vec![[0.0; 3]; 5],
                        rotation: vec![[0.0, 0.0, 0.0, 1.0]; 5],
                        scale: vec![[1.0; 3]; 5],
                    }),
                    ..Node::default()
                },
                Node::default(),
            ],
            ..Document::default()
        };
        let c = Counts::of(&doc);
        assert_eq!((c.meshes, c.instances), (2, 6));
    }

    #[test]
    fn output_is_checked_before_any_work() {
        let dir = std::env::temp_dir().join(format!("agview-export-out-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        assert!(check_out(&dir.join("a.glb")).is_ok());
        assert!(check_out(&dir.join("a.GLTF")).is_ok());
        let e = check_out(&dir.join("a.obj")).unwrap_err().to_string();
        assert!(e.contains("must end in .glb or .gltf"), "{e}");
        let e = check_out(&dir.join("missing/a.glb"))
            .unwrap_err()
            .to_string();
        assert!(e.contains("does not exist"), "{e}");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
