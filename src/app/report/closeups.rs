//! `--against`: a close-up of each feature added, removed or changed, framed on it. The old
//! and the new version are rendered from one camera in one light, and the pixels that
//! changed are marked ([`super::versions::difference`]). An overview of a large document can
//! miss a car; its close-up cannot.
//!
//! A change is framed on the union of its boxes in both versions (`feature_boxes`, the
//! boxes the viewer picks with): an added feature by its new box, a removed one by its old
//! box, grown by [`margin`] on each side. The first `--closeups N` changes that place
//! anything get one, in the page's order (added, removed, changed).

use crate::app::compare::{Changes, Named};
use crate::progress::Progress;
use crate::render::{Camera, Framing, Headless, SceneGpu, Sun};
use crate::terrain::Terrain;

use super::args::Report;
use super::page::params;
use super::versions::difference;

/// A feature's box in the scene frame, as [`crate::render::feature_boxes`] gives it.
pub(super) type Box3 = ([f32; 3], [f32; 3]);

/// The share of a change's larger side that its close-up shows beyond it on each side.
const MARGIN_SHARE: f32 = 0.25;
/// Meters a close-up shows beyond a change on each side besides [`MARGIN_SHARE`]: a car
/// (4 m) is framed in about 16 m, with the ground and its neighbours around it.
const MARGIN_M: f32 = 5.0;

/// How far a close-up reaches beyond a change whose box is `w` × `d` meters, on each side.
pub(super) fn margin(w: f32, d: f32) -> f32 {
    MARGIN_SHARE * w.max(d) + MARGIN_M
}

/// The list of changes.json a change is in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub(super) enum Change {
    Added,
    Removed,
    Changed,
}

/// A close-up to render: the change it shows, and its framing (in the new version's frame).
pub(super) struct Planned {
    change: Change,
    entry: usize,
    /// The feature as its version names it (the old one for a removed feature).
    named: Named,
    framing: Framing,
}

/// The close-ups the changes get, and how many changes go without one.
#[derive(Default)]
pub(super) struct Plan {
    pub(super) shots: Vec<Planned>,
    /// Changes past `--closeups N`.
    pub(super) left_out: usize,
    /// Changes that place nothing in either version (nothing to frame).
    pub(super) nothing_placed: usize,
}

impl Plan {
    /// The close-ups of `changes`, at most `cap`: each feature's box in the old version
    /// (`old`, moved into the new version's frame) and in the new one (`new`).
    pub(super) fn of(
        changes: &Changes,
        old: &[Option<Box3>],
        new: &[Option<Box3>],
        terrain: &Terrain,
        cap: usize,
    ) -> Plan {
        let boxed = |n: &Named, boxes: &[Option<Box3>]| {
            n.index.and_then(|i| boxes.get(i).copied().flatten())
        };
        let added = (changes.added.iter().enumerate())
            .map(|(i, n)| (Change::Added, i, n, [None, boxed(n, new)]));
        let removed = (changes.removed.iter().enumerate())
            .map(|(i, n)| (Change::Removed, i, n, [boxed(n, old), None]));
        let changed = changes.changed.iter().enumerate().map(|(i, x)| {
            let b = [boxed(&x.old, old), boxed(&x.new, new)];
            (Change::Changed, i, &x.new, b)
        });
        let mut plan = Plan::default();
        for (change, entry, named, boxes) in added.chain(removed).chain(changed) {
            let Some(framing) = framing(boxes.into_iter().flatten(), terrain) else {
                plan.nothing_placed += 1;
                continue;
            };
            if plan.shots.len() == cap {
                plan.left_out += 1;
                continue;
            }
            plan.shots.push(Planned {
                change,
                entry,
                named: named.clone(),
                framing,
            });
        }
        plan
    }
}

/// The framing of a change: the union of its boxes, grown by [`margin`], from the lowest to
/// the highest point of its boxes, on the ground under its centre. `None` without a box.
fn framing(boxes: impl Iterator<Item = Box3>, terrain: &Terrain) -> Option<Framing> {
    let (mut lo, mut hi) = boxes.reduce(|(la, ha), (lb, hb)| {
        (
            [la[0].min(lb[0]), la[1].min(lb[1]), la[2].min(lb[2])],
            [ha[0].max(hb[0]), ha[1].max(hb[1]), ha[2].max(hb[2])],
        )
    })?;
    if !lo.iter().chain(&hi).all(|v| v.is_finite()) {
        return None;
    }
    let m = margin(hi[0] - lo[0], hi[1] - lo[1]);
    for k in 0..2 {
        lo[k] -= m;
        hi[k] += m;
    }
    let mut f = Framing::flat(([lo[0], lo[1]], [hi[0], hi[1]]));
    let g = terrain.height_at((lo[0] + hi[0]) * 0.5, (lo[1] + hi[1]) * 0.5);
    f.ground = if g.is_finite() { g } else { lo[2] };
    f.lo[2] = lo[2].min(f.ground);
    f.hi[2] = hi[2].max(f.ground);
    Some(f)
}

/// One close-up of a change, as changes.json lists it.
#[derive(Debug, serde::Serialize)]
pub(super) struct ChangeCloseup {
    /// The list the change is in, and its index there.
    pub(super) change: Change,
    pub(super) entry: usize,
    pub(super) source: String,
    pub(super) asset: String,
    pub(super) kind: &'static str,
    /// Its place on the page: `index.html#ANCHOR`.
    pub(super) anchor: String,
    pub(super) old: String,
    pub(super) new: String,
    pub(super) diff: String,
    pub(super) changed_pixels: usize,
}

/// The close-ups of the changes of both versions, at noon from the south-west: each one's
/// old, new and difference images written with `put`.
pub(super) fn render(
    a: &Report,
    headless: &Headless,
    old: &mut SceneGpu,
    new: &mut SceneGpu,
    plan: &Plan,
    progress: &Progress,
    put: &dyn Fn(&str, image::RgbaImage) -> anyhow::Result<()>,
) -> anyhow::Result<Vec<ChangeCloseup>> {
    let (w, h) = ((a.size.0 / 2).max(64), (a.size.1 / 2).max(48));
    let mut out = Vec::new();
    for (i, s) in plan.shots.iter().enumerate() {
        let f = &s.framing;
        let p = params(a, f, Camera::frame_from(f, 225.0), Sun::NOON);
        let before = headless.render(old, &p, w, h)?;
        let after = headless.render(new, &p, w, h)?;
        let (diff, changed) = difference(&before, &after);
        let name = |side: &str| format!("img/change-{i}-{side}.png");
        put(&name("old"), before)?;
        put(&name("new"), after)?;
        put(&name("diff"), diff)?;
        out.push(ChangeCloseup {
            change: s.change,
            entry: s.entry,
            source: s.named.source.clone(),
            asset: s.named.asset.clone(),
            kind: s.named.kind,
            anchor: format!("change-{i}"),
            old: name("old"),
            new: name("new"),
            diff: name("diff"),
            changed_pixels: changed,
        });
        progress.add(1);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn named(index: usize) -> Named {
        Named {
            source: format!("d.txt:{index}"),
            asset: "objects/car.obj".into(),
            kind: "obj",
            index: Some(index),
        }
    }

    fn flat() -> Terrain {
        Terrain::flat(1000.0)
    }

    #[test]
    fn a_removed_car_is_framed_on_its_old_box_with_a_margin() {
        let changes = Changes {
            removed: vec![named(1)],
            ..Changes::default()
        };
        let car = ([10.0, 20.0, 0.0], [12.0, 24.0, 1.5]);
        let old = [None, Some(car)];
        let plan = Plan::of(&changes, &old, &[], &flat(), 10);
        assert_eq!(plan.shots.len(), 1);
        let f = &plan.shots[0].framing;
        let m = margin(2.0, 4.0);
        assert_eq!(m, 6.0);
        assert_eq!(f.bounds(), ([4.0, 14.0], [18.0, 30.0]));
        assert_eq!((f.lo[2], f.hi[2], f.ground), (0.0, 1.5, 0.0));
        assert_eq!(plan.shots[0].change, Change::Removed);
    }

    #[test]
    fn a_moved_feature_is_framed_on_both_places_and_the_cap_is_counted() {
        let mut changes = Changes {
            added: vec![named(0), named(1)],
            ..Changes::default()
        };
        changes.changed.push(crate::app::compare::Changed {
            old: named(0),
            new: named(2),
            changes: vec!["objects 1 → 2".into()],
        });
        let old = [Some(([0.0, 0.0, 0.0], [2.0, 2.0, 1.0]))];
        // The first added feature places nothing: no close-up, and it takes no place.
        let new = [
            None,
            Some(([50.0, 0.0, 0.0], [52.0, 2.0, 1.0])),
            Some(([40.0, 0.0, 0.0], [42.0, 2.0, 3.0])),
        ];
        let plan = Plan::of(&changes, &old, &new, &flat(), 2);
        assert_eq!(
            (plan.shots.len(), plan.left_out, plan.nothing_placed),
            (2, 0, 1)
        );
        let f = &plan.shots[1].framing;
        assert_eq!(plan.shots[1].change, Change::Changed);
        let m = margin(42.0, 2.0);
        assert_eq!(f.bounds(), ([-m, -m], [42.0 + m, 2.0 + m]));
        assert_eq!(f.hi[2], 3.0);
        let plan = Plan::of(&changes, &old, &new, &flat(), 1);
        assert_eq!((plan.shots.len(), plan.left_out), (1, 1));
    }
}
