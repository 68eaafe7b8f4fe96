//! Names the build for `agview --version`: `AGVIEW_GIT_COMMIT`, the commit's short hash (or
//! `unknown` outside a git checkout, as for `cargo install` from a published package), and
//! `AGVIEW_TARGET`, the target triple.

use std::path::Path;
use std::process::Command;

/// `git ARGS` in the package root, its first line of output, or `None` when git fails.
fn git(args: &[&str]) -> Option<String> {
    let out = Command::new("git").args(args).output().ok()?;
    let text = String::from_utf8(out.stdout).ok()?;
    let line = text.lines().next()?.trim();
    (out.status.success() && !line.is_empty()).then(|| line.to_string())
}

/// Rebuild when `path` changes, if it exists: cargo reruns a script on every build when a
/// watched path is missing.
fn watch(path: &Path) {
    if path.exists() {
        println!("cargo:rerun-if-changed={}", path.display());
    }
}

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    // Only this package's own checkout names the commit, not a repository it was unpacked
    // into.
    let commit = if Path::new(".git").exists() {
        git(&["rev-parse", "--short=12", "HEAD"])
    } else {
        None
    };
    if commit.is_some() {
        // `--git-path` finds HEAD and the branch's ref in a worktree too, where `.git` is a
        // file. A branch whose ref was packed gets its file back on the next commit: watch
        // its folder until then.
        if let Some(head) = git(&["rev-parse", "--git-path", "HEAD"]) {
            watch(Path::new(&head));
        }
        let branch = git(&["symbolic-ref", "-q", "HEAD"]);
        if let Some(file) = branch.and_then(|b| git(&["rev-parse", "--git-path", &b])) {
            let file = Path::new(&file);
            if file.exists() {
                watch(file);
            } else if let Some(folder) = file.parent() {
                watch(folder);
            }
        }
    }
    let commit = commit.unwrap_or_else(|| "unknown".into());
    println!("cargo:rustc-env=AGVIEW_GIT_COMMIT={commit}");
    let target = std::env::var("TARGET").expect("cargo sets TARGET for build scripts");
    println!("cargo:rustc-env=AGVIEW_TARGET={target}");
}
