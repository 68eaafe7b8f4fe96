//! The report's section for each asset a document uses (`agview report`): the asset laid out
//! alone on one of its real footprints, for blocks (`.agb`) and strings (`.ags`) a sweep
//! sheet over sizes around the footprints they were given, and the asset's own warnings.
//! Definitions that are not autogen (objects, facades, forests, draped polygons, lines,
//! strings) get a section too, with their uses and warnings; their close-ups are in the
//! feature table.
//!
//! Each asset is opened again on its own (not the document) and laid out by the document
//! stage's own rules (`document::lay_out_alone`), on the same GPU device as the rest of the
//! report.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use super::args::Report;
use super::page::{css_class, html, params, Shot};
use crate::app::features::is_builtin;
use crate::app::sweep::{render_sheet, scale_rings};
use crate::diag::{kind, Diagnostic};
use crate::document::OpenedAsset;
use crate::progress::Progress;
use crate::render::{Camera, Framing, Headless, Sun};
use crate::resolve::Resolver;
use crate::scene::{FeatureKind, Scene, SceneKind};

/// At most this many assets are rendered (each is opened, laid out, its art loaded and
/// uploaded on its own); the others are listed with their warnings.
pub const MAX_RENDERED: usize = 60;
/// A sweep sheet's widths and depths around the real footprints.
const SHEET_WIDTHS: usize = 5;
const SHEET_DEPTHS: usize = 4;
/// A sweep sheet's cell in pixels.
const SHEET_CELL: (u32, u32) = (176, 132);

/// One asset's section.
pub struct AssetSection {
    /// The file, as the scene shows resolved paths.
    pub resolved: String,
    /// The definition as the document first writes it.
    pub name: String,
    pub kind: FeatureKind,
    /// The features using it, in document order.
    pub features: Vec<usize>,
    /// The asset laid out alone on one of its footprints.
    pub alone: Option<Shot>,
    /// Blocks and strings: the sweep sheet.
    pub sheet: Option<Shot>,
    /// Its own warnings: those located in its file, and those laying it out alone gave.
    pub messages: Vec<Diagnostic>,
}

impl AssetSection {
    fn autogen(&self) -> bool {
        self.kind.is_autogen()
    }

    /// What it is, for its heading: its kind, or `airport` for an apt.dat's items.
    fn label(&self) -> &'static str {
        match self.kind {
            FeatureKind::Runway
            | FeatureKind::Helipad
            | FeatureKind::Pavement
            | FeatureKind::Marking => "airport",
            k => k.name(),
        }
    }

    fn swept(&self) -> bool {
        matches!(self.kind, FeatureKind::Agb | FeatureKind::Ags)
    }
}

/// The sections of the definitions `scene`'s features resolved to, in order of first use,
/// each with the messages located in its file.
pub fn sections(scene: &Scene, messages: &[Diagnostic]) -> Vec<AssetSection> {
    let mut out: Vec<AssetSection> = Vec::new();
    let mut at: BTreeMap<&str, usize> = BTreeMap::new();
    for (i, f) in scene.features.iter().enumerate() {
        let Some(r) = f.resolved.as_deref() else {
            continue;
        };
        let k = *at.entry(r).or_insert_with(|| {
            // An apt.dat (or WED project) holds every item of its airports: named as a file.
            let name = if is_builtin(f) {
                r.rsplit(['/', '\\']).next().unwrap_or(r).to_string()
            } else {
                f.asset.clone()
            };
            out.push(AssetSection {
                resolved: r.to_string(),
                name,
                kind: f.kind,
                features: Vec::new(),
                alone: None,
                sheet: None,
                messages: Vec::new(),
            });
            out.len() - 1
        });
        out[k].features.push(i);
    }
    for m in messages {
        let Some(file) = m.shown_file() else {
            continue;
        };
        if let Some(&k) = at.get(file.as_str()) {
            // A WED project's airport items resolve to the project itself, whose messages
            // are about everything in it: they stay in the summary.
            if scene.kind == SceneKind::Wed && out[k].label() == "airport" {
                continue;
            }
            out[k].messages.push(m.clone());
        }
    }
    out
}

/// How many renders `render` makes for `sections`: one per autogen asset, and a sheet's
/// cells for each block and string.
pub fn render_count(scene: &Scene, sections: &[AssetSection]) -> usize {
    if scene.features.is_empty() {
        // An asset report's own section: its sheet.
        return sections.len() * SHEET_WIDTHS * SHEET_DEPTHS;
    }
    rendered(scene, sections)
        .map(|(s, _)| {
            1 + if s.swept() {
                SHEET_WIDTHS * SHEET_DEPTHS
            } else {
                0
            }
        })
        .sum()
}

/// The autogen sections that get renders, each with the feature whose footprint it is
/// laid out on (the first that has one).
fn rendered<'a>(
    scene: &'a Scene,
    sections: &'a [AssetSection],
) -> impl Iterator<Item = (&'a AssetSection, usize)> {
    sections
        .iter()
        .filter(|s| s.autogen())
        .take(MAX_RENDERED)
        .filter_map(|s| {
            let i = s
                .features
                .iter()
                .copied()
                .find(|&i| scene.features[i].footprint.is_some())?;
            Some((s, i))
        })
}

/// Sizes around `lo..=hi`: `n` steps from three quarters of the smallest to five quarters
/// of the largest, whole meters, each once.
fn around(lo: f32, hi: f32, n: usize) -> Vec<f32> {
    let (a, b) = ((lo * 0.75).max(1.0), (hi * 1.25).max(2.0));
    let mut v: Vec<f32> = (0..n)
        .map(|k| {
            (a + (b - a) * k as f32 / (n - 1).max(1) as f32)
                .round()
                .max(1.0)
        })
        .collect();
    v.dedup();
    v
}

/// The footprint turned so its outer ring's first side runs along +x:
/// its width is then along that side and its depth across it, as the asset sees them.
fn aligned(rings: &[Vec<[f32; 2]>]) -> Vec<Vec<[f32; 2]>> {
    let (c, s) = match rings.first().map(Vec::as_slice) {
        Some([a, b, ..]) => {
            let (dx, dy) = (b[0] - a[0], b[1] - a[1]);
            let len = (dx * dx + dy * dy).sqrt();
            if len > 1e-6 {
                (dx / len, dy / len)
            } else {
                (1.0, 0.0)
            }
        }
        _ => (1.0, 0.0),
    };
    rings
        .iter()
        .map(|r| {
            r.iter()
                .map(|p| [p[0] * c + p[1] * s, -p[0] * s + p[1] * c])
                .collect()
        })
        .collect()
}

/// The bounding box of a footprint's outer ring: (width, depth) in meters.
fn extent(rings: &[Vec<[f32; 2]>]) -> Option<(f32, f32)> {
    let outer = rings.first().filter(|r| !r.is_empty())?;
    let (mut lo, mut hi) = ([f32::MAX; 2], [f32::MIN; 2]);
    for p in outer {
        for k in 0..2 {
            lo[k] = lo[k].min(p[k]);
            hi[k] = hi[k].max(p[k]);
        }
    }
    Some((hi[0] - lo[0], hi[1] - lo[1]))
}

/// Renders each autogen section's asset alone and, for blocks and strings, its sweep
/// sheet; `put` writes an image under the report folder. What fails for one asset (it
/// cannot be opened again, or laid out) is said in its section and the others go on.
pub fn render(
    a: &Report,
    headless: &Headless,
    scene: &Scene,
    sections: &mut [AssetSection],
    resolver: &Resolver,
    progress: &Progress,
    put: &dyn Fn(&str, image::RgbaImage) -> anyhow::Result<()>,
) -> anyhow::Result<()> {
    let (w, h) = ((a.size.0 / 2).max(64), (a.size.1 / 2).max(48));
    let plan: Vec<(usize, usize)> = rendered(scene, sections)
        .map(|(s, i)| {
            (
                sections
                    .iter()
                    .position(|x| std::ptr::eq(x, s))
                    .unwrap_or(0),
                i,
            )
        })
        .collect();
    for (k, i) in plan {
        let s = &sections[k];
        let cells = if s.swept() {
            SHEET_WIDTHS * SHEET_DEPTHS
        } else {
            0
        };
        let mut said = Vec::new();
        let made = render_one(
            a,
            headless,
            scene,
            s,
            k,
            i,
            resolver,
            &mut said,
            (w, h),
            progress,
            put,
        );
        let s = &mut sections[k];
        for m in said {
            if !s.messages.contains(&m) {
                s.messages.push(m);
            }
        }
        let (alone, sheet, done) = made?;
        (s.alone, s.sheet) = (alone, sheet);
        // Whatever was not rendered still counts as done.
        progress.add((1 + cells).saturating_sub(done));
    }
    Ok(())
}

/// One asset's renders: alone on feature `i`'s footprint, and its sweep sheet for a block
/// or a string; with how many renders it counted on `progress`. Messages go to `said`.
#[allow(clippy::too_many_arguments)]
fn render_one(
    a: &Report,
    headless: &Headless,
    scene: &Scene,
    s: &AssetSection,
    k: usize,
    i: usize,
    resolver: &Resolver,
    said: &mut Vec<Diagnostic>,
    (w, h): (u32, u32),
    progress: &Progress,
    put: &dyn Fn(&str, image::RgbaImage) -> anyhow::Result<()>,
) -> anyhow::Result<(Option<Shot>, Option<Shot>, usize)> {
    let f = &scene.features[i];
    let opened = match OpenedAsset::open(&crate::diag::text_path(&s.resolved), resolver) {
        Ok(o) => o,
        Err(e) => {
            said.push(e);
            return Ok((None, None, 0));
        }
    };
    said.extend(opened.diagnostics.iter().cloned());
    let Some(rings) = f.footprint.as_ref().map(|fp| aligned(&fp.rings)) else {
        return Ok((None, None, 0));
    };
    let lay_out = |on: Option<Vec<Vec<[f32; 2]>>>| -> Result<Scene, crate::diag::Diagnostic> {
        crate::document::lay_out_alone(&opened, f, &a.inputs, on).unwrap_or_else(|| {
            Err(crate::diag::Diagnostic::error_file(
                &crate::diag::text_path(&s.resolved),
                "no footprint to lay out on",
            ))
        })
    };
    // Alone on the footprint as it lies; the sweep scales it turned to its first side. A
    // render that fails is said in the section (a writer that stopped fails the report when
    // it is joined).
    let alone = match lay_out(None) {
        Ok(scene) => {
            let shot = (|| -> anyhow::Result<Shot> {
                let art = crate::pipeline::load_art_with(&scene, &a.render.headless_art());
                said.extend(art.warnings.iter().cloned());
                let terrain = a
                    .render
                    .terrain
                    .terrain_for(&scene)
                    .map_err(anyhow::Error::msg)?;
                let framing = Framing::new(&scene, Some(&art), Some(&terrain));
                let p = params(a, &framing, Camera::frame_from(&framing, 225.0), Sun::NOON);
                let mut gpu = headless.upload(&scene, &art, &terrain)?;
                let file = format!("img/asset-{k}.png");
                put(&file, headless.render(&mut gpu, &p, w, h)?)?;
                let size =
                    extent(&rings).map_or(String::new(), |(w, d)| format!(" ({w:.0} × {d:.0} m)"));
                Ok(Shot {
                    file,
                    caption: format!("alone on the footprint of {}{size}", f.source),
                })
            })();
            shot.map_err(|e| {
                said.push(not_rendered(
                    &s.resolved,
                    format!("not rendered alone: {e}"),
                ))
            })
            .ok()
        }
        Err(e) => {
            said.push(e);
            None
        }
    };
    progress.add(1);
    if !s.swept() {
        return Ok((alone, None, 1));
    }
    // Sizes around every footprint the asset was given; the first one scaled to each.
    let sizes: Vec<(f32, f32)> = s
        .features
        .iter()
        .filter_map(|&j| extent(&aligned(&scene.features[j].footprint.as_ref()?.rings)))
        .collect();
    if sizes.is_empty() {
        return Ok((alone, None, 1));
    }
    match sweep_sheet(
        a, headless, k, &sizes, &rings, &lay_out, said, progress, put,
    ) {
        Ok((sheet, cells)) => Ok((alone, Some(sheet), 1 + cells)),
        Err(e) => {
            said.push(not_rendered(&s.resolved, format!("no sweep sheet: {e}")));
            Ok((alone, None, 1))
        }
    }
}

/// Lays an asset out on its footprint, or on the rings given.
type LayOut<'a> = &'a dyn Fn(Option<Vec<Vec<[f32; 2]>>>) -> Result<Scene, crate::diag::Diagnostic>;

/// A sweep sheet `img/asset-{k}-sweep.png` over sizes around `sizes` (width, depth), with
/// `rings` (turned to their first side) scaled to each and laid out by `lay_out`; with how
/// many cells it rendered.
#[allow(clippy::too_many_arguments)]
fn sweep_sheet(
    a: &Report,
    headless: &Headless,
    k: usize,
    sizes: &[(f32, f32)],
    rings: &[Vec<[f32; 2]>],
    lay_out: LayOut,
    said: &mut Vec<Diagnostic>,
    progress: &Progress,
    put: &dyn Fn(&str, image::RgbaImage) -> anyhow::Result<()>,
) -> anyhow::Result<(Shot, usize)> {
    let lo = sizes
        .iter()
        .fold((f32::MAX, f32::MAX), |m, s| (m.0.min(s.0), m.1.min(s.1)));
    let hi = sizes
        .iter()
        .fold((0.0f32, 0.0f32), |m, s| (m.0.max(s.0), m.1.max(s.1)));
    let widths = around(lo.0, hi.0, SHEET_WIDTHS);
    let depths = around(lo.1, hi.1, SHEET_DEPTHS);
    let (sheet, made) = render_sheet(
        headless,
        (&widths, &depths),
        SHEET_CELL,
        &a.render,
        |w, d| lay_out(Some(scale_rings(rings, w, d))),
        |m| said.push(m),
        || progress.add(1),
    )?;
    let file = format!("img/asset-{k}-sweep.png");
    put(&file, sheet)?;
    let span = if sizes.len() == 1 {
        format!("its footprint, {:.0} × {:.0} m", lo.0, lo.1)
    } else {
        format!(
            "its {} footprints, {:.0} × {:.0} to {:.0} × {:.0} m",
            sizes.len(),
            lo.0,
            lo.1,
            hi.0,
            hi.1
        )
    };
    let sheet = Shot {
        file,
        caption: format!(
            "sweep over widths {} and depths {} m around {span}, the first footprint scaled \
             to each; {} without a fitting spelling (red border), {} not laid out (crossed)",
            list(&widths),
            list(&depths),
            made.no_fit,
            made.failed
        ),
    };
    Ok((sheet, widths.len() * depths.len()))
}

/// The report of one block or string (not a document): its own section, with its sweep
/// sheet around the polygon it was given and the messages located in it. `None` for a
/// document, a point or an asset laid out on no polygon.
pub fn own_section(a: &Report, scene: &Scene, messages: &[Diagnostic]) -> Option<AssetSection> {
    let kind = match scene.kind {
        SceneKind::Agb => FeatureKind::Agb,
        SceneKind::Ags => FeatureKind::Ags,
        _ => return None,
    };
    if !scene.features.is_empty() || scene.polygon.is_empty() {
        return None;
    }
    let resolved = crate::diag::shown_path(&crate::resolve::absolute(&a.path));
    // An asset is loaded from its path as given: its messages name it so.
    let mine = |d: &Diagnostic| {
        !d.path.as_os_str().is_empty()
            && crate::resolve::absolute(&d.path) == crate::resolve::absolute(&a.path)
    };
    let messages = messages.iter().filter(|d| mine(d)).cloned().collect();
    Some(AssetSection {
        name: a
            .path
            .file_name()
            .map_or_else(|| resolved.clone(), |n| n.to_string_lossy().into_owned()),
        resolved,
        kind,
        features: Vec::new(),
        alone: None,
        sheet: None,
        messages,
    })
}

/// The sweep sheet of an asset report's own section (`own_section`): the asset opened and
/// laid out as `agview sweep` does, on the polygon it was given scaled to each size.
pub fn render_own(
    a: &Report,
    headless: &Headless,
    scene: &Scene,
    section: &mut AssetSection,
    resolver: &Resolver,
    progress: &Progress,
    put: &dyn Fn(&str, image::RgbaImage) -> anyhow::Result<()>,
) -> anyhow::Result<()> {
    let cells = SHEET_WIDTHS * SHEET_DEPTHS;
    let mut said = Vec::new();
    let opened = OpenedAsset::open(&a.path, resolver);
    let mut diags = Vec::new();
    let base = crate::input::build(&a.inputs, &a.path, &mut diags);
    let (Ok(opened), Ok(base)) = (opened, base) else {
        // Said in the summary already: the asset was laid out from the same files.
        progress.add(cells);
        return Ok(());
    };
    // The polygon given, or (a string laid out on none) the outline it was laid out on.
    let rings = aligned(base.polygon.as_deref().unwrap_or(&scene.polygon));
    said.extend(opened.diagnostics.iter().cloned());
    let Some(size) = extent(&rings) else {
        progress.add(cells);
        return Ok(());
    };
    let lay_out = |on: Option<Vec<Vec<[f32; 2]>>>| {
        let mut input = base.clone();
        input.polygon = on;
        opened.layout(input)
    };
    let (sheet, done) = sweep_sheet(
        a,
        headless,
        0,
        &[size],
        &rings,
        &lay_out,
        &mut said,
        progress,
        put,
    )?;
    progress.add(cells.saturating_sub(done));
    section.sheet = Some(sheet);
    for m in said {
        if !section.messages.contains(&m) {
            section.messages.push(m);
        }
    }
    Ok(())
}

/// A warning that an asset's own render could not be made.
fn not_rendered(resolved: &str, message: String) -> Diagnostic {
    Diagnostic::warning_file(&crate::diag::text_path(resolved), message).with_kind(kind::RENDER)
}

fn list(v: &[f32]) -> String {
    v.iter()
        .map(|x| format!("{x:.0}"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The "Assets" section of the page.
pub fn html_section(scene: &Scene, sections: &[AssetSection]) -> String {
    let mut o = String::new();
    if sections.is_empty() {
        return o;
    }
    if scene.features.is_empty() {
        let _ = writeln!(
            o,
            "<section id=\"assets\"><h2>Asset</h2><p>The asset over sizes around the polygon \
             it was given (the overview shows it on that polygon).</p>"
        );
    } else {
        let _ = writeln!(
            o,
            "<section id=\"assets\"><h2>Assets</h2><p>{} definition(s) the document uses. \
             Each autogen asset is laid out alone on one of its real footprints (the first \
             {MAX_RENDERED} rendered); blocks and strings get a sweep over sizes around their \
             footprints.</p>",
            sections.len()
        );
    }
    for (k, s) in sections.iter().enumerate() {
        let _ = writeln!(
            o,
            "<div class=\"asset\" id=\"asset-{k}\"><h3>{} <span class=\"path\">({})</span></h3>\
             <p class=\"path\">{}</p>",
            html(&crate::diag::escaped(&s.name)),
            s.label(),
            html(&s.resolved)
        );
        let uses: Vec<String> = s
            .features
            .iter()
            .take(8)
            .map(|&i| {
                format!(
                    "<a href=\"#feature-{i}\"><code>{}</code></a>",
                    html(&scene.features[i].source)
                )
            })
            .collect();
        let more = s.features.len().saturating_sub(uses.len());
        let _ = (!uses.is_empty()).then(|| {
            writeln!(
                o,
                "<p>used by {} feature(s): {}{}</p>",
                s.features.len(),
                uses.join(", "),
                if more > 0 {
                    format!(" and {more} more")
                } else {
                    String::new()
                }
            )
        });
        let shots: Vec<&Shot> = s.alone.iter().chain(&s.sheet).collect();
        if !shots.is_empty() {
            let _ = writeln!(o, "<div class=\"grid\">");
            for shot in shots {
                // A sheet takes two columns where there are two.
                let wide = if shot.file.ends_with("-sweep.png") {
                    " class=\"wide\""
                } else {
                    ""
                };
                let _ = writeln!(
                    o,
                    "<figure{wide}><a href=\"{f}\"><img src=\"{f}\" alt=\"{c}\" loading=\"lazy\"></a>\
                     <figcaption>{c}</figcaption></figure>",
                    f = html(&shot.file),
                    c = html(&shot.caption)
                );
            }
            let _ = writeln!(o, "</div>");
        } else if s.autogen() {
            let _ = writeln!(
                o,
                "<p>Not rendered alone (see its features' close-ups).</p>"
            );
        }
        if s.messages.is_empty() {
            let _ = writeln!(o, "<p>No warnings.</p>");
        } else {
            let _ = writeln!(
                o,
                "<details open><summary>{} message(s)</summary>",
                s.messages.len()
            );
            for m in &s.messages {
                let _ = writeln!(
                    o,
                    "<div class=\"{}\"><code>{}</code></div>",
                    css_class(m.severity),
                    html(&m.to_string())
                );
            }
            let _ = writeln!(o, "</details>");
        }
        let _ = writeln!(o, "</div>");
    }
    let _ = writeln!(o, "</section>");
    o
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_around_the_footprints() {
        assert_eq!(
            around(100.0, 100.0, 5),
            vec![75.0, 88.0, 100.0, 113.0, 125.0]
        );
        assert_eq!(around(40.0, 80.0, 4), vec![30.0, 53.0, 77.0, 100.0]);
        // Tiny footprints still give sizes of at least a meter, each once.
        assert_eq!(around(0.5, 0.5, 5), vec![1.0, 2.0]);
        assert_eq!(
            extent(&[vec![[0.0, 0.0], [30.0, -5.0], [10.0, 20.0]]]),
            Some((30.0, 25.0))
        );
        assert_eq!(extent(&[]), None);
        // A block turned 30°: 100 m along its front, 80 m deep.
        let (c, s) = (30f32.to_radians().cos(), 30f32.to_radians().sin());
        let turn = |x: f32, y: f32| [x * c - y * s, x * s + y * c];
        let block = vec![vec![
            turn(0.0, 0.0),
            turn(100.0, 0.0),
            turn(100.0, 80.0),
            turn(0.0, 80.0),
        ]];
        let (w, d) = extent(&aligned(&block)).unwrap();
        assert!(
            (w - 100.0).abs() < 1e-3 && (d - 80.0).abs() < 1e-3,
            "{w} x {d}"
        );
    }
}
