//! X-Plane `library.txt` (`800` or `1200`, then `LIBRARY`): the map from virtual library
//! paths to files of a scenery package.
//!
//! `EXPORT virtual real` publishes a file under a virtual path; `EXPORT_EXTEND`,
//! `EXPORT_EXCLUDE`, `EXPORT_BACKUP` and `EXPORT_RATIO ratio virtual real` are variants.
//! X-Plane 12 adds `EXPORT_SEASON`, `EXPORT_EXTEND_SEASON`, `EXPORT_EXCLUDE_SEASON` and
//! `EXPORT_RATIO_SEASON`, whose season list (`spr`, `sum`, `fal`, `win`, comma separated)
//! comes before the virtual path ([`season_list`]; the ratio form's argument order is
//! [`ratio_season_order`]). Fields are separated by spaces or tabs; the real path is the
//! rest of the line, so it may contain spaces; it is relative to the directory of
//! `library.txt`. Regions are defined with `REGION_DEFINE name` followed by `REGION_ALL`,
//! `REGION_RECT w s e n`, `REGION_BITMAP file` or `REGION_DREF …`, and `REGION name`
//! restricts the exports after it. `PUBLIC [date]`, `PRIVATE`, `DEPRECATED` and
//! `SEMI_DEPRECATED` set the status of the exports after them. (Facts from xptools
//! `WED_LibraryMgr::Rescan`, the X-Plane library.txt specification and XP12.md §2.1.)
//!
//! Like WED, a real path that leads outside the package (`../x`, `/x`) is not exported; it
//! gets a warning here. A bad export line costs only itself: a missing field is an error
//! and an unknown season word a warning, each at its line, and the rest of the file is read.

use std::path::{Component, Path};

use serde::Serialize;

use crate::diag::Diagnostic;
use crate::format::text::{parse_f32, read_header, Line, TextFile};
pub use crate::season::Season;
use crate::season::{SeasonMask, ALL_SEASONS};

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
    /// `EXPORT_RATIO` / `EXPORT_RATIO_SEASON`: an alternative with a relative weight.
    Ratio,
}

impl ExportKind {
    /// The directive that writes this kind, with a season list (`seasonal`) or without:
    /// `EXPORT_EXCLUDE_SEASON`, `EXPORT_RATIO`. (`EXPORT_BACKUP` has no seasonal form.)
    pub fn keyword(self, seasonal: bool) -> &'static str {
        match (self, seasonal) {
            (ExportKind::Export, false) => "EXPORT",
            (ExportKind::Export, true) => "EXPORT_SEASON",
            (ExportKind::Extend, false) => "EXPORT_EXTEND",
            (ExportKind::Extend, true) => "EXPORT_EXTEND_SEASON",
            (ExportKind::Exclude, false) => "EXPORT_EXCLUDE",
            (ExportKind::Exclude, true) => "EXPORT_EXCLUDE_SEASON",
            (ExportKind::Backup, _) => "EXPORT_BACKUP",
            (ExportKind::Ratio, false) => "EXPORT_RATIO",
            (ExportKind::Ratio, true) => "EXPORT_RATIO_SEASON",
        }
    }

    /// The kind and seasonality of a directive; `None` for one that exports nothing.
    pub fn of_keyword(kw: &str) -> Option<(ExportKind, bool)> {
        let (base, seasonal) = match kw.strip_suffix("_SEASON") {
            Some(b) => (b, true),
            None => (kw, false),
        };
        let kind = match base {
            "EXPORT" => ExportKind::Export,
            "EXPORT_EXTEND" => ExportKind::Extend,
            "EXPORT_EXCLUDE" => ExportKind::Exclude,
            "EXPORT_BACKUP" if !seasonal => ExportKind::Backup,
            "EXPORT_RATIO" => ExportKind::Ratio,
            _ => return None,
        };
        Some((kind, seasonal))
    }
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
    /// The season list of an `EXPORT*_SEASON` (`sum,fal`), in the year's order; `None` for
    /// a plain export, which is for every season.
    pub seasons: Option<Vec<Season>>,
    /// The `REGION` in force, if any.
    pub region: Option<String>,
    pub status: Status,
    pub line: u32,
}

impl Export {
    /// The seasons the export is for: every season for an export without a season list,
    /// the seasons of its list otherwise.
    pub fn season_mask(&self) -> SeasonMask {
        match &self.seasons {
            None => ALL_SEASONS,
            Some(list) => list.iter().fold(0, |m, s| m | s.bit()),
        }
    }

    /// The directive that wrote it (`EXPORT_EXCLUDE_SEASON`).
    pub fn keyword(&self) -> &'static str {
        self.kind.keyword(self.seasons.is_some())
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

/// A parsed `library.txt`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Library {
    pub version: u32,
    pub exports: Vec<Export>,
    pub regions: Vec<RegionDef>,
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
    let mut state = State::default();
    while let Some(line) = tf.next() {
        let result = match line {
            Ok(mut line) => read_line(&mut line, &mut lib, &mut state, warnings),
            Err(e) => Err(e),
        };
        // A bad line costs only itself.
        if let Err(e) = result {
            warnings.push(e);
        }
    }
    Ok(lib)
}

/// What the lines before set for the lines after: the status keyword and `REGION` in
/// force, and the unknown directives already reported.
#[derive(Default)]
struct State {
    status: Status,
    region: Option<String>,
    warned: std::collections::HashSet<String>,
}

/// Reads one line into `lib`. An `Err` is the line's error; the line is then skipped.
fn read_line(
    line: &mut Line,
    lib: &mut Library,
    state: &mut State,
    warnings: &mut Vec<Diagnostic>,
) -> Result<(), Diagnostic> {
    let kw = line.keyword;
    if let Some((kind, seasonal)) = ExportKind::of_keyword(kw) {
        if let Some(mut e) = export(line, kind, seasonal, warnings)? {
            e.region = state.region.clone();
            e.status = state.status;
            lib.exports.push(e);
        }
        return Ok(());
    }
    match kw {
        "PUBLIC" => {
            // An optional date (`PUBLIC 20240101`) marks items as new until then.
            let _ = line.next_token();
            line.expect_end(warnings);
            state.status = Status::Public;
        }
        "PRIVATE" | "DEPRECATED" | "SEMI_DEPRECATED" => {
            line.expect_end(warnings);
            state.status = match kw {
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
            state.region = Some(name);
        }
        _ => {
            if state.warned.insert(kw.to_string()) {
                warnings.push(line.unknown_directive("library"));
            }
        }
    }
    Ok(())
}

/// Reads the arguments of an `EXPORT*` line: `None` (with a warning) when the line is
/// skipped, an `Err` for a missing or malformed field.
fn export(
    line: &mut Line,
    kind: ExportKind,
    seasonal: bool,
    warnings: &mut Vec<Diagnostic>,
) -> Result<Option<Export>, Diagnostic> {
    let kw = line.keyword;
    let (ratio, seasons) = match (kind, seasonal) {
        (ExportKind::Ratio, true) => {
            let (first, col) = line.word_col("ratio")?;
            if ratio_season_order(first) == RatioSeasonOrder::RatioFirst {
                let ratio = parse_f32(first).unwrap_or(1.0);
                (Some(ratio), Some(line.word_col("seasons")?))
            } else {
                (Some(line.f32("ratio")?), Some((first, col)))
            }
        }
        (ExportKind::Ratio, false) => (Some(line.f32("ratio")?), None),
        (_, true) => (None, Some(line.word_col("seasons")?)),
        _ => (None, None),
    };
    let virtual_path = line.word("virtual path")?.replace('\\', "/");
    let real_col = line.clone().next_token().map_or(1, |(_, c)| c);
    let real_path = line.rest("real path")?.replace('\\', "/");
    let seasons = match seasons {
        None => None,
        Some((list, col)) => match season_list(list) {
            Ok(s) => Some(s),
            Err(word) => {
                warnings.push(line.warning(
                    col,
                    format!(
                        "{kw}: unknown season `{word}` in `{list}` (expected spr, sum, fal or win, comma separated); the line is skipped"
                    ),
                ));
                return Ok(None);
            }
        },
    };
    if escapes(&real_path) {
        warnings.push(line.warning(
            real_col,
            format!("{kw}: `{real_path}` leads outside the package; not exported"),
        ));
        return Ok(None);
    }
    Ok(Some(Export {
        kind,
        virtual_path,
        real_path,
        ratio,
        seasons,
        region: None,
        status: Status::Public,
        line: line.number,
    }))
}

/// The seasons of a season list (`spr,sum`: the words of [`Season::word`], comma
/// separated), in the year's order; `Err` with the first word that names no season.
pub fn season_list(list: &str) -> Result<Vec<Season>, &str> {
    let mut mask: SeasonMask = 0;
    for word in list.split(',') {
        mask |= Season::from_word(word).ok_or(word)?.bit();
    }
    Ok(Season::of_mask(mask).collect())
}

/// Where `EXPORT_RATIO_SEASON` puts its ratio: the sources disagree (XP12.md §2.1,
/// UNCONFIRMED): counts of the stock 12.4.3 libraries give `<ratio> <seasons> <virtual>
/// <real>`, a third-party parser reads `<seasons> <ratio> …`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RatioSeasonOrder {
    /// `EXPORT_RATIO_SEASON <ratio> <seasons> <virtual> <real>`.
    RatioFirst,
    /// `EXPORT_RATIO_SEASON <seasons> <ratio> <virtual> <real>`.
    SeasonsFirst,
}

/// The order of an `EXPORT_RATIO_SEASON` line, from its first argument: agview reads both,
/// as a season list is never a number (docs/spec-decisions.md, "Seasons").
pub fn ratio_season_order(first: &str) -> RatioSeasonOrder {
    if parse_f32(first).is_some() {
        RatioSeasonOrder::RatioFirst
    } else {
        RatioSeasonOrder::SeasonsFirst
    }
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
        assert_eq!(lib.exports[7].seasons, Some(vec![Season::Winter]));
        assert_eq!(lib.exports[7].status, Status::Public);
        assert_eq!(lib.regions.len(), 2);
        assert_eq!(lib.regions[0].rects, vec![[-10, 35, 30, 70]]);
        assert!(!lib.regions[0].is_global() && lib.regions[1].is_global());
    }

    /// What a library says, one line each, and how many exports it kept.
    fn said(src: &str) -> (usize, Vec<String>) {
        let (r, w) = p(src);
        let n = r.map_or(0, |l| l.exports.len());
        (n, w.iter().map(|d| d.to_string()).collect())
    }

    #[test]
    fn bad_headers_fail_the_file() {
        assert!(err("A\n800\nFACADE\n").contains("wrong file type"));
        assert!(err("A\n1000\nLIBRARY\n").contains("unsupported version"));
        assert!(err("A\n").contains("truncated header"));
    }

    #[test]
    fn a_bad_line_costs_only_itself() {
        let h = "A\n800\nLIBRARY\n";
        let ok = "EXPORT lib/ok.obj ok.obj\n";
        let one = |line: &str| {
            let (n, m) = said(&format!("{h}{line}\n{ok}"));
            assert_eq!(n, 1, "{line}: the next line is read: {m:?}");
            assert_eq!(m.len(), 1, "{m:?}");
            m[0].clone()
        };
        assert_eq!(
            one("EXPORT lib/a.obj"),
            "pkg/library.txt:4:17: error: EXPORT: missing argument <real path>"
        );
        assert_eq!(one("EXPORT_RATIO nan a b"), "pkg/library.txt:4:14: error: EXPORT_RATIO: <ratio> must be a finite number, found `nan`");
        assert_eq!(
            one("REGION_RECT 0 0 1 1"),
            "pkg/library.txt:4:1: error: REGION_RECT before any REGION_DEFINE"
        );
        assert!(one("REGION_DEFINE r\nREGION_RECT 0 0 x 1")
            .contains("5:17: error: REGION_RECT: <east> must be a whole number"));
        assert!(one("REGION_DEFINE r\nREGION_RECT 0 0 200 1")
            .contains("<east> is 200, outside -180..=180"));
        assert!(one("REGION_DEFINE r\nREGION_RECT 5 0 1 1").contains("expected west <= east"));
        // Every seasonal form with a field missing: a located error, the rest read.
        assert_eq!(
            one("EXPORT_SEASON"),
            "pkg/library.txt:4:14: error: EXPORT_SEASON: missing argument <seasons>"
        );
        assert_eq!(
            one("EXPORT_EXTEND_SEASON sum"),
            "pkg/library.txt:4:25: error: EXPORT_EXTEND_SEASON: missing argument <virtual path>"
        );
        assert_eq!(
            one("EXPORT_EXCLUDE_SEASON\twin\tlib/a.for"),
            "pkg/library.txt:4:36: error: EXPORT_EXCLUDE_SEASON: missing argument <real path>"
        );
        assert_eq!(
            one("EXPORT_RATIO_SEASON 0.5 sum lib/a.for"),
            "pkg/library.txt:4:38: error: EXPORT_RATIO_SEASON: missing argument <real path>"
        );
        assert_eq!(
            one("EXPORT_RATIO_SEASON sum"),
            "pkg/library.txt:4:24: error: EXPORT_RATIO_SEASON: missing argument <ratio>"
        );
    }

    #[test]
    fn an_unknown_season_is_a_located_warning_and_its_line_is_skipped() {
        let (n, m) = said(
            "A\n1200\nLIBRARY\nEXPORT_SEASON summer lib/a.for a.for\nEXPORT_EXCLUDE_SEASON spr,win_snow lib/a.for b.for\nEXPORT_SEASON sum, lib/a.for c.for\nEXPORT_RATIO_SEASON 0.3 autumn lib/a.for d.for\nEXPORT_SEASON win lib/a.for e.for\n",
        );
        assert_eq!(n, 1, "{m:?}");
        assert_eq!(m.len(), 4, "{m:?}");
        assert_eq!(m[0], "pkg/library.txt:4:15: warning: EXPORT_SEASON: unknown season `summer` in `summer` (expected spr, sum, fal or win, comma separated); the line is skipped");
        assert!(m[1].starts_with("pkg/library.txt:5:23: warning: EXPORT_EXCLUDE_SEASON: unknown season `win_snow` in `spr,win_snow`"), "{}", m[1]);
        assert!(
            m[2].contains(":6:15: warning:") && m[2].contains("unknown season `` in `sum,`"),
            "{}",
            m[2]
        );
        assert!(
            m[3].contains(":7:25: warning:") && m[3].contains("`autumn`"),
            "{}",
            m[3]
        );
    }

    #[test]
    fn every_seasonal_form_is_read() {
        // Tabs between fields as the stock libraries write them, spaces in real paths,
        // comma lists in any order (kept in the year's order).
        let lib = p("A\n1200\nLIBRARY\n\
EXPORT_SEASON sum\tlib/g8/coni.for\t\tsum/coni vcld.for\n\
EXPORT_EXTEND_SEASON win,spr lib/g8/coni.for  win/coni.for\n\
EXPORT_EXCLUDE_SEASON spr,sum\tlib/g10/autogen/natural.ags\tEU/sub Resid02.ags\n\
EXPORT_RATIO_SEASON 0.25 fal lib/g8/coni.for fal/coni.for\n\
EXPORT_RATIO_SEASON win,fal 2 lib/g8/coni.for fal/coni 2.for   # two words\n\
EXPORT lib/plain.obj plain.obj\n")
        .0
        .unwrap();
        let e = &lib.exports;
        assert_eq!(e.len(), 6);
        let seasons = |i: usize| e[i].seasons.clone();
        use Season::*;
        assert_eq!(
            (
                e[0].keyword(),
                e[0].virtual_path.as_str(),
                e[0].real_path.as_str()
            ),
            ("EXPORT_SEASON", "lib/g8/coni.for", "sum/coni vcld.for")
        );
        assert_eq!(seasons(0), Some(vec![Summer]));
        assert_eq!(e[1].keyword(), "EXPORT_EXTEND_SEASON");
        assert_eq!(seasons(1), Some(vec![Spring, Winter]));
        assert_eq!(e[1].real_path, "win/coni.for");
        assert_eq!(e[2].keyword(), "EXPORT_EXCLUDE_SEASON");
        assert_eq!(e[2].real_path, "EU/sub Resid02.ags");
        assert_eq!(e[2].season_mask(), Spring.bit() | Summer.bit());
        // Both orders of EXPORT_RATIO_SEASON.
        assert_eq!(
            (e[3].keyword(), e[3].ratio),
            ("EXPORT_RATIO_SEASON", Some(0.25))
        );
        assert_eq!(seasons(3), Some(vec![Fall]));
        assert_eq!(
            (e[4].ratio, seasons(4)),
            (Some(2.0), Some(vec![Fall, Winter]))
        );
        assert_eq!(e[4].real_path, "fal/coni 2.for");
        assert_eq!((e[5].keyword(), e[5].season_mask()), ("EXPORT", 0b1111));
        assert_eq!(ratio_season_order("0.3"), RatioSeasonOrder::RatioFirst);
        assert_eq!(ratio_season_order("sum"), RatioSeasonOrder::SeasonsFirst);
        assert_eq!(ExportKind::of_keyword("EXPORT_BACKUP_SEASON"), None);
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
