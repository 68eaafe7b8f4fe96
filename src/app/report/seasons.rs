//! `report --seasons`: the overview in each of X-Plane 12's seasons, and the definitions
//! that change with the season.
//!
//! The document is loaded once per season, as `--season` would load it. Seasons in which
//! every feature (and every art reference of a lone asset) resolves to the same files are
//! one picture, named together (`spr, sum`); each picture is the overview from the
//! south-west at noon, from the main report's camera, so they compare side by side.

use std::fmt::Write as _;

use crate::render::{Camera, Framing, Headless, Sun};
use crate::scene::Scene;
use crate::season::{mask_words, Season, SeasonMask};

use super::args::Report;
use super::page::{html, params, Shot};

/// The picture of seasons that look alike (its caption names them).
pub struct SeasonGroup {
    pub shot: Shot,
}

/// One definition whose file changes with the season.
pub struct Changing {
    /// Where the document names it (the feature's source), or `art` for a reference inside
    /// an asset.
    pub source: String,
    pub name: String,
    /// What it is in each group of seasons, in the year's order: its file, `(not found)`
    /// or `(not used)`.
    pub files: Vec<(SeasonMask, String)>,
}

/// What `--seasons` adds to the page.
pub struct SeasonsReport {
    pub groups: Vec<SeasonGroup>,
    pub changing: Vec<Changing>,
}

/// One name a scene resolved: where it is named (a feature's source, or `art`), the name,
/// and its file.
type Named = (String, String, Option<String>);

/// The loads of the seasons that resolve alike: their seasons, what they resolved, and one
/// of the seasons.
type Group = (SeasonMask, Vec<Named>, Season);

/// Every name the scene resolved and the file it resolved to: each feature's definition
/// (by its source), then the art its assets name.
fn resolved(scene: &Scene) -> Vec<Named> {
    let mut out: Vec<Named> = scene
        .features
        .iter()
        .map(|f| (f.source.clone(), f.asset.clone(), f.resolved.clone()))
        .collect();
    let art = scene
        .meshes
        .iter()
        .chain(&scene.facade_defs)
        .chain(&scene.forest)
        .chain(&scene.more_forests)
        .chain(&scene.pol_defs)
        .chain(&scene.lin_defs);
    let mut refs: Vec<Named> = art
        .map(|r| ("art".to_string(), r.name.to_string(), r.resolved.clone()))
        .collect();
    refs.sort();
    refs.dedup();
    out.extend(refs);
    out
}

/// Loads the document in every season, renders one overview per group of seasons that
/// resolve alike, and lists what changes. `put` writes an image into the report.
pub fn render(
    a: &Report,
    headless: &Headless,
    framing: &Framing,
    put: &dyn Fn(&str, image::RgbaImage) -> anyhow::Result<()>,
) -> anyhow::Result<SeasonsReport> {
    let opts = crate::document::LoadOptions {
        threads: 0,
        progress: None,
        ground: Some(a.render.terrain.ground()),
    };
    // Each season's load, grouped by what it resolved.
    let mut loads: Vec<Group> = Vec::new();
    for season in Season::ALL {
        let mut inputs = a.inputs.clone();
        inputs.resolve.season = season;
        let doc = crate::document::load_with(&a.path, &inputs, &opts)
            .map_err(|e| anyhow::anyhow!("--seasons: loading in {season}: {e}"))?;
        let files = resolved(&doc.loaded.scene);
        match loads.iter_mut().find(|(_, f, _)| *f == files) {
            Some(g) => g.0 |= season.bit(),
            None => loads.push((season.bit(), files, season)),
        }
    }
    let (w, h) = a.size;
    let camera = Camera::frame_from(framing, 225.0);
    let mut groups = Vec::new();
    for (mask, _, season) in &loads {
        let mut inputs = a.inputs.clone();
        inputs.resolve.season = *season;
        let mut doc = crate::document::load_with(&a.path, &inputs, &opts)
            .map_err(|e| anyhow::anyhow!("--seasons: {e}"))?;
        let mut art = crate::document::load_document_art_with(&mut doc, &a.render.headless_art());
        let scene = &doc.loaded.scene;
        let terrain = match doc.terrain.take() {
            Some(t) => t,
            None => a
                .render
                .terrain
                .terrain_for(scene)
                .map_err(anyhow::Error::msg)?,
        };
        let mut gpu = headless.upload_releasing(scene, &mut art, &terrain)?;
        let p = params(a, framing, camera, Sun::NOON);
        let file = format!("img/season-{}.png", mask_words(*mask, "-"));
        put(&file, headless.render(&mut gpu, &p, w, h)?)?;
        groups.push(SeasonGroup {
            shot: Shot {
                file,
                caption: format!("{}: from the south-west, noon", mask_words(*mask, ", ")),
            },
        });
    }
    Ok(SeasonsReport {
        changing: changing(&loads),
        groups,
    })
}

/// The names whose file differs between groups of seasons, each with what it is in each
/// group: its file, `(not found)`, or `(not used)` where that season's art does not name it.
fn changing(loads: &[Group]) -> Vec<Changing> {
    let mut keys: Vec<(&str, &str)> = Vec::new();
    for (_, files, _) in loads {
        for (source, name, _) in files {
            if !keys.contains(&(source.as_str(), name.as_str())) {
                keys.push((source, name));
            }
        }
    }
    keys.into_iter()
        .filter_map(|(source, name)| {
            let files: Vec<(SeasonMask, String)> = loads
                .iter()
                .map(|(m, f, _)| {
                    let file = match f.iter().find(|r| r.0 == source && r.1 == name) {
                        Some((_, _, Some(p))) => p.clone(),
                        Some((_, _, None)) => "(not found)".to_string(),
                        None => "(not used)".to_string(),
                    };
                    (*m, file)
                })
                .collect();
            files
                .iter()
                .any(|(_, f)| *f != files[0].1)
                .then(|| Changing {
                    source: source.to_string(),
                    name: name.to_string(),
                    files,
                })
        })
        .collect()
}

/// The page's "Seasons" section.
pub fn section(s: &SeasonsReport) -> String {
    let mut o = String::new();
    let _ = writeln!(
        o,
        "<section id=\"seasons\"><h2>Seasons</h2><p>The overview in each of X-Plane 12's \
         seasons (library paths resolved with <code>--season</code>); seasons in which every \
         definition resolves to the same files are shown once.</p><div class=\"grid\">"
    );
    for g in &s.groups {
        let _ = writeln!(
            o,
            "<figure><a href=\"{f}\"><img src=\"{f}\" alt=\"{c}\" loading=\"lazy\"></a>\
             <figcaption>{c}</figcaption></figure>",
            f = html(&g.shot.file),
            c = html(&g.shot.caption)
        );
    }
    let _ = writeln!(o, "</div>");
    if s.changing.is_empty() {
        let _ = writeln!(o, "<p>No definition changes with the season.</p>");
    } else {
        let _ = writeln!(
            o,
            "<h3>Definitions that change with the season</h3><table><tr><th>where</th>\
             <th>definition</th><th>files by season</th></tr>"
        );
        for c in &s.changing {
            let files: Vec<String> = c
                .files
                .iter()
                .map(|(m, f)| format!("<b>{}</b>: {}", mask_words(*m, ", "), html(f)))
                .collect();
            let _ = writeln!(
                o,
                "<tr><td class=\"cut\">{}</td><td class=\"cut\"><code>{}</code></td><td class=\"cut\">{}</td></tr>",
                html(&c.source),
                html(&c.name),
                files.join("<br>")
            );
        }
        let _ = writeln!(o, "</table>");
    }
    let _ = writeln!(o, "</section>");
    o
}
