//! `agview check`: validate files and everything they reference.
//!
//! Each file is parsed; every art file it names is resolved ([`crate::resolve`]) and, when
//! found, checked in turn (once, however many files name it). A reference that does not
//! resolve is a warning on the line that names it: the viewer draws a placeholder. An OBJ8
//! object whose culled triangles mostly face inward is a warning too ([`winding`]). A
//! `library.txt` is checked for its exports' files and the seasons its paths cover
//! ([`library`]). Library paths resolve in one season (`--season`, summer by default).

mod library;
mod winding;

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use crate::diag::Diagnostic;
use crate::format::{self, FileKind, Parsed};
use crate::progress::Progress;
use crate::resolve::Resolver;

/// What a check found.
#[derive(Debug, Default)]
pub struct CheckReport {
    /// Every diagnostic, in the order found.
    pub diagnostics: Vec<Diagnostic>,
    /// Files parsed (the ones named and the ones they reference).
    pub files: usize,
    /// Features of the documents checked.
    pub features: usize,
}

impl CheckReport {
    pub fn errors(&self) -> usize {
        self.diagnostics.iter().filter(|d| d.is_error()).count()
    }
    pub fn warnings(&self) -> usize {
        self.count(crate::diag::Severity::Warning)
    }
    pub fn notes(&self) -> usize {
        self.count(crate::diag::Severity::Note)
    }
    fn count(&self, severity: crate::diag::Severity) -> usize {
        self.diagnostics
            .iter()
            .filter(|d| d.severity == severity)
            .count()
    }
}

/// Checks files and folders (recursively: every file agview reads in them).
pub fn check_paths(paths: &[PathBuf]) -> CheckReport {
    check_paths_with(paths, &CheckOptions::default())
}

/// How to check, beyond the paths.
#[derive(Debug, Default, Clone, Copy)]
pub struct CheckOptions<'a> {
    /// An X-Plane install whose libraries resolve a document's library paths (`--xplane`);
    /// without it, `XPLANE_ROOT`.
    pub xplane: Option<&'a Path>,
    /// Library packages that resolve library paths without an install (`--library`).
    pub libraries: &'a [PathBuf],
    /// The season library paths resolve in (`--season`).
    pub season: crate::season::Season,
    /// Counts each file and document checked.
    pub progress: Option<&'a Progress>,
}

/// [`check_paths`] with an install and a progress count.
pub fn check_paths_with(paths: &[PathBuf], opts: &CheckOptions) -> CheckReport {
    let progress = opts.progress;
    let mut c = Checker {
        options: crate::resolve::ResolveOptions {
            // An install that is not one is said when a document is loaded with it.
            xplane: crate::resolve::xplane_root(opts.xplane).ok().flatten(),
            libraries: opts.libraries.to_vec(),
            season: opts.season,
        },
        ..Checker::default()
    };
    // Absolute paths, as a document's load uses: a file checked on its own and again as part
    // of a document is then named alike, and each message is said once.
    let paths: Vec<PathBuf> = paths.iter().map(|p| crate::resolve::absolute(p)).collect();
    let paths = &paths;
    let mut total = 0;
    let mut count = |more: usize, done: usize| {
        if let Some(p) = progress {
            total += more;
            p.set_total(total);
            p.add(done);
        }
    };
    for p in paths {
        if p.is_dir() {
            let mut files = Vec::new();
            collect(p, &mut files, 0);
            files.sort();
            // A scenery folder's WED project is also checked as a document.
            let wed = p.join(crate::document::WED_FILE);
            count(files.len() + usize::from(wed.is_file()), 0);
            for f in files {
                c.check_file(&f, true);
                // A DSF or apt.dat in the folder is also laid out as a document.
                if is_dsf_or_apt(&f) {
                    c.check_document(&f);
                }
                count(0, 1);
            }
            if wed.is_file() {
                c.check_document(&wed);
                count(0, 1);
            }
        } else {
            count(1, 0);
            c.check_file(p, false);
            let head = std::fs::read(p).unwrap_or_default();
            if crate::document::is_document(FileKind::detect(p, &head)) {
                c.check_document(p);
            }
            count(0, 1);
        }
    }
    c.report
}

/// Whether a file found in a folder is a DSF (text or binary) or an `apt.dat`, by its name
/// and first bytes.
fn is_dsf_or_apt(path: &Path) -> bool {
    use std::io::Read;
    let mut head = Vec::new();
    if let Ok(f) = std::fs::File::open(path) {
        let _ = f.take(4096).read_to_end(&mut head);
    }
    matches!(
        FileKind::detect(path, &head),
        Some(FileKind::DsfText | FileKind::DsfBinary | FileKind::Apt)
    )
}

fn collect(dir: &Path, out: &mut Vec<PathBuf>, depth: usize) {
    if depth > 16 {
        return;
    }
    let Ok(rd) = std::fs::read_dir(dir) else {
        return;
    };
    for e in rd.flatten() {
        let p = e.path();
        let hidden = p
            .file_name()
            .is_some_and(|n| n.to_string_lossy().starts_with('.'));
        if hidden {
            continue;
        }
        if p.is_dir() {
            collect(&p, out, depth + 1);
        } else {
            out.push(p);
        }
    }
}

#[derive(Default)]
struct Checker {
    report: CheckReport,
    seen: HashSet<PathBuf>,
    /// `--xplane` and `--library`.
    options: crate::resolve::ResolveOptions,
    /// Their libraries, read once when a file's references first need them.
    libraries: Option<crate::resolve::Libraries>,
    /// One resolver per package root, made once.
    resolvers: std::collections::HashMap<PathBuf, std::rc::Rc<Resolver>>,
}

impl Checker {
    fn check_file(&mut self, path: &Path, from_walk: bool) {
        let key = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
        if !self.seen.insert(key) {
            return;
        }
        let bytes = match format::read_file(path) {
            Ok(b) => b,
            Err(e) => {
                self.report.diagnostics.push(e);
                return;
            }
        };
        let Some(kind) = FileKind::detect(path, &bytes) else {
            if !from_walk {
                self.report.diagnostics.push(Diagnostic::error_file(
                    path,
                    "not a file agview reads (expected .agp .agb .ags .agn .obj .for .fac .net .geojson, library.txt or DSF text)",
                ));
            }
            return;
        };
        if kind == FileKind::Image {
            if !from_walk {
                self.check_image(path, &bytes);
            }
            return;
        }
        self.report.files += 1;
        let mut diags = Vec::new();
        let parsed = format::parse_as(kind, path, &bytes, &mut diags);
        self.report.diagnostics.append(&mut diags);
        match parsed {
            Ok(p) => self.check_refs(path, &p),
            Err(e) => self.report.diagnostics.push(e),
        }
    }

    /// Lays a document out as the other commands do, and reports what that says (each
    /// message once: the file's own parse was reported already).
    fn check_document(&mut self, path: &Path) {
        let args = crate::input::Inputs {
            resolve: self.options.clone(),
            ..Default::default()
        };
        let (diags, files) = match crate::document::load(path, &args) {
            Ok(d) => {
                self.report.features += d.loaded.scene.features.len();
                (d.loaded.diagnostics, d.loaded.files)
            }
            Err(e) => (vec![e], Vec::new()),
        };
        for d in diags {
            if !self.report.diagnostics.contains(&d) {
                self.report.diagnostics.push(d);
            }
        }
        // Every file the document uses (the assets it resolved, the objects, facades and
        // forests, and through each of them the art it names), each checked once.
        for f in files.iter().filter(|f| f.is_file() && f.as_path() != path) {
            self.check_file(f, false);
        }
    }

    fn check_image(&mut self, path: &Path, bytes: &[u8]) {
        let ok = if path
            .extension()
            .is_some_and(|e| e.eq_ignore_ascii_case("dds"))
        {
            bytes.starts_with(b"DDS ")
        } else {
            bytes.starts_with(b"\x89PNG")
        };
        if !ok {
            self.report.diagnostics.push(Diagnostic::warning_offset(
                path,
                0,
                "not a PNG or DDS image (bad signature); a checkerboard is drawn",
            ));
        }
    }

    /// The resolver of the package `path` is in, made once per package: the libraries
    /// of `--library` and the install are read once for the whole check.
    fn resolver(&mut self, path: &Path) -> std::rc::Rc<Resolver> {
        let root = crate::resolve::package_root(path);
        if let Some(r) = self.resolvers.get(&root) {
            return r.clone();
        }
        // Library problems are reported when each library.txt itself is checked.
        let mut quiet = Vec::new();
        let options = &self.options;
        let libs = self
            .libraries
            .get_or_insert_with(|| crate::resolve::Libraries::load(options, &mut quiet));
        let r = std::rc::Rc::new(Resolver::new(path, libs, &mut quiet));
        self.resolvers.insert(root, r.clone());
        r
    }

    fn reference(
        &mut self,
        r: &Resolver,
        from: &Path,
        line: u32,
        what: &str,
        name: &str,
        texture: bool,
    ) {
        let found = if texture {
            r.resolve_texture(from, name)
        } else {
            r.resolve(from, name)
        };
        match found {
            Some(p) => self.check_file(&p, false),
            None => self
                .report
                .diagnostics
                .push(r.missing(from, line, what, name)),
        }
    }

    fn check_refs(&mut self, path: &Path, parsed: &Parsed) {
        let r = self.resolver(path);
        let r = &*r;
        match parsed {
            Parsed::Autogen(ag) => {
                if let Some(t) = &ag.texture {
                    self.reference(r, path, t.line, "TEXTURE", &t.path, true);
                }
                for (kw, t) in &ag.other_textures {
                    self.reference(r, path, t.line, kw, &t.path, true);
                }
                for o in &ag.objects {
                    self.reference(r, path, o.line, "OBJECT", &o.path, false);
                }
                for f in &ag.facades {
                    self.reference(r, path, f.line, "FACADE", &f.path, false);
                }
                if let Some(v) = &ag.vegetation {
                    self.reference(r, path, v.line, "VEGETATION", &v.path, false);
                }
            }
            Parsed::Obj8(o) => {
                self.report.diagnostics.extend(winding::check_obj8(path, o));
                self.report
                    .diagnostics
                    .extend(crate::format::obj8::refused_combinations(path, o));
                let drawn = o
                    .lods
                    .iter()
                    .any(|l| l.draws.iter().any(|d| d.count >= 3) || !l.lights.is_empty())
                    || o.line_vertex_count > 0;
                if !drawn {
                    self.report.diagnostics.push(Diagnostic::warning_file(
                        path,
                        "object has no triangles, lines or lights; nothing is drawn where it is placed",
                    ));
                }
                let t = &o.textures;
                for (what, tex) in [
                    ("TEXTURE", &t.texture),
                    ("TEXTURE_LIT", &t.lit),
                    ("TEXTURE_NORMAL", &t.normal),
                    ("TEXTURE_DRAPED", &t.draped),
                    ("TEXTURE_MAP normal", &t.map_normal),
                    ("TEXTURE_MAP material_gloss", &t.map_material_gloss),
                    ("TEXTURE_MAP gloss", &t.map_gloss),
                ] {
                    if let Some(tex) = tex {
                        if !tex.name.is_empty() {
                            self.reference(r, path, tex.line, what, &tex.name, true);
                        }
                    }
                }
            }
            Parsed::Forest(f) => {
                if let Some(t) = &f.texture {
                    self.reference(r, path, t.line, "TEXTURE", &t.name, true);
                }
                if f.trees.is_empty() {
                    self.report.diagnostics.push(Diagnostic::warning_file(
                        path,
                        "forest has no trees; nothing is drawn where it is placed",
                    ));
                }
            }
            Parsed::Facade(f) => {
                for t in [&f.wall_texture, &f.roof_texture].into_iter().flatten() {
                    self.reference(r, path, t.line, "TEXTURE", &t.name, true);
                }
                if !f.has_walls() {
                    self.report.diagnostics.push(Diagnostic::warning_file(
                        path,
                        "facade has no walls; nothing is drawn where it is placed",
                    ));
                }
                if let Some(first) = f.not_drawn.first() {
                    // Once per file, at the first of them.
                    let list: Vec<String> = f
                        .not_drawn
                        .iter()
                        .map(|n| format!("{} (line {}, {}×)", n.keyword, n.line, n.count))
                        .collect();
                    self.report.diagnostics.push(
                        Diagnostic::new(
                            crate::diag::Severity::Note,
                            path,
                            crate::diag::Location::Text {
                                line: first.line,
                                col: 1,
                            },
                            format!(
                                "facade directives agview reads but does not draw: {}",
                                list.join(", ")
                            ),
                        )
                        .with_kind(crate::diag::kind::NOT_DRAWN),
                    );
                }
            }
            Parsed::Pol(p) => {
                for (what, t) in [
                    ("TEXTURE", &p.texture),
                    ("TEXTURE_LIT", &p.lit),
                    ("TEXTURE_NORMAL", &p.shading.normal),
                ] {
                    if let Some(t) = t {
                        self.reference(r, path, t.line, what, &t.name, true);
                    }
                }
            }
            Parsed::Lin(l) => {
                if let Some(t) = &l.texture {
                    self.reference(r, path, t.line, "TEXTURE", &t.name, true);
                }
            }
            Parsed::ObjString(s) => {
                for o in &s.objects {
                    self.reference(r, path, o.line, "OBJECT", &o.path, false);
                }
            }
            // A DSF's definitions resolve from its package root, as the document check
            // resolves them (`check_document`), not relative to the file.
            Parsed::DsfText(_) => {}
            Parsed::Agn(a) => {
                let dir = path.parent().unwrap_or(Path::new(""));
                let textures = [
                    (&a.building_texture, "GBTE", "generic buildings"),
                    (&a.row_house_texture, "RHTE", "row houses"),
                ];
                for (t, tag, what) in textures {
                    let Some(t) = t else { continue };
                    let found = ["bmp", "dds", "png"]
                        .iter()
                        .any(|e| dir.join(format!("{}.{e}", t.name)).is_file());
                    if !found && !t.name.is_empty() {
                        self.report.diagnostics.push(Diagnostic::warning_offset(
                            path,
                            t.offset,
                            format!(
                                "{tag} texture `{}` not found beside the file (.bmp, .dds or .png); {what} use a neutral facade",
                                t.name
                            ),
                        ));
                    }
                }
            }
            Parsed::Library(lib) => self
                .report
                .diagnostics
                .extend(library::check_library(path, lib)),
            // A road network: its textures (relative to its folder), and what
            // `net::validate` finds in it.
            Parsed::Net(n) => {
                for t in &n.textures {
                    let line = u32::try_from(t.line).unwrap_or(u32::MAX);
                    self.reference(r, path, line, "TEXTURE", &t.path, true);
                    for (what, name) in [("TEXTURE_LIT", &t.lit), ("TEXTURE_NORMAL", &t.normal)] {
                        if let Some(name) = name {
                            self.reference(r, path, line, what, name, true);
                        }
                    }
                }
                self.report
                    .diagnostics
                    .extend(crate::format::net::validate(path, n));
            }
            Parsed::Apt(_)
            | Parsed::Wavefront(_)
            | Parsed::GeoJson(_)
            | Parsed::Wed(_)
            | Parsed::DsfBinary(_) => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn art_with_nothing_to_draw_is_a_warning() {
        let dir = std::env::temp_dir().join(format!("agview-check-empty-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("temp dir");
        let files = [
            ("placeholder.fac", "A\n800\nFACADE\n"),
            ("bare.for", "A\n800\nFOREST\n"),
            ("nothing.obj", "A\n800\nOBJ\n"),
            (
                "lamp.obj",
                "A\n800\nOBJ\nPOINT_COUNTS 0 0 1 0\nLIGHT_NAMED airplane_beacon 0 5 0\n",
            ),
        ];
        for (name, text) in files {
            std::fs::write(dir.join(name), text).expect("write");
        }
        let report = check_paths(std::slice::from_ref(&dir));
        let said = |file: &str, what: &str| {
            report
                .diagnostics
                .iter()
                .any(|d| d.path.ends_with(file) && d.message.contains(what))
        };
        assert!(
            said("placeholder.fac", "facade has no walls; nothing is drawn"),
            "{:?}",
            report.diagnostics
        );
        assert!(
            said("bare.for", "forest has no trees; nothing is drawn"),
            "{:?}",
            report.diagnostics
        );
        assert!(
            said("nothing.obj", "object has no triangles, lines or lights"),
            "{:?}",
            report.diagnostics
        );
        // A light-only object draws its lights.
        assert!(
            !said("lamp.obj", "nothing is drawn"),
            "{:?}",
            report.diagnostics
        );
        assert_eq!(report.errors(), 0, "{:?}", report.diagnostics);
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// The facade directives of XP12.md §3 that agview does not draw: one note per file, at
    /// the first, naming each with its line and count.
    #[test]
    fn facade_directives_not_drawn_are_noted_once_per_file() {
        let dir =
            std::env::temp_dir().join(format!("agview-check-notdrawn-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("temp dir");
        let f = dir.join("shed.fac");
        std::fs::write(
            &f,
            "A\n1000\nFACADE\nFLOOR f\nSEGMENT 0\nMESH 0 1 0 3 3\n\
VERTEX 0 0 0 1 0 0 0 0\nVERTEX 0 0 -4 1 0 0 1 0\nVERTEX 0 3 -4 1 0 0 1 1\nIDX 0 1 2\n\
ATTACH_DRAPED 0 1 0 -2 0\nATTACH_DRAPED 0 2 0 -2 0\nWALL 0 10 0 360 w\nSPELLING 0\n\
ROOF_HEIGHT 3\nROOF_OBJ 0 1 1\n",
        )
        .expect("write");
        let report = check_paths(std::slice::from_ref(&f));
        let _ = std::fs::remove_dir_all(&dir);
        let notes: Vec<String> = report
            .diagnostics
            .iter()
            .filter(|d| d.severity == crate::diag::Severity::Note)
            .map(ToString::to_string)
            .collect();
        assert_eq!(notes.len(), 1, "{notes:#?}");
        assert!(
            notes[0].ends_with(
                "shed.fac:11:1: note: facade directives agview reads but does not draw: ATTACH_DRAPED (line 11, 2×), ROOF_OBJ (line 16, 1×)"
            ),
            "{}",
            notes[0]
        );
    }

    /// `agview check` on a string whose `TILE_ID` equals another tile's implicit id: a
    /// warning (not an error) that names both lines.
    #[test]
    fn tile_id_collisions_are_a_warning_naming_both_lines() {
        let dir = std::env::temp_dir().join(format!("agview-check-tileid-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("temp dir");
        let f = dir.join("s.ags");
        std::fs::write(
            &f,
            "A\n1000\nAG_STRING\nTEXTURE_SCALE 512 512\nTEXTURE_WIDTH 50\nTILE 0 0 10 10\nTILE 10 0 20 10\nTILE_ID 1\nTILE 20 0 30 10\nSPELLING 1\n",
        )
        .expect("write");
        let report = check_paths(std::slice::from_ref(&f));
        let _ = std::fs::remove_dir_all(&dir);
        assert_eq!(report.errors(), 0, "{:?}", report.diagnostics);
        let hit: Vec<String> = report
            .diagnostics
            .iter()
            .map(ToString::to_string)
            .filter(|d| d.contains("TILE_ID 1"))
            .collect();
        assert_eq!(hit.len(), 1, "{:?}", report.diagnostics);
        assert!(
            hit[0].contains("s.ags:8:") && hit[0].contains("line 7") && hit[0].contains("line 9"),
            "{}",
            hit[0]
        );
    }
}
