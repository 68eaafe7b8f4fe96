//! What a load holds ([`Loaded`]: the scene, its messages, the files it depends on), an FSX
//! `.agn` read and laid out on its own (X-Plane assets and documents go through the document
//! stage), and the art a scene names loaded.

use std::path::{Path, PathBuf};

use crate::art::ArtSet;
use crate::diag::Diagnostic;
use crate::format::{self, FileKind};
use crate::input::{self, Inputs};
use crate::scene::Scene;

/// A laid-out asset and what was said on the way.
#[derive(Debug, Clone)]
pub struct Loaded {
    pub scene: Scene,
    /// Warnings from reading the asset, its polygon and its references.
    pub diagnostics: Vec<Diagnostic>,
    /// Every file the scene depends on (asset, polygon, resolved art), for hot reload.
    pub files: Vec<PathBuf>,
}

impl Loaded {
    /// Every message of the load: the diagnostics, then the layout's own. A document's
    /// skipped features stand in both lists; they are said once.
    pub fn messages(&self) -> Vec<Diagnostic> {
        let mut out = self.diagnostics.clone();
        let said: std::collections::HashSet<String> = out.iter().map(|d| d.to_string()).collect();
        out.extend(
            self.scene
                .warnings
                .iter()
                .filter(|w| !said.contains(&w.to_string()))
                .cloned(),
        );
        out
    }

    /// [`Loaded::messages`] as the lines the command line prints.
    pub fn warning_lines(&self) -> Vec<String> {
        self.messages().iter().map(ToString::to_string).collect()
    }
}

/// Reads an FSX `.agn` and lays it out with `args` (an X-Plane autogen asset is opened and
/// laid out by the document stage, as a document's feature is).
pub(crate) fn load_scene(asset: &Path, args: &Inputs) -> Result<Loaded, Diagnostic> {
    let bytes = format::read_file(asset)?;
    let mut diags = Vec::new();
    let mut files = vec![asset.to_path_buf()];
    files.extend(args.polygon_path().map(Path::to_path_buf));
    let kind = FileKind::detect(asset, &bytes);
    let mut scene = match kind {
        Some(FileKind::Agn) => {
            let agn = format::agn::parse(asset, &bytes, &mut diags)?;
            let input = input::build(args, asset, &mut diags)?;
            let origin = args.origin;
            if let Some(m) = &args.guid_map {
                files.push(m.clone());
            }
            let opts = crate::layout::agn::load_options(
                asset,
                args.guid_map.as_deref(),
                origin,
                &mut diags,
            );
            let mut scene = crate::layout::agn::layout(&agn, asset, &input, &opts)?;
            // A skipped chunk is an error, but the rest is shown; only when nothing could
            // be shown does the load fail.
            if scene.is_empty() {
                if let Some(first) = diags.iter().find(|d| d.is_error()) {
                    let n = diags.iter().filter(|d| d.is_error()).count();
                    return Err(Diagnostic {
                        message: format!(
                            "{} (nothing in the file could be shown: {n} error(s))",
                            first.message
                        ),
                        ..first.clone()
                    });
                }
            }
            // The reader's diagnostics reach the JSON too, before the layout's own.
            let mut lines = diags.clone();
            lines.append(&mut scene.warnings);
            scene.warnings = lines.into();
            texture_facades(&mut scene);
            files.extend(
                scene
                    .facades
                    .iter()
                    .filter_map(|f| f.texture.as_ref().map(PathBuf::from)),
            );
            files.extend(scene.facade_roofs.iter().map(|(_, r)| PathBuf::from(r)));
            files.extend(scene.more_forests.iter().map(|f| PathBuf::from(&*f.name)));
            files.extend(scene.meshes.iter().map(|m| PathBuf::from(&*m.name)));
            scene
        }
        _ => {
            return Err(Diagnostic::error_file(
                asset,
                "not an FSX autogen annotation: expected .agn",
            ))
        }
    };
    scene.update_stats();
    Ok(Loaded {
        scene,
        diagnostics: diags,
        files,
    })
}

/// AGN buildings name a texture rather than a facade: give each distinct (wall texture,
/// roof texture) pair a facade definition (the art loader makes a facade of an image, and
/// takes the roof from `facade_roofs`) so they are drawn with it.
fn texture_facades(scene: &mut Scene) {
    let mut pairs: Vec<(String, Option<String>, usize)> = Vec::new();
    for i in 0..scene.facades.len() {
        let Some(tex) = scene.facades[i].texture.clone() else {
            continue;
        };
        if scene.facades[i].facade.is_some() {
            continue;
        }
        let roof = scene.facades[i].roof_texture.clone();
        let def = match pairs.iter().find(|(t, r, _)| *t == tex && *r == roof) {
            Some(p) => p.2,
            None => {
                scene.facade_defs.push(crate::scene::ArtRef {
                    name: tex.as_str().into(),
                    resolved: Some(tex.clone()),
                });
                let d = scene.facade_defs.len() - 1;
                if let Some(r) = &roof {
                    scene.facade_roofs.push((d, r.clone()));
                }
                pairs.push((tex, roof, d));
                d
            }
        };
        scene.facades[i].facade = Some(def);
    }
}

/// Loads the art a scene names (meshes, textures, facades, forest).
pub fn load_art(scene: &Scene) -> ArtSet {
    crate::art::load_art_set(scene)
}

/// [`load_art`] with art options (a texture size cap).
pub fn load_art_with(scene: &Scene, opts: &crate::art::ArtOptions) -> ArtSet {
    crate::art::load_art_set_with(scene, opts)
}
