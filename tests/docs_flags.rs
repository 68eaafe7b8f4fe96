//! Every `--flag` the documentation names is one the `agview` binary accepts, so the docs
//! cannot drift from the argument definitions. `agview help CMD` (and `--help`) stays the
//! reference; this test only keeps the pages honest.
//!
//! **Which pages.** `README.md`, `CONTRIBUTING.md` and every `docs/*.md`.
//!
//! **What counts as a flag.** Two hyphens that start a token (at the start of the text, or
//! after whitespace, a backtick, `(`, `[`, `{`, `"`, `'`, `|` or `,`), then a lowercase
//! letter, then lowercase letters, digits and hyphens, ending before anything but a letter,
//! a digit or `_`: `--polygon-index` in `` `--polygon-index N` ``, both flags of
//! `[--json|--summary]`, `--camera` in `--camera=-150,-450,260,60,30`. A bare `--`, a table
//! rule `|---|` and a one-hyphen option are not flags.
//!
//! **Whose flag it is.** The Markdown is cut into units: each line of a fenced code block,
//! each inline code span (which may run over a line break), and the prose between code
//! spans. A unit that names another program (one of the words in [`OTHER_PROGRAMS`], or
//! `/usr/bin/time`) holds that program's flags and is not checked, except that in
//! `cargo run … -- ARGS` the ARGS after the first bare `--` are agview's and are checked.
//! So another program's flag is written with its program (`cargo test --locked`, never a
//! lone `--locked`), and a failure here names the page and line to fix.
//!
//! **What the binary accepts.** Every flag in the output of `agview --help` and of
//! `agview CMD --help` for each subcommand, walked down (`bench render`, `bench tile`), plus
//! clap's `--help` and `--version`. A flag no help text shows may be a hidden one (a test
//! hook or a development flag, such as `view --synthetic-tile`): it is accepted when, for
//! some command, `agview CMD FLAG --help` is not refused with clap's
//! `unexpected argument 'FLAG'` (a known flag prints the help, or complains of its missing
//! value, and never runs the command).
//!
//! **What `--version` says.** The version line the docs show, `agview 0.1.0 (commit
//! 295c91f0a1b2, x86_64-unknown-linux-gnu)`: the package version, the checkout's commit (or
//! `unknown` outside one) and the target the binary was built for.

use std::collections::{BTreeMap, BTreeSet};
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Words that make a unit another program's: its flags are not agview's.
const OTHER_PROGRAMS: &[&str] = &[
    "cargo",
    "rustup",
    "rustc",
    "apt-get",
    "dpkg",
    "git",
    "chromium",
    "chromium-browser",
    "google-chrome",
    "xvfb-run",
    "Xvfb",
    "npm",
    "node",
    "blender",
];

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The pages checked: the README, CONTRIBUTING.md and every `docs/*.md`.
fn pages() -> Vec<PathBuf> {
    let root = root();
    let mut docs: Vec<PathBuf> = std::fs::read_dir(root.join("docs"))
        .expect("docs/ is readable")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "md"))
        .collect();
    docs.sort();
    let mut out = vec![root.join("README.md"), root.join("CONTRIBUTING.md")];
    out.extend(docs);
    out
}

// ---------------------------------------------------------------- reading the pages

/// Whether `c` may stand right before the `--` of a flag.
fn opens_token(c: u8) -> bool {
    c.is_ascii_whitespace() || b"`([{\"'|,".contains(&c)
}

fn flag_byte(c: u8) -> bool {
    c.is_ascii_lowercase() || c.is_ascii_digit() || c == b'-'
}

/// The flags in `text`, each with the byte offset of its `--`.
fn flags_in(text: &str) -> Vec<(usize, String)> {
    let b = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while let Some(rel) = text[i..].find("--") {
        let at = i + rel;
        let start = at + 2;
        let mut end = start;
        while end < b.len() && flag_byte(b[end]) {
            end += 1;
        }
        let starts_token = at == 0 || opens_token(b[at - 1]);
        let named = start < b.len() && b[start].is_ascii_lowercase();
        let ends_token = end == b.len() || !(b[end].is_ascii_alphanumeric() || b[end] == b'_');
        if starts_token && named && ends_token {
            out.push((at, text[at..end].trim_end_matches('-').to_string()));
            i = end;
        } else {
            // `at` is an ASCII hyphen, so `at + 1` is a character boundary.
            i = at + 1;
        }
    }
    out
}

/// A piece of a page whose flags belong to one program: its first line (1-based) and text.
struct Unit {
    line: usize,
    text: String,
}

/// The units of a Markdown page: each line of a fenced code block, each inline code span,
/// and the prose between code spans (a paragraph's lines joined, so that a code span may run
/// over a line break).
fn units(markdown: &str) -> Vec<Unit> {
    fn flush(para: &mut Vec<(usize, &str)>, out: &mut Vec<Unit>) {
        let Some(&(first, _)) = para.first() else {
            return;
        };
        let text = para.iter().map(|(_, l)| *l).collect::<Vec<_>>().join("\n");
        let mut line = first;
        for piece in text.split('`') {
            if !piece.trim().is_empty() {
                out.push(Unit {
                    line,
                    text: piece.to_string(),
                });
            }
            line += piece.matches('\n').count();
        }
        para.clear();
    }
    let mut out = Vec::new();
    let mut para: Vec<(usize, &str)> = Vec::new();
    let mut fence: Option<&str> = None;
    for (n, line) in markdown.lines().enumerate() {
        let n = n + 1;
        let t = line.trim_start();
        if let Some(f) = fence {
            if t.starts_with(f) {
                fence = None;
            } else {
                out.push(Unit {
                    line: n,
                    text: line.to_string(),
                });
            }
            continue;
        }
        if t.starts_with("```") || t.starts_with("~~~") {
            flush(&mut para, &mut out);
            fence = Some(if t.starts_with("```") { "```" } else { "~~~" });
        } else if t.is_empty() {
            flush(&mut para, &mut out);
        } else {
            para.push((n, line));
        }
    }
    flush(&mut para, &mut out);
    out
}

/// The whitespace-separated tokens of `s`, each with its byte offset.
fn tokens(s: &str) -> Vec<(usize, &str)> {
    let mut out = Vec::new();
    let mut start = None;
    for (i, c) in s.char_indices() {
        match (c.is_whitespace(), start) {
            (true, Some(st)) => {
                out.push((st, &s[st..i]));
                start = None;
            }
            (false, None) => start = Some(i),
            _ => {}
        }
    }
    if let Some(st) = start {
        out.push((st, &s[st..]));
    }
    out
}

/// Where agview's flags are in a unit: the whole unit, nothing (`None`) when it names
/// another program, or what follows the first bare `--` of `cargo run … -- ARGS`. The
/// offset is where the part starts in the unit.
fn agview_part(unit: &str) -> Option<(usize, &str)> {
    let other = unit.contains("/usr/bin/time")
        || unit
            .split(|c: char| !(c.is_ascii_alphanumeric() || c == '-' || c == '_'))
            .any(|w| OTHER_PROGRAMS.contains(&w));
    if !other {
        return Some((0, unit));
    }
    let toks = tokens(unit);
    let run = toks
        .windows(2)
        .position(|w| w[0].1 == "cargo" && w[1].1 == "run")?;
    let (at, sep) = toks[run + 2..].iter().find(|(_, t)| *t == "--")?;
    let from = at + sep.len();
    Some((from, &unit[from..]))
}

/// The agview flags a Markdown page names, each with its line (1-based).
fn doc_flags(markdown: &str) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    for unit in units(markdown) {
        if let Some((offset, part)) = agview_part(&unit.text) {
            for (at, flag) in flags_in(part) {
                let line = unit.line + unit.text[..offset + at].matches('\n').count();
                out.push((line, flag));
            }
        }
    }
    out
}

// ---------------------------------------------------------------- asking the binary

/// Text without ANSI escape sequences (clap colours only a terminal, but a forced colour
/// setting in the environment must not break the test).
fn plain(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\u{1b}' {
            if chars.peek() == Some(&'[') {
                chars.next();
                for d in chars.by_ref() {
                    if d.is_ascii_alphabetic() {
                        break;
                    }
                }
            }
            continue;
        }
        out.push(c);
    }
    out
}

/// `agview ARGS`, killed if it runs for a minute: exit code (`None` when killed), stdout,
/// stderr.
fn agview(args: &[&str]) -> (Option<i32>, String, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_agview"))
        .args(args)
        .env("NO_COLOR", "1")
        .env_remove("CLICOLOR_FORCE")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the agview binary starts");
    let drain = |mut r: Box<dyn Read + Send>| {
        std::thread::spawn(move || {
            let mut v = Vec::new();
            let _ = r.read_to_end(&mut v);
            String::from_utf8_lossy(&v).into_owned()
        })
    };
    let out = drain(Box::new(child.stdout.take().expect("stdout")));
    let err = drain(Box::new(child.stderr.take().expect("stderr")));
    let deadline = Instant::now() + Duration::from_secs(60);
    let code = loop {
        if let Some(status) = child.try_wait().expect("waiting on agview") {
            break status.code();
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            break None;
        }
        std::thread::sleep(Duration::from_millis(10));
    };
    (
        code,
        plain(&out.join().expect("stdout read")),
        plain(&err.join().expect("stderr read")),
    )
}

/// The subcommands a help text lists under `Commands:`, clap's own `help` left out.
fn subcommands(help: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut inside = false;
    for line in help.lines() {
        if line.trim_end() == "Commands:" {
            inside = true;
        } else if inside {
            match line.split_whitespace().next() {
                Some(name) if line.starts_with(' ') => {
                    if name != "help" {
                        out.push(name.to_string());
                    }
                }
                _ => break,
            }
        }
    }
    out
}

/// Every flag the help texts show, and every command path (`[]`, `["render"]`,
/// `["bench", "tile"]`, …).
fn help_flags() -> (BTreeSet<String>, Vec<Vec<String>>) {
    let mut flags: BTreeSet<String> = ["--help", "--version"].map(String::from).into();
    let mut paths = Vec::new();
    let mut todo = vec![Vec::<String>::new()];
    while let Some(path) = todo.pop() {
        let mut args: Vec<&str> = path.iter().map(String::as_str).collect();
        args.push("--help");
        let (code, out, err) = agview(&args);
        assert_eq!(
            code,
            Some(0),
            "`agview {}` failed:\n{out}\n{err}",
            args.join(" ")
        );
        flags.extend(flags_in(&out).into_iter().map(|(_, f)| f));
        for sub in subcommands(&out) {
            let mut p = path.clone();
            p.push(sub);
            todo.push(p);
        }
        paths.push(path);
    }
    (flags, paths)
}

/// Whether some command accepts `flag` though no help text shows it (a hidden flag).
fn hidden_flag_exists(flag: &str, paths: &[Vec<String>]) -> bool {
    let refusal = format!("unexpected argument '{flag}'");
    paths.iter().any(|path| {
        let mut args: Vec<&str> = path.iter().map(String::as_str).collect();
        args.extend([flag, "--help"]);
        let (code, _, err) = agview(&args);
        matches!(code, Some(0) | Some(2)) && !err.contains(&refusal)
    })
}

// ---------------------------------------------------------------- the tests

#[test]
fn every_flag_the_docs_name_exists() {
    let (accepted, paths) = help_flags();
    let expected: [&[&str]; 4] = [&["render"], &["view"], &["report"], &["bench", "tile"]];
    for expected in expected {
        assert!(
            paths.iter().any(|p| p == expected),
            "`agview --help` no longer leads to `agview {}`: is the Commands: list parsed right? {paths:?}",
            expected.join(" ")
        );
    }
    assert!(
        accepted.contains("--polygon") && accepted.contains("--out"),
        "the help texts gave no --polygon or --out: {accepted:?}"
    );

    let root = root();
    let mut named: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for page in pages() {
        let text =
            std::fs::read_to_string(&page).unwrap_or_else(|e| panic!("{}: {e}", page.display()));
        let shown = page
            .strip_prefix(&root)
            .unwrap_or(&page)
            .display()
            .to_string();
        for (line, flag) in doc_flags(&text) {
            named
                .entry(flag)
                .or_default()
                .push(format!("{shown}:{line}"));
        }
    }
    assert!(
        named.contains_key("--out") && named.contains_key("--polygon"),
        "the pages seem to name no --out or --polygon: is the scanner broken? {:?}",
        named.keys().collect::<Vec<_>>()
    );

    let unknown: Vec<String> = named
        .iter()
        .filter(|(flag, _)| !accepted.contains(*flag) && !hidden_flag_exists(flag, &paths))
        .map(|(flag, places)| format!("{flag}  ({})", places.join(", ")))
        .collect();
    assert!(
        unknown.is_empty(),
        "the docs name flags that no `agview` command accepts (`agview help CMD` lists them; \
         another program's flag belongs in a line or code span that names the program, \
         e.g. `cargo test --locked`):\n  {}",
        unknown.join("\n  ")
    );
}

/// The commit git names for this checkout: `None` outside one, or when git does not answer.
fn checkout_commit() -> Option<String> {
    if !root().join(".git").exists() {
        return None;
    }
    let out = Command::new("git")
        .args(["rev-parse", "--short=12", "HEAD"])
        .current_dir(root())
        .output()
        .ok()?;
    out.status
        .success()
        .then(|| String::from_utf8_lossy(&out.stdout).trim().to_string())
}

#[test]
fn version_names_the_package_the_commit_and_the_target() {
    let (code, out, err) = agview(&["--version"]);
    assert_eq!(code, Some(0), "agview --version failed: {err}");
    let line = out.trim_end();
    let rest = line
        .strip_prefix(&format!("agview {} (commit ", env!("CARGO_PKG_VERSION")))
        .and_then(|r| r.strip_suffix(')'))
        .unwrap_or_else(|| panic!("not `agview VERSION (commit C, TARGET)`: {line:?}"));
    let (commit, target) = rest.split_once(", ").expect("commit, then target");

    match checkout_commit() {
        Some(head) => assert_eq!(commit, head, "the binary names another commit"),
        None => assert!(
            commit == "unknown"
                || (commit.len() >= 12 && commit.bytes().all(|b| b.is_ascii_hexdigit())),
            "not 12 hex digits or `unknown`: {commit:?}"
        ),
    }

    // The triple names this machine's architecture and system.
    let os = match std::env::consts::OS {
        "macos" => "apple-darwin",
        os => os,
    };
    assert!(
        target.starts_with(std::env::consts::ARCH) && target.contains(os),
        "{target:?} is not a {} {} triple",
        std::env::consts::ARCH,
        std::env::consts::OS
    );
}

#[test]
fn the_scanner_takes_agview_flags_and_leaves_other_programs_alone() {
    let md = "Run `agview render x --out a.png` or `cargo test --locked`.\n\
              \n\
              ```sh\n\
              cargo run --release -- render x --polygon p.geojson\n\
              RUSTC_BOOTSTRAP=1 cargo fuzz run -s none -O autogen -- -max_total_time=60\n\
              /usr/bin/time -v agview render x --verbose\n\
              ```\n\
              \n\
              | `--rect WxD` | a rectangle |\n\
              |---|---|\n\
              \n\
              `agview dump PATH [--json|--summary]`, a `cargo bench --bench\n\
              report` span, `--camera=-150,0`, an em--dash, `-- dsf` and --no_such.\n";
    let found = doc_flags(md);
    let flags: Vec<&str> = found.iter().map(|(_, f)| f.as_str()).collect();
    assert_eq!(
        flags,
        [
            "--out",
            "--polygon",
            "--rect",
            "--json",
            "--summary",
            "--camera"
        ]
    );
    let lines: Vec<usize> = found.iter().map(|(l, _)| *l).collect();
    assert_eq!(lines, [1, 4, 9, 12, 12, 13]);
}

#[test]
fn help_texts_are_read_as_clap_writes_them() {
    let help = "A previewer\n\nUsage: agview <COMMAND>\n\nCommands:\n  check   Validate files\n  \
                bench   Measure\n  help    Print this message\n\nOptions:\n  -h, --help     \
                Print help\n  -V, --version  Print version\n";
    assert_eq!(subcommands(help), ["check", "bench"]);
    let flags: Vec<String> = flags_in(help).into_iter().map(|(_, f)| f).collect();
    assert_eq!(flags, ["--help", "--version"]);
    assert_eq!(plain("\u{1b}[1m--out\u{1b}[0m <FILE>"), "--out <FILE>");
    assert_eq!(
        agview_part("cargo run --release -- view x --no-panel").map(|(_, p)| p.trim()),
        Some("view x --no-panel")
    );
    assert!(agview_part("cargo install --locked --path agview").is_none());
    assert!(Path::new(&root()).join("README.md").is_file());
}
