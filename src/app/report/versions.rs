//! `--against`: the earlier version of the document loaded as the new one was, the same
//! views of both, their pixel differences, and the page's changes section.

use std::fmt::Write as _;
use std::path::Path;

use crate::render::{FrameChoice, Framing};
use crate::scene::Scene;

use super::args::Report;
use super::closeups::{Change, ChangeCloseup};
use super::page::html;

/// One view of both versions: its images and how many pixels differ.
#[derive(Debug, serde::Serialize)]
pub(super) struct ViewDiff {
    pub(super) view: String,
    pub(super) old: String,
    pub(super) new: String,
    pub(super) diff: String,
    pub(super) changed_pixels: usize,
}

/// What changed since the older version (`--against`), as changes.json holds it.
#[derive(Debug, serde::Serialize)]
pub(super) struct Comparison {
    pub(super) against: String,
    #[serde(flatten)]
    pub(super) changes: crate::app::compare::Changes,
    pub(super) views: Vec<ViewDiff>,
    /// A close-up of each change, the first `--closeups N` that place anything.
    pub(super) closeups: Vec<ChangeCloseup>,
    /// Changes past `--closeups N`, and changes that place nothing in either version: no
    /// close-up.
    pub(super) closeups_left_out: usize,
    pub(super) closeups_nothing_placed: usize,
}

/// A pixel differs when a channel moves by more than this (0..255).
pub(super) const DIFF_THRESHOLD: u8 = 24;

/// The difference of two renders: the new one greyed, and the pixels that changed in red.
pub(super) fn difference(
    old: &image::RgbaImage,
    new: &image::RgbaImage,
) -> (image::RgbaImage, usize) {
    let mut changed = 0;
    let out = image::RgbaImage::from_fn(new.width(), new.height(), |x, y| {
        let (a, b) = (old.get_pixel(x, y).0, new.get_pixel(x, y).0);
        let moved = (0..3).any(|c| a[c].abs_diff(b[c]) > DIFF_THRESHOLD);
        if moved {
            changed += 1;
            image::Rgba([255, 30, 30, 255])
        } else {
            let g = ((u16::from(b[0]) + u16::from(b[1]) + u16::from(b[2])) / 3 / 2 + 64) as u8;
            image::Rgba([g, g, g, 255])
        }
    });
    (out, changed)
}

/// Loads a version of the document for the comparison, as the new one was loaded.
pub(super) fn load_version(
    a: &Report,
    path: &Path,
) -> Result<(crate::document::Document, crate::art::ArtSet), String> {
    let opts = crate::document::LoadOptions {
        threads: 0,
        progress: None,
        ground: Some(a.render.terrain.ground()),
    };
    let mut doc = crate::document::load_with(path, &a.inputs, &opts).map_err(|e| e.to_string())?;
    let art = crate::document::load_document_art_with(&mut doc, &a.render.headless_art());
    Ok((doc, art))
}

/// Moves the older version's scene into the newer one's frame. Each version's frame is
/// centred on its own first feature, so without this a version whose first feature was
/// removed or moved would be drawn shifted, and every pixel would differ.
pub(super) fn into_frame_of(old: &mut Scene, new: &Scene) {
    if let (Some(o), Some(n)) = (&old.geo, &new.geo) {
        let shift =
            crate::input::project([n.origin_lon, n.origin_lat], [o.origin_lon, o.origin_lat]);
        if shift != [0.0, 0.0] {
            old.translate(shift);
            old.geo = new.geo;
        }
    }
}

/// The framing of both versions' main clusters together (what each side-by-side view
/// shows), on the new version's terrain.
pub(super) fn union_framing(
    new: (&Scene, &crate::art::ArtSet),
    old: (&Scene, &crate::art::ArtSet),
    terrain: &crate::terrain::Terrain,
) -> Framing {
    let a = Framing::choose(new.0, Some(new.1), Some(terrain), FrameChoice::Main);
    let b = Framing::choose(old.0, Some(old.1), Some(terrain), FrameChoice::Main);
    let (la, ha) = a.bounds();
    let (lb, hb) = b.bounds();
    let lo = [la[0].min(lb[0]), la[1].min(lb[1])];
    let hi = [ha[0].max(hb[0]), ha[1].max(hb[1])];
    let center = [(lo[0] + hi[0]) * 0.5, (lo[1] + hi[1]) * 0.5];
    let radius = (0.5 * (hi[0] - lo[0]).max(hi[1] - lo[1])).max(5.0);
    Framing::choose(
        new.0,
        Some(new.1),
        Some(terrain),
        FrameChoice::Around { center, radius },
    )
}

/// The "Changes" section: features added, removed and changed, and each view of both
/// versions side by side with their difference.
pub(super) fn changes_section(c: &Comparison) -> String {
    let ch = &c.changes;
    let mut o = String::new();
    let _ = writeln!(
        o,
        "<section id=\"changes\"><h2>Changes</h2><p>Since <code>{}</code>: \
         <span data-count=\"added\">{}</span> added, <span data-count=\"removed\">{}</span> \
         removed, <span data-count=\"changed\">{}</span> changed, {} unchanged.</p>",
        html(&c.against),
        ch.added.len(),
        ch.removed.len(),
        ch.changed.len(),
        ch.unchanged
    );
    if ch.roads.any() {
        let r = &ch.roads;
        let _ = writeln!(
            o,
            "<p>Road segments: <span data-count=\"roads-added\">{}</span> added, \
             <span data-count=\"roads-removed\">{}</span> removed, \
             <span data-count=\"roads-changed\">{}</span> changed, {} unchanged.</p>",
            r.added, r.removed, r.changed, r.unchanged
        );
    }
    // A link to the change's close-up, where it has one.
    let shown = |change: Change, entry: usize| {
        c.closeups
            .iter()
            .find(|s| s.change == change && s.entry == entry)
            .map_or(String::new(), |s| {
                format!(" <a href=\"#{}\">close-up</a>", s.anchor)
            })
    };
    let list =
        |o: &mut String, title: &str, change: Change, items: &[crate::app::compare::Named]| {
            if items.is_empty() {
                return;
            }
            let _ = write!(o, "<h3>{title}</h3><ul>");
            for (i, n) in items.iter().enumerate() {
                let _ = write!(
                    o,
                    "<li><code>{}</code> {} ({}){}</li>",
                    html(&n.source),
                    html(&n.asset),
                    n.kind,
                    shown(change, i)
                );
            }
            let _ = writeln!(o, "</ul>");
        };
    list(&mut o, "Added", Change::Added, &ch.added);
    list(&mut o, "Removed", Change::Removed, &ch.removed);
    if !ch.changed.is_empty() {
        let _ = write!(o, "<h3>Changed</h3><ul>");
        for (i, x) in ch.changed.iter().enumerate() {
            let _ = write!(
                o,
                "<li><code>{}</code> {}: {}{}</li>",
                html(&x.new.source),
                html(&x.new.asset),
                html(&x.changes.join("; ")),
                shown(Change::Changed, i)
            );
        }
        let _ = writeln!(o, "</ul>");
    }
    o.push_str(&closeups_part(c));
    let _ = writeln!(o, "<h3>Old, new and what changed</h3>");
    for v in &c.views {
        let _ = write!(o, "<div class=\"grid\">");
        for (f, what) in [
            (&v.old, "old"),
            (&v.new, "new"),
            (&v.diff, "changed pixels in red"),
        ] {
            let _ = write!(
                o,
                "<figure><a href=\"{f}\"><img src=\"{f}\" alt=\"{w}, {what}\" loading=\"lazy\"></a>\
                 <figcaption>{w}, {what}</figcaption></figure>",
                f = html(f),
                w = html(&v.view)
            );
        }
        let _ = writeln!(
            o,
            "</div><p class=\"path\">{} pixel(s) changed {}</p>",
            v.changed_pixels,
            html(&v.view)
        );
    }
    let _ = writeln!(o, "</section>");
    o
}

/// The close-ups of the changes: old, new and the changed pixels of each, with what changed,
/// and how many changes have none.
fn closeups_part(c: &Comparison) -> String {
    let mut o = String::new();
    if c.closeups.is_empty() && c.closeups_left_out + c.closeups_nothing_placed == 0 {
        return o;
    }
    let _ = writeln!(o, "<h3>Close-ups of the changes</h3>");
    for s in &c.closeups {
        let what = match s.change {
            Change::Added => "added",
            Change::Removed => "removed",
            Change::Changed => "changed",
        };
        let _ = write!(
            o,
            "<div id=\"{}\"><p>{what}: <code>{}</code> {} ({}): \
             <span data-changed-pixels=\"{}\">{}</span> pixel(s) changed</p><div class=\"grid\">",
            s.anchor,
            html(&s.source),
            html(&s.asset),
            s.kind,
            s.anchor,
            s.changed_pixels
        );
        for (f, side) in [
            (&s.old, "old"),
            (&s.new, "new"),
            (&s.diff, "changed pixels in red"),
        ] {
            let _ = write!(
                o,
                "<figure><a href=\"{f}\"><img src=\"{f}\" alt=\"{what} {a}, {side}\" loading=\"lazy\"></a>\
                 <figcaption>{side}</figcaption></figure>",
                f = html(f),
                a = html(&s.asset)
            );
        }
        let _ = writeln!(o, "</div></div>");
    }
    if c.closeups_left_out > 0 {
        let _ = writeln!(
            o,
            "<p class=\"note\" data-count=\"closeups-left-out\">{} more change(s) have no \
             close-up (<code>--closeups N</code> caps them at {}).</p>",
            c.closeups_left_out,
            c.closeups.len()
        );
    }
    if c.closeups_nothing_placed > 0 {
        let _ = writeln!(
            o,
            "<p class=\"path\">{} change(s) place nothing in either version: no close-up.</p>",
            c.closeups_nothing_placed
        );
    }
    o
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::app::compare::{Changes, RoadChanges};

    #[test]
    fn the_changes_section_counts_road_segments_when_there_are_roads() {
        let mut c = Comparison {
            against: "old.txt".into(),
            changes: Changes::default(),
            views: Vec::new(),
            closeups: Vec::new(),
            closeups_left_out: 0,
            closeups_nothing_placed: 0,
        };
        assert!(!changes_section(&c).contains("Road segments"));
        c.changes.roads = RoadChanges {
            added: 2,
            removed: 1,
            changed: 3,
            unchanged: 40,
        };
        let page = changes_section(&c);
        assert!(
            page.contains(
                "Road segments: <span data-count=\"roads-added\">2</span> added, \
                 <span data-count=\"roads-removed\">1</span> removed, \
                 <span data-count=\"roads-changed\">3</span> changed, 40 unchanged."
            ),
            "{page}"
        );
        let json = serde_json::to_value(&c).unwrap();
        assert_eq!(json["roads"]["changed"], 3);
    }

    #[test]
    fn the_changes_section_links_each_close_up_and_says_what_has_none() {
        let car = crate::app::compare::Named {
            source: "d.txt:10".into(),
            asset: "objects/car.obj".into(),
            kind: "obj",
            index: Some(0),
        };
        let mut c = Comparison {
            against: "old.txt".into(),
            changes: Changes {
                removed: vec![car.clone(), car],
                ..Changes::default()
            },
            views: Vec::new(),
            closeups: Vec::new(),
            closeups_left_out: 0,
            closeups_nothing_placed: 0,
        };
        assert!(!changes_section(&c).contains("Close-ups"));
        c.closeups.push(ChangeCloseup {
            change: Change::Removed,
            entry: 1,
            source: "d.txt:10".into(),
            asset: "objects/car.obj".into(),
            kind: "obj",
            anchor: "change-0".into(),
            old: "img/change-0-old.png".into(),
            new: "img/change-0-new.png".into(),
            diff: "img/change-0-diff.png".into(),
            changed_pixels: 42,
        });
        c.closeups_left_out = 3;
        c.closeups_nothing_placed = 2;
        let page = changes_section(&c);
        // Only the second removed car has a close-up, and its entry links to it.
        assert_eq!(
            page.matches("<a href=\"#change-0\">close-up</a>").count(),
            1
        );
        let second = page.find("#change-0").unwrap();
        assert!(page[..second].contains("</li><li>"), "{page}");
        assert!(
            page.contains("data-changed-pixels=\"change-0\">42<"),
            "{page}"
        );
        assert!(page.contains("3 more change(s) have no close-up"), "{page}");
        assert!(page.contains("2 change(s) place nothing"), "{page}");
        let json = serde_json::to_value(&c).unwrap();
        assert_eq!(json["closeups"][0]["change"], "removed");
        assert_eq!(json["closeups_left_out"], 3);
        assert!(json["removed"][0].get("index").is_none());
    }
}
