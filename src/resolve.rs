//! Finding the files an asset names: relative to the asset, relative to its scenery
//! package, or through the library: the package's own `library.txt` first, then, with an
//! X-Plane install, every package's `library.txt` in the order X-Plane ranks them.
//!
//! X-Plane resolves an art path written in an asset first as a path relative to the file
//! that names it, then as a library path exported by some package. agview finds the
//! document's package by walking up from the asset to the nearest folder holding a
//! `library.txt`; that package ranks first. With an install ([`xplane_root`]) the packages
//! of `Custom Scenery` (in `scenery_packs.ini` order) and `Resources/default scenery`
//! follow ([`install`]), and lookups apply X-Plane's `EXPORT*` and `REGION` rules across
//! them ([`library_set`]). Texture names also try the `.dds`/`.png` twin, as X-Plane does.
//!
//! Every `library.txt` is read once, when the [`Resolver`] is made; a lookup is a hash-map
//! probe. A `Resolver` is plain data (`Send + Sync`), to share behind an `Arc`.

mod install;
mod library_set;
#[cfg(test)]
mod tests;

use std::path::{Path, PathBuf};

use crate::diag::Diagnostic;
use crate::format::library::Library;

pub use install::{xplane_root, CUSTOM_SCENERY, DEFAULT_SCENERY};
pub use library_set::Package;
use library_set::{LibrarySet, Pick};

/// How many folders up from an asset agview looks for `library.txt`.
const MAX_PACKAGE_DEPTH: usize = 6;

/// A place on the earth, in degrees (north and east positive). Library `REGION`s apply by
/// the DSF tile (1×1 degree) holding it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LatLon {
    pub lat: f64,
    pub lon: f64,
}

/// What a name resolved to, and how.
#[derive(Debug, Clone, PartialEq)]
pub struct Resolved {
    pub path: PathBuf,
    /// The package folder name (e.g. `sample_scenery`, `X-Plane Landmarks`), or `None` for
    /// a plain relative path.
    pub package: Option<String>,
    /// Which rule chose it: `relative path`, `path in package`, or the library directive,
    /// e.g. `EXPORT`, `EXPORT_RATIO 0.3 (seeded pick of 2)`, `EXPORT_BACKUP`.
    pub via: String,
}

/// Resolves art paths for the assets of one scenery package, through its own library and
/// (optionally) an X-Plane install's.
#[derive(Debug, Clone, Default)]
pub struct Resolver {
    /// The document's own package: the folder holding its `library.txt`, if one was found.
    pub root: Option<PathBuf>,
    /// The document package's `library.txt`, as read.
    pub library: Option<Library>,
    /// Every library read (the document's first), merged.
    libraries: LibrarySet,
}

impl Resolver {
    /// A resolver for the package that holds `asset`, without an install. Problems reading
    /// `library.txt` are pushed as diagnostics; resolution then works without the library.
    pub fn for_asset(asset: &Path, diags: &mut Vec<Diagnostic>) -> Resolver {
        let start = asset.parent().unwrap_or(Path::new("."));
        let mut dir = Some(start);
        for _ in 0..MAX_PACKAGE_DEPTH {
            let Some(d) = dir else { break };
            let lib = d.join("library.txt");
            if lib.is_file() {
                let library = match crate::format::read_file(&lib) {
                    Ok(bytes) => match crate::format::library::parse(&lib, &bytes, diags) {
                        Ok(l) => Some(l),
                        Err(e) => {
                            diags.push(e);
                            None
                        }
                    },
                    Err(e) => {
                        diags.push(e);
                        None
                    }
                };
                let mut libraries = LibrarySet::default();
                if let Some(l) = &library {
                    libraries.add(d, &lib, l, diags);
                }
                return Resolver {
                    root: Some(d.to_path_buf()),
                    library,
                    libraries,
                };
            }
            dir = d.parent().filter(|p| !p.as_os_str().is_empty());
        }
        Resolver::default()
    }

    /// The document's package (found from `doc` as [`Resolver::for_asset`] finds it), then
    /// the packages of the X-Plane install at `xplane`, if any, in X-Plane's priority order.
    /// An install package's unreadable or malformed `library.txt` is a warning and the
    /// package is skipped; its other warnings are summed up in one line.
    pub fn for_document(
        doc: &Path,
        xplane: Option<&Path>,
        diags: &mut Vec<Diagnostic>,
    ) -> Resolver {
        let mut r = Resolver::for_asset(doc, diags);
        let Some(xp) = xplane else { return r };
        let own = r.root.as_deref().and_then(|p| p.canonicalize().ok());
        for dir in install::packages(xp, diags) {
            let lib_txt = dir.join("library.txt");
            if !lib_txt.is_file() {
                continue;
            }
            if own.is_some() && dir.canonicalize().ok() == own {
                continue; // the document's package, already first
            }
            let mut warnings = Vec::new();
            let parsed = crate::format::read_file(&lib_txt)
                .and_then(|bytes| crate::format::library::parse(&lib_txt, &bytes, &mut warnings));
            match parsed {
                Ok(lib) => {
                    if let Some(first) = warnings.first() {
                        let more = match warnings.len() {
                            1 => String::new(),
                            n => format!(" ({} more in this file)", n - 1),
                        };
                        diags.push(Diagnostic {
                            message: format!("{}{more}", first.message),
                            ..first.clone()
                        });
                    }
                    r.libraries.add(&dir, &lib_txt, &lib, diags);
                }
                Err(mut e) => {
                    e.severity = crate::diag::Severity::Warning;
                    e.message = format!("{}; this package's library is skipped", e.message);
                    diags.push(e);
                }
            }
        }
        r
    }

    /// The packages whose libraries were read, highest priority first (the document's own
    /// package first when it has a `library.txt`).
    pub fn packages(&self) -> &[Package] {
        self.libraries.packages()
    }

    /// Resolves `name` as written in `from`: a file relative to `from` first, then one
    /// relative to the document's package, then the library in package priority order,
    /// honouring `REGION`s at `at` and picking among alternatives with `seed` (the same
    /// seed, name and place give the same pick). Callers that want different features to
    /// vary fold the feature's index into `seed`; the location is mixed in already.
    pub fn resolve_at(
        &self,
        from: &Path,
        name: &str,
        at: Option<LatLon>,
        seed: u64,
    ) -> Option<Resolved> {
        self.resolve_with(from, name, at, Pick::Seeded(seed))
    }

    /// Whether `name` written in `from` would be found through a library: it is neither a
    /// file relative to `from` nor one in the document's package.
    pub fn is_library_path(&self, from: &Path, name: &str) -> bool {
        let name = name.replace('\\', "/");
        let dir = from.parent().unwrap_or(Path::new(""));
        !normalize(&dir.join(&name)).is_file()
            && !self
                .root
                .as_ref()
                .is_some_and(|root| normalize(&root.join(&name)).is_file())
    }

    /// The files a library path's alternatives at `at` name, highest priority first.
    pub fn library_alternatives(&self, name: &str, at: Option<LatLon>) -> Vec<PathBuf> {
        self.libraries
            .alternative_paths(&name.replace('\\', "/"), at)
            .iter()
            .map(|p| normalize(p))
            .collect()
    }

    /// Resolves the library path `name` as [`Resolver::resolve_at`] does, drawing only among
    /// the alternatives whose (normalised) file `admit` accepts; `None` when none is.
    pub fn resolve_library_admitted(
        &self,
        name: &str,
        at: Option<LatLon>,
        seed: u64,
        admit: &mut dyn FnMut(&Path) -> bool,
    ) -> Option<Resolved> {
        let name = name.replace('\\', "/");
        self.libraries
            .resolve_admitted(&name, at, Pick::Seeded(seed), &mut |p| admit(&normalize(p)))
            .map(|c| Resolved {
                path: normalize(&c.path),
                package: Some(c.package),
                via: c.via,
            })
    }

    /// The file `name` refers to when written in `from`, if it exists. Among several library
    /// alternatives this is the first in priority and file order (what WED shows, and what
    /// agview resolved before seeded picks), with no location: exports valid everywhere
    /// before regional ones.
    pub fn resolve(&self, from: &Path, name: &str) -> Option<PathBuf> {
        self.resolve_with(from, name, None, Pick::First)
            .map(|r| r.path)
    }

    fn resolve_with(
        &self,
        from: &Path,
        name: &str,
        at: Option<LatLon>,
        pick: Pick,
    ) -> Option<Resolved> {
        let name = name.replace('\\', "/");
        let dir = from.parent().unwrap_or(Path::new(""));
        let relative = normalize(&dir.join(&name));
        if relative.is_file() {
            return Some(Resolved {
                path: relative,
                package: None,
                via: "relative path".to_string(),
            });
        }
        if let Some(root) = &self.root {
            let in_package = normalize(&root.join(&name));
            if in_package.is_file() {
                return Some(Resolved {
                    path: in_package,
                    package: Some(folder_name(root)),
                    via: "path in package".to_string(),
                });
            }
        }
        self.libraries.resolve(&name, at, pick).map(|c| Resolved {
            path: normalize(&c.path),
            package: Some(c.package),
            via: c.via,
        })
    }

    /// Like [`Resolver::resolve`], also trying the `.dds`/`.png` twin of a texture name.
    pub fn resolve_texture(&self, from: &Path, name: &str) -> Option<PathBuf> {
        self.resolve(from, name).or_else(|| {
            let twin = texture_twin(name)?;
            self.resolve(from, &twin)
        })
    }

    /// Every place `name` could be, in the order they are tried (the library's answer as
    /// [`Resolver::resolve`] gives it).
    pub fn candidates(&self, from: &Path, name: &str) -> Vec<PathBuf> {
        let name = name.replace('\\', "/");
        let mut out = Vec::new();
        let dir = from.parent().unwrap_or(Path::new(""));
        out.push(normalize(&dir.join(&name)));
        if let Some(root) = &self.root {
            out.push(normalize(&root.join(&name)));
        }
        if let Some(c) = self.libraries.resolve(&name, None, Pick::First) {
            out.push(normalize(&c.path));
        }
        out.dedup();
        out
    }

    /// A warning for a reference that did not resolve, naming what was tried.
    pub fn missing(&self, from: &Path, line: u32, what: &str, name: &str) -> Diagnostic {
        self.missing_then(from, line, what, name, "a placeholder is drawn")
    }

    /// [`Self::missing`], saying what is drawn instead (`then`).
    pub fn missing_then(
        &self,
        from: &Path,
        line: u32,
        what: &str,
        name: &str,
        then: &str,
    ) -> Diagnostic {
        let mut tried: Vec<String> = self
            .candidates(from, name)
            .iter()
            .map(|p| p.display().to_string())
            .collect();
        tried.dedup();
        let n = self.packages().len();
        let lib = if n > 1 || (n == 1 && self.library.is_none()) {
            format!(" or in the libraries of {n} packages")
        } else if self.library.is_some() {
            " or in library.txt".to_string()
        } else {
            String::new()
        };
        let exported = if self.libraries.exports(&name.replace('\\', "/")) {
            " (exported, but not here or not on disk)"
        } else {
            ""
        };
        Diagnostic::warning_at(
            from,
            line.max(1),
            1,
            format!(
                "{what} `{name}` not found (looked for {}{lib}{exported}); {then}",
                tried.join(", ")
            ),
        )
    }
}

fn folder_name(dir: &Path) -> String {
    dir.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| dir.display().to_string())
}
/// Removes `.` and `name/..` pairs without touching the file system, so messages show the
/// path a person would write.
pub fn normalize(p: &Path) -> PathBuf {
    use std::path::Component;
    let mut out: Vec<Component> = Vec::new();
    for c in p.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir if matches!(out.last(), Some(Component::Normal(_))) => {
                out.pop();
            }
            c => out.push(c),
        }
    }
    if out.is_empty() {
        return PathBuf::from(".");
    }
    out.iter().collect()
}

/// `x.png` ↔ `x.dds`.
fn texture_twin(name: &str) -> Option<String> {
    let lower = name.to_ascii_lowercase();
    let stem = &name[..name.len().checked_sub(4)?];
    if lower.ends_with(".png") {
        Some(format!("{stem}.dds"))
    } else if lower.ends_with(".dds") {
        Some(format!("{stem}.png"))
    } else {
        None
    }
}
