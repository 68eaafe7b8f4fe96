//! What the command-line test files share: a temporary folder per test, and running the
//! `agview` binary from a folder of the test's choosing.

// Each test file uses what it needs of these.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::Command;

/// A fresh folder for one test, removed when the test ends.
pub struct Tmp(pub PathBuf);

impl Tmp {
    pub fn new(name: &str) -> Tmp {
        let d = std::env::temp_dir().join(format!("agview-test-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        Tmp(d)
    }
}

impl Drop for Tmp {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// `agview ARGS` run in `cwd`, with no X-Plane install from the environment: exit code,
/// stdout, stderr.
pub fn agview(cwd: &Path, args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_agview"))
        .args(args)
        .current_dir(cwd)
        .env_remove("XPLANE_ROOT")
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// `text` with Windows' path separator read as Linux's, to compare what a Windows run
/// prints with what Linux prints (on Linux it is unchanged: there a backslash is part of a
/// name, as in a DSF's `objects\shed.obj`).
pub fn slashed(text: impl AsRef<str>) -> String {
    if cfg!(windows) {
        text.as_ref().replace('\\', "/")
    } else {
        text.as_ref().to_string()
    }
}
