//! `agview report PATH --out DIR`: a review page of a document or an asset, for a person
//! or a CI job, with no X-Plane: `DIR/index.html` (HTML and CSS, viewable with no network,
//! opened from disk), its renders in `DIR/img/`, and the same counts in `DIR/summary.json`.
//! The one script is the interactive 3D view (`view3d.rs`, in `DIR/3d/`; `--no-3d` leaves
//! it out): without it, or without WebGL, the page is the same still images and text.
//!
//! The page holds a summary (features by kind, resolved against unresolved, warnings and
//! errors grouped by file with the text of the line each names), an overview (the content
//! framed from the NE, SE, SW and NW and from above at noon, once at dusk, once at night when
//! anything is lit) and its 3D view (`view3d.rs`), with `--seasons` the overview in each
//! season and what changes with it (`seasons.rs`), a section per asset (`assets.rs`), and
//! the feature table with a close-up of each of the first `--closeups N` features; with
//! `--against`, what changed, with a close-up of each change (`closeups.rs`).
//!
//! One load, one art set, one GPU device and one upload serve every render of the document
//! (each asset's section lays that asset out and uploads it on its own, on the same device);
//! PNGs are written on a thread of their own while the next image renders. Exit status:
//! 0 written (and any `--fail-on` gate passed), 1 nothing could be written, 2 usage, 3 written
//! but `--fail-on` found errors (or warnings).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;

use crate::diag::Diagnostic;
use crate::progress::Progress;
use crate::render::{Camera, FrameChoice, FrameParams, Framing, Sun};

mod args;
mod assets;
mod closeups;
mod page;
mod roads;
mod seasons;
mod sections;
mod versions;
mod view3d;

pub use args::{FailOn, Report, ReportArgs};
pub use page::{html, params, Shot};
use page::{MARKER, SIDES};
use sections::{count, features_section, footer, head_and_summary, overview_section};
use versions::{
    changes_section, difference, into_frame_of, load_version, union_framing, Comparison, ViewDiff,
};

/// Refuses a folder that holds something other than an earlier report (nothing the user
/// had is overwritten), and makes `DIR/img`.
fn prepare_out(out: &Path) -> Result<(), String> {
    if out.is_file() {
        return Err(format!("--out {}: is a file", out.display()));
    }
    if out.is_dir() {
        let index = out.join("index.html");
        let earlier = std::fs::read_to_string(&index).is_ok_and(|t| t.contains(MARKER));
        let empty = std::fs::read_dir(out).map_or(true, |mut d| d.next().is_none());
        if !earlier && !empty {
            return Err(format!(
                "--out {}: the folder holds files that are not an agview report; name a new or empty folder",
                out.display()
            ));
        }
        // An earlier report's images go, so none outlives the report that showed it.
        let _ = std::fs::remove_dir_all(out.join("img"));
        let _ = std::fs::remove_dir_all(out.join(view3d::FOLDER));
    }
    std::fs::create_dir_all(out.join("img"))
        .map_err(|e| format!("--out {}: cannot write: {e}", out.display()))
}

/// Writes the report. See the module documentation for the exit status. A folder made
/// for a report that could not be written is removed again.
pub fn run(a: &ReportArgs) -> anyhow::Result<ExitCode> {
    let inputs = match a.layout.inputs() {
        Ok(i) => i,
        Err(e) => {
            eprintln!("{}", Diagnostic::error_file(&a.path, e));
            return Ok(ExitCode::from(1));
        }
    };
    let a = &Report { args: a, inputs };
    let made = !a.out.exists();
    let code = write_report(a);
    if made && !matches!(code, Ok(Some(_))) {
        let _ = std::fs::remove_dir_all(&a.out);
    }
    Ok(match code? {
        Some(false) => ExitCode::SUCCESS,
        Some(true) => ExitCode::from(3),
        None => ExitCode::from(1),
    })
}

/// The report: `Some(whether --fail-on found problems)` when written, `None` when nothing
/// could be.
fn write_report(a: &Report) -> anyhow::Result<Option<bool>> {
    let started = std::time::Instant::now();
    if let Err(e) = prepare_out(&a.out) {
        eprintln!("agview: error: {e}");
        return Ok(None);
    }
    let progress = Arc::new(Progress::default());
    let opts = crate::document::LoadOptions {
        threads: 0,
        progress: Some(progress.clone()),
        ground: Some(a.render.terrain.ground()),
    };
    let loaded = crate::app::progress::with_bar("laying out", "features", &progress, || {
        crate::document::load_with(&a.path, &a.inputs, &opts)
    });
    let mut doc = match loaded {
        Ok(d) => d,
        Err(e) => {
            eprintln!("{e}");
            eprintln!("agview: error: no report written");
            return Ok(None);
        }
    };
    let art = crate::document::load_document_art_with(&mut doc, &a.render.headless_art());
    let screened_on = doc.terrain.take();
    let scene = &doc.loaded.scene;
    let mut messages = doc.loaded.messages();
    messages.extend(art.warnings.iter().cloned());
    let terrain = match screened_on {
        Some(t) => t,
        None => a
            .render
            .terrain
            .terrain_for(scene)
            .map_err(anyhow::Error::msg)?,
    };
    // Everything that needs the art's meshes is worked out before their textures go to
    // the GPU (and leave the CPU).
    let main = Framing::choose(scene, Some(&art), Some(&terrain), FrameChoice::Main);
    let close = Framing::features(scene, Some(&art), Some(&terrain), a.closeups);
    let lit = art
        .meshes
        .iter()
        .any(|m| !m.lights.is_empty() || m.lit_texture.is_some())
        || art.facades.iter().any(|f| f.lit_texture.is_some())
        || art.tile_lit.is_some()
        || art.pols.iter().any(|p| p.lit.is_some());
    // The 3D view's scene, exported while the art's textures are still on the CPU.
    let mut exports = Vec::new();
    if !a.no_3d {
        exports.push(("new", view3d::export(a, scene, &art, &terrain)));
    }
    let older = match &a.against {
        Some(old) => match load_version(a, old) {
            Ok(mut v) => {
                into_frame_of(&mut v.0.loaded.scene, scene);
                Some(v)
            }
            Err(e) => {
                eprintln!("{e}");
                eprintln!(
                    "agview: error: --against {}: no report written",
                    old.display()
                );
                return Ok(None);
            }
        },
        None => None,
    };
    let both = older
        .as_ref()
        .map(|(d, old_art)| union_framing((scene, &art), (&d.loaded.scene, old_art), &terrain));
    // `--against`: what changed, and the close-up each change gets (framed on its boxes in
    // both versions, measured while both art sets still hold their meshes).
    let mut change_plan = None;
    if let Some((d, old_art)) = &older {
        let old_scene = &d.loaded.scene;
        let changes = crate::app::compare::compare(old_scene, scene);
        let boxes = |s, art| crate::render::feature_boxes(s, Some(art), Some(&terrain));
        let plan = closeups::Plan::of(
            &changes,
            &boxes(old_scene, old_art),
            &boxes(scene, &art),
            &terrain,
            a.closeups,
        );
        change_plan = Some((changes, plan));
    }
    let headless = crate::render::Headless::new()?;
    let mut art = art;
    let mut gpu = headless.upload_releasing(scene, &mut art, &terrain)?;
    drop(art);
    let mut old_gpu = match older {
        Some((d, mut old_art)) => {
            if !a.no_3d {
                exports.push((
                    "old",
                    view3d::export(a, &d.loaded.scene, &old_art, &terrain),
                ));
            }
            let g = headless.upload_releasing(&d.loaded.scene, &mut old_art, &terrain)?;
            Some((d, g))
        }
        None => None,
    };

    let (w, h) = a.size;
    let mut views: Vec<(String, String, FrameParams)> = SIDES
        .iter()
        .map(|(k, what, deg)| {
            let p = params(a, &main, Camera::frame_from(&main, *deg), Sun::NOON);
            (format!("overview-{k}"), format!("{what}, noon"), p)
        })
        .collect();
    let top = Camera::frame_top(&main);
    views.push((
        "overview-top".into(),
        "from above, noon".into(),
        params(a, &main, top, Sun::NOON),
    ));
    views.push((
        "overview-dusk".into(),
        "from the south-west, dusk".into(),
        params(a, &main, Camera::frame_from(&main, 225.0), Sun::DUSK),
    ));
    if lit {
        views.push((
            "overview-night".into(),
            "from the south-west, night".into(),
            params(a, &main, Camera::frame_from(&main, 225.0), Sun::NIGHT),
        ));
    }
    let mut sections = assets::sections(scene, &messages);
    sections.extend(assets::own_section(a, scene, &messages));
    let asset_renders = assets::render_count(scene, &sections);
    let mut road_sections = roads::sections(scene);
    let road_renders = roads::render_count(&road_sections);
    // Assets opened again on their own resolve as the load did.
    let resolver = doc.resolver.clone();
    progress.reset();
    let compared = if old_gpu.is_some() { 4 } else { 0 };
    let change_renders = change_plan.as_ref().map_or(0, |(_, p)| p.shots.len());
    progress.set_total(
        views.len()
            + close.iter().flatten().count()
            + compared
            + change_renders
            + asset_renders
            + road_renders,
    );
    // PNGs are encoded and written on a thread of their own while the next image renders.
    let (tx, rx) = std::sync::mpsc::sync_channel::<(PathBuf, image::RgbaImage)>(4);
    let writer = std::thread::spawn(move || -> Result<(), String> {
        for (path, img) in rx {
            crate::render::write_png(&path, &img)
                .map_err(|e| format!("writing {}: {e}", path.display()))?;
        }
        Ok(())
    });
    // The 3D view's files are written on another thread while the images render.
    let view3d_files = (!exports.is_empty()).then(|| {
        let (out, max_mb) = (a.out.clone(), a.max_3d_mb);
        std::thread::spawn(move || view3d::write(&out, exports, max_mb))
    });
    let put = |file: &str, img: image::RgbaImage| -> anyhow::Result<()> {
        tx.send((a.out.join(file), img))
            .map_err(|_| anyhow::anyhow!("the image writer stopped"))
    };
    let rendered = crate::app::progress::with_bar("rendering", "images", &progress, || {
        let mut overview = Vec::new();
        for (name, caption, p) in &views {
            let file = format!("img/{name}.png");
            put(&file, headless.render(&mut gpu, p, w, h)?)?;
            overview.push(Shot {
                file,
                caption: caption.clone(),
            });
            progress.add(1);
        }
        let mut closeups = BTreeMap::new();
        for (i, f) in close.iter().enumerate() {
            let Some(f) = f else { continue };
            let p = params(a, f, Camera::frame_from(f, 225.0), Sun::NOON);
            let img = headless.render(&mut gpu, &p, (w / 2).max(64), (h / 2).max(48))?;
            let file = format!("img/feature-{i}.png");
            put(&file, img)?;
            closeups.insert(i, file);
            progress.add(1);
        }
        if scene.features.is_empty() {
            for s in &mut sections {
                assets::render_own(a, &headless, scene, s, &resolver, &progress, &put)?;
            }
        } else {
            assets::render(
                a,
                &headless,
                scene,
                &mut sections,
                &resolver,
                &progress,
                &put,
            )?;
        }
        roads::render(a, &headless, scene, &mut road_sections, &progress, &put)?;
        let mut diffs = Vec::new();
        if let (Some((_, old)), Some(f)) = (old_gpu.as_mut(), both.as_ref()) {
            for (k, what, deg) in SIDES {
                let p = params(a, f, Camera::frame_from(f, deg), Sun::NOON);
                let before = headless.render(old, &p, w, h)?;
                let after = headless.render(&mut gpu, &p, w, h)?;
                let (diff, changed) = difference(&before, &after);
                let name = |side: &str| format!("img/compare-{k}-{side}.png");
                put(&name("old"), before)?;
                put(&name("new"), after)?;
                put(&name("diff"), diff)?;
                diffs.push(ViewDiff {
                    view: what.to_string(),
                    old: name("old"),
                    new: name("new"),
                    diff: name("diff"),
                    changed_pixels: changed,
                });
                progress.add(1);
            }
        }
        let mut change_closeups = Vec::new();
        if let (Some((_, old)), Some((_, plan))) = (old_gpu.as_mut(), change_plan.as_ref()) {
            change_closeups = closeups::render(a, &headless, old, &mut gpu, plan, &progress, &put)?;
        }
        anyhow::Ok((overview, closeups, diffs, change_closeups))
    });
    // `--seasons`: the overview in each season, from the main overview's camera.
    let seasonal = match (&rendered, a.seasons) {
        (Ok(_), true) => {
            let spinner =
                crate::app::progress::spinner("--seasons: laying out and rendering each season");
            let s = seasons::render(a, &headless, &main, &put);
            spinner.finish_and_clear();
            Some(s)
        }
        _ => None,
    };
    drop(tx);
    let wrote = writer
        .join()
        .unwrap_or_else(|_| Err("the image writer failed".into()));
    let rendered = match wrote {
        Ok(()) => rendered,
        Err(e) => Err(anyhow::anyhow!(e)),
    };
    let (overview, closeups, diffs, change_closeups) = match rendered {
        Ok(r) => r,
        Err(e) => {
            eprintln!("agview: error: {e}; no report written");
            return Ok(None);
        }
    };
    let seasonal = match seasonal.transpose() {
        Ok(s) => s,
        Err(e) => {
            eprintln!("agview: error: {e}; no report written");
            return Ok(None);
        }
    };

    let comparison = change_plan.map(|(changes, plan)| Comparison {
        against: crate::diag::shown_path(&crate::resolve::absolute(
            a.against.as_deref().unwrap_or(Path::new("")),
        )),
        changes,
        views: diffs,
        closeups: change_closeups,
        closeups_left_out: plan.left_out,
        closeups_nothing_placed: plan.nothing_placed,
    });
    let counts = count(scene, &messages);
    let install = a.inputs.resolve.xplane.is_some();
    // The page, section by section in reading order.
    let mut parts = vec![head_and_summary(
        a, scene, &counts, &messages, install, &main,
    )];
    parts.extend(comparison.as_ref().map(changes_section));
    parts.push(overview_section(&overview));
    if let Some(w) = view3d_files.map(|t| t.join()) {
        match w {
            Ok(w) => parts.push(view3d::section(&w, both.as_ref().unwrap_or(&main))),
            Err(_) => eprintln!("agview: warning: the 3D view could not be written"),
        }
    }
    parts.extend(seasonal.as_ref().map(seasons::section));
    if !sections.is_empty() {
        parts.push(assets::html_section(scene, &sections));
    }
    parts.push(roads::html_section(&road_sections));
    parts.push(features_section(scene, &closeups));
    parts.push(footer(scene));
    let page = parts.concat();
    let written = std::fs::write(a.out.join("index.html"), page).and_then(|_| {
        let json = serde_json::to_string_pretty(&counts).unwrap_or_default();
        std::fs::write(a.out.join("summary.json"), json)?;
        match &comparison {
            Some(c) => std::fs::write(
                a.out.join("changes.json"),
                serde_json::to_string_pretty(c).unwrap_or_default(),
            ),
            None => {
                let _ = std::fs::remove_file(a.out.join("changes.json"));
                Ok(())
            }
        }
    });
    if let Err(e) = written {
        eprintln!("agview: error: writing {}: {e}", a.out.display());
        return Ok(None);
    }
    eprintln!(
        "wrote {} in {:.1} s: {} feature(s), {} render(s), {} error(s), {} warning(s)",
        a.out.join("index.html").display(),
        started.elapsed().as_secs_f64(),
        counts.features,
        overview.len()
            + closeups.len()
            + seasonal.as_ref().map_or(0, |s| s.groups.len())
            + sections
                .iter()
                .map(|s| usize::from(s.alone.is_some()) + usize::from(s.sheet.is_some()))
                .sum::<usize>()
            + road_sections
                .iter()
                .flat_map(|s| &s.samples)
                .filter(|x| x.shot.is_some())
                .count(),
        counts.errors,
        counts.warnings
    );
    let failed = match a.fail_on {
        Some(FailOn::Error) => counts.errors > 0,
        Some(FailOn::Warning) => counts.errors + counts.warnings > 0,
        None => false,
    };
    if failed {
        eprintln!("agview: --fail-on: the report found problems (exit 3)");
    }
    Ok(Some(failed))
}
