//! Type 1 (`800 FACADE`) walls laid out as X-Plane builds them.
//!
//! A wall's texture is cut into panels across (`LEFT`, `CENTER`, `RIGHT`) and up (`BOTTOM`,
//! `MIDDLE`, `TOP`). Along a wall X-Plane picks how many panels to use from the wall's length
//! and `SCALE`, then takes them from both ends inward: left panels from the left, right panels
//! from the right, and `CENTER` panels repeated between them; the panels are stretched to
//! fill the wall exactly. Up the wall it does the same with floors for the height asked, from
//! `BOTTOM` up and `TOP` down with `MIDDLE` floors repeated between, but floors keep their
//! height (`SCALE` y), so the building is as tall as its floors. When the facade has a roof,
//! the last `TOP` floor is the one under it; with `ROOF_SLOPE` that floor leans in by the
//! slope and the roof sits on the inset outline.
//!
//! The counting follows WED's facade preview (xptools `WED_FacadePreview.cpp`:
//! `PanelsForLength`, `get_floors_for_height`, `BuildOneFacade`), which mirrors X-Plane's:
//! end panels are tried alternately (the right/top one first), then whole runs of the middle
//! panels, then middle panels one by one. Where WED adds a panel only while it is narrower
//! than the gap left, this adds one while the total comes at least as close to the length
//! wanted (see `docs/spec-decisions.md`).

use crate::art::PanelWall;

/// Most panels or floors one wall is built of (a guard against absurd sizes).
const MAX_COUNT: usize = 4096;

/// One column of a laid-out wall: where it runs along the wall (fractions of the wall's
/// length) and the texture's `s` range it shows.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Column {
    pub along: [f32; 2],
    pub s: [f32; 2],
}

/// One floor of a laid-out wall: meters above the ground at its foot and top, the texture's
/// `t` range, and whether it is the sloped floor under the roof.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Row {
    pub up: [f32; 2],
    pub t: [f32; 2],
    pub sloped: bool,
}

/// A wall laid out: its columns left to right and its floors bottom to top.
#[derive(Debug, Clone, PartialEq, Default)]
pub(crate) struct WallLayout {
    pub columns: Vec<Column>,
    pub rows: Vec<Row>,
    /// How far the top of the sloped floor sits inside the wall (m); 0 without one.
    pub inset: f32,
}

impl WallLayout {
    /// Height of the top of the wall above the ground (m).
    pub fn height(&self) -> f32 {
        self.rows.last().map_or(0.0, |r| r.up[1])
    }
}

fn size(p: &[f32; 2]) -> f32 {
    (p[1] - p[0]).abs()
}

/// The panels across a wall, in the file's order: `LEFT`s, `CENTER`s, `RIGHT`s.
fn across(w: &PanelWall) -> (Vec<[f32; 2]>, [usize; 3]) {
    let all = [&w.left[..], &w.center[..], &w.right[..]].concat();
    (all, [w.left.len(), w.center.len(), w.right.len()])
}

/// The floors up a wall, in the file's order: `BOTTOM`s, `MIDDLE`s, `TOP`s.
fn up(w: &PanelWall) -> (Vec<[f32; 2]>, [usize; 3]) {
    let all = [&w.bottom[..], &w.middle[..], &w.top[..]].concat();
    (all, [w.bottom.len(), w.middle.len(), w.top.len()])
}

/// How many panels of `sizes` (first `n[0]` start panels, `n[1]` middle, `n[2]` end ones)
/// make a total nearest `wanted`, starting from `start`. `fold` scales the very last panel
/// and counts it without a test (the sloped floor under a roof).
fn count(sizes: &[f32], n: [usize; 3], wanted: f32, start: f32, fold: Option<f32>) -> usize {
    let len = sizes.len();
    if len == 0 || !wanted.is_finite() {
        return 1;
    }
    let better = |from: f32, to: f32| (to - wanted).abs() <= (from - wanted).abs();
    let (mut s, mut e, mut count) = (0usize, 0usize, 0usize);
    let (s_max, mut e_max) = (n[0] + n[1], n[2] + n[1]);
    let (mut i_s, mut i_e) = (0usize, len as isize - 1);
    let mut dist = start;
    while s < s_max || e < e_max {
        if (s < s_max && s < e) || e >= e_max {
            let Some(&w) = sizes.get(i_s) else { break };
            if count > 0 && !better(dist, dist + w) {
                return count;
            }
            dist += w;
            i_s += 1;
            s += 1;
            count += 1;
        } else {
            let Some(&w) = usize::try_from(i_e).ok().and_then(|i| sizes.get(i)) else {
                break;
            };
            let folded = i_e as usize == len - 1 && fold.is_some();
            if folded {
                dist += w * fold.unwrap_or(1.0);
                e_max = e_max.saturating_sub(1);
            } else {
                if count > 0 && !better(dist, dist + w) {
                    return count;
                }
                dist += w;
                e += 1;
            }
            i_e -= 1;
            count += 1;
        }
    }
    let mid = &sizes[n[0].min(len)..len - n[2].min(len - n[0].min(len))];
    let mid_total: f32 = mid.iter().sum();
    if mid.is_empty() || mid_total <= 1e-6 {
        return count.max(1);
    }
    let reps = ((wanted - dist) / mid_total)
        .floor()
        .clamp(0.0, MAX_COUNT as f32) as usize;
    count += reps * mid.len();
    dist += reps as f32 * mid_total;
    for &w in mid {
        if count >= MAX_COUNT || (count > 0 && !better(dist, dist + w)) {
            break;
        }
        dist += w;
        count += 1;
    }
    count.clamp(1, MAX_COUNT)
}

/// Which of `n[0]` start, `n[1]` middle and `n[2]` end panels make `count` panels, as
/// indices into the panels in file order: start panels from the start (running on into the
/// middle ones), end panels from the end, and the middle ones repeated between them.
pub fn split(count: usize, n: [usize; 3]) -> Vec<usize> {
    let total = n[0] + n[1] + n[2];
    if total == 0 || count == 0 {
        return Vec::new();
    }
    if count == total {
        return (0..total).collect();
    }
    let mut mid_c = count.saturating_sub(n[0] + 2 * n[1] + n[2]);
    let start_c = (n[0] + n[1]).min((count - mid_c) / 2);
    let end_c = (n[1] + n[2]).min(count - mid_c - start_c);
    let start_c = count - end_c - mid_c;
    if n[1] == 0 {
        mid_c = 0;
    }
    let mut out: Vec<usize> = (0..start_c.min(total)).collect();
    out.extend((0..mid_c).map(|k| n[0] + k % n[1].max(1)));
    out.extend(total.saturating_sub(end_c)..total);
    out
}

/// The number of floors for a wanted height (m), kept in `floors_min..=floors_max`; the
/// first wall of a LOD decides it for all its walls, as in X-Plane.
pub(crate) fn floors_for_height(
    w: &PanelWall,
    floors_min: u32,
    floors_max: u32,
    height: f32,
    roof: bool,
) -> usize {
    let lo = floors_min.max(1) as usize;
    let hi = if floors_max == 0 {
        MAX_COUNT
    } else {
        (floors_max as usize).max(lo)
    };
    if lo == hi {
        return lo;
    }
    let (floors, n) = up(w);
    let sizes: Vec<f32> = floors.iter().map(size).collect();
    let fold = (roof && n[2] > 0 && w.roof_slope != 0.0).then(|| slope_height(w));
    let sy = w.scale[1].max(1e-3);
    count(&sizes, n, height / sy, -w.basement, fold).clamp(lo, hi)
}

/// The vertical share of the sloped floor's texture height.
fn slope_height(w: &PanelWall) -> f32 {
    if w.slant {
        w.roof_slope.to_radians().cos()
    } else {
        1.0
    }
}

/// Lays out a wall `len` meters long with `floors` floors; `roof` says the facade has a roof
/// (then the last `TOP` floor is the one under it, sloped by `ROOF_SLOPE`).
pub fn layout(w: &PanelWall, len: f32, floors: usize, roof: bool) -> WallLayout {
    let mut out = WallLayout::default();
    // Across.
    let (sizes_s, n_s) = across(w);
    let widths: Vec<f32> = sizes_s.iter().map(size).collect();
    let sx = w.scale[0].max(1e-3);
    let n_panels = count(&widths, n_s, len / sx, 0.0, None);
    let idx = split(n_panels, n_s);
    let total: f32 = idx.iter().map(|&i| widths[i]).sum();
    if total <= 1e-6 {
        return out;
    }
    let mut at = 0.0;
    for (k, &i) in idx.iter().enumerate() {
        let end = if k + 1 == idx.len() {
            1.0
        } else {
            at + widths[i] / total
        };
        out.columns.push(Column {
            along: [at, end],
            s: sizes_s[i],
        });
        at = end;
    }
    // Up.
    let (sizes_t, n_t) = up(w);
    let sloped = roof && n_t[2] > 0;
    let sy = w.scale[1];
    let mut rows = if sloped {
        let mut r = split(floors.saturating_sub(1), [n_t[0], n_t[1], n_t[2] - 1]);
        r.push(sizes_t.len() - 1);
        r
    } else {
        split(floors, n_t)
    };
    rows.retain(|&i| i < sizes_t.len());
    let mut h = -w.basement * sy;
    let last = rows.len();
    for (k, &i) in rows.iter().enumerate() {
        let t = sizes_t[i];
        let is_sloped = sloped && k + 1 == last;
        let mut dh = size(&t) * sy;
        if is_sloped {
            let a = w.roof_slope.to_radians();
            out.inset = if w.slant { a.sin() * dh } else { a.tan() * dh };
            dh *= slope_height(w);
        }
        out.rows.push(Row {
            up: [h, h + dh],
            t,
            sloped: is_sloped,
        });
        h += dh;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The sample brick facade (`sample_scenery/facades/brick.fac`): 16 m per texture,
    /// piers of 1 m, a centre of 14 m; floors of 4 m (shop), 3 m (upper) and 2 m (cornice).
    fn brick() -> PanelWall {
        let px = |a: f32, b: f32| [a / 512.0, b / 512.0];
        PanelWall {
            min_width: 2.0,
            max_width: 200.0,
            scale: [16.0, 16.0],
            left: vec![px(0.0, 32.0)],
            center: vec![px(32.0, 480.0)],
            right: vec![px(480.0, 512.0)],
            bottom: vec![px(0.0, 128.0)],
            middle: vec![px(128.0, 224.0)],
            top: vec![px(224.0, 288.0)],
            ..PanelWall::default()
        }
    }

    fn t_names(l: &WallLayout) -> Vec<&'static str> {
        l.rows
            .iter()
            .map(|r| match (r.t[0] * 512.0).round() as i32 {
                0 => "bottom",
                128 => "middle",
                224 => "top",
                _ => "?",
            })
            .collect()
    }

    fn s_names(l: &WallLayout) -> Vec<&'static str> {
        l.columns
            .iter()
            .map(|c| match (c.s[0] * 512.0).round() as i32 {
                0 => "left",
                32 => "center",
                480 => "right",
                _ => "?",
            })
            .collect()
    }

    #[test]
    fn a_12_m_brick_facade_has_a_shop_two_upper_floors_and_a_cornice() {
        let w = brick();
        let floors = floors_for_height(&w, 1, 6, 12.0, true);
        assert_eq!(floors, 4);
        let l = layout(&w, 20.0, floors, true);
        assert_eq!(t_names(&l), ["bottom", "middle", "middle", "top"]);
        let ups: Vec<[f32; 2]> = l.rows.iter().map(|r| r.up).collect();
        assert_eq!(
            ups,
            [[0.0, 4.0], [4.0, 7.0], [7.0, 10.0], [10.0, 12.0]],
            "floors keep their height"
        );
        assert_eq!(l.height(), 12.0);
        // Only the top floor is the one under the roof; flat roof: no inset.
        assert!(l.rows[3].sloped && l.inset == 0.0);
    }

    #[test]
    fn floors_follow_the_height_within_floors_min_and_max() {
        let w = brick();
        let names = |h: f32| {
            let f = floors_for_height(&w, 1, 6, h, true);
            t_names(&layout(&w, 20.0, f, true))
        };
        // Low: two floors; the top has priority, so X-Plane draws an upper floor under the
        // cornice rather than the shop (BuildOneFacade's split).
        assert_eq!(names(6.0), ["middle", "top"]);
        assert_eq!(names(9.0), ["bottom", "middle", "top"]);
        // Tall: middle floors repeat, up to FLOORS_MAX 6.
        assert_eq!(
            names(18.0),
            ["bottom", "middle", "middle", "middle", "middle", "top"]
        );
        assert_eq!(names(100.0).len(), 6);
        // FLOORS_MIN = FLOORS_MAX fixes the count.
        assert_eq!(floors_for_height(&w, 3, 3, 50.0, true), 3);
        // Nonsense heights still give a floor.
        assert_eq!(floors_for_height(&w, 1, 6, f32::NAN, true), 1);
        assert_eq!(floors_for_height(&w, 1, 6, -5.0, true), 1);
    }

    #[test]
    fn panels_across_follow_the_length_and_fill_it() {
        let w = brick();
        // Short: the piers and one centre (3 panels: exactly the facade's own).
        let l = layout(&w, 12.0, 1, false);
        assert_eq!(s_names(&l), ["left", "center", "right"]);
        // Long: the centre repeats between the piers.
        let l = layout(&w, 45.0, 1, false);
        assert_eq!(s_names(&l), ["left", "center", "center", "center", "right"]);
        // Panels are stretched to fill the wall exactly, in order, without gaps.
        assert_eq!(l.columns[0].along[0], 0.0);
        assert_eq!(l.columns.last().unwrap().along[1], 1.0);
        for pair in l.columns.windows(2) {
            assert_eq!(pair[0].along[1], pair[1].along[0]);
        }
        // The piers keep their share: 32 px of the 32 + 3 × 448 + 32 px used.
        let pier = l.columns[0].along[1] - l.columns[0].along[0];
        assert!((pier - 1.0 / 44.0).abs() < 1e-4, "{pier}");
        // A very short wall still gets one panel.
        let l = layout(&w, 0.5, 1, false);
        assert_eq!(l.columns.len(), 1);
    }

    #[test]
    fn split_takes_ends_from_both_sides_and_repeats_the_middle() {
        // Exactly the facade's panels: all, in order.
        assert_eq!(split(3, [1, 1, 1]), [0, 1, 2]);
        // Fewer: the start and the end.
        assert_eq!(split(2, [1, 1, 1]), [0, 2]);
        // More: the middle repeats.
        assert_eq!(split(6, [1, 1, 1]), [0, 1, 1, 1, 1, 2]);
        // Two middle panels alternate; start runs into the middle, end comes from the end.
        assert_eq!(split(7, [1, 2, 1]), [0, 1, 2, 1, 1, 2, 3]);
        // No middle panels: never more than the ends.
        assert_eq!(split(5, [1, 0, 1]), [0, 1]);
        assert!(split(3, [0, 0, 0]).is_empty());
        for c in 0..40 {
            for n in [[1, 1, 1], [2, 3, 1], [0, 1, 0], [0, 0, 2], [3, 0, 0]] {
                let total = n[0] + n[1] + n[2];
                assert!(split(c, n).iter().all(|&i| i < total), "{c} {n:?}");
            }
        }
    }

    #[test]
    fn roof_slope_leans_the_top_floor_in() {
        let mut w = brick();
        w.roof_slope = 45.0;
        let l = layout(&w, 20.0, 4, true);
        let top = l.rows[3];
        assert!(top.sloped);
        // tan 45° × 2 m: the cornice leans 2 m in and keeps its 2 m rise.
        assert!((l.inset - 2.0).abs() < 1e-4);
        assert!((top.up[1] - top.up[0] - 2.0).abs() < 1e-4);
        // SLANT keeps the texture's length along the slope.
        w.slant = true;
        let l = layout(&w, 20.0, 4, true);
        let top = l.rows[3];
        assert!((l.inset - 2.0 * 0.5f32.sqrt()).abs() < 1e-4);
        assert!((top.up[1] - top.up[0] - 2.0 * 0.5f32.sqrt()).abs() < 1e-4);
        // Without a roof there is no sloped floor.
        assert!(layout(&w, 20.0, 4, false).rows.iter().all(|r| !r.sloped));
    }

    #[test]
    fn basement_depth_sinks_the_floors() {
        let mut w = brick();
        w.basement = 32.0 / 512.0; // 1 m
        let l = layout(&w, 20.0, 3, true);
        assert_eq!(l.rows[0].up, [-1.0, 3.0]);
        assert_eq!(l.height(), 8.0);
    }
}
