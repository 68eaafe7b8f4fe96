//! The `--guid-map` file and the I/O around the AGN layout ([`load_options`]).

use super::*;

/// Reads a GUID → model mapping file: one `GUID path/to/model.obj` a line (the path may
/// contain spaces; a `#` after whitespace starts a comment), `#` comment lines and blank
/// lines skipped. GUIDs are stored in the canonical lower-case form; paths as written. A
/// GUID given twice keeps its first path, with a warning. Errors point at line:col.
pub(crate) fn parse_mapping(
    path: &Path,
    src: &[u8],
    warnings: &mut Vec<Diagnostic>,
) -> Result<HashMap<String, String>, Diagnostic> {
    let mut map = HashMap::new();
    let mut first_line: HashMap<String, u32> = HashMap::new();
    let src = crate::format::text::readable(src);
    let mut text = TextFile::new(path, &src);
    while let Some(line) = text.next() {
        let mut line = line?;
        let guid = Guid::parse(line.keyword).map_err(|e| line.error_kw(e))?;
        let rest = line.rest("model path")?;
        let model = strip_comment(rest);
        let key = guid.to_string();
        if let Some(first) = first_line.get(&key) {
            warnings.push(line.warning_kw(format!(
                "GUID {key} is mapped again (first on line {first}); the first mapping is kept"
            )));
            continue;
        }
        first_line.insert(key.clone(), line.number);
        map.insert(key, model.to_string());
    }
    Ok(map)
}

/// Cuts a trailing `# comment` (a `#` after whitespace) from a path.
fn strip_comment(s: &str) -> &str {
    let b = s.as_bytes();
    for i in 1..b.len() {
        if b[i] == b'#' && b[i - 1].is_ascii_whitespace() {
            return s[..i].trim_end();
        }
    }
    s
}

/// Gathers [`AgnOptions`] for the `.agn` file at `path`: lists its directory (for the
/// textures) and reads the mapping file, whose relative model paths are taken relative to
/// the mapping file's directory. Problems go to `warnings`: a directory that cannot be
/// listed is a warning; a mapping file that cannot be read or has an error is that error
/// (the layout then runs without models; the caller decides whether an error stops it).
pub fn load_options(
    path: &Path,
    mapping: Option<&Path>,
    origin: Option<(f64, f64)>,
    warnings: &mut Vec<Diagnostic>,
) -> AgnOptions {
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let mut texture_dir_files = Vec::new();
    match std::fs::read_dir(&dir) {
        Ok(entries) => {
            for e in entries.flatten() {
                if e.file_type().is_ok_and(|t| !t.is_dir()) {
                    if let Some(n) = e.file_name().to_str() {
                        texture_dir_files.push(n.to_string());
                    }
                }
            }
            texture_dir_files.sort();
        }
        Err(e) => warnings.push(Diagnostic::warning_file(
            path,
            format!("cannot list {} to look for textures: {e}", dir.display()),
        )),
    }
    let mut guid_models = HashMap::new();
    let mut forest_heights = HashMap::new();
    if let Some(m) = mapping {
        match std::fs::read(m) {
            Ok(bytes) => match parse_mapping(m, &bytes, warnings) {
                Ok(map) => {
                    let base = m.parent().unwrap_or(Path::new(""));
                    guid_models = map
                        .into_iter()
                        .map(|(g, model)| {
                            let p = Path::new(&model);
                            let model = if p.is_relative() {
                                base.join(p).display().to_string()
                            } else {
                                model
                            };
                            (g, model)
                        })
                        .collect();
                }
                Err(e) => warnings.push(e),
            },
            Err(e) => warnings.push(Diagnostic::error_file(m, format!("cannot read: {e}"))),
        }
    }
    for model in guid_models.values() {
        if !Path::new(model)
            .extension()
            .is_some_and(|e| e.eq_ignore_ascii_case("for"))
        {
            continue;
        }
        let p = Path::new(model);
        let mut ignore = Vec::new();
        let read = std::fs::read(p).map_err(|e| e.to_string()).and_then(|b| {
            crate::format::forest::parse(p, &b, &mut ignore).map_err(|e| e.to_string())
        });
        match read {
            Ok(f) if !f.trees.is_empty() => {
                let lo = f.trees.iter().map(|t| t.hmin).fold(f32::INFINITY, f32::min);
                let hi = f.trees.iter().map(|t| t.hmax).fold(0.0, f32::max);
                if lo.is_finite() && lo >= 0.0 && hi >= lo {
                    forest_heights.insert(model.clone(), [lo, hi]);
                }
            }
            Ok(_) => {}
            Err(e) => warnings.push(Diagnostic::warning_file(
                p,
                format!("cannot read the forest --guid-map names ({e}); its trees keep their own height"),
            )),
        }
    }
    AgnOptions {
        origin,
        guid_models,
        forest_heights,
        texture_dir_files,
    }
}
