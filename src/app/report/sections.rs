//! The page's sections about the whole document: the summary and its messages, the
//! overview, the feature table with its close-ups, and the footer.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use crate::app::features::{is_builtin, stats_text, NO_FILE};
use crate::diag::{Diagnostic, Severity};
use crate::render::Framing;
use crate::scene::Scene;

use super::args::Report;
use super::page::{css_class, html, Shot, CSS, MARKER};

/// Counts the summary gives, also written to summary.json.
#[derive(Debug, Default, serde::Serialize)]
pub(super) struct Counts {
    pub(super) features: usize,
    pub(super) by_kind: BTreeMap<&'static str, usize>,
    pub(super) resolved: usize,
    pub(super) unresolved: usize,
    pub(super) errors: usize,
    pub(super) warnings: usize,
    /// Road segments and metres in all, and by road type (absent without roads).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) roads: Option<RoadCounts>,
}

/// The roads of the summary: `Scene::stats`' totals and `Scene::road_stats`.
#[derive(Debug, Default, serde::Serialize)]
pub(super) struct RoadCounts {
    pub(super) segments: usize,
    pub(super) metres: usize,
    pub(super) by_type: Vec<crate::scene::RoadTypeStats>,
}

pub(super) fn count(scene: &Scene, messages: &[Diagnostic]) -> Counts {
    let mut c = Counts {
        features: scene.features.len(),
        ..Counts::default()
    };
    for f in &scene.features {
        *c.by_kind.entry(f.kind.name()).or_default() += 1;
        if f.resolved.is_some() || is_builtin(f) {
            c.resolved += 1;
        } else {
            c.unresolved += 1;
        }
    }
    if scene.stats.road_segments > 0 {
        c.roads = Some(RoadCounts {
            segments: scene.stats.road_segments,
            metres: scene.stats.road_length,
            by_type: scene.road_stats.clone(),
        });
    }
    for m in messages {
        match m.severity {
            Severity::Error => c.errors += 1,
            Severity::Warning => c.warnings += 1,
            Severity::Note => {}
        }
    }
    c
}

/// The text of line `n` (1-based) of `file`, read once per file, its lines counted as the
/// readers count them ([`crate::lines`]).
pub(super) fn line_text(
    cache: &mut BTreeMap<PathBuf, Vec<String>>,
    file: &Path,
    n: usize,
) -> Option<String> {
    let lines = cache.entry(file.to_path_buf()).or_insert_with(|| {
        // Binary files (a DSF) have no lines to show.
        std::fs::read(file)
            .ok()
            .filter(|b| !b.iter().take(4096).any(|&c| c == 0))
            .map(|b| {
                crate::lines::lines(&String::from_utf8_lossy(&b))
                    .map(|l| l.chars().take(200).collect())
                    .collect()
            })
            .unwrap_or_default()
    });
    lines.get(n.checked_sub(1)?).cloned()
}

/// The page's head and its summary: counts, notes, and the messages by file with the text
/// of the line each names.
pub(super) fn head_and_summary(
    a: &Report,
    scene: &Scene,
    c: &Counts,
    messages: &[Diagnostic],
    install: bool,
    main: &Framing,
) -> String {
    let title = a.path.file_name().map_or_else(
        || a.path.display().to_string(),
        |n| n.to_string_lossy().into_owned(),
    );
    let mut o = String::new();
    let _ = writeln!(
        o,
        "<!DOCTYPE html>\n{MARKER}\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\
         <title>agview report: {t}</title><style>{CSS}</style></head><body>\n\
         <h1>agview report: {t}</h1><p class=\"path\">{p}</p>",
        t = html(&title),
        p = html(&crate::diag::shown_path(&crate::resolve::absolute(&a.path))),
    );
    // Summary.
    let _ = write!(
        o,
        "<section id=\"summary\"><h2>Summary</h2><table class=\"counts\">"
    );
    let _ = write!(
        o,
        "<tr><th>features</th><td class=\"n\" data-count=\"features\">{}</td></tr>",
        c.features
    );
    // An asset laid out on its own places no document features: say what it is.
    if scene.features.is_empty() {
        let _ = write!(
            o,
            "<tr><th>asset</th><td class=\"n\">{} ({})</td></tr>",
            html(&title),
            html(&format!("{:?}", scene.kind).to_lowercase())
        );
    }
    for (k, n) in &c.by_kind {
        let _ = write!(
            o,
            "<tr><th>{k}</th><td class=\"n\" data-kind=\"{k}\">{n}</td></tr>"
        );
    }
    o.push_str(&road_rows(c));
    let _ = writeln!(
        o,
        "<tr><th>resolved</th><td class=\"n\" data-count=\"resolved\">{}</td></tr>\
         <tr><th>unresolved</th><td class=\"n\" data-count=\"unresolved\">{}</td></tr>\
         <tr><th>errors</th><td class=\"n err\" data-count=\"errors\">{}</td></tr>\
         <tr><th>warnings</th><td class=\"n warn\" data-count=\"warnings\">{}</td></tr></table>",
        c.resolved, c.unresolved, c.errors, c.warnings
    );
    let library_misses = scene
        .features
        .iter()
        .filter(|f| f.resolved.is_none() && !is_builtin(f) && !f.asset.starts_with(".."))
        .count();
    if !install && library_misses > 0 {
        let _ = writeln!(
            o,
            "<p class=\"note\">{library_misses} feature(s) name definitions that were not found, \
             and no X-Plane install was given (<code>--xplane DIR</code> or \
             <code>XPLANE_ROOT</code>): library paths of other packages stay unresolved, and \
             their art is drawn as placeholders.</p>"
        );
    }
    // Notes (what agview chose or left out) stand apart from the problems.
    for n in messages.iter().filter(|m| m.severity == Severity::Note) {
        let _ = writeln!(o, "<p class=\"note\">{}</p>", html(&n.to_string()));
    }
    if let Some(d) = main.describe() {
        let _ = writeln!(o, "<p>{}</p>", html(&d));
    }
    // Messages by file.
    let mut by_file: BTreeMap<String, Vec<&Diagnostic>> = BTreeMap::new();
    for m in messages.iter().filter(|m| m.severity != Severity::Note) {
        let file = m.shown_file().unwrap_or_else(|| NO_FILE.to_string());
        by_file.entry(file).or_default().push(m);
    }
    if !by_file.is_empty() {
        let _ = writeln!(o, "<h3>Warnings and errors by file</h3>");
    }
    let mut lines = BTreeMap::new();
    for (file, list) in &by_file {
        let errors = list.iter().filter(|m| m.is_error()).count();
        let _ = writeln!(
            o,
            "<details{}><summary><code>{}</code>: {} message(s){}</summary>",
            if by_file.len() <= 3 { " open" } else { "" },
            html(file),
            list.len(),
            if errors > 0 {
                format!(", <span class=\"err\">{errors} error(s)</span>")
            } else {
                String::new()
            }
        );
        for m in list {
            let _ = write!(
                o,
                "<div class=\"{}\"><code>{}</code></div>",
                css_class(m.severity),
                html(&m.to_string())
            );
            let text = m
                .line()
                .and_then(|n| line_text(&mut lines, &m.path, n as usize));
            if let Some(t) = text {
                let _ = write!(o, "<pre>{}</pre>", html(&t));
            }
        }
        let _ = writeln!(o, "</details>");
    }
    let _ = writeln!(o, "</section>");
    o
}

/// The summary's road rows: segments and metres in all, then per road type (empty without
/// roads).
pub(super) fn road_rows(c: &Counts) -> String {
    let mut o = String::new();
    let Some(r) = &c.roads else {
        return o;
    };
    let _ = write!(
        o,
        "<tr><th>road segments</th><td class=\"n\" data-count=\"road-segments\">{}</td></tr>\
         <tr><th>metres of road</th><td class=\"n\" data-count=\"road-metres\">{}</td></tr>",
        r.segments, r.metres
    );
    for t in &r.by_type {
        let _ = write!(
            o,
            "<tr><th>&nbsp;&nbsp;{} <span class=\"path\">({})</span></th>\
             <td class=\"n\" data-road-type=\"{}\">{} segment(s), {:.0} m</td></tr>",
            html(&t.label()),
            html(&t.net),
            html(&t.label()),
            t.segments,
            t.length
        );
    }
    o
}

/// The overview section: the scene from five sides, at dusk and at night.
pub(super) fn overview_section(overview: &[Shot]) -> String {
    let mut o = String::new();
    let _ = writeln!(
        o,
        "<section id=\"overview\"><h2>Overview</h2><div class=\"grid\">"
    );
    for s in overview {
        let _ = writeln!(
            o,
            "<figure><a href=\"{f}\"><img src=\"{f}\" alt=\"{c}\" loading=\"lazy\"></a>\
             <figcaption>{c}</figcaption></figure>",
            f = html(&s.file),
            c = html(&s.caption)
        );
    }
    let _ = writeln!(o, "</div></section>");
    o
}

/// The feature table with each feature's close-up (empty for an asset on its own).
pub(super) fn features_section(scene: &Scene, closeups: &BTreeMap<usize, String>) -> String {
    let mut o = String::new();
    if !scene.features.is_empty() {
        let _ = writeln!(
            o,
            "<section id=\"features\"><h2>Features</h2><p>Close-ups of the first {} feature(s) \
             (<code>--closeups N</code>).</p><table><tr><th>#</th><th>source</th><th>asset</th>\
             <th>resolved</th><th>kind</th><th>parameter</th><th>stats</th><th>close-up</th></tr>",
            closeups.len()
        );
        for (i, f) in scene.features.iter().enumerate() {
            let resolved = match (&f.resolved, &f.package) {
                (Some(r), Some(p)) => {
                    format!("{} <span class=\"path\">({})</span>", html(r), html(p))
                }
                (Some(r), None) => html(r),
                (None, _) if is_builtin(f) => "agview's own art".into(),
                (None, _) => "<span class=\"err\">not found: a placeholder</span>".into(),
            };
            let shot = closeups.get(&i).map_or(String::new(), |file| {
                format!(
                    "<a href=\"{f}\"><img class=\"thumb\" src=\"{f}\" alt=\"feature {i}\" loading=\"lazy\"></a>",
                    f = html(file)
                )
            });
            let stats = match &f.dropped {
                Some(why) => format!("<span class=\"err\">{}</span>", html(why)),
                None => html(&stats_text(f)),
            };
            let _ = writeln!(
                o,
                "<tr id=\"feature-{i}\"><td class=\"n\">{i}</td><td class=\"cut\"><code>{}</code></td><td class=\"cut\">{}</td>\
                 <td class=\"cut\">{resolved}</td><td>{}</td><td class=\"n\">{}</td><td>{stats}</td><td>{shot}</td></tr>",
                html(&f.source),
                html(&crate::diag::escaped(&f.asset)),
                f.kind.name(),
                f.param
            );
        }
        let _ = writeln!(o, "</table></section>");
    }
    o
}

/// The page's footer, which closes it.
pub(super) fn footer(scene: &Scene) -> String {
    let mut o = String::new();
    let _ = writeln!(
        o,
        "<footer><p class=\"path\">agview {} · {}</p></footer></body></html>",
        env!("CARGO_PKG_VERSION"),
        html(&scene.asset)
    );
    o
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scene::{FeatureInfo, FeatureKind, RoadLook, RoadSegment};

    #[test]
    fn the_summary_counts_roads_by_type() {
        let look = |t: Option<u32>, plain: Option<&str>| RoadLook {
            net: "lib/g10/roads.net".into(),
            road_type: t,
            plain: plain.map(str::to_string),
            ..RoadLook::default()
        };
        let seg = |look: usize, length: f32, feature: u32| RoadSegment {
            look,
            points: vec![[0.0, 0.0], [length, 0.0]],
            length,
            feature: Some(feature),
            ..RoadSegment::default()
        };
        let road = |n: usize| {
            FeatureInfo::new(
                format!("d.txt:{n}"),
                "lib/g10/roads.net".into(),
                FeatureKind::Road,
                3,
            )
        };
        let mut scene = Scene {
            road_looks: vec![look(Some(12), None), look(None, Some("service"))],
            roads: vec![seg(0, 100.0, 0), seg(0, 40.4, 1), seg(1, 12.0, 2)],
            features: vec![road(1), road(2), road(3)],
            ..Scene::default()
        };
        scene.update_stats();
        let c = count(&scene, &[]);
        assert_eq!(c.by_kind.get("road"), Some(&3));
        let rows = road_rows(&c);
        assert!(rows.contains("data-count=\"road-segments\">3<"), "{rows}");
        assert!(rows.contains("data-count=\"road-metres\">152<"), "{rows}");
        assert!(
            rows.contains("data-road-type=\"type 12\">2 segment(s), 140 m"),
            "{rows}"
        );
        assert!(rows.contains("data-road-type=\"plain profile service\">1 segment(s), 12 m"));
        let json = serde_json::to_value(&c).unwrap();
        assert_eq!(json["roads"]["segments"], 3);
        assert_eq!(json["roads"]["by_type"][1]["plain"], "service");
        // Without roads: no rows, nothing in summary.json.
        let c = count(&Scene::default(), &[]);
        assert_eq!(road_rows(&c), "");
        assert!(serde_json::to_value(&c).unwrap().get("roads").is_none());
    }
}
