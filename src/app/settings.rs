//! What the viewer remembers between runs (the side panel's width), in the platform's
//! config folder: `$XDG_CONFIG_HOME/agview/viewer.json` (else `~/.config/…`) on Linux,
//! `~/Library/Application Support/agview/` on macOS, `%APPDATA%\agview\` on Windows.
//! `AGVIEW_CONFIG_DIR` names another folder (the tests use it). A file that cannot be read
//! is ignored; one that cannot be written is left as it was.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

/// The remembered settings.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Settings {
    /// The side panel's width in points, as the user last left it.
    #[serde(default)]
    pub panel_width: Option<f32>,
}

/// The folder the settings live in.
pub fn config_dir() -> Option<PathBuf> {
    let env = |k: &str| {
        std::env::var_os(k)
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
    };
    if let Some(d) = env("AGVIEW_CONFIG_DIR") {
        return Some(d);
    }
    let base = if cfg!(target_os = "windows") {
        env("APPDATA")
    } else if cfg!(target_os = "macos") {
        env("HOME").map(|h| h.join("Library/Application Support"))
    } else {
        env("XDG_CONFIG_HOME").or_else(|| env("HOME").map(|h| h.join(".config")))
    };
    base.map(|b| b.join("agview"))
}

fn file() -> Option<PathBuf> {
    config_dir().map(|d| d.join("viewer.json"))
}

impl Settings {
    /// The remembered settings, or the defaults.
    pub fn load() -> Settings {
        file()
            .and_then(|f| std::fs::read(f).ok())
            .and_then(|b| serde_json::from_slice(&b).ok())
            .unwrap_or_default()
    }

    /// Writes the settings (whole, through a temporary file); a failure is returned for the
    /// caller to mention, never fatal.
    pub fn save(&self) -> Result<(), String> {
        let Some(path) = file() else {
            return Err("no config folder (set HOME or AGVIEW_CONFIG_DIR)".into());
        };
        let dir = path.parent().map(PathBuf::from).unwrap_or_default();
        std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        let tmp = path.with_extension("json.tmp");
        let text = serde_json::to_string_pretty(self).map_err(|e| e.to_string())?;
        std::fs::write(&tmp, text).map_err(|e| format!("{}: {e}", tmp.display()))?;
        std::fs::rename(&tmp, &path).map_err(|e| format!("{}: {e}", path.display()))
    }
}
