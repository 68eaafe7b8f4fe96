//! What a feature names, resolved where the feature is and opened once per file: the
//! definitions a document's features share.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::{DocFeature, Geometry, OpenedAsset};
use crate::diag::{Diagnostic, Severity};
use crate::format;
use crate::resolve::Resolver;
use crate::scene::FeatureKind;

/// A definition as resolved and opened, shared by every feature that uses it.
#[derive(Debug)]
pub(super) enum Opened {
    Autogen(Box<OpenedAsset>),
    /// A forest: its `SPACING` drives the trees.
    Forest(format::forest::ForestFacts),
    /// An object string: its offset and objects.
    String(Box<StringFacts>),
    /// An object: the art loader reads it.
    Art,
    /// A facade, as its `.fac` reads (its topology, whether it is axial or a jetway; `None`:
    /// it could not be read; the art loader reports why and draws a plain box).
    Facade(Option<Box<format::facade::Facade>>),
    /// A road network's `.net` (`None`: it could not be read; its roads draw in the plain
    /// profile).
    Net(Option<Box<format::net::NetFile>>),
    /// Resolved, but it could not be read (the error was reported once).
    Broken,
    /// Not found (warned once): drawn as a placeholder.
    Missing,
}

/// One feature's resolution.
#[derive(Debug, Clone)]
pub(super) struct Resolution {
    pub(super) resolved: Option<PathBuf>,
    pub(super) package: Option<String>,
    pub(super) opened: Arc<Opened>,
    /// Found through a library (not relative to the document or in its package).
    pub(super) library: bool,
}

impl Resolution {
    /// Whether `SLOPE_LIMIT` counts for `f`: an autogen point placed by library path.
    pub(super) fn screened(&self, f: &DocFeature) -> bool {
        self.library && f.kind == FeatureKind::Agp && matches!(f.geometry, Geometry::Point { .. })
    }
}

/// Resolutions and opened files shared by a document's features.
#[derive(Default)]
pub(super) struct ResolveCache {
    /// Names found as files (relative to the document or in its package): the same
    /// everywhere, so looked up once.
    fixed: HashMap<String, Resolution>,
    /// Names found nowhere (warned once).
    missing: HashMap<String, Resolution>,
    opened: HashMap<PathBuf, Arc<Opened>>,
}

impl ResolveCache {
    /// Resolves `f`'s definition at its place and opens the file it names (once per file).
    pub(super) fn resolve(
        &mut self,
        doc: &Path,
        f: &DocFeature,
        resolver: &Resolver,
        seed: u64,
        diags: &mut Vec<Diagnostic>,
        files: &mut Vec<PathBuf>,
    ) -> Resolution {
        if let Some(item) = &f.airport {
            // An airport's item is drawn with agview's own pavement and line art.
            return Resolution {
                resolved: Some(item.file.clone()),
                package: None,
                opened: Arc::new(Opened::Art),
                library: false,
            };
        }
        if let Some(r) = self.fixed.get(&f.asset).or(self.missing.get(&f.asset)) {
            return r.clone();
        }
        let at = f
            .origin()
            .map(|[lon, lat]| crate::resolve::LatLon { lat, lon });
        // A road network is also looked for in the install's stock roads folder.
        let found = match f.kind {
            FeatureKind::Road => resolver.resolve_network(&f.asset, at),
            _ => resolver.resolve_definition(&f.asset, at, seed),
        };
        let Some(found) = found else {
            let instead = match f.kind {
                FeatureKind::Road => "its roads draw in the plain profile",
                _ => "its features are drawn as placeholders",
            };
            diags.push(
                f.diag(
                    doc,
                    Severity::Warning,
                    format!("{}; {instead}", resolver.definition_missing(&f.asset)),
                )
                .with_kind(crate::diag::kind::UNRESOLVED),
            );
            let r = Resolution {
                resolved: None,
                package: None,
                opened: Arc::new(Opened::Missing),
                library: false,
            };
            self.missing.insert(f.asset.clone(), r.clone());
            return r;
        };
        if found.case_mismatch() {
            diags.push(f.diag(
                doc,
                Severity::Warning,
                format!(
                    "`{}` matches {} only when case is ignored; X-Plane may not find it on a case-sensitive file system (drawn as found)",
                    f.asset,
                    found.path.display()
                ),
            ));
        }
        let fixed = found.is_file_path();
        let opened = self.open(f.kind, &found.path, resolver, diags, files);
        let package = found.package.clone().or_else(|| {
            resolver
                .root
                .as_ref()
                .filter(|root| found.path.starts_with(root))
                .and_then(|root| root.file_name())
                .map(|n| n.to_string_lossy().into_owned())
        });
        let r = Resolution {
            resolved: Some(found.path),
            package,
            opened,
            library: !fixed,
        };
        if fixed {
            self.fixed.insert(f.asset.clone(), r.clone());
        }
        r
    }
}

impl ResolveCache {
    /// The definition in `file`, opened once.
    pub(super) fn open(
        &mut self,
        kind: FeatureKind,
        file: &Path,
        document: &Resolver,
        diags: &mut Vec<Diagnostic>,
        files: &mut Vec<PathBuf>,
    ) -> Arc<Opened> {
        self.opened
            .entry(file.to_path_buf())
            .or_insert_with(|| {
                files.push(file.to_path_buf());
                Arc::new(open_definition(kind, file, document, diags, files))
            })
            .clone()
    }
}

/// Reads what laying out a feature of `kind` needs from its file. Library paths inside it
/// that its own package does not export resolve through the `document`'s libraries (the
/// install's, with `--xplane`).
fn open_definition(
    kind: FeatureKind,
    file: &Path,
    document: &Resolver,
    diags: &mut Vec<Diagnostic>,
    files: &mut Vec<PathBuf>,
) -> Opened {
    match kind {
        FeatureKind::Agp | FeatureKind::Agb | FeatureKind::Ags => {
            match OpenedAsset::open(file, document) {
                Ok(a) => {
                    diags.extend(a.diagnostics.iter().cloned());
                    files.extend(a.files.iter().cloned());
                    Opened::Autogen(Box::new(a))
                }
                Err(e) => {
                    diags.push(e);
                    Opened::Broken
                }
            }
        }
        FeatureKind::For => {
            let spacing = format::read_file(file).and_then(|b| {
                let mut w = Vec::new();
                format::forest::parse(file, &b, &mut w).map(|f| f.facts())
            });
            match spacing {
                Ok(s) => Opened::Forest(s),
                Err(e) => {
                    diags.push(e);
                    Opened::Broken
                }
            }
        }
        FeatureKind::Fac => Opened::Facade(read_facade(file)),
        // The art stage reads draped polygons (and says what is wrong with them).
        FeatureKind::Obj | FeatureKind::Pol | FeatureKind::Lin => Opened::Art,
        FeatureKind::Runway
        | FeatureKind::Helipad
        | FeatureKind::Pavement
        | FeatureKind::Marking => Opened::Art,
        FeatureKind::Road => Opened::Net(super::roads::open_net(file, diags)),
        FeatureKind::Str => match open_string(file, document, diags, files) {
            Some(s) => Opened::String(Box::new(s)),
            None => Opened::Broken,
        },
    }
}

/// What laying out an object string needs: its `OFFSET`, and each `OBJECT`'s turn range
/// and resolved mesh.
#[derive(Debug)]
pub(super) struct StringFacts {
    pub(super) offset: f32,
    pub(super) turns: Vec<[f32; 2]>,
    pub(super) meshes: Vec<crate::scene::ArtRef>,
}

/// Reads a `.str` and resolves the objects it names (a missing one is a warning on its
/// line and draws as a placeholder); `None` when it cannot be read.
fn open_string(
    file: &Path,
    document: &Resolver,
    diags: &mut Vec<Diagnostic>,
    files: &mut Vec<PathBuf>,
) -> Option<StringFacts> {
    let parsed = format::read_file(file).and_then(|b| {
        let mut w = Vec::new();
        let r = format::obj_string::parse(file, &b, &mut w);
        diags.extend(w);
        r
    });
    let s = match parsed {
        Ok(s) => s,
        Err(e) => {
            diags.push(e);
            return None;
        }
    };
    let meshes = s
        .objects
        .iter()
        .map(|o| {
            let resolved = document.resolve(file, &o.path);
            match &resolved {
                Some(p) => files.push(p.clone()),
                None => diags.push(document.missing(file, o.line, "OBJECT", &o.path)),
            }
            crate::scene::ArtRef {
                name: o.path.as_str().into(),
                resolved: resolved.map(|p| crate::diag::shown_path(&p)),
            }
        })
        .collect();
    Some(StringFacts {
        offset: s.offset,
        turns: s.objects.iter().map(|o| o.turn).collect(),
        meshes,
    })
}

/// The facade in `file` (what WED's export and a placement need of it), or `None` when the
/// file cannot be read or parsed (the art stage reports why when it loads it).
fn read_facade(file: &Path) -> Option<Box<format::facade::Facade>> {
    let bytes = format::read_file(file).ok()?;
    format::facade::parse(file, &bytes, &mut Vec::new())
        .ok()
        .map(Box::new)
}
