//! `agview report`: the review page of the sample package, written from another folder, its
//! counts against `layout --json`'s, its exit status on real cases, and the page opened in a
//! real headless browser (Chromium, which CI's `.ci/run` installs): it loads with no console
//! error, every image loads, the 3D view draws the town with SwiftShader's WebGL and its
//! buttons switch it between the old and the new version (or it says in one line that it
//! cannot, without WebGL).

use std::path::{Path, PathBuf};
use std::process::Command;

mod common;
use common::{agview, report_against, Tmp};

fn sample() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("sample_scenery")
}

/// Every `src="…"` of the page but its scripts'.
fn image_sources(page: &str) -> Vec<String> {
    page.split("src=\"")
        .skip(1)
        .filter_map(|s| s.split('"').next())
        .filter(|s| !s.ends_with(".js"))
        .map(str::to_string)
        .collect()
}

/// The number in `<td … data-ATTR="KEY">N</td>`.
fn cell(page: &str, attr: &str, key: &str) -> Option<usize> {
    let at = page.find(&format!("{attr}=\"{key}\">"))?;
    let rest = &page[at..];
    let n = &rest[rest.find('>')? + 1..rest.find("</td>")?];
    n.parse().ok()
}

/// The sample package's report, written from `tmp` into `tmp/review` at 320×180 with
/// `closeups` close-ups: the folder and its index.html.
fn sample_report(tmp: &Path, closeups: usize) -> (PathBuf, String) {
    let doc = sample().display().to_string();
    let n = closeups.to_string();
    let (code, _, err) = agview(
        tmp,
        &[
            "report",
            &doc,
            "--out",
            "review",
            "--size",
            "320x180",
            "--closeups",
            &n,
        ],
    );
    assert_eq!(code, 0, "{err}");
    let dir = tmp.join("review");
    let page = std::fs::read_to_string(dir.join("index.html")).unwrap();
    (dir, page)
}

#[test]
fn the_sample_packages_report_holds_its_counts_and_every_image() {
    let tmp = Tmp::new("sample");
    let doc = sample().display().to_string();
    let (dir, page) = sample_report(&tmp.0, 4);
    assert!(page.contains("<meta name=\"viewport\""));
    assert!(page.contains("@media (max-width:600px)") && page.contains("@media print"));
    // HTML and CSS, and the 3D view's classic scripts beside the page (no module, no fetch).
    for script in page.split("<script").skip(1) {
        assert!(script.starts_with(" defer src=\"3d/"), "{script:.80}");
        let src = script.split('"').nth(1).unwrap();
        assert!(dir.join(src).is_file(), "{src}");
    }
    assert!(dir.join("3d/scene-new.js").is_file() && dir.join("3d/three-LICENSE.txt").is_file());
    // The summary's counts are layout --json's.
    let (code, json, err) = agview(&tmp.0, &["layout", &doc, "--json"]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    let features = v["features"].as_array().unwrap();
    // One section per definition used; each autogen asset rendered alone, each block and
    // string swept.
    let mut assets = std::collections::BTreeMap::<&str, &str>::new();
    for f in features {
        if let Some(r) = f["resolved"].as_str() {
            assets.entry(r).or_insert(f["kind"].as_str().unwrap());
        }
    }
    let alone = assets
        .values()
        .filter(|k| ["agp", "agb", "ags"].contains(k))
        .count();
    let swept = assets
        .values()
        .filter(|k| ["agb", "ags"].contains(k))
        .count();
    assert!(alone >= 3 && swept >= 2, "{assets:?}");
    assert_eq!(page.matches("<div class=\"asset\"").count(), assets.len());
    let images = image_sources(&page);
    // Five overviews at noon, one at dusk, one at night (the sample has lights), four
    // close-ups, and the assets' renders and sheets.
    assert_eq!(images.len(), 11 + alone + swept, "{images:?}");
    for src in &images {
        assert!(
            !src.contains("://") && !src.starts_with('/'),
            "{src}: not self-contained"
        );
        let png = image::open(dir.join(src)).unwrap_or_else(|e| panic!("{src}: {e}"));
        let width = if src.ends_with("-sweep.png") {
            5 * 176 + 6 * 4
        } else if src.contains("feature") || src.contains("asset") {
            160
        } else {
            320
        };
        assert_eq!(png.width(), width, "{src}");
    }
    assert_eq!(cell(&page, "data-count", "features"), Some(features.len()));
    let mut kinds = std::collections::BTreeMap::<String, usize>::new();
    for f in features {
        *kinds
            .entry(f["kind"].as_str().unwrap().to_string())
            .or_default() += 1;
    }
    for (k, n) in &kinds {
        assert_eq!(cell(&page, "data-kind", k), Some(*n), "kind {k}");
    }
    let resolved = features.iter().filter(|f| !f["resolved"].is_null()).count();
    assert_eq!(cell(&page, "data-count", "resolved"), Some(resolved));
    let summary: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("summary.json")).unwrap()).unwrap();
    assert_eq!(summary["features"], features.len());
    // Written again over itself: an earlier report may be replaced.
    sample_report(&tmp.0, 0);
    assert!(!dir.join("img/feature-0.png").exists(), "old close-ups go");
}

/// Each asset's section shows it alone on its footprint, a sweep for a block, and the
/// asset's own warnings (not the document's).
#[test]
fn each_asset_has_its_section_with_its_warnings() {
    let tmp = Tmp::new("assets");
    let pkg = copy_sample(&tmp.0, "pkg");
    let plaza = pkg.join("autogen/plaza.agp");
    let text = std::fs::read_to_string(&plaza).unwrap();
    std::fs::write(&plaza, format!("{text}FOO_BAR 1\n")).unwrap();
    let (code, _, err) = agview(
        &tmp.0,
        &[
            "report",
            "pkg/polygons/town.txt",
            "--out",
            "review",
            "--size",
            "320x180",
            "--closeups",
            "0",
        ],
    );
    assert_eq!(code, 0, "{err}");
    let page = std::fs::read_to_string(tmp.0.join("review/index.html")).unwrap();
    let sections: Vec<&str> = page.split("<div class=\"asset\"").skip(1).collect();
    let of = |name: &str| {
        *sections
            .iter()
            .find(|s| s.contains(&format!("{name} <span")))
            .unwrap_or_else(|| panic!("no section for {name}: {page}"))
    };
    let plaza = of("agview/autogen/plaza.agp");
    assert!(
        plaza.contains("unknown directive `FOO_BAR` ignored"),
        "{plaza}"
    );
    assert!(plaza.contains("alone on the footprint of"), "{plaza}");
    assert!(!plaza.contains("-sweep.png"), "a point is not swept");
    let block = of("agview/autogen/city_block.agb");
    assert!(!block.contains("FOO_BAR"), "{block}");
    assert!(block.contains("used by 3 feature(s)"), "{block}");
    assert!(
        block.contains("-sweep.png") && block.contains("sweep over widths"),
        "{block}"
    );
    // Its images are there: alone (half the overview's width) and the sheet.
    for s in image_sources(block) {
        let png = image::open(tmp.0.join("review").join(&s)).unwrap();
        assert!(png.width() >= 160, "{s}");
    }
    let kiosk = of("agview/objects/kiosk.obj");
    assert!(
        kiosk.contains("used by 1 feature(s)") && !kiosk.contains("<img"),
        "{kiosk}"
    );
}

/// A package whose DSF names an object that is missing: a warning.
fn package_with_a_warning(dir: &Path) -> PathBuf {
    let dsf = dir.join("Pkg/Earth nav data/+50+000/+50+000.txt");
    std::fs::create_dir_all(dsf.parent().unwrap()).unwrap();
    std::fs::write(
        &dsf,
        "A\n800\nDSF2TEXT\nPROPERTY sim/west 0\nPROPERTY sim/south 50\nPROPERTY sim/east 1\n\
PROPERTY sim/north 51\nOBJECT_DEF objects/gone.obj\nOBJECT 0 0.5 50.5 0\n",
    )
    .unwrap();
    dsf
}

#[test]
fn the_exit_status_tells_ci_what_happened() {
    let tmp = Tmp::new("exit");
    let dsf = package_with_a_warning(&tmp.0).display().to_string();
    let small = ["--size", "160x90", "--closeups", "1"];
    let run = |out: &str, extra: &[&str]| {
        let mut args = vec!["report", dsf.as_str(), "--out", out];
        args.extend_from_slice(&small);
        args.extend_from_slice(extra);
        agview(&tmp.0, &args)
    };
    // Written, nothing gated: 0. The page shows the warning with the text of its line.
    let (code, _, err) = run("a", &[]);
    assert_eq!(code, 0, "{err}");
    let page = std::fs::read_to_string(tmp.0.join("a/index.html")).unwrap();
    assert!(page.contains("objects/gone.obj"), "{page}");
    // The line the warning names, as the file writes it.
    assert!(page.contains("<pre>OBJECT 0 0.5 50.5 0</pre>"), "{page}");
    assert!(page.contains("no X-Plane install was given"), "{page}");
    // Written, but the gate found a warning: 3. Errors only: none, 0.
    assert_eq!(run("b", &["--fail-on", "warning"]).0, 3);
    assert_eq!(run("c", &["--fail-on", "error"]).0, 0);
    // Nothing could be written: 1 (a missing document; a folder of the user's).
    let (code, _, err) = agview(&tmp.0, &["report", "nowhere.dsf", "--out", "d"]);
    assert_eq!(code, 1, "{err}");
    assert!(
        !tmp.0.join("d").exists(),
        "a report that was not written leaves no folder"
    );
    std::fs::create_dir_all(tmp.0.join("mine")).unwrap();
    std::fs::write(tmp.0.join("mine/notes.txt"), "keep me").unwrap();
    let (code, _, err) = run("mine", &[]);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("not an agview report"), "{err}");
    assert_eq!(
        std::fs::read_to_string(tmp.0.join("mine/notes.txt")).unwrap(),
        "keep me"
    );
    // A usage error: 2.
    assert_eq!(run("e", &["--fail-on", "sometimes"]).0, 2);
}

/// The first Chromium on the PATH.
fn chromium() -> PathBuf {
    for name in ["chromium", "chromium-browser", "google-chrome"] {
        if let Some(p) = std::env::var_os("PATH").and_then(|paths| {
            std::env::split_paths(&paths)
                .map(|d| d.join(name))
                .find(|p| p.is_file())
        }) {
            return p;
        }
    }
    panic!(
        "the report test needs Chromium, which was not found on the PATH; install it with \
         `apt-get install chromium` (CI's .ci/run does)"
    );
}

/// The attributes of the page's 3D view section, as `--dump-dom` prints them.
fn view3d_state(dom: &str) -> std::collections::BTreeMap<String, String> {
    let at = dom
        .find("<section id=\"view3d\"")
        .expect("the 3D view's section");
    let tag = &dom[at..at + dom[at..].find('>').unwrap()];
    tag.split(" data-")
        .skip(1)
        .filter_map(|kv| {
            let (k, v) = kv.split_once("=\"")?;
            Some((k.to_string(), v.split('"').next()?.to_string()))
        })
        .collect()
}

/// Chromium's console messages that are errors.
fn console_errors(log: &str) -> Vec<&str> {
    log.lines()
        .filter(|l| l.contains("CONSOLE") && (l.contains("ERROR") || l.contains("Uncaught")))
        .collect()
}

/// The sample town with a block more in `tmp/new` (a shops block south of the first
/// block, in the main cluster, so the overview frames what it did), reported against the
/// sample's own town into `tmp/review` at 320×180 with one close-up (and the block's): the
/// folder and its index.html. Its 3D view has two versions, the new one the old one and a
/// block of shops.
fn town_with_a_block_more_against_the_town(tmp: &Path) -> (PathBuf, String) {
    let new = copy_sample(tmp, "new");
    let town = new.join("polygons/town.txt");
    let text = std::fs::read_to_string(&town).unwrap();
    // 92 × 60 m, a size the shops spelling set covers (no warning).
    let block = "BEGIN_POLYGON 0 1543 2\nBEGIN_WINDING\n\
                 POLYGON_POINT 8.15030 47.89900\nPOLYGON_POINT 8.15153 47.89900\n\
                 POLYGON_POINT 8.15153 47.89954\nPOLYGON_POINT 8.15030 47.89954\n\
                 END_WINDING\nEND_POLYGON\n";
    std::fs::write(&town, format!("{text}\n{block}")).unwrap();
    let old = sample().join("polygons/town.txt").display().to_string();
    let (code, _, err) = report_against(tmp, "new/polygons/town.txt", &old, "320x180", 1);
    assert_eq!(code, 0, "{err}");
    let dir = tmp.join("review");
    let page = std::fs::read_to_string(dir.join("index.html")).unwrap();
    (dir, page)
}

/// A script for a copy of the page, to see the 3D view in headless Chromium: it keeps the
/// page's thread busy until the script sets `done`. `--dump-dom` and `--screenshot` act
/// when the page's virtual time runs out, and virtual time runs on, fast, while the thread
/// is idle (as while the glTF loader's images decode off it, or the old version's script
/// loads): busy for a few milliseconds in each 10 ms of virtual time, the page gets its
/// work done long before the 60 s budget ends (the test's page, within some ten of these
/// 10 ms: virtual time stands still while the page loads). A page that never gets done is
/// let go after 30 s of virtual time, about ten seconds. `when(f)` waits until `f()` holds
/// of the view's attributes; `pick(KEY)` clicks a version's button and waits until it is
/// shown (or the view failed).
const VIEW3D_HELPERS: &str = "<script>\
    let done=false,ticks=0;\
    (function busy(){if(done||++ticks>3000)return;\
    let x=0;for(let i=0;i<3e6;i++)x+=i;window.busyFor=x;setTimeout(busy,10);})();\
    const v3d=document.getElementById('view3d');\
    const when=f=>new Promise(r=>{if(f())return r();\
    const o=new MutationObserver(()=>{if(f()){o.disconnect();r();}});\
    o.observe(v3d,{attributes:true});});\
    const at=k=>()=>v3d.dataset.state!=='loading'&&\
    (v3d.dataset.state!=='drawn'||v3d.dataset.shown===k);\
    const pick=async k=>{v3d.querySelector('button[data-scene=\"'+k+'\"]').click();\
    await when(at(k));};\
    </script>";

/// The page in headless Chromium, from `file://`, with SwiftShader's WebGL, reported with
/// `--against` so that its 3D view has an old and a new version: a copy with a checking
/// script makes every image load, waits for the 3D view, clicks **old**, then **new**,
/// and writes what it found into the title, which `--dump-dom` prints; the 3D view writes
/// its state into its section's attributes; console messages go to stderr. Then again
/// without WebGL: the view says so in one line.
#[test]
#[cfg_attr(
    windows,
    ignore = "starts Chromium, a Linux program: runs in the Linux part of CI"
)]
fn the_report_opens_in_a_real_browser_with_every_image_loaded() {
    let tmp = Tmp::new("browser");
    let (dir, page) = town_with_a_block_more_against_the_town(&tmp.0);
    // Each version as the view showed it: `state:shown:objects:triangles`.
    let check = format!(
        "{VIEW3D_HELPERS}<script>(async()=>{{try{{\
        const imgs=[...document.images];imgs.forEach(i=>i.loading='eager');\
        await Promise.all(imgs.map(i=>i.complete?0:new Promise(r=>{{i.onload=r;i.onerror=r;}})));\
        const bad=imgs.filter(i=>!(i.naturalWidth>0)).map(i=>i.getAttribute('src'));\
        const views=[],d=v3d.dataset,seen=()=>views.push([d.state,d.shown,d.objects,d.triangles].join(':'));\
        await when(at('new'));seen();await pick('old');seen();await pick('new');seen();\
        document.title=(bad.length?'BAD '+bad.join(' '):'IMAGES OK '+imgs.length)+' VIEWS '+views.join(' ');\
        }}catch(e){{document.title='FAILED '+e;}}finally{{done=true;}}}})();</script></body>"
    );
    std::fs::write(dir.join("check.html"), page.replace("</body>", &check)).unwrap();
    let browse = |page: &str, flags: &[&str]| {
        let out = Command::new(chromium())
            .args([
                "--headless=new",
                "--no-sandbox",
                "--enable-logging=stderr",
                "--v=0",
                "--virtual-time-budget=60000",
                "--dump-dom",
            ])
            .args(flags)
            .arg(format!("file://{}", dir.join(page).display()))
            .output()
            .expect("chromium runs");
        (
            String::from_utf8_lossy(&out.stdout).into_owned(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    };
    let title = |dom: &str| {
        dom.split("<title>")
            .nth(1)
            .and_then(|t| t.split("</title>").next())
            .unwrap_or("")
            .to_string()
    };
    let webgl = ["--use-angle=swiftshader", "--enable-unsafe-swiftshader"];
    // The busy script makes the dump wait for the checks; should virtual time still run
    // out first, the title is the page's own: tried again, four times in all.
    let (mut dom, mut log) = browse("check.html", &webgl);
    for _ in 0..3 {
        if title(&dom).contains(" VIEWS ") {
            break;
        }
        (dom, log) = browse("check.html", &webgl);
    }
    let title = title(&dom);
    let (images, views) = title.split_once(" VIEWS ").unwrap_or((&title, ""));
    let n = image_sources(&page).len();
    assert_eq!(images, format!("IMAGES OK {n}"), "stderr:\n{log}");
    assert!(
        console_errors(&log).is_empty(),
        "{:?}",
        console_errors(&log)
    );
    // The toggle shows the old version, then the new one again: each drawn, the old one
    // with fewer buildings on the terrain and fewer triangles in its frame, and the new one
    // as it was at first.
    let views: Vec<Vec<&str>> = views.split(' ').map(|v| v.split(':').collect()).collect();
    let count = |v: &[&str], i: usize| v.get(i).and_then(|n| n.parse::<u64>().ok());
    assert_eq!(views.len(), 3, "{title}");
    for (v, key) in views.iter().zip(["new", "old", "new"]) {
        assert_eq!(v[..2], ["drawn", key], "{title}\n{log}");
    }
    assert_eq!(views[0], views[2], "{title}");
    for i in [2, 3] {
        assert!(
            count(&views[1], i) < count(&views[0], i) && count(&views[1], i) > Some(0),
            "{title}"
        );
    }
    // The 3D view drew its first frame from the overview camera: the terrain and the town
    // cover much of the canvas, and most of what stands on the terrain is in view (the
    // main cluster: the sample's one outlier, a string of houses and trees, is partly out).
    let view = view3d_state(&dom);
    let num = |k: &str| {
        view.get(k)
            .and_then(|v| v.parse::<f64>().ok())
            .unwrap_or(-1.0)
    };
    assert_eq!(
        view.get("state").map(String::as_str),
        Some("drawn"),
        "{view:?}\n{log}"
    );
    // The ground goes on to the horizon around the framed terrain, as in the still images:
    // from the overview's camera, 35° down, no sky is left in the frame.
    assert!(num("pixels") > 0.95, "{view:?}");
    assert!(num("objects") >= 10.0 && num("in-view") > 0.5, "{view:?}");
    // Without WebGL: the still images, and one line; no buttons for what is not there.
    let (dom, log) = browse("index.html", &["--disable-gpu", "--disable-webgl"]);
    assert_eq!(
        view3d_state(&dom).get("state").map(String::as_str),
        Some("no-webgl"),
        "{log}"
    );
    assert!(dom.contains("This browser has no WebGL"));
    let buttons: Vec<&str> = dom
        .split("<button ")
        .skip(1)
        .filter_map(|b| b.split('>').next())
        .collect();
    assert_eq!(buttons.len(), 3, "reset, new, old: {buttons:?}");
    assert!(buttons.iter().all(|b| b.contains(" hidden")), "{buttons:?}");
    assert!(
        console_errors(&log).is_empty(),
        "{:?}",
        console_errors(&log)
    );
    // Pictures to look at (AGVIEW_REPORT_SHOT=FILE.png names where they are kept): the
    // page, and the 3D view alone showing each version (FILE-3d-new.png, FILE-3d-old.png).
    if let Some(keep) = std::env::var_os("AGVIEW_REPORT_SHOT") {
        let keep = PathBuf::from(keep);
        let shot = |page: &str, to: &Path, size: &str| {
            let status = Command::new(chromium())
                .args([
                    "--headless=new",
                    "--no-sandbox",
                    "--hide-scrollbars",
                    &format!("--window-size={size}"),
                    "--virtual-time-budget=60000",
                ])
                .args(webgl)
                .arg(format!("--screenshot={}", to.display()))
                .arg(format!("file://{}", dir.join(page).display()))
                .status()
                .expect("chromium runs");
            assert!(status.success());
        };
        shot("index.html", &keep, "1200,2400");
        for key in ["new", "old"] {
            let alone = format!(
                "<style>body>:not(#view3d){{display:none}}</style>{VIEW3D_HELPERS}\
                 <script>(async()=>{{try{{await when(at('new'));await pick('{key}');}}\
                 finally{{done=true;}}}})();</script></body>"
            );
            let name = format!("shot-{key}.html");
            std::fs::write(dir.join(&name), page.replace("</body>", &alone)).unwrap();
            let stem = keep.file_stem().unwrap_or_default().to_string_lossy();
            shot(
                &name,
                &keep.with_file_name(format!("{stem}-3d-{key}.png")),
                "800,700",
            );
        }
    }
}

/// A copy of the sample package in `dir/name` (assets compare with their own art).
fn copy_sample(dir: &Path, name: &str) -> PathBuf {
    fn copy(from: &Path, to: &Path) {
        std::fs::create_dir_all(to).unwrap();
        for e in std::fs::read_dir(from).unwrap() {
            let e = e.unwrap();
            let target = to.join(e.file_name());
            if e.file_type().unwrap().is_dir() {
                copy(&e.path(), &target);
            } else {
                std::fs::copy(e.path(), target).unwrap();
            }
        }
    }
    let to = dir.join(name);
    copy(&sample(), &to);
    to
}

/// `changes.json` of a report.
fn changes(dir: &Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(dir.join("changes.json")).unwrap()).unwrap()
}

#[test]
fn against_an_asset_with_one_spelling_fewer_lists_that_change_and_shows_where() {
    let tmp = Tmp::new("against-asset");
    copy_sample(&tmp.0, "old");
    let new = copy_sample(&tmp.0, "new");
    let agb = new.join("autogen/city_block.agb");
    let text = std::fs::read_to_string(&agb).unwrap();
    // The spelling the 100 × 80 block takes.
    let without = text.replace("USE_SPELLING_S houses_98to110\n", "");
    assert_ne!(text, without);
    std::fs::write(&agb, without).unwrap();
    let (code, _, err) = agview(
        &tmp.0,
        &[
            "report",
            "new/autogen/city_block.agb",
            "--polygon",
            "new/polygons/block_100x80.geojson",
            "--against",
            "old/autogen/city_block.agb",
            "--out",
            "review",
            "--size",
            "320x180",
        ],
    );
    assert_eq!(code, 0, "{err}");
    let c = changes(&tmp.0.join("review"));
    assert_eq!(c["added"].as_array().unwrap().len(), 0, "{c}");
    assert_eq!(c["removed"].as_array().unwrap().len(), 0, "{c}");
    let changed = c["changed"].as_array().unwrap();
    assert_eq!(changed.len(), 1, "{c}");
    let what: Vec<&str> = changed[0]["changes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    assert!(
        what.contains(&"columns [0, 1, 2, 3, 4, 5] → [0, 1, 3, 4, 5]"),
        "{what:?}"
    );
    // Each view highlights the block, and only a part of the image.
    for v in c["views"].as_array().unwrap() {
        let n = v["changed_pixels"].as_u64().unwrap();
        assert!(n > 50 && n < 320 * 180 / 4, "{v}");
        let diff = image::open(tmp.0.join("review").join(v["diff"].as_str().unwrap())).unwrap();
        assert_eq!(diff.width(), 320);
    }
    let page = std::fs::read_to_string(tmp.0.join("review/index.html")).unwrap();
    assert!(page.contains("<section id=\"changes\">"), "{page}");
    // The summary says what the asset is, and the warning shows the rule's line.
    assert!(page.contains("city_block.agb (agb)"), "{page}");
    assert!(page.contains("<pre>SPELLING_SET"), "{page}");
    // A block reported on its own gets its sweep over sizes around its polygon.
    assert!(
        page.contains("<section id=\"assets\"><h2>Asset</h2>"),
        "{page}"
    );
    assert!(page.contains("img/asset-0-sweep.png"), "{page}");
    let sheet = image::open(tmp.0.join("review/img/asset-0-sweep.png")).unwrap();
    assert_eq!(sheet.width(), 5 * 176 + 6 * 4);
    // Its own warnings are in its section too (the asset was named by a relative path).
    let section = &page[page.find("<div class=\"asset\"").unwrap()..];
    assert!(
        section.contains("SPELLING_SET") && !section.contains("No warnings."),
        "{section}"
    );
}

/// One feature added at the start of a document is the one change listed: the features
/// after it keep their random choices (a forest's trees are seeded by what the forest is,
/// not by its index), so none of them shows as changed. The one added is a forest of the
/// same definition as the town's wood, with another density.
#[test]
fn against_a_document_with_a_feature_added_lists_only_that() {
    let tmp = Tmp::new("against-doc");
    let old = copy_sample(&tmp.0, "old");
    let new = copy_sample(&tmp.0, "new");
    let text = std::fs::read_to_string(old.join("polygons/town.txt")).unwrap();
    let first = text.find("\nOBJECT ").expect("the town places objects") + 1;
    let wood = "BEGIN_POLYGON 3 200 2\nBEGIN_WINDING\n\
                POLYGON_POINT 8.1500 47.8960\nPOLYGON_POINT 8.1515 47.8960\n\
                POLYGON_POINT 8.1515 47.8970\nPOLYGON_POINT 8.1500 47.8970\n\
                END_WINDING\nEND_POLYGON\n";
    let added = format!("{}{wood}{}", &text[..first], &text[first..]);
    std::fs::write(new.join("polygons/town.txt"), added).unwrap();
    let (code, _, err) = agview(
        &tmp.0,
        &[
            "report",
            "new/polygons/town.txt",
            "--against",
            "old/polygons/town.txt",
            "--out",
            "review",
            "--size",
            "160x90",
            "--closeups",
            "0",
        ],
    );
    assert_eq!(code, 0, "{err}");
    let c = changes(&tmp.0.join("review"));
    let added = c["added"].as_array().unwrap();
    assert_eq!(added.len(), 1, "{c}");
    assert_eq!(added[0]["asset"], "agview/forests/trees.for");
    assert_eq!(c["removed"].as_array().unwrap().len(), 0, "{c}");
    assert_eq!(c["changed"].as_array().unwrap().len(), 0, "{c}");
    assert_eq!(c["unchanged"], 10, "{c}");
}

#[path = "common/seasons.rs"]
mod seasons_package;

/// `--seasons` on a package whose spring and summer share their files: three pictures
/// (`spr, sum`, `fal`, `win`), and the table of what changes names the forest, the hut and
/// the garden plots with each season's file.
#[test]
fn seasons_shows_each_season_once_and_lists_what_changes() {
    let tmp = Tmp::new("seasons");
    let (pkg, dsf) = seasons_package::write_package(&tmp.0);
    let lib = pkg.join("library.txt");
    let text = std::fs::read_to_string(&lib)
        .unwrap()
        .replace(
            "EXPORT_SEASON spr lib/seasons/trees.for forests/spring.for\n",
            "EXPORT_SEASON spr,sum lib/seasons/trees.for forests/summer.for\n",
        )
        .replace(
            "EXPORT_SEASON sum\tlib/seasons/trees.for\t\tforests/summer.for\n",
            "",
        );
    std::fs::write(&lib, text).unwrap();
    let dsf = dsf.display().to_string();
    let (code, _, err) = agview(
        &tmp.0,
        &[
            "report",
            &dsf,
            "--out",
            "r",
            "--size",
            "160x90",
            "--closeups",
            "0",
            "--seasons",
        ],
    );
    assert_eq!(code, 0, "{err}");
    let out = tmp.0.join("r");
    for f in ["season-spr-sum", "season-fal", "season-win"] {
        assert!(out.join(format!("img/{f}.png")).is_file(), "{f}: {err}");
    }
    assert!(!out.join("img/season-spr.png").exists());
    let page = std::fs::read_to_string(out.join("index.html")).unwrap();
    assert!(page.contains("<figcaption>spr, sum: from the south-west, noon</figcaption>"));
    assert!(
        page.contains("Definitions that change with the season"),
        "{page}"
    );
    for (name, file) in [
        ("lib/seasons/trees.for", "<b>fal</b>: "),
        ("lib/seasons/hut.obj", "objects/hut snow.obj"),
        ("lib/seasons/plots.ags", "autogen/plots_bare.ags"),
    ] {
        // Resolved files are printed with the system's separator.
        assert!(
            page.contains(&format!("<code>{name}</code>")) && common::slashed(&page).contains(file),
            "{name}: {page}"
        );
    }
    // Without the flag, no season section.
    let (code, _, err) = agview(
        &tmp.0,
        &[
            "report",
            &dsf,
            "--out",
            "s",
            "--size",
            "160x90",
            "--closeups",
            "0",
        ],
    );
    assert_eq!(code, 0, "{err}");
    let page = std::fs::read_to_string(tmp.0.join("s/index.html")).unwrap();
    assert!(!page.contains("id=\"seasons\""));
}
