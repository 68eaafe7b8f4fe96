//! An autogen asset read once and laid out on many inputs: a document's features, the
//! sweep's cells.

use std::path::{Path, PathBuf};

use crate::diag::Diagnostic;
use crate::format::autogen::Autogen;
use crate::format::{self, FileKind};
use crate::layout::LayoutInput;
use crate::resolve::Resolver;
use crate::scene::{ArtRef, Scene};

/// An autogen asset read once and laid out on many inputs (DSF features, sweep cells).
#[derive(Debug, Clone)]
pub struct OpenedAsset {
    pub path: PathBuf,
    pub autogen: Autogen,
    resolver: Resolver,
    forest_spacing: Option<[f32; 2]>,
    /// Warnings from reading the asset, its library and its forest.
    pub diagnostics: Vec<Diagnostic>,
    /// The asset, its forest and its library.
    pub files: Vec<PathBuf>,
}

impl OpenedAsset {
    /// Reads and parses an `.agp`, `.agb` or `.ags`.
    pub fn open(path: &Path) -> Result<Self, Diagnostic> {
        let bytes = format::read_file(path)?;
        if FileKind::detect(path, &bytes) != Some(FileKind::Autogen) {
            return Err(Diagnostic::error_file(
                path,
                "not an X-Plane autogen asset: expected .agp, .agb or .ags",
            ));
        }
        let mut diagnostics = Vec::new();
        let autogen = format::autogen::parse(path, &bytes, &mut diagnostics)?;
        let resolver = Resolver::for_asset(path, &mut diagnostics);
        let mut files = vec![path.to_path_buf()];
        if let Some(root) = &resolver.root {
            files.push(root.join("library.txt"));
        }
        let mut forest_spacing = None;
        if let Some(v) = &autogen.vegetation {
            if let Some(p) = resolver.resolve(path, &v.path) {
                if let Ok(b) = format::read_file(&p) {
                    let mut ignore = Vec::new();
                    if let Ok(f) = format::forest::parse(&p, &b, &mut ignore) {
                        forest_spacing = Some(f.spacing);
                    }
                }
            }
        }
        Ok(OpenedAsset {
            path: path.to_path_buf(),
            autogen,
            resolver,
            forest_spacing,
            diagnostics,
            files,
        })
    }

    /// Lays the asset out on `input` and resolves the art it names (missing art becomes a
    /// warning in `diags`; resolved files are added to `files`).
    pub fn layout(
        &self,
        mut input: LayoutInput,
        diags: &mut Vec<Diagnostic>,
        files: &mut Vec<PathBuf>,
    ) -> Result<Scene, Diagnostic> {
        input.forest_spacing = input.forest_spacing.or(self.forest_spacing);
        let mut scene = crate::layout::layout(&self.autogen, &self.path, &input)?;
        self.resolve_refs(&mut scene, diags, files);
        scene.update_stats();
        Ok(scene)
    }

    /// Fills each art reference's `resolved` path, as `pipeline::load_scene` does.
    fn resolve_refs(
        &self,
        scene: &mut Scene,
        diags: &mut Vec<Diagnostic>,
        files: &mut Vec<PathBuf>,
    ) {
        let (asset, resolver, ag) = (&self.path, &self.resolver, &self.autogen);
        let mut one = |r: &mut ArtRef, line: u32, what: &str| match resolver.resolve(asset, &r.name)
        {
            Some(p) => {
                r.resolved = Some(p.display().to_string());
                files.push(p);
            }
            None => diags.push(resolver.missing(asset, line, what, &r.name)),
        };
        for (r, d) in scene.meshes.iter_mut().zip(&ag.objects) {
            one(r, d.line, "OBJECT");
        }
        for (r, d) in scene.facade_defs.iter_mut().zip(&ag.facades) {
            one(r, d.line, "FACADE");
        }
        if let (Some(r), Some(d)) = (scene.forest.as_mut(), ag.vegetation.as_ref()) {
            one(r, d.line, "VEGETATION");
        }
        if let (Some(t), Some(d)) = (scene.tile_texture.as_mut(), ag.texture.as_ref()) {
            match resolver.resolve_texture(asset, &t.path) {
                Some(p) => {
                    t.path = p.display().to_string();
                    files.push(p);
                }
                None => diags.push(resolver.missing(asset, d.line, "TEXTURE", &t.path)),
            }
        }
    }
}
