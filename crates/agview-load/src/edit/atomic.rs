//! The one way agview writes a file a user keeps: the whole content to a temporary file in
//! the same folder, flushed to the disk (`fsync`), then renamed over the target, as editors
//! and `cargo` do. A crash or a failure before the rename leaves the old file as it was; after
//! it, the new one is whole. Nothing else of the folder changes (a failed write removes its
//! temporary file).

use std::io::Write;
use std::path::{Path, PathBuf};

/// The temporary file a write of `path` goes through: hidden, beside it, named after it and
/// this process (`.town.geojson.agview-1234.tmp`), so that two agview processes never share
/// one and a file watcher can tell it from the file.
pub fn temp_path(path: &Path) -> PathBuf {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "file".to_string());
    path.with_file_name(format!(".{name}.agview-{}.tmp", std::process::id()))
}

/// Writes `bytes` to `path` through a temporary file renamed into place (see the module).
pub fn write_atomic(path: &Path, bytes: &[u8]) -> std::io::Result<PathBuf> {
    write_atomic_with(path, bytes, &mut |_| Ok(()))
}

/// [`write_atomic`], running `before_rename` between the temporary file's `fsync` and the
/// rename (tests use it to fail there, as a crash or a full disk would). Returns the path
/// written: `path`, or the file it links to when it is a symbolic link (the link is kept).
/// The new file takes the old one's permissions.
pub fn write_atomic_with(
    path: &Path,
    bytes: &[u8],
    before_rename: &mut dyn FnMut(&Path) -> std::io::Result<()>,
) -> std::io::Result<PathBuf> {
    let target = match std::fs::symlink_metadata(path) {
        Ok(m) if m.file_type().is_symlink() => std::fs::canonicalize(path)?,
        _ => path.to_path_buf(),
    };
    let tmp = temp_path(&target);
    let result = (|| {
        let mut file = std::fs::File::create(&tmp)?;
        file.write_all(bytes)?;
        file.sync_all()?;
        drop(file);
        if let Ok(old) = std::fs::metadata(&target) {
            // Best effort: a file system without permissions still gets the content.
            let _ = std::fs::set_permissions(&tmp, old.permissions());
        }
        before_rename(&tmp)?;
        std::fs::rename(&tmp, &target)
    })();
    if let Err(e) = result {
        let _ = std::fs::remove_file(&tmp);
        return Err(e);
    }
    sync_folder(&target);
    Ok(target)
}

/// Flushes the folder entry of a renamed file (Unix; elsewhere the rename is what there is).
fn sync_folder(path: &Path) {
    #[cfg(unix)]
    if let Some(dir) = path.parent() {
        let dir = if dir.as_os_str().is_empty() {
            Path::new(".")
        } else {
            dir
        };
        if let Ok(d) = std::fs::File::open(dir) {
            let _ = d.sync_all();
        }
    }
    #[cfg(not(unix))]
    let _ = path;
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dir(name: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("agview-atomic-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        d
    }

    #[test]
    fn replaces_the_file_and_leaves_no_temporary() {
        let d = dir("replace");
        let f = d.join("a.txt");
        std::fs::write(&f, "old").unwrap();
        assert_eq!(write_atomic(&f, b"new").unwrap(), f);
        assert_eq!(std::fs::read(&f).unwrap(), b"new");
        assert_eq!(std::fs::read_dir(&d).unwrap().count(), 1);
        let _ = std::fs::remove_dir_all(&d);
    }

    #[test]
    fn a_failure_before_the_rename_keeps_the_old_file() {
        let d = dir("interrupted");
        let f = d.join("a.txt");
        std::fs::write(&f, "old").unwrap();
        let mut seen = Vec::new();
        let e = write_atomic_with(&f, b"new and whole", &mut |tmp| {
            // The temporary file holds the whole new content, flushed, before the rename.
            seen = std::fs::read(tmp)?;
            Err(std::io::Error::other("simulated crash"))
        })
        .unwrap_err();
        assert_eq!(e.to_string(), "simulated crash");
        assert_eq!(seen, b"new and whole");
        assert_eq!(std::fs::read(&f).unwrap(), b"old");
        assert_eq!(
            std::fs::read_dir(&d).unwrap().count(),
            1,
            "temporary removed"
        );
        let _ = std::fs::remove_dir_all(&d);
    }

    #[test]
    fn a_folder_that_is_a_file_is_an_error() {
        let d = dir("notdir");
        let file = d.join("plain");
        std::fs::write(&file, "x").unwrap();
        assert!(write_atomic(&file.join("out.txt"), b"y").is_err());
        assert_eq!(std::fs::read(&file).unwrap(), b"x");
        let _ = std::fs::remove_dir_all(&d);
    }

    #[cfg(unix)]
    #[test]
    fn a_link_keeps_pointing_at_the_written_file() {
        let d = dir("link");
        let real = d.join("real.txt");
        let link = d.join("link.txt");
        std::fs::write(&real, "old").unwrap();
        std::os::unix::fs::symlink(&real, &link).unwrap();
        write_atomic(&link, b"new").unwrap();
        assert!(std::fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink());
        assert_eq!(std::fs::read(&real).unwrap(), b"new");
        let _ = std::fs::remove_dir_all(&d);
    }
}
