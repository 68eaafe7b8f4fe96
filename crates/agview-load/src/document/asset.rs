//! An autogen asset read once and laid out on many inputs: a document's features, the
//! sweep's cells.

use std::path::{Path, PathBuf};

use crate::diag::Diagnostic;
use crate::format::autogen::Autogen;
use crate::format::{self, FileKind};
use crate::layout::LayoutInput;
use crate::resolve::Resolver;
use crate::scene::{ArtRef, Scene};

/// An autogen asset read once and laid out on many inputs (document features, sweep
/// cells). The art it names is resolved once, when it is opened.
#[derive(Debug, Clone)]
pub struct OpenedAsset {
    pub path: PathBuf,
    pub autogen: Autogen,
    /// The forest's spacing and tree heights.
    forest: Option<format::forest::ForestFacts>,
    art: ArtPaths,
    /// Warnings from reading the asset, its library, its forest and the art it names.
    pub diagnostics: Vec<Diagnostic>,
    /// The asset, its library and every art file it resolved to.
    pub files: Vec<PathBuf>,
}

/// Where each art reference of an asset resolved (None: missing, a placeholder is drawn).
#[derive(Debug, Clone, Default)]
struct ArtPaths {
    /// Parallel to `OBJECT`s.
    meshes: Vec<Option<String>>,
    /// Parallel to `FACADE`s.
    facades: Vec<Option<String>>,
    forest: Option<String>,
    texture: Option<String>,
    texture_lit: Option<String>,
}

impl OpenedAsset {
    /// True for an autogen point (`.agp`), which is placed at a point rather than laid out
    /// on a polygon.
    pub fn is_point(&self) -> bool {
        self.autogen.kind == format::autogen::AutogenKind::Agp
    }

    /// Reads and parses an `.agp`, `.agb` or `.ags`, and resolves the art it names with
    /// the load's `resolver` (missing art is a warning on the line that names it): relative
    /// to the asset, then through the libraries (the document's package, `--library`, the
    /// install's), then in the asset's package; textures the same way, with their twin.
    pub fn open(path: &Path, resolver: &Resolver) -> Result<Self, Diagnostic> {
        let bytes = format::read_file(path)?;
        if FileKind::detect(path, &bytes) != Some(FileKind::Autogen) {
            return Err(Diagnostic::error_file(
                path,
                "not an X-Plane autogen asset: expected .agp, .agb or .ags",
            ));
        }
        let mut diagnostics = Vec::new();
        let autogen = format::autogen::parse(path, &bytes, &mut diagnostics)?;
        let mut files = vec![path.to_path_buf()];
        // Its package's library reloads the view when it changes.
        let library = crate::resolve::package_root(path).join("library.txt");
        if library.is_file() {
            files.push(library);
        }
        let mut one = |name: &str, line: u32, what: &str, texture: bool| {
            let found = if texture {
                resolver.resolve_texture(path, name)
            } else {
                resolver.resolve(path, name)
            };
            match found {
                Some(p) => {
                    let s = crate::diag::shown_path(&p);
                    files.push(p);
                    Some(s)
                }
                None => {
                    diagnostics.push(if what == "TEXTURE_LIT" {
                        resolver.missing_then(path, line, what, name, "the tiles do not glow")
                    } else {
                        resolver.missing(path, line, what, name)
                    });
                    None
                }
            }
        };
        let ag = &autogen;
        let art = ArtPaths {
            meshes: ag
                .objects
                .iter()
                .map(|d| one(&d.path, d.line, "OBJECT", false))
                .collect(),
            facades: ag
                .facades
                .iter()
                .map(|d| one(&d.path, d.line, "FACADE", false))
                .collect(),
            forest: ag
                .vegetation
                .as_ref()
                .and_then(|d| one(&d.path, d.line, "VEGETATION", false)),
            texture: ag
                .texture
                .as_ref()
                .and_then(|d| one(&d.path, d.line, "TEXTURE", true)),
            texture_lit: ag
                .lit_texture()
                .and_then(|d| one(&d.path, d.line, "TEXTURE_LIT", true)),
        };
        let forest = art.forest.as_ref().and_then(|p| {
            let p = Path::new(p);
            let b = format::read_file(p).ok()?;
            format::forest::parse(p, &b, &mut Vec::new())
                .ok()
                .map(|f| f.facts())
        });
        Ok(OpenedAsset {
            path: path.to_path_buf(),
            autogen,
            forest,
            art,
            diagnostics,
            files,
        })
    }

    /// Lays the asset out on `input`, with its art references resolved.
    pub fn layout(&self, mut input: LayoutInput) -> Result<Scene, Diagnostic> {
        let forest = self.forest.as_ref();
        input.forest_spacing = input.forest_spacing.or(forest.map(|f| f.spacing));
        let mut scene = crate::layout::layout(&self.autogen, &self.path, &input)?;
        if let Some(f) = forest {
            crate::layout::trees::seed_heights(&mut scene.trees, 0, f);
        }
        let set = |refs: &mut [ArtRef], paths: &[Option<String>]| {
            for (r, p) in refs.iter_mut().zip(paths) {
                r.resolved.clone_from(p);
            }
        };
        set(&mut scene.meshes, &self.art.meshes);
        set(&mut scene.facade_defs, &self.art.facades);
        if let Some(r) = scene.forest.as_mut() {
            r.resolved.clone_from(&self.art.forest);
        }
        if let Some(t) = scene.tile_texture.as_mut() {
            if let Some(p) = &self.art.texture {
                t.path.clone_from(p);
            }
            // Resolved, or none (a missing one was warned about): never the raw name.
            t.lit.clone_from(&self.art.texture_lit);
        }
        scene.update_stats();
        Ok(scene)
    }
}

/// An autogen asset opened on its own and laid out on the command line's layout inputs:
/// the same opening and layout as a document's autogen feature.
pub(crate) fn load_alone(
    path: &Path,
    args: &crate::input::Inputs,
    resolver: &Resolver,
    mut diagnostics: Vec<Diagnostic>,
) -> Result<crate::pipeline::Loaded, Diagnostic> {
    let opened = OpenedAsset::open(path, resolver)?;
    diagnostics.extend(opened.diagnostics.iter().cloned());
    let input = crate::input::build(args, path, &mut diagnostics)?;
    let mut files = opened.files.clone();
    files.extend(args.polygon_path().map(Path::to_path_buf));
    let scene = opened.layout(input)?;
    Ok(crate::pipeline::Loaded {
        scene,
        diagnostics,
        files,
    })
}
