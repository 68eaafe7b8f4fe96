//! The import rules of `docs/architecture.md`, checked on the source: every arrow points
//! down. A module's imports are the `crate::…` and `super::…` paths in its code (comments and
//! its `#[cfg(test)] mod tests` left out: tests may reach anywhere).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

fn crates() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("crates")
}

fn src() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap().flatten() {
        let p = e.path();
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// A file's code without comments and without its test module (or test file).
fn code(path: &Path) -> String {
    if path.file_name().is_some_and(|n| n == "tests.rs")
        || path.components().any(|c| c.as_os_str() == "tests")
    {
        return String::new();
    }
    let text = std::fs::read_to_string(path).unwrap();
    without_test_block(&text)
        .lines()
        .map(|l| l.split("//").next().unwrap_or(""))
        .collect::<Vec<_>>()
        .join("\n")
}

/// `text` without its inline test module (`#[cfg(test)] mod tests { … }`, up to its
/// matching brace). A `mod tests;` declaration names a file of its own (skipped above) and
/// cuts nothing: every other line is read.
fn without_test_block(text: &str) -> String {
    const HEAD: &str = "#[cfg(test)]\nmod tests {";
    let Some(start) = text.find(HEAD) else {
        return text.to_string();
    };
    let body = start + HEAD.len();
    let mut depth = 1usize;
    let mut end = text.len();
    for (i, c) in text[body..].char_indices() {
        match c {
            '{' => depth += 1,
            '}' => {
                depth -= 1;
                if depth == 0 {
                    end = body + i + 1;
                    break;
                }
            }
            _ => {}
        }
    }
    format!("{}{}", &text[..start], without_test_block(&text[end..]))
}

#[test]
fn a_test_declaration_cuts_nothing_and_a_test_block_only_itself() {
    let text = "use crate::a;\n#[cfg(test)]\nmod tests;\nuse crate::b;\n#[cfg(test)]\nmod tests {\n    fn f() { crate::c; }\n}\nuse crate::d;\n";
    let kept = without_test_block(text);
    assert_eq!(
        after(&kept, "crate::"),
        ["a", "b", "d"].iter().map(|s| s.to_string()).collect()
    );
}

/// The names that follow `prefix` (`crate::`, `super::`) in `code`.
fn after(code: &str, prefix: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let mut rest = code;
    while let Some(i) = rest.find(prefix) {
        let before_ok = rest[..i]
            .chars()
            .last()
            .is_none_or(|c| !(c.is_alphanumeric() || c == '_' || c == ':'));
        rest = &rest[i + prefix.len()..];
        let name: String = rest
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect();
        if before_ok && !name.is_empty() {
            out.insert(name);
        }
    }
    out
}

/// The source folders whose top-level modules are the stages above the readers and the
/// layout (each crate names the crates below it as `crate::diag`, `crate::format`, …).
fn stage_roots() -> Vec<PathBuf> {
    vec![src(), crates().join("agview-load/src")]
}

/// The crates that are one stage each (their modules' own graph is checked by
/// `the_renderer_has_no_import_circle`): the CPU side of drawing, and the renderer, which
/// names the mesh crate's modules as its own (`crate::objects`).
const WHOLE_CRATE_STAGES: [(&str, &str); 3] = [
    ("mesh", "agview-mesh"),
    ("render", "agview-render"),
    ("export", "agview-export"),
];

/// The top-level module names of a crate's `src/`.
fn modules_of(root: &Path) -> BTreeSet<String> {
    std::fs::read_dir(root)
        .unwrap()
        .flatten()
        .map(|e| {
            e.file_name()
                .to_string_lossy()
                .trim_end_matches(".rs")
                .to_string()
        })
        .filter(|n| n != "lib" && n != "main")
        .collect()
}

/// Top-level module (`src/X.rs` or `src/X/`, and likewise in the loading crate), and each
/// whole-crate stage → the stages it imports.
fn crate_graph() -> BTreeMap<String, BTreeSet<String>> {
    let mut g: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for root in stage_roots() {
        crate_graph_in(&root, &mut g);
    }
    let mesh = modules_of(&crates().join("agview-mesh/src"));
    for (stage, krate) in WHOLE_CRATE_STAGES {
        let root = crates().join(krate).join("src");
        let own = modules_of(&root);
        let mut files = Vec::new();
        rust_files(&root, &mut files);
        let entry = g.entry(stage.to_string()).or_default();
        for f in files {
            for d in after(&code(&f), "crate::") {
                if mesh.contains(&d) && stage != "mesh" {
                    entry.insert("mesh".to_string());
                } else if !own.contains(&d) && !d.starts_with(char::is_uppercase) {
                    entry.insert(d);
                }
            }
        }
    }
    g
}

fn crate_graph_in(root: &Path, g: &mut BTreeMap<String, BTreeSet<String>>) {
    let mut files = Vec::new();
    rust_files(root, &mut files);
    for f in files {
        let rel = f.strip_prefix(root).unwrap();
        let top = rel
            .components()
            .next()
            .unwrap()
            .as_os_str()
            .to_string_lossy()
            .trim_end_matches(".rs")
            .to_string();
        if top == "lib" || top == "main" {
            continue;
        }
        let deps = after(&code(&f), "crate::");
        let entry = g.entry(top.clone()).or_default();
        entry.extend(deps.into_iter().filter(|d| *d != top));
    }
}

/// A cycle in `g`, if any (depth-first search).
fn cycle(g: &BTreeMap<String, BTreeSet<String>>) -> Option<Vec<String>> {
    fn visit(
        g: &BTreeMap<String, BTreeSet<String>>,
        n: &str,
        path: &mut Vec<String>,
        done: &mut BTreeSet<String>,
    ) -> Option<Vec<String>> {
        if let Some(i) = path.iter().position(|p| p == n) {
            let mut c = path[i..].to_vec();
            c.push(n.to_string());
            return Some(c);
        }
        if done.contains(n) {
            return None;
        }
        path.push(n.to_string());
        for d in g.get(n).into_iter().flatten() {
            if g.contains_key(d) {
                if let Some(c) = visit(g, d, path, done) {
                    return Some(c);
                }
            }
        }
        path.pop();
        done.insert(n.to_string());
        None
    }
    let mut done = BTreeSet::new();
    g.keys()
        .find_map(|n| visit(g, n, &mut Vec::new(), &mut done))
}

#[test]
fn the_stages_import_in_one_direction() {
    let g = crate_graph();
    assert!(g.contains_key("art") && g.contains_key("render"), "{g:?}");
    let c = cycle(&g);
    assert_eq!(
        c, None,
        "top-level modules import each other ({c:?}): {g:#?}"
    );
}

#[test]
fn each_stage_imports_only_what_lies_below_it() {
    // docs/architecture.md, "Which stage may import which".
    let below: &[(&str, &[&str])] = &[
        ("diag", &[]),
        ("lines", &[]),
        ("scene", &["diag", "season"]),
        ("season", &[]),
        ("rng", &[]),
        ("progress", &[]),
        ("parallel", &["progress"]),
        ("terrain", &[]),
        ("format", &["diag", "lines", "scene", "season"]),
        ("resolve", &["diag", "format", "lines", "rng", "season"]),
        ("layout", &["diag", "format", "scene", "rng"]),
        ("input", &["diag", "format", "layout", "resolve", "scene"]),
        ("art", &["diag", "format", "parallel", "scene"]),
        (
            "pipeline",
            &[
                "art", "diag", "format", "input", "layout", "resolve", "scene",
            ],
        ),
        (
            "document",
            &[
                "art", "diag", "format", "input", "layout", "parallel", "pipeline", "progress",
                "resolve", "rng", "scene", "season", "terrain",
            ],
        ),
        (
            "check",
            &[
                "diag", "document", "format", "input", "progress", "resolve", "season",
            ],
        ),
        (
            "edit",
            &["diag", "document", "format", "input", "lines", "scene"],
        ),
        ("mesh", &["art", "scene", "terrain"]),
        ("render", &["art", "diag", "mesh", "scene", "terrain"]),
        (
            "export",
            &[
                "art", "diag", "format", "mesh", "parallel", "scene", "terrain",
            ],
        ),
        (
            "app",
            &[
                "art", "diag", "document", "edit", "export", "input", "lines", "pipeline",
                "progress", "render", "resolve", "scene", "season", "terrain",
            ],
        ),
    ];
    let g = crate_graph();
    for (stage, deps) in &g {
        let allowed = below
            .iter()
            .find(|(s, _)| s == stage)
            .unwrap_or_else(|| {
                panic!("{stage}: a new stage; give it a place in docs/architecture.md and here")
            })
            .1;
        for d in deps {
            assert!(
                allowed.contains(&d.as_str()),
                "{stage} imports crate::{d}, which is not below it (docs/architecture.md)"
            );
        }
    }
}

#[test]
fn the_app_reaches_readers_and_layout_only_through_the_document_stage() {
    let g = crate_graph();
    for forbidden in ["format", "layout"] {
        assert!(
            !g["app"].contains(forbidden),
            "src/app imports crate::{forbidden}"
        );
    }
}

#[test]
fn the_layout_knows_no_command_line() {
    let mut files = Vec::new();
    rust_files(&crates().join("agview-layout/src"), &mut files);
    for f in files {
        assert!(
            !code(&f).contains("clap"),
            "{} uses clap: the CLI maps its own types onto the layout's",
            f.display()
        );
    }
}

#[test]
fn the_renderer_has_no_import_circle() {
    // The renderer's modules and the mesh crate's, which it names as its own: one graph.
    let dirs = [
        crates().join("agview-mesh/src"),
        crates().join("agview-render/src"),
    ];
    let mut files = Vec::new();
    for d in &dirs {
        rust_files(d, &mut files);
    }
    let dir_of = |f: &Path| dirs.iter().find(|d| f.starts_with(d)).unwrap().clone();
    let module = |f: &Path| -> String {
        let rel = f.strip_prefix(dir_of(f)).unwrap();
        let first = rel
            .components()
            .next()
            .unwrap()
            .as_os_str()
            .to_string_lossy()
            .to_string();
        first.trim_end_matches(".rs").to_string()
    };
    let names: BTreeSet<String> = files.iter().map(|f| module(f)).collect();
    let mut g: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for f in &files {
        let m = module(f);
        if m == "lib" {
            continue;
        }
        let c = code(f);
        // `super::x` from a file directly in src/ (and `crate::x` anywhere); files in a
        // sub-folder (`facades/`) reach their siblings through `super::super::`.
        let nested = f.parent() != Some(dir_of(f).as_path());
        let mut deps = after(&c, "crate::");
        if !nested {
            deps.extend(after(&c, "super::"));
        } else {
            deps.extend(after(&c, "super::super::"));
        }
        // A name of the crate root itself (a re-export) would hide an arrow up.
        for d in &deps {
            assert!(
                names.contains(d) || !d.starts_with(char::is_uppercase) || nested,
                "{}: imports `{d}` from the crate root's re-exports; name its file",
                f.display()
            );
        }
        g.entry(m.clone()).or_default().extend(
            deps.into_iter()
                .filter(|d| names.contains(d) && *d != m && d != "mod"),
        );
    }
    assert_eq!(cycle(&g), None, "the renderer imports in a circle: {g:#?}");
}

/// The scene, the diagnostics it carries and the season it names are the bottom layer
/// together: the scene imports nothing else of the crate.
#[test]
fn the_scene_imports_nothing_of_the_crate_but_its_diagnostics_and_season() {
    let c = code(&crates().join("agview-core/src/scene.rs"));
    let deps = after(&c, "crate::");
    assert!(
        deps.iter().all(|d| d == "diag" || d == "season"),
        "src/scene.rs imports {deps:?}"
    );
}

/// The workspace's crates depend only downwards, and the readers, the layout and the loading
/// know no GPU, window or command line: agview-core ← agview-format ← agview-layout ←
/// agview-load ← agview-mesh ← agview-render ← agview.
#[test]
fn the_crate_graph_is_the_architecture() {
    let deps = |krate: &str| -> BTreeSet<String> {
        let toml = std::fs::read_to_string(crates().join(krate).join("Cargo.toml")).unwrap();
        let mut out = BTreeSet::new();
        let mut in_deps = false;
        for line in toml.lines() {
            let line = line.trim();
            if line.starts_with('[') {
                in_deps = line == "[dependencies]";
                continue;
            }
            if in_deps && !line.starts_with('#') {
                if let Some((name, _)) = line.split_once('=') {
                    out.insert(name.trim().to_string());
                }
            }
        }
        out
    };
    let allowed: &[(&str, &[&str])] = &[
        ("agview-core", &[]),
        ("agview-format", &["agview-core"]),
        ("agview-layout", &["agview-core", "agview-format"]),
        (
            "agview-load",
            &["agview-core", "agview-format", "agview-layout"],
        ),
        ("agview-mesh", &["agview-core", "agview-load"]),
        (
            "agview-export",
            &["agview-core", "agview-format", "agview-load", "agview-mesh"],
        ),
    ];
    for (krate, below) in allowed {
        let d = deps(krate);
        for dep in d.iter().filter(|d| d.starts_with("agview")) {
            assert!(
                below.contains(&dep.as_str()),
                "{krate} depends on {dep}, which is not below it"
            );
        }
        for never in ["wgpu", "winit", "egui", "clap", "pollster", "notify"] {
            assert!(!d.contains(never), "{krate} depends on {never}");
        }
    }
    // The renderer draws with wgpu, and knows no window toolkit, UI or command line.
    let d = deps("agview-render");
    for dep in d.iter().filter(|d| d.starts_with("agview")) {
        assert!(
            ["agview-core", "agview-load", "agview-mesh"].contains(&dep.as_str()),
            "agview-render depends on {dep}, which is not below it"
        );
    }
    for never in ["winit", "egui", "clap", "notify"] {
        assert!(!d.contains(never), "agview-render depends on {never}");
    }
}

/// The glTF export sits beside the renderer, on the CPU meshes: it knows no GPU, and only
/// the root package (the command line, the report) uses it.
#[test]
fn only_the_app_depends_on_the_export() {
    for krate in [
        "agview-core",
        "agview-format",
        "agview-layout",
        "agview-load",
        "agview-mesh",
        "agview-render",
    ] {
        let toml = std::fs::read_to_string(crates().join(krate).join("Cargo.toml")).unwrap();
        assert!(
            !toml.contains("agview-export"),
            "{krate} depends on agview-export, which lies above it"
        );
    }
    let toml = std::fs::read_to_string(crates().join("agview-export/Cargo.toml")).unwrap();
    let deps = toml
        .split("[dependencies]")
        .nth(1)
        .unwrap_or("")
        .split("\n[")
        .next()
        .unwrap_or("");
    for never in ["agview-render", "wgpu", "winit", "egui", "clap"] {
        assert!(!deps.contains(never), "agview-export depends on {never}");
    }
    // Its code names the crates below it, never the renderer.
    let mut files = Vec::new();
    rust_files(&crates().join("agview-export/src"), &mut files);
    for f in files {
        let c = code(&f);
        assert!(
            !c.contains("agview_render") && !c.contains("wgpu"),
            "{} reaches the renderer",
            f.display()
        );
    }
}
