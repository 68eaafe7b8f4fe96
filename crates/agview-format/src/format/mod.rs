//! Readers for every file an autogen asset involves. Each reader takes the file's path (for
//! diagnostics) and its bytes, pushes warnings into a list, and returns typed data that keeps
//! the source line of every directive, or the first error.

pub mod agn;
pub mod apt;
pub mod autogen;
pub mod dsf;
pub mod dsf_bin;
pub mod facade;
pub mod forest;
pub mod geojson;
pub mod library;
pub mod lights_txt;
pub mod lin;
pub mod net;
pub mod obj8;
pub mod obj_string;
pub mod pol;
pub mod text;
pub mod wavefront;
pub mod wed;

/// A small xorshift generator for the readers' tests: they need no crate for their
/// randomness, and a fixed seed keeps them reproducible.
#[cfg(test)]
pub(crate) struct XorShift(pub u64);

#[cfg(test)]
impl XorShift {
    pub(crate) fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
}

use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::diag::Diagnostic;

/// Files larger than this are refused rather than read into memory.
pub const MAX_FILE_BYTES: u64 = 2 << 30;

/// What kind of file a path holds, by extension and, where extensions are shared
/// (`.obj`, `.txt`), by its first bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum FileKind {
    Autogen,
    Agn,
    Obj8,
    Wavefront,
    Forest,
    Facade,
    /// A draped polygon, `.pol`.
    Pol,
    /// An object string, `.str`.
    ObjString,
    /// A painted line, `.lin`.
    Lin,
    /// Airports, `apt.dat`.
    Apt,
    Library,
    DsfText,
    DsfBinary,
    GeoJson,
    /// A WED 2.x project, `earth.wed.xml` (any name ending `.wed.xml`).
    Wed,
    Image,
    /// A road network definition, `.net`.
    Net,
}

impl FileKind {
    /// The kind of `path`, looking at `head` (the file's first bytes) where the extension
    /// is ambiguous. `None` for files agview does not read.
    pub fn detect(path: &Path, head: &[u8]) -> Option<FileKind> {
        let name = path.file_name()?.to_string_lossy().to_ascii_lowercase();
        let ext = path
            .extension()
            .map(|e| e.to_string_lossy().to_ascii_lowercase())
            .unwrap_or_default();
        if name.ends_with(".wed.xml") {
            return Some(FileKind::Wed);
        }
        Some(match ext.as_str() {
            "agp" | "agb" | "ags" => FileKind::Autogen,
            "agn" => FileKind::Agn,
            "obj" if obj8::is_obj8(head) => FileKind::Obj8,
            "obj" => FileKind::Wavefront,
            "for" => FileKind::Forest,
            "fac" => FileKind::Facade,
            "pol" => FileKind::Pol,
            "str" => FileKind::ObjString,
            "lin" => FileKind::Lin,
            "net" => FileKind::Net,
            "geojson" => FileKind::GeoJson,
            "png" | "dds" => FileKind::Image,
            "txt" if name == "library.txt" => FileKind::Library,
            "dat" if name == "apt.dat" => FileKind::Apt,
            "txt" if is_dsf_text(head) => FileKind::DsfText,
            "dsf" => FileKind::DsfBinary,
            _ => return None,
        })
    }
}

/// True when the bytes start like DSFTool text output (`A`/`I`, `800`, `DSF2TEXT`).
pub fn is_dsf_text(head: &[u8]) -> bool {
    let text = String::from_utf8_lossy(&head[..head.len().min(256)]);
    let mut words = text.split_ascii_whitespace();
    matches!(words.next(), Some("A" | "I"))
        && words.next() == Some("800")
        && words.next() == Some("DSF2TEXT")
}

/// `path` matched component by component ignoring case (as WED's `FILE_case_correct`
/// does on Linux and macOS), when it exists only that way; `None` when it does not exist
/// either way. The path returned is spelled as the disk spells it, on every file system:
/// on one that ignores case (Windows', macOS's by default) `is_file` succeeds whatever
/// the case, so there the spelling comes from the directory listings ([`spelled_on_disk`]),
/// and a name that differs in case is told apart as it is on Linux.
pub fn find_ignoring_case(path: &Path) -> Option<PathBuf> {
    use std::path::Component;
    if path.is_file() {
        return Some(if ignores_case(path) {
            spelled_on_disk(path)
        } else {
            path.to_path_buf()
        });
    }
    let mut cur = PathBuf::new();
    for comp in path.components() {
        match comp {
            Component::Normal(name) => {
                let next = cur.join(name);
                if next.exists() {
                    cur = next;
                    continue;
                }
                let found = listed(&cur, name, |a, b| {
                    a.to_string_lossy().to_lowercase() == b.to_string_lossy().to_lowercase()
                })?;
                cur.push(found);
            }
            other => cur.push(other.as_os_str()),
        }
    }
    cur.is_file().then_some(cur)
}

/// `path` as the disk spells it where the file system ignores case and the path exists;
/// else `path` itself. A path the user typed (`c:\users\me\pkg`) goes through this once,
/// so that what agview finds below it differs in case from its reference only where the
/// package's own names do, and only those warn ([`find_ignoring_case`]).
pub fn as_on_disk(path: &Path) -> PathBuf {
    if path.exists() && ignores_case(path) {
        spelled_on_disk(path)
    } else {
        path.to_path_buf()
    }
}

/// `path`, which exists, with each folder and file name spelled as its directory lists it:
/// the exact name where the listing has it, else the one that matches ignoring case. A path
/// already spelled so comes back as it was written, separators and all. On a file system
/// that keeps case this is `path` itself.
pub fn spelled_on_disk(path: &Path) -> PathBuf {
    use std::path::Component;
    let mut cur = PathBuf::new();
    for comp in path.components() {
        match comp {
            Component::Normal(name) => {
                let lower = |n: &std::ffi::OsStr| n.to_string_lossy().to_lowercase();
                let exact = listed(&cur, name, |a, b| a == b);
                let spelled = exact.or_else(|| listed(&cur, name, |a, b| lower(a) == lower(b)));
                cur.push(spelled.unwrap_or_else(|| name.to_os_string()));
            }
            other => cur.push(other.as_os_str()),
        }
    }
    // Equal component by component: keep the text the user or the file wrote.
    if cur == path {
        path.to_path_buf()
    } else {
        cur
    }
}

/// Whether the file system holding `path` (which exists) finds it under another case: the
/// name with its letters' case swapped names a file too. A name without letters tells
/// nothing, and counts as keeping case. (Two files that differ only in case, on a file
/// system that keeps case, also answer yes; [`spelled_on_disk`] then keeps the exact one.)
pub fn ignores_case(path: &Path) -> bool {
    let Some(name) = path.file_name().map(|n| n.to_string_lossy()) else {
        return false;
    };
    let swapped: String = name
        .chars()
        .map(|c| {
            if c.is_lowercase() {
                c.to_uppercase().next().unwrap_or(c)
            } else {
                c.to_lowercase().next().unwrap_or(c)
            }
        })
        .collect();
    swapped != name && path.with_file_name(swapped).exists()
}

/// The entry of folder `dir` (the current folder when empty) whose name `same` accepts.
fn listed(
    dir: &Path,
    name: &std::ffi::OsStr,
    same: impl Fn(&std::ffi::OsStr, &std::ffi::OsStr) -> bool,
) -> Option<std::ffi::OsString> {
    let dir = if dir.as_os_str().is_empty() {
        Path::new(".")
    } else {
        dir
    };
    std::fs::read_dir(dir)
        .ok()?
        .flatten()
        .map(|e| e.file_name())
        .find(|n| same(n, name))
}

/// The files a texture name is looked for in, in order: the rule of every kind of art
/// (WED's `process_texture_path`, GROUND.md §0): the name without its extension as `.dds`,
/// then `.png`, then `.bmp`. A name in another format (an orthophoto's `.jpg` or `.tif`) is
/// tried as it is first.
pub fn texture_candidates(path: &Path) -> Vec<PathBuf> {
    let ext = path
        .extension()
        .map(|e| e.to_string_lossy().to_ascii_lowercase())
        .unwrap_or_default();
    let twins = ["dds", "png", "bmp"].map(|e| path.with_extension(e));
    match ext.as_str() {
        "png" | "dds" | "bmp" | "" => twins.to_vec(),
        _ => std::iter::once(path.to_path_buf()).chain(twins).collect(),
    }
}

/// Reads a whole file, refusing ones too large to be an asset.
pub fn read_file(path: &Path) -> Result<Vec<u8>, Diagnostic> {
    let missing =
        |m: String| Diagnostic::error_file(path, m).with_kind(crate::diag::kind::MISSING_FILE);
    let meta = std::fs::metadata(path).map_err(|e| {
        missing(match e.kind() {
            // The same words on every system (Windows says "path not found" of a missing
            // folder and "file not found" of a missing file; Linux "no such file").
            std::io::ErrorKind::NotFound => "not found: no such file or folder".to_string(),
            _ => format!("cannot read: {e}"),
        })
    })?;
    if meta.is_dir() {
        return Err(missing("is a directory, not a file".into()));
    }
    if meta.len() > MAX_FILE_BYTES {
        return Err(missing(format!(
            "file is {} bytes, larger than agview reads",
            meta.len()
        )));
    }
    std::fs::read(path).map_err(|e| missing(format!("cannot read: {e}")))
}

/// Any file agview reads, parsed.
// One value per file read (dump, check): an object's texture slots making it the largest
// variant costs nothing worth a box.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Clone, Serialize)]
#[serde(tag = "format", rename_all = "snake_case")]
pub enum Parsed {
    Autogen(autogen::Autogen),
    Agn(agn::AgnFile),
    Obj8(obj8::Obj8),
    Wavefront(wavefront::Wavefront),
    Forest(forest::Forest),
    Facade(facade::Facade),
    Pol(pol::Pol),
    ObjString(obj_string::ObjString),
    Lin(lin::Lin),
    Apt(apt::AptFile),
    Library(library::Library),
    DsfText(dsf::DsfText),
    DsfBinary(dsf_bin::DsfBinary),
    GeoJson(geojson::GeoJson),
    Wed(wed::WedProject),
    Net(net::NetFile),
}

/// Parses bytes already read from `path` as `kind`. Images are not parsed here.
pub fn parse_as(
    kind: FileKind,
    path: &Path,
    bytes: &[u8],
    warnings: &mut Vec<Diagnostic>,
) -> Result<Parsed, Diagnostic> {
    Ok(match kind {
        FileKind::Autogen => Parsed::Autogen(autogen::parse(path, bytes, warnings)?),
        FileKind::Agn => Parsed::Agn(agn::parse(path, bytes, warnings)?),
        FileKind::Obj8 => Parsed::Obj8(obj8::parse(path, bytes, warnings)?),
        FileKind::Wavefront => {
            Parsed::Wavefront(wavefront::parse_wavefront(path, bytes, warnings)?)
        }
        FileKind::Forest => Parsed::Forest(forest::parse(path, bytes, warnings)?),
        FileKind::Facade => Parsed::Facade(facade::parse(path, bytes, warnings)?),
        FileKind::Pol => Parsed::Pol(pol::parse(path, bytes, warnings)?),
        FileKind::ObjString => Parsed::ObjString(obj_string::parse(path, bytes, warnings)?),
        FileKind::Lin => Parsed::Lin(lin::parse(path, bytes, warnings)?),
        FileKind::Apt => Parsed::Apt(apt::parse(path, bytes, warnings)?),
        FileKind::Library => Parsed::Library(library::parse(path, bytes, warnings)?),
        FileKind::DsfText => Parsed::DsfText(dsf::parse(path, bytes, warnings)?),
        FileKind::DsfBinary => Parsed::DsfBinary(dsf_bin::parse(path, bytes, warnings)?),
        FileKind::GeoJson => Parsed::GeoJson(geojson::parse(path, bytes, warnings)?),
        FileKind::Wed => Parsed::Wed(wed::parse(path, bytes, warnings)?),
        FileKind::Net => Parsed::Net(net::parse(path, bytes, warnings)?),
        FileKind::Image => {
            return Err(Diagnostic::error_file(
                path,
                "images are textures, not assets: name the asset that uses them",
            ))
        }
    })
}

/// Reads and parses a file of any kind agview knows.
pub fn parse_file(path: &Path, warnings: &mut Vec<Diagnostic>) -> Result<Parsed, Diagnostic> {
    let bytes = read_file(path)?;
    let kind = FileKind::detect(path, &bytes).ok_or_else(|| {
        Diagnostic::error_file(
            path,
            "not a file agview reads (expected .agp .agb .ags .agn .obj .for .fac .pol .lin .str .net .geojson apt.dat .dsf .wed.xml, library.txt or DSF text)",
        )
    })?;
    parse_as(kind, path, &bytes, warnings)
}

/// A one-screen description of a parsed file, for `agview dump --summary`.
pub fn summary(p: &Parsed) -> String {
    match p {
        Parsed::Autogen(a) => {
            let mut s = format!(
                "{} (version {}): {} object(s), {} facade(s), {} tile(s)",
                a.kind.header_name(),
                a.version,
                a.objects.len(),
                a.facades.len(),
                a.tiles.len()
            );
            if !a.grids.is_empty() {
                s += &format!(
                    ", {} grid(s), {} spelling set(s)",
                    a.grids.len(),
                    a.spelling_sets.len()
                );
            }
            if let Some(st) = &a.string {
                s += &format!(
                    ", {} corner rule(s), {} spelling(s), {} cap(s)",
                    st.corners.len(),
                    st.spellings.len(),
                    st.caps.len()
                );
            }
            s
        }
        Parsed::Agn(a) => {
            let mut s = format!(
                "FSX AGN: {} generic building(s), {} row house(s), {} library object(s), {} vegetation polygon group(s), {} polygon building group(s)",
                a.generic_buildings.iter().map(|g| g.buildings.len()).sum::<usize>(),
                a.row_houses.len(),
                a.library_objects.len(),
                a.vegetation_polygons.len(),
                a.polygon_buildings.len()
            );
            s += &format!(
                ", VGRE: {} rectangle(s) in {} group(s), VGRO: {} rectangle(s)",
                a.vegetation_rects.iter().map(|v| v.rects.len()).sum::<usize>(),
                a.vegetation_rects.len(),
                a.fs2004_vegetation_rects.len()
            );
            s += &match &a.fs2004_vegetation {
                Some(d) => format!(
                    ", VGRD: class {} ({}%, {:.0}-{:.0} m) / class {} ({:.0}-{:.0} m), density {}",
                    d.class1,
                    d.percent_class1,
                    d.height_class1[0],
                    d.height_class1[1],
                    d.class2,
                    d.height_class2[0],
                    d.height_class2[1],
                    d.max_density
                ),
                None => ", no VGRD".to_string(),
            };
            s
        }
        Parsed::Obj8(o) => {
            let mut s = format!(
                "OBJ8: {} vertices, {} indices, {} LOD(s), material model {}",
                o.vertices.len(),
                o.indices.len(),
                o.lods.len(),
                o.material_model().name()
            );
            if !o.decals.is_empty() {
                let kws: Vec<&str> = o.decals.iter().map(|d| d.keyword.as_str()).collect();
                s += &format!(
                    ", {} detail texture line(s) not drawn ({})",
                    kws.len(),
                    kws.join(", ")
                );
            }
            s
        }
        Parsed::Wavefront(w) => format!("Wavefront OBJ: {} mesh(es)", w.meshes.len()),
        Parsed::Forest(f) => format!("forest: {} tree(s)", f.trees.len()),
        Parsed::Facade(f) => {
            let mut s = format!("facade v{}: {} LOD(s)", f.version, f.lods.len());
            if let Some(a) = &f.axial {
                s += &format!(", 2-point axial, {} m wide ({})", a.width, a.rule);
            }
            if let Some(c) = &f.cabin {
                s += &format!(
                    ", jetway: cabin wall {} (style {}), {} tunnel wall(s)",
                    c.wall,
                    c.style,
                    f.tunnels.len()
                );
            }
            if !f.not_drawn.is_empty() {
                let k: Vec<&str> = f.not_drawn.iter().map(|n| n.keyword.as_str()).collect();
                s += &format!(", read but not drawn: {}", k.join(" "));
            }
            s
        }
        Parsed::Pol(p) => format!(
            "draped polygon: texture {}{}, scale {} x {} m, layer group {}",
            p.texture.as_ref().map_or("(none)", |t| t.name.as_str()),
            if p.nowrap { " (no wrap)" } else { "" },
            p.scale[0],
            p.scale[1],
            p.layer_group
                .as_ref()
                .map_or("(default)".to_string(), |(g, o)| format!("{g} {o}"))
        ),
        Parsed::ObjString(s) => format!(
            "object string: {} object(s), offset {} m",
            s.objects.len(),
            s.offset
        ),
        Parsed::Lin(l) => format!(
            "painted line: texture {}, {} layer(s), scale {} x {} m",
            l.texture.as_ref().map_or("(none)", |t| t.name.as_str()),
            l.layers.len(),
            l.scale[0],
            l.scale[1]
        ),
        Parsed::Apt(a) => format!(
            "apt.dat {}: {} airport(s), {} runway(s), {} helipad(s), {} pavement(s), {} marking line(s)",
            a.version,
            a.airports.len(),
            a.airports.iter().map(|x| x.runways.len()).sum::<usize>(),
            a.airports.iter().map(|x| x.helipads.len()).sum::<usize>(),
            a.airports.iter().map(|x| x.pavements.len()).sum::<usize>(),
            a.airports.iter().map(|x| x.markings.len()).sum::<usize>()
        ),
        Parsed::Library(_) => "library.txt".to_string(),
        Parsed::DsfText(d) => format!(
            "DSF text: {} polygon definition(s), {} object definition(s), {} polygon(s), {} object(s)",
            d.polygon_defs.len(),
            d.object_defs.len(),
            d.polygons.len(),
            d.objects.len()
        ),
        Parsed::DsfBinary(d) => dsf_bin::summary(d),
        Parsed::GeoJson(g) => format!(
            "GeoJSON: {} polygon(s), {} point(s)",
            g.polygons.len(),
            g.points.len()
        ),
        Parsed::Net(n) => net::summary(n),
        Parsed::Wed(w) => {
            let hidden = w.objects.iter().filter(|o| o.hidden).count();
            let placements = w
                .objects
                .iter()
                .filter(|o| {
                    matches!(
                        o.data,
                        wed::WedData::AutogenPlacement { .. }
                            | wed::WedData::ObjPlacement { .. }
                            | wed::WedData::FacadePlacement { .. }
                            | wed::WedData::ForestPlacement { .. }
                            | wed::WedData::PolygonPlacement { .. }
                            | wed::WedData::DrapedOrthophoto { .. }
                            | wed::WedData::StringPlacement { .. }
                            | wed::WedData::LinePlacement { .. }
                    )
                })
                .count();
            let classes: Vec<String> = w
                .class_counts()
                .into_iter()
                .map(|(c, n)| format!("{n} {c}"))
                .collect();
            format!(
                "WED project: {} object(s), {placements} placement(s), {hidden} hidden; {}",
                w.objects.len(),
                classes.join(", ")
            )
        }
    }
}
