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
use crate::format::text::name_path;
pub use crate::season::Season;

pub use install::xplane_root;
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

/// What a command asks of resolution, typed once from its command line.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ResolveOptions {
    /// The X-Plane install (`--xplane DIR`, else `XPLANE_ROOT`, as [`xplane_root`] checks
    /// it), whose packages' libraries rank last.
    pub xplane: Option<PathBuf>,
    /// `--library DIR`, in the order given: a package (a folder holding `library.txt`) or a
    /// folder of packages (as `Custom Scenery` is). They rank after the document's own
    /// package and before the install's.
    pub libraries: Vec<PathBuf>,
    /// The season whose `EXPORT*_SEASON` exports a lookup takes (summer by default).
    pub season: Season,
}

/// One package's `library.txt`, read.
#[derive(Debug, Clone)]
struct PackageLibrary {
    dir: PathBuf,
    library_txt: PathBuf,
    library: Library,
    /// A `--library` package (watched by the viewer), not one of the install's.
    given: bool,
}

/// The library packages a command brings beside the document's own, each `library.txt`
/// read once for the whole command: the `--library` packages, then the install's in
/// X-Plane's priority order. Every [`Resolver`] of the command is made from them.
#[derive(Debug, Clone, Default)]
pub struct Libraries {
    packages: Vec<PackageLibrary>,
    /// The packages' folders as the file system names them, to read each once.
    seen: std::collections::HashSet<PathBuf>,
    /// Whether an install was given (its absence is worth a hint on a miss).
    install: bool,
    /// The install itself, where the stock road networks are looked for last.
    install_root: Option<PathBuf>,
    season: Season,
}

impl Libraries {
    /// Reads the libraries `opts` names. A `--library` folder that holds no package is a
    /// warning; an install package's unreadable or malformed `library.txt` is a warning and
    /// the package is skipped; a package's other warnings are summed up in one line.
    pub fn load(opts: &ResolveOptions, diags: &mut Vec<Diagnostic>) -> Libraries {
        let mut out = Libraries {
            packages: Vec::new(),
            seen: Default::default(),
            install: opts.xplane.is_some(),
            install_root: opts.xplane.as_deref().map(crate::format::as_on_disk),
            season: opts.season,
        };
        for dir in &opts.libraries {
            let found = library_packages(&crate::format::as_on_disk(dir));
            if found.is_empty() {
                diags.push(Diagnostic::warning_file(
                    dir,
                    "--library: neither a package (a folder holding library.txt) nor a folder of packages; nothing read",
                ).with_kind(crate::diag::kind::MISSING_FILE));
            }
            for p in found {
                out.read(&p, true, diags);
            }
        }
        if let Some(xp) = &opts.xplane {
            for p in install::packages(&crate::format::as_on_disk(xp), diags) {
                if p.join("library.txt").is_file() {
                    out.read(&p, false, diags);
                }
            }
        }
        out
    }

    /// Reads the package in `dir` once: a package met a second time keeps its first rank.
    fn read(&mut self, dir: &Path, given: bool, diags: &mut Vec<Diagnostic>) {
        let canonical = dir.canonicalize().unwrap_or_else(|_| dir.to_path_buf());
        if !self.seen.insert(canonical) {
            return;
        }
        let library_txt = dir.join("library.txt");
        let mut warnings = Vec::new();
        let parsed = crate::format::read_file(&library_txt)
            .and_then(|bytes| crate::format::library::parse(&library_txt, &bytes, &mut warnings));
        match parsed {
            Ok(library) => {
                if let Some(first) = warnings.first() {
                    let more = match warnings.len() {
                        1 => String::new(),
                        n => format!(" ({} more in this file)", n - 1),
                    };
                    // An error here costs its line of a library that is not the user's
                    // document: a warning.
                    diags.push(Diagnostic {
                        message: format!("{}{more}", first.message),
                        severity: first.severity.max(crate::diag::Severity::Warning),
                        ..first.clone()
                    });
                }
                self.packages.push(PackageLibrary {
                    dir: dir.to_path_buf(),
                    library_txt,
                    library,
                    given,
                });
            }
            Err(mut e) => {
                e.severity = crate::diag::Severity::Warning;
                e.message = format!("{}; this package's library is skipped", e.message);
                diags.push(e);
            }
        }
    }
}

/// The packages `dir` names for `--library`: itself when it holds a `library.txt`, else
/// its sub-folders that do, in name order.
fn library_packages(dir: &Path) -> Vec<PathBuf> {
    if dir.join("library.txt").is_file() {
        return vec![dir.to_path_buf()];
    }
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut out: Vec<PathBuf> = entries
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.join("library.txt").is_file())
        .collect();
    out.sort();
    out
}

/// Resolves every name a load meets, through one set of libraries: the definitions a
/// document places, the references inside the assets it opens, and textures. The
/// document's own package ranks first, then the `--library` packages, then the install's.
#[derive(Debug, Clone, Default)]
pub struct Resolver {
    /// The document's own package ([`package_root`]).
    pub root: Option<PathBuf>,
    /// The document package's `library.txt`, as read.
    pub library: Option<Library>,
    /// Every library read (the document's first), merged.
    libraries: LibrarySet,
    /// Whether an X-Plane install's libraries were read (`--xplane`, `XPLANE_ROOT`).
    install: bool,
    /// That install's folder ([`Resolver::resolve_network`]'s last place).
    install_root: Option<PathBuf>,
    /// The season lookups take.
    season: Season,
    /// The `library.txt` of each `--library` package: a change reloads the view.
    given_libraries: Vec<PathBuf>,
}

impl Resolver {
    /// The resolver of a load of `file` (a document, or an asset opened on its own): its
    /// package ([`package_root`]) and that package's `library.txt`, then `libs`. Problems
    /// reading the package's `library.txt` are pushed as diagnostics; resolution then
    /// works without it.
    pub fn new(file: &Path, libs: &Libraries, diags: &mut Vec<Diagnostic>) -> Resolver {
        let root = package_root(file);
        let mut r = Resolver::for_package(&root, diags);
        // A WED project in a folder without a library, nested in a package that has one (as
        // the sample's `partial_block` is), also sees that package's library: it stands in
        // for WED's scan of every installed package (docs/spec-decisions.md).
        if r.library.is_none() && is_wed_project(file) {
            if let Some(dir) = nearest_library_folder(file) {
                let outer = Resolver::for_package(&dir, diags);
                if let Some(lib) = &outer.library {
                    r.libraries.add(&dir, &dir.join("library.txt"), lib, diags);
                }
            }
        }
        let own = r.root.as_deref().and_then(|p| p.canonicalize().ok());
        for p in &libs.packages {
            if own.is_some() && p.dir.canonicalize().ok() == own {
                continue; // the document's package, already first
            }
            r.libraries.add(&p.dir, &p.library_txt, &p.library, diags);
        }
        r.install = libs.install;
        r.install_root = libs.install_root.clone();
        r.season = libs.season;
        r.given_libraries = libs
            .packages
            .iter()
            .filter(|p| p.given)
            .map(|p| p.library_txt.clone())
            .collect();
        r
    }

    /// The resolver of a package alone, through its `library.txt` when it has one.
    fn for_package(root: &Path, diags: &mut Vec<Diagnostic>) -> Resolver {
        let lib = root.join("library.txt");
        let library = lib.is_file().then(|| {
            crate::format::read_file(&lib)
                .and_then(|bytes| crate::format::library::parse(&lib, &bytes, diags))
                .map_err(|e| diags.push(e))
                .ok()
        });
        let library = library.flatten();
        let mut libraries = LibrarySet::default();
        if let Some(l) = &library {
            libraries.add(root, &lib, l, diags);
        }
        Resolver {
            root: Some(root.to_path_buf()),
            library,
            libraries,
            install: false,
            install_root: None,
            season: Season::default(),
            given_libraries: Vec::new(),
        }
    }

    /// The `library.txt` files a view of this load watches besides its package's: those
    /// of the `--library` packages (an install's are not watched).
    pub(crate) fn given_libraries(&self) -> &[PathBuf] {
        &self.given_libraries
    }

    /// Resolves a definition that a document (DSF or WED project) names, as X-Plane does
    /// (GROUND.md §7): as a library path first (the package's own `library.txt`, then the
    /// install's packages in priority order, `REGION`s at `at`, a seeded pick among
    /// alternatives), else as a file relative to the package root. Backslashes read as `/`.
    /// Library paths match case-sensitively, as X-Plane's do; a file of the package that
    /// matches only when case is ignored resolves too, with `via` saying so (WED corrects
    /// case the same way), and [`Resolved::case_mismatch`] tells the caller to warn.
    pub(crate) fn resolve_definition(
        &self,
        name: &str,
        at: Option<LatLon>,
        seed: u64,
    ) -> Option<Resolved> {
        let name = name.replace('\\', "/");
        if let Some(c) = self
            .libraries
            .resolve(&name, at, self.season, Pick::Seeded(seed))
        {
            return Some(Resolved {
                path: normalize(&c.path),
                package: Some(c.package),
                via: c.via,
            });
        }
        let root = self.root.as_ref()?;
        let written = name_path(&name);
        let found = case_insensitive(root, &name)?;
        // The name's own part of the path (the package root is as the user gave it), as the
        // disk spells it: on a file system that ignores case too.
        let n = written.components().count();
        let asked = normalize(&root.join(&written));
        let exact = found
            .components()
            .rev()
            .take(n)
            .eq(asked.components().rev().take(n));
        Some(Resolved {
            path: found,
            package: Some(folder_name(root)),
            via: if exact {
                PATH_IN_PACKAGE
            } else {
                CASE_CORRECTED
            }
            .to_string(),
        })
    }

    /// Resolves the road network (`.net`) a DSF's `NETWORK_DEF` names, usually
    /// `lib/g10/roads.net` or `lib/g10/roads_EU.net` (ROADS.md §1.6, §2): as any definition
    /// resolves ([`Resolver::resolve_definition`]: the libraries in package priority order,
    /// `REGION`s at `at`, then a file of the document's package), else, with an install
    /// (`--xplane`, `XPLANE_ROOT`), the file of the same name in the install's
    /// `Resources/default scenery/1000 roads/` folder, where the stock networks ship (the
    /// EXPORT line that publishes them is unconfirmed: docs/spec-decisions.md, "Roads: .net
    /// files and the plain profile"). `via` says which; `None` when neither has it, and the
    /// roads then draw in the plain profile.
    pub fn resolve_network(&self, name: &str, at: Option<LatLon>) -> Option<Resolved> {
        if let Some(found) = self.resolve_definition(name, at, 0) {
            return Some(found);
        }
        let install = self.install_root.as_ref()?;
        let slashed = name.replace('\\', "/");
        let file = slashed.rsplit('/').next().filter(|f| !f.is_empty())?;
        let path = crate::format::find_ignoring_case(
            &install.join(install::STOCK_ROADS).join(name_path(file)),
        )?;
        Some(Resolved {
            path: normalize(&path),
            package: Some(folder_name(&install.join(install::STOCK_ROADS))),
            via: STOCK_ROADS_VIA.to_string(),
        })
    }

    /// The warning for a definition that did not resolve: the libraries searched, the file
    /// looked for in the package, and, without an install, how to add one.
    pub(crate) fn definition_missing(&self, name: &str) -> String {
        let name = name.replace('\\', "/");
        let mut places = Vec::new();
        let names: Vec<&str> = self.packages().iter().map(|p| p.name.as_str()).collect();
        match names.len() {
            0 => places.push("no library.txt was read".to_string()),
            1..=3 => places.push(format!(
                "not exported by the library of {}",
                names.join(", ")
            )),
            n => places.push(format!(
                "not exported by the libraries of {n} packages ({}, …)",
                names[..3].join(", ")
            )),
        }
        if let Some(root) = &self.root {
            places.push(format!(
                "no file {}",
                crate::diag::shown_path(&normalize(&root.join(name_path(&name))))
            ));
        }
        let hint = if self.install {
            ""
        } else {
            "; library paths of other packages resolve with --xplane DIR (or XPLANE_ROOT)"
        };
        format!("`{name}` not found ({}){hint}", places.join("; "))
    }

    /// The packages whose libraries were read, highest priority first (the document's own
    /// package first when it has a `library.txt`).
    pub fn packages(&self) -> &[Package] {
        self.libraries.packages()
    }

    /// Resolves `name` as written in `from`: a file relative to `from` first, then the
    /// library in package priority order, honouring `REGION`s at `at` and picking among
    /// alternatives with `seed` (the same seed, name and place give the same pick), then a
    /// file relative to `from`'s package ([`package_root`]). Callers that want different features to
    /// vary fold the feature's index into `seed`; the location is mixed in already.
    #[cfg(test)]
    pub(crate) fn resolve_at(
        &self,
        from: &Path,
        name: &str,
        at: Option<LatLon>,
        seed: u64,
    ) -> Option<Resolved> {
        self.resolve_with(from, name, at, Pick::Seeded(seed))
    }

    /// Resolves the library path `name` as [`Resolver::resolve_at`] does, drawing only among
    /// the alternatives whose (normalised) file `admit` accepts; `None` when none is.
    pub(crate) fn resolve_library_admitted(
        &self,
        name: &str,
        at: Option<LatLon>,
        seed: u64,
        admit: &mut dyn FnMut(&Path) -> bool,
    ) -> Option<Resolved> {
        let name = name.replace('\\', "/");
        self.libraries
            .resolve_admitted(&name, at, self.season, Pick::Seeded(seed), &mut |p| {
                admit(&normalize(p))
            })
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
        let relative = normalize(&dir.join(name_path(&name)));
        if relative.is_file() {
            return Some(Resolved {
                path: relative,
                package: None,
                via: "relative path".to_string(),
            });
        }
        if let Some(c) = self.libraries.resolve(&name, at, self.season, pick) {
            return Some(Resolved {
                path: normalize(&c.path),
                package: Some(c.package),
                via: c.via,
            });
        }
        let in_package = in_package(from, &name);
        in_package.is_file().then(|| Resolved {
            package: Some(folder_name(&package_root(from))),
            path: in_package,
            via: PATH_IN_PACKAGE.to_string(),
        })
    }

    /// `name` as a library path alone (the first alternative in priority order), as the
    /// libraries this resolver read export it.
    pub(crate) fn resolve_library(&self, name: &str) -> Option<PathBuf> {
        self.libraries
            .resolve(&name.replace('\\', "/"), None, self.season, Pick::First)
            .map(|c| normalize(&c.path))
    }

    /// Like [`Resolver::resolve`], also trying the `.dds`/`.png` twin of a texture name.
    pub(crate) fn resolve_texture(&self, from: &Path, name: &str) -> Option<PathBuf> {
        crate::format::texture_candidates(Path::new(name))
            .iter()
            .find_map(|c| self.resolve(from, &c.to_string_lossy()))
    }

    /// Every place `name` could be, in the order they are tried (the library's answer as
    /// [`Resolver::resolve`] gives it).
    pub fn candidates(&self, from: &Path, name: &str) -> Vec<PathBuf> {
        let name = name.replace('\\', "/");
        let mut out = Vec::new();
        let dir = from.parent().unwrap_or(Path::new(""));
        out.push(normalize(&dir.join(name_path(&name))));
        if let Some(c) = self
            .libraries
            .resolve(&name, None, self.season, Pick::First)
        {
            out.push(normalize(&c.path));
        }
        out.push(in_package(from, &name));
        out.dedup();
        out
    }

    /// A warning for a reference that did not resolve, naming what was tried.
    pub fn missing(&self, from: &Path, line: u32, what: &str, name: &str) -> Diagnostic {
        self.missing_then(from, line, what, name, "a placeholder is drawn")
    }

    /// [`Self::missing`], saying what is drawn instead (`then`).
    pub(crate) fn missing_then(
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
            .map(|p| crate::diag::shown_path(p))
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
        // A name that does not climb out of its folder may be another package's library
        // path: say how to search the install's libraries.
        let slashed = name.replace('\\', "/");
        let hint = if !self.install && !slashed.starts_with("..") && !slashed.starts_with('/') {
            "; if it is a library path of another package, --xplane DIR (or XPLANE_ROOT) \
             searches the install's libraries"
        } else {
            ""
        };
        Diagnostic::warning_at(
            from,
            line.max(1),
            1,
            format!(
                "{what} `{name}` not found (looked for {}{lib}{exported}){hint}; {then}",
                tried.join(", ")
            ),
        )
        .with_kind(crate::diag::kind::UNRESOLVED)
    }
}

fn folder_name(dir: &Path) -> String {
    dir.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| crate::diag::shown_path(dir))
}
/// `Resolved::via` of a file found relative to the package.
const PATH_IN_PACKAGE: &str = "path in package";
/// `Resolved::via` of a road network found in the install's stock roads folder.
const STOCK_ROADS_VIA: &str = "install's 1000 roads folder";
/// `Resolved::via` of a package file found only by ignoring case.
const CASE_CORRECTED: &str = "path in package, case corrected";

impl Resolved {
    /// Whether the file was found only by ignoring case: X-Plane on a case-sensitive file
    /// system may not find it.
    pub(crate) fn case_mismatch(&self) -> bool {
        self.via == CASE_CORRECTED
    }

    /// Whether it was found as a file (relative to the asset or in the package) rather
    /// than through a library.
    pub(crate) fn is_file_path(&self) -> bool {
        matches!(
            self.via.as_str(),
            "relative path" | PATH_IN_PACKAGE | CASE_CORRECTED
        )
    }
}

/// The folder that X-Plane treats as the package of `file` (GROUND.md §7), the one rule
/// every lookup uses:
/// - for a file inside an `Earth nav data` folder (a DSF), the folder holding it
///   (`<root>/Earth nav data/+50+000/+51+000.dsf` → `<root>`);
/// - for a WED project (`earth.wed.xml`), its own folder;
/// - otherwise the nearest folder above `file` that holds an `Earth nav data` folder or a
///   `library.txt` (at most [`MAX_PACKAGE_DEPTH`] up), else `file`'s own folder.
///
/// Worked out on the absolute path, so a relative path from any working directory finds
/// the same folder; the answer keeps the form of `file` (relative stays relative).
pub(crate) fn package_root(file: &Path) -> PathBuf {
    let own = file.parent().map(Path::to_path_buf).unwrap_or_default();
    if is_wed_project(file) {
        return own;
    }
    let abs = absolute(file);
    let earth_nav_data = abs.ancestors().skip(1).find(|d| {
        d.file_name()
            .is_some_and(|n| n.eq_ignore_ascii_case(EARTH_NAV_DATA))
    });
    if let Some(root) = earth_nav_data.and_then(Path::parent) {
        return in_form_of(file, root);
    }
    let found = abs
        .ancestors()
        .skip(1)
        .take(MAX_PACKAGE_DEPTH)
        .find(|d| d.join("library.txt").is_file() || d.join(EARTH_NAV_DATA).is_dir());
    found.map_or(own, |d| in_form_of(file, d))
}

/// The folder of a package's DSF tiles and `apt.dat`.
const EARTH_NAV_DATA: &str = "Earth nav data";

/// `name` as a file of the package of `from` ([`package_root`]).
fn in_package(from: &Path, name: &str) -> PathBuf {
    normalize(&package_root(from).join(name_path(name)))
}

/// Whether `doc` is a WED project (`earth.wed.xml`).
fn is_wed_project(doc: &Path) -> bool {
    doc.file_name()
        .is_some_and(|n| n.eq_ignore_ascii_case(crate::format::wed::WED_FILE))
}

/// The nearest folder above `file` (at most [`MAX_PACKAGE_DEPTH`] up) holding a
/// `library.txt`, in the form of `file`. A relative path is climbed past the working
/// directory too.
fn nearest_library_folder(file: &Path) -> Option<PathBuf> {
    let abs = absolute(file);
    let found = abs
        .ancestors()
        .skip(1)
        .take(MAX_PACKAGE_DEPTH)
        .find(|d| d.join("library.txt").is_file())?;
    Some(in_form_of(file, found))
}

/// `path` made absolute (against the working directory), normalised, and spelled as the
/// disk spells it where case is ignored ([`crate::format::as_on_disk`]): how a document,
/// and every path `check` is given, is read, so output is the same from any folder and
/// whatever case the user typed.
pub fn absolute(path: &Path) -> PathBuf {
    let abs = normalize(&std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf()));
    crate::format::as_on_disk(&abs)
}

/// `dir`, an absolute folder above `file`, written the way `file` is: itself when `file` is
/// absolute, else `file`'s folder followed by as many `..` as `dir` lies above it.
fn in_form_of(file: &Path, dir: &Path) -> PathBuf {
    if file.is_absolute() {
        return dir.to_path_buf();
    }
    let own = absolute(file);
    let depth = own
        .parent()
        .map_or(0, |p| p.components().count())
        .saturating_sub(dir.components().count());
    let mut p = file.parent().map(Path::to_path_buf).unwrap_or_default();
    for _ in 0..depth {
        p.push("..");
    }
    normalize(&p)
}

/// `root/name` matched component by component ignoring case (as WED's
/// `FILE_case_correct` does), when it exists only that way.
pub(crate) fn case_insensitive(root: &Path, name: &str) -> Option<PathBuf> {
    crate::format::find_ignoring_case(&normalize(&root.join(name_path(name))))
        .map(|p| normalize(&p))
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
