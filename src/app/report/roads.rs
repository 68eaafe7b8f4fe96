//! The report's road sections: one per `.net` the document's roads use (or per network
//! definition drawn in the plain profile when its `.net` was not found), each showing one
//! labelled ribbon per road type used: a short, gently curved segment of that type laid
//! alone and drawn from above the south-west, captioned with its type (`type 12`, or
//! `plain profile residential`), and how many segments and metres of it the document has.
//!
//! The ribbons are drawn by the same renderer as everything else, from the same
//! `Scene::road_looks`: what they show is what the scene's roads draw.

use std::fmt::Write as _;

use super::args::Report;
use super::page::{html, params, Shot};
use crate::progress::Progress;
use crate::render::{Camera, Framing, Headless, Sun};
use crate::scene::{road_type_label, RoadSegment, Scene};

/// At most this many ribbons are rendered over all the sections; the others are listed.
pub const MAX_RIBBONS: usize = 40;
/// The sample segment's length in metres.
const SAMPLE_M: f32 = 80.0;

/// One road type used, and its ribbon.
pub struct RoadSample {
    /// The look drawn (index into `Scene::road_looks`).
    pub look: usize,
    /// `type 12`, or `plain profile residential`.
    pub label: String,
    pub segments: usize,
    pub metres: f32,
    pub shot: Option<Shot>,
}

/// One `.net`'s section.
pub struct RoadSection {
    /// The `.net` as the document names it.
    pub net: String,
    /// The file read, or `None` when the roads were drawn in the plain profile.
    pub resolved: Option<String>,
    pub samples: Vec<RoadSample>,
}

/// The sections of the `.net`s `scene`'s roads use, in order of first look, each with its
/// road types in look order (the counts are `Scene::road_stats`').
pub fn sections(scene: &Scene) -> Vec<RoadSection> {
    let mut out: Vec<RoadSection> = Vec::new();
    for st in &scene.road_stats {
        let Some(look) = scene.road_looks.get(st.look) else {
            continue;
        };
        let k = match out.iter().position(|s| s.net == look.net) {
            Some(k) => k,
            None => {
                out.push(RoadSection {
                    net: look.net.clone(),
                    resolved: None,
                    samples: Vec::new(),
                });
                out.len() - 1
            }
        };
        let s = &mut out[k];
        if s.resolved.is_none() {
            s.resolved = look.resolved.clone();
        }
        s.samples.push(RoadSample {
            look: st.look,
            label: road_type_label(look.road_type, look.plain.as_deref()),
            segments: st.segments,
            metres: st.length,
            shot: None,
        });
    }
    out
}

/// How many ribbons `render` draws.
pub fn render_count(sections: &[RoadSection]) -> usize {
    sections
        .iter()
        .map(|s| s.samples.len())
        .sum::<usize>()
        .min(MAX_RIBBONS)
}

/// A scene of one segment of look `look` alone: `SAMPLE_M` metres west to east, bowed
/// gently north (so mitres and the texture along a curve show), on the ground.
pub fn sample_scene(scene: &Scene, look: usize) -> Scene {
    let half = SAMPLE_M * 0.5;
    let points: Vec<[f32; 2]> = (0..=16)
        .map(|i| {
            let t = i as f32 / 16.0;
            let x = -half + SAMPLE_M * t;
            // A sine bow 6 m high in the middle.
            [x, 6.0 * (std::f32::consts::PI * t).sin()]
        })
        .collect();
    let length = points
        .windows(2)
        .map(|w| (w[1][0] - w[0][0]).hypot(w[1][1] - w[0][1]))
        .sum();
    let mut s = Scene {
        kind: scene.kind,
        asset: scene.asset.clone(),
        seed: scene.seed,
        season: scene.season,
        road_looks: scene.road_looks.get(look).cloned().into_iter().collect(),
        roads: vec![RoadSegment {
            look: 0,
            points,
            levels: [0, 0],
            heights: [0.0, 0.0],
            length,
            feature: None,
        }],
        ..Scene::default()
    };
    s.update_stats();
    s
}

/// Renders each section's ribbons (the first `MAX_RIBBONS`); `put` writes an image under
/// the report folder. A ribbon that cannot be rendered is left out, and its caption says
/// so in the page.
pub fn render(
    a: &Report,
    headless: &Headless,
    scene: &Scene,
    sections: &mut [RoadSection],
    progress: &Progress,
    put: &dyn Fn(&str, image::RgbaImage) -> anyhow::Result<()>,
) -> anyhow::Result<()> {
    let (w, h) = ((a.size.0 / 2).max(64), (a.size.1 / 2).max(48));
    let mut n = 0;
    for (k, s) in sections.iter_mut().enumerate() {
        for (j, sample) in s.samples.iter_mut().enumerate() {
            if n == MAX_RIBBONS {
                return Ok(());
            }
            n += 1;
            let alone = sample_scene(scene, sample.look);
            // A ribbon that cannot be drawn costs only itself (its caption says so); a
            // writer that stopped fails the report.
            let drawn = (|| -> anyhow::Result<image::RgbaImage> {
                let art = crate::pipeline::load_art_with(&alone, &a.render.headless_art());
                let terrain = a
                    .render
                    .terrain
                    .terrain_for(&alone)
                    .map_err(anyhow::Error::msg)?;
                let framing = Framing::new(&alone, Some(&art), Some(&terrain));
                let p = params(a, &framing, Camera::frame_from(&framing, 200.0), Sun::NOON);
                let mut gpu = headless.upload(&alone, &art, &terrain)?;
                Ok(headless.render(&mut gpu, &p, w, h)?)
            })();
            progress.add(1);
            let Ok(img) = drawn else {
                continue;
            };
            let file = format!("img/road-{k}-{j}.png");
            put(&file, img)?;
            sample.shot = Some(Shot {
                file,
                caption: format!("{}, {SAMPLE_M:.0} m alone", sample.label),
            });
        }
    }
    Ok(())
}

/// The "Roads" section of the page (empty when the document has no roads).
pub fn html_section(sections: &[RoadSection]) -> String {
    let mut o = String::new();
    if sections.is_empty() {
        return o;
    }
    let _ = writeln!(
        o,
        "<section id=\"roads\"><h2>Roads</h2><p>The road networks the document uses: one \
         ribbon per road type used, a {SAMPLE_M:.0} m segment of it alone (the first \
         {MAX_RIBBONS} rendered). Roads whose <code>.net</code>, or whose subtype in it, \
         was not found are drawn in the plain profile.</p>"
    );
    for (k, s) in sections.iter().enumerate() {
        let where_ = match &s.resolved {
            Some(r) => html(r),
            None => "not found: drawn in the plain profile".to_string(),
        };
        let segments: usize = s.samples.iter().map(|x| x.segments).sum();
        let metres: f32 = s.samples.iter().map(|x| x.metres).sum();
        let _ = writeln!(
            o,
            "<div class=\"asset\" id=\"road-net-{k}\"><h3>{} <span class=\"path\">(net)</span></h3>\
             <p class=\"path\">{where_}</p><p><span data-count=\"road-segments\">{segments}</span> \
             segment(s), {metres:.0} m, in {} road type(s).</p><div class=\"grid\">",
            html(&crate::diag::escaped(&s.net)),
            s.samples.len()
        );
        for x in &s.samples {
            let counts = format!("{} segment(s), {:.0} m", x.segments, x.metres);
            match &x.shot {
                Some(shot) => {
                    let _ = writeln!(
                        o,
                        "<figure class=\"road\" data-road-type=\"{l}\"><a href=\"{f}\"><img src=\"{f}\" \
                         alt=\"{l}\" loading=\"lazy\"></a><figcaption><strong>{l}</strong>: {counts}\
                         </figcaption></figure>",
                        f = html(&shot.file),
                        l = html(&x.label)
                    );
                }
                None => {
                    let _ = writeln!(
                        o,
                        "<figure class=\"road\" data-road-type=\"{l}\"><figcaption><strong>{l}\
                         </strong>: {counts} (not rendered)</figcaption></figure>",
                        l = html(&x.label)
                    );
                }
            }
        }
        let _ = writeln!(o, "</div></div>");
    }
    let _ = writeln!(o, "</section>");
    o
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scene::RoadLook;

    /// A scene of two `.net`s: roads.net (types 12 and 40, and a subtype it lacks drawn
    /// plain) and a network whose `.net` was not found (plain).
    fn scene() -> Scene {
        let look = |net: &str, t: Option<u32>, plain: Option<&str>| RoadLook {
            net: net.into(),
            resolved: t.map(|_| format!("/x/{net}")),
            road_type: t,
            plain: plain.map(str::to_string),
            width: 8.0,
            length: 20.0,
            ..RoadLook::default()
        };
        let seg = |look: usize, length: f32| RoadSegment {
            look,
            points: vec![[0.0, 0.0], [length, 0.0]],
            length,
            ..RoadSegment::default()
        };
        let mut s = Scene {
            road_looks: vec![
                look("lib/g10/roads.net", Some(12), None),
                look("lib/g10/roads.net", Some(40), None),
                look("lib/g10/roads.net", None, Some("residential")),
                look("my/roads.net", None, Some("service")),
                // A look no segment uses: no ribbon.
                look("lib/g10/roads.net", Some(99), None),
            ],
            roads: vec![
                seg(0, 100.0),
                seg(0, 50.0),
                seg(1, 30.0),
                seg(2, 20.0),
                seg(3, 10.0),
            ],
            ..Scene::default()
        };
        s.update_stats();
        s
    }

    #[test]
    fn one_section_per_net_and_one_labelled_ribbon_per_type_used() {
        let s = scene();
        let sections = sections(&s);
        assert_eq!(sections.len(), 2);
        assert_eq!(sections[0].net, "lib/g10/roads.net");
        assert_eq!(
            sections[0].resolved.as_deref(),
            Some("/x/lib/g10/roads.net")
        );
        let labels: Vec<&str> = sections[0]
            .samples
            .iter()
            .map(|x| x.label.as_str())
            .collect();
        assert_eq!(labels, ["type 12", "type 40", "plain profile residential"]);
        assert_eq!(
            (
                sections[0].samples[0].segments,
                sections[0].samples[0].metres
            ),
            (2, 150.0)
        );
        assert_eq!(sections[1].resolved, None);
        assert_eq!(render_count(&sections), 4);

        let page = html_section(&sections);
        assert!(page.starts_with("<section id=\"roads\">"), "{page}");
        assert_eq!(page.matches("<figure class=\"road\"").count(), 4);
        assert!(page.contains("data-road-type=\"type 12\""));
        assert!(page.contains("<strong>plain profile residential</strong>: 1 segment(s), 20 m"));
        assert!(page.contains("<strong>plain profile service</strong>"));
        assert!(page.contains("not found: drawn in the plain profile"));
        assert!(page.contains("<span data-count=\"road-segments\">4</span> segment(s), 200 m"));
        // Not rendered yet: said so, with no image.
        assert!(page.contains("(not rendered)") && !page.contains("<img"));
        assert_eq!(html_section(&[]), "");
    }

    #[test]
    fn the_sample_is_one_segment_of_the_look_alone() {
        let s = scene();
        let alone = sample_scene(&s, 1);
        assert_eq!(alone.road_looks, [s.road_looks[1].clone()]);
        assert_eq!(alone.roads.len(), 1);
        let r = &alone.roads[0];
        assert_eq!(r.look, 0);
        assert!(
            r.length > SAMPLE_M && r.length < SAMPLE_M * 1.05,
            "{}",
            r.length
        );
        assert_eq!(alone.stats.road_segments, 1);
        assert!(alone.extent().is_some());
    }
}
