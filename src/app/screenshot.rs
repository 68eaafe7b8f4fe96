//! Screenshot files: `<asset stem>-<YYYYmmdd-HHMMSS>.png`, written whole or not at all.
//!
//! The time stamp is UTC: the standard library has no time zone database and agview
//! carries no date crate. Two screenshots in the same second get `-2`, `-3`, … appended
//! rather than overwriting each other.

use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

/// `YYYYmmdd-HHMMSS` (UTC) of a Unix time in seconds.
pub fn utc_stamp(unix_secs: i64) -> String {
    let days = unix_secs.div_euclid(86_400);
    let secs = unix_secs.rem_euclid(86_400);
    let (y, m, d) = civil_from_days(days);
    format!(
        "{y:04}{m:02}{d:02}-{:02}{:02}{:02}",
        secs / 3600,
        secs / 60 % 60,
        secs % 60
    )
}

/// Year, month, day of a day count since 1970-01-01 (Howard Hinnant's algorithm).
fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y, m, d)
}

/// The file name for a screenshot of `asset` taken at `time`.
pub fn file_name(asset: &Path, time: SystemTime) -> String {
    let stem = asset
        .file_stem()
        .map(|s| s.to_string_lossy().to_string())
        .filter(|s| !s.is_empty())
        .unwrap_or_else(|| "agview".into());
    let secs = time
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs() as i64)
        .unwrap_or(0);
    format!("{stem}-{}.png", utc_stamp(secs))
}

/// `dir/name`, or `dir/<stem>-N.png` for the first N ≥ 2 not taken.
pub fn unique_path(dir: &Path, name: &str) -> PathBuf {
    let first = dir.join(name);
    if !first.exists() {
        return first;
    }
    let stem = name.strip_suffix(".png").unwrap_or(name);
    (2..10_000)
        .map(|n| dir.join(format!("{stem}-{n}.png")))
        .find(|p| !p.exists())
        .unwrap_or(first)
}

/// Writes a screenshot of `asset` into `dir` (the current directory when `None`); the path
/// written, or a message for the panel.
pub fn save(dir: Option<&Path>, asset: &Path, img: &image::RgbaImage) -> Result<PathBuf, String> {
    let dir = dir.unwrap_or(Path::new("."));
    if !dir.is_dir() {
        return Err(format!("screenshot: {} is not a directory", dir.display()));
    }
    let path = unique_path(dir, &file_name(asset, SystemTime::now()));
    crate::render::write_png(&path, img)
        .map_err(|e| format!("screenshot: cannot write {}: {e}", path.display()))?;
    Ok(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stamps_are_utc_calendar_times() {
        assert_eq!(utc_stamp(0), "19700101-000000");
        assert_eq!(utc_stamp(1_700_000_000), "20231114-221320");
        // A leap day and the last second of a year.
        assert_eq!(utc_stamp(951_782_400), "20000229-000000");
        assert_eq!(utc_stamp(1_735_689_599), "20241231-235959");
        assert_eq!(utc_stamp(-1), "19691231-235959");
    }

    #[test]
    fn names_use_the_asset_stem() {
        let t = UNIX_EPOCH + std::time::Duration::from_secs(1_700_000_000);
        assert_eq!(
            file_name(Path::new("a/b/city_block.agb"), t),
            "city_block-20231114-221320.png"
        );
    }

    #[test]
    fn unwritable_or_missing_directory_is_an_error_not_a_panic() {
        let img = image::RgbaImage::new(4, 4);
        let e = save(
            Some(Path::new("/nonexistent/agview/shots")),
            Path::new("x.agp"),
            &img,
        )
        .unwrap_err();
        assert!(e.contains("not a directory"), "{e}");
        let dir = std::env::temp_dir().join(format!("agview-shot-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let a = save(Some(&dir), Path::new("x.agp"), &img).unwrap();
        let b = save(Some(&dir), Path::new("x.agp"), &img).unwrap();
        assert_ne!(a, b, "a second shot in the same second does not overwrite");
        assert!(a.file_name().unwrap().to_string_lossy().starts_with("x-"));
        // A read-only directory (root ignores permissions, so only check when it bites; a
        // Windows folder's read-only flag never stops a write, so this is Unix's case).
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let ro = dir.join("ro");
            std::fs::create_dir_all(&ro).unwrap();
            std::fs::set_permissions(&ro, std::fs::Permissions::from_mode(0o555)).unwrap();
            if std::fs::write(ro.join("probe"), b"").is_err() {
                let e = save(Some(&ro), Path::new("x.agp"), &img).unwrap_err();
                assert!(e.contains("cannot write"), "{e}");
            }
            let _ = std::fs::set_permissions(&ro, std::fs::Permissions::from_mode(0o755));
        }
        let _ = std::fs::remove_dir_all(&dir);
    }
}
