//! X-Plane `library.txt` (`800` or `1200`, then `LIBRARY`): the map from virtual library
//! paths to files of a scenery package.
//!
//! `EXPORT virtual real` publishes a file under a virtual path; `EXPORT_EXTEND`,
//! `EXPORT_EXCLUDE`, `EXPORT_BACKUP` and `EXPORT_RATIO ratio virtual real` are variants, and
//! X-Plane 12 adds `EXPORT_SEASON`, `EXPORT_EXTEND_SEASON` and `EXPORT_EXCLUDE_SEASON`, whose
//! first argument lists seasons. The real path is the rest of the line, so it may contain
//! spaces; it is relative to the directory of `library.txt`. Regions are defined with
//! `REGION_DEFINE name` followed by `REGION_ALL`, `REGION_RECT w s e n`, `REGION_BITMAP file`
//! or `REGION_DREF …`, and `REGION name` restricts the exports after it. `PUBLIC [date]`,
//! `PRIVATE`, `DEPRECATED` and `SEMI_DEPRECATED` set the status of the exports after them.
//! (Facts from xptools `WED_LibraryMgr::Rescan` and the X-Plane library.txt specification.)
//!
//! Like WED, a real path that leads outside the package (`../x`, `/x`) is not exported; it
//! gets a warning here.

use std::path::{Component, Path, PathBuf};

use serde::Serialize;

use crate::diag::Diagnostic;
use crate::format::obj8::join_name;
use crate::format::text::{read_header, TextFile};

/// Which `EXPORT*` directive published a file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ExportKind {
    /// `EXPORT` / `EXPORT_SEASON`: one of several alternatives.
    Export,
    /// `EXPORT_EXTEND` / `EXPORT_EXTEND_SEASON`: adds to other packages' alternatives.
    Extend,
    /// `EXPORT_EXCLUDE` / `EXPORT_EXCLUDE_SEASON`: replaces every other alternative.
    Exclude,
    /// `EXPORT_BACKUP`: used only when nothing else exports the path.
    Backup,
    /// `EXPORT_RATIO`: an alternative with a relative weight.
    Ratio,
}

/// The status keyword in force (`PUBLIC`, `PRIVATE`, `DEPRECATED`, `SEMI_DEPRECATED`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    #[default]
    Public,
    Private,
    Deprecated,
    SemiDeprecated,
}

/// One exported file.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Export {
    pub kind: ExportKind,
    pub virtual_path: String,
    /// As written (slashes normalised), relative to the library's directory.
    pub real_path: String,
    /// `EXPORT_RATIO` weight.
    pub ratio: Option<f32>,
    /// The season list of an `EXPORT*_SEASON` (e.g. `sum,fal`).
    pub seasons: Option<String>,
    /// The `REGION` in force, if any.
    pub region: Option<String>,
    pub status: Status,
    pub line: u32,
}

impl Export {
    /// The seasons the export is for, one [`Season::bit`] each: every season for an export
    /// without a season list; the words of the list (separated by commas) otherwise, words
    /// it does not know left out.
    pub fn season_mask(&self) -> u8 {
        match &self.seasons {
            None => 0b1111,
            Some(list) => list
                .split(',')
                .filter_map(|w| Season::ALL.into_iter().find(|s| s.word() == w.trim()))
                .fold(0, |m, s| m | s.bit()),
        }
    }
}

/// `REGION_DEFINE name` and the commands that define it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RegionDef {
    pub name: String,
    /// `REGION_ALL`: the whole world.
    pub all: bool,
    /// `REGION_RECT west south east north` (whole degrees).
    pub rects: Vec<[i32; 4]>,
    pub bitmaps: Vec<String>,
    /// `REGION_DREF` conditions, as written.
    pub drefs: Vec<String>,
    pub line: u32,
}

impl RegionDef {
    /// True when the region covers the whole world (as WED decides: `REGION_ALL`, or a
    /// rectangle from -180,-90 to 179,89 or beyond).
    pub fn is_global(&self) -> bool {
        self.drefs.is_empty()
            && self.bitmaps.is_empty()
            && (self.all
                || self
                    .rects
                    .iter()
                    .any(|r| r[0] <= -180 && r[1] <= -90 && r[2] >= 179 && r[3] >= 89))
    }
}

/// The seasons of X-Plane 12's `EXPORT*_SEASON` lists (`spr`, `sum`, `fal`, `win`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Season {
    Spring,
    #[default]
    Summer,
    Fall,
    Winter,
}

impl Season {
    /// Every season, in the year's order.
    pub const ALL: [Season; 4] = [Season::Spring, Season::Summer, Season::Fall, Season::Winter];

    /// The word a season list writes (`spr`, `sum`, `fal`, `win`).
    pub fn word(self) -> &'static str {
        match self {
            Season::Spring => "spr",
            Season::Summer => "sum",
            Season::Fall => "fal",
            Season::Winter => "win",
        }
    }

    /// Its bit in a [`Export::season_mask`].
    pub fn bit(self) -> u8 {
        1 << self as u8
    }
}

/// A parsed `library.txt`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Library {
    pub version: u32,
    pub exports: Vec<Export>,
    pub regions: Vec<RegionDef>,
}

impl Library {
    /// The real path (relative to the library's directory) that `virtual_path` resolves to,
    /// for a previewer that has no position, date or datarefs:
    /// 1. `EXPORT_BACKUP` only when nothing else exports the path;
    /// 2. exports valid everywhere before regional ones (a global region counts as none);
    /// 3. summer before other seasons (what WED shows);
    /// 4. then the first in file order.
    ///
    /// Virtual paths compare exactly, with `\` read as `/`.
    pub fn resolve(&self, virtual_path: &str) -> Option<&str> {
        let want = virtual_path.replace('\\', "/");
        self.exports
            .iter()
            .enumerate()
            .filter(|(_, e)| e.virtual_path == want)
            .min_by_key(|(i, e)| (self.rank(e), *i))
            .map(|(_, e)| e.real_path.as_str())
    }

    /// [`Library::resolve`], joined to the directory of the `library.txt` at `library_txt`.
    pub fn resolve_path(&self, library_txt: &Path, virtual_path: &str) -> Option<PathBuf> {
        let dir = library_txt.parent().unwrap_or_else(|| Path::new(""));
        self.resolve(virtual_path).map(|r| join_name(dir, r))
    }

    /// Every export of `virtual_path`, in file order (for picking variants).
    pub fn exports_of<'s>(
        &'s self,
        virtual_path: &'s str,
    ) -> impl Iterator<Item = &'s Export> + 's {
        self.exports
            .iter()
            .filter(move |e| e.virtual_path == virtual_path)
    }

    fn rank(&self, e: &Export) -> (bool, bool, bool) {
        let regional = match &e.region {
            None => false,
            Some(name) => !self
                .regions
                .iter()
                .rev()
                .find(|r| &r.name == name)
                .is_some_and(RegionDef::is_global),
        };
        let off_season = e.seasons.as_deref().is_some_and(|s| !s.contains("sum"));
        (e.kind == ExportKind::Backup, regional, off_season)
    }
}

/// Reads a `library.txt`.
pub fn parse(
    path: &Path,
    src: &[u8],
    warnings: &mut Vec<Diagnostic>,
) -> Result<Library, Diagnostic> {
    let src = crate::format::text::readable(src);
    let mut tf = TextFile::new(path, &src);
    let header = read_header(&mut tf, &[(&[800, 1200], "LIBRARY")])?;
    let mut lib = Library {
        version: header.version,
        exports: Vec::new(),
        regions: Vec::new(),
    };
    let mut status = Status::Public;
    let mut region: Option<String> = None;
    let mut warned = std::collections::HashSet::new();
    while let Some(line) = tf.next() {
        let mut line = line?;
        let kw = line.keyword;
        let export_kind = match kw {
            "EXPORT" | "EXPORT_SEASON" => Some(ExportKind::Export),
            "EXPORT_EXTEND" | "EXPORT_EXTEND_SEASON" => Some(ExportKind::Extend),
            "EXPORT_EXCLUDE" | "EXPORT_EXCLUDE_SEASON" => Some(ExportKind::Exclude),
            "EXPORT_BACKUP" => Some(ExportKind::Backup),
            "EXPORT_RATIO" => Some(ExportKind::Ratio),
            _ => None,
        };
        if let Some(kind) = export_kind {
            let ratio = if kind == ExportKind::Ratio {
                Some(line.f32("ratio")?)
            } else {
                None
            };
            let seasons = if kw.ends_with("_SEASON") {
                Some(line.word("seasons")?.to_string())
            } else {
                None
            };
            let virtual_path = line.word("virtual path")?.replace('\\', "/");
            let real_col = line.clone().next_token().map_or(1, |(_, c)| c);
            let real_path = line.rest("real path")?.replace('\\', "/");
            if escapes(&real_path) {
                warnings.push(line.warning(
                    real_col,
                    format!("{kw}: `{real_path}` leads outside the package; not exported"),
                ));
                continue;
            }
            lib.exports.push(Export {
                kind,
                virtual_path,
                real_path,
                ratio,
                seasons,
                region: region.clone(),
                status,
                line: line.number,
            });
            continue;
        }
        match kw {
            "PUBLIC" => {
                // An optional date (`PUBLIC 20240101`) marks items as new until then.
                let _ = line.next_token();
                line.expect_end(warnings);
                status = Status::Public;
            }
            "PRIVATE" | "DEPRECATED" | "SEMI_DEPRECATED" => {
                line.expect_end(warnings);
                status = match kw {
                    "PRIVATE" => Status::Private,
                    "DEPRECATED" => Status::Deprecated,
                    _ => Status::SemiDeprecated,
                };
            }
            "REGION_DEFINE" => {
                let name = line.word("name")?.to_string();
                line.expect_end(warnings);
                lib.regions.push(RegionDef {
                    name,
                    all: false,
                    rects: Vec::new(),
                    bitmaps: Vec::new(),
                    drefs: Vec::new(),
                    line: line.number,
                });
            }
            "REGION_ALL" | "REGION_RECT" | "REGION_BITMAP" | "REGION_DREF" => {
                let Some(def) = lib.regions.last_mut() else {
                    return Err(line.error_kw(format!("{kw} before any REGION_DEFINE")));
                };
                match kw {
                    "REGION_ALL" => {
                        def.all = true;
                        line.expect_end(warnings);
                    }
                    "REGION_RECT" => {
                        let w = line.int_in("west", -180, 180)? as i32;
                        let s = line.int_in("south", -90, 90)? as i32;
                        let e = line.int_in("east", -180, 180)? as i32;
                        let n = line.int_in("north", -90, 90)? as i32;
                        line.expect_end(warnings);
                        if e < w || n < s {
                            return Err(line.error_kw(format!(
                                "REGION_RECT {w} {s} {e} {n}: expected west <= east and south <= north"
                            )));
                        }
                        def.rects.push([w, s, e, n]);
                    }
                    "REGION_BITMAP" => def.bitmaps.push(line.rest("file")?.to_string()),
                    _ => def.drefs.push(line.rest("condition")?.to_string()),
                }
            }
            "REGION" => {
                let name = line.word("name")?.to_string();
                line.expect_end(warnings);
                if !lib.regions.iter().any(|r| r.name == name) {
                    warnings.push(line.warning_kw(format!(
                        "REGION `{name}` is not defined (REGION_DEFINE must come first)"
                    )));
                }
                region = Some(name);
            }
            _ => {
                if warned.insert(kw.to_string()) {
                    warnings.push(line.unknown_directive("library"));
                }
            }
        }
    }
    Ok(lib)
}

/// True when a relative path climbs out of its directory or is absolute.
fn escapes(p: &str) -> bool {
    let mut depth = 0i32;
    for c in Path::new(p).components() {
        match c {
            Component::ParentDir => {
                depth -= 1;
                if depth < 0 {
                    return true;
                }
            }
            Component::Normal(_) => depth += 1,
            Component::CurDir => {}
            Component::RootDir | Component::Prefix(_) => return true,
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    const LIB: &str = "A\n800\nLIBRARY\n\n# objects\n\
EXPORT lib/cars/car.obj objects/car.obj\n\
EXPORT_BACKUP lib/houses/h1.obj backup/h1.obj\n\
EXPORT lib/houses/h1.obj objects/My House 1.obj\n\
EXPORT lib/houses/h1.obj objects/h1b.obj\n\
EXPORT_RATIO 0.5 lib/trees/t.for forests/t.for\n\
PRIVATE\n\
REGION_DEFINE europe\nREGION_RECT -10 35 30 70\n\
REGION_DEFINE world\nREGION_ALL\n\
REGION europe\n\
EXPORT lib/roads/r.net roads/eu.net\n\
REGION world\n\
EXPORT lib/roads/r.net roads\\world.net\n\
PUBLIC 20991231\n\
EXPORT_SEASON win lib/g/grass.pol g/winter.pol\n\
EXPORT_SEASON sum,fal lib/g/grass.pol g/summer.pol\n\
EXPORT_EXCLUDE lib/x.obj x.obj\n";

    fn p(src: &str) -> (Result<Library, Diagnostic>, Vec<Diagnostic>) {
        let mut w = Vec::new();
        let r = parse(Path::new("pkg/library.txt"), src.as_bytes(), &mut w);
        (r, w)
    }

    fn err(src: &str) -> String {
        p(src).0.unwrap_err().to_string()
    }

    #[test]
    fn reads_a_typical_library() {
        let (r, w) = p(LIB);
        let lib = r.unwrap();
        assert!(w.is_empty(), "{w:?}");
        assert_eq!(lib.exports.len(), 10);
        let h = &lib.exports[2];
        assert_eq!(
            (h.kind, h.real_path.as_str(), h.line),
            (ExportKind::Export, "objects/My House 1.obj", 8)
        );
        assert_eq!(lib.exports[4].ratio, Some(0.5));
        assert_eq!(lib.exports[5].region.as_deref(), Some("europe"));
        assert_eq!(lib.exports[5].status, Status::Private);
        assert_eq!(lib.exports[6].real_path, "roads/world.net");
        assert_eq!(lib.exports[7].seasons.as_deref(), Some("win"));
        assert_eq!(lib.exports[7].status, Status::Public);
        assert_eq!(lib.regions.len(), 2);
        assert_eq!(lib.regions[0].rects, vec![[-10, 35, 30, 70]]);
        assert!(!lib.regions[0].is_global() && lib.regions[1].is_global());
    }

    #[test]
    fn resolve_prefers_plain_exports_over_backups() {
        let lib = p(LIB).0.unwrap();
        assert_eq!(lib.resolve("lib/cars/car.obj"), Some("objects/car.obj"));
        // The backup comes first in the file, but is used only when nothing else exports.
        assert_eq!(
            lib.resolve("lib/houses/h1.obj"),
            Some("objects/My House 1.obj")
        );
        assert_eq!(lib.exports_of("lib/houses/h1.obj").count(), 3);
        // A global region counts as no region; the European one loses.
        assert_eq!(lib.resolve("lib/roads/r.net"), Some("roads/world.net"));
        assert_eq!(lib.resolve("lib/g/grass.pol"), Some("g/summer.pol"));
        assert_eq!(lib.resolve("lib\\x.obj"), Some("x.obj"));
        assert_eq!(lib.resolve("lib/none.obj"), None);
        assert_eq!(
            lib.resolve_path(Path::new("pkg/library.txt"), "lib/houses/h1.obj"),
            Some(PathBuf::from("pkg/objects/My House 1.obj"))
        );
        let only_backup = p("A\n800\nLIBRARY\nEXPORT_BACKUP a.obj b.obj\n").0.unwrap();
        assert_eq!(only_backup.resolve("a.obj"), Some("b.obj"));
    }

    #[test]
    fn bad_inputs_give_located_errors() {
        assert!(err("A\n800\nFACADE\n").contains("wrong file type"));
        assert!(err("A\n1000\nLIBRARY\n").contains("unsupported version"));
        assert!(err("A\n").contains("truncated header"));
        let h = "A\n800\nLIBRARY\n";
        assert_eq!(
            err(&format!("{h}EXPORT lib/a.obj\n")),
            "pkg/library.txt:4:17: error: EXPORT: missing argument <real path>"
        );
        assert_eq!(err(&format!("{h}EXPORT_RATIO nan a b\n")), "pkg/library.txt:4:14: error: EXPORT_RATIO: <ratio> must be a finite number, found `nan`");
        assert_eq!(
            err(&format!("{h}REGION_RECT 0 0 1 1\n")),
            "pkg/library.txt:4:1: error: REGION_RECT before any REGION_DEFINE"
        );
        assert!(err(&format!("{h}REGION_DEFINE r\nREGION_RECT 0 0 x 1\n"))
            .contains("5:17: error: REGION_RECT: <east> must be a whole number"));
        assert!(err(&format!("{h}REGION_DEFINE r\nREGION_RECT 0 0 200 1\n"))
            .contains("<east> is 200, outside -180..=180"));
        assert!(err(&format!("{h}REGION_DEFINE r\nREGION_RECT 5 0 1 1\n"))
            .contains("expected west <= east"));
    }

    #[test]
    fn escaping_paths_and_unknown_directives_warn() {
        let (r, w) = p("A\n800\nLIBRARY\nEXPORT a.obj ../other/a.obj\nEXPORT b.obj /etc/b.obj\nFROB\nFROB\nREGION nowhere\nEXPORT c.obj c.obj\n");
        let lib = r.unwrap();
        assert_eq!(lib.exports.len(), 1);
        let m: Vec<String> = w.iter().map(|d| d.to_string()).collect();
        assert_eq!(m.len(), 4, "{m:?}");
        assert_eq!(m[0], "pkg/library.txt:4:14: warning: EXPORT: `../other/a.obj` leads outside the package; not exported");
        assert!(m[2].contains("6:1: warning: unknown library directive `FROB`"));
        assert!(m[3].contains("REGION `nowhere` is not defined"));
        assert!(!escapes("a/../b.obj") && escapes("a/../../b.obj"));
    }

    #[test]
    fn never_panics_on_any_prefix() {
        let mut w = Vec::new();
        for end in 0..=LIB.len() {
            let _ = parse(Path::new("library.txt"), &LIB.as_bytes()[..end], &mut w);
        }
    }
}
