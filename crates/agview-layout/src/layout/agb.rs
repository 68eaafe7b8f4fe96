//! Autogen block layout: a grid of tiles fitted to a four-sided polygon.
//!
//! The steps follow the AGB spec:
//! 1. Measure the block: width is the shortest extent along the first side, depth the
//!    shortest distance normal to it. The high byte of the parameter is the height / 4.
//! 2. Choose a spelling set: those whose `SPELLING_SET` param is the parameter's low byte and
//!    whose `HEIGHT_RANGE`/`WIDTH_RANGE`/`DEPTH_RANGE` hold, drawn by `FREQUENCY` with the
//!    seed; none matching, the first set.
//! 3. For each direction, choose the spelling whose re-assembled length, stretched by its
//!    slop tiles, lets the polygon's sides pass through the grid between `EDGE_MAX` and
//!    `EDGE_MIN` as close to `EDGE_BEST` as possible (trapezoids included: every vertex of a
//!    side must lie in its band).
//!    When none fits, the closest length keeps the first side on its `EDGE_BEST` line and
//!    the difference goes to the far side (centred across the width).
//! 4. Place the tiles: the grid's bottom edge (top with `FLIP_180`) along the first side.
//!    A slop tile advances by 0..(size − overlap) and is drawn up to where the next tile
//!    covers it; an anti-slop tile starts early over the previous one. Annotations belong to
//!    the grid cell they fall in and move with it; those of a slop tile that the next tile
//!    covers (from its early start on) are dropped.
//!
//! How the `EDGE_*` rectangles apply to a re-assembled grid, and other readings, are written
//! down in `docs/spec-decisions.md`.

use std::path::Path;

use crate::diag::{kind, Diagnostic, Severity};
use crate::format::autogen::{Autogen, Grid, GridSpan, Spelling, SpellingSet};
use crate::scene::{BlockChoice, Scene, Tile, TileRun};

use super::geom::{self, Frame, P2};
use super::rng::Rng;
use super::{scene_for, Emit, LayoutInput, TileXf};

/// Insets (meters) of the EDGE rectangles from the grid's outer boundary along one axis:
/// `lo` is the left/bottom side, `hi` the right/top side.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Insets {
    pub min_lo: f32,
    pub best_lo: f32,
    pub max_lo: f32,
    pub min_hi: f32,
    pub best_hi: f32,
    pub max_hi: f32,
}

/// The result of fitting one spelling along one axis.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Fit {
    /// Where the grid starts along the axis (canonical frame, meters).
    pub start: f32,
    /// The grid's length along the axis.
    pub length: f32,
    /// Whether the sides pass between EDGE_MAX and EDGE_MIN.
    pub fits: bool,
    /// Distance from the EDGE_BEST placement (meters, both ends summed).
    pub cost: f32,
}

/// The fixed length and the slop range of a spelling: `(fixed, max_slop)` in meters.
pub fn spelling_extent(spans: &[GridSpan], spelling: &[usize], mpp: f32) -> (f32, f32) {
    let mut fixed = 0.0;
    let mut slop = 0.0;
    for (k, &i) in spelling.iter().enumerate() {
        let Some(s) = spans.get(i) else { continue };
        match s.slop {
            Some(ov) => slop += (s.size() - ov).max(0.0) * mpp,
            None => {
                fixed += s.size() * mpp;
                if k > 0 {
                    fixed -= s.antislop * mpp;
                }
            }
        }
    }
    (fixed, slop)
}

/// Which end of an axis stays on its `EDGE_BEST` line when no spelling fits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Anchor {
    /// The low end (bottom: the first side, without `FLIP_180`).
    Lo,
    /// The high end (top: the first side, with `FLIP_180`).
    Hi,
    /// Both ends equally off their lines (across the width).
    Centre,
}

/// Fits a grid of length in `[fixed, fixed + slop]` between the two sides of the polygon
/// whose coordinates along the axis are `lo_pts` and `hi_pts`. When no length and place
/// fits, the closest length is placed with its `anchor` end on that end's `EDGE_BEST` line.
pub fn fit_axis(
    lo_pts: &[f32],
    hi_pts: &[f32],
    ins: &Insets,
    fixed: f32,
    slop: f32,
    anchor: Anchor,
) -> Fit {
    let mm = |v: &[f32]| {
        let lo = v.iter().copied().fold(f32::INFINITY, f32::min);
        let hi = v.iter().copied().fold(f32::NEG_INFINITY, f32::max);
        let mean = v.iter().sum::<f32>() / v.len().max(1) as f32;
        (lo, hi, mean)
    };
    let (lo_min, lo_max, lo_mean) = mm(lo_pts);
    let (hi_min, hi_max, hi_mean) = mm(hi_pts);
    // u = grid start, w = grid end.
    let a = (lo_max - ins.min_lo, lo_min - ins.max_lo);
    let b = (hi_max + ins.max_hi, hi_min + ins.min_hi);
    let u_best = lo_mean - ins.best_lo;
    let w_best = hi_mean + ins.best_hi;
    let len_lo = fixed.max(b.0 - a.1);
    let len_hi = (fixed + slop).min(b.1 - a.0);
    const EPS: f32 = 1e-4;
    let feasible = a.0 <= a.1 + EPS && b.0 <= b.1 + EPS && len_lo <= len_hi + EPS;
    let (u, w) = if feasible {
        let len = (w_best - u_best).clamp(len_lo, len_hi.max(len_lo));
        let u_lo = a.0.max(b.0 - len);
        let u_hi = a.1.min(b.1 - len);
        let u = ((u_best + w_best - len) * 0.5).clamp(u_lo.min(u_hi), u_hi.max(u_lo));
        (u, u + len)
    } else {
        let len = (w_best - u_best).clamp(fixed, fixed + slop);
        let u = match anchor {
            Anchor::Lo => u_best,
            Anchor::Hi => w_best - len,
            Anchor::Centre => (u_best + w_best - len) * 0.5,
        };
        (u, u + len)
    };
    Fit {
        start: u,
        length: w - u,
        fits: feasible,
        cost: (u - u_best).abs() + (w - w_best).abs(),
    }
}

/// The polygon's (left, bottom, right, top) sides in the grid's frame, as vertex pairs.
pub type Sides = (
    (usize, usize),
    (usize, usize),
    (usize, usize),
    (usize, usize),
);

/// The crop outline of a block that no spelling fits: the polygon `q` (canonical frame)
/// with each vertex moved out, along the grid's axes, to the `EDGE_MIN` rectangle
/// `[left, bottom, right, top]` where it lies inside it, so that every side lies on or
/// beyond the rectangle's matching edge and nothing inside EDGE_MIN is cropped. `sides` are
/// the (left, bottom, right, top) vertex pairs.
pub fn crop_outline(q: &[P2; 4], sides: Sides, min_rect: [f32; 4]) -> [P2; 4] {
    let (left, bottom, right, top) = sides;
    let mut out = *q;
    for i in [left.0, left.1] {
        out[i][0] = out[i][0].min(min_rect[0]);
    }
    for i in [right.0, right.1] {
        out[i][0] = out[i][0].max(min_rect[2]);
    }
    for i in [bottom.0, bottom.1] {
        out[i][1] = out[i][1].min(min_rect[1]);
    }
    for i in [top.0, top.1] {
        out[i][1] = out[i][1].max(min_rect[3]);
    }
    out
}

/// Width and depth of a block as the spec measures them, in the frame of its first side:
/// the shortest extent across the polygon along the first side, and the shortest distance
/// of the far side from it.
pub fn block_size(q: &[P2; 4]) -> (f32, f32) {
    // Left side q3..q0, right side q1..q2 (canonical normal frame).
    let side_at = |a: P2, b: P2, t: f32| -> f32 {
        if (b[1] - a[1]).abs() < 1e-6 {
            (a[0] + b[0]) * 0.5
        } else {
            let k = ((t - a[1]) / (b[1] - a[1])).clamp(0.0, 1.0);
            a[0] + (b[0] - a[0]) * k
        }
    };
    let top = q[2][1].min(q[3][1]).max(0.0);
    let mut width = f32::INFINITY;
    for t in [0.0, top, q[2][1].min(top), q[3][1].min(top)] {
        let w = side_at(q[1], q[2], t) - side_at(q[0], q[3], t);
        width = width.min(w);
    }
    let depth = q[2][1].min(q[3][1]);
    (width.max(0.0), depth.max(0.0))
}

/// One placed column or row.
#[derive(Debug, Clone, Copy)]
struct Placed {
    /// Index into the grid's columns/rows.
    index: usize,
    /// Start along the axis (canonical frame, meters).
    start: f32,
    /// Length drawn (meters): full size, or for a slop tile up to what the next covers.
    drawn: f32,
    /// From how far after `start` the next tile covers this one (meters): this tile's
    /// advance less the next tile's anti-slop (its early start); the advance for the last
    /// tile.
    covered_from: f32,
    slop: bool,
    antislop: bool,
}

fn place_axis(spans: &[GridSpan], spelling: &[usize], mpp: f32, fit: &Fit) -> Vec<Placed> {
    let (fixed, slop_max) = spelling_extent(spans, spelling, mpp);
    let extra = (fit.length - fixed).clamp(0.0, slop_max);
    let share = if slop_max > 0.0 {
        extra / slop_max
    } else {
        0.0
    };
    let mut pos = fit.start;
    let mut out: Vec<Placed> = Vec::with_capacity(spelling.len());
    for (k, &i) in spelling.iter().enumerate() {
        let s = &spans[i];
        let size = s.size() * mpp;
        let anti = if k > 0 && s.slop.is_none() {
            s.antislop * mpp
        } else {
            0.0
        };
        let start = pos - anti;
        let (drawn, advance) = match s.slop {
            Some(ov) => {
                let adv = (s.size() - ov).max(0.0) * mpp * share;
                let last = k + 1 == spelling.len();
                let drawn = if last {
                    adv
                } else {
                    (adv + ov * mpp).min(size)
                };
                (drawn, adv)
            }
            None => (size, size),
        };
        if let Some(prev) = out.last_mut() {
            prev.covered_from = start - prev.start;
        }
        out.push(Placed {
            index: i,
            start,
            drawn,
            covered_from: advance,
            slop: s.slop.is_some(),
            antislop: anti > 0.0,
        });
        pos = start + advance;
    }
    out
}

fn insets(
    grid: &Grid,
    mpp: [f32; 2],
    warnings: &mut Vec<Diagnostic>,
    asset: &Path,
) -> (Insets, Insets) {
    let outer = [
        grid.columns.first().map_or(0.0, |c| c.start),
        grid.rows.first().map_or(0.0, |r| r.start),
        grid.columns.last().map_or(0.0, |c| c.end),
        grid.rows.last().map_or(0.0, |r| r.end),
    ];
    let of = |r: [f32; 4]| {
        [
            (r[0] - outer[0]) * mpp[0],
            (r[1] - outer[1]) * mpp[1],
            (outer[2] - r[2]) * mpp[0],
            (outer[3] - r[3]) * mpp[1],
        ]
    };
    let max = grid.edge_max.map_or([0.0; 4], of);
    let min = grid.edge_min.map(of).unwrap_or_else(|| {
        [
            grid.columns.first().map_or(0.0, |c| c.size()) * mpp[0],
            grid.rows.first().map_or(0.0, |r| r.size()) * mpp[1],
            grid.columns.last().map_or(0.0, |c| c.size()) * mpp[0],
            grid.rows.last().map_or(0.0, |r| r.size()) * mpp[1],
        ]
    });
    let best = grid
        .edge_best
        .map(of)
        .unwrap_or_else(|| std::array::from_fn(|i| (min[i] + max[i]) * 0.5));
    let mut fixed = [[0.0f32; 3]; 4];
    for i in 0..4 {
        let mut v = [max[i], best[i], min[i]];
        if !(v[0] <= v[1] && v[1] <= v[2]) {
            warnings.push(
                Diagnostic::at_line(
                    Severity::Warning,
                    asset,
                    grid.line,
                    format!("EDGE_MAX, EDGE_BEST and EDGE_MIN are not nested on side {i}; sorted"),
                )
                .with_kind(kind::LAYOUT),
            );
            v.sort_by(f32::total_cmp);
        }
        fixed[i] = v;
    }
    let axis = |lo: usize, hi: usize| Insets {
        max_lo: fixed[lo][0],
        best_lo: fixed[lo][1],
        min_lo: fixed[lo][2],
        max_hi: fixed[hi][0],
        best_hi: fixed[hi][1],
        min_hi: fixed[hi][2],
    };
    (axis(0, 2), axis(1, 3))
}

/// The widths (or depths) of a rectangular block that a spelling set's spellings fit, as
/// sorted, disjoint ranges in meters: spelling `f + [0, s]` long fits a block between
/// `f − EDGE_MIN insets` and `f + s − EDGE_MAX insets`. Only used for the no-fit warning.
pub fn coverage(
    spans: &[GridSpan],
    spellings: &[Spelling],
    ins: &Insets,
    mpp: f32,
) -> Vec<(f32, f32)> {
    let mut r: Vec<(f32, f32)> = spellings
        .iter()
        .map(|sp| {
            let (f, s) = spelling_extent(spans, &sp.indices, mpp);
            (
                (f - ins.min_lo - ins.min_hi).max(0.0),
                (f + s - ins.max_lo - ins.max_hi).max(0.0),
            )
        })
        .collect();
    r.sort_by(|a, b| a.0.total_cmp(&b.0));
    // Merged in place: ranges that touch within a centimetre are one.
    let mut kept = 0;
    for i in 0..r.len() {
        let (lo, hi) = r[i];
        if kept > 0 && lo <= r[kept - 1].1 + 0.01 {
            r[kept - 1].1 = r[kept - 1].1.max(hi);
        } else {
            r[kept] = (lo, hi);
            kept += 1;
        }
    }
    r.truncate(kept);
    r
}

/// Says which `what` ("widths", "depths") the ranges cover and where `v` falls: e.g.
/// "covers widths 20.0–35.0 m and 37.0–52.0 m; 36.0 m falls in a gap".
#[cfg(test)]
pub(crate) fn describe_coverage(what: &str, v: f32, ranges: &[(f32, f32)]) -> String {
    let mut out = String::with_capacity(160);
    write_coverage(&mut out, what, v, ranges);
    out
}

/// [`describe_coverage`], written into `out` (one string for the whole warning).
fn write_coverage(out: &mut String, what: &str, v: f32, ranges: &[(f32, f32)]) {
    use std::fmt::Write;
    let _ = write!(out, "covers {what} ");
    if ranges.is_empty() {
        out.push_str("nothing");
        return;
    }
    let n = ranges.len();
    for (i, (a, b)) in ranges.iter().enumerate() {
        if i > 0 {
            out.push_str(if i + 1 == n { " and " } else { ", " });
        }
        let _ = if (b - a).abs() < 0.05 {
            write!(out, "{a:.1} m")
        } else {
            write!(out, "{a:.1}\u{2013}{b:.1} m")
        };
    }
    let (first, last) = (ranges[0].0, ranges[n - 1].1);
    let _ = if v < first - 0.05 {
        write!(out, "; {v:.1} m is below the smallest")
    } else if v > last + 0.05 {
        write!(out, "; {v:.1} m is above the largest")
    } else if ranges.iter().any(|(a, b)| v >= a - 0.05 && v <= b + 0.05) {
        write!(out, "; {v:.1} m is covered, but the sides are too slanted to lie between EDGE_MIN and EDGE_MAX")
    } else {
        write!(out, "; {v:.1} m falls in a gap")
    };
}

/// Chooses the spelling that fits best: the lowest cost among those that fit (ties within
/// a centimetre drawn with the seed), else the closest.
fn choose(
    spans: &[GridSpan],
    spellings: &[Spelling],
    (lo, hi): (&[f32], &[f32]),
    ins: &Insets,
    mpp: f32,
    anchor: Anchor,
    rng: &mut Rng,
) -> (usize, Fit) {
    let fit_of = |sp: &Spelling| {
        let (f, s) = spelling_extent(spans, &sp.indices, mpp);
        fit_axis(lo, hi, ins, f, s, anchor)
    };
    // Two passes rather than a list of fits: layout runs per block, so it allocates little.
    let mut any_fit = false;
    let mut best = f32::INFINITY;
    for sp in spellings {
        let f = fit_of(sp);
        if f.fits && !any_fit {
            any_fit = true;
            best = f32::INFINITY;
        }
        if f.fits == any_fit {
            best = best.min(f.cost);
        }
    }
    let is_tie = |f: &Fit| f.fits == any_fit && f.cost <= best + 0.01;
    let ties = spellings.iter().filter(|sp| is_tie(&fit_of(sp))).count();
    let mut k = rng.below(ties);
    for (i, sp) in spellings.iter().enumerate() {
        let f = fit_of(sp);
        if is_tie(&f) {
            if k == 0 {
                return (i, f);
            }
            k -= 1;
        }
    }
    (
        0,
        spellings.first().map_or_else(
            || {
                let (f, s) = spelling_extent(spans, &[], mpp);
                fit_axis(lo, hi, ins, f, s, anchor)
            },
            fit_of,
        ),
    )
}

fn set_matches(set: &SpellingSet, low: u32, width: f32, depth: f32, height: f32) -> bool {
    let within = |r: Option<[f32; 2]>, v: f32| r.is_none_or(|[a, b]| v >= a && v <= b);
    set.param == low
        && within(set.height_range, height)
        && within(set.width_range, width)
        && within(set.depth_range, depth)
}

/// Validates the block polygon: four points, counter-clockwise, simple, with area.
fn block_polygon(
    ag_path: &Path,
    input: &LayoutInput,
    rings: &[Vec<P2>],
) -> Result<[P2; 4], Diagnostic> {
    // WED writes a block whose first side does not spawn as a one-point winding before the
    // closed ring that starts at the same point (WED_DSFExport); that point is the ring's.
    let rings = match rings {
        [lead, ring] if lead.len() == 1 && ring.first() == lead.first() => {
            std::slice::from_ref(ring)
        }
        _ => rings,
    };
    if rings.len() > 1 {
        return Err(input.polygon_error(
            ag_path,
            format!(
                "an autogen block polygon has no holes; this one has {}",
                rings.len() - 1
            ),
        ));
    }
    let mut ring = rings.first().cloned().unwrap_or_default();
    if ring.len() == 5 && ring[0] == ring[4] {
        ring.pop();
    }
    if ring.len() != 4 {
        return Err(input.polygon_error(
            ag_path,
            format!(
                "an autogen block needs a polygon of exactly 4 points; this one has {}",
                ring.len()
            ),
        ));
    }
    let q = [ring[0], ring[1], ring[2], ring[3]];
    if geom::self_intersects(&q) {
        return Err(input.polygon_error(ag_path, "the block polygon crosses itself"));
    }
    let area = geom::signed_area2(&q) * 0.5;
    let scale = q
        .iter()
        .map(|p| geom::len(geom::sub(*p, q[0])))
        .fold(0.0, f32::max);
    if area.abs() <= 1e-6 * scale.max(1.0) * scale.max(1.0) {
        return Err(input.polygon_error(ag_path, "the block polygon has zero area"));
    }
    if area < 0.0 {
        return Err(input.polygon_error(
            ag_path,
            "the block polygon is clockwise; DSF autogen blocks are counter-clockwise (reverse its points)",
        ));
    }
    Ok(q)
}

/// Lays out an `.agb` on `input.polygon` (or, with none, a rectangle that fits its first
/// spelling set).
pub fn layout(ag: &Autogen, asset_path: &Path, input: &LayoutInput) -> Result<Scene, Diagnostic> {
    let mut scene = scene_for(ag, asset_path, input);
    let mut rng = Rng::new(input.seed);
    let mpp = ag.meters_per_pixel();
    let first = ag.spelling_sets.first().ok_or_else(|| {
        Diagnostic::error_file(asset_path, "the autogen block has no SPELLING_SET")
    })?;

    let q_world = match &input.polygon {
        Some(rings) => block_polygon(asset_path, input, rings)?,
        None => {
            let grid = ag.grids.get(first.grid).ok_or_else(|| {
                Diagnostic::error_file(asset_path, "the first spelling set names no grid")
            })?;
            let (ins_s, ins_t) = insets(grid, mpp, &mut scene.warnings, asset_path);
            let median = |list: &[crate::format::autogen::Spelling], spans: &[GridSpan], m: f32| {
                let mut ext: Vec<(f32, f32)> = list
                    .iter()
                    .map(|s| spelling_extent(spans, &s.indices, m))
                    .collect();
                ext.sort_by(|a, b| a.0.total_cmp(&b.0));
                ext.get(ext.len() / 2).copied().unwrap_or((10.0, 0.0))
            };
            let (fw, sw) = median(&first.spellings_s, &grid.columns, mpp[0]);
            let (fd, sd) = median(&first.spellings_t, &grid.rows, mpp[1]);
            let w = (fw + sw * 0.5 - ins_s.best_lo - ins_s.best_hi).max(1.0);
            let d = (fd + sd * 0.5 - ins_t.best_lo - ins_t.best_hi).max(1.0);
            scene.warnings.push(
                Diagnostic::warning_at(
                    asset_path,
                    first.line,
                    1,
                    format!(
                        "no polygon given: laid out on a {w:.1} x {d:.1} m rectangle that fits spelling set 0 (this line)"
                    ),
                )
                .with_kind(kind::LAYOUT),
            );
            [[0.0, 0.0], [w, 0.0], [w, d], [0.0, d]]
        }
    };
    scene.polygon = vec![q_world.to_vec()];

    // 1. Measure in the frame of the first side.
    let normal = Frame::along(q_world[0], q_world[1]);
    let qn = q_world.map(|p| normal.to_local(p));
    let (width, depth) = block_size(&qn);
    let height = input.agl_height().unwrap_or(0.0);
    let low = input.low_byte();

    // 2. Spelling set.
    // Walked rather than collected: a block is laid out thousands of times a second.
    let candidates = || {
        (0..ag.spelling_sets.len())
            .filter(move |&i| set_matches(&ag.spelling_sets[i], low, width, depth, height))
    };
    let set_index = if candidates().next().is_none() {
        scene.warnings.push(Diagnostic::at_line(
            Severity::Warning,
            asset_path,
            first.line,
            format!("no spelling set matches param {low}, width {width:.1} m, depth {depth:.1} m, height {height:.0} m; using the first"),
        ).with_kind(kind::LAYOUT));
        0
    } else {
        let k = rng
            .weighted_by(candidates().map(|i| ag.spelling_sets[i].frequency))
            .unwrap_or(0);
        candidates().nth(k).unwrap_or(0)
    };
    let set = &ag.spelling_sets[set_index];
    let grid = ag.grids.get(set.grid).ok_or_else(|| {
        Diagnostic::error_at(
            asset_path,
            set.line,
            1,
            format!("USE_GRID {} is past the last grid", set.grid),
        )
    })?;

    // 3. Canonical frame: the grid's texture axes. With FLIP_180 the first side runs along
    // the top of the texture from right to left.
    let canon = if ag.flip_180 {
        Frame {
            origin: q_world[1],
            u: geom::scale(normal.u, -1.0),
            v: geom::scale(normal.v, -1.0),
        }
    } else {
        normal
    };
    let q = q_world.map(|p| canon.to_local(p));
    // Sides in the canonical frame: (left, bottom, right, top) as vertex pairs.
    let (left, bottom, right, top): Sides = if ag.flip_180 {
        ((1, 2), (2, 3), (3, 0), (0, 1))
    } else {
        ((3, 0), (0, 1), (1, 2), (2, 3))
    };
    let xs = |s: (usize, usize)| [q[s.0][0], q[s.1][0]];
    let ys = |s: (usize, usize)| [q[s.0][1], q[s.1][1]];
    let (ins_s, ins_t) = insets(grid, mpp, &mut scene.warnings, asset_path);
    let (spell_s, spell_t) = (&set.spellings_s, &set.spellings_t);
    let (si, fit_s) = choose(
        &grid.columns,
        spell_s,
        (&xs(left), &xs(right)),
        &ins_s,
        mpp[0],
        Anchor::Centre,
        &mut rng,
    );
    let (ti, fit_t) = choose(
        &grid.rows,
        spell_t,
        (&ys(bottom), &ys(top)),
        &ins_t,
        mpp[1],
        // The first side is the bottom of the grid, or its top with FLIP_180.
        if ag.flip_180 { Anchor::Hi } else { Anchor::Lo },
        &mut rng,
    );
    let fits = fit_s.fits && fit_t.fits;
    if !fits {
        use std::fmt::Write;
        let mut w = String::with_capacity(400);
        let _ = write!(
            w,
            "no spelling fits this {width:.1} x {depth:.1} m block between EDGE_MIN and EDGE_MAX: spelling set {set_index} (SPELLING_SET {}, line {}) ",
            set.param,
            set.line,
        );
        if !fit_s.fits {
            let r = coverage(&grid.columns, spell_s, &ins_s, mpp[0]);
            write_coverage(&mut w, "widths", width, &r);
        }
        if !fit_t.fits {
            if !fit_s.fits {
                w.push_str("; it ");
            }
            let r = coverage(&grid.rows, spell_t, &ins_t, mpp[1]);
            write_coverage(&mut w, "depths", depth, &r);
        }
        w.push_str("; the closest fit is shown");
        scene.warnings.push(
            Diagnostic::at_line(Severity::Warning, asset_path, set.line, w).with_kind(kind::LAYOUT),
        );
    }
    scene.choice = Some(BlockChoice {
        spelling_set: set_index,
        grid: set.grid,
        spelling_s: spell_s[si].indices.clone(),
        spelling_t: spell_t[ti].indices.clone(),
        fits,
    });

    // 4. Tiles.
    let cols = place_axis(&grid.columns, &spell_s[si].indices, mpp[0], &fit_s);
    let rows = place_axis(&grid.rows, &spell_t[ti].indices, mpp[1], &fit_t);
    // CROP 1 cuts tiles at the block polygon, but never content inside EDGE_MIN: when no
    // spelling fits, each side of the polygon that cuts into the placed EDGE_MIN rectangle
    // is moved out to it (see `crop_outline`).
    // Each list grows once: a block is laid out thousands of times a second.
    scene.tiles.reserve(rows.len() * cols.len());
    scene.runs.reserve(rows.len());
    scene.debug.cut_lines.reserve(rows.len() + cols.len() + 2);
    {
        let (mut objects, mut trees, mut facades) = (0, 0, 0);
        for ann in &grid.annotations {
            match ann.kind {
                crate::format::autogen::AnnotationKind::Object { .. } => objects += 1,
                crate::format::autogen::AnnotationKind::Facade { .. } => facades += 1,
                _ => trees += 1,
            }
        }
        scene.objects.reserve(objects);
        scene.trees.reserve(trees);
        scene.facades.reserve(facades);
    }
    let crop: Option<std::sync::Arc<[P2]>> = ag.crop.then(|| {
        if fits {
            q_world.as_slice().into()
        } else {
            let min_rect = [
                fit_s.start + ins_s.min_lo,
                fit_t.start + ins_t.min_lo,
                fit_s.start + fit_s.length - ins_s.min_hi,
                fit_t.start + fit_t.length - ins_t.min_hi,
            ];
            crop_outline(&q, (left, bottom, right, top), min_rect)
                .map(|p| canon.to_world(p))
                .as_slice()
                .into()
        }
    });
    for (k, r) in rows.iter().enumerate() {
        let row_span = &grid.rows[r.index];
        let mut run_start = scene.tiles.len();
        for (j, c) in cols.iter().enumerate() {
            let col_span = &grid.columns[c.index];
            let (x0, x1) = (c.start, c.start + c.drawn);
            let (y0, y1) = (r.start, r.start + r.drawn);
            let corners = [[x0, y0], [x1, y0], [x1, y1], [x0, y1]].map(|p| canon.to_world(p));
            let uv = [
                col_span.start,
                row_span.start,
                col_span.start + c.drawn / mpp[0],
                row_span.start + r.drawn / mpp[1],
            ];
            let continues = j > 0 && {
                let p = &cols[j - 1];
                c.index == p.index + 1 && !p.slop && !c.slop && !c.antislop
            };
            if !continues {
                if scene.tiles.len() - run_start > 1 {
                    scene.runs.push(TileRun {
                        first: run_start,
                        len: scene.tiles.len() - run_start,
                    });
                }
                run_start = scene.tiles.len();
            }
            scene.tiles.push(Tile {
                corners,
                uv,
                slop: c.slop || r.slop,
                col: u32::try_from(c.index).ok(),
                row: u32::try_from(r.index).ok(),
                crop: crop.clone(),
                order: (k * cols.len() + j) as u32,
                ..Default::default()
            });
        }
        if scene.tiles.len() - run_start > 1 {
            scene.runs.push(TileRun {
                first: run_start,
                len: scene.tiles.len() - run_start,
            });
        }
    }

    // Debug marks: cut lines, covered slop, EDGE rectangles.
    let (gx0, gx1) = (fit_s.start, fit_s.start + fit_s.length);
    let (gy0, gy1) = (fit_t.start, fit_t.start + fit_t.length);
    for c in &cols {
        scene.debug.cut_lines.push([
            canon.to_world([c.start, gy0]),
            canon.to_world([c.start, gy1]),
        ]);
    }
    scene
        .debug
        .cut_lines
        .push([canon.to_world([gx1, gy0]), canon.to_world([gx1, gy1])]);
    for r in &rows {
        scene.debug.cut_lines.push([
            canon.to_world([gx0, r.start]),
            canon.to_world([gx1, r.start]),
        ]);
    }
    scene
        .debug
        .cut_lines
        .push([canon.to_world([gx0, gy1]), canon.to_world([gx1, gy1])]);
    for c in cols.iter().filter(|c| c.slop && c.drawn > c.covered_from) {
        let (a, b) = (c.start + c.covered_from.max(0.0), c.start + c.drawn);
        scene.debug.slop_regions.push(
            [[a, gy0], [b, gy0], [b, gy1], [a, gy1]]
                .map(|p| canon.to_world(p))
                .to_vec(),
        );
    }
    for r in rows.iter().filter(|r| r.slop && r.drawn > r.covered_from) {
        let (a, b) = (r.start + r.covered_from.max(0.0), r.start + r.drawn);
        scene.debug.slop_regions.push(
            [[gx0, a], [gx1, a], [gx1, b], [gx0, b]]
                .map(|p| canon.to_world(p))
                .to_vec(),
        );
    }
    let rect = |lo_s: f32, hi_s: f32, lo_t: f32, hi_t: f32| {
        [
            [gx0 + lo_s, gy0 + lo_t],
            [gx1 - hi_s, gy0 + lo_t],
            [gx1 - hi_s, gy1 - hi_t],
            [gx0 + lo_s, gy1 - hi_t],
        ]
        .map(|p| canon.to_world(p))
        .to_vec()
    };
    scene.debug.edge_min = rect(ins_s.min_lo, ins_s.min_hi, ins_t.min_lo, ins_t.min_hi);
    scene.debug.edge_max = rect(ins_s.max_lo, ins_s.max_hi, ins_t.max_lo, ins_t.max_hi);

    // 5. Annotations, owned by the cell they fall in.
    let cell_of = |spans: &[GridSpan], v: f32| {
        let n = spans.len();
        spans.iter().position(|s| {
            v >= s.start && (v < s.end || (v <= s.end && std::ptr::eq(s, &spans[n - 1])))
        })
    };
    let formula_ground = |fi: &crate::format::autogen::GroundPtFormula| {
        let bottom = geom::lerp(q_world[0], q_world[1], fi.x_ratio);
        let top = geom::lerp(q_world[3], q_world[2], fi.x_ratio);
        let p = geom::lerp(bottom, top, fi.y_ratio);
        geom::add(
            p,
            geom::add(
                geom::scale(normal.u, fi.x_delta),
                geom::scale(normal.v, fi.y_delta),
            ),
        )
    };
    // Each formula with the annotation it follows and that annotation's cell.
    let formulas: Vec<(usize, (usize, usize), P2)> = grid
        .ground_formulas
        .iter()
        .filter_map(|f| {
            let a = grid.annotations.get(f.after)?.anchor();
            Some((
                f.after,
                (cell_of(&grid.columns, a[0])?, cell_of(&grid.rows, a[1])?),
                formula_ground(f),
            ))
        })
        .collect();
    let mut emit = Emit {
        ag,
        input,
        rng: rng.fork(2),
    };
    // Every tile of the block shares the grid's axes, so one heading serves them all.
    let block_heading = canon.up_heading();
    let mut outside = Vec::new();
    for (ai, ann) in grid.annotations.iter().enumerate() {
        let a = ann.anchor();
        let (Some(ci), Some(ri)) = (cell_of(&grid.columns, a[0]), cell_of(&grid.rows, a[1])) else {
            outside.push(ann.line);
            continue;
        };
        let (cs, rs) = (&grid.columns[ci], &grid.rows[ri]);
        // The formula that follows this annotation (the last, if several do); else the
        // first formula of its cell; else the tile's centre.
        let formula = formulas
            .iter()
            .rev()
            .find(|(after, _, _)| *after == ai)
            .or_else(|| formulas.iter().find(|(_, cell, _)| *cell == (ci, ri)))
            .map(|(_, _, g)| *g);
        for r in rows.iter().filter(|r| r.index == ri) {
            // In a slop tile, what the next tile covers (from its early start on) is hidden.
            if r.slop && (a[1] - rs.start) * mpp[1] > r.covered_from + 1e-4 {
                continue;
            }
            for c in cols.iter().filter(|c| c.index == ci) {
                if c.slop && (a[0] - cs.start) * mpp[0] > c.covered_from + 1e-4 {
                    continue;
                }
                let xf = TileXf {
                    frame: Frame {
                        origin: canon.to_world([c.start, r.start]),
                        u: canon.u,
                        v: canon.v,
                    },
                    origin_px: [cs.start, rs.start],
                    mpp,
                    object_heading: block_heading,
                    tree_heading: block_heading,
                };
                let ground = formula.unwrap_or_else(|| {
                    xf.px([(cs.start + cs.end) * 0.5, (rs.start + rs.end) * 0.5])
                });
                emit.annotation(&mut scene, ann, &xf, ground);
            }
        }
    }
    for line in outside {
        scene.warnings.push(
            Diagnostic::at_line(
                Severity::Warning,
                asset_path,
                line,
                format!(
                    "annotation lies outside grid {}; it is not placed",
                    set.grid
                ),
            )
            .with_kind(kind::LAYOUT),
        );
    }
    Ok(scene)
}

#[cfg(test)]
mod tests;
