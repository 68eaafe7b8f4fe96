//! What changed between two versions of a document or an asset (`agview report --against`):
//! features matched across versions, the ones added, removed and changed, and what changed
//! in their layout. Plain data, written to `changes.json` (docs/report-changes.md).
//!
//! Matching: a WED feature by its WED id (`path: id N "name"`); a DSF or apt.dat feature by
//! its definition, parameter and first point within 0.1 m. Line numbers and stream indices
//! shift when a feature is added, so they are not used. An asset compared with its older
//! self is one feature.

use std::collections::HashMap;

use serde::Serialize;

use crate::scene::{FeatureInfo, FeatureKind, Scene};

/// A feature as the comparison names it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Named {
    /// Where it is in its version (`path:line`, `path: id N …`).
    pub source: String,
    pub asset: String,
    pub kind: &'static str,
    /// Its index in its version's `Scene::features` (`None` for an asset compared as a
    /// whole): where the report finds its box for a close-up. Not in the JSON.
    #[serde(skip)]
    pub index: Option<usize>,
}

/// A feature in both versions that differs.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Changed {
    pub old: Named,
    pub new: Named,
    /// What differs, one line each (`parameter 770 → 512`, `tiles 30 → 28`, …).
    pub changes: Vec<String>,
}

/// The comparison of two versions.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Changes {
    pub added: Vec<Named>,
    pub removed: Vec<Named>,
    pub changed: Vec<Changed>,
    /// Features in both versions with nothing changed.
    pub unchanged: usize,
    /// The road features (segments, junction to junction) among the above, counted.
    pub roads: RoadChanges,
}

/// How many road segments were added, removed and changed (`Changes::roads`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct RoadChanges {
    pub added: usize,
    pub removed: usize,
    pub changed: usize,
    pub unchanged: usize,
}

impl RoadChanges {
    /// Whether either version has roads.
    pub fn any(&self) -> bool {
        self.added + self.removed + self.changed + self.unchanged > 0
    }

    /// Counts the road features of a comparison (matched features counted by the new
    /// version's kind).
    fn count(c: &Changes, unchanged: usize) -> RoadChanges {
        let road = |n: &Named| n.kind == FeatureKind::Road.name();
        RoadChanges {
            added: c.added.iter().filter(|n| road(n)).count(),
            removed: c.removed.iter().filter(|n| road(n)).count(),
            changed: c.changed.iter().filter(|x| road(&x.new)).count(),
            unchanged,
        }
    }
}

impl Changes {
    pub fn is_empty(&self) -> bool {
        self.added.is_empty() && self.removed.is_empty() && self.changed.is_empty()
    }
}

/// The WED id in a WED feature's source (`path: id 42 "name"`).
fn wed_id(source: &str) -> Option<u64> {
    let rest = source.split(": id ").nth(1)?;
    rest.split_whitespace().next()?.parse().ok()
}

/// What a feature is matched by across versions, beside its place: its WED id, else its
/// definition and parameter.
fn key(f: &FeatureInfo) -> String {
    match wed_id(&f.source) {
        Some(id) => format!("wed {id}"),
        None => format!("{}|{}", f.asset.replace('\\', "/"), f.param),
    }
}

/// Whether two first points lie within 0.1 m (a WED id matches wherever it moved); for
/// road segments, both ends (several segments leave one junction).
fn same_place(a: &FeatureInfo, b: &FeatureInfo) -> bool {
    if wed_id(&a.source).is_some() {
        return true;
    }
    let end = |f: &FeatureInfo| f.road.as_ref().and_then(|r| r.end);
    near(a.at, b.at) && near(end(a), end(b))
}

/// Whether two points lie within 0.1 m (two absent points agree).
fn near(a: Option<[f64; 2]>, b: Option<[f64; 2]>) -> bool {
    match (a, b) {
        (Some([lon0, lat0]), Some([lon1, lat1])) => {
            let m = crate::input::METERS_PER_DEGREE;
            let dx = (lon1 - lon0) * m * lat0.to_radians().cos();
            let dy = (lat1 - lat0) * m;
            dx.hypot(dy) <= 0.1
        }
        (None, None) => true,
        _ => false,
    }
}

fn named(index: usize, f: &FeatureInfo) -> Named {
    Named {
        source: f.source.clone(),
        asset: f.asset.clone(),
        kind: f.kind.name(),
        index: Some(index),
    }
}

/// What differs between two versions of one feature.
fn differences(old: &FeatureInfo, new: &FeatureInfo) -> Vec<String> {
    let mut d = Vec::new();
    if old.asset != new.asset {
        d.push(format!("asset {} → {}", old.asset, new.asset));
    }
    if old.param != new.param {
        d.push(format!("parameter {} → {}", old.param, new.param));
    }
    // Two versions live in two folders (their packages named after them): what counts is
    // whether the definition was found.
    if old.resolved.is_some() != new.resolved.is_some() {
        let r = |f: &FeatureInfo| {
            if f.resolved.is_some() {
                "found"
            } else {
                "not found"
            }
        };
        d.push(format!("definition {} → {}", r(old), r(new)));
    }
    layout_differences(
        &old.stats,
        &new.stats,
        old.choice.as_ref(),
        new.choice.as_ref(),
        &mut d,
    );
    if let (Some(a), Some(b)) = (&old.road, &new.road) {
        if a.label() != b.label() {
            d.push(format!("road {} → {}", a.label(), b.label()));
        }
        if a.levels != b.levels {
            d.push(format!(
                "levels {} {} → {} {}",
                a.levels[0], a.levels[1], b.levels[0], b.levels[1]
            ));
        }
    }
    if old.dropped.is_some() != new.dropped.is_some() {
        d.push(match new.dropped {
            Some(_) => "now screened out by SLOPE_LIMIT".to_string(),
            None => "no longer screened out by SLOPE_LIMIT".to_string(),
        });
    }
    d
}

/// Tiles, objects, facades and trees that appeared or vanished, and the AGB spelling or
/// choice that changed.
fn layout_differences(
    old: &crate::scene::SceneStats,
    new: &crate::scene::SceneStats,
    old_choice: Option<&crate::scene::BlockChoice>,
    new_choice: Option<&crate::scene::BlockChoice>,
    d: &mut Vec<String>,
) {
    for ((what, a), (_, b)) in old.parts().into_iter().zip(new.parts()) {
        if a != b {
            d.push(format!("{what} {a} → {b}"));
        }
    }
    match (old_choice, new_choice) {
        (Some(a), Some(b)) if a != b => {
            if (a.spelling_set, a.grid) != (b.spelling_set, b.grid) {
                d.push(format!(
                    "spelling set {} grid {} → set {} grid {}",
                    a.spelling_set, a.grid, b.spelling_set, b.grid
                ));
            }
            if a.spelling_s != b.spelling_s {
                d.push(format!("columns {:?} → {:?}", a.spelling_s, b.spelling_s));
            }
            if a.spelling_t != b.spelling_t {
                d.push(format!("rows {:?} → {:?}", a.spelling_t, b.spelling_t));
            }
            if a.fits != b.fits {
                d.push(
                    if b.fits {
                        "a spelling fits now"
                    } else {
                        "no spelling fits now"
                    }
                    .into(),
                );
            }
        }
        _ => {}
    }
}

/// Compares two versions of one scene: a document's features, or an asset as one feature.
pub fn compare(old: &Scene, new: &Scene) -> Changes {
    if old.features.is_empty() && new.features.is_empty() {
        let mut changes = Vec::new();
        layout_differences(
            &old.stats,
            &new.stats,
            old.choice.as_ref(),
            new.choice.as_ref(),
            &mut changes,
        );
        let one = |s: &Scene| Named {
            source: s.asset.clone(),
            asset: s.asset.clone(),
            kind: "asset",
            index: None,
        };
        return if changes.is_empty() {
            Changes {
                unchanged: 1,
                ..Changes::default()
            }
        } else {
            Changes {
                changed: vec![Changed {
                    old: one(old),
                    new: one(new),
                    changes,
                }],
                ..Changes::default()
            }
        };
    }
    // Candidates by key, in document order; several may share one (two placements of one
    // definition), told apart by place and taken in order.
    let mut by_key: HashMap<String, Vec<usize>> = HashMap::new();
    for (i, f) in old.features.iter().enumerate() {
        by_key.entry(key(f)).or_default().push(i);
    }
    let mut matched = vec![false; old.features.len()];
    let mut out = Changes::default();
    let mut roads_unchanged = 0;
    for (n, f) in new.features.iter().enumerate() {
        let found = by_key.get(&key(f)).and_then(|c| {
            c.iter()
                .copied()
                .find(|&i| !matched[i] && same_place(&old.features[i], f))
        });
        match found {
            Some(i) => {
                matched[i] = true;
                let d = differences(&old.features[i], f);
                if d.is_empty() {
                    out.unchanged += 1;
                    roads_unchanged += usize::from(f.kind == FeatureKind::Road);
                } else {
                    out.changed.push(Changed {
                        old: named(i, &old.features[i]),
                        new: named(n, f),
                        changes: d,
                    });
                }
            }
            None => out.added.push(named(n, f)),
        }
    }
    out.removed = old
        .features
        .iter()
        .zip(&matched)
        .enumerate()
        .filter(|(_, (_, m))| !**m)
        .map(|(i, (f, _))| named(i, f))
        .collect();
    out.roads = RoadChanges::count(&out, roads_unchanged);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f(source: &str, asset: &str, param: u32, at: [f64; 2], tiles: usize) -> FeatureInfo {
        let mut i = FeatureInfo::new(source.into(), asset.into(), FeatureKind::Agb, param);
        i.at = Some(at);
        i.stats.tiles = tiles;
        i
    }

    #[test]
    fn a_feature_added_at_the_start_is_the_only_change() {
        let old = Scene {
            features: vec![
                f("d.txt:10", "a.agb", 770, [8.5, 47.5], 30),
                f("d.txt:20", "b.agp", 0, [8.51, 47.5], 1),
            ],
            ..Scene::default()
        };
        let new = Scene {
            features: vec![
                f("d.txt:10", "c.agp", 0, [8.52, 47.5], 1),
                // Shifted by ten lines, and 0.05 m east: the same features.
                f("d.txt:20", "a.agb", 770, [8.500_000_6, 47.5], 30),
                f("d.txt:30", "b.agp", 0, [8.51, 47.5], 1),
            ],
            ..Scene::default()
        };
        let c = compare(&old, &new);
        assert_eq!(c.added.len(), 1);
        assert_eq!(c.added[0].asset, "c.agp");
        assert!(c.removed.is_empty() && c.changed.is_empty(), "{c:?}");
        assert_eq!(c.unchanged, 2);
    }

    #[test]
    fn wed_features_match_by_id_and_report_what_changed() {
        let old = Scene {
            features: vec![f("p.xml: id 7 \"x\"", "a.agb", 770, [8.5, 47.5], 30)],
            ..Scene::default()
        };
        let new = Scene {
            features: vec![f("p.xml: id 7 \"x\"", "a.agb", 512, [8.6, 47.5], 28)],
            ..Scene::default()
        };
        let c = compare(&old, &new);
        assert_eq!(c.changed.len(), 1);
        assert_eq!(
            c.changed[0].changes,
            ["parameter 770 → 512", "tiles 30 → 28"]
        );
    }

    /// A road segment from `a` to `b` (degrees), `length` metres, of `road_type`.
    fn road(line: usize, a: [f64; 2], b: [f64; 2], length: f32, road_type: u32) -> FeatureInfo {
        let mut i = FeatureInfo::new(
            format!("d.txt:{line}"),
            "lib/g10/roads.net".into(),
            FeatureKind::Road,
            road_type,
        );
        i.at = Some(a);
        i.road = Some(Box::new(crate::scene::FeatureRoad {
            length,
            road_type: Some(road_type),
            end: Some(b),
            ..Default::default()
        }));
        i.stats.road_segments = 1;
        i.stats.road_length = length.round() as usize;
        i
    }

    #[test]
    fn road_segments_are_counted_added_removed_and_changed() {
        let j = [8.5, 47.5];
        let old = Scene {
            features: vec![
                // Three segments leave one junction with one subtype: told apart by their
                // other end.
                road(10, j, [8.501, 47.5], 75.0, 3),
                road(11, j, [8.5, 47.501], 111.0, 3),
                road(12, j, [8.499, 47.5], 75.0, 3),
                f("d.txt:13", "a.agb", 770, [8.6, 47.5], 30),
            ],
            ..Scene::default()
        };
        let mut bridge = road(21, j, [8.5, 47.501], 111.0, 3);
        bridge.road.as_mut().unwrap().levels = [0, 1];
        let new = Scene {
            features: vec![
                // The west segment removed, the north one now a bridge end, one added.
                road(20, j, [8.501, 47.5], 75.0, 3),
                bridge,
                road(22, [8.501, 47.5], [8.502, 47.5], 75.0, 3),
                f("d.txt:23", "a.agb", 770, [8.6, 47.5], 30),
            ],
            ..Scene::default()
        };
        let c = compare(&old, &new);
        assert_eq!(
            c.roads,
            RoadChanges {
                added: 1,
                removed: 1,
                changed: 1,
                unchanged: 1
            }
        );
        assert_eq!(c.changed[0].changes, ["levels 0 0 → 0 1"]);
        assert_eq!(c.removed[0].source, "d.txt:12");
        assert_eq!(c.unchanged, 2);
        // A segment's length and type changing are said.
        let longer = Scene {
            features: vec![road(10, j, [8.501, 47.5], 80.0, 4)],
            ..Scene::default()
        };
        let shorter = Scene {
            features: vec![road(10, j, [8.501, 47.5], 75.0, 4)],
            ..Scene::default()
        };
        let mut old1 = shorter.clone();
        old1.features[0] = road(10, j, [8.501, 47.5], 75.0, 3);
        // Another subtype is another key: removed and added.
        let c = compare(&old1, &longer);
        assert_eq!((c.roads.added, c.roads.removed), (1, 1));
        let c = compare(&shorter, &longer);
        assert_eq!(c.roads.changed, 1);
        assert_eq!(c.changed[0].changes, ["m of road 75 → 80"]);
    }
}
