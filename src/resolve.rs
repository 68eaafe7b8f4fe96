//! Finding the files an asset names: relative to the asset, relative to its scenery
//! package, or through the package's `library.txt`.
//!
//! X-Plane resolves an art path written in an asset first as a path relative to the file
//! that names it, then as a library path exported by some package. agview looks for the
//! package root by walking up from the asset to the nearest folder holding a `library.txt`,
//! and resolves library paths through that one library (a previewer has no global library).
//! Texture names also try the `.dds`/`.png` twin, as X-Plane does.

use std::path::{Path, PathBuf};

use crate::diag::Diagnostic;
use crate::format::library::Library;

/// How many folders up from an asset agview looks for `library.txt`.
const MAX_PACKAGE_DEPTH: usize = 6;

/// Resolves art paths for the assets of one scenery package.
#[derive(Debug, Clone, Default)]
pub struct Resolver {
    /// The folder holding `library.txt`, if one was found.
    pub root: Option<PathBuf>,
    pub library: Option<Library>,
}

impl Resolver {
    /// A resolver for the package that holds `asset`. Problems reading `library.txt` are
    /// pushed as diagnostics; resolution then works without the library.
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
                return Resolver {
                    root: Some(d.to_path_buf()),
                    library,
                };
            }
            dir = d.parent().filter(|p| !p.as_os_str().is_empty());
        }
        Resolver::default()
    }

    /// The file `name` refers to when written in `from`, if it exists.
    pub fn resolve(&self, from: &Path, name: &str) -> Option<PathBuf> {
        self.candidates(from, name)
            .into_iter()
            .find(|p| p.is_file())
    }

    /// Like [`Resolver::resolve`], also trying the `.dds`/`.png` twin of a texture name.
    pub fn resolve_texture(&self, from: &Path, name: &str) -> Option<PathBuf> {
        self.resolve(from, name).or_else(|| {
            let twin = texture_twin(name)?;
            self.resolve(from, &twin)
        })
    }

    /// Every place `name` could be, in the order they are tried.
    pub fn candidates(&self, from: &Path, name: &str) -> Vec<PathBuf> {
        let name = name.replace('\\', "/");
        let mut out = Vec::new();
        let dir = from.parent().unwrap_or(Path::new(""));
        out.push(normalize(&dir.join(&name)));
        if let Some(root) = &self.root {
            out.push(normalize(&root.join(&name)));
            if let Some(real) = self.library.as_ref().and_then(|l| l.resolve(&name)) {
                out.push(normalize(&root.join(real.replace('\\', "/"))));
            }
        }
        out.dedup();
        out
    }

    /// A warning for a reference that did not resolve, naming what was tried.
    pub fn missing(&self, from: &Path, line: u32, what: &str, name: &str) -> Diagnostic {
        let mut tried: Vec<String> = self
            .candidates(from, name)
            .iter()
            .map(|p| p.display().to_string())
            .collect();
        tried.dedup();
        let lib = if self.library.is_some() {
            " or in library.txt"
        } else {
            ""
        };
        Diagnostic::warning_at(
            from,
            line.max(1),
            1,
            format!(
                "{what} `{name}` not found (looked for {}{lib}); a placeholder is drawn",
                tried.join(", ")
            ),
        )
    }
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normalizes() {
        assert_eq!(normalize(Path::new("a/b/../c/./d")), PathBuf::from("a/c/d"));
        assert_eq!(normalize(Path::new("../x/../y")), PathBuf::from("../y"));
        assert_eq!(normalize(Path::new("a/..")), PathBuf::from("."));
    }

    #[test]
    fn twins() {
        assert_eq!(texture_twin("a/b.PNG").as_deref(), Some("a/b.dds"));
        assert_eq!(texture_twin("a.dds").as_deref(), Some("a.png"));
        assert_eq!(texture_twin("a.bmp"), None);
        assert_eq!(texture_twin("x"), None);
    }

    #[test]
    fn relative_then_package_then_library() {
        let dir = std::env::temp_dir().join(format!("agview-resolve-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("autogen")).unwrap();
        std::fs::create_dir_all(dir.join("objects")).unwrap();
        std::fs::write(dir.join("objects/house.obj"), "A\n800\nOBJ\n").unwrap();
        std::fs::write(
            dir.join("library.txt"),
            "A\n800\nLIBRARY\nEXPORT lib/house.obj objects/house.obj\n",
        )
        .unwrap();
        let asset = dir.join("autogen/a.agp");
        let mut d = Vec::new();
        let r = Resolver::for_asset(&asset, &mut d);
        assert!(d.is_empty(), "{d:?}");
        assert_eq!(r.root.as_deref(), Some(dir.as_path()));
        let want = Some(dir.join("objects/house.obj"));
        assert_eq!(r.resolve(&asset, "../objects/house.obj"), want);
        assert_eq!(
            r.resolve(&asset, "objects/house.obj"),
            Some(dir.join("objects/house.obj"))
        );
        assert_eq!(
            r.resolve(&asset, "lib/house.obj"),
            Some(dir.join("objects/house.obj"))
        );
        assert_eq!(r.resolve(&asset, "lib/none.obj"), None);
        let w = r.missing(&asset, 7, "OBJECT", "lib/none.obj").to_string();
        assert!(
            w.contains("a.agp:7:1: warning: OBJECT `lib/none.obj` not found"),
            "{w}"
        );
        let _ = std::fs::remove_dir_all(&dir);
    }
}
