//! The libraries of several scenery packages merged, as X-Plane merges them: every
//! `library.txt` is read once, its exports filed by virtual path in package priority order,
//! and a lookup applies `EXPORT`, `EXPORT_EXTEND`, `EXPORT_EXCLUDE`, `EXPORT_BACKUP` and
//! `EXPORT_RATIO` across packages, `REGION`s by the feature's location, and X-Plane 12's
//! `EXPORT*_SEASON` forms by the season asked for.
//!
//! The rules (and their sources) are in `docs/spec-decisions.md`, "Library resolution".

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use crate::diag::Diagnostic;
use crate::format::library::{ExportKind, Library, RegionDef};
use crate::format::obj8::join_name;
use crate::rng::Rng;
use crate::season::{mask_words, Season, SeasonMask};

use super::LatLon;

/// One scenery package whose `library.txt` was read.
#[derive(Debug, Clone, PartialEq)]
pub struct Package {
    /// The package folder name, e.g. `X-Plane Landmarks`.
    pub name: String,
    /// The package folder; real paths of its exports are relative to it.
    pub dir: PathBuf,
}

/// Where a `REGION` applies: the union of its `REGION_RECT`s (1×1 degree DSF tiles), or the
/// whole world.
#[derive(Debug, Clone, PartialEq)]
struct RegionArea {
    /// The `REGION_DEFINE` name.
    name: String,
    /// `REGION_ALL`, a world-sized rectangle, or a region defined only by conditions
    /// (`REGION_DREF`, `REGION_BITMAP`, taken as true).
    everywhere: bool,
    /// `REGION_RECT west south east north`: the tiles whose south-west corner lies in it.
    rects: Vec<[i32; 4]>,
}

impl RegionArea {
    /// A `REGION` name that no `REGION_DEFINE` before it defines: it covers nothing.
    fn undefined(name: &str) -> RegionArea {
        RegionArea {
            name: name.to_string(),
            everywhere: false,
            rects: Vec::new(),
        }
    }

    fn of(def: &RegionDef) -> RegionArea {
        let world = |r: &[i32; 4]| r[0] <= -180 && r[1] <= -90 && r[2] >= 179 && r[3] >= 89;
        RegionArea {
            name: def.name.clone(),
            everywhere: def.all || def.rects.iter().any(world) || def.rects.is_empty(),
            rects: def.rects.clone(),
        }
    }

    fn contains(&self, at: LatLon) -> bool {
        if self.everywhere {
            return true;
        }
        // The DSF tile holding the point, named by its south-west corner.
        let lon = (at.lon.floor() as i32).clamp(-180, 179);
        let lat = (at.lat.floor() as i32).clamp(-90, 89);
        self.rects
            .iter()
            .any(|r| r[0] <= lon && lon <= r[2] && r[1] <= lat && lat <= r[3])
    }
}

/// One export of a virtual path.
#[derive(Debug, Clone, PartialEq)]
struct Entry {
    /// Index into [`LibrarySet::packages`]; lower is higher priority.
    package: u32,
    kind: ExportKind,
    /// `EXPORT_RATIO` weight; 1 for the other directives.
    ratio: f32,
    /// Index into [`LibrarySet::regions`]; `None` outside any `REGION`.
    region: Option<u32>,
    /// The seasons it is for ([`Export::season_mask`]): every season's exports are kept,
    /// and a lookup takes those of its season.
    seasons: SeasonMask,
    /// Written with a season list (`EXPORT*_SEASON`), even one of all four seasons.
    seasonal: bool,
    /// The real file: the package folder joined with the path as written.
    path: PathBuf,
}

/// How to choose among the alternatives of a virtual path.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Pick {
    /// The first alternative in priority and file order (what WED shows: variant 0).
    First,
    /// A weighted draw from this seed (and the virtual path and location).
    Seeded(u64),
}

/// What a virtual path resolved to.
#[derive(Debug, Clone, PartialEq)]
pub struct Choice {
    pub path: PathBuf,
    pub package: String,
    pub via: String,
}

/// The merged libraries of packages in priority order.
#[derive(Debug, Clone, Default)]
pub struct LibrarySet {
    packages: Vec<Package>,
    regions: Vec<RegionArea>,
    /// Virtual path → its exports, in package priority order, then file order.
    index: HashMap<String, Vec<Entry>>,
}

impl LibrarySet {
    /// The packages read, highest priority first.
    pub fn packages(&self) -> &[Package] {
        &self.packages
    }

    /// Adds the library of the package in `dir` below every package added so far. A
    /// region defined with `REGION_DREF` or `REGION_BITMAP` gets one warning here, saying it
    /// is taken as true.
    pub fn add(
        &mut self,
        dir: &Path,
        library_txt: &Path,
        lib: &Library,
        diags: &mut Vec<Diagnostic>,
    ) {
        let package = self.packages.len() as u32;
        let name = dir
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| dir.display().to_string());
        self.packages.push(Package {
            name,
            dir: dir.to_path_buf(),
        });

        for def in &lib.regions {
            let mut conditions = Vec::new();
            if !def.drefs.is_empty() {
                conditions.push("REGION_DREF");
            }
            if !def.bitmaps.is_empty() {
                conditions.push("REGION_BITMAP");
            }
            if !conditions.is_empty() {
                diags.push(Diagnostic::warning_at(
                    library_txt,
                    def.line.max(1),
                    1,
                    format!(
                        "region `{}`: {} taken as true (agview has no datarefs or region bitmaps)",
                        def.name,
                        conditions.join(" and ")
                    ),
                ));
            }
        }
        // One area per REGION_DEFINE; an export uses the latest definition of its name
        // above it.
        let first_region = self.regions.len() as u32;
        self.regions.extend(lib.regions.iter().map(RegionArea::of));
        let mut undefined: HashMap<&str, u32> = HashMap::new();

        for e in &lib.exports {
            let region = e.region.as_ref().map(|name| {
                let def = lib
                    .regions
                    .iter()
                    .enumerate()
                    .rev()
                    .find(|(_, r)| &r.name == name && r.line < e.line);
                match def {
                    Some((i, _)) => first_region + i as u32,
                    None => *undefined.entry(name.as_str()).or_insert_with(|| {
                        self.regions.push(RegionArea::undefined(name));
                        self.regions.len() as u32 - 1
                    }),
                }
            });
            let entry = Entry {
                package,
                kind: e.kind,
                ratio: if e.kind == ExportKind::Ratio {
                    e.ratio.unwrap_or(1.0)
                } else {
                    1.0
                },
                region,
                seasons: e.season_mask(),
                seasonal: e.seasons.is_some(),
                path: join_name(dir, &e.real_path),
            };
            match self.index.get_mut(e.virtual_path.as_str()) {
                Some(v) => v.push(entry),
                None => {
                    self.index.insert(e.virtual_path.clone(), vec![entry]);
                }
            }
        }
    }

    /// True when some package exports `virtual_path` (anywhere, in any way).
    pub fn exports(&self, virtual_path: &str) -> bool {
        self.index.contains_key(virtual_path)
    }

    /// The alternatives for `virtual_path` at `at`, highest priority first.
    ///
    /// Packages are walked from the highest priority down. A package's `EXPORT_EXCLUDE`s
    /// that apply replace its other exports and every lower package's (alternatives that
    /// higher packages added with `EXPORT_EXTEND` stay). A package with an `EXPORT` or
    /// `EXPORT_RATIO` that applies contributes its exports and hides lower packages. A
    /// package with only `EXPORT_EXTEND`s contributes them and lets lower packages add
    /// theirs. When nothing applies, the highest-priority `EXPORT_BACKUP` is used.
    ///
    /// Seasons: only the exports for `season` apply, and an export without a season list is
    /// for every season. An `EXPORT_EXCLUDE_SEASON` that applies replaces its package's
    /// plain exports (its package's other seasonal exports for the season stay) and every
    /// lower package's. A season no export of a package names falls back to the package's
    /// plain exports, then to lower packages, then to `EXPORT_BACKUP`: never to another
    /// season's file (docs/spec-decisions.md, "Seasons").
    ///
    /// Without a location, exports valid everywhere are tried first; regional ones only
    /// when those give nothing.
    fn alternatives(&self, virtual_path: &str, at: Option<LatLon>, season: Season) -> Vec<&Entry> {
        let Some(entries) = self.index.get(virtual_path) else {
            return Vec::new();
        };
        match at {
            Some(at) => self.apply(entries, season, |r| r.contains(at)),
            None => {
                let global = self.apply(entries, season, |r| r.everywhere);
                if global.is_empty() {
                    self.apply(entries, season, |r| r.everywhere || !r.rects.is_empty())
                } else {
                    global
                }
            }
        }
    }

    /// The alternatives among `entries` that apply in `season` where `in_region` holds:
    /// an export of other seasons does not apply, as one of another region does not.
    fn apply<'s>(
        &'s self,
        entries: &'s [Entry],
        season: Season,
        in_region: impl Fn(&RegionArea) -> bool,
    ) -> Vec<&'s Entry> {
        let applies = |e: &&Entry| {
            e.seasons & season.bit() != 0
                && e.region
                    .is_none_or(|r| in_region(&self.regions[r as usize]))
        };
        let mut alts: Vec<&Entry> = Vec::new();
        let mut backup: Option<&Entry> = None;
        for group in entries.chunk_by(|a, b| a.package == b.package) {
            let here: Vec<&Entry> = group.iter().filter(applies).collect();
            if backup.is_none() {
                backup = here.iter().copied().find(|e| e.kind == ExportKind::Backup);
            }
            let exclude: Vec<&Entry> = here
                .iter()
                .copied()
                .filter(|e| e.kind == ExportKind::Exclude)
                .collect();
            if !exclude.is_empty() {
                // An `EXPORT_EXCLUDE` replaces every other export of its package; only
                // `EXPORT_EXCLUDE_SEASON`s replace its plain ones only (XP12.md §2.1).
                let seasonal_only = exclude.iter().all(|e| e.seasonal);
                alts.extend(here.iter().copied().filter(|e| {
                    e.kind == ExportKind::Exclude
                        || (seasonal_only && e.seasonal && e.kind != ExportKind::Backup)
                }));
                return alts;
            }
            alts.extend(here.iter().filter(|e| e.kind != ExportKind::Backup));
            if here
                .iter()
                .any(|e| matches!(e.kind, ExportKind::Export | ExportKind::Ratio))
            {
                return alts;
            }
        }
        if alts.is_empty() {
            alts.extend(backup);
        }
        alts
    }

    /// Resolves `virtual_path` at `at`. A picked file that does not exist gives way to the
    /// first alternative that does; `None` when no alternative exists on disk.
    pub fn resolve(
        &self,
        virtual_path: &str,
        at: Option<LatLon>,
        season: Season,
        pick: Pick,
    ) -> Option<Choice> {
        self.resolve_admitted(virtual_path, at, season, pick, &mut |_| true)
    }

    /// [`LibrarySet::resolve`] among only the alternatives whose file `admit` accepts (the
    /// variants an autogen point's `SLOPE_LIMIT` screens out are left out before the draw,
    /// so when `admit` accepts all of them the pick is the same as without it). `None`
    /// when none is admitted.
    pub(crate) fn resolve_admitted(
        &self,
        virtual_path: &str,
        at: Option<LatLon>,
        season: Season,
        pick: Pick,
        admit: &mut dyn FnMut(&Path) -> bool,
    ) -> Option<Choice> {
        let mut alts = self.alternatives(virtual_path, at, season);
        alts.retain(|e| admit(&e.path));
        if alts.is_empty() {
            return None;
        }
        let picked = match pick {
            Pick::First => 0,
            Pick::Seeded(seed) => {
                let weights: Vec<f32> = alts.iter().map(|e| e.ratio).collect();
                let mut rng = Rng::new(seed).fork(stream(virtual_path, at));
                // All weights zero (`EXPORT_RATIO 0`): an even draw.
                rng.weighted(&weights)
                    .unwrap_or_else(|| rng.below(alts.len()))
            }
        };
        let (entry, fallback) = if alts[picked].path.is_file() {
            (alts[picked], false)
        } else {
            (*alts.iter().find(|e| e.path.is_file())?, true)
        };
        let mut via = directive(entry);
        if let Some(r) = entry.region {
            let region = &self.regions[r as usize];
            if !region.everywhere {
                via.push_str(&format!(" in REGION {}", region.name));
            }
        }
        if alts.len() > 1 {
            via.push_str(&match (pick, fallback) {
                (_, true) => format!(" (the picked one of {} is missing)", alts.len()),
                (Pick::First, _) => format!(" (first of {})", alts.len()),
                (Pick::Seeded(_), _) => format!(" (seeded pick of {})", alts.len()),
            });
        }
        Some(Choice {
            path: entry.path.clone(),
            package: self.packages[entry.package as usize].name.clone(),
            via,
        })
    }
}

/// How `via` names the directive that chose `e`: `EXPORT_RATIO 0.3`, `EXPORT_SEASON
/// sum,fal`, `EXPORT_RATIO_SEASON 0.3 win`.
fn directive(e: &Entry) -> String {
    let mut out = e.kind.keyword(e.seasonal).to_string();
    if e.kind == ExportKind::Ratio {
        out.push_str(&format!(" {}", e.ratio));
    }
    if e.seasonal {
        out.push(' ');
        out.push_str(&mask_words(e.seasons, ","));
    }
    out
}

/// The generator stream for one pick: FNV-1a over the virtual path and the location's bits,
/// so different features (and places) may get different variants under one seed.
fn stream(virtual_path: &str, at: Option<LatLon>) -> u64 {
    let mut h: u64 = 0xCBF2_9CE4_8422_2325;
    let mut eat = |bytes: &[u8]| {
        for b in bytes {
            h ^= u64::from(*b);
            h = h.wrapping_mul(0x0000_0100_0000_01B3);
        }
    };
    eat(virtual_path.as_bytes());
    if let Some(at) = at {
        eat(&at.lat.to_bits().to_le_bytes());
        eat(&at.lon.to_bits().to_le_bytes());
    }
    h
}
